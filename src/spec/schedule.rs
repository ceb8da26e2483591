//! The autoscale profiles a spec implies, and the week they lay out.
//!
//! Azure autoscale semantics (Microsoft.Insights/autoscalesettings 2022-10-01): a recurring
//! profile has no end; it stays in force until the next profile's start. So every schedule
//! becomes two recurring profiles, one with the schedule's limits at its start and one that
//! restores the default limits at its end; `autoShutdown` becomes a scale-to-zero profile and a
//! restore profile. The render emits these profiles and the cost estimate walks the same week.
//!
//! Two profiles must never start at the same instant: where they do, Azure uses "only the first
//! applicable profile" (Learn, autoscale-understanding-settings / autoscale-multiprofile), so a
//! restore profile listed before a schedule that starts at its minute would cancel that
//! schedule. [`profiles`] therefore leaves a restore profile out on the days another profile
//! starts at the same instant (same time zone, or the same UTC instant across zones), and
//! [`same_start_conflicts`] finds the two schedules (or a schedule and `autoShutdown`) that
//! start at the same instant, which validation refuses (`schedule-same-start`).

use serde::Serialize;

use super::model::{Day, WorkloadSpec};
use super::timezones::{offset_minutes, parse_hhmm};

pub const MINUTES_PER_WEEK: u32 = 7 * 24 * 60;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "index")]
pub enum Origin {
    /// The profile that applies when no schedule has started.
    Default,
    ScheduleStart(usize),
    ScheduleEnd(usize),
    ShutdownStop,
    ShutdownStart,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Recurrence {
    pub time_zone: String,
    pub days: Vec<Day>,
    pub hour: u32,
    pub minute: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    /// Profile name as rendered (unique within the setting).
    pub name: String,
    pub origin: Origin,
    pub recurrence: Option<Recurrence>,
    pub min: u32,
    pub max: u32,
    pub default: u32,
    /// The queue rules apply in this profile (not in scale-to-zero profiles).
    pub has_rules: bool,
}

/// Does the pool get an autoscale setting? (Only with `autoscale` or `autoShutdown`; otherwise
/// it is a fixed-size pool at `capacity.default`.)
pub fn has_setting(s: &WorkloadSpec) -> bool {
    s.autoscale.is_some() || s.auto_shutdown.is_some()
}

/// The profiles of the autoscale setting, default first. Times that fail to parse are skipped
/// (the rules report them).
pub fn profiles(s: &WorkloadSpec) -> Vec<Profile> {
    let c = &s.capacity;
    // the queue or request rules (scale out, scale in) apply in every profile but scale-to-zero
    let has_rules = s
        .autoscale
        .as_ref()
        .is_some_and(|a| a.queue.is_some() || a.requests.is_some() || a.gpu_utilization.is_some());
    let mut out = vec![Profile {
        name: "default".into(),
        origin: Origin::Default,
        recurrence: None,
        min: c.min,
        max: c.max,
        default: c.default_count(),
        has_rules,
    }];
    let restore = |name: String, origin: Origin, rec: Recurrence| Profile {
        name,
        origin,
        recurrence: Some(rec),
        min: c.min,
        max: c.max,
        default: c.default_count(),
        has_rules,
    };
    if let Some(a) = &s.autoscale {
        for (i, sched) in a.schedules.iter().enumerate() {
            let (Some(start), Some(end)) = (parse_hhmm(&sched.start), parse_hhmm(&sched.end))
            else {
                continue;
            };
            let end_days: Vec<Day> = if end <= start {
                sched.days.iter().map(|d| d.next()).collect()
            } else {
                sched.days.clone()
            };
            out.push(Profile {
                name: sched.name.clone(),
                origin: Origin::ScheduleStart(i),
                recurrence: Some(Recurrence {
                    time_zone: sched.time_zone.clone(),
                    days: sorted(sched.days.clone()),
                    hour: start / 60,
                    minute: start % 60,
                }),
                min: sched.min,
                max: sched.max,
                default: sched.default.unwrap_or(sched.min),
                has_rules,
            });
            out.push(restore(
                format!("{} (end)", sched.name),
                Origin::ScheduleEnd(i),
                Recurrence {
                    time_zone: sched.time_zone.clone(),
                    days: sorted(end_days),
                    hour: end / 60,
                    minute: end % 60,
                },
            ));
        }
    }
    if let Some(sd) = &s.auto_shutdown
        && let (Some(stop), Some(start)) = (parse_hhmm(&sd.time), parse_hhmm(&sd.start_time))
    {
        let days: Vec<Day> = if sd.weekends {
            Day::WEEKDAYS.to_vec()
        } else {
            Day::ALL.to_vec()
        };
        out.push(Profile {
            name: "auto-shutdown".into(),
            origin: Origin::ShutdownStop,
            recurrence: Some(Recurrence {
                time_zone: sd.time_zone.clone(),
                days: days.clone(),
                hour: stop / 60,
                minute: stop % 60,
            }),
            min: 0,
            max: 0,
            default: 0,
            has_rules: false,
        });
        out.push(restore(
            "auto-start".into(),
            Origin::ShutdownStart,
            Recurrence {
                time_zone: sd.time_zone.clone(),
                days,
                hour: start / 60,
                minute: start % 60,
            },
        ));
    }
    drop_shadowed_restores(out)
}

/// Does the profile restore the default limits (the end of a schedule, autoShutdown's start)?
fn is_restore(o: Origin) -> bool {
    matches!(o, Origin::ScheduleEnd(_) | Origin::ShutdownStart)
}

/// The UTC minutes since Monday 00:00 at which `r` starts, one per day (standard offsets, as in
/// [`week`]); `None` for a time zone autoscale does not know (validation reports it).
pub fn start_instants(r: &Recurrence) -> Option<Vec<(Day, u32)>> {
    let offset = offset_minutes(&r.time_zone)?;
    Some(
        r.days
            .iter()
            .map(|d| {
                let local = d.index() as i64 * 1440 + i64::from(r.hour) * 60 + i64::from(r.minute);
                let utc = (local - i64::from(offset)).rem_euclid(i64::from(MINUTES_PER_WEEK));
                (*d, utc as u32)
            })
            .collect(),
    )
}

/// Leave out each restore profile's days on which another profile starts at the same instant:
/// a schedule (or autoShutdown's stop) that starts there takes over anyway, and an earlier
/// restore profile already restores the same limits. A restore profile left with no day is
/// dropped. Azure would otherwise apply whichever of the two comes first in the list.
fn drop_shadowed_restores(profiles: Vec<Profile>) -> Vec<Profile> {
    // the instants taken: a list, not a set (Azure allows 20 profiles per setting,
    // `facts::autoscale::MAX_PROFILES_PER_SETTING`, of at most 7 days each, so a scan is short;
    // a spec over that limit, which a rule refuses, only makes it longer; a tree set per spec
    // was ~0.5 % of `validate`'s CPU, issue 41)
    let mut taken: Vec<u32> = profiles
        .iter()
        .filter(|p| !is_restore(p.origin))
        .filter_map(|p| p.recurrence.as_ref().and_then(start_instants))
        .flatten()
        .map(|(_, t)| t)
        .collect();
    let mut out = Vec::with_capacity(profiles.len());
    for mut p in profiles {
        if is_restore(p.origin)
            && let Some(r) = p.recurrence.as_mut()
            && let Some(instants) = start_instants(r)
        {
            let keep: Vec<Day> = instants
                .iter()
                .filter(|(_, t)| !taken.contains(t))
                .map(|(d, _)| *d)
                .collect();
            taken.extend(instants.iter().map(|(_, t)| *t));
            if keep.is_empty() {
                continue;
            }
            r.days = keep;
        }
        out.push(p);
    }
    out
}

/// What starts a profile at a given instant, for [`same_start_conflicts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Starter {
    Schedule(usize),
    AutoShutdown,
}

/// Pairs of schedules (or a schedule and autoShutdown's stop) that start at the same instant,
/// with the day (in the first one's time zone) of the first clash. Azure would apply only the
/// first of the two profiles; which one the spec means is ambiguous.
pub fn same_start_conflicts(s: &WorkloadSpec) -> Vec<(Starter, Starter, Day)> {
    let mut starts: Vec<(Starter, Vec<(Day, u32)>)> = Vec::new();
    for p in profiles(s) {
        let who = match p.origin {
            Origin::ScheduleStart(i) => Starter::Schedule(i),
            Origin::ShutdownStop => Starter::AutoShutdown,
            _ => continue,
        };
        if let Some(inst) = p.recurrence.as_ref().and_then(start_instants) {
            starts.push((who, inst));
        }
    }
    let mut out = Vec::new();
    for (k, (a, ia)) in starts.iter().enumerate() {
        for (b, ib) in &starts[k + 1..] {
            if let Some((d, _)) = ia.iter().find(|(_, t)| ib.iter().any(|(_, u)| u == t)) {
                out.push((*a, *b, *d));
            }
        }
    }
    out
}

fn sorted(mut days: Vec<Day>) -> Vec<Day> {
    days.sort();
    days.dedup();
    days
}

/// A stretch of the week (UTC minutes since Monday 00:00) during which one profile applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Segment {
    pub start: u32,
    pub end: u32,
    /// Index into [`profiles`].
    pub profile: usize,
}

/// Lay the profiles over one week in UTC: each recurring profile applies from its start until
/// the next start. With no recurring profile, the default profile applies all week.
/// Time zones use their standard offsets (daylight saving moves a window by an hour for part of
/// the year but does not change its length).
pub fn week(profiles: &[Profile]) -> Vec<Segment> {
    let mut starts: Vec<(u32, usize)> = Vec::new();
    for (i, p) in profiles.iter().enumerate() {
        let Some(r) = &p.recurrence else { continue };
        let Some(offset) = offset_minutes(&r.time_zone) else {
            continue;
        };
        for d in &r.days {
            let local = d.index() as i64 * 1440 + i64::from(r.hour) * 60 + i64::from(r.minute);
            let utc = (local - i64::from(offset)).rem_euclid(i64::from(MINUTES_PER_WEEK)) as u32;
            starts.push((utc, i));
        }
    }
    if starts.is_empty() {
        return vec![Segment {
            start: 0,
            end: MINUTES_PER_WEEK,
            profile: 0,
        }];
    }
    // at equal start times Azure uses only the first applicable profile in the setting's list
    // (Learn, autoscale-understanding-settings); `profiles` never emits two such starts, and
    // validation refuses the schedules that would (`schedule-same-start`)
    starts.sort_by_key(|(t, i)| (*t, *i));
    starts.dedup_by_key(|(t, _)| *t);
    let mut segs = Vec::new();
    let last = starts.last().unwrap().1;
    if starts[0].0 > 0 {
        // the week wraps: the last profile started on the previous Sunday is still in force
        segs.push(Segment {
            start: 0,
            end: starts[0].0,
            profile: last,
        });
    }
    for (k, (t, i)) in starts.iter().enumerate() {
        let end = starts.get(k + 1).map_or(MINUTES_PER_WEEK, |n| n.0);
        if end > *t {
            segs.push(Segment {
                start: *t,
                end,
                profile: *i,
            });
        }
    }
    segs
}

/// UTC minute intervals of a schedule's windows over the week (split at the week's end).
fn windows(s: &WorkloadSpec, i: usize) -> Vec<(u32, u32)> {
    let Some(sched) = s.autoscale.as_ref().and_then(|a| a.schedules.get(i)) else {
        return vec![];
    };
    let (Some(start), Some(end), Some(offset)) = (
        parse_hhmm(&sched.start),
        parse_hhmm(&sched.end),
        offset_minutes(&sched.time_zone),
    ) else {
        return vec![];
    };
    let len = if end > start {
        end - start
    } else {
        end + 1440 - start
    };
    let mut out = Vec::new();
    for d in &sched.days {
        let s0 = (d.index() as i64 * 1440 + i64::from(start) - i64::from(offset))
            .rem_euclid(i64::from(MINUTES_PER_WEEK)) as u32;
        let e0 = s0 + len;
        if e0 <= MINUTES_PER_WEEK {
            out.push((s0, e0));
        } else {
            out.push((s0, MINUTES_PER_WEEK));
            out.push((0, e0 - MINUTES_PER_WEEK));
        }
    }
    out
}

/// Pairs of schedules whose windows intersect.
pub fn overlaps(s: &WorkloadSpec) -> Vec<(usize, usize)> {
    let n = s.autoscale.as_ref().map_or(0, |a| a.schedules.len());
    let w: Vec<_> = (0..n).map(|i| windows(s, i)).collect();
    let mut out = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if w[i]
                .iter()
                .any(|a| w[j].iter().any(|b| a.0 < b.1 && b.0 < a.1))
            {
                out.push((i, j));
            }
        }
    }
    out
}

/// A duration as people write it, in milliseconds: ISO 8601 (`PT2M`, `PT0.5S`; a lowercase `pt2m`
/// too) or a short form (`800ms`, `2s`, `1.5s`, `10m`, `1h`, `2h30m`, `1d`): the one parser of
/// durations, [`super::duration::millis`]. `None` for anything else, an empty text, or an overflow.
pub fn parse_duration_millis(s: &str) -> Option<u64> {
    super::duration::millis(s)
}

/// Parse a duration as the command line takes it: ISO 8601 (`PT2M`, `PT45S`) or a short form
/// (`10m`, `90s`, `1h`, `2h30m`). Returns whole seconds (`None` for a fraction of a second).
pub fn parse_flag_duration(s: &str) -> Option<u64> {
    super::duration::seconds(s)
}

/// A duration (ISO 8601 `PT5M`, `P1D`, `PT1H30M`, or a short form `5m`, `2d`) in whole seconds:
/// the one grammar of [`super::duration`].
pub fn parse_duration(s: &str) -> Option<u64> {
    super::duration::seconds(s)
}
