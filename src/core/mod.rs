//! Pure logic with no Redis types, unit- and property-tested on its own.

pub mod cursor;
pub mod rank;
pub mod score;
