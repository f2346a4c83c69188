//! Jobs: a DELAY queue's tasks with their data, in one hash beside the queue
//! (the queue's DATA key, in its hash slot). Each task's fields are named by
//! a one-letter tag, a colon and the task id, so any task id (any bytes)
//! names its fields and nothing else; the queue's own state is in fields
//! without that shape (`paused`).
//!
//! | field | holds | written by | removed by |
//! |---|---|---|---|
//! | `p:<task>` | the payload | DELAY.ADD `JOBS` | DELAY.ACK, a claim without a lease, a dropped expiry, a dead-letter trim |
//! | `x:<task>` | the not-started-by deadline (unix ms) | DELAY.ADD `WITHIN` | the first claim, or the expiry |
//! | `r:<task>` | the last failure reason | DELAY.NACK `REASON`, an expiry (`expired`) | DELAY.ACK, a trim |
//! | `d:<task>` | the deliveries it had when it died | a claim that buries it | DELAY.RETRY, a trim |
//! | `w:<task>` | the worker holding it | a claim with `WORKER` | DELAY.ACK, DELAY.NACK |
//! | `g:<task>` | its group | DELAY.ADD `GROUP` | with its payload |
//! | `paused` | when the queue was paused (unix ms) | DELAY.PAUSE | DELAY.RESUME |
//!
//! Pure rules on bytes and numbers; the commands read and write the hash.

/// The reason an expired task is dead-lettered with.
pub const EXPIRED_REASON: &[u8] = b"expired";

/// The field that says a queue is paused.
pub const PAUSED_FIELD: &[u8] = b"paused";

/// Due times DELAY.ADD takes: whole unix ms from 0 below 2^53, so a due
/// time and the arrival scores after it are exact doubles.
pub const MAX_DUE_MS: i64 = (1 << 53) - 1;

/// A job option that cannot work as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobError {
    /// The option reads or writes a job's data, which lives in the queue's
    /// DATA hash: the call must name it.
    NeedsData(&'static str),
    /// `WORKER` without `LEASE`: only a leased delivery has a holder.
    WorkerWithoutLease,
    /// A payload over `zkit.job-payload-max-bytes`.
    PayloadTooLarge { len: usize, limit: i64 },
    /// The DATA hash is also one of the call's sorted sets: one key cannot
    /// hold both, and the call would fail after its first write.
    SharedDataKey,
}

/// Checks that the DATA hash `data` is none of the call's sorted sets
/// (`sets`), named or not.
pub fn check_data_key(data: &[u8], sets: &[Option<&[u8]>]) -> Result<(), JobError> {
    if sets.iter().flatten().any(|set| *set == data) {
        return Err(JobError::SharedDataKey);
    }
    Ok(())
}

/// What a task's field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Payload,
    Deadline,
    Reason,
    DiedWith,
    Worker,
    Group,
}

impl Field {
    /// Every field a task may have: what removing a task's data deletes.
    pub const ALL: [Field; 6] = [
        Field::Payload,
        Field::Deadline,
        Field::Reason,
        Field::DiedWith,
        Field::Worker,
        Field::Group,
    ];

    fn tag(self) -> u8 {
        match self {
            Field::Payload => b'p',
            Field::Deadline => b'x',
            Field::Reason => b'r',
            Field::DiedWith => b'd',
            Field::Worker => b'w',
            Field::Group => b'g',
        }
    }

    /// The field's name for `task`: its tag, `:`, the task id.
    pub fn of(self, task: &[u8]) -> Vec<u8> {
        let mut name = Vec::with_capacity(task.len() + 2);
        name.push(self.tag());
        name.push(b':');
        name.extend_from_slice(task);
        name
    }
}

/// What DELAY.ADD does with a task id the queue (or its in-flight set)
/// already holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// The task stays as it is (due time, payload); the reply says so.
    Keep,
    /// The new due time and payload replace the task's.
    Replace,
    /// Debounce: the due time moves out to the new one (never in), the
    /// payload is replaced.
    Extend,
}

/// What DELAY.ADD does with one task.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Added {
    /// A new task, due at `score`.
    New { score: f64 },
    /// An existing task moved to `score` (its payload replaced).
    Updated { score: f64 },
    /// An existing task left as it was.
    Kept,
}

impl Added {
    /// The reply for the task: 1 added, 2 updated, 0 kept.
    pub fn reply(self) -> i64 {
        match self {
            Added::New { .. } => 1,
            Added::Updated { .. } => 2,
            Added::Kept => 0,
        }
    }
}

/// Decides one task of DELAY.ADD: `queued` is its score in the queue (if
/// there), `in_flight` whether a worker holds it; `score` is the arrival
/// score its new due time gets ([`arrival_score`]). A task in flight is
/// never touched, whatever the rule: it is running, and a second copy in
/// the queue would be a second delivery.
pub fn decide(rule: Rule, queued: Option<f64>, in_flight: bool, score: f64) -> Added {
    if in_flight {
        return Added::Kept;
    }
    match (queued, rule) {
        (None, _) => Added::New { score },
        (Some(_), Rule::Keep) => Added::Kept,
        (Some(_), Rule::Replace) => Added::Updated { score },
        // Out, never in: a later event pushes the run back.
        (Some(old), Rule::Extend) if old.floor() >= score.floor() => Added::Kept,
        (Some(_), Rule::Extend) => Added::Updated { score },
    }
}

/// The score of a task added due at `due_ms` to a queue whose highest score
/// within that millisecond (`[due_ms, due_ms + 1)`) is `latest`: the due
/// time itself for the first, then each next double above, so tasks due in
/// one millisecond come out in the order they were added. A queue due time
/// near today's unix ms has 4,096 doubles in a millisecond (2,048 from
/// 2039); past the last one, further tasks share it and go by task id.
pub fn arrival_score(due_ms: i64, latest: Option<f64>) -> f64 {
    let due = due_ms as f64;
    match latest {
        Some(latest) if latest >= due => {
            let next = latest.next_up();
            if next < due + 1.0 {
                next
            } else {
                latest
            }
        }
        _ => due,
    }
}

/// Whether a task whose not-started-by deadline is `deadline_ms` has missed
/// it at `now_ms`: it is not delivered.
pub fn has_expired(deadline_ms: Option<i64>, now_ms: i64) -> bool {
    deadline_ms.is_some_and(|deadline| deadline < now_ms)
}

/// How many of a dead-letter set's oldest tasks one claim removes: those
/// past `max` (the set holding `len` after this claim buried `buried`), at
/// most `buried` + [`TRIM_SPARE`], so a set kept at its bound stays there
/// and one over it (a lowered bound) comes back down over a few claims.
pub fn dead_over_count(len: usize, max: usize, buried: usize) -> usize {
    if max == 0 {
        return 0;
    }
    len.saturating_sub(max).min(buried + TRIM_SPARE)
}

/// Beyond the tasks it buried, the oldest dead tasks one claim may remove
/// when the dead-letter set is over its bounds.
pub const TRIM_SPARE: usize = 100;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_tasks_fields_are_its_own_whatever_its_id() {
        assert_eq!(Field::Payload.of(b"mail:17"), b"p:mail:17");
        assert_eq!(Field::Reason.of(b""), b"r:");
        // An id that looks like another task's field names its own.
        assert_ne!(Field::Payload.of(b"p:x"), Field::Payload.of(b"x"));
        for a in Field::ALL {
            for b in Field::ALL {
                assert_eq!(a == b, a.of(b"t") == b.of(b"t"));
            }
            assert_ne!(a.of(b"").as_slice(), PAUSED_FIELD);
            assert_ne!(
                &a.of(b"used")[..],
                PAUSED_FIELD,
                "no task's field is the queue's"
            );
        }
    }

    proptest! {
        #[test]
        fn no_two_tasks_share_a_field(a: Vec<u8>, b: Vec<u8>) {
            for fa in Field::ALL {
                for fb in Field::ALL {
                    let same = fa == fb && a == b;
                    prop_assert_eq!(fa.of(&a) == fb.of(&b), same);
                    let name = fa.of(&a);
                    prop_assert_ne!(name.as_slice(), PAUSED_FIELD);
                }
            }
        }

        /// Tasks added in one millisecond get increasing scores inside it,
        /// up to the doubles it holds.
        #[test]
        fn arrival_scores_keep_order_within_a_millisecond(
            due in 1_700_000_000_000i64..2_100_000_000_000,
            n in 1usize..5000,
        ) {
            let mut latest = None;
            let mut last = f64::NEG_INFINITY;
            let mut distinct = 0;
            for _ in 0..n {
                let score = arrival_score(due, latest);
                prop_assert!(score >= due as f64 && score < (due + 1) as f64);
                prop_assert!(score >= last);
                if score > last {
                    distinct += 1;
                }
                last = score;
                latest = Some(score);
            }
            // At least 2,048 distinct scores in a millisecond until 2100.
            prop_assert!(distinct >= n.min(2048), "{distinct} of {n}");
        }
    }

    #[test]
    fn the_first_task_of_a_millisecond_is_due_at_it_exactly() {
        let due = 1_795_314_800_000;
        assert_eq!(arrival_score(due, None), due as f64);
        // An earlier millisecond's task does not count.
        assert_eq!(arrival_score(due, Some(due as f64 - 0.5)), due as f64);
        let second = arrival_score(due, Some(due as f64));
        assert!(second > due as f64 && second.floor() == due as f64);
        assert_eq!(arrival_score(-5, Some(-5.0)), (-5.0f64).next_up());
    }

    #[test]
    fn rules_decide_what_an_existing_task_becomes() {
        let (old, new) = (1_000.0, 2_000.0);
        assert_eq!(
            decide(Rule::Keep, None, false, new),
            Added::New { score: new }
        );
        assert_eq!(decide(Rule::Keep, Some(old), false, new), Added::Kept);
        assert_eq!(
            decide(Rule::Replace, Some(new), false, old),
            Added::Updated { score: old }
        );
        assert_eq!(
            decide(Rule::Extend, Some(old), false, new),
            Added::Updated { score: new }
        );
        assert_eq!(decide(Rule::Extend, Some(new), false, old), Added::Kept);
        for rule in [Rule::Keep, Rule::Replace, Rule::Extend] {
            assert_eq!(decide(rule, None, true, new), Added::Kept, "{rule:?}");
            assert_eq!(decide(rule, Some(old), true, new), Added::Kept, "{rule:?}");
        }
        assert_eq!(Added::New { score: 1.0 }.reply(), 1);
        assert_eq!(Added::Updated { score: 1.0 }.reply(), 2);
        assert_eq!(Added::Kept.reply(), 0);
    }

    #[test]
    fn the_data_hash_is_none_of_the_sorted_sets() {
        assert_eq!(
            check_data_key(b"d", &[Some(b"q"), None, Some(b"h")]),
            Ok(())
        );
        assert_eq!(
            check_data_key(b"h", &[Some(b"q"), None, Some(b"h")]),
            Err(JobError::SharedDataKey)
        );
        assert_eq!(check_data_key(b"q", &[]), Ok(()));
    }

    #[test]
    fn deadlines_and_trims() {
        assert!(!has_expired(None, 5));
        assert!(!has_expired(Some(5), 5));
        assert!(has_expired(Some(4), 5));
        assert_eq!(dead_over_count(10, 0, 3), 0, "0: no bound");
        assert_eq!(dead_over_count(10, 10, 3), 0);
        assert_eq!(dead_over_count(13, 10, 3), 3);
        assert_eq!(dead_over_count(10_000, 10, 3), 3 + TRIM_SPARE);
    }
}
