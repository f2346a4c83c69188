//! Which family's data a sorted set looks like, from a few of its elements.
//!
//! Every zkit family keeps plain sorted sets, so Redis's own type check
//! cannot tell a gift board from a rate log: `RATE.HIT board ...` would take
//! a board's totals for hits long past and remove them. Where a family's
//! data has a shape of its own, a command that removes members (RATE.HIT,
//! RECENT.ADD, the DELAY polls) checks a few elements at the ends (O(log N)
//! each) before it writes, and refuses a key that is plainly another
//! family's. (RANK writes add or re-score one member, destroying nothing,
//! and stay on their fast path unchecked.) What tells them apart:
//!
//! - a RATE log is scored by the unix ms of its hits, so its newest score is
//!   a time of this century (its members are zkit's `<unix-ms>-<n>`, but a
//!   log kept by a script before zkit may name them anyhow, and a queue's
//!   tasks or a list's items may be named so too);
//! - a RECENT list holds whole unix ms;
//! - a RANK board's scores are totals with a tie-break fraction, far below
//!   today's unix ms;
//! - an IDMP seen-key starts with an id scored `expiry + 0.25` and the same
//!   id followed by an 8-byte digest, scored `expiry + 0.5`.
//!
//! What the data cannot tell apart (a DELAY queue, a RECENT list and a RATE
//! log, all scored by unix ms; a FEED, whose scores are anything; a board of
//! whole totals) is said on each family's guide.

use super::idmp::{self, Entry, DIGEST_LEN};

/// A family whose data a sorted set may look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    RankBoard,
    RateLog,
    RecentList,
    DelayQueue,
    SeenKey,
}

/// A key refused because its data is not the family's the command works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WrongFamily {
    pub expected: Family,
    /// The family the data looks like, when it looks like one.
    pub looks_like: Option<Family>,
    /// What in the data says so.
    pub because: Evidence,
}

/// What in a sorted set's data tells it is not the expected family's (the
/// error reply words it, in `src/error.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// Scores with a RANK tie-break fraction.
    TieBreak,
    /// An IDMP event id beside its arguments' digest.
    SeenKeyHead,
    /// A newest score that is no unix ms of this century.
    NotRecentUnixMs,
    /// Scores that are not whole unix ms.
    NotWholeUnixMs,
}

/// One element of a sorted set: member and score.
pub type Element<'a> = (&'a [u8], f64);

/// Unix ms below this (2001-09-09) are not times a family writes now: a
/// score this small with a fraction is a RANK total with its tie-break. A
/// RATE log's newest score at or above it passes every check
/// ([`check_rate_log`]), whatever it is: a log that holds any such score
/// need not read its newest element.
pub const TODAY_MS: f64 = 1e12;

/// Whether a score is a RANK total with its tie-break fraction.
pub fn is_tie_break(score: f64) -> bool {
    score.is_finite() && score.fract() != 0.0 && score.abs() < TODAY_MS
}

/// Whether the two lowest elements of a sorted set are an IDMP id and its
/// arguments member.
pub fn is_seen_key_head(lowest: &[Element<'_>]) -> bool {
    let [(id, id_score), (args, args_score), ..] = lowest else {
        return false;
    };
    idmp::entry(*id_score) == Entry::Id
        && idmp::entry(*args_score) == Entry::Args
        && id_score.floor() == args_score.floor()
        && args.len() == id.len() + DIGEST_LEN
        && args.starts_with(id)
}

/// Whether the lowest element of a sorted set, scored `score`, could start
/// an IDMP seen-key: only then does [`is_seen_key_head`] need the element
/// after it.
pub fn may_start_seen_key(score: f64) -> bool {
    idmp::entry(score) == Entry::Id
}

fn refuse(expected: Family, looks_like: Option<Family>, because: Evidence) -> WrongFamily {
    WrongFamily {
        expected,
        looks_like,
        because,
    }
}

/// A RATE log, from its lowest and newest elements: not an IDMP seen-key,
/// and a newest score that is a unix ms of this century (a log's entries
/// may be old, but none is older than 2001).
pub fn check_rate_log(
    lowest: &[Element<'_>],
    newest: Option<Element<'_>>,
) -> Result<(), WrongFamily> {
    let expected = Family::RateLog;
    if is_seen_key_head(lowest) {
        return Err(refuse(
            expected,
            Some(Family::SeenKey),
            Evidence::SeenKeyHead,
        ));
    }
    match newest {
        Some((_, score)) if is_tie_break(score) => Err(refuse(
            expected,
            Some(Family::RankBoard),
            Evidence::TieBreak,
        )),
        Some((_, score)) if score.is_finite() && score < TODAY_MS => {
            Err(refuse(expected, None, Evidence::NotRecentUnixMs))
        }
        _ => Ok(()),
    }
}

/// A RECENT list, from its lowest and newest elements: not an IDMP
/// seen-key, and views at whole unix ms.
pub fn check_recent_list(lowest: &[Element<'_>], newest: Element<'_>) -> Result<(), WrongFamily> {
    let expected = Family::RecentList;
    if is_seen_key_head(lowest) {
        return Err(refuse(
            expected,
            Some(Family::SeenKey),
            Evidence::SeenKeyHead,
        ));
    }
    let (_, score) = newest;
    if is_tie_break(score) {
        return Err(refuse(
            expected,
            Some(Family::RankBoard),
            Evidence::TieBreak,
        ));
    }
    if score.is_finite() && score.fract() != 0.0 {
        return Err(refuse(expected, None, Evidence::NotWholeUnixMs));
    }
    Ok(())
}

/// A DELAY queue, from its lowest elements (the next due): due times, not
/// RANK totals or an IDMP seen-key. (Tasks may be named like RATE entries.)
pub fn check_delay_queue(lowest: &[Element<'_>]) -> Result<(), WrongFamily> {
    let expected = Family::DelayQueue;
    if is_seen_key_head(lowest) {
        return Err(refuse(
            expected,
            Some(Family::SeenKey),
            Evidence::SeenKeyHead,
        ));
    }
    match lowest.first() {
        Some(&(_, score)) if is_tie_break(score) => Err(refuse(
            expected,
            Some(Family::RankBoard),
            Evidence::TieBreak,
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: f64 = 1_718_000_000_000.0;
    const DIGEST: [u8; DIGEST_LEN] = [9; DIGEST_LEN];

    fn seen_key_head() -> (Vec<u8>, Vec<u8>) {
        let (args, _) = idmp::args_member(b"pay-1", &DIGEST, NOW as i64);
        (b"pay-1".to_vec(), args)
    }

    #[test]
    fn each_family_refuses_what_plainly_is_another() {
        let board = [(&b"bob"[..], 10.734), (&b"alice"[..], 12.5)];
        let log = [
            (&b"1718000000000-0"[..], NOW),
            (&b"1718000000005-0"[..], NOW + 5.0),
        ];
        let (id, args) = seen_key_head();
        let seen = [(&id[..], NOW + 0.25), (&args[..], NOW + 0.5)];
        let recent = [(&b"item:9"[..], NOW), (&b"item:3"[..], NOW + 2.0)];

        let looks = |r: Result<(), WrongFamily>| r.err().and_then(|e| e.looks_like);
        assert_eq!(check_rate_log(&log, Some(log[1])), Ok(()));
        assert_eq!(
            check_rate_log(&recent, Some(recent[1])),
            Ok(()),
            "a script's log, members of its own"
        );
        assert_eq!(
            looks(check_rate_log(&board, Some(board[1]))),
            Some(Family::RankBoard)
        );
        assert_eq!(
            looks(check_rate_log(&seen, Some(seen[1]))),
            Some(Family::SeenKey)
        );
        let whole_totals = [(&b"bob"[..], 10.0), (&b"alice"[..], 12.0)];
        assert!(check_rate_log(&whole_totals, Some(whole_totals[1])).is_err());
        assert_eq!(check_rate_log(&[], None), Ok(()));

        assert_eq!(check_recent_list(&recent, recent[1]), Ok(()));
        assert_eq!(
            check_recent_list(&log, log[1]),
            Ok(()),
            "items may be named so"
        );
        assert_eq!(
            looks(check_recent_list(&board, board[1])),
            Some(Family::RankBoard)
        );
        assert_eq!(
            looks(check_recent_list(&seen, seen[1])),
            Some(Family::SeenKey)
        );
        let fraction = [(&b"x"[..], NOW + 0.5)];
        assert!(check_recent_list(&fraction, fraction[0]).is_err());

        assert_eq!(check_delay_queue(&recent), Ok(()));
        assert_eq!(check_delay_queue(&log), Ok(()), "tasks may be named so");
        assert_eq!(check_delay_queue(&[(&b"t"[..], f64::NEG_INFINITY)]), Ok(()));
        assert_eq!(
            check_delay_queue(&[(&b"t"[..], 0.0)]),
            Ok(()),
            "due long ago"
        );
        assert_eq!(looks(check_delay_queue(&board)), Some(Family::RankBoard));
        assert_eq!(looks(check_delay_queue(&seen)), Some(Family::SeenKey));
    }

    /// A sample reads the element after the lowest only when the lowest may
    /// start a seen-key: no head the check recognises starts otherwise.
    #[test]
    fn a_seen_key_head_starts_with_what_may_start_one() {
        let (id, args) = seen_key_head();
        for id_score in [NOW + 0.25, NOW, NOW + 0.5, NOW + 0.75, -3.75, 10.734] {
            let lowest = [(&id[..], id_score), (&args[..], id_score.floor() + 0.5)];
            if is_seen_key_head(&lowest) {
                assert!(may_start_seen_key(id_score), "{id_score}");
            }
            assert!(!is_seen_key_head(&lowest[..1]));
        }
        assert!(may_start_seen_key(NOW + 0.25));
        assert!(!may_start_seen_key(NOW));
    }

    /// Every newest score from `TODAY_MS` up judges a log as `TODAY_MS`
    /// does, which RATE.HIT passes for a log that holds any such score.
    #[test]
    fn a_log_judged_by_a_score_of_today_or_later_is_judged_as_by_its_newest() {
        let (id, args) = seen_key_head();
        let seen = [(&id[..], NOW + 0.25), (&args[..], NOW + 0.5)];
        let log = [(&b"1718000000000-0"[..], NOW)];
        for lowest in [&seen[..], &log[..], &[]] {
            let today = check_rate_log(lowest, Some((b"", TODAY_MS)));
            for newest in [
                TODAY_MS,
                TODAY_MS + 0.5,
                NOW,
                NOW + 0.25,
                1e300,
                f64::INFINITY,
            ] {
                assert_eq!(
                    check_rate_log(lowest, Some((b"x", newest))),
                    today,
                    "{newest}"
                );
            }
        }
    }

    #[test]
    fn the_refusal_names_both_families_and_why() {
        let e = check_rate_log(&[(b"bob", 10.5)], Some((b"bob", 10.5))).unwrap_err();
        assert_eq!(
            e,
            WrongFamily {
                expected: Family::RateLog,
                looks_like: Some(Family::RankBoard),
                because: Evidence::TieBreak
            }
        );
        let e = check_rate_log(&[(b"t1", 10.0)], Some((b"t1", 10.0))).unwrap_err();
        assert_eq!(
            e,
            WrongFamily {
                expected: Family::RateLog,
                looks_like: None,
                because: Evidence::NotRecentUnixMs
            }
        );
    }
}
