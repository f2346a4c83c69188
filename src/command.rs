//! The declaration of a zkit command: one static value per command holds its
//! handler and everything Redis is told about it (flags, arity, key specs,
//! ACL categories, COMMAND DOCS text, arguments), so registration, COMMAND
//! DOCS, COMMAND GETKEYS and INFO all read the same source.

use std::ffi::c_int;
use std::sync::atomic::{AtomicU64, Ordering};

use redis_module::raw as ffi;

use crate::error::ZkitError;
use crate::store::raw::{RedisModuleCtx, RedisModuleString};
use crate::store::{Ctx, RStr};

/// The C entry point Redis calls; [`callback_for!`] writes one per command.
pub type Callback = extern "C" fn(*mut RedisModuleCtx, *mut *mut RedisModuleString, c_int) -> c_int;

/// A command body: parse, validate, act, reply. On `Err` nothing has been
/// written or replied, and the dispatcher replies with the error.
pub type Handler = fn(&Ctx, &[RStr]) -> Result<(), ZkitError>;

pub struct Command {
    /// Lowercase, `family.verb`.
    pub name: &'static str,
    pub callback: Callback,
    pub handler: Handler,
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
    pub args: &'static [Arg],
    pub stats: CommandStats,
}

/// Declares the C callback of a command static:
/// `callback: callback_for!(GIFT)` inside `pub static GIFT: Command`.
macro_rules! callback_for {
    ($command:path) => {{
        extern "C" fn callback(
            ctx: *mut $crate::store::raw::RedisModuleCtx,
            argv: *mut *mut $crate::store::raw::RedisModuleString,
            argc: std::ffi::c_int,
        ) -> std::ffi::c_int {
            $crate::store::dispatch(&$command, ctx, argv, argc)
        }
        callback
    }};
}
pub(crate) use callback_for;

impl Command {
    /// True when the legacy `(first, last, step)` key range Redis derives from
    /// the key specs misses some keys: a keyword or keynum spec, a step other
    /// than 1, or index specs that are not consecutive (the rules of
    /// `populateCommandLegacyRangeSpec`). Redis 7.x routes module commands in
    /// a cluster with that legacy range only, unless the command is flagged
    /// `getkeys-api` and reports its keys itself, which registration then
    /// does with [`Command::key_positions`].
    pub fn needs_key_position_api(&self) -> bool {
        let mut next_index = None;
        for spec in self.key_specs {
            let (BeginSearch::Index(index), FindKeys::Range { last, step: 1, .. }) =
                (&spec.begin, &spec.find)
            else {
                return true;
            };
            if next_index.is_some_and(|next| next != *index) {
                return true;
            }
            // A range that runs to the end leaves no room for a next spec.
            next_index = Some(if *last >= 0 { index + last + 1 } else { -1 });
        }
        false
    }

    /// The argv positions of the command's keys, each with its key-spec
    /// flags, found the way Redis reads key specs (`getKeysUsingKeySpecs`).
    /// A spec the arguments do not fit (a keynum that is not a number, a range
    /// past the end) is skipped: the command itself replies with the error.
    pub fn key_positions<A: AsRef<[u8]>>(&self, argv: &[A]) -> Vec<(usize, u32)> {
        let argc = argv.len() as i64;
        let mut keys = Vec::new();
        for spec in self.key_specs {
            let first = match spec.begin {
                BeginSearch::Index(index) => i64::from(index),
                BeginSearch::Keyword { keyword, start } => {
                    let start = i64::from(start);
                    let found = if start > 0 {
                        (start..argc - 1).find(|&i| is_word(argv, i, keyword))
                    } else {
                        (2..=argc + start)
                            .rev()
                            .find(|&i| is_word(argv, i, keyword))
                    };
                    match found {
                        Some(i) => i + 1,
                        None => continue,
                    }
                }
            };
            let (first, last, step) = match spec.find {
                FindKeys::Range { last, step, limit } => {
                    let (last, limit) = (i64::from(last), i64::from(limit));
                    let last = if last >= 0 {
                        first + last
                    } else if limit == 0 {
                        argc + last
                    } else {
                        first + (argc - first) / limit + last
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
                        .and_then(|i| argv.get(i))
                        .and_then(|n| crate::args::parse_i64(n.as_ref()).ok())
                        .filter(|&n| n >= 0);
                    let Some(count) = count else { continue };
                    let first = first + i64::from(first_key);
                    (first, first + count - 1, i64::from(step))
                }
            };
            if first < 1 || first >= argc || last < first || last >= argc || step < 1 {
                continue;
            }
            keys.extend(
                (first..=last)
                    .step_by(step as usize)
                    .map(|i| (i as usize, spec.flags)),
            );
        }
        keys
    }
}

/// True when `argv[i]` is `word`, ignoring ASCII case.
fn is_word<A: AsRef<[u8]>>(argv: &[A], i: i64, word: &str) -> bool {
    usize::try_from(i)
        .ok()
        .and_then(|i| argv.get(i))
        .is_some_and(|arg| crate::args::is_keyword(arg.as_ref(), word))
}

/// Calls and errors of one command since the module loaded, for INFO.
pub struct CommandStats {
    calls: AtomicU64,
    errors: AtomicU64,
}

impl CommandStats {
    pub const fn new() -> CommandStats {
        CommandStats {
            calls: AtomicU64::new(0),
            errors: AtomicU64::new(0),
        }
    }

    pub fn record_call(&self) {
        self.calls.fetch_add(1, Ordering::Relaxed);
    }

    pub fn record_error(&self) {
        self.errors.fetch_add(1, Ordering::Relaxed);
    }

    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    pub fn errors(&self) -> u64 {
        self.errors.load(Ordering::Relaxed)
    }
}

impl Default for CommandStats {
    fn default() -> Self {
        CommandStats::new()
    }
}

/// Key-spec flags, as Redis defines them (see "key specs" in the Redis docs).
pub mod key_flags {
    use super::ffi;
    /// Read-only access to the value.
    pub const RO: u32 = ffi::REDISMODULE_CMD_KEY_RO;
    /// Read-write: the command reads and modifies the value.
    pub const RW: u32 = ffi::REDISMODULE_CMD_KEY_RW;
    /// Overwrite: the value is replaced without being read.
    pub const OW: u32 = ffi::REDISMODULE_CMD_KEY_OW;
    /// The key may be deleted.
    pub const RM: u32 = ffi::REDISMODULE_CMD_KEY_RM;
    /// User data of the value is returned or copied.
    pub const ACCESS: u32 = ffi::REDISMODULE_CMD_KEY_ACCESS;
    /// Data is updated, the new value may depend on the old one.
    pub const UPDATE: u32 = ffi::REDISMODULE_CMD_KEY_UPDATE;
    /// Data is only added.
    pub const INSERT: u32 = ffi::REDISMODULE_CMD_KEY_INSERT;
    /// Data is explicitly removed.
    pub const DELETE: u32 = ffi::REDISMODULE_CMD_KEY_DELETE;
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
}

/// One argument in COMMAND DOCS.
pub struct Arg {
    pub name: &'static str,
    pub kind: ArgKind,
    pub token: Option<&'static str>,
    pub optional: bool,
    pub multiple: bool,
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unused(_: &Ctx, _: &[RStr]) -> Result<(), ZkitError> {
        unreachable!("metadata tests never run a command")
    }

    extern "C" fn unused_callback(
        _: *mut RedisModuleCtx,
        _: *mut *mut RedisModuleString,
        _: c_int,
    ) -> c_int {
        unreachable!("metadata tests never run a command")
    }

    fn command(key_specs: &'static [KeySpec]) -> Command {
        Command {
            name: "test.keys",
            callback: unused_callback,
            handler: unused,
            flags: "",
            acl_categories: "",
            arity: -1,
            key_specs,
            summary: "",
            complexity: "",
            since: "",
            args: &[],
            stats: CommandStats::new(),
        }
    }

    const RANGE_ONE: FindKeys = FindKeys::Range {
        last: 0,
        step: 1,
        limit: 0,
    };

    fn positions(command: &Command, words: &str) -> Vec<usize> {
        let argv: Vec<&str> = words.split(' ').collect();
        command
            .key_positions(&argv)
            .into_iter()
            .map(|(i, _)| i)
            .collect()
    }

    #[test]
    fn keyword_specs_find_the_first_keyword_after_start() {
        static SPECS: &[KeySpec] = &[
            KeySpec::at(1, key_flags::RW),
            KeySpec::at(2, key_flags::RW),
            KeySpec {
                flags: key_flags::RO,
                begin: BeginSearch::Keyword {
                    keyword: "WINDOW",
                    start: 4,
                },
                find: RANGE_ONE,
            },
        ];
        let c = command(SPECS);
        assert!(c.needs_key_position_api());
        assert_eq!(positions(&c, "cmd a b WINDOW"), [1, 2]);
        assert_eq!(positions(&c, "cmd a b WINDOW UP"), [1, 2]);
        assert_eq!(positions(&c, "cmd a b WINDOW UP window t 5"), [1, 2, 6]);
        assert_eq!(positions(&c, "cmd a b x y WINDOW WINDOW 5"), [1, 2, 6]);
        // A keyword as the last argument has no key after it.
        assert_eq!(positions(&c, "cmd a b x y WINDOW"), [1, 2]);
        assert_eq!(positions(&c, "cmd a"), [1]);
        assert_eq!(
            c.key_positions(&["cmd", "a", "b", "x", "WINDOW", "t"])[2],
            (5, key_flags::RO)
        );
    }

    #[test]
    fn keyword_specs_search_backwards_from_a_negative_start() {
        static SPECS: &[KeySpec] = &[KeySpec {
            flags: key_flags::RO,
            begin: BeginSearch::Keyword {
                keyword: "STORE",
                start: -2,
            },
            find: RANGE_ONE,
        }];
        let c = command(SPECS);
        assert_eq!(positions(&c, "cmd x STORE a STORE b"), [5]);
        assert_eq!(positions(&c, "cmd STORE a"), Vec::<usize>::new());
    }

    #[test]
    fn keynum_specs_read_the_count() {
        static SPECS: &[KeySpec] = &[
            KeySpec::at(1, key_flags::OW),
            KeySpec {
                flags: key_flags::RO,
                begin: BeginSearch::Index(2),
                find: FindKeys::KeyNum {
                    count_index: 0,
                    first: 1,
                    step: 1,
                },
            },
        ];
        let c = command(SPECS);
        assert!(c.needs_key_position_api());
        assert_eq!(positions(&c, "cmd d 2 a b WEIGHTS 1 2"), [1, 3, 4]);
        assert_eq!(positions(&c, "cmd d 0"), [1]);
        // A count that is not a number or runs past the end finds nothing.
        assert_eq!(positions(&c, "cmd d x a"), [1]);
        assert_eq!(positions(&c, "cmd d 3 a b"), [1]);
        assert_eq!(positions(&c, "cmd d -1 a"), [1]);
    }

    #[test]
    fn consecutive_index_specs_fit_the_legacy_range() {
        static ONE: &[KeySpec] = &[KeySpec::at(1, key_flags::RW)];
        static TWO: &[KeySpec] = &[KeySpec::at(1, key_flags::RO), KeySpec::at(2, key_flags::RO)];
        static GAP: &[KeySpec] = &[KeySpec::at(1, key_flags::RO), KeySpec::at(3, key_flags::RO)];
        static REST: &[KeySpec] = &[KeySpec {
            flags: key_flags::RO,
            begin: BeginSearch::Index(1),
            find: FindKeys::Range {
                last: -1,
                step: 1,
                limit: 0,
            },
        }];
        assert!(!command(ONE).needs_key_position_api());
        assert!(!command(TWO).needs_key_position_api());
        assert!(!command(REST).needs_key_position_api());
        assert!(command(GAP).needs_key_position_api());
        assert_eq!(positions(&command(TWO), "cmd a b c"), [1, 2]);
        assert_eq!(positions(&command(REST), "cmd a b c"), [1, 2, 3]);
        assert_eq!(positions(&command(ONE), "cmd"), Vec::<usize>::new());
    }
}
