//! Redis-style argument parsing, on plain bytes so it is unit-tested and
//! fuzzed without a server.
//!
//! Numbers follow Redis's own rules, so a value native commands refuse is
//! refused here with the same words: integers are what `string2ll` accepts (no
//! `+`, no leading zeros, no spaces, within i64), floats are what `strtod`
//! accepts minus NaN.

use crate::error::{bound, ZkitError};

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

/// Parses a double as Redis does (`inf`, `-inf`, exponents), refusing NaN
/// and, like Redis's `strtod` check, a finite number too large for a double
/// (`1e400`) or so small it would round to zero (`1e-400`).
pub fn parse_f64(bytes: &[u8]) -> Result<f64, ZkitError> {
    let text = std::str::from_utf8(bytes).map_err(|_| ZkitError::NotFloat)?;
    if text.starts_with(|c: char| c.is_ascii_whitespace()) {
        return Err(ZkitError::NotFloat);
    }
    let value = text.parse::<f64>().map_err(|_| ZkitError::NotFloat)?;
    let digits = text.trim_start_matches(['+', '-']);
    let mantissa = digits.split(['e', 'E']).next().unwrap_or_default();
    let overflowed = value.is_infinite()
        && !digits.eq_ignore_ascii_case("inf")
        && !digits.eq_ignore_ascii_case("infinity");
    let underflowed = value == 0.0 && mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b));
    if value.is_nan() || overflowed || underflowed {
        return Err(ZkitError::NotFloat);
    }
    Ok(value)
}

/// A non-negative integer such as a count or an offset.
pub fn parse_non_negative(bytes: &[u8], what: &'static str) -> Result<i64, ZkitError> {
    let n = parse_i64(bytes)?;
    if n < 0 {
        return Err(ZkitError::OutOfRange {
            what,
            limit: bound::NOT_NEGATIVE,
        });
    }
    Ok(n)
}

/// A positive integer such as a cap or a count.
pub fn parse_positive(bytes: &[u8], what: &'static str) -> Result<usize, ZkitError> {
    let n = parse_i64(bytes)?;
    usize::try_from(n)
        .ok()
        .filter(|&n| n > 0)
        .ok_or(ZkitError::OutOfRange {
            what,
            limit: bound::POSITIVE_INTEGER,
        })
}

/// True when `arg` is `keyword`, ignoring ASCII case as Redis does.
pub fn is_keyword(arg: &[u8], keyword: &str) -> bool {
    arg.eq_ignore_ascii_case(keyword.as_bytes())
}

/// Walks the optional `KEYWORD value` arguments at the end of a command.
///
/// One rule for every command, as for Redis's own: an option keyword the
/// command does not know, or one given a second time, is a syntax error
/// (`RANK.GIFT key m 1 AT 5 AT 6` does not quietly take the last value).
pub struct Options<'a, A> {
    rest: std::slice::Iter<'a, A>,
    keywords: &'static [&'static str],
    /// Bit `i` is set once `keywords[i]` was read.
    seen: u64,
}

impl<'a, A: AsRef<[u8]>> Options<'a, A> {
    /// Options among `keywords` (at most 64), matched ignoring ASCII case.
    pub fn new(rest: &'a [A], keywords: &'static [&'static str]) -> Self {
        debug_assert!(keywords.len() <= 64);
        Options {
            rest: rest.iter(),
            keywords,
            seen: 0,
        }
    }

    /// The next option keyword, spelled as in `keywords`; `None` at the end.
    pub fn next_option(&mut self) -> Result<Option<&'static str>, ZkitError> {
        let Some(word) = self.rest.next() else {
            return Ok(None);
        };
        let index = self
            .keywords
            .iter()
            .position(|k| is_keyword(word.as_ref(), k))
            .ok_or(ZkitError::Syntax)?;
        if self.seen & (1 << index) != 0 {
            return Err(ZkitError::Syntax);
        }
        self.seen |= 1 << index;
        Ok(Some(self.keywords[index]))
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

/// Splits variadic values from the `KEYWORD value` options that follow them
/// (`RECENT.ADD key member [member ...] [CAP n] [TTL seconds]`). Options are
/// read from the end, pair by pair, while the second-to-last remaining
/// argument is one of `keywords`; each keyword may appear once. Returns the
/// values and the options as `(index into keywords, value)`; a repeated
/// keyword, or options that leave no value, are a syntax error.
#[allow(clippy::type_complexity)]
pub fn split_trailing_options<'a, A: AsRef<[u8]>>(
    args: &'a [A],
    keywords: &[&str],
) -> Result<(&'a [A], Vec<(usize, &'a A)>), ZkitError> {
    let mut values = args;
    let mut options: Vec<(usize, &'a A)> = Vec::new();
    while let [rest @ .., keyword, value] = values {
        let Some(index) = keywords
            .iter()
            .position(|k| is_keyword(keyword.as_ref(), k))
        else {
            break;
        };
        if options.iter().any(|(seen, _)| *seen == index) {
            return Err(ZkitError::Syntax);
        }
        options.push((index, value));
        values = rest;
    }
    if values.is_empty() {
        return Err(ZkitError::Syntax);
    }
    Ok((values, options))
}

/// Splits variadic values from a trailing flag (`RANK.MGET key member
/// [member ...] [SHARED]`), read from the end as
/// [`split_trailing_options`] reads pairs: the last argument is the flag
/// when it is `keyword`. A flag given twice, or a flag with no value before
/// it, is a syntax error, so a value spelled like the flag is read as one
/// anywhere but last. Returns the values and whether the flag was given.
pub fn split_trailing_flag<'a, A: AsRef<[u8]>>(
    args: &'a [A],
    keyword: &str,
) -> Result<(&'a [A], bool), ZkitError> {
    let is_flag = |arg: &A| is_keyword(arg.as_ref(), keyword);
    let (values, flag) = match args {
        [rest @ .., last] if is_flag(last) => (rest, true),
        _ => (args, false),
    };
    if values.is_empty() || (flag && values.last().is_some_and(is_flag)) {
        return Err(ZkitError::Syntax);
    }
    Ok((values, flag))
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
            ("-infinity", f64::NEG_INFINITY),
            ("0e999", 0.0),
            ("-0.000", -0.0),
            ("5e-324", 5e-324),
            ("1.7976931348623157e308", f64::MAX),
        ] {
            assert_eq!(parse_f64(text.as_bytes()), Ok(value), "{text}");
        }
        for text in [
            "",
            "nan",
            "NaN",
            "-nan",
            " 1",
            "1 ",
            "abc",
            "1,5",
            "\u{ff}",
            "1e400",
            "-1e400",
            "1e-400",
            "-2.5e-999",
        ] {
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
        let mut opts = Options::new(&args, &["AT", "OFFSET"]);
        assert_eq!(opts.next_option(), Ok(Some("AT")));
        assert_eq!(opts.int(), Ok(5));
        assert_eq!(opts.next_option(), Ok(Some("OFFSET")));
        assert_eq!(opts.int(), Err(ZkitError::Syntax));
        assert_eq!(opts.next_option(), Ok(None));
        assert_eq!(
            parse_non_negative(b"-1", "count"),
            Err(ZkitError::OutOfRange {
                what: "count",
                limit: bound::NOT_NEGATIVE
            })
        );
        assert_eq!(parse_positive(b"3", "cap"), Ok(3));
        assert_eq!(parse_positive(b"x", "cap"), Err(ZkitError::NotInteger));
        assert_eq!(
            parse_positive(b"0", "cap"),
            Err(ZkitError::OutOfRange {
                what: "cap",
                limit: bound::POSITIVE_INTEGER
            })
        );
    }

    #[test]
    fn an_unknown_or_repeated_option_is_a_syntax_error() {
        let args: Vec<&[u8]> = vec![b"AT", b"5", b"at", b"6"];
        let mut opts = Options::new(&args, &["AT"]);
        assert_eq!(opts.next_option(), Ok(Some("AT")));
        assert_eq!(opts.int(), Ok(5));
        assert_eq!(opts.next_option(), Err(ZkitError::Syntax));
        let args: Vec<&[u8]> = vec![b"NOPE", b"1"];
        assert_eq!(
            Options::new(&args, &["AT"]).next_option(),
            Err(ZkitError::Syntax)
        );
    }

    #[test]
    fn trailing_options_are_read_from_the_end() {
        #[allow(clippy::type_complexity)]
        fn split<'a>(
            words: &'a [&'static str],
        ) -> Result<(Vec<&'static str>, Vec<(usize, &'a &'static str)>), ZkitError> {
            split_trailing_options(words, &["CAP", "TTL"])
                .map(|(values, options)| (values.to_vec(), options))
        }
        let (values, options) = split(&["a", "b", "cap", "60", "TTL", "5"]).unwrap();
        assert_eq!(values, ["a", "b"]);
        assert_eq!(options, [(1, &"5"), (0, &"60")]);
        let (values, options) = split(&["a", "CAP", "x"]).unwrap();
        assert_eq!(values, ["a"]);
        assert_eq!(options, [(0, &"x")]);
        // A keyword that is not second-to-last is a value.
        assert_eq!(split(&["CAP", "a", "b"]).unwrap().0, ["CAP", "a", "b"]);
        assert_eq!(split(&["a", "TTL"]).unwrap().0, ["a", "TTL"]);
        assert_eq!(split(&["CAP", "5", "TTL"]).unwrap().0, ["CAP", "5", "TTL"]);
        // Options that leave no value, or a repeated option, are refused.
        assert_eq!(split(&["CAP", "5"]), Err(ZkitError::Syntax));
        assert_eq!(
            split(&["a", "CAP", "5", "CAP", "6"]),
            Err(ZkitError::Syntax)
        );
    }

    #[test]
    fn a_trailing_flag_is_read_from_the_end() {
        let split = |words: &'static [&'static str]| {
            split_trailing_flag(words, "SHARED").map(|(values, flag)| (values.to_vec(), flag))
        };
        assert_eq!(split(&["a", "b"]), Ok((vec!["a", "b"], false)));
        assert_eq!(split(&["a", "shared"]), Ok((vec!["a"], true)));
        // Spelled like the flag anywhere but last, it is a value.
        assert_eq!(
            split(&["SHARED", "a", "SHARED"]),
            Ok((vec!["SHARED", "a"], true))
        );
        assert_eq!(split(&["SHARED", "a"]), Ok((vec!["SHARED", "a"], false)));
        // Twice, or with no value: refused.
        assert_eq!(split(&["a", "SHARED", "SHARED"]), Err(ZkitError::Syntax));
        assert_eq!(split(&["SHARED"]), Err(ZkitError::Syntax));
        assert_eq!(split(&[]), Err(ZkitError::Syntax));
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
            let mut options = Options::new(&args, &["A", "B"]);
            for read in reads {
                if !matches!(options.next_option(), Ok(Some(_))) {
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
