//! Load generator for `make bench`: VOTE.CAST beside the Lua script a user
//! would write (`bench/lua/vote_cast.lua`) and beside the same steps as
//! client round trips (WATCH + SISMEMBER x2, then MULTI, SADD/SREM, ZINCRBY,
//! SCARD x2, EXEC, retried when WATCH fires), which redis-benchmark cannot
//! send because each step depends on the previous reply.
//!
//! Every variant casts the same votes (the same pseudo-random sequence per
//! connection) from an empty database, and the result is checked: every
//! item's score must equal 432 x (ups - downs). Reported per variant: votes
//! per second, and the server's CPU time per vote (from INFO cpu), which does
//! not depend on how fast this client is.
//!
//! VOTE.CAST and the script run unpipelined and pipelined (the server's CPU
//! decides then); the round trips cannot be pipelined, each vote waits for
//! the replies of its reads.
//!
//! usage: cargo bench --bench vote_load -- --port P [--requests N]
//!        [--connections C] [--pipeline P] [--rounds R] [--items I]
//!        [--voters V] [--db D] [--only vote|lua|round-trips]

use std::process::ExitCode;
use std::sync::{Arc, Barrier};
use std::time::Instant;

use redis::{Commands, Connection};

const WEIGHT: f64 = 432.0;

#[derive(Clone)]
struct Config {
    port: u16,
    db: u32,
    requests: u64,
    connections: u64,
    rounds: usize,
    items: u64,
    voters: u64,
    pipeline: u64,
    /// Only this variant (for profiling one of them), or all.
    only: Option<Variant>,
}

impl Config {
    fn parse() -> Result<Option<Config>, String> {
        let mut config = Config {
            port: 0,
            db: 9,
            requests: 200_000,
            connections: 50,
            rounds: 3,
            items: 100,
            voters: 1_000,
            pipeline: 16,
            only: None,
        };
        // `cargo bench` passes --bench to every bench binary.
        let args: Vec<String> = std::env::args()
            .skip(1)
            .filter(|a| a != "--bench")
            .collect();
        for pair in args.chunks(2) {
            let [name, value] = pair else {
                return Err(format!("{} needs a value", pair[0]));
            };
            let number = || {
                value
                    .parse::<u64>()
                    .map_err(|e| format!("{name} {value}: {e}"))
            };
            match name.as_str() {
                "--port" => config.port = number()? as u16,
                "--db" => config.db = number()? as u32,
                "--requests" => config.requests = number()?,
                "--connections" => config.connections = number()?.max(1),
                "--rounds" => config.rounds = number()?.max(1) as usize,
                "--items" => config.items = number()?.max(1),
                "--voters" => config.voters = number()?.max(1),
                "--pipeline" => config.pipeline = number()?.max(1),
                "--only" => {
                    let variant = [Variant::Module, Variant::Lua, Variant::RoundTrips]
                        .into_iter()
                        .find(|v| v.name() == value);
                    config.only =
                        Some(variant.ok_or(format!("--only {value}: vote, lua or round-trips"))?);
                }
                _ => return Err(format!("unknown option {name}")),
            }
        }
        Ok((config.port != 0).then_some(config))
    }

    fn connect(&self) -> redis::RedisResult<Connection> {
        let url = format!("redis://127.0.0.1:{}/{}", self.port, self.db);
        redis::Client::open(url)?.get_connection()
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Variant {
    Module,
    Lua,
    RoundTrips,
}

impl Variant {
    fn name(self) -> &'static str {
        match self {
            Variant::Module => "vote",
            Variant::Lua => "lua",
            Variant::RoundTrips => "round-trips",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Variant::Module => "VOTE.CAST",
            Variant::Lua => "Lua script (EVALSHA)",
            Variant::RoundTrips => "round trips + MULTI/EXEC",
        }
    }
}

/// One vote of the workload.
struct Vote {
    item: u64,
    voter: u64,
    direction: &'static str,
}

/// xorshift64*: the same votes for every variant, no dependency.
struct Votes {
    state: u64,
    items: u64,
    voters: u64,
}

impl Votes {
    fn new(seed: u64, config: &Config) -> Votes {
        Votes {
            state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            items: config.items,
            voters: config.voters,
        }
    }

    fn next_u64(&mut self) -> u64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// 45% up, 35% down, 20% clear: new votes, repeats, switches and clears.
    fn next(&mut self) -> Vote {
        let (item, voter, kind) = (self.next_u64(), self.next_u64(), self.next_u64() % 20);
        Vote {
            item: item % self.items,
            voter: voter % self.voters,
            direction: match kind {
                0..=8 => "UP",
                9..=15 => "DOWN",
                _ => "CLEAR",
            },
        }
    }
}

struct Keys {
    scores: String,
    up: String,
    down: String,
    item: String,
    voter: String,
}

impl Keys {
    fn of(vote: &Vote) -> Keys {
        Keys {
            scores: "{bench}:score".into(),
            up: format!("{{bench}}:up:{}", vote.item),
            down: format!("{{bench}}:down:{}", vote.item),
            item: vote.item.to_string(),
            voter: format!("user:{}", vote.voter),
        }
    }
}

/// `[score, ups, downs, changed]`, as VOTE.CAST and the script reply.
type Reply = (f64, i64, i64, i64);

/// The one command that casts `vote` with VOTE.CAST or the script.
fn vote_command(variant: Variant, sha: &str, vote: &Vote) -> redis::Cmd {
    let k = Keys::of(vote);
    let weight = WEIGHT.to_string();
    let mut cmd = match variant {
        Variant::Module => redis::cmd("VOTE.CAST"),
        Variant::Lua => {
            let mut cmd = redis::cmd("EVALSHA");
            cmd.arg(sha).arg(3);
            cmd
        }
        Variant::RoundTrips => unreachable!("round trips are not one command"),
    };
    cmd.arg(&[&k.scores, &k.up, &k.down, &k.item, &k.voter, vote.direction]);
    if variant == Variant::Module {
        cmd.arg("WEIGHT");
    }
    cmd.arg(&[&weight, &weight]);
    cmd
}

/// Casts `votes` (several only when pipelining); returns the retries.
fn cast(
    con: &mut Connection,
    variant: Variant,
    sha: &str,
    votes: &[Vote],
) -> redis::RedisResult<u64> {
    if variant == Variant::RoundTrips {
        return votes
            .iter()
            .map(|vote| cast_in_transaction(con, &Keys::of(vote), vote.direction))
            .sum();
    }
    let mut pipe = redis::pipe();
    for vote in votes {
        pipe.add_command(vote_command(variant, sha, vote));
    }
    let _: Vec<Reply> = pipe.query(con)?;
    Ok(0)
}

/// What a client does without zkit or Lua: watch the voter sets and read
/// them in one round trip, then write and read back in MULTI/EXEC, again if
/// another client changed a watched set in between. Returns the retries.
fn cast_in_transaction(con: &mut Connection, k: &Keys, direction: &str) -> redis::RedisResult<u64> {
    let (up, down) = (direction == "UP", direction == "DOWN");
    for retries in 0.. {
        let (was_up, was_down): (bool, bool) = redis::pipe()
            .cmd("WATCH")
            .arg(&k.up)
            .arg(&k.down)
            .ignore()
            .cmd("SISMEMBER")
            .arg(&k.up)
            .arg(&k.voter)
            .cmd("SISMEMBER")
            .arg(&k.down)
            .arg(&k.voter)
            .query(con)?;
        let mut delta = 0.0;
        let mut tx = redis::pipe();
        tx.atomic();
        if up != was_up {
            tx.cmd(if up { "SADD" } else { "SREM" })
                .arg(&k.up)
                .arg(&k.voter)
                .ignore();
            delta += if up { WEIGHT } else { -WEIGHT };
        }
        if down != was_down {
            tx.cmd(if down { "SADD" } else { "SREM" })
                .arg(&k.down)
                .arg(&k.voter)
                .ignore();
            delta += if down { -WEIGHT } else { WEIGHT };
        }
        let changed = up != was_up || down != was_down;
        if changed {
            tx.cmd("ZINCRBY").arg(&k.scores).arg(delta).arg(&k.item);
        } else {
            tx.cmd("ZSCORE").arg(&k.scores).arg(&k.item);
        }
        tx.cmd("SCARD").arg(&k.up).cmd("SCARD").arg(&k.down);
        let reply: Option<(Option<f64>, i64, i64)> = tx.query(con)?;
        if reply.is_some() {
            return Ok(retries);
        }
    }
    unreachable!("the retry loop only ends by returning")
}

struct Measurement {
    ops_per_s: f64,
    server_us_per_op: f64,
    retries: u64,
}

/// The server's CPU seconds so far (all its threads).
fn server_cpu_s(con: &mut Connection) -> redis::RedisResult<f64> {
    let info: String = redis::cmd("INFO").arg("cpu").query(con)?;
    Ok(info
        .lines()
        .filter(|l| l.starts_with("used_cpu_sys:") || l.starts_with("used_cpu_user:"))
        .filter_map(|l| l.split(':').nth(1)?.trim().parse::<f64>().ok())
        .sum())
}

fn measure(
    config: &Config,
    variant: Variant,
    pipeline: u64,
    sha: &str,
) -> Result<Measurement, String> {
    let mut con = config.connect().map_err(|e| e.to_string())?;
    redis::cmd("FLUSHDB")
        .query::<()>(&mut con)
        .map_err(|e| e.to_string())?;
    let batches = config.requests / config.connections / pipeline;
    let per_connection = batches * pipeline;
    let barrier = Arc::new(Barrier::new(config.connections as usize + 1));
    let workers: Vec<_> = (0..config.connections)
        .map(|seed| {
            let (config, barrier, sha) = (config.clone(), barrier.clone(), sha.to_string());
            std::thread::spawn(move || -> Result<u64, String> {
                // Reach the barrier even without a connection, or the
                // others would wait forever.
                let con = config.connect();
                barrier.wait();
                let mut con = con.map_err(|e| e.to_string())?;
                let mut votes = Votes::new(seed, &config);
                let mut retries = 0;
                for _ in 0..batches {
                    let batch: Vec<Vote> = (0..pipeline).map(|_| votes.next()).collect();
                    retries += cast(&mut con, variant, &sha, &batch).map_err(|e| e.to_string())?;
                }
                Ok(retries)
            })
        })
        .collect();
    let cpu_before = server_cpu_s(&mut con).map_err(|e| e.to_string())?;
    barrier.wait();
    let started = Instant::now();
    let mut retries = 0;
    for worker in workers {
        retries += worker
            .join()
            .map_err(|_| "a worker panicked".to_string())??;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = server_cpu_s(&mut con).map_err(|e| e.to_string())? - cpu_before;
    check_scores(&mut con, config).map_err(|e| format!("{}: {e}", variant.title()))?;
    let ops = (per_connection * config.connections) as f64;
    Ok(Measurement {
        ops_per_s: ops / elapsed,
        server_us_per_op: cpu * 1e6 / ops,
        retries,
    })
}

/// Every item's score is 432 x (ups - downs): the variant did the work right.
fn check_scores(con: &mut Connection, config: &Config) -> Result<(), String> {
    for item in 0..config.items {
        let vote = Vote {
            item,
            voter: 0,
            direction: "",
        };
        let k = Keys::of(&vote);
        let score: Option<f64> = con.zscore(&k.scores, &k.item).map_err(|e| e.to_string())?;
        let ups: i64 = con.scard(&k.up).map_err(|e| e.to_string())?;
        let downs: i64 = con.scard(&k.down).map_err(|e| e.to_string())?;
        let expected = WEIGHT * (ups - downs) as f64;
        if score.unwrap_or(0.0) != expected {
            return Err(format!(
                "item {item}: score {score:?}, but {ups} up and {downs} down votes make {expected}"
            ));
        }
    }
    Ok(())
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn run(config: &Config) -> Result<(), String> {
    let mut con = config.connect().map_err(|e| e.to_string())?;
    let script = include_str!("../bench/lua/vote_cast.lua");
    let sha: String = redis::cmd("SCRIPT")
        .arg("LOAD")
        .arg(script)
        .query(&mut con)
        .map_err(|e| e.to_string())?;
    let p = config.pipeline;
    let cases: Vec<(Variant, u64)> = [
        (Variant::Module, 1),
        (Variant::Lua, 1),
        (Variant::RoundTrips, 1),
        (Variant::Module, p),
        (Variant::Lua, p),
    ]
    .into_iter()
    .filter(|(variant, _)| config.only.is_none_or(|only| only == *variant))
    .collect();
    let mut results: Vec<Vec<Measurement>> = cases.iter().map(|_| Vec::new()).collect();
    // Rounds interleave the cases, so a noisy moment hits all of them.
    for _ in 0..config.rounds {
        for (&(variant, pipeline), runs) in cases.iter().zip(&mut results) {
            let m = measure(config, variant, pipeline, &sha)?;
            eprintln!(
                "measured: {:<26} {:>4} {:>10.0} votes/s {:>8.2} server us/vote",
                variant.title(),
                pipeline,
                m.ops_per_s,
                m.server_us_per_op
            );
            runs.push(m);
        }
    }
    redis::cmd("FLUSHDB")
        .query::<()>(&mut con)
        .map_err(|e| e.to_string())?;
    let summary: Vec<(f64, f64, u64)> = results
        .iter()
        .map(|runs| {
            (
                median(runs.iter().map(|m| m.ops_per_s).collect()),
                median(runs.iter().map(|m| m.server_us_per_op).collect()),
                runs.iter().map(|m| m.retries).sum(),
            )
        })
        .collect();
    println!(
        "VOTE.CAST vs Lua vs round trips: {} votes x {} rounds (median), {} connections, \
         {} items x {} voters, 45% UP 35% DOWN 20% CLEAR, WEIGHT 432 432, every run checked",
        config.requests, config.rounds, config.connections, config.items, config.voters
    );
    println!(
        "{:<26} {:>4} {:>10} {:>15} {:>14} {:>14} {:>8}",
        "variant", "pipe", "votes/s", "server us/vote", "VOTE.CAST is", "server CPU x", "retries"
    );
    for (&(variant, pipeline), &(ops, us, retries)) in cases.iter().zip(&summary) {
        // Compared with VOTE.CAST at the same pipeline depth, when it ran.
        let module = cases
            .iter()
            .zip(&summary)
            .find(|((v, p), _)| *v == Variant::Module && *p == pipeline)
            .map(|(_, &(module_ops, module_us, _))| (module_ops / ops, us / module_us));
        let ratio = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{r:.2}x"));
        println!(
            "{:<26} {:>4} {:>10.0} {:>15.2} {:>14} {:>14} {:>8}",
            variant.title(),
            pipeline,
            ops,
            us,
            ratio(module.map(|m| m.0)),
            ratio(module.map(|m| m.1)),
            retries
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    match Config::parse() {
        Ok(Some(config)) => match run(&config) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("vote_load: {e}");
                ExitCode::FAILURE
            }
        },
        Ok(None) => {
            eprintln!(
                "vote_load: skipped, needs --port of a server with zkit (make bench runs it)"
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("vote_load: {e}");
            ExitCode::FAILURE
        }
    }
}
