//! The standby pool's checks (issue 23), read from the plan ([`StandbyPool`]):
//!
//! - `Microsoft.StandbyPool` registered, else `az provider register -n Microsoft.StandbyPool`
//!   ("Registration can take up to 30 minutes", [`facts::OVERVIEW`]);
//! - the provider's per-tenant principal: the spec's `providerPrincipalId`, else looked up in
//!   Microsoft Graph by the provider's app id ([`facts::PROVIDER_APP_ID`], an assumption: no
//!   Microsoft page gives it, so the output says so and a flag overrides it), and its roles on
//!   the resource group ([`facts::PROVIDER_ROLES`], [`facts::ROLE_ASSIGNMENTS_LIST`]): what is
//!   missing, with the `az role assignment create` line that grants it;
//! - pooled VMs count against vCPU quota ("Ensure you have enough quota to complete the standby
//!   pool creation", [`facts::FAQ`]): `maxReady` × the size's vCPUs on top of the scale set
//!   ([`super::plan::Plan::from_spec`] adds them to the peak).

use crate::azure::ArmApi;
use crate::azure::standby_api::ServicePrincipal;
use crate::facts::standby::{self as facts, ProviderRole};
use crate::plan::standby::StandbyPool;

use super::fetch::Fetch;
use super::report::{Check, Status};

pub const ID_PROVIDER: &str = "standby-provider";
pub const ID_ROLES: &str = "standby-roles";

/// Where the provider's principal came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrincipalFrom {
    /// `autoscale.standby.providerPrincipalId`: the template grants the roles itself.
    Spec,
    /// Microsoft Graph, by `app_id` (`assumed`: gpuform's default app id, not a sourced one).
    Graph { app_id: String, assumed: bool },
}

/// What preflight read about the provider's principal and its roles.
#[derive(Debug, Clone)]
pub struct RolesData {
    pub from: PrincipalFrom,
    pub subscription: String,
    pub resource_group: String,
    /// The principal (`Got(None)`: Graph has no service principal of that app id).
    pub principal: Fetch<Option<ServicePrincipal>>,
    /// The role definition ids assigned to it at the group; `None` when there is no principal.
    pub assignments: Option<Fetch<Vec<String>>>,
}

/// Ask Graph and ARM (nothing without a standby pool, a resource group, or a live API).
/// `app_id`: `--standby-provider-app-id`, else [`facts::PROVIDER_APP_ID`].
pub async fn gather(
    api: &dyn ArmApi,
    pool: Option<&StandbyPool>,
    rg: Option<&str>,
    app_id: Option<&str>,
) -> Option<RolesData> {
    let pool = pool?;
    let rg = rg?;
    let reads = api.standby()?;
    let (from, principal) = match &pool.provider_principal_id {
        Some(id) => (
            PrincipalFrom::Spec,
            Fetch::Got(Some(ServicePrincipal {
                id: id.clone(),
                app_id: None,
                display_name: None,
            })),
        ),
        None => {
            let app = app_id.unwrap_or(facts::PROVIDER_APP_ID).to_string();
            let got = reads.service_principals(&app).await;
            (
                PrincipalFrom::Graph {
                    assumed: app_id.is_none() && facts::PROVIDER_APP_ID_SOURCE.assumption,
                    app_id: app,
                },
                Fetch::from_result(got.map(|v| v.into_iter().next())),
            )
        }
    };
    let assignments = match &principal {
        Fetch::Got(Some(p)) => Some(Fetch::from_result(reads.role_assignments(rg, &p.id).await)),
        _ => None,
    };
    Some(RolesData {
        from,
        subscription: api.subscription().to_string(),
        resource_group: rg.to_string(),
        principal,
        assignments,
    })
}

/// The roles of [`facts::PROVIDER_ROLES`] that none of `granted` (role definition ids,
/// `.../roleDefinitions/<guid>`) grants.
pub fn missing_roles(granted: &[String]) -> Vec<&'static ProviderRole> {
    let granted: Vec<String> = granted
        .iter()
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

/// How to find the principal by hand.
fn lookup_hint() -> String {
    format!(
        "az ad sp list --display-name \"{}\" --query [0].id -o tsv, then az role assignment create for each role on the resource group",
        facts::PROVIDER_PRINCIPAL_NAME
    )
}

/// The roles check from what [`gather`] read (`None`: not looked up; the roles are listed).
pub fn roles_check(pool: &StandbyPool, data: Option<&RolesData>) -> Check {
    let names = facts::PROVIDER_ROLES
        .iter()
        .map(|r| r.name)
        .collect::<Vec<_>>()
        .join(", ");
    let who = facts::PROVIDER_PRINCIPAL_NAME;
    let check = |status, message: String, fix: Option<String>| Check {
        id: ID_ROLES,
        title: "Standby Pool provider roles",
        status,
        message,
        fix,
        quota: None,
        error: None,
    };
    let Some(d) = data else {
        return match &pool.provider_principal_id {
            Some(p) => check(
                Status::Pass,
                format!(
                    "the template grants {names} to {p} (autoscale.standby.providerPrincipalId) on the resource group; pass -g RG to see what it holds already"
                ),
                None,
            ),
            None => check(
                Status::Warn,
                format!(
                    "not checked (pass -g RG to look it up): grant '{who}' {names} on the resource group ({})",
                    facts::PERMISSIONS.what
                ),
                Some(lookup_hint()),
            ),
        };
    };
    let (sub, rg) = (d.subscription.as_str(), d.resource_group.as_str());
    let app_note = match &d.from {
        PrincipalFrom::Graph {
            app_id,
            assumed: true,
        } => format!(
            " (app id {app_id} is gpuform's assumption: no Microsoft page gives it; --standby-provider-app-id or GPUFORM_STANDBY_PROVIDER_APP_ID overrides it)"
        ),
        PrincipalFrom::Graph { app_id, .. } => format!(" (app id {app_id})"),
        PrincipalFrom::Spec => " (autoscale.standby.providerPrincipalId)".to_string(),
    };
    let p = match &d.principal {
        Fetch::Got(Some(p)) => p,
        Fetch::Got(None) => {
            return check(
                Status::Warn,
                format!(
                    "no service principal '{who}' in the tenant{app_note}: {} is not registered yet (its principal appears when it is), or the app id is not the provider's",
                    pool.provider
                ),
                Some(format!(
                    "az provider register -n {}; then {}",
                    pool.provider,
                    lookup_hint()
                )),
            );
        }
        Fetch::Failed(e) => {
            let mut c = check(
                Status::Warn,
                format!(
                    "could not look up '{who}' in Microsoft Graph ({}): its roles ({names}) are not checked",
                    e.summary()
                ),
                Some(format!(
                    "grant the identity {} or check by hand: {}",
                    crate::azure::standby_api::GRAPH_PERMISSION,
                    lookup_hint()
                )),
            );
            c.error = Some(e.clone());
            return c;
        }
        Fetch::Skipped(why) => return check(Status::Skipped, why.clone(), None),
    };
    let shown = match p.display_name.as_deref() {
        Some(n) if !n.eq_ignore_ascii_case(who) => {
            return check(
                Status::Warn,
                format!(
                    "the service principal of app id {} is '{n}', not '{who}'{app_note}: its roles are not checked",
                    p.app_id.as_deref().unwrap_or("?")
                ),
                Some(lookup_hint()),
            );
        }
        _ => format!("'{who}' ({})", p.id),
    };
    match &d.assignments {
        Some(Fetch::Got(list)) => {
            let missing = missing_roles(list);
            if missing.is_empty() {
                check(
                    Status::Pass,
                    format!("{shown} holds {names} on {rg}{app_note}"),
                    None,
                )
            } else if d.from == PrincipalFrom::Spec {
                let m: Vec<&str> = missing.iter().map(|r| r.name).collect();
                check(
                    Status::Pass,
                    format!(
                        "{shown} lacks {} on {rg} today; the template grants them (autoscale.standby.providerPrincipalId)",
                        m.join(", ")
                    ),
                    None,
                )
            } else {
                let m: Vec<&str> = missing.iter().map(|r| r.name).collect();
                check(
                    Status::Fail,
                    format!(
                        "{shown} lacks {} on {rg}{app_note}: the pool cannot create its VMs",
                        m.join(", ")
                    ),
                    Some(format!(
                        "{} (or set autoscale.standby.providerPrincipalId: {} and the template grants them)",
                        grant_fix(&missing, &p.id, sub, rg),
                        p.id
                    )),
                )
            }
        }
        // a group the deployment creates: nothing can be assigned on it yet
        Some(Fetch::Failed(e)) if e.status == Some(404) => {
            let all: Vec<&ProviderRole> = facts::PROVIDER_ROLES.iter().collect();
            let mut c = check(
                Status::Warn,
                format!(
                    "{rg} does not exist yet ({}): grant {shown} {names} on it once it does, before the pool is created",
                    e.summary()
                ),
                Some(format!(
                    "{} (or set autoscale.standby.providerPrincipalId: {} and the template grants them)",
                    grant_fix(&all, &p.id, sub, rg),
                    p.id
                )),
            );
            c.error = Some(e.clone());
            c
        }
        Some(Fetch::Failed(e)) => {
            let mut c = check(
                Status::Warn,
                format!(
                    "could not list the role assignments of {shown} on {rg} ({}): {names} not checked",
                    e.summary()
                ),
                Some(lookup_hint()),
            );
            c.error = Some(e.clone());
            c
        }
        _ => check(
            Status::Warn,
            format!("the role assignments of {shown} were not read"),
            Some(lookup_hint()),
        ),
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
    use crate::plan::standby::sample as pool;

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

    fn data(assignments: Vec<String>) -> RolesData {
        RolesData {
            from: PrincipalFrom::Graph {
                app_id: "a".into(),
                assumed: true,
            },
            subscription: "s".into(),
            resource_group: "rg".into(),
            principal: Fetch::Got(Some(ServicePrincipal {
                id: "p".into(),
                app_id: Some("a".into()),
                display_name: Some(facts::PROVIDER_PRINCIPAL_NAME.into()),
            })),
            assignments: Some(Fetch::Got(assignments)),
        }
    }

    #[test]
    fn missing_roles_are_listed_with_the_grant() {
        let all = facts::PROVIDER_ROLES;
        let one = vec![format!(
            "/subscriptions/s/providers/Microsoft.Authorization/roleDefinitions/{}",
            all[0].id
        )];
        let c = roles_check(&pool(), Some(&data(one)));
        assert_eq!(c.status, Status::Fail);
        let fix = c.fix.unwrap();
        assert_eq!(
            fix.matches("az role assignment create").count(),
            all.len() - 1
        );
        assert!(!fix.contains(all[0].name), "{fix}");
        assert!(c.message.contains("assumption"), "{}", c.message);
        let every = all
            .iter()
            .map(|r| format!("/x/roleDefinitions/{}", r.id))
            .collect();
        assert_eq!(
            roles_check(&pool(), Some(&data(every))).status,
            Status::Pass
        );
        assert_eq!(roles_check(&pool(), None).status, Status::Warn);
    }

    #[test]
    fn pooled_vms_count_against_quota() {
        assert_eq!(pool_vcpus(&pool(), 8), 16);
    }
}
