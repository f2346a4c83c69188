//! DelayWorker against the test servers: a worker that dies mid-task leaves
//! the task to run again once its lease ends; renewed leases hold a task
//! longer than its lease without a second delivery; a worker whose task
//! another worker claimed changes nothing with its late ack, hand-back or
//! renewal; a job worker hands over payloads and keeps failure reasons; a
//! dropped connection is reopened, and a stop finishes what a worker holds.

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use redis::cluster::{ClusterClient, ClusterConnection};
use redis::{Connection, ConnectionLike, RedisResult};
use zkit::*;

use super::job_queue_example::job_queue;
use super::{cluster_addresses, keys_of, raw, ready, server_address, server_ms};

/// Opens connections to the plain server, as a worker needs them.
fn connect_single() -> impl Fn() -> RedisResult<Zkit<Connection>> + Sync {
    let client = redis::Client::open(format!("redis://{}", server_address())).unwrap();
    move || Ok(ready(Zkit::new(client.get_connection()?)))
}

/// Opens connections to the cluster, as a worker needs them.
fn connect_cluster() -> impl Fn() -> RedisResult<Zkit<ClusterConnection>> + Sync {
    let client = ClusterClient::new(cluster_addresses()).unwrap();
    move || Ok(ready(Zkit::new(client.get_connection()?)))
}

/// Polls `condition` until it holds, failing after 20 s.
fn wait_for(what: &str, mut condition: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Stops a worker when dropped: when the test ends, and when it fails
/// while the worker runs.
struct StopOnDrop(Stopper);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// Collects what a worker tells `on_error`, as text.
#[derive(Default)]
struct Told(Mutex<Vec<String>>);

impl Told {
    fn push(&self, error: &WorkerError) {
        self.0.lock().unwrap().push(error.to_string());
    }

    fn all(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

fn worker_options(k: &impl Fn(&str) -> String) -> DelayWorkerOptions {
    DelayWorkerOptions {
        block_ms: 50,
        ..DelayWorkerOptions::new(k("{jobs}"), k("{jobs}:inflight"))
    }
}

/// A lease ended (made to end at once here) while its handler ran, and
/// another worker claimed the task: that delivery's token.
fn take_over<C: Transport + ConnectionLike>(z: &mut Zkit<C>, inflight: &str, task: &str) -> i64 {
    raw::<i64>(z.connection(), &["ZADD", inflight, "1", task]);
    // A lease of another length: claimed in the same ms as the first, a lease
    // as long would end when the first did, under the same token.
    let claim = DelayPollOptions {
        lease: Some((inflight, 120_000)),
        withtokens: true,
        ..Default::default()
    };
    let claimed = z.delay_poll(inflight, claim).unwrap();
    assert_eq!(claimed.len(), 1);
    claimed[0].token.unwrap()
}

fn inflight_with_scores<C: Transport + ConnectionLike>(
    z: &mut Zkit<C>,
    inflight: &str,
) -> Vec<(String, i64)> {
    raw(
        z.connection(),
        &["ZRANGE", inflight, "0", "-1", "WITHSCORES"],
    )
}

/// A stale worker's ack (or, when its handler `fails`, its hand-back)
/// leaves the other worker's delivery as it is.
fn a_stale_worker_changes_nothing<C: Transport + ConnectionLike>(
    connect: impl Fn() -> RedisResult<Zkit<C>> + Sync,
    test: &str,
    fails: bool,
) {
    let k = keys_of(test);
    let (queue, inflight) = (k("{jobs}"), k("{jobs}:inflight"));
    let mut z = connect().unwrap();
    raw::<i64>(z.connection(), &["ZADD", &queue, "1", "report"]);
    let taken = Mutex::new(None);
    let told = Arc::new(Told::default());
    let options = DelayWorkerOptions {
        retry_delay_ms: Some(0),
        ..worker_options(&k)
    };
    let worker = DelayWorker::new(&connect, options, |task: &Task| {
        let mut other = connect()?;
        *taken.lock().unwrap() = Some(take_over(&mut other, &inflight, &task.task));
        if fails {
            return Err("failed after losing its lease".into());
        }
        Ok(())
    });
    let sink = told.clone();
    let worker = worker.on_error(move |error| sink.push(error));
    let mut session = worker.session();
    let mut acked = 0;
    wait_for("the take-over", || {
        acked += session.run_once();
        taken.lock().unwrap().is_some()
    });
    assert_eq!(acked, 0);
    let taken = taken.lock().unwrap().unwrap();
    assert_eq!(
        inflight_with_scores(&mut z, &inflight),
        [("report".to_string(), taken)]
    );
    assert_eq!(raw::<i64>(z.connection(), &["ZCARD", &queue]), 0);
    let expected: &[&str] = if fails {
        &[
            "task report failed: failed after losing its lease",
            "task report outran its lease; not handed back, it runs again when delivered again",
        ]
    } else {
        &["task report outran its lease and another worker claimed it; not acked"]
    };
    assert_eq!(told.all(), expected);
}

#[test]
fn a_stale_workers_late_ack_changes_nothing_on_a_server() {
    a_stale_worker_changes_nothing(connect_single(), "stale_ack_server", false);
}

#[test]
fn a_stale_workers_late_ack_changes_nothing_on_a_cluster() {
    a_stale_worker_changes_nothing(connect_cluster(), "stale_ack_cluster", false);
}

#[test]
fn a_stale_workers_late_hand_back_changes_nothing_on_a_server() {
    a_stale_worker_changes_nothing(connect_single(), "stale_nack_server", true);
}

#[test]
fn a_stale_workers_late_hand_back_changes_nothing_on_a_cluster() {
    a_stale_worker_changes_nothing(connect_cluster(), "stale_nack_cluster", true);
}

/// A renewal that answers 0 (another worker claimed the task) drops the
/// task: neither acked nor handed back.
fn a_lost_renewal_drops_the_task<C: Transport + ConnectionLike>(
    connect: impl Fn() -> RedisResult<Zkit<C>> + Sync,
    test: &str,
) {
    let k = keys_of(test);
    let (queue, inflight) = (k("{jobs}"), k("{jobs}:inflight"));
    let mut z = connect().unwrap();
    raw::<i64>(z.connection(), &["ZADD", &queue, "1", "report"]);
    let taken = Mutex::new(None);
    let told = Arc::new(Told::default());
    let options = DelayWorkerOptions {
        lease_ms: 300,
        renew_leases: true,
        retry_delay_ms: Some(0),
        ..worker_options(&k)
    };
    let seen = told.clone();
    let worker = DelayWorker::new(&connect, options, |task: &Task| {
        let mut other = connect()?;
        *taken.lock().unwrap() = Some(take_over(&mut other, &inflight, &task.task));
        // Until a renewal (every 100 ms) has found the lease gone.
        wait_for("the renewal", || !seen.all().is_empty());
        Ok(())
    });
    let sink = told.clone();
    let worker = worker.on_error(move |error| sink.push(error));
    let mut session = worker.session();
    let mut acked = 0;
    wait_for("the take-over", || {
        acked += session.run_once();
        taken.lock().unwrap().is_some()
    });
    assert_eq!(acked, 0);
    assert_eq!(
        told.all(),
        ["task report lost its lease (it ended, or another worker claimed it); not acked"]
    );
    let taken = taken.lock().unwrap().unwrap();
    assert_eq!(
        inflight_with_scores(&mut z, &inflight),
        [("report".to_string(), taken)]
    );
}

#[test]
fn a_lost_renewal_drops_the_task_on_a_server() {
    a_lost_renewal_drops_the_task(connect_single(), "lost_renewal_server");
}

#[test]
fn a_lost_renewal_drops_the_task_on_a_cluster() {
    a_lost_renewal_drops_the_task(connect_cluster(), "lost_renewal_cluster");
}

/// Two tasks whose handlers run 1.5 s each, 2.5 leases: other handler
/// threads poll the in-flight set all along, and find nothing expired.
fn renewed_leases_hold_long_tasks<C: Transport + ConnectionLike>(
    connect: impl Fn() -> RedisResult<Zkit<C>> + Sync,
    test: &str,
) {
    let k = keys_of(test);
    let (queue, inflight) = (k("{jobs}"), k("{jobs}:inflight"));
    let mut z = connect().unwrap();
    raw::<i64>(
        z.connection(),
        &["ZADD", &queue, "1", "long:1", "2", "long:2"],
    );
    let runs = Mutex::new(Vec::new());
    let left_after_run = Mutex::new(Vec::new());
    let told = Arc::new(Told::default());
    let options = DelayWorkerOptions {
        lease_ms: 600, // renewed every 200 ms
        renew_leases: true,
        count: 1,
        concurrency: 3,
        ..worker_options(&k)
    };
    let worker = DelayWorker::new(&connect, options, |task: &Task| {
        runs.lock().unwrap().push(task.task.clone());
        std::thread::sleep(Duration::from_millis(1500)); // the work
        let mut other = connect()?;
        let ends: f64 = raw(other.connection(), &["ZSCORE", &inflight, &task.task]);
        let now = server_ms(other.connection());
        left_after_run.lock().unwrap().push(ends as i64 - now);
        Ok(())
    });
    let sink = told.clone();
    let worker = worker.on_error(move |error| sink.push(error));
    std::thread::scope(|scope| {
        let _stop = StopOnDrop(worker.stopper());
        scope.spawn(|| worker.run());
        wait_for("both tasks acked", || {
            left_after_run.lock().unwrap().len() == 2
                && raw::<i64>(z.connection(), &["EXISTS", &queue, &inflight]) == 0
        });
    });
    let mut ran = runs.lock().unwrap().clone();
    ran.sort();
    assert_eq!(ran, ["long:1", "long:2"]); // each delivered once
    for left in left_after_run.lock().unwrap().iter() {
        assert!(*left > 0 && *left <= 600, "{left} ms of lease left");
    }
    assert_eq!(told.all(), Vec::<String>::new());
}

#[test]
fn renewed_leases_hold_long_tasks_on_a_server() {
    renewed_leases_hold_long_tasks(connect_single(), "renewed_server");
}

#[test]
fn renewed_leases_hold_long_tasks_on_a_cluster() {
    renewed_leases_hold_long_tasks(connect_cluster(), "renewed_cluster");
}

/// A job worker hands its handler each job's payload and deliveries, hands
/// a failed job back with its error's text as its reason (cut to 1,000
/// characters), moves a job that keeps failing to the dead-letter set, and
/// acks with DATA, so a finished job leaves no data behind.
fn jobs_carry_payloads_and_reasons<C: Transport + ConnectionLike>(
    connect: impl Fn() -> RedisResult<Zkit<C>> + Sync,
    test: &str,
) {
    let k = keys_of(test);
    let (queue, inflight, data) = (k("{jobs}"), k("{jobs}:inflight"), k("{jobs}:data"));
    let (dead, deliveries) = (k("{jobs}:dead"), k("{jobs}:deliveries"));
    let mut z = connect().unwrap();
    let jobs = [
        (0, "ok", "to=ann"),
        (0, "flaky", "to=bob"),
        (0, "poison", "to=cat"),
    ];
    let add = DelayAddOptions {
        data: Some(&data),
        ..Default::default()
    };
    assert_eq!(z.delay_add_jobs(&queue, &jobs, add).unwrap(), [1, 1, 1]);
    let runs = Mutex::new(Vec::new());
    let seen_by_retry = Mutex::new(Vec::new());
    let options = DelayWorkerOptions {
        name: Some("worker-1".to_string()),
        retry_delay_ms: Some(0),
        deadletter: Some((dead.clone(), deliveries.clone(), 2)),
        ..worker_options(&k)
    };
    let worker = DelayWorker::jobs(&connect, options, data.as_str(), |job: &Job| {
        let delivered = job.deliveries.unwrap();
        let run = (job.task.clone(), job.payload.clone().unwrap(), delivered);
        runs.lock().unwrap().push(run);
        match (job.task.as_str(), delivered) {
            ("flaky", 1) => Err("SMTP 451: try again".into()),
            ("flaky", _) => {
                let job_options = DelayJobOptions {
                    inflight: Some(&inflight),
                    data: Some(&data),
                    ..Default::default()
                };
                let info = connect()?.delay_job(&queue, "flaky", job_options)?;
                seen_by_retry.lock().unwrap().push(info);
                Ok(())
            }
            ("poison", _) => Err("x".repeat(5000).into()),
            _ => Ok(()),
        }
    })
    .on_error(|_| {});
    std::thread::scope(|scope| {
        let _stop = StopOnDrop(worker.stopper());
        scope.spawn(|| worker.run());
        wait_for("the poison job to die", || {
            raw::<i64>(z.connection(), &["ZCARD", &dead]) == 1
                && raw::<i64>(z.connection(), &["EXISTS", &queue, &inflight]) == 0
        });
    });
    let mut ran = runs.lock().unwrap().clone();
    ran.sort();
    let run = |task: &str, payload: &str, n| (task.to_string(), payload.to_string(), n);
    assert_eq!(
        ran,
        [
            run("flaky", "to=bob", 1),
            run("flaky", "to=bob", 2),
            run("ok", "to=ann", 1),
            run("poison", "to=cat", 1),
            run("poison", "to=cat", 2),
        ]
    );
    let retry = seen_by_retry.lock().unwrap().pop().unwrap();
    assert_eq!(
        (retry.state, retry.payload, retry.last_reason, retry.worker),
        (
            Some("inflight".to_string()),
            Some("to=bob".to_string()),
            Some("SMTP 451: try again".to_string()),
            Some("worker-1".to_string())
        )
    );
    let job_options = DelayJobOptions {
        inflight: Some(&inflight),
        dead: Some(&dead),
        deliveries: Some(&deliveries),
        data: Some(&data),
    };
    let poison = z.delay_job(&queue, "poison", job_options).unwrap();
    let reason = poison.last_reason.unwrap();
    assert_eq!(
        (
            poison.state.as_deref(),
            poison.payload.as_deref(),
            poison.deliveries
        ),
        (Some("dead"), Some("to=cat"), Some(2))
    );
    assert_eq!(reason.chars().count(), REASON_MAX_CHARS);
    assert_eq!(reason, format!("{}...", "x".repeat(REASON_MAX_CHARS - 3)));
    let mut left: Vec<String> = raw(z.connection(), &["HKEYS", &data]);
    left.sort();
    assert_eq!(left, ["d:poison", "p:poison", "r:poison"]); // the dead job's only
    assert_eq!(raw::<i64>(z.connection(), &["EXISTS", &deliveries]), 0);
}

#[test]
fn jobs_carry_payloads_and_reasons_on_a_server() {
    jobs_carry_payloads_and_reasons(connect_single(), "jobs_server");
}

#[test]
fn jobs_carry_payloads_and_reasons_on_a_cluster() {
    jobs_carry_payloads_and_reasons(connect_cluster(), "jobs_cluster");
}

/// The keys' prefix a crashing worker process works under.
const CRASH_PREFIX: &str = "ZKIT_TEST_CRASH_PREFIX";
const CRASH_LEASE_MS: i64 = 1000;

/// Run by `a_crashed_workers_task_is_delivered_again_after_its_lease` as a
/// process of its own: a worker whose handler says it started and then
/// hangs until the process is killed.
#[test]
#[ignore = "a child process of a_crashed_workers_task_is_delivered_again_after_its_lease"]
fn crashing_worker_process() {
    let prefix = std::env::var(CRASH_PREFIX).expect("run by the crash test");
    let k = |name: &str| format!("{prefix}{name}");
    let connect = connect_single();
    let options = DelayWorkerOptions {
        lease_ms: CRASH_LEASE_MS,
        ..worker_options(&k)
    };
    let worker = DelayWorker::new(&connect, options, |task: &Task| {
        raw::<i64>(
            connect()?.connection(),
            &["RPUSH", &k("{jobs}:started"), &task.task],
        );
        loop {
            std::thread::park();
        }
    });
    worker.run();
}

#[test]
fn a_crashed_workers_task_is_delivered_again_after_its_lease() {
    let k = keys_of("crash");
    let prefix = k("");
    let (queue, inflight) = (k("{jobs}"), k("{jobs}:inflight"));
    let mut z = connect_single()().unwrap();
    raw::<i64>(z.connection(), &["ZADD", &queue, "1", "report"]);
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "worker::crashing_worker_process", "--ignored"])
        .env(CRASH_PREFIX, &prefix)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let started = k("{jobs}:started");
    wait_for("the worker to start the task", || {
        raw::<i64>(z.connection(), &["LLEN", &started]) == 1
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let lease_end: f64 = raw(z.connection(), &["ZSCORE", &inflight, "report"]);

    let runs = Mutex::new(Vec::new());
    let options = DelayWorkerOptions {
        lease_ms: CRASH_LEASE_MS,
        ..worker_options(&k)
    };
    let connect = connect_single();
    let worker = DelayWorker::new(&connect, options, |task: &Task| {
        let now = server_ms(connect()?.connection());
        runs.lock().unwrap().push((task.task.clone(), now));
        Ok(())
    });
    let mut session = worker.session();
    let mut acked = 0;
    wait_for("the task delivered again", || {
        acked += session.run_once();
        !runs.lock().unwrap().is_empty()
    });
    let runs = runs.lock().unwrap().clone();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].0, "report");
    assert!(runs[0].1 >= lease_end as i64, "ran before the lease ended");
    assert_eq!(acked, 1);
    assert_eq!(
        raw::<i64>(z.connection(), &["EXISTS", &queue, &inflight]),
        0
    );
}

/// The id of the connection named `name`.
fn client_id(z: &mut Zkit<Connection>, name: &str) -> Option<String> {
    let list: String = raw(z.connection(), &["CLIENT", "LIST"]);
    let needle = format!(" name={name} ");
    list.lines()
        .find(|line| line.contains(&needle))
        .and_then(|line| line.strip_prefix("id="))
        .and_then(|rest| rest.split(' ').next())
        .map(str::to_string)
}

#[test]
fn a_worker_reconnects_after_a_dropped_connection_and_stops_finishing_what_it_holds() {
    let k = keys_of("reconnect");
    let (queue, inflight) = (k("{jobs}"), k("{jobs}:inflight"));
    let name = format!("zkit-rust-worker-{}", k("").replace([':', ' '], "-"));
    let mut z = connect_single()().unwrap();
    let client = redis::Client::open(format!("redis://{}", server_address())).unwrap();
    let connect = || -> RedisResult<Zkit<Connection>> {
        let mut connection = client.get_connection()?;
        redis::cmd("CLIENT")
            .arg("SETNAME")
            .arg(&name)
            .query::<()>(&mut connection)?;
        Ok(ready(Zkit::new(connection)))
    };
    let done = Mutex::new(Vec::new());
    let released = AtomicBool::new(false);
    let told = Arc::new(Told::default());
    let options = DelayWorkerOptions {
        block_ms: 200,
        reconnect_delay: Duration::from_millis(50),
        ..worker_options(&k)
    };
    let worker = DelayWorker::new(connect, options, |task: &Task| {
        if task.task == "held" {
            wait_for("the stop", || released.load(Ordering::SeqCst));
        }
        done.lock().unwrap().push(task.task.clone());
        Ok(())
    });
    let sink = told.clone();
    let worker = worker.on_error(move |error| sink.push(error));
    std::thread::scope(|scope| {
        let stop = StopOnDrop(worker.stopper());
        let running = scope.spawn(|| worker.run());
        raw::<i64>(z.connection(), &["ZADD", &queue, "1", "first"]);
        wait_for("the first task acked", || {
            done.lock().unwrap().len() == 1
                && raw::<i64>(z.connection(), &["EXISTS", &queue, &inflight]) == 0
        });
        // Dropped while it polls.
        let id = client_id(&mut z, &name).expect("the worker's connection");
        raw::<i64>(z.connection(), &["CLIENT", "KILL", "ID", &id]);
        wait_for("the failed poll", || {
            told.all().iter().any(|e| e.starts_with("polling failed"))
        });
        raw::<i64>(z.connection(), &["ZADD", &queue, "1", "second"]);
        wait_for("the second task", || done.lock().unwrap().len() == 2);
        raw::<i64>(z.connection(), &["ZADD", &queue, "1", "held"]);
        wait_for("the held task to start", || {
            raw::<i64>(z.connection(), &["ZCARD", &inflight]) == 1
        });
        // Asked to stop while its handler runs.
        drop(stop);
        released.store(true, Ordering::SeqCst);
        running.join().unwrap();
    });
    assert_eq!(*done.lock().unwrap(), ["first", "second", "held"]);
    assert_eq!(
        raw::<i64>(z.connection(), &["EXISTS", &queue, &inflight]),
        0
    );
}

/// The job-queue example, as the docs show it, leaves no key behind.
fn the_example_runs<C: Transport + ConnectionLike>(
    connect: impl Fn() -> RedisResult<Zkit<C>> + Sync,
    test: &str,
) {
    let prefix = keys_of(test)("");
    let mut z = connect().unwrap();
    job_queue(&connect, &prefix).unwrap();
    for key in ["{jobs}", "{jobs}:inflight"] {
        let name = format!("{prefix}{key}");
        assert_eq!(raw::<i64>(z.connection(), &["EXISTS", &name]), 0);
    }
}

#[test]
fn the_job_queue_example_runs_on_a_server() {
    the_example_runs(connect_single(), "example_server");
}

#[test]
fn the_job_queue_example_runs_on_a_cluster() {
    the_example_runs(connect_cluster(), "example_cluster");
}
