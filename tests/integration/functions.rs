//! The Functions library (functions/zkit.lua), zkit for servers that refuse
//! modules: it loads without the module on the server under test (so `make
//! compat` checks it on every server of the matrix), continues what the
//! module wrote and the reverse, replicates to a replica without the module,
//! works for an ACL user given FCALL, the commands it calls and its keys,
//! refuses before it writes a call that needs a native command the user may
//! not run or the server renamed (refusals.rs), and is refused under
//! maxmemory exactly where the module's commands are.
//! `make differential` holds its replies and data to the module's on random
//! calls.

use crate::common::client::{err, error_text, ok, query};
use crate::common::data::{db_snapshot, zset_dump};
use crate::common::facts::commands_json;
use crate::common::replication::assert_replicas_match;
use crate::common::workload::{mixed_calls, Rng};
use crate::common::{load_library, Server, ServerConfig};
use redis::{Connection, Value};
use serde_json::Value as Json;

mod refusals;

/// Every native command the library runs (functions/lua/natives.lua): an ACL
/// user calling it needs them (a script's calls are checked against its
/// caller), as docs/functions.md says.
const LIBRARY_NATIVES: &[&str] = &[
    "TIME",
    "ZADD",
    "ZINCRBY",
    "ZREM",
    "ZREMRANGEBYSCORE",
    "ZCARD",
    "ZSCORE",
    "ZRANGE",
    "ZREVRANK",
    "ZCOUNT",
    "PEXPIREAT",
    "PEXPIRETIME",
    "PERSIST",
    "UNLINK",
    "RENAME",
    "SADD",
    "SREM",
    "SCARD",
    "SISMEMBER",
    "MEMORY",
    "HSET",
    "HDEL",
    "HGET",
    "HEXISTS",
    "HLEN",
];

/// A zkit call sent to the library: `FCALL zkit_<family>_<verb>` with the
/// keys the library's `zkit_keys` finds in it.
fn fcall(con: &mut impl redis::ConnectionLike, words: &[&str]) -> redis::RedisResult<Value> {
    let keys: Vec<String> = redis::cmd("FCALL_RO")
        .arg("zkit_keys")
        .arg(0)
        .arg(words)
        .query(con)
        .unwrap_or_default();
    redis::cmd("FCALL")
        .arg(format!(
            "zkit_{}",
            words[0].to_lowercase().replace('.', "_")
        ))
        .arg(keys.len())
        .arg(&keys)
        .arg(&words[1..])
        .query(con)
}

fn fcall_ok(con: &mut impl redis::ConnectionLike, words: &[&str]) -> Value {
    fcall(con, words).unwrap_or_else(|e| panic!("FCALL {words:?}: {e}"))
}

/// Whether the library runs a call: everything but the blocking
/// DELAY.BPOLL.
fn in_library(call: &[String]) -> bool {
    !call[0].eq_ignore_ascii_case("DELAY.BPOLL")
}

/// `count` random calls of every family (the production checks' registry)
/// on keys under `prefix`, sent to the library, each of which must succeed;
/// how many the library runs.
fn run_family_calls(con: &mut Connection, seed: &str, prefix: &str, count: usize) -> usize {
    let mut rng = Rng::seeded(seed);
    let mut ran = 0;
    for call in mixed_calls(&mut rng, prefix, 3, count) {
        if !in_library(&call) {
            continue;
        }
        let words: Vec<&str> = call.iter().map(String::as_str).collect();
        fcall_ok(con, &words);
        ran += 1;
    }
    ran
}

/// A server without the module, with the library loaded.
fn library_server(config: ServerConfig) -> Server {
    let server = Server::with(config);
    load_library(&mut server.connect());
    server
}

fn has_flag(spec: &Json, flag: &str) -> bool {
    spec["command_flags"]
        .as_array()
        .is_some_and(|flags| flags.iter().any(|f| f == flag))
}

#[test]
fn the_library_loads_without_the_module_with_a_function_per_command() {
    let server = library_server(ServerConfig::without_module());
    let mut con = server.connect();
    // Servers may load modules of their own (Redis 8's vectorset, Valkey
    // 9's lua), but not zkit.
    let modules: Vec<Vec<Value>> = query(&mut con, &["MODULE", "LIST"]);
    let names: Vec<String> = modules
        .iter()
        .map(|fields| redis::from_redis_value_ref(&fields[1]).unwrap())
        .collect();
    assert!(!names.iter().any(|n| n == "zkit"), "{names:?}");

    let libraries: Vec<Value> = query(&mut con, &["FUNCTION", "LIST", "LIBRARYNAME", "zkit"]);
    let [Value::Array(library)] = libraries.as_slice() else {
        panic!("one library named zkit: {libraries:?}")
    };
    let field = |fields: &[Value], name: &str| -> Value {
        let at = fields
            .chunks(2)
            .position(|pair| {
                redis::from_redis_value_ref::<String>(&pair[0]).is_ok_and(|k| k == name)
            })
            .unwrap_or_else(|| panic!("{name} in {fields:?}"));
        fields[2 * at + 1].clone()
    };
    let Value::Array(functions) = field(library, "functions") else {
        panic!("functions of {library:?}")
    };
    let mut found: Vec<(String, Vec<String>)> = functions
        .iter()
        .map(|function| {
            let Value::Array(fields) = function else {
                panic!("{function:?}")
            };
            let name: String = redis::from_redis_value(field(fields, "name")).unwrap();
            let mut flags: Vec<String> = redis::from_redis_value(field(fields, "flags")).unwrap();
            flags.sort();
            (name, flags)
        })
        .collect();
    found.sort();

    // One function per command a script can run (not the blocking
    // DELAY.BPOLL), read-only ones `no-writes`, writes the module lets
    // through under maxmemory `allow-oom`; and the two helpers.
    let mut expected: Vec<(String, Vec<String>)> = commands_json()
        .iter()
        .filter(|(_, spec)| !has_flag(spec, "BLOCKING"))
        .map(|(name, spec)| {
            let flags = if has_flag(spec, "READONLY") {
                vec!["no-writes".to_string()]
            } else if has_flag(spec, "DENYOOM") {
                vec![]
            } else {
                vec!["allow-oom".to_string()]
            };
            (
                format!("zkit_{}", name.to_lowercase().replace('.', "_")),
                flags,
            )
        })
        .chain(["zkit_keys", "zkit_version"].map(|n| (n.to_string(), vec!["no-writes".into()])))
        .collect();
    expected.sort();
    assert_eq!(found, expected);

    let version: String = query(&mut con, &["FCALL_RO", "zkit_version", "0"]);
    assert!(
        version.starts_with(&format!("{}+", env!("CARGO_PKG_VERSION"))),
        "{version}"
    );
    let reply: Vec<i64> = redis::from_redis_value(fcall_ok(
        &mut con,
        &["RANK.GIFT", "gifts:room:7", "alice", "100"],
    ))
    .unwrap();
    assert_eq!(reply, [100, 1]);
    // A call whose FCALL keys are not its own keys is refused.
    let e = match redis::cmd("FCALL")
        .arg("zkit_rank_gift")
        .arg(1)
        .arg("other")
        .arg(&["gifts:room:7", "alice", "1"][..])
        .query::<Value>(&mut con)
    {
        Err(e) => error_text(&e),
        Ok(v) => panic!("undeclared key accepted: {v:?}"),
    };
    assert!(e.contains("FCALL must declare the call's keys"), "{e}");
}

/// Calls that read no clock (RANK with AT, FEED, VOTE): the same calls on a
/// server where each goes to the module or the library in turn, and on one
/// with the module alone, reply and leave the same.
#[test]
fn data_the_module_writes_the_library_continues_and_back() {
    let both = Server::start();
    let mut con = both.connect();
    load_library(&mut con);
    let reference = Server::start();
    let mut rcon = reference.connect();
    let at = |offset: i64| (1_800_000_000_000 + offset).to_string();
    let calls: Vec<Vec<String>> = [
        vec!["RANK.GIFT", "b", "alice", "100", "AT", &at(0)],
        vec!["RANK.GIFT", "b", "bob", "100", "AT", &at(5000)],
        vec!["RANK.GET", "b", "bob"],
        vec!["RANK.GIFT", "b", "bob", "1", "AT", &at(6000)],
        vec!["RANK.SET", "b", "carol", "101", "AT", &at(7000), "GT"],
        vec!["RANK.TOP", "b", "10", "SHARED"],
        vec!["RANK.MGIFT", "2", "b", "w", "dave", "7", "AT", &at(8000)],
        vec!["RANK.MERGE", "m", "2", "b", "w", "WEIGHTS", "2", "1"],
        vec!["RANK.AROUND", "m", "dave", "1"],
        vec!["RANK.MGET", "m", "MEMBERS", "alice", "bob", "nobody"],
        vec!["FEED.ADD", "f", "1", "a", "2", "b", "3", "c", "3", "d"],
        vec!["FEED.PAGE", "f", "COUNT", "2"],
        vec!["FEED.ADD", "f", "CAP", "3", "4", "e"],
        vec![
            "FEED.PAGE",
            "f",
            "COUNT",
            "1",
            "OLDER",
            "f1:4008000000000000:64",
        ],
        vec![
            "VOTE.CAST",
            "s",
            "u",
            "d",
            "post",
            "ann",
            "UP",
            "WEIGHT",
            "432",
            "432",
        ],
        vec![
            "VOTE.CAST",
            "s",
            "u",
            "d",
            "post",
            "ann",
            "DOWN",
            "WEIGHT",
            "432",
            "432",
        ],
        vec!["VOTE.STATE", "u", "d", "ann"],
        vec![
            "VOTE.CAST",
            "s",
            "u",
            "d",
            "post",
            "ann",
            "CLEAR",
            "WEIGHT",
            "432",
            "432",
        ],
    ]
    .into_iter()
    .map(|call| call.into_iter().map(String::from).collect())
    .collect();
    for (i, call) in calls.iter().enumerate() {
        let words: Vec<&str> = call.iter().map(String::as_str).collect();
        let expected = ok(&mut rcon, &words);
        // Each engine in turn, so each continues what the other wrote.
        let reply = if i % 2 == 0 {
            fcall_ok(&mut con, &words)
        } else {
            ok(&mut con, &words)
        };
        assert_eq!(reply, expected, "{call:?} (call {i})");
    }
    assert_eq!(db_snapshot(&mut con), db_snapshot(&mut rcon));
}

/// A merge in steps continued across engines: steps sent in turn to the
/// library and to the module on one server reply what the module alone
/// replies and leave the same staging key and board, each step sent again to
/// the other engine repeating its reply; a run started with cursor 0 (its id
/// drawn by the engine that started it) is finished by the other engine and
/// gives the one-shot merge's board.
#[test]
fn a_stepped_merge_continues_across_engines() {
    let both = Server::start();
    let mut con = both.connect();
    load_library(&mut con);
    let reference = Server::start();
    let mut rcon = reference.connect();
    // Two daily boards that overlap, with ties and ids spelled like the
    // grammar's keywords and like cursors.
    let members = [
        "alice", "bob", "carol", "STEP", "", "m2:0", "dave", "eve", "WEIGHTS",
    ];
    for (i, member) in members.iter().enumerate() {
        let i = i as i64;
        let at = (1_800_000_000_000 + i % 4 * 1000).to_string();
        for (board, total) in [("day:1", i % 3 * 10), ("day:2", 40 - i * 7)] {
            if board == "day:2" && i % 3 == 1 {
                continue;
            }
            let call = ["RANK.GIFT", board, member, &total.to_string(), "AT", &at];
            ok(&mut con, &call);
            ok(&mut rcon, &call);
        }
    }
    let merge = |cursor: &str| -> Vec<String> {
        format!("RANK.MERGE week 2 day:1 day:2 WEIGHTS 1 2 STEP 3 week:tmp {cursor}")
            .split(' ')
            .map(String::from)
            .collect()
    };
    let step_reply = |reply: Value| -> (String, i64) { redis::from_redis_value(reply).unwrap() };

    // A run of the client's own id, so that both servers name it alike.
    let mut cursor = "m2:0123456789abcdef0123456789abcdef:0".to_string();
    let mut steps = 0;
    loop {
        let call = merge(&cursor);
        let words: Vec<&str> = call.iter().map(String::as_str).collect();
        let expected = ok(&mut rcon, &words);
        let (first, again) = if steps % 2 == 0 {
            (fcall_ok(&mut con, &words), ok(&mut con, &words))
        } else {
            (ok(&mut con, &words), fcall_ok(&mut con, &words))
        };
        assert_eq!(first, expected, "step {steps}");
        assert_eq!(again, expected, "step {steps} sent again");
        steps += 1;
        cursor = step_reply(expected).0;
        if cursor == "0" {
            break;
        }
    }
    assert!(steps >= 4, "{steps} steps");
    assert_eq!(db_snapshot(&mut con), db_snapshot(&mut rcon));

    // Runs started with cursor 0 by one engine, finished by the other.
    ok(
        &mut rcon,
        &[
            "RANK.MERGE",
            "once",
            "2",
            "day:1",
            "day:2",
            "WEIGHTS",
            "1",
            "2",
        ],
    );
    let one_shot = zset_dump(&mut rcon, "once");
    for library_starts in [true, false] {
        let mut cursor = "0".to_string();
        for step in 0.. {
            let call = merge(&cursor);
            let words: Vec<&str> = call.iter().map(String::as_str).collect();
            let reply = if (step == 0) == library_starts {
                fcall_ok(&mut con, &words)
            } else {
                ok(&mut con, &words)
            };
            cursor = step_reply(reply).0;
            if cursor == "0" {
                break;
            }
        }
        assert_eq!(
            zset_dump(&mut con, "week"),
            one_shot,
            "library starts: {library_starts}"
        );
    }
}

/// The commands that read the clock, continued across engines on one
/// server: each step's outcome is what one engine alone would give.
#[test]
fn queues_limits_lists_and_event_ids_continue_across_engines() {
    let server = Server::start();
    let mut con = server.connect();
    load_library(&mut con);
    let ints = |v: Value| -> Vec<i64> { redis::from_redis_value(v).unwrap() };

    // A recently-viewed list: the newest view last, whichever engine.
    ok(&mut con, &["RECENT.ADD", "r", "ITEMS", "a", "b"]);
    fcall_ok(
        &mut con,
        &["RECENT.ADD", "r", "TTL", "60", "ITEMS", "c", "a"],
    );
    let order: Vec<String> = query(&mut con, &["ZRANGE", "r", "0", "-1"]);
    assert_eq!(order, ["b", "c", "a"]);
    ok(&mut con, &["RECENT.ADD", "r", "CAP", "2", "ITEMS", "d"]);
    let order: Vec<String> = query(&mut con, &["ZRANGE", "r", "0", "-1"]);
    assert_eq!(order, ["a", "d"]);
    let ttl: i64 = query(&mut con, &["PTTL", "r"]);
    assert!(ttl > 0 && ttl <= 60_000, "{ttl}");

    // A limit of 3 a minute, hit by both.
    let limit = ["RATE.HIT", "api", "60000", "3"];
    assert_eq!(ints(ok(&mut con, &limit))[..3], [1, 1, 2]);
    assert_eq!(ints(fcall_ok(&mut con, &limit))[..3], [1, 2, 1]);
    assert_eq!(ints(ok(&mut con, &limit)), [1, 3, 0, -1]);
    let refused = ints(fcall_ok(&mut con, &limit));
    assert_eq!(refused[..3], [0, 3, 0]);
    assert!(refused[3] > 0 && refused[3] <= 60_000, "{refused:?}");
    assert_eq!(ints(ok(&mut con, &limit))[..3], [0, 3, 0]);

    // A job queue: leases, acks, NACKs and dead letters across engines.
    ok(&mut con, &["ZADD", "q", "0", "t1", "0", "t2"]);
    let poll = [
        "DELAY.POLL",
        "q",
        "LEASE",
        "held",
        "60000",
        "DEADLETTER",
        "dead",
        "counts",
        "2",
    ];
    let tasks = |reply: Value| -> Vec<String> {
        let rows: Vec<(String, f64)> = redis::from_redis_value(reply).unwrap();
        rows.into_iter().map(|(task, _)| task).collect()
    };
    assert_eq!(tasks(fcall_ok(&mut con, &poll)), ["t1"]);
    assert_eq!(
        ok(
            &mut con,
            &["DELAY.ACK", "held", "DELIVERIES", "counts", "TASKS", "t1"]
        ),
        Value::Int(1)
    );
    assert_eq!(tasks(ok(&mut con, &poll)), ["t2"]);
    assert_eq!(
        fcall_ok(&mut con, &["DELAY.NACK", "held", "q", "t2", "0"]),
        Value::Int(1)
    );
    assert_eq!(tasks(fcall_ok(&mut con, &poll)), ["t2"]);
    assert_eq!(
        ok(&mut con, &["DELAY.NACK", "held", "q", "t2", "0"]),
        Value::Int(1)
    );
    // Delivered twice: the third poll moves it to the dead letters.
    assert!(tasks(ok(&mut con, &poll)).is_empty());
    let dead: Vec<String> = query(&mut con, &["ZRANGE", "dead", "0", "-1"]);
    assert_eq!(dead, ["t2"]);

    // An event applied by one engine is a repeat for the other.
    let gift = |id: &'static str| ["RANK.GIFT", "g", "x", "5", "IDMP", "seen", id];
    assert_eq!(ints(ok(&mut con, &gift("e1"))), [5, 1, 0]);
    assert_eq!(ints(fcall_ok(&mut con, &gift("e1"))), [5, 1, 1]);
    assert_eq!(ints(fcall_ok(&mut con, &gift("e2"))), [10, 1, 0]);
    assert_eq!(ints(ok(&mut con, &gift("e2"))), [10, 1, 1]);
    assert_eq!(zset_dump(&mut con, "g").len(), 1);
}

/// RATE.STATS's `newest-ms` is the newest score in whole ms as the module
/// reads it (toward zero, saturating at the ends of i64), from both engines
/// on one log, for every score a double holds below 2^63 and down to -inf.
/// From 2^63 on, where the module says i64::MAX, the library can only say
/// the largest integer below 2^63 a Lua number holds (docs/functions.md,
/// "Where the library differs").
#[test]
fn rate_stats_reads_a_logs_newest_score_as_the_module_does() {
    const LUA_LARGEST: i64 = 9_223_372_036_854_774_784;
    let server = Server::start();
    let mut con = server.connect();
    load_library(&mut con);
    let newest_ms = |reply: Value| -> Value {
        let Value::Array(fields) = reply else {
            panic!("{reply:?}")
        };
        fields[3].clone()
    };
    let stats = ["RATE.STATS", "log", "WINDOWS", "60000"];
    for score in [
        "1800000000000.7",
        "-1.5",
        "9007199254740993",
        "4.611686018427388e18",
        "9.2233720368547748e18",
        "-9.3e18",
        "-inf",
        "9223372036854775808",
        "1e300",
        "inf",
    ] {
        ok(&mut con, &["DEL", "log"]);
        ok(&mut con, &["ZADD", "log", score, "entry"]);
        let module = newest_ms(ok(&mut con, &stats));
        let library = newest_ms(fcall_ok(&mut con, &stats));
        let whole = score.parse::<f64>().unwrap() as i64;
        assert_eq!(module, Value::Int(whole), "module, newest scored {score}");
        let expected = if whole == i64::MAX {
            LUA_LARGEST
        } else {
            whole
        };
        assert_eq!(
            library,
            Value::Int(expected),
            "library, newest scored {score}"
        );
    }
}

/// A master without the module writes through the library; a replica
/// without it (which gets the library with the data) holds the same, serves
/// the read-only functions, and refuses the writes.
#[test]
fn a_replica_without_the_module_holds_what_the_library_writes() {
    let master = library_server(ServerConfig::without_module());
    let replica = Server::with(ServerConfig::without_module().replica_of(&master));
    replica.wait_until_synced();
    let mut con = master.connect();
    let written = run_family_calls(&mut con, "functions replica", "{r}", 400);
    assert!(written > 300, "{written} calls");
    let data = assert_replicas_match(&master, std::slice::from_ref(&replica));
    assert!(data.len() > 10, "{} keys", data.len());

    let mut rcon = replica.connect();
    let board: Vec<Value> = query(
        &mut rcon,
        &[
            "FCALL_RO",
            "zkit_rank_top",
            "1",
            "{r}rank:0",
            "{r}rank:0",
            "3",
        ],
    );
    let on_master: Vec<Value> = query(
        &mut con,
        &[
            "FCALL_RO",
            "zkit_rank_top",
            "1",
            "{r}rank:0",
            "{r}rank:0",
            "3",
        ],
    );
    assert_eq!(board, on_master);
    let e = fcall(&mut rcon, &["RANK.GIFT", "{r}rank:0", "m", "1"])
        .expect_err("a replica refuses writes");
    assert!(error_text(&e).starts_with("READONLY"), "{e}");
}

/// A connection authenticated as user `app`, whose ACL is `rules` (words
/// split on spaces; the server joins a selector's words back).
fn acl_user(server: &Server, rules: &str) -> Connection {
    let mut admin = server.connect();
    let mut setuser = vec!["ACL", "SETUSER", "app", "reset", "on", ">pw"];
    setuser.extend(rules.split(' '));
    ok(&mut admin, &setuser);
    let mut con = server.connect();
    ok(&mut con, &["AUTH", "app", "pw"]);
    con
}

/// Managed services give applications users with a few commands and key
/// patterns. A script's calls are checked against its caller's ACL, so a
/// user of the library needs FCALL, FCALL_RO, the native commands the
/// library runs (docs/functions.md) and its keys, and nothing else.
#[test]
fn an_acl_user_with_fcall_the_library_natives_and_its_keys_runs_every_command() {
    let server = library_server(ServerConfig::without_module());
    let natives: Vec<String> = LIBRARY_NATIVES
        .iter()
        .map(|native| format!("+{}", native.to_lowercase()))
        .collect();
    let mut con = acl_user(
        &server,
        &format!("~app:* +fcall +fcall_ro {}", natives.join(" ")),
    );
    let ran = run_family_calls(&mut con, "functions acl", "app:", 300);
    assert!(ran > 200, "{ran} calls");
    // Another key is refused before the function runs.
    let e = fcall(&mut con, &["RANK.GIFT", "other:b", "m", "1"]).expect_err("NOPERM");
    assert!(error_text(&e).starts_with("NOPERM"), "{e}");

    // Without the native commands the call is refused, naming the first it
    // needs, and nothing is written (library_natives.rs checks each).
    let mut bare = acl_user(&server, "~app:* +fcall +fcall_ro");
    let e =
        error_text(&fcall(&mut bare, &["RANK.GIFT", "app:new", "m", "1"]).expect_err("refused"));
    assert_eq!(
        e,
        "NOPERM this command needs TIME, which this user's ACL does not allow: nothing was changed"
    );
    let exists: i64 = query(&mut server.connect(), &["EXISTS", "app:new"]);
    assert_eq!(exists, 0);
}

/// Under maxmemory, writes the module refuses (deny-oom) are refused as
/// functions, and the rest (draining a queue) run.
#[test]
fn under_maxmemory_the_library_refuses_what_the_module_refuses() {
    let server = library_server(ServerConfig::without_module());
    let mut con = server.connect();
    ok(&mut con, &["ZADD", "q", "0", "task"]);
    ok(&mut con, &["CONFIG", "SET", "maxmemory", "1"]);
    let e = fcall(&mut con, &["RANK.GIFT", "b", "m", "1"]).expect_err("OOM");
    assert!(error_text(&e).starts_with("OOM"), "{e}");
    let tasks: Vec<(String, f64)> =
        redis::from_redis_value(fcall_ok(&mut con, &["DELAY.POLL", "q"])).unwrap();
    assert_eq!(tasks, [("task".to_string(), 0.0)]);
    assert_eq!(fcall_ok(&mut con, &["RANK.GET", "b", "m"]), Value::Nil);
    let e = err(
        &mut con,
        &["FCALL", "zkit_feed_add", "1", "f", "f", "1", "a"],
    );
    assert!(e.starts_with("OOM"), "{e}");
}
