//! Preflight in a landing zone (issue 13): the existing subnet the pool joins (size, delegations,
//! NSG, route table and default route) and Azure Policy's verdict on every resource the rendered
//! ARM template creates. [`Inputs`] comes from the spec and the ARM emitter's output, [`gather`]
//! asks ARM, [`checks`] turns the answers into findings without I/O. The findings join the spec
//! region's checks, so every output format (table, JSON, Markdown, GitHub) and `deploy`'s own
//! preflight carry them.

mod common;
mod gather;
mod inputs;
mod network;
mod policy;
mod spec;
mod vnet;
mod workspace;

#[cfg(test)]
mod tests;

use crate::preflight::report::Check;

pub use gather::{Data, PolicyAnswer, VnetAnswer, gather, policy_request, vnet_of};
pub use inputs::{Inputs, MAX_POLICY_CALLS, PolicyResource, policy_resources};
pub use network::usable_addresses;
pub use spec::{Egress, egress, existing_subnet, is_landing_zone};
pub use workspace::{WorkspaceData, WorkspaceInputs, gather_workspace, workspace_checks};

use network::subnet_checks;
use policy::{placement_checks, policy_checks};
use vnet::vnet_region_checks;

pub fn checks(inputs: &Inputs, data: &Data) -> Vec<Check> {
    let mut out = Vec::new();
    placement_checks(inputs, data, &mut out);
    vnet_region_checks(inputs, data, &mut out);
    subnet_checks(inputs, data, &mut out);
    policy_checks(inputs, data, &mut out);
    out
}
