//! `IDMP seen-key event-id [RETAIN ms]`: exactly-once writes for the
//! commands a retry would apply twice (RANK.GIFT, RANK.SET, RANK.MGIFT,
//! RATE.HIT). A payment callback delivered twice, or a client that timed
//! out and sent the call again, names the same event id; the second call
//! changes nothing and replies the current state.
//!
//! The seen-key is a plain sorted set the caller names: event ids scored by
//! the unix ms at which they are forgotten (`logic::idmp`). It is declared
//! as a key, so ACLs and Cluster see it: in a cluster it must share the
//! board's slot (a hash tag, `{room:7}:board` and `{room:7}:seen`), else the
//! call is refused with CROSSSLOT. Remembering the id and the write are one
//! command, whose effects replicate in one MULTI/EXEC (`host/effects.rs`): a
//! replica, an AOF replay or a promoted replica holds the id exactly when it
//! holds the write, and refuses the same repeat.
//!
//! A handler wires it in a few lines: split the clause off its arguments,
//! [`Idmp::check`] before its first write (a repeat replies the current
//! state, and the command returns), [`Idmp::record`] after its write, and
//! the reply gains [`Seen::reply_flag`] as its last element.

use std::sync::atomic::{AtomicI64, Ordering};

use super::args::{is_keyword, parse_i64};
use super::{Counter, NumericConfig};
use crate::error::{bound, ZkitError};
use crate::host::{key_flags as kf, Arg, Ctx, KeySpec, RStr, ScoreBound};
use crate::logic::clock::MAX_DURATION_MS;
use crate::logic::idmp::{
    self, IdmpError, Seen, DEFAULT_MAX_IDS, DEFAULT_RETAIN_MS, MAX_IDS_LIMIT,
};

/// `zkit.idmp-retain-ms`: how long an applied event id is remembered when
/// the call gives no `RETAIN`.
pub static RETAIN_MS: NumericConfig = NumericConfig {
    name: "idmp-retain-ms",
    value: AtomicI64::new(DEFAULT_RETAIN_MS),
    default: DEFAULT_RETAIN_MS,
    min: 1,
    max: MAX_DURATION_MS,
};

/// `zkit.idmp-max-ids`: the most event ids one seen-key holds; past it, the
/// ids closest to expiring are forgotten first.
pub static MAX_IDS: NumericConfig = NumericConfig {
    name: "idmp-max-ids",
    value: AtomicI64::new(DEFAULT_MAX_IDS),
    default: DEFAULT_MAX_IDS,
    min: 1,
    max: MAX_IDS_LIMIT,
};

/// Repeated event ids: calls that changed nothing because their event id
/// was already applied.
pub static REPEATS_REFUSED: Counter = Counter::new();

/// Event ids forgotten before their retention because a seen-key reached
/// `zkit.idmp-max-ids` (a repeat of one of them would apply again).
pub static IDS_EVICTED: Counter = Counter::new();

/// The keyword that starts the clause.
const KEYWORD: &str = "IDMP";
/// The keyword of the per-call retention, after the event id.
const RETAIN_KEYWORD: &str = "RETAIN";

/// Key-spec flags of a seen-key: read (is the id there?) and written (the
/// id is added, expired ids removed).
const SEEN_KEY_FLAGS: u32 = kf::RW | kf::UPDATE;

/// The key spec of a seen-key, found after the `IDMP` keyword searched
/// forward from argv index `start` (a command whose arguments before the
/// clause are at fixed places) or, with a negative `start`, backward from
/// the end (the clause closes the command).
pub const fn key_spec(start: i32) -> KeySpec {
    KeySpec::after_keyword(KEYWORD, start, SEEN_KEY_FLAGS)
}

/// The clause in COMMAND DOCS, for commands whose seen-key is their key
/// spec 1 (the written keys are spec 0); [`RETAIN_ARG`] follows it.
pub const IDMP_ARG: Arg = Arg::block("idmp", &[Arg::key("seen-key", 1), Arg::string("event-id")])
    .token(KEYWORD)
    .optional()
    .since("0.3.0");

/// `RETAIN ms`, valid after the IDMP clause only.
pub const RETAIN_ARG: Arg = Arg::integer("ms")
    .token(RETAIN_KEYWORD)
    .optional()
    .since("0.3.0");

/// A parsed clause; its words are server strings in a command, plain bytes
/// in the unit tests.
pub struct Idmp<'a, A = RStr> {
    seen_key: &'a A,
    event_id: &'a A,
    retain_ms: i64,
}

/// Splits `IDMP seen-key event-id [RETAIN ms]` off the end of `args`: the
/// arguments before it, and the clause if given. The clause closes the
/// command, so the key spec finds it searching back from the end.
pub fn split_trailing<A: AsRef<[u8]>>(
    args: &[A],
) -> Result<(&[A], Option<Idmp<'_, A>>), ZkitError> {
    let n = args.len();
    let with_retain = n >= 5
        && is_keyword(args[n - 5].as_ref(), KEYWORD)
        && is_keyword(args[n - 2].as_ref(), RETAIN_KEYWORD);
    let clause_len = if with_retain {
        5
    } else if n >= 3 && is_keyword(args[n - 3].as_ref(), KEYWORD) {
        3
    } else {
        return Ok((args, None));
    };
    let (rest, clause) = args.split_at(n - clause_len);
    Ok((rest, Some(Idmp::parse(&clause[1..])?)))
}

/// Splits `IDMP seen-key event-id [RETAIN ms]` off the start of `args`: the
/// clause if given, and the arguments after it.
pub fn split_leading<A: AsRef<[u8]>>(args: &[A]) -> Result<(Option<Idmp<'_, A>>, &[A]), ZkitError> {
    let [keyword, rest @ ..] = args else {
        return Ok((None, args));
    };
    if !is_keyword(keyword.as_ref(), KEYWORD) {
        return Ok((None, args));
    }
    let clause_len = match rest {
        [_, _, retain, ..] if is_keyword(retain.as_ref(), RETAIN_KEYWORD) => 4,
        _ => 2,
    };
    if rest.len() < clause_len {
        return Err(ZkitError::Syntax);
    }
    let (clause, after) = rest.split_at(clause_len);
    // A clause given twice, or RETAIN twice, is a syntax error, as a
    // repeated option is everywhere.
    if after
        .first()
        .is_some_and(|w| is_keyword(w.as_ref(), KEYWORD) || is_keyword(w.as_ref(), RETAIN_KEYWORD))
    {
        return Err(ZkitError::Syntax);
    }
    Ok((Some(Idmp::parse(clause)?), after))
}

impl<'a, A: AsRef<[u8]>> Idmp<'a, A> {
    /// `seen-key event-id [RETAIN ms]`.
    fn parse(clause: &'a [A]) -> Result<Idmp<'a, A>, ZkitError> {
        let (seen_key, event_id, retain_ms) = match clause {
            [seen_key, event_id] => (seen_key, event_id, None),
            [seen_key, event_id, _retain, ms] => (seen_key, event_id, Some(ms)),
            _ => return Err(ZkitError::Syntax),
        };
        // An event id spelled like the keyword would let the key spec, which
        // searches for the keyword, find another word than the seen-key.
        if is_keyword(event_id.as_ref(), KEYWORD) {
            return Err(ZkitError::Syntax);
        }
        let retain_ms = match retain_ms {
            Some(ms) => {
                let ms = parse_i64(ms.as_ref())?;
                if !idmp::valid_retention(ms) {
                    return Err(ZkitError::OutOfRange {
                        what: "retain",
                        limit: bound::DURATION_MS,
                    });
                }
                ms
            }
            None => RETAIN_MS.value.load(Ordering::Relaxed),
        };
        Ok(Idmp {
            seen_key,
            event_id,
            retain_ms,
        })
    }
}

impl Idmp<'_> {
    /// Whether the event was already applied; call before the command's
    /// first write. Refuses a seen-key that is one of the keys the command
    /// writes, or one that holds another type (WRONGTYPE). A repeat is
    /// counted in INFO.
    pub fn check(&self, ctx: &Ctx, written: &[&RStr]) -> Result<Seen, ZkitError> {
        let seen_key = self.seen_key.as_bytes();
        if written.iter().any(|key| key.as_bytes() == seen_key) {
            return Err(IdmpError::SeenKeyIsWritten.into());
        }
        let now_ms = ctx.now_ms();
        self.expiry(now_ms)?;
        let expiry = ctx
            .open_zset(self.seen_key)?
            .and_then(|seen| seen.score(self.event_id));
        let seen = idmp::seen(expiry, now_ms);
        if seen == Seen::Repeat {
            REPEATS_REFUSED.add(1);
        }
        Ok(seen)
    }

    /// Remembers the event as applied, after the command's write: forgets
    /// the ids that expired, adds this one until now + retention, and
    /// forgets the ids closest to expiring past `zkit.idmp-max-ids`.
    pub fn record(&self, ctx: &Ctx) -> Result<(), ZkitError> {
        let now_ms = ctx.now_ms();
        let expiry = self.expiry(now_ms)?;
        let mut seen = ctx.open_zset_mut(self.seen_key)?;
        seen.remove_up_to(idmp::trim_cutoff(now_ms));
        seen.add(self.event_id, expiry as f64)?;
        let max_ids = usize::try_from(MAX_IDS.value.load(Ordering::Relaxed)).unwrap_or(1);
        let excess = idmp::excess(seen.len(), max_ids);
        if excess > 0 {
            let event_id = self.event_id.as_bytes();
            let doomed: Vec<_> = seen
                .iter_asc(ScoreBound::MIN, ScoreBound::MAX)
                .map(|(id, _)| id)
                .filter(|id| id.as_bytes() != event_id)
                .take(excess)
                .collect();
            for id in &doomed {
                seen.remove(id);
            }
            IDS_EVICTED.add(doomed.len() as u64);
        }
        Ok(())
    }
}

impl Idmp<'_> {
    /// When an id applied at `now_ms` is forgotten; checked by
    /// [`Idmp::check`], before the command writes.
    fn expiry(&self, now_ms: i64) -> Result<i64, ZkitError> {
        idmp::expiry(now_ms, self.retain_ms).ok_or(ZkitError::OutOfRange {
            what: "retain",
            limit: bound::DURATION_MS,
        })
    }
}

/// The last element of a reply: whether the call's event id was already
/// applied, when the call gave one.
pub fn reply_flag(ctx: &Ctx, seen: Option<Seen>) {
    if let Some(seen) = seen {
        ctx.reply_i64(seen.reply_flag());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::clock::MAX_DURATION_MS;

    type Words = Vec<&'static [u8]>;

    fn words(line: &'static str) -> Words {
        line.split(' ').map(str::as_bytes).collect()
    }

    /// The clause as (seen-key, event id, retention), and the other words.
    fn trailing(line: &'static str) -> Result<(Words, Option<(Words, i64)>), ZkitError> {
        let args = words(line);
        let (rest, clause) = split_trailing(&args)?;
        Ok((rest.to_vec(), clause.map(parts)))
    }

    fn leading(line: &'static str) -> Result<(Option<(Words, i64)>, Words), ZkitError> {
        let args = words(line);
        let (clause, rest) = split_leading(&args)?;
        Ok((clause.map(parts), rest.to_vec()))
    }

    fn parts(clause: Idmp<'_, &'static [u8]>) -> (Words, i64) {
        (vec![*clause.seen_key, *clause.event_id], clause.retain_ms)
    }

    const DAY: i64 = DEFAULT_RETAIN_MS;

    #[test]
    fn the_clause_closes_a_rank_write() {
        assert_eq!(
            trailing("AT 5 SHARED IDMP seen pay-1"),
            Ok((words("AT 5 SHARED"), Some((words("seen pay-1"), DAY))))
        );
        assert_eq!(
            trailing("idmp seen pay-1 retain 60000"),
            Ok((vec![], Some((words("seen pay-1"), 60_000))))
        );
        // No clause, or one that is not last: the words are the options'.
        assert_eq!(trailing("AT 5"), Ok((words("AT 5"), None)));
        assert_eq!(
            trailing("IDMP seen pay-1 SHARED"),
            Ok((words("IDMP seen pay-1 SHARED"), None))
        );
        // Given twice, the first is left to the options, which refuse it.
        assert_eq!(
            trailing("IDMP a x IDMP b y"),
            Ok((words("IDMP a x"), Some((words("b y"), DAY))))
        );
    }

    #[test]
    fn the_clause_follows_the_key_of_a_rate_hit() {
        assert_eq!(
            leading("IDMP seen hit-1 1000 5"),
            Ok((Some((words("seen hit-1"), DAY)), words("1000 5")))
        );
        assert_eq!(
            leading("IDMP seen hit-1 RETAIN 5000 1000 5"),
            Ok((Some((words("seen hit-1"), 5_000)), words("1000 5")))
        );
        assert_eq!(leading("1000 5"), Ok((None, words("1000 5"))));
        assert_eq!(leading("IDMP seen"), Err(ZkitError::Syntax));
        assert_eq!(leading("IDMP a x IDMP b y 1000 5"), Err(ZkitError::Syntax));
        assert_eq!(
            leading("IDMP a x RETAIN 5 RETAIN 5 1000 5"),
            Err(ZkitError::Syntax)
        );
    }

    #[test]
    fn bad_clauses_are_refused() {
        // An event id spelled like the keyword would mislead the key spec.
        assert_eq!(trailing("IDMP seen idmp"), Err(ZkitError::Syntax));
        assert_eq!(leading("IDMP seen IDMP 1000 5"), Err(ZkitError::Syntax));
        let out_of_range = Err(ZkitError::OutOfRange {
            what: "retain",
            limit: bound::DURATION_MS,
        });
        assert_eq!(trailing("IDMP seen e RETAIN 0"), out_of_range);
        assert_eq!(MAX_DURATION_MS + 1, 3_155_760_000_001);
        assert_eq!(trailing("IDMP seen e RETAIN 3155760000001"), out_of_range);
        assert_eq!(trailing("IDMP seen e RETAIN x"), Err(ZkitError::NotInteger));
    }
}
