//! Exact sliding-window limits over a log of accepted hits.
//!
//! The log is a sorted set with one member per accepted unit of cost, scored
//! by the server time of its hit in unix ms. A hit at `now` counts the entries
//! scored above `now - window`: an entry logged at `t` counts against the hits
//! at `t .. t + window - 1` and no others, so "at most `limit` in any `window`
//! ms" holds exactly, with no smoothing and no bucket edges.

/// The largest limit: the log holds up to `limit` members per key, and one
/// call may add up to `limit` of them. Beyond a million hits per window a
/// per-hit log is the wrong tool (use a counter or a GCRA limiter).
pub const MAX_LIMIT: i64 = 1_000_000;

/// Entries scored at or below this have left the window of a hit at `now_ms`.
pub fn cutoff(now_ms: i64, window_ms: i64) -> i64 {
    now_ms.saturating_sub(window_ms)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// The hit fits: log `cost` more entries.
    Allowed,
    /// The hit does not fit until the `blocking` oldest live entries have
    /// left the window (1 <= blocking <= live).
    Refused { blocking: u64 },
}

/// Whether a hit costing `cost` fits among `live` entries under `limit`.
/// `cost <= limit` (checked when parsing), so a refused hit always waits for
/// entries that exist.
pub fn decide(live: u64, cost: u64, limit: u64) -> Decision {
    match (live + cost).checked_sub(limit) {
        Some(over) if over > 0 => Decision::Refused { blocking: over },
        _ => Decision::Allowed,
    }
}

/// Milliseconds from `now_ms` until the entry scored `score` has left the
/// window, i.e. until a hit waiting for it would be accepted; at least 1.
pub fn retry_after_ms(score: f64, window_ms: i64, now_ms: i64) -> i64 {
    // The entry leaves at the first whole millisecond `t` with
    // `t - window >= score`. Casting saturates for absurd scores.
    let leaves_at = (score + window_ms as f64).ceil();
    (leaves_at - now_ms as f64).max(1.0) as i64
}

/// When the whole log may expire: the moment its newest entry (scored
/// `newest`, or the hit at `now_ms` if that is later) leaves the window.
pub fn expire_at(now_ms: i64, newest: f64, window_ms: i64) -> i64 {
    let newest_ms = if newest > now_ms as f64 {
        newest.ceil().min((1u64 << 53) as f64) as i64
    } else {
        now_ms
    };
    newest_ms.saturating_add(window_ms)
}

/// The member of the `seq`-th unit logged at `now_ms`: `<now_ms>-<seq>`.
/// Units of one millisecond differ by `seq`, units of different milliseconds
/// by the prefix, so a name is never reused while its entry is live.
pub fn hit_member(now_ms: i64, seq: u64) -> Vec<u8> {
    let mut name = Vec::with_capacity(24);
    name.extend_from_slice(itoa::Buffer::new().format(now_ms).as_bytes());
    name.push(b'-');
    name.extend_from_slice(itoa::Buffer::new().format(seq).as_bytes());
    name
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn hits_fit_up_to_the_limit() {
        assert_eq!(decide(0, 1, 1), Decision::Allowed);
        assert_eq!(decide(4, 1, 5), Decision::Allowed);
        assert_eq!(decide(5, 1, 5), Decision::Refused { blocking: 1 });
        assert_eq!(decide(3, 3, 5), Decision::Refused { blocking: 1 });
        assert_eq!(decide(5, 5, 5), Decision::Refused { blocking: 5 });
        // A limit lowered below what the log holds still waits for entries.
        assert_eq!(decide(10, 1, 5), Decision::Refused { blocking: 6 });
    }

    #[test]
    fn an_entry_counts_for_exactly_window_ms() {
        let (t, window) = (1_000_000, 1_000);
        // Hits at t .. t + 999 see the entry; the hit at t + 1000 does not.
        assert!((t as f64) > cutoff(t + 999, window) as f64);
        assert!((t as f64) <= cutoff(t + 1_000, window) as f64);
        assert_eq!(retry_after_ms(t as f64, window, t), 1_000);
        assert_eq!(retry_after_ms(t as f64, window, t + 999), 1);
        // Never less than 1, even for an entry already out of the window.
        assert_eq!(retry_after_ms(t as f64, window, t + 5_000), 1);
        assert_eq!(retry_after_ms(t as f64 + 0.25, window, t), 1_001);
        assert_eq!(retry_after_ms(f64::INFINITY, window, t), i64::MAX);
    }

    #[test]
    fn the_log_expires_when_its_newest_entry_leaves() {
        assert_eq!(expire_at(5_000, 4_000.0, 1_000), 6_000);
        assert_eq!(expire_at(5_000, 7_000.5, 1_000), 8_001);
        assert_eq!(expire_at(5_000, f64::INFINITY, 1_000), (1 << 53) + 1_000);
    }

    #[test]
    fn member_names() {
        assert_eq!(hit_member(1_718_000_000_000, 0), b"1718000000000-0");
        assert_eq!(hit_member(5, 12), b"5-12");
    }

    proptest! {
        #[test]
        fn allowed_hits_never_exceed_the_limit(
            live in 0u64..2_000, cost in 1u64..1_000, limit in 1u64..1_000,
        ) {
            prop_assume!(cost <= limit);
            match decide(live, cost, limit) {
                Decision::Allowed => prop_assert!(live + cost <= limit),
                Decision::Refused { blocking } => {
                    prop_assert!(live + cost > limit);
                    prop_assert!((1..=live).contains(&blocking));
                    // Once the blocking entries are gone, the hit fits exactly.
                    prop_assert_eq!(decide(live - blocking, cost, limit), Decision::Allowed);
                }
            }
        }

        #[test]
        fn retry_after_lands_on_the_first_accepting_millisecond(
            t in 0i64..(1 << 45), window in 1i64..1_000_000, wait in 0i64..1_000_000,
        ) {
            let now = t + wait.min(window - 1);
            let retry = retry_after_ms(t as f64, window, now);
            // At now + retry the entry is out; one millisecond earlier it was in.
            prop_assert!((t as f64) <= cutoff(now + retry, window) as f64);
            prop_assert!((t as f64) > cutoff(now + retry - 1, window) as f64);
        }

        #[test]
        fn names_of_different_units_differ(
            a in 0i64..(1 << 50), b in 0i64..(1 << 50), i in 0u64..10_000, j in 0u64..10_000,
        ) {
            prop_assume!((a, i) != (b, j));
            prop_assert_ne!(hit_member(a, i), hit_member(b, j));
        }
    }
}
