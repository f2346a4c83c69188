//! DELAY.*: a delayed-task queue with exactly-one claim (a job queue).
//!
//! Tasks are scheduled with native ZADD, scored by their due time in unix ms.
//! The usual recipe polls ZRANGEBYSCORE and then ZREMs, so two workers can take the
//! same task, and sleeps a second when idle. DELAY.POLL claims due tasks in
//! one command: removed from the queue (and, with LEASE, moved into an
//! in-flight zset scored by the lease's end) before anyone else runs, so no
//! task reaches two pollers; DELAY.BPOLL blocks until a task is due instead of
//! sleeping. An in-flight zset is itself a queue: a task whose worker died
//! becomes due there when its lease ends, and polling it re-delivers the task
//! (at-least-once). DELAY.ACK removes finished tasks from it, DELAY.NACK hands
//! a failed one back to its queue, DELAY.TOUCH extends a lease.
//!
//! Dead letters (`DEADLETTER dead deliveries n` beside LEASE): leased claims
//! count each task's deliveries in the sorted set `deliveries` (member task,
//! score count), and a task already delivered `n` times is moved to the
//! sorted set `dead` (scored by when it died) instead of being delivered
//! again. DELAY.ACK forgets the counts of the tasks it removes when given
//! `DELIVERIES deliveries`.
//!
//! Syntax note: every key comes right after its keyword (`LEASE inflight
//! ms`, `DEADLETTER dead deliveries n`, `DELIVERIES deliveries`), and the
//! tasks DELAY.ACK takes follow `TASKS`, after the options: COMMAND GETKEYS,
//! ACL key patterns and cluster routing see every key a call touches, and
//! no task is ever read as an option.

use super::args::positive;
use super::counter::Counter;
use super::declaration::Command;
use super::delay_lease::{self, lease_out_of_range};
use super::delay_rate::{check_rate_log_key, spend, window_room, RateArgs, WindowRoom};
use super::delay_reply::Polled;
use super::delay_stats;
use super::groups::{self, Admission};
use super::jobs::{self, delete_task_data, int_field, is_paused, JobInfo, DATA_ARG};
use super::layout;
use super::reply_types::{JOB, POLLED, RATED_JOBS, RATED_TASKS, TASK};
use super::schedules;
use crate::error::{bound, ZkitError};
use crate::host::block::Attempt;
use crate::host::block::Readiness;
use crate::host::block::ZsetWaiter;
use crate::host::ctx::Ctx;
use crate::host::deferred::Progress;
use crate::host::grammar::Arg;
use crate::host::grammar::Request;
use crate::host::keyspec::key_flags as kf;
use crate::host::reply_shape::ReplyShape as R;
use crate::host::string::OwnedRStr;
use crate::host::string::RStr;
use crate::host::zset::KeyKind;
use crate::host::zset::ScoreBound;
use crate::host::zset::Zset;

use crate::logic::clock::{deadline, MAX_DURATION_MS};
use crate::logic::delay::{
    self, check_dead_letter_keys, outlook, wake_at_ms, Claim, DelayError, Fate, Lease, Outlook,
    TaskQueue, Tasks,
};
use crate::logic::family;
use crate::logic::jobs::{
    check_data_key, dead_over_count, Field, JobError, EXPIRED_REASON, TRIM_SPARE,
};
use crate::logic::rate::{Limit, MAX_LIMIT};
use crate::{declare_command, request};
use smallvec::SmallVec;

pub static COMMANDS: &[&Command] = &[
    &POLL,
    &BPOLL,
    &delay_lease::ACK,
    &delay_lease::NACK,
    &delay_lease::TOUCH,
    &delay_stats::STATS,
    &jobs::ADD,
    &jobs::JOB,
    &jobs::RETRY,
    &jobs::PAUSE,
    &jobs::RESUME,
    &schedules::SCHEDULE,
    &schedules::UNSCHEDULE,
    &schedules::SCHEDULES,
    &groups::GROUP,
    &groups::GROUPS,
];

/// Tasks handed to pollers (with or without a lease).
pub static TASKS_CLAIMED: Counter = Counter::new();
/// Tasks moved to a dead-letter set: the number operators watch.
pub static TASKS_DEAD: Counter = Counter::new();
/// Tasks past their not-started-by deadline dropped by polls without dead
/// letters (with dead letters they count as dead, reason `expired`).
pub static TASKS_EXPIRED: Counter = Counter::new();
/// Dead tasks removed to keep dead-letter sets within
/// `zkit.dead-letters-max` and `zkit.dead-letters-max-age-ms`.
pub static TASKS_TRIMMED: Counter = Counter::new();
/// Tasks handed out again: claims from an in-flight set leased into itself
/// (their lease ended), and, with DEADLETTER, claims of a task its
/// deliveries set had already counted (a lease that ended, or a NACK).
pub static TASKS_REDELIVERED: Counter = Counter::new();

const QUEUE_ARG: Arg = Arg::key("key", kf::RW | kf::ACCESS | kf::DELETE);

/// Priority lanes: queues polled after `key`, in the order given, each only
/// for what the lanes before it could not fill. Last, so every word after
/// `LANES` is a lane, whatever it is named.
const LANES_ARG: Arg = Arg::key("lane", kf::RW | kf::ACCESS | kf::DELETE)
    .token("LANES")
    .optional()
    .multiple()
    .since("0.5.0");

const LEASE_ARG: Arg = Arg::block(
    "lease",
    &[
        Arg::key("inflight", kf::RW | kf::UPDATE),
        Arg::integer("ms"),
    ],
)
.token("LEASE")
.optional();

const DEADLETTER_ARG: Arg = Arg::block(
    "deadletter",
    &[
        // Tasks are added to the dead-letter set, and counts both added and
        // removed.
        Arg::key("dead", kf::RW | kf::UPDATE),
        Arg::key("deliveries", kf::RW | kf::UPDATE),
        Arg::integer("max-deliveries"),
    ],
)
.token("DEADLETTER")
.optional()
.since("0.2.0");

/// Each leased task comes back with its delivery's token, which DELAY.ACK,
/// DELAY.NACK and DELAY.TOUCH take to act on that delivery only.
const WITHTOKENS_ARG: Arg = Arg::pure_token("withtokens", "WITHTOKENS")
    .optional()
    .since("0.4.1");

/// Each task comes back as a job: with its token, payload and deliveries.
const WITHDATA_ARG: Arg = Arg::pure_token("withdata", "WITHDATA")
    .optional()
    .since("0.5.0");

/// The worker's name, kept as the holder of the tasks it leases.
const WORKER_ARG: Arg = Arg::string("name")
    .token("WORKER")
    .optional()
    .since("0.5.0");

/// A claim that spends a RATE window (a RATE.HIT log): it claims only what
/// the window allows, spends one unit per task claimed, and nothing when
/// nothing is due.
const RATE_ARG: Arg = Arg::block(
    "rate",
    &[
        Arg::key("log", kf::RW | kf::UPDATE),
        Arg::integer("window-ms"),
        Arg::integer("limit"),
    ],
)
.token("RATE")
.optional()
.since("0.5.0");

declare_command! {
    pub static POLL: Command = {
        name: "delay.poll",
        handler: poll,
        // No deny-oom: polling drains the queue, and refusing it under memory
        // pressure would stop the workers that free memory.
        flags: "write",
        acl_categories: "write sortedset slow",
        summary: "Claims up to count tasks that are due (score <= the server's unix ms), earliest first: removes them from the queue, or with LEASE moves them into inflight scored by the lease's end; with DEADLETTER, a task already delivered max-deliveries times goes to dead instead. With DATA (the queue's job data): nothing while the queue is paused, a task past its not-started-by deadline goes to dead (reason expired) or, without DEADLETTER, is dropped, and WORKER names the holder. Returns [[member, due-ms], ...], with WITHTOKENS [[member, due-ms, token], ...], with WITHDATA [[member, due-ms, token, payload, deliveries], ...].",
        complexity: "O((M+D+1)*log(N)) with M the tasks claimed, D the dead tasks moved and N the tasks in the queue.",
        since: "0.1.0",
        history: &[
            ("0.2.0", "Added the `DEADLETTER` option."),
            ("0.4.1", "Added the `WITHTOKENS` option."),
            ("0.5.0", "Added the `DATA`, `WITHDATA`, `WORKER`, `RATE` and `LANES` options."),
        ],
        reply: R::ByOption {
            token: "RATE",
            with: &R::ByOption {
                token: "WITHDATA",
                with: &R::Tuple(&RATED_JOBS),
                without: &R::Tuple(&RATED_TASKS),
            },
            without: &POLLED,
        },
        examples: &[
            "DELAY.POLL {t}:q COUNT 2 LEASE {t}:held 1000 DEADLETTER {t}:dead {t}:n 3 WITHTOKENS",
            "DELAY.POLL {t}:q COUNT 2 LEASE {t}:held 1000 DATA {t}:data WITHDATA WORKER w",
            "DELAY.POLL {t}:q COUNT 2 LEASE {t}:held 1000 DATA {t}:data RATE {t}:rate 3600000 5 LANES {t}:low",
        ],
        args: &[
            QUEUE_ARG,
            Arg::integer("count").token("COUNT").optional(),
            LEASE_ARG,
            DEADLETTER_ARG,
            WITHTOKENS_ARG,
            DATA_ARG,
            WITHDATA_ARG,
            WORKER_ARG,
            RATE_ARG,
            LANES_ARG,
        ],
    }
}

declare_command! {
    pub static BPOLL: Command = {
        name: "delay.bpoll",
        handler: bpoll,
        flags: "write blocking",
        acl_categories: "write sortedset slow blocking",
        summary: "DELAY.POLL that blocks until a task is due or timeout-ms passes (0: forever); nil on timeout. Inside MULTI or a script it does not block.",
        complexity: "O((M+D+1)*log(N)) with M the tasks claimed, D the dead tasks moved and N the tasks in the queue.",
        since: "0.1.0",
        history: &[
            ("0.2.0", "Added the `DEADLETTER` option."),
            ("0.4.1", "Added the `WITHTOKENS` option."),
            ("0.5.0", "Added the `DATA`, `WITHDATA`, `WORKER`, `RATE` and `LANES` options."),
        ],
        reply: R::ByOption {
            token: "WITHDATA",
            with: &R::OrNil(&R::ArrayOf(&R::Tuple(&JOB))),
            without: &R::OrNil(&R::ArrayOf(&R::Tuple(&TASK))),
        },
        examples: &[
            "DELAY.BPOLL {t}:q 1 COUNT 2 LEASE {t}:held 1000 DEADLETTER {t}:dead {t}:n 3 WITHTOKENS",
            "DELAY.BPOLL {t}:q 1 LEASE {t}:held 1000 DATA {t}:data WITHDATA WORKER w",
            "DELAY.BPOLL {t}:q 1 RATE {t}:rate 3600000 5 LANES {t}:low",
        ],
        args: &[
            QUEUE_ARG,
            Arg::integer("timeout-ms"),
            Arg::integer("count").token("COUNT").optional(),
            LEASE_ARG,
            DEADLETTER_ARG,
            WITHTOKENS_ARG,
            DATA_ARG,
            WITHDATA_ARG,
            WORKER_ARG,
            RATE_ARG,
            LANES_ARG,
        ],
    }
}

/// Where claimed tasks go: the in-flight zset and the lease in ms, with dead
/// letters or without.
struct LeaseArgs<K> {
    inflight: K,
    ms: i64,
    dead_letter: Option<DeadLetterArgs<K>>,
}

/// `DEADLETTER dead deliveries max-deliveries`.
struct DeadLetterArgs<K> {
    dead: K,
    deliveries: K,
    max_deliveries: u64,
}

impl<'a> LeaseArgs<&'a RStr> {
    /// The keys the lease writes: the in-flight set, and with dead letters
    /// the dead-letter and deliveries sets.
    fn written_keys(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        std::iter::once(self.inflight.as_bytes()).chain(
            self.dead_letter
                .iter()
                .flat_map(|d| [d.dead.as_bytes(), d.deliveries.as_bytes()]),
        )
    }
}

impl LeaseArgs<&RStr> {
    /// A copy of its own, for a blocked poll.
    fn to_owned(&self) -> LeaseArgs<OwnedRStr> {
        let own = |key: &RStr| OwnedRStr::new(key.as_bytes());
        LeaseArgs {
            inflight: own(self.inflight),
            ms: self.ms,
            dead_letter: self.dead_letter.as_ref().map(|d| DeadLetterArgs {
                dead: own(d.dead),
                deliveries: own(d.deliveries),
                max_deliveries: d.max_deliveries,
            }),
        }
    }
}

impl LeaseArgs<OwnedRStr> {
    fn borrowed(&self) -> LeaseArgs<&RStr> {
        LeaseArgs {
            inflight: &self.inflight,
            ms: self.ms,
            dead_letter: self.dead_letter.as_ref().map(|d| DeadLetterArgs {
                dead: &*d.dead,
                deliveries: &*d.deliveries,
                max_deliveries: d.max_deliveries,
            }),
        }
    }
}

request! {
    /// A poll's options: `[COUNT n] [LEASE inflight ms] [DEADLETTER dead
    /// deliveries n] [WITHTOKENS]`, each at most once.
    struct PollOptions<'a> {
        count: Option<i64> = option(Request::integer),
        lease: Option<(&'a RStr, i64)> = option(|lease| (lease.key(), lease.integer())),
        dead_letter: Option<(&'a RStr, &'a RStr, i64)> = option(|d| (d.key(), d.key(), d.integer())),
        with_tokens: bool = flag,
        data: Option<&'a RStr> = option(Request::key),
        with_data: bool = flag,
        worker: Option<&'a RStr> = option(Request::string),
        rate: Option<(&'a RStr, i64, i64)> = option(|r| (r.key(), r.integer(), r.integer())),
        lanes: Option<Vec<&'a RStr>> = option(|lanes| lanes.list(Request::key)),
    }
}

/// A poll's options, checked.
struct PollTerms<'a> {
    /// The RATE window the claim spends.
    rate: Option<RateArgs<&'a RStr>>,
    /// The queues after the first, in priority order.
    lanes: Vec<&'a RStr>,
    count: usize,
    lease: Option<LeaseArgs<&'a RStr>>,
    /// Each task is answered with its delivery's token.
    with_tokens: bool,
    jobs: Option<JobTerms<&'a RStr>>,
}

/// What a poll does with the queue's job data.
struct JobTerms<K> {
    /// The DATA hash.
    data: K,
    /// Each task is answered as a job, its payload and deliveries with it.
    with_data: bool,
    /// Kept as the holder of the tasks leased.
    worker: Option<K>,
}

impl JobTerms<&RStr> {
    fn to_owned(&self) -> JobTerms<OwnedRStr> {
        JobTerms {
            data: OwnedRStr::new(self.data.as_bytes()),
            with_data: self.with_data,
            worker: self.worker.map(|w| OwnedRStr::new(w.as_bytes())),
        }
    }
}

impl JobTerms<OwnedRStr> {
    fn borrowed(&self) -> JobTerms<&RStr> {
        JobTerms {
            data: &self.data,
            with_data: self.with_data,
            worker: self.worker.as_deref(),
        }
    }
}

impl<'a> PollTerms<'a> {
    /// The lanes a poll of `key` claims from, in order: `key`, then the
    /// lanes given.
    fn lanes_after(&self, key: &'a RStr) -> SmallVec<[&'a RStr; 4]> {
        std::iter::once(key)
            .chain(self.lanes.iter().copied())
            .collect()
    }
}

impl<'a> PollOptions<'a> {
    /// The count (1 when not given) and the lease, checked: DEADLETTER and
    /// WITHTOKENS need LEASE.
    fn check(self) -> Result<PollTerms<'a>, ZkitError> {
        if self.with_tokens && self.lease.is_none() {
            return Err(DelayError::TokensWithoutLease.into());
        }
        if self.data.is_none() {
            for (given, option) in [
                (self.with_data, "WITHDATA"),
                (self.worker.is_some(), "WORKER"),
            ] {
                if given {
                    return Err(JobError::NeedsData(option).into());
                }
            }
        }
        if self.worker.is_some() && self.lease.is_none() {
            return Err(JobError::WorkerWithoutLease.into());
        }
        let count = self.count.map_or(Ok(1), |n| positive(n, "count"))?;
        let dead_letter = self
            .dead_letter
            .map(|(dead, deliveries, max)| {
                Ok::<_, ZkitError>(DeadLetterArgs {
                    dead,
                    deliveries,
                    max_deliveries: positive(max, "max-deliveries")? as u64,
                })
            })
            .transpose()?;
        let lease = match (self.lease, dead_letter) {
            (Some((inflight, ms)), dead_letter) => {
                if !(1..=MAX_DURATION_MS).contains(&ms) {
                    return Err(lease_out_of_range());
                }
                Some(LeaseArgs {
                    inflight,
                    ms,
                    dead_letter,
                })
            }
            (None, Some(_)) => return Err(DelayError::DeadLetterWithoutLease.into()),
            (None, None) => None,
        };
        let rate = self
            .rate
            .map(|(log, window_ms, limit)| {
                if !(1..=MAX_DURATION_MS).contains(&window_ms) {
                    return Err(ZkitError::OutOfRange {
                        what: "window",
                        limit: bound::DURATION_MS,
                    });
                }
                if !(1..=MAX_LIMIT).contains(&limit) {
                    return Err(ZkitError::OutOfRange {
                        what: "limit",
                        limit: bound::RATE_LIMIT,
                    });
                }
                Ok(RateArgs {
                    log,
                    limit: Limit {
                        window_ms,
                        limit: limit as u64,
                    },
                })
            })
            .transpose()?;
        Ok(PollTerms {
            rate,
            lanes: self.lanes.unwrap_or_default(),
            count,
            lease,
            with_tokens: self.with_tokens,
            jobs: self.data.map(|data| JobTerms {
                data,
                with_data: self.with_data,
                worker: self.worker,
            }),
        })
    }
}

/// What a claim delivered: the tasks and, for a leased claim, the token of
/// their deliveries (the lease's end, which every task claimed shares);
/// with WITHDATA each task's payload and deliveries.
struct Delivered {
    claim: Claim<OwnedRStr>,
    token: Option<i64>,
    jobs: Option<Vec<JobInfo>>,
    /// With RATE: -1, or when tasks were due and the window allowed none,
    /// the ms until it has room.
    retry_after_ms: Option<i64>,
}

/// Claims up to `count` due tasks at the server's now from `lanes` (at
/// least one queue), in the order given: a lane is polled only for what the
/// lanes before it left of `count`. Checks everything before the first
/// write, every lane included.
fn claim(
    ctx: &Ctx,
    lanes: &[&RStr],
    count: usize,
    lease: Option<&LeaseArgs<&RStr>>,
    jobs: Option<&JobTerms<&RStr>>,
    rate: Option<&RateArgs<&RStr>>,
) -> Result<Delivered, ZkitError> {
    let not_limited = rate.map(|_| -1);
    if let Some(jobs) = jobs {
        let dead_letter = lease.and_then(|lease| lease.dead_letter.as_ref());
        let written: SmallVec<[Option<&[u8]>; 6]> = lanes
            .iter()
            .map(|lane| Some(lane.as_bytes()))
            .chain([
                lease.map(|lease| lease.inflight.as_bytes()),
                dead_letter.map(|d| d.dead.as_bytes()),
                dead_letter.map(|d| d.deliveries.as_bytes()),
            ])
            .collect();
        check_data_key(jobs.data.as_bytes(), &written)?;
        ctx.check_key_type(jobs.data, KeyKind::Hash)?;
        ctx.require_hash_writes()?;
        // A paused queue delivers nothing and writes nothing.
        if is_paused(ctx, jobs.data)? {
            return Ok(Delivered {
                claim: Claim::NothingDue { earliest: None },
                token: None,
                jobs: None,
                retry_after_ms: not_limited,
            });
        }
    }
    let mut held = None;
    if let Some(lease) = lease {
        // The in-flight set opens for the lease's write at once (checking
        // its type as well), unless it is a lane, whose own handle takes
        // the tasks first, or the server could not replicate the claim.
        let is_lane = lanes
            .iter()
            .any(|lane| lane.as_bytes() == lease.inflight.as_bytes());
        if !is_lane && ctx.can_record_writes() {
            held = Some(ctx.open_zset_mut(lease.inflight)?);
        } else {
            ctx.check_key_type(lease.inflight, KeyKind::Zset)?;
        }
        if let Some(dead_letter) = &lease.dead_letter {
            for lane in lanes {
                check_dead_letter_keys(
                    lane.as_bytes(),
                    lease.inflight.as_bytes(),
                    dead_letter.dead.as_bytes(),
                    dead_letter.deliveries.as_bytes(),
                )?;
            }
            ctx.check_key_type(dead_letter.dead, KeyKind::Zset)?;
            ctx.check_key_type(dead_letter.deliveries, KeyKind::Zset)?;
        }
    }
    // The first lane is checked by its first read, before any write; the
    // others now, since the first may write before they are read.
    for lane in lanes.iter().skip(1) {
        if let Some(mut queue) = ctx.open_zset(lane)? {
            jobs::check_is_queue(&mut queue)?;
        }
    }
    let now = ctx.now_ms();
    let mut count = count;
    if let Some(rate) = rate {
        let lease_keys = lease.into_iter().flat_map(LeaseArgs::written_keys);
        check_rate_log_key(
            rate.log,
            lanes.iter().map(|lane| lane.as_bytes()).chain(lease_keys),
        )?;
        match window_room(ctx, rate, now)? {
            WindowRoom::Free(room) => count = count.min(room),
            WindowRoom::Full { retry_after_ms } => {
                // Limited only when a claim would deliver: nothing is spent
                // either way.
                let outlook = lanes_outlook(ctx, lanes, lease, jobs, now)?;
                let (due, earliest) = match outlook {
                    Outlook::Deliverable => (true, Some(now as f64)),
                    Outlook::Wait { next_due } => (false, next_due),
                };
                return Ok(Delivered {
                    claim: Claim::NothingDue { earliest },
                    token: None,
                    jobs: None,
                    retry_after_ms: Some(if due { retry_after_ms } else { -1 }),
                });
            }
        }
    }
    let lease_terms = lease
        .map(|lease| {
            Ok::<_, ZkitError>(Lease {
                until: deadline(now, lease.ms).ok_or_else(lease_out_of_range)?,
                max_deliveries: lease.dead_letter.as_ref().map(|d| d.max_deliveries),
            })
        })
        .transpose()?;
    let mut admission = Admission::new(now);
    let token = lease_terms.map(|lease| lease.until);
    let lane_terms = LaneTerms {
        now,
        lease,
        lease_terms,
        jobs,
    };
    // One queue: its claim is the reply.
    if let [lane] = lanes {
        let LaneClaim {
            claim, delivered, ..
        } = claim_lane(ctx, lane, count, &lane_terms, held, &mut admission)?;
        if let (Some(rate), Claim::Claimed(tasks)) = (rate, &claim) {
            spend(ctx, rate, now, tasks.len() as u64)?;
        }
        return Ok(Delivered {
            claim,
            token,
            jobs: delivered,
            retry_after_ms: not_limited,
        });
    }
    let mut claimed: Tasks<OwnedRStr> = Tasks::new();
    let mut earliest: Option<f64> = None;
    let mut infos: Option<Vec<JobInfo>> = None;
    for lane in lanes {
        let wanted = count - claimed.len();
        if wanted == 0 {
            break;
        }
        let LaneClaim {
            claim,
            delivered,
            held: unused,
        } = claim_lane(ctx, lane, wanted, &lane_terms, held.take(), &mut admission)?;
        held = unused;
        match claim {
            Claim::Claimed(tasks) => {
                if let Some(delivered) = delivered {
                    infos.get_or_insert_with(Vec::new).extend(delivered);
                }
                claimed.extend(tasks);
            }
            Claim::NothingDue {
                earliest: lane_earliest,
            } => {
                earliest = earlier(earliest, lane_earliest);
            }
        }
    }
    drop(held);
    if let (Some(rate), false) = (rate, claimed.is_empty()) {
        spend(ctx, rate, now, claimed.len() as u64)?;
    }
    Ok(Delivered {
        claim: match claimed.is_empty() {
            true => Claim::NothingDue { earliest },
            false => Claim::Claimed(claimed),
        },
        token,
        jobs: infos,
        retry_after_ms: not_limited,
    })
}

/// What every lane of one claim shares.
struct LaneTerms<'a> {
    now: i64,
    lease: Option<&'a LeaseArgs<&'a RStr>>,
    lease_terms: Option<Lease>,
    jobs: Option<&'a JobTerms<&'a RStr>>,
}

/// One lane's claim.
struct LaneClaim<'c> {
    claim: Claim<OwnedRStr>,
    /// With WITHDATA, the jobs delivered.
    delivered: Option<Vec<JobInfo>>,
    /// The in-flight set's handle when the claim did not use it (for the
    /// next lane).
    held: Option<Zset<'c>>,
}

/// Claims up to `count` due tasks of one lane.
fn claim_lane<'c>(
    ctx: &'c Ctx,
    lane: &'c RStr,
    count: usize,
    terms: &LaneTerms<'c>,
    held: Option<Zset<'c>>,
    admission: &mut Admission,
) -> Result<LaneClaim<'c>, ZkitError> {
    let mut queue = ZsetQueue {
        ctx,
        key: lane,
        now_ms: terms.now,
        lease: terms.lease,
        head: None,
        held,
        jobs: terms.jobs,
        delivered: None,
        admission: terms.jobs.map(|_| admission),
    };
    queue.read_head(delay::due_bound(terms.now), count)?;
    let claim = delay::claim(&mut queue, terms.now, count, terms.lease_terms)?;
    if let Claim::Claimed(tasks) = &claim {
        TASKS_CLAIMED.add(tasks.len() as u64);
        if queue.polls_its_inflight_set() {
            TASKS_REDELIVERED.add(tasks.len() as u64);
        }
    }
    Ok(LaneClaim {
        claim,
        delivered: queue.delivered.take(),
        held: queue.held.take(),
    })
}

/// Whether a claim from `lanes` at `now` would deliver a task, looked at
/// without writing (a blocked poll's look); if not, when to look again: the
/// next task's due time, or when a group passed over for its rate window
/// has room (a group at its cap is woken through the DATA key instead).
fn lanes_outlook(
    ctx: &Ctx,
    lanes: &[&RStr],
    lease: Option<&LeaseArgs<&RStr>>,
    jobs: Option<&JobTerms<&RStr>>,
    now: i64,
) -> Result<Outlook, ZkitError> {
    let max_deliveries = lease
        .and_then(|lease| lease.dead_letter.as_ref())
        .map(|dead_letter| dead_letter.max_deliveries);
    let mut admission = Admission::new(now);
    let mut next_due = None;
    for lane in lanes {
        let mut queue = ZsetQueue {
            ctx,
            key: lane,
            now_ms: now,
            lease,
            head: None,
            held: None,
            jobs,
            delivered: None,
            admission: jobs.map(|_| &mut admission),
        };
        match outlook(&mut queue, now, max_deliveries)? {
            Outlook::Deliverable => return Ok(Outlook::Deliverable),
            Outlook::Wait { next_due: lane_due } => next_due = earlier(next_due, lane_due),
        }
    }
    let room = admission.room_at().map(|at| at as f64);
    Ok(Outlook::Wait {
        next_due: earlier(next_due, room),
    })
}

/// The earlier of two due times, either of which may be missing.
fn earlier(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A queue kept in a sorted set, and the sorted sets its lease names. A
/// poll that finds nothing due writes nothing, so it leaves WATCH alone
/// (writes are signalled as they are recorded, `host/effects.rs`).
struct ZsetQueue<'c, 'a> {
    ctx: &'c Ctx,
    key: &'c RStr,
    /// The claim's now (unix ms), read once.
    now_ms: i64,
    lease: Option<&'c LeaseArgs<&'c RStr>>,
    /// What a claim's first read found ([`ZsetQueue::read_head`]), until
    /// the claim uses it or writes.
    head: Option<Head<'c>>,
    /// The in-flight set, when the claim opened it before its first read.
    held: Option<Zset<'c>>,
    /// The queue's job data, when the poll names it.
    jobs: Option<&'c JobTerms<&'c RStr>>,
    /// With WITHDATA: each delivered task's payload and deliveries.
    delivered: Option<Vec<JobInfo>>,
    /// With the queue's data: what the claim took of each group, across
    /// its lanes.
    admission: Option<&'a mut Admission>,
}

/// The first read of a claim: the tasks due at `due` (at most `count`) and
/// the earliest score, from one walk up from the queue's lowest score, and
/// the queue's handle, open for the claim to take the tasks through.
struct Head<'c> {
    due: f64,
    count: usize,
    tasks: Option<Tasks<OwnedRStr>>,
    earliest: Option<f64>,
    queue: Option<Zset<'c>>,
}

impl<'c> ZsetQueue<'c, '_> {
    /// Checks that the queue holds due times, not another family's scores
    /// (a gift board's totals would all be due, and claimed away), and
    /// reads the tasks due at `due`, up to `count`, in the same walk: the
    /// lowest elements the check needs are the first tasks a claim takes.
    fn read_head(&mut self, due: f64, count: usize) -> Result<(), ZkitError> {
        let mut head = Head {
            due,
            count,
            tasks: Some(Tasks::new()),
            earliest: None,
            queue: None,
        };
        // Open for writing at once (an absent queue opens empty), unless the
        // server could not replicate the claim: then a poll that finds
        // nothing due still answers.
        let queue = match self.ctx.can_record_writes() {
            true => Some(self.ctx.open_zset_mut(self.key)?),
            false => self.ctx.open_zset(self.key)?,
        };
        if let Some(mut queue) = queue {
            let mut walk = queue.iter_asc(ScoreBound::MIN, ScoreBound::MAX);
            let first = walk.next();
            let second = match &first {
                Some((_, score)) if family::may_start_seen_key(*score) => walk.next(),
                _ => None,
            };
            let lowest: SmallVec<[family::Element<'_>; 2]> = first
                .iter()
                .chain(&second)
                .map(|(task, score)| (task.as_bytes(), *score))
                .collect();
            family::check_delay_queue(&lowest)?;
            drop(lowest);
            head.earliest = first.as_ref().map(|&(_, score)| score);
            let tasks = head.tasks.as_mut().expect("set above");
            let mut read = first.into_iter().chain(second);
            while tasks.len() < count {
                match read.next().or_else(|| walk.next()) {
                    Some((task, score)) if score <= due => tasks.push((task, score)),
                    _ => break,
                }
            }
            drop(walk);
            head.queue = queue.is_writable().then_some(queue);
        }
        self.head = Some(head);
        Ok(())
    }

    /// The queue is the in-flight set it leases into: every task it holds
    /// was delivered before.
    fn polls_its_inflight_set(&self) -> bool {
        self.lease
            .is_some_and(|lease| lease.inflight.as_bytes() == self.key.as_bytes())
    }

    fn dead_letter(&self) -> &DeadLetterArgs<&RStr> {
        self.lease
            .and_then(|lease| lease.dead_letter.as_ref())
            .expect("counting deliveries needs DEADLETTER")
    }
}

impl TaskQueue for ZsetQueue<'_, '_> {
    type Task = OwnedRStr;
    type Error = ZkitError;

    fn due(&mut self, due: f64, count: usize) -> Result<Tasks<OwnedRStr>, ZkitError> {
        if let Some(head) = self.head.as_mut() {
            if head.due == due && head.count == count {
                if let Some(tasks) = head.tasks.take() {
                    return Ok(tasks);
                }
            }
        }
        Ok(match self.ctx.open_zset(self.key)? {
            Some(mut queue) => queue
                .iter_asc(ScoreBound::MIN, ScoreBound::Inclusive(due))
                .take(count)
                .collect(),
            None => Tasks::new(),
        })
    }

    fn earliest(&mut self) -> Result<Option<f64>, ZkitError> {
        if let Some(head) = &self.head {
            return Ok(head.earliest);
        }
        Ok(self.ctx.open_zset(self.key)?.and_then(|mut queue| {
            queue
                .iter_asc(ScoreBound::MIN, ScoreBound::MAX)
                .next()
                .map(|(_, score)| score)
        }))
    }

    fn next_after(&mut self, due: f64) -> Result<Option<f64>, ZkitError> {
        Ok(self.ctx.open_zset(self.key)?.and_then(|mut queue| {
            queue
                .iter_asc(ScoreBound::Exclusive(due), ScoreBound::MAX)
                .next()
                .map(|(_, score)| score)
        }))
    }

    fn take(&mut self, tasks: &[(OwnedRStr, f64)]) -> Result<(), ZkitError> {
        // What the first read found no longer holds; its handle takes the
        // tasks, and closes before any other write (the in-flight set may be
        // this very key).
        let opened = self.head.take().and_then(|head| head.queue);
        let mut queue = match opened {
            Some(queue) => queue,
            None => self.ctx.open_zset_mut(self.key)?,
        };
        for (task, _) in tasks {
            queue.remove(task);
        }
        Ok(())
    }

    fn lease(&mut self, tasks: &[(OwnedRStr, f64)], until: i64) -> Result<(), ZkitError> {
        let inflight = self
            .lease
            .expect("a lease names its in-flight set")
            .inflight;
        let mut held = match self.held.take() {
            Some(held) => held,
            None => self.ctx.open_zset_mut(inflight)?,
        };
        let created = held.is_empty();
        for (task, _) in tasks {
            held.add(task, until as f64)?;
        }
        // Each lease ends after every other: on a listpack it goes in at
        // the far end, past every entry.
        layout::after_write(self.ctx, inflight, &mut held, created);
        Ok(())
    }

    fn deliveries(&mut self, tasks: &[(OwnedRStr, f64)]) -> Result<Vec<f64>, ZkitError> {
        let counts = self.ctx.open_zset(self.dead_letter().deliveries)?;
        Ok(tasks
            .iter()
            .map(|(task, _)| counts.as_ref().and_then(|c| c.score(task)).unwrap_or(0.0))
            .collect())
    }

    fn count_delivery(&mut self, tasks: &[(OwnedRStr, f64)]) -> Result<(), ZkitError> {
        let polls_its_inflight_set = self.polls_its_inflight_set();
        let mut counts = self.ctx.open_zset_mut(self.dead_letter().deliveries)?;
        for (task, _) in tasks {
            // Counted in `claim` when the queue is an in-flight set.
            if counts.incr(task, 1.0)? > 1.0 && !polls_its_inflight_set {
                TASKS_REDELIVERED.add(1);
            }
        }
        Ok(())
    }

    fn bury(
        &mut self,
        tasks: &[(OwnedRStr, f64)],
        now_ms: i64,
        fate: Fate,
    ) -> Result<(), ZkitError> {
        // The counts they die with, for their history.
        let died_with: Vec<f64> = match (self.jobs, fate) {
            (Some(_), Fate::Exhausted) => self.deliveries(tasks)?,
            _ => vec![0.0; tasks.len()],
        };
        let dead_letter = self.dead_letter();
        let mut dead = self.ctx.open_zset_mut(dead_letter.dead)?;
        for (task, _) in tasks {
            dead.add(task, now_ms as f64)?;
        }
        let trimmed = trim_dead_letters(&mut dead, tasks.len(), now_ms);
        drop(dead);
        TASKS_DEAD.add(tasks.len() as u64);
        let mut counts = self.ctx.open_zset_mut(dead_letter.deliveries)?;
        for (task, _) in tasks {
            counts.remove(task);
        }
        drop(counts);
        if let Some(jobs) = self.jobs {
            let mut data = self.ctx.open_hash_mut(jobs.data)?;
            for ((task, _), count) in tasks.iter().zip(died_with) {
                let task = task.as_bytes();
                data.set(&Field::DiedWith.of(task), &jobs::int_value(count as i64))?;
                if fate == Fate::Expired {
                    data.set(&Field::Reason.of(task), &OwnedRStr::new(EXPIRED_REASON))?;
                }
                data.delete(&Field::Deadline.of(task));
                data.delete(&Field::Worker.of(task));
            }
            for task in &trimmed {
                delete_task_data(&mut data, task.as_bytes());
            }
            // Dead while in flight (redelivered from its in-flight set): its
            // group's slot comes free.
            if self.polls_its_inflight_set() {
                let mut freed = false;
                for (task, _) in tasks {
                    freed |= groups::release(&mut data, task.as_bytes())?;
                }
                drop(data);
                if freed {
                    self.ctx.wake_waiters(jobs.data);
                }
            }
        }
        Ok(())
    }

    fn leave_dead_for_later(&mut self) -> Result<(), ZkitError> {
        let terms = SweepTerms {
            lease: self.lease.map(LeaseArgs::to_owned),
            data: self.jobs.map(|jobs| OwnedRStr::new(jobs.data.as_bytes())),
        };
        // One sweep per queue and clause: the keys, each with its length,
        // and the bound.
        let mut identity = Vec::new();
        let dead_letter = terms.lease.as_ref().and_then(|l| l.dead_letter.as_ref());
        let keys = dead_letter
            .into_iter()
            .flat_map(|d| [&d.dead, &d.deliveries])
            .chain(&terms.data);
        for key in keys {
            identity.extend_from_slice(&key.as_bytes().len().to_le_bytes());
            identity.extend_from_slice(key.as_bytes());
        }
        let max_deliveries = dead_letter.map_or(0, |d| d.max_deliveries);
        identity.extend_from_slice(&max_deliveries.to_le_bytes());
        let queue = OwnedRStr::new(self.key.as_bytes());
        self.ctx.defer(
            self.key,
            &identity,
            Box::new(move |ctx| sweep_step(ctx, &queue, &terms).map_err(|e| e.to_string())),
        );
        Ok(())
    }

    fn has_deadlines(&self) -> bool {
        self.jobs.is_some()
    }

    fn has_groups(&self) -> bool {
        self.jobs.is_some() && self.admission.is_some()
    }

    fn admit(&mut self, task: &OwnedRStr) -> Result<bool, ZkitError> {
        // A redelivery from the in-flight set holds its group's slot already.
        let enters = self.lease.is_some() && !self.polls_its_inflight_set();
        let (Some(jobs), Some(admission)) = (self.jobs, self.admission.as_deref_mut()) else {
            return Ok(true);
        };
        let data = self.ctx.open_hash(jobs.data)?;
        Ok(admission.admit(data.as_ref(), task.as_bytes(), enters))
    }

    fn deadlines(&mut self, tasks: &[(OwnedRStr, f64)]) -> Result<Vec<Option<i64>>, ZkitError> {
        let data = match self.jobs {
            Some(jobs) => self.ctx.open_hash(jobs.data)?,
            None => None,
        };
        Ok(tasks
            .iter()
            .map(|(task, _)| {
                let data = data.as_ref()?;
                int_field(data, &Field::Deadline.of(task.as_bytes()))
            })
            .collect())
    }

    fn drop_expired(&mut self, tasks: &[(OwnedRStr, f64)]) -> Result<(), ZkitError> {
        if let Some(jobs) = self.jobs {
            let mut data = self.ctx.open_hash_mut(jobs.data)?;
            for (task, _) in tasks {
                delete_task_data(&mut data, task.as_bytes());
            }
        }
        TASKS_EXPIRED.add(tasks.len() as u64);
        Ok(())
    }

    fn delivered(&mut self, tasks: &[(OwnedRStr, f64)], leased: bool) -> Result<(), ZkitError> {
        let Some(jobs) = self.jobs else {
            return Ok(());
        };
        if jobs.with_data {
            let counts = match self.lease.and_then(|lease| lease.dead_letter.as_ref()) {
                Some(dead_letter) => self.ctx.open_zset(dead_letter.deliveries)?,
                None => None,
            };
            let data = self.ctx.open_hash(jobs.data)?;
            let infos = tasks
                .iter()
                .map(|(task, _)| JobInfo {
                    payload: data
                        .as_ref()
                        .and_then(|d| d.get(&Field::Payload.of(task.as_bytes()))),
                    deliveries: counts
                        .as_ref()
                        .and_then(|c| c.score(task))
                        .map(|n| n as i64),
                })
                .collect();
            self.delivered = Some(infos);
        }
        let mut data = self.ctx.open_hash_mut(jobs.data)?;
        for (task, _) in tasks {
            let task = task.as_bytes();
            if !leased {
                // Polled without a lease, a task is done when delivered.
                delete_task_data(&mut data, task);
                continue;
            }
            // Started: its not-started-by deadline no longer applies.
            data.delete(&Field::Deadline.of(task));
            if let Some(worker) = jobs.worker {
                data.set(&Field::Worker.of(task), worker)?;
            }
        }
        if let Some(admission) = self.admission.as_deref_mut() {
            admission.write(&mut data)?;
        }
        // An occurrence of a repeating job claimed: its next one is queued.
        for (task, _) in tasks {
            schedules::advance(self.ctx, self.key, &mut data, task.as_bytes(), self.now_ms)?;
        }
        Ok(())
    }
}

/// Removes the oldest dead tasks past `zkit.dead-letters-max`, and those
/// older than `zkit.dead-letters-max-age-ms`, after a claim buried `buried`
/// (bounded work: see `logic::jobs::dead_over_count`); returns them, for
/// their data to go too.
fn trim_dead_letters(dead: &mut Zset<'_>, buried: usize, now_ms: i64) -> Vec<OwnedRStr> {
    let max = jobs::DEAD_LETTERS_MAX.get();
    let max_age = jobs::DEAD_LETTERS_MAX_AGE_MS.get();
    let mut trimmed: Vec<OwnedRStr> = Vec::new();
    let over = dead_over_count(
        dead.len(),
        usize::try_from(max).unwrap_or(usize::MAX),
        buried,
    );
    if over > 0 {
        trimmed.extend(
            dead.iter_asc(ScoreBound::MIN, ScoreBound::MAX)
                .take(over)
                .map(|(task, _)| task),
        );
    }
    if max_age > 0 {
        // Both are runs from the oldest: past the ones already taken.
        let already = trimmed.len();
        let before = now_ms.saturating_sub(max_age) as f64;
        trimmed.extend(
            dead.iter_asc(ScoreBound::MIN, ScoreBound::Exclusive(before))
                .skip(already)
                .take(TRIM_SPARE + buried)
                .map(|(task, _)| task),
        );
    }
    for task in &trimmed {
        dead.remove(task);
    }
    TASKS_TRIMMED.add(trimmed.len() as u64);
    trimmed
}

/// What a background sweep of dead and expired tasks needs: the poll's
/// lease (with its dead-letter clause) and the queue's data, as the poll
/// that left them named them.
struct SweepTerms {
    lease: Option<LeaseArgs<OwnedRStr>>,
    data: Option<OwnedRStr>,
}

/// One background step of moving dead and expired tasks out of `queue`,
/// ahead of its live ones (`logic::delay::sweep_dead`), for a poll that met
/// more of them than it may move.
fn sweep_step(ctx: &Ctx, queue: &RStr, terms: &SweepTerms) -> Result<Progress, ZkitError> {
    let lease = terms.lease.as_ref().map(LeaseArgs::borrowed);
    let dead_letter = lease.as_ref().and_then(|lease| lease.dead_letter.as_ref());
    // The keys may have changed since the poll.
    if let Some(dead_letter) = dead_letter {
        ctx.check_key_type(dead_letter.dead, KeyKind::Zset)?;
        ctx.check_key_type(dead_letter.deliveries, KeyKind::Zset)?;
    }
    let jobs = terms.data.as_deref().map(|data| JobTerms {
        data,
        with_data: false,
        worker: None,
    });
    if let Some(jobs) = &jobs {
        ctx.check_key_type(jobs.data, KeyKind::Hash)?;
    }
    let max_deliveries = dead_letter.map(|d| d.max_deliveries);
    let mut tasks = ZsetQueue {
        ctx,
        key: queue,
        now_ms: ctx.now_ms(),
        lease: lease.as_ref(),
        head: None,
        held: None,
        jobs: jobs.as_ref(),
        delivered: None,
        admission: None,
    };
    Ok(
        match delay::sweep_dead(&mut tasks, ctx.now_ms(), max_deliveries)? {
            true => Progress::More,
            false => Progress::Done,
        },
    )
}

impl Polled {
    /// The reply to a claim: the tasks it delivered (none when nothing was
    /// due), each with the deliveries' token when `with_tokens`.
    fn delivered(delivered: Delivered, with_tokens: bool) -> Polled {
        let tasks = match delivered.claim {
            Claim::Claimed(tasks) => tasks,
            Claim::NothingDue { .. } => Tasks::new(),
        };
        let with_tokens = with_tokens || delivered.jobs.is_some();
        Polled::Tasks {
            jobs: match (&tasks[..], delivered.jobs) {
                // Nothing delivered: still a jobs reply (an empty array).
                ([], Some(_)) => Some(Vec::new()),
                (_, jobs) => jobs,
            },
            tasks,
            token: delivered.token.filter(|_| with_tokens),
            retry_after_ms: delivered.retry_after_ms,
        }
    }

    /// The same reply without RATE's retry-after: a blocked poll waits for
    /// the window instead, and replies as without RATE.
    fn tasks_only(self) -> Polled {
        match self {
            Polled::Tasks {
                tasks, token, jobs, ..
            } => Polled::Tasks {
                tasks,
                token,
                jobs,
                retry_after_ms: None,
            },
            other => other,
        }
    }
}

request! {
    /// DELAY.POLL `key [COUNT n] [LEASE inflight ms] [DEADLETTER dead deliveries n]`.
    struct Poll<'a> {
        key: &'a RStr = key,
        options: PollOptions<'a> = part,
    }
}

/// -> `[[member, due-ms], ...]` (`[[member, due-ms, token], ...]`).
fn poll(ctx: &Ctx, args: Poll<'_>) -> Result<Polled, ZkitError> {
    let terms = args.options.check()?;
    let jobs = terms.jobs.as_ref();
    let lanes = terms.lanes_after(args.key);
    let delivered = claim(
        ctx,
        &lanes,
        terms.count,
        terms.lease.as_ref(),
        jobs,
        terms.rate.as_ref(),
    )?;
    Ok(Polled::delivered(delivered, terms.with_tokens))
}

request! {
    /// DELAY.BPOLL `key timeout-ms [COUNT n] [LEASE ...] [DEADLETTER ...]`.
    struct BlockingPoll<'a> {
        key: &'a RStr = key,
        timeout_ms: i64 = integer,
        options: PollOptions<'a> = part,
    }
}

/// -> `[[member, due-ms], ...]`, or nil on timeout.
fn bpoll(ctx: &Ctx, args: BlockingPoll<'_>) -> Result<Polled, ZkitError> {
    let BlockingPoll {
        key,
        timeout_ms: timeout,
        options,
    } = args;
    if timeout < 0 {
        return Err(ZkitError::OutOfRange {
            what: "timeout",
            limit: bound::NEGATIVE,
        });
    }
    if timeout > MAX_DURATION_MS {
        return Err(ZkitError::OutOfRange {
            what: "timeout",
            limit: bound::TOO_LARGE,
        });
    }
    let terms = options.check()?;
    let lanes = terms.lanes_after(key);
    let PollTerms {
        count,
        lease,
        with_tokens,
        jobs,
        rate,
        ..
    } = terms;
    let delivered = claim(
        ctx,
        &lanes,
        count,
        lease.as_ref(),
        jobs.as_ref(),
        rate.as_ref(),
    )?;
    let mut earliest = match delivered.claim {
        Claim::Claimed(_) => return Ok(Polled::delivered(delivered, with_tokens).tasks_only()),
        Claim::NothingDue { earliest } => earliest,
    };
    // Tasks are due but the window is full: wait until it has room.
    if let Some(retry) = delivered.retry_after_ms.filter(|&ms| ms > 0) {
        earliest = Some((ctx.now_ms() + retry) as f64);
    }
    // Like BZPOPMIN: inside MULTI or a script, answer as a timeout at once.
    if !ctx.may_block() {
        return Ok(Polled::TimedOut);
    }
    let data = jobs.as_ref().map(|jobs| jobs.data);
    let waiter = PollWaiter {
        keys: lanes
            .iter()
            .chain(&data)
            .map(|key| OwnedRStr::new(key.as_bytes()))
            .collect(),
        lanes: lanes.len(),
        count,
        rate: rate.as_ref().map(RateArgs::to_owned),
        lease: lease.as_ref().map(LeaseArgs::to_owned),
        with_tokens,
        jobs: jobs.as_ref().map(JobTerms::to_owned),
    };
    let wake_at = earliest.map(|due| wake_at_ms(due, ctx.now_ms()));
    ctx.block_on_zset(waiter, timeout, wake_at)?;
    Ok(Polled::Blocked)
}

/// A blocked DELAY.BPOLL: its own copy of the arguments, tried whenever a
/// lane may have a due task.
struct PollWaiter {
    /// The queue, then its lanes, then the DATA key (whose groups' slots
    /// coming free wake the client too).
    keys: Vec<OwnedRStr>,
    /// How many of `keys` are lanes.
    lanes: usize,
    rate: Option<RateArgs<OwnedRStr>>,
    count: usize,
    lease: Option<LeaseArgs<OwnedRStr>>,
    with_tokens: bool,
    jobs: Option<JobTerms<OwnedRStr>>,
}

impl ZsetWaiter for PollWaiter {
    type Error = ZkitError;

    fn keys(&self) -> &[OwnedRStr] {
        &self.keys
    }

    /// Ready when a claim would deliver a task; dead tasks alone do not
    /// wake the client (see `logic::delay::outlook`), so `serve` never
    /// writes without serving.
    fn readiness(&mut self, ctx: &Ctx) -> Result<Readiness, ZkitError> {
        let now = ctx.now_ms();
        let lease = self.lease.as_ref().map(LeaseArgs::borrowed);
        let jobs = self.jobs.as_ref().map(JobTerms::borrowed);
        if let Some(jobs) = &jobs {
            // Paused: wait for the resume, which signals the queue.
            if is_paused(ctx, jobs.data)? {
                return Ok(Readiness::Wait { wake_at_ms: None });
            }
        }
        // A full RATE window: look again when it has room.
        if let Some(rate) = &self.rate {
            if let WindowRoom::Full { retry_after_ms } = window_room(ctx, &rate.borrowed(), now)? {
                return Ok(Readiness::Wait {
                    wake_at_ms: Some(now + retry_after_ms),
                });
            }
        }
        let lanes: SmallVec<[&RStr; 4]> =
            self.keys[..self.lanes].iter().map(|lane| &**lane).collect();
        Ok(
            match lanes_outlook(ctx, &lanes, lease.as_ref(), jobs.as_ref(), now)? {
                Outlook::Deliverable => Readiness::Ready,
                Outlook::Wait { next_due } => Readiness::Wait {
                    wake_at_ms: next_due.map(|due| wake_at_ms(due, now)),
                },
            },
        )
    }

    /// Claims, counts deliveries and moves dead tasks: every write of a
    /// blocked poll happens here, after the write gate accepted a write,
    /// and only when `readiness` found a task to deliver.
    fn serve(&mut self, ctx: &Ctx) -> Result<Attempt, ZkitError> {
        let lease = self.lease.as_ref().map(LeaseArgs::borrowed);
        let jobs = self.jobs.as_ref().map(JobTerms::borrowed);
        let lanes: SmallVec<[&RStr; 4]> =
            self.keys[..self.lanes].iter().map(|lane| &**lane).collect();
        let rate = self.rate.as_ref().map(RateArgs::borrowed);
        let delivered = claim(
            ctx,
            &lanes,
            self.count,
            lease.as_ref(),
            jobs.as_ref(),
            rate.as_ref(),
        )?;
        match delivered.claim {
            Claim::Claimed(_) => {
                ctx.reply(&Polled::delivered(delivered, self.with_tokens).tasks_only());
                Ok(Attempt::Served)
            }
            Claim::NothingDue { earliest } => Ok(Attempt::Wait {
                wake_at_ms: earliest.map(|due| wake_at_ms(due, ctx.now_ms())),
            }),
        }
    }

    fn time_out(&mut self, ctx: &Ctx) {
        ctx.reply(&Polled::TimedOut);
    }
}
