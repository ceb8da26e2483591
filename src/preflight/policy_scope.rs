//! What the GPU telemetry policy reaches in the resource group (issue 38). A Flexible pool's
//! template assigns the built-in DeployIfNotExists DCR-association policy to the group
//! ([`crate::facts::monitoring::DCRA_VM_LINUX`] / `_WINDOWS`): its rule takes every VM of the
//! group whose OS disk is Linux (Windows), with `scopeToSupportedImages: false`, not only the
//! pool's. So preflight says what else it reaches: other VMs of that OS in the group (they are
//! associated with this pool's rule too, and any file of theirs matching its pattern lands in
//! the pool's table), and another assignment of the same definition that applies there
//! (another pool's: every VM then sends to both rules, rows and ingestion twice).

use crate::azure::ArmApi;
use crate::azure::group_api::{GroupAssignment, GroupVm};

use super::fetch::Fetch;
use super::plan::Plan;
use super::report::{Check, Status};

const ID: &str = "gpu-telemetry-policy-scope";
const TITLE: &str = "what the GPU telemetry policy reaches";

/// What preflight read about the group.
#[derive(Debug, Clone)]
pub struct Data {
    pub resource_group: String,
    pub vms: Fetch<Vec<GroupVm>>,
    pub assignments: Fetch<Vec<GroupAssignment>>,
}

/// Read the group's VMs and policy assignments (with `-g`, live, when the template assigns the
/// policy).
pub async fn gather(api: &dyn ArmApi, plan: &Plan) -> Option<Data> {
    plan.dcr_scope.as_ref()?;
    let rg = plan.resource_group.as_deref()?;
    let reads = api.group()?;
    let (vms, assignments) = futures::join!(reads.vms(rg), reads.policy_assignments(rg));
    Some(Data {
        resource_group: rg.to_string(),
        vms: Fetch::from_result(vms),
        assignments: Fetch::from_result(assignments),
    })
}

fn check(status: Status, message: String, fix: Option<String>) -> Check {
    Check {
        id: ID,
        title: TITLE,
        status,
        message,
        fix,
        quota: None,
        error: None,
    }
}

/// The check (`None` when the template assigns no policy).
pub fn scope_check(plan: &Plan, data: Option<&Data>) -> Option<Check> {
    let a = plan.dcr_scope.as_ref()?;
    let os = if a.windows { "Windows" } else { "Linux" };
    let Some(d) = data else {
        return Some(check(
            Status::Skipped,
            format!(
                "not checked (pass -g RG): the policy assignment {} associates every {os} VM of the resource group with this pool's GPU telemetry rule, not only the pool's",
                a.name
            ),
            None,
        ));
    };
    let rg = &d.resource_group;
    let mut notes = Vec::new();
    let mut unread = Vec::new();
    match &d.vms {
        Fetch::Got(vms) => {
            let others: Vec<&str> = vms
                .iter()
                .filter(|v| v.os.as_deref().is_none_or(|o| o.eq_ignore_ascii_case(os)))
                .filter(|v| {
                    !v.scale_set.as_deref().is_some_and(|s| {
                        s.rsplit('/')
                            .next()
                            .is_some_and(|n| n.eq_ignore_ascii_case(&a.vmss))
                    })
                })
                .map(|v| v.name.as_str())
                .collect();
            if !others.is_empty() {
                notes.push(format!(
                    "{} {os} VM{} of {rg} outside {} ({}) will be associated with this pool's rule too: a file of theirs matching its pattern lands in the pool's table",
                    others.len(),
                    if others.len() == 1 { "" } else { "s" },
                    a.vmss,
                    others.join(", ")
                ));
            }
        }
        Fetch::Failed(e) => unread.push(format!("the group's VMs ({})", e.summary())),
        Fetch::Skipped(why) => unread.push(why.clone()),
    }
    match &d.assignments {
        Fetch::Got(list) => {
            let same: Vec<&GroupAssignment> = list
                .iter()
                .filter(|x| {
                    x.definition_id
                        .to_ascii_lowercase()
                        .ends_with(&a.definition_id.to_ascii_lowercase())
                        && !x.name.eq_ignore_ascii_case(&a.name)
                })
                .collect();
            if !same.is_empty() {
                notes.push(format!(
                    "another assignment of the same policy applies to {rg} ({}): every {os} VM there is associated with both rules, so each row is sent, stored and billed twice",
                    same.iter()
                        .map(|x| format!("{} at {}", x.name, x.scope))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
        Fetch::Failed(e) => {
            unread.push(format!("the group's policy assignments ({})", e.summary()))
        }
        Fetch::Skipped(why) => unread.push(why.clone()),
    }
    let fix = "give each pool its own resource group: the policy's scope is the group".to_string();
    Some(if !notes.is_empty() {
        check(
            Status::Warn,
            format!(
                "the policy assignment {} associates every {os} VM of {rg} with this pool's GPU telemetry rule: {}",
                a.name,
                notes.join("; ")
            ),
            Some(fix),
        )
    } else if !unread.is_empty() {
        check(
            Status::Warn,
            format!(
                "the policy assignment {} associates every {os} VM of {rg}; could not read {}",
                a.name,
                unread.join(" or ")
            ),
            None,
        )
    } else {
        check(
            Status::Pass,
            format!(
                "the policy assignment {} associates every {os} VM of {rg}: today only the pool's, and no other assignment of the same policy applies",
                a.name
            ),
            None,
        )
    })
}
