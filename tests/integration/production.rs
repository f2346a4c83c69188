//! Production checks over every registered family (tests/integration/common/workload.rs):
//! replication, persistence, MODULE UNLOAD/LOAD, ACL, OOM, MULTI/EXEC and
//! Lua, observability, and loading (or refusing to load) on each server.

use std::collections::HashMap;
use std::time::Duration;

use crate::common::client::{err, error_text, ok, query, run, spawn_call, words};
use crate::common::data::{db_snapshot, server_time_ms};
use crate::common::facts::{facts_of, keys_and_flags, zkit_commands, CommandFacts};
use crate::common::replication::aof_bytes;
use crate::common::workload::{example_templates, mixed_calls, named_keys, Rng, FAMILIES};
use crate::common::{
    module_path, server_version, stat, wait_blocked, wait_for, Server, ServerConfig,
};
use redis::{Connection, Value};

/// Runs calls that must all succeed.
fn apply(con: &mut Connection, calls: &[Vec<String>]) {
    for call in calls {
        if let Err(e) = run(con, &words(call)) {
            panic!("{call:?} failed: {}", error_text(&e));
        }
    }
}

/// The replies of read calls, to compare what zkit reads before and after a
/// restart, a reload or a resync.
fn replies(con: &mut Connection, calls: &[Vec<String>]) -> Vec<Value> {
    calls.iter().map(|call| ok(con, &words(call))).collect()
}

/// Read-only calls of every family on the keys `mixed_calls(.., prefix, n, ..)` writes.
fn read_calls(rng: &mut Rng, prefix: &str, keys_per_family: usize) -> Vec<Vec<String>> {
    FAMILIES
        .iter()
        .flat_map(|f| {
            let keys = f.keys(prefix, keys_per_family);
            (0..20).map(|_| (f.read)(rng, &keys)).collect::<Vec<_>>()
        })
        .collect()
}

fn assert_identical(master: &Server, replicas: &[Server], when: &str) {
    master.wait_for_replicas(replicas.len());
    let mut con = master.connect();
    let expected = db_snapshot(&mut con);
    assert!(!expected.is_empty());
    for (i, replica) in replicas.iter().enumerate() {
        let mut rcon = replica.connect();
        let got = db_snapshot(&mut rcon);
        if got != expected {
            let differing: Vec<String> = expected
                .iter()
                .filter(|entry| !got.contains(entry))
                .map(|(key, _)| {
                    let kind: String = query(&mut con, &["TYPE", key]);
                    let dump = |c: &mut Connection| -> Value {
                        match kind.as_str() {
                            "zset" => ok(c, &["ZRANGE", key, "0", "-1", "WITHSCORES"]),
                            _ => ok(c, &["DUMP", key]),
                        }
                    };
                    let encoding: Value = ok(&mut con, &["OBJECT", "ENCODING", key]);
                    let replica_encoding = run(&mut rcon, &["OBJECT", "ENCODING", key]);
                    format!(
                        "{key}: master {encoding:?} {:?}\n  replica {replica_encoding:?} {:?}",
                        dump(&mut con),
                        dump(&mut rcon)
                    )
                })
                .collect();
            panic!(
                "replica {i} differs from the master {when}; {} keys vs {}:\n{}",
                expected.len(),
                got.len(),
                differing.join("\n")
            );
        }
    }
}

// ---- replication ---------------------------------------------------------

#[test]
fn replicas_stay_identical_through_restart_and_full_resync() {
    let mut rng = Rng::seeded("replication");
    // The smallest backlog, so a full resync can be forced.
    let master = Server::with(ServerConfig::default().arg("repl-backlog-size", "16kb"));
    let configs = [
        ServerConfig::default().replica_of(&master),
        ServerConfig::without_module().replica_of(&master),
    ];
    let mut replicas: Vec<Server> = configs.iter().cloned().map(Server::with).collect();
    replicas.iter().for_each(Server::wait_until_synced);
    let mut con = master.connect();
    apply(&mut con, &mixed_calls(&mut rng, "", 4, 600));
    assert_identical(&master, &replicas, "after the workload");

    // A replica restarts from its own RDB and catches up from the backlog;
    // one away for longer than the backlog covers needs a full resync.
    let cases: [(&str, &str, usize); 2] = [
        ("restarted", "sync_partial_ok", 0),
        ("resynced", "sync_full", 40_000),
    ];
    let mut dirs = Vec::new();
    for (what, counter, filler) in cases {
        for (i, config) in configs.iter().enumerate() {
            let replica = replicas.remove(i);
            ok(&mut replica.connect(), &["SAVE"]);
            let dir = replica.shutdown_keep_dir();
            let before = stat(&mut con, "stats", counter);
            ok(&mut con, &["SET", "filler", &"x".repeat(filler)]);
            apply(&mut con, &mixed_calls(&mut rng, "", 4, 60));
            replicas.insert(i, Server::with(config.clone().in_dir(&dir)));
            replicas[i].wait_until_synced();
            assert_identical(&master, &replicas, &format!("after replica {i} {what}"));
            assert_eq!(
                stat(&mut con, "stats", counter),
                before + 1,
                "replica {i} {what}: {counter}"
            );
            dirs.push(dir);
        }
    }
    drop(replicas);
    for dir in dirs {
        let _ = std::fs::remove_dir_all(dir);
    }
}

// ---- persistence -----------------------------------------------------------

#[test]
fn rdb_and_aof_reload_with_and_without_zkit() {
    let mut rng = Rng::seeded("persistence");
    let modes: &[(&str, &[(&str, &str)])] = &[
        ("rdb", &[]),
        (
            "aof everysec",
            &[("appendonly", "yes"), ("appendfsync", "everysec")],
        ),
        (
            "aof always",
            &[("appendonly", "yes"), ("appendfsync", "always")],
        ),
    ];
    for (mode, settings) in modes {
        let configure = |mut config: ServerConfig| {
            for (name, value) in *settings {
                config = config.arg(name, value);
            }
            config
        };
        let server = Server::with(configure(ServerConfig::default()));
        let mut con = server.connect();
        apply(&mut con, &mixed_calls(&mut rng, "", 4, 400));
        let reads = read_calls(&mut rng, "", 4);
        let expected_reads = replies(&mut con, &reads);
        let expected = db_snapshot(&mut con);
        let commands = zkit_commands(&mut con);
        if *mode == "rdb" {
            ok(&mut con, &["SAVE"]);
        }
        drop(con);
        let dir = server.shutdown_keep_dir();
        if mode.starts_with("aof") {
            // Only native effects were logged, so any server can replay them.
            let aof = aof_bytes(&dir).to_ascii_lowercase();
            assert!(!aof.is_empty(), "{mode}: no AOF written");
            for command in &commands {
                let name = command.name.as_bytes();
                assert!(
                    !aof.windows(name.len()).any(|w| w == name),
                    "{mode}: the AOF contains {}",
                    command.name
                );
            }
        }

        let reloaded = Server::with(configure(ServerConfig::default()).in_dir(&dir));
        let mut con = reloaded.connect();
        assert!(
            db_snapshot(&mut con) == expected,
            "{mode}: data differs after a restart with zkit"
        );
        assert_eq!(
            replies(&mut con, &reads),
            expected_reads,
            "{mode}: zkit reads differ after a restart"
        );
        drop(con);
        reloaded.shutdown_keep_dir();

        let plain = Server::with(configure(ServerConfig::without_module()).in_dir(&dir));
        assert!(
            db_snapshot(&mut plain.connect()) == expected,
            "{mode}: data differs after a restart without zkit"
        );
        drop(plain);
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn module_unload_keeps_data_native_and_reload_serves_it_again() {
    let mut rng = Rng::seeded("unload");
    let server = Server::with(ServerConfig::default().arg("enable-module-command", "local"));
    let mut con = server.connect();
    apply(&mut con, &mixed_calls(&mut rng, "", 4, 300));
    let reads = read_calls(&mut rng, "", 4);
    let expected_reads = replies(&mut con, &reads);
    let expected = db_snapshot(&mut con);
    let commands = zkit_commands(&mut con);

    ok(&mut con, &["MODULE", "UNLOAD", "zkit"]);
    for command in &commands {
        let e = err(&mut con, &[&command.name]);
        assert!(e.contains("unknown command"), "{}: {e}", command.name);
    }
    assert!(db_snapshot(&mut con) == expected, "unload changed data");
    // The keys are plain native values.
    let keys: Vec<String> = query(&mut con, &["KEYS", "*"]);
    for key in &keys {
        let kind: String = query(&mut con, &["TYPE", key]);
        assert!(["zset", "set", "hash", "string", "list"].contains(&kind.as_str()));
    }

    // Upgrade path: load the (new) module file, with configs if wanted.
    let path = module_path().to_string_lossy().into_owned();
    ok(&mut con, &["MODULE", "LOAD", &path]);
    assert_eq!(replies(&mut con, &reads), expected_reads);
    apply(&mut con, &mixed_calls(&mut rng, "", 4, 50));
    ok(&mut con, &["MODULE", "UNLOAD", "zkit"]);
    ok(
        &mut con,
        &[
            "MODULE",
            "LOADEX",
            &path,
            "CONFIG",
            "zkit.tiebreak-span-ms",
            "86400000000",
        ],
    );
    let span: Vec<String> = query(&mut con, &["CONFIG", "GET", "zkit.tiebreak-span-ms"]);
    assert_eq!(span[1], "86400000000");
}

/// The server's own count of the memory it allocated (`INFO memory`).
fn used_memory(con: &mut Connection) -> i64 {
    stat(con, "memory", "used_memory")
}

#[test]
fn unload_and_load_cycles_leave_no_memory_behind() {
    let server = Server::with(ServerConfig::default().arg("enable-module-command", "local"));
    let mut con = server.connect();
    let path = module_path().to_string_lossy().into_owned();
    let cycle = |con: &mut Connection| {
        // A command and a blocked-then-served poll, so each load has run.
        ok(con, &["RANK.GIFT", "board", "m", "1"]);
        ok(con, &["DELAY.BPOLL", "q", "1"]);
        ok(con, &["MODULE", "UNLOAD", "zkit"]);
        ok(con, &["MODULE", "LOAD", &path]);
    };
    // The first cycles may set up the server's own one-off structures.
    for _ in 0..2 {
        cycle(&mut con);
    }
    let before = used_memory(&mut con);
    for _ in 0..20 {
        cycle(&mut con);
    }
    let grown = used_memory(&mut con) - before;
    // A leak of a context per cycle is about 19 KB; allow noise far below.
    assert!(
        grown < 64 * 1024,
        "20 unload/load cycles grew memory by {grown} bytes"
    );
}

// ---- ACL -----------------------------------------------------------------

/// Connects as `user` (created with `nopass`).
fn connect_as(server: &Server, user: &str) -> Connection {
    let mut con = server.connect();
    ok(&mut con, &["AUTH", user, "any"]);
    con
}

/// Whether `~board:* %R~shared:*` lets a call touch `key` with these key-spec
/// flags, following Redis: `access` needs read permission, `insert`,
/// `update` and `delete` need write permission, other keys need a match.
fn board_user_may(key: &str, flags: &[String]) -> bool {
    let has = |f: &str| flags.iter().any(|x| x.eq_ignore_ascii_case(f));
    let writes = has("insert") || has("update") || has("delete");
    key.starts_with("board:") || (key.starts_with("shared:") && !writes)
}

#[test]
fn acl_key_patterns_confine_every_command() {
    let mut rng = Rng::seeded("acl keys");
    let server = Server::start();
    let mut admin = server.connect();
    ok(
        &mut admin,
        &[
            "ACL",
            "SETUSER",
            "boarduser",
            "on",
            "nopass",
            "~board:*",
            "%R~shared:*",
            "+@all",
        ],
    );
    let mut user = connect_as(&server, "boarduser");
    let commands = zkit_commands(&mut admin);
    for family in FAMILIES {
        let mut keys = family.keys("board:", 3);
        keys.extend(family.keys("shared:", 2));
        keys.extend(family.keys("other:", 2));
        for _ in 0..30 {
            let call = (family.write)(&mut rng, &keys);
            ok(&mut admin, &words(&call));
        }
        let (mut allowed, mut denied) = (0, 0);
        for _ in 0..150 {
            let call = family.any_call(&mut rng, &keys);
            let key_flags = keys_and_flags(&mut admin, &call);
            // The key specs find exactly the keys the call names, and a write
            // command declares a write on at least one of them (else a
            // read-only pattern would let it write).
            let mut reported: Vec<&String> = key_flags.iter().map(|(k, _)| k).collect();
            let mut named = named_keys(&call, &keys);
            reported.sort();
            reported.dedup();
            named.sort();
            named.dedup();
            assert_eq!(reported, named, "key specs of {call:?}");
            let facts = facts_of(&commands, call[0].as_bytes()).expect("a zkit command");
            let declares_write = key_flags
                .iter()
                .any(|(_, flags)| !board_user_may("shared:", flags));
            assert_eq!(declares_write, facts.is_write(), "key flags of {call:?}");
            let may = key_flags
                .iter()
                .all(|(key, flags)| board_user_may(key, flags));
            let before = db_snapshot(&mut admin);
            match run(&mut user, &words(&call)) {
                Ok(_) => {
                    assert!(may, "{call:?} should have been refused");
                    allowed += 1;
                }
                Err(e) => {
                    let e = error_text(&e);
                    assert!(!may && e.starts_with("NOPERM"), "{call:?}: {e}");
                    assert!(db_snapshot(&mut admin) == before, "{call:?} changed data");
                    denied += 1;
                }
            }
        }
        assert!(
            allowed > 0 && denied > 0,
            "{}: {allowed}/{denied}",
            family.name
        );
    }
}

/// Runs reads and writes of every family as `user`: reads must pass, writes
/// must be refused with NOPERM and change nothing.
fn assert_writes_refused(server: &Server, user: &str, rng: &mut Rng) {
    let mut admin = server.connect();
    let mut con = connect_as(server, user);
    for family in FAMILIES {
        let keys = family.keys("", 3);
        for _ in 0..20 {
            let call = (family.write)(rng, &keys);
            ok(&mut admin, &words(&call));
        }
        let before = db_snapshot(&mut admin);
        for _ in 0..20 {
            let call = (family.write)(rng, &keys);
            let e = err(&mut con, &words(&call));
            assert!(e.starts_with("NOPERM"), "{user}: {call:?}: {e}");
            let call = (family.read)(rng, &keys);
            ok(&mut con, &words(&call));
        }
        assert!(db_snapshot(&mut admin) == before, "{user}: data changed");
    }
}

#[test]
fn acl_categories_block_writes_where_the_server_has_them() {
    let mut rng = Rng::seeded("acl categories");
    let server = Server::start();
    let mut con = server.connect();
    let commands = zkit_commands(&mut con);
    let writes: Vec<&CommandFacts> = commands.iter().filter(|c| c.is_write()).collect();
    assert!(!writes.is_empty());

    // What works everywhere, and what 7.0 users must do: deny zkit's write
    // commands by name next to -@write.
    let mut rule = vec![
        "ACL", "SETUSER", "byname", "on", "nopass", "~*", "+@all", "-@write",
    ];
    let denials: Vec<String> = writes.iter().map(|c| format!("-{}", c.name)).collect();
    rule.extend(denials.iter().map(String::as_str));
    ok(&mut con, &rule);
    assert_writes_refused(&server, "byname", &mut rng);

    let version = server_version(&mut con);
    if version < (7, 2) {
        eprintln!(
            "SKIPPED: -@write and +@read cannot cover module commands on Redis {}.{}: \
             ACL categories for module commands need Redis 7.2+ (docs/operating.md, ACL)",
            version.0, version.1
        );
        return;
    }
    // ACL CAT omits module commands on some servers (Redis 7.4); COMMAND INFO
    // tells the categories everywhere.
    for command in &commands {
        let has = |c: &str| command.acl_categories.iter().any(|x| x == c);
        assert_eq!(has("@write"), command.is_write(), "{}", command.name);
        assert_eq!(has("@read"), !command.is_write(), "{}", command.name);
    }
    ok(
        &mut con,
        &[
            "ACL", "SETUSER", "nowrite", "on", "nopass", "~*", "+@all", "-@write",
        ],
    );
    assert_writes_refused(&server, "nowrite", &mut rng);
    ok(
        &mut con,
        &[
            "ACL", "SETUSER", "reader", "on", "nopass", "~*", "-@all", "+@read",
        ],
    );
    assert_writes_refused(&server, "reader", &mut rng);
}

#[test]
fn the_zkit_acl_category_covers_exactly_zkits_commands_where_modules_may_add_one() {
    let mut rng = Rng::seeded("acl zkit category");
    let server = Server::start();
    let mut con = server.connect();
    let categories: Vec<String> = query(&mut con, &["ACL", "CAT"]);
    let version = server_version(&mut con);
    if !categories.iter().any(|c| c == "zkit") {
        // RedisModule_AddACLCategory exists since Redis 7.4 (Valkey reports 7.2).
        assert!(version < (7, 4), "no @zkit category on {version:?}");
        eprintln!(
            "SKIPPED: Redis {}.{} lets no module add an ACL category; name zkit's \
             commands instead (docs/operating.md, ACL)",
            version.0, version.1
        );
        return;
    }
    for command in zkit_commands(&mut con) {
        assert!(
            command.acl_categories.iter().any(|c| c == "@zkit"),
            "{} lacks @zkit",
            command.name
        );
    }
    ok(
        &mut con,
        &[
            "ACL", "SETUSER", "nozkit", "on", "nopass", "~*", "+@all", "-@zkit",
        ],
    );
    ok(
        &mut con,
        &[
            "ACL", "SETUSER", "onlyzkit", "on", "nopass", "~*", "-@all", "+@zkit",
        ],
    );
    let mut nozkit = connect_as(&server, "nozkit");
    let mut onlyzkit = connect_as(&server, "onlyzkit");
    for family in FAMILIES {
        let keys = family.keys("", 3);
        for _ in 0..10 {
            let call = family.any_call(&mut rng, &keys);
            let e = err(&mut nozkit, &words(&call));
            assert!(e.starts_with("NOPERM"), "-@zkit let {call:?} through: {e}");
            ok(&mut onlyzkit, &words(&call));
        }
    }
    // Native commands are not in it.
    ok(&mut nozkit, &["ZADD", "native", "1", "m"]);
    let e = err(&mut onlyzkit, &["ZADD", "native", "2", "m"]);
    assert!(e.starts_with("NOPERM"), "{e}");
}

// ---- OOM -----------------------------------------------------------------

#[test]
fn writes_are_refused_when_maxmemory_is_reached() {
    let mut rng = Rng::seeded("oom");
    let server = Server::with(ServerConfig::default().arg("maxmemory-policy", "noeviction"));
    let mut con = server.connect();
    apply(&mut con, &mixed_calls(&mut rng, "", 3, 200));
    let commands = zkit_commands(&mut con);
    // Any data at all is over a one-byte limit.
    ok(&mut con, &["CONFIG", "SET", "maxmemory", "1"]);
    let (mut refused, mut served) = (0, 0);
    for family in FAMILIES {
        let keys = family.keys("", 3);
        for _ in 0..20 {
            let call = (family.write)(&mut rng, &keys);
            let facts = facts_of(&commands, call[0].as_bytes()).expect("a zkit command");
            if facts.denies_oom() {
                let before = db_snapshot(&mut con);
                let e = err(&mut con, &words(&call));
                assert!(e.starts_with("OOM"), "{call:?}: {e}");
                assert!(db_snapshot(&mut con) == before, "{call:?} changed data");
                refused += 1;
            } else {
                // Writes that only take data out (DELAY's polls, like native
                // ZPOPMIN) are not deny-oom: workers must drain a queue
                // exactly when memory is short.
                ok(&mut con, &words(&call));
                served += 1;
            }
            let call = (family.read)(&mut rng, &keys);
            ok(&mut con, &words(&call));
        }
        let call = loop {
            let call = (family.write)(&mut rng, &keys);
            if facts_of(&commands, call[0].as_bytes()).is_some_and(CommandFacts::denies_oom) {
                break call;
            }
        };
        let before = db_snapshot(&mut con);
        ok(&mut con, &["MULTI"]);
        let e = err(&mut con, &words(&call));
        assert!(e.starts_with("OOM"), "{call:?} in MULTI: {e}");
        let e = err(&mut con, &["EXEC"]);
        assert!(e.starts_with("EXECABORT"), "{e}");
        let mut eval = vec!["EVAL", "return redis.call(unpack(ARGV))", "0"];
        eval.extend(words(&call));
        let e = err(&mut con, &eval);
        assert!(e.contains("OOM"), "{call:?} in EVAL: {e}");
        assert!(
            db_snapshot(&mut con) == before,
            "a refused write changed data"
        );
    }
    assert!(
        refused > 0 && served > 0,
        "{refused} refused, {served} served"
    );
    ok(&mut con, &["CONFIG", "SET", "maxmemory", "0"]);
    apply(&mut con, &mixed_calls(&mut rng, "", 3, 20));
}

// ---- MULTI/EXEC and Lua ----------------------------------------------------

/// Runs `calls` in one EVAL: ARGV holds each call's word count, then its words.
const EVAL_CALLS: &str = "local i, done = 1, 0
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  redis.call(unpack(ARGV, i + 1, i + n))
  i, done = i + n + 1, done + 1
end
return done";

fn eval_args(calls: &[Vec<String>]) -> Vec<String> {
    calls
        .iter()
        .flat_map(|call| std::iter::once(call.len().to_string()).chain(call.iter().cloned()))
        .collect()
}

fn contains_error(value: &Value) -> bool {
    match value {
        Value::ServerError(_) => true,
        Value::Array(items) | Value::Set(items) => items.iter().any(contains_error),
        _ => false,
    }
}

#[test]
fn multi_exec_and_lua_run_zkit_commands_and_replicate_them() {
    let mut rng = Rng::seeded("multi/lua");
    let master = Server::start();
    let replicas = [
        Server::with(ServerConfig::default().replica_of(&master)),
        Server::with(ServerConfig::without_module().replica_of(&master)),
    ];
    replicas.iter().for_each(Server::wait_until_synced);
    let mut con = master.connect();
    for family in FAMILIES {
        let keys = family.keys("", 4);
        for _ in 0..15 {
            let calls: Vec<Vec<String>> = (0..rng.range(1, 6))
                .map(|_| family.any_call(&mut rng, &keys))
                .collect();
            ok(&mut con, &["MULTI"]);
            for call in &calls {
                assert_eq!(
                    ok(&mut con, &words(call)),
                    Value::SimpleString("QUEUED".into())
                );
            }
            let exec = ok(&mut con, &["EXEC"]);
            assert!(!contains_error(&exec), "{calls:?}: {exec:?}");
            let Value::Array(results) = &exec else {
                panic!("{exec:?}")
            };
            assert_eq!(results.len(), calls.len());

            let calls: Vec<Vec<String>> = (0..rng.range(1, 6))
                .map(|_| family.any_call(&mut rng, &keys))
                .collect();
            let args = eval_args(&calls);
            let mut eval = vec!["EVAL", EVAL_CALLS, "0"];
            eval.extend(words(&args));
            let done: i64 = query(&mut con, &eval);
            assert_eq!(done, calls.len() as i64);
        }
        // A read-only script may run reads and no write.
        let before = db_snapshot(&mut con);
        let read = (family.read)(&mut rng, &keys);
        let mut eval = vec!["EVAL_RO", "return redis.call(unpack(ARGV))", "0"];
        eval.extend(words(&read));
        ok(&mut con, &eval);
        let write = (family.write)(&mut rng, &keys);
        let mut eval = vec!["EVAL_RO", "return redis.call(unpack(ARGV))", "0"];
        eval.extend(words(&write));
        let e = err(&mut con, &eval);
        assert!(
            e.contains("Write commands are not allowed"),
            "{write:?}: {e}"
        );
        assert!(db_snapshot(&mut con) == before);
    }
    assert_identical(&master, &replicas, "after MULTI and Lua");
}

// ---- observability ---------------------------------------------------------

#[test]
fn every_command_is_registered_documented_and_versioned() {
    let server = Server::start();
    let mut con = server.connect();
    let commands = zkit_commands(&mut con);
    assert!(!commands.is_empty());

    // The registry covers every command: each belongs to a family whose fuzz
    // templates, or those made from its examples, call it, so every check
    // above exercises it.
    for command in &commands {
        let family = FAMILIES
            .iter()
            .find(|f| command.name.starts_with(&format!("{}.", f.name)))
            .unwrap_or_else(|| {
                panic!(
                    "{} belongs to no family in tests/integration/common/workload.rs",
                    command.name
                )
            });
        let from_examples = example_templates(family);
        assert!(
            family
                .fuzz
                .iter()
                .map(|t| t[0])
                .chain(from_examples.iter().map(|t| t[0].as_str()))
                .any(|name| name.eq_ignore_ascii_case(&command.name)),
            "no fuzz template of {} calls {}",
            family.name,
            command.name
        );
        let docs = format!("{:?}", ok(&mut con, &["COMMAND", "DOCS", &command.name]));
        for field in ["summary", "since", "complexity", "arguments"] {
            assert!(docs.contains(field), "{} docs lack {field}", command.name);
        }
    }

    // Version in INFO and MODULE LIST; configs in CONFIG GET and INFO.
    let info: String = query(&mut con, &["INFO", "zkit"]);
    let version = env!("CARGO_PKG_VERSION");
    assert!(info.contains(&format!("zkit_version:{version}")), "{info}");
    let modules: Vec<HashMap<String, Value>> = query(&mut con, &["MODULE", "LIST"]);
    let zkit = modules
        .iter()
        .find(|m| m["name"] == Value::BulkString(b"zkit".to_vec()))
        .expect("zkit in MODULE LIST");
    let numeric = version
        .split('.')
        .map(|p| p.parse::<i64>().unwrap())
        .fold(0, |acc, p| acc * 100 + p);
    assert_eq!(zkit["ver"], Value::Int(numeric));
    let configs: HashMap<String, String> = query(&mut con, &["CONFIG", "GET", "zkit.*"]);
    let mut names: Vec<&String> = configs.keys().collect();
    names.sort();
    assert_eq!(
        names,
        [
            "zkit.cold-set-ms",
            "zkit.convert-loaded-boards",
            "zkit.dead-letters-max",
            "zkit.dead-letters-max-age-ms",
            "zkit.hot-set-writes",
            "zkit.idmp-max-ids",
            "zkit.idmp-retain-ms",
            "zkit.job-payload-max-bytes",
            "zkit.member-data-max-bytes",
            "zkit.small-set-max",
            "zkit.tiebreak-epoch-ms",
            "zkit.tiebreak-span-ms",
        ],
        "{configs:?}"
    );
    ok(
        &mut con,
        &[
            "CONFIG",
            "SET",
            "zkit.tiebreak-epoch-ms",
            "1000",
            "zkit.tiebreak-span-ms",
            "500",
        ],
    );
    let info: String = query(&mut con, &["INFO", "zkit"]);
    assert!(
        info.contains("zkit_tiebreak_window_start_ms:1000"),
        "{info}"
    );
    assert!(info.contains("zkit_tiebreak_window_end_ms:1500"), "{info}");
}

// ---- loading ---------------------------------------------------------------

/// One numeric field of INFO zkit.
fn info_field(con: &mut Connection, field: &str) -> i64 {
    stat(con, "zkit", &format!("zkit_{field}"))
}

#[test]
fn info_zkit_counts_what_commandstats_does_not() {
    let server = Server::start();
    let mut con = server.connect();
    let count = |con: &mut Connection| -> Vec<i64> {
        [
            "delay_tasks_claimed",
            "delay_tasks_acked",
            "delay_tasks_redelivered",
            "rate_hits_refused",
            "feed_items_trimmed",
            "write_gate_postponed_clients",
            "write_gate_refused_claims",
        ]
        .iter()
        .map(|field| info_field(con, field))
        .collect()
    };
    assert_eq!(count(&mut con), [0; 7], "counters start at zero");
    ok(&mut con, &["ZADD", "q", "1", "t1", "2", "t2", "3", "t3"]);
    ok(
        &mut con,
        &["DELAY.POLL", "q", "COUNT", "2", "LEASE", "held", "60000"],
    );
    ok(&mut con, &["DELAY.ACK", "held", "TASKS", "t1", "t9"]);
    // t2's lease "ended": a poll of the in-flight set into itself hands it
    // out again.
    ok(&mut con, &["ZADD", "held", "1", "t2"]);
    ok(&mut con, &["DELAY.POLL", "held", "LEASE", "held", "60000"]);
    ok(&mut con, &["DELAY.ACK", "held", "TASKS", "t2"]);
    for _ in 0..3 {
        ok(&mut con, &["RATE.HIT", "r", "60000", "1"]);
    }
    ok(
        &mut con,
        &[
            "FEED.ADD", "f", "CAP", "2", "1", "a", "2", "b", "3", "c", "4", "d",
        ],
    );
    assert_eq!(count(&mut con), [3, 2, 1, 2, 2, 0, 0]);

    // A worker that waits, then waits out a pause, then is refused. Tasks
    // fall due well after the worker is seen blocked, even on a loaded
    // machine, so the pause and the refusal come first.
    let due_ms = 1500;
    let now = server_time_ms(&mut con);
    ok(
        &mut con,
        &["ZADD", "later", &(now + due_ms).to_string(), "t"],
    );
    let worker = spawn_call(&server, &["DELAY.BPOLL", "later", "0"]);
    wait_blocked(&server, 1);
    assert_eq!(info_field(&mut con, "blocked_clients"), 1);
    ok(&mut con, &["CLIENT", "PAUSE", "3000", "WRITE"]);
    worker.join().unwrap().unwrap();
    // The server frees a served client's state after it replies: poll.
    wait_for(Duration::from_secs(20), || {
        info_field(&mut con, "blocked_clients") == 0
    });
    let due = (server_time_ms(&mut con) + due_ms).to_string();
    ok(&mut con, &["ZADD", "refused", &due, "t"]);
    let worker = spawn_call(&server, &["DELAY.BPOLL", "refused", "0"]);
    wait_blocked(&server, 1);
    ok(&mut con, &["CONFIG", "SET", "min-replicas-to-write", "1"]);
    assert!(worker.join().unwrap().is_err());
    ok(&mut con, &["CONFIG", "SET", "min-replicas-to-write", "0"]);
    assert_eq!(count(&mut con), [4, 2, 1, 2, 2, 1, 1]);
}

#[test]
fn loads_on_supported_servers_and_refuses_older_ones_cleanly() {
    let plain = Server::with(ServerConfig::without_module());
    let mut con = plain.connect();
    let version = server_version(&mut con);
    let refusal = "zkit needs Redis 7.0 or later";
    if version >= (7, 0) {
        let server = Server::start();
        let modules: Vec<HashMap<String, Value>> =
            query(&mut server.connect(), &["MODULE", "LIST"]);
        assert!(modules
            .iter()
            .any(|m| m["name"] == Value::BulkString(b"zkit".to_vec())));
        assert!(!server.log().contains(refusal));
        // A typo in the load arguments is refused, not ignored.
        let e = match Server::try_with(ServerConfig::default().module_arg("debug-panic-comand")) {
            Ok(_) => panic!("an unknown load argument was accepted"),
            Err(e) => e,
        };
        assert!(e.contains("unknown load argument"), "{e}");
        return;
    }
    // Older servers: MODULE LOAD fails, the server stays up and says why.
    let path = module_path().to_string_lossy().into_owned();
    let e = err(&mut con, &["MODULE", "LOAD", &path]);
    assert!(e.starts_with("ERR"), "{e}");
    assert_eq!(ok(&mut con, &["PING"]), Value::SimpleString("PONG".into()));
    assert!(plain.log().contains(refusal), "{}", plain.log());
    let e = err(&mut con, &["RANK.GET", "b", "m"]);
    assert!(e.contains("unknown command"), "{e}");
    // Started with --loadmodule, the server exits non-zero with the reason.
    let e = match Server::try_with(ServerConfig::default()) {
        Ok(_) => panic!("Redis {version:?} started with zkit loaded"),
        Err(e) => e,
    };
    assert!(
        e.contains("exited with") && !e.contains("exit status: 0"),
        "{e}"
    );
    assert!(e.contains(refusal), "{e}");
}
