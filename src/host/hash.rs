use std::ffi::c_int;
use std::ptr::NonNull;

use redis_module::raw;

use super::api;
use super::call::Native;
use super::ctx::Ctx;
use super::effects::{native, Word, Write};
use super::error::HostError;
use super::string::bytes_of;
use super::string::OwnedRStr;
use super::string::RStr;

/// A hash key opened on the low-level key API: a job queue's data (a task's
/// payload and history, one field each). Absent keys open as empty (and,
/// when writable, are created by the first set); keys of another type are
/// refused with WRONGTYPE before anything is touched. Closed when dropped.
///
/// Every write that changes something is recorded (`effects.rs`) as the
/// native command that replays it (`HSET key field value`, `HDEL key
/// field`), as [`Zset`](super::zset::Zset)'s are.
pub struct Hash<'c> {
    key: NonNull<raw::RedisModuleKey>,
    /// For writable keys: the context that records writes, and the key name.
    writer: Option<(&'c Ctx, &'c RStr)>,
    /// A field was deleted: if that emptied the key, `del` fires too.
    deleted: bool,
}

/// What a hash write needs of the server: the commands it replicates as.
const HASH_WRITES: [Native; 2] = [Native::Hset, Native::Hdel];

impl Ctx {
    /// Opens a hash for reading; `None` when the key does not exist.
    pub fn open_hash(&self, name: &RStr) -> Result<Option<Hash<'_>>, HostError> {
        let key = self.open_typed(
            name,
            raw::REDISMODULE_READ,
            raw::REDISMODULE_KEYTYPE_HASH as u32,
        )?;
        Ok(key.map(|key| Hash {
            key,
            writer: None,
            deleted: false,
        }))
    }

    /// Opens a hash for writing, absent or not. Refused, before anything is
    /// written, on a server without the commands its writes replicate as.
    pub fn open_hash_mut<'a>(&'a self, name: &'a RStr) -> Result<Hash<'a>, HostError> {
        self.require(&HASH_WRITES)?;
        let key = self.open_typed(
            name,
            raw::REDISMODULE_READ | raw::REDISMODULE_WRITE,
            raw::REDISMODULE_KEYTYPE_HASH as u32,
        )?;
        Ok(Hash {
            key: key.expect("a writable key always opens"),
            writer: Some((self, name)),
            deleted: false,
        })
    }

    /// Refuses, as [`Ctx::open_hash_mut`] would, on a server without the
    /// commands hash writes replicate as: a command that may write a hash
    /// checks it before its first write, whatever the data.
    pub fn require_hash_writes(&self) -> Result<(), HostError> {
        self.require(&HASH_WRITES)
    }
}

impl Hash<'_> {
    fn ptr(&self) -> *mut raw::RedisModuleKey {
        self.key.as_ptr()
    }

    pub fn len(&self) -> usize {
        // SAFETY: open key.
        unsafe { api!(RedisModule_ValueLength)(self.ptr()) }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of `field`, or `None`.
    pub fn get(&self, field: &[u8]) -> Option<OwnedRStr> {
        self.get_str(&OwnedRStr::new(field))
    }

    /// The value of `field` (a short name without NUL bytes: a fixed field
    /// of zkit's own, such as a board's columns), passed to the server as
    /// a C string so that no server string is made for the name.
    pub fn get_cfield(&self, field: &[u8]) -> Option<OwnedRStr> {
        let mut name = [0u8; 32];
        if field.len() >= name.len() || field.contains(&0) {
            return self.get(field);
        }
        name[..field.len()].copy_from_slice(field);
        let mut value: *mut raw::RedisModuleString = std::ptr::null_mut();
        // SAFETY: open key; with REDISMODULE_HASH_CFIELDS the field is a
        // NUL-terminated C string (`name` holds the bytes and a NUL after
        // them, and outlives the call), then its output pointer and the
        // terminating NULL. The value is a new string outside automatic
        // memory, owned from here on.
        unsafe {
            api!(RedisModule_HashGet)(
                self.ptr(),
                raw::REDISMODULE_HASH_CFIELDS as c_int,
                name.as_ptr(),
                &mut value as *mut *mut raw::RedisModuleString,
                std::ptr::null_mut::<raw::RedisModuleString>(),
            );
        }
        OwnedRStr::adopt(value)
    }

    /// The value of the field named by a string the caller holds (a board
    /// member, as its page or the call's argument holds it), or `None`.
    pub fn get_str(&self, field: &RStr) -> Option<OwnedRStr> {
        let mut value: *mut raw::RedisModuleString = std::ptr::null_mut();
        // SAFETY: open key, a valid field string, one field and its output
        // pointer, then the terminating NULL the variadic call expects. The
        // value is a new string outside automatic memory (never enabled),
        // owned from here on.
        unsafe {
            api!(RedisModule_HashGet)(
                self.ptr(),
                raw::REDISMODULE_HASH_NONE as c_int,
                field.as_ptr(),
                &mut value as *mut *mut raw::RedisModuleString,
                std::ptr::null_mut::<raw::RedisModuleString>(),
            );
        }
        OwnedRStr::adopt(value)
    }

    /// Every field whose name starts with `prefix`, with its value, in the
    /// hash's own order: a walk of the whole hash (RM_ScanKey), for listings
    /// that are O(N) in its fields.
    pub fn fields_starting_with(&self, prefix: &[u8]) -> Vec<(Vec<u8>, OwnedRStr)> {
        struct Found<'p> {
            prefix: &'p [u8],
            fields: Vec<(Vec<u8>, OwnedRStr)>,
        }
        extern "C" fn each(
            _key: *mut raw::RedisModuleKey,
            field: *mut raw::RedisModuleString,
            value: *mut raw::RedisModuleString,
            data: *mut std::ffi::c_void,
        ) {
            // SAFETY: `data` is the `Found` the scan below was given, and
            // the strings are valid during the callback.
            unsafe {
                let found = &mut *data.cast::<Found<'_>>();
                let name = bytes_of(field);
                if name.starts_with(found.prefix) && !value.is_null() {
                    found
                        .fields
                        .push((name.to_vec(), OwnedRStr::new(bytes_of(value))));
                }
            }
        }
        let mut found = Found {
            prefix,
            fields: Vec::new(),
        };
        // SAFETY: open key; the cursor is made, used and destroyed here, and
        // `found` outlives every callback.
        unsafe {
            let cursor = api!(RedisModule_ScanCursorCreate)();
            while api!(RedisModule_ScanKey)(
                self.ptr(),
                cursor,
                Some(each),
                (&mut found as *mut Found<'_>).cast(),
            ) != 0
            {}
            api!(RedisModule_ScanCursorDestroy)(cursor);
        }
        found.fields
    }

    /// Sets `field` to `value`, as `HSET`.
    pub fn set(&mut self, field: &[u8], value: &RStr) -> Result<(), HostError> {
        let field = OwnedRStr::new(field);
        let (ctx, name) = self
            .writer
            .ok_or_else(|| HostError::Internal("a set on a hash opened to read".into()))?;
        // SAFETY: open writable key, valid strings, then the terminating
        // NULL. The call answers how many existing fields it replaced (0 for
        // a new one), never an error on a writable hash.
        unsafe {
            api!(RedisModule_HashSet)(
                self.ptr(),
                raw::REDISMODULE_HASH_NONE as c_int,
                field.as_ptr(),
                value.as_ptr(),
                std::ptr::null_mut::<raw::RedisModuleString>(),
            )
        };
        ctx.record(Write {
            command: native::HSET,
            key: name,
            fixed: [],
            item: [ctx.word(&field), ctx.word(value)],
            event: Some(native::HSET_EVENT),
        });
        Ok(())
    }

    /// Sets the key's expiry (unix ms), as `PEXPIREAT`: a board's member
    /// data expires with the board. The key must exist (a field was set).
    pub fn expire_at(&mut self, unix_ms: i64) -> Result<(), HostError> {
        let (ctx, name) = self
            .writer
            .ok_or_else(|| HostError::Internal("an expiry on a hash opened to read".into()))?;
        // SAFETY: open writable key. Redis refuses (ERR) an empty key or a
        // negative time, which the caller maps to an internal error.
        let status = unsafe { api!(RedisModule_SetAbsExpire)(self.ptr(), unix_ms) };
        if status != raw::REDISMODULE_OK as c_int {
            return Err(HostError::Internal(format!(
                "RedisModule_SetAbsExpire refused {unix_ms}"
            )));
        }
        ctx.record(Write {
            command: native::PEXPIREAT,
            key: name,
            fixed: [Word::Int(unix_ms)],
            item: [],
            event: Some(native::EXPIRE_EVENT),
        });
        Ok(())
    }

    /// Deletes `field`, as `HDEL`; true if it was there.
    pub fn delete(&mut self, field: &[u8]) -> bool {
        let field = OwnedRStr::new(field);
        // SAFETY: open writable key, a valid field, the delete marker as its
        // value, then the terminating NULL; the call answers how many fields
        // it changed.
        let changed = unsafe {
            api!(RedisModule_HashSet)(
                self.ptr(),
                raw::REDISMODULE_HASH_NONE as c_int,
                field.as_ptr(),
                raw::REDISMODULE_HASH_DELETE,
                std::ptr::null_mut::<raw::RedisModuleString>(),
            )
        };
        if changed <= 0 {
            return false;
        }
        let (ctx, name) = self.writer.expect("delete on a writable hash");
        ctx.record(Write {
            command: native::HDEL,
            key: name,
            fixed: [],
            item: [ctx.word(&field)],
            event: Some(native::HDEL_EVENT),
        });
        self.deleted = true;
        true
    }
}

impl Drop for Hash<'_> {
    fn drop(&mut self) {
        // A hash left empty is deleted when its handle closes, as HDEL of
        // its last field deletes it; the native command fires `del` then.
        let emptied = self.deleted && self.is_empty();
        // SAFETY: opened once, closed once, never used after.
        unsafe { api!(RedisModule_CloseKey)(self.ptr()) };
        if let (true, Some((ctx, name))) = (emptied, self.writer) {
            ctx.record_event_only(native::DEL_EVENT, name);
        }
    }
}
