//! Ascending boards (`ASC`): the lowest total ranks first (race times,
//! golf), equal totals first-come, on the user's own totals (never
//! negated: `floor(ZSCORE)` is the total and ZRANGE is the board's order).
//! Held to a mirror: every read of an ascending board answers what the same
//! read of a descending board holding the negated totals answers, with the
//! totals negated back. Run on the module and, by `make differential`, on
//! the Functions library.

use crate::common::board::{at, row, Row, EPOCH};
use crate::common::client::{cmdline, err, ok, query};
use crate::common::data::{assert_errors_change_nothing, zset_dump};
use crate::common::replication::{assert_replicas_match, master_and_replicas};
use crate::common::workload::Rng;
use crate::common::{functions_engine, Server};
use redis::{Connection, Value};
use std::collections::HashMap;

fn with_asc<'a>(words: &[&'a str], asc: bool) -> Vec<&'a str> {
    let mut words = words.to_vec();
    if asc {
        words.push("ASC");
    }
    words
}

#[test]
fn a_race_board_ranks_the_fastest_time_first_and_first_come() {
    let server = Server::start();
    let mut con = server.connect();
    // Lap times in ms; a driver keeps their best (LT). bob and cid set the
    // same time, bob first.
    let set = |con: &mut Connection, driver: &str, ms: &str, when: i64| -> (i64, i64) {
        query(
            con,
            &[
                "RANK.SET",
                "{r}:laps",
                driver,
                ms,
                "AT",
                &at(when),
                "LT",
                "ASC",
            ],
        )
    };
    assert_eq!(set(&mut con, "ann", "61250", 1_000), (61_250, 1));
    assert_eq!(set(&mut con, "bob", "59900", 2_000), (59_900, 1));
    assert_eq!(set(&mut con, "cid", "59900", 3_000), (59_900, 2));
    // A slower lap keeps the best one and its time.
    assert_eq!(set(&mut con, "bob", "60100", 4_000), (59_900, 1));
    assert_eq!(set(&mut con, "dan", "58000", 5_000), (58_000, 1));
    let top: Vec<Row> = query(&mut con, &["RANK.TOP", "{r}:laps", "10", "ASC"]);
    assert_eq!(
        top,
        [
            row(1, "dan", 58_000),
            row(2, "bob", 59_900),
            row(3, "cid", 59_900),
            row(4, "ann", 61_250)
        ]
    );
    // The natives read the same board: ZRANGE is its order, floor(ZSCORE)
    // the total.
    let natives: Vec<String> = query(&mut con, &["ZRANGE", "{r}:laps", "0", "-1"]);
    assert_eq!(natives, ["dan", "bob", "cid", "ann"]);
    for (member, score) in zset_dump(&mut con, "{r}:laps") {
        let total: f64 = score.parse().unwrap();
        let expected = top.iter().find(|r| r.1 == member).unwrap().2;
        assert_eq!(total.floor() as i64, expected, "{member}");
    }
    let bob: (i64, i64, i64) = query(&mut con, &["RANK.GET", "{r}:laps", "bob", "ASC"]);
    assert_eq!(bob, (59_900, 2, EPOCH + 2_000));
    let shared: Vec<Row> = query(&mut con, &["RANK.TOP", "{r}:laps", "10", "SHARED", "ASC"]);
    assert_eq!(shared.iter().map(|r| r.0).collect::<Vec<_>>(), [1, 2, 2, 4]);
    let dense: Vec<Row> = query(
        &mut con,
        &[
            "RANK.AMONG",
            "{r}:laps",
            "DENSE",
            "ASC",
            "MEMBERS",
            "ann",
            "cid",
            "bob",
        ],
    );
    assert_eq!(
        dense,
        [
            row(1, "bob", 59_900),
            row(1, "cid", 59_900),
            row(2, "ann", 61_250)
        ]
    );
    let around: Vec<Row> = query(&mut con, &["RANK.AROUND", "{r}:laps", "cid", "1", "ASC"]);
    assert_eq!(
        around,
        [
            row(2, "bob", 59_900),
            row(3, "cid", 59_900),
            row(4, "ann", 61_250)
        ]
    );
    // The laps under a minute, fastest first, ranked on the whole board.
    let band: Vec<Row> = query(
        &mut con,
        &["RANK.RANGE", "{r}:laps", "(60000", "59000", "ASC"],
    );
    assert_eq!(band, [row(2, "bob", 59_900), row(3, "cid", 59_900)]);
    // ann is ranked below none of the others; dan above all three.
    let percentile = |con: &mut Connection, who: &str| -> Option<i64> {
        query(con, &["RANK.PERCENTILE", "{r}:laps", who, "ASC"])
    };
    assert_eq!(percentile(&mut con, "dan"), Some(75));
    assert_eq!(percentile(&mut con, "ann"), Some(0));
    // The 100th percentile is the best time, the 0th the worst.
    let best: Option<f64> = query(&mut con, &["RANK.QUANTILE", "{r}:laps", "100", "ASC"]);
    let worst: Option<f64> = query(&mut con, &["RANK.QUANTILE", "{r}:laps", "0", "ASC"]);
    assert_eq!((best, worst), (Some(58_000.0), Some(61_250.0)));
    let stats: HashMap<String, Value> = query(&mut con, &["RANK.STATS", "{r}:laps", "ASC"]);
    assert_eq!(stats["top-total"], Value::Int(58_000));
    assert_eq!(stats["bottom-total"], Value::Int(61_250));
    // Equal times set in the same tie-break slot tie on score: ZRANGE's
    // order, member ascending, as a gift board's ties go member descending.
    for driver in ["zed", "abe"] {
        let _: (i64, i64) = query(
            &mut con,
            &[
                "RANK.SET",
                "{r}:ties",
                driver,
                "500",
                "AT",
                &at(7_000),
                "ASC",
            ],
        );
    }
    let ties: Vec<Row> = query(&mut con, &["RANK.TOP", "{r}:ties", "2", "ASC"]);
    assert_eq!(ties, [row(1, "abe", 500), row(2, "zed", 500)]);
    let natives: Vec<String> = query(&mut con, &["ZRANGE", "{r}:ties", "0", "-1"]);
    assert_eq!(natives, ["abe", "zed"]);
}

#[test]
fn ranks_on_a_busy_ascending_board_match_zrank_among_ties() {
    // A board the module keeps as a skiplist from its first write, where a
    // board this small counts first-come ranks through the key: totals in
    // runs of ties, members in threes in one tie-break slot (member
    // ascending among them). Every rank a write or a read replies is
    // ZRANK's.
    let server = Server::start();
    let mut con = server.connect();
    if !functions_engine() {
        ok(&mut con, &["CONFIG", "SET", "zkit.hot-set-writes", "1"]);
    }
    for i in 0..60 {
        // Written out of name order, so ties are not met in ZRANGE's order.
        let member = format!("p{:02}", (i * 37) % 60);
        let (total, when) = (((i / 3) % 5).to_string(), at(1000 * (i / 3)));
        let words = ["RANK.SET", "{w}:laps", &member, &total, "AT", &when, "ASC"];
        let (_, rank): (i64, i64) = query(&mut con, &words);
        let zrank: i64 = query(&mut con, &["ZRANK", "{w}:laps", &member]);
        assert_eq!(rank, zrank + 1, "{member}");
    }
    if !functions_engine() {
        let encoding: String = query(&mut con, &["OBJECT", "ENCODING", "{w}:laps"]);
        assert_eq!(encoding, "skiplist");
    }
    let members: Vec<String> = query(&mut con, &["ZRANGE", "{w}:laps", "0", "-1"]);
    for (i, member) in members.iter().enumerate() {
        let got: (i64, i64, i64) = query(&mut con, &["RANK.GET", "{w}:laps", member, "ASC"]);
        assert_eq!(got.1, i as i64 + 1, "{member}");
    }
}

/// The board's replies to reads of every kind (pages, members, bands,
/// percentiles, stats), drawn by `rng`, as text: the mirror's (`asc`
/// false) with the totals of its GET, quantile and stats negated, its rows'
/// left for [`negate_rows`].
fn reads(con: &mut Connection, board: &str, index: &str, asc: bool, rng: &mut Rng) -> Vec<String> {
    // The members in board order, so both boards draw the same ones.
    let order: &[&str] = if asc { &[] } else { &["REV"] };
    let mut words = vec!["ZRANGE", board, "0", "-1"];
    words.extend(order);
    let members: Vec<String> = query(con, &words);
    let mut out = Vec::new();
    let len = members.len();
    for ranks in [&[][..], &["SHARED"][..], &["DENSE", index][..]] {
        let offset = rng.below(len as u64 + 2).to_string();
        let count = (1 + rng.below(40)).to_string();
        let mut words = vec!["RANK.TOP", board, &count, "OFFSET", &offset];
        words.extend(ranks);
        out.push(format!(
            "{:?}",
            query::<Vec<Row>>(con, &with_asc(&words, asc))
        ));
        let member = &members[rng.below(len as u64) as usize];
        let radius = rng.below(4).to_string();
        let mut words = vec!["RANK.AROUND", board, member, &radius];
        words.extend(ranks);
        out.push(format!(
            "{:?}",
            query::<Vec<Row>>(con, &with_asc(&words, asc))
        ));
        let mut words = vec!["RANK.GET", board, member];
        words.extend(ranks);
        let got: (i64, i64, i64) = query(con, &with_asc(&words, asc));
        out.push(format!(
            "{:?}",
            (if asc { got.0 } else { -got.0 }, got.1, got.2)
        ));
        // A band of totals, as the mirror's negated bounds.
        let (a, b) = (rng.range(-5, 5), rng.range(-5, 5));
        let (low, high) = (a.min(b), a.max(b));
        let (max, min) = if asc {
            (high.to_string(), low.to_string())
        } else {
            ((-low).to_string(), (-high).to_string())
        };
        let mut words = vec!["RANK.RANGE", board, &max, &min, "LIMIT", "0", &count];
        words.extend(ranks);
        out.push(format!(
            "{:?}",
            query::<Vec<Row>>(con, &with_asc(&words, asc))
        ));
    }
    out.push(format!(
        "{:?}",
        query::<Option<i64>>(
            con,
            &with_asc(&["RANK.PERCENTILE", board, &members[0]], asc)
        )
    ));
    let percentile = format!("{:.3}", rng.below(100_000) as f64 / 1000.0);
    let quantile: Option<f64> = query(con, &with_asc(&["RANK.QUANTILE", board, &percentile], asc));
    // Both interpolate between the same two totals; the positions are
    // worked out from p and from 100 - p, which may round apart (+ 0.0:
    // the mirror's 0 negates to -0).
    let rounded = quantile.map(|q| ((if asc { q } else { -q }) * 1e6).round() / 1e6 + 0.0);
    out.push(format!("{rounded:?}"));
    let given: Vec<&str> = (0..6)
        .map(|_| members[rng.below(len as u64) as usize].as_str())
        .collect();
    let mut words = vec!["RANK.AMONG", board, "SHARED"];
    words.extend(with_asc(&[], asc));
    words.push("MEMBERS");
    words.extend(&given);
    out.push(format!("{:?}", query::<Vec<Row>>(con, &words)));
    let stats: HashMap<String, Value> = query(con, &with_asc(&["RANK.STATS", board], asc));
    for field in [
        "members",
        "top-total",
        "p99-total",
        "p90-total",
        "p50-total",
        "bottom-total",
    ] {
        let Value::Int(n) = stats[field] else {
            panic!("{field}: {:?}", stats[field])
        };
        out.push(format!(
            "{field} {}",
            if asc || field == "members" { n } else { -n }
        ));
    }
    out
}

#[test]
fn an_ascending_board_reads_as_a_board_of_negated_totals() {
    // Gifts and sets (GT and LT) on an ascending board and the same writes,
    // negated, on a descending one, on a small board and on one past the
    // listpack limit (busy, so its ranks are counted through the key):
    // after each round every read agrees, and so do merges of the two.
    // Every write has a millisecond of its own, so no two members share a
    // tie-break slot (small totals resolve to 1 ms).
    let server = Server::start();
    let mut con = server.connect();
    let mut rng = Rng::seeded("an_ascending_board_reads_as_a_board_of_negated_totals");
    for (name, members) in [("small", 12u64), ("large", 300)] {
        let (asc_board, mirror) = (format!("{{m}}:{name}:asc"), format!("{{m}}:{name}:mirror"));
        let (asc_index, mirror_index) = (format!("{asc_board}:totals"), format!("{mirror}:totals"));
        let mut clock = 0;
        for round in 0..3 {
            for _ in 0..members * 2 {
                let member = format!("p{}", rng.below(members));
                let value: i64 = rng.range(-4, 4);
                clock += 1;
                let when = at(clock);
                let kind = rng.below(4);
                let write = |board: &str, index: &str, value: i64, condition: &str, asc: bool| {
                    let value = value.to_string();
                    let mut words = vec![if kind == 0 { "RANK.GIFT" } else { "RANK.SET" }];
                    words.extend([board, &member, &value, "AT", &when]);
                    if kind >= 2 {
                        words.push(condition);
                    }
                    words.extend(["DENSE", index]);
                    words.extend(with_asc(&[], asc));
                    words.iter().map(|w| w.to_string()).collect::<Vec<_>>()
                };
                // LT on the ascending board keeps the better (lower) total,
                // as GT keeps the mirror's.
                let (asc_condition, mirror_condition) = if kind == 2 {
                    ("GT", "LT")
                } else {
                    ("LT", "GT")
                };
                let a = write(&asc_board, &asc_index, value, asc_condition, true);
                let m = write(&mirror, &mirror_index, -value, mirror_condition, false);
                let a: (i64, i64) =
                    query(&mut con, &a.iter().map(String::as_str).collect::<Vec<_>>());
                let m: (i64, i64) =
                    query(&mut con, &m.iter().map(String::as_str).collect::<Vec<_>>());
                assert_eq!(
                    a,
                    (-m.0, m.1),
                    "round {round}: {member} {value} kind {kind}"
                );
            }
            let mut a_rng = Rng::with_seed(round);
            let mut m_rng = Rng::with_seed(round);
            let asc_reads = reads(&mut con, &asc_board, &asc_index, true, &mut a_rng);
            let mirror_reads = reads(&mut con, &mirror, &mirror_index, false, &mut m_rng);
            assert_eq!(asc_reads.len(), mirror_reads.len());
            for (a, m) in asc_reads.iter().zip(&mirror_reads) {
                assert_eq!(a, &negate_rows(m), "{name} round {round}");
            }
        }
        // Merged: the two boards summed with themselves, in one call and in
        // steps, stay mirrors.
        for step in [&[][..], &["STEP", "7", "{m}:staging", "0"][..]] {
            let merge = |con: &mut Connection, dest: &str, source: &str, asc: bool| {
                let mut words = vec!["RANK.MERGE", dest, "2", source, source, "WEIGHTS", "1", "2"];
                words.extend(step);
                let mut reply: Value = query(con, &with_asc(&words, asc));
                // A stepped merge continues from the cursor each step gives.
                while let Value::Array(parts) = &reply {
                    let Value::BulkString(cursor) = &parts[0] else {
                        panic!("{reply:?}")
                    };
                    if cursor == b"0" {
                        break;
                    }
                    let cursor = String::from_utf8(cursor.clone()).unwrap();
                    let mut words = words.clone();
                    let last = words.len() - 1;
                    words[last] = &cursor;
                    reply = query(con, &with_asc(&words, asc));
                }
            };
            merge(&mut con, "{m}:merged:asc", &asc_board, true);
            merge(&mut con, "{m}:merged:mirror", &mirror, false);
            let a: Vec<Row> = query(&mut con, &["RANK.TOP", "{m}:merged:asc", "1000", "ASC"]);
            let m: Vec<Row> = query(&mut con, &["RANK.TOP", "{m}:merged:mirror", "1000"]);
            let m: Vec<Row> = m
                .into_iter()
                .map(|(r, member, t)| (r, member, -t))
                .collect();
            let board_len: usize = query(&mut con, &["ZCARD", &asc_board]);
            assert_eq!(a.len(), board_len, "{name} merged {step:?}");
            assert_eq!(a, m, "{name} merged {step:?}");
        }
    }
}

/// A read's text with every total negated: the mirror's rows, GETs and
/// bands print `(rank, "member", total)`, whose last number is the total.
fn negate_rows(line: &str) -> String {
    // Rows are `(rank, "member", total)`; the total is the number before
    // each `)`.
    let mut out = String::new();
    let mut rest = line;
    while let Some(close) = rest.find(')') {
        let (head, tail) = rest.split_at(close);
        match head.rfind(", ") {
            Some(comma) if head[comma + 2..].parse::<i64>().is_ok() && head.contains('"') => {
                let total: i64 = head[comma + 2..].parse().unwrap();
                out.push_str(&head[..comma + 2]);
                out.push_str(&(-total).to_string());
            }
            _ => out.push_str(head),
        }
        out.push(')');
        rest = &tail[1..];
    }
    out.push_str(rest);
    out
}

#[test]
fn asc_is_part_of_a_write_event_and_refusals_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    let lap = "RANK.GIFT {i}:laps ann 5 ASC IDMP {i}:seen lap-1";
    let first: (i64, i64, i64) = query(&mut con, &cmdline(lap));
    assert_eq!(first, (5, 1, 0));
    // The same event id without ASC is another write: refused.
    let without = lap.replace(" ASC", "");
    assert_eq!(
        err(&mut con, &cmdline(&without)),
        "ERR this IDMP event id was already applied by a call with other arguments \
         (another command, key, member or amount): nothing was changed"
    );
    let again: (i64, i64, i64) = query(&mut con, &cmdline(lap));
    assert_eq!(again, (5, 1, 1));
    assert_errors_change_nothing(
        &mut con,
        &[
            (
                &["RANK.GIFT", "{i}:laps", "ann", "x", "ASC"],
                "ERR value is not an integer or out of range",
            ),
            (&["RANK.TOP", "{i}:laps", "-1", "ASC"], "ERR count"),
            (
                &["RANK.MERGE", "{i}:week", "1", "{i}:laps", "ASC", "ASC"],
                "ERR syntax error",
            ),
        ],
    );
}

#[test]
fn ascending_writes_replicate_as_their_scores() {
    let (master, replicas) = master_and_replicas();
    let mut con = master.connect();
    for (driver, ms) in [("ann", "61250"), ("bob", "59900"), ("ann", "60000")] {
        let _: (i64, i64) = query(&mut con, &["RANK.SET", "{x}:laps", driver, ms, "LT", "ASC"]);
    }
    let _: (i64, i64) = query(&mut con, &["RANK.GIFT", "{x}:laps", "cid", "70000", "ASC"]);
    let _: i64 = query(
        &mut con,
        &["RANK.MERGE", "{x}:season", "1", "{x}:laps", "ASC"],
    );
    assert_replicas_match(&master, &replicas);
    // The replicas run without zkit: ZRANGE is the board's order there too,
    // and floor(score) each total.
    for replica in &replicas {
        let mut r = replica.connect();
        let season: Vec<(String, i64)> = zset_dump(&mut r, "{x}:season")
            .into_iter()
            .map(|(member, score)| (member, score.parse::<f64>().unwrap().floor() as i64))
            .collect();
        let want = [("bob", 59_900), ("ann", 60_000), ("cid", 70_000)];
        let want: Vec<(String, i64)> = want.iter().map(|(m, t)| (m.to_string(), *t)).collect();
        assert_eq!(season, want);
    }
}
