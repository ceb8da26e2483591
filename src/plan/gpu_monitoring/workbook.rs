//! The GPU workbook and its building blocks (shared with the dev box's workbook).

use super::model::*;
use crate::spec::model::WorkloadSpec;
use crate::spec::schedule;

const DAY_MS: u64 = 86_400_000;
/// A query's time range caps what `startofmonth(now())` can see: 31 days hold any month so far.
pub(crate) const MONTH_MS: u64 = 31 * DAY_MS;

/// Workbook building blocks shared by the pool's workbook and the dev box's
/// ([`crate::plan::gpu_devbox`]): a Markdown item, a Log Analytics query item over a time range, the
/// faults table, the alerts fired (Resource Graph) and the Notebook/1.0 envelope.
pub(crate) mod wb {
    use serde_json::{Value, json};

    use crate::plan::gpu_monitoring::model::{TABLE, Workbook};

    pub fn text(md: String) -> Value {
        json!({ "type": 1, "content": { "json": md } })
    }

    pub fn kql(title: &str, query: String, viz: &str, width: &str, duration_ms: u64) -> Value {
        json!({
            "type": 3,
            "content": {
                "version": "KqlItem/1.0",
                "query": query,
                "size": 0,
                "title": title,
                "timeContext": { "durationMs": duration_ms },
                "queryType": 0,
                "resourceType": "microsoft.operationalinsights/workspaces",
                "visualization": viz
            },
            "customWidth": width,
            "name": title
        })
    }

    pub fn faults(duration_ms: u64) -> Value {
        kql(
            "GPU faults and health rows",
            format!(
                "{TABLE}\n| where Status != \"ok\" or XidErrors > 0 or EccUncorrected > 0\n| project TimeGenerated, Computer, Status, XidErrors, XidCodes, EccUncorrected, Message\n| order by TimeGenerated desc"
            ),
            "table",
            "50",
            duration_ms,
        )
    }

    /// Idle VM-hours this month (hours a VM's GPUs averaged under `threshold`) and their cost.
    pub fn idle_cost(threshold: u32, price: f64, licence_extra: bool) -> Value {
        kql(
            if licence_extra {
                "Idle GPU-hours and their cost this month (Linux rate; the Windows licence is extra)"
            } else {
                "Idle GPU-hours and their cost this month"
            },
            format!(
                "{TABLE}\n| where TimeGenerated > startofmonth(now()) and Status == \"ok\"\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 1h)\n| where Utilization < {threshold}\n| summarize IdleVmHours = count()\n| extend IdleCostUSD = round(IdleVmHours * {price}, 2)"
            ),
            "tiles",
            "50",
            crate::plan::gpu_monitoring::workbook::MONTH_MS,
        )
    }

    /// The alerts of the pool's rules (`alert-NAME-...`) from Resource Graph.
    pub fn alerts_fired(name: &str) -> Value {
        json!({
            "type": 3,
            "content": {
                "version": "KqlItem/1.0",
                "query": format!("alertsmanagementresources\n| where type =~ \"microsoft.alertsmanagement/alerts\"\n| where tostring(properties.essentials.alertRule) contains \"alert-{name}-\"\n| project FiredAt = todatetime(properties.essentials.startDateTime), Rule = tostring(properties.essentials.alertRule), Severity = tostring(properties.essentials.severity), State = tostring(properties.essentials.monitorCondition)\n| order by FiredAt desc"),
                "size": 0,
                "title": "Alerts fired",
                "queryType": 1,
                "resourceType": "microsoft.resourcegraph/resources",
                "crossComponentResources": ["value::all"],
                "visualization": "table"
            },
            "name": "Alerts fired"
        })
    }

    pub fn notebook(name: &str, display_name: String, items: Vec<Value>) -> Workbook {
        let data = json!({
            "version": "Notebook/1.0",
            "items": items,
            "isLocked": false,
            "fallbackResourceIds": [],
            "$schema": "https://github.com/Microsoft/Application-Insights-Workbooks/blob/master/schema/workbook.json"
        });
        Workbook {
            name_seed: format!("{name}-gpu-workbook"),
            display_name,
            serialized_data: serde_json::to_string(&data).expect("workbook JSON"),
        }
    }
}

pub(super) fn workbook(
    name: &str,
    s: &WorkloadSpec,
    hourly: Option<f64>,
    licence_extra: bool,
    tool: &str,
) -> Workbook {
    let g = &s.monitoring.gpu;
    let price = hourly.unwrap_or(0.0);
    let text = wb::text;
    // charts: the last day
    let kql = |title: &str, query: String, viz: &str, width: &str| {
        wb::kql(title, query, viz, width, DAY_MS)
    };
    let mut items = vec![
        text(format!(
            "## GPU pool `{name}`\nSampled once a minute on every VM by the gpuform collector (`{tool}`) into `{TABLE}`. Idle: under {}% utilisation; VRAM alert above {}%.",
            g.idle_threshold_percent, g.memory_alert_percent
        )),
        kql(
            "GPU utilisation per VM (%)",
            format!(
                "{TABLE}\n| where Status == \"ok\"\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 5m)"
            ),
            "timechart",
            "50",
        ),
        kql(
            "GPU memory used per VM (GiB, peak GPU)",
            format!(
                "{TABLE}\n| where Status == \"ok\"\n| summarize MemoryGiB = max(MemoryUsedMiB) / 1024.0 by Computer, bin(TimeGenerated, 5m)"
            ),
            "timechart",
            "50",
        ),
        kql(
            "Instances by priority",
            format!(
                "{TABLE}\n| summarize Instances = dcount(Computer) by Priority, bin(TimeGenerated, 5m)"
            ),
            "areachart",
            "50",
        ),
        kql(
            "Jobs the workload reports running, per VM",
            format!(
                "{TABLE}\n| where isnotnull(RunningJobs)\n| summarize Jobs = max(RunningJobs) by Computer, bin(TimeGenerated, 5m)"
            ),
            "timechart",
            "50",
        ),
    ];
    // a fixed-size pool has no autoscale setting: no capacity, profile or queue to chart
    if schedule::has_setting(s) {
        items.extend(vec![
        kql(
                "Queue length and autoscale capacity",
                "AzureMetrics\n| where MetricName in (\"ActiveMessages\", \"QueueMessageCount\", \"ObservedCapacity\")\n| summarize Value = avg(Average) by MetricName, bin(TimeGenerated, 5m)".into(),
                "timechart",
                "50",
            ),
            // the autoscale setting's AutoscaleEvaluations log (its diagnostic setting sends it to
            // this workspace): the profile Azure selected at each evaluation, with its limits
            kql(
                "Active autoscale profile (min and max of the profile in force)",
                "AutoscaleEvaluationsLog\n| where ProfileSelected == true\n| summarize ProfileMin = max(MinimumInstanceCount), ProfileMax = max(MaximumInstanceCount) by Profile, bin(TimeGenerated, 5m)".into(),
                "timechart",
                "50",
            ),
        ]);
    }
    items.extend(vec![
        wb::idle_cost(g.idle_threshold_percent, price, licence_extra),
        wb::faults(DAY_MS),
        wb::alerts_fired(name),
    ]);
    wb::notebook(name, format!("GPU pool {name}"), items)
}
