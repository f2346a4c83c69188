//! RANK.SEASON: the key of the board a write lands in this day, ISO week or
//! month of a time zone, and the key of the season before, both computed
//! from the server's clock (`logic::season`). It reads and writes no key, so
//! a write then names the season's board as any other key (Cluster routes
//! it, ACL key patterns apply to it), and the season's `ttl` given as the
//! write's `TTL` keeps the finished season's standings readable for the
//! retention asked.

use super::declaration::Command;
use super::reply_types::SEASON;
use crate::error::{bound, ZkitError};
use crate::host::ctx::Ctx;
use crate::host::grammar::{Arg, Request};
use crate::host::reply::Reply;
use crate::host::reply_shape::ReplyShape as R;
use crate::host::string::RStr;
use crate::logic::clock::MAX_DURATION_MS;
use crate::logic::schedule::time_zone;
use crate::logic::season::{previous, season_at, ttl_seconds, Period, Season, SEASON_AT_LIMIT_MS};
use crate::{declare_command, request};

declare_command! {
    pub static SEASON_KEYS: Command = {
        name: "rank.season",
        handler: season_keys,
        flags: "readonly fast",
        acl_categories: "read fast",
        summary: "Returns the current season's board and the one before for a day, an ISO week or a month in time zone TZ (default UTC), at the server's clock or AT unix-ms: each as its key (base:2026-12-04, base:2026-W49, base:2026-12), the unix ms it starts at and ends before, and with KEEP the TTL in seconds a write gives the board so it goes KEEP seconds after the season ends. Reads no key.",
        complexity: "O(1)",
        since: "0.5.0",
        history: &[],
        reply: R::ArrayOf(&R::Tuple(&SEASON)),
        examples: &[
            "RANK.SEASON gifts:day DAY TZ Europe/Paris AT 1718000000000 KEEP 604800",
            "RANK.SEASON gifts:week WEEK",
            "RANK.SEASON gifts:month MONTH",
        ],
        args: &[
            Arg::string("base"),
            Arg::one_of(
                "period",
                &[
                    Arg::pure_token("day", "DAY"),
                    Arg::pure_token("week", "WEEK"),
                    Arg::pure_token("month", "MONTH"),
                ],
            ),
            Arg::string("zone").token("TZ").optional(),
            Arg::unix_time("unix-ms").token("AT").optional(),
            Arg::integer("seconds").token("KEEP").optional(),
        ],
    }
}

request! {
    /// RANK.SEASON `base <DAY | WEEK | MONTH> [TZ zone] [AT unix-ms] [KEEP
    /// seconds]`.
    struct SeasonKeys<'a> {
        base: &'a RStr = string,
        period: Period = choice(&[|_| Period::Day, |_| Period::Week, |_| Period::Month]),
        zone: Option<&'a RStr> = option(Request::string),
        at_ms: Option<i64> = option(Request::integer),
        keep_seconds: Option<i64> = option(Request::integer),
    }
}

/// -> `[[key, starts-at-ms, ends-at-ms(, ttl)], ...]`: the season holding
/// AT (or now), then the season before it.
fn season_keys(ctx: &Ctx, args: SeasonKeys<'_>) -> Result<Reply, ZkitError> {
    let zone = match args.zone {
        Some(name) => time_zone(&String::from_utf8_lossy(name.as_bytes()))?,
        None => chrono_tz::Tz::UTC,
    };
    let now_ms = ctx.now_ms();
    let at_ms = args.at_ms.unwrap_or(now_ms);
    if !(0..=SEASON_AT_LIMIT_MS).contains(&at_ms) {
        return Err(ZkitError::OutOfRange {
            what: "AT",
            limit: bound::SEASON_AT,
        });
    }
    if let Some(keep) = args.keep_seconds {
        if !(1..=MAX_DURATION_MS / 1000).contains(&keep) {
            return Err(ZkitError::OutOfRange {
                what: "KEEP",
                limit: bound::DURATION_S,
            });
        }
    }
    let current = season_at(args.period, zone, at_ms);
    let before = previous(args.period, zone, &current);
    let row = |season: &Season| {
        let mut key = args.base.as_bytes().to_vec();
        key.push(b':');
        key.extend_from_slice(season.label.as_bytes());
        let mut row = vec![
            Reply::Bulk(key),
            Reply::Int(season.start_ms),
            Reply::Int(season.end_ms),
        ];
        if let Some(keep) = args.keep_seconds {
            row.push(ttl_seconds(season, keep, now_ms).map_or(Reply::Null, Reply::Int));
        }
        Reply::Array(row)
    };
    Ok(Reply::Array(vec![row(&current), row(&before)]))
}
