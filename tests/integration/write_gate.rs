//! The write gate: a DELAY.BPOLL whose task falls due while the server
//! refuses writes must write nothing and get the answer a plain DELAY.POLL
//! would get at that moment. Before the gate, a blocked poll served by its
//! timer during CLIENT PAUSE made the server abort (an assertion in
//! `propagateNow`), and with too few replicas or after a failed save it
//! claimed tasks that replicas never saw.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::client::{err, error_text, ok, query, run, spawn_call, words};
use crate::common::data::{server_time_ms, wait_until_server_time, zset_dump};
use crate::common::facts::command_stat;
use crate::common::replication::{
    aof_server, assert_aof_replays_without_module, assert_replicas_match, role,
};
use crate::common::workload::Rng;
use crate::common::{server_version, stat, wait_blocked, wait_for, Server, ServerConfig};
use redis::{Connection, Value};

type Tasks = Vec<(String, f64)>;

/// A lease long enough never to end during a test.
const LONG_LEASE: &str = "600000";
/// How far ahead a task falls due when the test must act first (pause the
/// server, refuse writes) after a worker blocked: room for a loaded machine,
/// where seeing the worker blocked can take hundreds of milliseconds.
const DUE_AFTER_SETUP_MS: i64 = 1500;
/// A pause that outlasts the due time above by as much again.
const PAUSE_MS: u64 = 3000;

/// Schedules `task` in `key`, due `in_ms` after the server's now; returns
/// its due time.
fn schedule_in(con: &mut Connection, key: &str, in_ms: i64, task: &str) -> f64 {
    let due = server_time_ms(con) + in_ms;
    ok(con, &["ZADD", key, &due.to_string(), task]);
    due as f64
}

/// The tasks a BPOLL was served.
fn served(reply: redis::RedisResult<Value>) -> Tasks {
    let value = reply.unwrap_or_else(|e| panic!("DELAY.BPOLL failed: {e}"));
    redis::from_redis_value(value).expect("DELAY.BPOLL served tasks")
}

/// The error a BPOLL was answered with.
fn refused(reply: redis::RedisResult<Value>) -> String {
    match reply {
        Ok(value) => panic!("DELAY.BPOLL should have been refused, got {value:?}"),
        Err(e) => error_text(&e),
    }
}

fn members(con: &mut Connection, key: &str) -> Vec<String> {
    query(con, &["ZRANGE", key, "0", "-1"])
}

#[test]
fn a_task_due_during_a_pause_waits_for_the_pause_to_end() {
    for mode in ["WRITE", "ALL"] {
        // An AOF and a replica to propagate to: a claim during the pause
        // would have to be propagated, which the server forbids.
        let master = aof_server();
        let replica = Server::with(ServerConfig::without_module().replica_of(&master));
        replica.wait_until_synced();
        let mut con = master.connect();
        let due = schedule_in(&mut con, "q", DUE_AFTER_SETUP_MS, "task");
        let worker = spawn_call(
            &master,
            &["DELAY.BPOLL", "q", "0", "LEASE", "q:inflight", LONG_LEASE],
        );
        wait_blocked(&master, 1);
        let paused_at = Instant::now();
        ok(&mut con, &["CLIENT", "PAUSE", &PAUSE_MS.to_string(), mode]);
        if mode == "WRITE" {
            // Reads go on: after the task fell due it is still queued, and
            // the worker still waits.
            wait_until_server_time(&mut con, due as i64 + 100);
            assert_eq!(members(&mut con, "q"), ["task"]);
            let info: String = query(&mut con, &["INFO", "clients"]);
            assert!(info.contains("blocked_clients:1\r\n"), "{info}");
        }
        assert_eq!(served(worker.join().unwrap()), vec![("task".into(), due)]);
        assert!(
            paused_at.elapsed() >= Duration::from_millis(PAUSE_MS),
            "{mode}: served during the pause"
        );
        assert_eq!(members(&mut con, "q:inflight"), ["task"]);
        assert_replicas_match(&master, std::slice::from_ref(&replica));
        drop(replica);
        assert_aof_replays_without_module(master);
    }
}

#[test]
fn unpausing_serves_the_waiting_worker_at_once() {
    let server = aof_server();
    let mut con = server.connect();
    let due = schedule_in(&mut con, "q", DUE_AFTER_SETUP_MS, "task");
    let worker = spawn_call(&server, &["DELAY.BPOLL", "q", "0"]);
    wait_blocked(&server, 1);
    ok(&mut con, &["CLIENT", "PAUSE", "60000", "WRITE"]);
    // The task falls due during the pause.
    wait_until_server_time(&mut con, due as i64 + 100);
    let unpaused_at = Instant::now();
    ok(&mut con, &["CLIENT", "UNPAUSE"]);
    let tasks = served(worker.join().unwrap());
    assert_eq!(tasks[0].0, "task");
    // Served when the pause ends, not when it would have ended (60 s): the
    // gate looks again every 50 ms while paused. (A wide bound: a loaded
    // machine is slow, but not 30 s slow.)
    assert!(unpaused_at.elapsed() < Duration::from_secs(30));
}

/// A ZADD sent during a pause is postponed and runs when the pause ends;
/// Redis 7.4 and later run command filters only when they first read a
/// command, so the waiter must look again after the pause on its own.
#[test]
fn a_task_added_during_a_pause_wakes_the_worker_when_the_pause_ends() {
    let server = aof_server();
    let mut con = server.connect();
    schedule_in(&mut con, "q", 3_600_000, "later");
    let worker = spawn_call(&server, &["DELAY.BPOLL", "q", "0"]);
    wait_blocked(&server, 1);
    ok(&mut con, &["CLIENT", "PAUSE", "60000", "WRITE"]);
    let producer = spawn_call(&server, &["ZADD", "q", "0", "urgent"]);
    thread::sleep(Duration::from_millis(300));
    let unpaused_at = Instant::now();
    ok(&mut con, &["CLIENT", "UNPAUSE"]);
    producer.join().unwrap().unwrap();
    let tasks = served(worker.join().unwrap());
    assert_eq!(tasks[0].0, "urgent");
    // Not left waiting for the 60 s pause or the hour-away task.
    assert!(unpaused_at.elapsed() < Duration::from_secs(30));
}

#[test]
fn a_timeout_during_a_pause_replies_nil_and_claims_nothing() {
    let server = aof_server();
    let mut con = server.connect();
    // Due, then timed out, both during the pause.
    let due = schedule_in(&mut con, "q", DUE_AFTER_SETUP_MS, "task");
    let timeout = (DUE_AFTER_SETUP_MS + 500).to_string();
    let worker = spawn_call(&server, &["DELAY.BPOLL", "q", &timeout]);
    wait_blocked(&server, 1);
    ok(&mut con, &["CLIENT", "PAUSE", "10000", "WRITE"]);
    assert_eq!(worker.join().unwrap().unwrap(), Value::Nil);
    assert_eq!(members(&mut con, "q"), ["task"]);
    ok(&mut con, &["CLIENT", "UNPAUSE"]);
    let tasks: Tasks = query(&mut con, &["DELAY.POLL", "q"]);
    assert_eq!(tasks, vec![("task".into(), due)]);
}

/// A worker waits for a task due in `DUE_AFTER_SETUP_MS`; `refuse` then
/// makes the server refuse writes. The worker must get the error a plain
/// DELAY.POLL gets, and the task must stay queued.
fn assert_blocked_poll_refused(server: &Server, refuse: impl FnOnce(&mut Connection), code: &str) {
    let mut con = server.connect();
    schedule_in(&mut con, "q", DUE_AFTER_SETUP_MS, "task");
    let queued = zset_dump(&mut con, "q");
    let worker = spawn_call(
        server,
        &["DELAY.BPOLL", "q", "0", "LEASE", "q:inflight", LONG_LEASE],
    );
    wait_blocked(server, 1);
    refuse(&mut con);
    let error = refused(worker.join().unwrap());
    assert!(error.starts_with(code), "{error}");
    let plain = err(
        &mut con,
        &["DELAY.POLL", "q", "LEASE", "q:inflight", LONG_LEASE],
    );
    assert_eq!(error, plain, "a plain DELAY.POLL gets the same answer");
    assert_eq!(zset_dump(&mut con, "q"), queued);
    assert_eq!(query::<i64>(&mut con, &["EXISTS", "q:inflight"]), 0);
    // Alive (MISCONF refuses PING too, so ask something else).
    assert_eq!(query::<i64>(&mut con, &["DBSIZE"]), 1);
}

#[test]
fn too_few_replicas_refuse_the_claim_with_noreplicas() {
    let server = Server::start();
    assert_blocked_poll_refused(
        &server,
        |con| {
            ok(con, &["CONFIG", "SET", "min-replicas-to-write", "1"]);
        },
        "NOREPLICAS",
    );
    // Redis 7.0 has no dry run: the gate asked with a real ZADD, which the
    // server refused before running it (no call in commandstats).
    let mut con = server.connect();
    let probes = if server_version(&mut con) < (7, 2) {
        1
    } else {
        0
    };
    assert_eq!(stat(&mut con, "zkit", "zkit_write_gate_probes_run"), probes);
    assert_eq!(command_stat(&mut con, "zadd", "calls"), 1);
}

/// Where the server could refuse a write but does not (here: a cluster node
/// that serves the key's slot), Redis 7.0's probe runs as a real ZADD that
/// fails on its own options: a failed call in commandstats, which INFO zkit
/// counts. Servers with a dry run show nothing.
#[test]
fn the_probe_that_runs_on_redis_7_0_is_counted() {
    let server = Server::single_node_cluster();
    let mut con = server.connect();
    let due = schedule_in(&mut con, "q", DUE_AFTER_SETUP_MS, "task");
    let worker = spawn_call(&server, &["DELAY.BPOLL", "q", "0"]);
    wait_blocked(&server, 1);
    assert_eq!(served(worker.join().unwrap()), vec![("task".into(), due)]);
    let probes = if server_version(&mut con) < (7, 2) {
        1
    } else {
        0
    };
    assert_eq!(stat(&mut con, "zkit", "zkit_write_gate_probes_run"), probes);
    assert_eq!(
        command_stat(&mut con, "zadd", "failed_calls"),
        probes as u64
    );
}

/// The gate's look at whether the server would take a write is not a call
/// anyone made: on a plain master it shows nowhere in commandstats, on
/// every server, Redis 7.0 included.
#[test]
fn a_claim_on_a_plain_master_leaves_no_trace_in_commandstats() {
    let server = Server::start();
    let mut con = server.connect();
    let due = schedule_in(&mut con, "q", DUE_AFTER_SETUP_MS, "task");
    let worker = spawn_call(&server, &["DELAY.BPOLL", "q", "0"]);
    wait_blocked(&server, 1);
    assert_eq!(served(worker.join().unwrap()), vec![("task".into(), due)]);
    // The one ZADD is the one that scheduled the task.
    assert_eq!(command_stat(&mut con, "zadd", "calls"), 1);
    assert_eq!(command_stat(&mut con, "zadd", "failed_calls"), 0);
    assert_eq!(stat(&mut con, "zkit", "zkit_write_gate_probes_run"), 0);
}

#[test]
fn a_failed_save_refuses_the_claim_with_misconf() {
    let server = Server::with(ServerConfig::default().arg("enable-protected-configs", "yes"));
    let gone = server.dir.join("gone");
    assert_blocked_poll_refused(
        &server,
        |con| {
            // Make a BGSAVE fail: its folder disappears (root may write
            // anywhere, so permissions would not do).
            std::fs::create_dir(&gone).unwrap();
            ok(con, &["CONFIG", "SET", "save", "3600 1"]);
            ok(con, &["CONFIG", "SET", "dir", gone.to_str().unwrap()]);
            std::fs::remove_dir(&gone).unwrap();
            ok(con, &["BGSAVE"]);
            wait_for(Duration::from_secs(20), || {
                let info: String = query(con, &["INFO", "persistence"]);
                info.contains("rdb_bgsave_in_progress:0\r\n")
                    && info.contains("rdb_last_bgsave_status:err\r\n")
            });
        },
        "MISCONF",
    );
}

#[test]
fn out_of_memory_lets_the_claim_through_as_it_lets_a_plain_poll() {
    let server = Server::start();
    let mut con = server.connect();
    let due = schedule_in(&mut con, "q", DUE_AFTER_SETUP_MS, "task");
    let worker = spawn_call(&server, &["DELAY.BPOLL", "q", "0"]);
    wait_blocked(&server, 1);
    ok(&mut con, &["CONFIG", "SET", "maxmemory", "1"]);
    assert!(err(&mut con, &["ZADD", "other", "1", "x"]).starts_with("OOM"));
    // DELAY.POLL is not deny-oom (claiming frees memory), so neither is the
    // blocked poll's claim.
    assert_eq!(served(worker.join().unwrap()), vec![("task".into(), due)]);
}

#[test]
fn a_master_demoted_while_workers_wait_unblocks_them_and_claims_nothing() {
    let old = Server::start();
    let new = Server::with(ServerConfig::default().replica_of(&old));
    new.wait_until_synced();
    let mut con = old.connect();
    let due = schedule_in(&mut con, "q", DUE_AFTER_SETUP_MS, "t1");
    schedule_in(&mut con, "q", DUE_AFTER_SETUP_MS, "t2");
    let workers: Vec<_> = (0..2)
        .map(|_| {
            spawn_call(
                &old,
                &["DELAY.BPOLL", "q", "0", "LEASE", "q:inflight", LONG_LEASE],
            )
        })
        .collect();
    wait_blocked(&old, 2);
    old.wait_for_replicas(1);
    ok(&mut new.connect(), &["REPLICAOF", "NO", "ONE"]);
    ok(&mut con, &["REPLICAOF", "127.0.0.1", &new.port.to_string()]);
    for worker in workers {
        let error = refused(worker.join().unwrap());
        assert!(error.starts_with("UNBLOCKED"), "{error}");
    }
    // Past their due time, the tasks are still queued on the new master.
    let mut new_con = new.connect();
    wait_until_server_time(&mut new_con, due as i64 + 200);
    assert_eq!(members(&mut new_con, "q"), ["t1", "t2"]);
    old.wait_until_synced();
    assert_replicas_match(&new, std::slice::from_ref(&old));
}

#[test]
fn failover_while_four_workers_wait_keeps_every_task_exactly_once() {
    let config = ServerConfig::default().arg("enable-debug-command", "yes");
    let old = Server::with(config.clone());
    let new = Server::with(config.replica_of(&old));
    new.wait_until_synced();
    let mut con = old.connect();
    let tasks = ["t0", "t1", "t2", "t3"];
    // Due in an hour until all four workers wait; then in 300 ms (the
    // ZADD wakes them, they find nothing due yet and wait again).
    for task in tasks {
        schedule_in(&mut con, "q", 3_600_000, task);
    }
    let workers: Vec<_> = (0..4)
        .map(|_| {
            spawn_call(
                &old,
                &["DELAY.BPOLL", "q", "0", "LEASE", "q:inflight", LONG_LEASE],
            )
        })
        .collect();
    wait_blocked(&old, 4);
    for task in tasks {
        schedule_in(&mut con, "q", 300, task);
    }
    old.wait_for_replicas(1);
    // The replica stops answering for 1.5 s, so FAILOVER keeps the master
    // paused (waiting for the replica to catch up) while the tasks fall due.
    let sleeper = spawn_call(&new, &["DEBUG", "SLEEP", "1.5"]);
    thread::sleep(Duration::from_millis(100));
    ok(&mut con, &["FAILOVER", "TIMEOUT", "20000"]);
    wait_for(Duration::from_secs(30), || {
        role(&new) == "master" && role(&old) == "slave"
    });
    sleeper.join().unwrap().unwrap();
    // A worker is served before the pause or unblocked by the demotion;
    // either way nothing is claimed twice or lost.
    let mut claimed = Vec::new();
    for worker in workers {
        match worker.join().unwrap() {
            Ok(reply) => claimed.extend(served(Ok(reply)).into_iter().map(|(t, _)| t)),
            Err(e) => assert!(error_text(&e).starts_with("UNBLOCKED"), "{e}"),
        }
    }
    claimed.sort();
    let mut new_con = new.connect();
    let in_flight = members(&mut new_con, "q:inflight");
    assert_eq!(in_flight, claimed, "claims reached the new master");
    let mut all: Vec<String> = members(&mut new_con, "q");
    all.extend(in_flight);
    all.sort();
    assert_eq!(all, tasks);
    assert_eq!(query::<String>(&mut old.connect(), &["PING"]), "PONG");
}

/// What the soak's workers did with one task.
#[derive(Default)]
struct TaskLedger {
    /// The last claim: which worker, and when its request was sent.
    last_claim: Option<(usize, Instant)>,
    /// When an ACK of the last claim was answered 1 (the task is done).
    acked_at: Option<Instant>,
    deliveries: usize,
}

const SOAK_TASKS: usize = 2000;
/// Tasks fall due over this long, so the drain spans several role swaps.
const SOAK_SPREAD_MS: usize = 6000;
const SOAK_LEASE_MS: u64 = 1000;

/// Records a claim whose request was sent at `sent` and answered at
/// `answered`, and checks it against the task's previous claim:
/// - a task is never delivered again once an ACK of it was answered before
///   the claim was sent;
/// - a task still held is delivered again only once its lease has ended. The
///   lease began at the server's clock between the previous request's send
///   and answer, so a claim answered before `previous send + lease` came too
///   early.
fn record_claim(
    ledger: &Mutex<HashMap<String, TaskLedger>>,
    task: &str,
    worker: usize,
    sent: Instant,
    answered: Instant,
) {
    let mut ledger = ledger.lock().unwrap();
    let entry = ledger.entry(task.to_string()).or_default();
    if let Some((holder, held_since)) = entry.last_claim {
        assert!(
            entry.acked_at.is_none_or(|acked| acked >= sent),
            "{task} was delivered again after worker {holder} acknowledged it"
        );
        assert!(
            answered >= held_since + Duration::from_millis(SOAK_LEASE_MS),
            "{task} was delivered to worker {worker} while worker {holder}'s lease ran"
        );
    }
    entry.last_claim = Some((worker, sent));
    entry.acked_at = None;
    entry.deliveries += 1;
}

/// The node that is master now.
fn master_of(nodes: &[Server]) -> Option<&Server> {
    nodes.iter().find(|node| role(node) == "master")
}

#[test]
#[ignore = "slow: make test-all"]
fn workers_drain_a_queue_while_master_and_replica_swap_roles() {
    let first = Server::start();
    let second = Server::with(ServerConfig::default().replica_of(&first));
    second.wait_until_synced();
    let nodes = Arc::new([first, second]);
    {
        let mut con = nodes[0].connect();
        let tasks: Vec<String> = (0..SOAK_TASKS).map(|i| format!("task:{i:04}")).collect();
        for chunk in tasks.chunks(500) {
            let now = server_time_ms(&mut con) as usize;
            let mut zadd = vec!["ZADD".to_string(), "{jobs}".to_string()];
            for task in chunk {
                let i: usize = task["task:".len()..].parse().unwrap();
                let due = now + i * SOAK_SPREAD_MS / SOAK_TASKS;
                zadd.extend([due.to_string(), task.clone()]);
            }
            ok(&mut con, &words(&zadd));
        }
    }
    let ledger: Arc<Mutex<HashMap<String, TaskLedger>>> = Arc::default();
    let done = Arc::new(AtomicBool::new(false));
    let lease = SOAK_LEASE_MS.to_string();
    let workers: Vec<_> = (0..4)
        .map(|worker| {
            let (nodes, ledger, done, lease) =
                (nodes.clone(), ledger.clone(), done.clone(), lease.clone());
            thread::spawn(move || {
                let mut rng = Rng::seeded(&format!("soak worker {worker}"));
                while !done.load(Ordering::Relaxed) {
                    // Follow the master; any refusal or lost link: look again.
                    let Some(mut con) = master_of(&nodes[..]).map(Server::connect) else {
                        thread::sleep(Duration::from_millis(20));
                        continue;
                    };
                    loop {
                        let sent = Instant::now();
                        // Due tasks first, then tasks whose lease ended.
                        let mut reply = run(
                            &mut con,
                            &[
                                "DELAY.BPOLL",
                                "{jobs}",
                                "100",
                                "COUNT",
                                "5",
                                "LEASE",
                                "{jobs}:inflight",
                                &lease,
                            ],
                        );
                        if matches!(reply, Ok(Value::Nil)) {
                            reply = run(
                                &mut con,
                                &[
                                    "DELAY.POLL",
                                    "{jobs}:inflight",
                                    "COUNT",
                                    "5",
                                    "LEASE",
                                    "{jobs}:inflight",
                                    &lease,
                                ],
                            );
                        }
                        let Ok(reply) = reply else { break };
                        let answered = Instant::now();
                        let tasks: Tasks = redis::from_redis_value(reply).unwrap();
                        for (task, _) in &tasks {
                            record_claim(&ledger, task, worker, sent, answered);
                        }
                        for (task, _) in tasks {
                            // One task in ten "crashes" its worker: no ack,
                            // the lease brings it back.
                            if rng.chance(10) {
                                continue;
                            }
                            let acked =
                                run(&mut con, &["DELAY.ACK", "{jobs}:inflight", "TASKS", &task]);
                            if acked == Ok(Value::Int(1)) {
                                let mut ledger = ledger.lock().unwrap();
                                ledger.get_mut(&task).unwrap().acked_at = Some(Instant::now());
                            }
                        }
                        if done.load(Ordering::Relaxed) {
                            return;
                        }
                    }
                    thread::sleep(Duration::from_millis(20));
                }
            })
        })
        .collect();

    let started = Instant::now();
    let mut swaps = 0;
    loop {
        // Done: every task delivered, and none left queued or in flight.
        let delivered = ledger.lock().unwrap().len();
        let drained = || {
            master_of(&nodes[..]).is_some_and(|master| {
                let left: i64 = query(
                    &mut master.connect(),
                    &["EXISTS", "{jobs}", "{jobs}:inflight"],
                );
                left == 0
            })
        };
        if delivered == SOAK_TASKS && drained() {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(180),
            "the queue did not drain"
        );
        if swaps < 5 && started.elapsed() >= Duration::from_millis(1200 * (swaps + 1)) {
            let master = master_of(&nodes[..]).expect("a master");
            let replica = nodes.iter().find(|n| n.port != master.port).unwrap();
            replica.wait_until_synced();
            ok(&mut master.connect(), &["FAILOVER", "TIMEOUT", "20000"]);
            wait_for(Duration::from_secs(30), || role(replica) == "master");
            swaps += 1;
        }
        thread::sleep(Duration::from_millis(50));
    }
    done.store(true, Ordering::Relaxed);
    for worker in workers {
        worker.join().unwrap();
    }
    assert!(swaps >= 3, "only {swaps} role swaps happened");
    let ledger = ledger.lock().unwrap();
    let redelivered = ledger.values().filter(|t| t.deliveries > 1).count();
    eprintln!("soak: {SOAK_TASKS} tasks, {swaps} role swaps, {redelivered} delivered again");
    assert!(
        redelivered > 0,
        "no lease ended: the re-delivery check checked nothing"
    );
    for node in nodes.iter() {
        assert_eq!(query::<String>(&mut node.connect(), &["PING"]), "PONG");
    }
}

#[test]
fn dead_letters_and_delivery_counts_wait_for_the_pause_to_end_too() {
    // A blocked poll with dead letters writes more (counts, dead tasks):
    // all of it goes through the same gate as the claim.
    let master = aof_server();
    let replica = Server::with(ServerConfig::without_module().replica_of(&master));
    replica.wait_until_synced();
    let mut con = master.connect();
    // poison was delivered twice already; both fall due during the pause.
    schedule_in(&mut con, "q", DUE_AFTER_SETUP_MS, "poison");
    ok(&mut con, &["ZADD", "q:n", "2", "poison"]);
    let due = schedule_in(&mut con, "q", DUE_AFTER_SETUP_MS + 100, "task");
    let worker = spawn_call(
        &master,
        &[
            "DELAY.BPOLL",
            "q",
            "0",
            "LEASE",
            "q:inflight",
            LONG_LEASE,
            "DEADLETTER",
            "q:dead",
            "q:n",
            "2",
        ],
    );
    wait_blocked(&master, 1);
    let paused_at = Instant::now();
    ok(
        &mut con,
        &["CLIENT", "PAUSE", &PAUSE_MS.to_string(), "WRITE"],
    );
    wait_until_server_time(&mut con, due as i64 + 100);
    // After the task fell due: nothing claimed, counted or buried.
    assert_eq!(members(&mut con, "q"), ["poison", "task"]);
    assert_eq!(members(&mut con, "q:n"), ["poison"]);
    assert!(members(&mut con, "q:dead").is_empty());
    assert_eq!(served(worker.join().unwrap()), vec![("task".into(), due)]);
    assert!(paused_at.elapsed() >= Duration::from_millis(PAUSE_MS));
    assert_eq!(members(&mut con, "q:dead"), ["poison"]);
    assert_eq!(members(&mut con, "q:n"), ["task"]);
    assert_replicas_match(&master, std::slice::from_ref(&replica));
    drop(replica);
    assert_aof_replays_without_module(master);
}
