//! DELAY priority lanes: DELAY.POLL and DELAY.BPOLL over several queues in
//! the order given (`LANES lane ...`, last), against a real server.

use std::thread;

use crate::common::client::{ok, query};
use crate::common::data::{assert_errors_change_nothing, server_time_ms};
use crate::common::replication::{assert_replicas_match, master_and_replicas};
use crate::common::{wait_blocked, Server};
use redis::Connection;

type Tasks = Vec<(String, f64)>;

const HIGH: &str = "{jobs}:high";
const NORMAL: &str = "{jobs}";
const LOW: &str = "{jobs}:low";
const HELD: &str = "{jobs}:inflight";

fn names(tasks: &[(String, f64)]) -> Vec<&str> {
    tasks.iter().map(|(m, _)| m.as_str()).collect()
}

/// A poll of the three lanes, highest first, leased.
fn poll_lanes(con: &mut Connection, count: &str) -> Tasks {
    query(
        con,
        &[
            "DELAY.POLL",
            HIGH,
            "COUNT",
            count,
            "LEASE",
            HELD,
            "60000",
            "LANES",
            NORMAL,
            LOW,
        ],
    )
}

#[test]
fn a_due_task_in_a_higher_lane_is_always_claimed_first() {
    let server = Server::start();
    let mut con = server.connect();
    let now = server_time_ms(&mut con);
    // The low lane's tasks are the oldest, the high lane's the newest: lane
    // order wins over due time.
    ok(&mut con, &["ZADD", LOW, "1", "low:1", "2", "low:2"]);
    ok(
        &mut con,
        &["ZADD", NORMAL, "10", "normal:1", "11", "normal:2"],
    );
    let recent = (now - 10).to_string();
    ok(&mut con, &["ZADD", HIGH, &recent, "high:1"]);
    // Not due yet: a higher lane's future task does not hold back a lower
    // lane's due one.
    let later = (now + 3_600_000).to_string();
    ok(&mut con, &["ZADD", HIGH, &later, "high:later"]);
    let order: Vec<String> = (0..5)
        .flat_map(|_| {
            names(&poll_lanes(&mut con, "1"))
                .into_iter()
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(order, ["high:1", "normal:1", "normal:2", "low:1", "low:2"]);
    assert!(poll_lanes(&mut con, "1").is_empty());
    let held: i64 = query(&mut con, &["ZCARD", HELD]);
    assert_eq!(held, 5);
    // One poll fills its count from the lanes in order.
    ok(&mut con, &["ZADD", LOW, "1", "low:3"]);
    ok(&mut con, &["ZADD", NORMAL, "1", "normal:3"]);
    ok(&mut con, &["ZADD", HIGH, "5", "high:2", "6", "high:3"]);
    assert_eq!(
        names(&poll_lanes(&mut con, "3")),
        ["high:2", "high:3", "normal:3"]
    );
    assert_eq!(names(&poll_lanes(&mut con, "3")), ["low:3"]);
}

#[test]
fn a_retry_handed_back_into_the_higher_lane_comes_first() {
    let server = Server::start();
    let mut con = server.connect();
    ok(
        &mut con,
        &[
            "ZADD", NORMAL, "1", "resize:1", "2", "resize:2", "3", "resize:3",
        ],
    );
    assert_eq!(names(&poll_lanes(&mut con, "1")), ["resize:1"]);
    // resize:1 failed: retried at once, ahead of the queue's other tasks.
    let moved: i64 = query(&mut con, &["DELAY.NACK", HELD, HIGH, "resize:1", "0"]);
    assert_eq!(moved, 1);
    assert_eq!(names(&poll_lanes(&mut con, "2")), ["resize:1", "resize:2"]);
}

#[test]
fn a_poll_blocked_on_several_lanes_wakes_for_any_of_them() {
    let server = Server::start();
    let spawn = |server: &Server| {
        let mut con = server.connect();
        let waiter = thread::spawn(move || {
            let got: Option<Tasks> = query(
                &mut con,
                &["DELAY.BPOLL", HIGH, "0", "COUNT", "5", "LANES", NORMAL, LOW],
            );
            got
        });
        wait_blocked(server, 1);
        waiter
    };
    let mut con = server.connect();
    // A task added to the lowest lane wakes the poller.
    let waiter = spawn(&server);
    ok(&mut con, &["ZADD", LOW, "1", "low:1"]);
    assert_eq!(names(&waiter.join().unwrap().unwrap()), ["low:1"]);
    // A task that falls due in the middle lane wakes it at its due time,
    // though the highest lane's earliest task is due later.
    let now = server_time_ms(&mut con);
    let soon = (now + 300).to_string();
    let later = (now + 3_600_000).to_string();
    ok(&mut con, &["ZADD", HIGH, &later, "high:later"]);
    ok(&mut con, &["ZADD", NORMAL, &soon, "normal:soon"]);
    let waiter = spawn(&server);
    let got = waiter.join().unwrap().unwrap();
    assert_eq!(names(&got), ["normal:soon"]);
    assert!(server_time_ms(&mut con) >= now + 300);
    // Served from the lanes in order when several are due at once.
    ok(&mut con, &["ZADD", LOW, "1", "low:2"]);
    ok(&mut con, &["ZADD", HIGH, "1", "high:1"]);
    let got: Option<Tasks> = query(
        &mut con,
        &[
            "DELAY.BPOLL",
            HIGH,
            "1000",
            "COUNT",
            "5",
            "LANES",
            NORMAL,
            LOW,
        ],
    );
    assert_eq!(names(&got.unwrap()), ["high:1", "low:2"]);
}

#[test]
fn a_lane_that_cannot_be_polled_refuses_the_poll_before_any_claim() {
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["ZADD", HIGH, "1", "a"]);
    ok(&mut con, &["SET", "{jobs}:str", "x"]);
    // A gift board's totals: every member would look due.
    ok(&mut con, &["RANK.GIFT", "{jobs}:board", "alice", "5"]);
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "DELAY.POLL",
                HIGH,
                "LEASE",
                HELD,
                "100",
                "LANES",
                "{jobs}:str",
            ],
            "WRONGTYPE",
        ),
        (&["DELAY.POLL", HIGH, "LANES", "{jobs}:board"], "WRONGTYPE"),
        (&["DELAY.POLL", HIGH, "LANES"], "ERR syntax error"),
        (
            &[
                "DELAY.POLL",
                HIGH,
                "LEASE",
                HELD,
                "100",
                "DEADLETTER",
                LOW,
                "{jobs}:n",
                "3",
                "LANES",
                LOW,
            ],
            "ERR the dead-letter and deliveries sets must differ",
        ),
    ];
    assert_errors_change_nothing(&mut con, cases);
}

#[test]
fn lane_claims_replicate_as_native_commands() {
    let (master, replicas) = master_and_replicas();
    let mut con = master.connect();
    ok(&mut con, &["ZADD", HIGH, "1", "h"]);
    ok(&mut con, &["ZADD", NORMAL, "1", "n"]);
    ok(&mut con, &["ZADD", LOW, "1", "l"]);
    assert_eq!(names(&poll_lanes(&mut con, "2")), ["h", "n"]);
    assert_replicas_match(&master, &replicas);
}
