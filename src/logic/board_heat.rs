//! Which small boards are hot: the boards worth the skiplist layout now.
//!
//! A small sorted set is a listpack, where a score with a fraction (every
//! rank score has one) is text that each write parses back at every member
//! it passes; the skiplist keeps doubles, at about three times the memory.
//! Converting a board and later rebuilding it as a listpack costs about as
//! much as a few writes on the listpack save (docs/performance.md, "Small
//! boards"), so a board moves to the skiplist only once it is written often,
//! and goes back once nobody has written it for a while:
//!
//! - **Warming**: a board's writes are counted in a window of [`WINDOW_MS`]
//!   from its first one; the write that reaches `hot_writes` within the
//!   window moves it to the skiplist.
//! - **Hot**: the board is remembered as a skiplist, so later writes neither
//!   ask the server for its layout nor convert it again. Every
//!   [`RECHECK_WRITES`]th write converts once more, which costs little on a
//!   skiplist and repairs a board that was replaced behind zkit's back (a
//!   RESTORE, a RENAME over it): the memory here is a hint, never a fact a
//!   reply depends on.
//! - **Cold**: a hot board with no write for `cold_ms` is due to go back to
//!   the listpack.
//!
//! Boards are named by [`BoardId`] (database and key). Nothing here reads a
//! clock: callers pass the time.

use std::borrow::Borrow;
use std::collections::{HashMap, VecDeque};

/// How long a board's writes count towards making it hot.
pub const WINDOW_MS: i64 = 1000;

/// A hot board is converted again at every this many writes (see the module
/// doc).
pub const RECHECK_WRITES: u32 = 64;

/// A board's identity: its database and key name, in one byte string.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BoardId(Box<[u8]>);

impl BoardId {
    pub fn new(db: i32, key: &[u8]) -> BoardId {
        let mut id = Vec::new();
        write_id(&mut id, db, key);
        BoardId(id.into_boxed_slice())
    }

    pub fn db(&self) -> i32 {
        let mut db = [0; 4];
        db.copy_from_slice(&self.0[..4]);
        i32::from_le_bytes(db)
    }

    pub fn key(&self) -> &[u8] {
        &self.0[4..]
    }
}

/// Lookups by the bytes of an id, built in a reused buffer: a write looks
/// its board up without allocating.
impl Borrow<[u8]> for BoardId {
    fn borrow(&self) -> &[u8] {
        &self.0
    }
}

fn write_id(buffer: &mut Vec<u8>, db: i32, key: &[u8]) {
    buffer.clear();
    buffer.extend_from_slice(&db.to_le_bytes());
    buffer.extend_from_slice(key);
}

/// The rules, from the configs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeatRules {
    /// Writes within [`WINDOW_MS`] that make a board hot; 0: never.
    pub hot_writes: u32,
    /// How long a hot board goes without a write before it is due to go
    /// back; 0: never (until the server reloads its data).
    pub cold_ms: i64,
}

/// What to do with a board that was just written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advice {
    /// Leave its layout as it is.
    Leave,
    /// It just turned hot: move it to the skiplist layout, then report with
    /// [`BoardHeat::moved`] or [`BoardHeat::forget`].
    MoveToSkiplist,
    /// A hot board's periodic check: move it again (a no-op where it is a
    /// skiplist, as remembered), then report the same way.
    CheckSkiplist,
}

#[derive(Clone, Copy, Debug)]
struct Warming {
    first_write_ms: i64,
    writes: u32,
}

#[derive(Clone, Copy, Debug)]
struct Hot {
    last_write_ms: i64,
    writes_since_check: u32,
    /// Already in the queue of boards due to go back.
    queued: bool,
}

/// The heat of every board written lately, and the hot ones.
#[derive(Debug, Default)]
pub struct BoardHeat {
    /// Boards being counted, in two generations: a write finds its board in
    /// either (moving it to the current one), and each rotation drops the
    /// older one, so a board written once is forgotten within two windows
    /// without a walk over the boards.
    warming: HashMap<BoardId, Warming>,
    warming_before: HashMap<BoardId, Warming>,
    rotated_ms: i64,
    hot: HashMap<BoardId, Hot>,
    cold: VecDeque<BoardId>,
    /// Where a write's id is built for its lookups.
    scratch: Vec<u8>,
}

impl BoardHeat {
    /// Counts a write to board `key` of database `db` at `now_ms`.
    /// `created`: the write created the board (it was absent), so whatever
    /// was remembered of a board of that name is stale: it starts warming
    /// again.
    pub fn on_write(
        &mut self,
        db: i32,
        key: &[u8],
        now_ms: i64,
        created: bool,
        rules: HeatRules,
    ) -> Advice {
        if rules.hot_writes == 0 {
            return Advice::Leave;
        }
        let mut id = std::mem::take(&mut self.scratch);
        write_id(&mut id, db, key);
        let advice = self.count_write(&id, now_ms, created, rules);
        self.scratch = id;
        advice
    }

    fn count_write(&mut self, id: &[u8], now_ms: i64, created: bool, rules: HeatRules) -> Advice {
        if let Some(hot) = self.hot.get_mut(id) {
            if !created {
                hot.last_write_ms = now_ms;
                hot.writes_since_check += 1;
                if hot.writes_since_check < RECHECK_WRITES {
                    return Advice::Leave;
                }
                hot.writes_since_check = 0;
                return Advice::CheckSkiplist;
            }
            self.hot.remove(id);
        }
        if !self.warming.contains_key(id) {
            let carried = self.warming_before.remove(id).unwrap_or(Warming {
                first_write_ms: now_ms,
                writes: 0,
            });
            self.warming.insert(BoardId(id.into()), carried);
        }
        let warming = self.warming.get_mut(id).expect("inserted above");
        if created || now_ms - warming.first_write_ms >= WINDOW_MS {
            *warming = Warming {
                first_write_ms: now_ms,
                writes: 0,
            };
        }
        warming.writes += 1;
        if warming.writes < rules.hot_writes {
            return Advice::Leave;
        }
        self.warming.remove(id);
        Advice::MoveToSkiplist
    }

    /// Board `key` of database `db` is a skiplist now (after
    /// [`Advice::MoveToSkiplist`]).
    pub fn moved(&mut self, db: i32, key: &[u8], now_ms: i64) {
        let id = BoardId::new(db, key);
        let hot = self.hot.entry(id).or_insert(Hot {
            last_write_ms: now_ms,
            writes_since_check: 0,
            queued: false,
        });
        hot.last_write_ms = now_ms;
    }

    /// Forgets board `key` of database `db`: it is no small board (any
    /// more), or it is gone.
    pub fn forget(&mut self, db: i32, key: &[u8]) {
        let mut id = std::mem::take(&mut self.scratch);
        write_id(&mut id, db, key);
        self.hot.remove(&id[..]);
        self.warming.remove(&id[..]);
        self.warming_before.remove(&id[..]);
        self.scratch = id;
    }

    /// Forgets every board: the server replaced its data (a load, a flush).
    pub fn clear(&mut self) {
        *self = BoardHeat::default();
    }

    /// How many boards are remembered as skiplists.
    pub fn hot_boards(&self) -> usize {
        self.hot.len()
    }

    /// Housekeeping, called often (every server cron tick): once per window,
    /// drops warming boards not written for a window and queues the hot
    /// boards that turned cold.
    pub fn tick(&mut self, now_ms: i64, rules: HeatRules) {
        if now_ms - self.rotated_ms < WINDOW_MS {
            return;
        }
        self.rotated_ms = now_ms;
        self.warming_before = std::mem::take(&mut self.warming);
        if rules.cold_ms == 0 {
            return;
        }
        for (id, hot) in &mut self.hot {
            if !hot.queued && now_ms - hot.last_write_ms >= rules.cold_ms {
                hot.queued = true;
                self.cold.push_back(id.clone());
            }
        }
    }

    /// The next board due to go back to the listpack, forgotten as hot: the
    /// caller rebuilds it. A board written since it was queued stays hot.
    pub fn next_cold(&mut self, now_ms: i64, rules: HeatRules) -> Option<BoardId> {
        while let Some(id) = self.cold.pop_front() {
            let Some(hot) = self.hot.get_mut(&id) else {
                continue;
            };
            hot.queued = false;
            if rules.cold_ms > 0 && now_ms - hot.last_write_ms >= rules.cold_ms {
                self.hot.remove(&id);
                return Some(id);
            }
        }
        None
    }

    /// Whether [`BoardHeat::next_cold`] may have a board.
    pub fn has_cold(&self) -> bool {
        !self.cold.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: HeatRules = HeatRules {
        hot_writes: 4,
        cold_ms: 10_000,
    };

    fn write(heat: &mut BoardHeat, name: &str, at_ms: i64) -> Advice {
        heat.on_write(0, name.as_bytes(), at_ms, false, RULES)
    }

    fn writes(heat: &mut BoardHeat, name: &str, times: &[i64]) -> Vec<Advice> {
        times.iter().map(|&t| write(heat, name, t)).collect()
    }

    fn moved(heat: &mut BoardHeat, name: &str, at_ms: i64) {
        heat.moved(0, name.as_bytes(), at_ms);
    }

    #[test]
    fn ids_keep_database_and_key_apart() {
        let id = BoardId::new(7, b"room:1");
        assert_eq!((id.db(), id.key()), (7, &b"room:1"[..]));
        assert_ne!(BoardId::new(1, b"a"), BoardId::new(2, b"a"));
        assert_eq!(BoardId::new(-1, b"").key(), b"");
        let mut heat = BoardHeat::default();
        heat.moved(1, b"a", 0);
        assert_eq!(heat.on_write(2, b"a", 1, false, RULES), Advice::Leave);
        assert_eq!(heat.hot_boards(), 1);
    }

    #[test]
    fn the_write_that_reaches_the_count_within_a_window_moves_the_board() {
        let mut heat = BoardHeat::default();
        let advice = writes(&mut heat, "b", &[0, 100, 200, 300]);
        assert_eq!(advice[..3], [Advice::Leave; 3]);
        assert_eq!(advice[3], Advice::MoveToSkiplist);
        moved(&mut heat, "b", 300);
        assert_eq!(heat.hot_boards(), 1);
        // Remembered: later writes leave it alone.
        assert_eq!(writes(&mut heat, "b", &[400, 500]), [Advice::Leave; 2]);
    }

    #[test]
    fn writes_spread_over_more_than_a_window_never_make_a_board_hot() {
        let mut heat = BoardHeat::default();
        for i in 0..100 {
            let t = i * 400;
            heat.tick(t, RULES);
            assert_eq!(write(&mut heat, "b", t), Advice::Leave, "write {i}");
        }
        assert_eq!(heat.hot_boards(), 0);
    }

    #[test]
    fn a_count_survives_one_rotation_and_boards_written_once_are_dropped() {
        let mut heat = BoardHeat::default();
        heat.tick(1000, RULES);
        writes(&mut heat, "b", &[1900, 1950]);
        write(&mut heat, "once", 1900);
        heat.tick(2000, RULES);
        // Carried over from the older generation.
        assert_eq!(
            writes(&mut heat, "b", &[2100, 2200]),
            [Advice::Leave, Advice::MoveToSkiplist]
        );
        heat.tick(3000, RULES);
        heat.tick(4000, RULES);
        assert!(heat.warming.is_empty() && heat.warming_before.is_empty());
    }

    #[test]
    fn a_created_board_starts_warming_again() {
        let mut heat = BoardHeat::default();
        writes(&mut heat, "b", &[0, 1, 2, 3]);
        moved(&mut heat, "b", 3);
        assert_eq!(heat.on_write(0, b"b", 4, true, RULES), Advice::Leave);
        assert_eq!(heat.hot_boards(), 0);
        assert_eq!(
            writes(&mut heat, "b", &[5, 6, 7]),
            [Advice::Leave, Advice::Leave, Advice::MoveToSkiplist]
        );
    }

    #[test]
    fn a_hot_board_is_converted_again_every_recheck_writes() {
        let mut heat = BoardHeat::default();
        moved(&mut heat, "b", 0);
        let every = i64::from(RECHECK_WRITES);
        let moves: Vec<i64> = (1..=3 * every)
            .filter(|&t| write(&mut heat, "b", t) == Advice::CheckSkiplist)
            .collect();
        assert_eq!(moves, [every, 2 * every, 3 * every]);
    }

    #[test]
    fn hot_boards_go_cold_after_cold_ms_without_a_write() {
        let mut heat = BoardHeat::default();
        moved(&mut heat, "quiet", 0);
        moved(&mut heat, "busy", 0);
        heat.tick(9_999, RULES);
        assert!(!heat.has_cold());
        write(&mut heat, "busy", 10_500);
        heat.tick(11_000, RULES);
        // Only the quiet one is due; the busy one was written since.
        assert_eq!(
            heat.next_cold(11_000, RULES),
            Some(BoardId::new(0, b"quiet"))
        );
        assert_eq!(heat.next_cold(11_000, RULES), None);
        assert_eq!(heat.hot_boards(), 1);
        // A write between queueing and rebuilding keeps the board hot.
        heat.tick(21_000, RULES);
        assert!(heat.has_cold());
        write(&mut heat, "busy", 21_001);
        assert_eq!(heat.next_cold(21_002, RULES), None);
        assert_eq!(heat.hot_boards(), 1);
    }

    #[test]
    fn zero_turns_each_rule_off() {
        let mut heat = BoardHeat::default();
        let never = HeatRules {
            hot_writes: 0,
            cold_ms: 0,
        };
        for t in 0..100 {
            assert_eq!(heat.on_write(0, b"b", t, false, never), Advice::Leave);
        }
        moved(&mut heat, "b", 0);
        heat.tick(1_000_000, never);
        assert_eq!(heat.next_cold(1_000_000, never), None);
        let once = HeatRules {
            hot_writes: 1,
            cold_ms: 0,
        };
        assert_eq!(
            heat.on_write(0, b"new", 0, false, once),
            Advice::MoveToSkiplist
        );
    }

    #[test]
    fn forget_and_clear_drop_what_is_remembered() {
        let mut heat = BoardHeat::default();
        moved(&mut heat, "a", 0);
        moved(&mut heat, "b", 0);
        heat.forget(0, b"a");
        assert_eq!(heat.hot_boards(), 1);
        write(&mut heat, "a", 0);
        heat.clear();
        assert_eq!(heat.hot_boards(), 0);
        assert!(heat.warming.is_empty());
    }
}
