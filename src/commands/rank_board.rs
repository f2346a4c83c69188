//! A board's keys and ranks, which every RANK command shares: the key specs
//! of a board read or written, its order (`ASC`: the lowest total first),
//! and how a reply's ranks are read, first-come (ZREVRANK, ZRANK with ASC,
//! or a count through the key on a small board) or shared (ZCOUNT, or a
//! count through the key), and a total bound as RANK.COUNT and RANK.RANGE
//! read it.

use crate::error::ZkitError;
use crate::host::call::{CallArg, Native};
use crate::host::ctx::Ctx;
use crate::host::grammar::{parse_f64, Arg, Request};
use crate::host::keyspec::key_flags as kf;
use crate::host::string::{OwnedRStr, RStr};
use crate::host::zset::{ScoreBound, Zset, ZsetIter};
use crate::logic::rank::{Order, RankError, TotalBound};

use super::layout::Layout;

/// A board a command writes: its new total and rank are returned.
pub(super) const BOARD_WRITE_FLAGS: u32 = kf::RW | kf::ACCESS | kf::UPDATE;
pub(super) const BOARD_WRITE: Arg = Arg::key("key", BOARD_WRITE_FLAGS);
pub(super) const BOARD_READ: Arg = Arg::key("key", kf::RO | kf::ACCESS);

/// A dense board's index, `DENSE totals-key`: a sorted set beside the board
/// holding each total some member has, once, as its decimal text scored
/// with the total. A write that names it keeps it; a read counts the
/// totals above a member's in it.
const DENSE_READ: Arg = Arg::key("totals-key", kf::RO | kf::ACCESS).token("DENSE");
const DENSE_WRITE: Arg = Arg::key("totals-key", kf::RW | kf::UPDATE).token("DENSE");
/// `SHARED`, on the commands that have had it since 0.2.0.
const SHARED_SINCE_0_2: Arg = Arg::pure_token("shared", "SHARED").since("0.2.0");

/// `[SHARED | DENSE totals-key]` on a read: the ranks its reply carries.
pub(super) const RANKS_READ: Arg =
    Arg::one_of("ranks", &[SHARED_SINCE_0_2, DENSE_READ.since("0.5.0")]).optional();
/// The same on a read that has had both from its start.
pub(super) const RANKS_READ_FROM_START: Arg =
    Arg::one_of("ranks", &[Arg::pure_token("shared", "SHARED"), DENSE_READ]).optional();
/// `[SHARED | DENSE totals-key]` on a write, which keeps the index.
pub(super) const RANKS_WRITE: Arg =
    Arg::one_of("ranks", &[SHARED_SINCE_0_2, DENSE_WRITE.since("0.5.0")]).optional();
/// `[SHARED | DENSE totals-key [totals-key ...]]` on RANK.MGIFT: with
/// DENSE, one index per board, in the boards' order.
pub(super) const RANKS_WRITE_EACH: Arg = Arg::one_of(
    "ranks",
    &[
        SHARED_SINCE_0_2,
        Arg::key("totals-key", kf::RW | kf::UPDATE)
            .token("DENSE")
            .counted_by("numkeys")
            .since("0.5.0"),
    ],
)
.optional();
/// The history line of the `DENSE` option.
pub(super) const DENSE_HISTORY: (&str, &str) = ("0.5.0", "Added the `DENSE` option.");

/// `ASC`: the board ranks its lowest total first (a race-time board), the
/// tie-break still first-come. The board's scores say nothing of their
/// order, so every command that ranks, pages or writes the board takes it:
/// a board written with ASC is read with ASC.
pub(super) const ASC_ARG: Arg = Arg::pure_token("asc", "ASC").optional().since("0.5.0");
/// The same on a command that has had it from its start.
pub(super) const ASC_FROM_START: Arg = Arg::pure_token("asc", "ASC").optional();
/// The history line of the `ASC` option.
pub(super) const ASC_HISTORY: (&str, &str) = ("0.5.0", "Added the `ASC` option.");

/// The scores of the members that rank ahead of every member with `total`:
/// a higher total is scored `total + 1` or more, a lower one below `total`
/// (exact doubles: |total| < 2^52).
pub(super) fn ahead_of_total(order: Order, total: i64) -> (ScoreBound, ScoreBound) {
    match order {
        Order::HighestFirst => (ScoreBound::Inclusive((total + 1) as f64), ScoreBound::MAX),
        Order::LowestFirst => (ScoreBound::MIN, ScoreBound::Exclusive(total as f64)),
    }
}

/// The members of `board` within `[min, max]`, best first: highest score
/// first (among equal scores member descending, ZREVRANGE's order), or
/// with ASC lowest first (ZRANGE's).
pub(super) fn best_first<'z, 'c>(
    board: &'z mut Zset<'c>,
    order: Order,
    min: ScoreBound,
    max: ScoreBound,
) -> ZsetIter<'z, 'c> {
    match order {
        Order::HighestFirst => board.iter_desc(min, max),
        Order::LowestFirst => board.iter_asc(min, max),
    }
}

/// The native command that counts a first-come rank in `order`.
pub(super) fn rank_native(order: Order) -> Native {
    match order {
        Order::HighestFirst => Native::Zrevrank,
        Order::LowestFirst => Native::Zrank,
    }
}

/// Which ranks a reply carries.
#[derive(Clone, Copy)]
pub(super) enum Ranks<'a> {
    /// Positions: equal totals rank first-come.
    FirstCome,
    /// `SHARED`: competition ranks (1, 1, 3), equal totals share one.
    Shared,
    /// `DENSE totals-key`: dense ranks (1, 1, 2), 1 + the distinct totals
    /// above, counted in the board's index of totals.
    Dense(&'a RStr),
}

/// The readers of `[SHARED | DENSE totals-key]`, in declaration order: a
/// request reads it as `one_of(&ranks_choices())`.
pub(super) fn ranks_choices<'a>() -> [fn(&mut Request<'a, RStr>) -> Ranks<'a>; 2] {
    [|_| Ranks::Shared, |dense| Ranks::Dense(dense.key())]
}

impl<'a> Ranks<'a> {
    /// The ranks `[SHARED | DENSE totals-key]` asks for (none: first-come).
    pub(super) fn chosen(choice: Option<Ranks<'a>>) -> Ranks<'a> {
        choice.unwrap_or(Ranks::FirstCome)
    }

    /// The native command that reads these ranks on a board in `order`: a
    /// write asks for the rank it made after writing, so it requires the
    /// command before. A read requires it too, also where it counts through
    /// the key: whether a call refuses never depends on the data.
    pub(super) fn native(self, order: Order) -> Native {
        match self {
            Ranks::FirstCome => rank_native(order),
            Ranks::Shared | Ranks::Dense(_) => Native::Zcount,
        }
    }

    /// The native commands a page with these ranks may call: `ZRANGE` to
    /// find where a deep page starts, `ZCOUNT` for its first shared or
    /// dense rank.
    pub(super) fn page_natives(self) -> &'static [Native] {
        match self {
            Ranks::FirstCome => &[Native::Zrange],
            Ranks::Shared | Ranks::Dense(_) => &[Native::Zrange, Native::Zcount],
        }
    }

    /// These ranks for `board`, refused when `DENSE` names the board itself.
    pub(super) fn checked_for(self, board: &RStr) -> Result<Ranks<'a>, ZkitError> {
        match self {
            Ranks::Dense(index) if index.as_bytes() == board.as_bytes() => {
                Err(ZkitError::Rank(RankError::TotalsKeyIsBoard))
            }
            _ => Ok(self),
        }
    }

    /// These ranks for a write to several `boards`, refused when `DENSE`
    /// names one of them.
    pub(super) fn checked_for_boards(self, boards: &[&RStr]) -> Result<Ranks<'a>, ZkitError> {
        for board in boards {
            self.checked_for(board)?;
        }
        Ok(self)
    }

    /// The dense board's index of totals, with `DENSE`.
    pub(super) fn totals_key(self) -> Option<&'a RStr> {
        match self {
            Ranks::Dense(index) => Some(index),
            _ => None,
        }
    }
}

/// Keeps a dense board's index after one member's total went from
/// `previous` (`None`: new on the board) to `total`: `total` is entered
/// when no entry holds it, and `previous` leaves when no member of `board`
/// (already written) holds it any more. O(log N).
pub(super) fn keep_totals(
    index: &mut Zset<'_>,
    board: &mut Zset<'_>,
    previous: Option<i64>,
    total: i64,
) -> Result<(), ZkitError> {
    let entry = total_text(total);
    if index.score(&entry).is_none() {
        index.add(&entry, total as f64)?;
    }
    if let Some(previous) = previous.filter(|&previous| previous != total) {
        drop_unheld_totals(index, board, &[previous]);
    }
    Ok(())
}

/// Removes from a dense board's index each of `totals` that no member of
/// `board` (already written) holds any more: a total `t` is scored in
/// `[t, t + 1)`, so one seek answers. O(T log N).
pub(super) fn drop_unheld_totals(index: &mut Zset<'_>, board: &mut Zset<'_>, totals: &[i64]) {
    for &total in totals {
        let (low, high) = (total as f64, (total + 1) as f64);
        let held = board.count_at_most(ScoreBound::Inclusive(low), ScoreBound::Exclusive(high), 0);
        if held == Some(0) {
            index.remove(&total_text(total));
        }
    }
}

/// A total as the index holds it: its decimal text.
pub(super) fn total_text(total: i64) -> OwnedRStr {
    OwnedRStr::new(itoa::Buffer::new().format(total).as_bytes())
}

/// The dense rank of `total`: 1 + the distinct totals ahead of it, the
/// index's entries scored at `total + 1` or more (with ASC, below `total`:
/// the competition rank of `total` on the index, where every total stands
/// once), counted through the key on an index small enough that walking
/// costs less than `ZCOUNT` (as a shared rank is on a board). Opening the
/// index checks its type.
pub(super) fn dense_rank(
    ctx: &Ctx,
    index: &RStr,
    total: i64,
    order: Order,
) -> Result<i64, ZkitError> {
    let Some(mut totals) = ctx.open_zset(index)? else {
        return Ok(1);
    };
    let (min, max) = ahead_of_total(order, total);
    let walked = (totals.len() <= SHARED_WALK_AT_MOST)
        .then(|| totals.count_at_most(min, max, SHARED_WALK_AT_MOST))
        .flatten();
    match walked {
        Some(above) => Ok(above as i64 + 1),
        None => shared_rank(ctx, index, total, order),
    }
}

/// A member the board held a moment before is gone: a reply out of step.
pub(super) fn not_on_board() -> ZkitError {
    ZkitError::Internal("the member is not on the board".into())
}

/// The 1-based rank of a member, highest total first (with ASC, lowest
/// first); `None` if absent.
pub(super) fn rank_of(
    ctx: &Ctx,
    key: &RStr,
    member: &RStr,
    order: Order,
) -> Result<Option<i64>, ZkitError> {
    let native = rank_native(order);
    let reply = ctx.call(native, &[CallArg::Str(key), CallArg::Str(member)])?;
    let reply = reply.get();
    if reply.is_null() {
        return Ok(None);
    }
    reply
        .integer()
        .map(|index| Some(index + 1))
        .ok_or_else(|| ZkitError::Internal(format!("{} did not return an integer", native.text())))
}

/// The rank a reply gives a member that is on the board with `total`.
pub(super) fn rank_of_member(
    ctx: &Ctx,
    key: &RStr,
    member: &RStr,
    total: i64,
    ranks: Ranks<'_>,
    order: Order,
) -> Result<i64, ZkitError> {
    match ranks {
        Ranks::FirstCome => rank_of(ctx, key, member, order)?.ok_or_else(not_on_board),
        Ranks::Shared => shared_rank(ctx, key, total, order),
        Ranks::Dense(index) => dense_rank(ctx, index, total, order),
    }
}

/// Boards of up to this many members in the skiplist layout rank a member
/// first-come by counting, through the key, the members above it (a seek
/// and about 60 instructions a member) instead of calling ZREVRANK (about
/// 4,000 for the call alone). Measured (callgrind, RANK.GIFT and RANK.GET
/// on busy boards of 16 to 256, members drawn over the whole board): the
/// walk saves 20% at 16 members, 10% at 64, 1.6% at 112, and costs 2-5%
/// more at 128.
pub(super) const FIRST_COME_WALK_AT_MOST: usize = 112;

/// Boards of up to this many members count a shared rank through the key
/// (as ZCOUNT would, by scores) instead of calling ZCOUNT, on any layout.
/// Measured as above: on a skiplist it saves 28% at 16 members, 14% at 112,
/// 1% at 192 and costs 10% more at 256; on a listpack (boards kept quiet)
/// it saves 10% at 16 and 0.2% at 128, the most a listpack board holds.
pub(super) const SHARED_WALK_AT_MOST: usize = 192;

/// A small board's ranks, counted through the key; a first-come rank only
/// on a board known to be a skiplist: on a listpack the walk parses each
/// score it passes, which ZREVRANK (comparing members) does not (measured:
/// no gain at any size). A shared rank counts as ZCOUNT would, by scores,
/// on any layout.
#[derive(Clone, Copy)]
pub(super) struct RankWalk {
    first_come: bool,
    order: Order,
}

impl RankWalk {
    /// The walk for a board of `len` members in `layout`, ranked in
    /// `order`; `None` where the calls cost less.
    pub(super) fn of(len: usize, layout: Layout, order: Order) -> Option<RankWalk> {
        (len <= SHARED_WALK_AT_MOST).then_some(RankWalk {
            first_come: layout == Layout::Skiplist && len <= FIRST_COME_WALK_AT_MOST,
            order,
        })
    }

    /// The rank of `member`, on `board` at `score` (its total `total`);
    /// `None` where a call counts it.
    pub(super) fn rank(
        self,
        board: &mut Zset<'_>,
        member: &RStr,
        score: f64,
        total: i64,
        ranks: Ranks<'_>,
    ) -> Option<i64> {
        let ahead = match ranks {
            Ranks::Shared => {
                let (min, max) = ahead_of_total(self.order, total);
                board.count_at_most(min, max, SHARED_WALK_AT_MOST)?
            }
            Ranks::FirstCome if self.first_come => {
                let most = FIRST_COME_WALK_AT_MOST;
                let at = ScoreBound::Inclusive(score);
                let (min, max) = match self.order {
                    Order::HighestFirst => (ScoreBound::Exclusive(score), ScoreBound::MAX),
                    Order::LowestFirst => (ScoreBound::MIN, ScoreBound::Exclusive(score)),
                };
                let better = board.count_at_most(min, max, most)?;
                // Among equal scores the higher member comes first
                // (ZREVRANK's order; with ASC the lower, ZRANK's): ties
                // are rare, and only then are members read.
                let tied_ahead = match board.count_at_most(at, at, most)? {
                    0 | 1 => 0,
                    _ => board
                        .iter_asc(at, at)
                        .filter(|(tied, _)| match self.order {
                            Order::HighestFirst => tied.as_bytes() > member.as_bytes(),
                            Order::LowestFirst => tied.as_bytes() < member.as_bytes(),
                        })
                        .count(),
                };
                better + tied_ahead
            }
            // The index is another key: its count is a call.
            Ranks::FirstCome | Ranks::Dense(_) => return None,
        };
        Some(ahead as i64 + 1)
    }
}

/// The competition rank of `total`: 1 + the members whose total is higher,
/// i.e. scored at `total + 1` or more (with ASC lower, scored below
/// `total`; |total| < 2^52, so the bound is an exact double).
pub(super) fn shared_rank(
    ctx: &Ctx,
    key: &RStr,
    total: i64,
    order: Order,
) -> Result<i64, ZkitError> {
    // `(total` as ZCOUNT reads an exclusive bound, made on the stack.
    let mut below = [b'('; 21];
    let below_len = match order {
        Order::HighestFirst => 0,
        Order::LowestFirst => {
            let mut digits = itoa::Buffer::new();
            let digits = digits.format(total).as_bytes();
            below[1..=digits.len()].copy_from_slice(digits);
            digits.len() + 1
        }
    };
    let [min, max] = match order {
        Order::HighestFirst => [CallArg::Int(total + 1), CallArg::Bytes(b"+inf")],
        Order::LowestFirst => [CallArg::Bytes(b"-inf"), CallArg::Bytes(&below[..below_len])],
    };
    let higher = ctx.call(Native::Zcount, &[CallArg::Str(key), min, max])?;
    higher
        .get()
        .integer()
        .map(|higher| higher + 1)
        .ok_or_else(|| ZkitError::Internal("ZCOUNT did not return an integer".into()))
}

/// A RANK.COUNT bound: a number as zkit reads doubles (`-inf`, `+inf`),
/// exclusive after `(`.
pub(super) fn total_bound(word: &RStr) -> Result<TotalBound, ZkitError> {
    let bytes = word.as_bytes();
    let (exclusive, number) = match bytes {
        [b'(', rest @ ..] => (true, rest),
        _ => (false, bytes),
    };
    let value = parse_f64(number).ok_or(ZkitError::Rank(RankError::BoundNotFloat))?;
    Ok(if exclusive {
        TotalBound::Exclusive(value)
    } else {
        TotalBound::Inclusive(value)
    })
}
