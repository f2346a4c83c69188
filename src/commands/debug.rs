//! Commands that misbehave on purpose, to prove the dispatcher's guarantees:
//!
//! - ZKIT.DEBUG-PANIC panics: the panic becomes an error reply and never
//!   takes the server down;
//! - ZKIT.DEBUG-WRITE-THEN-FAIL writes, then fails: what it wrote is still
//!   replicated, and the reply names the breach of the "validate before the
//!   first write" rule;
//! - ZKIT.DEBUG-CLOCK pins the clock every command reads, only in a build
//!   with the `test-clock` feature (`make differential`), which no release
//!   build has.
//!
//! They are not part of zkit's surface: they are registered only when the
//! module is loaded with the argument [`LOAD_ARGUMENT`]
//! (`loadmodule /path/libzkit.so debug-commands`), and they are absent from
//! `FAMILIES`, so INFO and the docs do not list them.

use super::declaration::Command;
use crate::error::ZkitError;
use crate::host::ctx::Ctx;
use crate::host::grammar::Arg;
use crate::host::keyspec::key_flags as kf;
use crate::host::reply::Reply;
use crate::host::reply_shape::ReplyShape as R;
use crate::host::string::OwnedRStr;
use crate::host::string::RStr;
use crate::{declare_command, request};

/// The load argument that registers [`COMMANDS`].
pub const LOAD_ARGUMENT: &str = "debug-commands";

#[cfg(not(feature = "test-clock"))]
pub static COMMANDS: &[&Command] = &[&PANIC, &WRITE_THEN_FAIL];
#[cfg(feature = "test-clock")]
pub static COMMANDS: &[&Command] = &[&PANIC, &WRITE_THEN_FAIL, &CLOCK];

declare_command! {
    pub static PANIC: Command = {
        name: "zkit.debug-panic",
        handler: panic_now,
        flags: "readonly",
        acl_categories: "dangerous",
        summary: "Panics inside the command (testing only; registered by the load argument debug-commands).",
        complexity: "O(1)",
        since: "0.1.0",
        history: &[],
        reply: R::ErrorOnly,
        examples: &[],
        args: &[],
    }
}

declare_command! {
    pub static WRITE_THEN_FAIL: Command = {
        name: "zkit.debug-write-then-fail",
        handler: write_then_fail,
        flags: "write",
        acl_categories: "dangerous",
        summary: "Adds the member 'written' to a sorted set, then fails (testing only; registered by the load argument debug-commands).",
        complexity: "O(log(N))",
        since: "0.2.0",
        history: &[],
        reply: R::ErrorOnly,
        examples: &[],
        args: &[Arg::key("key", kf::RW | kf::INSERT)],
    }
}

#[cfg(feature = "test-clock")]
declare_command! {
    pub static CLOCK: Command = {
        name: "zkit.debug-clock",
        handler: pin_clock,
        flags: "readonly",
        acl_categories: "dangerous",
        summary: "Pins the clock zkit commands read at unix-ms, or lets it run with -1 (testing only: built with the test-clock feature, registered by the load argument debug-commands).",
        complexity: "O(1)",
        since: "0.3.0",
        history: &[],
        reply: R::Status,
        examples: &[],
        args: &[Arg::integer("unix-ms")],
    }
}

/// ZKIT.DEBUG-CLOCK `unix-ms`.
#[cfg(feature = "test-clock")]
struct PinClock {
    unix_ms: i64,
}

#[cfg(feature = "test-clock")]
impl crate::host::command::FromArgs<'_> for PinClock {
    fn from_args(args: &mut crate::host::grammar::Request<'_, RStr>) -> PinClock {
        PinClock {
            unix_ms: args.integer(),
        }
    }
}

#[cfg(feature = "test-clock")]
fn pin_clock(_ctx: &Ctx, args: PinClock) -> Result<Reply, ZkitError> {
    crate::host::ctx::test_clock::pin((args.unix_ms >= 0).then_some(args.unix_ms));
    Ok(Reply::Simple(c"OK"))
}

fn panic_now(_ctx: &Ctx, _args: ()) -> Result<Reply, ZkitError> {
    panic!("ZKIT.DEBUG-PANIC was called")
}

request! {
    /// ZKIT.DEBUG-WRITE-THEN-FAIL `key`.
    struct WriteThenFail<'a> {
        key: &'a RStr = key,
    }
}

fn write_then_fail(ctx: &Ctx, args: WriteThenFail<'_>) -> Result<Reply, ZkitError> {
    let written = OwnedRStr::new(b"written");
    ctx.open_zset_mut(args.key)?.add(&written, 1.0)?;
    Err(ZkitError::Syntax)
}
