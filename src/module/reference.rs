//! The machine-readable and the human reference of every command, both
//! generated from the command declarations, so neither can drift from what
//! the server is told:
//!
//! - `docs/commands.json`, in the format of the per-command JSON files in
//!   the Redis source tree's commands folder (what Redis's docs site and
//!   client generators read), every command in one object;
//! - the block between `<!-- reference: name -->` and `<!-- end reference -->`
//!   in each section of `docs/commands.md`: syntax, complexity, flags, ACL
//!   categories and key specs (the prose around it is written by hand).
//!
//! - `docs/constants.json`: the error texts, bounds, limits and config
//!   defaults the Functions library words and checks as the module does
//!   (`functions/gen.py` writes them into `functions/zkit.lua`), taken from
//!   the module's own errors and constants.
//!
//! The tests below fail when a checked-in file differs from what the
//! declarations give; `ZKIT_REGENERATE=1 cargo test --lib reference` writes
//! them. `tests/integration/commands_json.rs` checks the file against what COMMAND DOCS
//! and COMMAND INFO say on a live server.

use serde_json::{json, Map, Value};

use crate::commands::{self, declaration::Command};
use crate::host::command::example_words;
use crate::host::grammar::Arg;
use crate::host::grammar::ArgKind;
use crate::host::keyspec::key_flags as kf;
use crate::host::keyspec::BeginSearch;
use crate::host::keyspec::FindKeys;
use crate::host::keyspec::KeySpec;
use crate::host::reply_shape::Element;
use crate::host::reply_shape::ReplyShape;
use crate::host::reply_shape::Tuple;
use crate::host::reply_shape::When;

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

/// The JSON of an IDMP call's last element, the already-applied flag.
fn idmp_flag_json() -> Value {
    json!({
        "title": "already-applied",
        "type": "integer",
        "enum": [0, 1],
        "description": "Last when the call sent IDMP: 1 when the event id was already applied (nothing changed), else 0.",
    })
}

/// An element's conditions, as `reply_schema` spells them.
fn present_when_json(when: &[When]) -> Value {
    Value::Array(
        when.iter()
            .map(|w| match w {
                When::Option(token) => json!({ "option": token }),
                When::Several(arg) => json!({ "several": arg }),
            })
            .collect(),
    )
}

fn element_json(element: &Element) -> Value {
    let Value::Object(shape) = reply_json(&element.shape) else {
        unreachable!("reply_json builds objects")
    };
    let mut out = Map::new();
    out.insert("title".into(), json!(element.name));
    out.extend(shape);
    if !element.present_when.is_empty() {
        out.insert(
            "present_when".into(),
            present_when_json(element.present_when),
        );
    }
    Value::Object(out)
}

/// A tuple: its type name (when it has one), what it is, its elements.
fn tuple_json(tuple: &Tuple) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("type".into(), json!("array"));
    if !tuple.name.is_empty() {
        out.insert("title".into(), json!(tuple.name));
    }
    out.insert("description".into(), json!(tuple.about));
    let required = tuple
        .elements
        .iter()
        .filter(|e| e.present_when.is_empty())
        .count();
    out.insert("minItems".into(), json!(required));
    out.insert("maxItems".into(), json!(tuple.elements.len()));
    out.insert(
        "items".into(),
        Value::Array(tuple.elements.iter().map(element_json).collect()),
    );
    out
}

/// A reply shape as `reply_schema`, in the spirit of the Redis source
/// tree's commands/*.json: JSON-schema types, tuples as arrays of fixed
/// `items` with `minItems`/`maxItems`, field lists as objects. What JSON
/// schema cannot say has keys of its own: `title` (the clients' type and
/// field names), `present_when` (an element there only when the call sent
/// an option or repeated an argument), `idmp_flag` (the last element of an
/// IDMP call), `when_sent` (the shape a call with that option gets),
/// `flat_items` (tuples laid out flat in one array), `nil_reads_as`.
fn reply_json(shape: &ReplyShape) -> Value {
    match *shape {
        ReplyShape::Status => json!({ "const": "OK" }),
        ReplyShape::ErrorOnly => json!({ "description": "Always an error reply." }),
        ReplyShape::Integer => json!({ "type": "integer" }),
        ReplyShape::Boolean => json!({ "type": "integer", "enum": [0, 1] }),
        ReplyShape::Bulk => json!({ "type": "string" }),
        ReplyShape::Double => json!({ "type": "number" }),
        ReplyShape::IntegerOrNilAsZero => {
            json!({ "oneOf": [{ "type": "integer" }, { "type": "null" }], "nil_reads_as": 0 })
        }
        ReplyShape::OrNil(inner) => json!({ "oneOf": [reply_json(inner), { "type": "null" }] }),
        ReplyShape::ArrayOf(inner) => json!({ "type": "array", "items": reply_json(inner) }),
        ReplyShape::FlatArrayOf(tuple) => {
            json!({ "type": "array", "flat_items": Value::Object(tuple_json(tuple)) })
        }
        ReplyShape::Tuple(tuple) => Value::Object(tuple_json(tuple)),
        ReplyShape::Fields(tuple) => {
            let properties: Map<String, Value> = tuple
                .elements
                .iter()
                .map(|e| (e.name.to_string(), reply_json(&e.shape)))
                .collect();
            json!({
                "type": "object",
                "title": tuple.name,
                "description": format!("{} A [name, value, ...] array in RESP2, a map in RESP3; a later version may add names.", tuple.about),
                "properties": properties,
                "additionalProperties": true,
            })
        }
        ReplyShape::ByOption {
            token,
            with,
            without,
        } => {
            let Value::Object(mut with) = reply_json(with) else {
                unreachable!("reply_json builds objects")
            };
            with.insert("when_sent".into(), json!(token));
            json!({ "oneOf": [reply_json(without), Value::Object(with)] })
        }
        ReplyShape::Idmp(inner) => {
            let Value::Object(mut out) = reply_json(inner) else {
                unreachable!("reply_json builds objects")
            };
            out.insert("idmp_flag".into(), idmp_flag_json());
            Value::Object(out)
        }
    }
}

/// A reply shape in words, for the "Reply" line of docs/commands.md.
fn reply_words(shape: &ReplyShape) -> String {
    match *shape {
        ReplyShape::Status => "`OK`".into(),
        ReplyShape::ErrorOnly => "an error".into(),
        ReplyShape::Integer => "integer".into(),
        ReplyShape::Boolean => "integer, 1 or 0".into(),
        ReplyShape::Bulk => "bulk string".into(),
        ReplyShape::Double => "double (a bulk string in RESP2)".into(),
        ReplyShape::IntegerOrNilAsZero => "integer (or nil, read as 0)".into(),
        ReplyShape::OrNil(inner) => format!("{}, or nil", reply_words(inner)),
        ReplyShape::ArrayOf(inner) => format!("array of {}", reply_words(inner)),
        ReplyShape::FlatArrayOf(tuple) => format!(
            "flat array `{} ...`",
            tuple
                .elements
                .iter()
                .map(|e| e.name)
                .collect::<Vec<_>>()
                .join(" ")
        ),
        ReplyShape::Tuple(tuple) => {
            let elements: Vec<String> = tuple
                .elements
                .iter()
                .map(|e| {
                    let when: Vec<String> = e
                        .present_when
                        .iter()
                        .map(|w| match w {
                            When::Option(token) => format!("with {token}"),
                            When::Several(arg) => format!("with several {arg}"),
                        })
                        .collect();
                    if when.is_empty() {
                        e.name.to_string()
                    } else {
                        format!("{} ({})", e.name, when.join(" or "))
                    }
                })
                .collect();
            format!("`[{}]`", elements.join(", "))
        }
        ReplyShape::Fields(tuple) => format!(
            "fields by name: {}",
            tuple
                .elements
                .iter()
                .map(|e| format!("`{}`", e.name))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ReplyShape::ByOption {
            token,
            with,
            without,
        } => format!(
            "{}; with {token}, {}",
            reply_words(without),
            reply_words(with)
        ),
        ReplyShape::Idmp(inner) => format!(
            "{}; with IDMP, then the already-applied flag (1 or 0) last",
            reply_words(inner)
        ),
    }
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
    out.insert("reply_schema".into(), reply_json(&command.reply));
    let examples: Vec<Vec<String>> = command
        .examples
        .iter()
        .map(|line| example_words(line))
        .collect();
    out.insert("examples".into(), json!(examples));
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
         - Reply: {reply}.\n\
         - Since: {since}.{history}\n\
         <!-- end reference -->",
        name = command.name,
        syntax = command.usage(),
        complexity = command.complexity,
        flags = flags.join(" "),
        categories = categories.join(" "),
        zkit = ACL_CATEGORY,
        reply = reply_words(&command.reply),
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

    use crate::error::{bound, ZkitError};
    use crate::host::grammar::GrammarError;
    use crate::logic::columns::ColumnsError;
    use crate::logic::cursor::CursorError;
    use crate::logic::delay::DelayError;
    use crate::logic::family::{Evidence, Family, WrongFamily};
    use crate::logic::idmp::IdmpError;
    use crate::logic::jobs::JobError;
    use crate::logic::merge::MergeError;
    use crate::logic::rank::RankError;
    use crate::logic::recent::RecentError;
    use crate::logic::schedule::ScheduleError;
    use crate::logic::vote::VoteError;

    /// An error's text with the values it holds as `{name}` placeholders:
    /// `error` holds the sentinel values `values` names, each spelled once
    /// in its text.
    fn template(error: ZkitError, values: &[(&str, &str)]) -> String {
        let mut text = error.to_string();
        for (name, sentinel) in values {
            assert_eq!(text.matches(sentinel).count(), 1, "{text}: {sentinel}");
            text = text.replace(sentinel, &format!("{{{name}}}"));
        }
        text
    }

    fn wrong_family(expected: Family, looks_like: Option<Family>, because: Evidence) -> ZkitError {
        ZkitError::WrongFamily(WrongFamily {
            expected,
            looks_like,
            because,
        })
    }

    /// What `docs/constants.json` holds: every refusal the library words as
    /// the module does, the bounds its range errors name, the limits it
    /// checks and the defaults of the configs it cannot read.
    fn constants_json() -> String {
        use crate::logic::{clock, delay, family, groups, idmp, jobs, merge, rank, rate};
        let fixed = |error: ZkitError| json!(error.to_string());
        let errors = json!({
            "wrong_type": fixed(ZkitError::WrongType),
            "not_integer": fixed(ZkitError::Grammar(GrammarError::NotInteger)),
            "not_float": fixed(ZkitError::Grammar(GrammarError::NotFloat)),
            "out_of_range": template(
                ZkitError::OutOfRange { what: "W0RD", limit: "L1M1T" },
                &[("what", "W0RD"), ("limit", "L1M1T")],
            ),
            "arity": template(ZkitError::Arity("C0MMAND"), &[("command", "C0MMAND")]),
            "count_too_large": template(
                ZkitError::Grammar(GrammarError::CountTooLarge { count: "C0UNT", list: "L1ST" }),
                &[("count", "C0UNT"), ("list", "L1ST")],
            ),
            "command_unavailable": template(ZkitError::CommandUnavailable("C0MMAND"), &[("command", "C0MMAND")]),
            "total_out_of_range": fixed(ZkitError::Rank(RankError::TotalOutOfRange)),
            "time_outside_window": template(
                ZkitError::Rank(RankError::TimeOutsideWindow {
                    at_ms: 910000000001,
                    start_ms: 920000000002,
                    end_ms: 930000000003,
                }),
                &[("at_ms", "910000000001"), ("start_ms", "920000000002"), ("end_ms", "930000000003")],
            ),
            "not_rank_score": template(
                ZkitError::Rank(RankError::NotRankScore(9100.5)),
                &[("score", "9100.5")],
            ),
            "repeated_board": fixed(ZkitError::Rank(RankError::RepeatedBoard)),
            "no_later_score": template(
                ZkitError::Recent(RecentError::NoLaterScore(9100.5)),
                &[("newest", "9100.5")],
            ),
            "invalid_weight": fixed(ZkitError::Vote(VoteError::InvalidWeight)),
            "weights_too_large": fixed(ZkitError::Vote(VoteError::WeightsTooLarge)),
            "vote_shared_key": fixed(ZkitError::Vote(VoteError::SharedKey)),
            "no_post_time": fixed(ZkitError::Vote(VoteError::NoPostTime)),
            "voting_closed": template(
                ZkitError::Vote(VoteError::VotingClosed { posted_at_s: 9100.5, window_s: 920000000002 }),
                &[("posted_at_s", "9100.5"), ("window_s", "920000000002")],
            ),
            "voter_in_both_sets": fixed(ZkitError::Vote(VoteError::VoterInBothSets)),
            "cursor_malformed": fixed(ZkitError::Cursor(CursorError::Malformed)),
            "cursor_too_long": template(
                ZkitError::Cursor(CursorError::TooLong {
                    member_len: 910000000001,
                    cursor_len: 920000000002,
                    limit: 930000000003,
                }),
                &[("member_len", "910000000001"), ("cursor_len", "920000000002"), ("limit", "930000000003")],
            ),
            "dead_letter_without_lease": fixed(ZkitError::Delay(DelayError::DeadLetterWithoutLease)),
            "tokens_without_lease": fixed(ZkitError::Delay(DelayError::TokensWithoutLease)),
            "shared_dead_letter_key": fixed(ZkitError::Delay(DelayError::SharedDeadLetterKey)),

            "merge_staging_is_named": fixed(ZkitError::Merge(MergeError::StagingIsNamed)),
            "merge_malformed_cursor": fixed(ZkitError::Merge(MergeError::MalformedCursor)),
            "merge_foreign_cursor": fixed(ZkitError::Merge(MergeError::ForeignCursor)),
            "merge_staging_gone": fixed(ZkitError::Merge(MergeError::StagingGone)),
            "merge_run_in_progress": fixed(ZkitError::Merge(MergeError::RunInProgress)),
            "merge_run_replaced": fixed(ZkitError::Merge(MergeError::RunReplaced)),
            "merge_stale_cursor": fixed(ZkitError::Merge(MergeError::StaleCursor)),
            "idmp_seen_key_is_written": fixed(ZkitError::Idmp(IdmpError::SeenKeyIsWritten)),
            "idmp_retain_without_idmp": fixed(ZkitError::Idmp(IdmpError::RetainWithoutIdmp)),
            "idmp_other_arguments": fixed(ZkitError::Idmp(IdmpError::OtherArguments)),
            "rate_log_looks_like_seen_key":
                fixed(wrong_family(Family::RateLog, Some(Family::SeenKey), Evidence::SeenKeyHead)),
            "rate_log_looks_like_rank_board":
                fixed(wrong_family(Family::RateLog, Some(Family::RankBoard), Evidence::TieBreak)),
            "rate_log_not_recent_unix_ms": fixed(wrong_family(Family::RateLog, None, Evidence::NotRecentUnixMs)),
            "recent_list_looks_like_seen_key":
                fixed(wrong_family(Family::RecentList, Some(Family::SeenKey), Evidence::SeenKeyHead)),
            "recent_list_looks_like_rank_board":
                fixed(wrong_family(Family::RecentList, Some(Family::RankBoard), Evidence::TieBreak)),
            "recent_list_not_whole_unix_ms": fixed(wrong_family(Family::RecentList, None, Evidence::NotWholeUnixMs)),
            "delay_queue_looks_like_seen_key":
                fixed(wrong_family(Family::DelayQueue, Some(Family::SeenKey), Evidence::SeenKeyHead)),
            "delay_queue_looks_like_rank_board":
                fixed(wrong_family(Family::DelayQueue, Some(Family::RankBoard), Evidence::TieBreak)),
        });
        // In a second object: one json! of them all passes the macro's
        // recursion limit.
        let job_errors = json!({
            "bound_not_float": fixed(ZkitError::Rank(RankError::BoundNotFloat)),
            "totals_key_is_board": fixed(ZkitError::Rank(RankError::TotalsKeyIsBoard)),
            "data_key_shared": fixed(ZkitError::Rank(RankError::DataKeyShared)),
            "member_data_too_large": template(
                ZkitError::Rank(RankError::MemberDataTooLarge { len: 910000000001, limit: 920000000002 }),
                &[("len", "910000000001"), ("limit", "920000000002")],
            ),
            "columns_too_many": fixed(ZkitError::Columns(ColumnsError::TooMany)),
            "columns_bound_out_of_range": fixed(ZkitError::Columns(ColumnsError::BoundOutOfRange)),
            "columns_too_wide": fixed(ZkitError::Columns(ColumnsError::TooWide)),
            "columns_other": fixed(ZkitError::Columns(ColumnsError::OtherColumns)),
            "columns_none": fixed(ZkitError::Columns(ColumnsError::NoColumns)),
            "columns_not": fixed(ZkitError::Columns(ColumnsError::NotColumns)),
            "columns_value_count": template(
                ZkitError::Columns(ColumnsError::ValueCount { columns: 910000000001, given: 920000000002 }),
                &[("columns", "910000000001"), ("given", "920000000002")],
            ),
            "columns_value_out_of_range": template(
                ZkitError::Columns(ColumnsError::ValueOutOfRange {
                    column: 910000000001,
                    low: 930000000003,
                    high: 940000000004,
                }),
                &[("column", "910000000001"), ("low", "930000000003"), ("high", "940000000004")],
            ),
            "columns_not_total": template(
                ZkitError::Columns(ColumnsError::NotColumnsTotal(910000000001)),
                &[("total", "910000000001")],
            ),
            "columns_then_without": fixed(ZkitError::Columns(ColumnsError::ThenWithoutColumns)),
            "columns_with_asc": fixed(ZkitError::Columns(ColumnsError::AscWithColumns)),
            "columns_key_shared": fixed(ZkitError::Columns(ColumnsError::KeyShared)),
            "job_needs_data": template(
                ZkitError::Job(JobError::NeedsData("0PT10N")),
                &[("option", "0PT10N")],
            ),
            "job_worker_without_lease": fixed(ZkitError::Job(JobError::WorkerWithoutLease)),
            "shared_rate_log": fixed(ZkitError::Delay(DelayError::SharedRateLog)),
            "job_shared_data_key": fixed(ZkitError::Job(JobError::SharedDataKey)),
            "schedule_zone_without_cron": fixed(ZkitError::Schedule(ScheduleError::ZoneWithoutCron)),
            "schedule_bad_cron": template(
                ZkitError::Schedule(ScheduleError::BadCron("W0RDS".into())),
                &[("why", "W0RDS")],
            ),
            "schedule_never_matches": fixed(ZkitError::Schedule(ScheduleError::NeverMatches)),
            "schedule_unknown_zone": template(
                ZkitError::Schedule(ScheduleError::UnknownZone("Z0NE".into())),
                &[("zone", "Z0NE")],
            ),
            "job_payload_too_large": template(
                ZkitError::Job(JobError::PayloadTooLarge { len: 910000000001, limit: 920000000002 }),
                &[("len", "910000000001"), ("limit", "920000000002")],
            ),
        });
        let mut errors = errors;
        if let (Some(all), Value::Object(more)) = (errors.as_object_mut(), job_errors) {
            all.extend(more);
        }
        let bounds = json!({
            "DURATION_MS": bound::DURATION_MS,
            "DELAY_MS": bound::DELAY_MS,
            "DURATION_S": bound::DURATION_S,
            "RATE_LIMIT": bound::RATE_LIMIT,
            "PAGE_COUNT": bound::PAGE_COUNT,
            "POSITIVE_INTEGER": bound::POSITIVE_INTEGER,
            "NOT_NEGATIVE": bound::NOT_NEGATIVE,
            "AT_LEAST_ONE": bound::AT_LEAST_ONE,
            "NOT_ZERO": bound::NOT_ZERO,
            "DUE_MS": bound::DUE_MS,
            "SEASON_AT": bound::SEASON_AT,
            "PERCENTILE": bound::PERCENTILE,
            "GROUP_RATE": bound::GROUP_RATE,
        });
        let limits = json!({
            "MAX_DURATION_MS": clock::MAX_DURATION_MS,
            "TOTAL_LIMIT": rank::TOTAL_LIMIT,
            "MAX_COLUMNS": crate::logic::columns::MAX_COLUMNS,
            "CLOCK_LIMIT_MS": rank::CLOCK_LIMIT_MS,
            "RATE_MAX_LIMIT": rate::MAX_LIMIT,
            "FEED_DEFAULT_COUNT": commands::feed::DEFAULT_COUNT,
            "FEED_MAX_COUNT": commands::feed::MAX_COUNT,
            "SMALLEST_BULK_LIMIT": crate::logic::cursor::SMALLEST_BULK_LIMIT,
            "MAX_DEAD_PER_POLL": delay::MAX_DEAD_PER_POLL,
            "IDMP_EXPIRY_LIMIT": idmp::EXPIRY_LIMIT,
            "IDMP_DIGEST_LEN": idmp::DIGEST_LEN,
            "MERGE_FINISHED_RECORD_TTL_MS": merge::FINISHED_RECORD_TTL_MS,
            "MERGE_RECORD_PREFIX": std::str::from_utf8(merge::RECORD_PREFIX).unwrap(),
            "TODAY_MS": family::TODAY_MS,
            "JOB_MAX_DUE_MS": jobs::MAX_DUE_MS,
            "SEASON_AT_LIMIT_MS": crate::logic::season::SEASON_AT_LIMIT_MS,
            "JOB_TRIM_SPARE": jobs::TRIM_SPARE,
            "JOB_EXPIRED_REASON": std::str::from_utf8(jobs::EXPIRED_REASON).unwrap(),
            "GROUP_MAX_RATE": groups::MAX_GROUP_RATE,
            "MAX_SKIPPED_PER_POLL": delay::MAX_SKIPPED_PER_POLL,
        });
        // The configs a function cannot read: their defaults (the library's
        // users set others at the top of zkit.lua).
        let configs: Map<String, Value> = commands::CONFIGS
            .iter()
            .map(|config| (config.name.to_string(), json!(config.default)))
            .collect();
        let out = json!({
            "errors": errors,
            "bounds": bounds,
            "limits": limits,
            "configs": configs,
        });
        serde_json::to_string_pretty(&out).unwrap() + "\n"
    }

    /// The time zones TZ names and their offsets, as the module's tz
    /// database (chrono-tz) has them, for the library's cron rules
    /// (functions/lua/schedules.lua reads it; docs/functions.md):
    ///
    /// - `zones`: every name the module takes, with the index of its table
    ///   in `tables` (zones that are links of each other share one);
    /// - `tables`: each a zone's offset from 1970-01-01 00:00 UTC on, as
    ///   `records` of six `digits` each: the unix second the offset starts
    ///   at (five digits, base 90, most significant first; the first record
    ///   starts at 0) and the offset's index in `offsets` (one digit); then,
    ///   with `then: [table, record]`, the records of that table from that
    ///   one on (zones that share their later history keep it once);
    /// - `offsets`: seconds east of UTC.
    ///
    /// The database's last transitions are in 2099 (chrono-tz stops
    /// expanding rules there), so each table ends with the offset a zone
    /// keeps from then on, as the module's does.
    fn zones_json() -> String {
        let mut names: Vec<&str> = chrono_tz::TZ_VARIANTS
            .iter()
            .map(|zone| zone.name())
            .collect();
        names.sort_unstable();
        let mut offsets: Vec<i32> = Vec::new();
        let mut histories: Vec<Vec<(i64, usize)>> = Vec::new();
        let mut zones = Map::new();
        for name in &names {
            let zone: chrono_tz::Tz = name.parse().expect("a name of TZ_VARIANTS");
            let history: Vec<(i64, usize)> = zone_history(&zone)
                .into_iter()
                .map(|(at, offset)| (at, index_in(&mut offsets, offset)))
                .collect();
            let table = index_in(&mut histories, history);
            zones.insert(name.to_string(), json!(table));
        }
        let digits: Vec<u8> = (b'#'..=b'}').filter(|b| *b != b'\\').collect();
        assert_eq!(digits.len(), 90);
        assert!(offsets.len() <= digits.len());
        let base = digits.len() as i64;
        let tables: Vec<Value> = histories
            .iter()
            .enumerate()
            .map(|(i, history)| {
                // The longest run of last records an earlier table also ends with.
                let shared = (0..i)
                    .map(|j| {
                        let other = &histories[j];
                        let len = history
                            .iter()
                            .rev()
                            .zip(other.iter().rev())
                            .take_while(|(a, b)| a == b)
                            .count();
                        (len, j, other.len() - len)
                    })
                    .max_by_key(|(len, j, _)| (*len, std::cmp::Reverse(*j)))
                    .filter(|(len, _, _)| *len >= 2);
                let own = history.len() - shared.map_or(0, |(len, _, _)| len);
                let mut records = String::new();
                for (at, offset) in &history[..own] {
                    assert!((0..base.pow(5)).contains(at));
                    for place in (0..5).rev() {
                        records.push(digits[(at / base.pow(place) % base) as usize] as char);
                    }
                    records.push(digits[*offset] as char);
                }
                match shared {
                    Some((_, table, record)) => {
                        json!({ "records": records, "then": [table, record] })
                    }
                    None => json!({ "records": records }),
                }
            })
            .collect();
        let out = json!({
            "digits": String::from_utf8(digits).unwrap(),
            "offsets": offsets,
            "tables": tables,
            "zones": zones,
        });
        serde_json::to_string_pretty(&out).unwrap() + "\n"
    }

    /// Where `item` is in `items`, added at the end if it is not there.
    fn index_in<T: PartialEq>(items: &mut Vec<T>, item: T) -> usize {
        items.iter().position(|x| *x == item).unwrap_or_else(|| {
            items.push(item);
            items.len() - 1
        })
    }

    /// A zone's offsets from 1970 on: `(unix second, seconds east of UTC)`
    /// from the second each starts at. Read a day apart, each change then
    /// found to the second, and read on from it (a scan every 30 minutes
    /// finds the same transitions in this database).
    fn zone_history(zone: &chrono_tz::Tz) -> Vec<(i64, i32)> {
        use chrono::{Offset, TimeZone};
        let offset = |second: i64| {
            let at = chrono::DateTime::from_timestamp(second, 0)
                .expect("in chrono's range")
                .naive_utc();
            zone.offset_from_utc_datetime(&at).fix().local_minus_utc()
        };
        const DAY: i64 = 86_400;
        // 2105-01-01: past the database's last transition.
        const END: i64 = 4_260_211_200;
        let mut history = vec![(0, offset(0))];
        let mut at = 0;
        while at < END {
            let current = history.last().unwrap().1;
            if offset(at + DAY) == current {
                at += DAY;
                continue;
            }
            let (mut before, mut after) = (at, at + DAY);
            while after - before > 1 {
                let middle = (before + after) / 2;
                if offset(middle) == current {
                    before = middle;
                } else {
                    after = middle;
                }
            }
            history.push((after, offset(after)));
            at = after;
        }
        history
    }

    #[test]
    fn reference_zones_json_is_taken_from_the_module() {
        check_generated("functions/zones.json", &zones_json());
    }

    #[test]
    fn reference_constants_json_is_taken_from_the_module() {
        check_generated("docs/constants.json", &constants_json());
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
            "RANK.GIFT key member amount [AT unix-ms] [SHARED | DENSE totals-key] [TTL seconds] [DATA data-key data] [IDMP seen-key event-id] [RETAIN ms] [ASC] [COLUMNS columns-key] [THEN value [value ...]]"
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
            "RANK.MERGE destkey numkeys key [key ...] [WEIGHTS weight [weight ...]] [STEP count staging cursor] [ASC]"
        );
        assert!(commands::vote::CAST
            .usage()
            .contains(" <UP | DOWN | CLEAR> "));
    }
}
