//! The clairvoyant lower bound.
//!
//! Definition. A policy *meets the target* `W` on a trace of `H` minutes with `N` jobs when at
//! least `ceil(q·N)` jobs start within `W` minutes of their arrival (`q` = 0.95 for a p95 target;
//! nearest-rank percentile, as the results report it). Every job occupies one of the
//! `concurrentJobsPerInstance` slots of a provisioned instance for `jobDuration` minutes.
//!
//! Bound. Let `M` be the jobs arriving early enough that, if they meet the target, they finish
//! inside the trace (`arrival + W + jobDuration <= H`). At most `N - ceil(q·N)` jobs may miss
//! the target, so at least `M - (N - ceil(q·N))` of the `M` run to completion inside the
//! trace, each using `jobDuration` slot-minutes, and an instance offers at most
//! `concurrentJobsPerInstance` slot-minutes per minute (and none while it boots). Hence every
//! policy that meets the target uses at least
//!
//! ```text
//! LB = max(0, M - (N - ceil(q·N))) × jobDuration / concurrentJobsPerInstance   instance-minutes
//! ```
//!
//! whatever it knows in advance. The bound is exact for a perfectly packed pool (no idle slot,
//! no boot); it ignores provisioning time and whole instances, so the true optimum lies
//! between it and what any simulated policy uses, and the ratio overstates the waste.

use serde::Serialize;

use super::load::Trace;
use super::model::Workload;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Bound {
    pub instance_hours: f64,
    /// Jobs that must complete inside the trace under the target (`M` less the allowed misses).
    pub jobs_counted: u64,
    pub definition: &'static str,
}

pub const DEFINITION: &str = "fewest instance-hours of any policy that starts at least the target share of jobs within the wait target: the work of every job that must then finish inside the trace (jobDuration / concurrentJobsPerInstance each), less the jobs allowed to miss; ignores provisioning and whole instances, so it is a lower bound";

/// `wait`: the target in minutes; `quantile`: 0.95 for p95.
pub fn lower_bound(trace: &Trace, w: &Workload, wait: u32, quantile: f64) -> Bound {
    let h = trace.minutes();
    let n = trace.jobs();
    let must_meet = ((quantile.clamp(0.0, 1.0) * n as f64).ceil() as u64).min(n);
    let allowed_miss = n - must_meet;
    // in seconds: a job arriving at the start of minute t that waits `wait` minutes finishes
    // inside the trace when t·60 + wait·60 + jobSeconds <= H·60
    let horizon = (h as i64 - i64::from(wait)) * 60 - w.job_seconds.max(1) as i64;
    let m: u64 = trace
        .arrivals
        .iter()
        .enumerate()
        .filter(|(t, _)| (*t as i64) * 60 <= horizon)
        .map(|(_, a)| u64::from(*a))
        .sum();
    let counted = m.saturating_sub(allowed_miss);
    let minutes = counted as f64 * w.job_minutes_exact() / f64::from(w.concurrency.max(1));
    Bound {
        instance_hours: minutes / 60.0,
        jobs_counted: counted,
        definition: DEFINITION,
    }
}
