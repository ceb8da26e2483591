//! `gpuform deploy`: render the ARM template in memory, preflight, create the resource group on
//! request, PUT the deployment (Incremental) and follow it to the end with progress; or
//! `--what-if` to see the changes first (the work is in `crate::deploy::run`).

// `ArmError` carries the whole error tree; it is built once per failed call.
#![allow(clippy::result_large_err)]

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::ValueEnum;
use serde_json::json;

use super::azure_args::{AzureArgs, Session, arm_failure, runtime};
use super::common::{ExitCode, Failure, PolicyArgs, load_valid, out, styled, styled_stderr};
use crate::catalog::prices::PriceTable;
use crate::deploy::context::{Azure, Options};
use crate::deploy::progress;
use crate::deploy::run::Ended;
use crate::deploy::stop::Error;
use crate::deploy::{self, Polling, report};
use crate::preflight::report::{self as pf_report};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The spec file.
    #[arg(value_name = "SPEC")]
    pub spec: PathBuf,
    /// Resource group to deploy into.
    #[arg(long, short = 'g', value_name = "RG")]
    pub resource_group: String,
    /// Create the resource group in the spec's region (with the spec's tags) when it does not exist.
    #[arg(long)]
    pub create_resource_group: bool,
    /// Show what the deployment would change (ARM what-if) and exit; changes nothing.
    #[arg(long, alias = "dry-run")]
    pub what_if: bool,
    /// With --what-if: exit 1 when a resource, or a property of a modified one, would be deleted.
    #[arg(long, requires = "what_if")]
    pub fail_on_delete: bool,
    /// Deploy without asking (required when stdin is not a terminal, e.g. in pipelines).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Deployment name (default: metadata.name + a hash of the template and parameters).
    #[arg(long, short = 'n', value_name = "NAME")]
    pub name: Option<String>,
    /// Do not run preflight for the spec's region first.
    #[arg(long)]
    pub skip_preflight: bool,
    /// On a capacity error, stop (no failover to another zone, alternate size or region).
    #[arg(long)]
    pub no_failover: bool,
    /// Region failover deploys into a resource group per region, RG-<region> (created with the spec's tags).
    #[arg(long)]
    pub per_region_resource_group: bool,
    /// Result on stdout: text, a JSON document, or Markdown for $GITHUB_STEP_SUMMARY.
    #[arg(long, alias = "format", value_name = "FORMAT", value_enum, default_value_t = Output::Text)]
    pub output: Output,
    /// Progress on stderr: a live table (terminals), timestamped lines on changes (CI), or none.
    #[arg(long, value_enum, default_value_t = ProgressArg::Auto)]
    pub progress: ProgressArg,
    /// Seconds between polls when ARM sends no Retry-After.
    #[arg(long, value_name = "SECS", default_value_t = 5.0, hide = true)]
    pub poll_interval: f64,
    /// Seconds to wait before deploying once more after a failure from a role assignment Key
    /// Vault does not honour yet (see src/deploy/retry.rs).
    #[arg(long, value_name = "SECS", default_value_t = deploy::retry::DEFAULT_WAIT_SECS, hide = true)]
    pub role_retry_wait: f64,
    /// How long to wait for the standby pool to fill (then remediate its telemetry) or to run (a bare number: minutes).
    #[arg(long, value_name = "DURATION", default_value = "30m", value_parser = |v: &str| crate::spec::duration::flag_seconds(v, 60.0))]
    pub pool_wait: f64,
    /// Do not wait for the standby pool (exit 3 with the remediation to run later).
    #[arg(long)]
    pub no_pool_wait: bool,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProgressArg {
    Auto,
    Live,
    Plain,
    None,
}
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    args.azure.check()?;
    let secs = |flag: &str, v: f64| {
        Duration::try_from_secs_f64(v)
            .map_err(|_| Failure::usage(format!("{flag} must be a number of seconds, not {v}")))
    };
    let polling = Polling {
        interval: secs("--poll-interval", args.poll_interval)?,
        ..Polling::default()
    };
    let role_retry_wait = secs("--role-retry-wait", args.role_retry_wait)?;
    let pool_wait = deploy::context::pool_wait(args.no_pool_wait, args.pool_wait)?;
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if !args.what_if && !args.yes && !interactive {
        return Err(Failure::usage(
            "gpuform deploy changes Azure resources and asks first, but there is no terminal to ask on",
        )
        .help("in a pipeline pass --yes (review the changes with `gpuform deploy SPEC -g RG --what-if` first)"));
    }
    let policy = args.policy.load()?;
    let checked = load_valid(&args.spec, &policy, PriceTable::embedded())?;
    let spec = checked
        .spec
        .as_ref()
        .expect("a spec without errors has a model");
    let prepared = deploy::run::prepare(&checked, args.name.as_deref())
        .map_err(|e| failure(e, None, &args.spec))?;

    let session = args.azure.connect("deploy", Some(spec))?;
    let rt = runtime()?;
    let existing_pool = |rg: &str| session.existing_pool(&rt, "deploy", rg, &checked);
    let azure = Azure {
        rt: &rt,
        arm: &session.arm,
        subscription: &session.subscription,
        cloud: session.cloud,
        credential: session.choice.describe(),
        existing_pool: &existing_pool,
    };
    let opts = Options {
        spec_path: &args.spec,
        resource_group: &args.resource_group,
        create_resource_group: args.create_resource_group,
        what_if: args.what_if,
        yes: args.yes,
        skip_preflight: args.skip_preflight,
        no_failover: args.no_failover,
        per_region_resource_group: args.per_region_resource_group,
        name: args.name.as_deref(),
        polling,
        role_retry_wait,
        pool_wait,
        progress: match args.progress {
            ProgressArg::Live => progress::Mode::Live,
            ProgressArg::Plain => progress::Mode::Plain,
            ProgressArg::None => progress::Mode::Quiet,
            ProgressArg::Auto if std::io::stderr().is_terminal() => progress::Mode::Live,
            ProgressArg::Auto => progress::Mode::Plain,
        },
        styled_stderr: styled_stderr(),
    };
    let ended = deploy::run::run(&opts, &checked, prepared, &azure)
        .map_err(|e| failure(e, Some(&session), &args.spec))?;
    Ok(match ended {
        Ended::WhatIf(w) => {
            out(&match args.output {
                Output::Text => w.text(styled()),
                Output::Markdown => w.markdown(),
                Output::Json => w.json(),
            });
            if args.fail_on_delete && deploy::preview::would_delete(&w) {
                return Ok(ExitCode::Findings);
            }
            ExitCode::Ok
        }
        Ended::Blocked(report) => {
            match args.output {
                Output::Json => out(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(&json!({
                        "schemaVersion": 1,
                        "provisioningState": "NotStarted",
                        "reason": "preflight blocked the spec's region",
                        "preflight": report,
                    }))
                    .expect("serialises")
                )),
                Output::Markdown => out(&pf_report::markdown(&report)),
                Output::Text => out(&pf_report::human(&report, styled())),
            }
            eprintln!(
                "deploy: stopped before changing anything: preflight blocks {} (fix the above, or pass --skip-preflight to let ARM decide)",
                report.primary().region
            );
            ExitCode::Findings
        }
        Ended::Declined => super::common::DECLINED,
        Ended::Interrupted => ExitCode::Interrupted,
        Ended::Done(o, elapsed) => {
            match args.output {
                Output::Json => out(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(&o).expect("the outcome serialises")
                )),
                Output::Markdown => out(&report::markdown(&o)),
                Output::Text => out(&report::text(&o, elapsed)),
            }
            if o.provisioning_state == "Succeeded" && !o.follow_up.is_empty() {
                ExitCode::FollowUp
            } else if o.provisioning_state == "Succeeded" {
                ExitCode::Ok
            } else {
                ExitCode::Findings
            }
        }
    })
}

/// A deploy or destroy error for people: an Azure error names the session's credential, a
/// render error the spec file.
pub(super) fn failure(e: Error, session: Option<&Session>, spec: &Path) -> Failure {
    match e {
        Error::Arm {
            error,
            cause,
            check,
        } => {
            let mut f = match session {
                Some(s) => s.failure(&error),
                None => arm_failure(&error),
            };
            f.causes.extend(cause);
            if let Some(check) = check {
                f.help = Some(format!(
                    "{}{check}",
                    f.help.map(|h| format!("{h}; ")).unwrap_or_default()
                ));
            }
            f
        }
        Error::Render(e) => Failure::from_error(
            ExitCode::Findings,
            format!("cannot render {}", spec.display()),
            &e,
        ),
        Error::Stop(f) => f,
    }
}
