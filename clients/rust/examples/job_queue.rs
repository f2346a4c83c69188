//! A job queue with zkit's Rust client: tasks scheduled with ZADD by due
//! time, run at least once by DelayWorker (leases, acks, redelivery), on one
//! server or a cluster: `REDIS_URL=redis://127.0.0.1:7000 cargo run --example
//! job_queue` (REDIS_URL defaults to redis://127.0.0.1:6379). Its keys live
//! under a prefix of the run's own and are deleted at the end.
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use redis::cluster::ClusterClient;
use redis::{ConnectionLike, RedisResult};
use zkit::{DelayWorker, DelayWorkerOptions, Task, Transport, Zkit};

fn main() -> RedisResult<()> {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_string());
    let client = redis::Client::open(url.as_str())?;
    let info: redis::InfoDict = redis::cmd("INFO")
        .arg("cluster")
        .query(&mut client.get_connection()?)?;
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |t| t.as_nanos());
    let prefix = format!("zkit-example:{}-{nanos}:", std::process::id()); // your app's namespace
    if info.get::<i64>("cluster_enabled") == Some(1) {
        let cluster = ClusterClient::new(vec![url])?;
        job_queue(|| Ok(Zkit::new(cluster.get_connection()?)), &prefix)
    } else {
        job_queue(|| Ok(Zkit::new(client.get_connection()?)), &prefix)
    }
}

// `connect` opens a connection for each of the worker's threads: DELAY.BPOLL
// holds one while it waits.
pub fn job_queue<C: Transport + ConnectionLike>(
    connect: impl Fn() -> RedisResult<Zkit<C>> + Sync,
    prefix: &str,
) -> RedisResult<()> {
    // A queue and its in-flight set share the hash tag {jobs}: one slot.
    let (queue, inflight) = (
        format!("{prefix}{{jobs}}"),
        format!("{prefix}{{jobs}}:inflight"),
    );
    let mut z = connect()?;
    let result = run_two_mails(&connect, &mut z, &queue, &inflight);
    for key in [&queue, &inflight] {
        redis::cmd("DEL").arg(key).query::<i64>(z.connection())?;
    }
    result
}

fn run_two_mails<C: Transport + ConnectionLike>(
    connect: impl Fn() -> RedisResult<Zkit<C>> + Sync,
    z: &mut Zkit<C>,
    queue: &str,
    inflight: &str,
) -> RedisResult<()> {
    redis::cmd("ZADD")
        .arg(queue)
        .arg(0)
        .arg("mail:19")
        .arg(0)
        .arg("mail:20")
        .query::<i64>(z.connection())?;
    // At-least-once: the worker leases each task into {jobs}:inflight, acks
    // it when the handler returns Ok, and leaves it there when the handler
    // fails (the task is delivered again when its lease ends).
    let options = DelayWorkerOptions {
        lease_ms: 60_000,
        block_ms: 100,
        concurrency: 2, // handler threads
        ..DelayWorkerOptions::new(queue, inflight)
    };
    let done = Mutex::new(Vec::new());
    let worker = DelayWorker::new(connect, options, |task: &Task| {
        done.lock().unwrap().push(task.task.clone()); // must be idempotent: a task may run twice
        Ok(())
    });
    let stopper = worker.stopper();
    std::thread::scope(|scope| {
        scope.spawn(|| worker.run());
        while done.lock().unwrap().len() < 2 {
            std::thread::sleep(Duration::from_millis(10));
        }
        stopper.stop(); // run() returns within block_ms
    });
    let mut done = done.into_inner().unwrap();
    done.sort();
    println!("sent: {}", done.join(", "));
    let left: i64 = redis::cmd("ZCARD").arg(inflight).query(z.connection())?;
    assert_eq!(left, 0); // both acked
    Ok(())
}
