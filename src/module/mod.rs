//! The module's wiring: what `MODULE LOAD` sets up (configs, every declared
//! command, the INFO section) and the entry points the server calls.

mod info;
#[cfg(test)]
mod reference;

use crate::commands::{self, config::NumericConfig};
use crate::host;
use crate::host::ctx::Ctx;
use crate::host::string::RStr;

/// Every allocation of the module goes through the server's allocator (see
/// `host/alloc.rs`). Unit tests run without a server.
#[cfg(not(test))]
#[global_allocator]
static ALLOCATOR: host::alloc::ServerAllocator = host::alloc::ServerAllocator;

#[cfg(not(test))]
crate::export_module!(name: c"zkit", version: crate::MODULE_VERSION, load: load);

/// The ACL category of every zkit command (`+@zkit`, `-@zkit`), on servers
/// that let modules add categories.
const ACL_CATEGORY: &str = "zkit";

/// What the load arguments ask for: configs as `zkit.<name> <value>` (or
/// `<name> <value>`, as Redis's own modules take theirs; a renamed config
/// by its former name too), which win over redis.conf's lines, and
/// `debug-commands`.
#[cfg_attr(test, allow(dead_code))]
struct LoadArguments {
    /// Each config given, its value, and whether by its former name.
    configs: Vec<(&'static NumericConfig, i64, bool)>,
    debug_commands: bool,
}

#[cfg_attr(test, allow(dead_code))]
impl LoadArguments {
    fn read(args: &[RStr]) -> Result<LoadArguments, String> {
        let mut load = LoadArguments {
            configs: Vec::new(),
            debug_commands: false,
        };
        let mut words = args
            .iter()
            .map(|arg| String::from_utf8_lossy(arg.as_bytes()).into_owned());
        while let Some(word) = words.next() {
            if word.eq_ignore_ascii_case(commands::debug::LOAD_ARGUMENT) {
                load.debug_commands = true;
                continue;
            }
            let name = word
                .get(..5)
                .filter(|prefix| prefix.eq_ignore_ascii_case("zkit."));
            let name = name.map_or(word.as_str(), |_| &word[5..]);
            let found = commands::CONFIGS.iter().find_map(|&config| {
                if config.name.eq_ignore_ascii_case(name) {
                    Some((config, config.name, false))
                } else {
                    let former = config.value.former_name()?;
                    former
                        .eq_ignore_ascii_case(name)
                        .then_some((config, former, true))
                }
            });
            let Some((config, given_name, by_former_name)) = found else {
                return Err(format!(
                    "unknown load argument '{word}' (configs are given as zkit.<name> <value>)"
                ));
            };
            let value = words
                .next()
                .and_then(|value| value.parse::<i64>().ok())
                .filter(|value| (config.min..=config.max).contains(value))
                .ok_or_else(|| {
                    format!(
                        "the load argument zkit.{given_name} takes an integer in [{}, {}]",
                        config.min, config.max
                    )
                })?;
            load.configs.push((config, value, by_former_name));
        }
        Ok(load)
    }
}

/// Registers everything zkit is: configs, commands, INFO.
#[cfg_attr(test, allow(dead_code))]
fn load(ctx: &Ctx, args: &[RStr]) -> Result<(), String> {
    host::entry::ensure_server_supported()?;
    #[cfg(feature = "test-clock")]
    ctx.log_warning("zkit was built with the test-clock feature (ZKIT.DEBUG-CLOCK): for tests only, never for production");
    host::entry::declare_module_options(ctx);
    for native in ctx.find_native_commands() {
        ctx.log_warning(&format!(
            "zkit: the server has no command named {} (renamed or disabled by rename-command): \
             zkit commands that need it refuse with an error that names it, and write nothing",
            native.text()
        ));
    }
    for config in commands::CONFIGS {
        // A reload starts from the default, not from the last load's value.
        config.value.set(config.default);
        ctx.register_numeric_config(
            config.name,
            &config.value,
            config.default,
            config.min,
            config.max,
        )?;
    }
    ctx.load_configs()?;
    for config in commands::CONFIGS {
        ctx.settle_former_name(&config.value, config.default);
    }
    for (_, counter) in commands::COUNTERS {
        counter.reset();
    }
    let load = LoadArguments::read(args)?;
    for (config, value, by_former_name) in &load.configs {
        config.value.set(*value);
        if let Some(notice) = config
            .value
            .former_name_notice()
            .filter(|_| *by_former_name)
        {
            ctx.log_warning(&notice);
        }
    }
    let category = host::registration::add_acl_category(ctx, ACL_CATEGORY)?.then_some(ACL_CATEGORY);
    for command in commands::all() {
        host::registration::register_command(ctx, command, category)?;
    }
    if load.debug_commands {
        for command in commands::debug::COMMANDS {
            host::registration::register_command(ctx, command, category)?;
        }
    }
    commands::layout::load(ctx)?;
    host::info::register_info(ctx, info::write)
}
