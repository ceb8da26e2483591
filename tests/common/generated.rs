//! Generated queue-driven autoscale settings and traces for the replay property tests
//! (`simulate_stop.rs`, `simulate_standby_reuse.rs`): the shape render emits, with the
//! parameters proptest draws.

use gpuform::simulate::engine::{Agg, Dir, Op, Profile, Rule, Setting, Stat};
use gpuform::simulate::load::Trace;
use gpuform::simulate::model::Workload;

pub fn rule(dir: Dir, threshold: f64, change: u32, cooldown: u32, window: u32, agg: Agg) -> Rule {
    Rule {
        metric: "ActiveMessages".into(),
        per_instance: true,
        instance_averaged: false,
        grain: 1,
        window,
        statistic: Stat::Average,
        aggregation: agg,
        op: if dir == Dir::Increase { Op::Gt } else { Op::Lt },
        threshold,
        direction: dir,
        change,
        cooldown,
    }
}

/// A queue-driven setting as render emits one: scale out above `target` per instance, in
/// below `below`.
pub fn setting(
    (min, max, target, below): (u32, u32, u32, u32),
    (step, out_cd, in_cd, window, agg): (u32, u32, u32, u32, usize),
) -> Setting {
    let agg = [Agg::Average, Agg::Maximum, Agg::Last][agg];
    Setting {
        profiles: vec![Profile {
            name: "p".into(),
            min,
            max: max.max(min).max(1),
            default: min,
            recurrence: None,
            rules: vec![
                rule(Dir::Increase, f64::from(target), step, out_cd, window, agg),
                rule(
                    Dir::Decrease,
                    f64::from(below),
                    1,
                    in_cd,
                    window,
                    Agg::Average,
                ),
            ],
        }],
        zones: 1,
    }
}

pub fn trace(arrivals: Vec<u32>, missing: Vec<bool>) -> Trace {
    let n = arrivals.len();
    Trace {
        start: "2026-11-02T00:00:00Z".parse().unwrap(),
        missing: missing.into_iter().cycle().take(n).collect(),
        arrivals,
        source: "generated".into(),
    }
}

/// A workload of `job` seconds per job, `c` jobs per VM at once, `prov` minutes to provision, no
/// Spot evictions.
pub fn workload(job: u64, c: u32, prov: u32) -> Workload {
    Workload {
        job_minutes: job.div_ceil(60) as u32,
        job_seconds: job,
        concurrency: c,
        provisioning_minutes: prov,
        provisioning_source: "test".into(),
        spot_evictions_per_hour: 0.0,
    }
}
