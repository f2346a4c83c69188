//! What the family checks of RATE and RECENT read of a key: a few of its
//! elements, as `logic::family` judges them.

use smallvec::SmallVec;

use crate::host::string::OwnedRStr;

use crate::host::zset::ScoreBound;

use crate::host::zset::Zset;
use crate::logic::family::{self, Element};

/// A few elements of a sorted set, as `logic::family` judges them: the
/// lowest `lowest` and, with `highest`, the highest. O(log N) each. An
/// element past the lowest is read only when the lowest could start an IDMP
/// seen-key, the one check that looks past it (`family::is_seen_key_head`):
/// every element read is a new string the key API makes.
pub struct Sample {
    pub lowest: SmallVec<[(OwnedRStr, f64); 2]>,
    highest: Option<(OwnedRStr, f64)>,
}

impl Sample {
    pub fn of(zset: &mut Zset, lowest: usize, highest: bool) -> Sample {
        let mut walk = zset.iter_asc(ScoreBound::MIN, ScoreBound::MAX);
        let mut read: SmallVec<[(OwnedRStr, f64); 2]> = SmallVec::new();
        while read.len() < lowest {
            if read
                .first()
                .is_some_and(|&(_, score)| !family::may_start_seen_key(score))
            {
                break;
            }
            match walk.next() {
                Some(element) => read.push(element),
                None => break,
            }
        }
        drop(walk);
        Sample {
            lowest: read,
            highest: highest
                .then(|| zset.iter_desc(ScoreBound::MIN, ScoreBound::MAX).next())
                .flatten(),
        }
    }

    pub fn lowest(&self) -> SmallVec<[Element<'_>; 2]> {
        self.lowest
            .iter()
            .map(|(m, s)| (m.as_bytes(), *s))
            .collect()
    }

    pub fn highest(&self) -> Option<Element<'_>> {
        self.highest.as_ref().map(|(m, s)| (m.as_bytes(), *s))
    }
}
