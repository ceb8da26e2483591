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

/// Regions (ARM names) the page lists without StandardV2 NAT gateways.
pub const NO_STANDARD_V2: &[&str] = &[
    "canadaeast",
    "indonesiacentral",
    "israelnorthwest",
    "qatarcentral",
    "swedensouth",
    "westindia",
];

/// Does Microsoft's SKU page list `region` (ARM name, any case, spaces ignored) as offering
/// StandardV2 NAT gateways? A region the page does not name is taken to offer it.
pub fn standard_v2_offered(region: &str) -> bool {
    let r: String = region
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect();
    !NO_STANDARD_V2.contains(&r.as_str())
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
    }
}
