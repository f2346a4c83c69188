//! The module's numeric configs, `zkit.<name>` (CONFIG SET/GET), which
//! commands read on every call.

use crate::host::config::NumericValue;

/// A numeric module config, `zkit.<name>`.
pub struct NumericConfig {
    pub name: &'static str,
    pub value: NumericValue,
    pub default: i64,
    pub min: i64,
    pub max: i64,
}

impl NumericConfig {
    /// `zkit.<name>`, at `default` until set, within `min..=max`.
    pub const fn new(name: &'static str, default: i64, min: i64, max: i64) -> NumericConfig {
        NumericConfig {
            name,
            value: NumericValue::new(default),
            default,
            min,
            max,
        }
    }

    /// As [`NumericConfig::new`], for a config renamed from
    /// `zkit.<former_name>`: the former name is still accepted (deprecated)
    /// wherever the name is (redis.conf, the load arguments, CONFIG SET and
    /// GET), reads and writes the same value, and is named in the log
    /// whenever it is set (`host::config` says how).
    pub const fn renamed(
        name: &'static str,
        former_name: &'static str,
        default: i64,
        min: i64,
        max: i64,
    ) -> NumericConfig {
        NumericConfig {
            name,
            value: NumericValue::renamed(default, name, former_name),
            default,
            min,
            max,
        }
    }

    /// The value in force.
    pub fn get(&self) -> i64 {
        self.value.get()
    }
}
