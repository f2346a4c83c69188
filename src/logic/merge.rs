//! The cursor of a stepped merge (`RANK.MERGE ... STEP count staging
//! cursor`): where the next step resumes reading the sources.
//!
//! A step reads the sources one after the other, each from its lowest
//! `(score, member)` up, the sorted set's own order. The cursor names the
//! source being read and the position of the last member read there
//! (`logic::cursor`'s position text, so any member bytes survive), and
//! carries a checksum of the merge's arguments, so a cursor handed to
//! another merge (other destination, staging key, sources or weights) is
//! refused instead of resuming at a meaningless place.
//!
//! Text: `m1:<source index>:<16 hex digits: checksum>:<position cursor>`;
//! `0` starts a merge. Each position has exactly one cursor text; anything
//! else is refused, never guessed at.

use std::cmp::Ordering;

use super::cursor::{self, Position};

/// The cursor that starts a merge, as SCAN's.
pub const START: &[u8] = b"0";

/// The version tag every merge cursor starts with.
const PREFIX: &[u8] = b"m1:";

/// Why a step cannot run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeError {
    /// The staging key is the destination or one of the sources.
    StagingIsNamed,
    /// Not a cursor RANK.MERGE wrote.
    MalformedCursor,
    /// A cursor RANK.MERGE wrote for a merge with other arguments.
    ForeignCursor,
    /// A resumed merge whose staging board is gone (deleted, or never made).
    StagingGone,
}

/// Where a step resumes: strictly after `after` in source `source`.
#[derive(Debug, Clone, PartialEq)]
pub struct Resume {
    pub source: usize,
    pub after: Position,
}

impl Resume {
    /// Whether `(score, member)` of the resumed source comes after the
    /// position, in ascending (score, member) order.
    pub fn is_ahead(&self, score: f64, member: &[u8]) -> bool {
        // The position's display order is descending: "above" is after.
        self.after.locate(score, member) == Ordering::Less
    }
}

/// The arguments a cursor belongs to, in the order the call names them.
pub struct MergeArgs<'a> {
    pub dest: &'a [u8],
    pub staging: &'a [u8],
    pub sources: &'a [&'a [u8]],
    pub weights: &'a [i64],
}

impl MergeArgs<'_> {
    /// Refuses a staging key that is also the destination or a source: its
    /// removal or renaming would take theirs with it.
    pub fn check_staging(&self) -> Result<(), MergeError> {
        if self.staging == self.dest || self.sources.contains(&self.staging) {
            return Err(MergeError::StagingIsNamed);
        }
        Ok(())
    }

    /// 64-bit FNV-1a over the arguments, each length-prefixed so that no
    /// two argument lists hash the same bytes.
    fn checksum(&self) -> u64 {
        const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
        const PRIME: u64 = 0x0000_0100_0000_01b3;
        let mut hash = OFFSET;
        let mut feed = |bytes: &[u8]| {
            for &byte in (bytes.len() as u64).to_le_bytes().iter().chain(bytes) {
                hash = (hash ^ u64::from(byte)).wrapping_mul(PRIME);
            }
        };
        feed(self.dest);
        feed(self.staging);
        feed(&(self.sources.len() as u64).to_le_bytes());
        for source in self.sources {
            feed(source);
        }
        for weight in self.weights {
            feed(&weight.to_le_bytes());
        }
        hash
    }

    /// The cursor that resumes after `(score, member)` of source `source`.
    pub fn encode(&self, source: usize, score: f64, member: &[u8]) -> Vec<u8> {
        cursor_text(source, self.checksum(), score, member)
    }

    /// Reads a cursor back: `None` for [`START`].
    pub fn decode(&self, text: &[u8]) -> Result<Option<Resume>, MergeError> {
        if text == START {
            return Ok(None);
        }
        let rest = text
            .strip_prefix(PREFIX)
            .ok_or(MergeError::MalformedCursor)?;
        let mut parts = rest.splitn(3, |&b| b == b':');
        let (Some(source), Some(checksum), Some(position)) =
            (parts.next(), parts.next(), parts.next())
        else {
            return Err(MergeError::MalformedCursor);
        };
        let source: usize = std::str::from_utf8(source)
            .ok()
            .and_then(|digits| digits.parse().ok())
            .ok_or(MergeError::MalformedCursor)?;
        let checksum = std::str::from_utf8(checksum)
            .ok()
            .filter(|hex| hex.len() == 16)
            .and_then(|hex| u64::from_str_radix(hex, 16).ok())
            .ok_or(MergeError::MalformedCursor)?;
        let after = Position::decode(position).map_err(|_| MergeError::MalformedCursor)?;
        // Only the one text `encode` writes for a position is accepted (not
        // "+1", "01" or upper-case hex).
        if cursor_text(source, checksum, after.score, &after.member) != text {
            return Err(MergeError::MalformedCursor);
        }
        if checksum != self.checksum() {
            return Err(MergeError::ForeignCursor);
        }
        if source >= self.sources.len() {
            // Only a forged cursor passes the checksum with such an index.
            return Err(MergeError::MalformedCursor);
        }
        Ok(Some(Resume { source, after }))
    }
}

/// The one text of a cursor.
fn cursor_text(source: usize, checksum: u64, score: f64, member: &[u8]) -> Vec<u8> {
    let mut out = PREFIX.to_vec();
    out.extend_from_slice(format!("{source}:{checksum:016x}:").as_bytes());
    out.extend(cursor::encode(score, member));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SOURCES: &[&[u8]] = &[b"day:1", b"day:2"];

    fn week() -> MergeArgs<'static> {
        MergeArgs {
            dest: b"week",
            staging: b"week:staging",
            sources: SOURCES,
            weights: &[1, 2],
        }
    }

    #[test]
    fn zero_starts_and_cursors_round_trip() {
        let args = week();
        assert_eq!(args.decode(b"0"), Ok(None));
        let text = args.encode(1, 12.5, b"alice\x00");
        assert!(text.starts_with(b"m1:1:"));
        assert!(text.iter().all(u8::is_ascii_graphic));
        let resume = args.decode(&text).unwrap().unwrap();
        assert_eq!(resume.source, 1);
        assert_eq!(resume.after.score, 12.5);
        assert_eq!(resume.after.member, b"alice\x00");
    }

    #[test]
    fn a_cursor_of_another_merge_is_refused() {
        let text = week().encode(0, 3.0, b"bob");
        let others = [
            MergeArgs {
                dest: b"month",
                ..week()
            },
            MergeArgs {
                staging: b"tmp",
                ..week()
            },
            MergeArgs {
                sources: &[b"day:2", b"day:1"],
                ..week()
            },
            MergeArgs {
                sources: &[b"day:1", b"day:2", b"day:3"],
                weights: &[1, 2, 1],
                ..week()
            },
            MergeArgs {
                weights: &[1, 1],
                ..week()
            },
        ];
        for other in others {
            assert_eq!(other.decode(&text), Err(MergeError::ForeignCursor));
        }
        // Length prefixes: moving bytes from one argument to the next changes the sum.
        let a = MergeArgs {
            dest: b"ab",
            staging: b"c",
            sources: &[b"d"],
            weights: &[1],
        };
        let b = MergeArgs {
            dest: b"a",
            staging: b"bc",
            sources: &[b"d"],
            weights: &[1],
        };
        assert_ne!(a.checksum(), b.checksum());
    }

    #[test]
    fn anything_else_is_malformed() {
        let args = week();
        let good = args.encode(1, 3.0, b"bob");
        let text = String::from_utf8(good.clone()).unwrap();
        let mangled = [
            String::new(),
            "00".into(),
            "1".into(),
            "m1:".into(),
            text.replacen("m1:", "m2:", 1),
            text.replacen("m1:1:", "m1:01:", 1),
            text.replacen("m1:1:", "m1:+1:", 1),
            text.replacen("m1:1:", "m1::", 1),
            text.to_uppercase(),
            text.replacen(":f1:", ":f2:", 1),
            format!("{text}0"),
            // A source index the merge does not have, with the right checksum.
            String::from_utf8(args.encode(2, 3.0, b"bob")).unwrap(),
        ];
        for bad in mangled {
            assert_eq!(
                args.decode(bad.as_bytes()),
                Err(MergeError::MalformedCursor),
                "{bad}"
            );
        }
        assert!(args.decode(&good).is_ok());
    }

    #[test]
    fn staging_must_be_a_key_of_its_own() {
        assert_eq!(week().check_staging(), Ok(()));
        for staging in [&b"week"[..], b"day:1", b"day:2"] {
            assert_eq!(
                MergeArgs { staging, ..week() }.check_staging(),
                Err(MergeError::StagingIsNamed)
            );
        }
    }

    #[test]
    fn a_step_resumes_strictly_after_the_position() {
        let resume = Resume {
            source: 0,
            after: Position {
                score: 2.0,
                member: b"m".to_vec(),
            },
        };
        assert!(!resume.is_ahead(1.0, b"z"));
        assert!(!resume.is_ahead(2.0, b"a"));
        assert!(!resume.is_ahead(2.0, b"m"));
        assert!(resume.is_ahead(2.0, b"ma"));
        assert!(resume.is_ahead(2.0, b"n"));
        assert!(resume.is_ahead(2.5, b""));
    }

    proptest! {
        #[test]
        fn decoding_arbitrary_text_never_panics_and_accepts_only_its_own(
            text in proptest::collection::vec(any::<u8>(), 0..80),
            source in 0usize..2,
            score in any::<f64>().prop_filter("no NaN in a sorted set", |s| !s.is_nan()),
            member in proptest::collection::vec(any::<u8>(), 0..20),
        ) {
            let args = week();
            if let Ok(Some(resume)) = args.decode(&text) {
                prop_assert_eq!(args.encode(resume.source, resume.after.score, &resume.after.member), text);
            }
            let cursor = args.encode(source, score, &member);
            let resume = args.decode(&cursor).unwrap().unwrap();
            prop_assert_eq!(resume.source, source);
            prop_assert_eq!(resume.after.score.to_bits(), score.to_bits());
            prop_assert_eq!(resume.after.member, member);
        }
    }
}
