//! Queue- and request-driven autoscale (templates/autoscale.bicep.hbs).

use crate::emit::value::Value;

use crate::emit::value::json;

use crate::plan::*;

use super::expr::{lit, put, q, x};
use super::private_endpoint::private_endpoint;
use super::symbols::Arm;

pub(super) fn autoscale(a: &Arm, out: &mut Vec<Value>) {
    let p = a.p;
    let asp = p.autoscale.as_ref().expect("autoscale");
    let mut deps: Vec<&str> = vec!["vmss"];
    if let Some(qu) = &p.queue
        && qu.create
    {
        match qu.kind {
            QueueKind::ServiceBus => {
                out.push(json!({
                    "type": "Microsoft.ServiceBus/namespaces",
                    "apiVersion": p.api.service_bus,
                    "name": lit(&qu.parent),
                    "location": "[parameters('location')]",
                    "tags": a.tags(),
                    "sku": { "name": qu.sku, "tier": qu.sku },
                    "properties": { "disableLocalAuth": true, "minimumTlsVersion": "1.2", "publicNetworkAccess": "Enabled" }
                }));
                out.push(json!({
                    "type": "Microsoft.ServiceBus/namespaces/queues",
                    "apiVersion": p.api.service_bus,
                    "name": x(format!("format('{{0}}/{{1}}', {}, {})", q(&qu.parent), q(&qu.queue))),
                    "properties": { "lockDuration": "PT5M", "maxDeliveryCount": 10, "deadLetteringOnMessageExpiration": true },
                    "dependsOn": a.depends(&["sbNamespace"])
                }));
            }
            QueueKind::Storage => {
                out.push(json!({
                    "type": "Microsoft.Storage/storageAccounts",
                    "apiVersion": p.api.storage,
                    "name": lit(&qu.parent),
                    "location": "[parameters('location')]",
                    "tags": a.tags(),
                    "kind": "StorageV2",
                    "sku": { "name": qu.sku },
                    "properties": {
                        "accessTier": "Hot",
                        "allowBlobPublicAccess": false,
                        "allowSharedKeyAccess": false,
                        "defaultToOAuthAuthentication": true,
                        "minimumTlsVersion": "TLS1_2",
                        "supportsHttpsTrafficOnly": true,
                        "publicNetworkAccess": "Disabled",
                        "networkAcls": { "bypass": "AzureServices", "defaultAction": "Deny", "ipRules": [], "virtualNetworkRules": [] }
                    }
                }));
                out.push(json!({
                    "type": "Microsoft.Storage/storageAccounts/queueServices",
                    "apiVersion": p.api.storage,
                    "name": x(format!("format('{{0}}/{{1}}', {}, 'default')", q(&qu.parent))),
                    "dependsOn": a.depends(&["storage"])
                }));
                out.push(json!({
                    "type": "Microsoft.Storage/storageAccounts/queueServices/queues",
                    "apiVersion": p.api.storage,
                    "name": x(format!("format('{{0}}/{{1}}/{{2}}', {}, 'default', {})", q(&qu.parent), q(&qu.queue))),
                    "dependsOn": a.depends(&["storageQueueService"])
                }));
                if let Some(pe) = &qu.private_endpoint {
                    private_endpoint(a, out, pe, "queue", "storage");
                }
            }
        }
    }
    if asp
        .rules
        .iter()
        .any(|r| r.metric_source == MetricSource::ApplicationGateway)
    {
        deps.push("agw");
    }
    if asp
        .rules
        .iter()
        .any(|r| r.metric_source == MetricSource::ApplicationInsights)
    {
        deps.push("appi");
    }
    if let Some(qu) = &p.queue {
        // what the rules' metricResourceUri names (depends() leaves out existing resources)
        match qu.kind {
            QueueKind::ServiceBus => deps.push("sbNamespace"),
            QueueKind::Storage => deps.extend(["storage", "storageQueue"]),
        }
    }
    let rules: Vec<Value> = asp
        .rules
        .iter()
        .map(|r| {
            let uri = match r.metric_source {
                MetricSource::ServiceBusNamespace => x(a.id("sbNamespace")),
                MetricSource::StorageQueue => x(format!("format('{{0}}/services/queue/queues/{{1}}', {}, {})", a.id("storage"), q(&p.queue.as_ref().expect("queue").queue))),
                MetricSource::ApplicationGateway => x(a.id("agw")),
                MetricSource::ApplicationInsights => x(a.id("appi")),
            };
            let mut trigger = json!({
                "metricName": r.metric_name,
                "metricNamespace": r.metric_namespace,
                "metricResourceUri": uri,
                "timeGrain": r.time_grain,
                "statistic": r.statistic,
                "timeWindow": lit(&r.time_window),
                "timeAggregation": r.time_aggregation,
                "operator": r.operator,
                "threshold": r.threshold,
                "dividePerInstance": r.divide_per_instance,
            });
            if let Some(d) = &r.dimension {
                put(&mut trigger, "dimensions", json!([ { "DimensionName": d.name, "Operator": "Equals", "Values": [ lit(&d.value) ] } ]));
            }
            json!({
                "metricTrigger": trigger,
                "scaleAction": { "direction": r.direction, "type": "ChangeCount", "value": &r.change, "cooldown": lit(&r.cooldown) }
            })
        })
        .collect();
    let profiles: Vec<Value> = asp
        .profiles
        .iter()
        .map(|pr| {
            let mut o = json!({
                "name": lit(&pr.name),
                "capacity": { "minimum": pr.min.to_string(), "maximum": pr.max.to_string(), "default": pr.default.to_string() },
            });
            if let Some(rec) = &pr.recurrence {
                put(
                    &mut o,
                    "recurrence",
                    json!({
                        "frequency": "Week",
                        "schedule": { "timeZone": lit(&rec.time_zone), "days": &rec.days, "hours": [rec.hour], "minutes": [rec.minute] }
                    }),
                );
            }
            put(&mut o, "rules", if pr.has_rules { Value::Array(rules.clone()) } else { json!([]) });
            o
        })
        .collect();
    out.push(json!({
        "type": "Microsoft.Insights/autoscaleSettings",
        "apiVersion": p.api.autoscale,
        "name": lit(&asp.name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "properties": {
            "name": lit(&asp.name),
            "enabled": true,
            "targetResourceUri": x(a.id("vmss")),
            "profiles": profiles,
            "notifications": [ {
                "operation": "Scale",
                "email": {
                    "sendToSubscriptionAdministrator": false,
                    "sendToSubscriptionCoAdministrators": false,
                    "customEmails": asp.emails.iter().map(|e| lit(e)).collect::<Vec<_>>()
                },
                "webhooks": []
            } ],
            "predictiveAutoscalePolicy": { "scaleMode": "Disabled" }
        },
        "dependsOn": a.depends(&deps)
    }));
}
