//! Monitoring: Log Analytics, diagnostic settings, the action group, metric alerts and the budget.

use serde::Serialize;

use super::scaling::{Autoscale, Queue, QueueKind};
use crate::spec::model::WorkloadSpec;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Monitoring {
    pub workspace: Workspace,
    pub action_group: Option<ActionGroup>,
    pub diagnostics: Vec<DiagnosticSetting>,
    pub alerts: Vec<MetricAlert>,
    pub budget: Option<Budget>,
    /// Landing zones: resource ids of existing action groups (`monitoring.existingActionGroups`)
    /// that every alert and budget notification names after the created group.
    pub existing_action_groups: Vec<String>,
    /// Some action group (created or existing) receives the alerts.
    pub notifies: bool,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Workspace {
    pub name: String,
    pub retention_days: u32,
    /// Landing zones: the central workspace (`monitoring.existingWorkspace`); then nothing is
    /// created, `name` is its name and `retention_days` is not rendered.
    pub existing: Option<super::shared::ExistingRef>,
}

impl Workspace {
    /// The workspace's ARM resource id: gpuform's own in `rg`, or the landing zone's existing one.
    pub fn resource_id(&self, subscription: &str, rg: &str) -> String {
        match &self.existing {
            Some(e) => e.id.clone(),
            None => format!(
                "/subscriptions/{subscription}/resourceGroups/{rg}/providers/Microsoft.OperationalInsights/workspaces/{}",
                self.name
            ),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActionGroup {
    pub name: String,
    /// At most 12 characters (SMS and e-mail subjects show it).
    pub short_name: String,
    pub receivers: Vec<EmailReceiver>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EmailReceiver {
    pub name: String,
    pub email: String,
}

/// A diagnostic setting that sends a resource's logs and metrics to the workspace.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiagnosticSetting {
    pub sym: &'static str,
    /// Symbol of the resource the setting is attached to.
    pub target: &'static str,
    pub name: &'static str,
    /// Explicit log categories of the target's resource type (from [`LOG_CATEGORIES`]): category
    /// groups (`allLogs`) are not documented for every type (autoscale settings have none).
    pub log_categories: Vec<&'static str>,
    /// Metric categories exported (`AllMetrics`; storage queues: `Transaction` and `Capacity`).
    pub metrics_categories: Vec<&'static str>,
}

// The metrics and log categories the render uses are facts ([`crate::facts::monitor`]),
// re-exported here for existing callers.
pub use crate::facts::monitor::{
    LOG_CATEGORIES, LogEntry, METRICS, MetricEntry, log_entry, metric_entry,
};

fn diagnostic(
    sym: &'static str,
    target: &'static str,
    resource_type: &'static str,
) -> DiagnosticSetting {
    let e = log_entry(resource_type).expect("every diagnostic target is in LOG_CATEGORIES");
    DiagnosticSetting {
        sym,
        target,
        name: "to-log-analytics",
        log_categories: e.log_categories.to_vec(),
        metrics_categories: e.metric_categories.to_vec(),
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricAlert {
    pub sym: &'static str,
    pub name: String,
    pub description: String,
    pub severity: u32,
    /// Symbol of the scoped resource (`vmss`, `autoscale`, `sbNamespace`, `storageQueueService`).
    pub scope: &'static str,
    pub metric_namespace: &'static str,
    pub metric_name: &'static str,
    pub operator: &'static str,
    pub threshold: f64,
    pub time_aggregation: &'static str,
    pub evaluation_frequency: &'static str,
    pub window_size: &'static str,
    pub dimension: Option<AlertDimension>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlertDimension {
    pub name: &'static str,
    pub value: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    pub name: String,
    /// In the billing account's currency (Azure budgets have no currency field).
    pub amount: f64,
    pub currency: String,
    pub notifications: Vec<BudgetNotification>,
    pub emails: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetNotification {
    pub key: String,
    pub threshold: f64,
}

pub(super) fn workspace(name: &str, s: &WorkloadSpec) -> Workspace {
    let existing = super::shared::workspace(s);
    Workspace {
        name: existing
            .as_ref()
            .map_or_else(|| format!("log-{name}"), |e| e.name.clone()),
        retention_days: s.monitoring.log_retention_days,
        existing,
    }
}

pub(super) fn plan(
    name: &str,
    s: &WorkloadSpec,
    workspace: Workspace,
    autoscale: Option<&Autoscale>,
    queue: Option<&Queue>,
) -> Monitoring {
    let m = &s.monitoring;
    let action_group = (!m.alert_emails.is_empty()).then(|| ActionGroup {
        name: format!("ag-{name}"),
        short_name: {
            let mut sn: String = name.chars().take(12).collect();
            while sn.ends_with('-') {
                sn.pop();
            }
            sn
        },
        receivers: m
            .alert_emails
            .iter()
            .enumerate()
            .map(|(i, e)| EmailReceiver {
                name: format!("email-{}", i + 1),
                email: e.clone(),
            })
            .collect(),
    });

    // an existing vault's diagnostic settings are its owner's (and outside this resource group)
    let mut diagnostics = Vec::new();
    if s.security.existing_key_vault.is_none() {
        diagnostics.push(diagnostic(
            "vaultDiagnostics",
            "vault",
            "Microsoft.KeyVault/vaults",
        ));
    }
    if autoscale.is_some() {
        diagnostics.push(diagnostic(
            "autoscaleDiagnostics",
            "autoscale",
            "Microsoft.Insights/autoscaleSettings",
        ));
    }
    if let Some(q) = queue.filter(|q| q.create) {
        diagnostics.push(match q.kind {
            QueueKind::ServiceBus => diagnostic(
                "sbDiagnostics",
                "sbNamespace",
                "Microsoft.ServiceBus/namespaces",
            ),
            QueueKind::Storage => diagnostic(
                "queueServiceDiagnostics",
                "storageQueueService",
                "Microsoft.Storage/storageAccounts/queueServices",
            ),
        });
    }

    // the standby pool's execution log, where troubleshooting a pool that does not fill starts
    // (a dev box has no pool: the caller plans none)
    if crate::spec::standby::of(s).is_some() && !super::devbox::applies(s) {
        diagnostics.push(diagnostic(
            "standbyPoolDiagnostics",
            "standbyPool",
            "Microsoft.StandbyPool/standbyVirtualMachinePools",
        ));
    }

    let mut alerts = Vec::new();
    let queue_rules = autoscale.is_some_and(|a| !a.rules.is_empty());
    if queue_rules && s.capacity.max > s.capacity.min {
        alerts.push(MetricAlert {
            sym: "alertCapacityAtMax",
            name: format!("alert-{name}-capacity-at-max"),
            // ObservedCapacity lists only Average: an hourly average at max means the pool
            // stayed at max for the whole hour (the capacity never exceeds max).
            description: format!(
                "The pool has run at its maximum of {} instances for an hour: the queue outgrows the pool (raise capacity.max or the quota).",
                s.capacity.max
            ),
            severity: 2,
            scope: "autoscale",
            metric_namespace: "Microsoft.Insights/autoscalesettings",
            metric_name: "ObservedCapacity",
            operator: "GreaterThanOrEqual",
            threshold: f64::from(s.capacity.max),
            time_aggregation: "Average",
            evaluation_frequency: "PT15M",
            window_size: "PT1H",
            dimension: None,
        });
    }
    if let (Some(q), Some(trigger)) = (queue, s.autoscale.as_ref().and_then(|a| a.queue.as_ref())) {
        let backlog = f64::from(trigger.target_per_instance) * f64::from(s.capacity.max.max(1));
        alerts.push(match q.kind {
            QueueKind::ServiceBus => MetricAlert {
                sym: "alertQueueBacklog",
                name: format!("alert-{name}-queue-backlog"),
                description: format!(
                    "More than {} messages wait in {}: more than the full pool ({} instances x {}) works through.",
                    backlog, q.queue, s.capacity.max, trigger.target_per_instance
                ),
                severity: 2,
                scope: "sbNamespace",
                metric_namespace: "Microsoft.ServiceBus/namespaces",
                metric_name: "ActiveMessages",
                operator: "GreaterThan",
                threshold: backlog,
                time_aggregation: "Average",
                evaluation_frequency: "PT5M",
                window_size: "PT30M",
                dimension: Some(AlertDimension { name: "EntityName", value: q.queue.clone() }),
            },
            QueueKind::Storage => MetricAlert {
                sym: "alertQueueBacklog",
                name: format!("alert-{name}-queue-backlog"),
                description: format!(
                    "More than {} messages wait in the queues of {} (hourly capacity metric): more than the full pool works through.",
                    backlog, q.parent
                ),
                severity: 2,
                scope: "storageQueueService",
                metric_namespace: "Microsoft.Storage/storageAccounts/queueServices",
                metric_name: "QueueMessageCount",
                operator: "GreaterThan",
                threshold: backlog,
                time_aggregation: "Average",
                evaluation_frequency: "PT1H",
                window_size: "PT6H",
                dimension: None,
            },
        });
    }
    alerts.push(MetricAlert {
        sym: "alertVmAvailability",
        name: format!("alert-{name}-vm-availability"),
        description: "More than a tenth of the pool's VMs have been unavailable for 15 minutes (host or health failures).".into(),
        severity: 1,
        scope: "vmss",
        metric_namespace: "Microsoft.Compute/virtualMachineScaleSets",
        metric_name: "VmAvailabilityMetric",
        operator: "LessThan",
        threshold: 0.9,
        time_aggregation: "Average",
        evaluation_frequency: "PT5M",
        window_size: "PT15M",
        dimension: None,
    });

    let budget = m.budget.as_ref().map(|b| Budget {
        name: format!("budget-{name}"),
        amount: b.monthly,
        currency: b.currency.clone(),
        // A notification at resource-group scope needs a contact email or an action group
        // (Consumption Budgets REST: "Must have at least one contact email or contact group
        // specified at the Subscription or Resource Group scopes"; Bicep types mark contactEmails
        // required, BCP035). Without alertEmails or existingActionGroups there is neither: the
        // budget is rendered without notifications and `budget-no-contacts` says so.
        // contactGroups: "Action groups to send the budget notification to when the threshold
        // is exceeded. Must be provided as a fully qualified Azure resource id"
        // (https://learn.microsoft.com/azure/templates/microsoft.consumption/budgets).
        notifications: if m.alert_emails.is_empty() && m.existing_action_groups.is_empty() {
            &[][..]
        } else {
            &b.alert_at_percent[..]
        }
        .iter()
        .map(|t| BudgetNotification {
            key: format!("actual{}", t.to_string().replace('.', "_")),
            threshold: *t,
        })
        .collect(),
        emails: m.alert_emails.clone(),
    });

    Monitoring {
        workspace,
        notifies: action_group.is_some() || !m.existing_action_groups.is_empty(),
        action_group,
        diagnostics,
        alerts,
        budget,
        existing_action_groups: m.existing_action_groups.clone(),
    }
}
