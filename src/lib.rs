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

#[cfg(all(feature = "module", not(test)))]
mod entry {
    use std::alloc::{GlobalAlloc, Layout};

    use redis_module::alloc::RedisAlloc;
    use redis_module::{redis_module, Context, RedisString, Status};

    /// The server's allocator, with every block aligned to 16 bytes.
    ///
    /// Rust allocates a panic's unwind exception with alignment 8, and the
    /// LLVM libunwind that release builds link (cargo-zigbuild) writes it
    /// with 16-byte SSE stores. Redis builds whose jemalloc has an 8-byte
    /// quantum (Redis 7.4's own build) hand out 8-aligned blocks, so a
    /// caught panic crashed the server there. RedisAlloc aligns a block by
    /// rounding its size up to a multiple of the alignment.
    pub struct RedisAlloc16;

    unsafe impl GlobalAlloc for RedisAlloc16 {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            match layout.align_to(16) {
                Ok(aligned) => RedisAlloc.alloc(aligned),
                Err(_) => std::ptr::null_mut(),
            }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            RedisAlloc.dealloc(ptr, layout)
        }
    }

    fn init(ctx: &Context, args: &[RedisString]) -> Status {
        match load(ctx, args) {
            Ok(()) => Status::Ok,
            Err(message) => {
                ctx.log_warning(&format!("zkit: {message}"));
                Status::Err
            }
        }
    }

    fn load(ctx: &Context, args: &[RedisString]) -> Result<(), String> {
        crate::store::ensure_server_supported()?;
        crate::store::disable_implicit_key_signals(ctx);
        crate::config::register(ctx);
        crate::store::load_configs(ctx)?;
        for command in crate::commands::all() {
            crate::store::register_command(ctx, command)?;
        }
        for arg in args {
            let arg = arg.to_string_lossy();
            if arg.eq_ignore_ascii_case(crate::commands::debug::LOAD_ARGUMENT) {
                crate::store::register_command(ctx, &crate::commands::debug::PANIC)?;
            } else {
                return Err(format!(
                    "unknown load argument '{arg}' (configs are set as zkit.<name> <value>)"
                ));
            }
        }
        crate::store::register_info(ctx, crate::info::write)
    }

    redis_module! {
        name: "zkit",
        version: crate::MODULE_VERSION,
        allocator: (crate::entry::RedisAlloc16, crate::entry::RedisAlloc16),
        data_types: [],
        init: init,
    }
}
