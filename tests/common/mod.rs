//! Shared pieces of the tests that run the real binary.
//!
//! The fake ARM every fake-server test uses is [`fake_arm`]: `FakeArm::new()` (signed in), add
//! the common endpoints (`.subscription(..)`, `.resource_group(..)`,
//! `.refusing_what_azure_refuses()`), `.start()`, then mount the test's own mocks with
//! `fake.mount(...)` and build the command with `fake.gpuform()`. Used by the preflight, deploy,
//! destroy, quota, status, simulate and sovereign tests and benches/preflight.rs. This file
//! holds the constants, response bodies in the real shapes, and output helpers; `refuse.rs`
//! holds Azure's refusals of deployments.

#![allow(dead_code)]

pub mod fake_arm;
pub mod log_query;
pub mod recorder;
pub mod refuse;
pub mod spot;
pub mod standby_pool;

#[allow(unused_imports)]
pub use fake_arm::{FakeArm, FakeAzure, TestCa, resource_group, token_path, token_response};

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, Request, Respond, ResponseTemplate};

pub const SUB: &str = "00000000-1111-2222-3333-444444444444";
pub const TENANT: &str = "72f988bf-86f1-41af-91ab-2d7cd011db47";
pub const CLIENT: &str = "11111111-2222-3333-4444-555555555555";
pub const TOKEN: &str = "fake-arm-token";
/// The size of examples/shortvideo-transcode.yaml ([`spec`]) and its quota family (with spaces).
pub const SIZE: &str = "Standard_NC8as_T4_v3";
pub const FAMILY: &str = "Standard NCASv3_T4 Family";
/// The T4 sizes every region of [`FakeAzure::mount_subscription`] offers, with their vCPUs.
pub const T4: [(&str, u32); 3] = [
    ("Standard_NC4as_T4_v3", 4),
    (SIZE, 8),
    ("Standard_NC16as_T4_v3", 16),
];

/// The binary with no Azure-related variables from the outer environment and no colour.
pub fn clean_command() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("gpuform").unwrap();
    for k in [
        "AZURE_CLIENT_ID",
        "AZURE_TENANT_ID",
        "AZURE_CLIENT_SECRET",
        "AZURE_FEDERATED_TOKEN_FILE",
        "AZURE_SUBSCRIPTION_ID",
        "AZURE_AUTHORITY_HOST",
        "GPUFORM_LOGS_ENDPOINT",
        "ACTIONS_ID_TOKEN_REQUEST_URL",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
        "SYSTEM_OIDCREQUESTURI",
        "SYSTEM_ACCESSTOKEN",
        "AZURESUBSCRIPTION_SERVICE_CONNECTION_ID",
        "AZURE_SERVICE_CONNECTION_ID",
        "IDENTITY_ENDPOINT",
        "MSI_ENDPOINT",
        "GPUFORM_AUTH",
        "GPUFORM_GRAPH_ENDPOINT",
        "GPUFORM_STANDBY_PROVIDER_APP_ID",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
    ] {
        c.env_remove(k);
    }
    c.env("NO_COLOR", "1")
        .env("NO_PROXY", "127.0.0.1,localhost");
    c
}

// ---------------------------------------------------------------------------------------------
// Response bodies in the real shapes (../shared/azure/recordings)

/// A `virtualMachines` resource SKU as the Resource SKUs API returns it (capabilities are strings).
pub fn sku(name: &str, family: &str, location: &str, vcpus: u32, zones: &[&str]) -> Value {
    json!({
        "resourceType": "virtualMachines",
        "name": name,
        "tier": "Standard",
        "size": name.trim_start_matches("Standard_"),
        "family": family,
        "locations": [location],
        "locationInfo": [{"location": location, "zones": zones, "zoneDetails": []}],
        "capabilities": [
            {"name": "vCPUs", "value": vcpus.to_string()},
            {"name": "MemoryGB", "value": "56"},
            {"name": "GPUs", "value": "1"},
            {"name": "HyperVGenerations", "value": "V1,V2"},
            {"name": "LowPriorityCapable", "value": "True"},
            {"name": "EncryptionAtHostSupported", "value": "True"},
            {"name": "AcceleratedNetworkingEnabled", "value": "True"},
            {"name": "RdmaEnabled", "value": "False"},
            {"name": "vCPUsAvailable", "value": vcpus.to_string()}
        ],
        "restrictions": []
    })
}

/// A non-VM SKU (disks), which a real list is full of.
pub fn disk_sku(location: &str) -> Value {
    json!({"resourceType": "disks", "name": "Premium_LRS", "tier": "Premium", "kind": "", "locations": [location],
           "locationInfo": [{"location": location, "zones": ["1", "2", "3"]}], "capabilities": [{"name": "MaxSizeGiB", "value": "4"}], "restrictions": []})
}

pub fn location_restriction(location: &str, reason: &str) -> Value {
    json!({"type": "Location", "values": [location], "restrictionInfo": {"locations": [location]}, "reasonCode": reason})
}

pub fn zone_restriction(location: &str, zones: &[&str]) -> Value {
    json!({"type": "Zone", "values": [location], "restrictionInfo": {"locations": [location], "zones": zones}, "reasonCode": "NotAvailableForSubscription"})
}

/// One Compute usage entry (REST shape: numbers).
pub fn usage(value: &str, label: &str, current: i64, limit: i64) -> Value {
    json!({"currentValue": current, "limit": limit, "name": {"localizedValue": label, "value": value}, "unit": "Count"})
}

/// A realistic usage list for a region: the T4 family (with spaces), totals, spot, scale sets.
pub fn usages(family_limit: i64, cores_limit: i64, spot_limit: i64) -> Value {
    json!({"value": [
        usage("availabilitySets", "Availability Sets", 0, 2500),
        usage("cores", "Total Regional vCPUs", 12, cores_limit),
        usage("virtualMachines", "Virtual Machines", 3, 25000),
        usage("virtualMachineScaleSets", "Virtual Machine Scale Sets", 1, 2500),
        usage("lowPriorityCores", "Total Regional Low-priority vCPUs", 0, spot_limit),
        usage("standardDSv3Family", "Standard DSv3 Family vCPUs", 12, 350),
        usage("Standard NCASv3_T4 Family", "Standard NCASv3_T4 Family vCPUs", 0, family_limit),
        usage("StandardNCADSA100v4Family", "Standard NCADS_A100_v4 Family vCPUs", 0, 0),
        usage("standardNCSv3Family", "Standard NCSv3 Family vCPUs", 0, 0)
    ]})
}

/// A region's network usages (`GET .../providers/Microsoft.Network/locations/{r}/usages`), in
/// the shape of the recorded `az network usage list` answer (azure-cli command_specs.py @
/// b49d173, tests/fixtures/sources/serving-sources.json `network-usages-cli`).
pub fn network_usages(load_balancers: (i64, i64), gateways: (i64, i64)) -> Value {
    json!({"value": [
        usage("VirtualNetworks", "Virtual Networks", 3, 1000),
        usage("NetworkSecurityGroups", "Network Security Groups", 4, 5000),
        usage("PublicIPAddresses", "Public IP Addresses", 1, 1000),
        usage("NetworkInterfaces", "Network Interfaces", 12, 65536),
        usage("LoadBalancers", "Load Balancers", load_balancers.0, load_balancers.1),
        usage("ApplicationGateways", "Application Gateways", gateways.0, gateways.1),
        usage("RouteTables", "Route Tables", 0, 200)
    ]})
}

/// eastus2 as the running pool of examples/shortvideo-transcode.yaml leaves it: 2 regular + 18
/// Spot VMs of 8 vCPUs use the whole family (16) and Spot (144) quota.
pub fn usages_full_by_the_pool() -> Value {
    json!({"value": [
        usage("cores", "Total Regional vCPUs", 16, 100),
        usage("virtualMachineScaleSets", "Virtual Machine Scale Sets", 1, 2500),
        usage("lowPriorityCores", "Total Regional Low-priority vCPUs", 144, 144),
        usage(FAMILY, "Standard NCASv3_T4 Family vCPUs", 16, 16)
    ]})
}

/// `GET .../virtualMachineScaleSets/vmss-shortvideo-transcode` in `rg`: 20 instances, the
/// first 2 regular, the rest Spot.
pub fn mount_running_pool(fake: &FakeAzure, rg: &str) {
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(&format!(
                "resourcegroups/{rg}/providers/Microsoft.Compute/virtualMachineScaleSets/vmss-shortvideo-transcode"
            ))))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "name": "vmss-shortvideo-transcode", "location": "eastus2",
                "sku": {"name": SIZE, "tier": "Standard", "capacity": 20},
                "properties": {
                    "orchestrationMode": "Flexible",
                    "priorityMixPolicy": {"baseRegularPriorityCount": 2, "regularPriorityPercentageAboveBase": 0},
                    "virtualMachineProfile": {"priority": "Spot", "evictionPolicy": "Delete"}
                }
            }))),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(
                "providers/Microsoft.Compute/locations/eastus2/usages",
            )))
            .respond_with(ResponseTemplate::new(200).set_body_json(usages_full_by_the_pool())),
    );
}

pub fn arm_error(code: &str, message: &str) -> Value {
    json!({"error": {"code": code, "message": message}})
}

pub fn feature_path() -> String {
    FakeAzure::sub_path(
        "providers/Microsoft.Features/providers/Microsoft.Compute/features/EncryptionAtHost",
    )
}

/// The EncryptionAtHost feature in `state`.
pub fn feature(state: &str) -> Value {
    json!({"id": format!("/subscriptions/{SUB}/providers/Microsoft.Features/providers/Microsoft.Compute/features/EncryptionAtHost"),
           "name": "Microsoft.Compute/EncryptionAtHost", "properties": {"state": state}, "type": "Microsoft.Features/providers/features"})
}

/// Microsoft.Compute/TrustedLaunchByDefaultPreview (Trusted Launch as default).
pub fn trusted_launch_default_path() -> String {
    FakeAzure::sub_path(
        "providers/Microsoft.Features/providers/Microsoft.Compute/features/TrustedLaunchByDefaultPreview",
    )
}

pub fn trusted_launch_default(state: &str) -> Value {
    json!({"id": format!("/subscriptions/{SUB}/providers/Microsoft.Features/providers/Microsoft.Compute/features/TrustedLaunchByDefaultPreview"),
           "name": "Microsoft.Compute/TrustedLaunchByDefaultPreview", "properties": {"state": state}, "type": "Microsoft.Features/providers/features"})
}

pub fn examples(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

/// examples/shortvideo-transcode.yaml: [`SIZE`], eastus2 with alternates westus3 and
/// southcentralus, up to 20 VMs = 2 regular + 18 Spot.
pub fn spec() -> PathBuf {
    examples("shortvideo-transcode.yaml")
}

// ---------------------------------------------------------------------------------------------
// Output

/// `GPUFORM_TEST_SHOW=1 cargo test --test NAME -- --nocapture --test-threads 1` prints what
/// users see.
pub fn show(out: &std::process::Output) {
    if std::env::var_os("GPUFORM_TEST_SHOW").is_some() {
        println!(
            "--- exit {:?}\n{}{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

/// (stdout, stderr) as text, shown with [`show`].
pub fn texts(out: &std::process::Output) -> (String, String) {
    show(out);
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Answers in turn; the last one repeats.
pub struct Seq {
    answers: Vec<ResponseTemplate>,
    n: AtomicUsize,
}

pub fn seq(answers: Vec<ResponseTemplate>) -> Seq {
    Seq {
        answers,
        n: AtomicUsize::new(0),
    }
}

impl Respond for Seq {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        let i = self.n.fetch_add(1, Ordering::SeqCst);
        self.answers[i.min(self.answers.len() - 1)].clone()
    }
}

// ---------------------------------------------------------------------------------------------
// Deletes as Azure answers them (the fake resource groups of tests/destroy.rs)

/// What Azure does with a child resource when its parent is deleted, written from the sources
/// (not from gpuform's `facts::deletion`): `(parent type, child type, refuses)`. `refuses`: Azure
/// refuses to delete the parent while the child exists. Sources, read 2026-12-03:
/// - zone links: azure-cli#15010 (DELETE privateDnsZones → 409 while links exist),
///   Azure/ResourceModules#823, Azure/deployment-stacks#227;
/// - private endpoint DNS zone groups: the Cloud Adoption Framework's data landing zone network
///   page ("The lifecycle of the DNS records follows the lifecycle of the private endpoints. It's
///   automatically removed when the private endpoint is deleted", read 2026-12-05): they go with
///   the endpoint;
/// - Key Vault keys: Azure/azure-policy SoftDeleteMustBeEnabled_Audit.json ("deleting a key
///   vault ... deletes all secrets, keys, and certificates"); ARM has no DELETE for keys;
/// - Service Bus queues: Learn Remove-AzServiceBusNamespace ("also removes all associated
///   resources under the namespace");
/// - VM extensions, workspace tables, storage queue services and queues, VNet subnets: part of
///   the parent's model; they go with it.
pub const AZURE_CHILDREN: &[(&str, &str, bool)] = &[
    (
        "microsoft.network/privatednszones",
        "microsoft.network/privatednszones/virtualnetworklinks",
        true,
    ),
    (
        "microsoft.network/privateendpoints",
        "microsoft.network/privateendpoints/privatednszonegroups",
        false,
    ),
    (
        "microsoft.keyvault/vaults",
        "microsoft.keyvault/vaults/keys",
        false,
    ),
    (
        "microsoft.servicebus/namespaces",
        "microsoft.servicebus/namespaces/queues",
        false,
    ),
    (
        "microsoft.compute/virtualmachines",
        "microsoft.compute/virtualmachines/extensions",
        false,
    ),
    (
        "microsoft.operationalinsights/workspaces",
        "microsoft.operationalinsights/workspaces/tables",
        false,
    ),
    (
        "microsoft.storage/storageaccounts",
        "microsoft.storage/storageaccounts/queueservices",
        false,
    ),
    (
        "microsoft.storage/storageaccounts/queueservices",
        "microsoft.storage/storageaccounts/queueservices/queues",
        false,
    ),
    (
        "microsoft.network/virtualnetworks",
        "microsoft.network/virtualnetworks/subnets",
        false,
    ),
];

/// The type of a resource id or path (lower case): `microsoft.network/privatednszones/virtualnetworklinks`.
pub fn type_of(id: &str) -> Option<String> {
    let segs: Vec<String> = id
        .trim_matches('/')
        .split('/')
        .map(|s| s.to_ascii_lowercase())
        .collect();
    let p = segs.iter().rposition(|s| s == "providers")?;
    let rest = &segs[p + 2..];
    if rest.is_empty() || !rest.len().is_multiple_of(2) {
        return None;
    }
    let mut t = segs.get(p + 1)?.clone();
    for pair in rest.chunks(2) {
        t.push('/');
        t.push_str(&pair[0]);
    }
    Some(t)
}

/// How Azure answers a DELETE of `target` (a path, lower case) while `remaining` (paths, lower
/// case) still exist: `Some(refusal)`, or `None` when it deletes it (children that go with it
/// are for the caller to forget).
///
/// - 409 `CannotDeleteResource` "Cannot delete resource while nested resources exist" for a
///   parent whose refusing child ([`AZURE_CHILDREN`]) remains (azure-cli#15010);
/// - 400 `InUseSubnetCannotBeDeleted` for a VNet while a NIC, a private endpoint, an
///   Application Gateway, an internal load balancer or a Private Link service (in its subnets)
///   remains (the dependants gpuform renders);
/// - 400 `LoadBalancerInUseByVirtualMachineScaleSet` for a load balancer while a scale set
///   remains (its NIC profile joins the backend pool; load-balancer-common-deployment-errors.md
///   @ e37fe81), and 400 `CannotDeleteLoadBalancerWithPrivateLinkService` while a Private Link
///   service on its frontend remains (SupportArticles-docs
///   cannot-delete-load-balancer-private-link-service.md @ 4eb125e), with Azure's messages.
pub fn delete_refusal(target: &str, remaining: &[String]) -> Option<ResponseTemplate> {
    refusal_of(target, remaining).map(|(status, code, message)| {
        ResponseTemplate::new(status).set_body_json(arm_error(code, &message))
    })
}

/// [`delete_refusal`]'s answer as (HTTP status, Azure's error code, message).
pub fn refusal_of(target: &str, remaining: &[String]) -> Option<(u16, &'static str, String)> {
    let ty = type_of(target)?;
    let nested: Vec<&String> = remaining
        .iter()
        .filter(|r| r.starts_with(&format!("{target}/")))
        .filter(|r| {
            type_of(r).is_some_and(|ct| {
                AZURE_CHILDREN
                    .iter()
                    .any(|(p, c, refuses)| *refuses && *p == ty && *c == ct)
            })
        })
        .collect();
    if let Some(first) = nested.first() {
        return Some((
            409,
            "CannotDeleteResource",
            format!(
                "Cannot delete resource while nested resources exist. Some existing nested resource IDs include: '{first}'. Please delete all nested resources before deleting this resource."
            ),
        ));
    }
    let remaining_of = |ty: &str| remaining.iter().find(|r| type_of(r).as_deref() == Some(ty));
    if ty == "microsoft.network/loadbalancers" {
        if let Some(vmss) = remaining_of("microsoft.compute/virtualmachinescalesets") {
            return Some((
                400,
                "LoadBalancerInUseByVirtualMachineScaleSet",
                format!(
                    "Cannot delete load balancer {target} since its child resources {} are in use by virtual machine scale set {vmss}.",
                    target.rsplit('/').next().unwrap_or_default()
                ),
            ));
        }
        if let Some(pls) = remaining_of("microsoft.network/privatelinkservices") {
            return Some((
                400,
                "CannotDeleteLoadBalancerWithPrivateLinkService",
                format!(
                    "Cannot delete load balancer {target} since it is referenced by private link service {pls}. Please delete private link service prior to deleting load balancer."
                ),
            ));
        }
    }
    if ty == "microsoft.network/virtualnetworks" {
        let user = remaining.iter().find(|r| {
            type_of(r).is_some_and(|t| {
                t == "microsoft.network/networkinterfaces"
                    || t == "microsoft.network/privateendpoints"
                    || t == "microsoft.network/applicationgateways"
                    || t == "microsoft.network/loadbalancers"
                    || t == "microsoft.network/privatelinkservices"
            })
        });
        if let Some(u) = user {
            return Some((
                400,
                "InUseSubnetCannotBeDeleted",
                format!(
                    "Subnet is in use by {u} and cannot be deleted. In order to delete the subnet, delete all the resources within the subnet."
                ),
            ));
        }
    }
    None
}

/// ARM's answer to a call for a provider the subscription is not registered for: 409
/// `MissingSubscriptionRegistration` (Learn "Resolve errors for resource provider registration":
/// "The subscription is not registered to use namespace {resource-provider-namespace}"; the
/// message and `details[].target` as az shows them, read 2026-12-03).
pub fn missing_registration(namespace: &str) -> ResponseTemplate {
    let message = format!(
        "The subscription is not registered to use namespace '{namespace}'. See https://aka.ms/rps-not-found for how to register subscriptions."
    );
    ResponseTemplate::new(409).set_body_json(json!({"error": {
        "code": "MissingSubscriptionRegistration",
        "message": message,
        "details": [{"code": "MissingSubscriptionRegistration", "target": namespace, "message": message}]
    }}))
}

/// A response body recorded in the real shape under `tests/fixtures/status`.
pub fn status_fixture(name: &str) -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/status")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// A built-in role's GUID by name, from the built-in roles table.
pub fn builtin_role_id(name: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("../shared/azure/builtin-roles.json");
    let p = if shared.is_file() {
        shared
    } else {
        root.join("tests/fixtures/sources/builtin-roles.json")
    };
    let v: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    v["roles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not a built-in role"))["id"]
        .as_str()
        .unwrap()
        .to_string()
}
