//! A page of a board (RANK.TOP, RANK.AROUND, RANK.RANGE, RANK.AMONG): its
//! rows read from the key where a walk finds them (from the top, or from a
//! member known to be on the page), else from `ZRANGE`, best first in the
//! board's order, with their ranks.

use super::layout::{self, Use, LISTPACK_BOARD_MAX};
use super::rank_board::{ahead_of_total, best_first, dense_rank, not_on_board, shared_rank, Ranks};
use super::rank_data::DataReader;
use super::tiebreak::tiebreak_clock;
use crate::error::ZkitError;
use crate::host::call::{CallArg, Native};
use crate::host::ctx::Ctx;
use crate::host::reply::WriteReply;
use crate::host::string::{OwnedRStr, RStr};
use crate::host::zset::{ScoreBound, Zset};
use crate::logic::columns::{ColumnValues, Columns};
use crate::logic::rank::{dense_ranks, shared_ranks, Order};
use smallvec::SmallVec;

/// Rows one page holds without a heap allocation.
pub(super) const INLINE_ROWS: usize = 16;

/// A page of a board, `[[rank, member, total], ...]` (with DATA, each
/// row's data last), written straight into the reply.
pub(super) struct Page {
    /// Highest first: the board's own strings on a small board, the ones
    /// its scores were looked up with on a larger one.
    members: SmallVec<[OwnedRStr; INLINE_ROWS]>,
    totals: SmallVec<[i64; INLINE_ROWS]>,
    ranks: PageRanks,
    /// With `DATA data-key`: each row's data, if it has any.
    data: Option<SmallVec<[Option<OwnedRStr>; INLINE_ROWS]>>,
    /// With `COLUMNS columns-key`: each row's total as its columns' values.
    columns: Option<Vec<ColumnValues>>,
}

/// A page's ranks.
pub(super) enum PageRanks {
    /// Positions: the first row's rank, one more on each row after it.
    From(i64),
    /// `SHARED` or `DENSE`: every row's rank.
    Listed(Vec<i64>),
}

impl Page {
    pub(super) fn empty() -> Page {
        Page::of(SmallVec::new(), SmallVec::new(), PageRanks::From(1))
    }

    pub(super) fn of(
        members: SmallVec<[OwnedRStr; INLINE_ROWS]>,
        totals: SmallVec<[i64; INLINE_ROWS]>,
        ranks: PageRanks,
    ) -> Page {
        Page {
            members,
            totals,
            ranks,
            data: None,
            columns: None,
        }
    }

    /// The page with each row's data, when the call names the data hash
    /// (checked): read once the page is, so its type is checked after the
    /// board's, also for an empty page, as the library reads it.
    pub(super) fn with_data(
        mut self,
        ctx: &Ctx,
        data_key: Option<&RStr>,
    ) -> Result<Page, ZkitError> {
        if let Some(data) = DataReader::open(ctx, data_key)? {
            let rows = self.members.iter();
            self.data = Some(rows.map(|member| data.get(member)).collect());
        }
        Ok(self)
    }

    /// The page with each row's columns, when the call names them: refused
    /// when a row's total packs no tuple of them.
    pub(super) fn with_columns(mut self, columns: Option<Columns>) -> Result<Page, ZkitError> {
        if let Some(columns) = columns {
            let rows = self.totals.iter().map(|&total| columns.unpack(total));
            self.columns = Some(rows.collect::<Result<_, _>>()?);
        }
        Ok(self)
    }
}

impl WriteReply for Page {
    fn write(&self, ctx: &Ctx) {
        ctx.reply_array(self.totals.len());
        for (row, total) in self.totals.iter().enumerate() {
            let extra = usize::from(self.columns.is_some()) + usize::from(self.data.is_some());
            ctx.reply_array(3 + extra);
            ctx.reply_i64(match &self.ranks {
                PageRanks::From(first) => first + row as i64,
                PageRanks::Listed(ranks) => ranks[row],
            });
            ctx.reply_str(&self.members[row]);
            ctx.reply_i64(*total);
            if let Some(columns) = &self.columns {
                columns[row].write(ctx);
            }
            if let Some(data) = &self.data {
                data[row].write(ctx);
            }
        }
    }
}

/// `[[rank, member, total], ...]` for 0-based positions `start..=stop` of
/// `board` in `order`, open for reading as `key`; `anchor` is a member
/// known to stand at `start` or within the page (RANK.AROUND's), with its
/// 0-based position.
pub(super) fn rank_range(
    ctx: &Ctx,
    key: &RStr,
    mut board: Zset<'_>,
    (start, stop): (i64, i64),
    anchor: Option<(&RStr, i64)>,
    ranks: Ranks<'_>,
    order: Order,
) -> Result<Page, ZkitError> {
    layout::after_read(ctx, key, board.len(), Use::Page);
    let rows = page_rows(ctx, key, &mut board, (start, stop), anchor, order)?;
    let clock = tiebreak_clock().ordered(order);
    let (mut members, mut totals) = (SmallVec::new(), SmallVec::new());
    for (member, score) in rows {
        totals.push(clock.decode(score)?.total);
        members.push(member);
    }
    let Some(&first_total) = totals.first() else {
        return Ok(Page::empty());
    };
    // The page holds a member at `start`, so `start + 1` does not overflow.
    let first_position = start + 1;
    let ranks = match ranks {
        Ranks::Shared => {
            // Only members above the page's first row can have a better
            // total: near the top they are counted by walking past them.
            let walked = usize::try_from(start)
                .ok()
                .filter(|&above| above <= PASS_AT_MOST)
                .and_then(|above| {
                    let (min, max) = ahead_of_total(order, first_total);
                    board.count_at_most(min, max, above)
                });
            let first_shared = match walked {
                Some(higher) => higher as i64 + 1,
                None => shared_rank(ctx, key, first_total, order)?,
            };
            PageRanks::Listed(shared_ranks(first_position, first_shared, &totals))
        }
        // The rows below the first follow from the totals on the page.
        Ranks::Dense(index) => {
            let first_dense = dense_rank(ctx, index, first_total, order)?;
            PageRanks::Listed(dense_ranks(first_dense, &totals))
        }
        Ranks::FirstCome => PageRanks::From(first_position),
    };
    Ok(Page::of(members, totals, ranks))
}

/// A page's members with their scores, best first.
type Rows = SmallVec<[(OwnedRStr, f64); INLINE_ROWS]>;

/// Positions a page may start at and still be read by walking down from
/// the top, passing the rows above it unread: about 50 instructions a step
/// against 7,000 for the `ZRANGE` call that seeks a deeper page (callgrind,
/// 10k members). A board of up to 128 members is always walked.
const PASS_AT_MOST: usize = 128;

/// Members sharing the anchor's score that a page walks past to find it
/// before it takes the page from `ZRANGE` instead (rank scores are unique
/// but for ties within a millisecond; boards of whole totals tie often).
const TIES_AT_MOST: usize = 16;

/// Rows `start..=stop` of `board` in `order`. The key API cannot seek to a
/// position, so a page is read from the key where it can be found by
/// walking: from the top when it starts near it, else from a member known
/// to be on it (RANK.AROUND's, or the one `ZRANGE` finds at `start`),
/// found by its score. Reading from the key takes each score as the key
/// holds it; a page from `ZRANGE ... WITHSCORES` would print each score as
/// text for the call's reply and parse it back, more than half of what a
/// page costs.
fn page_rows(
    ctx: &Ctx,
    key: &RStr,
    board: &mut Zset<'_>,
    (start, stop): (i64, i64),
    anchor: Option<(&RStr, i64)>,
    order: Order,
) -> Result<Rows, ZkitError> {
    let (Ok(skip), Ok(span)) = (usize::try_from(start), usize::try_from(stop - start)) else {
        return Ok(Rows::new());
    };
    let take = span.saturating_add(1);
    if skip <= PASS_AT_MOST || board.len() <= LISTPACK_BOARD_MAX {
        let mut walk = best_first(board, order, ScoreBound::MIN, ScoreBound::MAX);
        walk.pass(skip);
        return Ok(walk.take(take).collect());
    }
    let found;
    let (anchor, at) = match anchor {
        Some(anchor) => anchor,
        None => match member_at(ctx, key, board.len(), start, order)? {
            Some(member) => {
                found = member;
                (&*found, start)
            }
            None => return Ok(Rows::new()),
        },
    };
    match rows_around(board, (anchor, at), (start, stop), order)? {
        Some(rows) => Ok(rows),
        None => rows_from_call(ctx, key, board, (start, stop), order),
    }
}

/// Rows `start..=stop` read from the key around `anchor`, the member at
/// position `at` (`start <= at <= stop`); `None` when more than
/// [`TIES_AT_MOST`] members share its score ahead of it.
fn rows_around(
    board: &mut Zset<'_>,
    (anchor, at): (&RStr, i64),
    (start, stop): (i64, i64),
    order: Order,
) -> Result<Option<Rows>, ZkitError> {
    let score = board.score(anchor).ok_or_else(not_on_board)?;
    // Down from the anchor's score: first the members tied with it that
    // come before it (among equal scores the order is member descending,
    // with ASC ascending), then the anchor and the rows below it.
    let (from_anchor, better) = match order {
        Order::HighestFirst => (
            (ScoreBound::MIN, ScoreBound::Inclusive(score)),
            (ScoreBound::Exclusive(score), ScoreBound::MAX),
        ),
        Order::LowestFirst => (
            (ScoreBound::Inclusive(score), ScoreBound::MAX),
            (ScoreBound::MIN, ScoreBound::Exclusive(score)),
        ),
    };
    let mut down = Rows::new();
    let mut ahead = None;
    let mut walk = best_first(board, order, from_anchor.0, from_anchor.1);
    while ahead.is_none_or(|ahead| (down.len() - ahead) as i64 <= stop - at) {
        let Some(row) = walk.next() else { break };
        if ahead.is_none() {
            if row.0.as_bytes() == anchor.as_bytes() {
                ahead = Some(down.len());
            } else if down.len() == TIES_AT_MOST {
                return Ok(None);
            }
        }
        down.push(row);
    }
    drop(walk);
    let ahead = ahead.ok_or_else(not_on_board)? as i64;
    // The walk down started at position `at - ahead`; the rows above it are
    // the scores nearest the anchor's on its better side, walked up.
    let first_down = at - ahead;
    let mut rows = Rows::new();
    if start < first_down {
        let up = match order {
            Order::HighestFirst => board.iter_asc(better.0, better.1),
            Order::LowestFirst => board.iter_desc(better.0, better.1),
        };
        rows.extend(up.take((first_down - start) as usize));
        rows.reverse();
    }
    let skip = usize::try_from(start - first_down).unwrap_or(0);
    rows.extend(down.into_iter().skip(skip));
    Ok(Some(rows))
}

/// Rows `start..=stop` from `ZRANGE ... REV` (with ASC, `ZRANGE`), each
/// score looked up in the key (a hash lookup each).
fn rows_from_call(
    ctx: &Ctx,
    key: &RStr,
    board: &Zset<'_>,
    (start, stop): (i64, i64),
    order: Order,
) -> Result<Rows, ZkitError> {
    let args = [
        CallArg::Str(key),
        CallArg::Int(start),
        CallArg::Int(stop),
        CallArg::Bytes(b"REV"),
    ];
    let args = match order {
        Order::HighestFirst => &args[..],
        Order::LowestFirst => &args[..3],
    };
    let reply = ctx.call(Native::Zrange, args)?;
    let members = reply.get();
    let mut rows = Rows::new();
    for member in (0..members.element_count()).map(|i| members.element(i)) {
        let member = OwnedRStr::new(
            member
                .and_then(|m| m.bytes())
                .ok_or_else(unexpected_zrange)?,
        );
        let score = board.score(&member).ok_or_else(unexpected_zrange)?;
        rows.push((member, score));
    }
    Ok(rows)
}

/// The member at 0-based position `at` in `order` of a board of `len`
/// members: `ZRANGE key i i` at the same position counted from the lowest
/// (highest first is the exact reverse order), one index string made for
/// both bounds.
fn member_at(
    ctx: &Ctx,
    key: &RStr,
    len: usize,
    at: i64,
    order: Order,
) -> Result<Option<OwnedRStr>, ZkitError> {
    let (Ok(at), Ok(len)) = (u64::try_from(at), u64::try_from(len)) else {
        return Ok(None);
    };
    if at >= len {
        return Ok(None);
    }
    let from_lowest = order.ascending_position(len, at);
    let index = OwnedRStr::new(itoa::Buffer::new().format(from_lowest).as_bytes());
    let args = [
        CallArg::Str(key),
        CallArg::Str(&index),
        CallArg::Str(&index),
    ];
    let reply = ctx.call(Native::Zrange, &args)?;
    let members = reply.get();
    if members.element_count() == 0 {
        return Ok(None);
    }
    let member = members.element(0).and_then(|m| m.bytes());
    Ok(Some(OwnedRStr::new(member.ok_or_else(unexpected_zrange)?)))
}

fn unexpected_zrange() -> ZkitError {
    ZkitError::Internal("unexpected ZRANGE reply".into())
}
