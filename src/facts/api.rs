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
    /// privateEndpoints (+ privateDnsZoneGroups); serving's loadBalancers,
    /// applicationGateways and privateLinkServices.
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
    /// log categories (no `categoryGroup`), but the type data's two GA versions, 2015-07-01 and
    /// 2016-09-01 (monitor_1 types.json of each), are the legacy ServiceDiagnosticSettings shape
    /// (their bodies carry a `location`; neither has `logAnalyticsDestinationType` nor
    /// `eventHubName`), not the extension resource 2021-05-01-preview describes.
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
    /// The built-in DCR-association policy a Flexible pool assigns
    /// (`Microsoft.Authorization/policyAssignments`; newest GA in bicep-types-az).
    pub policy_assignments: &'static str,
    /// Its remediation for the VMs that exist before it acts
    /// (`Microsoft.PolicyInsights/remediations`; newest GA in bicep-types-az).
    pub policy_remediations: &'static str,
    /// The Application Insights component a serving pool's GPU scale rule reads
    /// (`Microsoft.Insights/components`; 2020-02-02, the newest GA in bicep-types-az, the first
    /// with `WorkspaceResourceId` and `DisableLocalAuth` outside a preview).
    pub app_insights: &'static str,
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
    policy_assignments: "2026-07-01",
    policy_remediations: "2024-10-01",
    app_insights: "2020-02-02",
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
            // serving (issue 36): the internal load balancer, the private Application
            // Gateway v2 and the Private Link service
            ("Microsoft.Network/loadBalancers", self.network),
            ("Microsoft.Network/applicationGateways", self.network),
            ("Microsoft.Network/privateLinkServices", self.network),
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
            (
                "Microsoft.Authorization/policyAssignments",
                self.policy_assignments,
            ),
            (
                "Microsoft.PolicyInsights/remediations",
                self.policy_remediations,
            ),
            ("Microsoft.Insights/components", self.app_insights),
        ]
    }
}

// Versions the ARM client calls (reads, deployments, day-two operations). Each names the
// azure-rest-api-specs file (or Learn REST page) it was checked against; the ones that are
// resource types are also held against the type data by `tests/facts_api.rs`
// ([`CLIENT_RESOURCE_TYPES`]). Moved here from the modules that call them, which re-export
// them under the same names.

/// Resource SKUs list: azure-rest-api-specs
/// specification/compute/resource-manager/Microsoft.Compute/Skus/stable/2021-07-01/examples/skus/ListAvailableResourceSkusForARegion.json
/// @dd68c545 (the latest Skus API; `../shared/azure/recordings/README.md`, facts.md section 2).
pub const SKUS_API: &str = "2021-07-01";

/// Compute usages (`…/providers/Microsoft.Compute/locations/{loc}/usages`): ComputeRP
/// stable/2024-11-01 in azure-rest-api-specs (facts.md section 2 lists the ComputeRP folders;
/// no commit recorded for this file).
pub const USAGES_API: &str = "2024-11-01";

/// Provider registration state (`GET /subscriptions/{id}/providers/{ns}`): Microsoft.Resources
/// stable/2021-04-01 in azure-rest-api-specs (facts.md section 7 quotes 2021-01-01 with the same
/// shape; no commit recorded for this file).
pub const PROVIDERS_API: &str = "2021-04-01";

/// Preview feature state: azure-rest-api-specs
/// …/Microsoft.Features/features/stable/2021-07-01/examples/registerFeature.json @54923347
/// (`../shared/azure/recordings/README.md`).
pub const FEATURES_API: &str = "2021-07-01";

/// Key Vault name check and vault lists: Microsoft.KeyVault stable/2024-11-01 (facts.md
/// section 2: safe GA version; the type data lists it for `Microsoft.KeyVault/vaults`).
pub const KEYVAULT_API: &str = "2024-11-01";

/// Service Bus `CheckNameAvailability` and the namespace list (azure-rest-api-specs
/// specification/servicebus/.../stable/2024-01-01, examples/NameSpaces/SBNameSpaceCheckNameAvailability.json;
/// the version the renderer deploys namespaces with).
pub const SERVICEBUS_API: &str = "2024-01-01";

/// Storage `checkNameAvailability` and the account list (azure-rest-api-specs
/// specification/storage/.../stable/2025-01-01, examples/StorageAccountCheckNameAvailability.json;
/// the version the renderer deploys accounts with).
pub const STORAGE_API: &str = "2025-01-01";

/// Microsoft.Resources/deployments (PUT, GET, operations, whatIf): azure-rest-api-specs
/// specification/resources/resource-manager/Microsoft.Resources/deployments/stable/2025-04-01/examples/*
/// @54923347 (`../shared/azure/recordings/README.md`).
pub const DEPLOYMENTS_API: &str = "2025-04-01";

/// Microsoft.Resources/resourceGroups: the same Microsoft.Resources 2025-04-01 release (the type
/// data lists it for `Microsoft.Resources/resourceGroups`).
pub const RESOURCE_GROUPS_API: &str = "2025-04-01";

/// Microsoft.Consumption/budgets (reads): the version the rendered template uses
/// ([`API`]`.budgets`).
pub const BUDGETS_API: &str = "2024-08-01";

/// Microsoft.Compute/virtualMachineScaleSets (reads: instances, capacity). Not the render's
/// version ([`API`]`.vmss` is 2025-11-01); 2025-04-01 is a published version of the type
/// (type data) whose read shape the status code parses.
pub const SCALE_SETS_API: &str = "2025-04-01";

/// specification/quota/resource-manager/Microsoft.Quota/stable/2023-02-01/quota.json
/// (`Quota_CreateOrUpdate`: PUT {scope}/providers/Microsoft.Quota/quotas/{resourceName};
/// `QuotaRequestStatus_Get`: {scope}/providers/Microsoft.Quota/quotaRequests/{id}).
pub const QUOTA_API: &str = "2023-02-01";

/// specification/compute/.../stable/2025-04-01 (virtualMachines list with `$filter`
/// `'virtualMachineScaleSet/id' eq '...'` and `$expand=instanceView`; the scale set's
/// `virtualMachines` list for Uniform sets).
pub const VMS_API: &str = "2025-04-01";

/// specification/monitor/.../Microsoft.Insights/stable/2022-10-01/autoscale_API.json
pub const AUTOSCALE_API: &str = "2022-10-01";

/// specification/monitor/.../Microsoft.Insights/stable/2023-10-01/metrics_API.json
pub const METRICS_API: &str = "2023-10-01";

/// Activity Logs - List: azure-rest-api-specs
/// `specification/monitor/resource-manager/Microsoft.Insights/stable/2015-04-01/activityLogs_API.json`
/// @ 02f4472eb565e062c4b96c03f7cb1ce8b8391e89 (`ActivityLogs_List`: GET
/// /subscriptions/{id}/providers/microsoft.insights/eventtypes/management/values, `$filter`
/// "very restricted": for a resource group `eventTimestamp ge '…' and eventTimestamp le '…' and
/// resourceGroupName eq '…'`, "No other syntax is allowed"; answer `{value: [EventData],
/// nextLink}`), and Learn REST "Activity Logs - List"
/// (https://learn.microsoft.com/rest/api/monitor/activity-logs/list: the same path with
/// `api-version=2015-04-01`), read 2026-12-03. Excerpts:
/// `tests/fixtures/sources/activity-log-api.json`, held by `tests/facts_activity_log.rs`.
pub const ACTIVITY_LOG_API: &str = "2015-04-01";

/// The Activity Logs - List route below the subscription (same source as [`ACTIVITY_LOG_API`]).
pub const ACTIVITY_LOG_PATH: &str = "providers/Microsoft.Insights/eventtypes/management/values";

/// The spec's `$filter` for the events of a resource group between two times (RFC 3339): its
/// "List events for a resource group" pattern ("No other syntax is allowed"). Same source as
/// [`ACTIVITY_LOG_API`].
pub fn activity_log_filter(rg: &str, since: &str, until: &str) -> String {
    format!(
        "eventTimestamp ge '{since}' and eventTimestamp le '{until}' and resourceGroupName eq '{rg}'"
    )
}

/// specification/alertsmanagement/.../AlertsManagement/preview/2019-05-05-preview
/// (Alerts_GetAll: GET /subscriptions/{id}/providers/Microsoft.AlertsManagement/alerts).
pub const ALERTS_API: &str = "2019-05-05-preview";

/// specification/cost-management/.../Microsoft.CostManagement/stable/2023-11-01/costmanagement.json
/// (Query_Usage: POST {scope}/providers/Microsoft.CostManagement/query).
pub const COST_API: &str = "2023-11-01";

/// The Logs Query API version in the request path (`POST {logs endpoint}/v1/workspaces/{workspace
/// GUID}/query`, body `{"query", "timespan"}` with `timespan` an ISO 8601 duration or
/// `start/end`; answer `{"tables":[{"name","columns":[{"name","type"}],"rows"}]}`).
///
/// Sources (read 2026-12-03, excerpts in `tests/fixtures/sources/log-query-api.json`, held by
/// `tests/facts_log_query.rs`): Learn "Request format for the Azure Monitor Logs query API"
/// (MicrosoftDocs/azure-monitor-docs `articles/azure-monitor/logs/api/request-format.md` @
/// 26af34ca099d0da62013bc738c8ebd9c563fb3a9, ms.date 05/12/2026: "Use `v1`", `workspaceId` "is
/// the GUID of the Log Analytics workspace", the parameter table) and "Response format"
/// (`response-format.md` @ 498534b635514e0acea5b632541121ad5281f4da).
///
/// Not through Resource Manager: Learn "Migrate from Logs Query API batch operation and beta
/// version" (`migrate-batch-and-beta.md` @ 199a91637d5c18d8dfa795db904c8c24cb9cdebf) lists
/// "Log Analytics via ARM" (`https://management.azure.com/.../api/query?api-version=2017-01-01-preview`)
/// among the deprecations with support cut off on March 31, 2026, and says ARM queries "should
/// migrate to the Logs Query API `v1` request format". (The azure-rest-api-specs 2017-10-01
/// swagger, `specification/operationalinsights/data-plane/Microsoft.OperationalInsights/preview/
/// 2017-10-01/swagger.json` @ 029741f2a57be0df0c346983e76f08dc7a69058a, names an ARM route
/// `.../workspaces/{workspaceName}/query` without `/api`; Learn documents neither route any
/// more.) The workspace GUID is the workspace's `properties.customerId`, read through ARM.
pub const LOG_QUERY_API: &str = "v1";

/// `Microsoft.OperationalInsights/workspaces` GET (the workspace GUID, `properties.customerId`,
/// that the Logs Query API takes): the version the rendered template uses ([`API`]`.log_analytics`).
pub const WORKSPACES_API: &str = "2025-02-01";

/// Microsoft.PolicyInsights checkPolicyRestrictions: 2024-10-01 is the newest stable version
/// in azure-rest-api-specs (stable/2024-10-01/checkPolicyRestrictions.json).
pub const POLICY_INSIGHTS_API: &str = "2024-10-01";

/// `Microsoft.Compute/disks` (DiskRP) DELETE and GET: Learn REST "Disks - Delete"
/// (DELETE .../providers/Microsoft.Compute/disks/{diskName}?api-version=2025-01-02: 200, 202 +
/// Location + Retry-After, 204 when it does not exist). The template declares no disk (the VM
/// creates them), so there is no template version to take.
pub const DISKS_API: &str = "2025-01-02";

/// The client's versions that address a resource type, for the test that holds them against the
/// type data (the others are operations, not resource types: SKUs, usages, providers,
/// features, metrics, activity log, alerts, cost query, checkPolicyRestrictions).
pub const CLIENT_RESOURCE_TYPES: &[(&str, &str)] = &[
    ("Microsoft.KeyVault/vaults", KEYVAULT_API),
    ("Microsoft.ServiceBus/namespaces", SERVICEBUS_API),
    ("Microsoft.Storage/storageAccounts", STORAGE_API),
    ("Microsoft.Resources/deployments", DEPLOYMENTS_API),
    ("Microsoft.Resources/resourceGroups", RESOURCE_GROUPS_API),
    ("Microsoft.Consumption/budgets", BUDGETS_API),
    ("Microsoft.Compute/virtualMachineScaleSets", SCALE_SETS_API),
    ("Microsoft.Compute/virtualMachines", VMS_API),
    ("Microsoft.Insights/autoscalesettings", AUTOSCALE_API),
    ("Microsoft.Compute/disks", DISKS_API),
    ("Microsoft.Quota/quotas", QUOTA_API),
    ("Microsoft.OperationalInsights/workspaces", WORKSPACES_API),
];

/// The version gpuform uses for `resource_type` (any case): the render's
/// ([`ApiVersions::entries`]), else the client's ([`CLIENT_RESOURCE_TYPES`]); both are held
/// against the type data by `tests/facts_api.rs`. `None` for a type gpuform neither renders nor
/// reads (no version of another type is valid for it: each type has its own list).
pub fn version_for(resource_type: &str) -> Option<&'static str> {
    API.entries()
        .into_iter()
        .chain(CLIENT_RESOURCE_TYPES.iter().copied())
        .find(|(t, _)| t.eq_ignore_ascii_case(resource_type))
        .map(|(_, v)| v)
}
