//! Repeating jobs: a schedule (every N ms, or a cron expression in a time
//! zone) and the occurrences it puts in its queue, one at a time.
//!
//! Each occurrence is a task of its own, named `<schedule id>@<unix ms>`
//! (the occurrence's time), so a queue holds it at most once and "exactly
//! once per occurrence" is the queue's dedup by task id. The schedule keeps
//! the time of its pending occurrence; the claim that takes the pending one
//! puts the next one in the queue, in the same call, so the chain of
//! occurrences lives in the data (queue and DATA hash) and survives restarts
//! and failovers with it. A redelivered or retried occurrence is no longer
//! the pending one, and schedules nothing.
//!
//! Missed occurrences (no worker claimed for a while): the pending one runs
//! once, late, and the next is the first occurrence after the claim; the
//! ones in between are skipped.

use std::str::FromStr;

use chrono::{TimeZone, Utc};
use chrono_tz::Tz;
use croner::parser::{CronParser, Seconds, Year};
use croner::Cron;

use crate::logic::clock::MAX_DURATION_MS;
use crate::logic::jobs::MAX_DUE_MS;

/// How a schedule repeats.
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// Every `ms` milliseconds, on the grid of its first occurrence.
    Every { ms: i64 },
    /// At the times a five-field cron expression matches in a time zone.
    Cron { expression: String, zone: Tz },
}

/// A schedule that cannot work as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScheduleError {
    /// The cron expression does not parse (the parser's reason).
    BadCron(String),
    /// The cron expression matches no time from the start on.
    NeverMatches,
    /// No IANA time zone of that name.
    UnknownZone(String),
    /// `TZ` given with `EVERY`: an interval has no time zone.
    ZoneWithoutCron,
}

impl Rule {
    /// An interval of 1 ms to 100 years, or `None`.
    pub fn every(ms: i64) -> Option<Rule> {
        (1..=MAX_DURATION_MS)
            .contains(&ms)
            .then_some(Rule::Every { ms })
    }

    /// A cron rule: five fields (minute, hour, day of month, month, day of
    /// week; lists, ranges, steps and names as in crontab(5)), in the zone
    /// named (`UTC` when none). The cron parser's own extensions (seconds,
    /// years) are refused, so a rule means what crontab says it means.
    pub fn cron(expression: &str, zone: Option<&str>) -> Result<Rule, ScheduleError> {
        parse_cron(expression)?;
        Ok(Rule::Cron {
            expression: expression.to_string(),
            zone: zone.map_or(Ok(Tz::UTC), time_zone)?,
        })
    }

    /// The rule as the DATA hash keeps it: `every <ms>` or `cron <zone>
    /// <expression>`.
    pub fn text(&self) -> String {
        match self {
            Rule::Every { ms } => format!("every {ms}"),
            Rule::Cron { expression, zone } => format!("cron {} {expression}", zone.name()),
        }
    }

    /// The rule [`Rule::text`] wrote; `None` for anything else.
    pub fn parse(text: &[u8]) -> Option<Rule> {
        let text = std::str::from_utf8(text).ok()?;
        let (kind, rest) = text.split_once(' ')?;
        match kind {
            "every" => Rule::every(rest.parse().ok()?),
            "cron" => {
                let (zone, expression) = rest.split_once(' ')?;
                Rule::cron(expression, Some(zone)).ok()
            }
            _ => None,
        }
    }

    /// The first occurrence at or after `start_ms`: the start itself for an
    /// interval, the first matching minute for cron; `None` when there is
    /// none a due time can hold.
    pub fn first(&self, start_ms: i64) -> Option<i64> {
        match self {
            Rule::Every { .. } => Some(start_ms),
            Rule::Cron { .. } => self.cron_after(start_ms - 1),
        }
    }

    /// The occurrence after the one at `occurrence_ms`, claimed at `now_ms`:
    /// the first one later than both (missed ones are skipped). `None` when
    /// there is none a due time can hold: the schedule has ended.
    pub fn next(&self, occurrence_ms: i64, now_ms: i64) -> Option<i64> {
        let after = occurrence_ms.max(now_ms);
        match self {
            Rule::Every { ms } => {
                // On the grid of the occurrence: the first point past `after`.
                let steps = (after - occurrence_ms) / ms + 1;
                let next = occurrence_ms.checked_add(steps.checked_mul(*ms)?)?;
                (next <= MAX_DUE_MS).then_some(next)
            }
            Rule::Cron { .. } => self.cron_after(after),
        }
    }

    /// The first cron time later than `after_ms`.
    fn cron_after(&self, after_ms: i64) -> Option<i64> {
        let Rule::Cron { expression, zone } = self else {
            return None;
        };
        let cron = parse_cron(expression).ok()?;
        let after = Utc.timestamp_millis_opt(after_ms).single()?;
        let next = cron
            .find_next_occurrence(&after.with_timezone(zone), false)
            .ok()?;
        let ms = next.timestamp_millis();
        (0..=MAX_DUE_MS).contains(&ms).then_some(ms)
    }
}

/// The IANA time zone of that name (as cron rules and seasons read `TZ`).
pub fn time_zone(name: &str) -> Result<Tz, ScheduleError> {
    Tz::from_str(name).map_err(|_| ScheduleError::UnknownZone(name.to_string()))
}

/// A five-field cron expression, parsed.
fn parse_cron(expression: &str) -> Result<Cron, ScheduleError> {
    CronParser::builder()
        .seconds(Seconds::Disallowed)
        .year(Year::Disallowed)
        .build()
        .parse(expression)
        .map_err(|e| ScheduleError::BadCron(e.to_string()))
}

/// The task id of the occurrence of schedule `id` at `at_ms`.
pub fn occurrence_task(id: &[u8], at_ms: i64) -> Vec<u8> {
    let mut task = Vec::with_capacity(id.len() + 21);
    task.extend_from_slice(id);
    task.push(b'@');
    task.extend_from_slice(itoa::Buffer::new().format(at_ms).as_bytes());
    task
}

/// The schedule id and occurrence time a task id names, if it has that
/// shape (`<id>@<unix ms>`, split at the last `@`). Whether it is an
/// occurrence is for the schedule to say: its pending occurrence has this
/// very id.
pub fn occurrence_of(task: &[u8]) -> Option<(&[u8], i64)> {
    let at = task.iter().rposition(|&b| b == b'@')?;
    let (id, time) = (&task[..at], &task[at + 1..]);
    if time.is_empty() || time.len() > 16 || !time.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let ms = std::str::from_utf8(time).ok()?.parse().ok()?;
    Some((id, ms))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// 2026-11-02 00:00:00 UTC, a Monday.
    const MONDAY: i64 = 1_793_577_600_000;
    const MINUTE: i64 = 60_000;
    const HOUR: i64 = 60 * MINUTE;

    #[test]
    fn an_interval_repeats_on_the_grid_of_its_first_occurrence() {
        let rule = Rule::every(1_000).unwrap();
        assert_eq!(rule.first(5_000), Some(5_000));
        // Claimed on time: the next point.
        assert_eq!(rule.next(5_000, 5_000), Some(6_000));
        assert_eq!(rule.next(5_000, 5_999), Some(6_000));
        // Claimed late: it ran once; the missed ones are skipped.
        assert_eq!(rule.next(5_000, 6_000), Some(7_000));
        assert_eq!(rule.next(5_000, 9_500), Some(10_000));
        // Claimed early (a due time in the past was scored now): still the grid.
        assert_eq!(rule.next(5_000, 4_000), Some(6_000));
        assert_eq!(Rule::every(0), None);
        assert_eq!(Rule::every(MAX_DURATION_MS + 1), None);
        assert_eq!(Rule::every(2).unwrap().next(MAX_DUE_MS - 1, 0), None);
    }

    #[test]
    fn a_cron_rule_follows_its_time_zone() {
        let utc = Rule::cron("0 9 * * MON-FRI", None).unwrap();
        assert_eq!(utc.first(MONDAY), Some(MONDAY + 9 * HOUR));
        assert_eq!(
            utc.next(MONDAY + 9 * HOUR, MONDAY + 9 * HOUR),
            Some(MONDAY + 33 * HOUR)
        );
        // 09:00 in Paris is 08:00 UTC in November (CET, UTC+1).
        let paris = Rule::cron("0 9 * * *", Some("Europe/Paris")).unwrap();
        assert_eq!(paris.first(MONDAY), Some(MONDAY + 8 * HOUR));
        // Friday's run, claimed late on Monday: the next is Monday's.
        let friday = MONDAY - 3 * 24 * HOUR + 9 * HOUR;
        assert_eq!(
            utc.next(friday, MONDAY + 10 * HOUR),
            Some(MONDAY + 33 * HOUR)
        );
        assert_eq!(
            Rule::cron("*/15 * * * *", None).unwrap().first(MONDAY + 1),
            Some(MONDAY + 15 * MINUTE)
        );
    }

    #[test]
    fn cron_rules_are_five_fields_in_a_known_zone() {
        assert!(matches!(
            Rule::cron("0 0 9 * * *", None),
            Err(ScheduleError::BadCron(_))
        ));
        assert!(matches!(
            Rule::cron("not cron", None),
            Err(ScheduleError::BadCron(_))
        ));
        assert_eq!(
            Rule::cron("0 9 * * *", Some("Mars/Olympus")),
            Err(ScheduleError::UnknownZone("Mars/Olympus".into()))
        );
        let never = Rule::cron("0 0 30 2 *", None).unwrap();
        assert_eq!(never.first(MONDAY), None);
    }

    #[test]
    fn the_rule_reads_back_as_written() {
        for rule in [
            Rule::every(250).unwrap(),
            Rule::cron("0 9 * * MON-FRI", Some("America/New_York")).unwrap(),
        ] {
            assert_eq!(Rule::parse(rule.text().as_bytes()), Some(rule));
        }
        assert_eq!(Rule::parse(b"every x"), None);
        assert_eq!(Rule::parse(b"hourly"), None);
    }

    #[test]
    fn an_occurrence_names_its_schedule_and_time() {
        let task = occurrence_task(b"report@daily", 1_795_314_800_000);
        assert_eq!(task, b"report@daily@1795314800000");
        assert_eq!(
            occurrence_of(&task),
            Some((&b"report@daily"[..], 1_795_314_800_000))
        );
        assert_eq!(occurrence_of(b"mail:17"), None);
        assert_eq!(occurrence_of(b"a@"), None);
        assert_eq!(occurrence_of(b"a@-5"), None);
        assert_eq!(occurrence_of(b"a@12x"), None);
    }

    proptest! {
        #[test]
        fn the_next_occurrence_is_the_first_grid_point_after_both(
            first in 0i64..(1 << 45),
            ms in 1i64..1_000_000,
            late in 0i64..10_000_000,
        ) {
            let rule = Rule::every(ms).unwrap();
            let now = first + late;
            let next = rule.next(first, now).unwrap();
            prop_assert!(next > now && next > first);
            prop_assert_eq!((next - first) % ms, 0);
            prop_assert!(next - ms <= now);
        }
    }
}
