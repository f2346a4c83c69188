//! RANK.MERGE in steps (`STEP count staging cursor`) against a real
//! redis-server with zkit loaded: the result equals the one-shot merge for
//! any boards and step size, a run owns its staging key, cursors cannot be
//! edited, a resent step repeats its reply, the last step never loses the
//! board (RENAME renamed, a slot being migrated), replicas, the AOF,
//! keyspace events and lazy freeing of a replaced destination.

use std::time::Duration;

use crate::common::board::EPOCH;
use crate::common::client::{cmdline, err, ok, query, run, words};
use crate::common::cluster::{
    atomic_slot_migration_available, begin_migration, migrate_keys, Cluster,
};
use crate::common::data::{assert_errors_change_nothing, db_snapshot, expiry_snapshot};
use crate::common::facts::{command_stat, keys_and_flags, keys_of};
use crate::common::keyspace::{event_pairs, keyspace_events};
use crate::common::replication::{
    aof_server, assert_aof_replays_without_module, assert_replicas_match, master_and_replicas,
};
use crate::common::workload::Rng;
use crate::common::{stat, wait_for, Server, ServerConfig};
use redis::cluster::ClusterConnection;
use redis::{Connection, Value};

/// A run record is the staging board's member scored `+inf`.
const RECORD_PREFIX: &str = "zkit:merge-run:v1:";

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
fn board(con: &mut impl redis::ConnectionLike, key: &str) -> Vec<Vec<u8>> {
    query(con, &["ZRANGE", key, "0", "-1", "WITHSCORES"])
}

/// The reply of one step: `[next-cursor, members]`.
fn step(con: &mut impl redis::ConnectionLike, call: &[&str], cursor: &str) -> (String, i64) {
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

/// The words of a stepped merge of `day:1` and `day:2`, without the cursor.
fn stepped<'a>(dest: &'a str, staging: &'a str, count: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut words = vec!["RANK.MERGE", dest, "2", "day:1", "day:2"];
    words.extend_from_slice(extra);
    words.extend_from_slice(&["STEP", count, staging]);
    words
}

/// The call with `cursor` appended.
fn with<'a>(call: &[&'a str], cursor: &'a str) -> Vec<&'a str> {
    let mut words = call.to_vec();
    words.push(cursor);
    words
}

/// The staging key of a finished run: only its record, scored `+inf`.
fn assert_only_the_record(con: &mut impl redis::ConnectionLike, staging: &str) {
    let left: Vec<String> = query(con, &["ZRANGE", staging, "0", "-1", "WITHSCORES"]);
    assert_eq!(left.len(), 2, "{staging}: {left:?}");
    assert!(left[0].starts_with(RECORD_PREFIX), "{left:?}");
    assert_eq!(left[1], "inf");
}

/// Runs a stepped merge from `first` (`0`, or a cursor naming a run) to
/// its end, checking every step's reply; returns the last reply's member
/// count and the number of calls.
fn merge_from(
    con: &mut impl redis::ConnectionLike,
    call: &[&str],
    staging: &str,
    first: &str,
) -> (i64, usize) {
    let mut cursor = first.to_string();
    for calls in 1..100_000 {
        let (next, staged) = step(con, call, &cursor);
        if next == "0" {
            assert_only_the_record(con, staging);
            return (staged, calls);
        }
        assert!(next.starts_with("m2:"), "cursor {next}");
        assert_ne!(next, cursor, "a step must move on");
        let zcard: i64 = query(con, &["ZCARD", staging]);
        assert_eq!(staged + 1, zcard, "the reply counts staging's members");
        cursor = next;
    }
    panic!("the merge did not end");
}

fn merge_in_steps(
    con: &mut impl redis::ConnectionLike,
    call: &[&str],
    staging: &str,
) -> (i64, usize) {
    merge_from(con, call, staging, "0")
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

    let (len, calls) = merge_from(&mut con, &call, "week:staging", &second);
    assert_eq!(len, expected_len);
    // Steps read 97 entries of the sources each (a member of both is read
    // twice, merged once); the step that reads the last entry ends the run.
    assert_eq!(calls + 2, 5000usize.div_ceil(97));
    assert_eq!(board(&mut con, "week"), expected);

    // Steps of 1 (a cursor inside every run of ties), and one step that
    // reads everything, give the same board.
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

/// 0.3.0 re-encoded partial totals between steps at the resolution of the
/// partial total: alice's 1000 coins weighed 1000 times were staged as 10^6
/// at a 256 ms resolution, so after the -999,990 of the second board her
/// merged 10 was reached up to 255 ms too early, ahead of bob, who reached
/// 10 a little before her.
#[test]
fn negative_amounts_and_weights_rank_in_steps_as_at_once() {
    let server = Server::start();
    let mut con = server.connect();
    let t = EPOCH + 3_600_000 + 200;
    let gift = |con: &mut Connection, board: &str, member: &str, amount: i64, at: i64| {
        let _: Vec<i64> = query(
            con,
            &[
                "RANK.GIFT",
                board,
                member,
                &amount.to_string(),
                "AT",
                &at.to_string(),
            ],
        );
    };
    gift(&mut con, "a", "alice", 1000, t);
    gift(&mut con, "b", "alice", -999_990, t - 60_000);
    gift(&mut con, "b", "bob", 10, t - 50);
    let sources = ["2", "a", "b", "WEIGHTS", "1000", "1"];
    let mut once = vec!["RANK.MERGE", "once"];
    once.extend_from_slice(&sources);
    ok(&mut con, &once);
    let top = |con: &mut Connection, key: &str| -> Vec<(i64, String, i64)> {
        query(con, &["RANK.TOP", key, "2"])
    };
    let expected = top(&mut con, "once");
    assert_eq!(
        expected,
        [(1, "bob".to_string(), 10), (2, "alice".to_string(), 10)]
    );
    let mut call = vec!["RANK.MERGE", "steps"];
    call.extend_from_slice(&sources);
    call.extend_from_slice(&["STEP", "1", "tmp"]);
    let mut cursor = "0".to_string();
    for _ in 0..4 {
        cursor = step(&mut con, &call, &cursor).0;
        if cursor == "0" {
            break;
        }
    }
    assert_eq!(cursor, "0", "three entries, three steps");
    assert_eq!(top(&mut con, "steps"), expected);
    assert_eq!(board(&mut con, "steps"), board(&mut con, "once"));
}

/// Random boards with negative amounts and weights, totals near the limit
/// (where a merge may refuse), random step sizes: every stepped merge ends
/// with the one-shot merge's board byte for byte, or both refuse with the
/// same error and the stepped run changes nothing in its refused step.
#[test]
fn stepped_merges_of_random_boards_equal_the_one_shot_merge() {
    let mut rng = Rng::seeded("stepped merges of random boards");
    let server = Server::start();
    let mut con = server.connect();
    let mut compared = 0;
    for round in 0..40 {
        ok(&mut con, &["FLUSHALL"]);
        let sources = 1 + rng.below(4) as usize;
        let names: Vec<String> = (0..sources).map(|i| format!("{{r}}:s{i}")).collect();
        let mut pipe = redis::pipe();
        for name in &names {
            for _ in 0..rng.below(60) {
                let member = format!("m{}", rng.below(40));
                let amount = match rng.below(10) {
                    0 => rng.range(-(1 << 41), 1 << 41),
                    1..=3 => rng.range(-5_000_000, 5_000_000),
                    _ => rng.range(-50, 50),
                };
                // A few instants, so that equal totals tie on time too.
                let at = EPOCH + rng.range(0, 4) * 60_000 + rng.range(0, 3);
                pipe.cmd("RANK.GIFT")
                    .arg(name)
                    .arg(member)
                    .arg(amount)
                    .arg("AT")
                    .arg(at)
                    .ignore();
            }
        }
        // Some gifts may leave the range: those are refused, as intended.
        let _ = pipe.query::<()>(&mut con);
        let weights: Vec<String> = (0..sources)
            .map(|_| match rng.below(6) {
                0 => (-(1i64 << 10)).to_string(),
                1 => (1i64 << 12).to_string(),
                _ => rng.range(-3, 4).to_string(),
            })
            .collect();
        let mut args: Vec<String> = vec![sources.to_string()];
        args.extend(names.iter().cloned());
        args.push("WEIGHTS".into());
        args.extend(weights.iter().cloned());
        let mut once = vec!["RANK.MERGE".to_string(), "{r}:once".into()];
        once.extend(args.iter().cloned());
        let expected = run(&mut con, &words(&once));
        let count = match rng.below(3) {
            0 => 1,
            _ => 1 + rng.below(30),
        }
        .to_string();
        let mut call = vec!["RANK.MERGE".to_string(), "{r}:steps".into()];
        call.extend(args.iter().cloned());
        call.extend(["STEP".into(), count.clone(), "{r}:tmp".into()]);
        let call = words(&call);
        let mut cursor = "0".to_string();
        loop {
            let before = db_snapshot(&mut con);
            match run(&mut con, &with(&call, &cursor)) {
                Ok(Value::Array(items)) => {
                    let Value::BulkString(next) = &items[0] else {
                        panic!("{items:?}")
                    };
                    cursor = String::from_utf8(next.clone()).unwrap();
                    if cursor == "0" {
                        break;
                    }
                }
                Ok(other) => panic!("round {round}: {other:?}"),
                Err(e) => {
                    let e = crate::common::client::error_text(&e);
                    let Err(once_error) = &expected else {
                        panic!("round {round}: the step refused ({e}), the one-shot merge did not");
                    };
                    assert_eq!(e, crate::common::client::error_text(once_error));
                    assert!(db_snapshot(&mut con) == before, "a refused step wrote");
                    break;
                }
            }
        }
        if let Ok(len) = expected {
            assert_eq!(
                cursor, "0",
                "round {round}: {call:?} refused, at once {len:?}"
            );
            assert_eq!(
                board(&mut con, "{r}:steps"),
                board(&mut con, "{r}:once"),
                "round {round}: {call:?}"
            );
            compared += 1;
        }
    }
    eprintln!("{compared} of 40 rounds merged, the others refused at once and in steps");
    assert!(compared >= 10, "only {compared} rounds merged at all");
}

#[test]
fn a_run_holds_its_staging_key_until_it_ends() {
    let server = Server::start();
    let mut con = server.connect();
    two_days(&mut con);
    ok(&mut con, &["RANK.MERGE", "once", "2", "day:1", "day:2"]);
    let call = stepped("week", "tmp", "400", &[]);
    let (first, _) = step(&mut con, &call, "0");
    let (second, staged) = step(&mut con, &call, &first);
    assert_eq!(staged, 800);

    // The same nightly job started twice: the second run is refused, and
    // changes nothing; so is a run with other arguments on the same key.
    let in_progress = "ERR the staging key is held by an unfinished merge";
    let other = stepped("month", "tmp", "400", &["WEIGHTS", "1", "2"]);
    assert_errors_change_nothing(
        &mut con,
        &[
            (&with(&call, "0"), in_progress),
            (&with(&other, "0"), in_progress),
        ],
    );
    // The first run goes on undisturbed, to the one-shot merge's board.
    merge_from(&mut con, &call, "tmp", &second);
    assert_eq!(board(&mut con, "week"), board(&mut con, "once"));

    // A finished run leaves its record: the next run starts over it.
    let (abandoned, staged) = step(&mut con, &call, "0");
    assert_eq!(staged, 400);

    // Deleting the staging key abandons a run: a run started next owns the
    // key, and the abandoned run's next step is refused, never merged.
    let (abandoned_next, _) = step(&mut con, &call, &abandoned);
    ok(&mut con, &["DEL", "tmp"]);
    assert_errors_change_nothing(
        &mut con,
        &[(
            &with(&call, &abandoned_next),
            "ERR the staging key of this merge is gone",
        )],
    );
    let (taken, _) = step(&mut con, &call, "0");
    assert_errors_change_nothing(
        &mut con,
        &[(
            &with(&call, &abandoned_next),
            "ERR this merge no longer holds the staging key",
        )],
    );
    merge_from(&mut con, &call, "tmp", &taken);
    assert_eq!(board(&mut con, "week"), board(&mut con, "once"));

    // A 0.3.0 leftover, or any other value, is replaced by a new run.
    ok(&mut con, &["SET", "tmp", "leftover"]);
    merge_in_steps(&mut con, &call, "tmp");
    ok(&mut con, &["DEL", "tmp"]);
    ok(&mut con, &["ZADD", "tmp", "1", "x"]);
    merge_in_steps(&mut con, &call, "tmp");
    assert_eq!(board(&mut con, "week"), board(&mut con, "once"));
}

/// A cursor names a run and a step and nothing else: whatever is edited or
/// cut off of it, the step is refused and nothing changes (0.3.0's cursors
/// carried the source index and position, and an edited one was merged).
#[test]
fn an_edited_or_cut_cursor_is_refused_and_changes_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    two_days(&mut con);
    let call = stepped("week", "tmp", "10", &[]);
    let (first, _) = step(&mut con, &call, "0");
    let (cursor, _) = step(&mut con, &call, &first);
    let mut edited: Vec<String> = Vec::new();
    for (i, c) in cursor.char_indices() {
        for replacement in ['0', '1', '9', 'f', 'a', ':'] {
            if replacement != c {
                let mut text = cursor.clone();
                text.replace_range(i..i + c.len_utf8(), &replacement.to_string());
                edited.push(text);
            }
        }
    }
    for cut in 1..cursor.len() {
        edited.push(cursor[..cut].to_string());
    }
    edited.push(format!("{cursor}0"));
    let snapshot = db_snapshot(&mut con);
    for text in &edited {
        // `0` starts another run; the cursor before (`2` edited to `1`) is
        // the last step's, sent again: it repeats that step's reply.
        if text == "0" || *text == first {
            continue;
        }
        let e = err(&mut con, &with(&call, text));
        assert!(e.starts_with("ERR "), "{text}: {e}");
        assert!(db_snapshot(&mut con) == snapshot, "{text} changed data");
    }
    assert_eq!(step(&mut con, &call, &first).0, cursor);
    assert!(db_snapshot(&mut con) == snapshot);
    // The run goes on from its true cursor to the one-shot merge.
    ok(&mut con, &["RANK.MERGE", "once", "2", "day:1", "day:2"]);
    merge_from(&mut con, &call, "tmp", &cursor);
    assert_eq!(board(&mut con, "week"), board(&mut con, "once"));
}

/// A step whose reply was lost is sent again with the same cursor: it
/// replies what it replied and applies nothing twice, the last step too
/// (0.3.0 counted such a step twice). A run started with a cursor naming an
/// id of the client's choosing can resend its first step too.
#[test]
fn a_resent_step_repeats_its_reply_and_applies_nothing_twice() {
    let server = Server::start();
    let mut con = server.connect();
    two_days(&mut con);
    ok(&mut con, &["RANK.MERGE", "once", "2", "day:1", "day:2"]);
    let call = stepped("week", "tmp", "700", &[]);
    // Sends every step twice from `first` on; returns how many steps ran.
    let resend_each_step = |con: &mut Connection, first: &str| -> usize {
        let mut cursor = first.to_string();
        let mut steps = 0;
        loop {
            let reply = step(con, &call, &cursor);
            let snapshot = db_snapshot(con);
            let expiry = expiry_snapshot(con);
            assert_eq!(step(con, &call, &cursor), reply, "resent {cursor}");
            assert!(db_snapshot(con) == snapshot, "{cursor} applied twice");
            assert_eq!(expiry_snapshot(con), expiry);
            steps += 1;
            if reply.0 == "0" {
                return steps;
            }
            cursor = reply.0;
        }
    };
    // A run from 0: every step after the first.
    let (first, _) = step(&mut con, &call, "0");
    assert_eq!(
        resend_each_step(&mut con, &first) + 1,
        5000usize.div_ceil(700)
    );
    assert_eq!(board(&mut con, "week"), board(&mut con, "once"));
    // A run from a cursor of the client's own: the first step too.
    ok(&mut con, &["DEL", "week"]);
    let start = format!("m2:{}:0", "0123456789abcdef".repeat(2));
    assert_eq!(resend_each_step(&mut con, &start), 5000usize.div_ceil(700));
    assert_eq!(board(&mut con, "week"), board(&mut con, "once"));
    // Older cursors are refused: the reply of the step after them is gone.
    let e = err(&mut con, &with(&call, &start));
    assert!(e.starts_with("ERR an old cursor of this merge"), "{e}");
}

/// A TTL on the staging key (so that an abandoned run cleans up after
/// itself) stays with the staging key: 0.3.0's rename carried it onto the
/// merged board, which then expired.
#[test]
fn a_ttl_on_staging_never_reaches_destkey() {
    let server = Server::start();
    let mut con = server.connect();
    two_days(&mut con);
    ok(&mut con, &["RANK.MERGE", "once", "2", "day:1", "day:2"]);
    let call = stepped("week", "tmp", "2000", &[]);
    let (cursor, _) = step(&mut con, &call, "0");
    ok(&mut con, &["EXPIRE", "tmp", "3600"]);
    let (cursor, _) = step(&mut con, &call, &cursor);
    let (last, _) = step(&mut con, &call, &cursor);
    assert_eq!(last, "0");
    let ttl: i64 = query(&mut con, &["PTTL", "week"]);
    assert_eq!(ttl, -1, "destkey has no TTL");
    assert_eq!(board(&mut con, "week"), board(&mut con, "once"));
    // The finished run's record keeps the staging key's TTL.
    let ttl: i64 = query(&mut con, &["TTL", "tmp"]);
    assert!((3000..=3600).contains(&ttl), "{ttl}");
    assert_only_the_record(&mut con, "tmp");
    // Without a TTL of its own, the record stays a day.
    let call = stepped("week", "tmp2", "100000", &[]);
    merge_in_steps(&mut con, &call, "tmp2");
    let ttl: i64 = query(&mut con, &["TTL", "tmp2"]);
    assert!((86_000..=86_400).contains(&ttl), "{ttl}");
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
    // The cursor with other weights, destination or staging key.
    let other = stepped("week", "tmp", "10", &["WEIGHTS", "1", "2"]);
    let other_dest = stepped("month", "tmp", "10", &[]);
    let other_staging = stepped("week", "tmp2", "10", &[]);
    let foreign = "ERR the cursor belongs to another merge";
    let named = "ERR the staging key must differ from destkey and from every source key";
    let malformed = cursor.replacen("m2:", "m9:", 1);
    let old_format = "m1:0:ee6a40cf0299e640:f1:4025f1e43e9fffff:616e6e";
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (with(&other, &cursor), foreign),
        (with(&other_dest, &cursor), foreign),
        (
            with(&other_staging, &cursor),
            "ERR the staging key of this merge is gone",
        ),
        (with(&call, &malformed), "ERR invalid merge cursor"),
        (with(&call, old_format), "ERR invalid merge cursor"),
        (with(&call, "1"), "ERR invalid merge cursor"),
        (with(&stepped("week", "week", "10", &[]), "0"), named),
        (with(&stepped("week", "day:2", "10", &[]), "0"), named),
        (with(&stepped("week", "day:1", "10", &[]), &cursor), named),
        (
            with(&stepped("week", "tmp", "0", &[]), "0"),
            "ERR count must be a positive integer",
        ),
        (
            with(&stepped("week", "tmp", "-1", &[]), &cursor),
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
                "tmp2",
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

    // A staging key replaced mid-run by another type.
    ok(&mut con, &["SET", "tmp", "x"]);
    assert_errors_change_nothing(&mut con, &[(&with(&call, &cursor), "WRONGTYPE")]);
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
    assert_eq!(keys, ["tmp"]);
    assert_only_the_record(&mut con, "tmp");
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

/// On a server whose operator renamed RENAME (`rename-command`), a last
/// step refuses, naming it, before it writes: destkey keeps its board and
/// the run its staging key (0.3.0 deleted destkey, then failed).
#[test]
fn a_last_step_without_rename_refuses_and_keeps_the_board() {
    let mut config = ServerConfig::default();
    config.args.extend(
        [
            "--rename-command",
            "RENAME",
            "rename-renamed-for-zkit-tests",
        ]
        .map(String::from),
    );
    let server = Server::with(config);
    let mut con = server.connect();
    two_days(&mut con);
    ok(&mut con, &["ZADD", "week", "5", "old"]);
    let call = stepped("week", "tmp", "4000", &[]);
    let (cursor, _) = step(&mut con, &call, "0");
    assert_errors_change_nothing(
        &mut con,
        &[(
            &with(&call, &cursor),
            "ERR this command needs RENAME, which the server has renamed or disabled",
        )],
    );
    assert_eq!(board(&mut con, "week"), [b"old".to_vec(), b"5".to_vec()]);
    // The one-shot form needs no RENAME.
    ok(&mut con, &["RANK.MERGE", "week", "2", "day:1", "day:2"]);
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

    // The stepped form, with a step resent, a second run refused and a
    // TTL on staging: staging is replicated step by step, the last step as
    // UNLINK and RENAME; replicas with and without zkit end equal, TTLs
    // included.
    large_old_week(&mut con);
    let call = stepped("week", "week:tmp", "333", &["WEIGHTS", "1", "1"]);
    let (first, _) = step(&mut con, &call, "0");
    ok(&mut con, &["PEXPIRE", "week:tmp", "3600000"]);
    let (second, _) = step(&mut con, &call, &first);
    assert_eq!(step(&mut con, &call, &first).0, second, "resent step");
    let e = err(&mut con, &with(&call, "0"));
    assert!(e.contains("unfinished merge"), "{e}");
    let (len, _) = merge_from(&mut con, &call, "week:tmp", &second);
    assert_eq!(len, 3500);
    assert_eq!(board(&mut con, "week"), once);
    let data = assert_replicas_match(&master, &replicas);
    assert!(
        data.iter().any(|(key, _)| key == "week:tmp"),
        "the run's record"
    );
    // The replicas ran one UNLINK per replaced board (never DEL) and one
    // RENAME, the effects of the master's calls, not RANK.MERGE.
    for replica in &replicas {
        let mut r = replica.connect();
        assert_eq!(command_stat(&mut r, "unlink", "calls"), 2);
        assert_eq!(command_stat(&mut r, "del", "calls"), 0);
        assert_eq!(command_stat(&mut r, "rename", "calls"), 1);
        assert_eq!(command_stat(&mut r, "rename", "failed_calls"), 0);
        assert_eq!(command_stat(&mut r, "rank.merge", "calls"), 0);
        let ttl: i64 = query(&mut r, &["PTTL", "week"]);
        assert_eq!(ttl, -1);
    }
    wait_lazyfreed(&master, before[0] + 2);
    wait_lazyfreed(&replicas[0], before[1] + 2);
    wait_lazyfreed(&replicas[1], before[2] + 2);
}

/// The AOF of a server that ran stepped merges (resent steps, a refused
/// second run, a TTL on staging) replays on a server without zkit to the
/// same data and TTLs.
#[test]
fn the_aof_of_stepped_merges_replays_without_the_module() {
    let server = aof_server();
    let mut con = server.connect();
    two_days(&mut con);
    let call = stepped("week", "tmp", "900", &["WEIGHTS", "-1", "3"]);
    let (cursor, _) = step(&mut con, &call, "0");
    ok(&mut con, &["EXPIRE", "tmp", "7200"]);
    let (next, _) = step(&mut con, &call, &cursor);
    assert_eq!(step(&mut con, &call, &cursor).0, next);
    let _ = err(&mut con, &with(&call, "0"));
    merge_from(&mut con, &call, "tmp", &next);
    let (_, _) = step(&mut con, &call, "0");
    drop(con);
    assert_aof_replays_without_module(server);
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

/// A last step in a slot being migrated (CLUSTER SETSLOT MIGRATING and
/// IMPORTING, keys moved with MIGRATE): on the source node with all keys
/// still there, and on the target through ASKING once they moved, the step
/// replaces destkey; destkey missing inside MULTI is refused with TRYAGAIN
/// and changes nothing. 0.3.0 deleted destkey, then its RENAME was refused
/// ("Attempted to access a non local key"), stranding the result.
#[test]
#[ignore = "slow: make test-all"]
fn a_last_step_in_a_migrating_slot_keeps_the_board() {
    let cluster = Cluster::start(3);
    let tag = "{merging}";
    let key = |name: &str| format!("{tag}:{name}");
    let (mon, tue, week, tmp) = (key("mon"), key("tue"), key("week"), key("tmp"));
    let slot = cluster.slot(&week);
    let source = cluster.owner(slot);
    let target = cluster.other_than(source);
    let mut src = source.connect();
    let mut dst = target.connect();
    for i in 0..50 {
        let _: Vec<i64> = query(&mut src, &["RANK.GIFT", &mon, &format!("m{i}"), "3"]);
        let _: Vec<i64> = query(
            &mut src,
            &["RANK.GIFT", &tue, &format!("m{}", i + 25), "-1"],
        );
    }
    ok(&mut src, &["ZADD", &week, "1", "old"]);
    ok(&mut src, &["ZADD", &key("week2"), "1", "old"]);
    ok(&mut src, &["RANK.MERGE", &key("once"), "2", &mon, &tue]);
    let expected = board(&mut src, &key("once"));
    let call = ["RANK.MERGE", &week, "2", &mon, &tue, "STEP", "60", &tmp];
    let (week2, tmp2) = (key("week2"), key("tmp2"));
    let call2 = ["RANK.MERGE", &week2, "2", &mon, &tue, "STEP", "60", &tmp2];

    // The runs start before the migration: while the slot moves, the
    // server refuses (TRYAGAIN) a call that names a key missing there, such
    // as a staging key before the run's first step.
    let (cursor, _) = step(&mut src, &call, "0");
    let (cursor2, _) = step(&mut src, &call2, "0");
    begin_migration(slot, source, target);

    // On the source, every key still there: the last step replaces destkey.
    let (last, staged) = step(&mut src, &call, &cursor);
    assert_eq!((last.as_str(), staged), ("0", 75));
    assert_eq!(board(&mut src, &week), expected);

    // Destkey missing inside MULTI (deleted by an earlier command of the
    // transaction, after EXEC's slot check): TRYAGAIN, nothing changed.
    let before = db_snapshot(&mut src);
    ok(&mut src, &["MULTI"]);
    ok(&mut src, &["DEL", &week2]);
    ok(&mut src, &with(&call2, &cursor2));
    let text = format!("{:?}", run(&mut src, &["EXEC"]));
    assert!(
        text.contains("the slot of destkey is being migrated"),
        "{text}"
    );
    let mut after = db_snapshot(&mut src);
    after.retain(|(k, _)| *k != week2);
    let mut before_without_week2 = before.clone();
    before_without_week2.retain(|(k, _)| *k != week2);
    assert!(after == before_without_week2, "the refused step wrote");

    // A run started on the source while the slot moves, finished on the
    // target through ASKING once every key moved there.
    let (cursor, _) = step(&mut src, &call, "0");
    // Every key moved to the target: through ASKING there, the last step
    // replaces destkey.
    let moved: Vec<String> = query(
        &mut src,
        &["CLUSTER", "GETKEYSINSLOT", &slot.to_string(), "100"],
    );
    migrate_keys(&mut src, target, &moved);
    let e = err(&mut src, &with(&call, &cursor));
    assert!(e.starts_with("ASK "), "{e}");
    let asking = |con: &mut Connection, cursor: &str| -> (String, i64) {
        let mut pipe = redis::pipe();
        pipe.cmd("ASKING").ignore();
        pipe.cmd("RANK.MERGE").arg(&call[1..]).arg(cursor);
        let (reply,): ((String, i64),) = pipe.query(con).unwrap();
        reply
    };
    assert_eq!(asking(&mut dst, &cursor), ("0".to_string(), 75));
    let mut dst_asking = |words: &[&str]| -> Vec<Vec<u8>> {
        let mut pipe = redis::pipe();
        pipe.cmd("ASKING").ignore();
        pipe.cmd(words[0]).arg(&words[1..]);
        let (reply,): (Vec<Vec<u8>>,) = pipe.query(&mut dst).unwrap();
        reply
    };
    assert_eq!(
        dst_asking(&["ZRANGE", &week, "0", "-1", "WITHSCORES"]),
        expected
    );
    // Resent, the last step repeats its reply.
    let mut dst2 = target.connect();
    assert_eq!(asking(&mut dst2, &cursor), ("0".to_string(), 75));
}

/// A stepped merge fires the events of the native writes it stands for:
/// `zadd` on the staging key each step (`zrem` of the run's previous
/// record), then, on the last, `del` of the old destination, the rename of
/// staging onto it, and the finished run's record with its `expire`; none
/// on the sources.
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
    let count = |event: (&str, &str)| events.iter().filter(|e| **e == event).count();
    assert_eq!(count(("__keyevent@0__:zadd", "tmp")), 3, "{events:?}");
    assert_eq!(count(("__keyevent@0__:zrem", "tmp")), 1, "{events:?}");
    for expected in [
        ("__keyevent@0__:del", "week"),
        ("__keyevent@0__:rename_from", "tmp"),
        ("__keyevent@0__:rename_to", "week"),
        ("__keyevent@0__:expire", "tmp"),
    ] {
        assert!(events.contains(&expected), "{expected:?} in {events:?}");
    }
    assert!(
        events.iter().all(|(_, key)| !key.starts_with("day:")),
        "{events:?}"
    );
}

/// Valkey 9's atomic slot migration (`CLUSTER MIGRATESLOTS`) moves a run
/// while it steps: the staging board and its record reach the new node with
/// the writes each step replicates, the run goes on there (the client
/// follows MOVED), and ends with the one-shot merge's board; a resent last
/// step repeats its reply on the new node.
#[test]
#[ignore = "slow: make test-all"]
fn a_run_steps_on_while_its_slot_migrates_atomically() {
    if !atomic_slot_migration_available() {
        return;
    }
    let cluster = Cluster::start(3);
    let key = |name: &str| format!("{{asm-merge}}:{name}");
    let (mon, tue, week, tmp, once) =
        (key("mon"), key("tue"), key("week"), key("tmp"), key("once"));
    let slot = cluster.slot(&week);
    let source = cluster.owner(slot);
    let target = cluster.other_than(source);
    let mut client = cluster.client();
    let mut pipe = redis::pipe();
    for i in 0..3000 {
        pipe.cmd("RANK.GIFT")
            .arg(&mon)
            .arg(format!("m{i}"))
            .arg(i % 50 - 20)
            .ignore();
        pipe.cmd("RANK.GIFT")
            .arg(&tue)
            .arg(format!("m{}", i + 1500))
            .arg(i % 7 + 1)
            .ignore();
    }
    let mut src = source.connect();
    pipe.query::<()>(&mut src).unwrap();
    ok(
        &mut src,
        &["RANK.MERGE", &once, "2", &mon, &tue, "WEIGHTS", "-2", "3"],
    );
    let expected = board(&mut src, &once);
    let call = [
        "RANK.MERGE",
        &week,
        "2",
        &mon,
        &tue,
        "WEIGHTS",
        "-2",
        "3",
        "STEP",
        "5",
        &tmp,
    ];

    // 900 steps of 5: a third before the migration, some while it runs,
    // the rest on the new node once it owns the slot.
    let mut cursor = "0".to_string();
    let steps = |client: &mut ClusterConnection, cursor: &mut String, n: usize| {
        for _ in 0..n {
            let reply = step(client, &call, cursor);
            assert_ne!(reply.0, "0", "the run ended too soon");
            *cursor = reply.0;
        }
    };
    steps(&mut client, &mut cursor, 300);
    let slot_text = slot.to_string();
    let target_id = target.cluster_entry().id;
    ok(
        &mut src,
        &[
            "CLUSTER",
            "MIGRATESLOTS",
            "SLOTSRANGE",
            &slot_text,
            &slot_text,
            "NODE",
            &target_id,
        ],
    );
    steps(&mut client, &mut cursor, 100);
    wait_for(Duration::from_secs(60), || {
        cluster.owner(slot).port == target.port
    });
    let last = loop {
        let reply = step(&mut client, &call, &cursor);
        if reply.0 == "0" {
            break reply;
        }
        cursor = reply.0;
    };
    assert_eq!(last.1, expected.len() as i64 / 2);
    assert_eq!(board(&mut client, &week), expected);
    assert_eq!(step(&mut client, &call, &cursor), last);
}
