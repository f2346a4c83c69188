//! Seasons: a board per day, ISO week or month of a time zone's calendar,
//! named by its period (`gifts:day:2026-12-04`, `gifts:week:2026-W49`,
//! `gifts:month:2026-12`), so every write of a season lands in one plain
//! key and the last season's key stays readable beside the current one.
//!
//! A season starts at the first instant the zone's clock reads its first
//! day (midnight, or the end of the gap when the clock skips midnight) and
//! ends where the next one starts, so the seasons tile time with no gap and
//! no overlap, also when a clock is set back across midnight.

use chrono::offset::LocalResult;
use chrono::{Datelike, Months, NaiveDate, Offset, TimeZone, Utc};
use chrono_tz::Tz;

/// The latest time a season is computed for: the end of 9998 in UTC, so
/// every season's label has a four-digit year in any zone.
pub const SEASON_AT_LIMIT_MS: i64 = 253_370_764_799_999;

const DAY_MS: i64 = 86_400_000;

/// How long a season lasts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    Day,
    /// An ISO week: Monday to Sunday, numbered in its ISO year.
    Week,
    Month,
}

/// One season: its name in a key (after the base and a colon) and the unix
/// ms it starts at and ends before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Season {
    pub label: String,
    pub start_ms: i64,
    pub end_ms: i64,
}

impl Period {
    /// The first day of the season holding `day`.
    fn first_day(self, day: NaiveDate) -> NaiveDate {
        match self {
            Period::Day => day,
            Period::Week => {
                day - chrono::Days::new(u64::from(day.weekday().num_days_from_monday()))
            }
            Period::Month => day.with_day(1).expect("day 1 exists"),
        }
    }

    /// The first day of the season after the one starting on `first`.
    fn next_first(self, first: NaiveDate) -> NaiveDate {
        match self {
            Period::Day => first + chrono::Days::new(1),
            Period::Week => first + chrono::Days::new(7),
            Period::Month => first + Months::new(1),
        }
    }

    fn label(self, first: NaiveDate) -> String {
        match self {
            Period::Day => first.format("%Y-%m-%d").to_string(),
            Period::Week => {
                let week = first.iso_week();
                format!("{}-W{:02}", week.year(), week.week())
            }
            Period::Month => first.format("%Y-%m").to_string(),
        }
    }
}

/// The season of `period` in `zone` that holds `at_ms` (0 to
/// [`SEASON_AT_LIMIT_MS`]).
pub fn season_at(period: Period, zone: Tz, at_ms: i64) -> Season {
    let local = Utc
        .timestamp_millis_opt(at_ms)
        .single()
        .expect("a time in chrono's range")
        .with_timezone(&zone)
        .date_naive();
    let mut first = period.first_day(local);
    let mut next = period.next_first(first);
    let mut end_ms = day_start_ms(zone, next);
    // A clock set back across midnight reads the old day again after the
    // new season started: that time is the new season's.
    if end_ms <= at_ms {
        first = next;
        next = period.next_first(first);
        end_ms = day_start_ms(zone, next);
    }
    Season {
        label: period.label(first),
        start_ms: day_start_ms(zone, first),
        end_ms,
    }
}

/// The season before `season`.
pub fn previous(period: Period, zone: Tz, season: &Season) -> Season {
    season_at(period, zone, season.start_ms - 1)
}

/// The seconds from `now_ms` to `keep_seconds` after the season's end,
/// rounded up: the `TTL` a write gives the season's board so that it goes
/// that long after the season; `None` once that time has come.
pub fn ttl_seconds(season: &Season, keep_seconds: i64, now_ms: i64) -> Option<i64> {
    let left_ms = season.end_ms + keep_seconds * 1000 - now_ms;
    (left_ms > 0).then(|| (left_ms + 999) / 1000)
}

/// The first instant at which `zone`'s clock reads `day` (or later).
fn day_start_ms(zone: Tz, day: NaiveDate) -> i64 {
    let midnight = day.and_hms_opt(0, 0, 0).expect("midnight exists");
    match zone.from_local_datetime(&midnight) {
        LocalResult::Single(at) | LocalResult::Ambiguous(at, _) => at.timestamp_millis(),
        LocalResult::None => {
            // The clock skips midnight: the season starts where the gap
            // ends, the first instant whose wall clock is past midnight.
            let wall_ms = midnight.and_utc().timestamp_millis();
            let reads_day = |at_ms: i64| {
                let at = Utc.timestamp_millis_opt(at_ms).single().expect("in range");
                at_ms
                    + i64::from(
                        zone.offset_from_utc_datetime(&at.naive_utc())
                            .fix()
                            .local_minus_utc(),
                    ) * 1000
                    >= wall_ms
            };
            let (mut before, mut after) = (wall_ms - DAY_MS, wall_ms + DAY_MS);
            while after - before > 1 {
                let middle = before + (after - before) / 2;
                if reads_day(middle) {
                    after = middle;
                } else {
                    before = middle;
                }
            }
            after
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ms(text: &str) -> i64 {
        chrono::DateTime::parse_from_rfc3339(text)
            .unwrap()
            .timestamp_millis()
    }

    fn zone(name: &str) -> Tz {
        name.parse().unwrap()
    }

    #[test]
    fn a_day_in_a_zone_starts_at_its_midnight() {
        let paris = zone("Europe/Paris");
        let day = season_at(Period::Day, paris, ms("2026-12-04T22:59:59.999Z"));
        assert_eq!(day.label, "2026-12-04");
        assert_eq!(day.start_ms, ms("2026-12-03T23:00:00Z"));
        assert_eq!(day.end_ms, ms("2026-12-04T23:00:00Z"));
        let next = season_at(Period::Day, paris, ms("2026-12-04T23:00:00Z"));
        assert_eq!(next.label, "2026-12-05");
        assert_eq!(previous(Period::Day, paris, &next), day);
        // A spring day lasts 23 hours, an autumn one 25.
        let spring = season_at(Period::Day, paris, ms("2026-03-29T12:00:00Z"));
        assert_eq!(spring.end_ms - spring.start_ms, 23 * 3_600_000);
        let autumn = season_at(Period::Day, paris, ms("2026-10-25T12:00:00Z"));
        assert_eq!(autumn.end_ms - autumn.start_ms, 25 * 3_600_000);
    }

    #[test]
    fn weeks_are_iso_weeks_and_months_calendar_months() {
        let utc = Tz::UTC;
        // 2026-12-31 is a Thursday in week 53 of 2026; 2027-01-03 a Sunday in it.
        let week = season_at(Period::Week, utc, ms("2027-01-03T10:00:00Z"));
        assert_eq!(week.label, "2026-W53");
        assert_eq!(week.start_ms, ms("2026-12-28T00:00:00Z"));
        assert_eq!(week.end_ms, ms("2027-01-04T00:00:00Z"));
        // 2024-12-30 (a Monday) starts 2025's first week.
        assert_eq!(
            season_at(Period::Week, utc, ms("2024-12-31T00:00:00Z")).label,
            "2025-W01"
        );
        let month = season_at(
            Period::Month,
            zone("Asia/Tokyo"),
            ms("2026-11-30T15:00:00Z"),
        );
        assert_eq!(month.label, "2026-12");
        assert_eq!(month.start_ms, ms("2026-11-30T15:00:00Z"));
        assert_eq!(month.end_ms, ms("2026-12-31T15:00:00Z"));
        let february = previous(
            Period::Month,
            utc,
            &season_at(Period::Month, utc, ms("2028-03-01T00:00:00Z")),
        );
        assert_eq!(
            (february.label.as_str(), february.end_ms - february.start_ms),
            ("2028-02", 29 * DAY_MS)
        );
        // The first week from 1970 starts before it.
        let first = season_at(Period::Week, utc, 0);
        assert_eq!(
            (first.label.as_str(), first.start_ms),
            ("1970-W01", -3 * DAY_MS)
        );
    }

    #[test]
    fn a_clock_that_skips_midnight_starts_the_day_after_the_gap() {
        // America/Havana moved to summer time at midnight (00:00 -> 01:00)
        // on 2026-03-08.
        let havana = zone("America/Havana");
        let day = season_at(Period::Day, havana, ms("2026-03-08T12:00:00Z"));
        assert_eq!(day.label, "2026-03-08");
        assert_eq!(day.start_ms, ms("2026-03-08T05:00:00Z"));
        assert_eq!(previous(Period::Day, havana, &day).end_ms, day.start_ms);
    }

    #[test]
    fn a_clock_set_back_at_midnight_repeats_the_old_days_last_hour() {
        // America/Sao_Paulo left summer time at midnight on 2018-02-18: its
        // clock went from 23:59:59 back to 23:00 of the 17th, so the 17th
        // lasted 25 hours and the 18th began at its one midnight.
        let sao_paulo = zone("America/Sao_Paulo");
        let season = season_at(Period::Day, sao_paulo, ms("2018-02-18T02:30:00Z"));
        assert_eq!(season.label, "2018-02-17");
        assert_eq!(season.end_ms - season.start_ms, 25 * 3_600_000);
        assert_eq!(season.end_ms, ms("2018-02-18T03:00:00Z"));
    }

    #[test]
    fn ttls_reach_past_the_season_by_the_kept_seconds() {
        let season = Season {
            label: "d".into(),
            start_ms: 0,
            end_ms: 10_000,
        };
        assert_eq!(ttl_seconds(&season, 60, 5_000), Some(65));
        assert_eq!(ttl_seconds(&season, 60, 5_001), Some(65));
        assert_eq!(ttl_seconds(&season, 60, 69_999), Some(1));
        assert_eq!(ttl_seconds(&season, 60, 70_000), None);
    }

    proptest! {
        #[test]
        fn seasons_tile_time(at in 0i64..SEASON_AT_LIMIT_MS, zone_index in 0usize..chrono_tz::TZ_VARIANTS.len(), period in 0..3) {
            let zone = chrono_tz::TZ_VARIANTS[zone_index];
            let period = [Period::Day, Period::Week, Period::Month][period as usize];
            let season = season_at(period, zone, at);
            prop_assert!(season.start_ms <= at && at < season.end_ms);
            prop_assert_eq!(previous(period, zone, &season).end_ms, season.start_ms);
            prop_assert_eq!(&season_at(period, zone, season.end_ms - 1), &season);
            prop_assert_eq!(season.label.len(), match period { Period::Day => 10, Period::Week => 8, Period::Month => 7 });
        }
    }
}
