//! Pure logic with no Redis types, unit- and property-tested on its own.

pub mod clock;
pub mod columns;
pub mod cursor;
pub mod delay;
pub mod family;
pub mod groups;
pub mod hex;
pub mod idmp;
pub mod jobs;
pub mod layout;
pub mod merge;
pub mod rank;
pub mod rate;
pub mod recent;
pub mod schedule;
pub mod score;
pub mod season;
pub mod stats;
pub mod vote;
