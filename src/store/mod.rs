//! The one safe wrapper over the Redis module API.
//!
//! Every `unsafe` block of the crate lives under this module. The rest of zkit
//! sees safe types: [`Ctx`] (one command invocation: replies, replication,
//! keyspace events, the clock), [`RStr`] (a Redis string), [`Zset`] (an open
//! sorted-set key on the low-level API) and [`CallReply`] (the reply of a
//! native command run through `RedisModule_Call`, for what the low-level API
//! cannot do, such as ranks and sets).
//!
//! Redis runs module commands on its main thread, one at a time, and every
//! pointer wrapped here is valid for the duration of the command that received
//! or created it; the wrappers borrow from [`Ctx`] so they cannot outlive it.

mod block;
mod call;
mod config;
mod ctx;
#[doc(hidden)]
pub mod entry;
mod gate;
mod register;
mod string;
mod zset;

pub use block::{Attempt, Readiness, ZsetWaiter};
pub use call::{CallArg, CallReply};
pub use ctx::{Ctx, EventClass};
pub use register::{
    disable_implicit_key_signals, dispatch, ensure_server_supported, register_command,
    register_info, InfoSink,
};
pub use string::{OwnedRStr, RStr};
pub use zset::{KeyKind, ScoreBound, Zset, ZsetIter};

/// Raw types the command declarations need to name their C callbacks.
pub mod raw {
    pub use redis_module::raw::{RedisModuleCtx, RedisModuleString};
}

/// Fetches a function pointer of the module API; use inside the `unsafe`
/// block that calls it. The table is written once by RedisModule_Init before
/// any command runs and only read afterwards. `ensure_server_supported`
/// refuses to load on servers that lack what zkit needs, so a missing entry
/// here is a bug in zkit (and panics, which `dispatch` turns into an error).
macro_rules! api {
    ($name:ident) => {
        redis_module::raw::$name
            .unwrap_or_else(|| panic!(concat!(stringify!($name), " is not available")))
    };
}
pub(crate) use api;
