//! Blocking a client until a sorted set has something for it: the machinery
//! behind DELAY.BPOLL, on RedisModule_BlockClientOnKeys.
//!
//! Redis 7.0 calls the reply callback of a client blocked on keys every time
//! one of its keys is signalled ready, whatever the key's type; the callback
//! returns REDISMODULE_ERR to stay blocked. Two things signal a key here:
//!
//! - a write that may put an earlier member into a sorted set. Native ZADD
//!   signals a key only when it creates it, so zkit subscribes (once, on the
//!   first block) to the keyspace events of such writes (`zadd`, `zincr`, the
//!   `*store` commands, `rename_to`, `restore`, `copy_to`, `move_to`) and
//!   signals their key. The subscription costs every zset write one callback
//!   that compares an event name; servers that never block pay nothing.
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

use std::ffi::{c_int, c_void, CStr};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use redis_module::raw;

use super::gate::{WriteVerdict, POSTPONED_RETRY_MS};
use super::{api, Ctx, HostError, RStr};

/// What a blocked command does each time it may be served.
pub trait ZsetWaiter: Sized + 'static {
    /// What `readiness` and `serve` fail with; its text is the error reply.
    type Error: std::fmt::Display + From<HostError>;

    /// The sorted set the client waits on; also the key the write gate asks
    /// about before [`ZsetWaiter::serve`] writes.
    fn key(&self) -> &RStr;

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
    /// The write gate postponed this client's claim (counted once).
    postponed: bool,
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
    /// Blocks the calling client on `waiter.key()` for up to `timeout_ms`
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
        subscribe_to_zset_writes(self);
        let blocked = Box::into_raw(Box::new(Blocked {
            waiter,
            timer: None,
            postponed: false,
        }));
        BLOCKED_CLIENTS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: `blocked` is a fresh, valid allocation. Redis owns it from
        // here on and hands it back to `free_blocked` exactly once; the key
        // array is read during the call only.
        unsafe {
            let mut key = (*blocked).waiter.key().as_ptr();
            api!(RedisModule_BlockClientOnKeys)(
                self.as_ptr(),
                Some(reply_blocked::<W>),
                Some(time_out_blocked::<W>),
                Some(free_blocked::<W>),
                timeout_ms,
                &mut key,
                1,
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
            Some(wake_at_ms)
        }
        Ok(Try::Postponed) => {
            // SAFETY: the state is still owned by Redis and not borrowed.
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
    // SAFETY: the state is still owned by Redis and not borrowed any more.
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

/// One try to serve a blocked client, outside any command call: the waiter
/// writes only if the write gate accepts a write now (see `gate.rs`).
fn try_to_serve<W: ZsetWaiter>(waiter: &mut W, ctx: &Ctx) -> Result<Try, W::Error> {
    if let Readiness::Wait { wake_at_ms } = waiter.readiness(ctx)? {
        return Ok(Try::Waits { wake_at_ms });
    }
    match ctx.deferred_write_verdict(waiter.key()) {
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
    unsafe {
        let blocked = Box::from_raw(privdata.cast::<Blocked<W>>());
        if let Some(timer) = blocked.timer {
            api!(RedisModule_StopTimer)(ctx, timer.id, std::ptr::null_mut());
        }
        drop(blocked);
    }
}

extern "C" fn wake_blocked<W: ZsetWaiter>(ctx: *mut raw::RedisModuleCtx, data: *mut c_void) {
    // SAFETY: `data` is the state this timer was armed for; `free_blocked`
    // stops the timer before freeing it, so it is alive. The key is signalled
    // in the timer's db, the blocked client's.
    unsafe {
        let blocked = &mut *data.cast::<Blocked<W>>();
        blocked.timer = None;
        api!(RedisModule_SignalKeyAsReady)(ctx, blocked.waiter.key().as_ptr());
    }
}

/// Whether zkit subscribed to keyspace events since it was loaded.
static SUBSCRIBED: AtomicBool = AtomicBool::new(false);

/// The server drops a module's subscriptions when it unloads it; if the
/// library stays mapped until the next load, its statics must not claim one.
pub(super) fn forget_subscription() {
    SUBSCRIBED.store(false, Ordering::Relaxed);
}

/// A new load starts with nothing blocked (the server refuses MODULE UNLOAD
/// while a module holds blocked clients).
pub(super) fn reset_blocked_clients() {
    BLOCKED_CLIENTS.store(0, Ordering::Relaxed);
}

fn subscribe_to_zset_writes(ctx: &Ctx) {
    if SUBSCRIBED.swap(true, Ordering::Relaxed) {
        return;
    }
    // SAFETY: valid context; the callback has the C signature Redis expects
    // and lives as long as the module.
    unsafe {
        api!(RedisModule_SubscribeToKeyspaceEvents)(
            ctx.as_ptr(),
            raw::REDISMODULE_NOTIFY_ZSET | raw::REDISMODULE_NOTIFY_GENERIC,
            Some(on_zset_write),
        );
    }
}

/// Events after which a sorted set may hold a member it did not hold before,
/// or a lower score.
const ADDING_EVENTS: &[&[u8]] = &[
    b"zadd",
    b"zincr",
    b"zunionstore",
    b"zinterstore",
    b"zdiffstore",
    b"zrangestore",
    b"rename_to",
    b"restore",
    b"copy_to",
    b"move_to",
];

extern "C" fn on_zset_write(
    ctx: *mut raw::RedisModuleCtx,
    _type: c_int,
    event: *const std::ffi::c_char,
    key: *mut raw::RedisModuleString,
) -> c_int {
    // SAFETY: Redis passes a NUL-terminated event name and the key, valid
    // during the callback, with the event's db selected in `ctx`. Signalling
    // a key nobody blocks on returns at once.
    unsafe {
        if !event.is_null() && ADDING_EVENTS.contains(&CStr::from_ptr(event).to_bytes()) {
            api!(RedisModule_SignalKeyAsReady)(ctx, key);
        }
    }
    raw::REDISMODULE_OK as c_int
}
