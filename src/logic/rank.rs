//! The rank score: an integer total and a first-come tie-break packed into one
//! double that native sorted-set commands order correctly.
//!
//! `score = total + fraction`, with the fraction in `[0, 1)`, so
//! `floor(score) == total` for negative totals too and ZREVRANGE still orders
//! by total first. The fraction is `j / 2^b`, where `j` counts down the
//! tie-break clock: the earlier a total was reached, the larger the fraction,
//! the higher the member ranks among equal totals.
//!
//! A double has 53 significant bits. A total of bit length `m` leaves
//! `b = 53 - m` bits for the fraction, and every value `total + j / 2^b` is
//! then exactly representable: no rounding can ever carry the fraction into
//! `total + 1`. The clock window (`span` milliseconds from `epoch`) is cut into
//! `2^b` slots, so the tie-break resolution is `span / 2^b` ms: finer for
//! small totals, coarser for large ones. Two totals reached within the same
//! slot tie on score, and Redis orders them by member name.
//!
//! A board whose lowest total ranks first ([`Order::LowestFirst`], `ASC`:
//! race times, golf) keeps `floor(score) == total` too, with the fraction
//! counting up instead: the earlier a total was reached, the smaller the
//! fraction, so ZRANGE (lowest first) is its order and the totals are the
//! user's own, never negated.

/// Totals must stay below 2^52 in magnitude, which leaves at least one
/// fraction bit.
pub const TOTAL_LIMIT: i64 = 1 << 52;

/// Default start of the tie-break clock: 2024-01-01T00:00:00Z.
pub const DEFAULT_EPOCH_MS: i64 = 1_704_067_200_000;
/// Default length of the tie-break clock: 2^41 ms, about 69.7 years (until
/// 2093-09). A power of two makes every resolution an exact power of two ms.
pub const DEFAULT_SPAN_MS: i64 = 1 << 41;
/// Neither the epoch nor the span may exceed 2^53 ms (about 285,000 years),
/// so `epoch + span` never overflows.
pub const CLOCK_LIMIT_MS: i64 = 1 << 53;

#[derive(Debug, Clone, PartialEq)]
pub enum RankError {
    /// A total (given, or the result of an addition or merge) is outside
    /// `(-2^52, 2^52)`.
    TotalOutOfRange,
    /// The reached-at time is outside the tie-break window.
    TimeOutsideWindow {
        at_ms: i64,
        start_ms: i64,
        end_ms: i64,
    },
    /// An existing score is not one zkit can read as a rank (infinite, or too
    /// large), for example one written by a plain ZADD.
    NotRankScore(f64),
    /// A multi-board write names one board twice.
    RepeatedBoard,
    /// A RANK.COUNT bound that is not a number (nor `(` and a number).
    BoundNotFloat,
    /// `DENSE totals-key` names the board itself.
    TotalsKeyIsBoard,
    /// `DATA data-key` names the board or its totals index.
    DataKeyShared,
    /// A member's data over `zkit.member-data-max-bytes`.
    MemberDataTooLarge { len: usize, limit: i64 },
}

/// A decoded rank score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RankEntry {
    pub total: i64,
    /// The first millisecond of the tie-break slot the total was reached in.
    pub reached_at_ms: i64,
}

/// Which end of a board ranks first. Among equal totals whoever reached
/// the total first ranks first on either.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    /// The highest total first (a gift board): ZREVRANGE's order.
    #[default]
    HighestFirst,
    /// `ASC`: the lowest total first (a race-time board): ZRANGE's order.
    LowestFirst,
}

impl Order {
    /// The order `ASC` asks for.
    pub fn of_asc(asc: bool) -> Order {
        if asc {
            Order::LowestFirst
        } else {
            Order::HighestFirst
        }
    }

    /// The 0-based ascending position (lowest score first, as ZRANGE
    /// counts) of the member at 0-based `position` in this order, on a
    /// board of `members`.
    pub fn ascending_position(self, members: u64, position: u64) -> u64 {
        match self {
            Order::HighestFirst => members - 1 - position,
            Order::LowestFirst => position,
        }
    }
}

/// The tie-break clock: a window of `span_ms` milliseconds from `epoch_ms`,
/// and the board's order, which sets the way the fraction counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TieBreakClock {
    epoch_ms: i64,
    span_ms: i64,
    order: Order,
}

impl Default for TieBreakClock {
    fn default() -> Self {
        TieBreakClock {
            epoch_ms: DEFAULT_EPOCH_MS,
            span_ms: DEFAULT_SPAN_MS,
            order: Order::HighestFirst,
        }
    }
}

impl TieBreakClock {
    /// `epoch_ms` in `[0, 2^53]`, `span_ms` in `[1, 2^53]`; module configs
    /// enforce the same bounds.
    pub fn new(epoch_ms: i64, span_ms: i64) -> Option<TieBreakClock> {
        ((0..=CLOCK_LIMIT_MS).contains(&epoch_ms) && (1..=CLOCK_LIMIT_MS).contains(&span_ms))
            .then_some(TieBreakClock {
                epoch_ms,
                span_ms,
                order: Order::HighestFirst,
            })
    }

    /// This clock for a board in `order`.
    pub fn ordered(self, order: Order) -> TieBreakClock {
        TieBreakClock { order, ..self }
    }

    /// How many milliseconds one tie-break slot lasts at `total`, rounded
    /// up to a whole millisecond: totals reached within one slot tie on
    /// score (and rank by member name).
    pub fn slot_ms(&self, total: i64) -> i64 {
        let slots = 1u128 << fraction_bits(total);
        (self.span_ms as u128).div_ceil(slots) as i64
    }

    /// The window `[start, end)` of accepted reached-at times, in unix ms.
    pub fn window(&self) -> (i64, i64) {
        (self.epoch_ms, self.epoch_ms + self.span_ms)
    }

    /// The score for `total` reached at `at_ms`.
    pub fn encode(&self, total: i64, at_ms: i64) -> Result<f64, RankError> {
        check_total(total)?;
        let (start_ms, end_ms) = self.window();
        if !(start_ms..end_ms).contains(&at_ms) {
            return Err(RankError::TimeOutsideWindow {
                at_ms,
                start_ms,
                end_ms,
            });
        }
        let bits = fraction_bits(total);
        let slots = 1u128 << bits;
        let slot = (at_ms - start_ms) as u128 * slots / self.span_ms as u128;
        let tick = self.tick(slot, slots) as i64;
        // |total * 2^bits + tick| < 2^53, so the integer and the scaled
        // double are both exact.
        let scaled = (total << bits) + tick;
        Ok(scaled as f64 * pow2(-(bits as i32)))
    }

    /// The fraction's numerator for tie-break slot `slot` of `slots`:
    /// counting down on a board whose highest total ranks first (earlier,
    /// larger), up on one whose lowest does (earlier, smaller). Its own
    /// inverse.
    fn tick(&self, slot: u128, slots: u128) -> u128 {
        match self.order {
            Order::HighestFirst => slots - 1 - slot,
            Order::LowestFirst => slot,
        }
    }

    /// The total and reached-at time a score encodes. Scores zkit did not write
    /// decode too: an integer score reads as reached at the end of the window
    /// (so it ranks after zkit's entries of the same total), or on a board
    /// whose lowest total ranks first at its start (where a fraction of 0
    /// ranks before them).
    pub fn decode(&self, score: f64) -> Result<RankEntry, RankError> {
        let floor = score.floor();
        if !floor.is_finite() || floor.abs() >= TOTAL_LIMIT as f64 {
            return Err(RankError::NotRankScore(score));
        }
        let total = floor as i64;
        let bits = fraction_bits(total);
        let slots = 1u128 << bits;
        // Both steps are exact: the fraction of a double is exact, and scaling
        // by a power of two is exact.
        let tick = ((score - floor) * pow2(bits as i32)).floor() as u128;
        let slot = self.tick(tick.min(slots - 1), slots);
        // The first millisecond whose slot is `slot`: ceil(slot * span / slots).
        // Slots shorter than a millisecond may hold none; the window's last
        // millisecond then stands for the end of the window.
        let offset = (slot * self.span_ms as u128).div_ceil(slots) as i64;
        Ok(RankEntry {
            total,
            reached_at_ms: self.epoch_ms + offset.min(self.span_ms - 1),
        })
    }
}

/// Checks that a total fits: `|total| < 2^52`.
pub fn check_total(total: i64) -> Result<i64, RankError> {
    if total.unsigned_abs() < TOTAL_LIMIT as u64 {
        Ok(total)
    } else {
        Err(RankError::TotalOutOfRange)
    }
}

/// `total + amount`, refused when it overflows or leaves the range.
pub fn add_totals(total: i64, amount: i64) -> Result<i64, RankError> {
    total
        .checked_add(amount)
        .ok_or(RankError::TotalOutOfRange)
        .and_then(check_total)
}

/// `total * weight`, refused when it overflows or leaves the range.
pub fn weigh_total(total: i64, weight: i64) -> Result<i64, RankError> {
    total
        .checked_mul(weight)
        .ok_or(RankError::TotalOutOfRange)
        .and_then(check_total)
}

/// How a write changes a member's total.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TotalUpdate {
    /// RANK.GIFT: add an amount; an absent member starts at 0.
    Add(i64),
    /// RANK.SET: replace the total, always or only in one direction.
    Set(i64, SetCondition),
}

/// When RANK.SET replaces a member's total.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetCondition {
    Always,
    /// `GT`: only by a higher total (a best-score board).
    Higher,
    /// `LT`: only by a lower total (a fastest-time board).
    Lower,
}

/// The total that stands after a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TotalAfter {
    pub total: i64,
    /// The total is new: the member is written, reached now. Otherwise
    /// nothing is written and the member keeps the time it reached its total,
    /// so whoever reached a score first still ranks higher.
    pub changed: bool,
}

/// What a write does to a member whose total is `previous` (`None`: not on
/// the board). The new total is checked even when a condition keeps the old
/// one, so whether a call is refused never depends on the board.
/// Conditions do not stop an absent member from being added, as with ZADD's
/// GT and LT.
pub fn next_total(previous: Option<i64>, update: TotalUpdate) -> Result<TotalAfter, RankError> {
    let candidate = match update {
        TotalUpdate::Add(amount) => add_totals(previous.unwrap_or(0), amount)?,
        TotalUpdate::Set(total, _) => check_total(total)?,
    };
    let Some(old) = previous else {
        return Ok(TotalAfter {
            total: candidate,
            changed: true,
        });
    };
    let replaces = match update {
        TotalUpdate::Set(_, SetCondition::Higher) => candidate > old,
        TotalUpdate::Set(_, SetCondition::Lower) => candidate < old,
        _ => candidate != old,
    };
    Ok(if replaces {
        TotalAfter {
            total: candidate,
            changed: true,
        }
    } else {
        TotalAfter {
            total: old,
            changed: false,
        }
    })
}

/// Refuses a list of boards that names one twice: a multi-board gift adds
/// the amount once per board.
pub fn check_distinct_boards(boards: &[&[u8]]) -> Result<(), RankError> {
    let mut sorted = boards.to_vec();
    sorted.sort_unstable();
    if sorted.windows(2).any(|pair| pair[0] == pair[1]) {
        return Err(RankError::RepeatedBoard);
    }
    Ok(())
}

/// Competition ranks ("1, 1, 3") of consecutive entries of a board, listed
/// highest first, as `RANK.* SHARED` replies them: equal totals share a rank,
/// 1 + the number of members whose total is strictly higher.
///
/// `first_position` is the 1-based position of the first entry and
/// `first_shared` its shared rank (one range count on the server); `totals`
/// are the entries' totals in board order. Every other rank follows without
/// a count: an entry whose total equals the one above it shares that entry's
/// rank, and any other entry has only higher totals above it, so its shared
/// rank is its position.
pub fn shared_ranks(first_position: i64, first_shared: i64, totals: &[i64]) -> Vec<i64> {
    let mut ranks = Vec::with_capacity(totals.len());
    for (i, total) in totals.iter().enumerate() {
        let rank = match ranks.last() {
            Some(&above) if totals[i - 1] == *total => above,
            Some(_) => first_position + i as i64,
            None => first_shared,
        };
        ranks.push(rank);
    }
    ranks
}

/// Dense ranks of consecutive board entries: `first_dense` is the first
/// entry's (one count in the board's index of totals), `totals` the
/// entries' totals in board order. Every other rank follows without a
/// count: an entry whose total equals the one above it shares that entry's
/// rank, and any other entry has exactly one more distinct total above it.
pub fn dense_ranks(first_dense: i64, totals: &[i64]) -> Vec<i64> {
    let mut ranks = Vec::with_capacity(totals.len());
    for (i, total) in totals.iter().enumerate() {
        let rank = match ranks.last() {
            Some(&above) if totals[i - 1] == *total => above,
            Some(&above) => above + 1,
            None => first_dense,
        };
        ranks.push(rank);
    }
    ranks
}

/// RANK.PERCENTILE: the share of a board's `members` ranked below a member
/// at 0-based first-come position `rank0` (best first), in whole percent
/// rounded up, agoragames/leaderboard's `ceil((members - rank0 - 1) /
/// members * 100)`, computed on integers; `None` when `rank0` is not a
/// position of the board.
pub fn percentile(members: u64, rank0: u64) -> Option<i64> {
    if rank0 >= members {
        return None;
    }
    let below = u128::from(members - rank0 - 1);
    let members = u128::from(members);
    Some((below * 100).div_ceil(members) as i64)
}

/// Where RANK.QUANTILE reads a board of `members` (at least 1) at
/// `percentile` (0 to 100): the 0-based ascending positions `low` and
/// `high` (floor and ceil of `(members - 1) * percentile / 100`) and how
/// far between them the quantile lies (0 when they are one).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuantileAt {
    pub low: u64,
    pub high: u64,
    pub fraction: f64,
}

/// [`QuantileAt`] of `percentile` on a board of `members` (>= 1); these
/// steps, in this order, are the library's too (functions/lua/rank.lua), so
/// both engines reply the same double.
pub fn quantile_at(members: u64, percentile: f64) -> QuantileAt {
    let index = (members - 1) as f64 * percentile / 100.0;
    let low = index.floor();
    QuantileAt {
        low: low as u64,
        high: index.ceil() as u64,
        fraction: index - low,
    }
}

/// The total at a quantile: `low`'s total plus `fraction` of the way to
/// `high`'s (linear interpolation, agoragames' `score_for_percentile`).
pub fn interpolate(low: i64, high: i64, fraction: f64) -> f64 {
    if fraction == 0.0 || low == high {
        return low as f64;
    }
    // |high - low| < 2^53: the difference is an exact double.
    low as f64 + (high - low) as f64 * fraction
}

/// A bound of RANK.COUNT, as ZCOUNT reads one: a number (`-inf` and `+inf`
/// included), inclusive, or exclusive after `(`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TotalBound {
    Inclusive(f64),
    Exclusive(f64),
}

/// The totals RANK.COUNT counts between `min` and `max`, as the scores
/// that hold them: `[low, high)`, integers with `-2^52 < low < high <=
/// 2^52` (a total `t` is scored in `[t, t + 1)`), or `None` when no total
/// lies between the bounds.
pub fn total_score_range(min: TotalBound, max: TotalBound) -> Option<(i64, i64)> {
    let lowest = match min {
        TotalBound::Inclusive(x) => x.ceil(),
        TotalBound::Exclusive(x) => x.floor() + 1.0,
    };
    let highest = match max {
        TotalBound::Inclusive(x) => x.floor(),
        TotalBound::Exclusive(x) => x.ceil() - 1.0,
    };
    let limit = (TOTAL_LIMIT - 1) as f64;
    let (lowest, highest) = (lowest.max(-limit), highest.min(limit));
    (lowest <= highest).then(|| (lowest as i64, highest as i64 + 1))
}

/// The 0-based positions, highest first, of RANK.RANGE's page: the board
/// holds `above` members with a total above the range and `within` in it,
/// so the range fills positions `above..above + within`; the page skips
/// `offset` of them and takes `count` (a negative count: all the rest, as
/// ZRANGEBYSCORE's LIMIT reads it). `None` when the page is empty.
pub fn range_positions(above: u64, within: u64, offset: u64, count: i64) -> Option<(i64, i64)> {
    let rest = within.checked_sub(offset).filter(|&rest| rest > 0)?;
    let take = u64::try_from(count).map_or(rest, |count| count.min(rest));
    if take == 0 {
        return None;
    }
    // A board's positions fit an i64: `above + within` is its size at most.
    let start = (above + offset) as i64;
    Some((start, start + take as i64 - 1))
}

/// RANK.AMONG: the given members found on a board, `(score, member)`, put
/// in the board's order (highest score first; among equal scores member
/// descending, ZREVRANGE's order; with `ASC`, the exact reverse, ZRANGE's),
/// each member once: a member given twice has the same score twice, so its
/// copies end up side by side.
pub fn board_order(found: &mut Vec<(f64, &[u8])>, order: Order) {
    // Scores compare as the sorted set compares them (-0 equals 0); a
    // sorted set holds no NaN.
    found.sort_unstable_by(|a, b| {
        let ascending =
            a.0.partial_cmp(&b.0)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then_with(|| a.1.cmp(b.1));
        match order {
            Order::HighestFirst => ascending.reverse(),
            Order::LowestFirst => ascending,
        }
    });
    found.dedup_by(|a, b| a.1 == b.1);
}

/// 2^exp, built from its bits so it is exact (for |exp| <= 1022).
fn pow2(exp: i32) -> f64 {
    f64::from_bits(((1023 + exp) as u64) << 52)
}

/// Bits left for the fraction by a total: 53 minus its bit length.
fn fraction_bits(total: i64) -> u32 {
    53 - (64 - total.unsigned_abs().leading_zeros())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const HOUR: i64 = 3_600_000;

    fn clock() -> TieBreakClock {
        TieBreakClock::default()
    }

    impl TieBreakClock {
        /// How many milliseconds one tie-break slot lasts at this total
        /// (the table in docs/commands.md).
        fn resolution_ms(&self, total: i64) -> f64 {
            self.span_ms as f64 * pow2(-(fraction_bits(total) as i32))
        }
    }

    #[test]
    fn default_window_covers_2024_to_2093() {
        let (start, end) = clock().window();
        assert_eq!(start, 1_704_067_200_000);
        // 2093-09-01T00:00:00Z < end < 2093-10-01T00:00:00Z
        assert!(end > 3_902_601_600_000 && end < 3_905_193_600_000, "{end}");
    }

    #[test]
    fn resolution_table_matches_the_docs() {
        let c = clock();
        assert!(c.resolution_ms(0) <= 1.0);
        assert!(c.resolution_ms(999) <= 1.0);
        assert!(c.resolution_ms(4095) <= 1.0);
        assert_eq!(c.resolution_ms(4096), 2.0);
        assert_eq!(c.resolution_ms(999_999), 256.0);
        assert_eq!(c.resolution_ms(16_777_215), 4096.0);
        assert_eq!(c.resolution_ms(999_999_999), 262_144.0);
        assert_eq!(c.resolution_ms(999_999_999_999), 268_435_456.0);
        assert_eq!(c.resolution_ms(TOTAL_LIMIT - 1), (1u64 << 40) as f64);
        assert_eq!(c.resolution_ms(-999_999), 256.0);
        assert_eq!(c.slot_ms(999), 1);
        assert_eq!(c.slot_ms(999_999), 256);
        assert_eq!(c.slot_ms(TOTAL_LIMIT - 1), 1 << 40);
    }

    #[test]
    fn earlier_time_ranks_higher_at_equal_total() {
        let c = clock();
        let t = DEFAULT_EPOCH_MS + 100 * HOUR;
        for total in [0, 1, 7, 1000, -1, -1000, 123_456_789] {
            let early = c.encode(total, t).unwrap();
            let late = c.encode(total, t + 10 * HOUR).unwrap();
            assert!(early > late, "total {total}: {early} vs {late}");
        }
    }

    #[test]
    fn gift_board_totals_stay_exact_above_a_billion() {
        // The article's packing breaks above a billion coins; here the total
        // stays exact up to 2^52 - 1.
        let c = clock();
        let at = DEFAULT_EPOCH_MS + 12_345;
        for total in [
            1_000_000_001,
            10_000_000_000_007,
            TOTAL_LIMIT - 1,
            -(TOTAL_LIMIT - 1),
        ] {
            let score = c.encode(total, at).unwrap();
            assert_eq!(score.floor() as i64, total);
            assert_eq!(c.decode(score).unwrap().total, total);
        }
    }

    #[test]
    fn refuses_totals_and_times_it_cannot_encode() {
        let c = clock();
        let at = DEFAULT_EPOCH_MS;
        assert_eq!(c.encode(TOTAL_LIMIT, at), Err(RankError::TotalOutOfRange));
        assert_eq!(c.encode(-TOTAL_LIMIT, at), Err(RankError::TotalOutOfRange));
        assert_eq!(c.encode(i64::MIN, at), Err(RankError::TotalOutOfRange));
        let (start, end) = c.window();
        assert!(matches!(
            c.encode(1, start - 1),
            Err(RankError::TimeOutsideWindow { .. })
        ));
        assert!(matches!(
            c.encode(1, end),
            Err(RankError::TimeOutsideWindow { .. })
        ));
        assert!(c.encode(1, end - 1).is_ok());
        assert_eq!(
            add_totals(TOTAL_LIMIT - 1, 1),
            Err(RankError::TotalOutOfRange)
        );
        assert_eq!(add_totals(i64::MAX, 1), Err(RankError::TotalOutOfRange));
        assert_eq!(
            weigh_total(1 << 40, 1 << 20),
            Err(RankError::TotalOutOfRange)
        );
        assert_eq!(weigh_total(5, -3), Ok(-15));
    }

    #[test]
    fn decodes_foreign_scores_or_refuses_them() {
        let c = clock();
        let (_, end) = c.window();
        // A plain integer score: same total, last slot of the window.
        let e = c.decode(42.0).unwrap();
        assert_eq!(e.total, 42);
        assert!(e.reached_at_ms < end && e.reached_at_ms > end - 1000);
        assert_eq!(c.decode(-2.5).unwrap().total, -3);
        for bad in [f64::INFINITY, f64::NEG_INFINITY, 1e300, TOTAL_LIMIT as f64] {
            assert!(matches!(c.decode(bad), Err(RankError::NotRankScore(_))));
        }
    }

    #[test]
    fn tiny_window_still_orders() {
        let c = TieBreakClock::new(1000, 3).unwrap();
        let a = c.encode(5, 1000).unwrap();
        let b = c.encode(5, 1001).unwrap();
        let d = c.encode(5, 1002).unwrap();
        assert!(a > b && b > d);
        assert_eq!(c.decode(b).unwrap().reached_at_ms, 1001);
        assert!(TieBreakClock::new(-1, 10).is_none());
        assert!(TieBreakClock::new(0, 0).is_none());
        assert!(TieBreakClock::new(CLOCK_LIMIT_MS + 1, 1).is_none());
    }

    #[test]
    fn gt_and_lt_keep_the_better_total_and_its_time() {
        let set = |total, condition| TotalUpdate::Set(total, condition);
        let after = |total, changed| Ok(TotalAfter { total, changed });
        use SetCondition::*;
        assert_eq!(next_total(Some(10), set(12, Higher)), after(12, true));
        assert_eq!(next_total(Some(10), set(8, Higher)), after(10, false));
        // An equal total keeps the time it was first reached.
        assert_eq!(next_total(Some(10), set(10, Higher)), after(10, false));
        assert_eq!(next_total(Some(10), set(10, Lower)), after(10, false));
        assert_eq!(next_total(Some(10), set(8, Lower)), after(8, true));
        assert_eq!(next_total(Some(10), set(12, Lower)), after(10, false));
        assert_eq!(next_total(Some(10), set(12, Always)), after(12, true));
        assert_eq!(next_total(Some(10), set(10, Always)), after(10, false));
        // Absent members are added whatever the condition.
        assert_eq!(next_total(None, set(-3, Higher)), after(-3, true));
        assert_eq!(next_total(None, set(7, Lower)), after(7, true));
        // Gifts: a gift of 0 writes nothing; an absent member starts at 0.
        assert_eq!(next_total(Some(5), TotalUpdate::Add(0)), after(5, false));
        assert_eq!(next_total(None, TotalUpdate::Add(0)), after(0, true));
        assert_eq!(next_total(Some(5), TotalUpdate::Add(-7)), after(-2, true));
        // A total out of range is refused even when GT would keep the old one.
        assert_eq!(
            next_total(Some(10), set(-TOTAL_LIMIT, Higher)),
            Err(RankError::TotalOutOfRange)
        );
        assert_eq!(
            next_total(Some(TOTAL_LIMIT - 1), TotalUpdate::Add(1)),
            Err(RankError::TotalOutOfRange)
        );
    }

    #[test]
    fn a_board_named_twice_is_refused() {
        assert_eq!(check_distinct_boards(&[b"day", b"week", b"all"]), Ok(()));
        assert_eq!(check_distinct_boards(&[b"day"]), Ok(()));
        assert_eq!(
            check_distinct_boards(&[b"day", b"week", b"day"]),
            Err(RankError::RepeatedBoard)
        );
    }

    #[test]
    fn shared_ranks_of_the_issue_board() {
        // a 100, b 100, c 99, then d 100: positions a 1, b 2, d 3, c 4.
        assert_eq!(shared_ranks(1, 1, &[100, 100, 100, 99]), [1, 1, 1, 4]);
        // A page that starts inside the run of 100s (d at position 3).
        assert_eq!(shared_ranks(3, 1, &[100, 99]), [1, 4]);
        // Negative totals order the same way.
        assert_eq!(shared_ranks(2, 2, &[-1, -1, -5, -5, -6]), [2, 2, 4, 4, 6]);
        assert_eq!(shared_ranks(7, 5, &[]), Vec::<i64>::new());
    }

    #[test]
    fn dense_ranks_of_the_issue_board() {
        // a 100, b 100, c 99, then d 100: a, b and d rank 1, c 2.
        assert_eq!(dense_ranks(1, &[100, 100, 100, 99]), [1, 1, 1, 2]);
        // A page that starts inside the run of 100s.
        assert_eq!(dense_ranks(1, &[100, 99]), [1, 2]);
        assert_eq!(dense_ranks(3, &[-1, -1, -5, -5, -6]), [3, 3, 4, 4, 5]);
        assert_eq!(dense_ranks(7, &[]), Vec::<i64>::new());
    }

    #[test]
    fn percentiles_of_agoragames_board() {
        // 12 members with totals 1..12: the total-t member is at rank0 12 - t.
        let at = |total: u64| percentile(12, 12 - total);
        assert_eq!(at(1), Some(0));
        assert_eq!(at(2), Some(9));
        assert_eq!(at(3), Some(17));
        assert_eq!(at(4), Some(25));
        assert_eq!(at(12), Some(92));
        assert_eq!(percentile(1, 0), Some(0));
        assert_eq!(percentile(12, 12), None);
        assert_eq!(percentile(0, 0), None);
        // Exact where a float would round: 1/3 of a huge board.
        assert_eq!(percentile(3 << 40, 2 << 40), Some(34));
        assert_eq!(percentile(u64::MAX, 0), Some(100));
    }

    #[test]
    fn quantiles_of_agoragames_board() {
        // Totals 1..5, ascending: position i holds i + 1.
        let at = |p: f64| {
            let q = quantile_at(5, p);
            interpolate(q.low as i64 + 1, q.high as i64 + 1, q.fraction)
        };
        assert_eq!(at(0.0), 1.0);
        assert_eq!(at(75.0), 4.0);
        assert_eq!(at(87.5), 4.5);
        assert_eq!(at(93.75), 4.75);
        assert_eq!(at(100.0), 5.0);
        assert_eq!(
            quantile_at(1, 50.0),
            QuantileAt {
                low: 0,
                high: 0,
                fraction: 0.0
            }
        );
        assert_eq!(interpolate(-3, 5, 0.25), -1.0);
    }

    #[test]
    fn count_bounds_read_as_zcount_reads_them() {
        use TotalBound::{Exclusive as Ex, Inclusive as In};
        let inf = f64::INFINITY;
        let all = Some((-(TOTAL_LIMIT - 1), TOTAL_LIMIT));
        assert_eq!(total_score_range(In(-inf), In(inf)), all);
        assert_eq!(total_score_range(Ex(-inf), Ex(inf)), all);
        assert_eq!(total_score_range(In(3.0), In(5.0)), Some((3, 6)));
        assert_eq!(total_score_range(Ex(3.0), Ex(5.0)), Some((4, 5)));
        assert_eq!(total_score_range(Ex(3.0), Ex(4.0)), None);
        assert_eq!(total_score_range(In(2.5), In(5.5)), Some((3, 6)));
        assert_eq!(total_score_range(Ex(-0.5), Ex(0.5)), Some((0, 1)));
        assert_eq!(total_score_range(In(5.0), In(3.0)), None);
        assert_eq!(total_score_range(In(inf), In(inf)), None);
        assert_eq!(total_score_range(In(-inf), In(-inf)), None);
        assert_eq!(total_score_range(In(1e300), In(inf)), None);
        assert_eq!(
            total_score_range(In(-1e300), In(-7.0)),
            Some((-(TOTAL_LIMIT - 1), -6))
        );
    }

    #[test]
    fn range_pages_of_a_total_band() {
        // Two members above the band, three in it.
        assert_eq!(range_positions(2, 3, 0, -1), Some((2, 4)));
        assert_eq!(range_positions(2, 3, 1, 1), Some((3, 3)));
        assert_eq!(range_positions(2, 3, 1, 10), Some((3, 4)));
        assert_eq!(range_positions(2, 3, 0, i64::MAX), Some((2, 4)));
        assert_eq!(range_positions(2, 3, 0, i64::MIN), Some((2, 4)));
        assert_eq!(range_positions(2, 3, 3, -1), None);
        assert_eq!(range_positions(2, 3, u64::MAX, 1), None);
        assert_eq!(range_positions(2, 3, 0, 0), None);
        assert_eq!(range_positions(7, 0, 0, -1), None);
    }

    #[test]
    fn among_orders_as_the_board_does() {
        let mut found: Vec<(f64, &[u8])> = vec![
            (5.25, b"b"),
            (7.5, b"a"),
            (5.25, b"c"),
            (-1.5, b"d"),
            (7.5, b"a"),
            (-0.0, b"e"),
            (0.0, b"f"),
        ];
        board_order(&mut found, Order::HighestFirst);
        let members: Vec<&[u8]> = found.iter().map(|(_, m)| *m).collect();
        // Equal scores: member descending; -0 ties with 0; a once.
        let expected: [&[u8]; 6] = [b"a", b"c", b"b", b"f", b"e", b"d"];
        assert_eq!(members, expected);
        // ASC: the exact reverse, ZRANGE's order.
        board_order(&mut found, Order::LowestFirst);
        let members: Vec<&[u8]> = found.iter().map(|(_, m)| *m).collect();
        let expected: [&[u8]; 6] = [b"d", b"e", b"f", b"b", b"c", b"a"];
        assert_eq!(members, expected);
    }

    #[test]
    fn a_race_board_ranks_the_lowest_time_first_and_first_come() {
        let asc = clock().ordered(Order::LowestFirst);
        // Totals near 2^16 tie-break to 16 ms: times a second apart, on
        // slot boundaries.
        let at = DEFAULT_EPOCH_MS + 16_000;
        let (ann, bob, cid) = (
            asc.encode(61_250, at).unwrap(),
            asc.encode(61_250, at + 1024).unwrap(),
            asc.encode(59_900, at + 2048).unwrap(),
        );
        // The fastest first, then the earlier of two equal times.
        assert!(cid < ann && ann < bob);
        assert_eq!(ann.floor(), 61_250.0);
        assert_eq!(asc.decode(bob).unwrap().reached_at_ms, at + 1024);
        // An integer score reads as reached at the window's start (it ranks
        // before zkit's entries of its total).
        assert_eq!(asc.decode(7.0).unwrap().reached_at_ms, DEFAULT_EPOCH_MS);
        assert_eq!(asc.decode(-7.0).unwrap().total, -7);
        assert_eq!(Order::LowestFirst.ascending_position(10, 0), 0);
        assert_eq!(Order::HighestFirst.ascending_position(10, 0), 9);
    }

    fn any_total() -> impl Strategy<Value = i64> {
        prop_oneof![
            -5000i64..5000,
            -(TOTAL_LIMIT - 1)..TOTAL_LIMIT,
            (0u32..52).prop_flat_map(|bits| {
                let lo = 1i64 << bits;
                (lo..lo.saturating_mul(2).min(TOTAL_LIMIT))
                    .prop_flat_map(|t| prop_oneof![Just(t), Just(-t)])
            }),
        ]
    }

    fn any_time() -> impl Strategy<Value = i64> {
        DEFAULT_EPOCH_MS..DEFAULT_EPOCH_MS + DEFAULT_SPAN_MS
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn floor_of_score_is_the_total(total in any_total(), at in any_time()) {
            let score = clock().encode(total, at).unwrap();
            prop_assert_eq!(score.floor() as i64, total);
            prop_assert!(score < total as f64 + 1.0);
        }

        #[test]
        fn decode_inverts_encode_within_one_slot(total in any_total(), at in any_time()) {
            let c = clock();
            let entry = c.decode(c.encode(total, at).unwrap()).unwrap();
            prop_assert_eq!(entry.total, total);
            prop_assert!(entry.reached_at_ms <= at);
            prop_assert!(((at - entry.reached_at_ms) as f64) < c.resolution_ms(total).max(1.0));
            // Re-encoding a decoded entry gives the identical score.
            prop_assert_eq!(c.encode(total, entry.reached_at_ms).unwrap(), c.encode(total, at).unwrap());
        }

        #[test]
        fn an_ascending_board_orders_lowest_first_and_first_come(
            a in any_total(), b in any_total(), ta in any_time(), tb in any_time(),
        ) {
            let asc = clock().ordered(Order::LowestFirst);
            let (sa, sb) = (asc.encode(a, ta).unwrap(), asc.encode(b, tb).unwrap());
            prop_assert_eq!(sa.floor() as i64, a);
            if a != b {
                prop_assert_eq!(a < b, sa < sb);
            } else if ta < tb {
                prop_assert!(sa <= sb);
            }
            let entry = asc.decode(sa).unwrap();
            prop_assert_eq!(entry.total, a);
            prop_assert!(entry.reached_at_ms <= ta);
            prop_assert!(((ta - entry.reached_at_ms) as f64) < asc.resolution_ms(a).max(1.0));
            prop_assert_eq!(asc.encode(a, entry.reached_at_ms).unwrap(), sa);
        }

        #[test]
        fn higher_total_always_scores_higher(a in any_total(), b in any_total(), ta in any_time(), tb in any_time()) {
            prop_assume!(a != b);
            let c = clock();
            let (sa, sb) = (c.encode(a, ta).unwrap(), c.encode(b, tb).unwrap());
            prop_assert_eq!(a < b, sa < sb);
        }

        #[test]
        fn earlier_never_ranks_lower_at_equal_total(total in any_total(), t1 in any_time(), t2 in any_time()) {
            let c = clock();
            let (s1, s2) = (c.encode(total, t1).unwrap(), c.encode(total, t2).unwrap());
            if t1 < t2 { prop_assert!(s1 >= s2); }
            // Times one slot apart or more never tie.
            if (t2 - t1) as f64 >= c.resolution_ms(total) { prop_assert!(s1 > s2); }
        }

        #[test]
        fn gt_never_lowers_and_lt_never_raises(
            previous in proptest::option::of(any_total()), new in any_total(), higher: bool,
        ) {
            let condition = if higher { SetCondition::Higher } else { SetCondition::Lower };
            let after = next_total(previous, TotalUpdate::Set(new, condition)).unwrap();
            let Some(old) = previous else {
                prop_assert_eq!(after, TotalAfter { total: new, changed: true });
                return Ok(());
            };
            let better = if higher { new.max(old) } else { new.min(old) };
            prop_assert_eq!(after.total, better);
            prop_assert_eq!(after.changed, better != old);
        }

        #[test]
        fn shared_ranks_of_any_page_match_a_count_per_entry(
            mut board in proptest::collection::vec(-4i64..4, 1..40),
            start in 0usize..40,
            len in 0usize..40,
        ) {
            // Few distinct totals, so runs of ties start and end inside pages.
            board.sort_unstable_by(|a, b| b.cmp(a));
            let start = start % board.len();
            let page = &board[start..(start + len).min(board.len())];
            let higher = |total: i64| board.iter().filter(|t| **t > total).count() as i64;
            let expected: Vec<i64> = page.iter().map(|t| 1 + higher(*t)).collect();
            let first_shared = page.first().map_or(0, |t| 1 + higher(*t));
            prop_assert_eq!(shared_ranks(start as i64 + 1, first_shared, page), expected);
        }

        #[test]
        fn dense_ranks_of_any_page_match_a_count_of_distinct_totals(
            mut board in proptest::collection::vec(-4i64..4, 1..40),
            start in 0usize..40,
            len in 0usize..40,
        ) {
            board.sort_unstable_by(|a, b| b.cmp(a));
            let start = start % board.len();
            let page = &board[start..(start + len).min(board.len())];
            let mut distinct = board.clone();
            distinct.dedup();
            let dense = |total: i64| 1 + distinct.iter().filter(|t| **t > total).count() as i64;
            let expected: Vec<i64> = page.iter().map(|t| dense(*t)).collect();
            let first_dense = page.first().map_or(0, |t| dense(*t));
            prop_assert_eq!(dense_ranks(first_dense, page), expected);
        }

        #[test]
        fn scores_round_trip_through_their_text(total in any_total(), at in any_time()) {
            // Replication sends scores as Rust's shortest text; Redis parses it back.
            let score = clock().encode(total, at).unwrap();
            prop_assert_eq!(score.to_string().parse::<f64>().unwrap(), score);
        }

        #[test]
        fn percentile_matches_a_count_of_the_members_below(
            board in proptest::collection::vec((-4i64..4, any_time()), 1..60),
            pick in any::<proptest::sample::Index>(),
        ) {
            // Few distinct totals: ties, negative totals; first-come order.
            // The board in ZREVRANGE's order: score, then member, descending.
            let c = clock();
            let mut entries: Vec<(f64, usize)> = board
                .iter()
                .enumerate()
                .map(|(member, (t, at))| (c.encode(*t, *at).unwrap(), member))
                .collect();
            entries.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
            let n = entries.len();
            let rank0 = pick.index(n);
            let picked = entries[rank0];
            // The members ranked below it, counted one by one.
            let below = entries
                .iter()
                .filter(|e| e.0 < picked.0 || (e.0 == picked.0 && e.1 < picked.1))
                .count();
            // The smallest whole percent that is at least their share.
            let expected = (0..=100).find(|p| p * n >= below * 100).unwrap();
            prop_assert_eq!(percentile(n as u64, rank0 as u64), Some(expected as i64));
        }

        #[test]
        fn quantile_lies_between_its_neighbours(
            mut totals in proptest::collection::vec(-1000i64..1000, 1..60),
            percentile in 0.0f64..=100.0,
            other in 0.0f64..=100.0,
        ) {
            totals.sort_unstable();
            let n = totals.len() as u64;
            let value = |p: f64| {
                let q = quantile_at(n, p);
                interpolate(totals[q.low as usize], totals[q.high as usize], q.fraction)
            };
            let q = quantile_at(n, percentile);
            let exact = (n - 1) as f64 * percentile / 100.0;
            prop_assert_eq!(q.low as f64, exact.floor());
            prop_assert_eq!(q.high as f64, exact.ceil());
            prop_assert!(q.high < n && q.high - q.low <= 1);
            prop_assert!((0.0..1.0).contains(&q.fraction));
            let (lo, hi) = (totals[q.low as usize] as f64, totals[q.high as usize] as f64);
            prop_assert!(lo <= value(percentile) && value(percentile) <= hi);
            // Higher percentiles never give lower totals.
            if percentile <= other {
                prop_assert!(value(percentile) <= value(other));
            }
            prop_assert_eq!(value(0.0), totals[0] as f64);
            prop_assert_eq!(value(100.0), *totals.last().unwrap() as f64);
        }

        #[test]
        fn count_range_holds_exactly_the_totals_between_the_bounds(
            board in proptest::collection::vec((-6i64..6, any_time()), 0..40),
            min in prop_oneof![(-80i64..80).prop_map(|x| x as f64 / 10.0), Just(f64::INFINITY), Just(f64::NEG_INFINITY)],
            max in prop_oneof![(-80i64..80).prop_map(|x| x as f64 / 10.0), Just(f64::INFINITY), Just(f64::NEG_INFINITY)],
            min_open: bool,
            max_open: bool,
        ) {
            let c = clock();
            let bound = |x: f64, open: bool| if open { TotalBound::Exclusive(x) } else { TotalBound::Inclusive(x) };
            let within = |t: i64| {
                let t = t as f64;
                (if min_open { t > min } else { t >= min }) && (if max_open { t < max } else { t <= max })
            };
            let expected = board.iter().filter(|(t, _)| within(*t)).count();
            let counted = match total_score_range(bound(min, min_open), bound(max, max_open)) {
                None => 0,
                Some((low, high)) => board
                    .iter()
                    .map(|(t, at)| c.encode(*t, *at).unwrap())
                    .filter(|s| *s >= low as f64 && *s < high as f64)
                    .count(),
            };
            prop_assert_eq!(counted, expected);
        }
        #[test]
        fn range_pages_match_a_walk_of_the_board(
            board in proptest::collection::vec((-6i64..6, 0i64..4), 0..60),
            min in prop_oneof![(-80i64..80).prop_map(|x| x as f64 / 10.0), Just(f64::INFINITY), Just(f64::NEG_INFINITY)],
            max in prop_oneof![(-80i64..80).prop_map(|x| x as f64 / 10.0), Just(f64::INFINITY), Just(f64::NEG_INFINITY)],
            min_open: bool,
            max_open: bool,
            offset in 0u64..70,
            count in -2i64..70,
        ) {
            // Few totals and few times: runs of ties, tied scores, negative
            // totals; the board in ZREVRANGE's order.
            let c = clock();
            let mut entries: Vec<(f64, usize, i64)> = board
                .iter()
                .enumerate()
                .map(|(member, (t, minute))| (c.encode(*t, DEFAULT_EPOCH_MS + minute * 60_000).unwrap(), member, *t))
                .collect();
            entries.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
            let bound = |x: f64, open: bool| if open { TotalBound::Exclusive(x) } else { TotalBound::Inclusive(x) };
            let within = |t: i64| {
                let t = t as f64;
                (if min_open { t > min } else { t >= min }) && (if max_open { t < max } else { t <= max })
            };
            let higher = |total: i64| entries.iter().filter(|e| e.2 > total).count() as i64;
            // The model: every member in the band, walked from the top with
            // its board-wide ranks, then the LIMIT.
            let take = usize::try_from(count).unwrap_or(usize::MAX);
            let expected: Vec<(i64, i64, usize)> = entries
                .iter()
                .enumerate()
                .filter(|(_, e)| within(e.2))
                .map(|(i, e)| (i as i64 + 1, 1 + higher(e.2), e.1))
                .skip(offset as usize)
                .take(take)
                .collect();
            // The command's way: two counts, positions, one shared count.
            let page = total_score_range(bound(min, min_open), bound(max, max_open)).and_then(|(low, high)| {
                let above = entries.iter().filter(|e| e.0 >= high as f64).count() as u64;
                let inside = entries.iter().filter(|e| e.0 >= low as f64 && e.0 < high as f64).count() as u64;
                range_positions(above, inside, offset, count)
            });
            let got: Vec<(i64, i64, usize)> = match page {
                None => Vec::new(),
                Some((start, stop)) => {
                    let rows = &entries[start as usize..=stop as usize];
                    let totals: Vec<i64> = rows.iter().map(|e| e.2).collect();
                    let shared = shared_ranks(start + 1, 1 + higher(totals[0]), &totals);
                    rows.iter().enumerate().map(|(i, e)| (start + 1 + i as i64, shared[i], e.1)).collect()
                }
            };
            prop_assert_eq!(got, expected);
        }

        #[test]
        fn among_ranks_match_the_board_filtered_to_the_set(
            board in proptest::collection::vec((-4i64..4, 0i64..3), 0..40),
            given in proptest::collection::vec(0usize..50, 1..30),
        ) {
            // Members m0..m39 on the board; some given ones are not on it,
            // some are given twice.
            let c = clock();
            let names: Vec<String> = (0..50).map(|i| format!("m{i}")).collect();
            let scores: Vec<f64> = board
                .iter()
                .map(|(t, minute)| c.encode(*t, DEFAULT_EPOCH_MS + minute * 60_000).unwrap())
                .collect();
            let mut found: Vec<(f64, &[u8])> = given
                .iter()
                .filter(|&&m| m < scores.len())
                .map(|&m| (scores[m], names[m].as_bytes()))
                .collect();
            board_order(&mut found, Order::HighestFirst);
            // The model: the whole board in ZREVRANGE's order, kept where given.
            let mut all: Vec<(f64, &[u8])> = scores.iter().zip(&names).map(|(s, n)| (*s, n.as_bytes())).collect();
            all.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(a.1)));
            all.retain(|(_, member)| given.iter().any(|&m| names[m].as_bytes() == *member));
            prop_assert_eq!(&found, &all);
            // Shared ranks within the set: 1 + the set's members with a
            // higher total.
            let totals: Vec<i64> = found.iter().map(|(s, _)| c.decode(*s).unwrap().total).collect();
            let expected: Vec<i64> = totals
                .iter()
                .map(|t| 1 + totals.iter().filter(|u| *u > t).count() as i64)
                .collect();
            prop_assert_eq!(shared_ranks(1, 1, &totals), expected);
        }
    }
}
