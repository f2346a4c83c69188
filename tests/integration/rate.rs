//! RATE.* against a real redis-server with zkit loaded.

use std::collections::HashSet;
use std::time::Duration;

use crate::common::client::{ok, query, syntax_error};
use crate::common::data::{
    assert_errors_change_nothing, db_snapshot, expiry_snapshot, server_time_ms,
    wait_until_server_time,
};
use crate::common::keyspace::{event_pairs, keyspace_events};
use crate::common::replication::{
    aof_server, assert_aof_replays_without_module, assert_replicas_match, master_and_replicas,
};
use crate::common::{info_value, wait_for, Server};
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
    let cost = "ERR cost must not be 0";
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
        (
            &["RATE.HIT", "k", "COST", "0", "1000", "5", "60000", "9"],
            cost,
        ),
        (
            &["RATE.HIT", "k", "COST", "1.5", "1000", "5"],
            "ERR value is not an integer",
        ),
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
            &["RATE.HIT", "k", "COST", "0", "1000", "5", "60000", "2"],
            "ERR cost must not be 0",
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

// ---- peeks, over-limit costs and refunds ------------------------------------

/// RATE.PEEK with `words` after the command name.
fn peek<T: redis::FromRedisValue>(con: &mut Connection, words: &[&str]) -> T {
    let mut command = vec!["RATE.PEEK"];
    command.extend_from_slice(words);
    query(con, &command)
}

#[test]
fn a_peek_answers_what_a_hit_would_and_spends_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    let key = "user:1000:report";
    // On an absent log: a hit would pass, and no key is made.
    assert_eq!(
        peek::<Verdict>(&mut con, &[key, "60000", "3"]),
        (1, 1, 2, -1)
    );
    assert_eq!(query::<i64>(&mut con, &["EXISTS", key]), 0);
    assert_eq!(hit(&mut con, &[key, "60000", "3"]), (1, 1, 2, -1));
    // A stale entry for a hit to drop, which a peek leaves where it is.
    let t = server_time_ms(&mut con);
    ok(
        &mut con,
        &["ZADD", key, &(t - 120_000).to_string(), "stale"],
    );
    let snapshot = db_snapshot(&mut con);
    let expiry = expiry_snapshot(&mut con);
    assert_eq!(
        peek::<Verdict>(&mut con, &[key, "COST", "2", "60000", "3"]),
        (1, 3, 0, -1)
    );
    let (allowed, count, remaining, retry) =
        peek::<Verdict>(&mut con, &[key, "COST", "3", "60000", "3"]);
    assert_eq!((allowed, count, remaining), (0, 1, 2));
    assert!((1..=60_000).contains(&retry), "{retry}");
    // Several limits: the same fifth element as a hit's.
    let stacked: Stacked = peek(&mut con, &[key, "COST", "2", "60000", "3", "1000", "1"]);
    assert_eq!((stacked.0, stacked.4), (0, 2));
    assert_eq!(db_snapshot(&mut con), snapshot, "a peek writes nothing");
    assert_eq!(expiry_snapshot(&mut con), expiry);
    // The hit it forecast gets the same answer (a minute's window: the
    // milliseconds between them change nothing).
    assert_eq!(
        hit(&mut con, &[key, "COST", "2", "60000", "3"]),
        (1, 3, 0, -1)
    );
    assert_eq!(peek::<Verdict>(&mut con, &[key, "60000", "3"]).0, 0);
}

#[test]
fn a_peek_is_a_read_that_replicas_answer() {
    let (master, replicas) = master_and_replicas();
    let mut con = master.connect();
    hit(&mut con, &["k", "60000", "2"]);
    master.wait_for_replicas(replicas.len());
    let mut replica = replicas[0].connect();
    let (allowed, count, remaining, _) = peek::<Verdict>(&mut replica, &["k", "60000", "2"]);
    assert_eq!((allowed, count, remaining), (1, 2, 0));
    let refused = crate::common::client::err(&mut replica, &["RATE.HIT", "k", "60000", "2"]);
    assert!(refused.starts_with("READONLY"), "{refused}");
}

#[test]
fn a_cost_above_the_limit_is_refused_and_never_fits() {
    let server = Server::start();
    let mut con = server.connect();
    // The library keeps no INFO counters.
    let counted = !crate::common::functions_engine();
    let refused = |con: &mut Connection| -> i64 {
        let text = info_value(con, "zkit", "zkit_rate_hits_refused");
        text.parse().unwrap()
    };
    let refused_before = if counted { refused(&mut con) } else { 0 };
    // Refused on an empty log, nothing written: no wait lets it pass.
    assert_eq!(
        hit(&mut con, &["up", "COST", "12", "60000", "10"]),
        (0, 0, 10, -1)
    );
    assert_eq!(query::<i64>(&mut con, &["EXISTS", "up"]), 0);
    hit(&mut con, &["up", "COST", "4", "60000", "10"]);
    assert_eq!(
        hit(&mut con, &["up", "COST", "11", "60000", "10"]),
        (0, 4, 6, -1)
    );
    // The limit the cost is above binds, before one that only waits.
    hit(&mut con, &["two", "COST", "2", "60000", "2"]);
    let stacked: Stacked = rate_hit(
        &mut con,
        &[
            "two", "COST", "3", "60000", "2", "3600000", "100", "1000", "2",
        ],
    );
    assert_eq!(stacked, (0, 2, 0, -1, 1));
    let stacked: Stacked = rate_hit(
        &mut con,
        &[
            "two", "COST", "3", "60000", "5", "3600000", "100", "1000", "2",
        ],
    );
    assert_eq!(stacked, (0, 2, 0, -1, 3));
    assert_eq!(query::<i64>(&mut con, &["ZCARD", "two"]), 2);
    // RATE.PEEK answers the same.
    assert_eq!(
        peek::<Verdict>(&mut con, &["up", "COST", "11", "60000", "10"]),
        (0, 4, 6, -1)
    );
    // With IDMP the refused hit is not remembered: a retry within the limit passes.
    let idmp = ["IDMP", "seen", "e1"];
    let first: Vec<i64> = rate_hit(
        &mut con,
        &[&["idem", "COST", "3"][..], &idmp, &["60000", "2"]].concat(),
    );
    assert_eq!(first, [0, 0, 2, -1, 1, 0]);
    if counted {
        let counted_now = refused(&mut con) - refused_before;
        assert_eq!(counted_now, 5, "each counted as a refused hit");
    }
}

#[test]
fn refunds_give_back_the_newest_units() {
    let server = Server::start();
    let mut con = server.connect();
    let key = "user:1000:api";
    let t = server_time_ms(&mut con);
    for (score, member) in [
        (t - 120_000, "gone"),
        (t - 50_000, "old"),
        (t - 40_000, "mid"),
        (t - 1_000, "new"),
    ] {
        ok(&mut con, &["ZADD", key, &score.to_string(), member]);
    }
    ok(&mut con, &["PEXPIRE", key, "90000"]);
    let expiry = expiry_snapshot(&mut con);
    // The two newest go, and the entry that left the window; the TTL stays.
    assert_eq!(
        hit(&mut con, &[key, "COST", "-2", "60000", "5"]),
        (1, 1, 4, -1)
    );
    assert_eq!(
        query::<Vec<String>>(&mut con, &["ZRANGE", key, "0", "-1"]),
        ["old"]
    );
    assert_eq!(expiry_snapshot(&mut con), expiry);
    // More than the log holds: empty, never below (the key is gone).
    assert_eq!(
        hit(&mut con, &[key, "COST", "-10", "60000", "5"]),
        (1, 0, 5, -1)
    );
    assert_eq!(query::<i64>(&mut con, &["EXISTS", key]), 0);
    assert_eq!(
        hit(&mut con, &[key, "COST", "-1", "60000", "5"]),
        (1, 0, 5, -1)
    );
    assert_eq!(query::<i64>(&mut con, &["EXISTS", key]), 0);
    // A refused hit passes once a unit is given back; among one hit's units
    // the last name in byte order goes first.
    assert_eq!(hit(&mut con, &["k", "COST", "3", "60000", "3"]).0, 1);
    assert_eq!(hit(&mut con, &["k", "60000", "3"]).0, 0);
    let names: Vec<String> = query(&mut con, &["ZRANGE", "k", "0", "-1"]);
    let stacked: Stacked = rate_hit(&mut con, &["k", "COST", "-1", "60000", "3", "1000", "5"]);
    assert_eq!(stacked, (1, 2, 1, -1, 1));
    assert_eq!(
        query::<Vec<String>>(&mut con, &["ZRANGE", "k", "0", "-1"]),
        names[..2]
    );
    assert_eq!(hit(&mut con, &["k", "60000", "3"]), (1, 3, 0, -1));
    // With IDMP a repeated refund gives nothing back again.
    let refund = ["k", "COST", "-1", "IDMP", "seen", "r1", "60000", "3"];
    assert_eq!(rate_hit::<Vec<i64>>(&mut con, &refund), [1, 2, 1, -1, 1, 0]);
    assert_eq!(rate_hit::<Vec<i64>>(&mut con, &refund), [1, 2, 1, -1, 1, 1]);
    assert_eq!(query::<i64>(&mut con, &["ZCARD", "k"]), 2);
}

#[test]
fn peek_errors_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    hit(&mut con, &["k", "60000", "5"]);
    ok(&mut con, &["SET", "str", "x"]);
    ok(
        &mut con,
        &["ZADD", "board", "10.5", "bob", "12.25", "alice"],
    );
    let usage = "RATE.PEEK key [COST cost] window-ms limit [window-ms limit ...]";
    let cost = "ERR cost must be at least 1";
    let cases: &[(&[&str], &str)] = &[
        (&["RATE.PEEK", "str", "1000", "5"], "WRONGTYPE"),
        (
            &["RATE.PEEK", "board", "1000", "5"],
            "WRONGTYPE the key looks like a RANK board",
        ),
        (&["RATE.PEEK", "k", "1000"], "ERR wrong number of arguments"),
        (
            &["RATE.PEEK", "k", "0", "5"],
            "ERR window must be between 1 and 3155760000000 ms",
        ),
        (
            &["RATE.PEEK", "k", "1000", "1000001"],
            "ERR limit must be between 1 and 1000000",
        ),
        (&["RATE.PEEK", "k", "COST", "0", "1000", "5"], cost),
        (&["RATE.PEEK", "k", "COST", "-2", "1000", "5"], cost),
        (
            &["RATE.PEEK", "k", "COST", "x", "1000", "5"],
            "ERR value is not an integer",
        ),
        (
            &["RATE.PEEK", "k", "1000", "5", "2000"],
            &syntax_error("values come in groups of 'window-ms limit'", usage),
        ),
        // A peek takes no IDMP: its words read as limits.
        (
            &["RATE.PEEK", "k", "IDMP", "seen", "e1", "1000", "5"],
            &syntax_error("values come in groups of 'window-ms limit'", usage),
        ),
    ];
    assert_errors_change_nothing(&mut con, cases);
}

#[test]
fn refunds_and_refused_costs_replicate_and_replay_without_zkit() {
    fn workload(con: &mut Connection) {
        let t = server_time_ms(con);
        ok(con, &["ZADD", "k", &(t - 500_000).to_string(), "stale"]);
        for cost in ["3", "-1", "9", "2", "-2", "1", "-20"] {
            hit_stacked(con, &["k", "COST", cost, "1000", "4", "300000", "7"]);
        }
        hit(con, &["big", "COST", "1500", "300000", "5000"]);
        hit(con, &["big", "COST", "-1400", "300000", "5000"]);
    }
    let (master, replicas) = master_and_replicas();
    workload(&mut master.connect());
    assert_eq!(assert_replicas_match(&master, &replicas).len(), 1);
    let server = aof_server();
    workload(&mut server.connect());
    assert_aof_replays_without_module(server);
}

#[test]
fn refunds_fire_the_native_keyspace_events() {
    let server = Server::start();
    let events = keyspace_events(&server, |con| {
        hit(con, &["k", "COST", "2", "60000", "5"]); // zadd, expire
        hit(con, &["k", "COST", "-1", "60000", "5"]); // zrem
        hit(con, &["k", "COST", "-5", "60000", "5"]); // zrem, del
        hit(con, &["k", "COST", "9", "60000", "5"]); // refused: nothing
        hit(con, &["k", "COST", "-1", "60000", "5"]); // nothing to give back
    });
    assert_eq!(
        event_pairs(&events),
        [
            ("__keyevent@0__:zadd", "k"),
            ("__keyevent@0__:expire", "k"),
            ("__keyevent@0__:zrem", "k"),
            ("__keyevent@0__:zrem", "k"),
            ("__keyevent@0__:del", "k"),
        ]
    );
}

// ---- concurrency limits -----------------------------------------------------

/// `[acquired, held, remaining, retry-after-ms, token]`
type Acquired = (i64, i64, i64, i64, i64);

fn acquire(con: &mut Connection, key: &str, holder: &str, lease_ms: &str, limit: &str) -> Acquired {
    query(con, &["RATE.ACQUIRE", key, holder, lease_ms, limit])
}

fn release(con: &mut Connection, key: &str, holder: &str, token: Option<i64>) -> i64 {
    let token = token.map(|t| t.to_string());
    let mut call = vec!["RATE.RELEASE", key, holder];
    if let Some(token) = &token {
        call.extend(["TOKEN", token]);
    }
    query(con, &call)
}

#[test]
fn at_most_two_exports_at_once_each_until_released() {
    let server = Server::start();
    let mut con = server.connect();
    let key = "exports:acme";
    let before = server_time_ms(&mut con);
    let (acquired, held, remaining, retry, first) = acquire(&mut con, key, "req:17", "30000", "2");
    assert_eq!((acquired, held, remaining, retry), (1, 1, 1, -1));
    // The token is the lease's end: the holder's score, and the key's expiry.
    let after = server_time_ms(&mut con);
    assert!(
        (before + 30_000..=after + 30_000).contains(&first),
        "{first}"
    );
    assert_eq!(query::<i64>(&mut con, &["ZSCORE", key, "req:17"]), first);
    assert_eq!(query::<i64>(&mut con, &["PEXPIRETIME", key]), first);
    let second = acquire(&mut con, key, "req:18", "60000", "2");
    assert_eq!((second.0, second.1, second.2), (1, 2, 0));
    assert_eq!(
        query::<i64>(&mut con, &["PEXPIRETIME", key]),
        second.4,
        "until the last lease ends"
    );
    // Full: refused until req:17's lease ends, nothing written.
    let snapshot = db_snapshot(&mut con);
    let (acquired, held, remaining, retry, token) = acquire(&mut con, key, "req:19", "30000", "2");
    assert_eq!((acquired, held, remaining, token), (0, 2, 0, -1));
    let now = server_time_ms(&mut con);
    assert!((first - now..=30_000).contains(&retry), "{retry}");
    assert_eq!(db_snapshot(&mut con), snapshot);
    // Asking again renews: the same slot, a new token.
    let renewed = acquire(&mut con, key, "req:17", "40000", "2");
    assert_eq!((renewed.0, renewed.1, renewed.2), (1, 2, 0));
    assert!(renewed.4 > first, "{renewed:?}");
    // The old token no longer names the lease; the new one does.
    assert_eq!(release(&mut con, key, "req:17", Some(first)), 0);
    assert_eq!(release(&mut con, key, "req:17", Some(renewed.4)), 1);
    assert_eq!(release(&mut con, key, "req:17", None), 0);
    assert_eq!(release(&mut con, key, "nobody", None), 0);
    assert_eq!(acquire(&mut con, key, "req:19", "30000", "2").0, 1);
    // Released without a token, whichever lease it is.
    assert_eq!(release(&mut con, key, "req:19", None), 1);
    assert_eq!(release(&mut con, key, "req:18", None), 1);
    assert_eq!(
        query::<i64>(&mut con, &["EXISTS", key]),
        0,
        "gone with its last holder"
    );
}

#[test]
fn an_ended_lease_frees_its_slot_and_its_stale_holder_releases_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    let key = "slow-backend";
    let (_, _, _, _, stale) = acquire(&mut con, key, "a", "300", "1");
    let (acquired, _, _, retry, _) = acquire(&mut con, key, "b", "60000", "1");
    assert_eq!(acquired, 0);
    assert!((1..=300).contains(&retry), "{retry}");
    // a stalls past its lease: its slot is free once the lease ended, and
    // a's late release changes nothing, before b takes the slot or after.
    wait_until_server_time(&mut con, stale);
    assert_eq!(release(&mut con, key, "a", None), 0);
    assert_eq!(release(&mut con, key, "a", Some(stale)), 0);
    let (acquired, held, _, _, b_token) = acquire(&mut con, key, "b", "60000", "1");
    assert_eq!((acquired, held), (1, 1));
    assert_eq!(
        query::<Vec<String>>(&mut con, &["ZRANGE", key, "0", "-1"]),
        ["b"]
    );
    assert_eq!(release(&mut con, key, "a", Some(stale)), 0);
    assert_eq!(release(&mut con, key, "a", None), 0);
    assert_eq!(query::<i64>(&mut con, &["ZSCORE", key, "b"]), b_token);
    // The same id acquiring again after its lease ended gets another
    // token; the stale one still releases nothing.
    let (_, _, _, _, old) = acquire(&mut con, "solo", "w", "200", "1");
    wait_until_server_time(&mut con, old);
    let (acquired, _, _, _, new) = acquire(&mut con, "solo", "w", "60000", "1");
    assert_eq!(acquired, 1);
    assert!(new > old);
    assert_eq!(release(&mut con, "solo", "w", Some(old)), 0);
    assert_eq!(query::<i64>(&mut con, &["ZSCORE", "solo", "w"]), new);
}

#[test]
fn concurrent_holders_never_exceed_the_limit() {
    use std::sync::atomic::{AtomicI64, Ordering};
    use std::sync::Arc;
    let server = Server::start();
    let inside = Arc::new(AtomicI64::new(0));
    let most = Arc::new(AtomicI64::new(0));
    let threads: Vec<_> = (0..8)
        .map(|thread| {
            let mut con = server.connect();
            let (inside, most) = (inside.clone(), most.clone());
            std::thread::spawn(move || {
                let mut served = 0;
                for i in 0..40 {
                    let holder = format!("t{thread}:{i}");
                    let (acquired, held, _, _, token) =
                        acquire(&mut con, "backend", &holder, "600000", "3");
                    assert!(held <= 3, "{held} held");
                    if acquired == 0 {
                        continue;
                    }
                    // Counted only while the server counts this holder.
                    let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    inside.fetch_sub(1, Ordering::SeqCst);
                    assert_eq!(release(&mut con, "backend", &holder, Some(token)), 1);
                    served += 1;
                }
                served
            })
        })
        .collect();
    let served: i64 = threads.into_iter().map(|t| t.join().unwrap()).sum();
    assert!(served >= 3, "{served} served");
    assert!(most.load(Ordering::SeqCst) <= 3);
    let mut con = server.connect();
    assert_eq!(query::<i64>(&mut con, &["EXISTS", "backend"]), 0);
}

#[test]
fn a_lowered_limit_waits_for_the_leases_beyond_it() {
    let server = Server::start();
    let mut con = server.connect();
    let tokens: Vec<i64> = ["a", "b", "c"]
        .iter()
        .zip(["10000", "20000", "30000"])
        .map(|(holder, lease)| acquire(&mut con, "k", holder, lease, "3").4)
        .collect();
    // At most 2 now: two of the three leases must end first, b's the
    // later; at most 1: all three, c's the last.
    let now = server_time_ms(&mut con);
    let (acquired, held, remaining, retry, _) = acquire(&mut con, "k", "d", "1000", "2");
    assert_eq!((acquired, held, remaining), (0, 3, 0));
    assert!(
        (tokens[1] - now - 1_000..=tokens[1] - now).contains(&retry),
        "{retry}"
    );
    let (_, _, _, retry, _) = acquire(&mut con, "k", "d", "1000", "1");
    assert!(
        (tokens[2] - now - 1_000..=tokens[2] - now).contains(&retry),
        "{retry}"
    );
    // The holders keep their slots, renewals included.
    assert_eq!(acquire(&mut con, "k", "c", "30000", "1").0, 1);
}

#[test]
fn acquire_errors_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    acquire(&mut con, "k", "a", "60000", "5");
    ok(&mut con, &["SET", "str", "x"]);
    ok(
        &mut con,
        &["ZADD", "board", "10.5", "bob", "12.25", "alice"],
    );
    let lease = "ERR lease must be between 1 and 3155760000000 ms";
    let limit = "ERR limit must be between 1 and 1000000";
    let integer = "ERR value is not an integer";
    let release_usage = "RATE.RELEASE key holder [TOKEN token]";
    let cases: &[(&[&str], &str)] = &[
        (&["RATE.ACQUIRE", "str", "a", "1000", "5"], "WRONGTYPE"),
        (
            &["RATE.ACQUIRE", "board", "a", "1000", "5"],
            "WRONGTYPE the key looks like a RANK board",
        ),
        (
            &["RATE.ACQUIRE", "k", "a", "1000"],
            "ERR wrong number of arguments",
        ),
        (&["RATE.ACQUIRE", "k", "a", "0", "5"], lease),
        (&["RATE.ACQUIRE", "k", "a", "-1", "5"], lease),
        (&["RATE.ACQUIRE", "k", "a", "3155760000001", "5"], lease),
        (&["RATE.ACQUIRE", "k", "a", "1.5", "5"], integer),
        (&["RATE.ACQUIRE", "k", "a", "1000", "0"], limit),
        (&["RATE.ACQUIRE", "k", "a", "1000", "1000001"], limit),
        (&["RATE.ACQUIRE", "k", "a", "1000", "x"], integer),
        (
            &["RATE.ACQUIRE", "k", "a", "1000", "5", "6"],
            "ERR wrong number of arguments",
        ),
        (&["RATE.RELEASE", "str", "a"], "WRONGTYPE"),
        (&["RATE.RELEASE", "k"], "ERR wrong number of arguments"),
        (&["RATE.RELEASE", "k", "a", "TOKEN", "x"], integer),
        (
            &["RATE.RELEASE", "k", "a", "TOKEN"],
            &syntax_error("TOKEN is missing a value", release_usage),
        ),
        (
            &["RATE.RELEASE", "k", "a", "LEASE", "5"],
            &syntax_error("unexpected 'LEASE'", release_usage),
        ),
        (
            &["RATE.RELEASE", "k", "a", "TOKEN", "1", "TOKEN", "2"],
            &syntax_error("TOKEN is given twice", release_usage),
        ),
    ];
    assert_errors_change_nothing(&mut con, cases);
}

#[test]
fn holder_sets_replicate_and_replay_without_zkit() {
    fn workload(con: &mut Connection) {
        let t = server_time_ms(con);
        ok(con, &["ZADD", "k", &(t - 5_000).to_string(), "ended"]);
        for (holder, lease) in [
            ("a", "300000"),
            ("b", "300000"),
            ("c", "300000"),
            ("a", "400000"),
        ] {
            acquire(con, "k", holder, lease, "2");
        }
        release(con, "k", "b", None);
        let (_, _, _, _, token) = acquire(con, "k", "c", "300000", "2");
        release(con, "k", "c", Some(token));
        acquire(con, "gone", "x", "300000", "1");
        release(con, "gone", "x", None);
    }
    let (master, replicas) = master_and_replicas();
    workload(&mut master.connect());
    assert_eq!(assert_replicas_match(&master, &replicas).len(), 1);
    let server = aof_server();
    workload(&mut server.connect());
    assert_aof_replays_without_module(server);
}

#[test]
fn holder_sets_fire_the_native_keyspace_events() {
    let server = Server::start();
    let mut con = server.connect();
    let t = server_time_ms(&mut con);
    ok(&mut con, &["ZADD", "k", &(t - 1_000).to_string(), "ended"]);
    let events = keyspace_events(&server, |con| {
        acquire(con, "k", "a", "60000", "1"); // adds, then drops the ended lease
        acquire(con, "k", "b", "60000", "1"); // refused: nothing
        release(con, "k", "b", None); // not held: nothing
        release(con, "k", "a", None); // the last holder
    });
    assert_eq!(
        event_pairs(&events),
        [
            ("__keyevent@0__:zadd", "k"),
            ("__keyevent@0__:zremrangebyscore", "k"),
            ("__keyevent@0__:expire", "k"),
            ("__keyevent@0__:zrem", "k"),
            ("__keyevent@0__:del", "k"),
        ]
    );
}
