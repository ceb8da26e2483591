//! `gpuform gpu-report SPEC --telemetry FILE`: the measured VRAM peak from an export of the GPU
//! telemetry table against `workload.gpuMemoryGiB`, and the sizes that fit it. Exit codes: 0
//! printed, 1 the measured peak exceeds gpuMemoryGiB, 2 usage or I/O errors (an unreadable or
//! unrecognised export).

use std::path::PathBuf;

use clap::ValueEnum;

use super::common::{ExitCode, Failure, PolicyArgs, load_valid, out, read_input};
use crate::catalog::prices::PriceTable;
use crate::gpu_report;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The spec file of the pool the telemetry comes from.
    #[arg(value_name = "SPEC")]
    pub spec: PathBuf,
    /// Query result of GpuTelemetry_CL: the JSON of `az monitor log-analytics query`, the REST
    /// API answer, or the portal's CSV export (columns Computer, MemoryUsedMiB, and
    /// TimeGenerated and GpuIndex for per-VM sums); the file `simulate --telemetry` reads
    /// (--export still works).
    #[arg(long = "telemetry", alias = "export", value_name = "FILE")]
    pub export: PathBuf,
    /// Output: text or a JSON document.
    #[arg(long = "output", alias = "format", value_name = "FORMAT", value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    #[value(aliases = ["human", "table"])]
    Text,
    Json,
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let policy = args.policy.load()?;
    let checked = load_valid(&args.spec, &policy, PriceTable::embedded())?;
    let spec = checked
        .spec
        .as_ref()
        .expect("a spec without errors has a model");
    let text = read_input(&args.export, crate::io::limits::EXPORT, "the export")?;
    let peaks = gpu_report::read_peaks(&text).map_err(|e| {
        Failure::usage(format!("{}: {e}", args.export.display())).help(
            "az monitor log-analytics query -w WORKSPACE_GUID --analytics-query 'GpuTelemetry_CL | where TimeGenerated > ago(7d) | project TimeGenerated, Computer, GpuIndex, MemoryUsedMiB' > export.json",
        )
    })?;
    drop(text);
    if peaks.rows == 0 {
        return Err(Failure::usage(format!(
            "{}: no GPU memory samples (only health rows, or an empty result{})",
            args.export.display(),
            if peaks.impossible > 0 {
                format!(
                    "; {} with NaN, infinite, negative or impossibly large MemoryUsedMiB skipped",
                    crate::diag::plural(peaks.impossible, "row")
                )
            } else {
                String::new()
            }
        )));
    }
    let r = gpu_report::report_peaks(spec, &peaks, PriceTable::embedded());
    match args.format {
        Format::Text => out(&gpu_report::to_text(&r)),
        Format::Json => out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&r).expect("report serialises")
        )),
    }
    Ok(if r.exceeds_declared {
        ExitCode::Findings
    } else {
        ExitCode::Ok
    })
}
