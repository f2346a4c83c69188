//! Score text for replies: the shortest text that reads back as exactly the
//! same double.
//!
//! Redis 7.0 prints scores with `%.17g`, which costs about a microsecond per
//! score and dominates a page of 20 items; Redis 7.2 switched to a shortest
//! round-trip form for the same reason. This writes that form: integral
//! scores as integers (`115`, `-0`), infinities as `inf` / `-inf`, everything
//! else as the shortest decimal that parses back to the identical bits
//! (`0.1`, `1e-7`). Redis, strtod and every client float parser read it back
//! exactly.

/// Integral scores up to this magnitude print as integers, as Redis 7.2's
/// `d2string` does (it checks `LLONG_MAX / 2`); beyond it, as decimals.
const INTEGER_LIMIT: f64 = (i64::MAX / 2) as f64;

/// Reusable buffers for formatting many scores.
#[derive(Default)]
pub struct ScoreText {
    decimal: ryu::Buffer,
    integer: itoa::Buffer,
}

impl ScoreText {
    pub fn new() -> ScoreText {
        ScoreText::default()
    }

    /// The text of `score`; NaN (which no sorted set holds) prints as `nan`.
    pub fn format(&mut self, score: f64) -> &str {
        if score.is_nan() {
            "nan"
        } else if score.is_infinite() {
            if score > 0.0 {
                "inf"
            } else {
                "-inf"
            }
        } else if score == 0.0 {
            if score.is_sign_negative() {
                "-0"
            } else {
                "0"
            }
        } else if score.fract() == 0.0 && score.abs() <= INTEGER_LIMIT {
            // Exact: an integral double of this size fits an i64.
            self.integer.format(score as i64)
        } else {
            self.decimal.format_finite(score)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn prints_like_redis_7_2_where_it_can() {
        let mut text = ScoreText::new();
        for (score, expected) in [
            (115.0, "115"),
            (-3.0, "-3"),
            (0.0, "0"),
            (-0.0, "-0"),
            (0.1, "0.1"),
            (1.5, "1.5"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
            (4_611_686_018_427_387_904.0, "4611686018427387904"),
            (9_223_372_036_854_775_808.0, "9.223372036854776e18"),
            (1e300, "1e300"),
        ] {
            assert_eq!(text.format(score), expected, "{score:?}");
        }
    }

    fn any_score() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<f64>().prop_filter("no NaN in sorted sets", |s| !s.is_nan()),
            any::<i64>().prop_map(|n| n as f64),
            any::<i32>().prop_map(f64::from),
            (any::<i32>(), 1u32..20).prop_map(|(n, d)| f64::from(n) / f64::from(d)),
            Just(f64::from_bits(1)),
            Just(-0.0),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5000))]

        #[test]
        fn every_score_reads_back_exactly(score in any_score()) {
            let mut text = ScoreText::new();
            let printed = text.format(score).to_string();
            let back: f64 = printed.parse().unwrap();
            prop_assert_eq!(back.to_bits(), score.to_bits(), "{}", printed);
        }
    }
}
