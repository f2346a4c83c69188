//! Small boards (up to 128 members): the server's compact listpack while
//! quiet, the skiplist while hot (written often), back to the listpack once
//! quiet again or after any reload; replies and data are the same either way,
//! and nothing of the layout shows in replication, the AOF, MONITOR, keyspace
//! events or commandstats.

use std::time::Duration;

use crate::common::client::{ok, query};
use crate::common::data::{db_snapshot, zset_dump, DbContents};
use crate::common::facts::command_stat;
use crate::common::keyspace::{events_on, monitor_lines, watch_survives};
use crate::common::replication::{
    aof_bytes, assert_aof_replays_without_module, assert_replicas_match,
};
use crate::common::{stat, wait_blocked, wait_for, Server, ServerConfig};
use redis::{Connection, Value};

/// 2024-01-01T00:00:00Z, the default tie-break epoch.
const EPOCH: i64 = 1_704_067_200_000;

/// What a board may cost per member, against the same board in zkit 0.2's
/// layout (the listpack the server picks).
const MEMORY_TARGET: f64 = 1.5;

const WAIT: Duration = Duration::from_secs(20);

fn encoding(con: &mut Connection, key: &str) -> String {
    query(con, &["OBJECT", "ENCODING", key])
}

fn wait_encoding(con: &mut Connection, key: &str, expected: &str) {
    wait_for(WAIT, || encoding(con, key) == expected);
}

/// `n` members set to totals 1..=n, a minute apart, by RANK.SET, with the
/// layout left to the server meanwhile (as if the room had filled over
/// hours).
fn fill_board_quietly(con: &mut Connection, key: &str, n: i64) {
    let max: Vec<String> = query(con, &["CONFIG", "GET", "zkit.small-set-max"]);
    ok(con, &["CONFIG", "SET", "zkit.small-set-max", "0"]);
    for i in 1..=n {
        let at = (EPOCH + i * 60_000).to_string();
        let _: (i64, i64) = query(
            con,
            &["RANK.SET", key, &format!("m{i}"), &i.to_string(), "AT", &at],
        );
    }
    ok(con, &["CONFIG", "SET", "zkit.small-set-max", &max[1]]);
}

/// `writes` gifts to `key` in one round trip: a busy room.
fn burst(con: &mut Connection, key: &str, writes: usize) {
    let mut pipe = redis::pipe();
    for _ in 0..writes {
        pipe.cmd("RANK.GIFT").arg(key).arg("m1").arg(1).ignore();
    }
    let () = pipe.query(con).expect("a burst of gifts");
}

fn bytes_per_member(con: &mut Connection, key: &str) -> f64 {
    let bytes: i64 = query(con, &["MEMORY", "USAGE", key, "SAMPLES", "0"]);
    let members: i64 = query(con, &["ZCARD", key]);
    bytes as f64 / members as f64
}

/// Asserts `key` costs at most [`MEMORY_TARGET`] times per member what the
/// same members and scores cost in zkit 0.2's layout (a listpack the server
/// built, from a ZADD of them).
fn assert_compact(con: &mut Connection, key: &str, when: &str) {
    let pairs = zset_dump(con, key);
    let mut zadd = vec!["ZADD", "reference:0.2-layout"];
    for (member, score) in &pairs {
        zadd.extend([score.as_str(), member.as_str()]);
    }
    ok(con, &["DEL", "reference:0.2-layout"]);
    ok(con, &zadd);
    assert_eq!(encoding(con, "reference:0.2-layout"), "listpack");
    let (board, reference) = (
        bytes_per_member(con, key),
        bytes_per_member(con, "reference:0.2-layout"),
    );
    ok(con, &["DEL", "reference:0.2-layout"]);
    assert!(
        board <= MEMORY_TARGET * reference,
        "{key} {when}: {board:.1} bytes a member, 0.2's layout {reference:.1}"
    );
}

fn zkit_stat(con: &mut Connection, field: &str) -> i64 {
    stat(con, "zkit", &format!("zkit_{field}"))
}

/// RANK.TOP's rows: rank, member, total.
type Page = Vec<(i64, String, i64)>;

fn page(con: &mut Connection, key: &str) -> Page {
    query(con, &["RANK.TOP", key, "200"])
}

#[test]
fn a_board_written_now_and_then_keeps_the_compact_layout() {
    let server = Server::start();
    let mut con = server.connect();
    fill_board_quietly(&mut con, "room", 50);
    let _: (i64, i64) = query(&mut con, &["RANK.GIFT", "room", "m3", "5"]);
    let _: (i64, i64) = query(&mut con, &["RANK.SET", "room", "m4", "100"]);
    let _: Vec<(i64, i64)> = query(&mut con, &["RANK.MGIFT", "2", "room", "week", "m5", "1"]);
    for key in ["room", "week"] {
        assert_eq!(encoding(&mut con, key), "listpack", "{key}");
    }
    assert_compact(&mut con, "room", "after three writes");
    assert_eq!(zkit_stat(&mut con, "boards_moved_to_skiplist"), 0);
    assert_eq!(zkit_stat(&mut con, "hot_sets"), 0);
}

#[test]
fn a_busy_board_moves_to_the_skiplist_and_back_when_it_goes_quiet() {
    let server = Server::with(
        ServerConfig::default()
            .arg("zkit.cold-set-ms", "2500")
            .arg("enable-module-command", "local"),
    );
    let mut con = server.connect();
    fill_board_quietly(&mut con, "room", 50);
    ok(&mut con, &["PEXPIRE", "room", "600000"]);
    burst(&mut con, "room", 20);
    assert_eq!(encoding(&mut con, "room"), "skiplist");
    assert_eq!(zkit_stat(&mut con, "hot_sets"), 1);
    assert_eq!(zkit_stat(&mut con, "boards_moved_to_skiplist"), 1);
    let data = zset_dump(&mut con, "room");
    let ttl: i64 = query(&mut con, &["PTTL", "room"]);

    // Quiet for zkit.cold-set-ms: back to the listpack, nothing else
    // changed: members, scores, the TTL, the idle time (a rebuilt key that
    // lost it would read 0), and a WATCH on it still commits.
    let watch_kept = watch_survives(&server, "room", |con| {
        wait_encoding(con, "room", "listpack");
    });
    assert!(watch_kept, "the rebuild invalidated a WATCH");
    // (OBJECT and PTTL do not count as an access; ZRANGE does.)
    let idle: i64 = query(&mut con, &["OBJECT", "IDLETIME", "room"]);
    assert!(idle >= 2, "idle {idle} s after 2.5 s without a write");
    let ttl_after: i64 = query(&mut con, &["PTTL", "room"]);
    assert!(
        ttl_after <= ttl && ttl_after > ttl - 15_000,
        "{ttl} -> {ttl_after}"
    );
    assert_eq!(zset_dump(&mut con, "room"), data);
    assert_eq!(zkit_stat(&mut con, "boards_back_to_listpack"), 1);
    assert_eq!(zkit_stat(&mut con, "hot_sets"), 0);
    assert_compact(&mut con, "room", "after it went quiet");

    // The same in another database.
    ok(&mut con, &["SELECT", "3"]);
    fill_board_quietly(&mut con, "room", 20);
    burst(&mut con, "room", 20);
    assert_eq!(encoding(&mut con, "room"), "skiplist");
    wait_encoding(&mut con, "room", "listpack");
    ok(&mut con, &["SELECT", "0"]);

    // A hot board holds no timer: the module unloads at once.
    burst(&mut con, "room", 20);
    assert_eq!(zkit_stat(&mut con, "hot_sets"), 1);
    ok(&mut con, &["MODULE", "UNLOAD", "zkit"]);
    assert_eq!(zset_dump(&mut con, "room").len(), 50);
}

/// A master with an AOF, a replica with zkit and one without, synced, and a
/// board of 20 members on them.
fn replicated_board(master_config: ServerConfig) -> (Server, [Server; 2]) {
    let master = Server::with(
        master_config
            .arg("appendonly", "yes")
            .arg("appendfsync", "always"),
    );
    let replicas = [
        Server::with(ServerConfig::default().replica_of(&master)),
        Server::with(ServerConfig::without_module().replica_of(&master)),
    ];
    for replica in &replicas {
        replica.wait_until_synced();
    }
    fill_board_quietly(&mut master.connect(), "room", 20);
    master.wait_for_replicas(2);
    (master, replicas)
}

/// Runs `writes` (which makes `gifts` RANK.GIFTs on the master's "room")
/// and asserts that nothing but the gifts shows: in the master's MONITOR
/// and commandstats (no OBJECT, no CONFIG), in the replica's MONITOR (one
/// ZADD per gift), in keyspace events on both sides (one per gift), in the
/// AOF (no other member, no ZREM). Then the replicas hold exactly the
/// master's data.
fn assert_only_the_gifts_show(
    master: &Server,
    replicas: &[Server; 2],
    gifts: usize,
    writes: impl FnOnce(&mut Connection),
) {
    let mut con = master.connect();
    let (mut master_lines, mut replica_lines) = (Vec::new(), Vec::new());
    let mut master_events = Vec::new();
    let (mut config_calls, mut object_calls) = ((0, 0), (0, 0));
    let replica_events = events_on(&replicas[0], || {
        master_events = events_on(master, || {
            config_calls.0 = command_stat(&mut con, "config", "calls");
            object_calls.0 = command_stat(&mut con, "object", "calls");
            master_lines = monitor_lines(master, master, || {
                replica_lines = monitor_lines(&replicas[0], master, || {
                    writes(&mut con);
                    master.wait_for_replicas(2);
                });
            });
            config_calls.1 = command_stat(&mut con, "config", "calls");
            object_calls.1 = command_stat(&mut con, "object", "calls");
        });
    });

    let commands = |lines: &[String], name: &str| {
        let quoted = format!("\"{name}\"");
        lines
            .iter()
            .filter(|line| line.to_lowercase().contains(&quoted))
            .count()
    };
    assert_eq!(
        commands(&master_lines, "rank.gift"),
        gifts,
        "{master_lines:#?}"
    );
    for name in ["object", "config"] {
        assert_eq!(commands(&master_lines, name), 0, "{master_lines:#?}");
    }
    assert_eq!(config_calls.0, config_calls.1, "CONFIG calls while writing");
    assert_eq!(object_calls, (0, 0), "OBJECT calls");
    // The replica applies one ZADD per gift, and nothing else on the board.
    assert_eq!(
        commands(&replica_lines, "zadd"),
        gifts,
        "{replica_lines:#?}"
    );
    assert_eq!(commands(&replica_lines, "zrem"), 0, "{replica_lines:#?}");
    assert!(
        !replica_lines.iter().any(|l| l.contains("skiplist-layout")),
        "{replica_lines:#?}"
    );
    assert_eq!(master_events.len(), gifts, "{master_events:?}");
    assert!(master_events.iter().all(|(c, _)| c.ends_with(":zincr")));
    assert_eq!(replica_events.len(), gifts, "{replica_events:?}");
    assert!(replica_events.iter().all(|(c, _)| c.ends_with(":zadd")));

    let aof = aof_bytes(&master.dir).to_ascii_lowercase();
    for absent in [&b"skiplist-layout"[..], b"zrem"] {
        assert!(
            !aof.windows(absent.len()).any(|w| w == absent),
            "the AOF holds {}",
            String::from_utf8_lossy(absent)
        );
    }
    assert_replicas_match(master, replicas);
}

/// Issue 30, item 9: in 0.3.0 the replication stream and the AOF carried a
/// phantom member (`ZADD board 0 zkit:skiplist-layout:...` and its `ZREM`),
/// replicas fired a `zrem` the master never fired, and every small-board
/// write ran `OBJECT ENCODING` (MONITOR, commandstats).
#[test]
fn moving_a_busy_board_leaves_no_trace_in_replication_aof_monitor_or_events() {
    let (master, replicas) = replicated_board(ServerConfig::default());
    assert_only_the_gifts_show(&master, &replicas, 20, |con| burst(con, "room", 20));
    let mut con = master.connect();
    assert_eq!(encoding(&mut con, "room"), "skiplist");
    for replica in &replicas {
        assert_eq!(encoding(&mut replica.connect(), "room"), "listpack");
    }
    assert_aof_replays_without_module(master);
}

#[test]
fn moving_a_quiet_board_back_leaves_no_trace_either() {
    let (master, replicas) =
        replicated_board(ServerConfig::default().arg("zkit.cold-set-ms", "300"));
    assert_only_the_gifts_show(&master, &replicas, 20, |con| {
        burst(con, "room", 20);
        wait_for(WAIT, || zkit_stat(con, "boards_back_to_listpack") == 1);
        assert_eq!(zkit_stat(con, "boards_moved_to_skiplist"), 1);
    });
    assert_aof_replays_without_module(master);
}

/// `reads` RANK.TOP calls on `key` in one round trip: a leaderboard many
/// viewers refresh.
fn page_views(con: &mut Connection, key: &str, reads: usize) {
    let mut pipe = redis::pipe();
    for _ in 0..reads {
        pipe.cmd("RANK.TOP").arg(key).arg(10).ignore();
    }
    let () = pipe.query(con).expect("a burst of page views");
}

#[test]
fn a_board_read_often_moves_too_on_a_replica_as_on_its_master() {
    let master = Server::with(ServerConfig::default().arg("zkit.cold-set-ms", "300"));
    let replica = Server::with(
        ServerConfig::default()
            .arg("zkit.cold-set-ms", "300")
            .replica_of(&master),
    );
    replica.wait_until_synced();
    let mut con = master.connect();
    fill_board_quietly(&mut con, "room", 50);
    master.wait_for_replicas(1);
    // Reads move a board they make hot, on a replica as on its master (a
    // layout of its own: nothing is replicated either way).
    let mut rcon = replica.connect();
    let before = page(&mut rcon, "room");
    page_views(&mut rcon, "room", 24);
    assert_eq!(encoding(&mut rcon, "room"), "skiplist");
    assert_eq!(encoding(&mut con, "room"), "listpack");
    assert_eq!(page(&mut rcon, "room"), before);
    wait_encoding(&mut rcon, "room", "listpack");
    assert_eq!(zkit_stat(&mut rcon, "boards_back_to_listpack"), 1);

    // Member reads count a quarter of a write each: 48 of them make it hot.
    let mut pipe = redis::pipe();
    for _ in 0..47 {
        pipe.cmd("RANK.GET").arg("room").arg("m7").ignore();
    }
    let () = pipe.query(&mut con).expect("member reads");
    assert_eq!(encoding(&mut con, "room"), "listpack");
    let _: Value = query(&mut con, &["RANK.GET", "room", "m7"]);
    assert_eq!(encoding(&mut con, "room"), "skiplist");
    assert_replicas_match(&master, &[replica]);
}

#[test]
fn a_board_waits_while_new_key_events_are_on() {
    let server = Server::with(ServerConfig::default().arg("zkit.cold-set-ms", "200"));
    let mut con = server.connect();
    fill_board_quietly(&mut con, "room", 20);
    // A rebuild fires `new`: with `n` on, hot boards stay skiplists.
    ok(
        &mut con,
        &["CONFIG", "SET", "notify-keyspace-events", "KEAn"],
    );
    let mut sub_con = server.connect();
    let mut pubsub = sub_con.as_pubsub();
    pubsub.psubscribe("__keyevent@*__:new").unwrap();
    pubsub
        .set_read_timeout(Some(Duration::from_millis(1500)))
        .unwrap();
    burst(&mut con, "room", 20);
    assert!(pubsub.get_message().is_err(), "a `new` event fired");
    assert_eq!(encoding(&mut con, "room"), "skiplist");
    assert_eq!(zkit_stat(&mut con, "boards_back_to_listpack"), 0);

    ok(
        &mut con,
        &["CONFIG", "SET", "notify-keyspace-events", "KEA"],
    );
    wait_encoding(&mut con, "room", "listpack");
}

#[test]
fn reloads_and_restarts_bring_boards_back_compact_and_convert_nothing_at_load() {
    // The retired zkit.convert-loaded-boards is still accepted.
    let config = || {
        ServerConfig::default()
            .arg("enable-debug-command", "yes")
            .arg("zkit.convert-loaded-boards", "1")
    };
    let server = Server::with(config());
    let mut con = server.connect();
    let sizes = [10, 50, 100, 128];
    for n in sizes {
        let key = format!("board:{n}");
        fill_board_quietly(&mut con, &key, n);
        burst(&mut con, &key, 20);
        assert_eq!(encoding(&mut con, &key), "skiplist", "{key}");
    }
    // What a client reads before each reload, and what it must read after.
    let state = |con: &mut Connection| {
        let pages: Vec<_> = sizes
            .iter()
            .map(|n| page(con, &format!("board:{n}")))
            .collect();
        (pages, db_snapshot(con))
    };
    let check = |con: &mut Connection, before: (Vec<Page>, DbContents), when: &str| {
        let (pages, snapshot) = before;
        for (n, expected) in sizes.iter().zip(&pages) {
            let key = format!("board:{n}");
            assert_eq!(encoding(con, &key), "listpack", "{key} {when}");
            assert_eq!(&page(con, &key), expected, "{key} {when}");
        }
        assert!(db_snapshot(con) == snapshot, "data differs {when}");
        assert_eq!(zkit_stat(con, "hot_sets"), 0, "{when}");
        assert_compact(con, "board:50", when);
        // A write after the load converts nothing; a busy board moves again.
        let _: (i64, i64) = query(con, &["RANK.GIFT", "board:50", "m1", "1"]);
        assert_eq!(encoding(con, "board:50"), "listpack", "{when}");
        assert_compact(con, "board:50", &format!("{when}, after a write"));
        burst(con, "board:100", 20);
        assert_eq!(encoding(con, "board:100"), "skiplist", "{when}");
    };
    let before = state(&mut con);
    ok(&mut con, &["DEBUG", "RELOAD"]);
    check(&mut con, before, "after DEBUG RELOAD");

    let before = state(&mut con);
    ok(&mut con, &["SAVE"]);
    drop(con);
    let dir = server.shutdown_keep_dir();
    let restarted = Server::with(config().in_dir(&dir));
    let mut con = restarted.connect();
    check(&mut con, before, "after a restart");
    assert!(restarted
        .log()
        .contains("zkit.convert-loaded-boards is retired"));
}

/// The layout configs, each as (its name, its name before 0.5.0).
const RENAMED_CONFIGS: [(&str, &str); 3] = [
    ("zkit.small-set-max", "zkit.small-board-max"),
    ("zkit.hot-set-writes", "zkit.hot-board-writes"),
    ("zkit.cold-set-ms", "zkit.cold-board-ms"),
];

/// CONFIG GET of one config named exactly: its value.
fn config_value(con: &mut Connection, name: &str) -> String {
    let reply: Vec<String> = query(con, &["CONFIG", "GET", name]);
    assert_eq!(reply.len(), 2, "CONFIG GET {name}: {reply:?}");
    assert_eq!(reply[0], name);
    reply[1].clone()
}

/// Asserts each layout config reads `values` under both its names.
fn assert_configs(con: &mut Connection, values: [&str; 3], when: &str) {
    for ((name, former), value) in RENAMED_CONFIGS.iter().zip(values) {
        assert_eq!(config_value(con, name), value, "{name} {when}");
        assert_eq!(config_value(con, former), value, "{former} {when}");
    }
}

/// Issue 42: the layout configs were named for boards, and apply to every
/// small sorted set zkit writes. Their names before 0.5.0 still work as
/// deprecated aliases: in redis.conf, as load arguments and with CONFIG
/// SET, on the same value as the new names, each setting by an old name
/// logged with the new name.
#[test]
fn the_layout_configs_former_names_set_and_read_the_same_values() {
    let server = Server::with(
        ServerConfig::default()
            // redis.conf from before 0.5.0, and one that sets both names of
            // a config: the new name's value wins.
            .conf("zkit.hot-board-writes 20\nzkit.cold-set-ms 5000\nzkit.cold-board-ms 6000\n")
            // A load argument by its old name, without the prefix.
            .module_arg("small-board-max")
            .module_arg("64"),
    );
    let mut con = server.connect();
    assert_configs(&mut con, ["64", "20", "5000"], "at load");
    let log = server.log();
    for former in ["zkit.small-board-max", "zkit.hot-board-writes"] {
        assert_eq!(
            log.matches(&format!("{former} is deprecated")).count(),
            1,
            "{log}"
        );
    }
    assert!(
        log.contains("zkit.cold-board-ms 6000 is ignored") && log.contains("zkit.cold-set-ms"),
        "{log}"
    );
    // CONFIG GET zkit.* lists each config once, by its name now.
    let all: Vec<String> = query(&mut con, &["CONFIG", "GET", "zkit.*"]);
    for (name, former) in RENAMED_CONFIGS {
        assert!(all.iter().any(|n| n == name), "{all:?}");
        assert!(!all.iter().any(|n| n == former), "{all:?}");
    }

    // Set by the old names, read by the new ones, and the other way round.
    ok(
        &mut con,
        &[
            "CONFIG",
            "SET",
            "zkit.small-board-max",
            "0",
            "zkit.hot-board-writes",
            "8",
            "zkit.cold-board-ms",
            "700",
        ],
    );
    assert_configs(
        &mut con,
        ["0", "8", "700"],
        "after CONFIG SET of the old names",
    );
    let log = server.log();
    for (name, former) in RENAMED_CONFIGS {
        let warning = log
            .lines()
            .rfind(|line| line.contains(&format!("{former} is deprecated")))
            .unwrap_or_else(|| panic!("no warning for {former}: {log}"));
        assert!(warning.contains(&format!("use {name}")), "{warning}");
    }
    ok(&mut con, &["CONFIG", "SET", "zkit.small-set-max", "100"]);
    ok(&mut con, &["CONFIG", "SET", "zkit.hot-set-writes", "12"]);
    ok(&mut con, &["CONFIG", "SET", "zkit.cold-set-ms", "30000"]);
    assert_configs(
        &mut con,
        ["100", "12", "30000"],
        "after CONFIG SET of the new names",
    );
    // Only the old names were named in the log.
    assert!(!server.log().contains("zkit.small-set-max is deprecated"));

    // What an old name sets is what the layout follows.
    ok(&mut con, &["CONFIG", "SET", "zkit.small-board-max", "0"]);
    burst(&mut con, "room", 30);
    assert_eq!(encoding(&mut con, "room"), "listpack");
    ok(&mut con, &["CONFIG", "SET", "zkit.small-board-max", "128"]);
    burst(&mut con, "room", 30);
    assert_eq!(encoding(&mut con, "room"), "skiplist");
    // Out of range under either name alike.
    for name in ["zkit.small-set-max", "zkit.small-board-max"] {
        let refused = crate::common::client::err(&mut con, &["CONFIG", "SET", name, "-1"]);
        assert!(refused.contains("argument must be between"), "{refused}");
    }
}

/// CONFIG REWRITE writes a config set off its default under both its names
/// (the server has no aliases for module configs), always with the same
/// value, and the next start reads that pair as one setting, silently; a
/// new name alone in redis.conf is not undone by its old name's default.
#[test]
fn config_rewrite_writes_both_names_of_a_layout_config_alike() {
    let config =
        || ServerConfig::default().conf("zkit.hot-board-writes 20\nzkit.small-set-max 100\n");
    let server = Server::with(config());
    let mut con = server.connect();
    assert_configs(&mut con, ["100", "20", "30000"], "at load");
    ok(&mut con, &["CONFIG", "SET", "zkit.cold-board-ms", "700"]);
    ok(&mut con, &["CONFIG", "REWRITE"]);
    let warnings = server.log().matches("is deprecated").count();
    assert_eq!(warnings, 2, "{}", server.log());
    let conf = std::fs::read_to_string(server.dir.join("redis.conf")).unwrap();
    for ((name, former), value) in RENAMED_CONFIGS.iter().zip(["100", "20", "700"]) {
        let lines: Vec<&str> = conf
            .lines()
            .filter(|line| {
                line.starts_with(&format!("{name} ")) || line.starts_with(&format!("{former} "))
            })
            .collect();
        assert!(!lines.is_empty(), "{name}: {conf}");
        for line in lines {
            assert!(line.ends_with(&format!(" {value}")), "{line}: {conf}");
        }
    }
    drop(con);
    let dir = server.shutdown_keep_dir();
    // The rewritten file loads the module itself.
    let restarted = Server::with(ServerConfig {
        with_module: false,
        ..config().in_dir(&dir)
    });
    let mut con = restarted.connect();
    assert_configs(&mut con, ["100", "20", "700"], "after a restart");
    let log = restarted.log();
    assert_eq!(log.matches("is deprecated").count(), warnings, "{log}");
    assert!(!log.contains("is ignored"), "{log}");
}

/// Issue 30, item 5: 0.3.0 read the layout with OBJECT and the member limit
/// with CONFIG on each small-board write, and silently kept the listpack
/// when either was renamed.
#[test]
fn renamed_config_and_object_commands_leave_the_layout_working() {
    let mut config = ServerConfig::default();
    for (command, renamed) in [("CONFIG", "zconfig"), ("OBJECT", "zobject")] {
        config
            .args
            .extend(["--rename-command", command, renamed].map(String::from));
    }
    let server = Server::with(config);
    let mut con = server.connect();
    let enc = |con: &mut Connection| -> String { query(con, &["ZOBJECT", "ENCODING", "room"]) };
    let mut pipe = redis::pipe();
    for i in 1..=30 {
        pipe.cmd("RANK.SET")
            .arg("room")
            .arg(format!("m{i}"))
            .arg(5)
            .ignore();
    }
    let () = pipe.query(&mut con).expect("30 writes");
    assert_eq!(enc(&mut con), "skiplist");
    // Without CONFIG zkit cannot read the member limit: it says so, and
    // moves boards with a member longer than any limit up to 4096.
    assert!(
        server.log().contains("could not read the listpack limits"),
        "{}",
        server.log()
    );
    ok(&mut con, &["ZCONFIG", "SET", "zkit.cold-set-ms", "300"]);
    wait_for(WAIT, || enc(&mut con) == "listpack");
    assert_eq!(zset_dump(&mut con, "room").len(), 30);
}

#[test]
fn the_server_listpack_limits_are_followed_as_they_change() {
    let server = Server::with(ServerConfig::default().arg("zkit.cold-set-ms", "300"));
    let mut con = server.connect();
    // Members up to 300 bytes fit a listpack: the move takes a longer
    // transient member, and the board still goes back.
    ok(
        &mut con,
        &["CONFIG", "SET", "zset-max-listpack-value", "300"],
    );
    let long = "x".repeat(200);
    let _: (i64, i64) = query(&mut con, &["RANK.GIFT", "long", &long, "5"]);
    assert_eq!(encoding(&mut con, "long"), "listpack");
    burst(&mut con, "long", 20);
    assert_eq!(encoding(&mut con, "long"), "skiplist");
    wait_encoding(&mut con, "long", "listpack");
    assert_eq!(zkit_stat(&mut con, "boards_back_to_listpack"), 1);

    // Back to 64: the board is a skiplist by the server's own rule (its
    // member is too long), and stays one after it goes quiet.
    ok(
        &mut con,
        &["CONFIG", "SET", "zset-max-listpack-value", "64"],
    );
    burst(&mut con, "long", 20);
    assert_eq!(encoding(&mut con, "long"), "skiplist");
    wait_for(WAIT, || zkit_stat(&mut con, "hot_sets") == 0);
    assert_eq!(encoding(&mut con, "long"), "skiplist");

    // A board over zset-max-listpack-entries is the server's skiplist:
    // zkit does not count it.
    ok(
        &mut con,
        &["CONFIG", "SET", "zset-max-listpack-entries", "16"],
    );
    fill_board_quietly(&mut con, "wide", 20);
    let moved = zkit_stat(&mut con, "boards_moved_to_skiplist");
    burst(&mut con, "wide", 20);
    assert_eq!(zkit_stat(&mut con, "boards_moved_to_skiplist"), moved);
    assert_eq!(zkit_stat(&mut con, "hot_sets"), 0);
}

#[test]
fn replies_and_scores_are_the_same_in_either_layout() {
    let server = Server::start();
    let mut con = server.connect();
    fill_board_quietly(&mut con, "listpack", 100);
    fill_board_quietly(&mut con, "skiplist", 100);
    // The same gift to each: in 0.2's layout, and moving the board.
    let gift = |con: &mut Connection, key: &str| {
        let at = (EPOCH + 1000 * 60_000).to_string();
        let _: (i64, i64) = query(con, &["RANK.GIFT", key, "m1", "1", "AT", &at]);
    };
    ok(&mut con, &["CONFIG", "SET", "zkit.small-set-max", "0"]);
    gift(&mut con, "listpack");
    ok(&mut con, &["CONFIG", "SET", "zkit.small-set-max", "128"]);
    ok(&mut con, &["CONFIG", "SET", "zkit.hot-set-writes", "1"]);
    gift(&mut con, "skiplist");
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
    // Percentiles, quantiles, counts, bands and ranks among members, read
    // through the server's own rank lookups or the key, whatever the
    // layout: on a board kept in the listpack (nothing moves while they
    // read) and on the skiplist one.
    ok(&mut con, &["CONFIG", "SET", "zkit.hot-set-writes", "0"]);
    fill_board_quietly(&mut con, "quiet", 100);
    gift(&mut con, "quiet");
    assert_eq!(
        zset_dump(&mut con, "quiet"),
        zset_dump(&mut con, "skiplist")
    );
    let reads: &[&[&str]] = &[
        &["RANK.PERCENTILE", "$", "m1"],
        &["RANK.PERCENTILE", "$", "m50"],
        &["RANK.QUANTILE", "$", "0"],
        &["RANK.QUANTILE", "$", "37.5"],
        &["RANK.QUANTILE", "$", "100"],
        &["RANK.COUNT", "$", "-inf", "+inf"],
        &["RANK.COUNT", "$", "(10", "50"],
        &["RANK.RANGE", "$", "+inf", "-inf"],
        &["RANK.RANGE", "$", "50", "(10", "LIMIT", "3", "20", "SHARED"],
        &["RANK.AMONG", "$", "MEMBERS", "m1", "m50", "nobody", "m99"],
        &["RANK.AMONG", "$", "SHARED", "MEMBERS", "m1", "m50", "m99"],
    ];
    for words in reads {
        let read = |con: &mut Connection, key: &str| -> Value {
            let words: Vec<&str> = words
                .iter()
                .map(|w| if *w == "$" { key } else { w })
                .collect();
            ok(con, &words)
        };
        let listpack = read(&mut con, "quiet");
        assert_eq!(listpack, read(&mut con, "skiplist"), "{words:?}");
        assert_ne!(listpack, Value::Nil, "{words:?}");
    }
    assert_eq!(encoding(&mut con, "quiet"), "listpack");
    assert_eq!(encoding(&mut con, "skiplist"), "skiplist");
}

/// `calls` copies of one command in one round trip.
fn repeat(con: &mut Connection, words: &[&str], calls: usize) {
    let mut pipe = redis::pipe();
    for _ in 0..calls {
        pipe.cmd(words[0]).arg(&words[1..]).ignore();
    }
    let () = pipe.query(con).expect("a burst of calls");
}

/// Feeds and recently-viewed lists are small sorted sets too: a busy one
/// (paged, posted to, viewed often) moves to the skiplist and back as a
/// board does, with the same replies, data, expiry and replicas, and an AOF
/// that replays without zkit.
#[test]
fn busy_feeds_and_recently_viewed_lists_move_to_the_skiplist_and_back() {
    let master = Server::with(
        ServerConfig::default()
            .arg("zkit.cold-set-ms", "500")
            .arg("appendonly", "yes")
            .arg("appendfsync", "always"),
    );
    let replica = Server::with(ServerConfig::without_module().replica_of(&master));
    replica.wait_until_synced();
    let mut con = master.connect();

    // A feed of 100 posts, written in one call: a listpack, quiet.
    let mut add = vec!["FEED.ADD".to_string(), "posts".to_string()];
    for i in 1..=100 {
        add.extend([
            (1_700_000_000_000_i64 + i * 1000).to_string(),
            format!("p{i}"),
        ]);
    }
    let added: i64 = query(
        &mut con,
        &add.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    assert_eq!(added, 100);
    let older = ["FEED.PAGE", "posts", "COUNT", "20"];
    let first: Value = query(&mut con, &older);
    repeat(&mut con, &older, 4);
    assert_eq!(encoding(&mut con, "posts"), "listpack");
    // Many readers page it: it moves, and pages the same.
    repeat(&mut con, &older, 30);
    assert_eq!(encoding(&mut con, "posts"), "skiplist");
    assert_eq!(query::<Value>(&mut con, &older), first);

    // A feed kept at its cap by many posts, and a recently-viewed list with
    // a TTL, viewed often: quiet after 3 calls, busy after 60.
    let post = |i: usize| -> Vec<String> {
        let at = (1_700_000_000_000 + i).to_string();
        ["FEED.ADD", "news", "CAP", "50", &at, &format!("n{i}")]
            .map(String::from)
            .to_vec()
    };
    let view = |i: usize| -> Vec<String> {
        let item = format!("item{}", i % 45);
        [
            "RECENT.ADD",
            "seen",
            "CAP",
            "40",
            "TTL",
            "600",
            "ITEMS",
            &item,
        ]
        .map(String::from)
        .to_vec()
    };
    for key in ["news", "seen"] {
        let call = |i| if key == "news" { post(i) } else { view(i) };
        // Busy is many writes within a second: on a loaded machine 60 calls
        // may spread wider, so they go on (up to 2,000) until it moves.
        let mut i = 0;
        while i < 60 || (i < 2000 && encoding(&mut con, key) != "skiplist") {
            let words = call(i);
            let _: i64 = query(
                &mut con,
                &words.iter().map(String::as_str).collect::<Vec<_>>(),
            );
            if i == 2 {
                assert_eq!(encoding(&mut con, key), "listpack", "{key}");
            }
            i += 1;
        }
        assert_eq!(encoding(&mut con, key), "skiplist", "{key}");
    }
    let news: i64 = query(&mut con, &["ZCARD", "news"]);
    assert_eq!(news, 50);
    // Each moved once; the ones written first may have cooled (and moved
    // back) while the later ones were written on a loaded machine, so only
    // the last is sure to be hot still.
    assert!(zkit_stat(&mut con, "hot_sets") >= 1);
    assert_eq!(zkit_stat(&mut con, "boards_moved_to_skiplist"), 3);

    let data: Vec<_> = ["posts", "news", "seen"]
        .iter()
        .map(|key| zset_dump(&mut con, key))
        .collect();
    let ttl: i64 = query(&mut con, &["PTTL", "seen"]);
    // Quiet: back to the listpack, the same members, scores and expiry.
    for key in ["posts", "news", "seen"] {
        wait_encoding(&mut con, key, "listpack");
    }
    for (key, before) in ["posts", "news", "seen"].iter().zip(&data) {
        assert_eq!(&zset_dump(&mut con, key), before, "{key}");
    }
    let ttl_after: i64 = query(&mut con, &["PTTL", "seen"]);
    assert!(
        ttl_after <= ttl && ttl_after > ttl - 15_000,
        "{ttl} -> {ttl_after}"
    );
    assert_eq!(zkit_stat(&mut con, "boards_back_to_listpack"), 3);
    assert_eq!(query::<Value>(&mut con, &older), first);
    assert_replicas_match(&master, &[replica]);
    assert_aof_replays_without_module(master);
}

/// `ZADD key score name{i} ...` for i in 1..=n, in one call.
fn fill_tasks(con: &mut Connection, key: &str, n: usize, score: impl Fn(usize) -> i64) {
    let mut words = vec!["ZADD".to_string(), key.to_string()];
    for i in 1..=n {
        words.extend([score(i).to_string(), format!("{key}{i}")]);
    }
    let added: i64 = query(con, &words.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(added, n as i64);
}

/// Delay queues and in-flight sets are small sorted sets too: one leased
/// into, handed tasks back or touched often moves to the skiplist and back,
/// with the same tasks, replicas and an AOF that replays without zkit. Going
/// back re-creates the key, which tells the server it was written: a worker
/// blocked on it looks, finds nothing due, and waits on.
#[test]
fn busy_delay_queues_and_inflight_sets_move_to_the_skiplist_and_back() {
    let master = Server::with(
        ServerConfig::default()
            .arg("appendonly", "yes")
            .arg("appendfsync", "always"),
    );
    let replica = Server::with(ServerConfig::without_module().replica_of(&master));
    replica.wait_until_synced();
    let mut con = master.connect();
    const LEASED: i64 = 4_000_000_000_000;

    // 60 tasks long due, claimed one by one with a lease into an in-flight
    // set already holding 40: quiet after 3 claims, busy after 60.
    fill_tasks(&mut con, "jobs", 60, |i| i as i64);
    fill_tasks(&mut con, "held", 40, |_| LEASED);
    for i in 0..60 {
        let claimed: Vec<(String, f64)> =
            query(&mut con, &["DELAY.POLL", "jobs", "LEASE", "held", "600000"]);
        assert_eq!(claimed, [(format!("jobs{}", i + 1), (i + 1) as f64)]);
        if i == 2 {
            assert_eq!(encoding(&mut con, "held"), "listpack");
        }
    }
    // A queue that is its own in-flight set (a visibility timeout), its
    // tasks handed back for ten minutes later, and a set whose leases
    // workers extend.
    fill_tasks(&mut con, "visible", 100, |_| LEASED);
    fill_tasks(&mut con, "leases", 50, |_| LEASED);
    for i in 1..=30 {
        let task = format!("visible{i}");
        let nacked: i64 = query(
            &mut con,
            &["DELAY.NACK", "visible", "visible", &task, "600000"],
        );
        let task = format!("leases{i}");
        let touched: i64 = query(&mut con, &["DELAY.TOUCH", "leases", &task, "600000"]);
        assert_eq!((nacked, touched), (1, 1));
        if i == 3 {
            assert_eq!(encoding(&mut con, "visible"), "listpack");
            assert_eq!(encoding(&mut con, "leases"), "listpack");
        }
    }
    let keys = ["held", "visible", "leases"];
    for key in keys {
        assert_eq!(encoding(&mut con, key), "skiplist", "{key}");
    }
    assert_eq!(zkit_stat(&mut con, "hot_sets"), 3);
    assert_eq!(zkit_stat(&mut con, "boards_moved_to_skiplist"), 3);
    let data: Vec<_> = keys.iter().map(|key| zset_dump(&mut con, key)).collect();

    // A worker waits on the visibility queue: nothing is due for ten
    // minutes, longer than the test takes on any machine.
    let mut waiting = master.connect();
    let waiter = std::thread::spawn(move || {
        query::<Option<Vec<(String, f64)>>>(&mut waiting, &["DELAY.BPOLL", "visible", "0"])
    });
    wait_blocked(&master, 1);
    // Quiet: back to the listpack, the same tasks and due times.
    ok(&mut con, &["CONFIG", "SET", "zkit.cold-set-ms", "300"]);
    for key in keys {
        wait_encoding(&mut con, key, "listpack");
    }
    for (key, before) in keys.iter().zip(&data) {
        assert_eq!(&zset_dump(&mut con, key), before, "{key}");
    }
    assert_eq!(zkit_stat(&mut con, "boards_back_to_listpack"), 3);
    // The worker looked when the queue was re-created, and still waits.
    wait_blocked(&master, 1);
    assert!(!waiter.is_finished());
    ok(&mut con, &["ZADD", "visible", "1", "now"]);
    let claimed = waiter.join().expect("the waiting worker");
    assert_eq!(claimed, Some(vec![("now".to_string(), 1.0)]));
    assert_replicas_match(&master, &[replica]);
    assert_aof_replays_without_module(master);
}

/// FEED.PAGE's items as (member, score text), and its bottom cursor.
fn feed_page(con: &mut Connection, words: &[&str]) -> (Vec<(String, String)>, Vec<u8>) {
    let reply: Value = query(con, words);
    let Value::Array(parts) = reply else {
        panic!("FEED.PAGE replied {reply:?}");
    };
    let text = |v: &Value| match v {
        Value::BulkString(b) => b.clone(),
        other => panic!("not a bulk string: {other:?}"),
    };
    let Value::Array(flat) = &parts[0] else {
        panic!("items are not an array: {parts:?}");
    };
    let items = flat
        .chunks(2)
        .map(|pair| {
            let [member, score] = pair else {
                panic!("an odd item list: {flat:?}")
            };
            (
                String::from_utf8(text(member)).unwrap(),
                String::from_utf8(text(score)).unwrap(),
            )
        })
        .collect();
    (items, text(&parts[2]))
}

/// The one thing a layout shows (docs/commands.md, the layout configs): an
/// item posted at -0 while its feed is busy reads -0 (a skiplist keeps the
/// sign), and 0 once the feed is a listpack again; cursors taken either way
/// page the same, -0 and 0 being one position.
#[test]
fn a_zero_scored_item_shows_its_sign_only_while_its_feed_is_busy() {
    let server = Server::with(ServerConfig::default().arg("zkit.cold-set-ms", "300"));
    let mut con = server.connect();
    let _: i64 = query(&mut con, &["FEED.ADD", "z", "1", "a", "2", "b", "3", "c"]);
    repeat(&mut con, &["FEED.PAGE", "z"], 30);
    assert_eq!(encoding(&mut con, "z"), "skiplist");
    let _: i64 = query(&mut con, &["FEED.ADD", "z", "-0", "zero"]);
    let (items, at_zero) = feed_page(&mut con, &["FEED.PAGE", "z", "COUNT", "4"]);
    let expected = |zero: &str| {
        [("c", "3"), ("b", "2"), ("a", "1"), ("zero", zero)]
            .map(|(m, s)| (m.to_string(), s.to_string()))
            .to_vec()
    };
    assert_eq!(items, expected("-0"));
    let (_, at_a) = feed_page(&mut con, &["FEED.PAGE", "z", "COUNT", "3"]);

    wait_encoding(&mut con, "z", "listpack");
    let (items, _) = feed_page(&mut con, &["FEED.PAGE", "z", "COUNT", "4"]);
    assert_eq!(items, expected("0"));
    let at_zero = String::from_utf8(at_zero).unwrap();
    let (newer, _) = feed_page(&mut con, &["FEED.PAGE", "z", "NEWER", &at_zero]);
    assert_eq!(newer, expected("0")[..3].to_vec());
    let at_a = String::from_utf8(at_a).unwrap();
    let (older, _) = feed_page(&mut con, &["FEED.PAGE", "z", "OLDER", &at_a]);
    assert_eq!(older, expected("0")[3..].to_vec());
}

#[test]
fn ranks_counted_through_a_small_board_match_zrevrank_and_zcount() {
    // Boards of up to 112 members (skiplist) count a first-come rank through
    // the key instead of calling ZREVRANK, and boards of up to 192 (either
    // layout) a shared one instead of calling ZCOUNT: boards at, around and
    // past both limits. Runs of equal totals set at the same instant tie in
    // score, where ZREVRANK puts the higher member first. Every rank a call
    // replies, first-come and SHARED, on the busy board and on the quiet one
    // (a listpack holds up to 128), is the server's.
    let server = Server::start();
    let mut con = server.connect();
    let at = (EPOCH + 60_000).to_string();
    let expect_native = |con: &mut Connection, key: &str, member: &str, rank: i64, shared: bool| {
        let expected = if shared {
            let total: f64 = query(con, &["ZSCORE", key, member]);
            let higher = (total.floor() as i64 + 1).to_string();
            let above: i64 = query(con, &["ZCOUNT", key, &higher, "+inf"]);
            above + 1
        } else {
            let index: i64 = query(con, &["ZREVRANK", key, member]);
            index + 1
        };
        assert_eq!(rank, expected, "{key} {member} shared {shared}");
    };
    let boards = [
        (20, "busy", "1"),
        (20, "quiet", "0"),
        (112, "busy", "1"),
        (113, "busy", "1"),
        (128, "quiet", "0"),
        (192, "busy", "1"),
        (193, "busy", "1"),
    ];
    for (size, layout_name, hot_writes) in boards {
        let key = &format!("{layout_name}:{size}");
        // Totals 0 to 9, most shared by several members.
        let totals: Vec<i64> = (0..size).map(|i| (i * 7 + i / 3) as i64 % 10).collect();
        ok(
            &mut con,
            &["CONFIG", "SET", "zkit.hot-set-writes", hot_writes],
        );
        for (i, total) in totals.iter().enumerate() {
            let member = format!("m{:03}", i * 37 % totals.len());
            let total = total.to_string();
            let _: (i64, i64) = query(&mut con, &["RANK.SET", key, &member, &total, "AT", &at]);
        }
        let layout = if hot_writes == "1" || size > 128 {
            "skiplist"
        } else {
            "listpack"
        };
        assert_eq!(encoding(&mut con, key), layout);
        let members: Vec<String> = query(&mut con, &["ZRANGE", key, "0", "-1"]);
        assert_eq!(members.len(), size, "{key}");
        for shared in [false, true] {
            let flag: &[&str] = if shared { &["SHARED"] } else { &[] };
            for member in &members {
                let mut words = vec!["RANK.GET", key, member.as_str()];
                words.extend(flag);
                let (_, rank, _): (i64, i64, i64) = query(&mut con, &words);
                expect_native(&mut con, key, member, rank, shared);
            }
            let mut words = vec!["RANK.MGET", key];
            words.extend(flag);
            words.push("MEMBERS");
            words.extend(members.iter().map(String::as_str));
            let entries: Vec<(i64, i64, i64)> = query(&mut con, &words);
            for (member, (_, rank, _)) in members.iter().zip(entries) {
                expect_native(&mut con, key, member, rank, shared);
            }
            // Gifts move members past the ties around them.
            for member in members.iter().step_by(3) {
                let mut words = vec!["RANK.GIFT", key, member.as_str(), "2", "AT", &at];
                words.extend(flag);
                let (_, rank): (i64, i64) = query(&mut con, &words);
                expect_native(&mut con, key, member, rank, shared);
                let mut words = vec!["RANK.MGIFT", "1", key, member.as_str(), "1", "AT", &at];
                words.extend(flag);
                let standings: Vec<(i64, i64)> = query(&mut con, &words);
                expect_native(&mut con, key, member, standings[0].1, shared);
            }
        }
        assert_eq!(encoding(&mut con, key), layout);
    }
}
