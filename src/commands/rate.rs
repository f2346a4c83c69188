//! RATE.*: exact sliding-window rate limits (seed 002, anti-spam).
//!
//! The seed checks "at most N comments in T seconds" with ZRANGEBYSCORE and
//! then ZADD: two round trips, and two clients can both pass the check. Here
//! the check and the write are one command over a native zset log with one
//! member per accepted unit of cost, scored by the server clock (see
//! `core::rate` for the window arithmetic). Memory: at most `limit` members
//! per key (each `<unix-ms>-<seq>`, 15 to 20 bytes), gone with the key one
//! window after its newest hit.

use super::args::{parse_i64, Options};
use super::Command;
use crate::declare_command;
use crate::error::ZkitError;
use crate::host::{key_flags as kf, Arg, Ctx, KeySpec, OwnedRStr, RStr, ScoreBound};
use crate::logic::clock::MAX_DURATION_MS;
use crate::logic::rate::{
    cutoff, decide, expire_at, hit_member, retry_after_ms, Decision, MAX_LIMIT,
};

pub static COMMANDS: &[&Command] = &[&HIT];

declare_command! {
    pub static HIT: Command = {
        name: "rate.hit",
        handler: hit,
        flags: "write deny-oom",
        acl_categories: "write sortedset slow",
        arity: -4,
        key_specs: &[KeySpec::at(1, kf::RW | kf::UPDATE)],
        summary: "Counts a hit against an exact sliding-window limit: logs it if at most limit units fall within the last window-ms, and returns [allowed, count, remaining, retry-after-ms].",
        complexity: "O((E+C)*log(N)) with E the entries that left the window, C the cost and N the entries in the log.",
        since: "0.1.0",
        args: &[
            Arg::key("key", 0),
            Arg::integer("window-ms"),
            Arg::integer("limit"),
            Arg::integer("cost").token("COST").optional(),
        ],
    }
}

/// What the log holds for one hit, read before anything is written.
struct LogState {
    /// How many entries are at or below the cutoff: they left the window.
    expired: usize,
    /// Entries still in the window.
    live: u64,
    decision: Decision,
    /// Allowed: the highest score in the log (the TTL follows it).
    /// Refused: the score of the last entry the hit has to wait for.
    pivot_score: Option<f64>,
}

/// RATE.HIT `key window-ms limit [COST n]`
/// -> `[allowed, count, remaining, retry-after-ms]`.
fn hit(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    let key = &args[1];
    let window = parse_i64(args[2].as_bytes())?;
    if !(1..=MAX_DURATION_MS).contains(&window) {
        return Err(ZkitError::OutOfRange {
            what: "window",
            limit: "must be between 1 and 3155760000000 ms (100 years)",
        });
    }
    let limit = parse_i64(args[3].as_bytes())?;
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ZkitError::OutOfRange {
            what: "limit",
            limit: "must be between 1 and 1000000",
        });
    }
    let mut cost = 1;
    let mut options = Options::new(&args[4..], &["COST"]);
    while options.next_option()?.is_some() {
        cost = options.int()?;
        if !(1..=limit).contains(&cost) {
            return Err(ZkitError::OutOfRange {
                what: "cost",
                limit: "must be between 1 and the limit",
            });
        }
    }
    let (limit, cost) = (limit as u64, cost as u64);
    let now = ctx.now_ms();
    let cutoff = cutoff(now, window);
    let state = read_log(ctx, key, cutoff, cost, limit)?;

    let allowed = state.decision == Decision::Allowed;
    if allowed || state.expired > 0 {
        let mut log = ctx.open_zset_mut(key)?;
        log.remove_up_to(cutoff);
        if allowed {
            // Units already logged this millisecond took the first names.
            let mut seq = log
                .iter_asc(
                    ScoreBound::Inclusive(now as f64),
                    ScoreBound::Inclusive(now as f64),
                )
                .count() as u64;
            let mut logged = 0;
            while logged < cost {
                let name = OwnedRStr::new(&hit_member(now, seq));
                seq += 1;
                if log.score(&name).is_none() {
                    log.add(&name, now as f64)?;
                    logged += 1;
                }
            }
            let at = expire_at(now, state.pivot_score.unwrap_or(f64::NEG_INFINITY), window);
            log.expire_at(at)?;
        }
    }

    let (count, retry_after) = match state.decision {
        Decision::Allowed => (state.live + cost, -1),
        Decision::Refused { .. } => {
            let score = state.pivot_score.ok_or_else(|| {
                ZkitError::Internal("a refused hit found no entry to wait for".into())
            })?;
            (state.live, retry_after_ms(score, window, now))
        }
    };
    ctx.reply_array(4);
    ctx.reply_i64(i64::from(allowed));
    ctx.reply_i64(count as i64);
    ctx.reply_i64(limit.saturating_sub(count) as i64);
    ctx.reply_i64(retry_after);
    Ok(())
}

/// Reads the log without writing (so a refused hit with nothing to expire
/// does not even touch WATCH): what left the window, what is live, and the
/// decision.
fn read_log(
    ctx: &Ctx,
    key: &RStr,
    cutoff: i64,
    cost: u64,
    limit: u64,
) -> Result<LogState, ZkitError> {
    let Some(mut log) = ctx.open_zset(key)? else {
        return Ok(LogState {
            expired: 0,
            live: 0,
            decision: decide(0, cost, limit),
            pivot_score: None,
        });
    };
    let cutoff = cutoff as f64;
    let expired = log
        .iter_asc(ScoreBound::MIN, ScoreBound::Inclusive(cutoff))
        .count();
    let live = (log.len() - expired) as u64;
    let decision = decide(live, cost, limit);
    let pivot_score = match decision {
        Decision::Allowed => log
            .iter_desc(ScoreBound::MIN, ScoreBound::MAX)
            .next()
            .map(|(_, score)| score),
        Decision::Refused { blocking } => log
            .iter_asc(ScoreBound::Exclusive(cutoff), ScoreBound::MAX)
            .nth((blocking - 1) as usize)
            .map(|(_, score)| score),
    };
    Ok(LogState {
        expired,
        live,
        decision,
        pivot_score,
    })
}
