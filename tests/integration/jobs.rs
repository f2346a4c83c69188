//! DELAY jobs: tasks with a payload and a history in the queue's DATA hash
//! (DELAY.ADD, DELAY.JOB, DELAY.RETRY, DELAY.PAUSE, DELAY.RESUME, and the
//! DATA options of POLL, BPOLL, ACK and NACK), against a real server.

use std::collections::HashMap;
use std::thread;

use crate::common::client::{cmdline, command, query};
use crate::common::data::{assert_errors_change_nothing, server_time_ms, wait_until_server_time};
use crate::common::replication::{
    aof_server, assert_aof_replays_without_module, assert_replicas_match, master_and_replicas,
};
use crate::common::{functions_engine, set_zkit_config, wait_blocked, Server};
use redis::{Connection, Value};

/// `[task, due-ms, token, payload, deliveries]`.
type Job = (String, f64, Option<i64>, Option<Vec<u8>>, Option<i64>);

const Q: &str = "{jobs}";
const HELD: &str = "{jobs}:inflight";
const DEAD: &str = "{jobs}:dead";
const COUNTS: &str = "{jobs}:deliveries";
const DATA: &str = "{jobs}:data";

fn add(con: &mut Connection, words: &[&str]) -> Vec<i64> {
    let mut command = vec!["DELAY.ADD", Q, "DATA", DATA];
    command.extend_from_slice(words);
    query(con, &command)
}

/// A worker's poll: leased, with dead letters after `max` deliveries, as
/// jobs.
fn poll_jobs(con: &mut Connection, source: &str, lease_ms: &str, max: &str) -> Vec<Job> {
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
            "DEADLETTER",
            DEAD,
            COUNTS,
            max,
            "DATA",
            DATA,
            "WITHDATA",
            "WORKER",
            "w1",
        ],
    )
}

/// DELAY.JOB's fields by name.
fn job_info(con: &mut Connection, task: &str) -> HashMap<String, Value> {
    let fields: Vec<Value> = query(
        con,
        &[
            "DELAY.JOB",
            Q,
            task,
            "INFLIGHT",
            HELD,
            "DEAD",
            DEAD,
            "DELIVERIES",
            COUNTS,
            "DATA",
            DATA,
        ],
    );
    fields
        .chunks(2)
        .map(|pair| {
            let Value::BulkString(name) = &pair[0] else {
                panic!("{pair:?}")
            };
            (String::from_utf8(name.clone()).unwrap(), pair[1].clone())
        })
        .collect()
}

fn text(value: &Value) -> Option<String> {
    match value {
        Value::BulkString(bytes) => Some(String::from_utf8_lossy(bytes).into_owned()),
        Value::Nil => None,
        other => panic!("{other:?}"),
    }
}

fn int(value: &Value) -> Option<i64> {
    match value {
        Value::Int(n) => Some(*n),
        Value::Nil => None,
        other => panic!("{other:?}"),
    }
}

/// Tasks added in one millisecond are due in the order added: the first at
/// that millisecond, the others from the next one on. Waits for it.
fn wait_past_arrivals(con: &mut Connection) {
    let now = server_time_ms(con);
    wait_until_server_time(con, now + 1);
}

fn hash_len(con: &mut Connection) -> i64 {
    query(con, &["HLEN", DATA])
}

/// A job goes through claim, lease expiry, redelivery, NACK with a reason,
/// death, retry and ack with its payload and history, and leaves nothing.
fn lifecycle(con: &mut Connection) {
    let payload = "{\"to\":\"ann@example.com\",\"n\":1}\u{0}\u{ff}";
    assert_eq!(add(con, &["JOBS", "0", "mail:17", payload]), [1]);
    // First delivery: a short lease that the worker lets run out.
    let first = poll_jobs(con, Q, "100", "3");
    assert_eq!(first.len(), 1);
    let (task, due, token, got, deliveries) = &first[0];
    // Due at 0: due now, scored at the server's now when added.
    assert_eq!(task, "mail:17");
    assert!(*due > 1e12, "{due}");
    assert!(token.is_some());
    assert_eq!(got.as_deref(), Some(payload.as_bytes()));
    assert_eq!(*deliveries, Some(1));
    let info = job_info(con, "mail:17");
    assert_eq!(text(&info["state"]).as_deref(), Some("inflight"));
    assert_eq!(text(&info["worker"]).as_deref(), Some("w1"));
    wait_until_server_time(con, token.unwrap() + 1);
    // Redelivered from the in-flight set: the payload is still there.
    let second = poll_jobs(con, HELD, "60000", "3");
    assert_eq!(second[0].3.as_deref(), Some(payload.as_bytes()));
    assert_eq!(second[0].4, Some(2));
    // The worker fails: NACK with a reason, retried now.
    let token = second[0].2.unwrap().to_string();
    let nacked: i64 = query(
        con,
        &[
            "DELAY.NACK",
            HELD,
            Q,
            "mail:17",
            "0",
            "TOKEN",
            &token,
            "DATA",
            DATA,
            "REASON",
            "SMTP 451: try again",
        ],
    );
    assert_eq!(nacked, 1);
    let info = job_info(con, "mail:17");
    assert_eq!(text(&info["state"]).as_deref(), Some("queued"));
    assert_eq!(
        text(&info["last-reason"]).as_deref(),
        Some("SMTP 451: try again")
    );
    assert_eq!(text(&info["worker"]), None, "no holder once handed back");
    assert_eq!(int(&info["deliveries"]), Some(2));
    let third = poll_jobs(con, Q, "60000", "3");
    assert_eq!(third[0].4, Some(3));
    let token = third[0].2.unwrap().to_string();
    let _: i64 = query(
        con,
        &[
            "DELAY.NACK",
            HELD,
            Q,
            "mail:17",
            "0",
            "TOKEN",
            &token,
            "DATA",
            DATA,
            "REASON",
            "SMTP 550: no such user",
        ],
    );
    // Delivered 3 times: the next poll buries it, with its history.
    assert!(poll_jobs(con, Q, "60000", "3").is_empty());
    let info = job_info(con, "mail:17");
    assert_eq!(text(&info["state"]).as_deref(), Some("dead"));
    assert_eq!(text(&info["payload"]).as_deref(), Some(payload));
    assert_eq!(int(&info["deliveries"]), Some(3), "died after 3 tries");
    assert_eq!(
        text(&info["last-reason"]).as_deref(),
        Some("SMTP 550: no such user")
    );
    let died: f64 = query(con, &["ZSCORE", DEAD, "mail:17"]);
    assert!(died > 1e12, "{died}");
    // Retried: back in the queue with its payload; its count starts over.
    let retried: i64 = query(
        con,
        &[
            "DELAY.RETRY",
            DEAD,
            Q,
            "DATA",
            DATA,
            "TASKS",
            "mail:17",
            "nobody",
        ],
    );
    assert_eq!(retried, 1);
    let info = job_info(con, "mail:17");
    assert_eq!(text(&info["state"]).as_deref(), Some("queued"));
    assert_eq!(int(&info["deliveries"]), None);
    assert_eq!(
        text(&info["last-reason"]).as_deref(),
        Some("SMTP 550: no such user")
    );
    let fourth = poll_jobs(con, Q, "60000", "3");
    assert_eq!(fourth[0].3.as_deref(), Some(payload.as_bytes()));
    assert_eq!(fourth[0].4, Some(1));
    // Done: ACK removes the task, its count and its data together.
    let token = fourth[0].2.unwrap().to_string();
    let acked: i64 = query(
        con,
        &[
            "DELAY.ACK",
            HELD,
            "DELIVERIES",
            COUNTS,
            "DATA",
            DATA,
            "LEASES",
            "mail:17",
            &token,
        ],
    );
    assert_eq!(acked, 1);
    for key in [Q, HELD, DEAD, COUNTS, DATA] {
        assert_eq!(query::<i64>(con, &["EXISTS", key]), 0, "{key} left behind");
    }
}

#[test]
fn a_job_keeps_its_payload_and_history_through_every_state_and_leaves_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    lifecycle(&mut con);
}

#[test]
fn a_job_replicates_to_replicas_without_zkit_and_replays_from_the_aof() {
    let (master, replicas) = master_and_replicas();
    let mut con = master.connect();
    lifecycle(&mut con);
    // Leave data behind for the replicas to hold: a job waiting, one dead,
    // a paused queue.
    add(
        &mut con,
        &[
            "WITHIN",
            "60000",
            "JOBS",
            "0",
            "a",
            "payload a",
            "0",
            "b",
            "payload b",
        ],
    );
    let _: i64 = query(&mut con, &["DELAY.PAUSE", Q, DATA]);
    let expected = assert_replicas_match(&master, &replicas);
    assert!(expected.iter().any(|(key, _)| key == DATA));

    let server = aof_server();
    let mut con = server.connect();
    lifecycle(&mut con);
    add(&mut con, &["JOBS", "0", "c", "payload c"]);
    drop(con);
    assert_aof_replays_without_module(server);
}

#[test]
fn keep_replace_and_extend_decide_what_a_second_add_of_a_task_does() {
    let server = Server::start();
    let mut con = server.connect();
    // Due times an hour out and later, in ms past `base`.
    let base = server_time_ms(&mut con) + 3_600_000;
    let at = |ms: i64| (base + ms).to_string();
    let due = |con: &mut Connection, task: &str| -> Option<f64> {
        let score: Option<f64> = query(con, &["ZSCORE", Q, task]);
        score.map(|s| s - base as f64)
    };
    let payload = |con: &mut Connection, task: &str| -> Option<String> {
        query(con, &["HGET", DATA, &format!("p:{task}")])
    };
    assert_eq!(add(&mut con, &["JOBS", &at(5000), "t", "one"]), [1]);
    // KEEP is the default: the task stays as it was, and the reply says so.
    assert_eq!(add(&mut con, &["JOBS", &at(9000), "t", "two"]), [0]);
    assert_eq!(add(&mut con, &["KEEP", "JOBS", &at(1000), "t", "two"]), [0]);
    assert_eq!(
        (due(&mut con, "t"), payload(&mut con, "t")),
        (Some(5000.0), Some("one".into()))
    );
    // REPLACE: the new due time (earlier or later) and payload.
    assert_eq!(
        add(&mut con, &["REPLACE", "JOBS", &at(1000), "t", "two"]),
        [2]
    );
    assert_eq!(
        (due(&mut con, "t"), payload(&mut con, "t")),
        (Some(1000.0), Some("two".into()))
    );
    // EXTEND (debounce): the due time moves out, never in; the payload is
    // replaced when it moves.
    assert_eq!(
        add(&mut con, &["EXTEND", "JOBS", &at(8000), "t", "three"]),
        [2]
    );
    assert_eq!(
        (due(&mut con, "t"), payload(&mut con, "t")),
        (Some(8000.0), Some("three".into()))
    );
    assert_eq!(
        add(&mut con, &["EXTEND", "JOBS", &at(2000), "t", "four"]),
        [0]
    );
    assert_eq!(
        (due(&mut con, "t"), payload(&mut con, "t")),
        (Some(8000.0), Some("three".into()))
    );
    // A task a worker holds is never touched, whatever the rule.
    assert_eq!(add(&mut con, &["JOBS", "0", "run", "r1"]), [1]);
    let claimed: Vec<Job> = query(
        &mut con,
        &[
            "DELAY.POLL",
            Q,
            "LEASE",
            HELD,
            "60000",
            "DATA",
            DATA,
            "WITHDATA",
        ],
    );
    assert_eq!(claimed[0].0, "run");
    for rule in ["KEEP", "REPLACE", "EXTEND"] {
        let replies: Vec<i64> = query(
            &mut con,
            &[
                "DELAY.ADD",
                Q,
                "DATA",
                DATA,
                "INFLIGHT",
                HELD,
                rule,
                "JOBS",
                &at(9000),
                "run",
                "r2",
            ],
        );
        assert_eq!(replies, [0], "{rule}");
    }
    assert_eq!(due(&mut con, "run"), None);
    assert_eq!(payload(&mut con, "run"), Some("r1".into()));
    // A batch: one reply per task; a task twice in one call is added once.
    assert_eq!(
        add(
            &mut con,
            &[
                "TASKS",
                &at(100),
                "x",
                &at(200),
                "y",
                &at(300),
                "x",
                &at(400),
                "t"
            ]
        ),
        [1, 1, 0, 0]
    );
}

#[test]
fn a_queue_that_is_its_own_in_flight_set_touches_no_task_it_holds() {
    // A visibility-timeout queue (INFLIGHT names the queue): a queued task
    // and a held one look alike, so every task the queue holds counts as
    // held, also one added earlier in the same call, and whether the
    // queue existed before the call or not.
    let server = Server::start();
    let mut con = server.connect();
    for existed in [false, true] {
        if existed {
            let _: Vec<i64> = query(&mut con, &cmdline("DELAY.ADD {v}:q TASKS 0 old"));
        }
        let call = "DELAY.ADD {v}:q INFLIGHT {v}:q REPLACE TASKS 0 cron 0 cron 0 old 0 new";
        let replies: Vec<i64> = query(&mut con, &cmdline(call));
        let old = if existed { 0 } else { 1 };
        assert_eq!(replies, [1, 0, old, 1], "existed: {existed}");
        let queued: Vec<String> = query(&mut con, &cmdline("ZRANGE {v}:q 0 -1"));
        assert_eq!(queued.len(), 3, "{queued:?}");
        let _: i64 = query(&mut con, &cmdline("DEL {v}:q"));
    }
}

#[test]
fn a_job_not_started_by_its_deadline_is_not_delivered() {
    let server = Server::start();
    let mut con = server.connect();
    let now = server_time_ms(&mut con);
    let past = (now - 1000).to_string();
    // A due time past (0 included, the usual "now") is due now, and WITHIN
    // counts from then: 500 ms to start, not 500 ms from a second ago.
    assert_eq!(
        add(
            &mut con,
            &["WITHIN", "500", "JOBS", &past, "prompt", "P", "0", "prompt2", "P2"]
        ),
        [1, 1]
    );
    let deadline = |con: &mut Connection, task: &str| int(&job_info(con, task)["deadline-ms"]);
    let prompt_deadline = deadline(&mut con, "prompt").expect("a deadline");
    assert!(
        prompt_deadline >= now + 500 && deadline(&mut con, "prompt2") >= Some(prompt_deadline),
        "WITHIN counts from the time the tasks were added ({now}): {prompt_deadline}"
    );
    let claimed = poll_jobs(&mut con, Q, "60000", "5");
    assert_eq!(
        claimed.iter().map(|j| j.0.as_str()).collect::<Vec<_>>(),
        ["prompt", "prompt2"]
    );
    // Started: its deadline no longer applies (a redelivery after it).
    assert_eq!(deadline(&mut con, "prompt"), None);
    // Too late: 1 ms to start, and a poll after it.
    assert_eq!(
        add(
            &mut con,
            &["WITHIN", "1", "JOBS", "0", "late", "L", "0", "late2", "L2"]
        ),
        [1, 1]
    );
    assert_eq!(
        add(&mut con, &["WITHIN", "600000", "JOBS", "0", "fresh", "F"]),
        [1]
    );
    wait_past_arrivals(&mut con);
    let late_deadline = deadline(&mut con, "late2").expect("a deadline");
    wait_until_server_time(&mut con, late_deadline + 1);
    // With dead letters: dead, reason "expired"; the fresh one delivered.
    let claimed = poll_jobs(&mut con, Q, "60000", "5");
    assert_eq!(
        claimed.iter().map(|j| j.0.as_str()).collect::<Vec<_>>(),
        ["fresh"]
    );
    let info = job_info(&mut con, "late");
    assert_eq!(text(&info["state"]).as_deref(), Some("dead"));
    assert_eq!(text(&info["last-reason"]).as_deref(), Some("expired"));
    assert_eq!(text(&info["payload"]).as_deref(), Some("L"));
    assert_eq!(int(&info["deliveries"]), Some(0));
    // Without dead letters: dropped, data and all.
    assert_eq!(
        add(&mut con, &["WITHIN", "1", "JOBS", &past, "gone", "G"]),
        [1]
    );
    let gone_deadline = deadline(&mut con, "gone").expect("a deadline");
    wait_until_server_time(&mut con, gone_deadline + 1);
    let claimed: Vec<Job> = query(&mut con, &["DELAY.POLL", Q, "DATA", DATA, "WITHDATA"]);
    assert!(claimed.is_empty(), "{claimed:?}");
    assert_eq!(query::<Option<f64>>(&mut con, &["ZSCORE", Q, "gone"]), None);
    assert_eq!(
        query::<Option<String>>(&mut con, &["HGET", DATA, "p:gone"]),
        None
    );
}

#[test]
fn a_thousand_tasks_due_in_one_millisecond_come_out_in_arrival_order() {
    let server = Server::start();
    let mut con = server.connect();
    // Due a few seconds out, so every add lands before it.
    let due_ms = server_time_ms(&mut con) + 3000;
    let due = due_ms.to_string();
    let names: Vec<String> = (0..1000).map(|i| format!("t{}", 999 - i)).collect();
    // Half in one call, then one call each (pipelined): arrival order either
    // way, whatever the ids.
    let mut first = vec!["DELAY.ADD", Q, "TASKS"];
    for name in &names[..500] {
        first.extend([due.as_str(), name.as_str()]);
    }
    let replies: Vec<i64> = query(&mut con, &first);
    assert!(replies.iter().all(|&r| r == 1));
    let mut pipe = redis::pipe();
    for name in &names[500..] {
        let words = ["DELAY.ADD", Q, "TASKS", &due, name].map(str::as_bytes);
        pipe.add_command(command(&mut con, &words));
    }
    let replies: Vec<Vec<i64>> = pipe.query(&mut con).unwrap();
    assert!(replies.iter().all(|r| r == &[1]));
    let scores: Vec<(String, f64)> = query(&mut con, &["ZRANGE", Q, "0", "-1", "WITHSCORES"]);
    assert!(
        scores
            .iter()
            .all(|(_, score)| score.floor() == due_ms as f64),
        "every task is due in the millisecond given"
    );
    wait_until_server_time(&mut con, due_ms + 1);
    let mut out: Vec<String> = Vec::new();
    loop {
        let batch: Vec<(String, f64)> = query(&mut con, &["DELAY.POLL", Q, "COUNT", "128"]);
        if batch.is_empty() {
            break;
        }
        out.extend(batch.into_iter().map(|(task, _)| task));
    }
    assert_eq!(out, names);
}

#[test]
fn dead_letters_stay_within_their_bounds_under_a_flood_of_failures() {
    let server = Server::start();
    let mut con = server.connect();
    set_zkit_config(&mut con, "dead-letters-max", 50);
    let mut most = 0;
    for round in 0..10 {
        let mut words = vec!["JOBS".to_string()];
        for i in 0..40 {
            words.extend(["0".to_string(), format!("bad:{round}:{i}"), "x".repeat(100)]);
        }
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        add(&mut con, &words);
        // Every delivery fails at once: one try each, then dead.
        loop {
            let claimed = poll_jobs(&mut con, Q, "60000", "1");
            if claimed.is_empty() {
                break;
            }
            for job in claimed {
                let token = job.2.unwrap().to_string();
                let _: i64 = query(
                    &mut con,
                    &[
                        "DELAY.NACK",
                        HELD,
                        Q,
                        &job.0,
                        "0",
                        "TOKEN",
                        &token,
                        "DATA",
                        DATA,
                        "REASON",
                        "boom",
                    ],
                );
            }
            let dead: usize = query(&mut con, &["ZCARD", DEAD]);
            most = most.max(dead);
            assert!(dead <= 50, "{dead} dead tasks, bound 50");
        }
    }
    assert_eq!(most, 50);
    // The data of trimmed tasks went with them: 50 dead tasks, 4 fields each
    // (payload, reason, deliveries at death... and nothing else).
    let fields = hash_len(&mut con);
    assert_eq!(fields, 50 * 3, "{fields} fields for 50 dead tasks");
    set_zkit_config(&mut con, "dead-letters-max", 0);
}

/// A worker's blocking poll of the paused queue, in a thread of its own.
fn blocked_worker(server: &Server) -> thread::JoinHandle<Option<Vec<Job>>> {
    let mut con = server.connect();
    thread::spawn(move || {
        query(
            &mut con,
            &[
                "DELAY.BPOLL",
                Q,
                "0",
                "LEASE",
                HELD,
                "60000",
                "DATA",
                DATA,
                "WITHDATA",
            ],
        )
    })
}

#[test]
fn a_paused_queue_delivers_nothing_to_blocked_workers_until_resumed() {
    let server = Server::start();
    let mut con = server.connect();
    assert_eq!(query::<i64>(&mut con, &["DELAY.PAUSE", Q, DATA]), 1);
    assert_eq!(query::<i64>(&mut con, &["DELAY.PAUSE", Q, DATA]), 0);
    // The library cannot block (docs/functions.md): its workers poll.
    let blocking = !functions_engine();
    let workers: Vec<_> = match blocking {
        true => (0..20).map(|_| blocked_worker(&server)).collect(),
        false => Vec::new(),
    };
    if blocking {
        wait_blocked(&server, 20);
    }
    let words: Vec<String> = (0..20)
        .flat_map(|i| ["0".to_string(), format!("j{i}"), format!("p{i}")])
        .collect();
    let mut command = vec!["JOBS"];
    command.extend(words.iter().map(String::as_str));
    add(&mut con, &command);
    // A poll that names the data sees the pause too.
    let polled: Vec<Job> = query(&mut con, &["DELAY.POLL", Q, "DATA", DATA, "WITHDATA"]);
    assert!(polled.is_empty());
    assert_eq!(paused_stat(&mut con), Some(1));
    // Still paused after a while: every worker still blocked, every task queued.
    let later = server_time_ms(&mut con) + 300;
    wait_until_server_time(&mut con, later);
    if blocking {
        wait_blocked(&server, 20);
    }
    assert_eq!(query::<i64>(&mut con, &["ZCARD", Q]), 20);
    assert_eq!(query::<i64>(&mut con, &["DELAY.RESUME", Q, DATA]), 1);
    let mut got: Vec<String> = match blocking {
        true => workers
            .into_iter()
            .map(|w| w.join().unwrap().expect("served").remove(0).0)
            .collect(),
        false => {
            let polled: Vec<Job> = query(
                &mut con,
                &[
                    "DELAY.POLL",
                    Q,
                    "COUNT",
                    "20",
                    "LEASE",
                    HELD,
                    "60000",
                    "DATA",
                    DATA,
                    "WITHDATA",
                ],
            );
            polled.into_iter().map(|job| job.0).collect()
        }
    };
    got.sort();
    let mut want: Vec<String> = (0..20).map(|i| format!("j{i}")).collect();
    want.sort();
    assert_eq!(got, want);
    assert_eq!(query::<i64>(&mut con, &["DELAY.RESUME", Q, DATA]), 0);
    assert_eq!(paused_stat(&mut con), Some(0));
}

/// DELAY.STATS's `paused` field.
fn paused_stat(con: &mut Connection) -> Option<i64> {
    let fields: Vec<Value> = query(con, &["DELAY.STATS", Q, "DATA", DATA]);
    let at = fields
        .iter()
        .position(|f| f == &Value::BulkString(b"paused".to_vec()))
        .expect("a paused field");
    int(&fields[at + 1])
}

/// The refusal of a DATA key that is also one of the call's sorted sets.
const SHARED_DATA: &str = "ERR the DATA hash must differ from the call's sorted sets";

#[test]
fn job_errors_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    add(&mut con, &["JOBS", "0", "a", "x"]);
    let _: () = query(&mut con, &["SET", "str", "v"]);
    set_zkit_config(&mut con, "job-payload-max-bytes", 4);
    let lines = [
        ("DELAY.ADD q JOBS 0 t p", "ERR JOBS needs DATA"),
        ("DELAY.ADD q WITHIN 10 TASKS 0 t", "ERR WITHIN needs DATA"),
        (
            "DELAY.ADD q DATA d WITHIN 0 TASKS 0 t",
            "ERR WITHIN must be between 1",
        ),
        ("DELAY.ADD q TASKS -1 t", "ERR due-ms must be a unix ms"),
        (
            "DELAY.ADD q TASKS 9007199254740992 t",
            "ERR due-ms must be a unix ms",
        ),
        ("DELAY.ADD q TASKS soon t", "ERR value is not an integer"),
        (
            "DELAY.ADD q DATA d JOBS 0 t 12345",
            "ERR a payload of 5 bytes is more than zkit.job-payload-max-bytes (4)",
        ),
        ("DELAY.ADD q DATA str JOBS 0 t p", "WRONGTYPE"),
        ("DELAY.ADD str TASKS 0 t", "WRONGTYPE"),
        ("DELAY.ADD q INFLIGHT str TASKS 0 t", "WRONGTYPE"),
        ("DELAY.ADD q KEEP REPLACE TASKS 0 t", "ERR syntax error"),
        ("DELAY.ADD q TASKS 0", "ERR syntax error"),
        ("DELAY.POLL q WITHDATA", "ERR WITHDATA needs DATA"),
        ("DELAY.POLL q LEASE h 10 WORKER w", "ERR WORKER needs DATA"),
        ("DELAY.POLL q DATA d WORKER w", "ERR WORKER needs LEASE"),
        ("DELAY.POLL q DATA str", "WRONGTYPE"),
        ("DELAY.NACK h q t 0 REASON r", "ERR REASON needs DATA"),
        ("DELAY.NACK h q t 0 DATA str", "WRONGTYPE"),
        ("DELAY.ACK h DATA str TASKS t", "WRONGTYPE"),
        ("DELAY.PAUSE q", "ERR wrong number of arguments"),
        ("DELAY.PAUSE q str", "WRONGTYPE"),
        ("DELAY.RETRY dead q DATA str TASKS t", "WRONGTYPE"),
        ("DELAY.JOB q t DATA str", "WRONGTYPE"),
        ("DELAY.STATS q DATA str", "WRONGTYPE"),
        // One key cannot be the hash and one of the call's sorted sets,
        // even while it does not exist: refused before anything is written.
        (
            "DELAY.POLL {jobs} LEASE {jobs}:h 60000 DATA {jobs}:h",
            SHARED_DATA,
        ),
        (
            "DELAY.POLL {jobs} LEASE {jobs}:h 60000 DEADLETTER {jobs}:x {jobs}:n 1 DATA {jobs}:n",
            SHARED_DATA,
        ),
        ("DELAY.ADD q DATA q JOBS 0 t p", SHARED_DATA),
        ("DELAY.ADD q DATA h INFLIGHT h TASKS 0 t", SHARED_DATA),
        ("DELAY.ACK h DATA h TASKS t", SHARED_DATA),
        ("DELAY.ACK h DELIVERIES n DATA n TASKS t", SHARED_DATA),
        ("DELAY.NACK h q t 0 DATA q", SHARED_DATA),
        ("DELAY.RETRY dead q DATA dead TASKS t", SHARED_DATA),
        ("DELAY.PAUSE q q", SHARED_DATA),
        ("DELAY.RESUME q q", SHARED_DATA),
    ];
    let words: Vec<Vec<&str>> = lines.iter().map(|(line, _)| cmdline(line)).collect();
    let cases: Vec<(&[&str], &str)> = words
        .iter()
        .zip(&lines)
        .map(|(words, (_, expected))| (words.as_slice(), *expected))
        .collect();
    assert_errors_change_nothing(&mut con, &cases);
    set_zkit_config(&mut con, "job-payload-max-bytes", 524288);
}

#[test]
fn a_task_named_like_a_keyword_or_a_field_is_still_a_task() {
    let server = Server::start();
    let mut con = server.connect();
    let tasks = ["JOBS", "DATA", "paused", "p:x", "", "WITHIN"];
    let mut words = vec!["JOBS"];
    for task in tasks {
        words.extend(["0", task, task]);
    }
    assert_eq!(add(&mut con, &words), [1; 6]);
    wait_past_arrivals(&mut con);
    // "paused" is a task's id, not the queue's state.
    let stats_paused = job_info(&mut con, "paused");
    assert_eq!(text(&stats_paused["payload"]).as_deref(), Some("paused"));
    let claimed: Vec<Job> = query(
        &mut con,
        &["DELAY.POLL", Q, "COUNT", "10", "DATA", DATA, "WITHDATA"],
    );
    let mut got: Vec<(String, Option<Vec<u8>>)> = claimed.into_iter().map(|j| (j.0, j.3)).collect();
    got.sort();
    let mut want: Vec<(String, Option<Vec<u8>>)> = tasks
        .iter()
        .map(|t| (t.to_string(), Some(t.as_bytes().to_vec())))
        .collect();
    want.sort();
    assert_eq!(got, want);
    // Polled without a lease: done, data and all.
    assert_eq!(hash_len(&mut con), 0);
}

/// The keys of a call: COMMAND GETKEYS for the module, the library's
/// `zkit_keys` (what FCALL must declare) for the library.
fn keys_of(con: &mut Connection, call: &[&str]) -> Vec<String> {
    let mut words = match functions_engine() {
        true => vec!["FCALL_RO", "zkit_keys", "0"],
        false => vec!["COMMAND", "GETKEYS"],
    };
    words.extend_from_slice(call);
    query(con, &words)
}

#[test]
fn jobs_commands_declare_every_key_they_touch() {
    // Every key is declared wherever it stands, and a task or payload
    // spelled DATA is no key.
    let server = Server::start();
    let mut con = server.connect();
    let keys = keys_of(
        &mut con,
        &[
            "DELAY.ADD",
            "q",
            "DATA",
            "d",
            "INFLIGHT",
            "h",
            "JOBS",
            "0",
            "DATA",
            "x",
        ],
    );
    assert_eq!(keys, ["q", "d", "h"]);
    let keys = keys_of(
        &mut con,
        &[
            "DELAY.POLL",
            "q",
            "LEASE",
            "h",
            "10",
            "DATA",
            "d",
            "WORKER",
            "DATA",
        ],
    );
    assert_eq!(keys, ["q", "h", "d"]);
}
