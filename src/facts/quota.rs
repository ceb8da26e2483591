//! Compute quota names: the `name.value` of the Compute usages API that gpuform checks besides
//! the size's family (whose name comes from the live Resource SKUs read, not from here).
//!
//! Source: `../shared/azure/facts.md` section 1 ([H]) and the usages output the azure-cli tests
//! recorded (`../shared/azure/recordings/az-vm-list-usage-output-shape.json`, derived from
//! Azure/azure-cli vm/_format.py transform_vm_usage_list @08d2306d and the recorded usages of
//! test_vm_usage.yaml); read 2026-12-03. `tests/facts_quota.rs` holds them against that
//! recording.

use super::Source;

/// "Total Regional vCPUs": every regular (non-Spot) VM counts here and against its family.
pub const REGIONAL_VCPUS: &str = "cores";

/// "Total Regional Low-priority vCPUs" (the portal's "Total Regional Spot vCPUs"): Spot VMs
/// count here only.
pub const SPOT_VCPUS: &str = "lowPriorityCores";

pub const SOURCE: Source = Source::doc(
    "../shared/azure/facts.md section 1; recordings/az-vm-list-usage-output-shape.json (Azure/azure-cli vm/_format.py@08d2306d, test_vm_usage.yaml)",
    "2026-12-03",
);

/// `az quota create --resource-type` (the quota's `properties.resourceType`): `dedicated` for
/// regular vCPU quotas (the family's and regional `cores`), `lowPriority` for Spot/low-priority
/// vCPUs (`lowPriorityCores`).
pub const RESOURCE_TYPE_DEDICATED: &str = "dedicated";
pub const RESOURCE_TYPE_LOW_PRIORITY: &str = "lowPriority";

pub const RESOURCE_TYPE_SOURCE: Source = Source::doc(
    "Azure/bicep-types-az generated/quota/microsoft.quota/2021-03-15/types.md (QuotaProperties.resourceType: 'dedicated' | 'lowPriority' | 'serviceSpecific' | 'shared' | 'standard')",
    "2026-12-03",
);

/// The `--resource-type` of a Compute quota named `quota` (a usages `name.value`).
pub fn resource_type(quota: &str) -> &'static str {
    if quota.eq_ignore_ascii_case(SPOT_VCPUS) {
        RESOURCE_TYPE_LOW_PRIORITY
    } else {
        RESOURCE_TYPE_DEDICATED
    }
}

#[cfg(test)]
mod resource_type_tests {
    use super::*;

    #[test]
    fn spot_quota_is_low_priority_and_the_rest_dedicated() {
        assert_eq!(resource_type("lowPriorityCores"), "lowPriority");
        assert_eq!(resource_type("cores"), "dedicated");
        assert_eq!(resource_type("standardNCASv3_T4Family"), "dedicated");
        // the values are the ones the source lists
        for v in [RESOURCE_TYPE_DEDICATED, RESOURCE_TYPE_LOW_PRIORITY] {
            assert!(RESOURCE_TYPE_SOURCE.what.contains(&format!("'{v}'")), "{v}");
        }
    }
}

/// The resource provider of the Quota API (`gpuform quota request`). A subscription that is not
/// registered for it answers 409 `MissingSubscriptionRegistration` (Learn, "Resolve errors for
/// resource provider registration",
/// https://learn.microsoft.com/azure/azure-resource-manager/troubleshooting/error-register-resource-provider,
/// read 2026-12-03); `az provider register --namespace Microsoft.Quota` registers it.
pub const PROVIDER: &str = "Microsoft.Quota";
