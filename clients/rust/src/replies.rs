//! Typed replies of zkit commands, fields in the reply order of
//! docs/commands.md. Scores are `f64` whether the server sent them as RESP2
//! strings or RESP3 doubles; members, tasks and cursors are `String`.

use std::collections::HashMap;

use redis::{from_redis_value, FromRedisValue, ParsingError, Value};

/// RANK.GIFT and RANK.SET (one per board for RANK.MGIFT): the member's total
/// and its 1-based rank (with `shared`, its competition rank). A repeated
/// IDMP call whose member has left the board since answers total 0, rank 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TotalRank {
    pub total: i64,
    pub rank: i64,
}

impl FromRedisValue for TotalRank {
    fn from_redis_value(v: Value) -> Result<Self, ParsingError> {
        // The rank is nil only in that repeat's reply.
        let (total, rank): (i64, Option<i64>) = from_redis_value(v)?;
        Ok(TotalRank {
            total,
            rank: rank.unwrap_or(0),
        })
    }
}

/// The reply of a call that gave `IDMP` (the `*_idmp` methods): the
/// command's usual reply, and whether the event id was already applied
/// (the call changed nothing; the reply is the state as it stands now, and
/// RATE.HIT spent nothing). A refused RATE.HIT is not remembered: its
/// retry is judged afresh.
///
/// ```no_run
/// use zkit::{Idmp, RankGiftOptions, Zkit};
///
/// # fn main() -> redis::RedisResult<()> {
/// # let mut z = Zkit::new(redis::Client::open("redis://127.0.0.1:6379")?.get_connection()?);
/// // The payment id is the event id; the seen-key has the board's hash tag.
/// let once = Idmp::new("{room:7}:seen", "pay-881");
/// let gift = z.rank_gift_idmp("{room:7}:board", "alice", 10, once, RankGiftOptions::default())?;
/// if gift.already_applied {
///     // A retry: nothing changed; gift.reply is alice's total and rank now.
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Applied<T> {
    pub reply: T,
    pub already_applied: bool,
}

impl<T: FromRedisValue> FromRedisValue for Applied<T> {
    fn from_redis_value(v: Value) -> Result<Self, ParsingError> {
        // The flag is the last element, after the usual reply's.
        let mut items = match v {
            Value::Array(items) => items,
            other => {
                return Err(ParsingError::from(format!(
                    "an IDMP reply is an array, not {other:?}"
                )))
            }
        };
        let flag = items
            .pop()
            .ok_or_else(|| ParsingError::from("an empty IDMP reply".to_string()))?;
        Ok(Applied {
            already_applied: from_redis_value(flag)?,
            reply: T::from_redis_value(Value::Array(items))?,
        })
    }
}

/// RANK.MERGE with `STEP` ([`Zkit::rank_merge_step`](crate::Zkit::rank_merge_step)):
/// the cursor to send next (`"0"` once the merge is done and destkey
/// replaced) and the members merged so far (after the last step, the
/// members in destkey).
///
/// ```no_run
/// use zkit::{RankMergeOptions, Step, Zkit};
///
/// # fn main() -> redis::RedisResult<()> {
/// # let mut z = Zkit::new(redis::Client::open("redis://127.0.0.1:6379")?.get_connection()?);
/// let sources = ["{room42}:mon", "{room42}:tue"];
/// let mut cursor = "0".to_string();
/// loop {
///     let step = Step::new(1000, "{room42}:week:tmp", &cursor);
///     let reply = z.rank_merge_step("{room42}:week", &sources, step, RankMergeOptions::default())?;
///     if reply.is_done() {
///         break; // {room42}:week holds the merge of both days
///     }
///     cursor = reply.cursor;
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeStep {
    pub cursor: String,
    pub staged: i64,
}

impl MergeStep {
    /// Whether this was the last step: destkey holds the merge.
    pub fn is_done(&self) -> bool {
        self.cursor == "0"
    }
}

impl FromRedisValue for MergeStep {
    fn from_redis_value(v: Value) -> Result<Self, ParsingError> {
        let (cursor, staged) = from_redis_value(v)?;
        Ok(MergeStep { cursor, staged })
    }
}

/// RANK.GET (one per member for RANK.MGET): total, rank and when the total
/// was reached (unix ms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RankInfo {
    pub total: i64,
    pub rank: i64,
    pub reached_at_ms: i64,
}

impl FromRedisValue for RankInfo {
    fn from_redis_value(v: Value) -> Result<Self, ParsingError> {
        let (total, rank, reached_at_ms) = from_redis_value(v)?;
        Ok(RankInfo {
            total,
            rank,
            reached_at_ms,
        })
    }
}

/// One row of RANK.TOP and RANK.AROUND.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankEntry {
    pub rank: i64,
    pub member: String,
    pub total: i64,
}

impl FromRedisValue for RankEntry {
    fn from_redis_value(v: Value) -> Result<Self, ParsingError> {
        let (rank, member, total) = from_redis_value(v)?;
        Ok(RankEntry {
            rank,
            member,
            total,
        })
    }
}

/// One item of a FEED.PAGE page.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedItem {
    pub member: String,
    pub score: f64,
}

/// FEED.PAGE: items newest first, the cursors of the first and last item
/// (the cursor given, or None, when the page is empty) and whether more
/// items remain in the direction asked.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedPage {
    pub items: Vec<FeedItem>,
    pub top: Option<String>,
    pub bottom: Option<String>,
    pub more: bool,
}

impl FromRedisValue for FeedPage {
    fn from_redis_value(v: Value) -> Result<Self, ParsingError> {
        // The items come flat: member, score, member, score, ...
        let (flat, top, bottom, more): (Vec<Value>, _, _, _) = from_redis_value(v)?;
        if flat.len() % 2 != 0 {
            return Err(ParsingError::from(format!(
                "FEED.PAGE: an odd item list of {} values",
                flat.len()
            )));
        }
        let mut items = Vec::with_capacity(flat.len() / 2);
        let mut values = flat.into_iter();
        while let (Some(member), Some(score)) = (values.next(), values.next()) {
            items.push(FeedItem {
                member: from_redis_value(member)?,
                score: from_redis_value(score)?,
            });
        }
        Ok(FeedPage {
            items,
            top,
            bottom,
            more,
        })
    }
}

/// A task claimed by DELAY.POLL or DELAY.BPOLL and the score it was due at
/// in the polled key (unix ms; for an in-flight set, its lease's end).
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    pub task: String,
    pub due_ms: f64,
}

impl FromRedisValue for Task {
    fn from_redis_value(v: Value) -> Result<Self, ParsingError> {
        let (task, due_ms) = from_redis_value(v)?;
        Ok(Task { task, due_ms })
    }
}

/// RATE.HIT: whether the hit was allowed, the units in the window after it,
/// the units left, the ms until the same hit would pass (-1 when allowed),
/// for the limit that binds; with several limits, `binding` is that limit's
/// 1-based position in the limits given (None with one limit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateResult {
    pub allowed: bool,
    pub count: i64,
    pub remaining: i64,
    pub retry_after_ms: i64,
    pub binding: Option<i64>,
}

impl FromRedisValue for RateResult {
    fn from_redis_value(v: Value) -> Result<Self, ParsingError> {
        let fields: Vec<i64> = from_redis_value(v)?;
        let binding = match fields.len() {
            4 => None,
            5 => Some(fields[4]),
            n => {
                return Err(ParsingError::from(format!(
                    "RATE.HIT: a reply of {n} fields"
                )))
            }
        };
        Ok(RateResult {
            allowed: fields[0] == 1,
            count: fields[1],
            remaining: fields[2],
            retry_after_ms: fields[3],
            binding,
        })
    }
}

/// VOTE.CAST: the item's score, the up and down counts, and whether the
/// vote changed anything.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VoteResult {
    pub score: f64,
    pub ups: i64,
    pub downs: i64,
    pub changed: bool,
}

impl FromRedisValue for VoteResult {
    fn from_redis_value(v: Value) -> Result<Self, ParsingError> {
        let (score, ups, downs, changed) = from_redis_value(v)?;
        Ok(VoteResult {
            score,
            ups,
            downs,
            changed,
        })
    }
}

/// A stats reply, `[name, value, ...]` (or a RESP3 map), by name; names
/// the server adds later are ignored.
struct Fields(HashMap<String, Value>);

impl Fields {
    fn read(v: Value) -> Result<Fields, ParsingError> {
        let pairs: Vec<(String, Value)> = match v {
            Value::Map(pairs) => pairs
                .into_iter()
                .map(|(name, value)| Ok((from_redis_value(name)?, value)))
                .collect::<Result<_, ParsingError>>()?,
            v => from_redis_value(v)?,
        };
        Ok(Fields(pairs.into_iter().collect()))
    }

    /// A field's value; nil, or a field the reply lacks, reads as `None`.
    fn get<T: FromRedisValue>(&mut self, name: &str) -> Result<Option<T>, ParsingError> {
        match self.0.remove(name) {
            None | Some(Value::Nil) => Ok(None),
            Some(value) => Ok(Some(from_redis_value(value)?)),
        }
    }

    fn need<T: FromRedisValue>(&mut self, name: &str) -> Result<T, ParsingError> {
        self.get(name)?
            .ok_or_else(|| ParsingError::from(format!("the reply has no {name}")))
    }
}

/// DELAY.STATS: a queue's depth and lag at the server's `now_ms`
/// (docs/commands.md, "DELAY.STATS"); `None` for the counts of a set not
/// named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DelayStats {
    pub now_ms: i64,
    pub tasks: i64,
    pub due: i64,
    pub oldest_due_age_ms: i64,
    pub next_due_ms: Option<i64>,
    pub inflight: Option<i64>,
    pub expired: Option<i64>,
    pub dead: Option<i64>,
    pub redelivered: Option<i64>,
}

impl FromRedisValue for DelayStats {
    fn from_redis_value(v: Value) -> Result<Self, ParsingError> {
        let mut f = Fields::read(v)?;
        Ok(DelayStats {
            now_ms: f.need("now-ms")?,
            tasks: f.need("tasks")?,
            due: f.need("due")?,
            oldest_due_age_ms: f.need("oldest-due-age-ms")?,
            next_due_ms: f.get("next-due-ms")?,
            inflight: f.get("inflight")?,
            expired: f.get("expired")?,
            dead: f.get("dead")?,
            redelivered: f.get("redelivered")?,
        })
    }
}

/// RANK.STATS: a board's size, the spread of its totals (`None` on an
/// empty board) and its memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardStats {
    pub members: i64,
    pub top_total: Option<i64>,
    pub p99_total: Option<i64>,
    pub p90_total: Option<i64>,
    pub p50_total: Option<i64>,
    pub bottom_total: Option<i64>,
    pub memory_bytes: i64,
}

impl FromRedisValue for BoardStats {
    fn from_redis_value(v: Value) -> Result<Self, ParsingError> {
        let mut f = Fields::read(v)?;
        Ok(BoardStats {
            members: f.need("members")?,
            top_total: f.get("top-total")?,
            p99_total: f.get("p99-total")?,
            p90_total: f.get("p90-total")?,
            p50_total: f.get("p50-total")?,
            bottom_total: f.get("bottom-total")?,
            memory_bytes: f.need("memory-bytes")?,
        })
    }
}

/// RATE.STATS: the entries of a rate log, when the newest was logged, and
/// `(window_ms, entries)` for each window asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateStats {
    pub entries: i64,
    pub newest_ms: Option<i64>,
    pub windows: Vec<(i64, i64)>,
}

impl FromRedisValue for RateStats {
    fn from_redis_value(v: Value) -> Result<Self, ParsingError> {
        let mut f = Fields::read(v)?;
        Ok(RateStats {
            entries: f.need("entries")?,
            newest_ms: f.get("newest-ms")?,
            windows: f.need("windows")?,
        })
    }
}
