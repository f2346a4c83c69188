//! The types a family declares its commands with: the declaration
//! ([`Command`], whose handler fails with [`ZkitError`]) and the lists its
//! request reads.

use crate::error::ZkitError;
use crate::host;

/// A zkit command's declaration; its handler fails with [`ZkitError`].
pub type Command = host::command::Command<ZkitError>;

/// A list of a command's request, read item by item from the call.
pub type Items<'a, T> = host::grammar::Items<'a, host::string::RStr, T>;

/// A list of single keys or strings of a command's request: the call's
/// own words.
pub type WordList<'a> = host::grammar::WordList<'a, host::string::RStr>;
