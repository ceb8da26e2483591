//! `gpuform deploy` of the serving examples (issue 36) against the HTTPS fake ARM that refuses
//! what Azure refuses (tests/common/refuse.rs):
//!
//! - both examples deploy against a subscription with what they need;
//! - a subscription without `EnableApplicationGatewayNetworkIsolation` refuses the private-only
//!   gateway with Azure's code and message, and the user reads the spec's place that asks for
//!   the gateway (file:line:col), the command that registers the feature and what to do next;
//! - what Azure refuses of the serving resources gpuform renders (a Basic load balancer, a probe
//!   on a port Azure does not probe, an API version the type data does not list) is refused.

mod common;
mod sources;

use common::refuse::AzureFacts;
use common::*;
use serde_json::json;
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, ResponseTemplate};

const RG: &str = "rg-llm-prod";

fn deployment_re(suffix: &str) -> String {
    format!(
        r"^/subscriptions/{SUB}/resourcegroups/{RG}/providers/Microsoft\.Resources/deployments/[^/]+{suffix}$"
    )
}

/// A deployment ARM accepts and finishes (after the refusals, which win where they match).
fn mount_success(fake: &FakeAzure, outputs: serde_json::Value) {
    let status = fake.url(&format!(
        "/subscriptions/{SUB}/resourcegroups/{RG}/providers/Microsoft.Resources/deployments/d/operationStatuses/08584?api-version=2025-04-01"
    ));
    fake.mount(
        Mock::given(method("PUT"))
            .and(path_regex(deployment_re("")))
            .respond_with(
                ResponseTemplate::new(201)
                    .insert_header("Azure-AsyncOperation", status.as_str())
                    .set_body_json(json!({"name": "d", "properties": {"provisioningState": "Accepted", "mode": "Incremental"}})),
            )
            .with_priority(20),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(deployment_re("/operationStatuses/08584")))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"status": "Succeeded"}))),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(deployment_re("/operations")))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"value": []}))),
    );
    fake.mount(
        Mock::given(method("GET"))
            .and(path_regex(deployment_re("")))
            .respond_with(ResponseTemplate::new(200).set_body_json(
                json!({"name": "d", "properties": {
                    "provisioningState": "Succeeded", "duration": "PT14M2S", "mode": "Incremental",
                    "outputs": outputs
                }}),
            )),
    );
}

fn deploy(fake: &FakeAzure, example: &str) -> (i32, String, String) {
    let out = fake
        .gpuform()
        .arg("deploy")
        .arg(examples(example))
        .args([
            "--resource-group",
            RG,
            "--yes",
            "--skip-preflight",
            "--arm-endpoint",
        ])
        .arg(format!("{}/", fake.base))
        .args(["--retry-delay-ms", "50", "--poll-interval", "0.05"])
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    (out.status.code().unwrap_or(-1), o, e)
}

#[test]
fn both_serving_examples_deploy_where_azure_has_what_they_need() {
    for (example, region) in [
        ("llm-chat-vllm.yaml", "westeurope"),
        ("llm-70b-tensor-parallel.yaml", "eastus2"),
    ] {
        let fake = FakeArm::new()
            .resource_group(RG, region)
            .refusing_what_azure_refuses()
            .start();
        mount_success(
            &fake,
            json!({"gatewayPrivateIp": {"type": "String", "value": "10.60.2.254"}}),
        );
        let (code, o, e) = deploy(&fake, example);
        assert_eq!(code, 0, "{example}\n{o}\n{e}");
        assert!(o.contains("succeeded"), "{example}: {o}");
    }
}

#[test]
fn a_subscription_without_the_gateway_feature_refuses_with_a_located_fix() {
    let f = gpuform::facts::serving::GATEWAY_FEATURE;
    let fake = FakeArm::new()
        .resource_group(RG, "westeurope")
        .refusing(AzureFacts::load().without_feature(f.namespace, f.name))
        .start();
    let (code, o, e) = deploy(&fake, "llm-chat-vllm.yaml");
    if std::env::var_os("GPUFORM_TEST_SHOW").is_some() {
        eprintln!("{o}\n{e}");
    }
    assert_eq!(code, 1, "{o}\n{e}");
    assert!(o.contains("was rejected by ARM before it started"), "{o}");
    // Azure's code and message, as the troubleshooting page quotes them
    assert!(
        o.contains(&format!(
            "{}: Application Gateway without Public IP is not supported for the selected SKU tier Standard_v2",
            gpuform::facts::serving::GATEWAY_FEATURE_ERROR_CODE
        )),
        "{o}"
    );
    // the fix: where the spec asks for the gateway, the registration, the next step
    let text = std::fs::read_to_string(examples("llm-chat-vllm.yaml")).unwrap();
    let line = text
        .lines()
        .position(|l| l.trim_start().starts_with("kind: applicationGateway"))
        .unwrap()
        + 1;
    assert!(
        o.contains(&format!("llm-chat-vllm.yaml:{line}:7")),
        "no file:line:col {line}: {o}"
    );
    assert!(o.contains(&f.command()), "{o}");
    assert!(o.contains("then deploy again"), "{o}");
    assert!(!o.contains("{\"error\""), "{o}");
}

#[test]
fn what_azure_refuses_of_a_serving_frontend_is_refused() {
    let facts = AzureFacts::load();
    let rendered = sources::render_all();
    let arm = &rendered
        .iter()
        .find(|r| r.spec.ends_with("llm-70b-tensor-parallel.yaml"))
        .unwrap()
        .arm;
    let body = |t: &serde_json::Value| {
        serde_json::to_vec(&json!({"properties": {"mode": "Incremental", "template": t}})).unwrap()
    };
    assert_eq!(facts.refusal(&body(arm)), None);
    // the rendered template with one thing Azure refuses
    let changed = |ty: &str, change: &dyn Fn(&mut serde_json::Value)| {
        let mut t = arm.clone();
        let r = t["resources"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|r| r["type"] == ty)
            .unwrap();
        change(r);
        t
    };
    let lb = gpuform::facts::serving::LOAD_BALANCER_TYPE;
    let agw = gpuform::facts::serving::GATEWAY_TYPE;
    let cases = [
        (
            changed(lb, &|r| r["sku"]["name"] = json!("Basic")),
            "BadRequest",
            "On September 30, 2025, Basic Load Balancer was retired",
        ),
        (
            changed(lb, &|r| {
                r["properties"]["probes"][0]["properties"]["port"] = json!(25)
            }),
            "BadRequest",
            "HTTP probes may not target port 25",
        ),
        (
            changed(agw, &|r| r["apiVersion"] = json!("2025-05-02")),
            "NoRegisteredProviderFound",
            "No registered resource provider found for location 'eastus2' and API version '2025-05-02' for type 'applicationGateways'.",
        ),
    ];
    for (template, code, message) in cases {
        assert_ne!(&template, arm, "{code}: the case changed nothing");
        let (c, m) = facts
            .refusal(&body(&template))
            .unwrap_or_else(|| panic!("{message}: not refused"));
        assert_eq!(c, code);
        assert!(m.starts_with(message), "{m}");
    }
}
