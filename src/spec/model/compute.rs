//! `spec.compute` and `spec.capacity`: the VM size, image, disks, driver, orchestration, health probe and the instance counts and priority mix.

use serde::{Deserialize, Serialize};

use super::defaults as d;
use crate::catalog::kinds::{GpuDriver, HyperVGeneration};

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
    /// Sizes `deploy` may fail over to when Azure has no capacity for `vmSize`, in order; each
    /// must fit the workload as `vmSize` does.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternate_sizes: Vec<String>,
    /// Zones per region, in order of preference: the pool is pinned to one of them at a time
    /// (the first in the spec's region), and `deploy` fails over to the next.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub zones_by_region: std::collections::BTreeMap<String, Vec<String>>,
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
            alternate_sizes: Vec::new(),
            zones_by_region: Default::default(),
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

/// The spec's default disk type (`compute.osDisk.type`, `dataDisks[].type`).
impl Default for DiskType {
    fn default() -> Self {
        Self::PremiumLrs
    }
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
    #[serde(default, rename = "type")]
    pub kind: DiskType,
}

impl Default for OsDisk {
    fn default() -> Self {
        Self {
            size_gib: d::os_disk_size(),
            kind: DiskType::default(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DiskCaching {
    None,
    ReadOnly,
    ReadWrite,
}

/// The spec's default data-disk caching (`dataDisks[].caching`).
impl Default for DiskCaching {
    fn default() -> Self {
        Self::ReadOnly
    }
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
    #[serde(default, rename = "type")]
    pub kind: DiskType,
    #[serde(default)]
    pub caching: DiskCaching,
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
    #[serde(
        default = "d::repair_grace_period",
        deserialize_with = "crate::spec::duration::iso_string"
    )]
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
