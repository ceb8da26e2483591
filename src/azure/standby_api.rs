//! What preflight asks about the standby pool provider's principal (issue 23): its service
//! principal in the tenant (Microsoft Graph) and its role assignments at the resource group
//! (ARM). Sources: [`crate::facts::standby::GRAPH_SERVICE_PRINCIPALS`],
//! [`crate::facts::standby::ROLE_ASSIGNMENTS_LIST`]. The ARM/Graph implementation is in
//! [`super::standby_arm`].

use serde::Deserialize;

use super::error::ArmError;

/// One service principal of Graph's list (`{id, appId, displayName}`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServicePrincipal {
    /// The object id role assignments name (`principalId`).
    pub id: String,
    #[serde(default)]
    pub app_id: Option<String>,
    #[serde(default)]
    pub display_name: Option<String>,
}

/// Graph's list answer.
#[derive(Debug, Deserialize)]
pub struct ServicePrincipalList {
    #[serde(default)]
    pub value: Vec<ServicePrincipal>,
}

/// What Microsoft Graph needs to read service principals (the Graph error's fix).
pub const GRAPH_PERMISSION: &str = "Microsoft Graph Application.Read.All (or Directory.Read.All; a member user can read service principals by default)";

/// One role assignment of a principal (`{name, properties: {roleDefinitionId, scope}}`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HeldRole {
    /// `/subscriptions/.../roleDefinitions/<guid>`.
    pub role_definition_id: String,
    /// Where it is assigned (`/subscriptions/S`, `/subscriptions/S/resourceGroups/G`, a
    /// resource id).
    pub scope: String,
    /// The assignment's name (a GUID).
    pub name: String,
}

impl HeldRole {
    /// The role definition's GUID, lower case.
    pub fn role_guid(&self) -> String {
        self.role_definition_id
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase()
    }

    /// Assigned exactly at `scope` (not inherited from above, not on a child).
    pub fn at(&self, scope: &str) -> bool {
        self.scope
            .trim_end_matches('/')
            .eq_ignore_ascii_case(scope.trim_end_matches('/'))
    }
}

/// The reads.
#[async_trait::async_trait]
pub trait StandbyApi: Send + Sync {
    /// The service principals of `app_id` in the signed-in tenant (normally zero or one).
    async fn service_principals(&self, app_id: &str) -> Result<Vec<ServicePrincipal>, ArmError>;
    /// The role assignments of `principal` at, above or below `scope` (a resource group's
    /// path `/subscriptions/S/resourceGroups/G`, or any resource id): Role Assignments - List
    /// For Scope with `$filter=principalId eq '{id}'`.
    async fn role_assignments(
        &self,
        scope: &str,
        principal: &str,
    ) -> Result<Vec<HeldRole>, ArmError>;
}
