//! The layout of a sorted set (a listpack or a skiplist), and the one way the
//! module API can change it.
//!
//! Up to `zset-max-listpack-entries` members (128 by default) the server keeps
//! a sorted set as a listpack, where a score with a fraction is text: every
//! walk parses it back (`strtod`) at each element it passes. A skiplist keeps
//! doubles. The server turns a listpack into a skiplist when a member longer
//! than `zset-max-listpack-value` (64 bytes by default) is added (`zsetAdd`),
//! and nothing turns it back while the key lives: removals keep the layout.
//! Only building a value anew picks the listpack again (RDB load, RESTORE, a
//! `*STORE` destination, a key created by ZADD).
//!
//! So [`Zset::convert_to_skiplist`] adds a member one byte longer than the
//! limit and removes it at once. On a command's key both writes are recorded
//! (`ZADD key 0 <member>`, `ZREM key <member>`, in the call's MULTI/EXEC, with
//! no keyspace event of their own): replicas and the AOF replay them and
//! convert the same way. After an RDB load (a restart, a replica's full sync,
//! DEBUG RELOAD) the server hands every key to the module's `loaded`
//! notification ([`convert_loaded_zsets`]), where the handler may convert it
//! unrecorded: each server loads its own copy.

use std::ffi::{c_char, c_int};
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::Mutex;

use redis_module::raw;
use smallvec::smallvec;

use super::call::CallArg;
use super::effects::{native, Word, Words, Write};
use super::{api, Ctx, HostError, Native, OwnedRStr, RStr, Zset};

/// The transient member starts with this; padding makes it long enough.
const TRANSIENT_PREFIX: &[u8] = b"zkit:skiplist-layout:";

/// A server whose members may be this long in a listpack is left alone: the
/// transient member would cost more than the layout saves.
const LONGEST_TRANSIENT: usize = 4096;

/// The last `zset-max-listpack-value` read.
static LISTPACK_VALUE_LIMIT: Mutex<Option<usize>> = Mutex::new(None);

impl Ctx {
    /// Whether `name` holds a sorted set in the listpack layout (`OBJECT
    /// ENCODING`).
    pub fn zset_is_listpack(&self, name: &RStr) -> Result<bool, HostError> {
        let reply = self.call(
            Native::Object,
            &[CallArg::Bytes(b"ENCODING"), CallArg::Str(name)],
        )?;
        let listpack = reply.get().bytes() == Some(b"listpack".as_slice());
        Ok(listpack)
    }

    /// The longest member a listpack keeps (`zset-max-listpack-value`), as
    /// the server has it now.
    pub fn listpack_value_limit(&self) -> Result<usize, HostError> {
        let limit = self.server_config_number("zset-max-listpack-value")?;
        let limit = usize::try_from(limit).unwrap_or(0);
        *LISTPACK_VALUE_LIMIT
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(limit);
        Ok(limit)
    }

    /// The limit as last read, read now if never: `CONFIG GET` matches its
    /// pattern against every config, which costs more than a conversion, and
    /// an RDB load converts boards one after another.
    fn last_listpack_value_limit(&self) -> Result<usize, HostError> {
        let last = *LISTPACK_VALUE_LIMIT
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        last.map_or_else(|| self.listpack_value_limit(), Ok)
    }
}

impl Zset<'_> {
    /// Moves a sorted set of the listpack layout to the skiplist layout by
    /// adding and removing a member longer than `value_limit` (see the module
    /// doc); a skiplist stays as it is. Members and scores are unchanged.
    /// False when nothing was done: an empty key (it would be created), a
    /// limit over [`LONGEST_TRANSIENT`], or a board that holds the transient
    /// member itself.
    pub fn convert_to_skiplist(&mut self, value_limit: usize) -> Result<bool, HostError> {
        if self.is_empty() || value_limit >= LONGEST_TRANSIENT {
            return Ok(false);
        }
        let mut member = TRANSIENT_PREFIX.to_vec();
        member.resize(value_limit.max(TRANSIENT_PREFIX.len()) + 1, b'.');
        let member = OwnedRStr::new(&member);
        if self.score(&member).is_some() {
            return Ok(false);
        }
        self.raw_add(&member, 0.0)?;
        self.raw_remove(&member);
        if self.is_writable() {
            self.record_unannounced(
                native::ZADD,
                smallvec![Word::Float(0.0), Word::Str(member.retain())],
            );
            self.record_unannounced(native::ZREM, smallvec![Word::Str(member)]);
        }
        Ok(true)
    }

    /// Records a write that fires no keyspace event of its own.
    fn record_unannounced(&self, command: &'static std::ffi::CStr, item: Words) {
        self.record(Write {
            command,
            key: self.name(),
            fixed: Words::new(),
            item,
            event: None,
        });
    }
}

/// Whether a sorted set the server has just loaded from an RDB should move to
/// the skiplist layout. It gets the key open for reading; the host converts
/// it unrecorded (nothing is replicated: every server loads and converts its
/// own copy).
pub type LoadedZsetFilter = fn(&mut Zset<'_>) -> bool;

/// Whether loaded sorted sets are looked at at all: asked before each loaded
/// key is opened, so a server that turned the conversion off pays no key
/// lookup per loaded key.
pub type LoadedZsetsWanted = fn() -> bool;

/// What [`convert_loaded_zsets`] installed. The server calls modules on its
/// main thread only, so the lock is never contended.
static LOADED_ZSET_FILTER: Mutex<Option<(LoadedZsetsWanted, LoadedZsetFilter)>> = Mutex::new(None);

/// Moves each sorted set an RDB load brings in (a restart, a replica's full
/// sync, DEBUG RELOAD) to the skiplist layout when `filter` says so, through
/// the module-only `loaded` keyspace notification. Call during load; the
/// server drops the subscription when the module unloads.
pub fn convert_loaded_zsets(
    ctx: &Ctx,
    wanted: LoadedZsetsWanted,
    filter: LoadedZsetFilter,
) -> Result<(), String> {
    *LOADED_ZSET_FILTER.lock().unwrap_or_else(|e| e.into_inner()) = Some((wanted, filter));
    // SAFETY: load context and a callback with the signature the server calls.
    let status = unsafe {
        api!(RedisModule_SubscribeToKeyspaceEvents)(
            ctx.as_ptr(),
            raw::REDISMODULE_NOTIFY_LOADED as c_int,
            Some(loaded_key),
        )
    };
    if status == raw::REDISMODULE_OK as c_int {
        Ok(())
    } else {
        Err("the server refused the subscription to loaded keys".into())
    }
}

/// The `loaded` notification: the RDB loader has just added the key.
extern "C" fn loaded_key(
    ctx: *mut raw::RedisModuleCtx,
    _type: c_int,
    _event: *const c_char,
    key: *mut raw::RedisModuleString,
) -> c_int {
    let installed = *LOADED_ZSET_FILTER.lock().unwrap_or_else(|e| e.into_inner());
    let Some((wanted, filter)) = installed else {
        return raw::REDISMODULE_OK as c_int;
    };
    if key.is_null() || !wanted() {
        return raw::REDISMODULE_OK as c_int;
    }
    let ctx = Ctx::new(ctx);
    // The loader's key name lives on its stack and RM_OpenKey keeps a
    // reference to the name it is given, so the key is opened by a copy.
    let names = [key];
    let name = OwnedRStr::new(RStr::slice_from_argv(names.as_ptr().cast_mut(), 1)[0].as_bytes());
    // A panic must not cross into the loader: it is logged (`panicked`) and
    // the key stays as it was loaded.
    let _ = panic::catch_unwind(AssertUnwindSafe(|| convert_loaded(&ctx, &name, filter)))
        .map_err(|payload| ctx.panicked("the loaded-key handler", payload.as_ref()));
    raw::REDISMODULE_OK as c_int
}

fn convert_loaded(ctx: &Ctx, name: &RStr, filter: LoadedZsetFilter) {
    // Writable so it can be converted; NOTOUCH keeps its LRU/LFU as loaded,
    // and a write lookup counts no keyspace hit.
    let mode = raw::REDISMODULE_READ | raw::REDISMODULE_WRITE | raw::REDISMODULE_OPEN_KEY_NOTOUCH;
    // SAFETY: the callback's context and key name.
    let opened = unsafe { api!(RedisModule_OpenKey)(ctx.as_ptr(), name.as_ptr(), mode as c_int) };
    let Some(opened) = NonNull::new(opened) else {
        return;
    };
    // SAFETY: `opened` was just opened.
    let kind = unsafe { api!(RedisModule_KeyType)(opened.as_ptr()) };
    if kind != raw::REDISMODULE_KEYTYPE_ZSET as c_int {
        // SAFETY: closed once, never used again.
        unsafe { api!(RedisModule_CloseKey)(opened.as_ptr()) };
        return;
    }
    let mut zset = Zset::wrap(opened, None);
    if filter(&mut zset) {
        // With the limit last read; if the limit has grown since (the
        // transient member was not long enough), once more with it read now.
        let converted = ctx
            .last_listpack_value_limit()
            .and_then(|limit| zset.convert_to_skiplist(limit))
            .and_then(|_| ctx.zset_is_listpack(name))
            .and_then(|listpack| match listpack {
                true => zset.convert_to_skiplist(ctx.listpack_value_limit()?),
                false => Ok(false),
            });
        if let Err(error) = converted {
            ctx.log_warning(&format!("zkit: a loaded board keeps its listpack: {error}"));
        }
    }
}
