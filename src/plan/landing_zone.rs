//! Landing zones, the network half (issue 13): an existing subnet instead of a VNet of gpuform's
//! own, egress by user-defined routing through the hub firewall, and private DNS zones owned by
//! the platform team or by Azure Policy.
//!
//! Everything here is decided from the checked spec once; both emitters and the rules read it.

use serde::Serialize;

use super::common::PrivateDnsZone;
use crate::azure::resource_id::ArmId;
use crate::catalog::GpuSize;
use crate::facts::clouds::Cloud;
use crate::facts::egress;
use crate::spec::model::{DnsZoneMode, OsType, Outbound, WorkloadSpec};

/// `Microsoft.Network/virtualNetworks/subnets`.
pub const SUBNET_TYPE: &str = "Microsoft.Network/virtualNetworks/subnets";
/// `Microsoft.Network/routeTables`.
pub const ROUTE_TABLE_TYPE: &str = "Microsoft.Network/routeTables";
/// `Microsoft.Network/privateDnsZones`.
pub const DNS_ZONE_TYPE: &str = "Microsoft.Network/privateDnsZones";

/// An existing subnet, taken apart (what a Bicep `existing` declaration and ARM's
/// `resourceId(subscription, group, type, vnet, subnet)` need, and what preflight reads).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SubnetRef {
    /// The id as the spec wrote it.
    pub id: String,
    pub subscription: String,
    pub resource_group: String,
    pub vnet: String,
    pub subnet: String,
}

impl SubnetRef {
    /// A subnet id (`None` when it is not one; the rules report why).
    pub fn parse(id: &str) -> Option<SubnetRef> {
        let p = ArmId::parse_of(id, SUBNET_TYPE).ok()?;
        let names = p.names();
        Some(SubnetRef {
            id: id.to_string(),
            subscription: p.subscription.clone(),
            resource_group: p.resource_group.clone(),
            vnet: names[0].to_string(),
            subnet: names[1].to_string(),
        })
    }

    /// The same VNet (Azure compares names without case).
    pub fn same_vnet(&self, other: &SubnetRef) -> bool {
        self.subscription.eq_ignore_ascii_case(&other.subscription)
            && self
                .resource_group
                .eq_ignore_ascii_case(&other.resource_group)
            && self.vnet.eq_ignore_ascii_case(&other.vnet)
    }

    pub fn same_subnet(&self, other: &SubnetRef) -> bool {
        self.same_vnet(other) && self.subnet.eq_ignore_ascii_case(&other.subnet)
    }
}

/// `network.existingSubnet`: the pool joins a subnet the platform team owns.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExistingNetwork {
    pub workload: SubnetRef,
    /// The private endpoints' subnet (`existingPrivateEndpointSubnet`, else the workload
    /// subnet); `None` when the plan has no private endpoint (nothing declares it then).
    pub private_endpoints: Option<SubnetRef>,
    /// The private endpoints take addresses of the workload subnet.
    pub pe_in_workload_subnet: bool,
    /// The private endpoint subnet is in the workload subnet's VNet: the templates declare it
    /// under the `vnet` symbol, otherwise under `peVnet`.
    pub pe_same_vnet: bool,
}

/// The route of `outbound: userDefinedRouting` with a VNet of gpuform's own.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteTable {
    /// gpuform creates the route table (`routeTable.nextHopIpAddress`).
    pub create: bool,
    pub name: String,
    /// The hub firewall's private IP (created table).
    pub next_hop_ip_address: Option<String>,
    /// An existing route table's id (`routeTable.id`), associated as it is.
    pub id: Option<String>,
    /// The default route's name in a created table.
    pub route_name: &'static str,
}

/// How the private endpoints get their DNS records.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DnsPlan {
    pub mode: DnsZoneMode,
    /// Zones (and their VNet links) are created in the deployment's group (`create`).
    pub create: bool,
    /// A zone group points the private endpoint at the zone (`create`, `existing`); with
    /// `policy` the landing zone's DeployIfNotExists policy adds it.
    pub zone_group: bool,
}

pub fn dns(s: &WorkloadSpec) -> DnsPlan {
    let mode = s.network.private_dns_zones.mode;
    DnsPlan {
        mode,
        create: mode == DnsZoneMode::Create,
        zone_group: mode != DnsZoneMode::Policy,
    }
}

/// The Key Vault or a storage queue gpuform creates gets a private endpoint (a Service Bus
/// namespace is Standard tier, which has none): the same condition the rules and the plan of
/// the vault and the queue apply.
pub fn needs_private_endpoints(s: &WorkloadSpec) -> bool {
    !s.security.key_vault.public_network_access || creates_storage_queue(s)
}

fn creates_storage_queue(s: &WorkloadSpec) -> bool {
    s.autoscale
        .as_ref()
        .and_then(|a| a.queue.as_ref())
        .and_then(|q| q.storage_queue.as_ref())
        .is_some_and(|b| b.create)
}

/// `None` without `existingSubnet` (or with an id the rules refused).
pub fn existing_network(s: &WorkloadSpec) -> Option<ExistingNetwork> {
    let n = &s.network;
    let workload = SubnetRef::parse(n.existing_subnet.as_deref()?)?;
    let pe = match &n.existing_private_endpoint_subnet {
        Some(id) => SubnetRef::parse(id)?,
        None => workload.clone(),
    };
    Some(ExistingNetwork {
        pe_in_workload_subnet: pe.same_subnet(&workload),
        pe_same_vnet: pe.same_vnet(&workload),
        private_endpoints: needs_private_endpoints(s).then_some(pe),
        workload,
    })
}

/// The route table of `outbound: userDefinedRouting` on a VNet of gpuform's own.
pub fn route_table(name: &str, s: &WorkloadSpec) -> Option<RouteTable> {
    let n = &s.network;
    if n.outbound != Outbound::UserDefinedRouting || n.existing_subnet.is_some() {
        return None;
    }
    let rt = n.route_table.as_ref()?;
    Some(RouteTable {
        create: rt.id.is_none(),
        name: format!("rt-{name}"),
        next_hop_ip_address: rt.next_hop_ip_address.clone(),
        id: rt.id.clone(),
        route_name: "default-to-hub-firewall",
    })
}

/// Addresses the pool takes in the workload subnet: one per VM at `capacity.max` plus one per
/// private endpoint placed there (Azure's five reserved addresses not included). For
/// landing-zone preflight, which compares it with the existing subnet's free addresses.
pub fn addresses_needed(s: &WorkloadSpec) -> u64 {
    let vms = u64::from(s.capacity.max);
    let pes = match existing_network(s) {
        Some(e) if e.pe_in_workload_subnet => {
            u64::from(!s.security.key_vault.public_network_access)
                + u64::from(creates_storage_queue(s))
        }
        _ => 0,
    };
    vms + pes
}

/// The zone name a private endpoint needs in `cloud` ([`crate::facts::private_dns`], Learn's
/// "Azure Private Endpoint private DNS zone values"): the names the templates derive from
/// `environment()`. A storage sub-resource the facts do not list (none today) falls back to
/// `privatelink.<service>.` + the cloud's storage suffix, the pattern of Learn's storage rows.
pub fn expected_zone_name(
    zone: PrivateDnsZone,
    storage_service: Option<&str>,
    cloud: Cloud,
) -> String {
    use crate::facts::private_dns::{ZoneOf, zone_name};
    match zone {
        PrivateDnsZone::KeyVault => zone_name(ZoneOf::KeyVault, cloud).to_string(),
        PrivateDnsZone::Storage => {
            let service = storage_service.unwrap_or("queue");
            match ZoneOf::storage(service) {
                Some(of) => zone_name(of, cloud).to_string(),
                None => format!("privatelink.{service}.{}", cloud.suffixes().storage),
            }
        }
    }
}

/// `privateDnsZones.mode: existing`: the zone id the spec gives for a private endpoint's zone
/// (`None` in the other modes; validation refuses a missing one).
pub fn existing_zone_id(
    s: &WorkloadSpec,
    zone: PrivateDnsZone,
    storage_service: Option<&str>,
) -> Option<String> {
    let z = &s.network.private_dns_zones;
    if z.mode != DnsZoneMode::Existing {
        return None;
    }
    match (zone, storage_service) {
        (PrivateDnsZone::KeyVault, _) => z.zones.key_vault.clone(),
        (PrivateDnsZone::Storage, Some("blob")) => z.zones.storage_blob.clone(),
        (PrivateDnsZone::Storage, _) => z.zones.storage_queue.clone(),
    }
}

/// The cloud a spec deploys to, as far as validation can tell (its region).
pub fn cloud_of(s: &WorkloadSpec) -> Cloud {
    Cloud::for_region(&s.region)
}

/// One line of the hub firewall's allow-list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AllowEntry {
    /// FQDN (`*.` wildcards as Azure Firewall application rules take them) or a service tag /
    /// FQDN tag.
    pub target: String,
    /// `https:443`, `http:80` or `service tag`.
    pub port: &'static str,
    /// Who needs it.
    pub why: &'static str,
}

/// The hosts the pool's GPU driver extension downloads from (none when the pool installs no
/// driver extension), by vendor and OS ([`egress::driver_download_hosts`], sourced there).
pub fn driver_download_hosts(s: &WorkloadSpec, size: Option<&GpuSize>) -> &'static [&'static str] {
    let Some(ext) = size
        .and_then(|z| crate::spec::resolve::driver(s, z).ok())
        .and_then(|d| d.extension)
    else {
        return &[];
    };
    let vendor = if ext.kind.starts_with("Amd") {
        egress::Vendor::Amd
    } else {
        egress::Vendor::Nvidia
    };
    let windows = crate::spec::resolve::image_basics(&s.compute.image).os == OsType::Windows;
    egress::driver_download_hosts(vendor, windows)
}

/// What the hub firewall must let through for this pool (egress by user-defined routing).
///
/// - GPU driver extension: the download hosts in the extensions' resource lists
///   ([`egress::driver_download_hosts`], sourced there).
/// - Azure Monitor Agent (GPU monitoring): Learn, "Azure Monitor agent network configuration"
///   and "Network firewall requirements for monitoring Kubernetes cluster" (the per-cloud
///   tables): `global.handler.control.<monitor>`, `<region>.handler.control.<monitor>`,
///   `*.ods.<opinsights>`, `*.oms.<opinsights>`, the data collection endpoint
///   `*.ingest.<monitor>`; service tag `AzureMonitor`.
/// - Ubuntu's package hosts ([`egress::UBUNTU_PACKAGE_HOSTS`], sourced there): the driver
///   extension installs kernel headers through apt.
/// - Entra ID and Resource Manager of the cloud ([`Cloud::authority_host`],
///   [`Cloud::arm_endpoint`]): the workload's SDK sign-in and management calls.
pub fn firewall_allow_list(
    s: &WorkloadSpec,
    size: Option<&GpuSize>,
    cloud: Cloud,
) -> Vec<AllowEntry> {
    let mut out = Vec::new();
    let mut add = |target: String, port: &'static str, why: &'static str| {
        if !out
            .iter()
            .any(|e: &AllowEntry| e.target == target && e.port == port)
        {
            out.push(AllowEntry { target, port, why });
        }
    };
    let image = crate::spec::resolve::image(&s.compute.image);
    for host in driver_download_hosts(s, size) {
        add(
            (*host).into(),
            "https:443",
            "GPU driver extension downloads",
        );
    }
    if image.os == OsType::Windows {
        add(
            egress::WINDOWS_UPDATE_TAG.into(),
            "FQDN tag",
            "Windows updates",
        );
    } else if image.label.starts_with("ubuntu") || image.publisher.as_deref() == Some("Canonical") {
        let why = "Ubuntu's package hosts (apt; the driver extension installs kernel headers)";
        for host in egress::UBUNTU_PACKAGE_HOSTS {
            add((*host).into(), egress::UBUNTU_PACKAGE_PORT, why);
        }
    }
    let gpu_monitoring =
        s.monitoring.gpu.enabled.unwrap_or_else(|| {
            crate::spec::defaults::gpu_monitoring_unsupported(s, size).is_none()
        });
    if gpu_monitoring {
        let m = cloud.monitor_hosts();
        let why = "Azure Monitor Agent (GPU monitoring)";
        add(
            format!("global.handler.control.{}", m.monitor),
            "https:443",
            why,
        );
        add(
            format!("{}.handler.control.{}", s.region, m.monitor),
            "https:443",
            why,
        );
        add(format!("*.ods.{}", m.opinsights), "https:443", why);
        add(format!("*.oms.{}", m.opinsights), "https:443", why);
        add(format!("*.ingest.{}", m.monitor), "https:443", why);
        add("AzureMonitor".into(), "service tag", why);
    }
    let host = |u: &str| {
        url::Url::parse(u)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
            .unwrap_or_else(|| u.to_string())
    };
    let why = "Entra ID and Resource Manager of this cloud (sign-in and management calls of the workload)";
    add(host(cloud.authority_host()), "https:443", why);
    add(host(cloud.arm_endpoint()), "https:443", why);
    out
}

/// The allow-list grouped by who needs it: `who: host port, host port; who: …`.
pub fn allow_list_text(entries: &[AllowEntry]) -> String {
    let mut groups: Vec<(&str, Vec<String>)> = Vec::new();
    for e in entries {
        let item = format!("{} ({})", e.target, e.port);
        match groups.iter_mut().find(|(why, _)| *why == e.why) {
            Some((_, items)) => items.push(item),
            None => groups.push((e.why, vec![item])),
        }
    }
    groups
        .iter()
        .map(|(why, items)| format!("{why}: {}", items.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}
