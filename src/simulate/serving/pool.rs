//! The request-driven pool minute by minute: the VMs, which of them are healthy, and what the
//! rendered autoscale setting does on Application Gateway's `AvgRequestCountPerHealthyHost`.
//!
//! The metric (serving.md B11): requests a minute per healthy backend host, Average, PT1M; a
//! host is healthy once the model server answers its health probe, so a VM still loading its
//! model is billed but neither serves nor counts. With no request in a minute the gateway
//! reports no data point (B11: "If there are no requests flowing through the Application
//! Gateway ... the metric is not reported"), and autoscale then applies the profile's default
//! (C4). With requests but no healthy host the value is not documented: by default it is
//! missing too (the conservative reading: nothing scales a pool of 0 out but the default);
//! `--zero-instances one` reads it as the requests divided by 1.
//!
//! The evaluation itself is the queue replay's ([`Autoscaler`]); the VMs a scale-out creates
//! and a scale-in removes are the scale set's ([`next_vm`], [`victims`]). The autoscale
//! trajectory does not depend on latencies (the gateway counts requests as they arrive), so it
//! is computed once and both latency models read it.

use rand_core::{Rng, SeedableRng};

use super::super::engine::{
    Autoscaler, Choices, Evaluations, Machine, Setting, ZeroInstances, next_vm, victims,
};
use super::super::load::Trace;
use crate::cost::usage::Priority;

/// One VM of the scale set over the replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Life {
    pub id: u64,
    pub zone: u32,
    pub spot: bool,
    /// The minute it was created in (billed from the next).
    pub created: usize,
    /// The first minute it is healthy (serves and counts).
    pub ready_at: usize,
    /// The first minute it no longer exists (`usize::MAX`: to the end).
    pub gone_at: usize,
    /// It went by a Spot eviction (else by a scale-in).
    pub evicted: bool,
}

impl Machine for Life {
    fn id(&self) -> u64 {
        self.id
    }
    fn zone(&self) -> u32 {
        self.zone
    }
    fn ready_at(&self) -> usize {
        self.ready_at
    }
    fn spot(&self) -> bool {
        self.spot
    }
    fn busy(&self) -> usize {
        0
    }
}

/// The pool over the trace.
#[derive(Debug, Clone, Default)]
pub struct Pool {
    /// Every VM the replay had, in creation order (ids increasing).
    pub vms: Vec<Life>,
    /// Per minute: healthy VMs, billed VMs (healthy or loading), of them Spot, loading.
    pub healthy: Vec<u16>,
    pub billed: Vec<u16>,
    pub spot: Vec<u16>,
    pub loading: Vec<u16>,
    /// The active profile per minute.
    pub profile: Vec<u16>,
    /// The metric autoscale read per minute (`None`: no data point).
    pub samples: Vec<Option<f64>>,
    pub scale_out: u32,
    pub scale_in: u32,
    pub evictions: u32,
    pub evaluations: Evaluations,
    pub peak: u32,
}

impl Pool {
    pub fn instance_minutes(&self) -> u64 {
        self.billed.iter().map(|&n| u64::from(n)).sum()
    }
    pub fn spot_minutes(&self) -> u64 {
        self.spot.iter().map(|&n| u64::from(n)).sum()
    }
    pub fn healthy_minutes(&self) -> u64 {
        self.healthy.iter().map(|&n| u64::from(n)).sum()
    }
    pub fn loading_minutes(&self) -> u64 {
        self.loading.iter().map(|&n| u64::from(n)).sum()
    }
}

/// `AvgRequestCountPerHealthyHost` for a minute: `None` when the gateway reports nothing.
pub fn sample(requests: u32, missing: bool, healthy: u32, zero: ZeroInstances) -> Option<f64> {
    if missing || requests == 0 {
        return None;
    }
    match (healthy, zero) {
        (0, ZeroInstances::Missing) => None,
        (0, ZeroInstances::One) => Some(f64::from(requests)),
        (h, _) => Some(f64::from(requests) / f64::from(h)),
    }
}

/// Replay the autoscale setting over the trace's requests. `ready_minutes`: from a scale-out
/// to a healthy VM (boot, extensions, model load); evictions: Spot evictions per Spot
/// instance-hour, drawn from `seed`.
pub fn replay(
    setting: &Setting,
    trace: &Trace,
    priority: &Priority,
    choices: &Choices,
    ready_minutes: usize,
    evictions_per_hour: f64,
    seed: u64,
) -> Pool {
    let h = trace.minutes();
    let zones = setting.zones.max(1);
    let mut scaler = Autoscaler::new(setting, trace.start, h, choices);
    let mut p = Pool {
        profile: scaler.timeline().to_vec(),
        healthy: Vec::with_capacity(h),
        billed: Vec::with_capacity(h),
        spot: Vec::with_capacity(h),
        loading: Vec::with_capacity(h),
        samples: Vec::with_capacity(h),
        ..Default::default()
    };
    // the VMs that exist now (indices into p.vms, in creation order)
    let mut live: Vec<Life> = Vec::new();
    let mut next_id = 0u64;
    let mut add = |live: &mut Vec<Life>, created: usize, ready_at: usize| {
        let (zone, spot) = next_vm(live, priority, zones);
        live.push(Life {
            id: next_id,
            zone,
            spot,
            created,
            ready_at,
            gone_at: usize::MAX,
            evicted: false,
        });
        next_id += 1;
    };
    // warm at the start
    for _ in 0..scaler.initial() {
        add(&mut live, 0, 0);
    }
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let evict_p = evictions_per_hour.max(0.0) / 60.0;
    for t in 0..h {
        if evict_p > 0.0 {
            let mut k = 0;
            while k < live.len() {
                if live[k].spot && (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= evict_p {
                    let mut gone = live.remove(k);
                    gone.gone_at = t;
                    gone.evicted = true;
                    p.vms.push(gone);
                    p.evictions += 1;
                } else {
                    k += 1;
                }
            }
        }
        let n = live.len() as u32;
        let healthy = live.iter().filter(|v| v.ready_at <= t).count() as u32;
        let spot = live.iter().filter(|v| v.spot).count() as u32;
        p.healthy.push(healthy as u16);
        p.billed.push(n as u16);
        p.spot.push(spot as u16);
        p.loading.push((n - healthy) as u16);
        p.peak = p.peak.max(n);
        p.samples.push(sample(
            trace.arrivals[t],
            trace.missing[t],
            healthy,
            choices.zero_instances,
        ));
        if let Some((target, _)) = scaler.evaluate(t, n, &p.samples) {
            if target > n {
                for _ in n..target {
                    add(&mut live, t, t + 1 + ready_minutes);
                }
                p.scale_out += 1;
            } else {
                let mut vs = victims(&live, target, t, priority, zones, choices.scale_in_order);
                vs.sort_unstable_by(|a, b| b.cmp(a));
                for k in vs {
                    let mut gone = live.remove(k);
                    gone.gone_at = t + 1;
                    p.vms.push(gone);
                }
                p.scale_in += 1;
            }
        }
    }
    p.vms.extend(live);
    p.vms.sort_by_key(|v| v.id);
    p.evaluations = scaler.counts;
    p
}

#[cfg(test)]
mod tests {
    use super::super::super::engine::{Agg, Dir, Op, Profile, Rule, Stat};
    use super::*;

    pub(crate) fn setting(min: u32, max: u32, default: u32, out: f64, below: f64) -> Setting {
        let rule = |direction, op, threshold, cooldown| Rule {
            metric: "AvgRequestCountPerHealthyHost".into(),
            per_instance: false,
            instance_averaged: true,
            grain: 1,
            window: 5,
            statistic: Stat::Average,
            aggregation: Agg::Average,
            op,
            threshold,
            direction,
            change: 1,
            cooldown,
        };
        Setting {
            profiles: vec![Profile {
                name: "default".into(),
                min,
                max,
                default,
                recurrence: None,
                rules: vec![
                    rule(Dir::Increase, Op::Gt, out, 5),
                    rule(Dir::Decrease, Op::Lt, below, 10),
                ],
            }],
            zones: 1,
        }
    }

    fn trace(arrivals: Vec<u32>) -> Trace {
        Trace {
            start: "2026-11-02T00:00:00Z".parse().unwrap(),
            missing: vec![false; arrivals.len()],
            arrivals,
            source: "test".into(),
        }
    }

    #[test]
    fn the_metric_is_per_healthy_host_and_absent_without_traffic() {
        assert_eq!(sample(0, false, 3, ZeroInstances::One), None);
        assert_eq!(sample(300, false, 3, ZeroInstances::One), Some(100.0));
        assert_eq!(sample(300, true, 3, ZeroInstances::One), None);
        assert_eq!(sample(300, false, 0, ZeroInstances::Missing), None);
        assert_eq!(sample(300, false, 0, ZeroInstances::One), Some(300.0));
    }

    #[test]
    fn loading_vms_are_billed_and_do_not_count() {
        // 2 warm VMs at 500 requests a minute each: above 400, so one more every 5 minutes,
        // each healthy 8 minutes after its scale-out; meanwhile the per-host value stays high
        let s = setting(1, 10, 2, 400.0, 100.0);
        let c = Choices::default();
        let p = replay(
            &s,
            &trace(vec![1000; 60]),
            &Priority::Regular,
            &c,
            8,
            0.0,
            1,
        );
        assert_eq!(p.billed[0], 2);
        assert_eq!(p.healthy[0], 2);
        // the first scale-out at the end of minute 0: billed from minute 1, healthy from 9
        assert_eq!(p.billed[1], 3);
        assert_eq!(p.loading[1], 1);
        assert_eq!(p.healthy[8], 2);
        assert_eq!(p.healthy[9], 3);
        assert_eq!(p.samples[8], Some(500.0));
        assert_eq!(p.samples[9], Some(1000.0 / 3.0));
        // 3 healthy would do (1000 / 3 <= 400), but the window at minute 10 still averages
        // minutes 6-8 at 500 (433 > 400): a third scale-out while the second VM loads
        assert_eq!(*p.billed.last().unwrap(), 5);
        assert_eq!(p.scale_out, 3);
    }

    #[test]
    fn no_traffic_means_the_default() {
        // min 0, default 1: an idle pool sits at the default (no data point), never below
        let s = setting(0, 10, 1, 400.0, 100.0);
        let c = Choices {
            zero_instances: ZeroInstances::Missing,
            ..Choices::default()
        };
        let p = replay(&s, &trace(vec![0; 30]), &Priority::Regular, &c, 8, 0.0, 1);
        assert!(p.billed.iter().all(|&n| n == 1), "{:?}", p.billed);
        assert_eq!(p.evaluations.missing_metric, 0);
        // default 0: a pool at 0 with traffic and no healthy host never scales out when the
        // value is missing, and does when it reads requests / 1
        let s = setting(0, 10, 0, 400.0, 100.0);
        let p = replay(&s, &trace(vec![600; 30]), &Priority::Regular, &c, 8, 0.0, 1);
        assert!(p.billed.iter().all(|&n| n == 0));
        let p = replay(
            &s,
            &trace(vec![600; 30]),
            &Priority::Regular,
            &Choices::default(),
            8,
            0.0,
            1,
        );
        assert_eq!(p.billed[1], 1);
    }
}
