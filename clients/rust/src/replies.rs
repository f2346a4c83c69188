//! Typed replies of zkit commands, fields in the reply order of
//! docs/commands.md. Scores are `f64` whether the server sent them as RESP2
//! strings or RESP3 doubles; members, tasks and cursors are `String`.

use redis::{from_redis_value, FromRedisValue, ParsingError, Value};

/// RANK.GIFT and RANK.SET (one per board for RANK.MGIFT): the member's total
/// and its 1-based rank (with `shared`, its competition rank).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TotalRank {
    pub total: i64,
    pub rank: i64,
}

impl FromRedisValue for TotalRank {
    fn from_redis_value(v: Value) -> Result<Self, ParsingError> {
        let (total, rank) = from_redis_value(v)?;
        Ok(TotalRank { total, rank })
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
