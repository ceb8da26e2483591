//! What the spec says about a landing zone: the existing subnet, the egress, shared subnets.

use crate::spec::model::{Outbound, Spec};

/// How the pool reaches the Internet (the GPU driver extension downloads the driver).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Egress {
    #[default]
    NatGateway,
    /// `outbound: none`: egress is someone else's business.
    None,
    /// `outbound: userDefinedRouting` (branch lzn): a default route to the hub firewall.
    UserDefinedRouting,
}

// ---------------------------------------------------------------------------------------------
// The two spec reads to repoint when branch lzn merges (its `plan.network.existing` and
// `Outbound::UserDefinedRouting`): everything else goes through these.

/// The existing subnet the pool joins (`network.existingSubnet`).
pub fn existing_subnet(spec: &Spec) -> Option<&str> {
    spec.spec
        .network
        .existing_subnet
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The spec's egress.
pub fn egress(spec: &Spec) -> Egress {
    match spec.spec.network.outbound {
        Outbound::NatGateway => Egress::NatGateway,
        Outbound::None => Egress::None,
        Outbound::UserDefinedRouting => Egress::UserDefinedRouting,
    }
}

/// A landing-zone spec: it joins an existing subnet or egresses through the hub. Its
/// preflight always runs the landing-zone checks.
pub fn is_landing_zone(spec: &Spec) -> bool {
    existing_subnet(spec).is_some() || egress(spec) == Egress::UserDefinedRouting
}

/// Do the private endpoints share the workload subnet? They do unless
/// `network.existingPrivateEndpointSubnet` names another subnet (ids compare without case).
pub(super) fn subnet_id_is_none(spec: &Spec) -> bool {
    existing_subnet(spec).is_none()
}

pub(super) fn private_endpoints_share_subnet(spec: &Spec) -> bool {
    let n = &spec.spec.network;
    match (
        n.existing_private_endpoint_subnet.as_deref().map(str::trim),
        existing_subnet(spec),
    ) {
        (Some(pe), Some(workload)) if !pe.is_empty() => pe.eq_ignore_ascii_case(workload),
        _ => true,
    }
}

// ---------------------------------------------------------------------------------------------
// Inputs
