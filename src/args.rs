//! Redis-style argument parsing, on plain bytes so it is unit-tested and
//! fuzzed without a server.
//!
//! Numbers follow Redis's own rules, so a value native commands refuse is
//! refused here with the same words: integers are what `string2ll` accepts (no
//! `+`, no leading zeros, no spaces, within i64), floats are what `strtod`
//! accepts minus NaN.

use crate::error::ZkitError;

/// Parses a 64-bit integer exactly as Redis does.
pub fn parse_i64(bytes: &[u8]) -> Result<i64, ZkitError> {
    let (negative, digits) = match bytes {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, bytes),
    };
    let valid = match digits {
        [b'0'] => !negative,
        [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    if !valid {
        return Err(ZkitError::NotInteger);
    }
    // Accumulate negatively so i64::MIN parses.
    digits
        .iter()
        .try_fold(0i64, |acc, d| {
            acc.checked_mul(10)?.checked_sub(i64::from(d - b'0'))
        })
        .and_then(|n| if negative { Some(n) } else { n.checked_neg() })
        .ok_or(ZkitError::NotInteger)
}

/// Parses a double as Redis does (`inf`, `-inf`, exponents), refusing NaN.
pub fn parse_f64(bytes: &[u8]) -> Result<f64, ZkitError> {
    let text = std::str::from_utf8(bytes).map_err(|_| ZkitError::NotFloat)?;
    let first_is_space = text.starts_with(|c: char| c.is_ascii_whitespace());
    match text.parse::<f64>() {
        Ok(v) if !v.is_nan() && !first_is_space => Ok(v),
        _ => Err(ZkitError::NotFloat),
    }
}

/// A non-negative integer such as a count or an offset.
pub fn parse_non_negative(bytes: &[u8], what: &'static str) -> Result<i64, ZkitError> {
    let n = parse_i64(bytes)?;
    if n < 0 {
        return Err(ZkitError::OutOfRange {
            what,
            limit: "must not be negative",
        });
    }
    Ok(n)
}

/// True when `arg` is `keyword`, ignoring ASCII case as Redis does.
pub fn is_keyword(arg: &[u8], keyword: &str) -> bool {
    arg.eq_ignore_ascii_case(keyword.as_bytes())
}

/// Walks the optional `KEYWORD value` arguments at the end of a command.
pub struct Options<'a, A> {
    rest: std::slice::Iter<'a, A>,
}

impl<'a, A: AsRef<[u8]>> Options<'a, A> {
    pub fn new(rest: &'a [A]) -> Self {
        Options { rest: rest.iter() }
    }

    /// The next option keyword, or `None` at the end.
    pub fn next_keyword(&mut self) -> Option<&'a [u8]> {
        self.rest.next().map(AsRef::as_ref)
    }

    /// The argument after a keyword; a missing one is a syntax error.
    pub fn value(&mut self) -> Result<&'a A, ZkitError> {
        self.rest.next().ok_or(ZkitError::Syntax)
    }

    pub fn int(&mut self) -> Result<i64, ZkitError> {
        parse_i64(self.value()?.as_ref())
    }

    pub fn float(&mut self) -> Result<f64, ZkitError> {
        parse_f64(self.value()?.as_ref())
    }

    pub fn non_negative(&mut self, what: &'static str) -> Result<i64, ZkitError> {
        parse_non_negative(self.value()?.as_ref(), what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn integers_follow_string2ll() {
        for (text, value) in [
            ("0", 0),
            ("7", 7),
            ("-7", -7),
            ("9223372036854775807", i64::MAX),
            ("-9223372036854775808", i64::MIN),
        ] {
            assert_eq!(parse_i64(text.as_bytes()), Ok(value), "{text}");
        }
        for text in [
            "",
            "-",
            "+1",
            "01",
            "-0",
            " 1",
            "1 ",
            "1.0",
            "1e3",
            "0x10",
            "nan",
            "inf",
            "9223372036854775808",
            "-9223372036854775809",
            "99999999999999999999",
        ] {
            assert_eq!(
                parse_i64(text.as_bytes()),
                Err(ZkitError::NotInteger),
                "{text}"
            );
        }
    }

    #[test]
    fn floats_follow_strtod_without_nan() {
        for (text, value) in [
            ("1.5", 1.5),
            ("-2", -2.0),
            ("1e3", 1000.0),
            ("inf", f64::INFINITY),
            ("-inf", f64::NEG_INFINITY),
            ("+inf", f64::INFINITY),
        ] {
            assert_eq!(parse_f64(text.as_bytes()), Ok(value), "{text}");
        }
        for text in ["", "nan", "NaN", "-nan", " 1", "1 ", "abc", "1,5", "\u{ff}"] {
            assert_eq!(
                parse_f64(text.as_bytes()),
                Err(ZkitError::NotFloat),
                "{text}"
            );
        }
    }

    #[test]
    fn options_walk_keyword_value_pairs() {
        let args: Vec<&[u8]> = vec![b"at", b"5", b"OFFSET"];
        let mut opts = Options::new(&args);
        assert!(is_keyword(opts.next_keyword().unwrap(), "AT"));
        assert_eq!(opts.int(), Ok(5));
        assert!(is_keyword(opts.next_keyword().unwrap(), "offset"));
        assert_eq!(opts.int(), Err(ZkitError::Syntax));
        assert_eq!(opts.next_keyword(), None);
        assert_eq!(
            parse_non_negative(b"-1", "count"),
            Err(ZkitError::OutOfRange {
                what: "count",
                limit: "must not be negative"
            })
        );
    }

    proptest! {
        #[test]
        fn every_i64_round_trips(n in any::<i64>()) {
            prop_assert_eq!(parse_i64(n.to_string().as_bytes()), Ok(n));
        }

        #[test]
        fn options_never_panic(
            args in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..12), 0..8),
            reads in proptest::collection::vec(0u8..4, 0..8),
        ) {
            // Any argument vector, walked with any sequence of value reads.
            let mut options = Options::new(&args);
            for read in reads {
                if options.next_keyword().is_none() {
                    break;
                }
                let _ = match read {
                    0 => options.int().map(drop),
                    1 => options.float().map(drop),
                    2 => options.non_negative("n").map(drop),
                    _ => options.value().map(drop),
                };
            }
        }

        #[test]
        fn parsers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            let _ = parse_i64(&bytes);
            let _ = parse_f64(&bytes);
        }
    }
}
