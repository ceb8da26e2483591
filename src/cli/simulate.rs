//! `gpuform simulate SPEC --trace FILE | --synthetic`: parse the flags, load, print. The work
//! lives in `crate::simulate`.

use std::path::PathBuf;

use clap::ValueEnum;

use super::common::{ExitCode, Failure, PolicyArgs, load_valid, out, plan_of};
use crate::catalog::prices::PriceTable;
use crate::cost::PriceBook;
use crate::cost::clock::today;
use crate::plan::Plan;
use crate::simulate::engine::{Choices, ProfileSwitch, ScaleInOrder, ZeroInstances};
use crate::simulate::load::Trace;
use crate::simulate::measured::Measured;
use crate::simulate::model::Workload;
use crate::simulate::prepare::{LoadArgs, duration, prepare};
use crate::simulate::{self, Input, Settings, report, tune};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
    Markdown,
}

pub const HELP: &str = concat!(
    "Replays queue load minute by minute through the autoscale setting `gpuform render` emits (profiles, rules, ",
    "capacities, cooldowns and time windows as rendered) with Azure Monitor autoscale semantics: recurring profiles in ",
    "their time zones with daylight saving (the first in emitted order wins a tie), one cooldown from the last action, ",
    "timeGrain/timeWindow aggregation, dividePerInstance and the per-instance queue metric, scale-out when any rule ",
    "fires (highest wins), scale-in only when all fire, the flapping guard, clamping to the profile, the default count ",
    "on missing metrics.\n\n",
    "Not documented by Microsoft and chosen here: a per-instance metric at 0 instances is divided by 1 ",
    "(--zero-instances missing: no value, so the profile's default applies); a profile switch clamps the count to the ",
    "new limits at once, even in a cooldown (--profile-switch after-cooldown). The queue metric counts the messages ready ",
    "for delivery, not those a worker holds (Microsoft's Service Bus metrics reference; assumed for storage queues; ",
    "--queue-metric-counts-in-service counts them). Jobs run for their exact duration, to the second. Scale-in follows ",
    "the rendered scale-in policy Default (balance zones, then the highest instance ID, busy or not; --scale-in-order ",
    "idle-first for the optimistic model); removed or evicted instances' jobs start again (restartedJobs).\n\n",
    "Traces: a CSV `timestamp,arrivals` (ISO 8601 UTC, one row per minute, missing minutes are 0) or the JSON of ",
    "`az monitor metrics list` (Service Bus IncomingMessages split by EntityName, storage Transactions split by ",
    "ApiName, or a queue-length metric as a lower bound), detected by its shape.\n\n",
    "--telemetry: an export of GpuTelemetry_CL over the trace's days; the measured instance-hours, idle hours and ",
    "peak of the deployed pool are printed beside the simulated ones, and the job time is estimated from it (busy ",
    "VM-minutes x jobs per instance / jobs) when neither the spec nor --job-duration gives one.\n\n",
    "Lower bound: the work of every job that must finish inside the trace if the wait target is met, divided by the ",
    "slots per instance; no policy can use fewer instance-hours.\n\n",
    "Exit codes: 0 printed (and written with --write), 1 --tune found no policy that meets the target, 2 usage or ",
    "I/O errors."
);

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
    /// when neither the spec nor --job-duration gives one.
    #[arg(long, value_name = "FILE", requires = "trace")]
    pub telemetry: Option<PathBuf>,
    /// The queue to read from metrics split by EntityName (default: the spec's queue).
    #[arg(long, value_name = "NAME")]
    pub entity: Option<String>,
    /// How long one job takes on one VM (ISO 8601, e.g. PT2M; overrides workload.jobDuration).
    #[arg(long, value_name = "DURATION")]
    pub job_duration: Option<String>,
    /// From scale-out until a new VM serves (ISO 8601, e.g. PT8M; overrides the size family default).
    #[arg(long, value_name = "DURATION")]
    pub provisioning: Option<String>,
    /// How long a VM of the standby pool (deallocated, hibernated) takes to start after a
    /// scale-out takes it, e.g. 2m or 240s (default: gpuform's assumption, 3 minutes; no
    /// Microsoft document gives it).
    #[arg(long, value_name = "DURATION")]
    pub standby_start: Option<String>,
    /// Jobs one VM runs at once (overrides workload.concurrentJobsPerInstance).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub concurrency: Option<u32>,
    /// Spot evictions per Spot instance-hour (e.g. 0.01).
    #[arg(long, value_name = "RATE")]
    pub spot_evictions_per_hour: Option<f64>,
    /// The p95 wait target (ISO 8601 or 10m): reported as met or missed, used by the lower
    /// bound and by --tune.
    #[arg(long, value_name = "DURATION", default_value = "PT10M")]
    pub wait_p95: String,
    /// Undocumented by Microsoft: a per-instance metric at 0 instances.
    #[arg(long, value_enum, default_value_t = ZeroInstances::One)]
    pub zero_instances: ZeroInstances,
    /// Undocumented by Microsoft: when a profile switch clamps the count.
    #[arg(long, value_enum, default_value_t = ProfileSwitch::Immediate)]
    pub profile_switch: ProfileSwitch,
    /// The queue metric also counts messages a worker holds (Service Bus: locked; storage:
    /// invisible). Default: only messages ready for delivery, as Microsoft's Service Bus metrics
    /// reference defines Active Messages.
    #[arg(long)]
    pub queue_metric_counts_in_service: bool,
    /// Which VMs a scale-in removes: `default` follows the rendered scale-in policy (balance
    /// across zones, then the highest instance ID, busy or not); `idle-first` is gpuform's older,
    /// optimistic model.
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
    #[arg(long, value_name = "SHARE", default_value_t = 1.0, requires = "tune", value_parser = share)]
    pub robust_share: f64,
    /// With --tune: tune against the nominal model only (no margin for what Azure leaves open).
    #[arg(long, requires = "tune")]
    pub nominal: bool,
    /// With --tune: rewrite the spec in place (comments and layout kept outside the changed fields).
    #[arg(long, requires = "tune")]
    pub write: bool,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

/// Write a file through a temporary file beside it (no partial output).
pub fn write_atomic(path: &std::path::Path, bytes: &[u8]) -> Result<(), Failure> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let fail = |e: &(dyn std::error::Error + 'static)| {
        Failure::from_error(
            ExitCode::Usage,
            format!("cannot write {}", path.display()),
            e,
        )
    };
    let mut tmp = tempfile::NamedTempFile::new_in(&dir).map_err(|e| fail(&e))?;
    tmp.write_all(bytes).map_err(|e| fail(&e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .map(|m| m.permissions().mode())
            .unwrap_or(0o644);
        let _ = std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(mode));
    }
    tmp.persist(path).map_err(|e| fail(&e.error))?;
    Ok(())
}

fn share(v: &str) -> Result<f64, String> {
    match v.parse::<f64>() {
        Ok(x) if x > 0.0 && x <= 1.0 => Ok(x),
        _ => Err(format!("`{v}` is not a share between 0 (excluded) and 1")),
    }
}

/// Everything a simulation run needs, loaded from the command line (shared with `cost --trace`).
pub struct Loaded {
    pub checked: crate::spec::Checked,
    pub plan: Plan,
    pub workload: Workload,
    pub trace: Trace,
    pub settings: Settings,
    pub policy: crate::spec::policy::Policy,
    /// `--telemetry`: the measurement over the trace's window.
    pub measured: Option<Measured>,
    /// The job time came from the telemetry (neither the spec nor --job-duration gave one).
    pub job_time_measured: bool,
}

pub fn load(a: &LoadArgs, policy: &PolicyArgs) -> Result<Loaded, Failure> {
    let policy = policy.load()?;
    let checked = load_valid(a.spec, &policy, PriceTable::embedded())?;
    let plan = plan_of(&checked, a.spec, ExitCode::Usage)?;
    let p = prepare(&checked, &plan, a)?;
    Ok(Loaded {
        checked,
        plan,
        workload: p.workload,
        trace: p.trace,
        settings: p.settings,
        policy,
        measured: p.measured,
        job_time_measured: p.job_time_measured,
    })
}

/// With -g: sign in as `status` does and read the queue's arrivals from Azure Monitor.
fn pull_arrivals(args: &Args, rg: &str) -> Result<Trace, Failure> {
    let minutes = duration("--since", &args.since)? / 60;
    if minutes == 0 {
        return Err(Failure::usage("--since must be a minute or more"));
    }
    let policy = args.policy.load()?;
    let checked = load_valid(&args.spec, &policy, PriceTable::embedded())?;
    let plan = plan_of(&checked, &args.spec, ExitCode::Usage)?;
    let session = args.azure.connect("simulate", checked.spec.as_ref())?;
    let rt = crate::cli::azure_args::runtime()?;
    rt.block_on(crate::simulate::pull::pull(
        &session.arm,
        &plan,
        rg.trim(),
        jiff::Timestamp::now(),
        minutes,
    ))
    .map_err(|e| match e {
        crate::simulate::pull::PullError::Arm(e) => crate::cli::azure_args::arm_failure(&e),
        crate::simulate::pull::PullError::Trace(m) => Failure::usage(m).help(
            "check that the queue exists in that resource group and has sent metrics over the window (--since)",
        ),
    })
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let pulled = match &args.resource_group {
        Some(rg) => Some(pull_arrivals(&args, rg)?),
        None => None,
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
        &args.policy,
    )?;
    let spec = l.checked.spec.as_ref().expect("load_valid checked it");
    let size = l.checked.size().expect("load checked it");
    let file = args.spec.display().to_string();
    let input = Input {
        spec,
        plan: &l.plan,
        size,
        file: &file,
        auto_sized: l.checked.auto_sized,
    };
    let setting = simulate::setting(&l.plan, spec)
        .map_err(|e| Failure::usage(format!("{file}: the rendered autoscale setting: {e}")))?;
    let book = PriceBook::embedded();
    let today = today();
    let mut results = simulate::simulate(
        &input,
        &setting,
        &l.trace,
        &l.workload,
        &l.settings,
        &book,
        &today,
        args.svg.is_some(),
    );
    if let Some(mut m) = l.measured.clone() {
        m.compare(&results);
        if l.job_time_measured {
            results.assumptions.insert(
                0,
                format!(
                    "the job time ({}) is estimated from the telemetry: busy VM-minutes x jobs per instance / jobs of the trace (the spec has no workload.jobDuration; --job-duration overrides)",
                    l.workload.job_time_text()
                ),
            );
        }
        results.measured = Some(m);
    }
    if let Some(path) = &args.svg {
        let svg = report::svg(&results).map_err(|e| Failure::usage(format!("--svg: {e}")))?;
        write_atomic(path, svg.as_bytes())?;
    }
    if args.tune {
        let source = l.checked.source.as_deref().unwrap_or_default();
        let t = tune::tune(
            &tune::Job {
                input: &input,
                checked: &l.checked,
                policy: &l.policy,
                source,
                trace: &l.trace,
                workload: &l.workload,
                settings: &l.settings,
                book: &book,
                today: &today,
                robust_share: (!args.nominal).then_some(args.robust_share),
            },
            &results,
        )
        .map_err(|e| Failure::usage(format!("--tune: {e}")))?;
        out(&match args.format {
            Format::Json => tune::json(&results, &t),
            Format::Markdown => tune::markdown(&results, &t),
            Format::Text => tune::text(&results, &t),
        });
        let Some(best) = &t.best else {
            return Ok(ExitCode::Findings);
        };
        if args.write && best.changed() {
            write_atomic(&args.spec, best.new_text.as_bytes())?;
            eprintln!("wrote {}", args.spec.display());
        }
        return Ok(ExitCode::Ok);
    }
    out(&match args.format {
        Format::Text => report::text(&results),
        Format::Json => report::json(&results),
        Format::Markdown => report::markdown(&results),
    });
    Ok(ExitCode::Ok)
}
