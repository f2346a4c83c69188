//! RATE.* against a real redis-server with zkit loaded.

use std::collections::HashSet;
use std::time::Duration;

use crate::common::client::{ok, query, syntax_error};
use crate::common::data::{
    assert_errors_change_nothing, db_snapshot, expiry_snapshot, server_time_ms,
};
use crate::common::keyspace::{event_pairs, keyspace_events};
use crate::common::replication::{
    aof_server, assert_aof_replays_without_module, assert_replicas_match, master_and_replicas,
};
use crate::common::{wait_for, Server};
use redis::Connection;

/// `[allowed, count, remaining, retry-after-ms]`
type Verdict = (i64, i64, i64, i64);

fn hit(con: &mut Connection, words: &[&str]) -> Verdict {
    rate_hit(con, words)
}

/// RATE.HIT with `words` after the command name, its reply as `T`.
fn rate_hit<T: redis::FromRedisValue>(con: &mut Connection, words: &[&str]) -> T {
    let mut command = vec!["RATE.HIT"];
    command.extend_from_slice(words);
    query(con, &command)
}

fn newest_score(con: &mut Connection, key: &str) -> f64 {
    let top: Vec<(String, f64)> = query(con, &["ZRANGE", key, "-1", "-1", "WITHSCORES"]);
    top[0].1
}

#[test]
fn anti_spam_at_most_two_comments_in_five_seconds() {
    let server = Server::start();
    let mut con = server.connect();
    let key = "user:1000:comment";
    assert_eq!(hit(&mut con, &[key, "5000", "2"]), (1, 1, 1, -1));
    assert_eq!(hit(&mut con, &[key, "5000", "2"]), (1, 2, 0, -1));
    let (allowed, count, remaining, retry) = hit(&mut con, &[key, "5000", "2"]);
    assert_eq!((allowed, count, remaining), (0, 2, 0));
    assert!((1..=5000).contains(&retry), "{retry}");
    // The log is a native zset: the recipe's own ZCOUNT sees the two comments.
    let now = server_time_ms(&mut con);
    let seen: i64 = query(
        &mut con,
        &["ZCOUNT", key, &(now - 5000).to_string(), &now.to_string()],
    );
    assert_eq!(seen, 2);
    // The key lives exactly one window past its newest hit.
    let expires: i64 = query(&mut con, &["PEXPIRETIME", key]);
    assert_eq!(expires, newest_score(&mut con, key) as i64 + 5000);
}

#[test]
fn a_short_window_lets_hits_through_again() {
    let server = Server::start();
    let mut con = server.connect();
    // A window wide enough that the second hit lands in it on a loaded
    // machine too.
    assert_eq!(hit(&mut con, &["w", "2000", "1"]).0, 1);
    assert_eq!(hit(&mut con, &["w", "2000", "1"]).0, 0);
    // Some later hit is allowed, and by then the first entry was dropped.
    let mut verdict = (0, 0, 0, 0);
    wait_for(Duration::from_secs(20), || {
        verdict = hit(&mut con, &["w", "2000", "1"]);
        verdict.0 == 1
    });
    assert_eq!(verdict, (1, 1, 0, -1));
    let card: i64 = query(&mut con, &["ZCARD", "w"]);
    assert_eq!(card, 1);
}

#[test]
fn cost_takes_several_units_with_unique_members() {
    let server = Server::start();
    let mut con = server.connect();
    assert_eq!(
        hit(&mut con, &["c", "COST", "4", "60000", "10"]),
        (1, 4, 6, -1)
    );
    assert_eq!(
        hit(&mut con, &["c", "cost", "4", "60000", "10"]),
        (1, 8, 2, -1)
    );
    let (allowed, count, remaining, retry) = hit(&mut con, &["c", "COST", "3", "60000", "10"]);
    assert_eq!((allowed, count, remaining), (0, 8, 2));
    assert!((1..=60000).contains(&retry), "{retry}");
    assert_eq!(
        hit(&mut con, &["c", "COST", "2", "60000", "10"]),
        (1, 10, 0, -1)
    );
    let members: Vec<String> = query(&mut con, &["ZRANGE", "c", "0", "-1"]);
    assert_eq!(members.len(), 10);
    assert_eq!(members.iter().collect::<HashSet<_>>().len(), 10);
    assert!(members.iter().all(|m| m.contains('-')), "{members:?}");
    // A cost equal to the limit is allowed on an empty log.
    assert_eq!(
        hit(&mut con, &["c2", "COST", "3", "60000", "3"]),
        (1, 3, 0, -1)
    );
}

#[test]
fn retry_after_waits_for_exactly_the_entries_in_the_way() {
    let server = Server::start();
    let mut con = server.connect();
    let t = server_time_ms(&mut con);
    // Window 60 s, limit 2: one entry leaves in about 1 s, one in about 59 s,
    // one left the window 10 s ago.
    for (score, member) in [
        (t - 70_000, "gone"),
        (t - 59_000, "old"),
        (t - 1_000, "new"),
    ] {
        ok(&mut con, &["ZADD", "r", &score.to_string(), member]);
    }
    let (allowed, count, _, retry_one) = hit(&mut con, &["r", "60000", "2"]);
    assert_eq!((allowed, count), (0, 2));
    assert!((1..=1_000).contains(&retry_one), "{retry_one}");
    // Two units must wait for both entries.
    let (allowed, _, _, retry_two) = hit(&mut con, &["r", "COST", "2", "60000", "2"]);
    assert_eq!(allowed, 0);
    assert!((1_001..=59_000).contains(&retry_two), "{retry_two}");
    // The refused hits dropped the entry that had left the window, nothing else.
    assert_eq!(
        query::<Vec<String>>(&mut con, &["ZRANGE", "r", "0", "-1"]),
        ["old", "new"]
    );
}

#[test]
fn refused_hits_change_nothing_but_expired_entries() {
    let server = Server::start();
    let mut con = server.connect();
    hit(&mut con, &["k", "60000", "1"]);
    let snapshot = db_snapshot(&mut con);
    let expiry = expiry_snapshot(&mut con);
    assert_eq!(hit(&mut con, &["k", "60000", "1"]).0, 0);
    assert_eq!(db_snapshot(&mut con), snapshot);
    assert_eq!(expiry_snapshot(&mut con), expiry);
    // An entry that left the window goes; the TTL set by the last accepted hit stays.
    let t = server_time_ms(&mut con);
    ok(
        &mut con,
        &["ZADD", "k", &(t - 120_000).to_string(), "stale"],
    );
    assert_eq!(hit(&mut con, &["k", "60000", "1"]).0, 0);
    assert_eq!(db_snapshot(&mut con), snapshot);
    assert_eq!(expiry_snapshot(&mut con), expiry);
}

#[test]
fn concurrent_hits_never_pass_the_limit() {
    let server = Server::start();
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let mut con = server.connect();
            std::thread::spawn(move || {
                (0..60)
                    .map(|_| hit(&mut con, &["shared", "600000", "100"]))
                    .filter(|v| v.0 == 1)
                    .map(|v| v.1)
                    .collect::<Vec<i64>>()
            })
        })
        .collect();
    let mut counts: Vec<i64> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    counts.sort();
    // Exactly 100 of the 480 hits got through, each seeing its own count.
    assert_eq!(counts, (1..=100).collect::<Vec<i64>>());
    let mut con = server.connect();
    let card: i64 = query(&mut con, &["ZCARD", "shared"]);
    assert_eq!(card, 100);
}

#[test]
fn errors_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    hit(&mut con, &["k", "60000", "5"]);
    ok(&mut con, &["SET", "str", "x"]);
    let window = "ERR window must be between 1 and 3155760000000 ms";
    let limit = "ERR limit must be between 1 and 1000000";
    let cost = "ERR cost must be between 1 and the limit";
    let usage = "RATE.HIT key [COST cost] [IDMP seen-key event-id] [RETAIN ms] window-ms limit [window-ms limit ...]";
    let unpaired = syntax_error("values come in groups of 'window-ms limit'", usage);
    let cost_twice = syntax_error("COST is given twice", usage);
    let cases: &[(&[&str], &str)] = &[
        (&["RATE.HIT", "str", "1000", "5"], "WRONGTYPE"),
        (&["RATE.HIT", "k", "1000"], "ERR wrong number of arguments"),
        (&["RATE.HIT", "k", "0", "5"], window),
        (&["RATE.HIT", "k", "-1", "5"], window),
        (&["RATE.HIT", "k", "3155760000001", "5"], window),
        (
            &["RATE.HIT", "k", "1.5", "5"],
            "ERR value is not an integer",
        ),
        (
            &["RATE.HIT", "k", "inf", "5"],
            "ERR value is not an integer",
        ),
        (&["RATE.HIT", "k", "1000", "0"], limit),
        (&["RATE.HIT", "k", "1000", "-5"], limit),
        (&["RATE.HIT", "k", "1000", "1000001"], limit),
        (
            &["RATE.HIT", "k", "1000", "x"],
            "ERR value is not an integer",
        ),
        (&["RATE.HIT", "k", "COST", "0", "1000", "5"], cost),
        (&["RATE.HIT", "k", "COST", "-1", "1000", "5"], cost),
        (&["RATE.HIT", "k", "COST", "6", "1000", "5"], cost),
        (
            &["RATE.HIT", "k", "COST", "x", "1000", "5"],
            "ERR value is not an integer",
        ),
        (&["RATE.HIT", "k", "COST", "1000", "5"], &unpaired),
        (
            &["RATE.HIT", "k", "COST", "1", "COST", "2", "1000", "5"],
            &cost_twice,
        ),
        (&["RATE.HIT", "k", "1000", "5", "COST"], &unpaired),
        // An unknown option stands where a window is read, as in ZADD.
        (
            &["RATE.HIT", "k", "1000", "5", "BURST", "2"],
            "ERR value is not an integer",
        ),
        (
            &["RATE.HIT", "k", "BURST", "2", "1000", "5"],
            "ERR value is not an integer",
        ),
        // The 0.2 form, COST after the windows, is refused with the usage
        // and changes nothing (it never meant anything else).
        (
            &["RATE.HIT", "k", "1000", "5", "COST", "2"],
            &syntax_error("unexpected 'COST'", usage),
        ),
        (&["RATE.HIT", "k", "1000", "5", "COST", "1", "x"], &unpaired),
    ];
    assert_errors_change_nothing(&mut con, cases);
}

#[test]
fn writes_replicate_as_native_commands_to_replicas_with_and_without_zkit() {
    let (master, replicas) = master_and_replicas();
    let mut con = master.connect();
    let t = server_time_ms(&mut con);
    // Entries that left the window, for accepted and refused hits to drop.
    for key in ["a", "b"] {
        for i in 0..5 {
            let score = (t - 500_000 - i).to_string();
            ok(&mut con, &["ZADD", key, &score, &format!("stale{i}")]);
        }
    }
    ok(&mut con, &["ZADD", "b", &t.to_string(), "fresh"]);
    for _ in 0..30 {
        hit(&mut con, &["a", "COST", "3", "300000", "20"]);
    }
    assert_eq!(hit(&mut con, &["b", "300000", "1"]).0, 0);
    // One hit logging more units than a replication chunk.
    assert_eq!(
        hit(&mut con, &["big", "COST", "1500", "300000", "5000"]).0,
        1
    );
    assert_eq!(query::<i64>(&mut con, &["ZCARD", "a"]), 18);
    assert_eq!(query::<i64>(&mut con, &["ZCARD", "b"]), 1);
    assert_eq!(assert_replicas_match(&master, &replicas).len(), 3);
}

#[test]
fn aof_replays_on_a_server_without_zkit() {
    let server = aof_server();
    let mut con = server.connect();
    let t = server_time_ms(&mut con);
    ok(
        &mut con,
        &["ZADD", "k", &(t - 500_000).to_string(), "stale"],
    );
    for _ in 0..8 {
        hit(&mut con, &["k", "COST", "2", "300000", "5"]);
    }
    drop(con);
    assert_aof_replays_without_module(server);
}

#[test]
fn writes_fire_the_native_keyspace_events() {
    let server = Server::start();
    let mut con = server.connect();
    let t = server_time_ms(&mut con);
    ok(
        &mut con,
        &["ZADD", "s", &(t - 100_000).to_string(), "stale"],
    );
    ok(&mut con, &["ZADD", "s", &t.to_string(), "fresh"]);
    let events = keyspace_events(&server, |con| {
        hit(con, &["k", "60000", "1"]); // allowed
        hit(con, &["k", "60000", "1"]); // refused, nothing to drop
        hit(con, &["s", "60000", "1"]); // refused, drops the stale entry
        hit(con, &["s", "60000", "2"]); // allowed
    });
    let events: Vec<(&str, &str)> = events
        .iter()
        .map(|(c, k)| (c.as_str(), k.as_str()))
        .collect();
    assert_eq!(
        events,
        [
            ("__keyevent@0__:zadd", "k"),
            ("__keyevent@0__:expire", "k"),
            ("__keyevent@0__:zremrangebyscore", "s"),
            ("__keyevent@0__:zadd", "s"),
            ("__keyevent@0__:expire", "s"),
        ]
    );
}

// ---- several limits in one call ---------------------------------------------

/// `[allowed, count, remaining, retry-after-ms, binding limit]`
type Stacked = (i64, i64, i64, i64, i64);

fn hit_stacked(con: &mut Connection, words: &[&str]) -> Stacked {
    rate_hit(con, words)
}

#[test]
fn anti_spam_with_a_burst_limit_and_a_daily_limit() {
    // 2 comments per 1.5 s and 3 per day: allowed only if both allow; the
    // fifth element says which limit binds (1: the first pair, 2: the second).
    let server = Server::start();
    let mut con = server.connect();
    let key = "user:1000:comment";
    let both = [key, "1500", "2", "86400000", "3"];
    assert_eq!(hit_stacked(&mut con, &both), (1, 1, 1, -1, 1));
    assert_eq!(hit_stacked(&mut con, &both), (1, 2, 0, -1, 1));
    // The burst limit refuses: retry when the first comment leaves 1.5 s.
    let (allowed, count, remaining, retry, binding) = hit_stacked(&mut con, &both);
    assert_eq!((allowed, count, remaining, binding), (0, 2, 0, 1));
    assert!((1..=1500).contains(&retry), "{retry}");
    // Later the burst limit has room, and the day limit binds: one left...
    thread_sleep_ms(1550);
    assert_eq!(hit_stacked(&mut con, &both), (1, 3, 0, -1, 2));
    // ... then none, for about a day.
    thread_sleep_ms(1550);
    let (allowed, count, remaining, retry, binding) = hit_stacked(&mut con, &both);
    assert_eq!((allowed, count, remaining, binding), (0, 3, 0, 2));
    assert!(retry > 86_000_000, "{retry}");
    // The log holds at most the largest limit and expires with the widest
    // window after its newest hit.
    assert_eq!(query::<i64>(&mut con, &["ZCARD", key]), 3);
    let expires: i64 = query(&mut con, &["PEXPIRETIME", key]);
    assert_eq!(expires, newest_score(&mut con, key) as i64 + 86_400_000);
    // The same key with one limit still replies four elements.
    let one: Vec<i64> = query(&mut con, &["RATE.HIT", key, "86400000", "10"]);
    assert_eq!(one.len(), 4);
    // COST counts against every limit.
    let costly: Stacked = hit_stacked(&mut con, &["c", "COST", "4", "60000", "5", "3600000", "8"]);
    assert_eq!(costly, (1, 4, 1, -1, 1));
}

#[test]
fn a_lowered_limit_on_a_large_log_answers_exactly() {
    // A log of 1,000 hits one ms apart (the newest now), as a limit of
    // 1,000 a minute leaves it; then the limit drops to 300 a minute and a
    // burst limit of 100 a second joins it. Both count and look past more
    // entries than zkit walks (the server's rank index answers instead): the
    // answers must be the exact ones a script computes with ZCOUNT and ZRANGE.
    let server = Server::start();
    let mut con = server.connect();
    let key = "user:7:api";
    let now = server_time_ms(&mut con);
    let mut zadd = vec!["ZADD".to_string(), key.to_string()];
    for i in 0..1000 {
        zadd.push((now - i).to_string());
        zadd.push(format!("{}-0", now - i));
    }
    let words: Vec<&str> = zadd.iter().map(String::as_str).collect();
    query::<i64>(&mut con, &words);
    let (allowed, count, remaining, retry) = hit(&mut con, &[key, "60000", "300"]);
    assert_eq!((allowed, count, remaining), (0, 1000, 0));
    // The hit fits when all but 299 entries have left: the 701st oldest,
    // scored now - 299, leaves the minute at now - 299 + 60000.
    let called = server_time_ms(&mut con);
    assert!(
        (now - 299 + 60_000 - called..=60_000 - 299).contains(&retry),
        "{retry}"
    );
    // The second limit counts the last second only (the newest 1,000 ms
    // hold all 1,000 entries, 900 more than it takes); it binds when it
    // waits longer: here the minute does (59,701 ms vs under 1,000).
    let (allowed, count, _, retry, binding) =
        hit_stacked(&mut con, &[key, "60000", "300", "1000", "100"]);
    assert_eq!((allowed, count, binding), (0, 1000, 1));
    assert!(retry > 58_000, "{retry}");
    // A burst limit that waits longer than a short window: 1,000 in 10 s
    // allowed but 50 in 5 s refused; the 951st oldest, now - 49, leaves the
    // 5 s window at now - 49 + 5000.
    let (allowed, count, remaining, retry, binding) =
        hit_stacked(&mut con, &[key, "10000", "2000", "5000", "50"]);
    assert_eq!((allowed, count, remaining, binding), (0, 1000, 0, 2));
    let called = server_time_ms(&mut con);
    assert!(
        (now - 49 + 5000 - called..=5000 - 49).contains(&retry),
        "{retry}"
    );
    // Refused hits dropped nothing that was live and logged nothing.
    assert_eq!(query::<i64>(&mut con, &["ZCARD", key]), 1000);
}

fn thread_sleep_ms(ms: u64) {
    std::thread::sleep(Duration::from_millis(ms));
}

#[test]
fn stacked_limit_errors_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    hit(&mut con, &["k", "60000", "5"]);
    ok(&mut con, &["SET", "str", "x"]);
    let cases: &[(&[&str], &str)] = &[
        (
            &["RATE.HIT", "k", "1000", "5", "2000"],
            "ERR syntax error: values come in groups of 'window-ms limit'",
        ),
        (
            &["RATE.HIT", "k", "1000", "5", "2000", "x"],
            "ERR value is not an integer",
        ),
        (
            &["RATE.HIT", "k", "1000", "5", "0", "3"],
            "ERR window must be between 1 and 3155760000000 ms",
        ),
        (
            &["RATE.HIT", "k", "1000", "5", "2000", "1000001"],
            "ERR limit must be between 1 and 1000000",
        ),
        (
            &["RATE.HIT", "k", "COST", "3", "1000", "5", "60000", "2"],
            "ERR cost must be between 1 and the limit",
        ),
        (
            &["RATE.HIT", "k", "1000", "5", "2000", "9", "COST"],
            "ERR syntax error: values come in groups of 'window-ms limit'",
        ),
        // COST stands before the windows only.
        (
            &["RATE.HIT", "k", "1000", "5", "COST", "1", "2000", "9"],
            "ERR syntax error: unexpected 'COST'; usage: RATE.HIT key [COST cost]",
        ),
        (&["RATE.HIT", "str", "1000", "5", "2000", "9"], "WRONGTYPE"),
    ];
    assert_errors_change_nothing(&mut con, cases);
}

#[test]
fn stacked_limits_replicate_and_replay_without_zkit() {
    fn workload(con: &mut Connection) {
        let t = server_time_ms(con);
        ok(con, &["ZADD", "k", &(t - 500_000).to_string(), "stale"]);
        for _ in 0..12 {
            hit_stacked(con, &["k", "COST", "2", "1000", "3", "300000", "7"]);
        }
        hit_stacked(
            con,
            &["big", "COST", "1500", "300000", "5000", "600000", "6000"],
        );
    }
    let (master, replicas) = master_and_replicas();
    workload(&mut master.connect());
    assert_eq!(assert_replicas_match(&master, &replicas).len(), 2);
    let server = aof_server();
    workload(&mut server.connect());
    assert_aof_replays_without_module(server);
}

#[test]
fn stacked_limits_fire_the_same_events() {
    let server = Server::start();
    let events = keyspace_events(&server, |con| {
        hit_stacked(con, &["k", "60000", "1", "120000", "5"]); // allowed
        hit_stacked(con, &["k", "60000", "1", "120000", "5"]); // refused
    });
    assert_eq!(
        event_pairs(&events),
        [("__keyevent@0__:zadd", "k"), ("__keyevent@0__:expire", "k")]
    );
}
