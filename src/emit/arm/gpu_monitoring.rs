//! GPU monitoring (templates/gpu_monitoring.bicep.hbs).

use crate::emit::value::{Map, Value};

use crate::emit::value::json;

use crate::plan::gpu_monitoring::GpuMonitoring;

use super::expr::{lit, x};
use super::monitoring::action_group_ids;
use super::symbols::{Arm, dcr_policy_role_name, gpu_workbook_name};

/// GPU monitoring (templates/gpu_monitoring.bicep.hbs): table, DCE, DCR, association, log
/// alerts, workbook.
pub(super) fn gpu_monitoring(a: &Arm, g: &GpuMonitoring, out: &mut Vec<Value>) {
    let p = a.p;
    // in a landing zone's central workspace the table is a prerequisite (`plan::shared`)
    if p.monitoring.workspace.existing.is_none() {
        out.push(json!({
        "type": "Microsoft.OperationalInsights/workspaces/tables",
        "apiVersion": p.api.log_analytics_tables,
        "name": lit(&format!("{}/{}", p.monitoring.workspace.name, g.table)),
        "properties": {
            "plan": "Analytics",
            "retentionInDays": g.retention_days,
            "schema": {
                "name": g.table,
                "description": "GPU telemetry from the gpuform collector: one row per GPU per minute, or one health row per VM.",
                "columns": g.columns.iter().map(|c| json!({ "name": c.name, "type": c.table_type, "description": lit(c.description) })).collect::<Vec<_>>()
            }
        },
        "dependsOn": a.depends(&["workspace"])
    }));
    }
    // an existing workspace may be in another region, and a DCE's logs ingestion must be in the
    // workspace's; without Private Link the agent needs no DCE (facts::monitor::DCE). The Logs
    // Ingestion path posts to the DCE (facts::logs_ingestion::ENDPOINT_CHOICE)
    let dce = g.dce;
    if dce {
        out.push(json!({
        "type": "Microsoft.Insights/dataCollectionEndpoints",
        "apiVersion": p.api.data_collection,
        "name": lit(&g.dce_name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "kind": g.kind,
        "properties": {
            "description": lit(&format!("Data collection endpoint of the GPU telemetry of {}.", p.name)),
            "networkAcls": { "publicNetworkAccess": "Enabled" }
        }
    }));
    }
    let mut streams = Map::new();
    streams.insert(
        g.stream.to_string().into(),
        json!({ "columns": g.columns.iter().map(|c| json!({ "name": c.name, "type": c.stream_type })).collect::<Vec<_>>() }),
    );
    let mut dcr = json!({
        "type": "Microsoft.Insights/dataCollectionRules",
        "apiVersion": p.api.data_collection,
        "name": lit(&g.dcr_name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "kind": g.kind,
        "properties": {
            "description": lit(&format!("GPU telemetry (JSON lines of the gpuform collector) into {}.", g.table)),
            "dataCollectionEndpointId": x(a.id("gpuDce")),
            "streamDeclarations": streams,
            "dataSources": { "logFiles": [ {
                "name": "gpuTelemetry",
                "streams": [ g.stream ],
                "filePatterns": [ lit(g.file_pattern) ],
                "format": "json"
            } ] },
            "destinations": { "logAnalytics": [ { "name": "workspace", "workspaceResourceId": x(a.id("workspace")) } ] },
            "dataFlows": [ {
                "streams": [ "[variables('gpuStream')]" ],
                "destinations": [ "workspace" ],
                "transformKql": lit(&g.transform_kql),
                "outputStream": crate::facts::custom_tables::output_stream(g.table)
            } ]
        },
        "dependsOn": a.depends(if dce { &["gpuDce", "workspace", "gpuTable"] } else { &["workspace", "gpuTable"] })
    });
    if !dce {
        dcr["properties"]
            .as_object_mut()
            .expect("DCR properties")
            .remove("dataCollectionEndpointId");
    }
    out.push(dcr);
    if g.ingestion.is_some() {
        // the collector posts itself: no association, no policy (the custom data carries the
        // endpoint: compute::ingestion_custom_data)
    } else if let Some(pol) = &g.dcr_policy {
        // a Flexible scale set: the built-in policy associates each VM (templates/gpu_monitoring.bicep.hbs)
        out.push(json!({
            "type": "Microsoft.Authorization/policyAssignments",
            "apiVersion": p.api.policy_assignments,
            "name": lit(&pol.assignment_name),
            "location": "[parameters('location')]",
            "identity": { "type": "SystemAssigned" },
            "properties": {
                "displayName": lit(&pol.display_name),
                "description": lit(&format!("Associates each VM of the pool with {}, including the VMs scale-outs add.", g.dcr_name)),
                "policyDefinitionId": x(format!("tenantResourceId('Microsoft.Authorization/policyDefinitions', '{}')", pol.definition_id)),
                "parameters": {
                    "dcrResourceId": { "value": x(a.id("gpuDcr")) },
                    "resourceType": { "value": "Microsoft.Insights/dataCollectionRules" },
                    "scopeToSupportedImages": { "value": false }
                }
            },
            "dependsOn": a.depends(&["gpuDcr"])
        }));
        let mut remediation_deps = vec!["gpuDcrPolicy", "vmss"];
        for r in &pol.roles {
            out.push(json!({
                "type": "Microsoft.Authorization/roleAssignments",
                "apiVersion": p.api.role_assignments,
                "name": x(dcr_policy_role_name(pol, r.id)),
                "properties": {
                    "roleDefinitionId": x(format!("subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '{}')", r.id)),
                    "principalId": x(format!("reference({}, '{}', 'full').identity.principalId", a.id("gpuDcrPolicy"), p.api.policy_assignments)),
                    "principalType": "ServicePrincipal",
                    "description": "The GPU telemetry policy associates each VM with the data collection rule."
                },
                "dependsOn": a.depends(&["gpuDcrPolicy"])
            }));
            remediation_deps.push(r.sym.as_str());
        }
        // after the standby pool, whose VMs the provider creates after the pool's PUT (and the
        // pool waits for the policy: super::super::standby)
        if p.standby.is_some() {
            remediation_deps.push("standbyPool");
        }
        out.push(json!({
            "type": "Microsoft.PolicyInsights/remediations",
            "apiVersion": p.api.policy_remediations,
            "name": x(format!("parameters('{}')", pol.remediation_param)),
            "properties": {
                "policyAssignmentId": x(a.id("gpuDcrPolicy")),
                "resourceDiscoveryMode": "ReEvaluateCompliance"
            },
            "dependsOn": a.depends(&remediation_deps)
        }));
    } else {
        // a Uniform scale set's VMs, or the dev box VM (an extension resource on it either way)
        let (target, what) = if p.devbox.is_some() {
            ("vm", "The dev box sends")
        } else {
            ("vmss", "Every VM of the scale set sends")
        };
        out.push(json!({
            "type": "Microsoft.Insights/dataCollectionRuleAssociations",
            "apiVersion": p.api.data_collection,
            "scope": a.scope(target),
            "name": lit(g.association_name),
            "properties": {
                "description": lit(&format!("{what} GPU telemetry through {}.", g.dcr_name)),
                "dataCollectionRuleId": x(a.id("gpuDcr"))
            },
            "dependsOn": a.depends(&[target, "gpuDcr"])
        }));
    }
    let ag = p.monitoring.action_group.is_some();
    for al in &g.alerts {
        // scheduledQueryRules `actions.actionGroups`: action group resource ids
        // (https://learn.microsoft.com/azure/templates/microsoft.insights/scheduledqueryrules)
        let groups = Value::Array(action_group_ids(a));
        let actions = if p.monitoring.notifies {
            json!({ "actionGroups": groups, "actionProperties": { "Email.Subject": lit(&al.email_subject) } })
        } else {
            json!({ "actionGroups": groups })
        };
        let mut condition = json!({
            "query": lit(&al.query),
            "timeAggregation": al.time_aggregation,
            "metricMeasureColumn": al.measure,
            "operator": al.operator,
            "threshold": al.threshold,
            "failingPeriods": { "numberOfEvaluationPeriods": 1, "minFailingPeriodsToAlert": 1 }
        });
        if !al.dimensions.is_empty() {
            // one alert per combination of these values
            condition["dimensions"] = al
                .dimensions
                .iter()
                .map(|d| json!({ "name": d, "operator": "Include", "values": ["*"] }))
                .collect();
        }
        let mut deps = vec!["workspace", "gpuTable"];
        if ag {
            deps.push("actionGroup");
        }
        out.push(json!({
            "type": "Microsoft.Insights/scheduledQueryRules",
            "apiVersion": p.api.scheduled_query_rules,
            "name": lit(&al.name),
            "location": "[parameters('location')]",
            "tags": a.tags(),
            "kind": "LogAlert",
            "properties": {
                "displayName": lit(&al.display_name),
                "description": lit(&al.description),
                "severity": al.severity,
                "enabled": true,
                "scopes": [ x(a.id("workspace")) ],
                "evaluationFrequency": al.evaluation_frequency,
                "windowSize": lit(&al.window_size),
                "criteria": { "allOf": [ condition ] },
                "autoMitigate": true,
                "actions": actions
            },
            "dependsOn": a.depends(&deps)
        }));
    }
    out.push(json!({
        "type": "Microsoft.Insights/workbooks",
        "apiVersion": p.api.workbooks,
        "name": x(gpu_workbook_name(g)),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "kind": "shared",
        "properties": {
            "displayName": lit(&g.workbook.display_name),
            "category": "workbook",
            "sourceId": x(a.id("workspace")),
            "serializedData": lit(&g.workbook.serialized_data)
        },
        "dependsOn": a.depends(&["workspace", "gpuTable"])
    }));
}
