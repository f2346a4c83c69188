//! The client packages' own test suites (`make test-clients`), run against
//! servers of this harness: a plain server and a 3-master cluster, with
//! zkit, holding other teams' data beside the suite's. scripts/test-clients.sh
//! installs each client as its quick start says, then runs this test once
//! per client with:
//! - `ZKIT_CLIENT`: the client's name, for the output (python, node, rust);
//! - `ZKIT_CLIENT_SUITE`: the command line that runs its suite (bash, in the
//!   repository root), which finds the servers in `ZKIT_TEST_SERVER`
//!   (host:port) and `ZKIT_TEST_CLUSTER` (host:port,...).
//!
//! The suite must pass, and then: on every cluster node no MOVED or ASK in
//! INFO errorstats (the client routes by its key specs) and no COMMAND
//! GETKEYS in INFO commandstats; every zkit command called on the plain
//! server and on the cluster; the other data unchanged.

use std::path::Path;
use std::process::Command;

use crate::common::client::query;
use crate::common::cluster::Cluster;
use crate::common::Server;

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

#[test]
#[ignore = "make test-clients runs it once per client"]
fn a_client_suite_calls_every_command_on_a_server_and_a_cluster_and_touches_nothing_else() {
    let client = std::env::var("ZKIT_CLIENT").expect("ZKIT_CLIENT names the client");
    let suite = std::env::var("ZKIT_CLIENT_SUITE").expect("ZKIT_CLIENT_SUITE runs its suite");
    let server = Server::start();
    let cluster = Cluster::start(3);
    let mut plain = server.connect();
    let mut routed = cluster.client();
    for key in FOREIGN_KEYS {
        let add = ["ZADD", key, "1", "other-team:1", "2", "other-team:2"];
        let _: i64 = query(&mut plain, &add);
        let _: i64 = query(&mut routed, &add);
    }
    for node in &cluster.nodes {
        let _: () = query(&mut node.connect(), &["CONFIG", "RESETSTAT"]);
    }
    let mut commands: Vec<String> = query(
        &mut plain,
        &["COMMAND", "LIST", "FILTERBY", "MODULE", "zkit"],
    );
    commands.retain(|c| c != "zkit.debug-panic");
    commands.sort();
    let cluster_addresses: Vec<String> = cluster
        .nodes
        .iter()
        .map(|n| format!("127.0.0.1:{}", n.port))
        .collect();

    println!("test-clients: {client}: {suite}");
    let status = Command::new("bash")
        .arg("-c")
        .arg(&suite)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
        .env("ZKIT_TEST_SERVER", format!("127.0.0.1:{}", server.port))
        .env("ZKIT_TEST_CLUSTER", cluster_addresses.join(","))
        .status()
        .expect("run bash");
    assert!(status.success(), "{client}: its suite failed ({status})");

    // Connections of our own again: a suite may close clients (CLIENT KILL).
    let mut plain = server.connect();
    let mut routed = cluster.client();

    for node in &cluster.nodes {
        let mut con = node.connect();
        let errors: String = query(&mut con, &["INFO", "errorstats"]);
        let redirects: Vec<&str> = errors
            .lines()
            .filter(|l| l.starts_with("errorstat_MOVED:") || l.starts_with("errorstat_ASK:"))
            .collect();
        let getkeys = calls(&mut con, "command|getkeys");
        let zkit_calls: u64 = commands.iter().map(|c| calls(&mut con, c)).sum();
        println!(
            "test-clients: {client}: cluster node {}: {zkit_calls} zkit calls, redirects: {redirects:?}, COMMAND GETKEYS calls: {getkeys}",
            node.port
        );
        assert!(
            redirects.is_empty(),
            "{client}: node {} answered MOVED/ASK",
            node.port
        );
        assert_eq!(
            getkeys, 0,
            "{client}: node {} ran COMMAND GETKEYS",
            node.port
        );
    }
    for command in &commands {
        assert!(
            calls(&mut plain, command) > 0,
            "{client} never called {command} on the plain server"
        );
        let on_cluster: u64 = cluster
            .nodes
            .iter()
            .map(|n| calls(&mut n.connect(), command))
            .sum();
        assert!(
            on_cluster > 0,
            "{client} never called {command} on the cluster"
        );
    }
    println!(
        "test-clients: {client}: every zkit command ({}) called on the plain server and on the cluster",
        commands.len()
    );

    for key in FOREIGN_KEYS {
        let range = ["ZRANGE", key, "0", "-1", "WITHSCORES"];
        let on_server: Vec<String> = query(&mut plain, &range);
        let on_cluster: Vec<String> = query(&mut routed, &range);
        assert_eq!(
            on_server, FOREIGN_MEMBERS,
            "{client} changed {key} on the server"
        );
        assert_eq!(
            on_cluster, FOREIGN_MEMBERS,
            "{client} changed {key} on the cluster"
        );
    }
    println!(
        "test-clients: {client}: the other data ({} keys on the server and on the cluster) is untouched",
        FOREIGN_KEYS.len()
    );
}

/// A command's calls in INFO commandstats (0 if never called).
fn calls(con: &mut redis::Connection, command: &str) -> u64 {
    let stats: String = query(con, &["INFO", "commandstats"]);
    stats
        .lines()
        .find_map(|l| l.strip_prefix(&format!("cmdstat_{command}:calls=")))
        .and_then(|rest| rest.split(',').next()?.parse().ok())
        .unwrap_or(0)
}
