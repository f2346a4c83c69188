//! The effects recorder: every write a key handle makes is recorded here as
//! the native command that replays it (`ZADD key <exact score> member`,
//! `ZREM`, `ZREMRANGEBYSCORE`, `PEXPIREAT`, `PERSIST`, `UNLINK`, `RENAME`), with the keyspace event
//! the native command fires. When the `Ctx` of the call ends, the recorder
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

use std::collections::HashMap;
use std::ffi::{c_char, c_int, CStr};
use std::ops::Range;

use redis_module::raw;
use smallvec::SmallVec;

use super::api;
use super::call::{replicate, whole_number, CallArg};
use super::string::OwnedRStr;
use super::string::RStr;

/// The most items one replicated command carries: a write of many members
/// goes out as several commands of at most this many (all in the call's one
/// MULTI/EXEC), so no single command grows without bound.
pub const REPLICATION_CHUNK: usize = 512;

/// A server string kept for the end of the call. One of the call's own
/// arguments is borrowed: the server frees argv only after the command
/// returns, and the call's `Ctx` (whose end flushes the effects) ends
/// inside it. Any other string (a member read from a key) gets a reference
/// of its own.
#[derive(Debug)]
pub(super) enum Kept {
    /// Points into the call's argv (see [`Kept::of`]).
    Arg(*const RStr),
    Own(OwnedRStr),
}

impl Kept {
    fn get(&self) -> &RStr {
        match self {
            // SAFETY: an argv entry, alive until the command returns, after
            // the effects are flushed and dropped (see the type's doc).
            Kept::Arg(arg) => unsafe { &**arg },
            Kept::Own(own) => own,
        }
    }
}

impl Kept {
    /// `s` kept until the call ends: borrowed when it is one of the call's
    /// arguments (`args`, its argv: no reference to take and drop), else
    /// retained.
    pub(super) fn of(s: &RStr, args: &Range<*const RStr>) -> Kept {
        let at: *const RStr = s;
        if args.contains(&at) {
            Kept::Arg(at)
        } else {
            Kept::Own(s.retain())
        }
    }
}

/// The keyspace-event class of a notification, as `notify-keyspace-events`
/// filters it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventClass {
    Generic,
    Zset,
    Hash,
}

impl EventClass {
    pub(super) fn bits(self) -> c_int {
        (match self {
            EventClass::Generic => raw::REDISMODULE_NOTIFY_GENERIC,
            EventClass::Zset => raw::REDISMODULE_NOTIFY_ZSET,
            EventClass::Hash => raw::REDISMODULE_NOTIFY_HASH,
        }) as c_int
    }
}

/// A value in a replicated command: a server string, a number, or a literal.
#[derive(Debug)]
pub(super) enum Word {
    Str(Kept),
    Float(f64),
    Int(i64),
    Literal(&'static [u8]),
}

impl Word {
    fn as_call_arg(&self) -> CallArg<'_> {
        match self {
            Word::Str(s) => CallArg::Str(s.get()),
            Word::Float(f) => CallArg::Float(*f),
            Word::Int(n) => CallArg::Int(*n),
            Word::Literal(bytes) => CallArg::Bytes(bytes),
        }
    }
}

/// One native command to replicate: `name key fixed... items...`, its
/// words in [`Effects::words`] from `start` (to the next command's start).
/// Items come in groups of `item_len` words (a member, or a score and a
/// member), and consecutive writes of the same command to the same key
/// share one command.
#[derive(Debug)]
struct Replicated {
    name: &'static CStr,
    /// Index into [`Effects::keys`].
    key: usize,
    start: usize,
    /// How many of its words come between the key and the items.
    fixed_len: usize,
    item_len: usize,
}

#[derive(Debug)]
struct Event {
    class: EventClass,
    name: &'static CStr,
    key: usize,
}

/// The most keys [`Effects::key`] compares one by one. Past them it finds a
/// key by name in an index, so that a call writing thousands of keys
/// (RANK.MGIFT) records in time linear in them, while the usual few keys
/// allocate nothing.
const KEYS_COMPARED: usize = 8;

/// What one call wrote, waiting for the call to end: flat lists held
/// inline for the usual call (one key, one or two commands), so recording
/// allocates nothing and the flush is one pass.
#[derive(Debug, Default)]
pub(super) struct Effects {
    /// Every key written, once: each is signalled as modified at the end.
    keys: SmallVec<[Kept; 2]>,
    /// Where each key stands in `keys`, by name, once there are more than
    /// [`KEYS_COMPARED`].
    key_index: Option<HashMap<Box<[u8]>, usize>>,
    replicated: SmallVec<[Replicated; 3]>,
    /// The words of every replicated command after its key, in order
    /// (inline: an add, a trim and an expiry, as RECENT.ADD makes).
    words: SmallVec<[Word; 8]>,
    events: SmallVec<[Event; 3]>,
    /// A write command ran through RM_Call with replication on: the server
    /// replicates and announces it itself.
    pub(super) called_a_write: bool,
}

impl Effects {
    /// Whether the call has written nothing yet.
    pub(super) fn is_empty(&self) -> bool {
        self.keys.is_empty() && !self.called_a_write
    }

    /// The index of `key` in [`Effects::keys`], added if new (kept as
    /// [`Kept::of`] keeps it, among the call's `args`).
    fn key(&mut self, args: &Range<*const RStr>, key: &RStr) -> usize {
        let found = match &self.key_index {
            Some(index) => index.get(key.as_bytes()).copied(),
            None => self.keys.iter().position(|k| {
                let k = k.get();
                k.as_ptr() == key.as_ptr() || k.as_bytes() == key.as_bytes()
            }),
        };
        if let Some(at) = found {
            return at;
        }
        let at = self.keys.len();
        self.keys.push(Kept::of(key, args));
        match &mut self.key_index {
            Some(index) => {
                index.insert(key.as_bytes().into(), at);
            }
            None if self.keys.len() > KEYS_COMPARED => {
                let names = self.keys.iter().map(|k| k.get().as_bytes().into());
                self.key_index = Some(names.zip(0..).collect());
            }
            None => {}
        }
        at
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
pub(super) struct Write<'a, const FIXED: usize, const ITEM: usize> {
    pub command: &'static CStr,
    pub key: &'a RStr,
    /// Words between the key and the items (`-inf <cutoff>`, `<unix-ms>`).
    pub fixed: [Word; FIXED],
    /// One item (`[score, member]`, `[member]`), or none.
    pub item: [Word; ITEM],
    /// The keyspace event of the write, if it fires one of its own.
    pub event: Option<(EventClass, &'static CStr)>,
}

impl Effects {
    /// Records a write the call (whose argv is `args`) made, to replicate
    /// and announce when the call ends.
    pub(super) fn record<const FIXED: usize, const ITEM: usize>(
        &mut self,
        args: &Range<*const RStr>,
        write: Write<'_, FIXED, ITEM>,
    ) {
        let effects = self;
        let key = effects.key(args, write.key);
        // The last command's words end the list: an item of the same
        // command to the same key joins it.
        let joins = ITEM > 0
            && FIXED == 0
            && effects.replicated.last().is_some_and(|last| {
                last.name == write.command
                    && last.key == key
                    && last.item_len == ITEM
                    && last.fixed_len == 0
            });
        if !joins {
            effects.replicated.push(Replicated {
                name: write.command,
                key,
                start: effects.words.len(),
                fixed_len: FIXED,
                item_len: ITEM,
            });
            for word in write.fixed {
                effects.words.push(word);
            }
        }
        for word in write.item {
            effects.words.push(word);
        }
        if let Some(event) = write.event {
            effects.event(event, key);
        }
    }

    /// Records a keyspace event with no write of its own (`del` when the
    /// last member of a key was removed, the event of a `*STORE`).
    pub(super) fn record_event(
        &mut self,
        args: &Range<*const RStr>,
        event: (EventClass, &'static CStr),
        key: &RStr,
    ) {
        let key = self.key(args, key);
        self.event(event, key);
    }

    /// Replicates, announces and signals what the call wrote, in its
    /// context `ctx`: `notify` fires an event (and wakes who waits on its
    /// key), `signal` tells WATCH and client-side caching of a key.
    pub(super) fn flush(
        &self,
        ctx: *mut raw::RedisModuleCtx,
        mut notify: impl FnMut(EventClass, &CStr, &RStr),
        mut signal: impl FnMut(&RStr),
    ) {
        if self.keys.is_empty() {
            return;
        }
        for (i, command) in self.replicated.iter().enumerate() {
            let end = self
                .replicated
                .get(i + 1)
                .map_or(self.words.len(), |next| next.start);
            let (fixed, items) = self.words[command.start..end].split_at(command.fixed_len);
            let key = self.keys[command.key].get();
            if items.is_empty() {
                Self::replicate_words(ctx, command.name, key, fixed, &[]);
            }
            for chunk in items.chunks(REPLICATION_CHUNK * command.item_len.max(1)) {
                Self::replicate_words(ctx, command.name, key, fixed, chunk);
            }
        }
        for event in &self.events {
            notify(event.class, event.name, self.keys[event.key].get());
        }
        for key in &self.keys {
            signal(key.get());
        }
    }

    /// Replicates `name key fixed... items...`. The usual command (a few
    /// words) goes out in one RM_Replicate whose format spells each word
    /// in the form the server builds its own string from: strings as they
    /// are (`s`), numbers as text formatted here on the stack (`b`: the
    /// server makes one compact string of it, where `l` costs it a second
    /// allocation); no string is created or freed here. Longer ones go as
    /// a vector of strings.
    fn replicate_words(
        ctx: *mut raw::RedisModuleCtx,
        name: &CStr,
        key: &RStr,
        fixed: &[Word],
        items: &[Word],
    ) {
        let mut format = [0u8; SLOTS + 1];
        let mut slots = [0usize; SLOTS];
        let (mut letters, mut used) = (0, 0);
        let mut push = |letter: u8, values: &[usize]| -> bool {
            if used + values.len() > SLOTS {
                return false;
            }
            format[letters] = letter;
            letters += 1;
            slots[used..used + values.len()].copy_from_slice(values);
            used += values.len();
            true
        };
        // Numbers' texts: the buffers stay where they are until the call
        // below, so the pointers into them stay valid.
        let mut digits = [itoa::Buffer::new(); TEXTS];
        let mut shortest = [ryu::Buffer::new(); TEXTS];
        let (mut digits_used, mut shortest_used) = (0, 0);
        let mut integer = |n: i64| -> Option<(usize, usize)> {
            let text = digits.get_mut(digits_used)?.format(n);
            digits_used += 1;
            Some((text.as_ptr() as usize, text.len()))
        };
        let mut double = |f: f64| -> Option<(usize, usize)> {
            let text = shortest.get_mut(shortest_used)?.format(f);
            shortest_used += 1;
            Some((text.as_ptr() as usize, text.len()))
        };
        let mut fits = push(b's', &[key.as_ptr() as usize]);
        for word in fixed.iter().chain(items) {
            let bytes = match word {
                Word::Str(s) => {
                    fits = push(b's', &[s.get().as_ptr() as usize]);
                    if !fits {
                        break;
                    }
                    continue;
                }
                Word::Literal(bytes) => Some((bytes.as_ptr() as usize, bytes.len())),
                Word::Int(n) => integer(*n),
                Word::Float(f) => match whole_number(*f) {
                    Some(n) => integer(n),
                    None => double(*f),
                },
            };
            fits = bytes.is_some_and(|(ptr, len)| push(b'b', &[ptr, len]));
            if !fits {
                break;
            }
        }
        if !fits {
            let args: SmallVec<[CallArg; 8]> = std::iter::once(CallArg::Str(key))
                .chain(fixed.iter().chain(items).map(Word::as_call_arg))
                .collect();
            replicate(ctx, name, &args);
            return;
        }
        let s = slots;
        // SAFETY: valid context; `format` is NUL-terminated and its letters
        // take the slots in order: `s` a string pointer, `b` a pointer to
        // bytes and their length, all alive until the call returns (the
        // server copies or takes its own references). Every slot is one
        // 64-bit integer-class variadic argument, as a pointer and a
        // `size_t` are on every 64-bit ABI zkit builds for; the slots past
        // the format's are not read.
        let status = unsafe {
            api!(RedisModule_Replicate)(
                ctx,
                name.as_ptr(),
                format.as_ptr().cast::<c_char>(),
                s[0],
                s[1],
                s[2],
                s[3],
                s[4],
                s[5],
                s[6],
                s[7],
                s[8],
                s[9],
                s[10],
                s[11],
                s[12],
                s[13],
                s[14],
                s[15],
            )
        };
        debug_assert_eq!(status, raw::REDISMODULE_OK as c_int);
    }
}

/// Variadic slots one RM_Replicate call takes on the fast path: enough for
/// a `ZADD` of five scored members.
const SLOTS: usize = 16;

/// Numbers of each kind (whole, not) formatted on the stack per command
/// on the fast path.
const TEXTS: usize = 5;

/// The events and the commands writes replay as, for key handles.
pub(super) mod native {
    use std::ffi::CStr;

    use super::super::call::Native;
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

    pub const HSET: &CStr = Native::Hset.name();
    pub const HDEL: &CStr = Native::Hdel.name();

    pub const ZADD_EVENT: (EventClass, &CStr) = (EventClass::Zset, c"zadd");
    pub const ZINCR_EVENT: (EventClass, &CStr) = (EventClass::Zset, c"zincr");
    pub const ZREM_EVENT: (EventClass, &CStr) = (EventClass::Zset, c"zrem");
    pub const ZREMRANGEBYSCORE_EVENT: (EventClass, &CStr) = (EventClass::Zset, c"zremrangebyscore");
    pub const EXPIRE_EVENT: (EventClass, &CStr) = (EventClass::Generic, c"expire");
    pub const PERSIST_EVENT: (EventClass, &CStr) = (EventClass::Generic, c"persist");
    pub const DEL_EVENT: (EventClass, &CStr) = (EventClass::Generic, c"del");
    pub const HSET_EVENT: (EventClass, &CStr) = (EventClass::Hash, c"hset");
    pub const HDEL_EVENT: (EventClass, &CStr) = (EventClass::Hash, c"hdel");

    /// The zset events of writes that only remove members, after which no
    /// waiter has anything new; every other zset event may have added one.
    pub const REMOVING_EVENTS: &[&CStr] = &[ZREM_EVENT.1, ZREMRANGEBYSCORE_EVENT.1];
}
