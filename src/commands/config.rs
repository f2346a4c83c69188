//! The module's numeric configs, `zkit.<name>` (CONFIG SET/GET), which
//! commands read on every call.

use std::sync::atomic::{AtomicI64, Ordering};

/// A numeric module config, `zkit.<name>`.
pub struct NumericConfig {
    pub name: &'static str,
    pub value: AtomicI64,
    pub default: i64,
    pub min: i64,
    pub max: i64,
}

impl NumericConfig {
    /// `zkit.<name>`, at `default` until set, within `min..=max`.
    pub const fn new(name: &'static str, default: i64, min: i64, max: i64) -> NumericConfig {
        NumericConfig {
            name,
            value: AtomicI64::new(default),
            default,
            min,
            max,
        }
    }

    /// The value in force.
    pub fn get(&self) -> i64 {
        self.value.load(Ordering::Relaxed)
    }
}
