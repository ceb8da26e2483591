//! May the deploying identity create what a Flexible pool's GPU monitoring deploys (issue 20)?
//! The template assigns the built-in DeployIfNotExists DCR-association policy, grants its
//! managed identity the definition's roles and starts a remediation
//! (`plan::gpu_monitoring::dcr_policy`); each needs a write at the resource group
//! ([`crate::facts::authorization`]). Preflight reads the caller's permissions there
//! (Permissions_ListForResourceGroup) and names the missing actions and the role to ask for.

use crate::azure::ArmApi;
use crate::azure::landing_zone::Permission;
use crate::facts::authorization::{
    POLICY_ASSIGNMENT_WRITE, REMEDIATION_WRITE, ROLE_ASSIGNMENT_WRITE, allows,
};
use crate::facts::roles::{RESOURCE_POLICY_CONTRIBUTOR, ROLE_BASED_ACCESS_CONTROL_ADMINISTRATOR};

use super::fetch::Fetch;
use super::plan::Plan;
use super::report::{Check, Status};

const ID: &str = "policy-assignment-permissions";
const TITLE: &str = "permission to assign the GPU association policy";

/// The writes the template makes for the policy, and the built-in role that grants each.
pub const NEEDED: [(&str, &str); 3] = [
    (POLICY_ASSIGNMENT_WRITE, RESOURCE_POLICY_CONTRIBUTOR.name),
    (
        ROLE_ASSIGNMENT_WRITE,
        ROLE_BASED_ACCESS_CONTROL_ADMINISTRATOR.name,
    ),
    (REMEDIATION_WRITE, RESOURCE_POLICY_CONTRIBUTOR.name),
];

/// The caller's permissions at the plan's resource group, when the template assigns the policy.
pub async fn gather(api: &dyn ArmApi, plan: &Plan) -> Option<Fetch<Vec<Permission>>> {
    plan.dcr_policy.as_ref()?;
    let Some(rg) = plan.resource_group.as_deref() else {
        return Some(Fetch::Skipped(
            "no resource group given: with --resource-group preflight reads your permissions there"
                .into(),
        ));
    };
    Some(match api.landing_zone() {
        Some(lz) => Fetch::from_result(lz.permissions(rg).await),
        None => Fetch::Skipped("this ARM client cannot read permissions".into()),
    })
}

fn check(status: Status, message: String) -> Check {
    Check {
        id: ID,
        title: TITLE,
        status,
        message,
        fix: None,
        quota: None,
        error: None,
    }
}

/// The check, when the template assigns the policy (`None` otherwise).
pub fn checks(plan: &Plan, data: Option<&Fetch<Vec<Permission>>>) -> Option<Check> {
    let definition = plan.dcr_policy.as_deref()?;
    let rg = plan.resource_group.as_deref().unwrap_or("(not given)");
    let what = format!(
        "the template assigns the built-in policy \"{definition}\" to resource group {rg} (a Flexible scale set's VMs get the GPU data collection rule through it), grants its managed identity the definition's roles and starts a remediation"
    );
    let data = data?;
    Some(match data {
        Fetch::Skipped(why) => check(Status::Skipped, format!("{why} ({what})")),
        Fetch::Failed(e) if e.status == Some(404) => check(
            Status::Skipped,
            format!(
                "resource group {rg} does not exist yet, so your permissions there cannot be read: deploy creates it; you need {} on it ({what})",
                NEEDED.map(|(a, _)| a).join(", ")
            ),
        ),
        Fetch::Failed(e) => {
            let mut c = check(
                if e.status == Some(403) {
                    Status::Warn
                } else {
                    Status::Unknown
                },
                format!(
                    "could not check: could not {}: {} ({what}; it needs {})",
                    e.operation,
                    e.summary(),
                    NEEDED.map(|(a, _)| a).join(", ")
                ),
            );
            c.fix = Some(if e.status == Some(403) {
                format!(
                    "grant the deploying identity Reader on resource group {rg} (Microsoft.Authorization/permissions/read) so preflight can check, or make sure it holds {} and {} there",
                    RESOURCE_POLICY_CONTRIBUTOR.name, ROLE_BASED_ACCESS_CONTROL_ADMINISTRATOR.name
                )
            } else {
                e.help.clone().unwrap_or_default()
            });
            c.error = Some(e.clone());
            c
        }
        Fetch::Got(perms) => {
            let missing: Vec<(&str, &str)> = NEEDED
                .into_iter()
                .filter(|(action, _)| {
                    !perms
                        .iter()
                        .any(|p| allows(&p.actions, &p.not_actions, action))
                })
                .collect();
            if missing.is_empty() {
                check(
                    Status::Pass,
                    format!(
                        "you may: {} at resource group {rg}",
                        NEEDED.map(|(a, _)| a).join(", ")
                    ),
                )
            } else {
                let mut roles: Vec<&str> = missing.iter().map(|(_, r)| *r).collect();
                roles.dedup();
                roles.sort_unstable();
                roles.dedup();
                let mut c = check(
                    Status::Fail,
                    format!(
                        "your identity may not {} at resource group {rg}: {what}, so the deployment would fail",
                        missing
                            .iter()
                            .map(|(a, _)| *a)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
                c.fix = Some(format!(
                    "ask for {} on resource group {rg} (or Owner); or use compute.orchestration: uniform (its association reaches every VM without a policy), or monitoring.gpu.enabled: false",
                    roles.join(" and ")
                ));
                c
            }
        }
    })
}
