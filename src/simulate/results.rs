//! The figures of one `gpuform simulate` run ([`Results`] and its sections), and how a
//! measurement is put beside them ([`Measured::compare`]). They live below `simulate/mod.rs`
//! (which computes them) and `simulate/measured.rs` (which reads the telemetry), so neither
//! imports the other.

use serde::Serialize;

use super::engine::{Choices, Outcome};
use super::measured::{Measured, Simulated};
use super::model::Workload;

/// The figures of one run (JSON keys fixed by issue 11).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Results {
    pub spec: String,
    pub file: String,
    pub vm_size: String,
    pub trace: TraceInfo,
    pub workload: Workload,
    pub choices: Choices,
    pub wait_minutes: Waits,
    pub wait_target: WaitTarget,
    pub backlog_peak: u64,
    pub peak_instances: u32,
    pub instance_hours: InstanceHours,
    pub scale_actions: ScaleActions,
    pub evictions: u32,
    /// Jobs that started again because their VM was removed (scale-in) or evicted.
    pub restarted_jobs: u64,
    /// Of those, the jobs on VMs a scale-in removed (Azure's scale-in policy cannot see a busy VM).
    pub restarted_by_scale_in: u64,
    pub unfinished_jobs: u64,
    pub lower_bound: LowerBound,
    pub cost: Cost,
    pub assumptions: Vec<String>,
    /// What could not be read or measured (`-g`: a workspace without telemetry rows).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// `--telemetry`: the deployed pool over the trace's window, beside the simulation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<Measured>,
    #[serde(skip)]
    pub outcome: Outcome,
    #[serde(skip)]
    pub profile_names: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TraceInfo {
    pub source: String,
    pub start: String,
    pub minutes: usize,
    pub jobs: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Waits {
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WaitTarget {
    pub minutes: u32,
    pub quantile: f64,
    pub met: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstanceHours {
    pub total: f64,
    pub regular: f64,
    pub spot: f64,
    pub idle: f64,
    pub provisioning: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleActions {
    pub out: u32,
    #[serde(rename = "in")]
    pub in_: u32,
    pub deferred_in: u32,
    pub reduced_in: u32,
    pub cooldown_skips: u32,
    pub missing_metric: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LowerBound {
    pub instance_hours: f64,
    /// Simulated instance-hours / the bound (`null` when the bound is 0).
    pub ratio: Option<f64>,
    pub jobs_counted: u64,
    pub definition: &'static str,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cost {
    /// The monthly bill of `gpuform cost` with the simulated instance-hours as its expected
    /// case (VMs by priority, disks, fixed lines), in `currency`.
    pub monthly: Option<f64>,
    pub currency: String,
    /// The VM and disk part of it (what the policy changes).
    pub pool_monthly: Option<f64>,
    /// False when a price is missing (the total is then a lower bound or absent).
    pub complete: bool,
    /// The standby pool's VMs while they wait (disks; compute for a running pool), from the
    /// pooled VM-hours the replay measured; part of `monthly` and `pool_monthly`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standby_monthly: Option<f64>,
    /// The prices `gpuform cost` could not find (each with what to run for it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<crate::cost::Missing>,
}

impl Cost {
    /// The currency of every amount here.
    pub fn currency(&self) -> crate::catalog::currency::Currency {
        crate::catalog::currency::Currency::parse(&self.currency)
            .unwrap_or(crate::catalog::currency::Currency::USD)
    }

    /// An amount in this cost's currency (`$1,234.56`, `EUR 1,234.56`).
    pub fn fmt(&self, x: f64) -> String {
        self.currency().amount(x)
    }
}

impl Measured {
    /// Put the simulation's figures beside the measurement.
    pub fn compare(&mut self, r: &Results) {
        self.simulated = Some(Simulated {
            instance_hours: r.instance_hours.total,
            idle_instance_hours: r.instance_hours.idle,
            peak_instances: r.peak_instances,
            instance_hours_ratio: (self.instance_hours > 0.0)
                .then(|| r.instance_hours.total / self.instance_hours),
        });
    }
}
