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

/// What a claim reads and writes: a queue of tasks scored by due time (unix
/// ms), and with a lease an in-flight set, itself a queue scored by the end
/// of each lease. Sorted sets serve it on the server; the unit tests use an
/// in-memory model.
pub trait TaskQueue {
    type Task;
    type Error;

    /// Up to `count` tasks scored at or below `due`, earliest first (equal
    /// scores by member, as a sorted set orders them), with their scores.
    fn due(&mut self, due: f64, count: usize) -> Result<Vec<(Self::Task, f64)>, Self::Error>;
    /// The earliest task's score, if the queue holds any.
    fn earliest(&mut self) -> Result<Option<f64>, Self::Error>;
    /// Removes claimed tasks from the queue.
    fn take(&mut self, tasks: &[(Self::Task, f64)]) -> Result<(), Self::Error>;
    /// Puts claimed tasks in flight until `until` (unix ms).
    fn lease(&mut self, tasks: &[(Self::Task, f64)], until: i64) -> Result<(), Self::Error>;
}

/// What a poll found.
#[derive(Debug, PartialEq)]
pub enum Claim<T> {
    /// The tasks claimed, earliest first, with their due times.
    Claimed(Vec<(T, f64)>),
    /// Nothing is due; the earliest task's due time, if any.
    NothingDue { earliest: Option<f64> },
}

/// Claims up to `count` tasks due at `now_ms`: takes them out of the queue
/// and, with `lease_until`, puts them in flight until then. Finds before it
/// writes, so a poll that claims nothing writes nothing.
pub fn claim<Q: TaskQueue>(
    queue: &mut Q,
    now_ms: i64,
    count: usize,
    lease_until: Option<i64>,
) -> Result<Claim<Q::Task>, Q::Error> {
    let due = queue.due(due_bound(now_ms), count)?;
    if due.is_empty() {
        return Ok(Claim::NothingDue {
            earliest: queue.earliest()?,
        });
    }
    queue.take(&due)?;
    if let Some(until) = lease_until {
        queue.lease(&due, until)?;
    }
    Ok(Claim::Claimed(due))
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

    /// A queue and an in-flight set as ordered maps of (score, task); with
    /// `lease_into_queue` the in-flight set is the queue itself (a
    /// visibility timeout).
    #[derive(Default)]
    struct Model {
        queue: std::collections::BTreeSet<(Score, String)>,
        inflight: std::collections::BTreeSet<(Score, String)>,
        lease_into_queue: bool,
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

        fn due(&mut self, due: f64, count: usize) -> Result<Vec<(String, f64)>, Self::Error> {
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
        let Ok(claim) = claim(queue, now, count, lease);
        claim
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
            Claim::Claimed(vec![("asap".into(), f64::NEG_INFINITY), ("a".into(), 5.0)])
        );
        assert_eq!(
            claimed(&mut q, 5, 10, None),
            Claim::Claimed(vec![("b".into(), 5.0)])
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
            Claim::Claimed(vec![("a".into(), 1.0)])
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
            Claim::Claimed(vec![("a".into(), 1_010.0)])
        );
    }

    #[test]
    fn a_lease_into_the_queue_itself_is_a_visibility_timeout() {
        let mut q = model(&[(1.0, "a")]);
        q.lease_into_queue = true;
        assert_eq!(
            claimed(&mut q, 10, 1, Some(200)),
            Claim::Claimed(vec![("a".into(), 1.0)])
        );
        assert_eq!(
            claimed(&mut q, 10, 1, Some(300)),
            Claim::NothingDue {
                earliest: Some(200.0)
            }
        );
        assert_eq!(
            claimed(&mut q, 200, 1, Some(300)),
            Claim::Claimed(vec![("a".into(), 200.0)])
        );
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
