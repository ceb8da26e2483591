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

/// One cloud's copy of a built-in policy definition: Azure Government has its own files
/// (`built-in-policies/policyDefinitions/Azure Government/...`) with the same name (GUID), its own
/// version and its own region list.
#[derive(Debug, Clone, Copy)]
pub struct CloudDefinition {
    /// The cloud, as `az cloud list` names it.
    pub cloud: &'static str,
    pub version: &'static str,
    /// Regions the definition's `if` takes (`field: location, in: [...]`, or the default of its
    /// `listOfApplicableLocations` parameter, which gpuform does not set): a VM elsewhere is
    /// never associated.
    pub locations: &'static [&'static str],
    pub source: Source,
}

/// A built-in policy definition gpuform assigns.
#[derive(Debug, Clone, Copy)]
pub struct BuiltInPolicy {
    pub display_name: &'static str,
    /// The definition's GUID (`/providers/Microsoft.Authorization/policyDefinitions/<id>`), the
    /// same in every cloud that has it.
    pub id: &'static str,
    /// `then.details.roleDefinitionIds`: the roles the assignment's identity needs.
    pub role_ids: &'static [&'static str],
    /// The definition per cloud. A cloud without a file of it (Azure operated by 21Vianet: the
    /// repository has no folder for it) has no definition gpuform can rely on.
    pub clouds: &'static [CloudDefinition],
}

impl BuiltInPolicy {
    /// The definition in `cloud` (`az cloud list`'s name), if the repository has one.
    pub fn in_cloud(&self, cloud: &str) -> Option<&'static CloudDefinition> {
        self.clouds
            .iter()
            .find(|c| c.cloud.eq_ignore_ascii_case(cloud))
    }

    /// Does the definition act in `region` of `cloud`?
    pub fn acts_in(&self, cloud: &str, region: &str) -> bool {
        self.in_cloud(cloud)
            .is_some_and(|c| c.locations.iter().any(|l| l.eq_ignore_ascii_case(region)))
    }
}

/// Where the definitions were read: Azure/azure-policy at this commit.
pub const POLICY_REPO: &str = "Azure/azure-policy";
pub const POLICY_COMMIT: &str = "f4a50bacae07ddb096943c597669bcae494a6e29";
const READ: &str = "2026-12-05";

const LINUX_PUBLIC: [&str; 61] = [
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
    "chilecentral",
    "eastasia",
    "eastus",
    "eastus2",
    "eastus2euap",
    "francecentral",
    "francesouth",
    "germanynorth",
    "germanywestcentral",
    "indonesiacentral",
    "israelcentral",
    "italynorth",
    "japaneast",
    "japanwest",
    "jioindiacentral",
    "jioindiawest",
    "koreacentral",
    "koreasouth",
    "malaysiasouth",
    "malaysiawest",
    "mexicocentral",
    "newzealandnorth",
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

const WINDOWS_PUBLIC: [&str; 59] = [
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
    "chilecentral",
    "newzealandnorth",
];

const GOVERNMENT: [&str; 5] = [
    "usgovvirginia",
    "usgovarizona",
    "usgovtexas",
    "usdodcentral",
    "usdodeast",
];

/// Monitoring Contributor and Log Analytics Contributor, as both definitions name them.
const DCRA_ROLES: &[&str] = &[
    "749f88d5-cbae-40b8-bcfc-e573ddc772fa",
    "92aaf0da-9dab-42b6-94a3-d43ce8d16293",
];

/// "Configure Linux Virtual Machines to be associated with a Data Collection Rule or a Data
/// Collection Endpoint". Parameters gpuform sets: `dcrResourceId`, `resourceType`
/// (`Microsoft.Insights/dataCollectionRules`), `scopeToSupportedImages: false` (the GPU images,
/// e.g. microsoft-dsvm ubuntu-hpc, are not in its image list; false takes every VM whose OS disk
/// is Linux). Public cloud 4.7.0 (its list now includes indonesiacentral, malaysiawest,
/// newzealandnorth and chilecentral), Azure Government 2.2.0 (its own list: usgovvirginia,
/// usgovarizona, usgovtexas, usdodcentral, usdodeast).
pub const DCRA_VM_LINUX: BuiltInPolicy = BuiltInPolicy {
    display_name: "Configure Linux Virtual Machines to be associated with a Data Collection Rule or a Data Collection Endpoint",
    id: "58e891b9-ce13-4ac3-86e4-ac3e1f20cb07",
    role_ids: DCRA_ROLES,
    clouds: &[
        CloudDefinition {
            cloud: "AzureCloud",
            version: "4.7.0",
            locations: &LINUX_PUBLIC,
            source: Source::doc(
                "Azure/azure-policy built-in-policies/policyDefinitions/Monitoring/AzureMonitor_DCRA_VM_Linux_DINE.json@f4a50bacae07ddb096943c597669bcae494a6e29",
                READ,
            ),
        },
        CloudDefinition {
            cloud: "AzureUSGovernment",
            version: "2.2.0",
            locations: &GOVERNMENT,
            source: Source::doc(
                "Azure/azure-policy built-in-policies/policyDefinitions/Azure Government/Monitoring/AzureMonitor_DCRA_VM_Linux_DINE.json@f4a50bacae07ddb096943c597669bcae494a6e29",
                READ,
            ),
        },
    ],
};

/// "Configure Windows Virtual Machines to be associated with a Data Collection Rule or a Data
/// Collection Endpoint"; the same parameters (`scopeToSupportedImages: false` takes every VM
/// whose OS disk is Windows). Public cloud 3.6.0 (its regions are the default of the
/// `listOfApplicableLocations` parameter, which gpuform leaves unset), Azure Government
/// 2.5.0.
pub const DCRA_VM_WINDOWS: BuiltInPolicy = BuiltInPolicy {
    display_name: "Configure Windows Virtual Machines to be associated with a Data Collection Rule or a Data Collection Endpoint",
    id: "244efd75-0d92-453c-b9a3-7d73ca36ed52",
    role_ids: DCRA_ROLES,
    clouds: &[
        CloudDefinition {
            cloud: "AzureCloud",
            version: "3.6.0",
            locations: &WINDOWS_PUBLIC,
            source: Source::doc(
                "Azure/azure-policy built-in-policies/policyDefinitions/Monitoring/AzureMonitor_DCRA_VM_Windows_DINE.json@f4a50bacae07ddb096943c597669bcae494a6e29",
                READ,
            ),
        },
        CloudDefinition {
            cloud: "AzureUSGovernment",
            version: "2.5.0",
            locations: &GOVERNMENT,
            source: Source::doc(
                "Azure/azure-policy built-in-policies/policyDefinitions/Azure Government/Monitoring/AzureMonitor_DCRA_VM_Windows_DINE.json@f4a50bacae07ddb096943c597669bcae494a6e29",
                READ,
            ),
        },
    ],
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
