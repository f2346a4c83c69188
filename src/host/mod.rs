//! The host layer: the only code that talks to the Redis module API, and the
//! only `unsafe` code of the crate. It imports nothing from the rest of zkit;
//! the code above it sees safe types:
//!
//! - [`ctx::Ctx`]: one call from the server (a command, a callback, the load):
//!   replies, flags, the clock, logging;
//! - [`string::RStr`], [`string::OwnedRStr`]: server strings;
//! - [`zset::Zset`]: a sorted-set key on the low-level key API, and its layout
//!   (listpack or skiplist, `layout.rs`); [`hash::Hash`]: a hash key (a job
//!   queue's data);
//! - [`call::CallReply`]: the reply of a native command run through RM_Call, for
//!   what the key API cannot do (ranks, sets); every native command zkit
//!   runs or replicates is a [`call::Native`], looked up at load, so a command
//!   refuses before it writes on a server that renamed one;
//! - [`command::Command`] and [`declare_command!`](crate::declare_command): a command's declaration, its
//!   registration and its dispatch (panics caught, errors replied);
//! - blocking on a key ([`block::ZsetWaiter`]), guarded by the write gate (`gate.rs`);
//! - deferred work ([`ctx::Ctx::defer`]): bounded steps of writes run from a
//!   timer, through the same gate;
//! - configs, the INFO section, the module's entry points.
//!
//! The server runs module code on its main thread, one call at a time, and
//! every pointer wrapped here is valid for the duration of the call that
//! received or created it; the wrappers borrow from [`Ctx`](ctx::Ctx) so they cannot
//! outlive it.
//!
//! Each file is imported by its own path (`host::zset::Zset`): this file
//! re-exports nothing of them, so every import says where its name lives.
#![allow(unsafe_code)]

pub mod alloc;
pub mod block;
pub mod call;
mod cluster;
pub mod command;
pub mod config;
pub mod ctx;
pub mod deferred;
mod effects;
pub mod entry;
pub mod error;
pub mod gate;
pub mod grammar;
pub mod hash;
pub mod info;
pub mod keyspec;
pub mod layout;
pub mod registration;
pub mod reply;
pub mod reply_shape;
pub mod string;
pub mod zset;

/// The server's context and string types, as the C callbacks that
/// [`declare_command!`] writes take them.
#[doc(hidden)]
pub use redis_module::raw::{RedisModuleCtx as RawCtx, RedisModuleString as RawString};

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
