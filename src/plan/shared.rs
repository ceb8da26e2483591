//! Landing zones (issue 13), shared monitoring and keys: a central Log Analytics workspace,
//! the platform team's action groups and an existing Key Vault, referenced instead of created.
//!
//! Decisions (README, "Shared monitoring and keys"):
//! - Nothing is deployed outside the deployment's resource group. The central workspace and
//!   vault belong to the platform team, whose deployments own their configuration (retention,
//!   tables, access); an application spoke that writes into them needs rights there that a
//!   landing zone does not hand out. What the pool needs from them is therefore listed as
//!   [`Prerequisite`]s, by `gpuform validate` (rule `shared-services-prerequisite`) and
//!   `gpuform render`, and the template only references them (`existing` in Bicep,
//!   `resourceId(subscription, group, …)` in ARM).
//! - The GPU table `GpuTelemetry_CL` is such a prerequisite: the data collection rule's output
//!   stream and the log alerts' queries need it before they are created, and a table is
//!   workspace configuration.
//! - Existing action groups are notified next to the one `alertEmails` creates.

use serde::Serialize;

use super::common::roles;
use super::gpu_monitoring;
use crate::spec::model::WorkloadSpec;

/// An existing resource, from its resource id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExistingRef {
    /// The id as the spec gives it.
    pub id: String,
    pub subscription: String,
    pub resource_group: String,
    pub name: String,
}

/// Parse `/subscriptions/S/resourceGroups/G/providers/NS/TYPE/NAME` of the resource type
/// `ns_type` (`Microsoft.KeyVault/vaults`); ARM compares the fixed segments and the type
/// case-insensitively, so this does too. `None` when `id` is not such an id.
pub fn parse_id(id: &str, ns_type: &str) -> Option<ExistingRef> {
    let parts: Vec<&str> = id.split('/').collect();
    let (ns, ty) = ns_type.split_once('/')?;
    let fixed = [
        (0, ""),
        (1, "subscriptions"),
        (3, "resourceGroups"),
        (5, "providers"),
        (6, ns),
        (7, ty),
    ];
    if parts.len() != 9
        || fixed
            .iter()
            .any(|(i, want)| !parts[*i].eq_ignore_ascii_case(want))
        || [2, 4, 8].iter().any(|i| parts[*i].trim().is_empty())
    {
        return None;
    }
    Some(ExistingRef {
        id: id.to_string(),
        subscription: parts[2].to_string(),
        resource_group: parts[4].to_string(),
        name: parts[8].to_string(),
    })
}

pub const WORKSPACE_TYPE: &str = "Microsoft.OperationalInsights/workspaces";
pub const ACTION_GROUP_TYPE: &str = "Microsoft.Insights/actionGroups";
pub const KEY_VAULT_TYPE: &str = "Microsoft.KeyVault/vaults";

/// Something the platform team does before the pool is deployed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Prerequisite {
    /// `role` or `table`.
    pub kind: &'static str,
    /// One line: what to do.
    pub what: String,
    /// Role assignments: role name and role definition id (built-in).
    pub role_name: Option<&'static str>,
    pub role_id: Option<&'static str>,
    /// Role assignments: who gets it (how to find the principal id).
    pub principal: Option<String>,
    /// The resource id it applies to.
    pub scope: String,
}

/// The existing workspace of a spec, when it names a well-formed one.
pub fn workspace(s: &WorkloadSpec) -> Option<ExistingRef> {
    s.monitoring
        .existing_workspace
        .as_deref()
        .and_then(|id| parse_id(id, WORKSPACE_TYPE))
}

/// The existing Key Vault of a spec, when it names a well-formed one.
pub fn key_vault(s: &WorkloadSpec) -> Option<ExistingRef> {
    s.security
        .existing_key_vault
        .as_deref()
        .and_then(|id| parse_id(id, KEY_VAULT_TYPE))
}

/// What the platform team must do for a spec's shared services, in a fixed order: the GPU
/// table in the central workspace (when GPU monitoring is on), then the role on the vault.
/// `gpu_on`: `monitoring.gpu.enabled` as resolved.
/// `s` as one POSIX shell word: as is when it holds only characters no shell treats specially,
/// else in single quotes (a `'` inside becomes `'\''`). Resource group names may hold `(`, `)`
/// and `.`, which the shell would otherwise parse.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./=:,@%+".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

pub fn prerequisites(name: &str, s: &WorkloadSpec, gpu_on: bool) -> Vec<Prerequisite> {
    let mut out = Vec::new();
    if gpu_on && let Some(ws) = workspace(s) {
        let columns = gpu_monitoring::COLUMNS
            .iter()
            .map(|c| format!("{}={}", c.name, c.table_type))
            .collect::<Vec<_>>()
            .join(" ");
        out.push(Prerequisite {
            kind: "table",
            what: format!(
                "create the custom table {table} (plan Analytics; its retention is the workspace's) in the workspace {name} before the pool deploys, as the data collection rule and the GPU log alerts refer to it: `az monitor log-analytics workspace table create --subscription {sub} --resource-group {rg} --workspace-name {ws} --name {table} --plan Analytics --columns {columns}`",
                table = gpu_monitoring::TABLE,
                name = ws.name,
                ws = shell_quote(&ws.name),
                sub = shell_quote(&ws.subscription),
                rg = shell_quote(&ws.resource_group),
            ),
            role_name: None,
            role_id: None,
            principal: None,
            scope: ws.id.clone(),
        });
    }
    if let Some(kv) = key_vault(s) {
        out.push(Prerequisite {
            kind: "role",
            what: format!(
                "grant the role Key Vault Secrets User (role id {}) to the principal id-{name}, the pool's user-assigned managed identity (its principal id is the deployment output identityPrincipalId), at the scope {}; the pool deploys without it, but reads no secret until it is granted",
                roles::KEY_VAULT_SECRETS_USER,
                kv.id
            ),
            role_name: Some("Key Vault Secrets User"),
            role_id: Some(roles::KEY_VAULT_SECRETS_USER),
            principal: Some(format!(
                "id-{name} (user-assigned managed identity; output identityPrincipalId)"
            )),
            scope: kv.id.clone(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn az_arguments_are_shell_quoted() {
        assert_eq!(shell_quote("rg-hub_01.x"), "rg-hub_01.x");
        assert_eq!(shell_quote("rg(hub)"), "'rg(hub)'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote(""), "''");
        // the table command of a workspace in a group with parentheses
        let s: WorkloadSpec = serde_json::from_value(serde_json::json!({
            "region": "eastus",
            "workload": {"type": "inference", "gpuMemoryGiB": 10},
            "capacity": {"max": 1},
            "monitoring": {"existingWorkspace": "/subscriptions/0000-1/resourceGroups/rg(hub)/providers/Microsoft.OperationalInsights/workspaces/log-central"}
        }))
        .unwrap();
        let p = prerequisites("p", &s, true);
        assert!(
            p[0].what
                .contains("--resource-group 'rg(hub)' --workspace-name log-central"),
            "{}",
            p[0].what
        );
    }

    #[test]
    fn ids_parse_case_insensitively_and_keep_their_spelling() {
        let r = parse_id(
            "/SUBSCRIPTIONS/0000-1/resourcegroups/rg-Hub/Providers/microsoft.operationalinsights/Workspaces/log-Central",
            WORKSPACE_TYPE,
        )
        .unwrap();
        assert_eq!(r.subscription, "0000-1");
        assert_eq!(r.resource_group, "rg-Hub");
        assert_eq!(r.name, "log-Central");
        // another type, a child resource, a missing segment
        for bad in [
            "/subscriptions/s/resourceGroups/g/providers/Microsoft.KeyVault/vaults/kv",
            "/subscriptions/s/resourceGroups/g/providers/Microsoft.OperationalInsights/workspaces/w/tables/t",
            "/subscriptions/s/resourceGroups//providers/Microsoft.OperationalInsights/workspaces/w",
            "subscriptions/s/resourceGroups/g/providers/Microsoft.OperationalInsights/workspaces/w",
        ] {
            assert_eq!(parse_id(bad, WORKSPACE_TYPE), None, "{bad}");
        }
    }
}
