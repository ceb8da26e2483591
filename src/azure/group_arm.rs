//! [`GroupApi`] for ARM: `Virtual Machines - List` at the group and `Policy Assignments - List
//! For Resource Group` (`$filter=atScope()`).

use serde::Deserialize;
use serde_json::Value;

use super::api::Arm;
use super::client::Op;
use super::error::ArmError;
use super::group_api::{GroupApi, GroupAssignment, GroupVm};
use crate::facts::api::{API, VMS_API};

#[derive(Deserialize)]
struct Vm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    properties: Option<VmProperties>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VmProperties {
    #[serde(default)]
    storage_profile: Option<Value>,
    #[serde(default)]
    virtual_machine_scale_set: Option<Value>,
}

#[derive(Deserialize)]
struct Assignment {
    #[serde(default)]
    name: String,
    #[serde(default)]
    properties: Option<AssignmentProperties>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AssignmentProperties {
    #[serde(default)]
    policy_definition_id: String,
    #[serde(default)]
    scope: String,
}

#[async_trait::async_trait]
impl GroupApi for Arm {
    async fn vms(&self, rg: &str) -> Result<Vec<GroupVm>, ArmError> {
        let op = Op::new(
            format!("list the VMs of {rg}"),
            "Microsoft.Compute/virtualMachines/read (Reader has it)",
        );
        let path = format!(
            "subscriptions/{}/resourceGroups/{rg}/providers/Microsoft.Compute/virtualMachines",
            super::api::ArmApi::subscription(self)
        );
        let url = self.client.url(&path, VMS_API, &[]);
        let list: Vec<Vm> = self.client.get_all(&op, url).await?;
        Ok(list
            .into_iter()
            .map(|v| {
                let p = v.properties;
                GroupVm {
                    name: v.name,
                    os: p
                        .as_ref()
                        .and_then(|p| p.storage_profile.as_ref())
                        .and_then(|s| s.pointer("/osDisk/osType"))
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    scale_set: p
                        .as_ref()
                        .and_then(|p| p.virtual_machine_scale_set.as_ref())
                        .and_then(|s| s.get("id"))
                        .and_then(Value::as_str)
                        .map(str::to_string),
                }
            })
            .collect())
    }

    async fn policy_assignments(&self, rg: &str) -> Result<Vec<GroupAssignment>, ArmError> {
        let op = Op::new(
            format!("list the policy assignments of {rg}"),
            "Microsoft.Authorization/policyAssignments/read (Reader has it)",
        );
        let path = format!(
            "subscriptions/{}/resourceGroups/{rg}/providers/Microsoft.Authorization/policyAssignments",
            super::api::ArmApi::subscription(self)
        );
        let url = self
            .client
            .url(&path, API.policy_assignments, &[("$filter", "atScope()")]);
        let list: Vec<Assignment> = self.client.get_all(&op, url).await?;
        Ok(list
            .into_iter()
            .map(|a| {
                let p = a.properties;
                GroupAssignment {
                    name: a.name,
                    definition_id: p
                        .as_ref()
                        .map(|p| p.policy_definition_id.clone())
                        .unwrap_or_default(),
                    scope: p.map(|p| p.scope).unwrap_or_default(),
                }
            })
            .collect())
    }
}
