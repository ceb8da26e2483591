//! Instance-hours: the spec's autoscale profiles laid over one UTC week, counted in three cases
//! (everything at each profile's min, the expected count, everything at max), split into regular
//! and spot instances by the priority mix, and scaled to a month.

use serde::Serialize;

use crate::plan::Compute;
use crate::spec::model::{Capacity, WorkloadSpec};
use crate::spec::schedule::{self, MINUTES_PER_WEEK, Origin, Profile};

/// Hours in the month the estimate prices: 8760 / 12, the convention Azure's calculator uses.
pub const HOURS_PER_MONTH: f64 = 730.0;
pub const HOURS_PER_WEEK: f64 = 168.0;

/// One figure per case.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, serde::Deserialize)]
pub struct Cases<T> {
    pub low: T,
    pub expected: T,
    pub high: T,
}

impl<T: Copy> Cases<T> {
    pub fn all(v: T) -> Self {
        Self {
            low: v,
            expected: v,
            high: v,
        }
    }

    pub fn map<U>(self, f: impl Fn(T) -> U) -> Cases<U> {
        Cases {
            low: f(self.low),
            expected: f(self.expected),
            high: f(self.high),
        }
    }

    pub fn zip<U: Copy, V>(self, o: Cases<U>, f: impl Fn(T, U) -> V) -> Cases<V> {
        Cases {
            low: f(self.low, o.low),
            expected: f(self.expected, o.expected),
            high: f(self.high, o.high),
        }
    }
}

impl std::ops::Add for Cases<f64> {
    type Output = Cases<f64>;
    fn add(self, o: Cases<f64>) -> Cases<f64> {
        self.zip(o, |a, b| a + b)
    }
}

impl Cases<f64> {
    pub fn scale(self, k: f64) -> Cases<f64> {
        self.map(|a| a * k)
    }
}

/// The expected instance count while `p` applies: the profile's default count (what the pool
/// holds when the queue is quiet, and what it starts each profile with), plus `utilization`
/// (0..=1) of the headroom between that count and the profile's max.
pub fn expected_count(p: &Profile, utilization: f64) -> f64 {
    let d = p.default.clamp(p.min, p.max) as f64;
    d + utilization.clamp(0.0, 1.0) * (p.max as f64 - d)
}

/// How the scale set splits its instances between regular and Spot priority, as rendered.
#[derive(Debug, Clone, PartialEq)]
pub enum Priority {
    /// No Spot.
    Regular,
    /// Every instance on Spot: a Uniform scale set has no priority mix.
    Spot,
    /// Flexible's priority mix; the capacity carries the plan's base and percentage and
    /// Azure's rounding ([`Capacity::regular_of`]).
    Mix(Capacity),
}

impl Priority {
    /// The split of the plan's scale set (`cap`: the spec's capacity, for the rounding rule).
    pub fn of(compute: &Compute, cap: &Capacity) -> Self {
        match compute.spot.as_ref().map(|s| s.mix.as_ref()) {
            None => Priority::Regular,
            Some(None) => Priority::Spot,
            Some(Some(m)) => {
                let mut c = cap.clone();
                c.regular_base = m.base_regular;
                c.regular_percent_above_base = m.regular_percent_above_base;
                Priority::Mix(c)
            }
        }
    }

    fn regular_of(&self, n: u32) -> u32 {
        match self {
            Priority::Regular => n,
            Priority::Spot => 0,
            Priority::Mix(c) => c.regular_of(n),
        }
    }
}

/// Regular-priority instances among `n` (exact for whole counts; linear between the
/// neighbouring whole counts for an average such as 2.5).
pub fn regular_share(p: &Priority, n: f64) -> f64 {
    if n <= 0.0 {
        return 0.0;
    }
    let lo = n.floor();
    let hi = n.ceil();
    let r_lo = p.regular_of(lo as u32) as f64;
    if hi == lo {
        return r_lo;
    }
    let r_hi = p.regular_of(hi as u32) as f64;
    r_lo + (n - lo) * (r_hi - r_lo)
}

/// A stretch of the week with its counts.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentUse {
    /// UTC minutes since Monday 00:00.
    pub start: u32,
    pub end: u32,
    pub profile: usize,
    pub hours: f64,
    pub count: Cases<f64>,
    pub regular: Cases<f64>,
    pub spot: Cases<f64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileUse {
    pub name: String,
    /// `default`, `schedule`, `scheduleEnd`, `autoShutdown`, `autoStart`.
    pub kind: &'static str,
    pub min: u32,
    pub max: u32,
    pub default: u32,
    pub expected_count: f64,
    pub hours_per_week: f64,
    /// Instance-hours per month in each case.
    pub instance_hours: Cases<f64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub profiles: Vec<ProfileUse>,
    pub segments: Vec<SegmentUse>,
    /// Per month.
    pub instance_hours: Cases<f64>,
    pub regular_hours: Cases<f64>,
    pub spot_hours: Cases<f64>,
}

fn kind(o: Origin) -> &'static str {
    match o {
        Origin::Default => "default",
        Origin::ScheduleStart(_) => "schedule",
        Origin::ScheduleEnd(_) => "scheduleEnd",
        Origin::ShutdownStop => "autoShutdown",
        Origin::ShutdownStart => "autoStart",
    }
}

/// Walk the spec's week (the plan's autoscale profiles come from the same
/// [`schedule::profiles`]), splitting each count by `priority`.
pub fn usage(s: &WorkloadSpec, priority: &Priority, utilization: f64) -> Usage {
    let profiles = schedule::profiles(s);
    let week = schedule::week(&profiles);
    let scale = HOURS_PER_MONTH / HOURS_PER_WEEK;
    let mut segments = Vec::with_capacity(week.len());
    let mut per_profile = vec![(0.0f64, Cases::<f64>::default()); profiles.len()];
    for seg in &week {
        let p = &profiles[seg.profile];
        let hours = f64::from(seg.end - seg.start) / 60.0;
        let count = Cases {
            low: p.min as f64,
            expected: expected_count(p, utilization),
            high: p.max as f64,
        };
        let regular = count.map(|n| regular_share(priority, n));
        let spot = count.zip(regular, |n, r| n - r);
        per_profile[seg.profile].0 += hours;
        per_profile[seg.profile].1 = per_profile[seg.profile].1 + count.scale(hours * scale);
        segments.push(SegmentUse {
            start: seg.start,
            end: seg.end,
            profile: seg.profile,
            hours,
            count,
            regular,
            spot,
        });
    }
    debug_assert_eq!(
        week.iter().map(|s| s.end - s.start).sum::<u32>(),
        MINUTES_PER_WEEK
    );
    let sum = |f: &dyn Fn(&SegmentUse) -> Cases<f64>| {
        segments.iter().fold(Cases::<f64>::default(), |acc, sg| {
            acc + f(sg).scale(sg.hours * scale)
        })
    };
    let instance_hours = sum(&|s| s.count);
    let regular_hours = sum(&|s| s.regular);
    let spot_hours = sum(&|s| s.spot);
    let profiles = profiles
        .iter()
        .zip(per_profile)
        .map(|(p, (h, ih))| ProfileUse {
            name: p.name.clone(),
            kind: kind(p.origin),
            min: p.min,
            max: p.max,
            default: p.default,
            expected_count: expected_count(p, utilization),
            hours_per_week: h,
            instance_hours: ih,
        })
        .collect();
    Usage {
        profiles,
        segments,
        instance_hours,
        regular_hours,
        spot_hours,
    }
}

impl Usage {
    /// A pool that does not scale: its low and high cases are its expected one, and each
    /// profile's min and max are the count it holds.
    pub fn fix_at_expected(&mut self) {
        fn fix(c: &mut Cases<f64>) {
            c.low = c.expected;
            c.high = c.expected;
        }
        fix(&mut self.instance_hours);
        fix(&mut self.regular_hours);
        fix(&mut self.spot_hours);
        for p in &mut self.profiles {
            fix(&mut p.instance_hours);
            // nothing scales it: the profile's min and max are the count it holds, not the
            // range the spec's capacity allows an autoscale setting
            let count = p.expected_count.round() as u32;
            p.min = count;
            p.max = count;
        }
        for s in &mut self.segments {
            fix(&mut s.count);
            fix(&mut s.regular);
            fix(&mut s.spot);
        }
    }
}

/// Regular instance-hours per month a reservation of `n` instances would cover in the expected
/// case (a reservation applies to at most `n` running regular instances in any hour).
pub fn reservation_coverage(u: &Usage, n: u32) -> f64 {
    let scale = HOURS_PER_MONTH / HOURS_PER_WEEK;
    u.segments
        .iter()
        .map(|s| s.regular.expected.min(n as f64) * s.hours * scale)
        .sum()
}

/// The regular instances that run every hour of the week in the expected case.
pub fn always_on_regular(u: &Usage) -> u32 {
    u.segments
        .iter()
        .map(|s| s.regular.expected.floor() as u32)
        .min()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::model::EvictionPolicy;

    fn cap(min: u32, max: u32, base: u32, pct: u32) -> Capacity {
        Capacity {
            min,
            max,
            default: None,
            regular_base: base,
            regular_percent_above_base: pct,
            spot_max_price_per_hour: -1.0,
            eviction_policy: EvictionPolicy::Delete,
        }
    }

    #[test]
    fn regular_share_matches_azure_on_whole_counts_and_interpolates() {
        // Microsoft's Spot Priority Mix page (facts::spot::SOURCE), scenario 2: base 10, 25 %,
        // 20 VMs -> "2.5 rounded to 2" extra standard, 8 Spot
        let s2 = &Priority::Mix(cap(0, 120, 10, 25));
        assert_eq!(regular_share(s2, 20.0), 12.0);
        assert_eq!(regular_share(s2, 120.0), 37.0);
        // scenario 1: base 10, 50 %, 41 VMs -> 15 extra standard, 16 Spot
        let s1 = &Priority::Mix(cap(0, 44, 10, 50));
        assert_eq!(regular_share(s1, 41.0), 25.0);
        assert_eq!(regular_share(s1, 42.0), 26.0);
        let c = &Priority::Mix(cap(0, 10, 2, 50));
        assert_eq!(regular_share(c, 0.0), 0.0);
        assert_eq!(regular_share(c, 2.0), 2.0);
        // 3 instances: base 2 + floor(50% of 1) = 2
        assert_eq!(regular_share(c, 3.0), 2.0);
        // 4: 2 + floor(50% of 2) = 3
        assert_eq!(regular_share(c, 4.0), 3.0);
        // 3.5: halfway between 2 (at 3) and 3 (at 4)
        assert_eq!(regular_share(c, 3.5), 2.5);
        // 4.5: halfway between 3 (at 4) and 3 (at 5: 2 + floor(1.5))
        assert_eq!(regular_share(c, 4.5), 3.0);
        assert_eq!(regular_share(&Priority::Regular, 4.5), 4.5);
        assert_eq!(regular_share(&Priority::Spot, 4.5), 0.0);
    }
}
