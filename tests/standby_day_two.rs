//! Issue 38, items 3 and 5: deploy and a standby pool after and before the deployment, against
//! the fake ARM (tests/common/standby_pool.rs: the runtime view, the state update and the
//! remediation in the REST specs' example shapes; Azure's refusals from the dated excerpts).
//!
//! - the provider fills the pool after the deployment: deploy waits for it and then starts a
//!   remediation so that the pooled VMs get the telemetry association; when the pool does not
//!   fill in time (or cannot be read), exit 3 with the `az policy remediation create` line;
//! - a pool between Deallocated and Hibernated goes through Running first.

mod common;

use common::refuse::AzureFacts;
use common::standby_pool::{self, pool_path};
use common::*;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

const RG: &str = "rg-variant";
const REGION: &str = "westeurope";
const POOL: &str = "sbp-variant-standby";
const ASSIGNMENT: &str = "variant-standby-gpu-dcr-association";

fn spec() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/render/variants/standby-hibernated.yaml")
}

/// A fake holding `facts`, the pool settling after `settle` reads of its runtime view.
fn fake(facts: &AzureFacts, settle: u32) -> FakeAzure {
    let f = FakeArm::new()
        .resource_group(RG, REGION)
        .refusing(facts.clone())
        .start();
    standby_pool::mount(&f, facts, (SUB, RG), POOL, 2, settle);
    standby_pool::accepting_deployments(&f, (SUB, RG));
    f
}

fn deploy(f: &FakeAzure, extra: &[&str]) -> (i32, String, String) {
    let out = f
        .gpuform()
        .arg("deploy")
        .arg(spec())
        .args([
            "--resource-group",
            RG,
            "--yes",
            "--skip-preflight",
            "--arm-endpoint",
        ])
        .arg(format!("{}/", f.base))
        .args(["--retry-delay-ms", "50", "--poll-interval", "0.05"])
        .args(extra)
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    (out.status.code().unwrap_or(-1), o, e)
}

/// (method, path) of every request, in order.
fn calls(f: &FakeAzure) -> Vec<(String, String)> {
    f.requests()
        .iter()
        .map(|r| (r.method.to_string(), r.url.path().to_string()))
        .collect()
}

fn is_view(c: &(String, String)) -> bool {
    c.0 == "GET" && c.1.ends_with("/runtimeViews/latest")
}
fn is_remediation_put(c: &(String, String)) -> bool {
    c.0 == "PUT" && c.1.contains("/Microsoft.PolicyInsights/remediations/")
}
fn is_deployment_put(c: &(String, String)) -> bool {
    c.0 == "PUT" && c.1.contains("/deployments/")
}

#[test]
fn the_pooled_vms_get_a_remediation_once_the_pool_has_filled() {
    let facts = AzureFacts::load().tracking_remediations();
    let f = fake(&facts, 3);
    let (code, o, e) = deploy(&f, &[]);
    assert_eq!(code, 0, "{o}\n{e}");
    // progress while the provider builds the VMs, then the pool full
    assert!(
        e.contains(&format!(
            "deploy: standby pool {POOL}: 2 Creating; waiting for 1 Hibernated"
        )),
        "{e}"
    );
    assert!(
        e.contains(&format!("deploy: standby pool {POOL}: 2 Hibernated (")),
        "{e}"
    );
    let c = calls(&f);
    let views: Vec<usize> = (0..c.len()).filter(|&i| is_view(&c[i])).collect();
    let puts: Vec<usize> = (0..c.len())
        .filter(|&i| is_remediation_put(&c[i]))
        .collect();
    assert_eq!(views.len(), 4, "{c:?}");
    assert_eq!(puts.len(), 1, "{c:?}");
    // after the deployment, and after the pool has filled
    let deployed = c.iter().position(is_deployment_put).unwrap();
    assert!(deployed < views[0] && views[3] < puts[0], "{c:?}");
    // a name of its own (the deployment's remediation is still active), of the assignment
    assert_eq!(facts.remediations().len(), 2, "{:?}", facts.remediations());
    let req = &f.requests()[puts[0]];
    let body: Value = serde_json::from_slice(&req.body).unwrap();
    assert_eq!(
        body["properties"]["policyAssignmentId"],
        json!(format!(
            "/subscriptions/{SUB}/resourceGroups/{RG}/providers/Microsoft.Authorization/policyAssignments/{ASSIGNMENT}"
        ))
    );
    assert_eq!(
        body["properties"]["resourceDiscoveryMode"],
        "ReEvaluateCompliance"
    );
    assert!(e.contains("started for the pooled VMs"), "{e}");
}

#[test]
fn a_pool_that_does_not_fill_in_time_ends_with_the_remediation_to_run_later() {
    let facts = AzureFacts::load().tracking_remediations();
    let f = fake(&facts, u32::MAX);
    // 0.3 seconds
    let (code, o, e) = deploy(&f, &["--pool-wait", "0.005", "--output", "json"]);
    assert_eq!(code, 3, "deployed, follow-up needed\n{o}\n{e}");
    let v: Value = serde_json::from_str(&o).unwrap_or_else(|err| panic!("{err}: {o}"));
    assert_eq!(v["provisioningState"], "Succeeded");
    let follow = v["followUp"][0].as_str().unwrap();
    assert!(
        follow.contains(&format!(
            "the standby pool {POOL} did not hold 1 Hibernated VMs within"
        )),
        "{follow}"
    );
    assert!(follow.contains("(2 Creating)"), "{follow}");
    let line = format!(
        "az policy remediation create --resource-group {RG} --name variant-standby-gpu-dcr-"
    );
    assert!(follow.contains(&line), "{follow}");
    assert!(
        follow.contains(&format!(
            "--policy-assignment {ASSIGNMENT} --resource-discovery-mode ReEvaluateCompliance"
        )),
        "{follow}"
    );
    assert!(e.contains("deploy: follow-up needed:"), "{e}");
    assert!(!calls(&f).iter().any(is_remediation_put));
    // --no-pool-wait: the same follow-up at once, nothing read
    let f = fake(&AzureFacts::load(), 0);
    let (code, o, e) = deploy(&f, &["--no-pool-wait"]);
    assert_eq!(code, 3, "{o}\n{e}");
    assert!(o.contains("follow-up needed:") && o.contains(&line), "{o}");
    assert!(!calls(&f).iter().any(is_view));
}

#[test]
fn throttled_and_failing_reads_of_the_runtime_view_are_retried() {
    let facts = AzureFacts::load().tracking_remediations();
    let f = fake(&facts, 1);
    let view_path = format!("{}/runtimeViews/latest", pool_path(SUB, RG, POOL));
    // ARM throttles the first read and fails the second (both answered once, before the pool's)
    f.mount(
        Mock::given(method("GET"))
            .and(path(view_path.clone()))
            .respond_with(
                ResponseTemplate::new(429)
                    .insert_header("Retry-After", "1")
                    .set_body_json(arm_error(
                        "TooManyRequests",
                        "The request is being throttled.",
                    )),
            )
            .up_to_n_times(1)
            .with_priority(1),
    );
    f.mount(
        Mock::given(method("GET"))
            .and(path(view_path))
            .respond_with(ResponseTemplate::new(503).set_body_json(arm_error(
                "ServiceUnavailable",
                "The service is temporarily unavailable.",
            )))
            .up_to_n_times(1)
            .with_priority(2),
    );
    let (code, o, e) = deploy(&f, &[]);
    assert_eq!(code, 0, "{o}\n{e}");
    let c = calls(&f);
    assert!(c.iter().filter(|x| is_view(x)).count() >= 4, "{c:?}");
    assert_eq!(
        c.iter().filter(|x| is_remediation_put(x)).count(),
        1,
        "{c:?}"
    );

    // a runtime view that keeps failing: the deploy stops asking and says what to run
    let f = fake(&AzureFacts::load(), 1);
    f.mount(
        Mock::given(method("GET"))
            .and(path(format!(
                "{}/runtimeViews/latest",
                pool_path(SUB, RG, POOL)
            )))
            .respond_with(ResponseTemplate::new(500).set_body_json(arm_error(
                "InternalServerError",
                "Encountered internal server error.",
            )))
            .with_priority(1),
    );
    let (code, o, e) = deploy(&f, &[]);
    assert_eq!(code, 3, "{o}\n{e}");
    assert!(
        o.contains(&format!(
            "the runtime view of the standby pool {POOL} could not be read"
        )),
        "{o}"
    );
    assert!(o.contains("az policy remediation create"), "{o}");
}

#[test]
fn a_pool_going_from_deallocated_to_hibernated_goes_through_running() {
    let facts = AzureFacts::load()
        .tracking_remediations()
        .with_standby_pool(POOL, "Deallocated");
    // the fake refuses the direct change, as the update page says Azure does
    let (code, message) = facts
        .pool_transition_refusal(POOL, "Hibernated")
        .expect("refused");
    assert_eq!(code, "BadRequest");
    assert!(
        message.contains(
            "Transitioning between a Stopped (deallocated) state and a hibernated state is not supported"
        ),
        "{message}"
    );
    let f = fake(&facts, 2);
    let (code, o, e) = deploy(&f, &[]);
    assert_eq!(code, 0, "{o}\n{e}");
    assert_eq!(facts.pool_state(POOL).as_deref(), Some("Hibernated"));
    let c = calls(&f);
    let patch = c
        .iter()
        .position(|x| x.0 == "PATCH")
        .expect("the pool set Running");
    let deployed = c.iter().position(is_deployment_put).unwrap();
    // Running first, the deployment once every VM ran
    assert!(patch < deployed, "{c:?}");
    assert!(
        (patch..deployed).filter(|&i| is_view(&c[i])).count() >= 3,
        "{c:?}"
    );
    let body: Value = serde_json::from_slice(&f.requests()[patch].body).unwrap();
    assert_eq!(
        body,
        json!({"properties": {"virtualMachineState": "Running"}})
    );
    assert!(e.contains("so it goes through Running first"), "{e}");
    assert!(
        e.contains(&format!("deploy: standby pool {POOL}: 2 Starting; waiting")),
        "{e}"
    );
    assert!(
        e.contains(&format!(
            "deploy: the standby pool {POOL} runs; deploying Hibernated"
        )),
        "{e}"
    );

    // --no-pool-wait: the steps by hand, nothing changed
    let facts = AzureFacts::load().with_standby_pool(POOL, "Deallocated");
    let f = fake(&facts, 2);
    let (code, o, e) = deploy(&f, &["--no-pool-wait"]);
    assert_eq!(code, 2, "{o}\n{e}");
    let c = calls(&f);
    assert!(
        !c.iter().any(|x| x.0 == "PATCH" || is_deployment_put(x)),
        "{c:?}"
    );
    assert!(
        e.contains(&format!(
            "az standby-vm-pool update --resource-group {RG} --name {POOL} --vm-state Running"
        )),
        "{e}"
    );
    assert_eq!(facts.pool_state(POOL).as_deref(), Some("Deallocated"));
}

#[test]
fn a_pool_that_does_not_run_in_time_stops_before_the_deployment_with_the_steps() {
    let facts = AzureFacts::load().with_standby_pool(POOL, "Deallocated");
    let f = fake(&facts, u32::MAX);
    let (code, o, e) = deploy(&f, &["--pool-wait", "0.005"]);
    assert_ne!(code, 0, "{o}\n{e}");
    assert!(!calls(&f).iter().any(is_deployment_put));
    assert!(e.contains("did not all run within"), "{e}");
    assert!(e.contains("gpuform deploy"), "{e}");
}
