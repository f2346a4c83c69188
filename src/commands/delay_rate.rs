//! DELAY.POLL and DELAY.BPOLL with `RATE log window-ms limit`: claims that
//! spend a RATE window, as RATE.HIT would, and claim only what it allows;
//! nothing is spent when nothing is due (src/commands/delay.rs claims).

use crate::error::ZkitError;
use crate::host::ctx::Ctx;
use crate::host::string::OwnedRStr;
use crate::host::string::RStr;
use crate::host::zset::ScoreBound;
use crate::host::zset::Zset;

use crate::logic::delay::DelayError;
use crate::logic::family;
use crate::logic::rate::{expire_at, hit_member, retry_after_ms, Decision, Limit};
use smallvec::SmallVec;

/// `RATE log window-ms limit`: at most `limit` tasks claimed in any
/// `window-ms`, counted in the RATE log `log`.
pub(super) struct RateArgs<K> {
    pub(super) log: K,
    pub(super) limit: Limit,
}

impl RateArgs<&RStr> {
    pub(super) fn to_owned(&self) -> RateArgs<OwnedRStr> {
        RateArgs {
            log: OwnedRStr::new(self.log.as_bytes()),
            limit: self.limit,
        }
    }
}

impl RateArgs<OwnedRStr> {
    pub(super) fn borrowed(&self) -> RateArgs<&RStr> {
        RateArgs {
            log: &self.log,
            limit: self.limit,
        }
    }
}

/// The RATE log must be a set of its own: a queue or a set the claim
/// writes (`written`) would have its tasks read as hits, or its hits as
/// tasks.
pub(super) fn check_rate_log_key<'k>(
    log: &RStr,
    mut written: impl Iterator<Item = &'k [u8]>,
) -> Result<(), ZkitError> {
    let log = log.as_bytes();
    match written.any(|key| key == log) {
        true => Err(DelayError::SharedRateLog.into()),
        false => Ok(()),
    }
}

/// What a RATE window allows now.
pub(super) enum WindowRoom {
    /// This many more claims.
    Free(usize),
    /// None until `retry_after_ms` from now.
    Full { retry_after_ms: i64 },
}

/// How many tasks the RATE window allows at `now`, from its log's entries
/// inside the window (`logic::rate`'s arithmetic); reads only.
pub(super) fn window_room(
    ctx: &Ctx,
    rate: &RateArgs<&RStr>,
    now: i64,
) -> Result<WindowRoom, ZkitError> {
    let limit = rate.limit;
    let Some(mut log) = ctx.open_zset(rate.log)? else {
        return Ok(WindowRoom::Free(limit.limit as usize));
    };
    check_is_rate_log(&mut log)?;
    let oldest_kept = crate::logic::rate::cutoff(now, limit.window_ms);
    let live: Vec<f64> = log
        .iter_asc(ScoreBound::Exclusive(oldest_kept as f64), ScoreBound::MAX)
        .map(|(_, score)| score)
        .collect();
    Ok(
        match crate::logic::rate::decide(live.len() as u64, 1, limit.limit) {
            Decision::Allowed => WindowRoom::Free((limit.limit - live.len() as u64) as usize),
            Decision::Refused { blocking } => WindowRoom::Full {
                retry_after_ms: live
                    .get(blocking as usize - 1)
                    .map_or(1, |&score| retry_after_ms(score, limit.window_ms, now)),
            },
        },
    )
}

/// Refuses a RATE log that holds another family's data, from its lowest
/// and newest elements, as RATE.HIT does.
fn check_is_rate_log(log: &mut Zset<'_>) -> Result<(), ZkitError> {
    let lowest: SmallVec<[(OwnedRStr, f64); 2]> = log
        .iter_asc(ScoreBound::MIN, ScoreBound::MAX)
        .take(2)
        .collect();
    let newest = log.iter_desc(ScoreBound::MIN, ScoreBound::MAX).next();
    let elements: SmallVec<[family::Element<'_>; 2]> = lowest
        .iter()
        .map(|(member, score)| (member.as_bytes(), *score))
        .collect();
    let newest = newest
        .as_ref()
        .map(|(member, score)| (member.as_bytes(), *score));
    Ok(family::check_rate_log(&elements, newest)?)
}

/// Logs `units` claims at `now` in the RATE log, as RATE.HIT logs a hit of
/// that cost: entries that left the window go, one entry per unit, and the
/// log expires when its newest entry leaves the window.
pub(super) fn spend(
    ctx: &Ctx,
    rate: &RateArgs<&RStr>,
    now: i64,
    units: u64,
) -> Result<(), ZkitError> {
    let window_ms = rate.limit.window_ms;
    let mut log = ctx.open_zset_mut(rate.log)?;
    log.remove_up_to(crate::logic::rate::cutoff(now, window_ms));
    let newest = log
        .iter_desc(ScoreBound::MIN, ScoreBound::MAX)
        .next()
        .map_or(f64::NEG_INFINITY, |(_, score)| score);
    let at = ScoreBound::Inclusive(now as f64);
    let mut seq = log.iter_asc(at, at).count() as u64;
    let mut logged = 0;
    while logged < units {
        let member = OwnedRStr::new(&hit_member(now, seq));
        if log.add_new(&member, now as f64)? {
            logged += 1;
        }
        seq += 1;
    }
    log.expire_at(expire_at(now, newest, window_ms))?;
    Ok(())
}
