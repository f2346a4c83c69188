//! One key, two families: every family keeps plain sorted sets, so Redis's
//! type check lets `RATE.HIT` run on a gift board, where it took the totals
//! for hits long past and removed them. Where the data tells the families
//! apart, a command that would destroy another family's key refuses it with
//! WRONGTYPE, naming what the key looks like, and changes nothing.

use crate::common::client::{cmdline, ok, query};
use crate::common::data::{assert_errors_change_nothing, server_time_ms};
use crate::common::Server;

fn wrong(looks_like: &str, because: &str, expected: &str) -> String {
    format!("WRONGTYPE the key looks like {looks_like} ({because}), not {expected}: nothing was changed")
}

const BOARD: (&str, &str) = ("a RANK board", "scores with a tie-break fraction");
const SEEN_KEY: (&str, &str) = (
    "an IDMP seen-key",
    "event ids beside their arguments' digests",
);

#[test]
fn a_command_on_another_familys_key_refuses_and_changes_nothing() {
    let server = Server::start();
    let mut con = server.connect();
    // A gift board and a seen-key, as their commands write them.
    for (member, amount) in [("alice", "10"), ("bob", "25"), ("carol", "-3")] {
        ok(&mut con, &["RANK.GIFT", "board", member, amount]);
    }
    ok(&mut con, &cmdline("RANK.GIFT other dave 1 IDMP seen pay-1"));

    let on_board = |expected| wrong(BOARD.0, BOARD.1, expected);
    let on_seen = |expected| wrong(SEEN_KEY.0, SEEN_KEY.1, expected);
    let cases: Vec<(&[&str], String)> = vec![
        // The cases: each removed the board's members.
        (
            &["RATE.HIT", "board", "60000", "10"],
            on_board("a RATE log"),
        ),
        (
            &["RATE.PEEK", "board", "60000", "10"],
            on_board("a RATE log"),
        ),
        (
            &["RATE.ACQUIRE", "board", "req:1", "60000", "10"],
            on_board("a RATE log"),
        ),
        (
            &["RECENT.ADD", "board", "CAP", "1", "ITEMS", "x"],
            on_board("a RECENT list"),
        ),
        (
            &["DELAY.POLL", "board", "COUNT", "10"],
            on_board("a DELAY queue"),
        ),
        (&["DELAY.BPOLL", "board", "100"], on_board("a DELAY queue")),
        (
            &["DELAY.POLL", "board", "LEASE", "held", "1000"],
            on_board("a DELAY queue"),
        ),
        // A seen-key is not a log, a list or a queue.
        (&["RATE.HIT", "seen", "60000", "10"], on_seen("a RATE log")),
        (
            &["RATE.ACQUIRE", "seen", "req:1", "60000", "10"],
            on_seen("a RATE log"),
        ),
        (
            &["RECENT.ADD", "seen", "CAP", "1", "ITEMS", "x"],
            on_seen("a RECENT list"),
        ),
        (&["DELAY.POLL", "seen"], on_seen("a DELAY queue")),
    ];
    let cases: Vec<(&[&str], &str)> = cases.iter().map(|(w, e)| (*w, e.as_str())).collect();
    assert_errors_change_nothing(&mut con, &cases);
}

#[test]
fn what_the_data_cannot_tell_apart_still_works() {
    let server = Server::start();
    let mut con = server.connect();
    let now = server_time_ms(&mut con);
    // Tasks named like stream ids (`<ms>-<n>`), due when they were made.
    let id = format!("{}-0", now - 5);
    ok(&mut con, &["ZADD", "jobs", &(now - 5).to_string(), &id]);
    let claimed: Vec<(String, f64)> = query(&mut con, &["DELAY.POLL", "jobs"]);
    assert_eq!(claimed.len(), 1);
    // A rate log a script kept before, one member per hit of any name.
    ok(
        &mut con,
        &["ZADD", "log", &(now - 10).to_string(), "uuid-1"],
    );
    let hit: Vec<i64> = query(&mut con, &["RATE.HIT", "log", "60000", "2"]);
    assert_eq!(hit, [1, 2, 0, -1]);
    // A board of whole totals (native ZADD) takes gifts; a feed of any
    // scores, views; a list of items viewed as they were posted, more views.
    ok(&mut con, &["ZADD", "plain", "100", "alice"]);
    ok(&mut con, &["RANK.GIFT", "plain", "alice", "1"]);
    let seen_at = now.to_string();
    ok(
        &mut con,
        &["ZADD", "recent", &seen_at, &format!("{seen_at}-0")],
    );
    ok(&mut con, &["RECENT.ADD", "recent", "ITEMS", "x"]);
}
