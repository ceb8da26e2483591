//! `gpuform deploy`'s capacity failover (issue 23 item 2) against the fake ARM of tests/common:
//! the next zone, then the next acceptable size (its family's quota checked first), then the
//! next region the spec allows; `--no-failover` keeps the first failure.
//!
//! The fake answers deployments the way ARM does: a placement Azure cannot serve fails either
//! at validation (400 `InvalidTemplateDeployment` with `SkuNotAvailable` inside, no deployment
//! history) or while the deployment runs (the scale set's operation fails with
//! `ZonalAllocationFailed` / `AllocationFailed` in its `statusMessage`, the deployment with
//! `DeploymentFailed`). Which placements fail is decided from the PUT's template, by the scale
//! set's size, zones and location.

mod common;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, Request, ResponseTemplate};

const RG: &str = "rg-shortvideo-prod";
const BIG: &str = "Standard_NC16as_T4_v3";

/// The example spec with `compute.zones` replaced by `compute` lines of the test's own, written
/// next to a copy of its cloud-init file.
fn spec_with(dir: &tempfile::TempDir, compute: &str, regions: Option<&str>) -> PathBuf {
    let text = std::fs::read_to_string(examples("shortvideo-transcode.yaml")).unwrap();
    let mut text = text.replace("    zones: [\"1\", \"2\", \"3\"]\n", compute);
    if let Some(r) = regions {
        text = text.replace("  alternateRegions: [westus3, southcentralus]\n", r);
    }
    std::fs::create_dir_all(dir.path().join("cloud-init")).unwrap();
    std::fs::copy(
        examples("cloud-init/transcode.yaml"),
        dir.path().join("cloud-init/transcode.yaml"),
    )
    .unwrap();
    let p = dir.path().join("spec.yaml");
    std::fs::write(&p, text).unwrap();
    p
}

/// (size, zones, location) of the scale set in a deployment PUT's body.
fn placement(body: &[u8]) -> (String, Vec<String>, String) {
    let v: Value = serde_json::from_slice(body).unwrap();
    let t = &v["properties"]["template"];
    let vmss = t["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["type"] == "Microsoft.Compute/virtualMachineScaleSets")
        .expect("a scale set")
        .clone();
    let size = vmss["sku"]["name"].as_str().unwrap_or_default().to_string();
    let zones = vmss["zones"]
        .as_array()
        .map(|z| z.iter().map(|z| z.as_str().unwrap().to_string()).collect())
        .unwrap_or_default();
    let loc = vmss["location"].as_str().unwrap_or_default().to_string();
    let loc = if loc.starts_with('[') {
        // a parameter: its value, else its default
        let name = loc
            .trim_start_matches("[parameters('")
            .trim_end_matches("')]")
            .to_string();
        v["properties"]["parameters"][&name]["value"]
            .as_str()
            .or(t["parameters"][&name]["defaultValue"].as_str())
            .unwrap_or_default()
            .to_string()
    } else {
        loc
    };
    (size, zones, loc)
}

/// How the fake answers a placement.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Answer {
    Ok,
    /// 400 at validation, as ARM refuses a size the subscription cannot get there.
    SkuNotAvailable,
    /// Accepted, then the scale set's operation fails.
    Allocation(&'static str),
}

type Rule = Box<dyn Fn(&str, &[String], &str) -> Option<Answer> + Send + Sync>;

/// ARM's refusal of a same-named resource in another region of the group, from the reports
/// (`tests/fixtures/sources/invalid-resource-location.json`), filled in.
fn invalid_resource_location(name: &str, there: &str, group: &str, here: &str) -> Value {
    let src: Value = serde_json::from_str(
        &std::fs::read_to_string("tests/fixtures/sources/invalid-resource-location.json").unwrap(),
    )
    .unwrap();
    let message = src["template"]
        .as_str()
        .unwrap()
        .replace("{name}", name)
        .replace("{there}", there)
        .replace("{group}", group)
        .replace("{here}", here);
    json!({"error": {"code": src["code"], "message": message}})
}

/// A fake ARM whose deployments fail or succeed per placement (`rule`; `Answer::Ok` when it
/// says nothing), following ARM's long-running-operation shapes.
fn capacity_fake(regions: &[(&str, i64)], rule: Rule) -> FakeAzure {
    let fake = FakeArm::new()
        .subscription(regions)
        .resource_group(RG, "eastus2")
        .start();
    let by_name: Arc<Mutex<HashMap<String, Answer>>> = Arc::default();
    // resource group -> the region a deployment that ran left resources in
    let left: Arc<Mutex<HashMap<String, String>>> = Arc::default();
    let base = fake.base.clone();
    let names = by_name.clone();
    fake.mount(
        Mock::given(method("PUT"))
            .and(path_regex(r"/providers/Microsoft\.Resources/deployments/[^/]+$"))
            .respond_with(move |req: &Request| {
                let name = req.url.path().rsplit('/').next().unwrap().to_string();
                let (size, zones, loc) = placement(&req.body);
                let segs: Vec<&str> = req.url.path().split('/').collect();
                let gi = segs.iter().position(|s| s.eq_ignore_ascii_case("resourcegroups")).unwrap();
                let group = segs[gi + 1].to_ascii_lowercase();
                // a resource keeps its region: the same names in another region of the group are
                // refused, with the code and message ARM's reported answers carry
                // (tests/fixtures/sources/invalid-resource-location.json; the status is assumed)
                if let Some(there) = left.lock().unwrap().get(&group).filter(|l| **l != loc) {
                    return ResponseTemplate::new(400)
                        .set_body_json(invalid_resource_location("vnet-shortvideo-transcode", there, &group, &loc));
                }
                let answer = rule(&size, &zones, &loc).unwrap_or(Answer::Ok);
                if answer != Answer::SkuNotAvailable {
                    left.lock().unwrap().insert(group, loc.clone());
                }
                names.lock().unwrap().insert(name.clone(), answer);
                if answer == Answer::SkuNotAvailable {
                    let z = if zones.is_empty() { String::new() } else { format!(" zones '{}'", zones.join(",")) };
                    return ResponseTemplate::new(400).set_body_json(json!({"error": {
                        "code": "InvalidTemplateDeployment",
                        "message": format!("The template deployment '{name}' is not valid according to the validation procedure. The tracking id is '1d2e3f'. See inner errors for details."),
                        "details": [{"code": "SkuNotAvailable", "message": format!("The requested size for resource '/subscriptions/{SUB}/resourceGroups/{RG}/providers/Microsoft.Compute/virtualMachineScaleSets/vmss-shortvideo-transcode' is currently not available in location '{loc}'{z} for subscription '{SUB}'. Please try another size or deploy to a different location or zones. See https://aka.ms/azureskunotavailable for details.")}]
                    }}));
                }
                ResponseTemplate::new(201)
                    .insert_header(
                        "Azure-AsyncOperation",
                        format!("{base}/subscriptions/{SUB}/resourcegroups/{RG}/providers/Microsoft.Resources/deployments/{name}/operationStatuses/08584?api-version=2025-04-01").as_str(),
                    )
                    .set_body_json(json!({"name": name, "properties": {"provisioningState": "Accepted", "mode": "Incremental"}}))
            }),
    );
    let name_of = |req: &Request| -> String {
        let segs: Vec<&str> = req.url.path().split('/').collect();
        let i = segs.iter().position(|s| *s == "deployments").unwrap();
        segs[i + 1].to_string()
    };
    let names = by_name.clone();
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(r"/deployments/[^/]+/operationStatuses/08584$"))
            .respond_with(move |req: &Request| {
                let failed = matches!(
                    names.lock().unwrap().get(&name_of(req)),
                    Some(Answer::Allocation(_))
                );
                ResponseTemplate::new(200)
                    .set_body_json(json!({"status": if failed { "Failed" } else { "Succeeded" }}))
            }),
    );
    let names = by_name.clone();
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(r"/deployments/[^/]+/operations$"))
            .respond_with(move |req: &Request| {
                let ops = match names.lock().unwrap().get(&name_of(req)) {
                    Some(Answer::Allocation(code)) => json!([{
                        "id": "op1", "operationId": "op1",
                        "properties": {
                            "provisioningOperation": "Create", "provisioningState": "Failed",
                            "timestamp": "2026-12-03T18:00:00.0000000Z", "duration": "PT41S",
                            "statusCode": "Conflict",
                            "statusMessage": {"status": "Failed", "error": {
                                "code": "ResourceDeploymentFailure",
                                "message": "The resource write operation failed to complete successfully, because it reached terminal provisioning state 'Failed'.",
                                "details": [{"code": code, "message": "Allocation failed. We do not have sufficient capacity for the requested VM size in this region. Read more about improving likelihood of allocation success at http://aka.ms/allocation-guidance"}]
                            }},
                            "targetResource": {"id": format!("/subscriptions/{SUB}/resourceGroups/{RG}/providers/Microsoft.Compute/virtualMachineScaleSets/vmss-shortvideo-transcode"), "resourceType": "Microsoft.Compute/virtualMachineScaleSets", "resourceName": "vmss-shortvideo-transcode"}
                        }
                    }]),
                    _ => json!([]),
                };
                ResponseTemplate::new(200).set_body_json(json!({"value": ops}))
            }),
    );
    let names = by_name;
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(r"/providers/Microsoft\.Resources/deployments/[^/]+$"))
            .respond_with(move |req: &Request| {
                let name = name_of(req);
                let body = match names.lock().unwrap().get(&name) {
                    Some(Answer::Allocation(_)) => json!({"name": name, "properties": {
                        "provisioningState": "Failed", "duration": "PT52S", "mode": "Incremental",
                        "error": {"code": "DeploymentFailed", "message": "At least one resource deployment operation failed. Please list deployment operations for details. Please see https://aka.ms/arm-deployment-operations for usage details.", "details": [{"code": "ResourceDeploymentFailure", "message": "The resource write operation failed to complete successfully, because it reached terminal provisioning state 'Failed'."}]}
                    }}),
                    Some(_) => json!({"name": name, "properties": {"provisioningState": "Succeeded", "duration": "PT2M1S", "mode": "Incremental", "outputs": {}}}),
                    None => return ResponseTemplate::new(404).set_body_json(json!({"error": {"code": "DeploymentNotFound", "message": format!("Deployment '{name}' could not be found.")}})),
                };
                ResponseTemplate::new(200).set_body_json(body)
            }),
    );
    fake
}

fn deploy(fake: &FakeAzure, spec: &std::path::Path) -> assert_cmd::Command {
    let mut c = fake.gpuform();
    c.arg("deploy").arg(spec).args([
        "--resource-group",
        RG,
        "--yes",
        "--skip-preflight",
        "--progress",
        "none",
        "--output",
        "json",
        "--arm-endpoint",
        &format!("{}/", fake.base),
        "--retry-delay-ms",
        "50",
        "--poll-interval",
        "0.05",
    ]);
    c
}

/// The placements the binary PUT, in order.
fn tried(fake: &FakeAzure) -> Vec<(String, Vec<String>, String)> {
    fake.requests()
        .into_iter()
        .filter(|r| r.method.as_str() == "PUT" && r.url.path().contains("/deployments/"))
        .map(|r| placement(&r.body))
        .collect()
}

fn z(zs: &[&str]) -> Vec<String> {
    zs.iter().map(|s| s.to_string()).collect()
}

fn failover_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| {
            l.starts_with("deploy: ")
                && (l.contains("; trying ")
                    || l.contains("skipping")
                    || l.contains("no other placement"))
        })
        .collect()
}

#[test]
fn an_allocation_failure_in_zone_1_moves_to_zone_2() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_with(
        &dir,
        "    zonesByRegion:\n      eastus2: [\"1\", \"2\"]\n",
        None,
    );
    let fake = capacity_fake(
        &[("eastus2", 48)],
        Box::new(|_, zones, _| {
            (zones == ["1"]).then_some(Answer::Allocation("ZonalAllocationFailed"))
        }),
    );
    let out = deploy(&fake, &spec).output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    assert_eq!(
        tried(&fake),
        vec![
            (SIZE.to_string(), z(&["1"]), "eastus2".to_string()),
            (SIZE.to_string(), z(&["2"]), "eastus2".to_string())
        ]
    );
    assert_eq!(
        failover_lines(&e),
        vec![format!(
            "deploy: ZonalAllocationFailed for {SIZE} in eastus2 zone 1; trying {SIZE} in eastus2 zone 2 (next zone)"
        )],
        "{e}"
    );
    let doc: Value = serde_json::from_str(&o).unwrap();
    assert_eq!(doc["provisioningState"], "Succeeded");
    let a = doc["attempts"].as_array().unwrap();
    assert_eq!(a.len(), 2);
    assert_eq!(a[0]["provisioningState"], "Failed");
    assert_eq!(a[0]["reason"], "ZonalAllocationFailed");
    assert_eq!(a[0]["zones"], json!(["1"]));
    assert_eq!(a[1]["provisioningState"], "Succeeded");
    assert_eq!(a[1]["zones"], json!(["2"]));
}

#[test]
fn sku_not_available_for_one_size_moves_to_the_alternate_size() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_with(&dir, &format!("    alternateSizes: [{BIG}]\n"), None);
    let fake = capacity_fake(
        &[("eastus2", 48)],
        Box::new(|size, _, _| (size == SIZE).then_some(Answer::SkuNotAvailable)),
    );
    let out = deploy(&fake, &spec).output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    let t = tried(&fake);
    assert_eq!(t.len(), 2, "{t:?}");
    assert_eq!((t[0].0.as_str(), t[1].0.as_str()), (SIZE, BIG));
    assert_eq!(
        failover_lines(&e),
        vec![format!(
            "deploy: SkuNotAvailable for {SIZE} in eastus2; trying {BIG} in eastus2 (next size)"
        )]
    );
    let doc: Value = serde_json::from_str(&o).unwrap();
    assert_eq!(doc["attempts"][0]["provisioningState"], "Rejected");
    assert_eq!(doc["attempts"][1]["vmSize"], BIG);
}

#[test]
fn after_a_deployment_that_ran_the_region_step_does_not_reuse_the_group() {
    // the allocation failures ran: the VNet, NSG, identity... exist in eastus2 in RG, and a
    // resource keeps its region, so westus3 with the same names in RG would be refused
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_with(&dir, &format!("    alternateSizes: [{BIG}]\n"), None);
    let fake = capacity_fake(
        &[("eastus2", 48), ("westus3", 48), ("southcentralus", 48)],
        Box::new(|_, _, loc| (loc == "eastus2").then_some(Answer::Allocation("AllocationFailed"))),
    );
    let out = deploy(&fake, &spec).output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    let t: Vec<(String, String)> = tried(&fake).into_iter().map(|(s, _, l)| (s, l)).collect();
    assert_eq!(
        t,
        vec![
            (SIZE.to_string(), "eastus2".to_string()),
            (BIG.to_string(), "eastus2".to_string()),
        ]
    );
    assert!(
        e.contains(&format!("{SIZE} in westus3 would deploy into {RG}, where the deployment in eastus2 left resources"))
            && e.contains("InvalidResourceLocation; source: a resource keeps its region")
            && e.contains("github.com/MicrosoftDocs/azure-docs/issues/70422"),
        "{e}"
    );
    let doc: Value = serde_json::from_str(&o).unwrap();
    let attempts = doc["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 3);
    assert_eq!(attempts[2]["provisioningState"], "Skipped");
    assert!(
        doc["fixes"].as_array().unwrap().iter().any(|f| f
            .as_str()
            .unwrap()
            .contains("--per-region-resource-group")
            && f.as_str().unwrap().contains(&format!("{RG}-westus3"))),
        "{o}"
    );
}

#[test]
fn after_rejected_deployments_the_region_step_reuses_the_group() {
    // SkuNotAvailable is refused at validation: nothing was created in eastus2, so westus3 can
    // go to the same group (its resources take the region from the location parameter)
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_with(&dir, "", None);
    let fake = capacity_fake(
        &[("eastus2", 48), ("westus3", 48), ("southcentralus", 48)],
        Box::new(|_, _, loc| (loc == "eastus2").then_some(Answer::SkuNotAvailable)),
    );
    let out = deploy(&fake, &spec).output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    let t: Vec<String> = tried(&fake).into_iter().map(|(_, _, l)| l).collect();
    assert_eq!(t, vec!["eastus2".to_string(), "westus3".to_string()]);
    assert!(
        fake.requests()
            .iter()
            .filter(|r| r.method.as_str() == "PUT")
            .all(|r| r.url.path().contains(&format!("/resourcegroups/{RG}/"))),
        "one group"
    );
    assert!(
        failover_lines(&e)[0].ends_with(&format!("trying {SIZE} in westus3 (next region)")),
        "{e}"
    );
}

#[test]
fn every_size_failing_in_the_region_moves_to_the_next_region_in_its_own_group() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_with(&dir, &format!("    alternateSizes: [{BIG}]\n"), None);
    let fake = capacity_fake(
        &[("eastus2", 48), ("westus3", 48), ("southcentralus", 48)],
        Box::new(|_, _, loc| (loc == "eastus2").then_some(Answer::Allocation("AllocationFailed"))),
    );
    let west = format!("{RG}-westus3");
    let west_path = format!("/subscriptions/{SUB}/resourcegroups/{west}");
    fake.mount(
        Mock::given(method("GET"))
            .and(wiremock::matchers::path(west_path.clone()))
            .respond_with(ResponseTemplate::new(404).set_body_json(json!({"error": {
                "code": "ResourceGroupNotFound",
                "message": format!("Resource group '{west}' could not be found.")
            }}))),
    );
    fake.mount(
        Mock::given(method("PUT"))
            .and(wiremock::matchers::path(west_path.clone()))
            .respond_with(ResponseTemplate::new(201).set_body_json(json!({
                "id": format!("/subscriptions/{SUB}/resourceGroups/{west}"),
                "name": west, "location": "westus3"
            }))),
    );
    let out = deploy(&fake, &spec)
        .arg("--per-region-resource-group")
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    let t: Vec<(String, String)> = tried(&fake).into_iter().map(|(s, _, l)| (s, l)).collect();
    assert_eq!(
        t,
        vec![
            (SIZE.to_string(), "eastus2".to_string()),
            (BIG.to_string(), "eastus2".to_string()),
            (SIZE.to_string(), "westus3".to_string()),
        ]
    );
    assert_eq!(failover_lines(&e).len(), 2, "{e}");
    assert!(
        failover_lines(&e)[1].ends_with(&format!(
            "trying {SIZE} in westus3 in resource group {west} (next region)"
        )),
        "{e}"
    );
    let reqs = fake.requests();
    // the group was created in westus3 with the spec's tags
    let create = reqs
        .iter()
        .find(|r| r.method.as_str() == "PUT" && r.url.path() == west_path)
        .expect("the region's group was created");
    let body: Value = serde_json::from_slice(&create.body).unwrap();
    assert_eq!(body["location"], "westus3");
    assert_eq!(body["tags"]["project"], "shortvideo");
    // the westus3 deployment went to that group, and names westus3 for every regional resource
    let put = reqs
        .iter()
        .filter(|r| r.method.as_str() == "PUT" && r.url.path().contains("/deployments/"))
        .nth(2)
        .unwrap();
    assert!(
        put.url
            .path()
            .to_ascii_lowercase()
            .contains(&format!("/resourcegroups/{}/", west.to_ascii_lowercase())),
        "{}",
        put.url.path()
    );
    let v: Value = serde_json::from_slice(&put.body).unwrap();
    assert_eq!(
        v["properties"]["parameters"]["location"]["value"],
        "westus3"
    );
    let template = &v["properties"]["template"];
    for r in template["resources"].as_array().unwrap() {
        if let Some(l) = r.get("location").and_then(Value::as_str) {
            assert!(
                l == "[parameters('location')]" || l == "global",
                "{} has location {l}",
                r["type"]
            );
        }
    }
    // the group's own location appears only as the parameter's default, which is overridden
    let text = template.to_string();
    assert_eq!(
        text.matches("resourceGroup().location").count(),
        1,
        "{text}"
    );
    let doc: Value = serde_json::from_str(&o).unwrap();
    let attempts = doc["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 3);
    assert_eq!(attempts[2]["resourceGroup"], west.as_str());
    assert!(attempts[0].get("resourceGroup").is_none());
    assert_eq!(doc["resourceGroup"], west.as_str());
}

#[test]
fn a_size_whose_family_has_no_quota_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    // the alternate is another family's size: ND A100 v4 fits 11 GiB, its family has 0 quota
    let spec = spec_with(
        &dir,
        &format!("    alternateSizes: [Standard_NC24ads_A100_v4, {BIG}]\n"),
        None,
    );
    let fake = capacity_fake(
        &[("eastus2", 48)],
        Box::new(|size, _, _| (size == SIZE).then_some(Answer::SkuNotAvailable)),
    );
    let out = deploy(&fake, &spec).output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    let sizes: Vec<String> = tried(&fake).into_iter().map(|(s, _, _)| s).collect();
    assert_eq!(sizes, vec![SIZE.to_string(), BIG.to_string()]);
    let lines = failover_lines(&e);
    assert!(lines[0].starts_with("deploy: skipping Standard_NC24ads_A100_v4 in eastus2: Standard NCADS_A100_v4 Family vCPUs quota 0 of 0 vCPUs used, one VM needs 24"), "{e}");
    let doc: Value = serde_json::from_str(&o).unwrap();
    assert_eq!(doc["attempts"][1]["provisioningState"], "Skipped");
}

#[test]
fn no_failover_stops_at_the_first_capacity_error() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_with(&dir, &format!("    alternateSizes: [{BIG}]\n"), None);
    let fake = capacity_fake(
        &[("eastus2", 48), ("westus3", 48), ("southcentralus", 48)],
        Box::new(|size, _, _| (size == SIZE).then_some(Answer::SkuNotAvailable)),
    );
    let out = deploy(&fake, &spec).arg("--no-failover").output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert_eq!(tried(&fake).len(), 1);
    assert!(failover_lines(&e).is_empty(), "{e}");
    let doc: Value = serde_json::from_str(&o).unwrap();
    assert_eq!(doc["provisioningState"], "Rejected");
    assert!(doc.get("attempts").is_none());
    // today's fix: the alternate regions that pass preflight
    assert!(
        doc["fixes"][0]
            .as_str()
            .unwrap()
            .contains("alternate regions that pass preflight"),
        "{o}"
    );
}

#[test]
fn a_region_outside_allowed_regions_is_never_tried() {
    let dir = tempfile::tempdir().unwrap();
    // residency: southcentralus leaves allowedRegions; the spec then cannot name it as an
    // alternate, and failover never goes there
    let spec = spec_with(&dir, "", Some("  alternateRegions: [westus3]\n"));
    let text = std::fs::read_to_string(&spec).unwrap().replace(
        "allowedRegions: [eastus, eastus2, westus3, southcentralus, centralus]",
        "allowedRegions: [eastus, eastus2, centralus, southcentralus]",
    );
    std::fs::write(&spec, &text).unwrap();
    let fake = capacity_fake(
        &[("eastus2", 48), ("westus3", 48)],
        Box::new(|_, _, loc| (loc == "eastus2").then_some(Answer::SkuNotAvailable)),
    );
    let out = deploy(&fake, &spec).output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert!(
        e.contains("region-not-allowed")
            || o.contains("region-not-allowed")
            || e.contains("not in allowedRegions"),
        "{o}\n{e}"
    );
    assert!(tried(&fake).is_empty());
    let _ = Duration::ZERO;
}

/// `deploy`'s text output (stdout) of `spec` against `fake`.
fn deploy_text(fake: &FakeAzure, spec: &std::path::Path) -> (i32, String, String) {
    let mut c = fake.gpuform();
    c.arg("deploy").arg(spec).args([
        "--resource-group",
        RG,
        "--yes",
        "--skip-preflight",
        "--progress",
        "none",
        "--arm-endpoint",
        &format!("{}/", fake.base),
        "--retry-delay-ms",
        "50",
        "--poll-interval",
        "0.05",
    ]);
    let out = c.output().unwrap();
    let (o, e) = texts(&out);
    (out.status.code().unwrap_or(-1), o, e)
}

/// The lines of the text output's failover section.
fn attempt_lines(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .skip_while(|l| !l.starts_with("capacity failover ("))
        .skip(1)
        .take_while(|l| l.starts_with("  ") && l.trim_start().starts_with(char::is_numeric))
        .collect()
}

#[test]
fn the_text_output_lists_every_attempt_one_line_each() {
    let dir = tempfile::tempdir().unwrap();
    // zone 1 fails, zone 2's size fails, the alternate size of another family has no quota,
    // the same-family alternate succeeds
    let spec = spec_with(
        &dir,
        &format!(
            "    zonesByRegion:\n      eastus2: [\"1\", \"2\"]\n    alternateSizes: [Standard_NC24ads_A100_v4, {BIG}]\n"
        ),
        None,
    );
    let fake = capacity_fake(
        &[("eastus2", 48)],
        Box::new(|size, zones, _| {
            if zones == ["1"] {
                Some(Answer::Allocation("ZonalAllocationFailed"))
            } else if size == SIZE {
                Some(Answer::SkuNotAvailable)
            } else {
                None
            }
        }),
    );
    let (code, o, e) = deploy_text(&fake, &spec);
    assert_eq!(code, 0, "{o}\n{e}");
    // each size is tried zone by zone; the other family's size is skipped in both zones
    let lines = attempt_lines(&o);
    let quota =
        "Skipped (Standard NCADS_A100_v4 Family vCPUs quota 0 of 0 vCPUs used, one VM needs 24)";
    assert_eq!(
        lines,
        vec![
            format!("  1. {SIZE} in eastus2 zone 1: Failed (ZonalAllocationFailed)"),
            format!("  2. {SIZE} in eastus2 zone 2: Rejected (SkuNotAvailable)"),
            format!("  3. Standard_NC24ads_A100_v4 in eastus2 zone 1: {quota}"),
            format!("  4. Standard_NC24ads_A100_v4 in eastus2 zone 2: {quota}"),
            format!("  5. {BIG} in eastus2 zone 1: Failed (ZonalAllocationFailed)"),
            format!("  6. {BIG} in eastus2 zone 2: Succeeded"),
        ],
        "{o}"
    );
    assert!(
        o.contains("capacity failover (6 placements, in order: zone, size, region):"),
        "{o}"
    );
}

#[test]
fn the_text_output_of_an_exhausted_failover_lists_the_attempts_before_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_with(
        &dir,
        &format!("    alternateSizes: [{BIG}]\n"),
        Some("  alternateRegions: []\n"),
    );
    let fake = capacity_fake(
        &[("eastus2", 48)],
        Box::new(|_, _, _| Some(Answer::Allocation("AllocationFailed"))),
    );
    let (code, o, e) = deploy_text(&fake, &spec);
    assert_eq!(code, 1, "{o}\n{e}");
    let lines = attempt_lines(&o);
    assert_eq!(
        lines,
        vec![
            format!("  1. {SIZE} in eastus2: Failed (AllocationFailed)"),
            format!("  2. {BIG} in eastus2: Failed (AllocationFailed)"),
        ],
        "{o}"
    );
    let section = o.find("capacity failover (").unwrap();
    assert!(section < o.find("error:").unwrap_or(usize::MAX), "{o}");
}

#[test]
fn without_failover_the_text_output_has_no_attempts_section() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_with(&dir, &format!("    alternateSizes: [{BIG}]\n"), None);
    let fake = capacity_fake(&[("eastus2", 48)], Box::new(|_, _, _| None));
    let (code, o, e) = deploy_text(&fake, &spec);
    assert_eq!(code, 0, "{o}\n{e}");
    assert!(!o.contains("capacity failover"), "{o}");
}

/// A deployment that ran in eastus2 left resources in RG; the same spec moved to westus3 and
/// deployed into RG again is refused by ARM (`InvalidResourceLocation`, the reported answer the
/// fake gives), and deploy says why and how out: a group of its own, or destroy first.
#[test]
fn a_spec_moved_to_another_region_in_the_same_group_gets_the_location_fix() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec_with(&dir, "", None);
    let fake = capacity_fake(
        &[("eastus2", 48), ("westus3", 48), ("southcentralus", 48)],
        Box::new(|_, _, loc| (loc == "eastus2").then_some(Answer::Allocation("AllocationFailed"))),
    );
    let out = deploy(&fake, &spec).arg("--no-failover").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let moved = std::fs::read_to_string(&spec)
        .unwrap()
        .replace("  region: eastus2\n", "  region: westus3\n")
        .replace(
            "  alternateRegions: [westus3, southcentralus]\n",
            "  alternateRegions: [southcentralus]\n",
        );
    std::fs::write(&spec, moved).unwrap();
    let out = deploy(&fake, &spec).arg("--no-failover").output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    let doc: Value = serde_json::from_str(&o).unwrap();
    assert_eq!(doc["provisioningState"], "Rejected", "{o}");
    assert_eq!(doc["error"]["code"], "InvalidResourceLocation", "{o}");
    let fix = doc["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .find(|f| f.starts_with("InvalidResourceLocation:"))
        .unwrap_or_else(|| panic!("{o}"));
    assert!(
        fix.contains("already exists in location 'eastus2'")
            && fix.contains("--per-region-resource-group")
            && fix.contains(&format!("-g {RG} --no-follow"))
            && fix.contains("github.com/fortinetsolutions/Azure-Templates/issues/8"),
        "{fix}"
    );
}
