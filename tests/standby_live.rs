//! Issue 23: the standby pool in `preflight` and `status`, end to end against the HTTPS fake
//! ARM (and Microsoft Graph) of tests/common, answering in the documented shapes:
//!
//! - provider registration (`Registered` / `NotRegistered` / `Registering`), the pool's VMs
//!   counted against the family quota;
//! - the Standby Pool Resource Provider's principal in Graph (`servicePrincipals?$filter=appId
//!   eq '...'`, Learn "List servicePrincipals") and its role assignments at the resource group
//!   (`roleAssignments?$filter=principalId eq '...'`, Learn "Role Assignments - List For
//!   Resource Group"), role GUIDs from the built-in roles table, the app id from the dated
//!   excerpt (an assumption, tests/fixtures/sources/standby-pools.json);
//! - `status`'s pool section from the runtime view (azure-rest-api-specs example shape), its
//!   GET answered only for an API version the type data lists;
//! - a deployment to a subscription that has not registered `Microsoft.StandbyPool` is refused
//!   with `MissingSubscriptionRegistration`.

mod common;

use common::refuse::{AzureFacts, VersionedGet};
use common::*;
use serde_json::{Value, json};
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, ResponseTemplate};

const RG: &str = "rg-batch-infer";
const REGION: &str = "westeurope";
const PRINCIPAL: &str = "7f3c0b8e-4a51-4c7e-9d2a-0b6f1e2d3c4a";
const POOL: &str = "sbp-batch-infer";

fn example() -> std::path::PathBuf {
    examples("batch-inference-standby.yaml")
}

fn excerpts() -> Value {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sources/standby-pools.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// The provider's app id, from the dated excerpt (not the code's constant).
fn app_id() -> String {
    excerpts()["providerAppId"]["appId"]
        .as_str()
        .unwrap()
        .to_string()
}

const ROLES: [&str; 3] = [
    "Virtual Machine Contributor",
    "Network Contributor",
    "Managed Identity Operator",
];

/// A healthy subscription in westeurope with `family_limit` T4 vCPUs and the group.
fn fake(family_limit: i64) -> FakeAzure {
    FakeArm::new()
        .subscription(&[(REGION, family_limit)])
        .resource_group(RG, REGION)
        .start()
}

fn provider_state(fake: &FakeAzure, state: &str) {
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path("providers/Microsoft.StandbyPool")))
            .respond_with(ResponseTemplate::new(200).set_body_json(
                json!({"id": FakeAzure::sub_path("providers/Microsoft.StandbyPool"),
                       "namespace": "Microsoft.StandbyPool", "registrationState": state}),
            )),
    );
}

/// Graph's answer to the app id lookup: `found` the provider's principal, or an empty list.
fn graph(fake: &FakeAzure, answer: ResponseTemplate) {
    fake.mount(
        Mock::given(method("GET"))
            .and(path("/v1.0/servicePrincipals"))
            .and(query_param(
                "$filter",
                format!("appId eq '{}'", app_id()).as_str(),
            ))
            .respond_with(answer),
    );
}

fn graph_found() -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "@odata.context": "https://graph.microsoft.com/v1.0/$metadata#servicePrincipals(id,appId,displayName)",
        "value": [{"id": PRINCIPAL, "appId": app_id(), "displayName": "Standby Pool Resource Provider"}]
    }))
}

/// ARM's role assignments of the principal at the group, with these roles.
fn assignments(fake: &FakeAzure, roles: &[&str]) {
    assignments_at(fake, &group(), roles, PRINCIPAL);
}

/// `/subscriptions/SUB/resourceGroups/RG`.
fn group() -> String {
    format!("/subscriptions/{SUB}/resourceGroups/{RG}")
}

/// ARM's role assignments of `principal` listed at `scope` (Role Assignments - List For Scope,
/// `$filter=principalId eq`), with these roles assigned at `scope` itself under names
/// `0000000{i}-...` (granted by hand).
fn assignments_at(fake: &FakeAzure, scope: &str, roles: &[&str], principal: &str) {
    let value: Vec<Value> = roles
        .iter()
        .enumerate()
        .map(|(i, r)| {
            json!({
                "properties": {
                    "roleDefinitionId": format!("/subscriptions/{SUB}/providers/Microsoft.Authorization/roleDefinitions/{}", builtin_role_id(r)),
                    "principalId": principal,
                    "principalType": "ServicePrincipal",
                    "scope": scope,
                },
                "id": format!("{scope}/providers/Microsoft.Authorization/roleAssignments/0000000{i}-0000-0000-0000-000000000000"),
                "type": "Microsoft.Authorization/roleAssignments",
                "name": format!("0000000{i}-0000-0000-0000-000000000000"),
            })
        })
        .collect();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(format!(
                "{scope}/providers/Microsoft.Authorization/roleAssignments"
            )))
            .and(query_param(
                "$filter",
                format!("principalId eq '{principal}'").as_str(),
            ))
            .respond_with(VersionedGet {
                facts: AzureFacts::load(),
                resource_type: "Microsoft.Authorization/roleAssignments".into(),
                location: REGION.into(),
                body: json!({ "value": value }),
            }),
    );
}

/// `gpuform preflight` of the example as JSON (`-g`: the roles are looked up).
fn preflight(fake: &FakeAzure, spec: &std::path::Path, group: bool) -> (i32, Value, String) {
    let mut c = fake.preflight(spec);
    c.args(["--output", "json"]);
    if group {
        c.args(["-g", RG]);
    }
    let out = c.output().unwrap();
    let (o, e) = texts(&out);
    let v: Value = serde_json::from_str(&o).unwrap_or_else(|err| panic!("{err}: {o}\n{e}"));
    (out.status.code().unwrap_or(-1), v, e)
}

/// Every check with `id`, wherever the report puts it.
fn checks<'a>(v: &'a Value, id: &str) -> Vec<&'a Value> {
    let mut out = Vec::new();
    fn walk<'a>(v: &'a Value, id: &str, out: &mut Vec<&'a Value>) {
        match v {
            Value::Object(m) => {
                if m.get("id").and_then(Value::as_str) == Some(id) && m.contains_key("status") {
                    out.push(v);
                }
                m.values().for_each(|x| walk(x, id, out));
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, id, out)),
            _ => {}
        }
    }
    walk(v, id, &mut out);
    out
}

fn one<'a>(v: &'a Value, id: &str) -> &'a Value {
    let c = checks(v, id);
    assert!(!c.is_empty(), "no {id} check in {v:#}");
    c[0]
}

fn status_of(c: &Value) -> &str {
    c["status"].as_str().unwrap()
}

fn message(c: &Value) -> &str {
    c["message"].as_str().unwrap()
}

#[test]
fn a_registered_provider_passes_and_the_pool_counts_against_the_family_quota() {
    // 8 scale-set VMs + maxReady 2 pooled VMs, 8 vCPUs each: 80 vCPUs
    let ok = fake(80);
    let (code, v, e) = preflight(&ok, &example(), false);
    assert_eq!(code, 0, "{v:#}\n{e}");
    assert_eq!(status_of(one(&v, "standby-provider")), "pass");
    let q = one(&v, "quota-family");
    assert_eq!(status_of(q), "pass", "{q}");
    assert_eq!(q["quota"]["additionalRequired"], 80, "{q}");
    assert!(
        message(q).contains("10 regular VMs x 8 vCPUs (2 of them the standby pool's"),
        "{q}"
    );
    // without -g the roles are listed, not looked up: a warning, never a pass
    let r = one(&v, "standby-roles");
    assert_eq!(status_of(r), "warn", "{r}");
    assert!(message(r).contains("pass -g RG"), "{r}");
    assert!(
        !ok.requests()
            .iter()
            .any(|r| r.url.path().starts_with("/v1.0/")),
        "Graph was asked without a resource group"
    );

    // one VM of quota short of the pool: blocked, and the fix counts the pooled VMs
    let short = fake(72);
    let (code, v, _) = preflight(&short, &example(), false);
    assert_eq!(code, 1);
    let q = one(&v, "quota-family");
    assert_eq!(status_of(q), "fail", "{q}");
    assert_eq!(q["quota"]["newLimitRequired"], 80, "{q}");
}

#[test]
fn an_unregistered_or_registering_provider_blocks_with_the_register_command() {
    for state in ["NotRegistered", "Registering"] {
        let f = fake(80);
        provider_state(&f, state);
        let (code, v, e) = preflight(&f, &example(), false);
        assert_eq!(code, 1, "{state}: {v:#}\n{e}");
        let c = one(&v, "standby-provider");
        assert_eq!(status_of(c), "fail", "{c}");
        assert!(message(c).contains(state), "{c}");
        let fix = c["fix"].as_str().unwrap();
        assert!(
            fix.starts_with("az provider register -n Microsoft.StandbyPool"),
            "{fix}"
        );
        assert!(fix.contains("30 minutes"), "{fix}");
    }
}

#[test]
fn the_providers_principal_holding_every_role_passes() {
    let f = fake(80);
    graph(&f, graph_found());
    assignments(&f, &ROLES);
    let (code, v, e) = preflight(&f, &example(), true);
    assert_eq!(code, 0, "{v:#}\n{e}");
    let c = one(&v, "standby-roles");
    assert_eq!(status_of(c), "pass", "{c}");
    assert!(message(c).contains(PRINCIPAL), "{c}");
    // the app id is an assumption, and the output says so
    assert!(message(c).contains("assumption"), "{c}");
    let asked: Vec<String> = f
        .requests()
        .iter()
        .filter(|r| r.url.path().contains("roleAssignments"))
        .map(|r| r.url.query().unwrap_or("").to_string())
        .collect();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].contains("api-version=2022-04-01"), "{asked:?}");
}

#[test]
fn a_missing_role_fails_with_the_az_line_that_grants_it() {
    let f = fake(80);
    graph(&f, graph_found());
    assignments(&f, &ROLES[..2]);
    let (code, v, e) = preflight(&f, &example(), true);
    assert_eq!(code, 1, "{v:#}\n{e}");
    let c = one(&v, "standby-roles");
    assert_eq!(status_of(c), "fail", "{c}");
    assert!(
        message(c).contains("lacks Managed Identity Operator"),
        "{c}"
    );
    let fix = c["fix"].as_str().unwrap();
    assert_eq!(fix.matches("az role assignment create").count(), 1, "{fix}");
    assert!(
        fix.contains(&format!(
            "az role assignment create --assignee-object-id {PRINCIPAL} --assignee-principal-type ServicePrincipal --role \"Managed Identity Operator\" --scope /subscriptions/{SUB}/resourceGroups/{RG}"
        )),
        "{fix}"
    );
}

#[test]
fn no_principal_yet_warns_to_register_the_provider_first() {
    let f = fake(80);
    graph(
        &f,
        ResponseTemplate::new(200).set_body_json(json!({"value": []})),
    );
    let (_, v, e) = preflight(&f, &example(), true);
    let c = one(&v, "standby-roles");
    assert_eq!(status_of(c), "warn", "{c}\n{e}");
    assert!(message(c).contains("not registered yet"), "{c}");
    assert!(message(c).contains("assumption"), "{c}");
    assert!(
        c["fix"]
            .as_str()
            .unwrap()
            .starts_with("az provider register -n Microsoft.StandbyPool"),
        "{c}"
    );
    assert!(
        !f.requests()
            .iter()
            .any(|r| r.url.path().contains("roleAssignments")),
        "role assignments asked without a principal"
    );
}

#[test]
fn graph_refusing_the_lookup_warns_and_never_passes() {
    let f = fake(80);
    graph(
        &f,
        ResponseTemplate::new(403).set_body_json(json!({"error": {
            "code": "Authorization_RequestDenied",
            "message": "Insufficient privileges to complete the operation.",
            "innerError": {"date": "2026-12-03T21:40:00", "request-id": "5d2f", "client-request-id": "5d2f"}
        }})),
    );
    let (code, v, e) = preflight(&f, &example(), true);
    let c = one(&v, "standby-roles");
    assert_eq!(status_of(c), "warn", "{c}\n{e}");
    assert!(message(c).contains("HTTP 403"), "{c}");
    assert!(
        c["fix"].as_str().unwrap().contains("Application.Read.All"),
        "{c}"
    );
    // a warning does not block the verdict
    assert_eq!(code, 0, "{v:#}");
}

#[test]
fn the_specs_principal_overrides_the_graph_lookup() {
    let text = std::fs::read_to_string(example()).unwrap().replace(
        "      state: deallocated\n",
        &format!("      state: deallocated\n      providerPrincipalId: {PRINCIPAL}\n"),
    );
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("standby.yaml");
    std::fs::write(&spec, text).unwrap();
    let f = fake(80);
    // nothing held yet: the template grants everything
    assignments(&f, &[]);
    let (code, v, e) = preflight(&f, &spec, true);
    assert_eq!(code, 0, "{v:#}\n{e}");
    let c = one(&v, "standby-roles");
    assert_eq!(status_of(c), "pass", "{c}");
    assert!(message(c).contains("the template grants them"), "{c}");
    assert!(
        !f.requests()
            .iter()
            .any(|r| r.url.path().starts_with("/v1.0/")),
        "Graph was asked although the spec names the principal"
    );
}

#[test]
fn the_app_id_flag_replaces_the_assumed_one() {
    let f = fake(80);
    let other = "0a1b2c3d-0000-4000-8000-00000000abcd";
    f.mount(
        Mock::given(method("GET"))
            .and(path("/v1.0/servicePrincipals"))
            .and(query_param("$filter", format!("appId eq '{other}'").as_str()))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"value": [
                {"id": PRINCIPAL, "appId": other, "displayName": "Standby Pool Resource Provider"}]}))),
    );
    assignments(&f, &ROLES);
    let mut c = f.preflight(&example());
    c.args(["--output", "json", "-g", RG])
        .env("GPUFORM_STANDBY_PROVIDER_APP_ID", other);
    let out = c.output().unwrap();
    let (o, e) = texts(&out);
    let v: Value = serde_json::from_str(&o).unwrap_or_else(|err| panic!("{err}: {o}\n{e}"));
    let c = one(&v, "standby-roles");
    assert_eq!(status_of(c), "pass", "{c}");
    assert!(!message(c).contains("assumption"), "{c}");
    assert!(message(c).contains(other), "{c}");
}

#[test]
fn a_group_that_does_not_exist_yet_warns_with_every_grant() {
    let f = fake(80);
    graph(&f, graph_found());
    // no assignments mock: ARM answers the group's absence as it does
    f.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(&format!(
                "resourceGroups/{RG}/providers/Microsoft.Authorization/roleAssignments"
            ))))
            .respond_with(ResponseTemplate::new(404).set_body_json(json!({"error": {
                "code": "ResourceGroupNotFound",
                "message": format!("Resource group '{RG}' could not be found.")
            }}))),
    );
    let (code, v, e) = preflight(&f, &example(), true);
    assert_eq!(code, 0, "{v:#}\n{e}");
    let c = one(&v, "standby-roles");
    assert_eq!(status_of(c), "warn", "{c}");
    assert!(message(c).contains("does not exist yet"), "{c}");
    assert_eq!(
        c["fix"]
            .as_str()
            .unwrap()
            .matches("az role assignment create")
            .count(),
        3,
        "{c}"
    );
}

// ---------------------------------------------------------------------------------------------
// status

/// The runtime view as the REST example shapes it (azure-rest-api-specs
/// StandbyVirtualMachinePoolRuntimeViews_Get.json), answered only for an API version the type
/// data lists for `runtimeViews`.
fn runtime_view(fake: &FakeAzure, zones: &[(u64, u64, u64)], health: &str, msg: &str) {
    let summary: Vec<Value> = zones
        .iter()
        .enumerate()
        .map(|(i, (creating, running, deallocated))| {
            json!({"zone": i + 1, "instanceCountsByState": [
                {"state": "creating", "count": creating}, {"state": "starting", "count": 0},
                {"state": "running", "count": running}, {"state": "deallocating", "count": 0},
                {"state": "deallocated", "count": deallocated}, {"state": "deleting", "count": 0}]})
        })
        .collect();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(&format!(
                "resourceGroups/{RG}/providers/Microsoft.StandbyPool/standbyVirtualMachinePools/{POOL}/runtimeViews/latest"
            ))))
            .respond_with(VersionedGet {
                facts: AzureFacts::load(),
                resource_type: "Microsoft.StandbyPool/standbyVirtualMachinePools/runtimeViews".into(),
                location: REGION.into(),
                body: json!({
                    "properties": {
                        "instanceCountSummary": summary,
                        "provisioningState": "Succeeded",
                        "status": {"code": format!("HealthState/{health}"), "message": msg}
                    },
                    "id": FakeAzure::sub_path(&format!("resourceGroups/{RG}/providers/Microsoft.StandbyPool/standbyVirtualMachinePools/{POOL}/runtimeViews/latest")),
                    "name": "latest",
                    "type": "Microsoft.StandbyPool/standbyVirtualMachinePools/runtimeViews"
                }),
            }),
    );
}

fn status(fake: &FakeAzure, output: &str) -> (i32, String, String) {
    let out = fake
        .gpuform()
        .arg("status")
        .arg(example())
        .args(["-g", RG, "--output", output, "--no-drift", "--arm-endpoint"])
        .arg(format!("{}/", fake.base))
        .args(["--retry-delay-ms", "50", "--retries", "0"])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    (out.status.code().unwrap_or(-1), o, e)
}

#[test]
fn status_shows_the_ready_count_and_health_from_the_runtime_view() {
    let f = FakeArm::new().start();
    runtime_view(
        &f,
        &[(0, 0, 1), (1, 0, 1)],
        "healthy",
        "The pool is healthy.",
    );
    let (_, o, e) = status(&f, "json");
    let v: Value = serde_json::from_str(&o).unwrap_or_else(|err| panic!("{err}: {o}\n{e}"));
    let sb = &v["standby"];
    assert_eq!(sb["ready"], 2, "{sb:#}\n{e}");
    assert_eq!(sb["inProgress"], 1, "{sb:#}");
    assert_eq!(sb["maxReady"], 2, "{sb:#}");
    assert_eq!(sb["health"], "healthy", "{sb:#}");
    let (_, text, _) = status(&f, "text");
    assert!(
        text.contains(&format!(
            "{POOL}: 2 of 2 ready (deallocated), 1 in progress, health healthy (The pool is healthy.)"
        )),
        "{text}"
    );
    let asked: Vec<String> = f
        .requests()
        .iter()
        .filter(|r| r.url.path().ends_with("runtimeViews/latest"))
        .map(|r| r.url.query().unwrap_or("").to_string())
        .collect();
    assert!(
        !asked.is_empty() && asked.iter().all(|q| q.contains("api-version=")),
        "{asked:?}"
    );
}

#[test]
fn status_says_when_the_pool_is_degraded_or_missing() {
    let f = FakeArm::new().start();
    runtime_view(
        &f,
        &[(2, 0, 0)],
        "degraded",
        "Quota exceeded for Standard NCASv3_T4 Family",
    );
    let (_, text, e) = status(&f, "text");
    assert!(
        text.contains(&format!(
            "{POOL}: 0 of 2 ready (deallocated), 2 in progress, health degraded (Quota exceeded for Standard NCASv3_T4 Family)"
        )),
        "{text}\n{e}"
    );
    // no pool (never deployed): the section says so instead of inventing a count
    let none = FakeArm::new().start();
    let (_, o, e) = status(&none, "json");
    let v: Value = serde_json::from_str(&o).unwrap_or_else(|err| panic!("{err}: {o}\n{e}"));
    assert!(v["standby"].get("ready").is_none(), "{:#}", v["standby"]);
}

#[test]
fn deploying_a_pool_to_a_subscription_without_the_provider_is_refused() {
    let f = FakeArm::new()
        .resource_group(RG, REGION)
        .refusing(AzureFacts::load().unregistered("Microsoft.StandbyPool"))
        .start();
    let out = f
        .gpuform()
        .arg("deploy")
        .arg(example())
        .args([
            "--resource-group",
            RG,
            "--yes",
            "--skip-preflight",
            "--arm-endpoint",
        ])
        .arg(format!("{}/", f.base))
        .args(["--retry-delay-ms", "50", "--poll-interval", "0.05"])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert!(
        o.contains("MissingSubscriptionRegistration: The subscription is not registered to use namespace 'Microsoft.StandbyPool'."),
        "{o}\n{e}"
    );
}

#[test]
fn the_fake_refuses_an_api_version_azure_does_not_list() {
    let facts = AzureFacts::load();
    let known = facts.versions("Microsoft.StandbyPool/standbyVirtualMachinePools/runtimeViews");
    assert!(
        known
            .iter()
            .any(|v| v == gpuform::facts::standby::API_VERSION),
        "{known:?}"
    );
    assert!(!known.iter().any(|v| v == "2026-04-02"), "{known:?}");
    assert!(facts.versions("Microsoft.StandbyPool/nope").is_empty());
}

// ---------------------------------------------------------------------------------------------
// Day two (issue 38): roles held already, roles beyond the group, a state change

/// The example with the provider's principal in the spec.
fn with_principal() -> (tempfile::TempDir, std::path::PathBuf) {
    let text = std::fs::read_to_string(example()).unwrap().replace(
        "      state: deallocated\n",
        &format!("      state: deallocated\n      providerPrincipalId: {PRINCIPAL}\n"),
    );
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("standby.yaml");
    std::fs::write(&spec, text).unwrap();
    (dir, spec)
}

#[test]
fn preflight_sees_a_role_granted_by_hand_that_the_template_would_assign_again() {
    // Virtual Machine Contributor granted by hand on the group (another name than the
    // template's guid()): Azure refuses the template's second assignment (RoleAssignmentExists)
    let (_dir, spec) = with_principal();
    let f = fake(80);
    assignments(&f, &ROLES[..1]);
    let (code, v, e) = preflight(&f, &spec, true);
    assert_eq!(code, 0, "a warning does not block: {v:#}\n{e}");
    let c = one(&v, "standby-roles");
    assert_eq!(status_of(c), "warn", "{c}");
    assert!(message(c).contains("RoleAssignmentExists"), "{c}");
    assert!(
        message(c).contains(
            "Virtual Machine Contributor (assignment 00000000-0000-0000-0000-000000000000)"
        ),
        "{c}"
    );
    let fix = c["fix"].as_str().unwrap();
    assert!(
        fix.contains(&format!(
            "standbyProviderRolesHeld='[\"{}\"]'",
            builtin_role_id("Virtual Machine Contributor")
        )),
        "{fix}"
    );
}

fn deploy(f: &FakeAzure, spec: &std::path::Path) -> (i32, String, String) {
    let out = f
        .gpuform()
        .arg("deploy")
        .arg(spec)
        .args([
            "--resource-group",
            RG,
            "--yes",
            "--skip-preflight",
            "--arm-endpoint",
        ])
        .arg(format!("{}/", f.base))
        .args(["--retry-delay-ms", "50", "--poll-interval", "0.05"])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    (out.status.code().unwrap_or(-1), o, e)
}

fn deployment_puts(f: &FakeAzure) -> Vec<Value> {
    f.requests()
        .iter()
        .filter(|r| r.method.as_str() == "PUT" && r.url.path().contains("/deployments/"))
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

#[test]
fn a_role_granted_by_hand_under_another_name_is_left_out_of_the_deployment() {
    let (_dir, spec) = with_principal();
    let vmc = builtin_role_id("Virtual Machine Contributor");
    // Azure holds Virtual Machine Contributor for the principal on the group, granted by hand
    let facts = AzureFacts::load().with_role_assignment(
        &vmc,
        PRINCIPAL,
        &group(),
        "00000000-0000-0000-0000-000000000000",
    );
    let f = FakeArm::new()
        .resource_group(RG, REGION)
        .refusing(facts.clone())
        .start();
    // the pool fills after the deployment, then its telemetry remediation (tests/standby_day_two.rs)
    common::standby_pool::mount(&f, &facts, (SUB, RG), POOL, 2, 0);
    assignments(&f, &ROLES[..1]);
    common::standby_pool::accepting_deployments(&f, (SUB, RG));
    let (code, o, e) = deploy(&f, &spec);
    assert_eq!(code, 0, "{o}\n{e}");
    assert!(
        e.contains(&format!(
            "deploy: the Standby Pool provider's principal {PRINCIPAL} holds Virtual Machine Contributor on {RG} already: the template leaves it out"
        )),
        "{e}"
    );
    let puts = deployment_puts(&f);
    assert_eq!(puts.len(), 1);
    assert_eq!(
        puts[0]["properties"]["parameters"]["standbyProviderRolesHeld"]["value"],
        json!([vmc])
    );
    // the same template without the parameter is what Azure refuses
    let mut bare = puts[0].clone();
    bare["properties"]["parameters"]
        .as_object_mut()
        .unwrap()
        .remove("standbyProviderRolesHeld");
    let path = format!(
        "/subscriptions/{SUB}/resourcegroups/{RG}/providers/Microsoft.Resources/deployments/d"
    );
    let (code, message) = facts
        .refusal_at(&path, &serde_json::to_vec(&bare).unwrap())
        .expect("refused");
    assert_eq!(code, "RoleAssignmentExists");
    assert_eq!(
        message,
        "The role assignment already exists. The ID of the existing role assignment is 00000000000000000000000000000000."
    );
    // what the deployment sent (the held role left out) goes through
    assert!(
        facts
            .refusal_at(&path, &serde_json::to_vec(&puts[0]).unwrap())
            .is_none()
    );
}

#[test]
fn a_pool_going_from_deallocated_to_hibernated_stops_with_the_steps() {
    // deploy sets the pool Running first (tests/standby_day_two.rs); here Azure answers that
    // PATCH with 404 (no mock), so deploy stops before the deployment with the steps by hand
    let spec = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/render/variants/standby-hibernated.yaml");
    let pool = "sbp-variant-standby";
    let facts = AzureFacts::load().with_standby_pool(pool, "Deallocated");
    let f = FakeArm::new()
        .resource_group(RG, REGION)
        .refusing(facts.clone())
        .start();
    // the pool in the group, Deallocated (the standby pool's GET, answered for the type data's
    // API versions only)
    f.mount(
        Mock::given(method("GET"))
            .and(path(format!(
                "{}/providers/Microsoft.StandbyPool/standbyVirtualMachinePools/{pool}",
                group()
            )))
            .respond_with(VersionedGet {
                facts: AzureFacts::load(),
                resource_type: "Microsoft.StandbyPool/standbyVirtualMachinePools".into(),
                location: REGION.into(),
                body: json!({"name": pool, "type": "Microsoft.StandbyPool/standbyVirtualMachinePools",
                    "properties": {"virtualMachineState": "Deallocated", "provisioningState": "Succeeded",
                        "elasticityProfile": {"maxReadyCapacity": 2, "minReadyCapacity": 1}}}),
            }),
    );
    common::standby_pool::accepting_deployments(&f, (SUB, RG));
    let (code, o, e) = deploy(&f, &spec);
    assert_ne!(code, 0, "{o}\n{e}");
    assert!(
        deployment_puts(&f).is_empty(),
        "a deployment Azure refuses was sent"
    );
    let all = format!("{o}\n{e}");
    assert!(
        all.contains(&format!(
            "the standby pool {pool} is Deallocated and the spec asks for Hibernated"
        )),
        "{all}"
    );
    assert!(
        all.contains(&format!(
            "az standby-vm-pool update --resource-group {RG} --name {pool} --vm-state Running"
        )),
        "{all}"
    );
    // the fake refuses the direct transition, as the page says Azure does
    let rendered = std::process::Command::new(env!("CARGO_BIN_EXE_gpuform"))
        .arg("render")
        .arg(&spec)
        .args(["--stdout", "azuredeploy.json"])
        .output()
        .unwrap();
    let template: Value = serde_json::from_slice(&rendered.stdout).unwrap();
    let body =
        json!({"properties": {"mode": "Incremental", "template": template, "parameters": {}}});
    let (code, message) = facts
        .refusal_at(
            &format!("/subscriptions/{SUB}/resourcegroups/{RG}/providers/Microsoft.Resources/deployments/d"),
            &serde_json::to_vec(&body).unwrap(),
        )
        .expect("refused");
    assert_eq!(code, "BadRequest");
    assert!(message.contains("Transitioning between a Stopped (deallocated) state and a hibernated state is not supported"), "{message}");
    // and the other way round
    let back = AzureFacts::load().with_standby_pool(pool, "Hibernated");
    let mut deallocated = body.clone();
    for r in deallocated["properties"]["template"]["resources"]
        .as_array_mut()
        .unwrap()
    {
        if r["type"] == "Microsoft.StandbyPool/standbyVirtualMachinePools" {
            r["properties"]["virtualMachineState"] = json!("Deallocated");
        }
    }
    assert!(back.refusal_at(&format!("/subscriptions/{SUB}/resourcegroups/{RG}/providers/Microsoft.Resources/deployments/d"), &serde_json::to_vec(&deallocated).unwrap()).is_some());
}

fn landing_zone_pool() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/preflight/standby-landing-zone.yaml")
}
const SUBNET: &str = "/subscriptions/7c1f2e3d-4a5b-4c6d-8e9f-0a1b2c3d4e5f/resourceGroups/rg-lz-search-network/providers/Microsoft.Network/virtualNetworks/vnet-lz-search-weu/subnets/snet-gpu-batch";
const GALLERY: &str = "/subscriptions/5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a/resourceGroups/rg-images/providers/Microsoft.Compute/galleries/galGpu";

#[test]
fn validate_prints_the_grants_beyond_the_group_with_their_az_lines() {
    let out = clean_command()
        .args(["validate", "--output", "json"])
        .arg(landing_zone_pool())
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    let v: Value = serde_json::from_str(&o).unwrap_or_else(|err| panic!("{err}: {o}\n{e}"));
    let mut found = Vec::new();
    fn walk<'a>(v: &'a Value, out: &mut Vec<&'a Value>) {
        match v {
            Value::Object(m) => {
                if m.get("rule").and_then(Value::as_str) == Some("standby-provider-scopes")
                    || m.get("id").and_then(Value::as_str) == Some("standby-provider-scopes")
                {
                    out.push(v);
                }
                m.values().for_each(|x| walk(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    walk(&v, &mut found);
    assert_eq!(found.len(), 1, "{v:#}");
    let d = found[0].to_string();
    assert!(d.contains("\"warning\""), "{d}");
    let who = "$(az ad sp list --display-name \\\"Standby Pool Resource Provider\\\" --query [0].id -o tsv)";
    for (role, scope) in [
        ("Network Contributor", SUBNET),
        ("Compute Gallery Sharing Admin", GALLERY),
        ("Compute Gallery Artifacts Publisher", GALLERY),
    ] {
        let line = format!(
            "az role assignment create --assignee-object-id {who} --assignee-principal-type ServicePrincipal --role \\\"{role}\\\" --scope {scope}"
        );
        assert!(d.contains(&line), "{line}\nin {d}");
    }
}

#[test]
fn preflight_checks_the_grants_beyond_the_group() {
    let f = FakeArm::new()
        .subscription(&[(REGION, 80)])
        .resource_group(RG, REGION)
        .start();
    graph(&f, graph_found());
    assignments(&f, &ROLES);
    // the gallery's roles are granted; the subnet's Network Contributor is not
    assignments_at(
        &f,
        GALLERY,
        &[
            "Compute Gallery Sharing Admin",
            "Compute Gallery Artifacts Publisher",
        ],
        PRINCIPAL,
    );
    assignments_at(&f, SUBNET, &[], PRINCIPAL);
    let (_, v, e) = preflight(&f, &landing_zone_pool(), true);
    let c = one(&v, "standby-scopes");
    assert_eq!(status_of(c), "fail", "{c}\n{e}");
    assert!(
        message(c).contains("lacks Network Contributor on the existing subnet"),
        "{c}"
    );
    assert!(!message(c).contains("Compute Gallery"), "{c}");
    assert_eq!(
        c["fix"].as_str().unwrap(),
        format!(
            "az role assignment create --assignee-object-id {PRINCIPAL} --assignee-principal-type ServicePrincipal --role \"Network Contributor\" --scope {SUBNET}"
        )
    );
    // the roles asked at each scope, with the principal's filter
    let asked: Vec<String> = f
        .requests()
        .iter()
        .filter(|r| r.url.path().ends_with("/roleAssignments"))
        .map(|r| r.url.path().to_string())
        .collect();
    assert!(asked.iter().any(|p| p.starts_with(SUBNET)), "{asked:?}");
    assert!(asked.iter().any(|p| p.starts_with(GALLERY)), "{asked:?}");

    // granted everywhere: pass; the other subscription refusing the read: a warning with the lines
    let f = FakeArm::new()
        .subscription(&[(REGION, 80)])
        .resource_group(RG, REGION)
        .start();
    graph(&f, graph_found());
    assignments(&f, &ROLES);
    assignments_at(&f, SUBNET, &["Network Contributor"], PRINCIPAL);
    f.mount(
        Mock::given(method("GET"))
            .and(path(format!("{GALLERY}/providers/Microsoft.Authorization/roleAssignments")))
            .respond_with(ResponseTemplate::new(403).set_body_json(json!({"error": {
                "code": "AuthorizationFailed",
                "message": "The client does not have authorization to perform action 'Microsoft.Authorization/roleAssignments/read' over scope."
            }}))),
    );
    let (_, v, e) = preflight(&f, &landing_zone_pool(), true);
    let c = one(&v, "standby-scopes");
    assert_eq!(status_of(c), "warn", "{c}\n{e}");
    assert!(message(c).contains("could not read"), "{c}");
    assert_eq!(
        c["fix"]
            .as_str()
            .unwrap()
            .matches("az role assignment create")
            .count(),
        2,
        "{c}"
    );
}
