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

/// The reads.
#[async_trait::async_trait]
pub trait StandbyApi: Send + Sync {
    /// The service principals of `app_id` in the signed-in tenant (normally zero or one).
    async fn service_principals(&self, app_id: &str) -> Result<Vec<ServicePrincipal>, ArmError>;
    /// The role definition ids (`/subscriptions/.../roleDefinitions/<guid>`) assigned to
    /// `principal` at, above or below resource group `rg`.
    async fn role_assignments(&self, rg: &str, principal: &str) -> Result<Vec<String>, ArmError>;
}
