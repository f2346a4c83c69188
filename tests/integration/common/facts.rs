//! What the server says about zkit's commands: COMMAND INFO, COMMAND
//! GETKEYS and GETKEYSANDFLAGS.

use super::client::query;
use redis::Value;

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
