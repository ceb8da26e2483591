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

/// Learn, "Resolve errors for resource quotas" (MicrosoftDocs/azure-docs
/// `articles/azure-resource-manager/troubleshooting/error-resource-quota.md`@0db19635, ms.date
/// 04/05/2023): a template that exceeds a vCPU quota fails with `OperationNotAllowed` ("Operation
/// results in exceeding quota limits of Core. Maximum allowed: 4, Current in use: 4, Additional
/// requested: 2."); one that exceeds a per-resource-group count of resources of one type fails
/// with `ResourceQuotaExceeded` ("... please delete some resources of this type before creating a
/// new one"). Held by `tests/facts_quota.rs` against the excerpt in
/// `tests/fixtures/sources/quota-errors.json`.
pub const QUOTA_ERRORS: Source = Source::doc(
    "MicrosoftDocs/azure-docs articles/azure-resource-manager/troubleshooting/error-resource-quota.md@0db19635eb99ef3dd8c4e692198c0a9bcf4b23b3 (https://learn.microsoft.com/azure/azure-resource-manager/troubleshooting/error-resource-quota)",
    "2026-12-03",
);

/// The code of a vCPU quota error (the Learn page's first symptom). The code is broad (it is
/// also used for operations refused for other reasons), so gpuform reads it as a quota error only
/// when its message speaks of a quota.
pub const VCPU_QUOTA_CODE: &str = "OperationNotAllowed";

/// The code of a per-resource-group resource count limit: not a vCPU quota, so no quota
/// request raises it; Microsoft's fix is to delete resources of that type.
pub const RESOURCE_COUNT_CODE: &str = "ResourceQuotaExceeded";

/// `QuotaExceeded`: the code ARM's template validation gives the same vCPU quota message
/// ("...exceeding approved Total Regional Cores quota...") in the responses gpuform's deploy
/// tests replay. No Microsoft page found lists it: gpuform's assumption, read like
/// `OperationNotAllowed` (a quota error only when the message speaks of a quota).
pub const VCPU_QUOTA_CODE_ASSUMED: &str = "QuotaExceeded";
pub const VCPU_QUOTA_CODE_ASSUMED_SOURCE: Source = Source::assumption(
    "QuotaExceeded as a vCPU quota error code: seen in ARM validation answers, not on Microsoft's quota error page",
    "2026-12-03",
);

/// What a quota error code in a deployment's error tree means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuotaError {
    /// A vCPU quota (regional, family or Spot) is short: a quota request raises it.
    Vcpus,
    /// Too many resources of one type in a resource group: delete some (no request raises it).
    ResourceCount,
}

/// The quota error an error node with `code` and `message` is, if any.
pub fn quota_error(code: &str, message: &str) -> Option<QuotaError> {
    let speaks_of_quota = message.to_ascii_lowercase().contains("quota");
    if code.eq_ignore_ascii_case(RESOURCE_COUNT_CODE) {
        Some(QuotaError::ResourceCount)
    } else if (code.eq_ignore_ascii_case(VCPU_QUOTA_CODE)
        || code.eq_ignore_ascii_case(VCPU_QUOTA_CODE_ASSUMED))
        && speaks_of_quota
    {
        Some(QuotaError::Vcpus)
    } else {
        None
    }
}
