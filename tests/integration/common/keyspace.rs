//! What clients see of writes besides the data: keyspace events and WATCH.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

use super::client::{ok, query};
use super::Server;
use redis::{Connection, Value};

/// Keyspace events as (`__keyevent@0__:<event>`, key) string slices, for
/// comparing with a literal list.
pub fn event_pairs(events: &[(String, String)]) -> Vec<(&str, &str)> {
    events
        .iter()
        .map(|(c, k)| (c.as_str(), k.as_str()))
        .collect()
}

/// Whether a transaction WATCHing `key` still commits after `write` ran on
/// another connection (false: the write invalidated the WATCH).
pub fn watch_survives(server: &Server, key: &str, write: impl FnOnce(&mut Connection)) -> bool {
    let mut watcher = server.connect();
    let mut writer = server.connect();
    ok(&mut watcher, &["WATCH", key]);
    write(&mut writer);
    ok(&mut watcher, &["MULTI"]);
    ok(&mut watcher, &["PING"]);
    ok(&mut watcher, &["EXEC"]) != Value::Nil
}

/// Keyspace events published while `action` runs, as (channel, message).
pub fn keyspace_events(
    server: &Server,
    action: impl FnOnce(&mut Connection),
) -> Vec<(String, String)> {
    let mut con = server.connect();
    events_on(server, || action(&mut con))
}

/// Keyspace events `observer` publishes while `action` runs (on any server:
/// a replica's events while its master is written), as (channel, message).
pub fn events_on(observer: &Server, action: impl FnOnce()) -> Vec<(String, String)> {
    ok(
        &mut observer.connect(),
        &["CONFIG", "SET", "notify-keyspace-events", "KEA"],
    );
    let mut sub_con = observer.connect();
    let mut pubsub = sub_con.as_pubsub();
    pubsub.psubscribe("__keyevent@*").unwrap();
    pubsub
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    action();
    let mut events = Vec::new();
    while let Ok(msg) = pubsub.get_message() {
        let channel = msg.get_channel_name().to_string();
        let payload: String = msg.get_payload().unwrap_or_default();
        events.push((channel, payload));
    }
    events
}

/// What MONITOR shows on `observer` while `action` runs, one line per
/// command (`+<time> [<db> <client>] "CMD" "arg" ...`). The lines end at a
/// `PUBLISH` that `end_on` sends after the action: a master's PUBLISH reaches
/// its replicas' MONITOR too, after everything written before it.
pub fn monitor_lines(observer: &Server, end_on: &Server, action: impl FnOnce()) -> Vec<String> {
    const END: &str = "zkit:test:monitor-end";
    let mut stream = TcpStream::connect(("127.0.0.1", observer.port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream.write_all(b"MONITOR\r\n").unwrap();
    let mut reader = BufReader::new(stream);
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    assert_eq!(first.trim_end(), "+OK", "MONITOR");
    action();
    let _: i64 = query(&mut end_on.connect(), &["PUBLISH", END, "end"]);
    let mut lines = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).expect("a MONITOR line");
        if line.contains(END) {
            return lines;
        }
        lines.push(line.trim_end().to_string());
    }
}
