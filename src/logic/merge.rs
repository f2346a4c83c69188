//! Merging rank boards (RANK.MERGE): each member's weighted totals summed
//! exactly, in one call or in steps (`STEP count staging cursor`), and the
//! state of a merge run in steps.
//!
//! **Exact in steps.** A step never keeps a partial total: the first time a
//! step meets a member (in any source) it reads that member's score in every
//! source at once and stores its final merged score in the staging board,
//! the score the one-shot merge computes from the same boards
//! ([`MemberSum`]); a member the run has already staged is skipped wherever
//! it is met again. So a stepped merge of boards that do not change equals
//! the one-shot merge bit for bit, whatever the step size.
//!
//! **State kept server-side.** The staging board holds, besides the members
//! merged so far, one entry scored `+inf` (rank scores are finite, so it is
//! the board's top and never a member): the [`RunRecord`], which names the
//! run (a random 128-bit id), the arguments it belongs to, how many steps it
//! applied, where the next step resumes and what the last step replied. The
//! cursor a client passes back carries only the run id and the number of
//! steps applied ([`StepCursor`]): nothing in it is trusted beyond naming the
//! step, so an edited cursor can only be refused.

use std::collections::HashSet;
use std::fmt::Write as _;

use super::cursor::Position;
use super::hex;
use super::rank::{check_total, weigh_total, Order, RankEntry, RankError, TieBreakClock};

/// The cursor that starts a merge run with an id the server picks, as SCAN's.
pub const START: &[u8] = b"0";

/// The version tag of every step cursor (0.3.0's cursors were `m1:`).
const CURSOR_PREFIX: &[u8] = b"m2:";

/// The version tag of a run record, the member it is stored as.
pub(crate) const RECORD_PREFIX: &[u8] = b"zkit:merge-run:v1:";

/// The score of the run record in the staging board.
pub const RECORD_SCORE: f64 = f64::INFINITY;

/// How long the record of a finished run stays in the staging key when the
/// key had no TTL of its own: the window in which a resent last step is
/// answered again (one day).
pub const FINISHED_RECORD_TTL_MS: i64 = 24 * 3_600_000;

/// Why a step cannot run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeError {
    /// The staging key is the destination or one of the sources.
    StagingIsNamed,
    /// Not a cursor RANK.MERGE wrote.
    MalformedCursor,
    /// A cursor of a run with other arguments.
    ForeignCursor,
    /// A resumed run whose staging key holds no run (deleted, expired).
    StagingGone,
    /// A new run on a staging key that an unfinished run holds.
    RunInProgress,
    /// The run's staging key now holds another run.
    RunReplaced,
    /// A cursor of this run older than its last reply's (or newer).
    StaleCursor,
    /// The last step cannot replace destkey now: its slot is being migrated
    /// and destkey is missing on this node.
    SlotMoving,
}

/// A merge run's id: 128 random bits (or the client's own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunId(pub [u8; 16]);

impl RunId {
    fn hex(&self) -> String {
        self.0.iter().fold(String::with_capacity(32), |mut out, b| {
            let _ = write!(out, "{b:02x}");
            out
        })
    }

    fn parse(hex: &[u8]) -> Option<RunId> {
        let mut id = [0u8; 16];
        if hex.len() != 32 {
            return None;
        }
        for (byte, pair) in id.iter_mut().zip(hex.chunks_exact(2)) {
            *byte = hex::byte([pair[0], pair[1]])?;
        }
        Some(RunId(id))
    }
}

/// What a client passes back: `0`, or `m2:<run id>:<steps applied>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepCursor {
    /// `0`: a new run, its id picked by the server.
    Start,
    /// The cursor of a run after `steps` steps. `steps` 0 starts the run
    /// with an id the client chose, so that its first step, too, can be
    /// sent again after a lost reply.
    Run { run: RunId, steps: u64 },
}

impl StepCursor {
    /// Reads a cursor; only the one text [`StepCursor::text`] writes for a
    /// cursor is accepted (no `+1`, `01` or upper-case hex).
    pub fn parse(text: &[u8]) -> Result<StepCursor, MergeError> {
        if text == START {
            return Ok(StepCursor::Start);
        }
        let rest = text
            .strip_prefix(CURSOR_PREFIX)
            .ok_or(MergeError::MalformedCursor)?;
        let (run, steps) = split_once(rest, b':').ok_or(MergeError::MalformedCursor)?;
        let cursor = StepCursor::Run {
            run: RunId::parse(run).ok_or(MergeError::MalformedCursor)?,
            steps: parse_decimal(steps).ok_or(MergeError::MalformedCursor)?,
        };
        Ok(cursor)
    }

    pub fn text(&self) -> Vec<u8> {
        match self {
            StepCursor::Start => START.to_vec(),
            StepCursor::Run { run, steps } => format!("m2:{}:{steps}", run.hex()).into_bytes(),
        }
    }
}

/// The arguments a run belongs to, in the order the call names them.
pub struct MergeArgs<'a> {
    pub dest: &'a [u8],
    pub staging: &'a [u8],
    pub sources: &'a [&'a [u8]],
    pub weights: &'a [i64],
    /// The boards' order (`ASC`), which sets every score the merge writes.
    pub order: Order,
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
    /// two argument lists hash the same bytes. It tells a step called with
    /// other arguments from the run's own; the run id, not this sum, is what
    /// a client cannot guess.
    pub fn checksum(&self) -> u64 {
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
        // A merge without ASC sums as before ASC existed.
        if self.order == Order::LowestFirst {
            feed(b"ASC");
        }
        hash
    }
}

/// Where a run stands after its last applied step.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// More to read: the next step resumes strictly after `after` in source
    /// `source`.
    Reading { source: usize, after: Position },
    /// The last step ran: staging was moved onto destkey; the record stays
    /// so that a resent last step is answered again.
    Done,
}

/// The state of a run, kept in its staging board as one member scored
/// [`RECORD_SCORE`].
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    pub run: RunId,
    /// [`MergeArgs::checksum`] of the run's arguments.
    pub args: u64,
    /// Steps applied.
    pub steps: u64,
    /// The member count the last step replied.
    pub staged: u64,
    /// Varies the member's bytes when a merged member happens to be spelled
    /// like the record (see [`RunRecord::member`]); carries no meaning.
    pub salt: u32,
    pub progress: Progress,
}

impl RunRecord {
    /// The member the record is stored as:
    /// `zkit:merge-run:v1:<run>:<args>:<steps>:<staged>:<salt>:` then `done`,
    /// or `at:<source>:<16 hex digits: the score's bits>:` and the member's
    /// own bytes (last, so they need no escaping).
    pub fn member(&self) -> Vec<u8> {
        let mut out = RECORD_PREFIX.to_vec();
        let head = format!(
            "{}:{:016x}:{}:{}:{}:",
            self.run.hex(),
            self.args,
            self.steps,
            self.staged,
            self.salt
        );
        out.extend_from_slice(head.as_bytes());
        match &self.progress {
            Progress::Done => out.extend_from_slice(b"done"),
            Progress::Reading { source, after } => {
                let at = format!("at:{source}:{:016x}:", after.score.to_bits());
                out.extend_from_slice(at.as_bytes());
                out.extend_from_slice(&after.member);
            }
        }
        out
    }

    /// Reads a record back; `None` for anything [`RunRecord::member`] did
    /// not write.
    pub fn parse(member: &[u8]) -> Option<RunRecord> {
        let rest = member.strip_prefix(RECORD_PREFIX)?;
        let mut fields = rest.splitn(6, |&b| b == b':');
        let run = RunId::parse(fields.next()?)?;
        let args = fields.next().filter(|hex| hex.len() == 16)?;
        let args = u64::from_str_radix(std::str::from_utf8(args).ok()?, 16).ok()?;
        let steps = parse_decimal(fields.next()?)?;
        let staged = parse_decimal(fields.next()?)?;
        let salt = u32::try_from(parse_decimal(fields.next()?)?).ok()?;
        let tail = fields.next()?;
        let progress = if tail == b"done" {
            Progress::Done
        } else {
            let at = tail.strip_prefix(b"at:")?;
            let (source, at) = split_once(at, b':')?;
            let (bits, member) = split_once(at, b':')?;
            let bits = std::str::from_utf8(bits).ok().filter(|b| b.len() == 16)?;
            let score = f64::from_bits(u64::from_str_radix(bits, 16).ok()?);
            Progress::Reading {
                source: usize::try_from(parse_decimal(source)?).ok()?,
                after: Position {
                    score,
                    member: member.to_vec(),
                },
            }
        };
        let record = RunRecord {
            run,
            args,
            steps,
            staged,
            salt,
            progress,
        };
        // Only the one text `member` writes (no upper-case hex, no NaN).
        (record.member() == member && !record_score_is_nan(&record)).then_some(record)
    }

    /// The reply of the step that left this record: `[cursor, staged]`,
    /// with cursor `0` once the run is done.
    pub fn reply(&self) -> (Vec<u8>, u64) {
        let cursor = match self.progress {
            Progress::Done => START.to_vec(),
            Progress::Reading { .. } => StepCursor::Run {
                run: self.run,
                steps: self.steps,
            }
            .text(),
        };
        (cursor, self.staged)
    }
}

fn record_score_is_nan(record: &RunRecord) -> bool {
    matches!(&record.progress, Progress::Reading { after, .. } if after.score.is_nan())
}

/// What the staging key holds when a step begins.
#[derive(Debug, Clone, PartialEq)]
pub enum Staging {
    /// No key.
    Absent,
    /// A key without a run record: a 0.3.0 merge's leftovers, or anything
    /// else (a step that starts a run replaces it).
    Foreign,
    /// A run's staging board.
    Run(RunRecord),
}

/// What a step does, decided from its cursor and the staging key.
#[derive(Debug, Clone, PartialEq)]
pub enum StepPlan {
    /// A new run: staging is replaced. `run` is `None` when the server
    /// picks the id.
    Start { run: Option<RunId> },
    /// The run's next step, resuming where its record says.
    Continue(RunRecord),
    /// A resent step that already ran: reply what it replied, change
    /// nothing.
    Replay { cursor: Vec<u8>, staged: u64 },
}

/// Decides what a step with `cursor` does, for a run whose arguments sum
/// to `args` and a staging key holding `staging`. A staging key an
/// unfinished run holds is that run's: a new run is refused until it ends or
/// the key is deleted, and a run whose key another run took is refused.
pub fn plan(cursor: StepCursor, args: u64, staging: &Staging) -> Result<StepPlan, MergeError> {
    let record = match staging {
        Staging::Run(record) => Some(record),
        Staging::Absent | Staging::Foreign => None,
    };
    let unfinished = record.is_some_and(|r| r.progress != Progress::Done);
    let (run, steps) = match cursor {
        StepCursor::Start if unfinished => return Err(MergeError::RunInProgress),
        StepCursor::Start => return Ok(StepPlan::Start { run: None }),
        StepCursor::Run { run, steps } => (run, steps),
    };
    let Some(record) = record.filter(|r| r.run == run) else {
        return match (steps, unfinished) {
            (0, false) => Ok(StepPlan::Start { run: Some(run) }),
            (0, true) => Err(MergeError::RunInProgress),
            (_, _) if record.is_some() => Err(MergeError::RunReplaced),
            (_, _) => Err(MergeError::StagingGone),
        };
    };
    if record.args != args {
        return Err(MergeError::ForeignCursor);
    }
    if steps.checked_add(1) == Some(record.steps) {
        let (cursor, staged) = record.reply();
        return Ok(StepPlan::Replay { cursor, staged });
    }
    if steps == record.steps && record.progress != Progress::Done {
        return Ok(StepPlan::Continue(record.clone()));
    }
    Err(MergeError::StaleCursor)
}

/// One member's merged total and time, summed exactly: the totals times
/// their weights add up (in 128 bits, so the order of the sources never
/// matters and only the final total must fit a rank score), and the member
/// reached its merged total when its last contributor reached its own.
#[derive(Debug, Clone, Copy)]
pub struct MemberSum {
    total: i128,
    reached_at_ms: i64,
}

impl Default for MemberSum {
    fn default() -> MemberSum {
        MemberSum {
            total: 0,
            reached_at_ms: i64::MIN,
        }
    }
}

impl MemberSum {
    /// Adds a source's entry for the member, times the source's weight;
    /// a weighted total must itself fit a rank score.
    pub fn add(&mut self, entry: RankEntry, weight: i64) -> Result<(), RankError> {
        self.total += i128::from(weigh_total(entry.total, weight)?);
        self.reached_at_ms = self.reached_at_ms.max(entry.reached_at_ms);
        Ok(())
    }

    /// The merged rank score; call after at least one [`MemberSum::add`].
    pub fn score(&self, clock: &TieBreakClock) -> Result<f64, RankError> {
        let total = i64::try_from(self.total).map_err(|_| RankError::TotalOutOfRange)?;
        clock.encode(check_total(total)?, self.reached_at_ms)
    }
}

/// What a step reads: the run's sources and its staging board.
pub trait StepSources {
    type Member: AsRef<[u8]>;
    type Error: From<RankError>;

    /// How many sources the merge has.
    fn sources(&self) -> usize;

    /// Up to `limit` entries of source `index` in ascending (score, member)
    /// order, strictly after `after` (from the lowest without), and whether
    /// the source holds more after them.
    #[allow(clippy::type_complexity)]
    fn read(
        &mut self,
        index: usize,
        after: Option<&Position>,
        limit: usize,
    ) -> Result<(Vec<(Self::Member, f64)>, bool), Self::Error>;

    /// The member's score in source `index`, if it is there.
    fn score(&self, index: usize, member: &Self::Member) -> Option<f64>;

    /// Whether an earlier step of the run staged the member.
    fn is_staged(&self, member: &Self::Member) -> bool;
}

/// What one step found: the members it merged, with their final scores, and
/// where the next step resumes (`None`: the sources are read to their end).
pub struct StepRead<M> {
    pub merged: Vec<(M, f64)>,
    pub next: Option<(usize, Position)>,
}

/// Whether `(score, member)` comes strictly after `position` in a sorted
/// set's ascending (score, member) order.
pub fn is_after(position: &Position, score: f64, member: &[u8]) -> bool {
    // The position's display order is descending: "above" is after.
    position.locate(score, member) == std::cmp::Ordering::Less
}

/// Reads the next `count` entries of the sources, source by source, from
/// strictly after `resume` (from the start without), and merges every
/// member met for the first time in this run from all sources at once.
pub fn read_step<S: StepSources>(
    sources: &mut S,
    weights: &[i64],
    clock: &TieBreakClock,
    resume: Option<(usize, &Position)>,
    count: usize,
) -> Result<StepRead<S::Member>, S::Error> {
    let mut merged = Vec::new();
    // The members merged by this step, which it has not staged yet.
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let mut read = 0;
    // The last entry read: (source, score), and its member.
    let mut last: Option<(usize, f64)> = None;
    let mut last_member = Vec::new();
    let first = resume.map_or(0, |(source, _)| source);
    for index in first..sources.sources() {
        let after = resume.filter(|(source, _)| *source == index).map(|r| r.1);
        let (entries, more) = sources.read(index, after, count - read)?;
        for (member, score) in entries {
            read += 1;
            last = Some((index, score));
            last_member.clear();
            last_member.extend_from_slice(member.as_ref());
            if sources.is_staged(&member) || seen.contains(member.as_ref()) {
                continue;
            }
            seen.insert(member.as_ref().to_vec());
            let mut sum = MemberSum::default();
            for (source, weight) in weights.iter().enumerate() {
                let score = if source == index {
                    Some(score)
                } else {
                    sources.score(source, &member)
                };
                if let Some(score) = score {
                    sum.add(clock.decode(score)?, *weight)?;
                }
            }
            merged.push((member, sum.score(clock)?));
        }
        if more {
            let next = last.map(|(source, score)| {
                let after = Position {
                    score,
                    member: last_member,
                };
                (source, after)
            });
            return Ok(StepRead { merged, next });
        }
    }
    Ok(StepRead { merged, next: None })
}

/// How the last step puts staging in destkey's place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replacement {
    /// `UNLINK destkey` (its board freed as UNLINK frees it: in the
    /// background when large), then `RENAME staging destkey`.
    UnlinkThenRename,
    /// `RENAME staging destkey` over destkey: the server frees the old board
    /// as RENAME frees a key it overwrites (in the background only with
    /// `lazyfree-lazy-server-del yes`).
    RenameOver,
}

/// Chooses how the last step replaces destkey so that its RENAME cannot be
/// refused after the step has written. In a cluster, RENAME through RM_Call
/// passes the server's slot check only if, while the slot is being migrated
/// (or imported), both of its keys exist: so destkey is unlinked first only
/// where the slot is known to stay put (`slot_moving` is `None` when the
/// server did not say). A missing destkey in a moving slot never reaches a
/// command, which the server refuses with TRYAGAIN or ASK, except inside
/// MULTI/EXEC, whose keys are checked at EXEC: that last step is refused, so
/// that the client retries it.
pub fn replacement(
    cluster: bool,
    slot_moving: Option<bool>,
    dest_exists: bool,
    in_multi: bool,
) -> Result<Replacement, MergeError> {
    if !cluster || slot_moving == Some(false) {
        Ok(Replacement::UnlinkThenRename)
    } else if dest_exists || !in_multi {
        Ok(Replacement::RenameOver)
    } else {
        Err(MergeError::SlotMoving)
    }
}

fn split_once(bytes: &[u8], separator: u8) -> Option<(&[u8], &[u8])> {
    let at = bytes.iter().position(|&b| b == separator)?;
    Some((&bytes[..at], &bytes[at + 1..]))
}

/// A decimal written without sign or leading zeros.
fn parse_decimal(digits: &[u8]) -> Option<u64> {
    let canonical = !digits.is_empty()
        && digits.iter().all(u8::is_ascii_digit)
        && (digits == b"0" || digits[0] != b'0');
    canonical
        .then(|| std::str::from_utf8(digits).ok()?.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logic::rank::{DEFAULT_EPOCH_MS, TOTAL_LIMIT};
    use proptest::prelude::*;
    use std::collections::HashMap;

    const SOURCES: &[&[u8]] = &[b"day:1", b"day:2"];
    const RUN: RunId = RunId([0xab; 16]);

    fn week() -> MergeArgs<'static> {
        MergeArgs {
            dest: b"week",
            staging: b"week:staging",
            sources: SOURCES,
            weights: &[1, 2],
            order: Order::HighestFirst,
        }
    }

    fn reading(steps: u64) -> RunRecord {
        RunRecord {
            run: RUN,
            args: week().checksum(),
            steps,
            staged: 7,
            salt: 0,
            progress: Progress::Reading {
                source: 1,
                after: Position {
                    score: 12.5,
                    member: b"al:ice\x00".to_vec(),
                },
            },
        }
    }

    #[test]
    fn cursors_name_a_run_and_its_steps_and_nothing_else() {
        assert_eq!(StepCursor::parse(b"0"), Ok(StepCursor::Start));
        let cursor = StepCursor::Run { run: RUN, steps: 3 };
        let text = cursor.text();
        assert_eq!(text, format!("m2:{}:3", "ab".repeat(16)).into_bytes());
        assert_eq!(StepCursor::parse(&text), Ok(cursor));
        let good = String::from_utf8(text).unwrap();
        for bad in [
            String::new(),
            "00".into(),
            "1".into(),
            "m2:".into(),
            good.replacen("m2:", "m1:", 1),
            good.replacen(":3", ":03", 1),
            good.replacen(":3", ":+3", 1),
            good.replacen(":3", ":", 1),
            good.replacen(":3", ":3:", 1),
            good.to_uppercase(),
            good.replacen("abab", "abag", 1),
            good.replacen("abab", "aba", 1),
            format!("{good}x"),
            format!("{good}:"),
            // 0.3.0's cursors.
            "m1:0:ee6a40cf0299e640:f1:4025f1e43e9fffff:616e6e".into(),
        ] {
            assert_eq!(
                StepCursor::parse(bad.as_bytes()),
                Err(MergeError::MalformedCursor),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_run_record_reads_back_exactly_and_only_as_written() {
        for record in [
            reading(4),
            RunRecord {
                progress: Progress::Done,
                salt: 2,
                ..reading(9)
            },
            RunRecord {
                progress: Progress::Reading {
                    source: 0,
                    after: Position {
                        score: -0.0,
                        member: Vec::new(),
                    },
                },
                ..reading(1)
            },
        ] {
            let member = record.member();
            assert!(member.starts_with(RECORD_PREFIX));
            assert_eq!(RunRecord::parse(&member), Some(record));
        }
        let text = String::from_utf8(reading(4).member()).unwrap();
        for bad in [
            text.replacen("v1", "v2", 1),
            text.replacen(":4:", ":04:", 1),
            text.replacen("abab", "ABAB", 1),
            text.replacen(":at:1:", ":at:01:", 1),
            text.replacen(":at:1:", ":at:1", 1),
            text.replacen(":at:", ":ta:", 1),
            text.replacen("4029000000000000", "7ff8000000000000", 1),
            text.replacen("4029000000000000", "4029", 1),
            format!("{}done", &text[..text.find("at:").unwrap()])
                .replacen(":0:done", ":00:done", 1),
        ] {
            assert_eq!(RunRecord::parse(bad.as_bytes()), None, "{bad}");
        }
    }

    #[test]
    fn a_record_replies_what_its_step_replied() {
        let record = reading(4);
        let cursor = StepCursor::Run { run: RUN, steps: 4 }.text();
        assert_eq!(record.reply(), (cursor, 7));
        let done = RunRecord {
            progress: Progress::Done,
            ..record
        };
        assert_eq!(done.reply(), (b"0".to_vec(), 7));
    }

    #[test]
    fn staging_belongs_to_the_run_that_holds_it() {
        let args = week().checksum();
        let run = |steps| StepCursor::Run { run: RUN, steps };
        let other = |steps| StepCursor::Run {
            run: RunId([7; 16]),
            steps,
        };
        let live = Staging::Run(reading(3));
        let done = Staging::Run(RunRecord {
            progress: Progress::Done,
            ..reading(3)
        });
        use MergeError::*;
        let cases: Vec<(StepCursor, &Staging, Result<StepPlan, MergeError>)> = vec![
            // Starts.
            (
                StepCursor::Start,
                &Staging::Absent,
                Ok(StepPlan::Start { run: None }),
            ),
            (
                StepCursor::Start,
                &Staging::Foreign,
                Ok(StepPlan::Start { run: None }),
            ),
            (StepCursor::Start, &done, Ok(StepPlan::Start { run: None })),
            (StepCursor::Start, &live, Err(RunInProgress)),
            (
                other(0),
                &Staging::Absent,
                Ok(StepPlan::Start {
                    run: Some(RunId([7; 16])),
                }),
            ),
            (
                other(0),
                &done,
                Ok(StepPlan::Start {
                    run: Some(RunId([7; 16])),
                }),
            ),
            (other(0), &live, Err(RunInProgress)),
            // The run's own steps: the next one, the last one again, others.
            (run(3), &live, Ok(StepPlan::Continue(reading(3)))),
            (
                run(2),
                &live,
                Ok(StepPlan::Replay {
                    cursor: run(3).text(),
                    staged: 7,
                }),
            ),
            (run(1), &live, Err(StaleCursor)),
            (run(0), &live, Err(StaleCursor)),
            (run(4), &live, Err(StaleCursor)),
            (
                run(2),
                &done,
                Ok(StepPlan::Replay {
                    cursor: b"0".to_vec(),
                    staged: 7,
                }),
            ),
            (run(3), &done, Err(StaleCursor)),
            // A run whose staging key is gone or held by another run.
            (run(3), &Staging::Absent, Err(StagingGone)),
            (run(3), &Staging::Foreign, Err(StagingGone)),
            (other(3), &live, Err(RunReplaced)),
            (other(3), &done, Err(RunReplaced)),
        ];
        for (cursor, staging, expected) in cases {
            assert_eq!(
                plan(cursor, args, staging),
                expected,
                "{cursor:?} on {staging:?}"
            );
        }
        // The run's cursor with other arguments.
        let other_args = MergeArgs {
            weights: &[1, 1],
            ..week()
        };
        assert_eq!(
            plan(run(3), other_args.checksum(), &live),
            Err(ForeignCursor)
        );
    }

    #[test]
    fn a_cursor_of_another_merge_is_refused() {
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
            MergeArgs {
                order: Order::LowestFirst,
                ..week()
            },
        ];
        for other in others {
            assert_ne!(other.checksum(), week().checksum());
        }
        // Length prefixes: moving bytes from one argument to the next changes the sum.
        let a = MergeArgs {
            dest: b"ab",
            staging: b"c",
            sources: &[b"d"],
            weights: &[1],
            order: Order::HighestFirst,
        };
        let b = MergeArgs {
            dest: b"a",
            staging: b"bc",
            sources: &[b"d"],
            weights: &[1],
            order: Order::HighestFirst,
        };
        assert_ne!(a.checksum(), b.checksum());
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
        let at = Position {
            score: 2.0,
            member: b"m".to_vec(),
        };
        assert!(!is_after(&at, 1.0, b"z"));
        assert!(!is_after(&at, 2.0, b"a"));
        assert!(!is_after(&at, 2.0, b"m"));
        assert!(is_after(&at, 2.0, b"ma"));
        assert!(is_after(&at, 2.0, b"n"));
        assert!(is_after(&at, 2.5, b""));
    }

    #[test]
    fn destkey_is_unlinked_first_only_where_the_rename_cannot_then_fail() {
        use Replacement::*;
        // Outside a cluster, or in a slot that stays put.
        assert_eq!(replacement(false, None, false, true), Ok(UnlinkThenRename));
        assert_eq!(
            replacement(true, Some(false), false, true),
            Ok(UnlinkThenRename)
        );
        // A moving slot (or one the server did not tell about): RENAME over
        // destkey, which must exist there unless the server checked it.
        assert_eq!(replacement(true, Some(true), true, true), Ok(RenameOver));
        assert_eq!(replacement(true, None, true, false), Ok(RenameOver));
        assert_eq!(replacement(true, Some(true), false, false), Ok(RenameOver));
        assert_eq!(
            replacement(true, Some(true), false, true),
            Err(MergeError::SlotMoving)
        );
        assert_eq!(
            replacement(true, None, false, true),
            Err(MergeError::SlotMoving)
        );
    }

    #[test]
    fn sums_are_exact_whatever_the_order() {
        let clock = TieBreakClock::default();
        let at = DEFAULT_EPOCH_MS + 5;
        let big = TOTAL_LIMIT - 1;
        let entry = |total, reached_at_ms| RankEntry {
            total,
            reached_at_ms,
        };
        // A partial sum out of range does not refuse a total that fits.
        let mut sum = MemberSum::default();
        for (total, time, weight) in [(big, at, 1), (big, at, 1), (big, at + 9, -1)] {
            sum.add(entry(total, time), weight).unwrap();
        }
        assert_eq!(sum.score(&clock), clock.encode(big, at + 9));
        // A weighted total must fit on its own; so must the final one.
        let mut sum = MemberSum::default();
        assert_eq!(
            sum.add(entry(1 << 40, at), 1 << 20),
            Err(RankError::TotalOutOfRange)
        );
        sum.add(entry(big, at), 1).unwrap();
        sum.add(entry(1, at), 1).unwrap();
        assert_eq!(sum.score(&clock), Err(RankError::TotalOutOfRange));
    }

    /// Boards in memory: each source sorted in ascending (score, member)
    /// order, and what the run has staged.
    struct Boards {
        sources: Vec<Vec<(f64, Vec<u8>)>>,
        staged: HashMap<Vec<u8>, f64>,
    }

    impl StepSources for Boards {
        type Member = Vec<u8>;
        type Error = RankError;

        fn sources(&self) -> usize {
            self.sources.len()
        }

        fn read(
            &mut self,
            index: usize,
            after: Option<&Position>,
            limit: usize,
        ) -> Result<(Vec<(Vec<u8>, f64)>, bool), RankError> {
            let mut entries: Vec<(Vec<u8>, f64)> = self.sources[index]
                .iter()
                .filter(|(score, member)| after.is_none_or(|p| is_after(p, *score, member)))
                .map(|(score, member)| (member.clone(), *score))
                .collect();
            let more = entries.len() > limit;
            entries.truncate(limit);
            Ok((entries, more))
        }

        fn score(&self, index: usize, member: &Vec<u8>) -> Option<f64> {
            self.sources[index]
                .iter()
                .find(|(_, m)| m == member)
                .map(|(score, _)| *score)
        }

        fn is_staged(&self, member: &Vec<u8>) -> bool {
            self.staged.contains_key(member)
        }
    }

    type Merged = Result<Vec<(Vec<u8>, u64)>, RankError>;

    /// The one-shot merge of the boards: every member's sum, by member, with
    /// its score's bits.
    fn at_once(sources: &[Vec<(f64, Vec<u8>)>], weights: &[i64], clock: &TieBreakClock) -> Merged {
        let mut sums: HashMap<Vec<u8>, MemberSum> = HashMap::new();
        for (source, weight) in sources.iter().zip(weights) {
            for (score, member) in source {
                sums.entry(member.clone())
                    .or_default()
                    .add(clock.decode(*score)?, *weight)?;
            }
        }
        let mut out: Vec<(Vec<u8>, u64)> = sums
            .into_iter()
            .map(|(member, sum)| Ok((member, sum.score(clock)?.to_bits())))
            .collect::<Result<_, RankError>>()?;
        out.sort();
        Ok(out)
    }

    /// The same merge in steps of `count`, each step resuming where the last
    /// one said; also returns how many steps it took.
    fn in_steps(
        sources: &[Vec<(f64, Vec<u8>)>],
        weights: &[i64],
        clock: &TieBreakClock,
        count: usize,
    ) -> (Merged, usize) {
        let mut boards = Boards {
            sources: sources.to_vec(),
            staged: HashMap::new(),
        };
        let mut resume: Option<(usize, Position)> = None;
        for steps in 1.. {
            let step = match read_step(
                &mut boards,
                weights,
                clock,
                resume.as_ref().map(|(s, p)| (*s, p)),
                count,
            ) {
                Ok(step) => step,
                Err(e) => return (Err(e), steps),
            };
            for (member, score) in step.merged {
                assert!(
                    boards.staged.insert(member, score).is_none(),
                    "a member staged twice"
                );
            }
            resume = step.next;
            if resume.is_none() {
                let mut out: Vec<(Vec<u8>, u64)> = boards
                    .staged
                    .into_iter()
                    .map(|(member, score)| (member, score.to_bits()))
                    .collect();
                out.sort();
                return (Ok(out), steps);
            }
        }
        unreachable!()
    }

    /// Source boards as ZADD would hold them: rank scores of totals that
    /// are small, negative, or near the limit, reached at times that often
    /// coincide (ties), now and then a plain integer score; members from a
    /// small alphabet, so that boards overlap.
    fn any_boards() -> impl Strategy<Value = Vec<Vec<(f64, Vec<u8>)>>> {
        let total = prop_oneof![
            -50i64..50,
            -5_000_000i64..5_000_000,
            Just(TOTAL_LIMIT - 1),
            Just(-(TOTAL_LIMIT - 1)),
            (TOTAL_LIMIT / 4)..(TOTAL_LIMIT / 2),
        ];
        let at = prop_oneof![
            (0i64..4).prop_map(|i| DEFAULT_EPOCH_MS + i * 60_000),
            (0i64..1 << 41).prop_map(|i| DEFAULT_EPOCH_MS + i),
        ];
        let entry = (
            total,
            at,
            proptest::bool::weighted(0.1),
            proptest::collection::vec(0u8..4, 0..3),
        )
            .prop_map(|(total, at, integer, member)| {
                let score = if integer {
                    (total % 1000) as f64
                } else {
                    TieBreakClock::default().encode(total, at).unwrap()
                };
                (score, member)
            });
        let board = proptest::collection::vec(entry, 0..25).prop_map(|entries| {
            // One score per member, in the sorted set's order.
            let mut by_member: HashMap<Vec<u8>, f64> = HashMap::new();
            for (score, member) in entries {
                by_member.insert(member, score);
            }
            let mut board: Vec<(f64, Vec<u8>)> =
                by_member.into_iter().map(|(m, s)| (s, m)).collect();
            board.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
            board
        });
        proptest::collection::vec(board, 1..5)
    }

    fn any_weight() -> impl Strategy<Value = i64> {
        prop_oneof![
            -3i64..=3,
            Just(1),
            Just(-1),
            Just(1 << 20),
            Just(-(1 << 12))
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// A merge in steps of any size equals the one-shot merge of the same
        /// boards, score bit for score bit, or both refuse.
        #[test]
        fn a_merge_in_steps_equals_the_one_shot_merge(
            (sources, weights) in any_boards().prop_flat_map(|sources| {
                let n = sources.len();
                (Just(sources), proptest::collection::vec(any_weight(), n))
            }),
            count in 1usize..40,
        ) {
            let clock = TieBreakClock::default();
            let expected = at_once(&sources, &weights, &clock);
            let (got, steps) = in_steps(&sources, &weights, &clock, count);
            prop_assert_eq!(&got, &expected);
            if expected.is_ok() {
                // Every step but the last reads `count` entries.
                let entries: usize = sources.iter().map(Vec::len).sum();
                prop_assert_eq!(steps, entries.div_ceil(count).max(1));
            }
        }

        #[test]
        fn parsing_arbitrary_text_never_panics_and_accepts_only_its_own(
            text in proptest::collection::vec(any::<u8>(), 0..120),
        ) {
            if let Ok(cursor) = StepCursor::parse(&text) {
                prop_assert_eq!(cursor.text(), text.clone());
            }
            if let Some(record) = RunRecord::parse(&text) {
                prop_assert_eq!(record.member(), text);
            }
        }

        #[test]
        fn records_round_trip(
            steps in any::<u64>(),
            staged in any::<u64>(),
            salt in any::<u32>(),
            source in any::<usize>(),
            score in any::<f64>().prop_filter("no NaN in a sorted set", |s| !s.is_nan()),
            member in proptest::collection::vec(any::<u8>(), 0..20),
            done: bool,
        ) {
            let record = RunRecord {
                run: RunId([3; 16]),
                args: 42,
                steps,
                staged,
                salt,
                progress: if done {
                    Progress::Done
                } else {
                    Progress::Reading { source, after: Position { score, member } }
                },
            };
            prop_assert_eq!(RunRecord::parse(&record.member()), Some(record));
        }
    }
}
