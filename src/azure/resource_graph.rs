//! Azure Resource Graph queries: `POST {arm}/providers/Microsoft.ResourceGraph/resources`
//! (operation `Resources`, [`crate::facts::spot_placement::GRAPH_SPEC`]) with paging by
//! `$skipToken`.
//!
//! Body `{query, options: {resultFormat: "objectArray", $skipToken?}}`; answer `{totalRecords,
//! count, resultTruncated, $skipToken?, data: [..]}`. A next page sends "the same query and
//! scopes used in the current request" with the previous answer's `$skipToken` in `options`.
//! The query runs at tenant scope (no `subscriptions` in the body), as the portal's Resource
//! Graph Explorer that Learn's Spot page points to does: the `SpotResources` rows are not a
//! subscription's resources. Throttling (429 with `Retry-After`) and 5xx are retried by the
//! pipeline ([`super::http`]); what is left is an [`ArmError`].

use serde::Deserialize;
use serde_json::{Value, json};

use super::api::Arm;
use super::client::{Op, Verb};
use super::error::{ArmError, ErrorKind};

pub use crate::facts::spot_placement::GRAPH_API;
use crate::facts::spot_placement::{GRAPH_PATH, GRAPH_SKIP_TOKEN};

/// Pages gpuform follows before it calls the answer a loop.
pub const MAX_PAGES: usize = 100;

/// One page of a `Resources` answer.
#[derive(Debug, Deserialize)]
struct Page {
    #[serde(default, rename = "totalRecords")]
    _total_records: Option<i64>,
    /// `objectArray`: the rows. Anything else (a `table` object, a string) is malformed for us.
    data: Value,
    #[serde(default, rename = "$skipToken")]
    skip_token: Option<String>,
}

impl Arm {
    /// Run `query` (KQL) and return every row of every page, as JSON objects.
    pub async fn resource_graph(
        &self,
        what: &str,
        permission: &'static str,
        query: &str,
    ) -> Result<Vec<Value>, ArmError> {
        let op = Op::new(what.to_string(), permission);
        let url = self.client.url(GRAPH_PATH, GRAPH_API, &[]);
        let mut rows = Vec::new();
        let mut token: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        let mut bytes = 0u64;
        for _ in 0..MAX_PAGES {
            let mut options = json!({"resultFormat": "objectArray"});
            if let Some(t) = &token {
                options[GRAPH_SKIP_TOKEN] = Value::String(t.clone());
            }
            let body = json!({"query": query, "options": options});
            let res = self
                .client
                .send(&op, Verb::Post, url.clone(), Some(&body))
                .await?;
            bytes = bytes.saturating_add(res.body.len() as u64);
            if bytes > crate::facts::limits::ARM_LISTING_MAX_BYTES {
                return Err(ArmError::new(
                    ErrorKind::Decode,
                    &op.what,
                    format!(
                        "Resource Graph's pages came to more than {} (gpuform's limit, an assumption: no maximum is documented)",
                        super::http::fmt_bytes(crate::facts::limits::ARM_LISTING_MAX_BYTES)
                    ),
                ));
            }
            let page: Page = res.json(&op)?;
            match page.data {
                Value::Array(a) => rows.extend(a),
                other => {
                    let kind = match &other {
                        Value::Object(_) => "an object (table format?)",
                        Value::Null => "null",
                        _ => "not a list",
                    };
                    let mut e = ArmError::new(
                        ErrorKind::Decode,
                        &op.what,
                        format!("Resource Graph answered `data` as {kind}, not a list of rows"),
                    );
                    e.request_id = res.request_id.clone();
                    return Err(e);
                }
            }
            match page.skip_token.filter(|t| !t.is_empty()) {
                Some(t) => {
                    if !seen.insert(t.clone()) {
                        return Err(ArmError::new(
                            ErrorKind::Decode,
                            &op.what,
                            "Resource Graph returned the same $skipToken twice",
                        ));
                    }
                    token = Some(t);
                }
                None => return Ok(rows),
            }
        }
        Err(ArmError::new(
            ErrorKind::Decode,
            &op.what,
            format!("Resource Graph kept returning $skipToken after {MAX_PAGES} pages"),
        ))
    }
}
