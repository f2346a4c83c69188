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
use super::idmp::{self, Idmp, IDMP_ARG, RETAIN_ARG};
use super::{Command, NumericConfig};
use crate::declare_command;
use crate::error::{bound, ZkitError};
use crate::host::{
    key_flags as kf, Arg, BeginSearch, CallArg, Ctx, FindKeys, KeySpec, OwnedRStr, RStr,
    ScoreBound, Zset,
};
use crate::logic::idmp::Seen;
use crate::logic::rank::{
    add_totals, check_distinct_boards, next_total, shared_ranks, weigh_total, RankEntry,
    SetCondition, TieBreakClock, TotalUpdate, CLOCK_LIMIT_MS, DEFAULT_EPOCH_MS, DEFAULT_SPAN_MS,
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

/// The tie-break clock boards encode and decode with now.
pub fn tiebreak_clock() -> TieBreakClock {
    TieBreakClock::new(
        TIEBREAK_EPOCH_MS.value.load(Ordering::Relaxed),
        TIEBREAK_SPAN_MS.value.load(Ordering::Relaxed),
    )
    .expect("the config bounds keep the clock valid")
}

const BOARD_WRITE_FLAGS: u32 = kf::RW | kf::ACCESS | kf::UPDATE;
/// The board, and the IDMP seen-key after the member and value.
const BOARD_WRITE: &[KeySpec] = &[KeySpec::at(1, BOARD_WRITE_FLAGS), idmp::key_spec(4)];
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
            IDMP_ARG,
            RETAIN_ARG,
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
            IDMP_ARG,
            RETAIN_ARG,
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
        key_specs: &[
            KeySpec {
                flags: BOARD_WRITE_FLAGS,
                begin: BeginSearch::Index(1),
                find: FindKeys::KeyNum {
                    count_index: 0,
                    first: 1,
                    step: 1,
                },
            },
            // The clause closes the command: searched back from the end.
            idmp::key_spec(-3),
        ],
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
            IDMP_ARG,
            RETAIN_ARG,
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
    let (options, idmp) = idmp::split_trailing(&args[4..])?;
    let options = parse_write_options(options, &["AT", "SHARED"])?;
    let update = TotalUpdate::Add(amount);
    write_total(ctx, &args[1], &args[2], update, options, idmp)
}

fn set(ctx: &Ctx, args: &[RStr]) -> Result<(), ZkitError> {
    let total = parse_i64(args[3].as_bytes())?;
    let (options, idmp) = idmp::split_trailing(&args[4..])?;
    let options = parse_write_options(options, &["AT", "SHARED", "GT", "LT"])?;
    let update = TotalUpdate::Set(total, options.condition);
    write_total(ctx, &args[1], &args[2], update, options, idmp)
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
    }
    Ok(())
}

/// RANK.GIFT / RANK.SET: `key member value [AT unix-ms] [GT|LT] [SHARED]
/// [IDMP seen-key event-id [RETAIN ms]]` -> `[total, rank]`, the total that
/// stands after the call, and with IDMP whether the event was already
/// applied (then the board is untouched and the reply is its current state).
fn write_total(
    ctx: &Ctx,
    key: &RStr,
    member: &RStr,
    update: TotalUpdate,
    options: WriteOptions,
    idmp: Option<Idmp>,
) -> Result<(), ZkitError> {
    let seen = idmp.as_ref().map(|i| i.check(ctx, &[key])).transpose()?;
    if seen == Some(Seen::Repeat) {
        let standing = standing_entry(ctx, key, member, options.ranks)?;
        ctx.reply_array(3);
        reply_standing(ctx, standing);
        idmp::reply_flag(ctx, seen);
        return Ok(());
    }
    let clock = tiebreak_clock();
    let at_ms = options.at_ms.unwrap_or_else(|| ctx.now_ms());
    let mut board = ctx.open_zset_mut(key)?;
    let planned = plan_write(&clock, board.score(member), update, at_ms)?;
    apply_write(&mut board, member, update, &planned)?;
    drop(board);
    if let Some(idmp) = &idmp {
        idmp.record(ctx)?;
    }
    let rank = rank_of_member(ctx, key, member, planned.total, options.ranks)?;
    ctx.reply_array(2 + usize::from(seen.is_some()));
    ctx.reply_i64(planned.total);
    ctx.reply_i64(rank);
    idmp::reply_flag(ctx, seen);
    Ok(())
}

/// A member's `(total, rank)` as the board stands, `None` when it is not on
/// the board: what a repeated event replies instead of writing.
fn standing_entry(
    ctx: &Ctx,
    key: &RStr,
    member: &RStr,
    ranks: Ranks,
) -> Result<Option<(i64, i64)>, ZkitError> {
    let score = ctx.open_zset(key)?.and_then(|board| board.score(member));
    let Some(score) = score else {
        return Ok(None);
    };
    let total = tiebreak_clock().decode(score)?.total;
    Ok(Some((
        total,
        rank_of_member(ctx, key, member, total, ranks)?,
    )))
}

/// `total, rank` of a standing entry; a member no longer on the board
/// (removed since its event was applied) stands at total 0 with no rank.
fn reply_standing(ctx: &Ctx, standing: Option<(i64, i64)>) {
    match standing {
        Some((total, rank)) => {
            ctx.reply_i64(total);
            ctx.reply_i64(rank);
        }
        None => {
            ctx.reply_i64(0);
            ctx.reply_null();
        }
    }
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
    let (options, idmp) = idmp::split_trailing(options)?;
    let options = parse_write_options(options, &["AT", "SHARED"])?;
    let names: Vec<&[u8]> = boards.iter().map(RStr::as_bytes).collect();
    check_distinct_boards(&names)?;
    let written: Vec<&RStr> = boards.iter().collect();
    let seen = idmp.as_ref().map(|i| i.check(ctx, &written)).transpose()?;
    if seen == Some(Seen::Repeat) {
        let mut standing = Vec::with_capacity(boards.len());
        for key in boards {
            standing.push(standing_entry(ctx, key, member, options.ranks)?);
        }
        ctx.reply_array(boards.len() + 1);
        for entry in standing {
            ctx.reply_array(2);
            reply_standing(ctx, entry);
        }
        idmp::reply_flag(ctx, seen);
        return Ok(());
    }

    let clock = tiebreak_clock();
    let at_ms = options.at_ms.unwrap_or_else(|| ctx.now_ms());
    let mut planned = Vec::with_capacity(boards.len());
    for key in boards {
        let previous = ctx.open_zset(key)?.and_then(|board| board.score(member));
        planned.push(plan_write(&clock, previous, update, at_ms)?);
    }
    for (key, write) in boards.iter().zip(&planned) {
        apply_write(&mut ctx.open_zset_mut(key)?, member, update, write)?;
    }
    if let Some(idmp) = &idmp {
        idmp.record(ctx)?;
    }
    ctx.reply_array(boards.len() + usize::from(seen.is_some()));
    for (key, write) in boards.iter().zip(&planned) {
        let rank = rank_of_member(ctx, key, member, write.total, options.ranks)?;
        ctx.reply_array(2);
        ctx.reply_i64(write.total);
        ctx.reply_i64(rank);
    }
    idmp::reply_flag(ctx, seen);
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
/// `start..=stop`. Shared ranks cost one count for the whole page.
fn reply_rank_range(
    ctx: &Ctx,
    key: &RStr,
    start: i64,
    stop: i64,
    ranks: Ranks,
) -> Result<(), ZkitError> {
    // The page comes from ZRANGE: the key API cannot seek to a rank. On a
    // skiplist board its scores come from the key (a hash lookup each): with
    // WITHSCORES the server would print each score as text for the call's
    // reply and parse it back, more than half of what a page costs. On a
    // small board, a listpack at the default settings, a lookup walks the
    // board, so WITHSCORES is cheaper there.
    let Some(board) = ctx.open_zset(key)? else {
        ctx.reply_array(0);
        return Ok(());
    };
    let small = board.len() <= LISTPACK_BOARD_MAX;
    let args = [
        CallArg::Str(key),
        CallArg::Int(start),
        CallArg::Int(stop),
        CallArg::Bytes(b"REV"),
        CallArg::Bytes(b"WITHSCORES"),
    ];
    let reply = ctx.call(c"ZRANGE", if small { &args } else { &args[..4] })?;
    let clock = tiebreak_clock();
    let rows = reply.get();
    let (mut members, mut totals) = (
        Vec::with_capacity(rows.len()),
        Vec::with_capacity(rows.len()),
    );
    let unexpected = || ZkitError::Internal("unexpected ZRANGE reply".into());
    for row in (0..rows.len()).map(|i| rows.element(i)) {
        let (member, score) = if small {
            let member = row.and_then(|r| r.element(0)).and_then(|m| m.bytes());
            let score = row.and_then(|r| r.element(1)).and_then(|s| s.double());
            (member, score)
        } else {
            let member = row.and_then(|m| m.bytes());
            (member, member.and_then(|m| board.score(&OwnedRStr::new(m))))
        };
        members.push(member.ok_or_else(unexpected)?);
        totals.push(clock.decode(score.ok_or_else(unexpected)?)?.total);
    }
    let Some(&first_total) = totals.first() else {
        ctx.reply_array(0);
        return Ok(());
    };
    // The page holds a member at `start`, so `start + 1` does not overflow.
    let first_position = start + 1;
    let rank_list = match ranks {
        Ranks::Shared => shared_ranks(first_position, shared_rank(ctx, key, first_total)?, &totals),
        Ranks::FirstCome => (first_position..).take(totals.len()).collect(),
    };
    ctx.reply_array(members.len());
    for ((member, total), rank) in members.iter().zip(&totals).zip(&rank_list) {
        ctx.reply_array(3);
        ctx.reply_i64(*rank);
        ctx.reply_bulk(member);
        ctx.reply_i64(*total);
    }
    Ok(())
}
