//! RANK.MERGE in steps (`STEP count staging cursor`) against a real
//! redis-server with zkit loaded: the result equals the one-shot merge, the
//! cursor protocol, refusals, replicas, and lazy freeing of a replaced
//! destination.

use std::time::Duration;

use crate::common::client::{cmdline, err, ok, query, words};
use crate::common::data::assert_errors_change_nothing;
use crate::common::facts::{command_stat, keys_and_flags, keys_of};
use crate::common::keyspace::{event_pairs, keyspace_events};
use crate::common::replication::{assert_replicas_match, master_and_replicas};
use crate::common::{stat, wait_for, Server};
use redis::{Connection, Value};

/// 2024-01-01T00:00:00Z, the default tie-break epoch.
const EPOCH: i64 = 1_704_067_200_000;

/// Two daily boards that overlap: `day:1` written by RANK.GIFT at times that
/// often coincide (equal scores, ordered by member), `day:2` by plain ZADD
/// with integer scores (long runs of ties), sharing members m1500..m2999.
fn two_days(con: &mut Connection) {
    let mut pipe = redis::pipe();
    for i in 0..3000 {
        let at = (EPOCH + (i % 40) * 60_000).to_string();
        pipe.cmd("RANK.GIFT")
            .arg("day:1")
            .arg(format!("m{i}"))
            .arg(i % 50 + 1)
            .arg("AT")
            .arg(at)
            .ignore();
    }
    for i in 1500..3500 {
        pipe.cmd("ZADD")
            .arg("day:2")
            .arg(i % 7)
            .arg(format!("m{i}"))
            .ignore();
    }
    pipe.query::<()>(con).unwrap();
}

/// A board's members and scores as the server prints them, byte for byte.
fn board(con: &mut Connection, key: &str) -> Vec<Vec<u8>> {
    query(con, &["ZRANGE", key, "0", "-1", "WITHSCORES"])
}

/// The reply of one step: `[next-cursor, members in staging]`.
fn step(con: &mut Connection, call: &[&str], cursor: &str) -> (String, i64) {
    let mut words = call.to_vec();
    words.push(cursor);
    let reply = ok(con, &words);
    let Value::Array(items) = reply else {
        panic!("{call:?}: a step replies an array, got {reply:?}");
    };
    match &items[..] {
        [Value::BulkString(cursor), Value::Int(staged)] => {
            (String::from_utf8(cursor.clone()).unwrap(), *staged)
        }
        other => panic!("{call:?}: want [bulk cursor, integer], got {other:?}"),
    }
}

/// The words of a stepped merge call, without the cursor.
fn stepped<'a>(dest: &'a str, staging: &'a str, count: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut words = vec!["RANK.MERGE", dest, "2", "day:1", "day:2"];
    words.extend_from_slice(extra);
    words.extend_from_slice(&["STEP", count, staging]);
    words
}

/// Runs a stepped merge from cursor 0 to its end, checking every step's
/// reply; returns the last reply's member count and the number of calls.
fn merge_in_steps(con: &mut Connection, call: &[&str], staging: &str) -> (i64, usize) {
    let mut cursor = "0".to_string();
    for calls in 1..100_000 {
        let (next, staged) = step(con, call, &cursor);
        if next == "0" {
            let exists: i64 = query(con, &["EXISTS", staging]);
            assert_eq!(exists, 0, "the last step moves staging onto destkey");
            return (staged, calls);
        }
        assert!(next.starts_with("m1:"), "cursor {next}");
        assert_ne!(next, cursor, "a step must move on");
        let zcard: i64 = query(con, &["ZCARD", staging]);
        assert_eq!(staged, zcard, "the reply counts staging's members");
        cursor = next;
    }
    panic!("the merge did not end");
}

#[test]
fn a_merge_in_steps_equals_the_one_shot_merge() {
    let server = Server::start();
    let mut con = server.connect();
    two_days(&mut con);
    let weights = ["WEIGHTS", "2", "3"];
    let mut once = vec!["RANK.MERGE", "once", "2", "day:1", "day:2"];
    once.extend_from_slice(&weights);
    let expected_len: i64 = query(&mut con, &once);
    assert_eq!(expected_len, 3500);
    let expected = board(&mut con, "once");

    // The week board already holds last week's data: readers see it until
    // the last step.
    ok(&mut con, &["ZADD", "week", "5", "old"]);
    let call = stepped("week", "week:staging", "97", &weights);
    let (first, staged) = step(&mut con, &call, "0");
    assert_eq!(staged, 97);
    assert_eq!(board(&mut con, "week"), [b"old".to_vec(), b"5".to_vec()]);
    let (second, staged) = step(&mut con, &call, &first);
    assert_eq!(staged, 194);
    assert_ne!(second, first);
    assert_eq!(board(&mut con, "week"), [b"old".to_vec(), b"5".to_vec()]);

    let (len, calls) = merge_in_steps(&mut con, &call, "week:staging");
    assert_eq!(len, expected_len);
    // Steps read across sources; the step that reads the last member ends
    // the merge.
    assert_eq!(calls, 5000usize.div_ceil(97));
    assert_eq!(board(&mut con, "week"), expected);

    // Steps of 1 (a cursor inside every run of ties), and one step that
    // reads everything, give the same board; so do the weights spelled out.
    for (count, dest) in [("1", "by-one"), ("100000", "at-once")] {
        let call = stepped(dest, "tmp", count, &weights);
        let (len, _) = merge_in_steps(&mut con, &call, "tmp");
        assert_eq!(len, expected_len);
        assert_eq!(board(&mut con, dest), expected, "count {count}");
    }
    // Without WEIGHTS, as the one-shot merge without them.
    ok(&mut con, &["RANK.MERGE", "once", "2", "day:1", "day:2"]);
    let call = stepped("plain", "tmp", "500", &[]);
    merge_in_steps(&mut con, &call, "tmp");
    assert_eq!(board(&mut con, "plain"), board(&mut con, "once"));
}

#[test]
fn cursor_zero_restarts_a_merge() {
    let server = Server::start();
    let mut con = server.connect();
    two_days(&mut con);
    ok(&mut con, &["RANK.MERGE", "once", "2", "day:1", "day:2"]);
    let call = stepped("week", "tmp", "400", &[]);
    let (cursor, _) = step(&mut con, &call, "0");
    let (_, staged) = step(&mut con, &call, &cursor);
    assert_eq!(staged, 800);
    // Starting over removes what the first attempt staged: nothing is
    // counted twice.
    let (_, staged) = step(&mut con, &call, "0");
    assert_eq!(staged, 400);
    merge_in_steps(&mut con, &call, "tmp");
    assert_eq!(board(&mut con, "week"), board(&mut con, "once"));

    // A staging key left holding something else is removed by cursor 0 too.
    ok(&mut con, &["SET", "tmp", "leftover"]);
    merge_in_steps(&mut con, &call, "tmp");
    assert_eq!(board(&mut con, "week"), board(&mut con, "once"));
}

#[test]
fn refused_steps_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    two_days(&mut con);
    ok(&mut con, &["ZADD", "week", "5", "old"]);
    ok(&mut con, &["SET", "text", "not a board"]);
    let call = stepped("week", "tmp", "10", &[]);
    let (cursor, _) = step(&mut con, &call, "0");
    // The cursor of a merge with other weights, destination or staging key.
    let other = stepped("week", "tmp", "10", &["WEIGHTS", "1", "2"]);
    let other_dest = stepped("month", "tmp", "10", &[]);
    let other_staging = stepped("week", "tmp2", "10", &[]);
    let with = |call: &[&'static str], cursor: &'static str| {
        let mut words = call.to_vec();
        words.push(cursor);
        words
    };
    let cursor: &'static str = cursor.leak();
    let malformed = cursor.replacen("m1:", "m9:", 1).leak();
    let foreign = "ERR the cursor belongs to another merge";
    let named = "ERR the staging key must differ from destkey and from every source key";
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (with(&other, cursor), foreign),
        (with(&other_dest, cursor), foreign),
        (with(&other_staging, cursor), foreign),
        (with(&call, malformed), "ERR invalid merge cursor"),
        (with(&call, "1"), "ERR invalid merge cursor"),
        (with(&stepped("week", "week", "10", &[]), "0"), named),
        (with(&stepped("week", "day:2", "10", &[]), "0"), named),
        (with(&stepped("week", "day:1", "10", &[]), cursor), named),
        (
            with(&stepped("week", "tmp", "0", &[]), "0"),
            "ERR count must be a positive integer",
        ),
        (
            with(&stepped("week", "tmp", "-1", &[]), cursor),
            "ERR count must be a positive integer",
        ),
        (
            with(&stepped("week", "tmp", "x", &[]), "0"),
            "ERR value is not an integer",
        ),
        (
            vec![
                "RANK.MERGE",
                "week",
                "2",
                "day:1",
                "text",
                "STEP",
                "10",
                "tmp",
                "0",
            ],
            "WRONGTYPE",
        ),
        (
            vec!["RANK.MERGE", "week", "1", "day:1", "STEP", "10", "tmp"],
            "ERR syntax error",
        ),
    ];
    let cases: Vec<(&[&str], &str)> = cases.iter().map(|(w, e)| (&w[..], *e)).collect();
    assert_errors_change_nothing(&mut con, &cases);

    // A staging key deleted (or replaced) mid-merge: the merge must start
    // again, or its result would miss what was staged.
    ok(&mut con, &["DEL", "tmp"]);
    assert_errors_change_nothing(
        &mut con,
        &[(
            &with(&call, cursor),
            "ERR the staging key of this merge is gone",
        )],
    );
    ok(&mut con, &["SET", "tmp", "x"]);
    assert_errors_change_nothing(&mut con, &[(&with(&call, cursor), "WRONGTYPE")]);
}

#[test]
fn empty_sources_leave_no_destination() {
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["ZADD", "week", "5", "old"]);
    let call = [
        "RANK.MERGE",
        "week",
        "2",
        "none:1",
        "none:2",
        "STEP",
        "10",
        "tmp",
    ];
    assert_eq!(step(&mut con, &call, "0"), ("0".to_string(), 0));
    let keys: Vec<String> = query(&mut con, &["KEYS", "*"]);
    assert!(keys.is_empty(), "{keys:?}");
    // One empty source among others is skipped.
    ok(
        &mut con,
        &["RANK.GIFT", "some", "a", "3", "AT", &EPOCH.to_string()],
    );
    let call = [
        "RANK.MERGE",
        "week",
        "3",
        "none:1",
        "some",
        "none:2",
        "STEP",
        "1",
        "tmp",
    ];
    assert_eq!(step(&mut con, &call, "0"), ("0".to_string(), 1));
    assert_eq!(board(&mut con, "week"), board(&mut con, "some"));
}

#[test]
fn getkeys_reports_the_staging_key() {
    let server = Server::start();
    let mut con = server.connect();
    let call: Vec<String> =
        cmdline("RANK.MERGE week 2 day:1 day:2 WEIGHTS 1 2 STEP 100 week:tmp 0")
            .into_iter()
            .map(String::from)
            .collect();
    assert_eq!(
        keys_of(&mut con, &call),
        ["week", "day:1", "day:2", "week:tmp"]
    );
    let flags = keys_and_flags(&mut con, &call);
    let (key, staging) = &flags[3];
    assert_eq!(key, "week:tmp");
    for flag in ["RW", "access", "update"] {
        assert!(staging.iter().any(|f| f == flag), "{flag} in {staging:?}");
    }
}

/// How many values the server freed in its background thread so far.
fn lazyfreed(con: &mut Connection) -> i64 {
    stat(con, "memory", "lazyfreed_objects")
}

/// Waits until the background thread freed `n` values in all.
fn wait_lazyfreed(server: &Server, n: i64) {
    let mut con = server.connect();
    wait_for(Duration::from_secs(10), || lazyfreed(&mut con) >= n);
    assert_eq!(lazyfreed(&mut con), n);
}

/// A destination of 300 members: a skiplist, large enough that UNLINK
/// frees it in the background (above the server's lazy-free threshold).
fn large_old_week(con: &mut Connection) {
    let mut zadd = vec!["ZADD".to_string(), "week".to_string()];
    for i in 0..300 {
        zadd.extend([i.to_string(), format!("old{i}")]);
    }
    ok(con, &words(&zadd));
}

#[test]
fn a_replaced_destination_is_freed_in_the_background_here_and_on_replicas() {
    let (master, replicas) = master_and_replicas();
    let mut con = master.connect();
    two_days(&mut con);
    let freed = |server: &Server| lazyfreed(&mut server.connect());
    let before = [freed(&master), freed(&replicas[0]), freed(&replicas[1])];

    // The one-shot form.
    large_old_week(&mut con);
    ok(&mut con, &["RANK.MERGE", "week", "2", "day:1", "day:2"]);
    let once = board(&mut con, "week");
    assert_replicas_match(&master, &replicas);
    wait_lazyfreed(&master, before[0] + 1);
    wait_lazyfreed(&replicas[0], before[1] + 1);
    wait_lazyfreed(&replicas[1], before[2] + 1);

    // The stepped form: staging is replicated step by step, the last step
    // as UNLINK and RENAME; replicas with and without zkit end equal.
    large_old_week(&mut con);
    let call = stepped("week", "week:tmp", "333", &["WEIGHTS", "1", "1"]);
    let (len, _) = merge_in_steps(&mut con, &call, "week:tmp");
    assert_eq!(len, 3500);
    assert_eq!(board(&mut con, "week"), once);
    let data = assert_replicas_match(&master, &replicas);
    assert!(!format!("{data:?}").contains("week:tmp"));
    // The replicas ran one UNLINK per replaced board (never DEL) and one
    // RENAME, the effects of the master's calls, not RANK.MERGE.
    for replica in &replicas {
        let mut r = replica.connect();
        assert_eq!(command_stat(&mut r, "unlink", "calls"), 2);
        assert_eq!(command_stat(&mut r, "del", "calls"), 0);
        assert_eq!(command_stat(&mut r, "rename", "calls"), 1);
        assert_eq!(command_stat(&mut r, "rename", "failed_calls"), 0);
        assert_eq!(command_stat(&mut r, "rank.merge", "calls"), 0);
    }
    wait_lazyfreed(&master, before[0] + 2);
    wait_lazyfreed(&replicas[0], before[1] + 2);
    wait_lazyfreed(&replicas[1], before[2] + 2);
}

#[test]
fn on_a_cluster_the_staging_key_shares_the_slot() {
    let server = Server::single_node_cluster();
    let mut con = server.connect();
    ok(&mut con, &cmdline("RANK.GIFT {room}:mon a 1"));
    ok(&mut con, &cmdline("RANK.GIFT {room}:tue b 2"));
    let call = cmdline("RANK.MERGE {room}:week 2 {room}:mon {room}:tue STEP 1 {room}:tmp");
    let (cursor, staged) = step(&mut con, &call, "0");
    assert_eq!(staged, 1);
    assert_eq!(step(&mut con, &call, &cursor), ("0".to_string(), 2));
    // A staging key in another slot is refused before the command runs.
    let e = err(
        &mut con,
        &cmdline("RANK.MERGE {room}:week 2 {room}:mon {room}:tue STEP 1 tmp 0"),
    );
    assert!(e.starts_with("CROSSSLOT"), "{e}");
}

/// A stepped merge fires the events of the native writes it stands for:
/// `zadd` on the staging key each step, then, on the last, `del` of the old
/// destination and the rename of staging onto it; none on the sources.
#[test]
fn a_stepped_merge_fires_the_native_keyspace_events() {
    let server = Server::start();
    let mut con = server.connect();
    let _: (i64, i64) = query(&mut con, &["RANK.GIFT", "day:1", "alice", "5"]);
    let _: (i64, i64) = query(&mut con, &["RANK.GIFT", "day:2", "bob", "3"]);
    ok(&mut con, &["ZADD", "week", "1", "old"]);
    let call = stepped("week", "tmp", "1", &[]);
    let events = keyspace_events(&server, |con| {
        let (cursor, staged) = step(con, &call, "0");
        assert_eq!(staged, 1);
        let (cursor, staged) = step(con, &call, &cursor);
        assert_eq!((cursor.as_str(), staged), ("0", 2));
    });
    let events = event_pairs(&events);
    let zadds = events
        .iter()
        .filter(|e| **e == ("__keyevent@0__:zadd", "tmp"))
        .count();
    assert_eq!(zadds, 2, "{events:?}");
    for expected in [
        ("__keyevent@0__:del", "week"),
        ("__keyevent@0__:rename_from", "tmp"),
        ("__keyevent@0__:rename_to", "week"),
    ] {
        assert!(events.contains(&expected), "{expected:?} in {events:?}");
    }
    assert!(
        events.iter().all(|(_, key)| !key.starts_with("day:")),
        "{events:?}"
    );
}
