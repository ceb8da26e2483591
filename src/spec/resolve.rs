//! What a spec means once the catalog is consulted: the concrete image, its OS and generation,
//! and the driver plan. Shared by the rules, the plan and the emitters.

use serde::Serialize;

use super::model::*;
use crate::catalog::GpuSize;
use crate::catalog::drivers::{self, DriverOs, DriverPlan, DriverProblem};

use crate::facts::images;
/// A marketplace image the aliases stand for (a fact: [`crate::facts::images`]).
pub use crate::facts::images::MarketplaceImage;

/// Everything about the image later stages need.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedImage {
    /// `ubuntu-22.04`, ... or `custom`.
    pub label: String,
    pub publisher: Option<String>,
    pub offer: Option<String>,
    pub sku: Option<String>,
    pub version: Option<String>,
    pub id: Option<String>,
    pub os: OsType,
    pub generation: HyperVGeneration,
    pub has_gpu_drivers: bool,
    pub is_hpc: bool,
    #[serde(skip)]
    pub driver_os: DriverOs,
}

pub fn alias_image(alias: ImageAlias) -> (MarketplaceImage, OsType, DriverOs, bool) {
    match alias {
        ImageAlias::Ubuntu2204 | ImageAlias::Auto => (
            images::UBUNTU_2204,
            OsType::Linux,
            DriverOs::Ubuntu2204,
            false,
        ),
        ImageAlias::Ubuntu2404 => (
            images::UBUNTU_2404,
            OsType::Linux,
            DriverOs::Ubuntu2404,
            false,
        ),
        ImageAlias::UbuntuHpc2204 => (
            images::UBUNTU_HPC_2204,
            OsType::Linux,
            DriverOs::Ubuntu2204,
            true,
        ),
        ImageAlias::UbuntuHpcRocm2204 => (
            images::UBUNTU_HPC_ROCM_2204,
            OsType::Linux,
            DriverOs::Ubuntu2204,
            true,
        ),
        ImageAlias::Windows2022 => (
            images::WINDOWS_2022_AZURE_EDITION,
            OsType::Windows,
            DriverOs::Windows,
            false,
        ),
    }
}

/// Whose GPUs the drivers of an alias image serve (`None`: the image has no GPU drivers).
pub fn alias_driver_vendor(alias: ImageAlias) -> Option<crate::catalog::GpuVendor> {
    match alias {
        ImageAlias::UbuntuHpc2204 => Some(crate::catalog::GpuVendor::Nvidia),
        ImageAlias::UbuntuHpcRocm2204 => Some(crate::catalog::GpuVendor::Amd),
        _ => None,
    }
}

/// The alias `image: auto` stands for on `size`.
pub fn auto_image(size: Option<&GpuSize>) -> ImageAlias {
    match size {
        Some(s) if s.driver.default == crate::catalog::DefaultDriver::Image => {
            if s.gpu_vendor == crate::catalog::GpuVendor::Amd {
                ImageAlias::UbuntuHpcRocm2204
            } else {
                ImageAlias::UbuntuHpc2204
            }
        }
        _ => ImageAlias::Ubuntu2204,
    }
}

/// What an image says about the drivers it can take: its OS, the driver plan's OS and whether
/// it brings GPU drivers. [`image`]'s fields of the same names, without its strings: the
/// sizing asks it of all 72 sizes of the catalog for every spec (issue 41).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageBasics {
    pub os: OsType,
    pub driver_os: DriverOs,
    pub has_gpu_drivers: bool,
}

pub fn image_basics(img: &Image) -> ImageBasics {
    match img {
        Image::Alias(a) => {
            let (_, os, driver_os, has_gpu_drivers) = alias_image(*a);
            ImageBasics {
                os,
                driver_os,
                has_gpu_drivers,
            }
        }
        Image::Reference(r) => ImageBasics {
            os: r.os,
            driver_os: custom_driver_os(r.os, &r.offer, &r.sku),
            has_gpu_drivers: r.has_gpu_drivers,
        },
        Image::Id(i) => ImageBasics {
            os: i.os,
            driver_os: if i.os == OsType::Windows {
                DriverOs::Windows
            } else {
                DriverOs::OtherLinux
            },
            has_gpu_drivers: i.has_gpu_drivers,
        },
    }
}

pub fn image(img: &Image) -> ResolvedImage {
    let basics = image_basics(img);
    match img {
        Image::Alias(a) => {
            let (m, ..) = alias_image(*a);
            ResolvedImage {
                label: a.as_str().to_string(),
                publisher: Some(m.publisher.into()),
                offer: Some(m.offer.into()),
                sku: Some(m.sku.into()),
                version: Some(m.version.into()),
                id: None,
                os: basics.os,
                generation: HyperVGeneration::V2,
                has_gpu_drivers: basics.has_gpu_drivers,
                is_hpc: matches!(a, ImageAlias::UbuntuHpc2204 | ImageAlias::UbuntuHpcRocm2204),
                driver_os: basics.driver_os,
            }
        }
        Image::Reference(r) => ResolvedImage {
            label: format!("{}:{}:{}:{}", r.publisher, r.offer, r.sku, r.version),
            publisher: Some(r.publisher.clone()),
            offer: Some(r.offer.clone()),
            sku: Some(r.sku.clone()),
            version: Some(r.version.clone()),
            id: None,
            os: basics.os,
            generation: r.generation,
            has_gpu_drivers: basics.has_gpu_drivers,
            is_hpc: r.has_gpu_drivers || r.offer.to_ascii_lowercase().contains("hpc"),
            driver_os: basics.driver_os,
        },
        Image::Id(i) => ResolvedImage {
            label: "custom image".into(),
            publisher: None,
            offer: None,
            sku: None,
            version: None,
            id: Some(i.id.clone()),
            os: basics.os,
            generation: i.generation,
            has_gpu_drivers: basics.has_gpu_drivers,
            is_hpc: i.has_gpu_drivers,
            driver_os: basics.driver_os,
        },
    }
}

fn custom_driver_os(os: OsType, offer: &str, sku: &str) -> DriverOs {
    if os == OsType::Windows {
        return DriverOs::Windows;
    }
    let o = format!("{offer} {sku}").to_ascii_lowercase();
    if o.contains("jammy") || o.contains("22_04") || o.contains("22.04") {
        DriverOs::Ubuntu2204
    } else if o.contains("24_04") || o.contains("24.04") || o.contains("noble") {
        DriverOs::Ubuntu2404
    } else {
        DriverOs::OtherLinux
    }
}

/// The driver plan for the spec's pool on `size`.
pub fn driver(spec: &WorkloadSpec, size: &GpuSize) -> Result<DriverPlan, DriverProblem> {
    let img = image(&spec.compute.image);
    drivers::plan(
        size,
        img.driver_os,
        spec.compute.gpu_driver,
        img.has_gpu_drivers,
        spec.compute.driver_version.as_deref(),
    )
}
