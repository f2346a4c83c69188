//! Servers hardened with `rename-command`: zkit runs some native commands
//! (ranks, counts, sets) and replicates its writes as native commands, all by
//! their own names. A server that renamed or disabled one of them must make
//! every zkit command that needs it refuse, naming it, before it writes
//! anything: before 0.3.1, RANK.GIFT with ZREVRANK renamed added the gift,
//! then failed, and the client's retry counted it twice.

use crate::common::client::{err, error_text, ok, query, run, words as words_of};
use crate::common::data::db_snapshot;
use crate::common::facts::examples;
use crate::common::{info_value, Server, ServerConfig};
use redis::Connection;

/// The name a test server gives a renamed command.
fn renamed_name(command: &str) -> String {
    format!("{}-renamed-for-zkit-tests", command.to_lowercase())
}

/// `config` with `command` renamed to `name` ("" disables it).
pub fn renaming(mut config: ServerConfig, command: &str, name: &str) -> ServerConfig {
    config.args.push("--rename-command".into());
    config.args.push(command.to_string());
    config.args.push(name.to_string());
    config
}

/// A zkit server on which each of `commands` exists only under
/// [`renamed_name`], with an AOF to see what it propagates.
fn server_renaming(commands: &[&str]) -> Server {
    let mut config = ServerConfig::default()
        .arg("appendonly", "yes")
        .arg("appendfsync", "always");
    for command in commands {
        config = renaming(config, command, &renamed_name(command));
    }
    Server::with(config)
}

/// The refusal of a command that needs `command` on such a server.
pub fn unavailable(command: &str) -> String {
    format!(
        "ERR this command needs {command}, which the server has renamed or disabled \
         (rename-command): nothing was changed"
    )
}

/// The bytes of every AOF file of a server: what it has propagated.
fn aof_bytes(server: &Server) -> u64 {
    let dir = server.dir.join("appendonlydir");
    let files = std::fs::read_dir(&dir)
        .map(|entries| entries.filter_map(Result::ok).collect::<Vec<_>>())
        .unwrap_or_default();
    // Redis 7.0 and later keep a folder of AOF files.
    assert!(!files.is_empty(), "no AOF files in {}", dir.display());
    files
        .iter()
        .map(|entry| entry.metadata().map_or(0, |m| m.len()))
        .sum()
}

#[test]
fn a_renamed_command_is_reported_at_load_and_a_gift_refuses_before_writing() {
    let server = server_renaming(&["ZREVRANK"]);
    let mut con = server.connect();
    ok(&mut con, &["ZADD", "board", "0", "bob"]);
    let before = db_snapshot(&mut con);
    let propagated = aof_bytes(&server);
    for gift in [
        &["RANK.GIFT", "board", "alice", "5"][..],
        &["RANK.SET", "board", "alice", "5"],
        &["RANK.MGIFT", "1", "board", "alice", "5"],
        &["RANK.GIFT", "board", "alice", "5", "IDMP", "seen", "e1"],
        &["RANK.GET", "board", "bob"],
    ] {
        assert_eq!(err(&mut con, gift), unavailable("ZREVRANK"), "{gift:?}");
        assert_eq!(db_snapshot(&mut con), before, "{gift:?} wrote");
        assert_eq!(aof_bytes(&server), propagated, "{gift:?} propagated");
    }
    // Shared ranks are counted with ZCOUNT, which the server still has.
    let reply: Vec<i64> = query(&mut con, &["RANK.GIFT", "board", "alice", "5", "SHARED"]);
    assert_eq!(reply, [5, 1]);

    // Operators see it in INFO and in the log.
    assert_eq!(
        info_value(&mut con, "zkit", "zkit_unavailable_commands"),
        "ZREVRANK"
    );
    assert!(
        server.log().contains("no command named ZREVRANK"),
        "the log names the command: {}",
        server.log()
    );
    let plain = Server::start();
    let mut con = plain.connect();
    assert_eq!(
        info_value(&mut con, "zkit", "zkit_unavailable_commands"),
        ""
    );
}

/// A snapshot of every key that works whatever the server renamed: names,
/// DUMP payloads (byte for byte: a write of any kind changes them) and
/// expiry times (PEXPIRETIME: a TTL that only ticks down is no change).
fn raw_snapshot(con: &mut Connection) -> Vec<(Vec<u8>, Vec<u8>, i64)> {
    let mut keys: Vec<Vec<u8>> = query(con, &["KEYS", "*"]);
    keys.sort();
    keys.into_iter()
        .map(|key| {
            let dump: Vec<u8> = redis::cmd("DUMP").arg(&key).query(con).unwrap();
            let ttl: i64 = redis::cmd("PEXPIRETIME").arg(&key).query(con).unwrap();
            (key, dump, ttl)
        })
        .collect()
}

/// Loads the data every call of the table would change, through the
/// renamed names where the server renamed a command.
fn seed(con: &mut Connection, renamed: &[&str]) {
    let zadd = if renamed.contains(&"ZADD") {
        renamed_name("ZADD")
    } else {
        "ZADD".to_string()
    };
    let mut add = |key: &str, score: &str, member: &str| {
        ok(con, &[&zadd, key, score, member]);
    };
    add("board", "10.5", "bob");
    add("seen", "1", "old-event");
    // Over 128 members a deep page starts where ZRANGE finds its first row,
    // and over 32 a rank is the server's; the small board refuses the same.
    for i in 0..200 {
        add("bigboard", &format!("{i}.5"), &format!("m{i}"));
    }
    add("queue", "0", "t1");
    add("inflight", "99999999999999", "t2");
    add("feed", "1", "a");
    add("recent", "1", "a");
    add("hits", "1", "1-0");
    add("holders", "99999999999999", "h1");
    add("scores", "0", "item");
    add("dead", "1", "t4");
}

/// The calls that need a native command, each with the data [`seed`] loads
/// for it to change. Writes first; the reads at the end change nothing
/// anyway and must name the command too.
const GIFT: &[&str] = &["RANK.GIFT", "board", "alice", "5"];
const GIFT_SHARED: &[&str] = &["RANK.GIFT", "board", "alice", "5", "SHARED"];
const WRITES: &[&[&str]] = &[
    GIFT,
    GIFT_SHARED,
    &["RANK.SET", "board", "alice", "5", "SHARED"],
    &["RANK.MGIFT", "1", "board", "alice", "5", "SHARED"],
    &["RANK.MERGE", "merged", "1", "board"],
    &["FEED.ADD", "feed", "CAP", "1", "2", "b"],
    &[
        "RECENT.ADD",
        "recent",
        "CAP",
        "1",
        "TTL",
        "60",
        "ITEMS",
        "b",
    ],
    &["DELAY.POLL", "queue", "LEASE", "inflight", "1000"],
    &["DELAY.ACK", "inflight", "TASKS", "t2"],
    &["DELAY.NACK", "inflight", "queue", "t2", "0"],
    &["DELAY.TOUCH", "inflight", "t2", "1000"],
    &["DELAY.BPOLL", "queue", "100", "LEASE", "inflight", "1000"],
    &["VOTE.CAST", "scores", "up", "down", "item", "ann", "UP"],
    &["RATE.ACQUIRE", "holders", "h2", "60000", "5"],
    &["RATE.RELEASE", "holders", "h1"],
];

/// Every command that may write a queue's job data (a hash), refused
/// whatever the data holds when the hash commands it replicates as are
/// renamed; the same commands without DATA still work.
const JOB_DATA_WRITES: &[&[&str]] = &[
    &[
        "DELAY.ADD",
        "queue",
        "DATA",
        "data",
        "JOBS",
        "0",
        "t3",
        "payload",
    ],
    &["DELAY.ADD", "queue", "DATA", "data", "TASKS", "0", "t3"],
    &[
        "DELAY.POLL",
        "queue",
        "LEASE",
        "inflight",
        "1000",
        "DATA",
        "data",
    ],
    &["DELAY.POLL", "empty", "DATA", "data"],
    &["DELAY.ACK", "inflight", "DATA", "data", "TASKS", "t2"],
    &["DELAY.NACK", "inflight", "queue", "t2", "0", "DATA", "data"],
    &[
        "DELAY.RETRY",
        "dead",
        "queue",
        "DATA",
        "data",
        "TASKS",
        "t4",
    ],
    &["DELAY.PAUSE", "queue", "data"],
    &["DELAY.RESUME", "queue", "data"],
];
const JOBS_WITHOUT_DATA: &[&[&str]] = &[
    &["DELAY.ADD", "queue", "TASKS", "0", "t3"],
    &["DELAY.JOB", "queue", "t1", "DATA", "data"],
];

/// For each native command: what refuses when it is renamed (besides every
/// write, for the commands writes replicate as), and what still works.
struct Row {
    renamed: &'static str,
    refused: &'static [&'static [&'static str]],
    served: &'static [&'static [&'static str]],
}

const REPLICATED_AS: &[&str] = &["ZADD", "ZREM", "ZREMRANGEBYSCORE", "PEXPIREAT", "UNLINK"];

const ROWS: &[Row] = &[
    Row {
        renamed: "ZREVRANK",
        refused: &[
            GIFT,
            &["RANK.SET", "board", "alice", "5"],
            &["RANK.MGIFT", "1", "board", "alice", "5"],
            &["RANK.GIFT", "board", "alice", "5", "IDMP", "seen", "e1"],
            &["RANK.GET", "board", "bob"],
            &["RANK.MGET", "board", "MEMBERS", "bob"],
            &["RANK.AROUND", "board", "bob", "1"],
            &["RANK.PERCENTILE", "board", "bob"],
        ],
        served: &[GIFT_SHARED],
    },
    Row {
        renamed: "ZCOUNT",
        refused: &[
            GIFT_SHARED,
            &["RANK.SET", "board", "alice", "5", "SHARED"],
            &["RANK.MGIFT", "1", "board", "alice", "5", "SHARED"],
            &["RATE.HIT", "hits", "60000", "10"],
            &["RANK.GET", "board", "bob", "SHARED"],
            &["RANK.GET", "bigboard", "m1", "SHARED"],
            &["RANK.TOP", "board", "10", "SHARED"],
            &["RANK.TOP", "bigboard", "10", "OFFSET", "150", "SHARED"],
            &["RANK.COUNT", "board", "-inf", "+inf"],
            &["RANK.RANGE", "board", "+inf", "-inf"],
            &["DELAY.STATS", "queue"],
            &["RATE.STATS", "hits", "WINDOWS", "60000"],
            &["RATE.PEEK", "hits", "60000", "10"],
            &["RATE.ACQUIRE", "holders", "h2", "60000", "5"],
        ],
        served: &[
            GIFT,
            &["RATE.RELEASE", "holders", "h1"],
            // Ranks among the given members are counted down their list.
            &["RANK.AMONG", "bigboard", "SHARED", "MEMBERS", "m1", "m2"],
        ],
    },
    Row {
        renamed: "ZRANGE",
        refused: &[
            &["RATE.HIT", "hits", "60000", "10"],
            &["RATE.PEEK", "hits", "60000", "10"],
            &["RATE.ACQUIRE", "holders", "h2", "60000", "5"],
            &["RANK.TOP", "bigboard", "10", "OFFSET", "150"],
            &["RANK.TOP", "bigboard", "10"],
            &["RANK.TOP", "board", "10"],
            &["RANK.AROUND", "bigboard", "m150", "5"],
            &["RANK.STATS", "bigboard"],
            &["RANK.QUANTILE", "board", "50"],
            &[
                "RANK.RANGE",
                "bigboard",
                "+inf",
                "-inf",
                "LIMIT",
                "150",
                "5",
            ],
        ],
        served: &[
            GIFT,
            &["RANK.GET", "board", "bob"],
            &["RANK.AMONG", "bigboard", "MEMBERS", "m1", "m2"],
        ],
    },
    Row {
        renamed: "MEMORY",
        refused: &[&["RANK.STATS", "bigboard"]],
        served: &[GIFT],
    },
    Row {
        renamed: "SADD",
        refused: &[&["VOTE.CAST", "scores", "up", "down", "item", "ann", "UP"]],
        served: &[GIFT],
    },
    Row {
        renamed: "SREM",
        refused: &[&["VOTE.CAST", "scores", "up", "down", "item", "ann", "UP"]],
        served: &[GIFT],
    },
    Row {
        renamed: "HSET",
        refused: JOB_DATA_WRITES,
        served: JOBS_WITHOUT_DATA,
    },
    Row {
        renamed: "HDEL",
        refused: JOB_DATA_WRITES,
        served: JOBS_WITHOUT_DATA,
    },
    Row {
        renamed: "SISMEMBER",
        refused: &[&["VOTE.STATE", "up", "down", "ann"]],
        served: &[&["VOTE.CAST", "scores", "up", "down", "item", "ann", "UP"]],
    },
];

/// Runs `call` on a server where `renamed` is renamed: it must fail with
/// the error naming `renamed`, and change no key, TTL or AOF byte.
fn assert_refused(server: &Server, con: &mut Connection, renamed: &str, call: &[&str]) {
    let before = raw_snapshot(con);
    let propagated = aof_bytes(server);
    assert_eq!(
        err(con, call),
        unavailable(renamed),
        "{call:?} with {renamed} renamed"
    );
    assert_eq!(
        raw_snapshot(con),
        before,
        "{call:?} wrote ({renamed} renamed)"
    );
    assert_eq!(
        aof_bytes(server),
        propagated,
        "{call:?} propagated ({renamed} renamed)"
    );
}

#[test]
fn every_command_that_needs_a_renamed_command_refuses_before_writing() {
    let rows = REPLICATED_AS
        .iter()
        .map(|&renamed| (renamed, WRITES, &[][..]))
        .chain(
            ROWS.iter()
                .map(|row| (row.renamed, row.refused, row.served)),
        );
    for (renamed, refused, served) in rows {
        let server = server_renaming(&[renamed]);
        let mut con = server.connect();
        seed(&mut con, &[renamed]);
        for call in refused {
            assert_refused(&server, &mut con, renamed, call);
        }
        for call in served {
            ok(&mut con, call);
        }
        assert_eq!(
            info_value(&mut con, "zkit", "zkit_unavailable_commands"),
            renamed
        );
    }
}

/// Every declaration's example, on a server that renamed a native command
/// zkit runs: one that needs it is refused naming it, and any call that
/// fails changed no key, TTL or AOF byte (state then differs from a plain
/// server's, so the examples after may fail otherwise, never half-way). A
/// new command is so held to the rule from the day it is declared; the
/// table above says which command needs which native command.
#[test]
fn every_declared_example_refuses_before_writing_with_a_native_command_renamed() {
    let natives = REPLICATED_AS
        .iter()
        .chain(ROWS.iter().map(|row| &row.renamed))
        .chain(&["RENAME"]);
    for &renamed in natives {
        let server = server_renaming(&[renamed]);
        let mut con = server.connect();
        let mut refused = 0;
        for (command, words) in examples() {
            let mut call: Vec<String> = words.clone();
            if !call[0].eq_ignore_ascii_case(&command) {
                // A native command that sets up the next example, under the
                // name the server gives it.
                if call[0].eq_ignore_ascii_case(renamed) {
                    call[0] = renamed_name(renamed);
                }
                ok(&mut con, &words_of(&call));
                continue;
            }
            let before = raw_snapshot(&mut con);
            let propagated = aof_bytes(&server);
            let Err(e) = run(&mut con, &words_of(&call)) else {
                continue;
            };
            let e = error_text(&e);
            refused += usize::from(e == unavailable(renamed));
            assert_eq!(
                raw_snapshot(&mut con),
                before,
                "{call:?} failed ({e}) but wrote, {renamed} renamed"
            );
            assert_eq!(
                aof_bytes(&server),
                propagated,
                "{call:?} failed ({e}) but propagated, {renamed} renamed"
            );
        }
        assert!(refused > 0, "no example needs {renamed}");
    }
}

#[test]
fn a_last_merge_step_refuses_before_writing_when_rename_is_renamed() {
    let server = server_renaming(&["RENAME"]);
    let mut con = server.connect();
    seed(&mut con, &[]);
    ok(&mut con, &["ZADD", "merged", "3.5", "old"]);
    // One step reads the whole source: it is the last, which renames.
    let call = [
        "RANK.MERGE",
        "merged",
        "1",
        "board",
        "STEP",
        "100",
        "staging",
        "0",
    ];
    assert_refused(&server, &mut con, "RENAME", &call);
}

#[test]
fn a_busy_small_board_moves_with_config_or_object_renamed() {
    // zkit asks neither on a write: each renamed, gifts are served (none
    // refused) and a busy board still moves to the skiplist layout
    // (docs/performance.md, "Small boards").
    for renamed in ["CONFIG", "OBJECT"] {
        let server = server_renaming(&[renamed]);
        let mut con = server.connect();
        let object = match renamed {
            "OBJECT" => renamed_name("OBJECT"),
            _ => "OBJECT".to_string(),
        };
        // In one round trip: 12 writes within a second make a board busy.
        let mut gifts = redis::pipe();
        for _ in 0..20 {
            gifts.cmd(GIFT[0]).arg(&GIFT[1..]);
        }
        let replies: Vec<(i64, i64)> = gifts.query(&mut con).expect("20 gifts served");
        assert_eq!(replies.last(), Some(&(100, 1)), "{renamed} renamed");
        let encoding: String = query(&mut con, &[&object, "ENCODING", "board"]);
        assert_eq!(encoding, "skiplist", "{renamed} renamed");
    }
}
