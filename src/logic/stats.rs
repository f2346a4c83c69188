//! The arithmetic of the stats commands (DELAY.STATS, RANK.STATS,
//! RATE.STATS): how long a due task has waited, which position holds a
//! quantile. Each figure is read with a few O(log N) lookups, never a walk
//! over the key.

/// The quantiles RANK.STATS reports, in per mille, with their field names:
/// the spread of totals from the median up to the top percent.
pub const BOARD_QUANTILES: [(u32, &str); 3] =
    [(500, "p50-total"), (900, "p90-total"), (990, "p99-total")];

/// The 0-based ascending position of the `per_mille` quantile among `n`
/// members (n > 0), by the nearest-rank method: the smallest value with at
/// least that share of the members at or below it, so p50 of 4 members is
/// the 2nd lowest and p99 of 10 is the highest.
pub fn quantile_position(n: u64, per_mille: u32) -> u64 {
    debug_assert!(n > 0 && (1..=1000).contains(&per_mille));
    let at_or_below = (u128::from(n) * u128::from(per_mille)).div_ceil(1000) as u64;
    at_or_below.clamp(1, n) - 1
}

/// How long the earliest task of a queue, scored `earliest`, has been due at
/// `now_ms`: 0 when it is not due yet. A task scored below 0 (`-inf` means
/// "now") counts as due since the unix epoch, so the age is a true lower
/// bound and never infinite.
pub fn due_age_ms(earliest: f64, now_ms: i64) -> i64 {
    if earliest >= (now_ms + 1) as f64 {
        return 0;
    }
    // Due since its millisecond (`logic::delay::due_bound`); `earliest` is
    // below `now_ms + 1` here, so the cast cannot overflow.
    now_ms - earliest.max(0.0).floor() as i64
}

/// The next due time to report for a score above now: a whole millisecond
/// (the first at which it is due: its own, `logic::delay::due_bound`), or
/// `None` for `+inf` ("never") and scores past any unix-ms clock.
pub fn due_time_ms(score: f64) -> Option<i64> {
    (score.is_finite() && score < (1u64 << 53) as f64).then(|| score.floor() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn quantiles_take_the_nearest_rank() {
        assert_eq!(quantile_position(1, 500), 0);
        assert_eq!(quantile_position(1, 990), 0);
        assert_eq!(quantile_position(4, 500), 1);
        assert_eq!(quantile_position(5, 500), 2);
        assert_eq!(quantile_position(10, 900), 8);
        assert_eq!(quantile_position(10, 990), 9);
        assert_eq!(quantile_position(1000, 990), 989);
        assert_eq!(quantile_position(u64::MAX, 1000), u64::MAX - 1);
    }

    #[test]
    fn due_ages_are_zero_until_due_and_finite_after() {
        let now = 1_718_000_000_000;
        assert_eq!(due_age_ms((now + 5) as f64, now), 0);
        assert_eq!(due_age_ms(now as f64, now), 0);
        assert_eq!(due_age_ms((now - 1500) as f64, now), 1500);
        // A fraction of a millisecond: due from its own.
        assert_eq!(due_age_ms((now - 1500) as f64 + 0.5, now), 1500);
        assert_eq!(due_age_ms(now as f64 + 0.5, now), 0);
        assert_eq!(due_age_ms(f64::NEG_INFINITY, now), now);
        assert_eq!(due_age_ms(-7.0, now), now);
    }

    #[test]
    fn due_times_are_whole_milliseconds_or_never() {
        assert_eq!(due_time_ms(1_718_000_000_000.25), Some(1_718_000_000_000));
        assert_eq!(due_time_ms(f64::INFINITY), None);
        assert_eq!(due_time_ms(1e300), None);
    }

    proptest! {
        /// The nearest-rank definition itself: at least the share of the
        /// members is at or below the position, and not one position fewer.
        #[test]
        fn a_quantile_position_is_the_nearest_rank(n in 1u64..1_000_000, q in 1u32..=1000) {
            let p = quantile_position(n, q);
            prop_assert!(p < n);
            prop_assert!((p + 1) as u128 * 1000 >= n as u128 * q as u128);
            prop_assert!(p == 0 || (p as u128) * 1000 < n as u128 * q as u128);
        }
    }
}
