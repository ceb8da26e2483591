//! The user's currency (issue 37, item 3): a budget in EUR is priced, compared and gated in EUR;
//! `--prices` files in any currency the Retail Prices API answers in; `--refresh-prices` asks the
//! API in the spec's currency (fake server in the real response shape: `currencyCode='EUR'` as
//! Microsoft's overview page writes it, `BillingCurrency` and every item's `currencyCode` in it);
//! an embedded (USD) figure is converted only at the API's own rate, and says so on its line;
//! amounts in two currencies never meet (a located error).
//!
//! Sources: tests/fixtures/sources/retail-prices-currencies.json (Learn "Azure Retail Prices
//! overview", the Microsoft Customer Agreement FAQ, "Azure Retail Prices API for China"). Prices
//! in the fixtures are made up; the EUR figures are the USD ones × 0.92, so the rate the API's
//! answer gives is 0.92 exactly.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::{Value, json};
use wiremock::matchers::{method, path, query_param, query_param_contains, query_param_is_missing};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const TODAY: &str = "2026-12-02";
const FIXED: &str = "tests/fixtures/cost/fixed-pool.yaml";
const PATH: &str = "/api/retail/prices";
const T4: &str = "Virtual Machines NCasT4_v3 Series";

fn gpuform(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("gpuform")
        .unwrap()
        .env("GPUFORM_TODAY", TODAY)
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .unwrap()
}

fn json_of(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
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

/// `spec` with its budget line replaced.
fn with_budget(dir: &Path, spec: &str, from: &str, to: &str) -> PathBuf {
    let text = std::fs::read_to_string(spec).unwrap();
    assert!(text.contains(from), "{spec} has no {from:?}");
    let p = dir.join(Path::new(spec).file_name().unwrap());
    std::fs::write(&p, text.replace(from, to)).unwrap();
    // the examples' cloud-init files, which their specs name relative to themselves
    let ci = Path::new(spec).parent().unwrap().join("cloud-init");
    if ci.is_dir() {
        std::fs::create_dir_all(dir.join("cloud-init")).unwrap();
        for e in std::fs::read_dir(ci).unwrap() {
            let e = e.unwrap().path();
            std::fs::copy(&e, dir.join("cloud-init").join(e.file_name().unwrap())).unwrap();
        }
    }
    p
}

/// A Retail Prices API item as the overview page shows one, in `cur`.
fn item(
    cur: &str,
    sku: &str,
    region: &str,
    sku_name: &str,
    price: f64,
    typ: &str,
    term: Option<&str>,
) -> Value {
    let mut v = json!({
        "currencyCode": cur, "tierMinimumUnits": 0.0, "retailPrice": price, "unitPrice": price,
        "armRegionName": region, "location": "EU West", "effectiveStartDate": "2025-10-01T00:00:00Z",
        "meterId": format!("meter-{sku}-{sku_name}-{typ}-{}", term.unwrap_or("")), "meterName": sku_name,
        "productId": "DZH318Z0BQ4W", "skuId": "DZH318Z0BQ4W/00RV", "productName": T4, "skuName": sku_name,
        "serviceName": "Virtual Machines", "serviceId": "DZH313Z7MMC8", "serviceFamily": "Compute",
        "unitOfMeasure": "1 Hour", "type": typ, "isPrimaryMeterRegion": true, "armSkuName": sku
    });
    if let Some(t) = term {
        v["reservationTerm"] = t.into();
    }
    v
}

/// A page as the API answers it: `BillingCurrency` is the currency asked for.
fn page(cur: &str, items: Vec<Value>) -> Value {
    json!({"BillingCurrency": cur, "CustomerEntityId": "Default", "CustomerEntityType": "Retail",
           "Items": items, "NextPageLink": null, "Count": 0})
}

/// The pay-as-you-go and reservation prices of a size in `cur` (EUR = USD × 0.92).
fn size_items(
    cur: &str,
    sku: &str,
    region: &str,
    meter: &str,
    usd_payg: f64,
    usd_1y: f64,
) -> Vec<Value> {
    let k = if cur == "USD" { 1.0 } else { 0.92 };
    vec![
        item(cur, sku, region, meter, usd_payg * k, "Consumption", None),
        item(
            cur,
            sku,
            region,
            meter,
            usd_1y * k,
            "Reservation",
            Some("1 Year"),
        ),
    ]
}

fn write(dir: &Path, name: &str, v: &Value) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string_pretty(v).unwrap()).unwrap();
    p
}

/// A budget in EUR with EUR prices (and the same meters in USD beside them) is priced,
/// compared and gated in EUR; before, the comparison was "skipped" and the file refused.
#[test]
fn an_eur_budget_is_priced_compared_and_gated_in_eur() {
    let dir = tempfile::tempdir().unwrap();
    let spec = with_budget(
        dir.path(),
        FIXED,
        "budget: {monthly: 1000}",
        "budget: {monthly: 1000, currency: EUR}",
    );
    let eur = page(
        "EUR",
        size_items(
            "EUR",
            "Standard_NC8as_T4_v3",
            "eastus",
            "NC8as T4 v3",
            0.752,
            4380.0,
        ),
    );
    let usd = page(
        "USD",
        size_items(
            "USD",
            "Standard_NC8as_T4_v3",
            "eastus",
            "NC8as T4 v3",
            0.752,
            4380.0,
        ),
    );
    let file = write(dir.path(), "eur.json", &json!([eur, usd]));
    let (s, f) = (spec.to_str().unwrap(), file.to_str().unwrap());

    let out = gpuform(&["cost", s, "--output", "json", "--prices", f]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);
    assert_eq!(v["currency"], "EUR");
    // the VM price is the file's EUR price, not a conversion
    let c = line(&v, "compute-regular");
    close(c["unitPrice"].as_f64().unwrap(), 0.752 * 0.92);
    assert_eq!(c["source"], "prices-file");
    assert!(c.get("converted").is_none(), "{c}");
    // the NAT gateway has only the embedded USD price ($0.045/h): converted at the rate of the
    // file's own meters (the reservation, the one meter at $1 or more), said on the line
    let nat = line(&v, "nat-gateway");
    close(
        nat["unitPrice"].as_f64().unwrap() * 1000.0,
        0.045 * 0.92 * 1000.0,
    );
    let conv = nat["converted"].as_str().unwrap();
    assert!(conv.contains("0.9200 EUR per USD"), "{conv}");
    assert!(conv.contains("eur.json"), "{conv}");
    // compared in EUR: 3 VMs all month are over a 1,000 EUR budget
    assert_eq!(v["budget"]["currency"], "EUR");
    assert_eq!(v["budget"]["status"], "over", "{}", v["budget"]);
    assert!(
        v["budget"]["message"]
            .as_str()
            .unwrap()
            .contains("EUR 1,000.00")
    );
    assert!(v["totals"]["complete"].as_bool().unwrap());

    // gated in EUR: the limit is the spec's currency without a code
    let out = gpuform(&["cost", s, "--prices", f, "--fail-above", "1000"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("EUR per month of 730 h"), "{text}");
    assert!(
        text.contains("gate fail-above: FAILED — expected EUR 1,"),
        "{text}"
    );
    let out = gpuform(&["cost", s, "--prices", f, "--fail-above", "5000 EUR"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// An EUR prices file alone (no USD meters beside it) is accepted; what only the embedded USD
/// table prices is missing, each with what to run, never converted at a guessed rate.
#[test]
fn an_eur_prices_file_is_accepted_and_nothing_is_converted_without_a_rate() {
    let dir = tempfile::tempdir().unwrap();
    let spec = with_budget(
        dir.path(),
        FIXED,
        "budget: {monthly: 1000}",
        "budget: {monthly: 1000, currency: EUR}",
    );
    let eur = page(
        "EUR",
        size_items(
            "EUR",
            "Standard_NC8as_T4_v3",
            "eastus",
            "NC8as T4 v3",
            0.752,
            4380.0,
        ),
    );
    let file = write(dir.path(), "eur-only.json", &eur);
    let out = gpuform(&[
        "cost",
        spec.to_str().unwrap(),
        "--output",
        "json",
        "--prices",
        file.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);
    assert_eq!(v["currency"], "EUR");
    close(
        line(&v, "compute-regular")["unitPrice"].as_f64().unwrap(),
        0.752 * 0.92,
    );
    let nat = line(&v, "nat-gateway");
    assert!(nat["unitPrice"].is_null(), "{nat}");
    let missing = v["missing"].to_string();
    assert!(
        missing.contains("no source gave a USD → EUR rate"),
        "{missing}"
    );
    assert!(
        missing.contains("gpuform cost SPEC --refresh-prices"),
        "{missing}"
    );
    assert_eq!(
        v["budget"]["status"], "over",
        "the lower bound already exceeds it"
    );
}

/// Offline, with no EUR price and no rate, the estimate stays in USD and says so: the budget
/// is undecided (not "skipped") and names the command; `--fail-above` cannot be decided (exit 2).
#[test]
fn without_eur_prices_nothing_is_compared_and_the_command_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let spec = with_budget(
        dir.path(),
        FIXED,
        "budget: {monthly: 1000}",
        "budget: {monthly: 1000, currency: EUR}",
    );
    let s = spec.to_str().unwrap();
    let out = gpuform(&["cost", s, "--output", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    assert_eq!(v["currency"], "USD");
    assert_eq!(v["budget"]["status"], "undecided");
    let m = v["budget"]["message"].as_str().unwrap();
    assert!(
        m.contains("--refresh-prices") && m.contains("currencyCode='EUR'"),
        "{m}"
    );
    assert!(
        v["notes"][0]
            .as_str()
            .unwrap()
            .contains(":21:39 (monitoring.budget.currency)"),
        "{}",
        v["notes"]
    );
    let out = gpuform(&["cost", s, "--fail-above", "900"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot decide the cost gate fail-above: the limit is in EUR, and this estimate is in USD"), "{err}");
    assert!(err.contains("--refresh-prices"), "{err}");
}

/// Two currencies never meet: a USD prices file for an EUR spec, an amount in USD for an EUR
/// spec, an EUR baseline for a USD estimate, an item in another currency than its page: each a
/// usage error (exit 2) that says where each currency is set.
#[test]
fn mixing_currencies_is_a_located_error() {
    let dir = tempfile::tempdir().unwrap();
    let spec = with_budget(
        dir.path(),
        FIXED,
        "budget: {monthly: 1000}",
        "budget: {monthly: 1000, currency: EUR}",
    );
    let s = spec.to_str().unwrap();
    let usd = write(
        dir.path(),
        "usd.json",
        &page(
            "USD",
            size_items(
                "USD",
                "Standard_NC8as_T4_v3",
                "eastus",
                "NC8as T4 v3",
                0.752,
                4380.0,
            ),
        ),
    );
    let out = gpuform(&["cost", s, "--prices", usd.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("usd.json is in USD (page 0), but the spec prices in EUR"),
        "{err}"
    );
    assert!(
        err.contains("fixed-pool.yaml:21:39 (monitoring.budget.currency)"),
        "{err}"
    );
    assert!(err.contains("currencyCode='EUR'"), "{err}");

    let out = gpuform(&["cost", s, "--fail-above", "1000 USD"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--fail-above $1,000.00 is in USD, but the spec prices in EUR"),
        "{err}"
    );
    assert!(err.contains(":21:39 (monitoring.budget.currency)"), "{err}");

    // a baseline written in EUR against an estimate in USD (the fixture's budget is USD)
    let eur = page(
        "EUR",
        size_items(
            "EUR",
            "Standard_NC8as_T4_v3",
            "eastus",
            "NC8as T4 v3",
            0.752,
            4380.0,
        ),
    );
    let eur_file = write(
        dir.path(),
        "eur.json",
        &json!([
            eur,
            page(
                "USD",
                size_items(
                    "USD",
                    "Standard_NC8as_T4_v3",
                    "eastus",
                    "NC8as T4 v3",
                    0.752,
                    4380.0
                )
            )
        ]),
    );
    let base = gpuform(&[
        "cost",
        s,
        "--output",
        "json",
        "--prices",
        eur_file.to_str().unwrap(),
    ]);
    let base_file = dir.path().join("base.json");
    std::fs::write(&base_file, &base.stdout).unwrap();
    let out = gpuform(&["cost", FIXED, "--baseline", base_file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("base.json is in EUR") && err.contains("/currency), this estimate in USD"),
        "{err}"
    );

    // one page, two currencies
    let mut bad = page(
        "EUR",
        size_items(
            "EUR",
            "Standard_NC8as_T4_v3",
            "eastus",
            "NC8as T4 v3",
            0.752,
            4380.0,
        ),
    );
    bad["Items"][1]["currencyCode"] = "GBP".into();
    let bad_file = write(dir.path(), "bad.json", &bad);
    let out = gpuform(&["cost", s, "--prices", bad_file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "page 0, item 1 (Standard_NC8as_T4_v3 NC8as T4 v3): the item is in GBP, its page in EUR"
        ),
        "{err}"
    );
}

/// The currencies gpuform prices in are the Retail Prices API's table, and the spec's schema
/// offers exactly those.
#[test]
fn the_currencies_are_the_retail_prices_apis() {
    let src: Value = serde_json::from_str(
        &std::fs::read_to_string("tests/fixtures/sources/retail-prices-currencies.json").unwrap(),
    )
    .unwrap();
    let table: Vec<(String, String)> = src["overview"]["supportedCurrencies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r[0].as_str().unwrap().to_string(),
                r[1].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let ours: Vec<(String, String)> = gpuform::facts::retail_prices::CURRENCIES
        .iter()
        .map(|(c, n)| (c.to_string(), n.to_string()))
        .collect();
    assert_eq!(ours, table);
    // the agreement's billing currencies are the same codes (USD aside)
    let mut billing: Vec<&str> = src["customerAgreementFaq"]["supportedCurrencies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    billing.push("USD");
    billing.sort();
    let mut codes: Vec<&str> = table.iter().map(|(c, _)| c.as_str()).collect();
    codes.sort();
    assert_eq!(codes, billing);
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string("schemas/gpuworkload.schema.json").unwrap())
            .unwrap();
    let e =
        &schema["$defs"]["monitoring"]["properties"]["budget"]["properties"]["currency"]["enum"];
    let mut schema_codes: Vec<&str> = e
        .as_array()
        .unwrap_or_else(|| panic!("{schema:#}"))
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    schema_codes.sort();
    assert_eq!(schema_codes, codes);
}

/// The fake Retail Prices API: VM and disk prices in EUR when asked with `currencyCode='EUR'`,
/// the same meters in USD without it, and a refusal of a code outside the table (how the API
/// refuses one is not documented: the fake answers 400, gpuform never sends one).
async fn fake_api(answer_in: &'static str) -> MockServer {
    let server = MockServer::start().await;
    let refused = |r: &Request| {
        r.url.query_pairs().any(|(k, v)| {
            k == "currencyCode"
                && gpuform::facts::retail_prices::currency(v.trim_matches('\'')).is_none()
        })
    };
    Mock::given(method("GET"))
        .and(path(PATH))
        .and(refused)
        .respond_with(ResponseTemplate::new(400).set_body_string("unsupported currency"))
        .with_priority(1)
        .mount(&server)
        .await;
    let vm = |cur: &str| {
        page(
            cur,
            size_items(
                cur,
                "Standard_NC8as_T4_v3",
                "eastus2",
                "NC8as T4 v3",
                0.80,
                4380.0,
            ),
        )
    };
    Mock::given(method("GET"))
        .and(path(PATH))
        .and(query_param("currencyCode", "'EUR'"))
        .and(query_param_contains(
            "$filter",
            "armSkuName eq 'Standard_NC8as_T4_v3'",
        ))
        .respond_with(ResponseTemplate::new(200).set_body_json(vm(answer_in)))
        .with_priority(2)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(PATH))
        .and(query_param_is_missing("currencyCode"))
        .and(query_param_contains(
            "$filter",
            "armSkuName eq 'Standard_NC8as_T4_v3'",
        ))
        .respond_with(ResponseTemplate::new(200).set_body_json(vm("USD")))
        .with_priority(2)
        .mount(&server)
        .await;
    let disk = json!({"currencyCode": "EUR", "retailPrice": 18.4, "unitPrice": 18.4, "armRegionName": "eastus2",
        "meterName": "P10 LRS Disk", "productName": "Premium SSD Managed Disks", "skuName": "P10 LRS",
        "serviceName": "Storage", "unitOfMeasure": "1/Month", "type": "Consumption", "isPrimaryMeterRegion": true, "armSkuName": ""});
    Mock::given(method("GET"))
        .and(path(PATH))
        .and(query_param("currencyCode", "'EUR'"))
        .and(query_param_contains("$filter", "serviceName eq 'Storage'"))
        .respond_with(ResponseTemplate::new(200).set_body_json(page("EUR", vec![disk])))
        .with_priority(3)
        .mount(&server)
        .await;
    // every other query: an empty page in the currency asked for
    for cur in ["EUR", "USD"] {
        let m = Mock::given(method("GET")).and(path(PATH));
        let m = if cur == "EUR" {
            m.and(query_param("currencyCode", "'EUR'"))
        } else {
            m.and(query_param_is_missing("currencyCode"))
        };
        m.respond_with(ResponseTemplate::new(200).set_body_json(page(cur, vec![])))
            .with_priority(10)
            .mount(&server)
            .await;
    }
    server
}

/// `cost --refresh-prices` for an EUR spec asks the API in EUR, reads the rate from the same
/// meters in USD (one query), converts only what the API did not price, and caches the answer
/// with its currency.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refresh_prices_asks_in_the_specs_currency() {
    let server = fake_api("EUR").await;
    let dir = tempfile::tempdir().unwrap();
    let spec = with_budget(
        dir.path(),
        "examples/shortvideo-transcode.yaml",
        "budget: {monthly: 15000, currency: USD,",
        "budget: {monthly: 15000, currency: EUR,",
    );
    let endpoint = format!("{}{PATH}", server.uri());
    let cache = dir.path().join("cache");
    let args: Vec<String> = [
        "cost",
        spec.to_str().unwrap(),
        "--output",
        "json",
        "--refresh-prices",
        "--cache-dir",
        cache.to_str().unwrap(),
        "--prices-endpoint",
        &endpoint,
        "--fail-above",
        "100",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let out = tokio::task::spawn_blocking(move || {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        gpuform(&a)
    })
    .await
    .unwrap();
    // the 100 EUR limit is exceeded: the gate is decided in EUR
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);
    assert_eq!(v["currency"], "EUR");
    close(
        line(&v, "compute-regular")["unitPrice"].as_f64().unwrap(),
        0.80 * 0.92,
    );
    assert_eq!(line(&v, "compute-regular")["source"], "retail-api");
    close(
        line(&v, "disk-os")["unitPrice"].as_f64().unwrap() * 730.0,
        18.4,
    );
    // the Service Bus has only the embedded USD price: converted at the API's own rate
    let sb = line(&v, "service-bus");
    assert!(
        sb["converted"]
            .as_str()
            .unwrap()
            .contains("0.9200 EUR per USD"),
        "{sb}"
    );
    assert!(
        sb["converted"].as_str().unwrap().contains("2026-12-02"),
        "{sb}"
    );
    assert_eq!(v["gates"][0]["status"], "failed");
    assert_eq!(v["budget"]["currency"], "EUR");
    // compared in EUR (undecided only because the pool scales from zero: no load was given)
    assert!(v["budget"]["percentOfBudget"].is_f64(), "{}", v["budget"]);
    assert!(
        v["budget"]["message"]
            .as_str()
            .unwrap()
            .contains("of monitoring.budget.monthly EUR 15,000.00")
    );
    // every query but one asked for EUR, as the overview page writes it; the one other is the
    // rate's USD query of the same meters
    let reqs = server.received_requests().await.unwrap();
    let eur = reqs
        .iter()
        .filter(|r| {
            r.url
                .query()
                .unwrap_or("")
                .contains("currencyCode=%27EUR%27")
        })
        .count();
    assert_eq!(eur + 1, reqs.len(), "{reqs:?}");
    let cached: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(cached.len(), 1);
    assert!(cached[0].to_string_lossy().contains("-eur-"), "{cached:?}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&cached[0]).unwrap()).unwrap();
    assert_eq!(doc["currency"], "EUR");
    // the cache file is a --prices file: offline, the same estimate
    let out = gpuform(&[
        "cost",
        spec.to_str().unwrap(),
        "--output",
        "json",
        "--prices",
        cached[0].to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(json_of(&out)["totals"], v["totals"]);
}

/// An answer in another currency than the one asked for is refused; a code outside the table
/// is refused by `validate` before any request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_in_the_wrong_currency_and_unlisted_codes_are_refused() {
    let server = fake_api("USD").await;
    let dir = tempfile::tempdir().unwrap();
    let spec = with_budget(
        dir.path(),
        "examples/shortvideo-transcode.yaml",
        "budget: {monthly: 15000, currency: USD,",
        "budget: {monthly: 15000, currency: EUR,",
    );
    let endpoint = format!("{}{PATH}", server.uri());
    let cache = dir.path().join("cache");
    let (s, c, e) = (
        spec.to_str().unwrap().to_string(),
        cache.to_str().unwrap().to_string(),
        endpoint.clone(),
    );
    let out = tokio::task::spawn_blocking(move || {
        gpuform(&[
            "cost",
            &s,
            "--refresh-prices",
            "--cache-dir",
            &c,
            "--prices-endpoint",
            &e,
            "--retries",
            "0",
        ])
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("answered in USD, not in the EUR asked for"),
        "{err}"
    );

    let before = server.received_requests().await.unwrap().len();
    let xyz = with_budget(
        dir.path(),
        "examples/shortvideo-transcode.yaml",
        "budget: {monthly: 15000, currency: USD,",
        "budget: {monthly: 15000, currency: XYZ,",
    );
    let (s, c, e) = (
        xyz.to_str().unwrap().to_string(),
        cache.to_str().unwrap().to_string(),
        endpoint,
    );
    let out = tokio::task::spawn_blocking(move || {
        gpuform(&[
            "cost",
            &s,
            "--refresh-prices",
            "--cache-dir",
            &c,
            "--prices-endpoint",
            &e,
        ])
    })
    .await
    .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let all =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        all.contains("`spec.monitoring.budget.currency` cannot be `XYZ`"),
        "{all}"
    );
    assert_eq!(
        server.received_requests().await.unwrap().len(),
        before,
        "no request was made"
    );
}

/// Azure China is priced from 21Vianet's own CNY list, not from the global API in CNY:
/// `--refresh-prices` says so instead of asking prices.azure.com (the endpoint here answers
/// nothing: a request would fail the run).
#[test]
fn azure_china_is_not_the_global_list_in_cny() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("tests/fixtures/render/variants/cloud-usgov.yaml")
        .unwrap()
        .replace("usgovvirginia", "chinanorth3");
    let spec = dir.path().join("china.yaml");
    std::fs::write(&spec, text).unwrap();
    let out = gpuform(&[
        "cost",
        spec.to_str().unwrap(),
        "--output",
        "json",
        "--refresh-prices",
        "--prices-endpoint",
        "http://127.0.0.1:9/api/retail/prices",
        "--cache-dir",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);
    let notes = v["notes"].to_string();
    assert!(
        notes.contains("--refresh-prices did not ask the Retail Prices API"),
        "{notes}"
    );
    assert!(
        notes.contains("only supports prices on Commercial Cloud"),
        "{notes}"
    );
    assert!(
        notes.contains("prices.azure.cn/api/retail/pricesheet/download"),
        "{notes}"
    );
    assert!(
        notes.contains("not a conversion of the global prices"),
        "{notes}"
    );
    assert_eq!(v["totals"]["complete"], false);
}
