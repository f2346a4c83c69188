use std::ffi::{c_int, CStr};
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, Ordering};

use redis_module::raw;
use smallvec::SmallVec;

use super::api;
use super::string::OwnedRStr;
use super::string::RStr;

/// A native command zkit runs (RM_Call) or replays its writes as
/// (RM_Replicate), always by its original name.
///
/// An operator's `rename-command` (to another name, or to "" to disable it)
/// leaves the server without that name: RM_Call then finds no command, and
/// RM_Replicate replicates nothing, silently. So each one is looked up once,
/// when the module loads ([`find_native_commands`]): the server renames
/// commands only while it reads its config, before it loads any module, and
/// neither Redis nor Valkey can rename one at run time. A command that needs
/// a missing one refuses before its first write (`Ctx::require`), with
/// `HostError::CommandUnavailable`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Native {
    Zadd,
    Zrem,
    Zremrangebyscore,
    Pexpireat,
    Persist,
    Unlink,
    Rename,
    Cluster,
    Zrevrank,
    Zrank,
    Zcount,
    Zrange,
    Sadd,
    Srem,
    Sismember,
    Config,
    Memory,
    Hset,
    Hdel,
}

impl Native {
    pub const ALL: [Native; 19] = [
        Native::Zadd,
        Native::Zrem,
        Native::Zremrangebyscore,
        Native::Pexpireat,
        Native::Persist,
        Native::Unlink,
        Native::Rename,
        Native::Cluster,
        Native::Zrevrank,
        Native::Zrank,
        Native::Zcount,
        Native::Zrange,
        Native::Sadd,
        Native::Srem,
        Native::Sismember,
        Native::Config,
        Native::Memory,
        Native::Hset,
        Native::Hdel,
    ];

    /// The commands the effects recorder replays a key handle's writes as
    /// (`effects.rs`): every write through a key handle needs them all.
    pub(super) const RECORDED: [Native; 5] = [
        Native::Zadd,
        Native::Zrem,
        Native::Zremrangebyscore,
        Native::Pexpireat,
        Native::Unlink,
    ];

    pub const fn name(self) -> &'static CStr {
        match self {
            Native::Zadd => c"ZADD",
            Native::Zrem => c"ZREM",
            Native::Zremrangebyscore => c"ZREMRANGEBYSCORE",
            Native::Pexpireat => c"PEXPIREAT",
            Native::Persist => c"PERSIST",
            Native::Unlink => c"UNLINK",
            Native::Rename => c"RENAME",
            Native::Cluster => c"CLUSTER",
            Native::Zrevrank => c"ZREVRANK",
            Native::Zrank => c"ZRANK",
            Native::Zcount => c"ZCOUNT",
            Native::Zrange => c"ZRANGE",
            Native::Sadd => c"SADD",
            Native::Srem => c"SREM",
            Native::Sismember => c"SISMEMBER",
            Native::Config => c"CONFIG",
            Native::Memory => c"MEMORY",
            Native::Hset => c"HSET",
            Native::Hdel => c"HDEL",
        }
    }

    /// The name as text, for errors and the log.
    pub fn text(self) -> &'static str {
        self.name().to_str().expect("command names are ASCII")
    }

    const fn bit(self) -> u32 {
        1 << self as u32
    }

    /// Whether the server had this command under its original name at load.
    pub fn is_available(self) -> bool {
        MISSING_NATIVES.load(Ordering::Relaxed) & self.bit() == 0
    }
}

/// One bit per [`Native`] the server lacked at load ([`Native::bit`]).
static MISSING_NATIVES: AtomicU32 = AtomicU32::new(0);

/// Looks every [`Native`] up with `has_command`, without running any and
/// without touching a key, and remembers the ones the server lacks
/// (renamed or disabled by `rename-command`); returns them. Call at load
/// (`Ctx::find_native_commands`).
pub(super) fn find_native_commands(has_command: impl Fn(&CStr) -> bool) -> Vec<Native> {
    let mut missing = 0;
    for native in Native::ALL {
        if !has_command(native.name()) {
            missing |= native.bit();
        }
    }
    MISSING_NATIVES.store(missing, Ordering::Relaxed);
    Native::ALL
        .into_iter()
        .filter(|native| !native.is_available())
        .collect()
}

/// One argument of a native command zkit runs or replicates.
#[derive(Clone, Copy, Debug)]
pub enum CallArg<'a> {
    Str(&'a RStr),
    Bytes(&'a [u8]),
    Int(i64),
    /// Formatted as the shortest text that reads back as the identical
    /// double: whole numbers below 2^53 as plain digits, others as Rust's
    /// shortest round-trip representation, which the server parses back
    /// exactly.
    Float(f64),
}

/// Doubles below this magnitude that are whole numbers are exact integers.
const EXACT_INTEGERS: f64 = (1u64 << 53) as f64;

/// The integer a double is, when it is a whole number below 2^53: then its
/// plain digits read back as the identical double (see [`CallArg::Float`]).
pub(super) fn whole_number(f: f64) -> Option<i64> {
    (f.fract() == 0.0 && f.abs() < EXACT_INTEGERS).then_some(f as i64)
}

/// Up to this many arguments travel through fixed formats (`"ss"`, `"sss"`,
/// ...); more go through the vector format, which makes Redis reallocate its
/// argv. Effects and calls of zkit's hot paths stay under the limit.
const FIXED_ARITY: usize = 6;

/// The arguments of one RM_Call/RM_Replicate as Redis strings, owning the
/// ones it had to create (numbers and byte strings), on the stack when few.
pub(super) struct CallArgs {
    ptrs: SmallVec<[*mut raw::RedisModuleString; FIXED_ARITY]>,
    /// Most calls borrow every string (a key, a member): nothing to create,
    /// nothing to free.
    _created: SmallVec<[OwnedRStr; CREATED_INLINE]>,
}

/// Strings one call creates without a heap allocation (a replicated `ZADD`
/// creates its score, a `ZRANGE` its two indexes and `REV`).
const CREATED_INLINE: usize = 3;

impl CallArgs {
    pub(super) fn new(args: &[CallArg<'_>]) -> CallArgs {
        assert!(!args.is_empty(), "RM_Call/RM_Replicate without arguments");
        let mut out = CallArgs {
            ptrs: SmallVec::with_capacity(args.len()),
            _created: SmallVec::new(),
        };
        for arg in args {
            let created = match arg {
                CallArg::Str(s) => {
                    out.ptrs.push(s.as_ptr());
                    continue;
                }
                CallArg::Bytes(b) => OwnedRStr::new(b),
                CallArg::Int(n) => OwnedRStr::new(itoa::Buffer::new().format(*n).as_bytes()),
                CallArg::Float(f) => match whole_number(*f) {
                    Some(n) => OwnedRStr::new(itoa::Buffer::new().format(n).as_bytes()),
                    None => OwnedRStr::new(ryu::Buffer::new().format(*f).as_bytes()),
                },
            };
            out.ptrs.push(created.as_ptr());
            out._created.push(created);
        }
        out
    }

    pub(super) fn ptrs(&self) -> &[*mut raw::RedisModuleString] {
        &self.ptrs
    }
}

/// Calls a variadic module API function (`RedisModule_Call`,
/// `RedisModule_Replicate`) with the strings of a [`CallArgs`], choosing the
/// format by arity. `$prefix` holds the format's modifier letters.
macro_rules! call_with_args {
    ($function:expr, $ctx:expr, $command:expr, $prefix:literal, $args:expr) => {{
        let p = $args.ptrs();
        let format = |letters: &'static str| -> *const std::ffi::c_char { letters.as_ptr().cast() };
        match p.len() {
            1 => $function($ctx, $command, format(concat!($prefix, "s\0")), p[0]),
            2 => $function($ctx, $command, format(concat!($prefix, "ss\0")), p[0], p[1]),
            3 => $function(
                $ctx,
                $command,
                format(concat!($prefix, "sss\0")),
                p[0],
                p[1],
                p[2],
            ),
            4 => $function(
                $ctx,
                $command,
                format(concat!($prefix, "ssss\0")),
                p[0],
                p[1],
                p[2],
                p[3],
            ),
            5 => $function(
                $ctx,
                $command,
                format(concat!($prefix, "sssss\0")),
                p[0],
                p[1],
                p[2],
                p[3],
                p[4],
            ),
            6 => $function(
                $ctx,
                $command,
                format(concat!($prefix, "ssssss\0")),
                p[0],
                p[1],
                p[2],
                p[3],
                p[4],
                p[5],
            ),
            n => $function(
                $ctx,
                $command,
                format(concat!($prefix, "v\0")),
                p.as_ptr(),
                n,
            ),
        }
    }};
}
pub(super) use call_with_args;

/// The reply of a native command run with `Ctx::call`; freed when dropped.
pub struct CallReply {
    ptr: NonNull<raw::RedisModuleCallReply>,
}

/// A view into a [`CallReply`] or one of its nested elements.
#[derive(Clone, Copy)]
pub struct ReplyRef<'a> {
    ptr: NonNull<raw::RedisModuleCallReply>,
    _owner: PhantomData<&'a CallReply>,
}

impl CallReply {
    /// Takes ownership of a reply RM_Call returned; `None` for NULL.
    pub(super) fn adopt(ptr: *mut raw::RedisModuleCallReply) -> Option<CallReply> {
        NonNull::new(ptr).map(|ptr| CallReply { ptr })
    }

    pub fn get(&self) -> ReplyRef<'_> {
        ReplyRef {
            ptr: self.ptr,
            _owner: PhantomData,
        }
    }
}

impl Drop for CallReply {
    fn drop(&mut self) {
        // SAFETY: the top-level reply is owned here and freed once; nested
        // elements are freed with it.
        unsafe { api!(RedisModule_FreeCallReply)(self.ptr.as_ptr()) }
    }
}

impl<'a> ReplyRef<'a> {
    fn kind(&self) -> c_int {
        // SAFETY: valid reply while the owner lives.
        unsafe { api!(RedisModule_CallReplyType)(self.ptr.as_ptr()) }
    }

    pub fn is_null(&self) -> bool {
        self.kind() == raw::REDISMODULE_REPLY_NULL as c_int
    }

    pub fn integer(&self) -> Option<i64> {
        (self.kind() == raw::REDISMODULE_REPLY_INTEGER as c_int)
            // SAFETY: valid integer reply.
            .then(|| unsafe { api!(RedisModule_CallReplyInteger)(self.ptr.as_ptr()) })
    }

    pub fn double(&self) -> Option<f64> {
        (self.kind() == raw::REDISMODULE_REPLY_DOUBLE as c_int)
            // SAFETY: valid double reply.
            .then(|| unsafe { api!(RedisModule_CallReplyDouble)(self.ptr.as_ptr()) })
    }

    /// The bytes of a string reply (bulk, simple or error).
    pub fn bytes(&self) -> Option<&'a [u8]> {
        let mut len = 0usize;
        // SAFETY: valid reply; the buffer lives as long as the owner.
        let ptr = unsafe { api!(RedisModule_CallReplyStringPtr)(self.ptr.as_ptr(), &mut len) };
        if ptr.is_null() {
            None
        } else if len == 0 {
            Some(&[])
        } else {
            // SAFETY: Redis returned `len` readable bytes at `ptr`.
            Some(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) })
        }
    }

    /// The number of elements of an array, set or map reply.
    pub fn element_count(&self) -> usize {
        // SAFETY: valid reply.
        unsafe { api!(RedisModule_CallReplyLength)(self.ptr.as_ptr()) }
    }

    pub fn element(&self, index: usize) -> Option<ReplyRef<'a>> {
        // SAFETY: valid array reply; Redis bounds-checks `index` and returns
        // NULL past the end. The element is owned by the top-level reply.
        let ptr = unsafe { api!(RedisModule_CallReplyArrayElement)(self.ptr.as_ptr(), index) };
        NonNull::new(ptr).map(|ptr| ReplyRef {
            ptr,
            _owner: PhantomData,
        })
    }

    /// The text of an error reply (`ERR ...`), `None` for other replies.
    pub(super) fn error(&self) -> Option<String> {
        (self.kind() == raw::REDISMODULE_REPLY_ERROR as c_int)
            .then(|| String::from_utf8_lossy(self.bytes().unwrap_or_default()).into_owned())
    }
}

/// Propagates a native command to replicas and the AOF, in the context
/// `ctx` of the running call. All commands one call replicates reach them
/// wrapped in one MULTI/EXEC.
pub(super) fn replicate(ctx: *mut raw::RedisModuleCtx, command: &CStr, args: &[CallArg<'_>]) {
    let args = CallArgs::new(args);
    // SAFETY: valid context; one string per "s" (or a vector and its
    // length for "v"), alive until the call returns: Redis takes its own
    // references.
    let status =
        unsafe { call_with_args!(api!(RedisModule_Replicate), ctx, command.as_ptr(), "", args) };
    debug_assert_eq!(status, raw::REDISMODULE_OK as c_int);
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::whole_number;

    /// The text a double is replicated as (`Ctx::replicate_words`,
    /// `CallArgs::new`): the whole number's digits, or ryu's shortest form.
    fn replicated_text(f: f64) -> String {
        match whole_number(f) {
            Some(n) => n.to_string(),
            None => ryu::Buffer::new().format(f).to_owned(),
        }
    }

    /// Reads back as the server's ZADD does (a correctly rounded strtod,
    /// which also takes `inf` and `-inf`).
    fn read_back(text: &str) -> f64 {
        text.parse()
            .expect("the server parses what zkit replicates")
    }

    #[test]
    fn scores_of_every_kind_replicate_exactly() {
        let cases = [
            0.0,
            1.0,
            -7.0,
            0.1,
            1e-300,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            f64::MIN,
            (1u64 << 53) as f64,
            (1u64 << 53) as f64 + 2.0,
            9007199254740991.0,
            1234567.000001,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for f in cases {
            assert_eq!(
                read_back(&replicated_text(f)).to_bits(),
                f.to_bits(),
                "{f:e}"
            );
        }
        // Whole numbers below 2^53 travel as plain digits.
        assert_eq!(replicated_text(9007199254740991.0), "9007199254740991");
        assert_eq!(replicated_text(-42.0), "-42");
    }

    proptest! {
        #[test]
        fn any_double_replicates_as_text_that_reads_back_identical(bits in any::<u64>()) {
            let f = f64::from_bits(bits);
            // NaN is never a score; -0 travels as 0, a score equal to it.
            prop_assume!(!f.is_nan() && f.to_bits() != (-0.0f64).to_bits());
            prop_assert_eq!(read_back(&replicated_text(f)).to_bits(), f.to_bits());
        }
    }
}
