//! RANK.MERGE: daily boards summed into a weekly one (times integer
//! weights), keeping first-come order, in one call or in steps (`STEP count
//! staging cursor`) so that no call holds the server long.

use std::collections::HashMap;

use super::args::positive;
use super::feed::check_cursor_fits;
use super::rank::tiebreak_clock;
use super::Command;
use crate::error::ZkitError;
use crate::host::{
    key_flags as kf, Arg, Ctx, KeyKind, OwnedRStr, RStr, Reply, Request, ScoreBound,
};
use crate::logic::merge::{self, MergeArgs, MergeError, Resume};
use crate::logic::rank::{add_totals, weigh_total, RankEntry, TieBreakClock};
use crate::{declare_command, request};

declare_command! {
    pub static MERGE: Command = {
        name: "rank.merge",
        handler: merge,
        flags: "write deny-oom",
        acl_categories: "write sortedset slow",
        summary: "Stores the sum of several boards (times integer weights) in destkey, keeping first-come order: a merged entry reached its total when its last contributor did.",
        complexity: "O(N+M log(M)) with N the members of all inputs and M the members of the result; with STEP, O(C log(M)) per call with C the count; the last step renames staging onto destkey in O(1).",
        since: "0.1.0",
        history: &[("0.3.0", "Added the `STEP` option; a replaced destkey is freed as UNLINK frees it.")],
        args: &[
            Arg::key("destkey", kf::OW | kf::UPDATE),
            Arg::integer("numkeys"),
            Arg::key("key", kf::RO | kf::ACCESS).counted_by("numkeys"),
            Arg::integer("weight")
                .token("WEIGHTS")
                .optional()
                .counted_by("numkeys"),
            STEP_ARG,
        ],
    }
}

/// `STEP count staging cursor`: a merge in steps of `count` members read,
/// built in `staging` and renamed onto destkey by the last step. The
/// staging key is read and written (members added and updated); the server
/// takes one of INSERT, UPDATE and DELETE per key, and UPDATE is what ZADD
/// declares for the same writes. Its removal (a restart, the rename) is
/// whole-key, as a destination's replacement is.
const STEP_ARG: Arg = Arg::block(
    "step",
    &[
        Arg::integer("count"),
        Arg::key("staging", kf::RW | kf::ACCESS | kf::UPDATE),
        Arg::string("cursor"),
    ],
)
.token("STEP")
.optional()
.since("0.3.0");

request! {
    /// RANK.MERGE `destkey numkeys key [key ...] [WEIGHTS w [w ...]] [STEP
    /// count staging cursor]`.
    struct Merge<'a> {
        dest: &'a RStr = key,
        /// The count the list after it was read with.
        _numkeys: i64 = integer,
        sources: Vec<&'a RStr> = list(Request::key),
        weights: Option<Vec<i64>> = option(|weights| weights.list(Request::integer)),
        step: Option<(i64, &'a RStr, &'a RStr)> = option(|step| (step.integer(), step.key(), step.string())),
    }
}

/// -> the members of the merged board; with STEP, `[next-cursor, members in
/// staging]`.
fn merge(ctx: &Ctx, args: Merge<'_>) -> Result<Reply, ZkitError> {
    let Merge {
        dest,
        _numkeys: _,
        sources,
        weights,
        step,
    } = args;
    // Without WEIGHTS, every board counts once.
    let weights = weights.unwrap_or_else(|| vec![1; sources.len()]);
    match step {
        None => merge_at_once(ctx, dest, &sources, &weights),
        Some((count, staging, cursor)) => {
            let step = MergeStep {
                dest,
                sources: &sources,
                weights: &weights,
                count: positive(count, "count")?,
                staging,
            };
            step.run(ctx, cursor)
        }
    }
}

/// The one-shot merge: read every source, store the result.
fn merge_at_once(
    ctx: &Ctx,
    dest: &RStr,
    sources: &[&RStr],
    weights: &[i64],
) -> Result<Reply, ZkitError> {
    // Read and check everything before the first write.
    let clock = tiebreak_clock();
    let mut merged = MergedBoard::default();
    for (source, weight) in sources.iter().zip(weights) {
        if let Some(mut board) = ctx.open_zset(source)? {
            for (member, score) in board.iter_asc(ScoreBound::MIN, ScoreBound::MAX) {
                merged.add(member, clock.decode(score)?, *weight)?;
            }
        }
    }
    let scored = merged.scores(&clock)?;
    // Stored like ZUNIONSTORE stores: the same writes, the same event.
    ctx.store_zset(dest, &scored, c"zunionstore")?;
    Ok(Reply::Int(scored.len() as i64))
}

/// One call of a stepped merge (`STEP count staging cursor`).
struct MergeStep<'a> {
    dest: &'a RStr,
    sources: &'a [&'a RStr],
    weights: &'a [i64],
    /// Members to read from the sources in this call.
    count: usize,
    staging: &'a RStr,
}

/// What one step read: the members, and where the next step resumes
/// (`None`: the sources are read to their end): after the member and score
/// in the source at that index.
struct StepRead {
    members: MergedBoard,
    next: Option<(usize, f64, Vec<u8>)>,
}

impl MergeStep<'_> {
    fn run(&self, ctx: &Ctx, cursor: &RStr) -> Result<Reply, ZkitError> {
        let names: Vec<&[u8]> = self.sources.iter().map(|s| s.as_bytes()).collect();
        let args = MergeArgs {
            dest: self.dest.as_bytes(),
            staging: self.staging.as_bytes(),
            sources: &names,
            weights: self.weights,
        };
        args.check_staging()?;
        let resume = args.decode(cursor.as_bytes())?;
        for source in self.sources {
            ctx.check_key_type(source, KeyKind::Zset)?;
        }
        let restarting = resume.is_none();
        // A resumed merge has read a member, which is in staging.
        if !restarting && ctx.key_len(self.staging, KeyKind::Zset)? == 0 {
            return Err(MergeError::StagingGone.into());
        }

        // Read and check everything before the first write.
        let clock = tiebreak_clock();
        let StepRead { mut members, next } = self.read(ctx, resume, &clock)?;
        if !restarting {
            if let Some(staged) = ctx.open_zset(self.staging)? {
                members.add_earlier(&clock, |member| staged.score(member))?;
            }
        }
        let scored = members.scores(&clock)?;
        let next_cursor = next
            .map(|(source, score, member)| {
                let text = args.encode(source, score, &member);
                check_cursor_fits(ctx, member.len(), text.len()).map(|()| text)
            })
            .transpose()?;

        if restarting {
            ctx.unlink(self.staging)?;
        }
        if !scored.is_empty() {
            let mut staging = ctx.open_zset_mut(self.staging)?;
            for (member, score) in &scored {
                staging.add(member, *score)?;
            }
        }
        let staged = ctx.key_len(self.staging, KeyKind::Zset)?;
        let cursor = match next_cursor {
            Some(text) => text,
            None => {
                // The last step: the old board is freed in the background,
                // the new one moved into place in O(1).
                ctx.unlink(self.dest)?;
                if staged > 0 {
                    ctx.rename(self.staging, self.dest)?;
                }
                merge::START.to_vec()
            }
        };
        Ok(Reply::Array(vec![
            Reply::Bulk(cursor),
            Reply::Int(staged as i64),
        ]))
    }

    /// Reads up to `count` members from the sources, in ascending (score,
    /// member) order source by source, from strictly after `resume`.
    fn read(
        &self,
        ctx: &Ctx,
        resume: Option<Resume>,
        clock: &TieBreakClock,
    ) -> Result<StepRead, ZkitError> {
        let mut members = MergedBoard::default();
        let (first, mut after) = match resume {
            Some(resume) => (resume.source, Some(resume)),
            None => (0, None),
        };
        let mut read = 0;
        // The last member read: (source, score), and its bytes in a buffer
        // reused from member to member.
        let mut last: Option<(usize, f64)> = None;
        let mut last_member = Vec::new();
        for (index, (source, weight)) in self.sources.iter().zip(self.weights).enumerate() {
            if index < first {
                continue;
            }
            let resume = after.take();
            let Some(mut board) = ctx.open_zset(source)? else {
                continue;
            };
            let from = resume
                .as_ref()
                .map_or(ScoreBound::MIN, |r| ScoreBound::Inclusive(r.after.score));
            let walk = board
                .iter_asc(from, ScoreBound::MAX)
                .skip_while(|(member, score)| {
                    resume
                        .as_ref()
                        .is_some_and(|r| !r.is_ahead(*score, member.as_bytes()))
                });
            for (member, score) in walk {
                if read == self.count {
                    // A member is left for the next step.
                    return Ok(StepRead {
                        members,
                        next: last.map(|(source, score)| (source, score, last_member)),
                    });
                }
                let entry = clock.decode(score)?;
                last = Some((index, score));
                last_member.clear();
                last_member.extend_from_slice(member.as_bytes());
                members.add(member, entry, *weight)?;
                read += 1;
            }
        }
        Ok(StepRead {
            members,
            next: None,
        })
    }
}

/// Members of a merge being built: total so far and latest reached-at.
#[derive(Default)]
struct MergedBoard {
    index: HashMap<Vec<u8>, usize>,
    entries: Vec<(OwnedRStr, RankEntry)>,
}

impl MergedBoard {
    fn add(&mut self, member: OwnedRStr, entry: RankEntry, weight: i64) -> Result<(), ZkitError> {
        let weighted = RankEntry {
            total: weigh_total(entry.total, weight)?,
            reached_at_ms: entry.reached_at_ms,
        };
        match self.index.get(member.as_bytes()) {
            Some(&i) => fold(&mut self.entries[i].1, weighted)?,
            None => {
                self.index
                    .insert(member.as_bytes().to_vec(), self.entries.len());
                self.entries.push((member, weighted));
            }
        }
        Ok(())
    }

    /// Folds in what earlier steps of a stepped merge left for the same
    /// members (`earlier` gives a member's staged score, already weighted).
    fn add_earlier(
        &mut self,
        clock: &TieBreakClock,
        earlier: impl Fn(&RStr) -> Option<f64>,
    ) -> Result<(), ZkitError> {
        for (member, merged) in &mut self.entries {
            if let Some(score) = earlier(member) {
                fold(merged, clock.decode(score)?)?;
            }
        }
        Ok(())
    }

    fn scores(self, clock: &TieBreakClock) -> Result<Vec<(OwnedRStr, f64)>, ZkitError> {
        self.entries
            .into_iter()
            .map(|(member, e)| Ok((member, clock.encode(e.total, e.reached_at_ms)?)))
            .collect()
    }
}

/// Adds a weighted contribution to a merged entry: the totals add up, and
/// the entry reached its total when its last contributor did.
fn fold(merged: &mut RankEntry, weighted: RankEntry) -> Result<(), ZkitError> {
    merged.total = add_totals(merged.total, weighted.total)?;
    merged.reached_at_ms = merged.reached_at_ms.max(weighted.reached_at_ms);
    Ok(())
}
