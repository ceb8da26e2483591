//! `gpuform deploy` end to end: the real binary against the HTTPS fake ARM + Entra of
//! tests/common. Each test asserts what the user reads and the exit code.
//!
//! The spec is examples/shortvideo-transcode.yaml (Standard_NC8as_T4_v3, eastus2 with alternates
//! westus3 and southcentralus, tags project/team/env/costCenter) unless a test says otherwise.
//! `GPUFORM_TEST_SHOW=1 cargo test --test deploy -- --nocapture --test-threads 1` prints what
//! users see.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::refuse::AzureFacts;
use common::*;
use serde_json::{Value, json};
use wiremock::matchers::{method, path, path_regex, query_param};
use wiremock::{Mock, ResponseTemplate};

const RG: &str = "rg-shortvideo-prod";
fn rg_path(rg: &str) -> String {
    FakeAzure::sub_path(&format!("resourcegroups/{rg}"))
}

/// `.../deployments/<any name>` plus `suffix` (regex).
fn deployment_re(suffix: &str) -> String {
    format!(
        r"^/subscriptions/{SUB}/resourcegroups/{RG}/providers/Microsoft\.Resources/deployments/[^/]+{suffix}$"
    )
}

fn status_url(fake: &FakeAzure) -> String {
    fake.url(&format!(
        "/subscriptions/{SUB}/resourcegroups/{RG}/providers/Microsoft.Resources/deployments/d/operationStatuses/08584?api-version=2025-04-01"
    ))
}

/// `gpuform deploy SPEC -g RG --yes` against the fake, fast polling (stderr is a pipe, so
/// progress is plain lines).
fn deploy(fake: &FakeAzure, spec: &std::path::Path) -> assert_cmd::Command {
    let mut c = fake.gpuform();
    c.arg("deploy").arg(spec).args([
        "--resource-group",
        RG,
        "--yes",
        "--arm-endpoint",
        &format!("{}/", fake.base),
        "--retry-delay-ms",
        "50",
        "--poll-interval",
        "0.05",
    ]);
    c
}

/// Progress lines without their `HH:MM:SSZ  ` timestamp.
fn progress_lines(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter(|l| {
            l.len() > 11 && l.as_bytes()[2] == b':' && l.as_bytes()[5] == b':' && &l[8..11] == "Z  "
        })
        .map(|l| l[11..].to_string())
        .collect()
}

fn op(id: &str, ty: &str, name: &str, state: &str, duration: &str) -> Value {
    json!({
        "id": format!("/subscriptions/{SUB}/resourceGroups/{RG}/providers/Microsoft.Resources/deployments/d/operations/{id}"),
        "operationId": id,
        "properties": {
            "provisioningOperation": "Create", "provisioningState": state,
            "timestamp": "2026-12-02T10:00:00.0000000Z", "duration": duration,
            "targetResource": {"id": format!("/subscriptions/{SUB}/resourceGroups/{RG}/providers/{ty}/{name}"), "resourceType": ty, "resourceName": name}
        }
    })
}

const VNET: &str = "Microsoft.Network/virtualNetworks";
const VMSS: &str = "Microsoft.Compute/virtualMachineScaleSets";
const VAULT: &str = "Microsoft.KeyVault/vaults";

/// PUT → 201 + Azure-AsyncOperation; the status URL answers `statuses` in turn; operations
/// answer `ops` in turn; the final GET answers `final_body`.
fn deployment_flow(
    fake: &FakeAzure,
    statuses: Vec<ResponseTemplate>,
    ops: Vec<Value>,
    final_body: Value,
) {
    fake.mount(
        Mock::given(method("PUT"))
            .and(path_regex(deployment_re("")))
            .and(query_param("api-version", "2025-04-01"))
            .respond_with(
                ResponseTemplate::new(201)
                    .insert_header("Azure-AsyncOperation", status_url(fake).as_str())
                    .set_body_json(json!({"name": "d", "properties": {"provisioningState": "Accepted", "mode": "Incremental"}})),
            ),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(deployment_re("/operationStatuses/08584")))
            .respond_with(seq(statuses)),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(deployment_re("/operations")))
            .respond_with(seq(ops
                .into_iter()
                .map(|v| ResponseTemplate::new(200).set_body_json(json!({"value": v})))
                .collect())),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(deployment_re("")))
            .respond_with(ResponseTemplate::new(200).set_body_json(final_body)),
    );
}

fn status(s: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({"status": s}))
}

fn succeeded_deployment() -> Value {
    json!({"name": "d", "properties": {
        "provisioningState": "Succeeded", "duration": "PT2M14.5S", "mode": "Incremental",
        "outputs": {
            "vmssId": {"type": "String", "value": format!("/subscriptions/{SUB}/resourceGroups/{RG}/providers/{VMSS}/vmss-shortvideo-transcode")},
            "vaultUri": {"type": "String", "value": "https://kv-shortvideo-prod.vault.azure.net/"},
            "gpuWorkbookId": {"type": "String", "value": format!("/subscriptions/{SUB}/resourceGroups/{RG}/providers/Microsoft.Insights/workbooks/5f1c2e0d-0000-4000-8000-00000000000b")}
        }
    }})
}

fn happy_ops() -> Vec<Value> {
    vec![
        json!([op("1", VNET, "vnet-shortvideo", "Running", "PT1S")]),
        json!([
            op("1", VNET, "vnet-shortvideo", "Succeeded", "PT9.8S"),
            op("2", VAULT, "kv-shortvideo-prod", "Running", "PT2S")
        ]),
        json!([
            op("1", VNET, "vnet-shortvideo", "Succeeded", "PT9.8S"),
            op("2", VAULT, "kv-shortvideo-prod", "Succeeded", "PT31S"),
            op("3", VMSS, "vmss-shortvideo-transcode", "Running", "PT5S")
        ]),
        json!([
            op("1", VNET, "vnet-shortvideo", "Succeeded", "PT9.8S"),
            op("2", VAULT, "kv-shortvideo-prod", "Succeeded", "PT31S"),
            op(
                "3",
                VMSS,
                "vmss-shortvideo-transcode",
                "Succeeded",
                "PT1M40S"
            )
        ]),
    ]
}

fn put_bodies(fake: &FakeAzure) -> Vec<Vec<u8>> {
    fake.requests()
        .into_iter()
        .filter(|r| r.method.as_str() == "PUT" && r.url.path().contains("/deployments/"))
        .map(|r| r.body)
        .collect()
}

fn rendered(spec: &std::path::Path, file: &str) -> String {
    let out = clean_command()
        .arg("render")
        .arg(spec)
        .args(["--stdout", file])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_deployment_that_succeeds_after_several_polls() {
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    fake.mount_subscription(&[("eastus2", 48)], Duration::ZERO);
    deployment_flow(
        &fake,
        vec![
            status("Running"),
            status("Running"),
            status("Running"),
            status("Succeeded"),
        ],
        happy_ops(),
        succeeded_deployment(),
    );
    let out = deploy(&fake, &spec()).output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    assert!(
        e.contains("deploy: preflight eastus2 (Standard_NC8as_T4_v3): PASS"),
        "{e}"
    );
    assert!(
        e.contains(&format!(
            "deploy: resource group {RG} (eastus2) exists; deployment shortvideo-transcode-"
        )),
        "{e}"
    );
    // plain progress: one line per change, never a repeat
    let lines = progress_lines(&e);
    let name = lines[0]
        .strip_prefix("deployment ")
        .and_then(|l| l.split(':').next())
        .unwrap()
        .to_string();
    assert!(
        name.starts_with("shortvideo-transcode-")
            && name.len() == "shortvideo-transcode-".len() + 8,
        "{name}"
    );
    assert_eq!(
        lines,
        [
            format!("deployment {name}: Accepted"),
            format!("deployment {name}: Running"),
            "Running    Microsoft.Network/virtualNetworks  vnet-shortvideo".into(),
            "Succeeded  Microsoft.Network/virtualNetworks  vnet-shortvideo  (9.8 s)".into(),
            "Running    Microsoft.KeyVault/vaults  kv-shortvideo-prod".into(),
            "Succeeded  Microsoft.KeyVault/vaults  kv-shortvideo-prod  (31.0 s)".into(),
            "Running    Microsoft.Compute/virtualMachineScaleSets  vmss-shortvideo-transcode".into(),
            format!("deployment {name}: Succeeded"),
            "Succeeded  Microsoft.Compute/virtualMachineScaleSets  vmss-shortvideo-transcode  (1m 40s)".into(),
        ],
        "{e}"
    );
    assert!(
        o.contains(&format!(
            "deployment {name} succeeded (resource group {RG}, 2m 14s)"
        )),
        "{o}"
    );
    // outputs aligned on the longest name (gpuWorkbookId)
    assert!(
        o.contains("  vaultUri       https://kv-shortvideo-prod.vault.azure.net/"),
        "{o}"
    );
    assert!(o.contains(&format!("  vmssId         /subscriptions/{SUB}/resourceGroups/{RG}/providers/{VMSS}/vmss-shortvideo-transcode")), "{o}");
    assert!(
        o.contains(&format!("GPU workbook: https://portal.azure.com/#@/resource/subscriptions/{SUB}/resourceGroups/{RG}/providers/Microsoft.Insights/workbooks/")),
        "{o}"
    );

    // the PUT body carries the rendered template byte for byte, Incremental, with the rendered parameters
    let bodies = put_bodies(&fake);
    assert_eq!(bodies.len(), 1);
    let body = String::from_utf8(bodies[0].clone()).unwrap();
    let template = rendered(&spec(), "azuredeploy.json");
    let prefix = format!(
        "{{\"properties\":{{\"mode\":\"Incremental\",\"template\":{template},\"parameters\":"
    );
    assert!(
        body.starts_with(&prefix),
        "the PUT body does not embed the rendered template verbatim"
    );
    let mut sent: Value = serde_json::from_str(&body).unwrap();
    let params: Value =
        serde_json::from_str(&rendered(&spec(), "azuredeploy.parameters.json")).unwrap();
    // plus the name of the remediation this deployment starts (issue 38)
    let remediation = sent["properties"]["parameters"]
        .as_object_mut()
        .unwrap()
        .remove("gpuDcrRemediationName")
        .unwrap();
    assert!(
        remediation["value"]
            .as_str()
            .unwrap()
            .starts_with("shortvideo-transcode-gpu-dcr-2"),
        "{remediation}"
    );
    assert_eq!(sent["properties"]["parameters"], params["parameters"]);
    assert_eq!(sent["properties"]["mode"], "Incremental");
    // the name in the URL is the one printed
    let put = fake
        .requests()
        .into_iter()
        .find(|r| r.method.as_str() == "PUT")
        .unwrap();
    assert!(
        put.url.path().ends_with(&format!("/deployments/{name}")),
        "{}",
        put.url
    );
    // polled: the status URL 4 times (Running x3, Succeeded)
    let polls = fake
        .requests()
        .iter()
        .filter(|r| r.url.path().contains("operationStatuses"))
        .count();
    assert_eq!(polls, 4);

    // the same spec gives the same name; --output json is a machine-readable document
    let out = deploy(&fake, &spec())
        .args(["--output", "json", "--skip-preflight"])
        .output()
        .unwrap();
    let (o, _) = texts(&out);
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_str(&o).expect("stdout is one JSON document");
    assert_eq!(doc["deployment"], name.as_str());
    assert_eq!(doc["provisioningState"], "Succeeded");
    assert_eq!(
        doc["outputs"]["vaultUri"],
        "https://kv-shortvideo-prod.vault.azure.net/"
    );
    assert_eq!(doc["resourceGroup"], RG);
    // the GPU workbook, linked in the portal of the cloud (issue 12)
    assert_eq!(
        doc["gpuWorkbook"],
        format!(
            "https://portal.azure.com/#@/resource/subscriptions/{SUB}/resourceGroups/{RG}/providers/Microsoft.Insights/workbooks/5f1c2e0d-0000-4000-8000-00000000000b"
        )
    );

    // on a terminal the table is redrawn in place (forced here: stderr is a pipe)
    let out = deploy(&fake, &spec())
        .args(["--skip-preflight", "--progress", "live"])
        .output()
        .unwrap();
    let (_, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0));
    assert!(e.contains("F\x1b[J"), "no redraw: {e:?}");
    assert!(e.contains(&format!("deploying {name}: Succeeded")), "{e}");
    assert!(e.contains("  ✓ Succeeded  Microsoft.Compute/virtualMachineScaleSets  vmss-shortvideo-transcode  1m 40s"), "{e}");
}

fn quota_message() -> &'static str {
    "Operation could not be completed as it results in exceeding approved standardNCASv3_T4Family Cores quota. Additional details - Deployment Model: Resource Manager, Location: eastus2, Current Limit: 24, Current Usage: 16, Additional Required: 16, (Minimum) New Limit Required: 32. Submit a request for Quota increase at https://aka.ms/ProdportalCRP/#blade/Microsoft_Azure_Capacity/UsageAndQuota.ReactView by specifying parameters listed in the 'Details' section for deployment to succeed."
}

#[test]
fn a_deployment_that_fails_with_a_nested_quota_error() {
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    let inner =
        json!({"error": {"code": "OperationNotAllowed", "message": quota_message()}}).to_string();
    let failed_vmss = json!({
        "operationId": "3",
        "properties": {
            "provisioningOperation": "Create", "provisioningState": "Failed", "duration": "PT3.2S", "statusCode": "Conflict",
            "statusMessage": {"status": "Failed", "error": {"code": "OperationNotAllowed", "message": quota_message()}},
            "targetResource": {"id": format!("/subscriptions/{SUB}/resourceGroups/{RG}/providers/{VMSS}/vmss-shortvideo-transcode"), "resourceType": VMSS, "resourceName": "vmss-shortvideo-transcode"}
        }
    });
    deployment_flow(
        &fake,
        vec![status("Running"), status("Failed")],
        vec![
            json!([op("1", VNET, "vnet-shortvideo", "Running", "PT1S")]),
            json!([
                op("1", VNET, "vnet-shortvideo", "Succeeded", "PT9.8S"),
                failed_vmss
            ]),
        ],
        json!({"name": "d", "properties": {
            "provisioningState": "Failed", "duration": "PT41S",
            "error": {"code": "DeploymentFailed", "message": "At least one resource deployment operation failed. Please list deployment operations for details. Please see https://aka.ms/arm-deployment-operations for usage details.",
                "details": [{"code": "Conflict", "message": inner}]}
        }}),
    );
    let out = deploy(&fake, &spec())
        .arg("--skip-preflight")
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert!(progress_lines(&e).iter().any(|l| l == "Failed     Microsoft.Compute/virtualMachineScaleSets  vmss-shortvideo-transcode  (3.2 s)"), "{e}");
    assert!(
        o.contains("ended Failed (resource group rg-shortvideo-prod, 41.0 s)"),
        "{o}"
    );
    // the tree, with the JSON inside the Conflict message unpacked
    assert!(
        o.contains(
            "error:\n  DeploymentFailed: At least one resource deployment operation failed."
        ),
        "{o}"
    );
    assert!(o.contains("\n    Conflict\n      OperationNotAllowed: Operation could not be completed as it results in exceeding approved standardNCASv3_T4Family Cores quota."), "{o}");
    // the resource that failed
    assert!(o.contains("failed resources:\n  Microsoft.Compute/virtualMachineScaleSets vmss-shortvideo-transcode (Conflict)"), "{o}");
    // the exact increase
    assert!(o.contains("fix:\n  - request a quota increase for standardNCASv3_T4Family vCPUs in eastus2 to a new limit of at least 32 (Current Limit: 24, Current Usage: 16, Additional Required: 16)"), "{o}");
    assert!(o.contains("counts against the \"Standard NCASv3_T4 Family\" family quota; `az vm list-usage -l eastus2 -o table` shows it"), "{o}");
    // the command that files it, exactly as it can be pasted (issue 24, item 7)
    assert!(
        o.contains(&format!(
            "; `gpuform quota request {} -g {RG} --subscription {SUB}` files that increase through the Azure Quota API and follows it to approval",
            spec().display()
        )),
        "{o}"
    );
    assert!(
        o.contains(&format!(
            "details: az deployment operation group list -g {RG} -n shortvideo-transcode-"
        )),
        "{o}"
    );
    assert!(o.contains(&format!("portal:  https://portal.azure.com/#@/resource/subscriptions/{SUB}/resourceGroups/{RG}/deployments")), "{o}");
}

#[test]
fn a_deployment_rejected_with_sku_not_available_suggests_regions_that_pass_preflight() {
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    // eastus2 looks fine to preflight; ARM has no capacity; westus3 passes, southcentralus lacks quota
    fake.mount_subscription(
        &[("eastus2", 48), ("westus3", 48), ("southcentralus", 0)],
        Duration::ZERO,
    );
    fake.mount(
        Mock::given(method("PUT"))
            .and(path_regex(deployment_re("")))
            .respond_with(ResponseTemplate::new(400).set_body_json(json!({"error": {
                "code": "InvalidTemplateDeployment",
                "message": "The template deployment 'shortvideo-transcode' is not valid according to the validation procedure. The tracking id is '1d2e3f'. See inner errors for details.",
                "details": [{"code": "SkuNotAvailable", "message": "The requested VM size for resource 'Following SKUs have failed for Capacity Restrictions: Standard_NC8as_T4_v3' is currently not available in location 'eastus2'. Please try another size or deploy to a different location or different zone. See https://aka.ms/azureskunotavailable for details."}]
            }}))),
    );
    let out = deploy(&fake, &spec())
        .arg("--no-failover")
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert!(
        e.contains("deploy: running preflight for the alternate regions (westus3, southcentralus)"),
        "{e}"
    );
    assert!(
        o.contains(&format!(
            "was rejected by ARM before it started (resource group {RG})\n"
        )),
        "{o}"
    );
    assert!(o.contains("  InvalidTemplateDeployment: The template deployment 'shortvideo-transcode' is not valid"), "{o}");
    assert!(o.contains("    SkuNotAvailable: The requested VM size for resource 'Following SKUs have failed for Capacity Restrictions: Standard_NC8as_T4_v3' is currently not available in location 'eastus2'."), "{o}");
    assert!(o.contains("  - SkuNotAvailable: Azure cannot place Standard_NC8as_T4_v3 in eastus2 now; alternate regions that pass preflight, cheapest first: westus3 ($0.752/h per VM); set spec.region to one of them"), "{o}");
    assert!(
        o.contains(
            "      southcentralus does not pass: family vCPU quota: Standard NCASv3_T4 Family vCPUs"
        ),
        "{o}"
    );
    // nothing else was attempted after the rejection
    assert_eq!(put_bodies(&fake).len(), 1);

    // the same as JSON
    let out = deploy(&fake, &spec())
        .args(["--output", "json", "--no-failover"])
        .output()
        .unwrap();
    let (o, _) = texts(&out);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_str(&o).unwrap();
    assert_eq!(doc["provisioningState"], "Rejected");
    assert_eq!(doc["diagnoses"][0]["kind"], "capacity");
    assert_eq!(doc["alternatives"]["passing"][0][0], "westus3");
    assert_eq!(doc["error"]["details"][0]["code"], "SkuNotAvailable");
}

#[test]
fn throttling_while_polling_is_waited_out() {
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    let throttled = || {
        ResponseTemplate::new(429)
            .insert_header("Retry-After", "1")
            .set_body_json(arm_error(
                "TooManyRequests",
                "The request is being throttled.",
            ))
    };
    deployment_flow(
        &fake,
        vec![
            throttled(),
            throttled(),
            status("Running"),
            status("Succeeded"),
        ],
        happy_ops(),
        succeeded_deployment(),
    );
    // the HTTP pipeline retries 429s, waiting as long as Retry-After says
    let started = Instant::now();
    let out = deploy(&fake, &spec())
        .arg("--skip-preflight")
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    assert!(
        started.elapsed() >= Duration::from_secs(2),
        "Retry-After: 1 was not honoured twice"
    );
    assert!(o.contains("succeeded"), "{o}");

    // with no retries left in the pipeline, the polling loop itself keeps going and says so
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    deployment_flow(
        &fake,
        vec![
            throttled(),
            throttled(),
            status("Running"),
            status("Succeeded"),
        ],
        happy_ops(),
        succeeded_deployment(),
    );
    let out = deploy(&fake, &spec())
        .args(["--skip-preflight", "--retries", "0"])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    let notes: Vec<String> = progress_lines(&e)
        .into_iter()
        .filter(|l| l.starts_with("could not read the deployment status"))
        .collect();
    assert_eq!(
        notes,
        vec![
            "could not read the deployment status (HTTP 429 TooManyRequests: The request is being throttled.); trying again";
            2
        ],
        "{e}"
    );
}

#[test]
fn a_resource_group_that_does_not_exist() {
    let fake = FakeArm::new().start();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(rg_path(RG)))
            .respond_with(ResponseTemplate::new(404).set_body_json(arm_error(
                "ResourceGroupNotFound",
                &format!("Resource group '{RG}' could not be found."),
            ))),
    );
    let out = deploy(&fake, &spec())
        .arg("--skip-preflight")
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{o}\n{e}");
    assert!(
        e.contains(&format!(
            "error: the resource group {RG} does not exist in subscription {SUB}"
        )),
        "{e}"
    );
    assert!(
        e.contains(
            "help: pass --create-resource-group to create it in eastus2 with the spec's tags"
        ),
        "{e}"
    );
    assert!(
        fake.requests().iter().all(|r| r.method.as_str() != "PUT"),
        "nothing may be created"
    );

    // with --create-resource-group: created in the spec's region with its tags, then deployed
    fake.mount(
        Mock::given(method("PUT"))
            .and(path(rg_path(RG)))
            .respond_with(ResponseTemplate::new(201).set_body_json(json!({"id": format!("/subscriptions/{SUB}/resourceGroups/{RG}"), "name": RG, "location": "eastus2"}))),
    );
    deployment_flow(
        &fake,
        vec![
            status("Running"),
            status("Running"),
            status("Running"),
            status("Succeeded"),
        ],
        happy_ops(),
        succeeded_deployment(),
    );
    let out = deploy(&fake, &spec())
        .args(["--skip-preflight", "--create-resource-group"])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    assert!(
        e.contains(&format!("resource group {RG} will be created in eastus2")),
        "{e}"
    );
    assert!(
        e.contains(&format!(
            "deploy: created the resource group {RG} in eastus2"
        )),
        "{e}"
    );
    let reqs = fake.requests();
    let create = reqs
        .iter()
        .find(|r| r.method.as_str() == "PUT" && r.url.path() == rg_path(RG))
        .expect("the group was created");
    let body: Value = serde_json::from_slice(&create.body).unwrap();
    assert_eq!(
        body,
        json!({"location": "eastus2", "tags": {"costCenter": "cc-1042", "env": "prod", "project": "shortvideo", "team": "media-platform"}})
    );
    // the group before the deployment
    let order: Vec<&str> = reqs
        .iter()
        .filter(|r| r.method.as_str() == "PUT")
        .map(|r| {
            if r.url.path().contains("/deployments/") {
                "deployment"
            } else {
                "group"
            }
        })
        .collect();
    assert_eq!(order, ["group", "deployment"]);
}

fn what_if_changes() -> Value {
    let id = |ty: &str, name: &str| {
        format!("/subscriptions/{SUB}/resourceGroups/{RG}/providers/{ty}/{name}")
    };
    json!({"status": "Succeeded", "properties": {"changes": [
        {"resourceId": id("Microsoft.Storage/storageAccounts", "stshortvideoold"), "changeType": "Delete",
         "before": {"apiVersion": "2023-01-01", "name": "stshortvideoold"}},
        {"resourceId": id(VMSS, "vmss-shortvideo-transcode"), "changeType": "Create",
         "after": {"apiVersion": "2025-04-01", "name": "vmss-shortvideo-transcode"}},
        {"resourceId": id("Microsoft.Network/networkSecurityGroups", "nsg-shortvideo-workload"), "changeType": "NoChange",
         "before": {"apiVersion": "2025-05-01"}, "after": {"apiVersion": "2025-05-01"}},
        {"resourceId": id(VNET, "vnet-shortvideo"), "changeType": "Modify",
         "before": {"apiVersion": "2025-05-01"}, "after": {"apiVersion": "2025-05-01"},
         "delta": [
            {"path": "tags.env", "propertyChangeType": "Modify", "before": "dev", "after": "prod"},
            {"path": "properties.addressSpace.addressPrefixes", "propertyChangeType": "Array", "children": [
                {"path": "0", "propertyChangeType": "Delete", "before": "10.0.0.0/16"},
                {"path": "0", "propertyChangeType": "Create", "after": "10.40.0.0/16"}
            ]},
            {"path": "properties.subnets", "propertyChangeType": "Array", "children": [
                {"path": "0", "propertyChangeType": "Modify", "children": [
                    {"path": "properties.defaultOutboundAccess", "propertyChangeType": "Modify", "before": true, "after": false}
                ]}
            ]}
         ]},
        {"resourceId": id("Microsoft.Insights/actionGroups", "ag-legacy"), "changeType": "Ignore",
         "before": {"apiVersion": "2023-01-01"}}
    ]}})
}

fn mount_what_if(fake: &FakeAzure) {
    let location = fake.url(&format!(
        "/subscriptions/{SUB}/providers/Microsoft.Resources/locations/eastus2/operationresults/whatif-1?api-version=2025-04-01"
    ));
    fake.mount(
        Mock::given(method("POST"))
            .and(path_regex(deployment_re("/whatIf")))
            .respond_with(
                ResponseTemplate::new(202)
                    .insert_header("Location", location.as_str())
                    .insert_header("Retry-After", "0"),
            ),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(
                "providers/Microsoft.Resources/locations/eastus2/operationresults/whatif-1",
            )))
            .respond_with(seq(vec![
                ResponseTemplate::new(202).insert_header("Location", location.as_str()),
                ResponseTemplate::new(200).set_body_json(what_if_changes()),
            ])),
    );
}

#[test]
fn what_if_groups_changes_with_property_deltas() {
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    mount_what_if(&fake);
    let mut c = deploy(&fake, &spec());
    let out = c.arg("--what-if").output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    let expected = "
Create (1)
  + Microsoft.Compute/virtualMachineScaleSets  vmss-shortvideo-transcode [2025-04-01]

Modify (1)
  ~ Microsoft.Network/virtualNetworks  vnet-shortvideo [2025-05-01]
      ~ tags.env: \"dev\" => \"prod\"
      ~ properties.addressSpace.addressPrefixes: [
        - 0: \"10.0.0.0/16\"
        + 0: \"10.40.0.0/16\"
        ]
      ~ properties.subnets: [
        ~ 0:
          ~ properties.defaultOutboundAccess: true => false
        ]

Delete (1)
  - Microsoft.Storage/storageAccounts  stshortvideoold [2023-01-01]

NoChange (1)
  = Microsoft.Network/networkSecurityGroups  nsg-shortvideo-workload [2025-05-01]

Ignore (1)
  * Microsoft.Insights/actionGroups  ag-legacy [2023-01-01]

Resource changes: 1 to create, 1 to modify, 1 to delete, 1 no change, 1 to ignore.
";
    assert!(o.ends_with(expected), "{o}");
    assert!(
        o.starts_with("what-if: deployment shortvideo-transcode-"),
        "{o}"
    );
    // what-if changes nothing and needs no confirmation; the body is the deployment's
    let reqs = fake.requests();
    assert!(reqs.iter().all(|r| r.method.as_str() != "PUT"));
    let post = reqs
        .iter()
        .find(|r| r.method.as_str() == "POST" && r.url.path().ends_with("/whatIf"))
        .unwrap();
    let template = rendered(&spec(), "azuredeploy.json");
    assert!(String::from_utf8_lossy(&post.body).starts_with(&format!(
        "{{\"properties\":{{\"mode\":\"Incremental\",\"template\":{template}"
    )));

    // --fail-on-delete: exit 1, naming what would be deleted (the resource and the array element)
    let out = deploy(&fake, &spec())
        .args(["--what-if", "--fail-on-delete"])
        .output()
        .unwrap();
    let (_, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(e.contains("deploy: --fail-on-delete: 2 things would be deleted:\n  - Microsoft.Storage/storageAccounts/stshortvideoold\n  - Microsoft.Network/virtualNetworks/vnet-shortvideo: properties.addressSpace.addressPrefixes[0]\n"), "{e}");

    // Markdown for the job summary
    let out = deploy(&fake, &spec())
        .args(["--what-if", "--format", "markdown"])
        .output()
        .unwrap();
    let (o, _) = texts(&out);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        o.contains(
            "**Resource changes: 1 to create, 1 to modify, 1 to delete, 1 no change, 1 to ignore.**"
        ),
        "{o}"
    );
    assert!(
        o.contains(
            "| 🗑️ Delete | Microsoft.Storage/storageAccounts | stshortvideoold | 2023-01-01 |"
        ),
        "{o}"
    );
    assert!(o.contains("```diff\n~ Microsoft.Network/virtualNetworks/vnet-shortvideo\n   ~ tags.env: \"dev\" => \"prod\"\n"), "{o}");
    assert!(
        o.contains("\n-     0: \"10.0.0.0/16\"\n+     0: \"10.40.0.0/16\"\n"),
        "{o}"
    );
}

#[test]
fn what_if_on_a_group_that_does_not_exist_yet() {
    let fake = FakeArm::new().start();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(rg_path(RG)))
            .respond_with(
                ResponseTemplate::new(404)
                    .set_body_json(arm_error("ResourceGroupNotFound", "not found")),
            ),
    );
    let out = deploy(&fake, &spec()).args(["--what-if"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = deploy(&fake, &spec())
        .args(["--what-if", "--create-resource-group", "--output", "json"])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{e}");
    let doc: Value = serde_json::from_str(&o).unwrap();
    assert_eq!(doc["status"], "Simulated");
    // `--dry-run`, the word other tools use, is a hidden alias of --what-if (a newcomer typed it)
    let dry = deploy(&fake, &spec())
        .args(["--dry-run", "--create-resource-group", "--output", "json"])
        .output()
        .unwrap();
    assert_eq!(dry.status.code(), Some(0), "{}", texts(&dry).1);
    assert_eq!(texts(&dry).0, o);
    let template: Value = serde_json::from_str(&rendered(&spec(), "azuredeploy.json")).unwrap();
    assert_eq!(
        doc["summary"]["Create"],
        template["resources"].as_array().unwrap().len()
    );
    assert!(
        fake.requests()
            .iter()
            .all(|r| r.method.as_str() == "GET" || r.url.path().contains("oauth2"))
    );
    // as text: the names the template computes are resolved where it says how
    let out = deploy(&fake, &spec())
        .args(["--what-if", "--create-resource-group"])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{e}");
    assert!(e.contains(&format!("deploy: the resource group {RG} does not exist yet; deploy would create it and every resource below")), "{e}");
    assert!(
        o.contains("  + Microsoft.KeyVault/vaults/keys  kv-shortvideo-prod/disk-cmk ["),
        "{o}"
    );
    assert!(
        o.contains("  + Microsoft.Authorization/roleAssignments  (computed) ["),
        "{o}"
    );
    let n = template["resources"].as_array().unwrap().len();
    assert!(
        o.ends_with(&format!("Resource changes: {n} to create.\n")),
        "{o}"
    );
}

#[test]
fn a_blocked_preflight_stops_the_deploy_before_anything_changes() {
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    fake.mount_subscription(&[("eastus2", 0)], Duration::ZERO);
    let out = deploy(&fake, &spec()).output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert!(
        o.contains("result: eastus2 (spec region) is BLOCKED"),
        "{o}"
    );
    assert!(
        e.contains("deploy: stopped before changing anything: preflight blocks eastus2"),
        "{e}"
    );
    assert!(fake.requests().iter().all(|r| r.method.as_str() != "PUT"));
}

#[test]
fn windows_passwords_come_from_the_environment_and_are_never_shown() {
    let spec = examples("windows-viz-nv.yaml");
    let fake = FakeArm::new().start();
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(format!(
                "^/subscriptions/{SUB}/resourcegroups/{RG}$"
            )))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_json(json!({"name": RG, "location": "westeurope"})),
            ),
    );
    deployment_flow(
        &fake,
        vec![status("Succeeded")],
        vec![json!([])],
        succeeded_deployment(),
    );
    let out = deploy(&fake, &spec)
        .arg("--skip-preflight")
        .output()
        .unwrap();
    let (_, e) = texts(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(e.contains("the template needs the secure parameter `adminPassword`: set the environment variable GPUFORM_ADMIN_PASSWORD"), "{e}");
    assert!(
        fake.requests().is_empty(),
        "nothing is sent without the password"
    );

    let password = "Corr3ct-Horse-Battery!";
    let out = deploy(&fake, &spec)
        .arg("--skip-preflight")
        .env("GPUFORM_ADMIN_PASSWORD", password)
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    assert!(!o.contains(password) && !e.contains(password));
    let body: Value = serde_json::from_slice(&put_bodies(&fake)[0]).unwrap();
    assert_eq!(
        body["properties"]["parameters"]["adminPassword"]["value"],
        password
    );
    // secrets do not change the name (it is not a hash of the password)
    let out2 = deploy(&fake, &spec)
        .args(["--skip-preflight", "--output", "json"])
        .env("GPUFORM_ADMIN_PASSWORD", "An0ther-Passw0rd!")
        .output()
        .unwrap();
    let (o2, e2) = texts(&out2);
    assert!(!o2.contains("An0ther-Passw0rd!") && !e2.contains("An0ther-Passw0rd!"));
    let doc: Value = serde_json::from_str(&o2).unwrap();
    assert!(e.contains(doc["deployment"].as_str().unwrap()));
}

#[test]
fn without_a_terminal_deploy_needs_yes() {
    let out = clean_command()
        .arg("deploy")
        .arg(spec())
        .args(["-g", RG])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(e.contains("error: gpuform deploy changes Azure resources and asks first, but there is no terminal to ask on"), "{e}");
    assert!(e.contains("help: in a pipeline pass --yes"), "{e}");
}

#[cfg(unix)]
#[test]
fn ctrl_c_leaves_the_deployment_running_and_says_how_to_follow_it() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;

    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    deployment_flow(
        &fake,
        vec![status("Running")],
        vec![json!([op(
            "1",
            VMSS,
            "vmss-shortvideo-transcode",
            "Running",
            "PT1S"
        )])],
        succeeded_deployment(),
    );
    // assert_cmd cannot signal a running child: the same command as `deploy()`, by hand
    let mut std_cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("gpuform"));
    fake.set_env(&mut std_cmd);
    std_cmd
        .arg("deploy")
        .arg(spec())
        .args([
            "-g",
            RG,
            "--yes",
            "--skip-preflight",
            "--auth",
            "secret",
            "--progress",
            "plain",
            "--poll-interval",
            "0.05",
        ])
        .args(["--arm-endpoint", &format!("{}/", fake.base)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = std_cmd.spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if let Ok(l) = rx.recv_timeout(Duration::from_millis(200)) {
            let running = l.contains("Running    Microsoft.Compute/virtualMachineScaleSets");
            seen.push(l);
            if running {
                break;
            }
        }
    }
    assert!(
        seen.iter()
            .any(|l| l.contains("Running    Microsoft.Compute")),
        "{seen:?}"
    );
    let pid = child.id().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let status = child.wait().unwrap();
    while let Ok(l) = rx.recv_timeout(Duration::from_millis(500)) {
        seen.push(l);
    }
    let e = seen.join("\n");
    if std::env::var_os("GPUFORM_TEST_SHOW").is_some() {
        println!("--- exit {:?}\n{e}", status.code());
    }
    assert_eq!(status.code(), Some(130), "{e}");
    assert!(
        e.contains("stopped following deployment shortvideo-transcode-"),
        "{e}"
    );
    assert!(e.contains("it keeps running in Azure:"), "{e}");
    assert!(
        e.contains(&format!(
            "  follow it:   az deployment group show -g {RG} -n shortvideo-transcode-"
        )),
        "{e}"
    );
    assert!(e.contains(&format!("  portal:      https://portal.azure.com/#@/resource/subscriptions/{SUB}/resourceGroups/{RG}/deployments")), "{e}");
    // nothing cancelled it
    assert!(
        fake.requests()
            .iter()
            .all(|r| !r.url.path().ends_with("/cancel"))
    );
}

/// On a terminal (util-linux `script` provides one) deploy shows the what-if summary (counts
/// and every deletion) and asks first, and draws the live table.
#[cfg(unix)]
#[test]
fn on_a_terminal_deploy_asks_and_redraws() {
    use std::io::Write;
    use std::process::Stdio;
    if !Path::new("/usr/bin/script").exists() {
        // CI images must have it; a workstation without util-linux is told loudly
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs /usr/bin/script (util-linux) for the terminal test"
        );
        eprintln!("WARNING: no /usr/bin/script (util-linux): the terminal test did not run");
        return;
    }
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    mount_what_if(&fake);
    deployment_flow(
        &fake,
        vec![
            status("Running"),
            status("Running"),
            status("Running"),
            status("Succeeded"),
        ],
        happy_ops(),
        succeeded_deployment(),
    );
    let run = |answer: &str| {
        let line = format!(
            "'{}' deploy '{}' -g {RG} --skip-preflight --auth secret --poll-interval 0.05 --arm-endpoint '{}/'",
            assert_cmd::cargo::cargo_bin("gpuform").display(),
            spec().display(),
            fake.base
        );
        let mut c = std::process::Command::new("/usr/bin/script");
        fake.set_env(&mut c);
        c.env("TERM", "xterm")
            .args(["-qec", &line, "/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        // answer once the question is up (the terminal buffers it until then)
        child
            .stdin
            .take()
            .unwrap()
            .write_all(answer.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
        if std::env::var_os("GPUFORM_TEST_SHOW").is_some() {
            println!("--- exit {:?}\n{text}", out.status.code());
        }
        (out.status.code(), text)
    };
    let (code, text) = run("n\n");
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains(&format!("in subscription {SUB}? [y/N] ")),
        "{text}"
    );
    // the what-if summary comes before the question, with every deletion
    let summary = "deploy: what-if: 1 to create, 1 to modify, 1 to delete, 1 no change, 1 to ignore\n  deleted (2):\n  - Microsoft.Storage/storageAccounts/stshortvideoold\n  - Microsoft.Network/virtualNetworks/vnet-shortvideo: properties.addressSpace.addressPrefixes[0]\n";
    let at = text.find(summary).unwrap_or_else(|| panic!("{text}"));
    assert!(at < text.find("? [y/N] ").unwrap(), "{text}");
    assert!(
        text.contains("deploy: not confirmed; nothing was changed"),
        "{text}"
    );
    assert!(fake.requests().iter().all(|r| r.method.as_str() != "PUT"));

    let (code, text) = run("y\n");
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("F\x1b[J"),
        "no redraw on a terminal: {text:?}"
    );
    assert!(text.contains("  ✓ Succeeded  Microsoft.Compute/virtualMachineScaleSets  vmss-shortvideo-transcode  1m 40s"), "{text}");
    assert!(text.contains("outputs:"), "{text}");
    assert!(
        text.contains("GPU workbook: https://portal.azure.com/#@/resource/subscriptions/"),
        "{text}"
    );
}

/// A budget from an earlier month keeps its start date: Azure refuses to change it, so the
/// redeployment passes the existing date as `budgetStartDate` (same deployment name).
#[test]
fn an_existing_budget_keeps_its_start_date() {
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(format!(
                "{}/providers/Microsoft.Consumption/budgets/budget-shortvideo-transcode",
                rg_path(RG)
            )))
            .and(query_param("api-version", "2024-08-01"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "name": "budget-shortvideo-transcode",
                "properties": {"category": "Cost", "amount": 15000, "timeGrain": "Monthly",
                    "timePeriod": {"startDate": "2026-10-01T00:00:00Z", "endDate": "2036-09-30T00:00:00Z"}}
            }))),
    );
    deployment_flow(
        &fake,
        vec![status("Succeeded")],
        happy_ops(),
        succeeded_deployment(),
    );
    let out = deploy(&fake, &spec())
        .arg("--skip-preflight")
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    assert!(
        e.contains("deploy: budget budget-shortvideo-transcode exists since 2026-10-01; keeping its start date"),
        "{e}"
    );
    let body: Value = serde_json::from_slice(&put_bodies(&fake)[0]).unwrap();
    assert_eq!(
        body["properties"]["parameters"]["budgetStartDate"]["value"],
        "2026-10-01"
    );
    // without a budget (404) nothing is added: the template's default (this month) applies
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    deployment_flow(
        &fake,
        vec![status("Succeeded")],
        happy_ops(),
        succeeded_deployment(),
    );
    let out = deploy(&fake, &spec())
        .arg("--skip-preflight")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let body: Value = serde_json::from_slice(&put_bodies(&fake)[0]).unwrap();
    assert!(
        body["properties"]["parameters"]
            .get("budgetStartDate")
            .is_none()
    );
}

#[test]
fn a_poll_interval_too_long_for_a_duration_is_a_usage_error() {
    let fake = FakeArm::new().signed_out().start();
    let out = fake
        .gpuform()
        .arg("deploy")
        .arg(spec())
        .args(["-g", RG, "--yes", "--poll-interval", "1e20"])
        .args(["--arm-endpoint", &format!("{}/", fake.base)])
        .output()
        .unwrap();
    let (_, e) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains("error: --poll-interval must be a number of seconds, not 100000000000000000000"),
        "{e}"
    );
    assert!(fake.requests().is_empty());
}

/// ARM's answer when the regional total, not the family, is short.
fn regional_quota_rejection() -> ResponseTemplate {
    ResponseTemplate::new(400).set_body_json(json!({"error": {
        "code": "InvalidTemplateDeployment",
        "message": "The template deployment 'shortvideo-transcode' is not valid according to the validation procedure. The tracking id is '5e6f'. See inner errors for details.",
        "details": [{"code": "QuotaExceeded", "message": "Operation could not be completed as it results in exceeding approved Total Regional Cores quota. Additional details - Deployment Model: Resource Manager, Location: eastus2, Current Limit: 100, Current Usage: 90, Additional Required: 16, (Minimum) New Limit Required: 106. Submit a request for Quota increase at https://aka.ms/ProdportalCRP/#blade/Microsoft_Azure_Capacity/UsageAndQuota.ReactView by specifying parameters listed in the 'Details' section for deployment to succeed."}]
    }}))
}

#[test]
fn a_regional_quota_rejection_asks_for_the_regional_increase_only() {
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    fake.mount(
        Mock::given(method("PUT"))
            .and(path_regex(deployment_re("")))
            .respond_with(regional_quota_rejection()),
    );
    let out = deploy(&fake, &spec())
        .arg("--skip-preflight")
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert!(o.contains("fix:\n  - request a quota increase for Total Regional vCPUs in eastus2 to a new limit of at least 106 (Current Limit: 100, Current Usage: 90, Additional Required: 16)"), "{o}");
    // the size's family quota is not the one that is short
    assert!(!o.contains("family quota"), "{o}");
    assert!(
        o.contains(&format!(
            "`gpuform quota request {} -g {RG} --subscription {SUB}` files that increase",
            spec().display()
        )),
        "{o}"
    );
}

/// A quota error without the numbers (code and a bare message) still names the command that
/// measures and files what is missing; a per-resource-group count is not a quota request.
#[test]
fn a_quota_error_without_numbers_names_gpuform_quota_request() {
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    fake.mount(
        Mock::given(method("PUT"))
            .and(path_regex(deployment_re("")))
            .respond_with(ResponseTemplate::new(400).set_body_json(json!({"error": {
                "code": "InvalidTemplateDeployment",
                "message": "The template deployment 'shortvideo-transcode' is not valid according to the validation procedure.",
                "details": [{"code": "QuotaExceeded", "message": "Operation could not be completed as it results in exceeding approved quota."}]
            }}))),
    );
    let out = deploy(&fake, &spec())
        .arg("--skip-preflight")
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert!(
        o.contains(&format!(
            "fix:\n  - QuotaExceeded: a vCPU quota is exceeded and Azure's message gives no numbers; `gpuform quota request {} -g {RG} --subscription {SUB}` measures what is missing",
            spec().display()
        )),
        "{o}"
    );
    // the code is read as a vCPU quota error without a Microsoft page: the fix says so
    assert!(
        o.contains("(an assumption: QuotaExceeded as a vCPU quota error code"),
        "{o}"
    );

    // Microsoft's per-resource-group count (error-resource-quota.md): delete, do not request
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    fake.mount(
        Mock::given(method("PUT"))
            .and(path_regex(deployment_re("")))
            .respond_with(ResponseTemplate::new(400).set_body_json(json!({"error": {
                "code": "InvalidTemplateDeployment",
                "message": "The template deployment is not valid according to the validation procedure.",
                "details": [{"code": "ResourceQuotaExceeded", "message": "Creating the resource of type Microsoft.Network/networkSecurityGroups would exceed the quota of 800 resources of type Microsoft.Network/networkSecurityGroups per resource group. The current resource count is 800, please delete some resources of this type before creating a new one."}]
            }}))),
    );
    let out = deploy(&fake, &spec())
        .arg("--skip-preflight")
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert!(
        o.contains("fix:\n  - ResourceQuotaExceeded: the resource group holds as many resources of one type as Azure allows; delete some of them or deploy into another resource group (no quota request raises this limit"),
        "{o}"
    );
    assert!(!o.contains("gpuform quota request"), "{o}");
}

/// A 404 for the subscription is not a missing resource group: nothing is created or simulated.
#[test]
fn an_unknown_subscription_is_not_a_missing_group() {
    let fake = FakeArm::new().start();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(rg_path(RG)))
            .respond_with(ResponseTemplate::new(404).set_body_json(arm_error(
                "SubscriptionNotFound",
                &format!("The subscription '{SUB}' could not be found."),
            ))),
    );
    for extra in [
        &["--create-resource-group"][..],
        &["--what-if", "--create-resource-group"][..],
    ] {
        let out = deploy(&fake, &spec())
            .arg("--skip-preflight")
            .args(extra)
            .output()
            .unwrap();
        let (o, e) = texts(&out);
        assert_eq!(out.status.code(), Some(2), "{o}\n{e}");
        assert!(o.is_empty(), "{o}");
        assert!(
            e.contains(&format!("error: read the resource group {RG}: HTTP 404 SubscriptionNotFound: The subscription '{SUB}' could not be found.")),
            "{e}"
        );
        assert!(
            e.contains("help: check --subscription / AZURE_SUBSCRIPTION_ID"),
            "{e}"
        );
        assert!(!e.contains("does not exist"), "{e}");
    }
    assert!(
        fake.requests()
            .iter()
            .all(|r| r.method.as_str() == "GET" || r.url.path().contains("oauth2"))
    );
}

/// A deployment ARM answers with `Location` only: 202 while it runs, then an empty 204.
#[test]
fn a_location_only_deployment_ends_with_an_empty_answer() {
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    let location = fake.url(&format!(
        "/subscriptions/{SUB}/providers/Microsoft.Resources/locations/eastus2/operationresults/deploy-1?api-version=2025-04-01"
    ));
    fake.mount(
        Mock::given(method("PUT"))
            .and(path_regex(deployment_re("")))
            .respond_with(
                ResponseTemplate::new(201)
                    .insert_header("Location", location.as_str())
                    .set_body_json(
                        json!({"name": "d", "properties": {"provisioningState": "Accepted"}}),
                    ),
            ),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(
                "providers/Microsoft.Resources/locations/eastus2/operationresults/deploy-1",
            )))
            .respond_with(seq(vec![
                ResponseTemplate::new(202).insert_header("Location", location.as_str()),
                ResponseTemplate::new(202),
                ResponseTemplate::new(204),
            ])),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(deployment_re("/operations")))
            .respond_with(
                ResponseTemplate::new(200).set_body_json(json!({"value": happy_ops()[3]})),
            ),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(deployment_re("")))
            .respond_with(ResponseTemplate::new(200).set_body_json(succeeded_deployment())),
    );
    let out = deploy(&fake, &spec())
        .arg("--skip-preflight")
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    assert!(o.contains("succeeded (resource group"), "{o}");
    let polls = fake
        .requests()
        .iter()
        .filter(|r| r.url.path().ends_with("/deploy-1"))
        .count();
    assert_eq!(polls, 3);
}

/// What-if: the result is at the Location, even when a 202 also names an
/// Azure-AsyncOperation, and a 200 `{"status": "Running"}` is not the result yet.
#[test]
fn what_if_polls_its_location_until_a_final_answer() {
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    let location = fake.url(&format!(
        "/subscriptions/{SUB}/providers/Microsoft.Resources/locations/eastus2/operationresults/whatif-2?api-version=2025-04-01"
    ));
    let status = fake.url(&format!(
        "/subscriptions/{SUB}/providers/Microsoft.Resources/locations/eastus2/operationstatuses/whatif-2?api-version=2025-04-01"
    ));
    fake.mount(
        Mock::given(method("POST"))
            .and(path_regex(deployment_re("/whatIf")))
            .respond_with(
                ResponseTemplate::new(202)
                    .insert_header("Location", location.as_str())
                    .insert_header("Retry-After", "0"),
            ),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(
                "providers/Microsoft.Resources/locations/eastus2/operationresults/whatif-2",
            )))
            .respond_with(seq(vec![
                ResponseTemplate::new(202)
                    .insert_header("Location", location.as_str())
                    .insert_header("Azure-AsyncOperation", status.as_str()),
                ResponseTemplate::new(200).set_body_json(json!({"status": "Running"})),
                ResponseTemplate::new(200).set_body_json(what_if_changes()),
            ])),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(
                "providers/Microsoft.Resources/locations/eastus2/operationstatuses/whatif-2",
            )))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"status": "Running"}))),
    );
    let out = deploy(&fake, &spec())
        .args(["--what-if", "--output", "json"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    let doc: Value = serde_json::from_str(&o).unwrap();
    assert_eq!(doc["status"], "Succeeded");
    assert_eq!(doc["summary"]["Delete"], 1);
    assert!(
        fake.requests()
            .iter()
            .all(|r| !r.url.path().contains("operationstatuses")),
        "polled the Azure-AsyncOperation URL"
    );
}

#[test]
fn a_failed_final_read_is_tried_again() {
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    deployment_flow(
        &fake,
        vec![status("Succeeded")],
        happy_ops(),
        succeeded_deployment(),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(deployment_re("")))
            .respond_with(seq(vec![
                ResponseTemplate::new(500).set_body_json(arm_error("InternalServerError", "x")),
                ResponseTemplate::new(200).set_body_json(succeeded_deployment()),
            ]))
            .with_priority(1),
    );
    let out = deploy(&fake, &spec())
        .args(["--skip-preflight", "--retries", "0"])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    assert!(o.contains("succeeded (resource group"), "{o}");
}

#[test]
fn losing_track_of_a_deployment_says_how_to_follow_it() {
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    // the status URL keeps failing: after 8 tries in a row gpuform gives up following
    deployment_flow(
        &fake,
        vec![ResponseTemplate::new(503).set_body_json(arm_error("ServiceUnavailable", "down"))],
        happy_ops(),
        succeeded_deployment(),
    );
    let out = deploy(&fake, &spec())
        .args(["--skip-preflight", "--retries", "0"])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{o}\n{e}");
    assert_eq!(
        progress_lines(&e)
            .iter()
            .filter(|l| l.starts_with("could not read the deployment status"))
            .count(),
        7,
        "{e}"
    );
    assert!(
        e.contains("error: read the status of deployment shortvideo-transcode-"),
        "{e}"
    );
    assert!(
        e.contains("caused by: gpuform lost track of deployment shortvideo-transcode-"),
        "{e}"
    );
    assert!(e.contains("it may still be running"), "{e}");
    assert!(
        e.contains(&format!(
            "check on it:\n  follow it:   az deployment group show -g {RG} -n shortvideo-transcode-"
        )),
        "{e}"
    );
    assert_eq!(
        fake.requests()
            .iter()
            .filter(|r| r.url.path().contains("operationStatuses"))
            .count(),
        8
    );

    // a start whose answer never came may have started: the same hint
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    fake.mount(
        Mock::given(method("PUT"))
            .and(path_regex(deployment_re("")))
            .respond_with(
                ResponseTemplate::new(502).set_body_json(arm_error("BadGateway", "upstream")),
            ),
    );
    let out = deploy(&fake, &spec())
        .args(["--skip-preflight", "--retries", "0"])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{o}\n{e}");
    assert!(
        e.contains("error: start the deployment shortvideo-transcode-"),
        "{e}"
    );
    assert!(
        e.contains("may have started: ARM's answer to starting it did not arrive"),
        "{e}"
    );
    assert!(e.contains(&format!("check whether it runs:\n  follow it:   az deployment group show -g {RG} -n shortvideo-transcode-")), "{e}");
}

/// Redeploying an unchanged pool that uses its whole quota: its own instances are not needed twice.
#[test]
fn a_redeployment_does_not_need_quota_for_its_running_instances() {
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    fake.mount_subscription(&[("eastus2", 16)], Duration::ZERO);
    mount_running_pool(&fake, RG);
    deployment_flow(
        &fake,
        vec![status("Succeeded")],
        happy_ops(),
        succeeded_deployment(),
    );
    let out = deploy(&fake, &spec()).output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    assert!(e.contains(&format!("deploy: scale set vmss-shortvideo-transcode in {RG} (eastus2) runs 2 regular and 18 Spot instances; preflight counts them as in use already")), "{e}");
    assert!(
        e.contains("deploy: preflight eastus2 (Standard_NC8as_T4_v3): PASS"),
        "{e}"
    );
}

#[test]
fn a_what_if_refused_or_failed_shows_the_tree_and_the_fix() {
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    fake.mount(
        Mock::given(method("POST"))
            .and(path_regex(deployment_re("/whatIf")))
            .respond_with(regional_quota_rejection())
            .up_to_n_times(1),
    );
    let out = deploy(&fake, &spec()).arg("--what-if").output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert!(o.is_empty(), "{o}");
    assert!(
        e.contains("error: ARM refused the what-if of deployment shortvideo-transcode-"),
        "{e}"
    );
    assert!(
        e.contains("caused by:   QuotaExceeded: Operation could not be completed as it results in exceeding approved Total Regional Cores quota."),
        "{e}"
    );
    assert!(e.contains("help: request a quota increase for Total Regional vCPUs in eastus2 to a new limit of at least 106"), "{e}");
    assert!(
        e.contains(&format!(
            "`gpuform quota request {}` files that increase",
            spec().display()
        )),
        "{e}"
    );

    // an answer that says the what-if failed: the family quota, with the family named
    fake.mount(
        Mock::given(method("POST"))
            .and(path_regex(deployment_re("/whatIf")))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "status": "Failed",
                "error": {"code": "DeploymentWhatIfResourceError", "message": "The request to predict template deployment changes to subscription failed.",
                    "details": [{"code": "OperationNotAllowed", "message": quota_message()}]}
            }))),
    );
    let out = deploy(&fake, &spec()).arg("--what-if").output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert!(
        e.contains("error: the what-if of deployment shortvideo-transcode-")
            && e.contains(" ended Failed"),
        "{e}"
    );
    assert!(e.contains("help: request a quota increase for standardNCASv3_T4Family vCPUs in eastus2 to a new limit of at least 32"), "{e}");
    assert!(
        e.contains("counts against the \"Standard NCASv3_T4 Family\" family quota"),
        "{e}"
    );
}

/// The status link names ARM's public host; with --arm-endpoint it is followed there instead.
/// A budget that cannot be read is a warning, not a stop.
#[test]
fn links_to_the_public_endpoint_are_followed_through_arm_endpoint() {
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    deployment_flow(
        &fake,
        vec![status("Running"), status("Succeeded")],
        happy_ops(),
        succeeded_deployment(),
    );
    let public = status_url(&fake).replace(&fake.base, "https://management.azure.com");
    fake.mount(
        Mock::given(method("PUT"))
            .and(path_regex(deployment_re("")))
            .respond_with(
                ResponseTemplate::new(201)
                    .insert_header("Azure-AsyncOperation", public.as_str())
                    .set_body_json(json!({"properties": {"provisioningState": "Accepted"}})),
            )
            .with_priority(1),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(r"/providers/Microsoft\.Consumption/budgets/"))
            .respond_with(
                ResponseTemplate::new(403)
                    .set_body_json(arm_error("AuthorizationFailed", "no budgets/read")),
            ),
    );
    let out = deploy(&fake, &spec())
        .arg("--skip-preflight")
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    assert!(e.contains("deploy: warning: read the budget budget-shortvideo-transcode in rg-shortvideo-prod: HTTP 403 AuthorizationFailed: no budgets/read; if the budget exists from an earlier month, the deployment fails with \"start date cannot be updated\""), "{e}");
    assert_eq!(
        fake.requests()
            .iter()
            .filter(|r| r.url.path().contains("operationStatuses"))
            .count(),
        2
    );
}

/// A deployment of the same name already running is followed, not started again.
#[test]
fn a_deployment_already_running_is_followed() {
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    fake.mount(
        Mock::given(method("PUT"))
            .and(path_regex(deployment_re("")))
            .respond_with(ResponseTemplate::new(409).set_body_json(arm_error(
                "DeploymentActive",
                "Unable to edit or replace deployment: previous deployment is still active.",
            ))),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(deployment_re("/operations")))
            .respond_with(
                ResponseTemplate::new(200).set_body_json(json!({"value": happy_ops()[3]})),
            ),
    );
    let running = json!({"name": "d", "properties": {"provisioningState": "Running"}});
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(deployment_re("")))
            .respond_with(seq(vec![
                ResponseTemplate::new(200).set_body_json(running),
                ResponseTemplate::new(200).set_body_json(succeeded_deployment()),
            ])),
    );
    let out = deploy(&fake, &spec())
        .arg("--skip-preflight")
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    assert!(
        e.contains("deploy: a deployment named shortvideo-transcode-")
            && e.contains(&format!(" is already running in {RG}; following it")),
        "{e}"
    );
    assert!(o.contains("succeeded (resource group"), "{o}");
    assert_eq!(put_bodies(&fake).len(), 1);
}

/// A capacity error for a spec without alternateRegions says how to find some.
#[test]
fn a_capacity_error_without_alternate_regions_says_how_to_compare() {
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    fake.mount(
        Mock::given(method("PUT"))
            .and(path_regex(deployment_re("")))
            .respond_with(ResponseTemplate::new(409).set_body_json(json!({"error": {
                "code": "InvalidTemplateDeployment", "message": "not valid",
                "details": [{"code": "SkuNotAvailable", "message": "The requested VM size is currently not available in location 'westeurope'."}]
            }}))),
    );
    let spec = examples("dev-notebook-t4.yaml");
    let out = deploy(&fake, &spec)
        .arg("--skip-preflight")
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert!(o.contains(&format!("in westeurope now; the spec lists no alternateRegions; add some and compare them with `gpuform preflight {} --region REGION`", spec.display())), "{o}");
    assert!(
        !e.contains("running preflight for the alternate regions"),
        "{e}"
    );
}

// ---------------------------------------------------------------------------------------------
// Role propagation (issue 9 item 4)

/// A failed deployment whose scale set could not use the disk key: the deployment's error and
/// the operation's, in the shape Compute reports it (MicrosoftDocs/azure-docs#96319: the inner
/// error as `Code="KeyVaultAccessForbidden" Message="..."` text).
fn key_vault_forbidden() -> (Value, Value) {
    let message = "Code=\"KeyVaultAccessForbidden\" Message=\"Unable to access key vault resource 'https://kv-shortvideo-prod.vault.azure.net/keys/disk-cmk/5b65df696e70443d9530135ef346c1ee' to enable encryption at rest. Please grant get, wrap and unwrap key permissions to disk encryption set 'des-shortvideo-transcode'. Please visit https://aka.ms/keyvaultaccessssecmk for more information.\"";
    let failed_op = json!({
        "operationId": "3",
        "properties": {
            "provisioningOperation": "Create", "provisioningState": "Failed", "duration": "PT12S", "statusCode": "BadRequest",
            "statusMessage": {"status": "Failed", "error": {"code": "KeyVaultAccessForbidden", "message": "Unable to access key vault resource 'https://kv-shortvideo-prod.vault.azure.net/keys/disk-cmk/5b65df696e70443d9530135ef346c1ee' to enable encryption at rest. Please grant get, wrap and unwrap key permissions to disk encryption set 'des-shortvideo-transcode'."}},
            "targetResource": {"id": format!("/subscriptions/{SUB}/resourceGroups/{RG}/providers/{VMSS}/vmss-shortvideo-transcode"), "resourceType": VMSS, "resourceName": "vmss-shortvideo-transcode"}
        }
    });
    let deployment = json!({"name": "d", "properties": {
        "provisioningState": "Failed", "duration": "PT3M1S",
        "error": {"code": "DeploymentFailed", "message": "At least one resource deployment operation failed. Please list deployment operations for details. Please see https://aka.ms/arm-deployment-operations for usage details.",
            "details": [{"code": "BadRequest", "message": message}]}
    }});
    (deployment, failed_op)
}

#[test]
fn a_key_vault_role_not_yet_honoured_is_deployed_again_once() {
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    let (failed, failed_op) = key_vault_forbidden();
    fake.mount(
        Mock::given(method("PUT"))
            .and(path_regex(deployment_re("")))
            .respond_with(
                ResponseTemplate::new(201)
                    .insert_header("Azure-AsyncOperation", status_url(&fake).as_str())
                    .set_body_json(
                        json!({"name": "d", "properties": {"provisioningState": "Accepted"}}),
                    ),
            ),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(deployment_re("/operationStatuses/08584")))
            .respond_with(seq(vec![status("Failed"), status("Succeeded")])),
    );
    let failed_ops =
        json!({"value": [op("1", VNET, "vnet-shortvideo", "Succeeded", "PT9.8S"), failed_op]});
    let ok_ops = json!({"value": happy_ops().last().unwrap().clone()});
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(deployment_re("/operations")))
            .respond_with(seq(vec![
                ResponseTemplate::new(200).set_body_json(failed_ops.clone()),
                ResponseTemplate::new(200).set_body_json(failed_ops),
                ResponseTemplate::new(200).set_body_json(ok_ops),
            ])),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(deployment_re("")))
            .respond_with(seq(vec![
                ResponseTemplate::new(200).set_body_json(failed),
                ResponseTemplate::new(200).set_body_json(succeeded_deployment()),
            ])),
    );
    let out = deploy(&fake, &spec())
        .args(["--skip-preflight", "--role-retry-wait", "0.05"])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    // one clear line saying why, then the second attempt succeeds
    let why: Vec<&str> = e
        .lines()
        .filter(|l| l.contains("Key Vault does not honour the new role assignment yet"))
        .collect();
    assert_eq!(why.len(), 1, "{e}");
    assert!(why[0].starts_with("deploy: shortvideo-transcode-") && why[0].contains("(KeyVaultAccessForbidden: Unable to access key vault resource 'https://kv-shortvideo-prod.vault.azure.net/keys/disk-cmk/") && why[0].contains("role assignments take minutes to propagate, so gpuform deploys shortvideo-transcode-") && why[0].contains("once more in"), "{}", why[0]);
    assert!(
        o.contains("succeeded (resource group rg-shortvideo-prod"),
        "{o}"
    );
    // the same deployment twice, but for the remediation's name: the first attempt may have
    // started its remediation, which Azure does not let a later PUT replace while it is active
    let puts = put_bodies(&fake);
    assert_eq!(puts.len(), 2);
    let mut bodies: Vec<Value> = puts
        .iter()
        .map(|b| serde_json::from_slice(b).unwrap())
        .collect();
    let names: Vec<Value> = bodies
        .iter_mut()
        .map(|b| {
            b["properties"]["parameters"]
                .as_object_mut()
                .unwrap()
                .remove("gpuDcrRemediationName")
                .unwrap()
        })
        .collect();
    assert_ne!(names[0], names[1]);
    assert_eq!(bodies[0], bodies[1]);
}

#[test]
fn a_key_vault_role_failure_twice_is_reported_and_other_failures_are_not_retried() {
    // the second attempt fails the same way: reported, not tried a third time
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    let (failed, failed_op) = key_vault_forbidden();
    deployment_flow(
        &fake,
        vec![status("Failed")],
        vec![json!([failed_op])],
        failed,
    );
    let out = deploy(&fake, &spec())
        .args(["--skip-preflight", "--role-retry-wait", "0.05"])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert_eq!(put_bodies(&fake).len(), 2, "{e}");
    assert!(o.contains("ended Failed"), "{o}");
    assert!(o.contains("KeyVaultAccessForbidden"), "{o}");

    // a quota failure is not this class: one PUT, no retry line
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    let failed_vmss = json!({
        "operationId": "3",
        "properties": {
            "provisioningOperation": "Create", "provisioningState": "Failed", "duration": "PT3.2S", "statusCode": "Conflict",
            "statusMessage": {"status": "Failed", "error": {"code": "OperationNotAllowed", "message": quota_message()}},
            "targetResource": {"id": format!("/subscriptions/{SUB}/resourceGroups/{RG}/providers/{VMSS}/vmss-shortvideo-transcode"), "resourceType": VMSS, "resourceName": "vmss-shortvideo-transcode"}
        }
    });
    deployment_flow(
        &fake,
        vec![status("Failed")],
        vec![json!([failed_vmss])],
        json!({"name": "d", "properties": {"provisioningState": "Failed", "duration": "PT41S",
            "error": {"code": "DeploymentFailed", "message": "At least one resource deployment operation failed.",
                "details": [{"code": "OperationNotAllowed", "message": quota_message()}]}}}),
    );
    let out = deploy(&fake, &spec())
        .args(["--skip-preflight", "--role-retry-wait", "0.05"])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert_eq!(put_bodies(&fake).len(), 1, "{e}");
    assert!(!e.contains("once more"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// Soft-deleted vaults (issue 9 item 3)

#[test]
fn a_soft_deleted_vault_of_the_same_name_stops_the_deploy_with_the_fix() {
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    fake.mount_subscription(&[("eastus2", 48)], Duration::ZERO);
    // the spec's vault was deleted with an earlier resource group (recorded shape of
    // Vaults_ListDeleted, Microsoft.KeyVault stable/2024-11-01 examples/listDeletedVaults.json)
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path("providers/Microsoft.KeyVault/deletedVaults")))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"value": [{
                "id": format!("/subscriptions/{SUB}/providers/Microsoft.KeyVault/locations/eastus2/deletedVaults/kv-shortvideo-prod"),
                "name": "kv-shortvideo-prod",
                "type": "Microsoft.KeyVault/deletedVaults",
                "properties": {
                    "deletionDate": "2026-11-20T08:12:59Z", "location": "eastus2", "purgeProtectionEnabled": true,
                    "scheduledPurgeDate": "2027-02-18T08:12:59Z", "tags": {},
                    "vaultId": format!("/subscriptions/{SUB}/resourceGroups/{RG}/providers/Microsoft.KeyVault/vaults/kv-shortvideo-prod")
                }
            }]}))),
    );
    let out = deploy(&fake, &spec()).output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert!(
        o.contains("a soft-deleted vault in this subscription holds the name kv-shortvideo-prod"),
        "{o}"
    );
    assert!(
        o.contains("`az keyvault recover --name kv-shortvideo-prod --location eastus2`"),
        "{o}"
    );
    assert!(
        o.contains("or choose another security.keyVault.name"),
        "{o}"
    );
    assert!(
        e.contains("deploy: stopped before changing anything: preflight blocks eastus2"),
        "{e}"
    );
    assert!(fake.requests().iter().all(|r| r.method.as_str() != "PUT"));
}

#[test]
fn deploy_checks_the_vault_name_it_derives_from_the_group() {
    // the spec without a vault name: the template derives kv-shortvi-<uniqueString(group id)>
    let dir = std::env::temp_dir().join(format!("gpuform-r9c-dep-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("cloud-init")).unwrap();
    std::fs::copy(
        examples("cloud-init/transcode.yaml"),
        dir.join("cloud-init/transcode.yaml"),
    )
    .unwrap();
    let text = std::fs::read_to_string(spec()).unwrap().replace(
        "keyVault: {name: kv-shortvideo-prod, publicNetworkAccess: false}",
        "keyVault: {publicNetworkAccess: false}",
    );
    let spec = dir.join("derived.yaml");
    std::fs::write(&spec, text).unwrap();
    // the group's id as ARM returns it (existing_group) is what resourceGroup().id hashes
    let derived = format!(
        "kv-shortvi-{}",
        gpuform::preflight::names::unique_string(&[&format!(
            "/subscriptions/{SUB}/resourceGroups/{RG}"
        )])
    );
    let fake = FakeArm::new().resource_group(RG, "eastus2").start();
    fake.mount_subscription(&[("eastus2", 48)], Duration::ZERO);
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path("providers/Microsoft.KeyVault/deletedVaults")))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"value": [{
                "id": format!("/subscriptions/{SUB}/providers/Microsoft.KeyVault/locations/eastus2/deletedVaults/{derived}"),
                "name": derived,
                "properties": {"location": "eastus2", "purgeProtectionEnabled": false,
                    "vaultId": format!("/subscriptions/{SUB}/resourceGroups/{RG}/providers/Microsoft.KeyVault/vaults/{derived}")}
            }]}))),
    );
    let out = deploy(&fake, &spec).output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert!(o.contains(&format!("holds the name {derived}")), "{o}");
    // no purge protection: purging is offered as well
    assert!(
        o.contains(&format!(
            "`az keyvault purge --name {derived} --location eastus2`"
        )),
        "{o}"
    );
    assert!(fake.requests().iter().all(|r| r.method.as_str() != "PUT"));
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------------
// Dev box redeploy after `destroy --keep-data` (issue 19)

/// The fake's deployment PUT refuses what Compute refuses: a VM that creates (`FromImage`,
/// `Empty`) a managed disk whose name exists in the group (`ConflictingUserInput`: kept disks
/// can only be attached); otherwise it accepts like [`deployment_flow`].
struct RefusesExistingDiskNames {
    existing: Vec<String>,
    status_url: String,
}

impl wiremock::Respond for RefusesExistingDiskNames {
    fn respond(&self, r: &wiremock::Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
        let resources = body["properties"]["template"]["resources"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for vm in resources
            .iter()
            .filter(|x| x["type"] == "Microsoft.Compute/virtualMachines")
        {
            let sp = &vm["properties"]["storageProfile"];
            let disks = std::iter::once(&sp["osDisk"])
                .chain(sp["dataDisks"].as_array().into_iter().flatten());
            for d in disks {
                let name = d["name"].as_str().unwrap_or_default();
                let create = d["createOption"].as_str().unwrap_or_default();
                if self.existing.iter().any(|e| e == name) && create != "Attach" {
                    return ResponseTemplate::new(400).set_body_json(arm_error(
                        "ConflictingUserInput",
                        &format!("Disk {name} already exists in resource group. Only CreateOption.Attach is supported."),
                    ));
                }
                if create == "Attach"
                    && (sp.get("imageReference").is_some()
                        || vm["properties"].get("osProfile").is_some())
                    && d == &sp["osDisk"]
                {
                    return ResponseTemplate::new(400).set_body_json(arm_error(
                        "InvalidParameter",
                        "Parameter 'osProfile' is not allowed (and no imageReference) when the OS disk is attached.",
                    ));
                }
            }
        }
        ResponseTemplate::new(201)
            .insert_header("Azure-AsyncOperation", self.status_url.as_str())
            .set_body_json(json!({"name": "d", "properties": {"provisioningState": "Accepted", "mode": "Incremental"}}))
    }
}

#[test]
fn a_dev_box_redeployed_after_keep_data_attaches_its_kept_disks() {
    // the dev box with a data disk, in the fake's group
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("dev-notebook.yaml");
    let text = std::fs::read_to_string(examples("dev-notebook-t4.yaml"))
        .unwrap()
        .replace(
            "    vmSize: auto\n",
            "    vmSize: auto\n    dataDisks: [{sizeGiB: 256, type: Premium_LRS}]\n",
        );
    std::fs::write(&spec, text).unwrap();
    let arm: Value = serde_json::from_str(&rendered(&spec, "azuredeploy.json")).unwrap();
    let vm = arm["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["type"] == "Microsoft.Compute/virtualMachines")
        .unwrap()
        .clone();
    let sp = &vm["properties"]["storageProfile"];
    let os_disk = sp["osDisk"]["name"].as_str().unwrap().to_string();
    let data_disk = sp["dataDisks"][0]["name"].as_str().unwrap().to_string();
    assert_eq!(sp["osDisk"]["createOption"], "FromImage");

    let run = |kept: &[&str]| {
        let fake = FakeArm::new().resource_group(RG, "eastus2").start();
        for d in kept {
            fake.mount(
                Mock::given(method("GET"))
                    .and(path_regex(format!(
                        r"(?i)^/subscriptions/{SUB}/resourcegroups/{RG}/providers/Microsoft\.Compute/disks/{d}$"
                    )))
                    .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                        "name": d, "type": "Microsoft.Compute/disks", "location": "westeurope",
                        "properties": {"diskState": "Unattached", "diskSizeGB": 256}
                    }))),
            );
        }
        fake.mount(
            Mock::given(method("PUT"))
                .and(path_regex(deployment_re("")))
                .respond_with(RefusesExistingDiskNames {
                    existing: kept.iter().map(|s| s.to_string()).collect(),
                    status_url: status_url(&fake),
                }),
        );
        deployment_flow(
            &fake,
            vec![status("Succeeded")],
            vec![json!([])],
            json!({"name": "d", "properties": {"provisioningState": "Succeeded", "duration": "PT1M", "mode": "Incremental", "outputs": {}}}),
        );
        let out = deploy(&fake, &spec)
            .arg("--skip-preflight")
            .output()
            .unwrap();
        let bodies = put_bodies(&fake);
        (out, bodies)
    };

    // both disks kept: the VM attaches them, with no image and no OS profile
    let (out, bodies) = run(&[&os_disk, &data_disk]);
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    assert!(
        e.contains(&format!(
            "deploy: disks {os_disk}, {data_disk} exist in {RG} (kept by destroy --keep-data): the dev box attaches them"
        )),
        "{e}"
    );
    let body: Value = serde_json::from_slice(bodies.last().unwrap()).unwrap();
    let vm = body["properties"]["template"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["type"] == "Microsoft.Compute/virtualMachines")
        .unwrap()
        .clone();
    let sp = &vm["properties"]["storageProfile"];
    assert_eq!(sp["osDisk"]["createOption"], "Attach");
    assert_eq!(sp["osDisk"]["osType"], "Linux");
    assert!(
        sp["osDisk"]["managedDisk"]["id"]
            .as_str()
            .unwrap()
            .contains(&os_disk)
    );
    assert_eq!(sp["dataDisks"][0]["createOption"], "Attach");
    assert!(sp.get("imageReference").is_none());
    assert!(vm["properties"].get("osProfile").is_none());

    // nothing kept (a first deployment): created as before, and the fake accepts it
    let (out, bodies) = run(&[]);
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    assert!(!e.contains("kept by destroy --keep-data"), "{e}");
    let body: Value = serde_json::from_slice(bodies.last().unwrap()).unwrap();
    assert!(body.to_string().contains("\"createOption\":\"FromImage\""));
}

// ---------------------------------------------------------------------------------------------
// Day two (issue 38): what a redeployment must not replace

/// The names of the remediations a deployment body starts (literal or from its parameters).
fn remediation_names(body: &[u8]) -> Vec<String> {
    let v: Value = serde_json::from_slice(body).unwrap();
    v["properties"]["template"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["type"] == "Microsoft.PolicyInsights/remediations")
        .map(|r| {
            let n = r["name"].as_str().unwrap();
            match n
                .strip_prefix("[parameters('")
                .and_then(|p| p.strip_suffix("')]"))
            {
                Some(p) => v["properties"]["parameters"][p]["value"]
                    .as_str()
                    .unwrap_or_else(|| panic!("deploy passes no value for {p}"))
                    .to_string(),
                None => n.to_string(),
            }
        })
        .collect()
}

#[test]
fn a_second_deploy_while_the_first_remediation_runs_succeeds() {
    // Azure refuses to change or replace a remediation while it is active
    // (InvalidUpdateRemediationRequest, Azure/azure-policy#1234), and a compliance scan has no
    // guaranteed end: the fake keeps every remediation a deployment starts active
    let facts = AzureFacts::load().tracking_remediations();
    let fake = FakeArm::new()
        .resource_group(RG, "eastus2")
        .refusing(facts.clone())
        .start();
    deployment_flow(
        &fake,
        vec![status("Succeeded"), status("Succeeded")],
        happy_ops(),
        succeeded_deployment(),
    );
    for run in 1..=2 {
        let out = deploy(&fake, &spec())
            .arg("--skip-preflight")
            .output()
            .unwrap();
        let (o, e) = texts(&out);
        assert_eq!(out.status.code(), Some(0), "run {run}:\n{o}\n{e}");
        assert!(
            e.contains("deploy: GPU telemetry remediation shortvideo-transcode-gpu-dcr-"),
            "{e}"
        );
    }
    let puts = put_bodies(&fake);
    assert_eq!(puts.len(), 2);
    let (first, second) = (remediation_names(&puts[0]), remediation_names(&puts[1]));
    assert_eq!(first.len(), 1);
    assert_ne!(first, second);
    assert_eq!(facts.remediations().len(), 2, "{:?}", facts.remediations());
    // the deployment name is the same: the same files
    let name = |r: &wiremock::Request| r.url.path().rsplit('/').next().unwrap().to_string();
    let names: Vec<String> = fake
        .requests()
        .iter()
        .filter(|r| r.method.as_str() == "PUT" && r.url.path().contains("/deployments/"))
        .map(name)
        .collect();
    assert_eq!(names[0], names[1]);
}

#[test]
fn the_fake_refuses_a_deployment_that_replaces_an_active_remediation() {
    // the name every deployment used before issue 38, still running from an earlier one
    let fake = FakeArm::new()
        .resource_group(RG, "eastus2")
        .refusing(
            AzureFacts::load().with_active_remediation("shortvideo-transcode-gpu-dcr-association"),
        )
        .start();
    deployment_flow(
        &fake,
        vec![status("Succeeded")],
        happy_ops(),
        succeeded_deployment(),
    );
    // the same template with the remediation's old, fixed name is refused as Azure refuses it
    let mut body: Value = serde_json::from_str(&rendered(&spec(), "azuredeploy.json")).unwrap();
    for r in body["resources"].as_array_mut().unwrap() {
        if r["type"] == "Microsoft.PolicyInsights/remediations" {
            r["name"] = json!("shortvideo-transcode-gpu-dcr-association");
        }
    }
    let facts =
        AzureFacts::load().with_active_remediation("shortvideo-transcode-gpu-dcr-association");
    let put = serde_json::to_vec(
        &json!({"properties": {"mode": "Incremental", "template": body, "parameters": {}}}),
    )
    .unwrap();
    let (code, message) = facts.refusal(&put).expect("refused");
    assert_eq!(code, "InvalidUpdateRemediationRequest");
    assert_eq!(
        message,
        "The request to update remediation 'shortvideo-transcode-gpu-dcr-association' is invalid. A remediation may not be changed or replaced while it is active."
    );
    // gpuform's deployment names its own and goes through
    let out = deploy(&fake, &spec())
        .arg("--skip-preflight")
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
}
