//! The measured peaks against the spec: the report, the sizes that fit, and its text.

use serde::Serialize;

use super::export::*;
use super::peaks::*;
use crate::catalog::prices::PriceTable;
use crate::sizing::{self, DriverChoice};
use crate::spec::model::Spec;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Fit {
    pub size: &'static str,
    pub gpu_memory_gib: Option<f64>,
    pub hourly: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub pool: String,
    pub rows: usize,
    /// Rows whose MemoryUsedMiB was NaN, infinite, negative or impossibly large: skipped.
    #[serde(skip_serializing_if = "is_zero")]
    pub impossible_values_skipped: usize,
    pub declared_gib: f64,
    pub measured_peak_gib: f64,
    pub vms: Vec<VmPeak>,
    /// Rows without a time: per-VM peaks are then the sum of each GPU's own peak (an upper bound).
    pub upper_bound: bool,
    pub vm_size: String,
    pub vm_size_gib: Option<f64>,
    /// The measured peak exceeds `gpuMemoryGiB`: the spec understates the workload.
    pub exceeds_declared: bool,
    /// Sizes that fit the measured peak, cheapest first (at most five).
    pub sizes_that_fit: Vec<Fit>,
    pub price_region: String,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Measure the samples against the spec and rank the sizes that fit the measured peak.
pub fn report(spec: &Spec, samples: &[Sample], prices: &PriceTable) -> Report {
    let mut p = Peaks::default();
    for x in samples {
        p.add(x);
    }
    report_peaks(spec, &p, prices)
}

/// [`report`] from an export aggregated while read.
pub fn report_peaks(spec: &Spec, peaks: &Peaks, prices: &PriceTable) -> Report {
    let s = &spec.spec;
    let upper_bound = peaks.untimed;
    let vms = peaks.vm_peaks();
    let measured = vms.first().map_or(0.0, |v| v.peak_gib);
    let mut workload = s.workload.clone();
    // round up to a tenth of a GiB: what the spec would state
    workload.gpu_memory_gib = ((measured * 10.0).ceil() / 10.0).max(0.1);
    let sel = sizing::select(&workload, &s.region, &DriverChoice::of(&s.compute), prices);
    let sizes_that_fit = sel
        .candidates
        .iter()
        .filter(|c| c.rejected.is_none())
        .take(5)
        .map(|c| Fit {
            size: c.size,
            gpu_memory_gib: c.gpu_memory_gib,
            hourly: c.hourly,
        })
        .collect();
    Report {
        pool: spec.metadata.name.clone(),
        rows: peaks.rows,
        impossible_values_skipped: peaks.impossible,
        declared_gib: s.workload.gpu_memory_gib,
        measured_peak_gib: measured,
        vms,
        upper_bound,
        vm_size: s.compute.vm_size.clone(),
        vm_size_gib: spec.size().and_then(|z| z.gpu_memory_gib),
        exceeds_declared: measured > s.workload.gpu_memory_gib,
        sizes_that_fit,
        price_region: sel.price_region,
    }
}

/// The report as text.
pub fn to_text(r: &Report) -> String {
    let mut o = format!(
        "gpuform gpu-report: {} — {} rows of GpuTelemetry_CL\n\n",
        r.pool, r.rows
    );
    if r.impossible_values_skipped > 0 {
        o.push_str(&format!(
            "{} skipped: MemoryUsedMiB was NaN, infinite, negative or above a pebibyte (not a measurement)\n\n",
            crate::diag::plural(r.impossible_values_skipped, "row")
        ));
    }
    o.push_str(&format!(
        "measured VRAM peak per VM: {:.1} GiB{}; the spec declares gpuMemoryGiB {}\n",
        r.measured_peak_gib,
        if r.upper_bound {
            " (no TimeGenerated column: the sum of each GPU's own peak, an upper bound)"
        } else {
            ""
        },
        sizing::fmt_num(r.declared_gib)
    ));
    if let Some(g) = r.vm_size_gib {
        o.push_str(&format!(
            "{} has {} GiB: {:.0}% used at the peak\n",
            r.vm_size,
            sizing::fmt_num(g),
            r.measured_peak_gib / g * 100.0
        ));
    }
    o.push_str("\n  VM                                   peak GiB  at\n");
    for v in &r.vms {
        o.push_str(&format!(
            "  {:<36} {:>8.1}  {}\n",
            v.computer,
            v.peak_gib,
            v.at.as_deref().unwrap_or("-")
        ));
    }
    o.push('\n');
    if r.exceeds_declared {
        o.push_str(&format!(
            "the workload uses more than the spec says: set `workload.gpuMemoryGiB: {:.1}` (validation then checks the size against it)\n",
            (r.measured_peak_gib * 10.0).ceil() / 10.0
        ));
    } else if r.measured_peak_gib < r.declared_gib / 2.0 {
        o.push_str(&format!(
            "the workload uses under half of what the spec says: `workload.gpuMemoryGiB: {:.1}` opens the cheaper sizes below\n",
            (r.measured_peak_gib * 10.0).ceil() / 10.0
        ));
    } else {
        o.push_str("gpuMemoryGiB matches the measurement\n");
    }
    o.push_str(&format!(
        "\nsizes that fit the measured peak, cheapest first (prices in {}):\n",
        r.price_region
    ));
    for f in &r.sizes_that_fit {
        o.push_str(&format!(
            "  {:<28} {:>6} GiB  {}\n",
            f.size,
            f.gpu_memory_gib
                .map(sizing::fmt_num)
                .unwrap_or_else(|| "?".into()),
            f.hourly
                .map(crate::report::number::per_hour)
                .unwrap_or_else(|| "price unknown".into())
        ));
    }
    o
}
