//! `gpuform simulate` for a request-driven pool (issue 36): replay per-minute request counts
//! through the rendered autoscale setting on Application Gateway's
//! `AvgRequestCountPerHealthyHost`, and measure latency, VM-hours, idle GPUs and cost against a
//! clairvoyant reference.
//!
//! - [`pool`]: the autoscale trajectory (the queue replay's evaluation, [`crate::simulate::engine::Autoscaler`]);
//! - [`des`]: the seeded request-level simulation the report shows;
//! - [`fluid`]: the analytic model (Erlang C per minute and a backlog carried across
//!   saturated minutes) the tuner screens with; [`erlang`]: the closed forms;
//! - [`bound`]: the clairvoyant reference; [`results`]: the figures; [`report`]: text and JSON;
//! - [`prepare`]: the model from `plan.serving` and the trace; the run and the tune are
//!   [`super::serving_command`] (beside `tune`, which drives this module).
//!
//! Why two latency models: the report's figures come from simulating each request (arrival
//! times, round robin, per-VM queues, scale-in cuts), which is exact for the model but costs a
//! few seconds a week at thousands of requests a minute; the tuner scores thousands of
//! policies under a dozen variants, so it screens with the analytic model (a week in about a
//! millisecond) and confirms its proposal with the simulation. Both are compared with the
//! M/M/c closed form and with each other in the tests (`tests/simulate_serving.rs`).

pub mod bound;
pub mod des;
pub mod erlang;
pub mod fluid;
pub mod hist;
pub mod pool;
pub mod prepare;
pub mod report;
pub mod results;

use serde::Serialize;

use super::engine::{Choices, Setting, ZeroInstances};
use super::load::Trace;
use crate::cost::usage::Priority;

/// What a request-driven pool is made of, read from `plan.serving` (flags may override).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Model {
    /// Requests one VM serves at once (vLLM's `max_num_seqs`, ...).
    pub concurrency: u32,
    /// Mean seconds of one request at that concurrency.
    pub service_seconds: f64,
    /// Where the service time came from.
    pub service_from: String,
    /// The p95 of one request's service time alone: measured (`serving.serviceTimeP95`), else
    /// the exponential's (mean × ln 20, the conservative default); see [`erlang::Service`].
    pub service_p95_seconds: f64,
    /// Where that p95 came from.
    pub service_p95_from: String,
    /// Minutes from a scale-out until the VM is healthy (boot, extensions, model load).
    pub ready_minutes: u32,
    pub ready_from: String,
    /// The latency target (seconds) and the share of requests that must meet it.
    pub latency_target_seconds: f64,
    pub quantile: f64,
    /// Application Gateway's backend request timeout.
    pub request_timeout_seconds: f64,
    /// Connection draining: how long a VM a scale-in removes may finish its requests.
    pub drain_seconds: f64,
    pub spot_evictions_per_hour: f64,
    /// GPUs of one VM (for idle GPU-hours; 1 where the catalog does not say).
    pub gpus_per_instance: f64,
}

/// Why a request-driven model cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    #[error("the spec's serving block gives no concurrency (requests one VM serves at once)")]
    NoConcurrency,
    #[error(
        "the spec's serving block gives no service time (serviceTime, or tokensPerSecond with outputTokens)"
    )]
    NoServiceTime,
    #[error("no latency target: the spec has no serving.latencyP95 and no --latency-p95 was given")]
    NoTarget,
}

/// The command line's overrides.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub concurrency: Option<u32>,
    pub service_seconds: Option<f64>,
    /// `--provisioning`: replaces the model load time.
    pub ready_seconds: Option<u64>,
    pub latency_target_seconds: Option<f64>,
    pub spot_evictions_per_hour: Option<f64>,
}

impl Model {
    /// Requests a minute one VM serves when every slot is busy.
    pub fn capacity_per_minute(&self) -> f64 {
        60.0 * f64::from(self.concurrency) / self.service_seconds
    }

    /// One request's service time: the mean and p95 as a shifted exponential.
    pub fn service(&self) -> erlang::Service {
        erlang::Service::from_p95(self.service_seconds, self.service_p95_seconds)
    }

    /// Whether the service alone, without any wait, reaches the latency target at the quantile
    /// (else no number of VMs meets it).
    pub fn reachable(&self) -> bool {
        self.service().quantile(self.quantile) <= self.latency_target_seconds + 1e-9
    }

    pub fn knobs(&self) -> des::Knobs {
        des::Knobs {
            concurrency: self.concurrency,
            service_seconds: self.service_seconds,
            service_shift_seconds: self.service().shift,
            drain_seconds: self.drain_seconds,
            request_timeout_seconds: self.request_timeout_seconds,
        }
    }
}

/// The choices a request-driven replay starts from: as given, but with no healthy host the
/// gateway's per-host value is missing unless `--zero-instances one` says otherwise (see
/// [`pool`]); `zero_given`: the flag was given.
pub fn choices(mut c: Choices, zero_given: bool) -> Choices {
    if !zero_given {
        c.zero_instances = ZeroInstances::Missing;
    }
    c
}

/// One replay under `choices` (their load change and provisioning factor applied): the trace
/// replayed and the pool's trajectory.
pub fn replay(
    setting: &Setting,
    trace: &Trace,
    priority: &Priority,
    choices: &Choices,
    m: &Model,
    seed: u64,
) -> (Trace, pool::Pool) {
    let t = if choices.load.is_nominal() {
        trace.clone()
    } else {
        choices.load.apply(trace)
    };
    let ready =
        (f64::from(m.ready_minutes) * choices.provisioning_factor.max(0.0)).round() as usize;
    let p = pool::replay(
        setting,
        &t,
        priority,
        choices,
        ready,
        m.spot_evictions_per_hour,
        seed,
    );
    (t, p)
}

/// The analytic figures of one policy under `choices` (the tuner's score).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Screened {
    /// The latency quantile (`None`: more than `1 - q` of the requests fail).
    pub latency: Option<f64>,
    /// Share of the requests within the target.
    pub within_target: f64,
    pub instance_minutes: u64,
    pub spot_minutes: u64,
    pub minutes: usize,
    pub meets: bool,
}

/// Screen a policy with the analytic model.
pub fn screen(
    setting: &Setting,
    trace: &Trace,
    priority: &Priority,
    choices: &Choices,
    m: &Model,
    seed: u64,
) -> Screened {
    let (t, p) = replay(setting, trace, priority, choices, m, seed);
    let a = fluid::run(&p, &t, m.concurrency, m.service());
    let within = a.share_within(m.latency_target_seconds, false);
    Screened {
        latency: a.quantile(m.quantile, false),
        within_target: within,
        instance_minutes: p.instance_minutes(),
        spot_minutes: p.spot_minutes(),
        minutes: t.minutes(),
        meets: within >= m.quantile - 1e-12,
    }
}

/// Simulate every request (the report's figures) and the analytic model beside it.
pub fn simulate(
    setting: &Setting,
    trace: &Trace,
    priority: &Priority,
    choices: &Choices,
    m: &Model,
    seed: u64,
) -> (Trace, pool::Pool, des::Served, fluid::Analytic) {
    let (t, p) = replay(setting, trace, priority, choices, m, seed);
    let served = des::run(&p, &t, &m.knobs(), seed);
    let a = fluid::run(&p, &t, m.concurrency, m.service());
    (t, p, served, a)
}
