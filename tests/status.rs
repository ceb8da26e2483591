//! `gpuform status` end to end against the HTTPS fake ARM of tests/common, answering with
//! fixtures in the shapes of the REST specifications' examples (tests/fixtures/status/: the
//! virtualMachines list with instance views, autoscale setting, metrics, activity log, Alerts
//! Management, Cost Management query). The text output for a pool at its evening peak is a
//! golden file (`GPUFORM_BLESS=1` rewrites it).

mod common;

use std::path::Path;
use std::time::Duration;

use common::*;
use serde_json::Value;
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, ResponseTemplate};

const RG: &str = "rg-shortvideo-prod";
/// 20:30 in China Standard Time: the spec's evening-peak profile is in force.
const NOW: &str = "2026-12-02T12:30:00Z";
/// The workspace's `properties.customerId` (its workspace ID, what the Logs Query API takes).
const WORKSPACE_GUID: &str = "0b6d8f4e-5c3a-4f2e-9a1b-7c8d9e0f1a2b";

fn rg(rest: &str) -> String {
    FakeAzure::sub_path(&format!("resourceGroups/{RG}/{rest}"))
}

/// Every status call answered from the fixtures; `except` paths are left to the test.
fn mount_pool(fake: &FakeAzure, except: &[&str]) {
    let ok = |v: Value| ResponseTemplate::new(200).set_body_json(v);
    let calls: Vec<(&str, String, Value)> = vec![
        (
            "GET",
            rg("providers/Microsoft.Compute/virtualMachines"),
            status_fixture("virtual-machines.json"),
        ),
        (
            "GET",
            rg("providers/Microsoft.Insights/autoscalesettings/as-shortvideo-transcode"),
            status_fixture("autoscale-setting.json"),
        ),
        (
            "GET",
            rg(
                "providers/Microsoft.ServiceBus/namespaces/sb-shortvideo-prod/providers/Microsoft.Insights/metrics",
            ),
            status_fixture("metrics.json"),
        ),
        (
            "GET",
            FakeAzure::sub_path("providers/Microsoft.Insights/eventtypes/management/values"),
            status_fixture("activity-log.json"),
        ),
        (
            "GET",
            FakeAzure::sub_path("providers/Microsoft.AlertsManagement/alerts"),
            status_fixture("alerts.json"),
        ),
        (
            "POST",
            rg("providers/Microsoft.CostManagement/query"),
            status_fixture("cost-query.json"),
        ),
    ];
    // drift: the what-if recording of tests/fixtures/deploy (the spec's example answer)
    let recording: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/deploy/whatif-recording.json"),
        )
        .unwrap(),
    )
    .unwrap();
    if !except.contains(&"/whatIf") {
        fake.mount(
            Mock::given(method("POST"))
                .and(wiremock::matchers::path_regex(format!(r"^/subscriptions/{SUB}/resourcegroups/{RG}/providers/Microsoft\.Resources/deployments/[^/]+/whatIf$")))
                .respond_with(ok(recording["responses"]["200"]["body"].clone())),
        );
    }
    // the workspace (its customerId through ARM) and the Logs Query API (tests/common/log_query.rs)
    if !except.contains(&"/query") {
        fake.mount_log_query(
            &rg("providers/Microsoft.OperationalInsights/workspaces/log-shortvideo-transcode"),
            WORKSPACE_GUID,
            status_fixture("log-query.json"),
        );
    }
    for (m, p, body) in calls {
        if except.iter().any(|e| p.ends_with(e)) {
            continue;
        }
        fake.mount(Mock::given(method(m)).and(path(p)).respond_with(ok(body)));
    }
}

fn status(fake: &FakeAzure) -> assert_cmd::Command {
    let mut c = fake.gpuform();
    c.arg("status").arg(spec()).args([
        "-g",
        RG,
        "--now",
        NOW,
        "--arm-endpoint",
        &format!("{}/", fake.base),
        "--retry-delay-ms",
        "50",
    ]);
    c
}

fn golden(name: &str, actual: &str) {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/status")
        .join(name);
    if std::env::var_os("GPUFORM_BLESS").is_some() {
        std::fs::write(&p, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&p).unwrap_or_default();
    assert_eq!(
        actual,
        expected,
        "status output differs from {} (GPUFORM_BLESS=1 to rewrite)",
        p.display()
    );
}

#[test]
fn status_of_a_pool_at_its_evening_peak() {
    let fake = FakeArm::new().start();
    mount_pool(&fake, &[]);
    let out = status(&fake).output().unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    golden("shortvideo-peak.txt", &stdout);
    // the calls are the documented ones
    let reqs = fake.requests();
    let vms = reqs
        .iter()
        .find(|r| r.url.path().ends_with("/virtualMachines"))
        .unwrap();
    let q: Vec<(String, String)> = vms
        .url
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    assert!(
        q.contains(&("$expand".into(), "instanceView".into())),
        "{q:?}"
    );
    assert!(
        q.iter().any(|(k, v)| k == "$filter"
            && v.starts_with("'virtualMachineScaleSet/id' eq '/subscriptions/")
            && v.ends_with("/virtualMachineScaleSets/vmss-shortvideo-transcode'")),
        "{q:?}"
    );
    let metric = reqs
        .iter()
        .find(|r| r.url.path().ends_with("/metrics"))
        .unwrap();
    let q: Vec<(String, String)> = metric
        .url
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    assert!(
        q.contains(&("metricnames".into(), "ActiveMessages".into())),
        "{q:?}"
    );
    assert!(
        q.contains(&("$filter".into(), "EntityName eq 'transcode-jobs'".into())),
        "{q:?}"
    );
    let cost = reqs
        .iter()
        .find(|r| r.url.path().ends_with("Microsoft.CostManagement/query"))
        .unwrap();
    let body: Value = serde_json::from_slice(&cost.body).unwrap();
    assert_eq!(body["timeframe"], "MonthToDate");
    assert_eq!(body["type"], "ActualCost");
    // the workspace is read with the Logs Query API (v1, the workspace GUID from ARM): the
    // computers that wrote a GpuTelemetry_CL row in the last 15 minutes
    let logs = reqs
        .iter()
        .find(|r| r.url.path().starts_with("/v1/"))
        .unwrap();
    assert_eq!(
        logs.url.path(),
        format!("/v1/workspaces/{WORKSPACE_GUID}/query"),
        "{}",
        logs.url
    );
    assert_eq!(logs.url.query(), None, "{}", logs.url);
    let body: Value = serde_json::from_slice(&logs.body).unwrap();
    let q = body["query"].as_str().unwrap();
    assert!(
        q.starts_with("GpuTelemetry_CL")
            && q.contains("ago(15m)")
            && q.contains("dcount(Computer)"),
        "{q}"
    );
    assert_eq!(body["timespan"], "PT15M");
    // 7 running instances, 5 computers reported: the missing-telemetry line names 2
    assert!(
        stdout.contains(
            "5 of 7 running instance(s) wrote a GpuTelemetry_CL row in the last 15 minutes"
        ),
        "{stdout}"
    );
    assert!(
        stdout
            .contains("MISSING: 2 running instance(s) sent no GpuTelemetry_CL row for 15 minutes"),
        "{stdout}"
    );
}

#[test]
fn json_and_markdown_carry_the_same_figures() {
    let fake = FakeArm::new().start();
    mount_pool(&fake, &[]);
    let out = status(&fake).args(["--output", "json"]).output().unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["instances"]["total"], 8);
    assert_eq!(v["instances"]["byPriority"]["Spot"], 6);
    assert_eq!(v["autoscale"]["activeProfile"], "evening-peak");
    assert_eq!(v["autoscale"]["min"], 6);
    assert_eq!(v["queue"]["length"], 216.0);
    assert_eq!(v["queue"]["perInstance"], 216.0 / 7.0);
    assert_eq!(v["telemetry"]["running"], 7);
    assert_eq!(v["telemetry"]["reporting"], 5);
    assert_eq!(v["telemetry"]["silent"], 2);
    assert_eq!(v["cost"]["monthToDate"], 1234.5678);
    assert_eq!(v["cost"]["budget"], 15000.0);
    // the activity log records each operation as a Started and a Succeeded event under one
    // correlationId: one eviction and two scale actions, each once, with its final status
    let evictions = v["activity"]["spotEvictions"].as_array().unwrap();
    assert_eq!(evictions.len(), 1, "{v}");
    assert_eq!(evictions[0]["status"], "Succeeded");
    assert_eq!(evictions[0]["time"], "2026-12-02T09:12:44Z");
    let scale = v["activity"]["scaleActions"].as_array().unwrap();
    assert_eq!(scale.len(), 2, "{v}");
    assert!(scale.iter().all(|a| a["status"] == "Succeeded"), "{v}");
    let out = status(&fake)
        .args(["--output", "markdown"])
        .output()
        .unwrap();
    let (md, _) = texts(&out);
    assert!(
        md.starts_with("### gpuform status: `shortvideo-transcode` in `rg-shortvideo-prod`"),
        "{md}"
    );
    assert!(md.contains("- 8 in all: 7 running, 1 starting"), "{md}");
}

#[test]
fn sections_azure_refuses_degrade_instead_of_failing() {
    let fake = FakeArm::new().start();
    mount_pool(&fake, &["/alerts", "/query", "/values"]);
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path("providers/Microsoft.AlertsManagement/alerts")))
            .respond_with(ResponseTemplate::new(403).set_body_json(arm_error("AuthorizationFailed", "The client does not have authorization to perform action 'Microsoft.AlertsManagement/alerts/read'."))),
    );
    fake.mount(
        Mock::given(method("POST"))
            .and(path(rg("providers/Microsoft.CostManagement/query")))
            .respond_with(ResponseTemplate::new(404).set_body_json(arm_error(
                "NotFound",
                "Cost data is not available for this scope.",
            ))),
    );
    // throttled once, then answered: retried, not degraded
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(
                "providers/Microsoft.Insights/eventtypes/management/values",
            )))
            .and(query_param("api-version", "2015-04-01"))
            .respond_with(seq(vec![
                ResponseTemplate::new(429)
                    .insert_header("Retry-After", "1")
                    .set_body_json(arm_error("TooManyRequests", "slow down")),
                ResponseTemplate::new(200).set_body_json(status_fixture("activity-log.json")),
            ])),
    );
    let out = status(&fake).output().unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains("Alerts fired (24 h)\n  not available: HTTP 403 AuthorizationFailed"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Microsoft.AlertsManagement/alerts/read"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Cost\n  not available: HTTP 404 NotFound"),
        "{stdout}"
    );
    assert!(
        stdout.contains("scale out 6 -> 8: ActiveMessages per instance 34.5 > 30"),
        "{stdout}"
    );
    assert!(stdout.contains("7 running"), "{stdout}");
}

#[test]
fn a_rejected_token_fails_the_whole_command() {
    let fake = FakeArm::new().start();
    fake.mount(
        Mock::given(wiremock::matchers::path_regex(".*")).respond_with(
            ResponseTemplate::new(401).set_body_json(arm_error(
                "InvalidAuthenticationToken",
                "The access token is invalid.",
            )),
        ),
    );
    let out = status(&fake).output().unwrap();
    let (_, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("InvalidAuthenticationToken"), "{stderr}");
    let _ = Duration::ZERO;
}

/// Azure refusing every section (403 on each call): the view still prints each reason, but
/// nothing was read, so the exit code is 2 (access), not 0 (README "Exit codes", issue 24).
#[test]
fn every_section_unavailable_exits_2() {
    let fake = FakeArm::new().start();
    fake.mount(
        Mock::given(wiremock::matchers::path_regex(".*")).respond_with(
            ResponseTemplate::new(403).set_body_json(arm_error(
                "AuthorizationFailed",
                "The client does not have authorization to perform this action.",
            )),
        ),
    );
    let out = status(&fake).arg("--no-drift").output().unwrap();
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(stdout.contains("not available: HTTP 403"), "{stdout}");
    assert!(stderr.contains("none of the sections"), "{stderr}");
}

/// The dev box of examples/dev-notebook-t4.yaml (autoShutdown, one instance, no autoscale): one
/// VM, not a scale set. Friday 21:30 in W. Europe Standard Time, after the 19:00 shutdown.
#[test]
fn status_of_a_dev_box_reads_the_vm_and_its_schedule() {
    const DEV_RG: &str = "rg-dev-notebook";
    const DEV_NOW: &str = "2026-12-04T20:30:00Z";
    let dev_rg = |rest: &str| FakeAzure::sub_path(&format!("resourceGroups/{DEV_RG}/{rest}"));
    let ok = |v: Value| ResponseTemplate::new(200).set_body_json(v);
    let fake = FakeArm::new().start();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(dev_rg(
                "providers/Microsoft.Compute/virtualMachines/vm-dev-notebook",
            )))
            .and(query_param("$expand", "instanceView"))
            .respond_with(ok(status_fixture("dev-box-vm.json"))),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(
                "providers/Microsoft.Insights/eventtypes/management/values",
            )))
            .respond_with(ok(serde_json::json!({"value": []}))),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(
                "providers/Microsoft.AlertsManagement/alerts",
            )))
            .respond_with(ok(serde_json::json!({"value": []}))),
    );
    fake.mount(
        Mock::given(method("POST"))
            .and(path(dev_rg("providers/Microsoft.CostManagement/query")))
            .respond_with(ok(status_fixture("cost-query.json"))),
    );
    let run = |extra: &[&str]| {
        let mut c = fake.gpuform();
        c.arg("status")
            .arg(examples("dev-notebook-t4.yaml"))
            .args([
                "-g",
                DEV_RG,
                "--now",
                DEV_NOW,
                "--no-drift",
                "--arm-endpoint",
                &format!("{}/", fake.base),
                "--retry-delay-ms",
                "50",
            ])
            .args(extra);
        c.output().unwrap()
    };
    let out = run(&[]);
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.starts_with("dev-notebook in rg-dev-notebook (dev box VM vm-dev-notebook), "),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "Dev box\n  vm-dev-notebook: deallocated\n  priority: Regular\n  zone: regional\n"
        ),
        "{stdout}"
    );
    // shutdown every day at 19:00; started at 08:00 on working days (weekends: true keeps it
    // off until Monday)
    assert!(
        stdout.contains(
            "shutdown (deallocate) 19:00 every day (W. Europe Standard Time): next 2026-12-05 19:00 (2026-12-05T18:00:00Z) by shutdown-computevm-vm-dev-notebook"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "start 08:00 on Monday, Tuesday, Wednesday, Thursday, Friday (W. Europe Standard Time): next 2026-12-07 08:00 (2026-12-07T07:00:00Z) by logic-dev-notebook-start"
        ),
        "{stdout}"
    );
    // no scale set, no autoscale profile
    assert!(!stdout.contains("Instances\n"), "{stdout}");
    assert!(!stdout.contains("Autoscale\n"), "{stdout}");
    assert!(!stdout.contains("fixed-size pool"), "{stdout}");
    assert!(!stdout.contains("vmss-"), "{stdout}");
    // the other sections stay
    assert!(stdout.contains("Alerts fired (24 h)\n  none\n"), "{stdout}");
    assert!(
        stdout.contains("Cost\n  month to date: 1234.57"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "Drift (what-if of the spec against the group)\n  not available: skipped (--no-drift)"
        ),
        "{stdout}"
    );
    // the VM is read with its instance view at the plan's Compute API version; no scale set
    // or autoscale setting is asked for
    let reqs = fake.requests();
    let vm = reqs
        .iter()
        .find(|r| r.url.path().ends_with("/virtualMachines/vm-dev-notebook"))
        .expect("the VM is read");
    let q: Vec<(String, String)> = vm
        .url
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    assert!(
        q.contains(&("api-version".into(), "2025-11-01".into())),
        "{q:?}"
    );
    assert!(
        q.contains(&("$expand".into(), "instanceView".into())),
        "{q:?}"
    );
    assert!(
        !reqs.iter().any(|r| {
            let p = r.url.path();
            p.contains("virtualMachineScaleSets") || p.contains("autoscalesettings")
        }),
        "{:?}",
        reqs.iter()
            .map(|r| r.url.path().to_string())
            .collect::<Vec<_>>()
    );
    // JSON: the dev box replaces instances and autoscale
    let out = run(&["--output", "json"]);
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["devBox"]["vm"], "vm-dev-notebook");
    assert_eq!(v["devBox"]["state"]["powerState"], "deallocated");
    assert_eq!(v["devBox"]["state"]["priority"], "Regular");
    assert_eq!(v["devBox"]["shutdown"]["next"], "2026-12-05T18:00:00Z");
    assert_eq!(v["devBox"]["start"]["next"], "2026-12-07T07:00:00Z");
    assert!(v.get("instances").is_none(), "{v}");
    assert!(v.get("autoscale").is_none(), "{v}");
    assert!(v.get("scaleSet").is_none(), "{v}");
    assert_eq!(v["cost"]["budget"], 800.0);
}

/// The book's "A day in the life" (docs/src/day-in-the-life.md, the README's until issue 37)
/// shows this screen and says it is the golden: every line it shows (its `...` lines elide) is a
/// line of the golden, so a changed estimate or layout cannot leave the docs behind.
#[test]
fn the_readme_status_screen_is_the_golden() {
    let readme = std::fs::read_to_string("docs/src/day-in-the-life.md").unwrap();
    let start = readme
        .find("$ gpuform status examples/shortvideo-transcode.yaml")
        .expect("A day in the life shows the status screen");
    let block = &readme[start..];
    let block = &block[..block.find("```").unwrap()];
    let golden = std::fs::read_to_string("tests/golden/status/shortvideo-peak.txt").unwrap();
    let golden_lines: Vec<&str> = golden.lines().collect();
    let mut shown = 0;
    for line in block.lines().skip(1) {
        if line.trim() == "..." || line.trim().is_empty() {
            continue;
        }
        assert!(
            golden_lines.contains(&line),
            "day-in-the-life.md status line not in the golden: {line:?}"
        );
        shown += 1;
    }
    assert!(shown > 10, "{shown} lines compared");
}

/// A "Metrics - List" answer in the shape Azure Monitor sends (tests/fixtures/status/metrics.json,
/// the REST specification's example): one timeseries without dimensions whose points carry the
/// asked aggregation (`None`: a minute Azure lists without a value), or no timeseries at all
/// (`points` empty: what an idle gateway gives).
fn monitor_answer(id: &str, metric: &str, unit: &str, agg: &str, points: &[Option<f64>]) -> Value {
    let data: Vec<Value> = points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut d =
                serde_json::json!({"timeStamp": format!("2026-12-02T12:{:02}:00Z", 15 + i)});
            if let Some(v) = p {
                d[agg.to_ascii_lowercase()] = serde_json::json!(v);
            }
            d
        })
        .collect();
    let timeseries = if points.is_empty() {
        serde_json::json!([])
    } else {
        serde_json::json!([{"metadatavalues": [], "data": data}])
    };
    serde_json::json!({
        "cost": 0,
        "timespan": "2026-12-02T12:15:00Z/2026-12-02T12:30:00Z",
        "interval": "PT1M",
        "namespace": id.split("/providers/").nth(1).unwrap().rsplit_once('/').unwrap().0,
        "resourceregion": "eastus2",
        "value": [{
            "id": format!("{id}/providers/Microsoft.Insights/metrics/{metric}"),
            "type": "Microsoft.Insights/metrics",
            "name": {"value": metric, "localizedValue": metric},
            "unit": unit,
            "timeseries": timeseries,
            "errorCode": "Success"
        }]
    })
}

#[test]
fn status_of_a_serving_pool_shows_its_frontends_metrics_and_says_no_data() {
    const SRV_RG: &str = "rg-llm-70b";
    let fake = FakeArm::new().start();
    // the resource names are the plan's: the JSON says them, the requests are checked below
    let ok = |v: Value| ResponseTemplate::new(200).set_body_json(v);
    let gw_re = format!(
        r"^/subscriptions/{SUB}/resourceGroups/{SRV_RG}/providers/Microsoft\.Network/applicationGateways/([^/]+)/providers/Microsoft\.Insights/metrics$"
    );
    let lb_re = format!(
        r"^/subscriptions/{SUB}/resourceGroups/{SRV_RG}/providers/Microsoft\.Network/loadBalancers/([^/]+)/providers/Microsoft\.Insights/metrics$"
    );
    let gw_id =
        "/subscriptions/x/resourceGroups/y/providers/Microsoft.Network/applicationGateways/agw";
    let lb_id = "/subscriptions/x/resourceGroups/y/providers/Microsoft.Network/loadBalancers/lb";
    let gateway: [(&str, &str, &str, &[Option<f64>]); 5] = [
        (
            "TotalRequests",
            "Count",
            "Total",
            &[Some(1180.0), None, Some(1204.0)],
        ),
        // idle minutes of failures: Azure sends no timeseries
        ("FailedRequests", "Count", "Total", &[]),
        (
            "HealthyHostCount",
            "Count",
            "Average",
            &[Some(3.0), Some(2.0)],
        ),
        (
            "UnhealthyHostCount",
            "Count",
            "Average",
            &[Some(1.0), Some(0.0)],
        ),
        (
            "BackendLastByteResponseTime",
            "MilliSeconds",
            "Average",
            &[Some(900.0), Some(1234.4)],
        ),
    ];
    for (metric, unit, agg, points) in gateway {
        fake.mount(
            Mock::given(method("GET"))
                .and(wiremock::matchers::path_regex(gw_re.clone()))
                .and(query_param("metricnames", metric))
                .and(query_param("aggregation", agg))
                .respond_with(ok(monitor_answer(gw_id, metric, unit, agg, points))),
        );
    }
    // the load balancer: minutes listed without a value (no probe data)
    fake.mount(
        Mock::given(method("GET"))
            .and(wiremock::matchers::path_regex(lb_re.clone()))
            .and(query_param("metricnames", "DipAvailability"))
            .and(query_param("aggregation", "Average"))
            .respond_with(ok(monitor_answer(
                lb_id,
                "DipAvailability",
                "Count",
                "Average",
                &[None, None],
            ))),
    );
    let run = |extra: &[&str]| {
        let mut c = fake.gpuform();
        c.arg("status")
            .arg(examples("llm-70b-tensor-parallel.yaml"))
            .args([
                "-g",
                SRV_RG,
                "--now",
                NOW,
                "--no-drift",
                "--no-follow",
                "--arm-endpoint",
                &format!("{}/", fake.base),
                "--retry-delay-ms",
                "50",
            ])
            .args(extra);
        c.output().unwrap()
    };
    let out = run(&["--output", "json"]);
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}\n{stdout}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let s = &v["serving"];
    assert_eq!(s["frontend"], "both", "{s}");
    assert_eq!(s["windowMinutes"], 15);
    let g = &s["gateway"];
    assert_eq!(g["requests"], 1204.0, "{g}");
    assert_eq!(g["failedRequests"], Value::Null, "{g}");
    assert_eq!(g["healthyHosts"], 2.0, "{g}");
    assert_eq!(g["unhealthyHosts"], 0.0, "{g}");
    assert_eq!(g["backendLastByteMs"], 1234.4, "{g}");
    let lb = &s["loadBalancer"];
    assert_eq!(lb["probeAvailability"], Value::Null, "{lb}");
    // each figure was asked for the plan's resource, over the last 15 minutes per minute
    let reqs = fake.requests();
    let gw_name = g["name"].as_str().unwrap();
    let lb_name = lb["name"].as_str().unwrap();
    for (name, kind, n) in [
        (gw_name, "applicationGateways", 5),
        (lb_name, "loadBalancers", 1),
    ] {
        let asked: Vec<_> = reqs
            .iter()
            .filter(|r| {
                r.url.path()
                    == FakeAzure::sub_path(&format!(
                        "resourceGroups/{SRV_RG}/providers/Microsoft.Network/{kind}/{name}/providers/Microsoft.Insights/metrics"
                    ))
            })
            .collect();
        assert_eq!(asked.len(), n, "{kind} {name}");
        for r in asked {
            let q: Vec<(String, String)> = r
                .url
                .query_pairs()
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect();
            assert!(q.contains(&("timespan".into(), "PT15M".into())), "{q:?}");
            assert!(q.contains(&("interval".into(), "PT1M".into())), "{q:?}");
        }
    }
    // text: values shown, the absent ones said as no data rather than 0
    let out = run(&[]);
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains(&format!(
            "Serving frontend\n  both frontend; each figure is the latest minute with data in the last 15 minutes\n  gateway {gw_name}: requests 1204, failed no data (no traffic?)\n  gateway {gw_name}: healthy hosts 2.0, unhealthy hosts 0.0\n  gateway {gw_name}: backend last-byte response time 1234 ms (average;"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "load balancer {lb_name}: health probe status no data (no traffic?) (average;"
        )),
        "{stdout}"
    );
}
