//! `spec.network`: address space, outbound path, route table, private DNS zones and inbound rules.

use serde::{Deserialize, Serialize};

use super::defaults as d;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Outbound {
    #[default]
    NatGateway,
    None,
    /// Landing zones (issue 13): egress through the hub firewall by a route table (one gpuform
    /// creates from `routeTable.nextHopIpAddress`, an existing one by `routeTable.id`, or, with
    /// `existingSubnet`, the route table the platform team attached to the subnet).
    UserDefinedRouting,
}

impl Outbound {
    pub fn as_str(self) -> &'static str {
        match self {
            Outbound::NatGateway => "natGateway",
            Outbound::None => "none",
            Outbound::UserDefinedRouting => "userDefinedRouting",
        }
    }
}

/// `network.routeTable`: exactly one of the two fields (the rules check it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RouteTableSpec {
    /// The hub firewall's private IP: gpuform creates a route table with `0.0.0.0/0 ->
    /// VirtualAppliance <ip>` on the workload subnet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_hop_ip_address: Option<String>,
    /// An existing route table (resource id) associated to the workload subnet instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// Who owns the private DNS zones of the private endpoints.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DnsZoneMode {
    /// gpuform creates the zones and links them to its VNet (today's behaviour).
    #[default]
    Create,
    /// The platform team's zones, by resource id: the private endpoints' zone groups point there.
    Existing,
    /// Azure Policy (DeployIfNotExists) adds the zone groups: no zone, link or zone group rendered.
    Policy,
}

impl DnsZoneMode {
    pub fn as_str(self) -> &'static str {
        match self {
            DnsZoneMode::Create => "create",
            DnsZoneMode::Existing => "existing",
            DnsZoneMode::Policy => "policy",
        }
    }
}

/// Zone resource ids per service (`privateDnsZones.mode: existing`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DnsZoneIds {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_vault: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_queue: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_blob: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_bus: Option<String>,
}

/// `network.privateDnsZones`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PrivateDnsZones {
    #[serde(default)]
    pub mode: DnsZoneMode,
    #[serde(default)]
    pub zones: DnsZoneIds,
}

impl PrivateDnsZones {
    pub fn is_default(&self) -> bool {
        *self == PrivateDnsZones::default()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Network {
    #[serde(default = "d::address_space")]
    pub address_space: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload_subnet: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_endpoint_subnet: Option<String>,
    #[serde(default)]
    pub outbound: Outbound,
    #[serde(default)]
    pub inbound: Vec<InboundRule>,
    /// Landing zones (issue 13): the resource id of an existing subnet the pool joins instead of
    /// a VNet of its own (`/subscriptions/…/resourceGroups/…/providers/Microsoft.Network/
    /// virtualNetworks/…/subnets/…`), possibly in another resource group or subscription.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub existing_subnet: Option<String>,
    /// Landing zones: the subnet of the private endpoints (default: `existingSubnet`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub existing_private_endpoint_subnet: Option<String>,
    /// `outbound: userDefinedRouting` with a VNet of gpuform's own: the route to the hub firewall.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route_table: Option<RouteTableSpec>,
    #[serde(default, skip_serializing_if = "PrivateDnsZones::is_default")]
    pub private_dns_zones: PrivateDnsZones,
}

impl Default for Network {
    fn default() -> Self {
        Self {
            address_space: d::address_space(),
            workload_subnet: None,
            private_endpoint_subnet: None,
            outbound: Outbound::default(),
            inbound: Vec::new(),
            existing_subnet: None,
            existing_private_endpoint_subnet: None,
            route_table: None,
            private_dns_zones: PrivateDnsZones::default(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InboundRule {
    pub name: String,
    pub port: PortSpec,
    #[serde(default)]
    pub protocol: Protocol,
    pub sources: Vec<String>,
}

/// A single port (`22`) or a range (`"8000-8100"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PortSpec {
    Single(u16),
    Range(String),
}

impl PortSpec {
    /// The NSG `destinationPortRange` form.
    pub fn as_range(&self) -> String {
        match self {
            PortSpec::Single(p) => p.to_string(),
            PortSpec::Range(r) => r.clone(),
        }
    }

    /// Inclusive bounds, when the range parses.
    pub fn bounds(&self) -> Option<(u16, u16)> {
        match self {
            PortSpec::Single(p) => Some((*p, *p)),
            PortSpec::Range(r) => {
                let (a, b) = r.split_once('-')?;
                Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
            }
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Protocol {
    #[default]
    Tcp,
    Udp,
    #[serde(rename = "*")]
    Any,
}

impl Protocol {
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Tcp => "Tcp",
            Protocol::Udp => "Udp",
            Protocol::Any => "*",
        }
    }
}
