//! A command as the server sees it: one static declaration holds its handler
//! and everything the server is told about it (flags, arity, key specs, ACL
//! categories, COMMAND DOCS text, arguments), so registration, COMMAND DOCS,
//! COMMAND GETKEYS and INFO all read the same value; and the dispatcher that
//! runs it when the server calls.

use std::ffi::c_int;
use std::fmt::Display;
use std::panic::{self, AssertUnwindSafe};

use redis_module::raw;

use super::ctx::Ctx;
use super::error::HostError;
use super::grammar::{self, Arg, GrammarError, Request};
use super::keyspec::{self, key_flags, KeySpec};
use super::reply_shape::ReplyShape;
use super::string::RStr;

/// The C entry point the server calls; [`declare_command!`](crate::declare_command) writes one per
/// command, bound to its own declaration.
pub type CommandCallback =
    extern "C" fn(*mut raw::RedisModuleCtx, *mut *mut raw::RedisModuleString, c_int) -> c_int;

/// A command body: takes the call parsed by the command's grammar, checks,
/// acts and writes the reply when all went well; on `Err` the dispatcher
/// replies with the error instead. [`declare_command!`](crate::declare_command) writes it around the
/// command's handler, which takes its typed request ([`FromArgs`]) and
/// returns its reply as a value ([`WriteReply`](super::reply::WriteReply)), so an error never follows
/// half a reply.
pub type Handler<E> = for<'a> fn(&Ctx, Request<'a, RStr>) -> Result<(), E>;

/// Reads a call's typed request and drops it: what the handler's request
/// reads, for `trace_reads` (a unit test over every declaration).
pub type ReadRequest = for<'a> fn(&mut Request<'a, RStr>);

/// Parses a call with the parse generated for its command and runs the
/// handler on it; `None` when the parse refuses the call, which the walk
/// over the declaration then parses for the error it replies.
pub type ParseAndRun<E> = for<'a> fn(&Ctx, &'a [RStr]) -> Option<Result<(), E>>;

/// A command's typed arguments, read from its parsed call in declaration
/// order.
pub trait FromArgs<'a>: Sized {
    fn from_args(args: &mut Request<'a, RStr>) -> Self;
}

impl<'a> Request<'a, RStr> {
    /// A part of a request read by its own [`FromArgs`] (options several
    /// commands share).
    pub fn part<T: FromArgs<'a>>(&mut self) -> T {
        T::from_args(self)
    }
}

/// A command that takes no arguments.
impl FromArgs<'_> for () {
    fn from_args(_: &mut Request<'_, RStr>) {}
}

/// One command's declaration. `E` is the error type its handler returns;
/// its `Display` text is the error reply.
pub struct Command<E: 'static> {
    /// Lowercase, `family.verb`.
    pub name: &'static str,
    /// Command flags as RedisModule_CreateCommand takes them.
    pub flags: &'static str,
    /// ACL categories, applied on servers that support them (7.2+).
    pub acl_categories: &'static str,
    pub summary: &'static str,
    pub complexity: &'static str,
    pub since: &'static str,
    /// What later versions changed, as COMMAND DOCS shows it: (version,
    /// what changed), oldest first.
    pub history: &'static [(&'static str, &'static str)],
    /// The grammar: what parses a call, finds its keys, and documents it.
    pub args: &'static [Arg],
    /// Calls of the command that together give every keyword of `args`
    /// (several where options exclude each other), each valid in this order
    /// on an empty server, as redis-cli words (a word with spaces in double
    /// quotes). Every key is spelled with the hash tag `{t}`, which no other
    /// word holds, so a test knows the keys of a call and a cluster takes it
    /// whole; a line of another command (a native `ZADD`) sets up the next.
    /// docs/commands.json carries them: the GETKEYS and every-option checks
    /// and the clients' generated every-command tests run them.
    pub examples: &'static [&'static str],
    /// What a call replies when it succeeds (docs/commands.json's
    /// `reply_schema`, the clients' reply types); read by the reference
    /// generator only, never on a call.
    pub reply: ReplyShape,
    pub handler: Handler<E>,
    pub read_request: ReadRequest,
    /// The parse generated from `args` ([`grammar::parse_declared`]), the
    /// handler run on the parsed call.
    pub parse_and_run: ParseAndRun<E>,
    /// The generated parse alone, on byte strings: what the unit tests hold
    /// to the walk over `args`.
    #[cfg(test)]
    pub generated_parse: fn(&[Vec<u8>]) -> Option<grammar::ParsedCall>,
    pub callback: CommandCallback,
}

/// Declares a command static and its C callback, which dispatches to that
/// very static (the macro names it once, so a copied declaration cannot
/// dispatch to another command). Give every field of [`Command`] but
/// `callback`, `read_request`, `parse_and_run` and `generated_parse`: the
/// macro gives the command a type of its own whose constant is `args`, so
/// its parse is generated for it (`grammar::generated`); `handler` names a `fn(&Ctx, T) ->
/// Result<R, E>` where `T` is the command's typed request ([`FromArgs`]) and
/// `R` its reply ([`WriteReply`](super::reply::WriteReply)), or a wrapper of such a function for an
/// option several commands share (`idmp::once(gift)` in `commands`):
///
/// ```ignore
/// declare_command! {
///     pub static GET: Command = {
///         name: "rank.get",
///         handler: get,
///         flags: "readonly fast",
///         ...
///     }
/// }
/// ```
#[macro_export]
macro_rules! declare_command {
    ($(#[$meta:meta])* $vis:vis static $name:ident: $ty:ty = { $($field:ident: $value:expr),* $(,)? }) => {
        $(#[$meta])*
        $vis static $name: $ty = {
            struct Declaration;
            impl $crate::host::grammar::Declared for Declaration {
                const ARGS: &'static [$crate::host::grammar::Arg] =
                    declare_command!(@args $($field $value,)*);
            }
            $crate::host::command::Command {
                $($field: declare_command!(@field $name $field $value),)*
                read_request: declare_command!(@read $($field $value,)*),
                parse_and_run: |ctx, argv| {
                    $crate::host::grammar::parse_declared::<Declaration, _, _>(
                        argv,
                        $name.args,
                        |request| ($name.handler)(ctx, request),
                    )
                },
                #[cfg(test)]
                generated_parse: $crate::host::grammar::generated_parse::<Declaration>,
                callback: {
                    extern "C" fn callback(
                        ctx: *mut $crate::host::RawCtx,
                        argv: *mut *mut $crate::host::RawString,
                        argc: std::ffi::c_int,
                    ) -> std::ffi::c_int {
                        $crate::host::command::dispatch(&$name, ctx, argv, argc)
                    }
                    callback
                },
            }
        };
    };
    (@field $command:ident handler $handler:expr) => {
        |ctx, request| {
            let mut request = request.declared_by($command.args);
            let args = $crate::host::command::FromArgs::from_args(&mut request);
            debug_assert!(request.is_read(), "the request leaves declared arguments unread");
            let reply = $handler(ctx, args)?;
            $crate::host::reply::WriteReply::write(&reply, ctx);
            Ok(())
        }
    };
    (@field $command:ident args $value:expr) => {
        <Declaration as $crate::host::grammar::Declared>::ARGS
    };
    (@field $command:ident $field:ident $value:expr) => {
        $value
    };
    (@read handler $handler:expr, $($rest:tt)*) => {
        |request| $crate::host::command::read_request_of($handler, request)
    };
    (@read $field:ident $value:expr, $($rest:tt)*) => {
        declare_command!(@read $($rest)*)
    };
    (@args args $args:expr, $($rest:tt)*) => {
        $args
    };
    (@args $field:ident $value:expr, $($rest:tt)*) => {
        declare_command!(@args $($rest)*)
    };
}

/// Reads the request a handler takes, for [`Command::read_request`].
#[doc(hidden)]
pub fn read_request_of<'a, T: FromArgs<'a>, R, E>(
    _handler: impl Fn(&Ctx, T) -> Result<R, E>,
    request: &mut Request<'a, RStr>,
) {
    T::from_args(request);
}

/// Declares a command's typed request and reads it from the parsed call, in
/// declaration order: each field names the [`Request`] reader of its
/// argument (`key`, `string`, `integer`, `flag`, `option(...)`, `list(...)`,
/// `one_of(...)`), so the struct and its reading are written once. A count
/// (`numkeys`, [`Arg::count`](super::grammar::Arg::count)) has no field: the grammar
/// consumes it, and the list it counts holds that many items.
///
/// ```ignore
/// request! {
///     /// RANK.GET `key member [SHARED]`.
///     struct Get<'a> {
///         key: &'a RStr = key,
///         member: &'a RStr = string,
///         shared: bool = flag,
///     }
/// }
/// ```
#[macro_export]
macro_rules! request {
    ($(#[$meta:meta])* $vis:vis struct $name:ident<$a:lifetime> {
        $($(#[$field_meta:meta])* $field:ident: $ty:ty = $reader:ident $(($($arg:expr),*))?),* $(,)?
    }) => {
        $(#[$meta])*
        $vis struct $name<$a> {
            $($(#[$field_meta])* $field: $ty,)*
        }

        impl<$a> $crate::host::command::FromArgs<$a> for $name<$a> {
            #[inline(always)]
            fn from_args(args: &mut $crate::host::grammar::Request<$a, $crate::host::string::RStr>) -> Self {
                $name {
                    $($field: args.$reader($($($arg),*)?),)*
                }
            }
        }
    };
}

impl<E> Command<E> {
    /// The key specs the server is told, from the grammar.
    pub fn key_specs(&self) -> Vec<KeySpec> {
        keyspec::key_specs(self.args, key_flags::INCOMPLETE)
    }

    /// Redis arity, from the grammar: exact if positive, a minimum if
    /// negative (the command name included).
    pub fn arity(&self) -> i32 {
        grammar::arity(self.args)
    }

    /// The command's syntax, as error replies and docs show it.
    pub fn usage(&self) -> String {
        grammar::usage(self.name, self.args)
    }
}

/// Runs one command for the server: answers key-position requests from the
/// grammar, parses the call, runs the handler and writes its reply, or turns
/// an error or a panic into the error reply. A panic never unwinds into the
/// server.
#[doc(hidden)]
pub fn dispatch<E: Display + From<HostError> + From<GrammarError>>(
    command: &'static Command<E>,
    ctx: *mut raw::RedisModuleCtx,
    argv: *mut *mut raw::RedisModuleString,
    argc: c_int,
) -> c_int {
    let args = RStr::slice_from_argv(argv, usize::try_from(argc).unwrap_or(0));
    let ctx = Ctx::for_command(ctx, args);
    if ctx.is_keys_position_request() {
        // Redis Cluster asks where the keys are (see `needs_getkeys_api`).
        // The grammar's own parse: a value spelled like a keyword is never
        // taken for a key.
        let _ = grammar::parse(
            command.name,
            command.args,
            args,
            &mut |position, flags| ctx.key_at_position(position, flags),
            |_| (),
        );
        return raw::REDISMODULE_OK as c_int;
    }
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
        if let Some(outcome) = (command.parse_and_run)(&ctx, args) {
            return outcome;
        }
        // The generated parse refused the call: the walk over the
        // declaration says why (and would run a call it parses, though the
        // two agree on every call: `commands`' unit tests hold them to it).
        let parsed = grammar::parse(
            command.name,
            command.args,
            args,
            &mut |_, _| {},
            |request| (command.handler)(&ctx, request),
        );
        match parsed {
            Ok(outcome) => outcome,
            // The arity comes from the grammar, so a call that parses fits
            // it: only a refused one is measured against it, for the
            // server's own arity error.
            Err(_) if !arity_fits(command.arity(), args.len()) => {
                Err(E::from(HostError::Arity(command.name)))
            }
            Err(error) => Err(E::from(error)),
        }
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
/// modules and future server versions may not; the arity error is the one
/// Redis gives.
fn arity_fits(arity: i32, argc: usize) -> bool {
    let argc = argc as i64;
    let arity = i64::from(arity);
    if arity >= 0 {
        argc == arity
    } else {
        argc >= -arity
    }
}

/// The words of a call written as [`Command::examples`] writes them.
pub fn example_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut rest = line.trim_start();
    while !rest.is_empty() {
        let (word, after) = match rest.strip_prefix('"') {
            Some(quoted) => quoted.split_once('"').unwrap_or((quoted, "")),
            None => rest.split_once(' ').unwrap_or((rest, "")),
        };
        words.push(word.to_string());
        rest = after.trim_start();
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arity_is_exact_or_minimum() {
        assert!(arity_fits(3, 3));
        assert!(!arity_fits(3, 4));
        assert!(arity_fits(-4, 4));
        assert!(arity_fits(-4, 9));
        assert!(!arity_fits(-4, 3));
    }
}
