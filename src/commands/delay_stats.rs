//! DELAY.STATS: a queue's depth and lag, read by name, for dashboards and
//! alerts: counts by score and the first score on each side of now, never a
//! walk over the tasks.

use super::declaration::Command;
use super::groups;
use super::jobs::is_paused;
use super::reply_types::DELAY_STATS;
use super::stats::{self, Fields};
use crate::error::ZkitError;
use crate::host::ctx::Ctx;
use crate::host::grammar::Arg;
use crate::host::grammar::Request;
use crate::host::keyspec::key_flags as kf;
use crate::host::reply::Reply;
use crate::host::reply_shape::ReplyShape as R;
use crate::host::string::RStr;
use crate::host::zset::KeyKind;
use crate::host::zset::ScoreBound;
use crate::logic::delay;
use crate::logic::stats::{due_age_ms, due_time_ms};
use crate::{declare_command, request};

declare_command! {
    pub static STATS: Command = {
        name: "delay.stats",
        handler: stats,
        flags: "readonly fast",
        acl_categories: "read sortedset fast",
        summary: "Returns a queue's depth and lag, read by name: now-ms, tasks, due, oldest-due-age-ms, next-due-ms, and with the sets named inflight, expired (leases that ended), dead and redelivered (tasks counted more than once), with DATA paused (1 or 0) and capped-groups (groups at their cap on tasks in flight); nil for a key not named.",
        complexity: "O(log(N)) with N the members of the largest set named.",
        since: "0.4.0",
        history: &[("0.5.0", "Added the `DATA` option and the `paused` and `capped-groups` fields.")],
        reply: R::Fields(&DELAY_STATS),
        examples: &[
            "DELAY.STATS {t}:q INFLIGHT {t}:held DEAD {t}:dead DELIVERIES {t}:n DATA {t}:data",
        ],
        args: &[
            Arg::key("queue", kf::RO | kf::ACCESS),
            Arg::key("inflight", kf::RO).token("INFLIGHT").optional(),
            Arg::key("dead", kf::RO).token("DEAD").optional(),
            Arg::key("deliveries", kf::RO).token("DELIVERIES").optional(),
            Arg::key("data", kf::RO).token("DATA").optional().since("0.5.0"),
        ],
    }
}

request! {
    /// DELAY.STATS `queue [INFLIGHT inflight] [DEAD dead] [DELIVERIES
    /// deliveries] [DATA data]`.
    struct Stats<'a> {
        queue: &'a RStr = key,
        inflight: Option<&'a RStr> = option(Request::key),
        dead: Option<&'a RStr> = option(Request::key),
        deliveries: Option<&'a RStr> = option(Request::key),
        data: Option<&'a RStr> = option(Request::key),
    }
}

/// -> `[now-ms, tasks, due, oldest-due-age-ms, next-due-ms, inflight,
/// expired, dead, redelivered, paused, capped-groups]` by name: counts by score (ZCOUNT) and the
/// first score on each side of now, a few O(log N) lookups per set.
fn stats(ctx: &Ctx, args: Stats<'_>) -> Result<Reply, ZkitError> {
    let Stats {
        queue,
        inflight,
        dead,
        deliveries,
        data,
    } = args;
    // Every type first: a WRONGTYPE answers before any count.
    if let Some(data) = data {
        ctx.check_key_type(data, KeyKind::Hash)?;
    }
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
    let paused = data.map(|data| is_paused(ctx, data)).transpose()?;
    fields.maybe_int("paused", paused.map(i64::from));
    let capped = match data {
        Some(data) => Some(groups::capped_groups(ctx.open_hash(data)?.as_ref())),
        None => None,
    };
    fields.maybe_int("capped-groups", capped);
    Ok(fields.into_reply())
}
