//! DELAY groups (tenants): DELAY.ADD GROUP, DELAY.GROUP's caps and rate
//! limits, DELAY.GROUPS, and the polls that pass over a group at its limits,
//! against a real server.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::client::{ok, query, spawn_call};
use crate::common::data::{assert_errors_change_nothing, server_time_ms, wait_until_server_time};
use crate::common::replication::{assert_replicas_match, master_and_replicas};
use crate::common::{functions_engine, wait_blocked, Server};
use redis::{Connection, Value};

/// `[task, due-ms, token, payload, deliveries]`.
type Job = (String, f64, Option<i64>, Option<String>, Option<i64>);

const Q: &str = "{jobs}";
const HELD: &str = "{jobs}:inflight";
const DATA: &str = "{jobs}:data";
const DEAD: &str = "{jobs}:dead";
const COUNTS: &str = "{jobs}:deliveries";

fn add_group(con: &mut Connection, group: &str, tasks: &[&str]) {
    let mut command = vec!["DELAY.ADD", Q, "DATA", DATA, "GROUP", group, "JOBS"];
    for task in tasks {
        command.extend_from_slice(&["0", task, "x"]);
    }
    let _: Vec<i64> = query(con, &command);
    // Tasks added in one millisecond are due in the order added, the later
    // ones from the next millisecond on.
    let now = server_time_ms(con);
    wait_until_server_time(con, now + 1);
}

fn set_limits(con: &mut Connection, group: &str, limits: &[&str]) -> i64 {
    let mut command = vec!["DELAY.GROUP", Q, DATA, group];
    command.extend_from_slice(limits);
    query(con, &command)
}

fn poll(con: &mut Connection, source: &str, count: &str) -> Vec<Job> {
    query(
        con,
        &[
            "DELAY.POLL",
            source,
            "COUNT",
            count,
            "LEASE",
            HELD,
            "60000",
            "DATA",
            DATA,
            "WITHDATA",
        ],
    )
}

fn names(jobs: &[Job]) -> Vec<&str> {
    jobs.iter().map(|j| j.0.as_str()).collect()
}

fn ack(con: &mut Connection, job: &Job) -> i64 {
    let token = job.2.unwrap().to_string();
    query(
        con,
        &["DELAY.ACK", HELD, "DATA", DATA, "LEASES", &job.0, &token],
    )
}

/// DELAY.GROUPS as `group -> [inflight, cap, rate-limit, window-ms, capped,
/// rate-limited]`.
fn groups(con: &mut Connection) -> HashMap<String, Vec<i64>> {
    let rows: Vec<(String, i64, i64, i64, i64, i64, i64)> = query(con, &["DELAY.GROUPS", Q, DATA]);
    rows.into_iter()
        .map(|(g, a, b, c, d, e, f)| (g, vec![a, b, c, d, e, f]))
        .collect()
}

fn capped_groups(con: &mut Connection) -> Value {
    let fields: Vec<Value> = query(con, &["DELAY.STATS", Q, "DATA", DATA]);
    fields
        .chunks(2)
        .find(|pair| pair[0] == Value::BulkString(b"capped-groups".to_vec()))
        .map(|pair| pair[1].clone())
        .unwrap()
}

#[test]
fn a_group_at_its_cap_is_passed_over_and_the_others_are_served() {
    let server = Server::start();
    let mut con = server.connect();
    assert_eq!(set_limits(&mut con, "acme", &["CAP", "2"]), 1);
    add_group(&mut con, "acme", &["a1", "a2", "a3", "a4"]);
    add_group(&mut con, "beta", &["b1", "b2"]);
    // acme's tasks are first in the queue: two go, the rest wait behind
    // their cap, and beta's are served.
    let first = poll(&mut con, Q, "10");
    assert_eq!(names(&first), ["a1", "a2", "b1", "b2"]);
    assert!(poll(&mut con, Q, "10").is_empty());
    assert_eq!(capped_groups(&mut con), Value::Int(1));
    assert_eq!(groups(&mut con)["acme"], [2, 2, 0, 0, 1, 0]);
    // One done: one more of acme's.
    assert_eq!(ack(&mut con, &first[0]), 1);
    assert_eq!(capped_groups(&mut con), Value::Int(0));
    let next = poll(&mut con, Q, "10");
    assert_eq!(names(&next), ["a3"]);
    assert_eq!(capped_groups(&mut con), Value::Int(1));
    // A failed one handed back frees its slot until it is claimed again.
    let token = next[0].2.unwrap().to_string();
    let nacked: i64 = query(
        &mut con,
        &[
            "DELAY.NACK",
            HELD,
            Q,
            "a3",
            "0",
            "TOKEN",
            &token,
            "DATA",
            DATA,
        ],
    );
    assert_eq!(nacked, 1);
    // Due again behind a4 (a retry goes to the back): a4 takes the slot.
    assert_eq!(names(&poll(&mut con, Q, "10")), ["a4"]);
    // The cap raised: the rest go.
    set_limits(&mut con, "acme", &["CAP", "10"]);
    assert_eq!(capped_groups(&mut con), Value::Int(0));
    let now = server_time_ms(&mut con);
    wait_until_server_time(&mut con, now + 1);
    assert_eq!(names(&poll(&mut con, Q, "10")), ["a3"]);
    assert_eq!(groups(&mut con)["acme"], [3, 10, 0, 0, 0, 0]);
    // Limits removed: the group is no longer listed.
    assert_eq!(set_limits(&mut con, "acme", &[]), 0);
    assert!(groups(&mut con).is_empty());
}

#[test]
fn a_redelivery_keeps_its_slot_and_a_dead_one_frees_it() {
    let server = Server::start();
    let mut con = server.connect();
    set_limits(&mut con, "acme", &["CAP", "1"]);
    add_group(&mut con, "acme", &["a1", "a2"]);
    let lease = |con: &mut Connection, source: &str, ms: &str| -> Vec<Job> {
        query(
            con,
            &[
                "DELAY.POLL",
                source,
                "LEASE",
                HELD,
                ms,
                "DEADLETTER",
                DEAD,
                COUNTS,
                "2",
                "DATA",
                DATA,
                "WITHDATA",
            ],
        )
    };
    let first = lease(&mut con, Q, "100");
    assert_eq!(names(&first), ["a1"]);
    wait_until_server_time(&mut con, first[0].2.unwrap() + 1);
    // Its lease ended: redelivered from the in-flight set, still one in flight.
    let again = lease(&mut con, HELD, "100");
    assert_eq!(names(&again), ["a1"]);
    assert_eq!(groups(&mut con)["acme"][0], 1);
    assert!(
        lease(&mut con, Q, "100").is_empty(),
        "a2 waits for the slot"
    );
    wait_until_server_time(&mut con, again[0].2.unwrap() + 1);
    // Delivered twice: it dies, and its slot comes free.
    assert!(lease(&mut con, HELD, "100").is_empty());
    let dead: Vec<String> = query(&mut con, &["ZRANGE", DEAD, "0", "-1"]);
    assert_eq!(dead, ["a1"]);
    assert_eq!(groups(&mut con)["acme"][0], 0);
    assert_eq!(names(&lease(&mut con, Q, "60000")), ["a2"]);
}

#[test]
fn a_rate_limited_group_is_claimed_within_its_window() {
    let server = Server::start();
    let mut con = server.connect();
    set_limits(&mut con, "slow", &["RATE", "800", "2"]);
    add_group(&mut con, "slow", &["s1", "s2", "s3", "s4", "s5"]);
    add_group(&mut con, "fast", &["f1"]);
    let start = server_time_ms(&mut con);
    assert_eq!(names(&poll(&mut con, Q, "10")), ["s1", "s2", "f1"]);
    assert!(poll(&mut con, Q, "10").is_empty());
    assert_eq!(groups(&mut con)["slow"], [2, 0, 2, 800, 0, 1]);
    if functions_engine() {
        // The library cannot block (docs/functions.md): a worker polls
        // until the window has room again.
        let deadline = Instant::now() + Duration::from_secs(30);
        let got = loop {
            let got = poll(&mut con, Q, "10");
            if !got.is_empty() || Instant::now() > deadline {
                break got;
            }
            thread::sleep(Duration::from_millis(20));
        };
        let elapsed = server_time_ms(&mut con) - start;
        assert_eq!(names(&got), ["s3", "s4"], "two more in the next window");
        assert!(elapsed >= 800, "served after {elapsed} ms");
        return;
    }
    // A poll blocked on the queue wakes when the window has room again.
    let waiter = spawn_call(
        &server,
        &[
            "DELAY.BPOLL",
            Q,
            "0",
            "COUNT",
            "10",
            "LEASE",
            HELD,
            "60000",
            "DATA",
            DATA,
        ],
    );
    let got = waiter.join().unwrap().unwrap();
    let elapsed = server_time_ms(&mut con) - start;
    let Value::Array(got) = got else {
        panic!("{got:?}")
    };
    assert_eq!(got.len(), 2, "two more in the next window");
    assert!(elapsed >= 800, "served after {elapsed} ms");
}

#[test]
fn a_poll_blocked_behind_a_capped_group_wakes_when_a_slot_comes_free() {
    let server = Server::start();
    let mut con = server.connect();
    set_limits(&mut con, "acme", &["CAP", "1"]);
    add_group(&mut con, "acme", &["a1", "a2"]);
    let first = poll(&mut con, Q, "10");
    assert_eq!(names(&first), ["a1"]);
    if functions_engine() {
        // The library cannot block (docs/functions.md): the slot the ACK
        // frees goes to the next poll.
        assert!(poll(&mut con, Q, "10").is_empty());
        assert_eq!(ack(&mut con, &first[0]), 1);
        assert_eq!(names(&poll(&mut con, Q, "10")), ["a2"]);
        return;
    }
    let waiter = spawn_call(
        &server,
        &[
            "DELAY.BPOLL",
            Q,
            "0",
            "LEASE",
            HELD,
            "60000",
            "DATA",
            DATA,
            "WITHDATA",
        ],
    );
    wait_blocked(&server, 1);
    assert_eq!(ack(&mut con, &first[0]), 1);
    let got = waiter.join().unwrap().unwrap();
    let Value::Array(jobs) = got else {
        panic!("{got:?}")
    };
    let Value::Array(job) = &jobs[0] else {
        panic!("{jobs:?}")
    };
    assert_eq!(job[0], Value::BulkString(b"a2".to_vec()));
}

#[test]
fn a_cap_holds_under_fifty_workers_and_every_group_is_served() {
    let server = Server::start();
    let mut con = server.connect();
    let caps = [("acme", 3i64), ("beta", 2)];
    for (group, cap) in caps {
        set_limits(&mut con, group, &["CAP", &cap.to_string()]);
    }
    let mut all = 0;
    for (group, n) in [("acme", 60), ("beta", 20), ("gamma", 20)] {
        let tasks: Vec<String> = (0..n).map(|i| format!("{group}:{i}")).collect();
        let tasks: Vec<&str> = tasks.iter().map(String::as_str).collect();
        add_group(&mut con, group, &tasks);
        all += n;
    }
    // Each worker counts a task running from the claim's reply until before
    // its ACK is sent: never more than the server counts in flight.
    let running: Arc<HashMap<&str, AtomicI64>> = Arc::new(
        ["acme", "beta", "gamma"]
            .into_iter()
            .map(|g| (g, AtomicI64::new(0)))
            .collect(),
    );
    let most: Arc<Mutex<HashMap<String, i64>>> = Arc::default();
    let done = Arc::new(AtomicI64::new(0));
    let deadline = Instant::now() + Duration::from_secs(60);
    let workers: Vec<_> = (0..50)
        .map(|_| {
            let mut con = server.connect();
            let (running, most, done) = (running.clone(), most.clone(), done.clone());
            thread::spawn(move || {
                while done.load(Ordering::SeqCst) < all && Instant::now() < deadline {
                    let jobs = poll(&mut con, Q, "1");
                    let Some(job) = jobs.first() else {
                        thread::sleep(Duration::from_millis(2));
                        continue;
                    };
                    let group = job.0.split(':').next().unwrap().to_string();
                    let now = running[group.as_str()].fetch_add(1, Ordering::SeqCst) + 1;
                    let mut most_seen = most.lock().unwrap();
                    let entry = most_seen.entry(group.clone()).or_default();
                    *entry = (*entry).max(now);
                    drop(most_seen);
                    thread::sleep(Duration::from_millis(3));
                    running[group.as_str()].fetch_sub(1, Ordering::SeqCst);
                    assert_eq!(ack(&mut con, job), 1);
                    done.fetch_add(1, Ordering::SeqCst);
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    assert_eq!(done.load(Ordering::SeqCst), all, "every task done");
    let most = most.lock().unwrap();
    for (group, cap) in caps {
        assert!(
            most[group] <= cap,
            "{group}: {} at once, cap {cap}",
            most[group]
        );
    }
    assert!(
        most["gamma"] > 2,
        "the group without a cap ran wide: {most:?}"
    );
    assert_eq!(groups(&mut con)["acme"][0], 0);
    assert_eq!(capped_groups(&mut con), Value::Int(0));
}

#[test]
fn errors_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    set_limits(&mut con, "acme", &["CAP", "2"]);
    ok(&mut con, &["SET", "{jobs}:str", "x"]);
    let cases: &[(&[&str], &str)] = &[
        (
            &["DELAY.GROUP", Q, DATA, "acme", "CAP", "0"],
            "ERR CAP must be a positive integer",
        ),
        (
            &["DELAY.GROUP", Q, DATA, "acme", "RATE", "1000", "0"],
            "ERR limit must be between 1 and 10000",
        ),
        (
            &["DELAY.GROUP", Q, DATA, "acme", "RATE", "0", "5"],
            "ERR window must be between 1 and",
        ),
        (
            &["DELAY.GROUP", Q, "{jobs}:str", "acme", "CAP", "1"],
            "WRONGTYPE",
        ),
        (&["DELAY.GROUPS", "{jobs}:str", DATA], "WRONGTYPE"),
        (
            &[
                "DELAY.GROUP",
                "{jobs}:new",
                "{jobs}:new",
                "acme",
                "CAP",
                "1",
            ],
            "ERR the DATA hash must differ from the call's sorted sets",
        ),
        (
            &["DELAY.ADD", Q, "GROUP", "acme", "TASKS", "0", "t"],
            "ERR GROUP needs DATA",
        ),
    ];
    assert_errors_change_nothing(&mut con, cases);
}

#[test]
fn group_counts_replicate_as_native_commands() {
    let (master, replicas) = master_and_replicas();
    let mut con = master.connect();
    set_limits(&mut con, "acme", &["CAP", "1", "RATE", "60000", "5"]);
    add_group(&mut con, "acme", &["a1", "a2"]);
    let first = poll(&mut con, Q, "10");
    assert_eq!(names(&first), ["a1"]);
    assert_replicas_match(&master, &replicas);
    ack(&mut con, &first[0]);
    poll(&mut con, Q, "10");
    assert_replicas_match(&master, &replicas);
}
