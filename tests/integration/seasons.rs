//! RANK.SEASON: a season's board key (a day, an ISO week or a month of a
//! time zone) and the key of the season before, against a real server; the
//! writes then name the key, with the season's TTL. Run on the module and,
//! by `make differential`, on the Functions library (whose random calls
//! also meet it with the clock pinned on both engines).

use crate::common::client::{err, query};
use crate::common::data::{assert_errors_change_nothing, server_time_ms};
use crate::common::Server;
use redis::Connection;

/// `[key, starts-at-ms, ends-at-ms]`.
type Season = (String, i64, i64);
/// `[key, starts-at-ms, ends-at-ms, ttl]`, with KEEP.
type KeptSeason = (String, i64, i64, Option<i64>);

const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;
/// 2026-12-04T23:00:00Z: midnight of 5 December in Paris (UTC+1).
const PARIS_MIDNIGHT: i64 = 1_796_425_200_000;

fn seasons(con: &mut Connection, words: &[&str]) -> Vec<Season> {
    let mut call = vec!["RANK.SEASON"];
    call.extend_from_slice(words);
    query(con, &call)
}

fn season(key: &str, start: i64, end: i64) -> Season {
    (key.to_string(), start, end)
}

#[test]
fn a_day_board_rolls_over_at_its_zones_midnight() {
    let server = Server::start();
    let mut con = server.connect();
    let base = "{room42}:day";
    let before = PARIS_MIDNIGHT - 1;
    let day_4 = season(
        "{room42}:day:2026-12-04",
        PARIS_MIDNIGHT - DAY,
        PARIS_MIDNIGHT,
    );
    let day_3 = season(
        "{room42}:day:2026-12-03",
        PARIS_MIDNIGHT - 2 * DAY,
        PARIS_MIDNIGHT - DAY,
    );
    let day_5 = season(
        "{room42}:day:2026-12-05",
        PARIS_MIDNIGHT,
        PARIS_MIDNIGHT + DAY,
    );
    let last_ms = before.to_string();
    let midnight = PARIS_MIDNIGHT.to_string();
    assert_eq!(
        seasons(
            &mut con,
            &[base, "DAY", "TZ", "Europe/Paris", "AT", &last_ms]
        ),
        vec![day_4.clone(), day_3]
    );
    assert_eq!(
        seasons(
            &mut con,
            &[base, "DAY", "TZ", "Europe/Paris", "AT", &midnight]
        ),
        vec![day_5.clone(), day_4.clone()]
    );
    // In UTC the same instant is still the 4th, an hour before its end.
    let utc: Vec<Season> = seasons(&mut con, &[base, "DAY", "AT", &midnight]);
    assert_eq!(
        utc[0],
        season(
            "{room42}:day:2026-12-04",
            PARIS_MIDNIGHT - 23 * HOUR,
            PARIS_MIDNIGHT + HOUR
        )
    );

    // Gifts land in the season the call names; after the rollover the last
    // season's final standings read as they were.
    for (member, amount) in [("alice", "300"), ("bob", "100")] {
        let _: (i64, i64) = query(&mut con, &["RANK.GIFT", &day_4.0, member, amount]);
    }
    let _: (i64, i64) = query(&mut con, &["RANK.GIFT", &day_5.0, "bob", "50"]);
    let top: Vec<(i64, String, i64)> = query(&mut con, &["RANK.TOP", &day_4.0, "10"]);
    assert_eq!(top, vec![(1, "alice".into(), 300), (2, "bob".into(), 100)]);
    let top: Vec<(i64, String, i64)> = query(&mut con, &["RANK.TOP", &day_5.0, "10"]);
    assert_eq!(top, vec![(1, "bob".into(), 50)]);
}

#[test]
fn weeks_are_iso_weeks_and_months_follow_the_calendar() {
    let server = Server::start();
    let mut con = server.connect();
    // 2027-01-03T10:00Z, a Sunday: in week 53 of 2026, which began on
    // Monday 28 December; the week before is 52.
    let sunday = "1798970400000";
    let week_53 = 1_798_416_000_000;
    assert_eq!(
        seasons(&mut con, &["b", "WEEK", "AT", sunday]),
        vec![
            season("b:2026-W53", week_53, week_53 + 7 * DAY),
            season("b:2026-W52", week_53 - 7 * DAY, week_53),
        ]
    );
    // In Tokyo (UTC+9) that Sunday's evening is Monday: 2027's first week.
    let tokyo: Vec<Season> = seasons(
        &mut con,
        &["b", "WEEK", "TZ", "Asia/Tokyo", "AT", "1798992000000"],
    );
    assert_eq!(tokyo[0].0, "b:2027-W01");
    assert_eq!(
        tokyo[1],
        season(
            "b:2026-W53",
            week_53 - 9 * HOUR,
            week_53 + 7 * DAY - 9 * HOUR
        )
    );
    // A leap February, and the month before it.
    let march: Vec<Season> = seasons(&mut con, &["b", "MONTH", "AT", "1835481600000"]);
    assert_eq!(march[0].0, "b:2028-03");
    assert_eq!(
        (march[1].0.as_str(), march[1].2 - march[1].1),
        ("b:2028-02", 29 * DAY)
    );
}

#[test]
fn a_day_of_a_clock_change_is_as_long_as_the_zones_clock_says() {
    let server = Server::start();
    let mut con = server.connect();
    // Paris: 29 March 2026 has 23 hours, 25 October 25.
    let spring: Vec<Season> = seasons(
        &mut con,
        &["b", "DAY", "TZ", "Europe/Paris", "AT", "1774785600000"],
    );
    assert_eq!(
        (spring[0].0.as_str(), spring[0].2 - spring[0].1),
        ("b:2026-03-29", 23 * HOUR)
    );
    let autumn: Vec<Season> = seasons(
        &mut con,
        &["b", "DAY", "TZ", "Europe/Paris", "AT", "1792929600000"],
    );
    assert_eq!(
        (autumn[0].0.as_str(), autumn[0].2 - autumn[0].1),
        ("b:2026-10-25", 25 * HOUR)
    );
    // Havana's clock skipped its midnight on 8 March 2026 (00:00 -> 01:00):
    // that day starts when the gap ends, and the day before ends there.
    let havana: Vec<Season> = seasons(
        &mut con,
        &["b", "DAY", "TZ", "America/Havana", "AT", "1772971200000"],
    );
    assert_eq!(
        havana[0],
        season("b:2026-03-08", 1_772_946_000_000, 1_773_028_800_000)
    );
    assert_eq!(havana[1].2, havana[0].1);
}

#[test]
fn keep_gives_the_ttl_that_outlives_the_season_by_its_retention() {
    let server = Server::start();
    let mut con = server.connect();
    let keep = 7 * 86_400;
    let before = server_time_ms(&mut con);
    let kept: Vec<KeptSeason> = query(
        &mut con,
        &["RANK.SEASON", "{g}:day", "DAY", "KEEP", &keep.to_string()],
    );
    let after = server_time_ms(&mut con);
    let (key, start, end, ttl) = kept[0].clone();
    assert!(
        start <= after && before < end,
        "{kept:?} at {before}..{after}"
    );
    let ttl = ttl.expect("the current season is kept");
    let reach = end + keep * 1000;
    assert!(
        ((reach - after + 999) / 1000..=(reach - before + 999) / 1000).contains(&ttl),
        "{ttl} for {kept:?} at {before}..{after}"
    );
    // The previous season's retention has not ended either (it ended at
    // `start`, a day at most ago).
    assert!(kept[1]
        .3
        .is_some_and(|previous| previous <= ttl - 86_400 + 1 && previous > 0));
    // The write gives it as TTL: the board goes KEEP seconds after the season.
    let _: (i64, i64) = query(
        &mut con,
        &["RANK.GIFT", &key, "alice", "1", "TTL", &ttl.to_string()],
    );
    let expires: i64 = query(&mut con, &["PEXPIRETIME", &key]);
    assert!(
        (reach..reach + 2000).contains(&expires),
        "{expires} for {reach}"
    );
    // Seasons whose retention is over have no TTL to give.
    let old: Vec<KeptSeason> = query(
        &mut con,
        &["RANK.SEASON", "{g}:day", "MONTH", "AT", "0", "KEEP", "1"],
    );
    assert_eq!(
        old,
        vec![
            ("{g}:day:1970-01".to_string(), 0, 31 * DAY, None),
            ("{g}:day:1969-12".to_string(), -31 * DAY, 0, None),
        ]
    );
}

#[test]
fn season_refusals_are_clear_and_change_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    let _: (i64, i64) = query(&mut con, &["RANK.GIFT", "{g}:day:2026-12-04", "alice", "1"]);
    assert_errors_change_nothing(
        &mut con,
        &[
            (&["RANK.SEASON", "{g}:day", "YEAR"], "ERR syntax error"),
            (&["RANK.SEASON", "{g}:day"], "ERR wrong number of arguments"),
            (
                &["RANK.SEASON", "{g}:day", "DAY", "TZ", "Mars/Olympus"],
                "ERR unknown time zone 'Mars/Olympus'",
            ),
            (
                &["RANK.SEASON", "{g}:day", "DAY", "AT", "-1"],
                "ERR AT must be a unix ms between 0 and 253370764799999",
            ),
            (
                &["RANK.SEASON", "{g}:day", "DAY", "AT", "253370764800000"],
                "ERR AT must be a unix ms between 0",
            ),
            (
                &["RANK.SEASON", "{g}:day", "DAY", "KEEP", "0"],
                "ERR KEEP must be between 1 and 3155760000 seconds",
            ),
            (
                &["RANK.SEASON", "{g}:day", "DAY", "KEEP", "3155760001"],
                "ERR KEEP must be between 1",
            ),
            (&["RANK.SEASON", "{g}:day", "DAY", "AT", "x"], "ERR"),
        ],
    );
    // The latest time there is still reads a four-digit year, also where
    // the clock is 14 hours ahead.
    let last: Vec<Season> = seasons(
        &mut con,
        &[
            "b",
            "DAY",
            "TZ",
            "Pacific/Kiritimati",
            "AT",
            "253370764799999",
        ],
    );
    assert_eq!(last[0].0, "b:9999-01-01");
    // A base is a name, not a key: the command reads none.
    if !crate::common::functions_engine() {
        let e = err(
            &mut con,
            &["COMMAND", "GETKEYS", "RANK.SEASON", "{g}:day", "DAY"],
        );
        assert!(e.contains("no key arguments"), "{e}");
    }
}
