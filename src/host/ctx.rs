use std::cell::RefCell;
use std::ffi::{c_int, c_long, CStr};
use std::ops::Range;

use redis_module::raw;

use super::api;
use super::call::{call_with_args, find_native_commands, CallArg, CallArgs, CallReply, Native};
use super::effects::{native, Effects, EventClass, Kept, Word, Write};
use super::error::HostError;
use super::string::RStr;

/// One call from the server (a command, a blocked client's callback, the
/// load): what it may read, write, reply and log goes through here. When it
/// ends (is dropped), what it wrote is replicated, announced and signalled
/// (`effects.rs`).
pub struct Ctx {
    raw: *mut raw::RedisModuleCtx,
    /// Where the command's argv lies (empty outside a command): strings
    /// there outlive the call, so the effects borrow them (`Ctx::keep`).
    pub(super) args: Range<*const RStr>,
    pub(super) effects: RefCell<Effects>,
}

impl Ctx {
    pub(super) fn new(raw: *mut raw::RedisModuleCtx) -> Ctx {
        Ctx::for_command(raw, &[])
    }

    /// The context of a command called with `args` (its argv), which the
    /// server keeps alive until the command returns, after this ends.
    pub(super) fn for_command(raw: *mut raw::RedisModuleCtx, args: &[RStr]) -> Ctx {
        Ctx {
            raw,
            args: args.as_ptr_range(),
            effects: RefCell::default(),
        }
    }

    pub(super) fn as_ptr(&self) -> *mut raw::RedisModuleCtx {
        self.raw
    }

    /// The server's clock in unix milliseconds (in a `test-clock` build,
    /// the pinned time while one is pinned).
    pub fn now_ms(&self) -> i64 {
        #[cfg(feature = "test-clock")]
        if let Some(pinned) = test_clock::pinned() {
            return pinned;
        }
        // SAFETY: no arguments; reads the server clock.
        unsafe { api!(RedisModule_Milliseconds)() }
    }

    /// `N` random bytes from the server's generator (seeded from
    /// /dev/urandom): ids nobody can guess.
    pub fn random_bytes<const N: usize>(&self) -> [u8; N] {
        let mut bytes = [0u8; N];
        // SAFETY: writes exactly `N` bytes into the buffer.
        unsafe { api!(RedisModule_GetRandomBytes)(bytes.as_mut_ptr(), N) };
        bytes
    }

    /// True when the command runs inside MULTI/EXEC or a script, where it
    /// must not block.
    pub fn in_transaction_or_script(&self) -> bool {
        let flags = self.flags();
        flags & (raw::REDISMODULE_CTX_FLAGS_MULTI | raw::REDISMODULE_CTX_FLAGS_LUA) as c_int != 0
    }

    /// True when the calling client may be blocked: not inside MULTI/EXEC,
    /// a script, or a module's RM_Call (Redis refuses to block those).
    pub fn may_block(&self) -> bool {
        let flags = self.flags();
        !self.in_transaction_or_script()
            && flags & raw::REDISMODULE_CTX_FLAGS_DENY_BLOCKING as c_int == 0
    }

    /// True when the client speaks RESP3.
    pub fn is_resp3(&self) -> bool {
        self.flags() & raw::REDISMODULE_CTX_FLAGS_RESP3 as c_int != 0
    }

    /// True when Redis calls the command only to learn its key positions
    /// (commands registered with `getkeys-api`).
    pub(super) fn is_keys_position_request(&self) -> bool {
        // SAFETY: valid context of the running command.
        unsafe { api!(RedisModule_IsKeysPositionRequest)(self.raw) != 0 }
    }

    /// Answers a key-position request: `argv[position]` is a key with these
    /// key-spec flags.
    pub(super) fn key_at_position(&self, position: usize, flags: u32) {
        let position = position as c_int;
        // SAFETY: valid context inside a key-position request; `position` is
        // inside argv (key_positions guarantees it). KeyAtPosWithFlags exists
        // since 7.0, the oldest server zkit loads on.
        unsafe { api!(RedisModule_KeyAtPosWithFlags)(self.raw, position, flags as c_int) };
    }

    /// One field of one INFO section, as the server would print it; None
    /// where the section has no such field.
    pub(super) fn server_info_field(&self, section: &CStr, field: &CStr) -> Option<Vec<u8>> {
        // SAFETY: valid context; the field is copied out before the info
        // data is freed.
        unsafe {
            let info = api!(RedisModule_GetServerInfo)(self.raw, section.as_ptr());
            if info.is_null() {
                return None;
            }
            let value = api!(RedisModule_ServerInfoGetFieldC)(info, field.as_ptr());
            let value = (!value.is_null()).then(|| CStr::from_ptr(value).to_bytes().to_vec());
            api!(RedisModule_FreeServerInfo)(self.raw, info);
            value
        }
    }

    pub(super) fn flags(&self) -> c_int {
        // SAFETY: valid context of the running command.
        unsafe { api!(RedisModule_GetContextFlags)(self.raw) }
    }

    // ---- replies -------------------------------------------------------

    pub fn reply_array(&self, len: usize) {
        // SAFETY: valid context; Redis expects `len` elements to follow.
        unsafe { api!(RedisModule_ReplyWithArray)(self.raw, len as c_long) };
    }

    pub fn reply_i64(&self, value: i64) {
        // SAFETY: valid context.
        unsafe { api!(RedisModule_ReplyWithLongLong)(self.raw, value) };
    }

    /// A double: a bulk string in RESP2 (as ZSCORE gives), a double in RESP3.
    pub fn reply_f64(&self, value: f64) {
        // Redis 7.0 formats doubles with printf's %.17g, a large part of a
        // fast command's time. Integers below 10^17 come out of %.17g (and
        // of 7.2+'s formatter) as their plain digits, which itoa writes
        // too, so those RESP2 replies skip printf with the same bytes.
        if value.fract() == 0.0 && value.abs() < 1e17 && value != 0.0 && !self.is_resp3() {
            self.reply_bulk(itoa::Buffer::new().format(value as i64).as_bytes());
            return;
        }
        // SAFETY: valid context.
        unsafe { api!(RedisModule_ReplyWithDouble)(self.raw, value) };
    }

    /// The null array blocking commands reply on timeout (`*-1` in RESP2).
    pub fn reply_null_array(&self) {
        // SAFETY: valid context.
        unsafe { api!(RedisModule_ReplyWithNullArray)(self.raw) };
    }

    pub fn reply_bulk(&self, bytes: &[u8]) {
        // SAFETY: valid context; Redis copies the buffer.
        unsafe {
            api!(RedisModule_ReplyWithStringBuffer)(self.raw, bytes.as_ptr().cast(), bytes.len())
        };
    }

    pub fn reply_str(&self, s: &RStr) {
        // SAFETY: valid context and string.
        unsafe { api!(RedisModule_ReplyWithString)(self.raw, s.as_ptr()) };
    }

    pub fn reply_null(&self) {
        // SAFETY: valid context.
        unsafe { api!(RedisModule_ReplyWithNull)(self.raw) };
    }

    pub fn reply_simple(&self, text: &CStr) {
        // SAFETY: valid context and NUL-terminated text.
        unsafe { api!(RedisModule_ReplyWithSimpleString)(self.raw, text.as_ptr()) };
    }

    /// Replies with an error; `message` starts with its code (`ERR`, `WRONGTYPE`).
    pub fn reply_error(&self, message: &str) {
        // A newline would end the RESP error line early and desync the client.
        let text = c_text(&message.replace(['\r', '\n'], " "));
        // SAFETY: valid context; Redis copies the message.
        unsafe { api!(RedisModule_ReplyWithError)(self.raw, text.as_ptr()) };
    }

    // ---- what the effects recorder sends ---------------------------------

    /// `s` kept until the call ends (see [`Kept::of`]).
    pub(super) fn keep(&self, s: &RStr) -> Kept {
        Kept::of(s, &self.args)
    }

    /// A string word of a replicated command.
    pub(super) fn word(&self, s: &RStr) -> Word {
        Word::Str(self.keep(s))
    }

    /// Records a write this call made, to replicate and announce when the
    /// call ends.
    pub(super) fn record<const FIXED: usize, const ITEM: usize>(
        &self,
        write: Write<'_, FIXED, ITEM>,
    ) {
        self.effects.borrow_mut().record(&self.args, write);
    }

    /// Records a keyspace event with no write of its own (`del` when the
    /// last member of a key was removed, the event of a `*STORE`).
    pub(super) fn record_event_only(&self, event: (EventClass, &'static CStr), key: &RStr) {
        self.effects
            .borrow_mut()
            .record_event(&self.args, event, key);
    }

    /// Whether this call has written anything yet.
    pub(super) fn has_written(&self) -> bool {
        !self.effects.borrow().is_empty()
    }

    /// Replicates, announces and signals what this call wrote; called when
    /// the call ends (see `Ctx`'s `Drop`).
    fn flush_effects(&self) {
        let notify = |class: EventClass, event: &CStr, key: &RStr| {
            self.notify(class, event, key);
            // A DELAY.BPOLL waiting on the key may have something now.
            if class == EventClass::Zset && !native::REMOVING_EVENTS.contains(&event) {
                self.wake_waiters(key);
            }
        };
        self.effects
            .borrow()
            .flush(self.raw, notify, |key| self.signal_modified(key));
    }

    /// Fires the keyspace event a native command with the same effect fires.
    pub(super) fn notify(&self, class: EventClass, event: &CStr, key: &RStr) {
        // SAFETY: valid context, event name and key.
        unsafe {
            api!(RedisModule_NotifyKeyspaceEvent)(
                self.raw,
                class.bits(),
                event.as_ptr(),
                key.as_ptr(),
            )
        };
    }

    /// Tells WATCH and client-side caching that `name` changed.
    pub(super) fn signal_modified(&self, name: &RStr) {
        // SAFETY: valid context and key name.
        unsafe { api!(RedisModule_SignalModifiedKey)(self.raw, name.as_ptr()) };
    }

    pub fn log_warning(&self, message: &str) {
        log_warning_on(self.raw, message);
    }
}

/// [`Ctx::log_warning`] where the server gives no context (a config's
/// setter): the line starts `<module>` instead of `<zkit>`.
pub(super) fn log_warning_without_context(message: &str) {
    log_warning_on(std::ptr::null_mut(), message);
}

/// Logs `message` at warning level through `ctx`, a valid context or null.
fn log_warning_on(ctx: *mut raw::RedisModuleCtx, message: &str) {
    let text = c_text(message);
    // SAFETY: "%s" with one NUL-terminated argument; the server takes a null
    // context for a line without the module's name.
    unsafe { api!(RedisModule_Log)(ctx, c"warning".as_ptr(), c"%s".as_ptr(), text.as_ptr()) };
}

// ---- native commands -------------------------------------------------

impl Ctx {
    /// Refuses with [`HostError::CommandUnavailable`] if the server lacks
    /// any of `natives`. Every write (a key opened for writing, an unlink,
    /// a store, a rename, a replicated call) requires [`Native::RECORDED`]
    /// first, so on a server that lacks one of those the first write
    /// refuses and no later one can; a command requires, before its first
    /// write, every other native command it runs after that write.
    pub fn require(&self, natives: &[Native]) -> Result<(), HostError> {
        match natives.iter().find(|native| !native.is_available()) {
            Some(native) => Err(HostError::CommandUnavailable(native.text())),
            None => Ok(()),
        }
    }

    /// Looks every [`Native`] up, without running any and without touching
    /// a key, and remembers the ones the server lacks (renamed or disabled
    /// by `rename-command`); returns them. Call at load.
    ///
    /// Each is called with no arguments: RM_Call looks the name up first (no
    /// such command: `ENOENT`), then checks the arity (every command of the
    /// list takes arguments: `EINVAL`), and runs nothing, counts nothing in
    /// commandstats or errorstats, and writes no error reply.
    pub fn find_native_commands(&self) -> Vec<Native> {
        find_native_commands(|name| self.has_command(name))
    }

    /// Whether the server has a command named `name` (see
    /// [`Ctx::find_native_commands`]).
    fn has_command(&self, name: &CStr) -> bool {
        // SAFETY: valid context and name; an empty format: no arguments, no
        // modifiers (errors come back as NULL and errno).
        let reply = unsafe { api!(RedisModule_Call)(self.as_ptr(), name.as_ptr(), c"".as_ptr()) };
        // Read at once: errno is what RM_Call left when it returned NULL.
        let error = std::io::Error::last_os_error();
        // A reply: it ran with no arguments, so it exists (no Native does).
        CallReply::adopt(reply).is_some() || error.kind() != std::io::ErrorKind::NotFound
    }
}

impl Ctx {
    /// Runs a native command inside this one, for what the low-level key API
    /// cannot do (ranks, sets). The call is not replicated on its own: a
    /// command's writes are, as the effects recorder replays them
    /// (`effects.rs`). Replies come in RESP3, so scores arrive as doubles.
    pub fn call(&self, command: Native, args: &[CallArg<'_>]) -> Result<CallReply, HostError> {
        self.call_native(command, args, false)
    }

    /// Like [`Ctx::call`] for a write whose effect is the native command
    /// itself (SADD, SREM): Redis propagates it to replicas and the AOF, only
    /// if it changed something, with the other effects of this command.
    pub fn call_replicated(
        &self,
        command: Native,
        args: &[CallArg<'_>],
    ) -> Result<CallReply, HostError> {
        self.call_native(command, args, true)
    }

    fn call_native(
        &self,
        command: Native,
        args: &[CallArg<'_>],
        replicate: bool,
    ) -> Result<CallReply, HostError> {
        self.require(&[command])?;
        if replicate {
            self.require(&Native::RECORDED)?;
            self.effects.borrow_mut().called_a_write = true;
        }
        let name = command.name();
        let reply = match args {
            // The usual call (ZREVRANK key member, SADD set member): two
            // strings passed as they are, nothing to create or free.
            [CallArg::Str(first), CallArg::Str(second)] => {
                let format: &CStr = if replicate { c"!3Ess" } else { c"3Ess" };
                // SAFETY: valid context and command name; the format's
                // letters as below, then two strings alive until the call
                // returns (Redis takes its own references).
                unsafe {
                    api!(RedisModule_Call)(
                        self.as_ptr(),
                        name.as_ptr(),
                        format.as_ptr(),
                        first.as_ptr(),
                        second.as_ptr(),
                    )
                }
            }
            _ => {
                let call_args = CallArgs::new(args);
                // SAFETY: valid context; "!": propagate the call, "3": RESP3
                // replies, "E": errors as error replies; then one string per
                // "s", or a vector and its length for "v", all alive until the
                // call returns (Redis takes its own references).
                unsafe {
                    if replicate {
                        call_with_args!(
                            api!(RedisModule_Call),
                            self.as_ptr(),
                            name.as_ptr(),
                            "!3E",
                            call_args
                        )
                    } else {
                        call_with_args!(
                            api!(RedisModule_Call),
                            self.as_ptr(),
                            name.as_ptr(),
                            "3E",
                            call_args
                        )
                    }
                }
            }
        };
        let reply = CallReply::adopt(reply).ok_or_else(|| {
            HostError::Internal(format!(
                "{} could not be called ({})",
                command.text(),
                std::io::Error::last_os_error()
            ))
        })?;
        if let Some(message) = reply.get().error() {
            return Err(HostError::Internal(format!(
                "{} failed: {message}",
                command.text()
            )));
        }
        Ok(reply)
    }
}

impl Ctx {
    /// A numeric server config, as `CONFIG GET name` reads it.
    pub fn server_config_number(&self, name: &str) -> Result<i64, HostError> {
        self.require(&[Native::Config])?;
        let args = CallArgs::new(&[CallArg::Bytes(b"GET"), CallArg::Bytes(name.as_bytes())]);
        // SAFETY: valid context; "E": errors as replies, RESP2 (so the reply
        // is the array `[name, value]`); strings alive until the call returns.
        let reply = unsafe {
            call_with_args!(
                api!(RedisModule_Call),
                self.as_ptr(),
                Native::Config.name().as_ptr(),
                "E",
                args
            )
        };
        CallReply::adopt(reply)
            .and_then(|reply| {
                let value = reply.get().element(1)?.bytes()?;
                std::str::from_utf8(value).ok()?.parse().ok()
            })
            .ok_or_else(|| HostError::Internal(format!("CONFIG GET {name} gave no number")))
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        self.flush_effects();
    }
}

/// A C string of `text`, with interior NULs (which a message may quote from
/// user input) replaced so the text is never cut short.
pub(super) fn c_text(text: &str) -> std::ffi::CString {
    std::ffi::CString::new(text.replace('\0', "\\0")).expect("NULs were replaced")
}

/// A clock tests pin, so that two servers run the same calls at the same
/// instants (`make differential`). Compiled only with the `test-clock`
/// feature, which no release build enables.
#[cfg(feature = "test-clock")]
pub mod test_clock {
    use std::sync::atomic::{AtomicI64, Ordering};

    /// The pinned unix ms, or `i64::MIN` when the server's clock runs.
    static PINNED_MS: AtomicI64 = AtomicI64::new(i64::MIN);

    /// Pins the clock at `unix_ms`, or lets it run again with `None`.
    pub fn pin(unix_ms: Option<i64>) {
        PINNED_MS.store(unix_ms.unwrap_or(i64::MIN), Ordering::Relaxed);
    }

    pub fn pinned() -> Option<i64> {
        let ms = PINNED_MS.load(Ordering::Relaxed);
        (ms != i64::MIN).then_some(ms)
    }
}
