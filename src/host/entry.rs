//! The module's C entry points, `RedisModule_OnLoad` and
//! `RedisModule_OnUnload`, written here rather than with the redis-module
//! crate's `redis_module!` macro: that macro keeps a detached thread-safe
//! context for each load and boxes each config's private data, and neither
//! is freed by `MODULE UNLOAD`, so every unload and load cycle leaked. zkit
//! allocates nothing at load that outlives the call.

use std::ffi::{c_int, CStr};
use std::panic::{self, AssertUnwindSafe};

use redis_module::raw;

use super::api;

use super::ctx::Ctx;

use super::string::RStr;

/// What the module does once the API is ready: register commands, configs
/// and INFO. An error refuses the load and is logged.
pub type LoadFn = fn(&Ctx, &[RStr]) -> Result<(), String>;

/// Defines the module's C entry points: `export_module!(name: c"zkit",
/// version: 100, load: load_fn)`.
#[macro_export]
macro_rules! export_module {
    (name: $name:expr, version: $version:expr, load: $load:path $(,)?) => {
        /// Called by the server when it loads the module.
        #[no_mangle]
        #[allow(non_snake_case, unsafe_code)]
        pub extern "C" fn RedisModule_OnLoad(
            ctx: *mut $crate::host::RawCtx,
            argv: *mut *mut $crate::host::RawString,
            argc: std::ffi::c_int,
        ) -> std::ffi::c_int {
            let name: &std::ffi::CStr = $name;
            let version: i32 = $version;
            let load: $crate::host::entry::LoadFn = $load;
            // SAFETY: the server calls this once per load, with its load
            // context and the load arguments.
            #[allow(unsafe_code)]
            unsafe {
                $crate::host::entry::on_load(ctx, argv, argc, name, version, load)
            }
        }

        /// Called by the server before it unloads the module.
        #[no_mangle]
        #[allow(non_snake_case, unsafe_code)]
        pub extern "C" fn RedisModule_OnUnload(ctx: *mut $crate::host::RawCtx) -> std::ffi::c_int {
            $crate::host::entry::on_unload(ctx)
        }
    };
}

/// The body of `RedisModule_OnLoad`: initialises the module API, then runs
/// `load`. Nothing may allocate before the API is initialised: zkit's global
/// allocator is the server's.
///
/// # Safety
/// `ctx` is the server's load context and `argv` its `argc` load arguments.
#[doc(hidden)]
pub unsafe fn on_load(
    ctx: *mut raw::RedisModuleCtx,
    argv: *mut *mut raw::RedisModuleString,
    argc: c_int,
    name: &CStr,
    version: i32,
    load: LoadFn,
) -> c_int {
    // SAFETY: the server's load context, on the main thread; Init fills the
    // API table every other call reads.
    let status = unsafe {
        raw::Export_RedisModule_Init(
            ctx,
            name.as_ptr(),
            version,
            raw::REDISMODULE_APIVER_1 as c_int,
        )
    };
    if status != raw::REDISMODULE_OK as c_int {
        return raw::REDISMODULE_ERR as c_int;
    }
    let ctx = Ctx::new(ctx);
    // Counters start at zero with every load, whether or not the library
    // was unmapped since the last one.
    super::gate::reset_counts();
    super::block::reset_blocked_clients();
    super::deferred::reset_deferred();
    let args = RStr::slice_from_argv(argv, usize::try_from(argc).unwrap_or(0));
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| load(&ctx, args)))
        .unwrap_or_else(|payload| Err(ctx.panicked("load", payload.as_ref()).to_string()));
    match outcome {
        Ok(()) => raw::REDISMODULE_OK as c_int,
        Err(message) => {
            ctx.log_warning(&format!("zkit: {message}"));
            raw::REDISMODULE_ERR as c_int
        }
    }
}

/// The body of `RedisModule_OnUnload`. The server drops zkit's commands,
/// configs, INFO section and server-event subscriptions, and refuses to
/// unload while a client waits in DELAY.BPOLL (whose command filter goes
/// with the last waiter); what the small-board policy remembers is freed
/// here, as the module's memory must not outlive its code.
#[doc(hidden)]
pub fn on_unload(_ctx: *mut raw::RedisModuleCtx) -> c_int {
    super::layout::forget_at_unload();
    raw::REDISMODULE_OK as c_int
}

/// Refuses to load on servers without the module API zkit needs (Redis 6.2
/// and older) before anything is registered; the caller logs why.
pub fn ensure_server_supported() -> Result<(), String> {
    // SAFETY: reading function pointers the server filled in at load.
    let missing: Vec<&str> = unsafe {
        [
            (
                "RedisModule_GetCommand",
                { raw::RedisModule_GetCommand }.is_some(),
            ),
            (
                "RedisModule_SetCommandInfo",
                { raw::RedisModule_SetCommandInfo }.is_some(),
            ),
            (
                "RedisModule_RegisterNumericConfig",
                { raw::RedisModule_RegisterNumericConfig }.is_some(),
            ),
            (
                "RedisModule_LoadConfigs",
                { raw::RedisModule_LoadConfigs }.is_some(),
            ),
            (
                "RedisModule_KeyAtPosWithFlags",
                { raw::RedisModule_KeyAtPosWithFlags }.is_some(),
            ),
        ]
    }
    .into_iter()
    .filter(|(_, present)| !present)
    .map(|(name, _)| name)
    .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "zkit needs Redis 7.0 or later (or Valkey 7.2 or later): this server lacks {}; \
         the module is not loaded",
        missing.join(", ")
    ))
}

/// Valkey's option for atomic slot migration (`CLUSTER MIGRATESLOTS`, Valkey
/// 9.0): `VALKEYMODULE_OPTIONS_HANDLE_ATOMIC_SLOT_MIGRATION`, which the
/// redis-module crate's header predates. Valkey refuses the migration while
/// any loaded module lacks it. Redis has no such bit: its options end at
/// bit 3 in 7.0 through 8.0, and a later bit 5 may mean something else, so
/// zkit sets it only on a Valkey that knows it.
const VALKEY_HANDLE_ATOMIC_SLOT_MIGRATION: c_int = 1 << 5;

/// Valkey's option that lets `ValkeyModule_Replicate` skip looking the
/// command up by name (`VALKEYMODULE_OPTIONS_SKIP_COMMAND_VALIDATION`,
/// Valkey 8.1): about 1,400 of the 2,200 server instructions each
/// replicated command costs. zkit replicates only the native commands
/// [`Native`](super::call::Native) lists, each looked up at load: a server that
/// lacks one refuses every write that would replicate it before it starts,
/// so nothing is replicated that the lookup would have refused. Redis has
/// no such bit (its bit 4 may mean something else), so it is set only on a
/// Valkey that knows it.
const VALKEY_SKIP_COMMAND_VALIDATION: c_int = 1 << 4;

/// Declares, in one call (each call replaces the options), what zkit
/// handles:
/// - it signals modified keys itself, after writes that change something
///   (see `Zset`), instead of the server signalling every key a command
///   opened for writing, changed or not;
/// - diskless loading on a replica (`repl-diskless-load swapdb`): without
///   it Redis and Valkey load from disk whenever a module is unaware.
///   What zkit remembers of keys (which small boards are hot, see
///   `layout.rs`) is a hint no reply depends on, so the dataset swapped in
///   needs nothing from it (nor does it subscribe to the async-load
///   events); the write gate postpones deferred writes while a replica loads
///   asynchronously (they would land in the data set about to be
///   discarded), and the server signals the keys blocked clients wait on
///   when it swaps the loaded data set in;
/// - on Valkey 8.1 and later, replication without a lookup by name
///   ([`VALKEY_SKIP_COMMAND_VALIDATION`]);
/// - on Valkey 9, atomic slot migration: zkit's keys are plain sorted sets,
///   sets and hashes that move like any other; during the hand-over the
///   source pauses writes as for a failover (the pause RM_AvoidReplicaTraffic
///   reports), so the write gate postpones claims; afterwards a client
///   blocked on a moved key is redirected by the server as after classic
///   resharding, and the write gate's probe refuses a deferred write in a
///   slot the node no longer serves. zkit keeps no state per key or slot
///   that a reply depends on (a hot board that moved away is forgotten when
///   it turns cold and is not found), so it subscribes to none of the
///   migration's events.
pub fn declare_module_options(ctx: &Ctx) {
    let mut options = (raw::REDISMODULE_OPTION_NO_IMPLICIT_SIGNAL_MODIFIED
        | raw::REDISMODULE_OPTIONS_HANDLE_REPL_ASYNC_LOAD) as c_int;
    if ctx.is_valkey() {
        let known = known_module_options();
        for valkey_option in [
            VALKEY_HANDLE_ATOMIC_SLOT_MIGRATION,
            VALKEY_SKIP_COMMAND_VALIDATION,
        ] {
            if known & valkey_option != 0 {
                options |= valkey_option;
            }
        }
    }
    // SAFETY: load context; the options above exist since Redis 7.0.
    unsafe { api!(RedisModule_SetModuleOptions)(ctx.as_ptr(), options) };
}

/// Every module option the server knows (Redis 7.2+, Valkey); 0 where the
/// server cannot tell.
fn known_module_options() -> c_int {
    // SAFETY: reading a function pointer the server filled in at load (or
    // left empty), then calling it with no arguments.
    unsafe { raw::RedisModule_GetModuleOptionsAll.map_or(0, |all| all()) }
}

impl Ctx {
    /// Whether the server is Valkey: INFO's `server_name` (Valkey 8.0 and
    /// later; Redis has no such field).
    fn is_valkey(&self) -> bool {
        self.server_info_field(c"server", c"server_name")
            .is_some_and(|name| name == b"valkey")
    }
}
