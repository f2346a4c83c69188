//! docs/commands.json, generated from the command declarations, against what
//! a live server says: COMMAND INFO (arity, flags, key specs, ACL
//! categories) and COMMAND DOCS (summary, since, complexity, arguments), for
//! every command, on whichever server of the compatibility matrix runs this.

use std::collections::{BTreeSet, HashMap};

use crate::common::client::{cmdline, err, query};
use crate::common::facts::{commands_json, example_keys, examples};
use crate::common::{server_version, Server};
use redis::Value;
use serde_json::Value as Json;

/// A reply as JSON, maps (RESP2 flat arrays of field, value) included, so it
/// compares with the file.
fn to_json(value: &Value) -> Json {
    match value {
        Value::Nil => Json::Null,
        Value::Int(n) => Json::from(*n),
        Value::BulkString(bytes) => Json::String(String::from_utf8_lossy(bytes).into_owned()),
        Value::SimpleString(s) => Json::String(s.clone()),
        Value::Okay => Json::String("OK".into()),
        Value::Array(items) | Value::Set(items) => Json::Array(items.iter().map(to_json).collect()),
        Value::Map(pairs) => Json::Object(
            pairs
                .iter()
                .map(|(k, v)| (json_str(&to_json(k)), to_json(v)))
                .collect(),
        ),
        other => Json::String(format!("{other:?}")),
    }
}

fn json_str(value: &Json) -> String {
    value
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| value.to_string())
}

/// A RESP2 `[field, value, ...]` array as a map.
fn fields(value: &Json) -> HashMap<String, Json> {
    let items = value
        .as_array()
        .unwrap_or_else(|| panic!("not a field list: {value}"));
    items
        .chunks_exact(2)
        .map(|pair| (json_str(&pair[0]), pair[1].clone()))
        .collect()
}

fn lower_set(values: &Json) -> BTreeSet<String> {
    values
        .as_array()
        .into_iter()
        .flatten()
        .map(|v| json_str(v).to_lowercase())
        .collect()
}

/// A key spec as COMMAND INFO gives it, in the file's shape.
fn key_spec_from_info(spec: &Json) -> Json {
    let spec = fields(spec);
    let search = fields(&spec["begin_search"]);
    let search_spec = fields(&search["spec"]);
    let begin = match json_str(&search["type"]).as_str() {
        "index" => serde_json::json!({ "index": { "pos": search_spec["index"] } }),
        "keyword" => serde_json::json!({ "keyword": {
            "keyword": search_spec["keyword"], "startfrom": search_spec["startfrom"] } }),
        other => panic!("begin_search type {other}"),
    };
    let find = fields(&spec["find_keys"]);
    let find_spec = fields(&find["spec"]);
    let find = match json_str(&find["type"]).as_str() {
        "range" => serde_json::json!({ "range": {
            "lastkey": find_spec["lastkey"], "step": find_spec["keystep"], "limit": find_spec["limit"] } }),
        "keynum" => serde_json::json!({ "keynum": {
            "keynumidx": find_spec["keynumidx"], "firstkey": find_spec["firstkey"], "step": find_spec["keystep"] } }),
        other => panic!("find_keys type {other}"),
    };
    let flags: Vec<Json> = lower_set(&spec["flags"])
        .into_iter()
        .map(|f| Json::String(f.to_uppercase()))
        .collect();
    serde_json::json!({ "flags": flags, "begin_search": begin, "find_keys": find })
}

/// The file's key spec with its flags in the order `key_spec_from_info` gives.
fn normalized_key_spec(spec: &Json) -> Json {
    let mut spec = spec.clone();
    let flags: Vec<Json> = lower_set(&spec["flags"])
        .into_iter()
        .map(|f| Json::String(f.to_uppercase()))
        .collect();
    spec["flags"] = Json::Array(flags);
    spec
}

/// The arguments of COMMAND DOCS in the file's shape (`optional` and
/// `multiple` from the reply's flags).
fn arguments_from_docs(args: &Json) -> Vec<Json> {
    args.as_array()
        .into_iter()
        .flatten()
        .map(|arg| {
            let arg = fields(arg);
            let mut out = serde_json::Map::new();
            out.insert("name".into(), arg["name"].clone());
            out.insert("type".into(), arg["type"].clone());
            if let Some(index) = arg.get("key_spec_index") {
                out.insert("key_spec_index".into(), index.clone());
            }
            for field in ["token", "since"] {
                if let Some(value) = arg.get(field) {
                    out.insert(field.into(), value.clone());
                }
            }
            let flags = arg.get("flags").map(lower_set).unwrap_or_default();
            for flag in ["optional", "multiple"] {
                if flags.contains(flag) {
                    out.insert(flag.into(), Json::Bool(true));
                }
            }
            if let Some(nested) = arg.get("arguments") {
                out.insert("arguments".into(), Json::Array(arguments_from_docs(nested)));
            }
            Json::Object(out)
        })
        .collect()
}

#[test]
fn commands_json_agrees_with_command_info_and_command_docs() {
    let server = Server::start();
    let mut con = server.connect();
    let file = commands_json();
    let version = server_version(&mut con);
    let categories: Vec<String> = query(&mut con, &["ACL", "CAT"]);
    let has_zkit_category = categories.iter().any(|c| c == "zkit");

    let mut registered: Vec<String> =
        query(&mut con, &["COMMAND", "LIST", "FILTERBY", "MODULE", "zkit"]);
    registered.sort();
    let mut documented: Vec<String> = file.keys().map(|k| k.to_lowercase()).collect();
    documented.sort();
    assert_eq!(
        registered, documented,
        "commands.json lists exactly the registered commands"
    );

    for (name, expected) in &file {
        let lower = name.to_lowercase();
        let info: Vec<Value> = query(&mut con, &["COMMAND", "INFO", &lower]);
        let info = to_json(&info[0]);
        let info = info.as_array().expect("COMMAND INFO entry");
        assert_eq!(info[1], expected["arity"], "{name} arity");
        let flags = lower_set(&info[2]);
        for flag in lower_set(&expected["command_flags"]) {
            assert!(
                flags.contains(&flag),
                "{name}: COMMAND INFO lacks flag {flag}: {flags:?}"
            );
        }
        let key_specs: Vec<Json> = info[8]
            .as_array()
            .unwrap()
            .iter()
            .map(key_spec_from_info)
            .collect();
        let expected_specs: Vec<Json> = expected["key_specs"]
            .as_array()
            .unwrap()
            .iter()
            .map(normalized_key_spec)
            .collect();
        assert_eq!(key_specs, expected_specs, "{name} key specs");
        // A key after a keyword may stand after a value spelled like that
        // keyword, so its spec is INCOMPLETE: the server then asks zkit for
        // the keys (movablekeys), which parses the call by its grammar.
        // Keys at fixed places or counted by numkeys are exact.
        for spec in &expected_specs {
            let after_keyword = spec["begin_search"].get("keyword").is_some();
            let incomplete = lower_set(&spec["flags"]).contains("incomplete");
            assert_eq!(after_keyword, incomplete, "{name} key spec {spec}");
            if incomplete {
                assert!(
                    flags.contains("movablekeys"),
                    "{name}: an INCOMPLETE key spec without movablekeys: {flags:?}"
                );
            }
        }
        if version >= (7, 2) {
            let categories = lower_set(&info[6]);
            for category in lower_set(&expected["acl_categories"]) {
                if category == "zkit" && !has_zkit_category {
                    continue;
                }
                assert!(
                    categories.contains(&format!("@{category}")),
                    "{name}: COMMAND INFO lacks @{category}: {categories:?}"
                );
            }
        }

        let docs: Vec<Value> = query(&mut con, &["COMMAND", "DOCS", &lower]);
        let docs = fields(&to_json(&docs[1]));
        for field in ["summary", "since", "complexity", "group", "module"] {
            assert_eq!(docs[field], expected[field], "{name} {field}");
        }
        assert_eq!(
            docs.get("history"),
            expected.get("history"),
            "{name} history"
        );
        let arguments = docs
            .get("arguments")
            .map(arguments_from_docs)
            .unwrap_or_default();
        let expected_arguments: Vec<Json> = expected["arguments"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(without_counted_by)
            .collect();
        assert_eq!(arguments, expected_arguments, "{name} arguments");
    }
}

/// An argument of the file without `counted_by`, which COMMAND DOCS does
/// not carry (it is for parsers built from the file).
fn without_counted_by(arg: &Json) -> Json {
    let mut arg = arg.clone();
    if let Some(fields) = arg.as_object_mut() {
        fields.remove("counted_by");
        if let Some(Json::Array(nested)) = fields.get("arguments") {
            let nested = nested.iter().map(without_counted_by).collect();
            fields.insert("arguments".into(), Json::Array(nested));
        }
    }
    arg
}

/// Calls with the keys COMMAND GETKEYS must find in them (beside every
/// declaration's examples), in the order of the call (a key after a keyword is found by the module's own
/// parse, as its key spec is INCOMPLETE): keyword and `numkeys` key specs,
/// options in any order, keywords in any case, values spelled like keywords.
const CALLS_AND_KEYS: &[(&str, &[&str])] = &[
    ("RANK.GIFT b m 1", &["b"]),
    ("RANK.GIFT b m 1 SHARED", &["b"]),
    ("RANK.SET b m 1 AT 5", &["b"]),
    ("RANK.SET b m 1 GT SHARED", &["b"]),
    ("RANK.GET b m", &["b"]),
    ("RANK.GET b m shared", &["b"]),
    ("RANK.TOP b 10 OFFSET 2", &["b"]),
    ("RANK.TOP b 10 SHARED OFFSET 2", &["b"]),
    ("RANK.AROUND b m 2", &["b"]),
    ("RANK.AROUND b m 2 SHARED", &["b"]),
    ("RANK.MGIFT 3 d w a m 5 AT 1 SHARED", &["d", "w", "a"]),
    ("RANK.MGIFT 1 d m 5", &["d"]),
    (
        "RANK.MGIFT 2 d w DENSE 5 DENSE dt wt TTL 9",
        &["d", "w", "dt", "wt"],
    ),
    // Member data: the hash after DATA, on writes (with the data) and reads.
    ("RANK.GIFT b DATA 1 DATA p DATA", &["b", "p"]),
    ("RANK.TOP b 10 DATA p DENSE t", &["b", "p", "t"]),
    ("RANK.REMOVE b DATA p MEMBERS DATA", &["b", "p"]),
    ("RANK.MGET b MEMBERS m1 m2", &["b"]),
    ("RANK.MGET b shared members m1 SHARED", &["b"]),
    ("RANK.GIFT b m 1 DENSE t TTL 5", &["b", "t"]),
    ("RANK.SET b m 1 GT dense t", &["b", "t"]),
    ("RANK.TOP b 10 DENSE t OFFSET 2", &["b", "t"]),
    // A member spelled DENSE is no keyword: only the option names a key.
    ("RANK.GET DENSE DENSE DENSE t", &["DENSE", "t"]),
    ("RANK.MGET b DENSE t MEMBERS DENSE x", &["b", "t"]),
    ("RANK.AMONG b DENSE MEMBERS DENSE x", &["b"]),
    (
        "RANK.MERGE w 3 d1 d2 d3 WEIGHTS 1 2 3",
        &["w", "d1", "d2", "d3"],
    ),
    ("FEED.ADD f 1 m", &["f"]),
    ("FEED.ADD f CAP 5 1 m 2 n", &["f"]),
    ("FEED.PAGE f", &["f"]),
    ("FEED.PAGE f COUNT 5 OLDER c", &["f"]),
    ("DELAY.POLL q", &["q"]),
    ("DELAY.POLL q COUNT 5 LEASE q:held 100", &["q", "q:held"]),
    ("DELAY.POLL q LEASE q:held 100 COUNT 5", &["q", "q:held"]),
    ("DELAY.BPOLL q 0 lease q:held 100", &["q", "q:held"]),
    ("DELAY.BPOLL q 1000 COUNT 2", &["q"]),
    ("DELAY.ACK q:held TASKS a b", &["q:held"]),
    (
        "DELAY.POLL q LEASE q:held 100 DEADLETTER q:dead q:n 3",
        &["q", "q:held", "q:dead", "q:n"],
    ),
    (
        "DELAY.BPOLL q 0 deadletter q:dead q:n 3 LEASE q:held 100",
        &["q", "q:dead", "q:n", "q:held"],
    ),
    (
        "DELAY.ACK q:held DELIVERIES q:n TASKS a b",
        &["q:held", "q:n"],
    ),
    (
        "DELAY.ACK q:held deliveries q:n tasks DELIVERIES x",
        &["q:held", "q:n"],
    ),
    // After TASKS, DELIVERIES is a task, not the option: x is no key.
    ("DELAY.ACK q:held TASKS a DELIVERIES", &["q:held"]),
    ("DELAY.ACK q:held TASKS DELIVERIES x y", &["q:held"]),
    ("DELAY.NACK q:held q a 0", &["q:held", "q"]),
    ("DELAY.TOUCH q:held a 1000", &["q:held"]),
    ("DELAY.POLL q LEASE q:held 100 WITHTOKENS", &["q", "q:held"]),
    (
        "DELAY.ACK q:held DELIVERIES q:n LEASES a 1 b 2",
        &["q:held", "q:n"],
    ),
    // After LEASES every pair is a task and its token, whatever the task is named.
    ("DELAY.ACK q:held LEASES DELIVERIES 1 TASKS 2", &["q:held"]),
    ("DELAY.NACK q:held q TOKEN 0 TOKEN 1", &["q:held", "q"]),
    ("DELAY.TOUCH q:held TOKEN 1000 TOKEN 1", &["q:held"]),
    ("DELAY.ADD q TASKS 0 t", &["q"]),
    (
        "DELAY.ADD q DATA q:data INFLIGHT q:held JOBS 0 DATA INFLIGHT",
        &["q", "q:data", "q:held"],
    ),
    (
        "DELAY.POLL q LEASE q:held 10 DATA q:data WITHDATA WORKER DATA",
        &["q", "q:held", "q:data"],
    ),
    (
        "DELAY.ACK q:held DATA q:data TASKS DATA",
        &["q:held", "q:data"],
    ),
    (
        "DELAY.NACK q:held q t 0 DATA q:data REASON DATA",
        &["q:held", "q", "q:data"],
    ),
    ("DELAY.JOB q DATA", &["q"]),
    (
        "DELAY.JOB q t DEAD q:dead DATA q:data INFLIGHT q:held DELIVERIES q:n",
        &["q", "q:dead", "q:data", "q:held", "q:n"],
    ),
    (
        "DELAY.RETRY q:dead q DATA q:data TASKS DATA",
        &["q:dead", "q", "q:data"],
    ),
    ("DELAY.PAUSE q q:data", &["q", "q:data"]),
    ("DELAY.RESUME q q:data", &["q", "q:data"]),
    ("DELAY.STATS q DATA q:data", &["q", "q:data"]),
    ("DELAY.STATS q", &["q"]),
    // Every word after LANES is a lane, whatever it is named.
    (
        "DELAY.POLL q COUNT 2 LANES q:low COUNT",
        &["q", "q:low", "COUNT"],
    ),
    (
        "DELAY.BPOLL q 0 LEASE q:held 10 RATE q:rate 1000 5 LANES q:a q:b",
        &["q", "q:held", "q:rate", "q:a", "q:b"],
    ),
    ("DELAY.POLL q RATE LANES 1000 5", &["q", "LANES"]),
    (
        "DELAY.SCHEDULE q q:data DATA CRON CRON TZ UTC PAYLOAD TZ",
        &["q", "q:data"],
    ),
    ("DELAY.UNSCHEDULE q q:data DATA", &["q", "q:data"]),
    ("DELAY.SCHEDULES q q:data", &["q", "q:data"]),
    (
        "DELAY.GROUP q q:data CAP CAP 2 RATE 1000 5",
        &["q", "q:data"],
    ),
    ("DELAY.GROUPS q q:data", &["q", "q:data"]),
    (
        "DELAY.ADD q DATA q:data GROUP JOBS JOBS 0 t p",
        &["q", "q:data"],
    ),
    (
        "DELAY.STATS q DELIVERIES q:n inflight q:held DEAD q:dead",
        &["q", "q:n", "q:held", "q:dead"],
    ),
    ("RANK.STATS b", &["b"]),
    ("RANK.PERCENTILE b m", &["b"]),
    ("RANK.QUANTILE b 50", &["b"]),
    ("RANK.COUNT b -inf +inf", &["b"]),
    ("RANK.RANGE b +inf -inf LIMIT 0 10 SHARED", &["b"]),
    ("RANK.AMONG b SHARED MEMBERS m n", &["b"]),
    ("RATE.STATS k WINDOWS 1000 60000", &["k"]),
    ("RATE.HIT k 1000 5", &["k"]),
    ("RATE.HIT k COST 2 1000 5 9000 50", &["k"]),
    ("RATE.HIT k COST -2 1000 5", &["k"]),
    ("RATE.PEEK k 1000 5", &["k"]),
    ("RATE.PEEK k COST 2 1000 5 9000 50", &["k"]),
    ("RATE.ACQUIRE k holder 1000 5", &["k"]),
    ("RATE.RELEASE k holder", &["k"]),
    ("RATE.RELEASE k TOKEN TOKEN 5", &["k"]),
    ("RECENT.ADD r CAP 5 TTL 9 ITEMS a b", &["r"]),
    ("RECENT.ADD r ITEMS CAP TTL", &["r"]),
    ("VOTE.CAST s u d i v UP", &["s", "u", "d"]),
    ("VOTE.CAST s u d i v UP WEIGHT 1 2", &["s", "u", "d"]),
    ("VOTE.CAST s u d i v UP WINDOW t 60", &["s", "u", "d", "t"]),
    (
        "VOTE.CAST s u d i v DOWN WEIGHT 1 2 window t 60",
        &["s", "u", "d", "t"],
    ),
    // A member, voter or direction spelled WINDOW is not the option.
    ("VOTE.CAST s u d WINDOW WINDOW UP", &["s", "u", "d"]),
    ("VOTE.STATE u d v", &["u", "d"]),
];

#[test]
fn command_getkeys_finds_every_key_of_every_command() {
    let server = Server::start();
    let mut con = server.connect();
    for (line, keys) in CALLS_AND_KEYS {
        let got: Vec<String> = query(&mut con, &cmdline(&format!("COMMAND GETKEYS {line}")));
        assert_eq!(got, *keys, "{line}");
    }
    // Every declaration's examples, whose keys are the words with `{t}`.
    let mut covered = BTreeSet::new();
    for (command, words) in examples() {
        if !words[0].eq_ignore_ascii_case(&command) {
            continue; // a native command that sets up the next example
        }
        let call: Vec<&str> = ["COMMAND", "GETKEYS"]
            .into_iter()
            .chain(words.iter().map(String::as_str))
            .collect();
        let keys = example_keys(&words);
        if keys.is_empty() {
            // A command that reads no key (RANK.SEASON names one).
            let e = err(&mut con, &call);
            assert!(e.contains("no key arguments"), "{words:?}: {e}");
        } else {
            let got: Vec<String> = query(&mut con, &call);
            assert_eq!(got, keys, "{words:?}");
        }
        covered.insert(command.to_lowercase());
    }
    let registered: BTreeSet<String> =
        query(&mut con, &["COMMAND", "LIST", "FILTERBY", "MODULE", "zkit"]);
    assert_eq!(covered, registered, "every command has an example");
}

/// Whether `value` is a reply `schema` (a command's `reply_schema`) allows,
/// for a call that sent the words `sent`; `Err` says where it is not.
fn conforms(schema: &Json, value: &Value, sent: &[&str]) -> Result<(), String> {
    let mismatch = || Err(format!("{value:?} is not {schema}"));
    if schema.get("idmp_flag").is_some() {
        let mut inner = schema.clone();
        inner.as_object_mut().unwrap().remove("idmp_flag");
        if !sent.contains(&"IDMP") {
            return conforms(&inner, value, sent);
        }
        let Value::Array(items) = value else {
            return mismatch();
        };
        let (flag, rest) = items.split_last().ok_or("an empty IDMP reply")?;
        if !matches!(flag, Value::Int(0 | 1)) {
            return Err(format!("the IDMP flag is {flag:?}"));
        }
        return conforms(&inner, &Value::Array(rest.to_vec()), sent);
    }
    if let Some(choices) = schema.get("oneOf").and_then(Json::as_array) {
        // An alternative `when_sent` an option is the reply exactly when the
        // call sent it.
        let fits = |choice: &Json| match choice.get("when_sent").and_then(Json::as_str) {
            Some(token) if !sent.contains(&token) => false,
            _ => conforms(choice, value, sent).is_ok(),
        };
        let optioned = choices.iter().find_map(|c| c.get("when_sent")?.as_str());
        let expected: Vec<&Json> = choices
            .iter()
            .filter(|c| match optioned {
                Some(token) if sent.contains(&token) => c.get("when_sent").is_some(),
                _ => true,
            })
            .collect();
        return if expected.into_iter().any(fits) {
            Ok(())
        } else {
            mismatch()
        };
    }
    if schema.get("const").is_some() {
        return match value {
            Value::Okay => Ok(()),
            _ => mismatch(),
        };
    }
    match (schema["type"].as_str(), value) {
        (Some("null"), Value::Nil) => Ok(()),
        (Some("integer"), Value::Int(n)) => match schema.get("enum") {
            Some(allowed) if !allowed.as_array().unwrap().contains(&Json::from(*n)) => mismatch(),
            _ => Ok(()),
        },
        (Some("string"), Value::BulkString(_) | Value::SimpleString(_)) => Ok(()),
        (Some("number"), Value::Double(_)) => Ok(()),
        (Some("number"), Value::BulkString(text)) => std::str::from_utf8(text)
            .ok()
            .and_then(|t| t.parse::<f64>().ok())
            .map(|_| ())
            .ok_or_else(|| format!("{value:?} is not a double")),
        (Some("array"), Value::Array(items)) => {
            if let Some(tuple) = schema.get("flat_items") {
                let width = tuple["items"].as_array().unwrap().len();
                if items.len() % width != 0 {
                    return mismatch();
                }
                return items
                    .chunks(width)
                    .try_for_each(|chunk| conforms(tuple, &Value::Array(chunk.to_vec()), sent));
            }
            match &schema["items"] {
                Json::Array(elements) => {
                    let min = schema["minItems"].as_u64().unwrap() as usize;
                    if !(min..=elements.len()).contains(&items.len()) {
                        return mismatch();
                    }
                    for (element, item) in elements.iter().zip(items) {
                        conforms(element, item, sent)?;
                    }
                    // An optional element whose option the call sent is there.
                    for (i, element) in elements.iter().enumerate().skip(items.len()) {
                        let options = element["present_when"].as_array().unwrap();
                        if options.iter().any(|w| {
                            w.get("option")
                                .and_then(Json::as_str)
                                .is_some_and(|token| sent.contains(&token))
                        }) {
                            return Err(format!("{value:?} lacks element {i} ({element})"));
                        }
                    }
                    Ok(())
                }
                element => items
                    .iter()
                    .try_for_each(|item| conforms(element, item, sent)),
            }
        }
        (Some("object"), Value::Array(_) | Value::Map(_)) => {
            let pairs: Vec<(String, &Value)> = match value {
                Value::Map(pairs) => pairs
                    .iter()
                    .map(|(k, v)| (json_str(&to_json(k)), v))
                    .collect(),
                Value::Array(items) => items
                    .chunks_exact(2)
                    .map(|pair| (json_str(&to_json(&pair[0])), &pair[1]))
                    .collect(),
                _ => unreachable!(),
            };
            let properties = schema["properties"].as_object().unwrap();
            for (name, property) in properties {
                let found = pairs.iter().find(|(n, _)| n == name);
                let (_, field) = found.ok_or_else(|| format!("{value:?} lacks {name}"))?;
                conforms(property, field, sent)?;
            }
            Ok(())
        }
        _ => mismatch(),
    }
}

/// Calls that succeed on an empty server, in this order, with every reply
/// shape and every option that changes one (IDMP, STEP, several limits).
const CALLS_THAT_REPLY: &[&str] = &[
    "RANK.GIFT b alice 10",
    "RANK.GIFT b bob 5 IDMP seen e1",
    "RANK.GIFT b bob 5 IDMP seen e1",
    "RANK.SET b carol 7",
    "RANK.SET b carol 8 IDMP seen e2",
    "RANK.GET b alice",
    "RANK.GET b nobody",
    "RANK.TOP b 10",
    "RANK.AROUND b bob 1",
    "RANK.MGIFT 2 b b2 dave 3",
    "RANK.MGIFT 2 b b2 dave 3 IDMP seen e3",
    "RANK.MGET b MEMBERS alice nobody",
    "RANK.STATS b",
    "RANK.STATS nothing",
    "RANK.PERCENTILE b alice",
    "RANK.PERCENTILE b nobody",
    "RANK.QUANTILE b 50",
    "RANK.QUANTILE nothing 50",
    "RANK.COUNT b (5 +inf",
    "RANK.RANGE b +inf (5",
    "RANK.RANGE b +inf -inf LIMIT 1 1 SHARED",
    "RANK.AMONG b MEMBERS alice nobody",
    "RANK.AMONG b SHARED MEMBERS alice nobody",
    "RANK.MERGE w 2 b b2",
    "RANK.MERGE w2 2 b b2 STEP 1 staging 0",
    "FEED.ADD f 1 a 2 b",
    "FEED.PAGE f COUNT 1",
    "FEED.PAGE nothing",
    "RECENT.ADD r ITEMS a b",
    "VOTE.CAST s u d i v UP",
    "VOTE.STATE u d v",
    "RATE.HIT rate 1000 5",
    "RATE.HIT rate 1000 5 60000 9",
    "RATE.HIT rate IDMP seen e4 1000 5",
    "RATE.HIT rate IDMP seen e4 1000 5",
    "RATE.HIT rate IDMP seen e5 1000 5 60000 9",
    "RATE.STATS rate WINDOWS 1000 60000",
    "RATE.HIT rate COST 9 1000 5",
    "RATE.HIT rate COST -1 1000 5 60000 9",
    "RATE.PEEK rate 1000 5",
    "RATE.PEEK rate COST 2 1000 5 60000 9",
    "RATE.ACQUIRE holders h1 60000 1",
    "RATE.ACQUIRE holders h2 60000 1",
    "RATE.RELEASE holders h1",
    "RATE.RELEASE holders h1 TOKEN 1",
    "DELAY.POLL q",
    "DELAY.BPOLL q 1",
    "ZADD q 0 t1 0 t2 0 t3",
    "DELAY.POLL q COUNT 2 LEASE inflight 60000",
    "DELAY.TOUCH inflight t1 60000",
    "DELAY.NACK inflight q t2 0",
    "DELAY.ACK inflight TASKS t1",
    "ZADD q 0 t4 0 t5 0 t6",
    "DELAY.POLL q COUNT 3 LEASE inflight 60000 WITHTOKENS",
    "DELAY.TOUCH inflight t4 60000 TOKEN 1",
    "DELAY.NACK inflight q t5 0 TOKEN 1",
    "DELAY.ACK inflight LEASES t6 1",
    "DELAY.ADD q DATA data WITHIN 60000 JOBS 0 j1 p1 0 j2 p2",
    "DELAY.ADD q TASKS 0 t7",
    "DELAY.POLL q COUNT 2 LEASE inflight 60000 DEADLETTER dead deliveries 3 DATA data WITHDATA WORKER w",
    "DELAY.POLL q DATA data WITHDATA",
    "DELAY.JOB q j1 INFLIGHT inflight DEAD dead DELIVERIES deliveries DATA data",
    "DELAY.NACK inflight q j1 0 DATA data REASON failed",
    "DELAY.PAUSE q data",
    "DELAY.BPOLL q 10 DATA data WITHDATA",
    "DELAY.RESUME q data",
    "ZADD dead 1 d1",
    "DELAY.RETRY dead q DATA data TASKS d1",
    "DELAY.STATS q DATA data",
    "DELAY.BPOLL q 1000 LEASE inflight 60000 DEADLETTER dead deliveries 3",
    "DELAY.STATS q INFLIGHT inflight DEAD dead DELIVERIES deliveries",
    "DELAY.STATS q",
    "DELAY.SCHEDULE q data report EVERY 60000 PAYLOAD p",
    "DELAY.SCHEDULE q data beat EVERY 1000 START 4102444800000",
    "DELAY.SCHEDULES q data",
    "DELAY.UNSCHEDULE q data report",
    "DELAY.GROUP q data acme CAP 1 RATE 1000 5",
    "DELAY.ADD q DATA data GROUP acme JOBS 0 g1 p 0 g2 p",
    "DELAY.GROUPS q data",
    "ZADD high 0 h1",
    "DELAY.POLL high COUNT 3 LEASE inflight 60000 DATA data LANES q",
    "DELAY.POLL q RATE rate 1000 5",
    "DELAY.POLL q DATA data WITHDATA RATE rate 1000 5",
    "DELAY.BPOLL q 10 RATE rate 1000 5 LANES high",
];

#[test]
fn replies_are_what_each_commands_reply_schema_says() {
    let commands = commands_json();
    let server = Server::start();
    for resp3 in [false, true] {
        let mut con = server.connect();
        if resp3 {
            query::<Value>(&mut con, &["HELLO", "3"]);
        }
        query::<()>(&mut con, &["FLUSHALL"]);
        let mut checked = BTreeSet::new();
        for line in CALLS_THAT_REPLY {
            let words: Vec<&str> = line.split(' ').collect();
            let reply: Value = query(&mut con, &cmdline(line));
            let Some(doc) = commands.get(words[0]) else {
                continue; // a native command that sets up the next
            };
            conforms(&doc["reply_schema"], &reply, &words)
                .unwrap_or_else(|e| panic!("{line} (RESP3: {resp3}): {e}"));
            checked.insert(words[0].to_string());
        }
        // Every declaration's examples, in order on an empty server.
        query::<()>(&mut con, &["FLUSHALL"]);
        for (command, words) in examples() {
            let sent: Vec<&str> = words.iter().map(String::as_str).collect();
            let reply: Value = query(&mut con, &sent);
            if !words[0].eq_ignore_ascii_case(&command) {
                continue; // a native command that sets up the next example
            }
            conforms(&commands[&command]["reply_schema"], &reply, &sent)
                .unwrap_or_else(|e| panic!("{words:?} (RESP3: {resp3}): {e}"));
            checked.insert(command);
        }
        let all: BTreeSet<String> = commands.keys().cloned().collect();
        assert_eq!(checked, all, "every command's reply is checked");
    }
}
