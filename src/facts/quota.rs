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

/// The resource provider of the Quota API (`gpuform quota request`). A subscription that is not
/// registered for it answers 409 `MissingSubscriptionRegistration` (Learn, "Resolve errors for
/// resource provider registration",
/// https://learn.microsoft.com/azure/azure-resource-manager/troubleshooting/error-register-resource-provider,
/// read 2026-12-03); `az provider register --namespace Microsoft.Quota` registers it.
pub const PROVIDER: &str = "Microsoft.Quota";
