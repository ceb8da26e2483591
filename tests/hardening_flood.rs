//! Azure answers that never end (issue 39, item 3), against fake servers:
//! - a `nextLink` that points to itself, or a cycle of them, is a loop, found at once;
//! - a body that never ends (or declares more than gpuform reads) is cut at the bound;
//! - `Retry-After: 999999`, a date in 2099, `retry-after-ms` beyond the cap: the call ends at
//!   once with the figures instead of sleeping for them; a short `Retry-After` is still honoured;
//! - a Logs Query answer with far more rows than the question can need is read by that need
//!   (one per minute of the span), and the pull says what was cut.
//!
//! `benches/flood.rs` measures peak memory and wall time of the same floods through the CLI.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::SUB;
use common::log_query::mount;
use common::recorder::{NoProbe, transport};
use gpuform::azure::{self, ArmApi, AuthMode, Cloud, Connect, Endpoints, Env, HttpSettings};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const TENANT: &str = "tenant-1";

fn connect(uri: &str, http: HttpSettings) -> azure::Arm {
    let env = Env::from_pairs([
        ("AZURE_TENANT_ID", TENANT),
        ("AZURE_CLIENT_ID", "app-1"),
        ("AZURE_CLIENT_SECRET", "s3cret"),
    ]);
    let c = Connect {
        endpoints: Endpoints::resolve(Cloud::AzureCloud, None, None).unwrap(),
        http,
        subscription: SUB.into(),
        transport: Some(transport(uri, None, None)),
    };
    let choice = azure::auth::choose(AuthMode::Auto, &env, &NoProbe).unwrap();
    azure::connect(&c, &env, &choice).unwrap()
}

async fn signed_in() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(format!("/{TENANT}/oauth2/v2.0/token")))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"token_type": "Bearer", "expires_in": 3599, "access_token": "tok-1"}),
        ))
        .mount(&server)
        .await;
    server
}

fn fast() -> HttpSettings {
    HttpSettings {
        timeout: Duration::from_secs(5),
        max_retries: 5,
        initial_delay: Duration::from_millis(20),
        ..HttpSettings::default()
    }
}

fn usages_path() -> String {
    format!("/subscriptions/{SUB}/providers/Microsoft.Compute/locations/eastus/usages")
}

fn usage_page(next: Option<String>) -> Value {
    json!({"value": [{"currentValue": 4, "limit": 24, "name": {"value": "cores", "localizedValue": "Total Regional vCPUs"}, "unit": "Count"}], "nextLink": next})
}

/// Answers with a page whose nextLink is `link(n)` for the n-th request.
struct Pages {
    n: Arc<AtomicUsize>,
    link: fn(usize) -> String,
}

impl Respond for Pages {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        let n = self.n.fetch_add(1, Ordering::SeqCst);
        ResponseTemplate::new(200).set_body_json(usage_page(Some((self.link)(n))))
    }
}

#[tokio::test]
async fn a_next_link_that_points_back_is_a_loop_found_at_once() {
    for (name, link) in [
        (
            "itself",
            (|_| {
                format!(
                    "https://management.azure.com/subscriptions/{SUB}/providers/Microsoft.Compute/locations/eastus/usages?api-version=2024-11-01"
                )
            }) as fn(usize) -> String,
        ),
        ("a cycle of two", |n| {
            format!(
                "https://management.azure.com/subscriptions/{SUB}/providers/Microsoft.Compute/locations/eastus/usages?api-version=2024-11-01&page={}",
                (n + 1) % 2
            )
        }),
    ] {
        let server = signed_in().await;
        let n = Arc::new(AtomicUsize::new(0));
        Mock::given(method("GET"))
            .and(path(usages_path()))
            .respond_with(Pages { n: n.clone(), link })
            .mount(&server)
            .await;
        let arm = connect(&server.uri(), fast());
        let e = arm.usages("eastus").await.unwrap_err();
        assert!(
            e.to_string().contains("points back to a page already read"),
            "{name}: {e}"
        );
        assert!(
            n.load(Ordering::SeqCst) <= 3,
            "{name}: {} pages read",
            n.load(Ordering::SeqCst)
        );
    }
}

/// A raw HTTP/1.1 server on 127.0.0.1: the token answer, then for everything else a 200 whose
/// body never ends (chunked) or that declares a Content-Length far beyond the bound.
async fn endless(declare: bool) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 65536];
                let n = s.read(&mut buf).await.unwrap_or(0);
                let req = String::from_utf8_lossy(&buf[..n]).to_string();
                if req.contains("/oauth2/v2.0/token") {
                    let body =
                        r#"{"token_type":"Bearer","expires_in":3599,"access_token":"tok-1"}"#;
                    let _ = s
                        .write_all(format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}", body.len()).as_bytes())
                        .await;
                    return;
                }
                if declare {
                    let _ = s
                        .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 900000000000\r\n\r\n{\"value\": [")
                        .await;
                    tokio::time::sleep(Duration::from_secs(30)).await;
                    return;
                }
                let _ = s
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n")
                    .await;
                let chunk = format!("{:x}\r\n{}\r\n", 1 << 20, " ".repeat(1 << 20));
                loop {
                    if s.write_all(chunk.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    format!("http://{addr}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_that_never_ends_is_cut_at_the_bound() {
    for declare in [true, false] {
        let uri = endless(declare).await;
        let arm = connect(&uri, fast());
        let start = Instant::now();
        let e = arm.usages("eastus").await.unwrap_err();
        let s = e.to_string();
        assert!(s.contains("more than 128 MiB in one answer"), "{s}");
        assert!(s.contains("an assumption"), "{s}");
        if declare {
            assert!(s.contains("Content-Length"), "{s}");
        }
        // not retried: one read of the bound at most
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{:?}",
            start.elapsed()
        );
    }
}

#[tokio::test]
async fn a_retry_after_beyond_the_cap_ends_the_call_with_the_figures() {
    for (header, value, says) in [
        ("Retry-After", "999999".to_string(), "11 days"),
        (
            "Retry-After",
            "Fri, 01 Jan 2099 00:00:00 GMT".to_string(),
            "days",
        ),
        ("retry-after-ms", "600000".to_string(), "600 s"),
    ] {
        let server = signed_in().await;
        Mock::given(method("GET"))
            .and(path(usages_path()))
            .respond_with(ResponseTemplate::new(429).insert_header(header, value.as_str()))
            .expect(1)
            .mount(&server)
            .await;
        let arm = connect(&server.uri(), fast());
        let start = Instant::now();
        let e = arm.usages("eastus").await.unwrap_err();
        let s = e.to_string();
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "{header}: {:?}",
            start.elapsed()
        );
        assert!(s.contains("HTTP 429") && s.contains(says), "{header}: {s}");
        assert!(
            s.contains("at most 5 s") && s.contains("an assumption"),
            "{s}"
        );
        assert!(e.help.unwrap().contains("--timeout"));
    }
    // a short wait is honoured: retried after it, and the call succeeds
    let server = signed_in().await;
    Mock::given(method("GET"))
        .and(path(usages_path()))
        .respond_with(ResponseTemplate::new(429).insert_header("Retry-After", "1"))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(usages_path()))
        .respond_with(ResponseTemplate::new(200).set_body_json(usage_page(None)))
        .mount(&server)
        .await;
    let arm = connect(&server.uri(), fast());
    let start = Instant::now();
    assert_eq!(arm.usages("eastus").await.unwrap().len(), 1);
    assert!(start.elapsed() >= Duration::from_millis(900));
}

const WS: &str = "/subscriptions/00000000-1111-2222-3333-444444444444/resourceGroups/rg/providers/Microsoft.OperationalInsights/workspaces/log-x";
const GUID: &str = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_query_rows_is_read_by_what_the_question_needs() {
    let server = signed_in().await;
    // 200,000 rows for one day (the bench sends 1,000,000): one per minute is 1,440
    let rows: Vec<Value> = (0..200_000)
        .map(|i| {
            json!([
                format!("2026-11-02T{:02}:{:02}:00Z", (i / 60) % 24, i % 60),
                "3",
                "1",
                "9"
            ])
        })
        .collect();
    let answer = json!({"tables": [{"name": "PrimaryResult", "columns": [
        {"name": "Minute", "type": "datetime"}, {"name": "Instances", "type": "long"},
        {"name": "Idle", "type": "long"}, {"name": "Samples", "type": "long"}], "rows": rows}]});
    mount(&server, WS, GUID, answer.clone()).await;
    let arm = connect(&server.uri(), fast());
    let a = arm
        .log_query_at(
            WS,
            GUID,
            "GpuTelemetry_CL",
            "2026-11-02T00:00:00Z/2026-11-03T00:00:00Z",
            1440,
        )
        .await
        .unwrap();
    assert_eq!((a.rows, a.kept, a.cut()), (200_000, 1440, Some(198_560)));
    assert_eq!(a.value["tables"][0]["rows"].as_array().unwrap().len(), 1440);

    // through the pull: the totals row, then the day's minutes as the same flood; the cut is
    // said, and the minutes kept are counted
    let totals = json!({"tables": [{"name": "PrimaryResult", "columns": [
        {"name": "Rows", "type": "long"}, {"name": "Computers", "type": "long"}, {"name": "Impossible", "type": "long"}],
        "rows": [["200000", "3", "0"]]}]});
    let server = signed_in().await;
    common::log_query::mount_with(
        &server,
        WS,
        GUID,
        Arc::new(move |body: &Value| {
            let q = body["query"].as_str().unwrap_or_default();
            let v = if q.contains("summarize Rows") {
                totals.clone()
            } else {
                answer.clone()
            };
            ResponseTemplate::new(200).set_body_json(v)
        }),
    )
    .await;
    let arm = connect(&server.uri(), fast());
    let trace = gpuform::simulate::load::Trace {
        start: "2026-11-02T00:00:00Z".parse().unwrap(),
        arrivals: vec![1; 1440],
        missing: vec![false; 1440],
        source: "test".into(),
    };
    let mut notes = Vec::new();
    let counts = gpuform::simulate::pull::gpu_telemetry(&arm, WS, &trace, 10, &mut notes)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("answered 200000 rows")
            && notes[0].contains("at most 1440")
            && notes[0].contains("198560 after the first 1440 were left out"),
        "{}",
        notes[0]
    );
    assert_eq!(counts.per_minute.len(), 1440);
}

#[test]
fn the_query_api_bounds_are_microsofts() {
    let text = std::fs::read_to_string("tests/fixtures/sources/azure-monitor-query-api-limits.md")
        .unwrap();
    let api = &text[text.find("### Query API").unwrap()..];
    let row = |name: &str| {
        api.lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("{name}"))
            .split('|')
            .nth(2)
            .unwrap()
            .trim()
            .to_string()
    };
    let records: usize = row("Maximum records returned")
        .replace(',', "")
        .parse()
        .unwrap();
    assert_eq!(gpuform::facts::limits::LOG_QUERY_MAX_RECORDS, records);
    // "~104 MB (~100 MiB)"
    let size = row("Maximum size of data returned");
    let mib: u64 = size
        .split("(~")
        .nth(1)
        .and_then(|s| s.split(" MiB").next())
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        gpuform::facts::limits::LOG_QUERY_MAX_BYTES,
        mib * 1024 * 1024
    );
}
