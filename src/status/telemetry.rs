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
use crate::plan::gpu_monitoring::{REPORTING_MINUTES, TABLE};

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
    /// `running - reporting` (never below 0): what the missing-telemetry alert counts.
    pub silent: usize,
}

/// The workspace's ARM resource id (gpuform's own, or the landing zone's existing one).
pub fn workspace_id(plan: &Plan, sub: &str, rg: &str) -> String {
    let w = &plan.monitoring.workspace;
    match &w.existing {
        Some(e) => e.id.clone(),
        None => format!(
            "/subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.OperationalInsights/workspaces/{}",
            w.name
        ),
    }
}

/// The query: distinct computers with a row in the window (the alert's `Reporting`).
pub fn query() -> String {
    format!(
        "{TABLE}\n| where TimeGenerated > ago({REPORTING_MINUTES}m)\n| summarize Reporting = dcount(Computer)"
    )
}

/// Read how many computers reported. `None` when the plan has no GPU monitoring.
pub async fn reporting(arm: &Arm, plan: &Plan, rg: &str) -> Option<Result<usize, ArmError>> {
    plan.gpu.as_ref()?;
    let id = workspace_id(plan, arm.subscription(), rg);
    let r = arm
        .log_query(&id, &query(), &format!("PT{REPORTING_MINUTES}M"))
        .await
        .map(|rows| {
            rows.first()
                .and_then(|r| r.get("Reporting"))
                .and_then(|v| match v {
                    Value::Number(n) => n.as_u64(),
                    Value::String(s) => s.parse().ok(),
                    _ => None,
                })
                .unwrap_or(0) as usize
        });
    Some(r)
}

/// The section from the count of running instances (None: unknown) and the query's answer.
pub fn section(
    running: Option<usize>,
    reporting: Option<Result<usize, ArmError>>,
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
        (Section::Ok(reporting), Some(running)) => Section::Ok(Telemetry {
            table: TABLE.to_string(),
            minutes: REPORTING_MINUTES,
            running,
            reporting,
            silent: running.saturating_sub(reporting),
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
    if t.silent > 0 {
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
