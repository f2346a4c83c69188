//! RECENT.* against a real redis-server with zkit loaded.

use crate::common::client::{ok, query, syntax_error};
use crate::common::data::{assert_errors_change_nothing, server_time_ms};
use crate::common::keyspace::keyspace_events;
use crate::common::replication::{
    aof_server, assert_aof_replays_without_module, assert_replicas_match, master_and_replicas,
};
use crate::common::Server;
use redis::Connection;

fn newest_first(con: &mut Connection, key: &str) -> Vec<String> {
    query(con, &["ZREVRANGE", key, "0", "-1"])
}

fn add(con: &mut Connection, words: &[&str]) -> i64 {
    let mut command = vec!["RECENT.ADD"];
    command.extend_from_slice(words);
    query(con, &command)
}

#[test]
fn recently_viewed_goods_walk_through() {
    // Keep the 60 most recent goods per member, deduplicated, for 30 days.
    let server = Server::start();
    let mut con = server.connect();
    let key = "MemberRecentGoods:66";
    let ttl = (60 * 60 * 24 * 30).to_string();
    for goods in ["3002", "3001", "3004", "3003"] {
        add(&mut con, &[key, "CAP", "60", "TTL", &ttl, "ITEMS", goods]);
    }
    assert_eq!(
        newest_first(&mut con, key),
        ["3003", "3004", "3001", "3002"]
    );
    // Viewing 3001 again moves it to the front; the list holds it once.
    assert_eq!(
        add(&mut con, &[key, "CAP", "60", "TTL", &ttl, "ITEMS", "3001"]),
        4
    );
    assert_eq!(
        newest_first(&mut con, key),
        ["3001", "3003", "3004", "3002"]
    );
    // Past 60 the oldest go.
    for goods in 0..70 {
        let size = add(
            &mut con,
            &[key, "CAP", "60", "TTL", &ttl, "ITEMS", &format!("g{goods}")],
        );
        assert_eq!(size, (5 + goods).min(60));
    }
    let list = newest_first(&mut con, key);
    assert_eq!(list.len(), 60);
    assert_eq!(list[0], "g69");
    assert_eq!(list[59], "g10");
    let pttl: i64 = query(&mut con, &["PTTL", key]);
    assert!(pttl > 0 && pttl <= 30 * 24 * 3600 * 1000, "{pttl}");
    // Paging is plain ZREVRANGE.
    let page: Vec<String> = query(&mut con, &["ZREVRANGE", key, "10", "12"]);
    assert_eq!(page, ["g59", "g58", "g57"]);
}

#[test]
fn scores_are_the_server_clock() {
    let server = Server::start();
    let mut con = server.connect();
    let before = server_time_ms(&mut con);
    add(&mut con, &["r", "ITEMS", "a"]);
    let after = server_time_ms(&mut con);
    let score: f64 = query(&mut con, &["ZSCORE", "r", "a"]);
    assert!(
        (before..=after).contains(&(score.floor() as i64)),
        "{before} <= {score} <= {after}"
    );
}

#[test]
fn views_in_one_call_or_one_millisecond_keep_their_order() {
    let server = Server::start();
    let mut con = server.connect();
    // Later arguments are later views, whatever their names.
    assert_eq!(add(&mut con, &["r", "ITEMS", "z", "y", "x"]), 3);
    assert_eq!(newest_first(&mut con, "r"), ["x", "y", "z"]);
    // A member given twice counts as its last view.
    assert_eq!(add(&mut con, &["r", "ITEMS", "a", "b", "a"]), 5);
    assert_eq!(newest_first(&mut con, "r"), ["a", "b", "x", "y", "z"]);
    // Hundreds of calls pipelined: many share a millisecond, none may tie.
    let mut pipe = redis::pipe();
    for i in (0..300).rev() {
        pipe.cmd("RECENT.ADD")
            .arg("p")
            .arg("ITEMS")
            .arg(format!("m{i:03}"));
    }
    let _: Vec<i64> = pipe.query(&mut con).unwrap();
    let expected: Vec<String> = (0..300).map(|i| format!("m{i:03}")).collect();
    assert_eq!(newest_first(&mut con, "p"), expected);
    let scores: Vec<(String, f64)> = query(&mut con, &["ZRANGE", "p", "0", "-1", "WITHSCORES"]);
    assert!(scores.windows(2).all(|w| w[0].1 < w[1].1));
}

#[test]
fn concurrent_viewers_keep_each_ones_order_and_the_cap() {
    let server = Server::start();
    let threads: Vec<_> = (0..6)
        .map(|t| {
            let mut con = server.connect();
            std::thread::spawn(move || {
                for i in 0..150 {
                    let member = format!("t{t}-{i:03}");
                    let size: i64 = query(
                        &mut con,
                        &["RECENT.ADD", "shared", "CAP", "100", "ITEMS", &member],
                    );
                    assert!((1..=100).contains(&size), "{size}");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let mut con = server.connect();
    let list = newest_first(&mut con, "shared");
    assert_eq!(list.len(), 100);
    // Each viewer's own views appear newest first, and each at most once.
    for t in 0..6 {
        let prefix = format!("t{t}-");
        let own: Vec<&String> = list.iter().filter(|m| m.starts_with(&prefix)).collect();
        let mut sorted = own.clone();
        sorted.sort();
        sorted.reverse();
        sorted.dedup();
        assert_eq!(own, sorted, "viewer {t}");
    }
    // The newest entry is the last view of whichever viewer finished last.
    assert!(list[0].ends_with("-149"), "{}", list[0]);
}

#[test]
fn ttl_is_refreshed_only_when_given() {
    let server = Server::start();
    let mut con = server.connect();
    add(&mut con, &["r", "TTL", "100", "ITEMS", "a"]);
    let first: i64 = query(&mut con, &["PEXPIRETIME", "r"]);
    assert!(first > 0);
    // No TTL: the existing expiry stays, as with a native ZADD.
    add(&mut con, &["r", "ITEMS", "b"]);
    let kept: i64 = query(&mut con, &["PEXPIRETIME", "r"]);
    assert_eq!(kept, first);
    add(&mut con, &["r", "TTL", "5000", "ITEMS", "c"]);
    let later: i64 = query(&mut con, &["PEXPIRETIME", "r"]);
    assert!(later >= first + 4_900_000, "{first} -> {later}");
    // Members that merely look like options are members, wherever they
    // stand after ITEMS and in any case: no cap, no TTL.
    assert_eq!(add(&mut con, &["o", "ITEMS", "CAP", "x", "TTL"]), 3);
    assert_eq!(newest_first(&mut con, "o"), ["TTL", "x", "CAP"]);
    assert_eq!(
        add(
            &mut con,
            &["o2", "ITEMS", "a", "cap", "2", "ttl", "60", "items"]
        ),
        6
    );
    assert_eq!(
        newest_first(&mut con, "o2"),
        ["items", "60", "ttl", "2", "cap", "a"]
    );
    assert_eq!(query::<i64>(&mut con, &["PTTL", "o2"]), -1);
}

#[test]
fn a_cap_below_the_members_given_keeps_the_newest() {
    let server = Server::start();
    let mut con = server.connect();
    assert_eq!(
        add(&mut con, &["r", "CAP", "2", "ITEMS", "a", "b", "c", "d"]),
        2
    );
    assert_eq!(newest_first(&mut con, "r"), ["d", "c"]);
    assert_eq!(add(&mut con, &["r", "CAP", "1", "ITEMS", "e"]), 1);
    assert_eq!(newest_first(&mut con, "r"), ["e"]);
}

#[test]
fn errors_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    add(&mut con, &["r", "TTL", "600", "ITEMS", "a", "b"]);
    ok(&mut con, &["SET", "str", "x"]);
    ok(&mut con, &["ZADD", "forever", "inf", "x"]);
    let usage = "RECENT.ADD key [CAP cap] [TTL seconds] ITEMS member [member ...]";
    let syntax = |mistake: &str| syntax_error(mistake, usage);
    let missing_items = syntax("ITEMS is missing");
    let unexpected_c = syntax("unexpected 'c'");
    let cap_twice = syntax("CAP is given twice");
    let ttl_twice = syntax("TTL is given twice");
    let cases: &[(&[&str], &str)] = &[
        (&["RECENT.ADD", "str", "ITEMS", "a"], "WRONGTYPE"),
        (&["RECENT.ADD", "r"], "ERR wrong number of arguments"),
        (
            &["RECENT.ADD", "r", "CAP", "0", "ITEMS", "c"],
            "ERR cap must be a positive integer",
        ),
        (
            &["RECENT.ADD", "r", "CAP", "-3", "ITEMS", "c"],
            "ERR cap must be a positive integer",
        ),
        (
            &["RECENT.ADD", "r", "CAP", "x", "ITEMS", "c"],
            "ERR value is not an integer",
        ),
        (
            &["RECENT.ADD", "r", "CAP", "1.5", "ITEMS", "c"],
            "ERR value is not an integer",
        ),
        (
            &["RECENT.ADD", "r", "TTL", "0", "ITEMS", "c"],
            "ERR TTL must be between 1 and",
        ),
        (
            &["RECENT.ADD", "r", "TTL", "-1", "ITEMS", "c"],
            "ERR TTL must be between 1 and",
        ),
        (
            &[
                "RECENT.ADD",
                "r",
                "TTL",
                "9223372036854775807",
                "ITEMS",
                "c",
            ],
            "ERR TTL must be between 1 and",
        ),
        (
            &["RECENT.ADD", "r", "TTL", "3155760001", "ITEMS", "c"],
            "ERR TTL must be between 1 and",
        ),
        (
            &["RECENT.ADD", "r", "TTL", "nan", "ITEMS", "c"],
            "ERR value is not an integer",
        ),
        (
            &["RECENT.ADD", "r", "ITEMS"],
            &syntax("ITEMS needs at least one value"),
        ),
        (&["RECENT.ADD", "r", "CAP", "5"], &missing_items),
        (&["RECENT.ADD", "r", "CAP", "5", "c"], &unexpected_c),
        // The 0.2 form, members first, is refused with the 0.3 usage.
        (&["RECENT.ADD", "r", "c", "d"], &unexpected_c),
        (&["RECENT.ADD", "r", "c", "CAP", "5"], &unexpected_c),
        (&["RECENT.ADD", "r", "c", "d", "TTL", "60"], &unexpected_c),
        (
            &["RECENT.ADD", "r", "CAP", "5", "CAP", "6", "ITEMS", "c"],
            &cap_twice,
        ),
        (
            &[
                "RECENT.ADD",
                "r",
                "TTL",
                "5",
                "CAP",
                "6",
                "TTL",
                "5",
                "ITEMS",
                "c",
            ],
            &ttl_twice,
        ),
        (
            &["RECENT.ADD", "forever", "ITEMS", "y"],
            "ERR the list's newest score inf leaves no room for a later view",
        ),
    ];
    assert_errors_change_nothing(&mut con, cases);
}

#[test]
fn writes_replicate_as_native_commands_to_replicas_with_and_without_zkit() {
    let (master, replicas) = master_and_replicas();
    let mut con = master.connect();
    for i in 0..120 {
        let member = format!("item{}", i % 37);
        add(
            &mut con,
            &["r1", "CAP", "20", "TTL", "3600", "ITEMS", &member],
        );
        add(&mut con, &["r2", "ITEMS", &member, "x", &member]);
    }
    // Same-millisecond views run ahead of the clock: replicas get the scores.
    let mut pipe = redis::pipe();
    for i in 0..50 {
        pipe.cmd("RECENT.ADD")
            .arg("r3")
            .arg("CAP")
            .arg(30)
            .arg("ITEMS")
            .arg(i);
    }
    let _: Vec<i64> = pipe.query(&mut con).unwrap();
    // One call adding more than a replication chunk, then trimming most.
    let mut many: Vec<String> = ["r4", "CAP", "700", "ITEMS"].map(String::from).into();
    many.extend((0..1500).map(|i| format!("m{i}")));
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    assert_eq!(add(&mut con, &many), 700);
    assert!(query::<i64>(&mut con, &["PEXPIRETIME", "r1"]) > 0);
    assert_eq!(assert_replicas_match(&master, &replicas).len(), 4);
}

#[test]
fn aof_replays_on_a_server_without_zkit() {
    let server = aof_server();
    let mut con = server.connect();
    for i in 0..40 {
        add(
            &mut con,
            &[
                "r",
                "CAP",
                "8",
                "TTL",
                "3600",
                "ITEMS",
                &format!("m{}", i % 13),
                "x",
            ],
        );
    }
    drop(con);
    assert_aof_replays_without_module(server);
}

#[test]
fn writes_fire_the_native_keyspace_events() {
    let server = Server::start();
    let events = keyspace_events(&server, |con| {
        add(con, &["r", "ITEMS", "a", "b"]);
        add(con, &["r", "CAP", "2", "TTL", "60", "ITEMS", "c"]);
    });
    let events: Vec<(&str, &str)> = events
        .iter()
        .map(|(c, k)| (c.as_str(), k.as_str()))
        .collect();
    assert_eq!(
        events,
        [
            ("__keyevent@0__:zadd", "r"),
            ("__keyevent@0__:zadd", "r"),
            ("__keyevent@0__:zrem", "r"),
            ("__keyevent@0__:expire", "r"),
        ]
    );
}
