//! Recency scores for recently-viewed lists.
//!
//! A view is scored by the server clock in unix milliseconds, so ZREVRANGE
//! lists the newest first and a score reads as the time of the view. Two
//! views in the same millisecond (one call with several members, or two calls
//! in a row) must still keep a strict order, or Redis would order them by
//! member name. So every new score is strictly above the list's newest: a
//! view that would not be (same millisecond, or a clock that stepped back)
//! takes the newest score plus one millisecond instead. Scores stay whole
//! milliseconds: a small sorted set (listpack, up to 128 entries by default)
//! stores them as integers, which is smaller and far faster to scan than the
//! 17-digit decimals of fractional scores. The price is that a burst of `k`
//! views within one millisecond runs `k - 1` ms ahead of the clock, which a
//! per-user list never sees in practice.

/// Scores must stay exact integers in a double.
const SCORE_LIMIT: i64 = 1 << 53;

#[derive(Debug, Clone, PartialEq)]
pub enum RecentError {
    /// The newest score in the list is infinite or so large that no exact
    /// integer score lies above it: no later view can be placed.
    NoLaterScore(f64),
}

/// Scores (unix ms) for `views` views at `now_ms`, in the order given:
/// consecutive integers, all strictly above `newest` (the highest score in
/// the list, if any), starting at `now_ms` whenever the clock is ahead of it.
pub fn view_scores(
    now_ms: i64,
    newest: Option<f64>,
    views: usize,
) -> Result<Vec<i64>, RecentError> {
    let first = match newest {
        Some(newest) if newest >= now_ms as f64 => {
            let last_allowed = (SCORE_LIMIT - views as i64) as f64;
            if newest >= last_allowed {
                return Err(RecentError::NoLaterScore(newest));
            }
            newest.floor() as i64 + 1
        }
        _ => now_ms,
    };
    Ok((0..views as i64).map(|i| first + i).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const NOW: i64 = 1_718_000_000_000;

    #[test]
    fn a_fresh_view_takes_the_clock() {
        assert_eq!(view_scores(NOW, None, 1), Ok(vec![NOW]));
        assert_eq!(view_scores(NOW, Some(NOW as f64 - 5.0), 1), Ok(vec![NOW]));
        assert_eq!(view_scores(NOW, Some(f64::NEG_INFINITY), 1), Ok(vec![NOW]));
    }

    #[test]
    fn same_millisecond_views_take_the_next_milliseconds() {
        assert_eq!(
            view_scores(NOW, Some(NOW as f64), 3),
            Ok(vec![NOW + 1, NOW + 2, NOW + 3])
        );
        assert_eq!(view_scores(NOW, None, 3), Ok(vec![NOW, NOW + 1, NOW + 2]));
        // A fractional newest score (written by hand) is passed too.
        assert_eq!(
            view_scores(NOW, Some(NOW as f64 + 0.5), 1),
            Ok(vec![NOW + 1])
        );
    }

    #[test]
    fn a_clock_behind_the_list_still_places_views_after_it() {
        let ahead = NOW as f64 + 10_000.0;
        assert_eq!(
            view_scores(NOW, Some(ahead), 2),
            Ok(vec![NOW + 10_001, NOW + 10_002])
        );
    }

    #[test]
    fn no_view_fits_after_infinity_or_past_exact_integers() {
        assert_eq!(
            view_scores(NOW, Some(f64::INFINITY), 1),
            Err(RecentError::NoLaterScore(f64::INFINITY))
        );
        let edge = (SCORE_LIMIT - 1) as f64;
        assert_eq!(
            view_scores(NOW, Some(edge - 1.0), 1),
            Ok(vec![SCORE_LIMIT - 1])
        );
        assert_eq!(
            view_scores(NOW, Some(edge), 1),
            Err(RecentError::NoLaterScore(edge))
        );
        assert_eq!(
            view_scores(NOW, Some(edge - 1.0), 2),
            Err(RecentError::NoLaterScore(edge - 1.0))
        );
    }

    proptest! {
        #[test]
        fn every_score_is_above_the_newest_and_increasing(
            now in 0i64..(1 << 50),
            newest in proptest::option::of(-1e15f64..1e15),
            views in 0usize..50,
        ) {
            let scores = view_scores(now, newest, views).unwrap();
            prop_assert_eq!(scores.len(), views);
            if let (Some(first), Some(newest)) = (scores.first(), newest) {
                prop_assert!(*first as f64 > newest);
            }
            prop_assert!(scores.windows(2).all(|w| w[1] == w[0] + 1));
            if newest.is_none_or(|n| n < now as f64) && views > 0 {
                prop_assert_eq!(scores[0], now);
            }
        }
    }
}
