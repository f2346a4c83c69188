//! The host layer: the only code that talks to the Redis module API, and the
//! only `unsafe` code of the crate. It imports nothing from the rest of zkit;
//! the code above it sees safe types:
//!
//! - [`Ctx`]: one call from the server (a command, a callback, the load):
//!   replies, flags, the clock, logging;
//! - [`RStr`], [`OwnedRStr`]: server strings;
//! - [`Zset`]: a sorted-set key on the low-level key API, and its layout
//!   (listpack or skiplist, `layout.rs`);
//! - [`CallReply`]: the reply of a native command run through RM_Call, for
//!   what the key API cannot do (ranks, sets); every native command zkit
//!   runs or replicates is a [`Native`], looked up at load, so a command
//!   refuses before it writes on a server that renamed one;
//! - [`Command`] and [`declare_command!`](crate::declare_command): a command's declaration, its
//!   registration and its dispatch (panics caught, errors replied);
//! - blocking on a key ([`ZsetWaiter`]), guarded by the write gate (`gate.rs`);
//! - deferred work ([`Ctx::defer`]): bounded steps of writes run from a
//!   timer, through the same gate;
//! - configs, the INFO section, the module's entry points.
//!
//! The server runs module code on its main thread, one call at a time, and
//! every pointer wrapped here is valid for the duration of the call that
//! received or created it; the wrappers borrow from [`Ctx`] so they cannot
//! outlive it.
#![allow(unsafe_code)]

mod alloc;
mod block;
mod call;
mod cluster;
mod command;
mod config;
mod ctx;
mod deferred;
mod effects;
#[doc(hidden)]
pub mod entry;
mod error;
mod gate;
mod grammar;
mod info;
mod keyspec;
mod layout;
mod registration;
mod reply;
mod reply_shape;
mod string;
mod zset;

pub use alloc::ServerAllocator;
pub use block::{blocked_clients, Attempt, Readiness, ZsetWaiter};
pub use call::{find_native_commands, CallArg, CallReply, Native};
#[doc(hidden)]
pub use command::{dispatch, read_request_of};
pub use command::{Command, FromArgs};
#[cfg(feature = "test-clock")]
pub use ctx::test_clock;
pub use ctx::{Ctx, EventClass};
pub use deferred::Progress;
pub use entry::{declare_module_options, ensure_server_supported};
pub use error::HostError;
pub use gate::write_gate_counts;
#[cfg(test)]
pub use grammar::plan_finds_as_the_walk;
pub use grammar::{
    ambiguity, keywords, nodes as grammar_nodes, trace_reads, Arg, ArgKind, GrammarError, Items,
    Mistake, Plan, Request, WordList, MAX_NODES,
};
pub use info::{register_info, InfoSink};
pub use keyspec::{key_flags, BeginSearch, FindKeys, KeySpec};
pub use layout::{listpack_entries_limit, subscribe_layout_events, LayoutEvents, Rebuilt};
pub use registration::{add_acl_category, register_command};
pub use reply::{Reply, WriteArray, WriteReply};
pub use reply_shape::{Element, ReplyShape, Tuple, When};
pub use string::{OwnedRStr, RStr};
pub use zset::{KeyKind, ScoreBound, Zset};

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
