//! `gpuform simulate SPEC --trace FILE | --synthetic`: parse the flags, load, print (`crate::simulate`).

use std::path::PathBuf;

use clap::ValueEnum;

use super::common::{ExitCode, Failure, PolicyArgs, load_valid, out, plan_of};
use crate::catalog::prices::PriceTable;
use crate::cli::azure_args::runtime;
use crate::simulate::command::{self, Loaded};
use crate::simulate::engine::{Choices, ProfileSwitch, ScaleInOrder, ZeroInstances};
use crate::simulate::prepare::{LoadArgs, prepare_pulled};
use crate::simulate::pull::Telemetry;
use crate::simulate::{pull, report, tune};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    #[value(aliases = ["human", "table"])]
    Text,
    Json,
    Markdown,
}

pub use crate::simulate::command::HELP;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The spec whose rendered autoscale setting is replayed.
    #[arg(value_name = "SPEC")]
    pub spec: PathBuf,
    /// Job arrivals: a CSV `timestamp,arrivals` or `az monitor metrics list -o json` output.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["synthetic", "resource_group"],
        required_unless_present_any = ["synthetic", "resource_group"]
    )]
    pub trace: Option<PathBuf>,
    /// Read the arrivals from Azure Monitor: the deployed queue's metrics in this resource group
    /// (Service Bus IncomingMessages by queue, or storage PutMessage transactions), with the
    /// credentials and flags of `status`.
    #[arg(long, short = 'g', value_name = "RG", conflicts_with = "synthetic")]
    pub resource_group: Option<String>,
    /// With -g: how far back to read (e.g. 14d, 7d, 36h; at most 93 days, Azure Monitor's retention).
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "14d",
        requires = "resource_group"
    )]
    pub since: String,
    /// With -g: the end of the window read (RFC 3339 UTC; default: now).
    #[arg(long, value_name = "TIME", requires = "resource_group")]
    pub until: Option<String>,
    #[command(flatten)]
    pub azure: crate::cli::azure_args::AzureArgs,
    /// Generate a weekly pattern from the spec's schedules instead (seeded).
    #[arg(long)]
    pub synthetic: bool,
    /// Seed of the synthetic trace and the Spot eviction draws.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Days of synthetic load.
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..=366))]
    pub days: u32,
    /// Start of the synthetic trace (UTC; a Monday by default).
    #[arg(long, value_name = "TIME", default_value = "2026-11-02T00:00:00Z")]
    pub start: String,
    /// An export of the GPU telemetry table (`GpuTelemetry_CL`: TimeGenerated, Computer,
    /// UtilizationPercent; az CLI JSON, REST `tables` or portal CSV) over the trace's days: the
    /// measured instance-hours, idle hours and peak beside the simulated ones, and the job time
    /// when neither the spec nor --job-duration gives one. With -g it replaces the workspace's.
    #[arg(long, value_name = "FILE", conflicts_with = "synthetic")]
    pub telemetry: Option<PathBuf>,
    /// The queue to read from metrics split by EntityName (default: the spec's queue).
    #[arg(long, value_name = "NAME")]
    pub entity: Option<String>,
    /// How long one job takes on one VM (PT2M or 2m; overrides workload.jobDuration).
    #[arg(long, value_name = "DURATION")]
    pub job_duration: Option<String>,
    /// From scale-out until a new VM serves (PT8M or 8m; overrides the size family default).
    #[arg(long, value_name = "DURATION")]
    pub provisioning: Option<String>,
    /// How long a VM of the standby pool (deallocated, hibernated) takes to start after a scale-out
    /// takes it, e.g. 2m or 240s (default: gpuform's assumption, 3 min; no Microsoft document gives it).
    #[arg(long, value_name = "DURATION")]
    pub standby_start: Option<String>,
    /// Jobs one VM runs at once (overrides workload.concurrentJobsPerInstance).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub concurrency: Option<u32>,
    /// Spot evictions per Spot instance-hour (e.g. 0.01).
    #[arg(long, value_name = "RATE")]
    pub spot_evictions_per_hour: Option<f64>,
    /// The p95 wait target (PT10M or 10m): reported as met or missed, used by the lower
    /// bound and by --tune.
    #[arg(long, value_name = "DURATION", default_value = "PT10M")]
    pub wait_p95: String,
    /// Undocumented by Microsoft: a per-instance metric at 0 instances.
    #[arg(long, value_enum, default_value_t = ZeroInstances::One)]
    pub zero_instances: ZeroInstances,
    /// Undocumented by Microsoft: when a profile switch clamps the count.
    #[arg(long, value_enum, default_value_t = ProfileSwitch::Immediate)]
    pub profile_switch: ProfileSwitch,
    /// The queue metric also counts messages a worker holds (Service Bus: locked; storage: invisible).
    /// Default: only messages ready for delivery, as Microsoft's Service Bus metrics reference says.
    #[arg(long)]
    pub queue_metric_counts_in_service: bool,
    /// Which VMs a scale-in removes: `default` follows the rendered scale-in policy (balance across
    /// zones, then the highest instance ID, busy or not); `idle-first`: gpuform's older, optimistic model.
    #[arg(long, value_enum, default_value_t = ScaleInOrder::Default)]
    pub scale_in_order: ScaleInOrder,
    /// Output: text, a JSON document, or Markdown for $GITHUB_STEP_SUMMARY.
    #[arg(long = "output", alias = "format", value_name = "FORMAT", value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Write the chart (arrivals, backlog, instances by priority, active profile) as SVG.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Search the policies render can express for the cheapest that meets --wait-p95.
    #[arg(long)]
    pub tune: bool,
    /// With --tune: the share of the model variants (the two queue-metric readings, a 2-minute
    /// metric delay, arrivals spread within the minute, provisioning +/-25 %, two pessimistic
    /// combinations) under which a proposal must meet the target (1: all).
    #[arg(long, value_name = "SHARE", default_value_t = 1.0, requires = "tune", value_parser = command::share)]
    pub robust_share: f64,
    /// With --tune: tune against the nominal model only (no margin for what Azure leaves open).
    #[arg(long, requires = "tune")]
    pub nominal: bool,
    /// With --tune: do not learn schedules from a trace of 14 days or more.
    #[arg(long, requires = "tune")]
    pub no_schedule: bool,
    /// With --tune: rewrite the spec in place (comments and layout kept outside the changed fields).
    #[arg(long, requires = "tune")]
    pub write: bool,
    #[command(flatten)]
    pub prices: super::cost::PricingArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

pub fn load(a: &LoadArgs, t: &Telemetry, policy: &PolicyArgs) -> Result<Loaded, Failure> {
    let policy = policy.load()?;
    let checked = load_valid(a.spec, &policy, PriceTable::embedded())?;
    let plan = plan_of(&checked, a.spec, ExitCode::Usage)?;
    let p = prepare_pulled(&checked, &plan, a, t)?;
    Ok(Loaded {
        checked,
        plan,
        workload: p.workload,
        trace: p.trace,
        settings: p.settings,
        policy,
        measured: p.measured,
        job_time_measured: p.job_time_measured,
        warnings: p.warnings,
    })
}

/// With -g: sign in as `status` does and read the arrivals and GPU telemetry (`pull::pull`).
fn pull(args: &Args, rg: &str) -> Result<pull::Pulled, Failure> {
    let w = pull::window(&args.since, args.until.as_deref())?;
    let policy = args.policy.load()?;
    let checked = load_valid(&args.spec, &policy, PriceTable::embedded())?;
    let plan = plan_of(&checked, &args.spec, ExitCode::Usage)?;
    let session = args.azure.connect("simulate", checked.spec.as_ref())?;
    let telemetry = (checked.spec.as_ref()).map(|s| pull::Ask {
        idle_threshold_percent: s.spec.monitoring.gpu.idle_threshold_percent,
        required: s.spec.workload.job_duration.is_none() && args.job_duration.is_none(),
    });
    let (telemetry, rt) = (telemetry.filter(|_| args.telemetry.is_none()), runtime()?);
    let p = rt
        .block_on(pull::pull(&session.arm, &plan, rg.trim(), w, telemetry))
        .map_err(|e| e.failure(crate::cli::azure_args::arm_failure))?;
    for w in &p.telemetry.warnings {
        super::common::say(&format!("simulate: warning: {w}"));
    }
    Ok(p)
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let (pulled, telemetry) = match &args.resource_group {
        Some(rg) => pull(&args, rg).map(|p| (Some(p.trace), p.telemetry))?,
        None => (None, Telemetry::default()),
    };
    let l = load(
        &LoadArgs {
            spec: &args.spec,
            trace: args.trace.as_deref(),
            pulled,
            synthetic: args.synthetic,
            seed: args.seed,
            days: args.days,
            start: &args.start,
            entity: args.entity.as_deref(),
            telemetry: args.telemetry.as_deref(),
            job_duration: args.job_duration.as_deref(),
            provisioning: args.provisioning.as_deref(),
            concurrency: args.concurrency,
            spot_evictions_per_hour: args.spot_evictions_per_hour,
            wait_p95: &args.wait_p95,
            choices: Choices {
                zero_instances: args.zero_instances,
                profile_switch: args.profile_switch,
                queue_metric_counts_in_service: args.queue_metric_counts_in_service,
                scale_in_order: args.scale_in_order,
                ..Choices::default()
            },
            standby_start: args.standby_start.as_deref(),
        },
        &telemetry,
        &args.policy,
    )?;
    let file = args.spec.display().to_string();
    let done = command::run(
        &l,
        &command::Options {
            file: &file,
            svg: args.svg.as_deref(),
            tune: args
                .tune
                .then_some((!args.nominal).then_some(args.robust_share)),
            schedule: !args.no_schedule,
            pricing: args.prices.request(args.azure.timeout, args.azure.retries),
        },
    )?;
    let results = &done.results;
    if let Some(t) = &done.tuned {
        out(&match args.format {
            Format::Json => tune::json(results, t),
            Format::Markdown => tune::markdown(results, t) + &report::measured_markdown(results),
            Format::Text => tune::text(results, t) + &report::measured_text(results),
        });
        if !t.proposes() {
            return Ok(ExitCode::Findings);
        }
        if args.write {
            let read = l.checked.source.as_deref().unwrap_or_default();
            if let Some(said) = command::write_tuned(&args.spec, read, t)? {
                eprintln!("{said}");
            }
        }
        return Ok(ExitCode::Ok);
    }
    out(&match args.format {
        Format::Text => report::text(results),
        Format::Json => report::json(results),
        Format::Markdown => report::markdown(results),
    });
    Ok(ExitCode::Ok)
}
