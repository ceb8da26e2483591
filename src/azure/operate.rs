//! Day-two calls: `gpuform quota request` (Microsoft.Quota), `gpuform destroy` (deployments'
//! output resources, generic DELETE with long-running operations) and `gpuform status`
//! (instances, autoscale, metrics, activity log, alerts, cost). Plain data out; the quota,
//! destroy and status modules decide what to do with it.
//!
//! Every path and API version below was checked against azure-rest-api-specs (the file is named
//! next to each constant); /work/notes/d14.md lists them.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use url::Url;

use super::api::{Arm, ArmApi};
use super::client::{Op, Verb, enc};
use super::deployments::{Accepted, DEPLOYMENTS_API, Polled};
use super::error::{ArmError, ErrorDetail, ErrorKind};
pub use super::log_answer::LogAnswer;
use super::models::null_default;

pub use crate::facts::api::ACTIVITY_LOG_API;
pub use crate::facts::api::ALERTS_API;
pub use crate::facts::api::AUTOSCALE_API;
pub use crate::facts::api::COST_API;
pub use crate::facts::api::LOG_QUERY_API;
pub use crate::facts::api::METRICS_API;
pub use crate::facts::api::QUOTA_API;
pub use crate::facts::api::VMS_API;
pub use crate::facts::api::WORKSPACES_API;

const QUOTA_WRITE: &str =
    "Microsoft.Quota/quotas/write (e.g. the Quota Request Operator role on the subscription)";
const QUOTA_READ: &str = "Microsoft.Quota/quotaRequests/read (e.g. Reader or Quota Request Operator on the subscription)";
const DELETE_PERMISSION: &str = "delete on the resource (e.g. Contributor on the resource group; role assignments need Role Based Access Control Administrator)";
const READ: &str = "read on the resource group (e.g. Reader)";
const METRICS_READ: &str =
    "Microsoft.Insights/metrics/read (e.g. Monitoring Reader or Reader on the resource group)";

// ---------------------------------------------------------------------------------------------
// Quota

/// A quota increase request's state (`QuotaRequestState`: Accepted, Invalid, Succeeded, Failed,
/// InProgress) with what the service said.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuotaRequest {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub properties: QuotaRequestProperties,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuotaRequestProperties {
    #[serde(default)]
    pub provisioning_state: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub error: Option<ErrorDetail>,
    /// A quota resource (the answer of a PUT that was approved at once) carries the new limit.
    #[serde(default)]
    pub limit: Option<Value>,
}

impl Arm {
    /// `subscriptions/{id}/providers/Microsoft.Compute/locations/{region}`: the scope of the
    /// Compute quotas in the Quota API.
    pub fn compute_quota_scope(&self, region: &str) -> String {
        format!(
            "subscriptions/{}/providers/Microsoft.Compute/locations/{}",
            self.subscription(),
            enc(region)
        )
    }

    /// PUT `{scope}/providers/Microsoft.Quota/quotas/{name}` with `limit.value = new_limit`.
    /// `name` is the Compute usages `name.value` (the Quota API's Compute resource names are
    /// the usage names; spaces are percent-encoded).
    pub async fn request_quota(
        &self,
        region: &str,
        name: &str,
        new_limit: i64,
    ) -> Result<Accepted, ArmError> {
        let op = Op::new(
            format!("request a limit of {new_limit} for {name:?} in {region}"),
            QUOTA_WRITE,
        );
        let url = self.client.url(
            &format!(
                "{}/providers/Microsoft.Quota/quotas/{}",
                self.compute_quota_scope(region),
                enc(name)
            ),
            QUOTA_API,
            &[],
        );
        let body = json!({"properties": {
            "limit": {"limitObjectType": "LimitValue", "value": new_limit},
            "name": {"value": name}
        }});
        let res = self.client.send(&op, Verb::Put, url, Some(&body)).await?;
        Ok(Accepted {
            status: res.status,
            body: serde_json::from_slice(&res.body).unwrap_or(Value::Null),
            async_operation: res.async_operation,
            location: res.location,
            retry_after: res.retry_after,
        })
    }

    /// GET a link ARM returned (a `Location`, an `Azure-AsyncOperation`), on ARM's host only.
    pub async fn poll_link(
        &self,
        what: &str,
        permission: &'static str,
        link: &str,
    ) -> Result<Polled, ArmError> {
        let op = Op::new(what.to_string(), permission);
        let url = self.client.follow(&op, link)?;
        let res = self.client.send(&op, Verb::Get, url, None).await?;
        let body = if res.body.iter().all(u8::is_ascii_whitespace) {
            Value::Null
        } else {
            res.json(&op)?
        };
        Ok(Polled {
            status: res.status,
            retry_after: res.retry_after,
            location: res.location,
            body,
        })
    }

    /// POST `subscriptions/{id}/providers/{namespace}/register` (Providers_Register,
    /// Microsoft.Resources 2021-04-01): registration starts; read `registrationState` until
    /// `Registered` ([`ArmApi::provider_state`](super::api::ArmApi::provider_state)).
    pub async fn register_provider(&self, namespace: &str) -> Result<(), ArmError> {
        let op = Op::new(
            format!("register the resource provider {namespace}"),
            "Microsoft.Resources/subscriptions/providers/register/action or */register/action (e.g. Contributor on the subscription)",
        );
        let url = self.client.url(
            &format!(
                "subscriptions/{}/providers/{}/register",
                self.subscription(),
                enc(namespace)
            ),
            super::api::PROVIDERS_API,
            &[],
        );
        self.client
            .send(&op, Verb::Post, url, Some(&json!({})))
            .await
            .map(|_| ())
    }

    /// GET `{scope}/providers/Microsoft.Quota/quotaRequests/{id}`.
    pub async fn quota_request(&self, region: &str, id: &str) -> Result<Polled, ArmError> {
        let url = self.client.url(
            &format!(
                "{}/providers/Microsoft.Quota/quotaRequests/{}",
                self.compute_quota_scope(region),
                enc(id)
            ),
            QUOTA_API,
            &[],
        );
        self.poll_link("read the quota request", QUOTA_READ, url.as_str())
            .await
    }
}

// ---------------------------------------------------------------------------------------------
// Deployments and resources (destroy)

/// A deployment in the group's history with what it created.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeploymentRecord {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub properties: RecordProperties,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordProperties {
    #[serde(default)]
    pub provisioning_state: Option<String>,
    #[serde(default)]
    pub timestamp: Option<String>,
    /// `[{id}]`: every resource the deployment created or updated.
    #[serde(default, deserialize_with = "null_default")]
    pub output_resources: Vec<ResourceId>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq)]
pub struct ResourceId {
    #[serde(default)]
    pub id: String,
}

/// What a DELETE did.
#[derive(Debug, Clone)]
pub enum Deleted {
    /// 200: deleted.
    Done,
    /// 404, or 204 No Content: it was not there (deleted before, or never created;
    /// `facts::arm::DELETE_204_SOURCE`).
    Absent,
    /// 202: Azure deletes it in the background; poll this.
    Accepted(Accepted),
}

impl Arm {
    /// The resource group's deployments (their `outputResources` say what each created).
    pub async fn deployments(&self, rg: &str) -> Result<Vec<DeploymentRecord>, ArmError> {
        let op = Op::new(
            format!("list the deployments of {rg}"),
            "Microsoft.Resources/deployments/read (e.g. Reader on the resource group)",
        );
        let url = self.client.url(
            &format!(
                "subscriptions/{}/resourcegroups/{}/providers/Microsoft.Resources/deployments",
                self.subscription(),
                enc(rg)
            ),
            DEPLOYMENTS_API,
            &[],
        );
        match self.client.get_all(&op, url).await {
            Err(e)
                if e.status == Some(404) && e.code.as_deref() == Some("ResourceGroupNotFound") =>
            {
                Ok(Vec::new())
            }
            r => r,
        }
    }

    /// DELETE a deployment record (the resources stay; destroy removes it last).
    pub async fn delete_deployment(&self, rg: &str, name: &str) -> Result<Deleted, ArmError> {
        let id = format!(
            "/subscriptions/{}/resourceGroups/{}/providers/Microsoft.Resources/deployments/{}",
            self.subscription(),
            rg,
            name
        );
        self.delete_resource(&id, DEPLOYMENTS_API).await
    }

    /// DELETE `{id}?api-version=...`; 404 and 204 are [`Deleted::Absent`].
    pub async fn delete_resource(&self, id: &str, api: &str) -> Result<Deleted, ArmError> {
        let op = Op::new(format!("delete {id}"), DELETE_PERMISSION);
        let url = self.client.url(&path_of(id), api, &[]);
        match self.client.send(&op, Verb::Delete, url, None).await {
            Ok(res) if res.status == 202 => Ok(Deleted::Accepted(Accepted {
                status: res.status,
                body: serde_json::from_slice(&res.body).unwrap_or(Value::Null),
                async_operation: res.async_operation,
                location: res.location,
                retry_after: res.retry_after,
            })),
            Ok(res) if res.status == 204 => Ok(Deleted::Absent),
            Ok(_) => Ok(Deleted::Done),
            Err(e) if e.status == Some(404) => Ok(Deleted::Absent),
            Err(e) => Err(e),
        }
    }

    /// GET `{id}`: `None` when it does not exist.
    pub async fn get_resource(&self, id: &str, api: &str) -> Result<Option<Value>, ArmError> {
        let op = Op::new(format!("read {id}"), READ);
        let url = self.client.url(&path_of(id), api, &[]);
        match self.client.get_json(&op, url).await {
            Ok(v) => Ok(Some(v)),
            Err(e) if e.status == Some(404) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Set `deleteOption: Detach` on every data disk of a VM (PATCH with the VM's own
    /// `storageProfile.dataDisks`), so deleting the VM (its scale set) leaves the disks.
    /// Returns how many disks, and the long-running operation to follow if ARM answered 202/201.
    pub async fn detach_data_disks(
        &self,
        vm_id: &str,
    ) -> Result<(usize, Option<Accepted>), ArmError> {
        let Some(vm) = self.get_resource(vm_id, VMS_API).await? else {
            return Ok((0, None));
        };
        let mut disks = vm
            .pointer("/properties/storageProfile/dataDisks")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if disks.is_empty()
            || disks
                .iter()
                .all(|d| d.get("deleteOption").and_then(Value::as_str) == Some("Detach"))
        {
            return Ok((disks.len(), None));
        }
        for d in &mut disks {
            if let Some(o) = d.as_object_mut() {
                o.insert("deleteOption".into(), json!("Detach"));
            }
        }
        let op = Op::new(
            format!("keep the data disks of {vm_id} when it is deleted (deleteOption Detach)"),
            "Microsoft.Compute/virtualMachines/write (e.g. Contributor on the resource group)",
        );
        let url = self.client.url(&path_of(vm_id), VMS_API, &[]);
        let body = json!({"properties": {"storageProfile": {"dataDisks": disks}}});
        let res = self.client.send(&op, Verb::Patch, url, Some(&body)).await?;
        let accepted = (res.async_operation.is_some() || res.status == 202).then(|| Accepted {
            status: res.status,
            body: serde_json::from_slice(&res.body).unwrap_or(Value::Null),
            async_operation: res.async_operation,
            location: res.location,
            retry_after: res.retry_after,
        });
        Ok((disks.len(), accepted))
    }

    /// `properties.provisioningState` of a deleted vault, or `None` when no deleted vault of
    /// that name exists (`GET .../locations/{l}/deletedVaults/{name}`, Key Vault 2024-11-01).
    pub async fn deleted_vault(
        &self,
        location: &str,
        name: &str,
    ) -> Result<Option<Value>, ArmError> {
        let id = format!(
            "/subscriptions/{}/providers/Microsoft.KeyVault/locations/{}/deletedVaults/{}",
            self.subscription(),
            location,
            name
        );
        self.get_resource(&id, super::api::KEYVAULT_API).await
    }
}

/// A resource id as a URL path (each segment percent-encoded).
pub(super) fn path_of(id: &str) -> String {
    id.trim_start_matches('/')
        .split('/')
        .map(enc)
        .collect::<Vec<_>>()
        .join("/")
}

// ---------------------------------------------------------------------------------------------
// Status

/// One VM of the pool with its instance view, the fields status shows.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Vm {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default, deserialize_with = "null_default")]
    pub zones: Vec<String>,
    #[serde(default)]
    pub properties: VmProperties,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VmProperties {
    /// Regular, Spot, Low (absent on Uniform instances: the scale set's profile says).
    #[serde(default)]
    pub priority: Option<String>,
    #[serde(default)]
    pub provisioning_state: Option<String>,
    #[serde(default)]
    pub instance_view: Option<InstanceView>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstanceView {
    #[serde(default, deserialize_with = "null_default")]
    pub statuses: Vec<StatusCode>,
    /// The application health extension's verdict (`HealthState/healthy`).
    #[serde(default)]
    pub vm_health: Option<VmHealth>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusCode {
    #[serde(default)]
    pub code: String,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct VmHealth {
    #[serde(default)]
    pub status: Option<StatusCode>,
}

/// One activity log event, the fields status shows.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    #[serde(default)]
    pub event_timestamp: Option<String>,
    /// Shared by the events of one operation (Started, then Succeeded or Failed).
    #[serde(default)]
    pub correlation_id: Option<String>,
    /// Unique per event.
    #[serde(default)]
    pub event_data_id: Option<String>,
    #[serde(default)]
    pub operation_name: Option<Localized>,
    #[serde(default)]
    pub status: Option<Localized>,
    #[serde(default)]
    pub resource_id: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// Autoscale events put the old/new capacity and the reason here.
    #[serde(default)]
    pub properties: Option<serde_json::Map<String, Value>>,
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Localized {
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub localized_value: Option<String>,
}

impl Arm {
    fn rg_scope(&self, rg: &str) -> String {
        format!(
            "subscriptions/{}/resourceGroups/{}",
            self.subscription(),
            enc(rg)
        )
    }

    /// The VMs of the scale set with their instance views: Flexible sets through the
    /// virtualMachines list filtered by `virtualMachineScaleSet/id`, Uniform sets through the
    /// scale set's own `virtualMachines` list.
    pub async fn pool_vms(
        &self,
        rg: &str,
        vmss: &str,
        flexible: bool,
    ) -> Result<Vec<Vm>, ArmError> {
        let op = Op::new(
            format!("list the instances of {vmss} in {rg}"),
            "Microsoft.Compute/virtualMachines/read (e.g. Reader on the resource group)",
        );
        let url = if flexible {
            let id = format!(
                "/subscriptions/{}/resourceGroups/{}/providers/Microsoft.Compute/virtualMachineScaleSets/{}",
                self.subscription(),
                rg,
                vmss
            );
            let filter = format!("'virtualMachineScaleSet/id' eq '{id}'");
            self.client.url(
                &format!(
                    "{}/providers/Microsoft.Compute/virtualMachines",
                    self.rg_scope(rg)
                ),
                VMS_API,
                &[("$filter", &filter), ("$expand", "instanceView")],
            )
        } else {
            self.client.url(
                &format!(
                    "{}/providers/Microsoft.Compute/virtualMachineScaleSets/{}/virtualMachines",
                    self.rg_scope(rg),
                    enc(vmss)
                ),
                VMS_API,
                &[("$expand", "instanceView")],
            )
        };
        self.client.get_all(&op, url).await
    }

    /// One standalone VM (the dev box) with its instance view: GET
    /// `virtualMachines/{name}?$expand=instanceView` at `api` (the version the plan renders the
    /// VM with). `None`: it does not exist.
    pub async fn vm_instance_view(
        &self,
        rg: &str,
        name: &str,
        api: &str,
    ) -> Result<Option<Vm>, ArmError> {
        let op = Op::new(
            format!("read the VM {name} in {rg}"),
            "Microsoft.Compute/virtualMachines/read (e.g. Reader on the resource group)",
        );
        let url = self.client.url(
            &format!(
                "{}/providers/Microsoft.Compute/virtualMachines/{}",
                self.rg_scope(rg),
                enc(name)
            ),
            api,
            &[("$expand", "instanceView")],
        );
        match self.client.get_json::<Vm>(&op, url).await {
            Ok(v) => Ok(Some(v)),
            Err(e) if e.status == Some(404) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The autoscale setting as ARM has it (`None`: not there).
    pub async fn autoscale_setting(&self, rg: &str, name: &str) -> Result<Option<Value>, ArmError> {
        let id = format!(
            "/{}/providers/Microsoft.Insights/autoscalesettings/{}",
            self.rg_scope(rg),
            name
        );
        self.get_resource(&id, AUTOSCALE_API).await
    }

    /// Azure Monitor "Metrics - List" (api-version [`METRICS_API`]) for one metric of a resource.
    fn metrics_url(
        &self,
        resource_id: &str,
        metric: &str,
        aggregation: &str,
        timespan: &str,
        interval: &str,
        filter: Option<&str>,
    ) -> Url {
        let mut q: Vec<(&str, &str)> = vec![
            ("metricnames", metric),
            ("timespan", timespan),
            ("interval", interval),
            ("aggregation", aggregation),
        ];
        if let Some(f) = filter {
            q.push(("$filter", f));
        }
        self.client.url(
            &format!(
                "{}/providers/Microsoft.Insights/metrics",
                path_of(resource_id)
            ),
            METRICS_API,
            &q,
        )
    }

    /// The latest non-empty `aggregation` value of a metric over the last 15 minutes, at one
    /// minute (a `Total` or `Count` from the last whole minute: [`super::metric_point::latest_point`]).
    pub async fn metric_now(
        &self,
        resource_id: &str,
        metric: &str,
        aggregation: &str,
        filter: Option<&str>,
    ) -> Result<Option<f64>, ArmError> {
        let op = Op::new(
            format!("read the metric {metric} of {resource_id}"),
            METRICS_READ,
        );
        let url = self.metrics_url(resource_id, metric, aggregation, "PT15M", "PT1M", filter);
        let v: Value = self.client.get_json(&op, url).await?;
        Ok(super::metric_point::latest_point(
            &v,
            aggregation,
            time::Duration::minutes(1),
        ))
    }

    /// A metric's time series over `timespan` (`START/END`, ISO 8601) at `interval` (Azure
    /// Monitor "Metrics - List", api-version [`METRICS_API`]): the response body as ARM sends it,
    /// the shape `az monitor metrics list -o json` prints.
    pub async fn metric_series(
        &self,
        resource_id: &str,
        metric: &str,
        aggregation: &str,
        timespan: &str,
        interval: &str,
        filter: Option<&str>,
    ) -> Result<Value, ArmError> {
        let op = Op::new(
            format!("read the metric {metric} of {resource_id} over {timespan}"),
            METRICS_READ,
        );
        let url = self.metrics_url(resource_id, metric, aggregation, timespan, interval, filter);
        self.client.get_json(&op, url).await
    }

    /// Activity log events of the resource group between `since` and `until` (RFC 3339), with
    /// the `$filter` pattern "List events for a resource group" of the spec
    /// ([`crate::facts::api::activity_log_filter`]; "No other syntax is allowed").
    pub async fn activity_log(
        &self,
        rg: &str,
        since: &str,
        until: &str,
    ) -> Result<Vec<Event>, ArmError> {
        let op = Op::new(
            format!("read the activity log of {rg}"),
            "Microsoft.Insights/eventtypes/values/read (e.g. Reader on the resource group)",
        );
        let filter = crate::facts::api::activity_log_filter(rg, since, until);
        let url = self.client.url(
            &format!(
                "subscriptions/{}/{}",
                self.subscription(),
                crate::facts::api::ACTIVITY_LOG_PATH
            ),
            ACTIVITY_LOG_API,
            &[("$filter", &filter)],
        );
        self.client.get_all(&op, url).await
    }

    /// Alerts of the resource group fired in the last day (Alerts Management).
    pub async fn alerts(&self, rg: &str) -> Result<Vec<Value>, ArmError> {
        let op = Op::new(
            format!("list the alerts of {rg}"),
            "Microsoft.AlertsManagement/alerts/read (e.g. Monitoring Reader on the resource group)",
        );
        let url = self.client.url(
            &format!(
                "subscriptions/{}/providers/Microsoft.AlertsManagement/alerts",
                self.subscription()
            ),
            ALERTS_API,
            &[("targetResourceGroup", rg), ("timeRange", "1d")],
        );
        self.client.get_all(&op, url).await
    }

    /// Run a Log Analytics query on the workspace `workspace_id` (its ARM resource id) over
    /// `timespan` (ISO 8601 duration) with the Logs Query API: the workspace's GUID
    /// (`properties.customerId`) read through ARM, then `POST v1/workspaces/{GUID}/query`
    /// ([`LOG_QUERY_API`]; Learn's request format). The first table's rows as objects keyed by
    /// column name.
    /// At most `max_rows` rows are read (the rest of a longer answer is dropped as it is
    /// parsed; [`Self::log_query_at`]).
    pub async fn log_query(
        &self,
        workspace_id: &str,
        query: &str,
        timespan: &str,
        max_rows: usize,
    ) -> Result<Vec<serde_json::Map<String, Value>>, ArmError> {
        let guid = self.workspace_guid(workspace_id).await?;
        let a = self
            .log_query_at(workspace_id, &guid, query, timespan, max_rows)
            .await?;
        Ok(query_rows(&a.value))
    }

    /// The workspace's GUID (`properties.customerId`, the "workspace ID" the Logs Query API
    /// takes), read through ARM from its resource id.
    pub async fn workspace_guid(&self, workspace_id: &str) -> Result<String, ArmError> {
        if self.logs.is_none() {
            return Err(ArmError::config(
                "query the Log Analytics workspace",
                "this client has no Logs Query API endpoint",
            ));
        }
        let op = Op::new(
            format!("read the Log Analytics workspace {workspace_id}"),
            "Microsoft.OperationalInsights/workspaces/read (e.g. Log Analytics Reader on the workspace)",
        );
        let url = self
            .client
            .url(workspace_id.trim_start_matches('/'), WORKSPACES_API, &[]);
        let ws: Value = self.client.get_json(&op, url).await?;
        ws.pointer("/properties/customerId")
            .and_then(Value::as_str)
            .filter(|g| !g.is_empty())
            .map(str::to_string)
            .ok_or_else(|| {
                ArmError::new(
                    ErrorKind::Decode,
                    &op.what,
                    "the workspace has no properties.customerId (its workspace ID)",
                )
            })
    }

    /// `POST v1/workspaces/{guid}/query` with `query` over `timespan` (an ISO 8601 duration or a
    /// `START/END` pair): the answer as the API sends it (`tables[{name, columns, rows}]`), read
    /// by what the question can need: the first table, at most `max_rows` of its rows (the rest
    /// counted in [`LogAnswer::rows`] and dropped as they are parsed), the body at most the
    /// API's documented maximum. `workspace_id` (the ARM id) names the workspace in messages.
    pub async fn log_query_at(
        &self,
        workspace_id: &str,
        guid: &str,
        query: &str,
        timespan: &str,
        max_rows: usize,
    ) -> Result<LogAnswer, ArmError> {
        let Some(logs) = &self.logs else {
            return Err(ArmError::config(
                "query the Log Analytics workspace",
                "this client has no Logs Query API endpoint",
            ));
        };
        let op = Op::new(
            format!("query the Log Analytics workspace {workspace_id}"),
            "Microsoft.OperationalInsights/workspaces/query/read (e.g. Log Analytics Reader on the workspace)",
        );
        let url = logs.plain_url(
            &format!("{LOG_QUERY_API}/workspaces/{}/query", enc(guid)),
            &[],
        );
        let body = json!({ "query": query, "timespan": timespan });
        let res = logs.send(&op, Verb::Post, url, Some(&body)).await?;
        super::log_answer::parse(&res.body, max_rows).map_err(|e| {
            super::client::not_json(
                &op,
                &res.body,
                res.request_id.as_deref(),
                format!("the Logs Query API's answer is not the JSON gpuform expects: {e}"),
                "check GPUFORM_LOGS_ENDPOINT and the proxy settings",
            )
        })
    }

    /// Month-to-date actual cost of the resource group: (amount, currency).
    pub async fn month_to_date_cost(&self, rg: &str) -> Result<Option<(f64, String)>, ArmError> {
        let op = Op::new(
            format!("query the month-to-date cost of {rg}"),
            "Microsoft.CostManagement/query/action (e.g. Cost Management Reader on the resource group)",
        );
        let url = self.client.url(
            &format!(
                "{}/providers/Microsoft.CostManagement/query",
                self.rg_scope(rg)
            ),
            COST_API,
            &[],
        );
        let body = json!({
            "type": "ActualCost",
            "timeframe": "MonthToDate",
            "dataset": {"granularity": "None", "aggregation": {"totalCost": {"name": "Cost", "function": "Sum"}}}
        });
        let v: Value = self.client.post_json(&op, url, &body).await?;
        Ok(cost_total(&v))
    }
}

/// The total and currency of a Cost Management query answer (`properties.columns` names the
/// row fields: `Cost`/`PreTaxCost`, `Currency`).
pub fn cost_total(v: &Value) -> Option<(f64, String)> {
    let cols = v.pointer("/properties/columns")?.as_array()?;
    let idx = |names: &[&str]| {
        cols.iter().position(|c| {
            c.get("name")
                .and_then(Value::as_str)
                .is_some_and(|n| names.iter().any(|x| x.eq_ignore_ascii_case(n)))
        })
    };
    let cost = idx(&["Cost", "PreTaxCost", "totalCost", "CostUSD"])?;
    let cur = idx(&["Currency"]);
    let rows = v.pointer("/properties/rows")?.as_array()?;
    let mut total = 0.0;
    let mut currency = String::new();
    for r in rows {
        total += r.get(cost).and_then(Value::as_f64).unwrap_or(0.0);
        if let Some(c) = cur.and_then(|i| r.get(i)).and_then(Value::as_str) {
            currency = c.to_string();
        }
    }
    Some((total, currency))
}

/// The rows of a Log Analytics query answer's first table, as objects keyed by column name.
pub fn query_rows(v: &Value) -> Vec<serde_json::Map<String, Value>> {
    let Some(t) = v.pointer("/tables/0") else {
        return Vec::new();
    };
    let cols: Vec<String> = t
        .get("columns")
        .and_then(Value::as_array)
        .map(|c| {
            c.iter()
                .map(|c| {
                    c.get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string()
                })
                .collect()
        })
        .unwrap_or_default();
    t.get("rows")
        .and_then(Value::as_array)
        .map(|rows| {
            rows.iter()
                .filter_map(Value::as_array)
                .map(|r| cols.iter().cloned().zip(r.iter().cloned()).collect())
                .collect()
        })
        .unwrap_or_default()
}
