//! The standby pool's section (issue 23): how many pooled VMs are ready and the pool's health,
//! from the pool's runtime view.
//!
//! REST shape: `GET .../providers/Microsoft.StandbyPool/standbyVirtualMachinePools/{name}/
//! runtimeViews/latest` returns `properties.instanceCountSummary[]` (per zone, optional `zone`)
//! of `instanceCountsByState[] {state, count}` (states `creating`, `starting`, `running`,
//! `deallocating`, `deallocated`, `hibernating`, `hibernated`, `deleting`), and
//! `properties.status {code: "HealthState/healthy" | "HealthState/degraded", message}`.
//! Source: Azure/azure-rest-api-specs
//! `specification/standbypool/StandbyPool.Management/examples/2025-03-01/
//! StandbyVirtualMachinePoolRuntimeViews_Get.json` @ 2383492161f7ac9c591e5296ab1035812276a71c
//! (read 2026-12-03); `Get-AzStandbyVMPoolStatus` (Az.StandbyPool) shows the same shape.

use serde::Serialize;
use serde_json::Value;

use crate::plan::standby::StandbyPool;

/// The runtime view's path under the resource group.
pub fn runtime_view_id(sub: &str, rg: &str, pool: &StandbyPool) -> String {
    format!(
        "/subscriptions/{sub}/resourceGroups/{rg}/providers/{}/{}/runtimeViews/latest",
        pool.resource_type, pool.name
    )
}

/// What `status` shows of the pool.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StandbyStatus {
    pub name: String,
    /// The state pooled VMs wait in (`Deallocated`, ...).
    pub vm_state: String,
    /// Pooled VMs in that state: ready for a scale-out.
    pub ready: u64,
    /// Pooled VMs being built or changing state (creating, starting, deallocating, ...).
    pub in_progress: u64,
    /// Every pooled VM, by state (summed over zones).
    pub by_state: Vec<(String, u64)>,
    /// `maxReadyCapacity` and `minReadyCapacity` of the plan.
    pub max_ready: u32,
    pub min_ready: u32,
    /// `healthy`, `degraded`, or what Azure returned (`unknown` when it says nothing).
    pub health: String,
    /// Azure's message about the health, when it gives one.
    pub message: Option<String>,
}

impl StandbyStatus {
    /// One line for the human output.
    pub fn line(&self) -> String {
        let mut s = format!(
            "{}: {} of {} ready ({}), {} in progress, health {}",
            self.name,
            self.ready,
            self.max_ready,
            self.vm_state.to_lowercase(),
            self.in_progress,
            self.health
        );
        if let Some(m) = self.message.as_deref().filter(|m| !m.trim().is_empty()) {
            s.push_str(&format!(" ({m})"));
        }
        s
    }
}

/// States on the way into or out of the pool.
const IN_PROGRESS: &[&str] = &[
    "creating",
    "starting",
    "deallocating",
    "hibernating",
    "deleting",
];

/// Read a runtime view (`v`) for the planned pool.
pub fn from_runtime_view(pool: &StandbyPool, v: &Value) -> StandbyStatus {
    let mut by_state: Vec<(String, u64)> = Vec::new();
    let zones = v
        .pointer("/properties/instanceCountSummary")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for z in &zones {
        for c in z
            .get("instanceCountsByState")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(state) = c.get("state").and_then(Value::as_str) else {
                continue;
            };
            let n = c.get("count").and_then(Value::as_u64).unwrap_or(0);
            let state = state.to_ascii_lowercase();
            match by_state.iter_mut().find(|(s, _)| *s == state) {
                Some(e) => e.1 += n,
                None => by_state.push((state, n)),
            }
        }
    }
    let want = pool.vm_state.to_ascii_lowercase();
    let ready = by_state
        .iter()
        .filter(|(s, _)| *s == want)
        .map(|(_, n)| n)
        .sum();
    let in_progress = by_state
        .iter()
        .filter(|(s, _)| *s != want && IN_PROGRESS.contains(&s.as_str()))
        .map(|(_, n)| n)
        .sum();
    let code = v
        .pointer("/properties/status/code")
        .and_then(Value::as_str)
        .unwrap_or("");
    let health = match code.rsplit('/').next().unwrap_or("") {
        "" => "unknown".to_string(),
        h => h.to_ascii_lowercase(),
    };
    StandbyStatus {
        name: pool.name.clone(),
        vm_state: pool.vm_state.to_string(),
        ready,
        in_progress,
        by_state,
        max_ready: pool.max_ready,
        min_ready: pool.min_ready,
        health,
        message: v
            .pointer("/properties/status/message")
            .and_then(Value::as_str)
            .map(str::to_string),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documented example (azure-rest-api-specs, 2025-03-01), trimmed to two zones.
    fn example() -> Value {
        serde_json::json!({
          "properties": {
            "instanceCountSummary": [
              {"zone": 1, "instanceCountsByState": [
                {"state": "creating", "count": 100}, {"state": "running", "count": 20},
                {"state": "deallocating", "count": 10}, {"state": "deallocated", "count": 100},
                {"state": "starting", "count": 0}, {"state": "deleting", "count": 0}]},
              {"zone": 2, "instanceCountsByState": [
                {"state": "creating", "count": 100}, {"state": "running", "count": 20},
                {"state": "deallocating", "count": 10}, {"state": "deallocated", "count": 100},
                {"state": "starting", "count": 0}, {"state": "deleting", "count": 0}]}
            ],
            "provisioningState": "Succeeded",
            "status": {"code": "HealthState/healthy", "message": "The pool is healthy."}
          },
          "name": "latest",
          "type": "Microsoft.StandbyPool/standbyVirtualMachinePools/runtimeViews"
        })
    }

    use crate::plan::standby::sample as pool;

    #[test]
    fn the_documented_runtime_view_reads_ready_and_health() {
        let s = from_runtime_view(&pool(), &example());
        assert_eq!(s.ready, 200);
        assert_eq!(s.in_progress, 220);
        assert_eq!(s.health, "healthy");
        assert!(
            s.line().contains("200 of 2 ready (deallocated)"),
            "{}",
            s.line()
        );
    }

    #[test]
    fn a_degraded_pool_says_so_and_an_empty_view_reads_zero() {
        let v = serde_json::json!({"properties": {"status": {"code": "HealthState/degraded",
            "message": "Allocation failed"}}});
        let s = from_runtime_view(&pool(), &v);
        assert_eq!((s.ready, s.health.as_str()), (0, "degraded"));
        assert!(s.line().ends_with("(Allocation failed)"));
        let s = from_runtime_view(&pool(), &serde_json::json!({}));
        assert_eq!(s.health, "unknown");
    }

    #[test]
    fn the_runtime_view_path_is_the_documented_one() {
        assert_eq!(
            runtime_view_id("s", "rg", &pool()),
            "/subscriptions/s/resourceGroups/rg/providers/Microsoft.StandbyPool/\
             standbyVirtualMachinePools/sbp-x/runtimeViews/latest"
        );
    }
}
