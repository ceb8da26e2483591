//! The Azure client through the transport seam: a test-only `HttpClient` sends
//! `https://*.fake.test` to a wiremock server on 127.0.0.1, so azure_identity and the bearer
//! policy see https URLs while nothing leaves the machine. Covers the credential flows, the
//! pipeline (token, user agent, retry, timeout), paging, error trees and the LRO headers deploy
//! will poll.

mod common;

use std::time::{Duration, Instant};

use common::SUB;
use common::recorder::{NoProbe, transport};
use gpuform::azure::{
    self, ArmApi, AuthMode, Cloud, Connect, Endpoints, Env, ErrorKind, HttpSettings, Op, Verb,
};
use serde_json::json;
use wiremock::matchers::{
    body_string_contains, header, method, path, query_param, query_param_is_missing,
};
use wiremock::{Mock, MockServer, ResponseTemplate};

const TENANT: &str = "tenant-1";

/// Tokens in the shape of JWTs (a JSON header naming its `alg`, JSON claims, a signature):
/// gpuform sends nothing else as a client assertion.
const GH_JWT: &str = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJyZXBvOm9yZy9hcHA6cmVmOnJlZnMvaGVhZHMvbWFpbiJ9.Z2l0aHViLXNpZ25hdHVyZQ";
const K8S_JWT: &str = "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6bWw6cnVubmVyIn0.azhzLXNpZ25hdHVyZQ";

/// Sends every `*.fake.test` request to the local server (scheme, host and port rewritten).

fn endpoints(cloud: Cloud) -> Endpoints {
    Endpoints::resolve(
        cloud,
        Some("https://management.fake.test/"),
        Some("https://login.fake.test"),
    )
    .unwrap()
}

fn fast() -> HttpSettings {
    HttpSettings {
        timeout: Duration::from_secs(5),
        max_retries: 2,
        initial_delay: Duration::from_millis(20),
        ..HttpSettings::default()
    }
}

fn connect(server: &MockServer, env: Env, cloud: Cloud, http: HttpSettings) -> azure::Arm {
    let transport = transport(&server.uri(), Some(".fake.test"), None);
    let c = Connect {
        endpoints: endpoints(cloud),
        http,
        subscription: SUB.into(),
        transport: Some(transport),
    };
    let choice = azure::auth::choose(AuthMode::Auto, &env, &NoProbe).unwrap();
    azure::connect(&c, &env, &choice).unwrap()
}

fn secret_env() -> Env {
    Env::from_pairs([
        ("AZURE_TENANT_ID", TENANT),
        ("AZURE_CLIENT_ID", "app-1"),
        ("AZURE_CLIENT_SECRET", "s3cret"),
    ])
}

async fn token_mock(server: &MockServer, expect: u64) {
    Mock::given(method("POST"))
        .and(path(format!("/{TENANT}/oauth2/v2.0/token")))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"token_type": "Bearer", "expires_in": 3599, "access_token": "tok-1"}),
        ))
        .expect(expect)
        .mount(server)
        .await;
}

fn usages_body() -> serde_json::Value {
    json!({"value": [{"currentValue": 4, "limit": 24, "name": {"value": "Standard NCASv3_T4 Family", "localizedValue": "Standard NCASv3_T4 Family vCPUs"}, "unit": "Count"}]})
}

#[tokio::test]
async fn client_secret_token_is_fetched_once_and_sent_as_bearer_with_gpuforms_user_agent() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(format!("/{TENANT}/oauth2/v2.0/token")))
        .and(body_string_contains("grant_type=client_credentials"))
        .and(body_string_contains("client_id=app-1"))
        .and(body_string_contains(
            "scope=https%3A%2F%2Fmanagement.azure.com%2F.default",
        ))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"token_type": "Bearer", "expires_in": 3599, "access_token": "tok-1"}),
        ))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(format!(
            "/subscriptions/{SUB}/providers/Microsoft.Compute/locations/eastus/usages"
        )))
        .and(query_param("api-version", "2024-11-01"))
        .and(header("authorization", "Bearer tok-1"))
        .respond_with(ResponseTemplate::new(200).set_body_json(usages_body()))
        .expect(2)
        .mount(&server)
        .await;
    let arm = connect(&server, secret_env(), Cloud::AzureCloud, fast());
    let u = arm.usages("eastus").await.unwrap();
    assert_eq!(
        (u[0].name.value.as_str(), u[0].current_value, u[0].limit),
        ("Standard NCASv3_T4 Family", 4, 24)
    );
    arm.usages("eastus").await.unwrap();
    let reqs = server.received_requests().await.unwrap();
    let ua = reqs
        .iter()
        .find(|r| r.url.path().contains("usages"))
        .unwrap()
        .headers
        .get("user-agent")
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let v = env!("CARGO_PKG_VERSION");
    assert!(
        ua.starts_with(&format!("gpuform/{v} azsdk-rust-gpuform/{v} (")),
        "{ua}"
    );
}

#[tokio::test]
async fn sovereign_clouds_ask_for_their_own_arm_scope() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(body_string_contains(
            "scope=https%3A%2F%2Fmanagement.chinacloudapi.cn%2F.default",
        ))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"token_type": "Bearer", "expires_in": 3599, "access_token": "tok-cn"}),
        ))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(header("authorization", "Bearer tok-cn"))
        .respond_with(ResponseTemplate::new(200).set_body_json(usages_body()))
        .mount(&server)
        .await;
    let arm = connect(&server, secret_env(), Cloud::AzureChinaCloud, fast());
    arm.usages("chinanorth3").await.unwrap();
}

#[tokio::test]
async fn paging_follows_next_link_and_filters_by_location() {
    let server = MockServer::start().await;
    token_mock(&server, 1).await;
    let p = format!("/subscriptions/{SUB}/providers/Microsoft.Compute/skus");
    let next = format!("https://management.fake.test{p}?api-version=2021-07-01&$skiptoken=2");
    Mock::given(method("GET"))
        .and(path(p.as_str()))
        .and(query_param("$filter", "location eq 'eastus'"))
        .and(query_param_is_missing("$skiptoken"))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"value": [{"resourceType": "disks", "name": "Premium_LRS"}], "nextLink": next}),
        ))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(p.as_str()))
        .and(query_param("$skiptoken", "2"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"value": [{"resourceType": "virtualMachines", "name": "Standard_NC4as_T4_v3", "family": "Standard NCASv3_T4 Family", "locations": ["eastus"], "restrictions": null}], "nextLink": ""})))
        .mount(&server)
        .await;
    let arm = connect(&server, secret_env(), Cloud::AzureCloud, fast());
    let skus = arm.resource_skus("eastus").await.unwrap();
    assert_eq!(
        skus.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["Premium_LRS", "Standard_NC4as_T4_v3"]
    );
    // the filter went out with %20, as ARM documents it
    let reqs = server.received_requests().await.unwrap();
    assert!(
        reqs.iter().any(|r| r
            .url
            .query()
            .unwrap_or("")
            .contains("%24filter=location%20eq%20%27eastus%27")),
        "{:?}",
        reqs.iter().map(|r| r.url.to_string()).collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn a_next_link_to_another_host_is_refused() {
    let server = MockServer::start().await;
    token_mock(&server, 1).await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"value": [], "nextLink": "https://collector.evil.test/steal?x=1"}),
        ))
        .mount(&server)
        .await;
    let arm = connect(&server, secret_env(), Cloud::AzureCloud, fast());
    let e = arm.resource_skus("eastus").await.unwrap_err();
    assert_eq!(e.kind, ErrorKind::Decode);
    assert!(e.to_string().contains("ARM returned a link to another host (https://collector.evil.test); gpuform only sends its token to https://management.fake.test"), "{e}");
}

#[tokio::test]
async fn arm_error_trees_keep_code_target_details_and_request_id() {
    let server = MockServer::start().await;
    token_mock(&server, 1).await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(400)
                .insert_header("x-ms-request-id", "rid-7")
                .set_body_json(json!({"error": {"code": "InvalidTemplateDeployment", "message": "The template deployment 'gpuform' is not valid.", "details": [
                    {"code": "QuotaExceeded", "target": "vmss", "message": "Operation could not be completed as it results in exceeding approved Standard NCASv3_T4 Family Cores quota.", "details": [
                        {"code": "Inner", "message": "Current Limit: 0, Current Usage: 0, Additional Required: 16"}]}]}})),
        )
        .mount(&server)
        .await;
    let arm = connect(&server, secret_env(), Cloud::AzureCloud, fast());
    let e = arm.key_vault_name("kv-x").await.unwrap_err();
    assert_eq!(
        (e.status, e.code.as_deref(), e.request_id.as_deref()),
        (Some(400), Some("InvalidTemplateDeployment"), Some("rid-7"))
    );
    assert_eq!(
        e.detail_lines(),
        [
            "  QuotaExceeded: Operation could not be completed as it results in exceeding approved Standard NCASv3_T4 Family Cores quota. [target: vmss]",
            "    Inner: Current Limit: 0, Current Usage: 0, Additional Required: 16"
        ]
    );
    assert_eq!(
        e.to_string(),
        "check whether the Key Vault name kv-x is free: HTTP 400 InvalidTemplateDeployment: The template deployment 'gpuform' is not valid."
    );
}

#[tokio::test]
async fn send_exposes_the_long_running_operation_headers_deploy_polls() {
    let server = MockServer::start().await;
    token_mock(&server, 1).await;
    let poll = "https://management.fake.test/subscriptions/s/providers/Microsoft.Resources/deployments/d/operationStatuses/08584?api-version=2025-04-01";
    Mock::given(method("PUT"))
        .and(body_string_contains("\"mode\":\"Incremental\""))
        .respond_with(
            ResponseTemplate::new(201)
                .insert_header("Azure-AsyncOperation", poll)
                .insert_header("Location", "https://management.fake.test/loc")
                .insert_header("Retry-After", "7")
                .set_body_json(json!({"properties": {"provisioningState": "Accepted"}})),
        )
        .mount(&server)
        .await;
    let arm = connect(&server, secret_env(), Cloud::AzureCloud, fast());
    let op = Op::new(
        "start the deployment",
        "Microsoft.Resources/deployments/write",
    );
    let url = arm.client.url(
        &format!(
            "subscriptions/{SUB}/resourcegroups/rg/providers/Microsoft.Resources/deployments/d"
        ),
        "2025-04-01",
        &[],
    );
    let r = arm
        .client
        .send(
            &op,
            Verb::Put,
            url,
            Some(&json!({"properties": {"mode": "Incremental"}})),
        )
        .await
        .unwrap();
    assert_eq!(r.status, 201);
    assert_eq!(r.async_operation.as_deref(), Some(poll));
    assert_eq!(r.retry_after, Some(Duration::from_secs(7)));
    assert_eq!(
        r.location.as_deref(),
        Some("https://management.fake.test/loc")
    );
    assert_eq!(
        arm.client.follow(&op, poll).unwrap().host_str(),
        Some("management.fake.test")
    );
    let v: serde_json::Value = r.json(&op).unwrap();
    assert_eq!(v["properties"]["provisioningState"], "Accepted");
}

#[tokio::test]
async fn retry_after_on_503_is_honoured() {
    let server = MockServer::start().await;
    token_mock(&server, 1).await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(503).insert_header("Retry-After", "1"))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({"registrationState": "Registered"})),
        )
        .mount(&server)
        .await;
    let arm = connect(&server, secret_env(), Cloud::AzureCloud, fast());
    let start = Instant::now();
    assert_eq!(
        arm.provider_state("Microsoft.Compute").await.unwrap(),
        "Registered"
    );
    assert!(start.elapsed() >= Duration::from_secs(1));
}

#[tokio::test]
async fn each_try_is_bounded_by_the_timeout() {
    let server = MockServer::start().await;
    token_mock(&server, 1).await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(3)))
        .mount(&server)
        .await;
    let http = HttpSettings {
        timeout: Duration::from_millis(300),
        max_retries: 1,
        initial_delay: Duration::from_millis(10),
        ..HttpSettings::default()
    };
    let arm = connect(&server, secret_env(), Cloud::AzureCloud, http);
    let start = Instant::now();
    let e = arm
        .feature_state("Microsoft.Compute", "EncryptionAtHost")
        .await
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Timeout, "{e:?}");
    assert!(
        e.to_string()
            .contains("no answer from management.fake.test within 300 ms"),
        "{e}"
    );
    // two tries of 0.3 s and one short back-off, not the 60 s reqwest read timeout
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
}

#[tokio::test]
async fn github_actions_oidc_token_becomes_the_client_assertion() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/_apis/pipelines/oidc"))
        .and(query_param("audience", "api://AzureADTokenExchange"))
        .and(header("authorization", "Bearer gh-request-token"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({"count": 1, "value": GH_JWT})),
        )
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(format!("/{TENANT}/oauth2/v2.0/token")))
        .and(body_string_contains(format!("client_assertion={GH_JWT}")))
        .and(body_string_contains("client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"token_type": "Bearer", "expires_in": 3599, "access_token": "tok-gh"})))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(header("authorization", "Bearer tok-gh"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({"registrationState": "Registered"})),
        )
        .mount(&server)
        .await;
    let env = Env::from_pairs([
        ("AZURE_TENANT_ID", TENANT),
        ("AZURE_CLIENT_ID", "app-gh"),
        (
            "ACTIONS_ID_TOKEN_REQUEST_URL",
            "https://pipelines.fake.test/_apis/pipelines/oidc?api-version=2.0",
        ),
        ("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "gh-request-token"),
    ]);
    let arm = connect(&server, env, Cloud::AzureCloud, fast());
    assert_eq!(
        arm.provider_state("Microsoft.Network").await.unwrap(),
        "Registered"
    );
}

#[tokio::test]
async fn workload_identity_reads_the_token_file() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(body_string_contains(format!("client_assertion={K8S_JWT}")))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"token_type": "Bearer", "expires_in": 3599, "access_token": "tok-wi"}),
        ))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(header("authorization", "Bearer tok-wi"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"properties": {"state": "Registered"}})),
        )
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    std::fs::write(&file, format!("{K8S_JWT}\n")).unwrap();
    let env = Env::from_pairs([
        ("AZURE_TENANT_ID", TENANT.to_string()),
        ("AZURE_CLIENT_ID", "app-wi".to_string()),
        ("AZURE_FEDERATED_TOKEN_FILE", file.display().to_string()),
    ]);
    let arm = connect(&server, env, Cloud::AzureCloud, fast());
    assert_eq!(
        arm.feature_state("Microsoft.Compute", "EncryptionAtHost")
            .await
            .unwrap(),
        "Registered"
    );
}
