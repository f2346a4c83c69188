//! DELAY.POLL and DELAY.BPOLL with RATE: claims that spend a RATE window,
//! against a real server.

use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::client::{ok, query};
use crate::common::data::{assert_errors_change_nothing, server_time_ms};
use crate::common::Server;
use redis::{Connection, Value};

const Q: &str = "{jobs}";
const HELD: &str = "{jobs}:inflight";
const LOG: &str = "{jobs}:rate";
const LEASE_MS: i64 = 60_000;

/// `[[task, due-ms, token], ...]` and the retry-after.
type Rated = (Vec<(String, f64, i64)>, i64);

fn rated_poll(con: &mut Connection, count: &str, window: &str, limit: &str) -> Rated {
    query(
        con,
        &[
            "DELAY.POLL",
            Q,
            "COUNT",
            count,
            "LEASE",
            HELD,
            &LEASE_MS.to_string(),
            "WITHTOKENS",
            "RATE",
            LOG,
            window,
            limit,
        ],
    )
}

fn add(con: &mut Connection, n: usize) {
    for i in 0..n {
        ok(con, &["ZADD", Q, "1", &format!("t{i}")]);
    }
}

fn log_size(con: &mut Connection) -> i64 {
    query(con, &["ZCARD", LOG])
}

#[test]
fn a_rated_claim_takes_what_the_window_allows_and_spends_nothing_when_nothing_is_due() {
    let server = Server::start();
    let mut con = server.connect();
    // Nothing due: nothing spent, not limited.
    assert_eq!(rated_poll(&mut con, "10", "1000", "3"), (vec![], -1));
    let exists: i64 = query(&mut con, &["EXISTS", LOG]);
    assert_eq!(exists, 0);
    add(&mut con, 5);
    let (tasks, retry) = rated_poll(&mut con, "10", "1000", "3");
    assert_eq!((tasks.len(), retry), (3, -1));
    assert_eq!(log_size(&mut con), 3, "one unit per task claimed");
    // Due tasks, a full window: the retry-after, nothing claimed or spent.
    let (tasks, retry) = rated_poll(&mut con, "10", "1000", "3");
    assert!(tasks.is_empty());
    assert!((1..=1000).contains(&retry), "{retry}");
    assert_eq!(log_size(&mut con), 3);
    let queued: i64 = query(&mut con, &["ZCARD", Q]);
    assert_eq!(queued, 2);
    // The window is RATE.HIT's: its own hits count, and its log expires.
    let ttl: i64 = query(&mut con, &["PTTL", LOG]);
    assert!(ttl > 0 && ttl <= 1000, "{ttl}");
    let hit: Vec<i64> = query(&mut con, &["RATE.HIT", LOG, "1000", "3"]);
    assert_eq!(hit[0], 0, "the window is full for RATE.HIT too");
}

#[test]
fn a_window_spent_by_rate_hit_limits_the_claim() {
    let server = Server::start();
    let mut con = server.connect();
    add(&mut con, 5);
    for _ in 0..2 {
        let _: Vec<i64> = query(&mut con, &["RATE.HIT", LOG, "5000", "3"]);
    }
    let (tasks, _) = rated_poll(&mut con, "10", "5000", "3");
    assert_eq!(tasks.len(), 1);
}

#[test]
fn a_blocked_rated_poll_waits_for_room_in_the_window() {
    let server = Server::start();
    let mut con = server.connect();
    add(&mut con, 4);
    let (tasks, _) = rated_poll(&mut con, "10", "600", "3");
    assert_eq!(tasks.len(), 3);
    let start = server_time_ms(&mut con);
    let got: Option<Vec<(String, f64)>> = query(
        &mut con,
        &["DELAY.BPOLL", Q, "0", "COUNT", "5", "RATE", LOG, "600", "3"],
    );
    let waited = server_time_ms(&mut con) - start;
    assert_eq!(got.unwrap().len(), 1);
    assert!(waited >= 500, "served after {waited} ms");
}

#[test]
fn workers_sharing_a_window_never_claim_more_than_it_allows() {
    let server = Server::start();
    let mut con = server.connect();
    add(&mut con, 400);
    let (window, limit) = (300i64, 4usize);
    let claimed_at: Arc<Mutex<Vec<i64>>> = Arc::default();
    let deadline = Instant::now() + Duration::from_millis(1_500);
    let workers: Vec<_> = (0..8)
        .map(|_| {
            let mut con = server.connect();
            let claimed_at = claimed_at.clone();
            thread::spawn(move || {
                while Instant::now() < deadline {
                    let (tasks, _) =
                        rated_poll(&mut con, "3", &window.to_string(), &limit.to_string());
                    // The token is the lease's end: the server's claim time + LEASE_MS.
                    let mut at = claimed_at.lock().unwrap();
                    at.extend(tasks.iter().map(|(_, _, token)| token - LEASE_MS));
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    let mut at = claimed_at.lock().unwrap().clone();
    at.sort();
    assert!(at.len() >= limit * 3, "{} claims", at.len());
    for (i, t) in at.iter().enumerate() {
        let in_window = at[..=i].iter().filter(|&&s| s > t - window).count();
        assert!(
            in_window <= limit,
            "{in_window} claims in the window ending at {t}"
        );
    }
}

#[test]
fn errors_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    add(&mut con, 2);
    ok(&mut con, &["SET", "{jobs}:str", "x"]);
    ok(&mut con, &["RANK.GIFT", "{jobs}:board", "alice", "5"]);
    let cases: &[(&[&str], &str)] = &[
        (
            &["DELAY.POLL", Q, "RATE", LOG, "0", "3"],
            "ERR window must be between 1 and",
        ),
        (
            &["DELAY.POLL", Q, "RATE", LOG, "1000", "0"],
            "ERR limit must be between 1 and 1000000",
        ),
        (
            &["DELAY.POLL", Q, "RATE", Q, "1000", "3"],
            "ERR the RATE log must differ",
        ),
        (
            &[
                "DELAY.POLL",
                Q,
                "LEASE",
                HELD,
                "100",
                "RATE",
                HELD,
                "1000",
                "3",
            ],
            "ERR the RATE log must differ",
        ),
        (
            &["DELAY.POLL", Q, "RATE", "{jobs}:str", "1000", "3"],
            "WRONGTYPE",
        ),
        (
            &["DELAY.POLL", Q, "RATE", "{jobs}:board", "1000", "3"],
            "WRONGTYPE",
        ),
        (&["DELAY.POLL", Q, "RATE", LOG, "1000"], "ERR syntax error"),
    ];
    assert_errors_change_nothing(&mut con, cases);
    let reply: Value = query(&mut con, &["DELAY.POLL", Q, "RATE", LOG, "1000", "3"]);
    assert!(matches!(reply, Value::Array(_)));
}
