//! Deferred work: writes a command leaves for later, run in bounded steps
//! from a module timer, one step per timer, each through the write gate.
//!
//! A command's own call must stay bounded, and a blocked client's reply
//! callback may write only when it serves the client (Redis 7.0 propagates
//! those writes only then): neither can clear a backlog of any size. A
//! timer callback runs outside both, and what it writes is replicated when
//! it returns. So a command that meets more work than it may do now (DELAY's
//! dead tasks ahead of live ones) defers it here: each step does a bounded
//! part, the key's blocked clients are then signalled (they look again), and
//! the next step runs on the next turn of the event loop, until the work
//! says it is done.
//!
//! The same work (db, key and identity) is pending at most once. A step runs
//! only when the server would accept a write (`gate.rs`): paused, it waits;
//! refused (a replica, a slot moved away, NOREPLICAS), the work is dropped,
//! and the next command that meets the backlog on a master defers it again.
//! The server refuses MODULE UNLOAD while the timer is armed, so no step
//! outlives the module.

use std::collections::VecDeque;
use std::ffi::{c_int, c_void};
use std::panic::{self, AssertUnwindSafe};

use redis_module::raw;

use super::api;
use super::block::MainThreadOnly;
use super::ctx::Ctx;
use super::gate::{WriteVerdict, POSTPONED_RETRY_MS};
use super::string::OwnedRStr;
use super::string::RStr;

/// What one step of deferred work came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// More to do: run another step.
    More,
    Done,
}

/// One step: writes through its context, bounded, and says whether more
/// remains; an error drops the work (and is logged).
pub type Step = Box<dyn FnMut(&Ctx) -> Result<Progress, String>>;

struct Work {
    db: c_int,
    key: OwnedRStr,
    identity: Vec<u8>,
    step: Step,
}

struct Pending {
    queue: VecDeque<Work>,
    /// A timer is armed to run the next step.
    armed: bool,
}

static PENDING: MainThreadOnly<Pending> = MainThreadOnly::new(Pending {
    queue: VecDeque::new(),
    armed: false,
});

impl Ctx {
    /// Defers `step` on `key` in this call's db, unless work of the same
    /// `identity` on that key is pending already. Writes nothing now: it
    /// may be called where writing is not allowed (a blocked client's
    /// readiness check).
    pub fn defer(&self, key: &RStr, identity: &[u8], step: Step) {
        // SAFETY: valid context.
        let db = unsafe { api!(RedisModule_GetSelectedDb)(self.as_ptr()) };
        let arm = PENDING.with(|pending| {
            let known = pending.queue.iter().any(|work| {
                work.db == db && work.key.as_bytes() == key.as_bytes() && work.identity == identity
            });
            if !known {
                pending.queue.push_back(Work {
                    db,
                    key: key.retain(),
                    identity: identity.to_vec(),
                    step,
                });
            }
            !std::mem::replace(&mut pending.armed, true)
        });
        if arm {
            arm_timer(self, 0);
        }
    }
}

/// Forgets pending work: a new load starts with none (the server refuses to
/// unload while the timer is armed).
pub(super) fn reset_deferred() {
    PENDING.with(|pending| {
        pending.queue.clear();
        pending.armed = false;
    });
}

fn arm_timer(ctx: &Ctx, period_ms: i64) {
    // SAFETY: valid context; the callback takes no data.
    unsafe {
        api!(RedisModule_CreateTimer)(
            ctx.as_ptr(),
            period_ms,
            Some(run_step),
            std::ptr::null_mut(),
        )
    };
}

/// The timer: runs one step of the oldest pending work, then arms itself
/// again while work remains.
extern "C" fn run_step(raw_ctx: *mut raw::RedisModuleCtx, _data: *mut c_void) {
    let Some(mut work) = PENDING.with(|pending| pending.queue.pop_front()) else {
        PENDING.with(|pending| pending.armed = false);
        return;
    };
    let mut next_in_ms = 0;
    {
        // A context of its own per step: its writes are replicated and
        // announced when it ends, in the work's db.
        let ctx = Ctx::new(raw_ctx);
        // SAFETY: valid context; the db existed when the work was deferred
        // and the number of dbs does not change at run time.
        unsafe { api!(RedisModule_SelectDb)(ctx.as_ptr(), work.db) };
        let keep = match ctx.write_verdict(&work.key) {
            WriteVerdict::Accepted => {
                let outcome = panic::catch_unwind(AssertUnwindSafe(|| (work.step)(&ctx)))
                    .unwrap_or_else(|payload| {
                        Err(ctx.panicked("deferred work", payload.as_ref()).to_string())
                    });
                // Whoever waits on the key looks again, moved work or not.
                ctx.wake_waiters(&work.key);
                match outcome {
                    Ok(progress) => progress == Progress::More,
                    Err(error) => {
                        ctx.log_warning(&format!("zkit: deferred work dropped: {error}"));
                        false
                    }
                }
            }
            WriteVerdict::Postponed => {
                next_in_ms = POSTPONED_RETRY_MS;
                true
            }
            WriteVerdict::Refused(_) => false,
        };
        if keep {
            PENDING.with(|pending| pending.queue.push_back(work));
        }
    }
    let more = PENDING.with(|pending| {
        pending.armed = !pending.queue.is_empty();
        pending.armed
    });
    if more {
        arm_timer(&Ctx::new(raw_ctx), next_in_ms);
    }
}
