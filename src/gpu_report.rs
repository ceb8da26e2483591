//! `gpuform gpu-report`: from the GPU telemetry back to the spec. Reads an export of the
//! `GpuTelemetry_CL` table (the JSON `az monitor log-analytics query` prints, the REST API's
//! `{"tables": [...]}` answer, or the CSV the portal exports) and reports the measured VRAM peak
//! per VM against `workload.gpuMemoryGiB`, with the sizes that fit the measured peak (ranked by
//! [`crate::sizing::select`], the same ranking `vmSize: auto` uses).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::catalog::prices::PriceTable;
use crate::sizing::{self, DriverChoice};
use crate::spec::model::Spec;

/// One row of the export: one GPU of one VM at one time.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub computer: String,
    pub time: Option<String>,
    pub gpu: Option<String>,
    pub used_mib: f64,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VmPeak {
    pub computer: String,
    /// Sum over the VM's GPUs at the sample with the most memory in use (GiB).
    pub peak_gib: f64,
    pub at: Option<String>,
}

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

/// Why an export cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ExportError(pub String);

fn err(s: impl Into<String>) -> ExportError {
    ExportError(s.into())
}

/// The column names an export may use (the portal's CSV adds ` [UTC]` to datetime columns).
fn canonical(name: &str) -> &str {
    let n = name.trim().trim_end_matches(" [UTC]");
    match n {
        "PeakMemoryMiB" | "max_MemoryUsedMiB" => "MemoryUsedMiB",
        other => other,
    }
}

fn cell_text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) if s.is_empty() => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// A cell of `az monitor log-analytics query` JSON: the CLI's `log-analytics` extension writes
/// every cell as Python's `str(value)` (Azure/azure-cli-extensions
/// `src/log-analytics/azext_loganalytics/custom.py`@138f93c6121471a527ed477aac54219e99aa27ee,
/// `item[column_names[index]] = str(value)`, read 2026-12-03), so a null arrives as the text
/// `None`. Only this shape has it; the REST answer and the portal's CSV have real nulls.
fn az_cell_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if s == "None" => None,
        other => cell_text(other),
    }
}

/// Turn named rows into samples; rows without a memory value (health rows) are skipped.
fn samples(rows: Vec<Row>) -> Result<Vec<Sample>, ExportError> {
    if let Some(first) = rows.first() {
        for need in ["Computer", "MemoryUsedMiB"] {
            if !first.contains_key(need) {
                return Err(err(format!(
                    "the export has no `{need}` column (it has {}); export `GpuTelemetry_CL | project TimeGenerated, Computer, GpuIndex, MemoryUsedMiB`",
                    first.keys().cloned().collect::<Vec<_>>().join(", ")
                )));
            }
        }
    }
    let mut out = Vec::new();
    for (i, r) in rows.into_iter().enumerate() {
        let get = |k: &str| r.get(k).cloned().flatten();
        let Some(used) = get("MemoryUsedMiB") else {
            continue;
        };
        let used_mib: f64 = used.trim().parse().map_err(|_| {
            err(format!(
                "row {}: MemoryUsedMiB `{used}` is not a number",
                i + 1
            ))
        })?;
        out.push(Sample {
            computer: get("Computer").unwrap_or_default(),
            time: get("TimeGenerated"),
            gpu: get("GpuIndex"),
            used_mib,
        });
    }
    Ok(out)
}

/// One row of an export, by (canonical) column name; empty cells are `None`.
pub type Row = BTreeMap<String, Option<String>>;

/// Read an export: `az monitor log-analytics query` JSON (an array of objects), the REST
/// answer (`{"tables": [{"columns": [...], "rows": [...]}]}`), or CSV with a header row.
pub fn parse_export(text: &str) -> Result<Vec<Sample>, ExportError> {
    samples(parse_rows(text)?)
}

/// The rows of an export in any of the forms [`parse_export`] reads, columns unchecked.
pub fn parse_rows(text: &str) -> Result<Vec<Row>, ExportError> {
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with('[') || t.starts_with('{') {
        let v: Value = serde_json::from_str(t)
            .map_err(|e| err(format!("the export is not valid JSON: {e}")))?;
        let rows = match &v {
            Value::Array(items) => items
                .iter()
                .map(|item| {
                    item.as_object()
                        .map(|o| {
                            o.iter()
                                .map(|(k, v)| (canonical(k).to_string(), az_cell_text(v)))
                                .collect()
                        })
                        .ok_or_else(|| err("the JSON array holds something other than rows"))
                })
                .collect::<Result<Vec<_>, _>>()?,
            Value::Object(o) => {
                let table = o.get("tables").and_then(|t| t.get(0)).ok_or_else(|| {
                    err("the JSON object has no `tables` (not a Log Analytics query result)")
                })?;
                let cols: Vec<String> = table["columns"]
                    .as_array()
                    .ok_or_else(|| err("tables[0] has no columns"))?
                    .iter()
                    .map(|c| canonical(c["name"].as_str().unwrap_or_default()).to_string())
                    .collect();
                table["rows"]
                    .as_array()
                    .ok_or_else(|| err("tables[0] has no rows"))?
                    .iter()
                    .map(|r| {
                        let cells = r.as_array().cloned().unwrap_or_default();
                        cols.iter()
                            .cloned()
                            .zip(cells.iter().map(cell_text))
                            .collect()
                    })
                    .collect()
            }
            _ => unreachable!(),
        };
        return Ok(rows);
    }
    let records = parse_csv(t)?;
    let mut it = records.into_iter();
    let header: Vec<String> = it
        .next()
        .ok_or_else(|| err("the export is empty"))?
        .iter()
        .map(|h| canonical(h).to_string())
        .collect();
    let rows = it
        .filter(|r| !(r.len() == 1 && r[0].is_empty()))
        .map(|r| {
            header
                .iter()
                .cloned()
                .zip(r.into_iter().map(|c| (!c.is_empty()).then_some(c)))
                .collect()
        })
        .collect();
    Ok(rows)
}

/// RFC 4180 CSV: quoted fields, `""` inside quotes, CRLF or LF line ends. (About forty lines;
/// the `csv` crate would be the choice if exports grew dialects.)
fn parse_csv(text: &str) -> Result<Vec<Vec<String>>, ExportError> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                c => field.push(c),
            }
            continue;
        }
        match c {
            '"' if field.is_empty() => quoted = true,
            ',' => row.push(std::mem::take(&mut field)),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            c => field.push(c),
        }
    }
    if quoted {
        return Err(err("the CSV ends inside a quoted field"));
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    Ok(rows)
}

/// Measure the samples against the spec and rank the sizes that fit the measured peak.
pub fn report(spec: &Spec, samples: &[Sample], prices: &PriceTable) -> Report {
    let s = &spec.spec;
    let upper_bound = samples.iter().any(|x| x.time.is_none());
    // per VM: with times, the sum over GPUs at each time; without, the sum of each GPU's peak
    let mut per_vm: BTreeMap<&str, BTreeMap<String, f64>> = BTreeMap::new();
    for x in samples {
        let key = if upper_bound {
            format!("gpu {}", x.gpu.as_deref().unwrap_or("?"))
        } else {
            x.time.clone().unwrap_or_default()
        };
        let slot = per_vm
            .entry(&x.computer)
            .or_default()
            .entry(key)
            .or_default();
        if upper_bound {
            *slot = slot.max(x.used_mib);
        } else {
            *slot += x.used_mib;
        }
    }
    let mut vms: Vec<VmPeak> = per_vm
        .into_iter()
        .map(|(computer, slots)| {
            if upper_bound {
                VmPeak {
                    computer: computer.to_string(),
                    peak_gib: slots.values().sum::<f64>() / 1024.0,
                    at: None,
                }
            } else {
                let (at, mib) = slots
                    .into_iter()
                    .max_by(|a, b| a.1.total_cmp(&b.1))
                    .unwrap_or_default();
                VmPeak {
                    computer: computer.to_string(),
                    peak_gib: mib / 1024.0,
                    at: Some(at),
                }
            }
        })
        .collect();
    vms.sort_by(|a, b| b.peak_gib.total_cmp(&a.peak_gib));
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
        rows: samples.len(),
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
                .map(|p| format!("${p:.3}/h"))
                .unwrap_or_else(|| "price unknown".into())
        ));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_handles_quotes_and_crlf() {
        let rows = parse_csv("a,b\r\n\"x, \"\"y\"\"\",2\r\n").unwrap();
        assert_eq!(rows, vec![vec!["a", "b"], vec!["x, \"y\"", "2"]]);
        assert!(parse_csv("a,\"b").is_err());
    }

    #[test]
    fn portal_csv_column_names_are_recognised() {
        let s = parse_export(
            "TimeGenerated [UTC],Computer,GpuIndex,MemoryUsedMiB\n2026-12-01T10:00:00Z,vm1,0,2048\n2026-12-01T10:00:00Z,vm1,1,1024\n",
        )
        .unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].time.as_deref(), Some("2026-12-01T10:00:00Z"));
    }

    #[test]
    fn a_missing_column_says_what_to_export() {
        let e = parse_export("[{\"Computer\": \"vm1\"}]").unwrap_err();
        assert!(e.0.contains("MemoryUsedMiB"), "{}", e.0);
    }
}
