//! Fake Spot Placement Score and Resource Graph endpoints with the shapes of the sources (the
//! spec's `GenerateSpotPlacementScores.json` and `ResourcesNextPageQuery.json` examples, copied
//! in `tests/fixtures/sources/`), refusing what Azure refuses: an api-version the service does
//! not have, more than eight regions or five sizes, a missing `query`, a `$top` above 1000, a
//! `$skipToken` it never issued. Written from the sources, not from gpuform's facts.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde_json::{Value, json};
use wiremock::{Request, Respond, ResponseTemplate};

/// `api-version` of the stable Spot Placement Score spec (RecommenderRP.json 2025-06-05) and the
/// preview ones the type data lists.
pub const PLACEMENT_VERSIONS: [&str; 4] = [
    "2025-06-05",
    "2026-05-05-preview",
    "2025-02-01-preview",
    "2024-06-01-preview",
];
/// Resource Graph stable versions (the spec's stable folders).
pub const GRAPH_VERSIONS: [&str; 4] = ["2019-04-01", "2021-03-01", "2022-10-01", "2024-04-01"];

fn bad_request(code: &str, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(400).set_body_json(json!({"error": {"code": code, "message": message}}))
}

fn api_version(req: &Request) -> Option<String> {
    req.url
        .query_pairs()
        .find(|(k, _)| k == "api-version")
        .map(|(_, v)| v.into_owned())
}

/// The Spot Placement Score POST: a score per (region, zone), `default` for the rest;
/// `quota_short` regions answer `isQuotaAvailable: false`.
pub struct Placement {
    pub scores: BTreeMap<(String, Option<String>), String>,
    /// A score per (region, size), ahead of [`Self::scores`].
    pub size_scores: BTreeMap<(String, String), String>,
    pub default: String,
    pub quota_short: Vec<String>,
    /// The bodies received (for assertions on desiredCount and friends).
    pub seen: Mutex<Vec<Value>>,
    /// Every answer waits this long (a slow service).
    pub delay: std::time::Duration,
}

impl Placement {
    pub fn new(default: &str) -> Self {
        Placement {
            scores: BTreeMap::new(),
            size_scores: BTreeMap::new(),
            default: default.into(),
            quota_short: Vec::new(),
            seen: Mutex::new(Vec::new()),
            delay: std::time::Duration::ZERO,
        }
    }

    pub fn delay_all(mut self, d: std::time::Duration) -> Self {
        self.delay = d;
        self
    }

    /// Every zone of `size` in `region` scores `score`.
    pub fn size_score(mut self, region: &str, size: &str, score: &str) -> Self {
        self.size_scores
            .insert((region.into(), size.into()), score.into());
        self
    }

    pub fn score(mut self, region: &str, zone: Option<&str>, score: &str) -> Self {
        self.scores
            .insert((region.into(), zone.map(str::to_string)), score.into());
        self
    }
}

impl Respond for Placement {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        match api_version(req) {
            Some(v) if PLACEMENT_VERSIONS.contains(&v.as_str()) => {}
            v => {
                return bad_request(
                    "NoRegisteredProviderFound",
                    &format!(
                        "No registered resource provider found for location and API version '{}'",
                        v.unwrap_or_default()
                    ),
                );
            }
        }
        let Ok(body) = serde_json::from_slice::<Value>(&req.body) else {
            return bad_request(
                "InvalidRequestContent",
                "The request content was invalid and could not be deserialized.",
            );
        };
        self.seen.lock().unwrap().push(body.clone());
        let locs: Vec<String> = body["desiredLocations"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let sizes: Vec<String> = body["desiredSizes"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v["sku"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let count = body["desiredCount"].as_i64().unwrap_or(0);
        // Learn's troubleshooting table: 400 when "At least one required input parameter isn't
        // present, or the values of the provided parameters aren't valid"; up to eight regions
        // and five sizes
        if locs.is_empty() || locs.len() > 8 || sizes.is_empty() || sizes.len() > 5 || count < 1 {
            return bad_request(
                "BadRequest",
                "At least one required input parameter isn't present, or the values of the provided parameters aren't valid.",
            );
        }
        let zonal = body["availabilityZones"].as_bool().unwrap_or(false);
        let mut out = Vec::new();
        for l in &locs {
            for s in &sizes {
                let zones: Vec<Option<String>> = if zonal {
                    ["1", "2", "3"]
                        .iter()
                        .map(|z| Some(z.to_string()))
                        .collect()
                } else {
                    vec![None]
                };
                for z in zones {
                    let score = self
                        .size_scores
                        .get(&(l.clone(), s.clone()))
                        .or_else(|| self.scores.get(&(l.clone(), z.clone())))
                        .or_else(|| self.scores.get(&(l.clone(), None)))
                        .cloned()
                        .unwrap_or_else(|| self.default.clone());
                    let mut row = json!({
                        "isQuotaAvailable": !self.quota_short.contains(l),
                        "region": l,
                        "score": score,
                        "sku": s,
                    });
                    if let Some(z) = z {
                        row["availabilityZone"] = json!(z);
                    }
                    out.push(row);
                }
            }
        }
        ResponseTemplate::new(200)
            .set_delay(self.delay)
            .insert_header("x-ms-request-id", "57b891ab-1fb7-4f5a-b002-71eb6854961f")
            .set_body_json(json!({
                "availabilityZones": zonal,
                "desiredCount": count,
                "desiredLocations": locs,
                "desiredSizes": sizes.iter().map(|s| json!({"sku": s})).collect::<Vec<_>>(),
                "placementScores": out,
            }))
    }
}

/// The Resource Graph POST: `rows` split into pages of `page_size`, each page but the last
/// carrying a `$skipToken` that the next request must send back with the same query.
pub struct Graph {
    pub rows: Vec<Value>,
    pub page_size: usize,
    pub seen: Mutex<Vec<Value>>,
}

impl Graph {
    pub fn new(rows: Vec<Value>, page_size: usize) -> Self {
        Graph {
            rows,
            page_size: page_size.max(1),
            seen: Mutex::new(Vec::new()),
        }
    }
}

/// A `SpotResources` eviction-rate row as Learn's sample query projects it (with `id`).
pub fn eviction_row(size: &str, region: &str, band: &str) -> Value {
    json!({
        "id": format!("microsoft.compute/skuspotevictionrate/location/{}/{region}", size.to_ascii_lowercase()),
        "skuName": size.to_ascii_lowercase(),
        "location": region,
        "spotEvictionRate": band,
    })
}

impl Respond for Graph {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        match api_version(req) {
            Some(v) if GRAPH_VERSIONS.contains(&v.as_str()) => {}
            v => {
                return bad_request(
                    "InvalidApiVersionParameter",
                    &format!("The api-version '{}' is invalid.", v.unwrap_or_default()),
                );
            }
        }
        let Ok(body) = serde_json::from_slice::<Value>(&req.body) else {
            return bad_request(
                "InvalidRequestContent",
                "The request content was invalid and could not be deserialized.",
            );
        };
        let mut seen = self.seen.lock().unwrap();
        let Some(query) = body["query"].as_str() else {
            return bad_request("BadRequest", "The query is required.");
        };
        let options = &body["options"];
        if options["$top"]
            .as_i64()
            .is_some_and(|t| !(1..=1000).contains(&t))
        {
            return bad_request("BadRequest", "$top must be between 1 and 1000.");
        }
        if let Some(f) = options["resultFormat"].as_str()
            && f != "table"
            && f != "objectArray"
        {
            return bad_request("BadRequest", "Invalid resultFormat.");
        }
        // a next page: a token this server issued, with the same query
        let page = match options["$skipToken"].as_str() {
            None => 0,
            Some(t) => {
                let first = seen
                    .first()
                    .and_then(|b| b["query"].as_str().map(str::to_string));
                match t
                    .strip_prefix("page-")
                    .and_then(|n| n.parse::<usize>().ok())
                {
                    Some(n) if first.as_deref() == Some(query) => n,
                    _ => {
                        return bad_request(
                            "BadRequest",
                            "The skip token is invalid or does not match the query.",
                        );
                    }
                }
            }
        };
        seen.push(body.clone());
        let start = page * self.page_size;
        let end = (start + self.page_size).min(self.rows.len());
        let data: Vec<Value> = self.rows.get(start..end).unwrap_or(&[]).to_vec();
        let mut answer = json!({
            "totalRecords": self.rows.len(),
            "count": data.len(),
            "resultTruncated": "false",
            "facets": [],
            "data": data,
        });
        if end < self.rows.len() {
            answer["$skipToken"] = json!(format!("page-{}", page + 1));
        }
        ResponseTemplate::new(200).set_body_json(answer)
    }
}
