//! Network: the VNet, its two subnets, their NSGs and the NAT gateway; or, in a landing zone
//! (issue 13, [`super::landing_zone`]), the existing subnet the pool joins.

use serde::Serialize;

use super::landing_zone::{self, DnsPlan, ExistingNetwork, RouteTable};
use crate::spec::model::{Outbound, WorkloadSpec};

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Network {
    /// The VNet gpuform creates, or with `existing` the existing workload subnet's VNet.
    pub vnet_name: String,
    /// The own VNet's address space (`None` with `existing`).
    pub address_space: Option<String>,
    /// The own VNet's workload subnet (`None` with `existing`).
    pub workload_subnet: Option<Subnet>,
    /// Private endpoints (Key Vault, storage queue) live here (own VNet).
    pub pe_subnet: Option<Subnet>,
    /// The workload subnet's NSG (`None` with `existing`: the platform team's NSG applies).
    pub nsg_workload: Option<Nsg>,
    pub nsg_pe: Option<Nsg>,
    /// Egress for the driver extension and package installs (Flexible scale sets have no
    /// default outbound access).
    pub nat: Option<Nat>,
    /// Landing zone: the existing subnet(s); nothing of the network above is created.
    pub existing: Option<ExistingNetwork>,
    /// `outbound: userDefinedRouting` on the own VNet: the route to the hub firewall.
    pub route_table: Option<RouteTable>,
    /// Who owns the private endpoints' DNS zones.
    pub dns: DnsPlan,
    /// Serving: the Application Gateway's dedicated subnet (own VNet only).
    pub gateway_subnet: Option<Subnet>,
    /// Its NSG: the AzureLoadBalancer service tag and the clients on the listener's port.
    pub nsg_gateway: Option<Nsg>,
    /// Serving: the Private Link service's NAT subnet (`privateLinkServiceNetworkPolicies:
    /// Disabled`).
    pub private_link_subnet: Option<Subnet>,
    /// Serving: who may call the frontend (`serving.frontend.clientSources`, else the VNet's
    /// address space; empty in a landing zone).
    pub serving_client_sources: Vec<String>,
}

impl Network {
    /// Private endpoints have a subnet to go to (own or existing).
    pub fn has_pe_subnet(&self) -> bool {
        self.pe_subnet.is_some() || self.existing.is_some()
    }
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
    /// `Allow` (the spec's rules, the frontend's) or `Deny` (serving: the rest of the VNet on
    /// the model server's ports).
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
    pub access: &'static str,
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
/// - Several zones in a region Microsoft's SKU page lists without StandardV2
///   ([`crate::facts::nat`]): a Standard NAT gateway without a zone (Azure places it), the
///   only gateway one subnet can take; egress is not zone-redundant, which the comment and
///   the `nat-standardv2-unavailable` warning say.
pub fn nat_for_zones(name: &str, region: &str, zones: &[String]) -> Nat {
    let (sku, nat_zones, comment) = match zones.len() {
        n if n > 1
            && let Some(why) = crate::facts::nat::standard_v2_missing(region) =>
        {
            (
                "Standard",
                Vec::new(),
                format!(
                    "Pool across zones {}: {region} has no StandardV2 (zone-redundant) NAT gateway ({why}), and a subnet takes one NAT gateway, so a Standard gateway without a zone serves every zone: egress fails if its zone fails.",
                    zones.join(", ")
                ),
            )
        }
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
    let dns = landing_zone::dns(s);
    if let Some(existing) = landing_zone::existing_network(s) {
        // the platform team's subnet: its NSG, route table and egress apply; gpuform creates
        // no VNet, subnet, NSG, NAT gateway or route table
        return Network {
            vnet_name: existing.workload.vnet.clone(),
            address_space: None,
            workload_subnet: None,
            pe_subnet: None,
            nsg_workload: None,
            nsg_pe: None,
            nat: None,
            existing: Some(existing),
            route_table: None,
            dns,
            gateway_subnet: None,
            nsg_gateway: None,
            private_link_subnet: None,
            serving_client_sources: Vec::new(),
        };
    }
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
            access: "Allow",
        })
        .collect::<Vec<_>>();
    let pe_subnet = n.private_endpoint_subnet.as_ref().map(|p| Subnet {
        name: "snet-private-endpoints".into(),
        prefix: p.clone(),
    });
    let serving = serving_network(name, s, &workload_prefix);
    let mut rules = rules;
    rules.extend(serving.workload_rules);
    Network {
        vnet_name: format!("vnet-{name}"),
        address_space: Some(n.address_space.clone()),
        workload_subnet: Some(Subnet {
            name: "snet-workload".into(),
            prefix: workload_prefix,
        }),
        nsg_workload: Some(Nsg {
            name: format!("nsg-{name}-workload"),
            rules,
        }),
        nsg_pe: pe_subnet.as_ref().map(|_| Nsg {
            name: format!("nsg-{name}-private-endpoints"),
            rules: Vec::new(),
        }),
        pe_subnet,
        nat: (n.outbound == Outbound::NatGateway)
            .then(|| nat_for_zones(name, &s.region, compute_zones(s))),
        existing: None,
        route_table: landing_zone::route_table(name, s),
        dns,
        gateway_subnet: serving.gateway_subnet,
        nsg_gateway: serving.nsg_gateway,
        private_link_subnet: serving.private_link_subnet,
        serving_client_sources: serving.client_sources,
    }
}

/// First priority of the serving rules on the workload subnet: before the spec's own
/// ([`FIRST_RULE_PRIORITY`]), so the frontend is admitted whatever those say.
pub const SERVING_RULE_PRIORITY: u32 = 500;
/// The serving deny rules: after the spec's own allow rules, so a rule the spec writes for the
/// model server's port still applies; before Azure's default `AllowVnetInBound` (65000).
pub const SERVING_DENY_PRIORITY: u32 = 4000;

/// What serving adds to the own VNet's network.
#[derive(Default)]
struct ServingNetwork {
    workload_rules: Vec<NsgRule>,
    gateway_subnet: Option<Subnet>,
    nsg_gateway: Option<Nsg>,
    private_link_subnet: Option<Subnet>,
    client_sources: Vec<String>,
}

/// Serving's subnets and NSG rules: the model server's ports admit only the frontend (the
/// gateway's subnet, the load balancer's clients, the Private Link service's NAT subnet) and
/// the AzureLoadBalancer service tag (the load balancer's probes); the rest of the VNet is
/// denied on those ports (Azure's default rules allow the whole VNet); nothing from the
/// Internet (Azure's default `DenyAllInBound`).
fn serving_network(name: &str, s: &WorkloadSpec, workload: &str) -> ServingNetwork {
    let Some(sv) = s.serving.as_ref() else {
        return ServingNetwork::default();
    };
    let Some(port) = sv.port else {
        return ServingNetwork::default();
    };
    let health = sv.health_port.unwrap_or(port);
    let kind = sv.frontend.kind;
    let client_sources = if sv.frontend.client_sources.is_empty() {
        vec![s.network.address_space.clone()]
    } else {
        sv.frontend.client_sources.clone()
    };
    let gateway_subnet = kind
        .has_gateway()
        .then(|| sv.frontend.subnet.clone())
        .flatten()
        .map(|prefix| Subnet {
            name: "snet-appgw".into(),
            prefix,
        });
    let private_link_subnet = (sv.frontend.private_link && kind.has_load_balancer())
        .then(|| sv.frontend.private_link_subnet.clone())
        .flatten()
        .map(|prefix| Subnet {
            name: "snet-private-link".into(),
            prefix,
        });
    // who reaches the model server: the gateway's instances, the load balancer's clients (it
    // keeps their addresses), the Private Link service's NAT addresses
    let mut sources: Vec<String> = Vec::new();
    if let Some(g) = &gateway_subnet {
        sources.push(g.prefix.clone());
    }
    if kind.has_load_balancer() {
        sources.extend(client_sources.iter().cloned());
    }
    if let Some(p) = &private_link_subnet {
        sources.push(p.prefix.clone());
    }
    sources.dedup();
    let rule = |name: &str, priority: u32, port: u16, from: &[String], access| NsgRule {
        name: name.to_string(),
        priority,
        protocol: "Tcp",
        port: port.to_string(),
        source: (from.len() == 1).then(|| from[0].clone()),
        sources: if from.len() == 1 {
            Vec::new()
        } else {
            from.to_vec()
        },
        destination: workload.to_string(),
        access,
    };
    let mut workload_rules = vec![rule(
        "allow-serving-from-frontend",
        SERVING_RULE_PRIORITY,
        port,
        &sources,
        "Allow",
    )];
    if health != port {
        workload_rules.push(rule(
            "allow-health-from-frontend",
            SERVING_RULE_PRIORITY + 10,
            health,
            &sources,
            "Allow",
        ));
    }
    if kind.has_load_balancer() {
        workload_rules.push(rule(
            "allow-health-from-azure-lb",
            SERVING_RULE_PRIORITY + 20,
            health,
            &[crate::facts::serving::PROBE_SERVICE_TAG.to_string()],
            "Allow",
        ));
    }
    let vnet = ["VirtualNetwork".to_string()];
    workload_rules.push(rule(
        "deny-serving-from-vnet",
        SERVING_DENY_PRIORITY,
        port,
        &vnet,
        "Deny",
    ));
    if health != port {
        workload_rules.push(rule(
            "deny-health-from-vnet",
            SERVING_DENY_PRIORITY + 10,
            health,
            &vnet,
            "Deny",
        ));
    }
    // the gateway's subnet: the AzureLoadBalancer tag (the only rule a private-only gateway
    // needs, facts::serving::GATEWAY_NSG) and the clients on the listener's port
    let nsg_gateway = gateway_subnet.as_ref().map(|g| {
        let to = |name: &str, priority, port: &str, from: &[String]| NsgRule {
            name: name.to_string(),
            priority,
            protocol: if port == "*" { "*" } else { "Tcp" },
            port: port.to_string(),
            source: (from.len() == 1).then(|| from[0].clone()),
            sources: if from.len() == 1 {
                Vec::new()
            } else {
                from.to_vec()
            },
            destination: g.prefix.clone(),
            access: "Allow",
        };
        Nsg {
            name: format!("nsg-{name}-appgw"),
            rules: vec![
                to(
                    "allow-azure-load-balancer",
                    SERVING_RULE_PRIORITY,
                    "*",
                    &[crate::facts::serving::PROBE_SERVICE_TAG.to_string()],
                ),
                to(
                    "allow-clients",
                    SERVING_RULE_PRIORITY + 10,
                    &port.to_string(),
                    &client_sources,
                ),
            ],
        }
    });
    ServingNetwork {
        workload_rules,
        gateway_subnet,
        nsg_gateway,
        private_link_subnet,
        client_sources,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zones(z: &[&str]) -> Vec<String> {
        z.iter().map(|s| s.to_string()).collect()
    }

    /// Issue 19: Microsoft's NAT SKU page ("Known limitations", facts::nat::SOURCE) lists
    /// Canada East, Indonesia Central, Israel Northwest, Qatar Central, Sweden South and West
    /// India without StandardV2; Qatar Central and Indonesia Central have zones.
    #[test]
    fn a_pool_across_zones_gets_standard_v2_only_where_the_region_offers_it() {
        let three = zones(&["1", "2", "3"]);
        let v2 = nat_for_zones("p", "westeurope", &three);
        assert_eq!((v2.sku, v2.zones.len()), ("StandardV2", 3));
        for region in ["qatarcentral", "indonesiacentral"] {
            let n = nat_for_zones("p", region, &three);
            assert_eq!(n.sku, "Standard", "{region}");
            assert!(n.zones.is_empty(), "{region}: {:?}", n.zones);
            assert!(n.comment.contains("no StandardV2"), "{}", n.comment);
        }
        // one zone and no zone are Standard everywhere
        let one = nat_for_zones("p", "qatarcentral", &zones(&["2"]));
        assert_eq!((one.sku, one.zones.clone()), ("Standard", zones(&["2"])));
        assert_eq!(nat_for_zones("p", "qatarcentral", &[]).sku, "Standard");
    }
}
