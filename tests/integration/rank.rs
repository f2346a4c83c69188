//! RANK.* against a real redis-server with zkit loaded.

use crate::common::board::{at, EPOCH};
use crate::common::client::{cmdline, err, ok, query, syntax_error, words};
use crate::common::data::{
    assert_errors_change_nothing, db_snapshot, server_time_ms, wait_until_server_time, zset_dump,
};
use crate::common::facts::command_stat;
use crate::common::keyspace::{event_pairs, keyspace_events, watch_survives};
use crate::common::replication::{
    aof_server, assert_aof_replays_without_module, assert_replicas_match, master_and_replicas,
};
use crate::common::workload::Rng;
use crate::common::{functions_engine, Server, ServerConfig};
use redis::{Connection, Value};

const MIN: i64 = 60_000;

fn gift(con: &mut Connection, key: &str, member: &str, amount: i64, at_ms: &str) -> (i64, i64) {
    query(
        con,
        &["RANK.GIFT", key, member, &amount.to_string(), "AT", at_ms],
    )
}

fn top(con: &mut Connection, key: &str, count: usize) -> Vec<(i64, String, i64)> {
    query(con, &["RANK.TOP", key, &count.to_string()])
}

fn names(rows: &[(i64, String, i64)]) -> Vec<&str> {
    rows.iter().map(|(_, m, _)| m.as_str()).collect()
}

#[test]
fn live_stream_gift_board_walk_through() {
    // Every gift returns the giver's rank; more coins rank higher; on equal
    // coins whoever reached the amount first ranks higher.
    let server = Server::start();
    let mut con = server.connect();
    let room = "gifts:room:42";
    assert_eq!(gift(&mut con, room, "alice", 100, &at(MIN)), (100, 1));
    assert_eq!(gift(&mut con, room, "bob", 50, &at(2 * MIN)), (50, 2));
    assert_eq!(gift(&mut con, room, "carol", 300, &at(3 * MIN)), (300, 1));
    // bob reaches 100 after alice did: same coins, alice keeps the higher rank.
    assert_eq!(gift(&mut con, room, "bob", 50, &at(4 * MIN)), (100, 3));
    assert_eq!(
        top(&mut con, room, 10),
        vec![
            (1, "carol".to_string(), 300),
            (2, "alice".to_string(), 100),
            (3, "bob".to_string(), 100)
        ]
    );
    // The same page with equal totals shown as equal.
    let shared: Vec<(i64, String, i64)> = query(&mut con, &["RANK.TOP", room, "3", "SHARED"]);
    assert_eq!(
        shared,
        vec![
            (1, "carol".to_string(), 300),
            (2, "alice".to_string(), 100),
            (2, "bob".to_string(), 100)
        ]
    );
    // "My friends on this board", with shared ranks.
    let friends: Vec<Option<(i64, i64, i64)>> = query(
        &mut con,
        &[
            "RANK.MGET",
            room,
            "SHARED",
            "MEMBERS",
            "bob",
            "nobody",
            "carol",
        ],
    );
    assert_eq!(
        friends,
        [
            Some((100, 2, EPOCH + 4 * MIN)),
            None,
            Some((300, 1, EPOCH + 3 * MIN))
        ]
    );
    // dave reaches 100 last; a name that sorts first does not help him.
    assert_eq!(gift(&mut con, room, "aaron", 100, &at(5 * MIN)), (100, 4));
    // alice gives again and takes the lead.
    assert_eq!(gift(&mut con, room, "alice", 250, &at(6 * MIN)), (350, 1));
    let get: (i64, i64, i64) = query(&mut con, &["RANK.GET", room, "bob"]);
    assert_eq!(get, (100, 3, EPOCH + 4 * MIN));
    // Native commands agree: same order, floor(score) is the coin total.
    let native: Vec<(String, f64)> = query(&mut con, &["ZREVRANGE", room, "0", "-1", "WITHSCORES"]);
    let order: Vec<&str> = native.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(order, ["alice", "carol", "bob", "aaron"]);
    let floors: Vec<i64> = native.iter().map(|(_, s)| s.floor() as i64).collect();
    assert_eq!(floors, [350, 300, 100, 100]);
    let rank: i64 = query(&mut con, &["ZREVRANK", room, "bob"]);
    assert_eq!(rank, 2);
    let count: i64 = query(&mut con, &["ZCOUNT", room, "100", "(101"]);
    assert_eq!(count, 2);
    let by_amount: Vec<String> = query(&mut con, &["ZRANGEBYSCORE", room, "300", "+inf"]);
    assert_eq!(by_amount, ["carol", "alice"]);
}

#[test]
fn shared_ranks_show_equal_totals_as_equal() {
    // The board: a and b reach 100, c 99, then d 100 later.
    let server = Server::start();
    let mut con = server.connect();
    gift(&mut con, "board", "a", 100, &at(MIN));
    gift(&mut con, "board", "b", 100, &at(2 * MIN));
    gift(&mut con, "board", "c", 99, &at(3 * MIN));
    gift(&mut con, "board", "d", 100, &at(4 * MIN));
    // Positions stay first-come: a, b, d, c.
    assert_eq!(
        top(&mut con, "board", 10),
        vec![
            (1, "a".to_string(), 100),
            (2, "b".to_string(), 100),
            (3, "d".to_string(), 100),
            (4, "c".to_string(), 99)
        ]
    );
    // SHARED: same order and totals, competition ranks 1, 1, 1, 4.
    let shared: Vec<(i64, String, i64)> = query(&mut con, &["RANK.TOP", "board", "10", "SHARED"]);
    assert_eq!(
        shared,
        vec![
            (1, "a".to_string(), 100),
            (1, "b".to_string(), 100),
            (1, "d".to_string(), 100),
            (4, "c".to_string(), 99)
        ]
    );
    // A page that starts inside the run of ties.
    let page: Vec<(i64, String, i64)> = query(
        &mut con,
        &["RANK.TOP", "board", "2", "OFFSET", "2", "shared"],
    );
    assert_eq!(
        page,
        vec![(1, "d".to_string(), 100), (4, "c".to_string(), 99)]
    );
    let around: Vec<(i64, String, i64)> =
        query(&mut con, &["RANK.AROUND", "board", "d", "1", "SHARED"]);
    assert_eq!(
        around,
        vec![
            (1, "b".to_string(), 100),
            (1, "d".to_string(), 100),
            (4, "c".to_string(), 99)
        ]
    );
    for (member, rank, position) in [("a", 1, 1), ("b", 1, 2), ("d", 1, 3), ("c", 4, 4)] {
        let shared: (i64, i64, i64) = query(&mut con, &["RANK.GET", "board", member, "SHARED"]);
        let plain: (i64, i64, i64) = query(&mut con, &["RANK.GET", "board", member]);
        assert_eq!((shared.1, plain.1), (rank, position), "{member}");
        // Every other field is the same.
        assert_eq!((shared.0, shared.2), (plain.0, plain.2), "{member}");
    }
    // Writes reply shared ranks too: e joins the 100s last, c climbs to them.
    let r: (i64, i64) = query(
        &mut con,
        &[
            "RANK.GIFT",
            "board",
            "e",
            "100",
            "AT",
            &at(5 * MIN),
            "SHARED",
        ],
    );
    assert_eq!(r, (100, 1));
    let r: (i64, i64) = query(
        &mut con,
        &[
            "RANK.SET",
            "board",
            "c",
            "101",
            "SHARED",
            "AT",
            &at(6 * MIN),
        ],
    );
    assert_eq!(r, (101, 1));
    let r: (i64, i64) = query(&mut con, &["RANK.GIFT", "board", "a", "0", "SHARED"]);
    assert_eq!(r, (100, 2));
    let absent = ok(&mut con, &["RANK.GET", "board", "nobody", "SHARED"]);
    assert_eq!(absent, Value::Nil);
    let empty: Vec<Value> = query(&mut con, &["RANK.TOP", "nokey", "5", "SHARED"]);
    assert!(empty.is_empty());
}

#[test]
fn shared_ranks_match_a_count_on_every_page_of_a_large_board() {
    // 300 members (a skiplist, not a listpack) with negative and positive
    // totals in long runs of ties: every page, wherever it starts, agrees
    // with 1 + the members whose total is higher, counted by the client.
    let server = Server::start();
    let mut con = server.connect();
    for i in 0..300i64 {
        let total = (i * 7919 % 13) - 6;
        ok(
            &mut con,
            &[
                "RANK.SET",
                "big",
                &format!("m{i}"),
                &total.to_string(),
                "AT",
                &at(i),
            ],
        );
    }
    let encoding: String = query(&mut con, &["OBJECT", "ENCODING", "big"]);
    assert_eq!(encoding, "skiplist");
    let board = top(&mut con, "big", 300);
    // The first-come page agrees with the native order and scores.
    let native: Vec<(String, f64)> =
        query(&mut con, &["ZREVRANGE", "big", "0", "-1", "WITHSCORES"]);
    let expected: Vec<(i64, String, i64)> = native
        .into_iter()
        .zip(1..)
        .map(|((member, score), rank)| (rank, member, score.floor() as i64))
        .collect();
    assert_eq!(board, expected);
    let shared_rank = |total: i64| 1 + board.iter().filter(|(_, _, t)| *t > total).count() as i64;
    for (offset, count) in [(0, 300), (0, 1), (22, 10), (23, 47), (150, 3), (299, 5)] {
        let page: Vec<(i64, String, i64)> = query(
            &mut con,
            &[
                "RANK.TOP",
                "big",
                &count.to_string(),
                "OFFSET",
                &offset.to_string(),
                "SHARED",
            ],
        );
        let expected: Vec<(i64, String, i64)> = board
            .iter()
            .skip(offset)
            .take(count)
            .map(|(_, member, total)| (shared_rank(*total), member.clone(), *total))
            .collect();
        assert_eq!(page, expected, "OFFSET {offset} COUNT {count}");
    }
    for (_, member, total) in board.iter().step_by(17) {
        let (_, rank, _): (i64, i64, i64) = query(&mut con, &["RANK.GET", "big", member, "SHARED"]);
        assert_eq!(rank, shared_rank(*total), "{member}");
        let around: Vec<(i64, String, i64)> =
            query(&mut con, &["RANK.AROUND", "big", member, "4", "SHARED"]);
        for (rank, member, total) in around {
            assert_eq!(rank, shared_rank(total), "{member}");
        }
    }
}

#[test]
fn every_page_of_a_large_board_with_runs_of_ties_matches_zrevrange() {
    // 400 members (a skiplist) in runs of equal scores of 1 to 40 members,
    // as on a board of whole totals a script kept: a page is read from the
    // key, walking down from the top, or from a member found on it (past the
    // ties ahead of it), or from ZRANGE when too many tie with that member;
    // every way agrees with the native order, first-come and SHARED.
    let server = Server::start();
    let mut con = server.connect();
    let runs = [1, 1, 2, 17, 1, 3, 40, 1, 16, 5];
    let (mut added, mut score) = (0usize, 1_000i64);
    for run in runs.iter().cycle() {
        for _ in 0..*run {
            if added == 400 {
                break;
            }
            // Names that do not sort by their order of insertion.
            let member = format!("m{:03}", added * 37 % 400);
            ok(&mut con, &["ZADD", "big", &score.to_string(), &member]);
            added += 1;
        }
        if added == 400 {
            break;
        }
        score -= 3;
    }
    let encoding: String = query(&mut con, &["OBJECT", "ENCODING", "big"]);
    assert_eq!(encoding, "skiplist");
    let native: Vec<(String, f64)> =
        query(&mut con, &["ZREVRANGE", "big", "0", "-1", "WITHSCORES"]);
    let board: Vec<(i64, String, i64)> = native
        .into_iter()
        .zip(1..)
        .map(|((member, score), rank)| (rank, member, score as i64))
        .collect();
    let shared_rank = |total: i64| 1 + board.iter().filter(|(_, _, t)| *t > total).count() as i64;
    let offsets = [0, 1, 5, 127, 128, 129, 130, 200, 233, 250, 390, 399, 400];
    for offset in offsets {
        for count in [1, 10, 50] {
            let (off, n) = (offset.to_string(), count.to_string());
            let page: Vec<(i64, String, i64)> =
                query(&mut con, &["RANK.TOP", "big", &n, "OFFSET", &off]);
            let expected: Vec<_> = board.iter().skip(offset).take(count).cloned().collect();
            assert_eq!(page, expected, "OFFSET {offset} COUNT {count}");
            let page: Vec<(i64, String, i64)> =
                query(&mut con, &["RANK.TOP", "big", &n, "OFFSET", &off, "SHARED"]);
            let expected: Vec<_> = expected
                .into_iter()
                .map(|(_, member, total)| (shared_rank(total), member, total))
                .collect();
            assert_eq!(page, expected, "OFFSET {offset} COUNT {count} SHARED");
        }
    }
    for (rank, member, _) in &board {
        let index = (*rank - 1) as usize;
        let around: Vec<(i64, String, i64)> = query(&mut con, &["RANK.AROUND", "big", member, "3"]);
        let expected: Vec<_> =
            board[index.saturating_sub(3)..(index + 4).min(board.len())].to_vec();
        assert_eq!(around, expected, "AROUND {member}");
        let around: Vec<(i64, String, i64)> =
            query(&mut con, &["RANK.AROUND", "big", member, "3", "SHARED"]);
        let expected: Vec<_> = expected
            .into_iter()
            .map(|(_, member, total)| (shared_rank(total), member, total))
            .collect();
        assert_eq!(around, expected, "AROUND {member} SHARED");
    }
}

#[test]
fn ties_order_by_time_not_by_name_and_survive_changes() {
    let server = Server::start();
    let mut con = server.connect();
    // Same total, reached in reverse alphabetical order.
    for (i, who) in ["zed", "mia", "abe"].iter().enumerate() {
        gift(&mut con, "b", who, 10, &at(i as i64));
    }
    assert_eq!(names(&top(&mut con, "b", 3)), ["zed", "mia", "abe"]);
    // mia drops to 5 and climbs back to 10: she reached 10 again last.
    gift(&mut con, "b", "mia", -5, &at(10));
    gift(&mut con, "b", "mia", 5, &at(11));
    assert_eq!(names(&top(&mut con, "b", 3)), ["zed", "abe", "mia"]);
    // A zero gift keeps the time the total was reached.
    assert_eq!(gift(&mut con, "b", "zed", 0, &at(20)), (10, 1));
    // SET to the same total keeps it too; SET to a new one moves the time.
    let r: (i64, i64) = query(&mut con, &["RANK.SET", "b", "abe", "10", "AT", &at(30)]);
    assert_eq!(r, (10, 2));
    let r: (i64, i64) = query(&mut con, &["RANK.SET", "b", "abe", "11", "AT", &at(31)]);
    assert_eq!(r, (11, 1));
    let r: (i64, i64) = query(&mut con, &["RANK.SET", "b", "abe", "10", "AT", &at(32)]);
    assert_eq!(r, (10, 3));
    // Different totals ignore time entirely.
    gift(&mut con, "b", "late", 11, &at(1000 * MIN));
    assert_eq!(names(&top(&mut con, "b", 4)), ["late", "zed", "mia", "abe"]);
}

#[test]
fn negative_totals_keep_floor_and_order() {
    let server = Server::start();
    let mut con = server.connect();
    assert_eq!(gift(&mut con, "b", "a", -5, &at(0)), (-5, 1));
    assert_eq!(gift(&mut con, "b", "b", -5, &at(1)), (-5, 2));
    assert_eq!(gift(&mut con, "b", "c", -6, &at(0)), (-6, 3));
    let scores: Vec<(String, f64)> = query(&mut con, &["ZREVRANGE", "b", "0", "-1", "WITHSCORES"]);
    for ((_, score), total) in scores.iter().zip([-5, -5, -6]) {
        assert_eq!(score.floor() as i64, total, "{score}");
    }
}

#[test]
fn precision_follows_the_magnitude_of_the_total() {
    let server = Server::start();
    let mut con = server.connect();
    // Totals under 4096: 1 ms apart is enough.
    gift(&mut con, "small", "first", 999, &at(0));
    gift(&mut con, "small", "second", 999, &at(1));
    assert_eq!(names(&top(&mut con, "small", 2)), ["first", "second"]);
    // Around 10^9 a slot lasts 2^18 ms (about 4.4 minutes): within one slot
    // the totals tie on score and Redis orders them by member name ...
    let billion = 1_000_000_000;
    gift(&mut con, "big", "zz-first", billion, &at(0));
    gift(&mut con, "big", "aa-second", billion, &at(1000));
    assert_eq!(names(&top(&mut con, "big", 2)), ["zz-first", "aa-second"]);
    // ... and a full slot later the first-come order holds again.
    gift(&mut con, "big", "aa-third", billion, &at(2 * 262_144));
    let rows = top(&mut con, "big", 3);
    assert_eq!(rows[2].1, "aa-third");
    // The largest total that fits, and the first that does not.
    let max = (1i64 << 52) - 1;
    assert_eq!(gift(&mut con, "edge", "m", max, &at(0)).0, max);
    let score: f64 = query(&mut con, &["ZSCORE", "edge", "m"]);
    assert_eq!(score.floor() as i64, max);
    let e = err(&mut con, &["RANK.GIFT", "edge", "m", "1"]);
    assert!(e.starts_with("ERR total out of range"), "{e}");
    let e = err(
        &mut con,
        &["RANK.SET", "edge", "n", &(1i64 << 52).to_string()],
    );
    assert!(e.starts_with("ERR total out of range"), "{e}");
    let e = err(
        &mut con,
        &["RANK.SET", "edge", "n", &(-(1i64 << 52)).to_string()],
    );
    assert!(e.starts_with("ERR total out of range"), "{e}");
    assert_eq!(zset_dump(&mut con, "edge").len(), 1);
}

#[test]
fn server_clock_is_used_without_at() {
    let server = Server::start();
    let mut con = server.connect();
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let _: (i64, i64) = query(&mut con, &["RANK.GIFT", "b", "m", "3"]);
    let (_, _, reached): (i64, i64, i64) = query(&mut con, &["RANK.GET", "b", "m"]);
    assert!((reached - before).abs() < 5_000, "{reached} vs {before}");
}

/// A board's expiry (unix ms, PEXPIRETIME).
fn expires_at(con: &mut Connection, key: &str) -> i64 {
    query(con, &["PEXPIRETIME", key])
}

#[test]
fn a_season_board_expires_its_ttl_after_its_last_write() {
    let server = Server::start();
    let mut con = server.connect();
    let day = "{gifts}:day:2026-12-02";
    let now = server_time_ms(&mut con);
    let _: (i64, i64) = query(&mut con, &["RANK.GIFT", day, "alice", "10", "TTL", "86400"]);
    let first = expires_at(&mut con, day);
    assert!(
        (now + 86_400_000..now + 86_460_000).contains(&first),
        "{first} vs {now}"
    );
    // Every write with TTL sets it again: the board lives a day after its
    // last write.
    wait_until_server_time(&mut con, first - 86_400_000 + 2);
    let _: (i64, i64) = query(&mut con, &["RANK.GIFT", day, "bob", "5", "TTL", "86400"]);
    let second = expires_at(&mut con, day);
    assert!(second > first, "{second} after {first}");
    // A write without TTL leaves it as it is, as ZINCRBY does.
    let _: (i64, i64) = query(&mut con, &["RANK.GIFT", day, "bob", "5"]);
    assert_eq!(expires_at(&mut con, day), second);
    // A RANK.SET GT that keeps the total still writes its TTL.
    let kept: (i64, i64) = query(
        &mut con,
        &["RANK.SET", day, "alice", "1", "GT", "TTL", "60"],
    );
    assert_eq!(kept, (10, 1));
    assert!(expires_at(&mut con, day) < second);
    // RANK.MGIFT sets every board's.
    let week = "{gifts}:week:49";
    let both: Vec<(i64, i64)> = query(
        &mut con,
        &["RANK.MGIFT", "2", day, week, "carol", "3", "TTL", "3600"],
    );
    assert_eq!(both, [(3, 3), (3, 1)]);
    let (day_at, week_at) = (expires_at(&mut con, day), expires_at(&mut con, week));
    assert_eq!(day_at, week_at);
    assert!((now + 3_600_000..now + 3_660_000).contains(&day_at));
    // A repeated event writes nothing, its TTL neither.
    let once = [
        "RANK.GIFT",
        week,
        "dan",
        "1",
        "TTL",
        "7200",
        "IDMP",
        "{gifts}:seen",
        "g-1",
    ];
    let _: Vec<i64> = query(&mut con, &once);
    let applied_at = expires_at(&mut con, week);
    let later = server_time_ms(&mut con) + 2;
    wait_until_server_time(&mut con, later);
    let repeated: Vec<i64> = query(&mut con, &once);
    assert_eq!(repeated, [1, 2, 1]);
    assert_eq!(expires_at(&mut con, week), applied_at);
    // A second's TTL: the board is gone a second after its write.
    let hour = "{gifts}:hour:10";
    let _: (i64, i64) = query(&mut con, &["RANK.GIFT", hour, "erin", "1", "TTL", "1"]);
    crate::common::wait_for(std::time::Duration::from_secs(30), || {
        query::<i64>(&mut con, &["EXISTS", hour]) == 0
    });
    let cases: &[(&[&str], &str)] = &[
        (
            &["RANK.GIFT", day, "x", "1", "TTL", "0"],
            "ERR TTL must be between 1 and 3155760000 seconds",
        ),
        (
            &["RANK.SET", day, "x", "1", "TTL", "3155760001"],
            "ERR TTL must be between 1 and 3155760000 seconds",
        ),
        (
            &["RANK.MGIFT", "1", day, "x", "1", "TTL", "-5"],
            "ERR TTL must be between 1 and 3155760000 seconds",
        ),
        (
            &["RANK.GIFT", day, "x", "1", "TTL", "soon"],
            "ERR value is not an integer",
        ),
    ];
    assert_errors_change_nothing(&mut con, cases);
}

#[test]
fn get_top_and_around() {
    let server = Server::start();
    let mut con = server.connect();
    for i in 0..10 {
        gift(&mut con, "b", &format!("m{i}"), 100 - i, &at(i));
    }
    let page: Vec<(i64, String, i64)> = query(&mut con, &["RANK.TOP", "b", "3", "OFFSET", "4"]);
    assert_eq!(
        page,
        vec![
            (5, "m4".to_string(), 96),
            (6, "m5".to_string(), 95),
            (7, "m6".to_string(), 94)
        ]
    );
    let empty: Vec<Value> = query(&mut con, &["RANK.TOP", "b", "0"]);
    assert!(empty.is_empty());
    let past_end: Vec<Value> = query(&mut con, &["RANK.TOP", "b", "5", "OFFSET", "100"]);
    assert!(past_end.is_empty());
    // The last offset there is: a page past the end has no first rank to
    // compute (offset + 1 would overflow).
    for shared in [&[][..], &["SHARED"][..]] {
        let last = ["RANK.TOP", "b", "1", "OFFSET", "9223372036854775807"];
        let page: Vec<Value> = query(&mut con, &[&last[..], shared].concat());
        assert!(page.is_empty(), "{shared:?}");
    }
    let huge: Vec<(i64, String, i64)> = query(
        &mut con,
        &["RANK.TOP", "b", "9223372036854775807", "OFFSET", "9"],
    );
    assert_eq!(huge, vec![(10, "m9".to_string(), 91)]);
    let missing: Vec<Value> = query(&mut con, &["RANK.TOP", "nokey", "5"]);
    assert!(missing.is_empty());

    let around: Vec<(i64, String, i64)> = query(&mut con, &["RANK.AROUND", "b", "m5", "2"]);
    assert_eq!(names(&around), ["m3", "m4", "m5", "m6", "m7"]);
    assert_eq!(around[0].0, 4);
    // Clipped at both ends.
    let head: Vec<(i64, String, i64)> = query(&mut con, &["RANK.AROUND", "b", "m0", "2"]);
    assert_eq!(names(&head), ["m0", "m1", "m2"]);
    let tail: Vec<(i64, String, i64)> =
        query(&mut con, &["RANK.AROUND", "b", "m9", "9223372036854775807"]);
    assert_eq!(tail.len(), 10);
    let alone: Vec<(i64, String, i64)> = query(&mut con, &["RANK.AROUND", "b", "m9", "0"]);
    assert_eq!(alone, vec![(10, "m9".to_string(), 91)]);
    let absent: Vec<Value> = query(&mut con, &["RANK.AROUND", "b", "nobody", "3"]);
    assert!(absent.is_empty());
    let absent: Vec<Value> = query(&mut con, &["RANK.AROUND", "nokey", "nobody", "3"]);
    assert!(absent.is_empty());

    assert_eq!(ok(&mut con, &["RANK.GET", "b", "nobody"]), Value::Nil);
    assert_eq!(ok(&mut con, &["RANK.GET", "nokey", "nobody"]), Value::Nil);
    let (total, rank, reached): (i64, i64, i64) = query(&mut con, &["RANK.GET", "b", "m3"]);
    assert_eq!((total, rank, reached), (97, 4, EPOCH + 3));
}

#[test]
fn merge_daily_boards_into_a_weekly_one() {
    // The usual recipe merges rank:YYYYMMDD boards with ZUNIONSTORE.
    let server = Server::start();
    let mut con = server.connect();
    let hour = 60 * MIN;
    let tuesday = 24 * hour;
    // ann: 10 early on Monday, 90 late on Tuesday: she reaches 100 at Tue 23:00.
    gift(&mut con, "rank:mon", "ann", 10, &at(MIN));
    gift(&mut con, "rank:tue", "ann", 90, &at(tuesday + 23 * hour));
    // ben: 50 at noon each day: he reaches 100 first, at Tue 12:00.
    gift(&mut con, "rank:mon", "ben", 50, &at(12 * hour));
    gift(&mut con, "rank:tue", "ben", 50, &at(tuesday + 12 * hour));
    gift(&mut con, "rank:tue", "cat", 7, &at(tuesday));
    let n: i64 = query(
        &mut con,
        &["RANK.MERGE", "rank:week", "2", "rank:mon", "rank:tue"],
    );
    assert_eq!(n, 3);
    let week = top(&mut con, "rank:week", 10);
    assert_eq!(
        week,
        vec![
            (1, "ben".to_string(), 100),
            (2, "ann".to_string(), 100),
            (3, "cat".to_string(), 7)
        ]
    );
    // A merged entry reached its total when its last contributor did.
    let (_, _, reached): (i64, i64, i64) = query(&mut con, &["RANK.GET", "rank:week", "ann"]);
    assert_eq!(reached, EPOCH + tuesday + 23 * hour);

    // The plain ZUNIONSTORE the article uses adds the fractions together:
    // the totals are corrupted and the first-come order is lost.
    ok(
        &mut con,
        &["ZUNIONSTORE", "naive:week", "2", "rank:mon", "rank:tue"],
    );
    let naive: Vec<(String, f64)> = query(
        &mut con,
        &["ZREVRANGE", "naive:week", "0", "-1", "WITHSCORES"],
    );
    assert_eq!(
        naive[0].0, "ann",
        "naive order puts ann first although ben reached 100 first"
    );
    assert_eq!(naive[1].0, "ben");
    for (member, score) in &naive[..2] {
        assert_eq!(
            score.floor() as i64,
            101,
            "naive total of {member} is corrupted: {score}"
        );
    }

    // Weights multiply totals; destkey is replaced, whatever it held.
    ok(&mut con, &["SET", "rank:dest", "a string"]);
    let n: i64 = query(
        &mut con,
        &[
            "RANK.MERGE",
            "rank:dest",
            "2",
            "rank:mon",
            "rank:tue",
            "WEIGHTS",
            "2",
            "-1",
        ],
    );
    assert_eq!(n, 3);
    let weighted = top(&mut con, "rank:dest", 10);
    assert_eq!(
        weighted,
        vec![
            (1, "ben".to_string(), 50),
            (2, "cat".to_string(), -7),
            (3, "ann".to_string(), -70)
        ]
    );
    // Merging into one of the sources reads it before replacing it.
    let n: i64 = query(
        &mut con,
        &["RANK.MERGE", "rank:mon", "2", "rank:mon", "rank:mon"],
    );
    assert_eq!(n, 2);
    assert_eq!(top(&mut con, "rank:mon", 1)[0].2, 100);
    // An empty result deletes destkey.
    let n: i64 = query(&mut con, &["RANK.MERGE", "rank:dest", "1", "nokey"]);
    assert_eq!(n, 0);
    let exists: i64 = query(&mut con, &["EXISTS", "rank:dest"]);
    assert_eq!(exists, 0);
}

#[test]
fn merge_refuses_overflow_and_changes_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    let big = (1i64 << 51).to_string();
    ok(&mut con, &["RANK.SET", "a", "m", &big, "AT", &at(0)]);
    ok(&mut con, &["RANK.SET", "dest", "old", "1", "AT", &at(0)]);
    let before = zset_dump(&mut con, "dest");
    let e = err(&mut con, &["RANK.MERGE", "dest", "2", "a", "a"]);
    assert!(e.starts_with("ERR total out of range"), "{e}");
    let e = err(
        &mut con,
        &[
            "RANK.MERGE",
            "dest",
            "1",
            "a",
            "WEIGHTS",
            "9223372036854775807",
        ],
    );
    assert!(e.starts_with("ERR total out of range"), "{e}");
    assert_eq!(zset_dump(&mut con, "dest"), before);
}

/// Every error leaves every key exactly as it was.
#[test]
fn errors_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    ok(&mut con, &["RANK.GIFT", "b", "m", "10", "AT", &at(0)]);
    ok(&mut con, &["SET", "str", "x"]);
    ok(&mut con, &["ZADD", "foreign", "inf", "x"]);
    let (start, end) = (EPOCH.to_string(), (EPOCH + (1i64 << 41)).to_string());
    let cases: &[(&[&str], &str)] = &[
        (&["RANK.GIFT", "str", "m", "1"], "WRONGTYPE"),
        (&["RANK.SET", "str", "m", "1"], "WRONGTYPE"),
        (&["RANK.GET", "str", "m"], "WRONGTYPE"),
        (&["RANK.TOP", "str", "1"], "WRONGTYPE"),
        (&["RANK.AROUND", "str", "m", "1"], "WRONGTYPE"),
        (&["RANK.MERGE", "dest", "2", "b", "str"], "WRONGTYPE"),
        (&["RANK.GIFT", "b", "m"], "ERR wrong number of arguments"),
        (&["RANK.GET", "b"], "ERR wrong number of arguments"),
        (&["RANK.TOP", "b"], "ERR wrong number of arguments"),
        (&["RANK.AROUND", "b", "m"], "ERR wrong number of arguments"),
        (
            &["RANK.MERGE", "dest", "1"],
            "ERR wrong number of arguments",
        ),
        (
            &["RANK.GIFT", "b", "m", "1.5"],
            "ERR value is not an integer",
        ),
        (
            &["RANK.GIFT", "b", "m", "nan"],
            "ERR value is not an integer",
        ),
        (
            &["RANK.GIFT", "b", "m", "inf"],
            "ERR value is not an integer",
        ),
        (
            &["RANK.GIFT", "b", "m", "abc"],
            "ERR value is not an integer",
        ),
        (
            &["RANK.GIFT", "b", "m", "9223372036854775808"],
            "ERR value is not an integer",
        ),
        (
            &["RANK.GIFT", "b", "m", "9223372036854775807"],
            "ERR total out of range",
        ),
        (
            &["RANK.GIFT", "b", "m", "-9223372036854775808"],
            "ERR total out of range",
        ),
        (
            &["RANK.SET", "b", "m", "4503599627370496"],
            "ERR total out of range",
        ),
        (&["RANK.SET", "b", "m", ""], "ERR value is not an integer"),
        (&["RANK.GIFT", "b", "m", "1", "AT"], "ERR syntax error"),
        (
            &["RANK.GIFT", "b", "m", "1", "AT", "soon"],
            "ERR value is not an integer",
        ),
        (
            &["RANK.GIFT", "b", "m", "1", "AT", "1e12"],
            "ERR value is not an integer",
        ),
        (
            &["RANK.GIFT", "b", "m", "1", "AT", "0"],
            "ERR time 0 is outside the tie-break window",
        ),
        (
            &["RANK.GIFT", "b", "new", "1", "AT", "-1"],
            "ERR time -1 is outside",
        ),
        (&["RANK.SET", "b", "m", "10", "AT", &end], "ERR time"),
        (
            &["RANK.GIFT", "b", "m", "1", "FOO", "1"],
            "ERR syntax error",
        ),
        (
            &["RANK.GIFT", "b", "m", "1", "AT", &start, "EXTRA"],
            "ERR syntax error",
        ),
        (&["RANK.TOP", "b", "-1"], "ERR count must not be negative"),
        (&["RANK.TOP", "b", "x"], "ERR value is not an integer"),
        (
            &["RANK.TOP", "b", "1", "OFFSET", "-1"],
            "ERR offset must not be negative",
        ),
        (&["RANK.TOP", "b", "1", "OFFSET"], "ERR syntax error"),
        (&["RANK.TOP", "b", "1", "LIMIT", "1"], "ERR syntax error"),
        (&["RANK.TOP", "b", "1", "SHARED", "1"], "ERR syntax error"),
        // RANK.GET takes SHARED now: another word is a syntax error, no
        // longer a wrong number of arguments.
        (&["RANK.GET", "b", "m", "x"], "ERR syntax error"),
        (&["RANK.GET", "b", "m", "SHARE"], "ERR syntax error"),
        (
            &["RANK.GET", "b", "m", "SHARED", "SHARED"],
            "ERR syntax error",
        ),
        (
            &["RANK.AROUND", "b", "m", "1", "SHARED", "x"],
            "ERR syntax error",
        ),
        (
            &["RANK.GIFT", "b", "m", "1", "SHARED", "AT"],
            "ERR syntax error",
        ),
        (&["RANK.GET", "str", "m", "SHARED"], "WRONGTYPE"),
        (&["RANK.TOP", "str", "1", "SHARED"], "WRONGTYPE"),
        (
            &["RANK.AROUND", "b", "m", "-1"],
            "ERR radius must not be negative",
        ),
        (
            &["RANK.MERGE", "dest", "0", "b"],
            "ERR numkeys must be at least 1",
        ),
        (
            &["RANK.MERGE", "dest", "-1", "b"],
            "ERR numkeys must be at least 1",
        ),
        (
            &["RANK.MERGE", "dest", "x", "b"],
            "ERR value is not an integer",
        ),
        (
            &["RANK.MERGE", "dest", "3", "b", "b"],
            "ERR numkeys is larger than the number of key arguments that follow",
        ),
        (
            &["RANK.MERGE", "dest", "1", "b", "WEIGHTS"],
            "ERR numkeys is larger than the number of weight arguments that follow",
        ),
        (
            &["RANK.MERGE", "dest", "1", "b", "WEIGHTS", "1", "2"],
            "ERR syntax error",
        ),
        (
            &["RANK.MERGE", "dest", "1", "b", "WEIGHTS", "1.5"],
            "ERR value is not an integer",
        ),
        (
            &["RANK.MERGE", "dest", "1", "b", "AGGREGATE", "MAX"],
            "ERR syntax error",
        ),
        (
            &["RANK.MERGE", "dest", "1", "foreign"],
            "ERR the member's score inf is not a rank score",
        ),
        (
            &["RANK.GIFT", "foreign", "x", "1"],
            "ERR the member's score inf is not a rank score",
        ),
        (
            &["RANK.GET", "foreign", "x"],
            "ERR the member's score inf is not a rank score",
        ),
        (&["RANK.PERCENTILE", "str", "m"], "WRONGTYPE"),
        (&["RANK.QUANTILE", "str", "50"], "WRONGTYPE"),
        (&["RANK.COUNT", "str", "-inf", "+inf"], "WRONGTYPE"),
        (&["RANK.PERCENTILE", "b"], "ERR wrong number of arguments"),
        (&["RANK.QUANTILE", "b"], "ERR wrong number of arguments"),
        (&["RANK.COUNT", "b", "1"], "ERR wrong number of arguments"),
        (
            &["RANK.PERCENTILE", "foreign", "x"],
            "ERR the member's score inf is not a rank score",
        ),
        (
            &["RANK.QUANTILE", "foreign", "50"],
            "ERR the member's score inf is not a rank score",
        ),
        (
            &["RANK.QUANTILE", "b", "100.5"],
            "ERR percentile must be between 0 and 100",
        ),
        (
            &["RANK.QUANTILE", "b", "-1"],
            "ERR percentile must be between 0 and 100",
        ),
        (
            &["RANK.QUANTILE", "b", "inf"],
            "ERR percentile must be between 0 and 100",
        ),
        // The range is checked before the key.
        (
            &["RANK.QUANTILE", "str", "101"],
            "ERR percentile must be between 0 and 100",
        ),
        (
            &["RANK.QUANTILE", "b", "nan"],
            "ERR value is not a valid float",
        ),
        (
            &["RANK.QUANTILE", "b", "50%"],
            "ERR value is not a valid float",
        ),
        (
            &["RANK.COUNT", "b", "x", "1"],
            "ERR min or max is not a float",
        ),
        (
            &["RANK.COUNT", "b", "1", "(("],
            "ERR min or max is not a float",
        ),
        (
            &["RANK.COUNT", "str", "(", "1"],
            "ERR min or max is not a float",
        ),
        (&["RANK.RANGE", "str", "+inf", "-inf"], "WRONGTYPE"),
        (&["RANK.AMONG", "str", "MEMBERS", "m"], "WRONGTYPE"),
        (&["RANK.RANGE", "b", "1"], "ERR wrong number of arguments"),
        (&["RANK.AMONG", "b", "MEMBERS"], "ERR syntax error"),
        (&["RANK.AMONG", "b", "m"], "ERR syntax error"),
        (&["RANK.AMONG", "b", "SHARED", "m"], "ERR syntax error"),
        (
            &["RANK.RANGE", "b", "x", "1"],
            "ERR min or max is not a float",
        ),
        (
            &["RANK.RANGE", "b", "+inf", "(("],
            "ERR min or max is not a float",
        ),
        // The bounds and the offset are checked before the key.
        (
            &["RANK.RANGE", "str", "(", "1"],
            "ERR min or max is not a float",
        ),
        (
            &["RANK.RANGE", "str", "+inf", "-inf", "LIMIT", "-1", "5"],
            "ERR offset must not be negative",
        ),
        (
            &["RANK.RANGE", "b", "+inf", "-inf", "LIMIT", "1"],
            "ERR syntax error",
        ),
        (
            &["RANK.RANGE", "b", "+inf", "-inf", "LIMIT", "1", "x"],
            "ERR value is not an integer",
        ),
        (
            &["RANK.AMONG", "foreign", "MEMBERS", "x"],
            "ERR the member's score inf is not a rank score",
        ),
    ];
    assert_errors_change_nothing(&mut con, cases);
    // The server counts them, as for native commands.
    if !functions_engine() {
        assert!(command_stat(&mut con, "rank.gift", "failed_calls") > 0);
    }
}

#[test]
fn tiebreak_window_is_configurable() {
    let server = Server::start();
    let mut con = server.connect();
    let epoch: String =
        query::<Vec<String>>(&mut con, &["CONFIG", "GET", "zkit.tiebreak-epoch-ms"])[1].clone();
    assert_eq!(epoch, EPOCH.to_string());
    ok(
        &mut con,
        &[
            "CONFIG",
            "SET",
            "zkit.tiebreak-epoch-ms",
            "1000",
            "zkit.tiebreak-span-ms",
            "1000",
        ],
    );
    let r: (i64, i64) = query(&mut con, &["RANK.GIFT", "b", "a", "5", "AT", "1000"]);
    assert_eq!(r, (5, 1));
    let r: (i64, i64) = query(&mut con, &["RANK.GIFT", "b", "b", "5", "AT", "1999"]);
    assert_eq!(r, (5, 2));
    let e = err(&mut con, &["RANK.GIFT", "b", "c", "5", "AT", "2000"]);
    assert!(e.contains("[1000, 2000)"), "{e}");
    let (_, _, reached): (i64, i64, i64) = query(&mut con, &["RANK.GET", "b", "b"]);
    assert_eq!(reached, 1999);
    let e = err(&mut con, &["CONFIG", "SET", "zkit.tiebreak-span-ms", "0"]);
    assert!(e.contains("zkit.tiebreak-span-ms"), "{e}");
    let e = err(&mut con, &["CONFIG", "SET", "zkit.tiebreak-epoch-ms", "-5"]);
    assert!(e.contains("zkit.tiebreak-epoch-ms"), "{e}");
}

#[test]
fn writes_replicate_as_native_zadd_to_replicas_with_and_without_zkit() {
    let master = Server::start();
    let with_module = Server::with(ServerConfig::default().replica_of(&master));
    let without_module = Server::with(ServerConfig::without_module().replica_of(&master));
    with_module.wait_until_synced();
    without_module.wait_until_synced();
    let mut con = master.connect();
    for i in 0..50i64 {
        // Server clock, no AT: replicas must get the master's exact score.
        let _: (i64, i64) = query(
            &mut con,
            &[
                "RANK.GIFT",
                "b",
                &format!("m{}", i % 7),
                &(i % 5 - 1).to_string(),
            ],
        );
    }
    ok(&mut con, &["RANK.SET", "b", "setter", "42"]);
    ok(&mut con, &["RANK.GIFT", "d2", "m1", "5"]);
    ok(
        &mut con,
        &["RANK.MERGE", "week", "2", "b", "d2", "WEIGHTS", "2", "3"],
    );
    ok(&mut con, &["RANK.MERGE", "gone", "1", "nokey"]);
    master.wait_for_replicas(2);
    let expected = db_snapshot(&mut con);
    assert!(expected.len() >= 3);
    for replica in [&with_module, &without_module] {
        let mut rcon = replica.connect();
        assert_eq!(db_snapshot(&mut rcon), expected);
        assert_eq!(zset_dump(&mut rcon, "week"), zset_dump(&mut con, "week"));
    }
}

#[test]
fn aof_replays_on_a_server_without_zkit() {
    let server = aof_server();
    let mut con = server.connect();
    for i in 0..20i64 {
        let _: (i64, i64) = query(
            &mut con,
            &[
                "RANK.GIFT",
                "b",
                &format!("m{}", i % 6),
                &(i * 3).to_string(),
            ],
        );
    }
    ok(&mut con, &["RANK.MERGE", "w", "1", "b", "WEIGHTS", "2"]);
    drop(con);
    assert_aof_replays_without_module(server);
}

#[test]
fn writes_fire_the_native_keyspace_events() {
    let server = Server::start();
    let events = keyspace_events(&server, |con| {
        ok(con, &["RANK.GIFT", "b", "m", "5"]);
        ok(con, &["RANK.SET", "b", "n", "7"]);
        ok(con, &["RANK.GIFT", "b", "m", "0"]); // no change, no event
        ok(con, &["RANK.MERGE", "w", "1", "b"]);
        ok(con, &["RANK.MERGE", "w", "1", "nokey"]);
        ok(con, &["RANK.GET", "b", "m"]);
        ok(con, &["RANK.TOP", "b", "5"]);
    });
    let events: Vec<(&str, &str)> = events
        .iter()
        .map(|(c, k)| (c.as_str(), k.as_str()))
        .collect();
    assert_eq!(
        events,
        [
            ("__keyevent@0__:zincr", "b"),
            ("__keyevent@0__:zadd", "b"),
            ("__keyevent@0__:zunionstore", "w"),
            ("__keyevent@0__:del", "w"),
        ]
    );
}

#[test]
fn writes_invalidate_watch() {
    let server = Server::start();
    assert!(!watch_survives(&server, "b", |con| {
        ok(con, &["RANK.GIFT", "b", "m", "5"]);
    }));
    // A gift that leaves the total as it is writes nothing.
    assert!(watch_survives(&server, "b", |con| {
        ok(con, &["RANK.GIFT", "b", "m", "0"]);
    }));
    // Inside MULTI it runs like any command.
    let mut con = server.connect();
    ok(&mut con, &["MULTI"]);
    ok(&mut con, &["RANK.GIFT", "b", "m", "1"]);
    let exec: Vec<(i64, i64)> = query(&mut con, &["EXEC"]);
    assert_eq!(exec, vec![(6, 1)]);
}

#[test]
fn cluster_routes_merge_by_every_source_key() {
    // Redis 7.x routes module commands by their legacy key range unless they
    // report their keys themselves; RANK.MERGE's keynum sources must count.
    let server = Server::single_node_cluster();
    let mut con = server.connect();
    ok(&mut con, &cmdline("RANK.GIFT {room}:mon a 1"));
    let n: i64 = query(&mut con, &cmdline("RANK.MERGE {room}:week 1 {room}:mon"));
    assert_eq!(n, 1);
    let e = err(
        &mut con,
        &cmdline("RANK.MERGE {room}:week 2 {room}:mon tue"),
    );
    assert!(e.starts_with("CROSSSLOT"), "{e}");
}

// ---- best scores (RANK.SET GT/LT), several boards (RANK.MGIFT), batch reads (RANK.MGET)

fn set(con: &mut Connection, words: &[&str]) -> (i64, i64) {
    let mut command = vec!["RANK.SET"];
    command.extend_from_slice(words);
    query(con, &command)
}

#[test]
fn a_best_score_board_keeps_each_players_best_run() {
    // A game board of best runs: a run that does not beat the player's best
    // changes nothing; an equal best keeps the time it was first reached.
    let server = Server::start();
    let mut con = server.connect();
    let best = "best:level:3";
    assert_eq!(
        set(&mut con, &[best, "alice", "120", "AT", &at(MIN), "GT"]),
        (120, 1)
    );
    assert_eq!(
        set(&mut con, &[best, "bob", "120", "AT", &at(2 * MIN), "GT"]),
        (120, 2)
    );
    // A worse run: the reply is the best that stands.
    assert_eq!(
        set(&mut con, &[best, "alice", "90", "AT", &at(3 * MIN), "GT"]),
        (120, 1)
    );
    // alice reaches 120 again, later than bob did: she keeps her first time.
    assert_eq!(
        set(&mut con, &[best, "alice", "120", "AT", &at(4 * MIN), "GT"]),
        (120, 1)
    );
    let (_, _, reached): (i64, i64, i64) = query(&mut con, &["RANK.GET", best, "alice"]);
    assert_eq!(reached, EPOCH + MIN);
    // A better run takes the lead; SHARED works alongside.
    assert_eq!(
        set(
            &mut con,
            &[best, "bob", "150", "GT", "AT", &at(5 * MIN), "SHARED"]
        ),
        (150, 1)
    );
    assert_eq!(
        set(&mut con, &[best, "carol", "150", "gt", "SHARED"]),
        (150, 1)
    );
    assert_eq!(names(&top(&mut con, best, 3)), ["bob", "carol", "alice"]);

    // A fastest-lap board keeps the lowest time with LT.
    let laps = "laps:track:1";
    assert_eq!(set(&mut con, &[laps, "dave", "-62000", "LT"]), (-62000, 1));
    assert_eq!(set(&mut con, &[laps, "dave", "-58000", "LT"]), (-62000, 1));
    assert_eq!(set(&mut con, &[laps, "dave", "-65000", "lt"]), (-65000, 1));

    // A run that changes nothing writes nothing: WATCH survives, no event.
    assert!(watch_survives(&server, best, |con| {
        set(con, &[best, "bob", "100", "GT"]);
    }));
    let events = keyspace_events(&server, |con| {
        set(con, &[best, "bob", "100", "GT"]);
        set(con, &[best, "bob", "151", "GT"]);
    });
    assert_eq!(event_pairs(&events), [("__keyevent@0__:zadd", best)]);
}

#[test]
fn one_gift_lands_on_the_daily_weekly_and_all_time_boards() {
    let server = Server::start();
    let mut con = server.connect();
    let boards = ["{room42}:day", "{room42}:week", "{room42}:all"];
    // bob was on the week and all-time boards before today.
    gift(&mut con, boards[1], "bob", 100, &at(MIN));
    gift(&mut con, boards[2], "bob", 900, &at(MIN));
    let mgift = |con: &mut Connection, member: &str, amount: &str, when: &str| {
        let mut words = vec!["RANK.MGIFT", "3"];
        words.extend_from_slice(&boards);
        words.extend_from_slice(&[member, amount, "AT", when]);
        query::<Vec<(i64, i64)>>(con, &words)
    };
    assert_eq!(
        mgift(&mut con, "alice", "100", &at(2 * MIN)),
        [(100, 1), (100, 2), (100, 2)]
    );
    // Each board is first-come on its own: bob reaches 100 on the day board
    // after alice, but he reached 100 on the week board before her.
    assert_eq!(
        mgift(&mut con, "bob", "100", &at(3 * MIN)),
        [(100, 2), (200, 1), (1000, 1)]
    );
    assert_eq!(names(&top(&mut con, boards[0], 5)), ["alice", "bob"]);
    // SHARED: one reply per board with competition ranks.
    let shared: Vec<(i64, i64)> = query(
        &mut con,
        &[
            "RANK.MGIFT",
            "2",
            boards[0],
            boards[2],
            "carol",
            "100",
            "SHARED",
        ],
    );
    assert_eq!(shared, [(100, 1), (100, 2)]);
    // A gift of 0 writes nothing; replies still come per board.
    assert!(watch_survives(&server, boards[0], |con| {
        mgift(con, "alice", "0", &at(4 * MIN));
    }));
    let events = keyspace_events(&server, |con| {
        mgift(con, "dave", "5", &at(5 * MIN));
        mgift(con, "dave", "0", &at(6 * MIN));
    });
    assert_eq!(
        event_pairs(&events),
        [
            ("__keyevent@0__:zincr", boards[0]),
            ("__keyevent@0__:zincr", boards[1]),
            ("__keyevent@0__:zincr", boards[2]),
        ]
    );
}

#[test]
fn a_gift_to_many_boards_replicates_and_announces_each_board_once() {
    // A streamer's gift lands on every fan club's board at once: more boards
    // than a call usually writes.
    let boards: Vec<String> = (0..40).map(|i| format!("{{room}}:club:{i}")).collect();
    let mgift = |event: &str| -> Vec<String> {
        let mut words = vec!["RANK.MGIFT".to_string(), boards.len().to_string()];
        words.extend(boards.iter().cloned());
        words.extend(["star", "5", "IDMP", "{room}:seen", event].map(String::from));
        words
    };
    let (master, replicas) = master_and_replicas();
    let events = keyspace_events(&master, |con| {
        let first = mgift("gift-1");
        let reply: Vec<Value> = query(con, &words(&first));
        assert_eq!(reply.len(), boards.len() + 1);
    });
    let mut expected: Vec<(&str, &str)> = boards
        .iter()
        .map(|board| ("__keyevent@0__:zincr", board.as_str()))
        .collect();
    expected.push(("__keyevent@0__:zadd", "{room}:seen"));
    assert_eq!(event_pairs(&events), expected);
    // The last board is signalled to WATCH like the first.
    let last = boards.last().unwrap();
    assert!(!watch_survives(&master, last, |con| {
        ok(con, &words(&mgift("gift-2")));
    }));
    let data = assert_replicas_match(&master, &replicas);
    assert_eq!(data.len(), boards.len() + 1);
}

#[test]
fn mget_answers_as_get_for_each_member() {
    let server = Server::start();
    let mut con = server.connect();
    gift(&mut con, "b", "ann", 100, &at(MIN));
    gift(&mut con, "b", "ben", 100, &at(2 * MIN));
    gift(&mut con, "b", "SHARED", 90, &at(3 * MIN));
    gift(&mut con, "b", "cat", 80, &at(4 * MIN));
    // "My friends on this board": one call, one reply per member, in order.
    let friends = ["cat", "nobody", "ben", "ann"];
    for shared in [false, true] {
        let mut words = vec!["RANK.MGET", "b"];
        if shared {
            words.push("SHARED");
        }
        words.push("MEMBERS");
        words.extend_from_slice(&friends);
        let replies: Vec<Value> = query(&mut con, &words);
        let each: Vec<Value> = friends
            .iter()
            .map(|friend| {
                let mut get = vec!["RANK.GET", "b", friend];
                if shared {
                    get.push("SHARED");
                }
                ok(&mut con, &get)
            })
            .collect();
        assert_eq!(replies, each, "SHARED {shared}");
    }
    let ranks: Vec<Option<(i64, i64, i64)>> = query(
        &mut con,
        &[
            "RANK.MGET",
            "b",
            "SHARED",
            "MEMBERS",
            "ben",
            "nobody",
            "ann",
        ],
    );
    assert_eq!(
        ranks,
        [
            Some((100, 1, EPOCH + 2 * MIN)),
            None,
            Some((100, 1, EPOCH + MIN))
        ]
    );
    // After MEMBERS a member spelled SHARED or MEMBERS is a member, last
    // or not, in any case; only the option before MEMBERS shares ranks.
    gift(&mut con, "b", "members", 80, &at(5 * MIN));
    let named: Vec<Option<(i64, i64, i64)>> = query(
        &mut con,
        &[
            "RANK.MGET",
            "b",
            "MEMBERS",
            "SHARED",
            "cat",
            "members",
            "shared",
        ],
    );
    assert_eq!(
        named,
        [
            Some((90, 3, EPOCH + 3 * MIN)),
            Some((80, 4, EPOCH + 4 * MIN)),
            Some((80, 5, EPOCH + 5 * MIN)),
            None
        ]
    );
    let named: Vec<Option<(i64, i64, i64)>> = query(
        &mut con,
        &[
            "RANK.MGET",
            "b",
            "shared",
            "MEMBERS",
            "SHARED",
            "members",
            "SHARED",
        ],
    );
    assert_eq!(
        named,
        [
            Some((90, 3, EPOCH + 3 * MIN)),
            Some((80, 4, EPOCH + 5 * MIN)),
            Some((90, 3, EPOCH + 3 * MIN))
        ]
    );
    let absent: Vec<Value> = query(&mut con, &["RANK.MGET", "nokey", "MEMBERS", "a", "b"]);
    assert_eq!(absent, [Value::Nil, Value::Nil]);
}

#[test]
fn new_rank_errors_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    gift(&mut con, "{r}:day", "m", 10, &at(0));
    gift(&mut con, "{r}:week", "m", (1i64 << 52) - 5, &at(0));
    ok(&mut con, &["SET", "{r}:str", "x"]);
    ok(&mut con, &["ZADD", "{r}:foreign", "inf", "m"]);
    let end = (EPOCH + (1i64 << 41)).to_string();
    let mget_usage =
        "RANK.MGET key [SHARED | DENSE totals-key] [DATA data-key] [ASC] [COLUMNS columns-key] MEMBERS member [member ...]";
    let mget_syntax = |mistake: &str| syntax_error(mistake, mget_usage);
    let cases: &[(&[&str], &str)] = &[
        (
            &["RANK.SET", "{r}:day", "m", "1", "GT", "LT"],
            "ERR syntax error",
        ),
        (
            &["RANK.SET", "{r}:day", "m", "1", "LT", "GT"],
            "ERR syntax error",
        ),
        (
            &["RANK.SET", "{r}:day", "m", "1", "GT", "GT"],
            "ERR syntax error",
        ),
        (
            &["RANK.GIFT", "{r}:day", "m", "1", "GT"],
            "ERR syntax error",
        ),
        (&["RANK.SET", "{r}:day", "m", "1", "GE"], "ERR syntax error"),
        (&["RANK.SET", "{r}:str", "m", "1", "GT"], "WRONGTYPE"),
        (
            &["RANK.SET", "{r}:day", "m", "4503599627370496", "GT"],
            "ERR total out of range",
        ),
        // Refused even though GT would keep the total: the time is checked.
        (
            &["RANK.SET", "{r}:day", "m", "5", "GT", "AT", &end],
            "ERR time",
        ),
        (
            &["RANK.SET", "{r}:foreign", "m", "5", "LT"],
            "ERR the member's score inf is not a rank score",
        ),
        // RANK.MGIFT checks every board before it writes any.
        (
            &["RANK.MGIFT", "3", "{r}:day", "{r}:new", "{r}:str", "m", "1"],
            "WRONGTYPE",
        ),
        (
            &["RANK.MGIFT", "2", "{r}:day", "{r}:week", "m", "10"],
            "ERR total out of range",
        ),
        (
            &["RANK.MGIFT", "2", "{r}:day", "{r}:foreign", "m", "1"],
            "ERR the member's score inf is not a rank score",
        ),
        (
            &["RANK.MGIFT", "2", "{r}:day", "{r}:day", "m", "1"],
            "ERR a board is named twice",
        ),
        (
            &["RANK.MGIFT", "1", "{r}:day", "m", "1", "AT", &end],
            "ERR time",
        ),
        (
            &["RANK.MGIFT", "0", "{r}:day", "m", "1"],
            "ERR numkeys must be at least 1",
        ),
        (
            &["RANK.MGIFT", "-1", "{r}:day", "m", "1"],
            "ERR numkeys must be at least 1",
        ),
        (
            &["RANK.MGIFT", "x", "{r}:day", "m", "1"],
            "ERR value is not an integer",
        ),
        (
            &["RANK.MGIFT", "2", "{r}:day", "{r}:week", "m"],
            "ERR numkeys is larger than the number of key arguments that follow",
        ),
        (
            &["RANK.MGIFT", "3", "{r}:day", "{r}:week", "m"],
            "ERR numkeys is larger than the number of key arguments that follow",
        ),
        (
            &["RANK.MGIFT", "1", "{r}:day", "m", "1.5"],
            "ERR value is not an integer",
        ),
        (
            &["RANK.MGIFT", "1", "{r}:day", "m", "1", "GT"],
            "ERR syntax error",
        ),
        (
            &["RANK.MGIFT", "1", "{r}:day", "m", "1", "AT"],
            "ERR syntax error",
        ),
        (
            &["RANK.MGIFT", "1", "{r}:day", "m"],
            "ERR wrong number of arguments",
        ),
        (&["RANK.MGET", "{r}:day"], "ERR wrong number of arguments"),
        // MEMBERS counts one word in the arity: these reach the parser.
        (
            &["RANK.MGET", "{r}:day", "MEMBERS"],
            &mget_syntax("MEMBERS needs at least one value"),
        ),
        (
            &["RANK.MGET", "{r}:day", "SHARED"],
            &mget_syntax("MEMBERS is missing"),
        ),
        (
            &["RANK.MGET", "{r}:day", "SHARED", "SHARED", "MEMBERS", "m"],
            &mget_syntax("SHARED is given twice"),
        ),
        (
            &["RANK.MGET", "{r}:day", "SHARED", "MEMBERS"],
            &mget_syntax("MEMBERS needs at least one value"),
        ),
        // The 0.2 form, members first, is refused with the 0.3 usage.
        (
            &["RANK.MGET", "{r}:day", "m", "n"],
            &mget_syntax("unexpected 'm'"),
        ),
        (
            &["RANK.MGET", "{r}:day", "m", "SHARED"],
            &mget_syntax("unexpected 'm'"),
        ),
        (&["RANK.MGET", "{r}:str", "MEMBERS", "m"], "WRONGTYPE"),
        (
            &["RANK.MGET", "{r}:foreign", "MEMBERS", "x", "m"],
            "ERR the member's score inf is not a rank score",
        ),
    ];
    assert_errors_change_nothing(&mut con, cases);
}

#[test]
fn new_rank_writes_replicate_and_replay_without_zkit() {
    let writes: &[&[&str]] = &[
        &["RANK.SET", "{r}:best", "a", "10", "GT"],
        &["RANK.SET", "{r}:best", "a", "5", "GT"],
        &["RANK.SET", "{r}:best", "a", "12", "GT", "SHARED"],
        &["RANK.SET", "{r}:laps", "a", "-70", "LT"],
        &["RANK.SET", "{r}:laps", "a", "-60", "LT"],
        &[
            "RANK.MGIFT",
            "3",
            "{r}:day",
            "{r}:week",
            "{r}:all",
            "a",
            "7",
        ],
        &["RANK.MGIFT", "2", "{r}:day", "{r}:all", "b", "-3", "SHARED"],
        &["RANK.MGIFT", "2", "{r}:day", "{r}:week", "a", "0"],
    ];
    // Server clock, no AT: replicas and the AOF get the master's exact scores.
    let (master, replicas) = master_and_replicas();
    let mut con = master.connect();
    for words in writes {
        ok(&mut con, words);
    }
    let data = assert_replicas_match(&master, &replicas);
    assert_eq!(data.len(), 5);
    assert_eq!(zset_dump(&mut con, "{r}:week").len(), 1);

    let server = aof_server();
    let mut con = server.connect();
    for words in writes {
        ok(&mut con, words);
    }
    drop(con);
    assert_aof_replays_without_module(server);
}

#[test]
fn mgift_needs_its_boards_in_one_slot() {
    // In a cluster every board of a gift must share a slot.
    let cluster = Server::single_node_cluster();
    let mut con = cluster.connect();
    let replies: Vec<(i64, i64)> = query(
        &mut con,
        &cmdline("RANK.MGIFT 2 {room}:day {room}:week a 5"),
    );
    assert_eq!(replies, [(5, 1), (5, 1)]);
    let e = err(&mut con, &cmdline("RANK.MGIFT 2 {room}:day week a 5"));
    assert!(e.starts_with("CROSSSLOT"), "{e}");
    assert_eq!(query::<i64>(&mut con, &["EXISTS", "week"]), 0);
}

fn percentile(con: &mut Connection, key: &str, member: &str) -> Option<i64> {
    query(con, &["RANK.PERCENTILE", key, member])
}

fn quantile(con: &mut Connection, key: &str, percentile: &str) -> Option<String> {
    query(con, &["RANK.QUANTILE", key, percentile])
}

fn count(con: &mut Connection, key: &str, min: &str, max: &str) -> i64 {
    query(con, &["RANK.COUNT", key, min, max])
}

#[test]
fn rank_percentiles_quantiles_and_counts_of_agoragames_boards() {
    // agoragames/leaderboard's tests: 12 members with totals 1..12 ...
    let server = Server::start();
    let mut con = server.connect();
    for total in 1..=12 {
        gift(
            &mut con,
            "twelve",
            &format!("m{total}"),
            total,
            &at(total * MIN),
        );
    }
    let of = |con: &mut Connection, total: i64| percentile(con, "twelve", &format!("m{total}"));
    assert_eq!(of(&mut con, 1), Some(0));
    assert_eq!(of(&mut con, 2), Some(9));
    assert_eq!(of(&mut con, 3), Some(17));
    assert_eq!(of(&mut con, 4), Some(25));
    assert_eq!(of(&mut con, 12), Some(92));
    assert_eq!(percentile(&mut con, "twelve", "nobody"), None);
    assert_eq!(percentile(&mut con, "nothing", "m1"), None);
    // ... and totals 1..5.
    for total in 1..=5 {
        gift(
            &mut con,
            "five",
            &format!("m{total}"),
            total,
            &at(total * MIN),
        );
    }
    for (p, expected) in [
        ("0", "1"),
        ("75", "4"),
        ("87.5", "4.5"),
        ("93.75", "4.75"),
        ("100", "5"),
        ("1E2", "5"),
        ("-0", "1"),
    ] {
        assert_eq!(
            quantile(&mut con, "five", p).as_deref(),
            Some(expected),
            "{p}"
        );
    }
    assert_eq!(quantile(&mut con, "nothing", "50"), None);
    // A double in RESP3, as ZSCORE replies one.
    let client = redis::Client::open(format!("{}?protocol=resp3", server.url())).unwrap();
    let mut resp3 = client.get_connection().unwrap();
    // (The library's call spelled out: this connection does not send
    // zkit's commands as FCALL.)
    let call = if functions_engine() {
        redis::cmd("FCALL_RO")
            .arg("zkit_rank_quantile")
            .arg(1)
            .arg("five")
            .arg("five")
            .arg("87.5")
            .clone()
    } else {
        redis::cmd("RANK.QUANTILE").arg("five").arg("87.5").clone()
    };
    let value: Value = call.query(&mut resp3).unwrap();
    assert_eq!(value, Value::Double(4.5));
    // Counts above and below a total, ZCOUNT's bounds.
    assert_eq!(count(&mut con, "twelve", "-inf", "+inf"), 12);
    assert_eq!(count(&mut con, "twelve", "3", "5"), 3);
    assert_eq!(count(&mut con, "twelve", "(3", "(5"), 1);
    assert_eq!(count(&mut con, "twelve", "(10", "inf"), 2);
    assert_eq!(count(&mut con, "twelve", "-inf", "(3"), 2);
    assert_eq!(count(&mut con, "twelve", "2.5", "4.5"), 2);
    assert_eq!(count(&mut con, "twelve", "5", "3"), 0);
    assert_eq!(count(&mut con, "nothing", "-inf", "+inf"), 0);
}

#[test]
fn rank_percentiles_quantiles_and_counts_match_a_model_of_the_board() {
    // Few distinct totals (ties, negative totals), reached at few times
    // (ties on the tie-break too): on a small board and on one past the
    // listpack limit.
    let server = Server::start();
    let mut con = server.connect();
    let mut rng = Rng::seeded("rank percentiles");
    for (key, members) in [("small", 40), ("large", 300)] {
        for m in 0..members {
            let total = rng.range(-5, 6);
            let when = at(rng.range(0, 4) * MIN);
            gift(&mut con, key, &format!("m{m}"), total, &when);
        }
        // The model: the board's order (ZREVRANGE's, which RANK.TOP gives)
        // and its totals.
        let board: Vec<(i64, String, i64)> = query(&mut con, &["RANK.TOP", key, "1000"]);
        let n = board.len() as i64;
        for (rank0, (_, member, _)) in board.iter().enumerate() {
            let below = n - rank0 as i64 - 1;
            let expected = (0..=100).find(|p| p * n >= below * 100).unwrap();
            assert_eq!(
                percentile(&mut con, key, member),
                Some(expected),
                "{key} {member}"
            );
        }
        let mut totals: Vec<i64> = board.iter().map(|(_, _, total)| *total).collect();
        totals.sort_unstable();
        for p in ["0", "1", "12.5", "33.3", "50", "66.6", "99", "99.9", "100"] {
            let index = (n - 1) as f64 * p.parse::<f64>().unwrap() / 100.0;
            let (low, high) = (
                totals[index.floor() as usize],
                totals[index.ceil() as usize],
            );
            let expected = low as f64 + (high - low) as f64 * (index - index.floor());
            let got: f64 = quantile(&mut con, key, p).unwrap().parse().unwrap();
            assert_eq!(got, expected, "{key} {p}");
        }
        for _ in 0..60 {
            let bound = |rng: &mut Rng| -> (String, f64, bool) {
                let open = rng.chance(30);
                let (text, value) = match rng.below(8) {
                    0 => ("-inf".to_string(), f64::NEG_INFINITY),
                    1 => ("+inf".to_string(), f64::INFINITY),
                    2 => {
                        let x = rng.range(-70, 70) as f64 / 10.0;
                        (x.to_string(), x)
                    }
                    _ => {
                        let x = rng.range(-7, 7);
                        (x.to_string(), x as f64)
                    }
                };
                (
                    format!("{}{text}", if open { "(" } else { "" }),
                    value,
                    open,
                )
            };
            let ((min, lo, lo_open), (max, hi, hi_open)) = (bound(&mut rng), bound(&mut rng));
            let expected = totals
                .iter()
                .filter(|&&t| {
                    let t = t as f64;
                    (if lo_open { t > lo } else { t >= lo })
                        && (if hi_open { t < hi } else { t <= hi })
                })
                .count() as i64;
            assert_eq!(
                count(&mut con, key, &min, &max),
                expected,
                "{key} {min} {max}"
            );
        }
    }
}

fn range(con: &mut Connection, key: &str, words: &[&str]) -> Vec<(i64, String, i64)> {
    let mut call = vec!["RANK.RANGE", key];
    call.extend_from_slice(words);
    query(con, &call)
}

fn among(con: &mut Connection, key: &str, words: &[&str]) -> Vec<(i64, String, i64)> {
    let mut call = vec!["RANK.AMONG", key];
    call.extend_from_slice(words);
    query(con, &call)
}

fn rows(rows: &[(i64, &str, i64)]) -> Vec<(i64, String, i64)> {
    rows.iter()
        .map(|(rank, member, total)| (*rank, member.to_string(), *total))
        .collect()
}

#[test]
fn a_score_band_and_a_friends_board() {
    let server = Server::start();
    let mut con = server.connect();
    let room = "gifts:room:42";
    for (i, (member, total)) in [
        ("alice", 300),
        ("bob", 120),
        ("carol", 120),
        ("dave", 50),
        ("erin", -5),
        ("frank", 120),
    ]
    .into_iter()
    .enumerate()
    {
        gift(&mut con, room, member, total, &at(i as i64 * MIN));
    }
    // Board: alice 300 (1), bob 120 (2), carol 120 (3), frank 120 (4),
    // dave 50 (5), erin -5 (6).
    let band = range(&mut con, room, &["200", "100"]);
    assert_eq!(
        band,
        rows(&[(2, "bob", 120), (3, "carol", 120), (4, "frank", 120)])
    );
    let band = range(&mut con, room, &["200", "100", "SHARED"]);
    assert_eq!(
        band,
        rows(&[(2, "bob", 120), (2, "carol", 120), (2, "frank", 120)])
    );
    // A page that starts inside the run of 120s keeps the board's ranks.
    let page = range(
        &mut con,
        room,
        &["+inf", "(100", "LIMIT", "2", "5", "SHARED"],
    );
    assert_eq!(page, rows(&[(2, "carol", 120), (2, "frank", 120)]));
    let page = range(&mut con, room, &["+inf", "(100", "LIMIT", "2", "1"]);
    assert_eq!(page, rows(&[(3, "carol", 120)]));
    // A negative count is all the rest, as in ZRANGEBYSCORE.
    let page = range(&mut con, room, &["+inf", "-inf", "LIMIT", "4", "-1"]);
    assert_eq!(page, rows(&[(5, "dave", 50), (6, "erin", -5)]));
    for words in [
        &["+inf", "-inf", "LIMIT", "6", "1"][..],
        &["+inf", "-inf", "LIMIT", "0", "0"],
        &["100", "200"],
        &["(120", "(50"],
        &["119.5", "50.5"],
        &["-inf", "-inf"],
    ] {
        assert_eq!(range(&mut con, room, words), Vec::new(), "{words:?}");
    }
    // Decimal and exclusive bounds, negative totals, the whole board.
    assert_eq!(
        range(&mut con, room, &["120.5", "49.5"]).len(),
        4,
        "120.5 49.5"
    );
    assert_eq!(
        range(&mut con, room, &["(50", "-inf"]),
        rows(&[(6, "erin", -5)])
    );
    assert_eq!(
        range(&mut con, room, &["+inf", "-inf"]),
        top(&mut con, room, 10)
    );
    assert_eq!(range(&mut con, "nothing", &["+inf", "-inf"]), Vec::new());
    // Among friends: the board's order, ranks among them, absent ones
    // left out, a member given twice counted once.
    let friends = among(
        &mut con,
        room,
        &["MEMBERS", "dave", "frank", "nobody", "alice", "dave"],
    );
    assert_eq!(
        friends,
        rows(&[(1, "alice", 300), (2, "frank", 120), (3, "dave", 50)])
    );
    let friends = among(
        &mut con,
        room,
        &["SHARED", "MEMBERS", "erin", "frank", "bob", "carol"],
    );
    assert_eq!(
        friends,
        rows(&[
            (1, "bob", 120),
            (1, "carol", 120),
            (1, "frank", 120),
            (4, "erin", -5)
        ])
    );
    assert_eq!(among(&mut con, room, &["MEMBERS", "nobody"]), Vec::new());
    assert_eq!(
        among(&mut con, "nothing", &["MEMBERS", "alice"]),
        Vec::new()
    );
    // A member may be named like the options: after MEMBERS it is a member.
    gift(&mut con, room, "SHARED", 400, &at(10 * MIN));
    gift(&mut con, room, "MEMBERS", 400, &at(11 * MIN));
    let friends = among(&mut con, room, &["MEMBERS", "MEMBERS", "SHARED", "alice"]);
    assert_eq!(
        friends,
        rows(&[(1, "SHARED", 400), (2, "MEMBERS", 400), (3, "alice", 300)])
    );
    let friends = among(&mut con, room, &["SHARED", "MEMBERS", "SHARED", "MEMBERS"]);
    assert_eq!(friends, rows(&[(1, "SHARED", 400), (1, "MEMBERS", 400)]));
}

#[test]
fn ranges_and_among_match_a_model_of_the_board() {
    // Few distinct totals (runs of ties, negative totals), reached at few
    // times (tied scores too): on a small board, one past the listpack
    // limit, and one past the sizes whose counts walk the key.
    let server = Server::start();
    let mut con = server.connect();
    let mut rng = Rng::seeded("rank ranges");
    for (key, members) in [("small", 40), ("large", 300)] {
        for m in 0..members {
            let total = rng.range(-5, 6);
            let when = at(rng.range(0, 4) * MIN);
            gift(&mut con, key, &format!("m{m}"), total, &when);
        }
        // The model: the board in RANK.TOP's order, with its shared ranks.
        let board: Vec<(i64, String, i64)> = query(&mut con, &["RANK.TOP", key, "1000"]);
        let shared = |total: i64| 1 + board.iter().filter(|(_, _, t)| *t > total).count() as i64;
        for _ in 0..80 {
            let bound = |rng: &mut Rng| -> (String, f64, bool) {
                let open = rng.chance(30);
                let (text, value) = match rng.below(8) {
                    0 => ("-inf".to_string(), f64::NEG_INFINITY),
                    1 => ("+inf".to_string(), f64::INFINITY),
                    2 => {
                        let x = rng.range(-70, 70) as f64 / 10.0;
                        (x.to_string(), x)
                    }
                    _ => {
                        let x = rng.range(-7, 7);
                        (x.to_string(), x as f64)
                    }
                };
                let prefix = if open { "(" } else { "" };
                (format!("{prefix}{text}"), value, open)
            };
            let ((max, hi, hi_open), (min, lo, lo_open)) = (bound(&mut rng), bound(&mut rng));
            let in_band = |t: i64| {
                let t = t as f64;
                (if lo_open { t > lo } else { t >= lo }) && (if hi_open { t < hi } else { t <= hi })
            };
            let (offset, count) = (rng.range(0, 60), rng.range(-1, 60));
            let limit = rng.chance(70);
            let take = if count < 0 || !limit {
                usize::MAX
            } else {
                count as usize
            };
            let skip = if limit { offset as usize } else { 0 };
            let expected: Vec<(i64, String, i64)> = board
                .iter()
                .filter(|(_, _, t)| in_band(*t))
                .skip(skip)
                .take(take)
                .cloned()
                .collect();
            let (offset, count) = (offset.to_string(), count.to_string());
            let mut words = vec![max.as_str(), min.as_str()];
            if limit {
                words.extend(["LIMIT", &offset, &count]);
            }
            assert_eq!(range(&mut con, key, &words), expected, "{key} {words:?}");
            words.push("SHARED");
            let expected: Vec<_> = expected
                .into_iter()
                .map(|(_, member, total)| (shared(total), member, total))
                .collect();
            assert_eq!(range(&mut con, key, &words), expected, "{key} {words:?}");
        }
        for _ in 0..40 {
            let given: Vec<String> = (0..rng.range(1, 12))
                .map(|_| format!("m{}", rng.range(0, members + 10)))
                .collect();
            let in_set: Vec<&(i64, String, i64)> = board
                .iter()
                .filter(|(_, member, _)| given.contains(member))
                .collect();
            let expected: Vec<(i64, String, i64)> = in_set
                .iter()
                .zip(1..)
                .map(|((_, member, total), rank)| (rank, member.clone(), *total))
                .collect();
            let mut words = vec!["MEMBERS"];
            words.extend(given.iter().map(String::as_str));
            assert_eq!(among(&mut con, key, &words), expected, "{key} {given:?}");
            let expected: Vec<(i64, String, i64)> = in_set
                .iter()
                .map(|(_, member, total)| {
                    let higher = in_set.iter().filter(|(_, _, t)| t > total).count() as i64;
                    (1 + higher, member.clone(), *total)
                })
                .collect();
            words.insert(0, "SHARED");
            assert_eq!(among(&mut con, key, &words), expected, "{key} {given:?}");
        }
    }
    let encoding: String = query(&mut con, &["OBJECT", "ENCODING", "large"]);
    assert_eq!(encoding, "skiplist");
}
