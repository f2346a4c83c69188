//! What the server says about zkit's commands: COMMAND INFO, COMMAND
//! GETKEYS and GETKEYSANDFLAGS; and what the declarations say of them,
//! through docs/commands.json.

use super::client::query;
use redis::Value;
use serde_json::Value as Json;

/// docs/commands.json, generated from the command declarations: each
/// command's entry by name, in registration order.
pub fn commands_json() -> serde_json::Map<String, Json> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/commands.json");
    let text = std::fs::read_to_string(path).expect("docs/commands.json");
    match serde_json::from_str(&text).expect("valid JSON") {
        Json::Object(all) => all,
        other => panic!("docs/commands.json is not an object: {other}"),
    }
}

/// Every declaration's example calls (its `examples`), in registration
/// order, as (the command they are examples of, the call's words). A call
/// of another command (a native `ZADD`) sets up the next; every key is
/// spelled with the hash tag `{t}`, which no other word holds.
pub fn examples() -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for (name, doc) in commands_json() {
        for call in doc["examples"].as_array().expect("examples") {
            let words = call.as_array().expect("an example's words");
            let words = words
                .iter()
                .map(|w| w.as_str().expect("a word").to_string());
            out.push((name.clone(), words.collect()));
        }
    }
    out
}

/// The keys of an example call: its words that hold the hash tag `{t}`.
pub fn example_keys(words: &[String]) -> Vec<String> {
    words
        .iter()
        .filter(|w| w.contains("{t}"))
        .cloned()
        .collect()
}

/// A zkit command as COMMAND INFO describes it.
#[derive(Clone, Debug)]
pub struct CommandFacts {
    pub name: String,
    pub flags: Vec<String>,
    /// ACL categories, `@write` style (empty before Redis 7.2).
    pub acl_categories: Vec<String>,
}

impl CommandFacts {
    pub fn is_write(&self) -> bool {
        self.flags.iter().any(|f| f == "write")
    }

    /// Whether the server refuses the command once maxmemory is reached.
    pub fn denies_oom(&self) -> bool {
        self.flags.iter().any(|f| f == "denyoom")
    }
}

/// Every command the loaded zkit registered, sorted by name.
pub fn zkit_commands(con: &mut impl redis::ConnectionLike) -> Vec<CommandFacts> {
    let mut names: Vec<String> = query(con, &["COMMAND", "LIST", "FILTERBY", "MODULE", "zkit"]);
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let info: Vec<Value> = query(con, &["COMMAND", "INFO", &name]);
            let Some(Value::Array(fields)) = info.first() else {
                panic!("COMMAND INFO {name}: {info:?}")
            };
            let flags: Vec<String> = redis::from_redis_value(fields[2].clone()).expect("flags");
            let acl_categories: Vec<String> =
                redis::from_redis_value(fields[6].clone()).expect("ACL categories");
            CommandFacts {
                name,
                flags,
                acl_categories,
            }
        })
        .collect()
}

/// The facts of the command a call runs (`None` if zkit has no such command).
pub fn facts_of<'a>(commands: &'a [CommandFacts], call_name: &[u8]) -> Option<&'a CommandFacts> {
    commands
        .iter()
        .find(|c| c.name.as_bytes().eq_ignore_ascii_case(call_name))
}

/// The keys of a call and their key-spec flags (`RW`, `access`, `update`...),
/// as COMMAND GETKEYSANDFLAGS reports them.
pub fn keys_and_flags(
    con: &mut impl redis::ConnectionLike,
    call: &[String],
) -> Vec<(String, Vec<String>)> {
    let mut words = vec!["COMMAND", "GETKEYSANDFLAGS"];
    words.extend(call.iter().map(String::as_str));
    query(con, &words)
}

/// The keys of a call, as COMMAND GETKEYS reports them.
pub fn keys_of(con: &mut impl redis::ConnectionLike, call: &[String]) -> Vec<String> {
    let mut words = vec!["COMMAND", "GETKEYS"];
    words.extend(call.iter().map(String::as_str));
    query(con, &words)
}

/// A field of a command's line in INFO commandstats (`calls`,
/// `failed_calls`...), 0 for a command not called yet.
pub fn command_stat(con: &mut impl redis::ConnectionLike, command: &str, field: &str) -> u64 {
    let stats: String = query(con, &["INFO", "commandstats"]);
    let prefix = format!("cmdstat_{}:", command.to_lowercase());
    stats
        .lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .and_then(|line| {
            line.trim()
                .split(',')
                .find_map(|pair| pair.strip_prefix(&format!("{field}=")))
        })
        .map_or(0, |value| value.parse().expect("a number"))
}
