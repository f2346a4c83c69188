//! The machine-readable and the human reference of every command, both
//! generated from the command declarations, so neither can drift from what
//! the server is told:
//!
//! - `docs/commands.json`, in the format of the Redis source tree's
//!   `src/commands/*.json` (what Redis's docs site and client generators
//!   read), every command in one object;
//! - the block between `<!-- reference: name -->` and `<!-- end reference -->`
//!   in each section of `docs/commands.md`: syntax, complexity, flags, ACL
//!   categories and key specs (the prose around it is written by hand).
//!
//! The tests below fail when a checked-in file differs from what the
//! declarations give; `ZKIT_REGENERATE=1 cargo test --lib reference` writes
//! them. `tests/integration/commands_json.rs` checks the file against what COMMAND DOCS
//! and COMMAND INFO say on a live server.

use serde_json::{json, Map, Value};

use crate::commands::{self, Command};
use crate::host::{key_flags as kf, Arg, ArgKind, BeginSearch, FindKeys, KeySpec};

use super::ACL_CATEGORY;

/// Key-spec flags by the names Redis's JSON and docs use.
const KEY_FLAGS: &[(u32, &str)] = &[
    (kf::RO, "RO"),
    (kf::RW, "RW"),
    (kf::OW, "OW"),
    (kf::RM, "RM"),
    (kf::ACCESS, "ACCESS"),
    (kf::UPDATE, "UPDATE"),
    (kf::INSERT, "INSERT"),
    (kf::DELETE, "DELETE"),
    (kf::INCOMPLETE, "INCOMPLETE"),
];

/// ACL categories that command flags already give (`@write` for a write
/// command...): Redis's JSON lists only the others.
const CATEGORIES_FROM_FLAGS: &[&str] = &["write", "read", "fast", "slow", "blocking"];

fn key_flag_names(flags: u32) -> Vec<&'static str> {
    KEY_FLAGS
        .iter()
        .filter(|(bit, _)| flags & bit != 0)
        .map(|(_, name)| *name)
        .collect()
}

/// The command's flags as COMMAND INFO and the JSON spell them
/// (`deny-oom` is `DENYOOM`).
fn command_flags(command: &Command) -> Vec<String> {
    command
        .flags
        .split_whitespace()
        .map(|flag| flag.replace('-', "").to_uppercase())
        .collect()
}

fn key_spec_json(spec: &KeySpec) -> Value {
    let begin = match spec.begin {
        BeginSearch::Index(pos) => json!({ "index": { "pos": pos } }),
        BeginSearch::Keyword { keyword, start } => {
            json!({ "keyword": { "keyword": keyword, "startfrom": start } })
        }
    };
    let find = match spec.find {
        FindKeys::Range { last, step, limit } => {
            json!({ "range": { "lastkey": last, "step": step, "limit": limit } })
        }
        FindKeys::KeyNum {
            count_index,
            first,
            step,
        } => json!({ "keynum": { "keynumidx": count_index, "firstkey": first, "step": step } }),
    };
    json!({ "flags": key_flag_names(spec.flags), "begin_search": begin, "find_keys": find })
}

fn arg_json(arg: &Arg, next_key_spec: &mut usize) -> Value {
    let mut out = Map::new();
    out.insert("name".into(), json!(arg.name));
    let kind = match arg.kind {
        ArgKind::Key(_) => "key",
        ArgKind::String => "string",
        ArgKind::Integer => "integer",
        ArgKind::Double => "double",
        ArgKind::UnixTime => "unix-time",
        ArgKind::PureToken => "pure-token",
        ArgKind::OneOf(_) => "oneof",
        ArgKind::Block(_) => "block",
    };
    out.insert("type".into(), json!(kind));
    if let ArgKind::Key(_) = arg.kind {
        // One key spec per key argument, in argument order.
        out.insert("key_spec_index".into(), json!(*next_key_spec));
        *next_key_spec += 1;
    }
    if let Some(token) = arg.token {
        out.insert("token".into(), json!(token));
    }
    if let Some(since) = arg.since {
        out.insert("since".into(), json!(since));
    }
    if arg.optional {
        out.insert("optional".into(), json!(true));
    }
    if arg.multiple {
        out.insert("multiple".into(), json!(true));
    }
    // Not in COMMAND DOCS: which earlier integer says how many items the
    // list holds, for parsers built from this file (the Functions library).
    if let Some(count) = arg.counted_by {
        out.insert("counted_by".into(), json!(count));
    }
    if let ArgKind::OneOf(parts) | ArgKind::Block(parts) = arg.kind {
        out.insert(
            "arguments".into(),
            Value::Array(parts.iter().map(|p| arg_json(p, next_key_spec)).collect()),
        );
    }
    Value::Object(out)
}

fn command_json(command: &Command) -> Value {
    let categories: Vec<String> = command
        .acl_categories
        .split_whitespace()
        .chain([ACL_CATEGORY])
        .filter(|c| !CATEGORIES_FROM_FLAGS.contains(c))
        .map(str::to_uppercase)
        .collect();
    let mut out = Map::new();
    out.insert("summary".into(), json!(command.summary));
    out.insert("complexity".into(), json!(command.complexity));
    out.insert("group".into(), json!("module"));
    out.insert("module".into(), json!("zkit"));
    out.insert("since".into(), json!(command.since));
    if !command.history.is_empty() {
        out.insert("history".into(), json!(command.history));
    }
    out.insert("arity".into(), json!(command.arity()));
    out.insert("command_flags".into(), json!(command_flags(command)));
    out.insert("acl_categories".into(), json!(categories));
    out.insert(
        "key_specs".into(),
        Value::Array(command.key_specs().iter().map(key_spec_json).collect()),
    );
    if !command.args.is_empty() {
        out.insert(
            "arguments".into(),
            Value::Array({
                let mut next_key_spec = 0;
                command
                    .args
                    .iter()
                    .map(|arg| arg_json(arg, &mut next_key_spec))
                    .collect()
            }),
        );
    }
    json!({ command.name.to_uppercase(): Value::Object(out) })
}

/// `docs/commands.json`: every command, in registration order.
fn commands_json() -> String {
    let mut all = Map::new();
    for command in commands::all() {
        let Value::Object(one) = command_json(command) else {
            unreachable!("command_json builds an object")
        };
        all.extend(one);
    }
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut writer = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(&Value::Object(all), &mut writer).expect("JSON to memory");
    String::from_utf8(out).expect("JSON is UTF-8") + "\n"
}

/// The key arguments a key spec describes, for the docs (`key`, `inflight`).
fn key_names(command: &Command, spec_index: usize) -> String {
    // Every key argument the spec finds (`DEADLETTER dead deliveries` finds
    // two), in argument order.
    fn collect(args: &[Arg], names: &mut Vec<&'static str>) {
        for arg in args {
            match arg.kind {
                ArgKind::Key(_) => names.push(arg.name),
                ArgKind::OneOf(parts) | ArgKind::Block(parts) => collect(parts, names),
                _ => {}
            }
        }
    }
    // One key spec per key argument, in argument order.
    let mut names = Vec::new();
    collect(command.args, &mut names);
    names.get(spec_index).copied().unwrap_or("key").to_string()
}

/// The generated block of a command's section in docs/commands.md.
fn reference_block(command: &Command) -> String {
    let flags: Vec<String> = command
        .flags
        .split_whitespace()
        .map(|f| format!("`{f}`"))
        .collect();
    let categories: Vec<String> = command
        .acl_categories
        .split_whitespace()
        .map(|c| format!("`@{c}`"))
        .collect();
    let key_specs: Vec<String> = command
        .key_specs()
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let whence = match spec.begin {
                BeginSearch::Keyword { keyword, .. } => format!(" (after `{keyword}`)"),
                BeginSearch::Index(_) => String::new(),
            };
            let many = match spec.find {
                FindKeys::KeyNum { .. } => " (as many as `numkeys` says)",
                FindKeys::Range { .. } => "",
            };
            format!(
                "`{}`{whence}{many}: {}",
                key_names(command, i),
                key_flag_names(spec.flags).join(" ")
            )
        })
        .collect();
    let key_specs = if key_specs.is_empty() {
        "none".to_string()
    } else {
        key_specs.join("; ")
    };
    format!(
        "<!-- reference: {name} (generated from its declaration: \
         ZKIT_REGENERATE=1 cargo test --lib reference) -->\n\
         ```\n{syntax}\n```\n\n\
         - Complexity: {complexity}\n\
         - Flags: {flags}; ACL categories: {categories}, and `@{zkit}` where the \
         server lets modules add a category (Redis 7.4+, Valkey 8+).\n\
         - Key specs: {key_specs}.\n\
         - Since: {since}.{history}\n\
         <!-- end reference -->",
        name = command.name,
        syntax = command.usage(),
        complexity = command.complexity,
        flags = flags.join(" "),
        categories = categories.join(" "),
        zkit = ACL_CATEGORY,
        since = command.since,
        history = command
            .history
            .iter()
            .map(|(version, changes)| format!("\n- Changed in {version}: {changes}"))
            .collect::<String>(),
    )
}

/// `docs` with every reference block replaced by the current one; an error
/// names a command without a block, or a block without a command.
fn regenerate_docs(docs: &str) -> Result<String, String> {
    let mut out = String::with_capacity(docs.len());
    let mut rest = docs;
    let mut seen = Vec::new();
    while let Some(start) = rest.find("<!-- reference: ") {
        out.push_str(&rest[..start]);
        let name_start = start + "<!-- reference: ".len();
        let name_end = rest[name_start..]
            .find([' ', '-'])
            .map(|i| name_start + i)
            .ok_or("an unterminated reference marker")?;
        let name = &rest[name_start..name_end];
        let end_marker = "<!-- end reference -->";
        let end = rest[start..]
            .find(end_marker)
            .map(|i| start + i + end_marker.len())
            .ok_or_else(|| format!("the reference of {name} has no end marker"))?;
        let command = commands::all().find(|c| c.name == name).ok_or_else(|| {
            format!("docs/commands.md has a reference for unknown command {name}")
        })?;
        out.push_str(&reference_block(command));
        seen.push(command.name);
        rest = &rest[end..];
    }
    out.push_str(rest);
    for command in commands::all() {
        if !seen.contains(&command.name) {
            return Err(format!(
                "docs/commands.md has no `<!-- reference: {} -->` block",
                command.name
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(relative: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
    }

    /// Compares a checked-in file with what the declarations give, or writes
    /// it with ZKIT_REGENERATE=1.
    fn check_generated(relative: &str, expected: &str) {
        let file = path(relative);
        if std::env::var_os("ZKIT_REGENERATE").is_some() {
            std::fs::write(&file, expected).unwrap();
            return;
        }
        let actual = std::fs::read_to_string(&file).unwrap_or_default();
        assert!(
            actual == expected,
            "{relative} is not what the command declarations give: \
             run ZKIT_REGENERATE=1 cargo test --lib reference"
        );
    }

    #[test]
    fn reference_commands_json_is_generated_from_the_declarations() {
        check_generated("docs/commands.json", &commands_json());
    }

    #[test]
    fn reference_blocks_of_the_docs_are_generated_from_the_declarations() {
        let docs = std::fs::read_to_string(path("docs/commands.md")).unwrap();
        let regenerated = regenerate_docs(&docs).unwrap_or_else(|e| panic!("{e}"));
        check_generated("docs/commands.md", &regenerated);
    }

    #[test]
    fn syntax_reads_like_redis_docs() {
        assert_eq!(
            commands::rank::GIFT.usage(),
            "RANK.GIFT key member amount [AT unix-ms] [SHARED] [IDMP seen-key event-id] [RETAIN ms]"
        );
        assert_eq!(
            commands::feed::PAGE.usage(),
            "FEED.PAGE key [COUNT count] [NEWER cursor | OLDER cursor]"
        );
        assert_eq!(
            commands::feed::ADD.usage(),
            "FEED.ADD key [CAP n] score member [score member ...]"
        );
        assert_eq!(
            commands::rank_merge::MERGE.usage(),
            "RANK.MERGE destkey numkeys key [key ...] [WEIGHTS weight [weight ...]] [STEP count staging cursor]"
        );
        assert!(commands::vote::CAST
            .usage()
            .contains(" <UP | DOWN | CLEAR> "));
    }
}
