//! Every command that takes a list (boards, members, keys and weights,
//! score-member pairs, tasks, limits, windows, items) costs the server about
//! linearly in it, on the module and on the Functions library: any client may
//! send a list of thousands, and the server answers nobody while it works.
//!
//! Each command is called with 8N items at once, and with the same 8N items
//! in 8 calls of N: a linear command costs about as much either way, so the
//! call of 8N costs about 8 times a call of N (a little less, as the 8 calls
//! pay the fixed cost of a call 8 times), a quadratic one 64 times.
//!
//! How it is measured, so that a loaded 2-core machine does not decide:
//! - the server's own CPU time over each call (its main thread's user and
//!   system time from `INFO cpu`, read just before and just after), so the
//!   time the server waits for a core is not counted;
//! - the 8 calls of N name the 8 eighths of what the call of 8N names, one
//!   after another: both touch the same data for about as long, so the
//!   neighbours that empty the server's caches while it runs (or waits
//!   between calls) cost both alike. A single call of N, short enough to run
//!   from a warm cache, made linear commands measure up to 13x here;
//! - the call of 8N is set against the 8 calls of N run right after it, round
//!   by round: the same work costs up to twice as much CPU time at one
//!   moment as at another on a machine whose cores are shared, so costs are
//!   compared only within a round; the round with the least ratio counts, as
//!   a busy neighbour only ever makes it worse;
//! - the data the calls touch is filled beforehand, and what a call consumes
//!   (tasks in flight) put back before each, unmeasured.

use std::ops::Range;

use crate::common::client::{command, library_command, query};
use crate::common::{functions_engine, load_library, Server, ServerConfig};
use redis::Connection;

/// The most a call with 8N items may cost, as a multiple of a call with N
/// (the mean of the 8 that name the same items). Linear commands measured
/// 4.7x to 8.7x on a 2-core machine with a load of 3 to 7 (below 8x from the
/// fixed cost of a call, which the 8 calls pay 8 times; above it from a
/// larger call's data spilling out of the caches, and on the library from
/// its garbage collector walking a larger heap). A quadratic one measures
/// 64x (RANK.MGIFT on 0.4.0: 43x at 2,500 boards), so 1.5 times the linear
/// 8x leaves room on both sides.
const MOST: f64 = 12.0;

/// Rounds measured, after one that is not.
const ROUNDS: usize = 3;

#[derive(Clone, Copy, Debug)]
enum Engine {
    Module,
    Library,
}

impl Engine {
    /// The engines under test: the module and the library beside it; only
    /// the library when the suite runs with `ZKIT_ENGINE=functions`, where
    /// every server serves the library.
    fn all() -> &'static [Engine] {
        if functions_engine() {
            &[Engine::Library]
        } else {
            &[Engine::Module, Engine::Library]
        }
    }

    fn server(self) -> Server {
        match self {
            Engine::Module => Server::start(),
            Engine::Library => {
                let server = Server::with(ServerConfig::without_module());
                load_library(&mut server.connect());
                server
            }
        }
    }

    fn command(self, con: &mut Connection, words: &[String]) -> redis::Cmd {
        let words: Vec<&[u8]> = words.iter().map(|w| w.as_bytes()).collect();
        match self {
            Engine::Module => command(con, &words),
            Engine::Library => library_command(con, &words),
        }
    }
}

/// How one command is called with a list: items `0..8N` in one call, or
/// an eighth of them.
struct ListCall {
    /// The command and the list that grows, as the results name them.
    what: &'static str,
    /// N: the items of the smaller calls.
    items: usize,
    /// Fills the data the calls touch, once: given 8N.
    prepare: fn(&mut Connection, usize),
    /// Puts back what the calls of items `0..8N` consume (given 8N).
    restore: fn(&mut Connection, usize),
    /// The call naming `items`; `serial` differs from call to call (for
    /// what must not repeat, such as event ids).
    call: fn(Range<usize>, usize) -> Vec<String>,
}

fn nothing(_: &mut Connection, _: usize) {}

/// The server's CPU time so far, in microseconds: what its main thread has
/// spent on a core, user and system.
fn server_cpu_us(con: &mut Connection) -> i64 {
    let info: String = query(con, &["INFO", "cpu"]);
    let seconds = |field: &str| -> f64 {
        info.lines()
            .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or_else(|| panic!("{field} in INFO cpu: {info}"))
    };
    let total = seconds("used_cpu_user_main_thread") + seconds("used_cpu_sys_main_thread");
    (total * 1e6).round() as i64
}

/// How many times a call with N items the call with 8N items costs on
/// `engine` (server CPU time), in the round where it costs the least: in each
/// round the call of 8N is set against the mean of the 8 calls of N that name
/// the same items right after it, so both meet the machine as busy as it was
/// then.
fn cost_ratio(engine: Engine, list: &ListCall) -> Ratio {
    let server = engine.server();
    let mut con = server.connect();
    let (n, large) = (list.items, 8 * list.items);
    (list.prepare)(&mut con, large);
    let mut serial = 0;
    let mut cost = |con: &mut Connection, items: Range<usize>| -> i64 {
        serial += 1;
        let cmd = engine.command(con, &(list.call)(items.clone(), serial));
        let before = server_cpu_us(con);
        let reply: redis::RedisResult<redis::Value> = cmd.query(con);
        let after = server_cpu_us(con);
        if let Err(e) = reply {
            panic!("{} with items {items:?} on the {engine:?}: {e}", list.what);
        }
        after - before
    };
    let mut least: Option<Ratio> = None;
    // The first round is not measured: keys created, the server's tables
    // grown.
    for round in 0..=ROUNDS {
        (list.restore)(&mut con, large);
        let at_once = cost(&mut con, 0..large);
        (list.restore)(&mut con, large);
        let in_eighths: i64 = (0..8).map(|k| cost(&mut con, k * n..(k + 1) * n)).sum();
        let ratio = Ratio {
            large_us: at_once,
            small_us: in_eighths as f64 / 8.0,
        };
        if round > 0
            && least
                .as_ref()
                .is_none_or(|least| ratio.times() < least.times())
        {
            least = Some(ratio);
        }
    }
    least.expect("measured rounds")
}

/// A call with 8N items against a call with N.
struct Ratio {
    large_us: i64,
    small_us: f64,
}

impl Ratio {
    fn times(&self) -> f64 {
        self.large_us as f64 / self.small_us.max(1.0)
    }
}

/// Measures `list` on every engine and asserts that the call of 8N items
/// costs at most [`MOST`] times a call of N.
fn assert_linear(list: ListCall) {
    let mut superlinear = Vec::new();
    for &engine in Engine::all() {
        let ratio = cost_ratio(engine, &list);
        let line = format!(
            "{} on the {engine:?}: {} items {:.0} µs a call, {} items {} µs: {:.1}x",
            list.what,
            list.items,
            ratio.small_us,
            8 * list.items,
            ratio.large_us,
            ratio.times()
        );
        println!("{line}");
        if ratio.times() > MOST {
            superlinear.push(line);
        }
    }
    assert!(
        superlinear.is_empty(),
        "8 times the items cost more than {MOST} times as much: {superlinear:#?}"
    );
}

/// Writes members `<prefix><i>` for `i` in `items`, scored `score(i)`,
/// into `key`.
fn fill(
    con: &mut Connection,
    key: &str,
    prefix: &str,
    items: Range<usize>,
    score: impl Fn(usize) -> f64,
) {
    let mut pipe = redis::pipe();
    for start in items.clone().step_by(1000) {
        let zadd = pipe.cmd("ZADD").arg(key);
        for i in start..items.end.min(start + 1000) {
            zadd.arg(score(i)).arg(format!("{prefix}{i}"));
        }
        zadd.ignore();
    }
    pipe.query::<()>(con).expect("fill");
}

fn words(fixed: &[&str], items: impl Iterator<Item = String>) -> Vec<String> {
    fixed.iter().map(|w| w.to_string()).chain(items).collect()
}

/// A list's items preceded by their count (`numkeys`).
fn counted(name: &str, items: Range<usize>, item: impl Fn(usize) -> String) -> Vec<String> {
    let count = items.len().to_string();
    words(&[name, &count], items.map(item))
}

/// A gift of 1 to the fan on each of `boards`.
fn gift_to_rooms(boards: Range<usize>) -> Vec<String> {
    let mut call = counted("RANK.MGIFT", boards, |i| format!("room:{i}"));
    call.extend(["fan", "1"].map(String::from));
    call
}

#[test]
fn rank_mgift_costs_linear_in_its_boards() {
    assert_linear(ListCall {
        what: "RANK.MGIFT numkeys key...",
        items: 2500,
        prepare: nothing,
        restore: nothing,
        call: |boards, _| gift_to_rooms(boards),
    });
}

#[test]
fn rank_mgift_with_idmp_costs_linear_in_its_boards() {
    assert_linear(ListCall {
        what: "RANK.MGIFT numkeys key... IDMP",
        items: 500,
        prepare: nothing,
        restore: nothing,
        call: |boards, serial| {
            let mut call = gift_to_rooms(boards);
            let event = format!("gift:{serial}");
            call.extend(["IDMP", "seen", &event].map(String::from));
            call
        },
    });
}

/// N for the commands whose items cost about alike.
const ITEMS: usize = 1000;

#[test]
fn rank_mget_costs_linear_in_its_members() {
    assert_linear(ListCall {
        what: "RANK.MGET key MEMBERS member...",
        items: ITEMS,
        prepare: |con, large| fill(con, "board", "fan:", 0..large, |i| i as f64),
        restore: nothing,
        call: |members, _| {
            let members = members.map(|i| format!("fan:{i}"));
            words(&["RANK.MGET", "board", "MEMBERS"], members)
        },
    });
}

/// Daily boards `day:<i>`, each with the same three members, so that a
/// merge's result stays three members whatever the number of inputs.
fn daily_boards(con: &mut Connection, large: usize) {
    let mut pipe = redis::pipe();
    for i in 0..large {
        pipe.cmd("ZADD")
            .arg(format!("day:{i}"))
            .arg(&["1", "ann", "2", "bob", "3", "cy"])
            .ignore();
    }
    pipe.query::<()>(con).expect("daily boards");
}

fn merge_of(days: Range<usize>, destination: &str) -> Vec<String> {
    let mut call = counted("RANK.MERGE", days, |i| format!("day:{i}"));
    call.insert(1, destination.to_string());
    call
}

#[test]
fn rank_merge_costs_linear_in_its_keys_and_weights() {
    assert_linear(ListCall {
        what: "RANK.MERGE destkey numkeys key... WEIGHTS weight...",
        items: ITEMS,
        prepare: daily_boards,
        restore: nothing,
        call: |days, _| {
            let mut call = merge_of(days.clone(), "week");
            call.push("WEIGHTS".into());
            call.extend(days.map(|i| (1 + i % 7).to_string()));
            call
        },
    });
}

#[test]
fn rank_merge_step_costs_linear_in_its_keys() {
    assert_linear(ListCall {
        what: "RANK.MERGE destkey numkeys key... STEP",
        // A step costs the library about 30 µs a key.
        items: ITEMS / 2,
        prepare: daily_boards,
        restore: nothing,
        call: |days, serial| {
            // The first step of a merge of its own.
            let mut call = merge_of(days, &format!("week:{serial}"));
            let staging = format!("staging:{serial}");
            call.extend(["STEP", "10", &staging, "0"].map(String::from));
            call
        },
    });
}

#[test]
fn feed_add_costs_linear_in_its_items() {
    assert_linear(ListCall {
        what: "FEED.ADD key score member...",
        items: ITEMS,
        prepare: |con, large| fill(con, "feed", "post:", 0..large, |i| i as f64),
        restore: nothing,
        call: |posts, serial| {
            // Posted anew, newest: every call moves every post it names.
            let pairs =
                posts.flat_map(|i| [(serial * 100_000 + i).to_string(), format!("post:{i}")]);
            words(&["FEED.ADD", "feed"], pairs)
        },
    });
}

/// When the lease of a task in flight ends: long after the test, one task
/// a millisecond.
fn lease_end_ms(task: usize) -> f64 {
    1e13 + task as f64
}

/// Tasks `task:<i>` in flight, each delivered once.
fn in_flight(con: &mut Connection, tasks: Range<usize>) {
    fill(con, "inflight", "task:", tasks.clone(), lease_end_ms);
    fill(con, "deliveries", "task:", tasks, |_| 1.0);
}

#[test]
fn delay_ack_costs_linear_in_its_tasks() {
    assert_linear(ListCall {
        what: "DELAY.ACK inflight DELIVERIES deliveries TASKS task...",
        items: ITEMS,
        // The tasks the calls acknowledge, and as many that stay in flight.
        prepare: |con, large| in_flight(con, 0..2 * large),
        restore: |con, large| in_flight(con, 0..large),
        call: |tasks, _| {
            let tasks = tasks.map(|i| format!("task:{i}"));
            words(
                &["DELAY.ACK", "inflight", "DELIVERIES", "deliveries", "TASKS"],
                tasks,
            )
        },
    });
}

#[test]
fn rate_hit_costs_linear_in_its_limits() {
    assert_linear(ListCall {
        what: "RATE.HIT key window-ms limit...",
        items: ITEMS,
        prepare: nothing,
        restore: nothing,
        call: |limits, _| {
            let limits = limits.flat_map(|i| [(60_000 + i).to_string(), "1000000".to_string()]);
            words(&["RATE.HIT", "comments"], limits)
        },
    });
}

#[test]
fn rate_stats_costs_linear_in_its_windows() {
    assert_linear(ListCall {
        what: "RATE.STATS key WINDOWS window-ms...",
        items: ITEMS,
        // A log of 100 hits, logged now.
        prepare: |con, _| {
            let now_ms = query::<Vec<i64>>(con, &["TIME"])[0] * 1000;
            fill(con, "comments", &format!("{now_ms}-"), 0..100, |_| {
                now_ms as f64
            });
        },
        restore: nothing,
        call: |windows, _| {
            let windows = windows.map(|i| (1000 + 100 * i).to_string());
            words(&["RATE.STATS", "comments", "WINDOWS"], windows)
        },
    });
}

#[test]
fn recent_add_costs_linear_in_its_items() {
    const CAP: usize = 8 * ITEMS;
    assert_linear(ListCall {
        what: "RECENT.ADD key CAP n ITEMS member...",
        items: ITEMS,
        // A list at its cap, viewed in the past hour.
        prepare: |con, large| {
            let hour_ago = query::<Vec<i64>>(con, &["TIME"])[0] * 1000 - 3_600_000;
            fill(con, "viewed", "goods:", 0..large, |i| {
                (hour_ago + i as i64) as f64
            });
        },
        restore: nothing,
        call: |goods, serial| {
            // New views, each trimming the oldest.
            let items = goods.map(|i| format!("goods:{serial}:{i}"));
            words(
                &["RECENT.ADD", "viewed", "CAP", &CAP.to_string(), "ITEMS"],
                items,
            )
        },
    });
}
