//! A command's grammar: the declared arguments are the only description of
//! a command's syntax, and everything reads them: the parser that turns a
//! call into typed values, the key positions (COMMAND GETKEYS, ACL, Cluster),
//! the key specs and arity the server is told, COMMAND DOCS, the usage line
//! of a syntax error, and the check that no value can be taken for a keyword.
//!
//! The shapes follow Redis's own unambiguous grammars:
//! - positionals at fixed places (`key member amount`);
//! - options: a keyword and a fixed number of typed values (`AT unix-ms`,
//!   `LEASE inflight ms`), or a keyword alone (`SHARED`), in any order
//!   within their group, each at most once;
//! - lists, either counted by an earlier integer (`numkeys key [key ...]`,
//!   `WEIGHTS w [w ...]`) or introduced by a keyword after which every
//!   argument is a value (`ITEMS a b c`, as `XREAD ... STREAMS` does), or at
//!   the end, of a type no option keyword can spell (`score member ...` after
//!   `[CAP n]`, as ZADD does).
//!
//! [`ambiguity`] proves the last part for each declaration: no grammar may
//! let a value stand where a keyword is looked for.
//!
//! Plain Rust on byte strings, so it is unit-tested without a server.
//!
//! One file per concern: the argument builders (`arg`), numbers as Redis
//! reads them (`number`), keywords (`keyword`), the walk over a
//! declaration (`parse`) and each command's parse generated from it
//! (`generated`), a parsed call's values (`slot`) and its typed reading
//! (`request`), and usage, arity and the ambiguity proof (`syntax`).

mod arg;
#[cfg(test)]
pub(super) mod examples;
mod generated;
mod keyword;
mod number;
mod parse;
mod request;
mod slot;
mod syntax;

pub use arg::{keywords, nodes, Arg, ArgKind};
#[cfg(test)]
pub use generated::generated_parse;
pub use generated::{parse_declared, Declared};
pub use number::parse_f64;
#[cfg(test)]
pub use parse::walked_parse;
pub use parse::{parse, GrammarError, Mistake};
pub use request::{trace_reads, Items, Request, WordList};
#[cfg(test)]
pub use slot::ParsedCall;
pub use slot::MAX_NODES;
pub use syntax::{ambiguity, arity, usage};
