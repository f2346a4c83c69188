//! The module's wiring: what `MODULE LOAD` sets up (configs, every declared
//! command, the INFO section) and the entry points the server calls.

mod info;
#[cfg(test)]
mod reference;

use crate::commands;
use crate::host::{self, Ctx, RStr};

/// Every allocation of the module goes through the server's allocator (see
/// `host/alloc.rs`). Unit tests run without a server.
#[cfg(not(test))]
#[global_allocator]
static ALLOCATOR: host::ServerAllocator = host::ServerAllocator;

#[cfg(not(test))]
crate::export_module!(name: c"zkit", version: crate::MODULE_VERSION, load: load);

/// The ACL category of every zkit command (`+@zkit`, `-@zkit`), on servers
/// that let modules add categories.
const ACL_CATEGORY: &str = "zkit";

/// Registers everything zkit is: configs, commands, INFO.
#[cfg_attr(test, allow(dead_code))]
fn load(ctx: &Ctx, args: &[RStr]) -> Result<(), String> {
    host::ensure_server_supported()?;
    host::declare_module_options(ctx);
    for native in host::find_native_commands(ctx) {
        ctx.log_warning(&format!(
            "zkit: the server has no command named {} (renamed or disabled by rename-command): \
             zkit commands that need it refuse with an error that names it, and write nothing",
            native.text()
        ));
    }
    for config in commands::CONFIGS {
        // A reload starts from the default, not from the last load's value.
        config
            .value
            .store(config.default, std::sync::atomic::Ordering::Relaxed);
        ctx.register_numeric_config(
            config.name,
            &config.value,
            config.default,
            config.min,
            config.max,
        )?;
    }
    ctx.load_configs()?;
    for (_, counter) in commands::COUNTERS {
        counter.reset();
    }
    let category = host::add_acl_category(ctx, ACL_CATEGORY)?.then_some(ACL_CATEGORY);
    for command in commands::all() {
        host::register_command(ctx, command, category)?;
    }
    for arg in args {
        let arg = String::from_utf8_lossy(arg.as_bytes());
        if arg.eq_ignore_ascii_case(commands::debug::LOAD_ARGUMENT) {
            for command in commands::debug::COMMANDS {
                host::register_command(ctx, command, category)?;
            }
        } else {
            return Err(format!(
                "unknown load argument '{arg}' (configs are set as zkit.<name> <value>)"
            ));
        }
    }
    host::convert_loaded_zsets(
        ctx,
        commands::rank::small_boards_wanted,
        commands::rank::is_loaded_board,
    )?;
    host::register_info(ctx, info::write)
}
