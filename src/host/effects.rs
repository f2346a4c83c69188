//! The effects recorder: every write a key handle makes is recorded here as
//! the native command that replays it (`ZADD key <exact score> member`,
//! `ZREM`, `ZREMRANGEBYSCORE`, `PEXPIREAT`, `PERSIST`, `UNLINK`, `RENAME`), with the keyspace event
//! the native command fires. When the [`Ctx`] of the call ends, the recorder
//! replicates them (the server wraps a call's propagation in one
//! `MULTI`/`EXEC`), fires the events, and signals the modified keys to WATCH
//! and client-side caching, in one place. So a module-less replica and the
//! AOF stay identical by construction: command code never pairs a write with
//! a replicate call by hand.
//!
//! Effects are flushed even when the call failed or panicked after writing:
//! what was written must reach replicas. Commands check everything before
//! their first write; a call that fails after writing anyway is a bug, which
//! the dispatcher (`command.rs`) logs and replies as an internal error
//! rather than as a clean refusal.
//!
//! Writes that may have added a member also wake the clients that wait on the
//! key in DELAY.BPOLL (`block.rs`).
//!
//! Writes made through RM_Call with replication on (`Ctx::call_replicated`,
//! for sets, which the key API cannot write) are replicated and notified by
//! the server itself, in call order before this call's recorded effects.

use std::ffi::CStr;

use smallvec::SmallVec;

use super::call::CallArg;
use super::{Ctx, EventClass, OwnedRStr, RStr};

/// The most items one replicated command carries: a write of many members
/// goes out as several commands of at most this many (all in the call's one
/// MULTI/EXEC), so no single command grows without bound.
pub const REPLICATION_CHUNK: usize = 512;

/// A value in a replicated command: a server string, a number, or a literal.
#[derive(Debug)]
pub(super) enum Word {
    Str(OwnedRStr),
    Float(f64),
    Int(i64),
    Literal(&'static [u8]),
}

impl Word {
    fn as_call_arg(&self) -> CallArg<'_> {
        match self {
            Word::Str(s) => CallArg::Str(s),
            Word::Float(f) => CallArg::Float(*f),
            Word::Int(n) => CallArg::Int(*n),
            Word::Literal(bytes) => CallArg::Bytes(bytes),
        }
    }
}

/// Words of one command or item; most calls write one member, so they stay
/// inline (no allocation on a command's hot path).
pub(super) type Words = SmallVec<[Word; 2]>;

/// One native command to replicate: `name key fixed... items...`. Items
/// come in groups of `item_len` words (a member, or a score and a member),
/// and consecutive writes of the same command to the same key share one
/// command.
#[derive(Debug)]
struct Replicated {
    name: &'static CStr,
    /// Index into [`Effects::keys`].
    key: usize,
    fixed: Words,
    items: Words,
    item_len: usize,
}

#[derive(Debug)]
struct Event {
    class: EventClass,
    name: &'static CStr,
    key: usize,
}

/// What one call wrote, waiting for the call to end.
#[derive(Debug, Default)]
pub(super) struct Effects {
    /// Every key written, once: each is signalled as modified at the end.
    keys: SmallVec<[OwnedRStr; 2]>,
    replicated: SmallVec<[Replicated; 2]>,
    events: SmallVec<[Event; 2]>,
    /// A write command ran through RM_Call with replication on: the server
    /// replicates and announces it itself.
    pub(super) called_a_write: bool,
}

impl Effects {
    fn is_empty(&self) -> bool {
        self.keys.is_empty() && !self.called_a_write
    }

    /// The index of `key` in [`Effects::keys`], added if new.
    fn key(&mut self, key: &RStr) -> usize {
        let found = self
            .keys
            .iter()
            .position(|k| k.as_ptr() == key.as_ptr() || k.as_bytes() == key.as_bytes());
        found.unwrap_or_else(|| {
            self.keys.push(key.retain());
            self.keys.len() - 1
        })
    }

    fn event(&mut self, event: (EventClass, &'static CStr), key: usize) {
        let (class, name) = event;
        // An event fires once for a run of writes of one kind to one key, as
        // the native command that makes them all fires it once.
        let repeated = self
            .events
            .last()
            .is_some_and(|last| last.class == class && last.name == name && last.key == key);
        if !repeated {
            self.events.push(Event { class, name, key });
        }
    }
}

/// How a write is replayed and announced.
pub(super) struct Write<'a> {
    pub command: &'static CStr,
    pub key: &'a RStr,
    /// Words between the key and the items (`-inf <cutoff>`, `<unix-ms>`).
    pub fixed: Words,
    /// One item (`[score, member]`, `[member]`), or none.
    pub item: Words,
    /// The keyspace event of the write, if it fires one of its own.
    pub event: Option<(EventClass, &'static CStr)>,
}

impl Ctx {
    /// Records a write this call made, to replicate and announce when the
    /// call ends.
    pub(super) fn record(&self, write: Write<'_>) {
        let mut effects = self.effects.borrow_mut();
        let key = effects.key(write.key);
        let item_len = write.item.len();
        let batch = effects.replicated.last_mut().filter(|last| {
            item_len > 0
                && last.name == write.command
                && last.key == key
                && last.item_len == item_len
                && last.fixed.is_empty()
                && write.fixed.is_empty()
        });
        match batch {
            Some(last) => last.items.extend(write.item),
            None => effects.replicated.push(Replicated {
                name: write.command,
                key,
                fixed: write.fixed,
                items: write.item,
                item_len,
            }),
        }
        if let Some(event) = write.event {
            effects.event(event, key);
        }
    }

    /// Records a keyspace event with no write of its own (`del` when the
    /// last member of a key was removed, the event of a `*STORE`).
    pub(super) fn record_event_only(&self, event: (EventClass, &'static CStr), key: &RStr) {
        let mut effects = self.effects.borrow_mut();
        let key = effects.key(key);
        effects.event(event, key);
    }

    /// Whether this call has written anything yet.
    pub(super) fn has_written(&self) -> bool {
        !self.effects.borrow().is_empty()
    }

    /// Replicates, announces and signals what this call wrote; called when
    /// the call ends (see `Ctx`'s `Drop`).
    pub(super) fn flush_effects(&self) {
        if self.effects.borrow().keys.is_empty() {
            return;
        }
        let effects = std::mem::take(&mut *self.effects.borrow_mut());
        let mut args: SmallVec<[CallArg; 8]> = SmallVec::new();
        for command in &effects.replicated {
            let chunk_len = REPLICATION_CHUNK * command.item_len.max(1);
            let mut items = command.items.chunks(chunk_len);
            let mut first = true;
            loop {
                let chunk = items.next();
                if chunk.is_none() && !first {
                    break;
                }
                first = false;
                args.clear();
                args.push(CallArg::Str(&effects.keys[command.key]));
                args.extend(command.fixed.iter().map(Word::as_call_arg));
                args.extend(chunk.unwrap_or(&[]).iter().map(Word::as_call_arg));
                self.replicate(command.name, &args);
            }
        }
        for event in &effects.events {
            let key = &effects.keys[event.key];
            self.notify(event.class, event.name, key);
            // A DELAY.BPOLL waiting on the key may have something now.
            if event.class == EventClass::Zset && !native::REMOVING_EVENTS.contains(&event.name) {
                self.wake_waiters(key);
            }
        }
        for key in &effects.keys {
            self.signal_modified(key);
        }
    }
}

/// The events and the commands writes replay as, for key handles.
pub(super) mod native {
    use std::ffi::CStr;

    use super::super::Native;
    use super::EventClass;

    // Every key-handle write needs these (`Native::RECORDED`); PERSIST only
    // `Zset::persist`, RENAME only `Ctx::rename`.
    pub const ZADD: &CStr = Native::Zadd.name();
    pub const ZREM: &CStr = Native::Zrem.name();
    pub const ZREMRANGEBYSCORE: &CStr = Native::Zremrangebyscore.name();
    pub const PEXPIREAT: &CStr = Native::Pexpireat.name();
    pub const PERSIST: &CStr = Native::Persist.name();
    pub const UNLINK: &CStr = Native::Unlink.name();
    pub const RENAME: &CStr = Native::Rename.name();

    pub const ZADD_EVENT: (EventClass, &CStr) = (EventClass::Zset, c"zadd");
    pub const ZINCR_EVENT: (EventClass, &CStr) = (EventClass::Zset, c"zincr");
    pub const ZREM_EVENT: (EventClass, &CStr) = (EventClass::Zset, c"zrem");
    pub const ZREMRANGEBYSCORE_EVENT: (EventClass, &CStr) = (EventClass::Zset, c"zremrangebyscore");
    pub const EXPIRE_EVENT: (EventClass, &CStr) = (EventClass::Generic, c"expire");
    pub const PERSIST_EVENT: (EventClass, &CStr) = (EventClass::Generic, c"persist");
    pub const DEL_EVENT: (EventClass, &CStr) = (EventClass::Generic, c"del");

    /// The zset events of writes that only remove members, after which no
    /// waiter has anything new; every other zset event may have added one.
    pub const REMOVING_EVENTS: &[&CStr] = &[ZREM_EVENT.1, ZREMRANGEBYSCORE_EVENT.1];
}
