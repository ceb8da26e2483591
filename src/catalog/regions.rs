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

/// The IANA time zone of each region's location (the city or state Microsoft's region list
/// places it in: Amsterdam for westeurope, Virginia for eastus). gpuform's own mapping: no API
/// gives a region's time zone. Learned schedules use it when the spec has no time zone of its
/// own (`crate::spec::timezones::windows_name_of_iana` gives the Windows name autoscale takes).
pub const LOCAL_TIME_ZONES: &[(&str, &str)] = &[
    ("eastus", "America/New_York"),
    ("eastus2", "America/New_York"),
    ("centralus", "America/Chicago"),
    ("northcentralus", "America/Chicago"),
    ("southcentralus", "America/Chicago"),
    ("westcentralus", "America/Denver"),
    ("westus", "America/Los_Angeles"),
    ("westus2", "America/Los_Angeles"),
    ("westus3", "America/Phoenix"),
    ("canadacentral", "America/Toronto"),
    ("canadaeast", "America/Toronto"),
    ("brazilsouth", "America/Sao_Paulo"),
    ("brazilsoutheast", "America/Sao_Paulo"),
    ("mexicocentral", "America/Mexico_City"),
    ("chilecentral", "America/Santiago"),
    ("northeurope", "Europe/Dublin"),
    ("westeurope", "Europe/Amsterdam"),
    ("uksouth", "Europe/London"),
    ("ukwest", "Europe/London"),
    ("francecentral", "Europe/Paris"),
    ("francesouth", "Europe/Paris"),
    ("germanywestcentral", "Europe/Berlin"),
    ("germanynorth", "Europe/Berlin"),
    ("norwayeast", "Europe/Oslo"),
    ("norwaywest", "Europe/Oslo"),
    ("swedencentral", "Europe/Stockholm"),
    ("swedensouth", "Europe/Stockholm"),
    ("switzerlandnorth", "Europe/Zurich"),
    ("switzerlandwest", "Europe/Zurich"),
    ("polandcentral", "Europe/Warsaw"),
    ("italynorth", "Europe/Rome"),
    ("spaincentral", "Europe/Madrid"),
    ("austriaeast", "Europe/Vienna"),
    ("belgiumcentral", "Europe/Brussels"),
    ("denmarkeast", "Europe/Copenhagen"),
    ("israelcentral", "Asia/Jerusalem"),
    ("qatarcentral", "Asia/Qatar"),
    ("uaenorth", "Asia/Dubai"),
    ("uaecentral", "Asia/Dubai"),
    ("southafricanorth", "Africa/Johannesburg"),
    ("southafricawest", "Africa/Johannesburg"),
    ("centralindia", "Asia/Kolkata"),
    ("southindia", "Asia/Kolkata"),
    ("westindia", "Asia/Kolkata"),
    ("jioindiacentral", "Asia/Kolkata"),
    ("jioindiawest", "Asia/Kolkata"),
    ("eastasia", "Asia/Hong_Kong"),
    ("southeastasia", "Asia/Singapore"),
    ("japaneast", "Asia/Tokyo"),
    ("japanwest", "Asia/Tokyo"),
    ("koreacentral", "Asia/Seoul"),
    ("koreasouth", "Asia/Seoul"),
    ("australiaeast", "Australia/Sydney"),
    ("australiasoutheast", "Australia/Melbourne"),
    ("australiacentral", "Australia/Sydney"),
    ("australiacentral2", "Australia/Sydney"),
    ("newzealandnorth", "Pacific/Auckland"),
    ("indonesiacentral", "Asia/Jakarta"),
    ("malaysiawest", "Asia/Kuala_Lumpur"),
    ("chinaeast", "Asia/Shanghai"),
    ("chinaeast2", "Asia/Shanghai"),
    ("chinaeast3", "Asia/Shanghai"),
    ("chinanorth", "Asia/Shanghai"),
    ("chinanorth2", "Asia/Shanghai"),
    ("chinanorth3", "Asia/Shanghai"),
    ("usgovvirginia", "America/New_York"),
    ("usgovarizona", "America/Phoenix"),
    ("usgovtexas", "America/Chicago"),
    ("usdodcentral", "America/Chicago"),
    ("usdodeast", "America/New_York"),
];

/// The IANA time zone of `region`'s location, when gpuform knows it.
pub fn local_time_zone(region: &str) -> Option<&'static str> {
    LOCAL_TIME_ZONES
        .iter()
        .find(|(r, _)| *r == region)
        .map(|(_, z)| *z)
}

/// What "nearest" means where gpuform names the nearest regions that offer a size.
pub const NEAREST_BASIS: &str = "offered: priced in gpuform's price table, as the Retail Prices API lists a size only where Azure sells it; nearest: great-circle distance between Resource Manager's region coordinates";

/// A region that offers a size, and how far it is from the spec's.
#[derive(Debug, Clone, PartialEq)]
pub struct Nearby {
    pub region: &'static str,
    /// `None`: the coordinates source does not place one of the two regions.
    pub km: Option<f64>,
}

/// The regions the price table prices `size` in (Linux on demand), other than `from`, within
/// `allowed` when given, nearest `from` first (those without coordinates last, by name); at
/// most `n`.
pub fn nearest_offering(
    size: &str,
    from: &str,
    allowed: Option<&[String]>,
    prices: &super::prices::PriceTable,
    n: usize,
) -> Vec<Nearby> {
    use super::prices::{PriceKind, PriceOs};
    let mut out: Vec<Nearby> = REGIONS
        .iter()
        .copied()
        .filter(|r| *r != from)
        .filter(|r| allowed.is_none_or(|a| a.iter().any(|x| x.eq_ignore_ascii_case(r))))
        .filter(|r| {
            prices
                .hourly(size, r, PriceOs::Linux, PriceKind::OnDemand)
                .is_some()
        })
        .map(|r| Nearby {
            region: r,
            km: crate::facts::regions::distance_km(from, r),
        })
        .collect();
    out.sort_by(|a, b| match (a.km, b.km) {
        (Some(x), Some(y)) => x.total_cmp(&y).then(a.region.cmp(b.region)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.region.cmp(b.region),
    });
    out.truncate(n);
    out
}

/// `westeurope (about 60 km), francecentral (about 500 km)`.
pub fn list_nearby(list: &[Nearby]) -> String {
    list.iter()
        .map(|n| match n.km {
            Some(k) => format!("{} (about {} km)", n.region, round_km(k)),
            None => format!("{} (distance unknown)", n.region),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Kilometres to two significant figures, grouped (`60`, `480`, `1,200`, `8,300`).
fn round_km(k: f64) -> String {
    let mag = 10f64.powi((k.max(1.0).log10().floor() as i32 - 1).max(0));
    crate::report::number::count((k / mag).round() * mag)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::prices::PriceTable;

    #[test]
    fn the_nearest_regions_that_price_an_h100_from_francecentral() {
        let near = nearest_offering(
            "Standard_NC40ads_H100_v5",
            "francecentral",
            None,
            PriceTable::embedded(),
            3,
        );
        let names: Vec<_> = near.iter().map(|n| n.region).collect();
        // from central France: Zurich, London and Frankfurt are the closest regions selling it
        assert_eq!(
            names,
            ["switzerlandnorth", "uksouth", "germanywestcentral"],
            "{near:?}"
        );
        // a residency list keeps to its regions
        let allowed = vec!["swedencentral".to_string(), "westeurope".to_string()];
        let near = nearest_offering(
            "Standard_NC40ads_H100_v5",
            "francecentral",
            Some(&allowed),
            PriceTable::embedded(),
            3,
        );
        assert_eq!(
            near.iter().map(|n| n.region).collect::<Vec<_>>(),
            ["westeurope", "swedencentral"]
        );
        // francecentral's coordinates are central France: about 690 km to Amsterdam, 1,860 to
        // Gävle (two significant figures)
        assert_eq!(
            list_nearby(&near),
            "westeurope (about 690 km), swedencentral (about 1,900 km)"
        );
    }

    #[test]
    fn every_region_has_a_local_time_zone() {
        for r in REGIONS {
            let z = local_time_zone(r).unwrap_or_else(|| panic!("{r}"));
            assert!(jiff::tz::TimeZone::get(z).is_ok(), "{r}: {z}");
        }
    }

    #[test]
    fn kilometres_are_rounded_for_people() {
        assert_eq!(round_km(57.0), "57");
        assert_eq!(round_km(483.0), "480");
        assert_eq!(round_km(1234.0), "1,200");
        assert_eq!(round_km(0.0), "0");
    }
}
