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

use super::idmp::{self, OnceWrite, Outcome, IDMP_ARG, RETAIN_ARG};
use super::reply_types::{RATE_RESULT, RATE_STATS};
use super::stats::{self, Fields};
use super::{Command, Counter, Items, Sample};
use crate::error::bound;
use crate::error::ZkitError;
use crate::host::ReplyShape as R;
use crate::host::{
    key_flags as kf, Arg, Ctx, KeyKind, Native, OwnedRStr, RStr, Reply, Request, ScoreBound,
    WriteArray, Zset,
};
use crate::logic::clock::MAX_DURATION_MS;
use crate::logic::family;
use crate::logic::idmp::{ArgsDigest, DIGEST_LEN};
use crate::logic::rate::{self, HitLog, Limit, Verdict, MAX_LIMIT};
use crate::{declare_command, request};
use smallvec::SmallVec;

pub static COMMANDS: &[&Command] = &[&HIT, &STATS];

/// Hits refused because a limit was reached.
pub static HITS_REFUSED: Counter = Counter::new();

declare_command! {
    pub static HIT: Command = {
        name: "rate.hit",
        handler: idmp::once(hit),
        flags: "write deny-oom",
        acl_categories: "write sortedset slow",
        summary: "Counts a hit against exact sliding-window limits (several: every one must allow): logs it if at most limit units fall within the last window-ms of each, and returns [allowed, count, remaining, retry-after-ms] of the limit that binds, plus its position when several are given or IDMP is.",
        complexity: "O((L+E+C)*log(N)) with L the limits, E the entries that left the widest window, C the cost and N the entries in the log.",
        since: "0.1.0",
        history: &[
            ("0.2.0", "Accepts several `window-ms limit` pairs; with several, the reply gains the position of the limit that binds."),
            ("0.3.0", "`COST` goes before the limits, so every argument after the key and options is a limit. Added the `IDMP` and `RETAIN` options; with IDMP the reply gains a last element, 1 when the event was already applied."),
            ("0.4.0", "With IDMP the reply always holds the binding limit's position (1 with one limit), so the already-applied flag is always the sixth element."),
        ],
        reply: R::Idmp(&R::Tuple(&RATE_RESULT)),
        args: &[
            Arg::key("key", kf::RW | kf::UPDATE),
            Arg::integer("cost").token("COST").optional(),
            IDMP_ARG,
            RETAIN_ARG,
            Arg::block(
                "limits",
                &[Arg::integer("window-ms"), Arg::integer("limit")],
            )
            .multiple(),
        ],
    }
}

request! {
    /// RATE.HIT `key [COST n] window-ms limit [window-ms limit ...]`, and
    /// IDMP between the two.
    struct Hit<'a> {
        key: &'a RStr = key,
        cost: Option<i64> = option(Request::integer),
        limits: Items<'a, (i64, i64)> = items(|pair| (pair.integer(), pair.integer())),
    }
}

/// The limits and the cost, checked in range.
fn hit<'a>(ctx: &Ctx, args: Hit<'a>) -> Result<HitWrite<'a>, ZkitError> {
    // A plain loop: collecting through `Result` costs a hit about 300
    // instructions more (callgrind).
    let mut limits = Limits::new();
    for (window_ms, limit) in args.limits {
        limits.push(check_limit(window_ms, limit)?);
    }
    let smallest = limits
        .iter()
        .map(|l| l.limit)
        .min()
        .expect("one limit at least");
    let cost = args.cost.unwrap_or(1);
    // A cost above any limit could never pass.
    if !(1..=smallest as i64).contains(&cost) {
        return Err(ZkitError::OutOfRange {
            what: "cost",
            limit: bound::UP_TO_LIMIT,
        });
    }
    // A large log is counted with them, also after the hit's first write.
    ctx.require(&[Native::Zcount, Native::Zrange])?;
    Ok(HitWrite {
        key: args.key,
        cost,
        limits,
    })
}

/// A hit's limits, inline for the usual few (no allocation on a hit).
type Limits = SmallVec<[Limit; 4]>;

/// A RATE.HIT, checked and not yet counted.
struct HitWrite<'a> {
    key: &'a RStr,
    cost: i64,
    limits: Limits,
}

/// -> `[allowed, count, remaining, retry-after-ms]` of the binding limit,
/// with several limits or with IDMP its 1-based position as a fifth
/// element (and with IDMP whether the event was already applied as the
/// sixth). A repeat spends nothing and stands allowed with the counts of
/// now; a refused hit spent nothing either, so it did not apply: its id is
/// not remembered and a retry may pass later.
impl OnceWrite for HitWrite<'_> {
    type Reply = HitReply;

    fn digest(&self) -> [u8; DIGEST_LEN] {
        let mut digest = ArgsDigest::new(HIT.name);
        digest.part(self.key.as_bytes()).integer(self.cost);
        for limit in &self.limits {
            digest.integer(limit.window_ms).integer(limit.limit as i64);
        }
        digest.finish()
    }

    fn written_keys(&self) -> &[&RStr] {
        std::slice::from_ref(&self.key)
    }

    fn current(&self, ctx: &Ctx) -> Result<HitReply, ZkitError> {
        let mut log = self.log(ctx)?;
        let verdict = rate::standing(&mut log, ctx.now_ms(), &self.limits)?;
        Ok(self.reply(verdict))
    }

    fn apply(self, ctx: &Ctx) -> Result<Outcome<HitReply>, ZkitError> {
        let mut log = self.log(ctx)?;
        let verdict = rate::hit(&mut log, ctx.now_ms(), &self.limits, self.cost as u64)?;
        drop(log);
        let reply = self.reply(verdict);
        Ok(match verdict.allowed {
            true => Outcome::Applied(reply),
            false => Outcome::NotApplied(reply),
        })
    }
}

impl<'a> HitWrite<'a> {
    /// The log, checked to be one: a log is entries `<unix-ms>-<n>`, and
    /// another family's key (a gift board, whose totals would read as hits
    /// long past) is refused, not trimmed. Inlined into each of its two
    /// callers, as it was in the one handler before (callgrind: 25
    /// instructions a hit otherwise).
    #[inline(always)]
    fn log<'c>(&self, ctx: &'c Ctx) -> Result<ZsetLog<'c>, ZkitError>
    where
        'a: 'c,
    {
        let mut log = ZsetLog {
            ctx,
            key: self.key,
            state: LogKey::Unopened,
            lowest: None,
        };
        // Read through the handle the hit reads with next.
        if let Some(zset) = log.reader()? {
            let sample = Sample::of(zset, 2, false);
            let lowest = sample.lowest.first().map(|&(_, score)| score);
            // Any entry scored today or later passes the newest's checks:
            // its presence is counted (or seen in the lowest) without
            // reading the newest element (a new string the key API makes).
            let today = ScoreBound::Inclusive(family::TODAY_MS);
            let any_today = lowest.is_some_and(|score| score >= family::TODAY_MS)
                || zset.count_at_most(today, ScoreBound::MAX, 0).is_none();
            let newest = match any_today {
                true => None,
                false => zset.iter_desc(ScoreBound::MIN, ScoreBound::MAX).next(),
            };
            let newest = match &newest {
                Some((member, score)) => Some((member.as_bytes(), *score)),
                None => any_today.then_some((&b""[..], family::TODAY_MS)),
            };
            family::check_rate_log(&sample.lowest(), newest)?;
            log.lowest = lowest;
        }
        Ok(log)
    }

    /// The reply of `verdict`, a refused hit counted in INFO.
    fn reply(&self, verdict: Verdict) -> HitReply {
        if !verdict.allowed {
            HITS_REFUSED.add(1);
        }
        HitReply {
            verdict,
            several_limits: self.limits.len() > 1,
        }
    }
}

/// RATE.HIT's reply, written straight to the client: `[allowed, count,
/// remaining, retry-after-ms]` of the binding limit, then its position
/// (from 1) with several limits or when an element follows (IDMP's flag).
struct HitReply {
    verdict: Verdict,
    several_limits: bool,
}

impl WriteArray for HitReply {
    fn write_array(&self, ctx: &Ctx, trailing: usize) {
        let verdict = &self.verdict;
        // With IDMP the position is always there, so the flag is always the
        // sixth element and a reply's length alone tells its shape.
        let position = (self.several_limits || trailing > 0).then_some(verdict.binding + 1);
        ctx.reply_array(4 + usize::from(position.is_some()) + trailing);
        ctx.reply_i64(i64::from(verdict.allowed));
        ctx.reply_i64(verdict.count as i64);
        ctx.reply_i64(verdict.remaining as i64);
        ctx.reply_i64(verdict.retry_after_ms);
        if let Some(position) = position {
            ctx.reply_i64(position as i64);
        }
    }
}

/// A window of 1 ms to 100 years.
fn check_window(window_ms: i64) -> Result<(), ZkitError> {
    if !(1..=MAX_DURATION_MS).contains(&window_ms) {
        return Err(ZkitError::OutOfRange {
            what: "window",
            limit: bound::DURATION_MS,
        });
    }
    Ok(())
}

/// One `window-ms limit` pair, in range.
fn check_limit(window_ms: i64, limit: i64) -> Result<Limit, ZkitError> {
    check_window(window_ms)?;
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ZkitError::OutOfRange {
            what: "limit",
            limit: bound::RATE_LIMIT,
        });
    }
    Ok(Limit {
        window_ms,
        limit: limit as u64,
    })
}

/// A rate log kept in a sorted set. Reads go through a read-only handle
/// until the first write reopens the key writable, so a refused hit that
/// drops nothing leaves the key, and WATCH, alone.
struct ZsetLog<'c> {
    ctx: &'c Ctx,
    key: &'c RStr,
    state: LogKey<'c>,
    /// The lowest score, as the family check read it, until the first
    /// write: every count or lookup of a range below it is answered
    /// without starting a walk (in a live log, the window's cutoff is).
    lowest: Option<f64>,
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
        self.lowest = None;
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

    /// How many entries score within `range`: walked through the key when
    /// few, else counted by ZCOUNT, which ranks a large range in O(log N)
    /// for the price of one call (about as much as walking a hundred).
    fn count(&mut self, range: LogRange) -> Result<u64, ZkitError> {
        let (min, max) = range.bounds();
        let lowest = self.lowest;
        let Some(log) = self.reader()? else {
            return Ok(0);
        };
        if let Some(lowest) = lowest {
            match range {
                LogRange::UpTo(s) | LogRange::At(s) if lowest > s as f64 => return Ok(0),
                LogRange::Above(s) if lowest > s as f64 => return Ok(log.len() as u64),
                _ => {}
            }
        }
        if let Some(count) = log.count_at_most(min, max, WALK_AT_MOST) {
            return Ok(count as u64);
        }
        stats::count_between(self.ctx, self.key, min, max)
    }

    /// The score at 0-based position `index`, oldest first (ZRANGE by rank,
    /// O(log N)).
    fn score_at(&mut self, index: u64) -> Result<Option<f64>, ZkitError> {
        stats::score_at(self.ctx, self.key, index)
    }
}

/// Entries walked through the key before a count or a lookup asks the
/// server's rank index instead.
const WALK_AT_MOST: usize = 128;

/// A range of log scores (unix ms).
#[derive(Clone, Copy)]
enum LogRange {
    UpTo(i64),
    Above(i64),
    At(i64),
}

impl LogRange {
    fn bounds(self) -> (ScoreBound, ScoreBound) {
        match self {
            LogRange::UpTo(s) => (ScoreBound::MIN, ScoreBound::Inclusive(s as f64)),
            LogRange::Above(s) => (ScoreBound::Exclusive(s as f64), ScoreBound::MAX),
            LogRange::At(s) => (
                ScoreBound::Inclusive(s as f64),
                ScoreBound::Inclusive(s as f64),
            ),
        }
    }
}

impl HitLog for ZsetLog<'_> {
    type Error = ZkitError;

    fn size(&mut self) -> Result<u64, ZkitError> {
        Ok(self.reader()?.map_or(0, |log| log.len() as u64))
    }

    fn count_up_to(&mut self, score: i64) -> Result<u64, ZkitError> {
        self.count(LogRange::UpTo(score))
    }

    fn count_above(&mut self, score: i64) -> Result<u64, ZkitError> {
        self.count(LogRange::Above(score))
    }

    fn count_at(&mut self, score: i64) -> Result<u64, ZkitError> {
        self.count(LogRange::At(score))
    }

    fn nth_above(&mut self, score: i64, n: u64) -> Result<Option<f64>, ZkitError> {
        if let Some(lowest) = self
            .lowest
            .filter(|&lowest| n == 0 && lowest > score as f64)
        {
            return Ok(Some(lowest));
        }
        if n >= WALK_AT_MOST as u64 {
            let first = self.count_up_to(score)?;
            return self.score_at(first + n);
        }
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

declare_command! {
    pub static STATS: Command = {
        name: "rate.stats",
        handler: stats,
        flags: "readonly fast",
        acl_categories: "read sortedset fast",
        summary: "Returns a rate log's entries, read by name: entries (all, live or not yet removed), newest-ms (nil when empty) and windows, [window-ms, entries within it] for each window given.",
        complexity: "O(W*log(N)) with W the windows given and N the entries in the log.",
        since: "0.4.0",
        history: &[],
        reply: R::Fields(&RATE_STATS),
        args: &[
            Arg::key("key", kf::RO | kf::ACCESS),
            Arg::integer("window-ms").token("WINDOWS").multiple(),
        ],
    }
}

request! {
    /// RATE.STATS `key WINDOWS window-ms [window-ms ...]`.
    struct Stats<'a> {
        key: &'a RStr = key,
        windows: Vec<i64> = list(Request::integer),
    }
}

/// -> `[entries, newest-ms, windows]` by name, `windows` one `[window-ms,
/// entries]` pair per window given: what RATE.HIT would count in each
/// window now (entries scored after `now - window`), by ZCOUNT.
fn stats(ctx: &Ctx, args: Stats<'_>) -> Result<Reply, ZkitError> {
    for &window_ms in &args.windows {
        check_window(window_ms)?;
    }
    let entries = ctx.key_len(args.key, KeyKind::Zset)?;
    let newest = match ctx.open_zset(args.key)? {
        Some(mut log) => log
            .iter_desc(ScoreBound::MIN, ScoreBound::MAX)
            .next()
            .map(|(_, score)| score),
        None => None,
    };
    let now = ctx.now_ms();
    let mut windows = Vec::with_capacity(args.windows.len());
    for &window_ms in &args.windows {
        let after = ScoreBound::Exclusive(rate::cutoff(now, window_ms) as f64);
        let within = stats::count_between(ctx, args.key, after, ScoreBound::MAX)?;
        windows.push(Reply::ints(&[window_ms, within as i64]));
    }
    let mut fields = Fields::default();
    fields.int("entries", entries as i64);
    fields.maybe_int("newest-ms", newest.map(|score| score as i64));
    fields.add("windows", Reply::Array(windows));
    Ok(fields.into_reply())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_checked_in_range() {
        let limit = check_limit(5000, 2).unwrap();
        assert_eq!((limit.window_ms, limit.limit), (5000, 2));
        assert!(matches!(
            check_limit(0, 3),
            Err(ZkitError::OutOfRange { what: "window", .. })
        ));
        assert!(matches!(
            check_limit(MAX_DURATION_MS + 1, 3),
            Err(ZkitError::OutOfRange { what: "window", .. })
        ));
        assert!(matches!(
            check_limit(2000, 0),
            Err(ZkitError::OutOfRange { what: "limit", .. })
        ));
        assert!(matches!(
            check_limit(2000, MAX_LIMIT + 1),
            Err(ZkitError::OutOfRange { what: "limit", .. })
        ));
    }
}
