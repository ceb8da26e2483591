//! The Logs Ingestion path (issue 20): where no agent association reaches a pool's VMs (a
//! Flexible pool in a region the built-in DCR-association policy does not list, or
//! `monitoring.gpu.delivery: ingestion`), the collector posts its rows itself.
//!
//! The collector runs (python3, a fake `nvidia-smi` replaying the T4 recording) with exactly the
//! environment the rendered custom data gives its service, against a fake instance metadata
//! service and a fake Logs Ingestion API on 127.0.0.1, written from the dated excerpts in
//! `tests/fixtures/sources/logs-ingestion.json` (not from gpuform's facts). The fake refuses what
//! Azure refuses: another api-version (400), a token for another audience or none (401), an
//! unknown rule or stream (404), a body over the 1 MB limit (413), a body that is not a JSON array
//! (400); and it throttles the first good call once (429 with Retry-After: 1).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use gpuform::catalog::prices::PriceTable;
use gpuform::check::check_file;
use gpuform::spec::policy::Policy;
use serde_json::{Value, json};
use wiremock::matchers::{method, path, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

mod common;
use common::builtin_role_id;

#[path = "support/scripts.rs"]
mod scripts;
use scripts::{fixture, tmpdir, write_exec};

const USGOV: &str = "tests/fixtures/gpu/usgov-ingestion.yaml";
const CHINA: &str = "tests/fixtures/render/variants/cloud-china.yaml";
const DCR_ID: &str = "dcr-0123456789abcdef0123456789abcdef";
const CLIENT_ID: &str = "9c1f8a52-7e43-4d1b-a8f0-3b6c2d5e4f10";

fn excerpt() -> Value {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sources/logs-ingestion.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn query(url: &str, name: &str) -> Option<String> {
    url::Url::parse(url)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.to_string())
}

/// Learn's api-version of the upload call.
fn learn_version() -> String {
    let uri = excerpt()["overview"]["uri"].as_str().unwrap().to_string();
    uri.split("api-version=").nth(1).unwrap().to_string()
}

/// Learn's audience for the US Government cloud.
fn learn_audience(label: &str) -> String {
    let row = excerpt()["overview"]["authorization"]
        .as_str()
        .unwrap()
        .to_string();
    row.split(label)
        .nth(1)
        .unwrap()
        .split('`')
        .nth(1)
        .unwrap()
        .to_string()
}

/// The IMDS token API version of the managed-identity page.
fn imds_version() -> String {
    let req = excerpt()["imdsToken"]["request"]
        .as_str()
        .unwrap()
        .to_string();
    let url = req.split('\'').nth(1).unwrap().to_string();
    query(&url, "api-version").unwrap()
}

/// The limit of one call: "1 MB", read conservatively as 10^6 bytes.
fn limit_bytes() -> usize {
    let row = excerpt()["limits"]["rows"][0].as_str().unwrap().to_string();
    let mb: usize = row
        .split("| ")
        .nth(2)
        .unwrap()
        .split(" MB")
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    mb * 1_000_000
}

fn arm_of(spec: &str) -> (gpuform::plan::Plan, Value) {
    let c = check_file(Path::new(spec), &Policy::default(), PriceTable::embedded());
    let plan = gpuform::plan::Plan::build(&c).unwrap();
    let arm = gpuform::emit::arm::template(&plan);
    (plan, arm)
}

fn of_type<'a>(arm: &'a Value, ty: &str) -> Vec<&'a Value> {
    arm["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["type"] == ty)
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

/// The collector service's `Environment=` lines in the rendered custom data.
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

#[derive(Clone, Debug)]
struct Seen {
    url: String,
    headers: BTreeMap<String, String>,
    body: Vec<u8>,
    at: Instant,
    status: u16,
}

fn record(req: &Request, status: u16) -> Seen {
    Seen {
        url: req.url.to_string(),
        headers: req
            .headers
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_ascii_lowercase(),
                    v.to_str().unwrap_or("").into(),
                )
            })
            .collect(),
        body: req.body.clone(),
        at: Instant::now(),
        status,
    }
}

struct Imds {
    version: String,
    client_id: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Respond for Imds {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let url = req.url.to_string();
        let ok = req.headers.get("Metadata").and_then(|v| v.to_str().ok()) == Some("true")
            && query(&url, "api-version").as_deref() == Some(self.version.as_str())
            && query(&url, "client_id").as_deref() == Some(self.client_id.as_str());
        let resource = query(&url, "resource");
        let status = if ok && resource.is_some() { 200 } else { 400 };
        self.seen.lock().unwrap().push(record(req, status));
        if status != 200 {
            return ResponseTemplate::new(400).set_body_json(
                json!({"error": "invalid_request", "error_description": "Required metadata header not specified or wrong query"}),
            );
        }
        // the token names its audience (the `resource` it was asked for)
        ResponseTemplate::new(200).set_body_json(json!({
            "access_token": format!("token-for:{}", resource.unwrap()),
            "refresh_token": "",
            "expires_in": "3599",
            "expires_on": "1506484173",
            "not_before": "1506480273",
            "resource": "",
            "token_type": "Bearer"
        }))
    }
}

struct Ingest {
    version: String,
    audience: String,
    rule: String,
    streams: Vec<String>,
    limit: usize,
    throttled: AtomicBool,
    seen: Arc<Mutex<Vec<Seen>>>,
}

fn refuse(status: u16, code: &str, message: &str) -> (u16, ResponseTemplate) {
    (
        status,
        ResponseTemplate::new(status)
            .insert_header("x-ms-error-code", code)
            .set_body_json(json!({"error": {"code": code, "message": message}})),
    )
}

impl Respond for Ingest {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let url = req.url.to_string();
        let segs: Vec<&str> = req.url.path().trim_start_matches('/').split('/').collect();
        let answer = if query(&url, "api-version").as_deref() != Some(self.version.as_str()) {
            refuse(
                400,
                "UnsupportedApiVersion",
                "The api-version is not supported",
            )
        } else if req
            .headers
            .get("Authorization")
            .and_then(|v| v.to_str().ok())
            != Some(format!("Bearer token-for:{}", self.audience).as_str())
        {
            refuse(
                401,
                "InvalidToken",
                "The token is missing or its audience is not this cloud's",
            )
        } else if segs.get(1) != Some(&self.rule.as_str()) {
            refuse(404, "NotFound", "Data collection rule not found")
        } else if !self
            .streams
            .iter()
            .any(|s| Some(&s.as_str()) == segs.get(3))
        {
            refuse(
                404,
                "InvalidStream",
                "The stream is not declared in the rule",
            )
        } else if req.body.len() > self.limit {
            refuse(
                413,
                "ContentLengthLimitExceeded",
                "Maximum size of API call is 1 MB",
            )
        } else if !serde_json::from_slice::<Value>(&req.body).is_ok_and(|v| v.is_array()) {
            refuse(400, "InvalidPayload", "The body must be a JSON array")
        } else if !self.throttled.swap(true, Ordering::SeqCst) {
            (
                429,
                ResponseTemplate::new(429)
                    .insert_header("Retry-After", "1")
                    .set_body_json(json!({"error": {"code": "TooManyRequests", "message": "Retry after the duration listed in the Retry-After header"}})),
            )
        } else {
            (204, ResponseTemplate::new(204))
        };
        self.seen.lock().unwrap().push(record(req, answer.0));
        answer.1
    }
}

struct Fakes {
    server: MockServer,
    imds: Arc<Mutex<Vec<Seen>>>,
    uploads: Arc<Mutex<Vec<Seen>>>,
}

async fn start(arm: &Value, audience: &str) -> Fakes {
    let server = MockServer::start().await;
    let imds = Arc::new(Mutex::new(Vec::new()));
    let uploads = Arc::new(Mutex::new(Vec::new()));
    let dcr = &of_type(arm, "Microsoft.Insights/dataCollectionRules")[0];
    let streams = dcr["properties"]["streamDeclarations"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    Mock::given(method("GET"))
        .and(path("/metadata/identity/oauth2/token"))
        .respond_with(Imds {
            version: imds_version(),
            client_id: CLIENT_ID.into(),
            seen: imds.clone(),
        })
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path_regex(r"^/dataCollectionRules/[^/]+/streams/[^/]+$"))
        .respond_with(Ingest {
            version: learn_version(),
            audience: audience.into(),
            rule: DCR_ID.into(),
            streams,
            limit: limit_bytes(),
            throttled: AtomicBool::new(false),
            seen: uploads.clone(),
        })
        .mount(&server)
        .await;
    Fakes {
        server,
        imds,
        uploads,
    }
}

// ------------------------------------------------------------------ the collector

/// A VM of the pool: the collector, a fake nvidia-smi replaying the T4, and the environment the
/// rendered custom data gives the service with the deployment's values in place of the
/// placeholders and the fakes' address in place of Azure's hosts.
struct Vm {
    dir: PathBuf,
    env: BTreeMap<String, String>,
}

impl Vm {
    fn new(tag: &str, plan: &gpuform::plan::Plan, fakes: &Fakes) -> Vm {
        let dir = tmpdir("ingest", tag);
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
            r#"{"priority": "Regular", "vmId": "0d5f1c2e-0000-4000-8000-000000000002"}"#,
        )
        .unwrap();
        let base = fakes.server.uri();
        let env = rendered_environment(plan)
            .into_iter()
            .map(|(k, v)| {
                let v = v
                    .replace("@@GPUFORM_INGEST_ENDPOINT@@", &base)
                    .replace("@@GPUFORM_INGEST_DCR@@", DCR_ID)
                    .replace("@@GPUFORM_INGEST_CLIENT_ID@@", CLIENT_ID)
                    .replace("http://169.254.169.254", &base);
                (k, v)
            })
            .collect();
        Vm { dir, env }
    }

    fn collect(&self, now: &str) -> (i32, String) {
        let path = format!(
            "{}:{}",
            self.dir.join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let out = Command::new("python3")
            .arg(self.dir.join("gpuform-gpu"))
            .args(["collect", "1"])
            .envs(&self.env)
            .env("PATH", path)
            .env("GPUFORM_JOBS_FILE", self.dir.join("no-jobs"))
            .env("GPUFORM_GPU_LOG_DIR", self.dir.join("log"))
            .env("GPUFORM_GPU_STATE_DIR", self.dir.join("state"))
            .env("GPUFORM_IMDS_FILE", self.dir.join("imds.json"))
            .env("GPUFORM_NOW", now)
            .output()
            .expect("python3 runs the collector");
        (
            out.status.code().unwrap(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn cursor(&self) -> Value {
        serde_json::from_str(&std::fs::read_to_string(self.dir.join("state/ingest.json")).unwrap())
            .unwrap()
    }

    fn log_len(&self, day: &str) -> u64 {
        std::fs::metadata(self.dir.join(format!("log/gpu-{day}.json")))
            .unwrap()
            .len()
    }
}

async fn collect(vm: &Vm, now: &'static str) -> (i32, String) {
    let vm = Vm {
        dir: vm.dir.clone(),
        env: vm.env.clone(),
    };
    tokio::task::spawn_blocking(move || vm.collect(now))
        .await
        .unwrap()
}

// ------------------------------------------------------------------ tests

#[tokio::test(flavor = "multi_thread")]
async fn the_collector_posts_its_rows_with_the_identitys_token_and_retries_a_429() {
    let (plan, arm) = arm_of(USGOV);
    let audience = learn_audience("Azure US Government cloud - ");
    let fakes = start(&arm, &audience).await;
    let vm = Vm::new("usgov", &plan, &fakes);
    // the rendered environment names the stream the rule declares and Learn's audience
    let dcr = &of_type(&arm, "Microsoft.Insights/dataCollectionRules")[0];
    let stream = vm.env["GPUFORM_INGEST_STREAM"].clone();
    let columns: Vec<String> = dcr["properties"]["streamDeclarations"][&stream]["columns"]
        .as_array()
        .unwrap_or_else(|| panic!("{stream} is not declared"))
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(vm.env["GPUFORM_INGEST_AUDIENCE"], audience);

    let (code, stderr) = collect(&vm, "2026-12-02T16:20:00Z").await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");

    // the token: IMDS with Metadata: true, the audience as resource, the pool identity's client id
    let imds = fakes.imds.lock().unwrap().clone();
    assert_eq!(imds.len(), 1);
    assert_eq!(imds[0].status, 200);
    assert_eq!(query(&imds[0].url, "resource").unwrap(), audience);
    assert_eq!(query(&imds[0].url, "client_id").unwrap(), CLIENT_ID);

    // one 429, then the same body again after Retry-After, accepted
    let up = fakes.uploads.lock().unwrap().clone();
    assert_eq!(
        up.iter().map(|s| s.status).collect::<Vec<_>>(),
        vec![429, 204]
    );
    assert_eq!(up[0].body, up[1].body);
    assert!(up[1].at.duration_since(up[0].at).as_millis() >= 900);
    let u = url::Url::parse(&up[1].url).unwrap();
    assert_eq!(
        u.path(),
        format!("/dataCollectionRules/{DCR_ID}/streams/{stream}")
    );
    assert_eq!(query(&up[1].url, "api-version").unwrap(), learn_version());
    assert_eq!(up[1].headers["content-type"], "application/json");
    assert_eq!(
        up[1].headers["authorization"],
        format!("Bearer token-for:{audience}")
    );
    let rows: Vec<Value> = serde_json::from_slice(&up[1].body).unwrap();
    assert_eq!(rows.len(), 1, "one T4");
    for r in &rows {
        for k in r.as_object().unwrap().keys() {
            assert!(columns.contains(k), "{k} is not a column of {stream}");
        }
        assert_eq!(r["Status"], "ok");
        assert_eq!(r["TimeGenerated"], "2026-12-02T16:20:00Z");
    }
    // the cursor is past everything sent; the token is nowhere on disk
    assert_eq!(vm.cursor()["offset"], vm.log_len("20261202"));
    for f in ["state/ingest.json", "log/gpu-20261202.json"] {
        let text = std::fs::read_to_string(vm.dir.join(f)).unwrap();
        assert!(!text.contains("token-for:"), "{f} holds the token");
    }

    // the next minute sends only the new row
    let (code, stderr) = collect(&vm, "2026-12-02T16:21:00Z").await;
    assert_eq!(code, 0, "{stderr}");
    let up = fakes.uploads.lock().unwrap().clone();
    assert_eq!(up.len(), 3);
    let rows: Vec<Value> = serde_json::from_slice(&up[2].body).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["TimeGenerated"], "2026-12-02T16:21:00Z");
}

/// What Azure refuses is not retried, the rows stay for the next sample, the VM stays healthy.
#[tokio::test(flavor = "multi_thread")]
async fn refusals_are_reported_and_the_rows_kept_for_the_next_sample() {
    let (plan, arm) = arm_of(CHINA);
    let audience = learn_audience("Microsoft Azure operated by 21Vianet cloud - ");
    for (what, key, value, status) in [
        (
            "another api-version",
            "GPUFORM_INGEST_API_VERSION",
            "2021-11-01-preview",
            400,
        ),
        (
            "another cloud's audience",
            "GPUFORM_INGEST_AUDIENCE",
            "https://monitor.azure.com",
            401,
        ),
        (
            "an unknown stream",
            "GPUFORM_INGEST_STREAM",
            "Custom-Other",
            404,
        ),
    ] {
        let fakes = start(&arm, &audience).await;
        let mut vm = Vm::new("refused", &plan, &fakes);
        vm.env.insert(key.into(), value.into());
        let (code, stderr) = collect(&vm, "2026-12-02T16:20:00Z").await;
        assert_eq!(code, 0, "{what}: health is the GPUs'");
        assert!(
            stderr.contains(&format!("HTTP {status}")),
            "{what}: {stderr}"
        );
        let up = fakes.uploads.lock().unwrap().clone();
        assert_eq!(up.len(), 1, "{what}: not retried");
        assert_eq!(up[0].status, status, "{what}");
        assert!(vm.cursor().get("offset").is_none(), "{what}: nothing sent");
    }
}

/// A backlog (a day without network) goes in calls under the 1 MB limit; a collector told to
/// send larger calls is refused with 413 by the fake, as Azure refuses them.
#[tokio::test(flavor = "multi_thread")]
async fn a_backlog_goes_in_calls_under_the_limit() {
    let (plan, arm) = arm_of(USGOV);
    let audience = learn_audience("Azure US Government cloud - ");
    for (max, want) in [(None, 204), (Some("3000000"), 413)] {
        let fakes = start(&arm, &audience).await;
        let mut vm = Vm::new("backlog", &plan, &fakes);
        if let Some(m) = max {
            vm.env.insert("GPUFORM_INGEST_MAX_BYTES".into(), m.into());
        }
        // 2.5 MB of earlier rows in yesterday's file
        std::fs::create_dir_all(vm.dir.join("log")).unwrap();
        let row = json!({"TimeGenerated": "2026-12-01T10:00:00Z", "Computer": "vm0", "Status": "ok", "Message": "x".repeat(400)});
        let line = format!("{row}\n");
        let n = 2_500_000 / line.len();
        std::fs::write(vm.dir.join("log/gpu-20261201.json"), line.repeat(n)).unwrap();
        let (code, stderr) = collect(&vm, "2026-12-02T16:20:00Z").await;
        assert_eq!(code, 0, "{stderr}");
        let up = fakes.uploads.lock().unwrap().clone();
        let last = up.last().unwrap();
        assert_eq!(last.status, want, "{max:?}: {stderr}");
        if want == 204 {
            assert!(up.iter().all(|s| s.body.len() <= limit_bytes()));
            let sent: usize = up
                .iter()
                .filter(|s| s.status == 204)
                .map(|s| serde_json::from_slice::<Vec<Value>>(&s.body).unwrap().len())
                .sum();
            assert_eq!(sent, n + 1, "yesterday's rows and today's");
            assert_eq!(vm.cursor()["file"], "gpu-20261202.json");
        } else {
            assert!(stderr.contains("HTTP 413"), "{stderr}");
        }
    }
}

/// The sovereign Flexible variants render the Logs Ingestion path: a DCE whose endpoint, the
/// rule's immutable id and the identity's client id replace the custom data's placeholders; the
/// identity that signs in holds Monitoring Metrics Publisher on the rule; no agent, association
/// or policy. A public Flexible example keeps the policy.
#[test]
fn the_sovereign_flexible_variants_render_the_ingestion_path() {
    for spec in [USGOV, CHINA] {
        let (plan, arm) = arm_of(spec);
        let g = plan.gpu.as_ref().unwrap();
        assert_eq!(g.delivery, "ingestion", "{spec}");
        assert!(g.dcr_policy.is_none());
        let vmss = &of_type(&arm, "Microsoft.Compute/virtualMachineScaleSets")[0];
        assert_eq!(vmss["properties"]["orchestrationMode"], "Flexible");
        let cd = vmss["properties"]["virtualMachineProfile"]["osProfile"]["customData"]
            .as_str()
            .unwrap();
        for want in [
            "base64ToString(variables('customData'))",
            "@@GPUFORM_INGEST_ENDPOINT@@",
            "Microsoft.Insights/dataCollectionEndpoints",
            ").logsIngestion.endpoint",
            "@@GPUFORM_INGEST_DCR@@",
            ").immutableId",
            "@@GPUFORM_INGEST_CLIENT_ID@@",
            "Microsoft.ManagedIdentity/userAssignedIdentities",
            ").clientId",
        ] {
            assert!(cd.contains(want), "{spec}: {want} in {cd}");
        }
        let exts = vmss["properties"]["virtualMachineProfile"]["extensionProfile"]["extensions"]
            .as_array()
            .unwrap();
        assert!(
            !exts.iter().any(|e| e["properties"]["type"]
                .as_str()
                .unwrap()
                .starts_with("AzureMonitor")),
            "{spec}: no agent"
        );
        assert!(of_type(&arm, "Microsoft.Insights/dataCollectionRuleAssociations").is_empty());
        assert!(of_type(&arm, "Microsoft.Authorization/policyAssignments").is_empty());
        assert_eq!(
            of_type(&arm, "Microsoft.Insights/dataCollectionEndpoints").len(),
            1
        );
        let dcr = &of_type(&arm, "Microsoft.Insights/dataCollectionRules")[0];
        assert!(
            dcr["properties"]["dataCollectionEndpointId"]
                .as_str()
                .unwrap()
                .contains("dataCollectionEndpoints")
        );
        // Monitoring Metrics Publisher (GUID from the built-in roles source) on the rule, for the
        // identity whose client id the collector asks a token for, which is the scale set's
        let publisher = builtin_role_id("Monitoring Metrics Publisher");
        let ra = of_type(&arm, "Microsoft.Authorization/roleAssignments");
        let held = ra.iter().find(|r| {
            r["properties"]["roleDefinitionId"]
                .as_str()
                .unwrap()
                .contains(&publisher)
        });
        let held = held.unwrap_or_else(|| panic!("{spec}: no publisher role"));
        assert!(
            held["scope"]
                .as_str()
                .unwrap()
                .contains("Microsoft.Insights/dataCollectionRules/"),
            "{spec}: scoped to the rule: {}",
            held["scope"]
        );
        let principal = held["properties"]["principalId"].as_str().unwrap();
        let identity_ref = |s: &str| {
            s.split("userAssignedIdentities', ")
                .nth(1)
                .map(|t| t.split(')').next().unwrap().to_string())
        };
        let uai = vmss["identity"]["userAssignedIdentities"]
            .as_object()
            .unwrap()
            .keys()
            .next()
            .unwrap()
            .clone();
        assert_eq!(identity_ref(principal), identity_ref(&uai), "{spec}");
        assert_eq!(identity_ref(cd), identity_ref(&uai), "{spec}");
    }
    let (plan, arm) = arm_of("examples/shortvideo-transcode.yaml");
    assert_eq!(plan.gpu.as_ref().unwrap().delivery, "policy");
    assert_eq!(
        of_type(&arm, "Microsoft.Authorization/policyAssignments").len(),
        1
    );
}
