//! The behaviours Microsoft does not document, chosen here and switchable.

use serde::Serialize;

use super::super::load::LoadChange;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum ZeroInstances {
    /// A per-instance metric at 0 instances is divided by 1 (the whole backlog counts).
    One,
    /// A per-instance metric at 0 instances has no value: the rules cannot fire, and the
    /// missing-metric rule raises the count to the profile's default.
    Missing,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum ProfileSwitch {
    /// When a new profile starts and the count is outside its limits, clamp at once, even in a
    /// cooldown.
    Immediate,
    /// Clamp at the first evaluation after the cooldown.
    AfterCooldown,
}

/// Which VMs a scale-in removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum ScaleInOrder {
    /// The rendered `scaleInPolicy` `Default` (Microsoft's documented order): balance across
    /// zones, then the highest instance ID, busy or not ([`crate::facts::autoscale::SCALE_IN_DEFAULT_ORDER`]).
    Default,
    /// gpuform's earlier model: booting instances first, then idle ones, then the least busy
    /// (as if autoscale could see the jobs; it cannot).
    IdleFirst,
}

/// How the jobs of one minute arrive within it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Arrivals {
    /// All at the start of the minute.
    StartOfMinute,
    /// Evenly spread over the minute.
    Spread,
}

/// The behaviours Microsoft does not document, and the model variants `--tune` tries.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Choices {
    pub zero_instances: ZeroInstances,
    pub profile_switch: ProfileSwitch,
    /// The queue metric counts messages a worker holds (locked / invisible) besides the waiting
    /// ones. Default false: Microsoft's Service Bus reference counts only messages ready for
    /// delivery ([`crate::facts::autoscale`]).
    pub queue_metric_counts_in_service: bool,
    pub scale_in_order: ScaleInOrder,
    /// Minutes between a queue change and the value autoscale reads.
    pub metric_delay_minutes: u32,
    pub arrivals: Arrivals,
    /// The provisioning delay as a share of the workload's (1.0 nominal; 0.75 and 1.25 are
    /// `--tune` variants).
    pub provisioning_factor: f64,
    /// Seconds a pooled (deallocated or hibernated) VM takes to serve after a scale-out takes
    /// it, replacing the pool's own (an assumption: no document gives it); `None`: the pool's.
    /// The `--tune` variants try 2 and 4 minutes when the spec has a pool.
    pub standby_start_seconds: Option<u32>,
    /// The load as a `--tune` variant changes it (more arrivals, the pattern earlier); the
    /// default replays the trace as given (and is left out of the JSON).
    #[serde(skip_serializing_if = "LoadChange::is_nominal")]
    pub load: LoadChange,
}

impl Default for Choices {
    fn default() -> Self {
        Choices {
            zero_instances: ZeroInstances::One,
            profile_switch: ProfileSwitch::Immediate,
            queue_metric_counts_in_service: false,
            scale_in_order: ScaleInOrder::Default,
            metric_delay_minutes: 0,
            arrivals: Arrivals::StartOfMinute,
            provisioning_factor: 1.0,
            standby_start_seconds: None,
            load: LoadChange::default(),
        }
    }
}
