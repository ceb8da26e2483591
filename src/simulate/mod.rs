//! `gpuform simulate`: replay queue load through the autoscale setting render emits, and measure
//! waits, idle GPUs and cost against the clairvoyant lower bound.
//!
//! - [`load`]: CSV and `az monitor metrics list` traces, the seeded synthetic week;
//! - [`model`]: job time, concurrency, provisioning delay per size family, Spot evictions;
//! - [`engine`]: Azure Monitor autoscale semantics and the FIFO queue, minute by minute;
//! - [`bound`]: the clairvoyant lower bound; [`tune`]: the search for a cheaper policy;
//! - [`serving`]: the request-driven pool's simulator; [`serving_command`]: its run and its tune
//!   (above both `serving` and `tune`);
//! - [`measured`]: the GPU telemetry of the same window beside the simulation (`--telemetry`);
//! - [`report`]: text, JSON, Markdown and the SVG chart.

pub mod bound;
pub mod command;
pub mod engine;
pub mod load;
pub mod measured;
pub mod model;
pub mod prepare;
pub mod pricing;
pub mod pull;
pub mod report;
pub mod results;
pub mod serving;
pub mod serving_command;
pub mod standby;
pub mod tune;
pub mod tz;

use serde::Serialize;

use crate::catalog::GpuSize;
use crate::cost::usage::{HOURS_PER_MONTH, Priority};
use crate::cost::{self, PriceBook, SimulatedHours};
use crate::plan::Plan;
use crate::spec::model::Spec;
use crate::spec::timezones::parse_hhmm;
use engine::{Choices, Outcome, Run, Setting};
use load::{Synthetic, Trace, Window};
use model::Workload;
pub use results::{
    Cost, InstanceHours, LowerBound, Results, ScaleActions, TraceInfo, WaitTarget, Waits,
};

/// How a simulation is run (besides the trace and the workload).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    pub choices: Choices,
    /// The wait target in minutes and the share of jobs that must meet it (0.95 for p95).
    pub wait_target_minutes: u32,
    pub quantile: f64,
    /// Seed of the Spot eviction draws.
    pub seed: u64,
    /// The standby pool (from the plan; `--standby-start` overrides its start delay).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standby: Option<standby::Standby>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            choices: Choices::default(),
            wait_target_minutes: 10,
            quantile: 0.95,
            seed: 1,
            standby: None,
        }
    }
}

/// The autoscale setting the plan emits (a fixed pool at its default count without one).
pub fn setting(plan: &Plan, spec: &Spec) -> Result<Setting, String> {
    let zones = plan.compute.zones.len() as u32;
    match &plan.autoscale {
        Some(a) => Setting::from_plan(a).map(|s| s.with_zones(zones)),
        None => Ok(Setting::fixed(spec.spec.capacity.default_count()).with_zones(zones)),
    }
}

/// The regular/Spot split of the plan's scale set.
pub fn priority(plan: &Plan, spec: &Spec) -> Priority {
    Priority::of(&plan.compute, &spec.spec.capacity)
}

/// A synthetic week shaped by the spec: the schedules that raise the minimum are the busy
/// windows (70 % of their maximum's throughput), those that lower the maximum are quiet (10 %
/// of theirs), the rest of the day runs at 20 % of the pool's maximum; bursts twice a week on
/// average. Mean rates are jobs per minute = share × instances × concurrency / job minutes.
/// `rate` (`--synthetic-rate`, jobs per minute) replaces the rest-of-day rate, and the windows
/// and bursts scale with it (the week keeps its shape).
pub fn synthetic_for(
    spec: &Spec,
    w: &Workload,
    seed: u64,
    days: u32,
    start: &str,
    rate: Option<f64>,
) -> Synthetic {
    let cap = &spec.spec.capacity;
    let per_instance = f64::from(w.concurrency) / w.job_minutes_exact();
    let mut windows = Vec::new();
    if let Some(a) = &spec.spec.autoscale {
        for s in &a.schedules {
            let (Some(st), Some(en)) = (parse_hhmm(&s.start), parse_hhmm(&s.end)) else {
                continue;
            };
            let share = if s.min > cap.min {
                0.7
            } else if s.max < cap.max {
                0.1
            } else {
                continue;
            };
            windows.push(Window {
                time_zone: s.time_zone.clone(),
                start: st,
                end: en,
                per_minute: share * f64::from(s.max.max(1)) * per_instance,
            });
        }
    }
    let mut base = 0.2 * f64::from(cap.max.max(1)) * per_instance;
    if let Some(r) = rate.filter(|r| r.is_finite() && *r >= 0.0) {
        let k = if base > 0.0 { r / base } else { 0.0 };
        for w in &mut windows {
            w.per_minute *= k;
        }
        base = r;
    }
    Synthetic {
        seed,
        days,
        start: start.to_string(),
        base_per_minute: base,
        windows,
        burst_per_hour: 2.0 / 168.0,
        burst_per_minute: 2.0 * base,
    }
}

/// What the run is about: the checked spec, its plan and size.
pub struct Input<'a> {
    pub spec: &'a Spec,
    pub plan: &'a Plan,
    pub size: &'a GpuSize,
    pub file: &'a str,
    pub auto_sized: bool,
}

/// Instance-hours per month from an outcome (the trace is scaled to 730 hours).
pub fn monthly_hours(o: &Outcome) -> SimulatedHours {
    let trace_hours = o.minutes as f64 / 60.0;
    let k = if o.minutes == 0 {
        0.0
    } else {
        HOURS_PER_MONTH / trace_hours
    };
    SimulatedHours {
        instance: o.instance_minutes as f64 / 60.0 * k,
        regular: o.regular_minutes as f64 / 60.0 * k,
        spot: o.spot_minutes as f64 / 60.0 * k,
        trace_hours,
    }
}

/// Price an outcome through `gpuform cost`.
pub fn price(input: &Input, o: &Outcome, book: &PriceBook, today: &str) -> (cost::Estimate, Cost) {
    let opts = cost::Options {
        today: today.to_string(),
        simulated: Some(monthly_hours(o)),
        ..Default::default()
    };
    let est = cost::estimate(
        input.spec,
        input.plan,
        input.file,
        input.size,
        input.auto_sized,
        book,
        &opts,
    );
    let pool: Option<f64> = est
        .lines
        .iter()
        .filter(|l| l.group == "compute" || l.id.starts_with("disk-"))
        .map(|l| l.amount.expected)
        .sum();
    // the standby pool: `cost` prices it at its largest; the replay measured how many pooled
    // VMs waited, minute by minute, so that replaces the static line
    let standby = est.standby.as_ref().map(|sc| {
        let trace_hours = o.minutes as f64 / 60.0;
        let avg = if trace_hours > 0.0 {
            o.standby_minutes as f64 / 60.0 / trace_hours
        } else {
            0.0
        };
        // a pooled VM being built runs: compute at the regular VM price for those minutes
        let k = if trace_hours > 0.0 {
            HOURS_PER_MONTH / trace_hours
        } else {
            0.0
        };
        let hourly = est
            .lines
            .iter()
            .find(|l| l.id == "compute-regular")
            .and_then(|l| l.unit_price);
        let build = o.standby_build_minutes as f64 / 60.0 * k;
        let build_cost = if build > 0.0 {
            hourly.map(|h| h * build)
        } else {
            Some(0.0)
        };
        (
            sc.monthly,
            sc.per_vm_monthly.zip(build_cost).map(|(v, b)| v * avg + b),
        )
    });
    let (monthly, pool) = match standby {
        Some((static_line, measured)) => (
            est.totals.expected - static_line.unwrap_or(0.0) + measured.unwrap_or(0.0),
            pool.zip(measured).map(|(a, b)| a + b),
        ),
        None => (est.totals.expected, pool),
    };
    let c = Cost {
        monthly: est.totals.complete.then_some(monthly),
        currency: est.currency.clone(),
        pool_monthly: pool,
        complete: est.totals.complete,
        standby_monthly: standby.and_then(|s| s.1),
        missing: est.missing.clone(),
    };
    (est, c)
}

/// Run the engine and gather the results.
#[allow(clippy::too_many_arguments)]
pub fn simulate(
    input: &Input,
    setting: &Setting,
    trace: &Trace,
    w: &Workload,
    s: &Settings,
    book: &PriceBook,
    today: &str,
    record: bool,
) -> Results {
    let prio = priority(input.plan, input.spec);
    let o = engine::run(&Run {
        setting,
        trace,
        workload: w,
        priority: &prio,
        choices: s.choices,
        seed: s.seed,
        record,
        standby: s.standby.as_ref(),
    });
    let (_, cost) = price(input, &o, book, today);
    results(input, setting, trace, w, s, o, cost)
}

/// Figures from an outcome.
pub fn results(
    input: &Input,
    setting: &Setting,
    trace: &Trace,
    w: &Workload,
    s: &Settings,
    o: Outcome,
    cost: Cost,
) -> Results {
    let waits = Waits {
        p50: o.wait_percentile(0.50),
        p95: o.wait_percentile(0.95),
        p99: o.wait_percentile(0.99),
        max: o.wait_max(),
    };
    let b = bound::lower_bound(trace, w, s.wait_target_minutes, s.quantile);
    let total = o.instance_minutes as f64 / 60.0;
    let met = o.wait_percentile(s.quantile) <= f64::from(s.wait_target_minutes);
    Results {
        spec: input.spec.metadata.name.clone(),
        file: input.file.to_string(),
        vm_size: input.size.name.clone(),
        trace: TraceInfo {
            source: trace.source.clone(),
            start: trace.start.to_string(),
            minutes: trace.minutes(),
            jobs: trace.jobs(),
        },
        workload: w.clone(),
        choices: s.choices,
        wait_minutes: waits,
        wait_target: WaitTarget {
            minutes: s.wait_target_minutes,
            quantile: s.quantile,
            met,
        },
        backlog_peak: o.backlog_peak,
        peak_instances: o.peak_instances,
        instance_hours: InstanceHours {
            total,
            regular: o.regular_minutes as f64 / 60.0,
            spot: o.spot_minutes as f64 / 60.0,
            idle: o.idle_minutes as f64 / 60.0,
            provisioning: o.provisioning_minutes as f64 / 60.0,
        },
        scale_actions: ScaleActions {
            out: o.scale_out,
            in_: o.scale_in,
            deferred_in: o.deferred_scale_in,
            reduced_in: o.reduced_scale_in,
            cooldown_skips: o.cooldown_skips,
            missing_metric: o.missing_metric_evaluations,
        },
        evictions: o.evictions,
        restarted_jobs: o.restarted_jobs,
        restarted_by_scale_in: o.restarted_by_scale_in,
        unfinished_jobs: o.unfinished,
        lower_bound: LowerBound {
            instance_hours: b.instance_hours,
            ratio: (b.instance_hours > 0.0).then(|| total / b.instance_hours),
            jobs_counted: b.jobs_counted,
            definition: b.definition,
        },
        cost,
        assumptions: {
            let mut a = assumptions(w, s);
            if s.standby.is_some() && setting.zones > 1 {
                a.push(format!(
                    "standby pool across {} zones: a scale-out takes a ready pooled VM of the zone the scale set puts the new VM in, else it creates one (standby-pools overview, Availability zones); ASSUMPTION: {}",
                    setting.zones,
                    crate::facts::standby::POOL_ZONE_SPREAD.what
                ));
            }
            a
        },
        warnings: Vec::new(),
        measured: None,
        profile_names: setting.profiles.iter().map(|p| p.name.clone()).collect(),
        outcome: o,
    }
}

/// Every modelling assumption, in words (also in `--help` and the README).
pub fn assumptions(w: &Workload, s: &Settings) -> Vec<String> {
    vec![
        format!(
            "the engine evaluates the rendered autoscale setting once a minute{}; the queue metric at the end of each minute counts {}",
            if s.choices.metric_delay_minutes > 0 {
                format!(
                    ", reading the metric {} min late (assumption: {})",
                    s.choices.metric_delay_minutes,
                    crate::facts::autoscale::METRIC_DELAY.what
                )
            } else {
                " with no collection delay".to_string()
            },
            if s.choices.queue_metric_counts_in_service {
                "the waiting messages and those a worker holds (--queue-metric-counts-in-service: against Microsoft's Service Bus reference, which counts only messages ready for delivery)"
            } else {
                "the waiting messages only, not those a worker holds: Service Bus counts active messages ready for delivery (Learn, monitor-service-bus-reference); for storage queues Microsoft does not say, and gpuform assumes the same (conservative; --queue-metric-counts-in-service counts them)"
            }
        ),
        format!(
            "jobs wait FIFO and take {} (exactly, to the second) on one of {} slot(s) per instance; {} a new instance serves {} min after the scale-out ({}{})",
            w.job_time_text(),
            w.concurrency,
            match s.choices.arrivals {
                engine::Arrivals::StartOfMinute => "a minute's arrivals come at its start;",
                engine::Arrivals::Spread => "a minute's arrivals are spread over it;",
            },
            (f64::from(w.provisioning_minutes) * s.choices.provisioning_factor).round(),
            w.provisioning_source,
            if (s.choices.provisioning_factor - 1.0).abs() > 1e-9 {
                format!(", x{}", s.choices.provisioning_factor)
            } else {
                String::new()
            }
        ),
        match s.choices.scale_in_order {
            engine::ScaleInOrder::Default => "scale-in removes VMs by the rendered scale-in policy Default (Learn, virtual-machine-scale-sets-scale-in-policy): balanced across zones, then the highest instance ID, busy or not (keeping the priority mix); the jobs of a removed or evicted instance go back to the head of the queue and start again (restartedJobs)".to_string(),
            engine::ScaleInOrder::IdleFirst => "scale-in removes booting instances first, then idle ones, then the least busy (--scale-in-order idle-first: autoscale cannot see busy VMs, so this is optimistic); the jobs of a removed or evicted instance go back to the head of the queue and start again".to_string(),
        },
        format!(
            "not documented by Microsoft: at 0 instances a per-instance metric is {} (--zero-instances); at a profile switch the count is clamped to the new limits {} (--profile-switch)",
            match s.choices.zero_instances {
                engine::ZeroInstances::One => "divided by 1",
                engine::ZeroInstances::Missing => "missing (the profile's default applies)",
            },
            match s.choices.profile_switch {
                engine::ProfileSwitch::Immediate => "at once, even in a cooldown",
                engine::ProfileSwitch::AfterCooldown => "after the cooldown",
            }
        ),
        "a schedule start inside a daylight-saving gap moves to the first minute after the gap; in a repeated hour the first occurrence counts".into(),
        if w.spot_evictions_per_hour > 0.0 {
            format!(
                "Spot instances are evicted at {} per instance-hour (evictionPolicy Delete: capacity drops and autoscale sees it)",
                w.spot_evictions_per_hour
            )
        } else {
            "no Spot evictions (--spot-evictions-per-hour)".into()
        },
    ]
    .into_iter()
    .chain(s.standby.as_ref().map(|sb| {
        format!(
            "standby pool: Azure keeps max(maxReady {} - instances, minReady {}) {} VMs in it (standby-pools overview); a scale-out takes them first and they serve {} after it ({}), the rest provisions; the pool refills at the provisioning delay{}; waiting pooled VMs bill {}, and a pooled VM being built bills compute for the provisioning delay (it runs until it is deallocated); a scale-in deletes VMs, it does not return them to the pool (standby-pools overview, Scaling){}",
            sb.max_ready,
            sb.min_ready,
            sb.vm_state.to_lowercase(),
            standby::minutes_label(sb.start_seconds),
            sb.start_source,
            if sb.post_provisioning_seconds > 0 {
                format!(
                    " plus postProvisioningDelay {} (ASSUMPTION: the pooled VM runs, billed as compute, until it is available: {})",
                    standby::minutes_label(sb.post_provisioning_seconds),
                    crate::facts::standby::POST_PROVISIONING_DELAY_RUNS.what
                )
            } else {
                String::new()
            },
            if sb.bills_compute { "compute and disks" } else { "their disks only" },
            if sb.bills_compute {
                String::new()
            } else {
                format!(
                    "; every start succeeds (not modelled: a {} VM reserves no capacity, standby-pools FAQ)",
                    sb.vm_state.to_lowercase()
                )
            }
        )
    }))
    .collect()
}
