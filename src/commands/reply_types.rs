//! The tuples and field lists that commands reply, named as the clients
//! expose them (`TotalRank.total`, `RankInfo.reached_at_ms`): declarations
//! name them in their `reply` (several commands share one), and the clients'
//! reply types and parsers are generated from them through
//! docs/commands.json.

use crate::host::reply_shape::Element as E;

use crate::host::reply_shape::ReplyShape;
use crate::host::reply_shape::ReplyShape as R;

use crate::host::reply_shape::Tuple;

use crate::host::reply_shape::When;

/// RANK.GIFT, RANK.SET and each board of RANK.MGIFT.
pub static TOTAL_RANK: Tuple = Tuple {
    name: "TotalRank",
    about: "The member's total and its 1-based rank (with SHARED, its competition rank), and with COLUMNS \
            its value in each column; a repeated IDMP call whose member has left the board since reads \
            total 0, rank 0 (and 0 in every column).",
    elements: &[
        E::new("total", R::Integer),
        E::new("rank", R::IntegerOrNilAsZero),
        E::when("columns", COLUMN_VALUES_SHAPE, &[When::Option("COLUMNS")]),
    ],
};

/// RANK.GET and each member of RANK.MGET.
pub static RANK_INFO: Tuple = Tuple {
    name: "RankInfo",
    about: "A member's total, rank and when the total was reached (unix ms); with DATA, its member data (nil when it has none).",
    elements: &[
        E::new("total", R::Integer),
        E::new("rank", R::Integer),
        E::new("reached-at-ms", R::Integer),
        MEMBER_DATA,
    ],
};

/// A row of RANK.TOP and RANK.AROUND.
pub static RANK_ENTRY: Tuple = Tuple {
    name: "RankEntry",
    about: "One row of a board's page (RANK.TOP, RANK.AROUND, RANK.RANGE, RANK.AMONG); with DATA, the member's data last (nil when it has none).",
    elements: &[
        E::new("rank", R::Integer),
        E::new("member", R::Bulk),
        E::new("total", R::Integer),
        MEMBER_DATA,
    ],
};

/// RANK.GET and each member of RANK.MGET with COLUMNS.
pub static COLUMNS_RANK_INFO: Tuple = Tuple {
    name: "ColumnsRankInfo",
    about: "A member's total, rank, when the total was reached (unix ms) and its value in each column; with DATA, its member data (nil when it has none).",
    elements: &[
        E::new("total", R::Integer),
        E::new("rank", R::Integer),
        E::new("reached-at-ms", R::Integer),
        COLUMN_VALUES,
        MEMBER_DATA,
    ],
};

/// A row of RANK.TOP, RANK.AROUND and RANK.AMONG with COLUMNS.
pub static COLUMNS_RANK_ENTRY: Tuple = Tuple {
    name: "ColumnsRankEntry",
    about: "One row of a board's page with COLUMNS: rank, member, total and the member's value in each column; with DATA, the member's data last (nil when it has none).",
    elements: &[
        E::new("rank", R::Integer),
        E::new("member", R::Bulk),
        E::new("total", R::Integer),
        COLUMN_VALUES,
        MEMBER_DATA,
    ],
};

/// With `COLUMNS columns-key`: a member's value in each column, in order.
const COLUMN_VALUES_SHAPE: ReplyShape = R::ArrayOf(&R::Integer);
const COLUMN_VALUES: E = E::new("columns", COLUMN_VALUES_SHAPE);

/// A board entry's member data, with `DATA data-key`: the member's field of
/// the hash, or nil.
const MEMBER_DATA: E = E::when("data", R::OrNil(&R::Bulk), &[When::Option("DATA")]);

/// Each season RANK.SEASON names (the current one, then the one before).
pub static SEASON: Tuple = Tuple {
    name: "Season",
    about: "A season's board key (the base, a colon and the season's label), the unix ms it \
            starts at and ends before; with KEEP, the TTL a write gives the board so that it \
            goes KEEP seconds after the season's end (nil once that time has come).",
    elements: &[
        E::new("key", R::Bulk),
        E::new("starts-at-ms", R::Integer),
        E::new("ends-at-ms", R::Integer),
        E::when("ttl", R::OrNil(&R::Integer), &[When::Option("KEEP")]),
    ],
};

/// RANK.MERGE with STEP.
pub static MERGE_STEP: Tuple = Tuple {
    name: "MergeStep",
    about: "One step of RANK.MERGE with STEP: the cursor to send next (\"0\" once the merge \
            is done and destkey replaced) and the members merged so far.",
    elements: &[E::new("cursor", R::Bulk), E::new("staged", R::Integer)],
};

/// An item of a FEED.PAGE page.
pub static FEED_ITEM: Tuple = Tuple {
    name: "FeedItem",
    about: "One item of a FEED.PAGE page.",
    elements: &[E::new("member", R::Bulk), E::new("score", R::Double)],
};

/// FEED.PAGE.
pub static FEED_PAGE: Tuple = Tuple {
    name: "FeedPage",
    about: "A page of a feed: items newest first, the cursors of the first and last item \
            (the cursor given, or nil, when the page is empty) and whether more items remain \
            in the direction asked.",
    elements: &[
        E::new("items", R::FlatArrayOf(&FEED_ITEM)),
        E::new("top", R::OrNil(&R::Bulk)),
        E::new("bottom", R::OrNil(&R::Bulk)),
        E::new("more", R::Boolean),
    ],
};

/// A task DELAY.POLL or DELAY.BPOLL claimed.
pub static TASK: Tuple = Tuple {
    name: "Task",
    about: "A task claimed by DELAY.POLL or DELAY.BPOLL, the score it was due at in the \
            polled key (unix ms; for an in-flight set, its lease's end) and, with WITHTOKENS, \
            its delivery's token (the new lease's end, unix ms), which DELAY.ACK, DELAY.NACK \
            and DELAY.TOUCH take to act on this delivery only.",
    elements: &[
        E::new("task", R::Bulk),
        E::new("due-ms", R::Double),
        E::when("token", R::Integer, &[When::Option("WITHTOKENS")]),
    ],
};

/// A job DELAY.POLL or DELAY.BPOLL claimed with WITHDATA.
pub static JOB: Tuple = Tuple {
    name: "Job",
    about: "A task claimed with WITHDATA: its id, the score it was due at in the polled key, \
            its delivery's token (nil without LEASE), its payload (nil when it has none) and, \
            with DEADLETTER, how many times it has been delivered, this time included (else \
            nil).",
    elements: &[
        E::new("task", R::Bulk),
        E::new("due-ms", R::Double),
        E::new("token", R::OrNil(&R::Integer)),
        E::new("payload", R::OrNil(&R::Bulk)),
        E::new("deliveries", R::OrNil(&R::Integer)),
    ],
};

/// DELAY.JOB, read by name.
pub static JOB_INFO: Tuple = Tuple {
    name: "JobInfo",
    about: "A task's state (queued, inflight, dead; nil when in none of the sets named), its \
            score there, and its data: payload, deliveries (live, or those it died with), last \
            failure reason, not-started-by deadline and the worker holding it; nil where there \
            is none or the key was not named.",
    elements: &[
        E::new("state", R::OrNil(&R::Bulk)),
        E::new("score", R::OrNil(&R::Double)),
        E::new("payload", R::OrNil(&R::Bulk)),
        E::new("deliveries", R::OrNil(&R::Integer)),
        E::new("last-reason", R::OrNil(&R::Bulk)),
        E::new("deadline-ms", R::OrNil(&R::Integer)),
        E::new("worker", R::OrNil(&R::Bulk)),
    ],
};

/// What DELAY.POLL and DELAY.BPOLL reply: tasks, or with WITHDATA jobs.
pub const POLLED: ReplyShape = R::ByOption {
    token: "WITHDATA",
    with: &R::ArrayOf(&R::Tuple(&JOB)),
    without: &R::ArrayOf(&R::Tuple(&TASK)),
};

/// DELAY.POLL with RATE: the tasks claimed and the retry-after.
pub static RATED_TASKS: Tuple = Tuple {
    name: "RatedTasks",
    about: "What a poll that spends a RATE window claimed, and when tasks were due but the \
            window allowed none, the ms until it has room (-1 otherwise).",
    elements: &[
        E::new("tasks", R::ArrayOf(&R::Tuple(&TASK))),
        E::new("retry-after-ms", R::Integer),
    ],
};

/// DELAY.POLL with RATE and WITHDATA: the jobs claimed and the retry-after.
pub static RATED_JOBS: Tuple = Tuple {
    name: "RatedJobs",
    about: "What a poll with WITHDATA that spends a RATE window claimed, and when tasks were \
            due but the window allowed none, the ms until it has room (-1 otherwise).",
    elements: &[
        E::new("jobs", R::ArrayOf(&R::Tuple(&JOB))),
        E::new("retry-after-ms", R::Integer),
    ],
};

/// A row of DELAY.GROUPS.
pub static GROUP_ROW: Tuple = Tuple {
    name: "GroupState",
    about: "A group of a queue with limits: its tasks in flight, its cap, its rate limit \
            and window (0 for none), whether it is at its cap, and whether its rate window \
            is full now.",
    elements: &[
        E::new("group", R::Bulk),
        E::new("inflight", R::Integer),
        E::new("cap", R::Integer),
        E::new("rate-limit", R::Integer),
        E::new("window-ms", R::Integer),
        E::new("capped", R::Boolean),
        E::new("rate-limited", R::Boolean),
    ],
};

/// A row of DELAY.SCHEDULES.
pub static SCHEDULE_ROW: Tuple = Tuple {
    name: "Schedule",
    about: "A repeating job: its id, its rule (every-ms, or cron and tz), the time of its \
            pending occurrence (unix ms; nil once its cron rule matches no more) and the \
            payload each occurrence carries.",
    elements: &[
        E::new("id", R::Bulk),
        E::new("every-ms", R::OrNil(&R::Integer)),
        E::new("cron", R::OrNil(&R::Bulk)),
        E::new("tz", R::OrNil(&R::Bulk)),
        E::new("next-ms", R::OrNil(&R::Integer)),
        E::new("payload", R::OrNil(&R::Bulk)),
    ],
};

/// RATE.HIT and RATE.PEEK.
pub static RATE_RESULT: Tuple = Tuple {
    name: "RateResult",
    about: "Whether the hit was (for RATE.PEEK: would be) allowed, the units in the window \
            after it, the units left, and the ms until the same hit would pass (-1 when \
            allowed, and when refused because the cost is above the limit: no wait lets it \
            pass), for the limit that binds; with several limits or IDMP, that limit's \
            1-based position in the limits given (refused: the one that makes the hit wait \
            longest; allowed: the first with the least room left). A refund (a negative \
            cost) is allowed, with the counts after it.",
    elements: &[
        E::new("allowed", R::Boolean),
        E::new("count", R::Integer),
        E::new("remaining", R::Integer),
        E::new("retry-after-ms", R::Integer),
        E::when(
            "binding",
            R::Integer,
            &[When::Several("limits"), When::Option("IDMP")],
        ),
    ],
};

/// RATE.ACQUIRE.
pub static RATE_ACQUIRED: Tuple = Tuple {
    name: "RateAcquired",
    about: "Whether the holder holds a slot now, the holders whose lease has not ended (this \
            one included when acquired), the slots left, the ms until a slot is free (-1 when \
            acquired), and the lease's token, its end in unix ms, which RATE.RELEASE takes to \
            release this lease only (-1 when refused).",
    elements: &[
        E::new("acquired", R::Boolean),
        E::new("held", R::Integer),
        E::new("remaining", R::Integer),
        E::new("retry-after-ms", R::Integer),
        E::new("token", R::Integer),
    ],
};

/// VOTE.CAST.
pub static VOTE_RESULT: Tuple = Tuple {
    name: "VoteResult",
    about: "The item's score, the up and down counts, and whether the vote changed anything.",
    elements: &[
        E::new("score", R::Double),
        E::new("ups", R::Integer),
        E::new("downs", R::Integer),
        E::new("changed", R::Boolean),
    ],
};

/// DELAY.STATS, read by name.
pub static DELAY_STATS: Tuple = Tuple {
    name: "DelayStats",
    about: "A queue's depth and lag at the server's now-ms, and whether it is paused; the \
            values of a key not named in the call are nil.",
    elements: &[
        E::new("now-ms", R::Integer),
        E::new("tasks", R::Integer),
        E::new("due", R::Integer),
        E::new("oldest-due-age-ms", R::Integer),
        E::new("next-due-ms", R::OrNil(&R::Integer)),
        E::new("inflight", R::OrNil(&R::Integer)),
        E::new("expired", R::OrNil(&R::Integer)),
        E::new("dead", R::OrNil(&R::Integer)),
        E::new("redelivered", R::OrNil(&R::Integer)),
        E::new("paused", R::OrNil(&R::Boolean)),
        E::new("capped-groups", R::OrNil(&R::Integer)),
    ],
};

/// RANK.STATS, read by name.
pub static BOARD_STATS: Tuple = Tuple {
    name: "BoardStats",
    about: "A board's size, the spread of its totals (nil on an empty board) and its memory.",
    elements: &[
        E::new("members", R::Integer),
        E::new("top-total", R::OrNil(&R::Integer)),
        E::new("p99-total", R::OrNil(&R::Integer)),
        E::new("p90-total", R::OrNil(&R::Integer)),
        E::new("p50-total", R::OrNil(&R::Integer)),
        E::new("bottom-total", R::OrNil(&R::Integer)),
        E::new("memory-bytes", R::Integer),
    ],
};

/// One window of RATE.STATS: a plain pair.
pub static RATE_WINDOW: Tuple = Tuple {
    name: "",
    about: "A window asked and the entries within it.",
    elements: &[
        E::new("window-ms", R::Integer),
        E::new("entries", R::Integer),
    ],
};

/// RATE.STATS, read by name.
pub static RATE_STATS: Tuple = Tuple {
    name: "RateStats",
    about: "The entries of a rate log, when the newest was logged, and the entries within \
            each window asked.",
    elements: &[
        E::new("entries", R::Integer),
        E::new("newest-ms", R::OrNil(&R::Integer)),
        E::new("windows", R::ArrayOf(&R::Tuple(&RATE_WINDOW))),
    ],
};
