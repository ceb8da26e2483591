//! Azure Monitor facts the GPU telemetry relies on: how a data collection rule reaches the VMs
//! of each kind of pool.
//!
//! Microsoft's page on DCR associations ("Data collection rule associations", Learn, dated
//! 2026-01-20, read 2026-12-03): an association scoped to a *Uniform* scale set or to a VM
//! reaches its VMs; for a *Flexible* scale set, deploy the agent and associate the DCR with each
//! VM, for which it points to the built-in DCR-association policies. gpuform therefore assigns
//! the built-in `DeployIfNotExists` policy below to the pool's resource group for Flexible
//! pools (it associates every Linux/Windows VM there, including each one a scale-out adds, once
//! it is provisioned: `evaluationDelay: AfterProvisioning`), with a remediation for the VMs that
//! exist before the policy's identity holds its roles.

use super::Source;

/// A built-in policy definition gpuform assigns.
#[derive(Debug, Clone, Copy)]
pub struct BuiltInPolicy {
    pub display_name: &'static str,
    /// The definition's GUID (`/providers/Microsoft.Authorization/policyDefinitions/<id>`).
    pub id: &'static str,
    /// Regions the definition's `if` takes (`field: location, in: [...]`): a VM elsewhere is
    /// never associated.
    pub locations: &'static [&'static str],
    /// `then.details.roleDefinitionIds`: the roles the assignment's identity needs.
    pub role_ids: &'static [&'static str],
    pub source: Source,
}

const COMMON_LOCATIONS: [&str; 57] = [
    "australiacentral",
    "australiacentral2",
    "australiaeast",
    "australiasoutheast",
    "brazilsouth",
    "brazilsoutheast",
    "canadacentral",
    "canadaeast",
    "centralindia",
    "centralus",
    "centraluseuap",
    "eastasia",
    "eastus",
    "eastus2",
    "eastus2euap",
    "francecentral",
    "francesouth",
    "germanynorth",
    "germanywestcentral",
    "israelcentral",
    "italynorth",
    "japaneast",
    "japanwest",
    "jioindiacentral",
    "jioindiawest",
    "koreacentral",
    "koreasouth",
    "malaysiasouth",
    "mexicocentral",
    "northcentralus",
    "northeurope",
    "norwayeast",
    "norwaywest",
    "polandcentral",
    "qatarcentral",
    "southafricanorth",
    "southafricawest",
    "southcentralus",
    "southeastasia",
    "southindia",
    "spaincentral",
    "swedencentral",
    "swedensouth",
    "switzerlandnorth",
    "switzerlandwest",
    "taiwannorth",
    "taiwannorthwest",
    "uaecentral",
    "uaenorth",
    "uksouth",
    "ukwest",
    "westcentralus",
    "westeurope",
    "westindia",
    "westus",
    "westus2",
    "westus3",
];

const fn windows_locations() -> [&'static str; 58] {
    let mut out = [""; 58];
    let mut i = 0;
    while i < 57 {
        out[i] = COMMON_LOCATIONS[i];
        i += 1;
    }
    out[57] = "chilecentral";
    out
}
const WINDOWS_LOCATIONS: [&str; 58] = windows_locations();

/// Monitoring Contributor and Log Analytics Contributor, as both definitions name them.
const DCRA_ROLES: &[&str] = &[
    "749f88d5-cbae-40b8-bcfc-e573ddc772fa",
    "92aaf0da-9dab-42b6-94a3-d43ce8d16293",
];

/// "Configure Linux Virtual Machines to be associated with a Data Collection Rule or a Data
/// Collection Endpoint" (4.3.0). Parameters gpuform sets: `dcrResourceId`, `resourceType`
/// (`Microsoft.Insights/dataCollectionRules`), `scopeToSupportedImages: false` (the GPU images,
/// e.g. microsoft-dsvm ubuntu-hpc, are not in its image list; false takes every VM whose OS disk
/// is Linux).
pub const DCRA_VM_LINUX: BuiltInPolicy = BuiltInPolicy {
    display_name: "Configure Linux Virtual Machines to be associated with a Data Collection Rule or a Data Collection Endpoint",
    id: "58e891b9-ce13-4ac3-86e4-ac3e1f20cb07",
    locations: &COMMON_LOCATIONS,
    role_ids: DCRA_ROLES,
    source: Source::doc(
        "Azure/azure-policy built-in-policies/policyDefinitions/Monitoring/AzureMonitor_DCRA_VM_Linux_DINE.json@05094af972fd93f48e0e1e1a7683f8a831fb5009",
        "2026-12-03",
    ),
};

/// "Configure Windows Virtual Machines to be associated with a Data Collection Rule or a Data
/// Collection Endpoint" (3.5.0); the same parameters (`scopeToSupportedImages: false` takes every
/// VM whose OS disk is Windows).
pub const DCRA_VM_WINDOWS: BuiltInPolicy = BuiltInPolicy {
    display_name: "Configure Windows Virtual Machines to be associated with a Data Collection Rule or a Data Collection Endpoint",
    id: "244efd75-0d92-453c-b9a3-7d73ca36ed52",
    locations: &WINDOWS_LOCATIONS,
    role_ids: DCRA_ROLES,
    source: Source::doc(
        "Azure/azure-policy built-in-policies/policyDefinitions/Monitoring/AzureMonitor_DCRA_VM_Windows_DINE.json@69e0ff0396a9f1104d1e06efbf5d8e48e1abbf76",
        "2026-12-03",
    ),
};

/// The page that says a Flexible scale set's VMs each need their own association.
pub const DCRA_FLEXIBLE: Source = Source::doc(
    "Learn, the page on data collection rule associations (dated 2026-01-20, as issue 20 quotes it: associate the DCR with each VM of a Flexible scale set; the built-in DCR-association policies)",
    "2026-12-03",
);

/// "A remediation may not be changed or replaced while it is active": a PUT of a remediation
/// name that is still running is refused (`InvalidUpdateRemediationRequest`, HTTP 400), and a
/// compliance scan (`ReEvaluateCompliance`) has no guaranteed end. So each deployment starts a
/// remediation of its own name (`crate::plan::gpu_monitoring::remediation_name`). No Microsoft
/// page states the rule; Azure's answer is quoted in Azure/azure-policy#1234 (excerpt in
/// `tests/fixtures/sources/deploy-refusals.json`).
pub const REMEDIATION_ACTIVE: Source = Source::doc(
    "https://github.com/Azure/azure-policy/issues/1234 (InvalidUpdateRemediationRequest: \"The request to update remediation '<name>' is invalid. A remediation may not be changed or replaced while it is active.\")",
    "2026-12-05",
);

/// "A policy or initiative is newly assigned to a scope. It takes around five minutes for the
/// assignment to be applied to the defined scope", and a resource created in a scope with an
/// assignment is evaluated at its creation ("This event doesn't cause an evaluation of other
/// resources"). So a VM created before the new assignment applies is associated only by a
/// remediation (or the daily scan), which is why the remediation starts after the standby pool:
/// the pool builds its VMs after its PUT.
pub const ASSIGNMENT_APPLIES: Source = Source::doc(
    "https://learn.microsoft.com/azure/governance/policy/how-to/get-compliance-data (MicrosoftDocs/azure-docs articles/governance/policy/how-to/get-compliance-data.md@01a70e6d63198cb512640f2218aefbba2bf9f861, \"Evaluation triggers\")",
    "2026-12-05",
);
