//! The write gate: a write zkit makes outside a client's own command call
//! asks here first whether the server would accept a write now.
//!
//! Inside a command call the server has already decided: `processCommand`
//! (or EXEC, or the script engine for `redis.call`) refuses a write command
//! while clients are paused, on a read-only replica, with too few good
//! replicas (NOREPLICAS), after a failed save (MISCONF), out of memory for
//! `deny-oom` commands, and while loading, before zkit runs. Callbacks get no
//! such check, and a write there during a pause makes the server abort
//! (`serverAssert` in `propagateNow`: nothing may be propagated while
//! replication traffic is paused).
//!
//! Where zkit runs outside a command call (keep this list complete):
//! - DELAY.BPOLL's reply callback (`block.rs`, `reply_blocked`), run when the
//!   blocked client's key is signalled: by its wake-up timer, by a keyspace
//!   event after another client's write, or by zkit's own writes. It claims
//!   tasks (and with dead letters counts deliveries and moves dead tasks),
//!   so it asks this gate first, before any of those writes. It is the only
//!   deferred writer in a blocked client's callback, and it writes only
//!   when it serves the client (see `ZsetWaiter::serve`).
//! - Deferred work (`deferred.rs`): each step, run from a module timer,
//!   asks this gate first (DELAY's dead tasks moved out ahead of live ones).
//! - Not writers, so not gated: the blocked client's timeout callback
//!   (replies nil), its free callback, the wake-up timer and the
//!   keyspace-event handler (they only signal a key), the INFO callback,
//!   config setters, load and unload.
//! - Every other path (RANK, FEED, VOTE, RATE, RECENT, DELAY.POLL, DELAY.ACK,
//!   DELAY.NACK, DELAY.TOUCH and BPOLL's first try) writes only inside the
//!   client's own command call, after the server's checks above.
//!
//! The verdict gives the answer a plain command from that client would get
//! at that moment: paused (or loading) postpones it, as the server postpones
//! commands of paused clients; NOREPLICAS, MISCONF, a read-only replica and a
//! replica whose master link is down with `replica-serve-stale-data no`
//! refuse it with the server's own error text. Out of memory refuses only
//! `deny-oom` commands, and the deferred writer is not one (a poll frees
//! memory), so the gate does not check it. A server that turns into a
//! replica unblocks every blocked client itself (`-UNBLOCKED`), so no
//! callback runs for them there.

use std::ffi::{c_int, CStr};
use std::sync::atomic::{AtomicU64, Ordering};

use redis_module::raw;

use super::api;
use super::call::{call_with_args, CallArg, CallArgs, CallReply, Native};
use super::ctx::Ctx;
use super::string::RStr;

/// What a deferred write may do now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteVerdict {
    /// A write would be accepted: go ahead.
    Accepted,
    /// Clients are paused (CLIENT PAUSE WRITE or ALL, FAILOVER, a cluster
    /// manual failover, shutdown) or the server is loading: write nothing and
    /// try again later.
    Postponed,
    /// The server refuses writes; the text is its own error reply.
    Refused(String),
}

/// Blocked clients whose claim the gate postponed (once per client), claims
/// it refused, and probes that ran as a real command (Redis 7.0), since the
/// module loaded: for INFO.
static POSTPONED: AtomicU64 = AtomicU64::new(0);
static REFUSED: AtomicU64 = AtomicU64::new(0);
static PROBES_RUN: AtomicU64 = AtomicU64::new(0);

/// The gate's counts since load.
pub struct WriteGateCounts {
    pub postponed_clients: u64,
    pub refused_claims: u64,
    /// Probes that ran as a real `ZADD` (Redis 7.0 only): one the server's
    /// checks did not refuse shows as a failed call in `cmdstat_zadd`.
    pub probes_run: u64,
}

pub fn write_gate_counts() -> WriteGateCounts {
    WriteGateCounts {
        postponed_clients: POSTPONED.load(Ordering::Relaxed),
        refused_claims: REFUSED.load(Ordering::Relaxed),
        probes_run: PROBES_RUN.load(Ordering::Relaxed),
    }
}

pub(super) fn count_postponed() {
    POSTPONED.fetch_add(1, Ordering::Relaxed);
}

pub(super) fn reset_counts() {
    POSTPONED.store(0, Ordering::Relaxed);
    REFUSED.store(0, Ordering::Relaxed);
    PROBES_RUN.store(0, Ordering::Relaxed);
}

/// How often a postponed client is tried again: the module API has no event
/// for the end of a pause.
pub const POSTPONED_RETRY_MS: i64 = 50;

/// The write the gate probes with: a ZADD on the key the deferred write is
/// about to change, with NX and XX together, which every server refuses
/// while parsing its options, before it looks the key up.
const PROBE_MEMBER: &[u8] = b"zkit:write-gate-probe";
/// The refusal of NX and XX together (Redis 7.0 `zaddGenericCommand`).
const PROBE_PARSE_ERROR: &str = "ERR XX and NX options at the same time are not compatible";

/// Redis 7.2 and Valkey (7.2.4 and later) have RM_Call's dry-run flag `D`.
const DRY_RUN_SINCE: c_int = 0x0007_0200;

impl Ctx {
    /// Whether the server would accept a write to `key` now from the client
    /// this callback serves, counted in INFO. Call it right before a
    /// deferred write, in the same callback: nothing can change in between.
    pub fn deferred_write_verdict(&self, key: &RStr) -> WriteVerdict {
        let verdict = self.write_verdict(key);
        if let WriteVerdict::Refused(_) = verdict {
            REFUSED.fetch_add(1, Ordering::Relaxed);
        }
        verdict
    }

    /// [`Ctx::deferred_write_verdict`], not counted as a refused claim.
    pub(super) fn write_verdict(&self, key: &RStr) -> WriteVerdict {
        // SAFETY: no arguments; reads the server's pause state. True exactly
        // when the server's propagation assertion would fire.
        if unsafe { api!(RedisModule_AvoidReplicaTraffic)() } != 0 {
            return WriteVerdict::Postponed;
        }
        let loading = (raw::REDISMODULE_CTX_FLAGS_LOADING
            | raw::REDISMODULE_CTX_FLAGS_ASYNC_LOADING) as c_int;
        if self.flags() & loading != 0 {
            return WriteVerdict::Postponed;
        }
        match self.probe_write(key) {
            None => WriteVerdict::Accepted,
            Some(refusal) => WriteVerdict::Refused(refusal),
        }
    }

    /// Asks the server about a write command on `key` in script mode (`S`),
    /// where RM_Call applies the checks `processCommand` applies to a
    /// client's write: NOREPLICAS, MISCONF, READONLY, MASTERDOWN, and in a
    /// cluster the key's slot. Returns the server's refusal, if any.
    ///
    /// Redis 7.2+ and Valkey stop the call there (`D`, dry run). Redis 7.0
    /// has no dry run: the probe runs, and the ZADD refuses NX with XX before
    /// it touches anything, but it shows in `cmdstat_zadd` as a failed call
    /// and in `errorstat_ERR`, calls nobody made. So on 7.0 the probe runs
    /// only where a refusal is possible at all (`refusal_possible`), and is
    /// counted in `INFO zkit` (`zkit_write_gate_probes_run`); on a plain
    /// master, the common case, it leaves no trace.
    fn probe_write(&self, key: &RStr) -> Option<String> {
        // Without ZADD there is nothing to probe with, and the write itself
        // refuses, naming it (`Ctx::require`).
        if !Native::Zadd.is_available() {
            return None;
        }
        let dry_run = server_version() >= DRY_RUN_SINCE;
        if !dry_run {
            if !self.refusal_possible() {
                return None;
            }
            PROBES_RUN.fetch_add(1, Ordering::Relaxed);
        }
        let args = CallArgs::new(&[
            CallArg::Str(key),
            CallArg::Bytes(b"NX"),
            CallArg::Bytes(b"XX"),
            CallArg::Int(0),
            CallArg::Bytes(PROBE_MEMBER),
        ]);
        // SAFETY: valid context; "S": script mode, "D": dry run (implies
        // "E"), "E": errors as replies; then one string per "s", alive until
        // the call returns.
        let reply = unsafe {
            if dry_run {
                call_with_args!(
                    api!(RedisModule_Call),
                    self.as_ptr(),
                    Native::Zadd.name().as_ptr(),
                    "SD",
                    args
                )
            } else {
                call_with_args!(
                    api!(RedisModule_Call),
                    self.as_ptr(),
                    Native::Zadd.name().as_ptr(),
                    "SE",
                    args
                )
            }
        };
        // A dry run that passes returns no reply at all.
        let reply = CallReply::adopt(reply)?;
        let error = reply.get().error()?;
        (error != PROBE_PARSE_ERROR).then_some(error)
    }
}

impl Ctx {
    /// Whether the script-mode checks could refuse a write now, as far as
    /// Redis 7.0 shows it without running a command (a superset: the probe
    /// then decides): a replica (READONLY, MASTERDOWN), a cluster node (the
    /// key's slot), `min-replicas-to-write` set (INFO then counts good
    /// replicas: NOREPLICAS), a failed save or AOF write (MISCONF).
    fn refusal_possible(&self) -> bool {
        let flags = self.flags();
        let roles =
            (raw::REDISMODULE_CTX_FLAGS_SLAVE | raw::REDISMODULE_CTX_FLAGS_CLUSTER) as c_int;
        if flags & roles != 0 {
            return true;
        }
        let failed = |section: &CStr, field: &CStr| {
            self.server_info_field(section, field)
                .is_some_and(|status| status == b"err")
        };
        self.server_info_field(c"replication", c"min_slaves_good_slaves")
            .is_some()
            || failed(c"persistence", c"rdb_last_bgsave_status")
            || failed(c"persistence", c"aof_last_write_status")
    }
}

/// The server's version as RedisModule_GetServerVersion packs it
/// (0x00MMmmpp); Valkey reports its own version, 8.0 and later.
fn server_version() -> c_int {
    // SAFETY: no arguments; available since Redis 6.0.9.
    unsafe { api!(RedisModule_GetServerVersion)() }
}
