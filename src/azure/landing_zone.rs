//! Landing-zone reads for preflight (issue 13): the existing subnet, its route table, and Azure
//! Policy's verdict on the resources the template creates. Kept apart from [`super::api`] so the
//! branches that touch the client merge cleanly; [`super::ArmApi::landing_zone`] hands it out.
//!
//! REST calls (azure-rest-api-specs):
//! - `GET {subnet id}?api-version=2025-05-01` (Subnets_Get,
//!   specification/network/resource-manager/Microsoft.Network/stable/2025-05-01/virtualNetwork.json;
//!   examples/SubnetGetWithDelegation.json): `properties.{addressPrefix, addressPrefixes,
//!   networkSecurityGroup.id, routeTable.id, natGateway.id, delegations[].properties.serviceName,
//!   privateEndpointNetworkPolicies, ipConfigurations[].id}`. The version is the one the renderer
//!   deploys network resources with (`facts::api::API.network`).
//! - `GET {route table id}?api-version=2025-05-01` (RouteTables_Get, same folder, routeTable.json):
//!   `properties.routes[].properties.{addressPrefix, nextHopType, nextHopIpAddress}`.
//! - `GET {virtual network id}?api-version=2025-05-01` (VirtualNetworks_Get, same folder,
//!   virtualNetwork.json; examples/VirtualNetworkGet.json): the top-level `location` is the
//!   VNet's region, where a NIC or private endpoint joining one of its subnets must be
//!   (`facts::placement`). A subnet's own answer carries no location.
//! - `GET /subscriptions/{s}/resourcegroups/{rg}/providers/Microsoft.Authorization/permissions?api-version=2022-04-01`
//!   (Permissions_ListForResourceGroup; `facts::authorization::PERMISSIONS_API_SOURCE`): the
//!   caller's `actions`/`notActions` at the group, paged with `nextLink`.
//! - `POST /subscriptions/{s}[/resourceGroups/{rg}]/providers/Microsoft.PolicyInsights/checkPolicyRestrictions?api-version=2024-10-01`
//!   (PolicyRestrictions_CheckAtResourceGroupScope / _CheckAtSubscriptionScope,
//!   specification/policyinsights/resource-manager/Microsoft.PolicyInsights/stable/2024-10-01/checkPolicyRestrictions.json;
//!   examples/PolicyRestrictions_CheckAtResourceGroupScope.json): body `{resourceDetails:
//!   {resourceContent, apiVersion, scope?}, pendingFields?: [{field, values}], includeAuditEffect}`,
//!   answer `{fieldRestrictions: [{field, restrictions: [{result: Required|Removed|Deny|Audit,
//!   values, policy: PolicyReference, policyEffect, reason}]}], contentEvaluationResult:
//!   {policyEvaluations: [{policyInfo: PolicyReference, evaluationResult, evaluationDetails:
//!   {evaluatedExpressions: [{expressionKind, expression, path, result}]}, effectDetails:
//!   {policyEffect}}]}}`.

use serde::Deserialize;
use serde_json::Value;

use super::api::{Arm, ArmApi};
use super::client::{Op, enc};
use super::error::ArmError;

/// Microsoft.Network: the version the renderer deploys subnets and route tables with.
pub const NETWORK_API: &str = crate::facts::api::API.network;
pub use crate::facts::api::POLICY_INSIGHTS_API;

pub use super::landing_zone_api::*;

/// A resource id as a URL path, each segment percent-encoded.
fn id_path(id: &str) -> String {
    id.trim_matches('/')
        .split('/')
        .map(enc)
        .collect::<Vec<_>>()
        .join("/")
}

#[async_trait::async_trait]
impl LandingZoneApi for Arm {
    async fn workspace_location(&self, id: &str) -> Result<String, ArmError> {
        #[derive(Deserialize)]
        struct Ws {
            #[serde(default)]
            location: String,
        }
        let op = Op::new(
            format!("read the Log Analytics workspace {id}"),
            "Microsoft.OperationalInsights/workspaces/read (e.g. Reader or Log Analytics Reader on the workspace)",
        );
        let url = self
            .client
            .url(&id_path(id), crate::facts::api::API.log_analytics, &[]);
        let ws: Ws = self.client.get_json(&op, url).await?;
        Ok(ws.location)
    }

    async fn table_exists(&self, workspace_id: &str, table: &str) -> Result<bool, ArmError> {
        let op = Op::new(
            format!("read the table {table} of the workspace {workspace_id}"),
            "Microsoft.OperationalInsights/workspaces/tables/read (e.g. Reader or Log Analytics Reader on the workspace)",
        );
        let url = self.client.url(
            &format!("{}/tables/{}", id_path(workspace_id), enc(table)),
            crate::facts::api::API.log_analytics_tables,
            &[],
        );
        match self.client.get_json::<Value>(&op, url).await {
            Ok(_) => Ok(true),
            Err(e) if e.status == Some(404) => Ok(false),
            Err(e) => Err(e),
        }
    }

    async fn subnet(&self, id: &str) -> Result<Subnet, ArmError> {
        let op = Op::new(
            format!("read the subnet {id}"),
            "Microsoft.Network/virtualNetworks/subnets/read on the subnet's virtual network (e.g. Network Reader or Reader on the hub/spoke network's resource group)",
        );
        let url = self.client.url(&id_path(id), NETWORK_API, &[]);
        self.client.get_json(&op, url).await
    }

    async fn route_table(&self, id: &str) -> Result<RouteTable, ArmError> {
        let op = Op::new(
            format!("read the route table {id}"),
            "Microsoft.Network/routeTables/read (e.g. Network Reader or Reader on the route table's resource group)",
        );
        let url = self.client.url(&id_path(id), NETWORK_API, &[]);
        self.client.get_json(&op, url).await
    }

    async fn permissions(&self, rg: &str) -> Result<Vec<Permission>, ArmError> {
        let op = Op::new(
            format!("read your permissions at the resource group {rg}"),
            "Microsoft.Authorization/permissions/read (e.g. Reader on the resource group)",
        );
        let url = self.client.url(
            &format!(
                "subscriptions/{}/resourcegroups/{}/providers/Microsoft.Authorization/permissions",
                enc(ArmApi::subscription(self)),
                enc(rg)
            ),
            crate::facts::authorization::PERMISSIONS_API,
            &[],
        );
        self.client.get_all(&op, url).await
    }

    async fn virtual_network_location(&self, id: &str) -> Result<String, ArmError> {
        #[derive(Deserialize)]
        struct Vnet {
            #[serde(default)]
            location: String,
        }
        let op = Op::new(
            format!("read the virtual network {id}"),
            "Microsoft.Network/virtualNetworks/read (e.g. Network Reader or Reader on the virtual network's resource group)",
        );
        let url = self.client.url(&id_path(id), NETWORK_API, &[]);
        let v: Vnet = self.client.get_json(&op, url).await?;
        Ok(v.location)
    }

    async fn check_policy_restrictions(
        &self,
        resource_group: Option<&str>,
        request: &Value,
    ) -> Result<PolicyRestrictions, ArmError> {
        let ty = request
            .pointer("/resourceDetails/resourceContent/type")
            .and_then(Value::as_str)
            .unwrap_or("a resource");
        let (path, scope) = match resource_group {
            Some(rg) => (
                format!(
                    "subscriptions/{}/resourceGroups/{}/providers/Microsoft.PolicyInsights/checkPolicyRestrictions",
                    enc(ArmApi::subscription(self)),
                    enc(rg)
                ),
                format!("resource group {rg}"),
            ),
            None => (
                format!(
                    "subscriptions/{}/providers/Microsoft.PolicyInsights/checkPolicyRestrictions",
                    enc(ArmApi::subscription(self))
                ),
                "the subscription".to_string(),
            ),
        };
        let op = Op::new(
            format!("ask Azure Policy whether it restricts {ty} in {scope}"),
            "Microsoft.PolicyInsights/checkPolicyRestrictions/action (e.g. Reader, or Resource Policy Contributor, on the subscription)",
        );
        let url = self.client.url(&path, POLICY_INSIGHTS_API, &[]);
        self.client.post_json(&op, url, request).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_examples_parse() {
        // SubnetGetWithDelegation.json (2025-05-01), the response body verbatim
        let s: Subnet = serde_json::from_value(serde_json::json!({
            "id": "/subscriptions/subId/resourceGroups/subnet-test/providers/Microsoft.Network/virtualNetworks/vnetname/subnets/subnet1",
            "name": "subnet1",
            "properties": {
                "addressPrefix": "10.0.0.0/16",
                "provisioningState": "Succeeded",
                "delegations": [{"name": "myDelegation", "id": "/subscriptions/subId/resourceGroups/rg1/providers/Microsoft.Network/virtualNetworks/test-vnet/subnets/subnet1/delegations/myDelegation",
                    "properties": {"provisioningState": "Succeeded", "serviceName": "Microsoft.Provider/resourceType", "actions": []}}],
                "purpose": ""
            }
        }))
        .unwrap();
        assert_eq!(s.prefixes(), ["10.0.0.0/16"]);
        assert_eq!(
            s.properties.delegations[0]
                .properties
                .as_ref()
                .unwrap()
                .service_name
                .as_deref(),
            Some("Microsoft.Provider/resourceType")
        );
        let r: PolicyRestrictions = serde_json::from_value(serde_json::json!({
            "fieldRestrictions": [{"field": "location", "restrictions": [{"result": "Deny", "values": ["west europe"],
                "policy": {"policyDefinitionId": "/subscriptions/d/providers/microsoft.authorization/policyDefinitions/0711CCC1",
                           "policyAssignmentId": "/subscriptions/d/providers/microsoft.authorization/policyAssignments/1563EBD3"},
                "policyEffect": "Deny", "reason": "location must be one of the following: eastus, westus, westus2"}]}],
            "contentEvaluationResult": {"policyEvaluations": [{"policyInfo": {"policyAssignmentId": "/x/policyAssignments/2FF66C37"},
                "evaluationResult": "NonCompliant",
                "evaluationDetails": {"evaluatedExpressions": [{"result": "True", "expressionKind": "field", "expression": "type", "path": "type"}]},
                "effectDetails": {"policyEffect": "Deny"}}]}
        }))
        .unwrap();
        assert_eq!(
            r.field_restrictions[0].restrictions[0].values,
            ["west europe"]
        );
        assert_eq!(
            r.content_evaluation_result.unwrap().policy_evaluations[0]
                .effect_details
                .as_ref()
                .unwrap()
                .policy_effect
                .as_deref(),
            Some("Deny")
        );
    }

    #[test]
    fn ids_become_encoded_paths() {
        assert_eq!(
            id_path(
                "/subscriptions/s/resourceGroups/rg (hub)/providers/Microsoft.Network/virtualNetworks/v/subnets/a"
            ),
            "subscriptions/s/resourceGroups/rg%20%28hub%29/providers/Microsoft.Network/virtualNetworks/v/subnets/a"
        );
    }
}
