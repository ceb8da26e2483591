//! The calls `gpuform deploy` makes: resource groups, `Microsoft.Resources/deployments` (PUT,
//! GET, operations, what-if) and polling of long-running operations. Plain data types out; the
//! deploy module decides what to do with them.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::api::{Arm, ArmApi};
use super::client::{ArmResponse, Op, Verb, enc};
use super::error::{ArmError, ErrorDetail};
use super::models::null_default;

pub use crate::facts::api::BUDGETS_API;
pub use crate::facts::api::DEPLOYMENTS_API;
pub use crate::facts::api::RESOURCE_GROUPS_API;
pub use crate::facts::api::SCALE_SETS_API;

const RG_PERMISSION: &str = "Microsoft.Resources/subscriptions/resourceGroups/read (write to create it; e.g. Contributor on the subscription)";
const DEPLOY_PERMISSION: &str = "Microsoft.Resources/deployments/write and write on every resource type in the template (e.g. Contributor, plus User Access Administrator or Role Based Access Control Administrator for the role assignments) on the resource group";
const READ_DEPLOYMENT: &str =
    "Microsoft.Resources/deployments/read (e.g. Reader on the resource group)";
const WHAT_IF_PERMISSION: &str = "Microsoft.Resources/deployments/whatIf/action (e.g. Contributor or Reader + deployment permissions on the resource group)";

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceGroup {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub location: String,
    #[serde(default, deserialize_with = "null_default")]
    pub tags: BTreeMap<String, String>,
}

/// A deployment (`GET .../deployments/{name}`), the fields gpuform reads.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Deployment {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub properties: DeploymentProperties,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeploymentProperties {
    #[serde(default)]
    pub provisioning_state: Option<String>,
    #[serde(default)]
    pub timestamp: Option<String>,
    #[serde(default)]
    pub duration: Option<String>,
    #[serde(default)]
    pub correlation_id: Option<String>,
    /// `{name: {type, value}}`.
    #[serde(default, deserialize_with = "null_default")]
    pub outputs: serde_json::Map<String, Value>,
    #[serde(default)]
    pub error: Option<ErrorDetail>,
}

/// One deployment operation (one resource action).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Operation {
    #[serde(default)]
    pub operation_id: String,
    #[serde(default)]
    pub properties: OperationProperties,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OperationProperties {
    #[serde(default)]
    pub provisioning_operation: Option<String>,
    #[serde(default)]
    pub provisioning_state: Option<String>,
    #[serde(default)]
    pub timestamp: Option<String>,
    #[serde(default)]
    pub duration: Option<String>,
    #[serde(default)]
    pub status_code: Option<String>,
    /// `{status, error}` from the resource provider (older responses: any JSON).
    #[serde(default)]
    pub status_message: Option<Value>,
    #[serde(default)]
    pub target_resource: Option<TargetResource>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TargetResource {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub resource_type: Option<String>,
    #[serde(default)]
    pub resource_name: Option<String>,
}

/// A scale set (`GET .../virtualMachineScaleSets/{name}`), the fields that tell how many
/// instances it runs at which priority.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleSet {
    #[serde(default)]
    pub location: String,
    #[serde(default)]
    pub sku: Option<ScaleSetSku>,
    #[serde(default)]
    pub properties: Option<ScaleSetProperties>,
}

/// The parts of a VM that preflight reads (a dev box already deployed).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VirtualMachine {
    #[serde(default)]
    pub location: String,
    #[serde(default)]
    pub properties: Option<VmProfile>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleSetSku {
    /// Instances in the scale set.
    #[serde(default)]
    pub capacity: Option<u32>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleSetProperties {
    #[serde(default)]
    pub priority_mix_policy: Option<PriorityMixPolicy>,
    #[serde(default)]
    pub virtual_machine_profile: Option<VmProfile>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PriorityMixPolicy {
    #[serde(default)]
    pub base_regular_priority_count: Option<u32>,
    #[serde(default)]
    pub regular_priority_percentage_above_base: Option<u32>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VmProfile {
    /// `Regular`, `Spot` or `Low`.
    #[serde(default)]
    pub priority: Option<String>,
    /// The disks (destroy reads a dev box's: the VM creates them, so they are not among the
    /// deployment's output resources).
    #[serde(default)]
    pub storage_profile: Option<StorageProfile>,
}

/// `properties.storageProfile` of a VM (Compute `VirtualMachines_Get`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StorageProfile {
    #[serde(default)]
    pub os_disk: Option<VmDisk>,
    #[serde(default, deserialize_with = "null_default")]
    pub data_disks: Vec<VmDisk>,
}

/// `osDisk` or one of `dataDisks[]`: how the disk came to be and which managed disk it is.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VmDisk {
    #[serde(default)]
    pub name: Option<String>,
    /// `FromImage` / `Empty` (the VM created the disk), `Attach` (an existing disk), `Copy`,
    /// `Restore`, ...
    #[serde(default)]
    pub create_option: Option<String>,
    /// `Delete` or `Detach`: what deleting the VM does to the disk.
    #[serde(default)]
    pub delete_option: Option<String>,
    #[serde(default)]
    pub managed_disk: Option<ManagedDiskRef>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManagedDiskRef {
    /// `/subscriptions/…/providers/Microsoft.Compute/disks/{name}`.
    #[serde(default)]
    pub id: Option<String>,
}

/// A long-running operation ARM accepted: where to poll and how long to wait first.
#[derive(Debug, Clone)]
pub struct Accepted {
    pub status: u16,
    /// `Azure-AsyncOperation`: a status URL (`{"status": ...}`), the same for the whole operation.
    pub async_operation: Option<String>,
    /// `Location`: 202 while the operation runs, then 200/204 (with the result, if it has one).
    pub location: Option<String>,
    pub retry_after: Option<Duration>,
    pub body: Value,
}

/// One poll of a long-running operation.
#[derive(Debug, Clone)]
pub struct Polled {
    /// 202 while a `Location` operation runs; 200 (or 204) otherwise.
    pub status: u16,
    pub retry_after: Option<Duration>,
    /// A new `Location` to poll, when a 202 names one.
    pub location: Option<String>,
    /// Parsed body (`Value::Null` when empty).
    pub body: Value,
}

impl Polled {
    /// `status` of an `Azure-AsyncOperation` body (`Running`, `Succeeded`, `Failed`, `Canceled`).
    pub fn lro_status(&self) -> Option<&str> {
        self.body.get("status").and_then(Value::as_str)
    }
}

impl Arm {
    fn rg_path(&self, rg: &str) -> String {
        format!(
            "subscriptions/{}/resourcegroups/{}",
            self.subscription(),
            enc(rg)
        )
    }

    fn deployment_path(&self, rg: &str, name: &str) -> String {
        format!(
            "{}/providers/Microsoft.Resources/deployments/{}",
            self.rg_path(rg),
            enc(name)
        )
    }

    /// The resource group, or `None` when it does not exist (404 `ResourceGroupNotFound`; a 404
    /// `SubscriptionNotFound` is an error: the subscription is wrong, not the group).
    pub async fn resource_group(&self, rg: &str) -> Result<Option<ResourceGroup>, ArmError> {
        let op = Op::new(format!("read the resource group {rg}"), RG_PERMISSION);
        let url = self.client.url(&self.rg_path(rg), RESOURCE_GROUPS_API, &[]);
        self.client.get_optional(&op, url).await
    }

    /// The scale set `name` in `rg`, or `None` when there is none (404).
    pub async fn scale_set(&self, rg: &str, name: &str) -> Result<Option<ScaleSet>, ArmError> {
        let op = Op::new(
            format!("read the scale set {name} in {rg}"),
            "Microsoft.Compute/virtualMachineScaleSets/read (e.g. Reader on the resource group)",
        );
        let url = self.client.url(
            &format!(
                "{}/providers/Microsoft.Compute/virtualMachineScaleSets/{}",
                self.rg_path(rg),
                enc(name)
            ),
            SCALE_SETS_API,
            &[],
        );
        self.client.get_optional(&op, url).await
    }

    /// A dev box's VM (`Microsoft.Compute/virtualMachines` GET, api 2025-04-01), or `None` when
    /// it does not exist yet.
    pub async fn virtual_machine(
        &self,
        rg: &str,
        name: &str,
    ) -> Result<Option<VirtualMachine>, ArmError> {
        let op = Op::new(
            format!("read the VM {name} in {rg}"),
            "Microsoft.Compute/virtualMachines/read (e.g. Reader on the resource group)",
        );
        let url = self.client.url(
            &format!(
                "{}/providers/Microsoft.Compute/virtualMachines/{}",
                self.rg_path(rg),
                enc(name)
            ),
            crate::facts::api::VMS_API,
            &[],
        );
        self.client.get_optional(&op, url).await
    }

    pub async fn create_resource_group(
        &self,
        rg: &str,
        location: &str,
        tags: &BTreeMap<String, String>,
    ) -> Result<ResourceGroup, ArmError> {
        let op = Op::new(
            format!("create the resource group {rg} in {location}"),
            RG_PERMISSION,
        );
        let url = self.client.url(&self.rg_path(rg), RESOURCE_GROUPS_API, &[]);
        self.client
            .put_json(&op, url, &json!({ "location": location, "tags": tags }))
            .await
    }

    /// The start date (`YYYY-MM-DD`) of an existing budget on the resource group, or `None`
    /// when there is none. Azure refuses to change a budget's start date, so a redeployment
    /// passes this one back (`budgetStartDate`).
    pub async fn budget_start_date(
        &self,
        rg: &str,
        budget: &str,
    ) -> Result<Option<String>, ArmError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Budget {
            #[serde(default)]
            properties: Option<BudgetProperties>,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct BudgetProperties {
            #[serde(default)]
            time_period: Option<TimePeriod>,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct TimePeriod {
            #[serde(default)]
            start_date: Option<String>,
        }
        let op = Op::new(
            format!("read the budget {budget} in {rg}"),
            "Microsoft.Consumption/budgets/read (e.g. Reader or Cost Management Reader on the resource group)",
        );
        let url = self.client.url(
            &format!(
                "{}/providers/Microsoft.Consumption/budgets/{}",
                self.rg_path(rg),
                enc(budget)
            ),
            BUDGETS_API,
            &[],
        );
        match self.client.get_json::<Budget>(&op, url).await {
            Ok(b) => Ok(b
                .properties
                .and_then(|p| p.time_period)
                .and_then(|t| t.start_date)
                .filter(|d| d.len() >= 10 && d.is_char_boundary(10))
                .map(|d| d[..10].to_string())),
            Err(e) if e.status == Some(404) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// PUT the deployment (`body` is the whole request body, already JSON text).
    pub async fn put_deployment(
        &self,
        rg: &str,
        name: &str,
        body: Vec<u8>,
    ) -> Result<Accepted, ArmError> {
        let op = Op::new(
            format!("start the deployment {name} in {rg}"),
            DEPLOY_PERMISSION,
        );
        let url = self
            .client
            .url(&self.deployment_path(rg, name), DEPLOYMENTS_API, &[]);
        let res = self
            .client
            .send_raw(&op, Verb::Put, url, Some(body))
            .await?;
        Ok(accepted(res))
    }

    /// POST `.../whatIf` (the same body as the PUT).
    pub async fn post_what_if(
        &self,
        rg: &str,
        name: &str,
        body: Vec<u8>,
    ) -> Result<Accepted, ArmError> {
        let op = Op::new(
            format!("ask ARM what deployment {name} would change in {rg}"),
            WHAT_IF_PERMISSION,
        );
        let url = self.client.url(
            &format!("{}/whatIf", self.deployment_path(rg, name)),
            DEPLOYMENTS_API,
            &[],
        );
        let res = self
            .client
            .send_raw(&op, Verb::Post, url, Some(body))
            .await?;
        Ok(accepted(res))
    }

    /// GET a URL ARM handed back (`Azure-AsyncOperation` / `Location`); only on ARM's own host.
    pub async fn poll(&self, what: &str, link: &str) -> Result<Polled, ArmError> {
        self.poll_link(what, READ_DEPLOYMENT, link).await
    }

    pub async fn deployment(&self, rg: &str, name: &str) -> Result<Deployment, ArmError> {
        let op = Op::new(
            format!("read the deployment {name} in {rg}"),
            READ_DEPLOYMENT,
        );
        let url = self
            .client
            .url(&self.deployment_path(rg, name), DEPLOYMENTS_API, &[]);
        self.client.get_json(&op, url).await
    }

    pub async fn operations(&self, rg: &str, name: &str) -> Result<Vec<Operation>, ArmError> {
        let op = Op::new(
            format!("list the operations of deployment {name} in {rg}"),
            READ_DEPLOYMENT,
        );
        let url = self.client.url(
            &format!("{}/operations", self.deployment_path(rg, name)),
            DEPLOYMENTS_API,
            &[],
        );
        self.client.get_all(&op, url).await
    }
}

fn accepted(res: ArmResponse) -> Accepted {
    Accepted {
        status: res.status,
        body: serde_json::from_slice(&res.body).unwrap_or(Value::Null),
        async_operation: res.async_operation,
        location: res.location,
        retry_after: res.retry_after,
    }
}

// ---------------------------------------------------------------------------------------------
// What-if

/// `POST .../whatIf` final answer: `{status, properties: {changes}, error}`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WhatIfResult {
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub properties: Option<WhatIfProperties>,
    #[serde(default)]
    pub error: Option<ErrorDetail>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WhatIfProperties {
    #[serde(default, deserialize_with = "null_default")]
    pub changes: Vec<WhatIfChange>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct WhatIfChange {
    #[serde(default)]
    pub resource_id: String,
    /// Create, Delete, Deploy, Ignore, Modify, NoChange, Unsupported.
    #[serde(default)]
    pub change_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsupported_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Value>,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub delta: Vec<PropertyChange>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PropertyChange {
    #[serde(default)]
    pub path: String,
    /// Create, Delete, Modify, Array, NoEffect.
    #[serde(default)]
    pub property_change_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Value>,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub children: Vec<PropertyChange>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recorded_what_if_answer_parses() {
        let text = include_str!("../../tests/fixtures/deploy/whatif-recording.json");
        let v: Value = serde_json::from_str(text).unwrap();
        let r: WhatIfResult =
            serde_json::from_value(v["responses"]["200"]["body"].clone()).unwrap();
        assert_eq!(r.status.as_deref(), Some("Succeeded"));
        let changes = r.properties.unwrap().changes;
        assert_eq!(changes.len(), 2);
        assert_eq!(changes[0].change_type, "Modify");
        assert_eq!(changes[0].delta[0].path, "tags.myNewTag");
        assert_eq!(changes[0].delta[0].property_change_type, "Create");
        assert_eq!(changes[1].change_type, "Create");
    }

    #[test]
    fn operations_parse_in_the_documented_shape() {
        let v = json!({"value": [{
            "id": "/subscriptions/x/resourceGroups/g/providers/Microsoft.Resources/deployments/d/operations/13EF",
            "operationId": "13EF",
            "properties": {"provisioningOperation": "Create", "provisioningState": "Failed", "timestamp": "2019-11-26T14:18:36.3177613Z",
                "duration": "PT21.0580179S", "statusCode": "BadRequest",
                "statusMessage": {"error": {"code": "InvalidAccountType", "message": "bad"}},
                "targetResource": {"id": "/subscriptions/x/resourceGroups/g/providers/Microsoft.Storage/storageAccounts/s1", "resourceName": "s1", "resourceType": "Microsoft.Storage/storageAccounts"}}
        }]});
        let ops: Vec<Operation> = serde_json::from_value(v["value"].clone()).unwrap();
        let t = ops[0].properties.target_resource.as_ref().unwrap();
        assert_eq!(t.resource_name.as_deref(), Some("s1"));
        assert_eq!(
            ops[0].properties.provisioning_state.as_deref(),
            Some("Failed")
        );
    }
}
