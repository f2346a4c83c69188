//! Argument rules every zkit command follows, as Redis's own commands do,
//! checked against what COMMAND DOCS says each command takes.

use std::collections::HashMap;

use crate::common::client::{err, ok, query, syntax_error};
use crate::common::data::assert_errors_change_nothing;
use crate::common::facts::{examples, zkit_commands};
use crate::common::{Server, ServerConfig};
use redis::Value;

/// A COMMAND DOCS entry (a flat array of field, value) as a map.
fn fields(value: &Value) -> HashMap<String, Value> {
    let Value::Array(items) = value else {
        panic!("not a COMMAND DOCS entry: {value:?}")
    };
    items
        .chunks_exact(2)
        .map(|pair| {
            let name: String = redis::from_redis_value(pair[0].clone()).unwrap();
            (name, pair[1].clone())
        })
        .collect()
}

fn text(value: Option<&Value>) -> Option<String> {
    value.map(|v| redis::from_redis_value(v.clone()).unwrap())
}

fn flags(arg: &HashMap<String, Value>) -> Vec<String> {
    arg.get("flags")
        .map(|v| redis::from_redis_value(v.clone()).unwrap())
        .unwrap_or_default()
}

/// A command's syntax as COMMAND DOCS describes it, in the form syntax
/// errors give it: `RECENT.ADD key [CAP cap] ... ITEMS member [member ...]`,
/// a required choice as `<UP | DOWN | CLEAR>`.
fn usage_from_docs(command: &str, args: Option<&Value>) -> String {
    let mut words = vec![command.to_uppercase()];
    if let Some(Value::Array(args)) = args {
        words.extend(args.iter().map(argument_usage));
    }
    words.join(" ")
}

fn argument_usage(arg: &Value) -> String {
    let arg = fields(arg);
    let flags = flags(&arg);
    let optional = flags.iter().any(|f| f == "optional");
    let parts = || match arg.get("arguments") {
        Some(Value::Array(parts)) => parts.iter().map(argument_usage).collect::<Vec<_>>(),
        _ => Vec::new(),
    };
    let item = match text(arg.get("type")).unwrap().as_str() {
        "pure-token" => String::new(),
        "block" => parts().join(" "),
        "oneof" if optional => parts().join(" | "),
        "oneof" => format!("<{}>", parts().join(" | ")),
        _ => text(arg.get("name")).unwrap(),
    };
    let mut one: Vec<String> = text(arg.get("token")).into_iter().collect();
    if !item.is_empty() {
        one.push(item.clone());
        if flags.iter().any(|f| f == "multiple") {
            one.push(format!("[{item} ...]"));
        }
    }
    let one = one.join(" ");
    if optional {
        format!("[{one}]")
    } else {
        one
    }
}

/// How many words follow an option keyword: `None` for a repeated argument
/// (the words up to the next option or the end).
type Arity = Option<usize>;

/// Every optional keyword among `args` (COMMAND DOCS `arguments`), with the
/// number of words that follow it.
fn optional_keywords(args: &Value, inside_optional: bool, out: &mut Vec<(String, Arity)>) {
    let Value::Array(args) = args else { return };
    for arg in args {
        let arg = fields(arg);
        let flags = flags(&arg);
        let optional = inside_optional || flags.iter().any(|f| f == "optional");
        let kind = text(arg.get("type")).unwrap();
        if let (Some(token), true) = (text(arg.get("token")), optional) {
            let arity = if flags.iter().any(|f| f == "multiple") {
                None
            } else {
                match kind.as_str() {
                    "pure-token" => Some(0),
                    "block" => match arg.get("arguments") {
                        Some(Value::Array(parts)) => Some(parts.len()),
                        _ => Some(0),
                    },
                    _ => Some(1),
                }
            };
            out.push((token, arity));
        } else if kind == "oneof" {
            if let Some(choices) = arg.get("arguments") {
                optional_keywords(choices, optional, out);
            }
        }
    }
}

/// An option given twice is refused, names itself, and shows the command's
/// syntax exactly as COMMAND DOCS describes it.
#[test]
fn every_option_given_twice_is_a_syntax_error_and_changes_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    // The declarations' examples, which together give every option of
    // every command (several calls where options exclude each other).
    let examples = examples();
    let calls: Vec<(String, Vec<&str>)> = examples
        .iter()
        .map(|(command, words)| (command.clone(), words.iter().map(String::as_str).collect()))
        .collect();
    for (_, call) in &calls {
        ok(&mut con, call);
    }
    let mut checked = 0;
    for command in zkit_commands(&mut con) {
        let docs: Vec<Value> = query(&mut con, &["COMMAND", "DOCS", &command.name]);
        let docs = fields(&docs[1]);
        let usage = usage_from_docs(&command.name, docs.get("arguments"));
        let mut keywords = Vec::new();
        if let Some(args) = docs.get("arguments") {
            optional_keywords(args, false, &mut keywords);
        }
        let all_keywords: Vec<&String> = keywords.iter().map(|(k, _)| k).collect();
        for (keyword, arity) in &keywords {
            let (call, at) = calls
                .iter()
                .filter(|(of, call)| {
                    of.eq_ignore_ascii_case(&command.name) && call[0].eq_ignore_ascii_case(of)
                })
                .find_map(|(_, call)| {
                    let at = call.iter().position(|w| w.eq_ignore_ascii_case(keyword))?;
                    Some((call, at))
                })
                .unwrap_or_else(|| {
                    panic!(
                        "{}: no example gives {keyword} (add one to its declaration)",
                        command.name
                    )
                });
            let end = match arity {
                Some(n) => at + 1 + n,
                None => (at + 1..call.len())
                    .find(|&i| all_keywords.iter().any(|k| k.eq_ignore_ascii_case(call[i])))
                    .unwrap_or(call.len()),
            };
            // A list that runs to the end of the call (LANES): a second
            // keyword is one of its items, as any word there is.
            if arity.is_none() && end == call.len() {
                continue;
            }
            let mut twice: Vec<&str> = call[..end].to_vec();
            twice.extend_from_slice(&call[at..end]);
            twice.extend_from_slice(&call[end..]);
            let expected = syntax_error(&format!("{keyword} is given twice"), &usage);
            assert_eq!(err(&mut con, &twice), expected);
            assert_errors_change_nothing(&mut con, &[(&twice, &expected)]);
            checked += 1;
        }
    }
    assert!(checked >= 15, "only {checked} options checked");
}

#[test]
fn zkit_0_2_one_value_forms_get_the_usage_that_names_the_keyword() {
    // 0.2 took DELAY.ACK's tasks, RECENT.ADD's items and RANK.MGET's
    // members without a keyword: one value as several is refused with the
    // command's usage, which shows where they go now.
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["ZADD", "inflight", "99999999999999", "t1"]);
    ok(&mut con, &["RANK.GIFT", "b", "alice", "5"]);
    let cases = [
        (
            "delay.ack",
            "TASKS",
            vec![
                ["DELAY.ACK", "inflight", "t1"].as_slice(),
                &["DELAY.ACK", "inflight", "t1", "t2"],
            ],
        ),
        (
            "recent.add",
            "ITEMS",
            vec![
                &["RECENT.ADD", "v", "a"][..],
                &["RECENT.ADD", "v", "a", "b"],
            ],
        ),
        (
            "rank.mget",
            "MEMBERS",
            vec![
                &["RANK.MGET", "b", "alice"][..],
                &["RANK.MGET", "b", "alice", "bob"],
            ],
        ),
    ];
    for (command, keyword, calls) in cases {
        let docs: Vec<Value> = query(&mut con, &["COMMAND", "DOCS", command]);
        let usage = usage_from_docs(command, fields(&docs[1]).get("arguments"));
        assert!(usage.contains(&format!("{keyword} ")), "{usage}");
        let refusals: Vec<(String, &[&str])> = calls
            .iter()
            .map(|call| {
                (
                    syntax_error(&format!("unexpected '{}'", call[2]), &usage),
                    *call,
                )
            })
            .collect();
        let cases: Vec<(&[&str], &str)> = refusals
            .iter()
            .map(|(e, call)| (*call, e.as_str()))
            .collect();
        assert_errors_change_nothing(&mut con, &cases);
    }
}

#[test]
fn configs_given_as_load_arguments_are_applied() {
    // As redis.conf's `loadmodule /path/libzkit.so zkit.tiebreak-span-ms 5`,
    // and without the prefix, as Redis's own modules take theirs.
    let server = Server::with(
        ServerConfig::default()
            .module_arg("zkit.tiebreak-span-ms")
            .module_arg("5")
            .module_arg("IDMP-MAX-IDS")
            .module_arg("7")
            .module_arg("debug-commands"),
    );
    let mut con = server.connect();
    let span: Vec<String> = query(&mut con, &["CONFIG", "GET", "zkit.tiebreak-span-ms"]);
    assert_eq!(span, ["zkit.tiebreak-span-ms", "5"]);
    let ids: Vec<String> = query(&mut con, &["CONFIG", "GET", "zkit.idmp-max-ids"]);
    assert_eq!(ids, ["zkit.idmp-max-ids", "7"]);
    // debug-commands still registers its commands.
    let e = err(&mut con, &["ZKIT.DEBUG-PANIC"]);
    assert!(e.contains("panicked"), "{e}");
    // A value out of range or missing refuses the load, saying why.
    for args in [
        &["zkit.tiebreak-span-ms", "0"][..],
        &["zkit.small-set-max"],
        // A config by its name before 0.5.0 (deprecated) takes one too.
        &["hot-board-writes", "x"],
        &["tiebreak-span-ms", "x"],
    ] {
        let config = args
            .iter()
            .fold(ServerConfig::default(), |c, a| c.module_arg(a));
        let e = match Server::try_with(config) {
            Ok(_) => panic!("{args:?} was accepted"),
            Err(e) => e,
        };
        assert!(e.contains("takes an integer in ["), "{args:?}: {e}");
    }
}
