//! Schedule learning (issue 22, item 6): from an arrival trace of two weeks or more, the
//! instances each local hour of the week needs to meet the wait target, and the few recurring
//! schedules (start a little ahead of the peak, by the provisioning delay) that hold them.
//!
//! The hours are read in the spec's time zone with daylight saving (the tz database bundled by
//! jiff, as the engine and `status` read profiles), so a peak at local 18:00 stays at 18:00 on
//! both sides of a clock change. Pure functions: the evaluation is in `schedule.rs`.

use jiff::tz::TimeZone;

use super::super::load::Trace;
use crate::spec::model::{Day, Schedule};

/// Schedule learning needs at least this many days of arrivals (two of each hour of the week).
pub const MIN_DAYS: usize = 14;
const HOURS_PER_WEEK: usize = 168;
/// Which of a bucket's occurrences it takes: the second highest (a level reached in at least two
/// weeks, so a one-off burst does not become a schedule; with two weeks, the level of both).
const RANK_FROM_TOP: usize = 2;

/// What each local hour of the week needs (Monday 00:00-01:00 is bucket 0).
#[derive(Debug, Clone, PartialEq)]
pub struct Needs {
    /// Instances needed per hour-of-week bucket (its second-highest occurrence).
    pub instances: Vec<u32>,
    /// Occurrences of each bucket in the trace (whole weeks mostly).
    pub weeks: usize,
    /// Whole days the trace covers.
    pub days: usize,
}

/// Whole days in the trace.
pub fn days(trace: &Trace) -> usize {
    trace.minutes() / (24 * 60)
}

/// The instances needed in each local hour of the week. An hour needs as many instances as the
/// busiest `wait`-minute stretch inside it keeps busy (arrival rate over the stretch x job time,
/// divided by the jobs one instance runs at once): a queue may absorb shorter bursts within the
/// wait target. Each bucket takes the level reached in at least two of its occurrences.
pub fn needs(
    trace: &Trace,
    zone: &TimeZone,
    job_seconds: u64,
    concurrency: u32,
    wait_minutes: u32,
) -> Needs {
    let n = trace.minutes();
    let w = wait_minutes.clamp(1, 60) as usize;
    let mut prefix = Vec::with_capacity(n + 1);
    prefix.push(0u64);
    for a in &trace.arrivals {
        prefix.push(prefix.last().copied().unwrap_or(0) + u64::from(*a));
    }
    let slots_per_job = job_seconds as f64 / 60.0;
    let per_instance = f64::from(concurrency.max(1));
    // one occurrence per local (date, hour): its highest need
    let mut occ: Vec<Vec<u32>> = vec![Vec::new(); HOURS_PER_WEEK];
    let mut current: Option<(jiff::civil::Date, i8, usize)> = None;
    let mut peak = 0u32;
    let mut hour_start = 0usize;
    for i in 0..n {
        let Ok(ts) = trace
            .start
            .checked_add(jiff::SignedDuration::from_secs(i as i64 * 60))
        else {
            break;
        };
        let local = ts.to_zoned(zone.clone());
        let (date, hour) = (local.date(), local.hour());
        let bucket =
            local.weekday().to_monday_zero_offset() as usize * 24 + hour.clamp(0, 23) as usize;
        if current.is_some_and(|(d, h, _)| (d, h) != (date, hour)) {
            if let Some((_, _, b)) = current {
                occ[b].push(peak);
            }
            peak = 0;
            hour_start = i;
        }
        current = Some((date, hour, bucket));
        // the stretch ends here and stays inside the hour (arrivals of the hour before are
        // that hour's need)
        let from = (i + 1).saturating_sub(w).max(hour_start);
        let rate = (prefix[i + 1] - prefix[from]) as f64 / w as f64;
        let need = (rate * slots_per_job / per_instance - 1e-9).ceil().max(0.0) as u32;
        peak = peak.max(need);
    }
    if let Some((_, _, b)) = current {
        occ[b].push(peak);
    }
    let weeks = occ.iter().map(Vec::len).max().unwrap_or(0);
    let instances = occ
        .into_iter()
        .map(|mut v| {
            if v.is_empty() {
                return 0;
            }
            v.sort_unstable();
            v[v.len().saturating_sub(RANK_FROM_TOP)]
        })
        .collect();
    Needs {
        instances,
        weeks,
        days: days(trace),
    }
}

/// How the needs become schedules.
#[derive(Debug, Clone)]
pub struct Shape<'a> {
    /// The spec's time zone (Windows name, as the schedules take it).
    pub time_zone: &'a str,
    /// Each schedule minimum is this share of the learned need (the search tries a few).
    pub factor: f64,
    /// The reactive policy's own floor outside the schedules (`capacity.min`).
    pub base_min: u32,
    /// The pool's maximum (every schedule's `max`).
    pub max: u32,
    /// Start each schedule this many minutes ahead of its first hour (pre-warming).
    pub lead_minutes: u32,
    /// At most this many schedules (each renders two autoscale profiles).
    pub limit: usize,
}

/// One run of hours that need more than the reactive floor, on one or more days.
#[derive(Debug, Clone, PartialEq)]
struct Group {
    days: Vec<Day>,
    /// Local hours `start..end` (an end past 24 is the next day's hour).
    start: u32,
    end: u32,
    min: u32,
    weight: f64,
}

/// The learned schedules: per local day, the runs of hours whose need (x `factor`) is above the
/// reactive floor and at least half the week's peak; runs with the same hours on several days
/// become one schedule (its minimum the highest of theirs); the `limit` heaviest (extra
/// instance-hours) are kept. Each starts `lead_minutes` ahead of its first hour.
pub fn schedules(needs: &Needs, shape: &Shape) -> Vec<Schedule> {
    let level: Vec<u32> = needs
        .instances
        .iter()
        .map(|n| ((f64::from(*n) * shape.factor).ceil() as u32).min(shape.max))
        .collect();
    let peak = level.iter().copied().max().unwrap_or(0);
    let threshold = (shape.base_min + 1).max(peak.div_ceil(2));
    if peak <= shape.base_min {
        return Vec::new();
    }
    let hot = |b: usize| level[b % HOURS_PER_WEEK] >= threshold;
    // runs on the circular week, from an hour that is not hot (none: a flat floor, which is
    // `capacity.min`'s job, not a schedule's)
    let Some(anchor) = (0..HOURS_PER_WEEK).find(|b| !hot(*b)) else {
        return Vec::new();
    };
    let mut groups: Vec<Group> = Vec::new();
    let mut i = anchor + 1;
    while i <= anchor + HOURS_PER_WEEK {
        if !hot(i) {
            i += 1;
            continue;
        }
        let first = i;
        while hot(i) {
            i += 1;
        }
        let len = i - first;
        if len >= 24 {
            continue; // a day or more: a floor, not a window
        }
        let b = first % HOURS_PER_WEEK;
        let day = Day::ALL[b / 24];
        let (s, e) = ((b % 24) as u32, (b % 24 + len) as u32);
        let run: Vec<u32> = (first..i).map(|k| level[k % HOURS_PER_WEEK]).collect();
        let min = run.iter().copied().max().unwrap_or(0);
        let weight: f64 = run
            .iter()
            .map(|l| f64::from(l.saturating_sub(shape.base_min)))
            .sum();
        match groups.iter_mut().find(|g| g.start == s && g.end == e) {
            Some(g) => {
                g.days.push(day);
                g.min = g.min.max(min);
                g.weight += weight;
            }
            None => groups.push(Group {
                days: vec![day],
                start: s,
                end: e,
                min,
                weight,
            }),
        }
    }
    groups.sort_by(|a, b| b.weight.total_cmp(&a.weight));
    groups.truncate(shape.limit);
    groups.sort_by_key(|g| (Day::ALL.iter().position(|d| *d == g.days[0]), g.start));
    let mut names: Vec<String> = Vec::new();
    groups
        .into_iter()
        .map(|g| {
            let mut start = (g.start * 60) as i64 - i64::from(shape.lead_minutes);
            let mut days = g.days.clone();
            if start < 0 {
                // the lead crosses midnight: the schedule starts the day before
                start += 24 * 60;
                days = days.iter().map(|d| previous(*d)).collect();
            }
            days.sort_by_key(|d| Day::ALL.iter().position(|x| x == d));
            let mut name = format!("learned-{}-{}", days_word(&days), hours_word(g.start));
            if names.contains(&name) {
                name = format!("{name}-{}", names.len() + 1);
            }
            names.push(name.clone());
            Schedule {
                name,
                time_zone: shape.time_zone.to_string(),
                days,
                start: hhmm(start as u32),
                end: hhmm((g.end * 60) % (24 * 60)),
                min: g.min.min(shape.max),
                max: shape.max,
                default: None,
            }
        })
        .collect()
}

fn hhmm(m: u32) -> String {
    format!("{:02}:{:02}", m / 60, m % 60)
}

fn previous(d: Day) -> Day {
    let i = Day::ALL.iter().position(|x| *x == d).unwrap_or(0);
    Day::ALL[(i + 6) % 7]
}

fn days_word(days: &[Day]) -> String {
    let has = |d: &[Day]| d.iter().all(|x| days.contains(x)) && days.len() == d.len();
    if days.len() == 7 {
        "daily".into()
    } else if has(&Day::ALL[..5]) {
        "weekday".into()
    } else if has(&Day::ALL[5..]) {
        "weekend".into()
    } else {
        days.iter()
            .map(|d| format!("{d:?}")[..3].to_ascii_lowercase())
            .collect::<Vec<_>>()
            .join("-")
    }
}

fn hours_word(h: u32) -> &'static str {
    match h {
        5..=11 => "morning",
        12..=16 => "afternoon",
        17..=22 => "evening",
        _ => "night",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weekday_evening_trace(weeks: usize, start: &str, zone: &TimeZone) -> Trace {
        let start: jiff::Timestamp = start.parse().unwrap();
        let n = weeks * 7 * 24 * 60;
        let arrivals = (0..n)
            .map(|i| {
                let t = start
                    .checked_add(jiff::SignedDuration::from_secs(i as i64 * 60))
                    .unwrap()
                    .to_zoned(zone.clone());
                let weekday = t.weekday().to_monday_zero_offset() < 5;
                if weekday && (18..22).contains(&t.hour()) {
                    40
                } else {
                    2
                }
            })
            .collect();
        Trace {
            start,
            arrivals,
            missing: vec![false; n],
            source: "test".into(),
        }
    }

    #[test]
    fn a_weekday_evening_peak_becomes_one_pre_warmed_schedule() {
        let zone = TimeZone::get("Europe/Amsterdam").unwrap();
        let t = weekday_evening_trace(3, "2026-11-01T23:00:00Z", &zone);
        let n = needs(&t, &zone, 120, 4, 10);
        assert_eq!(n.days, 21);
        assert_eq!(n.weeks, 3);
        // 40 jobs/min x 2 min / 4 per instance = 20 instances at the peak, 1 outside it
        assert_eq!(n.instances[18], 20);
        assert_eq!(n.instances[12], 1);
        assert_eq!(n.instances[5 * 24 + 19], 1, "no peak on Saturday");
        let s = schedules(
            &n,
            &Shape {
                time_zone: "W. Europe Standard Time",
                factor: 1.0,
                base_min: 1,
                max: 30,
                lead_minutes: 10,
                limit: 4,
            },
        );
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!(s[0].name, "learned-weekday-evening");
        assert_eq!(s[0].days, Day::ALL[..5].to_vec());
        assert_eq!((s[0].start.as_str(), s[0].end.as_str()), ("17:50", "22:00"));
        assert_eq!((s[0].min, s[0].max), (20, 30));
    }

    #[test]
    fn a_lead_across_midnight_moves_the_days_back() {
        let mut instances = vec![0; 168];
        instances[24] = 5; // Tuesday 00:00-01:00
        let n = Needs {
            instances,
            weeks: 2,
            days: 14,
        };
        let s = schedules(
            &n,
            &Shape {
                time_zone: "UTC",
                factor: 1.0,
                base_min: 0,
                max: 8,
                lead_minutes: 15,
                limit: 4,
            },
        );
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].days, vec![Day::Monday]);
        assert_eq!((s[0].start.as_str(), s[0].end.as_str()), ("23:45", "01:00"));
    }

    #[test]
    fn flat_load_learns_nothing() {
        let n = Needs {
            instances: vec![2; 168],
            weeks: 2,
            days: 14,
        };
        let shape = Shape {
            time_zone: "UTC",
            factor: 1.0,
            base_min: 2,
            max: 8,
            lead_minutes: 8,
            limit: 4,
        };
        assert!(schedules(&n, &shape).is_empty());
    }
}
