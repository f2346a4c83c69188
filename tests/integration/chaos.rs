//! The chaos suite (`make chaos`; docs/delivery.md, "The chaos suite"):
//! exactly-once gifts, leased tasks, repeating jobs, group caps and stepped
//! merges on a replicated Redis Cluster while masters die, fail over and
//! lose slots.
//!
//! A cluster of 3 masters with one replica each runs on loopback, every node
//! with `appendfsync always` and a 3 s node timeout. The loads run against
//! it while a seeded schedule hits it with faults: a master SIGKILLed (its
//! replica is promoted; it restarts and rejoins as a replica), CLUSTER
//! FAILOVER on a replica, the busiest key's slot moved to another master.
//! Then each load checks what its clients saw against what the servers hold,
//! and no server log may hold a crash report, an assertion or a panic.
//!
//! Clients route by slot themselves (CLUSTER SLOTS, MOVED, ASK) over plain
//! connections with timeouts, so every redirect, timeout and retry is
//! counted here.
//!
//! Environment: `REDIS_SERVER` and `ZKIT_MODULE` as for every test;
//! `CHAOS_SEED` (default 24) fixes the schedule and the clients' choices.
//!
//! Each load (gifts, merges, tasks) is a [`Load`]: its clients start with
//! the chaos, `finish` stops them once their work is done, and `check`
//! names every breach; a new load is one more in the list in the test.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::common::client::words;
use crate::common::cluster::{migrate_keys_call, migrate_slot_call, Cluster};
use crate::common::workload::Rng;
use crate::common::{Server, ServerConfig};
use redis::Value;

#[test]
#[ignore = "make chaos (about 90 s per server)"]
fn gifts_tasks_schedules_groups_and_merges_survive_kills_failovers_and_reshards() {
    let seed = std::env::var("CHAOS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(24);
    let loads: Vec<Arc<dyn Load>> = vec![
        Arc::new(Gifts::new(4, seed)),
        Arc::new(Merges::new(seed)),
        Arc::new(Tasks::new(3, 1200, seed)),
        Arc::new(Repeats::new(8, seed)),
        Arc::new(Tenants::new(50, seed)),
    ];
    let failures = run(seed, 2, &loads);
    assert!(failures.is_empty(), "chaos: {} breaches", failures.len());
}

// ---- a run ----------------------------------------------------------------

/// What every client and the schedule share.
pub struct Run {
    /// Every node's port (stable: a killed node restarts on its own port).
    ports: Vec<u16>,
    started: Instant,
    name: String,
    stats: Stats,
}

impl Run {
    fn say(&self, text: &str) {
        println!(
            "chaos[{}] {:6.1}s {text}",
            self.name,
            self.started.elapsed().as_secs_f64()
        );
    }
}

/// Client traffic run during the chaos, then checked.
trait Load: Send + Sync {
    /// Before the faults: what must be in place first (WAIT-confirmed).
    fn prepare(&self, _run: &Arc<Run>) -> Result<(), String> {
        Ok(())
    }
    /// Starts the load's client threads.
    fn start(self: Arc<Self>, run: &Arc<Run>) -> Vec<JoinHandle<()>>;
    /// After the faults: tells the clients to stop once their work is done
    /// and waits for that (not for the threads, which the run joins). It
    /// must tell them to stop even when it returns an error.
    fn finish(&self, run: &Arc<Run>) -> Result<(), String>;
    /// What the servers hold against what the clients saw: one line per
    /// breach.
    fn check(&self, run: &Arc<Run>) -> Vec<String>;
    /// For the slot moves: the key the load uses most so far.
    fn busiest_key(&self) -> Option<String> {
        None
    }
    /// The load's part of the summary line.
    fn summary(&self, run: &Run) -> String;
}

/// Starts the cluster, the loads and the schedule (`rounds` of each fault),
/// then checks; returns the breaches, printed.
fn run(seed: u64, rounds: usize, loads: &[Arc<dyn Load>]) -> Vec<String> {
    let root = std::env::temp_dir().join(format!("zkit-chaos-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let mut cluster = ChaosCluster::start(&root);
    let name = cluster.server_name();
    let run = Arc::new(Run {
        ports: cluster.nodes.iter().map(|n| n.port).collect(),
        started: Instant::now(),
        name,
        stats: Stats::default(),
    });
    run.say(&format!("cluster up: ports {:?}, seed {seed}", run.ports));
    let mut failures = Vec::new();
    if let Err(e) = chaos(&mut cluster, &run, seed, rounds, loads, &mut failures) {
        failures.push(format!("the run stopped: {e}"));
    }
    failures.extend(cluster.crash_reports());
    let errors: Vec<String> = run
        .stats
        .snapshot()
        .into_iter()
        .filter_map(|(k, v)| k.strip_prefix("error ").map(|k| format!("{k}={v}")))
        .collect();
    run.say(&format!(
        "client errors seen and retried: {}",
        if errors.is_empty() {
            "none".to_string()
        } else {
            errors.join(" ")
        }
    ));
    let parts: Vec<String> = loads.iter().map(|l| l.summary(&run)).collect();
    println!(
        "chaos summary [{}]: {} failovers={} (sigkill {}) reshards={} (atomic {}, atomic refused {}) seconds={:.0} result={}",
        run.name,
        parts.join(" "),
        run.stats.get("failovers"),
        run.stats.get("kills"),
        run.stats.get("reshards"),
        run.stats.get("atomic_reshards"),
        run.stats.get("atomic_refused"),
        run.started.elapsed().as_secs_f64(),
        if failures.is_empty() { "ok" } else { "FAILED" }
    );
    for failure in &failures {
        println!("chaos[{}] FAILED: {failure}", run.name);
    }
    drop(cluster);
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&root);
    } else {
        println!("chaos[{}] data kept in {}", run.name, root.display());
    }
    failures
}

fn chaos(
    cluster: &mut ChaosCluster,
    run: &Arc<Run>,
    seed: u64,
    rounds: usize,
    loads: &[Arc<dyn Load>],
    failures: &mut Vec<String>,
) -> Result<(), String> {
    for load in loads {
        load.prepare(run)?;
    }
    let threads: Vec<JoinHandle<()>> = loads
        .iter()
        .flat_map(|load| Arc::clone(load).start(run))
        .collect();
    let mut schedule = Schedule {
        rng: Rng::with_seed(seed),
        reshards: 0,
    };
    let faults = schedule.plan(rounds);
    run.say(&format!("plan: {faults:?}"));
    let busiest = || loads.iter().find_map(|l| l.busiest_key());
    let scheduled = faults.into_iter().try_for_each(|fault| {
        thread::sleep(Duration::from_millis(2000 + schedule.rng.below(3000)));
        schedule.apply(fault, cluster, run, &busiest)
    });
    thread::sleep(Duration::from_secs(2));
    // Every load's clients stop, even when the schedule or another load
    // broke off.
    let finished: Vec<Result<(), String>> = loads.iter().map(|load| load.finish(run)).collect();
    for handle in threads {
        let name = handle.thread().name().unwrap_or("a client").to_string();
        if let Err(panic) = handle.join() {
            failures.push(format!("{name} failed: {}", panic_text(&panic)));
        }
    }
    scheduled?;
    finished.into_iter().collect::<Result<(), String>>()?;
    cluster.wait_healthy("the chaos ends", 90)?;
    for load in loads {
        failures.extend(load.check(run));
    }
    for node in &cluster.nodes {
        let Some(server) = &node.server else {
            failures.push(format!("node{} is down at the end", node.index));
            continue;
        };
        let info: String = call_port(server.port, &["INFO", "zkit"], TIMEOUT)
            .and_then(|v| text(&v))
            .map_err(|e| format!("INFO zkit on node{}: {e:?}", node.index))?;
        let counters: Vec<String> = info
            .lines()
            .filter_map(|l| l.trim_end().strip_prefix("zkit_"))
            .filter(|l| !l.starts_with("version:"))
            .map(|l| l.replacen(':', "=", 1))
            .collect();
        run.say(&format!(
            "node{} INFO zkit: {}",
            node.index,
            counters.join(" ")
        ));
    }
    Ok(())
}

/// `count` client threads of a load, named `what 0`, `what 1`, ..., each
/// running `client(load, its number, run)`.
fn spawn_clients<L: Send + Sync + 'static>(
    load: &Arc<L>,
    run: &Arc<Run>,
    count: u64,
    what: &str,
    client: fn(&L, u64, &Run),
) -> Vec<JoinHandle<()>> {
    (0..count)
        .map(|number| {
            let (load, run) = (Arc::clone(load), Arc::clone(run));
            thread::Builder::new()
                .name(format!("{what} {number}"))
                .spawn(move || client(&load, number, &run))
                .expect("spawn a client thread")
        })
        .collect()
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panicked".to_string())
}

/// Counters the clients and the schedule add to.
#[derive(Default)]
struct Stats(Mutex<BTreeMap<String, u64>>);

impl Stats {
    fn add(&self, name: &str, n: u64) {
        *self.0.lock().unwrap().entry(name.to_string()).or_default() += n;
    }

    fn get(&self, name: &str) -> u64 {
        self.0.lock().unwrap().get(name).copied().unwrap_or(0)
    }

    fn snapshot(&self) -> BTreeMap<String, u64> {
        self.0.lock().unwrap().clone()
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .as_millis() as u64
}

/// Polls `condition` every `interval` until it holds; a condition that
/// fails (a node down, a connection refused) counts as not yet.
fn wait_until(
    seconds: u64,
    what: &str,
    interval: Duration,
    mut condition: impl FnMut() -> Result<bool, Fault>,
) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    loop {
        if let Ok(true) = condition() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("timed out after {seconds} s waiting until {what}"));
        }
        thread::sleep(interval);
    }
}

// ---- talking to nodes -------------------------------------------------------

const TIMEOUT: Duration = Duration::from_secs(5);

/// Why a call did not answer: an error reply (MOVED, TRYAGAIN,
/// CLUSTERDOWN, READONLY, ...) or a connection that failed or timed out.
#[derive(Debug)]
enum Fault {
    Reply(String),
    Connection(&'static str),
}

impl Fault {
    /// A short name for the statistics: the error code or what the
    /// connection did.
    fn kind(&self) -> String {
        match self {
            Fault::Reply(text) => text.split(' ').next().unwrap_or("").to_string(),
            Fault::Connection(kind) => kind.to_string(),
        }
    }
}

impl From<redis::RedisError> for Fault {
    fn from(e: redis::RedisError) -> Fault {
        if let Some(code) = e.code() {
            return Fault::Reply(format!("{code} {}", e.detail().unwrap_or("")));
        }
        Fault::Connection(if e.is_timeout() {
            "timeout"
        } else if e.is_connection_refusal() {
            "refused"
        } else if e.is_connection_dropped() {
            "dropped"
        } else {
            "io"
        })
    }
}

fn connect(port: u16, timeout: Duration) -> Result<redis::Connection, Fault> {
    let client = redis::Client::open(format!("redis://127.0.0.1:{port}/"))?;
    let con = client.get_connection_with_timeout(timeout)?;
    con.set_read_timeout(Some(timeout))?;
    con.set_write_timeout(Some(timeout))?;
    Ok(con)
}

/// One command on a connection of its own.
fn call_port(port: u16, words: &[&str], timeout: Duration) -> Result<Value, Fault> {
    let mut con = connect(port, timeout)?;
    let mut cmd = redis::cmd(words[0]);
    for word in &words[1..] {
        cmd.arg(*word);
    }
    Ok(cmd.query(&mut con)?)
}

/// Sends every command at once; the replies, error replies among them.
fn pipeline(con: &mut redis::Connection, commands: &[Vec<String>]) -> Result<Vec<Value>, Fault> {
    let mut pipe = redis::pipe();
    for command in commands {
        pipe.cmd(&command[0]).arg(&command[1..]);
    }
    Ok(pipe.ignore_errors().query(con)?)
}

fn reply_error(value: &Value) -> Option<Fault> {
    match value {
        Value::ServerError(e) => Some(Fault::Reply(format!(
            "{} {}",
            e.code(),
            e.details().unwrap_or("")
        ))),
        _ => None,
    }
}

fn text(value: &Value) -> Result<String, Fault> {
    redis::from_redis_value(value.clone()).map_err(|_| Fault::Reply(format!("not text: {value:?}")))
}

fn int(value: &Value) -> i64 {
    redis::from_redis_value(value.clone()).unwrap_or(0)
}

/// The words of a command, owned.
fn command(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// CRC16 (XMODEM) of the key's hash tag, as Redis Cluster picks a slot.
fn key_slot(key: &str) -> u16 {
    let mut tag = key.as_bytes();
    if let Some(open) = key.find('{') {
        if let Some(len) = key[open + 1..].find('}') {
            if len > 0 {
                tag = &key.as_bytes()[open + 1..open + 1 + len];
            }
        }
    }
    let mut crc: u16 = 0;
    for &byte in tag {
        crc ^= (byte as u16) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc % 16384
}

/// A client's view of the cluster: slot -> port, refreshed after errors.
struct Router {
    ports: Vec<u16>,
    slots: Vec<Option<u16>>,
    conns: HashMap<u16, redis::Connection>,
}

impl Router {
    fn new(run: &Run) -> Router {
        Router {
            ports: run.ports.clone(),
            slots: vec![None; 16384],
            conns: HashMap::new(),
        }
    }

    /// The slot map from the first node that answers CLUSTER SLOTS.
    fn refresh(&mut self) {
        for port in self.ports.clone() {
            let layout = self
                .conn(port)
                .and_then(|con| Ok(redis::cmd("CLUSTER").arg("SLOTS").query::<Value>(con)?));
            let Ok(Value::Array(entries)) = layout else {
                self.conns.remove(&port);
                continue;
            };
            if entries.is_empty() {
                continue;
            }
            for entry in entries {
                let Value::Array(fields) = entry else {
                    continue;
                };
                let Some(Value::Array(master)) = fields.get(2) else {
                    continue;
                };
                let owner = master.get(1).map(int).unwrap_or(0) as u16;
                for slot in int(&fields[0])..=int(&fields[1]) {
                    self.slots[slot as usize] = Some(owner);
                }
            }
            return;
        }
    }

    fn conn(&mut self, port: u16) -> Result<&mut redis::Connection, Fault> {
        match self.conns.entry(port) {
            Entry::Occupied(con) => Ok(con.into_mut()),
            Entry::Vacant(slot) => Ok(slot.insert(connect(port, TIMEOUT)?)),
        }
    }

    /// Sends on the connection to `port`; a connection that failed is
    /// dropped (the next call opens a new one).
    fn send(&mut self, port: u16, commands: &[Vec<String>]) -> Result<Vec<Value>, Fault> {
        let result = self.conn(port).and_then(|con| pipeline(con, commands));
        if let Err(Fault::Connection(_)) = result {
            self.conns.remove(&port);
        }
        result
    }

    /// Runs `commands` on the node serving `key`'s slot, following MOVED and
    /// ASK; an error reply to the first command is returned as a fault (the
    /// caller retries).
    fn run(&mut self, key: &str, commands: &[Vec<String>]) -> Result<Vec<Value>, Fault> {
        let slot = key_slot(key) as usize;
        if self.slots[slot].is_none() {
            self.refresh();
        }
        let mut port = self.slots[slot].ok_or(Fault::Connection("no node serves the slot"))?;
        for _ in 0..3 {
            let replies = self.send(port, commands)?;
            let Some(Fault::Reply(error)) = reply_error(&replies[0]) else {
                return Ok(replies);
            };
            let target = || -> u16 {
                let address = error.split(' ').nth(2).unwrap_or("");
                address
                    .rsplit(':')
                    .next()
                    .and_then(|p| p.parse().ok())
                    .unwrap_or(0)
            };
            if error.starts_with("MOVED ") {
                port = target();
                self.slots[slot] = Some(port);
                continue;
            }
            if error.starts_with("ASK ") {
                // ASKING lets the one command after it through.
                let asking: Vec<Vec<String>> = commands
                    .iter()
                    .flat_map(|c| [command(&["ASKING"]), c.clone()])
                    .collect();
                let replies: Vec<Value> = self
                    .send(target(), &asking)?
                    .into_iter()
                    .skip(1)
                    .step_by(2)
                    .collect();
                if let Some(fault) = reply_error(&replies[0]) {
                    return Err(fault);
                }
                return Ok(replies);
            }
            return Err(Fault::Reply(error));
        }
        Err(Fault::Reply("too many redirections".to_string()))
    }
}

/// Runs a write, then WAIT 1 on the same connection: (reply, replicas that
/// acknowledged); see [`confirmed_all`].
fn confirmed(
    router: &mut Router,
    key: &str,
    write: Vec<String>,
    wait_ms: u64,
) -> Result<(Value, i64), Fault> {
    let (mut replies, acked) = confirmed_all(router, key, vec![write], wait_ms)?;
    Ok((replies.swap_remove(0), acked))
}

/// Runs writes in `key`'s slot, then WAIT 1 on the same connection: (their
/// replies, replicas that acknowledged). A write in the key's slot first
/// moves the connection's replication offset to the end of the stream, so
/// WAIT confirms everything the master held at the call, a repeat's
/// earlier write included.
fn confirmed_all(
    router: &mut Router,
    key: &str,
    mut writes: Vec<Vec<String>>,
    wait_ms: u64,
) -> Result<(Vec<Value>, i64), Fault> {
    let tag = &key[..=key.find('}').expect("a hash-tagged key")];
    let count = writes.len();
    writes.push(command(&["INCR", &format!("{tag}:chaos-offset")]));
    writes.push(command(&["WAIT", "1", &wait_ms.to_string()]));
    let mut replies = router.run(key, &writes)?;
    let acked = int(&replies[count + 1]);
    replies.truncate(count);
    Ok((replies, acked))
}

/// Runs one command until a node answers (50 tries, 0.2 s apart): a read,
/// or a write that may run twice.
fn call_until_answered(router: &mut Router, key: &str, words: &[&str]) -> Result<Value, String> {
    let mut fault = None;
    for _ in 0..50 {
        match router.run(key, &[command(words)]) {
            Ok(mut replies) => return Ok(replies.remove(0)),
            Err(e) => {
                fault = Some(e);
                thread::sleep(Duration::from_millis(200));
                router.refresh();
            }
        }
    }
    Err(format!(
        "{} {key}: no answer, the last fault {fault:?}",
        words[0]
    ))
}

// ---- the cluster ------------------------------------------------------------

struct Node {
    index: usize,
    port: u16,
    id: String,
    dir: PathBuf,
    /// How it starts again after a SIGKILL: same port, folder and cluster bus.
    config: ServerConfig,
    server: Option<Server>,
}

/// One node's line of CLUSTER NODES.
struct NodeLine {
    id: String,
    port: u16,
    flags: Vec<String>,
    master: String,
    slots: Vec<(u16, u16)>,
}

impl NodeLine {
    fn is(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }

    fn failing(&self) -> bool {
        self.is("fail") || self.is("fail?")
    }

    fn owns(&self, slot: u16) -> bool {
        self.slots.iter().any(|&(lo, hi)| (lo..=hi).contains(&slot))
    }
}

fn cluster_nodes(port: u16) -> Result<Vec<NodeLine>, Fault> {
    let nodes = text(&call_port(port, &["CLUSTER", "NODES"], TIMEOUT)?)?;
    Ok(nodes
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            let address = fields[1].split('@').next().unwrap_or("");
            NodeLine {
                id: fields[0].to_string(),
                port: address
                    .rsplit(':')
                    .next()
                    .and_then(|p| p.parse().ok())
                    .unwrap_or(0),
                flags: fields[2].split(',').map(str::to_string).collect(),
                master: fields[3].to_string(),
                slots: fields[8..]
                    .iter()
                    .filter(|f| !f.starts_with('['))
                    .filter_map(|range| match range.split_once('-') {
                        Some((lo, hi)) => Some((lo.parse().ok()?, hi.parse().ok()?)),
                        None => range.parse().ok().map(|slot| (slot, slot)),
                    })
                    .collect(),
            }
        })
        .collect())
}

/// 3 masters with a replica each; nodes are killed and restarted in place.
struct ChaosCluster {
    nodes: Vec<Node>,
}

impl ChaosCluster {
    fn start(root: &Path) -> ChaosCluster {
        let configs: Vec<(PathBuf, ServerConfig)> = (0..6)
            .map(|index| {
                let dir = root.join(format!("node{index}"));
                let config = Cluster::node_config(
                    ServerConfig::default()
                        .in_dir(&dir)
                        .arg("appendonly", "yes")
                        .arg("appendfsync", "always")
                        .arg("cluster-node-timeout", "3000")
                        // A replica may always take over; replicas never
                        // wander off to another master.
                        .arg("cluster-replica-validity-factor", "0")
                        .arg("cluster-allow-replica-migration", "no"),
                );
                (dir, config)
            })
            .collect();
        let servers: Vec<Server> = configs
            .iter()
            .map(|(_, config)| Server::with(config.clone()))
            .collect();
        let ports: Vec<u16> = servers.iter().map(|s| s.port).collect();
        let cluster = Cluster::create(servers, 1);
        let nodes = cluster
            .nodes
            .into_iter()
            .zip(configs)
            .enumerate()
            .map(|(index, (server, (dir, config)))| Node {
                index,
                port: ports[index],
                id: server.cluster_entry().id,
                dir,
                config: config
                    .on_port(ports[index])
                    .on_cluster_port(server.cluster_port),
                server: Some(server),
            })
            .collect();
        let cluster = ChaosCluster { nodes };
        cluster
            .wait_healthy("the cluster forms", 90)
            .unwrap_or_else(|e| panic!("{e}"));
        cluster
    }

    /// "Redis 7.0.15" or "Valkey 9.1.2".
    fn server_name(&self) -> String {
        let info = call_port(self.nodes[0].port, &["INFO", "server"], TIMEOUT)
            .and_then(|v| text(&v))
            .unwrap_or_default();
        let field = |name: &str| {
            info.lines()
                .find_map(|l| l.strip_prefix(name))
                .map(|v| v.trim().to_string())
        };
        match field("valkey_version:") {
            Some(version) => format!("Valkey {version}"),
            None => format!("Redis {}", field("redis_version:").unwrap_or_default()),
        }
    }

    fn live(&self) -> impl Iterator<Item = &Node> {
        self.nodes.iter().filter(|n| n.server.is_some())
    }

    fn by_port(&self, port: u16) -> Option<usize> {
        self.nodes.iter().position(|n| n.port == port)
    }

    /// (masters, replicas) as the first live node sees them, by index.
    fn topology(&self) -> Result<(Vec<usize>, Vec<usize>), Fault> {
        let view = cluster_nodes(self.live().next().expect("a live node").port)?;
        let pick = |keep: &dyn Fn(&NodeLine) -> bool| -> Vec<usize> {
            let mut picked: Vec<usize> = view
                .iter()
                .filter(|e| keep(e) && !e.is("fail"))
                .filter_map(|e| self.by_port(e.port))
                .collect();
            picked.sort();
            picked
        };
        Ok((
            pick(&|e| e.is("master") && !e.slots.is_empty()),
            pick(&|e| e.is("slave")),
        ))
    }

    /// Every live node says ok and sees 3 masters owning all slots, each
    /// with one replica whose link is up, and all agree on who owns what.
    fn healthy(&self) -> Result<bool, Fault> {
        let mut owners = Vec::new();
        for node in self.live() {
            let info = text(&call_port(node.port, &["CLUSTER", "INFO"], TIMEOUT)?)?;
            if !info.contains("cluster_state:ok") {
                return Ok(false);
            }
            let view = cluster_nodes(node.port)?;
            let masters: Vec<&NodeLine> = view
                .iter()
                .filter(|e| e.is("master") && !e.slots.is_empty() && !e.failing())
                .collect();
            let slots: u32 = masters
                .iter()
                .flat_map(|m| &m.slots)
                .map(|&(lo, hi)| (hi - lo + 1) as u32)
                .sum();
            if masters.len() != 3 || slots != 16384 {
                return Ok(false);
            }
            for master in &masters {
                let replicas = view
                    .iter()
                    .filter(|e| e.master == master.id && e.is("slave") && !e.failing())
                    .count();
                if replicas != 1 {
                    return Ok(false);
                }
            }
            let replication = text(&call_port(node.port, &["INFO", "replication"], TIMEOUT)?)?;
            if replication.contains("role:slave") && !replication.contains("master_link_status:up")
            {
                return Ok(false);
            }
            let mut owned: Vec<(String, Vec<(u16, u16)>)> = masters
                .iter()
                .map(|m| (m.id.clone(), m.slots.clone()))
                .collect();
            owned.sort();
            owners.push(owned);
        }
        Ok(owners.windows(2).all(|pair| pair[0] == pair[1]))
    }

    fn wait_healthy(&self, what: &str, seconds: u64) -> Result<(), String> {
        wait_until(
            seconds,
            &format!("{what} (cluster healthy)"),
            Duration::from_millis(200),
            || self.healthy(),
        )
    }

    fn kill(&mut self, index: usize) {
        if let Some(server) = self.nodes[index].server.take() {
            server.kill_keep_dir();
        }
    }

    fn restart(&mut self, index: usize) {
        let node = &mut self.nodes[index];
        node.server = Some(Server::with(node.config.clone()));
    }

    /// The first crash report, assertion, panic or zkit bug line of each
    /// node's log.
    fn crash_reports(&self) -> Vec<String> {
        const SIGNS: [&str; 6] = [
            "bug report",
            "assertion",
            "guru meditation",
            "crashed by signal",
            "panicked",
            "zkit: bug",
        ];
        self.nodes
            .iter()
            .filter_map(|node| {
                let log = std::fs::read_to_string(node.dir.join("server.log")).unwrap_or_default();
                log.lines()
                    .find(|line| {
                        let line = line.to_lowercase();
                        SIGNS.iter().any(|sign| line.contains(sign))
                    })
                    .map(|line| format!("node{} log: {}", node.index, line.trim()))
            })
            .collect()
    }

    /// The port of the master serving `slot`, as node `index` sees it.
    fn owner_port(&self, index: usize, slot: u16) -> Result<Option<u16>, Fault> {
        Ok(cluster_nodes(self.nodes[index].port)?
            .into_iter()
            .find(|e| e.is("master") && e.owns(slot))
            .map(|e| e.port))
    }
}

// ---- the schedule -----------------------------------------------------------

/// A fault the schedule injects.
#[derive(Clone, Copy, Debug)]
enum Action {
    /// SIGKILL a master; its replica is promoted, it restarts as a replica.
    Kill,
    /// CLUSTER FAILOVER on a replica.
    Failover,
    /// Move the busiest key's slot to another master.
    Reshard,
}

struct Schedule {
    rng: Rng,
    reshards: usize,
}

impl Schedule {
    /// Each action `rounds` times, in an order the seed fixes.
    fn plan(&mut self, rounds: usize) -> Vec<Action> {
        let mut actions: Vec<Action> = (0..rounds)
            .flat_map(|_| [Action::Kill, Action::Failover, Action::Reshard])
            .collect();
        for i in (1..actions.len()).rev() {
            let j = self.rng.below(i as u64 + 1) as usize;
            actions.swap(i, j);
        }
        actions
    }

    fn apply(
        &mut self,
        action: Action,
        cluster: &mut ChaosCluster,
        run: &Run,
        busiest: &dyn Fn() -> Option<String>,
    ) -> Result<(), String> {
        let fault = |e: Fault| format!("{action:?}: {e:?}");
        match action {
            Action::Kill => {
                let (masters, _) = cluster.topology().map_err(fault)?;
                let victim = masters[self.rng.below(masters.len() as u64) as usize];
                let port = cluster.nodes[victim].port;
                run.say(&format!("SIGKILL master node{victim} (port {port})"));
                cluster.kill(victim);
                // Its replica takes over once the others agree it failed.
                let observer = cluster.live().next().expect("a live node").port;
                wait_until(
                    60,
                    &format!("node{victim}'s slots move to its replica"),
                    Duration::from_millis(200),
                    || {
                        Ok(cluster_nodes(observer)?
                            .iter()
                            .all(|e| e.port != port || e.slots.is_empty()))
                    },
                )?;
                run.stats.add("failovers", 1);
                run.stats.add("kills", 1);
                cluster.restart(victim);
                run.say(&format!("node{victim} restarted, rejoins as a replica"));
                cluster.wait_healthy(&format!("node{victim} is a synced replica"), 90)
            }
            Action::Failover => {
                let (_, replicas) = cluster.topology().map_err(fault)?;
                let replica = replicas[self.rng.below(replicas.len() as u64) as usize];
                let port = cluster.nodes[replica].port;
                run.say(&format!(
                    "CLUSTER FAILOVER on replica node{replica} (port {port})"
                ));
                call_port(port, &["CLUSTER", "FAILOVER"], TIMEOUT).map_err(fault)?;
                wait_until(
                    60,
                    &format!("node{replica} is a master"),
                    Duration::from_millis(200),
                    || {
                        Ok(text(&call_port(port, &["INFO", "replication"], TIMEOUT)?)?
                            .contains("role:master"))
                    },
                )?;
                run.stats.add("failovers", 1);
                cluster.wait_healthy(&format!("the failover to node{replica} settles"), 90)
            }
            Action::Reshard => self.reshard(cluster, run, busiest),
        }
    }

    /// The busiest key's slot moves to another master.
    fn reshard(
        &mut self,
        cluster: &mut ChaosCluster,
        run: &Run,
        busiest: &dyn Fn() -> Option<String>,
    ) -> Result<(), String> {
        let fault = |e: Fault| format!("reshard: {e:?}");
        let key = busiest().unwrap_or_else(|| "{room:0}:board".to_string());
        let slot = key_slot(&key);
        let (masters, _) = cluster.topology().map_err(fault)?;
        let view = cluster_nodes(cluster.nodes[masters[0]].port).map_err(fault)?;
        let owner = view
            .iter()
            .find(|e| e.is("master") && e.owns(slot))
            .ok_or_else(|| format!("no master owns slot {slot}"))?;
        let source = cluster.by_port(owner.port).expect("a node of ours");
        let others: Vec<usize> = masters.iter().copied().filter(|&m| m != source).collect();
        let target = others[self.rng.below(others.len() as u64) as usize];
        let (source_port, target_port) = (cluster.nodes[source].port, cluster.nodes[target].port);
        let target_id = cluster.nodes[target].id.clone();
        self.reshards += 1;
        // Where the server offers atomic slot migration (Valkey 9), every
        // other move uses it; the others move keys with MIGRATE.
        if self.reshards % 2 == 1 && atomic_migration(source_port) {
            run.say(&format!(
                "reshard slot {slot} ({key}) from node{source} to node{target}, atomic (CLUSTER MIGRATESLOTS)"
            ));
            let migrate = migrate_slot_call(slot, &target_id);
            match call_port(source_port, &words(&migrate), TIMEOUT) {
                Ok(_) => {}
                // Valkey refuses it while a loaded module has not declared
                // that it handles atomic slot migration.
                Err(Fault::Reply(e)) if e.contains("does not support atomic slot migrations") => {
                    run.say(&format!(
                        "atomic migration refused ({e}); moving the slot with MIGRATE"
                    ));
                    run.stats.add("atomic_refused", 1);
                    return legacy_move(cluster, run, slot, source, target, &masters);
                }
                Err(e) => return Err(fault(e)),
            }
            wait_until(
                60,
                &format!("slot {slot} is served by node{target}"),
                Duration::from_millis(200),
                || Ok(cluster.owner_port(source, slot)? == Some(target_port)),
            )?;
            run.stats.add("reshards", 1);
            run.stats.add("atomic_reshards", 1);
            return cluster.wait_healthy(&format!("slot {slot} settles on node{target}"), 90);
        }
        run.say(&format!(
            "reshard slot {slot} ({key}) from node{source} to node{target}"
        ));
        legacy_move(cluster, run, slot, source, target, &masters)
    }
}

fn atomic_migration(port: u16) -> bool {
    matches!(
        call_port(port, &["COMMAND", "INFO", "CLUSTER|MIGRATESLOTS"], TIMEOUT),
        Ok(Value::Array(entries)) if entries.first().is_some_and(|e| *e != Value::Nil)
    )
}

/// SETSLOT IMPORTING/MIGRATING, MIGRATE of every key, SETSLOT NODE.
fn legacy_move(
    cluster: &ChaosCluster,
    run: &Run,
    slot: u16,
    source: usize,
    target: usize,
    masters: &[usize],
) -> Result<(), String> {
    let fault = |e: Fault| format!("moving slot {slot}: {e:?}");
    let (source_node, target_node) = (&cluster.nodes[source], &cluster.nodes[target]);
    let slot_text = slot.to_string();
    call_port(
        target_node.port,
        &[
            "CLUSTER",
            "SETSLOT",
            &slot_text,
            "IMPORTING",
            &source_node.id,
        ],
        TIMEOUT,
    )
    .map_err(fault)?;
    call_port(
        source_node.port,
        &[
            "CLUSTER",
            "SETSLOT",
            &slot_text,
            "MIGRATING",
            &target_node.id,
        ],
        TIMEOUT,
    )
    .map_err(fault)?;
    let mut moved = 0;
    loop {
        let keys: Vec<String> = redis::from_redis_value(
            call_port(
                source_node.port,
                &["CLUSTER", "GETKEYSINSLOT", &slot_text, "10"],
                TIMEOUT,
            )
            .map_err(fault)?,
        )
        .map_err(|e| format!("GETKEYSINSLOT: {e}"))?;
        if keys.is_empty() {
            break;
        }
        let migrate = migrate_keys_call(target_node.port, 10000, &keys);
        call_port(source_node.port, &words(&migrate), Duration::from_secs(30)).map_err(fault)?;
        moved += keys.len();
    }
    let order = [target, source].into_iter().chain(
        masters
            .iter()
            .copied()
            .filter(|&m| m != source && m != target),
    );
    for index in order {
        call_port(
            cluster.nodes[index].port,
            &["CLUSTER", "SETSLOT", &slot_text, "NODE", &target_node.id],
            TIMEOUT,
        )
        .map_err(fault)?;
    }
    run.say(&format!("slot {slot}: {moved} keys moved"));
    run.stats.add("reshards", 1);
    cluster.wait_healthy(&format!("slot {slot} settles on node{target}"), 90)
}

// ---- gifts: exactly once with IDMP -------------------------------------------

const ROOMS: u64 = 12;
const MEMBERS: u64 = 8;

fn board(room: u64) -> String {
    format!("{{room:{room}}}:board")
}

fn seen_key(room: u64) -> String {
    format!("{{room:{room}}}:seen")
}

/// The event ids a seen-key remembers (src/logic/idmp.rs has its format):
/// each id is a member scored at its expiry + 0.25 (or, written by zkit
/// 0.3.0, at its expiry), beside the id and its arguments' digest, scored
/// at the expiry + 0.5.
fn remembered_ids(members: Vec<(Vec<u8>, f64)>) -> Vec<String> {
    members
        .into_iter()
        .filter(|(_, score)| score.fract() != 0.5)
        .map(|(id, _)| String::from_utf8_lossy(&id).into_owned())
        .collect()
}

struct Event {
    id: String,
    room: u64,
    member: String,
    amount: i64,
    /// A replica acknowledged it (WAIT 1).
    confirmed: bool,
}

/// Producers send RANK.GIFT ... IDMP with a fresh event id, and send every
/// failed, timed-out or unconfirmed call again with the same id until a
/// replica holds it. Checked: every confirmed gift is counted, and every
/// board total is exactly the sum of the gifts whose ids its seen-key
/// holds (none counted twice, none without its id, no id nobody sent).
struct Gifts {
    producers: u64,
    seed: u64,
    stop: AtomicBool,
    /// Once stopping: until when a pending gift is still retried.
    drain_until: Mutex<Option<Instant>>,
    events: Mutex<Vec<Event>>,
}

impl Gifts {
    fn new(producers: u64, seed: u64) -> Gifts {
        Gifts {
            producers,
            seed,
            stop: AtomicBool::new(false),
            drain_until: Mutex::new(None),
            events: Mutex::new(Vec::new()),
        }
    }

    fn produce(&self, number: u64, run: &Run) {
        let mut rng = Rng::with_seed(self.seed * 1000 + number);
        let mut router = Router::new(run);
        let mut seq = 0;
        while !self.stop.load(Ordering::Relaxed) {
            seq += 1;
            let room = rng.below(ROOMS);
            let member = format!("m{}", rng.below(MEMBERS));
            let amount = rng.range(1, 1000);
            let id = format!("p{number}-{seq}");
            let confirmed = self.send(&mut router, &mut rng, run, &id, room, &member, amount);
            self.events.lock().unwrap().push(Event {
                id,
                room,
                member,
                amount,
                confirmed,
            });
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn send(
        &self,
        router: &mut Router,
        rng: &mut Rng,
        run: &Run,
        id: &str,
        room: u64,
        member: &str,
        amount: i64,
    ) -> bool {
        let key = board(room);
        let gift = command(&[
            "RANK.GIFT",
            &key,
            member,
            &amount.to_string(),
            "IDMP",
            &seen_key(room),
            id,
        ]);
        let mut attempt = 0;
        while self
            .drain_until
            .lock()
            .unwrap()
            .is_none_or(|until| Instant::now() < until)
        {
            attempt += 1;
            if attempt > 1 {
                run.stats.add("retries", 1);
            }
            match confirmed(router, &key, gift.clone(), 2000) {
                Ok((reply, acked)) => {
                    if let Value::Array(fields) = &reply {
                        if fields.last().map(int) == Some(1) {
                            run.stats.add("duplicates_refused", 1);
                        }
                    }
                    if acked >= 1 {
                        run.stats.add("gifts_confirmed", 1);
                        return true;
                    }
                    run.stats.add("unconfirmed_waits", 1);
                }
                Err(e) => {
                    run.stats.add(&format!("error {}", e.kind()), 1);
                    thread::sleep(Duration::from_millis(50 + rng.below(50)));
                    router.refresh();
                }
            }
        }
        false
    }
}

impl Load for Gifts {
    fn start(self: Arc<Self>, run: &Arc<Run>) -> Vec<JoinHandle<()>> {
        spawn_clients(&self, run, self.producers, "producer", Gifts::produce)
    }

    fn finish(&self, run: &Arc<Run>) -> Result<(), String> {
        *self.drain_until.lock().unwrap() = Some(Instant::now() + Duration::from_secs(60));
        self.stop.store(true, Ordering::Relaxed);
        run.say("producers stopping");
        Ok(())
    }

    fn check(&self, run: &Arc<Run>) -> Vec<String> {
        let mut failures = Vec::new();
        let mut router = Router::new(run);
        let events = self.events.lock().unwrap();
        let sent: HashMap<&str, &Event> = events.iter().map(|e| (e.id.as_str(), e)).collect();
        let mut seen: HashMap<u64, Vec<String>> = HashMap::new();
        for room in 0..ROOMS {
            let members = call_until_answered(
                &mut router,
                &seen_key(room),
                &["ZRANGE", &seen_key(room), "0", "-1", "WITHSCORES"],
            )
            .and_then(|v| redis::from_redis_value(v).map_err(|e| e.to_string()));
            match members {
                Ok(members) => {
                    seen.insert(room, remembered_ids(members));
                }
                Err(e) => return vec![e],
            }
        }
        let unknown: Vec<&String> = seen
            .values()
            .flatten()
            .filter(|id| !sent.contains_key(id.as_str()))
            .collect();
        if !unknown.is_empty() {
            failures.push(format!(
                "{} remembered ids no producer sent: {:?}",
                unknown.len(),
                &unknown[..unknown.len().min(5)]
            ));
        }
        let lost: Vec<&str> = events
            .iter()
            .filter(|e| e.confirmed && !seen[&e.room].contains(&e.id))
            .map(|e| e.id.as_str())
            .collect();
        if !lost.is_empty() {
            failures.push(format!(
                "{} WAIT-confirmed gifts are not counted: {:?}",
                lost.len(),
                &lost[..lost.len().min(5)]
            ));
        }
        let mut wrong = Vec::new();
        for room in 0..ROOMS {
            for m in 0..MEMBERS {
                let member = format!("m{m}");
                let expected: i64 = events
                    .iter()
                    .filter(|e| e.room == room && e.member == member && seen[&room].contains(&e.id))
                    .map(|e| e.amount)
                    .sum();
                let total = match call_until_answered(
                    &mut router,
                    &board(room),
                    &["RANK.GET", &board(room), &member],
                ) {
                    Ok(Value::Array(entry)) => entry.first().map(int).unwrap_or(0),
                    Ok(_) => 0,
                    Err(e) => return vec![e],
                };
                if total != expected {
                    wrong.push((room, member, total, expected));
                }
            }
        }
        if !wrong.is_empty() {
            failures.push(format!(
                "{} totals differ from the sum of their remembered gifts (room, member, total, expected): {:?}",
                wrong.len(),
                &wrong[..wrong.len().min(5)]
            ));
        }
        failures
    }

    fn busiest_key(&self) -> Option<String> {
        let events = self.events.lock().unwrap();
        let mut counts = [0usize; ROOMS as usize];
        for event in events.iter() {
            counts[event.room as usize] += 1;
        }
        let room = (0..ROOMS).max_by_key(|&r| (counts[r as usize], std::cmp::Reverse(r)))?;
        Some(board(room))
    }

    fn summary(&self, run: &Run) -> String {
        let events = self.events.lock().unwrap();
        format!(
            "events={} confirmed={} retries={} duplicates_refused={}",
            events.len(),
            events.iter().filter(|e| e.confirmed).count(),
            run.stats.get("retries"),
            run.stats.get("duplicates_refused"),
        )
    }
}

// ---- tasks: leased delivery -----------------------------------------------------

const QUEUES: u64 = 4;
const LEASE_MS: u64 = 3000;

fn queue_key(q: u64) -> String {
    format!("{{jobs:{q}}}")
}

fn inflight_key(q: u64) -> String {
    format!("{{jobs:{q}}}:inflight")
}

/// The tasks of a DELAY.POLL ... WITHTOKENS reply: (task, token) each.
fn claimed_tasks(reply: &Value) -> Vec<(String, i64)> {
    match reply {
        Value::Array(tasks) => tasks
            .iter()
            .filter_map(|task| match task {
                Value::Array(fields) if fields.len() == 3 => {
                    Some((text(&fields[0]).ok()?, int(&fields[2])))
                }
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Runs one command in `key`'s slot, up to 5 times until a node answers;
/// None when none did (each failure counted).
fn run_retried(router: &mut Router, run: &Run, key: &str, words: &[String]) -> Option<Vec<Value>> {
    for _ in 0..5 {
        match router.run(key, &[words.to_vec()]) {
            Ok(replies) => return Some(replies),
            Err(e) => {
                run.stats.add(&format!("error {}", e.kind()), 1);
                thread::sleep(Duration::from_millis(50));
                router.refresh();
            }
        }
    }
    None
}

struct Delivery {
    task: String,
    /// The delivery's token (its lease's end, server ms).
    token: i64,
    worker: u64,
    /// When the poll was sent and its reply came (ms, this machine's clock).
    sent: u64,
    received: u64,
    /// A replica held the lease (WAIT 1).
    confirmed: bool,
}

/// A worker that stalled past its lease: the call it sends late, with the
/// token of the delivery it held.
struct Stalled {
    task: String,
    token: i64,
    q: u64,
    /// When it wakes up and sends its call (ms, this machine's clock).
    at: u64,
}

/// A stalled worker's late ACK, NACK or TOUCH, and whether it acted.
struct LateCall {
    task: String,
    token: i64,
    worker: u64,
    verb: &'static str,
    sent: u64,
    acted: bool,
}

/// Tasks scheduled before the chaos (due over its first minute); workers
/// poll them with a fenced lease, poll the in-flight sets too (which hand
/// out tasks whose lease ended) and acknowledge all but one in 30, left to
/// its lease as by a worker that died; one in 15 stalls past its lease and
/// then sends a late ACK, NACK or TOUCH with its token, mostly after another
/// worker took the task over. Checked: every task delivered, never to a
/// second worker inside a WAIT-confirmed lease, and no late call acted on a
/// task another worker had taken over.
struct Tasks {
    workers: u64,
    count: u64,
    seed: u64,
    stop: AtomicBool,
    /// When the first task falls due (ms).
    first_due: Mutex<u64>,
    deliveries: Mutex<Vec<Delivery>>,
    late_calls: Mutex<Vec<LateCall>>,
}

const TASK_SPAN_MS: u64 = 60_000;

impl Tasks {
    fn new(workers: u64, count: u64, seed: u64) -> Tasks {
        Tasks {
            workers,
            count,
            seed,
            stop: AtomicBool::new(false),
            first_due: Mutex::new(0),
            deliveries: Mutex::new(Vec::new()),
            late_calls: Mutex::new(Vec::new()),
        }
    }

    fn work(&self, number: u64, run: &Run) {
        let mut rng = Rng::with_seed(self.seed * 7919 + number);
        let mut router = Router::new(run);
        let mut stalled: Vec<Stalled> = Vec::new();
        while !self.stop.load(Ordering::Relaxed) {
            let now = now_ms();
            let (late, waiting): (Vec<Stalled>, Vec<Stalled>) =
                stalled.drain(..).partition(|s| s.at <= now);
            stalled = waiting;
            for call in late {
                self.late_call(&mut router, &mut rng, run, number, call);
            }
            let q = rng.below(QUEUES);
            let source = if rng.chance(80) {
                queue_key(q)
            } else {
                inflight_key(q)
            };
            self.poll(&mut router, &mut rng, run, number, q, &source, &mut stalled);
        }
    }

    /// The call a stalled worker sends when it wakes: it finished the task
    /// (ACK), failed it (NACK) or renews its lease (TOUCH), naming its
    /// delivery's token.
    fn late_call(&self, router: &mut Router, rng: &mut Rng, run: &Run, worker: u64, call: Stalled) {
        let inflight = inflight_key(call.q);
        let queue = queue_key(call.q);
        let token = call.token.to_string();
        let (verb, words) = match rng.below(3) {
            0 => (
                "ack",
                vec!["DELAY.ACK", &inflight, "LEASES", &call.task, &token],
            ),
            1 => (
                "nack",
                vec![
                    "DELAY.NACK",
                    &inflight,
                    &queue,
                    &call.task,
                    "0",
                    "TOKEN",
                    &token,
                ],
            ),
            _ => (
                "touch",
                vec![
                    "DELAY.TOUCH",
                    &inflight,
                    &call.task,
                    "60000",
                    "TOKEN",
                    &token,
                ],
            ),
        };
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        let sent = now_ms();
        let Some(replies) = run_retried(router, run, &inflight, &words) else {
            run.stats.add("late_calls_lost", 1);
            return;
        };
        self.late_calls.lock().unwrap().push(LateCall {
            task: call.task,
            token: call.token,
            worker,
            verb,
            sent,
            acted: int(&replies[0]) > 0,
        });
        run.stats.add("late_calls", 1);
    }

    #[allow(clippy::too_many_arguments)]
    fn poll(
        &self,
        router: &mut Router,
        rng: &mut Rng,
        run: &Run,
        number: u64,
        q: u64,
        source: &str,
        stalled: &mut Vec<Stalled>,
    ) {
        let sent = now_ms();
        let poll = command(&[
            "DELAY.POLL",
            source,
            "COUNT",
            "5",
            "LEASE",
            &inflight_key(q),
            &LEASE_MS.to_string(),
            "WITHTOKENS",
        ]);
        let (tasks, acked) = match confirmed(router, source, poll, 1000) {
            Ok(reply) => reply,
            Err(e) => {
                run.stats.add(&format!("error {}", e.kind()), 1);
                thread::sleep(Duration::from_millis(50));
                router.refresh();
                return;
            }
        };
        let received = now_ms();
        let claimed = claimed_tasks(&tasks);
        if claimed.is_empty() {
            thread::sleep(Duration::from_millis(20));
            return;
        }
        self.deliveries
            .lock()
            .unwrap()
            .extend(claimed.iter().map(|(task, token)| Delivery {
                task: task.clone(),
                token: *token,
                worker: number,
                sent,
                received,
                confirmed: acked >= 1,
            }));
        run.stats.add("deliveries", claimed.len() as u64);
        let mut acks = Vec::new();
        for (task, token) in claimed {
            match rng.below(30) {
                // A worker that dies mid-task never acks: the task is left to
                // its lease, so the in-flight polls hand it out again.
                0 => run.stats.add("acks_skipped", 1),
                // A worker that stalls past its lease, then calls late.
                1 | 2 => stalled.push(Stalled {
                    task,
                    token,
                    q,
                    at: received + LEASE_MS + 100 + rng.below(1500),
                }),
                _ => acks.extend([task, token.to_string()]),
            }
        }
        if acks.is_empty() {
            return;
        }
        let mut ack = command(&["DELAY.ACK", &inflight_key(q), "LEASES"]);
        ack.extend(acks);
        if run_retried(router, run, &inflight_key(q), &ack).is_none() {
            run.stats.add("acks_lost", 1);
        }
    }

    fn delivered(&self) -> usize {
        let deliveries = self.deliveries.lock().unwrap();
        let mut tasks: Vec<&str> = deliveries.iter().map(|d| d.task.as_str()).collect();
        tasks.sort_unstable();
        tasks.dedup();
        tasks.len()
    }

    /// The late calls sent after another worker's WAIT-confirmed takeover of
    /// their task (its poll's reply came before the late call was sent),
    /// and those of them that acted: each must have changed nothing.
    fn late_calls_after_takeover(&self) -> (usize, Vec<(String, u64, &'static str)>) {
        let deliveries = self.deliveries.lock().unwrap();
        let late_calls = self.late_calls.lock().unwrap();
        let mut after_takeover = 0;
        let mut stale_acted = Vec::new();
        for late in late_calls.iter() {
            let taken_over = deliveries.iter().any(|d| {
                d.task == late.task && d.confirmed && d.token > late.token && d.received < late.sent
            });
            if taken_over {
                after_takeover += 1;
                if late.acted {
                    stale_acted.push((late.task.clone(), late.worker, late.verb));
                }
            }
        }
        (after_takeover, stale_acted)
    }
}

impl Load for Tasks {
    /// Every task is scheduled before the chaos, each WAIT-confirmed:
    /// retrying a ZADD after its task was delivered would schedule it
    /// again, so tasks are never added during the chaos.
    fn prepare(&self, run: &Arc<Run>) -> Result<(), String> {
        let first_due = now_ms() + 2000;
        *self.first_due.lock().unwrap() = first_due;
        let mut router = Router::new(run);
        for n in 0..self.count {
            let key = queue_key(n % QUEUES);
            let due = (first_due + n * TASK_SPAN_MS / self.count).to_string();
            let add = command(&["ZADD", &key, &due, &format!("t{n}")]);
            wait_until(
                30,
                &format!("t{n} is enqueued"),
                Duration::from_millis(100),
                || Ok(confirmed(&mut router, &key, add.clone(), 2000)?.1 >= 1),
            )?;
        }
        run.say(&format!("{} tasks enqueued and WAIT-confirmed", self.count));
        Ok(())
    }

    fn start(self: Arc<Self>, run: &Arc<Run>) -> Vec<JoinHandle<()>> {
        spawn_clients(&self, run, self.workers, "worker", Tasks::work)
    }

    /// Workers run until every task was delivered (all fell due) or 90 s.
    fn finish(&self, _run: &Arc<Run>) -> Result<(), String> {
        let all_due = *self.first_due.lock().unwrap() + TASK_SPAN_MS;
        let waited = wait_until(
            90,
            "every task is delivered",
            Duration::from_millis(500),
            || Ok(self.delivered() as u64 >= self.count && now_ms() > all_due),
        );
        self.stop.store(true, Ordering::Relaxed);
        waited
    }

    fn check(&self, _run: &Arc<Run>) -> Vec<String> {
        let mut failures = Vec::new();
        let deliveries = self.deliveries.lock().unwrap();
        let mut by_task: HashMap<&str, Vec<&Delivery>> = HashMap::new();
        for d in deliveries.iter() {
            by_task.entry(&d.task).or_default().push(d);
        }
        let missing: Vec<String> = (0..self.count)
            .map(|n| format!("t{n}"))
            .filter(|t| !by_task.contains_key(t.as_str()))
            .collect();
        if !missing.is_empty() {
            failures.push(format!(
                "{} WAIT-confirmed tasks never delivered: {:?}",
                missing.len(),
                &missing[..missing.len().min(5)]
            ));
        }
        let mut overlaps = Vec::new();
        for (task, ds) in &by_task {
            for first in ds.iter().filter(|d| d.confirmed) {
                // The lease ends at the server's clock + LEASE_MS, read after
                // `first` was sent; `other` was handed out before it came back.
                for other in ds {
                    if other.worker != first.worker
                        && other.sent >= first.sent
                        && other.received < first.sent + LEASE_MS
                    {
                        overlaps.push((task.to_string(), first.worker, other.worker));
                    }
                }
            }
        }
        if !overlaps.is_empty() {
            failures.push(format!(
                "{} tasks delivered to two workers inside one lease: {:?}",
                overlaps.len(),
                &overlaps[..overlaps.len().min(5)]
            ));
        }
        drop(deliveries);
        let (after_takeover, stale_acted) = self.late_calls_after_takeover();
        if !stale_acted.is_empty() {
            failures.push(format!(
                "{} late calls of stale workers acted on a delivery taken over: {:?}",
                stale_acted.len(),
                &stale_acted[..stale_acted.len().min(5)]
            ));
        }
        if after_takeover == 0 {
            failures.push(format!(
                "none of {} late calls came after a takeover: the fencing was not exercised",
                self.late_calls.lock().unwrap().len()
            ));
        }
        failures
    }

    fn summary(&self, run: &Run) -> String {
        let deliveries = self.deliveries.lock().unwrap().len();
        let (after_takeover, _) = self.late_calls_after_takeover();
        let late_calls = self.late_calls.lock().unwrap();
        format!(
            "tasks={} deliveries={} redelivered={} acks_skipped={} acks_lost={} late_calls={} \
             after_takeover={after_takeover} late_acted={} late_lost={}",
            self.count,
            deliveries,
            deliveries - self.delivered(),
            run.stats.get("acks_skipped"),
            run.stats.get("acks_lost"),
            late_calls.len(),
            late_calls.iter().filter(|c| c.acted).count(),
            run.stats.get("late_calls_lost"),
        )
    }
}

// ---- stepped merges ------------------------------------------------------------

const DAYS: u64 = 3;
const MERGE_WEIGHTS: [&str; 3] = ["2", "-1", "3"];
const DAY_GIFTS: u64 = 40;

fn day_board(room: u64, day: u64) -> String {
    format!("{{room:{room}}}:day:{day}")
}

fn week_board(room: u64) -> String {
    format!("{{room:{room}}}:week")
}

fn merge_staging(room: u64) -> String {
    format!("{{room:{room}}}:week:staging")
}

/// `RANK.MERGE dest 3 <the room's daily boards> WEIGHTS 2 -1 3`: the
/// one-shot form; a step appends `STEP count staging cursor`.
fn merge_call(room: u64, dest: &str) -> Vec<String> {
    let mut call = command(&["RANK.MERGE", dest, &DAYS.to_string()]);
    call.extend((0..DAYS).map(|day| day_board(room, day)));
    call.push("WEIGHTS".to_string());
    call.extend(MERGE_WEIGHTS.iter().map(|w| w.to_string()));
    call
}

/// A merger runs stepped merges (`RANK.MERGE ... STEP`) of each room's
/// daily boards into its weekly board, room after room, steps of 1 to 12
/// entries. The daily boards are filled before the chaos and no longer
/// change: negative amounts, a negative weight, and few distinct times, so
/// that ties are ordered by when totals were reached. Each run starts with
/// a cursor of its own (`m2:<id>:0`), so that every step, the first
/// included, may be sent again: a step whose reply was lost or not
/// WAIT-confirmed is sent again with the same cursor until a replica holds
/// it. A step refused for what the run is (its staging key lost or taken,
/// an old cursor) abandons the run: its staging key is deleted. Checked:
/// every weekly board a run finished equals the one-shot merge of its
/// daily boards, and some run finished.
struct Merges {
    seed: u64,
    stop: AtomicBool,
    /// Rooms whose weekly board a run finished.
    finished: Mutex<BTreeSet<u64>>,
    /// Rooms whose weekly board the check compared.
    checked: AtomicU64,
}

impl Merges {
    fn new(seed: u64) -> Merges {
        Merges {
            seed,
            stop: AtomicBool::new(false),
            finished: Mutex::new(BTreeSet::new()),
            checked: AtomicU64::new(0),
        }
    }

    fn merge_rooms(&self, _number: u64, run: &Run) {
        let mut rng = Rng::with_seed(self.seed * 104_729);
        let mut router = Router::new(run);
        for room in (0..ROOMS).cycle() {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            self.merge(&mut router, &mut rng, run, room);
        }
    }

    /// One run over `room`'s daily boards, until it finishes, is refused,
    /// or the merger stops.
    fn merge(&self, router: &mut Router, rng: &mut Rng, run: &Run, room: u64) {
        let (week, staging) = (week_board(room), merge_staging(room));
        let mut cursor = format!("m2:{:016x}{:016x}:0", rng.next_u64(), rng.next_u64());
        let mut again = false;
        while !self.stop.load(Ordering::Relaxed) {
            if again {
                run.stats.add("merge_steps_resent", 1);
            }
            let mut step = merge_call(room, &week);
            step.extend([
                "STEP".to_string(),
                rng.range(1, 12).to_string(),
                staging.clone(),
                cursor.clone(),
            ]);
            again = true;
            match confirmed(router, &week, step, 2000) {
                Ok((reply, acked)) if acked >= 1 => {
                    run.stats.add("merge_steps", 1);
                    again = false;
                    let next = match &reply {
                        Value::Array(fields) => fields.first().and_then(|c| text(c).ok()),
                        _ => None,
                    };
                    match next.as_deref() {
                        Some("0") => {
                            run.stats.add("merge_runs_finished", 1);
                            self.finished.lock().unwrap().insert(room);
                            return;
                        }
                        Some(next) => cursor = next.to_string(),
                        None => panic!("room {room}: a merge step replied {reply:?}"),
                    }
                }
                // Not WAIT-confirmed: the same cursor again.
                Ok(_) => {}
                Err(Fault::Reply(refusal)) if refusal.starts_with("ERR ") => {
                    run.stats.add("error ERR", 1);
                    run.stats.add("merge_runs_refused", 1);
                    // The first few say why (a breach would repeat it).
                    if run.stats.get("merge_runs_refused") <= 3 {
                        run.say(&format!(
                            "room {room}: a merge step was refused, the run is abandoned: {refusal}"
                        ));
                    }
                    if let Err(e) = call_until_answered(router, &staging, &["DEL", &staging]) {
                        run.say(&format!("room {room}: {e}; the next run may be refused"));
                    }
                    return;
                }
                Err(e) => {
                    run.stats.add(&format!("error {}", e.kind()), 1);
                    thread::sleep(Duration::from_millis(50 + rng.below(50)));
                    router.refresh();
                }
            }
        }
    }
}

impl Load for Merges {
    /// Every daily board is written in one call (after a DEL, so that a
    /// call sent again writes the same board) and WAIT-confirmed.
    fn prepare(&self, run: &Arc<Run>) -> Result<(), String> {
        let mut rng = Rng::with_seed(self.seed * 31);
        let mut router = Router::new(run);
        // 2024-01-01; four distinct times per board.
        let epoch: u64 = 1_704_067_200_000;
        for room in 0..ROOMS {
            for day in 0..DAYS {
                let key = day_board(room, day);
                let mut writes = vec![command(&["DEL", &key])];
                for _ in 0..DAY_GIFTS {
                    writes.push(command(&[
                        "RANK.GIFT",
                        &key,
                        &format!("m{}", rng.below(60)),
                        &rng.range(-500, 1000).to_string(),
                        "AT",
                        &(epoch + rng.below(4) * 60_000).to_string(),
                    ]));
                }
                wait_until(
                    30,
                    &format!("{key} is filled"),
                    Duration::from_millis(100),
                    || {
                        let (replies, acked) =
                            confirmed_all(&mut router, &key, writes.clone(), 2000)?;
                        match replies.iter().find_map(reply_error) {
                            Some(fault) => Err(fault),
                            None => Ok(acked >= 1),
                        }
                    },
                )?;
            }
        }
        run.say(&format!(
            "{} daily boards filled and WAIT-confirmed for the stepped merges",
            ROOMS * DAYS
        ));
        Ok(())
    }

    fn start(self: Arc<Self>, run: &Arc<Run>) -> Vec<JoinHandle<()>> {
        spawn_clients(&self, run, 1, "merger", Merges::merge_rooms)
    }

    fn finish(&self, run: &Arc<Run>) -> Result<(), String> {
        self.stop.store(true, Ordering::Relaxed);
        run.say("the merger stopping");
        Ok(())
    }

    fn check(&self, run: &Arc<Run>) -> Vec<String> {
        let finished = self.finished.lock().unwrap().clone();
        if finished.is_empty() {
            return vec!["no stepped merge finished".to_string()];
        }
        let mut failures = Vec::new();
        let mut router = Router::new(run);
        let entries = |board: Value| -> Result<Vec<(String, String)>, String> {
            redis::from_redis_value(board).map_err(|e| format!("a weekly board: {e}"))
        };
        for room in finished {
            let expected_key = format!("{{room:{room}}}:week:expected");
            let one_shot = merge_call(room, &expected_key);
            let one_shot: Vec<&str> = one_shot.iter().map(String::as_str).collect();
            let boards =
                call_until_answered(&mut router, &expected_key, &one_shot).and_then(|_| {
                    let mut read = |key: &str| {
                        call_until_answered(
                            &mut router,
                            key,
                            &["ZRANGE", key, "0", "-1", "WITHSCORES"],
                        )
                        .and_then(entries)
                    };
                    Ok((read(&expected_key)?, read(&week_board(room))?))
                });
            let (expected, merged) = match boards {
                Ok(boards) => boards,
                Err(e) => {
                    failures.push(e);
                    break;
                }
            };
            self.checked.fetch_add(1, Ordering::Relaxed);
            if expected.is_empty() {
                failures.push(format!(
                    "room {room}: the one-shot merge of its days is empty"
                ));
            } else if merged != expected {
                let rank = (0..)
                    .find(|&i| merged.get(i) != expected.get(i))
                    .unwrap_or(0);
                failures.push(format!(
                    "room {room}: the stepped merge's weekly board differs from the one-shot merge of its days ({} vs {} members; first at rank {rank}, (member, score) {:?} vs {:?})",
                    merged.len(),
                    expected.len(),
                    merged.get(rank),
                    expected.get(rank),
                ));
            }
        }
        failures
    }

    fn summary(&self, run: &Run) -> String {
        format!(
            "merges={} (rooms checked {}, steps {}, resent {}, refused runs {})",
            run.stats.get("merge_runs_finished"),
            self.checked.load(Ordering::Relaxed),
            run.stats.get("merge_steps"),
            run.stats.get("merge_steps_resent"),
            run.stats.get("merge_runs_refused"),
        )
    }
}

// ---- repeating jobs: one occurrence at a time ------------------------------------

const REPEAT: &str = "{repeat}";
const REPEAT_INFLIGHT: &str = "{repeat}:inflight";
const REPEAT_DATA: &str = "{repeat}:data";
const REPEAT_EVERY_MS: i64 = 250;

/// A claim of an occurrence: its time, its delivery's token, who claimed it
/// from where, and whether a replica held the claim (WAIT 1).
struct OccurrenceClaim {
    at: i64,
    token: i64,
    worker: u64,
    from_queue: bool,
    sent: u64,
    received: u64,
    confirmed: bool,
}

/// A repeating job every 250 ms, claimed by 8 workers from its queue and
/// from its in-flight set (occurrences whose worker died, one in 30 left
/// unacked), acked with their tokens. Checked: every occurrence is on the
/// schedule's grid; none is acked twice (WAIT-confirmed) or handed to a
/// second worker inside a WAIT-confirmed lease; the occurrence after each
/// WAIT-confirmed claim from the queue was claimed later or is pending at
/// the end (none lost); and the schedule ends with exactly one pending
/// occurrence, the one the DATA hash names (the chain never forked).
struct Repeats {
    workers: u64,
    seed: u64,
    stop: AtomicBool,
    first: Mutex<i64>,
    claims: Mutex<Vec<OccurrenceClaim>>,
    /// Occurrences whose ACK removed them, and whether a replica held it.
    acks: Mutex<Vec<(i64, bool)>>,
}

fn occurrence_at(task: &str) -> Option<i64> {
    task.rsplit_once('@')?.1.parse().ok()
}

impl Repeats {
    fn new(workers: u64, seed: u64) -> Repeats {
        Repeats {
            workers,
            seed,
            stop: AtomicBool::new(false),
            first: Mutex::new(0),
            claims: Mutex::new(Vec::new()),
            acks: Mutex::new(Vec::new()),
        }
    }

    fn work(&self, number: u64, run: &Run) {
        let mut rng = Rng::with_seed(self.seed * 6151 + number);
        let mut router = Router::new(run);
        while !self.stop.load(Ordering::Relaxed) {
            let from_queue = rng.chance(80);
            let source = if from_queue { REPEAT } else { REPEAT_INFLIGHT };
            let sent = now_ms();
            let poll = command(&[
                "DELAY.POLL",
                source,
                "COUNT",
                "2",
                "LEASE",
                REPEAT_INFLIGHT,
                &LEASE_MS.to_string(),
                "DATA",
                REPEAT_DATA,
                "WITHTOKENS",
            ]);
            let (tasks, acked) = match confirmed(&mut router, source, poll, 1000) {
                Ok(reply) => reply,
                Err(e) => {
                    run.stats.add(&format!("error {}", e.kind()), 1);
                    thread::sleep(Duration::from_millis(50));
                    router.refresh();
                    continue;
                }
            };
            let received = now_ms();
            let claimed = claimed_tasks(&tasks);
            if claimed.is_empty() {
                thread::sleep(Duration::from_millis(10));
                continue;
            }
            for (task, token) in claimed {
                let Some(at) = occurrence_at(&task) else {
                    run.stats.add("repeat_foreign_tasks", 1);
                    continue;
                };
                self.claims.lock().unwrap().push(OccurrenceClaim {
                    at,
                    token,
                    worker: number,
                    from_queue,
                    sent,
                    received,
                    confirmed: acked >= 1,
                });
                run.stats.add("occurrences_claimed", 1);
                // A worker that dies mid-run: left to its lease.
                if rng.below(30) == 0 {
                    continue;
                }
                let ack = command(&[
                    "DELAY.ACK",
                    REPEAT_INFLIGHT,
                    "DATA",
                    REPEAT_DATA,
                    "LEASES",
                    &task,
                    &token.to_string(),
                ]);
                for _ in 0..5 {
                    match confirmed(&mut router, REPEAT_INFLIGHT, ack.clone(), 1000) {
                        Ok((removed, acked)) => {
                            if int(&removed) == 1 {
                                self.acks.lock().unwrap().push((at, acked >= 1));
                            }
                            break;
                        }
                        Err(e) => {
                            run.stats.add(&format!("error {}", e.kind()), 1);
                            thread::sleep(Duration::from_millis(50));
                            router.refresh();
                        }
                    }
                }
            }
        }
    }
}

impl Load for Repeats {
    fn prepare(&self, run: &Arc<Run>) -> Result<(), String> {
        let first = now_ms() as i64 + 1000;
        *self.first.lock().unwrap() = first;
        let mut router = Router::new(run);
        // Sent again after a lost reply, it replaces the pending occurrence
        // by the same first one.
        let schedule = command(&[
            "DELAY.SCHEDULE",
            REPEAT,
            REPEAT_DATA,
            "tick",
            "EVERY",
            &REPEAT_EVERY_MS.to_string(),
            "START",
            &first.to_string(),
        ]);
        wait_until(
            30,
            "the schedule is in place",
            Duration::from_millis(100),
            || Ok(confirmed(&mut router, REPEAT, schedule.clone(), 2000)?.1 >= 1),
        )?;
        run.say("a repeating job every 250 ms, WAIT-confirmed");
        Ok(())
    }

    fn start(self: Arc<Self>, run: &Arc<Run>) -> Vec<JoinHandle<()>> {
        spawn_clients(&self, run, self.workers, "repeat worker", Repeats::work)
    }

    /// Workers run two leases more, so occurrences left to their lease are
    /// claimed again.
    fn finish(&self, _run: &Arc<Run>) -> Result<(), String> {
        thread::sleep(Duration::from_millis(2 * LEASE_MS + 500));
        self.stop.store(true, Ordering::Relaxed);
        Ok(())
    }

    fn check(&self, run: &Arc<Run>) -> Vec<String> {
        let mut failures = Vec::new();
        let first = *self.first.lock().unwrap();
        let claims = self.claims.lock().unwrap();
        let off_grid: Vec<i64> = claims
            .iter()
            .map(|c| c.at)
            .filter(|at| (at - first) % REPEAT_EVERY_MS != 0 || *at < first)
            .collect();
        if !off_grid.is_empty() {
            failures.push(format!(
                "{} occurrences off the schedule's grid: {:?}",
                off_grid.len(),
                &off_grid[..off_grid.len().min(5)]
            ));
        }
        let mut acked: HashMap<i64, usize> = HashMap::new();
        for (at, confirmed) in self.acks.lock().unwrap().iter() {
            if *confirmed {
                *acked.entry(*at).or_default() += 1;
            }
        }
        let doubled: Vec<i64> = acked
            .iter()
            .filter(|(_, n)| **n > 1)
            .map(|(at, _)| *at)
            .collect();
        if !doubled.is_empty() {
            failures.push(format!(
                "{} occurrences acked twice: {:?}",
                doubled.len(),
                &doubled[..doubled.len().min(5)]
            ));
        }
        let mut overlaps = Vec::new();
        for first_claim in claims.iter().filter(|c| c.confirmed) {
            for other in claims.iter() {
                if other.at == first_claim.at
                    && other.worker != first_claim.worker
                    && other.sent >= first_claim.sent
                    && other.received < first_claim.sent + LEASE_MS
                {
                    overlaps.push((first_claim.at, first_claim.worker, other.worker));
                }
            }
        }
        if !overlaps.is_empty() {
            failures.push(format!(
                "{} occurrences handed to two workers inside one lease: {:?}",
                overlaps.len(),
                &overlaps[..overlaps.len().min(5)]
            ));
        }
        // The end: one pending occurrence, the one the schedule names.
        let mut router = Router::new(run);
        let pending: Vec<i64> =
            match call_until_answered(&mut router, REPEAT, &["ZRANGE", REPEAT, "0", "-1"]) {
                Ok(Value::Array(tasks)) => tasks
                    .iter()
                    .filter_map(|t| text(t).ok().and_then(|t| occurrence_at(&t)))
                    .collect(),
                other => {
                    failures.push(format!("the queue could not be read: {other:?}"));
                    return failures;
                }
            };
        let named = call_until_answered(&mut router, REPEAT, &["HGET", REPEAT_DATA, "n:tick"])
            .ok()
            .and_then(|v| text(&v).ok())
            .and_then(|v| v.parse::<i64>().ok());
        if pending.len() != 1 || named != pending.first().copied() {
            failures.push(format!(
                "the schedule forked or stopped: pending {pending:?}, the DATA hash names {named:?}"
            ));
        }
        let held: Vec<i64> = match call_until_answered(
            &mut router,
            REPEAT_INFLIGHT,
            &["ZRANGE", REPEAT_INFLIGHT, "0", "-1"],
        ) {
            Ok(Value::Array(tasks)) => tasks
                .iter()
                .filter_map(|t| text(t).ok().and_then(|t| occurrence_at(&t)))
                .collect(),
            _ => Vec::new(),
        };
        // After each WAIT-confirmed claim from the queue, its next one was
        // claimed or is still there.
        let seen: BTreeSet<i64> = claims
            .iter()
            .map(|c| c.at)
            .chain(pending.iter().copied())
            .chain(held)
            .collect();
        let lost: Vec<i64> = claims
            .iter()
            .filter(|c| c.confirmed && c.from_queue)
            .filter_map(|c| {
                let claimed_at = c.token - LEASE_MS as i64;
                let after = c.at.max(claimed_at);
                let next = c.at + ((after - c.at) / REPEAT_EVERY_MS + 1) * REPEAT_EVERY_MS;
                (!seen.contains(&next)).then_some(next)
            })
            .collect();
        if !lost.is_empty() {
            failures.push(format!(
                "{} occurrences lost after a confirmed claim: {:?}",
                lost.len(),
                &lost[..lost.len().min(5)]
            ));
        }
        let distinct = claims.iter().map(|c| c.at).collect::<BTreeSet<_>>().len();
        if distinct < 20 {
            failures.push(format!("only {distinct} occurrences ran"));
        }
        failures
    }

    fn summary(&self, run: &Run) -> String {
        let claims = self.claims.lock().unwrap();
        let distinct = claims.iter().map(|c| c.at).collect::<BTreeSet<_>>().len();
        format!(
            "occurrences={distinct} claims={} acks={}",
            claims.len(),
            self.acks.lock().unwrap().len(),
        ) + &format!(" foreign={}", run.stats.get("repeat_foreign_tasks"))
    }
}

// ---- groups: a cap on tasks in flight under 50 workers ------------------------------

const TENANTS: &str = "{tenants}";
const TENANTS_INFLIGHT: &str = "{tenants}:inflight";
const TENANTS_DATA: &str = "{tenants}:data";
/// Each group, its cap (0: none) and its tasks.
const GROUPS: [(&str, i64, u64); 3] = [("a", 3, 120), ("b", 2, 40), ("c", 0, 40)];

/// One WAIT-confirmed delivery of a group's task, from the claim's reply
/// to the ACK sent (or the lease's end): the time its worker ran it.
struct Running {
    group: String,
    from: u64,
    until: u64,
}

/// 50 workers on one queue of three groups, two of them capped: each worker
/// claims one task, runs it 10 ms and acks it (one in 40 left to its lease,
/// by a worker that died). Checked: every task was done, and no capped
/// group ever had more of its WAIT-confirmed deliveries running at once than
/// its cap.
struct Tenants {
    workers: u64,
    seed: u64,
    stop: AtomicBool,
    running: Mutex<Vec<Running>>,
    done: Mutex<BTreeSet<String>>,
}

impl Tenants {
    fn new(workers: u64, seed: u64) -> Tenants {
        Tenants {
            workers,
            seed,
            stop: AtomicBool::new(false),
            running: Mutex::new(Vec::new()),
            done: Mutex::new(BTreeSet::new()),
        }
    }

    fn total() -> usize {
        GROUPS.iter().map(|(_, _, n)| *n as usize).sum()
    }

    fn work(&self, number: u64, run: &Run) {
        let mut rng = Rng::with_seed(self.seed * 4099 + number);
        let mut router = Router::new(run);
        while !self.stop.load(Ordering::Relaxed) {
            let source = if rng.chance(80) {
                TENANTS
            } else {
                TENANTS_INFLIGHT
            };
            let poll = command(&[
                "DELAY.POLL",
                source,
                "LEASE",
                TENANTS_INFLIGHT,
                &LEASE_MS.to_string(),
                "DATA",
                TENANTS_DATA,
                "WITHTOKENS",
            ]);
            let (tasks, acked) = match confirmed(&mut router, source, poll, 1000) {
                Ok(reply) => reply,
                Err(e) => {
                    run.stats.add(&format!("error {}", e.kind()), 1);
                    thread::sleep(Duration::from_millis(50));
                    router.refresh();
                    continue;
                }
            };
            let from = now_ms();
            let Some((task, token)) = claimed_tasks(&tasks).into_iter().next() else {
                thread::sleep(Duration::from_millis(5));
                continue;
            };
            run.stats.add("tenant_deliveries", 1);
            let group = task.split(':').next().unwrap_or("").to_string();
            thread::sleep(Duration::from_millis(10));
            let lease_end = token.max(0) as u64;
            if rng.below(40) == 0 {
                // Died: the task is left to its lease.
                if acked >= 1 {
                    self.running.lock().unwrap().push(Running {
                        group,
                        from,
                        until: lease_end,
                    });
                }
                continue;
            }
            let until = now_ms().min(lease_end);
            if acked >= 1 {
                self.running
                    .lock()
                    .unwrap()
                    .push(Running { group, from, until });
            }
            let ack = command(&[
                "DELAY.ACK",
                TENANTS_INFLIGHT,
                "DATA",
                TENANTS_DATA,
                "LEASES",
                &task,
                &token.to_string(),
            ]);
            if let Some(replies) = run_retried(&mut router, run, TENANTS_INFLIGHT, &ack) {
                if int(&replies[0]) == 1 {
                    self.done.lock().unwrap().insert(task);
                }
            }
        }
    }
}

impl Load for Tenants {
    /// The groups' caps and every task, WAIT-confirmed before the chaos
    /// (a DELAY.ADD sent again after its task was done would add it again).
    fn prepare(&self, run: &Arc<Run>) -> Result<(), String> {
        let mut router = Router::new(run);
        for (group, cap, count) in GROUPS {
            if cap > 0 {
                let limit = command(&[
                    "DELAY.GROUP",
                    TENANTS,
                    TENANTS_DATA,
                    group,
                    "CAP",
                    &cap.to_string(),
                ]);
                wait_until(
                    30,
                    "a group's cap is set",
                    Duration::from_millis(100),
                    || Ok(confirmed(&mut router, TENANTS, limit.clone(), 2000)?.1 >= 1),
                )?;
            }
            let ids: Vec<String> = (0..count).map(|n| format!("{group}:{n}")).collect();
            for batch in ids.chunks(20) {
                let mut add = command(&[
                    "DELAY.ADD",
                    TENANTS,
                    "DATA",
                    TENANTS_DATA,
                    "GROUP",
                    group,
                    "JOBS",
                ]);
                for id in batch {
                    add.extend(["0".to_string(), id.clone(), "x".to_string()]);
                }
                wait_until(
                    30,
                    "a group's tasks are added",
                    Duration::from_millis(100),
                    || Ok(confirmed(&mut router, TENANTS, add.clone(), 2000)?.1 >= 1),
                )?;
            }
        }
        run.say(&format!(
            "{} tasks in 3 groups, WAIT-confirmed",
            Tenants::total()
        ));
        Ok(())
    }

    fn start(self: Arc<Self>, run: &Arc<Run>) -> Vec<JoinHandle<()>> {
        spawn_clients(&self, run, self.workers, "tenant worker", Tenants::work)
    }

    /// Workers run until every task was done, or 90 s.
    fn finish(&self, _run: &Arc<Run>) -> Result<(), String> {
        let waited = wait_until(
            90,
            "every group's task is done",
            Duration::from_millis(200),
            || Ok(self.done.lock().unwrap().len() >= Tenants::total()),
        );
        self.stop.store(true, Ordering::Relaxed);
        waited
    }

    fn check(&self, _run: &Arc<Run>) -> Vec<String> {
        let mut failures = Vec::new();
        let done = self.done.lock().unwrap();
        if done.len() < Tenants::total() {
            failures.push(format!(
                "{} of {} group tasks done",
                done.len(),
                Tenants::total()
            ));
        }
        let running = self.running.lock().unwrap();
        for (group, cap, _) in GROUPS.iter().filter(|(_, cap, _)| *cap > 0) {
            // The most runs of the group at once: +1 at a start, -1 at an end
            // (an end before a start at the same ms).
            let mut edges: Vec<(u64, i64)> = running
                .iter()
                .filter(|r| r.group == *group)
                .flat_map(|r| [(r.from, 1), (r.until, -1)])
                .collect();
            edges.sort();
            let (mut now, mut most) = (0i64, 0i64);
            for (_, step) in edges {
                now += step;
                most = most.max(now);
            }
            if most > *cap {
                failures.push(format!(
                    "group {group}: {most} tasks ran at once, cap {cap}"
                ));
            }
        }
        failures
    }

    fn summary(&self, run: &Run) -> String {
        format!(
            "group_tasks={} done={} deliveries={}",
            Tenants::total(),
            self.done.lock().unwrap().len(),
            run.stats.get("tenant_deliveries"),
        )
    }
}
