//! FEED: waterfall feeds (a recommendation or timeline stream) paged by exact
//! cursors, with capped inserts.
//!
//! A feed is a plain sorted set shown newest first (`logic::cursor`). A page
//! starts at an exclusive `(score, member)` position and walks the low-level
//! zset iterator from there: O(log N) to seek plus one step per item, with no
//! RM_Call on the path. The seek is by score only (the module API has no
//! seek by score and member), so a page that starts inside a run of members
//! sharing the cursor's score first steps over the members of that run on the
//! cursor's side: O(log N + K + COUNT), K = that part of the run.
//!
//! FEED.ADD writes with the low-level API and replicates its effects: `ZADD`
//! of the pairs that changed something, with exact scores, then `ZREM` of
//! exactly the members CAP trimmed.

use std::cmp::Ordering;

use super::args::positive;
use super::counter::Counter;
use super::declaration::Command;
use super::layout::{self, Use};
use crate::error::{bound, ZkitError};
use smallvec::SmallVec;

use super::declaration::Items;
use super::reply_types::FEED_PAGE;
use crate::host::ctx::Ctx;
use crate::host::grammar::Arg;
use crate::host::grammar::Request;
use crate::host::keyspec::key_flags as kf;
use crate::host::reply::WriteReply;
use crate::host::reply_shape::ReplyShape as R;
use crate::host::string::OwnedRStr;
use crate::host::string::RStr;
use crate::host::zset::ScoreBound;
use crate::logic::cursor::{self, Position};
use crate::logic::score::ScoreText;
use crate::{declare_command, request};

pub static COMMANDS: &[&Command] = &[&ADD, &PAGE];

/// Items FEED.ADD's CAP removed.
pub static ITEMS_TRIMMED: Counter = Counter::new();

/// COUNT when none is given.
pub(crate) const DEFAULT_COUNT: usize = 10;
/// The largest COUNT: one page stays a bounded amount of work and reply.
pub(crate) const MAX_COUNT: i64 = 1000;

declare_command! {
    pub static ADD: Command = {
        name: "feed.add",
        handler: add,
        flags: "write deny-oom",
        acl_categories: "write sortedset slow",
        summary: "Adds or re-scores feed items like ZADD; with CAP, then removes the lowest-scored items beyond n in the same step.",
        complexity: "O((M+R) log(N)) with M the items given, R the items CAP removes and N the items in the feed.",
        since: "0.1.0",
        history: &[],
        reply: R::Integer,
        examples: &[
            "FEED.ADD {t}:feed CAP 10 1 a 2 b",
        ],
        args: &[
            Arg::key("key", kf::RW | kf::UPDATE),
            Arg::integer("n").token("CAP").optional(),
            Arg::block("data", &[Arg::double("score"), Arg::string("member")]).multiple(),
        ],
    }
}

declare_command! {
    pub static PAGE: Command = {
        name: "feed.page",
        handler: page,
        flags: "readonly",
        acl_categories: "read sortedset slow",
        summary: "Returns a page of a feed, newest first, with exact top and bottom cursors: the newest items, or the items newer or older than a cursor.",
        complexity: "O(log(N)+K+COUNT) with N the items in the feed and K the items that share the cursor's score and sort on the cursor's side of it (0 without ties).",
        since: "0.1.0",
        history: &[],
        reply: R::Tuple(&FEED_PAGE),
        examples: &[
            "FEED.PAGE {t}:feed COUNT 5",
            "FEED.PAGE {t}:feed COUNT 5 NEWER f1:3ff0000000000000:61",
            "FEED.PAGE {t}:feed OLDER f1:4000000000000000:62",
        ],
        args: &[
            Arg::key("key", kf::RO | kf::ACCESS),
            Arg::integer("count").token("COUNT").optional(),
            Arg::one_of(
                "direction",
                &[
                    Arg::string("cursor").token("NEWER"),
                    Arg::string("cursor").token("OLDER"),
                ],
            )
            .optional(),
        ],
    }
}

request! {
    /// FEED.ADD `key [CAP n] score member [score member ...]`.
    struct Add<'a> {
        key: &'a RStr = key,
        cap: Option<i64> = option(Request::integer),
        items: Items<'a, (f64, &'a RStr)> = items(|item| (item.double(), item.string())),
    }
}

/// -> members added.
fn add(ctx: &Ctx, args: Add<'_>) -> Result<i64, ZkitError> {
    let Add { key, cap, items } = args;
    let cap = cap.map(|cap| positive(cap, "CAP")).transpose()?;
    let mut feed = ctx.open_zset_mut(key)?;
    let created = feed.is_empty();
    let mut added = 0;
    for (score, member) in items {
        // As ZADD: an equal score (-0.0 equals 0.0) changes nothing.
        if feed.add(member, score)? {
            added += 1;
        }
    }
    let excess = cap.map_or(0, |cap| feed.len().saturating_sub(cap));
    // One, for a feed kept at its cap.
    let trimmed = feed.remove_lowest(excess);
    layout::after_write(ctx, key, &mut feed, created);
    drop(feed);
    ITEMS_TRIMMED.add(trimmed as u64);
    Ok(added)
}

/// Which way a page goes from its cursor.
enum Direction {
    Newer,
    Older,
}

request! {
    /// FEED.PAGE `key [COUNT n] [NEWER cursor | OLDER cursor]`.
    struct Page<'a> {
        key: &'a RStr = key,
        count: Option<i64> = option(Request::integer),
        from: Option<(Direction, &'a RStr)> = one_of(&[
                |cursor| (Direction::Newer, cursor.string()),
                |cursor| (Direction::Older, cursor.string()),
            ]),
    }
}

/// Items of a page kept on the stack: a default page (10) and the common
/// sizes up to 31 with the item past it; larger pages spill to the heap.
type PageItems = SmallVec<[(OwnedRStr, f64); 32]>;

/// -> `[[member, score, ...], top, bottom, more]`.
fn page<'a>(ctx: &Ctx, args: Page<'a>) -> Result<PageReply<'a>, ZkitError> {
    let Page { key, count, from } = args;
    let count = count.map(check_count).transpose()?;
    let count = count.unwrap_or(DEFAULT_COUNT);
    let from = match from {
        Some((direction, cursor)) => {
            Some((direction, Position::decode(cursor.as_bytes())?, cursor))
        }
        None => None,
    };
    let given = from.as_ref().map(|(_, _, cursor)| *cursor);

    let Some(mut feed) = ctx.open_zset(key)? else {
        return Ok(PageReply::empty(given));
    };
    // One item past the page says whether more remain that way.
    let wanted = count + 1;
    let mut items: PageItems = match &from {
        None => feed
            .iter_desc(ScoreBound::MIN, ScoreBound::MAX)
            .take(wanted)
            .collect(),
        Some((Direction::Older, at, _)) => feed
            .iter_desc(ScoreBound::MIN, ScoreBound::Inclusive(at.score))
            .skip_while(|(member, score)| at.locate(*score, member.as_bytes()) != Ordering::Greater)
            .take(wanted)
            .collect(),
        // The items closest to the cursor, so repeated pulls leave no gap.
        Some((Direction::Newer, at, _)) => feed
            .iter_asc(ScoreBound::Inclusive(at.score), ScoreBound::MAX)
            .skip_while(|(member, score)| at.locate(*score, member.as_bytes()) != Ordering::Less)
            .take(wanted)
            .collect(),
    };
    let len = feed.len();
    drop(feed);
    layout::after_read(ctx, key, len, Use::Page);
    let more = items.len() > count;
    items.truncate(count);
    if let Some((Direction::Newer, ..)) = from {
        items.reverse();
    }
    let (Some(newest), Some(oldest)) = (items.first(), items.last()) else {
        return Ok(PageReply::empty(given));
    };
    for (member, _) in [newest, oldest] {
        check_cursor_fits(
            ctx,
            member.as_bytes().len(),
            cursor::encoded_len(member.as_bytes().len()),
        )?;
    }
    Ok(PageReply { items, given, more })
}

/// FEED.PAGE's reply: the items, newest first, then the top and bottom
/// cursors (those of the first and last item, or the cursor given when the
/// page is empty), then whether more remain.
struct PageReply<'a> {
    items: PageItems,
    given: Option<&'a RStr>,
    more: bool,
}

impl<'a> PageReply<'a> {
    /// No items: top and bottom are the cursor given (nil without one).
    fn empty(given: Option<&'a RStr>) -> PageReply<'a> {
        PageReply {
            items: PageItems::new(),
            given,
            more: false,
        }
    }
}

impl WriteReply for PageReply<'_> {
    fn write(&self, ctx: &Ctx) {
        ctx.reply_array(4);
        ctx.reply_array(2 * self.items.len());
        // RESP2 scores are bulk strings: the shortest exact text is several
        // times cheaper than the server's %.17g. RESP3 has a double type.
        let resp3 = ctx.is_resp3();
        let mut text = ScoreText::new();
        for (member, score) in &self.items {
            ctx.reply_str(member);
            if resp3 {
                ctx.reply_f64(*score);
            } else {
                ctx.reply_bulk(text.format(*score).as_bytes());
            }
        }
        match (self.items.first(), self.items.last()) {
            (Some(newest), Some(oldest)) => {
                for (member, score) in [newest, oldest] {
                    let mut cursor: SmallVec<[u8; 256]> = SmallVec::new();
                    cursor::encode_into(*score, member.as_bytes(), &mut cursor);
                    ctx.reply_bulk(&cursor);
                }
            }
            _ => {
                self.given.write(ctx);
                self.given.write(ctx);
            }
        }
        self.more.write(ctx);
    }
}

/// Refuses a cursor of `cursor_len` bytes, naming a member of `member_len`
/// bytes, that a client could not send back. Cursors of up to a mebibyte
/// always fit; only longer ones ask for the server's limit.
pub(super) fn check_cursor_fits(
    ctx: &Ctx,
    member_len: usize,
    cursor_len: usize,
) -> Result<(), ZkitError> {
    if cursor_len <= cursor::SMALLEST_BULK_LIMIT {
        return Ok(());
    }
    let limit = ctx.server_config_number("proto-max-bulk-len")?;
    cursor::check_fits(member_len, cursor_len, usize::try_from(limit).unwrap_or(0))?;
    Ok(())
}

/// COUNT n: between 1 and [`MAX_COUNT`].
fn check_count(count: i64) -> Result<usize, ZkitError> {
    if !(1..=MAX_COUNT).contains(&count) {
        return Err(ZkitError::OutOfRange {
            what: "COUNT",
            limit: bound::PAGE_COUNT,
        });
    }
    Ok(count as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_bound_matches_its_message() {
        assert_eq!(check_count(1000), Ok(1000));
        let e = check_count(1001).unwrap_err().to_string();
        assert!(e.ends_with(&format!("between 1 and {MAX_COUNT}")), "{e}");
        assert!(check_count(0).is_err());
    }
}
