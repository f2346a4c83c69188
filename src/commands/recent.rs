//! RECENT.*: recently-viewed lists (a shop's "recently viewed items").
//!
//! The usual recipe keeps a list per user with LREM + LPUSH + LTRIM + EXPIRE: four
//! round trips that race with each other, and a list that can hold a member
//! twice. Here the list is a sorted set scored by the server clock: viewing a
//! member again moves it to the front, the oldest beyond CAP are dropped and
//! the TTL is refreshed, in one atomic command. Read it with ZREVRANGE. Scores
//! stay strictly increasing even within one millisecond (see
//! `logic::recent`), so the order is the order of the views.

use super::args::{positive, ttl_deadline};
use super::declaration::{Command, WordList};
use super::layout;
use super::sample::Sample;
use crate::error::ZkitError;
use crate::host::ctx::Ctx;
use crate::host::grammar::Arg;
use crate::host::grammar::Request;
use crate::host::keyspec::key_flags as kf;
use crate::host::reply_shape::ReplyShape as R;
use crate::host::string::RStr;
use crate::logic::family;
use crate::logic::recent::view_scores;
use crate::{declare_command, request};

pub static COMMANDS: &[&Command] = &[&ADD];

declare_command! {
    pub static ADD: Command = {
        name: "recent.add",
        handler: add,
        flags: "write deny-oom",
        acl_categories: "write sortedset slow",
        summary: "Records views of members in a recently-viewed list (newest first), keeps at most CAP of them and refreshes the TTL; returns the list's size.",
        complexity: "O((M+T)*log(N)) with M the members given, T the members trimmed and N the size of the list.",
        since: "0.1.0",
        history: &[("0.3.0", "The members follow `ITEMS`, after the options, so a member is never read as an option.")],
        reply: R::Integer,
        examples: &[
            "RECENT.ADD {t}:recent CAP 5 TTL 86400 ITEMS a b",
        ],
        args: &[
            Arg::key("key", kf::RW | kf::UPDATE),
            Arg::integer("cap").token("CAP").optional(),
            Arg::integer("seconds").token("TTL").optional(),
            Arg::string("member").token("ITEMS").multiple(),
        ],
    }
}

request! {
    /// RECENT.ADD `key [CAP cap] [TTL seconds] ITEMS member [member ...]`.
    struct Add<'a> {
        key: &'a RStr = key,
        cap: Option<i64> = option(Request::integer),
        ttl_seconds: Option<i64> = option(Request::integer),
        members: WordList<'a> = words,
    }
}

/// -> the list's size after.
fn add(ctx: &Ctx, args: Add<'_>) -> Result<i64, ZkitError> {
    let Add {
        key,
        cap,
        ttl_seconds,
        members,
    } = args;
    let members = members.as_slice();
    let cap = cap.map(|cap| positive(cap, "cap")).transpose()?;
    let now = ctx.now_ms();
    let expire_at = ttl_seconds
        .map(|seconds| ttl_deadline(now, seconds))
        .transpose()?;

    let mut list = ctx.open_zset_mut(key)?;
    let sample = Sample::of(&mut list, 2, true);
    // Views are whole unix ms: another family's key (a gift board, whose
    // members CAP would trim) is refused before anything is written.
    if let Some(newest) = sample.highest() {
        family::check_recent_list(&sample.lowest(), newest)?;
    }
    let newest = sample.highest().map(|(_, score)| score);
    let scores = view_scores(now, newest, members.len())?;
    for (member, score) in members.iter().zip(&scores) {
        list.add(member, *score as f64)?;
    }
    let excess = cap.map_or(0, |cap| list.len().saturating_sub(cap));
    // The views score above the newest, so the lowest elements the check
    // read are still the lowest, up to the first that this call viewed:
    // those are the first to trim, without walking the list again.
    let unmoved = sample
        .lowest
        .iter()
        .take_while(|(lowest, _)| {
            !members
                .iter()
                .any(|member| member.as_bytes() == lowest.as_bytes())
        })
        .count();
    if excess <= unmoved {
        for (member, _) in &sample.lowest[..excess] {
            list.remove(member);
        }
    } else {
        list.remove_lowest(excess);
    }
    if let Some(at) = expire_at {
        list.expire_at(at)?;
    }
    layout::after_write(ctx, key, &mut list, sample.highest().is_none());
    let size = list.len();
    drop(list);
    Ok(size as i64)
}
