//! Groups (tenants) inside one queue: DELAY.ADD `GROUP` puts tasks in a
//! group, DELAY.GROUP sets a group's cap on tasks in flight and its rate
//! limit, DELAY.GROUPS lists the groups with limits. A claim naming the
//! queue's DATA hash takes a group's tasks only within its limits
//! ([`Admission`], asked by `delay.rs`'s claims), passing over the others
//! in bounded work; DELAY.ACK and DELAY.NACK naming DATA give a group's
//! slot back ([`release`]) and wake the polls blocked on the DATA key. All
//! of it lives in the DATA hash (`logic::groups` names the fields).

use super::declaration::Command;
use super::jobs::{int_field, int_value};
use super::reply_types::GROUP_ROW;
use crate::error::{bound, ZkitError};
use crate::host::ctx::Ctx;
use crate::host::grammar::Arg;
use crate::host::grammar::Request;
use crate::host::hash::Hash;
use crate::host::keyspec::key_flags as kf;
use crate::host::reply::Reply;
use crate::host::reply_shape::ReplyShape as R;
use crate::host::string::OwnedRStr;
use crate::host::string::RStr;
use crate::host::zset::KeyKind;
use crate::logic::clock::MAX_DURATION_MS;
use crate::logic::groups::{self, log_text, parse_log, released, Limits, Share, MAX_GROUP_RATE};
use crate::logic::jobs::{check_data_key, Field};
use crate::logic::rate::Limit;
use crate::{declare_command, request};

/// The field counting the groups at their cap.
const CAPPED_FIELD: &[u8] = b"capped";

/// A group's fields in the DATA hash.
#[derive(Clone, Copy)]
enum Part {
    Limits,
    InFlight,
    Log,
}

impl Part {
    fn of(self, group: &[u8]) -> Vec<u8> {
        let tag = match self {
            Part::Limits => b'c',
            Part::InFlight => b'i',
            Part::Log => b'h',
        };
        let mut name = Vec::with_capacity(group.len() + 2);
        name.extend_from_slice(&[tag, b':']);
        name.extend_from_slice(group);
        name
    }
}

declare_command! {
    pub static GROUP: Command = {
        name: "delay.group",
        handler: group,
        flags: "write fast",
        acl_categories: "write hash fast",
        summary: "Sets a group's limits in a queue: CAP, at most n of its tasks in flight at once (leased and not acked or nacked); RATE, at most limit of its tasks claimed in any window-ms. Neither: the group has no limits. Polls naming the queue's DATA hash pass over a group's due tasks while it is at a limit. Returns 1 when the group has limits, 0 when they were removed.",
        complexity: "O(1).",
        since: "0.5.0",
        history: &[],
        reply: R::Boolean,
        examples: &[
            "DELAY.GROUP {t}:q {t}:data g CAP 2 RATE 3600000 5",
        ],
        args: &[
            Arg::key("queue", kf::RO),
            Arg::key("data", kf::RW | kf::UPDATE),
            Arg::string("group"),
            Arg::integer("cap").token("CAP").optional(),
            Arg::block("rate", &[Arg::integer("window-ms"), Arg::integer("limit")])
                .token("RATE")
                .optional(),
        ],
    }
}

declare_command! {
    pub static GROUPS: Command = {
        name: "delay.groups",
        handler: list_groups,
        flags: "readonly",
        acl_categories: "read hash slow",
        summary: "Lists a queue's groups with limits, by name: each one's tasks in flight, cap, rate limit and window (0 for none), whether it is at its cap, and whether its rate window is full now.",
        complexity: "O(N) with N the fields of the DATA hash.",
        since: "0.5.0",
        history: &[],
        reply: R::ArrayOf(&R::Tuple(&GROUP_ROW)),
        examples: &[
            "DELAY.GROUPS {t}:q {t}:data",
        ],
        args: &[
            Arg::key("queue", kf::RO),
            Arg::key("data", kf::RO | kf::ACCESS),
        ],
    }
}

/// A group's limits as the hash holds them.
fn limits_of(hash: &Hash<'_>, group: &[u8]) -> Limits {
    hash.get(&Part::Limits.of(group))
        .map_or_else(Limits::default, |text| Limits::parse(text.as_bytes()))
}

fn in_flight_of(hash: &Hash<'_>, group: &[u8]) -> u64 {
    int_field(hash, &Part::InFlight.of(group)).map_or(0, |n| n.max(0) as u64)
}

/// Adds `by` (or takes it off) to the count of capped groups.
fn count_capped(hash: &mut Hash<'_>, by: i64) -> Result<(), ZkitError> {
    let after = (int_field(hash, CAPPED_FIELD).unwrap_or(0) + by).max(0);
    match after {
        0 => {
            hash.delete(CAPPED_FIELD);
        }
        n => hash.set(CAPPED_FIELD, &int_value(n))?,
    }
    Ok(())
}

/// How many groups of the queue whose DATA hash is `hash` are at their cap.
pub(super) fn capped_groups(hash: Option<&Hash<'_>>) -> i64 {
    hash.and_then(|hash| int_field(hash, CAPPED_FIELD))
        .unwrap_or(0)
}

/// What one claim took of each group so far, read from the DATA hash as it
/// meets each group, written back as each lane's claim ends.
pub(super) struct Admission {
    now_ms: i64,
    shares: Vec<(Vec<u8>, Share)>,
}

impl Admission {
    pub(super) fn new(now_ms: i64) -> Admission {
        Admission {
            now_ms,
            shares: Vec::new(),
        }
    }

    /// Whether the claim may take `task`; `enters` when it enters flight (a
    /// leased claim from a queue, not a redelivery from its in-flight set).
    pub(super) fn admit(&mut self, hash: Option<&Hash<'_>>, task: &[u8], enters: bool) -> bool {
        let Some(hash) = hash else {
            return true;
        };
        let Some(group) = hash.get(&Field::Group.of(task)) else {
            return true;
        };
        let group = group.as_bytes();
        let at = match self.shares.iter().position(|(g, _)| g == group) {
            Some(at) => at,
            None => {
                let limits = limits_of(hash, group);
                let log = match limits.rate {
                    Some(_) => hash
                        .get(&Part::Log.of(group))
                        .map_or_else(Vec::new, |log| parse_log(log.as_bytes())),
                    None => Vec::new(),
                };
                let share = Share::new(limits, in_flight_of(hash, group), log, self.now_ms);
                self.shares.push((group.to_vec(), share));
                self.shares.len() - 1
            }
        };
        self.shares[at].1.take(enters)
    }

    /// Writes what the claim took since the last write: each group's tasks
    /// in flight, its log of claims, the count of capped groups.
    pub(super) fn write(&mut self, hash: &mut Hash<'_>) -> Result<(), ZkitError> {
        for (group, share) in &mut self.shares {
            if share.taken == 0 {
                continue;
            }
            if share.entered > 0 {
                let was_capped = groups::is_at_cap(share.in_flight, share.limits.cap);
                let in_flight = share.in_flight + share.entered;
                hash.set(&Part::InFlight.of(group), &int_value(in_flight as i64))?;
                if share.is_capped() && !was_capped {
                    count_capped(hash, 1)?;
                }
                share.in_flight = in_flight;
            }
            if share.limits.rate.is_some() {
                let log = share.log_after(self.now_ms);
                hash.set(
                    &Part::Log.of(group),
                    &OwnedRStr::new(log_text(&log).as_bytes()),
                )?;
                share.log = log;
            }
            share.taken = 0;
            share.entered = 0;
        }
        Ok(())
    }

    /// When a group passed over for its rate window has room again.
    pub(super) fn room_at(&self) -> Option<i64> {
        self.shares.iter().filter_map(|(_, s)| s.room_at()).min()
    }
}

/// `task` left flight (acked, handed back, buried): its group, if any,
/// gets its slot back. True when that took the group off its cap: polls
/// blocked on the DATA key should look again.
pub(super) fn release(hash: &mut Hash<'_>, task: &[u8]) -> Result<bool, ZkitError> {
    let Some(group) = hash.get(&Field::Group.of(task)) else {
        return Ok(false);
    };
    let group = group.as_bytes();
    let in_flight = in_flight_of(hash, group);
    if in_flight == 0 {
        return Ok(false);
    }
    let (after, freed) = released(in_flight, limits_of(hash, group).cap);
    match after {
        0 => {
            hash.delete(&Part::InFlight.of(group));
        }
        n => hash.set(&Part::InFlight.of(group), &int_value(n as i64))?,
    }
    if freed {
        count_capped(hash, -1)?;
    }
    Ok(freed)
}

request! {
    /// DELAY.GROUP `queue data group [CAP n] [RATE window-ms limit]`.
    struct Group<'a> {
        queue: &'a RStr = key,
        data: &'a RStr = key,
        group: &'a RStr = string,
        cap: Option<i64> = option(Request::integer),
        rate: Option<(i64, i64)> = option(|rate| (rate.integer(), rate.integer())),
    }
}

/// -> 1 when the group has limits now, 0 when they were removed.
fn group(ctx: &Ctx, args: Group<'_>) -> Result<i64, ZkitError> {
    let Group {
        queue,
        data,
        group,
        cap,
        rate,
    } = args;
    let cap = match cap {
        Some(cap) if cap < 1 => {
            return Err(ZkitError::OutOfRange {
                what: "CAP",
                limit: bound::POSITIVE_INTEGER,
            })
        }
        cap => cap.unwrap_or(0) as u64,
    };
    let rate = rate
        .map(|(window_ms, limit)| {
            if !(1..=MAX_GROUP_RATE).contains(&limit) {
                return Err(ZkitError::OutOfRange {
                    what: "limit",
                    limit: bound::GROUP_RATE,
                });
            }
            if !(1..=MAX_DURATION_MS).contains(&window_ms) {
                return Err(ZkitError::OutOfRange {
                    what: "window",
                    limit: bound::DURATION_MS,
                });
            }
            Ok(Limit {
                window_ms,
                limit: limit as u64,
            })
        })
        .transpose()?;
    check_data_key(data.as_bytes(), &[Some(queue.as_bytes())])?;
    ctx.check_key_type(queue, KeyKind::Zset)?;
    ctx.check_key_type(data, KeyKind::Hash)?;
    ctx.require_hash_writes()?;
    let limits = Limits { cap, rate };
    let group = group.as_bytes();
    let mut hash = ctx.open_hash_mut(data)?;
    let in_flight = in_flight_of(&hash, group);
    let was_capped = groups::is_at_cap(in_flight, limits_of(&hash, group).cap);
    let capped = groups::is_at_cap(in_flight, cap);
    match limits.is_none() {
        true => {
            hash.delete(&Part::Limits.of(group));
        }
        false => hash.set(
            &Part::Limits.of(group),
            &OwnedRStr::new(limits.text().as_bytes()),
        )?,
    }
    if rate.is_none() {
        hash.delete(&Part::Log.of(group));
    }
    if capped != was_capped {
        count_capped(&mut hash, if capped { 1 } else { -1 })?;
    }
    drop(hash);
    // A cap raised or removed: blocked polls may take the group's tasks now.
    ctx.wake_waiters(data);
    Ok(i64::from(!limits.is_none()))
}

request! {
    /// DELAY.GROUPS `queue data`.
    struct ListGroups<'a> {
        queue: &'a RStr = key,
        data: &'a RStr = key,
    }
}

/// -> `[[group, inflight, cap, rate-limit, window-ms, capped,
/// rate-limited], ...]`, by group.
fn list_groups(ctx: &Ctx, args: ListGroups<'_>) -> Result<Reply, ZkitError> {
    ctx.check_key_type(args.queue, KeyKind::Zset)?;
    let Some(hash) = ctx.open_hash(args.data)? else {
        return Ok(Reply::Array(Vec::new()));
    };
    let mut found = hash.fields_starting_with(&Part::Limits.of(b""));
    found.sort_by(|a, b| a.0.cmp(&b.0));
    let now = ctx.now_ms();
    let rows = found
        .into_iter()
        .map(|(field, limits)| {
            let group = &field[2..];
            let limits = Limits::parse(limits.as_bytes());
            let log = hash
                .get(&Part::Log.of(group))
                .map_or_else(Vec::new, |log| parse_log(log.as_bytes()));
            let share = Share::new(limits, in_flight_of(&hash, group), log, now);
            let (limit, window) = limits
                .rate
                .map_or((0, 0), |r| (r.limit as i64, r.window_ms));
            Reply::Array(vec![
                Reply::Bulk(group.to_vec()),
                Reply::Int(share.in_flight as i64),
                Reply::Int(limits.cap as i64),
                Reply::Int(limit),
                Reply::Int(window),
                Reply::Int(i64::from(share.is_capped())),
                Reply::Int(i64::from(share.is_rate_limited())),
            ])
        })
        .collect();
    Ok(Reply::Array(rows))
}
