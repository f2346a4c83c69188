//! What clients see of writes besides the data: keyspace events and WATCH.

use std::time::Duration;

use super::client::ok;
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
    ok(
        &mut con,
        &["CONFIG", "SET", "notify-keyspace-events", "KEA"],
    );
    let mut sub_con = server.connect();
    let mut pubsub = sub_con.as_pubsub();
    pubsub.psubscribe("__keyevent@*").unwrap();
    pubsub
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    action(&mut con);
    let mut events = Vec::new();
    while let Ok(msg) = pubsub.get_message() {
        let channel = msg.get_channel_name().to_string();
        let payload: String = msg.get_payload().unwrap_or_default();
        events.push((channel, payload));
    }
    events
}
