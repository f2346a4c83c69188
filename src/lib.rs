//! zkit: composite-score commands on native Redis sorted sets.
//!
//! This file only wires the module together; see `commands/` for the command
//! families, `core/` for the pure arithmetic and `store/` for the one safe
//! wrapper over the module API.

pub mod args;
pub mod command;
pub mod commands;
pub mod config;
pub mod core;
pub mod error;
pub mod info;
pub mod store;

/// The version MODULE LIST shows: major * 10000 + minor * 100 + patch.
pub const MODULE_VERSION: i32 = {
    let v = env!("CARGO_PKG_VERSION").as_bytes();
    let mut parts = [0i32; 3];
    let (mut i, mut part) = (0, 0);
    while i < v.len() && part < 3 {
        match v[i] {
            b'.' => part += 1,
            b'0'..=b'9' => parts[part] = parts[part] * 10 + (v[i] - b'0') as i32,
            _ => break,
        }
        i += 1;
    }
    parts[0] * 10_000 + parts[1] * 100 + parts[2]
};

/// The module's entry points, left out of unit tests, which run without a
/// server.
#[cfg(not(test))]
mod entry {
    use crate::{commands, config, info, store};

    /// Every allocation of the module goes through the server's allocator,
    /// so `INFO memory` and `maxmemory` count it.
    #[global_allocator]
    static ALLOCATOR: redis_module::alloc::RedisAlloc = redis_module::alloc::RedisAlloc;

    crate::export_module!(name: c"zkit", version: crate::MODULE_VERSION, load: load);

    /// Registers everything zkit is: configs, commands, INFO.
    fn load(ctx: &store::Ctx, args: &[store::RStr]) -> Result<(), String> {
        store::ensure_server_supported()?;
        store::disable_implicit_key_signals(ctx);
        config::register(ctx)?;
        ctx.load_configs()?;
        for command in commands::all() {
            store::register_command(ctx, command)?;
        }
        for arg in args {
            let arg = String::from_utf8_lossy(arg.as_bytes());
            if arg.eq_ignore_ascii_case(commands::debug::LOAD_ARGUMENT) {
                store::register_command(ctx, &commands::debug::PANIC)?;
            } else {
                return Err(format!(
                    "unknown load argument '{arg}' (configs are set as zkit.<name> <value>)"
                ));
            }
        }
        store::register_info(ctx, info::write)
    }
}
