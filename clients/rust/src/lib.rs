//! A client for the zkit Redis module on the [`redis`] crate: one method per
//! zkit command with typed arguments and replies, over a single server
//! ([`redis::Connection`]) or Redis Cluster
//! ([`redis::cluster::ClusterConnection`]).
//!
//! ```no_run
//! use zkit::{RankGiftOptions, Zkit};
//!
//! # fn main() -> redis::RedisResult<()> {
//! let client = redis::Client::open("redis://127.0.0.1:6379")?;
//! let mut z = Zkit::new(client.get_connection()?);
//! let gift = z.rank_gift("gifts:room:42", "alice", 10, RankGiftOptions::default())?;
//! println!("alice has {} at rank {}", gift.total, gift.rank);
//! # Ok(())
//! # }
//! ```
//!
//! On a cluster every call goes to the primary that owns its first key's
//! slot, computed here from the key arguments the command table names, so
//! no node answers `MOVED`/`ASK` while the slot map is current and no
//! `COMMAND GETKEYS` round trip is made. Keys of one call must share a hash
//! slot (`{room42}:mon`, `{room42}:week`); other calls fail with a client
//! error before anything is sent.
//!
//! The same methods work with zkit's Functions library on servers that
//! refuse modules (managed services): the first call asks the server which
//! it has ([`Engine`]), and calls then go to the library as `FCALL`; a
//! server with neither answers an error saying how to load it
//! ([`Zkit::load_functions`] loads the copy this crate ships).
//!
//! Adding a command: declare it in the module, regenerate docs/commands.json
//! (`ZKIT_REGENERATE=1 cargo test --lib reference` at the repository root),
//! then `python3 scripts/gen/gen-clients.py` writes its method, options and
//! reply type here (from the declaration's reply shape); call it in tests/commands.rs
//! (`make test-clients` fails on a command the suite never sent).

// Generated from docs/commands.json by scripts/gen/gen-clients.py, which lays it
// out; rustfmt would only make it differ from what the generator writes.
#[rustfmt::skip]
mod commands;
mod engine;
// Generated too (scripts/gen/gen-clients.py), formatted as written.
#[rustfmt::skip]
mod replies;
mod resp;
mod slot;
mod worker;

use std::time::{Duration, Instant};

use redis::cluster::ClusterConnection;
use redis::cluster_routing::{
    MultipleNodeRoutingInfo, Route, RoutingInfo, SingleNodeRoutingInfo, SlotAddr,
};
use redis::{Cmd, ErrorKind, FromRedisValue, RedisError, RedisResult, ToRedisArgs, Value};

pub use commands::*;
pub use engine::{Engine, LIBRARY, NOT_LOADED, NO_LUA};
// Every reply type (replies.rs holds no other public item).
pub use replies::*;
pub use resp::Applied;
pub use slot::key_slot;
pub use worker::{
    failure_reason, DelayWorker, DelayWorkerOptions, Delivery, HandlerResult, Session, Stopper,
    WorkerError, REASON_MAX_CHARS,
};

/// A merge in steps ([`Zkit::rank_merge_step`]):
///
/// ```no_run
/// use zkit::{RankMergeOptions, Step, Zkit};
///
/// # fn main() -> redis::RedisResult<()> {
/// # let mut z = Zkit::new(redis::Client::open("redis://127.0.0.1:6379")?.get_connection()?);
/// let sources = ["{room42}:mon", "{room42}:tue"];
/// let mut cursor = "0".to_string();
/// loop {
///     let step = Step::new(1000, "{room42}:week:tmp", &cursor);
///     let reply = z.rank_merge_step("{room42}:week", &sources, step, RankMergeOptions::default())?;
///     if reply.is_done() {
///         break; // {room42}:week holds the merge of both days
///     }
///     cursor = reply.cursor;
/// }
/// # Ok(())
/// # }
/// ```
impl MergeStep {
    /// Whether this was the last step: destkey holds the merge.
    pub fn is_done(&self) -> bool {
        self.cursor == "0"
    }
}

/// zkit's commands over a connection: `Zkit::new(connection)`, then one
/// method per command (`rank_gift`, `delay_poll`, ...).
pub struct Zkit<C> {
    connection: C,
    engine: Option<Engine>,
}

impl<C: Transport> Zkit<C> {
    /// The first call asks the server whether it has the module or the
    /// Functions library.
    pub fn new(connection: C) -> Self {
        Zkit {
            connection,
            engine: None,
        }
    }

    /// Sends every call to `engine`, without asking the server.
    pub fn with_engine(connection: C, engine: Engine) -> Self {
        Zkit {
            connection,
            engine: Some(engine),
        }
    }

    /// The connection, for other commands.
    pub fn connection(&mut self) -> &mut C {
        &mut self.connection
    }

    pub fn into_inner(self) -> C {
        self.connection
    }

    /// Which zkit the server has (asked on the first call, then remembered);
    /// an error of kind `Client` with detail [`NOT_LOADED`] when it has
    /// neither.
    pub fn engine(&mut self) -> RedisResult<Engine> {
        if let Some(engine) = self.engine {
            return Ok(engine);
        }
        let connection = &mut self.connection;
        let engine = engine::detect(&mut |cmd| connection.execute(cmd))?;
        self.engine = Some(engine);
        Ok(engine)
    }

    /// Loads zkit's Functions library (the copy this crate ships,
    /// [`LIBRARY`]) on the server, on every primary of a cluster, where it
    /// is missing, an older release or another build of this one; a newer
    /// release stays unless `force`. Returns the version the (first) server
    /// holds after. Functions live in the server's data: they reach replicas
    /// and survive restarts with it. A server without Lua (Valkey 9+ without
    /// its Lua module) answers an error of kind `Client` with detail
    /// [`NO_LUA`] and its answer.
    pub fn load_functions(&mut self, force: bool) -> RedisResult<String> {
        let shipped = engine::library_version(LIBRARY).expect("the library declares its VERSION");
        let mut list = redis::cmd("FUNCTION");
        list.arg("LIST")
            .arg("LIBRARYNAME")
            .arg("zkit")
            .arg("WITHCODE");
        let mut load = redis::cmd("FUNCTION");
        load.arg("LOAD").arg("REPLACE").arg(LIBRARY);
        let mut held = Vec::new();
        for (node, listed) in self.connection.execute_on_primaries(&list)? {
            let current = engine::listed_version(&listed);
            if engine::should_load(current.as_deref(), shipped, force) {
                self.connection
                    .execute_on(&node, &load)
                    .map_err(engine::without_lua)?;
                held.push(shipped.to_string());
            } else {
                held.push(current.unwrap_or_else(|| shipped.to_string()));
            }
        }
        if self.engine != Some(Engine::Module) {
            self.engine = None;
            self.engine()?;
        }
        Ok(held.swap_remove(0))
    }

    fn send<R: FromRedisValue>(&mut self, call: Call<'_>) -> RedisResult<R> {
        let value = match self.engine()? {
            Engine::Module => self.connection.send(&call)?,
            Engine::Functions => {
                let sent = if call.command == "DELAY.BPOLL" {
                    self.poll_until_due(&call)
                } else {
                    self.connection.send(&call.for_library())
                };
                sent.map_err(|e| {
                    if !engine::is_not_loaded(&e) {
                        return engine::without_lua(e);
                    }
                    // The library was removed since: ask again next time.
                    self.engine = None;
                    engine::not_loaded()
                })?
            }
        };
        Ok(R::from_redis_value(value)?)
    }

    /// DELAY.BPOLL on the library, which cannot block: DELAY.POLL again
    /// with backoff until a task is due (its reply) or the timeout passes
    /// (nil).
    fn poll_until_due(&mut self, call: &Call<'_>) -> RedisResult<Value> {
        let args: Vec<Vec<u8>> = call.arguments();
        let timeout_ms: i64 = String::from_utf8_lossy(&args[2]).parse().unwrap_or(-1);
        if let Some(refused) = engine::bpoll_timeout_error(timeout_ms) {
            return Err(refused);
        }
        let mut poll = Call::new("DELAY.POLL");
        poll.keys = call.keys.clone();
        poll.cmd.arg(&args[1]);
        for arg in &args[3..] {
            poll.cmd.arg(arg.as_slice());
        }
        let poll = poll.for_library();
        let deadline =
            (timeout_ms > 0).then(|| Instant::now() + Duration::from_millis(timeout_ms as u64));
        let mut wait = BPOLL_FIRST_WAIT;
        loop {
            // With RATE, DELAY.POLL replies the tasks the window allowed and
            // the ms until it has room; the blocking call replies the tasks.
            let (tasks, room_in_ms) = match self.connection.send(&poll)? {
                Value::Array(mut rated)
                    if rated.len() == 2 && matches!(rated[1], Value::Int(_)) =>
                {
                    let room_in_ms = match rated.pop() {
                        Some(Value::Int(ms)) => ms,
                        _ => -1,
                    };
                    (rated.pop().unwrap_or(Value::Nil), room_in_ms)
                }
                tasks => (tasks, -1),
            };
            if matches!(&tasks, Value::Array(items) if !items.is_empty()) {
                return Ok(tasks);
            }
            let next = if room_in_ms > 0 {
                Duration::from_millis(room_in_ms as u64)
            } else {
                wait
            };
            let pause = match deadline {
                None => next,
                Some(deadline) => match deadline.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => next.min(left),
                    _ => return Ok(Value::Nil),
                },
            };
            std::thread::sleep(pause);
            wait = (wait * 2).min(BPOLL_LONGEST_WAIT);
        }
    }
}

const BPOLL_FIRST_WAIT: Duration = Duration::from_millis(engine::BPOLL_BACKOFF_MS.0);
const BPOLL_LONGEST_WAIT: Duration = Duration::from_millis(engine::BPOLL_BACKOFF_MS.1);

/// A connection zkit's calls can go over: where a call is sent is the
/// connection's business (a cluster routes by the call's keys).
pub trait Transport {
    fn send(&mut self, call: &Call<'_>) -> RedisResult<Value>;
    /// Runs a command on the server (a cluster: on a random primary).
    fn execute(&mut self, cmd: &Cmd) -> RedisResult<Value>;
    /// Runs a command on the server, or on every primary of a cluster:
    /// each one's address and reply.
    fn execute_on_primaries(&mut self, cmd: &Cmd) -> RedisResult<Vec<(String, Value)>>;
    /// Runs a command on the node at `address` (as `execute_on_primaries`
    /// names it).
    fn execute_on(&mut self, address: &str, cmd: &Cmd) -> RedisResult<Value>;
}

impl Transport for redis::Connection {
    fn send(&mut self, call: &Call<'_>) -> RedisResult<Value> {
        call.cmd.query(self)
    }

    fn execute(&mut self, cmd: &Cmd) -> RedisResult<Value> {
        cmd.query(self)
    }

    fn execute_on_primaries(&mut self, cmd: &Cmd) -> RedisResult<Vec<(String, Value)>> {
        Ok(vec![(String::new(), cmd.query(self)?)])
    }

    fn execute_on(&mut self, _address: &str, cmd: &Cmd) -> RedisResult<Value> {
        cmd.query(self)
    }
}

impl Transport for ClusterConnection {
    fn send(&mut self, call: &Call<'_>) -> RedisResult<Value> {
        let node = match slot::slot_of(call.command, &call.keys)? {
            Some(slot) => SingleNodeRoutingInfo::SpecificNode(Route::new(slot, SlotAddr::Master)),
            None => SingleNodeRoutingInfo::RandomPrimary,
        };
        self.route_command(&call.cmd, RoutingInfo::SingleNode(node))
    }

    fn execute(&mut self, cmd: &Cmd) -> RedisResult<Value> {
        self.route_command(
            cmd,
            RoutingInfo::SingleNode(SingleNodeRoutingInfo::RandomPrimary),
        )
    }

    fn execute_on_primaries(&mut self, cmd: &Cmd) -> RedisResult<Vec<(String, Value)>> {
        let all = RoutingInfo::MultiNode((MultipleNodeRoutingInfo::AllMasters, None));
        match self.route_command(cmd, all)? {
            Value::Map(replies) => Ok(replies
                .into_iter()
                .map(|(node, reply)| (String::from_redis_value(node).unwrap_or_default(), reply))
                .collect()),
            other => Ok(vec![(String::new(), other)]),
        }
    }

    fn execute_on(&mut self, address: &str, cmd: &Cmd) -> RedisResult<Value> {
        let (host, port) = address.rsplit_once(':').ok_or_else(|| {
            RedisError::from((ErrorKind::Client, "no such node", address.to_string()))
        })?;
        let node = SingleNodeRoutingInfo::ByAddress {
            host: host.to_string(),
            port: port.parse().unwrap_or(0),
        };
        self.route_command(cmd, RoutingInfo::SingleNode(node))
    }
}

/// One call being laid out by a generated method: its arguments in order
/// and which of them are keys (`keys[0]` routes it).
pub struct Call<'k> {
    command: &'static str,
    cmd: Cmd,
    keys: Vec<&'k str>,
}

impl<'k> Call<'k> {
    fn new(command: &'static str) -> Self {
        Call {
            command,
            cmd: redis::cmd(command),
            keys: Vec::new(),
        }
    }

    /// The command's name.
    pub fn command(&self) -> &'static str {
        self.command
    }

    /// The key arguments, in order.
    pub fn keys(&self) -> &[&'k str] {
        &self.keys
    }

    /// The arguments to send, the command's name first.
    pub fn cmd(&self) -> &Cmd {
        &self.cmd
    }

    /// The call's arguments as bytes, the command's name first.
    fn arguments(&self) -> Vec<Vec<u8>> {
        self.cmd
            .args_iter()
            .map(|arg| match arg {
                redis::Arg::Simple(bytes) => bytes.to_vec(),
                // zkit's calls hold no SCAN cursor.
                _ => b"0".to_vec(),
            })
            .collect()
    }

    /// The call as the Functions library runs it: `FCALL zkit_<command>
    /// numkeys key... arg...`, routed by the same keys.
    fn for_library(&self) -> Call<'k> {
        let mut cmd = redis::cmd("FCALL");
        cmd.arg(engine::function_name(self.command))
            .arg(self.keys.len())
            .arg(&self.keys);
        for arg in self.arguments().iter().skip(1) {
            cmd.arg(arg.as_slice());
        }
        Call {
            command: self.command,
            cmd,
            keys: self.keys.clone(),
        }
    }

    fn key(&mut self, key: &'k str) {
        self.cmd.arg(key);
        self.keys.push(key);
    }

    fn arg<T: ToRedisArgs>(&mut self, value: T) {
        self.cmd.arg(value);
    }

    /// `numkeys key [key ...]`.
    fn counted_keys(&mut self, name: &str, keys: &'k [&'k str]) -> RedisResult<()> {
        self.non_empty(name, keys)?;
        self.cmd.arg(keys.len());
        for key in keys {
            self.key(key);
        }
        Ok(())
    }

    /// `TOKEN value [value ...]`: the server takes every argument after the
    /// keyword as a value, so a value may be spelled like any option.
    fn values<T: ToRedisArgs>(&mut self, token: &str, name: &str, values: &[T]) -> RedisResult<()> {
        self.non_empty(name, values)?;
        self.cmd.arg(token).arg(values);
        Ok(())
    }

    /// `TOKEN key [key ...]`, the keys routed as the others (DELAY.POLL's
    /// `LANES`).
    fn keys_after(&mut self, token: &str, name: &str, keys: &'k [&'k str]) -> RedisResult<()> {
        self.non_empty(name, keys)?;
        self.cmd.arg(token);
        for key in keys {
            self.key(key);
        }
        Ok(())
    }

    fn non_empty<T>(&self, name: &str, values: &[T]) -> RedisResult<()> {
        if values.is_empty() {
            return Err(RedisError::from((
                ErrorKind::Client,
                "empty list",
                format!("{}: {name} must not be empty", self.command),
            )));
        }
        Ok(())
    }
}
