//! `simulate SPEC -g RG --since 2d` (issue 22): the queue's arrivals read from Azure Monitor
//! "Metrics - List" on a fake ARM, in the response shape ARM sends (the recording in
//! `tests/fixtures/status/metrics.json`: `cost, timespan, interval, namespace, resourceregion,
//! value[{id, type, name{value, localizedValue}, unit, timeseries[{metadatavalues, data}]}]`).
//! The fake answers only what Azure would: api-version 2023-10-01, PT1M, the Total aggregation,
//! a timespan of at most a day per request (gpuform asks day by day), and the EntityName filter
//! of the spec's queue; anything else is a 400 with ARM's error shape.
//!
//! And the GPU telemetry of the same window from the spec's workspace, through the fake Logs
//! Query API of `tests/common/log_query.rs` (Learn's request and `tables` response format). The
//! fake holds raw `GpuTelemetry_CL` rows (two VMs with two GPUs, a health row, impossible
//! utilisations) and answers gpuform's two summarising queries from them by the rules
//! `--telemetry FILE` reads an export with; the figures must equal those of the same rows given
//! as a file.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::log_query::{Answer, table};
use common::*;
use jiff::Timestamp;
use serde_json::{Value, json};
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, Request, Respond, ResponseTemplate};

const RG: &str = "rg-shortvideo-prod";
const PER_MINUTE: u64 = 3;
const GUID: &str = "6f1c0a3e-2b4d-4e8f-9a1b-3c5d7e9f1a2b";
/// A Monday; --since 36h before it: a full day and a partial one.
const UNTIL: &str = "2026-11-09T06:00:00Z";

struct Metrics;

fn bad(message: &str) -> ResponseTemplate {
    ResponseTemplate::new(400)
        .set_body_json(json!({"error": {"code": "BadRequest", "message": message}}))
}

/// `START/END` of a request, as two instants.
fn span(t: &str) -> Option<(Timestamp, Timestamp)> {
    let (a, b) = t.split_once('/')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

impl Respond for Metrics {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let q: std::collections::HashMap<String, String> =
            req.url.query_pairs().into_owned().collect();
        let get = |k: &str| q.get(k).map(String::as_str).unwrap_or("");
        if get("api-version") != "2023-10-01" {
            return bad("unsupported api-version");
        }
        if get("metricnames") != "IncomingMessages"
            || get("aggregation") != "Total"
            || get("interval") != "PT1M"
        {
            return bad("unexpected metric, aggregation or interval");
        }
        if get("$filter") != "EntityName eq 'transcode-jobs'" {
            return bad("unexpected filter");
        }
        let Some((a, b)) = span(get("timespan")) else {
            return bad("timespan must be START/END in ISO 8601");
        };
        let secs = b.as_second() - a.as_second();
        if secs <= 0 || secs > 86_400 {
            return bad("timespan out of range for this test's fake (a day at most)");
        }
        let data: Vec<Value> = (0..secs / 60)
            .map(|m| {
                let t = Timestamp::from_second(a.as_second() + m * 60).unwrap();
                json!({"timeStamp": t.to_string(), "total": PER_MINUTE as f64})
            })
            .collect();
        ResponseTemplate::new(200).set_body_json(json!({
            "cost": 0,
            "timespan": get("timespan"),
            "interval": "PT1M",
            "namespace": "Microsoft.ServiceBus/namespaces",
            "resourceregion": "eastus2",
            "value": [{
                "id": format!("/subscriptions/{SUB}/resourceGroups/{RG}/providers/Microsoft.ServiceBus/namespaces/sb-shortvideo-prod/providers/Microsoft.Insights/metrics/IncomingMessages"),
                "type": "Microsoft.Insights/metrics",
                "name": {"value": "IncomingMessages", "localizedValue": "Incoming Messages"},
                "displayDescription": "Incoming Messages for Microsoft.ServiceBus.",
                "unit": "Count",
                "timeseries": [{
                    "metadatavalues": [{"name": {"value": "entityname", "localizedValue": "entityname"}, "value": "transcode-jobs"}],
                    "data": data
                }],
                "errorCode": "Success"
            }]
        }))
    }
}

fn metrics_path() -> String {
    FakeAzure::sub_path(&format!(
        "resourceGroups/{RG}/providers/Microsoft.ServiceBus/namespaces/sb-shortvideo-prod/providers/Microsoft.Insights/metrics"
    ))
}

fn workspace_path() -> String {
    FakeAzure::sub_path(&format!(
        "resourceGroups/{RG}/providers/Microsoft.OperationalInsights/workspaces/log-shortvideo-transcode"
    ))
}

/// One raw `GpuTelemetry_CL` row: (time, computer, GPU, utilisation, status).
type Row = (Timestamp, &'static str, u32, Option<f64>, &'static str);

/// The raw rows of the minute starting at `t` (epoch seconds, whole minute): vm-a works 6
/// minutes in 10 and idles (2 %) the others, its GPU 1 reporting an impossible 250 % every 97th
/// minute; vm-b runs every other hour at 50 %; vm-c writes a health row only.
fn rows_of_minute(t: i64) -> Vec<Row> {
    let m = t / 60;
    let at = Timestamp::from_second(t + 7).unwrap();
    let mut v = Vec::new();
    let a = if m % 10 < 6 { 80.0 } else { 2.0 };
    v.push((at, "vmss-a", 0, Some(a), "ok"));
    v.push((
        at,
        "vmss-a",
        1,
        Some(if m % 97 == 0 { 250.0 } else { a }),
        "ok",
    ));
    if (m / 60) % 2 == 0 {
        v.push((at, "vmss-b", 0, Some(50.0), "ok"));
        v.push((at, "vmss-b", 1, Some(50.0), "ok"));
    }
    v.push((at, "vmss-c", 0, None, "gpu-missing"));
    v
}

fn rows_between(a: Timestamp, b: Timestamp) -> Vec<Row> {
    let first = a.as_second().div_euclid(60) * 60;
    (0..)
        .map(|i| first + i * 60)
        .take_while(|t| *t < b.as_second())
        .flat_map(rows_of_minute)
        .filter(|r| r.0 >= a && r.0 < b)
        .collect()
}

fn counts(r: &Row) -> bool {
    (r.4.is_empty() || r.4 == "ok") && r.3.is_some()
}

fn valid(r: &Row) -> bool {
    counts(r) && r.3.is_some_and(|u| (0.0..=100.0).contains(&u))
}

/// The fake workspace's answer to gpuform's two queries, from [`rows_between`] over the body's
/// `timespan`. Anything else is refused (400, the OneAPI error shape).
fn telemetry_answer(empty: bool) -> Answer {
    Arc::new(move |body: &Value| {
        let q = body["query"].as_str().unwrap_or("");
        let Some((a, b)) = body["timespan"].as_str().and_then(span) else {
            return ResponseTemplate::new(400).set_body_json(
                json!({"error": {"code": "BadArgumentError", "message": "timespan"}}),
            );
        };
        // the query's own bounds are the timespan's
        assert!(
            q.contains(&format!("datetime({a})")) && q.contains(&format!("datetime({b})")),
            "{q}"
        );
        assert!(q.starts_with("GpuTelemetry_CL"), "{q}");
        let rows = if empty {
            Vec::new()
        } else {
            rows_between(a, b)
        };
        if q.contains("summarize Rows") {
            let vms: std::collections::BTreeSet<&str> =
                rows.iter().filter(|r| valid(r)).map(|r| r.1).collect();
            let impossible = rows.iter().filter(|r| counts(r) && !valid(r)).count();
            return ResponseTemplate::new(200).set_body_json(table(
                &[
                    ("Rows", "long"),
                    ("Computers", "long"),
                    ("Impossible", "long"),
                ],
                vec![json!([rows.len(), vms.len(), impossible])],
            ));
        }
        if q.contains("by Minute") {
            let threshold: f64 = q
                .split("Utilization < ")
                .nth(1)
                .and_then(|t| t.split(')').next())
                .and_then(|t| t.trim().parse().ok())
                .expect("the query names the idle threshold");
            // minute -> computer -> (sum, samples)
            let mut cells: std::collections::BTreeMap<
                i64,
                std::collections::BTreeMap<&str, (f64, u32)>,
            > = Default::default();
            for r in rows.iter().filter(|r| valid(r)) {
                let c = cells
                    .entry(r.0.as_second().div_euclid(60) * 60)
                    .or_default()
                    .entry(r.1)
                    .or_default();
                c.0 += r.3.unwrap();
                c.1 += 1;
            }
            let out: Vec<Value> = cells
                .iter()
                .map(|(t, vms)| {
                    let idle = vms
                        .values()
                        .filter(|(s, n)| s / f64::from(*n) < threshold)
                        .count();
                    let samples: u32 = vms.values().map(|(_, n)| n).sum();
                    json!([
                        Timestamp::from_second(*t).unwrap().to_string(),
                        vms.len(),
                        idle,
                        samples
                    ])
                })
                .collect();
            return ResponseTemplate::new(200).set_body_json(table(
                &[
                    ("Minute", "datetime"),
                    ("Instances", "long"),
                    ("Idle", "long"),
                    ("Samples", "long"),
                ],
                out,
            ));
        }
        ResponseTemplate::new(400).set_body_json(
            json!({"error": {"code": "BadArgumentError", "message": "a query this fake does not know"}}),
        )
    })
}

/// A fake ARM with the queue's metrics and (unless `workspace` is false) the workspace.
fn fake_with(workspace: Option<bool>) -> FakeAzure {
    let fake = FakeArm::new().start();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(metrics_path()))
            .respond_with(Metrics),
    );
    if let Some(empty) = workspace {
        fake.mount_log_query_with(&workspace_path(), GUID, telemetry_answer(empty));
    }
    fake
}

fn simulate(fake: &FakeAzure, extra: &[&str]) -> std::process::Output {
    fake.gpuform()
        .arg("simulate")
        .arg(examples("shortvideo-transcode.yaml"))
        .args([
            "-g",
            RG,
            "--arm-endpoint",
            &format!("{}/", fake.base),
            "--retry-delay-ms",
            "50",
        ])
        .args(extra)
        .output()
        .unwrap()
}

fn json_of(out: &std::process::Output) -> Value {
    show(out);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn queries(fake: &FakeAzure) -> Vec<Value> {
    fake.requests()
        .into_iter()
        .filter(|r| r.method.as_str() == "POST" && r.url.path().ends_with("/query"))
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

fn metric_spans(fake: &FakeAzure) -> Vec<(Timestamp, Timestamp)> {
    fake.requests()
        .into_iter()
        .filter(|r| r.url.path().ends_with("/metrics"))
        .map(|r| {
            let t = r
                .url
                .query_pairs()
                .find(|(k, _)| k == "timespan")
                .unwrap()
                .1
                .into_owned();
            span(&t).unwrap()
        })
        .collect()
}

#[test]
fn simulate_reads_the_queues_arrivals_from_azure_monitor() {
    let fake = fake_with(Some(false));
    let out = simulate(
        &fake,
        &[
            "--since",
            "2d",
            "--job-duration",
            "PT2M",
            "--output",
            "json",
        ],
    );
    let v = json_of(&out);
    // two days of one-minute points, 3 a minute, read a day per request
    assert_eq!(v["trace"]["minutes"].as_u64().unwrap(), 2 * 1440);
    assert_eq!(v["trace"]["jobs"].as_u64().unwrap(), 2 * 1440 * PER_MINUTE);
    assert!(
        v["trace"]["source"]
            .as_str()
            .unwrap()
            .contains("IncomingMessages")
    );
    let metrics: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|r| r.url.path().ends_with("/metrics"))
        .collect();
    assert_eq!(metrics.len(), 2);
    assert!(metrics.iter().all(|r| {
        r.headers
            .get("authorization")
            .is_some_and(|h| h.to_str().unwrap() == format!("Bearer {TOKEN}"))
    }));
}

/// The telemetry pulled from the workspace gives the figures the same rows give as a file, the
/// job time when none is given, and every answer stays within a day's 1,440 rows.
#[test]
fn simulate_reads_the_gpu_telemetry_from_the_workspace_as_a_file_would() {
    let fake = fake_with(Some(false));
    let out = simulate(
        &fake,
        &["--since", "36h", "--until", UNTIL, "--output", "json"],
    );
    let v = json_of(&out);
    let m = &v["measured"];
    assert!(m.is_object(), "{v}");
    assert!(
        m["source"].as_str().unwrap().contains("GpuTelemetry_CL")
            && m["source"]
                .as_str()
                .unwrap()
                .contains("log-shortvideo-transcode"),
        "{m}"
    );
    assert_eq!(m["minutesCovered"].as_u64().unwrap(), 36 * 60);
    // the job time came from the telemetry: the spec has none and none was given
    assert!(
        v["assumptions"][0]
            .as_str()
            .unwrap()
            .contains("estimated from the telemetry"),
        "{}",
        v["assumptions"]
    );
    // one totals query over the window, then a day per request (24 h + 12 h), each bounded
    let q = queries(&fake);
    assert_eq!(q.len(), 3, "{q:?}");
    assert!(q[0]["query"].as_str().unwrap().contains("summarize Rows"));
    let spans: Vec<_> = q[1..]
        .iter()
        .map(|b| span(b["timespan"].as_str().unwrap()).unwrap())
        .collect();
    assert_eq!(
        spans,
        metric_spans(&fake),
        "telemetry and arrivals share the window's days"
    );
    assert_eq!(
        spans
            .iter()
            .map(|(a, b)| (b.as_second() - a.as_second()) / 3600)
            .collect::<Vec<_>>(),
        [24, 12]
    );

    // the same rows and arrivals as files
    let until: Timestamp = UNTIL.parse().unwrap();
    let start = Timestamp::from_second(until.as_second() - 36 * 3600).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut trace = String::from("timestamp,arrivals\n");
    for i in 0..36 * 60 {
        let t = Timestamp::from_second(start.as_second() + i * 60).unwrap();
        trace.push_str(&format!("{t},{PER_MINUTE}\n"));
    }
    let mut gpu = String::from("TimeGenerated,Computer,GpuIndex,UtilizationPercent,Status\n");
    for r in rows_between(start, until) {
        let u = r.3.map(|u| u.to_string()).unwrap_or_default();
        gpu.push_str(&format!("{},{},{},{u},{}\n", r.0, r.1, r.2, r.4));
    }
    std::fs::write(dir.path().join("trace.csv"), trace).unwrap();
    std::fs::write(dir.path().join("gpu.csv"), gpu).unwrap();
    let out = clean_command()
        .arg("simulate")
        .arg(examples("shortvideo-transcode.yaml"))
        .arg("--trace")
        .arg(dir.path().join("trace.csv"))
        .arg("--telemetry")
        .arg(dir.path().join("gpu.csv"))
        .args(["--output", "json"])
        .output()
        .unwrap();
    let f = json_of(&out);
    for key in [
        "rows",
        "rowsInWindow",
        "impossibleValuesSkipped",
        "minutesCovered",
        "instanceHours",
        "idleInstanceHours",
        "busyInstanceHours",
        "peakInstances",
        "estimatedJobMinutes",
        "simulated",
    ] {
        assert_eq!(
            m[key], f["measured"][key],
            "{key}: workspace {m} file {}",
            f["measured"]
        );
    }
    assert!(m["impossibleValuesSkipped"].as_u64().unwrap() > 0);
    assert!(m["idleInstanceHours"].as_f64().unwrap() > 0.0);
    assert_eq!(v["workload"], f["workload"]);
}

/// The weekly recipe's window: 14 days are 14 metric requests, one workspace GET, one totals
/// query and 14 per-minute queries, each answering at most 1,440 rows (the raw rows of the same
/// days are 14 x 1,440 x 5 here, and grow with VMs x GPUs in a real pool).
#[test]
fn fourteen_days_are_thirty_bounded_requests() {
    let fake = fake_with(Some(false));
    let t = Instant::now();
    let out = simulate(
        &fake,
        &[
            "--since",
            "14d",
            "--until",
            UNTIL,
            "--job-duration",
            "PT2M",
            "--output",
            "json",
        ],
    );
    let v = json_of(&out);
    eprintln!("14 days pulled and simulated in {:?}", t.elapsed());
    assert_eq!(v["trace"]["minutes"].as_u64().unwrap(), 14 * 1440);
    assert_eq!(v["measured"]["minutesCovered"].as_u64().unwrap(), 14 * 1440);
    assert_eq!(metric_spans(&fake).len(), 14);
    let q = queries(&fake);
    assert_eq!(q.len(), 15);
    for b in &q[1..] {
        let (a, z) = span(b["timespan"].as_str().unwrap()).unwrap();
        assert!(z.as_second() - a.as_second() <= 86_400);
    }
    let gets = fake
        .requests()
        .into_iter()
        .filter(|r| r.method.as_str() == "GET" && r.url.path() == workspace_path())
        .count();
    assert_eq!(gets, 1, "the workspace's GUID is read once");
}

/// A window across a clock change (Europe's, 2026-10-25 01:00 UTC; the spec's own zone has none,
/// the window is absolute time anyway) and with a partial last day: every minute read once.
#[test]
fn the_window_is_cut_in_days_of_absolute_time_across_a_clock_change() {
    let fake = fake_with(Some(false));
    let out = simulate(
        &fake,
        &[
            "--since",
            "60h",
            "--until",
            "2026-10-26T06:30:00Z",
            "--job-duration",
            "PT2M",
            "--output",
            "json",
        ],
    );
    let v = json_of(&out);
    assert_eq!(v["trace"]["minutes"].as_u64().unwrap(), 60 * 60);
    assert_eq!(
        v["trace"]["start"].as_str().unwrap(),
        "2026-10-23T18:30:00Z"
    );
    let spans = metric_spans(&fake);
    let hours: Vec<i64> = spans
        .iter()
        .map(|(a, b)| (b.as_second() - a.as_second()) / 3600)
        .collect();
    assert_eq!(hours, [24, 24, 12]);
    assert!(spans.windows(2).all(|w| w[0].1 == w[1].0), "{spans:?}");
    assert_eq!(v["measured"]["minutesCovered"].as_u64().unwrap(), 60 * 60);
}

#[test]
fn an_empty_workspace_is_a_warning_and_the_run_goes_on_with_the_arrivals() {
    let fake = fake_with(Some(true));
    let out = simulate(
        &fake,
        &[
            "--since",
            "1d",
            "--until",
            UNTIL,
            "--job-duration",
            "PT2M",
            "--output",
            "json",
        ],
    );
    let v = json_of(&out);
    assert!(v.get("measured").is_none(), "{v}");
    let w = v["warnings"][0].as_str().unwrap();
    assert!(
        w.contains("no GpuTelemetry_CL rows") && w.contains("gpuform status"),
        "{w}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: the workspace"), "{err}");
    // the totals query said so: no per-day queries
    assert_eq!(queries(&fake).len(), 1);
    // Markdown (the weekly recipe's pull request) says it too
    let out = simulate(
        &fake,
        &[
            "--since",
            "1d",
            "--until",
            UNTIL,
            "--job-duration",
            "PT2M",
            "--output",
            "markdown",
        ],
    );
    let (md, _) = texts(&out);
    assert!(md.contains("**Warning:** the workspace"), "{md}");
}

#[test]
fn a_telemetry_file_wins_over_the_workspace() {
    let fake = fake_with(None);
    let dir = tempfile::tempdir().unwrap();
    let gpu = dir.path().join("gpu.csv");
    let start =
        Timestamp::from_second(UNTIL.parse::<Timestamp>().unwrap().as_second() - 3600).unwrap();
    std::fs::write(
        &gpu,
        format!("TimeGenerated,Computer,UtilizationPercent\n{start},vm-a,90\n"),
    )
    .unwrap();
    let out = simulate(
        &fake,
        &[
            "--since",
            "1h",
            "--until",
            UNTIL,
            "--job-duration",
            "PT2M",
            "--output",
            "json",
            "--telemetry",
            gpu.to_str().unwrap(),
        ],
    );
    let v = json_of(&out);
    assert!(
        v["measured"]["source"]
            .as_str()
            .unwrap()
            .contains("gpu.csv")
    );
    assert!(queries(&fake).is_empty(), "the workspace was not asked");
}

/// 429 with Retry-After, then the answer: the wait is Azure's, not gpuform's 50 ms.
#[test]
fn a_throttled_query_waits_for_retry_after_and_goes_on() {
    let fake = fake_with(Some(false));
    fake.mount(
        Mock::given(method("POST"))
            .and(path_regex(r"/workspaces/[^/]+/query$"))
            .respond_with(
                ResponseTemplate::new(429)
                    .insert_header("Retry-After", "2")
                    .set_body_json(json!({"error": {"code": "ThrottledError", "message": "Your request was throttled"}})),
            )
            .up_to_n_times(1)
            .with_priority(1),
    );
    let t = Instant::now();
    let out = simulate(
        &fake,
        &[
            "--since",
            "1d",
            "--until",
            UNTIL,
            "--job-duration",
            "PT2M",
            "--output",
            "json",
        ],
    );
    let v = json_of(&out);
    assert!(t.elapsed() >= Duration::from_secs(2));
    assert!(v["measured"].is_object());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("HTTP 429; retry 1 of"), "{err}");
    assert_eq!(queries(&fake).len(), 3);
}

/// A 503 and a try that gets no answer within --timeout are retried; a 500 that persists fails
/// with what was asked and nothing on stdout when the job time needs the telemetry, and is a
/// warning otherwise.
#[test]
fn server_errors_and_timeouts_are_retried_then_reported() {
    let fake = fake_with(Some(false));
    fake.mount(
        Mock::given(method("POST"))
            .and(path_regex(r"/workspaces/[^/]+/query$"))
            .respond_with(ResponseTemplate::new(503))
            .up_to_n_times(1)
            .with_priority(1),
    );
    fake.mount(
        Mock::given(method("POST"))
            .and(path_regex(r"/workspaces/[^/]+/query$"))
            .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(4)))
            .up_to_n_times(1)
            .with_priority(2),
    );
    let out = simulate(
        &fake,
        &[
            "--since",
            "1d",
            "--until",
            UNTIL,
            "--job-duration",
            "PT2M",
            "--output",
            "json",
            "--timeout",
            "1",
        ],
    );
    let v = json_of(&out);
    assert!(v["measured"].is_object());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("HTTP 503; retry 1 of"), "{err}");
    assert!(err.contains("within 1 s"), "{err}");

    let fake = fake_with(Some(false));
    fake.mount(
        Mock::given(method("POST"))
            .and(path_regex(r"/workspaces/[^/]+/query$"))
            .respond_with(ResponseTemplate::new(500).set_body_json(
                json!({"error": {"code": "InternalServerError", "message": "something went wrong"}}),
            ))
            .with_priority(1),
    );
    // the job time comes from the telemetry: the run cannot go on without it
    let out = simulate(
        &fake,
        &["--since", "1d", "--until", UNTIL, "--retries", "2"],
    );
    assert_eq!(out.status.code(), Some(2));
    let (stdout, err) = texts(&out);
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        err.contains("query the Log Analytics workspace") && err.contains("500"),
        "{err}"
    );
    // with a job time the measurement is only beside the simulation: a warning that says why
    let out = simulate(
        &fake,
        &[
            "--since",
            "1d",
            "--until",
            UNTIL,
            "--retries",
            "2",
            "--job-duration",
            "PT2M",
            "--output",
            "json",
        ],
    );
    let v = json_of(&out);
    assert!(v.get("measured").is_none(), "{v}");
    let w = v["warnings"][0].as_str().unwrap();
    assert!(
        w.starts_with("could not read the GPU telemetry") && w.contains("500"),
        "{w}"
    );
}

/// A 200 whose body is not the table asked for fails (a warning when the job time is given); it
/// is never read as "no rows".
#[test]
fn a_malformed_answer_is_refused_not_read_as_empty() {
    for body in [
        ResponseTemplate::new(200).set_body_json(json!({"value": []})),
        ResponseTemplate::new(200).set_body_json(json!({"tables": [{"name": "PrimaryResult", "columns": [{"name": "Rows", "type": "long"}], "rows": [["many"]]}]})),
        ResponseTemplate::new(200).set_body_json(json!({"tables": [], "error": {"code": "PartialError", "message": "query exceeded the limits"}})),
        ResponseTemplate::new(200).set_body_string("<html>proxy login</html>"),
    ] {
        let fake = fake_with(Some(false));
        fake.mount(
            Mock::given(method("POST"))
                .and(path_regex(r"/workspaces/[^/]+/query$"))
                .respond_with(body)
                .with_priority(1),
        );
        let out = simulate(&fake, &["--since", "1d", "--until", UNTIL]);
        assert_eq!(out.status.code(), Some(2));
        let (stdout, err) = texts(&out);
        assert!(stdout.is_empty(), "{stdout}");
        let said = |t: &str| {
            t.contains("not the table gpuform asked for") || t.contains("not the JSON gpuform expects")
        };
        assert!(said(&err), "{err}");
        assert!(err.contains("proxy"), "{err}");
        // with a job time: a warning naming the same fault, never "no rows"
        let out = simulate(
            &fake,
            &["--since", "1d", "--until", UNTIL, "--job-duration", "PT2M", "--output", "json"],
        );
        let v = json_of(&out);
        let w = v["warnings"][0].as_str().unwrap();
        assert!(said(w) && !w.contains("no GpuTelemetry_CL rows"), "{w}");
        assert!(v.get("measured").is_none());
    }
}

/// 403 on the workspace query names Log Analytics Reader and the command that grants it (the
/// error, or the warning when the job time is given); 403 on the metrics names Monitoring Reader.
#[test]
fn simulate_from_azure_says_what_failed() {
    let fake = fake_with(Some(false));
    fake.mount(
        Mock::given(method("POST"))
            .and(path_regex(r"/workspaces/[^/]+/query$"))
            .respond_with(ResponseTemplate::new(403).set_body_json(json!({"error": {"code": "InsufficientAccessError", "message": "The provided credentials have insufficient access to perform the requested operation"}})))
            .with_priority(1),
    );
    let out = simulate(&fake, &["--since", "1d", "--until", UNTIL]);
    assert_eq!(out.status.code(), Some(2));
    let (stdout, err) = texts(&out);
    assert!(stdout.is_empty());
    let names_the_fix = |t: &str| {
        t.contains("Log Analytics Reader")
            && t.contains("az role assignment create")
            && t.contains(&workspace_path())
    };
    assert!(names_the_fix(&err), "{err}");
    // with a job time the run goes on, and the warning names the same fix
    let out = simulate(
        &fake,
        &[
            "--since",
            "1d",
            "--until",
            UNTIL,
            "--job-duration",
            "PT2M",
            "--output",
            "markdown",
        ],
    );
    let (md, err) = texts(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        names_the_fix(&md) && md.contains("**Warning:** could not read"),
        "{md}"
    );
    assert!(names_the_fix(&err), "{err}");

    let fake = FakeArm::new().start();
    fake.mount(
        Mock::given(method("GET"))
            .respond_with(ResponseTemplate::new(403).set_body_json(json!({"error": {"code": "AuthorizationFailed", "message": "The client does not have authorization to perform action 'Microsoft.Insights/metrics/read'."}}))),
    );
    let out = simulate(&fake, &["--since", "1d", "--job-duration", "PT2M"]);
    assert!(!out.status.success());
    let (_, err) = texts(&out);
    assert!(err.contains("Microsoft.Insights/metrics/read"), "{err}");
    assert!(
        err.contains("Monitoring Reader") && err.contains("az role assignment create"),
        "{err}"
    );
}

/// A firewall that lets only ARM out (status leaves its telemetry line out the same way): the
/// Logs Query API refuses the connection, the run warns and goes on with the arrivals.
#[test]
fn a_logs_query_api_out_of_reach_is_a_warning() {
    let fake = fake_with(Some(false));
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let out = fake
        .gpuform()
        .env(
            "GPUFORM_LOGS_ENDPOINT",
            format!("https://127.0.0.1:{port}/"),
        )
        .arg("simulate")
        .arg(examples("shortvideo-transcode.yaml"))
        .args([
            "-g",
            RG,
            "--arm-endpoint",
            &format!("{}/", fake.base),
            "--retry-delay-ms",
            "50",
        ])
        .args([
            "--since",
            "1d",
            "--until",
            UNTIL,
            "--job-duration",
            "PT2M",
            "--output",
            "json",
        ])
        .output()
        .unwrap();
    let v = json_of(&out);
    assert!(v.get("measured").is_none(), "{v}");
    let w = v["warnings"][0].as_str().unwrap();
    assert!(
        w.starts_with("could not read the GPU telemetry") && w.contains("refused"),
        "{w}"
    );
    assert_eq!(v["trace"]["minutes"].as_u64().unwrap(), 1440);
}
