//! Azure NAT Gateway SKUs: where StandardV2 (zone-redundant) is not offered.
//!
//! Source: Microsoft Learn, "Azure NAT Gateway SKUs",
//! <https://learn.microsoft.com/azure/nat-gateway/nat-sku> (MicrosoftDocs/azure-docs
//! `articles/nat-gateway/nat-sku.md`@0b8729eaf7eb0aabc6390cb17348d19761285f12, page dated
//! 2026-07-27; read 2026-12-03), "Known limitations": "The following regions don't support
//! StandardV2 NAT gateways: Canada East, Indonesia Central, Israel Northwest, Qatar Central,
//! Sweden South, West India". The same page: the Standard SKU "is a zonal resource", StandardV2
//! "is zone redundant by default", and "Standard and StandardV2 NAT gateways are the same price".
//! A subnet takes one NAT gateway ("Attach point: Subnet").

use super::Source;

pub const SOURCE: Source = Source::doc(
    "https://learn.microsoft.com/azure/nat-gateway/nat-sku \
     (MicrosoftDocs/azure-docs articles/nat-gateway/nat-sku.md@0b8729eaf7eb0aabc6390cb17348d19761285f12, page 2026-07-27)",
    "2026-12-03",
);

/// What preflight could not find: an Azure API that says which NAT gateway SKUs a region offers.
/// Looked for (2026-12-03): the Microsoft.Network provider (`GET
/// /subscriptions/{id}/providers/Microsoft.Network`) lists the regions of each resource type
/// (`resourceTypes[natGateways].locations`), not its SKUs; Resource SKUs
/// (`Microsoft.Compute/skus`) lists Compute SKUs only; the Network REST API (2025-05-01) has no
/// per-location NAT gateway SKU operation; the SKU page changes its list by hand
/// (MicrosoftDocs/azure-docs pull request 128132, 2026-01-23, "Update unsupported regions for
/// StandardV2 NAT Gateway"). So preflight cannot confirm StandardV2 live: it reports the page's
/// list and says that it is the page's, and a region the page does not name is assumed to
/// offer it.
pub const NO_SKU_API: Source = Source::assumption(
    "no Azure API lists NAT gateway SKUs by region (Microsoft.Network's provider resourceTypes give natGateways locations, not SKUs; Resource SKUs cover Compute): StandardV2 availability is the NAT SKU page's list, a region it does not name is assumed to offer it",
    "2026-12-03",
);

/// Regions (ARM names) the page lists without StandardV2 NAT gateways.
pub const NO_STANDARD_V2: &[&str] = &[
    "canadaeast",
    "indonesiacentral",
    "israelnorthwest",
    "qatarcentral",
    "swedensouth",
    "westindia",
];

/// The SKU page is the public cloud's (its region names are public regions), and no page found
/// lists StandardV2 NAT gateways in Azure Government or Azure operated by 21Vianet (searched
/// 2026-12-05: the NAT SKU page, the NAT gateway overview and availability-zones pages, the
/// Azure Government and 21Vianet documentation's service lists). gpuform renders StandardV2
/// only where a source lists it: in a sovereign cloud a pool across zones gets one Standard
/// gateway without a zone (and the `nat-standardv2-unavailable` warning).
pub const SOVEREIGN: Source = Source::doc(
    "https://learn.microsoft.com/azure/nat-gateway/nat-sku lists public-cloud regions only; no page found lists StandardV2 NAT gateways in Azure Government or Azure operated by 21Vianet",
    "2026-12-05",
);

/// Why `region` (ARM name, any case, spaces ignored) gets no StandardV2 NAT gateway: the SKU
/// page names it ([`SOURCE`]), or it is a sovereign cloud's, which no page lists ([`SOVEREIGN`]).
/// `None`: the page's cloud, not named on its list (taken to offer it, [`NO_SKU_API`]).
pub fn standard_v2_missing(region: &str) -> Option<&'static str> {
    let r: String = region
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect();
    if super::clouds::Cloud::for_region(&r) != super::clouds::Cloud::AzureCloud {
        Some("no page lists StandardV2 NAT gateways in its cloud")
    } else if NO_STANDARD_V2.contains(&r.as_str()) {
        Some("Microsoft's NAT SKU page lists it without StandardV2")
    } else {
        None
    }
}

/// Does a source list StandardV2 NAT gateways in `region`? ([`standard_v2_missing`].)
pub fn standard_v2_offered(region: &str) -> bool {
    standard_v2_missing(region).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pages_regions_lack_standard_v2() {
        for r in [
            "Canada East",
            "Indonesia Central",
            "Israel Northwest",
            "Qatar Central",
            "Sweden South",
            "West India",
        ] {
            assert!(!standard_v2_offered(r), "{r}");
        }
        assert!(standard_v2_offered("westeurope"));
        assert!(standard_v2_offered("swedencentral"));
        // no page lists StandardV2 in the sovereign clouds
        assert!(!standard_v2_offered("usgovvirginia"));
        assert!(!standard_v2_offered("chinanorth3"));
    }
}
