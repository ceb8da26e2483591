//! API versions of every resource type the render emits.
//!
//! Source for every version: the Azure type data the Bicep compiler uses, Azure/bicep-types-az
//! `generated/**/types.json` at commit 1f896de2db966ad91e8f7d7d981e11d32e4f5d8d (generated from
//! the azure-rest-api-specs swagger), as carried by the conformance kit in
//! `../shared/conformance/types/all-versions.json` (read 2026-12-03). `tests/facts_sources.rs`
//! checks every entry of [`API::entries`], and every `type`/`apiVersion` pair in every rendered
//! template, against that file. Where a field does not take the newest version, its comment
//! says why.

use serde::Serialize;

use super::Source;

/// Where the versions below were read.
pub const SOURCE: Source = Source::doc(
    "Azure/bicep-types-az generated/**/types.json@1f896de2db966ad91e8f7d7d981e11d32e4f5d8d \
     (../shared/conformance/types/all-versions.json)",
    "2026-12-03",
);

/// API versions of every resource type the render emits, each one the conformance kit's Azure
/// type data (bicep-types-az) carries. All are GA except diagnosticSettings; where a field
/// does not take the newest version, its comment says why.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiVersions {
    /// virtualNetworks, subnets, networkSecurityGroups, publicIPAddresses, natGateways,
    /// privateEndpoints (+ privateDnsZoneGroups).
    pub network: &'static str,
    pub private_dns: &'static str,
    pub identity: &'static str,
    pub role_assignments: &'static str,
    /// vaults and vaults/keys.
    pub key_vault: &'static str,
    pub disk_encryption_sets: &'static str,
    /// 2025-11-01: the first version whose SecurityTypes include `Standard` without the
    /// UseStandardSecurityType feature (Learn, "Trusted Launch as default"). The render always
    /// sets securityType, so the version's Trusted-Launch default never applies.
    pub vmss: &'static str,
    /// `networkProfile.networkApiVersion` of Flexible scale sets.
    pub vmss_network: &'static str,
    pub autoscale: &'static str,
    pub service_bus: &'static str,
    pub storage: &'static str,
    pub log_analytics: &'static str,
    pub action_groups: &'static str,
    pub metric_alerts: &'static str,
    /// 2021-05-01-preview, the version Azure Verified Modules use. The render names explicit
    /// log categories (no `categoryGroup`), but the only GA version in the type data,
    /// 2016-09-01, is the legacy ServiceDiagnosticSettings shape (a fixed name and a required
    /// `location`), not the extension resource scoped to a resource.
    pub diagnostic_settings: &'static str,
    pub budgets: &'static str,
    /// dataCollectionEndpoints, dataCollectionRules, dataCollectionRuleAssociations.
    pub data_collection: &'static str,
    /// workspaces/tables (the workspace's version).
    pub log_analytics_tables: &'static str,
    pub scheduled_query_rules: &'static str,
    pub workbooks: &'static str,
    /// The dev box's auto-shutdown schedule (`Microsoft.DevTestLab/schedules`).
    pub dev_test_lab: &'static str,
    /// The dev box's start workflow (`Microsoft.Logic/workflows`, Consumption).
    pub logic: &'static str,
}

pub const API: ApiVersions = ApiVersions {
    network: "2025-05-01",
    private_dns: "2024-06-01",
    identity: "2024-11-30",
    role_assignments: "2022-04-01",
    key_vault: "2025-05-01",
    disk_encryption_sets: "2025-01-02",
    vmss: "2025-11-01",
    vmss_network: "2022-11-01",
    autoscale: "2022-10-01",
    service_bus: "2024-01-01",
    storage: "2025-01-01",
    log_analytics: "2025-02-01",
    action_groups: "2023-01-01",
    metric_alerts: "2018-03-01",
    diagnostic_settings: "2021-05-01-preview",
    budgets: "2024-08-01",
    data_collection: "2023-03-11",
    log_analytics_tables: "2025-02-01",
    scheduled_query_rules: "2023-12-01",
    workbooks: "2023-06-01",
    dev_test_lab: "2018-09-15",
    logic: "2019-05-01",
};

impl ApiVersions {
    /// Every (resource type, version) pair these versions are used for, for the test that holds
    /// them against the type data. `vmss_network` is the NIC version a Flexible scale set's
    /// profile declares (`Microsoft.Network/networkInterfaces`); `vmss` also serves the dev
    /// box's `Microsoft.Compute/virtualMachines`.
    pub fn entries(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("Microsoft.Network/virtualNetworks", self.network),
            ("Microsoft.Network/virtualNetworks/subnets", self.network),
            ("Microsoft.Network/networkSecurityGroups", self.network),
            ("Microsoft.Network/publicIPAddresses", self.network),
            ("Microsoft.Network/natGateways", self.network),
            ("Microsoft.Network/routeTables", self.network),
            ("Microsoft.Network/privateEndpoints", self.network),
            (
                "Microsoft.Network/privateEndpoints/privateDnsZoneGroups",
                self.network,
            ),
            ("Microsoft.Network/privateDnsZones", self.private_dns),
            (
                "Microsoft.Network/privateDnsZones/virtualNetworkLinks",
                self.private_dns,
            ),
            (
                "Microsoft.ManagedIdentity/userAssignedIdentities",
                self.identity,
            ),
            (
                "Microsoft.Authorization/roleAssignments",
                self.role_assignments,
            ),
            ("Microsoft.KeyVault/vaults", self.key_vault),
            ("Microsoft.KeyVault/vaults/keys", self.key_vault),
            (
                "Microsoft.Compute/diskEncryptionSets",
                self.disk_encryption_sets,
            ),
            ("Microsoft.Compute/virtualMachineScaleSets", self.vmss),
            ("Microsoft.Compute/virtualMachines", self.vmss),
            ("Microsoft.Compute/virtualMachines/extensions", self.vmss),
            ("Microsoft.Network/networkInterfaces", self.vmss_network),
            ("Microsoft.Insights/autoscalesettings", self.autoscale),
            ("Microsoft.ServiceBus/namespaces", self.service_bus),
            ("Microsoft.ServiceBus/namespaces/queues", self.service_bus),
            ("Microsoft.Storage/storageAccounts", self.storage),
            (
                "Microsoft.Storage/storageAccounts/queueServices/queues",
                self.storage,
            ),
            (
                "Microsoft.OperationalInsights/workspaces",
                self.log_analytics,
            ),
            ("Microsoft.Insights/actionGroups", self.action_groups),
            ("Microsoft.Insights/metricAlerts", self.metric_alerts),
            (
                "Microsoft.Insights/diagnosticSettings",
                self.diagnostic_settings,
            ),
            ("Microsoft.Consumption/budgets", self.budgets),
            (
                "Microsoft.Insights/dataCollectionEndpoints",
                self.data_collection,
            ),
            (
                "Microsoft.Insights/dataCollectionRules",
                self.data_collection,
            ),
            (
                "Microsoft.Insights/dataCollectionRuleAssociations",
                self.data_collection,
            ),
            (
                "Microsoft.OperationalInsights/workspaces/tables",
                self.log_analytics_tables,
            ),
            (
                "Microsoft.Insights/scheduledQueryRules",
                self.scheduled_query_rules,
            ),
            ("Microsoft.Insights/workbooks", self.workbooks),
            ("Microsoft.DevTestLab/schedules", self.dev_test_lab),
            ("Microsoft.Logic/workflows", self.logic),
        ]
    }
}
