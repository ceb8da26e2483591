//! Prices for what gpuform proposes (issue 37, item 4): Spot in westeurope has no embedded
//! price (the only Spot source, a 2023 snapshot, covers five US regions), so `cost` and
//! `simulate` take it from `--prices` (the same Retail Prices API JSON as `cost`'s), say which
//! price is missing and what to run when none is given, and `--tune` says when it ranked by
//! VM-hours instead of money. The simulation prices in the spec's currency, as `cost` does.
//!
//! `tests/fixtures/cost/prices-westeurope-t4-spot*.json`: made-up prices in the API's shape
//! (see the fixtures' README).

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

const SPOKE: &str = "examples/landing-zone-spoke.yaml";
const SPOT_PRICES: &str = "tests/fixtures/cost/prices-westeurope-t4-spot.json";
const SPOT_PRICES_EUR: &str = "tests/fixtures/cost/prices-westeurope-t4-spot-eur.json";

fn gpuform(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("gpuform")
        .unwrap()
        .env("GPUFORM_TODAY", "2026-12-02")
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .unwrap()
}

fn json_of(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

const SIM: &[&str] = &["--synthetic", "--days", "1", "--job-duration", "PT5M"];

fn simulate(extra: &[&str]) -> std::process::Output {
    let mut a = vec!["simulate", SPOKE];
    a.extend_from_slice(SIM);
    a.extend_from_slice(extra);
    gpuform(&a)
}

/// Spot in westeurope is priced from a prices file by `cost` (the high case counts the Spot
/// VMs) and by `simulate --prices`, which takes the same file.
#[test]
fn spot_in_westeurope_is_priced_from_a_prices_file() {
    let v = json_of(&gpuform(&[
        "cost",
        SPOKE,
        "--output",
        "json",
        "--prices",
        SPOT_PRICES,
    ]));
    let spot = v["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["id"] == "compute-spot")
        .unwrap();
    assert_eq!(spot["unitPrice"], 0.20);
    assert_eq!(spot["source"], "prices-file");
    // the high case: every profile at its max, 8 Spot VMs all month = 5,840 h × $0.20
    assert!(
        (spot["amount"]["high"].as_f64().unwrap() - 5840.0 * 0.20).abs() < 0.005,
        "{spot}"
    );
    assert!(
        v["missing"].as_array().unwrap().is_empty(),
        "{}",
        v["missing"]
    );

    let r = json_of(&simulate(&["--output", "json", "--prices", SPOT_PRICES]));
    assert!(r["cost"]["monthly"].is_f64(), "{}", r["cost"]);
    assert_eq!(r["cost"]["currency"], "USD");
    assert!(r.get("warnings").is_none(), "{}", r["warnings"]);
    assert!(
        r["assumptions"]
            .to_string()
            .contains("prices-westeurope-t4-spot.json")
            || r["cost"]["complete"] == true,
        "{r}"
    );
}

/// Without a price, `simulate` says which one is missing, in which currency, and what to run.
#[test]
fn a_missing_price_is_reported_with_the_next_command() {
    let r = json_of(&simulate(&["--output", "json"]));
    assert!(r["cost"]["monthly"].is_null());
    let missing = &r["cost"]["missing"][0];
    assert_eq!(missing["line"], "compute-spot");
    let w = r["warnings"][0].as_str().unwrap();
    assert!(
        w.starts_with("prices missing in USD: Linux spot price of Standard_NC4as_T4_v3 in westeurope (compute-spot)"),
        "{w}"
    );
    assert!(
        w.contains("`gpuform simulate examples/landing-zone-spoke.yaml ... --refresh-prices`"),
        "{w}"
    );
    assert!(w.contains("--prices FILE"), "{w}");
    let out = simulate(&[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("price missing (USD: see the warning below)"),
        "{text}"
    );
    assert!(text.contains("warning: prices missing in USD"), "{text}");
}

/// `--tune` without the pool's price ranks by VM-hours and says so, with what to run.
#[test]
fn tune_never_ranks_by_hours_silently() {
    let out = simulate(&["--tune", "--nominal", "--no-schedule", "--wait-p95", "60m"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("warning: --tune ranked the policies by the VM-hours they bill"),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("--refresh-prices"), "{text}");
}

/// A spec whose budget is in EUR is simulated in EUR, from an EUR prices file.
#[test]
fn simulate_prices_in_the_specs_currency() {
    let dir = tempfile::tempdir().unwrap();
    let spec: PathBuf = dir.path().join("spoke-eur.yaml");
    let text = std::fs::read_to_string(SPOKE).unwrap();
    let from = "    alertEmails: [ml-platform-oncall@example.com]\n";
    assert!(text.contains(from));
    std::fs::write(
        &spec,
        text.replace(
            from,
            &format!("{from}    budget: {{monthly: 2000, currency: EUR}}\n"),
        ),
    )
    .unwrap();
    let s = spec.to_str().unwrap();
    let mut a = vec!["simulate", s];
    a.extend_from_slice(SIM);
    a.extend_from_slice(&["--output", "json", "--prices", SPOT_PRICES_EUR]);
    let r = json_of(&gpuform(&a));
    assert_eq!(r["cost"]["currency"], "EUR");
    assert!(r["cost"]["monthly"].is_f64(), "{}", r["cost"]);
    // a USD file for an EUR spec: the located error cost gives
    let mut a = vec!["simulate", s];
    a.extend_from_slice(SIM);
    a.extend_from_slice(&["--prices", SPOT_PRICES]);
    let out = gpuform(&a);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is in USD (page 0), but the spec prices in EUR"),
        "{err}"
    );
    assert!(err.contains("spoke-eur.yaml:"), "{err}");
}

/// `simulate --refresh-prices` asks the Retail Prices API as `cost` does (a fake on 127.0.0.1
/// answering westeurope's Spot price in the API's shape): the run is priced.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn simulate_refreshes_prices_as_cost_does() {
    use wiremock::matchers::{method, path, query_param_contains};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let server = MockServer::start().await;
    let page: Value = serde_json::from_str(&std::fs::read_to_string(SPOT_PRICES).unwrap()).unwrap();
    Mock::given(method("GET"))
        .and(path("/api/retail/prices"))
        .and(query_param_contains(
            "$filter",
            "armSkuName eq 'Standard_NC4as_T4_v3'",
        ))
        .respond_with(ResponseTemplate::new(200).set_body_json(page))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/api/retail/prices"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
            "BillingCurrency": "USD", "Items": [], "NextPageLink": null, "Count": 0
        })))
        .with_priority(10)
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let (endpoint, cache) = (
        format!("{}/api/retail/prices", server.uri()),
        dir.path().to_str().unwrap().to_string(),
    );
    let out = tokio::task::spawn_blocking(move || {
        simulate(&[
            "--output",
            "json",
            "--refresh-prices",
            "--prices-endpoint",
            &endpoint,
            "--cache-dir",
            &cache,
        ])
    })
    .await
    .unwrap();
    let r = json_of(&out);
    assert!(r["cost"]["monthly"].is_f64(), "{}", r["cost"]);
    assert!(
        r["assumptions"]
            .to_string()
            .contains("prices refreshed from"),
        "{}",
        r["assumptions"]
    );
    assert!(!server.received_requests().await.unwrap().is_empty());
}
