//! Small boards (up to 128 members) live in the skiplist layout: after RANK
//! writes, after DEBUG RELOAD, a restart and a replica's full sync, while
//! other sorted sets keep the layout the server picks, and replies and
//! scores are the same in either layout.

use crate::common::client::{ok, query};
use crate::common::data::{db_snapshot, zset_dump};
use crate::common::replication::assert_replicas_match;
use crate::common::{Server, ServerConfig};
use redis::{Connection, Value};

/// 2024-01-01T00:00:00Z, the default tie-break epoch.
const EPOCH: i64 = 1_704_067_200_000;

fn encoding(con: &mut Connection, key: &str) -> String {
    query(con, &["OBJECT", "ENCODING", key])
}

fn debug_server() -> ServerConfig {
    ServerConfig::default()
        .arg("enable-debug-command", "yes")
        .arg("zkit.convert-loaded-boards", "1")
}

/// `n` members gifted 1..=n coins, a minute apart, through RANK.GIFT.
fn fill_board(con: &mut Connection, key: &str, n: i64) {
    for i in 1..=n {
        let at = (EPOCH + i * 60_000).to_string();
        let _: (i64, i64) = query(
            con,
            &[
                "RANK.GIFT",
                key,
                &format!("m{i}"),
                &i.to_string(),
                "AT",
                &at,
            ],
        );
    }
}

fn page(con: &mut Connection, key: &str) -> Vec<(i64, String, i64)> {
    query(con, &["RANK.TOP", key, "200"])
}

/// Sorted sets that are not boards, and the layout each must keep.
const OTHER_SETS: &[(&str, &[&str])] = &[
    // Whole numbers: a counter set.
    ("counters", &["1", "a", "2", "b", "3", "c"]),
    // Mostly fractions, one whole number.
    ("mixed", &["1.5", "a", "2", "b"]),
    // Scores beyond a rank total (|score| >= 2^52).
    ("huge", &["9007199254740993.5", "a", "1.5", "b"]),
];

#[test]
fn every_rank_write_leaves_a_small_board_a_skiplist() {
    let server = Server::start();
    let mut con = server.connect();
    let _: (i64, i64) = query(&mut con, &["RANK.GIFT", "gift", "alice", "5"]);
    let _: (i64, i64) = query(&mut con, &["RANK.SET", "set", "alice", "5"]);
    let _: Vec<(i64, i64)> = query(&mut con, &["RANK.MGIFT", "2", "day", "week", "bob", "3"]);
    for key in ["gift", "set", "day", "week"] {
        assert_eq!(encoding(&mut con, key), "skiplist", "{key}");
        assert_eq!(query::<i64>(&mut con, &["ZCARD", key]), 1, "{key}");
    }
    // ZSCORE still reads total + fraction.
    let score: f64 = query(&mut con, &["ZSCORE", "gift", "alice"]);
    assert_eq!(score.floor(), 5.0);
    assert!(score.fract() > 0.0, "{score}");

    // A board built by native commands is a listpack until a RANK write.
    ok(
        &mut con,
        &["ZADD", "native", "10.75", "a", "20.5", "b", "30.25", "c"],
    );
    assert_eq!(encoding(&mut con, "native"), "listpack");
    let before = zset_dump(&mut con, "native");
    let _: (i64, i64) = query(&mut con, &["RANK.GIFT", "native", "a", "100"]);
    assert_eq!(encoding(&mut con, "native"), "skiplist");
    let after = zset_dump(&mut con, "native");
    assert_eq!(after.len(), 3, "no member left behind: {after:?}");
    assert_eq!(&after[..2], &before[1..], "the other members are untouched");

    // A write that changes nothing leaves the layout alone.
    ok(&mut con, &["ZADD", "best", "10.5", "a"]);
    let _: (i64, i64) = query(&mut con, &["RANK.SET", "best", "a", "3", "GT"]);
    assert_eq!(encoding(&mut con, "best"), "listpack");

    // A longer listpack member limit takes a longer transient member.
    ok(
        &mut con,
        &["CONFIG", "SET", "zset-max-listpack-value", "300"],
    );
    let _: (i64, i64) = query(&mut con, &["RANK.GIFT", "long", "alice", "5"]);
    assert_eq!(encoding(&mut con, "long"), "skiplist");
    assert_eq!(query::<i64>(&mut con, &["ZCARD", "long"]), 1);
}

#[test]
fn replies_and_scores_are_the_same_in_either_layout() {
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["CONFIG", "SET", "zkit.small-board-max", "0"]);
    fill_board(&mut con, "listpack", 100);
    ok(&mut con, &["CONFIG", "SET", "zkit.small-board-max", "128"]);
    fill_board(&mut con, "skiplist", 100);
    assert_eq!(encoding(&mut con, "listpack"), "listpack");
    assert_eq!(encoding(&mut con, "skiplist"), "skiplist");
    assert_eq!(
        zset_dump(&mut con, "listpack"),
        zset_dump(&mut con, "skiplist")
    );
    assert_eq!(page(&mut con, "listpack"), page(&mut con, "skiplist"));
    for shared in [&[][..], &["SHARED"][..]] {
        let around = |con: &mut Connection, key: &str| -> Vec<(i64, String, i64)> {
            let mut words = vec!["RANK.AROUND", key, "m50", "3"];
            words.extend(shared);
            query(con, &words)
        };
        assert_eq!(around(&mut con, "listpack"), around(&mut con, "skiplist"));
        let mget = |con: &mut Connection, key: &str| -> Value {
            let mut words = vec!["RANK.MGET", key];
            words.extend(shared);
            words.extend(["MEMBERS", "m1", "m99", "nobody"]);
            ok(con, &words)
        };
        assert_eq!(mget(&mut con, "listpack"), mget(&mut con, "skiplist"));
    }
}

#[test]
fn boards_stay_skiplists_after_debug_reload_and_a_restart() {
    let server = Server::with(debug_server());
    let mut con = server.connect();
    for n in [10, 50, 100, 128] {
        fill_board(&mut con, &format!("board:{n}"), n);
    }
    // A listpack board built natively (as 0.2 left them) and a large one.
    ok(
        &mut con,
        &["ZADD", "board:native", "10.75", "a", "20.5", "b"],
    );
    fill_board(&mut con, "board:large", 129);
    for (key, words) in OTHER_SETS {
        let mut zadd = vec!["ZADD", key];
        zadd.extend(*words);
        ok(&mut con, &zadd);
    }
    let pages: Vec<_> = [10, 50, 100, 128]
        .iter()
        .map(|n| page(&mut con, &format!("board:{n}")))
        .collect();
    let snapshot = db_snapshot(&mut con);

    let check = |con: &mut Connection, when: &str| {
        for n in [10, 50, 100, 128] {
            let key = format!("board:{n}");
            assert_eq!(encoding(con, &key), "skiplist", "{key} {when}");
        }
        assert_eq!(encoding(con, "board:native"), "skiplist", "{when}");
        assert_eq!(encoding(con, "board:large"), "skiplist", "{when}");
        for (key, _) in OTHER_SETS {
            assert_eq!(encoding(con, key), "listpack", "{key} {when}");
        }
        assert!(db_snapshot(con) == snapshot, "data differs {when}");
        for (n, expected) in [10, 50, 100, 128].iter().zip(&pages) {
            assert_eq!(&page(con, &format!("board:{n}")), expected, "{when}");
        }
    };
    ok(&mut con, &["DEBUG", "RELOAD"]);
    check(&mut con, "after DEBUG RELOAD");

    ok(&mut con, &["SAVE"]);
    drop(con);
    let dir = server.shutdown_keep_dir();
    let restarted = Server::with(debug_server().in_dir(&dir));
    let mut con = restarted.connect();
    check(&mut con, "after a restart");
    // A limit raised since the last conversion takes a longer member.
    ok(
        &mut con,
        &["CONFIG", "SET", "zset-max-listpack-value", "300"],
    );
    ok(&mut con, &["DEBUG", "RELOAD"]);
    check(&mut con, "after a reload with a higher listpack limit");

    // With the config at 0, a load leaves the server's layout.
    ok(&mut con, &["CONFIG", "SET", "zkit.small-board-max", "0"]);
    ok(&mut con, &["DEBUG", "RELOAD"]);
    assert_eq!(encoding(&mut con, "board:100"), "listpack");
    let _: (i64, i64) = query(&mut con, &["RANK.GIFT", "board:100", "m1", "1"]);
    assert_eq!(encoding(&mut con, "board:100"), "listpack");
}

/// Without `zkit.convert-loaded-boards`, an RDB load gives every small
/// sorted set the layout the server picks (a user's own fractional set
/// included), and a board moves to the skiplist at its next RANK write.
#[test]
fn by_default_a_load_leaves_small_sets_to_the_server_until_a_rank_write() {
    let server = Server::with(ServerConfig::default().arg("enable-debug-command", "yes"));
    let mut con = server.connect();
    fill_board(&mut con, "board", 100);
    ok(&mut con, &["ZADD", "fractions", "1.5", "a", "2.25", "b"]);
    assert_eq!(encoding(&mut con, "board"), "skiplist");
    let before = page(&mut con, "board");

    ok(&mut con, &["DEBUG", "RELOAD"]);
    assert_eq!(encoding(&mut con, "board"), "listpack");
    assert_eq!(encoding(&mut con, "fractions"), "listpack");
    // Reads leave the layout as it is and answer the same.
    assert_eq!(page(&mut con, "board"), before);
    assert_eq!(encoding(&mut con, "board"), "listpack");

    let (total, _rank): (i64, i64) = query(&mut con, &["RANK.GIFT", "board", "m1", "1"]);
    assert_eq!(total, 2);
    assert_eq!(encoding(&mut con, "board"), "skiplist");
    assert_eq!(encoding(&mut con, "fractions"), "listpack");
}

#[test]
fn replicas_keep_boards_skiplists_through_writes_and_a_full_sync() {
    let master = Server::start();
    let mut con = master.connect();
    fill_board(&mut con, "before-sync", 100);
    ok(&mut con, &["ZADD", "counters", "1", "a", "2", "b"]);
    // This replica's full sync loads the master's RDB.
    let (with_module, without_module) = (
        Server::with(
            ServerConfig::default()
                .arg("zkit.convert-loaded-boards", "1")
                .replica_of(&master),
        ),
        Server::with(ServerConfig::without_module().replica_of(&master)),
    );
    with_module.wait_until_synced();
    without_module.wait_until_synced();
    // Boards written after the sync convert on the replicas through the
    // replicated ZADD and ZREM of the transient member.
    fill_board(&mut con, "after-sync", 50);
    ok(&mut con, &["ZADD", "native", "10.75", "a"]);
    let _: (i64, i64) = query(&mut con, &["RANK.GIFT", "native", "b", "1"]);
    let replicas = [with_module, without_module];
    assert_replicas_match(&master, &replicas);

    let mut module_replica = replicas[0].connect();
    assert_eq!(encoding(&mut module_replica, "before-sync"), "skiplist");
    assert_eq!(encoding(&mut module_replica, "counters"), "listpack");
    for (i, replica) in replicas.iter().enumerate() {
        let mut rcon = replica.connect();
        for key in ["after-sync", "native"] {
            assert_eq!(encoding(&mut rcon, key), "skiplist", "replica {i}: {key}");
        }
    }
}
