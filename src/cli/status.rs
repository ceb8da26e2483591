//! `gpuform status`: read-only view of a running pool (the work is in `crate::status`).

// `ArmError` carries the whole error tree; it is built once per failed call.
#![allow(clippy::result_large_err)]

use std::path::PathBuf;
use std::time::Duration;

use clap::ValueEnum;

use super::azure_args::{AzureArgs, runtime};
use super::common::{ExitCode, Failure, PolicyArgs, load_valid, out, plan_of};
use crate::catalog::prices::PriceTable;
use crate::status::{self, Inputs};

pub const STATUS_HELP: &str = concat!(
    "Exit codes: 0 status printed (sections Azure would not answer say \"not available: <reason>\"); 2 usage or ",
    "access errors that stop every call (credential, 401, TLS, no connection); 130 interrupted (--watch).\n\n",
    "Read-only. Sections: instances by power state, priority, zone and application health; the autoscale profile the ",
    "spec's schedules put in force now (computed in their time zones) and the setting Azure has; the queue length now ",
    "and per running instance (Azure Monitor metrics); Spot evictions and autoscale actions of the last 24 h (activity ",
    "log); for a dev box (autoShutdown on one instance) the VM's power state, priority and zone and the next ",
    "shutdown and start instead of the instances and autoscale; alerts fired in 24 h (Alerts Management); month-to-date actual cost (Cost Management query) against the ",
    "budget and `gpuform cost`'s estimate; for a serving pool the frontend's requests, healthy hosts, backend latency ",
    "and health-probe status (Azure Monitor metrics; \"no data (no traffic?)\" when idle); drift: ARM what-if of the spec's template against the group (--no-drift skips ",
    "it). Needs Reader, Monitoring Reader and Cost Management Reader on the group.\n\n",
    "A spec with alternateRegions: status reads the `<RG>-<region>` group a capacity failover deployed into (deploy ",
    "--per-region-resource-group) when the spec's deployment succeeded or runs there, and says so; two groups holding ",
    "such a deployment are refused (exit 2: name one with -g and --no-follow)."
);

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The spec file.
    #[arg(value_name = "SPEC")]
    pub spec: PathBuf,
    /// The resource group the spec is deployed in.
    #[arg(long, short = 'g', value_name = "RG")]
    pub resource_group: String,
    /// Output: text for a terminal, JSON, or Markdown for $GITHUB_STEP_SUMMARY.
    #[arg(long, alias = "format", value_name = "FORMAT", value_enum, default_value_t = Output::Text)]
    pub output: Output,
    /// Refresh every DURATION (text output) until Ctrl-C (30s, 1m; a bare number is seconds).
    #[arg(long, value_name = "DURATION", num_args = 0..=1, default_missing_value = "30s", value_parser = super::common::secs)]
    pub watch: Option<f64>,
    /// Skip the drift section (ARM what-if of the spec against the group).
    #[arg(long)]
    pub no_drift: bool,
    /// Read -g as given; without it status reads the `<RG>-<region>` group a failover landed
    /// in (deploy --per-region-resource-group) when the spec's deployment is there.
    #[arg(long)]
    pub no_follow: bool,
    /// The time to compute the active profile and the pro-rated estimate at (RFC 3339; tests).
    #[arg(long, value_name = "TIME", hide = true)]
    pub now: Option<String>,
    #[command(flatten)]
    pub azure: AzureArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Output {
    #[value(aliases = ["human", "table"])]
    Text,
    Json,
    Markdown,
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    args.azure.check()?;
    let watch = match args.watch {
        Some(s) => Some(
            Duration::try_from_secs_f64(s)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| {
                    Failure::usage(format!(
                        "--watch must be a positive number of seconds, not {s}"
                    ))
                })?,
        ),
        None => None,
    };
    let fixed_now = match &args.now {
        Some(t) => Some(
            time::OffsetDateTime::parse(t, &time::format_description::well_known::Rfc3339)
                .map_err(|e| Failure::usage(format!("--now {t:?} is not an RFC 3339 time: {e}")))?,
        ),
        None => None,
    };
    let policy = args.policy.load()?;
    let checked = load_valid(&args.spec, &policy, PriceTable::embedded())?;
    let spec = checked
        .spec
        .as_ref()
        .expect("a spec without errors has a model");
    let plan = plan_of(&checked, &args.spec, ExitCode::Findings)?;
    let estimate = checked.size().map(|size| {
        let now = fixed_now.unwrap_or_else(time::OffsetDateTime::now_utc);
        let opts = crate::cost::Options {
            today: format!(
                "{:04}-{:02}-{:02}",
                now.year(),
                u8::from(now.month()),
                now.day()
            ),
            ..Default::default()
        };
        let est = crate::cost::estimate(
            spec,
            &plan,
            &args.spec.display().to_string(),
            size,
            checked.auto_sized,
            &crate::cost::PriceBook::embedded(),
            &opts,
        );
        (est.totals.expected, est.currency)
    });
    let drift_request = if args.no_drift {
        None
    } else {
        let render_failure = |e: crate::emit::RenderError| {
            Failure::from_error(
                ExitCode::Findings,
                format!("cannot render {}", args.spec.display()),
                &e,
            )
        };
        let template = crate::emit::arm_template(&checked).map_err(render_failure)?;
        let parameters = crate::emit::arm_parameters(&checked).map_err(render_failure)?;
        let request = crate::deploy::Request::new(&spec.metadata.name, template, &parameters, None)
            .map_err(Failure::usage)?;
        let mut secrets = Vec::new();
        let mut unavailable = None;
        for p in request.secure_params() {
            match std::env::var(&p.env) {
                Ok(v) if !v.is_empty() => secrets.push((p.name.clone(), v)),
                _ => {
                    unavailable = Some(format!(
                        "what-if needs the secure parameter {} (set {})",
                        p.name, p.env
                    ))
                }
            }
        }
        Some(status::DriftRequest {
            request,
            secrets,
            unavailable,
        })
    };
    let session = args.azure.connect("status", Some(spec))?;
    let rt = runtime()?;
    let spec_path = args.spec.display().to_string();
    let rg = rt
        .block_on(status::group_to_read(
            &session.arm,
            &args.resource_group,
            spec,
            &spec_path,
            args.no_follow,
        ))
        .map_err(|e| session.failure(&e))?
        .map_err(|(m, help)| Failure::usage(m).help(help))?;
    loop {
        let inputs = Inputs {
            spec,
            plan: &plan,
            rg: &rg,
            now: fixed_now.unwrap_or_else(time::OffsetDateTime::now_utc),
            estimate: estimate.clone(),
        };
        let s = rt
            .block_on(status::gather(
                &session.arm,
                &inputs,
                drift_request.as_ref(),
            ))
            .map_err(|e| session.failure(&e))?;
        let text = match args.output {
            Output::Text => status::text(&s),
            Output::Json => status::json(&s),
            Output::Markdown => status::markdown(&s),
        };
        let Some(every) = watch else {
            out(&text);
            if s.nothing_available() {
                eprintln!(
                    "status: Azure gave none of the sections (see each `not available` reason); exit 2"
                );
                return Ok(ExitCode::Usage);
            }
            return Ok(ExitCode::Ok);
        };
        // clear the screen and home the cursor, then the new view
        out(&format!(
            "\x1b[2J\x1b[H{text}\n(refreshing every {}s; Ctrl-C to stop)\n",
            every.as_secs_f64()
        ));
        let stop = rt.block_on(async {
            tokio::select! {
                _ = tokio::time::sleep(every) => false,
                _ = tokio::signal::ctrl_c() => true,
            }
        });
        if stop {
            return Ok(ExitCode::Interrupted);
        }
    }
}
