//! RANK's reads of a board as a whole: its size and spread (RANK.STATS), a
//! member's percentile (RANK.PERCENTILE), the total at a percentile
//! (RANK.QUANTILE) and the members between two totals (RANK.COUNT), each
//! O(log N).

use super::declaration::Command;
use super::rank_board::{
    not_on_board, rank_native, rank_of, total_bound, ASC_ARG, ASC_FROM_START, ASC_HISTORY,
    BOARD_READ,
};
use super::reply_types::BOARD_STATS;
use super::stats::{self, Fields};
use super::tiebreak::tiebreak_clock;
use crate::error::{bound, ZkitError};
use crate::host::call::Native;
use crate::host::ctx::Ctx;
use crate::host::grammar::Arg;
use crate::host::reply::Reply;
use crate::host::reply_shape::ReplyShape as R;
use crate::host::string::RStr;
use crate::host::zset::{KeyKind, ScoreBound};
use crate::logic::rank::{interpolate, percentile, quantile_at, total_score_range, Order};
use crate::logic::stats::{quantile_position, BOARD_QUANTILES};
use crate::{declare_command, request};

declare_command! {
    pub static STATS: Command = {
        name: "rank.stats",
        handler: stats,
        flags: "readonly",
        acl_categories: "read sortedset slow",
        summary: "Returns a board's size and the spread of its totals, read by name: members, top-total, p99-total, p90-total, p50-total, bottom-total (nil on an empty board) and memory-bytes (MEMORY USAGE's estimate); the top is the highest total (with ASC, the lowest), a pNN-total the total that ranks ahead of NN% of the board.",
        complexity: "O(log(N)) with N the number of members in the board; memory-bytes samples 5 members, as MEMORY USAGE does by default.",
        since: "0.4.0",
        history: &[ASC_HISTORY],
        reply: R::Fields(&BOARD_STATS),
        examples: &[
            "RANK.STATS {t}:board",
            "RANK.STATS {t}:board ASC",
        ],
        args: &[BOARD_READ, ASC_ARG],
    }
}

request! {
    /// RANK.STATS `key [ASC]`.
    struct Stats<'a> {
        key: &'a RStr = key,
        asc: bool = flag,
    }
}

/// -> `[members, top-total, p99-total, p90-total, p50-total, bottom-total,
/// memory-bytes]` by name: the totals at a few positions (ZRANGE by index,
/// O(log N) each; quantiles by the nearest rank, counted from the bottom
/// of the board) and the key's memory.
fn stats(ctx: &Ctx, args: Stats<'_>) -> Result<Reply, ZkitError> {
    let key = args.key;
    let order = Order::of_asc(args.asc);
    let members = ctx.key_len(key, KeyKind::Zset)? as u64;
    let clock = tiebreak_clock().ordered(order);
    // The total at 0-based `position` of the board, best first.
    let total_at = |position: u64| -> Result<Option<i64>, ZkitError> {
        let score = if members == 0 {
            None
        } else {
            stats::score_at(ctx, key, order.ascending_position(members, position))?
        };
        Ok(score.map(|s| clock.decode(s)).transpose()?.map(|e| e.total))
    };
    let mut fields = Fields::default();
    fields.int("members", members as i64);
    fields.maybe_int("top-total", total_at(0)?);
    for (per_mille, name) in BOARD_QUANTILES.iter().rev() {
        // The nearest rank counted from the bottom of the board.
        let position = (members > 0).then(|| members - 1 - quantile_position(members, *per_mille));
        fields.maybe_int(name, position.map(total_at).transpose()?.flatten());
    }
    fields.maybe_int("bottom-total", total_at(members.saturating_sub(1))?);
    let memory = if members == 0 {
        0
    } else {
        stats::memory_usage(ctx, key)?.unwrap_or(0)
    };
    fields.int("memory-bytes", memory);
    Ok(fields.into_reply())
}

declare_command! {
    pub static PERCENTILE: Command = {
        name: "rank.percentile",
        handler: percentile_of,
        flags: "readonly fast",
        acl_categories: "read sortedset fast",
        summary: "Returns the share of the board ranked below a member (first-come ranks), in whole percent rounded up (0 to 100), or nil.",
        complexity: "O(log(N)) with N the number of members in the board.",
        since: "0.5.0",
        history: &[],
        reply: R::OrNil(&R::Integer),
        examples: &[
            "RANK.PERCENTILE {t}:board m",
            "RANK.PERCENTILE {t}:board m ASC",
        ],
        args: &[BOARD_READ, Arg::string("member"), ASC_FROM_START],
    }
}

request! {
    /// RANK.PERCENTILE `key member [ASC]`.
    struct Percentile<'a> {
        key: &'a RStr = key,
        member: &'a RStr = string,
        asc: bool = flag,
    }
}

/// -> `ceil((members - rank0 - 1) * 100 / members)` with `rank0` the
/// member's 0-based first-come rank (ZREVRANK, with ASC ZRANK), or nil
/// when it is not on the board.
fn percentile_of(ctx: &Ctx, args: Percentile<'_>) -> Result<Option<i64>, ZkitError> {
    let order = Order::of_asc(args.asc);
    ctx.require(&[rank_native(order)])?;
    let Some(board) = ctx.open_zset(args.key)? else {
        return Ok(None);
    };
    let Some(score) = board.score(args.member) else {
        return Ok(None);
    };
    // A score that is no rank score is refused, as RANK.GET refuses it.
    tiebreak_clock().ordered(order).decode(score)?;
    let members = board.len() as u64;
    let rank = rank_of(ctx, args.key, args.member, order)?.ok_or_else(not_on_board)?;
    Ok(percentile(members, (rank - 1) as u64))
}

declare_command! {
    pub static QUANTILE: Command = {
        name: "rank.quantile",
        handler: quantile,
        flags: "readonly fast",
        acl_categories: "read sortedset fast",
        summary: "Returns the total at a percentile of the board (0 to 100, decimals allowed: the total that ranks ahead of that share of the board), interpolated linearly between the two totals around it; nil on an empty board.",
        complexity: "O(log(N)) with N the number of members in the board.",
        since: "0.5.0",
        history: &[],
        reply: R::OrNil(&R::Double),
        examples: &[
            "RANK.QUANTILE {t}:board 50",
            "RANK.QUANTILE {t}:board 90 ASC",
        ],
        args: &[BOARD_READ, Arg::double("percentile"), ASC_FROM_START],
    }
}

request! {
    /// RANK.QUANTILE `key percentile [ASC]`.
    struct Quantile<'a> {
        key: &'a RStr = key,
        percentile: f64 = double,
        asc: bool = flag,
    }
}

/// -> the total at `percentile`: with `index = (members - 1) * percentile
/// / 100`, the totals at ascending positions `floor(index)` and
/// `ceil(index)` (ZRANGE by index), interpolated; nil on an empty board.
/// With ASC the board's bottom is its highest total: the percentile is
/// read as `100 - percentile` of the ascending totals.
fn quantile(ctx: &Ctx, args: Quantile<'_>) -> Result<Option<f64>, ZkitError> {
    if !(0.0..=100.0).contains(&args.percentile) {
        return Err(ZkitError::OutOfRange {
            what: "percentile",
            limit: bound::PERCENTILE,
        });
    }
    ctx.require(&[Native::Zrange])?;
    // The board stays open for the scores: a read handle outlives the call.
    let Some(board) = ctx.open_zset(args.key)? else {
        return Ok(None);
    };
    let order = Order::of_asc(args.asc);
    let clock = tiebreak_clock().ordered(order);
    let ascending = match order {
        Order::HighestFirst => args.percentile,
        Order::LowestFirst => 100.0 - args.percentile,
    };
    let at = quantile_at(board.len() as u64, ascending);
    // The two positions are one or adjacent: one ZRANGE reads both.
    let scores = stats::scores_at(ctx, args.key, &board, at.low, at.high)?;
    let (Some(&low), Some(&high)) = (scores.first(), scores.last()) else {
        return Err(ZkitError::Internal("ZRANGE found no member".into()));
    };
    let (low, high) = (clock.decode(low)?.total, clock.decode(high)?.total);
    Ok(Some(interpolate(low, high, at.fraction)))
}

declare_command! {
    pub static COUNT: Command = {
        name: "rank.count",
        handler: count,
        flags: "readonly fast",
        acl_categories: "read sortedset fast",
        summary: "Returns how many members have a total between min and max, inclusive, as ZCOUNT reads its bounds (-inf, +inf, ( for an exclusive bound).",
        complexity: "O(log(N)) with N the number of members in the board.",
        since: "0.5.0",
        history: &[],
        reply: R::Integer,
        examples: &[
            "RANK.COUNT {t}:board (0 +inf",
        ],
        args: &[BOARD_READ, Arg::string("min"), Arg::string("max")],
    }
}

request! {
    /// RANK.COUNT `key min max`.
    struct Count<'a> {
        key: &'a RStr = key,
        min: &'a RStr = string,
        max: &'a RStr = string,
    }
}

/// -> the members whose total lies between the bounds: ZCOUNT of the scores
/// `[low, high)` that hold those totals.
fn count(ctx: &Ctx, args: Count<'_>) -> Result<i64, ZkitError> {
    let (min, max) = (total_bound(args.min)?, total_bound(args.max)?);
    ctx.require(&[Native::Zcount])?;
    let members = ctx.key_len(args.key, KeyKind::Zset)?;
    let Some((low, high)) = total_score_range(min, max) else {
        return Ok(0);
    };
    if members == 0 {
        return Ok(0);
    }
    let counted = stats::count_between(
        ctx,
        args.key,
        ScoreBound::Inclusive(low as f64),
        ScoreBound::Exclusive(high as f64),
    )?;
    Ok(counted as i64)
}
