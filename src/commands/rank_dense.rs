//! A dense board's upkeep beyond its writes: RANK.REMOVE takes members off
//! a board (a banned player, a closed account), as ZREM does, and with
//! `DENSE totals-key` takes a removed member's total out of the board's
//! totals index when no member holds it any more, so the dense ranks below
//! it stay exact; RANK.REINDEX builds the index from the board (a board
//! written before it had one, or by RANK.MGIFT, RANK.MERGE or ZREM, which
//! do not keep it). With `DATA data-key`, RANK.REMOVE removes the given
//! members' data too.

use super::declaration::{Command, WordList};
use super::rank_board::{drop_unheld_totals, total_text, Ranks};
use super::rank_data::{check_data_key, DATA_REMOVE};
use super::tiebreak::tiebreak_clock;
use crate::error::ZkitError;
use crate::host::ctx::Ctx;
use crate::host::grammar::{Arg, Request};
use crate::host::keyspec::key_flags as kf;
use crate::host::reply_shape::ReplyShape as R;
use crate::host::string::{OwnedRStr, RStr};
use crate::host::zset::{KeyKind, ScoreBound};
use crate::{declare_command, request};
use smallvec::SmallVec;

declare_command! {
    pub static REMOVE: Command = {
        name: "rank.remove",
        handler: remove,
        flags: "write fast",
        acl_categories: "write sortedset hash fast",
        summary: "Removes members from a board, as ZREM does, and returns how many were on it; with DENSE, each removed member's total leaves the totals index when no member holds it any more; with DATA, each given member's data is removed from the data hash.",
        complexity: "O(M*log(N)) with M the members given and N the members of the board.",
        since: "0.5.0",
        history: &[],
        reply: R::Integer,
        examples: &[
            "RANK.REMOVE {t}:board MEMBERS m n",
            "RANK.REMOVE {t}:board DENSE {t}:totals MEMBERS m",
            "RANK.REMOVE {t}:board DATA {t}:profiles MEMBERS m",
        ],
        args: &[
            Arg::key("key", kf::RW | kf::DELETE),
            Arg::key("totals-key", kf::RW | kf::DELETE)
                .token("DENSE")
                .optional(),
            DATA_REMOVE,
            Arg::string("member").token("MEMBERS").multiple(),
        ],
    }
}

request! {
    /// RANK.REMOVE `key [DENSE totals-key] [DATA data-key] MEMBERS member
    /// [member ...]`.
    struct Remove<'a> {
        key: &'a RStr = key,
        totals_key: Option<&'a RStr> = option(Request::key),
        data_key: Option<&'a RStr> = option(Request::key),
        members: WordList<'a> = words,
    }
}

/// Removals one call handles without a heap allocation.
const INLINE_MEMBERS: usize = 16;

/// -> how many of the members were on the board (a member given twice
/// counts once, as with ZREM). With DATA, every given member's data goes,
/// also a member's that is not on the board (data left by a native ZREM).
fn remove(ctx: &Ctx, args: Remove<'_>) -> Result<i64, ZkitError> {
    let Remove {
        key,
        totals_key,
        data_key,
        members,
    } = args;
    let ranks = match totals_key {
        Some(index) => Ranks::Dense(index).checked_for(key)?,
        None => Ranks::FirstCome,
    };
    if let Some(data_key) = data_key {
        check_data_key(data_key, key, ranks)?;
    }
    let mut board = ctx.open_zset_mut(key)?;
    // Opened, and every removed member's total read, before the first
    // removal: an index or data hash of another type, or a score that is no
    // rank score, refuses the call with nothing changed.
    let mut index = totals_key
        .map(|index| ctx.open_zset_mut(index))
        .transpose()?;
    let mut data = data_key
        .map(|data_key| ctx.open_hash_mut(data_key))
        .transpose()?;
    let clock = tiebreak_clock();
    let mut totals: SmallVec<[i64; INLINE_MEMBERS]> = SmallVec::new();
    if index.is_some() {
        for member in members.clone() {
            if let Some(score) = board.score(member) {
                totals.push(clock.decode(score)?.total);
            }
        }
    }
    let mut removed = 0;
    for member in members {
        removed += i64::from(board.remove(member));
        if let Some(data) = data.as_mut() {
            data.delete(member.as_bytes());
        }
    }
    if let Some(index) = index.as_mut() {
        drop_unheld_totals(index, &mut board, &totals);
    }
    Ok(removed)
}

declare_command! {
    pub static REINDEX: Command = {
        name: "rank.reindex",
        handler: reindex,
        flags: "write deny-oom",
        acl_categories: "write sortedset slow",
        summary: "Builds a board's totals index (what DENSE reads) from the board, replacing the index: each total a member has, once. Returns the number of distinct totals.",
        complexity: "O(N+D*log(D)) with N the members of the board and D its distinct totals.",
        since: "0.5.0",
        history: &[],
        reply: R::Integer,
        examples: &[
            "RANK.REINDEX {t}:board {t}:totals",
        ],
        args: &[
            Arg::key("key", kf::RO | kf::ACCESS),
            Arg::key("totals-key", kf::OW | kf::UPDATE),
        ],
    }
}

request! {
    /// RANK.REINDEX `key totals-key`.
    struct Reindex<'a> {
        key: &'a RStr = key,
        totals_key: &'a RStr = key,
    }
}

/// -> the distinct totals written to the index: the board walked from the
/// lowest score up (totals in order, so a total is new when it differs
/// from the one before), every score decoded before the index is touched;
/// the index replaced as a `*STORE` replaces its destination (an index of
/// another type is refused, not overwritten).
fn reindex(ctx: &Ctx, args: Reindex<'_>) -> Result<i64, ZkitError> {
    let Reindex { key, totals_key } = args;
    Ranks::Dense(totals_key).checked_for(key)?;
    ctx.check_key_type(totals_key, KeyKind::Zset)?;
    let clock = tiebreak_clock();
    let mut totals: Vec<i64> = Vec::new();
    if let Some(mut board) = ctx.open_zset(key)? {
        for (_, score) in board.iter_asc(ScoreBound::MIN, ScoreBound::MAX) {
            let total = clock.decode(score)?.total;
            if totals.last() != Some(&total) {
                totals.push(total);
            }
        }
    }
    let entries: Vec<(OwnedRStr, f64)> = totals
        .iter()
        .map(|&total| (total_text(total), total as f64))
        .collect();
    ctx.store_zset(totals_key, &entries, c"zadd")?;
    Ok(entries.len() as i64)
}
