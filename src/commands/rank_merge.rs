//! RANK.MERGE: daily boards summed into a weekly one (times integer
//! weights), keeping first-come order, in one call or in steps (`STEP count
//! staging cursor`) so that no call holds the server long.

use std::collections::HashMap;

use super::args::positive;
use super::declaration::Command;
use super::rank_board::{ASC_ARG, ASC_HISTORY};
use super::reply_types::MERGE_STEP;
use super::tiebreak::tiebreak_clock;
use crate::error::ZkitError;
use crate::host::call::Native;
use crate::host::ctx::Ctx;
use crate::host::error::HostError;
use crate::host::grammar::Arg;
use crate::host::grammar::Request;
use crate::host::keyspec::key_flags as kf;
use crate::host::reply::Reply;
use crate::host::reply_shape::ReplyShape as R;
use crate::host::string::OwnedRStr;
use crate::host::string::RStr;
use crate::host::zset::KeyKind;
use crate::host::zset::ScoreBound;
use crate::host::zset::Zset;
use crate::logic::cursor::Position;
use crate::logic::merge::{
    self, MemberSum, MergeArgs, Progress, Replacement, RunId, RunRecord, Staging, StepCursor,
    StepPlan, StepSources, FINISHED_RECORD_TTL_MS, RECORD_SCORE,
};
use crate::logic::rank::Order;
use crate::{declare_command, request};

declare_command! {
    pub static MERGE: Command = {
        name: "rank.merge",
        handler: merge,
        flags: "write deny-oom",
        acl_categories: "write sortedset slow",
        summary: "Stores the sum of several boards (times integer weights) in destkey, keeping first-come order: a merged entry reached its total when its last contributor did.",
        complexity: "O(N+M log(M)) with N the members of all inputs and M the members of the result; with STEP, O(C*(K+log(M))) per call with C the count and K the number of keys; the last step renames staging onto destkey in O(1).",
        since: "0.1.0",
        history: &[
            ("0.3.0", "Added the `STEP` option; a replaced destkey is freed as UNLINK frees it."),
            ("0.3.1", "A merged total only has to fit once summed. `STEP`: equal to the one-shot merge for any input; cursors name a run and its step; a run holds its staging key until its last step; a step sent again repeats its reply."),
            ASC_HISTORY,
        ],
        reply: R::ByOption {
            token: "STEP",
            with: &R::Tuple(&MERGE_STEP),
            without: &R::Integer,
        },
        examples: &[
            "RANK.MERGE {t}:merged 1 {t}:board WEIGHTS 2",
            "RANK.MERGE {t}:merged 1 {t}:board WEIGHTS 2 STEP 10 {t}:staging 0",
            "RANK.MERGE {t}:merged 1 {t}:board ASC",
        ],
        args: &[
            Arg::key("destkey", kf::OW | kf::UPDATE),
            Arg::count("numkeys"),
            Arg::key("key", kf::RO | kf::ACCESS).counted_by("numkeys"),
            Arg::integer("weight")
                .token("WEIGHTS")
                .optional()
                .counted_by("numkeys"),
            STEP_ARG,
            ASC_ARG,
        ],
    }
}

/// `STEP count staging cursor`: a merge in steps of `count` entries read,
/// built in `staging` and renamed onto destkey by the last step. The
/// staging key is read and written (members added, the run's record
/// replaced); the server takes one of INSERT, UPDATE and DELETE per key, and
/// UPDATE is what ZADD declares for the same writes. Its removal (a new run,
/// the rename) is whole-key, as a destination's replacement is.
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
    /// count staging cursor] [ASC]`.
    struct Merge<'a> {
        dest: &'a RStr = key,
        sources: Vec<&'a RStr> = list(Request::key),
        weights: Option<Vec<i64>> = option(|weights| weights.list(Request::integer)),
        step: Option<(i64, &'a RStr, &'a RStr)> = option(|step| (step.integer(), step.key(), step.string())),
        asc: bool = flag,
    }
}

/// -> the members of the merged board; with STEP, `[next-cursor, members in
/// staging]`.
fn merge(ctx: &Ctx, args: Merge<'_>) -> Result<Reply, ZkitError> {
    let Merge {
        dest,
        sources,
        weights,
        step,
        asc,
    } = args;
    // Without WEIGHTS, every board counts once.
    let weights = weights.unwrap_or_else(|| vec![1; sources.len()]);
    let order = Order::of_asc(asc);
    match step {
        None => merge_at_once(ctx, dest, &sources, &weights, order),
        Some((count, staging, cursor)) => {
            let step = MergeStep {
                dest,
                sources: &sources,
                weights: &weights,
                count: positive(count, "count")?,
                staging,
                order,
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
    order: Order,
) -> Result<Reply, ZkitError> {
    // Read and check everything before the first write.
    let clock = tiebreak_clock().ordered(order);
    let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut sums: Vec<(OwnedRStr, MemberSum)> = Vec::new();
    for (source, weight) in sources.iter().zip(weights) {
        let Some(mut board) = ctx.open_zset(source)? else {
            continue;
        };
        for (member, score) in board.iter_asc(ScoreBound::MIN, ScoreBound::MAX) {
            let entry = clock.decode(score)?;
            match index.get(member.as_bytes()) {
                Some(&i) => sums[i].1.add(entry, *weight)?,
                None => {
                    let mut sum = MemberSum::default();
                    sum.add(entry, *weight)?;
                    index.insert(member.as_bytes().to_vec(), sums.len());
                    sums.push((member, sum));
                }
            }
        }
    }
    let scored = sums
        .into_iter()
        .map(|(member, sum)| Ok((member, sum.score(&clock)?)))
        .collect::<Result<Vec<_>, ZkitError>>()?;
    // Stored like ZUNIONSTORE stores: the same writes, the same event.
    ctx.store_zset(dest, &scored, c"zunionstore")?;
    Ok(Reply::Int(scored.len() as i64))
}

/// One call of a stepped merge (`STEP count staging cursor`).
struct MergeStep<'a> {
    dest: &'a RStr,
    sources: &'a [&'a RStr],
    weights: &'a [i64],
    /// Entries to read from the sources in this call.
    count: usize,
    staging: &'a RStr,
    order: Order,
}

/// What a step found in the staging key besides its run record.
struct StagedSoFar {
    /// Members merged by the run's earlier steps.
    members: usize,
    /// The key's TTL (unix ms).
    expires_at: Option<i64>,
}

impl MergeStep<'_> {
    fn run(&self, ctx: &Ctx, cursor: &RStr) -> Result<Reply, ZkitError> {
        let names: Vec<&[u8]> = self.sources.iter().map(|s| s.as_bytes()).collect();
        let args = MergeArgs {
            dest: self.dest.as_bytes(),
            staging: self.staging.as_bytes(),
            sources: &names,
            weights: self.weights,
            order: self.order,
        };
        args.check_staging()?;
        let cursor = StepCursor::parse(cursor.as_bytes())?;
        for source in self.sources {
            ctx.check_key_type(source, KeyKind::Zset)?;
        }
        // A step that resumes a run needs its staging board; one that
        // starts a run replaces whatever the key holds.
        if matches!(cursor, StepCursor::Run { steps, .. } if steps > 0) {
            ctx.check_key_type(self.staging, KeyKind::Zset)?;
        }
        let checksum = args.checksum();
        match merge::plan(cursor, checksum, &self.staging_state(ctx)?)? {
            StepPlan::Replay { cursor, staged } => Ok(step_reply((cursor, staged))),
            StepPlan::Start { run } => {
                let run = run.unwrap_or_else(|| RunId(ctx.random_bytes()));
                self.apply(ctx, run, checksum, None)
            }
            StepPlan::Continue(record) => self.apply(ctx, record.run, checksum, Some(&record)),
        }
    }

    /// What the staging key holds: its run record is the member scored
    /// `+inf`, the top of the board.
    fn staging_state(&self, ctx: &Ctx) -> Result<Staging, ZkitError> {
        let mut board = match ctx.open_zset(self.staging) {
            Ok(Some(board)) => board,
            Ok(None) => return Ok(Staging::Absent),
            Err(HostError::WrongType) => return Ok(Staging::Foreign),
            Err(e) => return Err(e.into()),
        };
        let top = board.iter_desc(ScoreBound::MIN, ScoreBound::MAX).next();
        let record = top
            .filter(|(_, score)| *score == RECORD_SCORE)
            .and_then(|(member, _)| RunRecord::parse(member.as_bytes()));
        Ok(record.map_or(Staging::Foreign, Staging::Run))
    }

    /// Runs the next step of run `run`: `record` is its state after its
    /// last step, `None` for its first step (staging is then replaced).
    fn apply(
        &self,
        ctx: &Ctx,
        run: RunId,
        checksum: u64,
        record: Option<&RunRecord>,
    ) -> Result<Reply, ZkitError> {
        // Read and check everything before the first write.
        let clock = tiebreak_clock().ordered(self.order);
        let resume = record.and_then(|r| match &r.progress {
            Progress::Reading { source, after } => Some((*source, after)),
            Progress::Done => None,
        });
        let (read, so_far) = {
            let mut open = OpenSources {
                boards: self
                    .sources
                    .iter()
                    .map(|source| ctx.open_zset(source))
                    .collect::<Result<_, _>>()?,
                staging: match record {
                    Some(_) => ctx.open_zset(self.staging)?,
                    None => None,
                },
            };
            let read = merge::read_step(&mut open, self.weights, &clock, resume, self.count)?;
            let so_far = StagedSoFar {
                // The run's board holds its record besides the members.
                members: open
                    .staging
                    .as_ref()
                    .map_or(0, |s| s.len().saturating_sub(1)),
                expires_at: open.staging.as_ref().and_then(Zset::expires_at),
            };
            (read, so_far)
        };
        // The member the record was stored as (its text is canonical).
        let previous = record.map(RunRecord::member);
        let record = RunRecord {
            run,
            args: checksum,
            steps: record.map_or(0, |r| r.steps) + 1,
            staged: (so_far.members + read.merged.len()) as u64,
            salt: 0,
            progress: Progress::Done,
        };
        match read.next {
            Some((source, after)) => {
                let mut record = RunRecord {
                    progress: Progress::Reading { source, after },
                    ..record
                };
                self.stage(ctx, &read.merged, previous.as_deref(), Some(&mut record))?;
                Ok(step_reply(record.reply()))
            }
            None => self.finish(ctx, &read.merged, previous.as_deref(), record, &so_far),
        }
    }

    /// Adds a step's merged members to staging and puts `record` (salted
    /// in place) instead of the `previous` one; a run's first step
    /// (`previous` is `None`) replaces the key.
    fn stage(
        &self,
        ctx: &Ctx,
        merged: &[(OwnedRStr, f64)],
        previous: Option<&[u8]>,
        record: Option<&mut RunRecord>,
    ) -> Result<(), ZkitError> {
        if previous.is_none() {
            ctx.unlink(self.staging)?;
        }
        let mut board = ctx.open_zset_mut(self.staging)?;
        for (member, score) in merged {
            board.add(member, *score)?;
        }
        if let Some(record) = record {
            add_record(&mut board, record)?;
        }
        // Unless a merged member spelled like the old record replaced it.
        if let Some(previous) = previous.map(OwnedRStr::new) {
            if board.score(&previous) == Some(RECORD_SCORE) {
                board.remove(&previous);
            }
        }
        Ok(())
    }

    /// The last step: stages its members, moves staging onto destkey and
    /// leaves the finished run's record in the staging key.
    fn finish(
        &self,
        ctx: &Ctx,
        merged: &[(OwnedRStr, f64)],
        previous: Option<&[u8]>,
        mut record: RunRecord,
        so_far: &StagedSoFar,
    ) -> Result<Reply, ZkitError> {
        // Checks first: once the step has written, nothing may refuse it.
        if so_far.expires_at.is_some() {
            ctx.require(&[Native::Persist])?;
        }
        let replacement = if record.staged > 0 {
            ctx.require(&[Native::Rename])?;
            let cluster = ctx.is_cluster();
            let slot_moving = if cluster {
                ctx.slot_is_moving(self.dest)
            } else {
                None
            };
            let dest_exists = ctx.key_exists(self.dest);
            Some(merge::replacement(
                cluster,
                slot_moving,
                dest_exists,
                ctx.in_multi(),
            )?)
        } else {
            None
        };
        let record_expires_at = so_far
            .expires_at
            .unwrap_or_else(|| ctx.now_ms().saturating_add(FINISHED_RECORD_TTL_MS));

        self.stage(ctx, merged, previous, None)?;
        // staging's TTL must not reach destkey through the rename.
        ctx.open_zset_mut(self.staging)?.persist();
        match replacement {
            None => {
                ctx.unlink(self.dest)?;
            }
            Some(Replacement::UnlinkThenRename) => {
                ctx.unlink(self.dest)?;
                ctx.rename(self.staging, self.dest)?;
            }
            Some(Replacement::RenameOver) => ctx.rename(self.staging, self.dest)?,
        }
        let mut board = ctx.open_zset_mut(self.staging)?;
        add_record(&mut board, &mut record)?;
        board.expire_at(record_expires_at)?;
        Ok(step_reply(record.reply()))
    }
}

/// Adds `record` to the staging board, salted until no member of the board
/// is spelled like it.
fn add_record(board: &mut Zset, record: &mut RunRecord) -> Result<(), ZkitError> {
    loop {
        let member = OwnedRStr::new(&record.member());
        if board.score(&member).is_none() {
            board.add(&member, RECORD_SCORE)?;
            return Ok(());
        }
        record.salt += 1;
    }
}

/// `[cursor, members]`, a step's reply (the one a run record keeps).
fn step_reply((cursor, members): (Vec<u8>, u64)) -> Reply {
    Reply::Array(vec![Reply::Bulk(cursor), Reply::Int(members as i64)])
}

/// The keys a step reads: the sources, and the run's staging board (none on
/// a run's first step, which replaces it).
struct OpenSources<'c> {
    boards: Vec<Option<Zset<'c>>>,
    staging: Option<Zset<'c>>,
}

impl StepSources for OpenSources<'_> {
    type Member = OwnedRStr;
    type Error = ZkitError;

    fn sources(&self) -> usize {
        self.boards.len()
    }

    fn read(
        &mut self,
        index: usize,
        after: Option<&Position>,
        limit: usize,
    ) -> Result<(Vec<(OwnedRStr, f64)>, bool), ZkitError> {
        let Some(board) = self.boards[index].as_mut() else {
            return Ok((Vec::new(), false));
        };
        let from = after.map_or(ScoreBound::MIN, |p| ScoreBound::Inclusive(p.score));
        let mut walk = board
            .iter_asc(from, ScoreBound::MAX)
            .skip_while(|(member, score)| {
                after.is_some_and(|p| !merge::is_after(p, *score, member.as_bytes()))
            });
        let entries = walk.by_ref().take(limit).collect();
        Ok((entries, walk.next().is_some()))
    }

    fn score(&self, index: usize, member: &OwnedRStr) -> Option<f64> {
        self.boards[index].as_ref()?.score(member)
    }

    fn is_staged(&self, member: &OwnedRStr) -> bool {
        self.staging
            .as_ref()
            .and_then(|staging| staging.score(member))
            .is_some_and(f64::is_finite)
    }
}
