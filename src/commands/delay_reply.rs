//! What DELAY.POLL and DELAY.BPOLL answer, written straight to the client
//! (the claim that makes it is `delay.rs`'s).

use super::jobs::JobInfo;
use crate::host::ctx::Ctx;
use crate::host::reply::WriteReply;
use crate::host::string::OwnedRStr;
use crate::logic::delay::Tasks;

/// What a poll answers: `[[member, due-ms], ...]` (due-ms as ZSCORE prints
/// it), with a token `[[member, due-ms, token], ...]`, written straight to
/// the client; for a blocking poll, nil on timeout or nothing yet (blocked).
pub(super) enum Polled {
    Tasks {
        tasks: Tasks<OwnedRStr>,
        token: Option<i64>,
        /// With RATE: replied after the tasks, as `[tasks, retry-after-ms]`.
        retry_after_ms: Option<i64>,
        /// With WITHDATA: each task's payload and deliveries, replied as
        /// `[member, due-ms, token, payload, deliveries]`.
        jobs: Option<Vec<JobInfo>>,
    },
    TimedOut,
    Blocked,
}

impl WriteReply for Polled {
    fn write(&self, ctx: &Ctx) {
        if let Polled::Tasks {
            retry_after_ms: Some(retry_after_ms),
            ..
        } = self
        {
            ctx.reply_array(2);
            self.write_tasks(ctx);
            ctx.reply_i64(*retry_after_ms);
            return;
        }
        self.write_tasks(ctx);
    }
}

impl Polled {
    fn write_tasks(&self, ctx: &Ctx) {
        match self {
            Polled::Tasks {
                tasks,
                token,
                jobs: None,
                ..
            } => {
                ctx.reply_array(tasks.len());
                for (task, due) in tasks {
                    ctx.reply_array(2 + token.is_some() as usize);
                    ctx.reply_str(task);
                    ctx.reply_f64(*due);
                    if let Some(token) = token {
                        ctx.reply_i64(*token);
                    }
                }
            }
            Polled::Tasks {
                tasks,
                token,
                jobs: Some(jobs),
                ..
            } => {
                ctx.reply_array(tasks.len());
                for ((task, due), job) in tasks.iter().zip(jobs) {
                    ctx.reply_array(5);
                    ctx.reply_str(task);
                    ctx.reply_f64(*due);
                    match token {
                        Some(token) => ctx.reply_i64(*token),
                        None => ctx.reply_null(),
                    }
                    match &job.payload {
                        Some(payload) => ctx.reply_str(payload),
                        None => ctx.reply_null(),
                    }
                    match job.deliveries {
                        Some(n) => ctx.reply_i64(n),
                        None => ctx.reply_null(),
                    }
                }
            }
            Polled::TimedOut => ctx.reply_null_array(),
            Polled::Blocked => {}
        }
    }
}
