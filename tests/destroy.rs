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
        format!(
            "{p}/Microsoft.Network/privateEndpoints/pep-shortvideo-transcode-vault/privateDnsZoneGroups/default"
        ),
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
    /// DELETEs Azure would refuse (a zone with links, a VNet in use), in order
    refused: Vec<String>,
    /// path suffix → the DELETE answers 202 + Azure-AsyncOperation (a subscription-level
    /// operation status: InProgress once, then Succeeded)
    async_ops: HashSet<String>,
    /// PATCH bodies of VMs (the data disks' deleteOption)
    patches: Vec<Value>,
    /// the dev box's data disk has deleteOption Delete (changed by hand)
    data_disk_deleted_with_vm: bool,
}

/// What the fake group holds: its name, the spec's deployment and its output resources; for a
/// dev box, the VM's name (its GET answers the VM with the disks it created).
#[derive(Clone)]
struct Fixture {
    rg: &'static str,
    deployment: &'static str,
    outputs: Vec<String>,
    devbox_vm: Option<&'static str>,
}

fn shortvideo() -> Fixture {
    Fixture {
        rg: RG,
        deployment: DEPLOYMENT,
        outputs: output_ids(),
        devbox_vm: None,
    }
}

#[derive(Clone)]
struct Group {
    state: Arc<Mutex<State>>,
    base: String,
    fx: Fixture,
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
        let rgp = format!(
            "/subscriptions/{SUB}/resourceGroups/{}/providers",
            self.fx.rg
        );
        let vm_ids: Vec<String> = (0..2)
            .map(|i| {
                format!("{rgp}/Microsoft.Compute/virtualMachines/vmss-shortvideo-transcode_{i:08x}")
            })
            .collect();
        let gone = |s: &State| {
            s.deleted
                .iter()
                .any(|d| k == *d || k.starts_with(&format!("{d}/")))
        };
        match r.method.as_str() {
            // the scale set's instances (Flexible: the virtualMachines list, filtered)
            "GET" if k.ends_with("/providers/microsoft.compute/virtualmachines") => {
                let value: Vec<Value> = vm_ids
                    .iter()
                    .map(|id| json!({"id": id, "name": id.rsplit('/').next(), "properties": {}}))
                    .collect();
                ResponseTemplate::new(200).set_body_json(json!({"value": value}))
            }
            "GET" if k.contains("/microsoft.compute/virtualmachines/") && gone(&s) => not_found(),
            // the dev box's VM (VirtualMachines_Get): the OS and data disk it created (FromImage,
            // Empty; deleteOption Detach as the template renders) and one attached by hand
            "GET"
                if self.fx.devbox_vm.is_some_and(|vm| {
                    k.ends_with(&format!("/microsoft.compute/virtualmachines/{vm}"))
                }) =>
            {
                let vm = self.fx.devbox_vm.unwrap();
                let mut body = devbox_vm(&rgp, vm);
                if s.data_disk_deleted_with_vm {
                    body["properties"]["storageProfile"]["dataDisks"][0]["deleteOption"] =
                        json!("Delete");
                }
                ResponseTemplate::new(200).set_body_json(body)
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
                        "managedDisk": {"storageAccountType": "Premium_LRS", "id": format!("{rgp}/Microsoft.Compute/disks/data-{}", k.rsplit('/').next().unwrap())}}]}}}))
            }
            "PATCH" => {
                let body: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
                s.patches.push(json!({"path": k, "body": body}));
                ResponseTemplate::new(200)
                    .set_body_json(json!({"properties": {"provisioningState": "Succeeded"}}))
            }
            "GET" if k.ends_with("/providers/microsoft.resources/deployments") => {
                let dep = format!(
                    "{rgp}/microsoft.resources/deployments/{}",
                    self.fx.deployment
                )
                .to_ascii_lowercase();
                let value = if s.deleted.contains(&dep) {
                    vec![]
                } else {
                    vec![json!({
                        "id": format!("{rgp}/Microsoft.Resources/deployments/{}", self.fx.deployment),
                        "name": self.fx.deployment,
                        "properties": {"provisioningState": if s.running { "Running" } else { "Succeeded" }, "timestamp": "2026-12-01T18:00:00Z",
                            "outputResources": self.fx.outputs.iter().map(|id| json!({"id": id})).collect::<Vec<_>>()}
                    })]
                };
                ResponseTemplate::new(200).set_body_json(json!({"value": value}))
            }
            "GET" => {
                if gone(&s) {
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
                if gone(&s) {
                    return not_found();
                }
                // Azure refuses a zone while its links exist, a VNet while NICs use it
                let remaining: Vec<String> = self
                    .fx
                    .outputs
                    .iter()
                    .map(|o| o.to_ascii_lowercase())
                    .filter(|o| {
                        *o != k
                            && !s
                                .deleted
                                .iter()
                                .any(|d| o == d || o.starts_with(&format!("{d}/")))
                    })
                    .collect();
                if let Some(refusal) = delete_refusal(&k, &remaining) {
                    s.refused.push(k.clone());
                    return refusal;
                }
                s.deleted.insert(k.clone());
                if s.async_ops.iter().any(|a| k.ends_with(a.as_str())) {
                    // as Microsoft.Network answers: the operation status URL, and a Location
                    // that is not to be followed when Azure-AsyncOperation is there
                    return ResponseTemplate::new(202)
                        .insert_header(
                            "Azure-AsyncOperation",
                            format!(
                                "{}/subscriptions/{SUB}/providers/Microsoft.Network/locations/eastus2/operations/op-1?api-version=2024-05-01",
                                self.base
                            )
                            .as_str(),
                        )
                        .insert_header(
                            "Location",
                            format!(
                                "{}/subscriptions/{SUB}/providers/Microsoft.Network/locations/eastus2/operationResults/op-1?api-version=2024-05-01",
                                self.base
                            )
                            .as_str(),
                        )
                        .insert_header("Retry-After", "1");
                }
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
    fake_group_of(fake, shortvideo())
}

fn fake_group_of(fake: &FakeAzure, fx: Fixture) -> Arc<Mutex<State>> {
    let state = Arc::new(Mutex::new(State::default()));
    let rg = fx.rg;
    let g = Group {
        state: state.clone(),
        base: fake.base.clone(),
        fx,
    };
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(&format!("resourcegroups/{rg}"))))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"id": format!("/subscriptions/{SUB}/resourceGroups/{rg}"), "name": rg, "location": "eastus2"}))),
    );
    fake.mount(
        Mock::given(path_regex(format!(
            // case-insensitive: ARM writes the group in upper case in some ids (disk ids)
            r"(?i)^/subscriptions/{SUB}/resourcegroups/{rg}/providers/.+$"
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
    destroy_of(fake, &spec(), RG)
}

fn destroy_of(fake: &FakeAzure, spec: &std::path::Path, rg: &str) -> assert_cmd::Command {
    let mut c = fake.gpuform();
    c.arg("destroy").arg(spec).args([
        "-g",
        rg,
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
    let fake = FakeArm::new().start();
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
    // Azure refuses a private DNS zone while its links exist (409 CannotDeleteResource): the
    // link goes first; the endpoint's zone group goes with the endpoint (its records follow the
    // endpoint's lifecycle: facts::deletion), so it is not deleted on its own; nothing was refused
    assert!(
        at("virtualnetworklinks/link-vnet-shortvideo-transcode")
            < at("privatednszones/privatelink.vaultcore.azure.net")
    );
    assert!(
        !order.iter().any(|d| d.contains("privatednszonegroups")),
        "{order:#?}"
    );
    assert!(
        state.lock().unwrap().refused.is_empty(),
        "{:?}",
        state.lock().unwrap().refused
    );
    // children go with their parents; other types and the group are left alone; the record goes last
    assert!(
        !order
            .iter()
            .any(|d| d.ends_with("/subnets/workload") || d.ends_with("/keys/disk-cmk"))
    );
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
        stdout.starts_with("destroyed: 21 deleted, 0 already gone, 0 failed"),
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
    let fake = FakeArm::new().start();
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
            "destroy incomplete: 6 deleted, 0 already gone, 1 failed, 14 not attempted"
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
        stdout.starts_with("destroyed: 15 deleted, 6 already gone, 0 failed"),
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
    let fake = FakeArm::new().start();
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
    assert_eq!(v["deleted"], 21);
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
    let fake = FakeArm::new().start();
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
    let fake = FakeArm::new().start();
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
    // without --yes and without a terminal: a dry run that lists what would go, deletes
    // nothing, and exits 2 as before
    let fake = FakeArm::new().start();
    let state = fake_group(&fake);
    let c = destroy(&fake);
    let args: Vec<std::ffi::OsString> = c
        .get_args()
        .filter(|a| *a != "--yes")
        .map(|a| a.to_os_string())
        .collect();
    let mut c = fake.gpuform();
    c.args(&args);
    let out = c.output().unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stdout.starts_with(&format!("dry run: 21 resources would be deleted from {RG}; nothing was deleted. To delete them:\n  gpuform destroy ")),
        "{stdout}"
    );
    assert!(stdout.contains(" --yes\n"), "{stdout}");
    assert!(
        stderr.contains("will be deleted, in this order"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "Microsoft.Network/privateDnsZones/virtualNetworkLinks link-vnet-shortvideo-transcode"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("a dry run; nothing was deleted"),
        "{stderr}"
    );
    assert!(state.lock().unwrap().deletes.is_empty());
    assert!(
        fake.requests()
            .iter()
            .all(|r| r.method.as_str() != "DELETE" && r.method.as_str() != "PATCH")
    );
    // JSON: the list, in order
    let mut c = fake.gpuform();
    c.args(&args).args(["--output", "json"]);
    let out = c.output().unwrap();
    let (stdout, _) = texts(&out);
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["dryRun"], true);
    assert_eq!(v["deleted"], 0);
    let would = v["wouldDelete"].as_array().unwrap();
    assert_eq!(would.len(), 21);
    assert_eq!(would[0]["stage"], 0);
    assert_eq!(would.last().unwrap()["type"], "Microsoft.KeyVault/vaults");
}

// ---------------------------------------------------------------------------------------------
// A dev box (examples/dev-notebook-t4.yaml with one data disk): a standalone VM with its own NIC
// in the workload subnet, a shutdown schedule, a Logic App that starts it, extensions and a data
// collection rule association on it. Its OS and data disks are created by the VM (deleteOption
// Detach), so they are not among the deployment's output resources.

const DEV_RG: &str = "rg-dev-notebook";
const DEV_DEPLOYMENT: &str = "dev-notebook-4e5f6a7b";
const DEV_VM: &str = "vm-dev-notebook";
const DEV_VAULT: &str = "kv-dev-notebook-q3m9";

fn dev_rgp() -> String {
    format!("/subscriptions/{SUB}/resourceGroups/{DEV_RG}/providers")
}

/// The spec: the example with one data disk (lun 0, so the template names it
/// `datadisk-vm-dev-notebook-0`).
fn dev_spec(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let text = std::fs::read_to_string(examples("dev-notebook-t4.yaml")).unwrap();
    let (head, tail) = text.split_once("    sshPublicKey:").unwrap();
    let with_disk = format!(
        "{head}    dataDisks: [{{sizeGiB: 256, type: Premium_LRS}}]\n    sshPublicKey:{tail}"
    );
    let p = dir.path().join("dev-notebook.yaml");
    std::fs::write(&p, with_disk).unwrap();
    p
}

/// The dev box deployment's output resources (as the rendered template declares them; children
/// and extension resources included).
fn dev_output_ids() -> Vec<String> {
    let p = dev_rgp();
    let vm = format!("{p}/Microsoft.Compute/virtualMachines/{DEV_VM}");
    let vault = format!("{p}/Microsoft.KeyVault/vaults/{DEV_VAULT}");
    let dcr = format!("{p}/Microsoft.Insights/dataCollectionRules/dcr-dev-notebook-gpu");
    let zone = format!("{p}/Microsoft.Network/privateDnsZones/privatelink.vaultcore.azure.net");
    let mut ids = vec![
        format!("{p}/Microsoft.Network/networkSecurityGroups/nsg-dev-notebook-workload"),
        format!("{p}/Microsoft.Network/networkSecurityGroups/nsg-dev-notebook-private-endpoints"),
        format!("{p}/Microsoft.Network/publicIPAddresses/pip-dev-notebook-nat"),
        format!("{p}/Microsoft.Network/natGateways/ng-dev-notebook"),
        format!("{p}/Microsoft.Network/virtualNetworks/vnet-dev-notebook"),
        format!("{p}/Microsoft.Network/virtualNetworks/vnet-dev-notebook/subnets/workload"),
        format!(
            "{p}/Microsoft.Network/virtualNetworks/vnet-dev-notebook/subnets/private-endpoints"
        ),
        format!("{p}/Microsoft.ManagedIdentity/userAssignedIdentities/id-dev-notebook"),
        format!(
            "{vault}/providers/Microsoft.Authorization/roleAssignments/22222222-0000-0000-0000-000000000001"
        ),
        format!(
            "{dcr}/providers/Microsoft.Authorization/roleAssignments/22222222-0000-0000-0000-000000000002"
        ),
        vault.clone(),
        zone.clone(),
        format!("{zone}/virtualNetworkLinks/link-vnet-dev-notebook"),
        format!("{p}/Microsoft.Network/privateEndpoints/pep-dev-notebook-vault"),
        format!(
            "{p}/Microsoft.Network/privateEndpoints/pep-dev-notebook-vault/privateDnsZoneGroups/default"
        ),
        format!("{p}/Microsoft.Network/networkInterfaces/nic-{DEV_VM}"),
        vm.clone(),
    ];
    for e in [
        "NvidiaGpuDriverLinux",
        "GpuCollector",
        "AzureMonitorLinuxAgent",
        "HealthExtension",
    ] {
        ids.push(format!("{vm}/extensions/{e}"));
    }
    ids.extend([
        format!("{p}/Microsoft.DevTestLab/schedules/shutdown-computevm-{DEV_VM}"),
        format!("{p}/Microsoft.Logic/workflows/logic-dev-notebook-start"),
        format!("{vm}/providers/Microsoft.Authorization/roleAssignments/22222222-0000-0000-0000-000000000003"),
        format!("{p}/Microsoft.OperationalInsights/workspaces/log-dev-notebook"),
        format!("{vault}/providers/Microsoft.Insights/diagnosticSettings/to-log-analytics"),
        format!("{p}/Microsoft.Insights/actionGroups/ag-dev-notebook"),
        format!("{p}/Microsoft.Consumption/budgets/budget-dev-notebook"),
        format!("{p}/Microsoft.OperationalInsights/workspaces/log-dev-notebook/tables/GpuTelemetry_CL"),
        format!("{p}/Microsoft.Insights/dataCollectionEndpoints/dce-dev-notebook"),
        dcr.clone(),
        format!("{vm}/providers/Microsoft.Insights/dataCollectionRuleAssociations/gpu-telemetry"),
        format!("{p}/Microsoft.Insights/scheduledQueryRules/alert-dev-notebook-gpu-idle"),
        format!("{p}/Microsoft.Insights/scheduledQueryRules/alert-dev-notebook-gpu-vram"),
        format!("{p}/Microsoft.Insights/scheduledQueryRules/alert-dev-notebook-gpu-faults"),
        format!("{p}/Microsoft.Insights/workbooks/3f2b8a4c-5d6e-4f70-8a9b-0c1d2e3f4a5b"),
    ]);
    ids
}

/// `GET virtualMachines/{vm}` (Compute VirtualMachines_Get shape): the OS disk (FromImage) and
/// data disk (Empty) the VM created, `deleteOption: Detach` as the template renders them, and a
/// disk attached by hand (Attach). ARM writes the group in upper case in the disk ids.
fn devbox_vm(rgp: &str, vm: &str) -> Value {
    let disks = format!(
        "/subscriptions/{SUB}/resourceGroups/{}/providers/Microsoft.Compute/disks",
        DEV_RG.to_ascii_uppercase()
    );
    json!({
        "name": vm, "id": format!("{rgp}/Microsoft.Compute/virtualMachines/{vm}"),
        "type": "Microsoft.Compute/virtualMachines", "location": "westeurope",
        "identity": {"type": "UserAssigned"},
        "properties": {
            "vmId": "0f47b100-583c-48e3-a4c0-aefc2c9bbcc1",
            "hardwareProfile": {"vmSize": "Standard_NC4as_T4_v3"},
            "storageProfile": {
                "imageReference": {"publisher": "Canonical", "offer": "0001-com-ubuntu-server-jammy", "sku": "22_04-lts-gen2", "version": "latest", "exactVersion": "22.04.202611120"},
                "osDisk": {"osType": "Linux", "name": format!("osdisk-{vm}"), "createOption": "FromImage", "caching": "ReadWrite",
                    "managedDisk": {"storageAccountType": "Premium_LRS", "id": format!("{disks}/osdisk-{vm}")},
                    "deleteOption": "Detach", "diskSizeGB": 128},
                "dataDisks": [
                    {"lun": 0, "name": format!("datadisk-{vm}-0"), "createOption": "Empty", "caching": "ReadOnly",
                        "managedDisk": {"storageAccountType": "Premium_LRS", "id": format!("{disks}/datadisk-{vm}-0")},
                        "deleteOption": "Detach", "diskSizeGB": 256, "toBeDetached": false},
                    {"lun": 5, "name": "scratch-from-snapshot", "createOption": "Attach", "caching": "None",
                        "managedDisk": {"storageAccountType": "StandardSSD_LRS", "id": format!("{disks}/scratch-from-snapshot")},
                        "deleteOption": "Detach", "diskSizeGB": 64, "toBeDetached": false}
                ],
                "diskControllerType": "SCSI"
            },
            "networkProfile": {"networkInterfaces": [{"id": format!("{rgp}/Microsoft.Network/networkInterfaces/nic-{vm}"), "properties": {"primary": true, "deleteOption": "Detach"}}]},
            "provisioningState": "Succeeded"
        }
    })
}

fn dev_group(fake: &FakeAzure) -> Arc<Mutex<State>> {
    fake_group_of(
        fake,
        Fixture {
            rg: DEV_RG,
            deployment: DEV_DEPLOYMENT,
            outputs: dev_output_ids(),
            devbox_vm: Some(DEV_VM),
        },
    )
}

fn count(order: &[String], tail: &str) -> usize {
    let tail = tail.to_ascii_lowercase();
    order.iter().filter(|d| d.ends_with(&tail)).count()
}

#[test]
fn a_dev_box_is_destroyed_in_an_order_azure_accepts_and_its_disks_go_after_the_vm() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dev_spec(&dir);
    let fake = FakeArm::new().start();
    let state = dev_group(&fake);
    state
        .lock()
        .unwrap()
        .accepted
        .insert(format!("virtualmachines/{DEV_VM}"));
    let out = destroy_of(&fake, &spec, DEV_RG).output().unwrap();
    show(&out);
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let order = deleted_in_order(&state);
    let at = |t: &str| position(&order, t);
    let vm = at(&format!("virtualmachines/{DEV_VM}"));
    // nothing starts the VM (or acts on it) while it goes
    for first in [
        format!("schedules/shutdown-computevm-{DEV_VM}"),
        "workflows/logic-dev-notebook-start".into(),
        "roleassignments/22222222-0000-0000-0000-000000000003".into(),
        "datacollectionruleassociations/gpu-telemetry".into(),
    ] {
        assert!(at(&first) < vm, "{first}: {order:#?}");
    }
    // the VM, then its NIC and the disks it created, then the network: a VNet whose subnet
    // holds a NIC cannot be deleted (InUseSubnetCannotBeDeleted)
    let nic = at(&format!("networkinterfaces/nic-{DEV_VM}"));
    let os_disk = at(&format!("disks/osdisk-{DEV_VM}"));
    let data_disk = at(&format!("disks/datadisk-{DEV_VM}-0"));
    assert!(vm < nic && vm < os_disk && vm < data_disk, "{order:#?}");
    let vnet = at("virtualnetworks/vnet-dev-notebook");
    assert!(nic < vnet, "{order:#?}");
    assert!(nic < at("privateendpoints/pep-dev-notebook-vault"));
    assert!(vnet < at("networksecuritygroups/nsg-dev-notebook-workload"));
    assert!(vnet < at("natgateways/ng-dev-notebook"));
    assert!(os_disk < at(&format!("vaults/{DEV_VAULT}")));
    // each deleted once; the extensions go with the VM; the disk attached by hand stays
    assert_eq!(count(&order, &format!("disks/osdisk-{DEV_VM}")), 1);
    assert_eq!(count(&order, &format!("disks/datadisk-{DEV_VM}-0")), 1);
    assert!(
        !order.iter().any(|d| d.contains("/extensions/")),
        "{order:#?}"
    );
    assert!(!order.iter().any(|d| d.contains("scratch-from-snapshot")));
    assert!(
        stderr.contains("left alone: disk scratch-from-snapshot"),
        "{stderr}"
    );
    // shown with the group as the user spells it (ARM writes it in upper case in disk ids)
    assert!(
        stderr.contains(&format!(
            "Microsoft.Compute/disks osdisk-{DEV_VM} ({DEV_RG})"
        )),
        "{stderr}"
    );
    // the subnets (declared inline in the VNet) go with it like the other children; the zone
    // link is deleted before its zone; the endpoint's zone group goes with the endpoint
    assert!(
        stderr.contains("(8 child resources go with their parents)"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("types the spec does not declare"),
        "{stderr}"
    );
    // Disks - Delete at a DiskRP api-version (the template declares no disk to take it from)
    let disk_deletes: Vec<String> = fake
        .requests()
        .iter()
        .filter(|r| {
            r.method.as_str() == "DELETE"
                && r.url
                    .path()
                    .to_ascii_lowercase()
                    .contains("/microsoft.compute/disks/")
        })
        .map(|r| r.url.query().unwrap_or_default().to_string())
        .collect();
    assert_eq!(disk_deletes, ["api-version=2025-01-02"; 2]);
    // 28 of the deployment's resources (8 children go with their parents) and 2 disks
    assert!(
        stdout.starts_with("destroyed: 30 deleted, 0 already gone, 0 failed, 0 not attempted"),
        "{stdout}"
    );
    assert!(
        order
            .last()
            .unwrap()
            .ends_with(&format!("deployments/{DEV_DEPLOYMENT}").to_ascii_lowercase())
    );
}

#[test]
fn a_dev_box_destroy_that_stops_after_the_vm_deletes_the_rest_of_its_disks_next_time() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dev_spec(&dir);
    let fake = FakeArm::new().start();
    let state = dev_group(&fake);
    // the OS disk is still being released by the deleted VM the first time
    state.lock().unwrap().fail.insert(
        format!("disks/osdisk-{DEV_VM}"),
        vec![ResponseTemplate::new(409).set_body_json(arm_error(
            "OperationNotAllowed",
            &format!("Disk osdisk-{DEV_VM} is attached to VM {}/Microsoft.Compute/virtualMachines/{DEV_VM}.", dev_rgp()),
        ))],
    );
    let out = destroy_of(&fake, &spec, DEV_RG).output().unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stdout.contains("failed: Microsoft.Compute/disks osdisk-"),
        "{stdout}"
    );
    let order = deleted_in_order(&state);
    assert_eq!(count(&order, &format!("virtualmachines/{DEV_VM}")), 1);
    assert_eq!(count(&order, &format!("disks/datadisk-{DEV_VM}-0")), 1);
    assert!(
        !order.iter().any(|d| d.contains("virtualnetworks")),
        "{order:#?}"
    );

    // again: the VM is gone, so the disks the template names are looked up; the data disk is
    // gone already (done), the OS disk is deleted now, then the rest
    let out = destroy_of(&fake, &spec, DEV_RG).output().unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}\n{stdout}");
    let order = deleted_in_order(&state);
    assert_eq!(count(&order, &format!("virtualmachines/{DEV_VM}")), 1);
    assert_eq!(count(&order, &format!("disks/osdisk-{DEV_VM}")), 2);
    assert_eq!(count(&order, &format!("disks/datadisk-{DEV_VM}-0")), 1);
    assert!(!order.iter().any(|d| d.contains("scratch-from-snapshot")));
    let os_disk_again = order
        .iter()
        .rposition(|d| d.ends_with(&format!("disks/osdisk-{DEV_VM}")))
        .unwrap();
    assert!(
        position(&order, "virtualnetworks/vnet-dev-notebook") > os_disk_again,
        "{order:#?}"
    );
    assert!(stdout.starts_with("destroyed: "), "{stdout}");

    // and a third time: nothing left
    let out = destroy_of(&fake, &spec, DEV_RG).output().unwrap();
    let (stdout, _) = texts(&out);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout.contains("nothing to destroy"), "{stdout}");
}

#[test]
fn keep_data_keeps_a_dev_boxs_disks_and_deletes_the_vm() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dev_spec(&dir);
    let fake = FakeArm::new().start();
    let state = dev_group(&fake);
    let out = destroy_of(&fake, &spec, DEV_RG)
        .arg("--keep-data")
        .output()
        .unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let order = deleted_in_order(&state);
    assert!(
        !order
            .iter()
            .any(|d| d.contains("/microsoft.compute/disks/")),
        "{order:#?}"
    );
    assert_eq!(count(&order, &format!("virtualmachines/{DEV_VM}")), 1);
    assert!(
        position(&order, &format!("networkinterfaces/nic-{DEV_VM}"))
            < position(&order, "virtualnetworks/vnet-dev-notebook")
    );
    for disk in [format!("osdisk-{DEV_VM}"), format!("datadisk-{DEV_VM}-0")] {
        assert!(
            stderr.contains(&format!(
                "keep  Microsoft.Compute/disks {disk} ({DEV_RG}) (--keep-data)"
            )),
            "{stderr}"
        );
    }
    // the vault, its diagnostic setting and the two disks
    assert!(stdout.contains(", 4 kept"), "{stdout}");
}

#[test]
fn keep_data_stops_before_anything_goes_when_deleting_the_vm_would_delete_a_disk() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dev_spec(&dir);
    let fake = FakeArm::new().start();
    let state = dev_group(&fake);
    state.lock().unwrap().data_disk_deleted_with_vm = true;
    let out = destroy_of(&fake, &spec, DEV_RG)
        .arg("--keep-data")
        .output()
        .unwrap();
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "deleting the VM would delete its disk datadisk-{DEV_VM}-0 (deleteOption Delete"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("nothing was deleted"), "{stderr}");
    assert!(deleted_in_order(&state).is_empty());
    // without --keep-data the disk goes (with the VM, or after it: 404/204 is done)
    let out = destroy_of(&fake, &spec, DEV_RG).output().unwrap();
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

/// Every parent/child type pair the rendered templates declare (every example and every variant:
/// their golden templates), deleted in gpuform's order against the fake's rules written from
/// Azure's sources ([`AZURE_CHILDREN`], [`delete_refusal`]): nothing is refused, and everything
/// goes (deleted, or with a parent that takes it along).
#[test]
fn every_parent_child_pair_of_every_rendered_template_goes_in_an_order_azure_accepts() {
    use gpuform::azure::operate::{DeploymentRecord, RecordProperties, ResourceId};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/render");
    let mut pairs_seen = std::collections::BTreeSet::new();
    let mut templates = 0;
    for dir in std::fs::read_dir(&root).unwrap() {
        let file = dir.unwrap().path().join("azuredeploy.json");
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        templates += 1;
        let template: Value = serde_json::from_str(&text).unwrap();
        let apis = gpuform::destroy::api_versions(&template);
        // one resource of each declared type, children under a parent of the same name
        let p = format!("/subscriptions/{SUB}/resourceGroups/rg/providers");
        let mut ids: Vec<String> = Vec::new();
        for ty in apis.keys() {
            let segs: Vec<&str> = ty.split('/').collect();
            let mut id = format!("{p}/{}", segs[0]);
            for s in &segs[1..] {
                id.push_str(&format!("/{s}/x"));
            }
            ids.push(id);
            if segs.len() > 2 {
                let parent = segs[..segs.len() - 1].join("/");
                pairs_seen.insert((parent, ty.clone()));
            }
        }
        // ARM lists a VNet's inline subnets among the output resources too
        if apis.contains_key("microsoft.network/virtualnetworks") {
            ids.push(format!(
                "{p}/microsoft.network/virtualnetworks/x/subnets/workload"
            ));
            pairs_seen.insert((
                "microsoft.network/virtualnetworks".to_string(),
                "microsoft.network/virtualnetworks/subnets".to_string(),
            ));
        }
        let record = DeploymentRecord {
            name: "x-0a1b2c3d".into(),
            properties: RecordProperties {
                output_resources: ids.iter().map(|id| ResourceId { id: id.clone() }).collect(),
                ..Default::default()
            },
        };
        let inv = gpuform::destroy::inventory(&[&record], &apis, false);
        let mut remaining: Vec<String> = ids.iter().map(|i| i.to_ascii_lowercase()).collect();
        for t in &inv.delete {
            let k = t.id.to_ascii_lowercase();
            let others: Vec<String> = remaining.iter().filter(|r| **r != k).cloned().collect();
            assert!(
                delete_refusal(&k, &others).is_none(),
                "{}: Azure refuses to delete {k} while {others:#?} exist",
                file.display()
            );
            // gone, with what Azure deletes along with it
            remaining.retain(|r| *r != k && !r.starts_with(&format!("{k}/")));
        }
        assert!(
            remaining.is_empty(),
            "{}: left behind {remaining:#?}",
            file.display()
        );
    }
    assert!(templates >= 20, "{templates} golden templates");
    // each pair has an answer from Azure's sources (the fake) and one in gpuform's facts
    for (parent, child) in &pairs_seen {
        assert!(
            AZURE_CHILDREN
                .iter()
                .any(|(p, c, _)| p == parent && c == child),
            "{child}: what does Azure do with it when its parent {parent} is deleted? Add it to AZURE_CHILDREN (tests/common) with a source"
        );
        let fact = gpuform::facts::deletion::child_rule(child)
            .unwrap_or_else(|| panic!("{child}: not in src/facts/deletion.rs"));
        assert!(fact.parent.eq_ignore_ascii_case(parent), "{child}");
    }
    assert!(
        pairs_seen.contains(&(
            "microsoft.network/privatednszones".to_string(),
            "microsoft.network/privatednszones/virtualnetworklinks".to_string()
        )),
        "{pairs_seen:?}"
    );
}

/// Done-when of issue 21: a pool spec with a private endpoint (its vault's DNS zone, link and
/// zone group) is destroyed completely in one run against a fake that refuses out-of-order
/// deletes, through one 409 AnotherOperationInProgress and one 429; a 204 is "already gone",
/// and a 202 with Azure-AsyncOperation is polled there (not at its Location) until Succeeded.
#[test]
fn a_pool_with_a_private_endpoint_is_destroyed_in_one_run_through_a_409_and_a_429() {
    let fake = FakeArm::new().start();
    let state = fake_group(&fake);
    {
        let mut s = state.lock().unwrap();
        s.fail.insert(
            "natgateways/ng-shortvideo-transcode".into(),
            vec![ResponseTemplate::new(409).set_body_json(arm_error(
                "AnotherOperationInProgress",
                "Another operation on this or dependent resource is in progress. To retrieve status of the operation use uri: https://management.azure.com/subscriptions/x/providers/Microsoft.Network/locations/eastus2/operations/op-0?api-version=2024-05-01.",
            ))],
        );
        s.fail.insert(
            "privatednszones/privatelink.vaultcore.azure.net".into(),
            vec![
                ResponseTemplate::new(429)
                    .insert_header("Retry-After", "1")
                    .set_body_json(arm_error("TooManyRequests", "throttled")),
            ],
        );
        // the identity was deleted by hand: DELETE answers 204 No Content
        s.fail.insert(
            "userassignedidentities/id-shortvideo-transcode".into(),
            vec![ResponseTemplate::new(204)],
        );
        s.async_ops
            .insert("virtualnetworks/vnet-shortvideo-transcode".into());
    }
    let polls = seq(vec![
        ResponseTemplate::new(200)
            .insert_header("Retry-After", "1")
            .set_body_json(json!({"status": "InProgress"})),
        ResponseTemplate::new(200).set_body_json(json!({"status": "Succeeded"})),
    ]);
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(
                "providers/Microsoft.Network/locations/eastus2/operations/op-1",
            )))
            .respond_with(polls),
    );
    let out = destroy(&fake).args(["--output", "json"]).output().unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}\n{stdout}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["succeeded"], true, "{stdout}");
    assert_eq!(
        (
            v["deleted"].as_u64(),
            v["alreadyGone"].as_u64(),
            v["failed"].as_u64()
        ),
        (Some(20), Some(1), Some(0)),
        "{stdout}"
    );
    let result = |tail: &str| {
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| {
                r["id"]
                    .as_str()
                    .unwrap()
                    .to_ascii_lowercase()
                    .ends_with(tail)
            })
            .map(|r| r["result"].as_str().unwrap().to_string())
            .unwrap_or_else(|| panic!("{tail}: {stdout}"))
    };
    assert_eq!(
        result("userassignedidentities/id-shortvideo-transcode"),
        "alreadyGone"
    );
    assert_eq!(result("natgateways/ng-shortvideo-transcode"), "deleted");
    assert_eq!(
        result("privatednszones/privatelink.vaultcore.azure.net"),
        "deleted"
    );
    assert!(
        stderr.contains("userAssignedIdentities id-shortvideo-transcode was already gone"),
        "{stderr}"
    );
    assert!(
        stderr.contains("ng-shortvideo-transcode: another operation on it is in progress (AnotherOperationInProgress); trying again in"),
        "{stderr}"
    );
    // nothing refused; the NAT gateway twice (409, then deleted), the zone twice (429, then deleted)
    let s = state.lock().unwrap();
    assert!(s.refused.is_empty(), "{:?}", s.refused);
    let n = |tail: &str| s.deletes.iter().filter(|d| d.ends_with(tail)).count();
    assert_eq!(n("natgateways/ng-shortvideo-transcode"), 2);
    assert_eq!(n("privatednszones/privatelink.vaultcore.azure.net"), 2);
    // everything the deployment created is gone, and the record after it
    for id in output_ids().iter().filter(|i| !i.contains("Microsoft.Web")) {
        let k = id.to_ascii_lowercase();
        assert!(
            s.deleted
                .iter()
                .any(|d| k == *d || k.starts_with(&format!("{d}/")))
                || k.ends_with("id-shortvideo-transcode"),
            "{id} is left"
        );
    }
    assert!(s.deleted.contains(&format!("/subscriptions/{SUB}/resourcegroups/{RG}/providers/microsoft.resources/deployments/{DEPLOYMENT}").to_ascii_lowercase()));
    drop(s);
    // the async operation was polled at Azure-AsyncOperation until Succeeded, never at Location
    let reqs = fake.requests();
    let at = |p: &str| reqs.iter().filter(|r| r.url.path().ends_with(p)).count();
    assert_eq!(at("/operations/op-1"), 2);
    assert_eq!(at("/operationResults/op-1"), 0);
}

/// A deployment a failover placed in `<RG>-westus3` (the `-g` group holds none): destroy follows
/// it there, deletes what it created, and leaves the group, saying how to remove it once empty.
#[test]
fn a_destroy_that_followed_a_failover_leaves_the_group_and_says_how_to_remove_it() {
    const WEST: &str = "rg-shortvideo-dev-westus3";
    let fake = FakeArm::new().start();
    let fx = Fixture {
        rg: WEST,
        outputs: output_ids()
            .into_iter()
            .map(|id| {
                id.replace(
                    &format!("/resourceGroups/{RG}/"),
                    &format!("/resourceGroups/{WEST}/"),
                )
            })
            .collect(),
        ..shortvideo()
    };
    let state = fake_group_of(&fake, fx);
    let out = destroy(&fake).arg("--output").arg("json").output().unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["resourceGroup"], WEST, "{stdout}");
    assert!(!deleted_in_order(&state).is_empty());
    // no group was deleted: neither the one given nor the one followed
    assert!(
        fake.requests().iter().all(|r| r.method.as_str() != "DELETE"
            || r.url.path().to_ascii_lowercase().contains("/providers/")),
        "a resource group was deleted"
    );
    let notes: Vec<&str> = v["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        notes.iter().any(|n| n.starts_with(&format!(
            "{WEST} is the group a failover deploy placed the spec in (from {RG})"
        )) && n.contains(&format!("`az group delete -n {WEST}`"))),
        "{notes:#?}"
    );
    // as given (--no-follow), the group a failover created is not named
    let fake = FakeArm::new().start();
    fake_group(&fake);
    let out = destroy(&fake).arg("--output").arg("json").output().unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stdout.contains("failover deploy placed"), "{stdout}");
}

/// A serving pool (issue 36): the frontend's resources as its deployment lists them, the
/// apis of a template that declares only the pool (the serving render names no types of its own
/// yet), and `gpuform destroy`'s inventory deleted one by one against the fake's rules written
/// from Azure's refusals (`delete_refusal`: InUseSubnetCannotBeDeleted,
/// LoadBalancerInUseByVirtualMachineScaleSet, CannotDeleteLoadBalancerWithPrivateLinkService).
#[test]
fn a_serving_pools_frontend_goes_in_an_order_azure_accepts_with_versions_of_its_own_types() {
    use gpuform::azure::operate::{DeploymentRecord, RecordProperties, ResourceId};
    let spec = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/serving/chat-both.yaml");
    let checked = gpuform::check::check_file(
        &spec,
        &gpuform::spec::Policy::default(),
        gpuform::catalog::prices::PriceTable::embedded(),
    );
    let plan = gpuform::plan::Plan::build(&checked).unwrap();
    let p = format!("/subscriptions/{SUB}/resourceGroups/rg-chat/providers");
    let sv = plan.serving.as_ref().unwrap();
    let ids: Vec<String> = [
        format!("Microsoft.Insights/autoscaleSettings/as-chat"),
        format!(
            "Microsoft.Compute/virtualMachineScaleSets/{}",
            plan.compute.name
        ),
        format!(
            "Microsoft.Network/virtualNetworks/{}",
            plan.network.vnet_name
        ),
        format!(
            "Microsoft.Network/virtualNetworks/{}/subnets/snet-appgw",
            plan.network.vnet_name
        ),
        format!("Microsoft.Network/networkSecurityGroups/nsg-chat-appgw"),
        format!(
            "Microsoft.Network/applicationGateways/{}",
            sv.gateway.as_ref().unwrap().name
        ),
        format!(
            "Microsoft.Network/loadBalancers/{}",
            sv.load_balancer.as_ref().unwrap().name
        ),
        format!(
            "Microsoft.Network/privateLinkServices/{}",
            sv.private_link.as_ref().unwrap().name
        ),
    ]
    .iter()
    .map(|i| format!("{p}/{i}"))
    .collect();
    // the template of today's render: the pool's types, not the frontend's
    let mut apis: std::collections::BTreeMap<String, String> = [
        "microsoft.insights/autoscalesettings",
        "microsoft.compute/virtualmachinescalesets",
        "microsoft.network/virtualnetworks",
        "microsoft.network/virtualnetworks/subnets",
        "microsoft.network/networksecuritygroups",
    ]
    .iter()
    .map(|t| (t.to_string(), "2025-05-01".to_string()))
    .collect();
    let record = DeploymentRecord {
        name: "chat-0a1b2c3d".into(),
        properties: RecordProperties {
            output_resources: ids.iter().map(|id| ResourceId { id: id.clone() }).collect(),
            ..Default::default()
        },
    };
    // without the frontend's versions its resources would be left alone
    let before = gpuform::destroy::inventory(&[&record], &apis, false);
    assert_eq!(before.foreign.len(), 3, "{:#?}", before.foreign);
    gpuform::destroy::serving::add_frontend_versions(&plan, &mut apis);
    // each type its own version from the type data, never a fallback date
    let types: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../shared/conformance/types/all-versions.json"),
        )
        .or_else(|_| {
            std::fs::read_to_string(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/fixtures/sources/api-versions.json"),
            )
        })
        .unwrap(),
    )
    .unwrap();
    for ty in [
        "Microsoft.Network/applicationGateways",
        "Microsoft.Network/loadBalancers",
        "Microsoft.Network/privateLinkServices",
    ] {
        let v = &apis[&ty.to_ascii_lowercase()];
        let known = types["types"][ty]
            .as_array()
            .unwrap_or_else(|| panic!("{ty} not in the type data"));
        assert!(known.iter().any(|k| k == v.as_str()), "{ty} {v}");
    }
    let inv = gpuform::destroy::inventory(&[&record], &apis, false);
    assert!(inv.foreign.is_empty(), "{:#?}", inv.foreign);
    let order: Vec<String> = inv
        .delete
        .iter()
        .map(|t| t.id.to_ascii_lowercase())
        .collect();
    let mut remaining = order.clone();
    for k in &order {
        let others: Vec<String> = remaining.iter().filter(|r| *r != k).cloned().collect();
        assert!(
            delete_refusal(k, &others).is_none(),
            "Azure refuses to delete {k} while {others:#?} exist"
        );
        remaining.retain(|r| r != k && !r.starts_with(&format!("{k}/")));
    }
    let at = |tail: &str| {
        order
            .iter()
            .position(|d| d.ends_with(&tail.to_ascii_lowercase()))
            .unwrap_or_else(|| panic!("{tail}: {order:#?}"))
    };
    assert!(at("autoscalesettings/as-chat") < at("virtualmachinescalesets/vmss-chat"));
    assert!(at("privatelinkservices/pls-chat") < at("loadbalancers/lbi-chat"));
    assert!(at("virtualmachinescalesets/vmss-chat") < at("applicationgateways/agw-chat"));
    assert!(at("applicationgateways/agw-chat") < at("virtualnetworks/vnet-chat"));
    // the old order (the frontend among "the rest", after the VNet) is what Azure refuses
    let vnet = order.iter().find(|o| o.ends_with("/vnet-chat")).unwrap();
    let with_gateway: Vec<String> = order.iter().filter(|o| *o != vnet).cloned().collect();
    let code = |t: &str, rest: &[String]| refusal_of(t, rest).map(|(_, c, _)| c);
    assert_eq!(
        code(vnet, &with_gateway),
        Some("InUseSubnetCannotBeDeleted")
    );
    let lb = order.iter().find(|o| o.ends_with("/lbi-chat")).unwrap();
    assert_eq!(
        code(lb, &order),
        Some("LoadBalancerInUseByVirtualMachineScaleSet")
    );
    let no_vmss: Vec<String> = order
        .iter()
        .filter(|o| !o.contains("virtualmachinescalesets"))
        .cloned()
        .collect();
    assert_eq!(
        code(lb, &no_vmss),
        Some("CannotDeleteLoadBalancerWithPrivateLinkService")
    );
}

const SERVING_RG: &str = "rg-chat";
const SERVING_DEPLOYMENT: &str = "chat-0a1b2c3d";

fn serving_spec() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/serving/chat-both.yaml")
}

/// The output resources of tests/fixtures/serving/chat-both.yaml's deployment that matter to
/// the order: the pool, its network and the whole frontend (both kinds and the Private Link
/// service, with their subnets and the gateway's diagnostic setting).
fn serving_outputs() -> Vec<String> {
    let p = format!("/subscriptions/{SUB}/resourceGroups/{SERVING_RG}/providers");
    let net = "Microsoft.Network";
    vec![
        format!("{p}/{net}/networkSecurityGroups/nsg-chat-workload"),
        format!("{p}/{net}/networkSecurityGroups/nsg-chat-appgw"),
        format!("{p}/{net}/publicIPAddresses/pip-chat-nat"),
        format!("{p}/{net}/natGateways/ng-chat"),
        format!("{p}/{net}/virtualNetworks/vnet-chat"),
        format!("{p}/{net}/virtualNetworks/vnet-chat/subnets/snet-workload"),
        format!("{p}/{net}/virtualNetworks/vnet-chat/subnets/snet-appgw"),
        format!("{p}/{net}/virtualNetworks/vnet-chat/subnets/snet-private-link"),
        format!("{p}/Microsoft.ManagedIdentity/userAssignedIdentities/id-chat"),
        format!("{p}/{net}/loadBalancers/lbi-chat"),
        format!("{p}/{net}/privateLinkServices/pls-chat"),
        format!("{p}/{net}/applicationGateways/agw-chat"),
        format!(
            "{p}/{net}/applicationGateways/agw-chat/providers/Microsoft.Insights/diagnosticSettings/to-log-analytics"
        ),
        format!("{p}/Microsoft.Compute/virtualMachineScaleSets/vmss-chat"),
        format!("{p}/Microsoft.Insights/autoscaleSettings/as-chat"),
        format!("{p}/Microsoft.OperationalInsights/workspaces/log-chat"),
    ]
}

fn serving_group(fake: &FakeAzure) -> Arc<Mutex<State>> {
    fake_group_of(
        fake,
        Fixture {
            rg: SERVING_RG,
            deployment: SERVING_DEPLOYMENT,
            outputs: serving_outputs(),
            devbox_vm: None,
        },
    )
}

/// `destroy --what-if` lists the frontend in its order; `destroy --yes` deletes it against a
/// fake that refuses what Azure refuses (a VNet whose subnets the gateway, the load balancer or
/// the Private Link service use: InUseSubnetCannotBeDeleted; a load balancer a scale set or a
/// Private Link service uses: LoadBalancerInUseByVirtualMachineScaleSet,
/// CannotDeleteLoadBalancerWithPrivateLinkService) without one refusal, in one run.
#[test]
fn a_serving_pools_frontend_is_listed_by_what_if_and_destroyed_without_a_refusal() {
    let fake = FakeArm::new().start();
    let state = serving_group(&fake);
    // the network's deletes are long-running, as Microsoft.Network answers them
    for t in [
        "applicationgateways/agw-chat",
        "loadbalancers/lbi-chat",
        "privatelinkservices/pls-chat",
    ] {
        state.lock().unwrap().accepted.insert(t.into());
    }
    let mut c = fake.gpuform();
    let out = c
        .arg("destroy")
        .arg(serving_spec())
        .args([
            "-g",
            SERVING_RG,
            "--what-if",
            "--arm-endpoint",
            &format!("{}/", fake.base),
        ])
        .output()
        .unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}\n{stdout}");
    assert!(deleted_in_order(&state).is_empty());
    let line = |what: &str| {
        stderr
            .lines()
            .position(|l| l.contains(what))
            .unwrap_or_else(|| panic!("{what} is not listed: {stderr}"))
    };
    let (vmss, pls, lb, agw, vnet) = (
        line("virtualMachineScaleSets vmss-chat"),
        line("privateLinkServices pls-chat"),
        line("loadBalancers lbi-chat"),
        line("applicationGateways agw-chat"),
        line("virtualNetworks vnet-chat"),
    );
    assert!(vmss < pls && pls < lb && vmss < agw, "{stderr}");
    assert!(lb < vnet && agw < vnet, "{stderr}");
    assert!(
        !stderr.contains("types the spec does not declare"),
        "{stderr}"
    );

    let out = destroy_of(&fake, &serving_spec(), SERVING_RG)
        .output()
        .unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}\n{stdout}");
    let s = state.lock().unwrap();
    assert!(s.refused.is_empty(), "Azure would refuse {:#?}", s.refused);
    drop(s);
    let order = deleted_in_order(&state);
    let at = |t: &str| position(&order, t);
    assert!(at("autoscalesettings/as-chat") < at("virtualmachinescalesets/vmss-chat"));
    assert!(at("virtualmachinescalesets/vmss-chat") < at("loadbalancers/lbi-chat"));
    assert!(at("privatelinkservices/pls-chat") < at("loadbalancers/lbi-chat"));
    assert!(at("virtualmachinescalesets/vmss-chat") < at("applicationgateways/agw-chat"));
    for f in [
        "applicationgateways/agw-chat",
        "loadbalancers/lbi-chat",
        "privatelinkservices/pls-chat",
    ] {
        assert!(at(f) < at("virtualnetworks/vnet-chat"), "{f}: {order:#?}");
        assert_eq!(count(&order, f), 1, "{order:#?}");
    }
    // the subnets and the gateway's diagnostic setting go with their parents
    assert!(!order.iter().any(|d| d.contains("/subnets/")), "{order:#?}");
}

/// Consumers' private endpoints still connected to the Private Link service: Azure refuses its
/// delete (SupportArticles-docs cannot-delete-load-balancer-private-link-service.md). destroy
/// stops before the load balancer and the VNet, and says how to find and remove the
/// connections.
#[test]
fn a_private_link_service_with_connections_stops_destroy_with_the_commands_that_free_it() {
    let fake = FakeArm::new().start();
    let state = serving_group(&fake);
    let pls = format!(
        "/subscriptions/{SUB}/resourceGroups/{SERVING_RG}/providers/Microsoft.Network/privateLinkServices/pls-chat"
    );
    state.lock().unwrap().fail.insert(
        "privatelinkservices/pls-chat".into(),
        vec![ResponseTemplate::new(400).set_body_json(arm_error(
            "PrivateLinkServiceWithPrivateEndpointConnectionsCannotBeDeleted",
            &format!("Private link service {pls} cannot be deleted since it has 1 private endpoint connection. Please delete all private endpoint connections before deleting the private link service."),
        ))],
    );
    let out = destroy_of(&fake, &serving_spec(), SERVING_RG)
        .output()
        .unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}\n{stdout}");
    assert!(
        stdout.contains("az network private-link-service connection delete -g rg-chat --service-name pls-chat -n CONNECTION"),
        "{stdout}"
    );
    let s = state.lock().unwrap();
    assert!(s.refused.is_empty(), "Azure would refuse {:#?}", s.refused);
    assert!(
        !s.deleted
            .iter()
            .any(|d| d.ends_with("loadbalancers/lbi-chat"))
    );
    assert!(
        !s.deleted
            .iter()
            .any(|d| d.ends_with("virtualnetworks/vnet-chat"))
    );
}
