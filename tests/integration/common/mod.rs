//! The one harness every integration test shares. This file starts real
//! `redis-server` processes on free loopback ports, each in a fresh data
//! folder, with the freshly built zkit module loaded (or not), and stops them
//! when dropped; the rest is split by concern:
//!
//! - `client`: running commands (words, bytes, expected errors, threads);
//! - `data`: what a server holds, comparable across servers;
//! - `replication`: replicas, the AOF, roles;
//! - `keyspace`: keyspace events and WATCH;
//! - `facts`: what COMMAND INFO and COMMAND GETKEYS say about zkit;
//! - `cluster`: Redis Cluster on loopback;
//! - `workload`: the family registry every production check iterates.
//!
//! Environment:
//! - `REDIS_SERVER`: the server binary (default `redis-server` on PATH), so the
//!   same suite runs against every server in the compatibility matrix.
//! - `ZKIT_MODULE`: the module to load (default: `libzkit.so` next to the test
//!   binary's profile folder, i.e. what `cargo test` just built).
//! - `ZKIT_ENGINE=functions`: zkit is the Functions library instead of the
//!   module (`ZKIT_LIBRARY`, default `functions/zkit.lua`): a server that
//!   would load the module loads the library instead (a replica gets it from
//!   its master), and `client` sends zkit commands as FCALL. `make
//!   differential` runs the keyword and error-table tests so.
pub mod board;
pub mod client;
pub mod cluster;
pub mod data;
pub mod facts;
pub mod keyspace;
pub mod replication;
pub mod workload;

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use client::query;
use redis::Connection;

/// How to start a server.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub with_module: bool,
    /// Arguments passed to the module's load function (after its path).
    pub module_args: Vec<String>,
    /// Extra `--name value` arguments.
    pub args: Vec<String>,
    /// A redis.conf: written into the data folder as `redis.conf`, unless
    /// the folder has one (a restart reads what CONFIG REWRITE wrote), and
    /// given to the server as its config file.
    pub conf: Option<String>,
    /// Reuse this data folder (for restarts); a fresh one otherwise.
    pub dir: Option<PathBuf>,
    /// Listen on this port (for restarts); a free one otherwise.
    pub port: Option<u16>,
    /// In cluster mode, the cluster bus port (for restarts); a free one
    /// otherwise, drawn again with the port when a start is retried (not
    /// port + 10000, which may be taken or past 65535).
    pub cluster_port: Option<u16>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            with_module: true,
            module_args: Vec::new(),
            args: Vec::new(),
            conf: None,
            dir: None,
            port: None,
            cluster_port: None,
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

    /// Starts the server with a config file holding `text`.
    pub fn conf(mut self, text: &str) -> Self {
        self.conf = Some(text.to_string());
        self
    }

    pub fn in_dir(mut self, dir: &Path) -> Self {
        self.dir = Some(dir.to_path_buf());
        self
    }

    pub fn on_port(mut self, port: u16) -> Self {
        self.port = Some(port);
        self
    }

    /// Keeps a restarted cluster node on the bus port it had.
    pub fn on_cluster_port(mut self, port: Option<u16>) -> Self {
        self.cluster_port = port;
        self
    }

    fn cluster_mode(&self) -> bool {
        self.args
            .windows(2)
            .any(|pair| pair[0] == "--cluster-enabled" && pair[1] == "yes")
    }

    pub fn replica_of(self, master: &Server) -> Self {
        self.arg("replicaof", &format!("127.0.0.1 {}", master.port))
    }
}

/// A running redis-server; killed (and its folder removed, unless kept) on drop.
pub struct Server {
    pub port: u16,
    /// The cluster bus port, in cluster mode.
    pub cluster_port: Option<u16>,
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
        // the server's bind: retry on a new port (or, for a given port, a
        // moment later).
        for _ in 0..5 {
            match Server::try_with(config.clone()) {
                Ok(server) => return server,
                Err(e) => last_error = e,
            }
            if config.port.is_some() {
                std::thread::sleep(Duration::from_millis(500));
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
        let port = config.port.unwrap_or_else(free_port);
        let cluster_port = config
            .cluster_mode()
            .then(|| config.cluster_port.unwrap_or_else(free_port));
        let child = spawn(&config, &dir, port, cluster_port).inspect_err(|_| {
            if owns_dir {
                let _ = std::fs::remove_dir_all(&dir);
            }
        })?;
        let server = Server {
            port,
            cluster_port,
            dir,
            child,
            owns_dir,
        };
        let replica = config.args.iter().any(|a| a == "--replicaof");
        if config.with_module && functions_engine() && !replica {
            load_library(&mut server.connect());
        }
        Ok(server)
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

    /// Kills the server with SIGKILL (no shutdown, no save: a crash) and
    /// keeps its folder, for a restart with [`ServerConfig::in_dir`].
    pub fn kill_keep_dir(mut self) -> PathBuf {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.owns_dir = false;
        self.dir.clone()
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

/// Whether zkit is the Functions library in this run (`ZKIT_ENGINE`).
pub fn functions_engine() -> bool {
    std::env::var("ZKIT_ENGINE").is_ok_and(|engine| engine == "functions")
}

/// The Functions library: `ZKIT_LIBRARY`, or the one `make functions` wrote.
pub fn library_path() -> PathBuf {
    std::env::var("ZKIT_LIBRARY").map_or_else(
        |_| Path::new(env!("CARGO_MANIFEST_DIR")).join("functions/zkit.lua"),
        PathBuf::from,
    )
}

/// Loads (or replaces) the Functions library on a server.
pub fn load_library(con: &mut Connection) {
    let library = std::fs::read_to_string(library_path()).expect("the Functions library");
    let name: String = redis::cmd("FUNCTION")
        .arg("LOAD")
        .arg("REPLACE")
        .arg(library)
        .query(con)
        .expect("FUNCTION LOAD");
    assert_eq!(name, "zkit");
}

/// Sets the config `zkit.<name>`: on the module with CONFIG SET, on the
/// library by loading it again with its CONFIG table edited, as
/// docs/functions.md tells users who change a config on the module.
pub fn set_zkit_config(con: &mut Connection, name: &str, value: i64) {
    if !functions_engine() {
        let _: () = redis::cmd("CONFIG")
            .arg("SET")
            .arg(format!("zkit.{name}"))
            .arg(value)
            .query(con)
            .unwrap_or_else(|e| panic!("CONFIG SET zkit.{name} {value}: {e}"));
        return;
    }
    let library = std::fs::read_to_string(library_path()).expect("the Functions library");
    let entry = format!("['{name}'] = ");
    let at = library
        .find(&entry)
        .unwrap_or_else(|| panic!("the library has no config {name}"))
        + entry.len();
    let end = at
        + library[at..]
            .find(',')
            .expect("a config's value ends with ','");
    let edited = format!("{}{value}{}", &library[..at], &library[end..]);
    let loaded: String = redis::cmd("FUNCTION")
        .arg("LOAD")
        .arg("REPLACE")
        .arg(edited)
        .query(con)
        .expect("FUNCTION LOAD");
    assert_eq!(loaded, "zkit");
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

/// One field of one INFO section, as text.
pub fn info_value(con: &mut Connection, section: &str, field: &str) -> String {
    let info: String = query(con, &["INFO", section]);
    info.lines()
        .find_map(|l| l.strip_prefix(&format!("{field}:")))
        .unwrap_or_else(|| panic!("{field} missing from INFO {section}"))
        .trim()
        .to_string()
}

/// One numeric field of one INFO section.
pub fn stat(con: &mut Connection, section: &str, field: &str) -> i64 {
    info_value(con, section, field).parse().unwrap()
}

/// Valkey's own version as (major, minor), from INFO's `valkey_version`
/// (Valkey reports `redis_version:7.2.4` for compatibility); None on Redis.
pub fn valkey_version(con: &mut Connection) -> Option<(u32, u32)> {
    let info: String = redis::cmd("INFO").arg("server").query(con).unwrap();
    let version = info
        .lines()
        .find_map(|l| l.strip_prefix("valkey_version:"))?;
    let mut parts = version.trim().split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

fn spawn(
    config: &ServerConfig,
    dir: &Path,
    port: u16,
    cluster_port: Option<u16>,
) -> Result<Child, String> {
    let mut cmd = Command::new(server_binary());
    if let Some(text) = &config.conf {
        let path = dir.join("redis.conf");
        if !path.exists() {
            std::fs::write(&path, text).map_err(|e| format!("write {}: {e}", path.display()))?;
        }
        // The config file goes first, before any option.
        cmd.arg(path);
    }
    cmd.arg("--port")
        .arg(port.to_string())
        .args(["--bind", "127.0.0.1"])
        .arg("--dir")
        .arg(dir)
        .args(["--logfile", "server.log"])
        .args(["--save", ""])
        .args(["--daemonize", "no"]);
    if config.with_module && !functions_engine() {
        cmd.arg("--loadmodule")
            .arg(module_path())
            .args(&config.module_args);
    }
    cmd.args(&config.args);
    if let Some(cluster_port) = cluster_port {
        cmd.arg("--cluster-port").arg(cluster_port.to_string());
    }
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

/// A loopback port nothing listens on now.
/// A port nothing listens on now, from the ports nothing else on the
/// machine hands out ([`spare_ports`]): a port the kernel picks for `bind(0)`
/// can be handed out again, before our server binds it, as the local port of
/// any outgoing connection (a client, a replica's link, a cluster bus link)
/// of any test on the machine. Probes start at a place drawn per process and
/// never repeat within one, so parallel suites rarely meet; when they do,
/// the server fails to bind and [`Server::with`] retries on another port.
pub fn free_port() -> u16 {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let bands = spare_ports();
    let total: u32 = bands.iter().map(|&(lo, hi)| u32::from(hi - lo) + 1).sum();
    if total == 0 {
        return TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("free port");
    }
    let start = std::process::id().wrapping_mul(2_654_435_761) % total;
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed) as u32;
        let mut index = (start + n.wrapping_mul(7_919)) % total;
        let port = bands
            .iter()
            .find_map(|&(lo, hi)| {
                let size = u32::from(hi - lo) + 1;
                if index < size {
                    Some(lo + index as u16)
                } else {
                    index -= size;
                    None
                }
            })
            .expect("index within the bands");
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

/// The loopback ports no one else hands out here: outside the kernel's
/// ephemeral range (32768-60999 by default), and from 30000 up, above the
/// base ports the server's own test suite runs on beside us in CI (10000 to
/// 30000, scripts/suites/server-suite.sh). Empty when the ephemeral range leaves
/// nothing (then the kernel picks).
fn spare_ports() -> Vec<(u16, u16)> {
    const ABOVE_SERVER_SUITE: u16 = 30_000;
    let (low, high) = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| {
            let mut ends = range.split_whitespace().map(|n| n.parse::<u16>().ok());
            Some((ends.next()??, ends.next()??))
        })
        .unwrap_or((32_768, 60_999));
    let mut bands = Vec::new();
    if low > ABOVE_SERVER_SUITE {
        bands.push((ABOVE_SERVER_SUITE, low - 1));
    }
    if high < u16::MAX {
        bands.push((high.max(ABOVE_SERVER_SUITE - 1) + 1, u16::MAX));
    }
    bands
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
