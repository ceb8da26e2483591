//! No network (issue 10, item 14): every retry is said on stderr with its cause, DNS failures
//! and refused connections fail at once (not after 50 s of silent retries), and `cost` takes
//! the same `--timeout/--retries` as preflight and deploy. Nothing here leaves 127.0.0.1: the
//! `.invalid` top-level domain never resolves (RFC 2606).

mod common;

use std::time::{Duration, Instant};

use common::clean_command;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

/// A 127.0.0.1 port nothing listens on.
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

fn refresh(endpoint: &str, extra: &[&str]) -> (Option<i32>, String, Duration) {
    let cache = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let out = clean_command()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "cost",
            "examples/shortvideo-transcode.yaml",
            "--refresh-prices",
            "--cache-dir",
            cache.path().to_str().unwrap(),
            "--prices-endpoint",
            endpoint,
        ])
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        start.elapsed(),
    )
}

#[test]
fn a_refused_connection_fails_at_once_and_says_so() {
    let endpoint = format!("http://127.0.0.1:{}/api/retail/prices", closed_port());
    let (code, err, took) = refresh(&endpoint, &["--prices-retry-delay-ms", "2000"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("refused the connection"), "{err}");
    assert!(
        !err.contains("retry 1 of"),
        "refused connections are not retried: {err}"
    );
    assert!(took < Duration::from_secs(10), "{took:?}: {err}");
}

#[test]
fn an_unresolvable_host_fails_at_once_and_says_so() {
    let (code, err, took) = refresh(
        "https://prices.gpuform.invalid/api/retail/prices",
        &["--prices-retry-delay-ms", "2000"],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("cannot resolve prices.gpuform.invalid"),
        "{err}"
    );
    assert!(
        !err.contains("retry 1 of"),
        "DNS failures are not retried: {err}"
    );
    assert!(took < Duration::from_secs(20), "{took:?}: {err}");
}

#[test]
fn deploy_what_if_without_a_network_blames_the_network_not_the_credential() {
    let start = Instant::now();
    let out = clean_command()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("AZURE_CLIENT_ID", "00000000-0000-0000-0000-000000000001")
        .env("AZURE_TENANT_ID", "00000000-0000-0000-0000-000000000002")
        .env("AZURE_CLIENT_SECRET", "not-a-real-secret")
        .env(
            "AZURE_SUBSCRIPTION_ID",
            "00000000-0000-0000-0000-000000000003",
        )
        .env("AZURE_AUTHORITY_HOST", "https://login.gpuform.invalid")
        .args([
            "deploy",
            "examples/shortvideo-transcode.yaml",
            "-g",
            "rg-test",
            "--what-if",
            "--auth",
            "secret",
            "--arm-endpoint",
            "https://management.gpuform.invalid",
            "--retry-delay-ms",
            "2000",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot resolve"), "{err}");
    assert!(err.contains("gpuform.invalid"), "{err}");
    // the network is to blame, not the credential
    assert!(!err.contains("check the credential"), "{err}");
    assert!(
        err.contains("check the network and the endpoint names"),
        "{err}"
    );
    assert!(!err.contains("not-a-real-secret"), "{err}");
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}: {err}",
        start.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn each_retry_is_said_with_its_cause_and_cost_takes_retries() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&server)
        .await;
    let endpoint = format!("{}/api/retail/prices", server.uri());
    let (code, err, _) = tokio::task::spawn_blocking(move || {
        refresh(
            &endpoint,
            &[
                "--retries",
                "2",
                "--timeout",
                "5",
                "--prices-retry-delay-ms",
                "1",
            ],
        )
    })
    .await
    .unwrap();
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(": HTTP 503; retry 1 of 2"), "{err}");
    assert!(err.contains(": HTTP 503; retry 2 of 2"), "{err}");
    assert!(!err.contains("retry 3 of"), "{err}");
    // three tries in all
    assert_eq!(server.received_requests().await.unwrap().len(), 3);
}
