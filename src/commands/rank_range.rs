//! RANK.RANGE: the members whose total lies within bounds, as a page of the
//! board with their ranks on the whole board (the band's positions follow
//! from two counts, so the page is RANK.TOP's at those positions).

use super::args::non_negative;
use super::declaration::Command;
use super::rank_board::{
    ranks_choices, total_bound, Ranks, ASC_FROM_START, BOARD_READ, RANKS_READ_FROM_START,
    SHARED_WALK_AT_MOST,
};
use super::rank_data::{checked_data_key, DATA_READ};
use super::rank_page::{rank_range, Page};
use super::reply_types::RANK_ENTRY;
use super::stats;
use crate::error::ZkitError;
use crate::host::call::Native;
use crate::host::ctx::Ctx;
use crate::host::grammar::{Arg, Request};
use crate::host::reply_shape::ReplyShape as R;
use crate::host::string::RStr;
use crate::host::zset::{ScoreBound, Zset};
use crate::logic::rank::{range_positions, total_score_range, Order, TotalBound};
use crate::{declare_command, request};

declare_command! {
    pub static RANGE: Command = {
        name: "rank.range",
        handler: range,
        flags: "readonly",
        acl_categories: "read sortedset hash slow",
        summary: "Returns the members whose total lies between max and min, inclusive (bounds as RANK.COUNT reads them), highest first (with ASC, lowest first), as a page of the board: rank, member, total (with DATA, and the member's data), each rank the member's rank on the whole board.",
        complexity: "O(log(N)+M) with N the number of members in the board and M the members returned.",
        since: "0.5.0",
        history: &[],
        reply: R::ArrayOf(&R::Tuple(&RANK_ENTRY)),
        examples: &[
            "RANK.RANGE {t}:board +inf (0 LIMIT 0 10 SHARED",
            "RANK.RANGE {t}:board +inf (0 DENSE {t}:totals",
            "RANK.RANGE {t}:board +inf (0 DATA {t}:profiles",
            "RANK.RANGE {t}:board 60000 0 ASC",
        ],
        args: &[
            BOARD_READ,
            Arg::string("max"),
            Arg::string("min"),
            Arg::block("limit", &[Arg::integer("offset"), Arg::integer("count")])
                .token("LIMIT")
                .optional(),
            RANKS_READ_FROM_START,
            DATA_READ,
            ASC_FROM_START,
        ],
    }
}

request! {
    /// RANK.RANGE `key max min [LIMIT offset count] [SHARED | DENSE
    /// totals-key] [DATA data-key]`.
    struct Range<'a> {
        key: &'a RStr = key,
        max: &'a RStr = string,
        min: &'a RStr = string,
        limit: Option<(i64, i64)> = option(|limit| (limit.integer(), limit.integer())),
        ranks: Option<Ranks<'a>> = one_of(&ranks_choices()),
        data_key: Option<&'a RStr> = option(Request::key),
        asc: bool = flag,
    }
}

/// -> `[[rank, member, total], ...]`: the band's members are the positions
/// below the members with a better total, so the page is RANK.TOP's page
/// at those positions (two counts find them, O(log N) each), with its
/// ranks.
fn range(ctx: &Ctx, args: Range<'_>) -> Result<Page, ZkitError> {
    let (max, min) = (total_bound(args.max)?, total_bound(args.min)?);
    let (offset, count) = match args.limit {
        Some((offset, count)) => (non_negative(offset, "offset")?, count),
        None => (0, -1),
    };
    let ranks = Ranks::chosen(args.ranks).checked_for(args.key)?;
    ctx.require(&[Native::Zcount])?;
    ctx.require(ranks.page_natives())?;
    let data_key = checked_data_key(args.data_key, args.key, ranks)?;
    let order = Order::of_asc(args.asc);
    let page = (offset, count);
    range_page(ctx, args.key, (min, max), page, ranks, order)?.with_data(ctx, data_key)
}

/// RANK.RANGE's page: the rows between the bounds, after `offset`, up to
/// `count` (negative: all).
fn range_page(
    ctx: &Ctx,
    key: &RStr,
    (min, max): (TotalBound, TotalBound),
    (offset, count): (i64, i64),
    ranks: Ranks<'_>,
    order: Order,
) -> Result<Page, ZkitError> {
    let Some(mut board) = ctx.open_zset(key)? else {
        return Ok(Page::empty());
    };
    let Some((low, high)) = total_score_range(min, max) else {
        return Ok(Page::empty());
    };
    // A total `t` is scored in `[t, t + 1)`: higher totals from `high` up,
    // lower ones below `low`.
    let (low, high) = (low as f64, high as f64);
    let better = match order {
        Order::HighestFirst => (ScoreBound::Inclusive(high), ScoreBound::MAX),
        Order::LowestFirst => (ScoreBound::MIN, ScoreBound::Exclusive(low)),
    };
    let above = count_scores(ctx, key, &mut board, better.0, better.1)?;
    let band = (ScoreBound::Inclusive(low), ScoreBound::Exclusive(high));
    let within = count_scores(ctx, key, &mut board, band.0, band.1)?;
    let Some((start, stop)) = range_positions(above, within, offset as u64, count) else {
        return Ok(Page::empty());
    };
    rank_range(ctx, key, board, (start, stop), None, ranks, order)
}

/// The members scored within `[min, max]`: counted through the key on a
/// board small enough that walking costs less than `ZCOUNT`
/// ([`SHARED_WALK_AT_MOST`], measured for the same count), else `ZCOUNT`.
fn count_scores(
    ctx: &Ctx,
    key: &RStr,
    board: &mut Zset<'_>,
    min: ScoreBound,
    max: ScoreBound,
) -> Result<u64, ZkitError> {
    let walked = (board.len() <= SHARED_WALK_AT_MOST)
        .then(|| board.count_at_most(min, max, SHARED_WALK_AT_MOST))
        .flatten();
    match walked {
        Some(counted) => Ok(counted as u64),
        None => stats::count_between(ctx, key, min, max),
    }
}
