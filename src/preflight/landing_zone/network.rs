//! The subnet checks: size, delegations, NSG, route table and the default route (egress).

use crate::azure::landing_zone::Subnet;
use crate::preflight::fetch::Fetch;
use crate::preflight::report::{Check, Status};

use super::common::{check, failed, with_fix};
use super::gather::Data;
use super::inputs::Inputs;
use super::spec::Egress;

/// `10.0.1.0/24` → 256 - 5 usable addresses (Azure reserves 5 in every subnet); IPv6 and
/// unreadable prefixes count 0.
pub fn usable_addresses(prefix: &str) -> Option<u64> {
    let (ip, bits) = prefix.trim().split_once('/')?;
    ip.parse::<std::net::Ipv4Addr>().ok()?;
    let bits: u32 = bits.parse().ok()?;
    if bits > 32 {
        return None;
    }
    Some((1u64 << (32 - bits)).saturating_sub(5))
}

/// The longest prefix length whose subnet holds `needed` addresses besides Azure's 5.
pub(super) fn prefix_for(needed: u64) -> u32 {
    (0..=29u32)
        .rev()
        .find(|b| (1u64 << (32 - b)).saturating_sub(5) >= needed)
        .unwrap_or(0)
}

pub(super) const SUBNET_TITLE: &str = "existing subnet";

pub(super) fn subnet_checks(inputs: &Inputs, data: &Data, out: &mut Vec<Check>) {
    let (Some(id), Some(fetch)) = (&inputs.subnet_id, &data.subnet) else {
        return;
    };
    let subnet = match fetch {
        Fetch::Skipped(why) => {
            out.push(check("subnet", SUBNET_TITLE, Status::Skipped, why.clone()));
            return;
        }
        Fetch::Failed(e) if e.status == Some(404) => {
            out.push(with_fix(
                check(
                    "subnet",
                    SUBNET_TITLE,
                    Status::Fail,
                    format!("network.existingSubnet {id} does not exist ({})", e.summary()),
                ),
                "check the subscription, resource group, VNet and subnet names in network.existingSubnet (`az network vnet subnet show --ids ID`)",
            ));
            return;
        }
        Fetch::Failed(e) => {
            let mut c = failed("subnet", SUBNET_TITLE, "the existing subnet", e);
            if e.status == Some(403) {
                c.fix = Some("grant the deploying identity Network Reader (or Reader) on the subnet's virtual network, usually in the platform team's resource group; without it size, delegations, NSG and route table are not checked".into());
            }
            out.push(c);
            return;
        }
        Fetch::Got(s) => s,
    };
    let prefixes = subnet.prefixes();
    out.push(check(
        "subnet",
        SUBNET_TITLE,
        Status::Pass,
        format!(
            "{} ({}) is readable",
            if subnet.name.is_empty() {
                id.as_str()
            } else {
                subnet.name.as_str()
            },
            if prefixes.is_empty() {
                "no address prefix".to_string()
            } else {
                prefixes.join(", ")
            }
        ),
    ));

    // size: usable addresses against the pool at peak + surge + private endpoints
    {
        let usable: u64 = prefixes.iter().filter_map(|p| usable_addresses(p)).sum();
        let ours = |cfg: &str| {
            let c = cfg.to_ascii_lowercase();
            inputs.pool_names.iter().any(|n| {
                c.contains(&format!(
                    "/virtualmachinescalesets/{}/",
                    n.to_ascii_lowercase()
                )) || c.contains(&format!("/networkinterfaces/{}", n.to_ascii_lowercase()))
            }) || inputs.private_endpoints.iter().any(|n| {
                c.contains(&format!(
                    "/networkinterfaces/{}.nic.",
                    n.to_ascii_lowercase()
                ))
            })
        };
        let in_use = subnet
            .properties
            .ip_configurations
            .iter()
            .filter(|c| !ours(&c.id))
            .count() as u64;
        let pe = inputs.private_endpoints.len() as u64;
        let needed = u64::from(inputs.instances) + u64::from(inputs.surge) + pe;
        let free = usable.saturating_sub(in_use);
        let mut parts = vec![format!(
            "{} VM{} at peak",
            inputs.instances,
            if inputs.instances == 1 { "" } else { "s" }
        )];
        if inputs.surge > 0 {
            parts.push(format!("{} for overprovisioning/surge", inputs.surge));
        }
        if pe > 0 {
            parts.push(format!(
                "{pe} private endpoint{} in the same subnet",
                if pe == 1 { "" } else { "s" }
            ));
        }
        let msg = format!(
            "{usable} usable addresses (Azure reserves 5 per prefix), {in_use} used by others: {free} free; the pool needs {needed} ({})",
            parts.join(" + ")
        );
        out.push(if usable == 0 {
            check(
                "subnet-size",
                "subnet size",
                Status::Unknown,
                format!("no IPv4 address prefix in {}: cannot count its addresses", prefixes.join(", ")),
            )
        } else if needed > free {
            with_fix(
                check("subnet-size", "subnet size", Status::Fail, format!("too small: {msg}")),
                format!(
                    "ask the platform team for a /{} or larger subnet (or lower capacity.max to {})",
                    prefix_for(needed + in_use),
                    free.saturating_sub(pe + u64::from(inputs.surge))
                ),
            )
        } else {
            check("subnet-size", "subnet size", Status::Pass, msg)
        });
    }

    // delegations: a scale set cannot join a subnet delegated to a service
    let delegated: Vec<String> = subnet
        .properties
        .delegations
        .iter()
        .map(|d| {
            d.properties
                .as_ref()
                .and_then(|p| p.service_name.clone())
                .unwrap_or_else(|| d.name.clone())
        })
        .collect();
    out.push(if delegated.is_empty() {
        check("subnet-delegation", "subnet delegation", Status::Pass, "not delegated".into())
    } else {
        with_fix(
            check(
                "subnet-delegation",
                "subnet delegation",
                Status::Fail,
                format!(
                    "delegated to {}: virtual machines and scale sets cannot join a delegated subnet",
                    delegated.join(", ")
                ),
            ),
            "use a subnet without delegations (ask the platform team for one)",
        )
    });

    // NSG
    out.push(match subnet.properties.network_security_group.as_ref().filter(|n| !n.id.is_empty()) {
        Some(n) => check("subnet-nsg", "subnet NSG", Status::Pass, format!("NSG {}", last_segment(&n.id))),
        None => with_fix(
            check("subnet-nsg", "subnet NSG", Status::Warn, "no network security group on the subnet: the pool's NICs are only filtered by what the platform puts in front".into()),
            "ask the platform team to attach an NSG to the subnet (landing-zone policies usually require one)",
        ),
    });

    // private endpoint network policies, when the endpoints go there
    if !inputs.private_endpoints.is_empty() {
        let v = subnet
            .properties
            .private_endpoint_network_policies
            .as_deref()
            .unwrap_or("Disabled");
        let what = match v {
            v if v.eq_ignore_ascii_case("Disabled") => {
                "NSG rules and route tables do not apply to the private endpoints"
            }
            v if v.eq_ignore_ascii_case("Enabled") => {
                "NSG rules and route tables apply to the private endpoints too"
            }
            v if v.eq_ignore_ascii_case("NetworkSecurityGroupEnabled") => {
                "NSG rules apply to the private endpoints, route tables do not"
            }
            v if v.eq_ignore_ascii_case("RouteTableEnabled") => {
                "route tables apply to the private endpoints, NSG rules do not"
            }
            _ => "unknown value",
        };
        out.push(check(
            "subnet-private-endpoint-policies",
            "private endpoint policies",
            Status::Pass,
            format!(
                "privateEndpointNetworkPolicies {v}: {what} ({} private endpoint{} this subnet)",
                inputs.private_endpoints.len(),
                if inputs.private_endpoints.len() == 1 {
                    " joins"
                } else {
                    "s join"
                }
            ),
        ));
    }

    egress_check(inputs, subnet, data, out);
}

pub(super) fn last_segment(id: &str) -> &str {
    id.trim_end_matches('/').rsplit('/').next().unwrap_or(id)
}

pub(super) const EGRESS_TITLE: &str = "default route";
pub(super) const NO_EGRESS: &str = "the GPU driver extension downloads the driver from the Internet at first boot and fails without egress";

pub(super) fn egress_check(inputs: &Inputs, subnet: &Subnet, data: &Data, out: &mut Vec<Check>) {
    const ID: &str = "subnet-default-route";
    let nat = subnet
        .properties
        .nat_gateway
        .as_ref()
        .filter(|n| !n.id.is_empty())
        .map(|n| last_segment(&n.id).to_string());
    // no default route: an error with UDR egress, a warning otherwise (unless a NAT gateway
    // on the subnet gives egress)
    let missing = |why: String| -> Check {
        match (inputs.egress, &nat) {
            (Egress::UserDefinedRouting, _) => with_fix(
                check(
                    ID,
                    EGRESS_TITLE,
                    Status::Fail,
                    format!(
                        "{why}: network.outbound is userDefinedRouting but nothing sends 0.0.0.0/0 to the hub; {NO_EGRESS}"
                    ),
                ),
                "ask the platform team for a route 0.0.0.0/0 -> VirtualAppliance (the hub firewall's IP) in the subnet's route table, and firewall rules for the driver download",
            ),
            (_, Some(n)) => check(
                ID,
                EGRESS_TITLE,
                Status::Pass,
                format!("{why}; egress through the subnet's NAT gateway {n}"),
            ),
            (_, None) => with_fix(
                check(
                    ID,
                    EGRESS_TITLE,
                    Status::Warn,
                    format!(
                        "{why} and no NAT gateway on the subnet: {NO_EGRESS}, unless the platform provides egress another way"
                    ),
                ),
                "check with the platform team how the subnet reaches the Internet (new subnets have no default outbound access)",
            ),
        }
    };
    let Some(rt) = &data.route_table else {
        out.push(missing("the subnet has no route table".into()));
        return;
    };
    let table = match rt {
        Fetch::Got(t) => t,
        Fetch::Failed(e) => {
            let mut c = failed(ID, EGRESS_TITLE, "the subnet's route table", e);
            if e.status == Some(403) {
                c.fix = Some("grant Network Reader (or Reader) on the route table's resource group to check the default route".into());
            }
            out.push(c);
            return;
        }
        Fetch::Skipped(why) => {
            out.push(check(ID, EGRESS_TITLE, Status::Skipped, why.clone()));
            return;
        }
    };
    let name = if table.name.is_empty() {
        last_segment(&table.id)
    } else {
        table.name.as_str()
    };
    let default = table.properties.routes.iter().find(|r| {
        r.properties
            .address_prefix
            .as_deref()
            .is_some_and(|p| p.trim() == "0.0.0.0/0")
    });
    let Some(route) = default else {
        out.push(missing(format!(
            "route table {name} has no default route (0.0.0.0/0)"
        )));
        return;
    };
    let hop = route.properties.next_hop_type.as_deref().unwrap_or("");
    let ip = route
        .properties
        .next_hop_ip_address
        .as_deref()
        .unwrap_or("");
    let desc = format!(
        "route table {name}: 0.0.0.0/0 -> {hop}{}",
        if ip.is_empty() {
            String::new()
        } else {
            format!(" {ip}")
        }
    );
    out.push(if hop.eq_ignore_ascii_case("None") {
        let status = if inputs.egress == Egress::UserDefinedRouting { Status::Fail } else { Status::Warn };
        with_fix(
            check(ID, EGRESS_TITLE, status, format!("{desc}: the default route drops Internet traffic; {NO_EGRESS}")),
            "ask the platform team to point 0.0.0.0/0 at the hub firewall and allow the driver download",
        )
    } else if hop.eq_ignore_ascii_case("VirtualAppliance") {
        check(ID, EGRESS_TITLE, Status::Pass, format!("{desc} (the hub firewall must allow the driver download)"))
    } else {
        check(ID, EGRESS_TITLE, Status::Pass, desc)
    });
}
