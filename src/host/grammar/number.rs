//! Numbers as Redis reads them: integers as `string2ll` takes them, doubles
//! as its `strtod` check does, with fast paths for the words most calls
//! send.

/// Parses a 64-bit integer exactly as Redis's `string2ll` does: no `+`, no
/// leading zeros, no spaces, within i64.
pub fn parse_i64(bytes: &[u8]) -> Option<i64> {
    let (negative, digits) = match bytes {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, bytes),
    };
    match digits {
        [b'0'] if !negative => return Some(0),
        [b'1'..=b'9', ..] => {}
        _ => return None,
    }
    // At most 18 digits cannot overflow: one pass, eight digits at a time
    // (a unix ms has 13), then one at a time, no checked steps.
    if digits.len() <= 18 {
        let mut n = 0u64;
        let mut rest = digits;
        while let Some((eight, tail)) = rest.split_first_chunk::<8>() {
            n = n * 100_000_000 + eight_digits(u64::from_le_bytes(*eight))?;
            rest = tail;
        }
        for &d in rest {
            let digit = d.wrapping_sub(b'0');
            if digit > 9 {
                return None;
            }
            n = n * 10 + u64::from(digit);
        }
        // Below 10^18, so within i64 either way.
        let n = n as i64;
        return Some(if negative { -n } else { n });
    }
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // Accumulate negatively so i64::MIN parses.
    digits
        .iter()
        .try_fold(0i64, |acc, d| {
            acc.checked_mul(10)?.checked_sub(i64::from(d - b'0'))
        })
        .and_then(|n| if negative { Some(n) } else { n.checked_neg() })
}

/// The value of eight ASCII digits read as a little-endian word (the
/// first digit in the lowest byte), or `None` if a byte is not a digit: a
/// few word-wide steps instead of eight (pairs of digits, then fours, then
/// all eight, each a multiply and a shift).
#[inline(always)]
fn eight_digits(word: u64) -> Option<u64> {
    const HIGH_NIBBLES: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    // Every byte is 0x30..=0x39: its high nibble is 3, and adding 6 leaves
    // it 3 (0x3A and above would carry into it).
    let plus_six = word.wrapping_add(0x0606_0606_0606_0606);
    if (word & HIGH_NIBBLES) | ((plus_six & HIGH_NIBBLES) >> 4) != 0x3333_3333_3333_3333 {
        return None;
    }
    let digits = word - 0x3030_3030_3030_3030;
    // Each byte pair's low byte becomes ten times its digit plus the next.
    let pairs = digits * 10 + (digits >> 8);
    const PAIR_MASK: u64 = 0x0000_00FF_0000_00FF;
    // 100 + 10^6 * 2^32 and 1 + 10^4 * 2^32: the four pairs weighted into
    // the high half.
    let first = (pairs & PAIR_MASK).wrapping_mul(100 + (1_000_000 << 32));
    let second = ((pairs >> 16) & PAIR_MASK).wrapping_mul(1 + (10_000 << 32));
    Some(first.wrapping_add(second) >> 32)
}

/// Parses a double as Redis does (`inf`, `-inf`, exponents), refusing NaN
/// and, like Redis's `strtod` check, a finite number too large for a double
/// (`1e400`) or so small it would round to zero (`1e-400`).
pub fn parse_f64(bytes: &[u8]) -> Option<f64> {
    parse_short_decimal(bytes).or_else(|| parse_any_f64(bytes))
}

/// [`parse_f64`] of any word.
fn parse_any_f64(bytes: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(bytes).ok()?;
    if text.starts_with(|c: char| c.is_ascii_whitespace()) {
        return None;
    }
    let value = text.parse::<f64>().ok()?;
    let digits = text.trim_start_matches(['+', '-']);
    let mantissa = digits.split(['e', 'E']).next().unwrap_or_default();
    let overflowed = value.is_infinite()
        && !digits.eq_ignore_ascii_case("inf")
        && !digits.eq_ignore_ascii_case("infinity");
    let underflowed = value == 0.0 && mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b));
    (!value.is_nan() && !overflowed && !underflowed).then_some(value)
}

/// [`parse_f64`] of the words most calls send (`1700000000000`, `-2.5`):
/// an optional `-`, then at most 15 digits with at most one `.` between
/// two of them, or `None` for anything else. The digits as an integer and
/// the power of ten both are exact doubles (below 2^53 and 10^22), so one
/// division rounds the decimal correctly, as the full parse does, at a
/// tenth of its cost.
fn parse_short_decimal(bytes: &[u8]) -> Option<f64> {
    const POWERS: [f64; 15] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
    ];
    let (negative, text) = match bytes {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, bytes),
    };
    if text.is_empty() || text.len() > 16 {
        return None;
    }
    let mut digits = 0u64;
    let mut count = 0;
    let mut point = None;
    for (i, &b) in text.iter().enumerate() {
        match b {
            b'0'..=b'9' => {
                digits = digits * 10 + u64::from(b - b'0');
                count += 1;
            }
            b'.' if point.is_none() && i > 0 && i + 1 < text.len() => point = Some(i),
            _ => return None,
        }
    }
    if count > 15 {
        return None;
    }
    let decimals = point.map_or(0, |at| text.len() - at - 1);
    let value = digits as f64 / POWERS[decimals];
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_short_decimal_parse_takes_plain_numbers_only() {
        for (text, value) in [
            ("1700000000000", 1.7e12f64),
            ("-2.5", -2.5),
            ("0.1", 0.1),
            ("-0", -0.0),
            ("007", 7.0),
            ("999999999999999", 999_999_999_999_999.0),
        ] {
            let short = parse_short_decimal(text.as_bytes()).map(f64::to_bits);
            assert_eq!(short, Some(value.to_bits()), "{text}");
        }
        for text in [
            "",
            "-",
            "1e3",
            ".5",
            "5.",
            "+1",
            "1.2.3",
            " 1",
            "inf",
            "1234567890123456",
        ] {
            assert_eq!(parse_short_decimal(text.as_bytes()), None, "{text}");
        }
    }

    proptest! {
        #[test]
        fn every_i64_round_trips(n in any::<i64>()) {
            prop_assert_eq!(parse_i64(n.to_string().as_bytes()), Some(n));
        }

        #[test]
        fn integers_parse_as_a_digit_at_a_time_does(
            text in "-?[0-9/:a ]{0,3}[0-9]{0,17}[0-9/:]{0,3}"
        ) {
            // Digits next to bytes just outside `0-9` (`/`, `:`), at every
            // place of the eight-digit steps.
            let canonical = text.parse::<i64>().ok().filter(|n| n.to_string() == text);
            prop_assert_eq!(parse_i64(text.as_bytes()), canonical);
        }

        #[test]
        fn integers_parse_as_redis_does(text in "[-+]?[0-9]{1,20}") {
            // Redis's string2ll: no sign but `-`, no leading zero, no `-0`.
            let canonical = text.parse::<i64>().ok().filter(|n| n.to_string() == text);
            prop_assert_eq!(parse_i64(text.as_bytes()), canonical);
        }

        #[test]
        fn short_decimals_parse_as_the_full_parse_does(
            text in "-?[0-9]{0,9}(\\.[0-9]{0,8})?|-?[0-9]{14,17}|[0-9.+eE-]{1,6}"
        ) {
            let short = parse_short_decimal(text.as_bytes());
            if let Some(value) = short {
                let full = parse_any_f64(text.as_bytes());
                prop_assert_eq!(full.map(f64::to_bits), Some(value.to_bits()), "{}", text);
            }
        }

        #[test]
        fn number_parsers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            let _ = parse_i64(&bytes);
            let _ = parse_f64(&bytes);
        }
    }
}
