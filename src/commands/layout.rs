//! The layout of small sorted sets: the skiplist while one is hot, the
//! server's listpack otherwise (docs/performance.md, "Small boards").
//!
//! A sorted set of up to 128 members is a listpack, which every walk goes
//! through entry by entry, parsing back each score that has a fraction
//! (every rank score): at 100 members a RANK.GIFT costs about six times what
//! it costs on a skiplist, a RANK.TOP twice, a FEED.PAGE and a FEED.ADD with
//! CAP about twice and three times, a RECENT.ADD three times, a DELAY.NACK
//! or DELAY.TOUCH four times (a new due time or lease end goes in past
//! every earlier one, at the far end). A skiplist takes about three times
//! the memory. So a gift board, a feed, a recently-viewed list, a delay
//! queue or an in-flight set (a "board" in the code below, a "set" in the
//! configs' names and INFO's `hot_sets`) moves to the skiplist when it is
//! used often ([`HOT_SET_WRITES`] writes within a second, or the reads that
//! waste as much), and back to a listpack once nobody has used it for
//! [`COLD_SET_MS`]: a million quiet rooms keep the listpack's memory, the
//! busy ones run at skiplist speed. Which boards are hot is remembered here
//! (`logic::layout`), so a write never asks the server for a layout;
//! the moves themselves are the host's (`host::layout`), invisible to
//! clients, replicas and the AOF. An RDB load brings every board back as a
//! listpack, and the ones still busy move again as they are written: there
//! is no conversion at load.

use std::sync::{LazyLock, Mutex};

use super::config::NumericConfig;
use super::counter::Counter;
use crate::host;
use crate::host::ctx::Ctx;
use crate::host::layout::LayoutEvents;
use crate::host::layout::Rebuilt;
use crate::host::string::RStr;
use crate::host::zset::Zset;
pub use crate::logic::layout::Use;
use crate::logic::layout::{Advice, LayoutPolicy, LayoutRules};

/// Boards up to this many members are listpacks at the server's default
/// `zset-max-listpack-entries`.
pub const LISTPACK_BOARD_MAX: usize = 128;

/// `zkit.small-set-max` (`zkit.small-board-max` before 0.5.0, still
/// accepted): boards of up to this many members move to the skiplist layout
/// while hot; 0 leaves every board in the layout the server picks, as zkit
/// 0.2 did. Boards over the server's `zset-max-listpack-entries` are
/// skiplists anyway.
pub static SMALL_SET_MAX: NumericConfig = NumericConfig::renamed(
    "small-set-max",
    "small-board-max",
    LISTPACK_BOARD_MAX as i64,
    0,
    1 << 16,
);

/// `zkit.hot-set-writes` (`zkit.hot-board-writes` before 0.5.0, still
/// accepted): the writes within a second that make a small board hot
/// (moved to the skiplist layout), a page read (RANK.TOP, RANK.AROUND)
/// counting half a write and a member read (RANK.GET, RANK.MGET) a
/// quarter; 0: never, 1: at its first write. The default,
/// 12: moving a board of 50 members and later rebuilding it costs about
/// what 12 writes to its listpack waste (7 at 10 members, 18 at 128), so a
/// board moves once it has wasted as much as the move costs.
pub static HOT_SET_WRITES: NumericConfig =
    NumericConfig::renamed("hot-set-writes", "hot-board-writes", 12, 0, 1 << 20);

/// `zkit.cold-set-ms` (`zkit.cold-board-ms` before 0.5.0, still accepted):
/// how long a hot board goes without a zkit command before it is rebuilt as
/// a listpack; 0: never (until the next RDB load). 30 s: a board that keeps turning hot and cold pays a move and a rebuild
/// at most every 30 s, less than one listpack write a second.
pub static COLD_SET_MS: NumericConfig =
    NumericConfig::renamed("cold-set-ms", "cold-board-ms", 30_000, 0, 1 << 40);

/// `zkit.convert-loaded-boards`, retired in 0.3.1: 0.3.0 converted small
/// boards as an RDB load brought them in. Still accepted (redis.conf files
/// carry it), and does nothing: boards move when they are written often.
/// Set to 1, it is named in the log at load.
pub static CONVERT_LOADED_BOARDS: NumericConfig =
    NumericConfig::new("convert-loaded-boards", 0, 0, 1);

/// Boards moved to the skiplist layout, and rebuilt as listpacks, since the
/// module loaded (INFO zkit).
pub static BOARDS_MOVED_TO_SKIPLIST: Counter = Counter::new();
pub static BOARDS_BACK_TO_LISTPACK: Counter = Counter::new();

/// The members one cron tick rebuilds at most (a few milliseconds of work),
/// so a wave of boards turning cold together never stalls the server.
const REBUILD_BUDGET_MEMBERS: usize = 2048;

static POLICY: LazyLock<Mutex<LayoutPolicy>> = LazyLock::new(Mutex::default);

fn policy() -> std::sync::MutexGuard<'static, LayoutPolicy> {
    // Main thread only: never contended; a panic elsewhere left it usable.
    POLICY.lock().unwrap_or_else(|e| e.into_inner())
}

fn rules() -> LayoutRules {
    LayoutRules {
        hot_writes: u32::try_from(HOT_SET_WRITES.get()).unwrap_or(u32::MAX),
        cold_ms: COLD_SET_MS.get(),
    }
}

/// The most members a board may have to move to the skiplist while hot.
fn small_set_max() -> usize {
    let configured = usize::try_from(SMALL_SET_MAX.get()).unwrap_or(0);
    host::layout::listpack_entries_limit().map_or(configured, |limit| limit.min(configured))
}

/// What a use of a small board tells of its layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// The skiplist: moved there now, or hot and remembered there (a board
    /// replaced by other means since is the count's to find; a walk that
    /// relies on it is only slower then, never wrong).
    Skiplist,
    /// A listpack, or not known.
    Unknown,
}

/// Counts a write that changed `board` (named `key`), which was absent
/// before it when `created`, and moves the board to the skiplist layout if
/// that made it hot. Only speed is at stake: a board that cannot move stays
/// a listpack and every reply is the same, so nothing here fails the write.
pub fn after_write(ctx: &Ctx, key: &RStr, board: &mut Zset, created: bool) -> Layout {
    if board.len() > small_set_max() {
        return Layout::Unknown;
    }
    let db = ctx.selected_db();
    let now_ms = ctx.now_ms();
    let mut heat = policy();
    match heat.on_use(db, key.as_bytes(), now_ms, Use::Write, created, rules()) {
        Advice::Leave => Layout::Unknown,
        Advice::StayHot => Layout::Skiplist,
        advice @ (Advice::MoveToSkiplist | Advice::CheckSkiplist) => match board.move_to_skiplist()
        {
            Ok(true) => {
                heat.moved(db, key.as_bytes(), now_ms);
                if advice == Advice::MoveToSkiplist {
                    BOARDS_MOVED_TO_SKIPLIST.add(1);
                }
                Layout::Skiplist
            }
            Ok(false) | Err(_) => {
                heat.forget(db, key.as_bytes());
                Layout::Unknown
            }
        },
    }
}

/// Counts a read of board `key`, of `len` members, and moves the board
/// to the skiplist layout if that made it hot: a change of layout, not of
/// data, so a read may make it, unless the server is out of memory or
/// paused (then the board warms up again).
pub fn after_read(ctx: &Ctx, key: &RStr, len: usize, used: Use) -> Layout {
    let max_len = small_set_max();
    if len == 0 || len > max_len {
        return Layout::Unknown;
    }
    let db = ctx.selected_db();
    let now_ms = ctx.now_ms();
    let mut heat = policy();
    match heat.on_use(db, key.as_bytes(), now_ms, used, false, rules()) {
        Advice::StayHot => return Layout::Skiplist,
        Advice::MoveToSkiplist => {}
        Advice::Leave | Advice::CheckSkiplist => return Layout::Unknown,
    }
    let moved = ctx.layout_may_grow()
        && matches!(
            ctx.move_to_skiplist(db, key.as_bytes(), max_len),
            Ok(Some(_))
        );
    if moved {
        heat.moved(db, key.as_bytes(), now_ms);
        BOARDS_MOVED_TO_SKIPLIST.add(1);
        Layout::Skiplist
    } else {
        heat.forget(db, key.as_bytes());
        Layout::Unknown
    }
}

/// The server's cron tick: housekeeping, and the boards that turned cold go
/// back to the listpack, within [`REBUILD_BUDGET_MEMBERS`] members a tick.
fn tick(ctx: &Ctx) {
    let rules = rules();
    let now_ms = ctx.now_ms();
    let mut heat = policy();
    heat.tick(now_ms, rules);
    // A rebuild fires `new`, which clients see with `n` in
    // notify-keyspace-events: cold boards wait while it is on.
    if !heat.has_cold() || !ctx.layout_may_change() || ctx.new_key_events_on() {
        return;
    }
    let max_len = small_set_max();
    let mut budget = REBUILD_BUDGET_MEMBERS;
    while budget > 0 {
        let Some(board) = heat.next_cold(now_ms, rules) else {
            break;
        };
        match ctx.rebuild_as_listpack(board.db(), board.key(), max_len) {
            Ok(Rebuilt::Listpack(members)) => {
                BOARDS_BACK_TO_LISTPACK.add(1);
                budget = budget.saturating_sub(members);
            }
            Ok(Rebuilt::Left) => {}
            Err(error) => ctx.log_warning(&format!("zkit: a cold board keeps its layout: {error}")),
        }
    }
}

/// The data set was replaced: nothing remembered of boards holds.
fn data_replaced() {
    policy().clear();
}

/// How many boards are remembered as hot (INFO zkit's `hot_sets`).
pub fn hot_sets() -> usize {
    policy().hot_boards()
}

/// Sets the policy up at load: forgets what a previous load remembered,
/// subscribes to the server's events, and names a retired config that is
/// still set.
pub fn load(ctx: &Ctx) -> Result<(), String> {
    data_replaced();
    if CONVERT_LOADED_BOARDS.get() != 0 {
        ctx.log_warning(
            "zkit: zkit.convert-loaded-boards is retired and does nothing: since 0.3.1 small \
             boards move to the skiplist layout when they are written often \
             (zkit.hot-set-writes) and back when they go quiet (zkit.cold-set-ms)",
        );
    }
    host::layout::subscribe_layout_events(
        ctx,
        LayoutEvents {
            tick,
            data_replaced,
        },
    )
}
