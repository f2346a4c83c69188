//! DELAY.*: a delayed-task queue with exactly-one claim (a job queue).
//!
//! Tasks are scheduled with native ZADD, scored by their due time in unix ms.
//! The usual recipe polls ZRANGEBYSCORE and then ZREMs, so two workers can take the
//! same task, and sleeps a second when idle. DELAY.POLL claims due tasks in
//! one command: removed from the queue (and, with LEASE, moved into an
//! in-flight zset scored by the lease's end) before anyone else runs, so no
//! task reaches two pollers; DELAY.BPOLL blocks until a task is due instead of
//! sleeping. An in-flight zset is itself a queue: a task whose worker died
//! becomes due there when its lease ends, and polling it re-delivers the task
//! (at-least-once). DELAY.ACK removes finished tasks from it, DELAY.NACK hands
//! a failed one back to its queue, DELAY.TOUCH extends a lease.
//!
//! Dead letters (`DEADLETTER dead deliveries n` beside LEASE): leased claims
//! count each task's deliveries in the sorted set `deliveries` (member task,
//! score count), and a task already delivered `n` times is moved to the
//! sorted set `dead` (scored by when it died) instead of being delivered
//! again. DELAY.ACK forgets the counts of the tasks it removes when given
//! `DELIVERIES deliveries`.
//!
//! Syntax note: every key comes right after its keyword (`LEASE inflight
//! ms`, `DEADLETTER dead deliveries n`, `DELIVERIES deliveries`), and the
//! tasks DELAY.ACK takes follow `TASKS`, after the options: COMMAND GETKEYS,
//! ACL key patterns and cluster routing see every key a call touches, and
//! no task is ever read as an option.

use super::args::positive;
use super::reply_types::{DELAY_STATS, TASK};
use super::small_layout;
use super::stats::{self, Fields};
use super::{Command, Counter, WordList};
use crate::error::{bound, ZkitError};
use crate::host::ReplyShape as R;
use crate::host::{
    key_flags as kf, Arg, Attempt, Ctx, KeyKind, OwnedRStr, Progress, RStr, Readiness, Reply,
    Request, ScoreBound, WriteReply, Zset, ZsetWaiter,
};

use crate::logic::clock::{deadline, MAX_DURATION_MS};
use crate::logic::delay::{
    self, check_dead_letter_keys, is_held, outlook, retry_at, wake_at_ms, Claim, DelayError, Lease,
    Outlook, TaskQueue, Tasks,
};
use crate::logic::family;
use crate::logic::stats::{due_age_ms, due_time_ms};
use crate::{declare_command, request};
use smallvec::SmallVec;

pub static COMMANDS: &[&Command] = &[&POLL, &BPOLL, &ACK, &NACK, &TOUCH, &STATS];

/// Tasks handed to pollers (with or without a lease), and tasks acknowledged.
pub static TASKS_CLAIMED: Counter = Counter::new();
pub static TASKS_ACKED: Counter = Counter::new();
/// Tasks moved to a dead-letter set: the number operators watch.
pub static TASKS_DEAD: Counter = Counter::new();
/// Tasks handed out again: claims from an in-flight set leased into itself
/// (their lease ended), and, with DEADLETTER, claims of a task its
/// deliveries set had already counted (a lease that ended, or a NACK).
pub static TASKS_REDELIVERED: Counter = Counter::new();

const QUEUE_ARG: Arg = Arg::key("key", kf::RW | kf::ACCESS | kf::DELETE);

const LEASE_ARG: Arg = Arg::block(
    "lease",
    &[
        Arg::key("inflight", kf::RW | kf::UPDATE),
        Arg::integer("ms"),
    ],
)
.token("LEASE")
.optional();

const DEADLETTER_ARG: Arg = Arg::block(
    "deadletter",
    &[
        // Tasks are added to the dead-letter set, and counts both added and
        // removed.
        Arg::key("dead", kf::RW | kf::UPDATE),
        Arg::key("deliveries", kf::RW | kf::UPDATE),
        Arg::integer("max-deliveries"),
    ],
)
.token("DEADLETTER")
.optional()
.since("0.2.0");

declare_command! {
    pub static POLL: Command = {
        name: "delay.poll",
        handler: poll,
        // No deny-oom: polling drains the queue, and refusing it under memory
        // pressure would stop the workers that free memory.
        flags: "write",
        acl_categories: "write sortedset slow",
        summary: "Claims up to count tasks that are due (score <= the server's unix ms), earliest first: removes them from the queue, or with LEASE moves them into inflight scored by the lease's end; with DEADLETTER, a task already delivered max-deliveries times goes to dead instead. Returns [[member, due-ms], ...].",
        complexity: "O((M+D+1)*log(N)) with M the tasks claimed, D the dead tasks moved and N the tasks in the queue.",
        since: "0.1.0",
        history: &[("0.2.0", "Added the `DEADLETTER` option.")],
        reply: R::ArrayOf(&R::Tuple(&TASK)),
        args: &[
            QUEUE_ARG,
            Arg::integer("count").token("COUNT").optional(),
            LEASE_ARG,
            DEADLETTER_ARG,
        ],
    }
}

declare_command! {
    pub static BPOLL: Command = {
        name: "delay.bpoll",
        handler: bpoll,
        flags: "write blocking",
        acl_categories: "write sortedset slow blocking",
        summary: "DELAY.POLL that blocks until a task is due or timeout-ms passes (0: forever); nil on timeout. Inside MULTI or a script it does not block.",
        complexity: "O((M+D+1)*log(N)) with M the tasks claimed, D the dead tasks moved and N the tasks in the queue.",
        since: "0.1.0",
        history: &[("0.2.0", "Added the `DEADLETTER` option.")],
        reply: R::OrNil(&R::ArrayOf(&R::Tuple(&TASK))),
        args: &[
            QUEUE_ARG,
            Arg::integer("timeout-ms"),
            Arg::integer("count").token("COUNT").optional(),
            LEASE_ARG,
            DEADLETTER_ARG,
        ],
    }
}

declare_command! {
    pub static ACK: Command = {
        name: "delay.ack",
        handler: ack,
        flags: "write fast",
        acl_categories: "write sortedset fast",
        summary: "Removes finished tasks from an in-flight zset (and, with DELIVERIES, their delivery counts); returns how many were in flight.",
        complexity: "O(M*log(N)) with M the members given and N the tasks in flight.",
        since: "0.1.0",
        history: &[
            ("0.2.0", "Added the `DELIVERIES` option."),
            ("0.3.0", "The tasks follow `TASKS`, after the options, so a task is never read as an option."),
        ],
        reply: R::Integer,
        args: &[
            Arg::key("inflight", kf::RW | kf::DELETE),
            Arg::key("deliveries", kf::RW | kf::DELETE)
                .token("DELIVERIES")
                .optional()
                .since("0.2.0"),
            Arg::string("task").token("TASKS").multiple(),
        ],
    }
}

declare_command! {
    pub static NACK: Command = {
        name: "delay.nack",
        handler: nack,
        // No deny-oom, as DELAY.POLL and DELAY.ACK: a move never grows the
        // data, and a worker must be able to hand a task back.
        flags: "write fast",
        acl_categories: "write sortedset fast",
        summary: "Hands a failed task back for a retry: moves it from inflight into queue, due delay-ms from now (0: now). Returns 1 when moved, 0 when its lease had already ended or it was not in flight.",
        complexity: "O(log(N)) with N the tasks in the larger set.",
        since: "0.2.0",
        history: &[],
        reply: R::Boolean,
        args: &[
            Arg::key("inflight", kf::RW | kf::DELETE),
            Arg::key("queue", kf::RW | kf::UPDATE),
            Arg::string("member"),
            Arg::integer("delay-ms"),
        ],
    }
}

declare_command! {
    pub static TOUCH: Command = {
        name: "delay.touch",
        handler: touch,
        flags: "write fast",
        acl_categories: "write sortedset fast",
        summary: "Extends a lease: the task's lease now ends ms from now. Returns 1 when extended, 0 when the lease had already ended or the task was not in flight (its worker must stop).",
        complexity: "O(log(N)) with N the tasks in flight.",
        since: "0.2.0",
        history: &[],
        reply: R::Boolean,
        args: &[
            Arg::key("inflight", kf::RW | kf::UPDATE),
            Arg::string("member"),
            Arg::integer("ms"),
        ],
    }
}

/// Where claimed tasks go: the in-flight zset and the lease in ms, with dead
/// letters or without.
struct LeaseArgs<K> {
    inflight: K,
    ms: i64,
    dead_letter: Option<DeadLetterArgs<K>>,
}

/// `DEADLETTER dead deliveries max-deliveries`.
struct DeadLetterArgs<K> {
    dead: K,
    deliveries: K,
    max_deliveries: u64,
}

impl LeaseArgs<&RStr> {
    /// A copy of its own, for a blocked poll.
    fn to_owned(&self) -> LeaseArgs<OwnedRStr> {
        let own = |key: &RStr| OwnedRStr::new(key.as_bytes());
        LeaseArgs {
            inflight: own(self.inflight),
            ms: self.ms,
            dead_letter: self.dead_letter.as_ref().map(|d| DeadLetterArgs {
                dead: own(d.dead),
                deliveries: own(d.deliveries),
                max_deliveries: d.max_deliveries,
            }),
        }
    }
}

impl LeaseArgs<OwnedRStr> {
    fn borrowed(&self) -> LeaseArgs<&RStr> {
        LeaseArgs {
            inflight: &self.inflight,
            ms: self.ms,
            dead_letter: self.dead_letter.as_ref().map(|d| DeadLetterArgs {
                dead: &*d.dead,
                deliveries: &*d.deliveries,
                max_deliveries: d.max_deliveries,
            }),
        }
    }
}

request! {
    /// A poll's options: `[COUNT n] [LEASE inflight ms] [DEADLETTER dead
    /// deliveries n]`, each at most once.
    struct PollOptions<'a> {
        count: Option<i64> = option(Request::integer),
        lease: Option<(&'a RStr, i64)> = option(|lease| (lease.key(), lease.integer())),
        dead_letter: Option<(&'a RStr, &'a RStr, i64)> = option(|d| (d.key(), d.key(), d.integer())),
    }
}

impl<'a> PollOptions<'a> {
    /// The count (1 when not given) and the lease, checked: DEADLETTER
    /// needs LEASE.
    #[allow(clippy::type_complexity)]
    fn check(self) -> Result<(usize, Option<LeaseArgs<&'a RStr>>), ZkitError> {
        let count = self.count.map_or(Ok(1), |n| positive(n, "count"))?;
        let dead_letter = self
            .dead_letter
            .map(|(dead, deliveries, max)| {
                Ok::<_, ZkitError>(DeadLetterArgs {
                    dead,
                    deliveries,
                    max_deliveries: positive(max, "max-deliveries")? as u64,
                })
            })
            .transpose()?;
        let lease = match (self.lease, dead_letter) {
            (Some((inflight, ms)), dead_letter) => {
                if !(1..=MAX_DURATION_MS).contains(&ms) {
                    return Err(lease_out_of_range());
                }
                Some(LeaseArgs {
                    inflight,
                    ms,
                    dead_letter,
                })
            }
            (None, Some(_)) => return Err(DelayError::DeadLetterWithoutLease.into()),
            (None, None) => None,
        };
        Ok((count, lease))
    }
}

fn lease_out_of_range() -> ZkitError {
    ZkitError::OutOfRange {
        what: "lease",
        limit: bound::DURATION_MS,
    }
}

/// Claims up to `count` due tasks of `key` at the server's now, checking
/// everything before the first write.
fn claim(
    ctx: &Ctx,
    key: &RStr,
    count: usize,
    lease: Option<&LeaseArgs<&RStr>>,
) -> Result<Claim<OwnedRStr>, ZkitError> {
    let mut held = None;
    if let Some(lease) = lease {
        // The in-flight set opens for the lease's write at once (checking
        // its type as well), unless it is the queue, whose own handle takes
        // the tasks first, or the server could not replicate the claim.
        if lease.inflight.as_bytes() != key.as_bytes() && ctx.can_record_writes() {
            held = Some(ctx.open_zset_mut(lease.inflight)?);
        } else {
            ctx.check_key_type(lease.inflight, KeyKind::Zset)?;
        }
        if let Some(dead_letter) = &lease.dead_letter {
            check_dead_letter_keys(
                key.as_bytes(),
                lease.inflight.as_bytes(),
                dead_letter.dead.as_bytes(),
                dead_letter.deliveries.as_bytes(),
            )?;
            ctx.check_key_type(dead_letter.dead, KeyKind::Zset)?;
            ctx.check_key_type(dead_letter.deliveries, KeyKind::Zset)?;
        }
    }
    let now = ctx.now_ms();
    let mut queue = ZsetQueue {
        ctx,
        key,
        lease,
        head: None,
        held,
    };
    queue.read_head(delay::due_bound(now), count)?;
    let lease_terms = lease
        .map(|lease| {
            Ok::<_, ZkitError>(Lease {
                until: deadline(now, lease.ms).ok_or_else(lease_out_of_range)?,
                max_deliveries: lease.dead_letter.as_ref().map(|d| d.max_deliveries),
            })
        })
        .transpose()?;
    let claim = delay::claim(&mut queue, now, count, lease_terms)?;
    if let Claim::Claimed(tasks) = &claim {
        TASKS_CLAIMED.add(tasks.len() as u64);
        if queue.polls_its_inflight_set() {
            TASKS_REDELIVERED.add(tasks.len() as u64);
        }
    }
    Ok(claim)
}

/// A queue kept in a sorted set, and the sorted sets its lease names. A
/// poll that finds nothing due writes nothing, so it leaves WATCH alone
/// (writes are signalled as they are recorded, `host/effects.rs`).
struct ZsetQueue<'c> {
    ctx: &'c Ctx,
    key: &'c RStr,
    lease: Option<&'c LeaseArgs<&'c RStr>>,
    /// What a claim's first read found ([`ZsetQueue::read_head`]), until
    /// the claim uses it or writes.
    head: Option<Head<'c>>,
    /// The in-flight set, when the claim opened it before its first read.
    held: Option<Zset<'c>>,
}

/// The first read of a claim: the tasks due at `due` (at most `count`) and
/// the earliest score, from one walk up from the queue's lowest score, and
/// the queue's handle, open for the claim to take the tasks through.
struct Head<'c> {
    due: f64,
    count: usize,
    tasks: Option<Tasks<OwnedRStr>>,
    earliest: Option<f64>,
    queue: Option<Zset<'c>>,
}

impl<'c> ZsetQueue<'c> {
    /// Checks that the queue holds due times, not another family's scores
    /// (a gift board's totals would all be due, and claimed away), and
    /// reads the tasks due at `due`, up to `count`, in the same walk: the
    /// lowest elements the check needs are the first tasks a claim takes.
    fn read_head(&mut self, due: f64, count: usize) -> Result<(), ZkitError> {
        let mut head = Head {
            due,
            count,
            tasks: Some(Tasks::new()),
            earliest: None,
            queue: None,
        };
        // Open for writing at once (an absent queue opens empty), unless the
        // server could not replicate the claim: then a poll that finds
        // nothing due still answers.
        let queue = match self.ctx.can_record_writes() {
            true => Some(self.ctx.open_zset_mut(self.key)?),
            false => self.ctx.open_zset(self.key)?,
        };
        if let Some(mut queue) = queue {
            let mut walk = queue.iter_asc(ScoreBound::MIN, ScoreBound::MAX);
            let first = walk.next();
            let second = match &first {
                Some((_, score)) if family::may_start_seen_key(*score) => walk.next(),
                _ => None,
            };
            let lowest: SmallVec<[family::Element<'_>; 2]> = first
                .iter()
                .chain(&second)
                .map(|(task, score)| (task.as_bytes(), *score))
                .collect();
            family::check_delay_queue(&lowest)?;
            drop(lowest);
            head.earliest = first.as_ref().map(|&(_, score)| score);
            let tasks = head.tasks.as_mut().expect("set above");
            let mut read = first.into_iter().chain(second);
            while tasks.len() < count {
                match read.next().or_else(|| walk.next()) {
                    Some((task, score)) if score <= due => tasks.push((task, score)),
                    _ => break,
                }
            }
            drop(walk);
            head.queue = queue.is_writable().then_some(queue);
        }
        self.head = Some(head);
        Ok(())
    }

    /// The queue is the in-flight set it leases into: every task it holds
    /// was delivered before.
    fn polls_its_inflight_set(&self) -> bool {
        self.lease
            .is_some_and(|lease| lease.inflight.as_bytes() == self.key.as_bytes())
    }

    fn dead_letter(&self) -> &DeadLetterArgs<&RStr> {
        self.lease
            .and_then(|lease| lease.dead_letter.as_ref())
            .expect("counting deliveries needs DEADLETTER")
    }
}

impl TaskQueue for ZsetQueue<'_> {
    type Task = OwnedRStr;
    type Error = ZkitError;

    fn due(&mut self, due: f64, count: usize) -> Result<Tasks<OwnedRStr>, ZkitError> {
        if let Some(head) = self.head.as_mut() {
            if head.due == due && head.count == count {
                if let Some(tasks) = head.tasks.take() {
                    return Ok(tasks);
                }
            }
        }
        Ok(match self.ctx.open_zset(self.key)? {
            Some(mut queue) => queue
                .iter_asc(ScoreBound::MIN, ScoreBound::Inclusive(due))
                .take(count)
                .collect(),
            None => Tasks::new(),
        })
    }

    fn earliest(&mut self) -> Result<Option<f64>, ZkitError> {
        if let Some(head) = &self.head {
            return Ok(head.earliest);
        }
        Ok(self.ctx.open_zset(self.key)?.and_then(|mut queue| {
            queue
                .iter_asc(ScoreBound::MIN, ScoreBound::MAX)
                .next()
                .map(|(_, score)| score)
        }))
    }

    fn next_after(&mut self, due: f64) -> Result<Option<f64>, ZkitError> {
        Ok(self.ctx.open_zset(self.key)?.and_then(|mut queue| {
            queue
                .iter_asc(ScoreBound::Exclusive(due), ScoreBound::MAX)
                .next()
                .map(|(_, score)| score)
        }))
    }

    fn take(&mut self, tasks: &[(OwnedRStr, f64)]) -> Result<(), ZkitError> {
        // What the first read found no longer holds; its handle takes the
        // tasks, and closes before any other write (the in-flight set may be
        // this very key).
        let opened = self.head.take().and_then(|head| head.queue);
        let mut queue = match opened {
            Some(queue) => queue,
            None => self.ctx.open_zset_mut(self.key)?,
        };
        for (task, _) in tasks {
            queue.remove(task);
        }
        Ok(())
    }

    fn lease(&mut self, tasks: &[(OwnedRStr, f64)], until: i64) -> Result<(), ZkitError> {
        let inflight = self
            .lease
            .expect("a lease names its in-flight set")
            .inflight;
        let mut held = match self.held.take() {
            Some(held) => held,
            None => self.ctx.open_zset_mut(inflight)?,
        };
        let created = held.is_empty();
        for (task, _) in tasks {
            held.add(task, until as f64)?;
        }
        // Each lease ends after every other: on a listpack it goes in at
        // the far end, past every entry.
        small_layout::after_write(self.ctx, inflight, &mut held, created);
        Ok(())
    }

    fn deliveries(&mut self, tasks: &[(OwnedRStr, f64)]) -> Result<Vec<f64>, ZkitError> {
        let counts = self.ctx.open_zset(self.dead_letter().deliveries)?;
        Ok(tasks
            .iter()
            .map(|(task, _)| counts.as_ref().and_then(|c| c.score(task)).unwrap_or(0.0))
            .collect())
    }

    fn count_delivery(&mut self, tasks: &[(OwnedRStr, f64)]) -> Result<(), ZkitError> {
        let polls_its_inflight_set = self.polls_its_inflight_set();
        let mut counts = self.ctx.open_zset_mut(self.dead_letter().deliveries)?;
        for (task, _) in tasks {
            // Counted in `claim` when the queue is an in-flight set.
            if counts.incr(task, 1.0)? > 1.0 && !polls_its_inflight_set {
                TASKS_REDELIVERED.add(1);
            }
        }
        Ok(())
    }

    fn bury(&mut self, tasks: &[(OwnedRStr, f64)], now_ms: i64) -> Result<(), ZkitError> {
        let dead_letter = self.dead_letter();
        let mut dead = self.ctx.open_zset_mut(dead_letter.dead)?;
        for (task, _) in tasks {
            dead.add(task, now_ms as f64)?;
        }
        drop(dead);
        TASKS_DEAD.add(tasks.len() as u64);
        let mut counts = self.ctx.open_zset_mut(dead_letter.deliveries)?;
        for (task, _) in tasks {
            counts.remove(task);
        }
        Ok(())
    }

    fn leave_dead_for_later(&mut self) -> Result<(), ZkitError> {
        let lease = self
            .lease
            .expect("dead letters come with a lease")
            .to_owned();
        let dead_letter = lease
            .dead_letter
            .as_ref()
            .expect("counting needs DEADLETTER");
        // One sweep per queue and dead-letter clause: the keys, each with
        // its length, and the bound.
        let mut identity = Vec::new();
        for key in [&dead_letter.dead, &dead_letter.deliveries] {
            identity.extend_from_slice(&key.as_bytes().len().to_le_bytes());
            identity.extend_from_slice(key.as_bytes());
        }
        identity.extend_from_slice(&dead_letter.max_deliveries.to_le_bytes());
        let queue = OwnedRStr::new(self.key.as_bytes());
        self.ctx.defer(
            self.key,
            &identity,
            Box::new(move |ctx| sweep_step(ctx, &queue, &lease).map_err(|e| e.to_string())),
        );
        Ok(())
    }
}

/// One background step of moving dead tasks out of `queue`, ahead of its
/// live ones (`logic::delay::sweep_dead`), for a poll with this lease and
/// dead-letter clause that met more of them than it may move.
fn sweep_step(
    ctx: &Ctx,
    queue: &RStr,
    lease: &LeaseArgs<OwnedRStr>,
) -> Result<Progress, ZkitError> {
    let lease = lease.borrowed();
    let dead_letter = lease
        .dead_letter
        .as_ref()
        .expect("counting needs DEADLETTER");
    // The keys may have changed since the poll.
    ctx.check_key_type(dead_letter.dead, KeyKind::Zset)?;
    ctx.check_key_type(dead_letter.deliveries, KeyKind::Zset)?;
    let max_deliveries = dead_letter.max_deliveries;
    let mut tasks = ZsetQueue {
        ctx,
        key: queue,
        lease: Some(&lease),
        head: None,
        held: None,
    };
    Ok(
        match delay::sweep_dead(&mut tasks, ctx.now_ms(), max_deliveries)? {
            true => Progress::More,
            false => Progress::Done,
        },
    )
}

/// What a poll answers: `[[member, due-ms], ...]` (due-ms as ZSCORE prints
/// it), written straight to the client; for a blocking poll, nil on timeout
/// or nothing yet (blocked).
enum Polled {
    Tasks(Tasks<OwnedRStr>),
    TimedOut,
    Blocked,
}

impl WriteReply for Polled {
    fn write(&self, ctx: &Ctx) {
        match self {
            Polled::Tasks(tasks) => {
                ctx.reply_array(tasks.len());
                for (task, due) in tasks {
                    ctx.reply_array(2);
                    ctx.reply_str(task);
                    ctx.reply_f64(*due);
                }
            }
            Polled::TimedOut => ctx.reply_null_array(),
            Polled::Blocked => {}
        }
    }
}

request! {
    /// DELAY.POLL `key [COUNT n] [LEASE inflight ms] [DEADLETTER dead deliveries n]`.
    struct Poll<'a> {
        key: &'a RStr = key,
        options: PollOptions<'a> = part,
    }
}

/// -> `[[member, due-ms], ...]`.
fn poll(ctx: &Ctx, args: Poll<'_>) -> Result<Polled, ZkitError> {
    let (count, lease) = args.options.check()?;
    Ok(match claim(ctx, args.key, count, lease.as_ref())? {
        Claim::Claimed(tasks) => Polled::Tasks(tasks),
        Claim::NothingDue { .. } => Polled::Tasks(Tasks::new()),
    })
}

request! {
    /// DELAY.BPOLL `key timeout-ms [COUNT n] [LEASE ...] [DEADLETTER ...]`.
    struct BlockingPoll<'a> {
        key: &'a RStr = key,
        timeout_ms: i64 = integer,
        options: PollOptions<'a> = part,
    }
}

/// -> `[[member, due-ms], ...]`, or nil on timeout.
fn bpoll(ctx: &Ctx, args: BlockingPoll<'_>) -> Result<Polled, ZkitError> {
    let BlockingPoll {
        key,
        timeout_ms: timeout,
        options,
    } = args;
    if timeout < 0 {
        return Err(ZkitError::OutOfRange {
            what: "timeout",
            limit: bound::NEGATIVE,
        });
    }
    if timeout > MAX_DURATION_MS {
        return Err(ZkitError::OutOfRange {
            what: "timeout",
            limit: bound::TOO_LARGE,
        });
    }
    let (count, lease) = options.check()?;
    let earliest = match claim(ctx, key, count, lease.as_ref())? {
        Claim::Claimed(tasks) => return Ok(Polled::Tasks(tasks)),
        Claim::NothingDue { earliest } => earliest,
    };
    // Like BZPOPMIN: inside MULTI or a script, answer as a timeout at once.
    if !ctx.may_block() {
        return Ok(Polled::TimedOut);
    }
    let waiter = PollWaiter {
        key: OwnedRStr::new(key.as_bytes()),
        count,
        lease: lease.as_ref().map(LeaseArgs::to_owned),
    };
    let wake_at = earliest.map(|due| wake_at_ms(due, ctx.now_ms()));
    ctx.block_on_zset(waiter, timeout, wake_at)?;
    Ok(Polled::Blocked)
}

/// A blocked DELAY.BPOLL: its own copy of the arguments, tried whenever the
/// queue may have a due task.
struct PollWaiter {
    key: OwnedRStr,
    count: usize,
    lease: Option<LeaseArgs<OwnedRStr>>,
}

impl ZsetWaiter for PollWaiter {
    type Error = ZkitError;

    fn key(&self) -> &RStr {
        &self.key
    }

    /// Ready when a claim would deliver a task; dead tasks alone do not
    /// wake the client (see `logic::delay::outlook`), so `serve` never
    /// writes without serving.
    fn readiness(&mut self, ctx: &Ctx) -> Result<Readiness, ZkitError> {
        let now = ctx.now_ms();
        let lease = self.lease.as_ref().map(LeaseArgs::borrowed);
        let max_deliveries = lease
            .as_ref()
            .and_then(|lease| lease.dead_letter.as_ref())
            .map(|dead_letter| dead_letter.max_deliveries);
        let mut queue = ZsetQueue {
            ctx,
            key: &self.key,
            lease: lease.as_ref(),
            head: None,
            held: None,
        };
        Ok(match outlook(&mut queue, now, max_deliveries)? {
            Outlook::Deliverable => Readiness::Ready,
            Outlook::Wait { next_due } => Readiness::Wait {
                wake_at_ms: next_due.map(|due| wake_at_ms(due, now)),
            },
        })
    }

    /// Claims, counts deliveries and moves dead tasks: every write of a
    /// blocked poll happens here, after the write gate accepted a write,
    /// and only when `readiness` found a task to deliver.
    fn serve(&mut self, ctx: &Ctx) -> Result<Attempt, ZkitError> {
        let lease = self.lease.as_ref().map(LeaseArgs::borrowed);
        match claim(ctx, &self.key, self.count, lease.as_ref())? {
            Claim::Claimed(tasks) => {
                ctx.reply(&Polled::Tasks(tasks));
                Ok(Attempt::Served)
            }
            Claim::NothingDue { earliest } => Ok(Attempt::Wait {
                wake_at_ms: earliest.map(|due| wake_at_ms(due, ctx.now_ms())),
            }),
        }
    }

    fn time_out(&mut self, ctx: &Ctx) {
        ctx.reply(&Polled::TimedOut);
    }
}

request! {
    /// DELAY.ACK `inflight [DELIVERIES deliveries] TASKS task [task ...]`.
    struct Ack<'a> {
        inflight: &'a RStr = key,
        deliveries: Option<&'a RStr> = option(Request::key),
        tasks: WordList<'a> = words,
    }
}

/// -> the number removed.
fn ack(ctx: &Ctx, args: Ack<'_>) -> Result<i64, ZkitError> {
    let Ack {
        inflight: key,
        deliveries,
        tasks,
    } = args;
    if let Some(deliveries) = deliveries {
        ctx.check_key_type(deliveries, KeyKind::Zset)?;
    }
    // A removal that finds nothing writes nothing, so the key opens for
    // writing at once; only a server that could not replicate a removal
    // looks first, to answer 0 rather than refuse when nothing is held.
    if !ctx.can_record_writes() {
        let any_held = ctx
            .open_zset(key)?
            .is_some_and(|held| tasks.clone().any(|task| held.score(task).is_some()));
        if !any_held {
            return Ok(0);
        }
    }
    let mut held = ctx.open_zset_mut(key)?;
    // Only the counts of tasks that were in flight: a task handed back with
    // DELAY.NACK keeps counting towards its dead letter.
    let mut removed: Vec<&RStr> = Vec::new();
    let mut removed_count = 0;
    for task in tasks {
        if held.remove(task) {
            removed_count += 1;
            if deliveries.is_some() {
                removed.push(task);
            }
        }
    }
    drop(held);
    if let Some(deliveries) = deliveries {
        let mut counts = ctx.open_zset_mut(deliveries)?;
        for task in &removed {
            counts.remove(task);
        }
    }
    TASKS_ACKED.add(removed_count);
    Ok(removed_count as i64)
}

/// The in-flight set `inflight`, open for writing, when it holds `task`
/// under a lease that has not ended at `now`; else `None`, and nothing is
/// written. The set opens for writing at once (a lookup that finds nothing
/// held writes nothing); only a server that could not replicate a write
/// looks first, to answer "not held" rather than refuse.
fn holding<'a>(
    ctx: &'a Ctx,
    inflight: &'a RStr,
    task: &RStr,
    now: i64,
) -> Result<Option<Zset<'a>>, ZkitError> {
    if !ctx.can_record_writes() {
        let lease_end = ctx.open_zset(inflight)?.and_then(|held| held.score(task));
        if !is_held(lease_end, now) {
            return Ok(None);
        }
    }
    let held = ctx.open_zset_mut(inflight)?;
    Ok(is_held(held.score(task), now).then_some(held))
}

request! {
    /// DELAY.NACK `inflight queue member delay-ms`.
    struct Nack<'a> {
        inflight: &'a RStr = key,
        queue: &'a RStr = key,
        task: &'a RStr = string,
        delay_ms: i64 = integer,
    }
}

/// -> 1 when moved, else 0.
fn nack(ctx: &Ctx, args: Nack<'_>) -> Result<Reply, ZkitError> {
    let Nack {
        inflight,
        queue,
        task,
        delay_ms,
    } = args;
    let now = ctx.now_ms();
    let due = retry_at(now, delay_ms).ok_or(ZkitError::OutOfRange {
        what: "delay",
        limit: bound::DELAY_MS,
    })?;
    // A queue that is its own in-flight set (a visibility timeout): the
    // task only moves to its new due time.
    let own_queue = inflight.as_bytes() == queue.as_bytes();
    if !own_queue {
        ctx.check_key_type(queue, KeyKind::Zset)?;
    }
    let Some(mut held) = holding(ctx, inflight, task, now)? else {
        return Ok(Reply::Int(0));
    };
    let mut tasks = match own_queue {
        true => held,
        false => {
            held.remove(task);
            drop(held);
            ctx.open_zset_mut(queue)?
        }
    };
    let created = tasks.is_empty();
    tasks.add(task, due as f64)?;
    small_layout::after_write(ctx, queue, &mut tasks, created);
    Ok(Reply::Int(1))
}

request! {
    /// DELAY.TOUCH `inflight member ms`.
    struct Touch<'a> {
        inflight: &'a RStr = key,
        task: &'a RStr = string,
        ms: i64 = integer,
    }
}

/// -> 1 when the lease was extended, else 0.
fn touch(ctx: &Ctx, args: Touch<'_>) -> Result<Reply, ZkitError> {
    let Touch { inflight, task, ms } = args;
    let now = ctx.now_ms();
    let until = deadline(now, ms).ok_or_else(lease_out_of_range)?;
    let Some(mut held) = holding(ctx, inflight, task, now)? else {
        return Ok(Reply::Int(0));
    };
    held.add(task, until as f64)?;
    small_layout::after_write(ctx, inflight, &mut held, false);
    Ok(Reply::Int(1))
}

declare_command! {
    pub static STATS: Command = {
        name: "delay.stats",
        handler: stats,
        flags: "readonly fast",
        acl_categories: "read sortedset fast",
        summary: "Returns a queue's depth and lag, read by name: now-ms, tasks, due, oldest-due-age-ms, next-due-ms, and with the sets named inflight, expired (leases that ended), dead and redelivered (tasks counted more than once); nil for a set not named.",
        complexity: "O(log(N)) with N the members of the largest set named.",
        since: "0.4.0",
        history: &[],
        reply: R::Fields(&DELAY_STATS),
        args: &[
            Arg::key("queue", kf::RO | kf::ACCESS),
            Arg::key("inflight", kf::RO).token("INFLIGHT").optional(),
            Arg::key("dead", kf::RO).token("DEAD").optional(),
            Arg::key("deliveries", kf::RO).token("DELIVERIES").optional(),
        ],
    }
}

request! {
    /// DELAY.STATS `queue [INFLIGHT inflight] [DEAD dead] [DELIVERIES
    /// deliveries]`.
    struct Stats<'a> {
        queue: &'a RStr = key,
        inflight: Option<&'a RStr> = option(Request::key),
        dead: Option<&'a RStr> = option(Request::key),
        deliveries: Option<&'a RStr> = option(Request::key),
    }
}

/// -> `[now-ms, tasks, due, oldest-due-age-ms, next-due-ms, inflight,
/// expired, dead, redelivered]` by name: counts by score (ZCOUNT) and the
/// first score on each side of now, a few O(log N) lookups per set.
fn stats(ctx: &Ctx, args: Stats<'_>) -> Result<Reply, ZkitError> {
    let Stats {
        queue,
        inflight,
        dead,
        deliveries,
    } = args;
    // Every type first: a WRONGTYPE answers before any count.
    let tasks = ctx.key_len(queue, KeyKind::Zset)?;
    let set_len = |key: Option<&RStr>| -> Result<Option<i64>, ZkitError> {
        key.map(|key| Ok(ctx.key_len(key, KeyKind::Zset)? as i64))
            .transpose()
    };
    let (inflight_len, dead_len) = (set_len(inflight)?, set_len(dead)?);
    set_len(deliveries)?;

    let now = ctx.now_ms();
    let due = delay::due_bound(now);
    let (mut earliest, mut next_due) = (None, None);
    if let Some(mut queue) = ctx.open_zset(queue)? {
        earliest = queue.iter_asc(ScoreBound::MIN, ScoreBound::MAX).next();
        next_due = queue
            .iter_asc(ScoreBound::Exclusive(due), ScoreBound::MAX)
            .next();
    }
    let count = |key: &RStr, min: f64, max: f64| -> Result<i64, ZkitError> {
        let (min, max) = (ScoreBound::Inclusive(min), ScoreBound::Inclusive(max));
        Ok(stats::count_between(ctx, key, min, max)? as i64)
    };
    let due_now = match earliest {
        Some((_, score)) if score <= due => count(queue, f64::NEG_INFINITY, due)?,
        _ => 0,
    };
    let expired = inflight
        .map(|key| count(key, f64::NEG_INFINITY, due))
        .transpose()?;
    // A task counted twice or more was delivered again (its lease ended, or
    // it was handed back).
    let redelivered = deliveries
        .map(|key| count(key, 2.0, f64::INFINITY))
        .transpose()?;

    let mut fields = Fields::default();
    fields.int("now-ms", now);
    fields.int("tasks", tasks as i64);
    fields.int("due", due_now);
    fields.int(
        "oldest-due-age-ms",
        earliest.map_or(0, |(_, score)| due_age_ms(score, now)),
    );
    fields.maybe_int(
        "next-due-ms",
        next_due.and_then(|(_, score)| due_time_ms(score)),
    );
    fields.maybe_int("inflight", inflight_len);
    fields.maybe_int("expired", expired);
    fields.maybe_int("dead", dead_len);
    fields.maybe_int("redelivered", redelivered);
    Ok(fields.into_reply())
}
