//! Counts of events since the module loaded, for INFO zkit: what
//! commandstats (calls, errors per command) does not already say.

use std::sync::atomic::{AtomicU64, Ordering};

/// One count, named by its INFO field in the registry (`COUNTERS`).
pub struct Counter(AtomicU64);

impl Counter {
    pub const fn new() -> Counter {
        Counter(AtomicU64::new(0))
    }

    pub fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }

    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    pub fn reset(&self) {
        self.0.store(0, Ordering::Relaxed);
    }
}

impl Default for Counter {
    fn default() -> Self {
        Counter::new()
    }
}
