//! Load variants (issue 22): the trace a `--tune` candidate is also scored on, changed in the
//! conservative direction, so a tuned policy does not fit one trace's peaks to the minute.
//!
//! Two changes, each deterministic: more arrivals (every minute's count scaled up, the rounding
//! carried so the total is the scaled total and no minute gets fewer jobs than it had), and the
//! whole pattern earlier (every count moved `earlier_minutes` minutes ahead, the first ones
//! wrapping to the end, so the total is kept and each peak comes before the schedules and the
//! metric history expect it). The trace's start and length are kept, so profiles, time zones
//! and daylight saving are evaluated at the same UTC minutes as the nominal trace's.

use serde::Serialize;

use super::trace::Trace;

/// How a load variant changes the trace; the default changes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadChange {
    /// Arrivals this many percent above the trace's (0: as traced).
    pub percent_more: u32,
    /// The pattern this many minutes earlier (0: as traced).
    pub earlier_minutes: u32,
    /// Each block of this many minutes arrives in its first minute (0 or 1: as traced): steeper
    /// rises at the same hourly level.
    pub bunched_minutes: u32,
    /// A surge of this many minutes in each week's quietest hour: arrivals rise within 5 minutes
    /// to the trace's busiest hourly rate (0: none), the flash crowd the trace did not have.
    pub surge_minutes: u32,
}

impl LoadChange {
    pub fn is_nominal(&self) -> bool {
        *self == LoadChange::default()
    }

    /// The variant's name in the tune's output, e.g. "arrivals +10 %, 30 min earlier".
    pub fn label(&self) -> String {
        let mut parts = Vec::new();
        if self.percent_more > 0 {
            parts.push(format!("arrivals +{} %", self.percent_more));
        }
        if self.earlier_minutes > 0 {
            parts.push(format!("load {} min earlier", self.earlier_minutes));
        }
        if self.bunched_minutes > 1 {
            parts.push(format!("arrivals bunched per {} min", self.bunched_minutes));
        }
        if self.surge_minutes > 0 {
            parts.push(format!(
                "a {}-min surge to the peak rate in each week's quietest hour",
                self.surge_minutes
            ));
        }
        parts.join(", ")
    }

    /// The changed trace (a copy; `trace` itself is left as it is).
    pub fn apply(&self, trace: &Trace) -> Trace {
        let mut t = trace.clone();
        if self.is_nominal() || t.arrivals.is_empty() {
            return t;
        }
        if self.earlier_minutes > 0 {
            let k = self.earlier_minutes as usize % t.arrivals.len();
            t.arrivals.rotate_left(k);
            t.missing.rotate_left(k);
        }
        if self.percent_more > 0 {
            // the running total scaled, each minute the difference of its floors: the minute
            // totals add up to floor(total x factor), and none falls below its own count
            let (num, den) = (100 + u64::from(self.percent_more), 100u64);
            let mut cum = 0u64;
            for a in t.arrivals.iter_mut() {
                let before = cum * num / den;
                cum += u64::from(*a);
                *a = u32::try_from(cum * num / den - before).unwrap_or(u32::MAX);
            }
        }
        if self.bunched_minutes > 1 {
            for block in t.arrivals.chunks_mut(self.bunched_minutes as usize) {
                let sum: u32 = block.iter().fold(0u32, |a, b| a.saturating_add(*b));
                block.fill(0);
                block[0] = sum;
            }
        }
        if self.surge_minutes > 0 {
            surge(&mut t.arrivals, self.surge_minutes as usize);
        }
        t.source = format!("{} ({})", t.source, self.label());
        t
    }
}

/// Minutes over which the busiest and the quietest rate are averaged.
const HOUR: usize = 60;
/// Minutes a surge takes to reach its rate.
const SURGE_RISE: usize = 5;

/// Add a surge to each week (or the whole trace when shorter): from the start of its quietest
/// hour, `minutes` long, rising over [`SURGE_RISE`] minutes to the trace's busiest hourly rate;
/// no minute is lowered.
fn surge(arrivals: &mut [u32], minutes: usize) {
    let n = arrivals.len();
    if n < HOUR {
        return;
    }
    let mut prefix = Vec::with_capacity(n + 1);
    prefix.push(0u64);
    for a in arrivals.iter() {
        prefix.push(prefix.last().copied().unwrap_or(0) + u64::from(*a));
    }
    let hour = |i: usize| prefix[i + HOUR] - prefix[i];
    let peak = (0..=n - HOUR).map(hour).max().unwrap_or(0) as f64 / HOUR as f64;
    const WEEK: usize = 7 * 1440;
    let mut from = 0;
    while from + HOUR <= n {
        let to = (from + WEEK).min(n);
        let last = to.saturating_sub(minutes.max(HOUR)).max(from);
        let quiet = (from..=last)
            .min_by_key(|&i| hour(i.min(n - HOUR)))
            .unwrap_or(from);
        for k in 0..minutes.min(n - quiet) {
            let rate = peak * ((k + 1) as f64 / SURGE_RISE as f64).min(1.0);
            let a = &mut arrivals[quiet + k];
            *a = (*a).max(rate.round() as u32);
        }
        from = to;
    }
}
