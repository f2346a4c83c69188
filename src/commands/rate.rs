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
//!
//! RATE.PEEK answers what a hit would get without logging it; a negative
//! cost gives units back. RATE.ACQUIRE and RATE.RELEASE keep a concurrency
//! limit ("at most N requests at once") in a zset of holders scored by the
//! end of their leases.

use super::counter::Counter;
use super::declaration::{Command, Items};
use super::idmp::{self, OnceWrite, Outcome, IDMP_ARG, RETAIN_ARG};
use super::reply_types::{RATE_ACQUIRED, RATE_RESULT, RATE_STATS};
use super::sample::Sample;
use super::stats::{self, Fields};
use crate::error::bound;
use crate::error::ZkitError;
use crate::host::call::Native;
use crate::host::ctx::Ctx;
use crate::host::grammar::Arg;
use crate::host::grammar::Request;
use crate::host::keyspec::key_flags as kf;
use crate::host::reply::Reply;
use crate::host::reply::WriteArray;
use crate::host::reply::WriteReply;
use crate::host::reply_shape::ReplyShape as R;
use crate::host::string::OwnedRStr;
use crate::host::string::RStr;
use crate::host::zset::KeyKind;
use crate::host::zset::ScoreBound;
use crate::host::zset::Zset;
use crate::logic::clock::{self, MAX_DURATION_MS};
use crate::logic::family;
use crate::logic::idmp::{ArgsDigest, DIGEST_LEN};
use crate::logic::rate::{self, Acquired, HitLog, LeaseSet, Limit, RefundLog, Verdict, MAX_LIMIT};
use crate::{declare_command, request};
use smallvec::SmallVec;

pub static COMMANDS: &[&Command] = &[&HIT, &PEEK, &ACQUIRE, &RELEASE, &STATS];

/// Hits refused because a limit was reached.
pub static HITS_REFUSED: Counter = Counter::new();

declare_command! {
    pub static HIT: Command = {
        name: "rate.hit",
        handler: idmp::once(hit),
        flags: "write deny-oom",
        acl_categories: "write sortedset slow",
        summary: "Counts a hit against exact sliding-window limits (several: every one must allow): logs it if at most limit units fall within the last window-ms of each, and returns [allowed, count, remaining, retry-after-ms] of the limit that binds, plus its position when several are given or IDMP is. A cost above a limit is refused (retry-after-ms -1: it never fits); a negative cost gives that many of the newest units back.",
        complexity: "O((L+E+C)*log(N)) with L the limits, E the entries that left the widest window, C the cost (of a refund: the units given back) and N the entries in the log.",
        since: "0.1.0",
        history: &[
            ("0.2.0", "Accepts several `window-ms limit` pairs; with several, the reply gains the position of the limit that binds."),
            ("0.3.0", "`COST` goes before the limits, so every argument after the key and options is a limit. Added the `IDMP` and `RETAIN` options; with IDMP the reply gains a last element, 1 when the event was already applied."),
            ("0.4.0", "With IDMP the reply always holds the binding limit's position (1 with one limit), so the already-applied flag is always the sixth element."),
            ("0.5.0", "A cost above the limit is refused with retry-after-ms -1, not an error; a negative cost is a refund."),
        ],
        reply: R::Idmp(&R::Tuple(&RATE_RESULT)),
        examples: &[
            "RATE.HIT {t}:rate COST 2 IDMP {t}:seen hit-1 RETAIN 86400000 3600000 50",
            "RATE.HIT {t}:rate 1000 5 3600000 9",
        ],
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
    let limits = check_limits(args.limits)?;
    let cost = args.cost.unwrap_or(1);
    // A cost above a limit is refused by it, and a negative one is a refund:
    // only 0 means nothing.
    if cost == 0 {
        return Err(ZkitError::OutOfRange {
            what: "cost",
            limit: bound::NOT_ZERO,
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

/// Each `window-ms limit` pair, in range.
fn check_limits(pairs: Items<'_, (i64, i64)>) -> Result<Limits, ZkitError> {
    // A plain loop: collecting through `Result` costs a hit about 300
    // instructions more (callgrind).
    let mut limits = Limits::new();
    for (window_ms, limit) in pairs {
        limits.push(check_limit(window_ms, limit)?);
    }
    Ok(limits)
}

/// A hit's limits, inline for the usual few (no allocation on a hit).
type Limits = SmallVec<[Limit; 4]>;

/// A RATE.HIT, checked and not yet counted: a hit of `cost` units, or a
/// refund of `-cost` when it is negative.
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
/// not remembered and a retry may pass later. A refund always applies.
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
        let mut log = open_log(ctx, self.key)?;
        let verdict = rate::standing(&mut log, ctx.now_ms(), &self.limits)?;
        Ok(self.reply(verdict))
    }

    fn apply(self, ctx: &Ctx) -> Result<Outcome<HitReply>, ZkitError> {
        let mut log = open_log(ctx, self.key)?;
        let (now, units) = (ctx.now_ms(), self.cost.unsigned_abs());
        let verdict = match self.cost < 0 {
            true => rate::refund(&mut log, now, &self.limits, units)?,
            false => rate::hit(&mut log, now, &self.limits, units)?,
        };
        drop(log);
        let reply = self.reply(verdict);
        Ok(match verdict.allowed {
            true => Outcome::Applied(reply),
            false => Outcome::NotApplied(reply),
        })
    }
}

impl HitWrite<'_> {
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

/// A RATE key opened for counting, checked to be one: a log is entries
/// `<unix-ms>-<n>` and a holder set leases scored by their end, and another
/// family's key (a gift board, whose totals would read as hits long past or
/// leases long ended) is refused, not trimmed. Inlined into each caller, as
/// it was in the one handler before (callgrind: 25 instructions a hit
/// otherwise).
#[inline(always)]
fn open_log<'c>(ctx: &'c Ctx, key: &'c RStr) -> Result<ZsetLog<'c>, ZkitError> {
    let mut log = ZsetLog {
        ctx,
        key,
        state: LogKey::Unopened,
        lowest: None,
    };
    // Read through the handle the call reads with next.
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

declare_command! {
    pub static PEEK: Command = {
        name: "rate.peek",
        handler: peek,
        flags: "readonly fast",
        acl_categories: "read sortedset fast",
        summary: "Answers what RATE.HIT with the same cost and limits would answer now, without counting the hit or writing anything: [allowed, count, remaining, retry-after-ms] of the limit that binds, plus its position when several are given.",
        complexity: "O(L*log(N)) with L the limits and N the entries in the log.",
        since: "0.5.0",
        history: &[],
        reply: R::Tuple(&RATE_RESULT),
        examples: &[
            "RATE.PEEK {t}:rate COST 2 3600000 50",
            "RATE.PEEK {t}:rate 1000 5 3600000 9",
        ],
        args: &[
            Arg::key("key", kf::RO | kf::ACCESS),
            Arg::integer("cost").token("COST").optional(),
            Arg::block(
                "limits",
                &[Arg::integer("window-ms"), Arg::integer("limit")],
            )
            .multiple(),
        ],
    }
}

request! {
    /// RATE.PEEK `key [COST n] window-ms limit [window-ms limit ...]`.
    struct Peek<'a> {
        key: &'a RStr = key,
        cost: Option<i64> = option(Request::integer),
        limits: Items<'a, (i64, i64)> = items(|pair| (pair.integer(), pair.integer())),
    }
}

/// -> what RATE.HIT would reply now (without IDMP): the verdict of a hit,
/// read through the same checks and counts, nothing written.
fn peek(ctx: &Ctx, args: Peek<'_>) -> Result<HitReply, ZkitError> {
    let limits = check_limits(args.limits)?;
    let cost = args.cost.unwrap_or(1);
    if cost < 1 {
        return Err(ZkitError::OutOfRange {
            what: "cost",
            limit: bound::AT_LEAST_ONE,
        });
    }
    ctx.require(&[Native::Zcount, Native::Zrange])?;
    let mut log = open_log(ctx, args.key)?;
    let verdict = rate::peek(&mut log, ctx.now_ms(), &limits, cost as u64)?;
    Ok(HitReply {
        verdict,
        several_limits: limits.len() > 1,
    })
}

impl WriteReply for HitReply {
    fn write(&self, ctx: &Ctx) {
        self.write_array(ctx, 0);
    }
}

declare_command! {
    pub static ACQUIRE: Command = {
        name: "rate.acquire",
        handler: acquire,
        flags: "write deny-oom",
        acl_categories: "write sortedset slow",
        summary: "Takes one of limit slots for holder, held until RATE.RELEASE or until lease-ms have passed (a concurrency limit: at most limit at once). A holder that holds one renews its lease. Returns [acquired, held, remaining, retry-after-ms, token]: refused, the ms until a lease ends and frees a slot; acquired, the lease's token (its end in unix ms).",
        complexity: "O((E+1)*log(N)) with E the leases that ended and N the holders.",
        since: "0.5.0",
        history: &[],
        reply: R::Tuple(&RATE_ACQUIRED),
        examples: &[
            "RATE.ACQUIRE {t}:holders h1 3600000 5",
        ],
        args: &[
            Arg::key("key", kf::RW | kf::UPDATE),
            Arg::string("holder"),
            Arg::integer("lease-ms"),
            Arg::integer("limit"),
        ],
    }
}

request! {
    /// RATE.ACQUIRE `key holder lease-ms limit`.
    struct Acquire<'a> {
        key: &'a RStr = key,
        holder: &'a RStr = string,
        lease_ms: i64 = integer,
        limit: i64 = integer,
    }
}

/// -> `[acquired, held, remaining, retry-after-ms, token]`.
fn acquire(ctx: &Ctx, args: Acquire<'_>) -> Result<AcquireReply, ZkitError> {
    let now = ctx.now_ms();
    let until = clock::deadline(now, args.lease_ms).ok_or(ZkitError::OutOfRange {
        what: "lease",
        limit: bound::DURATION_MS,
    })?;
    let limit = check_limit_count(args.limit)?;
    ctx.require(&[Native::Zcount, Native::Zrange])?;
    let mut holders = open_log(ctx, args.key)?;
    let acquired = rate::acquire(&mut holders, now, args.holder.as_bytes(), until, limit)?;
    Ok(AcquireReply(acquired))
}

/// RATE.ACQUIRE's reply: `[acquired, held, remaining, retry-after-ms,
/// token]`.
struct AcquireReply(Acquired);

impl WriteReply for AcquireReply {
    fn write(&self, ctx: &Ctx) {
        let Acquired {
            acquired,
            held,
            remaining,
            retry_after_ms,
            token,
        } = self.0;
        ctx.reply_array(5);
        for value in [
            i64::from(acquired),
            held as i64,
            remaining as i64,
            retry_after_ms,
            token,
        ] {
            ctx.reply_i64(value);
        }
    }
}

declare_command! {
    pub static RELEASE: Command = {
        name: "rate.release",
        handler: release,
        // No deny-oom, as DELAY.ACK: a release never grows the data, and a
        // holder must be able to give its slot back.
        flags: "write fast",
        acl_categories: "write sortedset fast",
        summary: "Gives holder's slot of a concurrency limit back. Returns 1 when released, 0 when it held none: not there, its lease had ended, or (with TOKEN) another lease of its holds the slot.",
        complexity: "O(log(N)) with N the holders.",
        since: "0.5.0",
        history: &[],
        reply: R::Boolean,
        examples: &[
            "RATE.RELEASE {t}:holders h1 TOKEN 1",
        ],
        args: &[
            Arg::key("key", kf::RW | kf::DELETE),
            Arg::string("holder"),
            Arg::integer("token").token("TOKEN").optional(),
        ],
    }
}

request! {
    /// RATE.RELEASE `key holder [TOKEN token]`.
    struct Release<'a> {
        key: &'a RStr = key,
        holder: &'a RStr = string,
        token: Option<i64> = option(Request::integer),
    }
}

/// -> 1 when the holder's lease (with TOKEN: that lease) held a slot and
/// now does not, else 0 and nothing changed.
fn release(ctx: &Ctx, args: Release<'_>) -> Result<bool, ZkitError> {
    ctx.check_key_type(args.key, KeyKind::Zset)?;
    let mut holders = ZsetLog {
        ctx,
        key: args.key,
        state: LogKey::Unopened,
        lowest: None,
    };
    let holder = args.holder.as_bytes();
    rate::release(&mut holders, ctx.now_ms(), holder, args.token)
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
    Ok(Limit {
        window_ms,
        limit: check_limit_count(limit)?,
    })
}

/// A limit of 1 to a million.
fn check_limit_count(limit: i64) -> Result<u64, ZkitError> {
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(ZkitError::OutOfRange {
            what: "limit",
            limit: bound::RATE_LIMIT,
        });
    }
    Ok(limit as u64)
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
        Ok(self.writer()?.add_new(&member, score as f64)?)
    }

    fn expire_at(&mut self, unix_ms: i64) -> Result<(), ZkitError> {
        Ok(self.writer()?.expire_at(unix_ms)?)
    }
}

impl RefundLog for ZsetLog<'_> {
    fn remove_newest(&mut self, n: u64) -> Result<(), ZkitError> {
        let log = self.writer()?;
        // The key API cannot remove while it walks: read them first.
        let newest: Vec<OwnedRStr> = log
            .iter_desc(ScoreBound::MIN, ScoreBound::MAX)
            .take(usize::try_from(n).unwrap_or(usize::MAX))
            .map(|(member, _)| member)
            .collect();
        for member in &newest {
            log.remove(member);
        }
        Ok(())
    }
}

impl LeaseSet for ZsetLog<'_> {
    fn lease_end(&mut self, holder: &[u8]) -> Result<Option<f64>, ZkitError> {
        let holder = OwnedRStr::new(holder);
        Ok(self.reader()?.and_then(|set| set.score(&holder)))
    }

    fn hold(&mut self, holder: &[u8], until_ms: i64) -> Result<(), ZkitError> {
        let holder = OwnedRStr::new(holder);
        self.writer()?.add(&holder, until_ms as f64)?;
        Ok(())
    }

    fn release(&mut self, holder: &[u8]) -> Result<(), ZkitError> {
        let holder = OwnedRStr::new(holder);
        self.writer()?.remove(&holder);
        Ok(())
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
        examples: &[
            "RATE.STATS {t}:rate WINDOWS 1000 3600000",
        ],
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
