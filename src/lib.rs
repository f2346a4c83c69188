//! zkit: composite-score commands on native Redis sorted sets.
//!
//! The layers, each importing only from the ones below it:
//!
//! - `module/`: what MODULE LOAD sets up (configs, commands, INFO) and the
//!   entry points the server calls;
//! - `commands/`: one file per command family: declarations (each
//!   command's grammar, which `host/` parses into its typed request) and
//!   handlers that check ranges, read, decide (through `logic/`) and write
//!   (through `host/`);
//! - `logic/`: pure rules with no server types (score layouts, cursors, vote
//!   deltas, window decisions, claim selection), unit-tested on their own;
//! - `host/`: the only code that talks to the module API, and the only
//!   `unsafe` code.
//!
//! `error.rs` spells every error reply, for `commands/` and `module/`.
#![deny(unsafe_code)]

pub mod commands;
pub mod error;
pub mod host;
pub mod logic;
mod module;

/// The version MODULE LIST shows: major * 10000 + minor * 100 + patch.
pub const MODULE_VERSION: i32 = {
    let v = env!("CARGO_PKG_VERSION").as_bytes();
    let mut parts = [0i32; 3];
    let (mut i, mut part) = (0, 0);
    while i < v.len() && part < 3 {
        match v[i] {
            b'.' => part += 1,
            b'0'..=b'9' => parts[part] = parts[part] * 10 + (v[i] - b'0') as i32,
            _ => break,
        }
        i += 1;
    }
    parts[0] * 10_000 + parts[1] * 100 + parts[2]
};
