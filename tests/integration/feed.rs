//! FEED.* against a real redis-server with zkit loaded.

use std::collections::{BTreeMap, HashSet};

use crate::common::client::{err, ok, query};
use crate::common::data::{assert_errors_change_nothing, db_snapshot, zset_dump};
use crate::common::keyspace::{event_pairs, keyspace_events, watch_survives};
use crate::common::replication::{aof_server, assert_aof_replays_without_module};
use crate::common::{Server, ServerConfig};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use redis::{Connection, Value};

/// One FEED.PAGE reply.
#[derive(Debug, Clone, PartialEq)]
struct Page {
    /// (member, score), newest first.
    items: Vec<(Vec<u8>, f64)>,
    top: Option<Vec<u8>>,
    bottom: Option<Vec<u8>>,
    more: bool,
}

impl Page {
    fn members(&self) -> Vec<String> {
        self.items.iter().map(|(m, _)| lossy(m)).collect()
    }

    fn top(&self) -> &[u8] {
        self.top.as_deref().expect("a top cursor")
    }

    fn bottom(&self) -> &[u8] {
        self.bottom.as_deref().expect("a bottom cursor")
    }
}

/// Which page to ask for.
#[derive(Clone, Copy, Debug)]
enum Start<'a> {
    Newest,
    Newer(&'a [u8]),
    Older(&'a [u8]),
}

fn page(con: &mut Connection, key: &str, count: usize, from: Start) -> Page {
    let mut cmd = redis::cmd("FEED.PAGE");
    cmd.arg(key).arg("COUNT").arg(count);
    match from {
        Start::Newest => {}
        Start::Newer(cursor) => {
            cmd.arg("NEWER").arg(cursor);
        }
        Start::Older(cursor) => {
            cmd.arg("OLDER").arg(cursor);
        }
    }
    let reply: Value = cmd
        .query(con)
        .unwrap_or_else(|e| panic!("FEED.PAGE {key} {from:?}: {e}"));
    parse_page(reply)
}

fn lossy(member: &[u8]) -> String {
    String::from_utf8_lossy(member).into_owned()
}

/// Pulls pages one way from `cursor` until more = 0 and returns the members
/// in the order the walk meets them (closest to the cursor first) and the
/// last page. A walk that does not end within the feed's size in pages
/// fails rather than loops.
fn drain(
    con: &mut Connection,
    key: &str,
    count: usize,
    cursor: &[u8],
    newer: bool,
) -> (Vec<String>, Page) {
    let len: usize = query(con, &["ZCARD", key]);
    let mut cursor = cursor.to_vec();
    let mut met = Vec::new();
    for _ in 0..=len {
        let from = if newer {
            Start::Newer(&cursor)
        } else {
            Start::Older(&cursor)
        };
        let next = page(con, key, count, from);
        let mut members = next.members();
        if newer {
            members.reverse();
            cursor = next.top().to_vec();
        } else {
            cursor = next.bottom().to_vec();
        }
        met.extend(members);
        if !next.more {
            return (met, next);
        }
    }
    panic!("the walk did not end within {len} pages: {met:?}");
}

fn parse_page(reply: Value) -> Page {
    let Value::Array(parts) = reply else {
        panic!("page is not an array: {reply:?}")
    };
    let [Value::Array(flat), top, bottom, Value::Int(more)] = &parts[..] else {
        panic!("page is not [items, top, bottom, more]: {parts:?}")
    };
    let cursor = |v: &Value| match v {
        Value::Nil => None,
        Value::BulkString(b) => Some(b.clone()),
        other => panic!("cursor is not a bulk string or nil: {other:?}"),
    };
    assert!(flat.len() % 2 == 0, "items are not member/score pairs");
    let items = flat
        .chunks(2)
        .map(|pair| match pair {
            [Value::BulkString(m), Value::BulkString(s)] => {
                let text = std::str::from_utf8(s).unwrap();
                (m.clone(), text.parse::<f64>().unwrap())
            }
            other => panic!("not a member/score pair: {other:?}"),
        })
        .collect();
    assert!(*more == 0 || *more == 1, "more is {more}");
    Page {
        items,
        top: cursor(top),
        bottom: cursor(bottom),
        more: *more == 1,
    }
}

fn feed_add(con: &mut Connection, key: &str, cap: Option<usize>, pairs: &[(f64, &str)]) -> i64 {
    let mut cmd = redis::cmd("FEED.ADD");
    cmd.arg(key);
    if let Some(cap) = cap {
        cmd.arg("CAP").arg(cap);
    }
    for (score, member) in pairs {
        cmd.arg(score_text(*score)).arg(*member);
    }
    cmd.query(con)
        .unwrap_or_else(|e| panic!("FEED.ADD {key} {pairs:?}: {e}"))
}

/// A score as an argument Redis reads back exactly.
fn score_text(score: f64) -> String {
    if score.is_infinite() {
        if score > 0.0 { "+inf" } else { "-inf" }.to_string()
    } else {
        format!("{score:?}")
    }
}

fn strings(members: &[&str]) -> Vec<String> {
    members.iter().map(|m| m.to_string()).collect()
}

fn item(i: i64) -> String {
    format!("item:{i}")
}

fn items(scores: impl IntoIterator<Item = i64>) -> Vec<String> {
    scores.into_iter().map(item).collect()
}

/// A server that keeps small sorted sets as listpacks (the default) and one
/// that keeps every sorted set as a skiplist: the iterator walks both.
fn both_encodings() -> [ServerConfig; 2] {
    [
        ServerConfig::default(),
        ServerConfig::default().arg("zset-max-listpack-entries", "0"),
    ]
}

#[test]
fn waterfall_feed_walk_through() {
    let server = Server::start();
    let mut con = server.connect();
    let feed = "feed:user:7";
    // The article recommends items 100..=115 to the user, scored by id.
    for i in 100..=115 {
        assert_eq!(feed_add(&mut con, feed, None, &[(i as f64, &item(i))]), 1);
    }
    // First load: the newest five, and the two cursors.
    let first = page(&mut con, feed, 5, Start::Newest);
    assert_eq!(first.members(), items((111..=115).rev()));
    assert_eq!(first.items[0].1, 115.0);
    assert!(first.more, "older items remain");
    let (mut top, mut bottom) = (first.top().to_vec(), first.bottom().to_vec());

    // Meanwhile 116..=124 are recommended (more than one page of them) and
    // item 112, already shown, is removed: neither may disturb the walk.
    for i in 116..=124 {
        feed_add(&mut con, feed, None, &[(i as f64, &item(i))]);
    }
    ok(&mut con, &["ZREM", feed, &item(112)]);
    let mut seen: Vec<String> = first.members();

    // Pull-down: the five newer items closest to the top, newest first, and
    // more = 1 because 121..=124 are newer still.
    let down = page(&mut con, feed, 5, Start::Newer(&top));
    assert_eq!(down.members(), items((116..=120).rev()));
    assert!(down.more);
    top = down.top().to_vec();
    assert_eq!(
        down.bottom.as_deref(),
        Some(&b"f1:405d000000000000:6974656d3a313136"[..])
    );
    seen.extend(down.members());
    let down = page(&mut con, feed, 5, Start::Newer(&top));
    assert_eq!(down.members(), items((121..=124).rev()));
    assert!(!down.more);
    top = down.top().to_vec();
    seen.extend(down.members());
    // Nothing newer: an empty page that hands the cursor back.
    let none = page(&mut con, feed, 5, Start::Newer(&top));
    assert_eq!(
        none,
        Page {
            items: vec![],
            top: Some(top.clone()),
            bottom: Some(top.clone()),
            more: false
        }
    );

    // Pull-up to the end: 110..=100, five at a time, no repeat of 111.
    let up = page(&mut con, feed, 5, Start::Older(&bottom));
    assert_eq!(up.members(), items((106..=110).rev()));
    assert!(up.more);
    bottom = up.bottom().to_vec();
    seen.extend(up.members());
    let up = page(&mut con, feed, 5, Start::Older(&bottom));
    assert_eq!(up.members(), items((101..=105).rev()));
    assert!(up.more);
    bottom = up.bottom().to_vec();
    seen.extend(up.members());
    let up = page(&mut con, feed, 5, Start::Older(&bottom));
    assert_eq!(up.members(), items([100]));
    assert!(!up.more);
    seen.extend(up.members());

    // Every item once; the removed 112 had been shown before it went.
    let mut expected = items(100..=124);
    expected.sort();
    seen.sort();
    assert_eq!(seen, expected);

    // The article's own inclusive query repeats the cursor item.
    let inclusive: Vec<String> = query(&mut con, &["ZRANGEBYSCORE", feed, "115", "+inf"]);
    assert_eq!(inclusive[0], item(115));
}

#[test]
fn cursor_survives_deletion_and_rescoring_of_its_own_member() {
    let server = Server::start();
    let mut con = server.connect();
    for i in 1..=10 {
        feed_add(&mut con, "f", None, &[(i as f64, &item(i))]);
    }
    let first = page(&mut con, "f", 3, Start::Newest);
    assert_eq!(first.members(), items([10, 9, 8]));
    // The bottom item (8) and the top item (10) are deleted.
    ok(&mut con, &["ZREM", "f", &item(8), &item(10)]);
    let older = page(&mut con, "f", 3, Start::Older(first.bottom()));
    assert_eq!(older.members(), items([7, 6, 5]));
    feed_add(
        &mut con,
        "f",
        None,
        &[(11.0, &item(11)), (10.0, "item:10b"), (10.0, "item:0")],
    );
    // At the deleted top's score, "item:10b" sorts above it and "item:0" below.
    let newer = page(&mut con, "f", 3, Start::Newer(first.top()));
    assert_eq!(newer.members(), strings(&["item:11", "item:10b"]));
    // The bottom item is re-scored to the top: the old position still splits
    // the feed where it did, and pull-down shows the item in its new place.
    ok(&mut con, &["ZADD", "f", "20", &item(5)]);
    let older = page(&mut con, "f", 10, Start::Older(first.bottom()));
    assert_eq!(older.members(), items([7, 6, 4, 3, 2, 1]));
    let newer = page(&mut con, "f", 10, Start::Newer(&newer.top.clone().unwrap()));
    assert_eq!(newer.members(), items([5]));
    // A cursor also works on another key, or on a key that is gone.
    let elsewhere = page(&mut con, "nokey", 3, Start::Older(first.bottom()));
    assert_eq!(elsewhere.items, vec![]);
    assert_eq!(elsewhere.top.as_deref(), Some(first.bottom()));
    assert!(!elsewhere.more);
}

#[test]
fn a_member_rescored_lower_during_a_walk_shows_again_at_its_new_place() {
    // The guarantee docs/commands.md states: at most once per member while
    // its score is unchanged; a re-scored member may come back.
    let server = Server::start();
    let mut con = server.connect();
    feed_add(&mut con, "f", None, &[(3.0, "a"), (2.0, "b"), (1.0, "c")]);
    let first = page(&mut con, "f", 1, Start::Newest);
    assert_eq!(first.members(), strings(&["a"]));
    feed_add(&mut con, "f", None, &[(0.0, "a")]);
    let next = page(&mut con, "f", 10, Start::Older(first.bottom()));
    assert_eq!(next.members(), strings(&["b", "c", "a"]));
    assert_eq!(next.items[2], (b"a".to_vec(), 0.0));
}

#[test]
fn a_cursor_no_client_could_send_back_is_refused() {
    let server = Server::start();
    let mut con = server.connect();
    ok(
        &mut con,
        &["CONFIG", "SET", "proto-max-bulk-len", "1048576"],
    );
    // Its cursor would be 22 + 2 x 600,000 bytes, more than the 1 MiB a
    // request argument may have here.
    let long = "x".repeat(600_000);
    feed_add(
        &mut con,
        "f",
        None,
        &[(1.0, "short"), (2.0, &long), (3.0, "top")],
    );
    let e = err(&mut con, &["FEED.PAGE", "f", "COUNT", "2"]);
    assert_eq!(
        e,
        "ERR the cursor of a member of 600000 bytes would be 1200020 bytes, \
         more than proto-max-bulk-len (1048576) lets a client send back"
    );
    // Inside a page the member is fine; only the ends become cursors.
    let whole = page(&mut con, "f", 3, Start::Newest);
    assert_eq!(whole.members(), strings(&["top", &long, "short"]));
    ok(
        &mut con,
        &["CONFIG", "SET", "proto-max-bulk-len", "2000000"],
    );
    assert_eq!(
        page(&mut con, "f", 2, Start::Newest).members(),
        strings(&["top", &long])
    );
}

#[test]
fn fifty_members_with_one_score_page_eight_at_a_time() {
    for config in both_encodings() {
        let server = Server::with(config);
        let mut con = server.connect();
        let members: Vec<String> = (0..50).map(|i| format!("m{i:02}")).collect();
        let pairs: Vec<(f64, &str)> = members.iter().map(|m| (7.0, m.as_str())).collect();
        assert_eq!(feed_add(&mut con, "f", None, &pairs), 50);

        // Pull-up from the first page to the end: member descending.
        let first = page(&mut con, "f", 8, Start::Newest);
        let (older, last) = drain(&mut con, "f", 8, first.bottom(), false);
        let mut seen = first.members();
        seen.extend(older);
        let mut expected = members.clone();
        expected.reverse();
        assert_eq!(seen, expected);
        assert_eq!(last.items.len(), 2, "6 full pages of 8, then 2");

        // Pull-down from the oldest: the closest eight each time.
        let (newer, _) = drain(&mut con, "f", 8, last.bottom(), true);
        assert_eq!(newer, members[1..]);

        // Score-only cursors, as in the article: inclusive repeats the page,
        // exclusive skips the whole run.
        let repeat: Vec<String> = query(
            &mut con,
            &["ZREVRANGEBYSCORE", "f", "7", "-inf", "LIMIT", "0", "8"],
        );
        assert_eq!(repeat, first.members());
        let skip: Vec<String> = query(
            &mut con,
            &["ZREVRANGEBYSCORE", "f", "(7", "-inf", "LIMIT", "0", "8"],
        );
        assert!(skip.is_empty());

        // Equal-score inserts on both sides of a cursor in the middle.
        let first = page(&mut con, "f", 8, Start::Newest);
        assert_eq!(first.members().last().unwrap(), "m42");
        feed_add(
            &mut con,
            "f",
            None,
            &[(7.0, "m42a"), (7.0, "m41z"), (7.0, "m99")],
        );
        ok(&mut con, &["ZREM", "f", "m41"]);
        let next = page(&mut con, "f", 3, Start::Older(first.bottom()));
        assert_eq!(next.members(), strings(&["m41z", "m40", "m39"]));
        let newer = page(&mut con, "f", 8, Start::Newer(first.top()));
        assert_eq!(newer.members(), strings(&["m99"]));
    }
}

#[test]
fn extreme_scores_and_binary_members_keep_exact_positions() {
    for config in both_encodings() {
        let server = Server::with(config);
        let mut con = server.connect();
        let tiny = f64::from_bits(1); // the smallest subnormal
        feed_add(
            &mut con,
            "f",
            None,
            &[
                (f64::INFINITY, "up"),
                (f64::NEG_INFINITY, "down"),
                (-0.0, "negzero"),
                (0.0, "zero"),
                (tiny, "tiny"),
                (-tiny, "negtiny"),
                (0.1, "tenth"),
                (0.1, "tenth-too"),
            ],
        );
        let binary: &[u8] = b"\xff\x00\r\n ";
        let _: i64 = redis::cmd("ZADD")
            .arg("f")
            .arg("0")
            .arg(binary)
            .query(&mut con)
            .unwrap();
        let _: i64 = redis::cmd("ZADD")
            .arg("f")
            .arg("0")
            .arg("")
            .query(&mut con)
            .unwrap();
        let all = page(&mut con, "f", 100, Start::Newest);
        let expected: Vec<&[u8]> = vec![
            b"up",
            b"tenth-too",
            b"tenth",
            b"tiny",
            binary,
            b"zero",
            b"negzero",
            b"",
            b"negtiny",
            b"down",
        ];
        let got: Vec<&[u8]> = all.items.iter().map(|(m, _)| m.as_slice()).collect();
        assert_eq!(got, expected);
        assert_eq!(all.items[3].1.to_bits(), tiny.to_bits());
        assert_eq!(all.items[6].1, 0.0);
        // Walking one at a time visits every item once, in both directions.
        let first = page(&mut con, "f", 1, Start::Newest);
        let (older, last) = drain(&mut con, "f", 1, first.bottom(), false);
        let mut down = first.members();
        down.extend(older);
        assert_eq!(down, expected.iter().map(|m| lossy(m)).collect::<Vec<_>>());
        let (newer, _) = drain(&mut con, "f", 1, last.bottom(), true);
        let mut up = last.members();
        up.extend(newer);
        up.reverse();
        assert_eq!(up, down);
        // Cursors are printable, whatever the member holds.
        assert!(all.top().iter().all(u8::is_ascii_graphic));
    }
}

#[test]
fn scores_are_exact_text_in_resp2_and_doubles_in_resp3() {
    let server = Server::with(ServerConfig::default().arg("zset-max-listpack-entries", "0"));
    let mut con = server.connect();
    let scores = [
        (f64::INFINITY, "inf"),
        (1e300, "1e300"),
        (115.0, "115"),
        (0.1, "0.1"),
        (f64::from_bits(1), "5e-324"),
        (-0.0, "-0"),
        (-2.5, "-2.5"),
        (f64::NEG_INFINITY, "-inf"),
    ];
    let members: Vec<String> = (0..scores.len()).map(|i| format!("m{i}")).collect();
    let pairs: Vec<(f64, &str)> = scores
        .iter()
        .zip(&members)
        .map(|((score, _), member)| (*score, member.as_str()))
        .collect();
    feed_add(&mut con, "f", None, &pairs);
    // RESP2: the shortest text that reads back as the same double.
    let reply = ok(&mut con, &["FEED.PAGE", "f", "COUNT", "20"]);
    let texts: Vec<String> = raw_scores(&reply)
        .into_iter()
        .map(|v| match v {
            Value::BulkString(b) => String::from_utf8(b.clone()).unwrap(),
            other => panic!("score is not a bulk string: {other:?}"),
        })
        .collect();
    let expected: Vec<&str> = scores.iter().map(|(_, text)| *text).collect();
    assert_eq!(texts, expected);
    // RESP3: doubles, the same values.
    let client = redis::Client::open(format!("{}?protocol=resp3", server.url())).unwrap();
    let mut resp3 = client.get_connection().unwrap();
    let reply: Value = redis::cmd("FEED.PAGE")
        .arg("f")
        .arg("COUNT")
        .arg(20)
        .query(&mut resp3)
        .unwrap();
    let doubles: Vec<u64> = raw_scores(&reply)
        .into_iter()
        .map(|v| match v {
            Value::Double(d) => d.to_bits(),
            other => panic!("score is not a RESP3 double: {other:?}"),
        })
        .collect();
    let expected: Vec<u64> = scores.iter().map(|(score, _)| score.to_bits()).collect();
    assert_eq!(doubles, expected);
}

/// The scores of a page's items as the server sent them.
fn raw_scores(reply: &Value) -> Vec<&Value> {
    match reply {
        Value::Array(parts) => match &parts[0] {
            Value::Array(flat) => flat.iter().skip(1).step_by(2).collect(),
            other => panic!("items are not an array: {other:?}"),
        },
        other => panic!("page is not an array: {other:?}"),
    }
}

#[test]
fn add_counts_new_members_and_cap_trims_the_oldest_atomically() {
    let server = Server::start();
    let mut con = server.connect();
    assert_eq!(feed_add(&mut con, "f", None, &[(1.0, "a"), (2.0, "b")]), 2);
    // Re-scoring is not counted; a member given twice counts once, last score wins.
    assert_eq!(
        feed_add(&mut con, "f", None, &[(5.0, "a"), (3.0, "c"), (4.0, "c")]),
        1
    );
    assert_eq!(
        zset_dump(&mut con, "f"),
        vec![
            ("b".to_string(), "2".to_string()),
            ("c".to_string(), "4".to_string()),
            ("a".to_string(), "5".to_string())
        ]
    );
    // CAP keeps the n highest: the lowest (here the new "z" too) go.
    assert_eq!(
        feed_add(&mut con, "f", Some(3), &[(6.0, "d"), (0.5, "z")]),
        2
    );
    assert_eq!(
        query::<Vec<String>>(&mut con, &["ZRANGE", "f", "0", "-1"]),
        ["c", "a", "d"]
    );
    // Ties at the cut go by member, as ZRANGE orders them.
    feed_add(
        &mut con,
        "t",
        None,
        &[(1.0, "x"), (1.0, "y"), (1.0, "w"), (2.0, "v")],
    );
    assert_eq!(feed_add(&mut con, "t", Some(2), &[(1.0, "u")]), 1);
    assert_eq!(
        query::<Vec<String>>(&mut con, &["ZRANGE", "t", "0", "-1"]),
        ["y", "v"]
    );
    // A CAP larger than the feed removes nothing; CAP 1 keeps the newest.
    feed_add(&mut con, "f", Some(100), &[(7.0, "e")]);
    assert_eq!(query::<i64>(&mut con, &["ZCARD", "f"]), 4);
    feed_add(&mut con, "f", Some(1), &[(1.0, "old")]);
    assert_eq!(
        query::<Vec<String>>(&mut con, &["ZRANGE", "f", "0", "-1"]),
        ["e"]
    );
    // The keyword is case-insensitive and must come before the pairs.
    assert_eq!(
        query::<i64>(&mut con, &["FEED.ADD", "f", "cap", "2", "8", "g"]),
        1
    );
    assert_eq!(query::<i64>(&mut con, &["ZCARD", "f"]), 2);
    // The key stays a plain zset that native commands read.
    assert_eq!(query::<String>(&mut con, &["TYPE", "f"]), "zset");
}

#[test]
fn count_defaults_to_ten_and_is_bounded() {
    let server = Server::start();
    let mut con = server.connect();
    let members: Vec<String> = (0..1200).map(|i| format!("m{i:04}")).collect();
    for chunk in members.chunks(300) {
        let pairs: Vec<(f64, &str)> = chunk.iter().map(|m| (1.0, m.as_str())).collect();
        feed_add(&mut con, "f", None, &pairs);
    }
    let default = parse_page(ok(&mut con, &["FEED.PAGE", "f"]));
    assert_eq!(default.items.len(), 10);
    assert_eq!(default.members()[0], "m1199");
    assert!(default.more);
    let max = page(&mut con, "f", 1000, Start::Newest);
    assert_eq!(max.items.len(), 1000);
    assert!(max.more);
    let rest = page(&mut con, "f", 1000, Start::Older(max.bottom()));
    assert_eq!(rest.items.len(), 200);
    assert!(!rest.more);
    let e = err(&mut con, &["FEED.PAGE", "f", "COUNT", "1001"]);
    assert_eq!(e, "ERR COUNT must be between 1 and 1000");
    // Options in any order, keywords in any case.
    let cursor = String::from_utf8(max.bottom().to_vec()).unwrap();
    let mixed = parse_page(ok(
        &mut con,
        &["FEED.PAGE", "f", "older", &cursor, "count", "2"],
    ));
    assert_eq!(mixed.members(), ["m0199", "m0198"]);
    // An absent key is an empty feed.
    let empty = parse_page(ok(&mut con, &["FEED.PAGE", "nokey"]));
    assert_eq!(
        empty,
        Page {
            items: vec![],
            top: None,
            bottom: None,
            more: false
        }
    );
}

/// Every error leaves every key exactly as it was.
#[test]
fn errors_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    feed_add(&mut con, "f", None, &[(1.0, "a"), (2.0, "b"), (3.0, "c")]);
    ok(&mut con, &["SET", "str", "x"]);
    let cursor = String::from_utf8(page(&mut con, "f", 1, Start::Newest).top().to_vec()).unwrap();
    let nan_cursor = "f1:7ff8000000000000:61";
    let cases: &[(&[&str], &str)] = &[
        (&["FEED.ADD", "str", "1", "m"], "WRONGTYPE"),
        (&["FEED.ADD", "str", "CAP", "1", "1", "m"], "WRONGTYPE"),
        (&["FEED.PAGE", "str"], "WRONGTYPE"),
        (&["FEED.PAGE", "str", "OLDER", &cursor], "WRONGTYPE"),
        (&["FEED.ADD", "f", "1"], "ERR wrong number of arguments"),
        (&["FEED.ADD", "f"], "ERR wrong number of arguments"),
        (&["FEED.PAGE"], "ERR wrong number of arguments"),
        (&["FEED.ADD", "f", "1", "m", "2"], "ERR syntax error"),
        (&["FEED.ADD", "f", "CAP", "2"], "ERR syntax error"),
        (&["FEED.ADD", "f", "CAP", "2", "1"], "ERR syntax error"),
        (
            &["FEED.ADD", "f", "1", "m", "nan", "n"],
            "ERR value is not a valid float",
        ),
        (
            &["FEED.ADD", "f", "9", "new", "NaN", "n"],
            "ERR value is not a valid float",
        ),
        (
            &["FEED.ADD", "f", "9", "new", "abc", "n"],
            "ERR value is not a valid float",
        ),
        (
            &["FEED.ADD", "f", "9", "new", "", "n"],
            "ERR value is not a valid float",
        ),
        (
            &["FEED.ADD", "f", "9", "new", "1 ", "n"],
            "ERR value is not a valid float",
        ),
        (
            &["FEED.ADD", "new", "1", "m", "x", "n"],
            "ERR value is not a valid float",
        ),
        (
            &["FEED.ADD", "f", "1", "m", "CAP", "1"],
            // CAP after the pairs is a misplaced option: the usage shows
            // where it goes.
            "ERR syntax error: unexpected 'CAP'; usage: FEED.ADD key [CAP n] score member",
        ),
        (
            &["FEED.ADD", "f", "CAP", "0", "1", "m"],
            "ERR CAP must be a positive integer",
        ),
        (
            &["FEED.ADD", "f", "CAP", "-1", "1", "m"],
            "ERR CAP must be a positive integer",
        ),
        (
            &["FEED.ADD", "f", "CAP", "1.5", "1", "m"],
            "ERR value is not an integer",
        ),
        (
            &["FEED.ADD", "f", "CAP", "99999999999999999999", "1", "m"],
            "ERR value is not an integer",
        ),
        (
            &["FEED.ADD", "f", "CAP", "x", "1", "m"],
            "ERR value is not an integer",
        ),
        (
            &["FEED.ADD", "f", "CAP", "1", "CAP", "1", "1", "m"],
            "ERR syntax error",
        ),
        (
            &["FEED.PAGE", "f", "COUNT", "0"],
            "ERR COUNT must be between 1 and 1000",
        ),
        (
            &["FEED.PAGE", "f", "COUNT", "-1"],
            "ERR COUNT must be between 1 and 1000",
        ),
        (
            &["FEED.PAGE", "f", "COUNT", "1001"],
            "ERR COUNT must be between 1 and 1000",
        ),
        (
            &["FEED.PAGE", "f", "COUNT", "x"],
            "ERR value is not an integer",
        ),
        (&["FEED.PAGE", "f", "COUNT"], "ERR syntax error"),
        (
            &["FEED.PAGE", "f", "COUNT", "1", "COUNT", "2"],
            "ERR syntax error",
        ),
        (&["FEED.PAGE", "f", "OLDER"], "ERR syntax error"),
        (
            &["FEED.PAGE", "f", "OLDER", &cursor, "NEWER", &cursor],
            "ERR syntax error",
        ),
        (&["FEED.PAGE", "f", "LIMIT", "1"], "ERR syntax error"),
        (&["FEED.PAGE", "f", "OLDER", "115"], "ERR invalid cursor"),
        (&["FEED.PAGE", "f", "NEWER", ""], "ERR invalid cursor"),
        (
            &["FEED.PAGE", "f", "NEWER", nan_cursor],
            "ERR invalid cursor",
        ),
        (
            &["FEED.PAGE", "nokey", "OLDER", "garbage"],
            "ERR invalid cursor",
        ),
        (
            &["FEED.PAGE", "f", "OLDER", &cursor.to_uppercase()],
            "ERR invalid cursor",
        ),
    ];
    assert_errors_change_nothing(&mut con, cases);
}

#[test]
fn writes_replicate_as_native_zadd_and_zrem_to_replicas_with_and_without_zkit() {
    let master = Server::start();
    let with_module = Server::with(ServerConfig::default().replica_of(&master));
    let without_module = Server::with(ServerConfig::without_module().replica_of(&master));
    with_module.wait_until_synced();
    without_module.wait_until_synced();
    let mut con = master.connect();
    for i in 0..200i64 {
        let score = match i % 7 {
            0 => f64::INFINITY,
            1 => -0.0,
            2 => f64::from_bits(3),
            3 => 0.1 * i as f64,
            _ => (i % 13) as f64,
        };
        let member = format!("m{}", i % 40);
        feed_add(
            &mut con,
            "f",
            Some(25),
            &[(score, &member), (i as f64, "steady")],
        );
    }
    // A large feed in the skiplist encoding, trimmed by a batch.
    let pairs: Vec<(f64, String)> = (0..500)
        .map(|i| (i as f64 / 3.0, format!("big{i}")))
        .collect();
    let refs: Vec<(f64, &str)> = pairs.iter().map(|(s, m)| (*s, m.as_str())).collect();
    feed_add(&mut con, "big", None, &refs);
    feed_add(&mut con, "big", Some(300), &[(1e9, "newest")]);
    master.wait_for_replicas(2);
    let expected = db_snapshot(&mut con);
    assert_eq!(expected.len(), 2);
    assert_eq!(query::<i64>(&mut con, &["ZCARD", "f"]), 25);
    assert_eq!(query::<i64>(&mut con, &["ZCARD", "big"]), 300);
    for replica in [&with_module, &without_module] {
        let mut rcon = replica.connect();
        assert_eq!(db_snapshot(&mut rcon), expected);
        assert_eq!(zset_dump(&mut rcon, "f"), zset_dump(&mut con, "f"));
    }
}

#[test]
fn aof_replays_on_a_server_without_zkit() {
    let server = aof_server();
    let mut con = server.connect();
    for i in 0..60i64 {
        let member = format!("m{}", i % 17);
        feed_add(&mut con, "f", Some(10), &[((i % 9) as f64 * 0.3, &member)]);
    }
    assert_eq!(db_snapshot(&mut con).len(), 1);
    drop(con);
    assert_aof_replays_without_module(server);
}

#[test]
fn writes_fire_the_native_keyspace_events() {
    let server = Server::start();
    let events = keyspace_events(&server, |con| {
        ok(con, &["FEED.ADD", "f", "1", "a", "2", "b"]);
        ok(con, &["FEED.ADD", "f", "1", "a"]); // no change, no event
        ok(con, &["FEED.ADD", "f", "CAP", "2", "3", "c"]); // adds, then trims a
        ok(con, &["FEED.ADD", "f", "CAP", "1", "3", "c"]); // only trims b
        ok(con, &["FEED.ADD", "f", "CAP", "5", "4", "c"]); // re-scores
        ok(con, &["FEED.PAGE", "f"]);
        ok(con, &["FEED.PAGE", "f", "COUNT", "1"]);
    });
    let events = event_pairs(&events);
    assert_eq!(
        events,
        [
            ("__keyevent@0__:zadd", "f"),
            ("__keyevent@0__:zadd", "f"),
            ("__keyevent@0__:zrem", "f"),
            ("__keyevent@0__:zrem", "f"),
            ("__keyevent@0__:zadd", "f"),
        ]
    );
}

#[test]
fn add_invalidates_watch() {
    let server = Server::start();
    assert!(!watch_survives(&server, "f", |con| {
        ok(con, &["FEED.ADD", "f", "1", "a"]);
    }));
    // Inside MULTI it runs like any command.
    let mut con = server.connect();
    ok(&mut con, &["MULTI"]);
    ok(&mut con, &["FEED.ADD", "f", "CAP", "1", "2", "b"]);
    ok(&mut con, &["FEED.PAGE", "f"]);
    let exec: Vec<Value> = query(&mut con, &["EXEC"]);
    assert_eq!(exec[0], Value::Int(1));
    let page = parse_page(exec[1].clone());
    assert_eq!(page.members(), ["b"]);
}

// ---- model-based walk ------------------------------------------------------

/// Scores with equal runs, signed zeros and infinities.
const SCORES: [f64; 8] = [
    f64::NEG_INFINITY,
    -1.5,
    -0.0,
    0.0,
    1.0,
    2.0,
    3.0,
    f64::INFINITY,
];

#[derive(Clone, Debug)]
enum Step {
    /// FEED.ADD (insert or re-score), with an optional CAP.
    Add(Vec<(usize, usize)>, Option<usize>),
    /// ZREM of one member.
    Remove(usize),
    /// Pull-up with this COUNT (or the first load when no walk started).
    Older(usize),
    /// Pull-down with this COUNT (or the first load when no walk started).
    Newer(usize),
}

fn any_step() -> impl Strategy<Value = Step> {
    let pair = (0usize..12, 0usize..SCORES.len());
    prop_oneof![
        3 => (proptest::collection::vec(pair, 1..4), proptest::option::weighted(0.2, 3usize..12))
            .prop_map(|(pairs, cap)| Step::Add(pairs, cap)),
        1 => (0usize..12).prop_map(Step::Remove),
        2 => (1usize..5).prop_map(Step::Older),
        2 => (1usize..5).prop_map(Step::Newer),
    ]
}

/// The feed as the test believes it is: member -> score.
#[derive(Default)]
struct Model {
    scores: BTreeMap<String, f64>,
}

impl Model {
    /// (score, member), newest first: score descending, then member
    /// descending, spelled out independently of zkit's own code.
    fn display(&self) -> Vec<(f64, String)> {
        let mut all: Vec<(f64, String)> =
            self.scores.iter().map(|(m, s)| (*s, m.clone())).collect();
        all.sort_by(|a, b| {
            b.0.partial_cmp(&a.0)
                .unwrap()
                .then_with(|| b.1.as_bytes().cmp(a.1.as_bytes()))
        });
        all
    }

    /// Applies a FEED.ADD; returns the members whose position changed or vanished.
    fn add(&mut self, pairs: &[(f64, String)], cap: Option<usize>) -> Vec<String> {
        let mut touched = Vec::new();
        for (score, member) in pairs {
            if self.scores.get(member) != Some(score) {
                self.scores.insert(member.clone(), *score);
                touched.push(member.clone());
            }
        }
        if let Some(cap) = cap {
            let display = self.display();
            for (_, member) in display.iter().skip(cap) {
                self.scores.remove(member);
                touched.push(member.clone());
            }
        }
        touched
    }

    /// The page FEED.PAGE must return, as (member, score) newest first.
    fn page(
        &self,
        count: usize,
        from: Option<(bool, &(f64, String))>,
    ) -> (Vec<(f64, String)>, bool) {
        let display = self.display();
        let newer_than = |item: &(f64, String), at: &(f64, String)| {
            item.0 > at.0 || (item.0 == at.0 && item.1.as_bytes() > at.1.as_bytes())
        };
        match from {
            None => {
                let more = display.len() > count;
                (display.into_iter().take(count).collect(), more)
            }
            Some((true, at)) => {
                let newer: Vec<_> = display.into_iter().filter(|i| newer_than(i, at)).collect();
                let more = newer.len() > count;
                (newer[newer.len().saturating_sub(count)..].to_vec(), more)
            }
            Some((false, at)) => {
                let older: Vec<_> = display
                    .into_iter()
                    .filter(|i| i != at && !newer_than(i, at))
                    .collect();
                let more = older.len() > count;
                (older.into_iter().take(count).collect(), more)
            }
        }
    }
}

/// The bits of a score as a position: -0.0 and 0.0 are one position, and a
/// small (listpack-encoded) sorted set stores -0.0 as 0.0 anyway.
fn position_bits(score: f64) -> u64 {
    (score + 0.0).to_bits()
}

/// A client's walk: its cursors, the positions the cursors stand for (so the
/// model can check pages without decoding cursors), and what it was shown.
#[derive(Default)]
struct Walk {
    top: Option<(Vec<u8>, (f64, String))>,
    bottom: Option<(Vec<u8>, (f64, String))>,
    /// Every (member, position bits) shown.
    shown: HashSet<(String, u64)>,
    /// Members present since the first page and never changed since.
    stable: Option<HashSet<String>>,
}

fn step_page(
    con: &mut Connection,
    model: &Model,
    walk: &mut Walk,
    count: usize,
    newer: bool,
) -> bool {
    let cursor = if newer { &walk.top } else { &walk.bottom };
    let (got, expected) = match cursor.clone() {
        None => (
            page(con, "feed", count, Start::Newest),
            model.page(count, None),
        ),
        Some((text, at)) => {
            let from = if newer {
                Start::Newer(&text)
            } else {
                Start::Older(&text)
            };
            (
                page(con, "feed", count, from),
                model.page(count, Some((newer, &at))),
            )
        }
    };
    let got_items: Vec<(f64, String)> = got
        .items
        .iter()
        .map(|(m, s)| (*s, String::from_utf8(m.clone()).unwrap()))
        .collect();
    assert_eq!(got_items, expected.0, "page {count} newer={newer}");
    assert_eq!(got.more, expected.1, "more, page {count} newer={newer}");
    for (score, member) in &got_items {
        let fresh = walk.shown.insert((member.clone(), position_bits(*score)));
        assert!(fresh, "{member} at {score} shown twice");
    }
    let (Some(first), Some(last)) = (got_items.first(), got_items.last()) else {
        // An empty page hands the cursor back unchanged.
        assert_eq!(got.top, cursor.as_ref().map(|c| c.0.clone()));
        assert_eq!(got.bottom, got.top);
        return got.more;
    };
    let was_first_load = cursor.is_none();
    if was_first_load {
        walk.stable = Some(model.scores.keys().cloned().collect());
    }
    if newer || was_first_load {
        walk.top = Some((got.top().to_vec(), first.clone()));
    }
    if !newer || was_first_load {
        walk.bottom = Some((got.bottom().to_vec(), last.clone()));
    }
    got.more
}

fn run_walk(con: &mut Connection, steps: &[Step]) {
    ok(con, &["FLUSHALL"]);
    let mut model = Model::default();
    let mut walk = Walk::default();
    for step in steps {
        match step {
            Step::Add(pairs, cap) => {
                let pairs: Vec<(f64, String)> = pairs
                    .iter()
                    .map(|(m, s)| (SCORES[*s], format!("m{m}")))
                    .collect();
                let refs: Vec<(f64, &str)> = pairs.iter().map(|(s, m)| (*s, m.as_str())).collect();
                feed_add(con, "feed", *cap, &refs);
                for member in model.add(&pairs, *cap) {
                    if let Some(stable) = walk.stable.as_mut() {
                        stable.remove(&member);
                    }
                }
            }
            Step::Remove(m) => {
                let member = format!("m{m}");
                ok(con, &["ZREM", "feed", &member]);
                model.scores.remove(&member);
                if let Some(stable) = walk.stable.as_mut() {
                    stable.remove(&member);
                }
            }
            Step::Older(count) => {
                step_page(con, &model, &mut walk, *count, false);
            }
            Step::Newer(count) => {
                step_page(con, &model, &mut walk, *count, true);
            }
        }
        let server_view: Vec<(String, u64)> = zset_dump(con, "feed")
            .into_iter()
            .map(|(m, s)| (m, position_bits(s.parse().unwrap())))
            .collect();
        let mut model_view: Vec<(String, u64)> = model
            .display()
            .into_iter()
            .map(|(s, m)| (m, position_bits(s)))
            .collect();
        model_view.reverse();
        assert_eq!(server_view, model_view, "model and server differ");
    }
    // Finish the walk both ways; then everything that was there all along was shown.
    for newer in [false, true] {
        let pages_left =
            (0..=model.scores.len()).find(|_| !step_page(con, &model, &mut walk, 3, newer));
        assert!(pages_left.is_some(), "the walk did not end");
    }
    for member in walk.stable.unwrap_or_default() {
        let score = model.scores[&member];
        assert!(
            walk.shown.contains(&(member.clone(), position_bits(score))),
            "{member} at {score} was in the feed all along but never shown"
        );
    }
}

#[test]
fn random_walks_match_the_model_and_never_repeat_or_skip() {
    for config in both_encodings() {
        let server = Server::with(config);
        let con = std::cell::RefCell::new(server.connect());
        let mut runner = TestRunner::new(Config {
            cases: 96,
            failure_persistence: None,
            ..Config::default()
        });
        runner
            .run(&proptest::collection::vec(any_step(), 0..60), |steps| {
                run_walk(&mut con.borrow_mut(), &steps);
                Ok(())
            })
            .unwrap();
    }
}
