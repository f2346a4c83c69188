use std::ffi::c_int;
use std::ptr::NonNull;

use redis_module::raw;

use super::api;
use super::call::CallArg;
use super::call::Native;
use super::ctx::Ctx;
use super::effects::EventClass;
use super::effects::{native, Word, Write};
use super::error::HostError;
use super::string::OwnedRStr;
use super::string::RStr;

/// A sorted-set key opened on the low-level key API. Absent keys open as
/// empty (and, when writable, are created by the first add); keys of another
/// type are refused with WRONGTYPE before anything is touched. Closed when
/// dropped.
///
/// Every write that changes something is recorded (`effects.rs`) as the
/// native command that replays it, and replicated, announced and signalled
/// to WATCH when the call ends; a write that changes nothing records nothing
/// and leaves WATCH alone, as with native commands (the module turns the
/// server's implicit signal off, `declare_module_options`).
pub struct Zset<'c> {
    key: NonNull<raw::RedisModuleKey>,
    /// For writable keys: the context that records writes, and the key name.
    writer: Option<(&'c Ctx, &'c RStr)>,
    /// A member was removed: if that emptied the key, `del` fires too.
    removed: bool,
}

/// One end of a score range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScoreBound {
    Inclusive(f64),
    Exclusive(f64),
}

impl ScoreBound {
    pub const MIN: ScoreBound = ScoreBound::Inclusive(f64::NEG_INFINITY);
    pub const MAX: ScoreBound = ScoreBound::Inclusive(f64::INFINITY);

    fn parts(self) -> (f64, c_int) {
        match self {
            ScoreBound::Inclusive(v) => (v, 0),
            ScoreBound::Exclusive(v) => (v, 1),
        }
    }
}

impl Ctx {
    /// Opens a sorted set for reading; `None` when the key does not exist.
    pub fn open_zset(&self, name: &RStr) -> Result<Option<Zset<'_>>, HostError> {
        self.open_typed(
            name,
            raw::REDISMODULE_READ,
            raw::REDISMODULE_KEYTYPE_ZSET as u32,
        )
        .map(|key| key.map(|key| Zset::wrap(key, None)))
    }

    /// Opens a sorted set for writing, absent or not. Refused on a server
    /// without one of the commands writes replicate as
    /// ([`Native::RECORDED`]), before anything is written.
    pub fn open_zset_mut<'a>(&'a self, name: &'a RStr) -> Result<Zset<'a>, HostError> {
        self.require(&Native::RECORDED)?;
        let key = self.open_typed(
            name,
            raw::REDISMODULE_READ | raw::REDISMODULE_WRITE,
            raw::REDISMODULE_KEYTYPE_ZSET as u32,
        )?;
        let key = key.expect("a writable key always opens");
        Ok(Zset::wrap(key, Some((self, name))))
    }

    /// Whether this server has every command key-handle writes replicate as
    /// ([`Native::RECORDED`]): when not, [`Ctx::open_zset_mut`] refuses.
    pub fn can_record_writes(&self) -> bool {
        self.require(&Native::RECORDED).is_ok()
    }

    /// Checks that a key is absent or holds `expected` without keeping it open,
    /// so a command can validate every key before it writes any.
    pub fn check_key_type(&self, name: &RStr, expected: KeyKind) -> Result<(), HostError> {
        self.key_len(name, expected).map(|_| ())
    }

    /// The number of elements of a key that must be absent (0) or hold
    /// `expected`: SCARD, ZCARD or HLEN without a native call, and the same
    /// WRONGTYPE check as [`Ctx::check_key_type`].
    pub fn key_len(&self, name: &RStr, expected: KeyKind) -> Result<usize, HostError> {
        let Some(key) = self.open_typed(name, raw::REDISMODULE_READ, expected.code())? else {
            return Ok(0);
        };
        // SAFETY: the key was opened above, is read once and closed once.
        unsafe {
            let len = api!(RedisModule_ValueLength)(key.as_ptr());
            api!(RedisModule_CloseKey)(key.as_ptr());
            Ok(len)
        }
    }

    /// Replaces `name` with a sorted set of `members`, as a native `*STORE`
    /// command does: recorded as `UNLINK` (when the key existed) and
    /// `ZADD`s, firing `event` (the storing command's, e.g. `zunionstore`),
    /// or `del` when nothing is stored over an existing key. The old value
    /// is freed as UNLINK frees it, in the background when it is large, on
    /// this server and on its replicas.
    pub fn store_zset(
        &self,
        name: &RStr,
        members: &[(OwnedRStr, f64)],
        event: &'static std::ffi::CStr,
    ) -> Result<(), HostError> {
        // The event is the store's, below.
        let existed = self.unlink_as(name, None)?;
        if members.is_empty() {
            if existed {
                self.record_event_only(native::DEL_EVENT, name);
            }
            return Ok(());
        }
        let key = self.open_typed(
            name,
            raw::REDISMODULE_READ | raw::REDISMODULE_WRITE,
            raw::REDISMODULE_KEYTYPE_ZSET as u32,
        )?;
        let mut zset = Zset::wrap(key.expect("a writable key always opens"), None);
        for (member, score) in members {
            zset.raw_add(member, *score)?;
            self.record(Write {
                command: native::ZADD,
                key: name,
                fixed: [],
                item: [Word::Float(*score), self.word(member)],
                event: None,
            });
        }
        drop(zset);
        self.record_event_only((EventClass::Zset, event), name);
        Ok(())
    }

    /// Whether a key of any type exists.
    pub fn key_exists(&self, name: &RStr) -> bool {
        // SAFETY: valid context and key name; a read-only open of an absent
        // key returns NULL, any other handle is closed before return.
        unsafe {
            let key = api!(RedisModule_OpenKey)(
                self.as_ptr(),
                name.as_ptr(),
                raw::REDISMODULE_READ as c_int,
            );
            if key.is_null() {
                return false;
            }
            api!(RedisModule_CloseKey)(key);
            true
        }
    }

    /// Deletes a key of any type as `UNLINK` does (a large value is freed
    /// in the background, here and on replicas); true if it existed.
    pub fn unlink(&self, name: &RStr) -> Result<bool, HostError> {
        self.unlink_as(name, Some(native::DEL_EVENT))
    }

    /// Moves the value of `from` onto `to` in O(1), as `RENAME` does, and
    /// replicates `RENAME`. `from` must exist; `to` should be absent (call
    /// [`Ctx::unlink`] first), or RENAME frees its value itself, inline
    /// unless `lazyfree-lazy-server-del` is on.
    pub fn rename(&self, from: &RStr, to: &RStr) -> Result<(), HostError> {
        self.require(&Native::RECORDED)?;
        // The key API has no rename; RENAME through RM_Call fires its own
        // events (`rename_from`, `rename_to`) and signals both keys. Not
        // replicated by the server: recorded with this call's other effects,
        // so it reaches replicas after the writes before it.
        self.call(Native::Rename, &[CallArg::Str(from), CallArg::Str(to)])?;
        self.record(Write {
            command: native::RENAME,
            key: from,
            fixed: [self.word(to)],
            item: [],
            event: None,
        });
        Ok(())
    }

    /// Deletes a key of any type as `UNLINK` does, recorded as `UNLINK` with
    /// `event`; true if it existed.
    fn unlink_as(
        &self,
        name: &RStr,
        event: Option<(EventClass, &'static std::ffi::CStr)>,
    ) -> Result<bool, HostError> {
        self.require(&Native::RECORDED)?;
        // SAFETY: valid context and key name; the key is closed before return.
        let existed = unsafe {
            let key = api!(RedisModule_OpenKey)(
                self.as_ptr(),
                name.as_ptr(),
                (raw::REDISMODULE_READ | raw::REDISMODULE_WRITE) as c_int,
            );
            let existed = api!(RedisModule_KeyType)(key) != raw::REDISMODULE_KEYTYPE_EMPTY as c_int;
            if existed {
                api!(RedisModule_UnlinkKey)(key);
            }
            api!(RedisModule_CloseKey)(key);
            existed
        };
        if existed {
            self.record(Write {
                command: native::UNLINK,
                key: name,
                fixed: [],
                item: [],
                event,
            });
        }
        Ok(existed)
    }

    pub(super) fn open_typed(
        &self,
        name: &RStr,
        mode: u32,
        expected: u32,
    ) -> Result<Option<NonNull<raw::RedisModuleKey>>, HostError> {
        // SAFETY: valid context and key name. A read-only open of an absent
        // key returns NULL; a writable open always returns a handle.
        let key = unsafe { api!(RedisModule_OpenKey)(self.as_ptr(), name.as_ptr(), mode as c_int) };
        let Some(key) = NonNull::new(key) else {
            return Ok(None);
        };
        // SAFETY: `key` was just opened.
        let kind = unsafe { api!(RedisModule_KeyType)(key.as_ptr()) } as u32;
        if kind != expected && kind != raw::REDISMODULE_KEYTYPE_EMPTY as u32 {
            // SAFETY: closed once, never used again.
            unsafe { api!(RedisModule_CloseKey)(key.as_ptr()) };
            return Err(HostError::WrongType);
        }
        Ok(Some(key))
    }
}

/// The native type a key must hold, for [`Ctx::check_key_type`].
#[derive(Clone, Copy, Debug)]
pub enum KeyKind {
    Zset,
    Set,
    Hash,
}

impl KeyKind {
    fn code(self) -> u32 {
        match self {
            KeyKind::Zset => raw::REDISMODULE_KEYTYPE_ZSET as u32,
            KeyKind::Set => raw::REDISMODULE_KEYTYPE_SET as u32,
            KeyKind::Hash => raw::REDISMODULE_KEYTYPE_HASH as u32,
        }
    }
}

impl<'c> Zset<'c> {
    pub(super) fn wrap(
        key: NonNull<raw::RedisModuleKey>,
        writer: Option<(&'c Ctx, &'c RStr)>,
    ) -> Zset<'c> {
        Zset {
            key,
            writer,
            removed: false,
        }
    }

    pub(super) fn ptr(&self) -> *mut raw::RedisModuleKey {
        self.key.as_ptr()
    }

    /// Whether writes through this handle are allowed (and recorded).
    pub fn is_writable(&self) -> bool {
        self.writer.is_some()
    }

    /// The number of members (0 for an absent key).
    pub fn len(&self) -> usize {
        // SAFETY: open key.
        unsafe { api!(RedisModule_ValueLength)(self.ptr()) }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn score(&self, member: &RStr) -> Option<f64> {
        let mut score = 0.0;
        // SAFETY: open key and valid member; ERR means "no such member".
        let status =
            unsafe { api!(RedisModule_ZsetScore)(self.ptr(), member.as_ptr(), &mut score) };
        (status == raw::REDISMODULE_OK as c_int).then_some(score)
    }

    /// Sets a member's score, as `ZADD`; true if the member was new. The
    /// score must not be NaN (callers validate input first).
    pub fn add(&mut self, member: &RStr, score: f64) -> Result<bool, HostError> {
        self.add_as(member, score, native::ZADD_EVENT)
    }

    /// Adds a member that is not there yet, as `ZADD NX`, in one lookup;
    /// false (and nothing changed) if it is there. Replayed as `ZADD`: the
    /// replica lacks the member too.
    pub fn add_new(&mut self, member: &RStr, score: f64) -> Result<bool, HostError> {
        let added = self.raw_add_new(member, score)?;
        if added {
            self.record(Write {
                command: native::ZADD,
                key: self.name(),
                fixed: [],
                item: [Word::Float(score), self.word(member)],
                event: Some(native::ZADD_EVENT),
            });
        }
        Ok(added)
    }

    /// Sets a member's score to the result of an increment the caller
    /// computed, as `ZINCRBY` would leave it: replayed as `ZADD` with the
    /// exact score, announced as `zincr`.
    pub fn add_incremented(&mut self, member: &RStr, score: f64) -> Result<bool, HostError> {
        self.add_as(member, score, native::ZINCR_EVENT)
    }

    fn add_as(
        &mut self,
        member: &RStr,
        score: f64,
        event: (EventClass, &'static std::ffi::CStr),
    ) -> Result<bool, HostError> {
        let flags = self.raw_add(member, score)?;
        let added = flags & raw::REDISMODULE_ZADD_ADDED as c_int != 0;
        if added || flags & raw::REDISMODULE_ZADD_UPDATED as c_int != 0 {
            self.record(Write {
                command: native::ZADD,
                key: self.name(),
                fixed: [],
                item: [Word::Float(score), self.word(member)],
                event: Some(event),
            });
        }
        Ok(added)
    }

    /// RedisModule_ZsetAdd, unrecorded; returns its output flags.
    pub(super) fn raw_add(&mut self, member: &RStr, score: f64) -> Result<c_int, HostError> {
        let mut flags: c_int = 0;
        // SAFETY: open writable key and valid member.
        let status =
            unsafe { api!(RedisModule_ZsetAdd)(self.ptr(), score, member.as_ptr(), &mut flags) };
        if status != raw::REDISMODULE_OK as c_int {
            return Err(HostError::Internal(format!(
                "RedisModule_ZsetAdd refused score {score}"
            )));
        }
        Ok(flags)
    }

    /// Adds a member that is not there yet (`NX`), unrecorded; false (and
    /// nothing changed) if it is there.
    pub(super) fn raw_add_new(&mut self, member: &RStr, score: f64) -> Result<bool, HostError> {
        let mut flags = raw::REDISMODULE_ZADD_NX as c_int;
        // SAFETY: open writable key and valid member.
        let status =
            unsafe { api!(RedisModule_ZsetAdd)(self.ptr(), score, member.as_ptr(), &mut flags) };
        if status != raw::REDISMODULE_OK as c_int {
            return Err(HostError::Internal(format!(
                "RedisModule_ZsetAdd refused score {score}"
            )));
        }
        Ok(flags & raw::REDISMODULE_ZADD_ADDED as c_int != 0)
    }

    /// Adds `delta` to a member's score in one lookup (an absent member
    /// starts at `delta`, as with ZINCRBY) and returns the new score: replayed
    /// as `ZADD` with that exact score, announced as `zincr`. The server
    /// refuses a NaN result (inf + -inf), as ZINCRBY does.
    pub fn incr(&mut self, member: &RStr, delta: f64) -> Result<f64, HostError> {
        let mut score = 0.0;
        // SAFETY: open writable key and valid member; no flags in or out.
        let status = unsafe {
            api!(RedisModule_ZsetIncrby)(
                self.ptr(),
                delta,
                member.as_ptr(),
                std::ptr::null_mut(),
                &mut score,
            )
        };
        if status != raw::REDISMODULE_OK as c_int {
            return Err(HostError::Internal(format!(
                "RedisModule_ZsetIncrby refused an increment of {delta}"
            )));
        }
        self.record(Write {
            command: native::ZADD,
            key: self.name(),
            fixed: [],
            item: [Word::Float(score), self.word(member)],
            event: Some(native::ZINCR_EVENT),
        });
        Ok(score)
    }

    /// Removes a member, as `ZREM`; true if it was there. Removing the last
    /// member deletes the key (and fires `del`), as native commands do.
    pub fn remove(&mut self, member: &RStr) -> bool {
        let deleted = self.raw_remove(member);
        if deleted {
            self.record(Write {
                command: native::ZREM,
                key: self.name(),
                fixed: [],
                item: [self.word(member)],
                event: Some(native::ZREM_EVENT),
            });
        }
        deleted
    }

    pub(super) fn raw_remove(&mut self, member: &RStr) -> bool {
        let mut deleted: c_int = 0;
        // SAFETY: open writable key and valid member.
        unsafe { api!(RedisModule_ZsetRem)(self.ptr(), member.as_ptr(), &mut deleted) };
        self.removed |= deleted != 0;
        deleted != 0
    }

    /// Removes the `count` lowest members, each as `ZREM`; returns how many.
    /// The key API cannot remove while it walks: they are read first.
    pub fn remove_lowest(&mut self, count: usize) -> usize {
        let doomed: smallvec::SmallVec<[OwnedRStr; 4]> = self
            .iter_asc(ScoreBound::MIN, ScoreBound::MAX)
            .take(count)
            .map(|(member, _)| member)
            .collect();
        for member in &doomed {
            self.remove(member);
        }
        doomed.len()
    }

    /// Removes every member scored at or below `max`, as
    /// `ZREMRANGEBYSCORE key -inf max`; returns how many.
    pub fn remove_up_to(&mut self, max: i64) -> usize {
        let doomed: Vec<OwnedRStr> = self
            .iter_asc(ScoreBound::MIN, ScoreBound::Inclusive(max as f64))
            .map(|(member, _)| member)
            .collect();
        for member in &doomed {
            self.raw_remove(member);
        }
        if !doomed.is_empty() {
            self.record(Write {
                command: native::ZREMRANGEBYSCORE,
                key: self.name(),
                fixed: [Word::Literal(b"-inf"), Word::Int(max)],
                item: [],
                event: Some(native::ZREMRANGEBYSCORE_EVENT),
            });
        }
        doomed.len()
    }

    /// Whether the key has a TTL.
    pub fn has_expiry(&self) -> bool {
        // SAFETY: open key.
        unsafe { api!(RedisModule_GetExpire)(self.ptr()) != raw::REDISMODULE_NO_EXPIRE as i64 }
    }

    /// Sets the key's expiry to an absolute unix time in milliseconds, as
    /// `PEXPIREAT` does. The key must exist: call after adding members.
    pub fn expire_at(&mut self, unix_ms: i64) -> Result<(), HostError> {
        // SAFETY: open writable key. Redis refuses (ERR) an empty key or a
        // negative time, which the caller maps to an internal error.
        let status = unsafe { api!(RedisModule_SetAbsExpire)(self.ptr(), unix_ms) };
        if status != raw::REDISMODULE_OK as c_int {
            return Err(HostError::Internal(format!(
                "RedisModule_SetAbsExpire refused {unix_ms}"
            )));
        }
        self.record(Write {
            command: native::PEXPIREAT,
            key: self.name(),
            fixed: [Word::Int(unix_ms)],
            item: [],
            event: Some(native::EXPIRE_EVENT),
        });
        Ok(())
    }

    /// When the key expires (unix ms), `None` when it has no TTL.
    pub fn expires_at(&self) -> Option<i64> {
        // SAFETY: open key.
        let at = unsafe { api!(RedisModule_GetAbsExpire)(self.ptr()) };
        (at != raw::REDISMODULE_NO_EXPIRE as i64).then_some(at)
    }

    /// Removes the key's TTL, as `PERSIST` does; false when it had none.
    /// Replicated as PERSIST: check [`Native::Persist`] before the call's
    /// first write ([`Ctx::require`]).
    pub fn persist(&mut self) -> bool {
        if self.expires_at().is_none() {
            return false;
        }
        // SAFETY: open writable key that exists (it has a TTL).
        unsafe { api!(RedisModule_SetExpire)(self.ptr(), raw::REDISMODULE_NO_EXPIRE as i64) };
        self.record(Write {
            command: native::PERSIST,
            key: self.name(),
            fixed: [],
            item: [],
            event: Some(native::PERSIST_EVENT),
        });
        true
    }

    /// The name of a writable key.
    pub(super) fn name(&self) -> &'c RStr {
        self.writer.expect("writes need a writable key").1
    }

    pub(super) fn record<const FIXED: usize, const ITEM: usize>(
        &self,
        write: Write<'_, FIXED, ITEM>,
    ) {
        self.writer().record(write);
    }

    /// A string word of a write this handle records.
    fn word(&self, s: &RStr) -> Word {
        self.writer().word(s)
    }

    fn writer(&self) -> &'c Ctx {
        self.writer.expect("writes need a writable key").0
    }

    /// How many members score within `[min, max]` if that is at most `most`
    /// (walking at most `most + 1` of them), else `None`: for callers that
    /// have an O(log N) way to count large ranges.
    pub fn count_at_most(
        &mut self,
        min: ScoreBound,
        max: ScoreBound,
        most: usize,
    ) -> Option<usize> {
        let mut walk = self.iter(min, max, Direction::Asc);
        let mut count = 0;
        while walk.step() {
            if count == most {
                return None;
            }
            count += 1;
        }
        Some(count)
    }

    /// Members from the highest score down, within `[min, max]`. Among equal
    /// scores the order is member descending: the exact reverse of ZRANGE.
    pub fn iter_desc(&mut self, min: ScoreBound, max: ScoreBound) -> ZsetIter<'_, 'c> {
        self.iter(min, max, Direction::Desc)
    }

    /// Members from the lowest score up, within `[min, max]`, as ZRANGE.
    pub fn iter_asc(&mut self, min: ScoreBound, max: ScoreBound) -> ZsetIter<'_, 'c> {
        self.iter(min, max, Direction::Asc)
    }

    fn iter(&mut self, min: ScoreBound, max: ScoreBound, direction: Direction) -> ZsetIter<'_, 'c> {
        let (lo, lo_ex) = min.parts();
        let (hi, hi_ex) = max.parts();
        // SAFETY: open key; an absent or empty key leaves the iterator at its
        // end, which `ZsetIter::next` checks first.
        unsafe {
            match direction {
                Direction::Asc => {
                    api!(RedisModule_ZsetFirstInScoreRange)(self.ptr(), lo, hi, lo_ex, hi_ex)
                }
                Direction::Desc => {
                    api!(RedisModule_ZsetLastInScoreRange)(self.ptr(), lo, hi, lo_ex, hi_ex)
                }
            }
        };
        ZsetIter {
            zset: self,
            direction,
            started: false,
        }
    }
}

impl Drop for Zset<'_> {
    fn drop(&mut self) {
        let emptied = self.removed && self.is_empty();
        // SAFETY: closed once; the handle is not used afterwards.
        unsafe { api!(RedisModule_CloseKey)(self.ptr()) }
        if let (true, Some((ctx, name))) = (emptied, self.writer) {
            ctx.record_event_only(native::DEL_EVENT, name);
        }
    }
}

#[derive(Clone, Copy)]
enum Direction {
    Asc,
    Desc,
}

/// A walk over a score range of a [`Zset`]. It borrows the key mutably, so the
/// set cannot change under it; collect what to change, drop it, then write.
pub struct ZsetIter<'z, 'c> {
    zset: &'z mut Zset<'c>,
    direction: Direction,
    started: bool,
}

impl ZsetIter<'_, '_> {
    /// Moves past the next `n` members without reading them (no string is
    /// made for them); false if the range ends first.
    pub fn pass(&mut self, n: usize) -> bool {
        (0..n).all(|_| self.step())
    }

    /// Moves to the next member of the range; false at its end.
    fn step(&mut self) -> bool {
        let key = self.zset.ptr();
        // SAFETY: the iterator was set up on this open key in `Zset::iter` and
        // nothing else touches the key while it is borrowed.
        unsafe {
            if self.started {
                let moved = match self.direction {
                    Direction::Asc => api!(RedisModule_ZsetRangeNext)(key),
                    Direction::Desc => api!(RedisModule_ZsetRangePrev)(key),
                };
                moved != 0
            } else {
                self.started = true;
                api!(RedisModule_ZsetRangeEndReached)(key) == 0
            }
        }
    }
}

impl Iterator for ZsetIter<'_, '_> {
    type Item = (OwnedRStr, f64);

    fn next(&mut self) -> Option<(OwnedRStr, f64)> {
        if !self.step() {
            return None;
        }
        let mut score = 0.0;
        // SAFETY: the iterator stands on a member of the open key.
        let member =
            unsafe { api!(RedisModule_ZsetRangeCurrentElement)(self.zset.ptr(), &mut score) };
        OwnedRStr::adopt(member).map(|member| (member, score))
    }
}

impl Drop for ZsetIter<'_, '_> {
    fn drop(&mut self) {
        // SAFETY: stops the iteration on the open key.
        unsafe { api!(RedisModule_ZsetRangeStop)(self.zset.ptr()) }
    }
}
