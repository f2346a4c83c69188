//! Blocking a client until one of its sorted sets has something for it: the
//! machinery behind DELAY.BPOLL (one queue, or several lanes), on
//! RedisModule_BlockClientOnKeys.
//!
//! Redis 7.0 calls the reply callback of a client blocked on keys every time
//! one of its keys is signalled ready, whatever the key's type; the callback
//! returns REDISMODULE_ERR to stay blocked. Three things signal a key here:
//!
//! - the server itself, when a command creates the key (ZADD into an absent
//!   queue, RENAME, COPY, MOVE, RESTORE);
//! - a write that may give an existing sorted set an earlier member. Native
//!   ZADD does not signal an existing key, so while at least one client waits
//!   zkit registers a command filter (`on_command`) that signals the
//!   destination of the native commands that can do that, when someone waits
//!   on it; zkit's own writes signal their keys when the call ends
//!   (`effects.rs`). The filter is removed when the last waiter leaves, so a
//!   server where nobody waits runs no zkit code at all for native commands.
//!   (A keyspace-event subscription would catch the same writes, but the
//!   module API cannot take one back before Redis 8.2, and every zset write
//!   would pay for it for the module's lifetime: see docs/performance.md.)
//! - a module timer per blocked client, armed for the time the waiter says
//!   its key will have something (the earliest due task), re-armed whenever
//!   the waiter is tried and has to keep waiting.
//!
//! Lifetimes: Redis owns the boxed [`Blocked`] state from the block until it
//! calls `free_blocked`, on every way out (served, timeout, disconnect,
//! CLIENT UNBLOCK). A timer only holds a pointer to that state, and
//! `free_blocked` stops it before dropping the state, so a timer never sees
//! freed memory; a timer that fires clears its id first, so a stale id is
//! never stopped later (ids are expiry times and can be reused).

use std::cell::UnsafeCell;
use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::hash::{BuildHasherDefault, Hasher};
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};

use redis_module::raw;
use smallvec::SmallVec;

use super::api;
use super::ctx::Ctx;
use super::error::HostError;
use super::gate::{WriteVerdict, POSTPONED_RETRY_MS};
use super::string::bytes_of;
use super::string::OwnedRStr;
use super::string::RStr;

/// What a blocked command does each time it may be served.
pub trait ZsetWaiter: Sized + 'static {
    /// What `readiness` and `serve` fail with; its text is the error reply.
    type Error: std::fmt::Display + From<HostError>;

    /// The sorted sets the client waits on (at least one), any of which
    /// wakes it; the first is the key the write gate asks about before
    /// [`ZsetWaiter::serve`] writes.
    fn keys(&self) -> &[OwnedRStr];

    /// Looks, without writing, whether the client can be served now. An
    /// error is replied to the client, which is then unblocked.
    fn readiness(&mut self, ctx: &Ctx) -> Result<Readiness, Self::Error>;

    /// Serves the client: writes, replies and returns [`Attempt::Served`],
    /// or writes nothing, replies nothing and returns [`Attempt::Wait`]
    /// (Redis 7.0 propagates what a blocked client's callback wrote only
    /// when the client is served, and aborts on writes left behind). Called
    /// only in the callback where [`ZsetWaiter::readiness`] answered `Ready`
    /// and the write gate accepted a write. An error is replied to the
    /// client, which is then unblocked; it must have changed nothing.
    fn serve(&mut self, ctx: &Ctx) -> Result<Attempt, Self::Error>;

    /// Replies when the timeout passed or CLIENT UNBLOCK was called.
    fn time_out(&mut self, ctx: &Ctx);
}

/// Whether a blocked client can be served now.
pub enum Readiness {
    /// Serving it now would write (a task is due).
    Ready,
    /// Nothing to serve yet: try again when the key is signalled, and at
    /// `wake_at_ms` (unix ms) if given.
    Wait { wake_at_ms: Option<i64> },
}

pub enum Attempt {
    Served,
    /// Nothing to serve after all; as [`Readiness::Wait`].
    Wait {
        wake_at_ms: Option<i64>,
    },
}

struct Blocked<W> {
    waiter: W,
    timer: Option<Timer>,
    /// The db of the blocked client, where its key is waited on.
    db: c_int,
    /// The write gate postponed this client's claim (counted once).
    postponed: bool,
    /// The last try found writes paused: look again after the pause too.
    tried_in_pause: bool,
}

/// Clients blocked by zkit now, for INFO.
static BLOCKED_CLIENTS: AtomicU64 = AtomicU64::new(0);

/// How many clients are blocked in zkit commands now.
pub fn blocked_clients() -> u64 {
    BLOCKED_CLIENTS.load(Ordering::Relaxed)
}

#[derive(Clone, Copy)]
struct Timer {
    id: raw::RedisModuleTimerID,
    at_ms: i64,
}

impl Ctx {
    /// Blocks the calling client on `waiter.keys()` for up to `timeout_ms`
    /// (0: forever), trying `waiter` whenever the key may have changed and
    /// at `wake_at_ms`. The caller has already tried to serve without
    /// blocking, and checked [`Ctx::may_block`].
    pub fn block_on_zset<W: ZsetWaiter>(
        &self,
        waiter: W,
        timeout_ms: i64,
        wake_at_ms: Option<i64>,
    ) -> Result<(), HostError> {
        if !self.may_block() {
            return Err(HostError::Internal(
                "cannot block inside MULTI, a script or RM_Call".into(),
            ));
        }
        // SAFETY: valid context of the client that blocks.
        let db = unsafe { api!(RedisModule_GetSelectedDb)(self.as_ptr()) };
        for key in waiter.keys() {
            start_waiting(self, key, db);
        }
        let blocked = Box::into_raw(Box::new(Blocked {
            waiter,
            timer: None,
            db,
            postponed: false,
            tried_in_pause: false,
        }));
        BLOCKED_CLIENTS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: `blocked` is a fresh, valid allocation. Redis owns it from
        // here on and hands it back to `free_blocked` exactly once; the key
        // array is read during the call only.
        unsafe {
            let mut keys: SmallVec<[*mut raw::RedisModuleString; 4]> = (*blocked)
                .waiter
                .keys()
                .iter()
                .map(|key| key.as_ptr())
                .collect();
            api!(RedisModule_BlockClientOnKeys)(
                self.as_ptr(),
                Some(reply_blocked::<W>),
                Some(time_out_blocked::<W>),
                Some(free_blocked::<W>),
                timeout_ms,
                keys.as_mut_ptr(),
                keys.len() as c_int,
                blocked.cast(),
            );
            rearm(self, blocked, wake_at_ms);
        }
        Ok(())
    }
}

/// Points the wake-up timer of `blocked` at `wake_at_ms`, keeping a timer
/// already armed for that time.
///
/// # Safety
/// `blocked` is the live state of a client blocked by `block_on_zset`.
unsafe fn rearm<W: ZsetWaiter>(ctx: &Ctx, blocked: *mut Blocked<W>, wake_at_ms: Option<i64>) {
    let state = &mut *blocked;
    if let (Some(timer), Some(at)) = (state.timer, wake_at_ms) {
        if timer.at_ms == at {
            return;
        }
    }
    if let Some(timer) = state.timer.take() {
        api!(RedisModule_StopTimer)(ctx.as_ptr(), timer.id, std::ptr::null_mut());
    }
    if let Some(at) = wake_at_ms {
        let period = at.saturating_sub(ctx.now_ms()).max(1);
        // The timer runs in the db of the context's client, which is the
        // blocked client's: its signal reaches the right key.
        let id = api!(RedisModule_CreateTimer)(
            ctx.as_ptr(),
            period,
            Some(wake_blocked::<W>),
            blocked.cast(),
        );
        state.timer = Some(Timer { id, at_ms: at });
    }
}

extern "C" fn reply_blocked<W: ZsetWaiter>(
    ctx: *mut raw::RedisModuleCtx,
    _argv: *mut *mut raw::RedisModuleString,
    _argc: c_int,
) -> c_int {
    let ctx = Ctx::new(ctx);
    let (blocked, outcome) = run_waiter(&ctx, try_to_serve::<W>);
    let wait = match outcome {
        Ok(Try::Waits { wake_at_ms }) => {
            debug_assert!(
                !ctx.has_written(),
                "a blocked client wrote but was not served"
            );
            // SAFETY: the state is still owned by Redis and not borrowed.
            Some(unsafe { through_pause(&ctx, blocked, wake_at_ms) })
        }
        Ok(Try::Postponed) => {
            // SAFETY: as above.
            let state = unsafe { &mut *blocked };
            if !std::mem::replace(&mut state.postponed, true) {
                super::gate::count_postponed();
            }
            // Look again soon: no event tells a module that a pause ended.
            Some(Some(ctx.now_ms() + POSTPONED_RETRY_MS))
        }
        Ok(Try::Done) => None,
        Err(error) => {
            ctx.reply_error(&error.to_string());
            None
        }
    };
    // SAFETY: as above.
    unsafe { rearm(&ctx, blocked, wait.flatten()) };
    match wait {
        Some(_) => raw::REDISMODULE_ERR as c_int,
        None => raw::REDISMODULE_OK as c_int,
    }
}

/// What one try to serve a blocked client came to.
enum Try {
    /// Served, or answered with an error: unblock.
    Done,
    /// Nothing to serve yet.
    Waits { wake_at_ms: Option<i64> },
    /// Something to serve, but the server takes no writes now (paused):
    /// stay blocked (the timeout still runs) and look again soon.
    Postponed,
}

/// When to try a client that has to keep waiting again, given the time its
/// waiter named: at most [`POSTPONED_RETRY_MS`] away while writes are paused,
/// and once more after the pause. A write the server postponed during a
/// pause runs when the pause ends, and Redis 7.4 and later do not run command
/// filters for it then (they ran when it was first read), so nothing would
/// signal its key.
///
/// # Safety
/// `blocked` is the live state of a client blocked by `block_on_zset`.
unsafe fn through_pause<W>(
    ctx: &Ctx,
    blocked: *mut Blocked<W>,
    wake_at_ms: Option<i64>,
) -> Option<i64> {
    let state = &mut *blocked;
    let paused = api!(RedisModule_AvoidReplicaTraffic)() != 0;
    if !std::mem::replace(&mut state.tried_in_pause, paused) && !paused {
        return wake_at_ms;
    }
    let soon = ctx.now_ms() + POSTPONED_RETRY_MS;
    Some(wake_at_ms.map_or(soon, |at| at.min(soon)))
}

/// One try to serve a blocked client, outside any command call: the waiter
/// writes only if the write gate accepts a write now (see `gate.rs`).
fn try_to_serve<W: ZsetWaiter>(waiter: &mut W, ctx: &Ctx) -> Result<Try, W::Error> {
    if let Readiness::Wait { wake_at_ms } = waiter.readiness(ctx)? {
        return Ok(Try::Waits { wake_at_ms });
    }
    match ctx.deferred_write_verdict(&waiter.keys()[0]) {
        WriteVerdict::Accepted => Ok(match waiter.serve(ctx)? {
            Attempt::Served => Try::Done,
            Attempt::Wait { wake_at_ms } => Try::Waits { wake_at_ms },
        }),
        WriteVerdict::Postponed => Ok(Try::Postponed),
        // The answer the same command would get now; nothing was written.
        WriteVerdict::Refused(error) => {
            ctx.reply_error(&error);
            Ok(Try::Done)
        }
    }
}

extern "C" fn time_out_blocked<W: ZsetWaiter>(
    ctx: *mut raw::RedisModuleCtx,
    _argv: *mut *mut raw::RedisModuleString,
    _argc: c_int,
) -> c_int {
    let ctx = Ctx::new(ctx);
    let (_, outcome) = run_waiter(&ctx, |waiter: &mut W, ctx| {
        waiter.time_out(ctx);
        Ok(())
    });
    if let Err(error) = outcome {
        ctx.reply_error(&error.to_string());
    }
    raw::REDISMODULE_OK as c_int
}

/// Runs `step` on the waiter of the client a reply or timeout callback runs
/// for, turning a panic into an internal error. Returns the state's pointer
/// too, for re-arming its timer.
fn run_waiter<W: ZsetWaiter, R>(
    ctx: &Ctx,
    step: impl FnOnce(&mut W, &Ctx) -> Result<R, W::Error>,
) -> (*mut Blocked<W>, Result<R, W::Error>) {
    // SAFETY: reply and timeout callbacks run while Redis still owns the
    // state it got from `block_on_zset` (it is freed only after unblocking),
    // and no other reference to it is alive during the callback.
    let blocked =
        unsafe { api!(RedisModule_GetBlockedClientPrivateData)(ctx.as_ptr()) }.cast::<Blocked<W>>();
    // SAFETY: as above.
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| unsafe {
        step(&mut (*blocked).waiter, ctx)
    }));
    let outcome = outcome
        .unwrap_or_else(|payload| Err(ctx.panicked("a blocked command", payload.as_ref()).into()));
    (blocked, outcome)
}

extern "C" fn free_blocked<W: ZsetWaiter>(ctx: *mut raw::RedisModuleCtx, privdata: *mut c_void) {
    BLOCKED_CLIENTS.fetch_sub(1, Ordering::Relaxed);
    // SAFETY: Redis hands back the state it got from `block_on_zset`, once.
    // The timer is stopped first so it can never fire on freed memory.
    let blocked = unsafe { Box::from_raw(privdata.cast::<Blocked<W>>()) };
    if let Some(timer) = blocked.timer {
        // SAFETY: valid context; the id is that of a timer still armed.
        unsafe { api!(RedisModule_StopTimer)(ctx, timer.id, std::ptr::null_mut()) };
    }
    for key in blocked.waiter.keys() {
        stop_waiting(key, blocked.db);
    }
}

extern "C" fn wake_blocked<W: ZsetWaiter>(ctx: *mut raw::RedisModuleCtx, data: *mut c_void) {
    // SAFETY: `data` is the state this timer was armed for; `free_blocked`
    // stops the timer before freeing it, so it is alive. The key is signalled
    // in the timer's db, the blocked client's; any of its keys wakes it.
    unsafe {
        let blocked = &mut *data.cast::<Blocked<W>>();
        blocked.timer = None;
        api!(RedisModule_SignalKeyAsReady)(ctx, blocked.waiter.keys()[0].as_ptr());
    }
}

// ---- who waits, and the command filter that wakes them -----------------

/// A key some clients wait on, in each db where they do.
struct WaitedKey {
    name: OwnedRStr,
    /// (db, number of clients waiting there).
    dbs: SmallVec<[(c_int, usize); 1]>,
}

/// A new load starts with nothing blocked (the server refuses MODULE UNLOAD
/// while a module holds blocked clients).
pub(super) fn reset_blocked_clients() {
    BLOCKED_CLIENTS.store(0, Ordering::Relaxed);
}

/// Everything that exists only while at least one client waits.
struct Waiting {
    /// Waited keys by name.
    keys: HashMap<Vec<u8>, WaitedKey, BuildHasherDefault<FxHasher>>,
    /// A context of zkit's own, for signalling a key in any db from the
    /// command filter, which gets no context of its own.
    signaller: NonNull<raw::RedisModuleCtx>,
    filter: NonNull<raw::RedisModuleCommandFilter>,
}

/// Who waits. The filter reads it before every command, so it is a plain
/// static: the server runs module code on its main thread only, one call at
/// a time (a thread-local would cost a `__tls_get_addr` call per command in
/// a shared library).
static WAITING: MainThreadOnly<Option<Waiting>> = MainThreadOnly::new(None);

/// State only the server's main thread touches (commands, callbacks, timers
/// and the command filter all run there).
pub(super) struct MainThreadOnly<T>(UnsafeCell<T>);

// SAFETY: only the server's main thread touches it, and `with` hands out one
// borrow at a time: no caller's closure re-enters the same value.
unsafe impl<T> Sync for MainThreadOnly<T> {}

impl<T> MainThreadOnly<T> {
    pub(super) const fn new(value: T) -> Self {
        MainThreadOnly(UnsafeCell::new(value))
    }

    /// Runs `f` on the value; `f` must not reach this same value again.
    pub(super) fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        // SAFETY: see the `Sync` impl; the borrow ends with `f`.
        f(unsafe { &mut *self.0.get() })
    }
}

fn with_waiting<R>(f: impl FnOnce(&mut Option<Waiting>) -> R) -> R {
    WAITING.with(f)
}

/// FxHash, the hasher rustc uses: a few instructions per 8 bytes of a key
/// name, where the standard SipHash costs about 150 per lookup, which every
/// ZADD pays while someone waits.
#[derive(Default)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            self.add(word);
        }
        for &byte in chunks.remainder() {
            self.add(u64::from(byte));
        }
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// Records that a client waits on `key` in `db`; the first waiter installs
/// the command filter.
fn start_waiting(ctx: &Ctx, key: &RStr, db: c_int) {
    with_waiting(|waiting| {
        let waiting = waiting.get_or_insert_with(|| {
            // SAFETY: valid context. The detached context belongs to zkit
            // and lives until the last waiter leaves; the filter is
            // registered through it (the filter's module is zkit) and never
            // runs for zkit's own RM_Calls (NOSELF).
            unsafe {
                let signaller = api!(RedisModule_GetDetachedThreadSafeContext)(ctx.as_ptr());
                let filter = api!(RedisModule_RegisterCommandFilter)(
                    signaller,
                    Some(on_command),
                    raw::REDISMODULE_CMDFILTER_NOSELF as c_int,
                );
                Waiting {
                    keys: HashMap::default(),
                    signaller: NonNull::new(signaller).expect("a detached context"),
                    filter: NonNull::new(filter).expect("a registered command filter"),
                }
            }
        });
        let waited = waiting
            .keys
            .entry(key.as_bytes().to_vec())
            .or_insert_with(|| WaitedKey {
                name: key.retain(),
                dbs: SmallVec::new(),
            });
        match waited.dbs.iter_mut().find(|(d, _)| *d == db) {
            Some((_, count)) => *count += 1,
            None => waited.dbs.push((db, 1)),
        }
    });
}

/// Records that a client stopped waiting on `key` in `db`; the last waiter
/// removes the command filter.
fn stop_waiting(key: &RStr, db: c_int) {
    with_waiting(|slot| {
        let Some(waiting) = slot.as_mut() else {
            return;
        };
        if let Some(waited) = waiting.keys.get_mut(key.as_bytes()) {
            if let Some(i) = waited.dbs.iter().position(|(d, _)| *d == db) {
                waited.dbs[i].1 -= 1;
                if waited.dbs[i].1 == 0 {
                    waited.dbs.swap_remove(i);
                }
            }
            if waited.dbs.is_empty() {
                waiting.keys.remove(key.as_bytes());
            }
        }
        if !waiting.keys.is_empty() {
            return;
        }
        if let Some(waiting) = slot.take() {
            // SAFETY: the filter and the context were made together in
            // `start_waiting` and are released once, here.
            unsafe {
                api!(RedisModule_UnregisterCommandFilter)(
                    waiting.signaller.as_ptr(),
                    waiting.filter.as_ptr(),
                );
                drop(waiting.keys);
                api!(RedisModule_FreeThreadSafeContext)(waiting.signaller.as_ptr());
            }
        }
    });
}

impl Waiting {
    /// Signals `name` in every db where a client waits on it.
    fn signal(&self, name: &[u8]) {
        if let Some(waited) = self.keys.get(name) {
            self.signal_waited(waited);
        }
    }

    fn signal_waited(&self, waited: &WaitedKey) {
        for &(db, _) in &waited.dbs {
            // SAFETY: zkit's own context, alive while anyone waits; the key
            // is signalled in the db just selected.
            unsafe {
                api!(RedisModule_SelectDb)(self.signaller.as_ptr(), db);
                api!(RedisModule_SignalKeyAsReady)(self.signaller.as_ptr(), waited.name.as_ptr());
            }
        }
    }
}

impl Ctx {
    /// Signals `key` (in this call's db) when a client waits on it: zkit's
    /// own writes that may have added an earlier member call this, and a
    /// queue's resume.
    pub fn wake_waiters(&self, key: &RStr) {
        let waited = with_waiting(|waiting| {
            waiting
                .as_ref()
                .is_some_and(|w| w.keys.contains_key(key.as_bytes()))
        });
        if waited {
            // SAFETY: valid context and key.
            unsafe { api!(RedisModule_SignalKeyAsReady)(self.as_ptr(), key.as_ptr()) };
        }
    }
}

/// Where a native command that may give an existing sorted set an earlier
/// member writes. The server signals keys that a command creates on its
/// own, so RENAME, COPY, MOVE and RESTORE need nothing here.
#[derive(Clone, Copy)]
enum Destination {
    /// The key is this argument.
    Arg(usize),
    /// The key follows a `STORE` or `STOREDIST` argument (GEORADIUS).
    AfterStore,
    /// EXEC: the commands of a transaction pass the filter when they are
    /// queued, and write only now, so every waited key is signalled (each
    /// waiter looks at its key once).
    EveryWaitedKey,
}

const ADDING_COMMANDS: &[(&[u8], Destination)] = &[
    (b"zadd", Destination::Arg(1)),
    (b"zincrby", Destination::Arg(1)),
    (b"geoadd", Destination::Arg(1)),
    (b"zunionstore", Destination::Arg(1)),
    (b"zinterstore", Destination::Arg(1)),
    (b"zdiffstore", Destination::Arg(1)),
    (b"zrangestore", Destination::Arg(1)),
    (b"geosearchstore", Destination::Arg(1)),
    (b"georadius", Destination::AfterStore),
    (b"georadiusbymember", Destination::AfterStore),
    (b"exec", Destination::EveryWaitedKey),
];

/// The command filter, installed while anyone waits: runs before every
/// command the server reads (and every command of a script), so it only
/// compares the command's name unless it is one of [`ADDING_COMMANDS`].
/// Signalling before the write is in time: the server serves ready keys
/// after the command has run.
extern "C" fn on_command(fctx: *mut raw::RedisModuleCommandFilterCtx) {
    let arg = |i: usize| -> Option<&[u8]> {
        let i = c_int::try_from(i).ok()?;
        // SAFETY: the filter context and its argument strings are valid
        // during the callback; out of range gives NULL.
        let s = unsafe { api!(RedisModule_CommandFilterArgGet)(fctx, i) };
        // SAFETY: as above.
        NonNull::new(s).map(|s| unsafe { bytes_of(s.as_ptr()) })
    };
    // Every name in ADDING_COMMANDS starts with z, g or e: most commands
    // stop at their first letter.
    let Some(name) =
        arg(0).filter(|n| matches!(n.first(), Some(b'z' | b'Z' | b'g' | b'G' | b'e' | b'E')))
    else {
        return;
    };
    let Some(&(_, destination)) = ADDING_COMMANDS
        .iter()
        .find(|(command, _)| command.eq_ignore_ascii_case(name))
    else {
        return;
    };
    // SAFETY: as above.
    let argc =
        usize::try_from(unsafe { api!(RedisModule_CommandFilterArgsCount)(fctx) }).unwrap_or(0);
    with_waiting(|waiting| {
        let Some(waiting) = waiting else {
            return;
        };
        match destination {
            Destination::Arg(i) => {
                if let Some(key) = arg(i) {
                    waiting.signal(key);
                }
            }
            Destination::AfterStore => {
                for i in 2..argc.saturating_sub(1) {
                    let store = arg(i).is_some_and(|a| {
                        a.eq_ignore_ascii_case(b"store") || a.eq_ignore_ascii_case(b"storedist")
                    });
                    if let (true, Some(key)) = (store, arg(i + 1)) {
                        waiting.signal(key);
                    }
                }
            }
            Destination::EveryWaitedKey => {
                for waited in waiting.keys.values() {
                    waiting.signal_waited(waited);
                }
            }
        }
    });
}
