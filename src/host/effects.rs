//! The effects recorder: every write a key handle makes is recorded here as
//! the native command that replays it (`ZADD key <exact score> member`,
//! `ZREM`, `ZREMRANGEBYSCORE`, `PEXPIREAT`, `DEL`), with the keyspace event
//! the native command fires. When the [`Ctx`] of the call ends, the recorder
//! replicates them (the server wraps a call's propagation in one
//! `MULTI`/`EXEC`), fires the events, and signals the modified keys to WATCH
//! and client-side caching, in one place. So a module-less replica and the
//! AOF stay identical by construction: command code never pairs a write with
//! a replicate call by hand.
//!
//! Effects are flushed even when the call failed or panicked after writing:
//! what was written must reach replicas. Commands check everything before
//! their first write, and the dispatcher asserts (in debug builds) that a
//! failed call wrote nothing.
//!
//! Writes made through RM_Call with replication on (`Ctx::call_replicated`,
//! for sets, which the key API cannot write) are replicated and notified by
//! the server itself, in call order before this call's recorded effects.

use std::ffi::CStr;

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

/// One native command to replicate: `name key fixed... items...`. Items
/// come in groups of `item_len` words (a member, or a score and a member),
/// and consecutive writes of the same command to the same key share one
/// command.
#[derive(Debug)]
struct Replicated {
    name: &'static CStr,
    key: OwnedRStr,
    fixed: Vec<Word>,
    items: Vec<Word>,
    item_len: usize,
}

#[derive(Debug)]
struct Event {
    class: EventClass,
    name: &'static CStr,
    key: OwnedRStr,
}

/// What one call wrote, waiting for the call to end.
#[derive(Debug, Default)]
pub(super) struct Effects {
    replicated: Vec<Replicated>,
    events: Vec<Event>,
    modified: Vec<OwnedRStr>,
    /// A write command ran through RM_Call with replication on: the server
    /// replicates and announces it itself.
    pub(super) called_a_write: bool,
}

impl Effects {
    fn is_empty(&self) -> bool {
        self.replicated.is_empty() && self.modified.is_empty() && !self.called_a_write
    }
}

/// How a write is replayed and announced.
pub(super) struct Write<'a> {
    pub command: &'static CStr,
    pub key: &'a RStr,
    /// Words between the key and the items (`-inf <cutoff>`, `<unix-ms>`).
    pub fixed: Vec<Word>,
    /// One item (`[score, member]`, `[member]`), or none.
    pub item: Vec<Word>,
    /// The keyspace event of the write, if it fires one of its own.
    pub event: Option<(EventClass, &'static CStr)>,
}

impl Ctx {
    /// Records a write this call made, to replicate and announce when the
    /// call ends.
    pub(super) fn record(&self, write: Write<'_>) {
        let mut effects = self.effects.borrow_mut();
        let effects = &mut *effects;
        let item_len = write.item.len();
        let batch = effects.replicated.last_mut().filter(|last| {
            item_len > 0
                && last.name == write.command
                && last.item_len == item_len
                && last.fixed.is_empty()
                && write.fixed.is_empty()
                && last.key.as_bytes() == write.key.as_bytes()
        });
        match batch {
            Some(last) => last.items.extend(write.item),
            None => effects.replicated.push(Replicated {
                name: write.command,
                key: write.key.retain(),
                fixed: write.fixed,
                items: write.item,
                item_len,
            }),
        }
        if let Some(event) = write.event {
            self.record_event(&mut effects.events, event, write.key);
        }
        if !effects
            .modified
            .iter()
            .any(|key| key.as_bytes() == write.key.as_bytes())
        {
            effects.modified.push(write.key.retain());
        }
    }

    /// Records a keyspace event with no write of its own (`del` when the
    /// last member of a key was removed).
    pub(super) fn record_event_only(&self, event: (EventClass, &'static CStr), key: &RStr) {
        let mut effects = self.effects.borrow_mut();
        self.record_event(&mut effects.events, event, key);
    }

    /// An event fires once for a run of writes of one kind to one key, as
    /// the native command that makes them all fires it once.
    fn record_event(
        &self,
        events: &mut Vec<Event>,
        event: (EventClass, &'static CStr),
        key: &RStr,
    ) {
        let (class, name) = event;
        let repeated = events.last().is_some_and(|last| {
            last.class == class && last.name == name && last.key.as_bytes() == key.as_bytes()
        });
        if !repeated {
            events.push(Event {
                class,
                name,
                key: key.retain(),
            });
        }
    }

    /// Whether this call has written anything yet.
    pub(super) fn has_written(&self) -> bool {
        !self.effects.borrow().is_empty()
    }

    /// Replicates, announces and signals what this call wrote; called when
    /// the call ends (see `Ctx`'s `Drop`).
    pub(super) fn flush_effects(&self) {
        let effects = std::mem::take(&mut *self.effects.borrow_mut());
        for command in &effects.replicated {
            let head = std::iter::once(CallArg::Str(&command.key))
                .chain(command.fixed.iter().map(Word::as_call_arg));
            if command.items.is_empty() {
                self.replicate(command.name, &head.collect::<Vec<_>>());
                continue;
            }
            for chunk in command.items.chunks(REPLICATION_CHUNK * command.item_len) {
                let args: Vec<CallArg> = head
                    .clone()
                    .chain(chunk.iter().map(Word::as_call_arg))
                    .collect();
                self.replicate(command.name, &args);
            }
        }
        for event in &effects.events {
            self.notify(event.class, event.name, &event.key);
        }
        for key in &effects.modified {
            self.signal_modified(key);
        }
    }
}

/// The events and the commands writes replay as, for key handles.
pub(super) mod native {
    use std::ffi::CStr;

    use super::EventClass;

    pub const ZADD: &CStr = c"ZADD";
    pub const ZREM: &CStr = c"ZREM";
    pub const ZREMRANGEBYSCORE: &CStr = c"ZREMRANGEBYSCORE";
    pub const PEXPIREAT: &CStr = c"PEXPIREAT";
    pub const DEL: &CStr = c"DEL";

    pub const ZADD_EVENT: (EventClass, &CStr) = (EventClass::Zset, c"zadd");
    pub const ZINCR_EVENT: (EventClass, &CStr) = (EventClass::Zset, c"zincr");
    pub const ZREM_EVENT: (EventClass, &CStr) = (EventClass::Zset, c"zrem");
    pub const ZREMRANGEBYSCORE_EVENT: (EventClass, &CStr) = (EventClass::Zset, c"zremrangebyscore");
    pub const EXPIRE_EVENT: (EventClass, &CStr) = (EventClass::Generic, c"expire");
    pub const DEL_EVENT: (EventClass, &CStr) = (EventClass::Generic, c"del");
}
