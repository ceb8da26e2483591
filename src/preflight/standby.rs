//! The standby pool's checks (issue 23), read from the plan ([`StandbyPool`]):
//!
//! - `Microsoft.StandbyPool` registered, else `az provider register -n Microsoft.StandbyPool`
//!   ("Registration can take up to 30 minutes", [`facts::OVERVIEW`]);
//! - the provider's per-tenant principal: the spec's `providerPrincipalId`, else looked up in
//!   Microsoft Graph by the provider's app id ([`facts::PROVIDER_APP_ID`], an assumption: no
//!   Microsoft page gives it, so the output says so and a flag overrides it), and its roles on
//!   the resource group ([`facts::PROVIDER_ROLES`], [`facts::ROLE_ASSIGNMENTS_LIST`], and
//!   Reader on the disk encryption set with customer-managed keys,
//!   [`facts::DISK_ENCRYPTION_SET_ROLE`]): what is missing, with the `az role assignment create`
//!   line that grants it; with the spec's principal, the roles it holds already where the
//!   template assigns them (granted by hand: Azure refuses a second assignment under another name,
//!   `RoleAssignmentExists`, so deploy leaves them out);
//! - its roles beyond the group ([`StandbyPool::scope_grants`]: an existing subnet in another
//!   group, the Compute Gallery of `image.id`), which no template of the group can grant;
//! - pooled VMs count against vCPU quota ("Ensure you have enough quota to complete the standby
//!   pool creation", [`facts::FAQ`]): `maxReady` × the size's vCPUs on top of the scale set
//!   ([`super::plan::Plan::from_spec`] adds them to the peak).

use crate::azure::ArmApi;
use crate::azure::standby_api::{HeldRole, ServicePrincipal};
use crate::facts::standby as facts;
use crate::plan::standby::{
    ProviderRoleAssignment, ROLES_HELD_PARAM, ScopeGrant, StandbyPool, az_grant, principal_arg,
};

use super::fetch::Fetch;
use super::report::{Check, Status};

pub const ID_PROVIDER: &str = "standby-provider";
pub const ID_ROLES: &str = "standby-roles";
pub const ID_SCOPES: &str = "standby-scopes";

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
    /// Its role assignments at, above or below the group; `None` when there is no principal.
    pub assignments: Option<Fetch<Vec<HeldRole>>>,
    /// Its role assignments at each scope beyond the group ([`StandbyPool::scope_grants`]), in
    /// their order (one read per distinct scope); empty without a principal.
    pub beyond: Vec<Fetch<Vec<HeldRole>>>,
}

/// `/subscriptions/{sub}/resourceGroups/{rg}`.
pub fn group_scope(sub: &str, rg: &str) -> String {
    format!("/subscriptions/{sub}/resourceGroups/{rg}")
}

/// Where the template assigns `role`: the group, or (the disk encryption set's role) the set.
pub fn template_scope(pool: &StandbyPool, role: &ProviderRoleAssignment, group: &str) -> String {
    match (&pool.des_role, &pool.des_name) {
        (Some(d), Some(des)) if d.sym == role.sym => {
            format!("{group}/providers/Microsoft.Compute/diskEncryptionSets/{des}")
        }
        _ => group.to_string(),
    }
}

/// Does an assignment at `held` reach `scope` (the same scope or one above it)?
fn reaches(held: &str, scope: &str) -> bool {
    let (h, s) = (
        held.trim_end_matches('/').to_ascii_lowercase(),
        scope.trim_end_matches('/').to_ascii_lowercase(),
    );
    !h.is_empty() && (s == h || s.starts_with(&format!("{h}/")))
}

/// Is `role` (a GUID) granted at `scope` by one of `held`?
fn holds(held: &[HeldRole], role: &str, scope: &str) -> bool {
    held.iter()
        .any(|h| h.role_guid() == role.to_ascii_lowercase() && reaches(&h.scope, scope))
}

/// The role GUIDs the principal holds exactly where the template would assign them (granted by
/// hand): the template must leave them out ([`ROLES_HELD_PARAM`]), as Azure refuses a second
/// assignment of the same role, principal and scope under another name (`RoleAssignmentExists`).
/// An assignment the template itself made earlier is the same name, and leaving it out of an
/// Incremental deployment keeps it.
pub fn held_where_the_template_assigns(
    pool: &StandbyPool,
    sub: &str,
    rg: &str,
    held: &[HeldRole],
) -> Vec<&'static str> {
    let group = group_scope(sub, rg);
    pool.group_roles()
        .into_iter()
        .filter(|r| {
            let at = template_scope(pool, r, &group);
            held.iter()
                .any(|h| h.role_guid() == r.role_id.to_ascii_lowercase() && h.at(&at))
        })
        .map(|r| r.role_id)
        .collect()
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
    let group = group_scope(api.subscription(), rg);
    let (assignments, beyond) = match &principal {
        Fetch::Got(Some(p)) => {
            let at_group = Fetch::from_result(reads.role_assignments(&group, &p.id).await);
            let mut beyond: Vec<Fetch<Vec<HeldRole>>> = Vec::new();
            let mut read: Vec<(String, Fetch<Vec<HeldRole>>)> = Vec::new();
            for g in &pool.scope_grants {
                let got = match read.iter().find(|(s, _)| s.eq_ignore_ascii_case(&g.scope)) {
                    Some((_, f)) => f.clone(),
                    None => {
                        let f = Fetch::from_result(reads.role_assignments(&g.scope, &p.id).await);
                        read.push((g.scope.clone(), f.clone()));
                        f
                    }
                };
                beyond.push(got);
            }
            (Some(at_group), beyond)
        }
        _ => (None, Vec::new()),
    };
    Some(RolesData {
        from,
        subscription: api.subscription().to_string(),
        resource_group: rg.to_string(),
        principal,
        assignments,
        beyond,
    })
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

fn check(
    id: &'static str,
    title: &'static str,
    status: Status,
    message: String,
    fix: Option<String>,
) -> Check {
    Check {
        id,
        title,
        status,
        message,
        fix,
        quota: None,
        error: None,
    }
}

/// The app id's note for messages.
fn app_note(d: &RolesData) -> String {
    match &d.from {
        PrincipalFrom::Graph {
            app_id,
            assumed: true,
        } => format!(
            " (app id {app_id} is gpuform's assumption: no Microsoft page gives it; --standby-provider-app-id or GPUFORM_STANDBY_PROVIDER_APP_ID overrides it)"
        ),
        PrincipalFrom::Graph { app_id, .. } => format!(" (app id {app_id})"),
        PrincipalFrom::Spec => " (autoscale.standby.providerPrincipalId)".to_string(),
    }
}

/// The roles check from what [`gather`] read (`None`: not looked up; the roles are listed).
pub fn roles_check(pool: &StandbyPool, data: Option<&RolesData>) -> Check {
    let all = pool.group_roles();
    let names = all
        .iter()
        .map(|r| r.role_name)
        .collect::<Vec<_>>()
        .join(", ");
    let who = facts::PROVIDER_PRINCIPAL_NAME;
    let check = |status, message: String, fix: Option<String>| {
        check(
            ID_ROLES,
            "Standby Pool provider roles",
            status,
            message,
            fix,
        )
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
    let group = group_scope(sub, rg);
    let app_note = app_note(d);
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
    let grant = |roles: &[&ProviderRoleAssignment]| {
        roles
            .iter()
            .map(|r| az_grant(&p.id, r.role_name, &template_scope(pool, r, &group)))
            .collect::<Vec<_>>()
            .join("; ")
    };
    match &d.assignments {
        Some(Fetch::Got(list)) => {
            let missing: Vec<&ProviderRoleAssignment> = all
                .iter()
                .copied()
                .filter(|r| !holds(list, r.role_id, &template_scope(pool, r, &group)))
                .collect();
            let m: Vec<&str> = missing.iter().map(|r| r.role_name).collect();
            if d.from == PrincipalFrom::Spec {
                // the template grants them: what it must not grant twice
                let held = held_where_the_template_assigns(pool, sub, rg, list);
                if held.is_empty() {
                    return check(
                        Status::Pass,
                        if missing.is_empty() {
                            format!("{shown} holds {names} on {rg}{app_note}")
                        } else {
                            format!(
                                "{shown} lacks {} on {rg} today; the template grants them (autoscale.standby.providerPrincipalId)",
                                m.join(", ")
                            )
                        },
                        None,
                    );
                }
                let held_names: Vec<String> = all
                    .iter()
                    .filter(|r| held.contains(&r.role_id))
                    .map(|r| {
                        let at = template_scope(pool, r, &group);
                        let name = list
                            .iter()
                            .find(|h| h.role_guid() == r.role_id && h.at(&at))
                            .map(|h| h.name.as_str())
                            .unwrap_or("?");
                        format!("{} (assignment {name})", r.role_name)
                    })
                    .collect();
                let json = format!(
                    "[{}]",
                    held.iter()
                        .map(|g| format!("\"{g}\""))
                        .collect::<Vec<_>>()
                        .join(",")
                );
                return check(
                    Status::Warn,
                    format!(
                        "{shown} holds {} on {rg} already, where the template assigns {} too: unless those are the template's own assignments from an earlier deployment, Azure refuses a second assignment of the same role, principal and scope under another name (RoleAssignmentExists); gpuform deploy leaves the held roles out (parameter {ROLES_HELD_PARAM})",
                        held_names.join(", "),
                        if held.len() == 1 { "it" } else { "them" }
                    ),
                    Some(format!(
                        "deploying with az: az deployment group create -g {rg} --template-file main.bicep --parameters main.bicepparam --parameters {ROLES_HELD_PARAM}='{json}' (or remove autoscale.standby.providerPrincipalId: the roles are granted)"
                    )),
                );
            }
            if missing.is_empty() {
                check(
                    Status::Pass,
                    format!("{shown} holds {names} on {rg}{app_note}"),
                    None,
                )
            } else {
                check(
                    Status::Fail,
                    format!(
                        "{shown} lacks {} on {rg}{app_note}: the pool cannot create its VMs",
                        m.join(", ")
                    ),
                    Some(format!(
                        "{} (or set autoscale.standby.providerPrincipalId: {} and the template grants them)",
                        grant(&missing),
                        p.id
                    )),
                )
            }
        }
        // a group the deployment creates: nothing can be assigned on it yet
        Some(Fetch::Failed(e)) if e.status == Some(404) => {
            let mut c = check(
                Status::Warn,
                format!(
                    "{rg} does not exist yet ({}): grant {shown} {names} on it once it does, before the pool is created",
                    e.summary()
                ),
                Some(format!(
                    "{} (or set autoscale.standby.providerPrincipalId: {} and the template grants them)",
                    grant(&all),
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

/// The grants beyond the pool's group ([`StandbyPool::scope_grants`]): an existing subnet in
/// another group, the Compute Gallery of `image.id`. The template cannot make them; a missing one
/// fails with its `az` line. `None` when the pool needs none.
pub fn scopes_check(pool: &StandbyPool, data: Option<&RolesData>) -> Option<Check> {
    if pool.scope_grants.is_empty() {
        return None;
    }
    let check = |status, message: String, fix: Option<String>| {
        check(
            ID_SCOPES,
            "Standby Pool provider roles beyond the group",
            status,
            message,
            fix,
        )
    };
    let listed = |grants: &[&ScopeGrant]| {
        grants
            .iter()
            .map(|g| format!("{} on {} ({})", g.role_name, g.what, g.scope))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let all: Vec<&ScopeGrant> = pool.scope_grants.iter().collect();
    let principal = data.and_then(|d| match &d.principal {
        Fetch::Got(Some(p)) => Some(p.id.clone()),
        _ => None,
    });
    let lines = |grants: &[&ScopeGrant], p: &str| {
        grants
            .iter()
            .map(|g| g.az_line(p))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let Some(p) = principal else {
        let p = principal_arg(pool.provider_principal_id.as_deref());
        return Some(check(
            Status::Warn,
            format!(
                "not checked (the provider's principal was not found or -g RG not given): the pool needs {}; the template's grants on its resource group do not reach there",
                listed(&all)
            ),
            Some(lines(&all, &p)),
        ));
    };
    let d = data.expect("a principal comes from the data");
    let mut missing: Vec<&ScopeGrant> = Vec::new();
    let mut unread: Vec<(&ScopeGrant, String)> = Vec::new();
    for (g, f) in pool.scope_grants.iter().zip(&d.beyond) {
        match f {
            Fetch::Got(list) if holds(list, g.role_id, &g.scope) => {}
            Fetch::Got(_) => missing.push(g),
            Fetch::Failed(e) => unread.push((g, e.summary())),
            Fetch::Skipped(why) => unread.push((g, why.clone())),
        }
    }
    Some(if !missing.is_empty() {
        check(
            Status::Fail,
            format!(
                "'{}' ({p}) lacks {}: the pool cannot build its VMs (the template's grants on the resource group do not reach there)",
                facts::PROVIDER_PRINCIPAL_NAME,
                listed(&missing)
            ),
            Some(lines(&missing, &p)),
        )
    } else if !unread.is_empty() {
        let gs: Vec<&ScopeGrant> = unread.iter().map(|(g, _)| *g).collect();
        check(
            Status::Warn,
            format!(
                "could not read the role assignments of '{}' ({p}) on {} ({}): not checked",
                facts::PROVIDER_PRINCIPAL_NAME,
                listed(&gs),
                unread
                    .iter()
                    .map(|(_, e)| e.as_str())
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            Some(lines(&gs, &p)),
        )
    } else {
        check(
            Status::Pass,
            format!(
                "'{}' ({p}) holds {}",
                facts::PROVIDER_PRINCIPAL_NAME,
                listed(&all)
            ),
            None,
        )
    })
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

    /// The sample pool with the provider's roles (and the disk encryption set's when `cmk`).
    fn roles_pool(cmk: bool) -> StandbyPool {
        let spec = |des: Option<&str>| {
            let mut p = pool();
            p.provider_roles = facts::PROVIDER_ROLES
                .iter()
                .enumerate()
                .map(|(i, r)| ProviderRoleAssignment {
                    sym: format!("standbyProviderRole{i}"),
                    role_name: r.name,
                    role_id: r.id,
                    description: String::new(),
                })
                .collect();
            if let Some(d) = des {
                let r = facts::DISK_ENCRYPTION_SET_ROLE;
                p.des_role = Some(ProviderRoleAssignment {
                    sym: "standbyProviderDesRole".into(),
                    role_name: r.name,
                    role_id: r.id,
                    description: String::new(),
                });
                p.des_name = Some(d.into());
            }
            p
        };
        spec(cmk.then_some("des-x"))
    }

    fn held(role: &str, scope: &str, name: &str) -> HeldRole {
        HeldRole {
            role_definition_id: format!(
                "/subscriptions/s/providers/Microsoft.Authorization/roleDefinitions/{role}"
            ),
            scope: scope.into(),
            name: name.into(),
        }
    }

    fn data(from: PrincipalFrom, assignments: Vec<HeldRole>) -> RolesData {
        RolesData {
            from,
            subscription: "s".into(),
            resource_group: "rg".into(),
            principal: Fetch::Got(Some(ServicePrincipal {
                id: "p".into(),
                app_id: Some("a".into()),
                display_name: Some(facts::PROVIDER_PRINCIPAL_NAME.into()),
            })),
            assignments: Some(Fetch::Got(assignments)),
            beyond: Vec::new(),
        }
    }

    fn graph() -> PrincipalFrom {
        PrincipalFrom::Graph {
            app_id: "a".into(),
            assumed: true,
        }
    }

    const RG: &str = "/subscriptions/s/resourceGroups/rg";

    #[test]
    fn missing_roles_are_listed_with_the_grant() {
        let all = facts::PROVIDER_ROLES;
        let one = vec![held(all[0].id, RG, "n0")];
        let c = roles_check(&roles_pool(false), Some(&data(graph(), one)));
        assert_eq!(c.status, Status::Fail);
        let fix = c.fix.unwrap();
        assert_eq!(
            fix.matches("az role assignment create").count(),
            all.len() - 1
        );
        assert!(!fix.contains(all[0].name), "{fix}");
        assert!(c.message.contains("assumption"), "{}", c.message);
        let every = all.iter().map(|r| held(r.id, RG, "n")).collect();
        assert_eq!(
            roles_check(&roles_pool(false), Some(&data(graph(), every))).status,
            Status::Pass
        );
        assert_eq!(roles_check(&pool(), None).status, Status::Warn);
    }

    #[test]
    fn a_role_on_a_child_resource_does_not_grant_the_group() {
        let child = facts::PROVIDER_ROLES
            .iter()
            .map(|r| {
                held(
                    r.id,
                    &format!("{RG}/providers/Microsoft.Network/virtualNetworks/v"),
                    "n",
                )
            })
            .collect();
        let c = roles_check(&roles_pool(false), Some(&data(graph(), child)));
        assert_eq!(c.status, Status::Fail, "{}", c.message);
        // inherited from the subscription: granted
        let sub = facts::PROVIDER_ROLES
            .iter()
            .map(|r| held(r.id, "/subscriptions/s", "n"))
            .collect();
        let c = roles_check(&roles_pool(false), Some(&data(graph(), sub)));
        assert_eq!(c.status, Status::Pass, "{}", c.message);
    }

    #[test]
    fn customer_managed_keys_need_the_disk_encryption_set_read() {
        let every: Vec<HeldRole> = facts::PROVIDER_ROLES
            .iter()
            .map(|r| held(r.id, RG, "n"))
            .collect();
        let c = roles_check(&roles_pool(true), Some(&data(graph(), every.clone())));
        assert_eq!(c.status, Status::Fail);
        let fix = c.fix.unwrap();
        assert!(
            fix.contains(&format!(
                "--role \"Reader\" --scope {RG}/providers/Microsoft.Compute/diskEncryptionSets/des-x"
            )),
            "{fix}"
        );
    }

    #[test]
    fn roles_granted_by_hand_under_another_name_are_seen_with_the_spec_principal() {
        let mut p = roles_pool(false);
        p.provider_principal_id = Some("p".into());
        let hand = vec![held(
            facts::PROVIDER_ROLES[1].id,
            RG,
            "0a2b7dc5-8eb4-4970-9418-694f83a6c164",
        )];
        let c = roles_check(&p, Some(&data(PrincipalFrom::Spec, hand.clone())));
        assert_eq!(c.status, Status::Warn, "{}", c.message);
        assert!(c.message.contains("RoleAssignmentExists"), "{}", c.message);
        assert!(
            c.message.contains("0a2b7dc5-8eb4-4970-9418-694f83a6c164"),
            "{}",
            c.message
        );
        let fix = c.fix.unwrap();
        assert!(
            fix.contains(&format!(
                "{ROLES_HELD_PARAM}='[\"{}\"]'",
                facts::PROVIDER_ROLES[1].id
            )),
            "{fix}"
        );
        assert_eq!(
            held_where_the_template_assigns(&p, "s", "rg", &hand),
            vec![facts::PROVIDER_ROLES[1].id]
        );
        // held on the subscription, not where the template assigns: no conflict
        let above = vec![held(facts::PROVIDER_ROLES[1].id, "/subscriptions/s", "x")];
        assert!(held_where_the_template_assigns(&p, "s", "rg", &above).is_empty());
        assert_eq!(
            roles_check(&p, Some(&data(PrincipalFrom::Spec, above))).status,
            Status::Pass
        );
    }

    #[test]
    fn pooled_vms_count_against_quota() {
        assert_eq!(pool_vcpus(&pool(), 8), 16);
    }
}
