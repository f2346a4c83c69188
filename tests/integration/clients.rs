//! The client packages' own suites and examples (`make test-clients`), run
//! against servers of this harness. scripts/suites/test-clients.sh builds and
//! installs each client as a release publishes it, then runs this test once.
//! For each engine it starts a plain server and a 3-master cluster, holding
//! other teams' data beside the suites':
//! - `module`: every server with zkit's module loaded;
//! - `functions`: no module: each suite loads zkit's Functions library
//!   itself, as users do (docs/functions.md), and every call is an FCALL
//!   (or FCALL_RO).
//!
//! For each client, on each engine, it calls the script back (bash, in the
//! repository root, `ZKIT_TEST_ENGINE` set to the engine):
//! - `scripts/suites/test-clients.sh suite CLIENT`, with the servers in
//!   `ZKIT_TEST_SERVER` (host:port) and `ZKIT_TEST_CLUSTER`
//!   (host:port,...): the suite must pass; then, since its start, on every
//!   cluster node no MOVED or ASK in INFO errorstats (the client routes by
//!   its key specs) and no COMMAND GETKEYS in INFO commandstats, and every
//!   zkit command (FCALL for the library) called on the plain server and on
//!   the cluster;
//! - `scripts/suites/test-clients.sh examples CLIENT`, with `REDIS_URL` naming the
//!   plain server, then a cluster node (never port 6379): every example run
//!   as a user runs it must pass, and none may leave a key behind;
//!
//! and then the other data must be unchanged.
//!
//! `ZKIT_CLIENTS` names the clients (default `python node rust`),
//! `ZKIT_CLIENT_ENGINES` the engines (default `module functions`).

use std::path::Path;
use std::process::Command;

use crate::common::client::query;
use crate::common::cluster::Cluster;
use crate::common::facts::command_stat;
use crate::common::{Server, ServerConfig};

/// Other data the suites must leave as it is (each test works under a key
/// prefix of its own and flushes nothing): sorted sets named like the
/// suites' keys without their prefix, `{jobs}` with due tasks a stray worker
/// would take.
const FOREIGN_KEYS: [&str; 8] = [
    "board",
    "{jobs}",
    "{jobs}:inflight",
    "{t}:mon",
    "{p}:board",
    "gifts:room:42",
    "feed:user:7",
    "MemberRecentGoods:66",
];

const FOREIGN_MEMBERS: [&str; 4] = ["other-team:1", "1", "other-team:2", "2"];

/// The examples' keys (each run under a prefix of its own below this).
const EXAMPLE_KEYS: &str = "zkit-example:*";

/// One engine's servers.
struct Servers {
    engine: String,
    server: Server,
    cluster: Cluster,
}

impl Servers {
    fn start(engine: &str) -> Servers {
        let config = match engine {
            "module" => ServerConfig::default(),
            "functions" => ServerConfig::without_module(),
            other => panic!("no engine {other} (module or functions)"),
        };
        Servers {
            engine: engine.to_string(),
            server: Server::with(config.clone()),
            cluster: Cluster::start_with(3, config),
        }
    }

    /// Every server: the plain one, then the cluster's nodes.
    fn all(&self) -> impl Iterator<Item = &Server> {
        std::iter::once(&self.server).chain(&self.cluster.nodes)
    }

    fn add_foreign_data(&self) {
        let (mut plain, mut routed) = (self.server.connect(), self.cluster.client());
        for key in FOREIGN_KEYS {
            let add = ["ZADD", key, "1", "other-team:1", "2", "other-team:2"];
            let _: i64 = query(&mut plain, &add);
            let _: i64 = query(&mut routed, &add);
        }
    }

    /// The commands every suite must call: the module's, or FCALL for the
    /// library (INFO tells its functions apart only as FCALL and FCALL_RO,
    /// and the Node client sends its reads as FCALL_RO).
    fn zkit_commands(&self) -> Vec<String> {
        if self.engine == "functions" {
            return vec!["fcall".to_string()];
        }
        let mut commands: Vec<String> = query(
            &mut self.server.connect(),
            &["COMMAND", "LIST", "FILTERBY", "MODULE", "zkit"],
        );
        commands.retain(|c| c != "zkit.debug-panic");
        commands.sort();
        commands
    }

    /// Runs `bash scripts/suites/test-clients.sh WHAT CLIENT` with `env`; it must pass.
    fn call_back(&self, what: &str, client: &str, env: &[(&str, String)]) {
        let status = Command::new("bash")
            .args(["scripts/suites/test-clients.sh", what, client])
            .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
            .env("ZKIT_TEST_ENGINE", &self.engine)
            .envs(env.iter().map(|(name, value)| (name, value)))
            .status()
            .expect("run bash");
        assert!(
            status.success(),
            "{client} ({}): its {what} failed ({status})",
            self.engine
        );
    }

    fn run_suite(&self, client: &str, commands: &[String]) {
        for server in self.all() {
            let _: () = query(&mut server.connect(), &["CONFIG", "RESETSTAT"]);
        }
        let addresses: Vec<String> = self
            .cluster
            .nodes
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.port))
            .collect();
        let env = [
            (
                "ZKIT_TEST_SERVER",
                format!("127.0.0.1:{}", self.server.port),
            ),
            ("ZKIT_TEST_CLUSTER", addresses.join(",")),
        ];
        self.call_back("suite", client, &env);

        // Connections of our own again: a suite may close clients (CLIENT KILL).
        let suite = format!("{client} ({})", self.engine);
        for node in &self.cluster.nodes {
            let mut con = node.connect();
            let errors: String = query(&mut con, &["INFO", "errorstats"]);
            let redirects: Vec<&str> = errors
                .lines()
                .filter(|l| l.starts_with("errorstat_MOVED:") || l.starts_with("errorstat_ASK:"))
                .collect();
            let getkeys = command_stat(&mut con, "command|getkeys", "calls");
            let zkit_calls: u64 = commands
                .iter()
                .map(String::as_str)
                .chain(["fcall_ro"])
                .map(|c| command_stat(&mut con, c, "calls"))
                .sum();
            println!(
                "test-clients: {suite}: cluster node {}: {zkit_calls} zkit calls, redirects: {redirects:?}, COMMAND GETKEYS calls: {getkeys}",
                node.port
            );
            assert!(
                redirects.is_empty(),
                "{suite}: node {} answered MOVED/ASK",
                node.port
            );
            assert_eq!(
                getkeys, 0,
                "{suite}: node {} ran COMMAND GETKEYS",
                node.port
            );
        }
        let mut plain = self.server.connect();
        let mut nodes: Vec<_> = self.cluster.nodes.iter().map(Server::connect).collect();
        for command in commands {
            assert!(
                command_stat(&mut plain, command, "calls") > 0,
                "{suite} never called {command} on the plain server"
            );
            let on_cluster: u64 = nodes
                .iter_mut()
                .map(|con| command_stat(con, command, "calls"))
                .sum();
            assert!(
                on_cluster > 0,
                "{suite} never called {command} on the cluster"
            );
        }
        let called = match commands {
            [only] => only.to_uppercase(),
            all => format!("every zkit command ({})", all.len()),
        };
        println!("test-clients: {suite}: {called} called on the plain server and on the cluster");
    }

    fn run_examples(&self, client: &str) {
        let suite = format!("{client} ({})", self.engine);
        for url in [self.server.url(), self.cluster.nodes[1].url()] {
            self.call_back("examples", client, &[("REDIS_URL", url)]);
        }
        for server in self.all() {
            let left: Vec<String> = query(&mut server.connect(), &["KEYS", EXAMPLE_KEYS]);
            assert!(
                left.is_empty(),
                "{suite}: the examples left keys on port {}: {left:?}",
                server.port
            );
        }
        println!(
            "test-clients: {suite}: the examples as scripts with REDIS_URL, on the plain server and on the cluster; no key left behind"
        );
    }

    fn check_foreign_data(&self, client: &str) {
        let (mut plain, mut routed) = (self.server.connect(), self.cluster.client());
        for key in FOREIGN_KEYS {
            let range = ["ZRANGE", key, "0", "-1", "WITHSCORES"];
            let on_server: Vec<String> = query(&mut plain, &range);
            let on_cluster: Vec<String> = query(&mut routed, &range);
            assert_eq!(
                on_server, FOREIGN_MEMBERS,
                "{client} ({}) changed {key} on the server",
                self.engine
            );
            assert_eq!(
                on_cluster, FOREIGN_MEMBERS,
                "{client} ({}) changed {key} on the cluster",
                self.engine
            );
        }
        println!(
            "test-clients: {client} ({}): the other data ({} keys on the server and on the cluster) is untouched",
            self.engine,
            FOREIGN_KEYS.len()
        );
    }
}

/// A space-separated list from the environment, or its default.
fn list(name: &str, default: &str) -> Vec<String> {
    let words = std::env::var(name).unwrap_or_else(|_| default.to_string());
    words.split_whitespace().map(str::to_string).collect()
}

#[test]
#[ignore = "make test-clients runs it, after installing the clients"]
fn client_suites_and_examples_call_every_command_and_touch_nothing_else() {
    let clients = list("ZKIT_CLIENTS", "python node rust");
    let engines = list("ZKIT_CLIENT_ENGINES", "module functions");
    // The engines' servers start side by side.
    let engines: Vec<Servers> = std::thread::scope(|scope| {
        let starting: Vec<_> = engines
            .iter()
            .map(|engine| scope.spawn(|| Servers::start(engine)))
            .collect();
        starting.into_iter().map(|s| s.join().unwrap()).collect()
    });
    for servers in &engines {
        servers.add_foreign_data();
        let ports: Vec<u16> = servers.cluster.nodes.iter().map(|n| n.port).collect();
        println!(
            "test-clients: {}: plain server on port {}, cluster on ports {ports:?}",
            servers.engine, servers.server.port
        );
    }
    for client in &clients {
        for servers in &engines {
            let commands = servers.zkit_commands();
            servers.run_suite(client, &commands);
            servers.run_examples(client);
            servers.check_foreign_data(client);
        }
    }
}
