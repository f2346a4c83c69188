//! What the stats commands (DELAY.STATS, RANK.STATS, RATE.STATS) share:
//! counts by score and lookups by position through the server's own rank
//! index (ZCOUNT, ZRANGE by index: O(log N) each, however large the key),
//! and replies as field lists that clients and scripts read by name.

use crate::error::ZkitError;
use crate::host::call::CallArg;
use crate::host::call::Native;
use crate::host::ctx::Ctx;
use crate::host::reply::Reply;
use crate::host::string::OwnedRStr;
use crate::host::string::RStr;
use crate::host::zset::ScoreBound;
use crate::host::zset::Zset;
use smallvec::SmallVec;

/// A reply read by name: `[name, value, name, value, ...]`, the shape of
/// XINFO STREAM and CONFIG GET. Every field is always there, in one order;
/// a value that does not apply (a key not named) is nil.
#[derive(Default)]
pub struct Fields(Vec<Reply>);

impl Fields {
    pub fn add(&mut self, name: &'static str, value: Reply) {
        self.0.push(Reply::Bulk(name.as_bytes().to_vec()));
        self.0.push(value);
    }

    pub fn int(&mut self, name: &'static str, value: i64) {
        self.add(name, Reply::Int(value));
    }

    /// An integer, or nil when there is none.
    pub fn maybe_int(&mut self, name: &'static str, value: Option<i64>) {
        self.add(name, value.map_or(Reply::Null, Reply::Int));
    }

    pub fn into_reply(self) -> Reply {
        Reply::Array(self.0)
    }
}

/// A score bound as ZCOUNT reads it: `-inf`, `+inf`, `5`, `(5`.
fn bound_text(bound: ScoreBound) -> Vec<u8> {
    let (value, exclusive) = match bound {
        ScoreBound::Inclusive(v) => (v, false),
        ScoreBound::Exclusive(v) => (v, true),
    };
    let number = if value == f64::INFINITY {
        "+inf".to_string()
    } else if value == f64::NEG_INFINITY {
        "-inf".to_string()
    } else {
        // Rust prints the shortest text that reads back as the same double.
        value.to_string()
    };
    let mut text = Vec::with_capacity(number.len() + 1);
    if exclusive {
        text.push(b'(');
    }
    text.extend_from_slice(number.as_bytes());
    text
}

/// How many members of the sorted set `key` (absent: 0) score within
/// `[min, max]`: ZCOUNT, two rank lookups. The caller has checked the type.
pub fn count_between(
    ctx: &Ctx,
    key: &RStr,
    min: ScoreBound,
    max: ScoreBound,
) -> Result<u64, ZkitError> {
    let reply = ctx.call(
        Native::Zcount,
        &[
            CallArg::Str(key),
            CallArg::Bytes(&bound_text(min)),
            CallArg::Bytes(&bound_text(max)),
        ],
    )?;
    reply
        .get()
        .integer()
        .map(|count| count as u64)
        .ok_or_else(|| ZkitError::Internal("ZCOUNT did not return an integer".into()))
}

/// The score at 0-based position `index`, lowest first: ZRANGE by index,
/// O(log N). `None` past the end.
pub fn score_at(ctx: &Ctx, key: &RStr, index: u64) -> Result<Option<f64>, ZkitError> {
    let Some(zset) = ctx.open_zset(key)? else {
        return Ok(None);
    };
    Ok(scores_at(ctx, key, &zset, index, index)?.first().copied())
}

/// The scores at the 0-based ascending positions `first` to `last` of the
/// sorted set `key`, open as `zset` (those it has): the members from one
/// `ZRANGE first last`, their scores from the key (a score in a call's
/// reply is a double printed and read back, several times a lookup's cost).
pub fn scores_at(
    ctx: &Ctx,
    key: &RStr,
    zset: &Zset<'_>,
    first: u64,
    last: u64,
) -> Result<SmallVec<[f64; 2]>, ZkitError> {
    let index = |i: u64| i64::try_from(i).unwrap_or(i64::MAX);
    let reply = ctx.call(
        Native::Zrange,
        &[
            CallArg::Str(key),
            CallArg::Int(index(first)),
            CallArg::Int(index(last)),
        ],
    )?;
    let reply = reply.get();
    Ok((0..reply.element_count())
        .filter_map(|i| zset.score(&OwnedRStr::new(reply.element(i)?.bytes()?)))
        .collect())
}

/// Members MEMORY USAGE samples to estimate a large key: its default, so a
/// call costs the same whatever the key's size.
const MEMORY_SAMPLES: i64 = 5;

/// The bytes `key` takes, as MEMORY USAGE estimates them (exact for a small
/// key, sampled for a large one); `None` when the key does not exist.
pub fn memory_usage(ctx: &Ctx, key: &RStr) -> Result<Option<i64>, ZkitError> {
    let reply = ctx.call(
        Native::Memory,
        &[
            CallArg::Bytes(b"USAGE"),
            CallArg::Str(key),
            CallArg::Bytes(b"SAMPLES"),
            CallArg::Int(MEMORY_SAMPLES),
        ],
    )?;
    Ok(reply.get().integer())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_read_as_zcount_spells_them() {
        assert_eq!(bound_text(ScoreBound::MIN), b"-inf");
        assert_eq!(bound_text(ScoreBound::MAX), b"+inf");
        assert_eq!(
            bound_text(ScoreBound::Inclusive(1_718_000_000_000.0)),
            b"1718000000000"
        );
        assert_eq!(bound_text(ScoreBound::Exclusive(2.0)), b"(2");
        assert_eq!(bound_text(ScoreBound::Exclusive(2.5)), b"(2.5");
    }
}
