//! A gift board and a job queue with zkit's Rust client, on one server or a
//! cluster: `REDIS_URL=redis://127.0.0.1:7000 cargo run --example quick_start`
//! (REDIS_URL defaults to redis://127.0.0.1:6379). Its keys live under a
//! prefix of the run's own and are deleted at the end.
use std::time::{SystemTime, UNIX_EPOCH};

use redis::cluster::ClusterClient;
use redis::ConnectionLike;
use zkit::{DelayAckOptions, DelayPollOptions, RankGiftOptions, Transport, Zkit};

fn main() -> redis::RedisResult<()> {
    let url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_string());
    let mut connection = redis::Client::open(url.as_str())?.get_connection()?;
    let info: redis::InfoDict = redis::cmd("INFO").arg("cluster").query(&mut connection)?;
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |t| t.as_nanos());
    let prefix = format!("zkit-example:{}-{nanos}:", std::process::id()); // your app's namespace
    if info.get::<i64>("cluster_enabled") == Some(1) {
        quick_start(
            Zkit::new(ClusterClient::new(vec![url])?.get_connection()?),
            &prefix,
        )
    } else {
        quick_start(Zkit::new(connection), &prefix)
    }
}

// Zkit over a redis::Connection or a redis::cluster::ClusterConnection.
fn quick_start<C: Transport + ConnectionLike>(
    mut z: Zkit<C>,
    prefix: &str,
) -> redis::RedisResult<()> {
    let board = format!("{prefix}gifts:room:42");
    // A queue and its in-flight set share the hash tag {jobs}: one slot.
    let (queue, inflight) = (
        format!("{prefix}{{jobs}}"),
        format!("{prefix}{{jobs}}:inflight"),
    );
    let result = gifts_and_jobs(&mut z, &board, &queue, &inflight);
    for key in [&board, &queue, &inflight] {
        redis::cmd("DEL").arg(key).query::<i64>(z.connection())?;
    }
    result
}

fn gifts_and_jobs<C: Transport + ConnectionLike>(
    z: &mut Zkit<C>,
    board: &str,
    queue: &str,
    inflight: &str,
) -> redis::RedisResult<()> {
    let gift = z.rank_gift(board, "alice", 10, RankGiftOptions::default())?;
    println!("alice: {} at rank {}", gift.total, gift.rank);

    redis::cmd("ZADD")
        .arg(queue)
        .arg(0)
        .arg("mail:1")
        .query::<i64>(z.connection())?;
    let options = DelayPollOptions {
        count: Some(10),
        lease: Some((inflight, 60_000)),
        ..Default::default()
    };
    for task in z.delay_poll(queue, options)? {
        println!("due at {}: {}", task.due_ms, task.task);
        z.delay_ack(inflight, &[task.task.as_str()], DelayAckOptions::default())?;
    }
    Ok(())
}
