//! The layout of a small sorted set (a listpack or a skiplist), and the ways
//! the module API can change it without a trace a client can see.
//!
//! Up to `zset-max-listpack-entries` members (128 by default) the server keeps
//! a sorted set as a listpack, where a score with a fraction is text: every
//! walk parses it back (`strtod`) at each element it passes. A skiplist keeps
//! doubles. The server never tells a module which layout a key has, and only
//! two things change it:
//!
//! - `zsetAdd` turns a listpack into a skiplist before it inserts a member
//!   longer than `zset-max-listpack-value` (64 bytes by default), and nothing
//!   turns it back while the key lives: removals keep the layout. So
//!   [`Zset::move_to_skiplist`] adds such a member and removes it at once,
//!   through the key API, which neither replicates nor announces anything:
//!   replicas, the AOF, MONITOR and keyspace events never see it.
//! - A value built anew takes the listpack when it is small: the RDB load,
//!   RESTORE, a `*STORE` destination, and a key the key API creates. So
//!   [`Ctx::rebuild_as_listpack`] deletes a small sorted set and adds its
//!   members back, unrecorded, with its expiry and LRU/LFU as they were.
//!   The server fires one event for it, `new`, which clients only see with
//!   `n` in `notify-keyspace-events`: [`Ctx::layout_may_change`] says no
//!   then.
//!
//! Both need the two listpack limits, read at load with `CONFIG GET` and again
//! when `CONFIG SET` changes them (the `config` server event), never on a
//! command's path. [`subscribe_layout_events`] also passes on the server's
//! cron tick and tells when the data set is replaced (load, flush, swap).

use std::ffi::{c_char, c_int, c_void, CStr};
use std::panic::{self, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Mutex;

use redis_module::raw;

use super::api;

use super::ctx::Ctx;

use super::error::HostError;

use super::string::OwnedRStr;

use super::zset::Zset;

/// The transient member starts with this; padding makes it long enough.
const TRANSIENT_PREFIX: &[u8] = b"zkit:skiplist-layout:";

/// A server whose members may be this long in a listpack is left alone: the
/// transient member would cost more than the layout saves. Also the length
/// used while the limit is unknown (CONFIG renamed or disabled).
const LONGEST_TRANSIENT: usize = 4096;

/// `zset-max-listpack-value` and `zset-max-listpack-entries` as last read; -1
/// while unknown.
static VALUE_LIMIT: AtomicI64 = AtomicI64::new(-1);
static ENTRIES_LIMIT: AtomicI64 = AtomicI64::new(-1);

/// The configs whose change makes the limits be read again (and their names
/// before Redis 7.0, which CONFIG SET still takes).
const LIMIT_CONFIGS: [&[u8]; 4] = [
    b"zset-max-listpack-value",
    b"zset-max-listpack-entries",
    b"zset-max-ziplist-value",
    b"zset-max-ziplist-entries",
];

/// Reads the server's listpack limits (`CONFIG GET`). On failure (CONFIG
/// renamed or disabled) the limits stay as they were, unknown at first: a
/// board then moves with a transient member of [`LONGEST_TRANSIENT`] bytes
/// + 1, and goes back only up to the caller's own member limit.
pub fn read_listpack_limits(ctx: &Ctx) -> Result<(), HostError> {
    let value = ctx.server_config_number("zset-max-listpack-value")?;
    let entries = ctx.server_config_number("zset-max-listpack-entries")?;
    VALUE_LIMIT.store(value.max(0), Ordering::Relaxed);
    ENTRIES_LIMIT.store(entries.max(0), Ordering::Relaxed);
    Ok(())
}

/// `zset-max-listpack-entries` as last read, `None` if never.
pub fn listpack_entries_limit() -> Option<usize> {
    usize::try_from(ENTRIES_LIMIT.load(Ordering::Relaxed)).ok()
}

fn listpack_value_limit() -> Option<usize> {
    usize::try_from(VALUE_LIMIT.load(Ordering::Relaxed)).ok()
}

impl Zset<'_> {
    /// Moves a sorted set of the listpack layout to the skiplist layout by
    /// adding and removing a member longer than `zset-max-listpack-value`,
    /// unrecorded (see the module doc); a skiplist stays as it is, at the
    /// cost of a hash lookup, an insert and a removal. Members and scores are
    /// unchanged. False when nothing was done: an empty key (it would be
    /// created), a limit of [`LONGEST_TRANSIENT`] or more, or a board that
    /// holds the transient member itself.
    pub fn move_to_skiplist(&mut self) -> Result<bool, HostError> {
        let value_limit = listpack_value_limit().unwrap_or(LONGEST_TRANSIENT);
        if self.is_empty() || value_limit > LONGEST_TRANSIENT {
            return Ok(false);
        }
        let mut member = TRANSIENT_PREFIX.to_vec();
        member.resize(value_limit.max(TRANSIENT_PREFIX.len()) + 1, b'.');
        let member = OwnedRStr::new(&member);
        // At the lowest score: the cheapest place in a skiplist. NX: a
        // member of that name that is already there stays untouched.
        let added = self.raw_add_new(&member, f64::NEG_INFINITY)?;
        if added {
            self.raw_remove(&member);
        }
        Ok(added)
    }
}

/// What became of a sorted set [`Ctx::rebuild_as_listpack`] was asked to
/// rebuild.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rebuilt {
    /// Rebuilt as a listpack of this many members.
    Listpack(usize),
    /// Left as it was: gone, not a sorted set, or one the server would not
    /// keep as a listpack (too many members or too long a member).
    Left,
}

impl Ctx {
    /// The database this context's client has selected.
    pub fn selected_db(&self) -> i32 {
        // SAFETY: valid context.
        unsafe { api!(RedisModule_GetSelectedDb)(self.as_ptr()) }
    }

    /// Whether a layout may change now, outside a command: not while the
    /// server loads, while clients are paused (a failover waits for its
    /// replicas), nor while a fork is saving (every page touched would be
    /// copied).
    pub fn layout_may_change(&self) -> bool {
        let busy = (raw::REDISMODULE_CTX_FLAGS_LOADING
            | raw::REDISMODULE_CTX_FLAGS_ASYNC_LOADING
            | raw::REDISMODULE_CTX_FLAGS_ACTIVE_CHILD) as c_int;
        // SAFETY: no arguments; reads the server's pause state.
        let paused = unsafe { api!(RedisModule_AvoidReplicaTraffic)() } != 0;
        self.flags() & busy == 0 && !paused
    }

    /// Whether a command that reads may move a layout now (the move takes
    /// memory): not out of memory (`maxmemory`), not while clients are
    /// paused.
    pub fn layout_may_grow(&self) -> bool {
        // SAFETY: no arguments; reads the server's pause state.
        let paused = unsafe { api!(RedisModule_AvoidReplicaTraffic)() } != 0;
        self.flags() & raw::REDISMODULE_CTX_FLAGS_OOM as c_int == 0 && !paused
    }

    /// Whether clients get `new` keyspace events (`n` in
    /// notify-keyspace-events), which a rebuild fires.
    pub fn new_key_events_on(&self) -> bool {
        // SAFETY: no arguments; reads the notify-keyspace-events flags.
        let events = unsafe { api!(RedisModule_GetNotifyKeyspaceEvents)() };
        events & raw::REDISMODULE_NOTIFY_NEW as c_int != 0
    }

    /// Moves sorted set `key` of database `db` to the skiplist layout (see
    /// [`Zset::move_to_skiplist`]) through a handle of its own (a command
    /// that reads has the key open for reading only); its lookup does not
    /// count as an access. The number of members of the set moved, `None`
    /// when nothing was done: gone, not a sorted set, more than `max_len`
    /// members, or [`Zset::move_to_skiplist`] declined.
    pub fn move_to_skiplist(
        &self,
        db: i32,
        key: &[u8],
        max_len: usize,
    ) -> Result<Option<usize>, HostError> {
        self.in_db(db, |ctx| {
            let Some(mut zset) = ctx.open_untouched(key)? else {
                return Ok(None);
            };
            let len = zset.len();
            if len > max_len || !zset.move_to_skiplist()? {
                return Ok(None);
            }
            Ok(Some(len))
        })
    }

    /// Runs `f` with database `db` selected, then selects the one the
    /// context had.
    fn in_db<T>(
        &self,
        db: i32,
        f: impl FnOnce(&Ctx) -> Result<Option<T>, HostError>,
    ) -> Result<Option<T>, HostError> {
        let selected = self.selected_db();
        // SAFETY: valid context; the index came from a command's context, so
        // it exists (a failed select runs nothing).
        if unsafe { api!(RedisModule_SelectDb)(self.as_ptr(), db) } != raw::REDISMODULE_OK as c_int
        {
            return Ok(None);
        }
        let result = f(self);
        // SAFETY: as above, back to the database the context had.
        unsafe { api!(RedisModule_SelectDb)(self.as_ptr(), selected) };
        result
    }

    /// Opens `key` of the selected database for writing without counting an
    /// access (its LRU/LFU stays as it was); `None` unless it holds a
    /// sorted set.
    fn open_untouched(&self, key: &[u8]) -> Result<Option<Zset<'_>>, HostError> {
        let name = OwnedRStr::new(key);
        let mode =
            raw::REDISMODULE_READ | raw::REDISMODULE_WRITE | raw::REDISMODULE_OPEN_KEY_NOTOUCH;
        // SAFETY: valid context and key name (the server keeps its own
        // reference while the key is open); a writable open always returns a
        // handle, closed when the `Zset` drops.
        let opened =
            unsafe { api!(RedisModule_OpenKey)(self.as_ptr(), name.as_ptr(), mode as c_int) };
        let Some(opened) = NonNull::new(opened) else {
            return Ok(None);
        };
        let zset = Zset::wrap(opened, None);
        // SAFETY: `opened` is open.
        let kind = unsafe { api!(RedisModule_KeyType)(opened.as_ptr()) };
        Ok((kind == raw::REDISMODULE_KEYTYPE_ZSET as c_int).then_some(zset))
    }

    /// Rebuilds sorted set `key` of database `db` as a listpack, unrecorded
    /// (see the module doc): members and scores, expiry and LRU/LFU as they
    /// were, WATCH and client-side caching untouched (zkit signals modified
    /// keys itself). Only sets of at most `max_len` members, within the
    /// server's listpack limits, are rebuilt; a set that is a listpack
    /// already is rebuilt the same. Its lookup does not count as an access.
    pub fn rebuild_as_listpack(
        &self,
        db: i32,
        key: &[u8],
        max_len: usize,
    ) -> Result<Rebuilt, HostError> {
        let max_len = listpack_entries_limit().map_or(max_len, |limit| limit.min(max_len));
        let rebuilt = self.in_db(db, |ctx| {
            let Some(mut zset) = ctx.open_untouched(key)? else {
                return Ok(None);
            };
            zset.rebuild_as_listpack(max_len)
        })?;
        Ok(rebuilt.map_or(Rebuilt::Left, Rebuilt::Listpack))
    }
}

impl Zset<'_> {
    /// See [`Ctx::rebuild_as_listpack`]; the number of members rebuilt.
    fn rebuild_as_listpack(&mut self, max_len: usize) -> Result<Option<usize>, HostError> {
        let len = self.len();
        if len == 0 || len > max_len {
            return Ok(None);
        }
        let value_limit = listpack_value_limit().unwrap_or(usize::MAX);
        // Highest first: each member then goes in at the head of the
        // listpack, where the insertion's walk stops at its first step.
        let members: Vec<(OwnedRStr, f64)> = self
            .iter_desc(super::zset::ScoreBound::MIN, super::zset::ScoreBound::MAX)
            .collect();
        if members.len() != len
            || members
                .iter()
                .any(|(m, _)| m.as_bytes().len() > value_limit)
        {
            return Ok(None);
        }
        let kept = KeptMetadata::read(self.ptr());
        // SAFETY: open writable key; the members are copies the module owns
        // in `members`.
        unsafe { api!(RedisModule_DeleteKey)(self.ptr()) };
        for (member, score) in &members {
            self.raw_add(member, *score)?;
        }
        kept.restore(self.ptr());
        Ok(Some(len))
    }
}

/// What a key carries besides its value, kept across a rebuild.
struct KeptMetadata {
    expire_at_ms: Option<i64>,
    lru_idle_ms: Option<i64>,
    lfu_freq: Option<i64>,
}

impl KeptMetadata {
    fn read(key: *mut raw::RedisModuleKey) -> KeptMetadata {
        let (mut idle, mut freq) = (0, 0);
        // SAFETY: open key. GetLRU answers under an LRU or no eviction
        // policy, GetLFU under an LFU one; each fails under the other.
        unsafe {
            let expire = api!(RedisModule_GetAbsExpire)(key);
            let lru = api!(RedisModule_GetLRU)(key, &mut idle) == raw::REDISMODULE_OK as c_int;
            let lfu = api!(RedisModule_GetLFU)(key, &mut freq) == raw::REDISMODULE_OK as c_int;
            KeptMetadata {
                expire_at_ms: (expire != raw::REDISMODULE_NO_EXPIRE as i64).then_some(expire),
                lru_idle_ms: lru.then_some(idle),
                lfu_freq: lfu.then_some(freq),
            }
        }
    }

    fn restore(&self, key: *mut raw::RedisModuleKey) {
        // SAFETY: open writable key holding the rebuilt value.
        unsafe {
            if let Some(at) = self.expire_at_ms {
                api!(RedisModule_SetAbsExpire)(key, at);
            }
            if let Some(idle) = self.lru_idle_ms {
                api!(RedisModule_SetLRU)(key, idle);
            }
            if let Some(freq) = self.lfu_freq {
                api!(RedisModule_SetLFU)(key, freq);
            }
        }
    }
}

/// What zkit's layout policy hears from the server: the cron tick (`hz`
/// times a second) and the replacement of the data set (an RDB or AOF load,
/// a replica's sync, FLUSHDB/FLUSHALL, SWAPDB), after which nothing it
/// remembers of keys holds.
#[derive(Clone, Copy)]
pub struct LayoutEvents {
    pub tick: fn(&Ctx),
    pub data_replaced: fn(),
}

/// The server calls modules on its main thread only, so the lock is never
/// contended.
static LAYOUT_EVENTS: Mutex<Option<LayoutEvents>> = Mutex::new(None);

/// Reads the listpack limits and subscribes to the server events the layout
/// policy needs; call during load. A CONFIG that cannot be called is logged,
/// not fatal (see [`read_listpack_limits`]). Subscriptions do not keep the
/// module from unloading (timers would), and go with it.
pub fn subscribe_layout_events(ctx: &Ctx, events: LayoutEvents) -> Result<(), String> {
    VALUE_LIMIT.store(-1, Ordering::Relaxed);
    ENTRIES_LIMIT.store(-1, Ordering::Relaxed);
    if let Err(error) = read_listpack_limits(ctx) {
        ctx.log_warning(&format!(
            "zkit: could not read the listpack limits ({error}): hot small boards move to the \
             skiplist layout with a member of {} bytes, and only up to zset-max-listpack-value \
             {LONGEST_TRANSIENT}",
            LONGEST_TRANSIENT + 1
        ));
    }
    *LAYOUT_EVENTS.lock().unwrap_or_else(|e| e.into_inner()) = Some(events);
    let subscriptions: [(u64, raw::RedisModuleEventCallback); 5] = [
        (raw::REDISMODULE_EVENT_CRON_LOOP, Some(on_cron)),
        (raw::REDISMODULE_EVENT_LOADING, Some(on_loading)),
        (raw::REDISMODULE_EVENT_FLUSHDB, Some(on_data_replaced)),
        (raw::REDISMODULE_EVENT_SWAPDB, Some(on_data_replaced)),
        (raw::REDISMODULE_EVENT_CONFIG, Some(on_config_change)),
    ];
    for (id, callback) in subscriptions {
        let event = raw::RedisModuleEvent { id, dataver: 1 };
        // SAFETY: load context; callbacks with the signature the server calls.
        let status =
            unsafe { api!(RedisModule_SubscribeToServerEvent)(ctx.as_ptr(), event, callback) };
        if status != raw::REDISMODULE_OK as c_int {
            return Err(format!(
                "the server refused the subscription to server event {id}"
            ));
        }
    }
    Ok(())
}

/// At unload: the policy forgets (frees) what it remembers, and its handlers
/// are dropped.
pub(super) fn forget_at_unload() {
    let installed = LAYOUT_EVENTS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    if let Some(events) = installed {
        (events.data_replaced)();
    }
}

fn installed() -> Option<LayoutEvents> {
    *LAYOUT_EVENTS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs a handler of the installed policy with the callback's context; a
/// panic must not cross into the server: it is logged (`panicked`) and
/// nothing else happens.
fn run_policy(
    ctx: *mut raw::RedisModuleCtx,
    what: &str,
    handler: impl FnOnce(&LayoutEvents, &Ctx),
) {
    let Some(events) = installed() else {
        return;
    };
    let ctx = Ctx::new(ctx);
    let _ = panic::catch_unwind(AssertUnwindSafe(|| handler(&events, &ctx)))
        .map_err(|payload| ctx.panicked(what, payload.as_ref()));
}

extern "C" fn on_cron(
    ctx: *mut raw::RedisModuleCtx,
    _eid: raw::RedisModuleEvent,
    _sub: u64,
    _data: *mut c_void,
) {
    run_policy(ctx, "the layout tick", |events, ctx| (events.tick)(ctx));
}

extern "C" fn on_loading(
    ctx: *mut raw::RedisModuleCtx,
    _eid: raw::RedisModuleEvent,
    sub: u64,
    _data: *mut c_void,
) {
    let starts = [
        raw::REDISMODULE_SUBEVENT_LOADING_RDB_START,
        raw::REDISMODULE_SUBEVENT_LOADING_AOF_START,
        raw::REDISMODULE_SUBEVENT_LOADING_REPL_START,
    ];
    if starts.contains(&sub) {
        run_policy(ctx, "the layout reset", |events, _| {
            (events.data_replaced)()
        });
    }
}

extern "C" fn on_data_replaced(
    ctx: *mut raw::RedisModuleCtx,
    _eid: raw::RedisModuleEvent,
    _sub: u64,
    _data: *mut c_void,
) {
    run_policy(ctx, "the layout reset", |events, _| {
        (events.data_replaced)()
    });
}

extern "C" fn on_config_change(
    ctx: *mut raw::RedisModuleCtx,
    _eid: raw::RedisModuleEvent,
    _sub: u64,
    data: *mut c_void,
) {
    if data.is_null() {
        return;
    }
    // SAFETY: the server passes a RedisModuleConfigChangeV1 with this event;
    // its names are NUL-terminated and live for the callback.
    let changed = unsafe {
        let change = &*data.cast::<raw::RedisModuleConfigChangeV1>();
        let names: *const *const c_char = change.config_names.cast();
        (0..change.num_changes as usize).any(|i| {
            let name = CStr::from_ptr(*names.add(i)).to_bytes();
            LIMIT_CONFIGS
                .iter()
                .any(|limit| limit.eq_ignore_ascii_case(name))
        })
    };
    if !changed {
        return;
    }
    let ctx = Ctx::new(ctx);
    if let Err(error) = read_listpack_limits(&ctx) {
        ctx.log_warning(&format!(
            "zkit: could not read the new listpack limits: {error}"
        ));
    }
}
