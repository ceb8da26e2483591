//! `simulate SPEC -g RG --since 2d` (issue 22): the queue's arrivals read from Azure Monitor
//! "Metrics - List" on a fake ARM, in the response shape ARM sends (the recording in
//! `tests/fixtures/status/metrics.json`: `cost, timespan, interval, namespace, resourceregion,
//! value[{id, type, name{value, localizedValue}, unit, timeseries[{metadatavalues, data}]}]`).
//! The fake answers only what Azure would: api-version 2023-10-01, PT1M, the Total aggregation,
//! a timespan of at most a day per request (gpuform asks day by day), and the EntityName filter
//! of the spec's queue; anything else is a 400 with ARM's error shape.

mod common;

use common::*;
use jiff::Timestamp;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, Request, Respond, ResponseTemplate};

const RG: &str = "rg-shortvideo-prod";
const PER_MINUTE: u64 = 3;

struct Metrics;

fn bad(message: &str) -> ResponseTemplate {
    ResponseTemplate::new(400)
        .set_body_json(json!({"error": {"code": "BadRequest", "message": message}}))
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
        let Some((a, b)) = get("timespan").split_once('/') else {
            return bad("timespan must be START/END");
        };
        let (Ok(a), Ok(b)) = (a.parse::<Timestamp>(), b.parse::<Timestamp>()) else {
            return bad("timespan is not ISO 8601");
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

#[test]
fn simulate_reads_the_queues_arrivals_from_azure_monitor() {
    let fake = FakeArm::new().start();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(&format!(
                "resourceGroups/{RG}/providers/Microsoft.ServiceBus/namespaces/sb-shortvideo-prod/providers/Microsoft.Insights/metrics"
            ))))
            .respond_with(Metrics),
    );
    let out = fake
        .gpuform()
        .arg("simulate")
        .arg(examples("shortvideo-transcode.yaml"))
        .args([
            "-g",
            RG,
            "--since",
            "2d",
            "--job-duration",
            "PT2M",
            "--format",
            "json",
            "--arm-endpoint",
            &format!("{}/", fake.base),
            "--retry-delay-ms",
            "50",
        ])
        .output()
        .unwrap();
    show(&out);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
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

#[test]
fn simulate_from_azure_says_what_failed() {
    let fake = FakeArm::new().start();
    fake.mount(
        Mock::given(method("GET"))
            .respond_with(ResponseTemplate::new(403).set_body_json(json!({"error": {"code": "AuthorizationFailed", "message": "The client does not have authorization to perform action 'Microsoft.Insights/metrics/read'."}}))),
    );
    let out = fake
        .gpuform()
        .arg("simulate")
        .arg(examples("shortvideo-transcode.yaml"))
        .args([
            "-g",
            RG,
            "--since",
            "1d",
            "--job-duration",
            "PT2M",
            "--arm-endpoint",
            &format!("{}/", fake.base),
            "--retry-delay-ms",
            "50",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let (_, err) = texts(&out);
    assert!(err.contains("Microsoft.Insights/metrics/read"), "{err}");
}
