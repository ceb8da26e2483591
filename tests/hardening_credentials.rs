//! Credentials never leave over http or from the wrong file (issue 39, item 2), through the real
//! binary against fake servers that count what they receive:
//! - `ACTIONS_ID_TOKEN_REQUEST_URL=http://…` and `SYSTEM_OIDCREQUESTURI=http://…` receive nothing
//!   (not the request token, not on a retry);
//! - `AZURE_FEDERATED_TOKEN_FILE` naming `/proc/self/environ`, a FIFO, a file that is not a JWT:
//!   nothing is posted to the sign-in host, and a FIFO does not hold `preflight` beyond `--timeout`;
//! - a GitHub OIDC endpoint that answers something other than a JWT: nothing goes on to Entra.

mod common;

use std::time::{Duration, Instant};

use common::{FakeArm, FakeAzure, TENANT, spec, token_path};
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const SECRET: &str = "admin-password-hunter2";

/// A plain-http server on 127.0.0.1 that answers everything (and counts it).
fn plain_http(fake: &FakeAzure) -> MockServer {
    fake.rt.block_on(async {
        let s = MockServer::start().await;
        Mock::given(wiremock::matchers::any())
            .respond_with(
                ResponseTemplate::new(200).set_body_json(json!({"value": "x", "oidcToken": "x"})),
            )
            .mount(&s)
            .await;
        s
    })
}

fn requests(fake: &FakeAzure, server: &MockServer) -> usize {
    fake.rt
        .block_on(server.received_requests())
        .unwrap_or_default()
        .len()
}

/// `preflight` against the fake with the client secret taken away and `vars` set instead.
fn preflight(fake: &FakeAzure, vars: &[(&str, &str)]) -> (std::process::Output, Duration) {
    let mut c = fake.preflight(&spec());
    c.env_remove("AZURE_CLIENT_SECRET")
        .env("GPUFORM_TEST_SECRET", SECRET)
        .args(["--timeout", "2", "--retries", "3"]);
    for (k, v) in vars {
        c.env(k, v);
    }
    let start = Instant::now();
    let out = c.timeout(Duration::from_secs(60)).output().unwrap();
    (out, start.elapsed())
}

fn token_posts(fake: &FakeAzure) -> Vec<String> {
    fake.requests()
        .into_iter()
        .filter(|r| r.url.path() == token_path())
        .map(|r| String::from_utf8_lossy(&r.body).into_owned())
        .collect()
}

#[test]
fn request_tokens_never_go_over_plain_http() {
    let fake = FakeArm::new().subscription(&[("eastus2", 48)]).start();
    let http = plain_http(&fake);
    let url = format!("{}/_apis/oidc?api-version=2.0", http.uri());
    for vars in [
        vec![
            ("ACTIONS_ID_TOKEN_REQUEST_URL", url.as_str()),
            ("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "gh-request-token"),
        ],
        vec![
            ("SYSTEM_OIDCREQUESTURI", url.as_str()),
            ("SYSTEM_ACCESSTOKEN", "ado-access-token"),
            ("AZURESUBSCRIPTION_SERVICE_CONNECTION_ID", "sc-1"),
        ],
    ] {
        let (out, _) = preflight(&fake, &vars);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        assert!(stderr.contains("only over https"), "{stderr}");
        assert_eq!(
            requests(&fake, &http),
            0,
            "the request token went over http"
        );
    }
    assert!(token_posts(&fake).is_empty());
    // and with --auth pipelines, chosen explicitly
    let (out, _) = preflight(
        &fake,
        &[
            ("GPUFORM_AUTH", "pipelines"),
            ("SYSTEM_OIDCREQUESTURI", url.as_str()),
            ("SYSTEM_ACCESSTOKEN", "ado-access-token"),
            ("AZURE_SERVICE_CONNECTION_ID", "sc-1"),
        ],
    );
    assert!(!out.status.success());
    assert_eq!(requests(&fake, &http), 0);
    // a managed identity endpoint that is not the local agent
    let (out, _) = preflight(
        &fake,
        &[
            ("GPUFORM_AUTH", "managed-identity"),
            (
                "IDENTITY_ENDPOINT",
                url.as_str().replace("127.0.0.1", "10.0.0.4").as_str(),
            ),
            ("IDENTITY_HEADER", "platform-secret"),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("loopback"), "{stderr}");
}

#[test]
fn a_token_file_that_is_not_a_jwt_in_a_regular_file_sends_nothing() {
    let fake = FakeArm::new().subscription(&[("eastus2", 48)]).start();
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("token");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let not_jwt = dir.path().join("not-a-jwt");
    std::fs::write(&not_jwt, format!("PASSWORD={SECRET}\n")).unwrap();
    let link = dir.path().join("environ");
    std::os::unix::fs::symlink("/proc/self/environ", &link).unwrap();
    for (file, says) in [
        ("/proc/self/environ", "kernel or device file"),
        (link.to_str().unwrap(), "kernel or device file"),
        (fifo.to_str().unwrap(), "FIFO"),
        (not_jwt.to_str().unwrap(), "does not hold a JWT"),
    ] {
        let (out, took) = preflight(&fake, &[("AZURE_FEDERATED_TOKEN_FILE", file)]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{file}: {stderr}");
        assert!(stderr.contains(says), "{file}: {stderr}");
        assert!(!stderr.contains(SECRET), "{stderr}");
        // well inside --timeout 2 and its retries: nothing waits on the FIFO
        assert!(took < Duration::from_secs(20), "{file}: {took:?}");
    }
    let posts = token_posts(&fake);
    assert!(posts.is_empty(), "sent to the sign-in host: {posts:?}");
    assert!(fake.requests().iter().all(|r| {
        !String::from_utf8_lossy(&r.body).contains(SECRET) && !r.url.as_str().contains(SECRET)
    }));
}

#[test]
fn a_github_answer_that_is_not_a_jwt_is_not_sent_on() {
    let fake = FakeArm::new().subscription(&[("eastus2", 48)]).start();
    fake.mount(
        Mock::given(method("GET"))
            .and(path("/_apis/oidc"))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_json(json!({"count": 1, "value": format!("PASSWORD={SECRET}")})),
            ),
    );
    let url = fake.url("/_apis/oidc?api-version=2.0");
    let (out, _) = preflight(
        &fake,
        &[
            ("ACTIONS_ID_TOKEN_REQUEST_URL", url.as_str()),
            ("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "gh-request-token"),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("not a JWT"), "{stderr}");
    assert!(token_posts(&fake).is_empty());
    // the https endpoint was asked (the fake's TLS front): the check is on what came back
    assert!(
        fake.requests()
            .iter()
            .any(|r| r.url.path() == "/_apis/oidc"),
        "{TENANT}"
    );
}
