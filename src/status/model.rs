//! What `gpuform status` shows: the sections' types (serialised as the JSON output).

use std::collections::BTreeMap;

use serde::Serialize;

use super::section::Section;

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Instances {
    pub total: usize,
    pub by_state: BTreeMap<String, usize>,
    pub by_priority: BTreeMap<String, usize>,
    pub by_zone: BTreeMap<String, usize>,
    pub by_health: BTreeMap<String, usize>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Autoscale {
    /// The profile the spec's schedules put in force now (computed).
    pub active_profile: String,
    pub min: u32,
    pub max: u32,
    pub default: u32,
    /// What Azure has: enabled, and whether the setting carries that profile.
    pub setting: Section<SettingState>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SettingState {
    pub enabled: bool,
    pub profiles: usize,
    pub has_active_profile: bool,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Queue {
    pub metric: String,
    pub length: Option<f64>,
    /// What the scale rules compare with their threshold (the length per running instance).
    pub per_instance: Option<f64>,
    pub target_per_instance: Option<u32>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// When the operation started (its first event).
    pub time: String,
    pub what: String,
    /// The operation's final status: `Succeeded`, `Failed`, `Canceled`, or the latest one
    /// (`Started`, `InProgress`, ...) while it runs.
    pub status: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Activity {
    pub spot_evictions: Vec<Event>,
    pub scale_actions: Vec<Event>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Alert {
    pub name: String,
    pub severity: String,
    pub condition: String,
    pub started: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cost {
    pub month_to_date: f64,
    pub currency: String,
    pub budget: Option<f64>,
    /// `gpuform cost`'s expected monthly total, and that pro-rated to today.
    pub estimate_monthly: Option<f64>,
    pub estimate_to_date: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimate_currency: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub schema_version: u32,
    pub spec: String,
    pub resource_group: String,
    pub subscription: String,
    pub at: String,
    /// The pool's scale set (absent for a dev box).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_set: Option<String>,
    /// Instances of the scale set (absent for a dev box: see `devBox`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instances: Option<Section<Instances>>,
    /// The autoscale profile (absent for a dev box: it has nothing to scale).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub autoscale: Option<Section<Autoscale>>,
    /// The dev box (`plan.devbox`): one VM stopped and started on a schedule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dev_box: Option<DevBoxStatus>,
    /// The standby pool (`autoscale.standby`): ready VMs and health from its runtime view.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standby: Option<Section<super::standby::StandbyStatus>>,
    pub queue: Section<Queue>,
    pub activity: Section<Activity>,
    pub alerts: Section<Vec<Alert>>,
    pub cost: Section<Cost>,
    /// ARM what-if of the spec's template against the group: what changed outside gpuform.
    pub drift: Section<Drift>,
    /// Running instances against those that wrote GPU telemetry lately (absent without GPU
    /// monitoring).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub telemetry: Option<Section<super::telemetry::Telemetry>>,
    /// The serving frontend's requests, hosts and latency (absent without `plan.serving`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serving: Option<super::serving::Serving>,
}

/// The dev box: the VM's state as Azure reports it and its schedule as the plan renders it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DevBoxStatus {
    pub vm: String,
    pub state: Section<VmState>,
    /// The DevTest Labs schedule that deallocates the VM.
    pub shutdown: NextRun,
    /// The Logic App that starts it.
    pub start: NextRun,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VmState {
    /// `running`, `deallocated`, `stopped`, ... (the instance view's `PowerState/*`).
    pub power_state: String,
    /// Regular or Spot.
    pub priority: String,
    /// `zone N` or `regional`.
    pub zone: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NextRun {
    /// The schedule's resource name.
    pub name: String,
    /// `HH:MM` on which days, in the schedule's time zone.
    pub when: String,
    pub time_zone: String,
    /// The next run after now (UTC, RFC 3339), with the zone's daylight-saving rules.
    pub next: Option<String>,
    /// The same in the schedule's time zone (`2026-12-02 19:00`).
    pub next_local: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Drift {
    /// "2 to modify, 28 no change".
    pub summary: String,
    /// `Modify TYPE NAME` / `Create ...` / `Delete ...` lines for what is not NoChange/Ignore.
    pub changes: Vec<String>,
}

impl Status {
    /// Whether Azure gave none of the sections (every one is `not available`): nothing was read,
    /// so `gpuform status` exits 2 like an access failure (README "Exit codes").
    pub fn nothing_available(&self) -> bool {
        fn missing<T>(s: &Section<T>) -> bool {
            matches!(s, Section::NotAvailable { .. })
        }
        self.instances.as_ref().is_none_or(missing)
            && self.autoscale.as_ref().is_none_or(|a| match a {
                // the active profile is computed from the spec; Azure's part is the setting
                Section::Ok(a) => missing(&a.setting),
                Section::NotAvailable { .. } => true,
            })
            && self.dev_box.as_ref().is_none_or(|d| missing(&d.state))
            && missing(&self.queue)
            && missing(&self.activity)
            && missing(&self.alerts)
            && missing(&self.cost)
            && missing(&self.drift)
            && self
                .serving
                .as_ref()
                .is_none_or(super::serving::nothing_available)
    }
}
