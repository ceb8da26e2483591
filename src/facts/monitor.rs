//! Azure Monitor names gpuform renders: platform metrics (metric alerts, autoscale rules), the
//! autoscale "special" queue metric, and diagnostic settings' log and metric categories.
//!
//! Sources: Microsoft's generated "Supported metrics" / "Supported log categories" pages, each
//! named on its entry with the repository, path, commit and page date it was read from (as
//! carried by `../shared/azure/metrics.json` and `log-categories.json`, retrieved 2026-12-03),
//! and the autoscale "common metrics" page for the storage queue trigger.
//! `tests/facts_monitor.rs` checks every entry here, and every metric, aggregation, dimension
//! and category in every rendered template, against those files.
//!
//! Not sourced: the diagnostic settings' metric category `AllMetrics` is an Azure Monitor
//! convention that the supported-metrics pages do not print (metrics.json
//! `diagnosticSettingsMetricCategories` records it as such); storage's `Capacity` and
//! `Transaction` are on the storage pages.

use super::Source;

const READ: &str = "2026-12-03";

/// A metric and the aggregations Microsoft's supported-metrics table lists for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetricEntry {
    /// Resource type as the metric alert's `metricNamespace` spells it.
    pub namespace: &'static str,
    /// "Name in REST API".
    pub metric: &'static str,
    /// The "Aggregation" column.
    pub aggregations: &'static [&'static str],
    pub dimensions: &'static [&'static str],
    pub source: Source,
}

/// Every metric the renderer uses (metric alerts and autoscale rules), with its source.
pub const METRICS: &[MetricEntry] = &[
    MetricEntry {
        namespace: "Microsoft.Insights/autoscalesettings",
        metric: "ObservedCapacity",
        aggregations: &["Average"],
        dimensions: &[],
        source: Source::doc(
            "https://learn.microsoft.com/azure/azure-monitor/reference/supported-metrics/microsoft-insights-autoscalesettings-metrics (MicrosoftDocs/azure-reference-other azure-monitor-ref/supported-metrics/includes/microsoft-insights-autoscalesettings-metrics-include.md@bd9f3feeeee7a528954e580c84c4b9a74058d736, 2024-07-30)",
            READ,
        ),
    },
    MetricEntry {
        namespace: "Microsoft.Compute/virtualMachineScaleSets",
        metric: "VmAvailabilityMetric",
        aggregations: &["Average"],
        dimensions: &["VMName"],
        source: Source::doc(
            "https://learn.microsoft.com/azure/azure-monitor/reference/supported-metrics/microsoft-compute-virtualmachinescalesets-metrics (MicrosoftDocs/azure-monitor-docs microsoft-compute-virtualmachinescalesets-metrics.md@bf129b960b905997e7077c7db186abcbe64b2c45, 2025-04-16)",
            READ,
        ),
    },
    MetricEntry {
        namespace: "Microsoft.ServiceBus/namespaces",
        metric: "ActiveMessages",
        aggregations: &["Average", "Minimum", "Maximum"],
        dimensions: &["EntityName"],
        source: Source::doc(
            "https://learn.microsoft.com/azure/azure-monitor/reference/supported-metrics/microsoft-servicebus-namespaces-metrics (MicrosoftDocs/azure-monitor-docs microsoft-servicebus-namespaces-metrics.md@916560d562d293a317f8635fc64eb512366a1b32, 2025-04-16)",
            READ,
        ),
    },
    MetricEntry {
        namespace: "Microsoft.Network/applicationGateways",
        metric: "AvgRequestCountPerHealthyHost",
        aggregations: &["Average"],
        dimensions: &["BackendSettingsPool"],
        source: Source::doc(
            "https://learn.microsoft.com/azure/azure-monitor/reference/supported-metrics/microsoft-network-applicationgateways-metrics (MicrosoftDocs/azure-monitor-docs microsoft-network-applicationgateways-metrics.md@0e7def834f033a08b05108269ad84b420348e12f, 2026-07-13)",
            "2026-12-05",
        ),
    },
    MetricEntry {
        namespace: "Microsoft.Storage/storageAccounts/queueServices",
        metric: "QueueMessageCount",
        aggregations: &["Average"],
        dimensions: &[],
        source: Source::doc(
            "https://learn.microsoft.com/azure/azure-monitor/reference/supported-metrics/microsoft-storage-storageaccounts-queueservices-metrics (MicrosoftDocs/azure-monitor-docs microsoft-storage-storageaccounts-queueservices-metrics.md@bf129b960b905997e7077c7db186abcbe64b2c45, 2025-04-16)",
            READ,
        ),
    },
];

/// Log categories and metric categories of diagnostic settings, per resource type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogEntry {
    pub resource_type: &'static str,
    pub log_categories: &'static [&'static str],
    /// The metric categories diagnostic settings export (`AllMetrics`, or storage's `Transaction`
    /// and `Capacity`).
    pub metric_categories: &'static [&'static str],
    pub source: Source,
}

pub const LOG_CATEGORIES: &[LogEntry] = &[
    LogEntry {
        resource_type: "Microsoft.KeyVault/vaults",
        log_categories: &["AuditEvent", "AzurePolicyEvaluationDetails"],
        metric_categories: &["AllMetrics"],
        source: Source::doc(
            "https://learn.microsoft.com/azure/azure-monitor/reference/supported-logs/microsoft-keyvault-vaults-logs (MicrosoftDocs/azure-reference-other azure-monitor-ref/supported-logs/includes/microsoft-keyvault-vaults-logs-include.md@bd9f3feeeee7a528954e580c84c4b9a74058d736, 2024-07-30)",
            READ,
        ),
    },
    LogEntry {
        resource_type: "Microsoft.Insights/autoscaleSettings",
        log_categories: &["AutoscaleEvaluations", "AutoscaleScaleActions"],
        metric_categories: &["AllMetrics"],
        source: Source::doc(
            "https://learn.microsoft.com/azure/azure-monitor/reference/supported-logs/microsoft-insights-autoscalesettings-logs (MicrosoftDocs/azure-monitor-docs microsoft-insights-autoscalesettings-logs.md@916560d562d293a317f8635fc64eb512366a1b32, 2025-04-16)",
            READ,
        ),
    },
    LogEntry {
        resource_type: "Microsoft.ServiceBus/namespaces",
        // the Standard tier's category; RuntimeAuditLogs and VNetAndIPFilteringLogs are Premium
        log_categories: &["OperationalLogs"],
        metric_categories: &["AllMetrics"],
        source: Source::doc(
            "https://learn.microsoft.com/azure/azure-monitor/reference/supported-logs/microsoft-servicebus-namespaces-logs (MicrosoftDocs/azure-reference-other azure-monitor-ref/supported-logs/includes/microsoft-servicebus-namespaces-logs-include.md@bd9f3feeeee7a528954e580c84c4b9a74058d736, 2024-07-30)",
            READ,
        ),
    },
    LogEntry {
        resource_type: "Microsoft.Storage/storageAccounts/queueServices",
        log_categories: &["StorageRead", "StorageWrite", "StorageDelete"],
        // QueueMessageCount, the queue length the workbook charts, is in the Capacity category
        // (hourly; ../shared/azure/metrics.json: queueServices QueueMessageCount, category
        // Capacity, time grain PT1H); Transaction holds the request metrics
        metric_categories: &["Transaction", "Capacity"],
        source: Source::doc(
            "https://learn.microsoft.com/azure/azure-monitor/reference/supported-logs/microsoft-storage-storageaccounts-queueservices-logs (MicrosoftDocs/azure-reference-other azure-monitor-ref/supported-logs/includes/microsoft-storage-storageaccounts-queueservices-logs-include.md@bd9f3feeeee7a528954e580c84c4b9a74058d736, 2024-07-30)",
            READ,
        ),
    },
    // the standby pool's execution log: where Microsoft's troubleshooting starts ("Query the
    // SVMPoolExecutionLog table", standby-pools-configure-permissions); the type has no metrics
    // page (../shared/azure/metrics.json `noPage`), so no metric category
    LogEntry {
        resource_type: "Microsoft.StandbyPool/standbyVirtualMachinePools",
        log_categories: &["Execution", "Request"],
        metric_categories: &[],
        source: Source::doc(
            "https://learn.microsoft.com/azure/azure-monitor/reference/supported-logs/microsoft-standbypool-standbyvirtualmachinepools-logs (MicrosoftDocs/azure-monitor-docs articles/azure-monitor/reference/supported-logs/microsoft-standbypool-standbyvirtualmachinepools-logs.md: category names of the 2025-04-16 version; the page at 1a7476cea4c3675f9f26f335c13e938dc11b55ff, 2026-07-14, lists the same two display names)",
            "2026-12-05",
        ),
    },
];

/// The table entry of a resource type (case-insensitive, as ARM compares types).
pub fn log_entry(resource_type: &str) -> Option<&'static LogEntry> {
    LOG_CATEGORIES
        .iter()
        .find(|e| e.resource_type.eq_ignore_ascii_case(resource_type))
}

/// The table entry of a metric (case-insensitive namespace).
pub fn metric_entry(namespace: &str, metric: &str) -> Option<&'static MetricEntry> {
    METRICS
        .iter()
        .find(|e| e.namespace.eq_ignore_ascii_case(namespace) && e.metric == metric)
}

/// Autoscale's storage queue trigger: a "special metric" whose threshold is the number of
/// messages per instance, with `metricNamespace` empty and the queue's
/// `…/services/queue/queues/<name>` path as `metricResourceUri` (it is not in the
/// supported-metrics tables). Learn, "Azure Monitor autoscale common metrics", Commonly used
/// Storage metrics: MicrosoftDocs/azure-monitor-docs
/// articles/azure-monitor/autoscale/autoscale-common-metrics.md@0e35105e2c90b22568af78aa7a035f622cccc90b.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpecialQueueMetric {
    pub metric: &'static str,
    pub namespace: &'static str,
    /// What follows the storage account's id in `metricResourceUri`.
    pub resource_path: &'static str,
    pub source: Source,
}

pub const STORAGE_QUEUE_LENGTH: SpecialQueueMetric = SpecialQueueMetric {
    metric: "ApproximateMessageCount",
    namespace: "",
    resource_path: "services/queue/queues",
    source: Source::doc(
        "https://learn.microsoft.com/azure/azure-monitor/autoscale/autoscale-common-metrics (MicrosoftDocs/azure-monitor-docs autoscale-common-metrics.md@0e35105e2c90b22568af78aa7a035f622cccc90b)",
        READ,
    ),
};

/// Learn, "Data collection endpoints in Azure Monitor" (page dated 2026-08-07; MicrosoftDocs/
/// azure-monitor-docs `articles/azure-monitor/data-collection/data-collection-endpoint-overview.md`
/// @8ba52bdda15423cf3ee8fb9170f885b16f3aca6a, read 2026-12-03): "Azure Monitor Agent uses a
/// public endpoint by default to retrieve its configuration from Azure Monitor. A DCE is only
/// required if you're using Private Link"; the data sources that still require one are Windows
/// Firewall Logs and Prometheus metrics (not text/JSON log files); and a DCE's "Logs ingestion
/// endpoint" must be in the "Same region as the destination Log Analytics workspace". So with an
/// existing workspace (possibly in another region, not gpuform's) and no Private Link, gpuform
/// renders no DCE.
pub const DCE: Source = Source::doc(
    "https://learn.microsoft.com/azure/azure-monitor/data-collection/data-collection-endpoint-overview \
     (MicrosoftDocs/azure-monitor-docs articles/azure-monitor/data-collection/data-collection-endpoint-overview.md@8ba52bdda15423cf3ee8fb9170f885b16f3aca6a, page 2026-08-07)",
    "2026-12-03",
);

/// The Azure Monitor Logs table the agents' heartbeats land in, and how often a VM's agent
/// writes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeartbeatTable {
    pub table: &'static str,
    /// "Normally, agents on VMs generate Heartbeat event every minute."
    pub every_minutes: u32,
    pub source: Source,
}

/// Learn, "Queries for the Heartbeat table" (MicrosoftDocs/azure-reference-other
/// `azure-monitor-ref/queries/heartbeat.md`, ms.date 07/30/2024, read 2026-12-03), its first
/// query: "Count computers heartbeats in the last hour. Normally, agents on VMs generate
/// Heartbeat event every minute." (`Heartbeat | where TimeGenerated > ago(1h) | summarize
/// count() by Computer`). The dev box's missing-telemetry alert reads it as "the VM is running"
/// (a deallocated VM runs no agent and writes none). `tests/fixtures/sources/heartbeat.json`
/// holds the dated excerpt; `tests/facts_monitor.rs` checks this entry against it.
pub const HEARTBEAT: HeartbeatTable = HeartbeatTable {
    table: "Heartbeat",
    every_minutes: 1,
    source: Source::doc(
        "https://learn.microsoft.com/azure/azure-monitor/reference/queries/heartbeat \
         (MicrosoftDocs/azure-reference-other azure-monitor-ref/queries/heartbeat.md, page 2024-07-30)",
        "2026-12-03",
    ),
};
