//! The module's INFO section: where an INFO callback writes its fields.

use std::ffi::c_int;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::OnceLock;

use redis_module::raw;

use super::api;
use super::ctx::c_text;
use super::ctx::Ctx;

/// Where an INFO callback writes its fields.
pub struct InfoSink {
    raw: *mut raw::RedisModuleInfoCtx,
}

impl InfoSink {
    /// Starts a section; the server prefixes its name with `zkit_`
    /// (an empty name gives the section `zkit`).
    pub fn section(&mut self, name: &str) {
        let name = c_text(name);
        // SAFETY: valid info context inside the INFO callback.
        unsafe { api!(RedisModule_InfoAddSection)(self.raw, name.as_ptr()) };
    }

    pub fn field_str(&mut self, name: &str, value: &str) {
        let (name, value) = (c_text(name), c_text(value));
        // SAFETY: valid info context; strings are copied.
        unsafe { api!(RedisModule_InfoAddFieldCString)(self.raw, name.as_ptr(), value.as_ptr()) };
    }

    pub fn field_i64(&mut self, name: &str, value: i64) {
        let name = c_text(name);
        // SAFETY: valid info context.
        unsafe { api!(RedisModule_InfoAddFieldLongLong)(self.raw, name.as_ptr(), value) };
    }

    pub fn field_u64(&mut self, name: &str, value: u64) {
        let name = c_text(name);
        // SAFETY: valid info context.
        unsafe { api!(RedisModule_InfoAddFieldULongLong)(self.raw, name.as_ptr(), value) };
    }
}

/// The last answer of [`Ctx::may_evict_any_key`], and when it was read.
static EVICTS_ANY_KEY: AtomicBool = AtomicBool::new(false);
static EVICTS_ANY_KEY_READ_MS: AtomicI64 = AtomicI64::new(i64::MIN);

/// How long that answer is reused: reading the policy builds INFO's memory
/// section, and the policy changes only by CONFIG SET.
const POLICY_READ_EVERY_MS: i64 = 1000;

impl Ctx {
    /// Whether the server may evict any key to free memory, including keys
    /// without a TTL: `maxmemory` set with an `allkeys-*` policy. (A
    /// `volatile-*` policy evicts only keys with a TTL.) Read at most once
    /// a second.
    pub fn may_evict_any_key(&self) -> bool {
        if self.flags() & raw::REDISMODULE_CTX_FLAGS_EVICT as c_int == 0 {
            return false;
        }
        let now = self.now_ms();
        let read_at = EVICTS_ANY_KEY_READ_MS.load(Ordering::Relaxed);
        if now.saturating_sub(read_at) < POLICY_READ_EVERY_MS {
            return EVICTS_ANY_KEY.load(Ordering::Relaxed);
        }
        let policy = self.server_info_field(c"memory", c"maxmemory_policy");
        let any_key = policy.is_some_and(|p| p.starts_with(b"allkeys"));
        EVICTS_ANY_KEY.store(any_key, Ordering::Relaxed);
        EVICTS_ANY_KEY_READ_MS.store(now, Ordering::Relaxed);
        any_key
    }
}

static INFO_WRITER: OnceLock<fn(&mut InfoSink)> = OnceLock::new();

extern "C" fn info_callback(ctx: *mut raw::RedisModuleInfoCtx, _for_crash_report: c_int) {
    if let Some(write) = INFO_WRITER.get() {
        // INFO runs during crash reports too: never unwind from here.
        let _ = panic::catch_unwind(AssertUnwindSafe(|| write(&mut InfoSink { raw: ctx })));
    }
}

/// Makes `write` the module's INFO section writer.
pub fn register_info(ctx: &Ctx, write: fn(&mut InfoSink)) -> Result<(), String> {
    let _ = INFO_WRITER.set(write);
    // SAFETY: load context and a callback with the C signature Redis expects.
    let status = unsafe { api!(RedisModule_RegisterInfoFunc)(ctx.as_ptr(), Some(info_callback)) };
    if status == raw::REDISMODULE_OK as c_int {
        Ok(())
    } else {
        Err("could not register the INFO section".into())
    }
}
