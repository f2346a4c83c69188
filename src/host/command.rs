//! A command as the server sees it: one static declaration holds its handler
//! and everything the server is told about it (flags, arity, key specs, ACL
//! categories, COMMAND DOCS text, arguments), so registration, COMMAND DOCS,
//! COMMAND GETKEYS and INFO all read the same value; and the dispatcher that
//! runs it when the server calls.

use std::ffi::c_int;
use std::fmt::Display;
use std::panic::{self, AssertUnwindSafe};

use redis_module::raw;

use super::{Ctx, HostError, RStr};

/// The C entry point the server calls; [`declare_command!`] writes one per
/// command, bound to its own declaration.
pub type CommandCallback =
    extern "C" fn(*mut raw::RedisModuleCtx, *mut *mut raw::RedisModuleString, c_int) -> c_int;

/// A command body: parse, validate, act, reply. On `Err` nothing has been
/// replied, and the dispatcher replies with the error.
pub type Handler<E> = fn(&Ctx, &[RStr]) -> Result<(), E>;

/// One command's declaration. `E` is the error type its handler returns;
/// its `Display` text is the error reply.
pub struct Command<E: 'static> {
    /// Lowercase, `family.verb`.
    pub name: &'static str,
    /// Command flags as RedisModule_CreateCommand takes them.
    pub flags: &'static str,
    /// ACL categories, applied on servers that support them (7.2+).
    pub acl_categories: &'static str,
    /// Redis arity: exact count if positive, minimum count if negative
    /// (the command name included).
    pub arity: i32,
    pub key_specs: &'static [KeySpec],
    pub summary: &'static str,
    pub complexity: &'static str,
    pub since: &'static str,
    /// What later versions changed, as COMMAND DOCS shows it: (version,
    /// what changed), oldest first.
    pub history: &'static [(&'static str, &'static str)],
    pub args: &'static [Arg],
    pub handler: Handler<E>,
    pub callback: CommandCallback,
}

/// Declares a command static and its C callback, which dispatches to that
/// very static (the macro names it once, so a copied declaration cannot
/// dispatch to another command). Give every field of [`Command`] but
/// `callback`:
///
/// ```ignore
/// declare_command! {
///     pub static GIFT: Command = {
///         name: "rank.gift",
///         handler: gift,
///         flags: "write deny-oom fast",
///         ...
///     }
/// }
/// ```
#[macro_export]
macro_rules! declare_command {
    ($(#[$meta:meta])* $vis:vis static $name:ident: $ty:ty = { $($field:ident: $value:expr),* $(,)? }) => {
        $(#[$meta])*
        $vis static $name: $ty = $crate::host::Command {
            $($field: $value,)*
            callback: {
                extern "C" fn callback(
                    ctx: *mut $crate::host::RawCtx,
                    argv: *mut *mut $crate::host::RawString,
                    argc: std::ffi::c_int,
                ) -> std::ffi::c_int {
                    $crate::host::dispatch(&$name, ctx, argv, argc)
                }
                callback
            },
        };
    };
}

/// Runs one command for the server: answers key-position requests, checks
/// arity, runs the handler, and turns an error or a panic
/// into the error reply. A panic never unwinds into the server.
#[doc(hidden)]
pub fn dispatch<E: Display + From<HostError>>(
    command: &'static Command<E>,
    ctx: *mut raw::RedisModuleCtx,
    argv: *mut *mut raw::RedisModuleString,
    argc: c_int,
) -> c_int {
    let ctx = Ctx::new(ctx);
    let args = RStr::slice_from_argv(argv, usize::try_from(argc).unwrap_or(0));
    if ctx.is_keys_position_request() {
        // Redis Cluster asks where the keys are (see `needs_getkeys_api`).
        for (position, flags) in key_positions(command.key_specs, args) {
            ctx.key_at_position(position, flags);
        }
        return raw::REDISMODULE_OK as c_int;
    }
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        if !arity_fits(command.arity, args.len()) {
            return Err(E::from(HostError::Arity(command.name)));
        }
        (command.handler)(&ctx, args)
    }));
    let error = match outcome {
        Ok(Ok(())) => return raw::REDISMODULE_OK as c_int,
        // Commands check everything before their first write, so an error
        // reply means nothing changed. A command that breaks that rule is a
        // bug: say so in the reply and the log, rather than let a partial
        // write pass for a clean refusal. What it wrote is replicated when
        // `ctx` ends, as always.
        Ok(Err(error)) if ctx.has_written() => {
            let bug = format!("{} failed after writing: {error}", command.name);
            ctx.log_warning(&format!("zkit: bug: {bug}"));
            E::from(HostError::Internal(bug))
        }
        Ok(Err(error)) => error,
        Err(payload) => E::from(ctx.panicked(command.name, payload.as_ref())),
    };
    ctx.reply_error(&error.to_string());
    raw::REDISMODULE_OK as c_int
}

impl Ctx {
    /// Logs a caught panic of `what` and turns it into an error.
    pub(super) fn panicked(&self, what: &str, payload: &(dyn std::any::Any + Send)) -> HostError {
        let reason = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        self.log_warning(&format!("zkit: {what} panicked: {reason}"));
        HostError::Panicked {
            what: what.to_string(),
            reason,
        }
    }
}

/// The server checks arity before calling a command, but RM_Call from other
/// modules and future server versions may not; handlers index argv freely.
fn arity_fits(arity: i32, argc: usize) -> bool {
    let argc = argc as i64;
    let arity = i64::from(arity);
    if arity >= 0 {
        argc == arity
    } else {
        argc >= -arity
    }
}

/// Key-spec flags, as Redis defines them (see "key specs" in the Redis docs).
pub mod key_flags {
    use redis_module::raw;
    /// Read-only access to the value.
    pub const RO: u32 = raw::REDISMODULE_CMD_KEY_RO;
    /// Read-write: the command reads and modifies the value.
    pub const RW: u32 = raw::REDISMODULE_CMD_KEY_RW;
    /// Overwrite: the value is replaced without being read.
    pub const OW: u32 = raw::REDISMODULE_CMD_KEY_OW;
    /// The key may be deleted.
    pub const RM: u32 = raw::REDISMODULE_CMD_KEY_RM;
    /// User data of the value is returned or copied.
    pub const ACCESS: u32 = raw::REDISMODULE_CMD_KEY_ACCESS;
    /// Data is updated, the new value may depend on the old one.
    pub const UPDATE: u32 = raw::REDISMODULE_CMD_KEY_UPDATE;
    /// Data is only added.
    pub const INSERT: u32 = raw::REDISMODULE_CMD_KEY_INSERT;
    /// Data is explicitly removed.
    pub const DELETE: u32 = raw::REDISMODULE_CMD_KEY_DELETE;
}

/// Where Redis finds a command's keys (COMMAND GETKEYS, cluster routing, ACL
/// key patterns).
pub struct KeySpec {
    pub flags: u32,
    pub begin: BeginSearch,
    pub find: FindKeys,
}

pub enum BeginSearch {
    /// The first key is at this argv index.
    Index(i32),
    /// The first key follows this keyword, searched from argv index `start`
    /// (negative: from the end, backwards).
    Keyword { keyword: &'static str, start: i32 },
}

pub enum FindKeys {
    /// Keys from the begin index up to `last` (relative; -1 = the last
    /// argument), every `step` arguments.
    Range { last: i32, step: i32, limit: i32 },
    /// The argument at `count_index` (relative) says how many keys follow,
    /// starting at `first` (relative), every `step` arguments.
    KeyNum {
        count_index: i32,
        first: i32,
        step: i32,
    },
}

impl KeySpec {
    /// One key at a fixed argv index.
    pub const fn at(index: i32, flags: u32) -> KeySpec {
        KeySpec {
            flags,
            begin: BeginSearch::Index(index),
            find: FindKeys::Range {
                last: 0,
                step: 1,
                limit: 0,
            },
        }
    }

    /// One key right after `keyword`, searched from argv index `start`
    /// (`LEASE inflight ms`, `WINDOW times seconds`).
    pub const fn after_keyword(keyword: &'static str, start: i32, flags: u32) -> KeySpec {
        KeySpec {
            flags,
            begin: BeginSearch::Keyword { keyword, start },
            find: FindKeys::Range {
                last: 0,
                step: 1,
                limit: 0,
            },
        }
    }
}

/// Whether Redis Cluster can find every key of these specs on its own.
///
/// Cluster routing (CROSSSLOT, MOVED) reads a command's keys from the legacy
/// first/last/step range, not from key specs, and RedisModule_SetCommandInfo
/// can only fold plain index ranges into it: a `numkeys` or keyword spec
/// would be invisible there, and a call whose other keys live in another slot
/// would run on the wrong node. Such commands are registered with the
/// `getkeys-api` flag and report [`key_positions`] when asked.
pub fn needs_getkeys_api(specs: &[KeySpec]) -> bool {
    specs.iter().any(|spec| {
        !matches!(
            (&spec.begin, &spec.find),
            (BeginSearch::Index(_), FindKeys::Range { .. })
        )
    })
}

/// The argv index and key-spec flags of every key a call names, found the
/// way Redis applies key specs (`getKeysUsingKeySpecs`). Positions are always
/// inside `args`: a malformed call yields the keys that can be found.
pub fn key_positions<A: AsRef<[u8]>>(specs: &[KeySpec], args: &[A]) -> Vec<(usize, u32)> {
    let argc = args.len() as i64;
    let is_keyword = |i: i64, keyword: &str| {
        args[i as usize]
            .as_ref()
            .eq_ignore_ascii_case(keyword.as_bytes())
    };
    let mut keys = Vec::new();
    for spec in specs {
        let first = match spec.begin {
            BeginSearch::Index(index) => i64::from(index),
            BeginSearch::Keyword { keyword, start } => {
                let start = i64::from(start);
                // Backwards, Redis stops before argv[1], as forwards it
                // stops before the last argument (which has no key after it).
                let found = if start >= 0 {
                    (start..argc).find(|&i| is_keyword(i, keyword))
                } else {
                    (2..=(argc + start).min(argc - 1))
                        .rev()
                        .find(|&i| is_keyword(i, keyword))
                };
                match found {
                    Some(i) => i + 1,
                    None => continue,
                }
            }
        };
        let (first, last, step) = match spec.find {
            FindKeys::Range { last, step, limit } => {
                let last = i64::from(last);
                let last = if last >= 0 {
                    first + last
                } else if limit <= 0 {
                    argc + last
                } else {
                    first + ((argc - first) / i64::from(limit) + last)
                };
                (first, last, i64::from(step))
            }
            FindKeys::KeyNum {
                count_index,
                first: first_key,
                step,
            } => {
                let count = usize::try_from(first + i64::from(count_index))
                    .ok()
                    .and_then(|i| args.get(i))
                    .and_then(|count| positive_count(count.as_ref()));
                let Some(count) = count else {
                    continue;
                };
                let step = i64::from(step);
                let first = first + i64::from(first_key);
                let last = first.saturating_add((count - 1).saturating_mul(step));
                (first, last, step)
            }
        };
        if first < 1 || step < 1 {
            continue;
        }
        let last = last.min(argc - 1);
        let mut i = first;
        while i <= last {
            keys.push((i as usize, spec.flags));
            i += step;
        }
    }
    keys
}

/// A key count as the server's `string2ll` reads it, if positive: digits
/// only, no sign, no leading zero.
fn positive_count(text: &[u8]) -> Option<i64> {
    match text {
        [b'1'..=b'9', rest @ ..] if rest.iter().all(u8::is_ascii_digit) => {
            std::str::from_utf8(text).ok()?.parse().ok()
        }
        _ => None,
    }
}

/// One argument in COMMAND DOCS.
pub struct Arg {
    pub name: &'static str,
    pub kind: ArgKind,
    pub token: Option<&'static str>,
    pub optional: bool,
    pub multiple: bool,
    /// The version that added it (for options newer than their command).
    pub since: Option<&'static str>,
}

pub enum ArgKind {
    /// A key name, described by the key spec at this index.
    Key(u32),
    String,
    Integer,
    Double,
    UnixTime,
    PureToken,
    OneOf(&'static [Arg]),
    Block(&'static [Arg]),
}

impl Arg {
    const fn new(name: &'static str, kind: ArgKind) -> Arg {
        Arg {
            name,
            kind,
            token: None,
            optional: false,
            multiple: false,
            since: None,
        }
    }

    pub const fn key(name: &'static str, key_spec: u32) -> Arg {
        Arg::new(name, ArgKind::Key(key_spec))
    }

    pub const fn string(name: &'static str) -> Arg {
        Arg::new(name, ArgKind::String)
    }

    pub const fn integer(name: &'static str) -> Arg {
        Arg::new(name, ArgKind::Integer)
    }

    pub const fn double(name: &'static str) -> Arg {
        Arg::new(name, ArgKind::Double)
    }

    pub const fn unix_time(name: &'static str) -> Arg {
        Arg::new(name, ArgKind::UnixTime)
    }

    /// A keyword that stands alone (`UP`, `DOWN`).
    pub const fn pure_token(name: &'static str, token: &'static str) -> Arg {
        Arg::new(name, ArgKind::PureToken).token(token)
    }

    pub const fn one_of(name: &'static str, choices: &'static [Arg]) -> Arg {
        Arg::new(name, ArgKind::OneOf(choices))
    }

    pub const fn block(name: &'static str, parts: &'static [Arg]) -> Arg {
        Arg::new(name, ArgKind::Block(parts))
    }

    /// Preceded by a keyword (`AT unix-ms`).
    pub const fn token(mut self, token: &'static str) -> Arg {
        self.token = Some(token);
        self
    }

    pub const fn optional(mut self) -> Arg {
        self.optional = true;
        self
    }

    pub const fn multiple(mut self) -> Arg {
        self.multiple = true;
        self
    }

    /// Added in `version`.
    pub const fn since(mut self, version: &'static str) -> Arg {
        self.since = Some(version);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const KEYNUM: KeySpec = KeySpec {
        flags: key_flags::RO,
        begin: BeginSearch::Index(2),
        find: FindKeys::KeyNum {
            count_index: 0,
            first: 1,
            step: 1,
        },
    };
    const DEST: KeySpec = KeySpec::at(1, key_flags::OW);
    const AFTER_KEYS: KeySpec = KeySpec {
        flags: key_flags::RW,
        begin: BeginSearch::Keyword {
            keyword: "KEYS",
            start: 1,
        },
        find: FindKeys::Range {
            last: -1,
            step: 1,
            limit: 0,
        },
    };

    fn positions(specs: &[KeySpec], words: &str) -> Vec<usize> {
        let args: Vec<&[u8]> = words.split(' ').map(str::as_bytes).collect();
        key_positions(specs, &args)
            .into_iter()
            .map(|(i, _)| i)
            .collect()
    }

    #[test]
    fn finds_keys_like_redis() {
        let merge = [DEST, KEYNUM];
        assert_eq!(positions(&merge, "m dest 2 a b WEIGHTS 1 2"), [1, 3, 4]);
        assert_eq!(positions(&merge, "m dest 1 a"), [1, 3]);
        // Malformed counts find what they can and never point past argv.
        assert_eq!(positions(&merge, "m dest 5 a"), [1, 3]);
        assert_eq!(positions(&merge, "m dest x a"), [1]);
        assert_eq!(positions(&merge, "m dest -1 a"), [1]);
        assert_eq!(positions(&merge, "m dest +1 a"), [1]);
        assert_eq!(positions(&merge, "m dest 01 a"), [1]);
        assert_eq!(positions(&merge, "m dest"), [1]);
        assert_eq!(positions(&[AFTER_KEYS], "c x KEYS k1 k2"), [3, 4]);
        assert_eq!(positions(&[AFTER_KEYS], "c x keys"), Vec::<usize>::new());
        assert_eq!(positions(&[AFTER_KEYS], "c x y"), Vec::<usize>::new());
        let lease = KeySpec::after_keyword("LEASE", 2, key_flags::RW);
        assert_eq!(positions(&[DEST, lease], "p q LEASE held 5"), [1, 3]);
        // From the end: the keyword second-to-last, or further back, but
        // never argv[1].
        const TRAILING: KeySpec = KeySpec::after_keyword("COUNTS", -2, key_flags::RW);
        assert_eq!(positions(&[DEST, TRAILING], "a q t COUNTS c"), [1, 4]);
        assert_eq!(positions(&[DEST, TRAILING], "a q COUNTS t u"), [1, 3]);
        assert_eq!(positions(&[DEST, TRAILING], "a q t COUNTS"), [1]);
        assert_eq!(positions(&[DEST, TRAILING], "a COUNTS t"), [1]);
        assert!(needs_getkeys_api(&merge));
        assert!(!needs_getkeys_api(&[DEST]));
    }

    #[test]
    fn arity_is_exact_or_minimum() {
        assert!(arity_fits(3, 3));
        assert!(!arity_fits(3, 4));
        assert!(arity_fits(-4, 4));
        assert!(arity_fits(-4, 9));
        assert!(!arity_fits(-4, 3));
    }

    proptest! {
        #[test]
        fn positions_stay_inside_argv(words in proptest::collection::vec("[0-9a-zA-Z-]{0,4}", 0..8)) {
            let specs = [DEST, KEYNUM, AFTER_KEYS];
            for (i, _) in key_positions(&specs, &words) {
                prop_assert!(i >= 1 && i < words.len());
            }
        }
    }
}
