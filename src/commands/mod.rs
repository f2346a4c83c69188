//! Command families, one file each. A family lists its commands in
//! `COMMANDS`; adding a family here registers it, documents it in COMMAND
//! DOCS and reports it in INFO.

use crate::command::Command;

pub mod debug;
pub mod delay;
pub mod feed;
pub mod rank;
pub mod rate;
pub mod recent;
pub mod vote;

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
