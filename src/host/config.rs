//! Module configs (`CONFIG SET zkit.<name>`), each backed by a static the
//! commands read on every call. The static itself is the config's private
//! data, so registering allocates nothing that unloading would have to free.

use std::ffi::{c_char, c_int, c_longlong, c_void, CString};
use std::sync::atomic::{AtomicI64, Ordering};

use redis_module::raw;

use super::api;

use super::ctx::Ctx;

impl Ctx {
    /// Registers the numeric config `zkit.<name>` in `[min, max]`, starting
    /// at `default`, read and written through `value`. Call during load,
    /// then [`Ctx::load_configs`].
    pub fn register_numeric_config(
        &self,
        name: &str,
        value: &'static AtomicI64,
        default: i64,
        min: i64,
        max: i64,
    ) -> Result<(), String> {
        let c_name = CString::new(name).map_err(|e| e.to_string())?;
        // SAFETY: load context; the server copies the name; `value` is a
        // static, valid for as long as the module is loaded.
        let status = unsafe {
            api!(RedisModule_RegisterNumericConfig)(
                self.as_ptr(),
                c_name.as_ptr(),
                default,
                raw::REDISMODULE_CONFIG_DEFAULT,
                min,
                max,
                Some(get_numeric),
                Some(set_numeric),
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
        // SAFETY: load context, after every config is registered.
        let status = unsafe { api!(RedisModule_LoadConfigs)(self.as_ptr()) };
        if status == raw::REDISMODULE_OK as c_int {
            Ok(())
        } else {
            Err("RedisModule_LoadConfigs failed (a zkit.* config value was refused)".into())
        }
    }
}

/// # Safety
/// `privdata` is the `&'static AtomicI64` given at registration.
unsafe extern "C" fn get_numeric(_name: *const c_char, privdata: *mut c_void) -> c_longlong {
    (*privdata.cast::<AtomicI64>()).load(Ordering::Relaxed)
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
    (*privdata.cast::<AtomicI64>()).store(value, Ordering::Relaxed);
    raw::REDISMODULE_OK as c_int
}
