//! RANK: leaderboards where equal totals rank first-come (a live-stream gift
//! board: more coins rank higher, and whoever reached an amount first ranks
//! higher among equals).
//!
//! A board is a plain sorted set whose scores are rank scores
//! (`logic::rank`): `floor(score)` is the member's total, the fraction orders
//! equal totals by when they were reached. Writes use the low-level key API
//! and replicate `ZADD` with the exact score; ranks come from `ZREVRANK` and
//! `ZRANGE ... REV` through RM_Call, because the low-level API has no rank
//! access and they are O(log N) there.
//!
//! With `SHARED`, replies carry competition ranks instead (equal totals share
//! a rank: 1 + the members whose total is strictly higher). Since
//! `floor(score)` is the total, those members are exactly the ones scored at
//! `total + 1` or more: one `ZCOUNT`, O(log N) on a skiplist (two rank
//! lookups) however long the run of ties, where walking the key API would
//! cost a step per member above.

use std::collections::HashMap;

use std::sync::atomic::{AtomicI64, Ordering};

use super::args::{is_keyword, parse_i64, parse_non_negative, split_trailing_flag, Options};
use super::{Command, NumericConfig};
use crate::declare_command;
use crate::error::{bound, ZkitError};
use crate::host::{
    key_flags as kf, Arg, BeginSearch, CallArg, Ctx, FindKeys, KeySpec, OwnedRStr, RStr,
    ScoreBound, Zset,
};
use crate::logic::rank::{
    add_totals, check_distinct_boards, next_total, scores_read_as_board, shared_ranks, weigh_total,
    RankEntry, SetCondition, TieBreakClock, TotalUpdate, CLOCK_LIMIT_MS, DEFAULT_EPOCH_MS,
    DEFAULT_SPAN_MS,
};

pub static COMMANDS: &[&Command] = &[&GIFT, &SET, &GET, &TOP, &AROUND, &MERGE, &MGIFT, &MGET];

/// `zkit.tiebreak-epoch-ms`: the start of the tie-break window (unix ms).
pub static TIEBREAK_EPOCH_MS: NumericConfig = NumericConfig {
    name: "tiebreak-epoch-ms",
    value: AtomicI64::new(DEFAULT_EPOCH_MS),
    default: DEFAULT_EPOCH_MS,
    min: 0,
    max: CLOCK_LIMIT_MS,
};

/// `zkit.tiebreak-span-ms`: the length of the tie-break window.
pub static TIEBREAK_SPAN_MS: NumericConfig = NumericConfig {
    name: "tiebreak-span-ms",
    value: AtomicI64::new(DEFAULT_SPAN_MS),
    default: DEFAULT_SPAN_MS,
    min: 1,
    max: CLOCK_LIMIT_MS,
};

/// `zkit.small-board-max`: boards of up to this many members are kept in
/// the skiplist layout (see [`keep_skiplist_layout`]); 0 leaves every board
/// in the layout the server picks (a listpack up to
/// `zset-max-listpack-entries`), as zkit 0.2 did.
pub static SMALL_BOARD_MAX: NumericConfig = NumericConfig {
    name: "small-board-max",
    value: AtomicI64::new(LISTPACK_BOARD_MAX as i64),
    default: LISTPACK_BOARD_MAX as i64,
    min: 0,
    max: 1 << 16,
};

/// The tie-break clock boards encode and decode with now.
pub fn tiebreak_clock() -> TieBreakClock {
    TieBreakClock::new(
        TIEBREAK_EPOCH_MS.value.load(Ordering::Relaxed),
        TIEBREAK_SPAN_MS.value.load(Ordering::Relaxed),
    )
    .expect("the config bounds keep the clock valid")
}

const BOARD_WRITE_FLAGS: u32 = kf::RW | kf::ACCESS | kf::UPDATE;
const BOARD_WRITE: &[KeySpec] = &[KeySpec::at(1, BOARD_WRITE_FLAGS)];
const BOARD_READ: &[KeySpec] = &[KeySpec::at(1, kf::RO | kf::ACCESS)];

/// `SHARED`: every rank in the reply is a competition rank.
const SHARED_ARG: Arg = Arg::pure_token("shared", "SHARED")
    .optional()
    .since("0.2.0");

declare_command! {
    pub static GIFT: Command = {
        name: "rank.gift",
        handler: gift,
        flags: "write deny-oom fast",
        acl_categories: "write sortedset fast",
        arity: -4,
        key_specs: BOARD_WRITE,
        summary: "Adds an amount to a member's total and returns the new total and rank; equal totals rank first-come (with SHARED, equal totals share a rank).",
        complexity: "O(log(N)) with N the number of members in the board.",
        since: "0.1.0",
        history: &[("0.2.0", "Added the `SHARED` option.")],
        args: &[
            Arg::key("key", 0),
            Arg::string("member"),
            Arg::integer("amount"),
            Arg::unix_time("unix-ms").token("AT").optional(),
            SHARED_ARG,
        ],
    }
}

declare_command! {
    pub static SET: Command = {
        name: "rank.set",
        handler: set,
        flags: "write deny-oom fast",
        acl_categories: "write sortedset fast",
        arity: -4,
        key_specs: BOARD_WRITE,
        summary:
            "Sets a member's total (with GT only a higher one, with LT only a lower one) and returns the total that stands with the member's rank; equal totals rank first-come (with SHARED, equal totals share a rank).",
        complexity: "O(log(N)) with N the number of members in the board.",
        since: "0.1.0",
        history: &[("0.2.0", "Added the `GT`, `LT` and `SHARED` options.")],
        args: &[
            Arg::key("key", 0),
            Arg::string("member"),
            Arg::integer("total"),
            Arg::unix_time("unix-ms").token("AT").optional(),
            Arg::one_of(
                "condition",
                &[Arg::pure_token("gt", "GT"), Arg::pure_token("lt", "LT")],
            )
            .optional()
            .since("0.2.0"),
            SHARED_ARG,
        ],
    }
}

declare_command! {
    pub static GET: Command = {
        name: "rank.get",
        handler: get,
        flags: "readonly fast",
        acl_categories: "read sortedset fast",
        arity: -3,
        key_specs: BOARD_READ,
        summary: "Returns a member's total, rank and the time it reached its total, or nil.",
        complexity: "O(log(N)) with N the number of members in the board.",
        since: "0.1.0",
        history: &[("0.2.0", "Added the `SHARED` option.")],
        args: &[Arg::key("key", 0), Arg::string("member"), SHARED_ARG],
    }
}

declare_command! {
    pub static TOP: Command = {
        name: "rank.top",
        handler: top,
        flags: "readonly",
        acl_categories: "read sortedset slow",
        arity: -3,
        key_specs: BOARD_READ,
        summary: "Returns a page of the board from the highest total down: rank, member, total.",
        complexity: "O(log(N)+M) with N the number of members in the board and M the count.",
        since: "0.1.0",
        history: &[("0.2.0", "Added the `SHARED` option.")],
        args: &[
            Arg::key("key", 0),
            Arg::integer("count"),
            Arg::integer("offset").token("OFFSET").optional(),
            SHARED_ARG,
        ],
    }
}

declare_command! {
    pub static AROUND: Command = {
        name: "rank.around",
        handler: around,
        flags: "readonly",
        acl_categories: "read sortedset slow",
        arity: -4,
        key_specs: BOARD_READ,
        summary: "Returns the member and up to radius entries above and below it: rank, member, total.",
        complexity: "O(log(N)+M) with N the number of members in the board and M the radius.",
        since: "0.1.0",
        history: &[("0.2.0", "Added the `SHARED` option.")],
        args: &[
            Arg::key("key", 0),
            Arg::string("member"),
            Arg::integer("radius"),
            SHARED_ARG,
        ],
    }
}

declare_command! {
    pub static MERGE: Command = {
        name: "rank.merge",
        handler: merge,
        flags: "write deny-oom",
        acl_categories: "write sortedset slow",
        arity: -4,
        key_specs: &[
            KeySpec::at(1, kf::OW | kf::UPDATE),
            KeySpec {
                flags: kf::RO | kf::ACCESS,
                begin: BeginSearch::Index(2),
                find: FindKeys::KeyNum {
                    count_index: 0,
                    first: 1,
                    step: 1,
                },
            },
        ],
        summary: "Stores the sum of several boards (times integer weights) in destkey, keeping first-come order: a merged entry reached its total when its last contributor did.",
        complexity: "O(N+M log(M)) with N the members of all inputs and M the members of the result.",
        since: "0.1.0",
        history: &[],
        args: &[
            Arg::key("destkey", 0),
            Arg::integer("numkeys"),
            Arg::key("key", 1).multiple(),
            Arg::integer("weight").token("WEIGHTS").optional().multiple(),
        ],
    }
}

declare_command! {
    pub static MGIFT: Command = {
        name: "rank.mgift",
        handler: mgift,
        flags: "write deny-oom",
        acl_categories: "write sortedset slow",
        arity: -5,
        key_specs: &[KeySpec {
            flags: BOARD_WRITE_FLAGS,
            begin: BeginSearch::Index(1),
            find: FindKeys::KeyNum {
                count_index: 0,
                first: 1,
                step: 1,
            },
        }],
        summary: "Adds an amount to a member's total on several boards at once (each first-come on its own) and returns [total, rank] per board, in key order.",
        complexity: "O(K*log(N)) with K the number of boards and N the members of the largest.",
        since: "0.2.0",
        history: &[],
        args: &[
            Arg::integer("numkeys"),
            Arg::key("key", 0).multiple(),
            Arg::string("member"),
            Arg::integer("amount"),
            Arg::unix_time("unix-ms").token("AT").optional(),
            SHARED_ARG,
        ],
    }
}

declare_command! {
    pub static MGET: Command = {
        name: "rank.mget",
        handler: mget,
        flags: "readonly fast",
        acl_categories: "read sortedset fast",
        arity: -3,
        key_specs: BOARD_READ,
        summary: "Returns what RANK.GET returns for each member, in order: [total, rank, reached-at-ms] or nil.",
        complexity: "O(M*log(N)) with M the members asked for and N the members of the board.",
        since: "0.2.0",
        history: &[],
        args: &[
            Arg::key("key", 0),
            Arg::string("member").multiple(),
            SHARED_ARG,
        ],
    }
}

/// Which ranks a reply carries.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ranks {
    /// Positions: equal totals rank first-come.
    FirstCome,
    /// `SHARED`: competition ranks, equal totals share one.
    Shared,
}

fn gift(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    let amount = parse_i64(args[3].as_bytes())?;
    let options = parse_write_options(&args[4..], &["AT", "SHARED"])?;
    write_total(ctx, &args[1], &args[2], TotalUpdate::Add(amount), options)
}

fn set(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    let total = parse_i64(args[3].as_bytes())?;
    let options = parse_write_options(&args[4..], &["AT", "SHARED", "GT", "LT"])?;
    let update = TotalUpdate::Set(total, options.condition);
    write_total(ctx, &args[1], &args[2], update, options)
}

/// The options of a RANK write: `[AT unix-ms] [GT|LT] [SHARED]`, those of
/// `keywords` only.
struct WriteOptions {
    at_ms: Option<i64>,
    condition: SetCondition,
    ranks: Ranks,
}

fn parse_write_options(
    options: &[RStr],
    keywords: &'static [&'static str],
) -> Result<WriteOptions, ZkitError> {
    let mut parsed = WriteOptions {
        at_ms: None,
        condition: SetCondition::Always,
        ranks: Ranks::FirstCome,
    };
    let mut options = Options::new(options, keywords);
    while let Some(option) = options.next_option()? {
        let condition = match option {
            "AT" => {
                parsed.at_ms = Some(options.int()?);
                continue;
            }
            "SHARED" => {
                parsed.ranks = Ranks::Shared;
                continue;
            }
            "GT" => SetCondition::Higher,
            _ => SetCondition::Lower,
        };
        // GT and LT exclude each other, as NEWER and OLDER do in FEED.PAGE.
        if parsed.condition != SetCondition::Always {
            return Err(ZkitError::Syntax);
        }
        parsed.condition = condition;
    }
    Ok(parsed)
}

/// A write to one board, checked and not yet made.
struct PlannedWrite {
    total: i64,
    /// The score to write; `None` when the total stands as it was.
    score: Option<f64>,
}

/// Plans `update` for a member scored `previous` (`None`: not on the
/// board), reached at `at_ms`. Checks everything a write can refuse: a
/// previous score that is not a rank score, the total's range and the time
/// (even when the total does not change).
fn plan_write(
    clock: &TieBreakClock,
    previous: Option<f64>,
    update: TotalUpdate,
    at_ms: i64,
) -> Result<PlannedWrite, ZkitError> {
    let previous = previous.map(|score| clock.decode(score)).transpose()?;
    let after = next_total(previous.map(|entry| entry.total), update)?;
    let score = clock.encode(after.total, at_ms)?;
    Ok(PlannedWrite {
        total: after.total,
        score: after.changed.then_some(score),
    })
}

/// Writes a planned total: replayed as `ZADD`, announced as the native peer
/// of the update announces it (`zincr` for a gift, `zadd` for a set).
fn apply_write(
    ctx: &Ctx,
    key: &RStr,
    board: &mut Zset,
    member: &RStr,
    update: TotalUpdate,
    planned: &PlannedWrite,
) -> Result<(), ZkitError> {
    if let Some(score) = planned.score {
        match update {
            TotalUpdate::Add(_) => board.add_incremented(member, score)?,
            TotalUpdate::Set(..) => board.add(member, score)?,
        };
        keep_skiplist_layout(ctx, key, board);
    }
    Ok(())
}

/// RANK.GIFT / RANK.SET: `key member value [AT unix-ms] [GT|LT] [SHARED]` ->
/// `[total, rank]`, the total that stands after the call.
fn write_total(
    ctx: &Ctx,
    key: &RStr,
    member: &RStr,
    update: TotalUpdate,
    options: WriteOptions,
) -> Result<(), ZkitError> {
    let clock = tiebreak_clock();
    let at_ms = options.at_ms.unwrap_or_else(|| ctx.now_ms());
    let mut board = ctx.open_zset_mut(key)?;
    let planned = plan_write(&clock, board.score(member), update, at_ms)?;
    apply_write(ctx, key, &mut board, member, update, &planned)?;
    drop(board);
    let rank = rank_of_member(ctx, key, member, planned.total, options.ranks)?;
    ctx.reply_array(2);
    ctx.reply_i64(planned.total);
    ctx.reply_i64(rank);
    Ok(())
}

/// RANK.MGIFT `numkeys key [key ...] member amount [AT unix-ms] [SHARED]`
/// -> `[[total, rank], ...]`, one per key in key order. Every board is read
/// and every write planned (types, scores, totals, time) before the first
/// write, so an error changes no board.
fn mgift(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    let (boards, rest) = split_numkeys(&args[1], &args[2..])?;
    let [member, amount, options @ ..] = rest else {
        return Err(ZkitError::Syntax);
    };
    let update = TotalUpdate::Add(parse_i64(amount.as_bytes())?);
    let options = parse_write_options(options, &["AT", "SHARED"])?;
    let names: Vec<&[u8]> = boards.iter().map(RStr::as_bytes).collect();
    check_distinct_boards(&names)?;

    let clock = tiebreak_clock();
    let at_ms = options.at_ms.unwrap_or_else(|| ctx.now_ms());
    let mut planned = Vec::with_capacity(boards.len());
    for key in boards {
        let previous = ctx.open_zset(key)?.and_then(|board| board.score(member));
        planned.push(plan_write(&clock, previous, update, at_ms)?);
    }
    for (key, write) in boards.iter().zip(&planned) {
        apply_write(
            ctx,
            key,
            &mut ctx.open_zset_mut(key)?,
            member,
            update,
            write,
        )?;
    }
    ctx.reply_array(boards.len());
    for (key, write) in boards.iter().zip(&planned) {
        let rank = rank_of_member(ctx, key, member, write.total, options.ranks)?;
        ctx.reply_array(2);
        ctx.reply_i64(write.total);
        ctx.reply_i64(rank);
    }
    Ok(())
}

/// `numkeys key [key ...] rest...`: the keys (at least one) and what
/// follows them.
fn split_numkeys<'a>(
    numkeys: &RStr,
    rest: &'a [RStr],
) -> Result<(&'a [RStr], &'a [RStr]), ZkitError> {
    let numkeys = parse_i64(numkeys.as_bytes())?;
    if numkeys < 1 {
        return Err(ZkitError::OutOfRange {
            what: "numkeys",
            limit: bound::AT_LEAST_ONE,
        });
    }
    usize::try_from(numkeys)
        .ok()
        .filter(|&n| n <= rest.len())
        .map(|n| rest.split_at(n))
        .ok_or(ZkitError::Syntax)
}

/// `[SHARED]`, the only option of the RANK reads that take no other.
fn parse_ranks(options: &[RStr]) -> Result<Ranks, ZkitError> {
    let mut ranks = Ranks::FirstCome;
    let mut options = Options::new(options, &["SHARED"]);
    while options.next_option()?.is_some() {
        ranks = Ranks::Shared;
    }
    Ok(ranks)
}

/// RANK.GET `key member [SHARED]` -> `[total, rank, reached-at-ms]` or nil.
fn get(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    let ranks = parse_ranks(&args[3..])?;
    reply_members(ctx, &args[1], &args[2..3], ranks, false)
}

/// RANK.MGET `key member [member ...] [SHARED]` -> one RANK.GET reply per
/// member, in order. A member spelled `SHARED` is read as the option only in
/// the last position.
fn mget(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    let (members, shared) = split_trailing_flag(&args[2..], "SHARED")?;
    let ranks = if shared {
        Ranks::Shared
    } else {
        Ranks::FirstCome
    };
    reply_members(ctx, &args[1], members, ranks, true)
}

/// Replies `[total, rank, reached-at-ms]` or nil for each member; as an
/// array of them with `as_array`, else the one member's reply alone. Every
/// score is read and decoded before the first reply.
fn reply_members(
    ctx: &Ctx,
    key: &RStr,
    members: &[RStr],
    ranks: Ranks,
    as_array: bool,
) -> Result<(), ZkitError> {
    let clock = tiebreak_clock();
    let scores: Vec<Option<f64>> = match ctx.open_zset(key)? {
        Some(board) => members.iter().map(|member| board.score(member)).collect(),
        None => vec![None; members.len()],
    };
    let mut entries = Vec::with_capacity(members.len());
    for (member, score) in members.iter().zip(scores) {
        let entry = score.map(|score| clock.decode(score)).transpose()?;
        let rank = entry
            .map(|entry| rank_of_member(ctx, key, member, entry.total, ranks))
            .transpose()?;
        entries.push(entry.zip(rank));
    }
    if as_array {
        ctx.reply_array(entries.len());
    }
    for entry in entries {
        match entry {
            Some((entry, rank)) => {
                ctx.reply_array(3);
                ctx.reply_i64(entry.total);
                ctx.reply_i64(rank);
                ctx.reply_i64(entry.reached_at_ms);
            }
            None => ctx.reply_null(),
        }
    }
    Ok(())
}

/// RANK.TOP `key count [OFFSET offset] [SHARED]` -> `[[rank, member, total], ...]`.
fn top(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    let key = &args[1];
    let count = parse_non_negative(args[2].as_bytes(), "count")?;
    let (mut offset, mut ranks) = (0, Ranks::FirstCome);
    let mut options = Options::new(&args[3..], &["OFFSET", "SHARED"]);
    while let Some(option) = options.next_option()? {
        if option == "OFFSET" {
            offset = options.non_negative("offset")?;
        } else {
            ranks = Ranks::Shared;
        }
    }
    if ctx.open_zset(key)?.is_none() || count == 0 {
        ctx.reply_array(0);
        return Ok(());
    }
    reply_rank_range(ctx, key, offset, offset.saturating_add(count - 1), ranks)
}

/// RANK.AROUND `key member radius [SHARED]` -> `[[rank, member, total], ...]`.
fn around(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    let (key, member) = (&args[1], &args[2]);
    let radius = parse_non_negative(args[3].as_bytes(), "radius")?;
    let ranks = parse_ranks(&args[4..])?;
    // The type check; ZREVRANK then answers nil for an absent member.
    let rank = if ctx.open_zset(key)?.is_some() {
        rank_of(ctx, key, member)?
    } else {
        None
    };
    let Some(rank) = rank else {
        ctx.reply_array(0);
        return Ok(());
    };
    let index = rank - 1;
    reply_rank_range(
        ctx,
        key,
        index.saturating_sub(radius).max(0),
        index.saturating_add(radius),
        ranks,
    )
}

/// RANK.MERGE `destkey numkeys key [key ...] [WEIGHTS w [w ...]]` -> integer.
fn merge(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    let dest = &args[1];
    let (sources, options) = split_numkeys(&args[2], &args[3..])?;
    let weights = parse_weights(options, sources.len())?;

    // Read and check everything before the first write.
    let clock = tiebreak_clock();
    let mut merged = MergedBoard::default();
    for (source, weight) in sources.iter().zip(&weights) {
        if let Some(mut board) = ctx.open_zset(source)? {
            for (member, score) in board.iter_asc(ScoreBound::MIN, ScoreBound::MAX) {
                merged.add(member, clock.decode(score)?, *weight)?;
            }
        }
    }
    let scored = merged.scores(&clock)?;
    // Stored like ZUNIONSTORE stores: the same writes, the same event.
    ctx.store_zset(dest, &scored, c"zunionstore")?;
    ctx.reply_i64(scored.len() as i64);
    Ok(())
}

/// `[WEIGHTS w ...]`: exactly one integer weight per source; default 1 each.
fn parse_weights(options: &[RStr], sources: usize) -> Result<Vec<i64>, ZkitError> {
    match options {
        [] => Ok(vec![1; sources]),
        [keyword, weights @ ..]
            if is_keyword(keyword.as_bytes(), "WEIGHTS") && weights.len() == sources =>
        {
            weights.iter().map(|w| parse_i64(w.as_bytes())).collect()
        }
        _ => Err(ZkitError::Syntax),
    }
}

/// Members of a merge being built: total so far and latest reached-at.
#[derive(Default)]
struct MergedBoard {
    index: HashMap<Vec<u8>, usize>,
    entries: Vec<(OwnedRStr, RankEntry)>,
}

impl MergedBoard {
    fn add(&mut self, member: OwnedRStr, entry: RankEntry, weight: i64) -> Result<(), ZkitError> {
        let weighted = weigh_total(entry.total, weight)?;
        match self.index.get(member.as_bytes()) {
            Some(&i) => {
                let merged = &mut self.entries[i].1;
                merged.total = add_totals(merged.total, weighted)?;
                merged.reached_at_ms = merged.reached_at_ms.max(entry.reached_at_ms);
            }
            None => {
                self.index
                    .insert(member.as_bytes().to_vec(), self.entries.len());
                self.entries.push((
                    member,
                    RankEntry {
                        total: weighted,
                        reached_at_ms: entry.reached_at_ms,
                    },
                ));
            }
        }
        Ok(())
    }

    fn scores(self, clock: &TieBreakClock) -> Result<Vec<(OwnedRStr, f64)>, ZkitError> {
        self.entries
            .into_iter()
            .map(|(member, e)| Ok((member, clock.encode(e.total, e.reached_at_ms)?)))
            .collect()
    }
}

/// Boards up to this many members are listpacks at the server's default
/// `zset-max-listpack-entries`.
const LISTPACK_BOARD_MAX: usize = 128;

/// Keeps a small board that was just written in the skiplist layout, where
/// scores are doubles instead of text parsed at every step of a walk
/// (docs/performance.md, "Small boards"). Only speed is at stake: when the
/// layout cannot be read or changed the board stays a listpack and every
/// reply is the same, so nothing here fails the write.
fn keep_skiplist_layout(ctx: &Ctx, key: &RStr, board: &mut Zset) {
    if !is_small_board(board.len()) {
        return;
    }
    let _converted = ctx
        .zset_is_listpack(key)
        .and_then(|listpack| match listpack {
            true => board.convert_to_skiplist(ctx.listpack_value_limit()?),
            false => Ok(false),
        });
}

/// Whether a board of `len` members is kept in the skiplist layout.
fn is_small_board(len: usize) -> bool {
    len as u64 <= SMALL_BOARD_MAX.value.load(Ordering::Relaxed) as u64
}

/// Whether small boards are kept in the skiplist layout at all
/// (`zkit.small-board-max` above 0).
pub fn small_boards_wanted() -> bool {
    SMALL_BOARD_MAX.value.load(Ordering::Relaxed) > 0
}

/// Takes a sorted set an RDB load brought in for a board to move to the
/// skiplist layout (see [`scores_read_as_board`]); called for every loaded
/// sorted set, so a board is fast again after a restart, a full sync or
/// DEBUG RELOAD before any write reaches it.
pub fn is_loaded_board(zset: &mut Zset) -> bool {
    is_small_board(zset.len())
        && scores_read_as_board(
            zset.iter_asc(ScoreBound::MIN, ScoreBound::MAX)
                .map(|(_, score)| score),
        )
}

/// The 1-based rank of a member, highest total first; `None` if absent.
fn rank_of(ctx: &Ctx, key: &RStr, member: &RStr) -> Result<Option<i64>, ZkitError> {
    let reply = ctx.call(c"ZREVRANK", &[CallArg::Str(key), CallArg::Str(member)])?;
    let reply = reply.get();
    if reply.is_null() {
        return Ok(None);
    }
    reply
        .integer()
        .map(|index| Some(index + 1))
        .ok_or_else(|| ZkitError::Internal("ZREVRANK did not return an integer".into()))
}

/// The rank a reply gives a member that is on the board with `total`.
fn rank_of_member(
    ctx: &Ctx,
    key: &RStr,
    member: &RStr,
    total: i64,
    ranks: Ranks,
) -> Result<i64, ZkitError> {
    match ranks {
        Ranks::FirstCome => rank_of(ctx, key, member)?
            .ok_or_else(|| ZkitError::Internal("the member is not on the board".into())),
        Ranks::Shared => shared_rank(ctx, key, total),
    }
}

/// The competition rank of `total`: 1 + the members whose total is higher,
/// i.e. scored at `total + 1` or more (|total| < 2^52, so the bound is an
/// exact double).
fn shared_rank(ctx: &Ctx, key: &RStr, total: i64) -> Result<i64, ZkitError> {
    let higher = ctx.call(
        c"ZCOUNT",
        &[
            CallArg::Str(key),
            CallArg::Int(total + 1),
            CallArg::Bytes(b"+inf"),
        ],
    )?;
    higher
        .get()
        .integer()
        .map(|higher| higher + 1)
        .ok_or_else(|| ZkitError::Internal("ZCOUNT did not return an integer".into()))
}

/// Replies `[[rank, member, total], ...]` for 0-based positions
/// `start..=stop`.
fn reply_rank_range(
    ctx: &Ctx,
    key: &RStr,
    start: i64,
    stop: i64,
    ranks: Ranks,
) -> Result<(), ZkitError> {
    let Some(mut board) = ctx.open_zset(key)? else {
        ctx.reply_array(0);
        return Ok(());
    };
    let clock = tiebreak_clock();
    if board.len() <= LISTPACK_BOARD_MAX {
        // A small board: the page is read from the key, walking down from
        // the highest score (at most 128 steps), with no call, no reply to
        // build and no score printed as text and parsed back.
        let skip = usize::try_from(start).unwrap_or(usize::MAX);
        let take = usize::try_from(stop - start).map_or(0, |n| n.saturating_add(1));
        let page: Vec<(OwnedRStr, f64)> = board
            .iter_desc(ScoreBound::MIN, ScoreBound::MAX)
            .skip(skip)
            .take(take)
            .collect();
        drop(board);
        let members: Vec<&[u8]> = page.iter().map(|(m, _)| m.as_bytes()).collect();
        let totals = page
            .iter()
            .map(|&(_, score)| Ok(clock.decode(score)?.total))
            .collect::<Result<Vec<i64>, ZkitError>>()?;
        return reply_page(ctx, key, start, &members, &totals, ranks);
    }
    // A larger board: the page comes from ZRANGE, since the key API cannot
    // seek to a rank, and its scores from the key (a hash lookup each): with
    // WITHSCORES the server would print each score as text for the call's
    // reply and parse it back, more than half of what a page costs.
    let args = [
        CallArg::Str(key),
        CallArg::Int(start),
        CallArg::Int(stop),
        CallArg::Bytes(b"REV"),
    ];
    let reply = ctx.call(c"ZRANGE", &args)?;
    let rows = reply.get();
    let (mut members, mut totals) = (
        Vec::with_capacity(rows.len()),
        Vec::with_capacity(rows.len()),
    );
    let unexpected = || ZkitError::Internal("unexpected ZRANGE reply".into());
    for row in (0..rows.len()).map(|i| rows.element(i)) {
        let member = row.and_then(|m| m.bytes()).ok_or_else(unexpected)?;
        let score = board
            .score(&OwnedRStr::new(member))
            .ok_or_else(unexpected)?;
        members.push(member);
        totals.push(clock.decode(score)?.total);
    }
    drop(board);
    reply_page(ctx, key, start, &members, &totals, ranks)
}

/// Replies a page of `members` with their `totals`, the first at 0-based
/// position `start`: `[[rank, member, total], ...]`. Shared ranks cost one
/// count for the whole page.
fn reply_page(
    ctx: &Ctx,
    key: &RStr,
    start: i64,
    members: &[&[u8]],
    totals: &[i64],
    ranks: Ranks,
) -> Result<(), ZkitError> {
    let Some(&first_total) = totals.first() else {
        ctx.reply_array(0);
        return Ok(());
    };
    // The page holds a member at `start`, so `start + 1` does not overflow.
    let first_position = start + 1;
    let rank_list = match ranks {
        Ranks::Shared => shared_ranks(first_position, shared_rank(ctx, key, first_total)?, totals),
        Ranks::FirstCome => (first_position..).take(totals.len()).collect(),
    };
    ctx.reply_array(members.len());
    for ((member, total), rank) in members.iter().zip(totals).zip(&rank_list) {
        ctx.reply_array(3);
        ctx.reply_i64(*rank);
        ctx.reply_bulk(member);
        ctx.reply_i64(*total);
    }
    Ok(())
}
