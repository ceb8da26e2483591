//! `gpuform cost` end to end: the arithmetic on hand-checked pools, `--prices` with Windows
//! rows, missing prices, and the budget gates' exit codes.
//!
//! Conventions in the hand calculations: a month is 730 h, a week 168 h, so one weekly hour is
//! 730/168 = 4.345238… monthly hours. Embedded prices used: Standard_NC8as_T4_v3 Linux
//! pay-as-you-go $0.752/h in eastus and eastus2, Linux spot $0.08272/h in eastus2; P10 LRS
//! $19.71/month; NAT gateway $0.045/h + $0.045/GB; public IP $0.005/h; private endpoint $0.01/h;
//! private DNS zone $0.50; Log Analytics $2.30/GB; metric alert $0.10; Key Vault $0.03/10k ops;
//! Service Bus Standard $0.0135/h.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

const TODAY: &str = "2026-12-02";

fn cost(args: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("gpuform")
        .unwrap()
        .env("GPUFORM_TODAY", TODAY)
        .env("NO_COLOR", "1")
        .arg("cost")
        .args(args)
        .assert()
}

fn json(args: &[&str]) -> Value {
    let mut a = vec!["--format", "json"];
    a.extend_from_slice(args);
    let out = cost(&a).get_output().clone();
    assert!(
        out.status.code().is_some_and(|c| c == 0 || c == 1),
        "exit {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn line<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["id"] == id)
        .unwrap_or_else(|| panic!("no line {id}"))
}

fn amount(v: &Value, id: &str, case: &str) -> f64 {
    line(v, id)["amount"][case]
        .as_f64()
        .unwrap_or_else(|| panic!("{id} {case} has no amount"))
}

fn lever<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["levers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["id"] == id)
        .unwrap_or_else(|| panic!("no lever {id}"))
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 0.005, "{a} != {b}");
}

const FIXED: &str = "tests/fixtures/cost/fixed-pool.yaml";
const TWO_ZONES: &str = "tests/fixtures/cost/two-zones.yaml";
const SPOT: &str = "tests/fixtures/cost/spot-mix.yaml";
const WINDOWS: &str = "examples/windows-viz-nv.yaml";
const WINDOWS_PRICES: &str = "tests/fixtures/cost/prices-westeurope-nv.json";

#[test]
fn fixed_pool() {
    let v = json(&[FIXED]);
    // 3 VMs × 168 h/week × 730/168 = 2190 instance-hours in every case
    for case in ["low", "expected", "high"] {
        close(v["instanceHours"][case].as_f64().unwrap(), 2190.0);
    }
    // compute: 2190 × $0.752 = $1,646.88
    close(amount(&v, "compute-regular", "expected"), 1646.88);
    assert_eq!(line(&v, "compute-regular")["source"], "embedded-linux-payg");
    // OS disk: P10 $19.71/month for each of the 3 VMs = 2190 × 19.71/730 = $59.13
    close(amount(&v, "disk-os", "expected"), 59.13);
    // NAT 730 × 0.045 = 32.85; 100 GB × 0.045 = 4.50; IP 730 × 0.005 = 3.65
    close(amount(&v, "nat-gateway", "expected"), 32.85);
    close(amount(&v, "nat-data", "expected"), 4.50);
    close(amount(&v, "public-ip", "expected"), 3.65);
    // Key Vault behind a private endpoint: 730 × 0.01 = 7.30, DNS zone 0.50
    close(amount(&v, "kv-private-endpoint", "expected"), 7.30);
    close(amount(&v, "kv-private-dns", "expected"), 0.50);
    // Log Analytics: 0.2 GB/day × 730/24 days × $2.30 = $13.9917
    close(
        amount(&v, "log-ingestion", "expected"),
        0.2 * 730.0 / 24.0 * 2.30,
    );
    // one metric alert (VM availability; no queue rules) $0.10; 10k Key Vault operations $0.03
    close(amount(&v, "metric-alerts", "expected"), 0.10);
    close(amount(&v, "kv-operations", "expected"), 0.03);
    // no spot line, no CMK lines, no queue lines
    assert!(
        v["lines"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l["id"] != "compute-spot"
                && l["id"] != "kv-key-rotation"
                && l["id"] != "service-bus")
    );
    // total 1646.88 + 59.13 + 32.85 + 4.50 + 3.65 + 7.30 + 0.50 + 13.9917 + 0.10 + 0.03 = 1768.9317
    let total = 1646.88
        + 59.13
        + 32.85
        + 4.50
        + 3.65
        + 7.30
        + 0.50
        + 0.2 * 730.0 / 24.0 * 2.30
        + 0.10
        + 0.03;
    for case in ["low", "expected", "high"] {
        close(v["totals"][case].as_f64().unwrap(), total);
    }
    assert_eq!(v["totals"]["complete"], true);
    // the 3 VMs run all month: the reservation lever asks for a reservation price
    assert_eq!(lever(&v, "reservation-1y")["status"], "missing-price");
    assert!(
        lever(&v, "reservation-1y")["label"]
            .as_str()
            .unwrap()
            .contains("the 3 instance(s) that run all week")
    );
    // fp16 → int8 halves 11 GiB, but the T4 that fits 11 GiB is already the cheapest: no lever
    assert_eq!(lever(&v, "precision-int8")["status"], "not-applicable");
    // budget 1700 < expected
    assert_eq!(v["budget"]["status"], "over");
}

#[test]
fn two_schedules_across_time_zones() {
    let v = json(&[TWO_ZONES]);
    // europe-day 08:00-18:00 W. Europe (UTC+1) = 07:00-17:00 UTC, Mon-Fri: 10 h × 5 = 50 h/week
    // us-day 09:00-17:00 Pacific (UTC-8) = 17:00-01:00 UTC, Mon-Fri: 8 h × 5 = 40 h/week
    // (it starts at the instant europe-day ends, so no restore profile is emitted there: Azure
    // would apply only the first of two profiles starting at one minute)
    // default (1 VM) the remaining 168 - 90 = 78 h/week
    let profiles = v["profiles"].as_array().unwrap();
    let hours = |name: &str| {
        profiles.iter().find(|p| p["name"] == name).unwrap()["hoursPerWeek"]
            .as_f64()
            .unwrap()
    };
    close(hours("europe-day"), 50.0);
    close(hours("us-day"), 40.0);
    assert!(
        profiles.iter().all(|p| p["name"] != "europe-day (end)"),
        "{profiles:?}"
    );
    let rest: f64 = profiles
        .iter()
        .filter(|p| p["name"] != "europe-day" && p["name"] != "us-day")
        .map(|p| p["hoursPerWeek"].as_f64().unwrap())
        .sum();
    close(rest, 78.0);
    // expected instance-hours: (50 × 4 + 40 × 2 + 78 × 1) = 358 per week × 730/168 = 1555.5952
    let ih = 358.0 * 730.0 / 168.0;
    close(v["instanceHours"]["expected"].as_f64().unwrap(), ih);
    // compute: 1555.5952 × $0.752 = $1,169.81; the minimums are the defaults here, so low = expected
    close(amount(&v, "compute-regular", "expected"), ih * 0.752);
    close(amount(&v, "compute-regular", "low"), ih * 0.752);
    // high: 10 VMs all week = 7300 instance-hours × $0.752 = $5,489.60
    close(amount(&v, "compute-regular", "high"), 5489.60);
    // disks follow the instance-hours: 358/168 × $19.71 = $42.00
    close(amount(&v, "disk-os", "expected"), 358.0 / 168.0 * 19.71);
    // both schedules scale up: nothing to save by removing them
    assert_eq!(lever(&v, "schedules")["status"], "not-applicable");
}

/// windows-viz (issue 9 item 2): `evening-on-call` starts where `office-hours` ends (Mon-Fri
/// 18:30 W. Europe). The estimate prices the two on-call seats for 3.5 h each weekday, and no
/// restore profile takes their place.
#[test]
fn windows_viz_prices_the_on_call_seats() {
    let v = json(&["examples/windows-viz-nv.yaml"]);
    let profiles = v["profiles"].as_array().unwrap();
    let profile = |name: &str| {
        profiles
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("no profile {name}: {profiles:?}"))
    };
    assert!(
        profiles.iter().all(|p| p["name"] != "office-hours (end)"),
        "{profiles:?}"
    );
    // 18:30-22:00 Mon-Fri = 17.5 h/week at 2 seats
    close(
        profile("evening-on-call")["hoursPerWeek"].as_f64().unwrap(),
        17.5,
    );
    close(
        profile("evening-on-call")["instanceHours"]["expected"]
            .as_f64()
            .unwrap(),
        2.0 * 17.5 * 730.0 / 168.0,
    );
    // 07:30-18:30 Mon-Fri = 55 h at 10 seats; the rest of the week at 0
    close(
        profile("office-hours")["hoursPerWeek"].as_f64().unwrap(),
        55.0,
    );
    close(
        v["instanceHours"]["expected"].as_f64().unwrap(),
        (10.0 * 55.0 + 2.0 * 17.5) * 730.0 / 168.0,
    );
}

/// The dev box (issue 9 item 6): compute for the hours the schedule runs it (11 h × 5 working
/// days), its disks for the whole month, and a note that says so.
#[test]
fn dev_box_pays_running_hours_and_its_disks_all_month() {
    let v = json(&["examples/dev-notebook-t4.yaml"]);
    // 08:00-19:00 Mon-Fri = 55 h/week = 55 × 730/168 = 238.99 h/month
    let running = 55.0 * 730.0 / 168.0;
    close(v["instanceHours"]["expected"].as_f64().unwrap(), running);
    close(v["instanceHours"]["high"].as_f64().unwrap(), running);
    // Standard_NC4as_T4_v3 Linux westeurope $0.658/h
    close(amount(&v, "compute-regular", "expected"), running * 0.658);
    // P10 $19.71/month, all month, in every case
    for case in ["low", "expected", "high"] {
        close(amount(&v, "disk-os", case), 19.71);
    }
    assert_eq!(line(&v, "disk-os")["quantity"]["expected"], 730.0);
    // GPU telemetry (issue 12 on dev boxes): rows only while the box runs, one T4, one row a
    // minute of 400 bytes: 238.99 h × 60 × 400 B = 5.74 MB
    close(
        line(&v, "gpu-telemetry-ingestion")["quantity"]["expected"]
            .as_f64()
            .unwrap(),
        running * 60.0 * 400.0 / 1e9,
    );
    let notes: Vec<&str> = v["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(
        notes.iter().any(|n| n.starts_with("dev box:")
            && n.contains("still pays for its OS and data disks")
            && n.contains("runs 239 h/month")),
        "{notes:?}"
    );
}

#[test]
fn spot_mix() {
    let v = json(&[SPOT]);
    // default 4 VMs all week: regularBase 1, then 50% of the 3 above it rounded down (1.5 → 1:
    // Azure's Spot Priority Mix page, "2.5 rounded to 2"; Spot gets the odd VM) = 2 regular +
    // 2 spot. Regular: 2 × 730 = 1460 h × $0.752 = $1,097.92; spot: 1460 h × $0.08272 = $120.7712
    close(v["regularHours"]["expected"].as_f64().unwrap(), 1460.0);
    close(v["spotHours"]["expected"].as_f64().unwrap(), 1460.0);
    close(amount(&v, "compute-regular", "expected"), 1097.92);
    close(amount(&v, "compute-spot", "expected"), 120.7712);
    assert_eq!(line(&v, "compute-spot")["source"], "embedded-linux-spot");
    // low: min 0 → nothing
    close(amount(&v, "compute-regular", "low"), 0.0);
    close(amount(&v, "compute-spot", "low"), 0.0);
    // high: 10 VMs = 1 + floor(50% × 9 = 4.5) = 5 regular + 5 spot:
    // 5 × 730 × 0.752 = $2,744.80; 5 × 730 × 0.08272 = $301.928
    close(amount(&v, "compute-regular", "high"), 2744.80);
    close(amount(&v, "compute-spot", "high"), 301.928);
    // the spot lever: 1460 spot hours × (0.752 - 0.08272 = 0.66928) = $977.1488 saved against all-regular
    let l = lever(&v, "spot");
    assert_eq!(l["status"], "applied");
    close(l["monthly"].as_f64().unwrap(), 977.1488);
    // Service Bus Standard created: 730 × $0.0135 = $9.855; 1 M operations are within the 13 M included
    close(amount(&v, "service-bus", "expected"), 9.855);
    close(amount(&v, "service-bus-operations", "expected"), 0.0);
    // regularBase 1 is the reservation candidate; the embedded table has no reservation prices
    let r = lever(&v, "reservation-3y");
    assert_eq!(r["status"], "missing-price");
    assert!(
        r["detail"]
            .as_str()
            .unwrap()
            .contains("no reservation price"),
        "{r}"
    );
}

#[test]
fn expected_utilization_moves_the_expected_case_between_default_and_max() {
    // 50%: 4 + 0.5 × (10 - 4) = 7 VMs: 1 + floor(50% × 6) = 4 regular, 3 spot
    // regular 4 × 730 × 0.752 = $2,195.84; spot 3 × 730 × 0.08272 = $181.1568
    let v = json(&[SPOT, "--expected-utilization", "50"]);
    close(amount(&v, "compute-regular", "expected"), 2195.84);
    close(amount(&v, "compute-spot", "expected"), 181.1568);
    // 25%: 5.5 VMs, between 5 (1 + floor(2) = 3 regular) and 6 (1 + floor(2.5) = 3 regular):
    // 3 regular, 2.5 spot → 3 × 730 × 0.752 = $1,646.88; 2.5 × 730 × 0.08272 = $150.964
    let v = json(&[SPOT, "--expected-utilization", "25"]);
    close(amount(&v, "compute-regular", "expected"), 1646.88);
    close(amount(&v, "compute-spot", "expected"), 150.964);
    assert_eq!(v["options"]["expectedUtilizationPercent"], 25.0);
}

#[test]
fn windows_pool_uses_windows_prices_from_a_prices_file() {
    let v = json(&[WINDOWS, "--prices", WINDOWS_PRICES]);
    assert_eq!(v["os"], "windows");
    // office-hours 07:30-18:30 W. Europe = 06:30-17:30 UTC Mon-Fri: 55 h/week at 10 VMs;
    // evening-on-call 18:30-22:00: 17.5 h/week at 2; the other 95.5 h at 0.
    // expected: 550 + 35 = 585 instance-hours/week × 730/168 = 2541.96/month
    let ih = 585.0 * 730.0 / 168.0;
    close(v["instanceHours"]["expected"].as_f64().unwrap(), ih);
    // the fixture's Windows pay-as-you-go row ($1.55/h), not the Linux one ($1.18/h):
    // 2541.96 × 1.55 = $3,940.04
    let l = line(&v, "compute-regular");
    close(l["unitPrice"].as_f64().unwrap(), 1.55);
    close(amount(&v, "compute-regular", "expected"), ih * 1.55);
    assert_eq!(l["source"], "prices-file");
    // high: 10 VMs in the default profile too: (550 + 35 + 955) = 1540 h/week × 730/168 × 1.55
    close(
        amount(&v, "compute-regular", "high"),
        1540.0 * 730.0 / 168.0 * 1.55,
    );
    // the fixture's westeurope P15 price ($40.88/month) replaces the embedded East US one:
    // 585/168 × 40.88 = $142.35
    close(amount(&v, "disk-os", "expected"), 585.0 / 168.0 * 40.88);
    assert_eq!(line(&v, "disk-os")["source"], "prices-file-disks");
    assert!(
        v["missing"].as_array().unwrap().is_empty(),
        "{}",
        v["missing"]
    );
    assert_eq!(v["totals"]["complete"], true);
    let src = v["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "prices-file")
        .unwrap();
    assert!(
        src["name"]
            .as_str()
            .unwrap()
            .contains("prices-westeurope-nv.json")
    );
    assert!(
        v["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("Hybrid Benefit"))
    );
}

#[test]
fn missing_prices_are_reported_not_guessed() {
    // no Windows prices are embedded
    let v = json(&[WINDOWS]);
    let m = v["missing"].as_array().unwrap();
    assert!(
        m.iter().any(|x| x["line"] == "compute-regular"
            && x["price"]
                .as_str()
                .unwrap()
                .contains("Windows pay-as-you-go price of Standard_NV12ads_A10_v5 in westeurope")),
        "{m:?}"
    );
    assert!(
        m.iter()
            .all(|x| x["help"].as_str().unwrap().contains("--prices"))
    );
    assert_eq!(
        line(&v, "compute-regular")["amount"]["expected"],
        Value::Null
    );
    assert_eq!(v["totals"]["complete"], false);
    // the table says so too
    let out = cost(&[WINDOWS]).success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("Missing prices (never guessed)"), "{text}");
    assert!(text.contains("lower bound"), "{text}");
    // a gate cannot be decided without the price: usage error, not a pass
    cost(&[WINDOWS, "--fail-above", "100000"])
        .code(2)
        .stderr(predicates::str::contains("missing prices"));
}

#[test]
fn gpu_telemetry_is_priced() {
    // the fixed pool with GPU monitoring on: 3 VMs x 1 T4, always on
    let dir = tempfile::tempdir().unwrap();
    let on = dir.path().join("gpu-on.yaml");
    std::fs::write(
        &on,
        std::fs::read_to_string(FIXED)
            .unwrap()
            .replace("gpu: {enabled: false}", "gpu: {enabled: true}"),
    )
    .unwrap();
    let v = json(&[on.to_str().unwrap()]);
    // 2190 instance-hours x 60 rows/h x 400 bytes = 0.05256 GB x $2.30 = $0.1209
    for case in ["low", "expected", "high"] {
        close(
            amount(&v, "gpu-telemetry-ingestion", case),
            2190.0 * 60.0 * 400.0 / 1e9 * 2.30,
        );
    }
    // idle (60 min window, every 15 min) $0.50 for the pool's one time series; faults (every
    // 5 min) $1.50 for one; VRAM (every 5 min) one time series per GPU: 3 VMs x 1 GPU x $1.50
    close(amount(&v, "log-alert-gpu-idle", "expected"), 0.50);
    close(amount(&v, "log-alert-gpu-vram", "expected"), 4.50);
    close(amount(&v, "log-alert-gpu-faults", "expected"), 1.50);
    // missing telemetry (every 5 min) $1.50 for the pool's one time series
    close(
        amount(&v, "log-alert-gpu-telemetry-missing", "expected"),
        1.50,
    );
    let off = json(&[FIXED]);
    close(
        v["totals"]["expected"].as_f64().unwrap() - off["totals"]["expected"].as_f64().unwrap(),
        2190.0 * 60.0 * 400.0 / 1e9 * 2.30 + 8.00,
    );
}

#[test]
fn fail_above_gate() {
    // expected $1,768.93
    cost(&[FIXED, "--fail-above", "2000"]).code(0);
    cost(&[FIXED, "--fail-above", "1500"])
        .code(1)
        .stderr(predicates::str::contains("cost gate fail-above failed"));
    // the spec's own budget ($1,700) only warns
    cost(&[FIXED]).code(0).stderr(predicates::str::contains(
        "warning: the expected $1,768.93 exceeds monitoring.budget.monthly $1,700.00",
    ));
    cost(&[FIXED, "--fail-above", "-1"]).code(2);
}

#[test]
fn baseline_diff_and_increase_gate() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base.json");
    let out = cost(&[FIXED, "--format", "json"])
        .success()
        .get_output()
        .stdout
        .clone();
    std::fs::write(&base, out).unwrap();
    // the same pool with 4 VMs: +1 VM = +730 h × 0.752 = +$548.96 compute, +$19.71 disk
    let bigger = dir.path().join("bigger.yaml");
    std::fs::write(
        &bigger,
        std::fs::read_to_string(FIXED)
            .unwrap()
            .replace("capacity: {min: 3, max: 3}", "capacity: {min: 4, max: 4}")
            // (4 VMs all month cost more than the budget: validate's budget-below-floor)
            .replace("monthly: 1700", "monthly: 2500"),
    )
    .unwrap();
    let bigger = bigger.to_str().unwrap();
    let base = base.to_str().unwrap();
    let v = json(&[bigger, "--baseline", base]);
    close(v["diff"]["delta"].as_f64().unwrap(), 548.96 + 19.71);
    // (548.96 + 19.71) / 1768.93 = +32.1%
    close(
        v["diff"]["percent"].as_f64().unwrap(),
        (548.96 + 19.71) / 1_768.931_666 * 100.0,
    );
    let lines = v["diff"]["lines"].as_array().unwrap();
    assert_eq!(lines[0]["id"], "compute-regular");
    close(lines[0]["delta"].as_f64().unwrap(), 548.96);
    assert_eq!(lines.len(), 2, "{lines:?}");
    cost(&[bigger, "--baseline", base, "--fail-increase-percent", "50"]).code(0);
    cost(&[bigger, "--baseline", base, "--fail-increase-percent", "10"])
        .code(1)
        .stderr(predicates::str::contains("fail-increase-percent"));
    // the markdown for the pull request shows the change and the failed gate
    let md = cost(&[
        bigger,
        "--baseline",
        base,
        "--fail-increase-percent",
        "10",
        "--format",
        "markdown",
    ])
    .code(1)
    .get_output()
    .stdout
    .clone();
    let md = String::from_utf8(md).unwrap();
    assert!(md.contains("+$568.67 (+32.1%)"), "{md}");
    assert!(md.contains("❌ gate `fail-increase-percent`"), "{md}");
    // usage errors: a baseline that is not ours, a threshold without a baseline
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, "{\"hello\": 1}").unwrap();
    cost(&[FIXED, "--baseline", junk.to_str().unwrap()])
        .code(2)
        .stderr(predicates::str::contains("schemaVersion"));
    cost(&[FIXED, "--fail-increase-percent", "10"]).code(2);
    cost(&[FIXED, "--baseline", "/nonexistent/base.json"]).code(2);
}

#[test]
fn prices_file_errors_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"Items\": [ {\"retailPrice\": ").unwrap();
    cost(&[FIXED, "--prices", bad.to_str().unwrap()])
        .code(2)
        .stderr(predicates::str::contains("invalid JSON"));
    let eur = dir.path().join("eur.json");
    std::fs::write(&eur, r#"{"BillingCurrency":"EUR","Items":[{"currencyCode":"EUR","retailPrice":1.0,"armRegionName":"eastus","armSkuName":"Standard_NC8as_T4_v3","meterName":"NC8as T4 v3","productName":"Virtual Machines NCasT4_v3 Series","skuName":"NC8as T4 v3","serviceName":"Virtual Machines","type":"Consumption","unitOfMeasure":"1 Hour"}],"NextPageLink":null}"#).unwrap();
    cost(&[FIXED, "--prices", eur.to_str().unwrap()])
        .code(2)
        .stderr(predicates::str::contains("EUR"));
    cost(&[FIXED, "--prices", "/nonexistent/prices.json"]).code(2);
}

/// The tables of the transcoding, visualization and dev box examples, byte for byte
/// (`GPUFORM_BLESS=1` rewrites them).
#[test]
fn transcode_example_golden() {
    for (spec, format, file) in [
        ("shortvideo-transcode", "table", "shortvideo-transcode.txt"),
        (
            "shortvideo-transcode",
            "markdown",
            "shortvideo-transcode.md",
        ),
        // the on-call seats after office hours (issue 9 item 2)
        ("windows-viz-nv", "table", "windows-viz-nv.txt"),
        // the dev box: running hours from its schedule, disks all month (issue 9 item 6)
        ("dev-notebook-t4", "table", "dev-notebook-t4.txt"),
    ] {
        let spec = format!("examples/{spec}.yaml");
        let out = cost(&[&spec, "--format", format, "--color", "never"])
            .success()
            .get_output()
            .stdout
            .clone();
        let text = String::from_utf8(out).unwrap();
        let path = Path::new("tests/golden/cost").join(file);
        if std::env::var_os("GPUFORM_BLESS").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &text).unwrap();
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{} missing: run with GPUFORM_BLESS=1", path.display()));
        assert_eq!(
            text,
            want,
            "{} differs: review and rerun with GPUFORM_BLESS=1",
            path.display()
        );
    }
}

#[test]
fn sizes_takes_the_same_prices_files() {
    let out = Command::cargo_bin("gpuform")
        .unwrap()
        .args([
            "sizes",
            "--region",
            "westeurope",
            "--os",
            "windows",
            "--workload",
            "visualization",
            "--format",
            "json",
            "--prices",
            WINDOWS_PRICES,
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let nv = v["sizes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["size"]["name"] == "Standard_NV12ads_A10_v5")
        .unwrap();
    assert_eq!(nv["windowsOnDemandHourly"], 1.55);
    assert_eq!(nv["windowsSpotHourly"], 0.31);
}

#[test]
fn a_narrower_precision_that_opens_a_cheaper_size_is_priced() {
    let v = json(&["tests/fixtures/cost/fp32-inference.yaml"]);
    // vmSize: auto picked the cheapest size with 20 GiB; 2 VMs all month = 1460 instance-hours
    let current = line(&v, "compute-regular")["unitPrice"].as_f64().unwrap();
    assert!(
        v["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().starts_with("vmSize: auto chose"))
    );
    // FP16 halves 20 GiB to 10: a T4 (Standard_NC4as_T4_v3, $0.526/h in eastus) fits;
    // same instance-hours and disks: saving = 1460 × (current - 0.526)
    let l = lever(&v, "precision-fp16");
    assert_eq!(l["status"], "available");
    assert!(
        l["detail"]
            .as_str()
            .unwrap()
            .starts_with("Standard_NC4as_T4_v3 (16 GiB) fits"),
        "{l}"
    );
    close(l["monthly"].as_f64().unwrap(), 1460.0 * (current - 0.526));
    // INT8 (5 GiB) opens nothing FP16 did not
    assert_eq!(lever(&v, "precision-int8")["status"], "not-applicable");
}

// a budget in another currency than USD: tests/cost_currency.rs

#[test]
fn private_endpoints_are_priced_only_when_rendered() {
    // a public vault gets no private endpoint; the created storage queue does
    let v = json(&["tests/fixtures/cost/public-vault.yaml"]);
    let ids: Vec<&str> = v["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    for id in ["kv-private-endpoint", "kv-private-dns"] {
        assert!(!ids.contains(&id), "{id} is priced: {ids:?}");
    }
    for id in [
        "storage-private-endpoint",
        "storage-private-dns",
        "storage-queue-operations",
    ] {
        assert!(ids.contains(&id), "{id} is not priced: {ids:?}");
    }
}

#[test]
fn a_uniform_spot_pool_is_priced_all_spot_as_rendered() {
    // only possible with spot-needs-flexible turned off: a Uniform scale set has no priority
    // mix, so render makes every instance Spot (and refuses a spec that asks for a regular share)
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("uniform-spot.yaml");
    std::fs::write(
        &spec,
        std::fs::read_to_string(SPOT)
            .unwrap()
            .replace(
                "    vmSize: Standard_NC8as_T4_v3\n",
                "    vmSize: Standard_NC8as_T4_v3\n    orchestration: uniform\n",
            )
            // the plan refuses a regular share on Uniform (no priority mix there): all Spot
            .replace(
                "regularBase: 1, regularPercentAboveBase: 50",
                "regularBase: 0, regularPercentAboveBase: 0",
            ),
    )
    .unwrap();
    let policy = dir.path().join("policy.yaml");
    std::fs::write(&policy, "rules:\n  spot-needs-flexible: off\n").unwrap();
    let v = json(&[spec.to_str().unwrap(), "--policy", policy.to_str().unwrap()]);
    // 4 VMs all week, all on Spot: 2920 spot hours × $0.08272 = $241.5424
    close(v["regularHours"]["expected"].as_f64().unwrap(), 0.0);
    close(v["spotHours"]["expected"].as_f64().unwrap(), 2920.0);
    close(amount(&v, "compute-regular", "high"), 0.0);
    close(amount(&v, "compute-spot", "expected"), 241.5424);
}

#[test]
fn metric_alerts_are_the_rendered_ones() {
    let alerts = |v: &Value| {
        let l = line(v, "metric-alerts");
        (
            l["quantity"]["expected"].as_f64().unwrap(),
            l["assumption"].as_str().unwrap().to_string(),
        )
    };
    // a storage queue with min < max: capacity at max, queue backlog, VM availability
    let (n, what) = alerts(&json(&["examples/llm-finetune-a100.yaml"]));
    assert_eq!(n, 3.0, "{what}");
    assert!(
        what.contains("capacity-at-max, queue-backlog, vm-availability"),
        "{what}"
    );
    // no queue: only VM availability, health probe or not
    let dir = tempfile::tempdir().unwrap();
    let probed = dir.path().join("probed.yaml");
    std::fs::write(
        &probed,
        std::fs::read_to_string(FIXED).unwrap().replace(
            "    osDisk: {sizeGiB: 128, type: Premium_LRS}\n",
            "    osDisk: {sizeGiB: 128, type: Premium_LRS}\n    healthProbe: {protocol: tcp, port: 22}\n",
        ),
    )
    .unwrap();
    let (n, what) = alerts(&json(&[probed.to_str().unwrap()]));
    assert_eq!(n, 1.0, "{what}");
    assert!(
        what.contains("one time series each: vm-availability;"),
        "{what}"
    );
}

#[test]
fn log_ingestion_names_the_rendered_diagnostic_settings() {
    // render sends the vault's, the autoscale setting's and the created queue's logs; the scale
    // set has no diagnostic setting
    let v = json(&["examples/shortvideo-transcode.yaml"]);
    let a = line(&v, "log-ingestion")["assumption"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        a.contains("diagnostic settings of the Key Vault, the autoscale setting and the Service Bus namespace)"),
        "{a}"
    );
    let v = json(&["examples/llm-finetune-a100.yaml"]);
    let a = line(&v, "log-ingestion")["assumption"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(a.contains("and the storage queue service)"), "{a}");
    // a fixed pool has no autoscale setting
    let v = json(&[FIXED]);
    let a = line(&v, "log-ingestion")["assumption"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(a.contains("diagnostic settings of the Key Vault)"), "{a}");
}

#[test]
fn the_storage_queue_is_priced_for_the_rendered_sku() {
    // render creates the account as Standard_GRS: write operations are geo-replicated
    let v = json(&["examples/llm-finetune-a100.yaml"]);
    let l = line(&v, "storage-queue-operations");
    assert!(l["label"].as_str().unwrap().contains("Standard_GRS"), "{l}");
    // 1,000,000 operations = 100 × 10k at $0.008
    close(l["unitPrice"].as_f64().unwrap(), 0.008);
    close(amount(&v, "storage-queue-operations", "expected"), 0.80);
}

#[test]
fn the_disk_encryption_key_is_priced_as_the_rendered_rsa_3072_key() {
    // Key Vault bills RSA 3072 keys as "advanced" keys: $0.15 per 10k operations
    let v = json(&["examples/shortvideo-transcode.yaml"]);
    let l = line(&v, "kv-operations");
    close(l["unitPrice"].as_f64().unwrap(), 0.15);
    assert!(
        l["assumption"].as_str().unwrap().contains("RSA 3072"),
        "{l}"
    );
    // and an HSM-protected one at $5 a month (a premium vault)
    let v = json(&["tests/fixtures/render/variants/existing-bus-elsewhere.yaml"]);
    close(amount(&v, "kv-hsm-key", "expected"), 5.0);
    close(
        line(&v, "kv-operations")["unitPrice"].as_f64().unwrap(),
        0.15,
    );
    // no customer-managed key: the plain operation rate
    let v = json(&[FIXED]);
    close(
        line(&v, "kv-operations")["unitPrice"].as_f64().unwrap(),
        0.03,
    );
}

#[test]
fn vm_size_auto_prices_the_size_render_emits() {
    // a prices file that makes the T4 render picks (NC4as, ranked with the embedded table)
    // pricier than the NC8as: cost still prices NC4as, because that is what is deployed
    const DEV: &str = "examples/dev-notebook-t4.yaml";
    const PRICIER: &str = "tests/fixtures/cost/prices-westeurope-t4-pricier.json";
    let bicep = Command::cargo_bin("gpuform")
        .unwrap()
        .args(["render", DEV, "--stdout", "main.bicep"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let bicep = String::from_utf8(bicep).unwrap();
    assert!(
        bicep.contains("vmSize: 'Standard_NC4as_T4_v3'"),
        "render's choice changed; update this test"
    );
    let v = json(&[DEV, "--prices", PRICIER]);
    assert_eq!(v["vmSize"], "Standard_NC4as_T4_v3");
    let l = line(&v, "compute-regular");
    close(l["unitPrice"].as_f64().unwrap(), 2.0);
    assert_eq!(l["source"], "prices-file");
    let note = v["notes"].to_string();
    assert!(
        note.contains("vmSize: auto chose Standard_NC4as_T4_v3 as render does"),
        "{note}"
    );
    // the size these prices would rank first is a lever, with what pinning it saves
    let lv = lever(&v, "vm-size");
    assert_eq!(lv["status"], "available", "{lv}");
    assert!(
        lv["detail"]
            .as_str()
            .unwrap()
            .contains("set `vmSize: Standard_NC8as_T4_v3`"),
        "{lv}"
    );
    let ih = v["instanceHours"]["expected"].as_f64().unwrap();
    let nc8 = lv["detail"].as_str().unwrap();
    let nc8: f64 = nc8[nc8.find("($").unwrap() + 2..nc8.find("/h instead").unwrap()]
        .parse()
        .unwrap();
    close(lv["monthly"].as_f64().unwrap(), ih * (2.0 - nc8));
    // without a prices file there is nothing to compare
    let v = json(&[DEV]);
    assert_eq!(v["vmSize"], "Standard_NC4as_T4_v3");
    assert!(
        v["levers"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l["id"] != "vm-size")
    );
}

/// Cost prices what render emits: for every example and render variant, the billable
/// resources in the rendered ARM template match the estimate's lines (VM size and priority,
/// disks, NAT gateway, private endpoints and DNS zones, metric alerts, the Service Bus
/// namespace or storage account and their SKU, the customer-managed key).
#[test]
fn cost_lines_match_the_rendered_template() {
    use gpuform::catalog::prices::PriceTable;
    use gpuform::cost::{self, Options, PriceBook};
    use gpuform::plan::Plan;
    use gpuform::spec::policy::Policy;

    let mut specs: Vec<std::path::PathBuf> = Vec::new();
    for dir in ["examples", "tests/fixtures/render/variants"] {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "yaml") {
                specs.push(p);
            }
        }
    }
    specs.sort();
    assert!(specs.len() >= 7, "{specs:?}");
    for path in &specs {
        let checked = gpuform::check::check_file(path, &Policy::default(), PriceTable::embedded());
        assert!(!checked.has_errors(), "{}", path.display());
        let plan = Plan::build(&checked).unwrap();
        let arm: Value =
            serde_json::from_str(&gpuform::emit::arm_template(&checked).unwrap()).unwrap();
        let est = cost::estimate(
            checked.spec.as_ref().unwrap(),
            &plan,
            &path.display().to_string(),
            checked.size().unwrap(),
            checked.auto_sized,
            &PriceBook::embedded(),
            &Options {
                today: TODAY.into(),
                ..Options::default()
            },
        );
        let at = path.display();
        let resources = arm["resources"].as_array().unwrap();
        let of = |t: &str| -> Vec<&Value> { resources.iter().filter(|r| r["type"] == t).collect() };
        let line = |id: &str| est.lines.iter().find(|l| l.id == id);
        let lines_ending =
            |suffix: &str| est.lines.iter().filter(|l| l.id.ends_with(suffix)).count();

        // the scale set (or the dev box VM): size, Spot, disks
        let vmss = of("Microsoft.Compute/virtualMachineScaleSets");
        let vms = of("Microsoft.Compute/virtualMachines");
        assert_eq!(vmss.len() + vms.len(), 1, "{at}");
        let vm = if let Some(vmss) = vmss.first() {
            assert_eq!(vmss["sku"]["name"], est.vm_size.as_str(), "{at}");
            &vmss["properties"]["virtualMachineProfile"]
        } else {
            let vm = &vms[0]["properties"];
            assert_eq!(
                vm["hardwareProfile"]["vmSize"],
                est.vm_size.as_str(),
                "{at}"
            );
            // a stopped dev box keeps its disks: billed for the whole month
            assert_eq!(line("disk-os").unwrap().quantity.low, 730.0, "{at}");
            vm
        };
        assert_eq!(
            vm["priority"] == "Spot",
            line("compute-spot").is_some(),
            "{at}"
        );
        let disks = 1 + vm["storageProfile"]["dataDisks"]
            .as_array()
            .map_or(0, |d| d.len());
        let disk_lines = est
            .lines
            .iter()
            .filter(|l| l.id == "disk-os" || l.id.starts_with("disk-data-"))
            .count();
        assert_eq!(disks, disk_lines, "{at}");
        let os_disk = vm["storageProfile"]["osDisk"]["managedDisk"]["storageAccountType"]
            .as_str()
            .unwrap();
        assert!(line("disk-os").unwrap().label.contains(os_disk), "{at}");

        // network
        assert_eq!(
            of("Microsoft.Network/natGateways").len(),
            usize::from(line("nat-gateway").is_some()),
            "{at}"
        );
        assert_eq!(
            of("Microsoft.Network/publicIPAddresses").len(),
            usize::from(line("public-ip").is_some()),
            "{at}"
        );
        // the kind too: the lines name the rendered SKU (Standard or zone-redundant StandardV2)
        for (ty, id) in [
            ("Microsoft.Network/natGateways", "nat-gateway"),
            ("Microsoft.Network/publicIPAddresses", "public-ip"),
        ] {
            for r in of(ty) {
                let sku = r["sku"]["name"].as_str().unwrap();
                assert!(
                    line(id).unwrap().label.contains(&format!("({sku}")),
                    "{at}: {id} does not name the {sku} SKU"
                );
            }
        }
        assert_eq!(
            of("Microsoft.Network/privateEndpoints").len(),
            lines_ending("-private-endpoint"),
            "{at}"
        );
        assert_eq!(
            of("Microsoft.Network/privateDnsZones").len(),
            lines_ending("-private-dns"),
            "{at}"
        );

        // monitoring
        let alerts = line("metric-alerts").unwrap();
        assert_eq!(
            of("Microsoft.Insights/metricAlerts").len() as f64,
            alerts.quantity.expected,
            "{at}"
        );

        // GPU monitoring: one ingestion line for the custom table, one line per log alert rule
        assert_eq!(
            of("Microsoft.OperationalInsights/workspaces/tables").len(),
            usize::from(line("gpu-telemetry-ingestion").is_some()),
            "{at}"
        );
        let log_alerts = of("Microsoft.Insights/scheduledQueryRules");
        assert_eq!(
            log_alerts.len(),
            est.lines
                .iter()
                .filter(|l| l.id.starts_with("log-alert-gpu-"))
                .count(),
            "{at}"
        );
        for r in &log_alerts {
            let name = r["name"].as_str().unwrap();
            let freq = r["properties"]["evaluationFrequency"].as_str().unwrap();
            assert!(
                est.lines
                    .iter()
                    .any(|l| l.label == format!("Log search alert rule {name} (every {freq})")),
                "{at}: {name} is not priced at its frequency {freq}"
            );
        }

        // messaging: only created namespaces/accounts are billed to this deployment
        let sb = of("Microsoft.ServiceBus/namespaces");
        assert_eq!(sb.len(), usize::from(line("service-bus").is_some()), "{at}");
        for n in sb {
            let sku = n["sku"]["name"].as_str().unwrap();
            assert!(line("service-bus").unwrap().label.contains(sku), "{at}");
        }
        let st = of("Microsoft.Storage/storageAccounts");
        assert_eq!(
            st.len(),
            usize::from(line("storage-queue-operations").is_some()),
            "{at}"
        );
        for a in st {
            let sku = a["sku"]["name"].as_str().unwrap();
            assert!(
                line("storage-queue-operations")
                    .unwrap()
                    .label
                    .contains(sku),
                "{at}: {sku}"
            );
        }

        // the customer-managed key: rotation, HSM, advanced-key rate
        let keys = of("Microsoft.KeyVault/vaults/keys");
        assert_eq!(
            keys.len(),
            usize::from(line("kv-key-rotation").is_some()),
            "{at}"
        );
        for k in keys {
            let kty = k["properties"]["kty"].as_str().unwrap();
            let size = k["properties"]["keySize"].as_u64().unwrap();
            assert_eq!(kty.ends_with("-HSM"), line("kv-hsm-key").is_some(), "{at}");
            let ops = line("kv-operations").unwrap();
            assert_eq!(
                size > 2048,
                ops.assumption.contains(&format!("{kty} {size}")),
                "{at}: {}",
                ops.assumption
            );
        }
    }
}
