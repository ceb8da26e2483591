//! `spec.monitoring` (GPU telemetry and alerts), the budget and `spec.autoShutdown`.

use serde::{Deserialize, Serialize};

use super::defaults as d;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Monitoring {
    #[serde(default = "d::log_retention_days")]
    pub log_retention_days: u32,
    #[serde(default)]
    pub alert_emails: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<Budget>,
    /// GPU telemetry, alerts, health repairs and the workbook (issue 12).
    #[serde(default)]
    pub gpu: GpuMonitoring,
    /// Landing zones (issue 13): the resource id of an existing (central) Log Analytics
    /// workspace, possibly in another subscription; no workspace is created and everything
    /// that logs or queries points at it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub existing_workspace: Option<String>,
    /// Landing zones (issue 13): resource ids of existing action groups that metric alerts, log
    /// alerts and budget notifications use, next to the group `alertEmails` creates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub existing_action_groups: Vec<String>,
}

impl Default for Monitoring {
    fn default() -> Self {
        Self {
            log_retention_days: d::log_retention_days(),
            alert_emails: Vec::new(),
            budget: None,
            gpu: GpuMonitoring::default(),
            existing_workspace: None,
            existing_action_groups: Vec::new(),
        }
    }
}

/// `monitoring.gpu`: the per-VM GPU collector and what is built on its table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GpuMonitoring {
    /// `None` (absent): on where the image can run the collector; filled in by
    /// [`crate::spec::defaults::resolve_gpu_monitoring`] after validation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// A GPU is idle below this average utilisation (percent).
    #[serde(default = "d::gpu_idle_threshold_percent")]
    pub idle_threshold_percent: u32,
    /// ... for this many minutes.
    #[serde(default = "d::gpu_idle_minutes")]
    pub idle_minutes: u32,
    /// VRAM pressure: memory used above this percent of total on any GPU.
    #[serde(default = "d::gpu_memory_alert_percent")]
    pub memory_alert_percent: u32,
    /// How the collector's rows reach the table: `auto` (the agent where an association reaches
    /// the VMs, the Logs Ingestion API from the collector elsewhere), `agent` or `ingestion`.
    #[serde(default, skip_serializing_if = "GpuDelivery::is_auto")]
    pub delivery: GpuDelivery,
}

/// `monitoring.gpu.delivery`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GpuDelivery {
    /// The Azure Monitor Agent where an association reaches the VMs (Uniform scale set, dev box,
    /// a Flexible pool where the built-in DCR-association policy acts); the Logs Ingestion API
    /// from the collector elsewhere.
    #[default]
    Auto,
    /// Always the agent (a Flexible pool where the policy does not act gets no telemetry:
    /// `gpuform validate` warns `gpu-telemetry-region`). Linux scale sets only (`gpu-delivery`).
    Agent,
    /// Always the Logs Ingestion API from the collector with the pool's managed identity.
    Ingestion,
}

impl GpuDelivery {
    pub fn is_auto(&self) -> bool {
        *self == GpuDelivery::Auto
    }
}

impl Default for GpuMonitoring {
    fn default() -> Self {
        Self {
            enabled: None,
            idle_threshold_percent: d::gpu_idle_threshold_percent(),
            idle_minutes: d::gpu_idle_minutes(),
            memory_alert_percent: d::gpu_memory_alert_percent(),
            delivery: GpuDelivery::Auto,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Budget {
    pub monthly: f64,
    #[serde(default = "d::currency")]
    pub currency: String,
    #[serde(default = "d::budget_thresholds")]
    pub alert_at_percent: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AutoShutdown {
    /// `HH:MM` local time at which the pool scales to zero.
    pub time: String,
    /// `HH:MM` local time at which the pool comes back on working days.
    #[serde(default = "d::auto_start_time")]
    pub start_time: String,
    pub time_zone: String,
    /// Stay at zero from Friday's shutdown until Monday's start.
    #[serde(default = "d::yes")]
    pub weekends: bool,
}
