//! Vote arithmetic: where a voter stands, what a vote changes, and the voting
//! window (an article-voting site as in Redis in Action, chapter 1, and
//! weighted votes).
//!
//! A voter stands in the up-voter set, the down-voter set or neither. The
//! item's score holds the sum of every voter's contribution: `+up` for an up
//! vote, `-down` for a down vote. A vote moves the voter to where the vote
//! says and changes the score by the difference of the two contributions, so
//! switching takes the old vote back and adds the new one in one step, and
//! voting the same way twice changes nothing.
//!
//! A voter in both sets (possible only through writes that bypass zkit) is
//! counted as `up - down`, the sum of both memberships; the next vote moves
//! them to one place and keeps the score consistent with that rule.

#[derive(Debug, Clone, PartialEq)]
pub enum VoteError {
    /// A weight is negative or infinite.
    InvalidWeight,
    /// `up + down` overflows, so a switch could not be applied exactly.
    WeightsTooLarge,
    /// The scores, up-voter and down-voter keys are not three distinct keys.
    SharedKey,
    /// WINDOW was given and the item has no post time.
    NoPostTime,
    /// WINDOW was given and the window has passed.
    VotingClosed { posted_at_s: f64, window_s: i64 },
    /// The voter is in both sets, so has no single state to report.
    VoterInBothSets,
}

/// What a VOTE.CAST asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vote {
    Up,
    Down,
    Clear,
}

impl Vote {
    /// Where the voter stands after this vote.
    pub fn target(self) -> Standing {
        match self {
            Vote::Up => Standing::UP,
            Vote::Down => Standing::DOWN,
            Vote::Clear => Standing::NONE,
        }
    }
}

/// Which of the two voter sets hold a voter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Standing {
    pub in_up: bool,
    pub in_down: bool,
}

impl Standing {
    pub const NONE: Standing = Standing {
        in_up: false,
        in_down: false,
    };
    pub const UP: Standing = Standing {
        in_up: true,
        in_down: false,
    };
    pub const DOWN: Standing = Standing {
        in_up: false,
        in_down: true,
    };

    /// What this voter adds to the item's score.
    pub fn contribution(self, weights: Weights) -> f64 {
        let up = if self.in_up { weights.up } else { 0.0 };
        let down = if self.in_down { weights.down } else { 0.0 };
        up - down
    }

    /// VOTE.STATE's answer: 1 up, -1 down, 0 neither.
    pub fn state(self) -> Result<i64, VoteError> {
        match (self.in_up, self.in_down) {
            (true, true) => Err(VoteError::VoterInBothSets),
            (true, false) => Ok(1),
            (false, true) => Ok(-1),
            (false, false) => Ok(0),
        }
    }
}

/// How much an up and a down vote weigh: finite, not negative, and with a
/// finite sum, so every score change is a finite number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    up: f64,
    down: f64,
}

impl Weights {
    /// One point per vote, the default.
    pub const ONE: Weights = Weights { up: 1.0, down: 1.0 };

    pub fn new(up: f64, down: f64) -> Result<Weights, VoteError> {
        let valid = |w: f64| w.is_finite() && w >= 0.0;
        if !valid(up) || !valid(down) {
            return Err(VoteError::InvalidWeight);
        }
        if !(up + down).is_finite() {
            return Err(VoteError::WeightsTooLarge);
        }
        // `+ 0.0` turns -0 into 0, so no vote can leave a -0 score behind.
        Ok(Weights {
            up: up + 0.0,
            down: down + 0.0,
        })
    }
}

/// What a vote does to the item.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// Added to the item's score, as ZINCRBY adds (an item without a score
    /// starts at `delta`, which is never -0, so that is `0 + delta`). Finite,
    /// so the score never becomes NaN; like ZINCRBY's, a score may overflow
    /// to infinity, which further votes cannot bring back.
    pub delta: f64,
    /// The voter's standing changed, so the sets and the score are written.
    pub changed: bool,
}

/// The outcome of moving a voter from `before` to `after`.
pub fn outcome(before: Standing, after: Standing, weights: Weights) -> Outcome {
    Outcome {
        delta: after.contribution(weights) - before.contribution(weights),
        changed: before != after,
    }
}

/// Refuses a vote on an item posted more than `window_s` seconds before
/// `now_ms` (the book's one-week rule), or with no post time at all. A vote at
/// exactly the end of the window is still accepted. Exact for whole-second
/// post times as long as `(post time + window) * 1000` is below 2^53.
pub fn check_window(posted_at_s: Option<f64>, window_s: i64, now_ms: i64) -> Result<(), VoteError> {
    let posted_at_s = posted_at_s.ok_or(VoteError::NoPostTime)?;
    let closes_at_ms = (posted_at_s + window_s as f64) * 1000.0;
    if (now_ms as f64) <= closes_at_ms {
        Ok(())
    } else {
        Err(VoteError::VotingClosed {
            posted_at_s,
            window_s,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ALL: [Standing; 4] = [
        Standing::NONE,
        Standing::UP,
        Standing::DOWN,
        Standing {
            in_up: true,
            in_down: true,
        },
    ];

    fn weights(up: f64, down: f64) -> Weights {
        Weights::new(up, down).unwrap()
    }

    #[test]
    fn every_transition_of_the_book_site() {
        // Redis in Action: 432 points per vote.
        let w = weights(432.0, 432.0);
        let cases = [
            (Standing::NONE, Vote::Up, 432.0, true),
            (Standing::NONE, Vote::Down, -432.0, true),
            (Standing::NONE, Vote::Clear, 0.0, false),
            (Standing::UP, Vote::Up, 0.0, false),
            (Standing::UP, Vote::Down, -864.0, true),
            (Standing::UP, Vote::Clear, -432.0, true),
            (Standing::DOWN, Vote::Up, 864.0, true),
            (Standing::DOWN, Vote::Down, 0.0, false),
            (Standing::DOWN, Vote::Clear, 432.0, true),
        ];
        for (before, vote, delta, changed) in cases {
            let got = outcome(before, vote.target(), w);
            assert_eq!(got, Outcome { delta, changed }, "{before:?} {vote:?}");
        }
    }

    #[test]
    fn unequal_weights_apply_per_direction() {
        // Weighted votes: an up vote weighs 2, a down vote 0.5.
        let w = weights(2.0, 0.5);
        assert_eq!(outcome(Standing::NONE, Standing::UP, w).delta, 2.0);
        assert_eq!(outcome(Standing::NONE, Standing::DOWN, w).delta, -0.5);
        assert_eq!(outcome(Standing::UP, Standing::DOWN, w).delta, -2.5);
        assert_eq!(outcome(Standing::DOWN, Standing::UP, w).delta, 2.5);
    }

    #[test]
    fn a_voter_in_both_sets_counts_both_and_is_moved_to_one() {
        let w = weights(3.0, 1.0);
        let both = ALL[3];
        assert_eq!(both.contribution(w), 2.0);
        assert_eq!(outcome(both, Standing::UP, w).delta, 1.0);
        assert_eq!(outcome(both, Standing::DOWN, w).delta, -3.0);
        assert_eq!(outcome(both, Standing::NONE, w).delta, -2.0);
        assert!(outcome(both, Standing::UP, w).changed);
        assert_eq!(both.state(), Err(VoteError::VoterInBothSets));
    }

    #[test]
    fn states_for_vote_state() {
        assert_eq!(Standing::UP.state(), Ok(1));
        assert_eq!(Standing::DOWN.state(), Ok(-1));
        assert_eq!(Standing::NONE.state(), Ok(0));
    }

    #[test]
    fn weights_are_finite_non_negative_with_a_finite_sum() {
        assert_eq!(Weights::new(1.0, 1.0), Ok(Weights::ONE));
        assert!(Weights::new(0.0, 0.0).is_ok());
        assert!(Weights::new(f64::MAX / 2.0, f64::MAX / 2.0).is_ok());
        for (up, down) in [
            (-1.0, 1.0),
            (1.0, -0.001),
            (f64::INFINITY, 1.0),
            (1.0, f64::NEG_INFINITY),
            (f64::NAN, 1.0),
            (1.0, f64::NAN),
        ] {
            assert_eq!(Weights::new(up, down), Err(VoteError::InvalidWeight));
        }
        assert_eq!(
            Weights::new(f64::MAX, f64::MAX),
            Err(VoteError::WeightsTooLarge)
        );
    }

    #[test]
    fn deltas_are_never_negative_zero() {
        // An absent item starts at the delta, so a -0 delta would store -0.
        for w in [weights(-0.0, -0.0), weights(0.0, 0.0), weights(-0.0, 1.0)] {
            for before in ALL {
                for vote in [Vote::Up, Vote::Down, Vote::Clear] {
                    let delta = outcome(before, vote.target(), w).delta;
                    assert!(
                        delta != 0.0 || delta.is_sign_positive(),
                        "{before:?} {vote:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_window_closes_after_its_last_second() {
        let week = 7 * 86_400;
        let posted = 1_700_000_000.0;
        let closes_ms = (1_700_000_000 + week) * 1000;
        assert_eq!(check_window(Some(posted), week, closes_ms - 1), Ok(()));
        assert_eq!(check_window(Some(posted), week, closes_ms), Ok(()));
        assert_eq!(
            check_window(Some(posted), week, closes_ms + 1),
            Err(VoteError::VotingClosed {
                posted_at_s: posted,
                window_s: week
            })
        );
        // Posts in the future are open; fractional post times count.
        assert_eq!(check_window(Some(posted), 0, 0), Ok(()));
        assert_eq!(check_window(Some(1.5), 1, 2_500), Ok(()));
        assert!(check_window(Some(1.5), 1, 2_501).is_err());
        assert_eq!(check_window(None, week, 0), Err(VoteError::NoPostTime));
        assert_eq!(check_window(Some(f64::INFINITY), 0, i64::MAX), Ok(()));
        assert!(check_window(Some(f64::NEG_INFINITY), i64::MAX, 0).is_err());
    }

    fn any_standing() -> impl Strategy<Value = Standing> {
        (0..4usize).prop_map(|i| ALL[i])
    }

    fn any_vote() -> impl Strategy<Value = Vote> {
        prop_oneof![Just(Vote::Up), Just(Vote::Down), Just(Vote::Clear)]
    }

    fn any_weights() -> impl Strategy<Value = Weights> {
        (0.0..1e300f64, 0.0..1e300f64).prop_map(|(up, down)| weights(up, down))
    }

    proptest! {
        #[test]
        fn voting_twice_the_same_way_changes_nothing(
            before in any_standing(), vote in any_vote(), w in any_weights()
        ) {
            let after = vote.target();
            let again = outcome(after, vote.target(), w);
            prop_assert_eq!(again, Outcome { delta: 0.0, changed: false });
            prop_assert_eq!(outcome(before, after, w).changed, before != after);
        }

        #[test]
        fn going_back_cancels_exactly(
            before in any_standing(), vote in any_vote(), w in any_weights()
        ) {
            let after = vote.target();
            let there = outcome(before, after, w).delta;
            let back = outcome(after, before, w).delta;
            prop_assert!(there.is_finite());
            prop_assert_eq!(there + back, 0.0);
        }

        #[test]
        fn casting_then_clearing_restores_integer_scores(
            score in -(1i64 << 50)..(1i64 << 50),
            votes in proptest::collection::vec(any_vote(), 1..12),
            up in 0u32..100_000,
            down in 0u32..100_000,
        ) {
            // The book's scores are unix seconds plus whole multiples of 432:
            // integers, which doubles hold exactly, so a voter's history
            // nets out to nothing once the vote is cleared.
            let w = weights(f64::from(up), f64::from(down));
            let start = score as f64;
            let (mut standing, mut current) = (Standing::NONE, start);
            for vote in votes.into_iter().chain([Vote::Clear]) {
                current += outcome(standing, vote.target(), w).delta;
                standing = vote.target();
                prop_assert_eq!(current - start, standing.contribution(w));
            }
            prop_assert_eq!(current, start);
        }

        #[test]
        fn scores_never_become_nan(
            score in any::<f64>().prop_filter("not NaN", |s| !s.is_nan()),
            before in any_standing(), vote in any_vote(), w in any_weights()
        ) {
            let o = outcome(before, vote.target(), w);
            prop_assert!(!(score + o.delta).is_nan());
        }

        #[test]
        fn window_matches_integer_arithmetic(
            posted in 0i64..4_000_000_000, window in 0i64..100_000_000, now_ms in 0i64..(1i64 << 45)
        ) {
            let open = (posted + window) * 1000 >= now_ms;
            prop_assert_eq!(check_window(Some(posted as f64), window, now_ms).is_ok(), open);
        }
    }
}
