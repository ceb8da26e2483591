//! Time: the autoscale profile in force now (from the spec's schedules) and the dev box's next
//! shutdown and start (with their time zones' daylight-saving rules).

use time::OffsetDateTime;

use super::model::NextRun;

/// The first time after `now` that is `minute` (after midnight, local) on one of `days`
/// (Monday = 0) in `zone`, with its daylight-saving rules (the simulator's Windows → IANA map
/// and jiff's bundled tz database; a local time that falls in a spring-forward gap moves
/// forward, as DevTest Labs and Logic Apps do). Returns (UTC, local).
pub fn next_run(
    now: OffsetDateTime,
    zone: &jiff::tz::TimeZone,
    minute: u32,
    days: &[u8],
) -> Option<(OffsetDateTime, OffsetDateTime)> {
    let now_ts = jiff::Timestamp::from_second(now.unix_timestamp()).ok()?;
    let today = now_ts.to_zoned(zone.clone()).date();
    let (h, m) = (
        i8::try_from(minute / 60).ok()?,
        i8::try_from(minute % 60).ok()?,
    );
    (0..=7)
        .filter_map(|d| today.checked_add(jiff::Span::new().days(d)).ok())
        .filter(|date| days.contains(&(date.weekday().to_monday_zero_offset() as u8)))
        .filter_map(|date| date.at(h, m, 0, 0).to_zoned(zone.clone()).ok())
        .find(|t| t.timestamp() > now_ts)
        .and_then(|t| {
            let utc = OffsetDateTime::from_unix_timestamp(t.timestamp().as_second()).ok()?;
            let off = time::UtcOffset::from_whole_seconds(t.offset().seconds()).ok()?;
            Some((utc, utc.to_offset(off)))
        })
}

fn day_index(name: &str) -> Option<u8> {
    [
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
    ]
    .iter()
    .position(|d| *d == name)
    .map(|i| i as u8)
}

fn next_of(
    now: OffsetDateTime,
    name: &str,
    time_zone: &str,
    minute: u32,
    days: &[u8],
    when: String,
) -> NextRun {
    let next = crate::simulate::tz::zone(time_zone).and_then(|z| next_run(now, &z, minute, days));
    NextRun {
        name: name.to_string(),
        when,
        time_zone: time_zone.to_string(),
        next: next.map(|(u, _)| rfc3339(u)),
        next_local: next.map(|(_, l)| {
            format!(
                "{:04}-{:02}-{:02} {:02}:{:02}",
                l.year(),
                u8::from(l.month()),
                l.day(),
                l.hour(),
                l.minute()
            )
        }),
    }
}

/// The dev box's schedule from the plan: next shutdown (every day) and next start (its days).
pub fn devbox_schedule(d: &crate::plan::DevBox, now: OffsetDateTime) -> (NextRun, NextRun) {
    let stop = d
        .shutdown
        .time
        .parse::<u32>()
        .ok()
        .map(|t| t / 100 * 60 + t % 100);
    let all: Vec<u8> = (0..7).collect();
    let shutdown = match stop {
        Some(m) => next_of(
            now,
            &d.shutdown.name,
            &d.shutdown.time_zone,
            m,
            &all,
            format!("{} every day", d.shutdown.time_label),
        ),
        None => NextRun {
            name: d.shutdown.name.clone(),
            when: d.shutdown.time_label.clone(),
            time_zone: d.shutdown.time_zone.clone(),
            next: None,
            next_local: None,
        },
    };
    let days: Vec<u8> = d
        .start
        .week_days
        .iter()
        .filter_map(|w| day_index(w))
        .collect();
    let when = if days.len() == 7 {
        format!("{} every day", d.start.time_label)
    } else {
        format!("{} on {}", d.start.time_label, d.start.week_days.join(", "))
    };
    let start = next_of(
        now,
        &d.start.workflow_name,
        &d.start.time_zone,
        d.start.hour * 60 + d.start.minute,
        &days,
        when,
    );
    (shutdown, start)
}

/// Minute of the week in UTC, Monday 00:00 = 0 (the frame of `spec::schedule::week`).
pub fn minute_of_week(t: OffsetDateTime) -> u32 {
    let t = t.to_offset(time::UtcOffset::UTC);
    u32::from(t.weekday().number_days_from_monday()) * 1440
        + u32::from(t.hour()) * 60
        + u32::from(t.minute())
}

/// The profile in force at `now`: (name, min, max, default). The same model `simulate` and the
/// idle alert's "profile minimum now" use (`simulate::engine::Setting::timeline`: each recurring
/// profile starts in its Windows time zone with daylight saving, jiff's tz database; the most
/// recent start is in force), read from the plan's emitted autoscale setting, so `status` never
/// disagrees with them across a DST change.
pub fn active_profile(
    autoscale: &crate::plan::Autoscale,
    now: OffsetDateTime,
) -> Option<(String, u32, u32, u32)> {
    let setting = crate::simulate::engine::Setting::from_plan(autoscale).ok()?;
    let at = jiff::Timestamp::from_second(now.unix_timestamp()).ok()?;
    let i = *setting.timeline(at, 1).first()? as usize;
    let p = setting.profiles.get(i)?;
    Some((p.name.clone(), p.min, p.max, p.default))
}

pub(super) fn rfc3339(t: OffsetDateTime) -> String {
    t.replace_nanosecond(0)
        .unwrap_or(t)
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dev_box_schedule_follows_daylight_saving() {
        let zone = crate::simulate::tz::zone("W. Europe Standard Time").unwrap();
        let every_day: Vec<u8> = (0..7).collect();
        // Friday 3 July 2026, 12:00 UTC: 19:00 CEST is 17:00 UTC (standard time would say 18:00)
        let summer = OffsetDateTime::from_unix_timestamp(1_783_080_000).unwrap();
        let (utc, local) = next_run(summer, &zone, 19 * 60, &every_day).unwrap();
        assert_eq!(
            (utc.hour(), local.hour(), local.offset().whole_hours()),
            (17, 19, 2)
        );
        // Friday 4 December 2026, 12:00 UTC: 19:00 CET is 18:00 UTC
        let winter = OffsetDateTime::from_unix_timestamp(1_796_385_600).unwrap();
        let (utc, local) = next_run(winter, &zone, 19 * 60, &every_day).unwrap();
        assert_eq!(
            (utc.hour(), local.hour(), local.offset().whole_hours()),
            (18, 19, 1)
        );
        // Monday-to-Friday starts skip the weekend: Saturday 08:00 → Monday 08:00
        let saturday = OffsetDateTime::from_unix_timestamp(1_796_385_600 + 86_400).unwrap();
        let (_, local) = next_run(saturday, &zone, 8 * 60, &[0, 1, 2, 3, 4]).unwrap();
        assert_eq!(local.weekday(), time::Weekday::Monday);
    }

    #[test]
    fn minute_of_week_counts_from_monday_utc() {
        let t = time::macros::datetime!(2026-12-02 10:30 UTC); // a Wednesday
        assert_eq!(minute_of_week(t), 2 * 1440 + 630);
        let t = time::macros::datetime!(2026-12-07 00:00 +08:00); // Monday 00:00 in Beijing = Sunday 16:00 UTC
        assert_eq!(minute_of_week(t), 6 * 1440 + 16 * 60);
    }
}
