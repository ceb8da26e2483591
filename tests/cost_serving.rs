//! `gpuform cost` of a serving pool's frontend (issue 36, item 4): the Application Gateway v2's
//! fixed price and capacity units, the internal Standard Load Balancer's rules and data, priced
//! from the embedded dated table and held against the quotes of its sources
//! (tests/fixtures/sources/serving-frontend-prices.json), never against the code's constants.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn spec() -> PathBuf {
    root().join("tests/fixtures/serving/chat-both.yaml")
}

fn source() -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(
            root().join("tests/fixtures/sources/serving-frontend-prices.json"),
        )
        .unwrap(),
    )
    .unwrap()
}

fn cost(spec: &Path, args: &[&str]) -> (std::process::Output, Value) {
    let out = Command::cargo_bin("gpuform")
        .unwrap()
        .env("GPUFORM_TODAY", "2026-12-05")
        .env("NO_COLOR", "1")
        .arg("cost")
        .arg(spec)
        .args(["--format", "json"])
        .args(args)
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out, v)
}

fn line<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["id"] == id)
        .unwrap_or_else(|| panic!("no line {id}: {v}"))
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 0.005, "{a} != {b}");
}

fn price(v: &Value, product: &str, meter: &str) -> f64 {
    v[product]["meters"][meter]["retailPrice"].as_f64().unwrap()
}

#[test]
fn the_gateway_and_the_load_balancer_are_priced_at_their_sources_figures() {
    let src = source();
    let (out, v) = cost(&spec(), &[]);
    assert_eq!(out.status.code(), Some(0));
    let gw = "applicationGatewayStandardV2";
    let lb = "loadBalancerStandard";
    let fixed = line(&v, "gateway-fixed");
    close(
        fixed["unitPrice"].as_f64().unwrap(),
        price(&src, gw, "Standard Fixed Cost"),
    );
    // Learn's example: $0.246 x 730 hours = $179.58
    close(fixed["amount"]["expected"].as_f64().unwrap(), 179.58);
    // one minimum instance reserves 10 capacity units, billed all month; high: 4 instances
    let cu = line(&v, "gateway-capacity-units");
    let per_instance = src[gw]["capacityUnitsPerInstance"].as_f64().unwrap();
    close(
        cu["unitPrice"].as_f64().unwrap(),
        price(&src, gw, "Standard Capacity Units"),
    );
    close(
        cu["quantity"]["low"].as_f64().unwrap(),
        per_instance * 730.0,
    );
    close(
        cu["quantity"]["expected"].as_f64().unwrap(),
        per_instance * 730.0,
    );
    close(
        cu["quantity"]["high"].as_f64().unwrap(),
        4.0 * per_instance * 730.0,
    );
    let rules = line(&v, "load-balancer-rules");
    close(
        rules["unitPrice"].as_f64().unwrap(),
        price(&src, lb, "Standard Included LB Rules and Outbound Rules"),
    );
    close(rules["amount"]["expected"].as_f64().unwrap(), 0.025 * 730.0);
    let data = line(&v, "load-balancer-data");
    close(
        data["unitPrice"].as_f64().unwrap(),
        price(&src, lb, "Standard Data Processed"),
    );
    close(data["quantity"]["expected"].as_f64().unwrap(), 100.0);
    for id in [
        "gateway-fixed",
        "gateway-capacity-units",
        "load-balancer-rules",
        "load-balancer-data",
    ] {
        assert_eq!(line(&v, id)["source"], "serving-frontend");
    }
    let assumptions = v["assumptions"].to_string();
    assert!(
        assumptions.contains(
            "10 Application Gateway capacity units in an average hour (--gateway-capacity-units"
        ),
        "{assumptions}"
    );
    assert!(
        assumptions.contains("100 GB/month through the internal load balancer (--lb-gb)"),
        "{assumptions}"
    );
}

#[test]
fn the_flags_change_the_assumed_capacity_units_and_data() {
    let (_, v) = cost(
        &spec(),
        &["--gateway-capacity-units", "25", "--lb-gb", "1000"],
    );
    let cu = line(&v, "gateway-capacity-units");
    close(cu["quantity"]["expected"].as_f64().unwrap(), 25.0 * 730.0);
    close(
        cu["amount"]["expected"].as_f64().unwrap(),
        25.0 * 730.0 * 0.008,
    );
    close(
        line(&v, "load-balancer-data")["amount"]["expected"]
            .as_f64()
            .unwrap(),
        5.0,
    );
    // fewer units than the reserved ones are billed as the reserved ones
    let (_, v) = cost(&spec(), &["--gateway-capacity-units", "3"]);
    close(
        line(&v, "gateway-capacity-units")["quantity"]["expected"]
            .as_f64()
            .unwrap(),
        10.0 * 730.0,
    );
    let out = Command::cargo_bin("gpuform")
        .unwrap()
        .arg("cost")
        .arg(spec())
        .arg("--lb-gb=-5")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--lb-gb must be a non-negative number"));
}

/// A gateway-only pool has no load balancer lines; a queue-driven one no frontend at all.
#[test]
fn only_the_frontends_the_plan_deploys_are_priced() {
    let (_, v) = cost(
        &root().join("tests/fixtures/serving/chat-gateway.yaml"),
        &[],
    );
    let ids: Vec<&str> = v["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"gateway-fixed"), "{ids:?}");
    assert!(
        !ids.iter().any(|i| i.starts_with("load-balancer")),
        "{ids:?}"
    );
    let (_, v) = cost(&root().join("tests/fixtures/cost/fixed-pool.yaml"), &[]);
    assert!(
        !v["lines"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["id"].as_str().unwrap().starts_with("gateway")),
    );
}
