//! Open-loop load generator for `make bench`: sends one command at a fixed
//! request rate and reports the latency percentiles (p50, p99, p99.9).
//!
//! redis-benchmark only runs flat out (closed loop: a client sends its next
//! request when the previous reply is in), which measures throughput, and
//! its latencies then mostly measure the queue it builds. Here each
//! connection's requests are due on a fixed schedule whatever the replies
//! do, and a request's latency runs from the time it was due, not the time
//! it was sent, so a stalled server counts fully (no coordinated omission).
//!
//! Each connection has a writer thread, which sends on schedule, and a reader
//! thread, which parses replies and matches them to the due times in order.
//!
//! The calls come from a file (bench/calls_file.rs; `--group` commands a
//! call, sent together, its latency running to its last reply); connection
//! c sends calls c, c + C, ... and starts over at the end of the file.
//!
//! usage: cargo bench --bench latency -- --port P --file F [--group G]
//!        [--rate R] [--seconds S] [--connections C]
//! Prints `p50_us p99_us p999_us achieved_rate errors`.

#[path = "calls_file.rs"]
mod calls_file;

use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

struct Config {
    port: u16,
    rate: f64,
    seconds: f64,
    connections: usize,
    file: String,
    group: usize,
}

impl Config {
    fn parse() -> Result<Option<Config>, String> {
        let mut config = Config {
            port: 0,
            rate: 20_000.0,
            seconds: 5.0,
            connections: 10,
            file: String::new(),
            group: 1,
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
                    .parse::<f64>()
                    .ok()
                    .filter(|v| *v > 0.0)
                    .ok_or(format!("{name} {value}: not a positive number"))
            };
            match name.as_str() {
                "--port" => config.port = number()? as u16,
                "--rate" => config.rate = number()?,
                "--seconds" => config.seconds = number()?,
                "--connections" => config.connections = number()? as usize,
                "--file" => config.file = value.clone(),
                "--group" => config.group = number()? as usize,
                _ => return Err(format!("unknown option {name}")),
            }
        }
        if config.port == 0 {
            return Ok(None);
        }
        if config.file.is_empty() {
            return Err("no --file".into());
        }
        Ok(Some(config))
    }
}

/// Latencies in microseconds, and the error replies, of one connection.
fn run_connection(
    config: &Config,
    calls: &[Vec<u8>],
    index: usize,
    start: Instant,
) -> Result<(Vec<u32>, u64), String> {
    let stream = TcpStream::connect(("127.0.0.1", config.port)).map_err(|e| e.to_string())?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let mut writer = stream.try_clone().map_err(|e| e.to_string())?;
    let interval = Duration::from_secs_f64(config.connections as f64 / config.rate);
    let count = (config.seconds * config.rate / config.connections as f64) as u64;
    // Connections take turns, so the server sees an even stream.
    let offset = interval.mul_f64(index as f64 / config.connections as f64);
    let (due_times, replies) = mpsc::channel::<Instant>();
    let group = config.group;
    let reader = std::thread::spawn(move || -> Result<(Vec<u32>, u64), String> {
        let mut input = BufReader::new(stream);
        let mut parser = redis::Parser::new();
        let mut latencies = Vec::with_capacity(count as usize);
        let mut errors = 0;
        for due in replies {
            for _ in 0..group {
                let reply = parser.parse_value(&mut input).map_err(|e| e.to_string())?;
                if matches!(reply, redis::Value::ServerError(_)) {
                    errors += 1;
                }
            }
            latencies.push(due.elapsed().as_micros().min(u32::MAX as u128) as u32);
        }
        Ok((latencies, errors))
    });
    let mine: Vec<&Vec<u8>> = calls
        .iter()
        .skip(index % calls.len())
        .step_by(config.connections)
        .collect();
    for k in 0..count {
        let due = start + offset + interval.mul_f64(k as f64);
        let payload = mine[k as usize % mine.len()];
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        writer.write_all(payload).map_err(|e| e.to_string())?;
        if due_times.send(due).is_err() {
            break;
        }
    }
    drop(due_times);
    reader.join().map_err(|_| "a reader panicked".to_string())?
}

/// The value below which `fraction` of the sorted values lie.
fn percentile(sorted: &[u32], fraction: f64) -> u32 {
    let i = ((sorted.len() as f64 * fraction).ceil() as usize).clamp(1, sorted.len());
    sorted[i - 1]
}

fn run(config: Config) -> Result<(), String> {
    // A call's commands, as one payload.
    let calls: Vec<Vec<u8>> = calls_file::read_commands(&config.file)?
        .chunks(config.group)
        .map(|call| call.concat())
        .collect();
    let calls = std::sync::Arc::new(calls);
    let config = std::sync::Arc::new(config);
    let start = Instant::now() + Duration::from_millis(50);
    let workers: Vec<_> = (0..config.connections)
        .map(|index| {
            let (config, calls) = (config.clone(), calls.clone());
            std::thread::spawn(move || run_connection(&config, &calls, index, start))
        })
        .collect();
    let mut latencies = Vec::new();
    let mut errors = 0;
    for worker in workers {
        let (mut l, e) = worker
            .join()
            .map_err(|_| "a connection panicked".to_string())??;
        latencies.append(&mut l);
        errors += e;
    }
    let elapsed = start.elapsed().as_secs_f64();
    if latencies.is_empty() {
        return Err("no request was sent".into());
    }
    latencies.sort_unstable();
    println!(
        "{} {} {} {:.0} {}",
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
        percentile(&latencies, 0.999),
        latencies.len() as f64 / elapsed,
        errors
    );
    Ok(())
}

fn main() -> ExitCode {
    match Config::parse() {
        Ok(Some(config)) => match run(config) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("latency: {e}");
                ExitCode::FAILURE
            }
        },
        Ok(None) => {
            eprintln!("latency: skipped, needs --port of a server (make bench runs it)");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("latency: {e}");
            ExitCode::FAILURE
        }
    }
}
