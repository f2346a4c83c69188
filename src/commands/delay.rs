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
//! (at-least-once). DELAY.ACK removes finished tasks from it.
//!
//! Syntax note: the lease's key comes right after `LEASE`
//! (`LEASE inflight ms`), so a keyword key spec can declare it: COMMAND
//! GETKEYS, ACL key patterns and cluster routing all see both keys.

use super::args::{parse_i64, parse_positive, Options};
use super::{Command, Counter};
use crate::declare_command;
use crate::error::{bound, ZkitError};
use crate::host::{
    key_flags as kf, Arg, Attempt, BeginSearch, Ctx, FindKeys, KeyKind, KeySpec, OwnedRStr, RStr,
    Readiness, ScoreBound, ZsetWaiter,
};
use crate::logic::clock::{deadline, MAX_DURATION_MS};
use crate::logic::delay::{self, due_bound, wake_at_ms, Claim, TaskQueue};

pub static COMMANDS: &[&Command] = &[&POLL, &BPOLL, &ACK];

/// Tasks handed to pollers (with or without a lease), and tasks acknowledged.
pub static TASKS_CLAIMED: Counter = Counter::new();
pub static TASKS_ACKED: Counter = Counter::new();

/// The queue, then the in-flight zset after `LEASE` (searched from `start`).
const fn poll_keys(start: i32) -> [KeySpec; 2] {
    [
        KeySpec::at(1, kf::RW | kf::ACCESS | kf::DELETE),
        KeySpec {
            flags: kf::RW | kf::UPDATE,
            begin: BeginSearch::Keyword {
                keyword: "LEASE",
                start,
            },
            find: FindKeys::Range {
                last: 0,
                step: 1,
                limit: 0,
            },
        },
    ]
}

const LEASE_ARG: Arg = Arg::block("lease", &[Arg::key("inflight", 1), Arg::integer("ms")])
    .token("LEASE")
    .optional();

declare_command! {
    pub static POLL: Command = {
        name: "delay.poll",
        handler: poll,
        // No deny-oom: polling drains the queue, and refusing it under memory
        // pressure would stop the workers that free memory.
        flags: "write",
        acl_categories: "write sortedset slow",
        arity: -2,
        key_specs: &poll_keys(2),
        summary: "Claims up to count tasks that are due (score <= the server's unix ms), earliest first: removes them from the queue, or with LEASE moves them into inflight scored by the lease's end. Returns [[member, due-ms], ...].",
        complexity: "O((M+1)*log(N)) with M the tasks claimed and N the tasks in the queue.",
        since: "0.1.0",
        args: &[
            Arg::key("key", 0),
            Arg::integer("count").token("COUNT").optional(),
            LEASE_ARG,
        ],
    }
}

declare_command! {
    pub static BPOLL: Command = {
        name: "delay.bpoll",
        handler: bpoll,
        flags: "write blocking",
        acl_categories: "write sortedset slow blocking",
        arity: -3,
        key_specs: &poll_keys(3),
        summary: "DELAY.POLL that blocks until a task is due or timeout-ms passes (0: forever); nil on timeout. Inside MULTI or a script it does not block.",
        complexity: "O((M+1)*log(N)) with M the tasks claimed and N the tasks in the queue.",
        since: "0.1.0",
        args: &[
            Arg::key("key", 0),
            Arg::integer("timeout-ms"),
            Arg::integer("count").token("COUNT").optional(),
            LEASE_ARG,
        ],
    }
}

declare_command! {
    pub static ACK: Command = {
        name: "delay.ack",
        handler: ack,
        flags: "write fast",
        acl_categories: "write sortedset fast",
        arity: -3,
        key_specs: &[KeySpec::at(1, kf::RW | kf::DELETE)],
        summary: "Removes finished tasks from an in-flight zset; returns how many were there.",
        complexity: "O(M*log(N)) with M the members given and N the tasks in flight.",
        since: "0.1.0",
        args: &[Arg::key("inflight", 0), Arg::string("member").multiple()],
    }
}

/// A poll's options: how many tasks, and where to lease them.
struct PollOptions<K> {
    count: usize,
    /// The in-flight zset and the lease in ms.
    lease: Option<(K, i64)>,
}

/// `[COUNT n] [LEASE inflight ms]`, each at most once (a second LEASE would
/// also name a key the key specs do not declare).
fn parse_poll_options(args: &[RStr]) -> Result<PollOptions<&RStr>, ZkitError> {
    let (mut count, mut lease) = (None, None);
    let mut options = Options::new(args, &["COUNT", "LEASE"]);
    while let Some(option) = options.next_option()? {
        if option == "COUNT" {
            count = Some(parse_positive(options.value()?.as_bytes(), "count")?);
        } else {
            let inflight = options.value()?;
            let ms = options.int()?;
            if !(1..=MAX_DURATION_MS).contains(&ms) {
                return Err(lease_out_of_range());
            }
            lease = Some((inflight, ms));
        }
    }
    Ok(PollOptions {
        count: count.unwrap_or(1),
        lease,
    })
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
    lease: Option<(&RStr, i64)>,
) -> Result<Claim<OwnedRStr>, ZkitError> {
    if let Some((inflight, _)) = lease {
        ctx.check_key_type(inflight, KeyKind::Zset)?;
    }
    let now = ctx.now_ms();
    let lease_until = lease
        .map(|(_, ms)| deadline(now, ms).ok_or_else(lease_out_of_range))
        .transpose()?;
    let mut queue = ZsetQueue {
        ctx,
        key,
        inflight: lease.map(|(inflight, _)| inflight),
    };
    let claim = delay::claim(&mut queue, now, count, lease_until)?;
    if let Claim::Claimed(tasks) = &claim {
        TASKS_CLAIMED.add(tasks.len() as u64);
    }
    Ok(claim)
}

/// A queue kept in a sorted set, and its in-flight set. It is read on a
/// read-only handle, so a poll that finds nothing due does not signal WATCH.
struct ZsetQueue<'c> {
    ctx: &'c Ctx,
    key: &'c RStr,
    inflight: Option<&'c RStr>,
}

impl TaskQueue for ZsetQueue<'_> {
    type Task = OwnedRStr;
    type Error = ZkitError;

    fn due(&mut self, due: f64, count: usize) -> Result<Vec<(OwnedRStr, f64)>, ZkitError> {
        Ok(match self.ctx.open_zset(self.key)? {
            Some(mut queue) => queue
                .iter_asc(ScoreBound::MIN, ScoreBound::Inclusive(due))
                .take(count)
                .collect(),
            None => Vec::new(),
        })
    }

    fn earliest(&mut self) -> Result<Option<f64>, ZkitError> {
        Ok(self.ctx.open_zset(self.key)?.and_then(|mut queue| {
            queue
                .iter_asc(ScoreBound::MIN, ScoreBound::MAX)
                .next()
                .map(|(_, score)| score)
        }))
    }

    fn take(&mut self, tasks: &[(OwnedRStr, f64)]) -> Result<(), ZkitError> {
        let mut queue = self.ctx.open_zset_mut(self.key)?;
        for (task, _) in tasks {
            queue.remove(task);
        }
        Ok(())
    }

    fn lease(&mut self, tasks: &[(OwnedRStr, f64)], until: i64) -> Result<(), ZkitError> {
        let inflight = self.inflight.expect("a lease names its in-flight set");
        let mut held = self.ctx.open_zset_mut(inflight)?;
        for (task, _) in tasks {
            held.add(task, until as f64)?;
        }
        Ok(())
    }
}

/// `[[member, due-ms], ...]`, due-ms as ZSCORE prints it.
fn reply_tasks(ctx: &Ctx, tasks: &[(OwnedRStr, f64)]) {
    ctx.reply_array(tasks.len());
    for (member, due) in tasks {
        ctx.reply_array(2);
        ctx.reply_str(member);
        ctx.reply_f64(*due);
    }
}

/// DELAY.POLL `key [COUNT n] [LEASE inflight ms]` -> `[[member, due-ms], ...]`.
fn poll(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    let options = parse_poll_options(&args[2..])?;
    match claim(ctx, &args[1], options.count, options.lease)? {
        Claim::Claimed(tasks) => reply_tasks(ctx, &tasks),
        Claim::NothingDue { .. } => ctx.reply_array(0),
    }
    Ok(())
}

/// DELAY.BPOLL `key timeout-ms [COUNT n] [LEASE inflight ms]`
/// -> `[[member, due-ms], ...]`, or nil on timeout.
fn bpoll(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    let key = &args[1];
    let timeout = parse_i64(args[2].as_bytes())?;
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
    let options = parse_poll_options(&args[3..])?;
    let earliest = match claim(ctx, key, options.count, options.lease)? {
        Claim::Claimed(tasks) => {
            reply_tasks(ctx, &tasks);
            return Ok(());
        }
        Claim::NothingDue { earliest } => earliest,
    };
    // Like BZPOPMIN: inside MULTI or a script, answer as a timeout at once.
    if !ctx.may_block() {
        ctx.reply_null_array();
        return Ok(());
    }
    let waiter = PollWaiter {
        key: OwnedRStr::new(key.as_bytes()),
        count: options.count,
        lease: options
            .lease
            .map(|(inflight, ms)| (OwnedRStr::new(inflight.as_bytes()), ms)),
    };
    let wake_at = earliest.map(|due| wake_at_ms(due, ctx.now_ms()));
    Ok(ctx.block_on_zset(waiter, timeout, wake_at)?)
}

/// A blocked DELAY.BPOLL: its own copy of the arguments, tried whenever the
/// queue may have a due task.
struct PollWaiter {
    key: OwnedRStr,
    count: usize,
    lease: Option<(OwnedRStr, i64)>,
}

impl ZsetWaiter for PollWaiter {
    type Error = ZkitError;

    fn key(&self) -> &RStr {
        &self.key
    }

    fn readiness(&mut self, ctx: &Ctx) -> Result<Readiness, ZkitError> {
        let now = ctx.now_ms();
        let mut queue = ZsetQueue {
            ctx,
            key: &self.key,
            inflight: None,
        };
        Ok(match queue.earliest()? {
            Some(due) if due <= due_bound(now) => Readiness::Ready,
            earliest => Readiness::Wait {
                wake_at_ms: earliest.map(|due| wake_at_ms(due, now)),
            },
        })
    }

    fn serve(&mut self, ctx: &Ctx) -> Result<Attempt, ZkitError> {
        let lease = self.lease.as_ref().map(|(inflight, ms)| (&**inflight, *ms));
        match claim(ctx, &self.key, self.count, lease)? {
            Claim::Claimed(tasks) => {
                reply_tasks(ctx, &tasks);
                Ok(Attempt::Served)
            }
            Claim::NothingDue { earliest } => Ok(Attempt::Wait {
                wake_at_ms: earliest.map(|due| wake_at_ms(due, ctx.now_ms())),
            }),
        }
    }

    fn time_out(&mut self, ctx: &Ctx) {
        ctx.reply_null_array();
    }
}

/// DELAY.ACK `inflight member [member ...]` -> the number removed.
fn ack(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    let (key, members) = (&args[1], &args[2..]);
    let any_held = ctx
        .open_zset(key)?
        .is_some_and(|held| members.iter().any(|m| held.score(m).is_some()));
    if !any_held {
        ctx.reply_i64(0);
        return Ok(());
    }
    let mut held = ctx.open_zset_mut(key)?;
    let removed = members.iter().filter(|member| held.remove(member)).count();
    drop(held);
    TASKS_ACKED.add(removed as u64);
    ctx.reply_i64(removed as i64);
    Ok(())
}
