//! `spec.autoscale`: queue and request triggers, scale-out tiers and recurring schedules.

use serde::{Deserialize, Serialize};

use super::defaults as d;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Autoscale {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueTrigger>,
    /// Scale on the requests the pool serves (with `spec.serving`; issue 36).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<RequestTrigger>,
    /// Scale on the pool's GPU utilisation too (with `spec.serving` and `monitoring.gpu`):
    /// an Application Insights custom metric the collector sends (issue 36).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu_utilization: Option<GpuUtilizationTrigger>,
    #[serde(
        default = "d::scale_out_cooldown",
        deserialize_with = "crate::spec::duration::iso_string"
    )]
    pub scale_out_cooldown: String,
    #[serde(
        default = "d::scale_in_cooldown",
        deserialize_with = "crate::spec::duration::iso_string"
    )]
    pub scale_in_cooldown: String,
    /// Window the queue metric is averaged over (ISO 8601, PT5M–PT12H).
    #[serde(
        default = "d::time_window",
        deserialize_with = "crate::spec::duration::iso_string"
    )]
    pub time_window: String,
    #[serde(default)]
    pub schedules: Vec<Schedule>,
    /// A standby pool attached to the scale set (issue 23).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standby: Option<super::standby::Standby>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QueueTrigger {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_bus: Option<ServiceBusQueue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_queue: Option<StorageQueue>,
    /// Messages one VM works through; scale out above it.
    pub target_per_instance: u32,
    /// Scale in when the backlog per VM falls below this; derived from the target so it cannot flap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_in_below: Option<u32>,
    /// VMs added per scale-out above the target (1 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_out_step: Option<u32>,
    /// Extra scale-out rules for deeper backlogs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scale_out_tiers: Vec<ScaleOutTier>,
    /// How the scale-out rules combine the queue metric over `timeWindow` (Azure's
    /// `timeAggregation`); `average` when absent. The scale-in rule keeps `Average`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_out_aggregation: Option<ScaleOutAggregation>,
}

/// `autoscale.queue.scaleOutAggregation`: the scale-out rules' `timeAggregation`
/// ([`crate::facts::autoscale::TIME_AGGREGATIONS`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ScaleOutAggregation {
    /// The window's average (Azure's default): a backlog fires the rule once it has raised the
    /// average over the whole window.
    #[default]
    Average,
    /// The window's largest one-minute value: fires in the first minute the backlog is over
    /// the target.
    Maximum,
    /// The window's latest one-minute value.
    Last,
}

impl ScaleOutAggregation {
    pub const ALL: [ScaleOutAggregation; 3] = [
        ScaleOutAggregation::Average,
        ScaleOutAggregation::Maximum,
        ScaleOutAggregation::Last,
    ];

    /// As the spec writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            ScaleOutAggregation::Average => "average",
            ScaleOutAggregation::Maximum => "maximum",
            ScaleOutAggregation::Last => "last",
        }
    }

    /// Azure's `timeAggregation` value.
    pub fn azure(self) -> &'static str {
        match self {
            ScaleOutAggregation::Average => "Average",
            ScaleOutAggregation::Maximum => "Maximum",
            ScaleOutAggregation::Last => "Last",
        }
    }
}

/// One more scale-out rule: above `above` messages per VM, add `step` VMs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScaleOutTier {
    pub above: u32,
    pub step: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServiceBusQueue {
    pub namespace: String,
    pub queue: String,
    #[serde(default)]
    pub create: bool,
    /// Resource group of an existing namespace (default: the deployment's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_group: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StorageQueue {
    pub account: String,
    pub queue: String,
    #[serde(default)]
    pub create: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_group: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Day {
    Monday,
    Tuesday,
    Wednesday,
    Thursday,
    Friday,
    Saturday,
    Sunday,
}

impl Day {
    pub const ALL: [Day; 7] = [
        Day::Monday,
        Day::Tuesday,
        Day::Wednesday,
        Day::Thursday,
        Day::Friday,
        Day::Saturday,
        Day::Sunday,
    ];
    pub const WEEKDAYS: [Day; 5] = [
        Day::Monday,
        Day::Tuesday,
        Day::Wednesday,
        Day::Thursday,
        Day::Friday,
    ];

    /// Monday = 0.
    pub fn index(self) -> u32 {
        self as u32
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Day::Monday => "Monday",
            Day::Tuesday => "Tuesday",
            Day::Wednesday => "Wednesday",
            Day::Thursday => "Thursday",
            Day::Friday => "Friday",
            Day::Saturday => "Saturday",
            Day::Sunday => "Sunday",
        }
    }

    pub fn next(self) -> Day {
        Day::ALL[((self.index() + 1) % 7) as usize]
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Schedule {
    pub name: String,
    pub time_zone: String,
    pub days: Vec<Day>,
    /// `HH:MM`, local to `timeZone`.
    pub start: String,
    /// `HH:MM`; earlier than `start` means the window ends the next day.
    pub end: String,
    pub min: u32,
    pub max: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<u32>,
}

/// `autoscale.requests`: scale on the gateway's requests per minute per healthy instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RequestTrigger {
    /// Requests per minute per healthy instance (the metric's unit) above which autoscale adds
    /// instances; derived from `serving.concurrency` and the service time when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_per_instance: Option<u32>,
    /// Remove an instance below this (default: the largest value that cannot flap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_in_below: Option<u32>,
    /// Instances added per scale-out (1 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_out_step: Option<u32>,
    /// The scale-out rule's `timeAggregation` (as `autoscale.queue`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_out_aggregation: Option<ScaleOutAggregation>,
}

/// `autoscale.gpuUtilization`: scale on the mean GPU utilisation of the pool (percent), which
/// each VM's collector sends to the pool's Application Insights component once a minute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GpuUtilizationTrigger {
    /// Add an instance when the pool's mean GPU utilisation over `timeWindow` is above this.
    pub scale_out_above: u32,
    /// Remove an instance below this (default: the largest value that cannot flap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_in_below: Option<u32>,
    /// Instances added per scale-out (1 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_out_step: Option<u32>,
}
