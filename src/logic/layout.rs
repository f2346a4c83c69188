//! Which small boards are hot: the boards worth the skiplist layout now. A
//! board here is any small sorted set whose layout zkit keeps: a gift
//! board, a feed, a recently-viewed list, a delay queue, an in-flight set.
//!
//! A small sorted set is a listpack, where a score with a fraction (every
//! rank score has one) is text that each walk parses back at every member it
//! passes; the skiplist keeps doubles, at about three times the memory.
//! Moving a board there and later rebuilding it as a listpack costs about
//! what a dozen writes on the listpack waste (docs/performance.md, "Small
//! boards"), so a board moves only once it is used often, and goes back once
//! nobody has used it for a while:
//!
//! - **Warming**: each use of a board adds its [`Use::units`] within a window
//!   of [`WINDOW_MS`] from its first one: a write 4, a page read 2, a member
//!   read 1, in proportion to what each wastes on a listpack. The use that
//!   reaches `hot_writes` writes' worth makes it hot: the caller moves it at
//!   once ([`Advice::MoveToSkiplist`]).
//! - **Hot**: the board is remembered as a skiplist, so later uses neither
//!   ask the server for its layout nor move it again. Every
//!   [`RECHECK_WRITES`]th write moves it once more, which costs little on a
//!   skiplist and repairs a board that was replaced behind zkit's back (a
//!   RESTORE, a RENAME over it): the memory here is a hint, never a fact a
//!   reply depends on.
//! - **Cold**: a hot board unused for `cold_ms` is due to go back to the
//!   listpack ([`LayoutPolicy::next_cold`]).
//!
//! Boards are named by [`BoardId`] (database and key), and looked up by its
//! fingerprint: a use of a board that is neither hot nor warming (most uses,
//! where a million rooms are each written now and then) allocates nothing.
//! Nothing here reads a clock: callers pass the time.

use std::collections::hash_map::{Entry, RandomState};
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};

/// How long a board's uses count towards making it hot.
pub const WINDOW_MS: i64 = 1000;

/// A hot board is moved again at every this many writes (see the module
/// doc).
pub const RECHECK_WRITES: u32 = 64;

/// A board's identity: its database and key name, in one byte string.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BoardId(Box<[u8]>);

impl BoardId {
    pub fn new(db: i32, key: &[u8]) -> BoardId {
        let mut id = Vec::with_capacity(4 + key.len());
        id.extend_from_slice(&db.to_le_bytes());
        id.extend_from_slice(key);
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

/// A board's id hashed with keys drawn at random for each [`LayoutPolicy`]
/// (SipHash), so no client can choose names that collide. Two boards that
/// did would share their counts, and one might move a little early: a
/// change of speed, never of a reply.
type Fingerprint = u64;

/// The maps' hasher, over keys that are already hashes.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    fn write_u64(&mut self, fingerprint: u64) {
        self.0 = fingerprint;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type ByFingerprint<V> = HashMap<Fingerprint, V, BuildHasherDefault<Prehashed>>;

/// The rules, from the configs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayoutRules {
    /// Writes' worth of uses within [`WINDOW_MS`] that make a board hot; 0:
    /// never.
    pub hot_writes: u32,
    /// How long a hot board goes unused before it is due to go back; 0:
    /// never (until the server reloads its data).
    pub cold_ms: i64,
}

/// One use of a board, weighed by what it wastes on a listpack (at 50
/// members: a write about 57,000 instructions, a page of 10 about 34,000, a
/// member's rank about 11,000).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// A write that changed the board: its insertion parses each score it
    /// passes (on a feed or a recently-viewed list at 100 members, an add
    /// and its trim waste about 36,000; a lease that ends after all 100 of
    /// an in-flight set, about 29,000).
    Write,
    /// A page read from the key (RANK.TOP, RANK.AROUND, FEED.PAGE): each
    /// score of the page is parsed, or walked past (FEED.PAGE of 20 from the
    /// middle of 100 items: about 30,000).
    Page,
    /// Members' totals and ranks (RANK.GET, RANK.MGET).
    Member,
}

impl Use {
    pub const fn units(self) -> u32 {
        match self {
            Use::Write => WRITE_UNITS,
            Use::Page => 2,
            Use::Member => 1,
        }
    }
}

const WRITE_UNITS: u32 = 4;

/// What to do with a board that was just used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advice {
    /// Leave its layout as it is.
    Leave,
    /// Leave it: it is hot, and a skiplist as remembered.
    StayHot,
    /// It just turned hot: move it to the skiplist layout, then report with
    /// [`LayoutPolicy::moved`] or [`LayoutPolicy::forget`].
    MoveToSkiplist,
    /// A hot board's periodic check: move it again (a no-op where it is a
    /// skiplist, as remembered), then report the same way.
    CheckSkiplist,
}

#[derive(Clone, Copy, Debug)]
struct Warming {
    first_use_ms: i64,
    units: u32,
}

#[derive(Clone, Debug)]
struct Hot {
    id: BoardId,
    last_use_ms: i64,
    writes_since_check: u32,
    /// Already in the queue of boards due to go back.
    queued: bool,
}

/// The heat of every board used lately, and the hot ones.
#[derive(Debug, Default)]
pub struct LayoutPolicy {
    /// Boards being counted, in two generations: a use finds its board in
    /// either (moving it to the current one), and each rotation drops the
    /// older one, so a board used once is forgotten within two windows
    /// without a walk over the boards.
    warming: ByFingerprint<Warming>,
    warming_before: ByFingerprint<Warming>,
    rotated_ms: i64,
    hot: ByFingerprint<Hot>,
    cold: VecDeque<Fingerprint>,
    keys: RandomState,
}

impl LayoutPolicy {
    /// Counts a use of board `key` of database `db` at `now_ms`. `created`:
    /// the use (a write) created the board (it was absent), so whatever was
    /// remembered of a board of that name is stale: it starts warming again.
    pub fn on_use(
        &mut self,
        db: i32,
        key: &[u8],
        now_ms: i64,
        used: Use,
        created: bool,
        rules: LayoutRules,
    ) -> Advice {
        if rules.hot_writes == 0 {
            return Advice::Leave;
        }
        let fingerprint = self.fingerprint(db, key);
        self.count(fingerprint, now_ms, used, created, rules)
    }

    fn fingerprint(&self, db: i32, key: &[u8]) -> Fingerprint {
        let mut hasher = self.keys.build_hasher();
        hasher.write_i32(db);
        hasher.write(key);
        hasher.finish()
    }

    fn count(
        &mut self,
        fingerprint: Fingerprint,
        now_ms: i64,
        used: Use,
        created: bool,
        rules: LayoutRules,
    ) -> Advice {
        if let Some(hot) = self.hot.get_mut(&fingerprint) {
            if !created {
                hot.last_use_ms = now_ms;
                if used != Use::Write {
                    return Advice::StayHot;
                }
                hot.writes_since_check += 1;
                if hot.writes_since_check < RECHECK_WRITES {
                    return Advice::StayHot;
                }
                hot.writes_since_check = 0;
                return Advice::CheckSkiplist;
            }
            self.hot.remove(&fingerprint);
        }
        let warming = match self.warming.entry(fingerprint) {
            Entry::Occupied(warming) => warming.into_mut(),
            Entry::Vacant(slot) => {
                slot.insert(self.warming_before.remove(&fingerprint).unwrap_or(Warming {
                    first_use_ms: now_ms,
                    units: 0,
                }))
            }
        };
        if created || now_ms - warming.first_use_ms >= WINDOW_MS {
            *warming = Warming {
                first_use_ms: now_ms,
                units: 0,
            };
        }
        warming.units += used.units();
        if warming.units < rules.hot_writes.saturating_mul(WRITE_UNITS) {
            return Advice::Leave;
        }
        self.warming.remove(&fingerprint);
        Advice::MoveToSkiplist
    }

    /// Board `key` of database `db` is a skiplist now (after
    /// [`Advice::MoveToSkiplist`]).
    pub fn moved(&mut self, db: i32, key: &[u8], now_ms: i64) {
        let fingerprint = self.fingerprint(db, key);
        let hot = self.hot.entry(fingerprint).or_insert_with(|| Hot {
            id: BoardId::new(db, key),
            last_use_ms: now_ms,
            writes_since_check: 0,
            queued: false,
        });
        hot.last_use_ms = now_ms;
    }

    /// Forgets board `key` of database `db`: it is no small board (any
    /// more), or it is gone.
    pub fn forget(&mut self, db: i32, key: &[u8]) {
        let fingerprint = self.fingerprint(db, key);
        self.hot.remove(&fingerprint);
        self.warming.remove(&fingerprint);
        self.warming_before.remove(&fingerprint);
    }

    /// Forgets every board: the server replaced its data (a load, a flush).
    pub fn clear(&mut self) {
        *self = LayoutPolicy::default();
    }

    /// How many boards are remembered as skiplists.
    pub fn hot_boards(&self) -> usize {
        self.hot.len()
    }

    /// Housekeeping, called often (every server cron tick): once per window,
    /// drops warming boards not used for a window and queues the hot boards
    /// that turned cold.
    pub fn tick(&mut self, now_ms: i64, rules: LayoutRules) {
        if now_ms - self.rotated_ms < WINDOW_MS {
            return;
        }
        self.rotated_ms = now_ms;
        // The older generation's table is reused, sized for as many boards
        // as the last window counted: no growth (and rehashing) each window.
        std::mem::swap(&mut self.warming, &mut self.warming_before);
        self.warming.clear();
        self.warming.shrink_to(self.warming_before.len());
        if rules.cold_ms == 0 {
            return;
        }
        for (fingerprint, hot) in &mut self.hot {
            if !hot.queued && now_ms - hot.last_use_ms >= rules.cold_ms {
                hot.queued = true;
                self.cold.push_back(*fingerprint);
            }
        }
    }

    /// The next board due to go back to the listpack, forgotten as hot: the
    /// caller rebuilds it. A board used since it was queued stays hot.
    pub fn next_cold(&mut self, now_ms: i64, rules: LayoutRules) -> Option<BoardId> {
        while let Some(fingerprint) = self.cold.pop_front() {
            let Some(hot) = self.hot.get_mut(&fingerprint) else {
                continue;
            };
            hot.queued = false;
            if rules.cold_ms > 0 && now_ms - hot.last_use_ms >= rules.cold_ms {
                return self.hot.remove(&fingerprint).map(|hot| hot.id);
            }
        }
        None
    }

    /// Whether [`LayoutPolicy::next_cold`] may have a board.
    pub fn has_cold(&self) -> bool {
        !self.cold.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: LayoutRules = LayoutRules {
        hot_writes: 4,
        cold_ms: 10_000,
    };

    fn write(heat: &mut LayoutPolicy, name: &str, at_ms: i64) -> Advice {
        heat.on_use(0, name.as_bytes(), at_ms, Use::Write, false, RULES)
    }

    fn writes(heat: &mut LayoutPolicy, name: &str, times: &[i64]) -> Vec<Advice> {
        times.iter().map(|&t| write(heat, name, t)).collect()
    }

    fn moved(heat: &mut LayoutPolicy, name: &str, at_ms: i64) {
        heat.moved(0, name.as_bytes(), at_ms);
    }

    #[test]
    fn ids_keep_database_and_key_apart() {
        let id = BoardId::new(7, b"room:1");
        assert_eq!((id.db(), id.key()), (7, &b"room:1"[..]));
        assert_ne!(BoardId::new(1, b"a"), BoardId::new(2, b"a"));
        assert_eq!(BoardId::new(-1, b"").key(), b"");
        let mut heat = LayoutPolicy::default();
        heat.moved(1, b"a", 0);
        assert_eq!(
            heat.on_use(2, b"a", 1, Use::Write, false, RULES),
            Advice::Leave
        );
        assert_eq!(heat.hot_boards(), 1);
    }

    #[test]
    fn the_write_that_reaches_the_count_within_a_window_moves_the_board() {
        let mut heat = LayoutPolicy::default();
        let advice = writes(&mut heat, "b", &[0, 100, 200, 300]);
        assert_eq!(advice[..3], [Advice::Leave; 3]);
        assert_eq!(advice[3], Advice::MoveToSkiplist);
        moved(&mut heat, "b", 300);
        assert_eq!(heat.hot_boards(), 1);
        // Remembered: later writes leave it alone, a skiplist.
        assert_eq!(writes(&mut heat, "b", &[400, 500]), [Advice::StayHot; 2]);
    }

    #[test]
    fn writes_spread_over_more_than_a_window_never_make_a_board_hot() {
        let mut heat = LayoutPolicy::default();
        for i in 0..100 {
            let t = i * 400;
            heat.tick(t, RULES);
            assert_eq!(write(&mut heat, "b", t), Advice::Leave, "write {i}");
        }
        assert_eq!(heat.hot_boards(), 0);
    }

    #[test]
    fn a_count_survives_one_rotation_and_boards_written_once_are_dropped() {
        let mut heat = LayoutPolicy::default();
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
        let mut heat = LayoutPolicy::default();
        writes(&mut heat, "b", &[0, 1, 2, 3]);
        moved(&mut heat, "b", 3);
        assert_eq!(
            heat.on_use(0, b"b", 4, Use::Write, true, RULES),
            Advice::Leave
        );
        assert_eq!(heat.hot_boards(), 0);
        assert_eq!(
            writes(&mut heat, "b", &[5, 6, 7]),
            [Advice::Leave, Advice::Leave, Advice::MoveToSkiplist]
        );
    }

    #[test]
    fn a_hot_board_is_converted_again_every_recheck_writes() {
        let mut heat = LayoutPolicy::default();
        moved(&mut heat, "b", 0);
        let every = i64::from(RECHECK_WRITES);
        let moves: Vec<i64> = (1..=3 * every)
            .filter(|&t| write(&mut heat, "b", t) == Advice::CheckSkiplist)
            .collect();
        assert_eq!(moves, [every, 2 * every, 3 * every]);
    }

    #[test]
    fn hot_boards_go_cold_after_cold_ms_without_a_write() {
        let mut heat = LayoutPolicy::default();
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
        let mut heat = LayoutPolicy::default();
        let never = LayoutRules {
            hot_writes: 0,
            cold_ms: 0,
        };
        for t in 0..100 {
            assert_eq!(
                heat.on_use(0, b"b", t, Use::Write, false, never),
                Advice::Leave
            );
        }
        moved(&mut heat, "b", 0);
        heat.tick(1_000_000, never);
        assert_eq!(heat.next_cold(1_000_000, never), None);
        let once = LayoutRules {
            hot_writes: 1,
            cold_ms: 0,
        };
        assert_eq!(
            heat.on_use(0, b"new", 0, Use::Write, false, once),
            Advice::MoveToSkiplist
        );
    }

    #[test]
    fn forget_and_clear_drop_what_is_remembered() {
        let mut heat = LayoutPolicy::default();
        moved(&mut heat, "a", 0);
        moved(&mut heat, "b", 0);
        heat.forget(0, b"a");
        assert_eq!(heat.hot_boards(), 1);
        write(&mut heat, "a", 0);
        heat.clear();
        assert_eq!(heat.hot_boards(), 0);
        assert!(heat.warming.is_empty());
    }

    fn read(heat: &mut LayoutPolicy, name: &str, at_ms: i64, used: Use) -> Advice {
        heat.on_use(0, name.as_bytes(), at_ms, used, false, RULES)
    }

    #[test]
    fn reads_count_by_their_weight() {
        let mut heat = LayoutPolicy::default();
        // 4 writes' worth: 8 page reads, or 16 member reads, or a mix.
        let pages: Vec<Advice> = (0..8)
            .map(|i| read(&mut heat, "pages", i, Use::Page))
            .collect();
        assert_eq!(pages[..7], [Advice::Leave; 7]);
        assert_eq!(pages[7], Advice::MoveToSkiplist);
        let members: Vec<Advice> = (0..16)
            .map(|i| read(&mut heat, "members", i, Use::Member))
            .collect();
        assert_eq!(members[15], Advice::MoveToSkiplist);
        assert!(members[..15].iter().all(|a| *a == Advice::Leave));
        // 2 + 3 * 4 + 1 + 1 = 16 units.
        let mixed = [
            read(&mut heat, "mixed", 0, Use::Page),
            write(&mut heat, "mixed", 1),
            write(&mut heat, "mixed", 2),
            write(&mut heat, "mixed", 3),
            read(&mut heat, "mixed", 4, Use::Member),
            read(&mut heat, "mixed", 5, Use::Member),
        ];
        assert_eq!(mixed[..5], [Advice::Leave; 5], "{mixed:?}");
        assert_eq!(mixed[5], Advice::MoveToSkiplist, "{mixed:?}");
        // Reads on a hot board neither move it again nor check it.
        moved(&mut heat, "pages", 8);
        for i in 0..(2 * i64::from(RECHECK_WRITES)) {
            assert_eq!(read(&mut heat, "pages", 9 + i, Use::Page), Advice::StayHot);
        }
    }

    #[test]
    fn reads_keep_a_hot_board_hot() {
        let mut heat = LayoutPolicy::default();
        moved(&mut heat, "b", 0);
        for t in (1000..30_000).step_by(1000) {
            read(&mut heat, "b", t, Use::Member);
            heat.tick(t, RULES);
        }
        assert_eq!(heat.next_cold(30_000, RULES), None);
        assert_eq!(heat.hot_boards(), 1);
    }
}
