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
//! The seen-key also remembers a digest of each call's arguments
//! (`logic::idmp` documents the format): a call that names an applied id
//! with other arguments (another event given the same id by mistake) is
//! refused instead of being taken for a retry.
//!
//! A command takes it by declaring it once: [`IDMP_ARG`] and [`RETAIN_ARG`]
//! where its syntax puts them (read by the wrapper, not by its own request),
//! `R::Idmp(...)` around its reply shape, and `handler: idmp::once(check)`,
//! where `check` checks the call and returns the write, not yet made, as an
//! [`OnceWrite`]: the digest of the call's arguments, the keys it writes,
//! what a repeat replies (the current state) and the write itself, which
//! says whether it applied. [`once`] does the rest for every such command,
//! in this order: RETAIN needs IDMP and a retention in range; the command's
//! own checks (`check`: a bad argument is refused before any seen-key is
//! read); whether the event was seen, before the first write (a seen-key
//! that is a written key, WRONGTYPE, an id applied with other arguments are
//! refused there); the write, or for a repeat its reply; remembering an
//! applied event; and the flag, 1 for a repeat, as the reply's last element
//! ([`Flagged`]).

use std::sync::atomic::{AtomicI64, Ordering};

use super::config::NumericConfig;
use super::counter::Counter;
use crate::error::{bound, ZkitError};
use crate::host::command::FromArgs;
use crate::host::ctx::Ctx;
use crate::host::grammar::Arg;
use crate::host::grammar::Request;
use crate::host::keyspec::key_flags as kf;
use crate::host::reply::WriteArray;
use crate::host::reply::WriteReply;
use crate::host::string::OwnedRStr;
use crate::host::string::RStr;
use crate::host::zset::ScoreBound;
use crate::logic::clock::MAX_DURATION_MS;
use crate::logic::idmp::{
    self, Entry, IdmpError, Seen, DEFAULT_MAX_IDS, DEFAULT_RETAIN_MS, DIGEST_LEN, MAX_IDS_LIMIT,
};
use crate::request;

/// `zkit.idmp-retain-ms`: how long an applied event id is remembered when
/// the call gives no `RETAIN`.
pub static RETAIN_MS: NumericConfig =
    NumericConfig::new("idmp-retain-ms", DEFAULT_RETAIN_MS, 1, MAX_DURATION_MS);

/// `zkit.idmp-max-ids`: the most event ids one seen-key holds; past it, the
/// ids closest to expiring are forgotten first.
pub static MAX_IDS: NumericConfig =
    NumericConfig::new("idmp-max-ids", DEFAULT_MAX_IDS, 1, MAX_IDS_LIMIT);

/// Repeated event ids: calls that changed nothing because their event id
/// was already applied.
pub static REPEATS_REFUSED: Counter = Counter::new();

/// Event ids forgotten before their retention because a seen-key reached
/// `zkit.idmp-max-ids` (a repeat of one of them would apply again).
pub static IDS_EVICTED: Counter = Counter::new();

/// Calls refused because their event id was applied with other arguments.
pub static OTHER_ARGUMENTS_REFUSED: Counter = Counter::new();

/// Event ids remembered while the server's `maxmemory-policy` could evict
/// their seen-key (`allkeys-*`), and ids remembered in a seen-key that has a
/// TTL: either way the seen-key can vanish before the ids' retention ends,
/// and a retry would then apply again (docs/delivery.md, "The seen-key must
/// stay").
pub static IDS_EVICTABLE: Counter = Counter::new();
pub static IDS_EXPIRING: Counter = Counter::new();

/// When each of those was last logged (unix ms): at most once a minute.
static EVICTABLE_LOGGED_MS: AtomicI64 = AtomicI64::new(i64::MIN);
static EXPIRING_LOGGED_MS: AtomicI64 = AtomicI64::new(i64::MIN);
const WARN_EVERY_MS: i64 = 60_000;

/// Key-spec flags of a seen-key: read (is the id there?) and written (the
/// id is added, expired ids removed).
const SEEN_KEY_FLAGS: u32 = kf::RW | kf::UPDATE;

/// `IDMP seen-key event-id`, an option of the writes a retry would apply
/// twice; [`RETAIN_ARG`] follows it. The event id stands at a fixed place
/// after the keyword, so any id is an id, `IDMP` included. Both are read
/// by the wrapper [`once`], not by the command's own request.
pub const IDMP_ARG: Arg = Arg::block(
    "idmp",
    &[
        Arg::key("seen-key", SEEN_KEY_FLAGS),
        Arg::string("event-id"),
    ],
)
.token("IDMP")
.optional()
.since("0.3.0")
.read_by_wrapper();

/// `RETAIN ms`: this call's retention, with IDMP only.
pub const RETAIN_ARG: Arg = Arg::integer("ms")
    .token("RETAIN")
    .optional()
    .since("0.3.0")
    .read_by_wrapper();

/// A write a call may name an event id for, checked and not yet made: what
/// a command that takes IDMP has of its own ([`once`] does the rest).
pub trait OnceWrite {
    /// The reply, which [`once`] writes with the flag after it.
    type Reply: WriteArray;

    /// The digest of the call's arguments that the seen-key remembers:
    /// `ArgsDigest::new(command name)`, then the arguments in the order
    /// `logic::idmp` documents for this command (the Functions library
    /// writes the same bytes).
    fn digest(&self) -> [u8; DIGEST_LEN];

    /// The keys the write writes: a seen-key may not be one of them.
    fn written_keys(&self) -> &[&RStr];

    /// What a repeated event replies: the current state, nothing written.
    fn current(&self, ctx: &Ctx) -> Result<Self::Reply, ZkitError>;

    /// Makes the write; an event whose write did not apply (a refused hit)
    /// is not remembered, so a retry may apply later.
    fn apply(self, ctx: &Ctx) -> Result<Outcome<Self::Reply>, ZkitError>;
}

/// What [`OnceWrite::apply`] did, and its reply.
pub enum Outcome<R> {
    Applied(R),
    NotApplied(R),
}

/// The handler of a command that takes IDMP (see the module doc): `check`
/// checks the call and returns its write; the event is looked up before
/// the write, remembered after it, and the reply gains the flag.
pub fn once<'a, T, W, F>(
    check: F,
) -> impl Fn(&Ctx, Once<'a, T>) -> Result<Flagged<W::Reply>, ZkitError>
where
    T: FromArgs<'a>,
    W: OnceWrite,
    F: Fn(&Ctx, T) -> Result<W, ZkitError>,
{
    move |ctx, call| {
        let clause = call.idmp.validate()?;
        let write = check(ctx, call.request)?;
        let Some(clause) = clause else {
            let (Outcome::Applied(reply) | Outcome::NotApplied(reply)) = write.apply(ctx)?;
            return Ok(Flagged { reply, seen: None });
        };
        let idmp = clause.with_digest(write.digest());
        let seen = idmp.seen(ctx, write.written_keys())?;
        let reply = match seen {
            Seen::Repeat => write.current(ctx)?,
            Seen::New => match write.apply(ctx)? {
                Outcome::Applied(reply) => {
                    idmp.remember(ctx)?;
                    reply
                }
                Outcome::NotApplied(reply) => reply,
            },
        };
        Ok(Flagged {
            reply,
            seen: Some(seen),
        })
    }
}

/// The request of a command that takes IDMP: the command's own (`T`), and
/// the options `[IDMP seen-key event-id] [RETAIN ms]`, read by the wrapper
/// wherever the command declares them.
pub struct Once<'a, T> {
    idmp: IdmpArgs<'a>,
    request: T,
}

impl<'a, T: FromArgs<'a>> FromArgs<'a> for Once<'a, T> {
    // Inlined into the dispatch with the command's own request, as a
    // request read in one piece is (callgrind: a few dozen instructions a
    // call otherwise).
    #[inline(always)]
    fn from_args(args: &mut Request<'a, RStr>) -> Self {
        let idmp = match args.wrapper_options() {
            Some(mut options) => IdmpArgs::from_args(&mut options),
            None => IdmpArgs {
                clause: None,
                retain_ms: None,
            },
        };
        Once {
            idmp,
            request: T::from_args(args),
        }
    }
}

/// A reply with, when the call gave an event id, the flag as its last
/// element: 1 when the event was already applied (nothing changed), else 0.
pub struct Flagged<R> {
    reply: R,
    seen: Option<Seen>,
}

impl<R: WriteArray> WriteReply for Flagged<R> {
    fn write(&self, ctx: &Ctx) {
        self.reply
            .write_array(ctx, usize::from(self.seen.is_some()));
        if let Some(seen) = self.seen {
            ctx.reply_i64(seen.reply_flag());
        }
    }
}

request! {
    /// The options `[IDMP seen-key event-id] [RETAIN ms]`, as parsed.
    struct IdmpArgs<'a> {
        clause: Option<(&'a RStr, &'a RStr)> = option(|c| (c.key(), c.string())),
        retain_ms: Option<i64> = option(Request::integer),
    }
}

impl<'a> IdmpArgs<'a> {
    /// The clause, checked: RETAIN needs IDMP and a retention in range.
    fn validate(self) -> Result<Option<Clause<'a>>, ZkitError> {
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
            None => RETAIN_MS.get(),
        };
        Ok(Some(Clause {
            seen_key,
            event_id,
            retain_ms,
        }))
    }
}

/// A checked clause, before the call's arguments are digested.
struct Clause<'a> {
    seen_key: &'a RStr,
    event_id: &'a RStr,
    retain_ms: i64,
}

impl<'a> Clause<'a> {
    fn with_digest(self, digest: [u8; DIGEST_LEN]) -> Idmp<'a> {
        Idmp {
            seen_key: self.seen_key,
            event_id: self.event_id,
            retain_ms: self.retain_ms,
            digest,
        }
    }
}

/// A checked clause and the digest of the call's arguments.
struct Idmp<'a> {
    seen_key: &'a RStr,
    event_id: &'a RStr,
    retain_ms: i64,
    /// The call's arguments, as the seen-key remembers them.
    digest: [u8; DIGEST_LEN],
}

impl Idmp<'_> {
    /// Whether the event was already applied; looked up before the
    /// command's first write. Refuses a seen-key that is one of the keys the
    /// command writes, one that holds another type (WRONGTYPE), and an event
    /// id applied with other arguments. Repeats and refusals are counted in
    /// INFO.
    fn seen(&self, ctx: &Ctx, written: &[&RStr]) -> Result<Seen, ZkitError> {
        let seen_key = self.seen_key.as_bytes();
        if written.iter().any(|key| key.as_bytes() == seen_key) {
            return Err(IdmpError::SeenKeyIsWritten.into());
        }
        let now_ms = ctx.now_ms();
        let expiry = self.expiry(now_ms)?;
        let (id, args) = match ctx.open_zset(self.seen_key)? {
            Some(seen) => {
                let id = seen.score(self.event_id);
                // Only looked up when the id is there.
                let args = id.and_then(|_| {
                    let (member, _) =
                        idmp::args_member(self.event_id.as_bytes(), &self.digest, expiry);
                    seen.score(&OwnedRStr::new(&member))
                });
                (id, args)
            }
            None => (None, None),
        };
        let seen = idmp::seen(id, args, now_ms).inspect_err(|_| OTHER_ARGUMENTS_REFUSED.add(1))?;
        if seen == Seen::Repeat {
            REPEATS_REFUSED.add(1);
        }
        Ok(seen)
    }

    /// Remembers the event as applied, after the command's write: forgets
    /// the ids that expired, adds this one and its arguments until now +
    /// retention, and forgets the ids closest to expiring past
    /// `zkit.idmp-max-ids`.
    fn remember(&self, ctx: &Ctx) -> Result<(), ZkitError> {
        let now_ms = ctx.now_ms();
        let expiry = self.expiry(now_ms)?;
        let mut seen = ctx.open_zset_mut(self.seen_key)?;
        seen.remove_up_to(idmp::trim_cutoff(now_ms));
        seen.add(self.event_id, idmp::id_score(expiry))?;
        let (args, score) = idmp::args_member(self.event_id.as_bytes(), &self.digest, expiry);
        seen.add(&OwnedRStr::new(&args), score)?;
        self.warn_if_forgettable(ctx, seen.has_expiry());
        let max_ids = usize::try_from(MAX_IDS.get()).unwrap_or(1);
        let excess = idmp::excess(seen.len(), max_ids);
        if excess == 0 {
            return Ok(());
        }
        // The ids closest to expiring, whole: an id goes with its arguments
        // member (met after it, scored a quarter higher), an id written by
        // 0.3.0 alone.
        let event_id = self.event_id.as_bytes();
        let (mut doomed, mut ids) = (Vec::new(), 0);
        for (member, score) in seen.iter_asc(ScoreBound::MIN, ScoreBound::MAX) {
            if doomed.len() >= excess {
                break;
            }
            match idmp::entry(score) {
                Entry::Id => {}
                Entry::BareId if member.as_bytes() != event_id => {
                    doomed.push((member, None));
                    ids += 1;
                }
                Entry::BareId => {}
                Entry::Args => match idmp::id_of_args_member(member.as_bytes()) {
                    Some(id) if id != event_id => {
                        let id = OwnedRStr::new(id);
                        doomed.push((member, Some(score.floor())));
                        doomed.push((id, Some(score.floor())));
                        ids += 1;
                    }
                    _ => {}
                },
            }
        }
        for (member, expiry) in &doomed {
            // An id goes with an arguments member of its own expiry only.
            let own = expiry.is_none_or(|at| seen.score(member).is_some_and(|s| s.floor() == at));
            if own {
                seen.remove(member);
            }
        }
        IDS_EVICTED.add(ids);
        Ok(())
    }
}

impl Idmp<'_> {
    /// Counts (and logs, at most once a minute) an id remembered where its
    /// seen-key may vanish before the retention ends: evicted under an
    /// `allkeys-*` policy, or expired by a TTL someone gave it.
    fn warn_if_forgettable(&self, ctx: &Ctx, seen_key_expires: bool) {
        let now = ctx.now_ms();
        let log_now = |last: &AtomicI64| {
            let logged = last.load(Ordering::Relaxed);
            let due = now.saturating_sub(logged) >= WARN_EVERY_MS;
            if due {
                last.store(now, Ordering::Relaxed);
            }
            due
        };
        if ctx.may_evict_any_key() {
            IDS_EVICTABLE.add(1);
            if log_now(&EVICTABLE_LOGGED_MS) {
                ctx.log_warning(
                    "zkit: IDMP ids are remembered under an allkeys-* maxmemory-policy, which may \
                     evict their seen-key: a retry would then apply again. Use noeviction or a \
                     volatile-* policy (INFO zkit: zkit_idmp_ids_evictable)",
                );
            }
        }
        if seen_key_expires {
            IDS_EXPIRING.add(1);
            if log_now(&EXPIRING_LOGGED_MS) {
                ctx.log_warning(&format!(
                    "zkit: the IDMP seen-key '{}' has a TTL: when it expires, a retry of an event \
                     it remembers applies again. Remove it (PERSIST) (INFO zkit: \
                     zkit_idmp_ids_expiring)",
                    String::from_utf8_lossy(self.seen_key.as_bytes())
                ));
            }
        }
    }

    /// When an id applied at `now_ms` is forgotten; checked by
    /// [`Idmp::seen`], before the command writes.
    fn expiry(&self, now_ms: i64) -> Result<i64, ZkitError> {
        idmp::expiry(now_ms, self.retain_ms).ok_or(ZkitError::OutOfRange {
            what: "retain",
            limit: bound::DURATION_MS,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::grammar::trace_reads;

    request! {
        /// A write's own request: `key`. Its fields are read by the trace
        /// only.
        #[allow(dead_code)]
        struct KeyOnly<'a> {
            key: &'a RStr = key,
        }
    }

    const KEY: Arg = Arg::key("key", kf::RW);
    /// IDMP between the key and a list, as RATE.HIT declares it.
    static WITH_IDMP: &[Arg] = &[
        KEY,
        IDMP_ARG,
        RETAIN_ARG,
        Arg::integer("n").token("ITEMS").multiple(),
    ];
    static WITHOUT_IDMP: &[Arg] = &[KEY];

    request! {
        #[allow(dead_code)]
        struct KeyAndItems<'a> {
            key: &'a RStr = key,
            items: Vec<i64> = list(Request::integer),
        }
    }

    fn trace(args: &'static [Arg], read: fn(&mut Request<'_, RStr>)) -> Result<(), String> {
        let placeholder = std::slice::from_ref(RStr::placeholder());
        std::panic::catch_unwind(|| trace_reads(args, placeholder, read))
            .unwrap_or_else(|_| Err("a read the grammar does not declare".into()))
    }

    /// The options are read by [`Once`] wherever the command declares
    /// them, and only there: a command that declares IDMP but is not run by
    /// [`once`] leaves them unread (`every_declared_value_is_read_once`
    /// fails for it), and one run by [`once`] without declaring IDMP reads
    /// what its grammar does not hold.
    #[test]
    fn only_a_command_run_once_reads_idmp_and_it_must_declare_it() {
        assert_eq!(
            trace(WITH_IDMP, |r| {
                Once::<KeyAndItems>::from_args(r);
            }),
            Ok(())
        );
        let not_wired = trace(WITH_IDMP, |r| {
            KeyAndItems::from_args(r);
        })
        .unwrap_err();
        assert!(
            not_wired.contains("`IDMP idmp` is declared but not read"),
            "{not_wired}"
        );
        assert!(
            not_wired.contains("`RETAIN ms` is declared but not read"),
            "{not_wired}"
        );
        assert!(trace(WITHOUT_IDMP, |r| {
            Once::<KeyOnly>::from_args(r);
        })
        .is_err());
    }
}
