//! RANK's dense ranks (`DENSE totals-key`): equal totals share a rank and
//! the next total ranks one lower (1, 1, 2), read from an index of the
//! board's distinct totals that every write naming it keeps. Run on the
//! module and, by `make differential`, on the Functions library.

use crate::common::board::{at, row, Row, EPOCH};
use crate::common::client::{err, ok, query};
use crate::common::data::{assert_errors_change_nothing, zset_dump};
use crate::common::replication::{
    aof_server, assert_aof_replays_without_module, assert_replicas_match, master_and_replicas,
};
use crate::common::workload::Rng;
use crate::common::Server;
use redis::{Connection, Value};
use std::collections::{BTreeSet, HashMap};

/// The index as the client sees it: its members, lowest first, and whether
/// each is scored with the total it spells.
fn index_totals(con: &mut Connection, index: &str) -> Vec<i64> {
    zset_dump(con, index)
        .into_iter()
        .map(|(member, score)| {
            let total: i64 = member.parse().expect("an index member is a total");
            assert_eq!(score.parse::<f64>().ok(), Some(total as f64), "{member}");
            total
        })
        .collect()
}

#[test]
fn dense_ranks_share_a_rank_and_count_distinct_totals_above() {
    // The board: a and b reach 100, c 99, then d 100 later.
    let server = Server::start();
    let mut con = server.connect();
    let gift = |con: &mut Connection, member: &str, amount: &str, when: i64| -> (i64, i64) {
        query(
            con,
            &[
                "RANK.GIFT",
                "{g}:board",
                member,
                amount,
                "AT",
                &at(when),
                "DENSE",
                "{g}:totals",
            ],
        )
    };
    assert_eq!(gift(&mut con, "a", "100", 1), (100, 1));
    assert_eq!(gift(&mut con, "b", "100", 2), (100, 1));
    assert_eq!(gift(&mut con, "c", "99", 3), (99, 2));
    assert_eq!(gift(&mut con, "d", "100", 4), (100, 1));
    assert_eq!(index_totals(&mut con, "{g}:totals"), [99, 100]);
    // Positions stay first-come; SHARED gives 1, 1, 1, 4; DENSE 1, 1, 1, 2.
    let dense: Vec<Row> = query(
        &mut con,
        &["RANK.TOP", "{g}:board", "10", "DENSE", "{g}:totals"],
    );
    assert_eq!(
        dense,
        [
            row(1, "a", 100),
            row(1, "b", 100),
            row(1, "d", 100),
            row(2, "c", 99)
        ]
    );
    // A page that starts inside the run of ties.
    let page: Vec<Row> = query(
        &mut con,
        &[
            "RANK.TOP",
            "{g}:board",
            "2",
            "OFFSET",
            "2",
            "dense",
            "{g}:totals",
        ],
    );
    assert_eq!(page, [row(1, "d", 100), row(2, "c", 99)]);
    let around: Vec<Row> = query(
        &mut con,
        &["RANK.AROUND", "{g}:board", "c", "1", "DENSE", "{g}:totals"],
    );
    assert_eq!(around, [row(1, "d", 100), row(2, "c", 99)]);
    let got: (i64, i64, i64) = query(
        &mut con,
        &["RANK.GET", "{g}:board", "c", "DENSE", "{g}:totals"],
    );
    assert_eq!((got.0, got.1, got.2), (99, 2, EPOCH + 3));
    let many: Vec<Option<(i64, i64, i64)>> = query(
        &mut con,
        &[
            "RANK.MGET",
            "{g}:board",
            "DENSE",
            "{g}:totals",
            "MEMBERS",
            "c",
            "nobody",
            "a",
        ],
    );
    assert_eq!(
        many,
        [Some((99, 2, EPOCH + 3)), None, Some((100, 1, EPOCH + 1))]
    );
    let band: Vec<Row> = query(
        &mut con,
        &["RANK.RANGE", "{g}:board", "99", "99", "DENSE", "{g}:totals"],
    );
    assert_eq!(band, [row(2, "c", 99)]);
    // Among given members the ranks follow from their own totals.
    let among: Vec<Row> = query(
        &mut con,
        &["RANK.AMONG", "{g}:board", "DENSE", "MEMBERS", "c", "b", "a"],
    );
    assert_eq!(among, [row(1, "a", 100), row(1, "b", 100), row(2, "c", 99)]);

    // c climbs past the 100s: 99 leaves the index (no one holds it), 101
    // enters, and the 100s rank 2.
    let set: (i64, i64) = query(
        &mut con,
        &[
            "RANK.SET",
            "{g}:board",
            "c",
            "101",
            "AT",
            &at(5),
            "DENSE",
            "{g}:totals",
        ],
    );
    assert_eq!(set, (101, 1));
    assert_eq!(index_totals(&mut con, "{g}:totals"), [100, 101]);
    // a leaves 100 for 102: 100 stays, b and d still hold it.
    assert_eq!(gift(&mut con, "a", "2", 6), (102, 1));
    assert_eq!(index_totals(&mut con, "{g}:totals"), [100, 101, 102]);
    let dense: Vec<Row> = query(
        &mut con,
        &["RANK.TOP", "{g}:board", "10", "DENSE", "{g}:totals"],
    );
    assert_eq!(
        dense,
        [
            row(1, "a", 102),
            row(2, "c", 101),
            row(3, "b", 100),
            row(3, "d", 100)
        ]
    );
    // A refused GT changes nothing and replies the standing dense rank.
    let kept: (i64, i64) = query(
        &mut con,
        &[
            "RANK.SET",
            "{g}:board",
            "b",
            "50",
            "GT",
            "DENSE",
            "{g}:totals",
        ],
    );
    assert_eq!(kept, (100, 3));
    assert_eq!(index_totals(&mut con, "{g}:totals"), [100, 101, 102]);
    // Negative totals: below every positive one, 1 + the distinct totals
    // above.
    assert_eq!(gift(&mut con, "e", "-5", 7), (-5, 4));
    assert_eq!(gift(&mut con, "f", "-5", 8), (-5, 4));
    assert_eq!(gift(&mut con, "f", "-1", 9), (-6, 5));
    assert_eq!(
        index_totals(&mut con, "{g}:totals"),
        [-6, -5, 100, 101, 102]
    );
    // An empty board answers as without DENSE.
    let empty: Vec<Value> = query(
        &mut con,
        &["RANK.TOP", "{g}:none", "5", "DENSE", "{g}:totals"],
    );
    assert!(empty.is_empty());
    let absent = ok(
        &mut con,
        &["RANK.GET", "{g}:board", "nobody", "DENSE", "{g}:totals"],
    );
    assert_eq!(absent, Value::Nil);
}

#[test]
fn dense_ranks_match_a_model_of_the_board() {
    // Writes of every kind (gifts, sets with GT and LT, negative totals,
    // few distinct totals so that runs of ties start and end inside pages)
    // on a small board and on one past the listpack limit: after each
    // round, every dense rank (GET, MGET, TOP at any offset, AROUND,
    // RANGE) and the index agree with a model that counts distinct totals.
    let server = Server::start();
    let mut con = server.connect();
    let mut rng = Rng::seeded("dense_ranks_match_a_model_of_the_board");
    for (board, members) in [("{m}:small", 12usize), ("{m}:large", 300)] {
        let index = "{m}:totals:".to_string() + board;
        let mut model: HashMap<String, i64> = HashMap::new();
        let mut clock = 0;
        for round in 0..3 {
            for _ in 0..members * 2 {
                let member = format!("p{}", rng.below(members as u64));
                let value = rng.range(-4, 4).to_string();
                clock += rng.range(0, 2);
                let when = at(clock);
                let mut words = vec!["RANK.GIFT", board, &member, &value, "AT", &when];
                let kind = rng.below(4);
                if kind > 0 {
                    words[0] = "RANK.SET";
                }
                if kind == 2 {
                    words.push("GT");
                } else if kind == 3 {
                    words.push("LT");
                }
                words.extend(["DENSE", &index]);
                let (total, _): (i64, i64) = query(&mut con, &words);
                let before = model.get(&member).copied();
                let amount: i64 = value.parse().unwrap();
                let expected = match (kind, before) {
                    (0, before) => before.unwrap_or(0) + amount,
                    (2, Some(before)) => before.max(amount),
                    (3, Some(before)) => before.min(amount),
                    _ => amount,
                };
                assert_eq!(total, expected, "{words:?}");
                model.insert(member, total);
            }
            let distinct: BTreeSet<i64> = model.values().copied().collect();
            assert_eq!(
                index_totals(&mut con, &index),
                distinct.iter().copied().collect::<Vec<_>>(),
                "{board} round {round}"
            );
            let dense = |total: i64| 1 + distinct.range(total + 1..).count() as i64;
            let board_rows: Vec<Row> = query(&mut con, &["RANK.TOP", board, "1000"]);
            assert_eq!(board_rows.len(), model.len());
            let expected: Vec<Row> = board_rows
                .iter()
                .map(|(_, member, total)| (dense(*total), member.clone(), *total))
                .collect();
            let all: Vec<Row> = query(&mut con, &["RANK.TOP", board, "1000", "DENSE", &index]);
            assert_eq!(all, expected, "{board} round {round}");
            for _ in 0..20 {
                let offset = rng.below(model.len() as u64) as usize;
                let count = 1 + rng.below(40) as usize;
                let page: Vec<Row> = query(
                    &mut con,
                    &[
                        "RANK.TOP",
                        board,
                        &count.to_string(),
                        "OFFSET",
                        &offset.to_string(),
                        "DENSE",
                        &index,
                    ],
                );
                let want: Vec<Row> = expected.iter().skip(offset).take(count).cloned().collect();
                assert_eq!(page, want, "{board} OFFSET {offset} COUNT {count}");
                let (_, member, total) = &expected[offset];
                let got: (i64, i64, i64) =
                    query(&mut con, &["RANK.GET", board, member, "DENSE", &index]);
                assert_eq!((got.0, got.1), (*total, dense(*total)), "{member}");
                let radius = rng.below(5);
                let around: Vec<Row> = query(
                    &mut con,
                    &[
                        "RANK.AROUND",
                        board,
                        member,
                        &radius.to_string(),
                        "DENSE",
                        &index,
                    ],
                );
                let first = offset.saturating_sub(radius as usize);
                let last = (offset + radius as usize).min(expected.len() - 1);
                assert_eq!(around, expected[first..=last], "AROUND {member} {radius}");
                let band: Vec<Row> = query(
                    &mut con,
                    &[
                        "RANK.RANGE",
                        board,
                        &total.to_string(),
                        "-inf",
                        "LIMIT",
                        "0",
                        "3",
                        "DENSE",
                        &index,
                    ],
                );
                let want: Vec<Row> = expected
                    .iter()
                    .filter(|r| r.2 <= *total)
                    .take(3)
                    .cloned()
                    .collect();
                assert_eq!(band, want, "RANGE {total}");
            }
        }
    }
}

#[test]
fn a_gift_to_several_boards_keeps_each_boards_index() {
    // A room's board and the week's, each with its own index: random gifts
    // to both through RANK.MGIFT ... DENSE, checked against a model of each.
    let server = Server::start();
    let mut con = server.connect();
    let mut rng = Rng::seeded("mgift dense");
    let (boards, indexes) = (["{w}:room", "{w}:week"], ["{w}:room:t", "{w}:week:t"]);
    let mut models: [HashMap<String, i64>; 2] = [HashMap::new(), HashMap::new()];
    // The week starts with totals the room does not have.
    for (member, total) in [("x", 40), ("y", 9)] {
        ok(
            &mut con,
            &[
                "RANK.SET",
                boards[1],
                member,
                &total.to_string(),
                "DENSE",
                indexes[1],
            ],
        );
        models[1].insert(member.to_string(), total);
    }
    for round in 0..150 {
        let member = format!("m{}", rng.below(12));
        let amount = rng.below(9) as i64 - 3;
        let mut call = vec!["RANK.MGIFT", "2", boards[0], boards[1], &member];
        let amount_text = amount.to_string();
        call.extend([amount_text.as_str(), "DENSE", indexes[0], indexes[1]]);
        let replies: Vec<(i64, i64)> = query(&mut con, &call);
        for (b, model) in models.iter_mut().enumerate() {
            let total = *model.entry(member.clone()).or_insert(0) + amount;
            model.insert(member.clone(), total);
            let distinct: BTreeSet<i64> = model.values().copied().collect();
            let dense = 1 + distinct.range(total + 1..).count() as i64;
            assert_eq!(replies[b], (total, dense), "{} round {round}", boards[b]);
            assert_eq!(
                index_totals(&mut con, indexes[b]),
                distinct.into_iter().collect::<Vec<_>>(),
                "{} round {round}",
                indexes[b]
            );
        }
    }
    // A retried event replies each board's standing with its dense rank.
    let once = [
        "RANK.MGIFT",
        "2",
        boards[0],
        boards[1],
        "x",
        "1",
        "DENSE",
        indexes[0],
        indexes[1],
        "IDMP",
        "{w}:seen",
        "e1",
    ];
    let first: Vec<Value> = query(&mut con, &once);
    let again: Vec<Value> = query(&mut con, &once);
    assert_eq!(first[..2], again[..2]);
    assert_eq!((&first[2], &again[2]), (&Value::Int(0), &Value::Int(1)));
}

#[test]
fn removed_members_take_their_totals_out_of_the_index() {
    let server = Server::start();
    let mut con = server.connect();
    for (member, total) in [("a", 10), ("b", 7), ("c", 7), ("d", 5), ("DENSE", 3)] {
        ok(
            &mut con,
            &[
                "RANK.SET",
                "{r}:board",
                member,
                &total.to_string(),
                "DENSE",
                "{r}:totals",
            ],
        );
    }
    assert_eq!(index_totals(&mut con, "{r}:totals"), [3, 5, 7, 10]);
    // b leaves: c still holds 7. A member given twice, or not on the
    // board, counts nothing; a member spelled DENSE is a member.
    let removed: i64 = query(
        &mut con,
        &[
            "RANK.REMOVE",
            "{r}:board",
            "DENSE",
            "{r}:totals",
            "MEMBERS",
            "b",
            "b",
            "nobody",
            "DENSE",
        ],
    );
    assert_eq!(removed, 2);
    assert_eq!(index_totals(&mut con, "{r}:totals"), [5, 7, 10]);
    let got: (i64, i64, i64) = query(
        &mut con,
        &["RANK.GET", "{r}:board", "d", "DENSE", "{r}:totals"],
    );
    assert_eq!((got.0, got.1), (5, 3));
    // c leaves 7 empty; then the last members go and the board is deleted,
    // with every total out of the index.
    let removed: i64 = query(
        &mut con,
        &[
            "RANK.REMOVE",
            "{r}:board",
            "DENSE",
            "{r}:totals",
            "MEMBERS",
            "c",
        ],
    );
    assert_eq!(removed, 1);
    assert_eq!(index_totals(&mut con, "{r}:totals"), [5, 10]);
    let removed: i64 = query(
        &mut con,
        &[
            "RANK.REMOVE",
            "{r}:board",
            "dense",
            "{r}:totals",
            "members",
            "a",
            "d",
        ],
    );
    assert_eq!(removed, 2);
    let exists: i64 = query(&mut con, &["EXISTS", "{r}:board", "{r}:totals"]);
    assert_eq!(exists, 0);
    // Without DENSE it is ZREM.
    ok(&mut con, &["RANK.GIFT", "{r}:plain", "x", "1"]);
    let removed: i64 = query(&mut con, &["RANK.REMOVE", "{r}:plain", "MEMBERS", "x", "y"]);
    assert_eq!(removed, 1);
    let removed: i64 = query(&mut con, &["RANK.REMOVE", "{r}:plain", "MEMBERS", "x"]);
    assert_eq!(removed, 0);
}

#[test]
fn reindex_builds_the_index_of_a_board_written_without_it() {
    // A board written by RANK.MGIFT and RANK.SET without DENSE, then a
    // member removed with ZREM: RANK.REINDEX replaces a stale index with
    // the board's distinct totals, and dense ranks read right again.
    let server = Server::start();
    let mut con = server.connect();
    let (first, second) = (at(1), at(2));
    ok(
        &mut con,
        &[
            "RANK.MGIFT",
            "2",
            "{i}:day",
            "{i}:week",
            "a",
            "10",
            "AT",
            &first,
        ],
    );
    ok(
        &mut con,
        &[
            "RANK.MGIFT",
            "2",
            "{i}:day",
            "{i}:week",
            "b",
            "10",
            "AT",
            &second,
        ],
    );
    ok(&mut con, &["RANK.SET", "{i}:day", "c", "-3"]);
    ok(&mut con, &["RANK.SET", "{i}:day", "gone", "50"]);
    ok(&mut con, &["ZREM", "{i}:day", "gone"]);
    ok(&mut con, &["ZADD", "{i}:totals", "99", "99", "50", "50"]);
    let distinct: i64 = query(&mut con, &["RANK.REINDEX", "{i}:day", "{i}:totals"]);
    assert_eq!(distinct, 2);
    assert_eq!(index_totals(&mut con, "{i}:totals"), [-3, 10]);
    let page: Vec<Row> = query(
        &mut con,
        &["RANK.TOP", "{i}:day", "5", "DENSE", "{i}:totals"],
    );
    assert_eq!(page, [row(1, "a", 10), row(1, "b", 10), row(2, "c", -3)]);
    // An empty board leaves no index.
    let distinct: i64 = query(&mut con, &["RANK.REINDEX", "{i}:none", "{i}:totals"]);
    assert_eq!(distinct, 0);
    let exists: i64 = query(&mut con, &["EXISTS", "{i}:totals"]);
    assert_eq!(exists, 0);
}

#[test]
fn dense_refusals_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    ok(
        &mut con,
        &["RANK.GIFT", "{d}:board", "m", "10", "DENSE", "{d}:totals"],
    );
    ok(&mut con, &["SET", "{d}:str", "x"]);
    ok(&mut con, &["ZADD", "{d}:foreign", "1", "x", "inf", "m"]);
    let cases: &[(&[&str], &str)] = &[
        // The index must be another key than the board, on reads too.
        (
            &["RANK.GIFT", "{d}:board", "m", "1", "DENSE", "{d}:board"],
            "ERR the DENSE totals-key must be another key than the board",
        ),
        (
            &["RANK.GET", "{d}:board", "m", "DENSE", "{d}:board"],
            "ERR the DENSE totals-key must be another key than the board",
        ),
        // An index of another type refuses the write before the board
        // changes.
        (
            &["RANK.GIFT", "{d}:board", "m", "1", "DENSE", "{d}:str"],
            "WRONGTYPE",
        ),
        (
            &["RANK.SET", "{d}:board", "n", "1", "DENSE", "{d}:str"],
            "WRONGTYPE",
        ),
        (
            &["RANK.TOP", "{d}:board", "5", "DENSE", "{d}:str"],
            "WRONGTYPE",
        ),
        // RANK.MGIFT: an index per board, each another key than every
        // board and every other index.
        (
            &[
                "RANK.MGIFT",
                "2",
                "{d}:board",
                "{d}:week",
                "m",
                "1",
                "DENSE",
                "{d}:totals",
                "{d}:board",
            ],
            "ERR the DENSE totals-key must be another key than the board",
        ),
        (
            &[
                "RANK.MGIFT",
                "2",
                "{d}:board",
                "{d}:week",
                "m",
                "1",
                "DENSE",
                "{d}:totals",
                "{d}:totals",
            ],
            "ERR a board is named twice",
        ),
        (
            &[
                "RANK.MGIFT",
                "2",
                "{d}:board",
                "{d}:week",
                "m",
                "1",
                "DENSE",
                "{d}:totals",
                "{d}:str",
            ],
            "WRONGTYPE",
        ),
        (
            &[
                "RANK.MGIFT",
                "2",
                "{d}:board",
                "{d}:week",
                "m",
                "1",
                "DENSE",
                "{d}:totals",
            ],
            "ERR numkeys is larger than the number of totals-key arguments that follow",
        ),
        // SHARED and DENSE are one choice.
        (
            &[
                "RANK.GIFT",
                "{d}:board",
                "m",
                "1",
                "SHARED",
                "DENSE",
                "{d}:totals",
            ],
            "ERR syntax error",
        ),
        (&["RANK.TOP", "{d}:board", "5", "DENSE"], "ERR syntax error"),
        (
            &[
                "RANK.REMOVE",
                "{d}:board",
                "DENSE",
                "{d}:str",
                "MEMBERS",
                "m",
            ],
            "WRONGTYPE",
        ),
        (
            &[
                "RANK.REMOVE",
                "{d}:board",
                "DENSE",
                "{d}:board",
                "MEMBERS",
                "m",
            ],
            "ERR the DENSE totals-key must be another key than the board",
        ),
        (
            &[
                "RANK.REMOVE",
                "{d}:foreign",
                "DENSE",
                "{d}:totals",
                "MEMBERS",
                "x",
                "m",
            ],
            "ERR the member's score inf is not a rank score",
        ),
        (&["RANK.REMOVE", "{d}:str", "MEMBERS", "m"], "WRONGTYPE"),
        (&["RANK.REMOVE", "{d}:board", "MEMBERS"], "ERR syntax error"),
        // RANK.REINDEX refuses an index of another type rather than
        // overwrite it, and a score zkit did not write before it writes.
        (&["RANK.REINDEX", "{d}:board", "{d}:str"], "WRONGTYPE"),
        (&["RANK.REINDEX", "{d}:str", "{d}:totals"], "WRONGTYPE"),
        (
            &["RANK.REINDEX", "{d}:foreign", "{d}:totals"],
            "ERR the member's score inf is not a rank score",
        ),
        (
            &["RANK.REINDEX", "{d}:board", "{d}:board"],
            "ERR the DENSE totals-key must be another key than the board",
        ),
    ];
    assert_errors_change_nothing(&mut con, cases);
    // A total out of range is refused before the index is looked at.
    let refused = err(
        &mut con,
        &[
            "RANK.GIFT",
            "{d}:board",
            "m",
            "4503599627370496",
            "DENSE",
            "{d}:str",
        ],
    );
    assert!(refused.starts_with("ERR total out of range"), "{refused}");
}

#[test]
fn dense_writes_keep_the_index_on_replicas_and_in_the_aof_without_zkit() {
    let writes: &[&[&str]] = &[
        &[
            "RANK.GIFT",
            "{x}:board",
            "a",
            "10",
            "DENSE",
            "{x}:totals",
            "TTL",
            "3600",
        ],
        &["RANK.GIFT", "{x}:board", "b", "10", "DENSE", "{x}:totals"],
        &[
            "RANK.SET",
            "{x}:board",
            "a",
            "12",
            "GT",
            "DENSE",
            "{x}:totals",
        ],
        &[
            "RANK.SET",
            "{x}:board",
            "b",
            "3",
            "DENSE",
            "{x}:totals",
            "TTL",
            "7200",
        ],
        &[
            "RANK.GIFT",
            "{x}:board",
            "c",
            "3",
            "DENSE",
            "{x}:totals",
            "IDMP",
            "{x}:seen",
            "e1",
        ],
        &[
            "RANK.GIFT",
            "{x}:board",
            "c",
            "3",
            "DENSE",
            "{x}:totals",
            "IDMP",
            "{x}:seen",
            "e1",
        ],
        &["RANK.GIFT", "{x}:board", "d", "1", "DENSE", "{x}:totals"],
        &[
            "RANK.REMOVE",
            "{x}:board",
            "DENSE",
            "{x}:totals",
            "MEMBERS",
            "d",
            "e",
        ],
        &["RANK.REINDEX", "{x}:board", "{x}:rebuilt"],
    ];
    let (master, replicas) = master_and_replicas();
    let mut con = master.connect();
    for words in writes {
        ok(&mut con, words);
    }
    assert_eq!(index_totals(&mut con, "{x}:totals"), [3, 12]);
    // The index expires with the board: each write's TTL is set on both.
    let board_ttl: i64 = query(&mut con, &["TTL", "{x}:board"]);
    let index_ttl: i64 = query(&mut con, &["TTL", "{x}:totals"]);
    assert!(
        board_ttl > 3600 && (board_ttl - index_ttl).abs() <= 1,
        "{board_ttl} {index_ttl}"
    );
    let data = assert_replicas_match(&master, &replicas);
    assert_eq!(data.len(), 4);

    let server = aof_server();
    let mut con = server.connect();
    for words in writes {
        ok(&mut con, words);
    }
    drop(con);
    assert_aof_replays_without_module(server);
}
