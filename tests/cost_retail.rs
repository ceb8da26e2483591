//! The Retail Prices API client against a local fake server (wiremock on 127.0.0.1, plain
//! http: the pipeline sends no credentials, so plain http is allowed): pagination through
//! NextPageLink, 429 and 500 answers, per-try timeouts, malformed JSON, and `gpuform cost
//! --refresh-prices` end to end with its cache. Item shapes follow
//! ../shared/azure/prices.json `retailPricesApi`; prices are made up.

use std::time::Duration;

use gpuform::azure::HttpSettings;
use gpuform::azure::http::PublicPipeline;
use gpuform::catalog::currency::Currency;
use gpuform::catalog::prices::{PriceKind, PriceOs};
use gpuform::cost::fetch::{self, FetchError, FetchOptions};
use gpuform::cost::retail;
use serde_json::{Value, json};
use wiremock::matchers::{method, path, query_param, query_param_contains};
use wiremock::{Mock, MockServer, ResponseTemplate};

const PATH: &str = "/api/retail/prices";

fn item(
    sku: &str,
    region: &str,
    product: &str,
    sku_name: &str,
    price: f64,
    typ: &str,
    term: Option<&str>,
) -> Value {
    // Linux and Windows share meterName; spot meters end in " Spot" like their skuName
    let meter = sku_name;
    let mut v = json!({
        "currencyCode": "USD", "tierMinimumUnits": 0.0, "retailPrice": price, "unitPrice": price,
        "armRegionName": region, "location": "US East 2", "effectiveStartDate": "2025-10-01T00:00:00Z",
        "meterId": "00000000-0000-0000-0000-000000000000", "meterName": meter, "productId": "DZH318Z0BQ4W",
        "skuId": "DZH318Z0BQ4W/00RV", "availabilityId": null, "productName": product, "skuName": sku_name,
        "serviceName": "Virtual Machines", "serviceId": "DZH313Z7MMC8", "serviceFamily": "Compute",
        "unitOfMeasure": "1 Hour", "type": typ, "isPrimaryMeterRegion": true, "armSkuName": sku
    });
    if let Some(t) = term {
        v["reservationTerm"] = t.into();
    }
    v
}

fn page(items: Vec<Value>, next: Option<String>) -> Value {
    json!({"BillingCurrency": "USD", "CustomerEntityId": "Default", "CustomerEntityType": "Retail", "Items": items, "NextPageLink": next, "Count": 0})
}

fn opts(server: &MockServer) -> FetchOptions {
    FetchOptions::new(url::Url::parse(&format!("{}{PATH}", server.uri())).unwrap())
}

/// Three tries per request, quickly.
fn fast() -> HttpSettings {
    HttpSettings {
        timeout: Duration::from_secs(5),
        max_retries: 2,
        initial_delay: Duration::from_millis(1),
        ..HttpSettings::default()
    }
}

fn client() -> PublicPipeline {
    fast().pipeline(None)
}

const T4: &str = "Virtual Machines NCasT4_v3 Series";

#[tokio::test]
async fn follows_next_page_link_and_parses_every_page() {
    let server = MockServer::start().await;
    let next = format!(
        "{}{PATH}?api-version=2023-01-01-preview&$skip=1000",
        server.uri()
    );
    Mock::given(method("GET"))
        .and(path(PATH))
        .and(query_param("api-version", "2023-01-01-preview"))
        .and(query_param("meterRegion", "'primary'"))
        .and(query_param("$filter", "serviceName eq 'Virtual Machines' and armRegionName eq 'eastus2' and (armSkuName eq 'Standard_NC8as_T4_v3')"))
        // the pipeline's user agent: gpuform first, then azure_core's
        .and(wiremock::matchers::header_regex(
            "user-agent",
            &format!(
                "^{} azsdk-rust-gpuform/",
                gpuform::USER_AGENT.replace('.', "\\.")
            ),
        ))
        .respond_with(ResponseTemplate::new(200).set_body_json(page(
            vec![
                item("Standard_NC8as_T4_v3", "eastus2", T4, "NC8as T4 v3", 0.80, "Consumption", None),
                item("Standard_NC8as_T4_v3", "eastus2", T4, "NC8as T4 v3 Spot", 0.10, "Consumption", None),
            ],
            Some(next),
        )))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(PATH))
        .and(query_param("$skip", "1000"))
        .respond_with(ResponseTemplate::new(200).set_body_json(page(
            vec![
                item(
                    "Standard_NC8as_T4_v3",
                    "eastus2",
                    &format!("{T4} Windows"),
                    "NC8as T4 v3",
                    1.10,
                    "Consumption",
                    None,
                ),
                item(
                    "Standard_NC8as_T4_v3",
                    "eastus2",
                    T4,
                    "NC8as T4 v3",
                    4380.0,
                    "Reservation",
                    Some("1 Year"),
                ),
            ],
            None,
        )))
        .expect(1)
        .mount(&server)
        .await;
    let filter = &fetch::filters("eastus2", &["Standard_NC8as_T4_v3".to_string()])[0];
    let pages = fetch::fetch_filter(&client(), &opts(&server), filter, Currency::USD)
        .await
        .unwrap();
    assert_eq!(pages.len(), 2);
    let doc = retail::parse_document(&serde_json::to_string(&pages).unwrap()).unwrap();
    let p = retail::build(&doc.pages, "test", "2026-12-02", Currency::USD).unwrap();
    let h = |os, kind| p.vm.hourly("Standard_NC8as_T4_v3", "eastus2", os, kind);
    assert_eq!(h(PriceOs::Linux, PriceKind::OnDemand), Some(0.80));
    assert_eq!(h(PriceOs::Linux, PriceKind::Spot), Some(0.10));
    assert_eq!(h(PriceOs::Windows, PriceKind::OnDemand), Some(1.10));
    // a reservation's retailPrice is the whole term: 4380 / 8760 h = 0.50/h
    assert_eq!(h(PriceOs::Linux, PriceKind::Reserved1Y), Some(0.5));
    assert_eq!(p.items, 4);
}

#[tokio::test]
async fn retries_429_then_succeeds() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(PATH))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("Retry-After", "0")
                .set_body_string("slow down"),
        )
        .up_to_n_times(1)
        .with_priority(1)
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(PATH))
        .respond_with(ResponseTemplate::new(200).set_body_json(page(vec![], None)))
        .expect(1)
        .mount(&server)
        .await;
    let pages = fetch::fetch_filter(
        &client(),
        &opts(&server),
        "serviceName eq 'Virtual Machines'",
        Currency::USD,
    )
    .await
    .unwrap();
    assert_eq!(pages.len(), 1);
}

#[tokio::test]
async fn a_persistent_500_fails_after_the_attempts() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(PATH))
        .respond_with(ResponseTemplate::new(500).set_body_string("upstream broke"))
        .expect(3)
        .mount(&server)
        .await;
    let err = fetch::fetch_filter(&client(), &opts(&server), "x", Currency::USD)
        .await
        .unwrap_err();
    match &err {
        FetchError::Status { status, body, .. } => {
            assert_eq!((*status, body.as_str()), (500, "upstream broke"))
        }
        other => panic!("{other:?}"),
    }
    assert!(
        err.to_string()
            .contains("answered HTTP 500: upstream broke"),
        "{err}"
    );
    // a 404 is not retried
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(PATH))
        .respond_with(ResponseTemplate::new(404))
        .expect(1)
        .mount(&server)
        .await;
    assert!(matches!(
        fetch::fetch_filter(&client(), &opts(&server), "x", Currency::USD).await,
        Err(FetchError::Status { status: 404, .. })
    ));
}

#[tokio::test]
async fn each_try_is_bounded_by_the_timeout() {
    // a server that answers after 3 s; each try may take 200 ms, and a timed-out try is retried
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(PATH))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(page(vec![], None))
                .set_delay(Duration::from_secs(3)),
        )
        .expect(2)
        .mount(&server)
        .await;
    let http = HttpSettings {
        timeout: Duration::from_millis(200),
        max_retries: 1,
        ..fast()
    };
    let started = std::time::Instant::now();
    let err = fetch::fetch_filter(&http.pipeline(None), &opts(&server), "x", Currency::USD)
        .await
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(3), "{err}");
    assert!(matches!(err, FetchError::Transport { .. }), "{err:?}");
    let chain = {
        let mut v = vec![err.to_string()];
        let mut cur = std::error::Error::source(&err);
        while let Some(e) = cur {
            v.push(e.to_string());
            cur = e.source();
        }
        v.join(": ")
    };
    assert!(chain.contains("no answer from 127.0.0.1"), "{chain}");
}

#[tokio::test]
async fn malformed_json_and_foreign_links_are_refused() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(PATH))
        .respond_with(ResponseTemplate::new(200).set_body_string("{\"Items\": ["))
        .mount(&server)
        .await;
    let err = fetch::fetch_filter(&client(), &opts(&server), "x", Currency::USD)
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::Malformed { .. }), "{err:?}");
    assert!(err.to_string().contains("invalid JSON"), "{err}");

    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(PATH))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"Items": "nope"})))
        .mount(&server)
        .await;
    assert!(matches!(
        fetch::fetch_filter(&client(), &opts(&server), "x", Currency::USD).await,
        Err(FetchError::Malformed { .. })
    ));

    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(PATH))
        .respond_with(ResponseTemplate::new(200).set_body_json(page(
            vec![],
            Some("https://evil.example/api/retail/prices?$skip=1000".into()),
        )))
        .mount(&server)
        .await;
    assert!(matches!(
        fetch::fetch_filter(&client(), &opts(&server), "x", Currency::USD).await,
        Err(FetchError::ForeignLink { .. })
    ));
}

fn gpuform(args: &[String]) -> std::process::Output {
    assert_cmd::Command::cargo_bin("gpuform")
        .unwrap()
        .env("GPUFORM_TODAY", "2026-12-02")
        .args(args)
        .output()
        .unwrap()
}

/// `gpuform cost --refresh-prices` against the fake API: VM prices for the spec's size (with
/// reservations), disk prices for its region, the cache, and the fallback when the API fails.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refresh_prices_end_to_end_with_cache() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(PATH))
        .and(query_param_contains(
            "$filter",
            "serviceName eq 'Virtual Machines' and armRegionName eq 'eastus2'",
        ))
        .and(query_param_contains(
            "$filter",
            "armSkuName eq 'Standard_NC8as_T4_v3'",
        ))
        .respond_with(ResponseTemplate::new(200).set_body_json(page(
            vec![
                item(
                    "Standard_NC8as_T4_v3",
                    "eastus2",
                    T4,
                    "NC8as T4 v3",
                    0.80,
                    "Consumption",
                    None,
                ),
                item(
                    "Standard_NC8as_T4_v3",
                    "eastus2",
                    T4,
                    "NC8as T4 v3 Spot",
                    0.10,
                    "Consumption",
                    None,
                ),
                item(
                    "Standard_NC8as_T4_v3",
                    "eastus2",
                    T4,
                    "NC8as T4 v3",
                    4380.0,
                    "Reservation",
                    Some("1 Year"),
                ),
                item(
                    "Standard_NC8as_T4_v3",
                    "eastus2",
                    T4,
                    "NC8as T4 v3",
                    7884.0,
                    "Reservation",
                    Some("3 Years"),
                ),
            ],
            None,
        )))
        .mount(&server)
        .await;
    // other VM batches: nothing
    Mock::given(method("GET"))
        .and(path(PATH))
        .and(query_param_contains(
            "$filter",
            "serviceName eq 'Virtual Machines'",
        ))
        .respond_with(ResponseTemplate::new(200).set_body_json(page(vec![], None)))
        .with_priority(10)
        .mount(&server)
        .await;
    let disk = |meter: &str, price: f64| {
        json!({"currencyCode": "USD", "retailPrice": price, "unitPrice": price, "armRegionName": "eastus2", "meterName": meter,
               "productName": "Premium SSD Managed Disks", "skuName": meter.trim_end_matches(" Disk"), "serviceName": "Storage",
               "unitOfMeasure": "1/Month", "type": "Consumption", "isPrimaryMeterRegion": true, "armSkuName": ""})
    };
    Mock::given(method("GET"))
        .and(path(PATH))
        .and(query_param_contains(
            "$filter",
            "serviceName eq 'Storage' and armRegionName eq 'eastus2'",
        ))
        .respond_with(ResponseTemplate::new(200).set_body_json(page(
            vec![
                disk("P10 LRS Disk", 20.0),
                disk("P15 LRS Disk", 40.0),
                disk("P15 LRS Disk Mount", 2.0),
            ],
            None,
        )))
        .mount(&server)
        .await;

    let cache = tempfile::tempdir().unwrap();
    let endpoint = format!("{}{PATH}", server.uri());
    let base: Vec<String> = [
        "cost",
        "examples/shortvideo-transcode.yaml",
        "--format",
        "json",
        "--refresh-prices",
        "--cache-dir",
        cache.path().to_str().unwrap(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let with = |extra: &[&str]| {
        let mut a = base.clone();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let args = with(&["--prices-endpoint", &endpoint]);
    let out = tokio::task::spawn_blocking(move || gpuform(&args))
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let line = |id: &str| {
        v["lines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(line("compute-regular")["unitPrice"], 0.80);
    assert_eq!(line("compute-regular")["source"], "retail-api");
    assert_eq!(line("compute-spot")["unitPrice"], 0.10);
    // the region's disk prices replace the embedded East US ones
    assert_eq!(line("disk-os")["source"], "retail-api-disks");
    assert!((line("disk-os")["unitPrice"].as_f64().unwrap() - 20.0 / 730.0).abs() < 1e-12);
    // reservation for regularBase 2: the base runs 2 × 126 h/week in the expected case
    // (everything but the 42 overnight hours at 0) = 252 × 730/168 = 1095 h/month.
    // 1 year: 4380 / 8760 = $0.50/h × 2 × 730 h = $730 paid; saves 1095 × 0.80 - 730 = $146
    // 3 years: 7884 / 26280 = $0.30/h × 1460 h = $438 paid; saves 876 - 438 = $438
    let lever = |id: &str| {
        v["levers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["id"] == id)
            .unwrap()
            .clone()
    };
    assert!(
        (lever("reservation-1y")["monthly"].as_f64().unwrap() - 146.0).abs() < 0.005,
        "{}",
        lever("reservation-1y")
    );
    assert!((lever("reservation-3y")["monthly"].as_f64().unwrap() - 438.0).abs() < 0.005);
    assert!(
        lever("reservation-1y")["detail"]
            .as_str()
            .unwrap()
            .contains("used 75% of the month")
    );
    let notes = v["notes"].to_string();
    assert!(notes.contains("prices refreshed from"), "{notes}");
    let cached: Vec<_> = std::fs::read_dir(cache.path()).unwrap().collect();
    assert_eq!(cached.len(), 1, "one cache file");
    let requests = server.received_requests().await.unwrap().len();
    assert!(requests >= 2, "{requests}");

    // a second run within --prices-max-age reads the cache: no request
    let args = with(&["--prices-endpoint", &endpoint]);
    let out = tokio::task::spawn_blocking(move || gpuform(&args))
        .await
        .unwrap();
    assert!(out.status.success());
    assert_eq!(server.received_requests().await.unwrap().len(), requests);
    assert!(String::from_utf8_lossy(&out.stdout).contains("from the cache"));

    // forced refresh while the API fails falls back to the cache, with a warning
    server.reset().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(503).insert_header("Retry-After", "0"))
        .mount(&server)
        .await;
    let broken_endpoint = endpoint.clone();
    let args = with(&[
        "--prices-endpoint",
        &broken_endpoint,
        "--prices-max-age",
        "0",
        "--prices-retry-delay-ms",
        "1",
    ]);
    let out = tokio::task::spawn_blocking(move || gpuform(&args))
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: cannot refresh prices")
            && err.contains("using the older cached prices"),
        "{err}"
    );

    // no cache and a failing API: a usage error (exit 2) that says why
    let empty = tempfile::tempdir().unwrap();
    let args: Vec<String> = [
        "cost",
        "examples/shortvideo-transcode.yaml",
        "--refresh-prices",
        "--cache-dir",
        empty.path().to_str().unwrap(),
        "--prices-endpoint",
        &broken_endpoint,
        "--prices-max-age",
        "0",
        "--prices-retry-delay-ms",
        "1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let out = tokio::task::spawn_blocking(move || gpuform(&args))
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("answered HTTP 503"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Sovereign clouds (issue 13): an Azure Government pool is priced from the Retail Prices API's
/// `usgov*` items (VM and disks, USD) while the embedded East US prices of the other resources
/// are withheld; an Azure China pool gets no price at all and says why. Prices are made up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sovereign_clouds_are_priced_only_from_their_own_sources() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(PATH))
        .and(query_param_contains(
            "$filter",
            "serviceName eq 'Virtual Machines' and armRegionName eq 'usgovvirginia'",
        ))
        .and(query_param_contains(
            "$filter",
            "armSkuName eq 'Standard_NC8as_T4_v3'",
        ))
        .respond_with(ResponseTemplate::new(200).set_body_json(page(
            vec![item(
                "Standard_NC8as_T4_v3",
                "usgovvirginia",
                T4,
                "NC8as T4 v3",
                0.95,
                "Consumption",
                None,
            )],
            None,
        )))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(PATH))
        .respond_with(ResponseTemplate::new(200).set_body_json(page(vec![], None)))
        .with_priority(10)
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("tests/fixtures/render/variants/cloud-usgov.yaml").unwrap();
    let gov = dir.path().join("gov.yaml");
    std::fs::write(&gov, &text).unwrap();
    let china = dir.path().join("china.yaml");
    std::fs::write(&china, text.replace("usgovvirginia", "chinanorth3")).unwrap();
    let endpoint = format!("{}{PATH}", server.uri());
    let run = |spec: &std::path::Path| {
        let args: Vec<String> = [
            "cost",
            spec.to_str().unwrap(),
            "--format",
            "json",
            "--refresh-prices",
            "--cache-dir",
            dir.path().to_str().unwrap(),
            "--prices-endpoint",
            &endpoint,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        async move {
            let out = tokio::task::spawn_blocking(move || gpuform(&args))
                .await
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            serde_json::from_slice::<Value>(&out.stdout).unwrap()
        }
    };
    let line = |v: &Value, id: &str| {
        v["lines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["id"] == id)
            .unwrap_or_else(|| panic!("no line {id}"))
            .clone()
    };
    let v = run(&gov).await;
    assert_eq!(line(&v, "compute-regular")["unitPrice"], 0.95);
    assert_eq!(line(&v, "compute-regular")["source"], "retail-api");
    // the NAT gateway's embedded price is East US public cloud: not used in Azure Government
    assert_eq!(line(&v, "nat-gateway")["unitPrice"], Value::Null);
    assert!(
        line(&v, "kv-private-dns")["label"]
            .as_str()
            .unwrap()
            .ends_with("privatelink.vaultcore.usgovcloudapi.net")
    );
    assert_eq!(v["totals"]["complete"], false);
    let notes = |v: &Value| -> Vec<String> {
        v["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_string())
            .collect()
    };
    assert!(
        notes(&v).iter().any(|n| n.starts_with(
            "AzureUSGovernment: VM and disk prices come from the Azure Retail Prices API"
        )),
        "{}",
        v["notes"]
    );

    let v = run(&china).await;
    for l in v["lines"].as_array().unwrap() {
        assert_eq!(l["unitPrice"], Value::Null, "{l}");
        assert_eq!(l["source"], Value::Null, "{l}");
    }
    assert_eq!(v["totals"]["expected"], 0.0);
    assert_eq!(v["totals"]["complete"], false);
    assert!(
        notes(&v)
            .iter()
            .any(|n| n.starts_with("no public price source for AzureChinaCloud")),
        "{}",
        v["notes"]
    );
    assert!(
        !v["lines"].to_string().contains("$"),
        "a public price in a label: {}",
        v["lines"]
    );
}
