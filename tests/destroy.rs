//! `gpuform destroy` end to end against the HTTPS fake ARM of tests/common, with a stateful
//! fake resource group: GET answers 404 once a resource is deleted, DELETE of a deleted one
//! answers 404, and the deployment list forgets a deleted deployment record. Shapes follow the
//! ARM spec: deployments list (outputResources), DELETE 200/202 + Location + Retry-After.
//!
//! The spec is examples/shortvideo-transcode.yaml; its deployment's output resources are the
//! ones its rendered template declares (with a derived vault name).

mod common;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use serde_json::{Value, json};
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, Request, Respond, ResponseTemplate};

const RG: &str = "rg-shortvideo-dev";
const DEPLOYMENT: &str = "shortvideo-transcode-0a1b2c3d";
const VAULT: &str = "kv-shortvideo-x7k2";

fn rgp() -> String {
    format!("/subscriptions/{SUB}/resourceGroups/{RG}/providers")
}

/// The output resources of the spec's deployment (as ARM lists them: children and extension
/// resources included).
fn output_ids() -> Vec<String> {
    let p = rgp();
    let vault = format!("{p}/Microsoft.KeyVault/vaults/{VAULT}");
    let queue =
        format!("{p}/Microsoft.ServiceBus/namespaces/sb-shortvideo-prod/queues/transcode-jobs");
    vec![
        format!("{p}/Microsoft.Network/networkSecurityGroups/nsg-shortvideo-transcode-workload"),
        format!(
            "{p}/Microsoft.Network/networkSecurityGroups/nsg-shortvideo-transcode-private-endpoints"
        ),
        format!("{p}/Microsoft.Network/publicIPAddresses/pip-shortvideo-transcode-nat"),
        format!("{p}/Microsoft.Network/natGateways/ng-shortvideo-transcode"),
        format!("{p}/Microsoft.Network/virtualNetworks/vnet-shortvideo-transcode"),
        format!("{p}/Microsoft.Network/virtualNetworks/vnet-shortvideo-transcode/subnets/workload"),
        format!("{p}/Microsoft.ManagedIdentity/userAssignedIdentities/id-shortvideo-transcode"),
        format!(
            "{vault}/providers/Microsoft.Authorization/roleAssignments/11111111-0000-0000-0000-000000000001"
        ),
        format!(
            "{queue}/providers/Microsoft.Authorization/roleAssignments/11111111-0000-0000-0000-000000000002"
        ),
        vault.clone(),
        format!("{vault}/keys/disk-cmk"),
        format!("{p}/Microsoft.Network/privateDnsZones/privatelink.vaultcore.azure.net"),
        format!(
            "{p}/Microsoft.Network/privateDnsZones/privatelink.vaultcore.azure.net/virtualNetworkLinks/link-vnet-shortvideo-transcode"
        ),
        format!("{p}/Microsoft.Network/privateEndpoints/pep-shortvideo-transcode-vault"),
        format!("{p}/Microsoft.Compute/diskEncryptionSets/des-shortvideo-transcode"),
        format!("{p}/Microsoft.Compute/virtualMachineScaleSets/vmss-shortvideo-transcode"),
        format!("{p}/Microsoft.ServiceBus/namespaces/sb-shortvideo-prod"),
        queue,
        format!("{p}/Microsoft.Insights/autoscaleSettings/as-shortvideo-transcode"),
        format!("{p}/Microsoft.OperationalInsights/workspaces/log-shortvideo-transcode"),
        format!("{vault}/providers/Microsoft.Insights/diagnosticSettings/to-log-analytics"),
        format!("{p}/Microsoft.Insights/actionGroups/ag-shortvideo-transcode"),
        format!("{p}/Microsoft.Insights/metricAlerts/alert-shortvideo-transcode-capacity-at-max"),
        format!("{p}/Microsoft.Consumption/budgets/budget-shortvideo-transcode"),
        // not the spec's type: left alone
        format!("{p}/Microsoft.Web/sites/someone-elses-app"),
    ]
}

/// The fake group's state, shared by the responders.
#[derive(Default)]
struct State {
    deleted: HashSet<String>,
    /// DELETEs in the order they arrived (paths, lower case).
    deletes: Vec<String>,
    /// path suffix (lower case) → answers to give its DELETE before deleting (in turn).
    fail: HashMap<String, Vec<ResponseTemplate>>,
    /// path suffix → the DELETE answers 202 + Location (to `{path}/operationResults/1`).
    accepted: HashSet<String>,
    /// the deployment is still running
    running: bool,
    /// PATCH bodies of VMs (the data disks' deleteOption)
    patches: Vec<Value>,
}

#[derive(Clone)]
struct Group {
    state: Arc<Mutex<State>>,
    base: String,
}

fn key(r: &Request) -> String {
    r.url.path().to_ascii_lowercase()
}

impl Respond for Group {
    fn respond(&self, r: &Request) -> ResponseTemplate {
        let mut s = self.state.lock().unwrap();
        let k = key(r);
        let not_found = || {
            ResponseTemplate::new(404)
                .set_body_json(arm_error("ResourceNotFound", "The Resource was not found."))
        };
        if k.ends_with("/operationresults/1") {
            // a Location poll: running once, then done
            let n = s.deletes.iter().filter(|d| d.as_str() == k).count();
            s.deletes.push(k);
            return if n == 0 {
                ResponseTemplate::new(202).insert_header("Retry-After", "1")
            } else {
                ResponseTemplate::new(200)
            };
        }
        let vm_ids: Vec<String> = (0..2)
            .map(|i| {
                format!(
                    "{}/Microsoft.Compute/virtualMachines/vmss-shortvideo-transcode_{i:08x}",
                    rgp()
                )
            })
            .collect();
        match r.method.as_str() {
            // the scale set's instances (Flexible: the virtualMachines list, filtered)
            "GET" if k.ends_with("/providers/microsoft.compute/virtualmachines") => {
                let value: Vec<Value> = vm_ids
                    .iter()
                    .map(|id| json!({"id": id, "name": id.rsplit('/').next(), "properties": {}}))
                    .collect();
                ResponseTemplate::new(200).set_body_json(json!({"value": value}))
            }
            "GET" if k.contains("/microsoft.compute/virtualmachines/") => {
                let detached = s
                    .patches
                    .iter()
                    .any(|p| p["path"].as_str() == Some(k.as_str()));
                let option = if detached { "Detach" } else { "Delete" };
                ResponseTemplate::new(200).set_body_json(json!({"id": r.url.path(), "properties": {"storageProfile": {
                    "osDisk": {"createOption": "FromImage", "deleteOption": "Delete"},
                    "dataDisks": [{"lun": 0, "createOption": "Empty", "diskSizeGB": 256, "caching": "ReadOnly", "deleteOption": option,
                        "managedDisk": {"storageAccountType": "Premium_LRS", "id": format!("{}/Microsoft.Compute/disks/data-{}", rgp(), k.rsplit('/').next().unwrap())}}]}}}))
            }
            "PATCH" => {
                let body: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
                s.patches.push(json!({"path": k, "body": body}));
                ResponseTemplate::new(200)
                    .set_body_json(json!({"properties": {"provisioningState": "Succeeded"}}))
            }
            "GET" if k.ends_with("/providers/microsoft.resources/deployments") => {
                let dep = format!("{}/microsoft.resources/deployments/{}", rgp(), DEPLOYMENT)
                    .to_ascii_lowercase();
                let value = if s.deleted.contains(&dep) {
                    vec![]
                } else {
                    vec![json!({
                        "id": format!("{}/Microsoft.Resources/deployments/{DEPLOYMENT}", rgp()),
                        "name": DEPLOYMENT,
                        "properties": {"provisioningState": if s.running { "Running" } else { "Succeeded" }, "timestamp": "2026-12-01T18:00:00Z",
                            "outputResources": output_ids().into_iter().map(|id| json!({"id": id})).collect::<Vec<_>>()}
                    })]
                };
                ResponseTemplate::new(200).set_body_json(json!({"value": value}))
            }
            "GET" => {
                if s.deleted
                    .iter()
                    .any(|d| k == *d || k.starts_with(&format!("{d}/")))
                {
                    not_found()
                } else {
                    ResponseTemplate::new(200)
                        .set_body_json(json!({"id": r.url.path(), "properties": {}}))
                }
            }
            "DELETE" => {
                s.deletes.push(k.clone());
                if let Some(q) = s
                    .fail
                    .iter_mut()
                    .find(|(suffix, _)| k.ends_with(suffix.as_str()))
                    .map(|(_, q)| q)
                    && !q.is_empty()
                {
                    return q.remove(0);
                }
                if s.deleted.contains(&k) {
                    return not_found();
                }
                s.deleted.insert(k.clone());
                if s.accepted.iter().any(|a| k.ends_with(a.as_str())) {
                    return ResponseTemplate::new(202)
                        .insert_header(
                            "Location",
                            format!(
                                "{}{}/operationResults/1?api-version=2025-04-01",
                                self.base,
                                r.url.path()
                            )
                            .as_str(),
                        )
                        .insert_header("Retry-After", "1");
                }
                ResponseTemplate::new(200)
            }
            _ => ResponseTemplate::new(405),
        }
    }
}

fn fake_group(fake: &FakeAzure) -> Arc<Mutex<State>> {
    let state = Arc::new(Mutex::new(State::default()));
    let g = Group {
        state: state.clone(),
        base: fake.base.clone(),
    };
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(&format!("resourcegroups/{RG}"))))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"id": format!("/subscriptions/{SUB}/resourceGroups/{RG}"), "name": RG, "location": "eastus2"}))),
    );
    fake.mount(
        Mock::given(path_regex(format!(
            r"^/subscriptions/{SUB}/(resourcegroups|resourceGroups)/{RG}/providers/.+$"
        )))
        .respond_with(g.clone())
        .with_priority(9),
    );
    // the soft-deleted vault
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(&format!("providers/Microsoft.KeyVault/locations/eastus2/deletedVaults/{VAULT}"))))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "id": format!("/subscriptions/{SUB}/providers/Microsoft.KeyVault/locations/eastus2/deletedVaults/{VAULT}"),
                "name": VAULT, "type": "Microsoft.KeyVault/deletedVaults",
                "properties": {"vaultId": format!("{}/Microsoft.KeyVault/vaults/{VAULT}", rgp()), "location": "eastus2",
                    "deletionDate": "2026-12-02T17:00:00Z", "scheduledPurgeDate": "2027-03-02T17:00:00Z", "purgeProtectionEnabled": true}
            }))),
    );
    state
}

fn destroy(fake: &FakeAzure) -> assert_cmd::Command {
    let mut c = fake.gpuform();
    c.arg("destroy").arg(spec()).args([
        "-g",
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

/// The DELETEs of resources (not polls), as `type/name` tails.
fn deleted_in_order(state: &Arc<Mutex<State>>) -> Vec<String> {
    state
        .lock()
        .unwrap()
        .deletes
        .iter()
        .filter(|d| !d.ends_with("/operationresults/1"))
        .cloned()
        .collect()
}

fn position(order: &[String], tail: &str) -> usize {
    let tail = tail.to_ascii_lowercase();
    order
        .iter()
        .position(|d| d.ends_with(&tail))
        .unwrap_or_else(|| panic!("{tail} was not deleted: {order:#?}"))
}

#[test]
fn destroy_deletes_in_order_follows_202_and_running_it_twice_is_fine() {
    let fake = FakeAzure::start();
    fake.mount_token();
    let state = fake_group(&fake);
    state
        .lock()
        .unwrap()
        .accepted
        .insert("virtualmachinescalesets/vmss-shortvideo-transcode".into());
    let t = Instant::now();
    let out = destroy(&fake).output().unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // the scale set's 202 + Retry-After: 1, polled once running and once done
    assert!(t.elapsed() >= Duration::from_secs(2), "{:?}", t.elapsed());
    let order = deleted_in_order(&state);
    let at = |t: &str| position(&order, t);
    for first in [
        "autoscalesettings/as-shortvideo-transcode",
        "metricalerts/alert-shortvideo-transcode-capacity-at-max",
        "budgets/budget-shortvideo-transcode",
        "diagnosticsettings/to-log-analytics",
        "roleassignments/11111111-0000-0000-0000-000000000001",
        "roleassignments/11111111-0000-0000-0000-000000000002",
    ] {
        assert!(
            at(first) < at("virtualmachinescalesets/vmss-shortvideo-transcode"),
            "{first}: {order:#?}"
        );
    }
    assert!(
        at("virtualmachinescalesets/vmss-shortvideo-transcode")
            < at("diskencryptionsets/des-shortvideo-transcode")
    );
    assert!(
        at("privateendpoints/pep-shortvideo-transcode-vault")
            < at("virtualnetworks/vnet-shortvideo-transcode")
    );
    assert!(
        at("virtualnetworks/vnet-shortvideo-transcode") < at("natgateways/ng-shortvideo-transcode")
    );
    assert!(
        at("natgateways/ng-shortvideo-transcode")
            < at("publicipaddresses/pip-shortvideo-transcode-nat")
    );
    let vault = at(&format!("vaults/{VAULT}"));
    assert!(
        order[..vault]
            .iter()
            .all(|d| !d.contains("/microsoft.resources/deployments/"))
    );
    // children go with their parents; other types and the group are left alone; the record goes last
    assert!(!order.iter().any(|d| d.ends_with("/subnets/workload")
        || d.ends_with("/keys/disk-cmk")
        || d.contains("virtualnetworklinks")));
    assert!(!order.iter().any(|d| d.contains("microsoft.web")));
    assert!(
        order
            .last()
            .unwrap()
            .ends_with(&format!("deployments/{DEPLOYMENT}").to_ascii_lowercase())
    );
    assert!(
        stderr.contains("will be deleted, in this order"),
        "{stderr}"
    );
    assert!(
        stderr
            .contains("everything else in rg-shortvideo-dev, and the group itself, is left alone"),
        "{stderr}"
    );
    assert!(
        stdout.starts_with("destroyed: 20 deleted, 0 already gone, 0 failed"),
        "{stdout}"
    );
    assert!(stdout.contains("cannot be purged"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "az keyvault recover --name {VAULT} --resource-group {RG}"
        )),
        "{stdout}"
    );
    assert!(stdout.contains("2027-03-02T17:00:00Z"), "{stdout}");

    // twice: nothing left, nothing deleted, still success
    let before = deleted_in_order(&state).len();
    let out = destroy(&fake).output().unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("nothing to destroy"), "{stdout}");
    assert_eq!(deleted_in_order(&state).len(), before);
}

#[test]
fn a_deletion_that_fails_half_way_is_resumed_by_running_destroy_again() {
    let fake = FakeAzure::start();
    fake.mount_token();
    let state = fake_group(&fake);
    // the scale set is busy (409) the first time
    state.lock().unwrap().fail.insert(
        "virtualmachinescalesets/vmss-shortvideo-transcode".into(),
        vec![ResponseTemplate::new(409).set_body_json(arm_error(
            "OperationNotAllowed",
            "Operation 'delete' is not allowed on VM scale set 'vmss-shortvideo-transcode' since another operation is in progress.",
        ))],
    );
    let out = destroy(&fake).output().unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stdout.starts_with(
            "destroy incomplete: 6 deleted, 0 already gone, 1 failed, 13 not attempted"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("OperationNotAllowed"), "{stdout}");
    assert!(stdout.contains("again to resume"), "{stdout}");
    let order = deleted_in_order(&state);
    assert!(
        !order
            .iter()
            .any(|d| d.contains("virtualnetworks") || d.contains("/deployments/")),
        "{order:#?}"
    );

    let out = destroy(&fake).output().unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // the six deleted before are seen as gone, and not deleted again
    assert!(
        stdout.starts_with("destroyed: 14 deleted, 6 already gone, 0 failed"),
        "{stdout}"
    );
    assert!(stderr.contains("(6 already gone)"), "{stderr}");
    let order = deleted_in_order(&state);
    assert_eq!(
        order
            .iter()
            .filter(|d| d.ends_with("autoscalesettings/as-shortvideo-transcode"))
            .count(),
        1
    );
}

#[test]
fn throttled_deletes_are_retried_after_retry_after() {
    let fake = FakeAzure::start();
    fake.mount_token();
    let state = fake_group(&fake);
    state.lock().unwrap().fail.insert(
        "autoscalesettings/as-shortvideo-transcode".into(),
        vec![
            ResponseTemplate::new(429)
                .insert_header("Retry-After", "1")
                .set_body_json(arm_error("TooManyRequests", "throttled")),
        ],
    );
    let t = Instant::now();
    let out = destroy(&fake).args(["--output", "json"]).output().unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(t.elapsed() >= Duration::from_millis(900));
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["succeeded"], true);
    assert_eq!(v["deleted"], 20);
    let order = deleted_in_order(&state);
    assert_eq!(
        order
            .iter()
            .filter(|d| d.ends_with("autoscalesettings/as-shortvideo-transcode"))
            .count(),
        2
    );
}

#[test]
fn a_running_deployment_stops_destroy_before_anything_is_deleted() {
    let fake = FakeAzure::start();
    fake.mount_token();
    let state = fake_group(&fake);
    state.lock().unwrap().running = true;
    let out = destroy(&fake).output().unwrap();
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("deployment {DEPLOYMENT} in {RG} is still Running")),
        "{stderr}"
    );
    assert!(stderr.contains("az deployment group cancel"), "{stderr}");
    assert!(deleted_in_order(&state).is_empty());
}

#[test]
fn keep_data_keeps_the_vault_and_detaches_the_instances_data_disks() {
    let fake = FakeAzure::start();
    fake.mount_token();
    let state = fake_group(&fake);
    let out = destroy(&fake).arg("--keep-data").output().unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let order = deleted_in_order(&state);
    let vault = format!("/vaults/{VAULT}").to_ascii_lowercase();
    assert!(
        !order.iter().any(|d| d.ends_with(&vault)
            || d.contains("diagnosticsettings")
            || d.contains("/keys/")),
        "{order:#?}"
    );
    assert!(
        stderr.contains(&format!("keep  Microsoft.KeyVault/vaults {VAULT}")),
        "{stderr}"
    );
    assert!(
        stdout.contains("2 kept and 2 data disks detached and kept"),
        "{stdout}"
    );
    // every instance's data disks were switched to Detach before the scale set was deleted
    let st = state.lock().unwrap();
    assert_eq!(st.patches.len(), 2);
    for p in &st.patches {
        assert_eq!(
            p["body"]["properties"]["storageProfile"]["dataDisks"][0]["deleteOption"], "Detach",
            "{p}"
        );
        assert_eq!(
            p["body"]["properties"]["storageProfile"]["dataDisks"][0]["lun"],
            0
        );
    }
    drop(st);
    // the role assignment on the vault (its identity goes) is deleted
    assert!(
        order
            .iter()
            .any(|d| d.ends_with("roleassignments/11111111-0000-0000-0000-000000000001"))
    );
}

#[test]
fn without_a_terminal_destroy_needs_yes() {
    let fake = FakeAzure::start();
    let out = fake
        .gpuform()
        .arg("destroy")
        .arg(spec())
        .args(["-g", RG])
        .output()
        .unwrap();
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("pass --yes"), "{stderr}");
    assert!(fake.requests().is_empty());
}
