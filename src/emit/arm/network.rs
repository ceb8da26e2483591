//! The network (templates/network.bicep.hbs): VNet, subnets, NSGs, route tables.

use crate::emit::value::Value;

use crate::emit::value::json;

use crate::plan::*;

use super::expr::{lit, put, x};
use super::symbols::Arm;

pub(super) fn network(a: &Arm, out: &mut Vec<Value>) {
    let p = a.p;
    let net = &p.network;
    let api = p.api.network;
    // landing zone: the subnet is the platform team's; nothing of the network is created
    let (Some(nsg_workload), Some(workload_subnet), Some(address_space)) =
        (&net.nsg_workload, &net.workload_subnet, &net.address_space)
    else {
        return;
    };
    let rules = security_rules(&nsg_workload.rules);
    out.push(json!({
        "type": "Microsoft.Network/networkSecurityGroups",
        "apiVersion": api,
        "name": lit(&nsg_workload.name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "properties": { "securityRules": rules }
    }));
    if let Some(nsg) = &net.nsg_gateway {
        out.push(json!({
            "type": "Microsoft.Network/networkSecurityGroups",
            "apiVersion": api,
            "name": lit(&nsg.name),
            "location": "[parameters('location')]",
            "tags": a.tags(),
            "properties": { "securityRules": security_rules(&nsg.rules) }
        }));
    }
    if let Some(nsg) = &net.nsg_pe {
        out.push(json!({
            "type": "Microsoft.Network/networkSecurityGroups",
            "apiVersion": api,
            "name": lit(&nsg.name),
            "location": "[parameters('location')]",
            "tags": a.tags(),
            "properties": { "securityRules": [] }
        }));
    }
    if let Some(nat) = &net.nat {
        let mut pip = json!({
            "type": "Microsoft.Network/publicIPAddresses",
            "apiVersion": api,
            "name": lit(&nat.public_ip_name),
            "location": "[parameters('location')]",
            "tags": a.tags(),
            "sku": { "name": nat.sku, "tier": "Regional" },
            "properties": { "publicIPAllocationMethod": "Static", "publicIPAddressVersion": "IPv4" }
        });
        let mut gw = json!({
            "type": "Microsoft.Network/natGateways",
            "apiVersion": api,
            "name": lit(&nat.name),
            "location": "[parameters('location')]",
            "tags": a.tags(),
            "sku": { "name": nat.sku },
            "properties": {
                "idleTimeoutInMinutes": nat.idle_timeout_minutes,
                "publicIpAddresses": [ { "id": x(a.id("natPublicIp")) } ]
            },
            "dependsOn": a.depends(&["natPublicIp"])
        });
        if !nat.zones.is_empty() {
            let zones = Value::Array(nat.zones.iter().map(|z| lit(z)).collect());
            put(&mut pip, "zones", zones.clone());
            put(&mut gw, "zones", zones);
        }
        out.push(pip);
        out.push(gw);
    }
    if let Some(rt) = net.route_table.as_ref().filter(|rt| rt.create) {
        out.push(route_table(a, rt));
    }
    let mut workload_props = json!({
        "addressPrefix": lit(&workload_subnet.prefix),
        "defaultOutboundAccess": false,
        "networkSecurityGroup": { "id": x(a.id("nsgWorkload")) },
    });
    if net.nat.is_some() {
        put(
            &mut workload_props,
            "natGateway",
            json!({ "id": x(a.id("natGateway")) }),
        );
    }
    if let Some(rt) = &net.route_table {
        let id = match &rt.id {
            Some(id) => lit(id),
            None => x(a.id("routeTable")),
        };
        put(&mut workload_props, "routeTable", json!({ "id": id }));
    }
    let mut subnets =
        vec![json!({ "name": lit(&workload_subnet.name), "properties": workload_props })];
    if let Some(pe) = &net.pe_subnet {
        subnets.push(json!({
            "name": lit(&pe.name),
            "properties": {
                "addressPrefix": lit(&pe.prefix),
                "defaultOutboundAccess": false,
                "privateEndpointNetworkPolicies": "Enabled",
                "networkSecurityGroup": { "id": x(a.id("nsgPrivateEndpoints")) }
            }
        }));
    }
    // serving: the gateway's dedicated subnet (Azure manages its egress: no
    // defaultOutboundAccess, which does not apply to managed subnets) and the Private Link
    // service's NAT subnet
    if let Some(g) = &net.gateway_subnet {
        let mut props = json!({
            "addressPrefix": lit(&g.prefix),
            "networkSecurityGroup": { "id": x(a.id("nsgGateway")) },
        });
        if let Some(gw) = p.serving.as_ref().and_then(|sv| sv.gateway.as_ref())
            && gw.delegate_subnet
        {
            put(
                &mut props,
                "delegations",
                json!([ { "name": "applicationGateways", "properties": { "serviceName": gw.delegation_service } } ]),
            );
        }
        subnets.push(json!({ "name": lit(&g.name), "properties": props }));
    }
    if let Some(pl) = &net.private_link_subnet {
        subnets.push(json!({
            "name": lit(&pl.name),
            "properties": {
                "addressPrefix": lit(&pl.prefix),
                "defaultOutboundAccess": false,
                "privateLinkServiceNetworkPolicies": "Disabled"
            }
        }));
    }
    let mut deps = vec!["nsgWorkload"];
    if net.nsg_gateway.is_some() {
        deps.push("nsgGateway");
    }
    if net.nsg_pe.is_some() {
        deps.push("nsgPrivateEndpoints");
    }
    if net.nat.is_some() {
        deps.push("natGateway");
    }
    if net.route_table.as_ref().is_some_and(|rt| rt.create) {
        deps.push("routeTable");
    }
    out.push(json!({
        "type": "Microsoft.Network/virtualNetworks",
        "apiVersion": api,
        "name": lit(&net.vnet_name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "properties": {
            "addressSpace": { "addressPrefixes": [ lit(address_space) ] },
            "subnets": subnets
        },
        "dependsOn": a.depends(&deps)
    }));
}

/// An NSG's `securityRules`: inbound, the rule's access (the spec's rules and the frontend's
/// allow; serving denies the rest of the VNet on the model server's ports).
fn security_rules(rules: &[NsgRule]) -> Vec<Value> {
    rules
        .iter()
        .map(|r| {
            let mut props = json!({
                "priority": r.priority,
                "direction": "Inbound",
                "access": r.access,
                "protocol": r.protocol,
                "sourcePortRange": "*",
            });
            match &r.source {
                Some(s) => put(&mut props, "sourceAddressPrefix", lit(s)),
                None => put(
                    &mut props,
                    "sourceAddressPrefixes",
                    Value::Array(r.sources.iter().map(|s| lit(s)).collect()),
                ),
            }
            put(&mut props, "destinationPortRange", lit(&r.port));
            put(&mut props, "destinationAddressPrefix", lit(&r.destination));
            json!({ "name": lit(&r.name), "properties": props })
        })
        .collect()
}

/// `outbound: userDefinedRouting` on the own VNet: the default route to the hub firewall
/// (template reference "Microsoft.Network/routeTables", Network API 2025-05-01:
/// `properties.routes[].properties.{addressPrefix, nextHopType, nextHopIpAddress}`,
/// `disableBgpRoutePropagation`).
pub(super) fn route_table(a: &Arm, rt: &landing_zone::RouteTable) -> Value {
    let p = a.p;
    json!({
        "type": landing_zone::ROUTE_TABLE_TYPE,
        "apiVersion": p.api.network,
        "name": lit(&rt.name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "properties": {
            "disableBgpRoutePropagation": true,
            "routes": [
                {
                    "name": rt.route_name,
                    "properties": {
                        "addressPrefix": "0.0.0.0/0",
                        "nextHopType": "VirtualAppliance",
                        "nextHopIpAddress": lit(rt.next_hop_ip_address.as_deref().unwrap_or_default())
                    }
                }
            ]
        }
    })
}
