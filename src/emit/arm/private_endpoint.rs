//! Private endpoints (templates/private_endpoint.bicep.hbs) with their DNS zone groups.

use crate::emit::value::Value;

use crate::emit::value::json;

use crate::plan::*;

use super::expr::{lit, q, x};
use super::symbols::Arm;

pub(super) fn private_endpoint(
    a: &Arm,
    out: &mut Vec<Value>,
    pe: &PrivateEndpoint,
    prefix: &str,
    target: &str,
) {
    let p = a.p;
    let zone_sym = format!("{prefix}DnsZone");
    let pe_sym = format!("{prefix}PrivateEndpoint");
    let zone_name = a.zone_name(pe);
    let dns = &p.network.dns;
    if dns.create {
        out.push(json!({
            "type": "Microsoft.Network/privateDnsZones",
            "apiVersion": p.api.private_dns,
            "name": zone_name.value(),
            "location": "global",
            "tags": a.tags(),
        }));
        out.push(json!({
            "type": "Microsoft.Network/privateDnsZones/virtualNetworkLinks",
            "apiVersion": p.api.private_dns,
            "name": x(format!("format('{{0}}/{{1}}', {}, {})", zone_name.arg(), q(&pe.vnet_link_name))),
            "location": "global",
            "tags": a.tags(),
            "properties": {
                "registrationEnabled": false,
                "virtualNetwork": { "id": x(a.id("vnet")) }
            },
            "dependsOn": a.depends(&[zone_sym.as_str(), "vnet"])
        }));
    }
    out.push(json!({
        "type": "Microsoft.Network/privateEndpoints",
        "apiVersion": p.api.network,
        "name": lit(&pe.name),
        "location": "[parameters('location')]",
        "tags": a.tags(),
        "properties": {
            "subnet": { "id": x(a.id("privateEndpointSubnet")) },
            "customNetworkInterfaceName": lit(&pe.nic_name),
            "privateLinkServiceConnections": [
                {
                    "name": lit(&pe.name),
                    "properties": {
                        "privateLinkServiceId": x(a.id(target)),
                        "groupIds": [ pe.group_id ]
                    }
                }
            ]
        },
        "dependsOn": a.depends(&["vnet", target])
    }));
    // Template reference "Microsoft.Network/privateEndpoints/privateDnsZoneGroups" (Network
    // API 2025-05-01): properties.privateDnsZoneConfigs[].{name, properties.privateDnsZoneId}.
    // With privateDnsZones.mode: policy the landing zone's DeployIfNotExists policy creates it.
    if dns.zone_group {
        let (zone_id, deps) = match &pe.zone_id {
            Some(id) => (lit(id), a.depends(&[pe_sym.as_str()])),
            None => (
                x(a.id(&zone_sym)),
                a.depends(&[pe_sym.as_str(), zone_sym.as_str()]),
            ),
        };
        out.push(json!({
            "type": "Microsoft.Network/privateEndpoints/privateDnsZoneGroups",
            "apiVersion": p.api.network,
            "name": x(format!("format('{{0}}/{{1}}', {}, 'default')", q(&pe.name))),
            "properties": {
                "privateDnsZoneConfigs": [
                    { "name": pe.group_id, "properties": { "privateDnsZoneId": zone_id } }
                ]
            },
            "dependsOn": deps
        }));
    }
}
