use std::ffi::{c_int, CString};
use std::panic::{self, AssertUnwindSafe};
use std::sync::OnceLock;

use redis_module::raw;

use super::ctx::c_text;
use super::{api, Ctx, RStr};
use crate::command::{
    key_positions, needs_getkeys_api, Arg, ArgKind, BeginSearch, Command, FindKeys, KeySpec,
};
use crate::error::ZkitError;

/// Runs one command for Redis: counts it, runs its handler, turns an error or
/// a panic into an error reply. A panic must never unwind into the server.
pub fn dispatch(
    command: &'static Command,
    ctx: *mut raw::RedisModuleCtx,
    argv: *mut *mut raw::RedisModuleString,
    argc: c_int,
) -> c_int {
    let ctx = Ctx::new(ctx);
    let args = RStr::slice_from_argv(argv, usize::try_from(argc).unwrap_or(0));
    if ctx.is_keys_position_request() {
        // Redis Cluster asks where the keys are (see `needs_getkeys_api`).
        for (position, flags) in key_positions(command.key_specs, args) {
            ctx.key_at_position(position, flags);
        }
        return raw::REDISMODULE_OK as c_int;
    }
    command.stats.record_call();
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        if !arity_fits(command.arity, args.len()) {
            return Err(ZkitError::Arity(command.name));
        }
        (command.handler)(&ctx, args)
    }));
    let error = match outcome {
        Ok(Ok(())) => return raw::REDISMODULE_OK as c_int,
        Ok(Err(error)) => error,
        Err(payload) => {
            let reason = panic_reason(payload.as_ref());
            ctx.log_warning(&format!("zkit: {} panicked: {reason}", command.name));
            ZkitError::Internal(format!("{} panicked: {reason}", command.name))
        }
    };
    command.stats.record_error();
    ctx.reply_error(&error.to_string());
    raw::REDISMODULE_OK as c_int
}

/// The message of a caught panic, for the log and the error reply.
pub(super) fn panic_reason(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}

/// Redis checks arity before calling a command, but RM_Call from other
/// modules and future server versions may not; handlers index argv freely.
fn arity_fits(arity: i32, argc: usize) -> bool {
    let argc = argc as i64;
    let arity = i64::from(arity);
    if arity >= 0 {
        argc == arity
    } else {
        argc >= -arity
    }
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

/// Makes zkit signal modified keys itself, after writes that change
/// something (see `Zset`), instead of Redis signalling every key a command
/// opened for writing, changed or not.
pub fn disable_implicit_key_signals(ctx: &Ctx) {
    // SAFETY: load context; the option exists since Redis 6.2.
    unsafe {
        api!(RedisModule_SetModuleOptions)(
            ctx.as_ptr(),
            raw::REDISMODULE_OPTION_NO_IMPLICIT_SIGNAL_MODIFIED as c_int,
        )
    };
}

/// Registers one command and its metadata. ACL categories are applied only
/// where the server supports them (Redis 7.2+); 7.0 has no API for them.
pub fn register_command(ctx: &Ctx, command: &'static Command) -> Result<(), String> {
    let name = CString::new(command.name).map_err(|e| e.to_string())?;
    let flags = if needs_getkeys_api(command.key_specs) {
        format!("{} getkeys-api", command.flags)
    } else {
        command.flags.to_string()
    };
    let flags = CString::new(flags).map_err(|e| e.to_string())?;
    // SAFETY: load context; strings outlive the calls, which copy them.
    unsafe {
        let status = api!(RedisModule_CreateCommand)(
            ctx.as_ptr(),
            name.as_ptr(),
            Some(command.callback as RawCmdFunc),
            flags.as_ptr(),
            0,
            0,
            0,
        );
        if status != raw::REDISMODULE_OK as c_int {
            return Err(format!("could not create command {}", command.name));
        }
        let handle = api!(RedisModule_GetCommand)(ctx.as_ptr(), name.as_ptr());
        if handle.is_null() {
            return Err(format!(
                "could not find command {} after creating it",
                command.name
            ));
        }
        let mut info = CommandInfo::new(command);
        let info_ptr = info.build();
        if api!(RedisModule_SetCommandInfo)(handle, info_ptr) != raw::REDISMODULE_OK as c_int {
            return Err(format!(
                "the server refused the metadata of {} ({})",
                command.name,
                std::io::Error::last_os_error()
            ));
        }
        if let Some(set_categories) = raw::RedisModule_SetCommandACLCategories {
            let categories = CString::new(command.acl_categories).map_err(|e| e.to_string())?;
            if set_categories(handle, categories.as_ptr()) != raw::REDISMODULE_OK as c_int {
                return Err(format!(
                    "the server refused the ACL categories of {}",
                    command.name
                ));
            }
        }
    }
    Ok(())
}

type RawCmdFunc = unsafe extern "C" fn(
    *mut raw::RedisModuleCtx,
    *mut *mut raw::RedisModuleString,
    c_int,
) -> c_int;

static COMMAND_INFO_VERSION: raw::RedisModuleCommandInfoVersion =
    raw::RedisModuleCommandInfoVersion {
        version: 1,
        sizeof_historyentry: std::mem::size_of::<raw::RedisModuleCommandHistoryEntry>(),
        sizeof_keyspec: std::mem::size_of::<raw::RedisModuleCommandKeySpec>(),
        sizeof_arg: std::mem::size_of::<raw::RedisModuleCommandArg>(),
    };

/// The C form of a command's metadata. Owns every string and array the raw
/// structs point to until RedisModule_SetCommandInfo has copied them.
struct CommandInfo {
    command: &'static Command,
    strings: Vec<CString>,
    key_specs: Vec<raw::RedisModuleCommandKeySpec>,
    arg_arrays: Vec<Vec<raw::RedisModuleCommandArg>>,
    info: Option<raw::RedisModuleCommandInfo>,
}

impl CommandInfo {
    fn new(command: &'static Command) -> CommandInfo {
        CommandInfo {
            command,
            strings: Vec::new(),
            key_specs: Vec::new(),
            arg_arrays: Vec::new(),
            info: None,
        }
    }

    fn text(&mut self, s: &str) -> *const std::ffi::c_char {
        let c = c_text(s);
        let ptr = c.as_ptr();
        // Moving a CString does not move its heap buffer, so `ptr` stays valid.
        self.strings.push(c);
        ptr
    }

    fn build(&mut self) -> *const raw::RedisModuleCommandInfo {
        let command = self.command;
        let mut specs: Vec<raw::RedisModuleCommandKeySpec> = command
            .key_specs
            .iter()
            .map(|spec| self.key_spec(spec))
            .collect();
        // SAFETY: an all-zero key spec is the documented array terminator.
        specs.push(unsafe { std::mem::zeroed() });
        self.key_specs = specs;
        let args = self.args(command.args);
        let summary = self.text(command.summary);
        let complexity = self.text(command.complexity);
        let since = self.text(command.since);
        self.info = Some(raw::RedisModuleCommandInfo {
            version: &COMMAND_INFO_VERSION,
            summary,
            complexity,
            since,
            history: std::ptr::null_mut(),
            tips: std::ptr::null(),
            arity: command.arity,
            key_specs: self.key_specs.as_mut_ptr(),
            args,
        });
        self.info.as_ref().expect("just set")
    }

    fn key_spec(&mut self, spec: &KeySpec) -> raw::RedisModuleCommandKeySpec {
        // SAFETY: the unions are plain C data; zero is a valid start.
        let mut out: raw::RedisModuleCommandKeySpec = unsafe { std::mem::zeroed() };
        out.flags = u64::from(spec.flags);
        match spec.begin {
            BeginSearch::Index(pos) => {
                out.begin_search_type =
                    raw::RedisModuleKeySpecBeginSearchType_REDISMODULE_KSPEC_BS_INDEX;
                out.bs.index.pos = pos;
            }
            BeginSearch::Keyword { keyword, start } => {
                out.begin_search_type =
                    raw::RedisModuleKeySpecBeginSearchType_REDISMODULE_KSPEC_BS_KEYWORD;
                out.bs.keyword.keyword = self.text(keyword);
                out.bs.keyword.startfrom = start;
            }
        }
        match spec.find {
            FindKeys::Range { last, step, limit } => {
                out.find_keys_type = raw::RedisModuleKeySpecFindKeysType_REDISMODULE_KSPEC_FK_RANGE;
                out.fk.range.lastkey = last;
                out.fk.range.keystep = step;
                out.fk.range.limit = limit;
            }
            FindKeys::KeyNum {
                count_index,
                first,
                step,
            } => {
                out.find_keys_type =
                    raw::RedisModuleKeySpecFindKeysType_REDISMODULE_KSPEC_FK_KEYNUM;
                out.fk.keynum.keynumidx = count_index;
                out.fk.keynum.firstkey = first;
                out.fk.keynum.keystep = step;
            }
        }
        out
    }

    /// A zero-terminated C array of `args`, or NULL for none.
    fn args(&mut self, args: &[Arg]) -> *mut raw::RedisModuleCommandArg {
        if args.is_empty() {
            return std::ptr::null_mut();
        }
        let mut array: Vec<raw::RedisModuleCommandArg> =
            args.iter().map(|arg| self.arg(arg)).collect();
        // SAFETY: an all-zero argument is the documented array terminator.
        array.push(unsafe { std::mem::zeroed() });
        let ptr = array.as_mut_ptr();
        // Moving the Vec into the arena keeps its heap buffer where it is.
        self.arg_arrays.push(array);
        ptr
    }

    fn arg(&mut self, arg: &Arg) -> raw::RedisModuleCommandArg {
        let (kind, key_spec_index, subargs) = match arg.kind {
            ArgKind::Key(spec) => (
                raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_KEY,
                spec as c_int,
                std::ptr::null_mut(),
            ),
            ArgKind::String => (
                raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_STRING,
                -1,
                std::ptr::null_mut(),
            ),
            ArgKind::Integer => (
                raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_INTEGER,
                -1,
                std::ptr::null_mut(),
            ),
            ArgKind::Double => (
                raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_DOUBLE,
                -1,
                std::ptr::null_mut(),
            ),
            ArgKind::UnixTime => (
                raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_UNIX_TIME,
                -1,
                std::ptr::null_mut(),
            ),
            ArgKind::PureToken => (
                raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_PURE_TOKEN,
                -1,
                std::ptr::null_mut(),
            ),
            ArgKind::OneOf(choices) => (
                raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_ONEOF,
                -1,
                self.args(choices),
            ),
            ArgKind::Block(parts) => (
                raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_BLOCK,
                -1,
                self.args(parts),
            ),
        };
        let mut flags = raw::REDISMODULE_CMD_ARG_NONE;
        if arg.optional {
            flags |= raw::REDISMODULE_CMD_ARG_OPTIONAL;
        }
        if arg.multiple {
            flags |= raw::REDISMODULE_CMD_ARG_MULTIPLE;
        }
        raw::RedisModuleCommandArg {
            name: self.text(arg.name),
            type_: kind,
            key_spec_index,
            token: arg.token.map_or(std::ptr::null(), |t| self.text(t)),
            summary: std::ptr::null(),
            since: std::ptr::null(),
            flags: flags as c_int,
            deprecated_since: std::ptr::null(),
            subargs,
            display_text: std::ptr::null(),
        }
    }
}

/// Where an INFO callback writes its fields.
pub struct InfoSink {
    raw: *mut raw::RedisModuleInfoCtx,
}

impl InfoSink {
    /// Starts a section; the server prefixes its name with `zkit_`
    /// (an empty name gives the section `zkit`).
    pub fn section(&mut self, name: &str) {
        let name = c_text(name);
        // SAFETY: valid info context inside the INFO callback.
        unsafe { api!(RedisModule_InfoAddSection)(self.raw, name.as_ptr()) };
    }

    pub fn field_str(&mut self, name: &str, value: &str) {
        let (name, value) = (c_text(name), c_text(value));
        // SAFETY: valid info context; strings are copied.
        unsafe { api!(RedisModule_InfoAddFieldCString)(self.raw, name.as_ptr(), value.as_ptr()) };
    }

    pub fn field_i64(&mut self, name: &str, value: i64) {
        let name = c_text(name);
        // SAFETY: valid info context.
        unsafe { api!(RedisModule_InfoAddFieldLongLong)(self.raw, name.as_ptr(), value) };
    }

    /// A `name:key=value,...` line, like INFO commandstats.
    pub fn dict(&mut self, name: &str, fields: &[(&str, u64)]) {
        let name = c_text(name);
        // SAFETY: valid info context; begin and end are paired.
        unsafe {
            api!(RedisModule_InfoBeginDictField)(self.raw, name.as_ptr());
            for (key, value) in fields {
                let key = c_text(key);
                api!(RedisModule_InfoAddFieldULongLong)(self.raw, key.as_ptr(), *value);
            }
            api!(RedisModule_InfoEndDictField)(self.raw);
        }
    }
}

static INFO_WRITER: OnceLock<fn(&mut InfoSink)> = OnceLock::new();

extern "C" fn info_callback(ctx: *mut raw::RedisModuleInfoCtx, _for_crash_report: c_int) {
    if let Some(write) = INFO_WRITER.get() {
        // INFO runs during crash reports too: never unwind from here.
        let _ = panic::catch_unwind(AssertUnwindSafe(|| write(&mut InfoSink { raw: ctx })));
    }
}

/// Makes `write` the module's INFO section writer.
pub fn register_info(ctx: &Ctx, write: fn(&mut InfoSink)) -> Result<(), String> {
    let _ = INFO_WRITER.set(write);
    // SAFETY: load context and a callback with the C signature Redis expects.
    let status = unsafe { api!(RedisModule_RegisterInfoFunc)(ctx.as_ptr(), Some(info_callback)) };
    if status == raw::REDISMODULE_OK as c_int {
        Ok(())
    } else {
        Err("could not register the INFO section".into())
    }
}

#[cfg(test)]
mod tests {
    use super::arity_fits;

    #[test]
    fn arity_is_exact_or_minimum() {
        assert!(arity_fits(3, 3));
        assert!(!arity_fits(3, 4));
        assert!(arity_fits(-4, 4));
        assert!(arity_fits(-4, 9));
        assert!(!arity_fits(-4, 3));
    }
}
