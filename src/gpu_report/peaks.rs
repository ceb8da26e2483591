//! The export aggregated while it is read: per-VM peaks of memory in use.

use serde::Serialize;

use super::export::*;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VmPeak {
    pub computer: String,
    /// Sum over the VM's GPUs at the sample with the most memory in use (GiB).
    pub peak_gib: f64,
    pub at: Option<String>,
}

/// The export aggregated while it is read: per VM, the memory summed over its GPUs at each time
/// and each GPU's own peak. Memory grows with VMs × times, not with rows.
#[derive(Debug, Default)]
pub struct Peaks {
    /// Rows with a memory value (health rows and impossible values not counted).
    pub rows: usize,
    /// Rows whose MemoryUsedMiB was NaN, infinite, negative or above [`MAX_GPU_MIB`]: skipped.
    pub impossible: usize,
    /// Some row had no time: per-VM peaks are then the sum of each GPU's own peak.
    pub untimed: bool,
    names: Vec<String>,
    index: std::collections::HashMap<String, u32>,
    by_time: std::collections::HashMap<(u32, Box<str>), f64>,
    by_gpu: std::collections::HashMap<(u32, Box<str>), f64>,
}

impl Peaks {
    fn vm(&mut self, name: &str) -> u32 {
        if let Some(i) = self.index.get(name) {
            return *i;
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), i);
        i
    }

    /// Count one sample.
    pub fn add(&mut self, x: &Sample) {
        let vm = self.vm(&x.computer);
        match &x.time {
            Some(t) => *self.by_time.entry((vm, t.as_str().into())).or_default() += x.used_mib,
            None => self.untimed = true,
        }
        let g = self
            .by_gpu
            .entry((vm, x.gpu.as_deref().unwrap_or("?").into()))
            .or_default();
        *g = g.max(x.used_mib);
        self.rows += 1;
    }

    /// Per VM: its peak (GiB) and when, in the order of the old report (largest first, then by
    /// name).
    pub(super) fn vm_peaks(&self) -> Vec<VmPeak> {
        let mut best: Vec<Option<(f64, &str)>> = vec![None; self.names.len()];
        if self.untimed {
            let mut sums = vec![0f64; self.names.len()];
            for ((vm, _), mib) in &self.by_gpu {
                sums[*vm as usize] += mib;
            }
            for (i, s) in sums.into_iter().enumerate() {
                best[i] = Some((s, ""));
            }
        } else {
            for ((vm, t), mib) in &self.by_time {
                let slot = &mut best[*vm as usize];
                // ties go to the later time string, as the ordered map did
                let better = match slot {
                    None => true,
                    Some((m, at)) => mib.total_cmp(m).then_with(|| (**t).cmp(*at)).is_gt(),
                };
                if better {
                    *slot = Some((*mib, t));
                }
            }
        }
        let mut vms: Vec<VmPeak> = self
            .names
            .iter()
            .zip(best)
            .map(|(n, b)| {
                let (mib, at) = b.unwrap_or((0.0, ""));
                VmPeak {
                    computer: n.clone(),
                    peak_gib: mib / 1024.0,
                    at: (!self.untimed).then(|| at.to_string()),
                }
            })
            .collect();
        vms.sort_by(|a, b| a.computer.cmp(&b.computer));
        vms.sort_by(|a, b| b.peak_gib.total_cmp(&a.peak_gib));
        vms
    }
}

/// Read an export (any form [`for_each_row`] reads) into [`Peaks`], row by row.
pub fn read_peaks(text: &str) -> Result<Peaks, ExportError> {
    let mut p = Peaks::default();
    each_sample(text, |s| {
        match s {
            Some(s) => p.add(&s),
            None => p.impossible += 1,
        }
        Ok(())
    })?;
    Ok(p)
}

/// Each row with a memory value as a sample (`None` for an impossible value); columns checked on
/// the first row.
fn each_sample(
    text: &str,
    mut f: impl FnMut(Option<Sample>) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    for_each_row(text, |i, row| {
        if i == 1 {
            for need in ["Computer", "MemoryUsedMiB"] {
                if !row.has(need) {
                    return Err(err(format!(
                        "the export has no `{need}` column (it has {}); export `GpuTelemetry_CL | project TimeGenerated, Computer, GpuIndex, MemoryUsedMiB`",
                        row.listed()
                    )));
                }
            }
        }
        let Some(used) = row.get("MemoryUsedMiB") else {
            return Ok(());
        };
        let Some(used_mib) = memory_value(i, used)? else {
            return f(None);
        };
        f(Some(Sample {
            computer: row.get("Computer").unwrap_or_default().to_string(),
            time: row.get("TimeGenerated").map(str::to_string),
            gpu: row.get("GpuIndex").map(str::to_string),
            used_mib,
        }))
    })?;
    Ok(())
}

/// Read an export into samples (impossible values skipped). For small exports and tests;
/// `gpu-report` aggregates while reading ([`read_peaks`]).
pub fn parse_export(text: &str) -> Result<Vec<Sample>, ExportError> {
    let mut out = Vec::new();
    each_sample(text, |s| {
        out.extend(s);
        Ok(())
    })?;
    Ok(out)
}
