//! `IDMP seen-key event-id [RETAIN ms]`: exactly-once RANK.GIFT, RANK.SET,
//! RANK.MGIFT and RATE.HIT, on one server, a cluster, after a crash with
//! `appendfsync always`, and after a replica is promoted.

use std::time::Duration;

use crate::common::client::{cmdline, err, ok, query};
use crate::common::cluster::Cluster;
use crate::common::data::{
    assert_errors_change_nothing, server_time_ms, wait_until_server_time, zset_dump,
};
use crate::common::facts::keys_of;
use crate::common::replication::{aof_server, assert_replicas_match, master_and_replicas, role};
use crate::common::{wait_for, Server, ServerConfig};
use redis::{Connection, Value};

type Reply = Vec<Option<i64>>;

fn call(con: &mut impl redis::ConnectionLike, line: &str) -> Reply {
    query(con, &cmdline(line))
}

/// The event ids a seen-key remembers, earliest expiry first, with their
/// expiry (unix ms): its members scored `expiry + 0.25` (the others, scored
/// `expiry + 0.5`, remember the arguments of each).
fn remembered(con: &mut Connection, seen_key: &str) -> Vec<(String, i64)> {
    let members: Vec<(Vec<u8>, f64)> = query(con, &["ZRANGE", seen_key, "0", "-1", "WITHSCORES"]);
    members
        .into_iter()
        .filter(|(_, score)| score - score.floor() == 0.25)
        .map(|(id, score)| (String::from_utf8(id).unwrap(), score.floor() as i64))
        .collect()
}

fn remembered_ids(con: &mut Connection, seen_key: &str) -> Vec<String> {
    remembered(con, seen_key)
        .into_iter()
        .map(|(id, _)| id)
        .collect()
}

fn expiry_of(con: &mut Connection, seen_key: &str, id: &str) -> f64 {
    let expiry = remembered(con, seen_key).into_iter().find(|(i, _)| i == id);
    expiry.unwrap_or_else(|| panic!("{id} is not remembered")).1 as f64
}

fn total(con: &mut impl redis::ConnectionLike, board: &str, member: &str) -> Option<i64> {
    let entry: Option<Vec<i64>> = query(con, &["RANK.GET", board, member]);
    entry.map(|e| e[0])
}

const GIFT: &str = "RANK.GIFT {room:7}:board alice 10 IDMP {room:7}:seen pay-881";

/// The issue's example, on any connection that routes to the right node.
fn gift_once_then_refused(con: &mut impl redis::ConnectionLike) {
    assert_eq!(call(con, GIFT), [Some(10), Some(1), Some(0)]);
    assert_eq!(call(con, GIFT), [Some(10), Some(1), Some(1)]);
    assert_eq!(total(con, "{room:7}:board", "alice"), Some(10));
}

#[test]
fn a_repeated_gift_counts_once_and_replies_the_board_as_it_stands() {
    let server = Server::start();
    let mut con = server.connect();
    gift_once_then_refused(&mut con);
    // Another event of the same giver counts; the repeat shows the total now.
    let other = "RANK.GIFT {room:7}:board alice 5 IDMP {room:7}:seen pay-882";
    assert_eq!(call(&mut con, other), [Some(15), Some(1), Some(0)]);
    assert_eq!(call(&mut con, GIFT), [Some(15), Some(1), Some(1)]);
    call(&mut con, "RANK.GIFT {room:7}:board bob 20");
    assert_eq!(call(&mut con, GIFT), [Some(15), Some(2), Some(1)]);
    // Shared ranks and other options keep their places before the clause.
    let shared = "RANK.GIFT {room:7}:board bob 1 SHARED IDMP {room:7}:seen pay-9 RETAIN 60000";
    assert_eq!(call(&mut con, shared), [Some(21), Some(1), Some(0)]);
    assert_eq!(call(&mut con, shared), [Some(21), Some(1), Some(1)]);
    // A giver removed since the event stands at 0 with no rank.
    ok(&mut con, &["ZREM", "{room:7}:board", "alice"]);
    assert_eq!(call(&mut con, GIFT), [Some(0), None, Some(1)]);
    assert_eq!(total(&mut con, "{room:7}:board", "alice"), None);
    // The seen-key is a plain sorted set: ids scored by their expiry, 24 h
    // by default, the RETAIN one by its own.
    let now = server_time_ms(&mut con);
    let expiry = expiry_of(&mut con, "{room:7}:seen", "pay-881");
    let day = 86_400_000.0;
    assert!(expiry > now as f64 + day - 60_000.0 && expiry <= now as f64 + day);
    let short = expiry_of(&mut con, "{room:7}:seen", "pay-9");
    assert!(short <= now as f64 + 60_000.0 && short > now as f64);
    assert_eq!(info_counter(&mut con, "idmp_repeats_refused"), 5);
}

#[test]
fn set_and_mgift_apply_once_per_event() {
    let server = Server::start();
    let mut con = server.connect();
    let set = "RANK.SET b carol 50 GT IDMP seen s-1";
    assert_eq!(call(&mut con, set), [Some(50), Some(1), Some(0)]);
    call(&mut con, "RANK.SET b carol 70");
    // The retried SET does not put carol back to 50.
    assert_eq!(call(&mut con, set), [Some(70), Some(1), Some(1)]);

    let mgift = "RANK.MGIFT 2 {u}:day {u}:week dave 3 IDMP {u}:seen g-1";
    let first: Vec<Value> = query(&mut con, &cmdline(mgift));
    let again: Vec<Value> = query(&mut con, &cmdline(mgift));
    let pairs = |reply: &[Value]| -> (Vec<(i64, i64)>, i64) {
        let (flag, pairs) = reply.split_last().unwrap();
        let pairs = pairs
            .iter()
            .map(|pair| redis::from_redis_value(pair.clone()).unwrap())
            .collect();
        (pairs, redis::from_redis_value(flag.clone()).unwrap())
    };
    assert_eq!(pairs(&first), (vec![(3, 1), (3, 1)], 0));
    assert_eq!(pairs(&again), (vec![(3, 1), (3, 1)], 1));
    assert_eq!(total(&mut con, "{u}:week", "dave"), Some(3));
    // With RETAIN the clause is still found at the end.
    let retained = "RANK.MGIFT 1 {u}:day dave 1 AT 1704067200000 IDMP {u}:seen g-2 RETAIN 1000";
    let reply: Vec<Value> = query(&mut con, &cmdline(retained));
    assert_eq!(pairs(&reply), (vec![(4, 1)], 0));
    // Without IDMP the replies keep their 0.2 shape.
    assert_eq!(call(&mut con, "RANK.GIFT b carol 1"), [Some(71), Some(1)]);
}

#[test]
fn a_repeated_hit_spends_no_quota_and_a_refused_one_may_be_retried() {
    let server = Server::start();
    let mut con = server.connect();
    let hit = |con: &mut Connection, id: &str| -> Reply {
        call(
            con,
            &format!("RATE.HIT {{u:1}}:posts IDMP {{u:1}}:seen {id} 60000 2"),
        )
    };
    // One limit with IDMP: the binding position (1) is there too, so the
    // flag is always the sixth element.
    assert_eq!(
        hit(&mut con, "c-1"),
        [Some(1), Some(1), Some(1), Some(-1), Some(1), Some(0)]
    );
    assert_eq!(
        hit(&mut con, "c-1"),
        [Some(1), Some(1), Some(1), Some(-1), Some(1), Some(1)]
    );
    assert_eq!(
        hit(&mut con, "c-2"),
        [Some(1), Some(2), Some(0), Some(-1), Some(1), Some(0)]
    );
    let refused = hit(&mut con, "c-3");
    assert_eq!(
        (refused.len(), refused[0], refused[5]),
        (6, Some(0), Some(0))
    );
    // A refused hit spent nothing and is not remembered.
    let seen: Option<f64> = query(&mut con, &["ZSCORE", "{u:1}:seen", "c-3"]);
    assert_eq!(seen, None);
    assert_eq!(
        hit(&mut con, "c-2"),
        [Some(1), Some(2), Some(0), Some(-1), Some(1), Some(1)]
    );
    // Several limits: the binding position, then the flag.
    let several = "RATE.HIT {u:1}:other IDMP {u:1}:seen c-5 RETAIN 5000 60000 2 1000 9";
    assert_eq!(call(&mut con, several).len(), 6);
    assert_eq!(call(&mut con, several)[5], Some(1));
    assert_eq!(query::<i64>(&mut con, &["ZCARD", "{u:1}:posts"]), 2);
}

#[test]
fn bad_clauses_are_refused_and_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["SET", "str", "x"]);
    call(&mut con, "RANK.GIFT b m 1 IDMP seen e-0");
    assert_errors_change_nothing(
        &mut con,
        &[
            (
                &cmdline("RANK.GIFT b m 1 RETAIN 5"),
                "ERR RETAIN sets how long an IDMP event id is remembered: give IDMP too",
            ),
            (&cmdline("RANK.GIFT b m 1 IDMP seen"), "ERR syntax error"),
            (
                &cmdline("RANK.GIFT b m 1 IDMP seen e RETAIN"),
                "ERR syntax error",
            ),
            (
                &cmdline("RANK.GIFT b m 1 IDMP seen e IDMP seen f"),
                "ERR syntax error: IDMP is given twice",
            ),
            (
                &cmdline("RANK.GIFT b m 1 IDMP seen e RETAIN 0"),
                "ERR retain must be between 1 and",
            ),
            (
                &cmdline("RANK.GIFT b m 1 IDMP seen e RETAIN x"),
                "ERR value is not an integer",
            ),
            (
                &cmdline("RANK.GIFT b m 1 IDMP b e"),
                "ERR the IDMP seen-key",
            ),
            (
                &cmdline("RANK.MGIFT 2 b c m 1 IDMP c e"),
                "ERR the IDMP seen-key",
            ),
            (&cmdline("RANK.GIFT b m 1 IDMP str e"), "WRONGTYPE"),
            (&cmdline("RATE.HIT r IDMP str e 1000 1"), "WRONGTYPE"),
            (&cmdline("RATE.HIT r IDMP seen 1000 1"), "ERR syntax error"),
            (
                &cmdline("RATE.HIT r IDMP r e 1000 1"),
                "ERR the IDMP seen-key",
            ),
            // A write the board refuses records no id.
            (&cmdline("RANK.GIFT str m 1 IDMP seen e-1"), "WRONGTYPE"),
        ],
    );
}

/// Which refusal a call meets first, when it has several: RETAIN, then
/// the command's own arguments (before any seen-key is read), then the
/// seen-key (a written key, then its type), then the board.
#[test]
fn refusals_come_in_the_same_order_for_every_command() {
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["SET", "str", "x"]);
    assert_errors_change_nothing(
        &mut con,
        &[
            (
                &cmdline("RATE.HIT r RETAIN 0 IDMP str e 0 1"),
                "ERR retain must be between 1 and",
            ),
            (
                &cmdline("RATE.HIT r IDMP str e 0 1"),
                "ERR window must be between",
            ),
            (
                &cmdline("RATE.HIT r COST 0 IDMP str e 1000 1"),
                "ERR cost must not be 0",
            ),
            (
                &cmdline("RANK.MGIFT 2 b b m 1 IDMP str e"),
                "ERR a board is named twice",
            ),
            (
                &cmdline("RANK.GIFT str m 1 IDMP str e"),
                "ERR the IDMP seen-key",
            ),
            (&cmdline("RANK.SET str m 1 IDMP seen-2 e"), "WRONGTYPE"),
            (
                &cmdline("RATE.HIT str IDMP str e 1000 1"),
                "ERR the IDMP seen-key",
            ),
        ],
    );
}

#[test]
fn any_event_id_is_an_id_and_the_options_come_in_any_order() {
    let server = Server::start();
    let mut con = server.connect();
    // Event ids spelled like the command's keywords, options in any order.
    for (i, id) in ["IDMP", "retain", "SHARED", "AT"].iter().enumerate() {
        let first = format!("RANK.GIFT b m{i} 1 IDMP seen {id} SHARED");
        let again = format!("RANK.GIFT b m{i} 1 SHARED IDMP seen {id}");
        assert_eq!(
            query::<Vec<i64>>(&mut con, &cmdline(&first))[2],
            0,
            "{first}"
        );
        assert_eq!(
            query::<Vec<i64>>(&mut con, &cmdline(&again))[2],
            1,
            "{again}"
        );
        assert!(query::<f64>(&mut con, &["ZSCORE", "seen", id]) > 0.0);
    }
    assert_eq!(zset_dump(&mut con, "b").len(), 4);
}

#[test]
fn key_specs_show_the_seen_key_to_acls_and_cluster() {
    let server = Server::start();
    let mut con = server.connect();
    let keys = |con: &mut Connection, line: &str| -> Vec<String> {
        let call: Vec<String> = line.split(' ').map(String::from).collect();
        keys_of(con, &call)
    };
    assert_eq!(keys(&mut con, GIFT), ["{room:7}:board", "{room:7}:seen"]);
    assert_eq!(
        keys(&mut con, "RANK.SET b m 5 GT IDMP s e RETAIN 9"),
        ["b", "s"]
    );
    assert_eq!(
        keys(&mut con, "RANK.MGIFT 2 a b m 5 IDMP s e"),
        ["a", "b", "s"]
    );
    assert_eq!(
        keys(&mut con, "RANK.MGIFT 1 a m 5 SHARED IDMP s e RETAIN 9"),
        ["a", "s"]
    );
    assert_eq!(keys(&mut con, "RATE.HIT r IDMP s e 1000 1"), ["r", "s"]);
    assert_eq!(keys(&mut con, "RANK.GIFT b IDMP 5"), ["b"]);
    // An ACL user confined to the room's keys cannot name another seen-key.
    ok(
        &mut con,
        &[
            "ACL",
            "SETUSER",
            "room",
            "on",
            "nopass",
            "~{room:7}:*",
            "+@all",
        ],
    );
    let mut room = server.client().get_connection().unwrap();
    ok(&mut room, &["AUTH", "room", "x"]);
    gift_once_then_refused(&mut room);
    let elsewhere = err(
        &mut room,
        &cmdline("RANK.GIFT {room:7}:board alice 1 IDMP other-seen pay-1"),
    );
    assert!(elsewhere.starts_with("NOPERM"), "{elsewhere}");

    // In a cluster the seen-key must share the board's slot.
    let node = Server::single_node_cluster();
    let mut con = node.connect();
    let cross = err(&mut con, &cmdline("RANK.GIFT {a}board m 1 IDMP {b}seen e"));
    assert!(cross.starts_with("CROSSSLOT"), "{cross}");
    let cross = err(&mut con, &cmdline("RATE.HIT {a}r IDMP {b}seen e 1000 1"));
    assert!(cross.starts_with("CROSSSLOT"), "{cross}");
}

#[test]
fn the_example_holds_on_a_three_master_cluster() {
    let cluster = Cluster::start(3);
    let mut con = cluster.client();
    gift_once_then_refused(&mut con);
    let node = cluster.owner(cluster.slot("{room:7}:board"));
    let mut direct = node.connect();
    assert_eq!(remembered_ids(&mut direct, "{room:7}:seen"), ["pay-881"]);
}

#[test]
fn ids_expire_and_are_trimmed_as_the_key_is_written() {
    let server = Server::start();
    let mut con = server.connect();
    let gift = |con: &mut Connection, id: &str, retain: &str| -> Reply {
        call(
            con,
            &format!("RANK.GIFT b m 1 IDMP seen {id} RETAIN {retain}"),
        )
    };
    assert_eq!(gift(&mut con, "old", "200")[2], Some(0));
    let expiry = expiry_of(&mut con, "seen", "old");
    wait_for(Duration::from_secs(10), || {
        server_time_ms(&mut con) as f64 > expiry
    });
    // Past its retention the id is forgotten: the same event applies again.
    assert_eq!(gift(&mut con, "old", "60000"), [Some(2), Some(1), Some(0)]);
    let expiry = expiry_of(&mut con, "seen", "old");
    assert!(expiry > server_time_ms(&mut con) as f64 + 50_000.0);
    // Expired ids go when the key is next written, not before.
    assert_eq!(gift(&mut con, "short", "100")[2], Some(0));
    let expiry = expiry_of(&mut con, "seen", "short");
    wait_for(Duration::from_secs(10), || {
        server_time_ms(&mut con) as f64 > expiry
    });
    // Two members an id: the id and its arguments.
    assert_eq!(query::<i64>(&mut con, &["ZCARD", "seen"]), 4);
    assert_eq!(gift(&mut con, "next", "60000")[2], Some(0));
    assert_eq!(remembered_ids(&mut con, "seen"), ["old", "next"]);
    assert_eq!(query::<i64>(&mut con, &["ZCARD", "seen"]), 4);
}

#[test]
fn the_count_bound_forgets_the_ids_closest_to_expiring() {
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["CONFIG", "SET", "zkit.idmp-max-ids", "3"]);
    for (id, retain) in [
        ("a", "50000"),
        ("b", "40000"),
        ("c", "60000"),
        ("d", "30000"),
        ("e", "70000"),
    ] {
        call(
            &mut con,
            &format!("RANK.GIFT b m 1 IDMP seen {id} RETAIN {retain}"),
        );
    }
    // The id just applied is always kept: b (closest to expiring) went
    // when d came, then d when e came.
    assert_eq!(remembered_ids(&mut con, "seen"), ["a", "c", "e"]);
    // Each id went with its arguments.
    assert_eq!(query::<i64>(&mut con, &["ZCARD", "seen"]), 6);
    assert_eq!(info_counter(&mut con, "idmp_ids_evicted"), 2);
    ok(&mut con, &["CONFIG", "SET", "zkit.idmp-retain-ms", "1000"]);
    call(&mut con, "RANK.GIFT b m 1 IDMP seen f");
    let f = expiry_of(&mut con, "seen", "f");
    assert!(f <= (server_time_ms(&mut con) + 1000) as f64);
}

#[test]
fn replicas_and_module_less_replicas_hold_the_ids_with_the_writes() {
    let (master, replicas) = master_and_replicas();
    let mut con = master.connect();
    gift_once_then_refused(&mut con);
    call(
        &mut con,
        "RATE.HIT {room:7}:r IDMP {room:7}:seen hit-1 60000 5",
    );
    ok(
        &mut con,
        &cmdline("RANK.MGIFT 1 {room:7}:board bob 2 IDMP {room:7}:seen m-1"),
    );
    ok(&mut con, &["CONFIG", "SET", "zkit.idmp-max-ids", "2"]);
    call(
        &mut con,
        "RANK.SET {room:7}:board bob 9 IDMP {room:7}:seen s-1",
    );
    let data = assert_replicas_match(&master, &replicas);
    assert!(!data.is_empty());
}

#[test]
fn a_promoted_replica_refuses_a_wait_confirmed_event() {
    let master = Server::start();
    let replica = Server::with(ServerConfig::default().replica_of(&master));
    replica.wait_until_synced();
    let mut con = master.connect();
    assert_eq!(call(&mut con, GIFT), [Some(10), Some(1), Some(0)]);
    let acked: i64 = query(&mut con, &["WAIT", "1", "10000"]);
    assert_eq!(acked, 1, "the gift is WAIT-confirmed");
    let dir = master.kill_keep_dir();
    let mut promoted = replica.connect();
    ok(&mut promoted, &["REPLICAOF", "NO", "ONE"]);
    assert_eq!(role(&replica), "master");
    // The client retries the call that it saw time out on the old master.
    assert_eq!(call(&mut promoted, GIFT), [Some(10), Some(1), Some(1)]);
    assert_eq!(total(&mut promoted, "{room:7}:board", "alice"), Some(10));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_crash_with_appendfsync_always_keeps_the_event_applied_once() {
    let server = aof_server();
    let mut con = server.connect();
    assert_eq!(call(&mut con, GIFT), [Some(10), Some(1), Some(0)]);
    call(
        &mut con,
        "RATE.HIT {room:7}:r IDMP {room:7}:seen hit-1 60000 1",
    );
    let dir = server.kill_keep_dir();
    let restarted = Server::with(
        ServerConfig::default()
            .arg("appendonly", "yes")
            .arg("appendfsync", "always")
            .in_dir(&dir),
    );
    let mut con = restarted.connect();
    assert_eq!(call(&mut con, GIFT), [Some(10), Some(1), Some(1)]);
    let hit = call(
        &mut con,
        "RATE.HIT {room:7}:r IDMP {room:7}:seen hit-1 60000 1",
    );
    assert_eq!(hit, [Some(1), Some(1), Some(0), Some(-1), Some(1), Some(1)]);
    drop(restarted);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bytes_per_remembered_id() {
    // Ids like a payment provider's ("pay-" and 12 digits, 16 bytes) in a
    // seen-key past the listpack size, as a busy board's is.
    let server = Server::start();
    let mut con = server.connect();
    let ids = 20_000;
    for chunk in 0..ids / 1000 {
        let mut pipe = redis::pipe();
        for i in chunk * 1000..(chunk + 1) * 1000 {
            pipe.cmd("RANK.GIFT")
                .arg("b")
                .arg("m")
                .arg(1)
                .arg("IDMP")
                .arg("seen")
                .arg(format!("pay-{i:012}"))
                .ignore();
        }
        pipe.query::<()>(&mut con).unwrap();
    }
    let bytes: i64 = query(&mut con, &["MEMORY", "USAGE", "seen", "SAMPLES", "0"]);
    let per_id = bytes as f64 / ids as f64;
    println!("seen-key: {bytes} bytes for {ids} ids of 16 bytes: {per_id:.1} bytes per id");
    // Two skiplist entries (the id, and the id with its arguments' digest):
    // each an sds, a node and a dict entry.
    assert!((150.0..320.0).contains(&per_id), "{per_id} bytes per id");
}

fn info_counter(con: &mut Connection, field: &str) -> i64 {
    let info: String = query(con, &["INFO", "zkit"]);
    let prefix = format!("zkit_{field}:");
    info.lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("{field} in INFO zkit"))
        .trim()
        .parse()
        .unwrap()
}

const OTHER_ARGUMENTS: &str = "ERR this IDMP event id was already applied by a call with other \
     arguments (another command, key, member or amount): nothing was changed";

#[test]
fn an_event_id_reused_with_other_arguments_is_refused_and_changes_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    let gift = "RANK.GIFT {r}:b alice 10 IDMP {r}:seen e1";
    assert_eq!(call(&mut con, gift), [Some(10), Some(1), Some(0)]);
    ok(
        &mut con,
        &cmdline("RATE.HIT {r}:hits IDMP {r}:seen h1 60000 5"),
    );
    // Another member, amount, board, time, condition or command under the
    // same id: another event, refused, never "already applied".
    let reuses: Vec<&[&str]> = vec![
        &["RANK.GIFT", "{r}:b", "zz", "7", "IDMP", "{r}:seen", "e1"],
        &[
            "RANK.GIFT",
            "{r}:b",
            "alice",
            "11",
            "IDMP",
            "{r}:seen",
            "e1",
        ],
        &[
            "RANK.GIFT",
            "{r}:other",
            "alice",
            "10",
            "IDMP",
            "{r}:seen",
            "e1",
        ],
        &[
            "RANK.GIFT",
            "{r}:b",
            "alice",
            "10",
            "AT",
            "1800000000000",
            "IDMP",
            "{r}:seen",
            "e1",
        ],
        &["RANK.SET", "{r}:b", "alice", "10", "IDMP", "{r}:seen", "e1"],
        &[
            "RANK.MGIFT",
            "1",
            "{r}:b",
            "alice",
            "10",
            "IDMP",
            "{r}:seen",
            "e1",
        ],
        &[
            "RATE.HIT", "{r}:hits", "IDMP", "{r}:seen", "e1", "60000", "5",
        ],
        &[
            "RATE.HIT", "{r}:hits", "IDMP", "{r}:seen", "h1", "60000", "6",
        ],
        &[
            "RATE.HIT", "{r}:hits", "COST", "2", "IDMP", "{r}:seen", "h1", "60000", "5",
        ],
    ];
    let cases: Vec<(&[&str], &str)> = reuses
        .iter()
        .map(|words| (*words, OTHER_ARGUMENTS))
        .collect();
    assert_errors_change_nothing(&mut con, &cases);
    assert_eq!(
        info_counter(&mut con, "idmp_other_arguments_refused"),
        reuses.len() as i64
    );
    // What shapes only the reply or the memory is not part of the event: a
    // true retry keeps its 1.
    let retries = [
        "RANK.GIFT {r}:b alice 10 IDMP {r}:seen e1",
        "RANK.GIFT {r}:b alice 10 SHARED IDMP {r}:seen e1",
        "RANK.GIFT {r}:b alice 10 IDMP {r}:seen e1 RETAIN 5000",
    ];
    for retry in retries {
        assert_eq!(
            call(&mut con, retry),
            [Some(10), Some(1), Some(1)],
            "{retry}"
        );
    }
    let hit = call(
        &mut con,
        "RATE.HIT {r}:hits COST 1 IDMP {r}:seen h1 60000 5",
    );
    assert_eq!(hit.last(), Some(&Some(1)));
    assert_eq!(total(&mut con, "{r}:b", "alice"), Some(10));
}

#[test]
fn ids_remembered_by_0_3_0_still_count_as_applied() {
    // 0.3.0 scored a bare id by its expiry and remembered no arguments: a
    // call naming it is taken for a retry, as 0.3.0 took it.
    let server = Server::start();
    let mut con = server.connect();
    let expiry = server_time_ms(&mut con) + 60_000;
    ok(&mut con, &["ZADD", "seen", &expiry.to_string(), "pay-1"]);
    assert_eq!(
        call(&mut con, "RANK.GIFT b alice 10 IDMP seen pay-1"),
        [Some(0), None, Some(1)]
    );
    assert_eq!(total(&mut con, "b", "alice"), None);
}

#[test]
fn a_seen_key_that_can_vanish_is_reported_in_info_and_the_log() {
    let server = Server::with(
        ServerConfig::default()
            .arg("maxmemory", "1gb")
            .arg("maxmemory-policy", "allkeys-lru"),
    );
    let mut con = server.connect();
    call(&mut con, "RANK.GIFT b alice 1 IDMP seen e1");
    assert_eq!(info_counter(&mut con, "idmp_ids_evictable"), 1);
    assert!(
        server.log().contains("allkeys-* maxmemory-policy"),
        "{}",
        server.log()
    );
    // volatile-* evicts only keys with a TTL, and this seen-key has none.
    ok(
        &mut con,
        &["CONFIG", "SET", "maxmemory-policy", "volatile-lru"],
    );
    // The policy is read at most once a second.
    let changed_at = server_time_ms(&mut con);
    wait_until_server_time(&mut con, changed_at + 1100);
    call(&mut con, "RANK.GIFT b alice 1 IDMP seen e2");
    assert_eq!(info_counter(&mut con, "idmp_ids_evictable"), 1);
    assert_eq!(info_counter(&mut con, "idmp_ids_expiring"), 0);
    // A TTL on the seen-key: it would forget every id at once.
    ok(&mut con, &["PEXPIRE", "seen", "600000"]);
    call(&mut con, "RANK.GIFT b alice 1 IDMP seen e3");
    assert_eq!(info_counter(&mut con, "idmp_ids_expiring"), 1);
    assert!(
        server.log().contains("the IDMP seen-key 'seen' has a TTL"),
        "{}",
        server.log()
    );
}
