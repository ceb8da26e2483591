//! Spot capacity reads for preflight (issue 23): the Compute Spot Placement Score API and the
//! eviction rates of Azure Resource Graph's `SpotResources` table. Kept apart from
//! [`super::api`] like the landing-zone reads; [`super::ArmApi::spot`] hands it out, and
//! [`super::spot_arm`] implements it over ARM (this file imports nothing from `api`, so the
//! trait's mention in `api` makes no circle).
//!
//! REST calls ([`crate::facts::spot_placement`] has the sources):
//! - `POST /subscriptions/{s}/providers/Microsoft.Compute/locations/{location}/placementScores/spot/generate?api-version=2025-06-05`
//!   (`SpotPlacementScores_Post`), body `{desiredLocations, desiredSizes: [{sku}], desiredCount,
//!   availabilityZones}`, answer `{..the input.., placementScores: [{sku, region,
//!   availabilityZone, score, isQuotaAvailable}]}`. Needs
//!   `Microsoft.Compute/locations/placementScores/generate/action` (the Compute Recommendations
//!   Role); public regions only.
//! - `POST /providers/Microsoft.ResourceGraph/resources?api-version=2024-04-01` with a
//!   `SpotResources` query ([`super::resource_graph`]).

use serde::{Deserialize, Serialize};

use super::cloud::Cloud;
use super::error::ArmError;
use super::models::null_default;

pub use crate::facts::spot_placement::PLACEMENT_API;
use crate::facts::spot_placement::{EVICTION_TYPE, SPOT_TABLE};

/// What an identity without the action is told (named on 403).
pub const PLACEMENT_PERMISSION: &str = "Microsoft.Compute/locations/placementScores/generate/action (the Compute Recommendations Role on the subscription; Reader does not carry it)";
pub const GRAPH_PERMISSION: &str =
    "Microsoft.ResourceGraph/resources/read (e.g. Reader on the subscription)";

/// `{sku}` of `desiredSizes`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceSize {
    pub sku: String,
}

/// The body of a placement score request (`SpotPlacementScoresInput`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlacementRequest {
    pub desired_locations: Vec<String>,
    pub desired_sizes: Vec<ResourceSize>,
    /// "Desired instance count per region/zone based on the scope."
    pub desired_count: u32,
    /// Zonal (`true`) or regional scores.
    pub availability_zones: bool,
}

/// One `placementScores[]` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlacementScore {
    #[serde(default)]
    pub sku: Option<String>,
    #[serde(default)]
    pub region: Option<String>,
    #[serde(default)]
    pub availability_zone: Option<String>,
    #[serde(default)]
    pub score: Option<String>,
    #[serde(default)]
    pub is_quota_available: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PlacementResponse {
    #[serde(default, deserialize_with = "null_default")]
    pub(super) placement_scores: Vec<PlacementScore>,
}

/// One `microsoft.compute/skuspotevictionrate/location` row as the query projects it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvictionRate {
    pub sku_name: String,
    pub location: String,
    /// `properties.evictionRate` as Azure spells it ("0-5", "20+", ...).
    pub spot_eviction_rate: String,
}

/// The Spot reads preflight makes.
#[async_trait::async_trait]
pub trait SpotApi: Send + Sync {
    /// The cloud the client talks to (`None`: an endpoint gpuform does not recognise, e.g.
    /// `--arm-endpoint` to a private cloud).
    fn cloud(&self) -> Option<Cloud>;
    /// Spot placement scores; `location` is the region in the URL (any of the desired ones).
    async fn spot_placement_scores(
        &self,
        location: &str,
        request: &PlacementRequest,
    ) -> Result<Vec<PlacementScore>, ArmError>;
    /// Eviction-rate bands of `sizes` in `regions` (both case-insensitive; every page).
    async fn spot_eviction_rates(
        &self,
        sizes: &[String],
        regions: &[String],
    ) -> Result<Vec<EvictionRate>, ArmError>;
}

/// A size or region name that can go inside a KQL string literal as it is: ARM names are
/// letters, digits, `_` and `-` (anything else is dropped from the query, never escaped).
fn kql_safe(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 80
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Learn's eviction-rate sample query, for these sizes and regions, with `id` projected so the
/// pages come back in a stable order ("id field is required in the response to return the pages
/// in stable sorted fashion", the spec's paging example). `None` when no name is safe.
pub fn eviction_query(sizes: &[String], regions: &[String]) -> Option<String> {
    let list = |v: &[String]| {
        v.iter()
            .filter(|s| kql_safe(s))
            .map(|s| format!("'{}'", s.to_ascii_lowercase()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (s, r) = (list(sizes), list(regions));
    if s.is_empty() || r.is_empty() {
        return None;
    }
    Some(format!(
        "{SPOT_TABLE}\n| where type =~ '{EVICTION_TYPE}'\n| where sku.name in~ ({s})\n| where location in~ ({r})\n| project id, skuName = tostring(sku.name), location, spotEvictionRate = tostring(properties.evictionRate)\n| order by skuName asc, location asc"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_is_learns_sample_for_the_pools_sizes_and_regions() {
        let q = eviction_query(
            &["Standard_NC8as_T4_v3".into()],
            &["eastus2".into(), "westus3".into()],
        )
        .unwrap();
        assert!(q.starts_with(
            "SpotResources\n| where type =~ 'microsoft.compute/skuspotevictionrate/location'"
        ));
        assert!(q.contains("sku.name in~ ('standard_nc8as_t4_v3')"));
        assert!(q.contains("location in~ ('eastus2', 'westus3')"));
        assert!(q.contains("spotEvictionRate = tostring(properties.evictionRate)"));
    }

    #[test]
    fn names_that_could_break_out_of_a_string_literal_are_left_out() {
        let q = eviction_query(
            &[
                "Standard_NC8as_T4_v3".into(),
                "x') | union Resources //".into(),
            ],
            &["eastus2".into()],
        )
        .unwrap();
        assert!(!q.contains("union"));
        assert_eq!(eviction_query(&["a'b".into()], &["eastus".into()]), None);
    }

    #[test]
    fn the_request_body_uses_the_specs_field_names() {
        let r = PlacementRequest {
            desired_locations: vec!["eastus".into()],
            desired_sizes: vec![ResourceSize {
                sku: "Standard_D2_v2".into(),
            }],
            desired_count: 1,
            availability_zones: true,
        };
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            serde_json::json!({"desiredLocations": ["eastus"], "desiredSizes": [{"sku": "Standard_D2_v2"}], "desiredCount": 1, "availabilityZones": true})
        );
    }
}
