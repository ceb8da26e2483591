//! Activity Logs - List (issue 19): the request `status` sends, held against the spec's path,
//! version and its only allowed `$filter` patterns (`tests/fixtures/sources/activity-log-api.json`),
//! not against gpuform's constant. The fake refuses another version or filter as ARM does.

mod common;

use std::path::Path;

use common::SUB;
use common::recorder::connect;
use gpuform::azure::Cloud;
use serde_json::{Value, json};
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

fn excerpt() -> Value {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sources/activity-log-api.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// The spec's `$filter` patterns, each as a check: the example values become any quoted value.
fn patterns() -> Vec<Vec<String>> {
    let text = excerpt()["swagger"]["filter"].as_str().unwrap().to_string();
    text.split("$filter=")
        .skip(1)
        .map(|p| {
            let p = p.split(".<br>").next().unwrap();
            // words between quoted values: the pattern's fixed parts
            p.split('\'')
                .step_by(2)
                .map(|w| w.trim().to_string())
                .collect()
        })
        .collect()
}

fn matches(filter: &str, pattern: &[String]) -> bool {
    let fixed: Vec<String> = filter
        .split('\'')
        .step_by(2)
        .map(|w| w.trim().to_string())
        .collect();
    fixed == pattern
}

struct ActivityLog;

impl Respond for ActivityLog {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let doc = excerpt();
        let q = |k: &str| {
            req.url
                .query_pairs()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.into_owned())
        };
        let version = doc["swagger"]["version"].as_str().unwrap();
        if q("api-version").as_deref() != Some(version) {
            return ResponseTemplate::new(400).set_body_json(json!({"error": {
                "code": "InvalidApiVersionParameter",
                "message": format!("The api-version '{}' is invalid. The supported versions are '{version}'.", q("api-version").unwrap_or_default())}}));
        }
        let filter = q("$filter").unwrap_or_default();
        if !patterns().iter().any(|p| matches(&filter, p)) {
            return ResponseTemplate::new(400).set_body_json(json!({"error": {
                "code": "BadRequest", "message": format!("The $filter '{filter}' is not supported.")}}));
        }
        ResponseTemplate::new(200).set_body_json(json!({"value": []}))
    }
}

#[test]
fn the_activity_log_request_is_the_documented_one() {
    let doc = excerpt();
    assert_eq!(
        gpuform::facts::api::ACTIVITY_LOG_API,
        doc["swagger"]["version"].as_str().unwrap()
    );
    assert!(doc["learn"]["get"].as_str().unwrap().contains(&format!(
        "api-version={}",
        gpuform::facts::api::ACTIVITY_LOG_API
    )));
    let spec_path = doc["swagger"]["path"]
        .as_str()
        .unwrap()
        .replace("{subscriptionId}", SUB);
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            let server = MockServer::start().await;
            Mock::given(method("GET"))
                .and(path_regex(format!("(?i)^{spec_path}$")))
                .respond_with(ActivityLog)
                .mount(&server)
                .await;
            let (arm, seen) = connect(&server, Cloud::AzureCloud).await;
            let events = arm
                .activity_log("rg-gpu", "2026-12-01T12:00:00Z", "2026-12-02T12:00:00Z")
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(events.is_empty());
            let seen = seen.lock().unwrap();
            let (url, _) = seen
                .iter()
                .find(|(u, _)| u.path().ends_with("/values"))
                .unwrap();
            assert_eq!(url.host_str(), doc["swagger"]["host"].as_str());
            assert!(url.path().eq_ignore_ascii_case(&spec_path), "{url}");
            let filter = url
                .query_pairs()
                .find(|(k, _)| k == "$filter")
                .unwrap()
                .1
                .into_owned();
            // "List events for a resource group" exactly, with the window and the group
            assert_eq!(
                filter,
                "eventTimestamp ge '2026-12-01T12:00:00Z' and eventTimestamp le '2026-12-02T12:00:00Z' and resourceGroupName eq 'rg-gpu'"
            );
        });
}

#[test]
fn the_fake_refuses_a_filter_the_spec_does_not_allow() {
    // the filter status sent before: no end of the window
    let old = "eventTimestamp ge '2026-12-01T12:00:00Z' and resourceGroupName eq 'rg-gpu'";
    assert!(!patterns().iter().any(|p| matches(old, p)));
    assert_eq!(patterns().len(), 5);
}
