//! DELAY.ACK, DELAY.NACK and DELAY.TOUCH: what a worker does with the lease
//! a poll gave it (src/commands/delay.rs claims). Each names the task, and
//! with a token the delivery: a late worker's call changes nothing once
//! another delivery holds the task.

use super::counter::Counter;
use super::declaration::{Command, Items, WordList};
use super::groups;
use super::jobs::{delete_task_data, DATA_ARG};
use super::layout;
use crate::error::{bound, ZkitError};
use crate::host::ctx::Ctx;
use crate::host::grammar::Arg;
use crate::host::grammar::Request;
use crate::host::keyspec::key_flags as kf;
use crate::host::reply::Reply;
use crate::host::reply_shape::ReplyShape as R;
use crate::host::string::RStr;
use crate::host::zset::KeyKind;
use crate::host::zset::Zset;

use crate::logic::clock::deadline;
use crate::logic::delay::{holds, is_delivery, retry_at};
use crate::logic::jobs::{check_data_key, Field, JobError};
use crate::{declare_command, request};

/// Tasks acknowledged (DELAY.ACK).
pub static TASKS_ACKED: Counter = Counter::new();

/// A delivery's token, as a leased DELAY.POLL WITHTOKENS returned it.
const TOKEN_ARG: Arg = Arg::integer("token")
    .token("TOKEN")
    .optional()
    .since("0.4.1");

declare_command! {
    pub static ACK: Command = {
        name: "delay.ack",
        handler: ack,
        flags: "write fast",
        acl_categories: "write sortedset fast",
        summary: "Removes finished tasks from an in-flight zset (and, with DELIVERIES, their delivery counts): after TASKS whatever delivery holds them, after LEASES a task only while the delivery its token names holds it. Returns how many were removed.",
        complexity: "O(M*log(N)) with M the members given and N the tasks in flight.",
        since: "0.1.0",
        history: &[
            ("0.2.0", "Added the `DELIVERIES` option."),
            ("0.3.0", "The tasks follow `TASKS`, after the options, so a task is never read as an option."),
            ("0.4.1", "Added `LEASES`: tasks with their deliveries' tokens."),
            ("0.5.0", "Added the `DATA` option: a removed task's data goes with it."),
        ],
        reply: R::Integer,
        examples: &[
            "DELAY.ACK {t}:held DELIVERIES {t}:n TASKS a",
            "DELAY.ACK {t}:held DELIVERIES {t}:n DATA {t}:data LEASES a 1",
        ],
        args: &[
            Arg::key("inflight", kf::RW | kf::DELETE),
            Arg::key("deliveries", kf::RW | kf::DELETE)
                .token("DELIVERIES")
                .optional()
                .since("0.2.0"),
            Arg::key("data", kf::RW | kf::DELETE)
                .token("DATA")
                .optional()
                .since("0.5.0"),
            Arg::one_of(
                "acked",
                &[
                    Arg::string("task").token("TASKS").multiple(),
                    Arg::block("lease", &[Arg::string("task"), Arg::integer("token")])
                        .token("LEASES")
                        .multiple()
                        .since("0.4.1"),
                ],
            ),
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
        summary: "Hands a failed task back for a retry: moves it from inflight into queue, due delay-ms from now (0: now). Returns 1 when moved, 0 when its lease had already ended, it was not in flight, or (with TOKEN) another delivery holds it.",
        complexity: "O(log(N)) with N the tasks in the larger set.",
        since: "0.2.0",
        history: &[
            ("0.4.1", "Added the `TOKEN` option."),
            ("0.5.0", "Added the `DATA` and `REASON` options."),
        ],
        reply: R::Boolean,
        examples: &[
            "DELAY.NACK {t}:held {t}:q a 0 TOKEN 1 DATA {t}:data REASON r",
        ],
        args: &[
            Arg::key("inflight", kf::RW | kf::DELETE),
            Arg::key("queue", kf::RW | kf::UPDATE),
            Arg::string("member"),
            Arg::integer("delay-ms"),
            TOKEN_ARG,
            DATA_ARG,
            Arg::string("reason")
                .token("REASON")
                .optional()
                .since("0.5.0"),
        ],
    }
}

declare_command! {
    pub static TOUCH: Command = {
        name: "delay.touch",
        handler: touch,
        flags: "write fast",
        acl_categories: "write sortedset fast",
        summary: "Extends a lease: the task's lease now ends ms from now. Returns 1 when extended (with TOKEN: the delivery's new token), 0 when the lease had already ended, the task was not in flight, or (with TOKEN) another delivery holds it: its worker must stop.",
        complexity: "O(log(N)) with N the tasks in flight.",
        since: "0.2.0",
        history: &[("0.4.1", "Added the `TOKEN` option.")],
        reply: R::ByOption {
            token: "TOKEN",
            with: &R::Integer,
            without: &R::Boolean,
        },
        examples: &[
            "DELAY.TOUCH {t}:held a 1000 TOKEN 1",
        ],
        args: &[
            Arg::key("inflight", kf::RW | kf::UPDATE),
            Arg::string("member"),
            Arg::integer("ms"),
            TOKEN_ARG,
        ],
    }
}

/// What DELAY.ACK names: tasks, or deliveries (a task and its token).
enum Acked<'a> {
    Tasks(WordList<'a>),
    Leases(Items<'a, (&'a RStr, i64)>),
}

request! {
    /// DELAY.ACK `inflight [DELIVERIES deliveries] TASKS task [task ...] |
    /// LEASES task token [task token ...]`.
    struct Ack<'a> {
        inflight: &'a RStr = key,
        deliveries: Option<&'a RStr> = option(Request::key),
        data: Option<&'a RStr> = option(Request::key),
        acked: Acked<'a> = choice(&[
                |tasks| Acked::Tasks(tasks.words()),
                |leases| Acked::Leases(leases.items(|lease| (lease.string(), lease.integer()))),
            ]),
    }
}

/// Whether a task held with lease end `lease_end` is what an ACK naming
/// `token` removes: any held task without a token, the delivery the token
/// names with one (its lease may have ended: the task was not delivered
/// again, and its work is done).
fn acks(lease_end: Option<f64>, token: Option<i64>) -> bool {
    match token {
        None => lease_end.is_some(),
        Some(token) => is_delivery(lease_end, token),
    }
}

/// -> the number removed.
fn ack(ctx: &Ctx, args: Ack<'_>) -> Result<i64, ZkitError> {
    let Ack {
        inflight,
        deliveries,
        data,
        acked,
    } = args;
    if let Some(data) = data {
        check_data_key(
            data.as_bytes(),
            &[Some(inflight.as_bytes()), deliveries.map(RStr::as_bytes)],
        )?;
    }
    if let Some(deliveries) = deliveries {
        ctx.check_key_type(deliveries, KeyKind::Zset)?;
    }
    if let Some(data) = data {
        ctx.check_key_type(data, KeyKind::Hash)?;
        ctx.require_hash_writes()?;
    }
    let also = Also { deliveries, data };
    // Each list walked by a loop of its own (no chained iterator on the
    // hot unfenced path).
    let removed = match acked {
        Acked::Tasks(tasks) => remove_acked(ctx, inflight, also, tasks.map(|t| (t, None)))?,
        Acked::Leases(leases) => remove_acked(
            ctx,
            inflight,
            also,
            leases.map(|(task, token)| (task, Some(token))),
        )?,
    };
    TASKS_ACKED.add(removed);
    Ok(removed as i64)
}

/// What else an ACK removes a task's traces from.
#[derive(Clone, Copy)]
struct Also<'a> {
    deliveries: Option<&'a RStr>,
    data: Option<&'a RStr>,
}

/// Removes the deliveries `named` names from `inflight` (and their counts
/// from `deliveries`, their data from `data`); returns how many it removed.
fn remove_acked<'a>(
    ctx: &Ctx,
    key: &RStr,
    also: Also<'_>,
    named: impl Iterator<Item = (&'a RStr, Option<i64>)> + Clone,
) -> Result<u64, ZkitError> {
    // A removal that finds nothing writes nothing, so the key opens for
    // writing at once; only a server that could not replicate a removal
    // looks first, to answer 0 rather than refuse when nothing is held.
    if !ctx.can_record_writes() {
        let any_held = ctx.open_zset(key)?.is_some_and(|held| {
            named
                .clone()
                .any(|(task, token)| acks(held.score(task), token))
        });
        if !any_held {
            return Ok(0);
        }
    }
    let mut held = ctx.open_zset_mut(key)?;
    // Only the counts of tasks that were in flight: a task handed back with
    // DELAY.NACK keeps counting towards its dead letter.
    let mut removed: Vec<&RStr> = Vec::new();
    let mut removed_count = 0;
    for (task, token) in named {
        let taken = match token {
            None => held.remove(task),
            Some(_) => acks(held.score(task), token) && held.remove(task),
        };
        if taken {
            removed_count += 1;
            if also.deliveries.is_some() || also.data.is_some() {
                removed.push(task);
            }
        }
    }
    drop(held);
    if let Some(deliveries) = also.deliveries {
        let mut counts = ctx.open_zset_mut(deliveries)?;
        for task in &removed {
            counts.remove(task);
        }
    }
    if let Some(key) = also.data {
        let mut data = ctx.open_hash_mut(key)?;
        let mut freed = false;
        for task in &removed {
            freed |= groups::release(&mut data, task.as_bytes())?;
            delete_task_data(&mut data, task.as_bytes());
        }
        drop(data);
        if freed {
            ctx.wake_waiters(key);
        }
    }
    Ok(removed_count)
}

/// The in-flight set `inflight`, open for writing, when it holds `task`
/// under a lease that has not ended at `now` (with a `token`, the lease of
/// the delivery it names); else `None`, and nothing is written. The set
/// opens for writing at once (a lookup that finds nothing held writes
/// nothing); only a server that could not replicate a write looks first,
/// to answer "not held" rather than refuse.
fn holding<'a>(
    ctx: &'a Ctx,
    inflight: &'a RStr,
    task: &RStr,
    token: Option<i64>,
    now: i64,
) -> Result<Option<Zset<'a>>, ZkitError> {
    if !ctx.can_record_writes() {
        let lease_end = ctx.open_zset(inflight)?.and_then(|held| held.score(task));
        if !holds(lease_end, token, now) {
            return Ok(None);
        }
    }
    let held = ctx.open_zset_mut(inflight)?;
    Ok(holds(held.score(task), token, now).then_some(held))
}

request! {
    /// DELAY.NACK `inflight queue member delay-ms [TOKEN token] [DATA data]
    /// [REASON reason]`.
    struct Nack<'a> {
        inflight: &'a RStr = key,
        queue: &'a RStr = key,
        task: &'a RStr = string,
        delay_ms: i64 = integer,
        token: Option<i64> = option(Request::integer),
        data: Option<&'a RStr> = option(Request::key),
        reason: Option<&'a RStr> = option(Request::string),
    }
}

/// -> 1 when moved, else 0.
fn nack(ctx: &Ctx, args: Nack<'_>) -> Result<Reply, ZkitError> {
    let Nack {
        inflight,
        queue,
        task,
        delay_ms,
        token,
        data,
        reason,
    } = args;
    if reason.is_some() && data.is_none() {
        return Err(JobError::NeedsData("REASON").into());
    }
    let now = ctx.now_ms();
    let due = retry_at(now, delay_ms).ok_or(ZkitError::OutOfRange {
        what: "delay",
        limit: bound::DELAY_MS,
    })?;
    if let Some(data) = data {
        check_data_key(
            data.as_bytes(),
            &[Some(inflight.as_bytes()), Some(queue.as_bytes())],
        )?;
        ctx.check_key_type(data, KeyKind::Hash)?;
        ctx.require_hash_writes()?;
    }
    // A queue that is its own in-flight set (a visibility timeout): the
    // task only moves to its new due time.
    let own_queue = inflight.as_bytes() == queue.as_bytes();
    if !own_queue {
        ctx.check_key_type(queue, KeyKind::Zset)?;
    }
    let Some(mut held) = holding(ctx, inflight, task, token, now)? else {
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
    layout::after_write(ctx, queue, &mut tasks, created);
    drop(tasks);
    if let Some(key) = data {
        let mut data = ctx.open_hash_mut(key)?;
        data.delete(&Field::Worker.of(task.as_bytes()));
        if let Some(reason) = reason {
            data.set(&Field::Reason.of(task.as_bytes()), reason)?;
        }
        // Out of flight until claimed again: its group's slot comes free.
        let freed = !own_queue && groups::release(&mut data, task.as_bytes())?;
        drop(data);
        if freed {
            ctx.wake_waiters(key);
        }
    }
    Ok(Reply::Int(1))
}

request! {
    /// DELAY.TOUCH `inflight member ms [TOKEN token]`.
    struct Touch<'a> {
        inflight: &'a RStr = key,
        task: &'a RStr = string,
        ms: i64 = integer,
        token: Option<i64> = option(Request::integer),
    }
}

/// -> 1 when the lease was extended, else 0; with a token, the delivery's
/// new token (its lease's new end), else 0.
fn touch(ctx: &Ctx, args: Touch<'_>) -> Result<Reply, ZkitError> {
    let Touch {
        inflight,
        task,
        ms,
        token,
    } = args;
    let now = ctx.now_ms();
    let until = deadline(now, ms).ok_or_else(lease_out_of_range)?;
    let Some(mut held) = holding(ctx, inflight, task, token, now)? else {
        return Ok(Reply::Int(0));
    };
    held.add(task, until as f64)?;
    layout::after_write(ctx, inflight, &mut held, false);
    Ok(Reply::Int(match token {
        Some(_) => until,
        None => 1,
    }))
}

/// The refusal of a lease that would end past the longest duration zkit
/// takes (`bound::DURATION_MS`).
pub(super) fn lease_out_of_range() -> ZkitError {
    ZkitError::OutOfRange {
        what: "lease",
        limit: bound::DURATION_MS,
    }
}
