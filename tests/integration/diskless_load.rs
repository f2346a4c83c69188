//! A replica with zkit loads a full sync straight from the socket
//! (`repl-diskless-load swapdb`): zkit declares that it handles asynchronous
//! loading, so the server neither falls back to disk nor stops serving the
//! data it had while the new data set loads.

use std::time::Duration;

use crate::common::client::{ok, query, spawn_call};
use crate::common::data::{db_snapshot, server_time_ms, DbContents};
use crate::common::{info_value, stat, wait_blocked, wait_for, Server, ServerConfig};
use redis::Value;

/// Keys that make the load take a while: the replica sleeps per key loaded,
/// and serves clients between keys (every `loading-process-events-interval-
/// bytes` read, set to its minimum, 1 KiB: each filler value is that long).
const FILLER_KEYS: usize = 400;
const FILLER_BYTES: usize = 1024;
/// Microseconds per key: 400 keys take at least 2 s to load.
const KEY_LOAD_DELAY_US: &str = "5000";

fn without_key(mut contents: DbContents, key: &str) -> DbContents {
    contents.retain(|(k, _)| k != key);
    contents
}

#[test]
fn a_swapdb_replica_loads_from_the_socket_serving_its_old_data_until_the_swap() {
    let master = Server::with(
        ServerConfig::default()
            .arg("repl-diskless-sync", "yes")
            .arg("repl-diskless-sync-delay", "0"),
    );
    // Writable, so that a worker can wait in DELAY.BPOLL on the replica.
    let replica = Server::with(
        ServerConfig::default()
            .arg("repl-diskless-load", "swapdb")
            .arg("replica-read-only", "no")
            .replica_of(&master),
    );
    replica.wait_until_synced();
    let mut m = master.connect();
    let mut r = replica.connect();

    // The data both have before the resync.
    ok(&mut m, &["RANK.GIFT", "board", "alice", "5"]);
    ok(&mut m, &["RANK.GIFT", "board", "bob", "3"]);
    ok(&mut m, &["FEED.ADD", "feed", "10", "post1"]);
    master.wait_for_replicas(1);
    let old_alice: Value = query(&mut r, &["RANK.GET", "board", "alice"]);
    let old_board = db_snapshot(&mut r);

    // A worker waits on the replica for a queue only the master's next data
    // set has.
    let waiter = spawn_call(&replica, &["DELAY.BPOLL", "jobs", "0"]);
    wait_blocked(&replica, 1);

    // New data on the master, behind a full sync with the same replication
    // id: the replica's link is cut and the backlog overflows (as the
    // server's own swapdb tests do), so the replica loads asynchronously.
    ok(
        &mut r,
        &["CONFIG", "SET", "key-load-delay", KEY_LOAD_DELAY_US],
    );
    ok(
        &mut r,
        &[
            "CONFIG",
            "SET",
            "loading-process-events-interval-bytes",
            "1024",
        ],
    );
    let now = server_time_ms(&mut m);
    let mut filler = vec!["MSET".to_string()];
    for i in 0..FILLER_KEYS {
        filler.push(format!("filler:{i}"));
        filler.push("x".repeat(FILLER_BYTES));
    }
    let big = "A".repeat(16_384);
    let mut pipe = redis::pipe();
    pipe.cmd("MULTI")
        .cmd("CLIENT")
        .arg("KILL")
        .arg("TYPE")
        .arg("replica")
        .cmd("CONFIG")
        .arg("SET")
        .arg("repl-backlog-size")
        .arg("16384");
    for i in 0..10 {
        pipe.cmd("SET").arg(format!("big:{i}")).arg(&big);
    }
    pipe.cmd("RANK.GIFT").arg("board").arg("alice").arg("100");
    pipe.cmd("FEED.ADD").arg("feed").arg("20").arg("post2");
    pipe.cmd("ZADD")
        .arg("jobs")
        .arg(now - 1000)
        .arg("job-from-master");
    pipe.cmd(&filler[0]).arg(&filler[1..]);
    pipe.cmd("EXEC");
    let _: Value = pipe.query(&mut m).expect("MULTI block on the master");

    // While the replica loads, it serves the data it had, zkit's reads
    // included, and answers no LOADING error.
    wait_for(Duration::from_secs(30), || {
        info_value(&mut r, "persistence", "async_loading") == "1"
    });
    let during: Value = query(&mut r, &["RANK.GET", "board", "alice"]);
    assert_eq!(during, old_alice);
    assert!(
        db_snapshot(&mut r) == old_board,
        "old data changed during the load"
    );
    // A write to the old data set during the load would be discarded at the
    // swap: the waiting worker's claim is postponed, not served from it.
    ok(
        &mut r,
        &["ZADD", "jobs", &(now - 5000).to_string(), "job-local"],
    );
    wait_for(Duration::from_secs(10), || {
        stat(&mut r, "zkit", "zkit_write_gate_postponed_clients") == 1
    });
    assert_eq!(
        info_value(&mut r, "persistence", "async_loading"),
        "1",
        "the load ended before the checks ran: raise KEY_LOAD_DELAY_US"
    );
    assert!(
        !waiter.is_finished(),
        "the worker was served during the load"
    );

    // After the swap: the master's data, and the worker served from it.
    wait_for(Duration::from_secs(60), || {
        info_value(&mut r, "persistence", "async_loading") == "0"
            && info_value(&mut r, "replication", "master_link_status") == "up"
    });
    let served = waiter.join().unwrap().expect("DELAY.BPOLL on the replica");
    let served: Vec<(String, f64)> = redis::from_redis_value(served).unwrap();
    assert_eq!(
        served,
        vec![("job-from-master".to_string(), (now - 1000) as f64)]
    );
    master.wait_for_replicas(1);
    assert!(
        without_key(db_snapshot(&mut r), "jobs") == without_key(db_snapshot(&mut m), "jobs"),
        "the replica does not hold the master's data after the swap"
    );
    let new_alice: Value = query(&mut m, &["RANK.GET", "board", "alice"]);
    assert_eq!(
        query::<Value>(&mut r, &["RANK.GET", "board", "alice"]),
        new_alice
    );
    assert_ne!(new_alice, old_alice);

    // Nothing went through the disk.
    let log = replica.log();
    assert!(!log.contains("Skipping diskless-load"), "{log}");
    let files: Vec<String> = std::fs::read_dir(&replica.dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".rdb"))
        .collect();
    assert!(files.is_empty(), "the replica wrote {files:?}");
}
