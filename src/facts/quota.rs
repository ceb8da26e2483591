//! Microsoft.Quota facts used in the commands gpuform prints.

use super::Source;

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
    if quota.eq_ignore_ascii_case("lowPriorityCores") {
        RESOURCE_TYPE_LOW_PRIORITY
    } else {
        RESOURCE_TYPE_DEDICATED
    }
}

#[cfg(test)]
mod tests {
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
