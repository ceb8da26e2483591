//! The ARM/Graph implementation of [`StandbyApi`].

use serde::Deserialize;

use super::api::Arm;
use super::client::Op;
use super::error::ArmError;
use super::standby_api::{
    GRAPH_PERMISSION, HeldRole, ServicePrincipal, ServicePrincipalList, StandbyApi,
};
use crate::facts::api::API;
use crate::facts::standby::GRAPH_SERVICE_PRINCIPALS_PATH;

#[derive(Deserialize)]
struct Assignment {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    properties: Option<AssignmentProperties>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AssignmentProperties {
    #[serde(default)]
    role_definition_id: Option<String>,
    #[serde(default)]
    scope: Option<String>,
}

#[async_trait::async_trait]
impl StandbyApi for Arm {
    async fn service_principals(&self, app_id: &str) -> Result<Vec<ServicePrincipal>, ArmError> {
        let op = Op::new(
            "look up the Standby Pool Resource Provider in Microsoft Graph",
            GRAPH_PERMISSION,
        );
        let Some(graph) = &self.graph else {
            return Err(ArmError::config(&op.what, "no Microsoft Graph client"));
        };
        let filter = format!("appId eq '{}'", app_id.replace('\'', "''"));
        let url = graph.plain_url(
            GRAPH_SERVICE_PRINCIPALS_PATH,
            &[("$filter", &filter), ("$select", "id,appId,displayName")],
        );
        let list: ServicePrincipalList = graph.get_json(&op, url).await?;
        Ok(list.value)
    }

    async fn role_assignments(
        &self,
        scope: &str,
        principal: &str,
    ) -> Result<Vec<HeldRole>, ArmError> {
        let op = Op::new(
            format!("list the role assignments of the Standby Pool provider on {scope}"),
            "Microsoft.Authorization/roleAssignments/read (Reader has it)",
        );
        let path = format!(
            "{}/providers/Microsoft.Authorization/roleAssignments",
            scope.trim_matches('/')
        );
        let filter = format!("principalId eq '{}'", principal.replace('\'', "''"));
        let url = self
            .client
            .url(&path, API.role_assignments, &[("$filter", &filter)]);
        let list: Vec<Assignment> = self.client.get_all(&op, url).await?;
        Ok(list
            .into_iter()
            .filter_map(|a| {
                let p = a.properties?;
                Some(HeldRole {
                    role_definition_id: p.role_definition_id?,
                    scope: p.scope.unwrap_or_default(),
                    name: a.name.unwrap_or_default(),
                })
            })
            .collect())
    }
}
