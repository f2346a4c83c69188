//! Exactly-once writes (`IDMP seen-key event-id`): the decisions behind a
//! seen-key, and its format.
//!
//! A write that names an event id applies only if the id is not remembered;
//! applying it remembers the id, and a digest of the call's arguments, until
//! `now + retention`. A later call with the same id and the same arguments
//! is a retry (it changes nothing and says so); with other arguments it is
//! a mistake (another event reusing the id) and is refused. Ids whose
//! expiry has passed are forgotten as the key is written (never by a scan),
//! and a key never holds more than the configured count: past it, the ids
//! closest to expiring are forgotten first.
//!
//! # The seen-key format
//!
//! zkit and its Functions library write it byte for byte alike. A seen-key
//! is a plain sorted set. An event id `id` applied with retention `r` at
//! unix ms `t` expires at `e = t + r` (an integer, below 2^50) and is two
//! members:
//!
//! - `id` itself, scored `e + 0.25`;
//! - `id ++ d`, scored `e + 0.5`, where `d` is the 8-byte digest of
//!   the call's arguments: the first 8 bytes of the SHA-1 of the arguments
//!   written one after the other as netstrings (`<decimal length>:<bytes>,`),
//!   starting with the command's name in lower case; integers in plain
//!   decimal (`-5`, not `-05`), an option not given as the empty string:
//!   - `rank.gift`: key, member, amount, `AT` unix-ms;
//!   - `rank.set`: key, member, total, `AT` unix-ms, `GT` or `LT`;
//!   - `rank.mgift`: the number of keys, each key, member, amount, `AT`
//!     unix-ms;
//!   - `rate.hit`: key, cost (1 when not given), then each limit's window-ms
//!     and limit.
//!
//!   `SHARED` and `RETAIN` shape the reply and the memory, not the event:
//!   they are not digested.
//!
//! The fraction tells the two apart when the key is read in score order;
//! `floor(score)` is the expiry of both. zkit 0.3.0 wrote only `id`, scored
//! `e` (no fraction): such an id is remembered without its arguments, and a
//! call naming it is taken for a retry, as 0.3.0 took it. 0.3.0 reads a
//! 0.3.1 key correctly too: it sees `id` scored after `e`, and the extra
//! members are ids it is never asked about.

use smallvec::SmallVec;

use super::clock::{deadline, MAX_DURATION_MS};

/// How long an applied event id is remembered by default: 24 hours.
pub const DEFAULT_RETAIN_MS: i64 = 24 * 60 * 60 * 1000;

/// The most event ids one seen-key holds by default.
pub const DEFAULT_MAX_IDS: i64 = 1_000_000;

/// The upper bound of the `idmp-max-ids` config.
pub const MAX_IDS_LIMIT: i64 = 1_000_000_000;

/// Whether an event id was applied within its retention.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// Not remembered: the write applies and the id is recorded.
    New,
    /// Remembered, with the same arguments (or, written by 0.3.0, with
    /// unknown ones): the write changes nothing.
    Repeat,
}

/// The fraction of an id member's score: its arguments are remembered too.
const ID_FRACTION: f64 = 0.25;
/// The fraction of an arguments member's score.
const ARGS_FRACTION: f64 = 0.5;

/// The length of an arguments digest.
pub const DIGEST_LEN: usize = 8;

/// A call's arguments, written as the seen-key format digests them (see the
/// module doc): the command's name, then each argument. The text is
/// gathered first (on the stack for a call's usual few arguments) and
/// digested in one pass: SHA-1 fed piece by piece spends as much on its
/// buffering as on the rounds of a short text.
pub struct ArgsDigest(SmallVec<[u8; 256]>);

impl ArgsDigest {
    /// Starts with the command's name, lower case (`rank.gift`).
    pub fn new(command: &str) -> ArgsDigest {
        let mut digest = ArgsDigest(SmallVec::new());
        digest.part(command.as_bytes());
        digest
    }

    /// One argument, as a netstring.
    pub fn part(&mut self, bytes: &[u8]) -> &mut ArgsDigest {
        let text = &mut self.0;
        text.extend_from_slice(itoa::Buffer::new().format(bytes.len()).as_bytes());
        text.push(b':');
        text.extend_from_slice(bytes);
        text.push(b',');
        self
    }

    /// An integer argument, in decimal (so `05` and `5` are one argument).
    pub fn integer(&mut self, n: i64) -> &mut ArgsDigest {
        self.part(itoa::Buffer::new().format(n).as_bytes())
    }

    pub fn finish(&self) -> [u8; DIGEST_LEN] {
        let sha1 = sha1_smol::Sha1::from(&self.0[..]).digest().bytes();
        let mut digest = [0; DIGEST_LEN];
        digest.copy_from_slice(&sha1[..DIGEST_LEN]);
        digest
    }
}

/// The score of an id's own member.
pub fn id_score(expiry: i64) -> f64 {
    expiry as f64 + ID_FRACTION
}

/// The member and score that remember the arguments an id was applied with.
pub fn args_member(event_id: &[u8], digest: &[u8; DIGEST_LEN], expiry: i64) -> (Vec<u8>, f64) {
    let mut member = Vec::with_capacity(event_id.len() + DIGEST_LEN);
    member.extend_from_slice(event_id);
    member.extend_from_slice(digest);
    (member, expiry as f64 + ARGS_FRACTION)
}

/// What a member of a seen-key is, by its score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// An id written by 0.3.0, without its arguments.
    BareId,
    /// An id whose arguments member is beside it.
    Id,
    /// The arguments member of the id it starts with.
    Args,
}

pub fn entry(score: f64) -> Entry {
    let fraction = score - score.floor();
    if fraction == ARGS_FRACTION {
        Entry::Args
    } else if fraction == ID_FRACTION {
        Entry::Id
    } else {
        Entry::BareId
    }
}

/// The id an arguments member remembers the arguments of.
pub fn id_of_args_member(member: &[u8]) -> Option<&[u8]> {
    member.get(..member.len().checked_sub(DIGEST_LEN)?)
}

/// Whether a call is new, a retry, or reuses an id applied with other
/// arguments, from the scores of the id's member and of the member
/// [`args_member`] names for this call's arguments (`None`: absent), at
/// `now_ms`. A member past its expiry counts as absent: it is as good as
/// trimmed.
pub fn seen(id: Option<f64>, args: Option<f64>, now_ms: i64) -> Result<Seen, IdmpError> {
    let live = |score: Option<f64>| score.filter(|s| s.floor() > now_ms as f64);
    match live(id).map(entry) {
        None => Ok(Seen::New),
        Some(Entry::BareId) => Ok(Seen::Repeat),
        Some(Entry::Id) if live(args).is_some() => Ok(Seen::Repeat),
        Some(Entry::Id) => Err(IdmpError::OtherArguments),
        // The id is spelled like another id's arguments member (an id
        // ending in that id's digest): it is not an id of its own.
        Some(Entry::Args) => Ok(Seen::New),
    }
}

impl Seen {
    /// The element a reply gains: 0 = applied now, 1 = already applied.
    pub fn reply_flag(self) -> i64 {
        match self {
            Seen::New => 0,
            Seen::Repeat => 1,
        }
    }
}

/// A refused IDMP clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdmpError {
    /// The seen-key is also a key the command writes its data to.
    SeenKeyIsWritten,
    /// `RETAIN` was given without `IDMP`.
    RetainWithoutIdmp,
    /// The event id was applied by a call with other arguments.
    OtherArguments,
}

/// Expiries stay below this, so that `expiry + 0.25` is exact.
pub(crate) const EXPIRY_LIMIT: i64 = 1 << 50;

/// When an id applied at `now_ms` and kept `retain_ms` expires
/// (`1..=MAX_DURATION_MS`, checked by the caller); `None` past
/// [`EXPIRY_LIMIT`] (the year 37648), where the scores of the format would
/// not be exact.
pub fn expiry(now_ms: i64, retain_ms: i64) -> Option<i64> {
    deadline(now_ms, retain_ms).filter(|&at| at < EXPIRY_LIMIT)
}

/// Whether `retain_ms` is a retention a call may ask for.
pub fn valid_retention(retain_ms: i64) -> bool {
    (1..=MAX_DURATION_MS).contains(&retain_ms)
}

/// The score at or below which members are forgotten when the key is
/// written: those of ids that expired before now (an id expiring now is
/// already forgotten by [`seen`], and trimmed a millisecond later).
pub fn trim_cutoff(now_ms: i64) -> i64 {
    now_ms
}

/// How many members to forget, closest to expiring first, so a key holding
/// `len` members (the new id's included) keeps at most `max_ids` ids of two
/// members each. The new id is never among them while `max_ids >= 1`.
pub fn excess(len: usize, max_ids: usize) -> usize {
    len.saturating_sub(max_ids.max(1).saturating_mul(2))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const NOW: i64 = 1_718_000_000_000;

    const DIGEST: [u8; DIGEST_LEN] = *b"\x01\x02\x03\x04\x05\x06\x07\x08";

    #[test]
    fn an_id_repeats_before_its_expiry_with_its_own_arguments_only() {
        let (_, args) = args_member(b"e1", &DIGEST, NOW + 1);
        let id = Some(id_score(NOW + 1));
        assert_eq!(seen(None, None, NOW), Ok(Seen::New));
        assert_eq!(seen(id, Some(args), NOW), Ok(Seen::Repeat));
        assert_eq!(seen(id, None, NOW), Err(IdmpError::OtherArguments));
        // At its expiry the id is forgotten, as the trim forgets it.
        let expired = Some(id_score(NOW));
        assert_eq!(seen(expired, Some(args), NOW + 1), Ok(Seen::New));
        assert_eq!(seen(expired, None, NOW), Ok(Seen::New));
        // An arguments member left from an earlier, expired application
        // does not vouch for a later one.
        let stale = args_member(b"e1", &DIGEST, NOW).1;
        assert_eq!(seen(id, Some(stale), NOW), Err(IdmpError::OtherArguments));
        // Trimmed: the members of ids that expired before now.
        assert!(id_score(NOW - 1) <= trim_cutoff(NOW) as f64);
        assert!(args_member(b"e1", &DIGEST, NOW - 1).1 <= trim_cutoff(NOW) as f64);
        assert!(id_score(NOW + 1) > trim_cutoff(NOW) as f64);
        assert_eq!(Seen::New.reply_flag(), 0);
        assert_eq!(Seen::Repeat.reply_flag(), 1);
    }

    #[test]
    fn ids_written_by_0_3_0_repeat_whatever_the_arguments() {
        let bare = (NOW + 1) as f64;
        assert_eq!(entry(bare), Entry::BareId);
        assert_eq!(seen(Some(bare), None, NOW), Ok(Seen::Repeat));
        assert_eq!(seen(Some(NOW as f64), None, NOW), Ok(Seen::New));
    }

    #[test]
    fn the_format_tells_its_members_apart() {
        let (member, score) = args_member(b"pay-1", &DIGEST, NOW);
        assert_eq!(member, b"pay-1\x01\x02\x03\x04\x05\x06\x07\x08");
        assert_eq!(score, NOW as f64 + 0.5);
        assert_eq!(entry(score), Entry::Args);
        assert_eq!(id_of_args_member(&member), Some(&b"pay-1"[..]));
        assert_eq!(id_of_args_member(b"short"), None);
        assert_eq!(id_score(NOW), NOW as f64 + 0.25);
        assert_eq!(entry(id_score(NOW)), Entry::Id);
        // Exact up to the limit of expiries.
        let last = EXPIRY_LIMIT - 1;
        assert_eq!(entry(id_score(last)), Entry::Id);
        assert_eq!(entry(args_member(b"x", &DIGEST, last).1), Entry::Args);
        assert_eq!(expiry(EXPIRY_LIMIT - 2, 1), Some(last));
        assert_eq!(expiry(EXPIRY_LIMIT - 1, 1), None);
        // An id spelled like another id's arguments member is an id of its
        // own, never taken for that id's arguments.
        assert_eq!(seen(Some(score + 1.0), None, NOW), Ok(Seen::New));
    }

    #[test]
    fn the_digest_is_sha1_of_netstrings() {
        // The Functions library computes the same with redis.sha1hex over
        // the same text.
        let mut digest = ArgsDigest::new("rank.gift");
        digest.part(b"b").part(b"alice").integer(10);
        let expected = sha1_smol::Sha1::from("9:rank.gift,1:b,5:alice,2:10,").digest();
        assert_eq!(digest.finish(), expected.bytes()[..DIGEST_LEN]);
        // Netstrings: the same bytes split otherwise digest otherwise.
        let mut split = ArgsDigest::new("rank.gift");
        split.part(b"ba").part(b"lice").integer(10);
        assert_ne!(split.finish(), digest.finish());
        // Arguments longer than the text's room on the stack digest alike.
        let long = vec![b'x'; 300];
        let mut digest = ArgsDigest::new("rate.hit");
        digest.part(&long).integer(-5);
        let text = [&b"8:rate.hit,300:"[..], &long, b",2:-5,"].concat();
        let expected = sha1_smol::Sha1::from(text).digest();
        assert_eq!(digest.finish(), expected.bytes()[..DIGEST_LEN]);
    }

    #[test]
    fn retention_is_bounded_like_every_duration() {
        assert!(valid_retention(1));
        assert!(valid_retention(DEFAULT_RETAIN_MS));
        assert!(valid_retention(MAX_DURATION_MS));
        assert!(!valid_retention(0));
        assert!(!valid_retention(-1));
        assert!(!valid_retention(MAX_DURATION_MS + 1));
        assert_eq!(
            expiry(NOW, DEFAULT_RETAIN_MS),
            Some(NOW + 86_400_000),
            "24 hours"
        );
        assert_eq!(expiry(1 << 53, 1), None);
    }

    #[test]
    fn the_count_bound_forgets_the_oldest_but_never_the_new_id() {
        // Two members an id.
        assert_eq!(excess(6, 5), 0);
        assert_eq!(excess(10, 5), 0);
        assert_eq!(excess(12, 5), 2);
        assert_eq!(excess(10, 1), 8);
        // A bound of 0 would forget the id just applied: it keeps one.
        assert_eq!(excess(4, 0), 2);
    }

    proptest! {
        #[test]
        fn a_recorded_id_repeats_for_exactly_its_retention(
            retain in 1..=MAX_DURATION_MS,
            later in 0..=MAX_DURATION_MS,
        ) {
            let at = expiry(NOW, retain).unwrap();
            let (_, args) = args_member(b"e", &DIGEST, at);
            let verdict = seen(Some(id_score(at)), Some(args), NOW + later);
            prop_assert_eq!(verdict == Ok(Seen::Repeat), later < retain);
            // Whatever the trim removes is no longer a repeat.
            if id_score(at) <= trim_cutoff(NOW + later) as f64 {
                prop_assert_eq!(verdict, Ok(Seen::New));
            }
        }

        #[test]
        fn excess_keeps_the_bound(len in 0usize..10_000, max in 0usize..10_000) {
            let kept = len - excess(len, max);
            prop_assert!(kept <= 2 * max.max(1));
            prop_assert!(kept == len || kept == 2 * max.max(1));
        }
    }
}
