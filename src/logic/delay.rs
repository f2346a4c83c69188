//! Delayed-task queue arithmetic: which tasks are due, when a blocked poll
//! has to look again, which leases still hold, and which tasks are dead.
//!
//! A task's score is its due time in unix ms; it is due once the server clock
//! reaches its millisecond (`score < now + 1`: a whole ms at now, and the
//! arrival scores DELAY.ADD gives the tasks after the first of a
//! millisecond, `ms + k * ulp`, with it), so `-inf` means "now" and `+inf`
//! "never".

use smallvec::SmallVec;

use crate::logic::clock::deadline;
use crate::logic::jobs;

/// The highest score that is due at `now_ms` (inclusive): the double just
/// below `now_ms + 1`, so every score within the millisecond `now_ms` is
/// due. Exact: clocks stay far below 2^53.
pub fn due_bound(now_ms: i64) -> f64 {
    ((now_ms + 1) as f64).next_down()
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
    (earliest.floor() as i64).max(now_ms.saturating_add(1))
}

/// When a NACKed task is due again: `delay_ms` after now (0: now), or
/// `None` when the delay is negative, above
/// [`MAX_DURATION_MS`](crate::logic::clock::MAX_DURATION_MS) or leaves the
/// exact range of a double.
pub fn retry_at(now_ms: i64, delay_ms: i64) -> Option<i64> {
    match delay_ms {
        0 => Some(now_ms),
        _ => deadline(now_ms, delay_ms),
    }
}

/// Whether a task whose lease ends at `lease_end` (its score in the in-flight
/// set, `None` when it is not there) is still held at `now_ms`. A lease that
/// has ended is lost even before the task is polled again: its worker must
/// stop, and may neither extend it (DELAY.TOUCH) nor hand it back
/// (DELAY.NACK); the task is delivered again as any expired lease.
pub fn is_held(lease_end: Option<f64>, now_ms: i64) -> bool {
    lease_end.is_some_and(|end| end > due_bound(now_ms))
}

/// Whether `token` names the delivery of a task whose lease ends at
/// `lease_end` (its score in the in-flight set, `None` when it is not
/// there): a delivery's token is the end of its lease, in unix ms, as the
/// claim scored it. A later delivery of the task has another token: a claim
/// after the lease ended, or an extension, ends after every earlier lease's
/// end passed (see docs/commands.md, "Fenced leases", for the one case
/// where an early end lets two deliveries share one).
pub fn is_delivery(lease_end: Option<f64>, token: i64) -> bool {
    lease_end.is_some_and(|end| end == token as f64 && (token as f64) as i64 == token)
}

/// Whether a worker holding the delivery `token` (or, for a call that names
/// no token, any delivery) still holds its lease at `now_ms` (see
/// [`is_held`] and [`is_delivery`]).
pub fn holds(lease_end: Option<f64>, token: Option<i64>, now_ms: i64) -> bool {
    is_held(lease_end, now_ms) && token.is_none_or(|token| is_delivery(lease_end, token))
}

/// Whether a task delivered `deliveries` times is dead: it is not delivered
/// again once it was delivered `max_deliveries` times.
pub fn is_dead(deliveries: f64, max_deliveries: u64) -> bool {
    deliveries >= max_deliveries as f64
}

/// A dead-letter clause that cannot work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DelayError {
    /// `DEADLETTER` without `LEASE`: a task polled without a lease is never
    /// delivered again, so there is nothing to count.
    DeadLetterWithoutLease,
    /// `WITHTOKENS` without `LEASE`: only a leased delivery has a token.
    TokensWithoutLease,
    /// The dead-letter or deliveries set is also the queue or the in-flight
    /// set (or they are one set): counts and dead tasks would be delivered
    /// as tasks.
    SharedDeadLetterKey,
    /// The RATE log is also a queue or a set the claim writes.
    SharedRateLog,
}

/// Checks that the dead-letter set and the deliveries set are sets of their
/// own. (The queue may be its own in-flight set: a visibility timeout.)
pub fn check_dead_letter_keys(
    queue: &[u8],
    inflight: &[u8],
    dead: &[u8],
    deliveries: &[u8],
) -> Result<(), DelayError> {
    let tasks = [queue, inflight];
    if tasks.contains(&dead) || tasks.contains(&deliveries) || dead == deliveries {
        return Err(DelayError::SharedDeadLetterKey);
    }
    Ok(())
}

/// The most dead tasks one poll (or one step of [`sweep_dead`]) moves to the
/// dead-letter set, so its work stays bounded when many tasks die at once
/// (every worker crashed on its last delivery). A poll that meets this many
/// leaves the rest to [`sweep_dead`], run in the background step by step
/// ([`TaskQueue::leave_dead_for_later`]), so a live task behind any number
/// of dead ones is served.
pub const MAX_DEAD_PER_POLL: usize = 1000;

/// The most due tasks one claim passes over because their group is at its
/// limits (`logic::groups`): past that it stops looking, so its work stays
/// bounded when one group fills the head of the queue.
pub const MAX_SKIPPED_PER_POLL: usize = 1000;

/// A lease on claimed tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lease {
    /// Claimed tasks are in flight until then (unix ms).
    pub until: i64,
    /// With dead letters: deliveries are counted, and a task delivered this
    /// many times is dead-lettered instead of being delivered again.
    pub max_deliveries: Option<u64>,
}

/// Tasks with their scores, inline for the usual poll of one or two (no
/// allocation on a poll's path).
pub type Tasks<T> = SmallVec<[(T, f64); 2]>;

/// What a claim reads and writes: a queue of tasks scored by due time (unix
/// ms), and with a lease an in-flight set, itself a queue scored by the end
/// of each lease; with dead letters, a set of delivery counts and a
/// dead-letter set. Sorted sets serve it on the server; the unit tests use
/// an in-memory model.
pub trait TaskQueue {
    type Task;
    type Error;

    /// Up to `count` tasks scored at or below `due`, earliest first (equal
    /// scores by member, as a sorted set orders them), with their scores.
    fn due(&mut self, due: f64, count: usize) -> Result<Tasks<Self::Task>, Self::Error>;
    /// The earliest task's score, if the queue holds any.
    fn earliest(&mut self) -> Result<Option<f64>, Self::Error>;
    /// The earliest score above `due`: when the first task that is not due
    /// at `due` falls due.
    fn next_after(&mut self, due: f64) -> Result<Option<f64>, Self::Error>;
    /// Removes claimed tasks from the queue.
    fn take(&mut self, tasks: &[(Self::Task, f64)]) -> Result<(), Self::Error>;
    /// Puts claimed tasks in flight until `until` (unix ms).
    fn lease(&mut self, tasks: &[(Self::Task, f64)], until: i64) -> Result<(), Self::Error>;
    /// How many times each task was delivered (0 for a task never counted).
    fn deliveries(&mut self, tasks: &[(Self::Task, f64)]) -> Result<Vec<f64>, Self::Error>;
    /// Counts one more delivery of each task.
    fn count_delivery(&mut self, tasks: &[(Self::Task, f64)]) -> Result<(), Self::Error>;
    /// Moves dead tasks (already taken from the queue) into the dead-letter
    /// set, scored by `now_ms`, and forgets their counts; `fate` says why
    /// they died (with their data, their history keeps it).
    fn bury(
        &mut self,
        tasks: &[(Self::Task, f64)],
        now_ms: i64,
        fate: Fate,
    ) -> Result<(), Self::Error>;
    /// More dead tasks may lie ahead than one poll moves: have [`sweep_dead`]
    /// run on this queue in the background until they are gone. Writes
    /// nothing now.
    fn leave_dead_for_later(&mut self) -> Result<(), Self::Error>;
    /// Whether tasks may carry a not-started-by deadline (the queue has its
    /// data): only then are due tasks' deadlines read.
    fn has_deadlines(&self) -> bool {
        false
    }
    /// Each task's not-started-by deadline (unix ms), if it has one.
    fn deadlines(&mut self, tasks: &[(Self::Task, f64)]) -> Result<Vec<Option<i64>>, Self::Error> {
        Ok(vec![None; tasks.len()])
    }
    /// Whether tasks may belong to groups with limits (the queue has its
    /// data): only then is [`TaskQueue::admit`] asked.
    fn has_groups(&self) -> bool {
        false
    }
    /// Whether the claim may take `task` (due, live) as far as its group's
    /// limits go, counting it for the rest of the claim when it may; a task
    /// it may not take stays in the queue, passed over.
    fn admit(&mut self, _task: &Self::Task) -> Result<bool, Self::Error> {
        Ok(true)
    }
    /// Forgets expired tasks (already taken from the queue) and their data:
    /// a poll without dead letters drops them.
    fn drop_expired(&mut self, _tasks: &[(Self::Task, f64)]) -> Result<(), Self::Error> {
        Ok(())
    }
    /// The claimed tasks were delivered, `leased` or not: their data learns
    /// it (a deadline no longer applies once a task started; a task polled
    /// without a lease is done, data and all).
    fn delivered(
        &mut self,
        _tasks: &[(Self::Task, f64)],
        _leased: bool,
    ) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Why a due task leaves its queue without being delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Delivered `max-deliveries` times already.
    Exhausted,
    /// Its not-started-by deadline passed while it waited.
    Expired,
}

/// What a poll found.
#[derive(Debug, PartialEq)]
pub enum Claim<T> {
    /// The tasks claimed, earliest first, with their due times.
    Claimed(Tasks<T>),
    /// Nothing to deliver (dead tasks may have been moved); the earliest
    /// task's due time, if any.
    NothingDue { earliest: Option<f64> },
}

/// Claims up to `count` tasks due at `now_ms`: takes them out of the queue
/// and, with a lease, puts them in flight until it ends. With dead letters,
/// a due task already delivered `max_deliveries` times is moved to the
/// dead-letter set instead; a due task whose not-started-by deadline passed
/// is too (as expired), or, without dead letters, dropped with its data. At
/// most [`MAX_DEAD_PER_POLL`] such tasks move per call (the rest are left
/// to [`sweep_dead`]), the claim looks further for live ones, and each
/// delivery is counted. Finds before it writes, so a poll that finds
/// nothing writes nothing.
pub fn claim<Q: TaskQueue>(
    queue: &mut Q,
    now_ms: i64,
    count: usize,
    lease: Option<Lease>,
) -> Result<Claim<Q::Task>, Q::Error> {
    let due = due_bound(now_ms);
    let max_deliveries = lease.and_then(|lease| lease.max_deliveries);
    let found = match (max_deliveries, reads_task_data(queue)) {
        (None, false) => Found {
            live: queue.due(due, count)?,
            dead: Tasks::new(),
            expired: Tasks::new(),
            skipped: 0,
        },
        _ => sort_out(queue, due, count, max_deliveries, now_ms)?,
    };
    if found.moved() == MAX_DEAD_PER_POLL {
        queue.leave_dead_for_later()?;
    }
    let Found {
        live,
        dead,
        expired,
        ..
    } = found;
    if !dead.is_empty() {
        queue.take(&dead)?;
        queue.bury(&dead, now_ms, Fate::Exhausted)?;
    }
    if !expired.is_empty() {
        queue.take(&expired)?;
        match max_deliveries {
            Some(_) => queue.bury(&expired, now_ms, Fate::Expired)?,
            None => queue.drop_expired(&expired)?,
        }
    }
    if live.is_empty() {
        return Ok(Claim::NothingDue {
            earliest: queue.earliest()?,
        });
    }
    queue.take(&live)?;
    if let Some(lease) = lease {
        queue.lease(&live, lease.until)?;
        if lease.max_deliveries.is_some() {
            queue.count_delivery(&live)?;
        }
    }
    queue.delivered(&live, lease.is_some())?;
    Ok(Claim::Claimed(live))
}

/// What a blocked poll would find now, looked at without writing.
#[derive(Debug, PartialEq)]
pub enum Outlook {
    /// A claim now would deliver a task.
    Deliverable,
    /// Nothing to deliver: look again when this score falls due, if given
    /// (or when the queue changes).
    Wait { next_due: Option<f64> },
}

/// Whether a claim at `now_ms` would deliver a task. Dead tasks do not
/// count: a blocked poll served later writes only when it delivers (Redis
/// 7.0 propagates a blocked client's writes only when the client is
/// served), so it leaves them to the claim that delivers next, which moves
/// them, and waits for the first task that is not due yet. Behind more than
/// [`MAX_DEAD_PER_POLL`] dead tasks it does not look further: it has them
/// moved in the background ([`TaskQueue::leave_dead_for_later`]) and looks
/// again as they go.
pub fn outlook<Q: TaskQueue>(
    queue: &mut Q,
    now_ms: i64,
    max_deliveries: Option<u64>,
) -> Result<Outlook, Q::Error> {
    let due = due_bound(now_ms);
    let deliverable = match (max_deliveries, reads_task_data(queue)) {
        (None, false) => match queue.earliest()? {
            Some(earliest) if earliest <= due => true,
            earliest => return Ok(Outlook::Wait { next_due: earliest }),
        },
        _ => {
            let found = sort_out(queue, due, 1, max_deliveries, now_ms)?;
            if found.live.is_empty() && found.moved() == MAX_DEAD_PER_POLL {
                queue.leave_dead_for_later()?;
            }
            !found.live.is_empty()
        }
    };
    Ok(if deliverable {
        Outlook::Deliverable
    } else {
        Outlook::Wait {
            next_due: queue.next_after(due)?,
        }
    })
}

/// One step of clearing dead and expired tasks out of the way, in the
/// background: moves those due at `now_ms` that lie ahead of the first live
/// one (at most [`MAX_DEAD_PER_POLL`]) to the dead-letter set (expired ones
/// are dropped when there is none). True while more may remain: it stopped
/// at the bound without reaching a live task or the end of the due tasks.
/// Tasks behind a live one are left to the claims, which meet them after it.
pub fn sweep_dead<Q: TaskQueue>(
    queue: &mut Q,
    now_ms: i64,
    max_deliveries: Option<u64>,
) -> Result<bool, Q::Error> {
    let found = sort_out(queue, due_bound(now_ms), 1, max_deliveries, now_ms)?;
    let more = found.live.is_empty() && found.moved() == MAX_DEAD_PER_POLL;
    if !found.dead.is_empty() {
        queue.take(&found.dead)?;
        queue.bury(&found.dead, now_ms, Fate::Exhausted)?;
    }
    if !found.expired.is_empty() {
        queue.take(&found.expired)?;
        match max_deliveries {
            Some(_) => queue.bury(&found.expired, now_ms, Fate::Expired)?,
            None => queue.drop_expired(&found.expired)?,
        }
    }
    Ok(more)
}

/// What a claim found among the due tasks: live ones to deliver, the dead
/// and expired ones ahead of them, and how many live ones it passed over
/// (their groups at their limits).
struct Found<T> {
    live: Tasks<T>,
    dead: Tasks<T>,
    expired: Tasks<T>,
    skipped: usize,
}

/// Whether a claim reads each due task's data (deadlines, groups) to sort
/// the due tasks out.
fn reads_task_data<Q: TaskQueue>(queue: &Q) -> bool {
    queue.has_deadlines() || queue.has_groups()
}

impl<T> Found<T> {
    /// How many tasks leave the queue undelivered.
    fn moved(&self) -> usize {
        self.dead.len() + self.expired.len()
    }
}

/// Up to `count` live due tasks, earliest first, and the dead (delivered
/// `max_deliveries` times, with dead letters) and expired ones found before
/// them (at most [`MAX_DEAD_PER_POLL`] in all). Reads due tasks in batches
/// that double, so a run of dead tasks costs a few reads, not one each.
fn sort_out<Q: TaskQueue>(
    queue: &mut Q,
    due: f64,
    count: usize,
    max_deliveries: Option<u64>,
    now_ms: i64,
) -> Result<Found<Q::Task>, Q::Error> {
    let mut found = Found {
        live: Tasks::new(),
        dead: Tasks::new(),
        expired: Tasks::new(),
        skipped: 0,
    };
    let (mut seen, mut limit) = (0, count);
    let done = |found: &Found<Q::Task>| {
        found.live.len() == count
            || found.moved() == MAX_DEAD_PER_POLL
            || found.skipped == MAX_SKIPPED_PER_POLL
    };
    loop {
        let batch = queue.due(due, limit)?;
        let exhausted = batch.len() < limit;
        let fresh: Tasks<Q::Task> = batch.into_iter().skip(seen).collect();
        seen += fresh.len();
        let deliveries = match max_deliveries {
            Some(_) => queue.deliveries(&fresh)?,
            None => vec![0.0; fresh.len()],
        };
        let deadlines = match reads_task_data(queue) {
            true => queue.deadlines(&fresh)?,
            false => vec![None; fresh.len()],
        };
        for ((task, delivered), deadline) in fresh.into_iter().zip(deliveries).zip(deadlines) {
            if done(&found) {
                return Ok(found);
            }
            if max_deliveries.is_some_and(|max| is_dead(delivered, max)) {
                found.dead.push(task);
            } else if jobs::has_expired(deadline, now_ms) {
                found.expired.push(task);
            } else if queue.has_groups() && !queue.admit(&task.0)? {
                found.skipped += 1;
            } else {
                found.live.push(task);
            }
        }
        if exhausted || done(&found) {
            return Ok(found);
        }
        limit = limit.saturating_mul(2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use smallvec::smallvec;

    #[test]
    fn due_is_at_or_before_now() {
        let now = 1_718_000_000_000;
        assert!(1_718_000_000_000.0 <= due_bound(now));
        // Within its millisecond, an arrival score is due with it.
        assert!(1_718_000_000_000.5 <= due_bound(now));
        assert!(1_718_000_000_001.0 > due_bound(now));
        assert!(f64::NEG_INFINITY <= due_bound(now));
        assert!(1000.99 <= due_bound(1000) && 1001.0 > due_bound(1000));
        assert!(-0.5 <= due_bound(-1) && 0.0 > due_bound(-1));
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

    #[test]
    fn a_token_names_one_lease_end_exactly() {
        let end = Some(1_718_000_060_000.0);
        assert!(is_delivery(end, 1_718_000_060_000));
        assert!(!is_delivery(end, 1_718_000_060_001));
        assert!(!is_delivery(None, 1_718_000_060_000));
        // A fraction a plain ZADD wrote is no claim's lease end.
        assert!(!is_delivery(Some(5.5), 5));
        // Tokens past 2^53 read as another double: they name no lease.
        let big = (1i64 << 53) + 1;
        assert!(!is_delivery(Some(big as f64), big));
        assert!(is_delivery(Some((1i64 << 53) as f64), 1 << 53));
    }

    #[test]
    fn a_lease_is_held_by_its_own_token_until_it_ends() {
        let now = 1_000;
        let end = Some(2_000.0);
        assert!(holds(end, Some(2_000), now));
        assert!(holds(end, None, now));
        assert!(!holds(end, Some(1_999), now));
        assert!(!holds(end, Some(2_000), 2_000), "ended at its end");
        assert!(!holds(None, Some(2_000), now));
    }

    proptest! {
        /// Leases taken over after they ended, and extended by their
        /// holders, never give a stale holder's token back: each delivery's
        /// token stops naming the task once another delivery holds it.
        #[test]
        fn a_stale_token_never_names_a_later_delivery(
            steps in proptest::collection::vec((1i64..50, 1i64..200, any::<bool>()), 1..40)
        ) {
            let mut now = 1_000i64;
            let mut score = now + 100; // the first delivery's lease end
            let mut stale: Vec<i64> = Vec::new();
            let mut current = score;
            for (pass, ms, touch) in steps {
                now += pass;
                if touch && holds(Some(score as f64), Some(current), now) {
                    score = now + ms;
                    stale.push(current);
                    current = score;
                } else if !is_held(Some(score as f64), now) {
                    // Taken over: the in-flight set is polled again.
                    score = now + ms;
                    stale.push(current);
                    current = score;
                }
                for token in &stale {
                    prop_assert!(!is_delivery(Some(score as f64), *token) || *token == current);
                    prop_assert!(!holds(Some(score as f64), Some(*token), now) || *token == current);
                }
            }
        }
    }

    /// A queue and an in-flight set as ordered maps of (score, task); with
    /// `lease_into_queue` the in-flight set is the queue itself (a
    /// visibility timeout).
    #[derive(Default)]
    struct Model {
        queue: std::collections::BTreeSet<(Score, String)>,
        inflight: std::collections::BTreeSet<(Score, String)>,
        lease_into_queue: bool,
        /// Dead letters: delivery counts, and the dead-letter set.
        deliveries: std::collections::HashMap<String, f64>,
        dead: Vec<(i64, String)>,
        /// How often a claim or an outlook asked for a background sweep.
        sweeps_asked: usize,
    }

    /// A totally ordered score (the model holds no NaN).
    #[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
    struct Score(f64);
    impl Eq for Score {}
    #[allow(clippy::derive_ord_xor_partial_ord)]
    impl Ord for Score {
        fn cmp(&self, other: &Self) -> std::cmp::Ordering {
            self.0.partial_cmp(&other.0).unwrap()
        }
    }

    impl TaskQueue for Model {
        type Task = String;
        type Error = std::convert::Infallible;

        fn due(&mut self, due: f64, count: usize) -> Result<Tasks<String>, Self::Error> {
            Ok(self
                .queue
                .iter()
                .take_while(|(score, _)| score.0 <= due)
                .take(count)
                .map(|(score, task)| (task.clone(), score.0))
                .collect())
        }
        fn earliest(&mut self) -> Result<Option<f64>, Self::Error> {
            Ok(self.queue.iter().next().map(|(score, _)| score.0))
        }
        fn next_after(&mut self, due: f64) -> Result<Option<f64>, Self::Error> {
            let mut later = self.queue.iter().filter(|(score, _)| score.0 > due);
            Ok(later.next().map(|(score, _)| score.0))
        }
        fn take(&mut self, tasks: &[(String, f64)]) -> Result<(), Self::Error> {
            for (task, score) in tasks {
                assert!(self.queue.remove(&(Score(*score), task.clone())));
            }
            Ok(())
        }
        fn lease(&mut self, tasks: &[(String, f64)], until: i64) -> Result<(), Self::Error> {
            let held = if self.lease_into_queue {
                &mut self.queue
            } else {
                &mut self.inflight
            };
            for (task, _) in tasks {
                held.retain(|(_, t)| t != task);
                held.insert((Score(until as f64), task.clone()));
            }
            Ok(())
        }
        fn deliveries(&mut self, tasks: &[(String, f64)]) -> Result<Vec<f64>, Self::Error> {
            Ok(tasks
                .iter()
                .map(|(task, _)| self.deliveries.get(task).copied().unwrap_or(0.0))
                .collect())
        }
        fn count_delivery(&mut self, tasks: &[(String, f64)]) -> Result<(), Self::Error> {
            for (task, _) in tasks {
                *self.deliveries.entry(task.clone()).or_default() += 1.0;
            }
            Ok(())
        }
        fn bury(
            &mut self,
            tasks: &[(String, f64)],
            now_ms: i64,
            _fate: Fate,
        ) -> Result<(), Self::Error> {
            for (task, _) in tasks {
                assert!(
                    !self.queue.iter().any(|(_, t)| t == task),
                    "buried in place"
                );
                self.deliveries.remove(task);
                self.dead.push((now_ms, task.clone()));
            }
            Ok(())
        }
        fn leave_dead_for_later(&mut self) -> Result<(), Self::Error> {
            self.sweeps_asked += 1;
            Ok(())
        }
    }

    fn model(tasks: &[(f64, &str)]) -> Model {
        Model {
            queue: tasks
                .iter()
                .map(|(s, t)| (Score(*s), t.to_string()))
                .collect(),
            ..Model::default()
        }
    }

    fn claimed(queue: &mut Model, now: i64, count: usize, lease: Option<i64>) -> Claim<String> {
        let lease = lease.map(|until| Lease {
            until,
            max_deliveries: None,
        });
        let Ok(claim) = claim(queue, now, count, lease);
        claim
    }

    /// A claim with dead letters after `max_deliveries`.
    fn claimed_counting(
        queue: &mut Model,
        now: i64,
        count: usize,
        until: i64,
        max_deliveries: u64,
    ) -> Claim<String> {
        let lease = Lease {
            until,
            max_deliveries: Some(max_deliveries),
        };
        let Ok(claim) = claim(queue, now, count, Some(lease));
        claim
    }

    fn task_names(claim: &Claim<String>) -> Vec<&str> {
        match claim {
            Claim::Claimed(tasks) => tasks.iter().map(|(t, _)| t.as_str()).collect(),
            Claim::NothingDue { .. } => Vec::new(),
        }
    }

    #[test]
    fn leases_hold_until_they_end_and_retries_wait_their_delay() {
        assert!(is_held(Some(1_001.0), 1_000));
        assert!(!is_held(Some(1_000.0), 1_000), "a lease ending now is over");
        assert!(!is_held(Some(5.0), 1_000));
        assert!(!is_held(None, 1_000));
        assert_eq!(retry_at(1_000, 0), Some(1_000));
        assert_eq!(retry_at(1_000, 250), Some(1_250));
        assert_eq!(retry_at(1_000, -1), None);
        assert_eq!(
            retry_at(1_000, crate::logic::clock::MAX_DURATION_MS + 1),
            None
        );
        assert!(!is_dead(2.0, 3) && is_dead(3.0, 3) && is_dead(f64::INFINITY, 1));
    }

    #[test]
    fn dead_letters_need_sets_of_their_own() {
        assert_eq!(
            check_dead_letter_keys(b"q", b"q:held", b"q:dead", b"q:n"),
            Ok(())
        );
        assert_eq!(
            check_dead_letter_keys(b"q", b"q", b"q:dead", b"q:n"),
            Ok(())
        );
        for (dead, deliveries) in [
            ("q", "n"),
            ("q:held", "n"),
            ("d", "q"),
            ("d", "q:held"),
            ("d", "d"),
        ] {
            assert_eq!(
                check_dead_letter_keys(b"q", b"q:held", dead.as_bytes(), deliveries.as_bytes()),
                Err(DelayError::SharedDeadLetterKey),
                "{dead} {deliveries}"
            );
        }
    }

    #[test]
    fn a_poison_task_stops_after_n_deliveries_while_the_others_flow() {
        // One set is queue and in-flight set at once (a visibility timeout):
        // a task whose lease ends is due again. Workers ack good tasks at
        // once; "poison" fails every time and is never acked.
        let mut q = model(&[(0.0, "poison"), (1.0, "good1"), (2.0, "good2")]);
        q.lease_into_queue = true;
        let mut delivered: std::collections::HashMap<String, usize> = Default::default();
        for now in (0..200).step_by(5) {
            for task in task_names(&claimed_counting(&mut q, now, 1, now + 10, 3)) {
                *delivered.entry(task.to_string()).or_default() += 1;
                if task != "poison" {
                    // DELAY.ACK inflight task DELIVERIES deliveries
                    let task = task.to_string();
                    q.queue.retain(|(_, t)| *t != task);
                    q.deliveries.remove(&task);
                }
            }
        }
        assert_eq!(delivered["poison"], 3);
        assert_eq!((delivered["good1"], delivered["good2"]), (1, 1));
        assert_eq!(q.dead.len(), 1);
        assert_eq!(q.dead[0].1, "poison");
        assert!(q.queue.is_empty() && q.deliveries.is_empty());
    }

    #[test]
    fn dead_tasks_at_the_head_do_not_hold_live_ones_back() {
        let mut tasks: Vec<(f64, String)> =
            (0..7).map(|i| (i as f64, format!("dead{i}"))).collect();
        tasks.extend((7..10).map(|i| (i as f64, format!("live{i}"))));
        let mut q = Model {
            queue: tasks.iter().map(|(s, t)| (Score(*s), t.clone())).collect(),
            ..Model::default()
        };
        for i in 0..7 {
            q.deliveries.insert(format!("dead{i}"), 2.0);
        }
        q.deliveries.insert("live8".into(), 1.0);
        let got = claimed_counting(&mut q, 100, 2, 1_000, 2);
        assert_eq!(task_names(&got), ["live7", "live8"]);
        assert_eq!(q.dead.len(), 7);
        assert!(q.dead.iter().all(|(at, _)| *at == 100));
        // Counted: live7 once, live8 twice; the dead ones' counts are gone.
        assert_eq!(q.deliveries.len(), 2);
        assert_eq!((q.deliveries["live7"], q.deliveries["live8"]), (1.0, 2.0));
        assert_eq!(q.inflight.len(), 2);
        assert_eq!(
            task_names(&claimed_counting(&mut q, 100, 5, 1_000, 2)),
            ["live9"]
        );
    }

    #[test]
    fn a_blocked_poll_is_ready_only_for_a_live_task() {
        let mut q = model(&[(1.0, "dead"), (50.0, "later")]);
        q.deliveries.insert("dead".into(), 3.0);
        // Only a dead task is due: wait for the next one, write nothing.
        assert_eq!(
            outlook(&mut q, 10, Some(3)),
            Ok(Outlook::Wait {
                next_due: Some(50.0)
            })
        );
        assert_eq!(q.queue.len(), 2);
        assert!(q.dead.is_empty());
        // Without dead letters the dead task is an ordinary due task.
        assert_eq!(outlook(&mut q, 10, None), Ok(Outlook::Deliverable));
        // Once a live task is due, the claim delivers it and moves the dead one.
        assert_eq!(outlook(&mut q, 50, Some(3)), Ok(Outlook::Deliverable));
        assert_eq!(
            task_names(&claimed_counting(&mut q, 50, 1, 100, 3)),
            ["later"]
        );
        assert_eq!(q.dead.len(), 1);
        assert_eq!(
            outlook(&mut q, 50, Some(3)),
            Ok(Outlook::Wait { next_due: None })
        );
    }

    #[test]
    fn one_poll_moves_a_bounded_number_of_dead_tasks() {
        let mut q = Model::default();
        for i in 0..MAX_DEAD_PER_POLL + 500 {
            let task = format!("dead{i:05}");
            q.queue.insert((Score(1.0), task.clone()));
            q.deliveries.insert(task, 5.0);
        }
        q.queue.insert((Score(2.0), "live".into()));
        // The first poll moves as many as it may and delivers nothing; the
        // earliest task left is due, so a blocked poll looks again at once.
        assert_eq!(
            claimed_counting(&mut q, 10, 1, 100, 5),
            Claim::NothingDue {
                earliest: Some(1.0)
            }
        );
        assert_eq!(q.dead.len(), MAX_DEAD_PER_POLL);
        assert_eq!(q.sweeps_asked, 1, "the rest is left to a sweep");
        assert_eq!(
            task_names(&claimed_counting(&mut q, 10, 1, 100, 5)),
            ["live"]
        );
        assert_eq!(q.dead.len(), MAX_DEAD_PER_POLL + 500);
        assert_eq!(q.sweeps_asked, 1);
    }

    /// A queue of `dead` exhausted tasks (delivered 5 times, due at 1) and
    /// one live task due behind them.
    fn dead_ahead_of_live(dead: usize) -> Model {
        let mut q = Model::default();
        for i in 0..dead {
            let task = format!("dead{i:06}");
            q.queue.insert((Score(1.0), task.clone()));
            q.deliveries.insert(task, 5.0);
        }
        q.queue.insert((Score(2.0), "live".into()));
        q
    }

    #[test]
    fn a_blocked_poll_behind_many_dead_tasks_has_them_swept_step_by_step() {
        let mut q = dead_ahead_of_live(3 * MAX_DEAD_PER_POLL + 500);
        // The outlook (a blocked poll's look, which may not write) finds only
        // dead tasks as far as it may look: it asks for a sweep and waits.
        assert_eq!(
            outlook(&mut q, 10, Some(5)),
            Ok(Outlook::Wait { next_due: None })
        );
        assert_eq!(q.sweeps_asked, 1);
        assert!(q.dead.is_empty(), "an outlook writes nothing");
        // Each step moves at most the bound, and says whether more may remain.
        let mut steps = 0;
        loop {
            let before = q.dead.len();
            let more = sweep_dead(&mut q, 10, Some(5)) == Ok(true);
            steps += 1;
            assert!(q.dead.len() - before <= MAX_DEAD_PER_POLL);
            if !more {
                break;
            }
        }
        assert_eq!(steps, 4);
        assert_eq!(q.dead.len(), 3 * MAX_DEAD_PER_POLL + 500);
        assert_eq!(outlook(&mut q, 10, Some(5)), Ok(Outlook::Deliverable));
        assert_eq!(
            task_names(&claimed_counting(&mut q, 10, 1, 100, 5)),
            ["live"]
        );
        // Nothing dead is left: a sweep now does nothing.
        assert_eq!(sweep_dead(&mut q, 10, Some(5)), Ok(false));
        assert_eq!(q.sweeps_asked, 1);
    }

    #[test]
    fn claims_due_tasks_earliest_first_ties_by_member() {
        let mut q = model(&[
            (5.0, "b"),
            (5.0, "a"),
            (f64::NEG_INFINITY, "asap"),
            (9.0, "later"),
        ]);
        let got = claimed(&mut q, 5, 2, None);
        assert_eq!(
            got,
            Claim::Claimed(smallvec![
                ("asap".into(), f64::NEG_INFINITY),
                ("a".into(), 5.0)
            ])
        );
        assert_eq!(
            claimed(&mut q, 5, 10, None),
            Claim::Claimed(smallvec![("b".into(), 5.0)])
        );
        // Nothing due: the earliest due time, for a blocked poll's timer.
        assert_eq!(
            claimed(&mut q, 5, 10, None),
            Claim::NothingDue {
                earliest: Some(9.0)
            }
        );
        assert_eq!(q.queue.len(), 1);
        let mut empty = Model::default();
        assert_eq!(
            claimed(&mut empty, 5, 1, None),
            Claim::NothingDue { earliest: None }
        );
        let mut never = model(&[(f64::INFINITY, "never")]);
        assert_eq!(
            claimed(&mut never, i64::MAX / 2, 1, None),
            Claim::NothingDue {
                earliest: Some(f64::INFINITY)
            }
        );
    }

    #[test]
    fn a_lease_moves_tasks_in_flight_and_they_come_back_when_it_ends() {
        let mut q = model(&[(1.0, "a"), (2.0, "b")]);
        assert_eq!(
            claimed(&mut q, 10, 1, Some(1_010)),
            Claim::Claimed(smallvec![("a".into(), 1.0)])
        );
        assert_eq!(
            q.inflight.iter().next(),
            Some(&(Score(1_010.0), "a".to_string()))
        );
        // The in-flight set is a queue: the task is due there when its lease ends.
        let mut held = Model {
            queue: std::mem::take(&mut q.inflight),
            ..Model::default()
        };
        assert_eq!(
            claimed(&mut held, 1_009, 1, None),
            Claim::NothingDue {
                earliest: Some(1_010.0)
            }
        );
        assert_eq!(
            claimed(&mut held, 1_010, 1, None),
            Claim::Claimed(smallvec![("a".into(), 1_010.0)])
        );
    }

    #[test]
    fn a_lease_into_the_queue_itself_is_a_visibility_timeout() {
        let mut q = model(&[(1.0, "a")]);
        q.lease_into_queue = true;
        assert_eq!(
            claimed(&mut q, 10, 1, Some(200)),
            Claim::Claimed(smallvec![("a".into(), 1.0)])
        );
        assert_eq!(
            claimed(&mut q, 10, 1, Some(300)),
            Claim::NothingDue {
                earliest: Some(200.0)
            }
        );
        assert_eq!(
            claimed(&mut q, 200, 1, Some(300)),
            Claim::Claimed(smallvec![("a".into(), 200.0)])
        );
    }

    proptest! {
        // Each case builds up to a few thousand tasks: a few dozen cover
        // the counts around multiples of the bound.
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn sweeps_clear_every_dead_task_ahead_of_the_first_live_one(
            dead in 0usize..2600,
            live in proptest::bool::ANY,
        ) {
            let mut q = dead_ahead_of_live(dead);
            if !live {
                q.queue.retain(|(_, task)| task != "live");
            }
            let mut steps = 0;
            loop {
                let before = q.dead.len();
                let more = sweep_dead(&mut q, 10, Some(5)) == Ok(true);
                prop_assert!(q.dead.len() - before <= MAX_DEAD_PER_POLL);
                steps += 1;
                prop_assert!(steps <= dead / MAX_DEAD_PER_POLL + 1);
                if !more {
                    break;
                }
            }
            prop_assert_eq!(q.dead.len(), dead);
            let first = q.queue.iter().next().map(|(_, task)| task.as_str());
            prop_assert_eq!(first, live.then_some("live"));
        }
    }

    proptest! {
        #[test]
        fn a_claim_takes_exactly_the_due_tasks_and_each_once(
            tasks in proptest::collection::vec((0i64..100, 0u8..20), 0..30),
            polls in proptest::collection::vec((0i64..120, 1usize..5), 1..20),
        ) {
            let mut q = Model::default();
            for (due, id) in &tasks {
                q.queue.retain(|(_, t)| *t != format!("t{id}"));
                q.queue.insert((Score(*due as f64), format!("t{id}")));
            }
            let all = q.queue.len();
            let mut seen = std::collections::HashSet::new();
            let mut now = 0;
            for (step, count) in polls {
                now = now.max(step);
                match claimed(&mut q, now, count, None) {
                    Claim::Claimed(got) => {
                        prop_assert!(got.len() <= count);
                        prop_assert!(got.windows(2).all(|w| w[0].1 <= w[1].1));
                        for (task, due) in got {
                            prop_assert!(due <= now as f64);
                            prop_assert!(seen.insert(task), "claimed twice");
                        }
                    }
                    Claim::NothingDue { earliest } => {
                        prop_assert!(earliest.is_none_or(|e| e > now as f64));
                    }
                }
            }
            prop_assert_eq!(seen.len() + q.queue.len(), all);
        }

        #[test]
        fn a_counting_claim_delivers_only_live_tasks_in_order(
            counts in proptest::collection::vec(0u8..5, 0..40),
            count in 1usize..8,
            max in 1u64..5,
        ) {
            let mut q = Model::default();
            for (i, delivered) in counts.iter().enumerate() {
                let task = format!("t{i:02}");
                q.queue.insert((Score(i as f64), task.clone()));
                if *delivered > 0 {
                    q.deliveries.insert(task, f64::from(*delivered));
                }
            }
            let before = q.deliveries.clone();
            let got = claimed_counting(&mut q, 1_000, count, 2_000, max);
            let live: Vec<String> = task_names(&got).iter().map(|t| t.to_string()).collect();
            // Exactly the first `count` live tasks, in order; every dead task
            // before the last one claimed was moved, and no live one.
            let expected_live: Vec<String> = (0..counts.len())
                .filter(|i| !is_dead(f64::from(counts[*i]), max))
                .map(|i| format!("t{i:02}"))
                .take(count)
                .collect();
            prop_assert_eq!(&live, &expected_live);
            for (_, task) in &q.dead {
                prop_assert!(is_dead(before.get(task).copied().unwrap_or(0.0), max));
                prop_assert!(!q.deliveries.contains_key(task));
            }
            for task in &live {
                let was = before.get(task).copied().unwrap_or(0.0);
                prop_assert_eq!(q.deliveries[task], was + 1.0);
            }
            let moved = live.len() + q.dead.len();
            prop_assert_eq!(q.queue.len() + moved, counts.len());
        }

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
