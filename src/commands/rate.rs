//! RATE.*: exact sliding-window rate limits (anti-spam: "at most N comments
//! in T seconds").
//!
//! The usual recipe checks "at most N comments in T seconds" with ZRANGEBYSCORE and
//! then ZADD: two round trips, and two clients can both pass the check. Here
//! the check and the write are one command over a native zset log with one
//! member per accepted unit of cost, scored by the server clock (see
//! `logic::rate` for the window arithmetic). Memory: at most `limit` members
//! per key (each `<unix-ms>-<seq>`, 15 to 20 bytes), gone with the key one
//! window after its newest hit.

use super::args::{parse_i64, Options};
use super::{Command, Counter};
use crate::declare_command;
use crate::error::bound;
use crate::error::ZkitError;
use crate::host::{key_flags as kf, Arg, Ctx, KeySpec, OwnedRStr, RStr, ScoreBound, Zset};
use crate::logic::clock::MAX_DURATION_MS;
use crate::logic::rate::{self, HitLog, Limit, MAX_LIMIT};

pub static COMMANDS: &[&Command] = &[&HIT];

/// Hits refused because a limit was reached.
pub static HITS_REFUSED: Counter = Counter::new();

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

/// RATE.HIT `key window-ms limit [COST n]`
/// -> `[allowed, count, remaining, retry-after-ms]`.
fn hit(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    let key = &args[1];
    let window_ms = parse_i64(args[2].as_bytes())?;
    if !(1..=MAX_DURATION_MS).contains(&window_ms) {
        return Err(ZkitError::OutOfRange {
            what: "window",
            limit: bound::DURATION_MS,
        });
    }
    let limit = parse_i64(args[3].as_bytes())?;
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ZkitError::OutOfRange {
            what: "limit",
            limit: bound::RATE_LIMIT,
        });
    }
    let mut cost = 1;
    let mut options = Options::new(&args[4..], &["COST"]);
    while options.next_option()?.is_some() {
        cost = options.int()?;
        if !(1..=limit).contains(&cost) {
            return Err(ZkitError::OutOfRange {
                what: "cost",
                limit: bound::UP_TO_LIMIT,
            });
        }
    }
    let limits = [Limit {
        window_ms,
        limit: limit as u64,
    }];
    let mut log = ZsetLog {
        ctx,
        key,
        state: LogKey::Unopened,
    };
    let verdict = rate::hit(&mut log, ctx.now_ms(), &limits, cost as u64)?;
    drop(log);
    if !verdict.allowed {
        HITS_REFUSED.add(1);
    }
    ctx.reply_array(4);
    ctx.reply_i64(i64::from(verdict.allowed));
    ctx.reply_i64(verdict.count as i64);
    ctx.reply_i64(verdict.remaining as i64);
    ctx.reply_i64(verdict.retry_after_ms);
    Ok(())
}

/// A rate log kept in a sorted set. Reads go through a read-only handle
/// until the first write reopens the key writable, so a refused hit that
/// drops nothing leaves the key, and WATCH, alone.
struct ZsetLog<'c> {
    ctx: &'c Ctx,
    key: &'c RStr,
    state: LogKey<'c>,
}

enum LogKey<'c> {
    Unopened,
    Absent,
    Open(Zset<'c>),
}

impl<'c> ZsetLog<'c> {
    /// The key for reading; `None` when it does not exist.
    fn reader(&mut self) -> Result<Option<&mut Zset<'c>>, ZkitError> {
        if let LogKey::Unopened = self.state {
            self.state = match self.ctx.open_zset(self.key)? {
                Some(zset) => LogKey::Open(zset),
                None => LogKey::Absent,
            };
        }
        Ok(match &mut self.state {
            LogKey::Open(zset) => Some(zset),
            _ => None,
        })
    }

    fn writer(&mut self) -> Result<&mut Zset<'c>, ZkitError> {
        if !matches!(&self.state, LogKey::Open(zset) if zset.is_writable()) {
            // Close the read-only handle before opening the key again.
            self.state = LogKey::Unopened;
            self.state = LogKey::Open(self.ctx.open_zset_mut(self.key)?);
        }
        match &mut self.state {
            LogKey::Open(zset) => Ok(zset),
            _ => unreachable!("just opened for writing"),
        }
    }

    fn count(&mut self, min: ScoreBound, max: ScoreBound) -> Result<u64, ZkitError> {
        Ok(self.reader()?.map_or(0, |log| log.count(min, max) as u64))
    }
}

impl HitLog for ZsetLog<'_> {
    type Error = ZkitError;

    fn size(&mut self) -> Result<u64, ZkitError> {
        Ok(self.reader()?.map_or(0, |log| log.len() as u64))
    }

    fn count_up_to(&mut self, score: i64) -> Result<u64, ZkitError> {
        self.count(ScoreBound::MIN, ScoreBound::Inclusive(score as f64))
    }

    fn count_at(&mut self, score: i64) -> Result<u64, ZkitError> {
        let at = ScoreBound::Inclusive(score as f64);
        self.count(at, at)
    }

    fn nth_above(&mut self, score: i64, n: u64) -> Result<Option<f64>, ZkitError> {
        Ok(self.reader()?.and_then(|log| {
            log.iter_asc(ScoreBound::Exclusive(score as f64), ScoreBound::MAX)
                .nth(n as usize)
                .map(|(_, score)| score)
        }))
    }

    fn newest(&mut self) -> Result<Option<f64>, ZkitError> {
        Ok(self.reader()?.and_then(|log| {
            log.iter_desc(ScoreBound::MIN, ScoreBound::MAX)
                .next()
                .map(|(_, score)| score)
        }))
    }

    fn remove_up_to(&mut self, score: i64) -> Result<(), ZkitError> {
        self.writer()?.remove_up_to(score);
        Ok(())
    }

    fn add(&mut self, member: &[u8], score: i64) -> Result<bool, ZkitError> {
        let member = OwnedRStr::new(member);
        let log = self.writer()?;
        if log.score(&member).is_some() {
            return Ok(false);
        }
        Ok(log.add(&member, score as f64)?)
    }

    fn expire_at(&mut self, unix_ms: i64) -> Result<(), ZkitError> {
        Ok(self.writer()?.expire_at(unix_ms)?)
    }
}
