//! A board's member data: what a reader shows beside a rank (a player's
//! name, avatar and country on a game board), kept in a plain hash beside
//! the board, `DATA data-key`, one field per member named by the member and
//! holding its data as given. RANK.GIFT and RANK.SET write it in the same
//! call as the score (`DATA data-key data`), the reads that name the hash
//! return it as each entry's last element (nil for a member without data),
//! RANK.REMOVE removes it with the member, and a write's `TTL` expires it
//! with the board. Any client reads it with HGET, also on a server without
//! zkit.

use super::config::NumericConfig;
use super::rank_board::Ranks;
use crate::error::ZkitError;
use crate::host::ctx::Ctx;
use crate::host::grammar::Arg;
use crate::host::hash::Hash;
use crate::host::keyspec::key_flags as kf;
use crate::host::string::{OwnedRStr, RStr};
use crate::logic::rank::RankError;

/// `zkit.member-data-max-bytes`: the longest data a write takes.
pub static MEMBER_DATA_MAX_BYTES: NumericConfig = NumericConfig::new(
    "member-data-max-bytes",
    DEFAULT_MEMBER_DATA_MAX_BYTES,
    1,
    512 << 20,
);
/// 4 KiB: a profile's name, avatar address and a few fields with room to
/// spare; every page read copies each row's data into its reply.
const DEFAULT_MEMBER_DATA_MAX_BYTES: i64 = 4 << 10;

/// `DATA data-key data` on a write: the member's data, set with its score.
pub(super) const DATA_WRITE: Arg = Arg::block(
    "data",
    &[
        Arg::key("data-key", kf::RW | kf::UPDATE),
        Arg::string("data"),
    ],
)
.token("DATA")
.optional()
.since("0.5.0");
/// `DATA data-key` on a read: each entry's data, last.
pub(super) const DATA_READ: Arg = Arg::key("data-key", kf::RO | kf::ACCESS)
    .token("DATA")
    .optional()
    .since("0.5.0");
/// `DATA data-key` on RANK.REMOVE: the removed members' data goes too.
pub(super) const DATA_REMOVE: Arg = Arg::key("data-key", kf::RW | kf::DELETE)
    .token("DATA")
    .optional();
/// The history line of the `DATA` option.
pub(super) const DATA_HISTORY: (&str, &str) = ("0.5.0", "Added the `DATA` option.");

/// Refuses a data hash that is the board or its totals index: one key
/// cannot be both, and the call would fail after its first write.
pub(super) fn check_data_key(
    data_key: &RStr,
    board: &RStr,
    ranks: Ranks<'_>,
) -> Result<(), ZkitError> {
    let data_key = data_key.as_bytes();
    let index = ranks.totals_key().map(RStr::as_bytes);
    if data_key == board.as_bytes() || index == Some(data_key) {
        return Err(RankError::DataKeyShared.into());
    }
    Ok(())
}

/// A write's `DATA data-key data`, checked: another key than the board and
/// its index, and data within `zkit.member-data-max-bytes`.
#[derive(Clone, Copy)]
pub(super) struct MemberData<'a> {
    pub(super) key: &'a RStr,
    pub(super) data: &'a RStr,
}

impl<'a> MemberData<'a> {
    pub(super) fn checked(
        given: Option<(&'a RStr, &'a RStr)>,
        board: &RStr,
        ranks: Ranks<'_>,
    ) -> Result<Option<MemberData<'a>>, ZkitError> {
        let Some((key, data)) = given else {
            return Ok(None);
        };
        check_data_key(key, board, ranks)?;
        let (len, limit) = (data.as_bytes().len(), MEMBER_DATA_MAX_BYTES.get());
        if len as i64 > limit {
            return Err(RankError::MemberDataTooLarge { len, limit }.into());
        }
        Ok(Some(MemberData { key, data }))
    }
}

/// A read's `DATA data-key`, checked against the board and its index.
pub(super) fn checked_data_key<'a>(
    data_key: Option<&'a RStr>,
    board: &RStr,
    ranks: Ranks<'_>,
) -> Result<Option<&'a RStr>, ZkitError> {
    if let Some(data_key) = data_key {
        check_data_key(data_key, board, ranks)?;
    }
    Ok(data_key)
}

/// A read's data hash, open (or absent: every member reads nil).
pub(super) struct DataReader<'c> {
    hash: Option<Hash<'c>>,
}

impl<'c> DataReader<'c> {
    /// Opens the hash a checked `DATA data-key` names, when the call names
    /// one; refuses a key of another type.
    pub(super) fn open(
        ctx: &'c Ctx,
        data_key: Option<&RStr>,
    ) -> Result<Option<DataReader<'c>>, ZkitError> {
        let Some(data_key) = data_key else {
            return Ok(None);
        };
        Ok(Some(DataReader {
            hash: ctx.open_hash(data_key)?,
        }))
    }

    /// A member's data, or `None`.
    pub(super) fn get(&self, member: &RStr) -> Option<OwnedRStr> {
        self.hash.as_ref().and_then(|hash| hash.get_str(member))
    }
}
