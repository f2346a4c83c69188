//! The Functions library runs native commands, which the server checks one
//! by one as a function runs them: against its caller's ACL, and by their own
//! names, which `rename-command` may have renamed or disabled. So it checks
//! every native command a call may run before it runs, and refuses the call,
//! naming the command, before anything is written: before 0.4.1 a DELAY.POLL
//! whose user lacked ZADD had taken its tasks off the queue without leasing
//! them, and a last RANK.MERGE step with RENAME renamed staged its members,
//! dropped its run and failed, so that the run could never finish. The
//! module's refusals are renamed_commands.rs's.

use super::{acl_user, fcall, LIBRARY_NATIVES};
use crate::common::client::{error_text, ok, query};
use crate::common::{load_library, Server, ServerConfig};
use crate::renamed_commands::{renaming, unavailable};
use redis::{Connection, Value};

/// The refusal of a call that needs `what` (a native command, and the keys
/// it would run on) which the caller's ACL does not allow.
fn denied(what: &str) -> String {
    format!("NOPERM this command needs {what}, which this user's ACL does not allow: nothing was changed")
}

/// What every call's keys hold first: boards, merge sources, a queue with a
/// due task, a leased task and one delivered its last time, a feed, a list,
/// votes with a post time (a cast in its window) and an IDMP seen-key.
const SEED: &[&[&str]] = &[
    &["ZADD", "board", "10.5", "bob"],
    &["ZADD", "board2", "20.5", "carol"],
    &["ZADD", "seen", "1", "old-event"],
    &["ZADD", "day1", "1.5", "a", "2.5", "b", "3.5", "c"],
    &["ZADD", "day2", "4.5", "b", "5.5", "d"],
    &["ZADD", "merged", "3.5", "old"],
    &["ZADD", "queue", "0", "t1", "0", "t3"],
    &["ZADD", "deliveries", "2", "t3"],
    &["ZADD", "inflight", "99999999999999", "t2"],
    &["ZADD", "feed", "1", "a"],
    &["ZADD", "recent", "1", "a"],
    &["ZADD", "scores", "0", "item"],
    &["SADD", "down", "ann"],
    &["ZADD", "times", "4000000000", "item"],
];

/// A call, after what brings its keys to the state it acts on (native
/// commands, and zkit calls sent to the library).
struct Case {
    setup: &'static [&'static [&'static str]],
    call: &'static [&'static str],
}

const fn case(call: &'static [&'static str]) -> Case {
    Case { setup: &[], call }
}

/// A merge of the two days in steps of 2 entries: three steps, the last
/// sent with `...:2`, whose run id the client chose.
const FIRST_STEP: &[&str] = &[
    "RANK.MERGE",
    "merged",
    "2",
    "day1",
    "day2",
    "WEIGHTS",
    "1",
    "2",
    "STEP",
    "2",
    "staging",
    "m2:0123456789abcdef0123456789abcdef:0",
];
const SECOND_STEP: &[&str] = &[
    "RANK.MERGE",
    "merged",
    "2",
    "day1",
    "day2",
    "WEIGHTS",
    "1",
    "2",
    "STEP",
    "2",
    "staging",
    "m2:0123456789abcdef0123456789abcdef:1",
];
const LAST_STEP: &[&str] = &[
    "RANK.MERGE",
    "merged",
    "2",
    "day1",
    "day2",
    "WEIGHTS",
    "1",
    "2",
    "STEP",
    "2",
    "staging",
    "m2:0123456789abcdef0123456789abcdef:2",
];
const GIFT: &[&str] = &["RANK.GIFT", "board", "alice", "5"];
const GIFT_SHARED: &[&str] = &["RANK.GIFT", "board", "alice", "5", "SHARED"];
const ONE_SHOT_MERGE: &[&str] = &[
    "RANK.MERGE",
    "merged",
    "2",
    "day1",
    "day2",
    "WEIGHTS",
    "1",
    "2",
];
const POLL_LEASED: &[&str] = &[
    "DELAY.POLL",
    "queue",
    "COUNT",
    "2",
    "LEASE",
    "inflight",
    "60000",
    "DEADLETTER",
    "dead",
    "deliveries",
    "2",
];
/// A worker's poll of jobs: t1 is delivered, t3 (delivered twice) buried
/// with its history, the job t4 delivered with its payload and holder.
const POLL_JOBS: &[&str] = &[
    "DELAY.POLL",
    "queue",
    "COUNT",
    "3",
    "LEASE",
    "inflight",
    "60000",
    "DEADLETTER",
    "dead",
    "deliveries",
    "2",
    "DATA",
    "data",
    "WITHDATA",
    "WORKER",
    "w1",
];
const ADD_JOB: &[&str] = &[
    "DELAY.ADD",
    "queue",
    "DATA",
    "data",
    "WITHIN",
    "60000",
    "JOBS",
    "0",
    "t4",
    "p4",
];
/// A task past its not-started-by deadline (unix ms 1).
const EXPIRED_T1: &[&str] = &["HSET", "data", "x:t1", "1"];
const ACK_JOB: &[&str] = &[
    "DELAY.ACK",
    "inflight",
    "DELIVERIES",
    "deliveries",
    "DATA",
    "data",
    "TASKS",
    "t2",
];
const HIT: &[&str] = &["RATE.HIT", "hits", "60000", "10"];
const CAST: &[&str] = &["VOTE.CAST", "scores", "up", "down", "item", "ann", "UP"];

/// Every family's calls, each of which writes (or reads) on the state its
/// setup leaves.
const CASES: &[Case] = &[
    case(GIFT),
    case(GIFT_SHARED),
    case(&["RANK.GIFT", "board", "alice", "5", "IDMP", "seen", "e1"]),
    case(&[
        "RANK.SET", "board", "alice", "5", "GT", "SHARED", "IDMP", "seen", "e2",
    ]),
    case(&[
        "RANK.MGIFT",
        "2",
        "board",
        "board2",
        "alice",
        "5",
        "IDMP",
        "seen",
        "e3",
    ]),
    case(&["RANK.GET", "board", "bob"]),
    case(&["RANK.MGET", "board", "SHARED", "MEMBERS", "bob"]),
    case(&["RANK.TOP", "board", "10", "SHARED"]),
    case(&["RANK.TOP", "board", "10"]),
    case(&["RANK.AROUND", "board", "bob", "1"]),
    case(&["RANK.STATS", "board"]),
    case(&["RANK.PERCENTILE", "board", "bob"]),
    case(&["RANK.QUANTILE", "board", "50"]),
    case(&["RANK.COUNT", "board", "-inf", "+inf"]),
    case(&["RANK.RANGE", "board", "+inf", "-inf"]),
    case(&["RANK.AMONG", "board", "MEMBERS", "bob"]),
    case(ONE_SHOT_MERGE),
    case(FIRST_STEP),
    Case {
        setup: &[FIRST_STEP],
        call: SECOND_STEP,
    },
    Case {
        setup: &[FIRST_STEP, SECOND_STEP],
        call: LAST_STEP,
    },
    // The last step of a run whose staging key has a TTL, which destkey
    // must not take.
    Case {
        setup: &[FIRST_STEP, SECOND_STEP, &["PEXPIRE", "staging", "600000"]],
        call: LAST_STEP,
    },
    case(&["FEED.ADD", "feed", "CAP", "1", "2", "b"]),
    case(&["FEED.PAGE", "feed", "COUNT", "1"]),
    case(POLL_LEASED),
    case(&["DELAY.POLL", "queue"]),
    case(&[
        "DELAY.ACK",
        "inflight",
        "DELIVERIES",
        "deliveries",
        "TASKS",
        "t2",
    ]),
    case(ADD_JOB),
    case(&[
        "DELAY.ADD",
        "queue",
        "DATA",
        "data",
        "INFLIGHT",
        "inflight",
        "EXTEND",
        "TASKS",
        "0",
        "t1",
        "5",
        "t9",
    ]),
    Case {
        setup: &[ADD_JOB],
        call: POLL_JOBS,
    },
    // Without dead letters an expired task is dropped with its data.
    Case {
        setup: &[EXPIRED_T1],
        call: &["DELAY.POLL", "queue", "DATA", "data", "WITHDATA"],
    },
    Case {
        setup: &[&["HSET", "data", "p:t2", "x", "w:t2", "w1"]],
        call: ACK_JOB,
    },
    case(&[
        "DELAY.NACK",
        "inflight",
        "queue",
        "t2",
        "0",
        "DATA",
        "data",
        "REASON",
        "boom",
    ]),
    Case {
        setup: &[&["DELAY.PAUSE", "queue", "data"]],
        call: &["DELAY.STATS", "queue", "DATA", "data"],
    },
    Case {
        setup: &[ADD_JOB],
        call: &[
            "DELAY.JOB",
            "queue",
            "t4",
            "INFLIGHT",
            "inflight",
            "DEAD",
            "dead",
            "DATA",
            "data",
        ],
    },
    Case {
        setup: &[&["ZADD", "dead", "1", "t5"], &["HSET", "data", "d:t5", "2"]],
        call: &[
            "DELAY.RETRY",
            "dead",
            "queue",
            "DATA",
            "data",
            "TASKS",
            "t5",
        ],
    },
    case(&["DELAY.PAUSE", "queue", "data"]),
    Case {
        setup: &[&["DELAY.PAUSE", "queue", "data"]],
        call: &["DELAY.RESUME", "queue", "data"],
    },
    case(&["DELAY.NACK", "inflight", "queue", "t2", "0"]),
    case(&["DELAY.TOUCH", "inflight", "t2", "60000"]),
    case(&[
        "DELAY.STATS",
        "queue",
        "INFLIGHT",
        "inflight",
        "DEAD",
        "dead",
        "DELIVERIES",
        "deliveries",
    ]),
    case(HIT),
    case(&["RATE.HIT", "hits", "IDMP", "seen", "e4", "60000", "10"]),
    Case {
        setup: &[HIT],
        call: &["RATE.STATS", "hits", "WINDOWS", "60000"],
    },
    case(&[
        "RECENT.ADD",
        "recent",
        "CAP",
        "1",
        "TTL",
        "60",
        "ITEMS",
        "b",
    ]),
    case(CAST),
    case(&[
        "VOTE.CAST",
        "scores",
        "up",
        "down",
        "item",
        "ann",
        "DOWN",
        "WINDOW",
        "times",
        "10",
    ]),
    case(&["VOTE.STATE", "up", "down", "ann"]),
];

/// Calls the library serves without a native command, as the module does
/// (renamed_commands.rs): shared ranks need no ZREVRANK, plain ranks no
/// ZCOUNT, gifts neither ZRANGE, MEMORY nor the set commands, a cast no
/// SISMEMBER, a one-shot merge none of what steps need.
const SERVED: &[(&str, &[&str])] = &[
    ("ZREVRANK", GIFT_SHARED),
    ("ZCOUNT", GIFT),
    ("ZRANGE", GIFT),
    ("ZRANGE", &["RANK.GET", "board", "bob"]),
    ("MEMORY", GIFT),
    ("SADD", GIFT),
    ("SREM", GIFT),
    ("SISMEMBER", CAST),
    ("RENAME", ONE_SHOT_MERGE),
    ("PERSIST", ONE_SHOT_MERGE),
    ("PEXPIRETIME", ONE_SHOT_MERGE),
];

/// The refusals the library used to leave half-written.
const REFUSED: &[(&str, &[&str])] = &[
    ("ZADD", POLL_LEASED),
    ("PEXPIREAT", HIT),
    ("RENAME", FIRST_STEP),
    ("RENAME", LAST_STEP),
    ("ZREM", &["FEED.ADD", "feed", "CAP", "1", "2", "b"]),
    // Hash writes come after the queue's: checked before it.
    ("HSET", POLL_JOBS),
    ("HDEL", POLL_JOBS),
    ("HDEL", ACK_JOB),
    ("HSET", ADD_JOB),
];

/// Runs a zkit call (through the library) or a native command.
fn send(con: &mut Connection, words: &[&str]) -> redis::RedisResult<Value> {
    if words[0].contains('.') {
        fcall(con, words)
    } else {
        crate::common::client::run(con, words)
    }
}

/// A key as DUMP and PEXPIRETIME give it, to restore it elsewhere.
type SavedKey = (Vec<u8>, Vec<u8>, i64);

/// Each case's keys after [`SEED`] and its setup, taken from a server that
/// renames nothing, so that every case starts from its state whatever the
/// server it runs on lacks. Each call must run there.
fn case_states() -> Vec<Vec<SavedKey>> {
    let server = Server::with(ServerConfig::without_module());
    let mut con = server.connect();
    load_library(&mut con);
    CASES
        .iter()
        .map(|case| {
            ok(&mut con, &["FLUSHALL"]);
            for words in SEED.iter().chain(case.setup) {
                send(&mut con, words).unwrap_or_else(|e| panic!("{words:?}: {e}"));
            }
            let mut keys: Vec<Vec<u8>> = query(&mut con, &["KEYS", "*"]);
            keys.sort();
            let saved = keys
                .into_iter()
                .map(|key| {
                    let dump: Vec<u8> = redis::cmd("DUMP").arg(&key).query(&mut con).unwrap();
                    let at: i64 = redis::cmd("PEXPIRETIME").arg(&key).query(&mut con).unwrap();
                    (key, dump, at)
                })
                .collect();
            send(&mut con, case.call)
                .unwrap_or_else(|e| panic!("{:?} with every native command: {e}", case.call));
            saved
        })
        .collect()
}

fn restore(con: &mut Connection, state: &[SavedKey]) {
    ok(con, &["FLUSHALL"]);
    for (key, dump, at) in state {
        let mut restore = redis::cmd("RESTORE");
        restore.arg(key);
        if *at > 0 {
            restore.arg(*at).arg(dump).arg("ABSTTL");
        } else {
            restore.arg(0).arg(dump);
        }
        let _: () = restore.query(con).expect("RESTORE");
    }
}

fn digest(con: &mut Connection) -> String {
    query(con, &["DEBUG", "DIGEST"])
}

/// The keys of a call, as FCALL declares them.
fn keys_of(con: &mut Connection, call: &[&str]) -> Vec<String> {
    let mut words = vec!["FCALL_RO", "zkit_keys", "0"];
    words.extend(call);
    query(con, &words)
}

/// Runs `call` on `con` (as the user under test) on the state `admin`
/// restores: it runs, or it is refused with one of `refusals` and changes
/// nothing; whether it was refused.
fn refused(
    admin: &mut Connection,
    con: &mut Connection,
    state: &[SavedKey],
    call: &[&str],
    refusals: &[String],
) -> bool {
    restore(admin, state);
    let before = digest(admin);
    match fcall(con, call) {
        Ok(_) => false,
        Err(e) => {
            let text = error_text(&e);
            assert!(
                refusals.contains(&text),
                "{call:?}: {text:?}, not one of {refusals:?}"
            );
            assert_eq!(digest(admin), before, "{call:?} was refused but wrote");
            true
        }
    }
}

/// Runs every case as a user whose ACL allows all but `native`, or on a
/// server that renamed it; checks the calls [`SERVED`] and [`REFUSED`] name,
/// and that `native` refuses some call.
fn check_every_case(
    admin: &mut Connection,
    con: &mut Connection,
    states: &[Vec<SavedKey>],
    native: &str,
    refusals: impl Fn(&[String]) -> Vec<String>,
) {
    let mut refusing = 0;
    for (case, state) in CASES.iter().zip(states) {
        let keys = keys_of(admin, case.call);
        let was_refused = refused(admin, con, state, case.call, &refusals(&keys));
        let expected = if SERVED.contains(&(native, case.call)) {
            Some(false)
        } else if REFUSED.contains(&(native, case.call)) {
            Some(true)
        } else {
            None
        };
        if let Some(expected) = expected {
            assert_eq!(was_refused, expected, "{:?} without {native}", case.call);
        }
        refusing += usize::from(was_refused);
    }
    assert!(refusing > 0, "no call needs {native}");
}

/// The ACL refusals of a call that needs `native`: named with each key it
/// may run on (RENAME with two).
fn acl_refusals(native: &str, keys: &[String]) -> Vec<String> {
    if native == "TIME" {
        return vec![denied("TIME")];
    }
    let mut out: Vec<String> = keys
        .iter()
        .map(|key| denied(&format!("{native} on '{key}'")))
        .collect();
    for a in keys {
        for b in keys {
            out.push(denied(&format!("{native} on '{a}' and '{b}'")));
        }
    }
    out
}

fn debug_enabled() -> ServerConfig {
    ServerConfig::without_module().arg("enable-debug-command", "yes")
}

#[test]
fn a_call_needing_a_native_command_the_user_may_not_run_is_refused_before_it_writes() {
    let states = case_states();
    let server = Server::with(debug_enabled());
    let mut admin = server.connect();
    load_library(&mut admin);
    for native in LIBRARY_NATIVES {
        let rules = format!("~* &* +@all -{}", native.to_lowercase());
        let mut con = acl_user(&server, &rules);
        check_every_case(&mut admin, &mut con, &states, native, |keys| {
            acl_refusals(native, keys)
        });
    }
}

/// The commands also checked disabled (renamed to ""), as hardening guides
/// suggest for some.
const DISABLED: &[&str] = &["ZADD", "PEXPIREAT", "RENAME"];

#[test]
fn a_call_needing_a_renamed_or_disabled_native_command_is_refused_before_it_writes() {
    let states = case_states();
    let servers = LIBRARY_NATIVES
        .iter()
        .map(|native| (native, format!("{}-renamed", native.to_lowercase())))
        .chain(DISABLED.iter().map(|native| (native, String::new())));
    for (native, name) in servers {
        let server = Server::with(renaming(debug_enabled(), native, &name));
        let mut con = server.connect();
        load_library(&mut con);
        let mut admin = server.connect();
        check_every_case(&mut admin, &mut con, &states, native, |_| {
            vec![unavailable(native)]
        });
    }
}

/// ACL selectors may allow a native command on some keys only: a call that
/// would run it on another key is refused, naming the command and the key,
/// and a call that runs it on the allowed keys is served.
#[test]
fn a_native_command_allowed_on_some_keys_only_is_checked_on_each_key() {
    let server = Server::with(debug_enabled());
    let mut admin = server.connect();
    load_library(&mut admin);
    ok(&mut admin, &["ZADD", "jobs:queue", "0", "t1"]);
    ok(&mut admin, &["ZADD", "held", "99999999999999", "t2"]);
    let mut con = acl_user(&server, "~* &* +@all -zadd (+zadd ~jobs:*)");

    let before = digest(&mut admin);
    let poll = ["DELAY.POLL", "jobs:queue", "LEASE", "held", "60000"];
    let e = error_text(&fcall(&mut con, &poll).expect_err("refused"));
    assert_eq!(e, denied("ZADD on 'held'"));
    assert_eq!(digest(&mut admin), before, "the refused poll wrote");

    let nack = ["DELAY.NACK", "held", "jobs:queue", "t2", "0"];
    assert_eq!(fcall(&mut con, &nack).unwrap(), Value::Int(1));
    let queued: Vec<String> = query(&mut admin, &["ZRANGE", "jobs:queue", "0", "-1"]);
    assert_eq!(queued, ["t1", "t2"]);
}
