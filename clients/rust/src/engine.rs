//! Which zkit a server has: the module's commands, or zkit's Functions
//! library (`FUNCTION LOAD`) on servers that refuse modules, such as managed
//! Redis and Valkey services. [`Zkit`](crate::Zkit) asks on its first call (a
//! wrong-arity `RANK.GET`, then `FCALL_RO zkit_version`) and sends each call
//! to the one it found: `RANK.GIFT board alice 10` to the module, `FCALL
//! zkit_rank_gift 1 board board alice 10` to the library, parsed the same way.

use redis::{Cmd, ErrorKind, RedisError, RedisResult, Value};

/// zkit's module, or its Functions library.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Module,
    Functions,
}

/// The Functions library this crate ships (the repository's
/// `functions/zkit.lua`, which `make functions` builds).
pub const LIBRARY: &str = include_str!("../zkit.lua");

/// What a server with neither the module nor the library answers.
pub const NOT_LOADED: &str = "zkit is not loaded on this server: it knows neither the zkit module's \
     commands nor zkit's Functions library. On a server that refuses modules (a managed service), \
     load the library: Zkit::load_functions, or redis-cli -x FUNCTION LOAD REPLACE < zkit.lua; else \
     load the module (loadmodule /path/to/libzkit.so).";

/// What a server with neither the module nor Lua (which the library runs
/// on) answers to loading the library.
pub const NO_LUA: &str = "zkit cannot run on this server: it has neither the zkit module nor Lua, \
     which zkit's Functions library runs on. Load the module (loadmodule /path/to/libzkit.so), or \
     use a server with Lua scripting (on Valkey 9+, where Lua is a module of its own, one that loads \
     it).";

/// A client-side DELAY.BPOLL on the library (scripts cannot block) polls
/// again after this many ms, doubling up to the second while nothing is due.
pub const BPOLL_BACKOFF_MS: (u64, u64) = (2, 250);

/// The error of a server without zkit (kind `Client`, detail [`NOT_LOADED`]).
pub fn not_loaded() -> RedisError {
    RedisError::from((
        ErrorKind::Client,
        "zkit is not loaded",
        NOT_LOADED.to_string(),
    ))
}

/// Whether an error is a server without zkit's Functions library: ours,
/// or the server's answer to an FCALL of a missing function.
pub fn is_not_loaded(error: &RedisError) -> bool {
    error.detail() == Some(NOT_LOADED) || said(error, &["function not found"])
}

/// A server's error as the caller gets it: when it says the server has no
/// Lua engine (Valkey 9+ without its Lua module), kind `Client` with detail
/// [`NO_LUA`] and the server's answer; else unchanged.
pub fn without_lua(error: RedisError) -> RedisError {
    if !said(
        &error,
        &["engine 'lua' not found", "could not find scripting engine"],
    ) {
        return error;
    }
    RedisError::from((
        ErrorKind::Client,
        "zkit cannot run on this server",
        format!("{NO_LUA} The server answered: {error}"),
    ))
}

/// The version a library text declares (`0.4.0+<digest>`).
pub fn library_version(text: &str) -> Option<&str> {
    let line = text
        .lines()
        .find_map(|line| line.strip_prefix("local VERSION = '"))?;
    line.split('\'').next()
}

fn release(version: &str) -> Vec<u64> {
    version
        .split('+')
        .next()
        .unwrap_or_default()
        .split('.')
        .map(|part| part.parse().unwrap_or(0))
        .collect()
}

/// Whether to load the shipped library over what a server holds: none, an
/// older release or another build of this one; a newer release stays
/// unless `force`.
pub fn should_load(current: Option<&str>, shipped: &str, force: bool) -> bool {
    match current {
        Some(current) if current == shipped => false,
        None => true,
        _ if force => true,
        Some(current) => release(current) <= release(shipped),
    }
}

/// `RANK.GIFT` -> `zkit_rank_gift`.
pub fn function_name(command: &str) -> String {
    format!("zkit_{}", command.to_lowercase().replace('.', "_"))
}

fn said(error: &RedisError, texts: &[&str]) -> bool {
    let message = error.to_string().to_lowercase();
    texts.iter().any(|text| message.contains(text))
}

/// The engine a server has, asked with `execute`.
pub(crate) fn detect(execute: &mut dyn FnMut(&Cmd) -> RedisResult<Value>) -> RedisResult<Engine> {
    match execute(&redis::cmd("RANK.GET")) {
        Ok(_) => return Ok(Engine::Module),
        Err(e) if said(&e, &["wrong number of arguments"]) => return Ok(Engine::Module),
        // An ACL user may be refused the probe (NOPERM) yet call FCALL.
        Err(e) if said(&e, &["unknown command", "no permissions"]) => {}
        Err(e) => return Err(e),
    }
    let mut version = redis::cmd("FCALL_RO");
    version.arg("zkit_version").arg(0);
    match execute(&version) {
        Ok(_) => Ok(Engine::Functions),
        Err(e) if is_not_loaded(&e) => Err(not_loaded()),
        Err(e) => Err(e),
    }
}

/// The version of the library in a `FUNCTION LIST LIBRARYNAME zkit WITHCODE`
/// reply, if one is loaded.
pub(crate) fn listed_version(reply: &Value) -> Option<String> {
    fn strings(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::BulkString(bytes) => out.push(String::from_utf8_lossy(bytes).into_owned()),
            Value::Array(items) | Value::Set(items) => items.iter().for_each(|v| strings(v, out)),
            Value::Map(pairs) => pairs.iter().for_each(|(k, v)| {
                strings(k, out);
                strings(v, out);
            }),
            _ => {}
        }
    }
    let mut texts = Vec::new();
    strings(reply, &mut texts);
    texts
        .iter()
        .find_map(|text| library_version(text).map(str::to_string))
}

/// DELAY.BPOLL's refusal of a timeout, as the module words it.
pub(crate) fn bpoll_timeout_error(timeout_ms: i64) -> Option<RedisError> {
    let refused = if timeout_ms < 0 {
        "timeout is negative"
    } else if timeout_ms > 3_155_760_000_000 {
        "timeout is out of range"
    } else {
        return None;
    };
    Some(RedisError::from((
        ErrorKind::Client,
        "DELAY.BPOLL",
        refused.to_string(),
    )))
}
