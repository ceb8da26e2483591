//! The ARM implementation of [`SpotApi`]: the Spot Placement Score POST and the
//! `SpotResources` query through [`super::resource_graph`].

use super::api::{Arm, ArmApi};
use super::client::{Op, enc};
use super::cloud::Cloud;
use super::error::ArmError;
use super::spot_placement::{
    EvictionRate, GRAPH_PERMISSION, PLACEMENT_API, PLACEMENT_PERMISSION, PlacementRequest,
    PlacementResponse, PlacementScore, SpotApi, eviction_query,
};
use crate::facts::spot_placement::PLACEMENT_PATH;

#[async_trait::async_trait]
impl SpotApi for Arm {
    fn cloud(&self) -> Option<Cloud> {
        let ep = self.client.cloud_endpoint();
        Cloud::ALL
            .into_iter()
            .find(|c| url::Url::parse(c.arm_endpoint()).is_ok_and(|u| u.origin() == ep.origin()))
    }

    async fn spot_placement_scores(
        &self,
        location: &str,
        request: &PlacementRequest,
    ) -> Result<Vec<PlacementScore>, ArmError> {
        let op = Op::new(
            format!("read Spot placement scores from {location}"),
            PLACEMENT_PERMISSION,
        );
        let path = format!(
            "subscriptions/{}/{}",
            self.subscription(),
            PLACEMENT_PATH.replace("{location}", &enc(location))
        );
        let url = self.client.url(&path, PLACEMENT_API, &[]);
        let body = serde_json::to_value(request).expect("the request serialises");
        let res: PlacementResponse = self.client.post_json(&op, url, &body).await?;
        Ok(res.placement_scores)
    }

    async fn spot_eviction_rates(
        &self,
        sizes: &[String],
        regions: &[String],
    ) -> Result<Vec<EvictionRate>, ArmError> {
        let Some(query) = eviction_query(sizes, regions) else {
            return Ok(Vec::new());
        };
        let what = "read Spot eviction rates from Azure Resource Graph";
        let rows = self.resource_graph(what, GRAPH_PERMISSION, &query).await?;
        // rows without the three fields are skipped, not fatal (the projection names them)
        Ok(rows
            .into_iter()
            .filter_map(|r| serde_json::from_value::<EvictionRate>(r).ok())
            .collect())
    }
}
