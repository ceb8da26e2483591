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
