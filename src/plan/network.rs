//! Network: the VNet, its two subnets, their NSGs and the NAT gateway.

use serde::Serialize;

use crate::spec::model::{Outbound, WorkloadSpec};

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Network {
    pub vnet_name: String,
    pub address_space: String,
    pub workload_subnet: Subnet,
    /// Private endpoints (Key Vault, storage queue) live here.
    pub pe_subnet: Option<Subnet>,
    pub nsg_workload: Nsg,
    pub nsg_pe: Option<Nsg>,
    /// Egress for the driver extension and package installs (Flexible scale sets have no
    /// default outbound access).
    pub nat: Option<Nat>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Subnet {
    pub name: String,
    pub prefix: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Nsg {
    pub name: String,
    /// Only the spec's inbound allow rules; Azure's default rules deny everything else.
    pub rules: Vec<NsgRule>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NsgRule {
    pub name: String,
    pub priority: u32,
    /// `Tcp`, `Udp` or `*`.
    pub protocol: &'static str,
    /// `22` or `8000-8100`.
    pub port: String,
    /// Set when the rule has exactly one source (the only form that takes service tags).
    pub source: Option<String>,
    /// Set when the rule has several sources.
    pub sources: Vec<String>,
    /// The workload subnet.
    pub destination: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Nat {
    pub name: String,
    pub public_ip_name: String,
    pub idle_timeout_minutes: u32,
    /// `Standard` (zonal or regional) or `StandardV2` (zone-redundant); the public IP takes the
    /// same SKU (a StandardV2 NAT gateway takes only StandardV2 public IPs).
    pub sku: &'static str,
    /// The zones of the NAT gateway and its public IP: the pool's zone for a single-zone pool,
    /// every zone for a zone-redundant StandardV2 gateway, none for a regional pool.
    pub zones: Vec<String>,
    /// Why the egress is shaped as it is (written into the rendered output).
    pub comment: String,
}

/// Egress that shares the fate of the compute it serves (issue 9, item 5).
///
/// - No zones (a regional pool): a Standard NAT gateway without zones, like the pool.
/// - One zone: a Standard NAT gateway and public IP pinned to that zone. A no-zone gateway is
///   placed in a zone of Azure's choosing, and losing that zone would cut a healthy pool off.
/// - Several zones: a StandardV2 NAT gateway with a StandardV2 public IP, zone-redundant
///   ("NAT gateway and availability zones", "Azure NAT Gateway SKUs" on Learn; both SKUs are
///   in the Network API 2025-05-01 the render uses and in the conformance kit's type data).
///   The alternative, one zonal gateway per zone, needs one subnet per zone, and one scale set
///   spans one subnet, so it would need a scale set per zone: not what this render produces.
///   StandardV2 is offered only where the region has availability zones (a spec with zones
///   already needs them); no stored document lists the regions per SKU, so a region without
///   it fails the deployment at the NAT gateway with the SKU named in the error.
/// The zones the compute lives in: a dev box VM takes only the first of `compute.zones`
/// ([`super::devbox`]), so its egress is zonal in that zone.
fn compute_zones(s: &WorkloadSpec) -> &[String] {
    let z = &s.compute.zones;
    if super::devbox::applies(s) {
        &z[..z.len().min(1)]
    } else {
        z
    }
}

pub fn nat_for_zones(name: &str, zones: &[String]) -> Nat {
    let (sku, nat_zones, comment) = match zones.len() {
        0 => (
            "Standard",
            Vec::new(),
            "Regional pool (no zones): a Standard NAT gateway without a zone, like the pool."
                .to_string(),
        ),
        1 => (
            "Standard",
            zones.to_vec(),
            format!(
                "Single-zone pool: the NAT gateway and its public IP live in zone {}, with the VMs they serve.",
                zones[0]
            ),
        ),
        _ => (
            "StandardV2",
            vec!["1".to_string(), "2".to_string(), "3".to_string()],
            format!(
                "Pool across zones {}: a zone-redundant StandardV2 NAT gateway and public IP keep egress when one zone fails (a Standard gateway lives in one zone).",
                zones.join(", ")
            ),
        ),
    };
    Nat {
        name: format!("ng-{name}"),
        public_ip_name: format!("pip-{name}-nat"),
        idle_timeout_minutes: 4,
        sku,
        zones: nat_zones,
        comment,
    }
}

/// First priority of the spec's rules; the gap below leaves room for rules added by hand.
pub const FIRST_RULE_PRIORITY: u32 = 1000;

pub(super) fn plan(name: &str, s: &WorkloadSpec) -> Network {
    let n = &s.network;
    // defaults::apply derived the subnets; validation refused specs without a workload subnet
    let workload_prefix = n
        .workload_subnet
        .clone()
        .unwrap_or_else(|| n.address_space.clone());
    let rules = n
        .inbound
        .iter()
        .enumerate()
        .map(|(i, r)| NsgRule {
            name: r.name.clone(),
            priority: FIRST_RULE_PRIORITY + 10 * i as u32,
            protocol: r.protocol.as_str(),
            port: r.port.as_range(),
            source: (r.sources.len() == 1).then(|| r.sources[0].clone()),
            sources: if r.sources.len() == 1 {
                Vec::new()
            } else {
                r.sources.clone()
            },
            destination: workload_prefix.clone(),
        })
        .collect();
    let pe_subnet = n.private_endpoint_subnet.as_ref().map(|p| Subnet {
        name: "snet-private-endpoints".into(),
        prefix: p.clone(),
    });
    Network {
        vnet_name: format!("vnet-{name}"),
        address_space: n.address_space.clone(),
        workload_subnet: Subnet {
            name: "snet-workload".into(),
            prefix: workload_prefix,
        },
        nsg_workload: Nsg {
            name: format!("nsg-{name}-workload"),
            rules,
        },
        nsg_pe: pe_subnet.as_ref().map(|_| Nsg {
            name: format!("nsg-{name}-private-endpoints"),
            rules: Vec::new(),
        }),
        pe_subnet,
        nat: (n.outbound == Outbound::NatGateway).then(|| nat_for_zones(name, compute_zones(s))),
    }
}
