//! DELAY.STATS, RANK.STATS and RATE.STATS against a real redis-server with
//! zkit loaded: every field against what the native commands say of the
//! same keys, read by name.

use std::collections::HashMap;
use std::time::Duration;

use crate::common::client::{err, ok, query};
use crate::common::data::server_time_ms;
use crate::common::workload::Rng;
use crate::common::{server_version, wait_for, Server, ServerConfig};
use redis::{Connection, Value};

/// A stats reply (`[name, value, ...]`) by name; nil reads as `None`.
fn stats(con: &mut Connection, words: &[&str]) -> HashMap<String, Option<i64>> {
    let reply: Vec<Value> = query(con, words);
    assert_eq!(reply.len() % 2, 0, "{words:?}: {reply:?}");
    reply
        .chunks_exact(2)
        .map(|pair| {
            let name: String = redis::from_redis_value(pair[0].clone()).unwrap();
            let value: Option<i64> = redis::from_redis_value(pair[1].clone()).unwrap();
            (name, value)
        })
        .collect()
}

/// The names of a stats reply, in order.
fn names(con: &mut Connection, words: &[&str]) -> Vec<String> {
    let reply: Vec<Value> = query(con, words);
    reply
        .iter()
        .step_by(2)
        .map(|name| redis::from_redis_value(name.clone()).unwrap())
        .collect()
}

fn zcount(con: &mut Connection, key: &str, min: &str, max: &str) -> i64 {
    query(con, &["ZCOUNT", key, min, max])
}

const HOUR: i64 = 3_600_000;

#[test]
fn delay_stats_give_a_queues_depth_lag_and_sets() {
    let server = Server::start();
    let mut con = server.connect();
    let now = server_time_ms(&mut con);
    // Two tasks overdue by 5 and 2 minutes, one due in an hour, one never.
    for (due, task) in [
        (now - 300_000, "old"),
        (now - 120_000, "newer"),
        (now + HOUR, "later"),
    ] {
        ok(&mut con, &["ZADD", "{q}", &due.to_string(), task]);
    }
    ok(&mut con, &["ZADD", "{q}", "+inf", "never"]);
    // In flight: one lease that ended a minute ago (its worker died), one
    // that holds for an hour; deliveries counted once, twice and thrice;
    // one dead task.
    ok(
        &mut con,
        &[
            "ZADD",
            "{q}:inflight",
            &(now - 60_000).to_string(),
            "lost",
            &(now + HOUR).to_string(),
            "busy",
        ],
    );
    ok(
        &mut con,
        &[
            "ZADD",
            "{q}:deliveries",
            "1",
            "busy",
            "2",
            "lost",
            "3",
            "retried",
        ],
    );
    ok(&mut con, &["ZADD", "{q}:dead", &now.to_string(), "poison"]);

    let all = [
        "DELAY.STATS",
        "{q}",
        "INFLIGHT",
        "{q}:inflight",
        "DEAD",
        "{q}:dead",
        "DELIVERIES",
        "{q}:deliveries",
    ];
    let got = stats(&mut con, &all);
    let at = got["now-ms"].unwrap();
    assert!(at >= now, "{got:?}");
    let expected = HashMap::from([
        ("now-ms".to_string(), Some(at)),
        ("tasks".to_string(), Some(4)),
        ("due".to_string(), Some(2)),
        // The oldest due task's wait, measured at the server's now-ms.
        ("oldest-due-age-ms".to_string(), Some(at - (now - 300_000))),
        ("next-due-ms".to_string(), Some(now + HOUR)),
        ("inflight".to_string(), Some(2)),
        ("expired".to_string(), Some(1)),
        ("dead".to_string(), Some(1)),
        ("redelivered".to_string(), Some(2)),
        // No DATA named: nil.
        ("paused".to_string(), None),
        ("capped-groups".to_string(), None),
    ]);
    assert_eq!(got, expected);
    // The counts are the native ones.
    let due = zcount(&mut con, "{q}", "-inf", &at.to_string());
    assert_eq!(got["due"], Some(due));
    assert_eq!(
        got["expired"],
        Some(zcount(&mut con, "{q}:inflight", "-inf", &at.to_string()))
    );
    assert_eq!(
        got["redelivered"],
        Some(zcount(&mut con, "{q}:deliveries", "2", "+inf"))
    );
    // Always the same fields, in the documented order.
    assert_eq!(
        names(&mut con, &all),
        [
            "now-ms",
            "tasks",
            "due",
            "oldest-due-age-ms",
            "next-due-ms",
            "inflight",
            "expired",
            "dead",
            "redelivered",
            "paused",
            "capped-groups",
        ]
    );

    // Sets not named read nil; the queue's own fields stay.
    let alone = stats(&mut con, &["DELAY.STATS", "{q}"]);
    for name in ["inflight", "expired", "dead", "redelivered"] {
        assert_eq!(alone[name], None, "{name}");
    }
    assert_eq!((alone["tasks"], alone["due"]), (Some(4), Some(2)));
}

#[test]
fn delay_stats_follow_the_queue_as_workers_claim() {
    let server = Server::start();
    let mut con = server.connect();
    let now = server_time_ms(&mut con);
    ok(
        &mut con,
        &[
            "ZADD",
            "jobs",
            &(now - 1000).to_string(),
            "a",
            &(now - 500).to_string(),
            "b",
        ],
    );
    let lag = stats(&mut con, &["DELAY.STATS", "jobs"]);
    assert!(lag["oldest-due-age-ms"].unwrap() >= 1000, "{lag:?}");
    assert_eq!(lag["next-due-ms"], None);
    // A poll with a lease of an hour takes the oldest: the lag is b's now.
    ok(
        &mut con,
        &["DELAY.POLL", "jobs", "LEASE", "jobs:inflight", "3600000"],
    );
    let after = stats(
        &mut con,
        &["DELAY.STATS", "jobs", "INFLIGHT", "jobs:inflight"],
    );
    let at = after["now-ms"].unwrap();
    assert_eq!(after["oldest-due-age-ms"], Some(at - (now - 500)));
    assert_eq!(
        (
            after["tasks"],
            after["due"],
            after["inflight"],
            after["expired"]
        ),
        (Some(1), Some(1), Some(1), Some(0))
    );
    // Drained: no lag, nothing due; an empty or absent queue is no error.
    ok(&mut con, &["DELAY.POLL", "jobs"]);
    let empty = stats(&mut con, &["DELAY.STATS", "jobs"]);
    assert_eq!(
        (empty["tasks"], empty["due"], empty["oldest-due-age-ms"]),
        (Some(0), Some(0), Some(0))
    );
    let absent = stats(
        &mut con,
        &[
            "DELAY.STATS",
            "nothing",
            "DEAD",
            "none",
            "DELIVERIES",
            "nil",
        ],
    );
    assert_eq!(
        (absent["tasks"], absent["dead"], absent["redelivered"]),
        (Some(0), Some(0), Some(0))
    );
    // A task scored -inf ("as soon as possible") counts from the epoch.
    ok(&mut con, &["ZADD", "asap", "-inf", "t"]);
    let asap = stats(&mut con, &["DELAY.STATS", "asap"]);
    assert_eq!(asap["oldest-due-age-ms"], asap["now-ms"]);
}

#[test]
fn rank_stats_give_the_spread_of_totals_by_nearest_rank() {
    let server = Server::start();
    let mut con = server.connect();
    let mut rng = Rng::seeded("rank stats");
    let mut totals = Vec::new();
    for i in 0..1000 {
        let total = rng.range(-50, 5000);
        ok(
            &mut con,
            &["RANK.SET", "board", &format!("m{i}"), &total.to_string()],
        );
        totals.push(total);
    }
    totals.sort();
    // Nearest rank: the smallest total with at least q of the members at or
    // below it, computed here from the totals written.
    let nearest = |q: f64| totals[((q * totals.len() as f64).ceil() as usize).max(1) - 1];
    let got = stats(&mut con, &["RANK.STATS", "board"]);
    assert_eq!(got["members"], Some(1000));
    assert_eq!(got["top-total"], Some(*totals.last().unwrap()));
    assert_eq!(got["p99-total"], Some(nearest(0.99)));
    assert_eq!(got["p90-total"], Some(nearest(0.90)));
    assert_eq!(got["p50-total"], Some(nearest(0.50)));
    assert_eq!(got["bottom-total"], Some(totals[0]));
    // What MEMORY USAGE says of the key with the same samples.
    let memory: i64 = query(&mut con, &["MEMORY", "USAGE", "board", "SAMPLES", "5"]);
    assert_eq!(got["memory-bytes"], Some(memory));
    assert_eq!(
        names(&mut con, &["RANK.STATS", "board"]),
        [
            "members",
            "top-total",
            "p99-total",
            "p90-total",
            "p50-total",
            "bottom-total",
            "memory-bytes"
        ]
    );

    // One member: every quantile is its total. None: nil totals, no bytes.
    ok(&mut con, &["RANK.GIFT", "solo", "alice", "7"]);
    let solo = stats(&mut con, &["RANK.STATS", "solo"]);
    for name in [
        "top-total",
        "p99-total",
        "p90-total",
        "p50-total",
        "bottom-total",
    ] {
        assert_eq!(solo[name], Some(7), "{name}");
    }
    let none = stats(&mut con, &["RANK.STATS", "nobody"]);
    assert_eq!((none["members"], none["top-total"]), (Some(0), None));
    assert_eq!(none["memory-bytes"], Some(0));
}

#[test]
fn rate_stats_count_what_a_hit_would_count_in_each_window() {
    let server = Server::start();
    let mut con = server.connect();
    let now = server_time_ms(&mut con);
    // A log as RATE.HIT writes it: one entry 2 hours ago, two 30 s ago,
    // one now.
    for (at, member) in [
        (now - 2 * HOUR, "a"),
        (now - 30_000, "b"),
        (now - 30_000, "c"),
        (now, "d"),
    ] {
        ok(&mut con, &["ZADD", "log", &at.to_string(), member]);
    }
    let reply: Vec<Value> = query(
        &mut con,
        &["RATE.STATS", "log", "WINDOWS", "60000", "86400000", "10000"],
    );
    let entries: i64 = redis::from_redis_value(reply[1].clone()).unwrap();
    let newest: Option<i64> = redis::from_redis_value(reply[3].clone()).unwrap();
    let windows: Vec<(i64, i64)> = redis::from_redis_value(reply[5].clone()).unwrap();
    assert_eq!((entries, newest), (4, Some(now)));
    assert_eq!(windows, [(60000, 3), (86400000, 4), (10000, 1)]);
    let names: Vec<String> = reply
        .iter()
        .step_by(2)
        .map(|n| redis::from_redis_value(n.clone()).unwrap())
        .collect();
    assert_eq!(names, ["entries", "newest-ms", "windows"]);

    // After a real hit, the stats agree with what RATE.HIT counted.
    let hit: Vec<i64> = query(&mut con, &["RATE.HIT", "comments", "60000", "5"]);
    let reply: Vec<Value> = query(&mut con, &["RATE.STATS", "comments", "WINDOWS", "60000"]);
    let windows: Vec<(i64, i64)> = redis::from_redis_value(reply[5].clone()).unwrap();
    assert_eq!(windows, [(60000, hit[1])]);
    // Stats count nothing: the log is as it was.
    assert_eq!(query::<i64>(&mut con, &["ZCARD", "comments"]), 1);
    let absent: Vec<Value> = query(&mut con, &["RATE.STATS", "none", "WINDOWS", "1000"]);
    assert_eq!(
        absent,
        [
            Value::BulkString(b"entries".to_vec()),
            Value::Int(0),
            Value::BulkString(b"newest-ms".to_vec()),
            Value::Nil,
            Value::BulkString(b"windows".to_vec()),
            Value::Array(vec![Value::Array(vec![Value::Int(1000), Value::Int(0)])]),
        ]
    );
}

#[test]
fn stats_refuse_bad_input_with_redis_errors() {
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["SET", "text", "x"]);
    ok(&mut con, &["ZADD", "q", "1", "a"]);
    let wrongtype = "WRONGTYPE Operation against a key holding the wrong kind of value";
    for call in [
        &["DELAY.STATS", "text"][..],
        &["DELAY.STATS", "q", "INFLIGHT", "text"],
        &["DELAY.STATS", "q", "DEAD", "text"],
        &["DELAY.STATS", "q", "DELIVERIES", "text"],
        &["RANK.STATS", "text"],
        &["RATE.STATS", "text", "WINDOWS", "1000"],
    ] {
        assert_eq!(err(&mut con, call), wrongtype, "{call:?}");
    }
    assert_eq!(
        err(&mut con, &["RATE.STATS", "q", "WINDOWS", "0"]),
        "ERR window must be between 1 and 3155760000000 ms (100 years)"
    );
    assert_eq!(
        err(&mut con, &["RATE.STATS", "q", "WINDOWS", "x"]),
        "ERR value is not an integer or out of range"
    );
    assert!(err(&mut con, &["RATE.STATS", "q"]).contains("wrong number of arguments"));
    assert!(err(&mut con, &["DELAY.STATS", "q", "INFLIGHT"]).starts_with("ERR syntax error"));
    assert!(err(&mut con, &["DELAY.STATS", "q", "LEASE", "x"]).starts_with("ERR syntax error"));
    // A board written with a score that is no rank score.
    ok(&mut con, &["ZADD", "plain", "inf", "x"]);
    assert!(err(&mut con, &["RANK.STATS", "plain"]).contains("is not a rank score"));
}

/// In `@read` (Redis 7.2+), not in `@write`; answered on a replica.
#[test]
fn stats_are_reads_a_read_only_acl_user_may_run() {
    let server = Server::start();
    let mut con = server.connect();
    ok(
        &mut con,
        &[
            "ACL", "SETUSER", "watcher", "on", "nopass", "~*", "+@read", "-@write",
        ],
    );
    // Redis 7.0 gives modules no way to set ACL categories: there the
    // commands are granted by name.
    if server_version(&mut con) < (7, 2) {
        ok(
            &mut con,
            &[
                "ACL",
                "SETUSER",
                "watcher",
                "+delay.stats",
                "+rank.stats",
                "+rate.stats",
            ],
        );
    }
    ok(&mut con, &["ZADD", "q", "1", "a"]);
    ok(&mut con, &["RANK.GIFT", "board", "alice", "5"]);
    let mut watcher = server.connect();
    ok(&mut watcher, &["AUTH", "watcher", "any"]);
    let queue = stats(&mut watcher, &["DELAY.STATS", "q", "INFLIGHT", "q:held"]);
    assert_eq!(queue["tasks"], Some(1));
    assert_eq!(
        stats(&mut watcher, &["RANK.STATS", "board"])["members"],
        Some(1)
    );
    ok(&mut watcher, &["RATE.STATS", "log", "WINDOWS", "1000"]);
    assert!(err(&mut watcher, &["DELAY.POLL", "q"]).starts_with("NOPERM"));
    // The stats change nothing, so a replica answers them too.
    let replica = Server::with(ServerConfig::default().replica_of(&server));
    let mut on_replica = replica.connect();
    wait_for(Duration::from_secs(30), || {
        query::<i64>(&mut on_replica, &["EXISTS", "board"]) == 1
    });
    assert_eq!(
        stats(&mut on_replica, &["RANK.STATS", "board"])["top-total"],
        Some(5)
    );
}
