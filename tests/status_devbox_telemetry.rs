//! `gpuform status` on a running dev box (issue 20): the GPU telemetry section runs the rendered
//! dev-box missing-telemetry alert's own query (heartbeats for the grace period as "running", the
//! VM's own rows) through the Logs Query API of tests/common, and says MISSING exactly when that
//! alert's condition holds, like the pool's line.

mod common;

use common::*;
use gpuform::catalog::prices::PriceTable;
use gpuform::check::check_file;
use gpuform::spec::policy::Policy;
use serde_json::{Value, json};
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, ResponseTemplate};

const DEV_RG: &str = "rg-dev-notebook";
/// A working Tuesday, 10:30 in W. Europe Standard Time: the box runs.
const DEV_NOW: &str = "2026-12-08T09:30:00Z";
const GUID: &str = "4e2a9c1d-3b5f-4d6e-8a7b-9c0d1e2f3a4b";

/// The Logs Query API's answer: one row with the dev-box alert's columns (Learn's response
/// format: tables/columns/rows).
fn answer(running: u64, reporting: u64) -> Value {
    let silent = running.saturating_sub(reporting);
    json!({"tables": [{"name": "PrimaryResult",
        "columns": [{"name": "Reporting", "type": "long"}, {"name": "Running", "type": "int"},
                    {"name": "SilentInstances", "type": "long"}],
        "rows": [[reporting, running, silent]]}]})
}

fn run(running: u64, reporting: u64, json_out: bool) -> (String, Value) {
    let spec = examples("dev-notebook-t4.yaml");
    let checked = check_file(&spec, &Policy::default(), PriceTable::embedded());
    let plan = gpuform::plan::Plan::build(&checked).unwrap();
    let ws = format!(
        "resourceGroups/{DEV_RG}/providers/Microsoft.OperationalInsights/workspaces/{}",
        plan.monitoring.workspace.name
    );
    let dev_rg = |rest: &str| FakeAzure::sub_path(&format!("resourceGroups/{DEV_RG}/{rest}"));
    let ok = |v: Value| ResponseTemplate::new(200).set_body_json(v);
    let fake = FakeArm::new().start();
    let vm = status_fixture("dev-box-vm.json")
        .to_string()
        .replace("PowerState/deallocated", "PowerState/running")
        .replace("VM deallocated", "VM running");
    fake.mount(
        Mock::given(method("GET"))
            .and(path(dev_rg(
                "providers/Microsoft.Compute/virtualMachines/vm-dev-notebook",
            )))
            .and(query_param("$expand", "instanceView"))
            .respond_with(ok(serde_json::from_str(&vm).unwrap())),
    );
    for p in [
        "providers/Microsoft.Insights/eventtypes/management/values",
        "providers/Microsoft.AlertsManagement/alerts",
    ] {
        fake.mount(
            Mock::given(method("GET"))
                .and(path(FakeAzure::sub_path(p)))
                .respond_with(ok(json!({"value": []}))),
        );
    }
    fake.mount(
        Mock::given(method("POST"))
            .and(path(dev_rg("providers/Microsoft.CostManagement/query")))
            .respond_with(ok(status_fixture("cost-query.json"))),
    );
    fake.mount_log_query(&FakeAzure::sub_path(&ws), GUID, answer(running, reporting));
    let mut c = fake.gpuform();
    c.arg("status").arg(&spec).args([
        "-g",
        DEV_RG,
        "--now",
        DEV_NOW,
        "--no-drift",
        "--arm-endpoint",
        &format!("{}/", fake.base),
        "--retry-delay-ms",
        "50",
    ]);
    if json_out {
        c.args(["--output", "json"]);
    }
    let out = c.output().unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    // the query sent is the rendered dev-box alert's
    let reqs = fake.requests();
    let q = reqs
        .iter()
        .find(|r| r.url.path() == format!("/v1/workspaces/{GUID}/query"))
        .expect("a Logs Query API call");
    let body: Value = serde_json::from_slice(&q.body).unwrap();
    let alert = plan
        .gpu
        .as_ref()
        .unwrap()
        .alerts
        .iter()
        .find(|a| a.name.ends_with("-gpu-telemetry-missing"))
        .unwrap();
    assert_eq!(body["query"], alert.query.as_str());
    assert!(alert.query.contains("Heartbeat"));
    let v = if json_out {
        serde_json::from_str(&stdout).unwrap()
    } else {
        Value::Null
    };
    (stdout, v)
}

#[test]
fn a_running_dev_box_without_rows_is_missing_like_its_alert() {
    let (stdout, _) = run(1, 0, false);
    assert!(
        stdout.contains(
            "0 of 1 running instance(s) wrote a GpuTelemetry_CL row in the last 15 minutes"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("MISSING: the dev box has run for 45 minutes (its agent's Heartbeat) and sent no GpuTelemetry_CL row for 15 minutes (the dev-box missing-telemetry alert's condition)"),
        "{stdout}"
    );
    let (_, v) = run(1, 0, true);
    assert_eq!(v["telemetry"]["silent"], 1);
    assert_eq!(v["telemetry"]["devBoxUp"], true);
    assert_eq!(v["telemetry"]["delivery"], "vm");
}

#[test]
fn a_reporting_dev_box_and_one_just_started_are_not_missing() {
    let (stdout, _) = run(1, 1, false);
    assert!(
        stdout.contains("1 of 1 running instance(s) wrote a GpuTelemetry_CL row"),
        "{stdout}"
    );
    assert!(!stdout.contains("MISSING"), "{stdout}");
    // started 10 minutes ago: no heartbeat for the grace period, no row yet: not the alert's case
    let (stdout, v) = (run(0, 0, false).0, run(0, 0, true).1);
    assert!(!stdout.contains("MISSING"), "{stdout}");
    assert!(
        stdout.contains("no agent Heartbeat over the last 45 minutes either"),
        "{stdout}"
    );
    assert_eq!(v["telemetry"]["silent"], 0);
    assert_eq!(v["telemetry"]["devBoxUp"], false);
}
