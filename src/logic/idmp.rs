//! Exactly-once writes (`IDMP seen-key event-id`): the decisions behind a
//! seen-key, a sorted set of event ids scored by the unix ms at which each
//! stops being remembered.
//!
//! A write that names an event id applies only if the id is not remembered;
//! applying it remembers the id until `now + retention`. Ids whose expiry has
//! passed are forgotten as the key is written (never by a scan), and a key
//! never holds more than the configured count: past it, the ids closest to
//! expiring are forgotten first.

use std::fmt;

use super::clock::{deadline, MAX_DURATION_MS};

/// How long an applied event id is remembered by default: 24 hours.
pub const DEFAULT_RETAIN_MS: i64 = 24 * 60 * 60 * 1000;

/// The most event ids one seen-key holds by default.
pub const DEFAULT_MAX_IDS: i64 = 1_000_000;

/// The upper bound of the `idmp-max-ids` config.
pub const MAX_IDS_LIMIT: i64 = 1_000_000_000;

/// Whether an event id was applied within its retention.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// Not remembered: the write applies and the id is recorded.
    New,
    /// Remembered: the write changes nothing.
    Repeat,
}

impl Seen {
    /// The element a reply gains: 0 = applied now, 1 = already applied.
    pub fn reply_flag(self) -> i64 {
        match self {
            Seen::New => 0,
            Seen::Repeat => 1,
        }
    }
}

/// A refused IDMP clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdmpError {
    /// The seen-key is also a key the command writes its data to.
    SeenKeyIsWritten,
    /// `RETAIN` was given without `IDMP`.
    RetainWithoutIdmp,
}

impl fmt::Display for IdmpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdmpError::SeenKeyIsWritten => f.write_str(
                "the IDMP seen-key must be a key of its own, not one the command writes",
            ),
            IdmpError::RetainWithoutIdmp => {
                f.write_str("RETAIN sets how long an IDMP event id is remembered: give IDMP too")
            }
        }
    }
}

/// An id scored `expiry` (`None`: absent) is remembered at `now_ms` while its
/// expiry is later than now; at or before now it is as good as trimmed.
pub fn seen(expiry: Option<f64>, now_ms: i64) -> Seen {
    match expiry {
        Some(expiry) if expiry > now_ms as f64 => Seen::Repeat,
        _ => Seen::New,
    }
}

/// The expiry score of an id applied at `now_ms` and kept `retain_ms`
/// (`1..=MAX_DURATION_MS`, checked by the caller); `None` when the sum
/// leaves the exact range of a double.
pub fn expiry(now_ms: i64, retain_ms: i64) -> Option<i64> {
    deadline(now_ms, retain_ms)
}

/// Whether `retain_ms` is a retention a call may ask for.
pub fn valid_retention(retain_ms: i64) -> bool {
    (1..=MAX_DURATION_MS).contains(&retain_ms)
}

/// The score at or below which ids are forgotten when the key is written.
pub fn trim_cutoff(now_ms: i64) -> i64 {
    now_ms
}

/// How many ids to forget, closest to expiring first, so a key holding
/// `len` ids (the new one included) keeps at most `max_ids`. The new id is
/// never among them while `max_ids >= 1`.
pub fn excess(len: usize, max_ids: usize) -> usize {
    len.saturating_sub(max_ids.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const NOW: i64 = 1_718_000_000_000;

    #[test]
    fn an_id_is_a_repeat_only_before_its_expiry() {
        assert_eq!(seen(None, NOW), Seen::New);
        assert_eq!(seen(Some((NOW + 1) as f64), NOW), Seen::Repeat);
        // At its expiry the id is forgotten, as the trim forgets it.
        assert_eq!(seen(Some(NOW as f64), NOW), Seen::New);
        assert_eq!(seen(Some((NOW - 5) as f64), NOW), Seen::New);
        assert!(((NOW) as f64) <= trim_cutoff(NOW) as f64);
        assert_eq!(Seen::New.reply_flag(), 0);
        assert_eq!(Seen::Repeat.reply_flag(), 1);
    }

    #[test]
    fn retention_is_bounded_like_every_duration() {
        assert!(valid_retention(1));
        assert!(valid_retention(DEFAULT_RETAIN_MS));
        assert!(valid_retention(MAX_DURATION_MS));
        assert!(!valid_retention(0));
        assert!(!valid_retention(-1));
        assert!(!valid_retention(MAX_DURATION_MS + 1));
        assert_eq!(
            expiry(NOW, DEFAULT_RETAIN_MS),
            Some(NOW + 86_400_000),
            "24 hours"
        );
        assert_eq!(expiry(1 << 53, 1), None);
    }

    #[test]
    fn the_count_bound_forgets_the_oldest_but_never_the_new_id() {
        assert_eq!(excess(3, 5), 0);
        assert_eq!(excess(5, 5), 0);
        assert_eq!(excess(6, 5), 1);
        assert_eq!(excess(10, 1), 9);
        // A bound of 0 would forget the id just applied: it keeps one.
        assert_eq!(excess(4, 0), 3);
    }

    proptest! {
        #[test]
        fn a_recorded_id_repeats_for_exactly_its_retention(
            retain in 1..=MAX_DURATION_MS,
            later in 0..=MAX_DURATION_MS,
        ) {
            let at = expiry(NOW, retain).unwrap();
            let verdict = seen(Some(at as f64), NOW + later);
            prop_assert_eq!(verdict == Seen::Repeat, later < retain);
            // Whatever the trim removes is no longer a repeat.
            if at <= trim_cutoff(NOW + later) {
                prop_assert_eq!(verdict, Seen::New);
            }
        }

        #[test]
        fn excess_keeps_the_bound(len in 0usize..10_000, max in 0usize..10_000) {
            let kept = len - excess(len, max);
            prop_assert!(kept <= max.max(1));
            prop_assert!(kept == len || kept == max.max(1));
        }
    }
}
