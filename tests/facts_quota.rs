//! Compute quota names held against the usages Azure returns (the azure-cli recording of
//! `az vm list-usage -o json`, `../shared/azure/recordings/`, else the dated copy in
//! `tests/fixtures/sources/`), never against the code's own constants.

mod sources;

use gpuform::facts::quota::{REGIONAL_VCPUS, SOURCE, SPOT_VCPUS};
use sources::{read_json, source_path};

#[test]
fn the_regional_and_spot_quota_names_are_the_ones_azure_returns() {
    let doc = read_json(&source_path(
        "azure/recordings/az-vm-list-usage-output-shape.json",
        "az-vm-list-usage-output-shape.json",
    ));
    let usages = doc["az_vm_list_usage_o_json"].as_array().expect("usages");
    let local = |value: &str| {
        usages
            .iter()
            .find(|u| u["name"]["value"] == value)
            .map(|u| u["localName"].as_str().unwrap_or_default().to_owned())
    };
    assert_eq!(
        local(REGIONAL_VCPUS).as_deref(),
        Some("Total Regional vCPUs")
    );
    assert_eq!(
        local(SPOT_VCPUS).as_deref(),
        Some("Total Regional Low-priority vCPUs")
    );
    assert!(!SOURCE.assumption);
}

#[test]
fn the_quota_error_codes_are_the_ones_microsoft_documents() {
    use gpuform::facts::quota::{
        QUOTA_ERRORS, QuotaError, RESOURCE_COUNT_CODE, VCPU_QUOTA_CODE, VCPU_QUOTA_CODE_ASSUMED,
        VCPU_QUOTA_CODE_ASSUMED_SOURCE, quota_error,
    };
    let doc = read_json(&sources::root().join("tests/fixtures/sources/quota-errors.json"));
    assert!(QUOTA_ERRORS.what.contains(doc["commit"].as_str().unwrap()));
    assert!(QUOTA_ERRORS.what.contains(doc["path"].as_str().unwrap()));
    assert_eq!(QUOTA_ERRORS.read, doc["read"].as_str().unwrap());
    let quote = |code: &str| {
        doc["errors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["code"] == code)
            .and_then(|e| e["quote"].as_str())
            .unwrap_or_else(|| panic!("{code} is not on Microsoft's page"))
            .to_string()
    };
    // each code gpuform reads as a quota error, classified from Microsoft's own message
    let vcpus = quote(VCPU_QUOTA_CODE);
    let msg = vcpus.split("Message=").nth(1).unwrap();
    assert_eq!(quota_error(VCPU_QUOTA_CODE, msg), Some(QuotaError::Vcpus));
    let count = quote(RESOURCE_COUNT_CODE);
    let msg = count.split("Message=").nth(1).unwrap();
    assert!(msg.contains("delete some resources"));
    assert_eq!(
        quota_error(RESOURCE_COUNT_CODE, msg),
        Some(QuotaError::ResourceCount)
    );
    // OperationNotAllowed is broad: without a quota in its message it is not one
    assert_eq!(
        quota_error(
            VCPU_QUOTA_CODE,
            "Operation is not allowed on a deallocated VM."
        ),
        None
    );
    // the code the page does not list is an assumption, and said to be one
    assert!(
        doc.to_string()
            .find(&format!("\"{VCPU_QUOTA_CODE_ASSUMED}\""))
            .is_none()
    );
    assert!(VCPU_QUOTA_CODE_ASSUMED_SOURCE.assumption);
}
