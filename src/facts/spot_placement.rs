//! Spot capacity signals preflight reads for pools with a Spot share: the Compute Spot Placement
//! Score API (how likely a Spot request of N VMs of a size succeeds now, per region or zone) and
//! Azure Resource Graph's `SpotResources` table (eviction rates of the last 28 days, Spot price
//! history). `tests/facts_spot_placement.rs` holds every constant here to the dated excerpts in
//! `tests/fixtures/sources/spot-placement-score.json` and `resource-graph.json` (and the API
//! versions to `../shared/conformance/types/all-versions.json` when it is beside the checkout).
//!
//! Sources, read 2026-12-03:
//! - [`PLACEMENT_SPEC`]: azure-rest-api-specs `specification/compute/resource-manager/Microsoft.Compute/Recommender/stable/2025-06-05/RecommenderRP.json`
//!   @04e05c12e324b532dfce0ef6743f544905ffed7a (`SpotPlacementScores_Post`) and its example
//!   `examples/2025-06-05/GenerateSpotPlacementScores.json` @7badc190e0ee28a53469722c62f881e8abe819ec;
//! - [`PLACEMENT_DOC`]: Learn "Spot Placement Score" (MicrosoftDocs/azure-compute-docs
//!   `articles/virtual-machine-scale-sets/spot-placement-score.md` @0c6223e9484d9281f960129ff81c76e16e2eb2cf,
//!   page 05/19/2026): up to eight regions and five sizes, High/Medium/Low, API version
//!   2025-06-05, the "Compute Recommendations Role", "available for all public Azure regions",
//!   429 when rate limited;
//! - [`PLACEMENT_PERMISSION_DOC`]: Learn "Azure permissions for Compute" (MicrosoftDocs/azure-docs
//!   `articles/role-based-access-control/permissions/compute.md` @03e5750af10b23b5ba437d5b333ec5e9437844f9,
//!   page 03/08/2026): `Microsoft.Compute/locations/placementScores/generate/action`, "Create a
//!   request for generating Placement Scores";
//! - [`GRAPH_SPEC`]: azure-rest-api-specs `specification/resourcegraph/resource-manager/Microsoft.ResourceGraph/stable/2024-04-01/resourcegraph.json`
//!   (operation `Resources`) and its examples `ResourcesFirstPageQuery.json` /
//!   `ResourcesNextPageQuery.json`;
//! - [`SPOT_RESOURCES_DOC`]: Learn "Use Azure Spot Virtual Machines" (MicrosoftDocs/azure-compute-docs
//!   `articles/virtual-machines/spot-vms.md` @3bbed19b98e0d35bdd5ef8b280b3e59f6507d4fa): the
//!   `SpotResources` table, its two types and sample queries, "eviction rates for the last 28
//!   trailing days", "Eviction rates are quoted _per hour_", Spot not in 21Vianet;
//! - [`GRAPH_PERMISSION_DOC`], Learn "Azure permissions for Management and governance"
//!   (MicrosoftDocs/azure-docs `articles/role-based-access-control/permissions/management-and-governance.md`,
//!   stored version @f295d54dd810847c5ea04ac00087d674b37b425b): `Microsoft.ResourceGraph/resources/read`.
//!
//! What no Microsoft page settles, said as assumptions: the spelling of the eviction-rate bands
//! ([`EVICTION_BANDS`]), when a band counts as high ([`HIGH_EVICTION_FROM_PERCENT`]), and the
//! count asked for per zone ([`PER_ZONE_COUNT`]).

use super::Source;

pub const PLACEMENT_SPEC: Source = Source::doc(
    "Azure/azure-rest-api-specs specification/compute/resource-manager/Microsoft.Compute/Recommender/stable/2025-06-05/RecommenderRP.json@04e05c12e324b532dfce0ef6743f544905ffed7a \
     (SpotPlacementScores_Post; example examples/2025-06-05/GenerateSpotPlacementScores.json@7badc190e0ee28a53469722c62f881e8abe819ec)",
    "2026-12-03",
);

pub const PLACEMENT_DOC: Source = Source::doc(
    "https://learn.microsoft.com/azure/virtual-machine-scale-sets/spot-placement-score \
     (MicrosoftDocs/azure-compute-docs articles/virtual-machine-scale-sets/spot-placement-score.md@0c6223e9484d9281f960129ff81c76e16e2eb2cf, page 2026-05-19)",
    "2026-12-03",
);

pub const PLACEMENT_PERMISSION_DOC: Source = Source::doc(
    "https://learn.microsoft.com/azure/role-based-access-control/permissions/compute \
     (MicrosoftDocs/azure-docs articles/role-based-access-control/permissions/compute.md@03e5750af10b23b5ba437d5b333ec5e9437844f9, page 2026-03-08)",
    "2026-12-03",
);

pub const GRAPH_SPEC: Source = Source::doc(
    "Azure/azure-rest-api-specs specification/resourcegraph/resource-manager/Microsoft.ResourceGraph/stable/2024-04-01/resourcegraph.json \
     (operation Resources; examples ResourcesFirstPageQuery.json@a801e3d83e51b23a2e0c275f0ce251b931e337cf, ResourcesNextPageQuery.json@e282d2fe9e6dd8f4fae51c1908ca1c71a4276f9f)",
    "2026-12-03",
);

pub const SPOT_RESOURCES_DOC: Source = Source::doc(
    "https://learn.microsoft.com/azure/virtual-machines/spot-vms \
     (MicrosoftDocs/azure-compute-docs articles/virtual-machines/spot-vms.md@3bbed19b98e0d35bdd5ef8b280b3e59f6507d4fa, section \"Azure Resource Graph\")",
    "2026-12-03",
);

pub const GRAPH_PERMISSION_DOC: Source = Source::doc(
    "https://learn.microsoft.com/azure/role-based-access-control/permissions/management-and-governance \
     (MicrosoftDocs/azure-docs articles/role-based-access-control/permissions/management-and-governance.md@f295d54dd810847c5ea04ac00087d674b37b425b)",
    "2026-12-03",
);

// ---------------------------------------------------------------------------------------------
// Spot Placement Score

/// "The Placement Score API supports the following version: *2025-06-05*" (Learn); the stable
/// folder of the spec; `Microsoft.Compute/locations/placementScores` in the conformance kit's
/// type data lists it as the only GA version.
pub const PLACEMENT_API: &str = "2025-06-05";

/// `POST /subscriptions/{subscriptionId}/providers/Microsoft.Compute/locations/{location}/placementScores/spot/generate`
/// (`SpotPlacementScores_Post`); `{location}` is filled in, the rest is relative to the
/// subscription.
pub const PLACEMENT_PATH: &str =
    "providers/Microsoft.Compute/locations/{location}/placementScores/spot/generate";

/// Request body fields (`SpotPlacementScoresInput`): `desiredLocations: string[]`,
/// `desiredSizes: [{sku}]`, `desiredCount: int32` ("Desired instance count per region/zone
/// based on the scope"), `availabilityZones: boolean` ("Defines if the scope is zonal or
/// regional").
pub const PLACEMENT_REQUEST_FIELDS: [&str; 4] = [
    "desiredLocations",
    "desiredSizes",
    "desiredCount",
    "availabilityZones",
];

/// Fields of each `placementScores[]` entry of the answer (`PlacementScore`).
pub const PLACEMENT_SCORE_FIELDS: [&str; 5] = [
    "sku",
    "region",
    "availabilityZone",
    "score",
    "isQuotaAvailable",
];

/// "By inputting lists of up to eight regions and five VM sizes" / "Up to five VM sizes, Up to
/// eight regions" (Learn): one request carries at most this many of each.
pub const MAX_LOCATIONS: usize = 8;
pub const MAX_SIZES: usize = 5;

/// The scores, best first: "placement scores categorized as either High, Medium, or Low. A
/// score of High indicates that the deployment is highly likely to succeed while a score of Low
/// indicates that the deployment has a low chance of success" (Learn). The spec types `score`
/// as a free string.
pub const SCORES_BEST_FIRST: [&str; 3] = ["High", "Medium", "Low"];

/// The answer when Azure has no fresh data: the spec's own example returns
/// `"score": "DataNotFoundOrStale"` for eastus2 zone 1; Learn: "**Data Not Found** is returned
/// when the data necessary to generate a score [...] is either not found [...] or is found but
/// the data lifespan is greater than what our service considers \"fresh\"". Learn also names a
/// "**Restricted SKU**" answer without its wire spelling: every score outside
/// [`SCORES_BEST_FIRST`] is shown as Azure spells it and ranks as unscored.
pub const NO_DATA_SCORE: &str = "DataNotFoundOrStale";

/// The one action the API needs (Learn permissions page: "Create a request for generating
/// Placement Scores"); Reader does not carry it.
pub const PLACEMENT_ACTION: &str = "Microsoft.Compute/locations/placementScores/generate/action";

/// "You need to add the Role-Based Access Control (RBAC) role \"Compute Recommendations Role\""
/// (Learn).
pub const PLACEMENT_ROLE: &str = "Compute Recommendations Role";

/// "This feature is available for all public Azure regions at this time" (Learn): not in Azure
/// Government or Azure operated by 21Vianet; gpuform does not call it there.
pub const PLACEMENT_PUBLIC_CLOUD_ONLY: bool = true;

/// A zonal pool asks for a score per zone. `desiredCount` is "per region/zone based on the
/// scope"; a zonal scale set spreads its instances over its zones best effort, so the count a
/// zone must hold is not documented. gpuform asks for the pool's whole Spot count in every zone
/// (the stricter reading: a lower score is more likely); splitting it evenly over the zones is
/// the other reading (`preflight --spot-zone-count split`).
pub const PER_ZONE_COUNT: Source = Source::assumption(
    "desiredCount per zone for a zonal pool: no page says how many of a zonal scale set's Spot VMs one zone must hold; \
     gpuform asks for the whole Spot count in each zone (the stricter reading)",
    "2026-12-03",
);

// ---------------------------------------------------------------------------------------------
// Azure Resource Graph

/// The newest stable version in the spec folder (and in the conformance kit's type data for
/// Microsoft.ResourceGraph).
pub const GRAPH_API: &str = "2024-04-01";

/// `POST /providers/Microsoft.ResourceGraph/resources` (tenant-level path; the scopes go in the
/// body).
pub const GRAPH_PATH: &str = "providers/Microsoft.ResourceGraph/resources";

/// `QueryRequest` fields: `subscriptions`, `managementGroups`, `query` (the only required one),
/// `options` (`QueryRequestOptions`: `$skipToken`, `$top` 1..=1000, `$skip`, `resultFormat`
/// `table`|`objectArray` (default `objectArray`), `allowPartialScopes`,
/// `authorizationScopeFilter`), `facets`.
pub const GRAPH_REQUEST_FIELDS: [&str; 5] = [
    "subscriptions",
    "managementGroups",
    "query",
    "options",
    "facets",
];

/// `QueryResponse`'s required fields; `$skipToken` is there "When present, the value can be
/// passed to a subsequent query call (together with the same query and scopes used in the
/// current request) to retrieve the next page of data."
pub const GRAPH_RESPONSE_REQUIRED: [&str; 4] = ["totalRecords", "count", "resultTruncated", "data"];
pub const GRAPH_SKIP_TOKEN: &str = "$skipToken";
/// `options.$top` maximum.
pub const GRAPH_MAX_TOP: u32 = 1000;

/// "Spot pricing history and eviction rates data are available in the `SpotResources` table."
pub const SPOT_TABLE: &str = "SpotResources";
/// The row type of eviction rates (Learn's sample query: `where type =~
/// 'microsoft.compute/skuspotevictionrate/location'`, `sku.name`, `location`,
/// `properties.evictionRate`).
pub const EVICTION_TYPE: &str = "microsoft.compute/skuspotevictionrate/location";
/// The row type of Spot price history (`properties.osType`, `properties.spotPrices[0].priceUSD`).
pub const PRICE_HISTORY_TYPE: &str = "microsoft.compute/skuspotpricehistory/ostype/location";
/// "eviction rates for the last 28 trailing days"; "pricing history in the last 90 days".
pub const EVICTION_WINDOW_DAYS: u32 = 28;
pub const PRICE_HISTORY_DAYS: u32 = 90;

/// Learn: "Eviction rates are quoted _per hour_. For example, an eviction rate of 10% means a VM
/// has a 10% chance of being evicted within the next hour".
pub const EVICTION_PER_HOUR: bool = true;

/// `Microsoft.ResourceGraph/resources/read`: "Submits a query on resources within specified
/// subscriptions, management groups or tenant scope" (Reader carries `*/read`).
pub const GRAPH_ACTION: &str = "Microsoft.ResourceGraph/resources/read";

/// The bands `properties.evictionRate` takes. No Microsoft page lists the strings (Learn only
/// projects `tostring(properties.evictionRate)`); third-party write-ups quote the portal's
/// "0-5 %" to "20+ %" per hour. gpuform reads any `A-B` or `A+` band and shows an unknown
/// spelling as Azure wrote it.
pub const EVICTION_BANDS: Source = Source::assumption(
    "eviction-rate band spellings (\"0-5\", \"5-10\", \"10-15\", \"15-20\", \"20+\", percent per hour): no Microsoft page lists them; \
     gpuform parses any \"A-B\" or \"A+\" band",
    "2026-12-03",
);

/// A band whose lower bound is at least this many percent per hour is reported as a warning.
/// No page says what a high eviction rate is: at 10 % per hour a job of a few hours is more
/// likely than not to be interrupted. Assumption; `preflight --spot-high-eviction-from PERCENT`
/// takes another threshold.
pub const HIGH_EVICTION_FROM_PERCENT: u32 = 10;
pub const HIGH_EVICTION: Source = Source::assumption(
    "an eviction-rate band counts as high from 10 % per hour (gpuform's threshold; no page defines one)",
    "2026-12-03",
);

/// Learn: "Azure Spot Virtual Machines can be deployed to any region, except Microsoft Azure
/// operated by 21Vianet."
pub const SPOT_NOT_IN_CHINA: bool = true;

/// An eviction-rate band: `"5-10"` is 5..10 % per hour, `"20+"` is 20 % and above. `None` for a
/// spelling gpuform does not recognise (shown as Azure wrote it).
pub fn parse_band(s: &str) -> Option<(u32, Option<u32>)> {
    let t = s.trim().trim_end_matches('%').trim();
    if let Some(lo) = t.strip_suffix('+') {
        return lo
            .trim()
            .trim_end_matches('%')
            .parse()
            .ok()
            .map(|l| (l, None));
    }
    let (lo, hi) = t.split_once('-')?;
    let lo: u32 = lo.trim().trim_end_matches('%').trim().parse().ok()?;
    let hi: u32 = hi.trim().trim_end_matches('%').trim().parse().ok()?;
    (lo <= hi).then_some((lo, Some(hi)))
}

/// Is this band high ([`HIGH_EVICTION_FROM_PERCENT`])? Unknown spellings are not.
pub fn band_is_high(s: &str) -> bool {
    band_at_least(s, HIGH_EVICTION_FROM_PERCENT)
}

/// Is the band's lower bound at least `from` % per hour (`--spot-high-eviction-from`, the
/// other reading of [`HIGH_EVICTION`])?
pub fn band_at_least(s: &str, from: u32) -> bool {
    parse_band(s).is_some_and(|(lo, _)| lo >= from)
}

/// The rank of a score, best first (0 = High); `None` for no data or any other answer.
pub fn score_rank(score: &str) -> Option<usize> {
    SCORES_BEST_FIRST
        .iter()
        .position(|s| s.eq_ignore_ascii_case(score.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_parse_with_or_without_percent_signs() {
        assert_eq!(parse_band("0-5"), Some((0, Some(5))));
        assert_eq!(parse_band("5-10%"), Some((5, Some(10))));
        assert_eq!(parse_band("20+"), Some((20, None)));
        assert_eq!(parse_band("20%+"), Some((20, None)));
        assert_eq!(parse_band("10 - 15"), Some((10, Some(15))));
        assert_eq!(parse_band("high"), None);
        assert_eq!(parse_band("10-5"), None);
        assert!(!band_is_high("5-10"));
        assert!(band_is_high("10-15"));
        assert!(band_is_high("20+"));
        assert!(!band_is_high("unknown"));
    }

    #[test]
    fn scores_rank_high_medium_low_and_nothing_else() {
        assert_eq!(score_rank("High"), Some(0));
        assert_eq!(score_rank("medium"), Some(1));
        assert_eq!(score_rank("Low"), Some(2));
        assert_eq!(score_rank(NO_DATA_SCORE), None);
        assert_eq!(score_rank("RestrictedSkuNotAvailable"), None);
    }
}
