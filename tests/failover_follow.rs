//! `destroy` and `status` follow a deployment that failed over into `<RG>-<region>` (deploy's
//! `--per-region-resource-group`), against the fake ARM: each candidate group's deployment list
//! (Deployments - List By Resource Group; 404 `ResourceGroupNotFound` for a group that does not
//! exist, as ARM answers) says where the spec's deployment is.
//!
//! The spec is examples/shortvideo-transcode.yaml: home eastus2, alternateRegions westus3 and
//! southcentralus inside allowedRegions.

mod common;

use common::*;
use serde_json::{Value, json};
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, ResponseTemplate};

const RG: &str = "rg-shortvideo-dev";
const WEST: &str = "rg-shortvideo-dev-westus3";

fn rgp(rg: &str) -> String {
    format!("/subscriptions/{SUB}/resourceGroups/{rg}/providers")
}

/// `rg` exists and lists one deployment of the spec in `state`, which created a NAT gateway
/// and a virtual network there (every resource in it answers GET).
fn group(fake: &FakeAzure, rg: &str, location: &str, deployment: &str, state: &str) {
    let p = rgp(rg);
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(&format!("resourcegroups/{rg}"))))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "id": format!("/subscriptions/{SUB}/resourceGroups/{rg}"), "name": rg, "location": location,
                "properties": {"provisioningState": "Succeeded"}
            }))),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(format!(
                r"(?i)^/subscriptions/{SUB}/resourcegroups/{rg}/providers/Microsoft\.Resources/deployments$"
            )))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"value": [{
                "id": format!("{p}/Microsoft.Resources/deployments/{deployment}"),
                "name": deployment,
                "type": "Microsoft.Resources/deployments",
                "properties": {"provisioningState": state, "timestamp": "2026-12-01T18:00:00Z", "mode": "Incremental",
                    "outputResources": [
                        {"id": format!("{p}/Microsoft.Network/natGateways/ng-shortvideo-transcode")},
                        {"id": format!("{p}/Microsoft.Network/virtualNetworks/vnet-shortvideo-transcode")}
                    ]}
            }]})))
            .with_priority(1),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(format!(
                r"(?i)^/subscriptions/{SUB}/resourcegroups/{rg}/providers/.+$"
            )))
            .respond_with(|r: &wiremock::Request| {
                ResponseTemplate::new(200)
                    .set_body_json(json!({"id": r.url.path(), "properties": {}}))
            })
            .with_priority(9),
    );
}

fn destroy(fake: &FakeAzure, extra: &[&str]) -> (i32, String, String) {
    let mut c = fake.gpuform();
    c.arg("destroy").arg(spec()).args([
        "-g",
        RG,
        "--output",
        "json",
        "--arm-endpoint",
        &format!("{}/", fake.base),
        "--retry-delay-ms",
        "50",
    ]);
    c.args(extra);
    let out = c.output().unwrap();
    let (o, e) = texts(&out);
    (out.status.code().unwrap_or(-1), o, e)
}

fn no_deletes(fake: &FakeAzure) {
    assert!(
        fake.requests()
            .iter()
            .all(|r| r.method.as_str() != "DELETE" && r.method.as_str() != "PATCH")
    );
}

#[test]
fn destroy_acts_on_the_group_the_failover_landed_in_and_names_the_leftovers() {
    let fake = FakeArm::new().start();
    group(
        &fake,
        RG,
        "eastus2",
        "shortvideo-transcode-0a1b2c3d",
        "Failed",
    );
    group(
        &fake,
        WEST,
        "westus3",
        "shortvideo-transcode-4e5f6a7b",
        "Succeeded",
    );
    // without --yes and a terminal: a dry run, so what it would act on is in the JSON
    let (code, stdout, stderr) = destroy(&fake, &[]);
    assert_eq!(code, 2, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["resourceGroup"], WEST, "{stdout}");
    assert_eq!(v["deployments"], json!(["shortvideo-transcode-4e5f6a7b"]));
    assert!(
        v["wouldDelete"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["id"].as_str().unwrap().contains(WEST)),
        "{stdout}"
    );
    assert!(
        stderr.contains(&format!(
            "destroy: the deployment of the spec is in {WEST} (shortvideo-transcode-4e5f6a7b Succeeded)"
        )) && stderr.contains(&format!("acting on {WEST} (--no-follow acts on {RG})")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "destroy: {RG} also holds deployments of shortvideo-transcode (shortvideo-transcode-0a1b2c3d Failed)"
        )) && stderr.contains(&format!("-g {RG} --no-follow` after it")),
        "{stderr}"
    );
    // the third candidate (southcentralus) does not exist: ARM's 404 ResourceGroupNotFound
    assert!(fake.requests().iter().any(|r| {
        r.url
            .path()
            .to_ascii_lowercase()
            .contains("rg-shortvideo-dev-southcentralus/providers/microsoft.resources/deployments")
    }));
    no_deletes(&fake);

    // --no-follow: the group as given
    let (code, stdout, stderr) = destroy(&fake, &["--no-follow"]);
    assert_eq!(code, 2, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["resourceGroup"], RG);
    assert_eq!(v["deployments"], json!(["shortvideo-transcode-0a1b2c3d"]));
    assert!(!stderr.contains("acting on"), "{stderr}");
    no_deletes(&fake);
}

#[test]
fn two_groups_holding_a_live_deployment_are_refused() {
    let fake = FakeArm::new().start();
    group(
        &fake,
        RG,
        "eastus2",
        "shortvideo-transcode-0a1b2c3d",
        "Succeeded",
    );
    group(
        &fake,
        WEST,
        "westus3",
        "shortvideo-transcode-4e5f6a7b",
        "Running",
    );
    let (code, stdout, stderr) = destroy(&fake, &["--yes"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains("more than one resource group holds deployments of shortvideo-transcode")
            && stderr.contains(&format!("{RG} (shortvideo-transcode-0a1b2c3d Succeeded)"))
            && stderr.contains(&format!("{WEST} (shortvideo-transcode-4e5f6a7b Running)")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("-g {WEST} --no-follow")),
        "{stderr}"
    );
    no_deletes(&fake);
    // nothing beyond the deployment lists was read
    assert!(
        fake.requests()
            .iter()
            .filter(|r| !r.url.path().contains("oauth2"))
            .all(|r| r
                .url
                .path()
                .ends_with("/providers/Microsoft.Resources/deployments")),
        "{:?}",
        fake.requests()
            .iter()
            .map(|r| r.url.path().to_string())
            .collect::<Vec<_>>()
    );

    // status refuses the same way
    let out = status(&fake).output().unwrap();
    let (_, e) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains("more than one resource group holds deployments of shortvideo-transcode")
            && e.contains("gpuform status"),
        "{e}"
    );
}

fn status(fake: &FakeAzure) -> assert_cmd::Command {
    let mut c = fake.gpuform();
    c.arg("status").arg(spec()).args([
        "-g",
        RG,
        "--no-drift",
        "--output",
        "json",
        "--now",
        "2026-12-01T19:30:00Z",
        "--arm-endpoint",
        &format!("{}/", fake.base),
        "--retry-delay-ms",
        "50",
    ]);
    c
}

#[test]
fn status_reads_the_group_the_failover_landed_in() {
    let fake = FakeArm::new().start();
    group(
        &fake,
        WEST,
        "westus3",
        "shortvideo-transcode-4e5f6a7b",
        "Succeeded",
    );
    let out = status(&fake).output().unwrap();
    let (o, e) = texts(&out);
    let v: Value = serde_json::from_str(&o).unwrap_or_else(|_| panic!("{o}\n{e}"));
    assert_eq!(v["resourceGroup"], WEST, "{o}");
    assert!(
        e.contains(&format!("reading {WEST} (--no-follow reads {RG})")),
        "{e}"
    );
    // the pool's reads went to the group it landed in, none to the one given
    let paths: Vec<String> = fake
        .requests()
        .iter()
        .map(|r| r.url.path().to_ascii_lowercase())
        .collect();
    assert!(
        paths.iter().any(|p| p.contains(&format!(
            "/resourcegroups/{WEST}/providers/microsoft.compute"
        ))),
        "{paths:?}"
    );
    assert!(
        !paths
            .iter()
            .any(|p| p.contains(&format!("/resourcegroups/{RG}/providers/microsoft.compute"))),
        "{paths:?}"
    );

    // --no-follow reads the group as given
    let out = status(&fake).arg("--no-follow").output().unwrap();
    let (o, _) = texts(&out);
    let v: Value = serde_json::from_str(&o).unwrap();
    assert_eq!(v["resourceGroup"], RG);
}
