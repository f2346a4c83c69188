//! DELAY.* against a real redis-server with zkit loaded.

use std::collections::HashSet;
use std::thread;
use std::time::Duration;

use crate::common::client::{cmdline, err, ok, query, spawn_call, syntax_error, words};
use crate::common::data::{
    assert_errors_change_nothing, db_snapshot, server_time_ms, wait_until_server_time, zset_dump,
};
use crate::common::keyspace::{event_pairs, keyspace_events, watch_survives};
use crate::common::replication::{
    aof_server, assert_aof_replays_without_module, assert_replicas_match, master_and_replicas,
};
use crate::common::{stat, wait_blocked, wait_for, Server};
use redis::{Connection, Value};

type Tasks = Vec<(String, f64)>;

fn poll(con: &mut Connection, words: &[&str]) -> Tasks {
    let mut command = vec!["DELAY.POLL"];
    command.extend_from_slice(words);
    query(con, &command)
}

fn bpoll(con: &mut Connection, words: &[&str]) -> Option<Tasks> {
    let mut command = vec!["DELAY.BPOLL"];
    command.extend_from_slice(words);
    query(con, &command)
}

fn names(tasks: &[(String, f64)]) -> Vec<&str> {
    tasks.iter().map(|(m, _)| m.as_str()).collect()
}

fn schedule(con: &mut Connection, key: &str, due_ms: i64, task: &str) {
    ok(con, &["ZADD", key, &due_ms.to_string(), task]);
}

const HOUR: i64 = 3_600_000;

/// A `DELAY.BPOLL key 0` on a connection of its own, once the server has
/// blocked it (the only blocked client).
fn blocked_poller(server: &Server, key: &'static str) -> thread::JoinHandle<Option<Tasks>> {
    let mut con = server.connect();
    let waiter = thread::spawn(move || bpoll(&mut con, &[key, "0"]));
    wait_blocked(server, 1);
    waiter
}

#[test]
fn due_tasks_are_claimed_once_earliest_first() {
    let server = Server::start();
    let mut con = server.connect();
    let now = server_time_ms(&mut con);
    // t1 is overdue, t2 is due now, t3 and t4 run in an hour.
    schedule(&mut con, "tasks", now - 3000, "t1");
    schedule(&mut con, "tasks", now, "t2");
    schedule(&mut con, "tasks", now + HOUR, "t3");
    schedule(&mut con, "tasks", now + HOUR, "t4");
    let claimed = poll(&mut con, &["tasks"]);
    assert_eq!(claimed, vec![("t1".to_string(), (now - 3000) as f64)]);
    // The usual recipe's bug: ZRANGEBYSCORE without ZREM returns t1 again. Here t1
    // is gone: the next poll gets t2, then nothing is due.
    assert_eq!(names(&poll(&mut con, &["tasks", "COUNT", "10"])), ["t2"]);
    assert_eq!(poll(&mut con, &["tasks", "COUNT", "10"]), vec![]);
    assert_eq!(
        query::<Vec<String>>(&mut con, &["ZRANGE", "tasks", "0", "-1"]),
        ["t3", "t4"]
    );
}

#[test]
fn count_takes_the_earliest_and_ties_go_by_member() {
    let server = Server::start();
    let mut con = server.connect();
    for (due, task) in [
        ("-inf", "asap"),
        ("5", "b"),
        ("5", "a"),
        ("1", "z"),
        ("7.5", "frac"),
    ] {
        ok(&mut con, &["ZADD", "q", due, task]);
    }
    let claimed = poll(&mut con, &["q", "COUNT", "3"]);
    assert_eq!(
        claimed,
        vec![
            ("asap".to_string(), f64::NEG_INFINITY),
            ("z".to_string(), 1.0),
            ("a".to_string(), 5.0)
        ]
    );
    let claimed = poll(&mut con, &["q", "COUNT", "100"]);
    assert_eq!(
        claimed,
        vec![("b".to_string(), 5.0), ("frac".to_string(), 7.5)]
    );
    // The last claim deleted the key, as ZREM does.
    assert_eq!(query::<i64>(&mut con, &["EXISTS", "q"]), 0);
    assert_eq!(poll(&mut con, &["q"]), vec![]);
}

#[test]
fn lease_moves_tasks_in_flight_until_acked() {
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["ZADD", "{q}", "1", "a", "2", "b", "3", "c"]);
    let before = server_time_ms(&mut con);
    let claimed = poll(
        &mut con,
        &["{q}", "COUNT", "2", "LEASE", "{q}:inflight", "30000"],
    );
    let after = server_time_ms(&mut con);
    assert_eq!(names(&claimed), ["a", "b"]);
    let held: Vec<(String, f64)> = query(
        &mut con,
        &["ZRANGE", "{q}:inflight", "0", "-1", "WITHSCORES"],
    );
    assert_eq!(names(&held), ["a", "b"]);
    for (_, until) in &held {
        let until = *until as i64;
        assert!((before + 30000..=after + 30000).contains(&until), "{until}");
    }
    // Not due yet in flight: nobody else gets them.
    assert_eq!(poll(&mut con, &["{q}:inflight"]), vec![]);
    let acked: i64 = query(
        &mut con,
        &["DELAY.ACK", "{q}:inflight", "TASKS", "a", "a", "zzz"],
    );
    assert_eq!(acked, 1);
    let acked: i64 = query(&mut con, &["DELAY.ACK", "{q}:inflight", "TASKS", "b"]);
    assert_eq!(acked, 1);
    assert_eq!(query::<i64>(&mut con, &["EXISTS", "{q}:inflight"]), 0);
    let acked: i64 = query(&mut con, &["DELAY.ACK", "{q}:inflight", "TASKS", "b"]);
    assert_eq!(acked, 0);
}

#[test]
fn a_lease_into_the_queue_itself_is_a_visibility_timeout() {
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["ZADD", "q", "1", "a", "2", "b"]);
    // Leases long enough to outlast the three polls on a loaded machine.
    assert_eq!(names(&poll(&mut con, &["q", "LEASE", "q", "2000"])), ["a"]);
    assert_eq!(names(&poll(&mut con, &["q", "LEASE", "q", "2000"])), ["b"]);
    assert_eq!(poll(&mut con, &["q", "LEASE", "q", "2000"]), vec![]);
    assert_eq!(query::<i64>(&mut con, &["ZCARD", "q"]), 2);
    // Unacked, a comes back when its lease ends.
    let mut again = vec![];
    wait_for(Duration::from_secs(20), || {
        again = poll(&mut con, &["q"]);
        !again.is_empty()
    });
    assert_eq!(names(&again), ["a"]);
}

#[test]
fn many_workers_claim_every_task_exactly_once_and_dead_leases_come_back() {
    let server = Server::start();
    let mut con = server.connect();
    let tasks: Vec<String> = (0..300).map(|i| format!("task{i:03}")).collect();
    for chunk in tasks.chunks(100) {
        let mut zadd = vec!["ZADD".to_string(), "{jobs}".to_string()];
        for (i, t) in chunk.iter().enumerate() {
            zadd.push(i.to_string());
            zadd.push(t.clone());
        }
        let zadd: Vec<&str> = zadd.iter().map(String::as_str).collect();
        ok(&mut con, &zadd);
    }
    // Eight workers drain the queue with leases; the odd ones "die" without
    // acknowledging what they took.
    let workers: Vec<_> = (0..8)
        .map(|w| {
            let mut con = server.connect();
            thread::spawn(move || {
                let mut taken = Vec::new();
                loop {
                    let count = (1 + taken.len() % 3).to_string();
                    let claimed = poll(
                        &mut con,
                        &["{jobs}", "COUNT", &count, "LEASE", "{jobs}:inflight", "300"],
                    );
                    if claimed.is_empty() {
                        return taken;
                    }
                    for (task, _) in claimed {
                        if w % 2 == 0 {
                            let acked: i64 =
                                query(&mut con, &["DELAY.ACK", "{jobs}:inflight", "TASKS", &task]);
                            assert_eq!(acked, 1, "{task} was not in flight");
                        }
                        taken.push((w, task));
                    }
                }
            })
        })
        .collect();
    let taken: Vec<(usize, String)> = workers
        .into_iter()
        .flat_map(|w| w.join().unwrap())
        .collect();
    let claimed: HashSet<&String> = taken.iter().map(|(_, t)| t).collect();
    assert_eq!(taken.len(), 300, "a task was claimed twice");
    assert_eq!(claimed, tasks.iter().collect());
    let abandoned: HashSet<String> = taken
        .iter()
        .filter(|(w, _)| w % 2 == 1)
        .map(|(_, t)| t.clone())
        .collect();
    assert!(!abandoned.is_empty());

    // Recovery workers poll the in-flight set: each abandoned task comes back
    // once its lease ends, to exactly one of them; acknowledged ones never.
    let recoverers: Vec<_> = (0..4)
        .map(|_| {
            let mut con = server.connect();
            let expected = abandoned.len();
            let server_probe = server.connect();
            thread::spawn(move || {
                let mut probe = server_probe;
                let mut got = Vec::new();
                wait_for(Duration::from_secs(30), || {
                    for (task, _) in poll(&mut con, &["{jobs}:inflight", "COUNT", "7"]) {
                        got.push(task);
                    }
                    query::<i64>(&mut probe, &["EXISTS", "{jobs}:inflight"]) == 0
                        || got.len() == expected
                });
                got
            })
        })
        .collect();
    let redelivered: Vec<String> = recoverers
        .into_iter()
        .flat_map(|r| r.join().unwrap())
        .collect();
    assert_eq!(redelivered.len(), abandoned.len(), "a task came back twice");
    assert_eq!(redelivered.into_iter().collect::<HashSet<_>>(), abandoned);
}

#[test]
fn bpoll_serves_at_once_when_a_task_is_due() {
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["ZADD", "q", "1", "a"]);
    assert_eq!(
        bpoll(&mut con, &["q", "0"]),
        Some(vec![("a".to_string(), 1.0)])
    );
    // Nothing due and a short timeout: nil, like BZPOPMIN.
    assert_eq!(bpoll(&mut con, &["q", "50"]), None);
}

#[test]
fn bpoll_wakes_when_a_task_is_added_to_a_new_or_existing_queue() {
    let server = Server::start();
    let mut con = server.connect();
    // New key: native ZADD creates it.
    let waiter = blocked_poller(&server, "fresh");
    schedule(&mut con, "fresh", 0, "first");
    assert_eq!(
        waiter.join().unwrap(),
        Some(vec![("first".to_string(), 0.0)])
    );

    // Existing key holding a task due in an hour: a ZADD of a due task must
    // wake the poller (native ZADD does not signal an existing key).
    let now = server_time_ms(&mut con);
    schedule(&mut con, "busy", now + HOUR, "later");
    let waiter = blocked_poller(&server, "busy");
    schedule(&mut con, "busy", now - 10, "urgent");
    assert_eq!(names(&waiter.join().unwrap().unwrap()), ["urgent"]);
    assert_eq!(
        query::<Vec<String>>(&mut con, &["ZRANGE", "busy", "0", "-1"]),
        ["later"]
    );
}

/// Every kind of write that can put a due task into an existing queue wakes
/// a poller waiting on it: native writes, inside MULTI/EXEC and scripts too,
/// and zkit's own.
#[test]
fn every_write_that_adds_a_due_task_to_an_existing_queue_wakes_the_poller() {
    let server = Server::start();
    let mut con = server.connect();
    let writes: &[(&str, &[&[&str]])] = &[
        ("ZADD", &[&["ZADD", "q", "0", "urgent"]]),
        ("ZINCRBY", &[&["ZINCRBY", "q", "-1e15", "urgent"]]),
        // Geo scores are geohashes: this corner's is below any unix ms.
        ("GEOADD", &[&["GEOADD", "q", "-180", "-85", "urgent"]]),
        (
            "ZUNIONSTORE",
            &[
                &["ZADD", "src", "0", "urgent"],
                &["ZUNIONSTORE", "q", "2", "q", "src"],
            ],
        ),
        (
            "RENAME",
            &[&["ZADD", "src", "0", "urgent"], &["RENAME", "src", "q"]],
        ),
        (
            "EVAL",
            &[&[
                "EVAL",
                "return redis.call('ZADD', KEYS[1], 0, 'urgent')",
                "1",
                "q",
            ]],
        ),
        ("FEED.ADD", &[&["FEED.ADD", "q", "0", "urgent"]]),
    ];
    for (name, commands) in writes {
        let now = server_time_ms(&mut con);
        schedule(&mut con, "q", now + HOUR, "later");
        let waiter = blocked_poller(&server, "q");
        for command in *commands {
            ok(&mut con, command);
        }
        assert_eq!(
            names(&waiter.join().unwrap().unwrap()),
            ["urgent"],
            "{name}"
        );
        ok(&mut con, &["DEL", "q", "src"]);
    }

    // MULTI/EXEC: the ZADD is read (queued) long before EXEC runs it.
    let now = server_time_ms(&mut con);
    schedule(&mut con, "q", now + HOUR, "later");
    let waiter = blocked_poller(&server, "q");
    ok(&mut con, &["MULTI"]);
    ok(&mut con, &["ZADD", "q", "0", "urgent"]);
    thread::sleep(Duration::from_millis(200));
    wait_blocked(&server, 1);
    ok(&mut con, &["EXEC"]);
    assert_eq!(
        names(&waiter.join().unwrap().unwrap()),
        ["urgent"],
        "MULTI/EXEC"
    );
}

#[test]
fn bpoll_wakes_when_the_earliest_task_falls_due() {
    let server = Server::start();
    let mut con = server.connect();
    let now = server_time_ms(&mut con);
    schedule(&mut con, "q", now + 300, "soon");
    schedule(&mut con, "q", now + HOUR, "later");
    let waiter = {
        let mut con = server.connect();
        thread::spawn(move || bpoll(&mut con, &["q", "0", "COUNT", "5"]))
    };
    assert_eq!(names(&waiter.join().unwrap().unwrap()), ["soon"]);

    // A task added earlier than the one the timer waits for re-arms it.
    let now = server_time_ms(&mut con);
    let waiter = blocked_poller(&server, "q");
    schedule(&mut con, "q", now + 200, "sooner");
    assert_eq!(names(&waiter.join().unwrap().unwrap()), ["sooner"]);
    assert_eq!(
        query::<Vec<String>>(&mut con, &["ZRANGE", "q", "0", "-1"]),
        ["later"]
    );
}

#[test]
fn bpoll_wakes_in_the_database_it_blocked_in() {
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["SELECT", "3"]);
    let now = server_time_ms(&mut con);
    schedule(&mut con, "q", now + 200, "timed");
    let spawn_in_db3 = |words: &'static [&'static str]| {
        let mut con = server.connect();
        ok(&mut con, &["SELECT", "3"]);
        thread::spawn(move || bpoll(&mut con, words))
    };
    // The timer fires in db 3, where the task is (db 0 has no "q").
    assert_eq!(
        names(&spawn_in_db3(&["q", "0"]).join().unwrap().unwrap()),
        ["timed"]
    );
    // A ZADD in db 3 wakes it; the same key in db 0 does not.
    schedule(&mut con, "q", now + HOUR, "later");
    let waiter = spawn_in_db3(&["q", "0"]);
    wait_blocked(&server, 1);
    let mut db0 = server.connect();
    schedule(&mut db0, "q", 0, "other-db");
    schedule(&mut con, "q", 0, "here");
    assert_eq!(names(&waiter.join().unwrap().unwrap()), ["here"]);
    assert_eq!(
        query::<Vec<String>>(&mut db0, &["ZRANGE", "q", "0", "-1"]),
        ["other-db"]
    );
}

#[test]
fn each_added_task_wakes_exactly_one_of_many_pollers() {
    let server = Server::start();
    let mut con = server.connect();
    let waiters: Vec<_> = (0..6)
        .map(|_| {
            let mut con = server.connect();
            thread::spawn(move || bpoll(&mut con, &["q", "0", "LEASE", "q:inflight", "60000"]))
        })
        .collect();
    wait_blocked(&server, 6);
    for i in 0..6 {
        schedule(&mut con, "q", i, &format!("t{i}"));
    }
    let mut got: Vec<String> = waiters
        .into_iter()
        .flat_map(|w| w.join().unwrap().unwrap())
        .map(|(m, _)| m)
        .collect();
    got.sort();
    assert_eq!(got, ["t0", "t1", "t2", "t3", "t4", "t5"]);
    assert_eq!(query::<i64>(&mut con, &["ZCARD", "q:inflight"]), 6);
    assert_eq!(query::<i64>(&mut con, &["EXISTS", "q"]), 0);
}

#[test]
fn bpoll_does_not_block_inside_multi_or_scripts() {
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["MULTI"]);
    ok(&mut con, &["DELAY.BPOLL", "q", "0"]);
    ok(&mut con, &["ZADD", "q", "1", "a"]);
    ok(&mut con, &["DELAY.BPOLL", "q", "0"]);
    let exec = ok(&mut con, &["EXEC"]);
    let Value::Array(replies) = exec else {
        panic!("{exec:?}")
    };
    // Nothing due: nil at once, as BZPOPMIN answers inside MULTI.
    assert_eq!(replies[0], Value::Nil);
    let served: Tasks = redis::from_redis_value(replies[2].clone()).unwrap();
    assert_eq!(served, vec![("a".to_string(), 1.0)]);
    let script = "return redis.call('DELAY.BPOLL', KEYS[1], '0')";
    assert_eq!(ok(&mut con, &["EVAL", script, "1", "q"]), Value::Nil);
    ok(&mut con, &["ZADD", "q", "2", "b"]);
    let from_lua: Tasks = query(&mut con, &["EVAL", script, "1", "q"]);
    assert_eq!(from_lua, vec![("b".to_string(), 2.0)]);
}

/// A BPOLL in a thread on its own connection, with that connection's id.
fn spawn_bpoll(
    server: &Server,
    words: &'static [&'static str],
) -> (i64, thread::JoinHandle<redis::RedisResult<Option<Tasks>>>) {
    let mut con = server.connect();
    let id: i64 = query(&mut con, &["CLIENT", "ID"]);
    let handle = thread::spawn(move || {
        let mut command = redis::cmd("DELAY.BPOLL");
        for w in words {
            command.arg(*w);
        }
        command.query(&mut con)
    });
    (id, handle)
}

#[test]
fn a_disconnected_unblocked_or_timed_out_poller_claims_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    // Each task falls due well after its poller is seen blocked and dealt
    // with, even on a loaded machine: the wake-up timer is still armed then.
    let schedule_soon = |con: &mut Connection, key: &str| {
        let now = server_time_ms(con);
        schedule(con, key, now + 1500, "task");
    };
    // Killed while its wake-up timer is armed: the timer must not claim for it.
    schedule_soon(&mut con, "killed");
    let (id, waiter) = spawn_bpoll(&server, &["killed", "0"]);
    wait_blocked(&server, 1);
    let killed: i64 = query(&mut con, &["CLIENT", "KILL", "ID", &id.to_string()]);
    assert_eq!(killed, 1);
    assert!(waiter.join().unwrap().is_err());
    wait_blocked(&server, 0);
    // CLIENT UNBLOCK answers like a timeout.
    schedule_soon(&mut con, "unblocked");
    let (id, waiter) = spawn_bpoll(&server, &["unblocked", "0"]);
    wait_blocked(&server, 1);
    let unblocked: i64 = query(&mut con, &["CLIENT", "UNBLOCK", &id.to_string()]);
    assert_eq!(unblocked, 1);
    assert_eq!(waiter.join().unwrap().unwrap(), None);
    // A timeout shorter than the wait.
    schedule_soon(&mut con, "timed-out");
    let (_, waiter) = spawn_bpoll(&server, &["timed-out", "50"]);
    assert_eq!(waiter.join().unwrap().unwrap(), None);
    // Every task is still there for the next worker once due.
    for key in ["killed", "unblocked", "timed-out"] {
        let mut claimed = vec![];
        wait_for(Duration::from_secs(20), || {
            claimed = poll(&mut con, &[key]);
            !claimed.is_empty()
        });
        assert_eq!(names(&claimed), ["task"], "{key}");
    }
    assert_eq!(query::<String>(&mut con, &["PING"]), "PONG");
}

#[test]
fn errors_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["ZADD", "q", "1", "a", "2", "b"]);
    ok(&mut con, &["ZADD", "held", "1", "x"]);
    ok(&mut con, &["SET", "str", "x"]);
    let count = "ERR count must be a positive integer";
    let lease = "ERR lease must be between 1 and 3155760000000 ms";
    let cases: &[(&[&str], &str)] = &[
        (&["DELAY.POLL", "str"], "WRONGTYPE"),
        (&["DELAY.POLL", "q", "LEASE", "str", "100"], "WRONGTYPE"),
        (&["DELAY.BPOLL", "str", "0"], "WRONGTYPE"),
        (
            &["DELAY.BPOLL", "q", "0", "LEASE", "str", "100"],
            "WRONGTYPE",
        ),
        (&["DELAY.ACK", "str", "TASKS", "a"], "WRONGTYPE"),
        (&["DELAY.POLL"], "ERR wrong number of arguments"),
        (&["DELAY.BPOLL", "q"], "ERR wrong number of arguments"),
        (&["DELAY.ACK", "held"], "ERR wrong number of arguments"),
        (&["DELAY.POLL", "q", "COUNT", "0"], count),
        (&["DELAY.POLL", "q", "COUNT", "-1"], count),
        (
            &["DELAY.POLL", "q", "COUNT", "x"],
            "ERR value is not an integer",
        ),
        (&["DELAY.POLL", "q", "COUNT"], "ERR syntax error"),
        (
            &["DELAY.POLL", "q", "COUNT", "1", "COUNT", "2"],
            "ERR syntax error",
        ),
        (&["DELAY.POLL", "q", "LEASE", "held"], "ERR syntax error"),
        (&["DELAY.POLL", "q", "LEASE", "held", "0"], lease),
        (&["DELAY.POLL", "q", "LEASE", "held", "-5"], lease),
        (
            &["DELAY.POLL", "q", "LEASE", "held", "3155760000001"],
            lease,
        ),
        (
            &["DELAY.POLL", "q", "LEASE", "held", "1.5"],
            "ERR value is not an integer",
        ),
        (
            &[
                "DELAY.POLL",
                "q",
                "LEASE",
                "held",
                "10",
                "LEASE",
                "other",
                "10",
            ],
            "ERR syntax error",
        ),
        (&["DELAY.POLL", "q", "WITHSCORES"], "ERR syntax error"),
        (&["DELAY.BPOLL", "q", "-1"], "ERR timeout is negative"),
        (
            &["DELAY.BPOLL", "q", "3155760000001"],
            "ERR timeout is out of range",
        ),
        (&["DELAY.BPOLL", "q", "0.5"], "ERR value is not an integer"),
        (&["DELAY.BPOLL", "q", "0", "COUNT", "0"], count),
        (&["DELAY.BPOLL", "q", "0", "NOWAIT"], "ERR syntax error"),
    ];
    assert_errors_change_nothing(&mut con, cases);
}

#[test]
fn writes_replicate_as_native_commands_to_replicas_with_and_without_zkit() {
    let (master, replicas) = master_and_replicas();
    let mut con = master.connect();
    let many: Vec<String> = (0..1200).map(|i| format!("t{i}")).collect();
    for t in &many {
        ok(&mut con, &["ZADD", "q", "1", t]);
    }
    // More than a replication chunk at once, with a lease.
    assert_eq!(
        poll(
            &mut con,
            &["q", "COUNT", "700", "LEASE", "inflight", "60000"]
        )
        .len(),
        700
    );
    assert_eq!(poll(&mut con, &["q", "COUNT", "3"]).len(), 3);
    let acked: i64 = query(
        &mut con,
        &["DELAY.ACK", "inflight", "TASKS", "t0", "t1", "nope"],
    );
    assert_eq!(acked, 2);
    // A BPOLL served at once, without blocking.
    assert_eq!(bpoll(&mut con, &["q", "0", "COUNT", "2"]).unwrap().len(), 2);
    // Emptying a queue deletes it on the replicas too.
    ok(&mut con, &["ZADD", "small", "1", "x"]);
    poll(&mut con, &["small"]);
    // Served from a blocked state: by a ZADD signal, then by the timer.
    let waiter = {
        let mut con = master.connect();
        thread::spawn(move || bpoll(&mut con, &["b", "0", "LEASE", "b:held", "60000"]))
    };
    wait_blocked(&master, 1);
    ok(&mut con, &["ZADD", "b", "1", "signalled", "2", "stays"]);
    assert_eq!(names(&waiter.join().unwrap().unwrap()), ["signalled"]);
    let now = server_time_ms(&mut con);
    ok(
        &mut con,
        &[
            "ZADD",
            "timed",
            &(now + 150).to_string(),
            "x",
            &(now + HOUR).to_string(),
            "y",
        ],
    );
    let waiter = {
        let mut con = master.connect();
        thread::spawn(move || bpoll(&mut con, &["timed", "0"]))
    };
    assert_eq!(names(&waiter.join().unwrap().unwrap()), ["x"]);
    let expected = assert_replicas_match(&master, &replicas);
    let keys: Vec<&str> = expected.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["b", "b:held", "inflight", "q", "timed"]);
}

#[test]
fn aof_replays_on_a_server_without_zkit() {
    let server = aof_server();
    let mut con = server.connect();
    ok(
        &mut con,
        &["ZADD", "q", "1", "a", "2", "b", "3", "c", "4", "d"],
    );
    poll(&mut con, &["q", "LEASE", "held", "60000"]);
    poll(&mut con, &["q", "COUNT", "2", "LEASE", "held", "60000"]);
    let _: i64 = query(&mut con, &["DELAY.ACK", "held", "TASKS", "b"]);
    let waiter = {
        let mut con = server.connect();
        thread::spawn(move || bpoll(&mut con, &["later", "0", "LEASE", "held", "60000"]))
    };
    wait_blocked(&server, 1);
    ok(&mut con, &["ZADD", "later", "5", "e"]);
    assert_eq!(names(&waiter.join().unwrap().unwrap()), ["e"]);
    assert_eq!(zset_dump(&mut con, "held").len(), 3);
    drop(con);
    assert_aof_replays_without_module(server);
}

#[test]
fn writes_fire_the_native_keyspace_events() {
    let server = Server::start();
    let events = keyspace_events(&server, |con| {
        ok(con, &["ZADD", "q", "1", "a", "2", "b", "3", "c"]);
        poll(con, &["q"]);
        poll(con, &["q", "LEASE", "held", "1000"]);
        poll(con, &["q", "COUNT", "5"]);
        poll(con, &["q"]); // nothing: no event
        let _: i64 = query(con, &["DELAY.ACK", "held", "TASKS", "b"]);
        let _: i64 = query(con, &["DELAY.ACK", "held", "TASKS", "b"]); // nothing: no event
    });
    let events: Vec<(&str, &str)> = events
        .iter()
        .map(|(c, k)| (c.as_str(), k.as_str()))
        .collect();
    assert_eq!(
        events,
        [
            ("__keyevent@0__:zadd", "q"),
            ("__keyevent@0__:zrem", "q"),
            ("__keyevent@0__:zrem", "q"),
            ("__keyevent@0__:zadd", "held"),
            ("__keyevent@0__:zrem", "q"),
            ("__keyevent@0__:del", "q"),
            ("__keyevent@0__:zrem", "held"),
            ("__keyevent@0__:del", "held"),
        ]
    );
}

#[test]
fn polls_that_claim_nothing_keep_watch() {
    let server = Server::start();
    let mut con = server.connect();
    let now = server_time_ms(&mut con);
    schedule(&mut con, "q", now + HOUR, "later");
    assert!(watch_survives(&server, "q", |other| {
        assert_eq!(poll(other, &["q"]), vec![]);
    }));
    // A claim does invalidate it.
    schedule(&mut con, "q", 0, "now");
    assert!(!watch_survives(&server, "q", |other| {
        assert_eq!(names(&poll(other, &["q"])), ["now"]);
    }));
}

// ---- retries (DELAY.NACK), lease renewal (DELAY.TOUCH), dead letters -----

/// The score of `task` in `key`, if there.
fn score_of(con: &mut Connection, key: &str, task: &str) -> Option<f64> {
    query(con, &["ZSCORE", key, task])
}

#[test]
fn a_failed_task_is_handed_back_with_nack() {
    let server = Server::start();
    let mut con = server.connect();
    ok(
        &mut con,
        &["ZADD", "{jobs}", "1", "mail:17", "2", "mail:18"],
    );
    let lease = ["LEASE", "{jobs}:inflight", "60000"];
    let mut words = vec!["{jobs}", "COUNT", "2"];
    words.extend_from_slice(&lease);
    assert_eq!(names(&poll(&mut con, &words)), ["mail:17", "mail:18"]);
    // The worker failed: retry in a minute.
    let before = server_time_ms(&mut con);
    let nack = |con: &mut Connection, task: &str, delay: &str| -> i64 {
        query(
            con,
            &["DELAY.NACK", "{jobs}:inflight", "{jobs}", task, delay],
        )
    };
    assert_eq!(nack(&mut con, "mail:17", "60000"), 1);
    let due = score_of(&mut con, "{jobs}", "mail:17").unwrap() as i64;
    assert!(
        (before + 60000..=server_time_ms(&mut con) + 60000).contains(&due),
        "{due}"
    );
    assert_eq!(score_of(&mut con, "{jobs}:inflight", "mail:17"), None);
    // Not in flight any more: nothing changes.
    assert_eq!(nack(&mut con, "mail:17", "0"), 0);
    assert_eq!(nack(&mut con, "nobody", "0"), 0);
    assert_eq!(score_of(&mut con, "{jobs}", "mail:17"), Some(due as f64));
    // 0: due now, the next poll delivers it.
    assert_eq!(nack(&mut con, "mail:18", "0"), 1);
    assert_eq!(names(&poll(&mut con, &["{jobs}"])), ["mail:18"]);
    assert_eq!(query::<i64>(&mut con, &["EXISTS", "{jobs}:inflight"]), 0);

    // A lease that has ended is lost: NACK leaves the task to be delivered
    // again, as any expired lease.
    ok(&mut con, &["ZADD", "q", "1", "late"]);
    poll(&mut con, &["q", "LEASE", "q:held", "50"]);
    thread::sleep(Duration::from_millis(100));
    assert_eq!(
        query::<i64>(&mut con, &["DELAY.NACK", "q:held", "q", "late", "0"]),
        0
    );
    assert_eq!(names(&poll(&mut con, &["q:held"])), ["late"]);

    // A queue that is its own in-flight set (a visibility timeout): the task
    // only moves to its new due time.
    ok(&mut con, &["ZADD", "vq", "1", "v"]);
    poll(&mut con, &["vq", "LEASE", "vq", "60000"]);
    assert_eq!(
        query::<i64>(&mut con, &["DELAY.NACK", "vq", "vq", "v", "5000"]),
        1
    );
    let due = score_of(&mut con, "vq", "v").unwrap() as i64;
    assert!(due - server_time_ms(&mut con) <= 5000, "{due}");
    assert_eq!(query::<i64>(&mut con, &["ZCARD", "vq"]), 1);
}

#[test]
fn touch_extends_a_lease_until_it_has_ended() {
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["ZADD", "q", "1", "long", "2", "short"]);
    // A lease that outlasts the TOUCH below on a loaded machine.
    poll(&mut con, &["q", "COUNT", "2", "LEASE", "q:held", "2000"]);
    let before = server_time_ms(&mut con);
    let touched: i64 = query(&mut con, &["DELAY.TOUCH", "q:held", "long", "60000"]);
    assert_eq!(touched, 1);
    let until = score_of(&mut con, "q:held", "long").unwrap() as i64;
    assert!((before + 60000..=server_time_ms(&mut con) + 60000).contains(&until));
    // The untouched lease ends and its task comes back; the touched one not.
    let mut back = vec![];
    wait_for(Duration::from_secs(20), || {
        back = poll(&mut con, &["q:held", "COUNT", "5"]);
        !back.is_empty()
    });
    assert_eq!(names(&back), ["short"]);
    // short's lease has ended (it was delivered again, without a lease):
    // its worker learns it must stop.
    assert_eq!(
        query::<i64>(&mut con, &["DELAY.TOUCH", "q:held", "short", "60000"]),
        0
    );
    assert_eq!(
        query::<i64>(&mut con, &["DELAY.TOUCH", "q:held", "nobody", "60000"]),
        0
    );
    ok(&mut con, &["ZADD", "q:held", "1", "expired"]);
    assert_eq!(
        query::<i64>(&mut con, &["DELAY.TOUCH", "q:held", "expired", "60000"]),
        0
    );
    assert_eq!(score_of(&mut con, "q:held", "expired"), Some(1.0));
}

// ---- fenced leases (WITHTOKENS, LEASES, TOKEN) ------------------------------

type Delivery = (String, f64, i64);

fn poll_fenced(con: &mut Connection, words: &[&str]) -> Vec<Delivery> {
    let mut command = vec!["DELAY.POLL"];
    command.extend_from_slice(words);
    command.push("WITHTOKENS");
    query(con, &command)
}

/// BullMQ's "lock is stolen" case: a worker stalls past its lease, another
/// takes the task over, and the first one's late ACK, NACK and TOUCH must
/// change nothing.
#[test]
fn a_stale_worker_cannot_act_on_a_delivery_another_worker_took_over() {
    let server = Server::start();
    let mut con = server.connect();
    let dead_letters = ["DEADLETTER", "{jobs}:dead", "{jobs}:deliveries", "5"];
    ok(&mut con, &["ZADD", "{jobs}", "0", "t"]);
    let mut first = vec!["{jobs}", "LEASE", "{jobs}:inflight", "100"];
    first.extend_from_slice(&dead_letters);
    let claimed = poll_fenced(&mut con, &first);
    assert_eq!(claimed.len(), 1);
    let (task, due, stale) = claimed[0].clone();
    assert_eq!((task.as_str(), due), ("t", 0.0));
    // The token is the lease's end, as the in-flight set scores the task.
    assert_eq!(
        score_of(&mut con, "{jobs}:inflight", "t"),
        Some(stale as f64)
    );
    wait_until_server_time(&mut con, stale + 1);
    let mut second = vec!["{jobs}:inflight", "LEASE", "{jobs}:inflight", "60000"];
    second.extend_from_slice(&dead_letters);
    let taken = poll_fenced(&mut con, &second);
    assert_eq!(taken.len(), 1);
    let (task, due, current) = taken[0].clone();
    assert_eq!((task.as_str(), due), ("t", stale as f64));
    assert!(current > stale, "{current} <= {stale}");
    let before = db_snapshot(&mut con);
    let stale_text = stale.to_string();
    // Worker 1, late: every call answers 0 and changes nothing.
    let acked: i64 = query(
        &mut con,
        &[
            "DELAY.ACK",
            "{jobs}:inflight",
            "DELIVERIES",
            "{jobs}:deliveries",
            "LEASES",
            "t",
            &stale_text,
        ],
    );
    assert_eq!(acked, 0);
    let nacked: i64 = query(
        &mut con,
        &[
            "DELAY.NACK",
            "{jobs}:inflight",
            "{jobs}",
            "t",
            "0",
            "TOKEN",
            &stale_text,
        ],
    );
    assert_eq!(nacked, 0);
    let touched: i64 = query(
        &mut con,
        &[
            "DELAY.TOUCH",
            "{jobs}:inflight",
            "t",
            "60000",
            "TOKEN",
            &stale_text,
        ],
    );
    assert_eq!(touched, 0);
    assert_eq!(db_snapshot(&mut con), before);
    assert_eq!(score_of(&mut con, "{jobs}:deliveries", "t"), Some(2.0));
    // Worker 2 extends its own lease and gets the delivery's new token; the
    // token it had before names nothing any more.
    let current_text = current.to_string();
    let renewed: i64 = query(
        &mut con,
        &[
            "DELAY.TOUCH",
            "{jobs}:inflight",
            "t",
            "120000",
            "TOKEN",
            &current_text,
        ],
    );
    assert!(renewed > current, "{renewed} <= {current}");
    assert_eq!(
        score_of(&mut con, "{jobs}:inflight", "t"),
        Some(renewed as f64)
    );
    let acked: i64 = query(
        &mut con,
        &["DELAY.ACK", "{jobs}:inflight", "LEASES", "t", &current_text],
    );
    assert_eq!(acked, 0);
    let renewed_text = renewed.to_string();
    let acked: i64 = query(
        &mut con,
        &[
            "DELAY.ACK",
            "{jobs}:inflight",
            "DELIVERIES",
            "{jobs}:deliveries",
            "LEASES",
            "t",
            &renewed_text,
        ],
    );
    assert_eq!(acked, 1);
    for key in [
        "{jobs}",
        "{jobs}:inflight",
        "{jobs}:deliveries",
        "{jobs}:dead",
    ] {
        assert_eq!(query::<i64>(&mut con, &["EXISTS", key]), 0, "{key}");
    }
}

#[test]
fn a_fenced_nack_hands_back_only_its_own_delivery() {
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["ZADD", "{q}", "1", "a", "2", "b"]);
    let claimed = poll_fenced(
        &mut con,
        &["{q}", "COUNT", "2", "LEASE", "{q}:held", "60000"],
    );
    assert_eq!(claimed.len(), 2);
    // One claim, one lease: both tasks share its token.
    assert_eq!(claimed[0].2, claimed[1].2);
    let token = claimed[0].2.to_string();
    let wrong = (claimed[0].2 - 1).to_string();
    let nack = |con: &mut Connection, task: &str, token: &str| -> i64 {
        query(
            con,
            &["DELAY.NACK", "{q}:held", "{q}", task, "0", "TOKEN", token],
        )
    };
    assert_eq!(nack(&mut con, "a", &wrong), 0);
    assert_eq!(score_of(&mut con, "{q}", "a"), None);
    assert_eq!(nack(&mut con, "a", &token), 1);
    assert_eq!(score_of(&mut con, "{q}:held", "a"), None);
    assert!(score_of(&mut con, "{q}", "a").is_some());
    // Handed back: the same token names no delivery now.
    assert_eq!(nack(&mut con, "a", &token), 0);
    // A fenced ACK of a lease that has ended, with no other delivery since,
    // still finishes the task: its work is done and nobody else holds it.
    ok(&mut con, &["ZADD", "{q}:held", "5", "late"]);
    let acked: i64 = query(
        &mut con,
        &["DELAY.ACK", "{q}:held", "LEASES", "late", "5", "b", &wrong],
    );
    assert_eq!(acked, 1);
    assert_eq!(
        score_of(&mut con, "{q}:held", "b"),
        Some(claimed[1].2 as f64)
    );
    // A fenced NACK or TOUCH of a lease that has ended refuses, as without a
    // token: the task is delivered again.
    assert_eq!(
        query::<i64>(
            &mut con,
            &["DELAY.TOUCH", "{q}:held", "x", "1000", "TOKEN", "5"]
        ),
        0
    );
    // 0.4's unfenced calls act on whatever delivery holds the task.
    assert_eq!(
        query::<i64>(&mut con, &["DELAY.TOUCH", "{q}:held", "b", "60000"]),
        1
    );
    assert_eq!(
        query::<i64>(&mut con, &["DELAY.ACK", "{q}:held", "TASKS", "b"]),
        1
    );
}

#[test]
fn a_blocked_fenced_poll_is_served_with_its_token() {
    let server = Server::start();
    let mut con = server.connect();
    let mut waiting = server.connect();
    let waiter = thread::spawn(move || -> Option<Vec<Delivery>> {
        query(
            &mut waiting,
            &[
                "DELAY.BPOLL",
                "{q}",
                "0",
                "LEASE",
                "{q}:held",
                "60000",
                "WITHTOKENS",
            ],
        )
    });
    wait_blocked(&server, 1);
    ok(&mut con, &["ZADD", "{q}", "1", "job"]);
    let served = waiter.join().unwrap().expect("served, not timed out");
    assert_eq!(served.len(), 1);
    assert_eq!(served[0].0, "job");
    assert_eq!(
        score_of(&mut con, "{q}:held", "job"),
        Some(served[0].2 as f64)
    );
    // Without WITHTOKENS the reply is 0.4's, two elements a task.
    ok(&mut con, &["ZADD", "{q}", "1", "plain"]);
    let plain: Value = query(
        &mut con,
        &["DELAY.POLL", "{q}", "LEASE", "{q}:held", "60000"],
    );
    let Value::Array(tasks) = plain else {
        panic!("{plain:?}")
    };
    assert!(
        matches!(&tasks[0], Value::Array(task) if task.len() == 2),
        "{tasks:?}"
    );
}

/// One worker's poll with leases and dead letters after 3 deliveries.
const DEAD_LETTERS: [&str; 7] = [
    "LEASE",
    "{jobs}:inflight",
    "100",
    "DEADLETTER",
    "{jobs}:dead",
    "{jobs}:deliveries",
    "3",
];

#[test]
fn a_poison_task_stops_after_n_deliveries_while_the_others_flow() {
    let server = Server::start();
    let mut con = server.connect();
    let mut zadd = vec!["ZADD".to_string(), "{jobs}".to_string()];
    zadd.extend(["0".into(), "poison".into()]);
    for i in 0..20 {
        zadd.extend([(i + 1).to_string(), format!("good:{i:02}")]);
    }
    ok(&mut con, &words(&zadd));
    let mut delivered: std::collections::HashMap<String, usize> = Default::default();
    wait_for(Duration::from_secs(30), || {
        // Due tasks first, then tasks whose lease ended (the job-queue guide's loop).
        let mut tasks = poll(
            &mut con,
            &[&["{jobs}", "COUNT", "3"][..], &DEAD_LETTERS].concat(),
        );
        if tasks.is_empty() {
            tasks = poll(
                &mut con,
                &[&["{jobs}:inflight", "COUNT", "3"][..], &DEAD_LETTERS].concat(),
            );
        }
        for (task, _) in tasks {
            *delivered.entry(task.clone()).or_default() += 1;
            if task != "poison" {
                let acked: i64 = query(
                    &mut con,
                    &[
                        "DELAY.ACK",
                        "{jobs}:inflight",
                        "DELIVERIES",
                        "{jobs}:deliveries",
                        "TASKS",
                        &task,
                    ],
                );
                assert_eq!(acked, 1);
            }
        }
        query::<i64>(&mut con, &["EXISTS", "{jobs}:dead"]) == 1
    });
    assert_eq!(delivered["poison"], 3, "{delivered:?}");
    assert_eq!(delivered.len(), 21);
    assert!(delivered.iter().all(|(t, n)| t == "poison" || *n == 1));
    // The poison task rests in the dead-letter set, scored by when it died;
    // nothing else is left anywhere, counts included.
    let dead: Vec<(String, f64)> = query(
        &mut con,
        &["ZRANGE", "{jobs}:dead", "0", "-1", "WITHSCORES"],
    );
    assert_eq!(names(&dead), ["poison"]);
    assert!((dead[0].1 as i64 - server_time_ms(&mut con)).abs() < 30_000);
    let keys: Vec<String> = query(&mut con, &["KEYS", "*"]);
    assert_eq!(keys, ["{jobs}:dead"]);
    // Operators see it in INFO zkit too.
    let info: String = query(&mut con, &["INFO", "zkit"]);
    assert!(info.contains("zkit_delay_tasks_dead:1\r\n"), "{info}");
    // The poison task was handed out twice more after its first delivery.
    assert!(
        info.contains("zkit_delay_tasks_redelivered:2\r\n"),
        "{info}"
    );
}

#[test]
fn deliveries_are_counted_for_operators_and_nack_keeps_the_count() {
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["ZADD", "{jobs}", "1", "a", "2", "b"]);
    let clause = [
        "LEASE",
        "{jobs}:inflight",
        "60000",
        "DEADLETTER",
        "{jobs}:dead",
        "{jobs}:n",
        "2",
    ];
    poll(&mut con, &[&["{jobs}", "COUNT", "2"][..], &clause].concat());
    let counts: Vec<(String, f64)> =
        query(&mut con, &["ZRANGE", "{jobs}:n", "0", "-1", "WITHSCORES"]);
    assert_eq!(counts, [("a".to_string(), 1.0), ("b".to_string(), 1.0)]);
    // A retry keeps its count: the second delivery is the last.
    let moved: i64 = query(
        &mut con,
        &["DELAY.NACK", "{jobs}:inflight", "{jobs}", "a", "0"],
    );
    assert_eq!(moved, 1);
    assert_eq!(
        names(&poll(&mut con, &[&["{jobs}"][..], &clause].concat())),
        ["a"]
    );
    assert_eq!(score_of(&mut con, "{jobs}:n", "a"), Some(2.0));
    let info: String = query(&mut con, &["INFO", "zkit"]);
    assert!(
        info.contains("zkit_delay_tasks_redelivered:1\r\n"),
        "the retry is a redelivery: {info}"
    );
    let moved: i64 = query(
        &mut con,
        &["DELAY.NACK", "{jobs}:inflight", "{jobs}", "a", "0"],
    );
    assert_eq!(moved, 1);
    assert!(poll(&mut con, &[&["{jobs}"][..], &clause].concat()).is_empty());
    assert_eq!(
        names(&query::<Tasks>(
            &mut con,
            &["ZRANGE", "{jobs}:dead", "0", "-1", "WITHSCORES"]
        )),
        ["a"]
    );
    assert_eq!(score_of(&mut con, "{jobs}:n", "a"), None);
    // An ACK without DELIVERIES leaves the count (the operator sees it);
    // with it, the count goes. A task not in flight keeps its count.
    let acked: i64 = query(
        &mut con,
        &[
            "DELAY.ACK",
            "{jobs}:inflight",
            "DELIVERIES",
            "{jobs}:n",
            "TASKS",
            "nobody",
        ],
    );
    assert_eq!(acked, 0);
    assert_eq!(score_of(&mut con, "{jobs}:n", "b"), Some(1.0));
    let acked: i64 = query(
        &mut con,
        &[
            "DELAY.ACK",
            "{jobs}:inflight",
            "DELIVERIES",
            "{jobs}:n",
            "TASKS",
            "b",
        ],
    );
    assert_eq!(acked, 1);
    assert_eq!(query::<i64>(&mut con, &["EXISTS", "{jobs}:n"]), 0);
}

/// DELAY.ACK's syntax, as its syntax errors give it.
const ACK_USAGE: &str = "DELAY.ACK inflight [DELIVERIES deliveries] [DATA data] <TASKS task [task ...] | LEASES task token [task token ...]>";

#[test]
fn a_task_named_like_a_keyword_is_still_a_task() {
    let server = Server::start();
    let mut con = server.connect();
    let far = "9999999999999";
    ok(
        &mut con,
        &["ZADD", "held", far, "DELIVERIES", far, "TASKS", far, "a"],
    );
    ok(
        &mut con,
        &["ZADD", "n", "1", "DELIVERIES", "1", "tasks", "1", "a"],
    );
    // After TASKS every word is a task, last or not, in any case.
    assert_eq!(
        query::<i64>(&mut con, &["DELAY.ACK", "held", "TASKS", "a", "DELIVERIES"]),
        2
    );
    assert_eq!(
        query::<Vec<String>>(&mut con, &["ZRANGE", "held", "0", "-1"]),
        ["TASKS"]
    );
    ok(&mut con, &["ZADD", "held", far, "DELIVERIES", far, "tasks"]);
    assert_eq!(
        query::<i64>(
            &mut con,
            &[
                "DELAY.ACK",
                "held",
                "DELIVERIES",
                "n",
                "TASKS",
                "DELIVERIES",
                "n",
                "tasks"
            ]
        ),
        2
    );
    assert_eq!(
        query::<Vec<String>>(&mut con, &["ZRANGE", "held", "0", "-1"]),
        ["TASKS"]
    );
    assert_eq!(
        query::<Vec<String>>(&mut con, &["ZRANGE", "n", "0", "-1"]),
        ["a"]
    );
    // The 0.2 form, tasks before the option, is refused with the 0.3 usage
    // rather than read another way; nothing changes.
    let unexpected_a = syntax_error("unexpected 'a'", ACK_USAGE);
    assert_errors_change_nothing(
        &mut con,
        &[
            (
                &["DELAY.ACK", "held", "a", "DELIVERIES", "n"],
                &unexpected_a,
            ),
            (
                &["DELAY.ACK", "held", "TASKS"],
                &syntax_error("TASKS needs at least one value", ACK_USAGE),
            ),
            (&["DELAY.ACK", "held", "a", "TASKS"], &unexpected_a),
        ],
    );
    // (COMMAND GETKEYS of such calls: tests/integration/commands_json.rs.)
}

#[test]
fn a_blocked_poll_skips_dead_tasks_and_moves_them_when_it_delivers() {
    let (master, replicas) = master_and_replicas();
    let mut con = master.connect();
    ok(&mut con, &["ZADD", "{q}", "1", "poison"]);
    // A lease long enough for the worker below to block before it ends, on
    // a loaded machine too.
    let clause = [
        "LEASE",
        "{q}:held",
        "1500",
        "DEADLETTER",
        "{q}:dead",
        "{q}:n",
        "1",
    ];
    assert_eq!(
        names(&poll(&mut con, &[&["{q}"][..], &clause].concat())),
        ["poison"]
    );
    let lease_ends = server_time_ms(&mut con) + 1500;
    // A recovery worker blocks on the in-flight set. poison's lease ends
    // (delivered once: dead), which does not wake the worker: a blocked
    // poll writes only when it delivers.
    let worker = spawn_call(
        &master,
        &[&["DELAY.BPOLL", "{q}:held", "0"][..], &clause].concat(),
    );
    wait_blocked(&master, 1);
    wait_until_server_time(&mut con, lease_ends + 100);
    wait_blocked(&master, 1);
    assert_eq!(score_of(&mut con, "{q}:n", "poison"), Some(1.0));
    // The next due task is served, and poison moves to the dead letters in
    // the same claim (served from the blocked state, after the write gate).
    // (Due after poison, so the claim meets poison first.)
    let now = server_time_ms(&mut con).to_string();
    ok(&mut con, &["ZADD", "{q}:held", &now, "next"]);
    let served: Tasks = redis::from_redis_value(worker.join().unwrap().unwrap()).unwrap();
    assert_eq!(names(&served), ["next"]);
    assert_eq!(score_of(&mut con, "{q}:n", "next"), Some(1.0));
    assert_eq!(score_of(&mut con, "{q}:n", "poison"), None);
    assert!(score_of(&mut con, "{q}:dead", "poison").is_some());
    // A plain poll moves dead tasks at once, delivering or not.
    ok(&mut con, &["ZADD", "{q}:held", "0", "poison2"]);
    ok(&mut con, &["ZADD", "{q}:n", "1", "poison2"]);
    assert!(poll(&mut con, &[&["{q}:held"][..], &clause].concat()).is_empty());
    assert!(score_of(&mut con, "{q}:dead", "poison2").is_some());
    assert_replicas_match(&master, &replicas);
}

#[test]
fn new_delay_errors_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["ZADD", "q", "1", "a"]);
    ok(&mut con, &["ZADD", "held", "9999999999999", "x"]);
    ok(&mut con, &["SET", "str", "v"]);
    let needs_lease = "ERR DEADLETTER needs LEASE";
    let shared = "ERR the dead-letter and deliveries sets must differ";
    let max = "ERR max-deliveries must be a positive integer";
    let delay = "ERR delay must be between 0 and 3155760000000 ms";
    let lease = "ERR lease must be between 1 and 3155760000000 ms";
    let not_integer = "ERR value is not an integer";
    let syntax = "ERR syntax error";
    let arity = "ERR wrong number of arguments";
    let leased = "DELAY.POLL q LEASE held 10 DEADLETTER";
    let ack_missing_tasks = syntax_error("TASKS or LEASES is missing", ACK_USAGE);
    let ack_twice = syntax_error("DELIVERIES is given twice", ACK_USAGE);
    let ack_unexpected_x = syntax_error("unexpected 'x'", ACK_USAGE);
    let needs_lease_for_tokens = "ERR WITHTOKENS needs LEASE";
    let nack_unexpected_1 = syntax_error(
        "unexpected '1'",
        "DELAY.NACK inflight queue member delay-ms [TOKEN token]",
    );
    let ack_empty_leases = syntax_error("LEASES needs at least one value", ACK_USAGE);
    let ack_unpaired = syntax_error("values come in groups of 'task token'", ACK_USAGE);
    let lines: Vec<(String, &str)> = [
        ("DELAY.POLL q DEADLETTER d n 3", needs_lease),
        ("DELAY.BPOLL q 0 DEADLETTER d n 3", needs_lease),
        (&format!("{leased} q n 3"), shared),
        (&format!("{leased} d held 3"), shared),
        (&format!("{leased} d d 3"), shared),
        ("DELAY.POLL q LEASE q 10 DEADLETTER d q 3", shared),
        (&format!("{leased} d n 0"), max),
        (&format!("{leased} d n -1"), max),
        (&format!("{leased} d n x"), not_integer),
        (&format!("{leased} d n"), syntax),
        (&format!("{leased} d n 3 DEADLETTER e m 3"), syntax),
        (&format!("{leased} str n 3"), "WRONGTYPE"),
        (&format!("{leased} d str 3"), "WRONGTYPE"),
        (
            "DELAY.BPOLL q 0 LEASE held 10 DEADLETTER d str 3",
            "WRONGTYPE",
        ),
        ("DELAY.NACK held q x", arity),
        ("DELAY.NACK held q x 0 1", &nack_unexpected_1),
        ("DELAY.NACK held q x 0 TOKEN", syntax),
        ("DELAY.NACK held q x 0 TOKEN soon", not_integer),
        ("DELAY.NACK held q x 0 TOKEN 1 TOKEN 2", syntax),
        ("DELAY.TOUCH held x 1000 TOKEN", syntax),
        ("DELAY.TOUCH held x 1000 TOKEN 1.5", not_integer),
        ("DELAY.POLL q WITHTOKENS", needs_lease_for_tokens),
        ("DELAY.BPOLL q 0 COUNT 2 WITHTOKENS", needs_lease_for_tokens),
        ("DELAY.POLL q LEASE held 10 WITHTOKENS WITHTOKENS", syntax),
        ("DELAY.ACK held LEASES", &ack_empty_leases),
        ("DELAY.ACK held LEASES x", &ack_unpaired),
        ("DELAY.ACK held LEASES x 1 y", &ack_unpaired),
        ("DELAY.ACK held LEASES x soon", not_integer),
        ("DELAY.ACK held DELIVERIES n LEASES x 1.0", not_integer),
        ("DELAY.NACK held q x -1", delay),
        ("DELAY.NACK held q x 3155760000001", delay),
        ("DELAY.NACK held q x 1.5", not_integer),
        ("DELAY.NACK held str x 0", "WRONGTYPE"),
        ("DELAY.NACK str q x 0", "WRONGTYPE"),
        ("DELAY.TOUCH held x", arity),
        ("DELAY.TOUCH held x 0", lease),
        ("DELAY.TOUCH held x -5", lease),
        ("DELAY.TOUCH held x 3155760000001", lease),
        ("DELAY.TOUCH held x soon", not_integer),
        ("DELAY.TOUCH str x 1000", "WRONGTYPE"),
        ("DELAY.ACK held DELIVERIES str TASKS x", "WRONGTYPE"),
        ("DELAY.ACK held DELIVERIES n", &ack_missing_tasks),
        (
            "DELAY.ACK held DELIVERIES n DELIVERIES m TASKS x",
            &ack_twice,
        ),
        ("DELAY.ACK held DELIVERIES TASKS x", &ack_unexpected_x),
        ("DELAY.ACK held x DELIVERIES n", &ack_unexpected_x),
    ]
    .into_iter()
    .map(|(line, expected)| (line.to_string(), expected))
    .collect();
    let words: Vec<Vec<&str>> = lines.iter().map(|(line, _)| cmdline(line)).collect();
    let cases: Vec<(&[&str], &str)> = words
        .iter()
        .zip(&lines)
        .map(|(words, (_, expected))| (words.as_slice(), *expected))
        .collect();
    assert_errors_change_nothing(&mut con, &cases);
}

#[test]
fn new_delay_writes_replicate_and_replay_without_zkit() {
    fn workload(con: &mut Connection) {
        let clause = [
            "LEASE",
            "{j}:held",
            "60000",
            "DEADLETTER",
            "{j}:dead",
            "{j}:n",
            "2",
        ];
        ok(
            con,
            &["ZADD", "{j}", "1", "a", "2", "b", "3", "c", "4", "d"],
        );
        poll(con, &[&["{j}", "COUNT", "4"][..], &clause].concat());
        let _: i64 = query(con, &["DELAY.NACK", "{j}:held", "{j}", "a", "0"]);
        let _: i64 = query(con, &["DELAY.NACK", "{j}:held", "{j}", "b", "90000"]);
        let _: i64 = query(con, &["DELAY.TOUCH", "{j}:held", "c", "120000"]);
        poll(con, &[&["{j}"][..], &clause].concat());
        let _: i64 = query(con, &["DELAY.NACK", "{j}:held", "{j}", "a", "0"]);
        // a was delivered twice: buried.
        poll(con, &[&["{j}"][..], &clause].concat());
        let _: i64 = query(
            con,
            &[
                "DELAY.ACK",
                "{j}:held",
                "DELIVERIES",
                "{j}:n",
                "TASKS",
                "c",
                "d",
            ],
        );
    }
    let (master, replicas) = master_and_replicas();
    workload(&mut master.connect());
    let data = assert_replicas_match(&master, &replicas);
    let keys: Vec<&str> = data.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["{j}", "{j}:dead", "{j}:n"]);

    let server = aof_server();
    workload(&mut server.connect());
    assert_aof_replays_without_module(server);
}

#[test]
fn new_delay_writes_fire_the_native_keyspace_events() {
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["ZADD", "q", "1", "a"]);
    let clause = ["LEASE", "held", "60000", "DEADLETTER", "dead", "n", "1"];
    let events = keyspace_events(&server, |con| {
        poll(con, &[&["q"][..], &clause].concat()); // a: delivered, counted
        let _: i64 = query(con, &["DELAY.TOUCH", "held", "a", "90000"]);
        let _: i64 = query(con, &["DELAY.NACK", "held", "q", "a", "0"]);
        let _: i64 = query(con, &["DELAY.NACK", "held", "q", "a", "0"]); // nothing
        poll(con, &[&["q"][..], &clause].concat()); // a: dead
        ok(con, &["ZADD", "q", "1", "b"]);
        poll(con, &[&["q"][..], &clause].concat()); // b: delivered, counted
        let _: i64 = query(con, &["DELAY.ACK", "held", "DELIVERIES", "n", "TASKS", "b"]);
    });
    assert_eq!(
        event_pairs(&events),
        [
            ("__keyevent@0__:zrem", "q"),
            ("__keyevent@0__:del", "q"),
            ("__keyevent@0__:zadd", "held"),
            ("__keyevent@0__:zincr", "n"),
            ("__keyevent@0__:zadd", "held"),
            ("__keyevent@0__:zrem", "held"),
            ("__keyevent@0__:del", "held"),
            ("__keyevent@0__:zadd", "q"),
            ("__keyevent@0__:zrem", "q"),
            ("__keyevent@0__:del", "q"),
            ("__keyevent@0__:zadd", "dead"),
            ("__keyevent@0__:zrem", "n"),
            ("__keyevent@0__:del", "n"),
            ("__keyevent@0__:zadd", "q"),
            ("__keyevent@0__:zrem", "q"),
            ("__keyevent@0__:del", "q"),
            ("__keyevent@0__:zadd", "held"),
            ("__keyevent@0__:zincr", "n"),
            ("__keyevent@0__:zrem", "held"),
            ("__keyevent@0__:del", "held"),
            ("__keyevent@0__:zrem", "n"),
            ("__keyevent@0__:del", "n"),
        ]
    );
}

#[test]
fn new_delay_calls_need_their_keys_in_one_slot() {
    // In a cluster every key of a call must share a slot.
    let cluster = Server::single_node_cluster();
    let mut con = cluster.connect();
    for words in [
        "DELAY.NACK {q}:held other t 0",
        "DELAY.POLL {q} LEASE {q}:held 100 DEADLETTER dead {q}:n 3",
        "DELAY.ACK {q}:held DELIVERIES n TASKS t",
    ] {
        let e = err(&mut con, &cmdline(words));
        assert!(e.starts_with("CROSSSLOT"), "{words}: {e}");
    }
    let moved: i64 = query(&mut con, &cmdline("DELAY.NACK {q}:held {q} t 0"));
    assert_eq!(moved, 0);
}

/// Loads `dead` tasks into `queue` that have used up their deliveries
/// (counted `max` in `deliveries`), due at 1..=dead (long past), in big
/// pipelined ZADDs.
fn load_exhausted_tasks(
    con: &mut Connection,
    queue: &str,
    deliveries: &str,
    dead: usize,
    max: &str,
) {
    for chunk in (1..=dead).collect::<Vec<_>>().chunks(1000) {
        let mut pipe = redis::pipe();
        let add_queue = pipe.cmd("ZADD").arg(queue);
        for i in chunk {
            add_queue.arg(*i).arg(format!("dead{i}"));
        }
        let add_counts = pipe.cmd("ZADD").arg(deliveries);
        for i in chunk {
            add_counts.arg(max).arg(format!("dead{i}"));
        }
        let _: () = pipe.query(con).expect("load exhausted tasks");
    }
}

/// `LEASE` into `{q}:held` and `DEADLETTER` into `{q}:dead`, counting in
/// `{q}:n`, after `max` deliveries.
fn dead_letters_of_q(max: &str) -> [&str; 7] {
    [
        "LEASE",
        "{q}:held",
        "60000",
        "DEADLETTER",
        "{q}:dead",
        "{q}:n",
        max,
    ]
}

#[test]
fn a_blocked_poll_serves_a_live_task_behind_100000_exhausted_ones() {
    const DEAD: usize = 100_000;
    let server = Server::start();
    let mut con = server.connect();
    let clause = dead_letters_of_q("3");
    load_exhausted_tasks(&mut con, "{q}", "{q}:n", DEAD, "3");
    // A worker blocks on the queue: its first try moves the dead tasks it
    // may move and finds nothing to deliver.
    let started = std::time::Instant::now();
    let worker = spawn_call(
        &server,
        &[&["DELAY.BPOLL", "{q}", "0"][..], &clause].concat(),
    );
    // The live task arrives, due at once, behind every dead one (a worker
    // crash loop leaves exactly this).
    let due = (DEAD + 1).to_string();
    ok(&mut con, &["ZADD", "{q}", &due, "live"]);
    let served: Tasks = redis::from_redis_value(worker.join().unwrap().unwrap()).unwrap();
    let elapsed = started.elapsed();
    assert_eq!(served, [("live".to_string(), (DEAD + 1) as f64)]);
    eprintln!("served behind {DEAD} exhausted tasks in {elapsed:?}");
    // Every dead task was moved out of its way, each once.
    let dead: usize = query(&mut con, &["ZCARD", "{q}:dead"]);
    assert_eq!(dead, DEAD);
    let queued: usize = query(&mut con, &["ZCARD", "{q}"]);
    assert_eq!(queued, 0);
    let counted: Vec<(String, f64)> =
        query(&mut con, &["ZRANGE", "{q}:n", "0", "-1", "WITHSCORES"]);
    assert_eq!(counted, [("live".to_string(), 1.0)]);
    assert_eq!(stat(&mut con, "zkit", "zkit_delay_tasks_dead"), DEAD as i64);
}

#[test]
fn a_poll_behind_many_exhausted_tasks_has_them_cleared_in_the_background() {
    const DEAD: usize = 5_500;
    let (master, replicas) = master_and_replicas();
    let aof = aof_server();
    for server in [&master, &aof] {
        let mut con = server.connect();
        let clause = dead_letters_of_q("2");
        load_exhausted_tasks(&mut con, "{q}", "{q}:n", DEAD, "2");
        let due = (DEAD + 1).to_string();
        ok(&mut con, &["ZADD", "{q}", &due, "live"]);
        // One poll moves a bounded number of dead tasks and leaves the rest
        // to the background, which clears them without another poll.
        let first = poll(&mut con, &[&["{q}"][..], &clause].concat());
        assert!(first.is_empty(), "{first:?}");
        wait_for(Duration::from_secs(60), || {
            query::<usize>(&mut con, &["ZCARD", "{q}:dead"]) == DEAD
        });
        let served = poll(&mut con, &[&["{q}"][..], &clause].concat());
        assert_eq!(names(&served), ["live"]);
        let queued: usize = query(&mut con, &["ZCARD", "{q}"]);
        assert_eq!(queued, 0);
    }
    // The background moves replicate like any write.
    assert_replicas_match(&master, &replicas);
    assert_aof_replays_without_module(aof);
}
