//! API versions and clouds held against their sources, never against the code's own constants.
//!
//! - Every API version in `gpuform::facts::api::API`, and every `type`/`apiVersion` pair (and
//!   every Flexible scale set's `networkApiVersion`) in every rendered template, is a version the
//!   Azure type data (Azure/bicep-types-az, via the conformance kit's
//!   `../shared/conformance/types/all-versions.json`, else the filtered dated copy
//!   `tests/fixtures/sources/api-versions.json`) lists for that resource type.
//! - Every cloud's endpoints and suffixes in `gpuform::facts::clouds` equal azure-cli's cloud
//!   table and the national-cloud portals page (`tests/fixtures/sources/clouds.json`).

mod sources;

use std::collections::{BTreeMap, BTreeSet};

use gpuform::facts::clouds::Cloud;
use sources::{objects, read_json, render_all, source_path, str_of};

/// resource type (lowercase) → API versions the type data lists.
fn known_versions() -> BTreeMap<String, BTreeSet<String>> {
    let path = source_path("conformance/types/all-versions.json", "api-versions.json");
    let doc = read_json(&path);
    let mut out = BTreeMap::new();
    for (t, versions) in doc["types"].as_object().expect("types") {
        let set: BTreeSet<String> = versions
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect();
        out.entry(t.to_ascii_lowercase())
            .or_insert_with(BTreeSet::new)
            .extend(set);
    }
    assert!(out.len() > 300, "{}: looks truncated", path.display());
    out
}

fn check(
    known: &BTreeMap<String, BTreeSet<String>>,
    ty: &str,
    version: &str,
) -> Result<(), String> {
    match known.get(&ty.to_ascii_lowercase()) {
        None => Err(format!("resource type {ty} is not in the type data")),
        Some(v) if !v.contains(version) => Err(format!(
            "{ty}@{version} is not a published API version (known: {})",
            v.iter()
                .rev()
                .take(6)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        )),
        Some(_) => Ok(()),
    }
}

#[test]
fn the_checker_refuses_an_unpublished_version_and_an_unknown_type() {
    let known = known_versions();
    assert!(check(&known, "Microsoft.KeyVault/vaults", "2025-05-01").is_ok());
    assert!(check(&known, "Microsoft.KeyVault/vaults", "2025-05-02").is_err());
    assert!(check(&known, "Microsoft.KeyVault/vault", "2025-05-01").is_err());
    // case-insensitive, as ARM compares types
    assert!(check(&known, "microsoft.insights/autoscalesettings", "2022-10-01").is_ok());
}

#[test]
fn every_api_version_in_the_facts_layer_is_published_for_its_types() {
    let known = known_versions();
    let api = gpuform::facts::api::API;
    let problems: Vec<String> = api
        .entries()
        .into_iter()
        .filter_map(|(t, v)| check(&known, t, v).err())
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let src = gpuform::facts::api::SOURCE;
    assert!(!src.assumption && src.what.contains("bicep-types-az"));
    // the versions the plan renders (its own path to them) are published too
    let plan = gpuform::plan::API;
    let problems: Vec<String> = plan
        .entries()
        .into_iter()
        .filter_map(|(t, v)| check(&known, t, v).err())
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_rendered_resource_uses_a_published_api_version() {
    let known = known_versions();
    let mut seen = 0;
    let mut problems = BTreeSet::new();
    for r in render_all() {
        let mut objs = Vec::new();
        objects(&r.arm, "$".into(), &mut objs);
        for (path, m) in objs {
            if let (Some(t), Some(v)) = (str_of(m, "type"), str_of(m, "apiVersion")) {
                if t.starts_with('[') || v.starts_with('[') {
                    continue;
                }
                seen += 1;
                if let Err(e) = check(&known, t, v) {
                    problems.insert(format!("{} {path}: {e}", r.spec.display()));
                }
            }
            if let Some(v) = str_of(m, "networkApiVersion") {
                seen += 1;
                if let Err(e) = check(&known, "Microsoft.Network/networkInterfaces", v) {
                    problems.insert(format!(
                        "{} {path}: networkApiVersion: {e}",
                        r.spec.display()
                    ));
                }
            }
        }
    }
    assert!(
        seen > 300,
        "only {seen} resources found: the scan is broken"
    );
    assert!(
        problems.is_empty(),
        "API versions not in the type data:\n{}",
        problems.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn every_cloud_endpoint_is_the_one_azure_cli_and_the_national_cloud_page_name() {
    let doc = read_json(&sources::root().join("tests/fixtures/sources/clouds.json"));
    let norm = |s: &str| s.trim_end_matches('/').to_ascii_lowercase();
    for c in Cloud::ALL {
        let src = &doc["clouds"][c.name()];
        assert!(src.is_object(), "{c}: not in the source");
        let s = |k: &str| src[k].as_str().unwrap();
        assert_eq!(norm(c.arm_endpoint()), norm(s("resourceManager")), "{c}");
        assert_eq!(norm(c.authority_host()), norm(s("activeDirectory")), "{c}");
        assert_eq!(c.suffixes().storage, s("storage"), "{c}");
        assert_eq!(c.suffixes().keyvault_dns, s("keyvaultDns"), "{c}");
        assert_eq!(norm(c.portal()), norm(s("portal")), "{c}");
        // the token audience is the Resource Manager endpoint's
        assert_eq!(
            norm(c.arm_scope().trim_end_matches("/.default")),
            norm(s("resourceManager")),
            "{c}"
        );
    }
    let src = gpuform::facts::clouds::ENDPOINTS;
    assert!(!src.assumption && src.what.contains("azure-cli"));
    assert!(gpuform::facts::clouds::REGION_PREFIX.assumption);
}

#[test]
fn every_region_microsoft_lists_is_in_its_cloud_by_the_prefix_rule() {
    // the assumption behind Cloud::for_region (facts::clouds::REGION_PREFIX), held against
    // Microsoft's region lists: 21Vianet's regions page, the Azure Government copy of the
    // DCR-association definition, and the public copy's (tests/fixtures/sources/)
    let fixtures = sources::root().join("tests/fixtures/sources");
    let china = read_json(&fixtures.join("sovereign-regions.json"));
    let dcra = read_json(&fixtures.join("dcr-association-policy.json"));
    let mut lists: Vec<(Cloud, Vec<String>)> = vec![(
        Cloud::AzureChinaCloud,
        china["AzureChinaCloud"]["regions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap().to_string())
            .collect(),
    )];
    for d in dcra["definitions"].as_array().unwrap() {
        let cloud = Cloud::parse(d["cloud"].as_str().unwrap()).unwrap();
        lists.push((
            cloud,
            d["locations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap().to_string())
                .collect(),
        ));
    }
    let mut n = 0;
    for (cloud, regions) in &lists {
        for r in regions {
            n += 1;
            assert_eq!(Cloud::for_region(r), *cloud, "{r}");
        }
    }
    assert!(n >= 60, "{n}");
    assert!(lists.iter().any(|(c, _)| *c == Cloud::AzureUSGovernment));
}

#[test]
fn every_api_version_the_client_calls_on_a_resource_type_is_published() {
    let known = known_versions();
    let problems: Vec<String> = gpuform::facts::api::CLIENT_RESOURCE_TYPES
        .iter()
        .filter_map(|(t, v)| check(&known, t, v).err())
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // the version the deployment client calls (its own path to it) is published
    check(
        &known,
        "Microsoft.Resources/deployments",
        gpuform::azure::deployments::DEPLOYMENTS_API,
    )
    .unwrap();
}
