//! Generic readers of RESP2 and RESP3 values that the generated reply types
//! (`replies.rs`, from docs/commands.json's reply schemas) use, and the
//! wrapper of an IDMP call's reply: what every reply shape needs, whatever
//! the command.

use std::collections::HashMap;

use redis::{from_redis_value, FromRedisValue, ParsingError, Value};

/// The elements of a fixed-length reply, read in order.
pub(crate) struct Items(std::vec::IntoIter<Value>);

impl Items {
    /// `v` as an array of `min` to `max` elements (`what` names it in errors).
    pub(crate) fn read(
        v: Value,
        what: &str,
        min: usize,
        max: usize,
    ) -> Result<Items, ParsingError> {
        let items = match v {
            Value::Array(items) => items,
            other => {
                return Err(ParsingError::from(format!(
                    "{what}: an array, not {other:?}"
                )))
            }
        };
        if !(min..=max).contains(&items.len()) {
            return Err(ParsingError::from(format!(
                "{what}: a reply of {} elements",
                items.len()
            )));
        }
        Ok(Items(items.into_iter()))
    }

    /// The next element (`read` checked that it is there).
    pub(crate) fn next<T: FromRedisValue>(&mut self) -> Result<T, ParsingError> {
        from_redis_value(self.0.next().unwrap_or(Value::Nil))
    }

    /// The next element if the reply has it (an element only some calls get).
    pub(crate) fn optional<T: FromRedisValue>(&mut self) -> Result<Option<T>, ParsingError> {
        self.0.next().map(from_redis_value).transpose()
    }

    /// An integer, or nil read as 0.
    pub(crate) fn integer_or_zero(&mut self) -> Result<i64, ParsingError> {
        Ok(self.next::<Option<i64>>()?.unwrap_or(0))
    }

    /// An array holding tuples of `width` elements one after another, flat.
    pub(crate) fn flat<T: FromRedisValue>(&mut self, width: usize) -> Result<Vec<T>, ParsingError> {
        let flat: Vec<Value> = self.next()?;
        let count = flat.len();
        let mut values = flat.into_iter();
        let mut out = Vec::with_capacity(count / width);
        loop {
            let tuple: Vec<Value> = values.by_ref().take(width).collect();
            match tuple.len() {
                0 => return Ok(out),
                n if n < width => {
                    return Err(ParsingError::from(format!(
                        "a flat list of {count} values, not tuples of {width}"
                    )))
                }
                _ => out.push(T::from_redis_value(Value::Array(tuple))?),
            }
        }
    }
}

/// A field list, `[name, value, ...]` (or a RESP3 map), by name; names
/// the server adds later are ignored.
pub(crate) struct Fields(HashMap<String, Value>);

impl Fields {
    pub(crate) fn read(v: Value) -> Result<Fields, ParsingError> {
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
    pub(crate) fn get<T: FromRedisValue>(&mut self, name: &str) -> Result<Option<T>, ParsingError> {
        match self.0.remove(name) {
            None | Some(Value::Nil) => Ok(None),
            Some(value) => Ok(Some(from_redis_value(value)?)),
        }
    }

    pub(crate) fn need<T: FromRedisValue>(&mut self, name: &str) -> Result<T, ParsingError> {
        self.get(name)?
            .ok_or_else(|| ParsingError::from(format!("the reply has no {name}")))
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
