//! VOTE: up and down votes with dedup sets, switching and atomic score
//! updates: an article-voting site (as in Redis in Action, chapter 1), with
//! down votes, switching and weighted votes built in.
//!
//! An item's votes live in native keys: a sorted set of scores (member item),
//! and two plain sets of voter ids, one for up votes and one for down votes.
//! The low-level module API has no set access, so the sets are written with
//! SADD and SREM through RM_Call, which propagates them as they are when they
//! change a set. Their replies say whether the voter was in each set, which
//! is all the vote needs to know, so no SISMEMBER is run; set sizes come from
//! the key API (the sizes before the writes, read while checking the key
//! types, plus what the writes changed). The score is incremented on the key
//! API (ZINCRBY's arithmetic) and recorded as `ZADD scores <exact score>
//! item`.

use super::args::non_negative;
use super::declaration::Command;
use super::reply_types::VOTE_RESULT;
use crate::error::ZkitError;
use crate::host::call::CallArg;
use crate::host::call::Native;
use crate::host::ctx::Ctx;
use crate::host::grammar::Arg;
use crate::host::keyspec::key_flags as kf;
use crate::host::reply_shape::ReplyShape as R;
use crate::host::string::RStr;
use crate::host::zset::KeyKind;
use crate::logic::vote::{check_window, outcome, Standing, Vote, VoteError, Weights};
use crate::{declare_command, request};

pub static COMMANDS: &[&Command] = &[&CAST, &STATE];

declare_command! {
    pub static CAST: Command = {
        name: "vote.cast",
        handler: cast,
        flags: "write deny-oom fast",
        acl_categories: "write sortedset set fast",
        summary: "Casts, switches or clears a voter's up or down vote on an item and updates the item's score; returns the score, the up and down counts and whether anything changed.",
        complexity: "O(log(N)) with N the number of items in scores.",
        since: "0.1.0",
        history: &[],
        reply: R::Tuple(&VOTE_RESULT),
        examples: &[
            "VOTE.CAST {t}:scores {t}:up {t}:down item voter DOWN",
            "VOTE.CAST {t}:scores {t}:up {t}:down item voter CLEAR",
            "ZADD {t}:times 1718000000 item",
            "VOTE.CAST {t}:scores {t}:up {t}:down item voter UP WEIGHT 1 1 WINDOW {t}:times 1000000000",
        ],
        args: &[
            Arg::key("scores", kf::RW | kf::ACCESS | kf::UPDATE),
            Arg::key("upvoters", kf::RW | kf::UPDATE),
            Arg::key("downvoters", kf::RW | kf::UPDATE),
            Arg::string("item"),
            Arg::string("voter"),
            Arg::one_of(
                "direction",
                &[
                    Arg::pure_token("up", "UP"),
                    Arg::pure_token("down", "DOWN"),
                    Arg::pure_token("clear", "CLEAR"),
                ],
            ),
            Arg::block("weight", &[Arg::double("up"), Arg::double("down")])
                .token("WEIGHT")
                .optional(),
            Arg::block("window", &[Arg::key("times", kf::RO), Arg::integer("seconds")])
                .token("WINDOW")
                .optional(),
        ],
    }
}

declare_command! {
    pub static STATE: Command = {
        name: "vote.state",
        handler: state,
        flags: "readonly fast",
        acl_categories: "read set fast",
        summary: "Returns a voter's vote: 1 up, -1 down, 0 none.",
        complexity: "O(1)",
        since: "0.1.0",
        history: &[],
        reply: R::Integer,
        examples: &[
            "VOTE.STATE {t}:up {t}:down voter",
        ],
        args: &[
            Arg::key("upvoters", kf::RO),
            Arg::key("downvoters", kf::RO),
            Arg::string("voter"),
        ],
    }
}

request! {
    /// VOTE.CAST `scores upvoters downvoters item voter UP|DOWN|CLEAR
    /// [WEIGHT up down] [WINDOW times seconds]`.
    struct Cast<'a> {
        scores: &'a RStr = key,
        upvoters: &'a RStr = key,
        downvoters: &'a RStr = key,
        item: &'a RStr = string,
        voter: &'a RStr = string,
        vote: Vote = choice(&[|_| Vote::Up, |_| Vote::Down, |_| Vote::Clear]),
        weights: Option<(f64, f64)> = option(|weight| (weight.double(), weight.double())),
        window: Option<(&'a RStr, i64)> = option(|window| (window.key(), window.integer())),
    }
}

/// -> `[score, ups, downs, changed]`.
fn cast(ctx: &Ctx, args: Cast<'_>) -> Result<(f64, i64, i64, bool), ZkitError> {
    let Cast {
        scores,
        upvoters,
        downvoters,
        item,
        voter,
        vote,
        weights,
        window,
    } = args;
    let weights = match weights {
        Some((up, down)) => Weights::new(up, down)?,
        None => Weights::ONE,
    };
    let window = window
        .map(|(times, seconds)| {
            Ok::<_, ZkitError>((times, non_negative(seconds, "window seconds")?))
        })
        .transpose()?;
    let keys = [scores, upvoters, downvoters].map(RStr::as_bytes);
    if keys[0] == keys[1] || keys[0] == keys[2] || keys[1] == keys[2] {
        return Err(VoteError::SharedKey.into());
    }

    // Every check before the first write, so an error changes nothing:
    // SREM may run after SADD.
    ctx.require(&[Native::Sadd, Native::Srem])?;
    let ups_before = ctx.key_len(upvoters, KeyKind::Set)?;
    let downs_before = ctx.key_len(downvoters, KeyKind::Set)?;
    ctx.check_key_type(scores, KeyKind::Zset)?;
    if let Some((times, window_s)) = window {
        let posted_at_s = ctx.open_zset(times)?.and_then(|t| t.score(item));
        check_window(posted_at_s, window_s, ctx.now_ms())?;
    }

    let after = vote.target();
    let before = Standing {
        in_up: place_voter(ctx, upvoters, ups_before, voter, after.in_up)?,
        in_down: place_voter(ctx, downvoters, downs_before, voter, after.in_down)?,
    };
    let result = outcome(before, after, weights);
    let score = if result.changed {
        // Never NaN: the delta is finite. An absent item starts at the delta.
        ctx.open_zset_mut(scores)?.incr(item, result.delta)?
    } else {
        // An item without a score counts as 0, as with ZINCRBY.
        let score = ctx.open_zset(scores)?.and_then(|z| z.score(item));
        score.unwrap_or(0.0)
    };
    Ok((
        score,
        set_size_after(ups_before, before.in_up, after.in_up),
        set_size_after(downs_before, before.in_down, after.in_down),
        result.changed,
    ))
}

/// Makes `voter` a member of `set` (of `size` members) or not, with native
/// SADD or SREM (which fire their own keyspace events and propagate
/// themselves when they change the set), and returns whether the voter was a
/// member before.
fn place_voter(
    ctx: &Ctx,
    set: &RStr,
    size: usize,
    voter: &RStr,
    member: bool,
) -> Result<bool, ZkitError> {
    if size == 0 && !member {
        // Nobody to remove from an empty set: skip the call.
        return Ok(false);
    }
    let command = if member { Native::Sadd } else { Native::Srem };
    let args = [CallArg::Str(set), CallArg::Str(voter)];
    let changed = match ctx.call_replicated(command, &args)?.get().integer() {
        Some(0) => false,
        Some(1) => true,
        _ => {
            return Err(ZkitError::Internal(format!(
                "{} did not return 0 or 1",
                command.text()
            )))
        }
    };
    // A write that changed the set found the voter where it was not wanted.
    Ok(member != changed)
}

fn set_size_after(size_before: usize, was_member: bool, is_member: bool) -> i64 {
    size_before as i64 + i64::from(is_member) - i64::from(was_member)
}

request! {
    /// VOTE.STATE `upvoters downvoters voter`.
    struct State<'a> {
        upvoters: &'a RStr = key,
        downvoters: &'a RStr = key,
        voter: &'a RStr = string,
    }
}

/// -> 1 | -1 | 0.
fn state(ctx: &Ctx, args: State<'_>) -> Result<i64, ZkitError> {
    let State {
        upvoters,
        downvoters,
        voter,
    } = args;
    ctx.check_key_type(upvoters, KeyKind::Set)?;
    ctx.check_key_type(downvoters, KeyKind::Set)?;
    let standing = Standing {
        in_up: is_member(ctx, upvoters, voter)?,
        in_down: is_member(ctx, downvoters, voter)?,
    };
    Ok(standing.state()?)
}

fn is_member(ctx: &Ctx, set: &RStr, voter: &RStr) -> Result<bool, ZkitError> {
    let reply = ctx.call(Native::Sismember, &[CallArg::Str(set), CallArg::Str(voter)])?;
    reply
        .get()
        .integer()
        .map(|n| n == 1)
        .ok_or_else(|| ZkitError::Internal("SISMEMBER did not return an integer".into()))
}
