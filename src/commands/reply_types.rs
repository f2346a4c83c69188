//! The tuples and field lists that commands reply, named as the clients
//! expose them (`TotalRank.total`, `RankInfo.reached_at_ms`): declarations
//! name them in their `reply` (several commands share one), and the clients'
//! reply types and parsers are generated from them through
//! docs/commands.json.

use crate::host::{Element as E, ReplyShape as R, Tuple, When};

/// RANK.GIFT, RANK.SET and each board of RANK.MGIFT.
pub static TOTAL_RANK: Tuple = Tuple {
    name: "TotalRank",
    about: "The member's total and its 1-based rank (with SHARED, its competition rank); \
            a repeated IDMP call whose member has left the board since reads total 0, rank 0.",
    elements: &[
        E::new("total", R::Integer),
        E::new("rank", R::IntegerOrNilAsZero),
    ],
};

/// RANK.GET and each member of RANK.MGET.
pub static RANK_INFO: Tuple = Tuple {
    name: "RankInfo",
    about: "A member's total, rank and when the total was reached (unix ms).",
    elements: &[
        E::new("total", R::Integer),
        E::new("rank", R::Integer),
        E::new("reached-at-ms", R::Integer),
    ],
};

/// A row of RANK.TOP and RANK.AROUND.
pub static RANK_ENTRY: Tuple = Tuple {
    name: "RankEntry",
    about: "One row of RANK.TOP and RANK.AROUND.",
    elements: &[
        E::new("rank", R::Integer),
        E::new("member", R::Bulk),
        E::new("total", R::Integer),
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
    about: "A task claimed by DELAY.POLL or DELAY.BPOLL and the score it was due at in the \
            polled key (unix ms; for an in-flight set, its lease's end).",
    elements: &[E::new("task", R::Bulk), E::new("due-ms", R::Double)],
};

/// RATE.HIT.
pub static RATE_RESULT: Tuple = Tuple {
    name: "RateResult",
    about: "Whether the hit was allowed, the units in the window after it, the units left, \
            and the ms until the same hit would pass (-1 when allowed), for the limit that \
            binds; with several limits or IDMP, that limit's 1-based position in the limits \
            given (refused: the one that makes the hit wait longest; allowed: the first with \
            the least room left).",
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
    about: "A queue's depth and lag at the server's now-ms; the counts of a set not named in \
            the call are nil.",
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
