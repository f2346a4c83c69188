//! Replicas, the AOF and roles: servers that must end up holding the same
//! data.

use std::time::Duration;

use super::client::query;
use super::data::{db_snapshot, expiry_snapshot, DbContents};
use super::{wait_for, Server, ServerConfig};

impl Server {
    /// Blocks until `replicas` replicas have processed everything the master
    /// sent so far.
    pub fn wait_for_replicas(&self, replicas: usize) {
        let mut con = self.connect();
        // WAIT waits for the offset of this connection's last propagated
        // command, which is 0 on a fresh connection (WAIT would return at
        // once). PUBLISH propagates to replicas without touching any key, so
        // it moves this connection's offset to the end of the stream.
        let _: i64 = query(&mut con, &["PUBLISH", "zkit:test:wait", "sync"]);
        let acked: i64 = redis::cmd("WAIT")
            .arg(replicas)
            .arg(10_000)
            .query(&mut con)
            .expect("WAIT");
        assert_eq!(acked, replicas as i64, "replicas did not acknowledge");
    }

    /// Waits until this replica reports its link to the master up.
    pub fn wait_until_synced(&self) {
        let mut con = self.connect();
        wait_for(Duration::from_secs(20), || {
            let info: String = redis::cmd("INFO")
                .arg("replication")
                .query(&mut con)
                .unwrap();
            info.contains("master_link_status:up")
        });
    }
}

/// A master with zkit, and two replicas of it, synced: one with zkit, one
/// without (effects replication must not need the module).
pub fn master_and_replicas() -> (Server, [Server; 2]) {
    let master = Server::start();
    let with_module = Server::with(ServerConfig::default().replica_of(&master));
    let without_module = Server::with(ServerConfig::without_module().replica_of(&master));
    with_module.wait_until_synced();
    without_module.wait_until_synced();
    (master, [with_module, without_module])
}

/// Waits until the replicas processed everything, asserts each holds exactly
/// the master's data and expiry times, and returns the master's snapshot.
pub fn assert_replicas_match(master: &Server, replicas: &[Server]) -> DbContents {
    master.wait_for_replicas(replicas.len());
    let mut con = master.connect();
    let expected = db_snapshot(&mut con);
    let expected_expiry = expiry_snapshot(&mut con);
    for (i, replica) in replicas.iter().enumerate() {
        let mut rcon = replica.connect();
        assert_eq!(db_snapshot(&mut rcon), expected, "replica {i}");
        assert_eq!(
            expiry_snapshot(&mut rcon),
            expected_expiry,
            "replica {i} TTLs"
        );
    }
    expected
}

/// A zkit server that appends every write to its AOF, fsynced at once.
pub fn aof_server() -> Server {
    Server::with(
        ServerConfig::default()
            .arg("appendonly", "yes")
            .arg("appendfsync", "always"),
    )
}

/// The bytes of every AOF file under `dir` (the AOF folder's base and
/// increment files from Redis 7.0 on).
pub fn aof_bytes(dir: &std::path::Path) -> Vec<u8> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            stack.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if path.to_string_lossy().contains(".aof") {
            out.extend(std::fs::read(&path).unwrap());
        }
    }
    out
}

/// Stops `server` (started with [`aof_server`]), replays its AOF on a server
/// without zkit, and asserts the replay holds exactly the data the server
/// held (keys, values, and expiry times).
pub fn assert_aof_replays_without_module(server: Server) {
    let (expected, expected_expiry) = {
        let mut con = server.connect();
        (db_snapshot(&mut con), expiry_snapshot(&mut con))
    };
    let dir = server.shutdown_keep_dir();
    let plain = Server::with(
        ServerConfig::without_module()
            .arg("appendonly", "yes")
            .in_dir(&dir),
    );
    let mut con = plain.connect();
    assert_eq!(db_snapshot(&mut con), expected);
    assert_eq!(expiry_snapshot(&mut con), expected_expiry);
    drop(plain);
    let _ = std::fs::remove_dir_all(dir);
}

/// `master` or `slave`, as INFO replication reports the server's role.
pub fn role(server: &Server) -> String {
    let info: String = query(&mut server.connect(), &["INFO", "replication"]);
    info.lines()
        .find_map(|line| line.strip_prefix("role:"))
        .expect("role in INFO replication")
        .trim()
        .to_string()
}
