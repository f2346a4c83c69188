//! Groups (tenants) inside one queue: a task may belong to a group, and a
//! group may have a cap on its tasks in flight and a rate limit on its
//! claims. A claim skips the due tasks of a group at its limits and takes
//! the next ones, so one busy tenant does not hold back the others.
//!
//! A group's state is in the queue's DATA hash: `c:<group>` its limits
//! (`<cap> <limit> <window-ms>`, 0 for none), `i:<group>` its tasks in flight,
//! `h:<group>` the claim times (unix ms) inside its rate window, oldest first,
//! and `capped` how many groups are at their cap.
//!
//! Pure arithmetic here; `commands/groups.rs` reads and writes the hash.

use crate::logic::rate::{cutoff, Limit};

/// The largest rate limit a group takes: its log of claim times is one
/// field, rewritten by each claim.
pub const MAX_GROUP_RATE: i64 = 10_000;

/// A group's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limits {
    /// At most this many of its tasks in flight (0: no cap).
    pub cap: u64,
    /// At most `limit` claims in any `window_ms` (none: no rate limit).
    pub rate: Option<Limit>,
}

impl Limits {
    /// As the DATA hash keeps them: `<cap> <limit> <window-ms>`.
    pub fn text(&self) -> String {
        let (limit, window) = self.rate.map_or((0, 0), |r| (r.limit, r.window_ms));
        format!("{} {limit} {window}", self.cap)
    }

    /// What [`Limits::text`] wrote; no limits for anything else.
    pub fn parse(text: &[u8]) -> Limits {
        let numbers: Vec<i64> = std::str::from_utf8(text)
            .unwrap_or("")
            .split(' ')
            .filter_map(|n| n.parse().ok())
            .collect();
        match numbers[..] {
            [cap, limit, window_ms] if cap >= 0 && limit >= 0 && window_ms >= 0 => Limits {
                cap: cap as u64,
                rate: (limit > 0 && window_ms > 0).then_some(Limit {
                    window_ms,
                    limit: limit as u64,
                }),
            },
            _ => Limits::default(),
        }
    }

    pub fn is_none(&self) -> bool {
        self.cap == 0 && self.rate.is_none()
    }
}

/// A group's claim times as the DATA hash keeps them: unix ms, oldest first,
/// separated by spaces.
pub fn parse_log(text: &[u8]) -> Vec<i64> {
    std::str::from_utf8(text)
        .unwrap_or("")
        .split(' ')
        .filter_map(|n| n.parse().ok())
        .collect()
}

pub fn log_text(log: &[i64]) -> String {
    let mut text = String::with_capacity(log.len() * 14);
    for (i, at) in log.iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(itoa::Buffer::new().format(*at));
    }
    text
}

/// What one claim knows of a group: its limits and use when the claim
/// started, and what the claim has taken of it so far.
#[derive(Debug, Clone, PartialEq)]
pub struct Share {
    pub limits: Limits,
    pub in_flight: u64,
    /// Claim times still inside the rate window at the claim's now.
    pub log: Vec<i64>,
    /// Tasks this claim took of the group (not yet written).
    pub taken: u64,
    /// Of those, tasks that entered flight (a redelivery was already there).
    pub entered: u64,
}

impl Share {
    /// A group's share at `now_ms`, its log cut to the window.
    pub fn new(limits: Limits, in_flight: u64, mut log: Vec<i64>, now_ms: i64) -> Share {
        if let Some(rate) = limits.rate {
            let oldest_kept = cutoff(now_ms, rate.window_ms);
            log.retain(|&at| at > oldest_kept);
        }
        Share {
            limits,
            in_flight,
            log,
            taken: 0,
            entered: 0,
        }
    }

    /// Whether the claim may take one more task of the group: within its
    /// rate window, and when it `enters` flight (a leased claim from the
    /// queue), within its cap. Counts it when it may.
    pub fn take(&mut self, enters: bool) -> bool {
        let cap = self.limits.cap;
        let within_cap = !enters || cap == 0 || self.in_flight + self.entered < cap;
        let within_rate = self
            .limits
            .rate
            .is_none_or(|rate| self.log.len() as u64 + self.taken < rate.limit);
        if within_cap && within_rate {
            self.taken += 1;
            self.entered += u64::from(enters);
            true
        } else {
            false
        }
    }

    /// Whether the group is at its cap now (with what this claim took).
    pub fn is_capped(&self) -> bool {
        is_at_cap(self.in_flight + self.entered, self.limits.cap)
    }

    /// Whether its rate window is full now (with what this claim took).
    pub fn is_rate_limited(&self) -> bool {
        self.limits
            .rate
            .is_some_and(|rate| self.log.len() as u64 + self.taken >= rate.limit)
    }

    /// When the rate window has room again (unix ms), if it is full.
    pub fn room_at(&self) -> Option<i64> {
        let rate = self.limits.rate?;
        if !self.is_rate_limited() || self.taken > 0 {
            return None;
        }
        // The oldest entry that must leave for one more claim to fit.
        let over = (self.log.len() as u64 + 1).saturating_sub(rate.limit) as usize;
        let leaving = *self.log.get(over.saturating_sub(1))?;
        Some(leaving + rate.window_ms)
    }

    /// The log after the claim: the window's entries and one per task taken
    /// at `now_ms`.
    pub fn log_after(&self, now_ms: i64) -> Vec<i64> {
        let mut log = self.log.clone();
        log.extend(std::iter::repeat_n(now_ms, self.taken as usize));
        log
    }
}

/// Whether `in_flight` tasks hold a group at its cap (0: no cap).
pub fn is_at_cap(in_flight: u64, cap: u64) -> bool {
    cap > 0 && in_flight >= cap
}

/// A group's in-flight count after one of its tasks left flight, and
/// whether that took it off its cap.
pub fn released(in_flight: u64, cap: u64) -> (u64, bool) {
    let after = in_flight.saturating_sub(1);
    (after, is_at_cap(in_flight, cap) && !is_at_cap(after, cap))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn limits(cap: u64, rate: Option<(u64, i64)>) -> Limits {
        Limits {
            cap,
            rate: rate.map(|(limit, window_ms)| Limit { window_ms, limit }),
        }
    }

    #[test]
    fn limits_read_back_as_written() {
        for l in [
            limits(0, None),
            limits(3, None),
            limits(2, Some((10, 1_000))),
        ] {
            assert_eq!(Limits::parse(l.text().as_bytes()), l);
        }
        assert_eq!(Limits::parse(b"junk"), Limits::default());
        assert!(Limits::default().is_none());
        assert_eq!(parse_log(log_text(&[5, 7, 7]).as_bytes()), [5, 7, 7]);
        assert_eq!(parse_log(b""), Vec::<i64>::new());
    }

    #[test]
    fn a_capped_group_takes_no_more_in_flight_but_redeliveries_pass() {
        let mut share = Share::new(limits(2, None), 1, vec![], 0);
        assert!(share.take(true));
        assert!(share.is_capped());
        assert!(!share.take(true), "at its cap");
        assert!(share.take(false), "a redelivery holds its slot already");
        assert_eq!((share.taken, share.entered), (2, 1));
        assert_eq!(released(2, 2), (1, true));
        assert_eq!(released(3, 2), (2, false));
        assert_eq!(released(0, 2), (0, false));
    }

    #[test]
    fn a_rate_limited_group_takes_what_its_window_allows() {
        // 2 per 1000 ms; one claim at 100 is still in the window at 600.
        let mut share = Share::new(limits(0, Some((2, 1_000))), 0, vec![-900, 100], 600);
        assert_eq!(share.log, [100]);
        assert!(share.take(true));
        assert!(!share.take(true));
        assert_eq!(share.log_after(600), [100, 600]);
        let full = Share::new(limits(0, Some((2, 1_000))), 0, vec![100, 300], 600);
        assert_eq!(full.room_at(), Some(1_100));
    }

    proptest! {
        #[test]
        fn a_share_never_exceeds_its_cap_or_window(
            cap in 0u64..5, in_flight in 0u64..6, limit in 1u64..5,
            log in proptest::collection::vec(0i64..1_000, 0..6),
            tries in proptest::collection::vec(any::<bool>(), 0..20),
        ) {
            let mut sorted = log.clone();
            sorted.sort();
            let mut share = Share::new(limits(cap, Some((limit, 500))), in_flight, sorted, 1_000);
            let live = share.log.len() as u64;
            for enters in tries {
                share.take(enters);
            }
            prop_assert!(live + share.taken <= limit.max(live));
            if cap > 0 {
                prop_assert!(share.entered == 0 || in_flight + share.entered <= cap);
            }
        }
    }
}
