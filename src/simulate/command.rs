//! The `simulate` command's work, below the CLI: run the loaded spec and trace through the
//! rendered autoscale setting, fold in the telemetry measurement, and tune when asked. The CLI
//! declares the arguments, loads the spec ([`Loaded`]) and chooses the output.

use std::path::{Path, PathBuf};

use super::load::Trace;
use super::measured::Measured;
use super::model::Workload;
use super::results::Results;
use super::{Input, Settings, report, tune};
use crate::cost::clock::today;
use crate::cost::prices::{self, Pricing, Want};
use crate::diag::failure::{ExitCode, Failure};
use crate::plan::Plan;

/// `gpuform simulate --help`: what the replay models, what it assumes, the trace formats.
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
    "--synthetic: a seeded week (--seed, --days, --start) shaped by the spec, not measured load: outside any ",
    "window jobs arrive at 20 % of what capacity.max instances serve (instances x concurrentJobsPerInstance / ",
    "jobDuration, per minute); a schedule that raises the minimum is a busy window at 70 % of what its max serves, ",
    "one that lowers the maximum a quiet window at 10 %; bursts of twice the base rate for 10 minutes come about ",
    "twice a week; arrivals per minute are Poisson draws. A pool sized by its own capacity.max is therefore never ",
    "short of capacity by construction: --synthetic-rate N sets the base rate to N jobs a minute (the windows and ",
    "bursts scale with it) to try another load; the trace line of the output names the rate used.\n\n",
    "Traces: a CSV `timestamp,arrivals` (ISO 8601 UTC, one row per minute, missing minutes are 0) or the JSON of ",
    "`az monitor metrics list` (Service Bus IncomingMessages split by EntityName, storage Transactions split by ",
    "ApiName, or a queue-length metric as a lower bound), detected by its shape.\n\n",
    "--telemetry: an export of GpuTelemetry_CL over the trace's days; the measured instance-hours, idle hours and ",
    "peak of the deployed pool are printed beside the simulated ones, and the job time is estimated from it (busy ",
    "VM-minutes x jobs per instance / jobs) when neither the spec nor --job-duration gives one.\n\n",
    "-g RG --since 14d [--until TIME]: the arrivals read from Azure Monitor (Metrics - List, a day per request; ",
    "Monitoring Reader) and the GPU telemetry of the same window from the spec's Log Analytics workspace (the Logs ",
    "Query API status uses, summarised per minute in the query; Log Analytics Reader), measured as --telemetry ",
    "would; a workspace without rows, or one that cannot be read, is a warning and the run goes on with the arrivals ",
    "(unless the job time must come from the telemetry: then it fails); --telemetry FILE wins.\n\n",
    "Lower bound: the work of every job that must finish inside the trace if the wait target is met, divided by the ",
    "slots per instance; no policy can use fewer instance-hours.\n\n",
    "--tune with 14 days of arrivals or more also learns schedules (per local hour of the week, pre-warmed by the ",
    "provisioning delay, daylight saving followed) and proposes them when cheaper at the same robust target ",
    "(--no-schedule: off).\n\n",
    "--tune always answers when a policy meets the target in the nominal model: when none holds under every variant ",
    "it proposes the one that holds under the most, says what it misses and what would make it hold (--strict: no ",
    "proposal then). It aims below the target by a margin learned from resampled days of the trace (--margin). The ",
    "search replays at most the trace's last 112 days (--tune-days); progress goes to stderr on a terminal (--progress ",
    "elsewhere).\n\n",
    "Exit codes: 0 printed (and written with --write), 1 --tune found no policy that meets the target (with --strict: ",
    "none that holds under the variants), 2 usage or I/O errors."
);

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
    /// What could not be read or measured (with -g: a workspace without telemetry rows).
    pub warnings: Vec<String>,
}

/// What the run is asked to do besides simulating.
pub struct Options<'a> {
    /// The spec's path as the user gave it (in messages and the results).
    pub file: &'a str,
    /// `--svg FILE`: record the minutes, draw the chart and write it there.
    pub svg: Option<&'a Path>,
    /// `--tune` and how.
    pub tune: Option<TuneOptions>,
    /// With `--tune`: learn schedules from a trace of two weeks or more (`--no-schedule`: off).
    pub schedule: bool,
    /// `--prices` files and `--refresh-prices`: the prices `cost` would use.
    pub pricing: Pricing,
}

/// `--progress` (the same values as `deploy --progress`): `auto` a line rewritten in place on a
/// terminal and nothing elsewhere (a tune's stdout is often JSON read by a pipeline; its stderr
/// stays quiet unless asked), `live` that line anywhere, `plain` a line every few seconds,
/// `none` nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProgressMode {
    #[default]
    Auto,
    Live,
    Plain,
    None,
}

/// `--tune`'s options.
#[derive(Debug, Clone, Copy)]
pub struct TuneOptions {
    /// The share of model variants a proposal must meet (`None`: nominal only).
    pub robust_share: Option<f64>,
    /// `--strict`: no fallback proposal.
    pub strict: bool,
    /// `--margin` in minutes (`None`: learned).
    pub margin: Option<f64>,
    /// `--progress`: where the tune's progress goes.
    pub progress: ProgressMode,
    /// `--tune-days`: the days the search replays at most.
    pub search_days: u32,
}

/// What a run produced.
pub struct Outcome {
    pub results: Results,
    /// The tuning, with `--tune`.
    pub tuned: Option<tune::Tuned>,
}

/// What both simulate commands (queue and serving) start from: the spec's input, the autoscale
/// setting its plan renders, and the prices and currency `gpuform cost` would use for it.
pub(super) fn start<'a>(
    checked: &'a crate::spec::Checked,
    plan: &'a Plan,
    file: &'a str,
    pricing: &Pricing,
) -> Result<(Input<'a>, super::engine::Setting, prices::Gathered), Failure> {
    let spec = checked
        .spec
        .as_ref()
        .ok_or_else(|| Failure::usage(format!("{file}: the spec did not validate")))?;
    let size = checked
        .size()
        .ok_or_else(|| Failure::usage(format!("{file}: the spec has no VM size")))?;
    let input = Input {
        spec,
        plan,
        size,
        file,
        auto_sized: checked.auto_sized,
    };
    let setting = super::setting(plan, spec)
        .map_err(|e| Failure::usage(format!("{file}: the rendered autoscale setting: {e}")))?;
    let gathered = prices::gather(
        spec,
        Want::of(checked)?,
        &pricing.files,
        pricing.refresh.as_ref(),
    )?;
    Ok((input, setting, gathered))
}

/// Simulate the loaded spec and trace, write the chart with `--svg`, and tune with `--tune`.
pub fn run(l: &Loaded, o: &Options) -> Result<Outcome, Failure> {
    let (input, setting, gathered) = start(&l.checked, &l.plan, o.file, &o.pricing)?;
    let book = gathered.book;
    let today = today();
    let mut results = super::simulate(
        &input,
        &setting,
        &l.trace,
        &l.workload,
        &l.settings,
        &book,
        &today,
        o.svg.is_some(),
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
    results.warnings = l.warnings.clone();
    results.assumptions.extend(gathered.notes.iter().cloned());
    results
        .warnings
        .extend(super::pricing::unpriced(&results, o.tune.is_some(), o.file));
    if let Some(path) = o.svg {
        let svg = report::svg(&results).map_err(|e| Failure::usage(format!("--svg: {e}")))?;
        write_atomic(path, svg.as_bytes())?;
    }
    let tuned = match o.tune {
        None => None,
        Some(t) => {
            use std::io::IsTerminal;
            let source = l.checked.source.as_deref().unwrap_or_default();
            let tty = std::io::stderr().is_terminal();
            let progress = match t.progress {
                ProgressMode::Auto => tty.then(|| tune::Progress::stderr(true)),
                ProgressMode::Live => Some(tune::Progress::stderr(true)),
                ProgressMode::Plain => Some(tune::Progress::stderr(false)),
                ProgressMode::None => None,
            };
            let job = tune::Job {
                input: &input,
                checked: &l.checked,
                policy: &l.policy,
                source,
                trace: &l.trace,
                workload: &l.workload,
                settings: &l.settings,
                book: &book,
                today: &today,
                robust_share: t.robust_share,
                tuning: tune::Tuning {
                    margin: t.margin,
                    strict: t.strict,
                    progress: progress.as_ref(),
                    search_days: Some(t.search_days),
                    reuse: None,
                    unpruned: false,
                },
            };
            Some(
                tune::run(&job, &results, o.schedule)
                    .map_err(|e| Failure::usage(format!("--tune: {e}")))?,
            )
        }
    };
    Ok(Outcome { results, tuned })
}

/// Write a file through a temporary file beside it (no partial output).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
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

/// `--margin`: minutes below the target (`0.5m`, `30s`, `PT45S`, or a number of minutes), at
/// most an hour.
pub fn margin(v: &str) -> Result<f64, String> {
    let t = v.trim();
    let bad = || format!("`{v}` is not a margin: give minutes or seconds such as 0.5m, 30s or 0");
    let minutes = if t.starts_with("PT") || t.starts_with("pt") {
        crate::spec::schedule::parse_duration(&t.to_ascii_uppercase()).map(|s| s as f64 / 60.0)
    } else if let Some(n) = t.strip_suffix("min").or_else(|| t.strip_suffix('m')) {
        n.trim().parse::<f64>().ok()
    } else if let Some(n) = t.strip_suffix('s') {
        n.trim().parse::<f64>().ok().map(|s| s / 60.0)
    } else {
        t.parse::<f64>().ok()
    };
    match minutes {
        Some(m) if m.is_finite() && (0.0..=60.0).contains(&m) => Ok(m),
        _ => Err(bad()),
    }
}

/// `--tune --write`: write the proposal into the spec ([`write_spec`]); what to say on stderr
/// (`None`: nothing to write). A proposal the spec's text cannot carry is a failure naming why.
pub fn write_tuned(path: &Path, read: &str, t: &tune::Tuned) -> Result<Option<String>, Failure> {
    match t.to_write() {
        Ok(None) => Ok(None),
        Ok(Some(text)) => {
            let target = write_spec(path, read, text)?;
            let linked = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_symlink());
            Ok(Some(if linked {
                format!(
                    "wrote {} (the file the link {} names): {}",
                    target.display(),
                    path.display(),
                    t.written()
                )
            } else {
                format!("wrote {} ({})", path.display(), t.written())
            }))
        }
        Err(why) => Err(Failure::usage(format!(
            "--write: {} was not changed: {why}",
            path.display()
        ))
        .help("apply the proposal printed above by hand")),
    }
}

/// `--write`: replace the spec at `path` (read as `read`, without its byte-order mark) with
/// `new_text`, which the tune has checked to mean exactly the intended document. Through a
/// symlink, the file the link names is written (the link stays). Refused, with the reason and
/// nothing changed, when the file is not a regular file or changed since it was read. The byte-order
/// mark is kept; the new bytes go to a temporary file beside the target (the target's permissions),
/// are read back and compared, and replace the target by a rename. Returns the file written.
pub fn write_spec(path: &Path, read: &str, new_text: &str) -> Result<PathBuf, Failure> {
    use std::io::Write;
    let refuse = |why: String| {
        Failure::usage(format!(
            "--write: {} was not changed: {why}",
            path.display()
        ))
        .help("apply the proposal printed above by hand, or fix the cause and run again")
    };
    let target = std::fs::canonicalize(path)
        .map_err(|e| refuse(format!("cannot resolve the path ({e})")))?;
    let meta = crate::io::check_regular(&target).map_err(|e| refuse(e.to_string()))?;
    let on_disk = crate::io::read_bounded(&target, crate::spec::MAX_FILE_BYTES)
        .map_err(|e| refuse(e.to_string()))?;
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let bom = on_disk.starts_with(BOM);
    if on_disk[if bom { BOM.len() } else { 0 }..] != *read.as_bytes() {
        return Err(refuse(format!(
            "{} changed since gpuform read it",
            target.display()
        )));
    }
    let mut bytes = Vec::with_capacity(new_text.len() + BOM.len());
    if bom {
        bytes.extend_from_slice(BOM);
    }
    bytes.extend_from_slice(new_text.as_bytes());
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let io = |what: &str, e: std::io::Error| refuse(format!("{what} in {}: {e}", dir.display()));
    let mut tmp = tempfile::Builder::new()
        .prefix(".gpuform-write-")
        .tempfile_in(&dir)
        .map_err(|e| io("cannot create a temporary file", e))?;
    tmp.write_all(&bytes)
        .and_then(|_| tmp.as_file().sync_all())
        .map_err(|e| io("cannot write the temporary file", e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode();
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(mode))
            .map_err(|e| io("cannot give the temporary file the spec's permissions", e))?;
    }
    #[cfg(not(unix))]
    let _ = meta;
    // what is on disk now is what was checked, byte for byte, and still parses to it
    let back =
        std::fs::read(tmp.path()).map_err(|e| io("cannot read the temporary file back", e))?;
    let same = back == bytes
        && crate::spec::yaml::parse(new_text).ok().map(|p| p.value)
            == std::str::from_utf8(&back[if bom { BOM.len() } else { 0 }..])
                .ok()
                .and_then(|t| crate::spec::yaml::parse(t).ok())
                .map(|p| p.value);
    if !same {
        return Err(refuse(
            "the temporary file read back differs from the checked text".into(),
        ));
    }
    tmp.persist(&target)
        .map_err(|e| io("cannot replace the spec", e.error))?;
    Ok(target)
}

/// `--synthetic-rate`: jobs per minute, finite and not negative.
pub fn rate(v: &str) -> Result<f64, String> {
    match v.parse::<f64>() {
        Ok(x) if x.is_finite() && (0.0..=1e6).contains(&x) => Ok(x),
        _ => Err(format!(
            "`{v}` is not a rate in jobs per minute (e.g. 2 or 0.5)"
        )),
    }
}

/// `--robust-share`: a share in (0, 1].
pub fn share(v: &str) -> Result<f64, String> {
    match v.parse::<f64>() {
        Ok(x) if x > 0.0 && x <= 1.0 => Ok(x),
        _ => Err(format!("`{v}` is not a share between 0 (excluded) and 1")),
    }
}
