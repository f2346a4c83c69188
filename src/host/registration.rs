//! Registration: each [`Command`] declaration becomes a server command with
//! its metadata (RedisModule_CreateCommand, then RedisModule_SetCommandInfo
//! and, where the server has them, ACL categories).

use std::ffi::{c_int, CString};

use redis_module::raw;

use super::api;
use super::command::Command;
use super::ctx::c_text;
use super::ctx::Ctx;
use super::grammar::{Arg, ArgKind};
use super::keyspec::{needs_getkeys_api, BeginSearch, FindKeys, KeySpec};

/// The callback type RedisModule_CreateCommand takes.
type RawCommandFn = unsafe extern "C" fn(
    *mut raw::RedisModuleCtx,
    *mut *mut raw::RedisModuleString,
    c_int,
) -> c_int;

/// Adds the ACL category `@name` for the module's commands where the server
/// lets a module add one (RedisModule_AddACLCategory: Redis 7.4+, Valkey
/// 8+); `Ok(false)` where it does not. Call during load, before registering
/// commands in it. The server keeps a category after MODULE UNLOAD, so one
/// left by an earlier load counts as added.
pub fn add_acl_category(ctx: &Ctx, name: &str) -> Result<bool, String> {
    // SAFETY: reading a function pointer the server filled in at load.
    let Some(add) = (unsafe { raw::RedisModule_AddACLCategory }) else {
        return Ok(false);
    };
    let c_name = CString::new(name).map_err(|e| e.to_string())?;
    // SAFETY: load context; the server copies the name.
    if unsafe { add(ctx.as_ptr(), c_name.as_ptr()) } == raw::REDISMODULE_OK as c_int {
        return Ok(true);
    }
    // The server says EBUSY for a category that exists.
    let error = std::io::Error::last_os_error();
    if error.kind() == std::io::ErrorKind::ResourceBusy {
        return Ok(true);
    }
    Err(format!(
        "the server refused the ACL category {name} ({error})"
    ))
}

/// Registers one command and its metadata. ACL categories are applied only
/// where the server supports them (Redis 7.2+; 7.0 has no API for them),
/// with `module_category` (the module's own, from [`add_acl_category`])
/// added to the command's own.
pub fn register_command<E>(
    ctx: &Ctx,
    command: &'static Command<E>,
    module_category: Option<&str>,
) -> Result<(), String> {
    let name = CString::new(command.name).map_err(|e| e.to_string())?;
    let key_specs = command.key_specs();
    let flags = if needs_getkeys_api(&key_specs) {
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
            Some(command.callback as RawCommandFn),
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
        let mut info = CommandInfo::new(command, &key_specs);
        let info_ptr = info.build();
        if api!(RedisModule_SetCommandInfo)(handle, info_ptr) != raw::REDISMODULE_OK as c_int {
            return Err(format!(
                "the server refused the metadata of {} ({})",
                command.name,
                std::io::Error::last_os_error()
            ));
        }
        if let Some(set_categories) = raw::RedisModule_SetCommandACLCategories {
            let categories = match module_category {
                Some(category) => format!("{} {category}", command.acl_categories),
                None => command.acl_categories.to_string(),
            };
            let categories = CString::new(categories).map_err(|e| e.to_string())?;
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

static COMMAND_INFO_VERSION: raw::RedisModuleCommandInfoVersion =
    raw::RedisModuleCommandInfoVersion {
        version: 1,
        sizeof_historyentry: std::mem::size_of::<raw::RedisModuleCommandHistoryEntry>(),
        sizeof_keyspec: std::mem::size_of::<raw::RedisModuleCommandKeySpec>(),
        sizeof_arg: std::mem::size_of::<raw::RedisModuleCommandArg>(),
    };

/// The C form of a command's metadata. Owns every string and array the raw
/// structs point to until RedisModule_SetCommandInfo has copied them.
struct CommandInfo<'s> {
    summary: &'static str,
    complexity: &'static str,
    since: &'static str,
    history_list: &'static [(&'static str, &'static str)],
    arity: i32,
    key_spec_list: &'s [KeySpec],
    arg_list: &'static [Arg],
    strings: Vec<CString>,
    key_specs: Vec<raw::RedisModuleCommandKeySpec>,
    history: Vec<raw::RedisModuleCommandHistoryEntry>,
    arg_arrays: Vec<Vec<raw::RedisModuleCommandArg>>,
    /// The key spec of the next key argument.
    next_key_spec: c_int,
    info: Option<raw::RedisModuleCommandInfo>,
}

impl<'s> CommandInfo<'s> {
    fn new<E>(command: &'static Command<E>, key_specs: &'s [KeySpec]) -> CommandInfo<'s> {
        CommandInfo {
            summary: command.summary,
            complexity: command.complexity,
            since: command.since,
            history_list: command.history,
            arity: command.arity(),
            key_spec_list: key_specs,
            arg_list: command.args,
            strings: Vec::new(),
            key_specs: Vec::new(),
            history: Vec::new(),
            arg_arrays: Vec::new(),
            next_key_spec: 0,
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
        let mut specs: Vec<raw::RedisModuleCommandKeySpec> = self
            .key_spec_list
            .iter()
            .map(|spec| self.key_spec(spec))
            .collect();
        // SAFETY: an all-zero key spec is the documented array terminator.
        specs.push(unsafe { std::mem::zeroed() });
        self.key_specs = specs;
        let args = self.args(self.arg_list);
        let summary = self.text(self.summary);
        let complexity = self.text(self.complexity);
        let since = self.text(self.since);
        let mut history: Vec<raw::RedisModuleCommandHistoryEntry> = self
            .history_list
            .iter()
            .map(|(since, changes)| raw::RedisModuleCommandHistoryEntry {
                since: self.text(since),
                changes: self.text(changes),
            })
            .collect();
        // A null entry ends the array (no array at all without history).
        let history = if history.is_empty() {
            std::ptr::null_mut()
        } else {
            history.push(raw::RedisModuleCommandHistoryEntry {
                since: std::ptr::null(),
                changes: std::ptr::null(),
            });
            self.history = history;
            self.history.as_mut_ptr()
        };
        self.info = Some(raw::RedisModuleCommandInfo {
            version: &COMMAND_INFO_VERSION,
            summary,
            complexity,
            since,
            history,
            tips: std::ptr::null(),
            arity: self.arity,
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
            ArgKind::Key(_) => {
                // Key specs come from the grammar, one per key argument in
                // this same order.
                self.next_key_spec += 1;
                (
                    raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_KEY,
                    self.next_key_spec - 1,
                    std::ptr::null_mut(),
                )
            }
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
            since: arg.since.map_or(std::ptr::null(), |v| self.text(v)),
            flags: flags as c_int,
            deprecated_since: std::ptr::null(),
            subargs,
            display_text: std::ptr::null(),
        }
    }
}
