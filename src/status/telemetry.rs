//! GPU telemetry: running instances that wrote no `GpuTelemetry_CL` row lately — the condition
//! of the rendered missing-telemetry alert (`plan::gpu_monitoring::silence_alert`: running
//! instances against the computers that wrote a row in the last
//! [`REPORTING_MINUTES`](crate::plan::gpu_monitoring::REPORTING_MINUTES)), read from the
//! workspace with the Logs Query API (`facts::api::LOG_QUERY_API`: `v1/workspaces/{workspace
//! GUID}/query` on the cloud's `facts::clouds::Cloud::logs_query_endpoint`, the GUID read through
//! ARM; Learn retired the query route through Resource Manager on March 31, 2026).

use serde::Serialize;
use serde_json::Value;

use crate::azure::{Arm, ArmApi, ArmError};
use crate::plan::Plan;
use crate::plan::gpu_monitoring::{REPORTING_MINUTES, SILENCE_GRACE_MINUTES, TABLE};

use super::section::Section;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Telemetry {
    /// The workspace table the collectors write.
    pub table: String,
    /// Rows counted over the last this many minutes.
    pub minutes: u32,
    /// Running instances now (the scale set's VMs, or the dev box when it runs).
    pub running: usize,
    /// Distinct computers that wrote a row in the window.
    pub reporting: usize,
    /// `running - reporting` (never below 0): what the missing-telemetry alert counts. On a dev
    /// box the dev-box alert's own figure (`SilentInstances`: up by its agent's heartbeat for the
    /// grace period, and no row).
    pub silent: usize,
    /// Dev box: its agent's `Heartbeat` says it has run for the grace period (the dev-box
    /// missing-telemetry alert's "running"); absent on pools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dev_box_up: Option<bool>,
    /// How the rows travel (`plan::gpu_monitoring::GpuMonitoring::delivery`: `vmss`, `policy`,
    /// `vm` or `ingestion`), which the MISSING line's checks follow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivery: Option<String>,
}

/// What the workspace answered: computers that reported, and on a dev box the dev-box alert's
/// `Running` (heartbeat up) and `SilentInstances`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reported {
    pub reporting: usize,
    pub dev_box: Option<(bool, usize)>,
}

/// The workspace's ARM resource id (gpuform's own, or the landing zone's existing one).
pub fn workspace_id(plan: &Plan, sub: &str, rg: &str) -> String {
    plan.monitoring.workspace.resource_id(sub, rg)
}

/// The query: distinct computers with a row in the window (the alert's `Reporting`).
pub fn query() -> String {
    format!(
        "{TABLE}\n| where TimeGenerated > ago({REPORTING_MINUTES}m)\n| summarize Reporting = dcount(Computer)"
    )
}

/// The dev box's query: the rendered dev-box missing-telemetry alert's own
/// (`plan::gpu_devbox::silence_alert`: heartbeats for the grace period as "running", the VM's own
/// rows by `_ResourceId`), so `status` says what the alert would.
fn devbox_query(plan: &Plan) -> Option<String> {
    plan.devbox.as_ref()?;
    plan.gpu
        .as_ref()?
        .alerts
        .iter()
        .find(|a| a.name.ends_with("-gpu-telemetry-missing"))
        .map(|a| a.query.clone())
}

fn number(row: Option<&serde_json::Map<String, Value>>, key: &str) -> usize {
    row.and_then(|r| r.get(key))
        .and_then(|v| match v {
            Value::Number(n) => n.as_u64().or_else(|| n.as_f64().map(|f| f as u64)),
            Value::String(s) => s.parse().ok(),
            _ => None,
        })
        .unwrap_or(0) as usize
}

/// Read how many computers reported. `None` when the plan has no GPU monitoring.
pub async fn reporting(arm: &Arm, plan: &Plan, rg: &str) -> Option<Result<Reported, ArmError>> {
    plan.gpu.as_ref()?;
    let id = workspace_id(plan, arm.subscription(), rg);
    let devbox = devbox_query(plan);
    let (q, span) = match &devbox {
        // the alert's window: the grace period of heartbeats
        Some(q) => (q.clone(), format!("PT{SILENCE_GRACE_MINUTES}M")),
        None => (query(), format!("PT{REPORTING_MINUTES}M")),
    };
    // both queries summarise to one row; only the first is read
    let r = arm.log_query(&id, &q, &span, 1).await.map(|rows| {
        let row = rows.first();
        Reported {
            reporting: number(row, "Reporting"),
            dev_box: devbox
                .is_some()
                .then(|| (number(row, "Running") > 0, number(row, "SilentInstances"))),
        }
    });
    Some(r)
}

/// The section from the count of running instances (None: unknown) and the query's answer.
pub fn section(
    running: Option<usize>,
    reporting: Option<Result<Reported, ArmError>>,
    delivery: Option<&str>,
) -> Result<Option<Section<Telemetry>>, ArmError> {
    let Some(r) = reporting else {
        return Ok(None);
    };
    // The query goes to the Logs Query API, another host and token audience than ARM: a
    // network, TLS or sign-in failure there (a firewall that lets only ARM out) leaves this
    // section out instead of failing the command; the ARM sections decide that.
    let sec = match r {
        Ok(v) => Section::Ok(v),
        Err(e) => {
            let mut reason = e.summary();
            if let Some(h) = &e.help {
                reason.push_str(&format!(" ({h})"));
            }
            Section::missing(reason)
        }
    };
    Ok(Some(match (sec, running) {
        (Section::Ok(r), Some(running)) => Section::Ok(Telemetry {
            table: TABLE.to_string(),
            minutes: REPORTING_MINUTES,
            running,
            reporting: r.reporting,
            silent: match r.dev_box {
                Some((_, silent)) => silent,
                None => running.saturating_sub(r.reporting),
            },
            dev_box_up: r.dev_box.map(|(up, _)| up),
            delivery: delivery.map(str::to_string),
        }),
        (Section::Ok(_), None) => {
            Section::missing("the number of running instances is not available")
        }
        (Section::NotAvailable { not_available }, _) => Section::missing(not_available),
    }))
}

/// The text lines of the section.
pub(super) fn lines(t: &Telemetry) -> Vec<String> {
    let mut v = vec![format!(
        "{} of {} running instance(s) wrote a {} row in the last {} minutes",
        t.reporting.min(t.running),
        t.running,
        t.table,
        t.minutes
    )];
    if let Some(up) = t.dev_box_up {
        if t.silent > 0 {
            v.push(format!(
                "MISSING: the dev box has run for {grace} minutes (its agent's Heartbeat) and sent no {} row for {} minutes (the dev-box missing-telemetry alert's condition): check the gpuform-gpu collector (Linux: `systemctl status gpuform-gpu-collect.timer`; Windows: the gpuform-gpu-collect scheduled task) and its GpuCollector extension",
                t.table,
                t.minutes,
                grace = SILENCE_GRACE_MINUTES
            ));
        } else if !up && t.running > 0 && t.reporting == 0 {
            v.push(format!(
                "no agent Heartbeat over the last {SILENCE_GRACE_MINUTES} minutes either: the box started less than {SILENCE_GRACE_MINUTES} minutes ago (not yet a missing-telemetry case), or its Azure Monitor Agent or data collection rule association sends nothing, which the alert cannot see: check both"
            ));
        }
        return v;
    }
    if t.silent > 0 && t.delivery.as_deref() == Some("ingestion") {
        v.push(format!(
            "MISSING: {} running instance(s) sent no {} row for {} minutes (the missing-telemetry alert's condition; a VM started in the last {} minutes may not report yet): the collectors post through the Logs Ingestion API: check `journalctl -u gpuform-gpu-collect` on a VM (`logs ingestion: HTTP ...`), the pool identity's Monitoring Metrics Publisher role on the data collection rule and outbound HTTPS to the data collection endpoint",
            t.silent,
            t.table,
            t.minutes,
            crate::plan::gpu_monitoring::SILENCE_GRACE_MINUTES
        ));
    } else if t.silent > 0 {
        v.push(format!(
            "MISSING: {} running instance(s) sent no {} row for {} minutes (the missing-telemetry alert's condition; a VM started in the last {} minutes may not report yet): check the data collection rule association (Flexible pools: the policy assignment and its remediation), the Azure Monitor Agent and the gpuform-gpu collector",
            t.silent,
            t.table,
            t.minutes,
            crate::plan::gpu_monitoring::SILENCE_GRACE_MINUTES
        ));
    }
    v
}
