//! What each Azure cloud offers, as far as public sources say: its regions, the GPU sizes of the
//! catalog per region (`sovereign_sizes.json`, with source and date), whether the GPU driver
//! extensions are known to be published there, and where its prices come from.
//!
//! The public cloud's answers live elsewhere (the region list in [`super::regions`], the price
//! table for "offered in a region"); this module adds the sovereign clouds and says plainly
//! what is not known. Whatever is not known here, preflight's live Resource SKUs read decides.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use super::regions;
use crate::facts::clouds::Cloud;

/// One cloud's entry in `sovereign_sizes.json`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CloudSizes {
    /// True when a source lists the sizes per region; false when none does.
    pub listed: bool,
    /// Where the list comes from, or why there is none.
    pub source: String,
    pub as_of: String,
    pub regions: Vec<String>,
    pub regions_source: String,
    /// Size name -> regions the source lists it in.
    pub sizes: BTreeMap<String, Vec<String>>,
}

#[derive(Deserialize)]
struct File {
    clouds: BTreeMap<String, CloudSizes>,
}

fn file() -> &'static BTreeMap<String, CloudSizes> {
    static F: OnceLock<BTreeMap<String, CloudSizes>> = OnceLock::new();
    F.get_or_init(|| {
        let f: File = serde_json::from_str(include_str!("sovereign_sizes.json"))
            .expect("embedded sovereign_sizes.json is valid (tested)");
        f.clouds
    })
}

/// The sovereign cloud's size data (`None` for the public cloud).
pub fn sizes_of(cloud: Cloud) -> Option<&'static CloudSizes> {
    file().get(cloud.name())
}

/// The regions of `cloud` gpuform knows: for the public cloud the catalog's region list
/// without the sovereign ones, for a sovereign cloud its entry's (sourced) list.
pub fn regions_of(cloud: Cloud) -> Vec<&'static str> {
    match sizes_of(cloud) {
        Some(c) => c.regions.iter().map(String::as_str).collect(),
        None => regions::REGIONS
            .iter()
            .copied()
            .filter(|r| Cloud::for_region(r) == cloud)
            .collect(),
    }
}

/// What the public sources say about a size in a region of a cloud.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Offer {
    /// The public cloud: the price table and the live SKU read answer this (not this module).
    PublicCloud,
    /// The cloud's source lists the size in the region.
    Listed,
    /// The cloud's source lists sizes per region and this one is not listed in the region;
    /// `elsewhere` are the regions it is listed in (may be empty).
    NotListed {
        source: &'static str,
        as_of: &'static str,
        elsewhere: Vec<&'static str>,
    },
    /// No public source lists the cloud's sizes per region.
    Unpublished { why: &'static str },
}

pub fn offer(cloud: Cloud, region: &str, size: &str) -> Offer {
    let Some(c) = sizes_of(cloud) else {
        return Offer::PublicCloud;
    };
    if !c.listed {
        return Offer::Unpublished { why: &c.source };
    }
    let regions = c
        .sizes
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(size))
        .map(|(_, r)| r.as_slice())
        .unwrap_or_default();
    if regions.iter().any(|r| r.eq_ignore_ascii_case(region)) {
        Offer::Listed
    } else {
        Offer::NotListed {
            source: &c.source,
            as_of: &c.as_of,
            elsewhere: regions.iter().map(String::as_str).collect(),
        }
    }
}

/// The `az` commands that list what a region of `cloud` really offers.
pub fn how_to_check_sizes(cloud: Cloud, region: &str) -> String {
    format!(
        "check with `az cloud set --name {cloud}` then `az vm list-skus --location {region} --resource-type virtualMachines --query \"[?starts_with(name,'Standard_N')].name\" -o tsv`; `gpuform preflight` reads the same list"
    )
}

/// Whether the `Microsoft.HpcCompute` GPU driver extensions (NvidiaGpuDriverLinux/Windows,
/// AmdGpuDriverWindows) are known to be published in a cloud.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriverExtensions {
    /// Documented on Microsoft Learn (the extension pages describe the public cloud).
    Documented,
    /// No public source says which extension types and versions a sovereign cloud publishes.
    Unverified { why: &'static str },
}

/// Microsoft Learn's "NVIDIA GPU Driver Extension for Linux/Windows" and "AMD GPU Driver
/// Extension" pages name no cloud other than the public one, and the extensions' data
/// (Azure/azhpc-extensions, snapshot 2026-04-20 in ../shared/azure/driver-extensions-raw) has
/// no per-cloud list. The only sovereign mention found is the Linux N-series driver page's note
/// that NVadsA10_v5 stays on GRID 17.x "until the GRID 18 rollout in sovereign clouds" (Mar
/// 2026; quoted in ../shared/azure/gpu-skus.json): the extension exists there, but which
/// versions in which regions is not published. Checked 2026-12-02.
const SOVEREIGN_DRIVERS: &str = "Microsoft documents the GPU driver extensions (Microsoft.HpcCompute) for the public cloud only; no public list says which extension versions a sovereign cloud's regions publish (the Linux driver page only notes that the GRID 18 rollout to sovereign clouds lags)";

pub fn driver_extensions(cloud: Cloud) -> DriverExtensions {
    match cloud {
        Cloud::AzureCloud => DriverExtensions::Documented,
        Cloud::AzureChinaCloud | Cloud::AzureUSGovernment => DriverExtensions::Unverified {
            why: SOVEREIGN_DRIVERS,
        },
    }
}

/// The `az` command that lists the extension's versions in a region.
pub fn how_to_check_extension(cloud: Cloud, region: &str, extension: &str) -> String {
    format!(
        "check with `az cloud set --name {cloud}` then `az vm extension image list --location {region} --publisher Microsoft.HpcCompute --name {extension} --latest -o table`"
    )
}

/// Where `gpuform cost` gets a cloud's prices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PriceSource {
    /// The public Azure Retail Prices API (`prices.azure.com`, USD): it carries the public
    /// cloud's regions and Azure Government's (`armRegionName` `usgovvirginia`, `usgovarizona`,
    /// `usgovtexas`, ...; the meters' `location` is "US Gov Virginia" etc.).
    RetailApi,
    /// No price source gpuform reads.
    None { why: &'static str },
}

/// Azure operated by 21Vianet publishes its retail prices only as a CSV price sheet behind
/// `https://prices.azure.cn/api/retail/pricesheet/download?api-version=2023-06-01-preview`
/// (Microsoft Learn, "Azure Retail Prices API for China", read 2026-12-02): the response is a
/// download URL, and the page does not document the CSV's columns. gpuform does not read it, so
/// it has no China prices; the budget gate stays undecided, as for any missing price.
const CHINA_PRICES: &str = concat!(
    "no public price source for AzureChinaCloud that gpuform reads: 21Vianet publishes its own retail prices in CNY (a price list of its own, not a conversion of the global one) only as a CSV price sheet (",
    "https://prices.azure.cn/api/retail/pricesheet/download?api-version=2023-06-01-preview",
    ") whose columns are not documented, and the global Retail Prices API \"only supports prices on Commercial Cloud\": asked in CNY it converts the global prices, which are not Azure China's"
);

#[cfg(test)]
#[test]
fn the_china_price_sheet_is_the_facts() {
    assert!(CHINA_PRICES.contains(crate::facts::retail_prices::CHINA_PRICE_SHEET));
}

pub fn price_source(cloud: Cloud) -> PriceSource {
    match cloud {
        Cloud::AzureCloud | Cloud::AzureUSGovernment => PriceSource::RetailApi,
        Cloud::AzureChinaCloud => PriceSource::None { why: CHINA_PRICES },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_parses_and_names_catalog_sizes_and_the_clouds_regions() {
        for cloud in [Cloud::AzureChinaCloud, Cloud::AzureUSGovernment] {
            let c = sizes_of(cloud).unwrap();
            assert!(!c.source.is_empty() && !c.as_of.is_empty(), "{cloud}");
            for r in &c.regions {
                assert_eq!(Cloud::for_region(r), cloud, "{r}");
                assert!(regions::is_known(r), "{r} missing from regions.rs");
            }
            for (size, rs) in &c.sizes {
                assert!(super::super::find(size).is_some(), "{size}");
                assert!(rs.iter().all(|r| c.regions.contains(r)), "{size}: {rs:?}");
            }
        }
        // every sovereign region of regions.rs belongs to its cloud's list
        for r in regions::REGIONS {
            let cloud = Cloud::for_region(r);
            assert!(regions_of(cloud).contains(r), "{r}");
        }
        assert!(sizes_of(Cloud::AzureCloud).is_none());
    }

    #[test]
    fn offers_follow_the_source() {
        assert_eq!(
            offer(
                Cloud::AzureUSGovernment,
                "usgovvirginia",
                "standard_nc8as_t4_v3"
            ),
            Offer::Listed
        );
        match offer(
            Cloud::AzureUSGovernment,
            "usgovtexas",
            "Standard_NC8as_T4_v3",
        ) {
            Offer::NotListed { elsewhere, .. } => assert_eq!(elsewhere, ["usgovvirginia"]),
            o => panic!("{o:?}"),
        }
        assert!(matches!(
            offer(
                Cloud::AzureUSGovernment,
                "usgovvirginia",
                "Standard_ND96isr_H100_v5"
            ),
            Offer::NotListed { ref elsewhere, .. } if elsewhere.is_empty()
        ));
        assert!(matches!(
            offer(
                Cloud::AzureChinaCloud,
                "chinanorth3",
                "Standard_NC24ads_A100_v4"
            ),
            Offer::Unpublished { .. }
        ));
        assert_eq!(
            offer(Cloud::AzureCloud, "eastus", "Standard_NC8as_T4_v3"),
            Offer::PublicCloud
        );
    }

    #[test]
    fn only_the_public_cloud_and_azure_government_have_a_price_source() {
        assert_eq!(price_source(Cloud::AzureCloud), PriceSource::RetailApi);
        assert_eq!(
            price_source(Cloud::AzureUSGovernment),
            PriceSource::RetailApi
        );
        assert!(matches!(
            price_source(Cloud::AzureChinaCloud),
            PriceSource::None { why } if why.contains("AzureChinaCloud")
        ));
    }
}
