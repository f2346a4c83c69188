//! RANK: leaderboards where equal totals rank first-come (a live-stream gift
//! board: more coins rank higher, and whoever reached an amount first ranks
//! higher among equals).
//!
//! A board is a plain sorted set whose scores are rank scores
//! (`logic::rank`): `floor(score)` is the member's total, the fraction orders
//! equal totals by when they were reached. Writes use the low-level key API
//! and replicate `ZADD` with the exact score. The low-level API has no rank
//! access, so a rank comes from `ZREVRANK` through RM_Call (O(log N)), but
//! on a board small enough to count the members above by walking
//! (`FIRST_COME_WALK_AT_MOST`, `SHARED_WALK_AT_MOST`: `rank_board.rs`, with
//! the boards' key specs; the whole-board reads are in `rank_stats.rs`,
//! RANK.RANGE in `rank_range.rs`). A
//! page is read from the key, walking down from the top or from a member
//! known to be on it, found by its score; only a deep page without one asks
//! `ZRANGE` for its first member (`rank_page.rs`). With `ASC` the lowest
//! total ranks first: ZRANK and ZRANGE's order, the same walks the other
//! way.
//!
//! With `SHARED`, replies carry competition ranks instead (equal totals share
//! a rank: 1 + the members whose total is strictly higher). Since
//! `floor(score)` is the total, those members are exactly the ones scored at
//! `total + 1` or more: one `ZCOUNT`, O(log N) on a skiplist (two rank
//! lookups) however long the run of ties, where walking the key API would
//! cost a step per member above (so only small boards and pages near the
//! top walk).

use super::args::{non_negative, ttl_deadline};
use super::declaration::{Command, WordList};
use super::idmp::{self, OnceWrite, Outcome, IDMP_ARG, RETAIN_ARG};
use super::layout::{self, Layout, Use};
use super::rank_board::{
    keep_totals, rank_native, rank_of, rank_of_member, ranks_choices, RankWalk, Ranks, ASC_ARG,
    ASC_FROM_START, ASC_HISTORY, BOARD_READ, BOARD_WRITE, BOARD_WRITE_FLAGS, DENSE_HISTORY,
    RANKS_READ, RANKS_WRITE, RANKS_WRITE_EACH,
};
use super::rank_columns::{
    self, columns_of, values_of, ColumnsWrite, TotalRank, COLUMNS_ARG, COLUMNS_READ_HISTORY,
    COLUMNS_WRITE_HISTORY, THEN_ARG,
};
use super::rank_data::{
    checked_data_key, DataReader, MemberData, DATA_HISTORY, DATA_READ, DATA_WRITE,
};
use super::rank_dense;
use super::rank_merge;
use super::rank_page::{rank_range, Page, PageRanks};
use super::rank_range;
use super::rank_season;
use super::rank_stats;
use super::reply_types::{
    COLUMNS_RANK_ENTRY, COLUMNS_RANK_INFO, RANK_ENTRY, RANK_INFO, TOTAL_RANK,
};
use super::tiebreak::tiebreak_clock;
use crate::error::ZkitError;
use crate::host::ctx::Ctx;
use crate::host::grammar::{Arg, Request};
use crate::host::hash::Hash;
use crate::host::reply::WriteReply;
use crate::host::reply_shape::ReplyShape as R;
use crate::host::string::{OwnedRStr, RStr};
use crate::host::zset::Zset;
use crate::logic::columns::{ColumnValues, Columns};
use crate::logic::idmp::{ArgsDigest, DIGEST_LEN};
use crate::logic::rank::{
    board_order, check_distinct_boards, dense_ranks, next_total, shared_ranks, Order, SetCondition,
    TieBreakClock, TotalUpdate,
};
use crate::{declare_command, request};
use smallvec::SmallVec;

/// RANK.COLUMNS first: its example declares the columns the other
/// commands' examples name.
pub static COMMANDS: &[&Command] = &[
    &rank_columns::DECLARE,
    &GIFT,
    &SET,
    &GET,
    &TOP,
    &AROUND,
    &rank_merge::MERGE,
    &MGIFT,
    &MGET,
    &rank_stats::STATS,
    &rank_stats::PERCENTILE,
    &rank_stats::QUANTILE,
    &rank_stats::COUNT,
    &rank_range::RANGE,
    &AMONG,
    &rank_dense::REMOVE,
    &rank_dense::REINDEX,
    &rank_season::SEASON_KEYS,
];

/// What RANK.GIFT and RANK.SET reply: `[total, rank]`, with COLUMNS
/// `[total, rank, [value, ...]]`, and with IDMP the flag last.
const WRITE_REPLY: R = R::Idmp(&R::Tuple(&TOTAL_RANK));

/// What RANK.TOP, RANK.AROUND and RANK.AMONG reply: rows of `[rank,
/// member, total]`, with COLUMNS `[rank, member, total, [value, ...]]`.
const PAGE_REPLY: R = R::ByOption {
    token: "COLUMNS",
    with: &R::ArrayOf(&R::Tuple(&COLUMNS_RANK_ENTRY)),
    without: &R::ArrayOf(&R::Tuple(&RANK_ENTRY)),
};

/// A write's `TTL seconds`: the board expires that long after this write
/// (each write sets it again, as RECENT.ADD's TTL), so a season's board
/// stays readable for its retention after its last write.
const TTL_ARG: Arg = Arg::integer("seconds")
    .token("TTL")
    .optional()
    .since("0.5.0");
const TTL_HISTORY: (&str, &str) = ("0.5.0", "Added the `TTL` option.");

declare_command! {
    pub static GIFT: Command = {
        name: "rank.gift",
        handler: idmp::once(gift),
        flags: "write deny-oom fast",
        acl_categories: "write sortedset hash fast",
        summary: "Adds an amount to a member's total and returns the new total and rank; equal totals rank first-come (with SHARED, equal totals share a rank; with DENSE, they share one and the next total ranks one lower); with DATA, sets the member's data too.",
        complexity: "O(log(N)) with N the number of members in the board.",
        since: "0.1.0",
        history: &[
            ("0.2.0", "Added the `SHARED` option."),
            ("0.3.0", "Added the `IDMP` and `RETAIN` options; with IDMP the reply gains a last element, 1 when the event was already applied."),
            TTL_HISTORY,
            DENSE_HISTORY,
            DATA_HISTORY,
            ASC_HISTORY,
            COLUMNS_WRITE_HISTORY,
        ],
        reply: WRITE_REPLY,
        examples: &[
            "RANK.GIFT {t}:board m 1 AT 1718000000000 SHARED TTL 86400 IDMP {t}:seen gift-1 RETAIN 86400000",
            "RANK.GIFT {t}:board m 1 DENSE {t}:totals",
            "RANK.GIFT {t}:board m 1 DATA {t}:profiles Ann",
            "RANK.GIFT {t}:board m 1 ASC",
            "RANK.GIFT {t}:board m 1 COLUMNS {t}:cols THEN 0",
        ],
        args: &[
            BOARD_WRITE,
            Arg::string("member"),
            Arg::integer("amount"),
            Arg::unix_time("unix-ms").token("AT").optional(),
            RANKS_WRITE,
            TTL_ARG,
            DATA_WRITE,
            IDMP_ARG,
            RETAIN_ARG,
            ASC_ARG,
            COLUMNS_ARG,
            THEN_ARG,
        ],
    }
}

declare_command! {
    pub static SET: Command = {
        name: "rank.set",
        handler: idmp::once(set),
        flags: "write deny-oom fast",
        acl_categories: "write sortedset hash fast",
        summary:
            "Sets a member's total (with GT only a higher one, with LT only a lower one) and returns the total that stands with the member's rank; equal totals rank first-come (with SHARED, equal totals share a rank; with DENSE, they share one and the next total ranks one lower); with DATA, sets the member's data too.",
        complexity: "O(log(N)) with N the number of members in the board.",
        since: "0.1.0",
        history: &[
            ("0.2.0", "Added the `GT`, `LT` and `SHARED` options."),
            ("0.3.0", "Added the `IDMP` and `RETAIN` options; with IDMP the reply gains a last element, 1 when the event was already applied."),
            TTL_HISTORY,
            DENSE_HISTORY,
            DATA_HISTORY,
            ASC_HISTORY,
            COLUMNS_WRITE_HISTORY,
        ],
        reply: WRITE_REPLY,
        examples: &[
            "RANK.SET {t}:board m 1 AT 1718000000000 SHARED TTL 86400 IDMP {t}:seen set-1 RETAIN 86400000",
            "RANK.SET {t}:board m 2 GT",
            "RANK.SET {t}:board m 1 LT",
            "RANK.SET {t}:board m 1 DENSE {t}:totals",
            "RANK.SET {t}:board m 1 DATA {t}:profiles Ann",
            "RANK.SET {t}:board m 61250 LT ASC",
            "RANK.SET {t}:board m 12 GT COLUMNS {t}:cols THEN 450",
        ],
        args: &[
            BOARD_WRITE,
            Arg::string("member"),
            Arg::integer("total"),
            Arg::unix_time("unix-ms").token("AT").optional(),
            Arg::one_of(
                "condition",
                &[Arg::pure_token("gt", "GT"), Arg::pure_token("lt", "LT")],
            )
            .optional()
            .since("0.2.0"),
            RANKS_WRITE,
            TTL_ARG,
            DATA_WRITE,
            IDMP_ARG,
            RETAIN_ARG,
            ASC_ARG,
            COLUMNS_ARG,
            THEN_ARG,
        ],
    }
}

declare_command! {
    pub static GET: Command = {
        name: "rank.get",
        handler: get,
        flags: "readonly fast",
        acl_categories: "read sortedset hash fast",
        summary: "Returns a member's total, rank and the time it reached its total (with DATA, and its member data), or nil.",
        complexity: "O(log(N)) with N the number of members in the board.",
        since: "0.1.0",
        history: &[
            ("0.2.0", "Added the `SHARED` option."),
            DENSE_HISTORY,
            DATA_HISTORY,
            ASC_HISTORY,
            COLUMNS_READ_HISTORY,
        ],
        reply: R::ByOption {
            token: "COLUMNS",
            with: &R::OrNil(&R::Tuple(&COLUMNS_RANK_INFO)),
            without: &R::OrNil(&R::Tuple(&RANK_INFO)),
        },
        examples: &[
            "RANK.GET {t}:board m SHARED",
            "RANK.GET {t}:board m DENSE {t}:totals",
            "RANK.GET {t}:board m DATA {t}:profiles",
            "RANK.GET {t}:board m ASC",
            "RANK.GET {t}:board m COLUMNS {t}:cols",
        ],
        args: &[
            BOARD_READ,
            Arg::string("member"),
            RANKS_READ,
            DATA_READ,
            ASC_ARG,
            COLUMNS_ARG,
        ],
    }
}

declare_command! {
    pub static TOP: Command = {
        name: "rank.top",
        handler: top,
        flags: "readonly",
        acl_categories: "read sortedset hash slow",
        summary: "Returns a page of the board from the highest total down (with ASC, from the lowest up): rank, member, total (with DATA, and the member's data).",
        complexity: "O(log(N)+M) with N the number of members in the board and M the count.",
        since: "0.1.0",
        history: &[
            ("0.2.0", "Added the `SHARED` option."),
            DENSE_HISTORY,
            DATA_HISTORY,
            ASC_HISTORY,
            COLUMNS_READ_HISTORY,
        ],
        reply: PAGE_REPLY,
        examples: &[
            "RANK.TOP {t}:board 10 OFFSET 0 SHARED",
            "RANK.TOP {t}:board 10 DENSE {t}:totals",
            "RANK.TOP {t}:board 10 DATA {t}:profiles",
            "RANK.TOP {t}:board 10 ASC",
            "RANK.TOP {t}:board 10 COLUMNS {t}:cols",
        ],
        args: &[
            BOARD_READ,
            Arg::integer("count"),
            Arg::integer("offset").token("OFFSET").optional(),
            RANKS_READ,
            DATA_READ,
            ASC_ARG,
            COLUMNS_ARG,
        ],
    }
}

declare_command! {
    pub static AROUND: Command = {
        name: "rank.around",
        handler: around,
        flags: "readonly",
        acl_categories: "read sortedset hash slow",
        summary: "Returns the member and up to radius entries above and below it: rank, member, total (with DATA, and the member's data).",
        complexity: "O(log(N)+M) with N the number of members in the board and M the radius.",
        since: "0.1.0",
        history: &[
            ("0.2.0", "Added the `SHARED` option."),
            DENSE_HISTORY,
            DATA_HISTORY,
            ASC_HISTORY,
            COLUMNS_READ_HISTORY,
        ],
        reply: PAGE_REPLY,
        examples: &[
            "RANK.AROUND {t}:board m 1 SHARED",
            "RANK.AROUND {t}:board m 1 DENSE {t}:totals",
            "RANK.AROUND {t}:board m 1 DATA {t}:profiles",
            "RANK.AROUND {t}:board m 1 ASC",
            "RANK.AROUND {t}:board m 1 COLUMNS {t}:cols",
        ],
        args: &[
            BOARD_READ,
            Arg::string("member"),
            Arg::integer("radius"),
            RANKS_READ,
            DATA_READ,
            ASC_ARG,
            COLUMNS_ARG,
        ],
    }
}

declare_command! {
    pub static MGIFT: Command = {
        name: "rank.mgift",
        handler: idmp::once(mgift),
        flags: "write deny-oom",
        acl_categories: "write sortedset slow",
        summary: "Adds an amount to a member's total on several boards at once (each first-come on its own) and returns [total, rank] per board, in key order; with DENSE, each board's dense rank, counted in its own totals index (one per board, in key order), which the write keeps.",
        complexity: "O(K*log(N)) with K the number of boards and N the members of the largest.",
        since: "0.2.0",
        history: &[
            ("0.3.0", "Added the `IDMP` and `RETAIN` options; with IDMP the reply gains a last element, 1 when the event was already applied."),
            TTL_HISTORY,
            DENSE_HISTORY,
            ASC_HISTORY,
        ],
        reply: R::Idmp(&R::ArrayOf(&R::Tuple(&TOTAL_RANK))),
        examples: &[
            "RANK.MGIFT 2 {t}:board {t}:week m 1 AT 1718000000000 SHARED TTL 86400 IDMP {t}:seen mgift-1 RETAIN 86400000",
            "RANK.MGIFT 2 {t}:board {t}:week m 1 DENSE {t}:board:totals {t}:week:totals",
            "RANK.MGIFT 2 {t}:board {t}:week m 1 ASC",
        ],
        args: &[
            Arg::count("numkeys"),
            Arg::key("key", BOARD_WRITE_FLAGS).counted_by("numkeys"),
            Arg::string("member"),
            Arg::integer("amount"),
            Arg::unix_time("unix-ms").token("AT").optional(),
            RANKS_WRITE_EACH,
            TTL_ARG,
            IDMP_ARG,
            RETAIN_ARG,
            ASC_ARG,
        ],
    }
}

declare_command! {
    pub static MGET: Command = {
        name: "rank.mget",
        handler: mget,
        flags: "readonly fast",
        acl_categories: "read sortedset hash fast",
        summary: "Returns what RANK.GET returns for each member, in order: [total, rank, reached-at-ms] (with DATA, and the member's data) or nil.",
        complexity: "O(M*log(N)) with M the members asked for and N the members of the board.",
        since: "0.2.0",
        history: &[
            ("0.3.0", "The members follow `MEMBERS`, after `SHARED`, so a member is never read as the option."),
            DENSE_HISTORY,
            DATA_HISTORY,
            ASC_HISTORY,
            COLUMNS_READ_HISTORY,
        ],
        reply: R::ByOption {
            token: "COLUMNS",
            with: &R::ArrayOf(&R::OrNil(&R::Tuple(&COLUMNS_RANK_INFO))),
            without: &R::ArrayOf(&R::OrNil(&R::Tuple(&RANK_INFO))),
        },
        examples: &[
            "RANK.MGET {t}:board SHARED MEMBERS m n",
            "RANK.MGET {t}:board DENSE {t}:totals MEMBERS m n",
            "RANK.MGET {t}:board DATA {t}:profiles MEMBERS m n",
            "RANK.MGET {t}:board ASC MEMBERS m n",
            "RANK.MGET {t}:board COLUMNS {t}:cols MEMBERS m n",
        ],
        args: &[
            BOARD_READ,
            RANKS_READ,
            DATA_READ,
            ASC_ARG,
            COLUMNS_ARG,
            Arg::string("member").token("MEMBERS").multiple(),
        ],
    }
}

request! {
    /// RANK.GIFT `key member amount [AT unix-ms] [SHARED | DENSE
    /// totals-key] [TTL seconds] [DATA data-key data] [ASC] [COLUMNS
    /// columns-key] [THEN value [value ...]]`, and IDMP.
    struct Gift<'a> {
        key: &'a RStr = key,
        member: &'a RStr = string,
        amount: i64 = integer,
        at_ms: Option<i64> = option(Request::integer),
        ranks: Option<Ranks<'a>> = one_of(&ranks_choices()),
        ttl_seconds: Option<i64> = option(Request::integer),
        data: Option<(&'a RStr, &'a RStr)> = option(|data| (data.key(), data.string())),
        asc: bool = flag,
        columns_key: Option<&'a RStr> = option(Request::key),
        then: Option<Vec<i64>> = option(|then| then.list(Request::integer)),
    }
}

fn gift<'a>(ctx: &Ctx, args: Gift<'a>) -> Result<TotalWrite<'a>, ZkitError> {
    let options = WriteOptions {
        at_ms: args.at_ms,
        ranks: args.ranks,
        ttl_seconds: args.ttl_seconds,
        data: args.data,
        asc: args.asc,
        columns_key: args.columns_key,
        then: args.then,
    };
    let update = TotalUpdate::Add(args.amount);
    TotalWrite::checked(ctx, args.key, args.member, update, args.amount, options)
}

request! {
    /// RANK.SET `key member total [AT unix-ms] [GT|LT] [SHARED | DENSE
    /// totals-key] [TTL seconds] [DATA data-key data] [ASC] [COLUMNS
    /// columns-key] [THEN value [value ...]]`, and IDMP.
    struct SetTotal<'a> {
        key: &'a RStr = key,
        member: &'a RStr = string,
        total: i64 = integer,
        at_ms: Option<i64> = option(Request::integer),
        condition: Option<SetCondition> = one_of(&[|_| SetCondition::Higher, |_| SetCondition::Lower]),
        ranks: Option<Ranks<'a>> = one_of(&ranks_choices()),
        ttl_seconds: Option<i64> = option(Request::integer),
        data: Option<(&'a RStr, &'a RStr)> = option(|data| (data.key(), data.string())),
        asc: bool = flag,
        columns_key: Option<&'a RStr> = option(Request::key),
        then: Option<Vec<i64>> = option(|then| then.list(Request::integer)),
    }
}

fn set<'a>(ctx: &Ctx, args: SetTotal<'a>) -> Result<TotalWrite<'a>, ZkitError> {
    let options = WriteOptions {
        at_ms: args.at_ms,
        ranks: args.ranks,
        ttl_seconds: args.ttl_seconds,
        data: args.data,
        asc: args.asc,
        columns_key: args.columns_key,
        then: args.then,
    };
    let condition = args.condition.unwrap_or(SetCondition::Always);
    let update = TotalUpdate::Set(args.total, condition);
    TotalWrite::checked(ctx, args.key, args.member, update, args.total, options)
}

/// The options RANK.GIFT and RANK.SET share, as given.
struct WriteOptions<'a> {
    at_ms: Option<i64>,
    ranks: Option<Ranks<'a>>,
    ttl_seconds: Option<i64>,
    data: Option<(&'a RStr, &'a RStr)>,
    asc: bool,
    columns_key: Option<&'a RStr>,
    then: Option<Vec<i64>>,
}

/// `AT unix-ms` as an IDMP digest takes it: the decimal time, or nothing
/// when the call gives none (the server's clock then decides).
fn at_text(at_ms: Option<i64>) -> Vec<u8> {
    at_ms.map_or_else(Vec::new, |ms| {
        itoa::Buffer::new().format(ms).as_bytes().to_vec()
    })
}

/// What every board write of one call shares, checked: when the totals
/// were reached, the ranks to reply (with DENSE, the index kept), the
/// boards' expiry and order.
#[derive(Clone, Copy)]
struct WriteTerms<'a> {
    /// When the total was reached (default: the server's now).
    at_ms: Option<i64>,
    ranks: Ranks<'a>,
    /// With `TTL seconds`: the seconds, and when each board written expires.
    ttl: Option<(i64, i64)>,
    order: Order,
}

impl<'a> WriteTerms<'a> {
    fn checked(
        ctx: &Ctx,
        at_ms: Option<i64>,
        ranks: Ranks<'a>,
        ttl_seconds: Option<i64>,
        order: Order,
    ) -> Result<WriteTerms<'a>, ZkitError> {
        ctx.require(&[ranks.native(order)])?;
        let ttl = ttl_seconds
            .map(|seconds| Ok::<_, ZkitError>((seconds, ttl_deadline(ctx.now_ms(), seconds)?)))
            .transpose()?;
        Ok(WriteTerms {
            at_ms,
            ranks,
            ttl,
            order,
        })
    }

    /// The digest's parts for these terms: the time, the TTL when given (a
    /// call without one digests as before TTL existed), and the index with
    /// DENSE, which the write keeps. SHARED only shapes the reply.
    fn digest(&self, digest: &mut ArgsDigest) {
        digest.part(&at_text(self.at_ms));
        if let Some((seconds, _)) = self.ttl {
            digest.part(b"TTL").integer(seconds);
        }
        if let Some(index) = self.ranks.totals_key() {
            digest.part(b"DENSE").part(index.as_bytes());
        }
    }

    /// The digest's last part: `ASC`, which sets the scores written, when
    /// the call gives it (a call without it digests as before ASC existed).
    fn digest_order(&self, digest: &mut ArgsDigest) {
        if self.order == Order::LowestFirst {
            digest.part(b"ASC");
        }
    }

    /// The tie-break clock of the boards written.
    fn clock(&self) -> TieBreakClock {
        tiebreak_clock().ordered(self.order)
    }

    /// Sets a written board's (or its index's) expiry, when the call gives
    /// one (the member is on the board after any write, and its total in
    /// the index: the key exists).
    fn expire(&self, board: &mut Zset<'_>) -> Result<(), ZkitError> {
        if let Some((_, at)) = self.ttl {
            board.expire_at(at)?;
        }
        Ok(())
    }

    /// The same for the member data hash, which holds the member's field.
    fn expire_data(&self, data: &mut Hash<'_>) -> Result<(), ZkitError> {
        if let Some((_, at)) = self.ttl {
            data.expire_at(at)?;
        }
        Ok(())
    }
}

/// A RANK.GIFT or RANK.SET write, checked and not yet made.
struct TotalWrite<'a> {
    key: &'a RStr,
    member: &'a RStr,
    update: TotalUpdate,
    terms: WriteTerms<'a>,
    /// With `DATA data-key data`: the member's data, set with the write.
    data: Option<MemberData<'a>>,
    /// With `COLUMNS columns-key`: the columns and the call's values.
    columns: Option<Box<ColumnsWrite<'a>>>,
    /// The board, then its index with DENSE, then the data hash with DATA.
    written: SmallVec<[&'a RStr; 3]>,
}

impl<'a> TotalWrite<'a> {
    /// A write of `update` checked as both commands check it, in this
    /// order: the ranks, the terms (time, TTL, order), the data, then the
    /// columns, read last; `first` is the value in the total's place,
    /// with COLUMNS the first column's. Inlined into each handler, so the
    /// write is built where the handler returns it.
    #[inline(always)]
    fn checked(
        ctx: &Ctx,
        key: &'a RStr,
        member: &'a RStr,
        update: TotalUpdate,
        first: i64,
        options: WriteOptions<'a>,
    ) -> Result<TotalWrite<'a>, ZkitError> {
        let ranks = Ranks::chosen(options.ranks).checked_for(key)?;
        let order = Order::of_asc(options.asc);
        let terms = WriteTerms::checked(ctx, options.at_ms, ranks, options.ttl_seconds, order)?;
        let data = MemberData::checked(options.data, key, ranks)?;
        let (columns_key, then) = (options.columns_key, options.then);
        let data_key = data.map(|data| data.key);
        let columns = columns_of(
            ctx,
            columns_key,
            then.is_some(),
            options.asc,
            key,
            ranks,
            data_key,
        )?;
        let columns = ColumnsWrite::of(columns_key, columns, first, then);
        Ok(TotalWrite::new(key, member, update, terms, data, columns))
    }

    fn new(
        key: &'a RStr,
        member: &'a RStr,
        update: TotalUpdate,
        terms: WriteTerms<'a>,
        data: Option<MemberData<'a>>,
        columns: Option<Box<ColumnsWrite<'a>>>,
    ) -> Self {
        let mut written = SmallVec::new();
        written.push(key);
        written.extend(terms.ranks.totals_key());
        written.extend(data.map(|data| data.key));
        TotalWrite {
            key,
            member,
            update,
            terms,
            data,
            columns,
            written,
        }
    }

    fn columns(&self) -> Option<&Columns> {
        self.columns.as_ref().map(|write| &write.columns)
    }
}

/// RANK.GIFT / RANK.SET -> `[total, rank]`, the total that stands after the
/// call (with IDMP, a repeated event's is the board's current state); with
/// COLUMNS, each column's value in place of the total.
impl OnceWrite for TotalWrite<'_> {
    type Reply = TotalRank;

    /// What makes two writes the same event.
    fn digest(&self) -> [u8; DIGEST_LEN] {
        let (command, value) = match self.update {
            TotalUpdate::Add(amount) => (GIFT.name, amount),
            TotalUpdate::Set(total, _) => (SET.name, total),
        };
        let mut digest = ArgsDigest::new(command);
        digest
            .part(self.key.as_bytes())
            .part(self.member.as_bytes());
        digest.integer(value);
        self.terms.digest(&mut digest);
        if let TotalUpdate::Set(_, condition) = self.update {
            digest.part(match condition {
                SetCondition::Always => b"",
                SetCondition::Higher => b"GT",
                SetCondition::Lower => b"LT",
            });
        }
        // A call without DATA digests as before DATA existed.
        if let Some(data) = self.data {
            digest
                .part(b"DATA")
                .part(data.key.as_bytes())
                .part(data.data.as_bytes());
        }
        self.terms.digest_order(&mut digest);
        // A call without COLUMNS digests as before COLUMNS existed.
        if let Some(columns) = &self.columns {
            digest.part(b"COLUMNS").part(columns.key.as_bytes());
            for &value in columns.values.iter().skip(1) {
                digest.integer(value);
            }
        }
        digest.finish()
    }

    fn written_keys(&self) -> &[&RStr] {
        &self.written
    }

    fn current(&self, ctx: &Ctx) -> Result<TotalRank, ZkitError> {
        let (total, rank) = standing(ctx, self.key, self.member, &self.terms)?;
        Ok(TotalRank::of(self.columns(), total, rank)?)
    }

    fn apply(self, ctx: &Ctx) -> Result<Outcome<TotalRank>, ZkitError> {
        let TotalWrite {
            key,
            member,
            update,
            terms,
            data,
            columns,
            ..
        } = self;
        let ranks = terms.ranks;
        let clock = terms.clock();
        let at_ms = terms.at_ms.unwrap_or_else(|| ctx.now_ms());
        let mut board = ctx.open_zset_mut(key)?;
        let checked = check_score(
            &clock,
            board.score(member),
            update,
            columns.as_deref(),
            at_ms,
        )?;
        // Opened before the board is written, so an index of another type
        // refuses the call with nothing changed.
        let mut index = ranks
            .totals_key()
            .map(|index| ctx.open_zset_mut(index))
            .transpose()?;
        let mut data_hash = data.map(|data| ctx.open_hash_mut(data.key)).transpose()?;
        let layout = apply_write(ctx, key, &mut board, member, update, &checked)?;
        terms.expire(&mut board)?;
        if let Some(index) = index.as_mut() {
            keep_totals(index, &mut board, checked.previous_total, checked.total)?;
            terms.expire(index)?;
        }
        drop(index);
        // The data is set with every write, also one whose total stands.
        if let (Some(hash), Some(data)) = (data_hash.as_mut(), data) {
            hash.set(member.as_bytes(), data.data)?;
            terms.expire_data(hash)?;
        }
        drop(data_hash);
        let walked = checked.score.and_then(|score| {
            let walk = RankWalk::of(board.len(), layout, terms.order)?;
            walk.rank(&mut board, member, score, checked.total, ranks)
        });
        drop(board);
        let rank = match walked {
            Some(rank) => rank,
            None => rank_of_member(ctx, key, member, checked.total, ranks, terms.order)?,
        };
        let columns = columns.as_ref().map(|write| &write.columns);
        Ok(Outcome::Applied(TotalRank::of(
            columns,
            checked.total,
            Some(rank),
        )?))
    }
}

/// A write to one board, checked and not yet made.
struct CheckedScore {
    /// The member's total before the write (`None`: not on the board).
    previous_total: Option<i64>,
    total: i64,
    /// The score to write; `None` when the total stands as it was.
    score: Option<f64>,
}

/// Checks `update` for a member scored `previous` (`None`: not on the
/// board), reached at `at_ms`. Checks everything a write can refuse: a
/// previous score that is not a rank score, the total's range (with
/// COLUMNS, each value's and the previous total's as a tuple) and the time
/// (even when the total does not change).
fn check_score(
    clock: &TieBreakClock,
    previous: Option<f64>,
    update: TotalUpdate,
    columns: Option<&ColumnsWrite<'_>>,
    at_ms: i64,
) -> Result<CheckedScore, ZkitError> {
    let previous_total = previous
        .map(|score| clock.decode(score))
        .transpose()?
        .map(|entry| entry.total);
    // With columns the update's total is the tuple packed: a gift's sum
    // column by column, a set's values.
    let update = match (columns, update) {
        (None, update) => update,
        (Some(write), TotalUpdate::Add(_)) => TotalUpdate::Set(
            write.columns.add(previous_total, &write.values)?,
            SetCondition::Always,
        ),
        (Some(write), TotalUpdate::Set(_, condition)) => {
            // Refused in the order a gift's are: the count, the previous
            // total, the values.
            write.columns.check_count(write.values.len())?;
            if let Some(total) = previous_total {
                write.columns.unpack(total)?;
            }
            TotalUpdate::Set(write.columns.pack(&write.values)?, condition)
        }
    };
    let after = next_total(previous_total, update)?;
    let score = clock.encode(after.total, at_ms)?;
    Ok(CheckedScore {
        previous_total,
        total: after.total,
        score: after.changed.then_some(score),
    })
}

/// Writes a checked total: replayed as `ZADD`, announced as the native peer
/// of the update announces it (`zincr` for a gift, `zadd` for a set). ->
/// what the write tells of the board's layout.
fn apply_write(
    ctx: &Ctx,
    key: &RStr,
    board: &mut Zset,
    member: &RStr,
    update: TotalUpdate,
    checked: &CheckedScore,
) -> Result<Layout, ZkitError> {
    let Some(score) = checked.score else {
        return Ok(Layout::Unknown);
    };
    let created = board.is_empty();
    match update {
        TotalUpdate::Add(_) => board.add_incremented(member, score)?,
        TotalUpdate::Set(..) => board.add(member, score)?,
    };
    Ok(layout::after_write(ctx, key, board, created))
}

/// A member's `[total, rank]` on one board; no rank when the member is not
/// on it (a repeated event whose member was removed since).
type Standing = (i64, Option<i64>);

/// A member's `[total, rank]` as the board stands: what a repeated event
/// replies instead of writing. A member no longer on the board (removed
/// since its event was applied) stands at total 0 with no rank.
fn standing(
    ctx: &Ctx,
    key: &RStr,
    member: &RStr,
    terms: &WriteTerms<'_>,
) -> Result<Standing, ZkitError> {
    standing_with(ctx, key, member, terms.ranks, terms.order)
}

/// [`standing`] with the ranks of one board of several.
fn standing_with(
    ctx: &Ctx,
    key: &RStr,
    member: &RStr,
    ranks: Ranks<'_>,
    order: Order,
) -> Result<Standing, ZkitError> {
    let score = ctx.open_zset(key)?.and_then(|board| board.score(member));
    let Some(score) = score else {
        return Ok((0, None));
    };
    let total = tiebreak_clock().ordered(order).decode(score)?.total;
    let rank = rank_of_member(ctx, key, member, total, ranks, order)?;
    Ok((total, Some(rank)))
}

request! {
    /// RANK.MGIFT `numkeys key [key ...] member amount [AT unix-ms]
    /// [SHARED | DENSE totals-key [totals-key ...]] [TTL seconds]`, and
    /// IDMP.
    struct MultiGift<'a> {
        boards: Vec<&'a RStr> = list(Request::key),
        member: &'a RStr = string,
        amount: i64 = integer,
        at_ms: Option<i64> = option(Request::integer),
        ranks: Option<EachBoardRanks<'a>> = one_of(&[
            |_| EachBoardRanks::Shared,
            |dense| EachBoardRanks::Dense(dense.list(Request::key)),
        ]),
        ttl_seconds: Option<i64> = option(Request::integer),
        asc: bool = flag,
    }
}

/// RANK.MGIFT's `[SHARED | DENSE totals-key [totals-key ...]]`.
enum EachBoardRanks<'a> {
    Shared,
    /// Each board's index, in the boards' order.
    Dense(Vec<&'a RStr>),
}

/// Boards one RANK.MGIFT call handles without a heap allocation.
const INLINE_BOARDS: usize = 4;

/// RANK.MGIFT's reply: `[total, rank]` per board in key order.
type BoardsReply = SmallVec<[Standing; INLINE_BOARDS]>;

/// RANK.MGIFT's boards, checked distinct; the rest is checked as they are
/// written ([`BoardsWrite::apply`]).
fn mgift<'a>(ctx: &Ctx, args: MultiGift<'a>) -> Result<BoardsWrite<'a>, ZkitError> {
    let MultiGift {
        boards,
        member,
        amount,
        at_ms,
        ranks,
        ttl_seconds,
        asc,
    } = args;
    let (ranks, indexes) = match ranks {
        None => (Ranks::FirstCome, Vec::new()),
        Some(EachBoardRanks::Shared) => (Ranks::Shared, Vec::new()),
        Some(EachBoardRanks::Dense(indexes)) => (Ranks::Dense(indexes[0]), indexes),
    };
    // No board twice, no index that is a board, no index for two boards.
    check_distinct_boards(&key_names(&boards))?;
    for index in &indexes {
        Ranks::Dense(index).checked_for_boards(&boards)?;
    }
    check_distinct_boards(&key_names(&indexes))?;
    let terms = WriteTerms::checked(ctx, at_ms, ranks, ttl_seconds, Order::of_asc(asc))?;
    let written = boards.iter().chain(&indexes).copied().collect();
    Ok(BoardsWrite {
        boards,
        indexes,
        written,
        member,
        amount,
        terms,
    })
}

/// The names of keys, as [`check_distinct_boards`] compares them.
fn key_names<'k>(keys: &[&'k RStr]) -> SmallVec<[&'k [u8]; INLINE_BOARDS]> {
    keys.iter().map(|key| key.as_bytes()).collect()
}

/// A RANK.MGIFT write, checked and not yet made.
struct BoardsWrite<'a> {
    boards: Vec<&'a RStr>,
    /// With DENSE: each board's index, in the boards' order (else empty).
    indexes: Vec<&'a RStr>,
    /// The boards, then their indexes.
    written: Vec<&'a RStr>,
    member: &'a RStr,
    amount: i64,
    terms: WriteTerms<'a>,
}

impl<'a> BoardsWrite<'a> {
    /// The ranks board `i` replies: with DENSE, counted in its own index.
    fn ranks_of(&self, i: usize) -> Ranks<'a> {
        match self.indexes.get(i) {
            Some(&index) => Ranks::Dense(index),
            None => self.terms.ranks,
        }
    }
}

/// -> `[[total, rank], ...]`, one per key in key order.
impl OnceWrite for BoardsWrite<'_> {
    type Reply = BoardsReply;

    fn digest(&self) -> [u8; DIGEST_LEN] {
        let mut digest = ArgsDigest::new(MGIFT.name);
        digest.integer(self.boards.len() as i64);
        for board in &self.boards {
            digest.part(board.as_bytes());
        }
        digest.part(self.member.as_bytes());
        digest.integer(self.amount);
        // With DENSE, the terms name the first index after the keyword; the
        // others follow it.
        self.terms.digest(&mut digest);
        for index in self.indexes.iter().skip(1) {
            digest.part(index.as_bytes());
        }
        self.terms.digest_order(&mut digest);
        digest.finish()
    }

    fn written_keys(&self) -> &[&RStr] {
        &self.written
    }

    fn current(&self, ctx: &Ctx) -> Result<BoardsReply, ZkitError> {
        (self.boards.iter().enumerate())
            .map(|(i, key)| {
                standing_with(ctx, key, self.member, self.ranks_of(i), self.terms.order)
            })
            .collect()
    }

    /// Every board is read and every write checked (types, scores, totals,
    /// time) before the first write, so an error changes no board.
    fn apply(self, ctx: &Ctx) -> Result<Outcome<BoardsReply>, ZkitError> {
        let (boards, member, terms) = (&self.boards, self.member, self.terms);
        let update = TotalUpdate::Add(self.amount);
        let clock = terms.clock();
        let at_ms = terms.at_ms.unwrap_or_else(|| ctx.now_ms());
        // Each board is opened once, for writing, and stays open from its
        // check to its write (the keys are distinct); so is each index,
        // opened before the first write so that one of another type
        // refuses the call with nothing changed.
        let mut opened: SmallVec<[(Zset<'_>, CheckedScore); INLINE_BOARDS]> = SmallVec::new();
        for &key in boards {
            let board = ctx.open_zset_mut(key)?;
            let checked = check_score(&clock, board.score(member), update, None, at_ms)?;
            opened.push((board, checked));
        }
        let mut indexes: SmallVec<[Zset<'_>; INLINE_BOARDS]> = SmallVec::new();
        for &index in &self.indexes {
            indexes.push(ctx.open_zset_mut(index)?);
        }
        let mut indexes = indexes.into_iter();
        // A rank is counted through its board, written and still open, where
        // that is cheaper; the others are asked for once every board is.
        let mut written: SmallVec<[(CheckedScore, Option<i64>); INLINE_BOARDS]> = SmallVec::new();
        for (i, (&key, (mut board, write))) in boards.iter().zip(opened).enumerate() {
            let layout = apply_write(ctx, key, &mut board, member, update, &write)?;
            terms.expire(&mut board)?;
            if let Some(mut index) = indexes.next() {
                keep_totals(&mut index, &mut board, write.previous_total, write.total)?;
                terms.expire(&mut index)?;
            }
            let walked = write.score.and_then(|score| {
                let walk = RankWalk::of(board.len(), layout, terms.order)?;
                walk.rank(&mut board, member, score, write.total, self.ranks_of(i))
            });
            written.push((write, walked));
        }
        let mut standings = SmallVec::new();
        for (i, (key, (write, walked))) in boards.iter().zip(&written).enumerate() {
            let rank = match walked {
                Some(rank) => *rank,
                None => {
                    let ranks = self.ranks_of(i);
                    rank_of_member(ctx, key, member, write.total, ranks, terms.order)?
                }
            };
            standings.push((write.total, Some(rank)));
        }
        Ok(Outcome::Applied(standings))
    }
}

request! {
    /// RANK.GET `key member [SHARED | DENSE totals-key] [DATA data-key]`.
    struct Get<'a> {
        key: &'a RStr = key,
        member: &'a RStr = string,
        ranks: Option<Ranks<'a>> = one_of(&ranks_choices()),
        data_key: Option<&'a RStr> = option(Request::key),
        asc: bool = flag,
        columns_key: Option<&'a RStr> = option(Request::key),
    }
}

/// What RANK.GET and RANK.MGET reply for a member on the board: `[total,
/// rank, reached-at-ms]`, and with DATA its data (nil for a member not on
/// it).
struct MemberEntry {
    total: i64,
    rank: i64,
    reached_at_ms: i64,
    /// With `COLUMNS columns-key`: the member's value in each column.
    columns: Option<ColumnValues>,
    /// With `DATA data-key`: the member's data, if it has any.
    data: Option<Option<OwnedRStr>>,
}

impl WriteReply for MemberEntry {
    fn write(&self, ctx: &Ctx) {
        let extra = usize::from(self.columns.is_some()) + usize::from(self.data.is_some());
        ctx.reply_array(3 + extra);
        ctx.reply_i64(self.total);
        ctx.reply_i64(self.rank);
        ctx.reply_i64(self.reached_at_ms);
        if let Some(columns) = &self.columns {
            columns.write(ctx);
        }
        if let Some(data) = &self.data {
            data.write(ctx);
        }
    }
}

/// -> `[total, rank, reached-at-ms]` (with DATA, and the data) or nil.
fn get(ctx: &Ctx, args: Get<'_>) -> Result<Option<MemberEntry>, ZkitError> {
    let ranks = Ranks::chosen(args.ranks).checked_for(args.key)?;
    let order = Order::of_asc(args.asc);
    ctx.require(&[ranks.native(order)])?;
    let data_key = checked_data_key(args.data_key, args.key, ranks)?;
    let columns = columns_of(
        ctx,
        args.columns_key,
        false,
        args.asc,
        args.key,
        ranks,
        data_key,
    )?;
    // Opened before the board, as the library reads it first.
    let data = DataReader::open(ctx, data_key)?;
    let Some(mut board) = ctx.open_zset(args.key)? else {
        return Ok(None);
    };
    let len = board.len();
    let layout = layout::after_read(ctx, args.key, len, Use::Member);
    let board = OpenBoard {
        key: args.key,
        zset: &mut board,
        walk: RankWalk::of(len, layout, order),
        order,
    };
    member_entry(
        ctx,
        &tiebreak_clock().ordered(order),
        board,
        args.member,
        ranks,
        data.as_ref(),
        columns.as_ref(),
    )
}

request! {
    /// RANK.MGET `key [SHARED | DENSE totals-key] [DATA data-key] MEMBERS
    /// member [member ...]`.
    struct MultiGet<'a> {
        key: &'a RStr = key,
        ranks: Option<Ranks<'a>> = one_of(&ranks_choices()),
        data_key: Option<&'a RStr> = option(Request::key),
        asc: bool = flag,
        columns_key: Option<&'a RStr> = option(Request::key),
        members: WordList<'a> = words,
    }
}

/// Members one RANK.MGET call reads without a heap allocation.
const INLINE_MEMBERS: usize = 16;

/// -> one RANK.GET reply per member, in order, each written where the
/// reply stands (no list of scores first).
fn mget(
    ctx: &Ctx,
    args: MultiGet<'_>,
) -> Result<SmallVec<[Option<MemberEntry>; INLINE_MEMBERS]>, ZkitError> {
    let ranks = Ranks::chosen(args.ranks).checked_for(args.key)?;
    let order = Order::of_asc(args.asc);
    ctx.require(&[ranks.native(order)])?;
    let data_key = checked_data_key(args.data_key, args.key, ranks)?;
    let columns = columns_of(
        ctx,
        args.columns_key,
        false,
        args.asc,
        args.key,
        ranks,
        data_key,
    )?;
    let data = DataReader::open(ctx, data_key)?;
    let mut entries = SmallVec::new();
    let Some(mut board) = ctx.open_zset(args.key)? else {
        entries.resize_with(args.members.len(), || None);
        return Ok(entries);
    };
    let len = board.len();
    let layout = layout::after_read(ctx, args.key, len, Use::Member);
    let walk = RankWalk::of(len, layout, order);
    let clock = tiebreak_clock().ordered(order);
    entries.reserve_exact(args.members.len());
    // The board stays open for the ranks: a read handle outlives the calls.
    for member in args.members {
        let board = OpenBoard {
            key: args.key,
            zset: &mut board,
            walk,
            order,
        };
        entries.push(member_entry(
            ctx,
            &clock,
            board,
            member,
            ranks,
            data.as_ref(),
            columns.as_ref(),
        )?);
    }
    Ok(entries)
}

/// A board open for reading, whether its ranks are counted through it, and
/// its order.
struct OpenBoard<'b, 'c> {
    key: &'b RStr,
    zset: &'b mut Zset<'c>,
    walk: Option<RankWalk>,
    order: Order,
}

/// A member's entry on the board (`None`: not on it), with its data when
/// the call reads the data hash.
fn member_entry(
    ctx: &Ctx,
    clock: &TieBreakClock,
    board: OpenBoard<'_, '_>,
    member: &RStr,
    ranks: Ranks<'_>,
    data: Option<&DataReader<'_>>,
    columns: Option<&Columns>,
) -> Result<Option<MemberEntry>, ZkitError> {
    let Some(score) = board.zset.score(member) else {
        return Ok(None);
    };
    let entry = clock.decode(score)?;
    let walked = board
        .walk
        .and_then(|walk| walk.rank(board.zset, member, score, entry.total, ranks));
    let rank = match walked {
        Some(rank) => rank,
        None => rank_of_member(ctx, board.key, member, entry.total, ranks, board.order)?,
    };
    Ok(Some(MemberEntry {
        total: entry.total,
        rank,
        reached_at_ms: entry.reached_at_ms,
        columns: values_of(columns, entry.total)?,
        data: data.map(|data| data.get(member)),
    }))
}

request! {
    /// RANK.TOP `key count [OFFSET offset] [SHARED | DENSE totals-key]
    /// [DATA data-key]`.
    struct Top<'a> {
        key: &'a RStr = key,
        count: i64 = integer,
        offset: Option<i64> = option(Request::integer),
        ranks: Option<Ranks<'a>> = one_of(&ranks_choices()),
        data_key: Option<&'a RStr> = option(Request::key),
        asc: bool = flag,
        columns_key: Option<&'a RStr> = option(Request::key),
    }
}

/// -> `[[rank, member, total], ...]` (with DATA, each row's data last).
fn top(ctx: &Ctx, args: Top<'_>) -> Result<Page, ZkitError> {
    let count = non_negative(args.count, "count")?;
    let offset = non_negative(args.offset.unwrap_or(0), "offset")?;
    let ranks = Ranks::chosen(args.ranks).checked_for(args.key)?;
    ctx.require(ranks.page_natives())?;
    let data_key = checked_data_key(args.data_key, args.key, ranks)?;
    let columns = columns_of(
        ctx,
        args.columns_key,
        false,
        args.asc,
        args.key,
        ranks,
        data_key,
    )?;
    let order = Order::of_asc(args.asc);
    let page = match ctx.open_zset(args.key)? {
        Some(board) if count > 0 => {
            let stop = offset.saturating_add(count - 1);
            let positions = (offset, stop);
            rank_range(ctx, args.key, board, positions, None, ranks, order)?
        }
        _ => Page::empty(),
    };
    page.with_data(ctx, data_key)?.with_columns(columns)
}

request! {
    /// RANK.AROUND `key member radius [SHARED | DENSE totals-key] [DATA
    /// data-key]`.
    struct Around<'a> {
        key: &'a RStr = key,
        member: &'a RStr = string,
        radius: i64 = integer,
        ranks: Option<Ranks<'a>> = one_of(&ranks_choices()),
        data_key: Option<&'a RStr> = option(Request::key),
        asc: bool = flag,
        columns_key: Option<&'a RStr> = option(Request::key),
    }
}

/// -> `[[rank, member, total], ...]` (with DATA, each row's data last).
fn around(ctx: &Ctx, args: Around<'_>) -> Result<Page, ZkitError> {
    let Around {
        key,
        member,
        radius,
        ranks,
        data_key,
        asc,
        columns_key,
    } = args;
    let radius = non_negative(radius, "radius")?;
    let ranks = Ranks::chosen(ranks).checked_for(key)?;
    let order = Order::of_asc(asc);
    ctx.require(&[rank_native(order)])?;
    ctx.require(ranks.page_natives())?;
    let data_key = checked_data_key(data_key, key, ranks)?;
    let columns = columns_of(ctx, columns_key, false, asc, key, ranks, data_key)?;
    // The type check; ZREVRANK (ZRANK) then answers nil for an absent
    // member. The board stays open for the page: a read handle outlives the
    // calls.
    let Some(board) = ctx.open_zset(key)? else {
        return Page::empty().with_data(ctx, data_key);
    };
    let Some(rank) = rank_of(ctx, key, member, order)? else {
        return Page::empty().with_data(ctx, data_key);
    };
    let index = rank - 1;
    let positions = (
        index.saturating_sub(radius).max(0),
        index.saturating_add(radius),
    );
    let anchor = Some((member, index));
    let page = rank_range(ctx, key, board, positions, anchor, ranks, order)?;
    page.with_data(ctx, data_key)?.with_columns(columns)
}

declare_command! {
    pub static AMONG: Command = {
        name: "rank.among",
        handler: among,
        flags: "readonly fast",
        acl_categories: "read sortedset hash fast",
        summary: "Returns the given members that are on the board, ordered as the board orders them, each with its rank among them (1-based; with SHARED, equal totals share a rank; with DENSE, they share one and the next total ranks one lower): rank, member, total (with DATA, and the member's data).",
        complexity: "O(F*log(F)) with F the members given: a score lookup each and a sort of them; the board is not walked.",
        since: "0.5.0",
        history: &[COLUMNS_READ_HISTORY],
        reply: PAGE_REPLY,
        examples: &[
            "RANK.AMONG {t}:board SHARED MEMBERS m n",
            "RANK.AMONG {t}:board DENSE MEMBERS m n",
            "RANK.AMONG {t}:board DATA {t}:profiles MEMBERS m n",
            "RANK.AMONG {t}:board ASC MEMBERS m n",
            "RANK.AMONG {t}:board COLUMNS {t}:cols MEMBERS m n",
        ],
        args: &[
            BOARD_READ,
            // Ranks among the given members follow from their totals: no
            // index is read.
            Arg::one_of(
                "ranks",
                &[Arg::pure_token("shared", "SHARED"), Arg::pure_token("dense", "DENSE")],
            )
            .optional(),
            DATA_READ,
            ASC_FROM_START,
            COLUMNS_ARG,
            Arg::string("member").token("MEMBERS").multiple(),
        ],
    }
}

request! {
    /// RANK.AMONG `key [SHARED | DENSE] [DATA data-key] [ASC] [COLUMNS columns-key] MEMBERS
    /// member [member ...]`.
    struct Among<'a> {
        key: &'a RStr = key,
        ranks: Option<AmongRanks> = one_of(&[|_| AmongRanks::Shared, |_| AmongRanks::Dense]),
        data_key: Option<&'a RStr> = option(Request::key),
        asc: bool = flag,
        columns_key: Option<&'a RStr> = option(Request::key),
        members: WordList<'a> = words,
    }
}

/// RANK.AMONG's `SHARED` or `DENSE`: ranks among the given members.
enum AmongRanks {
    Shared,
    Dense,
}

/// -> `[[rank, member, total], ...]` of the given members on the board,
/// ranked among themselves: each one's score looked up, the scores sorted
/// as the board sorts them, the ranks counted down that list.
fn among(ctx: &Ctx, args: Among<'_>) -> Result<Page, ZkitError> {
    let data_key = checked_data_key(args.data_key, args.key, Ranks::FirstCome)?;
    let columns = columns_of(
        ctx,
        args.columns_key,
        false,
        args.asc,
        args.key,
        Ranks::FirstCome,
        data_key,
    )?;
    let Some(board) = ctx.open_zset(args.key)? else {
        return Page::empty().with_data(ctx, data_key);
    };
    layout::after_read(ctx, args.key, board.len(), Use::Member);
    let mut found: Vec<(f64, &[u8])> = args
        .members
        .filter_map(|member| Some((board.score(member)?, member.as_bytes())))
        .collect();
    let order = Order::of_asc(args.asc);
    board_order(&mut found, order);
    let clock = tiebreak_clock().ordered(order);
    let (mut members, mut totals) = (SmallVec::new(), SmallVec::new());
    for (score, member) in found {
        totals.push(clock.decode(score)?.total);
        members.push(OwnedRStr::new(member));
    }
    let ranks = match args.ranks {
        Some(AmongRanks::Shared) => PageRanks::Listed(shared_ranks(1, 1, &totals)),
        Some(AmongRanks::Dense) => PageRanks::Listed(dense_ranks(1, &totals)),
        None => PageRanks::From(1),
    };
    Page::of(members, totals, ranks)
        .with_data(ctx, data_key)?
        .with_columns(columns)
}
