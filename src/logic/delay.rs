//! Delayed-task queue arithmetic: which tasks are due, when a blocked poll
//! has to look again, which leases still hold, and which tasks are dead.
//!
//! A task's score is its due time in unix ms; it is due once the server clock
//! reaches it (`score <= now`), so `-inf` means "now" and `+inf` "never".

use smallvec::SmallVec;

use crate::logic::clock::deadline;

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
    /// The dead-letter or deliveries set is also the queue or the in-flight
    /// set (or they are one set): counts and dead tasks would be delivered
    /// as tasks.
    SharedDeadLetterKey,
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
    /// set, scored by `now_ms`, and forgets their counts.
    fn bury(&mut self, tasks: &[(Self::Task, f64)], now_ms: i64) -> Result<(), Self::Error>;
    /// More dead tasks may lie ahead than one poll moves: have [`sweep_dead`]
    /// run on this queue in the background until they are gone. Writes
    /// nothing now.
    fn leave_dead_for_later(&mut self) -> Result<(), Self::Error>;
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
/// dead-letter set instead (at most [`MAX_DEAD_PER_POLL`] per call, the
/// rest left to [`sweep_dead`]), the claim looks further for live ones, and
/// each delivery is counted. Finds before it writes, so a poll that finds
/// nothing writes nothing.
pub fn claim<Q: TaskQueue>(
    queue: &mut Q,
    now_ms: i64,
    count: usize,
    lease: Option<Lease>,
) -> Result<Claim<Q::Task>, Q::Error> {
    let due = due_bound(now_ms);
    let max_deliveries = lease.and_then(|lease| lease.max_deliveries);
    let (live, dead) = match max_deliveries {
        None => (queue.due(due, count)?, Tasks::new()),
        Some(max) => sort_out_dead(queue, due, count, max)?,
    };
    if dead.len() == MAX_DEAD_PER_POLL {
        queue.leave_dead_for_later()?;
    }
    if !dead.is_empty() {
        queue.take(&dead)?;
        queue.bury(&dead, now_ms)?;
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
    let deliverable = match max_deliveries {
        None => match queue.earliest()? {
            Some(earliest) if earliest <= due => true,
            earliest => return Ok(Outlook::Wait { next_due: earliest }),
        },
        Some(max) => {
            let (live, dead) = sort_out_dead(queue, due, 1, max)?;
            if live.is_empty() && dead.len() == MAX_DEAD_PER_POLL {
                queue.leave_dead_for_later()?;
            }
            !live.is_empty()
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

/// One step of clearing dead tasks out of the way, in the background: moves
/// the dead tasks due at `now_ms` that lie ahead of the first live one (at
/// most [`MAX_DEAD_PER_POLL`]) to the dead-letter set. True while more may
/// remain: it stopped at the bound without reaching a live task or the end
/// of the due tasks. Dead tasks behind a live one are left to the claims,
/// which meet them after it.
pub fn sweep_dead<Q: TaskQueue>(
    queue: &mut Q,
    now_ms: i64,
    max_deliveries: u64,
) -> Result<bool, Q::Error> {
    let (live, dead) = sort_out_dead(queue, due_bound(now_ms), 1, max_deliveries)?;
    if !dead.is_empty() {
        queue.take(&dead)?;
        queue.bury(&dead, now_ms)?;
    }
    Ok(live.is_empty() && dead.len() == MAX_DEAD_PER_POLL)
}

/// Up to `count` live due tasks, earliest first, and the dead ones found
/// before them (at most [`MAX_DEAD_PER_POLL`]). Reads due tasks in batches
/// that double, so a run of dead tasks costs a few reads, not one each.
#[allow(clippy::type_complexity)]
fn sort_out_dead<Q: TaskQueue>(
    queue: &mut Q,
    due: f64,
    count: usize,
    max_deliveries: u64,
) -> Result<(Tasks<Q::Task>, Tasks<Q::Task>), Q::Error> {
    let (mut live, mut dead) = (Tasks::new(), Tasks::new());
    let (mut seen, mut limit) = (0, count);
    loop {
        let batch = queue.due(due, limit)?;
        let exhausted = batch.len() < limit;
        let fresh: Tasks<Q::Task> = batch.into_iter().skip(seen).collect();
        seen += fresh.len();
        let deliveries = queue.deliveries(&fresh)?;
        for (task, delivered) in fresh.into_iter().zip(deliveries) {
            if live.len() == count || dead.len() == MAX_DEAD_PER_POLL {
                return Ok((live, dead));
            }
            if is_dead(delivered, max_deliveries) {
                dead.push(task);
            } else {
                live.push(task);
            }
        }
        if exhausted || live.len() == count || dead.len() == MAX_DEAD_PER_POLL {
            return Ok((live, dead));
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
        fn bury(&mut self, tasks: &[(String, f64)], now_ms: i64) -> Result<(), Self::Error> {
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
            let more = sweep_dead(&mut q, 10, 5) == Ok(true);
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
        assert_eq!(sweep_dead(&mut q, 10, 5), Ok(false));
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
                let more = sweep_dead(&mut q, 10, 5) == Ok(true);
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
