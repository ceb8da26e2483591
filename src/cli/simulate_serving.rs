//! `gpuform simulate` of a serving spec (a request-driven pool behind its gateway; `cli::mod`
//! sends it here when the spec has `serving`): the queue-only flags it refuses, the output. The work is in
//! `crate::simulate::serving` (run) and `crate::simulate::tune::serving_spec` (tune).

use super::common::{ExitCode, Failure, load_valid, out, plan_of};
use super::simulate::{Args, Format};
use crate::catalog::prices::PriceTable;
use crate::simulate::command::write_atomic;
use crate::simulate::engine::ZeroInstances;
use crate::simulate::serving::prepare::{self, prepare};
use crate::simulate::serving::report;
use crate::simulate::serving_command::{self as command, Loaded, Options};
use crate::simulate::tune::serving_report;

/// The flags of a queue-driven replay that mean nothing for requests, refused by name.
fn refuse_queue_flags(a: &Args) -> Result<(), Failure> {
    let file = a.spec.display();
    let refuse = |flag: &str, why: &str| {
        Err(Failure::usage(format!(
            "{flag} does not apply to {file}: it is a request-driven pool (serving); {why}"
        )))
    };
    if a.resource_group.is_some() {
        return refuse(
            "-g",
            "export the gateway's requests with `az monitor metrics list --resource GATEWAY_ID --metric TotalRequests FailedRequests --interval PT1M --aggregation Total -o json > requests.json` and pass --trace requests.json",
        );
    }
    if a.synthetic {
        return refuse(
            "--synthetic",
            "give its requests a minute with --trace (a CSV `timestamp,requests`)",
        );
    }
    if a.telemetry.is_some() {
        return refuse("--telemetry", "its replay reads no GPU telemetry");
    }
    if a.job_duration.is_some() {
        return refuse(
            "--job-duration",
            "a request's time is serving.serviceTime (or tokensPerSecond with outputTokens)",
        );
    }
    if a.svg.is_some() {
        return refuse(
            "--svg",
            "its chart is not drawn yet; --output json has the figures",
        );
    }
    if a.standby_start.is_some() {
        return refuse("--standby-start", "it has no standby pool");
    }
    Ok(())
}

pub fn run(a: &Args) -> Result<ExitCode, Failure> {
    refuse_queue_flags(a)?;
    let policy = a.policy.load()?;
    let checked = load_valid(&a.spec, &policy, PriceTable::embedded())?;
    let plan = plan_of(&checked, &a.spec, ExitCode::Usage)?;
    let prepared = prepare(
        &checked,
        &plan,
        &prepare::Args {
            spec: &a.spec,
            trace: a.trace.as_deref(),
            entity: a.entity.as_deref(),
            provisioning: a.provisioning.as_deref(),
            concurrency: a.concurrency,
            spot_evictions_per_hour: a.spot_evictions_per_hour,
            latency_p95: a.latency_p95.as_deref(),
            seed: a.seed,
            choices: crate::simulate::engine::Choices {
                zero_instances: a.zero_instances.unwrap_or(ZeroInstances::Missing),
                profile_switch: a.profile_switch,
                scale_in_order: a.scale_in_order,
                ..Default::default()
            },
            zero_given: a.zero_instances.is_some(),
        },
    )?;
    let l = Loaded {
        checked,
        plan,
        policy,
        prepared,
    };
    let file = a.spec.display().to_string();
    let done = command::run(
        &l,
        &Options {
            file: &file,
            tune: a
                .tuning
                .tune
                .then_some((!a.tuning.nominal).then_some(a.tuning.robust_share)),
            pricing: a.prices.request(a.azure.timeout, a.azure.retries),
        },
    )?;
    let r = &done.results;
    let Some(t) = &done.tuned else {
        out(&match a.format {
            Format::Text => report::text(r),
            Format::Json => report::json(r),
            Format::Markdown => report::markdown(r),
        });
        return Ok(ExitCode::Ok);
    };
    out(&match a.format {
        Format::Text => serving_report::text(r, t),
        Format::Json => serving_report::json(r, t),
        Format::Markdown => serving_report::markdown(r, t),
    });
    if !t.proposes() {
        return Ok(ExitCode::Findings);
    }
    if a.write {
        match (&t.written, &t.unwritten) {
            (Some(w), _) if !w.diff.is_empty() => {
                write_atomic(&a.spec, w.new_text.as_bytes())?;
                eprintln!("wrote {}", a.spec.display());
            }
            (Some(_), _) => {}
            (None, why) => {
                return Err(Failure::usage(format!(
                    "--write: {} was not changed: {}",
                    a.spec.display(),
                    why.as_deref()
                        .unwrap_or("the proposal could not be written")
                ))
                .help("apply the proposal printed above by hand"));
            }
        }
    }
    Ok(ExitCode::Ok)
}
