//! Issue 20: on a Flexible scale set the template assigns the built-in DeployIfNotExists
//! DCR-association policy, grants its managed identity the definition's roles and starts a
//! remediation; preflight reads the caller's permissions at the resource group
//! (Permissions_ListForResourceGroup, authorization stable/2022-04-01) and refuses when a write
//! is missing, naming the role to ask for. The real binary against the HTTPS fake ARM; the
//! answer shapes are GetPermissions.json's (`{value: [{actions, notActions, dataActions,
//! notDataActions}], nextLink}`). The roles a fix names are held against
//! `../shared/azure/builtin-roles.json`, the action names against the dated excerpt
//! `tests/fixtures/sources/authorization.json`.

mod common;
mod sources;

use std::path::PathBuf;

use common::*;
use serde_json::{Value, json};
use sources::{read_json, source_path};
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, ResponseTemplate};

const RG: &str = "rg-shortvideo";
const REGIONS: [&str; 3] = ["eastus2", "westus3", "southcentralus"];

/// examples/shortvideo-transcode.yaml: a Flexible pool (the default orchestration) with GPU
/// monitoring on (the default), so the template assigns the association policy.
fn spec() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/shortvideo-transcode.yaml")
}

fn permissions_path() -> String {
    FakeAzure::sub_path(&format!(
        "resourcegroups/{RG}/providers/Microsoft.Authorization/permissions"
    ))
}

fn fake() -> FakeAzure {
    FakeArm::new()
        .subscription(&REGIONS.map(|r| (r, 48)))
        .resource_group(RG, "eastus2")
        .start()
}

fn answer(fake: &FakeAzure, body: ResponseTemplate) {
    fake.mount(
        Mock::given(method("GET"))
            .and(path(permissions_path()))
            .and(query_param("api-version", "2022-04-01"))
            .respond_with(body),
    );
}

fn permission(actions: &[&str], not_actions: &[&str]) -> Value {
    json!({"actions": actions, "notActions": not_actions, "dataActions": [], "notDataActions": []})
}

fn run(fake: &FakeAzure) -> (Option<i32>, String, String) {
    let out = fake
        .preflight(&spec())
        .args(["--resource-group", RG])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    (out.status.code(), o, e)
}

/// The check's line in the text report (its title starts the line after the status).
fn line(o: &str) -> &str {
    o.lines()
        .find(|l| l.contains("permission to assign the GPU association policy"))
        .unwrap_or_else(|| panic!("no permissions check in:\n{o}"))
}

#[test]
fn an_owner_may_assign_the_policy() {
    let fake = fake();
    let (_, o, e) = run(&fake);
    let l = line(&o);
    assert!(l.trim_start().starts_with("pass"), "{l}\n{e}");
    assert!(l.contains("Microsoft.Authorization/policyAssignments/write, Microsoft.Authorization/roleAssignments/write, Microsoft.PolicyInsights/remediations/write at resource group rg-shortvideo"), "{l}");
    // the request ARM answers: the group's permissions, at the documented version
    assert!(fake.requests().iter().any(|r| {
        r.url.path() == permissions_path()
            && r.url
                .query()
                .is_some_and(|q| q.contains("api-version=2022-04-01"))
    }));
}

/// Contributor (builtin-roles.json: `*` less `Microsoft.Authorization/*/Write`) may create the
/// remediation but neither the assignment nor the role grant: blocked, with the roles to ask for.
#[test]
fn a_contributor_is_refused_with_the_roles_to_ask_for() {
    let roles = read_json(&source_path(
        "azure/builtin-roles.json",
        "builtin-roles.json",
    ));
    let contributor = roles["roles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "Contributor")
        .unwrap()
        .clone();
    let fake = fake();
    answer(
        &fake,
        ResponseTemplate::new(200).set_body_json(json!({"value": [{
            "actions": contributor["actions"], "notActions": contributor["notActions"],
            "dataActions": [], "notDataActions": []
        }]})),
    );
    let (code, o, e) = run(&fake);
    assert_eq!(code, Some(1), "{o}\n{e}");
    let l = line(&o);
    assert!(l.contains("FAIL"), "{l}");
    assert!(l.contains("may not Microsoft.Authorization/policyAssignments/write, Microsoft.Authorization/roleAssignments/write at resource group rg-shortvideo"), "{l}");
    assert!(
        !l.contains("remediations/write"),
        "Contributor may create remediations: {l}"
    );
    assert!(o.contains("fix: ask for Resource Policy Contributor and Role Based Access Control Administrator on resource group rg-shortvideo"), "{o}");
    assert!(o.contains("compute.orchestration: uniform"), "{o}");
}

/// Two pages: the second grants what the first lacks (the operation is pageable).
#[test]
fn permissions_on_a_second_page_count() {
    let fake = fake();
    let next = fake.url(&format!(
        "{}?api-version=2022-04-01&$skiptoken=page2",
        permissions_path()
    ));
    fake.mount(
        Mock::given(method("GET"))
            .and(path(permissions_path()))
            .and(query_param("$skiptoken", "page2"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"value": [
                permission(&["*/read", "Microsoft.Authorization/policyassignments/*", "Microsoft.PolicyInsights/*"], &[]),
                permission(&["Microsoft.Authorization/roleAssignments/write"], &[])
            ]})))
            .with_priority(1),
    );
    answer(
        &fake,
        ResponseTemplate::new(200)
            .set_body_json(json!({"value": [permission(&["*/read"], &[])], "nextLink": next})),
    );
    let (_, o, _) = run(&fake);
    assert!(line(&o).trim_start().starts_with("pass"), "{o}");
}

#[test]
fn a_403_on_the_permissions_read_is_a_warning_never_a_pass() {
    let fake = fake();
    answer(
        &fake,
        ResponseTemplate::new(403).set_body_json(arm_error(
            "AuthorizationFailed",
            "The client 'x' with object id 'y' does not have authorization to perform action 'Microsoft.Authorization/permissions/read' over scope '/subscriptions/s/resourcegroups/rg-shortvideo'",
        )),
    );
    let (_, o, _) = run(&fake);
    let l = line(&o);
    assert!(l.trim_start().starts_with("warn"), "{l}");
    assert!(l.contains("AuthorizationFailed"), "{l}");
    assert!(
        o.contains("Resource Policy Contributor and Role Based Access Control Administrator there"),
        "{o}"
    );
}

/// Without a resource group preflight says how to get the check; a Uniform pool has none.
#[test]
fn without_a_group_it_says_how_and_uniform_pools_have_no_such_check() {
    let fake = fake();
    let out = fake.preflight(&spec()).output().unwrap();
    let (o, _) = texts(&out);
    assert!(line(&o).contains("--resource-group"), "{o}");
    let dir = tempfile::tempdir().unwrap();
    let uniform = dir.path().join("uniform.yaml");
    let text = std::fs::read_to_string(spec()).unwrap();
    let changed = text.replace("  compute:\n", "  compute:\n    orchestration: uniform\n");
    assert_ne!(changed, text);
    std::fs::write(&uniform, changed).unwrap();
    let out = fake
        .preflight(&uniform)
        .args(["--resource-group", RG])
        .output()
        .unwrap();
    let (o, _) = texts(&out);
    assert!(
        !o.contains("permission to assign the GPU association policy"),
        "{o}"
    );
}

/// The fix's roles grant what the check asks of them (builtin-roles.json), and the action
/// names are the ones Microsoft's operations list spells (dated excerpt).
#[test]
fn the_roles_and_actions_are_the_sources() {
    use gpuform::facts::authorization::{PERMISSIONS_API, allows};
    use gpuform::facts::roles::DEPLOYER;
    let roles = read_json(&source_path(
        "azure/builtin-roles.json",
        "builtin-roles.json",
    ));
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .map(|x| x.as_str().unwrap().to_string())
            .collect()
    };
    for r in DEPLOYER {
        let src = roles["roles"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["id"] == r.id)
            .unwrap_or_else(|| panic!("{} {} is not a built-in role", r.name, r.id));
        assert_eq!(src["name"], r.name);
        for a in r.needed {
            assert!(
                allows(&strings(&src["actions"]), &strings(&src["notActions"]), a),
                "{} does not grant {a}",
                r.name
            );
        }
    }
    let ex = read_json(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/sources/authorization.json"),
    );
    let ops = strings(&ex["operations"]["excerpts"]).join("\n");
    for a in [
        gpuform::facts::authorization::POLICY_ASSIGNMENT_WRITE,
        gpuform::facts::authorization::ROLE_ASSIGNMENT_WRITE,
        gpuform::facts::authorization::REMEDIATION_WRITE,
    ] {
        assert!(
            ops.contains(&format!("| {a} |")),
            "{a} not in the operations excerpt"
        );
    }
    assert_eq!(ex["permissionsApi"]["apiVersion"], PERMISSIONS_API);
    assert!(strings(&ex["wildcards"]["excerpts"]).join(" ").contains("A wildcard (`*`) extends a permission to everything that matches the action string you provide"));
}

// ---------------------------------------------------------------------------------------------
// What the assignment reaches (issue 38): every Linux VM of the group, not only the pool's

/// The public copy of the Linux DCR-association definition (dated excerpt of Azure/azure-policy).
fn linux_definition() -> String {
    let doc = read_json(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/sources/dcr-association-policy.json"),
    );
    doc["definitions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["cloud"] == "AzureCloud" && d["os"] == "Linux")
        .unwrap()["name"]
        .as_str()
        .unwrap()
        .to_string()
}

/// `Virtual Machines - List` of the group (the answer's shape: `value[].properties.
/// storageProfile.osDisk.osType`, `virtualMachineScaleSet.id`) and `Policy Assignments - List
/// For Resource Group` (`value[].properties.policyDefinitionId`, `scope`).
fn group(fake: &FakeAzure, vms: &[(&str, &str, Option<&str>)], assignments: &[(&str, &str)]) {
    let vms: Vec<Value> = vms
        .iter()
        .map(|(name, os, vmss)| {
            let mut p = json!({"storageProfile": {"osDisk": {"osType": os}}});
            if let Some(v) = vmss {
                p["virtualMachineScaleSet"] = json!({"id": FakeAzure::sub_path(&format!(
                    "resourceGroups/{RG}/providers/Microsoft.Compute/virtualMachineScaleSets/{v}"
                ))});
            }
            json!({"name": name, "type": "Microsoft.Compute/virtualMachines", "properties": p})
        })
        .collect();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(&format!(
                "resourceGroups/{RG}/providers/Microsoft.Compute/virtualMachines"
            ))))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"value": vms}))),
    );
    let assignments: Vec<Value> = assignments
        .iter()
        .map(|(name, def)| {
            json!({"name": name, "type": "Microsoft.Authorization/policyAssignments", "properties": {
                "policyDefinitionId": format!("/providers/Microsoft.Authorization/policyDefinitions/{def}"),
                "scope": FakeAzure::sub_path(&format!("resourceGroups/{RG}"))
            }})
        })
        .collect();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(&format!(
                "resourceGroups/{RG}/providers/Microsoft.Authorization/policyAssignments"
            ))))
            .and(query_param("$filter", "atScope()"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"value": assignments}))),
    );
}

fn scope_line(o: &str) -> &str {
    o.lines()
        .find(|l| l.contains("what the GPU telemetry policy reaches"))
        .unwrap_or_else(|| panic!("no policy scope check in:\n{o}"))
}

#[test]
fn preflight_says_when_the_policy_reaches_other_vms_or_another_pools_assignment() {
    let def = linux_definition();
    // only the pool's VMs, and only its own assignment: a pass that says the scope
    let f = fake();
    group(
        &f,
        &[(
            "shortvideo-transcode_1a2b",
            "Linux",
            Some("vmss-shortvideo-transcode"),
        )],
        &[("shortvideo-transcode-gpu-dcr-association", &def)],
    );
    let (_, o, e) = run(&f);
    let l = scope_line(&o);
    assert!(l.trim_start().starts_with("pass"), "{l}\n{e}");
    assert!(l.contains("every Linux VM of rg-shortvideo"), "{l}");

    // a Linux VM of something else and another pool's assignment of the same definition
    let f = fake();
    group(
        &f,
        &[
            (
                "shortvideo-transcode_1a2b",
                "Linux",
                Some("vmss-shortvideo-transcode"),
            ),
            ("jumpbox", "Linux", None),
            ("win-build", "Windows", None),
        ],
        &[
            ("shortvideo-transcode-gpu-dcr-association", &def),
            ("other-pool-gpu-dcr-association", &def),
        ],
    );
    let (_, o, e) = run(&f);
    let l = scope_line(&o);
    assert!(l.trim_start().starts_with("warn"), "{l}\n{e}");
    assert!(
        l.contains("1 Linux VM of rg-shortvideo outside vmss-shortvideo-transcode (jumpbox)"),
        "{l}"
    );
    assert!(!l.contains("win-build"), "{l}");
    assert!(l.contains("other-pool-gpu-dcr-association"), "{l}");
    assert!(l.contains("twice"), "{l}");
}
