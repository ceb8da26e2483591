//! `gpuform quota request`: preflight the spec's region live, then file the missing quota
//! through the Azure Quota API and follow each request (the work is in `crate::quota`).

// `ArmError` carries the whole error tree; it is built once per failed call.
#![allow(clippy::result_large_err)]

use std::path::PathBuf;
use std::time::Duration;

use clap::ValueEnum;

use super::azure_args::{AzureArgs, Session, runtime};
use super::common::{ExitCode, Failure, PolicyArgs, load_valid, out};
use crate::catalog::prices::PriceTable;
use crate::deploy::context::Azure;
use crate::deploy::gate::live_report;
use crate::preflight::Plan;
use crate::quota::filing::{self, Filing};
pub use crate::quota::filing::{Mode, interactive};
use crate::quota::{self, Ask, Polling};

#[derive(Debug, clap::Args)]
pub struct QuotaArgs {
    #[command(subcommand)]
    pub command: QuotaCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum QuotaCommand {
    /// File the family vCPU, regional (cores) and Spot (lowPriorityCores) increases preflight
    /// says are missing, and follow each request to approval or denial.
    #[command(after_help = QUOTA_HELP)]
    Request(Args),
}

pub const QUOTA_HELP: &str = concat!(
    "Exit codes: 0 every request approved, nothing missing, or a dry run printed; 1 a request was denied, needs a ",
    "support ticket or is still in progress; 2 usage or access errors, or you answered no (nothing was requested); ",
    "130 interrupted (submitted requests keep going).\n\n",
    "Without --yes gpuform asks on a terminal, and only prints what it would request (a dry run) when there ",
    "is no terminal or CI is set. The identity needs Microsoft.Quota/quotas/write (the Quota Request Operator role) ",
    "on the subscription, and the subscription registered for Microsoft.Quota (409 MissingSubscriptionRegistration ",
    "otherwise: az provider register --namespace Microsoft.Quota, or --register-providers). Credentials, cloud and ",
    "retries work as for `gpuform preflight`."
);

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The spec file.
    #[arg(value_name = "SPEC")]
    pub spec: PathBuf,
    /// The region to request quota in (default: the spec's region).
    #[arg(long, value_name = "REGION")]
    pub region: Option<String>,
    /// The resource group the pool runs in: its running instances already count as in use.
    #[arg(long, short = 'g', value_name = "RG")]
    pub resource_group: Option<String>,
    /// Submit without asking (--submit still works).
    #[arg(
        long = "yes",
        short = 'y',
        alias = "submit",
        conflicts_with = "dry_run"
    )]
    pub submit: bool,
    /// Only print what would be requested (--dry-run still works).
    #[arg(long = "what-if", alias = "dry-run")]
    pub dry_run: bool,
    /// Result on stdout.
    #[arg(long, alias = "format", value_name = "FORMAT", value_enum, default_value_t = Output::Text)]
    pub output: Output,
    /// Stop following a request after this long (it keeps going in Azure; 15m, 1h; a bare
    /// number is seconds).
    #[arg(long, value_name = "DURATION", default_value = "15m", value_parser = super::common::secs)]
    pub wait: f64,
    /// Seconds between polls when Azure sends no Retry-After.
    #[arg(long, value_name = "SECS", default_value_t = 10.0, hide = true)]
    pub poll_interval: f64,
    /// Register Microsoft.Quota if the subscription is not registered for it (needs
    /// */register/action, e.g. Contributor), then file the requests.
    #[arg(long)]
    pub register_providers: bool,
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
}

pub fn run(args: QuotaArgs) -> Result<ExitCode, Failure> {
    match args.command {
        QuotaCommand::Request(a) => request(a),
    }
}

fn secs(flag: &str, v: f64) -> Result<Duration, Failure> {
    Duration::try_from_secs_f64(v)
        .map_err(|_| Failure::usage(format!("{flag} must be a number of seconds, not {v}")))
}

fn request(args: Args) -> Result<ExitCode, Failure> {
    args.azure.check()?;
    let polling = Polling {
        interval: secs("--poll-interval", args.poll_interval)?,
        max_total: secs("--wait", args.wait)?,
        register_provider: args.register_providers,
        ..Polling::default()
    };
    let policy = args.policy.load()?;
    let checked = load_valid(&args.spec, &policy, PriceTable::embedded())?;
    let spec = checked
        .spec
        .as_ref()
        .expect("a spec without errors has a model");
    let region = args
        .region
        .as_deref()
        .unwrap_or(&spec.spec.region)
        .trim()
        .to_ascii_lowercase();
    // the session talks to the spec's cloud: a --region of another cloud does not exist there
    let cloud = spec.spec.effective_cloud();
    if crate::azure::Cloud::for_region(&region) != cloud {
        return Err(Failure::usage(format!(
            "--region {region} is a region of {}, but the spec's cloud is {cloud}",
            crate::azure::Cloud::for_region(&region)
        ))
        .help("use a region of the spec's cloud, or change spec.cloud / spec.region"));
    }
    let mut plan = Plan::from_spec(spec, std::slice::from_ref(&region));
    plan.targets.retain(|t| t.region == region);
    let session = args.azure.connect("quota", Some(spec))?;
    let rt = runtime()?;
    if let Some(rg) = &args.resource_group {
        plan.existing = session.existing_pool(&rt, "quota", rg.trim(), &checked);
    }
    let azure = Azure {
        rt: &rt,
        arm: &session.arm,
        subscription: &session.subscription,
        cloud: session.cloud,
        credential: session.choice.describe(),
        existing_pool: &|_| None,
    };
    let report = live_report(&azure, &checked.path, &plan).map_err(|e| session.failure(&e))?;
    let asks = quota::asks(&report, std::slice::from_ref(&region));
    let mode = if args.dry_run {
        Mode::DryRun
    } else if args.submit {
        Mode::Submit
    } else if interactive() {
        Mode::Ask
    } else {
        Mode::DryRun
    };
    if mode == Mode::DryRun && !args.dry_run && !asks.is_empty() {
        crate::ci_eprintln!(
            "quota: no terminal to ask on (or CI is set): a dry run; pass --yes to file the requests"
        );
    }
    file(&rt, &session, &asks, &region, mode, polling, args.output)
}

/// List the asks, ask (or not), submit and follow them, print the outcome. Shared with
/// `preflight --request-quota`; the work is `quota::filing::file`.
pub fn file(
    rt: &tokio::runtime::Runtime,
    session: &Session,
    asks: &[Ask],
    region: &str,
    mode: Mode,
    polling: Polling,
    output: Output,
) -> Result<ExitCode, Failure> {
    let fail = |e: &crate::azure::ArmError| session.failure(e);
    let f = Filing {
        rt,
        arm: &session.arm,
        subscription: &session.subscription,
        portal: session.cloud.portal(),
        fail: &fail,
        out: &out,
    };
    filing::file(&f, asks, region, mode, polling, output == Output::Json)
}
