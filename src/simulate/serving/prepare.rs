//! A request-driven run from the plan and the command line: the model ([`Model::from_plan`]:
//! `plan.serving`'s concurrency, service time, latency target, model load, request and drain
//! timeouts) and the trace (requests a minute, read expecting requests: a queue's trace is
//! refused, located).

use std::path::Path;

use super::super::engine::Choices;
use super::super::load::{self, Measure, Trace};
use super::{Model, ModelError, Overrides, choices};
use crate::diag::failure::{Failure, read_input};
use crate::plan::Plan;
use crate::plan::serving::Serving;
use crate::spec::schedule::parse_duration_millis;

/// The flags a request-driven `simulate` reads.
pub struct Args<'a> {
    pub spec: &'a Path,
    pub trace: Option<&'a Path>,
    /// `--entity`: the backend pool (`<pool>~<settings>`) of a gateway export split by
    /// `BackendSettingsPool` (default: the plan's).
    pub entity: Option<&'a str>,
    /// `--provisioning`: replaces the model load time.
    pub provisioning: Option<&'a str>,
    pub concurrency: Option<u32>,
    pub spot_evictions_per_hour: Option<f64>,
    /// `--latency-p95` (default: `serving.latencyP95`).
    pub latency_p95: Option<&'a str>,
    pub seed: u64,
    pub choices: Choices,
    /// `--zero-instances` was given (else the gateway's conservative reading, no value).
    pub zero_given: bool,
}

/// What [`prepare`] makes of them.
pub struct Prepared {
    pub model: Model,
    pub trace: Trace,
    pub choices: Choices,
    pub seed: u64,
}

impl Model {
    /// The model `plan.serving` resolves to, with the command line's overrides; `gpus`: GPUs
    /// of one VM (the catalog's; idle GPU-hours).
    pub fn from_plan(sv: &Serving, gpus: f64, o: &Overrides) -> Result<Model, ModelError> {
        let concurrency = o
            .concurrency
            .or(sv.concurrency)
            .filter(|c| *c > 0)
            .ok_or(ModelError::NoConcurrency)?;
        let (service_seconds, service_from) = match (o.service_seconds, sv.service_time_seconds) {
            (Some(s), _) if s > 0.0 => (s, "the command line".to_string()),
            (_, Some(s)) if s > 0.0 => (
                s,
                sv.service_time_from
                    .clone()
                    .unwrap_or_else(|| "serving.serviceTime".into()),
            ),
            _ => return Err(ModelError::NoServiceTime),
        };
        let latency_target_seconds = o
            .latency_target_seconds
            .or(sv.latency_p95_seconds)
            .filter(|t| *t > 0.0)
            .ok_or(ModelError::NoTarget)?;
        let (ready_seconds, ready_from) = match o.ready_seconds {
            Some(s) => (s, "--provisioning".to_string()),
            None => (
                sv.model_load_seconds,
                format!("serving.modelLoadTime, {} s", sv.model_load_seconds),
            ),
        };
        // the measured spread of the spec's own service time (a --concurrency override keeps it)
        let (service_p95_seconds, service_p95_from) = match sv.service_time_p95_seconds {
            Some(p) if o.service_seconds.is_none() && p > 0.0 => (
                p,
                sv.service_time_p95_from
                    .clone()
                    .unwrap_or_else(|| "serving.serviceTimeP95".into()),
            ),
            _ => (
                service_seconds * super::erlang::EXP_P95_FACTOR,
                "no serving.serviceTimeP95: exponential".to_string(),
            ),
        };
        Ok(Model {
            concurrency,
            service_seconds,
            service_from,
            service_p95_seconds,
            service_p95_from,
            ready_minutes: ready_seconds.div_ceil(60).min(u64::from(u32::MAX)) as u32,
            ready_from,
            latency_target_seconds,
            quantile: 0.95,
            request_timeout_seconds: sv.request_timeout_seconds as f64,
            drain_seconds: sv.drain_timeout_seconds as f64,
            spot_evictions_per_hour: o.spot_evictions_per_hour.unwrap_or(0.0).max(0.0),
            gpus_per_instance: if gpus > 0.0 { gpus } else { 1.0 },
        })
    }
}

/// A duration flag in seconds (`10s`, `800ms`, `PT10S`).
fn seconds(flag: &str, v: &str) -> Result<f64, Failure> {
    parse_duration_millis(v)
        .filter(|ms| *ms > 0)
        .map(|ms| ms as f64 / 1000.0)
        .ok_or_else(|| {
            Failure::usage(format!("{flag} `{v}` is not a duration of more than zero"))
                .help("give a short form (10s, 800ms, 2m) or ISO 8601 (PT10S)")
        })
}

/// The model and the trace of a checked, planned serving spec.
pub fn prepare(checked: &crate::spec::Checked, plan: &Plan, a: &Args) -> Result<Prepared, Failure> {
    let file = a.spec.display().to_string();
    let sv = plan
        .serving
        .as_ref()
        .ok_or_else(|| Failure::usage(format!("{file} has no `serving` block")))?;
    let size = checked
        .size()
        .ok_or_else(|| Failure::usage(format!("{file}: the size is not in the catalog")))?;
    let o = Overrides {
        concurrency: a.concurrency,
        service_seconds: None,
        ready_seconds: a
            .provisioning
            .map(|v| seconds("--provisioning", v).map(|s| s.ceil() as u64))
            .transpose()?,
        latency_target_seconds: a
            .latency_p95
            .map(|v| seconds("--latency-p95", v))
            .transpose()?,
        spot_evictions_per_hour: match a.spot_evictions_per_hour {
            Some(r) if !(r.is_finite() && r >= 0.0) => {
                return Err(Failure::usage(
                    "--spot-evictions-per-hour must be a number of 0 or more",
                ));
            }
            r => r,
        },
    };
    let model = Model::from_plan(sv, size.gpu_count.unwrap_or(1.0), &o).map_err(|e| {
        let help = match e {
            ModelError::NoConcurrency => {
                "add `concurrency: 16` under `serving` (vLLM --max-num-seqs), or pass --concurrency 16"
            }
            ModelError::NoServiceTime => {
                "add `serviceTime: 2s` under `serving` (the mean time of one request at that concurrency), or tokensPerSecond with outputTokens"
            }
            ModelError::NoTarget => {
                "add `latencyP95: 10s` under `serving`, or pass --latency-p95 10s"
            }
        };
        Failure::usage(format!("{file}: {e}")).help(help)
    })?;
    let path = a.trace.ok_or_else(|| {
        Failure::usage(format!(
            "{file} is a request-driven pool (serving): give its requests a minute with --trace FILE"
        ))
        .help("a CSV `timestamp,requests` (examples/simulate/*.requests.csv), or `az monitor metrics list --resource GATEWAY_ID --metric TotalRequests FailedRequests --interval PT1M --aggregation Total -o json` of the gateway")
    })?;
    // the bounded reader every file goes through (regular files only)
    let text = read_input(path, crate::io::limits::TRACE, "the trace")?;
    let entity = a
        .entity
        .map(str::to_string)
        .or_else(|| sv.gateway.as_ref().map(|g| g.metric_dimension.clone()));
    let (trace, _) = load::parse_expecting(
        &path.display().to_string(),
        &text,
        entity.as_deref(),
        Some(Measure::Requests),
    )
    .map_err(|e| Failure::usage(e.to_string()).help(e.help()))?;
    if trace.minutes() == 0 {
        return Err(Failure::usage("the trace is empty"));
    }
    Ok(Prepared {
        model,
        trace,
        choices: choices(a.choices, a.zero_given),
        seed: a.seed,
    })
}
