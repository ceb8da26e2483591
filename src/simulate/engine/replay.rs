//! Replay a trace minute by minute: the queue, the instances and what autoscale does.

use std::collections::VecDeque;

use rand_core::{Rng, SeedableRng};
use serde::Serialize;

use super::super::load::Trace;
use super::super::model::Workload;
use super::super::standby::{self, PoolState, Standby};
use crate::cost::usage::Priority;

use super::choices::{Arrivals, Choices};
use super::decide::Samples;
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
    /// `wait_seconds[s]`: jobs that waited `s` seconds, for waits under a day
    /// ([`WAIT_SECONDS_KEPT`]; longer ones are in `waits` only): the exact percentile
    /// ([`Outcome::wait_percentile_exact`]) the tune compares with its target.
    #[serde(skip)]
    pub wait_seconds: Vec<u64>,
    /// The replay stopped early ([`Stop`]): the target is missed for sure, and the other
    /// figures are those of the minutes replayed so far.
    #[serde(skip)]
    pub stopped: bool,
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
    /// With a standby pool: the fewest ready pooled VMs a take found
    /// ([`PoolState::least_ready`]; `u32::MAX`: none taken; 0 without a pool).
    #[serde(skip)]
    pub pool_least_ready: u32,
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

    /// [`Outcome::wait_percentile`] to the second (fractional minutes): what the waits are,
    /// not the whole minutes the results print (a p95 "5 min" may be 5 min 50 s). Beyond a day
    /// ([`WAIT_SECONDS_KEPT`]) it is the whole-minute figure.
    pub fn wait_percentile_exact(&self, q: f64) -> f64 {
        let n: u64 = self.waits.iter().sum();
        if n == 0 {
            return 0.0;
        }
        let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
        let mut seen = 0;
        for (s, c) in self.wait_seconds.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return s as f64 / 60.0;
            }
        }
        self.wait_percentile(q)
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

/// Waits kept to the second (a day): [`Outcome::wait_seconds`].
pub const WAIT_SECONDS_KEPT: usize = 24 * 3600;

/// When a replay may stop early: as soon as more jobs than the `quantile` allows are certain to
/// wait longer than `wait_minutes` (exact percentile, [`Outcome::wait_percentile_exact`]), the
/// target is missed whatever the rest of the trace holds: a job that started late stays late
/// (a restart only makes its wait longer), and a job still waiting at the end of a minute
/// waits at least until then. The tune asks only whether a candidate meets its target under a
/// variant; a run that must miss stops there ([`run_until`]; `tests/simulate_stop.rs` checks
/// that a run that stops misses and one that does not is the full replay).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stop {
    pub wait_minutes: f64,
    pub quantile: f64,
}

/// The job waits as recorded: whole minutes ([`Outcome::waits`]), seconds under a day, and how
/// many exceed a [`Stop`]'s wait.
struct Recorded {
    minutes: Vec<u64>,
    seconds: Vec<u64>,
    /// Waits (seconds) above which a job is late (`u64::MAX`: no stop).
    over: u64,
    late: u64,
}

impl Recorded {
    fn add(&mut self, wait: u64, n: u64) {
        let m = (wait / 60) as usize;
        if self.minutes.len() <= m {
            self.minutes.resize(m + 1, 0);
        }
        self.minutes[m] += n;
        let s = wait as usize;
        if s < WAIT_SECONDS_KEPT {
            if self.seconds.len() <= s {
                self.seconds.resize(s + 1, 0);
            }
            self.seconds[s] += n;
        }
        if wait > self.over {
            self.late += n;
        }
    }

    /// A started job goes back to the queue: its wait no longer counts.
    fn remove(&mut self, wait: u64) {
        if let Some(w) = self.minutes.get_mut((wait / 60) as usize) {
            *w = w.saturating_sub(1);
        }
        if let Some(w) = self.seconds.get_mut(wait as usize) {
            *w = w.saturating_sub(1);
        }
        if wait > self.over {
            self.late = self.late.saturating_sub(1);
        }
    }
}

/// [`free_at`] of an instance still booting.
const NOT_READY: u64 = u64::MAX;

/// The second in minute `t` (starting at `t0`) the earliest slot of `i` is free: at once with
/// a slot free (fewer than `c` busy), else when its first job ends; [`NOT_READY`] while it boots.
fn free_at(i: &Instance, t: usize, t0: u64, c: usize) -> u64 {
    if i.ready_at > t {
        NOT_READY
    } else if i.busy.len() < c {
        t0
    } else {
        i.busy.iter().map(|(f, _)| *f).min().unwrap_or(t0).max(t0)
    }
}

/// Put a removed instance's jobs back at the head of the queue; their first start no longer
/// counts (the job starts again and its wait runs on).
fn requeue(
    gone: &Instance,
    d: u64,
    queue: &mut VecDeque<(u64, u32)>,
    waits: &mut Recorded,
    served: &mut u64,
) {
    let mut back: Vec<u64> = gone.busy.iter().map(|(_, arr)| *arr).collect();
    for (finish, arr) in &gone.busy {
        let started = finish.saturating_sub(d);
        waits.remove(started.saturating_sub(*arr));
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
    run_until(r, None)
}

/// [`run`], stopping as soon as the wait target of `stop` is missed for sure
/// ([`Outcome::stopped`]); without one, the whole replay.
pub fn run_until(r: &Run, stop: Option<Stop>) -> Outcome {
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
    // per instance, the second its earliest slot frees in the current minute ([`free_at`])
    let mut frees: Vec<u64> = Vec::new();
    let mut queued: u64 = 0;
    let mut in_service: u64 = 0;
    let mut samples = Samples::with_capacity(h);
    // a job is late above `over` seconds; the run stops once more than `allowed` are
    let (over, allowed) = match stop {
        Some(s) => {
            let n = o.jobs;
            let rank = ((s.quantile * n as f64).ceil() as u64).clamp(1, n.max(1));
            (
                (s.wait_minutes * 60.0).max(0.0).floor() as u64,
                n.saturating_sub(rank),
            )
        }
        None => (u64::MAX, u64::MAX),
    };
    let mut waits = Recorded {
        minutes: Vec::new(),
        seconds: Vec::new(),
        over,
        late: 0,
    };
    let restart = |gone: &Instance,
                   queue: &mut VecDeque<(u64, u32)>,
                   waits: &mut Recorded,
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
        // second the slot frees or the job arrives (the first instance of the earliest on a
        // tie); each instance's earliest free second is worked out once a minute and again only
        // for the instance that took a job
        if !queue.is_empty() {
            frees.clear();
            frees.extend(inst.iter().map(|i| free_at(i, t, t0, c)));
        }
        while let Some(&(arr, _)) = queue.front() {
            let mut best: Option<(u64, usize)> = None;
            for (k, &free) in frees.iter().enumerate() {
                if free == NOT_READY {
                    continue;
                }
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
            frees[k] = free_at(i, t, t0, c);
            waits.add(start - arr, 1);
            o.served += 1;
        }
        // late for sure: started late, or still waiting at the end of the minute and late by then
        if waits.late > allowed
            || stop.is_some() && {
                let late_queued: u64 = queue
                    .iter()
                    .take_while(|(arr, _)| t1.saturating_sub(*arr) > over)
                    .map(|(_, n)| u64::from(*n))
                    .sum();
                waits.late + late_queued > allowed
            }
        {
            o.stopped = true;
            o.minutes = t + 1;
            o.pool_least_ready = pool.as_ref().map_or(0, PoolState::least_ready);
            o.waits = waits.minutes;
            o.wait_seconds = waits.seconds;
            return o;
        }
        if let Some(s) = series.as_mut() {
            let free: usize = inst
                .iter()
                .filter(|i| i.ready_at <= t && !i.busy.is_empty())
                .map(|i| c.saturating_sub(i.busy.len()))
                .sum();
            s.free_slots.push(free as u32);
        }
        // one pass over the instances (the replay's every minute): idle (ready and running
        // nothing during the minute, before the completions), the completions up to the end of
        // the minute, and what bills: Spot and booting
        let (mut idle_now, mut spot, mut booting) = (0u64, 0u64, 0u64);
        for i in inst.iter_mut() {
            if i.ready_at > t {
                booting += 1;
            } else if i.busy.is_empty() {
                idle_now += 1;
            }
            spot += u64::from(i.spot);
            if !i.busy.is_empty() {
                let before = i.busy.len();
                i.busy.retain(|(f, _)| *f > t1);
                in_service -= (before - i.busy.len()) as u64;
            }
        }
        // the queue metric at the end of the minute: the messages ready for delivery (waiting),
        // plus, with --queue-metric-counts-in-service, those a worker holds
        let depth = if r.choices.queue_metric_counts_in_service {
            queued + in_service
        } else {
            queued
        };
        samples.push((!trace.missing[t]).then_some(depth));
        o.backlog_peak = o.backlog_peak.max(queued);

        // billing and the chart
        let n = inst.len() as u64;
        o.instance_minutes += n;
        o.spot_minutes += spot;
        o.regular_minutes += n - spot;
        o.idle_minutes += idle_now;
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
        waits.add(end.saturating_sub(*arr), u64::from(*n));
    }
    o.unfinished = queued + in_service;
    o.pool_least_ready = pool.as_ref().map_or(0, PoolState::least_ready);
    o.cooldown_skips = scaler.counts.cooldown_skips;
    o.deferred_scale_in = scaler.counts.deferred_scale_in;
    o.reduced_scale_in = scaler.counts.reduced_scale_in;
    o.missing_metric_evaluations = scaler.counts.missing_metric;
    o.waits = waits.minutes;
    o.wait_seconds = waits.seconds;
    o.series = series;
    o
}
