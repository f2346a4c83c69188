//! Boards ranked by several columns (a match board: kills, then assists,
//! then the lowest time, then first-come). RANK.COLUMNS declares the
//! columns once, in a plain hash; the RANK commands that write or read a
//! member's total take `COLUMNS columns-key` and then give and reply each
//! column's value instead of one total. The board stays a plain board whose
//! total is the columns packed (`logic::columns`), so every rank, page and
//! tie-break works on it unchanged, as does ZRANGE on a server without zkit.
//!
//! A write gives the first column's value where the total stands and the
//! others after `THEN`, last in the call: `RANK.SET board p1 12 COLUMNS
//! cols THEN 3 450`. A gift adds each value to its column; a column that
//! would leave its range refuses the call, it never carries into the
//! column before it.

use super::declaration::Command;
use super::rank_board::Ranks;
use crate::error::ZkitError;
use crate::host::ctx::Ctx;
use crate::host::grammar::Arg;
use crate::host::keyspec::key_flags as kf;
use crate::host::reply::{WriteArray, WriteReply};
use crate::host::reply_shape::ReplyShape as R;
use crate::host::string::{OwnedRStr, RStr};
use crate::logic::columns::{Column, ColumnValues, Columns, ColumnsError};
use crate::{declare_command, request};

use super::tiebreak::tiebreak_clock;

/// `COLUMNS columns-key` on a write or a read: the board's columns.
pub(super) const COLUMNS_ARG: Arg = Arg::key("columns-key", kf::RO | kf::ACCESS)
    .token("COLUMNS")
    .optional()
    .since("0.5.0");
/// `THEN value [value ...]` on a write: the columns after the first, in
/// order. A list that runs to the end of the call, so it comes last.
pub(super) const THEN_ARG: Arg = Arg::integer("value")
    .token("THEN")
    .multiple()
    .optional()
    .since("0.5.0");
/// The history line of a write's `COLUMNS` and `THEN` options.
pub(super) const COLUMNS_WRITE_HISTORY: (&str, &str) = (
    "0.5.0",
    "Added the `COLUMNS` and `THEN` options; with COLUMNS the reply gives the columns' values in place of the total.",
);
/// The history line of a read's `COLUMNS` option.
pub(super) const COLUMNS_READ_HISTORY: (&str, &str) = (
    "0.5.0",
    "Added the `COLUMNS` option; with it the reply gives the columns' values in place of the total.",
);

declare_command! {
    pub static DECLARE: Command = {
        name: "rank.columns",
        handler: declare,
        flags: "write deny-oom fast",
        acl_categories: "write hash fast",
        summary: "Declares a board's columns, most significant first, each by its name and the values that rank best and worst (best above worst: more wins; below: less wins), in a hash that the RANK commands name with COLUMNS. Declaring the same columns again changes nothing; other columns at the key are refused. Returns how many ms one tie-break slot lasts at the highest total (equal columns reached within it rank by member name).",
        complexity: "O(C) with C the number of columns.",
        since: "0.5.0",
        history: &[],
        reply: R::Integer,
        examples: &[
            "RANK.COLUMNS {t}:cols kills 1000 0 time 0 3600000",
        ],
        args: &[
            Arg::key("columns-key", kf::RW | kf::INSERT),
            Arg::block(
                "column",
                &[Arg::string("name"), Arg::integer("best"), Arg::integer("worst")],
            )
            .multiple(),
        ],
    }
}

request! {
    /// RANK.COLUMNS `columns-key name best worst [name best worst ...]`.
    struct Declare<'a> {
        key: &'a RStr = key,
        columns: Vec<(&'a RStr, i64, i64)> = list(|column| (column.string(), column.integer(), column.integer())),
    }
}

/// -> the tie-break slot in ms at the highest total the columns pack to.
fn declare(ctx: &Ctx, args: Declare<'_>) -> Result<i64, ZkitError> {
    let declared = (args.columns.iter())
        .map(|&(name, best, worst)| Column {
            name: name.as_bytes().to_vec(),
            best,
            worst,
        })
        .collect();
    let columns = Columns::new(declared)?;
    let slot_ms = tiebreak_clock().slot_ms(columns.highest_total());
    if let Some(hash) = ctx.open_hash(args.key)? {
        let stored = Columns::from_stored(|field| hash.get_cfield(field));
        return match stored {
            Ok(stored) if stored == columns => Ok(slot_ms),
            Ok(_) => Err(ColumnsError::OtherColumns.into()),
            Err(e) => Err(e.into()),
        };
    }
    let mut hash = ctx.open_hash_mut(args.key)?;
    for (field, value) in columns.stored_fields() {
        hash.set(&field, &OwnedRStr::new(&value))?;
    }
    Ok(slot_ms)
}

/// The columns a call's `COLUMNS columns-key` names, read and checked:
/// `THEN` only with COLUMNS, no `ASC` with it, and a key that is none of
/// the board's others (the board, its index, its data hash). `None`
/// without COLUMNS.
#[inline]
pub(super) fn columns_of(
    ctx: &Ctx,
    columns_key: Option<&RStr>,
    then_given: bool,
    asc: bool,
    board: &RStr,
    ranks: Ranks<'_>,
    data_key: Option<&RStr>,
) -> Result<Option<Columns>, ZkitError> {
    let Some(columns_key) = columns_key else {
        if then_given {
            return Err(ColumnsError::ThenWithoutColumns.into());
        }
        return Ok(None);
    };
    if asc {
        return Err(ColumnsError::AscWithColumns.into());
    }
    let name = columns_key.as_bytes();
    let others = [Some(board), ranks.totals_key(), data_key];
    if others.iter().flatten().any(|key| key.as_bytes() == name) {
        return Err(ColumnsError::KeyShared.into());
    }
    let hash = ctx.open_hash(columns_key)?.ok_or(ColumnsError::NoColumns)?;
    let columns = Columns::from_stored(|field| hash.get_cfield(field))?;
    Ok(Some(columns))
}

/// A write's columns: the columns, and the call's value for each (the
/// total's place, then THEN's).
pub(super) struct ColumnsWrite<'a> {
    pub(super) key: &'a RStr,
    pub(super) columns: Columns,
    pub(super) values: ColumnValues,
}

impl<'a> ColumnsWrite<'a> {
    pub(super) fn of(
        key: Option<&'a RStr>,
        columns: Option<Columns>,
        first: i64,
        then: Option<Vec<i64>>,
    ) -> Option<Box<ColumnsWrite<'a>>> {
        let (key, columns) = (key?, columns?);
        let mut values = vec![first];
        values.extend(then.unwrap_or_default());
        // Boxed: a write without columns, the common one, carries a word.
        Some(Box::new(ColumnsWrite {
            key,
            columns,
            values,
        }))
    }
}

/// A member's value in each column, when the call names the columns
/// (`None` without COLUMNS): refused when the total packs no tuple of them.
pub(super) fn values_of(
    columns: Option<&Columns>,
    total: i64,
) -> Result<Option<ColumnValues>, ColumnsError> {
    columns.map(|columns| columns.unpack(total)).transpose()
}

/// RANK.GIFT's and RANK.SET's `[total, rank]`, with COLUMNS `[total, rank,
/// [value, ...]]`.
pub(super) struct TotalRank {
    pub(super) total: i64,
    /// `None`: a repeated IDMP event whose member has left the board.
    pub(super) rank: Option<i64>,
    pub(super) columns: Option<ColumnValues>,
}

impl TotalRank {
    /// The reply for `total` at `rank`; a member no longer on the board
    /// (no rank) reads total 0 and 0 in every column.
    pub(super) fn of(
        columns: Option<&Columns>,
        total: i64,
        rank: Option<i64>,
    ) -> Result<TotalRank, ColumnsError> {
        let columns = match rank {
            Some(_) => values_of(columns, total)?,
            None => columns.map(|columns| columns.columns().iter().map(|_| 0).collect()),
        };
        Ok(TotalRank {
            total,
            rank,
            columns,
        })
    }
}

impl WriteArray for TotalRank {
    fn write_array(&self, ctx: &Ctx, trailing: usize) {
        ctx.reply_array(2 + usize::from(self.columns.is_some()) + trailing);
        ctx.reply_i64(self.total);
        self.rank.write(ctx);
        if let Some(columns) = &self.columns {
            columns.write(ctx);
        }
    }
}

impl WriteReply for TotalRank {
    fn write(&self, ctx: &Ctx) {
        self.write_array(ctx, 0);
    }
}
