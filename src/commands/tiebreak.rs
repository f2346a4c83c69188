//! The tie-break clock every board's scores are encoded with
//! (`logic::rank`), and the two configs that set its window: RANK's
//! commands and RANK.MERGE's steps read it on every call.

use super::config::NumericConfig;
use crate::logic::rank::{TieBreakClock, CLOCK_LIMIT_MS, DEFAULT_EPOCH_MS, DEFAULT_SPAN_MS};

/// `zkit.tiebreak-epoch-ms`: the start of the tie-break window (unix ms).
pub static TIEBREAK_EPOCH_MS: NumericConfig =
    NumericConfig::new("tiebreak-epoch-ms", DEFAULT_EPOCH_MS, 0, CLOCK_LIMIT_MS);

/// `zkit.tiebreak-span-ms`: the length of the tie-break window.
pub static TIEBREAK_SPAN_MS: NumericConfig =
    NumericConfig::new("tiebreak-span-ms", DEFAULT_SPAN_MS, 1, CLOCK_LIMIT_MS);

/// The tie-break clock boards encode and decode with now.
pub fn tiebreak_clock() -> TieBreakClock {
    TieBreakClock::new(TIEBREAK_EPOCH_MS.get(), TIEBREAK_SPAN_MS.get())
        .expect("the config bounds keep the clock valid")
}
