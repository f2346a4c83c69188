//! Every error a zkit command can reply with, and its Redis error text.
//!
//! Handlers fail with a [`ZkitError`], which wraps the typed errors of the
//! grammar (`host`) and of `logic` (which hold values, not text); the host's
//! dispatcher replies with its `Display`. So every refusal is worded here and
//! only here. The one text from elsewhere is an internal error's detail
//! ([`ZkitError::Internal`]): what the code saw (a caught panic, an
//! unexpected server answer, a command that failed after writing), a bug
//! report rather than an answer a client acts on.

use std::fmt;

use crate::host::grammar::GrammarError;

use crate::host::error::HostError;

use crate::host::grammar::Mistake;
use crate::logic::columns::{ColumnsError, MAX_COLUMNS};
use crate::logic::cursor::CursorError;
use crate::logic::delay::DelayError;
use crate::logic::family::{Evidence, Family, WrongFamily};
use crate::logic::idmp::IdmpError;
use crate::logic::jobs::JobError;
use crate::logic::merge::MergeError;
use crate::logic::rank::{RankError, TOTAL_LIMIT};
use crate::logic::recent::RecentError;
use crate::logic::schedule::ScheduleError;
use crate::logic::vote::VoteError;

/// The bounds [`ZkitError::OutOfRange`] names, each spelled once.
pub mod bound {
    /// Durations: 1 ms to `logic::clock::MAX_DURATION_MS` (100 years).
    pub const DURATION_MS: &str = "must be between 1 and 3155760000000 ms (100 years)";
    /// A retry delay: 0 (now) to the same 100 years.
    pub const DELAY_MS: &str = "must be between 0 and 3155760000000 ms (100 years)";
    /// Durations in seconds, to the same 100 years.
    pub const DURATION_S: &str = "must be between 1 and 3155760000 seconds (100 years)";
    /// A rate limit: 1 to `logic::rate::MAX_LIMIT`.
    pub const RATE_LIMIT: &str = "must be between 1 and 1000000";
    /// A group's rate limit: `logic::groups::MAX_GROUP_RATE`.
    pub const GROUP_RATE: &str = "must be between 1 and 10000";
    /// A page of a feed: 1 to `commands::feed::MAX_COUNT`.
    pub const PAGE_COUNT: &str = "must be between 1 and 1000";
    pub const POSITIVE_INTEGER: &str = "must be a positive integer";
    pub const NOT_NEGATIVE: &str = "must not be negative";
    pub const AT_LEAST_ONE: &str = "must be at least 1";
    pub const NOT_ZERO: &str = "must not be 0";
    /// A blocking timeout, as BLPOP words it.
    pub const NEGATIVE: &str = "is negative";
    pub const TOO_LARGE: &str = "is out of range";
    /// A due time DELAY.ADD takes: `logic::jobs::MAX_DUE_MS`.
    pub const DUE_MS: &str = "must be a unix ms between 0 and 9007199254740991";
    /// The time RANK.SEASON computes for: `logic::season::SEASON_AT_LIMIT_MS`.
    pub const SEASON_AT: &str = "must be a unix ms between 0 and 253370764799999 (the end of 9998)";
    /// RANK.QUANTILE's percentile.
    pub const PERCENTILE: &str = "must be between 0 and 100";
}

#[derive(Debug, Clone, PartialEq)]
pub enum ZkitError {
    /// A key holds a different type than the command works on.
    WrongType,
    /// A sorted set holds another zkit family's data.
    WrongFamily(WrongFamily),
    /// Unknown option, repeated option or missing option value.
    Syntax,
    /// Wrong number of arguments for the command (checked by Redis too).
    Arity(&'static str),
    /// A numeric argument outside what the command accepts.
    OutOfRange {
        what: &'static str,
        limit: &'static str,
    },
    /// A rank score could not be built or read.
    Rank(RankError),
    /// A board's columns that cannot be declared, read or written as given.
    Columns(ColumnsError),
    /// A recently-viewed list cannot take a later view.
    Recent(RecentError),
    /// A vote was refused (direction, weights, keys, window).
    Vote(VoteError),
    /// A feed cursor that FEED.PAGE did not write, or could not hand out.
    Cursor(CursorError),
    /// A dead-letter clause that cannot work.
    Delay(DelayError),
    /// A job option that cannot work as given.
    Job(JobError),
    /// A repeating job's rule that cannot work.
    Schedule(ScheduleError),
    /// A step of a stepped RANK.MERGE that cannot run.
    Merge(MergeError),
    /// A call that does not fit its command's grammar.
    Grammar(GrammarError),
    /// An `IDMP` clause that cannot work.
    Idmp(IdmpError),
    /// The server lacks a native command zkit runs or replicates its writes
    /// as (renamed or disabled by `rename-command`); nothing was written.
    CommandUnavailable(&'static str),
    /// A bug or an unexpected server answer: the command changed nothing it
    /// could avoid changing, and the message says what happened.
    Internal(String),
}

impl fmt::Display for ZkitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ZkitError::WrongType => {
                f.write_str("WRONGTYPE Operation against a key holding the wrong kind of value")
            }
            ZkitError::WrongFamily(e) => {
                let because = match e.because {
                    Evidence::TieBreak => "scores with a tie-break fraction",
                    Evidence::SeenKeyHead => "event ids beside their arguments' digests",
                    Evidence::NotRecentUnixMs => "its newest score is no unix ms of this century",
                    Evidence::NotWholeUnixMs => "its scores are not whole unix ms",
                };
                let expected = family_name(e.expected);
                match e.looks_like {
                    Some(family) => write!(
                        f,
                        "WRONGTYPE the key looks like {} ({because}), not {expected}",
                        family_name(family)
                    )?,
                    None => write!(f, "WRONGTYPE the key is not {expected} ({because})")?,
                }
                f.write_str(": nothing was changed")
            }
            ZkitError::Syntax => f.write_str("ERR syntax error"),
            ZkitError::Arity(command) => {
                write!(f, "ERR wrong number of arguments for '{command}' command")
            }
            ZkitError::OutOfRange { what, limit } => write!(f, "ERR {what} {limit}"),
            ZkitError::Rank(e) => match e {
                RankError::TotalOutOfRange => write!(
                    f,
                    "ERR total out of range: rank totals must be integers with |total| < 2^52 ({TOTAL_LIMIT})"
                ),
                RankError::TimeOutsideWindow {
                    at_ms,
                    start_ms,
                    end_ms,
                } => write!(
                    f,
                    "ERR time {at_ms} is outside the tie-break window [{start_ms}, {end_ms}) ms \
                     (see zkit.tiebreak-epoch-ms and zkit.tiebreak-span-ms)"
                ),
                RankError::NotRankScore(score) => write!(
                    f,
                    "ERR the member's score {score} is not a rank score (|score| must be below 2^52)"
                ),
                RankError::RepeatedBoard => {
                    f.write_str("ERR a board is named twice: give each key once")
                }
                // ZCOUNT's words for the same mistake.
                RankError::BoundNotFloat => f.write_str("ERR min or max is not a float"),
                RankError::TotalsKeyIsBoard => {
                    f.write_str("ERR the DENSE totals-key must be another key than the board")
                }
                RankError::DataKeyShared => f.write_str(
                    "ERR the DATA key must be another key than the board and its DENSE totals-key",
                ),
                RankError::MemberDataTooLarge { len, limit } => write!(
                    f,
                    "ERR member data of {len} bytes is more than zkit.member-data-max-bytes ({limit})"
                ),
            },
            ZkitError::Columns(e) => match e {
                ColumnsError::TooMany => write!(f, "ERR a board has at most {MAX_COLUMNS} columns"),
                ColumnsError::BoundOutOfRange => write!(
                    f,
                    "ERR a column's best and worst values must be integers with |value| < 2^52 ({TOTAL_LIMIT})"
                ),
                ColumnsError::TooWide => write!(
                    f,
                    "ERR the columns' ranges hold more than 2^52 ({TOTAL_LIMIT}) combinations: a score cannot hold them"
                ),
                ColumnsError::OtherColumns => f.write_str(
                    "ERR the key holds other columns: boards written with them would read wrong (declare the new columns at a new key)",
                ),
                ColumnsError::NoColumns => {
                    f.write_str("ERR no columns at the COLUMNS key (RANK.COLUMNS declares them)")
                }
                ColumnsError::NotColumns => f.write_str(
                    "ERR the COLUMNS key holds no board's columns (RANK.COLUMNS writes them)",
                ),
                ColumnsError::ValueCount { columns, given } => write!(
                    f,
                    "ERR the board has {columns} columns; the call gives values for {given}"
                ),
                ColumnsError::ValueOutOfRange { column, low, high } => write!(
                    f,
                    "ERR column {column}'s value would be outside its range [{low}, {high}]"
                ),
                ColumnsError::NotColumnsTotal(total) => write!(
                    f,
                    "ERR the member's total {total} packs no tuple of these columns (was it written without COLUMNS?)"
                ),
                ColumnsError::ThenWithoutColumns => f.write_str("ERR THEN needs COLUMNS"),
                ColumnsError::AscWithColumns => f.write_str(
                    "ERR ASC does not apply with COLUMNS: each column's best and worst values set the order",
                ),
                ColumnsError::KeyShared => f.write_str(
                    "ERR the COLUMNS key must be another key than the board, its DENSE totals-key and its DATA key",
                ),
            },
            ZkitError::Recent(RecentError::NoLaterScore(newest)) => write!(
                f,
                "ERR the list's newest score {newest} leaves no room for a later view"
            ),
            ZkitError::Vote(e) => match e {
                VoteError::InvalidWeight => {
                    f.write_str("ERR weights must be finite and not negative")
                }
                VoteError::WeightsTooLarge => {
                    f.write_str("ERR weights too large: up + down must be finite")
                }
                VoteError::SharedKey => f.write_str(
                    "ERR scores, upvoters and downvoters must be three different keys",
                ),
                VoteError::NoPostTime => f.write_str(
                    "ERR the item has no post time in the WINDOW key: voting is closed",
                ),
                VoteError::VotingClosed {
                    posted_at_s,
                    window_s,
                } => write!(
                    f,
                    "ERR voting is closed: the item was posted at {posted_at_s} and the window \
                     of {window_s} seconds has passed"
                ),
                VoteError::VoterInBothSets => {
                    f.write_str("ERR the voter is in both upvoters and downvoters")
                }
            },
            ZkitError::Cursor(e) => match e {
                CursorError::Malformed => f.write_str(
                    "ERR invalid cursor: pass back a top or bottom cursor exactly as FEED.PAGE returned it",
                ),
                CursorError::TooLong {
                    member_len,
                    cursor_len,
                    limit,
                } => write!(
                    f,
                    "ERR the cursor of a member of {member_len} bytes would be {cursor_len} bytes, \
                     more than proto-max-bulk-len ({limit}) lets a client send back"
                ),
            },
            ZkitError::Delay(e) => f.write_str(match e {
                DelayError::DeadLetterWithoutLease => {
                    "ERR DEADLETTER needs LEASE: only leased tasks are delivered again"
                }
                DelayError::TokensWithoutLease => {
                    "ERR WITHTOKENS needs LEASE: only a leased delivery has a token"
                }
                DelayError::SharedDeadLetterKey => {
                    "ERR the dead-letter and deliveries sets must differ from the queue, \
                     the in-flight set and each other"
                }
                DelayError::SharedRateLog => {
                    "ERR the RATE log must differ from the queues and the sets the poll writes"
                }
            }),
            ZkitError::Job(e) => match e {
                JobError::NeedsData(option) => write!(
                    f,
                    "ERR {option} needs DATA: a job's payload and history are kept in the queue's DATA hash"
                ),
                JobError::WorkerWithoutLease => {
                    f.write_str("ERR WORKER needs LEASE: only a leased delivery has a holder")
                }
                JobError::PayloadTooLarge { len, limit } => write!(
                    f,
                    "ERR a payload of {len} bytes is more than zkit.job-payload-max-bytes ({limit})"
                ),
                JobError::SharedDataKey => f.write_str(
                    "ERR the DATA hash must differ from the call's sorted sets: one key cannot hold both",
                ),
            },
            ZkitError::Schedule(e) => match e {
                ScheduleError::BadCron(why) => write!(
                    f,
                    "ERR invalid cron expression ({why}): give five fields, minute hour day-of-month month day-of-week"
                ),
                ScheduleError::NeverMatches => {
                    f.write_str("ERR the cron expression matches no time from START on")
                }
                ScheduleError::UnknownZone(zone) => {
                    write!(f, "ERR unknown time zone '{zone}': give an IANA name such as Europe/Paris")
                }
                ScheduleError::ZoneWithoutCron => {
                    f.write_str("ERR TZ needs CRON: an interval has no time zone")
                }
            },
            ZkitError::Merge(e) => f.write_str(match e {
                MergeError::StagingIsNamed => {
                    "ERR the staging key must differ from destkey and from every source key"
                }
                MergeError::MalformedCursor => {
                    "ERR invalid merge cursor: pass back the cursor RANK.MERGE returned, or 0 to start the merge"
                }
                MergeError::ForeignCursor => {
                    "ERR the cursor belongs to another merge (other destkey, staging key, sources or weights): pass the same arguments, or 0 to start again"
                }
                MergeError::StagingGone => {
                    "ERR the staging key of this merge is gone (deleted or expired): start the merge again with cursor 0"
                }
                MergeError::RunInProgress => {
                    "ERR the staging key is held by an unfinished merge: continue that merge with its latest cursor, or DEL the staging key to abandon it"
                }
                MergeError::RunReplaced => {
                    "ERR this merge no longer holds the staging key: another merge started on it; start again with cursor 0"
                }
                MergeError::StaleCursor => {
                    "ERR an old cursor of this merge: pass the cursor of its latest reply (sending that one again repeats the reply)"
                }
                MergeError::SlotMoving => {
                    "TRYAGAIN the slot of destkey is being migrated and destkey is missing on this node: send the last merge step again"
                }
            }),
            ZkitError::Grammar(e) => match e {
                // Redis's wording.
                GrammarError::NotInteger => {
                    f.write_str("ERR value is not an integer or out of range")
                }
                GrammarError::NotFloat => f.write_str("ERR value is not a valid float"),
                GrammarError::CountTooSmall(count) => ZkitError::OutOfRange {
                    what: count,
                    limit: bound::AT_LEAST_ONE,
                }
                .fmt(f),
                GrammarError::CountTooLarge { count, list } => write!(
                    f,
                    "ERR {count} is larger than the number of {list} arguments that follow"
                ),
                GrammarError::Syntax { mistake, usage } => {
                    f.write_str("ERR syntax error: ")?;
                    match mistake {
                        Mistake::Missing(what) => write!(f, "{what} is missing")?,
                        Mistake::MissingChoice(keywords) => write!(f, "{keywords} is missing")?,
                        Mistake::OptionIncomplete(keyword) => {
                            write!(f, "{keyword} is missing a value")?
                        }
                        Mistake::EmptyList(keyword) => {
                            write!(f, "{keyword} needs at least one value")?
                        }
                        Mistake::Unpaired(group) => {
                            write!(f, "values come in groups of '{group}'")?
                        }
                        Mistake::Repeated(keyword) => write!(f, "{keyword} is given twice")?,
                        Mistake::Exclusive(first, second) => {
                            write!(f, "{first} and {second} exclude each other")?
                        }
                        Mistake::Unexpected(word) => write!(f, "unexpected '{word}'")?,
                    }
                    write!(f, "; usage: {usage}")
                }
            },
            ZkitError::Idmp(e) => f.write_str(match e {
                IdmpError::SeenKeyIsWritten => {
                    "ERR the IDMP seen-key must be a key of its own, not one the command writes"
                }
                IdmpError::RetainWithoutIdmp => {
                    "ERR RETAIN sets how long an IDMP event id is remembered: give IDMP too"
                }
                IdmpError::OtherArguments => {
                    "ERR this IDMP event id was already applied by a call with other arguments \
                     (another command, key, member or amount): nothing was changed"
                }
            }),
            ZkitError::CommandUnavailable(command) => write!(
                f,
                "ERR this command needs {command}, which the server has renamed or disabled (rename-command): nothing was changed"
            ),
            ZkitError::Internal(message) => write!(f, "ERR zkit internal error: {message}"),
        }
    }
}

/// A family's name as refusals word it.
fn family_name(family: Family) -> &'static str {
    match family {
        Family::RankBoard => "a RANK board",
        Family::RateLog => "a RATE log",
        Family::RecentList => "a RECENT list",
        Family::DelayQueue => "a DELAY queue",
        Family::SeenKey => "an IDMP seen-key",
    }
}

impl From<GrammarError> for ZkitError {
    fn from(e: GrammarError) -> ZkitError {
        ZkitError::Grammar(e)
    }
}

impl From<HostError> for ZkitError {
    fn from(e: HostError) -> ZkitError {
        match e {
            HostError::WrongType => ZkitError::WrongType,
            HostError::Arity(command) => ZkitError::Arity(command),
            HostError::CommandUnavailable(command) => ZkitError::CommandUnavailable(command),
            HostError::Panicked { .. } | HostError::Internal(_) => {
                ZkitError::Internal(e.to_string())
            }
        }
    }
}

impl From<WrongFamily> for ZkitError {
    fn from(e: WrongFamily) -> ZkitError {
        ZkitError::WrongFamily(e)
    }
}

impl From<RankError> for ZkitError {
    fn from(e: RankError) -> ZkitError {
        ZkitError::Rank(e)
    }
}

impl From<ColumnsError> for ZkitError {
    fn from(e: ColumnsError) -> ZkitError {
        ZkitError::Columns(e)
    }
}

impl From<RecentError> for ZkitError {
    fn from(e: RecentError) -> ZkitError {
        ZkitError::Recent(e)
    }
}

impl From<VoteError> for ZkitError {
    fn from(e: VoteError) -> ZkitError {
        ZkitError::Vote(e)
    }
}

impl From<JobError> for ZkitError {
    fn from(e: JobError) -> ZkitError {
        ZkitError::Job(e)
    }
}

impl From<ScheduleError> for ZkitError {
    fn from(e: ScheduleError) -> ZkitError {
        ZkitError::Schedule(e)
    }
}

impl From<DelayError> for ZkitError {
    fn from(e: DelayError) -> ZkitError {
        ZkitError::Delay(e)
    }
}

impl From<MergeError> for ZkitError {
    fn from(e: MergeError) -> ZkitError {
        ZkitError::Merge(e)
    }
}

impl From<IdmpError> for ZkitError {
    fn from(e: IdmpError) -> ZkitError {
        ZkitError::Idmp(e)
    }
}

impl From<CursorError> for ZkitError {
    fn from(e: CursorError) -> ZkitError {
        ZkitError::Cursor(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_name_the_limits_the_code_applies() {
        use crate::logic::clock::MAX_DURATION_MS;
        use crate::logic::rate::MAX_LIMIT;
        assert!(bound::DURATION_MS.contains(&format!(" {MAX_DURATION_MS} ms")));
        assert!(bound::DELAY_MS.contains(&format!("0 and {MAX_DURATION_MS} ms")));
        assert!(bound::DURATION_S.contains(&format!(" {} seconds", MAX_DURATION_MS / 1000)));
        assert!(bound::RATE_LIMIT.ends_with(&format!(" {MAX_LIMIT}")));
    }

    #[test]
    fn every_message_is_one_line_after_an_error_code() {
        let errors = [
            ZkitError::WrongType,
            ZkitError::Syntax,
            ZkitError::Arity("rank.gift"),
            ZkitError::Grammar(GrammarError::NotInteger),
            ZkitError::Grammar(GrammarError::NotFloat),
            ZkitError::OutOfRange {
                what: "count",
                limit: "must not be negative",
            },
            ZkitError::Rank(RankError::TotalOutOfRange),
            ZkitError::Rank(RankError::TimeOutsideWindow {
                at_ms: 1,
                start_ms: 2,
                end_ms: 3,
            }),
            ZkitError::Rank(RankError::NotRankScore(f64::INFINITY)),
            ZkitError::Rank(RankError::RepeatedBoard),
            ZkitError::Rank(RankError::BoundNotFloat),
            ZkitError::Rank(RankError::TotalsKeyIsBoard),
            ZkitError::Rank(RankError::DataKeyShared),
            ZkitError::Rank(RankError::MemberDataTooLarge { len: 2, limit: 1 }),
            ZkitError::Columns(ColumnsError::TooMany),
            ZkitError::Columns(ColumnsError::BoundOutOfRange),
            ZkitError::Columns(ColumnsError::TooWide),
            ZkitError::Columns(ColumnsError::OtherColumns),
            ZkitError::Columns(ColumnsError::NoColumns),
            ZkitError::Columns(ColumnsError::NotColumns),
            ZkitError::Columns(ColumnsError::ValueCount {
                columns: 2,
                given: 1,
            }),
            ZkitError::Columns(ColumnsError::ValueOutOfRange {
                column: 1,
                low: 0,
                high: 9,
            }),
            ZkitError::Columns(ColumnsError::NotColumnsTotal(-1)),
            ZkitError::Columns(ColumnsError::ThenWithoutColumns),
            ZkitError::Columns(ColumnsError::AscWithColumns),
            ZkitError::Columns(ColumnsError::KeyShared),
            ZkitError::Recent(RecentError::NoLaterScore(f64::INFINITY)),
            ZkitError::Vote(VoteError::InvalidWeight),
            ZkitError::Vote(VoteError::WeightsTooLarge),
            ZkitError::Vote(VoteError::SharedKey),
            ZkitError::Vote(VoteError::NoPostTime),
            ZkitError::Vote(VoteError::VotingClosed {
                posted_at_s: 1.0,
                window_s: 2,
            }),
            ZkitError::Vote(VoteError::VoterInBothSets),
            ZkitError::Cursor(CursorError::Malformed),
            ZkitError::Cursor(CursorError::TooLong {
                member_len: 1,
                cursor_len: 2,
                limit: 3,
            }),
            ZkitError::Delay(DelayError::DeadLetterWithoutLease),
            ZkitError::Delay(DelayError::TokensWithoutLease),
            ZkitError::Job(JobError::NeedsData("WITHDATA")),
            ZkitError::Job(JobError::WorkerWithoutLease),
            ZkitError::Job(JobError::PayloadTooLarge { len: 2, limit: 1 }),
            ZkitError::Schedule(ScheduleError::BadCron("why".into())),
            ZkitError::Schedule(ScheduleError::NeverMatches),
            ZkitError::Schedule(ScheduleError::UnknownZone("Mars/Olympus".into())),
            ZkitError::Schedule(ScheduleError::ZoneWithoutCron),
            ZkitError::Delay(DelayError::SharedDeadLetterKey),
            ZkitError::Delay(DelayError::SharedRateLog),
            ZkitError::Merge(MergeError::StagingIsNamed),
            ZkitError::Merge(MergeError::MalformedCursor),
            ZkitError::Merge(MergeError::ForeignCursor),
            ZkitError::Merge(MergeError::StagingGone),
            ZkitError::Merge(MergeError::RunInProgress),
            ZkitError::Merge(MergeError::RunReplaced),
            ZkitError::Merge(MergeError::StaleCursor),
            ZkitError::Merge(MergeError::SlotMoving),
            ZkitError::Idmp(IdmpError::SeenKeyIsWritten),
            ZkitError::Idmp(IdmpError::RetainWithoutIdmp),
            ZkitError::Idmp(IdmpError::OtherArguments),
            ZkitError::CommandUnavailable("ZREVRANK"),
            ZkitError::WrongFamily(WrongFamily {
                expected: Family::RateLog,
                looks_like: None,
                because: Evidence::NotRecentUnixMs,
            }),
            ZkitError::Internal("boom".into()),
        ];
        for e in errors {
            let text = e.to_string();
            let code = text.split(' ').next().unwrap();
            assert!(
                code.chars().all(|c| c.is_ascii_uppercase()) && !code.is_empty(),
                "{text}"
            );
            assert!(!text.contains('\n') && !text.contains("  "), "{text}");
        }
    }

    #[test]
    fn a_wrong_family_refusal_names_both_families_and_why() {
        let refusal = |looks_like, because| {
            ZkitError::WrongFamily(WrongFamily {
                expected: Family::RateLog,
                looks_like,
                because,
            })
            .to_string()
        };
        assert_eq!(
            refusal(Some(Family::RankBoard), Evidence::TieBreak),
            "WRONGTYPE the key looks like a RANK board (scores with a tie-break fraction), \
             not a RATE log: nothing was changed"
        );
        assert_eq!(
            refusal(None, Evidence::NotRecentUnixMs),
            "WRONGTYPE the key is not a RATE log (its newest score is no unix ms of this \
             century): nothing was changed"
        );
    }
}
