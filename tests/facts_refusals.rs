//! The fake ARM refuses what Azure refuses for the facts layer's classes (tests/common/refuse.rs),
//! and `gpuform deploy` reports each refusal so a person can act on it.
//!
//! - Every template gpuform renders passes the fake (nothing to refuse).
//! - Yesterday's wrong Monitoring Metrics Publisher GUID, an unpublished API version and an
//!   unknown extension type are refused with Azure's codes.
//! - `gpuform deploy` against an Azure that lacks one of the facts the template relies on prints
//!   the code, Azure's message and the resource group, and exits 1.

mod common;
mod sources;

use common::refuse::AzureFacts;
use common::*;
use serde_json::json;

const RG: &str = "rg-shortvideo-prod";

fn put_body(template: &serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(&json!({"properties": {"mode": "Incremental", "template": template}}))
        .unwrap()
}

#[test]
fn every_rendered_template_passes_and_wrong_facts_are_refused_with_azures_codes() {
    let facts = AzureFacts::load();
    let rendered = sources::render_all();
    for r in &rendered {
        assert_eq!(
            facts.refusal(&put_body(&r.arm)),
            None,
            "{}",
            r.spec.display()
        );
    }
    let arm = serde_json::to_string(
        &rendered
            .iter()
            .find(|r| r.spec.ends_with("shortvideo-transcode.yaml"))
            .unwrap()
            .arm,
    )
    .unwrap();
    let right = gpuform::facts::roles::MONITORING_METRICS_PUBLISHER.id;
    assert!(arm.contains(right));
    let cases = [
        // the GUID every deployment carried before issue 19
        (
            arm.replace(right, "3913510d-42f4-4d42-a2a6-6cf4e5e8ba81"),
            "RoleDefinitionDoesNotExist",
            "The specified role definition with ID '3913510d42f44d42a2a66cf4e5e8ba81' does not exist.",
        ),
        (
            arm.replace("\"2022-10-01\"", "\"2022-10-02\""),
            "NoRegisteredProviderFound",
            "No registered resource provider found for location 'eastus2' and API version '2022-10-02' for type 'autoscaleSettings'.",
        ),
        (
            arm.replace(
                "\"Microsoft.KeyVault/vaults\"",
                "\"Microsoft.KeyVault/vault\"",
            ),
            "InvalidResourceType",
            "The resource type 'vault' could not be found in the namespace 'Microsoft.KeyVault'",
        ),
        (
            arm.replace("\"NvidiaGpuDriverLinux\"", "\"NvidiaGpuDriver\""),
            "ArtifactNotFound",
            "Extension with publisher 'Microsoft.HpcCompute', type 'NvidiaGpuDriver', and type handler version '1.6' could not be found in the extension repository.",
        ),
    ];
    for (template, code, message) in cases {
        assert_ne!(template, arm, "{code}: the case changed nothing");
        let v: serde_json::Value = serde_json::from_str(&template).unwrap();
        let (c, m) = facts
            .refusal(&put_body(&v))
            .unwrap_or_else(|| panic!("{code}: not refused"));
        assert_eq!(c, code);
        assert!(m.starts_with(message), "{m}");
    }
}

/// `gpuform deploy` of the shortvideo example against an Azure that knows `facts`.
fn deploy_against(facts: AzureFacts) -> (i32, String, String) {
    let fake = FakeArm::new()
        .resource_group(RG, "eastus2")
        .refusing(facts)
        .start();
    let out = fake
        .gpuform()
        .arg("deploy")
        .arg(spec())
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

fn assert_reported(code: i32, o: &str, e: &str, inner: &str, message: &str) {
    assert_eq!(code, 1, "{o}\n{e}");
    assert!(
        o.contains(&format!(
            "was rejected by ARM before it started (resource group {RG})"
        )),
        "{o}"
    );
    assert!(
        o.contains("  InvalidTemplateDeployment: The template deployment"),
        "{o}"
    );
    assert!(o.contains(&format!("    {inner}: {message}")), "{o}");
    // nothing secret, nothing raw: no JSON braces of the answer in what people read
    assert!(!o.contains("{\"error\""), "{o}");
}

#[test]
fn deploy_reports_a_role_azure_does_not_have() {
    let guid = gpuform::facts::roles::MONITORING_METRICS_PUBLISHER.id;
    let (c, o, e) = deploy_against(AzureFacts::load().without_role(guid));
    assert_reported(
        c,
        &o,
        &e,
        "RoleDefinitionDoesNotExist",
        &format!(
            "The specified role definition with ID '{}' does not exist.",
            guid.replace('-', "")
        ),
    );
}

#[test]
fn deploy_reports_an_api_version_azure_does_not_have() {
    let v = gpuform::facts::api::API.vmss;
    let (c, o, e) = deploy_against(
        AzureFacts::load().without_api_version("Microsoft.Compute/virtualMachineScaleSets", v),
    );
    assert_reported(
        c,
        &o,
        &e,
        "NoRegisteredProviderFound",
        &format!(
            "No registered resource provider found for location 'eastus2' and API version '{v}' for type 'virtualMachineScaleSets'."
        ),
    );
}

#[test]
fn deploy_reports_an_extension_azure_does_not_publish() {
    let x = gpuform::facts::extensions::NVIDIA_GPU_DRIVER_LINUX;
    let (c, o, e) = deploy_against(AzureFacts::load().without_extension(x.publisher, x.kind));
    assert_reported(
        c,
        &o,
        &e,
        "ArtifactNotFound",
        &format!(
            "Extension with publisher '{}', type '{}', and type handler version '{}' could not be found in the extension repository.",
            x.publisher, x.kind, x.type_handler_version
        ),
    );
}
