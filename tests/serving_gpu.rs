//! GPU-utilisation scaling of a serving pool (issue 36, `autoscale.gpuUtilization`).
//!
//! The variant `tests/fixtures/render/variants/serving-gpu.yaml` renders; its GPU collector runs
//! (python3, a fake `nvidia-smi` replaying the T4 recording) with exactly the environment the
//! rendered custom data gives its service, against a fake instance metadata service and a fake
//! Application Insights ingestion endpoint on 127.0.0.1 written from the excerpts in
//! `tests/fixtures/sources/app-insights.json` (not from gpuform's facts). The fake refuses what
//! the sources say Azure refuses: a token for another audience or none (401), a body that is not
//! a JSON array of items with `name` and `time` (400), another route (404). The scale rules of
//! the rendered template must read exactly the metric the collector sends, in a namespace
//! autoscale reads custom metrics in, from the component the collector posts to.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use gpuform::catalog::prices::PriceTable;
use gpuform::check::check_file;
use gpuform::spec::policy::Policy;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

mod common;
use common::builtin_role_id;

#[path = "support/scripts.rs"]
mod scripts;
use scripts::{fixture, tmpdir, write_exec};

const VARIANT: &str = "tests/fixtures/render/variants/serving-gpu.yaml";
const CLIENT_ID: &str = "9c1f8a52-7e43-4d1b-a8f0-3b6c2d5e4f10";
const IKEY: &str = "0b5e6c1d-2f3a-4b7c-8d9e-0f1a2b3c4d5e";

fn excerpt(id: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sources/app-insights.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    doc["excerpts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == id)
        .and_then(|e| e["text"].as_str())
        .unwrap_or_else(|| panic!("no excerpt {id}"))
        .to_string()
}

/// The namespaces autoscale reads Application Insights custom metrics in, from the page.
fn autoscale_namespaces() -> Vec<String> {
    let t = excerpt("autoscale-namespaces").replace('*', "");
    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
    t.split("published to ")
        .nth(1)
        .unwrap()
        .split(" namespaces")
        .next()
        .unwrap()
        .split(" and ")
        .map(str::to_string)
        .collect()
}

/// The public cloud's token audience, from the page's table.
fn public_audience() -> String {
    let t = excerpt("entra-audience");
    let row = t
        .lines()
        .find(|l| l.contains("Azure public cloud"))
        .unwrap();
    row.split('`').nth(1).unwrap().to_string()
}

/// The track route, from the REST spec's host template and path.
fn track_route() -> String {
    let h = excerpt("track-host");
    let v = h
        .split("{Host}/")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_string();
    format!("/{v}/track")
}

fn rendered() -> (gpuform::plan::Plan, Value, String) {
    let c = check_file(
        Path::new(VARIANT),
        &Policy::default(),
        PriceTable::embedded(),
    );
    assert!(
        !c.diagnostics.iter().any(|d| d.is_error()),
        "{:#?}",
        c.diagnostics
    );
    let plan = gpuform::plan::Plan::build(&c).unwrap();
    let arm = gpuform::emit::arm::template(&plan);
    let r = gpuform::emit::render(&c).unwrap();
    let bicep = r
        .files
        .iter()
        .find(|(f, _)| *f == gpuform::emit::MAIN_BICEP)
        .map(|(_, t)| t.clone())
        .unwrap();
    (plan, arm, bicep)
}

fn of_type<'a>(arm: &'a Value, ty: &str) -> Vec<&'a Value> {
    arm["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["type"] == ty)
        .collect()
}

/// The autoscale rules that read the Application Insights component.
fn gpu_rules(arm: &Value) -> Vec<Value> {
    let a = of_type(arm, "Microsoft.Insights/autoscaleSettings")[0];
    a["properties"]["profiles"][0]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            r["metricTrigger"]["metricResourceUri"]
                .as_str()
                .unwrap()
                .contains("Microsoft.Insights/components")
        })
        .cloned()
        .collect()
}

fn b64decode(s: &str) -> Vec<u8> {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut buf, mut bits) = (0u32, 0);
    for c in s.bytes().filter(|c| *c != b'=') {
        let v = A.iter().position(|a| *a == c).expect("base64") as u32;
        buf = (buf << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buf >> bits) as u8);
            buf &= (1 << bits) - 1;
        }
    }
    out
}

fn rendered_environment(plan: &gpuform::plan::Plan) -> BTreeMap<String, String> {
    let cd = plan.compute.custom_data.as_ref().expect("custom data");
    let text = String::from_utf8(b64decode(cd)).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("Environment="))
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap();
            (k.to_string(), v.to_string())
        })
        .collect()
}

// ------------------------------------------------------------------ the fakes

fn query(url: &str, name: &str) -> Option<String> {
    url::Url::parse(url)
        .ok()?
        .query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

struct Imds;

impl Respond for Imds {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let url = req.url.to_string();
        let ok = req.headers.get("Metadata").and_then(|v| v.to_str().ok()) == Some("true")
            && query(&url, "client_id").as_deref() == Some(CLIENT_ID);
        match (ok, query(&url, "resource")) {
            (true, Some(resource)) => ResponseTemplate::new(200).set_body_json(json!({
                "access_token": format!("token-for:{resource}"),
                "expires_in": "3599",
                "token_type": "Bearer"
            })),
            _ => ResponseTemplate::new(400).set_body_json(json!({"error": "invalid_request"})),
        }
    }
}

struct Track {
    audience: String,
    seen: Arc<Mutex<Vec<Value>>>,
}

impl Respond for Track {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let auth = req
            .headers
            .get("Authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        if auth != format!("Bearer token-for:{}", self.audience) {
            return ResponseTemplate::new(401).set_body_json(json!({
                "itemsReceived": 0, "itemsAccepted": 0,
                "errors": [{"index": 0, "statusCode": 401, "message": "token audience or signature invalid"}]
            }));
        }
        let body: Value = match serde_json::from_slice(&req.body) {
            Ok(Value::Array(items)) => Value::Array(items),
            _ => {
                return ResponseTemplate::new(400).set_body_json(json!({
                    "itemsReceived": 0, "itemsAccepted": 0,
                    "errors": [{"index": 0, "statusCode": 400, "message": "not a JSON array"}]
                }));
            }
        };
        let items = body.as_array().unwrap();
        for (i, it) in items.iter().enumerate() {
            // TelemetryEnvelope: name and time required; one metric per item
            let metrics = it["data"]["baseData"]["metrics"].as_array();
            if !it["name"].is_string()
                || !it["time"].is_string()
                || metrics.is_none_or(|m| m.len() != 1)
            {
                return ResponseTemplate::new(400).set_body_json(json!({
                    "itemsReceived": items.len(), "itemsAccepted": 0,
                    "errors": [{"index": i, "statusCode": 400, "message": "invalid item"}]
                }));
            }
        }
        self.seen.lock().unwrap().extend(items.iter().cloned());
        ResponseTemplate::new(200).set_body_json(json!({
            "itemsReceived": items.len(), "itemsAccepted": items.len(), "errors": []
        }))
    }
}

struct Fakes {
    server: MockServer,
    items: Arc<Mutex<Vec<Value>>>,
}

async fn start() -> Fakes {
    let server = MockServer::start().await;
    let items = Arc::new(Mutex::new(Vec::new()));
    Mock::given(method("GET"))
        .and(path("/metadata/identity/oauth2/token"))
        .respond_with(Imds)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(track_route()))
        .respond_with(Track {
            audience: public_audience(),
            seen: items.clone(),
        })
        .mount(&server)
        .await;
    Fakes { server, items }
}

/// Run the collector once as the rendered service would, with the deployment's values in place
/// of the placeholders and the fakes in place of Azure's hosts.
fn run_collector(
    tag: &str,
    plan: &gpuform::plan::Plan,
    base: &str,
    audience: Option<&str>,
) -> String {
    let dir: PathBuf = tmpdir("serving-gpu", tag);
    write_exec(
        &dir.join("gpuform-gpu"),
        gpuform::plan::gpu_monitoring::COLLECTOR,
    );
    write_exec(
        &dir.join("bin/nvidia-smi"),
        &format!(
            "#!/bin/sh\nif [ -z \"$1\" ]; then cat '{}'; else cat '{}'; fi\n",
            fixture("t4.smi"),
            fixture("t4.csv")
        ),
    );
    write_exec(&dir.join("bin/journalctl"), "#!/bin/sh\nexit 0\n");
    std::fs::write(
        dir.join("imds.json"),
        r#"{"priority": "Regular", "vmId": "v"}"#,
    )
    .unwrap();
    // the component's connection string (the page's shape) in place of its placeholder
    let connection = format!(
        "InstrumentationKey={IKEY};IngestionEndpoint={base}/;LiveEndpoint={base}/;ApplicationId=a"
    );
    let mut env: BTreeMap<String, String> = rendered_environment(plan)
        .into_iter()
        .map(|(k, v)| {
            let v = v
                .replace("@@GPUFORM_APPI_CONNECTION@@", &connection)
                .replace("@@GPUFORM_INGEST_CLIENT_ID@@", CLIENT_ID)
                .replace("http://169.254.169.254", base);
            (k, v)
        })
        .collect();
    if let Some(a) = audience {
        env.insert("GPUFORM_APPI_AUDIENCE".into(), a.into());
    }
    let out = Command::new("python3")
        .arg(dir.join("gpuform-gpu"))
        .args(["collect", "1"])
        .envs(&env)
        .env(
            "PATH",
            format!(
                "{}:{}",
                dir.join("bin").display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("GPUFORM_JOBS_FILE", dir.join("no-jobs"))
        .env("GPUFORM_GPU_LOG_DIR", dir.join("log"))
        .env("GPUFORM_GPU_STATE_DIR", dir.join("state"))
        .env("GPUFORM_IMDS_FILE", dir.join("imds.json"))
        .env("GPUFORM_NOW", "2026-12-05T10:00:00Z")
        .output()
        .expect("python3 runs the collector");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

// ------------------------------------------------------------------ tests

#[test]
fn the_variant_renders_a_locked_component_the_identitys_role_and_rules_on_it() {
    let (plan, arm, bicep) = rendered();
    let appi = of_type(&arm, "Microsoft.Insights/components");
    assert_eq!(appi.len(), 1);
    let p = &appi[0]["properties"];
    assert_eq!(
        p["DisableLocalAuth"], true,
        "local authentication stays off"
    );
    assert!(
        p["WorkspaceResourceId"]
            .as_str()
            .unwrap()
            .contains("Microsoft.OperationalInsights/workspaces"),
        "workspace-based"
    );
    // Monitoring Metrics Publisher (the role table's GUID) for the pool's identity, on the component
    let role = builtin_role_id("Monitoring Metrics Publisher");
    let on_component: Vec<&Value> = of_type(&arm, "Microsoft.Authorization/roleAssignments")
        .into_iter()
        .filter(|r| {
            r["properties"]["roleDefinitionId"]
                .as_str()
                .unwrap()
                .contains(&role)
        })
        .filter(|r| {
            r["scope"]
                .as_str()
                .is_some_and(|s| s.contains("Microsoft.Insights/components"))
        })
        .collect();
    assert_eq!(
        on_component.len(),
        1,
        "one role assignment on the component"
    );
    assert!(
        on_component[0]["properties"]["principalId"]
            .as_str()
            .unwrap()
            .contains("userAssignedIdentities"),
        "granted to the pool's identity"
    );
    // both rules read the component; scale-out and scale-in
    let rules = gpu_rules(&arm);
    let dirs: Vec<&str> = rules
        .iter()
        .map(|r| r["scaleAction"]["direction"].as_str().unwrap())
        .collect();
    assert_eq!(dirs, ["Increase", "Decrease"]);
    let sv = plan.serving.as_ref().unwrap().gpu_scaling.as_ref().unwrap();
    assert_eq!(rules[0]["metricTrigger"]["threshold"], 75);
    // the derived scale-in cannot flap at the smallest pool that scales in (1 -> 2 instances)
    let below = rules[1]["metricTrigger"]["threshold"].as_u64().unwrap();
    assert!(below * 2 < 75, "{below}");
    assert_eq!(below, u64::from(sv.scale_in_below));
    // the scale set waits for the component whose connection string its custom data carries
    let vmss = of_type(&arm, "Microsoft.Compute/virtualMachineScaleSets")[0];
    let cd = vmss["properties"]["virtualMachineProfile"]["osProfile"]["customData"]
        .as_str()
        .unwrap();
    assert!(cd.contains("ConnectionString") && cd.contains("@@GPUFORM_APPI_CONNECTION@@"));
    assert!(
        vmss["dependsOn"].as_array().unwrap().iter().any(|d| d
            .as_str()
            .unwrap()
            .contains("Microsoft.Insights/components")),
        "{}",
        vmss["dependsOn"]
    );
    // Bicep says the same
    assert!(bicep.contains("resource appi 'Microsoft.Insights/components@"));
    assert!(bicep.contains("DisableLocalAuth: true"));
    assert!(bicep.contains("metricResourceUri: appi.id"));
    assert!(bicep.contains("appi.properties.ConnectionString"));
    assert!(bicep.contains("scope: appi"));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_rules_read_exactly_the_metric_the_collector_sends() {
    let (plan, arm, _) = rendered();
    let fakes = start().await;
    let base = fakes.server.uri();
    let p2 = plan.clone();
    let b2 = base.clone();
    let stderr = tokio::task::spawn_blocking(move || run_collector("sends", &p2, &b2, None))
        .await
        .unwrap();
    let items = fakes.items.lock().unwrap().clone();
    assert_eq!(items.len(), 1, "one item a minute; stderr: {stderr}");
    let item = &items[0];
    assert_eq!(
        item["iKey"], IKEY,
        "the connection string's instrumentation key"
    );
    let m = &item["data"]["baseData"]["metrics"][0];
    // the T4 recording's utilisation (one GPU)
    let util = m["value"].as_f64().unwrap();
    assert!((0.0..=100.0).contains(&util), "{util}");
    // what the rules read is what was sent
    let namespaces = autoscale_namespaces();
    let rules = gpu_rules(&arm);
    assert_eq!(rules.len(), 2);
    for r in &rules {
        let t = &r["metricTrigger"];
        assert_eq!(t["metricName"], m["name"], "metric name");
        let rule_ns = t["metricNamespace"].as_str().unwrap();
        assert!(
            namespaces.iter().any(|n| n == rule_ns),
            "{rule_ns} is not a namespace autoscale reads custom metrics in: {namespaces:?}"
        );
        // an item without `ns` lands in the default custom namespace; with one, it must be the rule's
        match m.get("ns").and_then(Value::as_str) {
            None => assert!(rule_ns.eq_ignore_ascii_case("Azure.ApplicationInsights")),
            Some(ns) => assert!(ns.eq_ignore_ascii_case(rule_ns), "{ns} vs {rule_ns}"),
        }
        assert_eq!(t["dividePerInstance"], false, "already a mean per GPU");
        assert!(t.get("dimensions").is_none());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_token_is_reported_and_nothing_is_accepted() {
    let (plan, _, _) = rendered();
    let fakes = start().await;
    let base = fakes.server.uri();
    let stderr = tokio::task::spawn_blocking(move || {
        run_collector("refused", &plan, &base, Some("https://monitor.azure.us"))
    })
    .await
    .unwrap();
    assert!(fakes.items.lock().unwrap().is_empty());
    assert!(
        stderr.contains("gpu utilization metric: HTTP 401"),
        "{stderr}"
    );
}

#[test]
fn refused_where_it_cannot_work_with_where_and_why() {
    let text = std::fs::read_to_string(VARIANT).unwrap();
    let cases = [
        // no GPU monitoring
        (
            text.replace(
                "  monitoring:\n    alertEmails: [ops@example.com]\n",
                "  monitoring:\n    alertEmails: [ops@example.com]\n    gpu: {enabled: false}\n",
            ),
            "gpu-scaling-needs-serving",
            "/spec/autoscale/gpuUtilization",
        ),
        // outside the public cloud
        (
            text.replace("region: westeurope", "region: usgovvirginia"),
            "gpu-scaling-cloud",
            "/spec/autoscale/gpuUtilization",
        ),
        // thresholds that cannot work
        (
            text.replace(
                "scaleOutAbove: 75",
                "scaleOutAbove: 75\n      scaleInBelow: 80",
            ),
            "gpu-scaling-thresholds",
            "/spec/autoscale/gpuUtilization/scaleInBelow",
        ),
    ];
    for (spec, rule, at) in cases {
        let c = gpuform::check::check_source(
            spec,
            "serving-gpu.yaml",
            PathBuf::from("."),
            &Policy::default(),
            PriceTable::embedded(),
        );
        let d = c
            .diagnostics
            .iter()
            .find(|d| d.rule == rule)
            .unwrap_or_else(|| panic!("{rule}: {:#?}", c.diagnostics));
        assert!(d.is_error(), "{rule}");
        assert_eq!(d.pointer.as_deref(), Some(at), "{rule}");
        assert!(d.location.is_some(), "{rule}: located");
    }
    // a scale-in threshold that flaps at the smallest pool that scales in (min 1: two VMs to one
    // doubles the mean, 60 % becomes 120 % >= 75 %) is a located warning
    let c = gpuform::check::check_source(
        text.replace(
            "scaleOutAbove: 75",
            "scaleOutAbove: 75\n      scaleInBelow: 60",
        ),
        "serving-gpu.yaml",
        PathBuf::from("."),
        &Policy::default(),
        PriceTable::embedded(),
    );
    let d = c
        .diagnostics
        .iter()
        .find(|d| d.rule == "gpu-scaling-flap")
        .unwrap_or_else(|| panic!("gpu-scaling-flap: {:#?}", c.diagnostics));
    assert!(!d.is_error(), "a warning");
    assert_eq!(
        d.pointer.as_deref(),
        Some("/spec/autoscale/gpuUtilization/scaleInBelow")
    );
    // the valid variant says what it renders and what is an assumption (info)
    let c = check_file(
        Path::new(VARIANT),
        &Policy::default(),
        PriceTable::embedded(),
    );
    let info = c
        .diagnostics
        .iter()
        .find(|d| d.rule == "gpu-scaling")
        .expect("the info");
    assert!(info.notes.iter().any(|n| n.starts_with("assumption:")));
}
