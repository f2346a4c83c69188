//! Module configs (`CONFIG SET zkit.*`), read by commands on every call.

use std::sync::atomic::{AtomicI64, Ordering};

use redis_module::configuration::{register_i64_configuration, ConfigurationFlags};
use redis_module::Context;

use crate::core::rank::{TieBreakClock, CLOCK_LIMIT_MS, DEFAULT_EPOCH_MS, DEFAULT_SPAN_MS};

static TIEBREAK_EPOCH_MS: AtomicI64 = AtomicI64::new(DEFAULT_EPOCH_MS);
static TIEBREAK_SPAN_MS: AtomicI64 = AtomicI64::new(DEFAULT_SPAN_MS);

/// Registers `zkit.tiebreak-epoch-ms` and `zkit.tiebreak-span-ms`.
pub fn register(ctx: &Context) {
    register_i64_configuration(
        ctx,
        "tiebreak-epoch-ms",
        &TIEBREAK_EPOCH_MS,
        DEFAULT_EPOCH_MS,
        0,
        CLOCK_LIMIT_MS,
        ConfigurationFlags::DEFAULT,
        None,
    );
    register_i64_configuration(
        ctx,
        "tiebreak-span-ms",
        &TIEBREAK_SPAN_MS,
        DEFAULT_SPAN_MS,
        1,
        CLOCK_LIMIT_MS,
        ConfigurationFlags::DEFAULT,
        None,
    );
}

/// The tie-break clock the RANK commands encode and decode with now.
pub fn tiebreak_clock() -> TieBreakClock {
    TieBreakClock::new(
        TIEBREAK_EPOCH_MS.load(Ordering::Relaxed),
        TIEBREAK_SPAN_MS.load(Ordering::Relaxed),
    )
    .expect("the config bounds keep the clock valid")
}
