//! Module configs (`CONFIG SET zkit.*`), read by commands on every call.

use std::sync::atomic::{AtomicI64, Ordering};

use crate::core::rank::{TieBreakClock, CLOCK_LIMIT_MS, DEFAULT_EPOCH_MS, DEFAULT_SPAN_MS};
use crate::store::Ctx;

static TIEBREAK_EPOCH_MS: AtomicI64 = AtomicI64::new(DEFAULT_EPOCH_MS);
static TIEBREAK_SPAN_MS: AtomicI64 = AtomicI64::new(DEFAULT_SPAN_MS);

/// Registers `zkit.tiebreak-epoch-ms` and `zkit.tiebreak-span-ms`, starting
/// from their defaults (a reload must not keep the values of the last load).
pub fn register(ctx: &Ctx) -> Result<(), String> {
    TIEBREAK_EPOCH_MS.store(DEFAULT_EPOCH_MS, Ordering::Relaxed);
    TIEBREAK_SPAN_MS.store(DEFAULT_SPAN_MS, Ordering::Relaxed);
    ctx.register_numeric_config(
        "tiebreak-epoch-ms",
        &TIEBREAK_EPOCH_MS,
        DEFAULT_EPOCH_MS,
        0,
        CLOCK_LIMIT_MS,
    )?;
    ctx.register_numeric_config(
        "tiebreak-span-ms",
        &TIEBREAK_SPAN_MS,
        DEFAULT_SPAN_MS,
        1,
        CLOCK_LIMIT_MS,
    )
}

/// The tie-break clock the RANK commands encode and decode with now.
pub fn tiebreak_clock() -> TieBreakClock {
    TieBreakClock::new(
        TIEBREAK_EPOCH_MS.load(Ordering::Relaxed),
        TIEBREAK_SPAN_MS.load(Ordering::Relaxed),
    )
    .expect("the config bounds keep the clock valid")
}
