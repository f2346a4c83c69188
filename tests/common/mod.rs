//! The one harness every integration test shares: it starts real
//! `redis-server` processes on free loopback ports, each in a fresh data
//! folder, with the freshly built zkit module loaded (or not), and stops them
//! when dropped.
//!
//! Environment:
//! - `REDIS_SERVER`: the server binary (default `redis-server` on PATH), so the
//!   same suite runs against every server in the compatibility matrix.
//! - `ZKIT_MODULE`: the module to load (default: `libzkit.so` next to the test
//!   binary's profile folder, i.e. what `cargo test` just built).
// Each test binary uses part of the harness.
#![allow(dead_code, unused_imports)]

pub mod cluster;
pub mod workload;

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

pub use cluster::Cluster;
pub use redis::{Connection, Value};
pub use workload::{Family, Rng, FAMILIES};

/// How to start a server.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub with_module: bool,
    /// Arguments passed to the module's load function (after its path).
    pub module_args: Vec<String>,
    /// Extra `--name value` arguments.
    pub args: Vec<String>,
    /// Reuse this data folder (for restarts); a fresh one otherwise.
    pub dir: Option<PathBuf>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            with_module: true,
            module_args: Vec::new(),
            args: Vec::new(),
            dir: None,
        }
    }
}

impl ServerConfig {
    pub fn without_module() -> Self {
        ServerConfig {
            with_module: false,
            ..Default::default()
        }
    }

    pub fn arg(mut self, name: &str, value: &str) -> Self {
        self.args.push(format!("--{name}"));
        self.args.push(value.to_string());
        self
    }

    /// A word for zkit's load function, e.g. `debug-commands`.
    pub fn module_arg(mut self, word: &str) -> Self {
        self.module_args.push(word.to_string());
        self
    }

    pub fn in_dir(mut self, dir: &Path) -> Self {
        self.dir = Some(dir.to_path_buf());
        self
    }

    pub fn replica_of(self, master: &Server) -> Self {
        self.arg("replicaof", &format!("127.0.0.1 {}", master.port))
    }
}

/// A running redis-server; killed (and its folder removed, unless kept) on drop.
pub struct Server {
    pub port: u16,
    pub dir: PathBuf,
    child: Child,
    owns_dir: bool,
}

impl Server {
    /// A server with zkit loaded and nothing else set.
    pub fn start() -> Server {
        Server::with(ServerConfig::default())
    }

    pub fn with(config: ServerConfig) -> Server {
        let mut last_error = String::new();
        // A free port can be taken by a parallel test between our probe and
        // the server's bind: retry on a new port.
        for _ in 0..5 {
            match Server::try_with(config.clone()) {
                Ok(server) => return server,
                Err(e) => last_error = e,
            }
        }
        panic!("could not start redis-server: {last_error}");
    }

    /// One attempt to start a server; the error holds its exit status,
    /// stderr and log (for servers that must refuse to start).
    pub fn try_with(config: ServerConfig) -> Result<Server, String> {
        let owns_dir = config.dir.is_none();
        let dir = config.dir.clone().unwrap_or_else(fresh_dir);
        std::fs::create_dir_all(&dir).expect("create data dir");
        let port = free_port();
        let child = spawn(&config, &dir, port).inspect_err(|_| {
            if owns_dir {
                let _ = std::fs::remove_dir_all(&dir);
            }
        })?;
        Ok(Server {
            port,
            dir,
            child,
            owns_dir,
        })
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    pub fn client(&self) -> redis::Client {
        redis::Client::open(self.url()).expect("client")
    }

    pub fn connect(&self) -> Connection {
        let con = self.client().get_connection().expect("connect");
        con.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        con
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default()
    }

    /// Stops the server with SHUTDOWN (saving if configured) and keeps its
    /// folder, for a restart with [`ServerConfig::in_dir`].
    pub fn shutdown_keep_dir(mut self) -> PathBuf {
        let mut con = self.connect();
        let _: redis::RedisResult<()> = redis::cmd("SHUTDOWN").query(&mut con);
        let _ = self.child.wait();
        self.owns_dir = false;
        self.dir.clone()
    }

    /// A one-node Redis Cluster with zkit, owning every slot: cross-slot
    /// calls get CROSSSLOT, so tests can check that key specs route a
    /// command by all of its keys.
    pub fn single_node_cluster() -> Server {
        let server = Server::with(ServerConfig::default().arg("cluster-enabled", "yes"));
        let mut con = server.connect();
        ok(&mut con, &["CLUSTER", "ADDSLOTSRANGE", "0", "16383"]);
        wait_for(Duration::from_secs(20), || {
            let info: String = query(&mut con, &["CLUSTER", "INFO"]);
            info.contains("cluster_state:ok")
        });
        server
    }

    /// Blocks until `replicas` replicas have processed everything the master
    /// sent so far.
    pub fn wait_for_replicas(&self, replicas: usize) {
        let mut con = self.connect();
        // WAIT waits for the offset of this connection's last propagated
        // command, which is 0 on a fresh connection (WAIT would return at
        // once). PUBLISH propagates to replicas without touching any key, so
        // it moves this connection's offset to the end of the stream.
        let _: i64 = query(&mut con, &["PUBLISH", "zkit:test:wait", "sync"]);
        let acked: i64 = redis::cmd("WAIT")
            .arg(replicas)
            .arg(10_000)
            .query(&mut con)
            .expect("WAIT");
        assert_eq!(acked, replicas as i64, "replicas did not acknowledge");
    }

    /// Waits until this replica reports its link to the master up.
    pub fn wait_until_synced(&self) {
        let mut con = self.connect();
        wait_for(Duration::from_secs(20), || {
            let info: String = redis::cmd("INFO")
                .arg("replication")
                .query(&mut con)
                .unwrap();
            info.contains("master_link_status:up")
        });
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if self.owns_dir && !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// The module under test.
pub fn module_path() -> PathBuf {
    if let Ok(path) = std::env::var("ZKIT_MODULE") {
        return PathBuf::from(path);
    }
    // target/<profile>/deps/<test binary> -> target/<profile>/libzkit.so
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe.parent().and_then(Path::parent).expect("profile dir");
    let path = profile_dir.join("libzkit.so");
    assert!(
        path.exists(),
        "{} is missing: build the module first (cargo build)",
        path.display()
    );
    path
}

pub fn server_binary() -> String {
    std::env::var("REDIS_SERVER").unwrap_or_else(|_| "redis-server".to_string())
}

/// The version of the server under test, as (major, minor).
pub fn server_version(con: &mut Connection) -> (u32, u32) {
    let info: String = redis::cmd("INFO").arg("server").query(con).unwrap();
    let line = info
        .lines()
        .find(|l| l.starts_with("redis_version:"))
        .expect("redis_version in INFO");
    let mut parts = line["redis_version:".len()..].split('.');
    let major = parts.next().unwrap().trim().parse().unwrap();
    let minor = parts.next().unwrap().trim().parse().unwrap();
    (major, minor)
}

fn spawn(config: &ServerConfig, dir: &Path, port: u16) -> Result<Child, String> {
    let mut cmd = Command::new(server_binary());
    cmd.arg("--port")
        .arg(port.to_string())
        .args(["--bind", "127.0.0.1"])
        .arg("--dir")
        .arg(dir)
        .args(["--logfile", "server.log"])
        .args(["--save", ""])
        .args(["--daemonize", "no"]);
    if config.with_module {
        cmd.arg("--loadmodule")
            .arg(module_path())
            .args(&config.module_args);
    }
    cmd.args(&config.args);
    cmd.stdout(Stdio::null()).stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("spawn {}: {e}", server_binary()))?;
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            let mut stderr = String::new();
            if let Some(err) = child.stderr.take() {
                for line in BufReader::new(err).lines().map_while(Result::ok) {
                    stderr.push_str(&line);
                    stderr.push('\n');
                }
            }
            let log = std::fs::read_to_string(dir.join("server.log")).unwrap_or_default();
            return Err(format!("exited with {status}: {stderr}{log}"));
        }
        if let Ok(client) = redis::Client::open(format!("redis://127.0.0.1:{port}/")) {
            if let Ok(mut con) = client.get_connection_with_timeout(Duration::from_millis(200)) {
                // Another test's server may hold the port (two probes can get
                // the same free port): only our own child counts as started;
                // ours then fails to bind, exits, and we retry elsewhere.
                let info = redis::cmd("INFO").arg("server").query::<String>(&mut con);
                let pid = format!("process_id:{}\r\n", child.id());
                // PING also fails while the server is still loading its data.
                if info.is_ok_and(|info| info.contains(&pid))
                    && redis::cmd("PING").query::<String>(&mut con).is_ok()
                {
                    return Ok(child);
                }
            }
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return Err("did not answer PING within 20 s".into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

fn fresh_dir() -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("zkit-test-{}-{n}", std::process::id()))
}

/// Polls `condition` until it holds or `timeout` passes (then panics).
pub fn wait_for(timeout: Duration, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !condition() {
        assert!(
            Instant::now() < deadline,
            "condition not met within {timeout:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until exactly `n` clients are blocked on the server.
pub fn wait_blocked(server: &Server, n: usize) {
    let mut con = server.connect();
    wait_for(Duration::from_secs(20), || {
        let info: String = query(&mut con, &["INFO", "clients"]);
        info.contains(&format!("blocked_clients:{n}\r\n"))
    });
}

/// Runs a (blocking) command on a connection of its own in a thread; the
/// thread returns the reply, or the error the server answered.
pub fn spawn_call(
    server: &Server,
    words: &[&str],
) -> std::thread::JoinHandle<redis::RedisResult<Value>> {
    let mut con = server.connect();
    let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    std::thread::spawn(move || run(&mut con, &self::words(&words)))
}

/// `master` or `slave`, as INFO replication reports the server's role.
pub fn role(server: &Server) -> String {
    let info: String = query(&mut server.connect(), &["INFO", "replication"]);
    info.lines()
        .find_map(|line| line.strip_prefix("role:"))
        .expect("role in INFO replication")
        .trim()
        .to_string()
}

// ---- commands ---------------------------------------------------------

/// Runs a command given as words and returns the raw reply (errors too).
pub fn run(con: &mut impl redis::ConnectionLike, words: &[&str]) -> redis::RedisResult<Value> {
    let mut cmd = redis::cmd(words[0]);
    for w in &words[1..] {
        cmd.arg(*w);
    }
    cmd.query(con)
}

/// The words of a call built as owned strings, for [`run`] and friends.
pub fn words(call: &[String]) -> Vec<&str> {
    call.iter().map(String::as_str).collect()
}

/// Runs a command given as raw byte strings (which may not be UTF-8).
pub fn run_bytes(
    con: &mut impl redis::ConnectionLike,
    args: &[Vec<u8>],
) -> redis::RedisResult<Value> {
    let mut cmd = redis::cmd(std::str::from_utf8(&args[0]).unwrap_or("?"));
    for a in &args[1..] {
        cmd.arg(a.as_slice());
    }
    cmd.query(con)
}

/// A command line split on spaces, for arguments without spaces:
/// `query(&mut con, &cmdline("ZADD k 1 m"))`.
pub fn cmdline(line: &str) -> Vec<&str> {
    line.split(' ').collect()
}

/// Runs a command that must succeed.
pub fn ok(con: &mut impl redis::ConnectionLike, words: &[&str]) -> Value {
    run(con, words).unwrap_or_else(|e| panic!("{words:?} failed: {e}"))
}

/// Runs a command that must fail, and returns its error text (code included).
pub fn err(con: &mut impl redis::ConnectionLike, words: &[&str]) -> String {
    match run(con, words) {
        Ok(v) => panic!("{words:?} should fail, got {v:?}"),
        Err(e) => error_text(&e),
    }
}

/// An error as the server sent it, e.g. "ERR syntax error".
pub fn error_text(e: &redis::RedisError) -> String {
    match (e.code(), e.detail()) {
        (Some(code), Some(detail)) => format!("{code} {detail}"),
        (Some(code), None) => code.to_string(),
        _ => e.to_string(),
    }
}

/// Runs a command and converts the reply.
pub fn query<T: redis::FromRedisValue>(con: &mut impl redis::ConnectionLike, words: &[&str]) -> T {
    let mut cmd = redis::cmd(words[0]);
    for w in &words[1..] {
        cmd.arg(*w);
    }
    cmd.query(con)
        .unwrap_or_else(|e| panic!("{words:?} failed: {e}"))
}

/// A whole sorted set as (member, exact score text) pairs, lowest first.
pub fn zset_dump(con: &mut impl redis::ConnectionLike, key: &str) -> Vec<(String, String)> {
    query(con, &["ZRANGE", key, "0", "-1", "WITHSCORES"])
}

/// A key's value in a form that compares equal across servers holding the
/// same data.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyContents {
    /// The DUMP payload, compared byte for byte.
    Dump(Vec<u8>),
    /// A set or hash in a hash table, whose DUMP lists elements in bucket
    /// order, which depends on each server's random hash seed: its type and
    /// its elements (hash fields as `field\0value`), sorted.
    HashTable {
        kind: String,
        elements: Vec<Vec<u8>>,
    },
}

/// Every key of a database with its [`KeyContents`], sorted by key.
pub type DbContents = Vec<(String, KeyContents)>;

/// Every key with its contents, sorted: a byte-for-byte snapshot of a
/// database for comparing servers (sorted sets, strings, lists and compact
/// sets and hashes by DUMP bytes; hash-table sets and hashes by elements).
pub fn db_snapshot(con: &mut impl redis::ConnectionLike) -> DbContents {
    let mut keys: Vec<String> = query(con, &["KEYS", "*"]);
    keys.sort();
    keys.into_iter()
        .map(|k| {
            let kind: String = query(con, &["TYPE", &k]);
            let encoding: String = query(con, &["OBJECT", "ENCODING", &k]);
            let contents = match (kind.as_str(), encoding.as_str()) {
                ("set", "hashtable") => {
                    let mut elements: Vec<Vec<u8>> = query(con, &["SMEMBERS", &k]);
                    elements.sort();
                    KeyContents::HashTable { kind, elements }
                }
                ("hash", "hashtable") => {
                    let pairs: Vec<(Vec<u8>, Vec<u8>)> = query(con, &["HGETALL", &k]);
                    let mut elements: Vec<Vec<u8>> = pairs
                        .into_iter()
                        .map(|(mut field, value)| {
                            field.push(0);
                            field.extend(value);
                            field
                        })
                        .collect();
                    elements.sort();
                    KeyContents::HashTable { kind, elements }
                }
                _ => KeyContents::Dump(query(con, &["DUMP", &k])),
            };
            (k, contents)
        })
        .collect()
}

/// Every key with its absolute expiry in unix ms (`PEXPIRETIME`, -1 for none),
/// sorted. DUMP payloads leave expiry out, so replication tests of commands
/// that set TTLs compare this beside [`db_snapshot`].
pub fn expiry_snapshot(con: &mut Connection) -> Vec<(String, i64)> {
    let mut keys: Vec<String> = query(con, &["KEYS", "*"]);
    keys.sort();
    keys.into_iter()
        .map(|k| {
            let at: i64 = query(con, &["PEXPIRETIME", &k]);
            (k, at)
        })
        .collect()
}

/// The server's clock in unix ms (`TIME`).
pub fn server_time_ms(con: &mut Connection) -> i64 {
    let (secs, micros): (i64, i64) = query(con, &["TIME"]);
    secs * 1000 + micros / 1000
}

/// A master with zkit, and two replicas of it, synced: one with zkit, one
/// without (effects replication must not need the module).
pub fn master_and_replicas() -> (Server, [Server; 2]) {
    let master = Server::start();
    let with_module = Server::with(ServerConfig::default().replica_of(&master));
    let without_module = Server::with(ServerConfig::without_module().replica_of(&master));
    with_module.wait_until_synced();
    without_module.wait_until_synced();
    (master, [with_module, without_module])
}

/// Waits until the replicas processed everything, asserts each holds exactly
/// the master's data and expiry times, and returns the master's snapshot.
pub fn assert_replicas_match(master: &Server, replicas: &[Server]) -> DbContents {
    master.wait_for_replicas(replicas.len());
    let mut con = master.connect();
    let expected = db_snapshot(&mut con);
    let expected_expiry = expiry_snapshot(&mut con);
    for (i, replica) in replicas.iter().enumerate() {
        let mut rcon = replica.connect();
        assert_eq!(db_snapshot(&mut rcon), expected, "replica {i}");
        assert_eq!(
            expiry_snapshot(&mut rcon),
            expected_expiry,
            "replica {i} TTLs"
        );
    }
    expected
}

/// Runs each command, which must fail with an error starting with its
/// expected text and leave every key and TTL as it was.
pub fn assert_errors_change_nothing(con: &mut Connection, cases: &[(&[&str], &str)]) {
    let snapshot = db_snapshot(con);
    let expiry = expiry_snapshot(con);
    for (words, expected) in cases {
        let e = err(con, words);
        assert!(
            e.starts_with(expected),
            "{words:?}: got {e:?}, want {expected:?}"
        );
        assert_eq!(db_snapshot(con), snapshot, "{words:?} changed data");
        assert_eq!(expiry_snapshot(con), expiry, "{words:?} changed a TTL");
    }
}

/// A zkit server that appends every write to its AOF, fsynced at once.
pub fn aof_server() -> Server {
    Server::with(
        ServerConfig::default()
            .arg("appendonly", "yes")
            .arg("appendfsync", "always"),
    )
}

/// Stops `server` (started with [`aof_server`]), replays its AOF on a server
/// without zkit, and asserts the replay holds exactly the data the server
/// held (keys, values, and expiry times).
pub fn assert_aof_replays_without_module(server: Server) {
    let (expected, expected_expiry) = {
        let mut con = server.connect();
        (db_snapshot(&mut con), expiry_snapshot(&mut con))
    };
    let dir = server.shutdown_keep_dir();
    let plain = Server::with(
        ServerConfig::without_module()
            .arg("appendonly", "yes")
            .in_dir(&dir),
    );
    let mut con = plain.connect();
    assert_eq!(db_snapshot(&mut con), expected);
    assert_eq!(expiry_snapshot(&mut con), expected_expiry);
    drop(plain);
    let _ = std::fs::remove_dir_all(dir);
}

/// Keyspace events as (`__keyevent@0__:<event>`, key) string slices, for
/// comparing with a literal list.
pub fn event_pairs(events: &[(String, String)]) -> Vec<(&str, &str)> {
    events
        .iter()
        .map(|(c, k)| (c.as_str(), k.as_str()))
        .collect()
}

/// Whether a transaction WATCHing `key` still commits after `write` ran on
/// another connection (false: the write invalidated the WATCH).
pub fn watch_survives(server: &Server, key: &str, write: impl FnOnce(&mut Connection)) -> bool {
    let mut watcher = server.connect();
    let mut writer = server.connect();
    ok(&mut watcher, &["WATCH", key]);
    write(&mut writer);
    ok(&mut watcher, &["MULTI"]);
    ok(&mut watcher, &["PING"]);
    ok(&mut watcher, &["EXEC"]) != Value::Nil
}

/// Keyspace events published while `action` runs, as (channel, message).
pub fn keyspace_events(
    server: &Server,
    action: impl FnOnce(&mut Connection),
) -> Vec<(String, String)> {
    let mut con = server.connect();
    ok(
        &mut con,
        &["CONFIG", "SET", "notify-keyspace-events", "KEA"],
    );
    let mut sub_con = server.connect();
    let mut pubsub = sub_con.as_pubsub();
    pubsub.psubscribe("__keyevent@*").unwrap();
    pubsub
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    action(&mut con);
    let mut events = Vec::new();
    while let Ok(msg) = pubsub.get_message() {
        let channel = msg.get_channel_name().to_string();
        let payload: String = msg.get_payload().unwrap_or_default();
        events.push((channel, payload));
    }
    events
}

// ---- what the server says about zkit -------------------------------------

/// A zkit command as COMMAND INFO describes it.
#[derive(Clone, Debug)]
pub struct CommandFacts {
    pub name: String,
    pub arity: i64,
    pub flags: Vec<String>,
    /// ACL categories, `@write` style (empty before Redis 7.2).
    pub acl_categories: Vec<String>,
}

impl CommandFacts {
    pub fn is_write(&self) -> bool {
        self.flags.iter().any(|f| f == "write")
    }

    /// Whether the server refuses the command once maxmemory is reached.
    pub fn denies_oom(&self) -> bool {
        self.flags.iter().any(|f| f == "denyoom")
    }

    /// Whether Redis lets `argc` words (the name included) reach the module.
    pub fn arity_fits(&self, argc: usize) -> bool {
        let argc = argc as i64;
        if self.arity >= 0 {
            argc == self.arity
        } else {
            argc >= -self.arity
        }
    }
}

/// Every command the loaded zkit registered, sorted by name.
pub fn zkit_commands(con: &mut impl redis::ConnectionLike) -> Vec<CommandFacts> {
    let mut names: Vec<String> = query(con, &["COMMAND", "LIST", "FILTERBY", "MODULE", "zkit"]);
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let info: Vec<Value> = query(con, &["COMMAND", "INFO", &name]);
            let Some(Value::Array(fields)) = info.first() else {
                panic!("COMMAND INFO {name}: {info:?}")
            };
            let arity: i64 = redis::from_redis_value(fields[1].clone()).expect("arity");
            let flags: Vec<String> = redis::from_redis_value(fields[2].clone()).expect("flags");
            let acl_categories: Vec<String> =
                redis::from_redis_value(fields[6].clone()).expect("ACL categories");
            CommandFacts {
                name,
                arity,
                flags,
                acl_categories,
            }
        })
        .collect()
}

/// The facts of the command a call runs (`None` if zkit has no such command).
pub fn facts_of<'a>(commands: &'a [CommandFacts], call_name: &[u8]) -> Option<&'a CommandFacts> {
    commands
        .iter()
        .find(|c| c.name.as_bytes().eq_ignore_ascii_case(call_name))
}

/// The keys of a call and their key-spec flags (`RW`, `access`, `update`...),
/// as COMMAND GETKEYSANDFLAGS reports them.
pub fn keys_and_flags(
    con: &mut impl redis::ConnectionLike,
    call: &[String],
) -> Vec<(String, Vec<String>)> {
    let mut words = vec!["COMMAND", "GETKEYSANDFLAGS"];
    words.extend(call.iter().map(String::as_str));
    query(con, &words)
}

/// The keys of a call, as COMMAND GETKEYS reports them.
pub fn keys_of(con: &mut impl redis::ConnectionLike, call: &[String]) -> Vec<String> {
    let mut words = vec!["COMMAND", "GETKEYS"];
    words.extend(call.iter().map(String::as_str));
    query(con, &words)
}
