//! Closed-loop load generator for `make bench` (bench/bench.py): sends the
//! calls of a file (bench/calls_file.rs) as fast as the server takes them,
//! each connection with a fixed number of requests in flight, as
//! redis-benchmark does with -P; unlike redis-benchmark, each call can be
//! any sequence of commands, so the module's call, the natives that give
//! its answer and the script a team would write run the same calls on the
//! same members in the same order.
//!
//! Calls (`--group` commands each, kept together and in order) go to the
//! connections in turn. Prints `seconds replies errors`, and the first
//! error reply on stderr.
//!
//! usage: cargo bench --bench load -- --port P --file F [--group G]
//!        [--connections C] [--pipeline N]

#[path = "calls_file.rs"]
mod calls_file;

use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::process::ExitCode;
use std::sync::{Arc, Barrier};
use std::time::Instant;

struct Config {
    port: u16,
    file: String,
    group: usize,
    connections: usize,
    pipeline: usize,
}

impl Config {
    fn parse() -> Result<Option<Config>, String> {
        let mut config = Config {
            port: 0,
            file: String::new(),
            group: 1,
            connections: 50,
            pipeline: 16,
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
                    .parse::<usize>()
                    .ok()
                    .filter(|v| *v > 0)
                    .ok_or(format!("{name} {value}: not a positive number"))
            };
            match name.as_str() {
                "--port" => config.port = number()? as u16,
                "--file" => config.file = value.clone(),
                "--group" => config.group = number()?,
                "--connections" => config.connections = number()?,
                "--pipeline" => config.pipeline = number()?,
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

/// Sends `commands` in batches of `pipeline`, each batch after the replies
/// of the one before; the replies and the first error reply.
fn run_connection(
    port: u16,
    commands: Vec<&[u8]>,
    pipeline: usize,
    start: &Barrier,
) -> Result<(u64, Option<String>), String> {
    let stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let mut writer = stream.try_clone().map_err(|e| e.to_string())?;
    let mut reader = BufReader::new(stream);
    let mut parser = redis::Parser::new();
    let mut errors = 0;
    let mut first_error = None;
    start.wait();
    for batch in commands.chunks(pipeline) {
        writer
            .write_all(&batch.concat())
            .map_err(|e| e.to_string())?;
        for _ in batch {
            let reply = parser.parse_value(&mut reader).map_err(|e| e.to_string())?;
            if let redis::Value::ServerError(error) = reply {
                errors += 1;
                first_error.get_or_insert_with(|| format!("{error:?}"));
            }
        }
    }
    Ok((errors, first_error))
}

fn run(config: Config) -> Result<(), String> {
    let commands = calls_file::read_commands(&config.file)?;
    let calls: Vec<&[Vec<u8>]> = commands.chunks(config.group).collect();
    let connections = config.connections.min(calls.len());
    let start = Arc::new(Barrier::new(connections + 1));
    let commands = Arc::new(commands);
    let workers: Vec<_> = (0..connections)
        .map(|index| {
            let (commands, start, group) = (commands.clone(), start.clone(), config.group);
            let (port, pipeline) = (config.port, config.pipeline);
            std::thread::spawn(move || {
                let mine: Vec<&[u8]> = commands
                    .chunks(group)
                    .skip(index)
                    .step_by(connections)
                    .flatten()
                    .map(Vec::as_slice)
                    .collect();
                run_connection(port, mine, pipeline, &start)
            })
        })
        .collect();
    start.wait();
    let began = Instant::now();
    let mut errors = 0;
    let mut first_error = None;
    for worker in workers {
        let (e, first) = worker
            .join()
            .map_err(|_| "a connection panicked".to_string())??;
        errors += e;
        first_error = first_error.or(first);
    }
    let seconds = began.elapsed().as_secs_f64();
    if let Some(error) = first_error {
        eprintln!("load: {errors} error replies, the first: {error}");
    }
    println!("{seconds:.6} {} {errors}", commands.len());
    Ok(())
}

fn main() -> ExitCode {
    match Config::parse() {
        Ok(Some(config)) => match run(config) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("load: {e}");
                ExitCode::FAILURE
            }
        },
        Ok(None) => {
            eprintln!("load: skipped, needs --port of a server (make bench runs it)");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("load: {e}");
            ExitCode::FAILURE
        }
    }
}
