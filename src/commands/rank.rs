//! RANK: leaderboards where equal totals rank first-come (a live-stream gift
//! board: more coins rank higher, and whoever reached an amount first ranks
//! higher among equals).
//!
//! A board is a plain sorted set whose scores are rank scores
//! (`logic::rank`): `floor(score)` is the member's total, the fraction orders
//! equal totals by when they were reached. Writes use the low-level key API
//! and replicate `ZADD` with the exact score; ranks come from `ZREVRANK` and
//! `ZRANGE ... REV` through RM_Call, because the low-level API has no rank
//! access and they are O(log N) there.

use std::collections::HashMap;

use std::sync::atomic::{AtomicI64, Ordering};

use super::args::{is_keyword, parse_i64, parse_non_negative, Options};
use super::{Command, NumericConfig};
use crate::declare_command;
use crate::error::{bound, ZkitError};
use crate::host::{
    key_flags as kf, Arg, BeginSearch, CallArg, Ctx, FindKeys, KeySpec, OwnedRStr, RStr, ScoreBound,
};
use crate::logic::rank::{
    add_totals, check_total, weigh_total, RankEntry, TieBreakClock, CLOCK_LIMIT_MS,
    DEFAULT_EPOCH_MS, DEFAULT_SPAN_MS,
};

pub static COMMANDS: &[&Command] = &[&GIFT, &SET, &GET, &TOP, &AROUND, &MERGE];

/// `zkit.tiebreak-epoch-ms`: the start of the tie-break window (unix ms).
pub static TIEBREAK_EPOCH_MS: NumericConfig = NumericConfig {
    name: "tiebreak-epoch-ms",
    value: AtomicI64::new(DEFAULT_EPOCH_MS),
    default: DEFAULT_EPOCH_MS,
    min: 0,
    max: CLOCK_LIMIT_MS,
};

/// `zkit.tiebreak-span-ms`: the length of the tie-break window.
pub static TIEBREAK_SPAN_MS: NumericConfig = NumericConfig {
    name: "tiebreak-span-ms",
    value: AtomicI64::new(DEFAULT_SPAN_MS),
    default: DEFAULT_SPAN_MS,
    min: 1,
    max: CLOCK_LIMIT_MS,
};

/// The tie-break clock boards encode and decode with now.
pub fn tiebreak_clock() -> TieBreakClock {
    TieBreakClock::new(
        TIEBREAK_EPOCH_MS.value.load(Ordering::Relaxed),
        TIEBREAK_SPAN_MS.value.load(Ordering::Relaxed),
    )
    .expect("the config bounds keep the clock valid")
}

const BOARD_WRITE: &[KeySpec] = &[KeySpec::at(1, kf::RW | kf::ACCESS | kf::UPDATE)];
const BOARD_READ: &[KeySpec] = &[KeySpec::at(1, kf::RO | kf::ACCESS)];

declare_command! {
    pub static GIFT: Command = {
        name: "rank.gift",
        handler: gift,
        flags: "write deny-oom fast",
        acl_categories: "write sortedset fast",
        arity: -4,
        key_specs: BOARD_WRITE,
        summary: "Adds an amount to a member's total and returns the new total and rank; equal totals rank first-come.",
        complexity: "O(log(N)) with N the number of members in the board.",
        since: "0.1.0",
        args: &[
            Arg::key("key", 0),
            Arg::string("member"),
            Arg::integer("amount"),
            Arg::unix_time("unix-ms").token("AT").optional(),
        ],
    }
}

declare_command! {
    pub static SET: Command = {
        name: "rank.set",
        handler: set,
        flags: "write deny-oom fast",
        acl_categories: "write sortedset fast",
        arity: -4,
        key_specs: BOARD_WRITE,
        summary:
            "Sets a member's total and returns it with the member's rank; equal totals rank first-come.",
        complexity: "O(log(N)) with N the number of members in the board.",
        since: "0.1.0",
        args: &[
            Arg::key("key", 0),
            Arg::string("member"),
            Arg::integer("total"),
            Arg::unix_time("unix-ms").token("AT").optional(),
        ],
    }
}

declare_command! {
    pub static GET: Command = {
        name: "rank.get",
        handler: get,
        flags: "readonly fast",
        acl_categories: "read sortedset fast",
        arity: 3,
        key_specs: BOARD_READ,
        summary: "Returns a member's total, rank and the time it reached its total, or nil.",
        complexity: "O(log(N)) with N the number of members in the board.",
        since: "0.1.0",
        args: &[Arg::key("key", 0), Arg::string("member")],
    }
}

declare_command! {
    pub static TOP: Command = {
        name: "rank.top",
        handler: top,
        flags: "readonly",
        acl_categories: "read sortedset slow",
        arity: -3,
        key_specs: BOARD_READ,
        summary: "Returns a page of the board from the highest total down: rank, member, total.",
        complexity: "O(log(N)+M) with N the number of members in the board and M the count.",
        since: "0.1.0",
        args: &[
            Arg::key("key", 0),
            Arg::integer("count"),
            Arg::integer("offset").token("OFFSET").optional(),
        ],
    }
}

declare_command! {
    pub static AROUND: Command = {
        name: "rank.around",
        handler: around,
        flags: "readonly",
        acl_categories: "read sortedset slow",
        arity: 4,
        key_specs: BOARD_READ,
        summary: "Returns the member and up to radius entries above and below it: rank, member, total.",
        complexity: "O(log(N)+M) with N the number of members in the board and M the radius.",
        since: "0.1.0",
        args: &[
            Arg::key("key", 0),
            Arg::string("member"),
            Arg::integer("radius"),
        ],
    }
}

declare_command! {
    pub static MERGE: Command = {
        name: "rank.merge",
        handler: merge,
        flags: "write deny-oom",
        acl_categories: "write sortedset slow",
        arity: -4,
        key_specs: &[
            KeySpec::at(1, kf::OW | kf::UPDATE),
            KeySpec {
                flags: kf::RO | kf::ACCESS,
                begin: BeginSearch::Index(2),
                find: FindKeys::KeyNum {
                    count_index: 0,
                    first: 1,
                    step: 1,
                },
            },
        ],
        summary: "Stores the sum of several boards (times integer weights) in destkey, keeping first-come order: a merged entry reached its total when its last contributor did.",
        complexity: "O(N+M log(M)) with N the members of all inputs and M the members of the result.",
        since: "0.1.0",
        args: &[
            Arg::key("destkey", 0),
            Arg::integer("numkeys"),
            Arg::key("key", 1).multiple(),
            Arg::integer("weight").token("WEIGHTS").optional().multiple(),
        ],
    }
}

/// How a write changes a member's total.
#[derive(Clone, Copy)]
enum TotalUpdate {
    Add,
    Replace,
}

fn gift(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    write_total(ctx, args, TotalUpdate::Add)
}

fn set(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    write_total(ctx, args, TotalUpdate::Replace)
}

/// RANK.GIFT / RANK.SET: `key member value [AT unix-ms]` -> `[total, rank]`.
fn write_total(ctx: &Ctx, args: &[RStr], update: TotalUpdate) -> Result<(), ZkitError> {
    let (key, member, value) = (&args[1], &args[2], parse_i64(args[3].as_bytes())?);
    let mut at_ms = None;
    let mut options = Options::new(&args[4..], &["AT"]);
    while options.next_option()?.is_some() {
        at_ms = Some(options.int()?);
    }
    let clock = tiebreak_clock();
    let at_ms = at_ms.unwrap_or_else(|| ctx.now_ms());

    let mut board = ctx.open_zset_mut(key)?;
    let previous = board.score(member).map(|s| clock.decode(s)).transpose()?;
    let total = match update {
        TotalUpdate::Add => add_totals(previous.map_or(0, |e| e.total), value)?,
        TotalUpdate::Replace => check_total(value)?,
    };
    // Encoding also validates the time, so a bad AT fails even when the total
    // does not change.
    let score = clock.encode(total, at_ms)?;
    // A member that already has this total keeps the time it reached it.
    if previous.map(|e| e.total) != Some(total) {
        match update {
            TotalUpdate::Add => board.add_incremented(member, score)?,
            TotalUpdate::Replace => board.add(member, score)?,
        };
    }
    drop(board);
    let rank = rank_of(ctx, key, member)?
        .ok_or_else(|| ZkitError::Internal("member vanished after its write".into()))?;
    ctx.reply_array(2);
    ctx.reply_i64(total);
    ctx.reply_i64(rank);
    Ok(())
}

/// RANK.GET `key member` -> `[total, rank, reached-at-ms]` or nil.
fn get(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    let (key, member) = (&args[1], &args[2]);
    let score = ctx.open_zset(key)?.and_then(|board| board.score(member));
    let Some(score) = score else {
        ctx.reply_null();
        return Ok(());
    };
    let entry = tiebreak_clock().decode(score)?;
    let rank = rank_of(ctx, key, member)?
        .ok_or_else(|| ZkitError::Internal("member vanished while reading it".into()))?;
    ctx.reply_array(3);
    ctx.reply_i64(entry.total);
    ctx.reply_i64(rank);
    ctx.reply_i64(entry.reached_at_ms);
    Ok(())
}

/// RANK.TOP `key count [OFFSET offset]` -> `[[rank, member, total], ...]`.
fn top(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    let key = &args[1];
    let count = parse_non_negative(args[2].as_bytes(), "count")?;
    let mut offset = 0;
    let mut options = Options::new(&args[3..], &["OFFSET"]);
    while options.next_option()?.is_some() {
        offset = options.non_negative("offset")?;
    }
    if ctx.open_zset(key)?.is_none() || count == 0 {
        ctx.reply_array(0);
        return Ok(());
    }
    reply_rank_range(ctx, key, offset, offset.saturating_add(count - 1))
}

/// RANK.AROUND `key member radius` -> `[[rank, member, total], ...]`.
fn around(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    let (key, member) = (&args[1], &args[2]);
    let radius = parse_non_negative(args[3].as_bytes(), "radius")?;
    // The type check; ZREVRANK then answers nil for an absent member.
    let rank = if ctx.open_zset(key)?.is_some() {
        rank_of(ctx, key, member)?
    } else {
        None
    };
    let Some(rank) = rank else {
        ctx.reply_array(0);
        return Ok(());
    };
    let index = rank - 1;
    reply_rank_range(
        ctx,
        key,
        index.saturating_sub(radius).max(0),
        index.saturating_add(radius),
    )
}

/// RANK.MERGE `destkey numkeys key [key ...] [WEIGHTS w [w ...]]` -> integer.
fn merge(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    let dest = &args[1];
    let numkeys = parse_i64(args[2].as_bytes())?;
    if numkeys < 1 {
        return Err(ZkitError::OutOfRange {
            what: "numkeys",
            limit: bound::AT_LEAST_ONE,
        });
    }
    let rest = &args[3..];
    let Some(sources) = usize::try_from(numkeys).ok().and_then(|n| rest.get(..n)) else {
        return Err(ZkitError::Syntax);
    };
    let weights = parse_weights(&rest[sources.len()..], sources.len())?;

    // Read and check everything before the first write.
    let clock = tiebreak_clock();
    let mut merged = MergedBoard::default();
    for (source, weight) in sources.iter().zip(&weights) {
        if let Some(mut board) = ctx.open_zset(source)? {
            for (member, score) in board.iter_asc(ScoreBound::MIN, ScoreBound::MAX) {
                merged.add(member, clock.decode(score)?, *weight)?;
            }
        }
    }
    let scored = merged.scores(&clock)?;
    // Stored like ZUNIONSTORE stores: the same writes, the same event.
    ctx.store_zset(dest, &scored, c"zunionstore")?;
    ctx.reply_i64(scored.len() as i64);
    Ok(())
}

/// `[WEIGHTS w ...]`: exactly one integer weight per source; default 1 each.
fn parse_weights(options: &[RStr], sources: usize) -> Result<Vec<i64>, ZkitError> {
    match options {
        [] => Ok(vec![1; sources]),
        [keyword, weights @ ..]
            if is_keyword(keyword.as_bytes(), "WEIGHTS") && weights.len() == sources =>
        {
            weights.iter().map(|w| parse_i64(w.as_bytes())).collect()
        }
        _ => Err(ZkitError::Syntax),
    }
}

/// Members of a merge being built: total so far and latest reached-at.
#[derive(Default)]
struct MergedBoard {
    index: HashMap<Vec<u8>, usize>,
    entries: Vec<(OwnedRStr, RankEntry)>,
}

impl MergedBoard {
    fn add(&mut self, member: OwnedRStr, entry: RankEntry, weight: i64) -> Result<(), ZkitError> {
        let weighted = weigh_total(entry.total, weight)?;
        match self.index.get(member.as_bytes()) {
            Some(&i) => {
                let merged = &mut self.entries[i].1;
                merged.total = add_totals(merged.total, weighted)?;
                merged.reached_at_ms = merged.reached_at_ms.max(entry.reached_at_ms);
            }
            None => {
                self.index
                    .insert(member.as_bytes().to_vec(), self.entries.len());
                self.entries.push((
                    member,
                    RankEntry {
                        total: weighted,
                        reached_at_ms: entry.reached_at_ms,
                    },
                ));
            }
        }
        Ok(())
    }

    fn scores(self, clock: &TieBreakClock) -> Result<Vec<(OwnedRStr, f64)>, ZkitError> {
        self.entries
            .into_iter()
            .map(|(member, e)| Ok((member, clock.encode(e.total, e.reached_at_ms)?)))
            .collect()
    }
}

/// The 1-based rank of a member, highest total first; `None` if absent.
fn rank_of(ctx: &Ctx, key: &RStr, member: &RStr) -> Result<Option<i64>, ZkitError> {
    let reply = ctx.call(c"ZREVRANK", &[CallArg::Str(key), CallArg::Str(member)])?;
    let reply = reply.get();
    if reply.is_null() {
        return Ok(None);
    }
    reply
        .integer()
        .map(|index| Some(index + 1))
        .ok_or_else(|| ZkitError::Internal("ZREVRANK did not return an integer".into()))
}

/// Replies `[[rank, member, total], ...]` for 0-based ranks `start..=stop`.
fn reply_rank_range(ctx: &Ctx, key: &RStr, start: i64, stop: i64) -> Result<(), ZkitError> {
    let reply = ctx.call(
        c"ZRANGE",
        &[
            CallArg::Str(key),
            CallArg::Int(start),
            CallArg::Int(stop),
            CallArg::Bytes(b"REV"),
            CallArg::Bytes(b"WITHSCORES"),
        ],
    )?;
    let clock = tiebreak_clock();
    let rows = reply.get();
    let mut entries = Vec::with_capacity(rows.len());
    for i in 0..rows.len() {
        let row = rows.element(i);
        let member = row.and_then(|r| r.element(0)).and_then(|m| m.bytes());
        let score = row.and_then(|r| r.element(1)).and_then(|s| s.double());
        let (Some(member), Some(score)) = (member, score) else {
            return Err(ZkitError::Internal(
                "unexpected ZRANGE WITHSCORES reply".into(),
            ));
        };
        entries.push((member, clock.decode(score)?.total));
    }
    ctx.reply_array(entries.len());
    for (i, (member, total)) in entries.into_iter().enumerate() {
        ctx.reply_array(3);
        ctx.reply_i64(start + i as i64 + 1);
        ctx.reply_bulk(member);
        ctx.reply_i64(total);
    }
    Ok(())
}
