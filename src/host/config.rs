//! Module configs (`CONFIG SET zkit.<name>`), each backed by a static the
//! commands read on every call. The static itself is the config's private
//! data, so registering allocates nothing that unloading would have to free.
//!
//! A renamed config keeps its former name as a deprecated alias: a second
//! module config, hidden from `CONFIG GET zkit.*` (named exactly it answers),
//! that reads and writes the same value, and names the new name in the log
//! when it is set. The module API has no aliases (the server's own configs
//! have them, `ALIAS_CONFIG` in config.c; a module cannot declare one), and
//! two module configs on one value meet two things in the server (module.c
//! and config.c, as read in Redis 7.0.15 and in Redis's and Valkey's
//! sources of October 2024):
//!
//! - `RedisModule_LoadConfigs` (`loadModuleConfigs`) calls the setter of
//!   every config the module registered, once each, in registration order:
//!   with the value redis.conf or `MODULE LOADEX ... CONFIG` gave it, and
//!   with its default otherwise. A twin writing the shared value would undo
//!   the other's line (with only `zkit.small-set-max 64` in redis.conf, the
//!   alias's default would come next and leave 128). So while the server
//!   applies configs at load, a former name's setter keeps its value apart,
//!   and [`Ctx::settle_former_name`] decides after: the new name's value,
//!   unless that is the default and the former name's is not. (zkit's own
//!   load arguments come after, `module::load`, and take either name.)
//! - `CONFIG REWRITE` (`rewriteConfig`) skips only the server's own
//!   `ALIAS_CONFIG` names: it rewrites each module config from its getter,
//!   replacing the config's line or, when the value is not the default,
//!   appending one. A value off its default is so written under both names.
//!   A former name's getter reads the one value, so the two lines always
//!   agree, and the load after reads them as one setting without a warning.
//!   (A getter that answered the default while the former name is unused
//!   would keep CONFIG GET from showing the value, and would rewrite a line
//!   `zkit.small-board-max 128` that a file had at the default beside
//!   `zkit.small-set-max 64`: a conflicting pair.) Since a rewrite may so
//!   write a former name into any redis.conf, a former name stays registered
//!   for as long as such files may be around, as `zkit.convert-loaded-boards`
//!   does.

use std::ffi::{c_char, c_int, c_longlong, c_void, CString};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

use redis_module::raw;

use super::api;

use super::ctx::Ctx;

/// True while the server applies the configs at load (redis.conf's lines,
/// `MODULE LOADEX`'s, the defaults), inside `RedisModule_LoadConfigs`.
static APPLYING_AT_LOAD: AtomicBool = AtomicBool::new(false);

/// A numeric config's value, which the server reads and writes through the
/// callbacks registered here, and the config's former name, if it was
/// renamed.
pub struct NumericValue {
    value: AtomicI64,
    former: Option<FormerName>,
}

/// A config's former name (without `zkit.`), still registered as a
/// deprecated alias of it.
struct FormerName {
    name: &'static str,
    /// The config's name now, which the log names.
    renamed_to: &'static str,
    /// What the server set the former name to while it applied the configs
    /// at load: its default unless redis.conf or `MODULE LOADEX` set it.
    at_load: AtomicI64,
}

impl NumericValue {
    pub const fn new(value: i64) -> NumericValue {
        NumericValue {
            value: AtomicI64::new(value),
            former: None,
        }
    }

    /// The value of config `name`, which was `former_name` before.
    pub const fn renamed(
        value: i64,
        name: &'static str,
        former_name: &'static str,
    ) -> NumericValue {
        NumericValue {
            value: AtomicI64::new(value),
            former: Some(FormerName {
                name: former_name,
                renamed_to: name,
                at_load: AtomicI64::new(value),
            }),
        }
    }

    pub fn get(&self) -> i64 {
        self.value.load(Ordering::Relaxed)
    }

    pub fn set(&self, value: i64) {
        self.value.store(value, Ordering::Relaxed);
    }

    /// The config's former name, still accepted (deprecated).
    pub fn former_name(&self) -> Option<&'static str> {
        self.former.as_ref().map(|former| former.name)
    }

    /// The line the log gets whenever the former name is set.
    pub fn former_name_notice(&self) -> Option<String> {
        self.former.as_ref().map(FormerName::notice)
    }
}

impl FormerName {
    fn notice(&self) -> String {
        let (former, name) = (self.name, self.renamed_to);
        format!(
            "zkit: zkit.{former} is deprecated: it sets zkit.{name}, its new name; use zkit.{name}"
        )
    }
}

impl Ctx {
    /// Registers the numeric config `zkit.<name>` in `[min, max]`, starting
    /// at `default`, read and written through `value`, and its former name
    /// if it has one. Call during load, then [`Ctx::load_configs`].
    pub fn register_numeric_config(
        &self,
        name: &str,
        value: &'static NumericValue,
        default: i64,
        min: i64,
        max: i64,
    ) -> Result<(), String> {
        self.register_numeric(name, false, value, default, min, max)?;
        if let Some(former) = value.former_name() {
            self.register_numeric(former, true, value, default, min, max)?;
        }
        Ok(())
    }

    /// Registers `zkit.<name>` on `value`: the config's name, or its former
    /// name (`as_former_name`).
    fn register_numeric(
        &self,
        name: &str,
        as_former_name: bool,
        value: &'static NumericValue,
        default: i64,
        min: i64,
        max: i64,
    ) -> Result<(), String> {
        let (flags, set): (u32, SetNumeric) = if as_former_name {
            // Hidden: CONFIG GET zkit.* lists each config once, by its name.
            (raw::REDISMODULE_CONFIG_HIDDEN, set_former_name)
        } else {
            (0, set_numeric)
        };
        let c_name = CString::new(name).map_err(|e| e.to_string())?;
        // SAFETY: load context; the server copies the name; `value` is a
        // static, valid for as long as the module is loaded.
        let status = unsafe {
            api!(RedisModule_RegisterNumericConfig)(
                self.as_ptr(),
                c_name.as_ptr(),
                default,
                raw::REDISMODULE_CONFIG_DEFAULT | flags,
                min,
                max,
                Some(get_numeric),
                Some(set),
                None,
                std::ptr::from_ref(value).cast_mut().cast(),
            )
        };
        if status == raw::REDISMODULE_OK as c_int {
            Ok(())
        } else {
            Err(format!("could not register the config zkit.{name}"))
        }
    }

    /// Applies the config values from redis.conf or the load arguments.
    pub fn load_configs(&self) -> Result<(), String> {
        APPLYING_AT_LOAD.store(true, Ordering::Relaxed);
        // SAFETY: load context, after every config is registered.
        let status = unsafe { api!(RedisModule_LoadConfigs)(self.as_ptr()) };
        APPLYING_AT_LOAD.store(false, Ordering::Relaxed);
        if status == raw::REDISMODULE_OK as c_int {
            Ok(())
        } else {
            Err("RedisModule_LoadConfigs failed (a zkit.* config value was refused)".into())
        }
    }

    /// After [`Ctx::load_configs`]: gives a renamed config the value its
    /// former name was set to at load (redis.conf, `MODULE LOADEX`), unless
    /// the new name was set to another (a value off the default), and names
    /// the former name in the log when it was set. Both set to the same
    /// value, as CONFIG REWRITE writes them, is one setting: nothing to say.
    pub fn settle_former_name(&self, value: &NumericValue, default: i64) {
        let Some(former) = &value.former else {
            return;
        };
        let (current, at_load) = (value.get(), former.at_load.load(Ordering::Relaxed));
        if at_load == default || at_load == current {
            return;
        }
        if current == default {
            value.set(at_load);
            self.log_warning(&former.notice());
        } else {
            self.log_warning(&format!(
                "zkit: zkit.{} {at_load} is ignored: zkit.{}, its new name, is set too ({current})",
                former.name, former.renamed_to
            ));
        }
    }
}

type SetNumeric = unsafe extern "C" fn(
    *const c_char,
    c_longlong,
    *mut c_void,
    *mut *mut raw::RedisModuleString,
) -> c_int;

/// # Safety
/// `privdata` is the `&'static NumericValue` given at registration.
unsafe extern "C" fn get_numeric(_name: *const c_char, privdata: *mut c_void) -> c_longlong {
    (*privdata.cast::<NumericValue>()).get()
}

/// The server checks the bounds before calling.
///
/// # Safety
/// As [`get_numeric`].
unsafe extern "C" fn set_numeric(
    _name: *const c_char,
    value: c_longlong,
    privdata: *mut c_void,
    _error: *mut *mut raw::RedisModuleString,
) -> c_int {
    (*privdata.cast::<NumericValue>()).set(value);
    raw::REDISMODULE_OK as c_int
}

/// A former name's setter: while the server applies the configs at load,
/// the value goes apart, for [`Ctx::settle_former_name`]; after, to the
/// config (CONFIG SET), and the log names the new name.
///
/// # Safety
/// As [`get_numeric`], for a config registered with a former name.
unsafe extern "C" fn set_former_name(
    _name: *const c_char,
    value: c_longlong,
    privdata: *mut c_void,
    _error: *mut *mut raw::RedisModuleString,
) -> c_int {
    let config = &*privdata.cast::<NumericValue>();
    let Some(former) = &config.former else {
        return raw::REDISMODULE_ERR as c_int;
    };
    if APPLYING_AT_LOAD.load(Ordering::Relaxed) {
        former.at_load.store(value, Ordering::Relaxed);
    } else {
        config.set(value);
        // No context here: the server calls setters outside any module call.
        super::ctx::log_warning_without_context(&former.notice());
    }
    raw::REDISMODULE_OK as c_int
}
