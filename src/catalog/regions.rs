//! Azure region names (`location`), for spotting typos. A name missing here is only a warning:
//! Azure adds regions, and preflight asks the live API.

pub const REGIONS: &[&str] = &[
    // Americas
    "eastus",
    "eastus2",
    "centralus",
    "northcentralus",
    "southcentralus",
    "westcentralus",
    "westus",
    "westus2",
    "westus3",
    "canadacentral",
    "canadaeast",
    "brazilsouth",
    "brazilsoutheast",
    "mexicocentral",
    "chilecentral",
    // Europe
    "northeurope",
    "westeurope",
    "uksouth",
    "ukwest",
    "francecentral",
    "francesouth",
    "germanywestcentral",
    "germanynorth",
    "norwayeast",
    "norwaywest",
    "swedencentral",
    "swedensouth",
    "switzerlandnorth",
    "switzerlandwest",
    "polandcentral",
    "italynorth",
    "spaincentral",
    "austriaeast",
    "belgiumcentral",
    "denmarkeast",
    // Middle East and Africa
    "israelcentral",
    "qatarcentral",
    "uaenorth",
    "uaecentral",
    "southafricanorth",
    "southafricawest",
    // Asia Pacific
    "centralindia",
    "southindia",
    "westindia",
    "jioindiacentral",
    "jioindiawest",
    "eastasia",
    "southeastasia",
    "japaneast",
    "japanwest",
    "koreacentral",
    "koreasouth",
    "australiaeast",
    "australiasoutheast",
    "australiacentral",
    "australiacentral2",
    "newzealandnorth",
    "indonesiacentral",
    "malaysiawest",
    // Azure operated by 21Vianet (AzureChinaCloud): docs.azure.cn "Azure regions list",
    // programmatic names, read 2026-12-02; chinaeast3 is access restricted
    "chinaeast",
    "chinaeast2",
    "chinaeast3",
    "chinanorth",
    "chinanorth2",
    "chinanorth3",
    // Azure Government (AzureUSGovernment): the Resource SKUs locations in microsoft/ga4gh-tes
    // BatchSupportedVmSizeInformation_AZUREUSGOVERNMENT.json @ cbbc38c5 (2024-03-05); each
    // cloud's list with its GPU sizes is in sovereign_sizes.json (catalog::clouds)
    "usgovvirginia",
    "usgovarizona",
    "usgovtexas",
    "usdodcentral",
    "usdodeast",
];

/// The ARM spelling of a region as people type it: `West Europe`, `West-Europe` and
/// `westeurope` are all `westeurope` (lowercase, without spaces, hyphens or underscores).
pub fn arm_name(typed: &str) -> String {
    typed
        .trim()
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-' && *c != '_')
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

pub fn is_known(region: &str) -> bool {
    REGIONS.contains(&region)
}
