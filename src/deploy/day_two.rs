//! What a redeployment reads before it starts, so that it does not ask Azure for what Azure
//! refuses to replace (issue 38):
//!
//! - the roles the Standby Pool provider's principal holds already where the template assigns
//!   them (granted by hand under another name): passed as
//!   [`crate::plan::standby::ROLES_HELD_PARAM`] so the template leaves them out, since Azure
//!   refuses a second assignment of the same role, principal and scope (`RoleAssignmentExists`);
//! - the standby pool's current `virtualMachineState`: "Transitioning between a Stopped
//!   (deallocated) state and a hibernated state is not supported [...] first transition to a
//!   running pool then update the provisioning state to hibernated" (Learn,
//!   standby-pools-update-delete, [`crate::facts::standby::STATE_TRANSITIONS`]). Deploy takes the
//!   pool through Running ([`super::pool::through_running`]); with `--no-pool-wait`, or when
//!   that fails, it stops with the steps by hand.
//!
//! The GPU telemetry remediation's per-deployment name is set in [`super::run`].

// `ArmError` carries the whole error tree; it is built once per failed call.
#![allow(clippy::result_large_err)]

use serde_json::Value;

use super::Request;
use super::context::Azure;
use crate::azure::standby_api::StandbyApi;
use crate::diag::failure::Failure;
use crate::facts::standby as facts;
use crate::plan::standby::{ROLES_HELD_PARAM, StandbyPool};
use crate::preflight::standby::{group_scope, held_where_the_template_assigns};

/// Leave out of `request` the provider roles the principal holds already where the template
/// assigns them. Says what it found on stderr; a failed read is a warning (the deployment may
/// then be refused with `RoleAssignmentExists`, and the warning says why).
pub fn roles_held(azure: &Azure, rg: &str, pool: &StandbyPool, request: &mut Request) {
    let Some(principal) = &pool.provider_principal_id else {
        return;
    };
    let scope = group_scope(azure.subscription, rg);
    let held = match azure
        .rt
        .block_on(azure.arm.role_assignments(&scope, principal))
    {
        Ok(h) => h,
        Err(e) => {
            eprintln!(
                "deploy: warning: could not read the role assignments of the Standby Pool provider's principal {principal} on {rg} ({}); a role it holds there under another name makes Azure refuse the template's (RoleAssignmentExists)",
                e.summary()
            );
            return;
        }
    };
    let left_out = held_where_the_template_assigns(pool, azure.subscription, rg, &held);
    if left_out.is_empty() {
        return;
    }
    let names: Vec<&str> = pool
        .group_roles()
        .iter()
        .filter(|r| left_out.contains(&r.role_id))
        .map(|r| r.role_name)
        .collect();
    eprintln!(
        "deploy: the Standby Pool provider's principal {principal} holds {} on {rg} already: the template leaves {} out ({ROLES_HELD_PARAM}; Azure refuses a second assignment of the same role, principal and scope, RoleAssignmentExists)",
        names.join(", "),
        if names.len() == 1 { "it" } else { "them" }
    );
    request.set_parameter(
        ROLES_HELD_PARAM,
        Value::Array(
            left_out
                .iter()
                .map(|g| Value::String((*g).to_string()))
                .collect(),
        ),
    );
}

/// The pool's current `virtualMachineState` in `rg` (`None`: no pool yet).
fn current_state(azure: &Azure, rg: &str, pool: &StandbyPool) -> Option<String> {
    let id = format!(
        "{}/providers/{}/{}",
        group_scope(azure.subscription, rg),
        pool.resource_type,
        pool.name
    );
    match azure
        .rt
        .block_on(azure.arm.get_resource(&id, pool.api_version))
    {
        Ok(v) => v?
            .pointer("/properties/virtualMachineState")
            .and_then(Value::as_str)
            .map(str::to_string),
        Err(e) => {
            eprintln!(
                "deploy: warning: could not read the standby pool {} ({}); a change between Deallocated and Hibernated is refused by Azure",
                pool.name,
                e.summary()
            );
            None
        }
    }
}

/// What a deployment Azure refuses needs first: the pool going from Deallocated to Hibernated or
/// back must go through Running. `Ok(Some(from))`: deploy sequences it ([`super::pool::through_running`],
/// after the confirmation); `Err` with the steps by hand when it may not (`sequence` false:
/// `--no-pool-wait`).
pub fn state_change(
    azure: &Azure,
    rg: &str,
    pool: &StandbyPool,
    spec_path: &std::path::Path,
    sequence: bool,
) -> Result<Option<String>, Failure> {
    let Some(from) = current_state(azure, rg, pool) else {
        return Ok(None);
    };
    if facts::state_change_supported(&from, pool.vm_state) {
        return Ok(None);
    }
    if !sequence {
        return Err(steps(rg, pool, &from, spec_path).cause(
            "--no-pool-wait: deploy does not take the pool through Running (that waits for its VMs)",
        ));
    }
    Ok(Some(from))
}

/// The refusal with the steps by hand through Running.
pub fn steps(rg: &str, pool: &StandbyPool, from: &str, spec_path: &std::path::Path) -> Failure {
    let to = pool.vm_state;
    let running = facts::VmState::Running.azure_name();
    Failure::usage(format!(
        "the standby pool {} is {from} and the spec asks for {to}: Azure does not change a pool between Deallocated and Hibernated (\"first transition to a running pool\", {})",
        pool.name,
        facts::STATE_TRANSITIONS.what
    ))
    .help(format!(
        "1. az standby-vm-pool update --resource-group {rg} --name {} --vm-state {running}\n2. wait until `az standby-vm-pool status --resource-group {rg} --name {}` counts every VM {running}\n3. gpuform deploy {} --resource-group {rg} (it sets {to})\nA running pool with autoscale is not supported by Azure (standby-pools-overview), so keep step 1 short; or delete the pool instead (az standby-vm-pool delete --resource-group {rg} --name {}), and the deployment creates it {to} with new VMs",
        pool.name,
        pool.name,
        spec_path.display(),
        pool.name
    ))
}
