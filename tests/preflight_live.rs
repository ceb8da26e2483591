//! `gpuform preflight` end to end: the real binary against a fake ARM + Entra over HTTPS on
//! 127.0.0.1 (tests/common). Each test asserts the verdict, the exit code and what the user reads.
//!
//! The spec is examples/shortvideo-transcode.yaml: Standard_NC8as_T4_v3 (8 vCPUs, quota family
//! "Standard NCASv3_T4 Family" — with spaces), up to 20 VMs = 2 regular + 18 Spot, zones 1-3,
//! encryption at host, Key Vault kv-shortvideo-prod, eastus2 with alternates westus3 and
//! southcentralus.

mod common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::json;
use wiremock::matchers::{header, method, path, path_regex, query_param, query_param_is_missing};
use wiremock::{Mock, ResponseTemplate};

const REGIONS: [&str; 3] = ["eastus2", "westus3", "southcentralus"];

fn bearer() -> wiremock::matchers::HeaderExactMatcher {
    header("authorization", format!("Bearer {TOKEN}").as_str())
}

fn skus_path() -> String {
    FakeAzure::sub_path("providers/Microsoft.Compute/skus")
}

fn usages_path(region: &str) -> String {
    FakeAzure::sub_path(&format!(
        "providers/Microsoft.Compute/locations/{region}/usages"
    ))
}

/// A subscription where everything passes (priority 10, so a test's own mocks win). eastus2's
/// SKU list comes in two pages.
fn healthy() -> FakeAzure {
    let fake = FakeArm::new()
        .subscription(&REGIONS.map(|r| (r, 48)))
        .start();
    let filter = "location eq 'eastus2'";
    let next = fake.url(&format!(
        "{}?api-version=2021-07-01&$filter=location%20eq%20%27eastus2%27&$skiptoken=page2",
        skus_path()
    ));
    fake.mount(
        Mock::given(method("GET"))
            .and(path(skus_path()))
            .and(query_param("$filter", filter))
            .and(query_param_is_missing("$skiptoken"))
            .and(bearer())
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_json(json!({"value": [disk_sku("eastus2")], "nextLink": next})),
            )
            .with_priority(9),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path(skus_path()))
            .and(query_param("$skiptoken", "page2"))
            .and(bearer())
            .respond_with(ResponseTemplate::new(200).set_body_json(
                json!({"value": [sku(SIZE, FAMILY, "eastus2", 8, &["1", "2", "3"])]}),
            ))
            .with_priority(9),
    );
    fake
}

fn skus_for(fake: &FakeAzure, region: &str, body: serde_json::Value) {
    fake.mount(
        Mock::given(method("GET"))
            .and(path(skus_path()))
            .and(query_param(
                "$filter",
                format!("location eq '{region}'").as_str(),
            ))
            .respond_with(ResponseTemplate::new(200).set_body_json(body)),
    );
}

#[test]
fn everything_available_passes_pages_skus_and_ranks_alternates() {
    let fake = healthy();
    // --auth auto picks the client secret from the environment and says so
    let out = fake
        .preflight(&spec())
        .args(["--auth", "auto"])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    assert!(e.contains(&format!("using a client secret for app {CLIENT} in tenant {TENANT} (--auth auto: AZURE_CLIENT_SECRET is set)")), "{e}");
    for text in [&o, &e] {
        assert!(!text.contains("not-a-real-secret") && !text.contains(TOKEN));
    }
    assert!(
        o.contains("eastus2 (spec region): PASS, $0.752/h on demand"),
        "{o}"
    );
    // the family with spaces matched exactly; 2 regular VMs need 16 of it
    assert!(o.contains("Standard NCASv3_T4 Family vCPUs: needs 16 for 2 regular VMs x 8 vCPUs; usage 0 of limit 48"), "{o}");
    assert!(o.contains("Total Regional Low-priority vCPUs: needs 144 for 18 Spot VMs x 8 vCPUs; usage 0 of limit 200"), "{o}");
    assert!(
        o.contains("Standard_NC8as_T4_v3 is offered in eastus2 (zones 1, 2, 3)"),
        "{o}"
    );
    assert!(
        o.contains(
            "passing alternatives, cheapest first: westus3 ($0.752/h), southcentralus ($0.902/h)"
        ),
        "{o}"
    );
    assert!(o.contains("result: eastus2 (spec region) is PASS"), "{o}");
    let reqs = fake.requests();
    // nextLink was followed, the user agent is gpuform's and every ARM call carried the token
    assert!(
        reqs.iter()
            .any(|r| r.url.query().unwrap_or("").contains("skiptoken=page2")),
        "page 2 not requested"
    );
    // token and ARM calls alike: "gpuform/<version> azsdk-rust-<crate>/<version> (...)"
    let ua = format!("gpuform/{} azsdk-rust-", env!("CARGO_PKG_VERSION"));
    for r in &reqs {
        let got = r
            .headers
            .get("user-agent")
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default();
        assert!(got.starts_with(&ua), "{} {}: {got}", r.method, r.url.path());
    }
    // all three regions' SKUs and usages were asked for
    for r in REGIONS {
        assert!(reqs.iter().any(|q| q.url.path() == usages_path(r)), "{r}");
    }
}

#[test]
fn location_restriction_blocks_the_region_and_names_the_alternates() {
    let fake = healthy();
    let mut s = sku(SIZE, FAMILY, "eastus2", 8, &["1", "2", "3"]);
    s["restrictions"] = json!([location_restriction(
        "eastus2",
        "NotAvailableForSubscription"
    )]);
    skus_for(&fake, "eastus2", json!({"value": [s]}));
    let out = fake.preflight(&spec()).output().unwrap();
    let (o, _) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}");
    assert!(o.contains("eastus2 (spec region): BLOCKED"), "{o}");
    assert!(o.contains("Standard_NC8as_T4_v3 is offered in eastus2 but not to this subscription (restriction Location, NotAvailableForSubscription)"), "{o}");
    assert!(
        o.contains(
            "passing alternatives, cheapest first: westus3 ($0.752/h), southcentralus ($0.902/h)"
        ),
        "{o}"
    );
}

#[test]
fn zone_restriction_blocks_the_requested_zone_and_says_which_are_usable() {
    let fake = healthy();
    let mut s = sku(SIZE, FAMILY, "eastus2", 8, &["1", "2", "3"]);
    s["restrictions"] = json!([zone_restriction("eastus2", &["2"])]);
    skus_for(&fake, "eastus2", json!({"value": [s]}));
    let out = fake.preflight(&spec()).output().unwrap();
    let (o, _) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}");
    assert!(o.contains("zones 2 are restricted for this subscription in eastus2 (restriction Zone, NotAvailableForSubscription); usable: 1, 3"), "{o}");
    assert!(
        o.contains("fix: set compute.zones to [1, 3] or remove it"),
        "{o}"
    );
}

#[test]
fn family_quota_exhausted_blocks_with_the_exact_increase_while_spot_passes() {
    let fake = healthy();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(usages_path("eastus2")))
            .respond_with(ResponseTemplate::new(200).set_body_json(usages(0, 100, 200))),
    );
    let out = fake.preflight(&spec()).output().unwrap();
    let (o, _) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}");
    assert!(o.contains("FAIL     family vCPU quota          Standard NCASv3_T4 Family vCPUs: needs 16 for 2 regular VMs x 8 vCPUs; usage 0 of limit 0"), "{o}");
    assert!(
        o.contains(
            "pass     Spot vCPU quota            Total Regional Low-priority vCPUs: needs 144"
        ),
        "{o}"
    );
    assert!(o.contains(r#"eastus2: Standard NCASv3_T4 Family vCPUs ("Standard NCASv3_T4 Family"): new limit of at least 16; needs 16 in all (0 in use + 16 for this pool), 16 more than the limit of 0"#), "{o}");
    // JSON carries the same numbers
    let out = fake
        .preflight(&spec())
        .args(["--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "blocked");
    let fam = v["regions"][0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "quota-family")
        .unwrap()
        .clone();
    assert_eq!(
        fam["quota"],
        json!({"quota": FAMILY, "label": "Standard NCASv3_T4 Family vCPUs", "matchedExactly": true, "currentLimit": 0, "currentUsage": 0, "additionalRequired": 16, "newLimitRequired": 16})
    );
}

#[test]
fn unregistered_provider_warns_and_unregistered_feature_blocks() {
    let fake = healthy();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path("providers/Microsoft.ServiceBus")))
            .respond_with(ResponseTemplate::new(200).set_body_json(
                json!({"namespace": "Microsoft.ServiceBus", "registrationState": "NotRegistered"}),
            )),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path(feature_path()))
            .respond_with(ResponseTemplate::new(200).set_body_json(feature("NotRegistered"))),
    );
    let out = fake.preflight(&spec()).output().unwrap();
    let (o, _) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}");
    assert!(o.contains("warn     resource providers         not registered: Microsoft.ServiceBus (NotRegistered)"), "{o}");
    assert!(
        o.contains("az provider register --namespace Microsoft.ServiceBus"),
        "{o}"
    );
    assert!(o.contains("FAIL     EncryptionAtHost feature   Microsoft.Compute/EncryptionAtHost is NotRegistered; security.encryptionAtHost needs it Registered"), "{o}");
    assert!(
        o.contains("az feature register --namespace Microsoft.Compute --name EncryptionAtHost"),
        "{o}"
    );
    // subscription-wide: no region passes
    assert!(o.contains("no other region passes"), "{o}");
}

/// Trusted Launch as default (Microsoft.Compute/TrustedLaunchByDefaultPreview) is reported:
/// registered, new Gen2 scale sets would get Secure Boot, which the template's explicit
/// securityType prevents; the check does not block.
#[test]
fn trusted_launch_default_feature_is_reported() {
    let fake = healthy();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(trusted_launch_default_path()))
            .respond_with(
                ResponseTemplate::new(200).set_body_json(trusted_launch_default("Registered")),
            ),
    );
    let out = fake.preflight(&spec()).output().unwrap();
    let (o, _) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}");
    assert!(o.contains("Trusted Launch default"), "{o}");
    assert!(
        o.contains("Microsoft.Compute/TrustedLaunchByDefaultPreview is Registered: new Gen2 scale sets default to Trusted Launch with Secure Boot; the template sets securityType Standard explicitly"),
        "{o}"
    );
}

#[test]
fn taken_key_vault_name_blocks() {
    let fake = healthy();
    fake.mount(
        Mock::given(method("POST")).and(path(FakeAzure::sub_path("providers/Microsoft.KeyVault/checkNameAvailability")))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"nameAvailable": false, "reason": "AlreadyExists", "message": "The vault name 'kv-shortvideo-prod' is already in use."}))),
    );
    let out = fake.preflight(&spec()).output().unwrap();
    let (o, _) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}");
    assert!(o.contains("FAIL     Key Vault name             kv-shortvideo-prod is taken (The vault name 'kv-shortvideo-prod' is already in use.)"), "{o}");
    let body = fake
        .requests()
        .into_iter()
        .find(|r| r.url.path().ends_with("checkNameAvailability"))
        .unwrap()
        .body;
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&body).unwrap(),
        json!({"name": "kv-shortvideo-prod", "type": "Microsoft.KeyVault/vaults"})
    );
}

#[test]
fn key_vault_name_taken_by_the_subscription_itself_is_only_a_warning() {
    let fake = healthy();
    fake.mount(
        Mock::given(method("POST"))
            .and(path(FakeAzure::sub_path(
                "providers/Microsoft.KeyVault/checkNameAvailability",
            )))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_json(json!({"nameAvailable": false, "reason": "AlreadyExists"})),
            ),
    );
    fake.mount(
        Mock::given(method("GET")).and(path(FakeAzure::sub_path("providers/Microsoft.KeyVault/vaults"))).respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"value": [{"id": format!("/subscriptions/{SUB}/resourceGroups/rg-shortvideo/providers/Microsoft.KeyVault/vaults/kv-shortvideo-prod"), "name": "kv-shortvideo-prod", "location": "eastus2"}]}),
        )),
    );
    let out = fake.preflight(&spec()).output().unwrap();
    let (o, _) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}");
    assert!(
        o.contains(
            "kv-shortvideo-prod already exists in this subscription (resource group rg-shortvideo)"
        ),
        "{o}"
    );
}

#[test]
fn throttling_429_is_retried_after_retry_after() {
    let fake = healthy();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(usages_path("eastus2")))
            .respond_with(
                ResponseTemplate::new(429)
                    .insert_header("Retry-After", "1")
                    .set_body_json(arm_error("TooManyRequests", "throttled")),
            )
            .up_to_n_times(1)
            .with_priority(1),
    );
    let start = Instant::now();
    let out = fake.preflight(&spec()).output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    assert!(
        start.elapsed() >= Duration::from_secs(1),
        "Retry-After: 1 was not honoured"
    );
    assert!(o.contains("eastus2 (spec region): PASS"), "{o}");
    assert_eq!(
        fake.requests()
            .iter()
            .filter(|r| r.url.path() == usages_path("eastus2"))
            .count(),
        2
    );
}

#[test]
fn server_error_500_is_retried() {
    let fake = healthy();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(skus_path()))
            .and(query_param("$filter", "location eq 'westus3'"))
            .respond_with(
                ResponseTemplate::new(500)
                    .set_body_json(arm_error("InternalServerError", "try again")),
            )
            .up_to_n_times(1)
            .with_priority(1),
    );
    let out = fake.preflight(&spec()).output().unwrap();
    let (o, _) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}");
    assert!(o.contains("westus3 (alternate): PASS"), "{o}");
    assert_eq!(
        fake.requests()
            .iter()
            .filter(|r| r.url.query().unwrap_or("").contains("westus3"))
            .count(),
        2
    );
}

#[test]
fn a_timeout_leaves_the_region_unknown_and_exits_2() {
    let fake = healthy();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(skus_path()))
            .and(query_param("$filter", "location eq 'eastus2'"))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_json(json!({"value": []}))
                    .set_delay(Duration::from_secs(8)),
            ),
    );
    let start = Instant::now();
    let out = fake
        .preflight(&spec())
        .args(["--timeout", "1", "--retries", "1"])
        .output()
        .unwrap();
    let (o, _) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{o}");
    assert!(
        start.elapsed() < Duration::from_secs(7),
        "took {:?}",
        start.elapsed()
    );
    let port = fake.base.rsplit(':').next().unwrap();
    assert!(o.contains(&format!("unknown  size offered               could not list resource SKUs in eastus2: no answer from 127.0.0.1:{port} within 1 s")), "{o}");
    assert!(
        o.contains("fix: Azure may be slow or unreachable from here; raise --timeout or try again"),
        "{o}"
    );
    assert!(
        o.contains("result: eastus2 (spec region) is UNKNOWN"),
        "{o}"
    );
    // the alternates were still checked
    assert!(o.contains("westus3 (alternate): PASS"), "{o}");
}

#[test]
fn malformed_json_is_reported_with_what_arrived() {
    let fake = healthy();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(usages_path("eastus2")))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_raw("{\"value\": [{\"name\": ", "application/json"),
            ),
    );
    let out = fake.preflight(&spec()).output().unwrap();
    let (o, _) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{o}");
    assert!(o.contains("could not read compute quota usage in eastus2: ARM's answer is not the JSON gpuform expects: EOF while parsing"), "{o}");
    assert!(
        o.contains(r#"caused by: the answer starts with: {"value": [{"name":"#),
        "{o}"
    );
}

#[test]
fn unauthorized_401_stops_with_the_token_problem() {
    let fake = healthy();
    fake.mount(
        Mock::given(path_regex("^/subscriptions/")).respond_with(
            ResponseTemplate::new(401)
                .set_body_json(arm_error(
                    "InvalidAuthenticationToken",
                    "The access token is invalid.",
                ))
                .insert_header("x-ms-request-id", "req-401"),
        ),
    );
    let out = fake.preflight(&spec()).output().unwrap();
    let (_, e) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(out.stdout.is_empty());
    assert!(e.contains("error: list resource SKUs in eastus2: HTTP 401 InvalidAuthenticationToken: The access token is invalid."), "{e}");
    assert!(e.contains("caused by: request id req-401"), "{e}");
    assert!(e.contains("help: ARM rejected the access token"), "{e}");
    assert!(
        e.contains(&format!(
            "caused by: gpuform used a client secret for app {CLIENT}"
        )),
        "{e}"
    );
}

#[test]
fn forbidden_403_names_the_missing_permission() {
    let fake = healthy();
    let denied = |action: &str| {
        arm_error(
            "AuthorizationFailed",
            &format!(
                "The client '{CLIENT}' with object id 'x' does not have authorization to perform action '{action}' over scope '/subscriptions/{SUB}' or the scope is invalid."
            ),
        )
    };
    fake.mount(
        Mock::given(method("GET"))
            .and(path(skus_path()))
            .respond_with(
                ResponseTemplate::new(403).set_body_json(denied("Microsoft.Compute/skus/read")),
            ),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path(feature_path()))
            .respond_with(
                ResponseTemplate::new(403)
                    .set_body_json(denied("Microsoft.Features/features/read")),
            ),
    );
    let out = fake.preflight(&spec()).output().unwrap();
    let (o, _) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{o}");
    assert!(o.contains("unknown  size offered               could not list resource SKUs in eastus2: HTTP 403 AuthorizationFailed: The client"), "{o}");
    assert!(
        o.contains(
            "fix: the identity needs Microsoft.Compute/skus/read (e.g. Reader on the subscription)"
        ),
        "{o}"
    );
    assert!(o.contains("fix: the identity needs Microsoft.Features/features/read (e.g. Reader on the subscription)"), "{o}");
    assert!(
        o.contains("result: eastus2 (spec region) is UNKNOWN"),
        "{o}"
    );
}

#[test]
fn wrong_client_secret_is_explained_from_the_aadsts_code() {
    let fake = FakeArm::new().signed_out().start();
    // Entra's real answer: the description carries \r\n trace lines azure_identity cannot parse
    fake.mount(Mock::given(method("POST")).and(path(format!("/{TENANT}/oauth2/v2.0/token"))).respond_with(ResponseTemplate::new(401).set_body_json(json!({
        "error": "invalid_client",
        "error_description": format!("AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '{CLIENT}'.\r\nTrace ID: 0d3c\r\nCorrelation ID: 9f1a\r\nTimestamp: 2026-12-02 10:00:00Z"),
        "error_codes": [7000215], "timestamp": "2026-12-02 10:00:00Z", "trace_id": "0d3c", "correlation_id": "9f1a",
        "error_uri": "https://login.microsoftonline.com/error?code=7000215"
    }))));
    let out = fake.preflight(&spec()).output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains("Microsoft Entra ID refused the sign-in (AADSTS7000215: invalid client secret)"),
        "{e}"
    );
    assert!(
        e.contains("help: AZURE_CLIENT_SECRET is wrong or expired"),
        "{e}"
    );
    assert!(!e.contains("not-a-real-secret") && !o.contains("not-a-real-secret"));
}

#[test]
fn an_untrusted_certificate_fails_fast_and_points_at_ssl_cert_file() {
    let fake = healthy();
    let other = TestCa::new("other");
    let other_ca = fake.dir.path().join("other-ca.pem");
    std::fs::write(&other_ca, other.ca_pem).unwrap();
    let start = Instant::now();
    // default retries: a certificate error must not be retried for a minute
    let out = fake
        .gpuform()
        .env("SSL_CERT_FILE", &other_ca)
        .arg("preflight")
        .arg(spec())
        .args(["--arm-endpoint", &format!("{}/", fake.base)])
        .output()
        .unwrap();
    let (_, e) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "took {:?}",
        start.elapsed()
    );
    assert!(
        e.contains(&format!(
            "the TLS certificate of {} is not trusted",
            fake.base.trim_start_matches("https://")
        )),
        "{e}"
    );
    assert!(
        e.contains("help: if a proxy or firewall inspects TLS, point SSL_CERT_FILE"),
        "{e}"
    );
}

#[test]
fn markdown_and_github_formats_for_pipelines() {
    let fake = healthy();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(usages_path("eastus2")))
            .respond_with(ResponseTemplate::new(200).set_body_json(usages(0, 100, 200))),
    );
    let out = fake
        .preflight(&spec())
        .args(["--format", "markdown"])
        .output()
        .unwrap();
    let (o, _) = texts(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        o.starts_with("## gpuform preflight: shortvideo-transcode\n"),
        "{o}"
    );
    assert!(
        o.contains("| eastus2 | spec region | ❌ blocked | $0.752/h |"),
        "{o}"
    );
    assert!(o.contains("| eastus2 | Standard NCASv3_T4 Family vCPUs (`Standard NCASv3_T4 Family`) | 0 | 0 | 16 | **16** |"), "{o}");
    let out = fake
        .preflight(&spec())
        .args(["--format", "github"])
        .output()
        .unwrap();
    let (o, _) = texts(&out);
    assert!(o.contains("::error file="), "{o}");
    assert!(o.contains("title=gpuform preflight eastus2%3A family vCPU quota::Standard NCASv3_T4 Family vCPUs: needs 16"), "{o}");
    // a blocked verdict is a workflow error, not a notice that reads as fine (issue 37 item 10)
    let verdict = o
        .lines()
        .find(|l| l.ends_with(",title=gpuform preflight::eastus2 (spec region) is BLOCKED; passing alternatives, cheapest first: westus3, southcentralus"))
        .unwrap_or_else(|| panic!("no verdict line: {o}"));
    assert!(verdict.starts_with("::error file="), "{verdict}");
}

#[test]
fn durations_too_long_for_a_duration_are_usage_errors() {
    let fake = FakeArm::new().signed_out().start();
    for bad in ["1e20", "NaN", "0"] {
        let out = fake
            .preflight(&spec())
            .args(["--timeout", bad])
            .output()
            .unwrap();
        let (_, e) = texts(&out);
        assert_eq!(out.status.code(), Some(2), "{e}");
        // NaN is refused by the duration grammar itself (issue 37, item 9), the others by the limit
        assert!(
            e.contains("error: --timeout must be a positive number of seconds")
                || (bad == "NaN" && e.contains("`NaN` is not a duration")),
            "{e}"
        );
    }
    assert!(fake.requests().is_empty());
}

#[test]
fn a_taken_key_vault_name_whose_owner_cannot_be_checked_is_unknown() {
    let fake = healthy();
    fake.mount(
        Mock::given(method("POST"))
            .and(path(FakeAzure::sub_path(
                "providers/Microsoft.KeyVault/checkNameAvailability",
            )))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_json(json!({"nameAvailable": false, "reason": "AlreadyExists"})),
            ),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path("providers/Microsoft.KeyVault/vaults")))
            .respond_with(ResponseTemplate::new(403).set_body_json(arm_error(
                "AuthorizationFailed",
                "The client does not have authorization to perform action 'Microsoft.KeyVault/vaults/read'.",
            ))),
    );
    let out = fake.preflight(&spec()).output().unwrap();
    let (o, _) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{o}");
    assert!(o.contains("unknown  Key Vault name             kv-shortvideo-prod is taken; could not check whether it is this subscription's (could not list the subscription's key vaults: HTTP 403 AuthorizationFailed"), "{o}");
    assert!(
        o.contains("fix: the identity needs Microsoft.KeyVault/vaults/read (e.g. Reader on the subscription); or choose another security.keyVault.name"),
        "{o}"
    );
    assert!(
        o.contains("result: eastus2 (spec region) is UNKNOWN"),
        "{o}"
    );
}

#[test]
fn with_its_resource_group_a_running_pool_is_not_counted_twice() {
    let fake = healthy();
    mount_running_pool(&fake, "rg-shortvideo");
    // without the group: 16 more family vCPUs for a pool that has them already
    let out = fake.preflight(&spec()).output().unwrap();
    let (o, _) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}");
    let out = fake
        .preflight(&spec())
        .args(["--resource-group", "rg-shortvideo"])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    assert!(e.contains("preflight: scale set vmss-shortvideo-transcode in rg-shortvideo (eastus2) runs 2 regular and 18 Spot instances"), "{e}");
    assert!(o.contains("Standard NCASv3_T4 Family vCPUs: needs 16 for 2 regular VMs x 8 vCPUs (16 already in use by vmss-shortvideo-transcode); usage 16 of limit 16"), "{o}");
    assert!(o.contains("Total Regional Low-priority vCPUs: needs 144 for 18 Spot VMs x 8 vCPUs (144 already in use by vmss-shortvideo-transcode); usage 144 of limit 144"), "{o}");
    // a group without the scale set changes nothing
    let out = fake
        .preflight(&spec())
        .args(["-g", "rg-other"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

// ---------------------------------------------------------------------------------------------
// Global names: the derived Key Vault name and soft-deleted vaults, Service Bus namespaces and
// storage accounts (issue 9 items 3 and 9)

/// examples/shortvideo-transcode.yaml without `security.keyVault.name`: the template derives
/// the vault name from the resource group.
fn spec_with_derived_vault(dir: &std::path::Path) -> std::path::PathBuf {
    let text = std::fs::read_to_string(spec()).unwrap().replace(
        "keyVault: {name: kv-shortvideo-prod, publicNetworkAccess: false}",
        "keyVault: {publicNetworkAccess: false}",
    );
    assert!(!text.contains("kv-shortvideo-prod"));
    // the spec's cloud-init file is relative to it
    std::fs::create_dir_all(dir.join("cloud-init")).unwrap();
    std::fs::copy(
        examples("cloud-init/transcode.yaml"),
        dir.join("cloud-init/transcode.yaml"),
    )
    .unwrap();
    let p = dir.join("derived-vault.yaml");
    std::fs::write(&p, text).unwrap();
    p
}

/// One entry of `GET .../providers/Microsoft.KeyVault/deletedVaults` in the shape of the REST
/// spec's example (Microsoft.KeyVault stable/2024-11-01 examples/listDeletedVaults.json).
fn deleted_vault(name: &str, rg: &str, purge_protection: bool) -> serde_json::Value {
    json!({
        "id": format!("/subscriptions/{SUB}/providers/Microsoft.KeyVault/locations/eastus2/deletedVaults/{name}"),
        "name": name,
        "type": "Microsoft.KeyVault/deletedVaults",
        "properties": {
            "deletionDate": "2026-11-20T08:12:59Z",
            "location": "eastus2",
            "purgeProtectionEnabled": purge_protection,
            "scheduledPurgeDate": "2027-02-18T08:12:59Z",
            "tags": {},
            "vaultId": format!("/subscriptions/{SUB}/resourceGroups/{rg}/providers/Microsoft.KeyVault/vaults/{name}")
        }
    })
}

#[test]
fn a_soft_deleted_vault_with_the_derived_name_blocks_with_the_recover_command() {
    let dir = std::env::temp_dir().join(format!("gpuform-r9c-pf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = spec_with_derived_vault(&dir);
    let rg = "rg-shortvideo-prod";
    // the name ARM will give the vault: kv-shortvi + uniqueString(resourceGroup().id)
    let derived = format!(
        "kv-shortvi-{}",
        gpuform::preflight::names::unique_string(&[&format!(
            "/subscriptions/{SUB}/resourceGroups/{rg}"
        )])
    );
    let fake = healthy();
    // the group was deleted with its vault: it does not exist any more
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(&format!("resourcegroups/{rg}"))))
            .respond_with(ResponseTemplate::new(404).set_body_json(arm_error(
                "ResourceGroupNotFound",
                "Resource group 'rg-shortvideo-prod' could not be found.",
            ))),
    );
    let next = fake.url(&format!(
        "{}?api-version=2024-11-01&$skiptoken=2",
        FakeAzure::sub_path("providers/Microsoft.KeyVault/deletedVaults")
    ));
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(
                "providers/Microsoft.KeyVault/deletedVaults",
            )))
            .and(query_param_is_missing("$skiptoken"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "value": [deleted_vault("kv-someone-else", "rg-x", true)], "nextLink": next
            }))),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path(
                "providers/Microsoft.KeyVault/deletedVaults",
            )))
            .and(query_param("$skiptoken", "2"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "value": [deleted_vault(&derived, rg, true)]
            }))),
    );
    let out = fake.preflight(&spec).args(["-g", rg]).output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert!(o.contains(&format!("FAIL     Key Vault name             a soft-deleted vault in this subscription holds the name {derived} (location eastus2, resource group {rg}, deleted 2026-11-20T08:12:59Z, name reserved until 2027-02-18T08:12:59Z); Azure refuses to create a vault with it")), "{o}");
    assert!(
        o.contains(&format!(
            "`az keyvault recover --name {derived} --location eastus2`"
        )),
        "{o}"
    );
    assert!(o.contains(&format!("set security.keyVault.name to a new name (the derived {derived} comes from the resource group's id)")), "{o}");
    assert!(
        o.contains("result: eastus2 (spec region) is BLOCKED"),
        "{o}"
    );
    // the name checked for availability is the derived one
    let body = fake
        .requests()
        .into_iter()
        .find(|r| {
            r.url
                .path()
                .ends_with("Microsoft.KeyVault/checkNameAvailability")
        })
        .unwrap()
        .body;
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&body).unwrap(),
        json!({"name": derived, "type": "Microsoft.KeyVault/vaults"})
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_the_group_the_derived_vault_name_is_skipped_and_says_how() {
    let dir = std::env::temp_dir().join(format!("gpuform-r9c-pf2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = spec_with_derived_vault(&dir);
    let fake = healthy();
    let out = fake.preflight(&spec).output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    assert!(
        o.contains("its name is derived from the resource group: pass -g RG to check it"),
        "{o}"
    );
    assert!(
        !fake
            .requests()
            .iter()
            .any(|r| r.url.path().contains("deletedVaults"))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn sb_check_path() -> String {
    FakeAzure::sub_path("providers/Microsoft.ServiceBus/CheckNameAvailability")
}

#[test]
fn a_service_bus_namespace_name_taken_by_someone_else_blocks() {
    let fake = healthy();
    fake.mount(
        Mock::given(method("POST"))
            .and(path(sb_check_path()))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "nameAvailable": false, "reason": "NameInUse",
                "message": "The specified service namespace is not available."
            }))),
    );
    let out = fake.preflight(&spec()).output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert!(o.contains("FAIL     Service Bus namespace name sb-shortvideo-prod is taken (The specified service namespace is not available.)"), "{o}");
    assert!(o.contains("namespace names are global DNS names and this one belongs to someone else: choose another name in autoscale.queue.serviceBus"), "{o}");
    let req = fake
        .requests()
        .into_iter()
        .find(|r| r.url.path() == sb_check_path())
        .unwrap();
    assert_eq!(req.url.query(), Some("api-version=2024-01-01"));
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&req.body).unwrap(),
        json!({"name": "sb-shortvideo-prod"})
    );
}

#[test]
fn a_service_bus_namespace_that_is_already_yours_says_create_false_or_redeploys() {
    let fake = healthy();
    fake.mount(
        Mock::given(method("POST"))
            .and(path(sb_check_path()))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "nameAvailable": false, "reason": "NameInUse",
                "message": "The specified service namespace is not available."
            }))),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path(FakeAzure::sub_path("providers/Microsoft.ServiceBus/namespaces")))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"value": [{
                "id": format!("/subscriptions/{SUB}/resourceGroups/rg-queues/providers/Microsoft.ServiceBus/namespaces/sb-shortvideo-prod"),
                "name": "sb-shortvideo-prod", "type": "Microsoft.ServiceBus/Namespaces", "location": "East US 2",
                "sku": {"name": "Standard", "tier": "Standard"}, "properties": {"provisioningState": "Succeeded"}
            }]}))),
    );
    // deployed into another group: the template would try to create it again
    let out = fake
        .preflight(&spec())
        .args(["-g", "rg-shortvideo-prod"])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert!(o.contains("sb-shortvideo-prod already exists in this subscription, in resource group rg-queues; the deployment cannot create it again"), "{o}");
    assert!(o.contains("it is yours: set `create: false` and `resourceGroup: rg-queues` under autoscale.queue.serviceBus to use it"), "{o}");
    // deployed into its own group: a redeployment
    let out = fake
        .preflight(&spec())
        .args(["-g", "rg-queues"])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    assert!(
        o.contains(
            "sb-shortvideo-prod exists in resource group rg-queues: the deployment updates it"
        ),
        "{o}"
    );
}

#[test]
fn a_throttled_name_check_is_retried_and_a_storage_account_name_checked() {
    let fake = healthy();
    fake.mount(
        Mock::given(method("POST"))
            .and(path(sb_check_path()))
            .respond_with(
                ResponseTemplate::new(429)
                    .insert_header("Retry-After", "1")
                    .set_body_json(arm_error("TooManyRequests", "throttled")),
            )
            .up_to_n_times(1)
            .with_priority(1),
    );
    let out = fake.preflight(&spec()).output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    assert!(o.contains("sb-shortvideo-prod is available"), "{o}");
    assert_eq!(
        fake.requests()
            .iter()
            .filter(|r| r.url.path() == sb_check_path())
            .count(),
        2
    );
    // the storage account of the fine-tuning example, taken by someone else
    let st = FakeAzure::sub_path("providers/Microsoft.Storage/checkNameAvailability");
    fake.mount(
        Mock::given(method("POST"))
            .and(path(st.clone()))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({
                "nameAvailable": false, "reason": "AlreadyExists",
                "message": "The storage account named stllmfinetune is already taken."
            }))),
    );
    let out = fake
        .preflight(&examples("llm-finetune-a100.yaml"))
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert!(
        o.contains(
            "stllmfinetune is taken (The storage account named stllmfinetune is already taken.)"
        ),
        "{o}"
    );
    let req = fake
        .requests()
        .into_iter()
        .find(|r| r.url.path() == st)
        .unwrap();
    assert_eq!(req.url.query(), Some("api-version=2025-01-01"));
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&req.body).unwrap(),
        json!({"name": "stllmfinetune", "type": "Microsoft.Storage/storageAccounts"})
    );
}

/// tests/fixtures/serving/chat-gateway.yaml moved to the fake's size and region: a pool behind
/// the private-only Application Gateway.
fn serving_spec(dir: &std::path::Path) -> std::path::PathBuf {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/serving/chat-gateway.yaml"),
    )
    .unwrap()
    .replace("Standard_NV36ads_A10_v5", SIZE)
    .replace("gpuMemoryGiB: 20", "gpuMemoryGiB: 12")
    .replace("westeurope", "eastus2")
    // within the fake's 48 vCPUs of family quota
    .replace("capacity: {min: 2, max: 8}", "capacity: {min: 2, max: 4}");
    let p = dir.join("chat.yaml");
    std::fs::write(&p, text).unwrap();
    p
}

fn gateway_feature_path() -> String {
    FakeAzure::sub_path(
        "providers/Microsoft.Features/providers/Microsoft.Network/features/EnableApplicationGatewayNetworkIsolation",
    )
}

/// The Features API's answer (Microsoft.Features 2021-07-01, the shape of
/// ../shared/azure/recordings/feature-registration-EncryptionAtHost.json).
fn gateway_feature(state: &str) -> serde_json::Value {
    json!({"id": format!("/subscriptions/{SUB}/providers/Microsoft.Features/providers/Microsoft.Network/features/EnableApplicationGatewayNetworkIsolation"),
           "name": "Microsoft.Network/EnableApplicationGatewayNetworkIsolation", "properties": {"state": state},
           "type": "Microsoft.Features/providers/features"})
}

/// A private-only Application Gateway needs Microsoft.Network/EnableApplicationGatewayNetworkIsolation
/// registered (serving.md B3): not registered, preflight blocks and gives the exact commands.
#[test]
fn a_private_gateway_without_its_feature_blocks_with_the_register_command() {
    let dir = tempfile::tempdir().unwrap();
    let fake = healthy();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(gateway_feature_path()))
            .and(query_param("api-version", "2021-07-01"))
            .respond_with(
                ResponseTemplate::new(200).set_body_json(gateway_feature("NotRegistered")),
            ),
    );
    let out = fake.preflight(&serving_spec(dir.path())).output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert!(
        o.contains("Microsoft.Network/EnableApplicationGatewayNetworkIsolation is NotRegistered"),
        "{o}"
    );
    assert!(
        o.contains("az feature register --namespace Microsoft.Network --name EnableApplicationGatewayNetworkIsolation; wait until `az feature show --namespace Microsoft.Network --name EnableApplicationGatewayNetworkIsolation -o json` says Registered (up to 30 minutes), then az provider register --namespace Microsoft.Network"),
        "{o}"
    );
    // the gateway's subnet (derived /24) holds the gateway's 10 instances (the default maximum)
    // and its frontend IP
    assert!(
        o.contains("snet-appgw 10.60.2.0/24: 251 usable addresses for up to 10 gateway instances"),
        "{o}"
    );
}

/// Registered (after a throttled first answer, retried): the check passes and the pool is ready.
#[test]
fn a_private_gateway_with_its_feature_registered_passes_through_a_429() {
    let dir = tempfile::tempdir().unwrap();
    let fake = healthy();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(gateway_feature_path()))
            .respond_with(seq(vec![
                ResponseTemplate::new(429)
                    .insert_header("Retry-After", "1")
                    .set_body_json(arm_error("TooManyRequests", "throttled")),
                ResponseTemplate::new(200).set_body_json(gateway_feature("Registered")),
            ])),
    );
    let out = fake.preflight(&serving_spec(dir.path())).output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}\n{e}");
    assert!(
        o.contains("Microsoft.Network/EnableApplicationGatewayNetworkIsolation is Registered"),
        "{o}"
    );
    // the gateway counts against the region's network quota, read live
    assert!(
        o.contains(
            "Application Gateways in eastus2: 0 of 1000 in use, the frontend needs 1 (1000 free)"
        ),
        "{o}"
    );
}

/// The healthy fake with the private gateway's feature Registered: what the network-quota tests
/// start from.
fn registered_gateway() -> FakeAzure {
    let fake = healthy();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(gateway_feature_path()))
            .respond_with(ResponseTemplate::new(200).set_body_json(gateway_feature("Registered"))),
    );
    fake
}

fn network_usages_path() -> String {
    FakeAzure::sub_path("providers/Microsoft.Network/locations/eastus2/usages")
}

/// Every Application Gateway the region allows is in use: Azure would refuse the deployment, so
/// preflight blocks before it, with the count and what to do.
#[test]
fn a_region_with_no_application_gateway_left_blocks_the_serving_pool() {
    let dir = tempfile::tempdir().unwrap();
    let fake = registered_gateway();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(network_usages_path()))
            .and(query_param("api-version", gpuform::facts::api::API.network))
            .respond_with(
                ResponseTemplate::new(200).set_body_json(network_usages((3, 1000), (1000, 1000))),
            ),
    );
    let out = fake.preflight(&serving_spec(dir.path())).output().unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{o}\n{e}");
    assert!(
        o.contains("Application Gateways in eastus2: 1000 of 1000 in use, the frontend needs 1: none free; Azure refuses the deployment"),
        "{o}"
    );
    assert!(
        o.contains("ask Azure support to raise the Application Gateways limit"),
        "{o}"
    );
    assert!(
        o.contains("az network list-usages --location eastus2 -o table"),
        "{o}"
    );
}

/// The network usages answer 500 every time: the check is Unknown with the command to look
/// yourself, never a pass, and the other checks still run.
#[test]
fn network_usages_that_keep_failing_leave_the_frontend_quota_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let fake = registered_gateway();
    fake.mount(
        Mock::given(method("GET"))
            .and(path(network_usages_path()))
            .respond_with(
                ResponseTemplate::new(500)
                    .set_body_json(arm_error("InternalServerError", "try later")),
            ),
    );
    let out = fake.preflight(&serving_spec(dir.path())).output().unwrap();
    let (o, e) = texts(&out);
    assert!(
        o.contains("could not read network quota usage in eastus2"),
        "{o}\n{e}"
    );
    assert!(!o.contains("Application Gateways in eastus2:"), "{o}");
    assert!(
        o.contains("Microsoft.Network/EnableApplicationGatewayNetworkIsolation is Registered"),
        "{o}"
    );
}
