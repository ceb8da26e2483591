//! The figures of one request-driven `simulate` run (JSON keys: add, never rename).

use serde::Serialize;

use super::super::engine::{Choices, Outcome, Setting, ZeroInstances};
use super::super::load::Trace;
use super::super::results::{Cost, InstanceHours, ScaleActions};
use super::super::{Input, price, priority};
use super::bound::{self, Bound};
use super::des::Served;
use super::fluid::Analytic;
use super::pool::Pool;
use super::{Model, simulate};
use crate::cost::PriceBook;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Percentiles {
    /// Seconds; `null` where the rank falls among failed requests.
    pub p50: Option<f64>,
    pub p95: Option<f64>,
    pub p99: Option<f64>,
    pub max: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LatencyTarget {
    pub seconds: f64,
    pub quantile: f64,
    pub met: bool,
    /// Share of all requests (failed ones included) within the target.
    pub within_share: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Requests {
    pub total: u64,
    pub served: u64,
    /// Arrived while no VM was healthy: the gateway's 502.
    pub failed_no_healthy: u64,
    /// Held by a VM a scale-in removed past the drain timeout, or evicted.
    pub failed_cut: u64,
    /// Took longer than the gateway's request timeout.
    pub over_request_timeout: u64,
}

/// The analytic model's figures beside the simulation's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnalyticFigures {
    pub latency_seconds: Percentiles,
    pub within_share: f64,
    pub failed: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServingBound {
    pub instance_hours: f64,
    /// Simulated VM-hours over the reference (`null` when it is 0).
    pub ratio: Option<f64>,
    pub peak_instances: u32,
    pub definition: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TraceInfo {
    pub minutes: usize,
    pub requests: u64,
    /// Minutes with no request (the gateway reports no data point then).
    pub idle_minutes: usize,
}

/// The figures of one run.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServingResults {
    pub spec: String,
    pub file: String,
    pub vm_size: String,
    pub mode: &'static str,
    pub trace_source: String,
    pub trace_start: String,
    pub trace: TraceInfo,
    pub model: Model,
    pub choices: Choices,
    pub latency_seconds: Percentiles,
    pub wait_seconds: Percentiles,
    pub latency_target: LatencyTarget,
    pub analytic: AnalyticFigures,
    pub requests: Requests,
    pub peak_instances: u32,
    pub mean_instances: f64,
    pub instance_hours: InstanceHours,
    /// Healthy VMs' unused capacity, in GPU-hours (idle instance-hours × GPUs per VM).
    pub idle_gpu_hours: f64,
    pub scale_actions: ScaleActions,
    pub evictions: u32,
    pub lower_bound: ServingBound,
    pub cost: Cost,
    pub assumptions: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    #[serde(skip)]
    pub pool: Pool,
}

fn percentiles(h: &super::hist::Histogram, failed: u64) -> Percentiles {
    Percentiles {
        p50: h.percentile(0.50, failed),
        p95: h.percentile(0.95, failed),
        p99: h.percentile(0.99, failed),
        max: h.max(),
    }
}

/// The queue engine's outcome with the pool's VM-minutes, for `gpuform cost`.
pub fn as_outcome(p: &Pool, minutes: usize) -> Outcome {
    let total = p.instance_minutes();
    let spot = p.spot_minutes();
    Outcome {
        minutes,
        instance_minutes: total,
        spot_minutes: spot,
        regular_minutes: total - spot,
        peak_instances: p.peak,
        ..Default::default()
    }
}

/// Simulate, price and gather.
#[allow(clippy::too_many_arguments)]
pub fn run(
    input: &Input,
    setting: &Setting,
    trace: &Trace,
    m: &Model,
    choices: &Choices,
    seed: u64,
    book: &PriceBook,
    today: &str,
) -> ServingResults {
    let prio = priority(input.plan, input.spec);
    let (t, p, served, analytic) = simulate(setting, trace, &prio, choices, m, seed);
    let (_, cost) = price(input, &as_outcome(&p, t.minutes()), book, today);
    gather(input, &t, m, choices, p, &served, &analytic, cost)
}

#[allow(clippy::too_many_arguments)]
fn gather(
    input: &Input,
    t: &Trace,
    m: &Model,
    choices: &Choices,
    p: Pool,
    s: &Served,
    a: &Analytic,
    cost: Cost,
) -> ServingResults {
    let failed = s.failed();
    let within = if s.requests == 0 {
        1.0
    } else {
        s.latency.at_most(m.latency_target_seconds) as f64 / s.requests as f64
    };
    let b: Bound = bound::lower_bound(
        t,
        m.concurrency,
        m.service(),
        m.latency_target_seconds,
        m.quantile,
    );
    let total = p.instance_minutes() as f64 / 60.0;
    let busy_instance_minutes = s.busy_seconds / f64::from(m.concurrency.max(1)) / 60.0;
    let idle = (p.healthy_minutes() as f64 - busy_instance_minutes).max(0.0) / 60.0;
    let minutes = t.minutes();
    ServingResults {
        spec: input.spec.metadata.name.clone(),
        file: input.file.to_string(),
        vm_size: input.size.name.clone(),
        mode: "requests",
        trace_source: t.source.clone(),
        trace_start: t.start.to_string(),
        trace: TraceInfo {
            minutes,
            requests: s.requests,
            idle_minutes: t.arrivals.iter().filter(|&&a| a == 0).count(),
        },
        model: m.clone(),
        choices: *choices,
        latency_seconds: percentiles(&s.latency, failed),
        wait_seconds: percentiles(&s.wait, failed),
        latency_target: LatencyTarget {
            seconds: m.latency_target_seconds,
            quantile: m.quantile,
            met: within >= m.quantile,
            within_share: within,
        },
        analytic: AnalyticFigures {
            latency_seconds: Percentiles {
                p50: a.quantile(0.50, false),
                p95: a.quantile(0.95, false),
                p99: a.quantile(0.99, false),
                max: f64::NAN,
            },
            within_share: a.share_within(m.latency_target_seconds, false),
            failed: a.failed,
        },
        requests: Requests {
            total: s.requests,
            served: s.requests - failed,
            failed_no_healthy: s.failed_no_healthy,
            failed_cut: s.failed_cut,
            over_request_timeout: s.over_timeout,
        },
        peak_instances: p.peak,
        mean_instances: if minutes == 0 {
            0.0
        } else {
            p.instance_minutes() as f64 / minutes as f64
        },
        instance_hours: InstanceHours {
            total,
            regular: (p.instance_minutes() - p.spot_minutes()) as f64 / 60.0,
            spot: p.spot_minutes() as f64 / 60.0,
            idle,
            provisioning: p.loading_minutes() as f64 / 60.0,
        },
        idle_gpu_hours: idle * m.gpus_per_instance,
        scale_actions: ScaleActions {
            out: p.scale_out,
            in_: p.scale_in,
            deferred_in: p.evaluations.deferred_scale_in,
            reduced_in: p.evaluations.reduced_scale_in,
            cooldown_skips: p.evaluations.cooldown_skips,
            missing_metric: p.evaluations.missing_metric,
        },
        evictions: p.evictions,
        lower_bound: ServingBound {
            instance_hours: b.instance_hours,
            // a target the service alone misses has no reference: no number of VMs meets it
            ratio: (b.instance_hours > 0.0 && m.reachable()).then(|| total / b.instance_hours),
            peak_instances: b.peak_instances,
            definition: b.definition,
        },
        cost,
        assumptions: assumptions(m, choices),
        warnings: unreachable(m).into_iter().collect(),
        pool: p,
    }
}

/// The warning when the latency target is below what the service alone reaches at its
/// quantile: no number of VMs meets it, and the reference has no ratio.
pub fn unreachable(m: &Model) -> Option<String> {
    (!m.reachable()).then(|| {
        format!(
            "the target p{:.0} <= {:.1} s is below what one request's service alone takes at p{:.0} ({:.1} s: {}): no number of VMs meets it, and the clairvoyant reference gives no ratio; raise serving.latencyP95 (or --latency-p95) above it, or give the measured serving.serviceTimeP95 if your requests vary less",
            m.quantile * 100.0,
            m.latency_target_seconds,
            m.quantile * 100.0,
            m.service().quantile(m.quantile),
            if m.service().shift > 0.0 {
                m.service_p95_from.clone()
            } else {
                format!("exponential, {:.2} s x ln 20", m.service_seconds)
            }
        )
    })
}

/// Every modelling assumption of the request-driven replay, in words.
pub fn assumptions(m: &Model, c: &Choices) -> Vec<String> {
    vec![
        format!(
            "autoscale reads Application Gateway's AvgRequestCountPerHealthyHost once a minute (requests a minute per healthy backend host, Average, PT1M{}); a minute without requests has no data point (the gateway does not report the metric without traffic), and with no healthy host the value is {} (not documented by Microsoft; --zero-instances)",
            if c.metric_delay_minutes > 0 {
                format!(", read {} min late", c.metric_delay_minutes)
            } else {
                String::new()
            },
            match c.zero_instances {
                ZeroInstances::Missing => "missing (the profile's default applies)",
                ZeroInstances::One => "the requests divided by 1",
            }
        ),
        format!(
            "a new VM is billed from its scale-out and healthy {} min later ({}{}); until then it serves nothing and does not count as a healthy host",
            (f64::from(m.ready_minutes) * c.provisioning_factor).round(),
            m.ready_from,
            if (c.provisioning_factor - 1.0).abs() > 1e-9 {
                format!(", x{}", c.provisioning_factor)
            } else {
                String::new()
            }
        ),
        format!(
            "requests arrive at random times within each minute (Poisson), the gateway sends each to the next healthy VM in turn, and each VM serves {} at once, first come first served, each taking {:.2} s on average ({}), {}; latency is the wait at the VM plus the service",
            m.concurrency,
            m.service_seconds,
            m.service_from,
            if m.service().shift > 0.0 {
                format!(
                    "{:.2} s at p95 ({}): a constant {:.2} s then exponential, and waits as in M/G/k by Allen and Cunneen's approximation (Erlang C's chance of waiting, the mean wait scaled by (1 + CV^2) / 2)",
                    m.service_p95_seconds,
                    m.service_p95_from,
                    m.service().shift
                )
            } else {
                format!(
                    "exponentially distributed, so {:.2} s at p95 ({}: conservative for LLM completions, whose lengths vary less; serving.serviceTimeP95 gives a measured p95)",
                    m.service().quantile(0.95),
                    m.service_p95_from
                )
            }
        ),
        "with no healthy VM the gateway answers at once (502): those requests fail and count above every latency".into(),
        format!(
            "a VM a scale-in removes takes no new request; its requests finish if they end within the drain timeout ({} s), else they fail; a Spot eviction cuts at once",
            m.drain_seconds
        ),
        "the tuner screens policies with the analytic model (Erlang C per VM per minute, a backlog carried across saturated minutes) and confirms its proposal with the request simulation".into(),
    ]
}
