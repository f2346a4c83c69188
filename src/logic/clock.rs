//! Durations added to the server clock (windows, leases, TTLs): one bound for
//! all of them, so every deadline zkit writes is an exact integer in a double
//! score and a valid `PEXPIREAT` time.

/// The longest duration a command accepts: 100 years of milliseconds. Any
/// plausible clock plus this stays far below 2^53, where doubles stop being
/// exact integers.
pub const MAX_DURATION_MS: i64 = 3_155_760_000_000;

/// `now_ms + duration_ms`, or `None` when the duration is not in
/// `1..=MAX_DURATION_MS` or the sum leaves the exact range of a double.
pub fn deadline(now_ms: i64, duration_ms: i64) -> Option<i64> {
    if !(1..=MAX_DURATION_MS).contains(&duration_ms) {
        return None;
    }
    now_ms
        .checked_add(duration_ms)
        .filter(|at| (0..=1 << 53).contains(at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn deadlines_stay_exact() {
        let now = 1_718_000_000_000;
        assert_eq!(deadline(now, 1), Some(now + 1));
        assert_eq!(deadline(now, MAX_DURATION_MS), Some(now + MAX_DURATION_MS));
        assert_eq!(deadline(now, 0), None);
        assert_eq!(deadline(now, -5), None);
        assert_eq!(deadline(now, MAX_DURATION_MS + 1), None);
        assert_eq!(deadline(i64::MAX, 1), None);
        assert_eq!(deadline(1 << 53, 1), None);
    }

    proptest! {
        #[test]
        fn a_deadline_is_exact_in_a_double(now in 0i64..(1 << 53), d in any::<i64>()) {
            if let Some(at) = deadline(now, d) {
                prop_assert_eq!(at - now, d);
                prop_assert_eq!(at as f64 as i64, at);
            }
        }
    }
}
