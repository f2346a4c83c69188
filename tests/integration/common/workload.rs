//! The registry of command families that every production check iterates:
//! cluster routing, replication, persistence, ACL, OOM, MULTI/EXEC and Lua,
//! argument fuzzing, INFO counters and the valgrind leak check all take their
//! calls from [`FAMILIES`], so a family that is registered here is covered by
//! all of them.
//!
//! # Adding a family
//!
//! Write a `const NAME: Family` below (copy [`RANK`]) and add ONE line,
//! `NAME,`, to [`FAMILIES`]. The contract of each field:
//!
//! - `write` returns a random write call that SUCCEEDS whatever state earlier
//!   calls of the family left behind, touching only keys taken from `keys`
//!   (several of them for multi-key commands, so CROSSSLOT and ACL checks see
//!   them). Keep values small enough that thousands of calls cannot overflow,
//!   TTLs long (minutes: a key must not expire in the middle of a check), and
//!   never block (a blocking command gets a short timeout).
//! - `read` does the same for read-only calls, whose replies depend on the
//!   data alone: the checks compare them across restarts and replicas. (The
//!   stats commands answer with the server's clock and the key's memory, so
//!   they are in `fuzz` only; tests/integration/stats.rs checks their replies.)
//! - Key names appear in a call only where the command takes a key, never as
//!   a member or value: the ACL check asserts that COMMAND GETKEYS finds
//!   exactly the keys a call names ([`named_keys`]), and the cluster check
//!   routes by them. A call may name a key of its own beside one of `keys`,
//!   spelled `<key>:<suffix>` (a merge's staging key).
//! - `fuzz` lists argument-vector templates covering every command of the
//!   family (reads and writes). Placeholders are filled with random values,
//!   valid or hostile: `$key`, `$member` (any string), `$int`, `$float`,
//!   `$time` (unix ms). Every other word is kept literally, so write a
//!   blocking command's timeout literally (and short).
//!
//! Every key name starts with the prefix the check passes and contains the
//! family name (see [`Family::keys`]), so families never share keys.
//!
//! The fuzz check also runs templates made from every declaration's
//! examples ([`example_templates`]), so a new command of a family is fuzzed
//! without a line here; a command of no family here fails
//! `every_command_is_registered_documented_and_versioned` (tests/integration/production.rs):
//! a new family is not done until it has its line here.

use std::time::{SystemTime, UNIX_EPOCH};

use super::facts;

/// One command family as the production checks see it.
pub struct Family {
    /// Lowercase, the prefix of the family's commands (`rank` for RANK.*).
    pub name: &'static str,
    /// A random write call that succeeds, on keys drawn from `keys`.
    pub write: fn(&mut Rng, &[String]) -> Vec<String>,
    /// A random read-only call that succeeds, on keys drawn from `keys`.
    pub read: fn(&mut Rng, &[String]) -> Vec<String>,
    /// Argument vectors with placeholders, for fuzzing.
    pub fuzz: &'static [&'static [&'static str]],
}

/// Every family, one line each.
pub static FAMILIES: &[Family] = &[
    RANK,   // RANK.*
    FEED,   // FEED.*
    DELAY,  // DELAY.*
    RATE,   // RATE.*
    RECENT, // RECENT.*
    VOTE,   // VOTE.*
];

/// The keys a call of a family names: the words that are one of `keys`,
/// or a key beside one of them (`<key>:<suffix>`).
pub fn named_keys<'a>(call: &'a [String], keys: &[String]) -> Vec<&'a String> {
    call.iter()
        .filter(|word| {
            keys.iter().any(|key| {
                word.strip_prefix(key.as_str())
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(':'))
            })
        })
        .collect()
}

impl Family {
    /// `n` key names of this family: `{prefix}{family}:{i}`. A prefix like
    /// `{tag}` puts them in one cluster slot; `board:` matches an ACL pattern.
    pub fn keys(&self, prefix: &str, n: usize) -> Vec<String> {
        (0..n)
            .map(|i| format!("{prefix}{}:{i}", self.name))
            .collect()
    }

    /// A random call of the family: mostly writes, some reads.
    pub fn any_call(&self, rng: &mut Rng, keys: &[String]) -> Vec<String> {
        if rng.chance(70) {
            (self.write)(rng, keys)
        } else {
            (self.read)(rng, keys)
        }
    }
}

/// `count` random write and read calls of every family, interleaved, each on
/// that family's `keys_per_family` keys under `prefix`.
pub fn mixed_calls(
    rng: &mut Rng,
    prefix: &str,
    keys_per_family: usize,
    count: usize,
) -> Vec<Vec<String>> {
    let keys: Vec<Vec<String>> = FAMILIES
        .iter()
        .map(|f| f.keys(prefix, keys_per_family))
        .collect();
    (0..count)
        .map(|_| {
            let i = rng.below(FAMILIES.len() as u64) as usize;
            FAMILIES[i].any_call(rng, &keys[i])
        })
        .collect()
}

// ---- RANK -------------------------------------------------------------

/// 2024-01-01T00:00:00Z, the default tie-break epoch.
const RANK_EPOCH_MS: i64 = 1_704_067_200_000;

pub const RANK: Family = Family {
    name: "rank",
    write: rank_write,
    read: rank_read,
    fuzz: &[
        &["RANK.GIFT", "$key", "$member", "$int"],
        &["RANK.GIFT", "$key", "$member", "$int", "AT", "$time"],
        &["RANK.GIFT", "$key", "$member", "$int", "SHARED"],
        // TTLs literal and long (RECENT.ADD's are too): a key must not
        // expire between the snapshots a check compares.
        &["RANK.GIFT", "$key", "$member", "$int", "TTL", "86400"],
        &["RANK.SET", "$key", "$member", "$int", "GT", "TTL", "86400"],
        &[
            "RANK.MGIFT",
            "$int",
            "$key",
            "$key",
            "$member",
            "$int",
            "TTL",
            "86400",
        ],
        &[
            "RANK.GIFT",
            "$key",
            "$member",
            "$int",
            "IDMP",
            "$key",
            "$member",
        ],
        &[
            "RANK.SET", "$key", "$member", "$int", "GT", "IDMP", "$key", "$member", "RETAIN",
            "$int",
        ],
        &[
            "RANK.MGIFT",
            "$int",
            "$key",
            "$key",
            "$member",
            "$int",
            "IDMP",
            "$key",
            "$member",
        ],
        &["RANK.SET", "$key", "$member", "$int", "AT", "$time"],
        &[
            "RANK.SET", "$key", "$member", "$int", "SHARED", "AT", "$time",
        ],
        &["RANK.GET", "$key", "$member"],
        &["RANK.GET", "$key", "$member", "SHARED"],
        &["RANK.GET", "$key", "$member", "DENSE", "$key"],
        &["RANK.GIFT", "$key", "$member", "$int", "DENSE", "$key"],
        &[
            "RANK.TOP", "$key", "$int", "DENSE", "$key", "OFFSET", "$int",
        ],
        &[
            "RANK.REMOVE",
            "$key",
            "DENSE",
            "$key",
            "MEMBERS",
            "$member",
            "$member",
        ],
        &["RANK.REMOVE", "$key", "MEMBERS", "$member"],
        &["RANK.TOP", "$key", "$int", "OFFSET", "$int"],
        &["RANK.TOP", "$key", "$int", "OFFSET", "$int", "SHARED"],
        &["RANK.AROUND", "$key", "$member", "$int"],
        &["RANK.AROUND", "$key", "$member", "$int", "SHARED"],
        &["RANK.SET", "$key", "$member", "$int", "GT", "AT", "$time"],
        &["RANK.SET", "$key", "$member", "$int", "LT", "SHARED"],
        &["RANK.MGIFT", "$int", "$key", "$key", "$member", "$int"],
        &[
            "RANK.MGIFT",
            "$int",
            "$key",
            "$key",
            "$key",
            "$member",
            "$int",
            "AT",
            "$time",
            "SHARED",
        ],
        &["RANK.MGET", "$key", "MEMBERS", "$member", "$member"],
        &[
            "RANK.MGET",
            "$key",
            "SHARED",
            "MEMBERS",
            "$member",
            "$member",
            "$member",
        ],
        &[
            "RANK.MERGE",
            "$key",
            "$int",
            "$key",
            "$key",
            "WEIGHTS",
            "$int",
            "$int",
        ],
        &[
            "RANK.MERGE",
            "$key",
            "$int",
            "$key",
            "$key",
            "STEP",
            "$int",
            "$key",
            "$member",
        ],
        &["RANK.STATS", "$key"],
        &["RANK.PERCENTILE", "$key", "$member"],
        &["RANK.QUANTILE", "$key", "$float"],
        &["RANK.QUANTILE", "$key", "$int"],
        &["RANK.COUNT", "$key", "$int", "$int"],
        &["RANK.COUNT", "$key", "$float", "$float"],
        &["RANK.COUNT", "$key", "-inf", "$member"],
        &["RANK.RANGE", "$key", "$int", "$int"],
        &["RANK.RANGE", "$key", "+inf", "$float", "SHARED"],
        &[
            "RANK.RANGE",
            "$key",
            "$float",
            "-inf",
            "LIMIT",
            "$int",
            "$int",
            "SHARED",
        ],
        &[
            "RANK.RANGE",
            "$key",
            "$member",
            "$int",
            "LIMIT",
            "$int",
            "$int",
        ],
        &[
            "RANK.AMONG",
            "$key",
            "MEMBERS",
            "$member",
            "$member",
            "$member",
        ],
        &[
            "RANK.AMONG",
            "$key",
            "SHARED",
            "MEMBERS",
            "$member",
            "$member",
        ],
    ],
};

fn rank_write(rng: &mut Rng, keys: &[String]) -> Vec<String> {
    let key = rng.pick(keys).clone();
    let member = format!("m{}", rng.below(12));
    // Half the writes read the server clock, which replication must not
    // re-read on replicas; the others pass an explicit time.
    let at = |rng: &mut Rng| -> Vec<String> {
        if rng.chance(50) {
            vec![]
        } else {
            let offset = rng.range(0, 400 * 24 * 3_600_000);
            vec!["AT".into(), (RANK_EPOCH_MS + offset).to_string()]
        }
    };
    // A board's totals index sits beside it (in its slot under a tag), and
    // so does its member data.
    let totals = format!("{key}:totals");
    let profiles = format!("{key}:profiles");
    let ranks = |rng: &mut Rng| -> Vec<String> {
        match rng.below(10) {
            0..=2 => vec!["SHARED".into()],
            3..=4 => vec!["DENSE".into(), totals.clone()],
            _ => vec![],
        }
    };
    match rng.below(11) {
        0..=4 => {
            let mut call = vec!["RANK.GIFT".into(), key.clone(), member];
            call.push(rng.range(-1000, 1000).to_string());
            call.extend(at(rng));
            call.extend(ranks(rng));
            if rng.chance(30) {
                call.extend(["DATA".into(), profiles.clone(), "p".into()]);
            }
            call
        }
        10 => {
            let mut call = vec!["RANK.REMOVE".into(), key.clone()];
            if rng.chance(50) {
                call.extend(["DENSE".into(), totals.clone()]);
            }
            if rng.chance(50) {
                call.extend(["DATA".into(), profiles.clone()]);
            }
            call.push("MEMBERS".into());
            call.push(member);
            call
        }
        5 => {
            // Distinct boards: a board named twice is refused.
            let count = rng.range(1, 3) as usize;
            let boards = rng.sample(keys, count);
            // With DENSE, each board's own index, in the boards' order.
            let indexes: Vec<String> = boards.iter().map(|b| format!("{b}:totals")).collect();
            let mut call = vec!["RANK.MGIFT".into(), boards.len().to_string()];
            call.extend(boards);
            call.push(member);
            call.push(rng.range(-1000, 1000).to_string());
            call.extend(at(rng));
            match rng.below(10) {
                0..=2 => call.push("SHARED".into()),
                3..=4 => {
                    call.push("DENSE".into());
                    call.extend(indexes);
                }
                _ => {}
            }
            call
        }
        6..=8 => {
            let mut call = vec!["RANK.SET".into(), key.clone(), member];
            call.push(rng.range(-100_000, 100_000).to_string());
            call.extend(at(rng));
            match rng.below(3) {
                0 => call.push("GT".into()),
                1 => call.push("LT".into()),
                _ => {}
            }
            call.extend(ranks(rng));
            call
        }
        _ => {
            // One source counts (weight +-1), the others weigh 0: totals
            // never grow past what GIFT and SET wrote, however often merged.
            let count = rng.range(1, 3) as usize;
            let sources = rng.sample(keys, count);
            let counted = rng.below(sources.len() as u64) as usize;
            // A merge in steps stages in a key of its own, beside its
            // destination: a run's staging key holds the run's record and
            // is no board.
            let staging = format!("{key}:staging");
            let mut call = vec!["RANK.MERGE".into(), key, sources.len().to_string()];
            call.extend(sources.iter().cloned());
            call.push("WEIGHTS".into());
            for i in 0..sources.len() {
                let weight = if i != counted {
                    0
                } else if rng.chance(50) {
                    1
                } else {
                    -1
                };
                call.push(weight.to_string());
            }
            // Half the merges run in steps, in one call from cursor 0: a
            // board holds at most 12 members, so a step of 12 entries per
            // source reads them all and renames the staging board onto the
            // destination. (A shorter one would leave its run holding the
            // staging key, and the next merge's cursor 0 would be refused.)
            if rng.chance(50) {
                call.push("STEP".into());
                call.push(rng.range(12 * sources.len() as i64, 50).to_string());
                call.push(staging);
                call.push("0".into());
            }
            call
        }
    }
}

fn rank_read(rng: &mut Rng, keys: &[String]) -> Vec<String> {
    let key = rng.pick(keys).clone();
    let member = format!("m{}", rng.below(12));
    let shared = rng.chance(40);
    let mut words: Vec<String> = match rng.below(4) {
        0 => vec!["RANK.GET".into(), key, member],
        1 => {
            // SHARED goes before the members, which run to the end.
            let mut call = vec!["RANK.MGET".into(), key];
            if shared {
                call.push("SHARED".into());
            }
            call.extend(["MEMBERS".into(), member]);
            for _ in 0..rng.below(4) {
                call.push(format!("m{}", rng.below(12)));
            }
            return call;
        }
        2 => vec![
            "RANK.TOP".into(),
            key,
            rng.range(0, 20).to_string(),
            "OFFSET".into(),
            rng.range(0, 5).to_string(),
        ],
        _ => vec![
            "RANK.AROUND".into(),
            key,
            member,
            rng.range(0, 5).to_string(),
        ],
    };
    if shared {
        words.push("SHARED".into());
    }
    words
}

// ---- FEED -------------------------------------------------------------

pub const FEED: Family = Family {
    name: "feed",
    write: feed_write,
    read: feed_read,
    fuzz: &[
        &["FEED.ADD", "$key", "$float", "$member"],
        &[
            "FEED.ADD", "$key", "CAP", "$int", "$float", "$member", "$float", "$member",
        ],
        &["FEED.PAGE", "$key"],
        &["FEED.PAGE", "$key", "COUNT", "$int"],
        &["FEED.PAGE", "$key", "COUNT", "$int", "OLDER", "$member"],
        &["FEED.PAGE", "$key", "NEWER", "$member"],
    ],
};

fn feed_write(rng: &mut Rng, keys: &[String]) -> Vec<String> {
    let mut call = vec!["FEED.ADD".into(), rng.pick(keys).clone()];
    if rng.chance(50) {
        call.extend(["CAP".into(), rng.range(1, 20).to_string()]);
    }
    for _ in 0..rng.range(1, 3) {
        // Few distinct scores, so equal-score runs and re-scores happen.
        call.push((rng.range(0, 8) as f64 * 0.5).to_string());
        call.push(format!("post{}", rng.below(30)));
    }
    call
}

/// The newest page of a feed, or of any zset zkit writes.
fn feed_read(rng: &mut Rng, keys: &[String]) -> Vec<String> {
    vec![
        "FEED.PAGE".into(),
        rng.pick(keys).clone(),
        "COUNT".into(),
        rng.range(1, 10).to_string(),
    ]
}

// ---- DELAY ------------------------------------------------------------

pub const DELAY: Family = Family {
    name: "delay",
    write: delay_write,
    read: feed_read,
    fuzz: &[
        &["DELAY.POLL", "$key"],
        &[
            "DELAY.POLL",
            "$key",
            "COUNT",
            "$int",
            "LEASE",
            "$key",
            "$int",
        ],
        &["DELAY.BPOLL", "$key", "1", "COUNT", "$int"],
        &["DELAY.BPOLL", "$key", "1", "LEASE", "$key", "$int"],
        &["DELAY.ACK", "$key", "TASKS", "$member", "$member"],
        &[
            "DELAY.POLL",
            "$key",
            "COUNT",
            "$int",
            "LEASE",
            "$key",
            "$int",
            "DEADLETTER",
            "$key",
            "$key",
            "$int",
        ],
        &[
            "DELAY.BPOLL",
            "$key",
            "1",
            "LEASE",
            "$key",
            "$int",
            "DEADLETTER",
            "$key",
            "$key",
            "$int",
        ],
        &[
            "DELAY.ACK",
            "$key",
            "DELIVERIES",
            "$key",
            "TASKS",
            "$member",
        ],
        &["DELAY.NACK", "$key", "$key", "$member", "$int"],
        &["DELAY.TOUCH", "$key", "$member", "$int"],
        &["DELAY.POLL", "$key", "LEASE", "$key", "$int", "WITHTOKENS"],
        &[
            "DELAY.BPOLL",
            "$key",
            "1",
            "LEASE",
            "$key",
            "$int",
            "WITHTOKENS",
        ],
        &["DELAY.ACK", "$key", "LEASES", "$member", "$int"],
        &[
            "DELAY.NACK",
            "$key",
            "$key",
            "$member",
            "$int",
            "TOKEN",
            "$int",
        ],
        &["DELAY.TOUCH", "$key", "$member", "$int", "TOKEN", "$int"],
        &["DELAY.ADD", "$key", "TASKS", "$int", "$member"],
        &[
            "DELAY.ADD",
            "$key",
            "DATA",
            "$key",
            "REPLACE",
            "WITHIN",
            "$int",
            "JOBS",
            "$int",
            "$member",
            "$member",
        ],
        &[
            "DELAY.ADD",
            "$key",
            "INFLIGHT",
            "$key",
            "EXTEND",
            "TASKS",
            "$int",
            "$member",
        ],
        &[
            "DELAY.POLL",
            "$key",
            "LEASE",
            "$key",
            "$int",
            "DATA",
            "$key",
            "WITHDATA",
            "WORKER",
            "$member",
        ],
        &["DELAY.ACK", "$key", "DATA", "$key", "TASKS", "$member"],
        &[
            "DELAY.NACK",
            "$key",
            "$key",
            "$member",
            "$int",
            "DATA",
            "$key",
            "REASON",
            "$member",
        ],
        &[
            "DELAY.JOB",
            "$key",
            "$member",
            "INFLIGHT",
            "$key",
            "DEAD",
            "$key",
            "DATA",
            "$key",
        ],
        &[
            "DELAY.RETRY",
            "$key",
            "$key",
            "DATA",
            "$key",
            "TASKS",
            "$member",
        ],
        &["DELAY.PAUSE", "$key", "$key"],
        &["DELAY.RESUME", "$key", "$key"],
        &["DELAY.STATS", "$key", "DATA", "$key"],
        &["DELAY.STATS", "$key"],
        &[
            "DELAY.POLL",
            "$key",
            "COUNT",
            "$int",
            "LEASE",
            "$key",
            "$int",
            // The window is the rate log's TTL: literal, as RATE.HIT's.
            "RATE",
            "$key",
            "600000",
            "$int",
            "LANES",
            "$key",
            "$key",
        ],
        &[
            "DELAY.BPOLL",
            "$key",
            "1",
            "DATA",
            "$key",
            "RATE",
            "$key",
            "600000",
            "$int",
            "LANES",
            "$key",
        ],
        &[
            "DELAY.SCHEDULE",
            "$key",
            "$key",
            "$member",
            "EVERY",
            "$int",
            "START",
            "$int",
            "PAYLOAD",
            "$member",
        ],
        &[
            "DELAY.SCHEDULE",
            "$key",
            "$key",
            "$member",
            "CRON",
            "$member",
            "TZ",
            "$member",
        ],
        &["DELAY.UNSCHEDULE", "$key", "$key", "$member"],
        &["DELAY.SCHEDULES", "$key", "$key"],
        &[
            "DELAY.GROUP",
            "$key",
            "$key",
            "$member",
            "CAP",
            "$int",
            "RATE",
            "$int",
            "$int",
        ],
        &["DELAY.GROUPS", "$key", "$key"],
        &[
            "DELAY.ADD",
            "$key",
            "DATA",
            "$key",
            "GROUP",
            "$member",
            "JOBS",
            "$int",
            "$member",
            "$member",
        ],
        &[
            "DELAY.STATS",
            "$key",
            "INFLIGHT",
            "$key",
            "DEAD",
            "$key",
            "DELIVERIES",
            "$key",
        ],
    ],
};

fn delay_write(rng: &mut Rng, keys: &[String]) -> Vec<String> {
    let mut call = delay_call(rng, keys);
    // Fenced forms: a claim that answers tokens, and a NACK or TOUCH naming
    // a token (a lease end of the last minute, which matches only when a
    // claim of that millisecond holds the task).
    match call[0].as_str() {
        // WITHTOKENS goes before LANES, after which every word is a lane.
        "DELAY.POLL" | "DELAY.BPOLL"
            if call.iter().any(|w| w == "LEASE")
                && !call.iter().any(|w| w == "LANES")
                && rng.chance(50) =>
        {
            call.push("WITHTOKENS".into())
        }
        "DELAY.NACK" | "DELAY.TOUCH" if rng.chance(50) => {
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .expect("after 1970")
                .as_millis() as i64;
            call.extend([
                "TOKEN".into(),
                (now + rng.range(-60_000, 60_000)).to_string(),
            ]);
        }
        _ => {}
    }
    call
}

fn delay_call(rng: &mut Rng, keys: &[String]) -> Vec<String> {
    let [queue, inflight] = [rng.pick(keys).clone(), rng.pick(keys).clone()];
    let count = rng.range(1, 4).to_string();
    let task = format!("task{}", rng.below(20));
    match rng.below(15) {
        // Tasks are scheduled with any zset write scored by unix ms; RECENT.ADD
        // scores by the server clock, so it schedules tasks due now while the
        // call stays a zkit command (the checks read its flags and key specs).
        0..=3 => vec!["RECENT.ADD".into(), queue, "ITEMS".into(), task],
        4..=5 => vec!["DELAY.POLL".into(), queue, "COUNT".into(), count],
        // Short leases expire during a check, so re-delivery happens too.
        6..=7 => vec![
            "DELAY.POLL".into(),
            queue,
            "COUNT".into(),
            count,
            "LEASE".into(),
            inflight,
            rng.range(1, 50).to_string(),
        ],
        8 => vec![
            "DELAY.BPOLL".into(),
            queue,
            "1".into(),
            "COUNT".into(),
            count,
        ],
        9 if rng.chance(50) => vec!["DELAY.ACK".into(), inflight, "TASKS".into(), task],
        9 => vec![
            "DELAY.ACK".into(),
            inflight,
            "LEASES".into(),
            task,
            rng.range(0, 50).to_string(),
        ],
        10 => {
            // Dead letters need sets of their own; the queue leases into
            // itself (a visibility timeout), so three keys suffice.
            let [queue, dead, deliveries]: [String; 3] = rng
                .sample(keys, 3)
                .try_into()
                .expect("dead letters need three keys");
            let command = if rng.chance(50) {
                "DELAY.POLL"
            } else {
                "DELAY.BPOLL"
            };
            let mut call = vec![command.into(), queue.clone()];
            if command == "DELAY.BPOLL" {
                call.push("1".into());
            }
            call.extend([
                "COUNT".into(),
                count,
                "LEASE".into(),
                queue,
                rng.range(1, 50).to_string(),
                "DEADLETTER".into(),
                dead,
                deliveries,
                rng.range(1, 3).to_string(),
            ]);
            call
        }
        11 => vec![
            "DELAY.ACK".into(),
            inflight,
            "DELIVERIES".into(),
            queue,
            "TASKS".into(),
            task,
        ],
        12 => vec![
            "DELAY.NACK".into(),
            inflight,
            queue,
            task,
            rng.range(0, 50).to_string(),
        ],
        // Priority lanes: the queue, then another lane.
        13 => vec![
            "DELAY.POLL".into(),
            queue,
            "COUNT".into(),
            count,
            "LEASE".into(),
            inflight,
            rng.range(1, 50).to_string(),
            "LANES".into(),
            rng.pick(keys).clone(),
        ],
        _ => vec![
            "DELAY.TOUCH".into(),
            inflight,
            task,
            rng.range(1, 50).to_string(),
        ],
    }
}

// ---- RATE -------------------------------------------------------------

pub const RATE: Family = Family {
    name: "rate",
    write: rate_write,
    read: feed_read,
    fuzz: &[
        // The window is the key's TTL: fuzzed, it would let keys expire in
        // the middle of a check, so it stays literal (tests/integration/rate.rs covers
        // its parsing).
        &["RATE.HIT", "$key", "600000", "$int"],
        &["RATE.HIT", "$key", "COST", "$int", "600000", "$int"],
        &[
            "RATE.HIT", "$key", "IDMP", "$key", "$member", "600000", "$int",
        ],
        &[
            "RATE.HIT", "$key", "IDMP", "$key", "$member", "RETAIN", "$int", "600000", "$int",
        ],
        &["RATE.HIT", "$key", "600000", "$int", "1200000", "$int"],
        &[
            "RATE.HIT", "$key", "COST", "$int", "600000", "$int", "1200000", "$int",
        ],
        &["RATE.STATS", "$key", "WINDOWS", "$int"],
        &["RATE.STATS", "$key", "WINDOWS", "$int", "$int", "$int"],
        &["RATE.PEEK", "$key", "600000", "$int"],
        &[
            "RATE.PEEK",
            "$key",
            "COST",
            "$int",
            "600000",
            "$int",
            "1200000",
            "$int",
        ],
        // The lease is the holder set's TTL, literal for the same reason.
        &["RATE.ACQUIRE", "$key", "$member", "600000", "$int"],
        &["RATE.RELEASE", "$key", "$member"],
        &["RATE.RELEASE", "$key", "$member", "TOKEN", "$int"],
    ],
};

fn rate_write(rng: &mut Rng, keys: &[String]) -> Vec<String> {
    if rng.chance(25) {
        return holders_write(rng, keys);
    }
    let limit = rng.range(1, 20);
    // Ten minutes: the key's TTL is the window, and it must outlive a check.
    let mut limits = vec!["600000".to_string(), limit.to_string()];
    let mut smallest = limit;
    if rng.chance(40) {
        // A second, longer limit (twenty minutes: it outlives a check too).
        let second = rng.range(1, 30);
        smallest = smallest.min(second);
        limits.extend(["1200000".into(), second.to_string()]);
    }
    let mut call = vec!["RATE.HIT".into(), rng.pick(keys).clone()];
    if rng.chance(50) {
        // Within the limit, above it (refused) or a refund.
        let cost = match rng.below(4) {
            0 => -rng.range(1, 5),
            1 => smallest + rng.range(1, 5),
            _ => rng.range(1, smallest),
        };
        call.extend(["COST".into(), cost.to_string()]);
    }
    call.extend(limits);
    call
}

/// A concurrency limit's acquire or release, on a holder set beside a log
/// (`<key>:holders`), with a lease that outlives a check.
fn holders_write(rng: &mut Rng, keys: &[String]) -> Vec<String> {
    let holders = format!("{}:holders", rng.pick(keys));
    let holder = format!("req:{}", rng.range(1, 6));
    match rng.chance(60) {
        true => vec![
            "RATE.ACQUIRE".into(),
            holders,
            holder,
            "600000".into(),
            rng.range(1, 4).to_string(),
        ],
        false => vec!["RATE.RELEASE".into(), holders, holder],
    }
}

// ---- RECENT -----------------------------------------------------------

pub const RECENT: Family = Family {
    name: "recent",
    write: recent_write,
    read: feed_read,
    fuzz: &[
        &["RECENT.ADD", "$key", "ITEMS", "$member"],
        &[
            "RECENT.ADD",
            "$key",
            "CAP",
            "$int",
            "ITEMS",
            "$member",
            "$member",
        ],
        // A literal TTL, for the same reason as RATE's window.
        &[
            "RECENT.ADD",
            "$key",
            "CAP",
            "$int",
            "TTL",
            "600",
            "ITEMS",
            "$member",
        ],
    ],
};

fn recent_write(rng: &mut Rng, keys: &[String]) -> Vec<String> {
    let mut call = vec!["RECENT.ADD".into(), rng.pick(keys).clone()];
    if rng.chance(50) {
        call.extend(["CAP".into(), rng.range(1, 10).to_string()]);
    }
    if rng.chance(50) {
        call.extend(["TTL".into(), "600".into()]);
    }
    call.push("ITEMS".into());
    for _ in 0..rng.range(1, 4) {
        call.push(format!("item{}", rng.below(15)));
    }
    call
}

// ---- VOTE -------------------------------------------------------------

pub const VOTE: Family = Family {
    name: "vote",
    write: vote_write,
    read: vote_read,
    fuzz: &[
        &[
            "VOTE.CAST",
            "$key",
            "$key",
            "$key",
            "$member",
            "$member",
            "UP",
        ],
        &[
            "VOTE.CAST",
            "$key",
            "$key",
            "$key",
            "$member",
            "$member",
            "DOWN",
            "WEIGHT",
            "$float",
            "$float",
        ],
        &[
            "VOTE.CAST",
            "$key",
            "$key",
            "$key",
            "$member",
            "$member",
            "$member",
        ],
        &[
            "VOTE.CAST",
            "$key",
            "$key",
            "$key",
            "$member",
            "$member",
            "CLEAR",
            "WINDOW",
            "$key",
            "$int",
        ],
        &["VOTE.STATE", "$key", "$key", "$member"],
    ],
};

/// A vote's three keys: a scores zset and its up and down voter sets. Keys
/// play fixed roles by position (`keys[3g]`, `keys[3g + 1]`, `keys[3g + 2]`),
/// so a key always holds one type and a voter sits in one pair of sets only.
fn vote_keys(rng: &mut Rng, keys: &[String]) -> [String; 3] {
    assert!(keys.len() >= 3, "a vote needs three keys, got {keys:?}");
    let group = rng.below((keys.len() / 3) as u64) as usize * 3;
    [
        keys[group].clone(),
        keys[group + 1].clone(),
        keys[group + 2].clone(),
    ]
}

fn vote_write(rng: &mut Rng, keys: &[String]) -> Vec<String> {
    let [scores, up, down] = vote_keys(rng, keys);
    let direction = ["UP", "DOWN", "CLEAR"][rng.below(3) as usize];
    let mut call = vec![
        "VOTE.CAST".into(),
        scores,
        up,
        down,
        format!("item{}", rng.below(5)),
        format!("user{}", rng.below(12)),
        direction.into(),
    ];
    if rng.chance(50) {
        // Fractional weights: replicas must receive the exact score.
        call.extend(["WEIGHT".into(), "432".into(), "0.25".into()]);
    }
    call
}

fn vote_read(rng: &mut Rng, keys: &[String]) -> Vec<String> {
    let [_, up, down] = vote_keys(rng, keys);
    vec![
        "VOTE.STATE".into(),
        up,
        down,
        format!("user{}", rng.below(12)),
    ]
}

// ---- random numbers -----------------------------------------------------

/// A small seeded generator (SplitMix64). Every check prints its seed;
/// `ZKIT_SEED=<seed>` replays a failing run.
pub struct Rng(u64);

impl Rng {
    pub fn seeded(check: &str) -> Rng {
        let seed = std::env::var("ZKIT_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .expect("clock after 1970")
                    .as_nanos() as u64
            });
        eprintln!("{check}: ZKIT_SEED={seed}");
        Rng(seed)
    }

    /// A generator whose seed the caller fixes (the chaos schedule).
    pub fn with_seed(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo) as u64 + 1) as i64
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// `n` distinct items (at most all of them), in random order.
    pub fn sample<T: Clone>(&mut self, items: &[T], n: usize) -> Vec<T> {
        let mut pool: Vec<T> = items.to_vec();
        let mut out = Vec::new();
        while out.len() < n && !pool.is_empty() {
            let i = self.below(pool.len() as u64) as usize;
            out.push(pool.swap_remove(i));
        }
        out
    }
}

// ---- fuzzing ---------------------------------------------------------------

/// Keys of other types the fuzzer throws at every command, and the calls that
/// create them.
pub const FOREIGN_KEYS: &[(&str, &[&str])] = &[
    ("fuzz:string", &["SET", "fuzz:string", "x"]),
    ("fuzz:hash", &["HSET", "fuzz:hash", "f", "1"]),
    ("fuzz:set", &["SADD", "fuzz:set", "m1"]),
    ("fuzz:list", &["RPUSH", "fuzz:list", "m1"]),
    (
        "fuzz:zset",
        &["ZADD", "fuzz:zset", "inf", "m1", "1.5", "m2"],
    ),
];

const HOSTILE_INTS: &[&str] = &[
    "0",
    "1",
    "-1",
    "3",
    "100",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "-9223372036854775809",
    "4503599627370496",
    "-4503599627370496",
    "1.5",
    "nan",
    "inf",
    "-inf",
    "",
    "+1",
    "01",
    " 1",
    "0x10",
    "1e3",
    "-0",
];

const HOSTILE_FLOATS: &[&str] = &[
    "0", "0.5", "-0", "-2.5", "1e308", "1e309", "-1e309", "1e-320", "nan", "NaN", "inf", "-inf",
    "", "abc", "1,5", " 1",
];

/// Fuzz templates made from the declarations' examples (docs/commands.json)
/// of the family's commands, so a command is fuzzed from the day it is
/// declared: each key becomes `$key` and each value but a number `$member`;
/// keywords and numbers stay as the example gives them (its TTLs, windows
/// and retention are long, its timeouts short: a key must not expire in
/// the middle of the check, a call must not block).
pub fn example_templates(family: &Family) -> Vec<Vec<String>> {
    let commands = facts::commands_json();
    let mut templates = Vec::new();
    for (command, words) in facts::examples() {
        let prefix = format!("{}.", family.name.to_uppercase());
        if !command.starts_with(&prefix) || !words[0].eq_ignore_ascii_case(&command) {
            continue;
        }
        let doc = &commands[&command];
        let mut keywords = Vec::new();
        tokens(doc.get("arguments"), &mut keywords);
        let mut template = vec![words[0].clone()];
        for word in &words[1..] {
            let number = !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit());
            template.push(match word {
                _ if word.contains("{t}") => "$key".to_string(),
                _ if keywords.iter().any(|k| k.eq_ignore_ascii_case(word)) => word.clone(),
                _ if number => word.clone(),
                _ => "$member".to_string(),
            });
        }
        templates.push(template);
    }
    templates
}

/// Every token among commands.json `arguments`.
fn tokens(args: Option<&serde_json::Value>, out: &mut Vec<String>) {
    for arg in args.and_then(|a| a.as_array()).into_iter().flatten() {
        out.extend(arg["token"].as_str().map(str::to_string));
        tokens(arg.get("arguments"), out);
    }
}

/// One random argument vector from `template`: placeholders filled with
/// valid or hostile values, `keys` (the family's keys) mixed with keys of
/// other types and missing ones, then sometimes truncated or extended.
pub fn fuzz_call(rng: &mut Rng, template: &[&str], keys: &[String]) -> Vec<Vec<u8>> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .as_millis() as i64;
    let mut call: Vec<Vec<u8>> = template
        .iter()
        .map(|word| match *word {
            "$key" => fuzz_key(rng, keys),
            "$member" => fuzz_member(rng, template),
            "$int" => match rng.below(3) {
                0 => rng.range(-20, 20).to_string().into_bytes(),
                _ => rng.pick(HOSTILE_INTS).as_bytes().to_vec(),
            },
            "$float" => match rng.below(3) {
                0 => format!("{}", rng.range(-1000, 1000) as f64 / 8.0).into_bytes(),
                _ => rng.pick(HOSTILE_FLOATS).as_bytes().to_vec(),
            },
            "$time" => match rng.below(3) {
                0 => (now + rng.range(-100_000, 100_000))
                    .to_string()
                    .into_bytes(),
                1 => (RANK_EPOCH_MS + rng.range(-1000, 1000))
                    .to_string()
                    .into_bytes(),
                _ => rng.pick(HOSTILE_INTS).as_bytes().to_vec(),
            },
            // Keywords are case-insensitive: vary their case, keep the rest.
            literal if rng.chance(20) => literal.to_ascii_lowercase().into_bytes(),
            literal => literal.as_bytes().to_vec(),
        })
        .collect();
    match rng.below(10) {
        0 if call.len() > 1 => call.truncate(rng.range(1, call.len() as i64 - 1) as usize),
        1 => call.push(fuzz_member(rng, template)),
        2 => {
            let i = rng.range(1, call.len() as i64 - 1).max(1) as usize;
            let word = call[i.min(call.len() - 1)].clone();
            call.insert(i.min(call.len()), word);
        }
        _ => {}
    }
    call
}

fn fuzz_key(rng: &mut Rng, keys: &[String]) -> Vec<u8> {
    match rng.below(10) {
        0..=5 => rng.pick(keys).clone().into_bytes(),
        6..=8 => rng.pick(FOREIGN_KEYS).0.as_bytes().to_vec(),
        _ => b"fuzz:missing".to_vec(),
    }
}

fn fuzz_member(rng: &mut Rng, template: &[&str]) -> Vec<u8> {
    match rng.below(8) {
        0..=3 => format!("m{}", rng.below(12)).into_bytes(),
        4 => Vec::new(),
        5 => (0..rng.below(64)).map(|_| rng.below(256) as u8).collect(),
        6 => vec![b'x'; 5000],
        // A keyword of the command where a value belongs.
        _ => rng.pick(template).as_bytes().to_vec(),
    }
}
