//! User data is never syntax: for every command and every value position, a
//! value spelled like any keyword of that command (upper and lower case)
//! gives the same reply and leaves the same data as a neutral value.
//!
//! The calls are built from docs/commands.json, which the unit tests keep
//! equal to the declarations (the grammar itself), not from a hand list: a
//! new command or option is covered the day it is declared. Each call names
//! every option of its command, so each keyword is looked for somewhere.
//!
//! - One server, every key and value position, each call run as an ACL user
//!   allowed only the keys of that call (a value taken for a key would be
//!   refused with NOPERM).
//! - A 3-master cluster (slow, `make test-all`): every value position, keys
//!   in one slot by hash tag, through a cluster client.

use crate::common::client::{error_text, ok, query, run, words};
use crate::common::cluster::Cluster;
use crate::common::data::server_time_ms;
use crate::common::facts::commands_json;
use crate::common::Server;
use redis::Value;
use serde_json::Value as Json;

/// One word of a sample call, and what kind of position it fills.
#[derive(Clone, Debug)]
struct Word {
    text: String,
    kind: Position,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Position {
    Key,
    Value,
    Syntax,
}

/// A valid call of `name` naming every option, with neutral values.
fn sample_call(name: &str, spec: &Json, now_ms: i64) -> Vec<Word> {
    let mut call = vec![Word {
        text: name.to_uppercase(),
        kind: Position::Syntax,
    }];
    let mut counter = 0;
    for arg in spec["arguments"].as_array().into_iter().flatten() {
        push_arg(&mut call, arg, now_ms, &mut counter);
    }
    call
}

fn push_arg(call: &mut Vec<Word>, arg: &Json, now_ms: i64, counter: &mut usize) {
    let syntax = |text: &str| Word {
        text: text.to_string(),
        kind: Position::Syntax,
    };
    if let Some(token) = arg["token"].as_str() {
        call.push(syntax(token));
    }
    // Lists get two items (as `numkeys` says).
    let items = if arg["multiple"].as_bool() == Some(true) {
        2
    } else {
        1
    };
    for _ in 0..items {
        match arg["type"].as_str().unwrap_or_default() {
            "pure-token" => {}
            "oneof" => {
                // The first choice.
                push_arg(call, &arg["arguments"][0], now_ms, counter);
            }
            "block" => {
                for part in arg["arguments"].as_array().into_iter().flatten() {
                    push_arg(call, part, now_ms, counter);
                }
            }
            kind => {
                *counter += 1;
                let name = arg["name"].as_str().unwrap_or_default();
                // Keys and strings are named by their place only: an
                // argument's name may be a keyword (`DATA data`), whose
                // variant spelled back would rename the neutral key too.
                call.push(match kind {
                    "key" => Word {
                        text: format!("{{kw}}:key{counter}"),
                        kind: Position::Key,
                    },
                    "string" => Word {
                        text: format!("v-{counter}"),
                        kind: Position::Value,
                    },
                    _ => syntax(&number(name, kind, now_ms, *counter)),
                });
            }
        }
    }
}

/// A number every command accepts at this place; doubles differ by place
/// (scores that tie would order their members by name).
fn number(name: &str, kind: &str, now_ms: i64, place: usize) -> String {
    let n: i64 = match (kind, name) {
        ("double", _) => return format!("{place}.5"),
        ("unix-time", _) => now_ms,
        (_, "numkeys") => 2,
        (_, "ms" | "window-ms") => 60_000,
        (_, "timeout-ms") => 1,
        (_, "seconds") => 3600,
        (_, "limit" | "amount" | "total" | "cap" | "n") => 5,
        (_, "offset" | "delay-ms") => 0,
        _ => 1,
    };
    n.to_string()
}

/// Every command of the reference, with its spec.
fn commands() -> Vec<(String, Json)> {
    commands_json().into_iter().collect()
}

/// Every keyword a command's grammar looks for.
fn keywords(spec: &Json) -> Vec<String> {
    fn walk(args: &Json, out: &mut Vec<String>) {
        for arg in args.as_array().into_iter().flatten() {
            if let Some(token) = arg["token"].as_str() {
                out.push(token.to_string());
            }
            walk(&arg["arguments"], out);
        }
    }
    let mut out = Vec::new();
    walk(&spec["arguments"], &mut out);
    out.sort();
    out.dedup();
    out
}

/// The hex a feed cursor writes a member as (either case).
fn hex(text: &str, upper: bool) -> String {
    text.bytes()
        .map(|b| {
            if upper {
                format!("{b:02X}")
            } else {
                format!("{b:02x}")
            }
        })
        .collect()
}

/// A database's contents normalized line by line (one key a line), sorted
/// again since the keys' names changed.
fn normalize_data(text: &[u8], variant: &str, neutral: &str) -> Vec<String> {
    let mut lines: Vec<String> = normalize(text, variant, neutral)
        .lines()
        .map(str::to_string)
        .collect();
    lines.sort();
    lines
}

/// A reply or a database with the variant spelled back as the neutral
/// value, and clock readings (unix ms and later) masked. Clock readings are
/// masked first: a reading's digits may happen to hold the variant's hex
/// (`6174` for `at`), which must not be spelled back inside a number.
fn normalize(text: &[u8], variant: &str, neutral: &str) -> String {
    // A byte no variant or neutral value holds, for each masked reading.
    const READING: char = '\u{1}';
    let text = String::from_utf8_lossy(text);
    // Numbers of 13 digits and more are clock readings (unix ms).
    let mut masked = String::with_capacity(text.len());
    let mut digits = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        if digits.len() >= 13 {
            masked.push(READING);
        } else {
            masked.push_str(&digits);
        }
        digits.clear();
        masked.push(c);
    }
    masked.pop();
    for upper in [false, true] {
        masked = masked.replace(&hex(variant, upper), &hex(neutral, upper));
    }
    masked.replace(variant, neutral).replace(READING, "<clock>")
}

fn reply_text(reply: &redis::RedisResult<Value>) -> Vec<u8> {
    match reply {
        Ok(value) => format!("{value:?}").into_bytes(),
        Err(e) => error_text(e).into_bytes(),
    }
}

/// Every key with its type, contents and whether it expires, as text.
fn contents(con: &mut impl redis::ConnectionLike) -> Vec<u8> {
    let mut keys: Vec<Vec<u8>> = query(con, &["KEYS", "*"]);
    keys.sort();
    let mut out = Vec::new();
    for key in keys {
        let on = |con: &mut dyn redis::ConnectionLike, words: &[&[u8]]| {
            let mut cmd = redis::cmd(std::str::from_utf8(words[0]).unwrap());
            for w in &words[1..] {
                cmd.arg(*w);
            }
            cmd.arg(&key[..]);
            let value: Value = cmd.query(con).unwrap();
            format!("{value:?}")
        };
        let kind = on(con, &[b"TYPE"]);
        let body = match kind.as_str() {
            k if k.contains("zset") => {
                let mut cmd = redis::cmd("ZRANGE");
                cmd.arg(&key[..]).arg(0).arg(-1).arg("WITHSCORES");
                let pairs: Vec<(Vec<u8>, String)> = cmd.query(con).unwrap();
                // An IDMP seen-key remembers an id scored `expiry + 0.25`
                // beside the id followed by the 8-byte digest of the call's
                // arguments, scored `expiry + 0.5`; a variant changes the
                // digest: the rest is compared.
                let ids: Vec<(&[u8], &str)> = pairs
                    .iter()
                    .filter_map(|(m, s)| Some((m.as_slice(), s.strip_suffix(".25")?)))
                    .collect();
                let shown: Vec<(String, String)> = pairs
                    .iter()
                    .map(|(member, score)| {
                        let id = member.get(..member.len().saturating_sub(8));
                        let digest = score
                            .strip_suffix(".5")
                            .zip(id)
                            .is_some_and(|(expiry, id)| ids.contains(&(id, expiry)));
                        let shown = match (digest, id) {
                            (true, Some(id)) => format!("{} <digest>", String::from_utf8_lossy(id)),
                            _ => String::from_utf8_lossy(member).into_owned(),
                        };
                        (shown, score.clone())
                    })
                    .collect();
                format!("{shown:?}")
            }
            k if k.contains("hash") => {
                // In the order written (a small hash's), the same for a
                // variant: its field names sort differently.
                let fields: Vec<(Vec<u8>, Vec<u8>)> =
                    redis::cmd("HGETALL").arg(&key[..]).query(con).unwrap();
                let shown: Vec<(String, String)> = fields
                    .iter()
                    .map(|(f, v)| {
                        (
                            String::from_utf8_lossy(f).into(),
                            String::from_utf8_lossy(v).into(),
                        )
                    })
                    .collect();
                format!("{shown:?}")
            }
            k if k.contains("set") => {
                let mut members: Vec<Vec<u8>> =
                    redis::cmd("SMEMBERS").arg(&key[..]).query(con).unwrap();
                members.sort();
                format!("{members:?}")
            }
            _ => on(con, &[b"DUMP"]),
        };
        let ttl: i64 = redis::cmd("PTTL").arg(&key[..]).query(con).unwrap();
        out.extend_from_slice(&key);
        out.extend(format!(" {kind} {body} expires:{}\n", ttl > 0).into_bytes());
    }
    out
}

/// The variants of a call: each key or value position (as `positions`
/// allows) spelled as each keyword, upper and lower case.
fn variants(call: &[Word], keywords: &[String], positions: &[Position]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, word) in call.iter().enumerate() {
        if !positions.contains(&word.kind) {
            continue;
        }
        for keyword in keywords {
            out.push((i, keyword.to_uppercase()));
            out.push((i, keyword.to_lowercase()));
        }
    }
    out
}

/// A glob pattern matching exactly `key`.
fn exact_pattern(key: &str) -> String {
    key.chars()
        .flat_map(|c| match c {
            '*' | '?' | '[' | ']' | '\\' => vec!['\\', c],
            _ => vec![c],
        })
        .collect()
}

/// What a call replied and left in the database.
struct Outcome {
    reply: Vec<u8>,
    data: Vec<u8>,
}

/// Runs every command's sample call, then each variant at `positions`, each
/// on an empty database through `run` (given the call and its time), and
/// asserts each variant replied and left what the neutral call did. Returns
/// how many variants were checked.
fn compare_variants(
    positions: &[Position],
    now_ms: &mut dyn FnMut() -> i64,
    run: &mut dyn FnMut(&[Word]) -> Outcome,
) -> usize {
    let mut checked = 0;
    for (name, spec) in commands() {
        let keywords = keywords(&spec);
        if keywords.is_empty() {
            continue;
        }
        let call = sample_call(&name, &spec, now_ms());
        let neutral = run(&call);
        for (i, variant) in variants(&call, &keywords, positions) {
            let mut changed = call.to_vec();
            changed[i].text = variant.clone();
            let outcome = run(&changed);
            let value = &call[i].text;
            assert_eq!(
                normalize(&outcome.reply, &variant, value),
                normalize(&neutral.reply, &variant, value),
                "{name}: {variant} in place of {value} changed the reply"
            );
            assert_eq!(
                normalize_data(&outcome.data, &variant, value),
                normalize_data(&neutral.data, &variant, value),
                "{name}: {variant} in place of {value} changed the data"
            );
            checked += 1;
        }
    }
    checked
}

fn texts(call: &[Word]) -> Vec<String> {
    call.iter().map(|w| w.text.clone()).collect()
}

#[test]
fn values_spelled_like_keywords_stay_values_on_one_server_and_for_acl_users() {
    let server = Server::start();
    let mut admin = server.connect();
    let mut clock = server.connect();
    let checked = compare_variants(
        &[Position::Key, Position::Value],
        &mut || server_time_ms(&mut clock),
        &mut |call| {
            ok(&mut admin, &["FLUSHALL"]);
            // An ACL user allowed only this call's keys.
            let mut setuser = ["ACL", "SETUSER", "kw", "reset", "on", "nopass", "+@all"]
                .map(String::from)
                .to_vec();
            for word in call.iter().filter(|w| w.kind == Position::Key) {
                setuser.push(format!("~{}", exact_pattern(&word.text)));
            }
            ok(&mut admin, &words(&setuser));
            let mut user = server.connect();
            ok(&mut user, &["AUTH", "kw", "any"]);
            let reply = reply_text(&run(&mut user, &words(&texts(call))));
            Outcome {
                reply,
                data: contents(&mut admin),
            }
        },
    );
    // Every command with a keyword, every position, both cases.
    assert!(checked > 200, "only {checked} calls checked");
}

#[test]
#[ignore = "slow: make test-all"]
fn values_spelled_like_keywords_stay_values_on_a_cluster() {
    let cluster = Cluster::start(3);
    let mut client = cluster.client();
    let mut clock = cluster.nodes[0].connect();
    let owner = cluster.owner(cluster.slot("{kw}"));
    // Keys spelled like keywords would leave the hash tag's slot, so only
    // values change here.
    let checked = compare_variants(
        &[Position::Value],
        &mut || server_time_ms(&mut clock),
        &mut |call| {
            for node in &cluster.nodes {
                ok(&mut node.connect(), &["FLUSHALL"]);
            }
            let reply = reply_text(&run(&mut client, &words(&texts(call))));
            Outcome {
                reply,
                data: contents(&mut owner.connect()),
            }
        },
    );
    assert!(checked > 60, "only {checked} calls checked");
}
