//! Valkey 9's atomic slot migration (`CLUSTER MIGRATESLOTS`) on nodes with
//! zkit: the server refuses it unless every loaded module declares that it
//! handles it. zkit's keys are plain sorted sets, sets and hashes, and move
//! like any other, under load: gifts stay exact, tasks are delivered once,
//! leases move with their tasks, and a worker blocked on the old node is
//! redirected.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::client::{error_text, ok, query, run, spawn_call, words};
use crate::common::cluster::{atomic_slot_migration_available, migrate_slot_call, Cluster};
use crate::common::data::server_time_ms;
use crate::common::{wait_blocked, wait_for, Server};
use redis::Value;

const TAG: &str = "{asm}";
/// Tasks due before the migration starts, and tasks added during it.
const SEEDED_TASKS: usize = 1600;
const ADDED_TASKS: usize = 1600;
const GIFTS: usize = 2000;
const MEMBERS: usize = 10;

fn key(name: &str) -> String {
    format!("{TAG}:{name}")
}

/// Calls that failed, by any thread: the migration must cause none.
type Failures = Arc<Mutex<Vec<String>>>;

fn record(failures: &Failures, call: &str, e: &redis::RedisError) {
    failures
        .lock()
        .unwrap()
        .push(format!("{call}: {}", error_text(e)));
}

/// The state of this node's migration jobs, from CLUSTER GETSLOTMIGRATIONS
/// (one map of fields per job).
fn migration_states(node: &Server) -> Vec<String> {
    let jobs: Vec<Vec<Value>> = query(&mut node.connect(), &["CLUSTER", "GETSLOTMIGRATIONS"]);
    jobs.iter()
        .filter_map(|fields| {
            let words: Vec<String> = fields
                .iter()
                .map(|v| redis::from_redis_value::<String>(v.clone()).unwrap_or_default())
                .collect();
            let at = words.iter().position(|w| w == "state")?;
            words.get(at + 1).cloned()
        })
        .collect()
}

#[test]
#[ignore = "slow: make test-all"]
fn atomic_slot_migration_moves_zkit_keys_under_load() {
    if !atomic_slot_migration_available() {
        return;
    }
    let cluster = Cluster::start(3);
    let slot = cluster.slot(&key("jobs"));
    let source = cluster.owner(slot);
    let target = cluster.other_than(source);
    let (jobs, inflight, board) = (key("jobs"), key("inflight"), key("board"));

    let mut client = cluster.client();
    let now = server_time_ms(&mut source.connect());
    let mut produced = BTreeSet::new();
    for batch in 0..SEEDED_TASKS / 100 {
        let mut zadd = vec!["ZADD".to_string(), jobs.clone()];
        for i in batch * 100..(batch + 1) * 100 {
            zadd.push((now - 1000).to_string());
            zadd.push(format!("seeded{i}"));
            produced.insert(format!("seeded{i}"));
        }
        ok(&mut client, &words(&zadd));
    }

    // A worker blocked on the old node on a queue with nothing in it: the
    // migration must redirect it.
    let idle = spawn_call(source, &["DELAY.BPOLL", &key("idle"), "0"]);
    wait_blocked(source, 1);

    let failures: Failures = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let mut con = cluster.client();
            let (jobs, inflight) = (jobs.clone(), inflight.clone());
            let (stop, failures) = (stop.clone(), failures.clone());
            thread::spawn(move || {
                let mut claimed = Vec::new();
                let call = [
                    "DELAY.BPOLL",
                    &jobs,
                    "300",
                    "COUNT",
                    "10",
                    "LEASE",
                    &inflight,
                    "600000",
                ];
                loop {
                    match run(&mut con, &call) {
                        Ok(Value::Nil) if stop.load(Ordering::SeqCst) => break,
                        Ok(reply) => {
                            let tasks: Option<Vec<(String, f64)>> =
                                redis::from_redis_value(reply).unwrap();
                            claimed.extend(tasks.into_iter().flatten().map(|(t, _)| t));
                        }
                        Err(e) => record(&failures, "DELAY.BPOLL", &e),
                    }
                }
                claimed
            })
        })
        .collect();
    let gifts_done = Arc::new(AtomicUsize::new(0));
    let gifter = {
        let mut con = cluster.client();
        let (board, failures, gifts_done) = (board.clone(), failures.clone(), gifts_done.clone());
        thread::spawn(move || {
            let mut given = BTreeMap::<String, i64>::new();
            for i in 0..GIFTS {
                let member = format!("m{}", i % MEMBERS);
                match run(&mut con, &["RANK.GIFT", &board, &member, "1"]) {
                    Ok(_) => *given.entry(member).or_default() += 1,
                    Err(e) => record(&failures, "RANK.GIFT", &e),
                }
                gifts_done.fetch_add(1, Ordering::SeqCst);
            }
            given
        })
    };
    let producer = {
        let mut con = cluster.client();
        let (jobs, failures) = (jobs.clone(), failures.clone());
        thread::spawn(move || {
            let mut added = Vec::new();
            for i in 0..ADDED_TASKS {
                let task = format!("added{i}");
                match run(&mut con, &["ZADD", &jobs, &now.to_string(), &task]) {
                    Ok(_) => added.push(task),
                    Err(e) => record(&failures, "ZADD", &e),
                }
            }
            added
        })
    };

    // Migrate while the load runs.
    wait_for(Duration::from_secs(30), || {
        gifts_done.load(Ordering::SeqCst) >= GIFTS / 10
    });
    let slot_text = slot.to_string();
    let migrate = migrate_slot_call(slot, &target.cluster_entry().id);
    ok(&mut source.connect(), &words(&migrate));
    let started = Instant::now();
    wait_for(Duration::from_secs(60), || {
        migration_states(source).iter().any(|s| s == "success")
    });
    eprintln!(
        "migration of slot {slot} took {:?}; gifts given by then: {} of {GIFTS}",
        started.elapsed(),
        gifts_done.load(Ordering::SeqCst)
    );
    assert!(
        !gifter.is_finished(),
        "the load ended before the migration did: raise GIFTS"
    );
    assert!(target
        .cluster_entry()
        .slots
        .iter()
        .any(|&(lo, hi)| (lo..=hi).contains(&slot)));

    // The worker blocked on the old node is sent to the new one.
    let moved = idle
        .join()
        .unwrap()
        .expect_err("the idle worker was served");
    assert_eq!(
        error_text(&moved),
        format!("MOVED {slot} 127.0.0.1:{}", target.port)
    );

    produced.extend(producer.join().unwrap());
    let given = gifter.join().unwrap();
    stop.store(true, Ordering::SeqCst);
    let mut claimed: Vec<String> = workers
        .into_iter()
        .flat_map(|w| w.join().unwrap())
        .collect();
    let failures = failures.lock().unwrap().clone();
    assert!(failures.is_empty(), "calls failed: {failures:?}");

    // Every task delivered exactly once, and leased: the lease set moved
    // with the queue.
    let claimed_count = claimed.len();
    claimed.sort();
    claimed.dedup();
    assert_eq!(claimed.len(), claimed_count, "a task was delivered twice");
    let claimed: BTreeSet<String> = claimed.into_iter().collect();
    assert_eq!(claimed.len(), SEEDED_TASKS + ADDED_TASKS);
    assert!(
        claimed == produced,
        "claimed tasks differ from the produced ones"
    );
    let leased: Vec<String> = query(&mut client, &["ZRANGE", &inflight, "0", "-1"]);
    assert!(
        leased.into_iter().collect::<BTreeSet<_>>() == claimed,
        "the lease set does not hold exactly the claimed tasks"
    );
    assert_eq!(query::<i64>(&mut client, &["EXISTS", &jobs]), 0);

    // Every gift counted once.
    assert_eq!(given.values().sum::<i64>(), GIFTS as i64);
    for (member, count) in &given {
        let (total, _, _): (i64, i64, i64) = query(&mut client, &["RANK.GET", &board, member]);
        assert_eq!(total, *count, "{member}");
    }

    // The keys live on the new node only; every node is up and logged no
    // error of its own.
    let mut src = source.connect();
    wait_for(Duration::from_secs(20), || {
        query::<i64>(&mut src, &["CLUSTER", "COUNTKEYSINSLOT", &slot_text]) == 0
    });
    assert!(
        query::<i64>(
            &mut target.connect(),
            &["CLUSTER", "COUNTKEYSINSLOT", &slot_text]
        ) >= 2
    );
    for node in &cluster.nodes {
        assert_eq!(query::<String>(&mut node.connect(), &["PING"]), "PONG");
        let log = node.log();
        for sign in ["ASSERTION", "crashed", "zkit:"] {
            assert!(
                !log.contains(sign),
                "node {} logged {sign}: {log}",
                node.port
            );
        }
    }
}
