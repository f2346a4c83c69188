use std::fmt;
use std::ops::Deref;
use std::ptr::NonNull;

use redis_module::raw;

use super::api;

/// A Redis string borrowed for the duration of a command: an argv entry, or
/// the string behind an [`OwnedRStr`].
#[repr(transparent)]
pub struct RStr(NonNull<raw::RedisModuleString>);

impl RStr {
    /// Views a C argv as Redis strings.
    pub(super) fn slice_from_argv<'a>(
        argv: *mut *mut raw::RedisModuleString,
        argc: usize,
    ) -> &'a [RStr] {
        if argv.is_null() || argc == 0 {
            return &[];
        }
        // SAFETY: Redis passes `argc` non-null string pointers that stay valid
        // for the whole command; `RStr` is a transparent wrapper of one.
        unsafe { std::slice::from_raw_parts(argv as *const RStr, argc) }
    }

    pub fn as_bytes(&self) -> &[u8] {
        // SAFETY: the string is alive while `self` is borrowed.
        unsafe { bytes_of(self.0.as_ptr()) }
    }

    pub(super) fn as_ptr(&self) -> *mut raw::RedisModuleString {
        self.0.as_ptr()
    }

    /// A reference of its own to this string (no copy: the server counts
    /// references), to keep past the borrow.
    pub(super) fn retain(&self) -> OwnedRStr {
        // SAFETY: a valid string; with a NULL context the new reference is
        // outside automatic memory management, and `OwnedRStr` frees it.
        unsafe { api!(RedisModule_RetainString)(std::ptr::null_mut(), self.as_ptr()) };
        OwnedRStr(RStr(self.0))
    }
}

#[cfg(test)]
impl RStr {
    /// A string nothing may read, standing for every key and string when a
    /// request is read from its declaration alone (`trace_reads`, in unit
    /// tests, where reading any server string panics: the module API is not
    /// there).
    pub fn placeholder() -> &'static RStr {
        const PLACEHOLDER: RStr = RStr(NonNull::dangling());
        &PLACEHOLDER
    }
}

/// The bytes of a server string.
///
/// # Safety
/// `s` is a valid string that outlives `'a`.
pub(super) unsafe fn bytes_of<'a>(s: *mut raw::RedisModuleString) -> &'a [u8] {
    let mut len = 0usize;
    // Redis returns a pointer to its own buffer of `len` bytes.
    let ptr = api!(RedisModule_StringPtrLen)(s, &mut len);
    if ptr.is_null() || len == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(ptr.cast::<u8>(), len)
    }
}

impl AsRef<[u8]> for RStr {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl fmt::Debug for RStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(self.as_bytes()))
    }
}

/// A Redis string zkit created (a copy of bytes, or a member read from a
/// sorted set); freed when dropped.
pub struct OwnedRStr(RStr);

impl OwnedRStr {
    pub fn new(bytes: &[u8]) -> OwnedRStr {
        // SAFETY: a NULL context creates a string outside automatic memory
        // management, which this wrapper frees in `Drop`.
        let ptr = unsafe {
            api!(RedisModule_CreateString)(std::ptr::null_mut(), bytes.as_ptr().cast(), bytes.len())
        };
        OwnedRStr::adopt(ptr).expect("RedisModule_CreateString returned NULL")
    }

    /// Takes ownership of a string the module API handed over.
    pub(super) fn adopt(ptr: *mut raw::RedisModuleString) -> Option<OwnedRStr> {
        NonNull::new(ptr).map(|p| OwnedRStr(RStr(p)))
    }
}

impl Deref for OwnedRStr {
    type Target = RStr;
    fn deref(&self) -> &RStr {
        &self.0
    }
}

impl AsRef<[u8]> for OwnedRStr {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl fmt::Debug for OwnedRStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Drop for OwnedRStr {
    fn drop(&mut self) {
        // SAFETY: zkit owns this reference (automatic memory is never enabled),
        // and a NULL context is valid for strings outside automatic memory.
        unsafe { api!(RedisModule_FreeString)(std::ptr::null_mut(), self.0.as_ptr()) }
    }
}
