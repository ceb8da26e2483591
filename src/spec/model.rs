//! The typed workload spec (`apiVersion: gpuform/v1`, `kind: GpuWorkload`).
//!
//! These types mirror `schemas/gpuworkload.schema.json`. Input reaches them only after the
//! JSON Schema has accepted the document, so serde errors here are rare; every default lives in
//! [`super::defaults`] (constant defaults through `#[serde(default = ...)]`, derived ones in
//! [`super::defaults::apply`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::defaults as d;

pub const API_VERSION: &str = "gpuform/v1";
pub const KIND: &str = "GpuWorkload";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Spec {
    pub api_version: String,
    pub kind: String,
    pub metadata: Metadata,
    pub spec: WorkloadSpec,
}

impl Spec {
    /// The catalog entry for `compute.vmSize` (`None` for `auto` or an unknown size).
    pub fn size(&self) -> Option<&'static crate::catalog::GpuSize> {
        crate::catalog::find(&self.spec.compute.vm_size)
    }

    /// The spec with every default applied, as `gpuform show` prints it (and as it must
    /// re-validate). A landing-zone network (`existingSubnet`) has no address space of its own:
    /// the default `addressSpace` is left out, since writing it there is an error.
    pub fn resolved_value(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).expect("spec serialises");
        if self.spec.network.existing_subnet.is_some()
            && let Some(net) = v
                .pointer_mut("/spec/network")
                .and_then(|n| n.as_object_mut())
        {
            net.remove("addressSpace");
        }
        v
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Metadata {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkloadSpec {
    pub region: String,
    #[serde(default)]
    pub alternate_regions: Vec<String>,
    /// `None`: no residency restriction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_regions: Option<Vec<String>>,
    /// The Azure cloud as written (`None`: the region decides); [`WorkloadSpec::effective_cloud`]
    /// is the one every command uses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cloud: Option<crate::azure::Cloud>,
    pub workload: Workload,
    #[serde(default)]
    pub compute: Compute,
    pub capacity: Capacity,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub autoscale: Option<Autoscale>,
    #[serde(default)]
    pub network: Network,
    #[serde(default)]
    pub security: Security,
    #[serde(default)]
    pub monitoring: Monitoring,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_shutdown: Option<AutoShutdown>,
}

impl WorkloadSpec {
    /// `spec.cloud`, else the cloud of `spec.region` ([`crate::azure::Cloud::for_region`]).
    pub fn effective_cloud(&self) -> crate::azure::Cloud {
        self.cloud
            .unwrap_or_else(|| crate::azure::Cloud::for_region(&self.region))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum WorkloadType {
    Training,
    Inference,
    Batch,
    Visualization,
}

impl WorkloadType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Training => "training",
            Self::Inference => "inference",
            Self::Batch => "batch",
            Self::Visualization => "visualization",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Precision {
    Fp32,
    Tf32,
    Bf16,
    Fp16,
    Fp8,
    Int8,
    Int4,
}

impl Precision {
    /// Bytes per parameter, the usual first-order driver of model VRAM.
    pub fn bytes_per_param(self) -> f64 {
        match self {
            Self::Fp32 | Self::Tf32 => 4.0,
            Self::Bf16 | Self::Fp16 => 2.0,
            Self::Fp8 | Self::Int8 => 1.0,
            Self::Int4 => 0.5,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Fp32 => "fp32",
            Self::Tf32 => "tf32",
            Self::Bf16 => "bf16",
            Self::Fp16 => "fp16",
            Self::Fp8 => "fp8",
            Self::Int8 => "int8",
            Self::Int4 => "int4",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Workload {
    #[serde(rename = "type")]
    pub kind: WorkloadType,
    /// Measured VRAM peak per VM, in GiB, at `precision`.
    #[serde(rename = "gpuMemoryGiB")]
    pub gpu_memory_gib: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<Precision>,
    #[serde(default)]
    pub interruptible: bool,
    #[serde(default)]
    pub distributed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cuda: Option<String>,
    /// What the GPU must be: `vendor` limits `vmSize: auto` to one vendor's sizes (without it,
    /// `cuda` means NVIDIA).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<GpuRequirement>,
    /// How long one queued job takes on one VM (ISO 8601); `gpuform simulate` and the
    /// policy rules use it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_duration: Option<String>,
    /// Jobs one VM runs at once (1 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrent_jobs_per_instance: Option<u32>,
}

impl Workload {
    /// The GPU vendor the workload needs and why: `gpu.vendor` as written, else NVIDIA when
    /// `cuda` is set (CUDA runs only on NVIDIA GPUs), else none.
    pub fn required_vendor(&self) -> Option<(crate::catalog::GpuVendor, &'static str)> {
        if let Some(v) = self.gpu.as_ref().and_then(|g| g.vendor) {
            return Some((v.catalog(), "workload.gpu.vendor"));
        }
        self.cuda
            .as_ref()
            .map(|_| (crate::catalog::GpuVendor::Nvidia, "workload.cuda"))
    }
}

/// `workload.gpu`: constraints on the GPU `vmSize: auto` may pick.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GpuRequirement {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vendor: Option<GpuVendorName>,
}

/// A GPU vendor as the spec writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GpuVendorName {
    Nvidia,
    Amd,
}

impl GpuVendorName {
    pub fn catalog(self) -> crate::catalog::GpuVendor {
        match self {
            Self::Nvidia => crate::catalog::GpuVendor::Nvidia,
            Self::Amd => crate::catalog::GpuVendor::Amd,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Nvidia => "nvidia",
            Self::Amd => "amd",
        }
    }
}

/// `NVIDIA` / `AMD` for messages.
pub fn vendor_label(v: crate::catalog::GpuVendor) -> &'static str {
    match v {
        crate::catalog::GpuVendor::Nvidia => "NVIDIA",
        crate::catalog::GpuVendor::Amd => "AMD",
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Compute {
    #[serde(default = "d::vm_size")]
    pub vm_size: String,
    #[serde(default)]
    pub image: Image,
    #[serde(default = "d::admin_username")]
    pub admin_username: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ssh_public_key: Option<String>,
    #[serde(default)]
    pub os_disk: OsDisk,
    #[serde(default)]
    pub data_disks: Vec<DataDisk>,
    #[serde(default)]
    pub zones: Vec<String>,
    #[serde(default)]
    pub gpu_driver: GpuDriver,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver_version: Option<String>,
    #[serde(default)]
    pub security_type: SecurityType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cloud_init: Option<String>,
    #[serde(default)]
    pub orchestration: Orchestration,
    #[serde(default = "d::yes")]
    pub accelerated_networking: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health_probe: Option<HealthProbe>,
}

impl Default for Compute {
    fn default() -> Self {
        Self {
            vm_size: d::vm_size(),
            image: Image::default(),
            admin_username: d::admin_username(),
            ssh_public_key: None,
            os_disk: OsDisk::default(),
            data_disks: Vec::new(),
            zones: Vec::new(),
            gpu_driver: GpuDriver::default(),
            driver_version: None,
            security_type: SecurityType::default(),
            cloud_init: None,
            orchestration: Orchestration::default(),
            accelerated_networking: true,
            health_probe: None,
        }
    }
}

/// `image:` is an alias, a marketplace reference or a resource id (gallery image, managed image).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Image {
    Alias(ImageAlias),
    Reference(ImageReference),
    Id(ImageId),
}

impl Default for Image {
    fn default() -> Self {
        Image::Alias(ImageAlias::Auto)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ImageAlias {
    /// Resolved from the size: `ubuntu-hpc-22.04` for NVIDIA ND sizes whose drivers come with the
    /// image, `ubuntu-hpc-22.04-rocm` for AMD ones (ND MI300X v5), `ubuntu-22.04` otherwise.
    #[serde(rename = "auto")]
    Auto,
    #[serde(rename = "ubuntu-22.04")]
    Ubuntu2204,
    #[serde(rename = "ubuntu-24.04")]
    Ubuntu2404,
    #[serde(rename = "ubuntu-hpc-22.04")]
    UbuntuHpc2204,
    /// The Azure HPC image with AMD ROCm and InfiniBand drivers (Learn, "Install AMD GPU drivers
    /// on Azure ND MI300X v5 Linux VMs": `microsoft-dsvm:ubuntu-hpc:2204-rocm`).
    #[serde(rename = "ubuntu-hpc-22.04-rocm")]
    UbuntuHpcRocm2204,
    #[serde(rename = "windows-2022")]
    Windows2022,
}

impl ImageAlias {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Ubuntu2204 => "ubuntu-22.04",
            Self::Ubuntu2404 => "ubuntu-24.04",
            Self::UbuntuHpc2204 => "ubuntu-hpc-22.04",
            Self::UbuntuHpcRocm2204 => "ubuntu-hpc-22.04-rocm",
            Self::Windows2022 => "windows-2022",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageReference {
    pub publisher: String,
    pub offer: String,
    pub sku: String,
    #[serde(default = "d::image_version")]
    pub version: String,
    /// Operating system of a custom reference (an alias knows its own).
    #[serde(default)]
    pub os: OsType,
    /// Hyper-V generation of the image.
    #[serde(default = "d::generation")]
    pub generation: HyperVGeneration,
    /// The image already carries GPU drivers (HPC/DSVM images): no driver extension.
    #[serde(default)]
    pub has_gpu_drivers: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageId {
    pub id: String,
    #[serde(default)]
    pub os: OsType,
    #[serde(default = "d::generation")]
    pub generation: HyperVGeneration,
    #[serde(default)]
    pub has_gpu_drivers: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum OsType {
    #[default]
    Linux,
    Windows,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum HyperVGeneration {
    V1,
    V2,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DiskType {
    #[serde(rename = "Standard_LRS")]
    StandardLrs,
    #[serde(rename = "StandardSSD_LRS")]
    StandardSsdLrs,
    #[serde(rename = "StandardSSD_ZRS")]
    StandardSsdZrs,
    #[serde(rename = "Premium_LRS")]
    PremiumLrs,
    #[serde(rename = "Premium_ZRS")]
    PremiumZrs,
    #[serde(rename = "PremiumV2_LRS")]
    PremiumV2Lrs,
}

impl DiskType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::StandardLrs => "Standard_LRS",
            Self::StandardSsdLrs => "StandardSSD_LRS",
            Self::StandardSsdZrs => "StandardSSD_ZRS",
            Self::PremiumLrs => "Premium_LRS",
            Self::PremiumZrs => "Premium_ZRS",
            Self::PremiumV2Lrs => "PremiumV2_LRS",
        }
    }

    pub fn is_premium(self) -> bool {
        matches!(
            self,
            Self::PremiumLrs | Self::PremiumZrs | Self::PremiumV2Lrs
        )
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OsDisk {
    #[serde(default = "d::os_disk_size", rename = "sizeGiB")]
    pub size_gib: u32,
    #[serde(default = "d::disk_type", rename = "type")]
    pub kind: DiskType,
}

impl Default for OsDisk {
    fn default() -> Self {
        Self {
            size_gib: d::os_disk_size(),
            kind: d::disk_type(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DiskCaching {
    None,
    ReadOnly,
    ReadWrite,
}

impl DiskCaching {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "None",
            Self::ReadOnly => "ReadOnly",
            Self::ReadWrite => "ReadWrite",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DataDisk {
    #[serde(rename = "sizeGiB")]
    pub size_gib: u32,
    #[serde(default = "d::disk_type", rename = "type")]
    pub kind: DiskType,
    #[serde(default = "d::data_disk_caching")]
    pub caching: DiskCaching,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum GpuDriver {
    /// The family's driver: GRID for NV sizes, CUDA for NC/ND, none when the image carries drivers.
    #[default]
    Auto,
    Cuda,
    Grid,
    None,
}

impl GpuDriver {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Cuda => "cuda",
            Self::Grid => "grid",
            Self::None => "none",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SecurityType {
    #[default]
    Standard,
    TrustedLaunch,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Orchestration {
    #[default]
    Flexible,
    Uniform,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HealthProbe {
    pub protocol: ProbeProtocol,
    pub port: u16,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// How long automatic repairs waits after a state change before repairing (ISO 8601, PT10M–PT90M).
    #[serde(default = "d::repair_grace_period")]
    pub grace_period: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ProbeProtocol {
    Http,
    Https,
    Tcp,
}

impl ProbeProtocol {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Http => "http",
            Self::Https => "https",
            Self::Tcp => "tcp",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Capacity {
    #[serde(default = "d::capacity_min")]
    pub min: u32,
    pub max: u32,
    /// Instances when autoscale has no metric data; defaults to `min`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<u32>,
    #[serde(default)]
    pub regular_base: u32,
    #[serde(default = "d::regular_percent_above_base")]
    pub regular_percent_above_base: u32,
    #[serde(default = "d::spot_max_price")]
    pub spot_max_price_per_hour: f64,
    #[serde(default)]
    pub eviction_policy: EvictionPolicy,
}

impl Capacity {
    /// The default capacity after defaults were applied.
    pub fn default_count(&self) -> u32 {
        self.default.unwrap_or(self.min)
    }

    /// Does any instance of this pool run on Spot priority?
    pub fn uses_spot(&self) -> bool {
        self.regular_percent_above_base < 100 && self.max > self.regular_base
    }

    /// How many of `n` instances run on regular priority under the priority mix policy.
    /// Azure rounds the regular share above the base down: Spot gets the odd instance
    /// ([`crate::facts::spot::regular_of`], with Microsoft's examples).
    pub fn regular_of(&self, n: u32) -> u32 {
        crate::facts::spot::regular_of(self.regular_base, self.regular_percent_above_base, n)
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EvictionPolicy {
    #[default]
    Delete,
    Deallocate,
}

impl EvictionPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Delete => "Delete",
            Self::Deallocate => "Deallocate",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Autoscale {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueTrigger>,
    #[serde(default = "d::scale_out_cooldown")]
    pub scale_out_cooldown: String,
    #[serde(default = "d::scale_in_cooldown")]
    pub scale_in_cooldown: String,
    /// Window the queue metric is averaged over (ISO 8601, PT5M–PT12H).
    #[serde(default = "d::time_window")]
    pub time_window: String,
    #[serde(default)]
    pub schedules: Vec<Schedule>,
    /// A standby pool attached to the scale set (issue 23).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standby: Option<super::standby::Standby>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QueueTrigger {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_bus: Option<ServiceBusQueue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_queue: Option<StorageQueue>,
    /// Messages one VM works through; scale out above it.
    pub target_per_instance: u32,
    /// Scale in when the backlog per VM falls below this; derived from the target so it cannot flap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_in_below: Option<u32>,
    /// VMs added per scale-out above the target (1 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_out_step: Option<u32>,
    /// Extra scale-out rules for deeper backlogs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scale_out_tiers: Vec<ScaleOutTier>,
}

/// One more scale-out rule: above `above` messages per VM, add `step` VMs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScaleOutTier {
    pub above: u32,
    pub step: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServiceBusQueue {
    pub namespace: String,
    pub queue: String,
    #[serde(default)]
    pub create: bool,
    /// Resource group of an existing namespace (default: the deployment's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_group: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StorageQueue {
    pub account: String,
    pub queue: String,
    #[serde(default)]
    pub create: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_group: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Day {
    Monday,
    Tuesday,
    Wednesday,
    Thursday,
    Friday,
    Saturday,
    Sunday,
}

impl Day {
    pub const ALL: [Day; 7] = [
        Day::Monday,
        Day::Tuesday,
        Day::Wednesday,
        Day::Thursday,
        Day::Friday,
        Day::Saturday,
        Day::Sunday,
    ];
    pub const WEEKDAYS: [Day; 5] = [
        Day::Monday,
        Day::Tuesday,
        Day::Wednesday,
        Day::Thursday,
        Day::Friday,
    ];

    /// Monday = 0.
    pub fn index(self) -> u32 {
        self as u32
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Day::Monday => "Monday",
            Day::Tuesday => "Tuesday",
            Day::Wednesday => "Wednesday",
            Day::Thursday => "Thursday",
            Day::Friday => "Friday",
            Day::Saturday => "Saturday",
            Day::Sunday => "Sunday",
        }
    }

    pub fn next(self) -> Day {
        Day::ALL[((self.index() + 1) % 7) as usize]
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Schedule {
    pub name: String,
    pub time_zone: String,
    pub days: Vec<Day>,
    /// `HH:MM`, local to `timeZone`.
    pub start: String,
    /// `HH:MM`; earlier than `start` means the window ends the next day.
    pub end: String,
    pub min: u32,
    pub max: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<u32>,
}

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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Security {
    #[serde(default)]
    pub key_vault: KeyVault,
    #[serde(default)]
    pub disk_encryption: DiskEncryption,
    #[serde(default = "d::yes")]
    pub encryption_at_host: bool,
    /// Landing zones (issue 13): the resource id of an existing Key Vault (`/subscriptions/…/
    /// resourceGroups/…/providers/Microsoft.KeyVault/vaults/…`, any resource group or
    /// subscription of the tenant) the pool uses instead of a vault of its own. No vault, private
    /// endpoint or DNS zone is created; the roles the pool needs on it are listed for the
    /// platform team (see `plan::shared`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub existing_key_vault: Option<String>,
}

impl Default for Security {
    fn default() -> Self {
        Self {
            key_vault: KeyVault::default(),
            disk_encryption: DiskEncryption::default(),
            encryption_at_host: true,
            existing_key_vault: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KeyVault {
    /// Globally unique vault name; derived from `metadata.name` and the resource group when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default)]
    pub public_network_access: bool,
    #[serde(default)]
    pub sku: KeyVaultSku,
    #[serde(default = "d::yes")]
    pub purge_protection: bool,
    #[serde(default = "d::soft_delete_days")]
    pub soft_delete_retention_days: u32,
}

impl Default for KeyVault {
    fn default() -> Self {
        Self {
            name: None,
            public_network_access: false,
            sku: KeyVaultSku::default(),
            purge_protection: true,
            soft_delete_retention_days: d::soft_delete_days(),
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum KeyVaultSku {
    #[default]
    Standard,
    Premium,
}

impl KeyVaultSku {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Standard => "standard",
            Self::Premium => "premium",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DiskEncryption {
    #[default]
    PlatformManagedKey,
    CustomerManagedKey,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Monitoring {
    #[serde(default = "d::log_retention_days")]
    pub log_retention_days: u32,
    #[serde(default)]
    pub alert_emails: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<Budget>,
    /// GPU telemetry, alerts, health repairs and the workbook (issue 12).
    #[serde(default)]
    pub gpu: GpuMonitoring,
    /// Landing zones (issue 13): the resource id of an existing (central) Log Analytics
    /// workspace, possibly in another subscription; no workspace is created and everything
    /// that logs or queries points at it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub existing_workspace: Option<String>,
    /// Landing zones (issue 13): resource ids of existing action groups that metric alerts, log
    /// alerts and budget notifications use, next to the group `alertEmails` creates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub existing_action_groups: Vec<String>,
}

impl Default for Monitoring {
    fn default() -> Self {
        Self {
            log_retention_days: d::log_retention_days(),
            alert_emails: Vec::new(),
            budget: None,
            gpu: GpuMonitoring::default(),
            existing_workspace: None,
            existing_action_groups: Vec::new(),
        }
    }
}

/// `monitoring.gpu`: the per-VM GPU collector and what is built on its table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GpuMonitoring {
    /// `None` (absent): on where the image can run the collector; filled in by
    /// [`super::defaults::resolve_gpu_monitoring`] after validation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// A GPU is idle below this average utilisation (percent).
    #[serde(default = "d::gpu_idle_threshold_percent")]
    pub idle_threshold_percent: u32,
    /// ... for this many minutes.
    #[serde(default = "d::gpu_idle_minutes")]
    pub idle_minutes: u32,
    /// VRAM pressure: memory used above this percent of total on any GPU.
    #[serde(default = "d::gpu_memory_alert_percent")]
    pub memory_alert_percent: u32,
}

impl Default for GpuMonitoring {
    fn default() -> Self {
        Self {
            enabled: None,
            idle_threshold_percent: d::gpu_idle_threshold_percent(),
            idle_minutes: d::gpu_idle_minutes(),
            memory_alert_percent: d::gpu_memory_alert_percent(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Budget {
    pub monthly: f64,
    #[serde(default = "d::currency")]
    pub currency: String,
    #[serde(default = "d::budget_thresholds")]
    pub alert_at_percent: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AutoShutdown {
    /// `HH:MM` local time at which the pool scales to zero.
    pub time: String,
    /// `HH:MM` local time at which the pool comes back on working days.
    #[serde(default = "d::auto_start_time")]
    pub start_time: String,
    pub time_zone: String,
    /// Stay at zero from Friday's shutdown until Monday's start.
    #[serde(default = "d::yes")]
    pub weekends: bool,
}
