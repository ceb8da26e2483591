//! Replay a trace minute by minute: the queue, the instances and what autoscale does.

use std::collections::VecDeque;

use rand_core::{Rng, SeedableRng};
use serde::Serialize;

use super::super::load::Trace;
use super::super::model::Workload;
use super::super::standby::{self, PoolState, Standby};
use crate::cost::usage::Priority;

use super::choices::{Arrivals, Choices};
use super::evaluate::Autoscaler;
use super::setting::Setting;
use super::vms::{Machine, next_vm, next_zones, victims};

/// What the engine measured.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub minutes: usize,
    pub jobs: u64,
    pub served: u64,
    /// Jobs still waiting or running when the trace ends (their waits count up to the end).
    pub unfinished: u64,
    /// `waits[w]`: jobs that waited `w` whole minutes (those still waiting at the end count
    /// with the wait they had so far).
    #[serde(skip)]
    pub waits: Vec<u64>,
    pub backlog_peak: u64,
    pub instance_minutes: u64,
    pub regular_minutes: u64,
    pub spot_minutes: u64,
    /// Ready instances with nothing to run.
    pub idle_minutes: u64,
    /// Instances booting (billed, not serving).
    pub provisioning_minutes: u64,
    pub scale_out: u32,
    pub scale_in: u32,
    /// Scale-ins the flapping guard skipped.
    pub deferred_scale_in: u32,
    /// Scale-ins the flapping guard made smaller.
    pub reduced_scale_in: u32,
    pub cooldown_skips: u32,
    pub missing_metric_evaluations: u32,
    pub evictions: u32,
    /// Jobs that started again because their VM went (scale-in or Spot eviction): autoscale
    /// cannot see which VM is busy, so a scale-in may remove one that runs a job.
    pub restarted_jobs: u64,
    /// Of those, the jobs on VMs a scale-in removed.
    pub restarted_by_scale_in: u64,
    pub peak_instances: u32,
    /// Pooled VM-minutes of the standby pool (ready or being built): what bills while they wait.
    #[serde(skip)]
    pub standby_minutes: u64,
    /// Minutes of pooled VMs being built (a refill: created and provisioned, running, before
    /// they are deallocated): they bill compute, not only disks.
    #[serde(skip)]
    pub standby_build_minutes: u64,
    /// VMs a scale-out took from the standby pool.
    #[serde(skip)]
    pub standby_taken: u64,
    #[serde(skip)]
    pub series: Option<Series>,
}

/// Per-minute series for the chart.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Series {
    pub arrivals: Vec<u32>,
    pub backlog: Vec<u32>,
    pub regular: Vec<u16>,
    pub spot: Vec<u16>,
    pub profile: Vec<u16>,
    /// Ready instances running nothing during the minute (of `regular + spot`).
    pub idle: Vec<u16>,
    /// Instances booting.
    pub provisioning: Vec<u16>,
    /// Free job slots on ready instances that run at least one job (whole instances: a VM
    /// bills all its slots).
    pub free_slots: Vec<u32>,
}

impl Outcome {
    /// Nearest-rank percentile of the job waits, in minutes (`q` in 0..=1).
    pub fn wait_percentile(&self, q: f64) -> f64 {
        let n: u64 = self.waits.iter().sum();
        if n == 0 {
            return 0.0;
        }
        let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
        let mut seen = 0;
        for (w, c) in self.waits.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return w as f64;
            }
        }
        (self.waits.len().saturating_sub(1)) as f64
    }

    pub fn wait_max(&self) -> f64 {
        self.waits.iter().rposition(|&c| c > 0).unwrap_or(0) as f64
    }
}

#[derive(Debug, Clone)]
struct Instance {
    /// Instance ID: increases with every VM the scale set creates.
    id: u64,
    zone: u32,
    ready_at: usize,
    spot: bool,
    /// Busy slots: (finish second, arrival second of the job).
    busy: Vec<(u64, u64)>,
}

impl Machine for Instance {
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
        self.busy.len()
    }
}

/// Everything one run needs.
pub struct Run<'a> {
    pub setting: &'a Setting,
    pub trace: &'a Trace,
    pub workload: &'a Workload,
    pub priority: &'a Priority,
    pub choices: Choices,
    /// Seed of the eviction draws.
    pub seed: u64,
    /// Keep the per-minute series (for the chart).
    pub record: bool,
    /// The standby pool, when the spec has one.
    pub standby: Option<&'a Standby>,
}

/// Put a removed instance's jobs back at the head of the queue; their first start no longer
/// counts (the job starts again and its wait runs on).
fn requeue(
    gone: &Instance,
    d: u64,
    queue: &mut VecDeque<(u64, u32)>,
    waits: &mut [u64],
    served: &mut u64,
) {
    let mut back: Vec<u64> = gone.busy.iter().map(|(_, arr)| *arr).collect();
    for (finish, arr) in &gone.busy {
        let started = finish.saturating_sub(d);
        if let Some(w) = waits.get_mut((started.saturating_sub(*arr) / 60) as usize) {
            *w = w.saturating_sub(1);
        }
        *served = served.saturating_sub(1);
    }
    // the oldest arrival goes first
    back.sort_unstable();
    for arr in back.into_iter().rev() {
        queue.push_front((arr, 1));
    }
}

/// Replay the trace. Autoscale acts once a minute; jobs run for exactly the job time in seconds
/// (a 45 s job frees its slot 45 s after it starts, and the next job starts then).
pub fn run(r: &Run) -> Outcome {
    // a model variant may assume another start time for pooled VMs that have one
    let restarted;
    let r = &match (r.choices.standby_start_seconds, r.standby) {
        (Some(secs), Some(s)) if s.start_seconds > 0 || s.start_assumed => {
            restarted = s.starting_in(secs);
            Run {
                standby: Some(&restarted),
                ..*r
            }
        }
        _ => Run { ..*r },
    };
    // a load variant replays a changed copy of the trace (same start and length)
    let changed;
    let trace = if r.choices.load.is_nominal() {
        r.trace
    } else {
        changed = r.choices.load.apply(r.trace);
        &changed
    };
    let h = trace.minutes();
    let w = r.workload;
    let d = w.job_seconds.max(1);
    let c = w.concurrency.max(1) as usize;
    let p = (f64::from(w.provisioning_minutes) * r.choices.provisioning_factor.max(0.0)).round()
        as usize;
    let zones = r.setting.zones.max(1);
    let mut scaler = Autoscaler::new(r.setting, trace.start, h, &r.choices);
    let timeline = scaler.timeline().to_vec();
    let mut rng = rand_pcg::Pcg64::seed_from_u64(r.seed);
    let evict_p = w.spot_evictions_per_hour / 60.0;

    let mut o = Outcome {
        minutes: h,
        jobs: trace.jobs(),
        ..Default::default()
    };
    let mut series = r.record.then(|| Series {
        arrivals: trace.arrivals.clone(),
        backlog: Vec::with_capacity(h),
        regular: Vec::with_capacity(h),
        spot: Vec::with_capacity(h),
        profile: timeline.clone(),
        idle: Vec::with_capacity(h),
        provisioning: Vec::with_capacity(h),
        free_slots: Vec::with_capacity(h),
    });

    let mut inst: Vec<Instance> = Vec::new();
    let mut next_id: u64 = 0;
    let mut add = |inst: &mut Vec<Instance>, ready_at: usize| {
        let (zone, spot) = next_vm(inst, r.priority, zones);
        inst.push(Instance {
            id: next_id,
            zone,
            ready_at,
            spot,
            busy: Vec::with_capacity(c),
        });
        next_id += 1;
    };
    // the pool starts at the first profile's default, warm
    for _ in 0..scaler.initial() {
        add(&mut inst, 0);
    }
    let mut pool = r
        .standby
        .map(|s| PoolState::warm(s, inst.len() as u32, zones));
    // waiting jobs: (arrival second, count)
    let mut queue: VecDeque<(u64, u32)> = VecDeque::new();
    let mut queued: u64 = 0;
    let mut in_service: u64 = 0;
    let mut samples: Vec<Option<f64>> = Vec::with_capacity(h);
    let mut waits: Vec<u64> = Vec::new();
    fn record_wait(waits: &mut Vec<u64>, wait: usize, n: u64) {
        if waits.len() <= wait {
            waits.resize(wait + 1, 0);
        }
        waits[wait] += n;
    }
    let restart = |gone: &Instance,
                   queue: &mut VecDeque<(u64, u32)>,
                   waits: &mut Vec<u64>,
                   o: &mut Outcome,
                   queued: &mut u64,
                   in_service: &mut u64| {
        requeue(gone, d, queue, waits, &mut o.served);
        let n = gone.busy.len() as u64;
        *in_service -= n;
        *queued += n;
        o.restarted_jobs += n;
    };

    #[allow(clippy::needless_range_loop)] // t indexes the trace, the timeline and the samples
    for t in 0..h {
        let t0 = t as u64 * 60;
        let t1 = t0 + 60;
        // Spot evictions (Delete: the instance and its capacity go; its jobs go back to the queue)
        if evict_p > 0.0 {
            let mut k = 0;
            while k < inst.len() {
                if inst[k].spot && (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= evict_p {
                    let gone = inst.swap_remove(k);
                    restart(
                        &gone,
                        &mut queue,
                        &mut waits,
                        &mut o,
                        &mut queued,
                        &mut in_service,
                    );
                    o.evictions += 1;
                } else {
                    k += 1;
                }
            }
        }
        // arrivals
        let a = trace.arrivals[t];
        if a > 0 {
            match r.choices.arrivals {
                Arrivals::StartOfMinute => queue.push_back((t0, a)),
                Arrivals::Spread => {
                    for i in 0..u64::from(a) {
                        let at = t0 + (i * 60 + 30) / u64::from(a);
                        match queue.back_mut() {
                            Some(b) if b.0 == at => b.1 += 1,
                            _ => queue.push_back((at, 1)),
                        }
                    }
                }
            }
            queued += u64::from(a);
        }
        // dispatch FIFO: the earliest free slot of a ready instance takes the next job, at the
        // second the slot frees or the job arrives
        while let Some(&(arr, _)) = queue.front() {
            let mut best: Option<(u64, usize)> = None;
            for (k, i) in inst.iter().enumerate() {
                if i.ready_at > t {
                    continue;
                }
                let free = if i.busy.len() < c {
                    t0
                } else {
                    i.busy.iter().map(|(f, _)| *f).min().unwrap_or(t0).max(t0)
                };
                if best.is_none_or(|(f, _)| free < f) {
                    best = Some((free, k));
                    if free == t0 {
                        break;
                    }
                }
            }
            let Some((free, k)) = best else { break };
            let start = free.max(arr);
            if start >= t1 {
                break;
            }
            let i = &mut inst[k];
            if i.busy.len() >= c {
                // the slot's job completed at `free`
                if let Some(pos) = i.busy.iter().position(|(f, _)| *f == free) {
                    i.busy.swap_remove(pos);
                    in_service -= 1;
                }
            }
            let front = queue.front_mut().expect("checked above");
            front.1 -= 1;
            if front.1 == 0 {
                queue.pop_front();
            }
            queued -= 1;
            in_service += 1;
            i.busy.push((start + d, arr));
            record_wait(&mut waits, ((start - arr) / 60) as usize, 1);
            o.served += 1;
        }
        // idle: ready and running nothing during the minute
        let idle_now = inst
            .iter()
            .filter(|i| i.ready_at <= t && i.busy.is_empty())
            .count() as u64;
        if let Some(s) = series.as_mut() {
            let free: usize = inst
                .iter()
                .filter(|i| i.ready_at <= t && !i.busy.is_empty())
                .map(|i| c.saturating_sub(i.busy.len()))
                .sum();
            s.free_slots.push(free as u32);
        }
        // completions up to the end of the minute
        for i in inst.iter_mut() {
            let before = i.busy.len();
            i.busy.retain(|(f, _)| *f > t1);
            in_service -= (before - i.busy.len()) as u64;
        }
        // the queue metric at the end of the minute: the messages ready for delivery (waiting),
        // plus, with --queue-metric-counts-in-service, those a worker holds
        let depth = if r.choices.queue_metric_counts_in_service {
            queued + in_service
        } else {
            queued
        };
        samples.push((!trace.missing[t]).then_some(depth as f64));
        o.backlog_peak = o.backlog_peak.max(queued);

        // billing and the chart
        let n = inst.len() as u64;
        let spot = inst.iter().filter(|i| i.spot).count() as u64;
        o.instance_minutes += n;
        o.spot_minutes += spot;
        o.regular_minutes += n - spot;
        o.idle_minutes += idle_now;
        let booting = inst.iter().filter(|i| i.ready_at > t).count() as u64;
        o.provisioning_minutes += booting;
        o.peak_instances = o.peak_instances.max(n as u32);
        if let Some(s) = series.as_mut() {
            s.idle.push(idle_now as u16);
            s.provisioning.push(booting as u16);
            s.backlog.push(queued.min(u64::from(u32::MAX)) as u32);
            s.regular.push((n - spot) as u16);
            s.spot.push(spot as u16);
        }

        // autoscale evaluates at the end of the minute
        let cur = inst.len() as u32;
        let target = scaler.evaluate(t, cur, &samples);
        if let Some((n, _)) = target {
            if n > cur {
                // pooled VMs first (their start delay), the rest provisions
                let ready_at = match (r.standby, pool.as_mut()) {
                    (Some(s), Some(st)) => {
                        standby::scale_out_ready_at(st, s, t, &next_zones(&inst, zones, n - cur), p)
                    }
                    _ => vec![t + 1 + p; (n - cur) as usize],
                };
                if let Some(s) = r.standby {
                    let from_pool = t + 1 + s.start_minutes();
                    o.standby_taken += ready_at.iter().filter(|a| **a == from_pool).count() as u64;
                }
                for at in ready_at {
                    add(&mut inst, at);
                }
                o.scale_out += 1;
            } else if n < cur {
                // the rendered scale-in policy chooses the VMs, busy or not: their jobs go back
                // to the queue (the message lock is lost and the job is delivered again)
                let mut vs = victims(&inst, n, t, r.priority, zones, r.choices.scale_in_order);
                vs.sort_unstable_by(|a, b| b.cmp(a));
                for k in vs {
                    let gone = inst.remove(k);
                    o.restarted_by_scale_in += gone.busy.len() as u64;
                    restart(
                        &gone,
                        &mut queue,
                        &mut waits,
                        &mut o,
                        &mut queued,
                        &mut in_service,
                    );
                }
                o.scale_in += 1;
            }
        }
        // the pool refills (at the provisioning delay) to Azure's size for the instances now
        if let (Some(s), Some(st)) = (r.standby, pool.as_mut()) {
            st.refill(s, t, inst.len() as u32, p);
            o.standby_minutes += st.len() as u64;
            if !s.bills_compute {
                o.standby_build_minutes += st.building(t) as u64;
            }
        }
    }
    // jobs not started by the end count with the wait they had so far
    let end = h as u64 * 60;
    for (arr, n) in &queue {
        record_wait(
            &mut waits,
            (end.saturating_sub(*arr) / 60) as usize,
            u64::from(*n),
        );
    }
    o.unfinished = queued + in_service;
    o.cooldown_skips = scaler.counts.cooldown_skips;
    o.deferred_scale_in = scaler.counts.deferred_scale_in;
    o.reduced_scale_in = scaler.counts.reduced_scale_in;
    o.missing_metric_evaluations = scaler.counts.missing_metric;
    o.waits = waits;
    o.series = series;
    o
}
