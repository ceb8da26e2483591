//! The Application Insights facts of GPU-utilisation scaling (`gpuform::facts::app_insights`,
//! issue 36) held against their sources, never against the code's own constants: the short
//! verbatim excerpts in `tests/fixtures/sources/app-insights.json`, the team's fact sheet
//! `../shared/azure/serving.md` (D8), the built-in role table and the component's type data.

mod common;
mod sources;

use gpuform::facts::app_insights as f;
use gpuform::facts::clouds::Cloud;
use serde_json::Value;
use sources::{read_json, root, source_path};

fn excerpt(id: &str) -> String {
    let doc = read_json(&root().join("tests/fixtures/sources/app-insights.json"));
    doc["excerpts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == id)
        .and_then(|e| e["text"].as_str())
        .unwrap_or_else(|| panic!("no excerpt {id}"))
        .to_string()
}

/// Whitespace, quote markers (`>`) and emphasis (`**`) of Markdown quotes normalised.
fn norm(s: &str) -> String {
    s.replace('*', "")
        .split_whitespace()
        .filter(|w| *w != ">")
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn the_namespace_is_one_autoscale_reads_custom_metrics_in() {
    // the page's note, and the team's sheet quoting the same page (D8)
    let note = norm(&excerpt("autoscale-namespaces"));
    let sheet = std::fs::read_to_string(source_path("azure/serving.md", "serving.md")).unwrap();
    assert!(
        norm(&sheet).contains("supported only for metrics published to Standard and Azure.ApplicationInsights namespaces"),
        "the sheet's D8 quote changed"
    );
    let listed: Vec<&str> = note
        .split("published to ")
        .nth(1)
        .unwrap()
        .split(" namespaces")
        .next()
        .unwrap()
        .split(" and ")
        .collect();
    assert_eq!(listed, f::AUTOSCALE_NAMESPACES.to_vec());
    assert!(listed.contains(&f::METRIC_NAMESPACE));
    // the rule reads the component as "another resource"
    assert!(excerpt("autoscale-other-resource").contains("Other resource"));
}

#[test]
fn entra_ingestion_facts_are_the_pages() {
    // public cloud only: the page's prerequisite
    assert!(excerpt("entra-public-cloud").contains("Be in the public cloud."));
    assert!(f::PUBLIC_CLOUD_ONLY);
    // the audience of each cloud, read from the page's table
    let table = excerpt("entra-audience");
    for (label, cloud) in [
        ("Azure public cloud", Cloud::AzureCloud),
        ("21Vianet", Cloud::AzureChinaCloud),
        ("US Government", Cloud::AzureUSGovernment),
    ] {
        let row = table
            .lines()
            .find(|l| l.contains(label))
            .unwrap_or_else(|| panic!("no row {label}"));
        let value = row.split('`').nth(1).unwrap();
        assert_eq!(f::audience(cloud), value, "{label}");
    }
    // the role, on the component, and its GUID from the built-in role table
    let role = excerpt("entra-role");
    assert!(role.contains("Monitoring Metrics Publisher role"));
    assert!(role.contains("target Application Insights resource as the role scope"));
    assert_eq!(
        gpuform::facts::roles::MONITORING_METRICS_PUBLISHER.id,
        common::builtin_role_id("Monitoring Metrics Publisher")
    );
    assert!(excerpt("entra-disable-local-auth").contains("`DisableLocalAuth`"));
    // the collector reads the two keys of the connection string the page shows
    let cs = excerpt("entra-connection-string");
    for k in f::CONNECTION_KEYS {
        assert!(cs.contains(&format!("{k}=")), "{k}");
    }
}

#[test]
fn the_track_protocol_is_the_rest_specs() {
    let host = excerpt("track-host");
    // {Host}/v2.1 + /track
    let version = host
        .split("\"hostTemplate\": \"{Host}/")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let path = host
        .split("\"paths\": {")
        .nth(1)
        .unwrap()
        .split('"')
        .nth(1)
        .unwrap();
    assert_eq!(f::TRACK_ROUTE, format!("{version}{path}"));
    assert!(excerpt("track-body").contains("\"type\": \"array\""));
    assert!(excerpt("track-envelope-required").contains("\"name\""));
    assert!(excerpt("track-metric-namespace").contains("\"ns\""));
    assert!(excerpt("track-one-metric").starts_with("Only one metric in the list"));
    assert_eq!(f::METRICS_PER_ITEM, 1);
    // the two facts no page states are marked as assumptions
    assert!(f::DEFAULT_NAMESPACE.assumption);
    assert!(f::ENVELOPE_NAMES.assumption);
}

#[test]
fn the_component_literals_are_in_its_type_data() {
    let types = root().join("../shared/conformance/types/microsoft.insights.json");
    let text = excerpt("component-types");
    assert!(text.contains(&format!("'{}'", f::APPLICATION_TYPE)));
    assert!(text.contains(&format!("'{}'", f::INGESTION_MODE)));
    if types.is_file() {
        // the type data itself: the component's version exists and its enums hold the values
        let v: Value = read_json(&types);
        let key = format!(
            "{}@{}",
            f::COMPONENT_TYPE,
            gpuform::facts::api::API.app_insights
        );
        assert!(v["resources"].get(&key).is_some(), "{key}");
        let literals: Vec<&str> = v["types"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["value"].as_str())
            .collect();
        assert!(literals.contains(&f::APPLICATION_TYPE));
        assert!(literals.contains(&f::INGESTION_MODE));
    }
}
