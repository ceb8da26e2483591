//! What `deploy` asks ARM about a standby pool around a deployment (issue 38): the pool's
//! runtime view ([`crate::facts::standby::RUNTIME_VIEW`]), its state update
//! ([`crate::facts::standby::UPDATE`]), and a remediation of the GPU telemetry policy once the
//! pool's VMs exist ([`crate::facts::monitoring::ASSIGNMENT_APPLIES`]).

use serde_json::{Value, json};

use super::api::Arm;
use super::client::{Op, Verb};
use super::error::ArmError;
use super::operate::path_of;
use crate::facts::standby::RUNTIME_VIEW_PATH;

const POOL_WRITE: &str = "Microsoft.StandbyPool/standbyVirtualMachinePools/write (e.g. Contributor on the resource group)";
const REMEDIATION_WRITE: &str = "Microsoft.PolicyInsights/remediations/write (e.g. Resource Policy Contributor or Contributor on the resource group)";

impl Arm {
    /// GET `{pool_id}/runtimeViews/latest`: `None` when ARM answers 404 (no pool, or no view yet).
    pub async fn pool_runtime_view(
        &self,
        pool_id: &str,
        api: &str,
    ) -> Result<Option<Value>, ArmError> {
        self.get_resource(&format!("{pool_id}/{RUNTIME_VIEW_PATH}"), api)
            .await
    }

    /// PATCH the pool's `virtualMachineState` (`StandbyVirtualMachinePools_Update`).
    pub async fn set_pool_state(
        &self,
        pool_id: &str,
        api: &str,
        state: &str,
    ) -> Result<(), ArmError> {
        let op = Op::new(
            format!("set the standby pool {pool_id} to {state}"),
            POOL_WRITE,
        );
        let url = self.client.url(&path_of(pool_id), api, &[]);
        let body = json!({"properties": {"virtualMachineState": state}});
        self.client.send(&op, Verb::Patch, url, Some(&body)).await?;
        Ok(())
    }

    /// PUT a remediation `name` of `assignment_id` at `scope` (a resource group's path) that
    /// re-evaluates compliance first (`ReEvaluateCompliance`, as the template's).
    pub async fn start_remediation(
        &self,
        scope: &str,
        name: &str,
        assignment_id: &str,
        api: &str,
    ) -> Result<(), ArmError> {
        let id = format!("{scope}/providers/Microsoft.PolicyInsights/remediations/{name}");
        let op = Op::new(format!("start the remediation {name}"), REMEDIATION_WRITE);
        let url = self.client.url(&path_of(&id), api, &[]);
        let body = json!({"properties": {
            "policyAssignmentId": assignment_id,
            "resourceDiscoveryMode": "ReEvaluateCompliance"
        }});
        self.client.send(&op, Verb::Put, url, Some(&body)).await?;
        Ok(())
    }
}
