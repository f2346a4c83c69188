//! VOTE.* against a real redis-server with zkit loaded.

use crate::common::client::{cmdline, err, ok, query, syntax_error};
use crate::common::data::{assert_errors_change_nothing, db_snapshot, zset_dump, KeyContents};
use crate::common::facts::command_stat;
use crate::common::keyspace::keyspace_events;
use crate::common::replication::{
    aof_server, assert_aof_replays_without_module, master_and_replicas,
};
use crate::common::{server_version, Server};
use redis::{Connection, Value};

const WEEK: i64 = 7 * 86_400;

/// The hash-tagged layout of the docs: every key of one site in one slot.
const SCORES: &str = "{news}:score";
const TIMES: &str = "{news}:time";

fn up_key(item: &str) -> String {
    format!("{{news}}:up:{item}")
}

fn down_key(item: &str) -> String {
    format!("{{news}}:down:{item}")
}

/// `VOTE.CAST` on the site layout for `item`, then `rest` (voter, direction,
/// options), e.g. `cast_line("1", "lisi UP WEIGHT 2 1")`.
fn cast_line(item: &str, rest: &str) -> String {
    format!(
        "VOTE.CAST {SCORES} {} {} {item} {rest}",
        up_key(item),
        down_key(item)
    )
}

/// Runs VOTE.CAST on the site layout; returns `[score, ups, downs, changed]`.
fn cast(con: &mut Connection, item: &str, rest: &str) -> (f64, i64, i64, i64) {
    query(con, &cmdline(&cast_line(item, rest)))
}

fn vote_state(con: &mut Connection, item: &str, voter: &str) -> i64 {
    query(con, &["VOTE.STATE", &up_key(item), &down_key(item), voter])
}

fn server_now_s(con: &mut Connection) -> i64 {
    let time: (i64, i64) = query(con, &["TIME"]);
    time.0
}

fn zscore(con: &mut Connection, key: &str, member: &str) -> Option<f64> {
    query(con, &["ZSCORE", key, member])
}

/// Posts an article as the book's `post_article` does: the poster's own vote
/// is in the voters set and in the initial score of post time + 432.
fn post(con: &mut Connection, item: &str, poster: &str, posted_at_s: i64) {
    ok(con, &["SADD", &up_key(item), poster]);
    ok(con, &["ZADD", TIMES, &posted_at_s.to_string(), item]);
    let initial = (posted_at_s + 432).to_string();
    ok(con, &["ZADD", SCORES, &initial, item]);
}

/// Redis in Action's rules: 432 points a vote (86,400 s / 200 votes), votes
/// close one week after posting.
const BOOK: &str = "WEIGHT 432 432 WINDOW {news}:time 604800";

#[test]
fn redis_in_action_voting_site_walk_through() {
    let server = Server::start();
    let mut con = server.connect();
    let now = server_now_s(&mut con);
    post(&mut con, "100408", "user:83271", now - 3_600);
    let posted = (now - 3_600) as f64;

    // user:115423 votes for article 100408: one SADD, one ZINCRBY of 432.
    let r = cast(&mut con, "100408", &format!("user:115423 UP {BOOK}"));
    assert_eq!(r, (posted + 864.0, 2, 0, 1));
    // Voting again, or the poster voting for their own article, is a no-op.
    let r = cast(&mut con, "100408", &format!("user:115423 UP {BOOK}"));
    assert_eq!(r, (posted + 864.0, 2, 0, 0));
    let r = cast(&mut con, "100408", &format!("user:83271 UP {BOOK}"));
    assert_eq!(r, (posted + 864.0, 2, 0, 0));

    // The book's exercise: down votes and switching a vote.
    let r = cast(&mut con, "100408", &format!("user:7 DOWN {BOOK}"));
    assert_eq!(r, (posted + 432.0, 2, 1, 1));
    let r = cast(&mut con, "100408", &format!("user:115423 DOWN {BOOK}"));
    assert_eq!(r, (posted - 432.0, 1, 2, 1));
    let r = cast(&mut con, "100408", &format!("user:115423 UP {BOOK}"));
    assert_eq!(r, (posted + 432.0, 2, 1, 1));

    // Native commands read the same data.
    assert_eq!(zscore(&mut con, SCORES, "100408"), Some(posted + 432.0));
    let ups: i64 = query(&mut con, &["SCARD", &up_key("100408")]);
    assert_eq!(ups, 2);
    let member: i64 = query(&mut con, &["SISMEMBER", &down_key("100408"), "user:7"]);
    assert_eq!(member, 1);

    // A newer article outranks the first until that one gets enough votes.
    post(&mut con, "100635", "user:1", now - 60);
    let order: Vec<String> = query(&mut con, &cmdline("ZREVRANGE {news}:score 0 -1"));
    assert_eq!(order, ["100635", "100408"]);
    for i in 0..10 {
        cast(&mut con, "100408", &format!("user:{i} UP {BOOK}"));
    }
    let order: Vec<String> = query(&mut con, &cmdline("ZREVRANGE {news}:score 0 -1"));
    assert_eq!(order, ["100408", "100635"]);

    // One week after posting the score is fixed: every vote is refused and
    // the refusal changes nothing.
    post(&mut con, "99999", "user:1", now - WEEK - 5);
    let snapshot = db_snapshot(&mut con);
    for direction in ["UP", "DOWN", "CLEAR"] {
        let e = err(
            &mut con,
            &cmdline(&cast_line("99999", &format!("user:1 {direction} {BOOK}"))),
        );
        assert!(e.starts_with("ERR voting is closed"), "{e}");
        assert!(e.contains("604800 seconds"), "{e}");
    }
    // An item that was never posted cannot be voted on with WINDOW ...
    let e = err(
        &mut con,
        &cmdline(&cast_line("404", &format!("user:1 UP {BOOK}"))),
    );
    assert!(e.starts_with("ERR the item has no post time"), "{e}");
    assert_eq!(db_snapshot(&mut con), snapshot);
    // ... and one whose week is not over yet takes votes.
    post(&mut con, "100700", "user:1", now - WEEK + 120);
    let r = cast(&mut con, "100700", &format!("user:9 UP {BOOK}"));
    assert_eq!(r.3, 1);
}

#[test]
fn every_switch_with_weighted_votes() {
    // Weighted votes: an up vote weighs 2, a down vote 0.5.
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["ZADD", SCORES, "10", "a1"]);
    let steps: &[(&str, f64, i64, i64, i64, i64)] = &[
        // direction, score, ups, downs, changed, state
        ("CLEAR", 10.0, 0, 0, 0, 0), // clear -> clear
        ("UP", 12.0, 1, 0, 1, 1),    // clear -> up
        ("UP", 12.0, 1, 0, 0, 1),    // up -> up
        ("DOWN", 9.5, 0, 1, 1, -1),  // up -> down
        ("DOWN", 9.5, 0, 1, 0, -1),  // down -> down
        ("UP", 12.0, 1, 0, 1, 1),    // down -> up
        ("CLEAR", 10.0, 0, 0, 1, 0), // up -> clear
        ("DOWN", 9.5, 0, 1, 1, -1),  // clear -> down
        ("CLEAR", 10.0, 0, 0, 1, 0), // down -> clear
    ];
    for &(direction, score, ups, downs, changed, state) in steps {
        let r = cast(&mut con, "a1", &format!("lisi {direction} WEIGHT 2 0.5"));
        assert_eq!(r, (score, ups, downs, changed), "{direction}");
        assert_eq!(vote_state(&mut con, "a1", "lisi"), state, "{direction}");
        let in_up: i64 = query(&mut con, &["SISMEMBER", &up_key("a1"), "lisi"]);
        let in_down: i64 = query(&mut con, &["SISMEMBER", &down_key("a1"), "lisi"]);
        assert_eq!((in_up, in_down), (ups, downs), "{direction}");
    }
    // Clearing the last vote deleted the empty sets, as SREM does.
    let exists: i64 = query(&mut con, &["EXISTS", &up_key("a1"), &down_key("a1")]);
    assert_eq!(exists, 0);
    // Directions are keywords: any case.
    assert_eq!(
        cast(&mut con, "a1", "lisi up WEIGHT 2 0.5"),
        (12.0, 1, 0, 1)
    );
    assert_eq!(
        cast(&mut con, "a1", "lisi Clear WEIGHT 2 0.5"),
        (10.0, 0, 0, 1)
    );
}

#[test]
fn counts_and_defaults() {
    let server = Server::start();
    let mut con = server.connect();
    // An item absent from scores starts at 0; default weights are 1 and 1.
    for i in 1..=5 {
        let r = cast(&mut con, "7", &format!("u{i} UP"));
        assert_eq!(r, (i as f64, i, 0, 1));
    }
    for voter in ["u4", "u5", "d1"] {
        cast(&mut con, "7", &format!("{voter} DOWN"));
    }
    assert_eq!(cast(&mut con, "7", "d2 DOWN"), (-1.0, 3, 4, 1));
    assert_eq!(cast(&mut con, "7", "u1 CLEAR"), (-2.0, 2, 4, 1));
    // A no-op on an item with no score reports 0 and writes nothing.
    assert_eq!(cast(&mut con, "8", "u1 CLEAR"), (0.0, 0, 0, 0));
    assert_eq!(zscore(&mut con, SCORES, "8"), None);
    // A change always writes the score, even with zero weights.
    assert_eq!(cast(&mut con, "8", "u1 UP WEIGHT 0 0"), (0.0, 1, 0, 1));
    assert_eq!(zscore(&mut con, SCORES, "8"), Some(0.0));
    // Weights may be fractions and exponents; options come in any order.
    assert_eq!(
        cast(&mut con, "9", "u1 DOWN weight 1e3 0.25"),
        (-0.25, 0, 1, 1)
    );
    let now = server_now_s(&mut con).to_string();
    ok(&mut con, &["ZADD", TIMES, &now, "9"]);
    let r = cast(&mut con, "9", "u2 UP window {news}:time 60 WEIGHT 1e3 0.25");
    assert_eq!(r, (999.75, 1, 1, 1));
}

#[test]
fn a_voter_in_both_sets_is_repaired_by_the_next_vote() {
    // Only writes that bypass zkit can put a voter in both sets. Each
    // membership counts (+up, -down), and the next vote moves the voter.
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["SADD", &up_key("1"), "v"]);
    ok(&mut con, &["SADD", &down_key("1"), "v"]);
    ok(&mut con, &["ZADD", SCORES, "2", "1"]); // +3 -1
    let e = err(&mut con, &["VOTE.STATE", &up_key("1"), &down_key("1"), "v"]);
    assert_eq!(e, "ERR the voter is in both upvoters and downvoters");
    assert_eq!(cast(&mut con, "1", "v UP WEIGHT 3 1"), (3.0, 1, 0, 1));
    assert_eq!(vote_state(&mut con, "1", "v"), 1);
}

#[test]
fn names_that_look_like_keywords() {
    let server = Server::start();
    let mut con = server.connect();
    let now = server_now_s(&mut con).to_string();
    // An item, a voter and a times key all literally named WINDOW.
    ok(&mut con, &["ZADD", "WINDOW", &now, "WINDOW"]);
    let line = "VOTE.CAST s u d WINDOW WINDOW UP WINDOW WINDOW 60";
    let r: (f64, i64, i64, i64) = query(&mut con, &cmdline(line));
    assert_eq!(r, (1.0, 1, 0, 1));
    let keys: Vec<String> = query(&mut con, &cmdline(&format!("COMMAND GETKEYS {line}")));
    assert_eq!(keys, ["s", "u", "d", "WINDOW"]);
    // Without the option, an item or voter named WINDOW is not a key.
    let line = "COMMAND GETKEYS VOTE.CAST s u d WINDOW WINDOW UP";
    let keys: Vec<String> = query(&mut con, &cmdline(line));
    assert_eq!(keys, ["s", "u", "d"]);
    // A times key named WEIGHT; the up set already holds the voter WINDOW.
    ok(&mut con, &["ZADD", "WEIGHT", &now, "i"]);
    let line = "VOTE.CAST s u d i v DOWN WINDOW WEIGHT 60 WEIGHT 1 4";
    let r: (f64, i64, i64, i64) = query(&mut con, &cmdline(line));
    assert_eq!(r, (-4.0, 1, 1, 1));
}

#[test]
fn replies_follow_zincrby_in_resp2_and_resp3() {
    let server = Server::start();
    let mut con = server.connect();
    let reply = ok(&mut con, &cmdline("VOTE.CAST s u d i v UP WEIGHT 0.1 1"));
    let zincrby = ok(&mut con, &cmdline("ZINCRBY z 0.1 i"));
    assert_eq!(
        reply,
        Value::Array(vec![zincrby, Value::Int(1), Value::Int(0), Value::Int(1)])
    );
    // A vote that changes nothing replies the stored score: the same bytes
    // as ZSCORE, whatever the score.
    for score in [
        "432",
        "-432",
        "1700000864",
        "99999999999999984",
        "1e17",
        "-1e17",
        "9007199254740993",
        "0",
        "-0",
        "0.1",
        "123456789.5",
        "1e300",
        "5e-324",
        "inf",
        "-inf",
    ] {
        ok(&mut con, &["ZADD", "s", score, "i"]);
        let reply = ok(&mut con, &cmdline("VOTE.CAST s u d i nobody CLEAR"));
        let zscore = ok(&mut con, &cmdline("ZSCORE s i"));
        let Value::Array(fields) = reply else {
            panic!("{reply:?}")
        };
        assert_eq!(fields[0], zscore, "{score}");
    }
    let client = redis::Client::open(format!("{}?protocol=resp3", server.url())).unwrap();
    let mut con3 = client.get_connection().unwrap();
    ok(&mut con3, &cmdline("ZADD s 0.1 i"));
    let reply = ok(&mut con3, &cmdline("VOTE.CAST s u d i v DOWN WEIGHT 0.1 1"));
    let Value::Array(fields) = reply else {
        panic!("{reply:?}")
    };
    // 0.1 for the up vote, then -(1 + 0.1) for the switch.
    assert_eq!(fields[0], Value::Double(0.1 + (-1.0 - 0.1)));
    assert_eq!(fields[1..], [Value::Int(0), Value::Int(1), Value::Int(1)]);
    let reply = ok(&mut con3, &cmdline("VOTE.CAST s u d i v DOWN"));
    let Value::Array(fields) = reply else {
        panic!("{reply:?}")
    };
    assert_eq!(fields[0], Value::Double(0.1 + (-1.0 - 0.1)));
    ok(&mut con3, &cmdline("ZADD s 432 i"));
    let reply = ok(&mut con3, &cmdline("VOTE.CAST s u d i v DOWN"));
    let Value::Array(fields) = reply else {
        panic!("{reply:?}")
    };
    assert_eq!(
        fields[0],
        Value::Double(432.0),
        "integers are doubles in RESP3 too"
    );
}

/// Every error leaves every key exactly as it was.
#[test]
fn errors_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    let now = server_now_s(&mut con);
    post(&mut con, "1", "poster", now);
    post(&mut con, "old", "poster", now - WEEK - 1);
    ok(&mut con, &["SADD", &down_key("1"), "critic"]);
    ok(&mut con, &cmdline("SET str x"));
    ok(&mut con, &cmdline("ZADD zset 1 x"));
    ok(&mut con, &cmdline("HSET hash f v"));
    ok(&mut con, &cmdline("SADD set x"));
    let (up, down) = (up_key("1"), down_key("1"));
    // A new voter and a voter who would switch: every case would write if it
    // got that far.
    let new = |rest: &str| cast_line("1", &format!("newbie UP {rest}"));
    let keys = |scores: &str, ups: &str, downs: &str| {
        format!("VOTE.CAST {scores} {ups} {downs} 1 critic UP")
    };
    let usage = "VOTE.CAST scores upvoters downvoters item voter <UP | DOWN | CLEAR> [WEIGHT up down] [WINDOW times seconds]";
    let direction = |word: &str| syntax_error(&format!("unexpected '{word}'"), usage);
    let sideways = direction("SIDEWAYS");
    let numeric_direction = direction("1");
    let no_direction = direction("");
    let cases: Vec<(String, &str)> = vec![
        (
            format!("VOTE.CAST {SCORES} {up} {down} 1 newbie"),
            "ERR wrong number of arguments",
        ),
        (
            format!("VOTE.CAST {SCORES} {up}"),
            "ERR wrong number of arguments",
        ),
        (cast_line("1", "critic SIDEWAYS"), &sideways),
        (cast_line("1", "critic 1"), &numeric_direction),
        // A direction is a keyword: a near miss is not taken for one.
        (
            cast_line("1", "critic UPP"),
            "ERR syntax error: unexpected 'UPP'",
        ),
        (new("WEIGHT"), "ERR syntax error"),
        (new("WEIGHT 1"), "ERR syntax error"),
        (new("WEIGHT nan 1"), "ERR value is not a valid float"),
        (new("WEIGHT 1 abc"), "ERR value is not a valid float"),
        (
            new("WEIGHT inf 1"),
            "ERR weights must be finite and not negative",
        ),
        (
            new("WEIGHT 1 -inf"),
            "ERR weights must be finite and not negative",
        ),
        (
            new("WEIGHT -1 1"),
            "ERR weights must be finite and not negative",
        ),
        (
            new("WEIGHT 1.7e308 1.7e308"),
            "ERR weights too large: up + down must be finite",
        ),
        (new("WEIGHT 1 1 WEIGHT 1 1"), "ERR syntax error"),
        (new("WINDOW"), "ERR syntax error"),
        (new(&format!("WINDOW {TIMES}")), "ERR syntax error"),
        (
            new(&format!("WINDOW {TIMES} -1")),
            "ERR window seconds must not be negative",
        ),
        (
            new(&format!("WINDOW {TIMES} 1.5")),
            "ERR value is not an integer or out of range",
        ),
        (
            new(&format!("WINDOW {TIMES} 60 WINDOW {TIMES} 60")),
            "ERR syntax error",
        ),
        (new("LIMIT 1"), "ERR syntax error"),
        (
            new("WEIGHT 1 1 EXTRA"),
            "ERR syntax error: unexpected 'EXTRA'",
        ),
        (
            keys(SCORES, &up, &up),
            "ERR scores, upvoters and downvoters must be three different keys",
        ),
        (
            keys("brand:new", "brand:new", &down),
            "ERR scores, upvoters and downvoters must be",
        ),
        (
            keys(SCORES, &down, SCORES),
            "ERR scores, upvoters and downvoters must be",
        ),
        (keys("str", &up, &down), "WRONGTYPE"),
        (keys("set", &up, &down), "WRONGTYPE"),
        (keys(SCORES, "zset", &down), "WRONGTYPE"),
        (keys(SCORES, &up, "hash"), "WRONGTYPE"),
        (keys(SCORES, &up, "str"), "WRONGTYPE"),
        (new("WINDOW str 60"), "WRONGTYPE"),
        (new("WINDOW set 60"), "WRONGTYPE"),
        (
            new("WINDOW no-such-key 60"),
            "ERR the item has no post time",
        ),
        (
            cast_line("never", &format!("v UP WINDOW {TIMES} 60")),
            "ERR the item has no post time",
        ),
        (
            cast_line("old", &format!("v DOWN WINDOW {TIMES} 60")),
            "ERR voting is closed",
        ),
        (
            cast_line("old", &format!("poster CLEAR WINDOW {TIMES} {WEEK}")),
            "ERR voting is closed",
        ),
        (format!("VOTE.STATE str {down} v"), "WRONGTYPE"),
        (format!("VOTE.STATE {up} zset v"), "WRONGTYPE"),
        (
            format!("VOTE.STATE {up} {down}"),
            "ERR wrong number of arguments",
        ),
        (
            format!("VOTE.STATE {up} {down} v x"),
            "ERR wrong number of arguments",
        ),
    ];
    let empty_direction = vec!["VOTE.CAST", SCORES, &up, &down, "1", "critic", ""];
    let empty_weight = vec![
        "VOTE.CAST",
        SCORES,
        &up,
        &down,
        "1",
        "v",
        "UP",
        "WEIGHT",
        "1",
        "",
    ];
    let cases = cases
        .iter()
        .map(|(line, expected)| (cmdline(line), *expected))
        .chain([
            (empty_direction, no_direction.as_str()),
            (empty_weight, "ERR value is not a valid float"),
        ]);
    let cases: Vec<(Vec<&str>, &str)> = cases.collect();
    let cases: Vec<(&[&str], &str)> = cases
        .iter()
        .map(|(argv, e)| (argv.as_slice(), *e))
        .collect();
    assert_errors_change_nothing(&mut con, &cases);
    assert!(command_stat(&mut con, "vote.cast", "failed_calls") > 0);
}

#[test]
fn writes_replicate_as_native_commands_to_replicas_with_and_without_zkit() {
    let (master, replicas) = master_and_replicas();
    let mut con = master.connect();
    let now = server_now_s(&mut con);
    post(&mut con, "1", "poster", now);
    post(&mut con, "2", "poster", now - 100);
    let directions = ["UP", "DOWN", "CLEAR", "UP", "UP", "DOWN"];
    for i in 0..120usize {
        let direction = directions[i % directions.len()];
        let (item, options) = match i % 4 {
            // WINDOW reads the master's clock: only effects may replicate.
            0 => (["1", "2"][i % 2], BOOK),
            1 => (["1", "2", "3"][i % 3], "WEIGHT 0.1 0.3"),
            2 => (["1", "2", "3"][i % 3], ""),
            _ => (["1", "2", "3"][i % 3], "WEIGHT 1e-7 3.14159"),
        };
        let line = format!("user:{} {direction} {options}", i % 11);
        cast(&mut con, item, line.trim_end());
    }
    // Inside MULTI/EXEC too.
    ok(&mut con, &["MULTI"]);
    for rest in ["a UP", "a DOWN", "b CLEAR", "b UP WEIGHT 0.5 0.5"] {
        ok(&mut con, &cmdline(&cast_line("4", rest)));
    }
    let exec: Vec<Value> = query(&mut con, &["EXEC"]);
    assert_eq!(exec.len(), 4);
    master.wait_for_replicas(2);
    // Sets in a hash table DUMP in an order that depends on each server's
    // hash seed, so they compare by members; everything else by DUMP bytes.
    // Redis 7.0 keeps every set of strings in a hash table; 7.2 and later
    // keep small ones in a listpack, which compares by DUMP bytes.
    let expected = db_snapshot(&mut con);
    assert!(expected.len() >= 7, "{expected:?}");
    if server_version(&mut con) < (7, 2) {
        assert!(
            expected
                .iter()
                .any(|(_, c)| matches!(c, KeyContents::HashTable { .. })),
            "{expected:?}"
        );
    }
    // Scores with fractional weights must arrive bit for bit.
    let scores = zset_dump(&mut con, SCORES);
    assert!(scores.iter().any(|(_, s)| s.contains('.')), "{scores:?}");
    for replica in &replicas {
        let mut rcon = replica.connect();
        assert_eq!(db_snapshot(&mut rcon), expected);
        assert_eq!(zset_dump(&mut rcon, SCORES), scores);
    }
}

#[test]
fn aof_replays_on_a_server_without_zkit() {
    let server = aof_server();
    let mut con = server.connect();
    for i in 0..30usize {
        let direction = ["UP", "DOWN", "CLEAR"][i % 3];
        let rest = format!("v{} {direction} WEIGHT 0.7 1.3", i % 5);
        cast(&mut con, &(i % 4).to_string(), &rest);
    }
    let before = db_snapshot(&mut con);
    assert!(before.iter().any(|(key, _)| key == SCORES), "{before:?}");
    assert!(before.len() > 4, "{before:?}");
    drop(con);
    assert_aof_replays_without_module(server);
}

#[test]
fn writes_fire_the_native_keyspace_events() {
    let server = Server::start();
    let mut con = server.connect();
    let now = server_now_s(&mut con).to_string();
    ok(&mut con, &["ZADD", TIMES, &now, "1"]);
    let events = keyspace_events(&server, |con| {
        cast(con, "1", "a UP WINDOW {news}:time 60"); // clear -> up
        cast(con, "1", "a UP WINDOW {news}:time 60"); // no change, no event
        cast(con, "1", "b UP"); // clear -> up
        cast(con, "1", "a DOWN"); // up -> down
        cast(con, "1", "b CLEAR"); // up -> clear: the up set empties
        cast(con, "1", "a UP"); // down -> up: the down set empties
        cast(con, "1", "nobody CLEAR"); // no change, no event
        vote_state(con, "1", "a");
    });
    let (scores, up, down) = (SCORES.to_string(), up_key("1"), down_key("1"));
    let expected: Vec<(String, String)> = [
        ("sadd", &up),
        ("zincr", &scores),
        ("sadd", &up),
        ("zincr", &scores),
        ("srem", &up),
        ("sadd", &down),
        ("zincr", &scores),
        ("srem", &up),
        ("del", &up),
        ("zincr", &scores),
        ("sadd", &up),
        ("srem", &down),
        ("del", &down),
        ("zincr", &scores),
    ]
    .iter()
    .map(|(event, key)| (format!("__keyevent@0__:{event}"), key.to_string()))
    .collect();
    assert_eq!(events, expected);
}

#[test]
fn writes_invalidate_watch_on_every_written_key() {
    let server = Server::start();
    let mut writer = server.connect();
    cast(&mut writer, "1", "a UP");
    for watched in [SCORES.to_string(), up_key("1"), down_key("1")] {
        let mut watcher = server.connect();
        ok(&mut watcher, &["WATCH", &watched]);
        cast(&mut writer, "1", "a DOWN");
        cast(&mut writer, "1", "a UP");
        ok(&mut watcher, &["MULTI"]);
        ok(&mut watcher, &["ZSCORE", SCORES, "1"]);
        assert_eq!(ok(&mut watcher, &["EXEC"]), Value::Nil, "{watched}");
    }
    // A vote that changes nothing leaves WATCH alone.
    let mut watcher = server.connect();
    ok(
        &mut watcher,
        &["WATCH", SCORES, &up_key("1"), &down_key("1")],
    );
    cast(&mut writer, "1", "a UP");
    ok(&mut watcher, &["MULTI"]);
    ok(&mut watcher, &["ZSCORE", SCORES, "1"]);
    let exec: Vec<f64> = query(&mut watcher, &["EXEC"]);
    assert_eq!(exec, [1.0]);
}

#[test]
fn cluster_needs_one_slot_and_routes_the_window_key() {
    let server = Server::single_node_cluster();
    let mut con = server.connect();
    let now = server_now_s(&mut con).to_string();
    ok(&mut con, &["ZADD", TIMES, &now, "1"]);
    assert_eq!(
        cast(&mut con, "1", "a UP WINDOW {news}:time 60"),
        (1.0, 1, 0, 1)
    );
    // Keys outside the {news} slot are refused before anything runs, the
    // WINDOW key included.
    let line = format!("VOTE.CAST {SCORES} {} down:1 1 a DOWN", up_key("1"));
    let e = err(&mut con, &cmdline(&line));
    assert!(e.starts_with("CROSSSLOT"), "{e}");
    let e = err(&mut con, &cmdline(&cast_line("1", "a DOWN WINDOW time 60")));
    assert!(e.starts_with("CROSSSLOT"), "{e}");
    assert_eq!(vote_state(&mut con, "1", "a"), 1);
}
