//! ZKIT.DEBUG-PANIC: a command that panics, to prove that a panic inside a
//! command becomes an error reply and never takes the server down.
//!
//! It is not part of zkit's surface: it is registered only when the module is
//! loaded with the argument [`LOAD_ARGUMENT`]
//! (`loadmodule /path/libzkit.so debug-panic-command`), and it is absent from
//! `FAMILIES`, so INFO and the docs do not list it.

use super::Command;
use crate::declare_command;
use crate::error::ZkitError;
use crate::host::{Ctx, RStr};

/// The load argument that registers [`PANIC`].
pub const LOAD_ARGUMENT: &str = "debug-panic-command";

declare_command! {
    pub static PANIC: Command = {
        name: "zkit.debug-panic",
        handler: panic_now,
        flags: "readonly",
        acl_categories: "dangerous",
        arity: 1,
        key_specs: &[],
        summary: "Panics inside the command (testing only; registered by the load argument debug-panic-command).",
        complexity: "O(1)",
        since: "0.1.0",
        args: &[],
    }
}

fn panic_now(_ctx: &Ctx, _args: &[RStr]) -> Result<(), ZkitError> {
    panic!("ZKIT.DEBUG-PANIC was called")
}
