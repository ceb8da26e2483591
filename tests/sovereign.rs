//! Sovereign clouds end to end (issue 13): the spec's cloud decides which authority, token
//! scope, ARM endpoint and portal preflight and deploy use, against the fake ARM + Entra of
//! tests/common. The fake overrides the hosts (`AZURE_AUTHORITY_HOST`, `--arm-endpoint`), so
//! these tests assert what the fake receives: the token request's path and its scope (the
//! cloud's ARM audience), and the portal the messages link to. Scopes and portals: Microsoft
//! Learn "Azure China developer guide" (management.chinacloudapi.cn, portal.azure.cn) and
//! "Azure Government developer guide" (management.usgovcloudapi.net, portal.azure.us).

mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::*;
use serde_json::json;
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, ResponseTemplate};

const RG: &str = "rg-sovereign";

/// The US Government render variant (usgovvirginia, Standard_NC8as_T4_v3), or the same pool
/// moved to `region` (written next to the fake's files).
fn spec_in(fake: &FakeAzure, region: &str) -> PathBuf {
    let text =
        std::fs::read_to_string(root().join("tests/fixtures/render/variants/cloud-usgov.yaml"))
            .unwrap()
            .replace("usgovvirginia", region);
    let p = fake.dir.path().join(format!("{region}.yaml"));
    std::fs::write(&p, text).unwrap();
    p
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The form-encoded bodies of the token requests the fake received, and their paths.
fn token_requests(fake: &FakeAzure) -> Vec<(String, String)> {
    fake.requests()
        .into_iter()
        .filter(|r| r.url.path().ends_with("/oauth2/v2.0/token"))
        .map(|r| {
            (
                r.url.path().to_string(),
                String::from_utf8_lossy(&r.body).to_string(),
            )
        })
        .collect()
}

fn encoded(scope: &str) -> String {
    url::form_urlencoded::byte_serialize(scope.as_bytes()).collect()
}

/// preflight of a pool in `region` (no --cloud): the token is asked for with `scope` at the
/// tenant's token path, every ARM call carries it, and the report names `cloud`.
fn preflight_uses_the_clouds_scope(region: &str, cloud: &str, scope: &str) {
    let fake = FakeArm::new().subscription(&[(region, 48)]).start();
    let spec = spec_in(&fake, region);
    let out = fake.preflight(&spec).output().unwrap();
    let (o, e) = texts(&out);
    assert_ne!(out.status.code(), Some(2), "{o}\n{e}");
    let tokens = token_requests(&fake);
    assert!(!tokens.is_empty(), "no token request: {e}");
    for (p, body) in &tokens {
        assert_eq!(p, &format!("/{TENANT}/oauth2/v2.0/token"));
        assert!(
            body.contains(&format!("scope={}", encoded(scope))),
            "{body}"
        );
        assert!(!body.contains("management.azure.com"), "{body}");
    }
    // every ARM request was sent to the fake with the token
    let arm: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|r| r.url.path().starts_with("/subscriptions/"))
        .collect();
    assert!(!arm.is_empty());
    for r in &arm {
        assert_eq!(
            r.headers
                .get("authorization")
                .map(|v| v.to_str().unwrap().to_string()),
            Some(format!("Bearer {TOKEN}")),
            "{}",
            r.url
        );
    }
    assert!(
        arm.iter()
            .any(|r| r.url.query().unwrap_or_default().contains(region)),
        "preflight did not read {region}"
    );
    assert!(format!("{o}{e}").contains(cloud), "{o}\n{e}");
}

#[test]
fn preflight_in_azure_government_asks_for_the_usgov_arm_scope() {
    preflight_uses_the_clouds_scope(
        "usgovvirginia",
        "AzureUSGovernment",
        "https://management.usgovcloudapi.net/.default",
    );
}

#[test]
fn preflight_in_azure_china_asks_for_the_china_arm_scope() {
    preflight_uses_the_clouds_scope(
        "chinanorth3",
        "AzureChinaCloud",
        "https://management.chinacloudapi.cn/.default",
    );
}

#[test]
fn a_cloud_flag_that_contradicts_the_spec_is_a_usage_error_naming_both() {
    let fake = FakeArm::new().start();
    let spec = spec_in(&fake, "chinanorth3");
    let out = fake
        .preflight(&spec)
        .args(["--cloud", "AzureCloud"])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{o}\n{e}");
    assert!(
        e.contains("--cloud AzureCloud") && e.contains("AzureChinaCloud"),
        "{e}"
    );
    // nothing was asked of Entra or ARM
    assert!(fake.requests().is_empty());
    // the same cloud again is fine
    fake.mount_subscription(&[("chinanorth3", 48)], Duration::ZERO);
    let out = fake
        .preflight(&spec)
        .args(["--cloud", "AzureChinaCloud"])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(2), "{}", texts(&out).1);
}

#[test]
fn deploy_in_azure_government_links_to_the_government_portal() {
    let fake = FakeArm::new().resource_group(RG, "usgovvirginia").start();
    let deployment = format!(
        r"^/subscriptions/{SUB}/resourcegroups/{RG}/providers/Microsoft\.Resources/deployments/[^/]+"
    );
    let status_url = fake.url(&format!(
        "/subscriptions/{SUB}/resourcegroups/{RG}/providers/Microsoft.Resources/deployments/d/operationStatuses/1?api-version=2025-04-01"
    ));
    fake.mount(
        Mock::given(method("PUT"))
            .and(path_regex(format!("{deployment}$")))
            .respond_with(
                ResponseTemplate::new(201)
                    .insert_header("Azure-AsyncOperation", status_url.as_str())
                    .set_body_json(
                        json!({"name": "d", "properties": {"provisioningState": "Accepted"}}),
                    ),
            ),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(format!("{deployment}/operationStatuses/1$")))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"status": "Failed"}))),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(format!("{deployment}/operations$")))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"value": []}))),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(format!("{deployment}$")))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"name": "d", "properties": {
                "provisioningState": "Failed", "duration": "PT4S",
                "error": {"code": "DeploymentFailed", "message": "At least one resource deployment operation failed."}
            }}))),
    );
    let spec = spec_in(&fake, "usgovvirginia");
    let out = fake
        .gpuform()
        .arg("deploy")
        .arg(&spec)
        .args([
            "--resource-group",
            RG,
            "--yes",
            "--skip-preflight",
            "--arm-endpoint",
            &format!("{}/", fake.base),
            "--retry-delay-ms",
            "50",
            "--poll-interval",
            "0.05",
        ])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    let all = format!("{o}{e}");
    assert!(
        all.contains(&format!(
            "https://portal.azure.us/#@/resource/subscriptions/{SUB}/resourceGroups/{RG}/deployments"
        )),
        "{all}"
    );
    assert!(!all.contains("portal.azure.com"), "{all}");
    for (_, body) in token_requests(&fake) {
        assert!(
            body.contains(&format!(
                "scope={}",
                encoded("https://management.usgovcloudapi.net/.default")
            )),
            "{body}"
        );
    }
}

#[test]
fn quota_refuses_a_region_of_another_cloud_than_the_specs() {
    let fake = FakeArm::new().start();
    let spec = spec_in(&fake, "usgovvirginia");
    let out = fake
        .gpuform()
        .args(["quota", "request"])
        .arg(&spec)
        .args([
            "--region",
            "eastus",
            "--dry-run",
            "--arm-endpoint",
            &format!("{}/", fake.base),
        ])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{o}\n{e}");
    assert!(
        e.contains(
            "--region eastus is a region of AzureCloud, but the spec's cloud is AzureUSGovernment"
        ),
        "{e}"
    );
    assert!(fake.requests().is_empty());
}
