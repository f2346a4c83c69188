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
//! Adding a command: declare it in the module, regenerate docs/commands.json
//! (`ZKIT_REGENERATE=1 cargo test --lib reference` at the repository root),
//! name its reply shape in `COMMAND_REPLIES` of scripts/gen-clients.py (a new
//! shape needs a type in `replies.rs`), then `python3 scripts/gen-clients.py`
//! writes its method and options here; call it in tests/commands.rs
//! (`make test-clients` fails on a command the suite never sent).

// Generated from docs/commands.json by scripts/gen-clients.py, which lays it
// out; rustfmt would only make it differ from what the generator writes.
#[rustfmt::skip]
mod commands;
mod replies;
mod slot;

use redis::cluster::ClusterConnection;
use redis::cluster_routing::{Route, RoutingInfo, SingleNodeRoutingInfo, SlotAddr};
use redis::{Cmd, ErrorKind, FromRedisValue, RedisError, RedisResult, ToRedisArgs, Value};

pub use commands::*;
pub use replies::{
    BoardStats, DelayStats, FeedItem, FeedPage, RankEntry, RankInfo, RateResult, RateStats, Task,
    TotalRank, VoteResult,
};
pub use slot::key_slot;

/// zkit's commands over a connection: `Zkit::new(connection)`, then one
/// method per command (`rank_gift`, `delay_poll`, ...).
pub struct Zkit<C> {
    connection: C,
}

impl<C: Transport> Zkit<C> {
    pub fn new(connection: C) -> Self {
        Zkit { connection }
    }

    /// The connection, for other commands.
    pub fn connection(&mut self) -> &mut C {
        &mut self.connection
    }

    pub fn into_inner(self) -> C {
        self.connection
    }

    fn send<R: FromRedisValue>(&mut self, call: Call<'_>) -> RedisResult<R> {
        let value = self.connection.send(&call)?;
        Ok(R::from_redis_value(value)?)
    }
}

/// A connection zkit's calls can go over: where a call is sent is the
/// connection's business (a cluster routes by the call's keys).
pub trait Transport {
    fn send(&mut self, call: &Call<'_>) -> RedisResult<Value>;
}

impl Transport for redis::Connection {
    fn send(&mut self, call: &Call<'_>) -> RedisResult<Value> {
        call.cmd.query(self)
    }
}

impl Transport for ClusterConnection {
    fn send(&mut self, call: &Call<'_>) -> RedisResult<Value> {
        let slot = slot::slot_of(call.command, &call.keys)?;
        let primary = Route::new(slot, SlotAddr::Master);
        self.route_command(
            &call.cmd,
            RoutingInfo::SingleNode(SingleNodeRoutingInfo::SpecificNode(primary)),
        )
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
