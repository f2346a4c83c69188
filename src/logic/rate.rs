//! Exact sliding-window limits over a log of accepted hits.
//!
//! The log is a sorted set with one member per accepted unit of cost, scored
//! by the server time of its hit in unix ms. A hit at `now` counts the entries
//! scored above `now - window`: an entry logged at `t` counts against the hits
//! at `t .. t + window - 1` and no others, so "at most `limit` in any `window`
//! ms" holds exactly, with no smoothing and no bucket edges.
//!
//! A concurrency limit ("at most N at once") is a sorted set of holders,
//! each scored by the unix ms its lease ends: a holder counts until it is
//! released or its lease ends, so "at most `limit` held" holds exactly too.

use crate::logic::delay;

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

/// One limit: at most `limit` units in any `window_ms` milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub window_ms: i64,
    pub limit: u64,
}

/// What a hit reads and writes: a log of accepted units, each a member
/// scored by the unix ms of its hit. A sorted set serves it on the server;
/// the unit tests use an in-memory one.
pub trait HitLog {
    type Error;

    /// How many entries the log holds.
    fn size(&mut self) -> Result<u64, Self::Error>;
    /// How many entries are scored at or below `score`.
    fn count_up_to(&mut self, score: i64) -> Result<u64, Self::Error>;
    /// How many entries are scored above `score`.
    fn count_above(&mut self, score: i64) -> Result<u64, Self::Error>;
    /// How many entries are scored exactly `score`.
    fn count_at(&mut self, score: i64) -> Result<u64, Self::Error>;
    /// The score of the `n`-th entry (0-based, oldest first) above `score`.
    fn nth_above(&mut self, score: i64, n: u64) -> Result<Option<f64>, Self::Error>;
    /// The highest score in the log.
    fn newest(&mut self) -> Result<Option<f64>, Self::Error>;
    /// Removes every entry scored at or below `score`.
    fn remove_up_to(&mut self, score: i64) -> Result<(), Self::Error>;
    /// Adds `member` at `score` unless it is there; true if added.
    fn add(&mut self, member: &[u8], score: i64) -> Result<bool, Self::Error>;
    /// Lets the whole log expire at `unix_ms`.
    fn expire_at(&mut self, unix_ms: i64) -> Result<(), Self::Error>;
}

/// What a hit was told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    /// Which limit binds (0-based, in the order given): when refused, the one
    /// that makes the hit wait longest; when allowed, the one with the least
    /// room left (the first such).
    pub binding: usize,
    pub allowed: bool,
    /// Units in the binding limit's window, this hit's included if allowed.
    pub count: u64,
    /// Units the binding limit still takes.
    pub remaining: u64,
    /// Refused: ms until the hit would fit every limit's window; -1 when
    /// allowed, and when refused because the cost is above a limit (no wait
    /// lets it pass).
    pub retry_after_ms: i64,
}

impl Verdict {
    /// Whether this refusal makes a hit wait longer than `other`: a cost
    /// that never fits waits longest of all.
    fn waits_longer_than(&self, other: &Verdict) -> bool {
        let wait = |v: &Verdict| (v.retry_after_ms == -1, v.retry_after_ms);
        wait(self) > wait(other)
    }
}

/// Counts a hit of `cost` units at `now_ms` against every limit (at least
/// one): allowed only if every limit allows, and then logged. A cost above a
/// limit is refused by it, whatever the log holds. Entries that left the
/// widest window go either way, so the log never holds more than the widest
/// window's limit, and the log expires when its newest entry leaves that
/// window. A refused hit with nothing to drop writes nothing.
///
/// The verdict reports the limit that binds: when refused, the one that
/// makes the hit wait longest (one the cost is above, first); when allowed,
/// the one with the least room left (the first such).
pub fn hit<L: HitLog>(
    log: &mut L,
    now_ms: i64,
    limits: &[Limit],
    cost: u64,
) -> Result<Verdict, L::Error> {
    let judged = judge(log, now_ms, limits, cost)?;
    let Judged {
        verdict,
        widest,
        oldest_kept,
        expired,
    } = judged;
    if verdict.allowed || expired > 0 {
        log.remove_up_to(oldest_kept)?;
    }
    if verdict.allowed {
        let newest = log.newest()?;
        // Units already logged this millisecond took the first names.
        let mut seq = log.count_at(now_ms)?;
        let mut logged = 0;
        while logged < cost {
            if log.add(&hit_member(now_ms, seq), now_ms)? {
                logged += 1;
            }
            seq += 1;
        }
        log.expire_at(expire_at(
            now_ms,
            newest.unwrap_or(f64::NEG_INFINITY),
            widest,
        ))?;
    }
    Ok(verdict)
}

/// What [`hit`] would answer at `now_ms`, read without writing anything:
/// a peek before expensive work. The same hit made at the same millisecond
/// gets the same verdict.
pub fn peek<L: HitLog>(
    log: &mut L,
    now_ms: i64,
    limits: &[Limit],
    cost: u64,
) -> Result<Verdict, L::Error> {
    Ok(judge(log, now_ms, limits, cost)?.verdict)
}

/// The widest window of `limits` (at least one).
fn widest_window(limits: &[Limit]) -> i64 {
    limits
        .iter()
        .map(|l| l.window_ms)
        .max()
        .expect("at least one limit")
}

/// A hit's verdict and what its writes need to know.
struct Judged {
    verdict: Verdict,
    widest: i64,
    /// The cutoff of the widest window: entries at or below it are dropped.
    oldest_kept: i64,
    /// How many entries are at or below `oldest_kept`.
    expired: u64,
}

/// The verdict of a hit of `cost` at `now_ms`, from reads only.
#[inline(always)]
fn judge<L: HitLog>(
    log: &mut L,
    now_ms: i64,
    limits: &[Limit],
    cost: u64,
) -> Result<Judged, L::Error> {
    let widest = widest_window(limits);
    let oldest_kept = cutoff(now_ms, widest);
    let len = log.size()?;
    // The widest window counts what left it (removed anyway when the hit
    // writes); a narrower one counts what is inside it, at most about its
    // limit in a log that only this command wrote. Neither walks the other
    // entries.
    let expired = log.count_up_to(oldest_kept)?;
    // The binding limit so far: the allowed one with the least room, and the
    // refused one that waits longest.
    let (mut tightest, mut longest_wait): (Option<Verdict>, Option<Verdict>) = (None, None);
    for (index, limit) in limits.iter().enumerate() {
        let window_start = cutoff(now_ms, limit.window_ms);
        let live = if window_start == oldest_kept {
            len - expired
        } else {
            log.count_above(window_start)?
        };
        let refused = |retry_after_ms| Verdict {
            binding: index,
            allowed: false,
            count: live,
            remaining: limit.limit.saturating_sub(live),
            retry_after_ms,
        };
        let verdict = if cost > limit.limit {
            refused(-1)
        } else {
            match decide(live, cost, limit.limit) {
                Decision::Allowed => Verdict {
                    binding: index,
                    allowed: true,
                    count: live + cost,
                    remaining: limit.limit - (live + cost),
                    retry_after_ms: -1,
                },
                Decision::Refused { blocking } => {
                    // `blocking` <= live, so the entry exists.
                    let waits_for = log.nth_above(window_start, blocking - 1)?;
                    refused(
                        waits_for.map_or(1, |score| retry_after_ms(score, limit.window_ms, now_ms)),
                    )
                }
            }
        };
        if verdict.allowed {
            if tightest.is_none_or(|t| verdict.remaining < t.remaining) {
                tightest = Some(verdict);
            }
        } else if longest_wait.is_none_or(|w| verdict.waits_longer_than(&w)) {
            longest_wait = Some(verdict);
        }
    }
    Ok(Judged {
        verdict: longest_wait.or(tightest).expect("at least one limit"),
        widest,
        oldest_kept,
        expired,
    })
}

/// What a refund needs beside a hit's reads and writes.
pub trait RefundLog: HitLog {
    /// Removes the `n` newest entries (all, when it holds fewer): the last
    /// `n` in the sorted set's order, highest score first and, among
    /// entries of one score, the last member in byte order first.
    fn remove_newest(&mut self, n: u64) -> Result<(), Self::Error>;
}

/// Gives `units` back at `now_ms` (a negative cost): entries that left the
/// widest window go, as on a hit, then the `units` newest entries (every
/// entry, when the log holds fewer: never below empty). The newest entries
/// are in every window that holds any, so each unit given back is room in
/// every limit again. The log keeps its TTL.
///
/// The verdict is allowed, with each limit's count after the refund; the
/// binding limit is the one with the least room left (the first such).
pub fn refund<L: RefundLog>(
    log: &mut L,
    now_ms: i64,
    limits: &[Limit],
    units: u64,
) -> Result<Verdict, L::Error> {
    let widest = widest_window(limits);
    let oldest_kept = cutoff(now_ms, widest);
    if log.count_up_to(oldest_kept)? > 0 {
        log.remove_up_to(oldest_kept)?;
    }
    log.remove_newest(units)?;
    standing(log, now_ms, limits)
}

/// What an already-applied hit (a repeated IDMP event id) is told: the
/// hit counted when it was first made, so it stands as allowed, and each
/// limit's count is what its window holds now. Reads only; the binding limit
/// is the one with the least room left (the first such).
pub fn standing<L: HitLog>(
    log: &mut L,
    now_ms: i64,
    limits: &[Limit],
) -> Result<Verdict, L::Error> {
    let mut tightest: Option<Verdict> = None;
    for (index, limit) in limits.iter().enumerate() {
        let count = log.count_above(cutoff(now_ms, limit.window_ms))?;
        let verdict = Verdict {
            binding: index,
            allowed: true,
            count,
            remaining: limit.limit.saturating_sub(count),
            retry_after_ms: -1,
        };
        if tightest.is_none_or(|t| verdict.remaining < t.remaining) {
            tightest = Some(verdict);
        }
    }
    Ok(tightest.expect("at least one limit"))
}

/// What a concurrency limit reads and writes: its holders, each a member
/// scored by the unix ms its lease ends (a holder whose lease ended no
/// longer counts, and goes at the next acquire). The counts and lookups of
/// [`HitLog`] serve it as they serve a log.
pub trait LeaseSet: HitLog {
    /// The end of `holder`'s lease: its score, `None` when it is not there.
    fn lease_end(&mut self, holder: &[u8]) -> Result<Option<f64>, Self::Error>;
    /// Sets `holder`'s lease to end at `until_ms` (adds it, or moves it).
    fn hold(&mut self, holder: &[u8], until_ms: i64) -> Result<(), Self::Error>;
    /// Removes `holder`.
    fn release(&mut self, holder: &[u8]) -> Result<(), Self::Error>;
}

/// What an acquire was told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Acquired {
    pub acquired: bool,
    /// Holders whose lease has not ended, this one included if acquired.
    pub held: u64,
    /// Holders the limit still takes.
    pub remaining: u64,
    /// Refused: ms until enough leases have ended for a slot to be free;
    /// -1 when acquired.
    pub retry_after_ms: i64,
    /// Acquired: the lease's end (unix ms), which names this lease to
    /// [`release`]; -1 when refused.
    pub token: i64,
}

/// Acquires a slot for `holder` at `now_ms` whose lease ends at `until_ms`
/// (after `now_ms`), if fewer than `limit` holders hold a lease that has not
/// ended; a holder that holds one already keeps its slot and its lease ends
/// at `until_ms` instead (a renewal, allowed whatever the limit: the slot is
/// taken either way). Leases that ended go either way; a refused acquire
/// with none to drop writes nothing. The set expires when its last lease
/// ends.
pub fn acquire<S: LeaseSet>(
    set: &mut S,
    now_ms: i64,
    holder: &[u8],
    until_ms: i64,
    limit: u64,
) -> Result<Acquired, S::Error> {
    let ended = set.count_up_to(now_ms)?;
    let live = set.size()? - ended;
    let renewal = delay::holds(set.lease_end(holder)?, None, now_ms);
    let decision = match renewal {
        true => Decision::Allowed,
        false => decide(live, 1, limit),
    };
    // The lease is held before the ended ones go, so a set whose leases
    // all ended is never empty in between (no `del` event for it).
    if decision == Decision::Allowed {
        set.hold(holder, until_ms)?;
    }
    if ended > 0 {
        set.remove_up_to(now_ms)?;
    }
    Ok(match decision {
        Decision::Allowed => {
            let held = live + u64::from(!renewal);
            // A renewal may have shortened the latest lease.
            let latest = set.newest()?.unwrap_or(until_ms as f64);
            set.expire_at(expire_at(now_ms, latest, 0))?;
            Acquired {
                acquired: true,
                held,
                remaining: limit.saturating_sub(held),
                retry_after_ms: -1,
                token: until_ms,
            }
        }
        Decision::Refused { blocking } => {
            // `blocking` <= live: the lease waited for is held.
            let ends = set.nth_above(now_ms, blocking - 1)?;
            Acquired {
                acquired: false,
                held: live,
                remaining: limit.saturating_sub(live),
                retry_after_ms: ends.map_or(1, |end| retry_after_ms(end, 0, now_ms)),
                token: -1,
            }
        }
    })
}

/// Releases `holder`'s slot at `now_ms`: only while its lease has not ended
/// and, with a `token`, only the lease that token names (its end, as
/// [`acquire`] answered it), so a holder that stalled past its lease cannot
/// free the slot of the lease that took its place. True when released;
/// otherwise nothing changed.
pub fn release<S: LeaseSet>(
    set: &mut S,
    now_ms: i64,
    holder: &[u8],
    token: Option<i64>,
) -> Result<bool, S::Error> {
    if !delay::holds(set.lease_end(holder)?, token, now_ms) {
        return Ok(false);
    }
    set.release(holder)?;
    Ok(true)
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

    /// The log as a plain ordered map: (score, member) -> ().
    #[derive(Default)]
    struct MemoryLog {
        entries: std::collections::BTreeSet<(i64, Vec<u8>)>,
        expires_at: Option<i64>,
        writes: usize,
    }

    impl HitLog for MemoryLog {
        type Error = std::convert::Infallible;

        fn size(&mut self) -> Result<u64, Self::Error> {
            Ok(self.entries.len() as u64)
        }
        fn count_up_to(&mut self, score: i64) -> Result<u64, Self::Error> {
            Ok(self.entries.iter().filter(|(s, _)| *s <= score).count() as u64)
        }
        fn count_above(&mut self, score: i64) -> Result<u64, Self::Error> {
            Ok(self.entries.iter().filter(|(s, _)| *s > score).count() as u64)
        }
        fn count_at(&mut self, score: i64) -> Result<u64, Self::Error> {
            Ok(self.entries.iter().filter(|(s, _)| *s == score).count() as u64)
        }
        fn nth_above(&mut self, score: i64, n: u64) -> Result<Option<f64>, Self::Error> {
            let mut above = self.entries.iter().filter(|(s, _)| *s > score);
            Ok(above.nth(n as usize).map(|(s, _)| *s as f64))
        }
        fn newest(&mut self) -> Result<Option<f64>, Self::Error> {
            Ok(self.entries.iter().next_back().map(|(s, _)| *s as f64))
        }
        fn remove_up_to(&mut self, score: i64) -> Result<(), Self::Error> {
            self.writes += 1;
            self.entries.retain(|(s, _)| *s > score);
            Ok(())
        }
        fn add(&mut self, member: &[u8], score: i64) -> Result<bool, Self::Error> {
            self.writes += 1;
            if self.entries.iter().any(|(_, m)| m == member) {
                return Ok(false);
            }
            Ok(self.entries.insert((score, member.to_vec())))
        }
        fn expire_at(&mut self, unix_ms: i64) -> Result<(), Self::Error> {
            self.writes += 1;
            self.expires_at = Some(unix_ms);
            Ok(())
        }
    }

    impl RefundLog for MemoryLog {
        fn remove_newest(&mut self, n: u64) -> Result<(), Self::Error> {
            for _ in 0..n {
                if self.entries.pop_last().is_some() {
                    self.writes += 1;
                }
            }
            Ok(())
        }
    }

    impl LeaseSet for MemoryLog {
        fn lease_end(&mut self, holder: &[u8]) -> Result<Option<f64>, Self::Error> {
            let found = self.entries.iter().find(|(_, m)| m == holder);
            Ok(found.map(|(s, _)| *s as f64))
        }
        fn hold(&mut self, holder: &[u8], until_ms: i64) -> Result<(), Self::Error> {
            self.release(holder)?;
            self.entries.insert((until_ms, holder.to_vec()));
            Ok(())
        }
        fn release(&mut self, holder: &[u8]) -> Result<(), Self::Error> {
            self.writes += 1;
            self.entries.retain(|(_, m)| m != holder);
            Ok(())
        }
    }

    fn limit(window_ms: i64, limit: u64) -> Limit {
        Limit { window_ms, limit }
    }

    fn hit_once(log: &mut MemoryLog, now: i64, limits: &[Limit], cost: u64) -> Verdict {
        let Ok(verdict) = hit(log, now, limits, cost);
        verdict
    }

    fn peek_once(log: &mut MemoryLog, now: i64, limits: &[Limit], cost: u64) -> Verdict {
        let Ok(verdict) = peek(log, now, limits, cost);
        verdict
    }

    fn refund_once(log: &mut MemoryLog, now: i64, limits: &[Limit], units: u64) -> Verdict {
        let Ok(verdict) = refund(log, now, limits, units);
        verdict
    }

    fn log_of(scores: &[(i64, &str)]) -> MemoryLog {
        let mut log = MemoryLog::default();
        for (score, member) in scores {
            log.entries.insert((*score, member.as_bytes().to_vec()));
        }
        log
    }

    fn members(log: &MemoryLog) -> Vec<String> {
        let names = log.entries.iter().map(|(_, m)| m.clone());
        names.map(|m| String::from_utf8(m).unwrap()).collect()
    }

    #[test]
    fn a_peek_answers_as_the_hit_would_and_writes_nothing() {
        let limits = [limit(5_000, 2)];
        let mut log = log_of(&[(1_000, "gone"), (9_000, "a")]);
        let v = peek_once(&mut log, 10_000, &limits, 1);
        assert_eq!(
            (v.allowed, v.count, v.remaining, v.retry_after_ms),
            (true, 2, 0, -1)
        );
        let v = peek_once(&mut log, 10_000, &limits, 2);
        // Refused until "a" leaves the window, at 14,000.
        assert_eq!(
            (v.allowed, v.count, v.remaining, v.retry_after_ms),
            (false, 1, 1, 4_000)
        );
        assert_eq!(
            log.writes, 0,
            "a peek writes nothing, not even the expired entry"
        );
        assert_eq!(members(&log), ["gone", "a"]);
        assert_eq!(
            peek_once(&mut log, 10_000, &limits, 2),
            hit_once(&mut log, 10_000, &limits, 2)
        );
    }

    #[test]
    fn a_cost_above_a_limit_is_refused_and_never_fits() {
        let mut log = log_of(&[(9_000, "a")]);
        let v = hit_once(&mut log, 10_000, &[limit(5_000, 3)], 4);
        assert_eq!(
            (v.allowed, v.count, v.remaining, v.retry_after_ms),
            (false, 1, 2, -1)
        );
        // On an empty log too, and nothing is written.
        let mut empty = MemoryLog::default();
        let v = hit_once(&mut empty, 10_000, &[limit(5_000, 3)], 4);
        assert_eq!(
            (v.allowed, v.count, v.remaining, v.retry_after_ms),
            (false, 0, 3, -1)
        );
        assert_eq!(empty.writes, 0);
        // The limit it can never fit binds, over one that only waits.
        let mut full = log_of(&[(9_000, "a"), (9_001, "b")]);
        let limits = [limit(5_000, 2), limit(60_000, 10), limit(1_000, 1)];
        let v = hit_once(&mut full, 10_000, &limits, 2);
        assert_eq!((v.binding, v.allowed, v.retry_after_ms), (2, false, -1));
        assert_eq!(full.writes, 0);
    }

    #[test]
    fn a_refund_gives_back_the_newest_units_never_below_empty() {
        let limits = [limit(60_000, 5), limit(1_000, 2)];
        let mut log = log_of(&[
            (1_000, "gone"),
            (50_000, "old"),
            (69_500, "7-0"),
            (69_500, "7-1"),
            (69_900, "new"),
        ]);
        // The newest goes first, then the last of one millisecond's names;
        // the entry that left the widest window goes too.
        let v = refund_once(&mut log, 70_000, &limits, 2);
        assert_eq!(members(&log), ["old", "7-0"]);
        // The 1 s window binds: 1 of its 2 left.
        assert_eq!(
            (v.binding, v.allowed, v.count, v.remaining, v.retry_after_ms),
            (1, true, 1, 1, -1)
        );
        // More than the log holds empties it.
        let v = refund_once(&mut log, 70_000, &limits, 10);
        assert!(log.entries.is_empty());
        assert_eq!((v.allowed, v.count, v.remaining), (true, 0, 2));
        assert_eq!(log.expires_at, None, "a refund leaves the TTL alone");
        // Room again: two hits pass where the limit refused one.
        let mut log = MemoryLog::default();
        let one = [limit(1_000, 1)];
        hit_once(&mut log, 5_000, &one, 1);
        assert!(!hit_once(&mut log, 5_001, &one, 1).allowed);
        refund_once(&mut log, 5_002, &one, 1);
        assert!(hit_once(&mut log, 5_003, &one, 1).allowed);
    }

    fn acquire_once(set: &mut MemoryLog, now: i64, holder: &str, lease: i64, n: u64) -> Acquired {
        let Ok(acquired) = acquire(set, now, holder.as_bytes(), now + lease, n);
        acquired
    }

    fn release_once(set: &mut MemoryLog, now: i64, holder: &str, token: Option<i64>) -> bool {
        let Ok(released) = release(set, now, holder.as_bytes(), token);
        released
    }

    #[test]
    fn at_most_limit_holders_each_until_released_or_its_lease_ends() {
        let mut set = MemoryLog::default();
        let a = acquire_once(&mut set, 1_000, "a", 5_000, 2);
        assert_eq!(
            a,
            Acquired {
                acquired: true,
                held: 1,
                remaining: 1,
                retry_after_ms: -1,
                token: 6_000
            }
        );
        assert_eq!(set.expires_at, Some(6_000));
        let b = acquire_once(&mut set, 1_500, "b", 1_000, 2);
        assert_eq!(
            (b.acquired, b.held, b.remaining, b.token),
            (true, 2, 0, 2_500)
        );
        assert_eq!(
            set.expires_at,
            Some(6_000),
            "the set lives as long as its latest lease"
        );
        let writes = set.writes;
        let c = acquire_once(&mut set, 2_000, "c", 5_000, 2);
        // Refused until b's lease ends, at 2,500.
        assert_eq!(
            c,
            Acquired {
                acquired: false,
                held: 2,
                remaining: 0,
                retry_after_ms: 500,
                token: -1
            }
        );
        assert_eq!(
            set.writes, writes,
            "a refusal with no lease ended writes nothing"
        );
        // A holder asking again renews its lease and keeps its slot.
        let renewed = acquire_once(&mut set, 2_000, "a", 100, 2);
        assert_eq!(
            (renewed.acquired, renewed.held, renewed.token),
            (true, 2, 2_100)
        );
        assert_eq!(
            set.expires_at,
            Some(2_500),
            "a shorter lease: the set ends with b's"
        );
        // A token that is not the holder's lease releases nothing.
        assert!(!release_once(&mut set, 2_050, "a", Some(6_000)));
        assert!(release_once(&mut set, 2_050, "a", Some(2_100)));
        assert!(!release_once(&mut set, 2_050, "a", None));
        // b's lease ends at 2,500: c takes the slot, b's stale release is refused.
        let c = acquire_once(&mut set, 2_500, "c", 5_000, 1);
        assert_eq!((c.acquired, c.held), (true, 1));
        assert_eq!(members(&set), ["c"]);
        assert!(!release_once(&mut set, 2_600, "b", Some(2_500)));
        assert!(!release_once(&mut set, 2_600, "b", None));
        // An ended lease that is still in the set releases nothing either.
        assert!(!release_once(&mut set, 7_500, "c", None));
        assert_eq!(members(&set), ["c"]);
    }

    #[test]
    fn a_lowered_limit_waits_for_the_leases_beyond_it() {
        let mut set = MemoryLog::default();
        for (i, holder) in ["a", "b", "c"].iter().enumerate() {
            acquire_once(&mut set, 0, holder, 1_000 * (i as i64 + 1), 3);
        }
        // At most 2 now: 2 leases must end first, b's at 2,000; at most 1:
        // all 3, c's at 3,000.
        let d = acquire_once(&mut set, 10, "d", 1_000, 2);
        assert_eq!(
            (d.acquired, d.held, d.remaining, d.retry_after_ms),
            (false, 3, 0, 1_990)
        );
        let d = acquire_once(&mut set, 10, "d", 1_000, 1);
        assert_eq!(d.retry_after_ms, 2_990);
        // The holders keep theirs, renewals included.
        assert!(acquire_once(&mut set, 20, "c", 1_000, 1).acquired);
    }

    #[test]
    fn a_repeated_hit_stands_allowed_and_writes_nothing() {
        let mut log = MemoryLog::default();
        let limits = [limit(10_000, 5), limit(1_000, 2)];
        hit_once(&mut log, 10_000, &limits, 2);
        let writes = log.writes;
        let Ok(v) = standing(&mut log, 10_500, &limits);
        // The 1 s limit binds: its 2 units fill it.
        assert_eq!(
            (v.binding, v.allowed, v.count, v.remaining),
            (1, true, 2, 0)
        );
        assert_eq!(v.retry_after_ms, -1);
        // Later the 1 s window is empty, and still has the least room.
        let Ok(v) = standing(&mut log, 11_500, &limits);
        assert_eq!((v.binding, v.count, v.remaining), (1, 0, 2));
        let Ok(v) = standing(&mut log, 11_500, &[limit(10_000, 3), limit(1_000, 2)]);
        assert_eq!((v.binding, v.count, v.remaining), (0, 2, 1));
        assert_eq!(log.writes, writes, "standing reads only");
    }

    #[test]
    fn a_window_counts_hits_and_refuses_past_the_limit() {
        let mut log = MemoryLog::default();
        let two_per_5s = [limit(5_000, 2)];
        let v = hit_once(&mut log, 10_000, &two_per_5s, 1);
        assert_eq!(
            (v.allowed, v.count, v.remaining, v.retry_after_ms),
            (true, 1, 1, -1)
        );
        let v = hit_once(&mut log, 11_000, &two_per_5s, 1);
        assert_eq!((v.allowed, v.count, v.remaining), (true, 2, 0));
        assert_eq!(log.expires_at, Some(16_000));
        let writes = log.writes;
        let v = hit_once(&mut log, 12_000, &two_per_5s, 1);
        // Refused until the hit at 10,000 leaves the window: at 15,000.
        assert_eq!(
            (v.allowed, v.count, v.remaining, v.retry_after_ms),
            (false, 2, 0, 3_000)
        );
        assert_eq!(
            log.writes, writes,
            "a refused hit with nothing to drop writes nothing"
        );
        let v = hit_once(&mut log, 15_000, &two_per_5s, 1);
        assert!(v.allowed);
        // The expired entry is gone; the log holds the two live ones.
        assert_eq!(log.entries.len(), 2);
    }

    #[test]
    fn units_of_one_millisecond_get_distinct_names() {
        let mut log = MemoryLog::default();
        let v = hit_once(&mut log, 7, &[limit(100, 10)], 3);
        assert_eq!(v.count, 3);
        let v = hit_once(&mut log, 7, &[limit(100, 10)], 2);
        assert_eq!(v.count, 5);
        let names: Vec<Vec<u8>> = log.entries.iter().map(|(_, m)| m.clone()).collect();
        assert_eq!(
            names,
            [
                b"7-0".to_vec(),
                b"7-1".to_vec(),
                b"7-2".to_vec(),
                b"7-3".to_vec(),
                b"7-4".to_vec()
            ]
        );
    }

    #[test]
    fn every_limit_must_allow_and_the_binding_one_is_reported() {
        // 2 per second and 3 per 10 seconds.
        let limits = [limit(1_000, 2), limit(10_000, 3)];
        let mut log = MemoryLog::default();
        let v = hit_once(&mut log, 0, &limits, 1);
        // Allowed: the per-second limit has 1 left, the 10 s one 2.
        assert_eq!(
            (v.allowed, v.count, v.remaining, v.binding),
            (true, 1, 1, 0)
        );
        hit_once(&mut log, 1, &limits, 1);
        let v = hit_once(&mut log, 2, &limits, 1);
        // The per-second limit refuses until the hit at 0 leaves: 998 ms.
        assert_eq!(
            (v.allowed, v.count, v.remaining, v.retry_after_ms, v.binding),
            (false, 2, 0, 998, 0)
        );
        let v = hit_once(&mut log, 1_000, &limits, 1);
        // Both have no room left now; the first one listed is reported.
        assert_eq!((v.allowed, v.count, v.remaining), (true, 2, 0));
        let v = hit_once(&mut log, 2_000, &limits, 1);
        // Both refuse now; the 10 s one waits longest (until 10,000).
        assert_eq!(
            (v.allowed, v.count, v.retry_after_ms, v.binding),
            (false, 3, 8_000, 1)
        );
        // The log keeps only the widest window and expires with it.
        assert_eq!(log.expires_at, Some(11_000));
        assert!(log.entries.len() <= 3);
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
        fn the_log_never_lets_a_window_hold_more_than_its_limit(
            hits in proptest::collection::vec((0i64..50, 1u64..4), 1..80),
            short in 1i64..100, long in 100i64..1_000, per_short in 1u64..6, per_long in 4u64..20,
        ) {
            let limits = [limit(short, per_short), limit(long, per_long.max(per_short))];
            let mut log = MemoryLog::default();
            let mut now = 0;
            let mut accepted: Vec<(i64, u64)> = Vec::new();
            for (step, cost) in hits {
                now += step;
                if cost > per_short {
                    continue;
                }
                let verdict = hit_once(&mut log, now, &limits, cost);
                if verdict.allowed {
                    accepted.push((now, cost));
                }
                // Checked against every hit ever accepted, not the log.
                for l in &limits {
                    let in_window: u64 = accepted
                        .iter()
                        .filter(|(at, _)| *at > now - l.window_ms)
                        .map(|(_, c)| c)
                        .sum();
                    prop_assert!(in_window <= l.limit);
                }
                prop_assert!(log.entries.len() as u64 <= per_long.max(per_short));
            }
        }

        #[test]
        fn the_binding_limit_is_the_one_each_verdict_field_describes(
            entries in proptest::collection::vec(0i64..1_000, 0..30),
            limits in proptest::collection::vec((1i64..2_000, 1u64..20), 1..5),
            cost in 1u64..24,
        ) {
            let limits: Vec<Limit> = limits.into_iter().map(|(w, l)| limit(w, l)).collect();
            let mut log = MemoryLog::default();
            for (i, at) in entries.iter().enumerate() {
                log.entries.insert((*at, format!("e{i}").into_bytes()));
            }
            let now = 1_000;
            // Each limit alone, on a copy of the log.
            let alone: Vec<Verdict> = limits
                .iter()
                .map(|l| {
                    let mut copy = MemoryLog { entries: log.entries.clone(), ..MemoryLog::default() };
                    hit_once(&mut copy, now, &[*l], cost)
                })
                .collect();
            let log_before = log.entries.clone();
            let verdict = hit_once(&mut log, now, &limits, cost);
            prop_assert_eq!(verdict.allowed, alone.iter().all(|v| v.allowed));
            let binding = alone[verdict.binding];
            prop_assert_eq!(
                (binding.allowed, binding.count, binding.remaining, binding.retry_after_ms),
                (verdict.allowed, verdict.count, verdict.remaining, verdict.retry_after_ms)
            );
            if verdict.allowed {
                prop_assert!(alone.iter().all(|v| v.remaining >= verdict.remaining));
            } else {
                prop_assert!(alone.iter().all(|v| v.allowed || !v.waits_longer_than(&verdict)));
            }
            // A peek at the same moment answers the same, on a copy of the log.
            let mut copy = MemoryLog { entries: log_before, ..MemoryLog::default() };
            prop_assert_eq!(peek_once(&mut copy, now, &limits, cost), verdict);
            prop_assert_eq!(copy.writes, 0);
        }

        #[test]
        fn hits_and_refunds_never_let_a_window_hold_more_than_its_limit(
            calls in proptest::collection::vec((0i64..50, -6i64..6), 1..80),
            short in 1i64..100, long in 100i64..1_000, per_short in 1u64..6, per_long in 4u64..20,
        ) {
            let limits = [limit(short, per_short), limit(long, per_long)];
            let mut log = MemoryLog::default();
            let mut now = 0;
            for (step, cost) in calls {
                now += step;
                let before = log.entries.clone();
                match cost {
                    0 => continue,
                    c if c < 0 => {
                        let verdict = refund_once(&mut log, now, &limits, c.unsigned_abs());
                        // The newest live entries went, as many as there were.
                        let live: Vec<_> = before.iter().filter(|(at, _)| *at > now - long).collect();
                        let kept = live.len().saturating_sub(c.unsigned_abs() as usize);
                        prop_assert_eq!(log.entries.iter().collect::<Vec<_>>(), live[..kept].to_vec());
                        prop_assert!(verdict.allowed);
                    }
                    c => {
                        let verdict = hit_once(&mut log, now, &limits, c as u64);
                        prop_assert_eq!(verdict.allowed, log.entries.len() > before.iter().filter(|(at, _)| *at > now - long).count());
                    }
                }
                for l in &limits {
                    let in_window = log.entries.iter().filter(|(at, _)| *at > now - l.window_ms).count();
                    prop_assert!(in_window as u64 <= l.limit);
                }
            }
        }

        #[test]
        fn holders_never_exceed_the_limit_and_only_their_lease_releases(
            calls in proptest::collection::vec((0i64..40, 0usize..6, 1i64..100, proptest::bool::ANY, 0u8..3), 1..80),
            limit in 1u64..4,
        ) {
            let mut set = MemoryLog::default();
            // The model: holder -> lease end, and the tokens answered.
            let mut model: std::collections::BTreeMap<usize, i64> = Default::default();
            let mut tokens: Vec<(usize, i64)> = Vec::new();
            let mut now = 0;
            for (step, who, lease, acquiring, fenced) in calls {
                now += step;
                let holder = format!("h{who}");
                model.retain(|_, end| *end > now);
                if acquiring {
                    let got = acquire_once(&mut set, now, &holder, lease, limit);
                    let renewal = model.contains_key(&who);
                    prop_assert_eq!(got.acquired, renewal || (model.len() as u64) < limit);
                    if got.acquired {
                        model.insert(who, now + lease);
                        tokens.push((who, got.token));
                        prop_assert_eq!(got.token, now + lease);
                    } else {
                        // The wait ends exactly when a slot is free.
                        let mut ends: Vec<i64> = model.values().copied().collect();
                        ends.sort();
                        let free_at = ends[ends.len() - limit as usize];
                        prop_assert_eq!(got.retry_after_ms, free_at - now);
                    }
                    prop_assert_eq!(got.held, model.len() as u64);
                } else {
                    let token = match fenced {
                        0 => None,
                        _ => tokens.iter().rev().find(|(w, _)| *w == who).map(|(_, t)| *t).or(Some(now)),
                    };
                    let released = release_once(&mut set, now, &holder, token);
                    let holds = model.get(&who).is_some_and(|end| token.is_none_or(|t| t == *end));
                    prop_assert_eq!(released, holds);
                    if released {
                        model.remove(&who);
                    }
                }
                let live = set.entries.iter().filter(|(end, _)| *end > now).count();
                prop_assert_eq!(live, model.len());
                prop_assert!(live as u64 <= limit);
            }
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
