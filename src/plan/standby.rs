//! The standby pool (`autoscale.standby`, issue 23): a `Microsoft.StandbyPool/
//! standbyVirtualMachinePools` attached to the Flexible scale set, and, when the spec gives the
//! provider's principal, its role assignments on the resource group.
//!
//! Decisions:
//! - `minReadyCapacity` = `maxReadyCapacity` unless the spec says otherwise: Azure keeps
//!   `max(maxReady - instances, minReady)` VMs in the pool, so with its default minimum (0) the
//!   pool is empty exactly when the scale set is at its peak ([`crate::facts::standby::pool_size`]).
//! - The roles the Standby Pool resource provider needs are granted to a per-tenant principal
//!   whose object id a template cannot know. With `autoscale.standby.providerPrincipalId` the
//!   template assigns them on the resource group (the scope of everything the pool creates:
//!   VMs, disks, NICs, the identity, a VNet of gpuform's own); without it, validation
//!   (`standby-provider-roles`) and the template's comment list them to grant before deploying.
//!   A landing zone's subnet in another group needs Network Contributor there as well.
//! - Hibernated pools: the scale set is rendered with `additionalCapabilities.hibernationEnabled`
//!   (Learn, hibernate-resume: "Hibernation must be enabled on your VM").
//!
//! What `simulate`, `cost` and `status` read: [`StandbyPool`]'s fields (see each one) and
//! [`StandbyPool::pool_size`].

use serde::Serialize;

use crate::facts::standby::{self as facts, VmState};
use crate::spec::model::WorkloadSpec;
use crate::spec::standby::StandbyState;

/// A role the template grants the Standby Pool resource provider's principal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderRoleAssignment {
    /// Symbolic name in the Bicep file.
    pub sym: String,
    pub role_name: &'static str,
    pub role_id: &'static str,
    pub description: String,
}

pub use crate::spec::standby::{ScopeGrant, az_grant, gallery_of, principal_arg, scope_grants};

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StandbyPool {
    /// Resource name (3-24 characters of `[a-zA-Z0-9-]`).
    pub name: String,
    pub resource_type: &'static str,
    pub api_version: &'static str,
    /// `elasticityProfile.maxReadyCapacity`.
    pub max_ready: u32,
    /// `elasticityProfile.minReadyCapacity` (the spec's, else `max_ready`).
    pub min_ready: u32,
    /// The spec's state (`deallocated`, `hibernated`, `running`).
    #[serde(skip)]
    pub state: StandbyState,
    /// `virtualMachineState` as Azure spells it (`Deallocated`, ...).
    pub vm_state: &'static str,
    /// The scale set must allow hibernation (`additionalCapabilities.hibernationEnabled`).
    pub hibernation: bool,
    /// Seconds from a scale-out to a pooled VM running: 0 for a running pool, else the
    /// assumption [`facts::DEALLOCATED_START_SECONDS`] (no source; say so wherever it is used).
    pub start_seconds: u32,
    /// `start_seconds` is gpuform's assumption, not a documented figure.
    pub start_assumed: bool,
    /// A pooled VM bills compute while it waits (running); otherwise disks (and network) only.
    pub bills_compute: bool,
    /// A pooled VM holds compute capacity while it waits (running only).
    pub reserves_capacity: bool,
    /// Pooled VMs count against the regional and family vCPU quota (always).
    pub counts_against_quota: bool,
    /// `elasticityProfile.postProvisioningDelay` as the spec writes it (ISO 8601), rendered
    /// only when given ([`facts::POST_PROVISIONING_DELAY`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub post_provisioning_delay: Option<String>,
    /// The same in seconds (0 when absent): a refill of the pool takes the provisioning delay
    /// plus this.
    #[serde(skip_serializing_if = "is_zero")]
    pub post_provisioning_seconds: u32,
    /// The roles the provider's principal needs (granted by the template when
    /// `provider_principal_id` is set; listed otherwise).
    pub provider_roles: Vec<ProviderRoleAssignment>,
    /// The provider's principal object id, when the spec gives it.
    pub provider_principal_id: Option<String>,
    /// Customer-managed disk keys: the role on the disk encryption set (in the pool's group: the
    /// template grants it with the principal, scoped to the set), and the set's name.
    pub des_role: Option<ProviderRoleAssignment>,
    pub des_name: Option<String>,
    /// Grants beyond the pool's group ([`ScopeGrant`]).
    pub scope_grants: Vec<ScopeGrant>,
    /// [`ROLES_HELD_PARAM`], for the templates.
    pub roles_held_param: &'static str,
    /// The resource provider to register before deploying.
    pub provider: &'static str,
    /// The pool waits for the GPU telemetry policy and its identity's roles (a Flexible pool's
    /// per-VM association): the provider creates the pooled VMs after the pool's PUT, and the
    /// policy's DeployIfNotExists acts on VMs created once it exists; the remediation, which
    /// waits for the pool, covers the VMs built before the assignment applies. Set by
    /// [`crate::plan::Plan::build`].
    pub waits_for_policy: bool,
    /// The pool has a `dependsOn` (the provider's roles, or the policy).
    pub waits: bool,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl StandbyPool {
    /// The pool's Azure state.
    pub fn vm_state(&self) -> VmState {
        self.state.vm_state()
    }

    /// How many VMs Azure keeps in the pool while the scale set runs `instances`.
    pub fn pool_size(&self, instances: u32) -> u32 {
        facts::pool_size(self.max_ready, self.min_ready, instances)
    }

    /// Role assignments the template renders on the resource group (none without the
    /// principal).
    pub fn rendered_roles(&self) -> &[ProviderRoleAssignment] {
        if self.provider_principal_id.is_some() {
            &self.provider_roles
        } else {
            &[]
        }
    }

    /// Every role the provider needs in the pool's group: the group's roles, and the disk
    /// encryption set's.
    pub fn group_roles(&self) -> Vec<&ProviderRoleAssignment> {
        self.provider_roles.iter().chain(&self.des_role).collect()
    }
}

/// The template parameter that lists the role GUIDs the provider's principal holds already where
/// the template would assign them (granted by hand): the template leaves those out, as Azure
/// refuses a second assignment of the same role, principal and scope under another name
/// (`RoleAssignmentExists`). `gpuform deploy` reads them and passes it.
pub const ROLES_HELD_PARAM: &str = "standbyProviderRolesHeld";

/// The pool's resource name: `sbp-<name>`, or `<name>` itself where that exceeds 24 characters
/// (`metadata.name` is 3-24 lowercase letters, digits and hyphens).
pub fn pool_name(name: &str) -> String {
    let prefixed = format!("sbp-{name}");
    let pick = if prefixed.len() <= facts::NAME_MAX {
        prefixed
    } else {
        name.to_string()
    };
    let clean: String = pick.chars().filter(|c| facts::name_char(*c)).collect();
    if clean.len() < facts::NAME_MIN {
        format!("sbp-{clean}")
    } else {
        clean.chars().take(facts::NAME_MAX).collect()
    }
}

/// Plan the standby pool of `s`, if it has one; `des_name`: the disk encryption set of
/// customer-managed keys, when the pool has one.
pub fn plan(name: &str, s: &WorkloadSpec, des_name: Option<&str>) -> Option<StandbyPool> {
    let sb = crate::spec::standby::of(s)?;
    let state = sb.state;
    let vm = state.vm_state();
    let provider_roles = facts::PROVIDER_ROLES
        .iter()
        .enumerate()
        .map(|(i, r)| ProviderRoleAssignment {
            sym: format!("standbyProviderRole{i}"),
            role_name: r.name,
            role_id: r.id,
            description: format!("The Standby Pool resource provider {}.", r.why),
        })
        .collect();
    Some(StandbyPool {
        name: pool_name(name),
        resource_type: facts::RESOURCE_TYPE,
        api_version: facts::API_VERSION,
        max_ready: sb.max_ready,
        min_ready: sb.min_ready(),
        state,
        vm_state: vm.azure_name(),
        hibernation: state == StandbyState::Hibernated,
        start_seconds: if vm == VmState::Running {
            0
        } else {
            facts::DEALLOCATED_START_SECONDS
        },
        start_assumed: vm != VmState::Running && facts::DEALLOCATED_START.assumption,
        bills_compute: vm.bills_compute(),
        reserves_capacity: vm.reserves_capacity(),
        counts_against_quota: facts::POOLED_VMS_COUNT_AGAINST_QUOTA,
        post_provisioning_delay: sb.post_provisioning_delay.clone(),
        post_provisioning_seconds: sb
            .post_provisioning_delay
            .as_deref()
            .and_then(crate::spec::schedule::parse_duration)
            .map_or(0, |s| s.min(u32::MAX as u64) as u32),
        provider_roles,
        provider_principal_id: sb.provider_principal_id.clone(),
        des_role: des_name.map(|_| {
            let r = facts::DISK_ENCRYPTION_SET_ROLE;
            ProviderRoleAssignment {
                sym: "standbyProviderDesRole".into(),
                role_name: r.name,
                role_id: r.id,
                description: format!("The Standby Pool resource provider {}.", r.why),
            }
        }),
        des_name: des_name.map(str::to_string),
        scope_grants: scope_grants(s),
        roles_held_param: ROLES_HELD_PARAM,
        provider: facts::PROVIDER,
        waits_for_policy: false,
        waits: sb.provider_principal_id.is_some(),
    })
}

/// A deallocated pool of 2 (maxReady = minReady = 2) with the assumed start time: the unit
/// tests' pool (preflight's and status's standby checks).
#[cfg(test)]
pub fn sample() -> StandbyPool {
    let s = StandbyState::Deallocated;
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
        post_provisioning_delay: None,
        post_provisioning_seconds: 0,
        provider_roles: vec![],
        provider_principal_id: None,
        des_role: None,
        des_name: None,
        scope_grants: vec![],
        roles_held_param: ROLES_HELD_PARAM,
        provider: facts::PROVIDER,
        waits_for_policy: false,
        waits: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_names_fit_azures_pattern() {
        assert_eq!(pool_name("shortvideo"), "sbp-shortvideo");
        let long = "a-name-of-twenty-four-ch";
        assert_eq!(long.len(), 24);
        assert_eq!(pool_name(long), long);
        for n in ["abc", "x-y", long, "abcdefghijklmnopqrst"] {
            let p = pool_name(n);
            assert!((3..=24).contains(&p.len()), "{p}");
            assert!(p.chars().all(facts::name_char), "{p}");
        }
    }
}
