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
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

pub use redis::{Connection, Value};

/// How to start a server.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub with_module: bool,
    /// Extra `--name value` arguments.
    pub args: Vec<String>,
    /// Reuse this data folder (for restarts); a fresh one otherwise.
    pub dir: Option<PathBuf>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            with_module: true,
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
        let owns_dir = config.dir.is_none();
        let dir = config.dir.clone().unwrap_or_else(fresh_dir);
        std::fs::create_dir_all(&dir).expect("create data dir");
        let mut last_error = String::new();
        // A free port can be taken by a parallel test between our probe and
        // the server's bind: retry on a new port.
        for _ in 0..5 {
            let port = free_port();
            match spawn(&config, &dir, port) {
                Ok(child) => {
                    return Server {
                        port,
                        dir,
                        child,
                        owns_dir,
                    }
                }
                Err(e) => last_error = e,
            }
        }
        panic!("could not start redis-server: {last_error}");
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

    /// Blocks until the replica has processed everything the master sent.
    pub fn wait_for_replicas(&self, replicas: usize) {
        let mut con = self.connect();
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
        cmd.arg("--loadmodule").arg(module_path());
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
                if redis::cmd("PING").query::<String>(&mut con).is_ok() {
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

// ---- commands ---------------------------------------------------------

/// Runs a command given as words and returns the raw reply (errors too).
pub fn run(con: &mut Connection, words: &[&str]) -> redis::RedisResult<Value> {
    let mut cmd = redis::cmd(words[0]);
    for w in &words[1..] {
        cmd.arg(*w);
    }
    cmd.query(con)
}

/// Runs a command that must succeed.
pub fn ok(con: &mut Connection, words: &[&str]) -> Value {
    run(con, words).unwrap_or_else(|e| panic!("{words:?} failed: {e}"))
}

/// Runs a command that must fail, and returns its error text (code included).
pub fn err(con: &mut Connection, words: &[&str]) -> String {
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
pub fn query<T: redis::FromRedisValue>(con: &mut Connection, words: &[&str]) -> T {
    let mut cmd = redis::cmd(words[0]);
    for w in &words[1..] {
        cmd.arg(*w);
    }
    cmd.query(con)
        .unwrap_or_else(|e| panic!("{words:?} failed: {e}"))
}

/// A whole sorted set as (member, exact score text) pairs, lowest first.
pub fn zset_dump(con: &mut Connection, key: &str) -> Vec<(String, String)> {
    query(con, &["ZRANGE", key, "0", "-1", "WITHSCORES"])
}

/// Every key with its DUMP payload, sorted.
pub type Snapshot = Vec<(String, Vec<u8>)>;

/// Every key with its DUMP payload, sorted: a byte-for-byte snapshot of a
/// database for comparing servers.
pub fn db_snapshot(con: &mut Connection) -> Snapshot {
    let mut keys: Vec<String> = query(con, &["KEYS", "*"]);
    keys.sort();
    keys.into_iter()
        .map(|k| {
            let dump: Vec<u8> = query(con, &["DUMP", &k]);
            (k, dump)
        })
        .collect()
}

/// Runs `writes` on a server with zkit and an fsync-always AOF, then replays
/// that AOF on a server without zkit. Returns the snapshots ([`db_snapshot`])
/// before and after the replay, which must be equal.
pub fn aof_replay_without_module(writes: impl FnOnce(&mut Connection)) -> (Snapshot, Snapshot) {
    let server = Server::with(
        ServerConfig::default()
            .arg("appendonly", "yes")
            .arg("appendfsync", "always"),
    );
    let mut con = server.connect();
    writes(&mut con);
    let written = db_snapshot(&mut con);
    drop(con);
    let dir = server.shutdown_keep_dir();
    let plain = Server::with(
        ServerConfig::without_module()
            .arg("appendonly", "yes")
            .in_dir(&dir),
    );
    let replayed = db_snapshot(&mut plain.connect());
    drop(plain);
    let _ = std::fs::remove_dir_all(dir);
    (written, replayed)
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
