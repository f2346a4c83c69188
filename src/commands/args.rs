//! Range checks on the numbers a command's grammar parsed: the grammar
//! checks a value is an integer (Redis's `string2ll` rules); what a command
//! accepts of it is said here, in the error texts of `src/error.rs`.

use crate::error::{bound, ZkitError};
use crate::logic::clock::{deadline, MAX_DURATION_MS};

/// A positive integer such as a cap or a count.
pub fn positive(n: i64, what: &'static str) -> Result<usize, ZkitError> {
    usize::try_from(n)
        .ok()
        .filter(|&n| n > 0)
        .ok_or(ZkitError::OutOfRange {
            what,
            limit: bound::POSITIVE_INTEGER,
        })
}

/// A non-negative integer such as an offset.
pub fn non_negative(n: i64, what: &'static str) -> Result<i64, ZkitError> {
    if n < 0 {
        return Err(ZkitError::OutOfRange {
            what,
            limit: bound::NOT_NEGATIVE,
        });
    }
    Ok(n)
}

/// When a key given `TTL seconds` at `now_ms` (unix ms) expires: at most
/// 100 years away.
pub fn ttl_deadline(now_ms: i64, seconds: i64) -> Result<i64, ZkitError> {
    seconds
        .checked_mul(1000)
        .filter(|ms| *ms <= MAX_DURATION_MS)
        .and_then(|ms| deadline(now_ms, ms))
        .ok_or(ZkitError::OutOfRange {
            what: "TTL",
            limit: bound::DURATION_S,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_name_what_they_refuse() {
        assert_eq!(positive(3, "cap"), Ok(3));
        assert_eq!(
            positive(0, "cap"),
            Err(ZkitError::OutOfRange {
                what: "cap",
                limit: bound::POSITIVE_INTEGER
            })
        );
        assert_eq!(ttl_deadline(1_000, 60), Ok(61_000));
        for seconds in [0, -1, 3_155_760_001, i64::MAX] {
            assert_eq!(
                ttl_deadline(1_000, seconds),
                Err(ZkitError::OutOfRange {
                    what: "TTL",
                    limit: bound::DURATION_S
                })
            );
        }
        assert_eq!(non_negative(0, "offset"), Ok(0));
        assert_eq!(
            non_negative(-1, "offset"),
            Err(ZkitError::OutOfRange {
                what: "offset",
                limit: bound::NOT_NEGATIVE
            })
        );
    }
}
