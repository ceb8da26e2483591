//! What preflight reads about the other things in the pool's resource group that the GPU
//! telemetry policy reaches (issue 38): the built-in DeployIfNotExists DCR-association
//! assignment covers every Linux (or Windows) VM of the group, not only the pool's. Two lists:
//! the group's VMs (`Virtual Machines - List` at the group, `storageProfile.osDisk.osType`,
//! `virtualMachineScaleSet.id`) and the policy assignments that apply there (`Policy
//! Assignments - List For Resource Group`, `$filter=atScope()`: the group's and those inherited
//! from above).

use super::error::ArmError;

/// A VM of the group.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GroupVm {
    pub name: String,
    /// `Linux` / `Windows` (`storageProfile.osDisk.osType`), when given.
    pub os: Option<String>,
    /// The scale set a Flexible VM belongs to (`virtualMachineScaleSet.id`).
    pub scale_set: Option<String>,
}

/// A policy assignment that applies to the group.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GroupAssignment {
    pub name: String,
    pub definition_id: String,
    pub scope: String,
}

#[async_trait::async_trait]
pub trait GroupApi: Send + Sync {
    async fn vms(&self, rg: &str) -> Result<Vec<GroupVm>, ArmError>;
    async fn policy_assignments(&self, rg: &str) -> Result<Vec<GroupAssignment>, ArmError>;
}
