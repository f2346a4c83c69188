//! Jobs: DELAY tasks that carry their data. A queue's jobs keep their
//! payload and history in one hash beside the queue (its DATA key, in the
//! same hash slot; `logic::jobs` names its fields), written in the same call
//! as the queue, so claims, acks, deaths and replication move them together
//! and a server without zkit sees a plain hash.
//!
//! DELAY.ADD enqueues with a payload, a dedup rule per task id and an
//! optional not-started-by deadline; DELAY.JOB reads one task's state and
//! history; DELAY.RETRY sends dead tasks back; DELAY.PAUSE and DELAY.RESUME
//! hold and release a queue's polls. DELAY.POLL, BPOLL, ACK and NACK take
//! the DATA key too (`delay.rs`).

use super::config::NumericConfig;
use super::declaration::{Command, Items, WordList};
use super::layout;
use super::reply_types::JOB_INFO;
use super::stats::Fields;
use crate::error::{bound, ZkitError};
use crate::host::ctx::Ctx;
use crate::host::grammar::Arg;
use crate::host::grammar::Request;
use crate::host::hash::Hash;
use crate::host::keyspec::key_flags as kf;
use crate::host::reply::Reply;
use crate::host::reply_shape::ReplyShape as R;
use crate::host::string::OwnedRStr;
use crate::host::string::RStr;
use crate::host::zset::KeyKind;
use crate::host::zset::ScoreBound;
use crate::host::zset::Zset;
use crate::logic::clock::{deadline, MAX_DURATION_MS};
use crate::logic::family;
use crate::logic::jobs::{
    arrival_score, check_data_key, decide, Added, Field, JobError, Rule, MAX_DUE_MS, PAUSED_FIELD,
};
use crate::{declare_command, request};
use smallvec::SmallVec;

/// `zkit.job-payload-max-bytes`: the largest payload DELAY.ADD takes.
pub static PAYLOAD_MAX_BYTES: NumericConfig = NumericConfig::new(
    "job-payload-max-bytes",
    DEFAULT_PAYLOAD_MAX_BYTES,
    1,
    512 << 20,
);
/// 512 KiB: far above a job's usual arguments, far below what stalls a
/// server that copies it on every claim.
const DEFAULT_PAYLOAD_MAX_BYTES: i64 = 512 << 10;

/// `zkit.dead-letters-max`: the most tasks a dead-letter set keeps (0: no
/// bound); past it, a claim that buries tasks removes the oldest dead ones,
/// with their data when the claim names it.
pub static DEAD_LETTERS_MAX: NumericConfig = NumericConfig::new("dead-letters-max", 0, 0, i64::MAX);

/// `zkit.dead-letters-max-age-ms`: how long a dead task is kept (0: no
/// bound); a claim that buries tasks removes the dead ones older than this.
pub static DEAD_LETTERS_MAX_AGE_MS: NumericConfig =
    NumericConfig::new("dead-letters-max-age-ms", 0, 0, MAX_DURATION_MS);

pub(super) const DATA_ARG: Arg = Arg::key("data", kf::RW | kf::UPDATE)
    .token("DATA")
    .optional()
    .since("0.5.0");

declare_command! {
    pub static ADD: Command = {
        name: "delay.add",
        handler: add,
        flags: "write deny-oom",
        acl_categories: "write sortedset hash slow",
        summary: "Adds tasks to a queue, due at due-ms (unix ms; a time past is now), in the order given among tasks due in one millisecond; with JOBS each task's payload goes into the queue's DATA hash. A task the queue already holds (or, with INFLIGHT, a worker holds) is kept as it is (KEEP, the default), replaced (REPLACE: new due time and payload) or pushed back (EXTEND: the due time only moves out, the payload is replaced); a task held by a worker is never touched. WITHIN: a task not delivered within ms of its due time expires. GROUP: the tasks belong to that group (DELAY.GROUP sets its limits). Returns, per task, 1 added, 2 updated, 0 kept.",
        complexity: "O(M*log(N)) with M the tasks given and N the tasks in the queue.",
        since: "0.5.0",
        history: &[],
        reply: R::ArrayOf(&R::Integer),
        examples: &[
            "DELAY.ADD {t}:q DATA {t}:data INFLIGHT {t}:held REPLACE WITHIN 1000 GROUP g JOBS 0 t p",
            "DELAY.ADD {t}:q KEEP TASKS 0 t",
            "DELAY.ADD {t}:q EXTEND TASKS 0 t",
        ],
        args: &[
            Arg::key("queue", kf::RW | kf::UPDATE),
            DATA_ARG,
            Arg::key("inflight", kf::RO | kf::ACCESS)
                .token("INFLIGHT")
                .optional(),
            Arg::one_of(
                "rule",
                &[
                    Arg::pure_token("keep", "KEEP"),
                    Arg::pure_token("replace", "REPLACE"),
                    Arg::pure_token("extend", "EXTEND"),
                ],
            )
            .optional(),
            Arg::integer("ms").token("WITHIN").optional(),
            Arg::string("group").token("GROUP").optional(),
            Arg::one_of(
                "tasks",
                &[
                    Arg::block("task", &[Arg::integer("due-ms"), Arg::string("task")])
                        .token("TASKS")
                        .multiple(),
                    Arg::block(
                        "job",
                        &[
                            Arg::integer("due-ms"),
                            Arg::string("task"),
                            Arg::string("payload"),
                        ],
                    )
                    .token("JOBS")
                    .multiple(),
                ],
            ),
        ],
    }
}

declare_command! {
    pub static JOB: Command = {
        name: "delay.job",
        handler: job,
        flags: "readonly fast",
        acl_categories: "read sortedset hash fast",
        summary: "A task's state (queued, inflight or dead, looked up in that order among the sets named; nil when in none), its score there (due time, lease end or time of death), and from the DATA hash its payload, last failure reason, not-started-by deadline and worker; deliveries: its count in the deliveries set, or for a dead task the count it died with. Fields by name.",
        complexity: "O(log(N)) with N the tasks in the largest set named.",
        since: "0.5.0",
        history: &[],
        reply: R::Fields(&JOB_INFO),
        examples: &[
            "DELAY.JOB {t}:q t INFLIGHT {t}:held DEAD {t}:dead DELIVERIES {t}:n DATA {t}:data",
        ],
        args: &[
            Arg::key("queue", kf::RO | kf::ACCESS),
            Arg::string("task"),
            Arg::key("inflight", kf::RO | kf::ACCESS)
                .token("INFLIGHT")
                .optional(),
            Arg::key("dead", kf::RO | kf::ACCESS).token("DEAD").optional(),
            Arg::key("deliveries", kf::RO | kf::ACCESS)
                .token("DELIVERIES")
                .optional(),
            Arg::key("data", kf::RO | kf::ACCESS).token("DATA").optional(),
        ],
    }
}

declare_command! {
    pub static RETRY: Command = {
        name: "delay.retry",
        handler: retry,
        flags: "write fast",
        acl_categories: "write sortedset hash fast",
        summary: "Sends dead tasks back to their queue, due now (in the order given): each keeps its payload and last failure reason, and its deliveries count again from 0. Returns how many were dead.",
        complexity: "O(M*log(N)) with M the tasks given and N the tasks in the larger set.",
        since: "0.5.0",
        history: &[],
        reply: R::Integer,
        examples: &[
            "DELAY.RETRY {t}:dead {t}:q DATA {t}:data TASKS t",
        ],
        args: &[
            Arg::key("dead", kf::RW | kf::DELETE),
            Arg::key("queue", kf::RW | kf::INSERT),
            DATA_ARG,
            Arg::string("task").token("TASKS").multiple(),
        ],
    }
}

declare_command! {
    pub static PAUSE: Command = {
        name: "delay.pause",
        handler: pause,
        flags: "write fast",
        acl_categories: "write hash fast",
        summary: "Pauses a queue: polls that name its DATA hash deliver nothing (blocked ones stay blocked) until DELAY.RESUME. Returns 1 when it paused the queue, 0 when it was paused.",
        complexity: "O(1).",
        since: "0.5.0",
        history: &[],
        reply: R::Boolean,
        examples: &[
            "DELAY.PAUSE {t}:q {t}:data",
        ],
        args: &[
            Arg::key("queue", kf::RO),
            Arg::key("data", kf::RW | kf::INSERT),
        ],
    }
}

declare_command! {
    pub static RESUME: Command = {
        name: "delay.resume",
        handler: resume,
        flags: "write fast",
        acl_categories: "write hash fast",
        summary: "Resumes a paused queue and wakes the polls blocked on it. Returns 1 when it resumed the queue, 0 when it was not paused.",
        complexity: "O(1).",
        since: "0.5.0",
        history: &[],
        reply: R::Boolean,
        examples: &[
            "DELAY.RESUME {t}:q {t}:data",
        ],
        args: &[
            Arg::key("queue", kf::RO),
            Arg::key("data", kf::RW | kf::DELETE),
        ],
    }
}

/// Every task's data goes: the task is done, or forgotten.
pub(super) fn delete_task_data(data: &mut Hash<'_>, task: &[u8]) {
    for field in Field::ALL {
        data.delete(&field.of(task));
    }
}

/// A field holding an integer (a deadline, a count), if there and one.
pub(super) fn int_field(data: &Hash<'_>, field: &[u8]) -> Option<i64> {
    let value = data.get(field)?;
    std::str::from_utf8(value.as_bytes()).ok()?.parse().ok()
}

/// An integer's text as a server string, for a field's value.
pub(super) fn int_value(n: i64) -> OwnedRStr {
    OwnedRStr::new(itoa::Buffer::new().format(n).as_bytes())
}

/// Whether the queue whose data is `data` is paused.
pub(super) fn is_paused(ctx: &Ctx, data: &RStr) -> Result<bool, ZkitError> {
    Ok(ctx
        .open_hash(data)?
        .is_some_and(|data| data.get(PAUSED_FIELD).is_some()))
}

/// Refuses a queue that holds another family's scores (a gift board's
/// totals would all be due), from its two lowest elements.
pub(super) fn check_is_queue(queue: &mut Zset<'_>) -> Result<(), ZkitError> {
    let lowest: SmallVec<[(OwnedRStr, f64); 2]> = queue
        .iter_asc(ScoreBound::MIN, ScoreBound::MAX)
        .take(2)
        .collect();
    let elements: SmallVec<[family::Element<'_>; 2]> = lowest
        .iter()
        .map(|(task, score)| (task.as_bytes(), *score))
        .collect();
    Ok(family::check_delay_queue(&elements)?)
}

/// The highest score a queue holds within the millisecond `due_ms`.
pub(super) fn latest_in_millisecond(queue: &mut Zset<'_>, due_ms: i64) -> Option<f64> {
    let due = due_ms as f64;
    queue
        .iter_desc(ScoreBound::Inclusive(due), ScoreBound::Exclusive(due + 1.0))
        .next()
        .map(|(_, score)| score)
}

/// DELAY.ADD's tasks: `due task` pairs, or `due task payload` jobs.
enum NewTasks<'a> {
    Tasks(Items<'a, (i64, &'a RStr)>),
    Jobs(Items<'a, (i64, &'a RStr, &'a RStr)>),
}

request! {
    /// DELAY.ADD `queue [DATA data] [INFLIGHT inflight] [KEEP | REPLACE |
    /// EXTEND] [WITHIN ms] <TASKS due task ... | JOBS due task payload ...>`.
    struct Add<'a> {
        queue: &'a RStr = key,
        data: Option<&'a RStr> = option(Request::key),
        inflight: Option<&'a RStr> = option(Request::key),
        rule: Option<Rule> = one_of(&[|_| Rule::Keep, |_| Rule::Replace, |_| Rule::Extend]),
        within_ms: Option<i64> = option(Request::integer),
        group: Option<&'a RStr> = option(Request::string),
        tasks: NewTasks<'a> = choice(&[
                |tasks| NewTasks::Tasks(tasks.items(|t| (t.integer(), t.string()))),
                |jobs| NewTasks::Jobs(jobs.items(|j| (j.integer(), j.string(), j.string()))),
            ]),
    }
}

/// One task of a DELAY.ADD, checked.
struct NewTask<'a> {
    due_ms: i64,
    task: &'a RStr,
    payload: Option<&'a RStr>,
}

/// -> per task: 1 added, 2 updated, 0 kept.
fn add(ctx: &Ctx, args: Add<'_>) -> Result<Reply, ZkitError> {
    let Add {
        queue,
        data,
        inflight,
        rule,
        within_ms,
        group,
        tasks,
    } = args;
    let rule = rule.unwrap_or(Rule::Keep);
    let tasks: Vec<NewTask<'_>> = match tasks {
        NewTasks::Tasks(items) => items
            .map(|(due_ms, task)| NewTask {
                due_ms,
                task,
                payload: None,
            })
            .collect(),
        NewTasks::Jobs(items) => {
            if data.is_none() {
                return Err(JobError::NeedsData("JOBS").into());
            }
            items
                .map(|(due_ms, task, payload)| NewTask {
                    due_ms,
                    task,
                    payload: Some(payload),
                })
                .collect()
        }
    };
    if data.is_none() {
        for (given, option) in [(within_ms.is_some(), "WITHIN"), (group.is_some(), "GROUP")] {
            if given {
                return Err(JobError::NeedsData(option).into());
            }
        }
    }
    if let Some(ms) = within_ms {
        if !(1..=MAX_DURATION_MS).contains(&ms) {
            return Err(ZkitError::OutOfRange {
                what: "WITHIN",
                limit: bound::DURATION_MS,
            });
        }
    }
    let limit = PAYLOAD_MAX_BYTES.get();
    for task in &tasks {
        if !(0..=MAX_DUE_MS).contains(&task.due_ms) {
            return Err(ZkitError::OutOfRange {
                what: "due-ms",
                limit: bound::DUE_MS,
            });
        }
        if let Some(payload) = task.payload {
            let len = payload.as_bytes().len();
            if len as i64 > limit {
                return Err(JobError::PayloadTooLarge { len, limit }.into());
            }
        }
    }
    if let Some(data) = data {
        check_data_key(
            data.as_bytes(),
            &[Some(queue.as_bytes()), inflight.map(RStr::as_bytes)],
        )?;
    }
    if let Some(inflight) = inflight {
        ctx.check_key_type(inflight, KeyKind::Zset)?;
    }
    if let Some(data) = data {
        ctx.check_key_type(data, KeyKind::Hash)?;
        ctx.require_hash_writes()?;
    }
    let mut board = ctx.open_zset_mut(queue)?;
    check_is_queue(&mut board)?;
    // An in-flight set that is the queue itself (a visibility timeout) is
    // read through the queue's own handle, written as the call goes: every
    // task it holds, also one an earlier task of this call added, counts as
    // held, as on a queue that existed before the call.
    let own_queue = inflight.is_some_and(|inflight| inflight.as_bytes() == queue.as_bytes());
    let held = match inflight {
        Some(inflight) if !own_queue => ctx.open_zset(inflight)?,
        _ => None,
    };
    let created = board.is_empty();
    let mut data = match data {
        Some(data) => Some(ctx.open_hash_mut(data)?),
        None => None,
    };
    // A due time in the past is due now: scored now, so tasks added to run
    // at once come out in the order they were added, as later ones do.
    let now = ctx.now_ms();
    let mut replies = Vec::with_capacity(tasks.len());
    for NewTask {
        due_ms,
        task,
        payload,
    } in tasks
    {
        let queued = board.score(task);
        let in_flight = if own_queue {
            queued.is_some()
        } else {
            held.as_ref().is_some_and(|held| held.score(task).is_some())
        };
        let due_ms = due_ms.max(now);
        // WITHIN counts from when the task is due: now, for a time past.
        // Both below 2^53: the sum cannot overflow.
        let deadline_ms = within_ms.and_then(|ms| deadline(due_ms, ms));
        let score = arrival_score(due_ms, latest_in_millisecond(&mut board, due_ms));
        let added = decide(rule, queued, in_flight, score);
        if let Added::New { score } | Added::Updated { score } = added {
            board.add(task, score)?;
            if let Some(data) = data.as_mut() {
                if let Some(payload) = payload {
                    data.set(&Field::Payload.of(task.as_bytes()), payload)?;
                }
                let deadline_field = Field::Deadline.of(task.as_bytes());
                match deadline_ms {
                    Some(at) => data.set(&deadline_field, &int_value(at))?,
                    None => {
                        data.delete(&deadline_field);
                    }
                }
                let group_field = Field::Group.of(task.as_bytes());
                match group {
                    Some(group) => data.set(&group_field, group)?,
                    None => {
                        data.delete(&group_field);
                    }
                }
            }
        }
        replies.push(Reply::Int(added.reply()));
    }
    layout::after_write(ctx, queue, &mut board, created);
    Ok(Reply::Array(replies))
}

request! {
    /// DELAY.JOB `queue task [INFLIGHT inflight] [DEAD dead] [DELIVERIES
    /// deliveries] [DATA data]`.
    struct Job<'a> {
        queue: &'a RStr = key,
        task: &'a RStr = string,
        inflight: Option<&'a RStr> = option(Request::key),
        dead: Option<&'a RStr> = option(Request::key),
        deliveries: Option<&'a RStr> = option(Request::key),
        data: Option<&'a RStr> = option(Request::key),
    }
}

/// -> `[state, score, payload, deliveries, last-reason, deadline-ms,
/// worker]` by name.
fn job(ctx: &Ctx, args: Job<'_>) -> Result<Reply, ZkitError> {
    let Job {
        queue,
        task,
        inflight,
        dead,
        deliveries,
        data,
    } = args;
    for key in [Some(queue), inflight, dead, deliveries]
        .into_iter()
        .flatten()
    {
        ctx.check_key_type(key, KeyKind::Zset)?;
    }
    if let Some(data) = data {
        ctx.check_key_type(data, KeyKind::Hash)?;
    }
    let score_in = |key: Option<&RStr>| -> Result<Option<f64>, ZkitError> {
        Ok(match key {
            Some(key) => ctx.open_zset(key)?.and_then(|set| set.score(task)),
            None => None,
        })
    };
    let states: [(&[u8], Option<&RStr>); 3] = [
        (b"queued", Some(queue)),
        (b"inflight", inflight),
        (b"dead", dead),
    ];
    let mut state = None;
    for (name, key) in states {
        if let Some(score) = score_in(key)? {
            state = Some((name, score));
            break;
        }
    }
    let data = match data {
        Some(data) => ctx.open_hash(data)?,
        None => None,
    };
    let field = |field: Field| {
        data.as_ref()
            .and_then(|d| d.get(&field.of(task.as_bytes())))
    };
    let bulk = |value: Option<OwnedRStr>| {
        value.map_or(Reply::Null, |v| Reply::Bulk(v.as_bytes().to_vec()))
    };
    let int = |field: Field| {
        data.as_ref()
            .and_then(|d| int_field(d, &field.of(task.as_bytes())))
    };
    let is_dead = state.is_some_and(|(name, _)| name == b"dead");
    let counted = score_in(deliveries)?.map(|count| count as i64);
    let delivered = match is_dead {
        true => int(Field::DiedWith).or(counted),
        false => counted,
    };
    let mut fields = Fields::default();
    fields.add(
        "state",
        state.map_or(Reply::Null, |(name, _)| Reply::Bulk(name.to_vec())),
    );
    fields.add(
        "score",
        state.map_or(Reply::Null, |(_, score)| Reply::Double(score)),
    );
    fields.add("payload", bulk(field(Field::Payload)));
    fields.maybe_int("deliveries", delivered);
    fields.add("last-reason", bulk(field(Field::Reason)));
    fields.maybe_int("deadline-ms", int(Field::Deadline));
    fields.add("worker", bulk(field(Field::Worker)));
    Ok(fields.into_reply())
}

request! {
    /// DELAY.RETRY `dead queue [DATA data] TASKS task [task ...]`.
    struct Retry<'a> {
        dead: &'a RStr = key,
        queue: &'a RStr = key,
        data: Option<&'a RStr> = option(Request::key),
        tasks: WordList<'a> = words,
    }
}

/// -> how many were dead.
fn retry(ctx: &Ctx, args: Retry<'_>) -> Result<i64, ZkitError> {
    let Retry {
        dead,
        queue,
        data,
        tasks,
    } = args;
    if let Some(data) = data {
        check_data_key(
            data.as_bytes(),
            &[Some(dead.as_bytes()), Some(queue.as_bytes())],
        )?;
    }
    ctx.check_key_type(queue, KeyKind::Zset)?;
    if let Some(data) = data {
        ctx.check_key_type(data, KeyKind::Hash)?;
        ctx.require_hash_writes()?;
    }
    let any_dead = ctx
        .open_zset(dead)?
        .is_some_and(|set| tasks.clone().any(|task| set.score(task).is_some()));
    if !any_dead {
        return Ok(0);
    }
    let now = ctx.now_ms();
    let mut buried = ctx.open_zset_mut(dead)?;
    let mut back: Vec<&RStr> = Vec::new();
    for task in tasks {
        if buried.remove(task) {
            back.push(task);
        }
    }
    drop(buried);
    let mut board = ctx.open_zset_mut(queue)?;
    let created = board.is_empty();
    for task in &back {
        let score = arrival_score(now, latest_in_millisecond(&mut board, now));
        board.add(task, score)?;
    }
    layout::after_write(ctx, queue, &mut board, created);
    drop(board);
    if let Some(data) = data {
        let mut data = ctx.open_hash_mut(data)?;
        for task in &back {
            data.delete(&Field::DiedWith.of(task.as_bytes()));
        }
    }
    Ok(back.len() as i64)
}

request! {
    /// DELAY.PAUSE and DELAY.RESUME `queue data`.
    struct Hold<'a> {
        queue: &'a RStr = key,
        data: &'a RStr = key,
    }
}

/// -> 1 when the queue was paused now, 0 when it was already.
fn pause(ctx: &Ctx, args: Hold<'_>) -> Result<i64, ZkitError> {
    check_data_key(args.data.as_bytes(), &[Some(args.queue.as_bytes())])?;
    ctx.check_key_type(args.queue, KeyKind::Zset)?;
    let mut data = ctx.open_hash_mut(args.data)?;
    if data.get(PAUSED_FIELD).is_some() {
        return Ok(0);
    }
    data.set(PAUSED_FIELD, &int_value(ctx.now_ms()))?;
    Ok(1)
}

/// -> 1 when the queue was resumed now, 0 when it was not paused. Polls
/// blocked on the queue look again.
fn resume(ctx: &Ctx, args: Hold<'_>) -> Result<i64, ZkitError> {
    check_data_key(args.data.as_bytes(), &[Some(args.queue.as_bytes())])?;
    ctx.check_key_type(args.queue, KeyKind::Zset)?;
    ctx.require_hash_writes()?;
    if !is_paused(ctx, args.data)? {
        return Ok(0);
    }
    let mut data = ctx.open_hash_mut(args.data)?;
    data.delete(PAUSED_FIELD);
    drop(data);
    ctx.wake_waiters(args.queue);
    Ok(1)
}

/// The payload a claimed task carries, and its deliveries (with dead
/// letters), for a poll's WITHDATA reply.
pub(super) struct JobInfo {
    pub payload: Option<OwnedRStr>,
    pub deliveries: Option<i64>,
}
