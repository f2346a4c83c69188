//! A Redis Cluster of masters on loopback, each node a [`Server`] with zkit
//! loaded, joined by `redis-cli --cluster create` as an operator would.

use std::process::Command;
use std::time::Duration;

use super::client::{ok, query, words};
use redis::Connection;

use super::{valkey_version, wait_for, Server, ServerConfig};

/// `REDIS_CLI` (default `redis-cli` on PATH) creates the cluster; any
/// redis-cli 7.0+ drives the servers of the compatibility matrix.
pub fn cli_binary() -> String {
    std::env::var("REDIS_CLI").unwrap_or_else(|_| "redis-cli".to_string())
}

pub struct Cluster {
    pub nodes: Vec<Server>,
}

/// One node's own entry in CLUSTER NODES.
pub struct NodeEntry {
    pub id: String,
    pub slots: Vec<(u16, u16)>,
}

impl Cluster {
    /// Starts `masters` nodes (no replicas), assigns all slots with
    /// `redis-cli --cluster create` and waits until every node agrees.
    pub fn start(masters: usize) -> Cluster {
        Cluster::start_with(masters, ServerConfig::default())
    }

    /// [`Cluster::start`] with each node started from `config` (e.g.
    /// [`ServerConfig::without_module`]).
    pub fn start_with(masters: usize, config: ServerConfig) -> Cluster {
        let nodes = (0..masters)
            .map(|_| Server::with(Cluster::node_config(config.clone())))
            .collect();
        Cluster::create(nodes, 0)
    }

    /// `config` with cluster mode on (node timeout 5 s unless `config` sets
    /// one, `nodes.conf` in the node's folder; the bus port is drawn when the
    /// node starts, see [`ServerConfig::cluster_port`]).
    pub fn node_config(config: ServerConfig) -> ServerConfig {
        let mut config = config
            .arg("cluster-enabled", "yes")
            .arg("cluster-config-file", "nodes.conf");
        if !config.args.iter().any(|a| a == "--cluster-node-timeout") {
            config = config.arg("cluster-node-timeout", "5000");
        }
        config
    }

    /// Joins started cluster-mode nodes (see [`Cluster::node_config`]) with
    /// `redis-cli --cluster create`, `replicas` for each master, and waits
    /// until every node sees all of them and every slot assigned.
    pub fn create(nodes: Vec<Server>, replicas: usize) -> Cluster {
        let mut create = Command::new(cli_binary());
        create.arg("--cluster").arg("create");
        for node in &nodes {
            create.arg(format!("127.0.0.1:{}", node.port));
        }
        create.args(["--cluster-replicas", &replicas.to_string(), "--cluster-yes"]);
        let output = create
            .output()
            .unwrap_or_else(|e| panic!("run {}: {e}", cli_binary()));
        assert!(
            output.status.success(),
            "redis-cli --cluster create failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let cluster = Cluster { nodes };
        let known = cluster.nodes.len();
        for node in &cluster.nodes {
            let mut con = node.connect();
            wait_for(Duration::from_secs(30), || {
                let info: String = query(&mut con, &["CLUSTER", "INFO"]);
                info.contains("cluster_state:ok")
                    && info.contains(&format!("cluster_known_nodes:{known}"))
                    && info.contains("cluster_slots_assigned:16384")
            });
        }
        cluster
    }

    /// A cluster-aware client (follows MOVED and ASK), knowing every node.
    pub fn client(&self) -> redis::cluster::ClusterConnection {
        let urls: Vec<String> = self.nodes.iter().map(Server::url).collect();
        redis::cluster::ClusterClient::new(urls)
            .expect("cluster client")
            .get_connection()
            .expect("cluster connection")
    }

    /// The slot of a key.
    pub fn slot(&self, key: &str) -> u16 {
        query(&mut self.nodes[0].connect(), &["CLUSTER", "KEYSLOT", key])
    }

    /// The node that serves `slot` now, by asking every node about itself.
    pub fn owner(&self, slot: u16) -> &Server {
        self.nodes
            .iter()
            .find(|node| {
                node.cluster_entry()
                    .slots
                    .iter()
                    .any(|&(lo, hi)| (lo..=hi).contains(&slot))
            })
            .unwrap_or_else(|| panic!("no node serves slot {slot}"))
    }

    /// A node other than `node`, to move a slot to.
    pub fn other_than(&self, node: &Server) -> &Server {
        self.nodes
            .iter()
            .find(|n| n.port != node.port)
            .expect("a cluster of two nodes or more")
    }
}

/// Whether the server under test migrates slots atomically (`CLUSTER
/// MIGRATESLOTS`, Valkey 9.0 and later); says SKIPPED when not.
pub fn atomic_slot_migration_available() -> bool {
    let probe = Server::start();
    let version = valkey_version(&mut probe.connect());
    let available = version.is_some_and(|v| v >= (9, 0));
    if !available {
        eprintln!(
            "SKIPPED: CLUSTER MIGRATESLOTS needs Valkey 9.0 or later (this server: {})",
            version.map_or("Redis".to_string(), |(a, b)| format!("Valkey {a}.{b}"))
        );
    }
    available
}

/// Starts moving `slot` from `source` to `target` as `redis-cli --cluster
/// reshard` does: IMPORTING on the target, then MIGRATING on the source.
pub fn begin_migration(slot: u16, source: &Server, target: &Server) {
    let slot = slot.to_string();
    let (source_id, target_id) = (source.cluster_entry().id, target.cluster_entry().id);
    ok(
        &mut target.connect(),
        &["CLUSTER", "SETSLOT", &slot, "IMPORTING", &source_id],
    );
    ok(
        &mut source.connect(),
        &["CLUSTER", "SETSLOT", &slot, "MIGRATING", &target_id],
    );
}

/// Moves `keys` from `source` to `target` with MIGRATE.
pub fn migrate_keys(source: &mut Connection, target: &Server, keys: &[String]) {
    ok(source, &words(&migrate_keys_call(target.port, 5000, keys)));
}

/// The words of Valkey 9's atomic migration of one slot to the node
/// `target_id`: `CLUSTER MIGRATESLOTS SLOTSRANGE slot slot NODE target_id`.
pub fn migrate_slot_call(slot: u16, target_id: &str) -> Vec<String> {
    let slot = slot.to_string();
    [
        "CLUSTER",
        "MIGRATESLOTS",
        "SLOTSRANGE",
        &slot,
        &slot,
        "NODE",
        target_id,
    ]
    .map(str::to_string)
    .to_vec()
}

/// The words of a `MIGRATE` of `keys` to the loopback node on `port`.
pub fn migrate_keys_call(port: u16, timeout_ms: u64, keys: &[String]) -> Vec<String> {
    let (port, timeout) = (port.to_string(), timeout_ms.to_string());
    ["MIGRATE", "127.0.0.1", &port, "", "0", &timeout, "KEYS"]
        .map(str::to_string)
        .into_iter()
        .chain(keys.iter().cloned())
        .collect()
}

impl Server {
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

    /// This node's id and slot ranges, from the `myself` line of CLUSTER NODES.
    pub fn cluster_entry(&self) -> NodeEntry {
        let nodes: String = query(&mut self.connect(), &["CLUSTER", "NODES"]);
        let line = nodes
            .lines()
            .find(|l| l.split(' ').nth(2).is_some_and(|f| f.contains("myself")))
            .expect("myself in CLUSTER NODES");
        let fields: Vec<&str> = line.split(' ').collect();
        let slots = fields[8..]
            .iter()
            .filter(|f| !f.starts_with('['))
            .map(|range| match range.split_once('-') {
                Some((lo, hi)) => (lo.parse().unwrap(), hi.parse().unwrap()),
                None => {
                    let slot = range.parse().unwrap();
                    (slot, slot)
                }
            })
            .collect();
        NodeEntry {
            id: fields[0].to_string(),
            slots,
        }
    }
}
