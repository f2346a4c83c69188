//! Recency scores for recently-viewed lists.
//!
//! A view is scored by the server clock in unix milliseconds, so ZREVRANGE
//! lists the newest first and `floor(score)` reads as the time of the view.
//! Two views in the same millisecond (one call with several members, or two
//! calls in a row) must still keep a strict order, or Redis would order them
//! by member name. So every new score is strictly above the list's newest: a
//! view that would not be (same millisecond, or a clock that stepped back) takes
//! the next double above the newest instead. At today's clock (about 1.7e12 ms,
//! below 2^41) a double has 2^12 steps per millisecond, so up to 4,096 views
//! share one millisecond before the scores run ahead of the clock, and then
//! only by a fraction of a millisecond per 4,096 views.

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum RecentError {
    /// The newest score in the list is infinite or so large that no double
    /// lies above it: no later view can be placed.
    NoLaterScore(f64),
}

impl fmt::Display for RecentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecentError::NoLaterScore(newest) => write!(
                f,
                "the list's newest score {newest} leaves no room for a later view"
            ),
        }
    }
}

/// Scores for `views` views at `now_ms`, in the order given: strictly
/// increasing, all strictly above `newest` (the highest score in the list, if
/// any), and equal to `now_ms` for the first one whenever the clock is ahead.
pub fn view_scores(
    now_ms: i64,
    newest: Option<f64>,
    views: usize,
) -> Result<Vec<f64>, RecentError> {
    let now = now_ms as f64;
    let mut scores = Vec::with_capacity(views);
    let mut last = newest;
    for _ in 0..views {
        let score = match last {
            Some(previous) if previous >= now => previous.next_up(),
            _ => now,
        };
        if !score.is_finite() {
            return Err(RecentError::NoLaterScore(newest.unwrap_or(score)));
        }
        scores.push(score);
        last = Some(score);
    }
    Ok(scores)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const NOW: i64 = 1_718_000_000_000;

    #[test]
    fn a_fresh_view_takes_the_clock() {
        assert_eq!(view_scores(NOW, None, 1), Ok(vec![NOW as f64]));
        assert_eq!(
            view_scores(NOW, Some(NOW as f64 - 5.0), 1),
            Ok(vec![NOW as f64])
        );
    }

    #[test]
    fn same_millisecond_views_stay_in_order_within_the_millisecond() {
        let scores = view_scores(NOW, Some(NOW as f64), 3).unwrap();
        let step = 2f64.powi(-12);
        let now = NOW as f64;
        assert_eq!(scores, vec![now + step, now + 2.0 * step, now + 3.0 * step]);
        assert!(scores.iter().all(|s| s.floor() == now));
    }

    #[test]
    fn several_views_in_one_call_are_strictly_ordered() {
        let scores = view_scores(NOW, None, 4).unwrap();
        assert_eq!(scores[0], NOW as f64);
        assert!(scores.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_clock_behind_the_list_still_places_views_after_it() {
        let ahead = NOW as f64 + 10_000.0;
        let scores = view_scores(NOW, Some(ahead), 2).unwrap();
        assert!(scores[0] > ahead && scores[1] > scores[0]);
    }

    #[test]
    fn no_view_fits_after_infinity() {
        assert_eq!(
            view_scores(NOW, Some(f64::INFINITY), 1),
            Err(RecentError::NoLaterScore(f64::INFINITY))
        );
        assert_eq!(
            view_scores(NOW, Some(f64::MAX), 1),
            Err(RecentError::NoLaterScore(f64::MAX))
        );
        assert_eq!(view_scores(NOW, Some(f64::INFINITY), 0), Ok(vec![]));
    }

    proptest! {
        #[test]
        fn every_score_is_above_the_newest_and_increasing(
            now in 0i64..(1 << 50),
            newest in proptest::option::of(-1e16f64..1e16),
            views in 0usize..50,
        ) {
            let scores = view_scores(now, newest, views).unwrap();
            prop_assert_eq!(scores.len(), views);
            if let (Some(first), Some(newest)) = (scores.first(), newest) {
                prop_assert!(*first > newest);
            }
            prop_assert!(scores.windows(2).all(|w| w[0] < w[1]));
            if newest.is_none_or(|n| n < now as f64) && views > 0 {
                prop_assert_eq!(scores[0], now as f64);
            }
        }
    }
}
