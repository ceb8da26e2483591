//! The work queue (Service Bus or Storage) and the autoscale setting that follows it.

use serde::Serialize;

use super::common::PrivateEndpoint;
use super::network::Network;
use crate::facts::monitor::STORAGE_QUEUE_LENGTH;
use crate::spec::model::{ScaleOutAggregation, WorkloadSpec};
use crate::spec::schedule::{self, Origin};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum QueueKind {
    ServiceBus,
    Storage,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Queue {
    pub kind: QueueKind,
    pub service_bus: bool,
    pub storage: bool,
    /// The Service Bus namespace or the storage account.
    pub parent: String,
    pub queue: String,
    /// Create the namespace/account and the queue; otherwise they are referenced as existing.
    pub create: bool,
    /// SKU of a namespace/account gpuform creates: the Service Bus tier (`Standard`, the name
    /// and tier of the namespace SKU) or the storage account SKU (`Standard_GRS`). The templates
    /// and `gpuform cost` read it from here.
    pub sku: &'static str,
    /// Resource group of an existing namespace/account outside the deployment's group.
    pub resource_group: Option<String>,
    /// Storage accounts the deployment creates are private: a queue private endpoint.
    pub private_endpoint: Option<PrivateEndpoint>,
    /// The role the pool needs on a queue in another resource group, which a resource-group
    /// deployment cannot assign: `(role name, role definition id)`, for a note in the output.
    pub role_to_grant_elsewhere: Option<(String, String)>,
}

impl Queue {
    /// The queue lives in the resource group the template is deployed to.
    pub fn in_deployment_group(&self) -> bool {
        self.create || self.resource_group.is_none()
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Autoscale {
    pub name: String,
    pub profiles: Vec<AutoscaleProfile>,
    /// The queue rules every metric-driven profile carries.
    pub rules: Vec<AutoscaleRule>,
    pub emails: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AutoscaleProfile {
    pub name: String,
    /// Why the profile exists, for the comment above it.
    pub comment: String,
    pub min: u32,
    pub max: u32,
    pub default: u32,
    pub recurrence: Option<Recurrence>,
    pub has_rules: bool,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Recurrence {
    pub time_zone: String,
    pub days: Vec<&'static str>,
    pub hour: u32,
    pub minute: u32,
}

/// The resource whose metric an autoscale rule reads (its `metricResourceUri`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum MetricSource {
    /// The Service Bus namespace (`ActiveMessages`, filtered to the queue).
    ServiceBusNamespace,
    /// The storage queue itself (autoscale's special `ApproximateMessageCount`).
    StorageQueue,
    /// The serving pool's Application Gateway (`AvgRequestCountPerHealthyHost`, filtered to the
    /// backend pool and settings: `plan.serving.gateway`).
    ApplicationGateway,
    /// The serving pool's Application Insights component: the GPU utilisation the collector
    /// sends (`plan.serving.gpuScaling`).
    ApplicationInsights,
}

/// A metric dimension filter of a rule (`Equals`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricDimension {
    pub name: &'static str,
    pub value: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AutoscaleRule {
    pub comment: String,
    pub metric_name: &'static str,
    pub metric_namespace: &'static str,
    /// Where the metric comes from: the Service Bus namespace, the storage queue, or the
    /// serving pool's gateway (the queue-only `metric_on_namespace` before issue 36).
    pub metric_source: MetricSource,
    pub time_grain: &'static str,
    pub statistic: &'static str,
    pub time_window: String,
    pub time_aggregation: &'static str,
    pub operator: &'static str,
    pub threshold: u32,
    pub divide_per_instance: bool,
    /// The rule's dimension filter: `EntityName` = the queue (Service Bus), or
    /// `BackendSettingsPool` = `<pool>~<settings>` (the gateway).
    pub dimension: Option<MetricDimension>,
    pub direction: &'static str,
    /// `ChangeCount` value (as a string, as the template takes it).
    pub change: String,
    pub cooldown: String,
}

pub(super) fn queue(name: &str, s: &WorkloadSpec, network: &Network) -> Option<Queue> {
    let q = s.autoscale.as_ref()?.queue.as_ref()?;
    if let Some(sb) = &q.service_bus {
        return Some(Queue {
            kind: QueueKind::ServiceBus,
            service_bus: true,
            storage: false,
            parent: sb.namespace.clone(),
            queue: sb.queue.clone(),
            create: sb.create,
            sku: "Standard",
            resource_group: if sb.create {
                None
            } else {
                sb.resource_group.clone()
            },
            // Standard namespaces have no private endpoints (Premium only); access is Entra-only.
            private_endpoint: None,
            role_to_grant_elsewhere: (!sb.create && sb.resource_group.is_some()).then(|| {
                (
                    "Azure Service Bus Data Receiver".to_string(),
                    super::common::roles::SERVICE_BUS_DATA_RECEIVER.to_string(),
                )
            }),
        });
    }
    let st = q.storage_queue.as_ref()?;
    Some(Queue {
        kind: QueueKind::Storage,
        service_bus: false,
        storage: true,
        parent: st.account.clone(),
        queue: st.queue.clone(),
        create: st.create,
        sku: "Standard_GRS",
        resource_group: if st.create {
            None
        } else {
            st.resource_group.clone()
        },
        private_endpoint: (st.create && network.has_pe_subnet()).then(|| PrivateEndpoint {
            name: format!("pep-{name}-queue"),
            group_id: "queue",
            zone: super::common::PrivateDnsZone::Storage,
            storage_service: Some("queue"),
            nic_name: format!("pep-{name}-queue-nic"),
            vnet_link_name: format!("link-{}", network.vnet_name),
            zone_id: super::landing_zone::existing_zone_id(
                s,
                super::common::PrivateDnsZone::Storage,
                Some("queue"),
            ),
        }),
        role_to_grant_elsewhere: (!st.create && st.resource_group.is_some()).then(|| {
            (
                "Storage Queue Data Message Processor".to_string(),
                super::common::roles::STORAGE_QUEUE_DATA_MESSAGE_PROCESSOR.to_string(),
            )
        }),
    })
}

pub fn autoscale(
    name: &str,
    s: &WorkloadSpec,
    queue: Option<&Queue>,
    serving: Option<&super::serving::Serving>,
) -> Option<Autoscale> {
    if !schedule::has_setting(s) {
        // a fixed-size pool: nothing to scale
        return None;
    }
    let profiles = schedule::profiles(s)
        .into_iter()
        .map(|p| AutoscaleProfile {
            comment: match p.origin {
                Origin::Default => "Applies whenever no recurring profile has started.".to_string(),
                Origin::ScheduleStart(i) => format!("Schedule `{}` starts.", s.autoscale.as_ref().map(|a| a.schedules[i].name.as_str()).unwrap_or("")),
                Origin::ScheduleEnd(i) => format!(
                    "Schedule `{}` ends: back to the default limits (a recurring profile has no end of its own).",
                    s.autoscale.as_ref().map(|a| a.schedules[i].name.as_str()).unwrap_or("")
                ),
                Origin::ShutdownStop => "autoShutdown: scale to zero.".to_string(),
                Origin::ShutdownStart => "autoShutdown: back to the default limits.".to_string(),
            },
            name: p.name,
            min: p.min,
            max: p.max,
            default: p.default,
            recurrence: p.recurrence.map(|r| Recurrence {
                time_zone: r.time_zone,
                days: r.days.iter().map(|d| d.as_str()).collect(),
                hour: r.hour,
                minute: r.minute,
            }),
            has_rules: p.has_rules,
        })
        .collect();
    let mut rules = Vec::new();
    if let (Some(a), Some(q)) = (s.autoscale.as_ref(), queue)
        && let Some(trigger) = &a.queue
    {
        let target = trigger.target_per_instance;
        let below = trigger.scale_in_below.unwrap_or(0);
        let (source, metric_name, metric_namespace, divide, dim) = match q.kind {
            // Azure Monitor namespace metric, filtered to the queue and divided per instance
            QueueKind::ServiceBus => (
                MetricSource::ServiceBusNamespace,
                "ActiveMessages",
                "Microsoft.ServiceBus/namespaces",
                true,
                Some(q.queue.clone()),
            ),
            // the storage queue's special metric: its threshold is already per instance
            QueueKind::Storage => (
                MetricSource::StorageQueue,
                STORAGE_QUEUE_LENGTH.metric,
                STORAGE_QUEUE_LENGTH.namespace,
                false,
                None,
            ),
        };
        // scale-out: the spec's aggregation (Average by default); scale-in keeps Average
        let out_aggregation = trigger.scale_out_aggregation.unwrap_or_default().azure();
        let rule = |comment: String,
                    operator: &'static str,
                    threshold: u32,
                    direction: &'static str,
                    cooldown: &str,
                    change: u32| AutoscaleRule {
            comment,
            metric_name,
            metric_namespace,
            metric_source: source,
            time_grain: "PT1M",
            statistic: "Average",
            time_window: a.time_window.clone(),
            time_aggregation: if direction == "Increase" {
                out_aggregation
            } else {
                crate::facts::autoscale::TIME_AGGREGATION_DEFAULT
            },
            operator,
            threshold,
            divide_per_instance: divide,
            dimension: dim.clone().map(|value| MetricDimension {
                name: "EntityName",
                value,
            }),
            direction,
            change: change.to_string(),
            cooldown: cooldown.to_string(),
        };
        let step = trigger.scale_out_step.unwrap_or(1);
        let how = match trigger.scale_out_aggregation.unwrap_or_default() {
            ScaleOutAggregation::Average => "",
            ScaleOutAggregation::Maximum => " in any minute of the window",
            ScaleOutAggregation::Last => " in the window's last minute",
        };
        rules.push(rule(
            if step == 1 {
                format!("Scale out when the backlog per instance exceeds {target} messages{how}.")
            } else {
                format!(
                    "Scale out by {step} when the backlog per instance exceeds {target} messages{how}."
                )
            },
            "GreaterThan",
            target,
            "Increase",
            &a.scale_out_cooldown,
            step,
        ));
        // tiers: more scale-out rules; Azure takes the largest result of those that fire
        for tier in &trigger.scale_out_tiers {
            rules.push(rule(
                format!(
                    "Scale out by {} when the backlog per instance exceeds {} messages{how}.",
                    tier.step, tier.above
                ),
                "GreaterThan",
                tier.above,
                "Increase",
                &a.scale_out_cooldown,
                tier.step,
            ));
        }
        rules.push(if below == 0 {
            rule(
                "Scale in when the queue is empty (no lower threshold is flap-safe for this target).".into(),
                "LessThanOrEqual",
                0,
                "Decrease",
                &a.scale_in_cooldown,
                1,
            )
        } else {
            rule(
                format!("Scale in below {below} messages per instance: one instance fewer still stays under {target}, so it cannot flap."),
                "LessThan",
                below,
                "Decrease",
                &a.scale_in_cooldown,
                1,
            )
        });
    }
    // the request rules read the spec as it is (the tuner varies it) and the gateway's names
    if let (Some(a), Some(g)) = (
        s.autoscale.as_ref(),
        serving.and_then(|sv| sv.gateway.as_ref()),
    ) && let Some(t) = super::serving::resolved_request_target(s)
    {
        rules.extend(request_rules(a, &t, g));
    }
    // the GPU rules read the Application Insights metric the collector sends
    if let (Some(a), Some(g)) = (
        s.autoscale.as_ref(),
        serving.and_then(|sv| sv.gpu_scaling.as_ref()),
    ) {
        rules.extend(gpu_rules(a, g));
    }
    Some(Autoscale {
        name: format!("as-{name}"),
        profiles,
        rules,
        emails: s.monitoring.alert_emails.clone(),
    })
}

/// The request rules: `AvgRequestCountPerHealthyHost` of the serving pool's gateway, already a
/// per-instance count (requests a minute per healthy backend host), so not divided again.
fn request_rules(
    a: &crate::spec::model::Autoscale,
    t: &super::serving::RequestTarget,
    g: &super::serving::Gateway,
) -> Vec<AutoscaleRule> {
    use crate::facts::serving as f;
    let aggregation = a
        .requests
        .as_ref()
        .and_then(|r| r.scale_out_aggregation)
        .unwrap_or_default();
    let how = match aggregation {
        ScaleOutAggregation::Average => "",
        ScaleOutAggregation::Maximum => " in any minute of the window",
        ScaleOutAggregation::Last => " in the window's last minute",
    };
    let rule = |comment: String,
                operator: &'static str,
                threshold: u32,
                direction: &'static str,
                cooldown: &str,
                change: u32| AutoscaleRule {
        comment,
        metric_name: f::REQUEST_METRIC,
        metric_namespace: f::REQUEST_METRIC_NAMESPACE,
        metric_source: MetricSource::ApplicationGateway,
        time_grain: f::REQUEST_METRIC_GRAIN,
        statistic: f::REQUEST_METRIC_STATISTIC,
        time_window: a.time_window.clone(),
        time_aggregation: if direction == "Increase" {
            aggregation.azure()
        } else {
            crate::facts::autoscale::TIME_AGGREGATION_DEFAULT
        },
        operator,
        threshold,
        divide_per_instance: false,
        dimension: Some(MetricDimension {
            name: f::REQUEST_METRIC_DIMENSION,
            value: g.metric_dimension.clone(),
        }),
        direction,
        change: change.to_string(),
        cooldown: cooldown.to_string(),
    };
    let step = t.scale_out_step;
    let by = if step == 1 {
        String::new()
    } else {
        format!(" by {step}")
    };
    let mut out = vec![rule(
        format!(
            "Scale out{by} above {} requests a minute per healthy instance{how} ({}).",
            t.per_instance, t.from
        ),
        "GreaterThan",
        t.per_instance,
        "Increase",
        &a.scale_out_cooldown,
        step,
    )];
    out.push(rule(
        format!(
            "Scale in below {} requests a minute per healthy instance: one instance fewer still stays under {}. With no requests the gateway reports no data point and this rule does not fire.",
            t.scale_in_below, t.per_instance
        ),
        "LessThan",
        t.scale_in_below,
        "Decrease",
        &a.scale_in_cooldown,
        1,
    ));
    out
}

/// The GPU rules: the pool's mean GPU utilisation (percent), one point a minute from each VM in
/// the Application Insights component, averaged by autoscale over the window. Already a mean
/// per GPU, so not divided per instance. Scale-in needs every rule (the request rules too) to
/// agree; scale-out any one.
fn gpu_rules(
    a: &crate::spec::model::Autoscale,
    g: &super::serving_gpu::GpuScaling,
) -> Vec<AutoscaleRule> {
    let rule = |comment: String,
                operator: &'static str,
                threshold: u32,
                direction: &'static str,
                cooldown: &str,
                change: u32| AutoscaleRule {
        comment,
        metric_name: g.metric_name,
        metric_namespace: g.metric_namespace,
        metric_source: MetricSource::ApplicationInsights,
        time_grain: "PT1M",
        statistic: "Average",
        time_window: a.time_window.clone(),
        time_aggregation: crate::facts::autoscale::TIME_AGGREGATION_DEFAULT,
        operator,
        threshold,
        divide_per_instance: false,
        dimension: None,
        direction,
        change: change.to_string(),
        cooldown: cooldown.to_string(),
    };
    let step = g.scale_out_step;
    let by = if step == 1 {
        String::new()
    } else {
        format!(" by {step}")
    };
    vec![
        rule(
            format!(
                "Scale out{by} when the pool's mean GPU utilisation is above {}% (Application Insights metric {} sent by each VM's collector).",
                g.scale_out_above, g.metric_name
            ),
            "GreaterThan",
            g.scale_out_above,
            "Increase",
            &a.scale_out_cooldown,
            step,
        ),
        rule(
            format!(
                "Scale in when the pool's mean GPU utilisation is below {}% ({}); with no points (no VM answering) this rule does not fire.",
                g.scale_in_below, g.scale_in_from
            ),
            "LessThan",
            g.scale_in_below,
            "Decrease",
            &a.scale_in_cooldown,
            1,
        ),
    ]
}
