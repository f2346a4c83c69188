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
use super::idmp::{self, IDMP_ARG, RETAIN_ARG};
use super::{Command, Counter};
use crate::declare_command;
use crate::error::bound;
use crate::error::ZkitError;
use crate::host::{key_flags as kf, Arg, CallArg, Ctx, KeySpec, OwnedRStr, RStr, ScoreBound, Zset};
use crate::logic::clock::MAX_DURATION_MS;
use crate::logic::idmp::Seen;
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
        key_specs: &[KeySpec::at(1, kf::RW | kf::UPDATE), idmp::key_spec(2)],
        summary: "Counts a hit against exact sliding-window limits (several: every one must allow): logs it if at most limit units fall within the last window-ms of each, and returns [allowed, count, remaining, retry-after-ms] of the limit that binds, plus its position when several are given.",
        complexity: "O((L+E+C)*log(N)) with L the limits, E the entries that left the widest window, C the cost and N the entries in the log.",
        since: "0.1.0",
        history: &[("0.2.0", "Accepts several `window-ms limit` pairs; with several, the reply gains the position of the limit that binds.")],
        args: &[
            Arg::key("key", 0),
            IDMP_ARG,
            RETAIN_ARG,
            Arg::block(
                "limits",
                &[Arg::integer("window-ms"), Arg::integer("limit")],
            )
            .multiple(),
            Arg::integer("cost").token("COST").optional(),
        ],
    }
}

/// RATE.HIT `key [IDMP seen-key event-id [RETAIN ms]] window-ms limit
/// [window-ms limit ...] [COST n]` -> `[allowed, count, remaining,
/// retry-after-ms]` of the binding limit, with several limits its 1-based
/// position as a fifth element, and with IDMP whether the event was already
/// applied as the last. A repeat spends nothing and stands allowed with the
/// counts of now; a refused hit spent nothing either, so its id is not
/// remembered and a retry may pass later.
fn hit(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    let key = &args[1];
    let (idmp, rest) = idmp::split_leading(&args[2..])?;
    let (limits, options) = parse_limits(rest)?;
    let smallest = limits
        .iter()
        .map(|l| l.limit)
        .min()
        .expect("one limit at least");
    let mut cost = 1;
    let mut options = Options::new(options, OPTIONS);
    while options.next_option()?.is_some() {
        cost = options.int()?;
        // A cost above any limit could never pass.
        if !(1..=smallest as i64).contains(&cost) {
            return Err(ZkitError::OutOfRange {
                what: "cost",
                limit: bound::UP_TO_LIMIT,
            });
        }
    }
    let seen = idmp.as_ref().map(|i| i.check(ctx, &[key])).transpose()?;
    let mut log = ZsetLog {
        ctx,
        key,
        state: LogKey::Unopened,
    };
    let verdict = if seen == Some(Seen::Repeat) {
        rate::standing(&mut log, ctx.now_ms(), &limits)?
    } else {
        rate::hit(&mut log, ctx.now_ms(), &limits, cost as u64)?
    };
    drop(log);
    if !verdict.allowed {
        HITS_REFUSED.add(1);
    }
    if let (Some(idmp), Some(Seen::New), true) = (&idmp, seen, verdict.allowed) {
        idmp.record(ctx)?;
    }
    let several = limits.len() > 1;
    ctx.reply_array(if several { 5 } else { 4 } + usize::from(seen.is_some()));
    ctx.reply_i64(i64::from(verdict.allowed));
    ctx.reply_i64(verdict.count as i64);
    ctx.reply_i64(verdict.remaining as i64);
    ctx.reply_i64(verdict.retry_after_ms);
    if several {
        ctx.reply_i64(verdict.binding as i64 + 1);
    }
    idmp::reply_flag(ctx, seen);
    Ok(())
}

/// RATE.HIT's options, after its limits.
const OPTIONS: &[&str] = &["COST"];

/// `window-ms limit [window-ms limit ...]` and the options after them. The
/// first pair is required; further pairs are read while the next word is an
/// integer, so `COST` (or any other word) ends them and today's calls read
/// as before.
fn parse_limits<A: AsRef<[u8]>>(args: &[A]) -> Result<(Vec<Limit>, &[A]), ZkitError> {
    let mut limits = Vec::new();
    let mut rest = args;
    while let [window, more @ ..] = rest {
        if !limits.is_empty() && parse_i64(window.as_ref()).is_err() {
            break;
        }
        let [limit, after @ ..] = more else {
            return Err(ZkitError::Syntax);
        };
        // A further window followed by an option (`... 3 COST 1`) is half a
        // pair, as at the end of the call.
        let is_option = |word: &[u8]| {
            OPTIONS
                .iter()
                .any(|o| word.eq_ignore_ascii_case(o.as_bytes()))
        };
        if !limits.is_empty() && is_option(limit.as_ref()) {
            return Err(ZkitError::Syntax);
        }
        limits.push(parse_limit(window.as_ref(), limit.as_ref())?);
        rest = after;
    }
    if limits.is_empty() {
        return Err(ZkitError::Syntax);
    }
    Ok((limits, rest))
}

/// One `window-ms limit` pair, in range.
fn parse_limit(window: &[u8], limit: &[u8]) -> Result<Limit, ZkitError> {
    let window_ms = parse_i64(window)?;
    if !(1..=MAX_DURATION_MS).contains(&window_ms) {
        return Err(ZkitError::OutOfRange {
            what: "window",
            limit: bound::DURATION_MS,
        });
    }
    let limit = parse_i64(limit)?;
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

    /// How many entries score within `range`: walked through the key when
    /// few, else counted by ZCOUNT, which ranks a large range in O(log N)
    /// for the price of one call (about as much as walking a hundred).
    fn count(&mut self, range: LogRange) -> Result<u64, ZkitError> {
        let (min, max) = range.bounds();
        let Some(log) = self.reader()? else {
            return Ok(0);
        };
        if let Some(count) = log.count_at_most(min, max, WALK_AT_MOST) {
            return Ok(count as u64);
        }
        let (min, max) = range.zcount_args();
        let reply = self.ctx.call(
            c"ZCOUNT",
            &[
                CallArg::Str(self.key),
                CallArg::Bytes(&min),
                CallArg::Bytes(&max),
            ],
        )?;
        reply
            .get()
            .integer()
            .map(|count| count as u64)
            .ok_or_else(|| ZkitError::Internal("ZCOUNT did not return an integer".into()))
    }

    /// The score at 0-based position `index`, oldest first (ZRANGE by rank,
    /// O(log N)).
    fn score_at(&mut self, index: u64) -> Result<Option<f64>, ZkitError> {
        let index = index as i64;
        let reply = self.ctx.call(
            c"ZRANGE",
            &[
                CallArg::Str(self.key),
                CallArg::Int(index),
                CallArg::Int(index),
                CallArg::Bytes(b"WITHSCORES"),
            ],
        )?;
        // RESP3: [[member, score]].
        let entry = reply.get().element(0);
        Ok(entry.and_then(|entry| entry.element(1)?.double()))
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

    /// The range as ZCOUNT's min and max.
    fn zcount_args(self) -> (Vec<u8>, Vec<u8>) {
        let ms = |s: i64| itoa::Buffer::new().format(s).as_bytes().to_vec();
        match self {
            LogRange::UpTo(s) => (b"-inf".to_vec(), ms(s)),
            LogRange::Above(s) => ([b"(".as_slice(), &ms(s)].concat(), b"+inf".to_vec()),
            LogRange::At(s) => (ms(s), ms(s)),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The limits as (window, limit) and the words left for the options.
    type Parsed = (Vec<(i64, u64)>, Vec<String>);

    fn limits(words: &[&str]) -> Result<Parsed, ZkitError> {
        let words: Vec<&[u8]> = words.iter().map(|w| w.as_bytes()).collect();
        parse_limits(&words).map(|(limits, rest)| {
            let limits = limits.iter().map(|l| (l.window_ms, l.limit)).collect();
            let rest = rest
                .iter()
                .map(|w| String::from_utf8_lossy(w).into())
                .collect();
            (limits, rest)
        })
    }

    #[test]
    fn limits_are_pairs_until_a_word_that_is_not_an_integer() {
        assert_eq!(limits(&["5000", "2"]), Ok((vec![(5000, 2)], vec![])));
        assert_eq!(
            limits(&["10000", "5", "86400000", "100", "COST", "2"]),
            Ok((
                vec![(10000, 5), (86400000, 100)],
                vec!["COST".into(), "2".into()]
            ))
        );
        // Today's calls keep their errors: the first pair is required.
        assert_eq!(limits(&["1.5", "5"]), Err(ZkitError::NotInteger));
        assert_eq!(limits(&["1000", "x"]), Err(ZkitError::NotInteger));
        assert_eq!(limits(&["1000"]), Err(ZkitError::Syntax));
        // An option word ends the pairs (and is the options' to judge).
        assert_eq!(
            limits(&["1000", "5", "BURST", "2"]),
            Ok((vec![(1000, 5)], vec!["BURST".into(), "2".into()]))
        );
        // A further pair is checked like the first; half a pair is an error.
        assert_eq!(
            limits(&["1000", "5", "2000", "x"]),
            Err(ZkitError::NotInteger)
        );
        assert_eq!(limits(&["1000", "5", "2000"]), Err(ZkitError::Syntax));
        assert_eq!(
            limits(&["1000", "5", "2000", "COST", "1"]),
            Err(ZkitError::Syntax)
        );
        assert!(matches!(
            limits(&["1000", "5", "0", "3"]),
            Err(ZkitError::OutOfRange { what: "window", .. })
        ));
        assert!(matches!(
            limits(&["1000", "5", "2000", "0"]),
            Err(ZkitError::OutOfRange { what: "limit", .. })
        ));
    }
}
