//! `facts::spot_placement` held to its sources: the dated excerpts of the Spot Placement Score
//! spec, example and Learn page (`tests/fixtures/sources/spot-placement-score.json`), of the
//! Resource Graph spec and Learn's Spot page (`resource-graph.json`), and the conformance kit's
//! type data (`../shared/conformance/types/all-versions.json`) when it is beside the checkout.
//! Never against the code's own constants.

mod sources;

use gpuform::facts::spot_placement as f;
use serde_json::Value;
use sources::{read_json, root, source_path};

fn placement() -> Value {
    read_json(&root().join("tests/fixtures/sources/spot-placement-score.json"))
}

fn graph() -> Value {
    read_json(&root().join("tests/fixtures/sources/resource-graph.json"))
}

fn quotes(doc: &Value) -> String {
    doc["learn"]["quotes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q.as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_placement_path_version_and_shapes_are_the_specs() {
    let doc = placement();
    let spec = &doc["spec"];
    assert_eq!(spec["info.version"], f::PLACEMENT_API);
    let full = format!("/subscriptions/{{subscriptionId}}/{}", f::PLACEMENT_PATH);
    let op = &spec["paths"][&full]["post"];
    assert_eq!(op["operationId"], "SpotPlacementScores_Post", "{full}");
    let input = spec["definitions"]["SpotPlacementScoresInput"]
        .as_object()
        .unwrap();
    let mut fields: Vec<&str> = input.keys().map(String::as_str).collect();
    fields.sort();
    let mut ours = f::PLACEMENT_REQUEST_FIELDS.to_vec();
    ours.sort();
    assert_eq!(fields, ours);
    let score = spec["definitions"]["PlacementScore"].as_object().unwrap();
    let mut fields: Vec<&str> = score.keys().map(String::as_str).collect();
    fields.sort();
    let mut ours = f::PLACEMENT_SCORE_FIELDS.to_vec();
    ours.sort();
    assert_eq!(fields, ours);
    // the example answers with the no-data score gpuform names
    let scores = doc["example"]["responses"]["200"]["body"]["placementScores"]
        .as_array()
        .unwrap();
    assert!(scores.iter().any(|s| s["score"] == f::NO_DATA_SCORE));
    assert!(
        scores.iter().all(|s| s["score"] == f::NO_DATA_SCORE
            || f::score_rank(s["score"].as_str().unwrap()).is_some())
    );
    assert!(!f::PLACEMENT_SPEC.assumption && f::PLACEMENT_SPEC.what.contains("04e05c12e324"));
}

#[test]
fn learn_gives_the_limits_the_scores_the_version_the_role_and_public_regions_only() {
    let doc = placement();
    let q = quotes(&doc);
    assert!(q.contains("up to eight regions and five VM sizes"));
    assert_eq!((f::MAX_LOCATIONS, f::MAX_SIZES), (8, 5));
    assert!(q.contains(&format!(
        "categorized as either {}, {}, or {}",
        f::SCORES_BEST_FIRST[0],
        f::SCORES_BEST_FIRST[1],
        f::SCORES_BEST_FIRST[2]
    )));
    assert!(q.contains("A score of High indicates that the deployment is highly likely to succeed while a score of Low"));
    assert!(q.contains(&format!("following version: *{}*", f::PLACEMENT_API)));
    assert!(q.contains(&format!("\"{}\"", f::PLACEMENT_ROLE)));
    assert!(q.contains("placementScores/spot/generate?api-version"));
    assert_eq!(
        f::PLACEMENT_PUBLIC_CLOUD_ONLY,
        q.contains("available for all public Azure regions")
    );
    assert!(q.contains("| 429 | Too many requests"));
    let row = doc["permission"]["row"].as_str().unwrap();
    assert!(
        row.contains(&format!("| {} |", f::PLACEMENT_ACTION)),
        "{row}"
    );
    assert!(f::PLACEMENT_DOC.what.contains("0c6223e9484d"));
    assert!(f::PER_ZONE_COUNT.assumption);
}

#[test]
fn the_placement_version_is_in_the_type_data() {
    let path = source_path(
        "conformance/types/all-versions.json",
        "spot-placement-score.json",
    );
    let doc = read_json(&path);
    let versions = if doc.get("types").is_some() {
        doc["types"]["Microsoft.Compute/locations/placementScores"].clone()
    } else {
        doc["typeVersions"]["Microsoft.Compute/locations/placementScores"].clone()
    };
    let versions: Vec<&str> = versions
        .as_array()
        .expect("placementScores versions")
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(versions.contains(&f::PLACEMENT_API), "{versions:?}");
    // the newest stable one
    let newest_ga = versions
        .iter()
        .filter(|v| !v.contains("preview"))
        .max()
        .unwrap();
    assert_eq!(*newest_ga, f::PLACEMENT_API);
}

#[test]
fn the_resource_graph_call_and_paging_are_the_specs() {
    let doc = graph();
    let spec = &doc["spec"];
    assert_eq!(spec["info.version"], f::GRAPH_API);
    let newest = spec["stableFolders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .max()
        .unwrap();
    assert_eq!(newest, f::GRAPH_API);
    let op = &spec["paths"][&format!("/{}", f::GRAPH_PATH)]["post"];
    assert_eq!(op["operationId"], "Resources");
    let req = &spec["definitions"]["QueryRequest"];
    let fields: Vec<&str> = req["properties"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(fields, f::GRAPH_REQUEST_FIELDS);
    let resp = &spec["definitions"]["QueryResponse"];
    let required: Vec<&str> = resp["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(required, f::GRAPH_RESPONSE_REQUIRED);
    assert!(
        resp["properties"]
            .as_array()
            .unwrap()
            .contains(&Value::from(f::GRAPH_SKIP_TOKEN))
    );
    assert_eq!(
        spec["definitions"]["QueryRequestOptions"]["$top"]["maximum"],
        f::GRAPH_MAX_TOP
    );
    // a next page sends the previous answer's token in options
    let ex = &doc["examples"];
    assert_eq!(
        ex["nextPage"]["request"]["options"][f::GRAPH_SKIP_TOKEN],
        ex["firstPage"]["response"][f::GRAPH_SKIP_TOKEN]
    );
    let row = doc["permission"]["row"].as_str().unwrap();
    assert!(row.contains(&format!("| {} |", f::GRAPH_ACTION)), "{row}");
}

#[test]
fn spot_resources_types_windows_and_units_are_learns() {
    let doc = graph();
    let q = quotes(&doc);
    assert!(q.contains(&format!("available in the `{}` table", f::SPOT_TABLE)));
    assert!(q.contains(&format!(
        "eviction rates for the last {} trailing days",
        f::EVICTION_WINDOW_DAYS
    )));
    assert!(q.contains(&format!(
        "pricing history in the last {} days",
        f::PRICE_HISTORY_DAYS
    )));
    assert_eq!(f::EVICTION_PER_HOUR, q.contains("quoted _per hour_"));
    assert_eq!(
        f::SPOT_NOT_IN_CHINA,
        q.contains("except Microsoft Azure operated by 21Vianet")
    );
    let ev = doc["learn"]["evictionRateQuery"].as_str().unwrap();
    assert!(ev.contains(&format!("type =~ '{}'", f::EVICTION_TYPE)));
    assert!(ev.contains("properties.evictionRate"));
    let pr = doc["learn"]["priceHistoryQuery"].as_str().unwrap();
    assert!(pr.contains(&format!("type =~ '{}'", f::PRICE_HISTORY_TYPE)));
    // what no Microsoft page settles is an assumption
    assert!(f::EVICTION_BANDS.assumption && f::HIGH_EVICTION.assumption);
    // every band the third-party quote names parses
    for band in ["0-5", "5-10", "10-15", "15-20", "20+"] {
        assert!(f::parse_band(band).is_some(), "{band}");
    }
}
