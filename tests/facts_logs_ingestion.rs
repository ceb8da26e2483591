//! The Logs Ingestion API facts (issue 20: the collector's own path where no agent association
//! reaches the VMs), held against the dated excerpts in `tests/fixtures/sources/logs-ingestion.json`
//! (Learn's overview, the REST spec, the .NET SDK's audiences, the limits table, the IMDS token
//! page) and the conformance kit's type data, never against gpuform's own constants.

use std::path::Path;

use gpuform::azure::Cloud;
use gpuform::facts::logs_ingestion as li;
use serde_json::Value;

fn excerpt() -> Value {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sources/logs-ingestion.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn query_param<'a>(url: &'a str, name: &str) -> &'a str {
    let q = url.split_once('?').map(|(_, q)| q).unwrap_or_default();
    q.split(['&', ' ', '\''])
        .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
        .unwrap_or_else(|| panic!("{name} in {url}"))
}

#[test]
fn the_upload_route_and_version_are_learns_and_the_specs() {
    let doc = excerpt();
    let uri = doc["overview"]["uri"].as_str().unwrap();
    assert_eq!(li::API_VERSION, query_param(uri, "api-version"));
    assert_eq!(li::API_VERSION, doc["restSpec"]["info.version"]);
    assert_eq!(li::ROUTE, doc["restSpec"]["path"]);
    // Learn's URI spells the same route with its own placeholder names
    let learn_route = uri
        .split('?')
        .next()
        .unwrap()
        .replace("{Endpoint}", "")
        .replace("{DCR Immutable ID}", "{ruleId}")
        .replace("{Stream Name}", "{stream}");
    assert_eq!(li::ROUTE, learn_route);
    assert_eq!(doc["restSpec"]["apiVersionParameter"]["required"], true);
    assert_eq!(doc["restSpec"]["bodySchema"]["type"], "array");
}

#[test]
fn each_clouds_audience_is_the_one_learn_and_the_sdk_name() {
    let doc = excerpt();
    let row = doc["overview"]["authorization"].as_str().unwrap();
    let sdk: Vec<&str> = doc["sdkAudiences"]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    for (cloud, learn_label, sdk_name) in [
        (
            Cloud::AzureCloud,
            "Azure public cloud - ",
            "AzurePublicCloudValue",
        ),
        (
            Cloud::AzureChinaCloud,
            "Microsoft Azure operated by 21Vianet cloud - ",
            "AzureChinaValue",
        ),
        (
            Cloud::AzureUSGovernment,
            "Azure US Government cloud - ",
            "AzureGovernmentValue",
        ),
    ] {
        let learn = row
            .split(learn_label)
            .nth(1)
            .unwrap()
            .split('`')
            .nth(1)
            .unwrap();
        assert_eq!(li::audience(cloud), learn, "{cloud}");
        let line = sdk.iter().find(|l| l.contains(sdk_name)).unwrap();
        let value = line.split('"').nth(1).unwrap();
        // the SDK writes the scope: audience + "//.default"
        assert_eq!(
            value.trim_end_matches("/.default").trim_end_matches('/'),
            li::audience(cloud),
            "{cloud}"
        );
    }
}

#[test]
fn a_call_stays_under_the_documented_size_limit() {
    let doc = excerpt();
    let row = doc["limits"]["rows"][0].as_str().unwrap();
    assert!(row.starts_with("| Maximum size of API call | "), "{row}");
    let mb: usize = row
        .split("| ")
        .nth(2)
        .unwrap()
        .split(" MB")
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // the conservative reading of "MB": 10^6 bytes
    assert!(li::MAX_BODY_BYTES <= mb * 1_000_000);
    assert!(
        li::MAX_BODY_BYTES >= mb * 1_000_000 * 9 / 10,
        "not needlessly small"
    );
    assert!(
        doc["limits"]["rows"][1]
            .as_str()
            .unwrap()
            .contains(li::RETRY_AFTER)
    );
}

#[test]
fn the_token_comes_from_the_instance_metadata_service_as_documented() {
    let doc = excerpt();
    let req = doc["imdsToken"]["request"].as_str().unwrap();
    let url = req.split('\'').nth(1).unwrap();
    assert_eq!(li::IMDS_TOKEN_URL, url.split('?').next().unwrap());
    assert_eq!(li::IMDS_TOKEN_API_VERSION, query_param(url, "api-version"));
    assert!(req.contains("Metadata: true"));
    assert!(doc["imdsToken"]["response"]["access_token"].is_string());
}

/// The DCE's `logsIngestion.endpoint` and the DCR's `immutableId` the template reads exist, read-
/// only, at the API version gpuform renders (the kit's type data when it is beside the checkout,
/// else the excerpt's record of it).
#[test]
fn the_endpoint_and_immutable_id_the_template_reads_are_in_the_type_data() {
    let version = gpuform::facts::api::API.data_collection;
    let kit = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/conformance/types/microsoft.insights.json");
    if let Ok(text) = std::fs::read_to_string(&kit) {
        let t: Value = serde_json::from_str(&text).unwrap();
        let types = t["types"].as_array().unwrap();
        let at = |r: &Value| -> &Value {
            let i: usize = r["$ref"]
                .as_str()
                .unwrap()
                .trim_start_matches("#/")
                .parse()
                .unwrap();
            &types[i]
        };
        let body = |ty: &str| -> &Value {
            let i = t["resources"][format!("{ty}@{version}")]["body"]
                .as_u64()
                .unwrap_or_else(|| panic!("{ty}@{version} in the type data"));
            &types[i as usize]
        };
        let dce_props = at(
            &body("Microsoft.Insights/dataCollectionEndpoints")["properties"]["properties"]["type"],
        );
        let logs = &dce_props["properties"]["logsIngestion"];
        let endpoint = &at(&logs["type"])["properties"]["endpoint"];
        assert_eq!(endpoint["flags"], 2, "read-only");
        let dcr_props =
            at(&body("Microsoft.Insights/dataCollectionRules")["properties"]["properties"]["type"]);
        assert_eq!(dcr_props["properties"]["immutableId"]["flags"], 2);
        assert!(dcr_props["properties"]["dataCollectionEndpointId"].is_object());
    } else {
        let doc = excerpt();
        let key = format!("Microsoft.Insights/dataCollectionEndpoints@{version}");
        assert!(doc["typeData"][&key]["properties.logsIngestion.endpoint"].is_string());
    }
}

#[test]
fn the_dce_is_the_endpoint_because_the_rule_is_not_direct() {
    let doc = excerpt();
    let endpoint = doc["overview"]["endpoint"].to_string();
    assert!(endpoint.contains("data collection endpoint (DCE)"));
    assert!(endpoint.contains("Direct"));
    assert!(li::ENDPOINT_CHOICE.contains("kind Direct"));
}

/// The instance metadata service's compute endpoint the collectors read (priority, VM id): the
/// page's filtered route, a supported API version, one in which both fields exist. Both
/// collectors take it from the facts layer (the Python one through its service's environment,
/// the PowerShell one written in when the script is packed), not from a literal of their own.
#[test]
fn the_instance_metadata_request_is_the_pages_and_the_collectors_take_it_from_the_facts() {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sources/instance-metadata.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    let example = doc["filterExample"].as_str().unwrap();
    assert_eq!(li::IMDS_INSTANCE_URL, example.split('?').next().unwrap());
    let versions: Vec<&str> = doc["supportedApiVersions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(versions.contains(&li::IMDS_INSTANCE_API_VERSION));
    for (field, since) in doc["computeFieldsIntroduced"].as_object().unwrap() {
        assert!(
            li::IMDS_INSTANCE_API_VERSION >= since.as_str().unwrap(),
            "{field}"
        );
    }
    // the collectors carry no endpoint of their own
    use gpuform::plan::gpu_monitoring::{
        COLLECTOR, WINDOWS_COLLECTOR, install_script, windows_collector_compact,
    };
    for script in [COLLECTOR, WINDOWS_COLLECTOR] {
        assert!(!script.contains("169.254.169.254"));
        assert!(!script.contains("api-version="));
    }
    let want = format!(
        "{}?api-version={}",
        li::IMDS_INSTANCE_URL,
        li::IMDS_INSTANCE_API_VERSION
    );
    assert!(
        install_script(1, "nvidia").contains(&format!("Environment=GPUFORM_IMDS_URL={want}\n"))
    );
    assert!(windows_collector_compact().contains(&format!("$ImdsUrl = '{want}'")));
}
