//! Spot placement scores and eviction rates (issue 23) against fake servers with the real
//! answer shapes (`tests/common/spot.rs`): the client through the transport seam (scores,
//! throttling, 5xx, malformed bodies, 403, Resource Graph paging), and `gpuform preflight`
//! end to end (warnings, the 403 warning, the ranking of alternates by score).

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::recorder::{NoProbe, transport};
use common::spot::{Graph, Placement, eviction_row};
use common::{FakeAzure, SIZE, SUB, TOKEN, examples, texts};
use gpuform::azure::spot_placement::{PlacementRequest, ResourceSize, SpotApi};
use gpuform::azure::{self, AuthMode, Cloud, Connect, Endpoints, Env, ErrorKind, HttpSettings};
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

const TENANT: &str = "tenant-1";

// ---------------------------------------------------------------------------------------------
// The client through the transport seam (as tests/azure_client.rs)

async fn connect(server: &MockServer, cloud: Cloud) -> azure::Arm {
    Mock::given(method("POST"))
        .and(path(format!("/{TENANT}/oauth2/v2.0/token")))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"token_type": "Bearer", "expires_in": 3599, "access_token": "tok-1"}),
        ))
        .mount(server)
        .await;
    let transport = transport(&server.uri(), Some(".fake.test"), None);
    let env = Env::from_pairs([
        ("AZURE_TENANT_ID", TENANT),
        ("AZURE_CLIENT_ID", "app-1"),
        ("AZURE_CLIENT_SECRET", "s3cret"),
    ]);
    let c = Connect {
        endpoints: Endpoints::resolve(
            cloud,
            Some("https://management.fake.test/"),
            Some("https://login.fake.test"),
        )
        .unwrap(),
        http: HttpSettings {
            timeout: Duration::from_secs(5),
            max_retries: 2,
            initial_delay: Duration::from_millis(20),
            ..HttpSettings::default()
        },
        subscription: SUB.into(),
        transport: Some(transport),
    };
    let choice = azure::auth::choose(AuthMode::Auto, &env, &NoProbe).unwrap();
    azure::connect(&c, &env, &choice).unwrap()
}

fn placement_path(location: &str) -> String {
    format!(
        "/subscriptions/{SUB}/providers/Microsoft.Compute/locations/{location}/placementScores/spot/generate"
    )
}

const GRAPH: &str = "/providers/Microsoft.ResourceGraph/resources";

fn request(regions: &[&str], zonal: bool) -> PlacementRequest {
    PlacementRequest {
        desired_locations: regions.iter().map(|r| r.to_string()).collect(),
        desired_sizes: vec![ResourceSize { sku: SIZE.into() }],
        desired_count: 18,
        availability_zones: zonal,
    }
}

#[tokio::test]
async fn scores_come_back_per_region_and_zone_as_the_service_sends_them() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(placement_path("eastus2")))
        .and(query_param("api-version", "2025-06-05"))
        .and(header("authorization", "Bearer tok-1"))
        .respond_with(
            Placement::new("High")
                .score("westus3", Some("2"), "Low")
                .score("southcentralus", None, "Medium"),
        )
        .expect(2)
        .mount(&server)
        .await;
    let arm = connect(&server, Cloud::AzureCloud).await;
    let spot: &dyn SpotApi = &arm;
    assert_eq!(spot.cloud(), Some(Cloud::AzureCloud));
    let zonal = spot
        .spot_placement_scores("eastus2", &request(&["eastus2", "westus3"], true))
        .await
        .unwrap();
    assert_eq!(zonal.len(), 6);
    let low: Vec<_> = zonal
        .iter()
        .filter(|s| s.score.as_deref() == Some("Low"))
        .collect();
    assert_eq!(low.len(), 1);
    assert_eq!(
        (
            low[0].region.as_deref(),
            low[0].availability_zone.as_deref()
        ),
        (Some("westus3"), Some("2"))
    );
    assert_eq!(low[0].is_quota_available, Some(true));
    let regional = spot
        .spot_placement_scores("eastus2", &request(&["eastus2", "southcentralus"], false))
        .await
        .unwrap();
    assert_eq!(
        regional
            .iter()
            .map(|s| (
                s.region.clone().unwrap(),
                s.availability_zone.clone(),
                s.score.clone().unwrap()
            ))
            .collect::<Vec<_>>(),
        [
            ("eastus2".to_string(), None, "High".to_string()),
            ("southcentralus".to_string(), None, "Medium".to_string())
        ]
    );
    // the body is the spec's SpotPlacementScoresInput
    let reqs = server.received_requests().await.unwrap();
    let body: Value = serde_json::from_slice(
        &reqs
            .iter()
            .find(|r| r.url.path().ends_with("/generate"))
            .unwrap()
            .body,
    )
    .unwrap();
    assert_eq!(
        body,
        json!({"desiredLocations": ["eastus2", "westus3"], "desiredSizes": [{"sku": SIZE}], "desiredCount": 18, "availabilityZones": true})
    );
}

#[tokio::test]
async fn a_429_with_retry_after_is_waited_out_then_the_answer_is_read() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(placement_path("eastus2")))
        .respond_with(ResponseTemplate::new(429).insert_header("Retry-After", "1").set_body_json(
            json!({"error": {"code": "TooManyRequests", "message": "Unable to generate placement score due to hitting a rate limit."}}),
        ))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(placement_path("eastus2")))
        .respond_with(Placement::new("High"))
        .mount(&server)
        .await;
    let arm = connect(&server, Cloud::AzureCloud).await;
    let start = Instant::now();
    let s = SpotApi::spot_placement_scores(&arm, "eastus2", &request(&["eastus2"], false))
        .await
        .unwrap();
    assert_eq!(s[0].score.as_deref(), Some("High"));
    assert!(start.elapsed() >= Duration::from_secs(1));
}

#[tokio::test]
async fn a_5xx_that_outlasts_the_retries_is_an_error_with_the_status() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(placement_path("eastus2")))
        .respond_with(ResponseTemplate::new(500).set_body_json(
            json!({"error": {"code": "InternalServerError", "message": "The placement score generation failed."}}),
        ))
        .expect(3)
        .mount(&server)
        .await;
    let arm = connect(&server, Cloud::AzureCloud).await;
    let e = SpotApi::spot_placement_scores(&arm, "eastus2", &request(&["eastus2"], false))
        .await
        .unwrap_err();
    assert_eq!(e.status, Some(500));
    assert_eq!(e.code.as_deref(), Some("InternalServerError"));
}

#[tokio::test]
async fn malformed_answers_are_decode_errors_not_panics() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(placement_path("eastus2")))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw("<html>proxy login</html>", "text/html"),
        )
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(placement_path("westus3")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"placementScores": "High"})))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(GRAPH))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"totalRecords": 1, "count": 1, "resultTruncated": "false", "data": {"columns": [], "rows": []}})))
        .mount(&server)
        .await;
    let arm = connect(&server, Cloud::AzureCloud).await;
    for loc in ["eastus2", "westus3"] {
        let e = SpotApi::spot_placement_scores(&arm, loc, &request(&[loc], false))
            .await
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::Decode, "{e}");
    }
    let e = arm
        .spot_eviction_rates(&[SIZE.into()], &["eastus2".into()])
        .await
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Decode);
    assert!(e.to_string().contains("not a list of rows"), "{e}");
}

#[tokio::test]
async fn a_403_keeps_arms_code_and_names_the_action() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(placement_path("eastus2")))
        .respond_with(ResponseTemplate::new(403).set_body_json(json!({"error": {"code": "AuthorizationFailed", "message": "The client 'app-1' with object id 'x' does not have authorization to perform action 'Microsoft.Compute/locations/placementScores/generate/action' over scope '/subscriptions/00000000-1111-2222-3333-444444444444' or the scope is invalid."}})))
        .expect(1)
        .mount(&server)
        .await;
    let arm = connect(&server, Cloud::AzureCloud).await;
    let e = SpotApi::spot_placement_scores(&arm, "eastus2", &request(&["eastus2"], false))
        .await
        .unwrap_err();
    assert_eq!(
        (e.status, e.code.as_deref()),
        (Some(403), Some("AuthorizationFailed"))
    );
    assert!(
        e.help
            .as_deref()
            .unwrap()
            .contains("Microsoft.Compute/locations/placementScores/generate/action")
    );
}

#[tokio::test]
async fn resource_graph_pages_are_followed_with_the_skip_token_and_the_same_query() {
    let server = MockServer::start().await;
    let rows: Vec<Value> = [
        "eastus2",
        "westus3",
        "southcentralus",
        "centralus",
        "eastus",
    ]
    .iter()
    .map(|r| eviction_row(SIZE, r, if *r == "westus3" { "20+" } else { "0-5" }))
    .chain([json!({"id": "x", "note": "a row without the projected fields"})])
    .collect();
    let graph = Arc::new(Graph::new(rows, 2));
    struct Shared(Arc<Graph>);
    impl wiremock::Respond for Shared {
        fn respond(&self, r: &wiremock::Request) -> ResponseTemplate {
            self.0.respond(r)
        }
    }
    Mock::given(method("POST"))
        .and(path(GRAPH))
        .and(query_param("api-version", "2024-04-01"))
        .and(header("authorization", "Bearer tok-1"))
        .respond_with(Shared(graph.clone()))
        .expect(3)
        .mount(&server)
        .await;
    let arm = connect(&server, Cloud::AzureCloud).await;
    let rates = arm
        .spot_eviction_rates(
            &[SIZE.into()],
            &["eastus2".into(), "westus3".into(), "southcentralus".into()],
        )
        .await
        .unwrap();
    assert_eq!(rates.len(), 5, "{rates:?}");
    assert_eq!(
        rates
            .iter()
            .find(|r| r.location == "westus3")
            .unwrap()
            .spot_eviction_rate,
        "20+"
    );
    let seen = graph.seen.lock().unwrap();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[0]["options"].get("$skipToken"), None);
    assert_eq!(seen[1]["options"]["$skipToken"], "page-1");
    assert_eq!(seen[2]["options"]["$skipToken"], "page-2");
    assert!(seen.iter().all(|b| b["query"] == seen[0]["query"]));
    // tenant scope: the SpotResources rows are not the subscription's resources
    assert_eq!(seen[0].get("subscriptions"), None);
    let q = seen[0]["query"].as_str().unwrap();
    assert!(q.starts_with("SpotResources"), "{q}");
    assert!(
        q.contains("'standard_nc8as_t4_v3'") && q.contains("'southcentralus'"),
        "{q}"
    );
}

#[tokio::test]
async fn a_skip_token_that_comes_back_twice_ends_the_paging() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(GRAPH))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"totalRecords": 9, "count": 1, "resultTruncated": "false", "$skipToken": "same", "data": [eviction_row(SIZE, "eastus2", "0-5")]})))
        .expect(2)
        .mount(&server)
        .await;
    let arm = connect(&server, Cloud::AzureCloud).await;
    let e = arm
        .spot_eviction_rates(&[SIZE.into()], &["eastus2".into()])
        .await
        .unwrap_err();
    assert!(e.to_string().contains("same $skipToken twice"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// `gpuform preflight` end to end (examples/shortvideo-transcode.yaml: 2 regular + 18 Spot at
// peak, zones 1-3, eastus2 with alternates westus3 and southcentralus)

fn mount_spot(fake: &FakeAzure, placement: Placement, rows: Vec<Value>) {
    let bearer = || header("authorization", format!("Bearer {TOKEN}").as_str());
    fake.mount(
        Mock::given(method("POST"))
            .and(wiremock::matchers::path_regex(
                r"/providers/Microsoft\.Compute/locations/[a-z0-9]+/placementScores/spot/generate$",
            ))
            .and(bearer())
            .respond_with(placement),
    );
    fake.mount(
        Mock::given(method("POST"))
            .and(path(GRAPH))
            .and(bearer())
            .respond_with(Graph::new(rows, 1000)),
    );
}

fn all_regions() -> Vec<(&'static str, i64)> {
    vec![("eastus2", 100), ("westus3", 100), ("southcentralus", 100)]
}

fn bands(b: [&str; 3]) -> Vec<Value> {
    ["eastus2", "westus3", "southcentralus"]
        .iter()
        .zip(b)
        .map(|(r, band)| eviction_row(SIZE, r, band))
        .collect()
}

fn json_of(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", texts(out).0))
}

fn check<'a>(v: &'a Value, region: usize, id: &str) -> &'a Value {
    v["regions"][region]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no {id} in region {region}: {v}"))
}

#[test]
fn a_higher_score_ranks_an_alternate_first_even_when_it_costs_more() {
    let fake = FakeAzure::start();
    fake.mount_token();
    fake.mount_subscription(&all_regions(), Duration::ZERO);
    // westus3 is the cheaper alternate; southcentralus is scored higher
    mount_spot(
        &fake,
        Placement::new("High").score("westus3", Some("3"), "Low"),
        bands(["0-5", "20+", "5-10"]),
    );
    let out = fake
        .preflight(&examples("shortvideo-transcode.yaml"))
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}{e}");
    assert!(
        o.contains("passing alternatives, by Spot placement score, then cheapest: southcentralus (Spot High, eviction 5-10 %/h, $0.902/h), westus3 (Spot Low, eviction 20+ %/h, $0.752/h)"),
        "{o}"
    );
    assert!(
        o.contains(
            "zone 1 High, zone 2 High, zone 3 Low for 18 Spot VMs of Standard_NC8as_T4_v3 per zone"
        ),
        "{o}"
    );
    // one request for the three regions, zonal, 18 Spot VMs
    let out = fake
        .preflight(&examples("shortvideo-transcode.yaml"))
        .args(["--format", "json"])
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(v["ranking"][0]["region"], "southcentralus");
    assert_eq!(v["ranking"][0]["spotPlacementScore"], "High");
    assert_eq!(v["ranking"][1]["spotPlacementScore"], "Low");
    assert_eq!(v["ranking"][1]["spotEvictionRate"], "20+");
    // the spec region's checks: High everywhere, a 0-5 band
    assert_eq!(check(&v, 0, "spot-placement")["status"], "pass");
    assert_eq!(check(&v, 0, "spot-eviction")["status"], "pass");
    // westus3: the Low zone and the 20+ band are warnings, the verdict stays a pass
    assert_eq!(check(&v, 1, "spot-placement")["status"], "warn");
    assert_eq!(check(&v, 1, "spot-eviction")["status"], "warn");
    assert!(
        check(&v, 1, "spot-eviction")["message"]
            .as_str()
            .unwrap()
            .contains("an assumption")
    );
    assert_eq!(v["regions"][1]["verdict"], "pass");
    let generate: Vec<Value> = fake
        .requests()
        .iter()
        .filter(|r| r.url.path().ends_with("/spot/generate"))
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert!(!generate.is_empty());
    assert!(generate.iter().all(|b| b["desiredCount"] == 18
        && b["availabilityZones"] == true
        && b["desiredLocations"] == json!(["eastus2", "westus3", "southcentralus"])));
}

#[test]
fn without_the_compute_recommendations_role_the_scores_are_a_warning_not_a_failure() {
    let fake = FakeAzure::start();
    fake.mount_token();
    fake.mount_subscription(&all_regions(), Duration::ZERO);
    fake.mount(
        Mock::given(method("POST"))
            .and(wiremock::matchers::path_regex(r"/placementScores/spot/generate$"))
            .respond_with(ResponseTemplate::new(403).set_body_json(json!({"error": {"code": "AuthorizationFailed", "message": "The client does not have authorization to perform action 'Microsoft.Compute/locations/placementScores/generate/action'."}}))),
    );
    fake.mount(
        Mock::given(method("POST"))
            .and(path(GRAPH))
            .respond_with(Graph::new(bands(["0-5", "0-5", "0-5"]), 1000)),
    );
    let out = fake
        .preflight(&examples("shortvideo-transcode.yaml"))
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    assert_eq!(out.status.code(), Some(0), "{o}{e}");
    assert!(o.contains("warn     Spot placement score       not read: the identity lacks Microsoft.Compute/locations/placementScores/generate/action (HTTP 403 AuthorizationFailed)"), "{o}");
    assert!(o.contains("Compute Recommendations Role"), "{o}");
    // ranked as before: cheapest first
    assert!(
        o.contains("passing alternatives, cheapest first: westus3 (eviction 0-5 %/h, $0.752/h), southcentralus (eviction 0-5 %/h, $0.902/h)"),
        "{o}"
    );
}

#[test]
fn a_pool_without_spot_asks_nothing() {
    let fake = FakeAzure::start();
    fake.mount_token();
    fake.mount_subscription(&all_regions(), Duration::ZERO);
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(examples("shortvideo-transcode.yaml")).unwrap();
    // all regular
    let spec = text.replace(
        "regularPercentAboveBase: 0\n",
        "regularPercentAboveBase: 100\n",
    );
    assert_ne!(spec, text);
    let p = dir.path().join("regular.yaml");
    std::fs::write(&p, spec).unwrap();
    let _ = std::fs::create_dir_all(dir.path().join("cloud-init"));
    let ci = examples("cloud-init/transcode.yaml");
    if ci.exists() {
        std::fs::copy(ci, dir.path().join("cloud-init/transcode.yaml")).unwrap();
    }
    let out = fake.preflight(&p).output().unwrap();
    let (o, _) = texts(&out);
    assert!(!o.contains("Spot placement"), "{o}");
    assert!(
        !fake
            .requests()
            .iter()
            .any(|r| r.url.path().contains("placementScores") || r.url.path() == GRAPH)
    );
}

/// A render variant of a sovereign cloud with a Spot share (everything above one regular VM).
fn sovereign_spot_spec(fake: &FakeAzure, variant: &str) -> std::path::PathBuf {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let text =
        std::fs::read_to_string(root.join("tests/fixtures/render/variants").join(variant)).unwrap();
    let spec = text
        .replace(
            "  capacity:\n",
            "  capacity:\n    regularBase: 1\n    regularPercentAboveBase: 0\n",
        )
        .replace("interruptible: false", "interruptible: true");
    assert_ne!(spec, text);
    let p = fake.dir.path().join(variant);
    std::fs::write(&p, spec).unwrap();
    p
}

fn region_of(spec: &std::path::Path) -> String {
    let text = std::fs::read_to_string(spec).unwrap();
    text.lines()
        .find_map(|l| l.trim().strip_prefix("region: "))
        .unwrap()
        .trim()
        .to_string()
}

#[test]
fn azure_government_skips_the_placement_score_and_china_warns_that_spot_is_not_offered() {
    for (variant, status, placement_msg, graph_called) in [
        (
            "cloud-usgov.yaml",
            "skipped",
            "serves public Azure regions only",
            true,
        ),
        (
            "cloud-china.yaml",
            "warn   ",
            "not offered in Azure operated by 21Vianet",
            false,
        ),
    ] {
        let fake = FakeAzure::start();
        fake.mount_token();
        let spec = sovereign_spot_spec(&fake, variant);
        fake.mount_subscription(&[(region_of(&spec).as_str(), 100)], Duration::ZERO);
        fake.mount(
            Mock::given(method("POST"))
                .and(path(GRAPH))
                .respond_with(Graph::new(vec![], 1000)),
        );
        let out = fake.preflight(&spec).output().unwrap();
        let (o, e) = texts(&out);
        assert_ne!(out.status.code(), Some(2), "{o}\n{e}");
        assert!(
            o.contains(&format!("{status}  Spot placement score")),
            "{variant}: {o}"
        );
        assert!(o.contains(placement_msg), "{variant}: {o}");
        let reqs = fake.requests();
        assert!(
            !reqs
                .iter()
                .any(|r| r.url.path().contains("placementScores")),
            "{variant}"
        );
        assert_eq!(
            reqs.iter().any(|r| r.url.path() == GRAPH),
            graph_called,
            "{variant}"
        );
    }
}

#[test]
fn a_placement_answer_that_times_out_and_a_graph_5xx_are_warnings_and_the_verdict_stands() {
    let fake = FakeAzure::start();
    fake.mount_token();
    fake.mount_subscription(&all_regions(), Duration::ZERO);
    fake.mount(
        Mock::given(method("POST"))
            .and(wiremock::matchers::path_regex(
                r"/placementScores/spot/generate$",
            ))
            .respond_with(Placement::new("High").delay_all(Duration::from_secs(4))),
    );
    fake.mount(Mock::given(method("POST")).and(path(GRAPH)).respond_with(
        ResponseTemplate::new(503).set_body_json(
            json!({"error": {"code": "ServiceUnavailable", "message": "Please retry later."}}),
        ),
    ));
    let out = fake
        .preflight(&examples("shortvideo-transcode.yaml"))
        .args(["--timeout", "1", "--retries", "1", "--format", "json"])
        .output()
        .unwrap();
    let v = json_of(&out);
    assert_eq!(out.status.code(), Some(0), "{v}");
    assert_eq!(v["verdict"], "pass");
    let p = check(&v, 0, "spot-placement");
    assert_eq!(p["status"], "warn", "{p}");
    assert!(p["message"].as_str().unwrap().contains("within 1 s"), "{p}");
    let g = check(&v, 0, "spot-eviction");
    assert_eq!(g["status"], "warn", "{g}");
    assert!(g["message"].as_str().unwrap().contains("HTTP 503"), "{g}");
    // ranked as before
    assert_eq!(v["ranking"][0]["region"], "westus3");
    assert_eq!(v["ranking"][0].get("spotPlacementScore"), None);
}

#[test]
fn the_alternate_sizes_are_scored_in_the_same_request_and_shown_on_the_ranking() {
    const BIG: &str = "Standard_NC16as_T4_v3";
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(examples("shortvideo-transcode.yaml")).unwrap();
    let text = text.replace(
        "    zones: [\"1\", \"2\", \"3\"]\n",
        &format!("    zones: [\"1\", \"2\", \"3\"]\n    alternateSizes: [{BIG}]\n"),
    );
    std::fs::create_dir_all(dir.path().join("cloud-init")).unwrap();
    std::fs::copy(
        examples("cloud-init/transcode.yaml"),
        dir.path().join("cloud-init/transcode.yaml"),
    )
    .unwrap();
    let spec = dir.path().join("spec.yaml");
    std::fs::write(&spec, text).unwrap();

    let fake = FakeAzure::start();
    fake.mount_token();
    fake.mount_subscription(&all_regions(), Duration::ZERO);
    // the pool's size scores High everywhere; the alternate is Low in westus3, Medium elsewhere
    mount_spot(
        &fake,
        Placement::new("High")
            .size_score("westus3", BIG, "Low")
            .size_score("eastus2", BIG, "Medium")
            .size_score("southcentralus", BIG, "Medium"),
        bands(["0-5", "0-5", "0-5"]),
    );
    let out = fake
        .preflight(&spec)
        .args(["--format", "json"])
        .output()
        .unwrap();
    let v = json_of(&out);
    // one request carries both sizes (the API takes up to five)
    let generate: Vec<Value> = fake
        .requests()
        .iter()
        .filter(|r| r.url.path().ends_with("/spot/generate"))
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert_eq!(generate.len(), 1, "{generate:?}");
    assert_eq!(
        generate[0]["desiredSizes"],
        json!([{"sku": SIZE}, {"sku": BIG}])
    );
    // the ranking keeps the pool's size order and carries the alternates' scores
    let ranking = v["ranking"].as_array().unwrap();
    let by_region = |r: &str| ranking.iter().find(|k| k["region"] == r).unwrap();
    assert_eq!(by_region("westus3")["spotPlacementScore"], "High");
    assert_eq!(
        by_region("westus3")["spotAlternateSizes"],
        json!([{"size": BIG, "score": "Low"}])
    );
    assert_eq!(
        by_region("southcentralus")["spotAlternateSizes"],
        json!([{"size": BIG, "score": "Medium"}])
    );
    let c = check(&v, 0, "spot-placement");
    assert_eq!(c["status"], "pass");
    assert!(
        c["message"].as_str().unwrap().ends_with(&format!(
            "; alternate sizes (compute.alternateSizes): {BIG} Medium"
        )),
        "{c}"
    );
    let out = fake.preflight(&spec).output().unwrap();
    let (o, e) = texts(&out);
    assert!(
        o.contains(&format!(
            "westus3 (Spot High, eviction 0-5 %/h; alternate sizes: {BIG} Spot Low"
        )),
        "{o}{e}"
    );
}

#[test]
fn the_flags_take_the_other_reading_of_each_spot_assumption() {
    // 18 Spot VMs over zones 1-3: --spot-zone-count split asks 6 a zone; a 5-10 band warns
    // from 5 % with --spot-high-eviction-from 5 (both said as assumptions in the checks)
    let fake = FakeAzure::start();
    fake.mount_token();
    fake.mount_subscription(&all_regions(), Duration::ZERO);
    mount_spot(&fake, Placement::new("High"), bands(["5-10", "0-5", "0-5"]));
    let out = fake
        .preflight(&examples("shortvideo-transcode.yaml"))
        .args([
            "--format",
            "json",
            "--spot-zone-count",
            "split",
            "--spot-high-eviction-from",
            "5",
        ])
        .output()
        .unwrap();
    let v = json_of(&out);
    let generate: Vec<Value> = fake
        .requests()
        .iter()
        .filter(|r| r.url.path().ends_with("/spot/generate"))
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert!(!generate.is_empty());
    assert!(
        generate
            .iter()
            .all(|b| b["desiredCount"] == 6 && b["availabilityZones"] == true),
        "{generate:?}"
    );
    let placement = check(&v, 0, "spot-placement")["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        placement.contains("for 6 Spot VMs of Standard_NC8as_T4_v3 per zone")
            && placement.contains("assumption, --spot-zone-count split"),
        "{placement}"
    );
    let eviction = check(&v, 0, "spot-eviction");
    assert_eq!(eviction["status"], "warn", "{eviction}");
    assert!(
        eviction["message"]
            .as_str()
            .unwrap()
            .contains("warns from 5 % per hour, --spot-high-eviction-from: an assumption"),
        "{eviction}"
    );
    // out of range is a usage error
    let out = fake
        .preflight(&examples("shortvideo-transcode.yaml"))
        .args(["--spot-high-eviction-from", "101"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
