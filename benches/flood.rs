//! Azure answers that never end (issue 39, item 3): peak memory and wall time of the CLI against
//! a fake Azure that floods it, one line per case. Run by hand:
//!
//! ```text
//! cargo build --release && cargo bench --bench flood
//! FLOOD_BIN=/path/to/an/older/gpuform FLOOD_DEADLINE=60 cargo bench --bench flood   # before
//! ```
//!
//! Cases (`FLOOD_CASES=a,b` picks some):
//! - `nextlink`: `preflight`, whose Resource SKUs listing answers pages of ~256 KiB whose
//!   `nextLink` points to the page itself;
//! - `retry-after`: `preflight`, the quota usages answering 429 with `Retry-After: 999999`;
//! - `retry-date`: the same with `Retry-After: Fri, 01 Jan 2099 00:00:00 GMT`;
//! - `rows`: `simulate -g` over one day, the workspace answering the per-minute question with
//!   1,000,000 rows.
//!
//! Each run is `/usr/bin/time -f '%e %M' timeout -s KILL FLOOD_DEADLINE` (default 60 s): a run
//! the deadline stops is reported as such (its memory is what it had reached).

#[path = "../tests/common/mod.rs"]
mod common;

use std::process::Command;

use common::*;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

const RG: &str = "rg-shortvideo-prod";
const GUID: &str = "6f1c0a3e-2b4d-4e8f-9a1b-3c5d7e9f1a2b";

fn binary() -> String {
    std::env::var("FLOOD_BIN").unwrap_or_else(|_| {
        let release =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/gpuform");
        if release.exists() {
            release.display().to_string()
        } else {
            assert_cmd::cargo::cargo_bin("gpuform")
                .display()
                .to_string()
        }
    })
}

/// `(wall seconds, peak RSS MiB, exit status, last stderr line)`.
fn measure(fake: &FakeAzure, args: &[&str]) -> (f64, f64, String, String) {
    let deadline = std::env::var("FLOOD_DEADLINE").unwrap_or_else(|_| "60".into());
    let times = fake.dir.path().join("time.txt");
    // time outside timeout: a run the deadline kills still reports (its peak, the deadline)
    let mut c = Command::new("/usr/bin/time");
    fake.set_env(&mut c);
    c.arg("-o")
        .arg(&times)
        .args(["-f", "%e %M", "timeout", "-s", "KILL", &deadline, &binary()])
        .args(args);
    let out = c.output().unwrap();
    let t = std::fs::read_to_string(&times).unwrap_or_default();
    let mut it = t
        .lines()
        .rfind(|l| !l.starts_with("Command"))
        .unwrap_or("")
        .split_whitespace()
        .rev();
    let (rss, wall) = (it.next(), it.next());
    let wall: f64 = wall.and_then(|w| w.parse().ok()).unwrap_or(f64::NAN);
    let rss: f64 = rss.and_then(|r| r.parse::<f64>().ok()).unwrap_or(f64::NAN) / 1024.0;
    let status = match out.status.code() {
        Some(137) | None => format!("stopped by the {deadline} s deadline"),
        Some(c) => format!("exit {c}"),
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr
        .lines()
        .rfind(|l| l.starts_with("error") || l.contains("error:"))
        .unwrap_or("")
        .chars()
        .take(160)
        .collect();
    (wall, rss, status, last)
}

fn preflight_args(fake: &FakeAzure) -> Vec<String> {
    vec![
        "preflight".into(),
        spec().display().to_string(),
        "--arm-endpoint".into(),
        format!("{}/", fake.base),
        "--retry-delay-ms".into(),
        "50".into(),
    ]
}

fn nextlink() -> (f64, f64, String, String) {
    let fake = FakeArm::new().subscription(&[("eastus2", 48)]).start();
    // ~256 KiB of SKUs per page, the page's nextLink the page itself
    let skus: Vec<Value> = (0..300)
        .map(|i| {
            sku(
                &format!("Standard_X{i}_v9"),
                FAMILY,
                "eastus2",
                8,
                &["1", "2", "3"],
            )
        })
        .collect();
    let url = fake.url(&FakeAzure::sub_path(&format!(
        "providers/Microsoft.Compute/skus?api-version={}&$filter=location%20eq%20%27eastus2%27",
        gpuform::facts::api::SKUS_API
    )));
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(
                "providers/Microsoft.Compute/skus",
            )))
            .respond_with(
                ResponseTemplate::new(200).set_body_json(json!({"value": skus, "nextLink": url})),
            )
            .with_priority(1),
    );
    let args = preflight_args(&fake);
    measure(&fake, &args.iter().map(String::as_str).collect::<Vec<_>>())
}

fn retry_after(value: &str) -> (f64, f64, String, String) {
    let fake = FakeArm::new().subscription(&[("eastus2", 48)]).start();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(
                "providers/Microsoft.Compute/locations/eastus2/usages",
            )))
            .respond_with(ResponseTemplate::new(429).insert_header("Retry-After", value))
            .with_priority(1),
    );
    let args = preflight_args(&fake);
    measure(&fake, &args.iter().map(String::as_str).collect::<Vec<_>>())
}

fn rows() -> (f64, f64, String, String) {
    let fake = FakeArm::new().start();
    let metrics = FakeAzure::sub_path(&format!(
        "resourceGroups/{RG}/providers/Microsoft.ServiceBus/namespaces/sb-shortvideo-prod/providers/Microsoft.Insights/metrics"
    ));
    fake.mount(
        Mock::given(method("GET")).and(path(metrics)).respond_with(|req: &wiremock::Request| {
            let span = req
                .url
                .query_pairs()
                .find(|(k, _)| k == "timespan")
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default();
            let (a, b) = span.split_once('/').unwrap_or(("", ""));
            let (a, b): (jiff::Timestamp, jiff::Timestamp) =
                (a.parse().unwrap(), b.parse().unwrap());
            let data: Vec<Value> = (0..(b.as_second() - a.as_second()) / 60)
                .map(|m| {
                    let t = jiff::Timestamp::from_second(a.as_second() + m * 60).unwrap();
                    json!({"timeStamp": t.to_string(), "total": 3.0})
                })
                .collect();
            ResponseTemplate::new(200).set_body_json(json!({"cost": 0, "timespan": span, "interval": "PT1M", "value": [{
                "id": "x", "type": "Microsoft.Insights/metrics",
                "name": {"value": "IncomingMessages", "localizedValue": "Incoming Messages"}, "unit": "Count",
                "timeseries": [{"metadatavalues": [{"name": {"value": "entityname"}, "value": "transcode-jobs"}], "data": data}],
                "errorCode": "Success"}]}))
        }),
    );
    let rows: Vec<Value> = (0..1_000_000)
        .map(|i| {
            json!([
                format!("2026-11-08T{:02}:{:02}:00Z", (i / 60) % 24, i % 60),
                "3",
                "1",
                "9"
            ])
        })
        .collect();
    let flood = json!({"tables": [{"name": "PrimaryResult", "columns": [
        {"name": "Minute", "type": "datetime"}, {"name": "Instances", "type": "long"},
        {"name": "Idle", "type": "long"}, {"name": "Samples", "type": "long"}], "rows": rows}]});
    let flood = std::sync::Arc::new(serde_json::to_vec(&flood).unwrap());
    let totals = json!({"tables": [{"name": "PrimaryResult", "columns": [
        {"name": "Rows", "type": "long"}, {"name": "Computers", "type": "long"},
        {"name": "Impossible", "type": "long"}], "rows": [["1000000", "3", "0"]]}]});
    let ws = FakeAzure::sub_path(&format!(
        "resourceGroups/{RG}/providers/Microsoft.OperationalInsights/workspaces/log-shortvideo-transcode"
    ));
    fake.mount_log_query_with(
        &ws,
        GUID,
        std::sync::Arc::new(move |body: &Value| {
            if body["query"]
                .as_str()
                .unwrap_or("")
                .contains("summarize Rows")
            {
                ResponseTemplate::new(200).set_body_json(totals.clone())
            } else {
                ResponseTemplate::new(200).set_body_raw(flood.as_ref().clone(), "application/json")
            }
        }),
    );
    let spec = spec().display().to_string();
    let arm = format!("{}/", fake.base);
    measure(
        &fake,
        &[
            "simulate",
            &spec,
            "-g",
            RG,
            "--since",
            "1d",
            "--until",
            "2026-11-09T00:00:00Z",
            "--arm-endpoint",
            &arm,
            "--job-duration",
            "PT2M",
        ],
    )
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let pick = std::env::var("FLOOD_CASES").ok();
    let wanted = |c: &str| pick.as_deref().is_none_or(|p| p.split(',').any(|x| x == c));
    println!("binary: {}", binary());
    type Case = fn() -> (f64, f64, String, String);
    let cases: [(&str, Case); 4] = [
        ("nextlink", nextlink),
        ("retry-after", || retry_after("999999")),
        ("retry-date", || {
            retry_after("Fri, 01 Jan 2099 00:00:00 GMT")
        }),
        ("rows", rows),
    ];
    for (name, f) in cases {
        if !wanted(name) {
            continue;
        }
        let (wall, rss, status, last) = f();
        println!("{name:<12} wall {wall:>7.2} s  peak RSS {rss:>8.1} MiB  {status}  {last}");
    }
}
