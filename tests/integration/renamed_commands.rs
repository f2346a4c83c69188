//! Servers hardened with `rename-command`: zkit runs some native commands
//! (ranks, counts, sets) and replicates its writes as native commands, all by
//! their own names. A server that renamed or disabled one of them must make
//! every zkit command that needs it refuse, naming it, before it writes
//! anything: before 0.3.1, RANK.GIFT with ZREVRANK renamed added the gift,
//! then failed, and the client's retry counted it twice.

use crate::common::client::{err, ok, query};
use crate::common::data::db_snapshot;
use crate::common::{info_value, Server, ServerConfig};

/// The name a test server gives a renamed command.
fn renamed_name(command: &str) -> String {
    format!("{}-renamed-for-zkit-tests", command.to_lowercase())
}

/// A zkit server on which each of `commands` exists only under
/// [`renamed_name`], with an AOF to see what it propagates.
fn server_renaming(commands: &[&str]) -> Server {
    let mut config = ServerConfig::default()
        .arg("appendonly", "yes")
        .arg("appendfsync", "always");
    for command in commands {
        config.args.push("--rename-command".into());
        config.args.push(command.to_string());
        config.args.push(renamed_name(command));
    }
    Server::with(config)
}

/// The refusal of a command that needs `command` on such a server.
fn unavailable(command: &str) -> String {
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
    let plain = Server::start();
    let mut con = plain.connect();
    assert_eq!(
        info_value(&mut con, "zkit", "zkit_unavailable_commands"),
        ""
    );

    let server = server_renaming(&["ZREVRANK"]);
    let mut con = server.connect();
    assert_eq!(
        info_value(&mut con, "zkit", "zkit_unavailable_commands"),
        "ZREVRANK"
    );
    assert!(
        server.log().contains("no command named ZREVRANK"),
        "the log names the command: {}",
        server.log()
    );
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
}
