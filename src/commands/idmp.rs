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
//! A handler wires it in a few lines: its request reads [`IdmpArgs`] as a
//! part, [`Idmp::check`] before its first write (a repeat replies the current
//! state, and the command returns), [`Idmp::record`] after its write, and
//! the reply gains the flag as its last element ([`with_flag`]).

use std::sync::atomic::{AtomicI64, Ordering};

use super::{Counter, NumericConfig};
use crate::error::{bound, ZkitError};
use crate::host::{key_flags as kf, Arg, Ctx, RStr, Reply, Request, ScoreBound};
use crate::logic::clock::MAX_DURATION_MS;
use crate::logic::idmp::{
    self, IdmpError, Seen, DEFAULT_MAX_IDS, DEFAULT_RETAIN_MS, MAX_IDS_LIMIT,
};
use crate::request;

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

/// Key-spec flags of a seen-key: read (is the id there?) and written (the
/// id is added, expired ids removed).
const SEEN_KEY_FLAGS: u32 = kf::RW | kf::UPDATE;

/// `IDMP seen-key event-id`, an option of the writes a retry would apply
/// twice; [`RETAIN_ARG`] follows it. The event id stands at a fixed place
/// after the keyword, so any id is an id, `IDMP` included.
pub const IDMP_ARG: Arg = Arg::block(
    "idmp",
    &[
        Arg::key("seen-key", SEEN_KEY_FLAGS),
        Arg::string("event-id"),
    ],
)
.token("IDMP")
.optional()
.since("0.3.0");

/// `RETAIN ms`: this call's retention, with IDMP only.
pub const RETAIN_ARG: Arg = Arg::integer("ms").token("RETAIN").optional().since("0.3.0");

request! {
    /// The options `[IDMP seen-key event-id] [RETAIN ms]`, as parsed.
    pub struct IdmpArgs<'a> {
        clause: Option<(&'a RStr, &'a RStr)> = option(|c| (c.key(), c.string())),
        retain_ms: Option<i64> = option(Request::integer),
    }
}

impl<'a> IdmpArgs<'a> {
    /// The clause, checked: RETAIN needs IDMP and a retention in range.
    pub fn check(self) -> Result<Option<Idmp<'a>>, ZkitError> {
        let Some((seen_key, event_id)) = self.clause else {
            return match self.retain_ms {
                Some(_) => Err(IdmpError::RetainWithoutIdmp.into()),
                None => Ok(None),
            };
        };
        let retain_ms = match self.retain_ms {
            Some(ms) if !idmp::valid_retention(ms) => {
                return Err(ZkitError::OutOfRange {
                    what: "retain",
                    limit: bound::DURATION_MS,
                })
            }
            Some(ms) => ms,
            None => RETAIN_MS.value.load(Ordering::Relaxed),
        };
        Ok(Some(Idmp {
            seen_key,
            event_id,
            retain_ms,
        }))
    }
}

/// A checked clause.
pub struct Idmp<'a> {
    seen_key: &'a RStr,
    event_id: &'a RStr,
    retain_ms: i64,
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

/// A reply with its last element added: whether the call's event id was
/// already applied, when the call gave one.
pub fn with_flag(mut reply: Vec<Reply>, seen: Option<Seen>) -> Reply {
    if let Some(seen) = seen {
        reply.push(Reply::Int(seen.reply_flag()));
    }
    Reply::Array(reply)
}
