//! RANK's member data (`DATA data-key`): a hash beside the board, one field
//! per member, written with the member's score in the same call, returned
//! by every read that names it, removed with the member by RANK.REMOVE and
//! expired with the board. Run on the module and, by `make differential`,
//! on the Functions library.

use crate::common::board::{at, EPOCH};
use crate::common::client::{err, ok, query};
use crate::common::data::assert_errors_change_nothing;
use crate::common::replication::{
    aof_server, assert_aof_replays_without_module, assert_replicas_match, master_and_replicas,
};
use crate::common::workload::Rng;
use crate::common::Server;
use redis::Connection;
use std::collections::{BTreeMap, HashMap};

/// A page row with its data: rank, member, total, data.
type DataRow = (i64, String, i64, Option<String>);

fn row(rank: i64, member: &str, total: i64, data: Option<&str>) -> DataRow {
    (rank, member.to_string(), total, data.map(str::to_string))
}

/// RANK.GET's entry with its data: total, rank, reached-at-ms, data.
type DataEntry = Option<(i64, i64, i64, Option<String>)>;

/// The data hash as the client sees it.
fn data_fields(con: &mut Connection, key: &str) -> BTreeMap<String, String> {
    query(con, &["HGETALL", key])
}

#[test]
fn member_data_is_written_with_the_score_and_read_with_the_rank() {
    let server = Server::start();
    let mut con = server.connect();
    let gift = |con: &mut Connection, member: &str, amount: &str, when: i64, data: &str| {
        let reply: (i64, i64) = query(
            con,
            &[
                "RANK.GIFT",
                "{p}:board",
                member,
                amount,
                "AT",
                &at(when),
                "DATA",
                "{p}:profiles",
                data,
            ],
        );
        reply
    };
    // A member and data spelled like the grammar's words stay values.
    assert_eq!(gift(&mut con, "ann", "30", 1, "Ann|fr"), (30, 1));
    assert_eq!(gift(&mut con, "DATA", "20", 2, "MEMBERS"), (20, 2));
    // A member written without DATA has no data: its entries read nil.
    ok(&mut con, &["RANK.GIFT", "{p}:board", "bob", "10"]);
    assert_eq!(
        data_fields(&mut con, "{p}:profiles"),
        BTreeMap::from([
            ("ann".to_string(), "Ann|fr".to_string()),
            ("DATA".to_string(), "MEMBERS".to_string()),
        ])
    );

    let top: Vec<DataRow> = query(
        &mut con,
        &["RANK.TOP", "{p}:board", "10", "DATA", "{p}:profiles"],
    );
    let expected = [
        row(1, "ann", 30, Some("Ann|fr")),
        row(2, "DATA", 20, Some("MEMBERS")),
        row(3, "bob", 10, None),
    ];
    assert_eq!(top, expected);
    // Without DATA, the rows are as before: three elements.
    let plain: Vec<(i64, String, i64)> = query(&mut con, &["RANK.TOP", "{p}:board", "10"]);
    assert_eq!(plain.len(), 3);
    let around: Vec<DataRow> = query(
        &mut con,
        &[
            "RANK.AROUND",
            "{p}:board",
            "DATA",
            "1",
            "SHARED",
            "DATA",
            "{p}:profiles",
        ],
    );
    assert_eq!(around, expected);
    let range: Vec<DataRow> = query(
        &mut con,
        &["RANK.RANGE", "{p}:board", "25", "0", "DATA", "{p}:profiles"],
    );
    assert_eq!(range, expected[1..]);
    let among: Vec<DataRow> = query(
        &mut con,
        &[
            "RANK.AMONG",
            "{p}:board",
            "DATA",
            "{p}:profiles",
            "MEMBERS",
            "bob",
            "ann",
            "nobody",
        ],
    );
    assert_eq!(
        among,
        [row(1, "ann", 30, Some("Ann|fr")), row(2, "bob", 10, None)]
    );

    let got: DataEntry = query(
        &mut con,
        &["RANK.GET", "{p}:board", "ann", "DATA", "{p}:profiles"],
    );
    assert_eq!(got, Some((30, 1, EPOCH + 1, Some("Ann|fr".to_string()))));
    let several: Vec<DataEntry> = query(
        &mut con,
        &[
            "RANK.MGET",
            "{p}:board",
            "DATA",
            "{p}:profiles",
            "MEMBERS",
            "bob",
            "nobody",
            "DATA",
        ],
    );
    // bob's reached-at is the server's clock: its other fields are checked.
    let bob = several[0].as_ref().expect("bob is on the board");
    assert_eq!((bob.0, bob.1, &bob.3), (10, 3, &None));
    assert_eq!(several[1], None);
    assert_eq!(
        several[2],
        Some((20, 2, EPOCH + 2, Some("MEMBERS".to_string())))
    );

    // Every write sets the data, also one whose total stands (a refused
    // GT); a write without DATA leaves it.
    let kept: (i64, i64) = query(
        &mut con,
        &[
            "RANK.SET",
            "{p}:board",
            "ann",
            "5",
            "GT",
            "DATA",
            "{p}:profiles",
            "Ann|de",
        ],
    );
    assert_eq!(kept, (30, 1));
    ok(&mut con, &["RANK.GIFT", "{p}:board", "ann", "1"]);
    let profile: Option<String> = query(&mut con, &["HGET", "{p}:profiles", "ann"]);
    assert_eq!(profile.as_deref(), Some("Ann|de"));
    // Empty data is data, not none.
    ok(
        &mut con,
        &[
            "RANK.GIFT",
            "{p}:board",
            "bob",
            "1",
            "DATA",
            "{p}:profiles",
            "",
        ],
    );
    let got: DataEntry = query(
        &mut con,
        &["RANK.GET", "{p}:board", "bob", "DATA", "{p}:profiles"],
    );
    assert_eq!(got.and_then(|entry| entry.3), Some(String::new()));
    // A missing board or data hash reads as none.
    let none: DataEntry = query(
        &mut con,
        &["RANK.GET", "{p}:nothing", "ann", "DATA", "{p}:profiles"],
    );
    assert_eq!(none, None);
    let bare: Vec<DataRow> = query(
        &mut con,
        &["RANK.TOP", "{p}:board", "1", "DATA", "{p}:no-profiles"],
    );
    assert_eq!(bare, [row(1, "ann", 31, None)]);
}

#[test]
fn data_lives_and_dies_with_its_member_in_a_model_of_the_board() {
    let server = Server::start();
    let mut con = server.connect();
    let mut rng = Rng::seeded("member data model");
    let members: Vec<String> = (0..24).map(|i| format!("p{i}")).collect();
    // The model: each member's total and data.
    let mut totals: HashMap<String, i64> = HashMap::new();
    let mut data: HashMap<String, String> = HashMap::new();
    for round in 0..300_i64 {
        let member = &members[rng.below(members.len() as u64) as usize];
        let value = format!("d{round}");
        match rng.below(5) {
            0 | 1 => {
                let amount = rng.below(7) as i64 - 2;
                let mut call = vec![
                    "RANK.GIFT".to_string(),
                    "{m}:board".to_string(),
                    member.clone(),
                    amount.to_string(),
                ];
                if rng.below(3) > 0 {
                    call.extend(["DATA".into(), "{m}:data".into(), value.clone()]);
                    data.insert(member.clone(), value);
                }
                let words: Vec<&str> = call.iter().map(String::as_str).collect();
                ok(&mut con, &words);
                *totals.entry(member.clone()).or_insert(0) += amount;
            }
            2 => {
                let total = rng.below(10) as i64;
                ok(
                    &mut con,
                    &[
                        "RANK.SET",
                        "{m}:board",
                        member,
                        &total.to_string(),
                        "DATA",
                        "{m}:data",
                        &value,
                    ],
                );
                totals.insert(member.clone(), total);
                data.insert(member.clone(), value);
            }
            _ => {
                let other = &members[rng.below(members.len() as u64) as usize];
                let removed: i64 = query(
                    &mut con,
                    &[
                        "RANK.REMOVE",
                        "{m}:board",
                        "DATA",
                        "{m}:data",
                        "MEMBERS",
                        member,
                        other,
                    ],
                );
                let was_on = [member, other]
                    .iter()
                    .collect::<std::collections::BTreeSet<_>>()
                    .into_iter()
                    .filter(|m| totals.remove(m.as_str()).is_some())
                    .count();
                assert_eq!(removed, was_on as i64, "round {round}");
                data.remove(member);
                data.remove(other);
            }
        }
        // The hash holds exactly the model's data, and each page row and
        // entry carries its member's.
        let stored = data_fields(&mut con, "{m}:data");
        let modelled: BTreeMap<String, String> =
            data.iter().map(|(m, d)| (m.clone(), d.clone())).collect();
        assert_eq!(stored, modelled, "round {round}");
        let page: Vec<DataRow> = query(
            &mut con,
            &["RANK.TOP", "{m}:board", "100", "DATA", "{m}:data"],
        );
        assert_eq!(page.len(), totals.len(), "round {round}");
        for (rank, member, total, row_data) in &page {
            assert_eq!(Some(total), totals.get(member), "round {round} {member}");
            assert_eq!(
                row_data.as_ref(),
                data.get(member),
                "round {round} {member}"
            );
            let entry: DataEntry = query(
                &mut con,
                &["RANK.GET", "{m}:board", member, "DATA", "{m}:data"],
            );
            let entry = entry.expect("a member on the page is on the board");
            assert_eq!((entry.0, entry.1), (*total, *rank), "round {round}");
            assert_eq!(entry.3.as_ref(), data.get(member), "round {round}");
        }
    }
}

#[test]
fn member_data_expires_with_the_board_and_leaves_with_the_last_member() {
    let server = Server::start();
    let mut con = server.connect();
    let write = [
        "RANK.GIFT",
        "{e}:board",
        "a",
        "5",
        "TTL",
        "3600",
        "DATA",
        "{e}:data",
        "A",
    ];
    ok(&mut con, &write);
    let board_ttl: i64 = query(&mut con, &["PEXPIRETIME", "{e}:board"]);
    let data_ttl: i64 = query(&mut con, &["PEXPIRETIME", "{e}:data"]);
    assert!(board_ttl > 0, "{board_ttl}");
    assert_eq!(data_ttl, board_ttl, "the data expires with the board");
    // Removing a member that is not on the board still removes its data (a
    // member a native ZREM took off); removing the last field deletes the
    // hash, as HDEL does.
    ok(&mut con, &["HSET", "{e}:data", "gone", "G"]);
    let remove = |con: &mut Connection, member: &str| -> i64 {
        let words = [
            "RANK.REMOVE",
            "{e}:board",
            "DATA",
            "{e}:data",
            "MEMBERS",
            member,
        ];
        query(con, &words)
    };
    assert_eq!(remove(&mut con, "gone"), 0);
    let left: Vec<String> = query(&mut con, &["HKEYS", "{e}:data"]);
    assert_eq!(left, ["a"]);
    assert_eq!(remove(&mut con, "a"), 1);
    let exists: i64 = query(&mut con, &["EXISTS", "{e}:board", "{e}:data"]);
    assert_eq!(exists, 0);
}

#[test]
fn member_data_refusals_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    ok(
        &mut con,
        &["RANK.GIFT", "{r}:board", "m", "10", "DATA", "{r}:data", "M"],
    );
    ok(&mut con, &["SET", "{r}:str", "x"]);
    let too_long = "x".repeat(4097);
    let longest = "y".repeat(4096);
    let shared = "ERR the DATA key must be another key than the board and its DENSE totals-key";
    let cases: &[(&[&str], &str)] = &[
        (
            &["RANK.GIFT", "{r}:board", "m", "1", "DATA", "{r}:board", "M"],
            shared,
        ),
        (
            &[
                "RANK.SET",
                "{r}:board",
                "m",
                "1",
                "DENSE",
                "{r}:totals",
                "DATA",
                "{r}:totals",
                "M",
            ],
            shared,
        ),
        (&["RANK.GET", "{r}:board", "m", "DATA", "{r}:board"], shared),
        (
            &[
                "RANK.TOP",
                "{r}:board",
                "5",
                "DENSE",
                "{r}:totals",
                "DATA",
                "{r}:totals",
            ],
            shared,
        ),
        (
            &[
                "RANK.AMONG",
                "{r}:board",
                "DATA",
                "{r}:board",
                "MEMBERS",
                "m",
            ],
            shared,
        ),
        (
            &[
                "RANK.REMOVE",
                "{r}:board",
                "DATA",
                "{r}:board",
                "MEMBERS",
                "m",
            ],
            shared,
        ),
        // Data over zkit.member-data-max-bytes (4096 by default).
        (
            &[
                "RANK.GIFT",
                "{r}:board",
                "m",
                "1",
                "DATA",
                "{r}:data",
                &too_long,
            ],
            "ERR member data of 4097 bytes is more than zkit.member-data-max-bytes (4096)",
        ),
        // A data hash of another type refuses the call before the board
        // changes, also a read of a missing board.
        (
            &["RANK.GIFT", "{r}:board", "m", "1", "DATA", "{r}:str", "M"],
            "WRONGTYPE",
        ),
        (
            &["RANK.GET", "{r}:nothing", "m", "DATA", "{r}:str"],
            "WRONGTYPE",
        ),
        (
            &["RANK.TOP", "{r}:nothing", "5", "DATA", "{r}:str"],
            "WRONGTYPE",
        ),
        (
            &["RANK.AROUND", "{r}:board", "m", "1", "DATA", "{r}:str"],
            "WRONGTYPE",
        ),
        (
            &[
                "RANK.REMOVE",
                "{r}:board",
                "DATA",
                "{r}:str",
                "MEMBERS",
                "m",
            ],
            "WRONGTYPE",
        ),
        // A write's DATA takes the key and the data.
        (
            &["RANK.GIFT", "{r}:board", "m", "1", "DATA", "{r}:data"],
            "ERR syntax error",
        ),
        (&["RANK.GET", "{r}:board", "m", "DATA"], "ERR syntax error"),
    ];
    assert_errors_change_nothing(&mut con, cases);
    // The longest data the default takes is taken.
    ok(
        &mut con,
        &[
            "RANK.GIFT",
            "{r}:board",
            "m",
            "1",
            "DATA",
            "{r}:data",
            &longest,
        ],
    );
    let stored: String = query(&mut con, &["HGET", "{r}:data", "m"]);
    assert_eq!(stored.len(), 4096);
}

#[test]
fn the_data_limit_is_the_modules_config() {
    // The library cannot read configs: it keeps the default (docs/functions.md).
    if crate::common::functions_engine() {
        return;
    }
    let server = Server::start();
    let mut con = server.connect();
    ok(
        &mut con,
        &["CONFIG", "SET", "zkit.member-data-max-bytes", "3"],
    );
    let write = |data: &str| -> Vec<String> {
        ["RANK.SET", "{c}:board", "m", "1", "DATA", "{c}:data", data]
            .iter()
            .map(|word| word.to_string())
            .collect()
    };
    let refused = write("abcd");
    let words: Vec<&str> = refused.iter().map(String::as_str).collect();
    assert_eq!(
        err(&mut con, &words),
        "ERR member data of 4 bytes is more than zkit.member-data-max-bytes (3)"
    );
    let exists: i64 = query(&mut con, &["EXISTS", "{c}:board", "{c}:data"]);
    assert_eq!(exists, 0);
    let taken = write("abc");
    let words: Vec<&str> = taken.iter().map(String::as_str).collect();
    ok(&mut con, &words);
    let stored: String = query(&mut con, &["HGET", "{c}:data", "m"]);
    assert_eq!(stored, "abc");
}

#[test]
fn a_repeated_event_with_other_data_is_refused() {
    let server = Server::start();
    let mut con = server.connect();
    let call = |data: &str| -> Vec<String> {
        [
            "RANK.GIFT",
            "{i}:board",
            "m",
            "3",
            "DATA",
            "{i}:data",
            data,
            "IDMP",
            "{i}:seen",
            "e1",
        ]
        .iter()
        .map(|word| word.to_string())
        .collect()
    };
    let first = call("A");
    let words: Vec<&str> = first.iter().map(String::as_str).collect();
    let applied: (i64, i64, i64) = query(&mut con, &words);
    assert_eq!(applied, (3, 1, 0));
    let again: (i64, i64, i64) = query(&mut con, &words);
    assert_eq!(again, (3, 1, 1));
    let other = call("B");
    let words: Vec<&str> = other.iter().map(String::as_str).collect();
    let refused = err(&mut con, &words);
    assert!(
        refused.starts_with(
            "ERR this IDMP event id was already applied by a call with other arguments"
        ),
        "{refused}"
    );
    let stored: String = query(&mut con, &["HGET", "{i}:data", "m"]);
    assert_eq!(stored, "A");
}

#[test]
fn member_data_reaches_replicas_and_the_aof_without_zkit() {
    let writes: &[&[&str]] = &[
        &[
            "RANK.GIFT",
            "{x}:board",
            "a",
            "10",
            "TTL",
            "3600",
            "DATA",
            "{x}:data",
            "A",
        ],
        &[
            "RANK.SET",
            "{x}:board",
            "b",
            "7",
            "DENSE",
            "{x}:totals",
            "DATA",
            "{x}:data",
            "B",
        ],
        &["RANK.GIFT", "{x}:board", "c", "1", "DATA", "{x}:data", "C"],
        &[
            "RANK.REMOVE",
            "{x}:board",
            "DATA",
            "{x}:data",
            "MEMBERS",
            "c",
        ],
    ];
    let (master, replicas) = master_and_replicas();
    let mut con = master.connect();
    for write in writes {
        ok(&mut con, write);
    }
    let contents = assert_replicas_match(&master, &replicas);
    assert!(
        contents.iter().any(|(key, _)| key == "{x}:data"),
        "the data hash is replicated"
    );

    let server = aof_server();
    let mut con = server.connect();
    for write in writes {
        ok(&mut con, write);
    }
    drop(con);
    assert_aof_replays_without_module(server);
}
