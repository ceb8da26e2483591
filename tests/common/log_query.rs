//! A fake Log Analytics workspace and Logs Query API, written from the sources in
//! `tests/fixtures/sources/log-query-api.json` (Learn's request and response formats, the
//! beta/ARM retirement) and the type data's workspace versions (`api-versions.json`), not from
//! gpuform's facts. It answers:
//! - `GET {workspace ARM id}?api-version=` a version the type data lists for
//!   `Microsoft.OperationalInsights/workspaces`: the workspace with `properties.customerId`;
//!   another version: 400 `NoRegisteredProviderFound` (ARM's answer to an unknown version);
//! - `POST /{version}/workspaces/{customerId}/query` with the version Learn says to use and a
//!   JSON body with a `query` (and a `timespan` that is an ISO 8601 duration or a start/end
//!   pair): the given answer; a missing `query` or a bad `timespan`: 400 in the OneAPI error
//!   shape; another version or workspace: 404;
//! - the retired query route through Resource Manager (`…/workspaces/{name}/api/query`, or the
//!   2017-10-01 swagger's `…/workspaces/{name}/query`): 404 with ARM's error shape.

use std::path::Path;

use serde_json::{Value, json};
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::FakeAzure;

/// The excerpt file the fake and the tests read.
pub fn excerpt() -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sources/log-query-api.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// A Logs Query API answer in Learn's response shape: one table `PrimaryResult` with these
/// `(name, type)` columns and rows.
pub fn table(columns: &[(&str, &str)], rows: Vec<Value>) -> Value {
    json!({"tables": [{
        "name": "PrimaryResult",
        "columns": columns.iter().map(|(n, t)| json!({"name": n, "type": t})).collect::<Vec<_>>(),
        "rows": rows
    }]})
}

/// The path version Learn says to use ("`apiVersion` is the public query API version. Use `v1`.").
pub fn learn_version() -> String {
    let text = excerpt()["requestFormat"]["apiVersion"]
        .as_str()
        .unwrap()
        .to_string();
    let after = text
        .split("Use `")
        .nth(1)
        .expect("Learn's sentence names the version");
    after.split('`').next().unwrap().to_string()
}

/// The workspace versions the type data lists.
pub fn workspace_versions() -> Vec<String> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sources/api-versions.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    v["types"]["Microsoft.OperationalInsights/workspaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn error(status: u16, code: &str, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status)
        .set_body_json(json!({"error": {"code": code, "message": message}}))
}

/// ISO 8601 duration (`PT15M`, `P1D`) or `start/end`, as Learn's parameter table allows.
fn timespan_ok(t: &str) -> bool {
    if let Some((a, b)) = t.split_once('/') {
        return !a.is_empty() && !b.is_empty();
    }
    t.starts_with('P')
        && t.len() > 1
        && t[1..]
            .chars()
            .all(|c| c.is_ascii_digit() || "YMWDTHS.".contains(c))
}

struct Workspace {
    arm_id: String,
    guid: String,
    versions: Vec<String>,
}

impl Respond for Workspace {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let v = req
            .url
            .query_pairs()
            .find(|(k, _)| k == "api-version")
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default();
        if !self.versions.contains(&v) {
            return error(
                400,
                "NoRegisteredProviderFound",
                &format!(
                    "No registered resource provider found for location 'eastus2' and API version '{v}' for type 'workspaces'. The supported api-versions are '{}'.",
                    self.versions.join(", ")
                ),
            );
        }
        ResponseTemplate::new(200).set_body_json(json!({
            "id": self.arm_id,
            "name": self.arm_id.rsplit('/').next().unwrap(),
            "type": "Microsoft.OperationalInsights/workspaces",
            "location": "eastus2",
            "properties": {"customerId": self.guid, "provisioningState": "Succeeded",
                           "sku": {"name": "PerGB2018"}, "retentionInDays": 30}
        }))
    }
}

/// How the fake answers a valid query: from the request's JSON body.
pub type Answer = std::sync::Arc<dyn Fn(&Value) -> ResponseTemplate + Send + Sync>;

struct Query {
    path: String,
    answer: Answer,
}

impl Respond for Query {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        if req.url.path() != self.path {
            return error(
                404,
                "PathNotFoundError",
                "The requested path does not exist",
            );
        }
        let Ok(body) = serde_json::from_slice::<Value>(&req.body) else {
            return error(
                400,
                "BadArgumentError",
                "The request body must be valid JSON",
            );
        };
        if !body["query"].is_string() {
            return error(
                400,
                "BadArgumentError",
                "The request had some invalid properties: query is required",
            );
        }
        if let Some(t) = body.get("timespan")
            && !t.as_str().is_some_and(timespan_ok)
        {
            return error(400, "BadArgumentError", "The timespan is not valid");
        }
        (self.answer)(&body)
    }
}

impl FakeAzure {
    /// The workspace `arm_id` (with its `guid` as customerId) answers `answer` to queries.
    pub fn mount_log_query(&self, arm_id: &str, guid: &str, answer: Value) {
        self.rt.block_on(mount(&self.server, arm_id, guid, answer));
    }

    /// The workspace `arm_id` answers each valid query with `answer(body)` (the request's JSON
    /// body: `query`, `timespan`); invalid requests are refused as above.
    pub fn mount_log_query_with(&self, arm_id: &str, guid: &str, answer: Answer) {
        self.rt
            .block_on(mount_with(&self.server, arm_id, guid, answer));
    }
}

/// [`FakeAzure::mount_log_query`] on any mock server.
pub async fn mount(server: &MockServer, arm_id: &str, guid: &str, answer: Value) {
    let answer: Answer =
        std::sync::Arc::new(move |_| ResponseTemplate::new(200).set_body_json(answer.clone()));
    mount_with(server, arm_id, guid, answer).await
}

/// [`FakeAzure::mount_log_query_with`] on any mock server.
pub async fn mount_with(server: &MockServer, arm_id: &str, guid: &str, answer: Answer) {
    Mock::given(method("GET"))
        .and(path_regex(format!("(?i)^{}$", regex_escape(arm_id))))
        .respond_with(Workspace {
            arm_id: arm_id.to_string(),
            guid: guid.to_string(),
            versions: workspace_versions(),
        })
        .mount(server)
        .await;
    Mock::given(method("POST"))
        .and(path_regex(r"^/[^/]+/workspaces/[^/]+/query$"))
        .respond_with(Query {
            path: format!("/{}/workspaces/{guid}/query", learn_version()),
            answer,
        })
        .mount(server)
        .await;
    Mock::given(method("POST"))
        .and(path_regex(
            r"(?i)/providers/Microsoft\.OperationalInsights/workspaces/[^/]+(/api)?/query$",
        ))
        .respond_with(error(
            404,
            "NotFound",
            "Log Analytics queries through Resource Manager are retired; use the Logs Query API v1",
        ))
        .with_priority(1)
        .mount(server)
        .await;
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            if c.is_ascii_alphanumeric() || c == '/' || c == '-' || c == '_' {
                vec![c]
            } else {
                vec!['\\', c]
            }
        })
        .collect()
}
