//! Repeating jobs: DELAY.SCHEDULE puts a schedule (every N ms, or cron in a
//! time zone) in a queue's DATA hash and its first occurrence in the queue;
//! the claim that takes an occurrence puts the next one in the queue, in the
//! same call ([`advance`], from the polls in `delay.rs`). DELAY.UNSCHEDULE
//! cancels one, DELAY.SCHEDULES lists them. `logic::schedule` holds the
//! rules and the occurrences' task ids.
//!
//! A schedule's fields in the DATA hash (beside its tasks', `logic::jobs`):
//! `s:<id>` its rule (`every <ms>`, `cron <zone> <expression>`), `n:<id>`
//! the time of its pending occurrence (the one in the queue), `t:<id>` the
//! payload each occurrence carries.

use super::declaration::Command;
use super::jobs::{check_is_queue, int_field, int_value, latest_in_millisecond, PAYLOAD_MAX_BYTES};
use super::layout;
use super::reply_types::SCHEDULE_ROW;
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
use crate::logic::jobs::{arrival_score, check_data_key, Field, JobError, MAX_DUE_MS};
use crate::logic::schedule::{occurrence_of, occurrence_task, Rule, ScheduleError};
use crate::{declare_command, request};

/// A schedule's fields in the DATA hash.
#[derive(Clone, Copy)]
enum Part {
    Rule,
    Next,
    Payload,
}

impl Part {
    const ALL: [Part; 3] = [Part::Rule, Part::Next, Part::Payload];

    fn of(self, id: &[u8]) -> Vec<u8> {
        let tag = match self {
            Part::Rule => b's',
            Part::Next => b'n',
            Part::Payload => b't',
        };
        let mut name = Vec::with_capacity(id.len() + 2);
        name.extend_from_slice(&[tag, b':']);
        name.extend_from_slice(id);
        name
    }
}

declare_command! {
    pub static SCHEDULE: Command = {
        name: "delay.schedule",
        handler: schedule,
        flags: "write deny-oom",
        acl_categories: "write sortedset hash slow",
        summary: "Adds or changes a repeating job: every ms (from START, default now) or at the times a five-field cron expression matches in time zone TZ (default UTC). Its first occurrence goes into the queue as the task <id>@<unix-ms> (with PAYLOAD as its payload); the poll that claims an occurrence puts the next one in the queue. A schedule changed replaces its pending occurrence. Returns the first occurrence's time (unix ms).",
        complexity: "O(log(N)) with N the tasks in the queue.",
        since: "0.5.0",
        history: &[],
        reply: R::Integer,
        examples: &[
            "DELAY.SCHEDULE {t}:q {t}:data s CRON \"0 9 * * *\" TZ Europe/Paris START 0 PAYLOAD p",
            "DELAY.SCHEDULE {t}:q {t}:data s EVERY 1000",
        ],
        args: &[
            Arg::key("queue", kf::RW | kf::UPDATE),
            Arg::key("data", kf::RW | kf::UPDATE),
            Arg::string("id"),
            Arg::one_of(
                "rule",
                &[
                    Arg::integer("ms").token("EVERY"),
                    Arg::string("expression").token("CRON"),
                ],
            ),
            Arg::string("zone").token("TZ").optional(),
            Arg::integer("unix-ms").token("START").optional(),
            Arg::string("payload").token("PAYLOAD").optional(),
        ],
    }
}

declare_command! {
    pub static UNSCHEDULE: Command = {
        name: "delay.unschedule",
        handler: unschedule,
        flags: "write fast",
        acl_categories: "write sortedset hash fast",
        summary: "Cancels a repeating job: its schedule and its pending occurrence (still in the queue) go; an occurrence a worker holds runs to its end. Returns 1 when the schedule existed, else 0.",
        complexity: "O(log(N)) with N the tasks in the queue.",
        since: "0.5.0",
        history: &[],
        reply: R::Boolean,
        examples: &[
            "DELAY.UNSCHEDULE {t}:q {t}:data s",
        ],
        args: &[
            Arg::key("queue", kf::RW | kf::DELETE),
            Arg::key("data", kf::RW | kf::DELETE),
            Arg::string("id"),
        ],
    }
}

declare_command! {
    pub static SCHEDULES: Command = {
        name: "delay.schedules",
        handler: schedules,
        flags: "readonly",
        acl_categories: "read hash slow",
        summary: "Lists a queue's repeating jobs by id: each one's rule (every-ms, or cron and tz), the time of its pending occurrence (nil once a cron rule matches no more) and its payload.",
        complexity: "O(N) with N the fields of the DATA hash.",
        since: "0.5.0",
        history: &[],
        reply: R::ArrayOf(&R::Tuple(&SCHEDULE_ROW)),
        examples: &[
            "DELAY.SCHEDULES {t}:q {t}:data",
        ],
        args: &[
            Arg::key("queue", kf::RO),
            Arg::key("data", kf::RO | kf::ACCESS),
        ],
    }
}

/// How DELAY.SCHEDULE's rule was given.
enum GivenRule<'a> {
    Every(i64),
    Cron(&'a RStr),
}

request! {
    /// DELAY.SCHEDULE `queue data id <EVERY ms | CRON expression> [TZ
    /// zone] [START unix-ms] [PAYLOAD payload]`.
    struct Schedule<'a> {
        queue: &'a RStr = key,
        data: &'a RStr = key,
        id: &'a RStr = string,
        rule: GivenRule<'a> = choice(&[
                |every| GivenRule::Every(every.integer()),
                |cron| GivenRule::Cron(cron.string()),
            ]),
        zone: Option<&'a RStr> = option(Request::string),
        start: Option<i64> = option(Request::integer),
        payload: Option<&'a RStr> = option(Request::string),
    }
}

/// -> the first occurrence's time.
fn schedule(ctx: &Ctx, args: Schedule<'_>) -> Result<i64, ZkitError> {
    let Schedule {
        queue,
        data,
        id,
        rule,
        zone,
        start,
        payload,
    } = args;
    let zone = zone.map(|zone| String::from_utf8_lossy(zone.as_bytes()).into_owned());
    let rule = match rule {
        GivenRule::Every(ms) => {
            if zone.is_some() {
                return Err(ScheduleError::ZoneWithoutCron.into());
            }
            Rule::every(ms).ok_or(ZkitError::OutOfRange {
                what: "EVERY",
                limit: bound::DURATION_MS,
            })?
        }
        GivenRule::Cron(expression) => {
            let expression = String::from_utf8_lossy(expression.as_bytes());
            Rule::cron(&expression, zone.as_deref())?
        }
    };
    let now = ctx.now_ms();
    let start = start.unwrap_or(now);
    if !(0..=MAX_DUE_MS).contains(&start) {
        return Err(ZkitError::OutOfRange {
            what: "START",
            limit: bound::DUE_MS,
        });
    }
    let first = rule.first(start).ok_or(ScheduleError::NeverMatches)?;
    if let Some(payload) = payload {
        let (len, limit) = (payload.as_bytes().len(), PAYLOAD_MAX_BYTES.get());
        if len as i64 > limit {
            return Err(JobError::PayloadTooLarge { len, limit }.into());
        }
    }
    check_data_key(data.as_bytes(), &[Some(queue.as_bytes())])?;
    ctx.check_key_type(data, KeyKind::Hash)?;
    ctx.require_hash_writes()?;
    let mut tasks = ctx.open_zset_mut(queue)?;
    check_is_queue(&mut tasks)?;
    drop(tasks);
    let mut hash = ctx.open_hash_mut(data)?;
    // A change replaces the pending occurrence: the new rule's first one
    // takes its place.
    remove_pending(ctx, queue, &mut hash, id.as_bytes())?;
    let id = id.as_bytes();
    hash.set(&Part::Rule.of(id), &OwnedRStr::new(rule.text().as_bytes()))?;
    match payload {
        Some(payload) => hash.set(&Part::Payload.of(id), payload)?,
        None => {
            hash.delete(&Part::Payload.of(id));
        }
    }
    enqueue(ctx, queue, &mut hash, id, first, now)?;
    Ok(first)
}

/// Puts schedule `id`'s occurrence at `at_ms` in `queue` (due now when its
/// time has passed), with the schedule's payload, and makes it the pending
/// one.
fn enqueue(
    ctx: &Ctx,
    queue: &RStr,
    hash: &mut Hash<'_>,
    id: &[u8],
    at_ms: i64,
    now_ms: i64,
) -> Result<(), ZkitError> {
    let task = OwnedRStr::new(&occurrence_task(id, at_ms));
    let mut tasks = ctx.open_zset_mut(queue)?;
    let created = tasks.is_empty();
    if tasks.score(&task).is_none() {
        let due = at_ms.max(now_ms);
        let score = arrival_score(due, latest_in_millisecond(&mut tasks, due));
        tasks.add(&task, score)?;
    }
    layout::after_write(ctx, queue, &mut tasks, created);
    drop(tasks);
    if let Some(payload) = hash.get(&Part::Payload.of(id)) {
        hash.set(&Field::Payload.of(task.as_bytes()), &payload)?;
    }
    hash.set(&Part::Next.of(id), &int_value(at_ms))?;
    Ok(())
}

/// Removes schedule `id`'s pending occurrence from `queue`, with its data,
/// if it is still there; forgets it either way.
fn remove_pending(
    ctx: &Ctx,
    queue: &RStr,
    hash: &mut Hash<'_>,
    id: &[u8],
) -> Result<(), ZkitError> {
    let Some(at_ms) = int_field(hash, &Part::Next.of(id)) else {
        return Ok(());
    };
    let task = occurrence_task(id, at_ms);
    let mut tasks = ctx.open_zset_mut(queue)?;
    if tasks.remove(&OwnedRStr::new(&task)) {
        drop(tasks);
        super::jobs::delete_task_data(hash, &task);
    }
    hash.delete(&Part::Next.of(id));
    Ok(())
}

/// After a claim took `task` from `queue` at `now_ms`: when it is the
/// pending occurrence of a schedule in `hash`, the schedule's next
/// occurrence goes into `queue` (none once the rule matches no more). Any
/// other task, a redelivered occurrence among them, changes nothing.
pub(super) fn advance(
    ctx: &Ctx,
    queue: &RStr,
    hash: &mut Hash<'_>,
    task: &[u8],
    now_ms: i64,
) -> Result<(), ZkitError> {
    let Some((id, at_ms)) = occurrence_of(task) else {
        return Ok(());
    };
    if int_field(hash, &Part::Next.of(id)) != Some(at_ms) {
        return Ok(());
    }
    let next = hash
        .get(&Part::Rule.of(id))
        .and_then(|rule| Rule::parse(rule.as_bytes()))
        .and_then(|rule| rule.next(at_ms, now_ms));
    match next {
        Some(next) => enqueue(ctx, queue, hash, id, next, now_ms),
        None => {
            hash.delete(&Part::Next.of(id));
            Ok(())
        }
    }
}

request! {
    /// DELAY.UNSCHEDULE `queue data id`.
    struct Unschedule<'a> {
        queue: &'a RStr = key,
        data: &'a RStr = key,
        id: &'a RStr = string,
    }
}

/// -> 1 when the schedule existed.
fn unschedule(ctx: &Ctx, args: Unschedule<'_>) -> Result<i64, ZkitError> {
    let Unschedule { queue, data, id } = args;
    check_data_key(data.as_bytes(), &[Some(queue.as_bytes())])?;
    ctx.check_key_type(queue, KeyKind::Zset)?;
    ctx.check_key_type(data, KeyKind::Hash)?;
    ctx.require_hash_writes()?;
    let id = id.as_bytes();
    let exists = ctx
        .open_hash(data)?
        .is_some_and(|hash| hash.get(&Part::Rule.of(id)).is_some());
    if !exists {
        return Ok(0);
    }
    let mut hash = ctx.open_hash_mut(data)?;
    remove_pending(ctx, queue, &mut hash, id)?;
    for part in Part::ALL {
        hash.delete(&part.of(id));
    }
    Ok(1)
}

request! {
    /// DELAY.SCHEDULES `queue data`.
    struct Schedules<'a> {
        queue: &'a RStr = key,
        data: &'a RStr = key,
    }
}

/// -> `[[id, every-ms, cron, tz, next-ms, payload], ...]`, by id.
fn schedules(ctx: &Ctx, args: Schedules<'_>) -> Result<Reply, ZkitError> {
    ctx.check_key_type(args.queue, KeyKind::Zset)?;
    let Some(hash) = ctx.open_hash(args.data)? else {
        return Ok(Reply::Array(Vec::new()));
    };
    let mut rules = hash.fields_starting_with(&Part::Rule.of(b""));
    rules.sort_by(|a, b| a.0.cmp(&b.0));
    let bulk = |value: Option<OwnedRStr>| {
        value.map_or(Reply::Null, |v| Reply::Bulk(v.as_bytes().to_vec()))
    };
    let rows = rules
        .into_iter()
        .filter_map(|(field, rule)| {
            let id = &field[2..];
            let rule = Rule::parse(rule.as_bytes())?;
            let (every, cron, zone) = match &rule {
                Rule::Every { ms } => (Reply::Int(*ms), Reply::Null, Reply::Null),
                Rule::Cron { expression, zone } => (
                    Reply::Null,
                    Reply::Bulk(expression.as_bytes().to_vec()),
                    Reply::Bulk(zone.name().as_bytes().to_vec()),
                ),
            };
            let next = int_field(&hash, &Part::Next.of(id)).map_or(Reply::Null, Reply::Int);
            Some(Reply::Array(vec![
                Reply::Bulk(id.to_vec()),
                every,
                cron,
                zone,
                next,
                bulk(hash.get(&Part::Payload.of(id))),
            ]))
        })
        .collect();
    Ok(Reply::Array(rows))
}
