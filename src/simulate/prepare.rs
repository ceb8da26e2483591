//! What `simulate` and `cost --trace` make of their shared flags: the workload model, the
//! trace (a file, arrivals already pulled, or a synthetic week), the run settings and the
//! telemetry measurement, for a checked, planned spec.

use crate::diag::failure::{Failure, read_input};
use crate::plan::Plan;

use super::Settings;
use super::engine::Choices;
use super::load::{self, Trace};
use super::measured::{self, Measured};
use super::model::{Overrides, Workload, ceil_minutes, parse_flag_duration};
use super::pull::Telemetry;

/// A duration flag (ISO 8601 or a short form) in seconds.
pub fn duration(flag: &str, v: &str) -> Result<u64, Failure> {
    parse_flag_duration(v).ok_or_else(|| {
        Failure::usage(format!("{flag} `{v}` is not a duration"))
            .help(format!("give {}", crate::spec::duration::FORMS))
    })
}

/// What [`prepare`] makes of the flags: the workload model, the trace, the run settings and the
/// telemetry measurement.
pub struct Prepared {
    pub workload: Workload,
    pub trace: Trace,
    pub settings: Settings,
    pub measured: Option<Measured>,
    pub job_time_measured: bool,
    /// What could not be read or measured (with -g: a workspace without telemetry rows).
    pub warnings: Vec<String>,
}

/// The flags `simulate` and `cost --trace` share.
pub struct LoadArgs<'a> {
    pub spec: &'a std::path::Path,
    pub trace: Option<&'a std::path::Path>,
    /// Arrivals already read (from Azure Monitor with -g), instead of `trace`.
    pub pulled: Option<Trace>,
    pub synthetic: bool,
    pub seed: u64,
    pub days: u32,
    pub start: &'a str,
    pub entity: Option<&'a str>,
    pub telemetry: Option<&'a std::path::Path>,
    pub job_duration: Option<&'a str>,
    pub provisioning: Option<&'a str>,
    pub concurrency: Option<u32>,
    pub spot_evictions_per_hour: Option<f64>,
    pub wait_p95: &'a str,
    pub choices: Choices,
    /// `--standby-start`: how long a pooled (deallocated, hibernated) VM takes to start.
    pub standby_start: Option<&'a str>,
}

/// The workload model, the trace, the run settings and the telemetry measurement for a
/// checked, planned spec (shared with `cost --trace`).
pub fn prepare(
    checked: &crate::spec::Checked,
    plan: &Plan,
    a: &LoadArgs,
) -> Result<Prepared, Failure> {
    prepare_pulled(checked, plan, a, &Telemetry::default())
}

/// [`prepare`] with the GPU telemetry `-g` read from the workspace beside the arrivals
/// (`a.pulled`): measured where `--telemetry FILE` is, unless a file is given (it wins).
pub fn prepare_pulled(
    checked: &crate::spec::Checked,
    plan: &Plan,
    a: &LoadArgs,
    pulled: &Telemetry,
) -> Result<Prepared, Failure> {
    let wait = duration("--wait-p95", a.wait_p95)?;
    let spec = checked
        .spec
        .as_ref()
        .ok_or_else(|| Failure::usage(format!("{} could not be read", a.spec.display())))?;
    let file_trace = match a.trace {
        _ if a.pulled.is_some() => a.pulled.clone(),
        Some(path) => {
            // the bounded reader every file goes through: regular files only, so a FIFO or
            // /dev/zero cannot hang the run or exhaust memory
            let text = read_input(path, crate::io::limits::TRACE, "the trace")?;
            let entity = a
                .entity
                .map(str::to_string)
                .or_else(|| plan.queue.as_ref().map(|q| q.queue.clone()));
            Some(
                load::parse(&path.display().to_string(), &text, entity.as_deref())
                    .map_err(|e| Failure::usage(e.to_string()).help(e.help()))?,
            )
        }
        None => None,
    };
    let mut job_duration_secs = a
        .job_duration
        .map(|v| duration("--job-duration", v))
        .transpose()?;
    let mut measured = None;
    let mut job_time_measured = false;
    let concurrency = a
        .concurrency
        .or(spec.spec.workload.concurrent_jobs_per_instance)
        .unwrap_or(1)
        .max(1);
    let threshold = spec.spec.monitoring.gpu.idle_threshold_percent;
    if let Some(path) = a.telemetry {
        let trace = file_trace.as_ref().ok_or_else(|| {
            Failure::usage("--telemetry needs --trace: the telemetry is compared with the queue load of the same days")
        })?;
        let text = read_input(path, crate::io::limits::EXPORT, "the telemetry export")?;
        let m = measured::measure(
            &path.display().to_string(),
            &text,
            trace,
            threshold,
            concurrency,
        )
        .map_err(|e| {
            Failure::usage(e.0).help(
                "az monitor log-analytics query -w WORKSPACE_GUID --analytics-query 'GpuTelemetry_CL | where TimeGenerated between (datetime(START) .. datetime(END)) | project TimeGenerated, Computer, GpuIndex, UtilizationPercent, Status' > gpu.json",
            )
        })?;
        measured = Some(m);
    } else if let (Some(c), Some(trace)) = (&pulled.counts, &file_trace) {
        measured = Some(measured::from_counts(c, trace, threshold, concurrency));
    }
    if let Some(m) = &measured
        && job_duration_secs.is_none()
        && spec.spec.workload.job_duration.is_none()
        && let Some(minutes) = m.estimated_job_minutes
    {
        job_duration_secs = Some(((minutes * 60.0).round() as u64).max(1));
        job_time_measured = true;
    }
    let o = Overrides {
        job_duration_secs,
        provisioning_secs: a
            .provisioning
            .map(|v| duration("--provisioning", v))
            .transpose()?,
        concurrency: a.concurrency,
        spot_evictions_per_hour: match a.spot_evictions_per_hour {
            Some(r) if !(r.is_finite() && r >= 0.0) => {
                return Err(Failure::usage(
                    "--spot-evictions-per-hour must be a number of 0 or more",
                ));
            }
            r => r,
        },
    };
    let size = checked.size().ok_or_else(|| {
        Failure::usage(format!(
            "{}: the size is not in the catalog",
            a.spec.display()
        ))
    })?;
    let workload = Workload::from_spec(spec, &size.series, plan.compute.image.has_gpu_drivers, &o)
        .map_err(|e| {
            Failure::usage(format!("{}: {e}", a.spec.display())).help(
                "add `jobDuration: PT2M` under `workload` in the spec, or pass --job-duration PT2M",
            )
        })?;
    let trace = if let Some(t) = file_trace {
        t
    } else if a.synthetic {
        super::synthetic_for(spec, &workload, a.seed, a.days, a.start)
            .generate()
            .map_err(|e| Failure::usage(format!("--start: {e}")))?
    } else {
        return Err(Failure::usage("give --trace FILE or --synthetic"));
    };
    if trace.minutes() == 0 {
        return Err(Failure::usage("the trace is empty"));
    }
    let settings = Settings {
        choices: a.choices,
        wait_target_minutes: ceil_minutes(wait),
        quantile: 0.95,
        seed: a.seed,
        standby: match &plan.standby {
            Some(p) => Some(super::standby::Standby::from_plan(
                p,
                a.standby_start
                    .map(super::standby::parse_start)
                    .transpose()
                    .map_err(Failure::usage)?,
            )),
            None => None,
        },
    };
    Ok(Prepared {
        workload,
        trace,
        settings,
        measured,
        job_time_measured,
        warnings: pulled.warnings.clone(),
    })
}

/// `--trace`: replay the trace through the rendered autoscale setting (as `gpuform simulate`
/// does, with its defaults) and return the monthly instance-hours it measured.
/// `spec_path` names the spec in messages; `job_duration` and `provisioning` are the flags of
/// the same names.
pub fn trace_hours(
    spec_path: &std::path::Path,
    trace: &std::path::Path,
    job_duration: Option<&str>,
    provisioning: Option<&str>,
    checked: &crate::spec::Checked,
    plan: &Plan,
    spec: &crate::spec::model::Spec,
) -> Result<crate::cost::SimulatedHours, Failure> {
    let Prepared {
        workload,
        trace,
        settings,
        ..
    } = prepare(
        checked,
        plan,
        &LoadArgs {
            pulled: None,
            spec: spec_path,
            trace: Some(trace),
            synthetic: false,
            seed: 1,
            days: 7,
            start: "",
            entity: None,
            telemetry: None,
            job_duration,
            provisioning,
            concurrency: None,
            spot_evictions_per_hour: None,
            wait_p95: "PT10M",
            choices: Default::default(),
            standby_start: None,
        },
    )?;
    let setting = super::setting(plan, spec)
        .map_err(|e| Failure::usage(format!("{}: {e}", spec_path.display())))?;
    let o = super::engine::run(&super::engine::Run {
        setting: &setting,
        trace: &trace,
        workload: &workload,
        priority: &super::priority(plan, spec),
        choices: settings.choices,
        seed: settings.seed,
        record: false,
        standby: settings.standby.as_ref(),
    });
    Ok(super::monthly_hours(&o))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duration_flags_take_iso_and_short_forms() {
        assert_eq!(duration("--x", "PT2M").unwrap(), 120);
        assert_eq!(duration("--x", "45s").unwrap(), 45);
        let f = duration("--wait-p95", "soon").unwrap_err();
        assert_eq!(f.message, "--wait-p95 `soon` is not a duration");
    }
}
