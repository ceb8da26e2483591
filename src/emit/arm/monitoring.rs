//! Monitoring (templates/monitoring.bicep.hbs): workspace, action group, alerts, budget.

use crate::emit::value::{Map, Value};

use crate::emit::value::json;

use super::expr::{lit, n, put, x};
use super::symbols::Arm;

pub(super) fn monitoring(a: &Arm, out: &mut Vec<Value>) {
    let p = a.p;
    let m = &p.monitoring;
    if m.workspace.existing.is_none() {
        out.push(json!({
            "type": "Microsoft.OperationalInsights/workspaces",
            "apiVersion": p.api.log_analytics,
            "name": lit(&m.workspace.name),
            "location": "[parameters('location')]",
            "tags": a.tags(),
            "properties": {
                "sku": { "name": "PerGB2018" },
                "retentionInDays": m.workspace.retention_days,
                "features": { "enableLogAccessUsingOnlyResourcePermissions": true }
            }
        }));
    }
    for d in &m.diagnostics {
        out.push(json!({
            "type": "Microsoft.Insights/diagnosticSettings",
            "apiVersion": p.api.diagnostic_settings,
            "scope": a.scope(d.target),
            "name": d.name,
            "properties": {
                "workspaceId": x(a.id("workspace")),
                "logs": d.log_categories.iter().map(|c| json!({ "category": c, "enabled": true })).collect::<Vec<_>>(),
                "metrics": d.metrics_categories.iter().map(|c| json!({ "category": c, "enabled": true })).collect::<Vec<_>>()
            },
            "dependsOn": a.depends(&[d.target, "workspace"])
        }));
    }
    if let Some(ag) = &m.action_group {
        out.push(json!({
            "type": "Microsoft.Insights/actionGroups",
            "apiVersion": p.api.action_groups,
            "name": lit(&ag.name),
            "location": "global",
            "tags": a.tags(),
            "properties": {
                "groupShortName": lit(&ag.short_name),
                "enabled": true,
                "emailReceivers": ag.receivers.iter().map(|r| json!({ "name": lit(&r.name), "emailAddress": lit(&r.email), "useCommonAlertSchema": true })).collect::<Vec<_>>()
            }
        }));
    }
    for al in &m.alerts {
        let mut criterion = json!({
            "criterionType": "StaticThresholdCriterion",
            "name": al.metric_name,
            "metricNamespace": al.metric_namespace,
            "metricName": al.metric_name,
            "operator": al.operator,
            "threshold": n(al.threshold),
            "timeAggregation": al.time_aggregation,
        });
        if let Some(dim) = &al.dimension {
            put(
                &mut criterion,
                "dimensions",
                json!([ { "name": dim.name, "operator": "Include", "values": [ lit(&dim.value) ] } ]),
            );
        }
        // metricAlerts `actions[].actionGroupId`
        // (https://learn.microsoft.com/azure/templates/microsoft.insights/metricalerts)
        let actions = Value::Array(
            action_group_ids(a)
                .into_iter()
                .map(|id| json!({ "actionGroupId": id }))
                .collect(),
        );
        let mut deps = vec![al.scope];
        if m.action_group.is_some() {
            deps.push("actionGroup");
        }
        out.push(json!({
            "type": "Microsoft.Insights/metricAlerts",
            "apiVersion": p.api.metric_alerts,
            "name": lit(&al.name),
            "location": "global",
            "tags": a.tags(),
            "properties": {
                "description": lit(&al.description),
                "severity": al.severity,
                "enabled": true,
                "autoMitigate": true,
                "scopes": [ x(a.id(al.scope)) ],
                "evaluationFrequency": al.evaluation_frequency,
                "windowSize": al.window_size,
                "criteria": {
                    "odata.type": "Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria",
                    "allOf": [ criterion ]
                },
                "actions": actions
            },
            "dependsOn": a.depends(&deps)
        }));
    }
    if let Some(b) = &m.budget {
        let mut notes = Map::new();
        for nt in &b.notifications {
            let mut o = json!({ "enabled": true, "operator": "GreaterThanOrEqualTo", "threshold": n(nt.threshold), "thresholdType": "Actual" });
            // (the plan has notifications only when there are emails to send them to)
            put(
                &mut o,
                "contactEmails",
                Value::Array(b.emails.iter().map(|e| lit(e)).collect()),
            );
            if m.notifies {
                put(&mut o, "contactGroups", Value::Array(action_group_ids(a)));
            }
            notes.insert(nt.key.clone().into(), o);
        }
        let mut res = json!({
            "type": "Microsoft.Consumption/budgets",
            "apiVersion": p.api.budgets,
            "name": lit(&b.name),
            "properties": {
                "category": "Cost",
                "amount": n(b.amount),
                "timeGrain": "Monthly",
                "timePeriod": { "startDate": "[parameters('budgetStartDate')]" }
            }
        });
        if !notes.is_empty() {
            put(
                &mut res["properties"],
                "notifications",
                Value::Object(notes),
            );
        }
        if m.action_group.is_some() {
            put(&mut res, "dependsOn", a.depends(&["actionGroup"]));
        }
        out.push(res);
    }
}

/// The action groups every alert and budget notification names: the created one, then the
/// landing zone's existing ones (`monitoring.existingActionGroups`), as literal ids.
pub(super) fn action_group_ids(a: &Arm) -> Vec<Value> {
    let m = &a.p.monitoring;
    let mut ids = Vec::new();
    if m.action_group.is_some() {
        ids.push(x(a.id("actionGroup")));
    }
    ids.extend(m.existing_action_groups.iter().map(|id| lit(id)));
    ids
}

/// Azure Monitor Agent settings: sign in with the pool's user-assigned identity.
pub(super) fn ama_settings(a: &Arm) -> Value {
    json!({ "authentication": { "managedIdentity": {
        "identifier-name": "mi_res_id",
        "identifier-value": x(a.id("identity"))
    } } })
}
