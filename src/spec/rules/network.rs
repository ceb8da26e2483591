//! Address ranges, NSG inbound rules and egress.

use ipnet::Ipv4Net;

use super::Context;
use crate::catalog::GpuSize;
use crate::diag::Diagnostic;
use crate::spec::defaults::AZURE_RESERVED_ADDRESSES;
use crate::spec::model::Outbound;
use crate::spec::resolve;

/// Sources that mean "anyone".
const OPEN_SOURCES: &[&str] = &["*", "0.0.0.0/0", "0.0.0.0", "internet", "any", "::/0", "::"];

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
    let n = &s.network;
    let space = parse_cidr(&n.address_space, "/spec/network/addressSpace", out);
    let workload = n
        .workload_subnet
        .as_deref()
        .and_then(|w| parse_cidr(w, "/spec/network/workloadSubnet", out));
    let pe = n
        .private_endpoint_subnet
        .as_deref()
        .and_then(|p| parse_cidr(p, "/spec/network/privateEndpointSubnet", out));
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
    let needs_pe = !s.security.key_vault.public_network_access
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
        for (j, src) in rule.sources.iter().enumerate() {
            let ptr = format!("/spec/network/inbound/{i}/sources/{j}");
            let lower = src.trim().to_ascii_lowercase();
            if OPEN_SOURCES.contains(&lower.as_str()) || lower.ends_with("/0") {
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
                        .help("keep `outbound: natGateway`, or make sure a firewall route lets download.microsoft.com and developer.download.nvidia.com through"),
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
