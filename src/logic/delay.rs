//! Delayed-task queue arithmetic: which tasks are due, and when a blocked
//! poll has to look again.
//!
//! A task's score is its due time in unix ms; it is due once the server clock
//! reaches it (`score <= now`), so `-inf` means "now" and `+inf` "never".

/// The highest score that is due at `now_ms` (inclusive). Exact: clocks stay
/// far below 2^53.
pub fn due_bound(now_ms: i64) -> f64 {
    now_ms as f64
}

/// A blocked poll re-checks at least this often even when its earliest task
/// is further away, so timer periods stay small integers (about 24.9 days).
pub const MAX_WAKE_DELAY_MS: i64 = 1 << 31;

/// The unix ms at which a blocked poll must look again, when the earliest
/// task of its queue is scored `earliest` and is not due at `now_ms`: the
/// first whole millisecond at which it is due, but at least 1 ms and at most
/// [`MAX_WAKE_DELAY_MS`] away.
pub fn wake_at_ms(earliest: f64, now_ms: i64) -> i64 {
    let latest = now_ms.saturating_add(MAX_WAKE_DELAY_MS);
    if earliest >= latest as f64 {
        return latest;
    }
    (earliest.ceil() as i64).max(now_ms.saturating_add(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn due_is_at_or_before_now() {
        let now = 1_718_000_000_000;
        assert!(1_718_000_000_000.0 <= due_bound(now));
        assert!(1_718_000_000_000.5 > due_bound(now));
        assert!(f64::NEG_INFINITY <= due_bound(now));
    }

    #[test]
    fn wake_times() {
        let now = 1_000;
        assert_eq!(wake_at_ms(1_500.0, now), 1_500);
        assert_eq!(wake_at_ms(1_000.25, now), 1_001);
        assert_eq!(wake_at_ms(f64::INFINITY, now), now + MAX_WAKE_DELAY_MS);
        assert_eq!(wake_at_ms(1e300, now), now + MAX_WAKE_DELAY_MS);
        // A task that is due after all (a caller's race) is re-checked at once.
        assert_eq!(wake_at_ms(500.0, now), now + 1);
    }

    proptest! {
        #[test]
        fn the_task_is_due_at_its_wake_time_unless_capped(
            now in 0i64..(1 << 45), ahead in 0.0f64..1e10,
        ) {
            let earliest = now as f64 + ahead;
            let at = wake_at_ms(earliest, now);
            prop_assert!(at > now && at - now <= MAX_WAKE_DELAY_MS);
            if at - now < MAX_WAKE_DELAY_MS && ahead >= 1.0 {
                prop_assert!(earliest <= due_bound(at));
                prop_assert!(earliest > due_bound(at - 1));
            }
        }
    }
}
