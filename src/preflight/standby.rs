//! The standby pool's checks (issue 23), read from the plan ([`StandbyPool`]):
//!
//! - `Microsoft.StandbyPool` registered, else `az provider register -n Microsoft.StandbyPool`
//!   ("Registration can take up to 30 minutes", [`facts::OVERVIEW`]);
//! - the provider's per-tenant principal, looked up in Microsoft Graph by its display name
//!   ("Search for **Standby Pool Resource Provider**", [`facts::PERMISSIONS`]; no appId is
//!   documented there, so the display name is what gpuform asks for), and the roles it needs
//!   on the resource group ([`facts::PROVIDER_ROLES`]): what is missing, with the
//!   `az role assignment create` line that grants it;
//! - pooled VMs count against vCPU quota ("Ensure you have enough quota to complete the standby
//!   pool creation", [`facts::FAQ`]): `maxReady` × the size's vCPUs on top of the scale set.

use serde_json::Value;

use crate::facts::standby::{self as facts, ProviderRole};
use crate::plan::standby::StandbyPool;

use super::report::{Check, Status};

pub const ID_PROVIDER: &str = "standby-provider";
pub const ID_ROLES: &str = "standby-roles";

/// Graph's relative request for the provider's principal (`GET {graph}/v1.0/...`).
pub fn principal_query() -> String {
    format!(
        "/v1.0/servicePrincipals?$filter=displayName eq '{}'&$select=id,appId,displayName",
        facts::PROVIDER_PRINCIPAL_NAME
    )
}

/// The principal's object id from Graph's answer (`{"value": [{"id": ...}]}`).
pub fn principal_from_graph(v: &Value) -> Option<String> {
    v.get("value")?
        .as_array()?
        .iter()
        .find(|p| {
            p.get("displayName").and_then(Value::as_str) == Some(facts::PROVIDER_PRINCIPAL_NAME)
                || p.get("displayName").is_none()
        })?
        .get("id")?
        .as_str()
        .map(str::to_string)
}

/// ARM's request for the principal's role assignments at (and above) the resource group.
pub fn assignments_path(sub: &str, rg: &str, principal: &str) -> String {
    format!(
        "/subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.Authorization/roleAssignments?$filter=principalId eq '{principal}'"
    )
}

/// The roles of [`facts::PROVIDER_ROLES`] that no assignment in `list` (ARM's
/// `{"value": [{"properties": {"roleDefinitionId": ".../roleDefinitions/<guid>", ...}}]}`)
/// grants.
pub fn missing_roles(list: &Value) -> Vec<&'static ProviderRole> {
    let granted: Vec<String> = list
        .get("value")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|a| {
            a.pointer("/properties/roleDefinitionId")
                .and_then(Value::as_str)
        })
        .map(|id| id.rsplit('/').next().unwrap_or("").to_ascii_lowercase())
        .collect();
    facts::PROVIDER_ROLES
        .iter()
        .filter(|r| !granted.iter().any(|g| *g == r.id.to_ascii_lowercase()))
        .collect()
}

/// The `az` lines that grant `missing` to `principal` on the group.
pub fn grant_fix(missing: &[&ProviderRole], principal: &str, sub: &str, rg: &str) -> String {
    missing
        .iter()
        .map(|r| {
            format!(
                "az role assignment create --assignee-object-id {principal} --assignee-principal-type ServicePrincipal --role \"{}\" --scope /subscriptions/{sub}/resourceGroups/{rg}",
                r.name
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The provider's registration check from its state (`None`: not asked).
pub fn provider_check(pool: &StandbyPool, state: Option<&str>) -> Check {
    let title = "Standby Pool resource provider";
    let (status, message, fix) = match state {
        Some(s) if s.eq_ignore_ascii_case("Registered") => (
            Status::Pass,
            format!("{} is Registered", pool.provider),
            None,
        ),
        Some(s) => (
            Status::Fail,
            format!(
                "{} is {s}: the standby pool {} cannot be created",
                pool.provider, pool.name
            ),
            Some(format!(
                "az provider register -n {} (registration can take up to {} minutes: {})",
                pool.provider,
                facts::REGISTRATION_MINUTES,
                facts::OVERVIEW.what
            )),
        ),
        None => (
            Status::Skipped,
            format!("{}'s registration was not read", pool.provider),
            None,
        ),
    };
    Check {
        id: ID_PROVIDER,
        title,
        status,
        message,
        fix,
        quota: None,
        error: None,
    }
}

/// The roles check: `principal` from Graph (or the spec), `assignments` from ARM; `None` where
/// the lookup was not possible (then the roles are listed to check by hand).
pub fn roles_check(
    pool: &StandbyPool,
    principal: Option<&str>,
    assignments: Option<&Value>,
    sub: &str,
    rg: &str,
) -> Check {
    let title = "Standby Pool provider roles";
    let names = facts::PROVIDER_ROLES
        .iter()
        .map(|r| r.name)
        .collect::<Vec<_>>()
        .join(", ");
    let (status, message, fix) = match (principal, assignments) {
        (Some(p), Some(list)) => {
            let missing = missing_roles(list);
            if missing.is_empty() {
                (
                    Status::Pass,
                    format!("'{}' ({p}) holds {names}", facts::PROVIDER_PRINCIPAL_NAME),
                    None,
                )
            } else {
                let m = missing.iter().map(|r| r.name).collect::<Vec<_>>();
                (
                    Status::Fail,
                    format!(
                        "'{}' ({p}) lacks {} on {rg}: the pool cannot create its VMs",
                        facts::PROVIDER_PRINCIPAL_NAME,
                        m.join(", ")
                    ),
                    Some(grant_fix(&missing, p, sub, rg)),
                )
            }
        }
        (None, Some(_)) => (
            Status::Fail,
            format!(
                "no service principal named '{}' in the tenant: register {} first",
                facts::PROVIDER_PRINCIPAL_NAME,
                pool.provider
            ),
            Some(format!("az provider register -n {}", pool.provider)),
        ),
        _ => (
            Status::Warn,
            format!(
                "not checked: grant '{}' {names} on the resource group ({})",
                facts::PROVIDER_PRINCIPAL_NAME,
                facts::PERMISSIONS.what
            ),
            Some(format!(
                "az ad sp list --display-name \"{}\" --query [0].id -o tsv, then az role assignment create for each role",
                facts::PROVIDER_PRINCIPAL_NAME
            )),
        ),
    };
    Check {
        id: ID_ROLES,
        title,
        status,
        message,
        fix,
        quota: None,
        error: None,
    }
}

/// vCPUs the pool's VMs hold against quota: `maxReady` × vCPUs (pooled VMs count against the
/// regional and family quota whatever their state).
pub fn pool_vcpus(pool: &StandbyPool, vcpus_per_vm: u32) -> u32 {
    if pool.counts_against_quota {
        pool.max_ready * vcpus_per_vm
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pool() -> StandbyPool {
        let s = crate::spec::standby::StandbyState::Deallocated;
        let vm = s.vm_state();
        StandbyPool {
            name: "sbp-x".into(),
            resource_type: facts::RESOURCE_TYPE,
            api_version: facts::API_VERSION,
            max_ready: 2,
            min_ready: 2,
            state: s,
            vm_state: vm.azure_name(),
            hibernation: false,
            start_seconds: 180,
            start_assumed: true,
            bills_compute: false,
            reserves_capacity: false,
            counts_against_quota: true,
            provider_roles: vec![],
            provider_principal_id: None,
            provider: facts::PROVIDER,
        }
    }

    #[test]
    fn an_unregistered_provider_fails_with_the_fix_and_the_wait() {
        let c = provider_check(&pool(), Some("NotRegistered"));
        assert_eq!(c.status, Status::Fail);
        let fix = c.fix.unwrap();
        assert!(
            fix.starts_with("az provider register -n Microsoft.StandbyPool"),
            "{fix}"
        );
        assert!(fix.contains("30 minutes"), "{fix}");
        assert_eq!(
            provider_check(&pool(), Some("Registered")).status,
            Status::Pass
        );
    }

    #[test]
    fn missing_roles_are_listed_with_the_grant() {
        let all = facts::PROVIDER_ROLES;
        let one = json!({"value": [{"properties": {
            "roleDefinitionId": format!("/subscriptions/s/providers/Microsoft.Authorization/roleDefinitions/{}", all[0].id),
            "principalId": "p"}}]});
        let c = roles_check(&pool(), Some("p"), Some(&one), "s", "rg");
        assert_eq!(c.status, Status::Fail);
        let fix = c.fix.unwrap();
        assert_eq!(
            fix.matches("az role assignment create").count(),
            all.len() - 1
        );
        assert!(!fix.contains(all[0].name), "{fix}");
        let every = json!({"value": all.iter().map(|r| json!({"properties": {
            "roleDefinitionId": format!("/x/roleDefinitions/{}", r.id)}})).collect::<Vec<_>>()});
        assert_eq!(
            roles_check(&pool(), Some("p"), Some(&every), "s", "rg").status,
            Status::Pass
        );
        assert_eq!(
            roles_check(&pool(), None, None, "s", "rg").status,
            Status::Warn
        );
    }

    #[test]
    fn the_principal_comes_from_graphs_answer() {
        let v = json!({"value": [{"id": "0d1c", "appId": "a", "displayName": facts::PROVIDER_PRINCIPAL_NAME}]});
        assert_eq!(principal_from_graph(&v).as_deref(), Some("0d1c"));
        assert_eq!(principal_from_graph(&json!({"value": []})), None);
        assert!(principal_query().contains("displayName eq 'Standby Pool Resource Provider'"));
    }

    #[test]
    fn pooled_vms_count_against_quota() {
        assert_eq!(pool_vcpus(&pool(), 8), 16);
    }
}
