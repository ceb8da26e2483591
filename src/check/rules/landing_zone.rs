//! Landing zones, the network half (issue 13): an existing subnet, egress by user-defined
//! routing through the hub firewall, private DNS zones owned by the platform team or Policy.

use std::net::Ipv4Addr;

use serde_json::Value;

use super::context::Context;
use crate::azure::resource_id::ArmId;
use crate::diag::Diagnostic;
use crate::plan::PrivateDnsZone;
use crate::plan::landing_zone::{self, DNS_ZONE_TYPE, ROUTE_TABLE_TYPE, SUBNET_TYPE};
use crate::spec::model::{DnsZoneMode, Outbound};

const EXISTING: &str = "/spec/network/existingSubnet";

/// Fields written in the spec that do not apply to an existing subnet, read from the document
/// as written (a default such as `addressSpace` cannot be told from a written value later).
pub fn written_conflicts(doc: &Value) -> Vec<Diagnostic> {
    let Some(net) = doc.pointer("/spec/network").and_then(Value::as_object) else {
        return Vec::new();
    };
    if !net.contains_key("existingSubnet") {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (key, what) in [
        (
            "addressSpace",
            "the address space of a VNet gpuform would create",
        ),
        (
            "workloadSubnet",
            "the range of a subnet gpuform would create",
        ),
        (
            "privateEndpointSubnet",
            "the range of a private endpoint subnet gpuform would create",
        ),
    ] {
        if net.contains_key(key) {
            out.push(
                Diagnostic::new(
                    "existing-subnet-conflict",
                    format!("`{key}` is {what}, but existingSubnet joins a subnet that exists"),
                )
                .at_key(format!("/spec/network/{key}"))
                .label("does not apply with existingSubnet")
                .help(if key == "privateEndpointSubnet" {
                    "remove it; put the private endpoints in another existing subnet with `existingPrivateEndpointSubnet: <subnet id>` (default: existingSubnet)"
                } else {
                    "remove it: the platform team's subnet has its own range (or remove existingSubnet to create a VNet)"
                }),
            );
        }
    }
    out
}

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
    let n = &s.network;
    let subnet_id = |id: &str, ptr: &str, out: &mut Vec<Diagnostic>| {
        if let Err(e) = ArmId::parse_of(id, SUBNET_TYPE) {
            out.push(
                Diagnostic::new("existing-subnet-invalid", format!("`{id}` is not a subnet id: {e}"))
                    .at(ptr)
                    .help("copy the id from the subnet's JSON view in the portal or `az network vnet subnet show --query id`: /subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.Network/virtualNetworks/<vnet>/subnets/<subnet>"),
            );
        }
    };
    if let Some(id) = &n.existing_subnet {
        subnet_id(id, EXISTING, out);
        if !n.inbound.is_empty() {
            out.push(
                Diagnostic::new(
                    "existing-subnet-conflict",
                    "inbound rules go on an NSG gpuform creates, but an existing subnet keeps the platform team's NSG",
                )
                .at_key("/spec/network/inbound")
                .help("remove `inbound` and ask the platform team to add the rules to the subnet's NSG"),
            );
        }
        if n.route_table.is_some() {
            out.push(
                Diagnostic::new(
                    "existing-subnet-conflict",
                    "routeTable does not apply to an existing subnet: the route table the platform team associated with the subnet decides its egress",
                )
                .at_key("/spec/network/routeTable")
                .help("remove `routeTable`; with `outbound: userDefinedRouting` the subnet's own route table must send 0.0.0.0/0 to the hub firewall (`gpuform preflight` reads it)"),
            );
        }
        if n.outbound == Outbound::NatGateway {
            out.push(
                Diagnostic::new(
                    "existing-subnet-conflict",
                    "outbound is natGateway (the default), but gpuform cannot attach a NAT gateway to a subnet it does not create, and landing-zone policy usually denies them in spokes",
                )
                .at("/spec/network/outbound")
                .help("set `outbound: userDefinedRouting` (the subnet's route table sends egress to the hub firewall) or `outbound: none`"),
            );
        }
    }
    if let Some(id) = &n.existing_private_endpoint_subnet {
        subnet_id(id, "/spec/network/existingPrivateEndpointSubnet", out);
        // the pool's NICs pin the deployment to the existing subnet's subscription, and a
        // private endpoint must be in its VNet's subscription (facts::placement)
        if let (Some(pool), Ok(pe)) = (
            n.existing_subnet
                .as_deref()
                .and_then(|s| ArmId::parse_of(s, SUBNET_TYPE).ok()),
            ArmId::parse_of(id, SUBNET_TYPE),
        ) && !pool.subscription.eq_ignore_ascii_case(&pe.subscription)
        {
            out.push(
                Diagnostic::new(
                    "landing-zone-subscription",
                    format!(
                        "the private endpoint subnet is in subscription {}, the pool's subnet in {}: the private endpoints deploy with the pool, and a private endpoint must be in its virtual network's subscription (and region)",
                        pe.subscription, pool.subscription
                    ),
                )
                .at("/spec/network/existingPrivateEndpointSubnet")
                .label("another subscription")
                .help("use a private endpoint subnet in the pool's subscription (a VNet there, peered to the hub), or leave existingPrivateEndpointSubnet out so the endpoints share existingSubnet")
                .note(format!(
                    "Learn: \"The private endpoint must be deployed in the same region and subscription as the virtual network\" ({}); a NIC, likewise ({})",
                    crate::facts::placement::PRIVATE_ENDPOINT.what,
                    crate::facts::placement::NIC.what
                )),
            );
        }
        if n.existing_subnet.is_none() {
            out.push(
                Diagnostic::new(
                    "existing-subnet-conflict",
                    "existingPrivateEndpointSubnet without existingSubnet: the private endpoints would leave the VNet gpuform creates",
                )
                .at_key("/spec/network/existingPrivateEndpointSubnet")
                .help("set `existingSubnet` too, or remove it (gpuform's VNet has a private endpoint subnet of its own)"),
            );
        }
    }
    route_table(ctx, out);
    dns_zones(ctx, out);
    if n.outbound == Outbound::UserDefinedRouting {
        let entries = landing_zone::firewall_allow_list(s, ctx.size(), landing_zone::cloud_of(s));
        out.push(
            Diagnostic::new(
                "firewall-allow-list",
                format!(
                    "egress goes through the hub firewall: it must allow {}",
                    landing_zone::allow_list_text(&entries)
                ),
            )
            .at("/spec/network/outbound")
            .help("give this list to the platform team; without it the GPU driver extension fails (Flexible scale sets have no default outbound access)")
            .note("sources: the driver extensions' resource lists (Azure/azhpc-extensions), Learn \"Azure Monitor agent network configuration\", the image's apt sources, and this cloud's Entra ID and Resource Manager hosts"),
        );
    }
}

fn route_table(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let n = &ctx.spec.spec.network;
    let ptr = "/spec/network/routeTable";
    match (&n.route_table, n.outbound) {
        (None, Outbound::UserDefinedRouting) if n.existing_subnet.is_none() => out.push(
            Diagnostic::new(
                "route-table-invalid",
                "outbound: userDefinedRouting needs a route to the hub firewall, and the spec gives none",
            )
            .at("/spec/network/outbound")
            .help("add `routeTable: {nextHopIpAddress: <the firewall's private IP>}` (gpuform creates the route table) or `routeTable: {id: <route table id>}`, or join the platform team's subnet with `existingSubnet`"),
        ),
        (Some(_), o) if o != Outbound::UserDefinedRouting && n.existing_subnet.is_none() => out.push(
            Diagnostic::new(
                "route-table-invalid",
                format!("routeTable is set but outbound is {}: the route table would never be used", o.as_str()),
            )
            .at_key(ptr)
            .help("set `outbound: userDefinedRouting`, or remove `routeTable`"),
        ),
        (Some(rt), _) if n.existing_subnet.is_none() => match (&rt.next_hop_ip_address, &rt.id) {
            (Some(_), Some(_)) | (None, None) => out.push(
                Diagnostic::new(
                    "route-table-invalid",
                    "routeTable takes exactly one of nextHopIpAddress (gpuform creates the table) and id (an existing table)",
                )
                .at_key(ptr)
                .help("keep one of the two"),
            ),
            (Some(ip), None) => match ip.trim().parse::<Ipv4Addr>() {
                Ok(a) if a.is_private() || is_shared(a) => {}
                Ok(_) => out.push(
                    Diagnostic::new(
                        "route-table-invalid",
                        format!("{ip} is not a private address: the next hop must be the hub firewall's private IP"),
                    )
                    .at(format!("{ptr}/nextHopIpAddress"))
                    .help("use the firewall's private IP in the hub VNet (Azure Firewall: ipConfigurations[0].privateIPAddress, e.g. 10.0.1.4)"),
                ),
                Err(_) => out.push(
                    Diagnostic::new(
                        "route-table-invalid",
                        format!("`{ip}` is not an IPv4 address"),
                    )
                    .at(format!("{ptr}/nextHopIpAddress"))
                    .help("write the firewall's private IP, e.g. 10.0.1.4"),
                ),
            },
            (None, Some(id)) => {
                if let Err(e) = ArmId::parse_of(id, ROUTE_TABLE_TYPE) {
                    out.push(
                        Diagnostic::new("route-table-invalid", format!("`{id}` is not a route table id: {e}"))
                            .at(format!("{ptr}/id"))
                            .help("/subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.Network/routeTables/<name>"),
                    );
                }
            }
        },
        _ => {}
    }
}

/// 100.64.0.0/10 (RFC 6598), which hub VNets use too.
fn is_shared(a: Ipv4Addr) -> bool {
    let o = a.octets();
    o[0] == 100 && (64..128).contains(&o[1])
}

fn dns_zones(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
    let z = &s.network.private_dns_zones;
    let cloud = landing_zone::cloud_of(s);
    let base = "/spec/network/privateDnsZones/zones";
    let given = [
        (
            "keyVault",
            &z.zones.key_vault,
            PrivateDnsZone::KeyVault,
            None,
        ),
        (
            "storageQueue",
            &z.zones.storage_queue,
            PrivateDnsZone::Storage,
            Some("queue"),
        ),
        (
            "storageBlob",
            &z.zones.storage_blob,
            PrivateDnsZone::Storage,
            Some("blob"),
        ),
        (
            "serviceBus",
            &z.zones.service_bus,
            PrivateDnsZone::Storage,
            None,
        ),
    ];
    if z.mode != DnsZoneMode::Existing {
        if given.iter().any(|(_, id, _, _)| id.is_some()) {
            out.push(
                Diagnostic::new(
                    "private-dns-zone-mismatch",
                    format!(
                        "zone ids are given but privateDnsZones.mode is {}: they are not used",
                        z.mode.as_str()
                    ),
                )
                .at_key(base)
                .help("set `mode: existing` to use them, or remove `zones`"),
            );
        }
        return;
    }
    // the private endpoints the plan creates: a private vault, a storage queue gpuform creates
    let vault_pe = !s.security.key_vault.public_network_access;
    let queue_pe = s
        .autoscale
        .as_ref()
        .and_then(|a| a.queue.as_ref())
        .and_then(|q| q.storage_queue.as_ref())
        .is_some_and(|q| q.create);
    for (key, id, zone, service) in given {
        let needed = match key {
            "keyVault" => vault_pe,
            "storageQueue" => queue_pe,
            _ => false,
        };
        let expected =
            (key != "serviceBus").then(|| landing_zone::expected_zone_name(zone, service, cloud));
        match id {
            None if needed => out.push(
                Diagnostic::new(
                    "private-dns-zone-missing",
                    format!(
                        "privateDnsZones.mode is existing, but no zone is given for the {} private endpoint: it needs the zone {} ({cloud})",
                        if key == "keyVault" { "Key Vault" } else { "storage queue" },
                        expected.clone().unwrap_or_default()
                    ),
                )
                .at_key("/spec/network/privateDnsZones")
                .help(format!(
                    "add `zones: {{{key}: /subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.Network/privateDnsZones/{}}}` (the platform team's zone), or use `mode: policy` if Azure Policy creates the records",
                    expected.unwrap_or_default()
                )),
            ),
            None => {}
            Some(id) => {
                let ptr = format!("{base}/{key}");
                match ArmId::parse_of(id, DNS_ZONE_TYPE) {
                    Err(e) => out.push(
                        Diagnostic::new(
                            "private-dns-zone-missing",
                            format!("`{id}` is not a private DNS zone id: {e}"),
                        )
                        .at(&ptr)
                        .help("/subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.Network/privateDnsZones/<zone name>"),
                    ),
                    Ok(parsed) => {
                        if let Some(want) = &expected
                            && !parsed.name().eq_ignore_ascii_case(want)
                        {
                            out.push(
                                Diagnostic::new(
                                    "private-dns-zone-mismatch",
                                    format!(
                                        "the {key} zone is {}, but the private endpoint registers in {want} ({cloud})",
                                        parsed.name()
                                    ),
                                )
                                .at(&ptr)
                                .help(format!("give the id of the zone named {want}")),
                            );
                        }
                        if !needed {
                            out.push(
                                Diagnostic::new(
                                    "private-dns-zone-mismatch",
                                    format!("the plan creates no {key} private endpoint: this zone is not used"),
                                )
                                .at(&ptr)
                                .help("remove it (kept zones are harmless but misleading)"),
                            );
                        }
                    }
                }
            }
        }
    }
}
