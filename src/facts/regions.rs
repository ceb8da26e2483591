//! Where Azure regions are: the latitude and longitude Resource Manager gives each region (for
//! "the nearest regions that offer a size").
//!
//! Source: `metadata.latitude` / `metadata.longitude` of the Subscriptions - List Locations
//! answer (<https://learn.microsoft.com/rest/api/resources/subscriptions/list-locations>; what
//! `az account list-locations` prints), as copied in RakeemRanger/fastAzureRegionsAPI
//! `azure_geos.py`@813706b1cc5466b06e417b665b2b0c84da09b301 (undated), read 2026-12-05; a dated
//! copy is `tests/fixtures/sources/region-coordinates.json`. Regions newer than that copy
//! (spaincentral, newzealandnorth, indonesiacentral, malaysiawest, chilecentral, austriaeast,
//! belgiumcentral, denmarkeast, swedensouth) and the sovereign clouds' regions have no
//! coordinates here: "nearest" lists them after the ones it can place, and says so.

use super::Source;

pub const SOURCE: Source = Source::doc(
    "https://learn.microsoft.com/rest/api/resources/subscriptions/list-locations (metadata.latitude/longitude), \
     as copied in RakeemRanger/fastAzureRegionsAPI azure_geos.py@813706b1cc5466b06e417b665b2b0c84da09b301",
    "2026-12-05",
);

/// (ARM name, latitude, longitude) in degrees.
pub const COORDINATES: &[(&str, f64, f64)] = &[
    ("eastus", 37.3719, -79.8164),
    ("eastus2", 36.6681, -78.3889),
    ("southcentralus", 29.4167, -98.5),
    ("westus2", 47.233, -119.852),
    ("westus3", 33.448376, -112.074036),
    ("australiaeast", -33.86, 151.2094),
    ("southeastasia", 1.283, 103.833),
    ("northeurope", 53.3478, -6.2597),
    ("swedencentral", 60.67488, 17.14127),
    ("uksouth", 50.941, -0.799),
    ("westeurope", 52.3667, 4.9),
    ("centralus", 41.5908, -93.6208),
    ("southafricanorth", -25.73134, 28.21837),
    ("centralindia", 18.5822, 73.9197),
    ("eastasia", 22.267, 114.188),
    ("japaneast", 35.68, 139.77),
    ("koreacentral", 37.5665, 126.978),
    ("canadacentral", 43.653, -79.383),
    ("francecentral", 46.3772, 2.373),
    ("germanywestcentral", 50.110924, 8.682127),
    ("italynorth", 45.46888, 9.18109),
    ("norwayeast", 59.913868, 10.752245),
    ("polandcentral", 52.23334, 21.01666),
    ("switzerlandnorth", 47.451542, 8.564572),
    ("mexicocentral", 20.588818, -100.389888),
    ("uaenorth", 25.266666, 55.316666),
    ("brazilsouth", -23.55, -46.633),
    ("israelcentral", 31.2655698, 33.4506633),
    ("qatarcentral", 25.551462, 51.439327),
    ("northcentralus", 41.8819, -87.6278),
    ("westus", 37.783, -122.417),
    ("japanwest", 34.6939, 135.5022),
    ("jioindiawest", 22.470701, 70.05773),
    ("westcentralus", 40.89, -110.234),
    ("southafricawest", -34.075691, 18.843266),
    ("australiacentral", -35.3075, 149.1244),
    ("australiacentral2", -35.3075, 149.1244),
    ("australiasoutheast", -37.8136, 144.9631),
    ("jioindiacentral", 21.146633, 79.08886),
    ("koreasouth", 35.1796, 129.0756),
    ("southindia", 12.9822, 80.1636),
    ("westindia", 19.088, 72.868),
    ("canadaeast", 46.817, -71.217),
    ("francesouth", 43.8345, 2.1972),
    ("germanynorth", 53.073635, 8.806422),
    ("norwaywest", 58.969975, 5.733107),
    ("switzerlandwest", 46.204391, 6.143158),
    ("ukwest", 53.427, -3.084),
    ("uaecentral", 24.466667, 54.366669),
    ("brazilsoutheast", -22.90278, -43.2075),
];

/// The coordinates of `region` (ARM name), when the source gives them.
pub fn coordinates(region: &str) -> Option<(f64, f64)> {
    COORDINATES
        .iter()
        .find(|(n, ..)| *n == region)
        .map(|&(_, lat, lon)| (lat, lon))
}

/// Great-circle distance in kilometres between two regions' coordinates (haversine, mean Earth
/// radius 6371 km): `None` when either has none.
pub fn distance_km(a: &str, b: &str) -> Option<f64> {
    let (la1, lo1) = coordinates(a)?;
    let (la2, lo2) = coordinates(b)?;
    let (p1, p2) = (la1.to_radians(), la2.to_radians());
    let dp = (la2 - la1).to_radians();
    let dl = (lo2 - lo1).to_radians();
    let h = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    Some(2.0 * 6371.0 * h.sqrt().asin())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_are_plausible() {
        // Amsterdam to Dublin is about 750 km; a region is 0 km from itself
        let d = distance_km("westeurope", "northeurope").unwrap();
        assert!((700.0..800.0).contains(&d), "{d}");
        assert_eq!(distance_km("eastus", "eastus"), Some(0.0));
        assert_eq!(distance_km("eastus", "spaincentral"), None);
    }
}
