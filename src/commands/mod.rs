//! The command layer: one file per command family. Each declares its
//! commands ([`declare_command!`](crate::declare_command)), parses their
//! arguments Redis-style (`args`), and handles them: read through `host`,
//! decide through `logic`, write through `host`. A family listed in
//! [`FAMILIES`] is registered, documented in COMMAND DOCS and counted in INFO.

pub mod args;
pub mod debug;
pub mod delay;
pub mod feed;
pub mod rank;
pub mod rate;
pub mod recent;
pub mod vote;

use std::sync::atomic::AtomicI64;

use crate::error::ZkitError;
use crate::host;

/// A zkit command's declaration; its handler fails with [`ZkitError`].
pub type Command = host::Command<ZkitError>;

/// Every zkit command, family by family.
pub static FAMILIES: &[&[&Command]] = &[
    rank::COMMANDS,
    feed::COMMANDS,
    delay::COMMANDS,
    rate::COMMANDS,
    recent::COMMANDS,
    vote::COMMANDS,
];

pub fn all() -> impl Iterator<Item = &'static Command> {
    FAMILIES.iter().flat_map(|family| family.iter().copied())
}

/// A numeric module config, `zkit.<name>` (CONFIG SET/GET), that commands
/// read on every call.
pub struct NumericConfig {
    pub name: &'static str,
    pub value: AtomicI64,
    pub default: i64,
    pub min: i64,
    pub max: i64,
}

/// Every zkit config.
pub static CONFIGS: &[&NumericConfig] = &[&rank::TIEBREAK_EPOCH_MS, &rank::TIEBREAK_SPAN_MS];
