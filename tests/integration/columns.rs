//! Boards ranked by several columns (`RANK.COLUMNS`, `COLUMNS columns-key`,
//! `THEN`): a match board ranked by kills, then the lowest time, then
//! first-come. Every rank, page and tie-break is the packed total's, held to
//! a brute-force model of tuples compared column by column; refusals change
//! nothing; the data stays a plain sorted set and a plain hash. Run on the
//! module and, by `make differential`, on the Functions library.

use crate::common::board::{at, EPOCH};
use crate::common::client::{err, error_text, query, run};
use crate::common::data::assert_errors_change_nothing;
use crate::common::workload::Rng;
use crate::common::Server;
use redis::Connection;
use std::cmp::Ordering;
use std::collections::HashMap;

/// A page's row with COLUMNS: rank, member, total, the columns' values.
type ColumnsRow = (i64, String, i64, Vec<i64>);

/// RANK.GET's reply with COLUMNS and DATA: total, rank, reached-at, the
/// columns' values, the data.
type ColumnsInfoWithData = (i64, i64, i64, Vec<i64>, Option<String>);

/// Kills (0 to 100, more wins) then time (0 to 999 s, less wins): 101,000
/// combinations, a tie-break slot of 32 ms.
fn declare_match(con: &mut Connection, key: &str) -> i64 {
    query(
        con,
        &["RANK.COLUMNS", key, "kills", "100", "0", "time", "0", "999"],
    )
}

#[test]
fn a_match_board_ranks_by_kills_then_the_lowest_time_then_first_come() {
    let server = Server::start();
    let mut con = server.connect();
    assert_eq!(declare_match(&mut con, "{m}:cols"), 32);
    // The same columns again change nothing and reply the same.
    assert_eq!(declare_match(&mut con, "{m}:cols"), 32);
    let set = |con: &mut Connection, player: &str, kills: &str, time: &str, when: i64| {
        let reply: (i64, i64, Vec<i64>) = query(
            con,
            &[
                "RANK.SET",
                "{m}:board",
                player,
                kills,
                "AT",
                &at(when),
                "GT",
                "COLUMNS",
                "{m}:cols",
                "THEN",
                time,
            ],
        );
        reply
    };
    // Totals are kills * 1000 + (999 - time).
    assert_eq!(
        set(&mut con, "ann", "12", "450", 1_000),
        (12_549, 1, vec![12, 450])
    );
    assert_eq!(
        set(&mut con, "bob", "12", "300", 2_000),
        (12_699, 1, vec![12, 300])
    );
    assert_eq!(
        set(&mut con, "cid", "12", "300", 3_000),
        (12_699, 2, vec![12, 300])
    );
    assert_eq!(
        set(&mut con, "dan", "9", "10", 4_000),
        (9_989, 4, vec![9, 10])
    );
    // GT keeps the better tuple: more kills win whatever the time.
    assert_eq!(
        set(&mut con, "ann", "11", "5", 5_000),
        (12_549, 3, vec![12, 450])
    );
    assert_eq!(
        set(&mut con, "dan", "13", "998", 6_000),
        (13_001, 1, vec![13, 998])
    );
    // A gift adds to each column: a kill and 20 more seconds.
    let gift: (i64, i64, Vec<i64>) = query(
        &mut con,
        &[
            "RANK.GIFT",
            "{m}:board",
            "ann",
            "1",
            "AT",
            &at(7_000),
            "COLUMNS",
            "{m}:cols",
            "THEN",
            "20",
        ],
    );
    assert_eq!(gift, (13_529, 1, vec![13, 470]));
    let top: Vec<ColumnsRow> = query(
        &mut con,
        &["RANK.TOP", "{m}:board", "10", "COLUMNS", "{m}:cols"],
    );
    let expected = [
        (1, "ann", 13_529, [13, 470]),
        (2, "dan", 13_001, [13, 998]),
        (3, "bob", 12_699, [12, 300]),
        (4, "cid", 12_699, [12, 300]),
    ];
    let expected: Vec<ColumnsRow> = (expected.iter())
        .map(|&(rank, member, total, values)| (rank, member.to_string(), total, values.to_vec()))
        .collect();
    assert_eq!(top, expected);
    let shared: Vec<ColumnsRow> = query(
        &mut con,
        &[
            "RANK.AROUND",
            "{m}:board",
            "cid",
            "2",
            "SHARED",
            "COLUMNS",
            "{m}:cols",
        ],
    );
    assert_eq!(
        shared
            .iter()
            .map(|r| (r.0, r.1.as_str()))
            .collect::<Vec<_>>(),
        [(2, "dan"), (3, "bob"), (3, "cid")]
    );
    let cid: (i64, i64, i64, Vec<i64>) = query(
        &mut con,
        &["RANK.GET", "{m}:board", "cid", "COLUMNS", "{m}:cols"],
    );
    assert_eq!(cid, (12_699, 4, EPOCH + 3_000, vec![12, 300]));
    let among: Vec<ColumnsRow> = query(
        &mut con,
        &[
            "RANK.AMONG",
            "{m}:board",
            "DENSE",
            "COLUMNS",
            "{m}:cols",
            "MEMBERS",
            "cid",
            "bob",
            "zed",
        ],
    );
    assert_eq!(
        among,
        [
            (1, "bob".to_string(), 12_699, vec![12, 300]),
            (1, "cid".to_string(), 12_699, vec![12, 300])
        ]
    );
    // With DATA, the data comes after the columns; MGET names nil for a
    // member not on the board.
    let _: i64 = query(&mut con, &["HSET", "{m}:profiles", "bob", "Bob B."]);
    let mget: Vec<Option<ColumnsInfoWithData>> = query(
        &mut con,
        &[
            "RANK.MGET",
            "{m}:board",
            "DATA",
            "{m}:profiles",
            "COLUMNS",
            "{m}:cols",
            "MEMBERS",
            "bob",
            "zed",
        ],
    );
    assert_eq!(
        mget,
        [
            Some((
                12_699,
                3,
                EPOCH + 2_000,
                vec![12, 300],
                Some("Bob B.".to_string())
            )),
            None
        ]
    );
    // Without COLUMNS the same board reads as any board: its totals.
    let plain: Vec<(i64, String, i64)> = query(&mut con, &["RANK.TOP", "{m}:board", "1"]);
    assert_eq!(plain, [(1, "ann".to_string(), 13_529)]);
    // A plain sorted set and a plain hash: ZREVRANGE is the board's order,
    // and the columns read with HGET.
    let natives: Vec<String> = query(&mut con, &["ZREVRANGE", "{m}:board", "0", "-1"]);
    assert_eq!(natives, ["ann", "dan", "bob", "cid"]);
    let stored: HashMap<String, String> = query(&mut con, &["HGETALL", "{m}:cols"]);
    assert_eq!(
        stored,
        HashMap::from([
            ("columns".to_string(), "2".to_string()),
            ("1".to_string(), "100 0 kills".to_string()),
            ("2".to_string(), "0 999 time".to_string()),
        ])
    );
}

#[test]
fn refusals_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    declare_match(&mut con, "{m}:cols");
    let _: (i64, i64, Vec<i64>) = query(
        &mut con,
        &[
            "RANK.SET",
            "{m}:board",
            "ann",
            "5",
            "COLUMNS",
            "{m}:cols",
            "THEN",
            "100",
        ],
    );
    // A member written without the columns, with a total they cannot pack.
    let _: (i64, i64) = query(&mut con, &["RANK.SET", "{m}:board", "foreign", "200000"]);
    let _: i64 = query(&mut con, &["HSET", "{m}:other", "f", "v"]);
    let _: () = query(&mut con, &["SET", "{m}:string", "x"]);
    let set = |rest: &[&'static str]| -> Vec<&'static str> {
        let mut words = vec!["RANK.SET", "{m}:board", "ann", "5"];
        words.extend_from_slice(rest);
        words
    };
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (set(&["THEN", "1"]), "ERR THEN needs COLUMNS"),
        (
            set(&["ASC", "COLUMNS", "{m}:cols", "THEN", "1"]),
            "ERR ASC does not apply with COLUMNS",
        ),
        (
            set(&["COLUMNS", "{m}:board", "THEN", "1"]),
            "ERR the COLUMNS key must be another key",
        ),
        (
            set(&["DATA", "{m}:d", "x", "COLUMNS", "{m}:d", "THEN", "1"]),
            "ERR the COLUMNS key must be another key",
        ),
        (
            set(&["COLUMNS", "{m}:none", "THEN", "1"]),
            "ERR no columns at the COLUMNS key",
        ),
        (
            set(&["COLUMNS", "{m}:other", "THEN", "1"]),
            "ERR the COLUMNS key holds no board's columns",
        ),
        (set(&["COLUMNS", "{m}:string", "THEN", "1"]), "WRONGTYPE"),
        (
            set(&["COLUMNS", "{m}:cols"]),
            "ERR the board has 2 columns; the call gives values for 1",
        ),
        (
            set(&["COLUMNS", "{m}:cols", "THEN", "1", "2"]),
            "ERR the board has 2 columns; the call gives values for 3",
        ),
        (
            set(&["COLUMNS", "{m}:cols", "THEN", "1000"]),
            "ERR column 2's value would be outside its range [0, 999]",
        ),
        (
            vec![
                "RANK.SET",
                "{m}:board",
                "ann",
                "101",
                "COLUMNS",
                "{m}:cols",
                "THEN",
                "1",
            ],
            "ERR column 1's value would be outside its range [0, 100]",
        ),
        // A gift never carries: 100 + 900 seconds leave the time's range.
        (
            vec![
                "RANK.GIFT",
                "{m}:board",
                "ann",
                "0",
                "COLUMNS",
                "{m}:cols",
                "THEN",
                "900",
            ],
            "ERR column 2's value would be outside its range [0, 999]",
        ),
        (
            vec![
                "RANK.GIFT",
                "{m}:board",
                "ann",
                "0",
                "COLUMNS",
                "{m}:cols",
                "THEN",
                "9223372036854775807",
            ],
            "ERR column 2's value would be outside its range [0, 999]",
        ),
        (
            vec![
                "RANK.GIFT",
                "{m}:board",
                "foreign",
                "1",
                "COLUMNS",
                "{m}:cols",
                "THEN",
                "0",
            ],
            "ERR the member's total 200000 packs no tuple of these columns",
        ),
        (
            vec!["RANK.GET", "{m}:board", "foreign", "COLUMNS", "{m}:cols"],
            "ERR the member's total 200000 packs no tuple of these columns",
        ),
        (
            vec!["RANK.TOP", "{m}:board", "10", "COLUMNS", "{m}:cols"],
            "ERR the member's total 200000 packs no tuple of these columns",
        ),
        (
            vec!["RANK.COLUMNS", "{m}:cols", "kills", "100", "0"],
            "ERR the key holds other columns",
        ),
        (
            vec!["RANK.COLUMNS", "{m}:other", "a", "1", "0"],
            "ERR the COLUMNS key holds no board's columns",
        ),
        (
            vec!["RANK.COLUMNS", "{m}:string", "a", "1", "0"],
            "WRONGTYPE",
        ),
        (
            vec![
                "RANK.COLUMNS",
                "{m}:new",
                "a",
                "0",
                "67108864",
                "b",
                "67108864",
                "0",
            ],
            "ERR the columns' ranges hold more than 2^52",
        ),
        (
            vec!["RANK.COLUMNS", "{m}:new", "a", "4503599627370496", "0"],
            "ERR a column's best and worst values must be integers with |value| < 2^52",
        ),
    ];
    let mut too_many = vec!["RANK.COLUMNS", "{m}:new"];
    for _ in 0..17 {
        too_many.extend_from_slice(&["c", "1", "0"]);
    }
    let mut cases = cases;
    cases.push((too_many, "ERR a board has at most 16 columns"));
    let cases: Vec<(&[&str], &str)> = cases.iter().map(|(w, e)| (w.as_slice(), *e)).collect();
    assert_errors_change_nothing(&mut con, &cases);
    // The widest layout that fits is taken, and its slot says how coarse
    // the tie-break is there (2^41 ms over 1 bit).
    let slot: i64 = query(
        &mut con,
        &[
            "RANK.COLUMNS",
            "{m}:wide",
            "a",
            "0",
            "67108863",
            "b",
            "67108863",
            "0",
        ],
    );
    assert_eq!(slot, 1 << 40);
}

#[test]
fn a_repeated_event_replies_the_columns_as_the_board_stands() {
    let server = Server::start();
    let mut con = server.connect();
    declare_match(&mut con, "{m}:cols");
    let gift = |con: &mut Connection,
                time: &str|
     -> redis::RedisResult<(i64, Option<i64>, Vec<i64>, i64)> {
        let words = [
            "RANK.GIFT",
            "{m}:board",
            "ann",
            "2",
            "IDMP",
            "{m}:seen",
            "kill-7",
            "COLUMNS",
            "{m}:cols",
            "THEN",
            time,
        ];
        Ok(redis::from_redis_value(run(con, &words)?)?)
    };
    assert_eq!(
        gift(&mut con, "30").unwrap(),
        (2_969, Some(1), vec![2, 30], 0)
    );
    assert_eq!(
        gift(&mut con, "30").unwrap(),
        (2_969, Some(1), vec![2, 30], 1)
    );
    // Other THEN values are other arguments for the same event id.
    let e = error_text(&gift(&mut con, "31").unwrap_err());
    assert!(e.contains("other arguments"), "{e}");
    let _: i64 = query(&mut con, &["ZREM", "{m}:board", "ann"]);
    assert_eq!(gift(&mut con, "30").unwrap(), (0, None, vec![0, 0], 1));
}

/// A column board's model: each member's tuple and when it was reached.
struct Model {
    /// (best, worst) per column.
    columns: Vec<(i64, i64)>,
    members: HashMap<String, (Vec<i64>, i64)>,
}

impl Model {
    fn in_range(&self, values: &[i64]) -> bool {
        (self.columns.iter().zip(values))
            .all(|(&(best, worst), v)| (best.min(worst)..=best.max(worst)).contains(v))
    }

    /// Better first: column by column in each one's direction.
    fn compare(&self, a: &[i64], b: &[i64]) -> Ordering {
        for (&(best, worst), (x, y)) in self.columns.iter().zip(a.iter().zip(b)) {
            let by = if best >= worst { y.cmp(x) } else { x.cmp(y) };
            if by.is_ne() {
                return by;
            }
        }
        Ordering::Equal
    }

    /// The board best first: tuple, then first-come.
    fn order(&self) -> Vec<(String, Vec<i64>)> {
        let mut rows: Vec<_> = self.members.iter().collect();
        rows.sort_by(|a, b| self.compare(&a.1 .0, &b.1 .0).then(a.1 .1.cmp(&b.1 .1)));
        rows.into_iter()
            .map(|(m, (v, _))| (m.clone(), v.clone()))
            .collect()
    }
}

/// Random column boards (two or three columns, each direction, small
/// ranges so ties are many and the tie-break exact to the ms), random
/// SETs (GT, LT, none) and gifts, some out of range: after every write the
/// reply, and at the end every page (first-come, SHARED, DENSE), every
/// member's GET and AMONG of a subset, agree with the model.
#[test]
fn column_boards_agree_with_a_brute_force_model() {
    let server = Server::start();
    let mut con = server.connect();
    let mut rng = Rng::seeded("column_boards_agree_with_a_brute_force_model");
    for (round, members) in [(0, 12), (1, 40), (2, 200)] {
        let n = 2 + rng.below(2) as usize;
        let columns: Vec<(i64, i64)> = (0..n)
            .map(|_| {
                let low = rng.below(7) as i64 - 3;
                let high = low + 1 + rng.below(5) as i64;
                if rng.below(2) == 0 {
                    (high, low)
                } else {
                    (low, high)
                }
            })
            .collect();
        let cols = format!("{{c}}:cols{round}");
        let board = format!("{{c}}:board{round}");
        let index = format!("{{c}}:totals{round}");
        let mut declare = vec!["RANK.COLUMNS".to_string(), cols.clone()];
        for (i, (best, worst)) in columns.iter().enumerate() {
            declare.extend([format!("c{i}"), best.to_string(), worst.to_string()]);
        }
        let slot: i64 = query(
            &mut con,
            &declare.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        assert_eq!(slot, 1, "small ranges keep the tie-break to the ms");
        let mut model = Model {
            columns,
            members: HashMap::new(),
        };
        for write in 0..members * 4 {
            let member = format!("p{}", rng.below(members as u64));
            let when = (round * 100_000 + write) as i64 * 10;
            let gift = rng.below(3) == 0;
            // A set's values mostly within the ranges (one in ten a step
            // outside), a gift's amounts from -2 to 2.
            let values: Vec<i64> = (model.columns.iter())
                .map(|&(best, worst)| match gift {
                    true => rng.range(-2, 2),
                    false if rng.chance(10) => best.max(worst) + 1,
                    false => rng.range(best.min(worst), best.max(worst)),
                })
                .collect();
            let condition = ["", "GT", "LT"][rng.below(3) as usize];
            let mut words = vec![
                if gift { "RANK.GIFT" } else { "RANK.SET" }.to_string(),
                board.clone(),
                member.clone(),
                values[0].to_string(),
                "AT".to_string(),
                at(when),
                "DENSE".to_string(),
                index.clone(),
                "COLUMNS".to_string(),
                cols.clone(),
            ];
            if !gift && !condition.is_empty() {
                words.insert(6, condition.to_string());
            }
            words.push("THEN".to_string());
            words.extend(values[1..].iter().map(i64::to_string));
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            let before = model.members.get(&member).cloned();
            let wanted = if gift {
                let start = before.as_ref().map_or(vec![0; n], |(v, _)| v.clone());
                start.iter().zip(&values).map(|(a, b)| a + b).collect()
            } else {
                values.clone()
            };
            if !model.in_range(&wanted) {
                let e = err(&mut con, &words);
                assert!(e.contains("outside its range"), "{words:?}: {e}");
                continue;
            }
            let replaces = match (&before, condition, gift) {
                (None, _, _) => true,
                (Some((old, _)), _, true) => *old != wanted,
                (Some((old, _)), "GT", false) => model.compare(&wanted, old).is_lt(),
                (Some((old, _)), "LT", false) => model.compare(&wanted, old).is_gt(),
                (Some((old, _)), _, false) => *old != wanted,
            };
            if replaces {
                model.members.insert(member.clone(), (wanted, when));
            }
            let (_, rank, got): (i64, i64, Vec<i64>) = query(&mut con, &words);
            let order = model.order();
            let position = order.iter().position(|(m, _)| *m == member).unwrap();
            assert_eq!(got, order[position].1, "{words:?}");
            // DENSE: 1 + the distinct better tuples.
            let mut better: Vec<&Vec<i64>> = order[..position]
                .iter()
                .map(|(_, v)| v)
                .filter(|v| model.compare(v, &order[position].1).is_lt())
                .collect();
            better.dedup();
            assert_eq!(rank, better.len() as i64 + 1, "{words:?}");
        }
        let order = model.order();
        for (ranks, option) in [("first", None), ("shared", Some("SHARED"))] {
            let mut words = vec!["RANK.TOP", board.as_str(), "1000"];
            words.extend(option);
            words.extend(["COLUMNS", cols.as_str()]);
            let page: Vec<ColumnsRow> = query(&mut con, &words);
            assert_eq!(page.len(), order.len());
            for (i, row) in page.iter().enumerate() {
                assert_eq!(
                    (&row.1, &row.3),
                    (&order[i].0, &order[i].1),
                    "{ranks} row {i}"
                );
                let expected = match option {
                    None => i as i64 + 1,
                    Some(_) => {
                        let first = order.iter().position(|(_, v)| *v == order[i].1).unwrap();
                        first as i64 + 1
                    }
                };
                assert_eq!(row.0, expected, "{ranks} row {i}");
            }
        }
        // A page from an offset inside a run of ties, with DENSE ranks.
        let offset = (order.len() / 3).to_string();
        let dense: Vec<ColumnsRow> = query(
            &mut con,
            &[
                "RANK.TOP", &board, "5", "OFFSET", &offset, "DENSE", &index, "COLUMNS", &cols,
            ],
        );
        for (i, row) in dense.iter().enumerate() {
            let at = order.len() / 3 + i;
            let mut distinct: Vec<&Vec<i64>> = order[..=at].iter().map(|(_, v)| v).collect();
            distinct.dedup();
            assert_eq!((row.0, &row.3), (distinct.len() as i64, &order[at].1));
        }
        for (position, (member, values)) in order.iter().enumerate() {
            let got: (i64, i64, i64, Vec<i64>) =
                query(&mut con, &["RANK.GET", &board, member, "COLUMNS", &cols]);
            assert_eq!((got.1, &got.3), (position as i64 + 1, values), "{member}");
            assert_eq!(got.2, EPOCH + model.members[member].1);
        }
        let subset: Vec<&str> = order.iter().step_by(3).map(|(m, _)| m.as_str()).collect();
        let mut words = vec![
            "RANK.AMONG",
            board.as_str(),
            "COLUMNS",
            cols.as_str(),
            "MEMBERS",
        ];
        words.extend(subset.iter().rev());
        let among: Vec<ColumnsRow> = query(&mut con, &words);
        let names: Vec<&str> = among.iter().map(|r| r.1.as_str()).collect();
        assert_eq!(names, subset);
    }
}
