//! Address ranges, NSG inbound rules and egress.

use ipnet::Ipv4Net;

use super::context::Context;
use crate::catalog::GpuSize;
use crate::diag::Diagnostic;
use crate::plan::landing_zone;
use crate::spec::defaults::AZURE_RESERVED_ADDRESSES;
use crate::spec::model::Outbound;
use crate::spec::resolve;

/// Sources that mean "anyone".
const OPEN_SOURCES: &[&str] = &["*", "0.0.0.0/0", "0.0.0.0", "internet", "any", "::/0", "::"];

/// Ranges Azure refuses in a virtual network's address space or subnets (VNet FAQ, "What
/// address ranges can I use in my virtual networks?": multicast, broadcast, loopback, link-local
/// and the internal DNS address), plus "this network" (0.0.0.0/8, which 0.0.0.0/0 contains) and
/// the reserved class E block, which no network routes.
pub const REFUSED_RANGES: &[(&str, &str)] = &[
    ("0.0.0.0/8", "\"this network\""),
    ("127.0.0.0/8", "loopback"),
    (
        "168.63.129.16/32",
        "Azure's internal DNS and health probe address",
    ),
    ("169.254.0.0/16", "link-local"),
    ("224.0.0.0/4", "multicast"),
    ("240.0.0.0/4", "reserved (class E)"),
    ("255.255.255.255/32", "broadcast"),
];

/// Address space that is not the public Internet's: private (RFC 1918), shared (RFC 6598) and
/// the special-purpose blocks of [`REFUSED_RANGES`] (RFC 6890). Sorted, disjoint.
const NON_PUBLIC: &[&str] = &[
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.0.0.0/24",
    "192.0.2.0/24",
    "192.168.0.0/16",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    "224.0.0.0/3",
];

/// An inbound rule whose sources together cover at least this many public IPv4 addresses (a
/// /8, 16.7 million) is open to the Internet, however the range is split up.
pub const PUBLIC_COVERAGE_LIMIT: u64 = 1 << 24;

/// Public IPv4 addresses in all (for the percentage in messages).
const PUBLIC_TOTAL: u64 = 3_702_258_688;

/// How many public IPv4 addresses the union of `nets` covers (overlaps counted once).
pub fn public_addresses(nets: &[Ipv4Net]) -> u64 {
    let agg = Ipv4Net::aggregate(&nets.to_vec());
    let private: Vec<Ipv4Net> = NON_PUBLIC.iter().filter_map(|s| s.parse().ok()).collect();
    let size = |n: &Ipv4Net| 1u64 << (32 - n.prefix_len());
    agg.iter()
        .map(|n| {
            // CIDR blocks either nest or are disjoint
            if private.iter().any(|p| p.contains(n)) {
                0
            } else {
                size(n)
                    - private
                        .iter()
                        .filter(|p| n.contains(*p))
                        .map(size)
                        .sum::<u64>()
            }
        })
        .sum()
}

/// The refused range `net` overlaps, if any.
fn refused(net: &Ipv4Net) -> Option<(Ipv4Net, &'static str)> {
    REFUSED_RANGES.iter().find_map(|(r, why)| {
        let r: Ipv4Net = r.parse().ok()?;
        (r.contains(net) || net.contains(&r)).then_some((r, *why))
    })
}

/// A pool across zones gets a zone-redundant StandardV2 NAT gateway, except in the regions
/// Microsoft's NAT SKU page lists without it ([`crate::facts::nat`]): there the render falls
/// back to one Standard gateway without a zone, and egress no longer survives a zone outage.
fn nat_sku(s: &crate::spec::model::WorkloadSpec, out: &mut Vec<Diagnostic>) {
    let dev_box = s.auto_shutdown.is_some() && s.capacity.max == 1 && s.autoscale.is_none();
    if s.network.outbound != crate::spec::model::Outbound::NatGateway
        || s.compute.zones.len() < 2
        || dev_box
    {
        return;
    }
    let Some(why) = crate::facts::nat::standard_v2_missing(&s.region) else {
        return;
    };
    out.push(
        Diagnostic::new(
            "nat-standardv2-unavailable",
            format!(
                "{} has no StandardV2 (zone-redundant) NAT gateway ({why}): the pool across zones {} gets one Standard NAT gateway without a zone, and loses egress if that zone fails",
                s.region,
                s.compute.zones.join(", ")
            ),
        )
        .at("/spec/compute/zones")
        .label("zones without zone-redundant egress")
        .help("pin one zone (the gateway then lives in it, with the VMs), choose a region with StandardV2, or accept the regional gateway")
        .note(format!("regions without StandardV2 NAT gateways: {}; {}", crate::facts::nat::SOURCE.what, crate::facts::nat::SOVEREIGN.what)),
    );
}

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
    let n = &s.network;
    if n.existing_subnet.is_some() {
        // landing zone: no address space, subnets or NSG of gpuform's own to check; the
        // fields that do not apply are `existing-subnet-conflict` (rules::landing_zone)
        if let Some(size) = ctx.size() {
            check_size(ctx, size, out);
        }
        return;
    }
    nat_sku(s, out);
    let usable = |net: Option<Ipv4Net>, ptr: &str, out: &mut Vec<Diagnostic>| {
        let net = net?;
        match refused(&net) {
            Some((r, why)) => {
                out.push(
                    Diagnostic::new(
                        "cidr-invalid",
                        format!(
                            "{net} overlaps {r} ({why}), which Azure refuses in a virtual network"
                        ),
                    )
                    .at(ptr)
                    .help("use a private range (RFC 1918) such as 10.40.0.0/16"),
                );
                None
            }
            None => Some(net),
        }
    };
    let space = parse_cidr(&n.address_space, "/spec/network/addressSpace", out);
    let space = usable(space, "/spec/network/addressSpace", out);
    let workload = n.workload_subnet.as_deref().and_then(|w| {
        let net = parse_cidr(w, "/spec/network/workloadSubnet", out);
        usable(net, "/spec/network/workloadSubnet", out)
    });
    let pe = n.private_endpoint_subnet.as_deref().and_then(|p| {
        let net = parse_cidr(p, "/spec/network/privateEndpointSubnet", out);
        usable(net, "/spec/network/privateEndpointSubnet", out)
    });
    if let Some(space) = space {
        public_space(space, out);
        for (net, ptr, what) in [
            (workload, "/spec/network/workloadSubnet", "workload"),
            (
                pe,
                "/spec/network/privateEndpointSubnet",
                "private endpoint",
            ),
        ] {
            if let Some(net) = net
                && !space.contains(&net)
            {
                out.push(
                    Diagnostic::new(
                        "subnet-outside-vnet",
                        format!("the {what} subnet {net} is not inside the address space {space}"),
                    )
                    .at(ptr)
                    .help(format!("choose a range inside {space}")),
                );
            }
        }
    }
    if let (Some(w), Some(p)) = (workload, pe)
        && (w.contains(&p.network()) || p.contains(&w.network()))
    {
        out.push(
            Diagnostic::new(
                "subnet-overlap",
                format!("the workload subnet {w} and the private endpoint subnet {p} overlap"),
            )
            .at("/spec/network/privateEndpointSubnet")
            .help("use disjoint ranges, e.g. the next /27 after the workload subnet"),
        );
    }
    match workload {
        Some(w) => {
            let usable = (1u64 << (32 - w.prefix_len())).saturating_sub(AZURE_RESERVED_ADDRESSES);
            if u64::from(s.capacity.max) > usable {
                let need = crate::spec::defaults::prefix_for(s.capacity.max);
                out.push(
                    Diagnostic::new(
                        "subnet-too-small",
                        format!("the workload subnet {w} has {usable} usable addresses (Azure reserves 5) but max is {}", s.capacity.max),
                    )
                    .at("/spec/network/workloadSubnet")
                    .help(format!("use a /{need} or larger")),
                );
            }
        }
        None if space.is_some() && n.workload_subnet.is_none() => out.push(
            Diagnostic::new(
                "subnet-too-small",
                format!(
                    "the address space {} has no room for the workload subnet",
                    n.address_space
                ),
            )
            .at("/spec/network/addressSpace")
            .help("use a larger address space (a /16 is typical) or give workloadSubnet"),
        ),
        None => {}
    }
    // a private vault and a created storage queue get private endpoints; a Service Bus
    // namespace is Standard tier, which has none
    // (an existing vault of a landing zone gets no private endpoint of the pool's)
    let needs_pe = (s.security.existing_key_vault.is_none()
        && !s.security.key_vault.public_network_access)
        || s.autoscale
            .as_ref()
            .and_then(|a| a.queue.as_ref())
            .and_then(|q| q.storage_queue.as_ref())
            .is_some_and(|b| b.create);
    if needs_pe && n.private_endpoint_subnet.is_none() && space.is_some() {
        out.push(
            Diagnostic::new("private-endpoint-subnet-missing", "the private endpoints need a subnet and the address space has no room left for one")
                .at("/spec/network")
                .help("set `privateEndpointSubnet` (a /27) inside the address space, outside the workload subnet"),
        );
    }
    let mut names = std::collections::HashSet::new();
    for (i, rule) in n.inbound.iter().enumerate() {
        let at = |f: &str| format!("/spec/network/inbound/{i}/{f}");
        if !names.insert(rule.name.to_ascii_lowercase()) {
            out.push(
                Diagnostic::new(
                    "inbound-invalid",
                    format!("two inbound rules are named `{}`", rule.name),
                )
                .at(at("name"))
                .help("names must be unique"),
            );
        }
        match rule.port.bounds() {
            Some((a, b)) if a >= 1 && a <= b => {}
            _ => out.push(
                Diagnostic::new(
                    "inbound-invalid",
                    format!(
                        "`{}` is not a port or a range a-b of ports 1-65535",
                        rule.port.as_range()
                    ),
                )
                .at(at("port"))
                .help("write 22, or a range such as \"8000-8100\""),
            ),
        }
        let mut literal_open = false;
        for (j, src) in rule.sources.iter().enumerate() {
            let ptr = format!("/spec/network/inbound/{i}/sources/{j}");
            let lower = src.trim().to_ascii_lowercase();
            if OPEN_SOURCES.contains(&lower.as_str()) || lower.ends_with("/0") {
                literal_open = true;
                out.push(
                    Diagnostic::new("inbound-from-internet", format!("inbound rule `{}` allows port {} from `{src}`", rule.name, rule.port.as_range()))
                        .at(ptr)
                        .label("open to the whole Internet")
                        .help("reach the VMs through Azure Bastion or a VPN, or allow only your own ranges (e.g. 10.50.0.0/24)"),
                );
            } else if !valid_source(src) {
                out.push(
                    Diagnostic::new(
                        "inbound-invalid",
                        format!("`{src}` is neither an IPv4 address/CIDR nor a service tag"),
                    )
                    .at(ptr)
                    .help(
                        "use a CIDR such as 10.50.0.0/24 or a service tag such as VirtualNetwork",
                    ),
                );
            }
        }
        // the Internet split into pieces (0.0.0.0/1 + 128.0.0.0/1, or /8s side by side) is
        // still the Internet: count the public addresses the sources cover together
        let nets: Vec<Ipv4Net> = rule
            .sources
            .iter()
            .filter_map(|s| {
                let s = s.trim();
                s.parse::<Ipv4Net>()
                    .ok()
                    .or_else(|| s.parse::<std::net::Ipv4Addr>().ok().map(Ipv4Net::from))
            })
            .map(|n| n.trunc())
            .collect();
        let public = public_addresses(&nets);
        if !literal_open && public >= PUBLIC_COVERAGE_LIMIT {
            out.push(
                Diagnostic::new(
                    "inbound-from-internet",
                    format!(
                        "inbound rule `{}` allows port {} from {} public addresses ({:.1}% of the IPv4 Internet)",
                        rule.name,
                        rule.port.as_range(),
                        public,
                        public as f64 / PUBLIC_TOTAL as f64 * 100.0
                    ),
                )
                .at(format!("/spec/network/inbound/{i}/sources"))
                .label("together these sources cover at least a /8 of public address space")
                .help("reach the VMs through Azure Bastion or a VPN, or allow only your own ranges (e.g. 203.0.113.0/24)"),
            );
        }
    }
    if let Some(size) = ctx.size() {
        check_size(ctx, size, out);
    }
}

/// The size-dependent half (egress for a driver extension). Run for the spec's size, and by
/// `vmSize: auto` for every candidate (see [`super::size_checks`]).
pub fn check_size(ctx: &Context<'_>, size: &GpuSize, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
    if s.network.outbound == Outbound::None
        && resolve::driver(s, size).is_ok_and(|p| p.extension.is_some())
    {
        out.push(
                    Diagnostic::new("outbound-none-driver", "no NAT gateway, but the GPU driver extension downloads drivers from the Internet")
                        .at("/spec/network/outbound")
                        .help({
                            let hosts = landing_zone::driver_download_hosts(s, Some(size)).join(", ");
                            if s.network.existing_subnet.is_some() {
                                // a spoke cannot take a NAT gateway (existing-subnet-conflict)
                                format!("use `outbound: userDefinedRouting` (validation then lists what the hub firewall must allow), or make sure the subnet's route lets the extension's download hosts through: {hosts}")
                            } else {
                                format!("keep `outbound: natGateway`, or make sure a firewall route lets the extension's download hosts through: {hosts}")
                            }
                        }),
                );
    }
}

/// Private (RFC 1918) and shared (RFC 6598) space: what a VNet should use.
const PRIVATE_SPACE: [&str; 4] = [
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "100.64.0.0/10",
];
/// Ranges that are neither private nor public Internet space (this network, loopback,
/// link-local, multicast, reserved, broadcast): Azure refuses them, a separate finding.
const SPECIAL_SPACE: [&str; 5] = [
    "0.0.0.0/8",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "224.0.0.0/4",
    "240.0.0.0/4",
];

/// Warn when the VNet's address space reaches into public Internet space (issue 10, item 17).
fn public_space(space: Ipv4Net, out: &mut Vec<Diagnostic>) {
    let nets = |l: &[&str]| -> Vec<Ipv4Net> { l.iter().filter_map(|n| n.parse().ok()).collect() };
    if nets(&PRIVATE_SPACE).iter().any(|p| p.contains(&space)) {
        return;
    }
    // a range that is wholly special space is another rule's business
    if nets(&SPECIAL_SPACE).iter().any(|p| p.contains(&space)) || space.prefix_len() == 0 {
        return;
    }
    out.push(
        Diagnostic::new(
            "address-space-public",
            format!("the address space {space} is public Internet address space, not private"),
        )
        .at("/spec/network/addressSpace")
        .label("public range")
        .help("use a private range such as 10.40.0.0/16 (RFC 1918: 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16)")
        .note("addresses inside the VNet's space are routed into the VNet: the pool could not reach the Internet hosts that own them"),
    );
}

fn parse_cidr(s: &str, ptr: &str, out: &mut Vec<Diagnostic>) -> Option<Ipv4Net> {
    match s.parse::<Ipv4Net>() {
        Ok(n) if n.network() == n.addr() => Some(n),
        Ok(n) => {
            out.push(
                Diagnostic::new("cidr-invalid", format!("{s} has host bits set"))
                    .at(ptr)
                    .help(format!("did you mean {}?", n.trunc())),
            );
            None
        }
        Err(_) => {
            out.push(
                Diagnostic::new("cidr-invalid", format!("`{s}` is not an IPv4 CIDR range"))
                    .at(ptr)
                    .help("write it like 10.40.1.0/24"),
            );
            None
        }
    }
}

fn valid_source(s: &str) -> bool {
    s.parse::<Ipv4Net>().is_ok()
        || s.parse::<std::net::Ipv4Addr>().is_ok()
        || (s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nets(s: &[&str]) -> Vec<Ipv4Net> {
        s.iter().map(|x| x.parse().unwrap()).collect()
    }

    #[test]
    fn public_coverage_counts_the_union_of_sources() {
        assert_eq!(public_addresses(&nets(&["0.0.0.0/0"])), PUBLIC_TOTAL);
        assert_eq!(
            public_addresses(&nets(&["0.0.0.0/1", "128.0.0.0/1"])),
            PUBLIC_TOTAL
        );
        // private and reserved space is not the Internet
        assert_eq!(
            public_addresses(&nets(&["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"])),
            0
        );
        // overlaps count once; one /8 split in two reaches the limit
        assert_eq!(
            public_addresses(&nets(&["20.0.0.0/9", "20.128.0.0/9", "20.0.0.0/8"])),
            PUBLIC_COVERAGE_LIMIT
        );
        assert!(public_addresses(&nets(&["20.0.0.0/9"])) < PUBLIC_COVERAGE_LIMIT);
        assert_eq!(public_addresses(&nets(&["203.0.113.0/24"])), 0);
        assert_eq!(public_addresses(&nets(&["8.8.8.0/24"])), 256);
    }

    #[test]
    fn refused_ranges_overlap_either_way() {
        for s in [
            "224.0.0.0/4",
            "230.1.0.0/16",
            "127.0.0.0/16",
            "169.254.0.0/24",
            "0.0.0.0/0",
            "0.0.0.0/8",
            "240.0.0.0/8",
            "168.63.0.0/16",
            "255.255.255.255/32",
        ] {
            assert!(refused(&s.parse().unwrap()).is_some(), "{s}");
        }
        for s in [
            "10.0.0.0/8",
            "172.16.0.0/12",
            "192.168.0.0/16",
            "100.64.0.0/10",
        ] {
            assert!(refused(&s.parse().unwrap()).is_none(), "{s}");
        }
    }
}
