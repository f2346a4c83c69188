//! DELAY repeating jobs (DELAY.SCHEDULE, UNSCHEDULE, SCHEDULES and the
//! polls that claim their occurrences), against a real server.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::client::{ok, query};
use crate::common::data::{assert_errors_change_nothing, server_time_ms, wait_until_server_time};
use crate::common::replication::{
    aof_server, assert_aof_replays_without_module, assert_replicas_match, master_and_replicas,
};
use crate::common::{functions_engine, Server};
use redis::{Connection, Value};

/// `[task, due-ms, token, payload, deliveries]`.
type Job = (String, f64, Option<i64>, Option<String>, Option<i64>);

const Q: &str = "{jobs}";
const HELD: &str = "{jobs}:inflight";
const DATA: &str = "{jobs}:data";

/// 2026-11-02 00:00:00 UTC, a Monday.
const MONDAY: i64 = 1_793_577_600_000;
const HOUR: i64 = 3_600_000;

fn schedule(con: &mut Connection, words: &[&str]) -> i64 {
    let mut command = vec!["DELAY.SCHEDULE", Q, DATA];
    command.extend_from_slice(words);
    query(con, &command)
}

fn poll(con: &mut Connection, source: &str, lease_ms: &str) -> Vec<Job> {
    query(
        con,
        &[
            "DELAY.POLL",
            source,
            "COUNT",
            "10",
            "LEASE",
            HELD,
            lease_ms,
            "DATA",
            DATA,
            "WITHDATA",
        ],
    )
}

fn queued(con: &mut Connection) -> Vec<String> {
    query(con, &["ZRANGE", Q, "0", "-1"])
}

/// The occurrence time a task id ends with.
fn occurrence_ms(task: &str) -> i64 {
    task.rsplit_once('@').unwrap().1.parse().unwrap()
}

#[test]
fn a_job_every_n_ms_runs_each_occurrence_once_with_its_payload() {
    let server = Server::start();
    let mut con = server.connect();
    let now = server_time_ms(&mut con);
    let start = now + 200;
    let first = schedule(
        &mut con,
        &[
            "digest",
            "EVERY",
            "300",
            "START",
            &start.to_string(),
            "PAYLOAD",
            "to=ops",
        ],
    );
    assert_eq!(first, start);
    assert_eq!(queued(&mut con), [format!("digest@{start}")]);
    assert!(poll(&mut con, Q, "60000").is_empty(), "not due yet");
    let mut seen = Vec::new();
    while seen.len() < 3 {
        for (task, _, token, payload, _) in poll(&mut con, Q, "60000") {
            assert_eq!(payload.as_deref(), Some("to=ops"));
            let acked: i64 = query(
                &mut con,
                &[
                    "DELAY.ACK",
                    HELD,
                    "DATA",
                    DATA,
                    "LEASES",
                    &task,
                    &token.unwrap().to_string(),
                ],
            );
            assert_eq!(acked, 1);
            seen.push(occurrence_ms(&task));
        }
        // The next occurrence is in the queue as soon as one is claimed.
        assert_eq!(queued(&mut con).len(), 1);
        thread::sleep(Duration::from_millis(20));
    }
    // On the grid of the first; a late claim skips the missed ones.
    assert_eq!(seen[0], start);
    assert!(
        seen.windows(2)
            .all(|w| w[1] > w[0] && (w[1] - w[0]) % 300 == 0),
        "{seen:?}"
    );
    // Each occurrence's data went with its ACK; the schedule's stays.
    let fields: Vec<String> = query(&mut con, &["HKEYS", DATA]);
    let fields: BTreeSet<String> = fields.into_iter().collect();
    let next = occurrence_ms(&queued(&mut con)[0]);
    let expected: BTreeSet<String> = [
        "s:digest".to_string(),
        "n:digest".to_string(),
        "t:digest".to_string(),
        format!("p:digest@{next}"),
    ]
    .into();
    assert_eq!(fields, expected);
}

#[test]
fn a_schedule_runs_once_per_occurrence_across_workers() {
    let server = Server::start();
    let mut con = server.connect();
    schedule(&mut con, &["tick", "EVERY", "40"]);
    let claimed = Arc::new(Mutex::new(Vec::new()));
    let deadline = Instant::now() + Duration::from_millis(1_500);
    let workers: Vec<_> = (0..8)
        .map(|_| {
            let mut con = server.connect();
            let claimed = Arc::clone(&claimed);
            thread::spawn(move || {
                while Instant::now() < deadline {
                    for job in poll(&mut con, Q, "60000") {
                        claimed.lock().unwrap().push(occurrence_ms(&job.0));
                    }
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    let claimed = claimed.lock().unwrap();
    let distinct: BTreeSet<i64> = claimed.iter().copied().collect();
    assert_eq!(distinct.len(), claimed.len(), "an occurrence claimed twice");
    assert!(claimed.len() >= 5, "{claimed:?}");
    let first = *distinct.first().unwrap();
    assert!(distinct.iter().all(|at| (at - first) % 40 == 0));
    // Exactly one occurrence waits for the next claim.
    assert_eq!(queued(&mut con).len(), 1);
}

#[test]
fn a_redelivered_or_retried_occurrence_schedules_nothing_more() {
    let server = Server::start();
    let mut con = server.connect();
    schedule(&mut con, &["sync", "EVERY", &HOUR.to_string()]);
    // Claimed with a short lease that runs out: the next one is queued once.
    let first = poll(&mut con, Q, "100");
    assert_eq!(first.len(), 1);
    let next = queued(&mut con);
    assert_eq!(next.len(), 1);
    wait_until_server_time(&mut con, first[0].2.unwrap() + 1);
    let again = poll(&mut con, HELD, "60000");
    assert_eq!(again[0].0, first[0].0, "redelivered");
    assert_eq!(queued(&mut con), next, "nothing more queued");
    // It fails: retried at once, it is a task like any other.
    let token = again[0].2.unwrap().to_string();
    let nacked: i64 = query(
        &mut con,
        &[
            "DELAY.NACK",
            HELD,
            Q,
            &again[0].0,
            "0",
            "TOKEN",
            &token,
            "DATA",
            DATA,
            "REASON",
            "timeout",
        ],
    );
    assert_eq!(nacked, 1);
    let retried = poll(&mut con, Q, "60000");
    assert_eq!(retried.len(), 1);
    assert_eq!(retried[0].0, first[0].0);
    // The schedule keeps repeating after the failure.
    assert_eq!(queued(&mut con), next);
}

#[test]
fn a_changed_or_cancelled_schedule_takes_effect_at_the_next_occurrence() {
    let server = Server::start();
    let mut con = server.connect();
    let now = server_time_ms(&mut con);
    schedule(
        &mut con,
        &["report", "EVERY", &HOUR.to_string(), "PAYLOAD", "v1"],
    );
    let running = poll(&mut con, Q, "60000");
    assert_eq!(running.len(), 1);
    let pending = queued(&mut con);
    assert_eq!(
        occurrence_ms(&pending[0]),
        occurrence_ms(&running[0].0) + HOUR
    );
    // Changed: the pending occurrence is replaced by the new rule's first;
    // the running one goes on.
    let start = now + 250;
    let first = schedule(
        &mut con,
        &[
            "report",
            "EVERY",
            "500",
            "START",
            &start.to_string(),
            "PAYLOAD",
            "v2",
        ],
    );
    assert_eq!(first, start);
    assert_eq!(queued(&mut con), [format!("report@{start}")]);
    let old: Option<String> = query(&mut con, &["HGET", DATA, &format!("p:{}", pending[0])]);
    assert_eq!(old, None, "the replaced occurrence's payload went with it");
    let held: i64 = query(&mut con, &["ZCARD", HELD]);
    assert_eq!(held, 1);
    wait_until_server_time(&mut con, start);
    let changed = poll(&mut con, Q, "60000");
    assert_eq!(changed[0].0, format!("report@{start}"));
    assert_eq!(changed[0].3.as_deref(), Some("v2"));
    // Cancelled: the pending occurrence goes; a claimed one runs to its end
    // and schedules nothing.
    let cancelled: i64 = query(&mut con, &["DELAY.UNSCHEDULE", Q, DATA, "report"]);
    assert_eq!(cancelled, 1);
    assert!(queued(&mut con).is_empty());
    let again: i64 = query(&mut con, &["DELAY.UNSCHEDULE", Q, DATA, "report"]);
    assert_eq!(again, 0);
    let fields: Vec<String> = query(&mut con, &["HKEYS", DATA]);
    assert!(
        fields.iter().all(|f| f.starts_with("p:report@")),
        "{fields:?}"
    );
}

#[test]
fn occurrences_missed_while_no_worker_ran_run_once() {
    let server = Server::start();
    let mut con = server.connect();
    let now = server_time_ms(&mut con);
    // The schedule started ten periods ago: its first occurrence is due.
    let start = now - 10_000;
    schedule(
        &mut con,
        &["cleanup", "EVERY", "1000", "START", &start.to_string()],
    );
    let got = poll(&mut con, Q, "60000");
    assert_eq!(got.len(), 1, "one run for the missed ones");
    let claimed_at = server_time_ms(&mut con);
    let next = occurrence_ms(&queued(&mut con)[0]);
    assert_eq!((next - start) % 1000, 0);
    assert!(next > now && next <= claimed_at + 1000, "{next} {now}");
    assert!(poll(&mut con, Q, "60000").is_empty());
}

#[test]
fn a_cron_schedule_follows_its_time_zone_and_is_listed() {
    let server = Server::start();
    let mut con = server.connect();
    let start = (MONDAY + 10 * 24 * HOUR * 365).to_string();
    // 09:00 on weekdays in Paris: 08:00 UTC in winter.
    let first = schedule(
        &mut con,
        &[
            "standup",
            "CRON",
            "0 9 * * MON-FRI",
            "TZ",
            "Europe/Paris",
            "START",
            &MONDAY.to_string(),
        ],
    );
    assert_eq!(first, MONDAY + 8 * HOUR);
    schedule(
        &mut con,
        &["beat", "EVERY", "60000", "START", &start, "PAYLOAD", "{}"],
    );
    let rows: Vec<Value> = query(&mut con, &["DELAY.SCHEDULES", Q, DATA]);
    let text = |v: &Value| match v {
        Value::BulkString(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Value::Int(n) => Some(n.to_string()),
        Value::Nil => None,
        other => panic!("{other:?}"),
    };
    let rows: Vec<Vec<Option<String>>> = rows
        .iter()
        .map(|row| match row {
            Value::Array(items) => items.iter().map(text).collect(),
            other => panic!("{other:?}"),
        })
        .collect();
    let s = |x: &str| Some(x.to_string());
    assert_eq!(
        rows,
        [
            vec![s("beat"), s("60000"), None, None, s(&start), s("{}")],
            vec![
                s("standup"),
                None,
                s("0 9 * * MON-FRI"),
                s("Europe/Paris"),
                s(&(MONDAY + 8 * HOUR).to_string()),
                None
            ],
        ]
    );
    let claimed = poll(&mut con, Q, "60000");
    assert_eq!(claimed[0].0, format!("standup@{}", MONDAY + 8 * HOUR));
    // Claimed long after: the next is the first weekday 09:00 from now on.
    let now = server_time_ms(&mut con);
    let next = occurrence_ms(
        queued(&mut con)
            .iter()
            .find(|t| t.starts_with("standup@"))
            .unwrap(),
    );
    assert!(next > now && next - now <= 4 * 24 * HOUR, "{next} {now}");
}

#[test]
fn a_cron_schedule_keeps_its_time_of_day_when_the_clock_changes() {
    // Paris, 2027 (both engines: the library has the module's zones and its
    // rules for the hour a clock skips or repeats). On 28 March at 01:00
    // UTC the clock skips from 02:00 to 03:00; on 31 October at 01:00 UTC it
    // goes back from 03:00 to 02:00, so 02:00-03:00 is read twice.
    let server = Server::start();
    let mut con = server.connect();
    let march_28 = 1_806_192_000_000; // 00:00 UTC, 01:00 in Paris
    let october_31 = 1_824_940_800_000; // 00:00 UTC, 02:00 in Paris (summer time)
    let minute = 60_000;
    let cases = [
        // A time of day the clock skips runs at the first instant after it.
        ("30 2 * * *", march_28, march_28 + HOUR),
        // Other rules' skipped minutes do not run: 02:00 the next day.
        ("*/30 2 * * *", march_28, march_28 + 24 * HOUR),
        // A time of day read twice runs at the first reading...
        ("30 2 * * *", october_31, october_31 + 30 * minute),
        // ...and only then: the next is 02:30 on 1 November (01:30 UTC).
        (
            "30 2 * * *",
            october_31 + 31 * minute,
            october_31 + 25 * HOUR + 30 * minute,
        ),
        // Other rules run at both readings: 02:00 again, at 01:00 UTC.
        ("0,30 2 * * *", october_31 + 31 * minute, october_31 + HOUR),
        (
            "0,30 2 * * *",
            october_31 + HOUR + minute,
            october_31 + HOUR + 30 * minute,
        ),
    ];
    for (i, (rule, start, first)) in cases.into_iter().enumerate() {
        let id = format!("case-{i}");
        let start = start.to_string();
        assert_eq!(
            schedule(
                &mut con,
                &[&id, "CRON", rule, "TZ", "Europe/Paris", "START", &start]
            ),
            first,
            "{rule} from {start}"
        );
    }
}

#[test]
fn a_cron_schedule_in_utc_moves_on_with_each_claim() {
    // Both engines: the library reads cron rules in UTC as the module does.
    let server = Server::start();
    let mut con = server.connect();
    let first = schedule(
        &mut con,
        &[
            "standup",
            "CRON",
            "0 9 * * mon-fri",
            "START",
            &(MONDAY + 10 * HOUR).to_string(),
            "PAYLOAD",
            "room 4",
        ],
    );
    // Monday's 09:00 has passed at 10:00: Tuesday's.
    assert_eq!(first, MONDAY + 33 * HOUR);
    let now = server_time_ms(&mut con);
    let claimed = poll(&mut con, Q, "60000");
    assert_eq!(claimed.len(), 1, "{claimed:?}");
    assert_eq!(claimed[0].0, format!("standup@{first}"));
    assert_eq!(claimed[0].3.as_deref(), Some("room 4"));
    // Claimed late: the next is the first weekday 09:00 after now.
    let next = occurrence_ms(&queued(&mut con)[0]);
    let day = 24 * HOUR;
    assert!(next > now && next - now <= 3 * day + HOUR, "{next} {now}");
    assert_eq!(next.rem_euclid(day), 9 * HOUR);
    let weekday = (next.div_euclid(day) + 4) % 7;
    assert!((1..=5).contains(&weekday), "{weekday}");
    let rows: Vec<Value> = query(&mut con, &["DELAY.SCHEDULES", Q, DATA]);
    let Value::Array(row) = &rows[0] else {
        panic!("{rows:?}")
    };
    assert_eq!(row[2], Value::BulkString(b"0 9 * * mon-fri".to_vec()));
    assert_eq!(row[3], Value::BulkString(b"UTC".to_vec()));
    assert_eq!(row[4], Value::Int(next));
    // A zone that has always been UTC is served under its own name.
    let start = (MONDAY + 10 * HOUR).to_string();
    let at = schedule(
        &mut con,
        &[
            "gmt",
            "CRON",
            "30 9 * * *",
            "TZ",
            "Etc/GMT",
            "START",
            &start,
        ],
    );
    assert_eq!(at, MONDAY + 33 * HOUR + 30 * 60_000);
    let rows: Vec<Value> = query(&mut con, &["DELAY.SCHEDULES", Q, DATA]);
    let Value::Array(row) = &rows[0] else {
        panic!("{rows:?}")
    };
    assert_eq!(row[0], Value::BulkString(b"gmt".to_vec()));
    assert_eq!(row[3], Value::BulkString(b"Etc/GMT".to_vec()));
    // Both day fields with `+`: a 29 February that is a Monday, 2044's.
    let leap_monday = schedule(
        &mut con,
        &["leap", "CRON", "0 0 29 2 +MON", "START", &start],
    );
    assert_eq!(leap_monday, 2_340_316_800_000);
}

#[test]
fn errors_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    schedule(&mut con, &["kept", "EVERY", "60000"]);
    ok(&mut con, &["SET", "{jobs}:str", "x"]);
    let head = ["DELAY.SCHEDULE", Q, DATA, "s"];
    let with =
        |rest: &[&'static str]| -> Vec<&'static str> { head.iter().chain(rest).copied().collect() };
    // The library reads cron rules as the module does, in the module's
    // zones, and refuses the parser's day extensions before it reads or
    // writes anything (docs/functions.md).
    let mut cases_owned: Vec<(Vec<&str>, &str)> = vec![
        (
            with(&["CRON", "0 0 9 * * *"]),
            "ERR invalid cron expression (Invalid pattern: Pattern must have 5 fields",
        ),
        (with(&["CRON", "every day"]), "ERR invalid cron expression"),
        (
            with(&["CRON", "61 * * * *"]),
            "ERR invalid cron expression (Component error: Number out of bounds.)",
        ),
        (
            with(&["CRON", "0 9 * * *", "TZ", "Mars/Olympus"]),
            "ERR unknown time zone 'Mars/Olympus': give an IANA name such as Europe/Paris",
        ),
        // A name is read as the module's tz database spells it; a bad cron
        // expression is told before a bad zone.
        (
            with(&["CRON", "0 9 L * *", "TZ", "europe/paris"]),
            "ERR unknown time zone 'europe/paris'",
        ),
        (
            with(&["CRON", "61 * * * *", "TZ", "Mars/Olympus"]),
            "ERR invalid cron expression (Component error: Number out of bounds.)",
        ),
        (
            with(&["CRON", "0 9 * * *", "TZ", "Mars\0\r\n"]),
            "ERR unknown time zone 'Mars\\0  ': give",
        ),
        (
            with(&["CRON", "0 0 30 2 *"]),
            "ERR the cron expression matches no time",
        ),
        (with(&["EVERY", "1000", "TZ", "UTC"]), "ERR TZ needs CRON"),
        (with(&["EVERY", "0"]), "ERR EVERY must be between 1 and"),
        (
            with(&["EVERY", "1000", "START", "-1"]),
            "ERR START must be a unix ms",
        ),
        (with(&["EVERY", "x"]), "ERR value is not an integer"),
        (with(&[]), "ERR wrong number of arguments"),
        (
            vec!["DELAY.SCHEDULE", "{jobs}:str", DATA, "s", "EVERY", "5"],
            "WRONGTYPE",
        ),
        (
            vec!["DELAY.SCHEDULE", Q, "{jobs}:str", "s", "EVERY", "5"],
            "WRONGTYPE",
        ),
        (
            vec!["DELAY.UNSCHEDULE", Q, "{jobs}:str", "kept"],
            "WRONGTYPE",
        ),
        (vec!["DELAY.SCHEDULES", "{jobs}:str", DATA], "WRONGTYPE"),
        (
            vec![
                "DELAY.SCHEDULE",
                "{jobs}:new",
                "{jobs}:new",
                "s",
                "EVERY",
                "5",
            ],
            "ERR the DATA hash must differ from the call's sorted sets",
        ),
        (
            vec!["DELAY.UNSCHEDULE", "{jobs}:new", "{jobs}:new", "kept"],
            "ERR the DATA hash must differ from the call's sorted sets",
        ),
    ];
    if functions_engine() {
        cases_owned.push((
            with(&["CRON", "0 0 L * *"]),
            "ERR CRON with L, W or # is not in the Functions library",
        ));
    }
    let cases: Vec<(&[&str], &str)> = cases_owned
        .iter()
        .map(|(words, e)| (words.as_slice(), *e))
        .collect();
    assert_errors_change_nothing(&mut con, &cases);
}

#[test]
fn schedules_replicate_and_replay_without_zkit() {
    let (master, replicas) = master_and_replicas();
    let mut con = master.connect();
    schedule(&mut con, &["a", "EVERY", "100", "PAYLOAD", "p"]);
    // The library serves EVERY rules only.
    let second = if functions_engine() {
        ["b", "EVERY", "300000"]
    } else {
        ["b", "CRON", "*/5 * * * *"]
    };
    schedule(&mut con, &second);
    poll(&mut con, Q, "60000");
    query::<i64>(&mut con, &["DELAY.UNSCHEDULE", Q, DATA, "b"]);
    assert_replicas_match(&master, &replicas);
    let server = aof_server();
    let mut con = server.connect();
    schedule(&mut con, &["a", "EVERY", "100", "PAYLOAD", "p"]);
    poll(&mut con, Q, "60000");
    assert_aof_replays_without_module(server);
}
