//! The landing-zone reads' interface: the [`LandingZoneApi`] trait [`super::ArmApi::landing_zone`]
//! hands out, and the response shapes it returns (subnet, route table, Policy's restrictions).
//! [`super::landing_zone`] implements it for [`super::Arm`]; this file imports neither, so
//! `api` can name the trait without an import circle.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::ArmError;
use super::models::null_default;

/// `{"id": ...}` references inside a resource.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IdRef {
    #[serde(default)]
    pub id: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DelegationProps {
    #[serde(default)]
    pub service_name: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Delegation {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub properties: Option<DelegationProps>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubnetProps {
    #[serde(default)]
    pub address_prefix: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub address_prefixes: Vec<String>,
    #[serde(default)]
    pub network_security_group: Option<IdRef>,
    #[serde(default)]
    pub route_table: Option<IdRef>,
    #[serde(default)]
    pub nat_gateway: Option<IdRef>,
    #[serde(default, deserialize_with = "null_default")]
    pub delegations: Vec<Delegation>,
    #[serde(default)]
    pub private_endpoint_network_policies: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub ip_configurations: Vec<IdRef>,
}

/// A subnet as `GET .../subnets/{name}` returns it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Subnet {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub properties: SubnetProps,
}

impl Subnet {
    /// Every prefix of the subnet (`addressPrefix` and `addressPrefixes` both occur).
    pub fn prefixes(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .properties
            .address_prefixes
            .iter()
            .map(String::as_str)
            .collect();
        if let Some(p) = self.properties.address_prefix.as_deref()
            && !v.contains(&p)
        {
            v.insert(0, p);
        }
        v
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteProps {
    #[serde(default)]
    pub address_prefix: Option<String>,
    #[serde(default)]
    pub next_hop_type: Option<String>,
    #[serde(default)]
    pub next_hop_ip_address: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Route {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub properties: RouteProps,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RouteTableProps {
    #[serde(default, deserialize_with = "null_default")]
    pub routes: Vec<Route>,
}

/// A route table as `GET .../routeTables/{name}` returns it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RouteTable {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub name: String,
    /// Its region (a route table joins only subnets of its own region and subscription).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub location: String,
    #[serde(default)]
    pub properties: RouteTableProps,
}

/// `PolicyReference`: the ids of the policy behind a restriction or an evaluation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyReference {
    #[serde(default)]
    pub policy_definition_id: Option<String>,
    #[serde(default)]
    pub policy_set_definition_id: Option<String>,
    #[serde(default)]
    pub policy_definition_reference_id: Option<String>,
    #[serde(default)]
    pub policy_assignment_id: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldRestriction {
    #[serde(default)]
    pub result: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub values: Vec<String>,
    #[serde(default)]
    pub policy: Option<PolicyReference>,
    #[serde(default)]
    pub policy_effect: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FieldRestrictions {
    #[serde(default)]
    pub field: String,
    #[serde(default, deserialize_with = "null_default")]
    pub restrictions: Vec<FieldRestriction>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluatedExpression {
    #[serde(default)]
    pub expression_kind: Option<String>,
    #[serde(default)]
    pub expression: Option<String>,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub result: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluationDetails {
    #[serde(default, deserialize_with = "null_default")]
    pub evaluated_expressions: Vec<EvaluatedExpression>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EffectDetails {
    #[serde(default)]
    pub policy_effect: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyEvaluation {
    #[serde(default)]
    pub policy_info: Option<PolicyReference>,
    #[serde(default)]
    pub evaluation_result: Option<String>,
    #[serde(default)]
    pub evaluation_details: Option<EvaluationDetails>,
    #[serde(default)]
    pub effect_details: Option<EffectDetails>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContentEvaluation {
    #[serde(default, deserialize_with = "null_default")]
    pub policy_evaluations: Vec<PolicyEvaluation>,
}

/// `CheckRestrictionsResult`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyRestrictions {
    #[serde(default, deserialize_with = "null_default")]
    pub field_restrictions: Vec<FieldRestrictions>,
    #[serde(default)]
    pub content_evaluation_result: Option<ContentEvaluation>,
}

/// One entry of Permissions_ListForResourceGroup's `value` (the caller's effective role
/// permissions at the group; `facts::authorization`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Permission {
    #[serde(default, deserialize_with = "null_default")]
    pub actions: Vec<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub not_actions: Vec<String>,
}

/// The landing-zone calls preflight makes.
#[async_trait::async_trait]
pub trait LandingZoneApi: Send + Sync {
    /// `GET` an existing subnet by its resource id (any subscription of the tenant).
    async fn subnet(&self, id: &str) -> Result<Subnet, ArmError>;
    /// `GET` a route table by its resource id.
    async fn route_table(&self, id: &str) -> Result<RouteTable, ArmError>;
    /// The caller's permissions at the resource group `rg` of the subscription (all pages).
    async fn permissions(&self, rg: &str) -> Result<Vec<Permission>, ArmError>;
    /// `GET` a virtual network by its resource id: its region (`location`).
    async fn virtual_network_location(&self, id: &str) -> Result<String, ArmError>;
    /// `GET` a Log Analytics workspace by its resource id: its region.
    async fn workspace_location(&self, id: &str) -> Result<String, ArmError>;
    /// Does the table `table` exist in the workspace `workspace_id`? (`GET .../tables/{table}`,
    /// 404: no)
    async fn table_exists(&self, workspace_id: &str, table: &str) -> Result<bool, ArmError>;
    /// `POST checkPolicyRestrictions` at the resource group (`Some`) or subscription scope.
    async fn check_policy_restrictions(
        &self,
        resource_group: Option<&str>,
        request: &Value,
    ) -> Result<PolicyRestrictions, ArmError>;
}
