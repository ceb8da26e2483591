//! `gpuform preflight` in a landing zone (issue 13): the existing subnet and Azure Policy, the
//! real binary against the HTTPS fake ARM of tests/common.
//!
//! The spec is tests/fixtures/preflight/landing-zone-spoke.yaml: examples/shortvideo-transcode.yaml
//! (up to 20 VMs, one Key Vault private endpoint, eastus2) joining the existing subnet
//! `vnet-spoke/snet-gpu` of `rg-spoke-network`. Response bodies follow the azure-rest-api-specs
//! examples: Subnets_Get (network stable/2025-05-01 SubnetGetWithDelegation.json), RouteTables_Get
//! (routeTable.json) and PolicyRestrictions_Check* (policyinsights stable/2024-10-01
//! PolicyRestrictions_CheckAtResourceGroupScope.json).

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::*;
use serde_json::{Value, json};
use wiremock::matchers::{body_partial_json, method, path, path_regex, query_param};
use wiremock::{Mock, ResponseTemplate};

const REGIONS: [&str; 3] = ["eastus2", "westus3", "southcentralus"];
const NET_RG: &str = "rg-spoke-network";

fn spoke() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/preflight/landing-zone-spoke.yaml")
}

fn net_id(rest: &str) -> String {
    format!("/subscriptions/{SUB}/resourceGroups/{NET_RG}/providers/Microsoft.Network/{rest}")
}

fn subnet_id() -> String {
    net_id("virtualNetworks/vnet-spoke/subnets/snet-gpu")
}

fn vnet_id() -> String {
    net_id("virtualNetworks/vnet-spoke")
}

/// A virtual network in the VirtualNetworks_Get shape (network stable/2025-05-01
/// VirtualNetworkGet.json): the region is the top-level `location`.
fn vnet(location: &str) -> Value {
    json!({
        "name": "vnet-spoke", "id": vnet_id(), "etag": "W/\"9a1c\"", "type": "Microsoft.Network/virtualNetworks",
        "location": location,
        "properties": {
            "provisioningState": "Succeeded",
            "addressSpace": {"addressPrefixes": ["10.60.0.0/16"]},
            "subnets": [{"name": "snet-gpu", "id": subnet_id(), "properties": {"addressPrefix": "10.60.4.0/24", "provisioningState": "Succeeded"}}],
            "virtualNetworkPeerings": [],
            "enableDdosProtection": false
        }
    })
}

fn mount_vnet(fake: &FakeAzure, answer: ResponseTemplate) {
    fake.mount(
        Mock::given(method("GET"))
            .and(path(vnet_id()))
            .and(query_param("api-version", "2025-05-01"))
            .respond_with(answer),
    );
}

fn route_table_id() -> String {
    net_id("routeTables/rt-spoke-to-hub")
}

/// A subnet in the Subnets_Get shape; `props` overrides its properties.
fn subnet(props: Value) -> Value {
    let mut p = json!({
        "provisioningState": "Succeeded",
        "addressPrefix": "10.60.4.0/24",
        "networkSecurityGroup": {"id": net_id("networkSecurityGroups/nsg-spoke-gpu")},
        "routeTable": {"id": route_table_id()},
        "ipConfigurations": [
            {"id": net_id("networkInterfaces/nic-jumpbox/ipConfigurations/ipconfig1")},
            {"id": format!("/subscriptions/{SUB}/resourceGroups/rg-shortvideo-prod/providers/Microsoft.Compute/virtualMachineScaleSets/vmss-shortvideo-transcode/virtualMachines/3/networkInterfaces/nic/ipConfigurations/ipconfig1")}
        ],
        "delegations": [],
        "privateEndpointNetworkPolicies": "Disabled",
        "privateLinkServiceNetworkPolicies": "Enabled"
    });
    for (k, v) in props.as_object().unwrap() {
        p[k] = v.clone();
    }
    json!({"name": "snet-gpu", "id": subnet_id(), "etag": "W/\"3f1b\"", "properties": p, "type": "Microsoft.Network/virtualNetworks/subnets"})
}

/// A route table in the RouteTables_Get shape with `routes` as (name, prefix, hop, ip).
fn route_table(routes: &[(&str, &str, &str, Option<&str>)]) -> Value {
    let routes: Vec<Value> = routes
        .iter()
        .map(|(n, prefix, hop, ip)| {
            let mut p = json!({"provisioningState": "Succeeded", "addressPrefix": prefix, "nextHopType": hop});
            if let Some(ip) = ip {
                p["nextHopIpAddress"] = json!(ip);
            }
            json!({"name": n, "id": format!("{}/routes/{n}", route_table_id()), "properties": p})
        })
        .collect();
    json!({"name": "rt-spoke-to-hub", "id": route_table_id(), "location": "eastus2", "type": "Microsoft.Network/routeTables",
           "properties": {"provisioningState": "Succeeded", "disableBgpRoutePropagation": true, "routes": routes, "subnets": [{"id": subnet_id()}]}})
}

fn mount_subnet(fake: &FakeAzure, answer: ResponseTemplate) {
    fake.mount(
        Mock::given(method("GET"))
            .and(path(subnet_id()))
            .and(query_param("api-version", "2025-05-01"))
            .respond_with(answer),
    );
}

fn mount_route_table(fake: &FakeAzure, answer: ResponseTemplate) {
    fake.mount(
        Mock::given(method("GET"))
            .and(path(route_table_id()))
            .and(query_param("api-version", "2025-05-01"))
            .respond_with(answer),
    );
}

fn policy_path() -> String {
    FakeAzure::sub_path("providers/Microsoft.PolicyInsights/checkPolicyRestrictions")
}

/// No restriction for anything (priority 10: a test's own answers win).
fn policy_allows_everything(fake: &FakeAzure) {
    fake.mount(
        Mock::given(method("POST"))
            .and(path_regex(format!(
                r"(?i)^/subscriptions/{SUB}(/resourceGroups/[^/]+)?/providers/Microsoft\.PolicyInsights/checkPolicyRestrictions$"
            )))
            .and(query_param("api-version", "2024-10-01"))
            .respond_with(ResponseTemplate::new(200).set_body_json(
                json!({"fieldRestrictions": [], "contentEvaluationResult": {"policyEvaluations": []}}),
            ))
            .with_priority(10),
    );
}

/// Azure Policy's answer for the resources of `ty` at the subscription scope.
fn policy_for(fake: &FakeAzure, ty: &str, answer: impl wiremock::Respond + 'static) {
    fake.mount(
        Mock::given(method("POST"))
            .and(path(policy_path()))
            .and(body_partial_json(
                json!({"resourceDetails": {"resourceContent": {"type": ty}}}),
            ))
            .respond_with(answer),
    );
}

fn assignment(name: &str) -> String {
    format!(
        "/providers/Microsoft.Management/managementGroups/corp/providers/Microsoft.Authorization/policyAssignments/{name}"
    )
}

fn definition(guid: &str) -> String {
    format!("/providers/Microsoft.Authorization/policyDefinitions/{guid}")
}

/// A NonCompliant content evaluation with `effect` (the spec example's shape).
fn evaluation(assign: &str, def: &str, effect: &str, field: &str) -> Value {
    json!({
        "policyInfo": {"policyDefinitionId": definition(def), "policyAssignmentId": assignment(assign),
                       "policySetDefinitionId": "/providers/Microsoft.Management/managementGroups/corp/providers/Microsoft.Authorization/policySetDefinitions/Deny-Spoke-Network",
                       "policyDefinitionReferenceId": "DenyRef"},
        "evaluationResult": "NonCompliant",
        "evaluationDetails": {"evaluatedExpressions": [
            {"result": "True", "expressionKind": "field", "expression": field, "path": field,
             "expressionValue": "x", "targetValue": "x", "operator": "equals"}
        ]},
        "effectDetails": {"policyEffect": effect}
    })
}

fn evaluations(list: Vec<Value>) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(
        json!({"fieldRestrictions": [], "contentEvaluationResult": {"policyEvaluations": list}}),
    )
}

/// Everything healthy: quota, sizes, names; a /24 subnet with an NSG and a default route to
/// the hub firewall; Azure Policy restricts nothing.
fn landing_zone() -> FakeAzure {
    let fake = FakeArm::new()
        .subscription(&REGIONS.map(|r| (r, 48)))
        .start();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(subnet_id()))
            .and(query_param("api-version", "2025-05-01"))
            .respond_with(ResponseTemplate::new(200).set_body_json(subnet(json!({}))))
            .with_priority(10),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path(route_table_id()))
            .respond_with(ResponseTemplate::new(200).set_body_json(route_table(&[
                (
                    "to-hub-firewall",
                    "0.0.0.0/0",
                    "VirtualAppliance",
                    Some("10.60.0.4"),
                ),
                ("hub", "10.60.0.0/22", "VnetLocal", None),
            ])))
            .with_priority(10),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path(vnet_id()))
            .and(query_param("api-version", "2025-05-01"))
            .respond_with(ResponseTemplate::new(200).set_body_json(vnet("eastus2")))
            .with_priority(10),
    );
    policy_allows_everything(&fake);
    fake
}

fn run(fake: &FakeAzure, extra: &[&str]) -> (Option<i32>, String, String) {
    run_spec(fake, &spoke(), extra)
}

fn run_spec(
    fake: &FakeAzure,
    spec: &std::path::Path,
    extra: &[&str],
) -> (Option<i32>, String, String) {
    let out = fake.preflight(spec).args(extra).output().unwrap();
    let (o, e) = texts(&out);
    (out.status.code(), o, e)
}

fn policy_requests(fake: &FakeAzure) -> Vec<Value> {
    fake.requests()
        .iter()
        .filter(|r| r.url.path().ends_with("/checkPolicyRestrictions"))
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

#[test]
fn a_healthy_spoke_subnet_passes_with_its_numbers() {
    let fake = landing_zone();
    let (code, o, e) = run(&fake, &[]);
    assert_eq!(code, Some(0), "{o}\n{e}");
    assert!(
        o.contains("pass     existing subnet            snet-gpu (10.60.4.0/24) is readable"),
        "{o}"
    );
    // 256 - 5; the jumpbox is someone else's, the pool's own instance is not counted
    assert!(o.contains("pass     subnet size                251 usable addresses (Azure reserves 5 per prefix), 1 used by others: 250 free; the pool needs 21 (20 VMs at peak + 1 private endpoint in the same subnet)"), "{o}");
    assert!(
        o.contains("pass     subnet delegation          not delegated"),
        "{o}"
    );
    assert!(
        o.contains("pass     subnet NSG                 NSG nsg-spoke-gpu"),
        "{o}"
    );
    assert!(
        o.contains("route table rt-spoke-to-hub: 0.0.0.0/0 -> VirtualAppliance 10.60.0.4"),
        "{o}"
    );
    assert!(o.contains("privateEndpointNetworkPolicies Disabled"), "{o}");
    assert!(
        o.contains("pass     Azure Policy               no deny:"),
        "{o}"
    );
    assert!(o.contains("result: eastus2 (spec region) is PASS"), "{o}");
    // the landing-zone checks belong to the spec's region only
    let westus3 = o.split("westus3 (alternate)").nth(1).unwrap();
    assert!(!westus3.contains("existing subnet"), "{o}");

    // every resource kind the ARM template creates was asked about once, with its location
    let template: Value = {
        let dir = tempfile::tempdir().unwrap();
        let out = clean_command()
            .args(["render"])
            .arg(spoke())
            .arg("-o")
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success());
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("azuredeploy.json")).unwrap())
            .unwrap()
    };
    let mut kinds: Vec<(String, String)> = template["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["type"].as_str().unwrap().to_ascii_lowercase(),
                r["sku"]["name"].as_str().unwrap_or("").to_ascii_lowercase(),
            )
        })
        .collect();
    kinds.sort();
    kinds.dedup();
    let reqs = policy_requests(&fake);
    assert_eq!(
        reqs.len(),
        kinds.len(),
        "one call per type + SKU + location"
    );
    assert!(reqs.len() < template["resources"].as_array().unwrap().len());
    for r in &reqs {
        assert_eq!(r["includeAuditEffect"], true);
        let content = &r["resourceDetails"]["resourceContent"];
        assert!(
            r["resourceDetails"]["apiVersion"]
                .as_str()
                .unwrap()
                .starts_with("20")
        );
        // no template expression is sent as if it were a value
        assert!(!content.to_string().contains("[parameters("), "{content}");
    }
    let vmss = reqs
        .iter()
        .find(|r| {
            r["resourceDetails"]["resourceContent"]["type"]
                == "Microsoft.Compute/virtualMachineScaleSets"
        })
        .expect("the scale set was checked");
    assert_eq!(
        vmss["resourceDetails"]["resourceContent"]["location"],
        "eastus2"
    );
    assert_eq!(
        vmss["resourceDetails"]["resourceContent"]["sku"]["name"],
        SIZE
    );
    assert_eq!(
        vmss["pendingFields"],
        json!([{"field": "location", "values": ["eastus2"]}])
    );
    // JSON carries the same checks with their ids
    let (_, o, _) = run(&fake, &["--format", "json"]);
    let v: Value = serde_json::from_str(&o).unwrap();
    let ids: Vec<&str> = v["regions"][0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    for id in [
        "subnet",
        "subnet-size",
        "subnet-delegation",
        "subnet-nsg",
        "subnet-default-route",
        "policy",
    ] {
        assert!(ids.contains(&id), "{id}: {ids:?}");
    }
}

#[test]
fn a_subnet_too_small_for_the_pool_blocks_and_names_the_size_to_ask_for() {
    let fake = landing_zone();
    mount_subnet(
        &fake,
        ResponseTemplate::new(200).set_body_json(subnet(json!({"addressPrefix": "10.60.4.0/28"}))),
    );
    let (code, o, e) = run(&fake, &[]);
    assert_eq!(code, Some(1), "{o}\n{e}");
    assert!(o.contains("FAIL     subnet size                too small: 11 usable addresses (Azure reserves 5 per prefix), 1 used by others: 10 free; the pool needs 21"), "{o}");
    assert!(
        o.contains(
            "fix: ask the platform team for a /27 or larger subnet (or lower capacity.max to 9)"
        ),
        "{o}"
    );
    assert!(
        o.contains("result: eastus2 (spec region) is BLOCKED"),
        "{o}"
    );
    // GitHub annotations carry it as an error
    let (_, o, _) = run(&fake, &["--format", "github"]);
    assert!(
        o.contains("::error file=") && o.contains("subnet size::too small"),
        "{o}"
    );
}

#[test]
fn a_delegated_subnet_blocks() {
    let fake = landing_zone();
    mount_subnet(
        &fake,
        ResponseTemplate::new(200).set_body_json(subnet(json!({"delegations": [{
            "name": "aci", "id": format!("{}/delegations/aci", subnet_id()),
            "properties": {"provisioningState": "Succeeded", "serviceName": "Microsoft.ContainerInstance/containerGroups", "actions": ["Microsoft.Network/virtualNetworks/subnets/action"]}
        }]}))),
    );
    let (code, o, e) = run(&fake, &[]);
    assert_eq!(code, Some(1), "{o}\n{e}");
    assert!(o.contains("FAIL     subnet delegation          delegated to Microsoft.ContainerInstance/containerGroups: virtual machines and scale sets cannot join a delegated subnet"), "{o}");
}

#[test]
fn a_subnet_without_an_nsg_is_a_warning() {
    let fake = landing_zone();
    mount_subnet(
        &fake,
        ResponseTemplate::new(200).set_body_json(subnet(json!({"networkSecurityGroup": null}))),
    );
    let (code, o, e) = run(&fake, &[]);
    assert_eq!(code, Some(0), "{o}\n{e}");
    assert!(
        o.contains("warn     subnet NSG                 no network security group on the subnet"),
        "{o}"
    );
    assert!(
        o.contains("fix: ask the platform team to attach an NSG"),
        "{o}"
    );
}

#[test]
fn no_default_route_and_no_route_table_are_said() {
    // a route table without 0.0.0.0/0 (egress natGateway in the spec, no NAT gateway on the
    // subnet): a warning that names the driver download
    let fake = landing_zone();
    mount_route_table(
        &fake,
        ResponseTemplate::new(200).set_body_json(route_table(&[(
            "hub",
            "10.60.0.0/22",
            "VnetLocal",
            None,
        )])),
    );
    let (code, o, e) = run(&fake, &[]);
    assert_eq!(code, Some(0), "{o}\n{e}");
    assert!(o.contains("warn     default route              route table rt-spoke-to-hub has no default route (0.0.0.0/0) and no NAT gateway on the subnet: the GPU driver extension downloads the driver"), "{o}");

    // a default route that drops traffic
    let fake = landing_zone();
    mount_route_table(
        &fake,
        ResponseTemplate::new(200).set_body_json(route_table(&[(
            "blackhole",
            "0.0.0.0/0",
            "None",
            None,
        )])),
    );
    let (_, o, _) = run(&fake, &[]);
    assert!(o.contains("warn     default route              route table rt-spoke-to-hub: 0.0.0.0/0 -> None: the default route drops Internet traffic"), "{o}");

    // no route table at all, but the subnet's own NAT gateway: egress is fine
    let fake = landing_zone();
    mount_subnet(
        &fake,
        ResponseTemplate::new(200).set_body_json(subnet(
            json!({"routeTable": null, "natGateway": {"id": net_id("natGateways/ng-spoke")}}),
        )),
    );
    let (_, o, _) = run(&fake, &[]);
    assert!(o.contains("pass     default route              the subnet has no route table; egress through the subnet's NAT gateway ng-spoke"), "{o}");
    assert!(
        !fake
            .requests()
            .iter()
            .any(|r| r.url.path().contains("/routeTables/")),
        "no route table to read"
    );
}

#[test]
fn a_subnet_the_identity_may_not_read_is_a_warning_that_says_what_to_grant() {
    let fake = landing_zone();
    mount_subnet(
        &fake,
        ResponseTemplate::new(403).set_body_json(arm_error(
            "AuthorizationFailed",
            "The client does not have authorization to perform action 'Microsoft.Network/virtualNetworks/subnets/read' over scope '/subscriptions/x/resourceGroups/rg-spoke-network/...'",
        )),
    );
    let (code, o, e) = run(&fake, &[]);
    assert_eq!(code, Some(0), "{o}\n{e}");
    assert!(o.contains("warn     existing subnet            could not check the existing subnet: could not read the subnet"), "{o}");
    assert!(o.contains("AuthorizationFailed"), "{o}");
    assert!(o.contains("fix: grant the deploying identity Network Reader (or Reader) on the subnet's virtual network"), "{o}");
    // nothing else about the subnet is claimed
    assert!(!o.contains("subnet size"), "{o}");
}

#[test]
fn a_subnet_that_does_not_exist_blocks() {
    let fake = landing_zone();
    mount_subnet(
        &fake,
        ResponseTemplate::new(404).set_body_json(arm_error(
            "NotFound",
            "Resource /subscriptions/.../subnets/snet-gpu not found.",
        )),
    );
    let (code, o, e) = run(&fake, &[]);
    assert_eq!(code, Some(1), "{o}\n{e}");
    assert!(
        o.contains(&format!(
            "FAIL     existing subnet            network.existingSubnet {} does not exist",
            subnet_id()
        )),
        "{o}"
    );
    assert!(
        o.contains("result: eastus2 (spec region) is BLOCKED"),
        "{o}"
    );
}

#[test]
fn policy_denies_on_nat_gateway_public_ip_and_location_block_with_their_names() {
    // the example creates its own VNet, NAT gateway and public IP, which a spoke's policy denies;
    // --azure-policy asks Policy for a spec that is not a landing-zone spec yet
    let fake = landing_zone();
    let (code, o, _) = run_spec(&fake, &spec(), &[]);
    assert_eq!(code, Some(0), "{o}");
    assert!(
        !o.contains("Azure Policy") && policy_requests(&fake).is_empty(),
        "opt-in for a spec of its own network: {o}"
    );
    policy_for(
        &fake,
        "Microsoft.Network/natGateways",
        evaluations(vec![evaluation(
            "Deny-NatGw-Spoke",
            "a1b2c3d4-0000-4000-8000-000000000001",
            "Deny",
            "type",
        )]),
    );
    policy_for(
        &fake,
        "Microsoft.Network/publicIPAddresses",
        evaluations(vec![evaluation(
            "Deny-Public-IP",
            "6c112d4e-5bc7-47ae-a041-ea2d9dccd749",
            "Deny",
            "type",
        )]),
    );
    // allowed locations: the content evaluation and the field restriction of the same
    // assignment make one finding
    policy_for(
        &fake,
        "Microsoft.Compute/virtualMachineScaleSets",
        ResponseTemplate::new(200).set_body_json(json!({
            "fieldRestrictions": [{"field": "location", "restrictions": [{
                "result": "Required", "values": ["westeurope", "northeurope"],
                "policy": {"policyDefinitionId": definition("e56962a6-4747-49cd-b67b-bf8b01975c4c"), "policyAssignmentId": assignment("Allowed-Locations")},
                "policyEffect": "Deny", "reason": "location must be one of the following: westeurope, northeurope"}]}],
            "contentEvaluationResult": {"policyEvaluations": [
                evaluation("Allowed-Locations", "e56962a6-4747-49cd-b67b-bf8b01975c4c", "Deny", "location")
            ]}
        })),
    );
    let (code, o, e) = run_spec(&fake, &spec(), &["--azure-policy"]);
    assert_eq!(code, Some(1), "{o}\n{e}");
    assert!(!o.contains("existing subnet"), "{o}");
    assert!(o.contains("FAIL     Azure Policy               policy assignment Deny-NatGw-Spoke (definition a1b2c3d4-0000-4000-8000-000000000001 in initiative Deny-Spoke-Network) denies Microsoft.Network/natGateways ng-shortvideo-transcode (field type)"), "{o}");
    assert!(o.contains("policy assignment Deny-Public-IP (definition 6c112d4e-5bc7-47ae-a041-ea2d9dccd749 in initiative Deny-Spoke-Network) denies Microsoft.Network/publicIPAddresses pip-shortvideo-transcode-nat (field type)"), "{o}");
    assert!(o.contains("policy assignment Allowed-Locations (definition e56962a6-4747-49cd-b67b-bf8b01975c4c in initiative Deny-Spoke-Network) denies Microsoft.Compute/virtualMachineScaleSets vmss-shortvideo-transcode (field location)"), "{o}");
    assert_eq!(
        o.lines()
            .filter(|l| l.contains("FAIL     Azure Policy") && l.contains("Allowed-Locations"))
            .count(),
        1,
        "{o}"
    );
    assert!(
        o.contains("fix: the deployment would fail on this resource"),
        "{o}"
    );
    assert!(!o.contains("no deny:"), "{o}");
    let (_, o, _) = run_spec(&fake, &spec(), &["--azure-policy", "--format", "json"]);
    let v: Value = serde_json::from_str(&o).unwrap();
    let denies = v["regions"][0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["id"] == "policy-deny" && c["status"] == "fail")
        .count();
    assert_eq!(denies, 3);
}

#[test]
fn a_location_on_a_deny_list_blocks_from_the_field_restrictions_alone() {
    let fake = landing_zone();
    policy_for(
        &fake,
        "Microsoft.Compute/virtualMachineScaleSets",
        ResponseTemplate::new(200).set_body_json(json!({
            "fieldRestrictions": [{"field": "location", "restrictions": [
                {"result": "Deny", "values": ["east us 2", "west us 3"],
                 "policy": {"policyDefinitionId": definition("0711CCC1"), "policyAssignmentId": assignment("Deny-US-Regions")},
                 "policyEffect": "Deny"},
                {"result": "Deny", "values": ["brazilsouth"],
                 "policy": {"policyDefinitionId": definition("25C9F66B"), "policyAssignmentId": assignment("Deny-Brazil")},
                 "policyEffect": "Deny"}
            ]}],
            "contentEvaluationResult": {"policyEvaluations": []}
        })),
    );
    let (code, o, e) = run(&fake, &[]);
    assert_eq!(code, Some(1), "{o}\n{e}");
    assert!(o.contains("policy assignment Deny-US-Regions (definition 0711CCC1) denies Microsoft.Compute/virtualMachineScaleSets vmss-shortvideo-transcode (field location): location eastus2 is denied"), "{o}");
    assert!(!o.contains("Deny-Brazil"), "{o}");
}

#[test]
fn audit_effects_are_reported_and_do_not_block() {
    let fake = landing_zone();
    policy_for(
        &fake,
        "Microsoft.KeyVault/vaults",
        evaluations(vec![evaluation(
            "Audit-KV-Diagnostics",
            "cf820ca0-f99e-4f3e-84fb-66e913812d21",
            "AuditIfNotExists",
            "type",
        )]),
    );
    let (code, o, e) = run(&fake, &[]);
    assert_eq!(code, Some(0), "{o}\n{e}");
    assert!(o.contains("pass     Azure Policy               does not block: policy assignment Audit-KV-Diagnostics (definition cf820ca0-f99e-4f3e-84fb-66e913812d21 in initiative Deny-Spoke-Network) flags Microsoft.KeyVault/vaults"), "{o}");
    assert!(o.contains("no deny:"), "{o}");
    assert!(o.contains("result: eastus2 (spec region) is PASS"), "{o}");
}

#[test]
fn a_caller_who_may_not_evaluate_policy_gets_a_warning_never_a_silent_pass() {
    let fake = landing_zone();
    fake.mount(
        Mock::given(method("POST"))
            .and(path(policy_path()))
            .respond_with(ResponseTemplate::new(403).set_body_json(arm_error(
                "AuthorizationFailed",
                "The client does not have authorization to perform action 'Microsoft.PolicyInsights/checkPolicyRestrictions/action'",
            ))),
    );
    let (code, o, e) = run(&fake, &[]);
    assert_eq!(code, Some(0), "{o}\n{e}");
    assert!(o.contains("warn     Azure Policy               could not check whether Azure Policy denies the template's resources"), "{o}");
    assert!(
        o.contains("fix: grant Microsoft.PolicyInsights/checkPolicyRestrictions/action"),
        "{o}"
    );
    assert!(!o.contains("no deny:"), "{o}");
    assert_eq!(
        o.lines()
            .filter(|l| l.contains("warn     Azure Policy"))
            .count(),
        1,
        "one warning, not one per resource: {o}"
    );
}

#[test]
fn throttled_policy_calls_wait_for_retry_after_then_succeed() {
    let fake = landing_zone();
    policy_for(
        &fake,
        "Microsoft.KeyVault/vaults",
        seq(vec![
            ResponseTemplate::new(429)
                .insert_header("Retry-After", "1")
                .set_body_json(arm_error("TooManyRequests", "Rate limit exceeded")),
            evaluations(vec![evaluation(
                "Deny-Public-IP",
                "6c112d4e-5bc7-47ae-a041-ea2d9dccd749",
                "Deny",
                "type",
            )]),
        ]),
    );
    let start = Instant::now();
    let (code, o, e) = run(&fake, &[]);
    assert_eq!(code, Some(1), "{o}\n{e}");
    assert!(
        start.elapsed() >= Duration::from_secs(1),
        "Retry-After was not honoured"
    );
    assert!(e.contains("HTTP 429; retry 1 of"), "{e}");
    assert!(o.contains("Deny-Public-IP"), "{o}");
    let pip = policy_requests(&fake)
        .iter()
        .filter(|r| r["resourceDetails"]["resourceContent"]["type"] == "Microsoft.KeyVault/vaults")
        .count();
    assert_eq!(pip, 2);
}

#[test]
fn malformed_answers_are_unknown_not_a_pass() {
    let fake = landing_zone();
    policy_for(
        &fake,
        "Microsoft.KeyVault/vaults",
        ResponseTemplate::new(200).set_body_raw("<html>proxy error</html>", "text/html"),
    );
    let (code, o, e) = run(&fake, &[]);
    assert_eq!(code, Some(2), "{o}\n{e}");
    assert!(o.contains("unknown  Azure Policy               could not check Azure Policy for Microsoft.KeyVault/vaults kv-shortvideo-prod"), "{o}");
    assert!(o.contains("not the JSON gpuform expects"), "{o}");
    assert!(
        o.contains("result: eastus2 (spec region) is UNKNOWN"),
        "{o}"
    );
    assert!(!o.contains("no deny:"), "{o}");

    let fake = landing_zone();
    mount_subnet(
        &fake,
        ResponseTemplate::new(200).set_body_raw("{\"properties\": [", "application/json"),
    );
    let (code, o, _) = run(&fake, &[]);
    assert_eq!(code, Some(2), "{o}");
    assert!(
        o.contains("unknown  existing subnet            could not check the existing subnet"),
        "{o}"
    );
}

#[test]
fn with_a_resource_group_policy_is_asked_there_and_falls_back_to_the_subscription() {
    let fake = landing_zone();
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(r"(?i)/resourcegroups/rg-gpu$"))
            .respond_with(ResponseTemplate::new(404).set_body_json(arm_error(
                "ResourceGroupNotFound",
                "Resource group 'rg-gpu' could not be found.",
            ))),
    );
    fake.mount(
        Mock::given(method("POST"))
            .and(path(FakeAzure::sub_path(
                "resourceGroups/rg-gpu/providers/Microsoft.PolicyInsights/checkPolicyRestrictions",
            )))
            .respond_with(ResponseTemplate::new(404).set_body_json(arm_error(
                "ResourceGroupNotFound",
                "Resource group 'rg-gpu' could not be found.",
            ))),
    );
    policy_for(
        &fake,
        "Microsoft.KeyVault/vaults",
        evaluations(vec![evaluation(
            "Deny-Public-IP",
            "6c112d4e-5bc7-47ae-a041-ea2d9dccd749",
            "Deny",
            "type",
        )]),
    );
    let (code, o, e) = run(&fake, &["-g", "rg-gpu"]);
    assert_eq!(code, Some(1), "{o}\n{e}");
    assert!(o.contains("Deny-Public-IP"), "{o}");
    let paths: Vec<String> = fake
        .requests()
        .iter()
        .map(|r| r.url.path().to_string())
        .collect();
    assert!(
        paths
            .iter()
            .any(|p| p.contains("/resourceGroups/rg-gpu/providers/Microsoft.PolicyInsights/")),
        "{paths:?}"
    );
    assert!(paths.iter().any(|p| *p == policy_path()), "{paths:?}");
}

#[test]
fn offline_the_landing_zone_checks_are_skipped_and_say_why() {
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/preflight");
    let out = clean_command()
        .arg("preflight")
        .arg(spoke())
        .arg("--skus")
        .arg(fixtures.join("az-vm-list-skus-eastus2-all.json"))
        .arg("--usages")
        .arg(format!(
            "eastus2={}",
            fixtures.join("az-vm-list-usage-eastus2.json").display()
        ))
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert!(
        o.contains("skipped  existing subnet            needs the subscription"),
        "{o}\n{e}"
    );
    assert!(
        o.contains("skipped  Azure Policy               needs the subscription"),
        "{o}\n{e}"
    );
}

#[test]
fn a_policy_deny_stops_deploy_before_anything_changes() {
    let fake = landing_zone();
    const RG: &str = "rg-shortvideo-prod";
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(&format!("resourcegroups/{RG}"))))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "id": format!("/subscriptions/{SUB}/resourceGroups/{RG}"), "name": RG, "location": "eastus2",
                "properties": {"provisioningState": "Succeeded"}
            }))),
    );
    fake.mount(
        Mock::given(method("POST"))
            .and(path(FakeAzure::sub_path(&format!("resourceGroups/{RG}/providers/Microsoft.PolicyInsights/checkPolicyRestrictions"))))
            .and(body_partial_json(json!({"resourceDetails": {"resourceContent": {"type": "Microsoft.KeyVault/vaults"}}})))
            .respond_with(evaluations(vec![evaluation("Deny-KV-Without-Firewall", "55615ac9-af46-4a59-874e-391cc3dfb490", "Deny", "Microsoft.KeyVault/vaults/networkAcls.defaultAction")])),
    );
    let out = fake
        .gpuform()
        .arg("deploy")
        .arg(spoke())
        .args([
            "--resource-group",
            RG,
            "--yes",
            "--arm-endpoint",
            &format!("{}/", fake.base),
            "--retry-delay-ms",
            "50",
        ])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert!(o.contains("policy assignment Deny-KV-Without-Firewall (definition 55615ac9-af46-4a59-874e-391cc3dfb490 in initiative Deny-Spoke-Network) denies Microsoft.KeyVault/vaults kv-shortvideo-prod (field Microsoft.KeyVault/vaults/networkAcls.defaultAction)"), "{o}");
    assert!(
        e.contains("deploy: stopped before changing anything: preflight blocks eastus2"),
        "{e}"
    );
    assert!(fake.requests().iter().all(|r| r.method.as_str() != "PUT"));
}

/// Issue 19: the pool's NICs (and private endpoints) must be in the subscription of the VNet
/// they join (Learn, "Create, change, or delete a network interface"; "What is a private
/// endpoint?"): a spoke subnet of another subscription than the deployment's fails preflight,
/// named, with the fix.
#[test]
fn a_subnet_in_another_subscription_than_the_deployment_fails() {
    let fake = landing_zone();
    let other = "99999999-8888-7777-6666-555555555555";
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spoke-elsewhere.yaml");
    let text = std::fs::read_to_string(spoke()).unwrap();
    let moved = text.replace(
        &format!("existingSubnet: /subscriptions/{SUB}/"),
        &format!("existingSubnet: /subscriptions/{other}/"),
    );
    assert_ne!(moved, text);
    std::fs::write(&spec, moved).unwrap();
    let (code, o, e) = run_spec(&fake, &spec, &[]);
    assert_ne!(code, Some(0), "{o}\n{e}");
    assert!(
        o.contains(&format!(
            "network.existingSubnet is in subscription {other}, but the deployment goes to {SUB}"
        )),
        "{o}\n{e}"
    );
    assert!(o.contains("--subscription"), "{o}");
    // the spec's own subscription passes that check
    let fake = landing_zone();
    let (code, o, e) = run(&fake, &[]);
    assert_eq!(code, Some(0), "{o}\n{e}");
    assert!(
        o.contains("network.existingSubnet in the deployment's subscription and region"),
        "{o}"
    );
}

/// Issue 19: a NIC must be in its virtual network's region (Learn, "Create, change, or delete a
/// network interface", facts::placement::NIC). The subnet's answer has no location: preflight
/// reads the VNet (VirtualNetworks_Get) and compares it with the spec's region.
#[test]
fn the_existing_subnets_virtual_network_must_be_in_the_specs_region() {
    // same region: a pass that names it
    let fake = landing_zone();
    let (code, o, e) = run(&fake, &[]);
    assert_eq!(code, Some(0), "{o}\n{e}");
    assert!(
        o.contains("network.existingSubnet: the virtual network vnet-spoke is in eastus2, the spec's region"),
        "{o}"
    );
    assert!(
        fake.requests()
            .iter()
            .any(|r| r.url.path() == vnet_id() && r.method.as_str() == "GET"),
        "the VNet was not read"
    );

    // another region: blocked, both regions and the fix named
    let fake = landing_zone();
    mount_vnet(
        &fake,
        ResponseTemplate::new(200).set_body_json(vnet("westeurope")),
    );
    let (code, o, e) = run(&fake, &[]);
    assert_eq!(code, Some(1), "{o}\n{e}");
    assert!(o.contains("network.existingSubnet: the virtual network vnet-spoke is in westeurope, the spec's region is eastus2: the pool's NICs must be in their virtual network's region"), "{o}");
    assert!(o.contains("virtual-network-network-interface"), "{o}");
    assert!(o.contains("set spec.region to westeurope"), "{o}");
    assert!(
        o.contains("result: eastus2 (spec region) is BLOCKED"),
        "{o}"
    );

    // the VNet does not exist: blocked
    let fake = landing_zone();
    mount_vnet(
        &fake,
        ResponseTemplate::new(404).set_body_json(arm_error(
            "ResourceNotFound",
            "The Resource 'Microsoft.Network/virtualNetworks/vnet-spoke' under resource group 'rg-spoke-network' was not found.",
        )),
    );
    let (code, o, e) = run(&fake, &[]);
    assert_eq!(code, Some(1), "{o}\n{e}");
    assert!(
        o.contains(&format!(
            "network.existingSubnet: the virtual network {} does not exist",
            vnet_id()
        )),
        "{o}"
    );

    // the identity may not read it: a warning that says what to grant, never a pass
    let fake = landing_zone();
    mount_vnet(
        &fake,
        ResponseTemplate::new(403).set_body_json(arm_error(
            "AuthorizationFailed",
            "The client does not have authorization to perform action 'Microsoft.Network/virtualNetworks/read' over scope '/subscriptions/x/resourceGroups/rg-spoke-network/providers/Microsoft.Network/virtualNetworks/vnet-spoke'",
        )),
    );
    let (code, o, e) = run(&fake, &[]);
    assert_eq!(code, Some(0), "{o}\n{e}");
    assert!(o.contains("warn     region of the existing subnets' virtual networks could not check the region of network.existingSubnet's virtual network"), "{o}");
    assert!(
        o.contains("Network Reader (or Reader) on the virtual network vnet-spoke"),
        "{o}"
    );
    assert!(!o.contains("vnet-spoke is in eastus2"), "{o}");
}

/// The private endpoints' own subnet (`network.existingPrivateEndpointSubnet`, in a hub VNet):
/// its VNet is read like the pool's; 404 blocks, 403 is a warning that says what to grant
/// (issue 19; these answers were unit-tested only).
#[test]
fn the_private_endpoint_subnets_virtual_network_not_found_blocks_and_forbidden_warns() {
    let hub = net_id("virtualNetworks/vnet-hub");
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spoke-pe.yaml");
    let text = std::fs::read_to_string(spoke()).unwrap();
    let line = "    existingSubnet: /subscriptions/00000000-1111-2222-3333-444444444444/resourceGroups/rg-spoke-network/providers/Microsoft.Network/virtualNetworks/vnet-spoke/subnets/snet-gpu\n";
    assert!(text.contains(line));
    std::fs::write(
        &spec,
        text.replace(
            line,
            &format!("{line}    existingPrivateEndpointSubnet: {hub}/subnets/snet-pe\n"),
        ),
    )
    .unwrap();
    let mount_hub = |fake: &FakeAzure, answer: ResponseTemplate| {
        fake.mount(
            Mock::given(method("GET"))
                .and(path(hub.clone()))
                .and(query_param("api-version", "2025-05-01"))
                .respond_with(answer),
        );
    };

    // the hub VNet does not exist: blocked, naming the field and the id
    let fake = landing_zone();
    mount_hub(
        &fake,
        ResponseTemplate::new(404).set_body_json(arm_error(
            "ResourceNotFound",
            "The Resource 'Microsoft.Network/virtualNetworks/vnet-hub' under resource group 'rg-spoke-network' was not found.",
        )),
    );
    let (code, o, e) = run_spec(&fake, &spec, &[]);
    assert_eq!(code, Some(1), "{o}\n{e}");
    assert!(
        o.contains(&format!(
            "network.existingPrivateEndpointSubnet: the virtual network {hub} does not exist"
        )),
        "{o}"
    );
    // the pool's own VNet is still read and passes
    assert!(
        o.contains("network.existingSubnet: the virtual network vnet-spoke is in eastus2, the spec's region"),
        "{o}"
    );
    assert!(
        fake.requests()
            .iter()
            .any(|r| r.url.path() == hub && r.method.as_str() == "GET"),
        "the hub VNet was not read"
    );

    // the identity may not read it: a warning that says what to grant, never a pass
    let fake = landing_zone();
    mount_hub(
        &fake,
        ResponseTemplate::new(403).set_body_json(arm_error(
            "AuthorizationFailed",
            "The client does not have authorization to perform action 'Microsoft.Network/virtualNetworks/read' over scope '/subscriptions/x/resourceGroups/rg-spoke-network/providers/Microsoft.Network/virtualNetworks/vnet-hub'",
        )),
    );
    let (code, o, e) = run_spec(&fake, &spec, &[]);
    assert_eq!(code, Some(0), "{o}\n{e}");
    assert!(
        o.contains(
            "could not check the region of network.existingPrivateEndpointSubnet's virtual network"
        ),
        "{o}"
    );
    assert!(
        o.contains("Network Reader (or Reader) on the virtual network vnet-hub"),
        "{o}"
    );
    assert!(!o.contains("vnet-hub is in"), "{o}");
}

/// The region rule the VNet check enforces is the Learn pages' (dated excerpts), and the facts
/// it cites name those pages.
#[test]
fn the_placement_facts_are_the_learn_pages() {
    use gpuform::facts::placement::{NIC, PRIVATE_ENDPOINT};
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sources/placement.json");
    let src: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let text = |k: &str| src[k]["excerpts"].to_string();
    assert!(
        text("nic").contains("only to a virtual network in the same subscription and location")
    );
    assert!(
        text("privateEndpoint").contains(
            "must be deployed in the same region and subscription as the virtual network"
        )
    );
    assert!(NIC.what.contains(src["nic"]["url"].as_str().unwrap()));
    assert!(
        PRIVATE_ENDPOINT
            .what
            .contains(src["privateEndpoint"]["url"].as_str().unwrap())
    );
}
