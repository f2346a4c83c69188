//! A gift board and a job queue on Redis Cluster with zkit's Rust client:
//! `cargo run --example quick_start -- redis://127.0.0.1:7000 [key-prefix]`.
use redis::cluster::ClusterClient;
use zkit::{DelayAckOptions, DelayPollOptions, RankGiftOptions, Zkit};

fn main() -> redis::RedisResult<()> {
    let mut args = std::env::args().skip(1);
    let node = args
        .next()
        .unwrap_or_else(|| "redis://127.0.0.1:7000".to_string());
    let prefix = args.next().unwrap_or_default(); // your app's namespace
    let mut z = Zkit::new(ClusterClient::new(vec![node])?.get_connection()?);

    let board = format!("{prefix}gifts:room:42");
    let gift = z.rank_gift(&board, "alice", 10, RankGiftOptions::default())?;
    println!("alice: {} at rank {}", gift.total, gift.rank);

    // A queue and its in-flight set share the hash tag {jobs}: one slot.
    let (queue, inflight) = (
        format!("{prefix}{{jobs}}"),
        format!("{prefix}{{jobs}}:inflight"),
    );
    redis::cmd("ZADD")
        .arg(&queue)
        .arg(0)
        .arg("mail:1")
        .query::<i64>(z.connection())?;
    let lease = Some((inflight.as_str(), 60_000));
    let options = DelayPollOptions {
        count: Some(10),
        lease,
        ..Default::default()
    };
    for task in z.delay_poll(&queue, options)? {
        println!("due at {}: {}", task.due_ms, task.task);
        z.delay_ack(&inflight, &[task.task.as_str()], DelayAckOptions::default())?;
    }
    Ok(())
}
