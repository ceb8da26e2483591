//! Application Insights as the carrier of a serving pool's GPU utilisation to autoscale
//! (issue 36, `autoscale.gpuUtilization`; ../shared/azure/serving.md D8).
//!
//! Why this path and no other: autoscale documents custom metrics only from Application
//! Insights, and only in the `Standard` and `Azure.ApplicationInsights` namespaces; a custom
//! namespace on the scale set is undocumented (serving.md D8), so gpuform does not build on it.
//!
//! The collector on each VM posts one metric item a minute (the mean utilisation over the VM's
//! GPUs) to the component's ingestion endpoint with a Microsoft Entra token of the pool's
//! identity, which holds Monitoring Metrics Publisher on the component; the component has local
//! (instrumentation-key) authentication disabled, so nothing else can post to it.
//!
//! Tests: tests/facts_app_insights.rs holds every literal here against the dated excerpts in
//! tests/fixtures/sources/app-insights.json (never against these constants).

use super::Source;
use super::clouds::Cloud;

/// The resource type (the API version is `api::API.app_insights`).
pub const COMPONENT_TYPE: &str = "Microsoft.Insights/components";
/// `kind` and `Application_Type` of the component (both required by the type data, whose
/// `Application_Type` enum is `web` | `other`: a GPU collector is no web app). `IngestionMode`
/// `LogAnalytics` is the workspace-based mode (same enum source: bicep-types-az
/// applicationinsights 2020-02-02, `api::SOURCE`).
pub const COMPONENT_KIND: &str = "other";
pub const APPLICATION_TYPE: &str = "other";
pub const INGESTION_MODE: &str = "LogAnalytics";

/// Autoscale reads Application Insights custom metrics only in these namespaces; any other
/// answers "Unsupported Metric".
pub const AUTOSCALE_NAMESPACES: [&str; 2] = ["Standard", "Azure.ApplicationInsights"];
/// The namespace the scale rule names: the page's own spelling of the custom-metric namespace.
pub const METRIC_NAMESPACE: &str = "Azure.ApplicationInsights";

pub const AUTOSCALE_SOURCE: Source = Source::doc(
    "MicrosoftDocs/azure-monitor-docs articles/azure-monitor/autoscale/autoscale-custom-metric.md@0d9dd45030af86e213f53cc0060ac3f64d66c741 (ms.date 11/01/2024; serving.md S33)",
    "2026-12-05",
);

/// A metric item without a namespace (`ns` absent) lands in the default custom-metric
/// namespace, which is `Azure.ApplicationInsights`. The track protocol makes `ns` optional
/// ("Namespace of the metric.") and no Microsoft page states the default in words: an
/// assumption, backed by Microsoft's .NET SDK (`MetricIdentifier.DefaultMetricNamespace`, no
/// value documented) and by public code that lists the component's metric definitions under
/// `metricNamespace: "azure.applicationinsights"`. Namespaces compare without case in Azure
/// Monitor (also an assumption). `show` and `validate` say so.
pub const DEFAULT_NAMESPACE: Source = Source::assumption(
    "a metric item sent without `ns` is stored in the Azure.ApplicationInsights namespace (the track protocol makes `ns` optional; no Microsoft page states the default; public code lists such metrics under `azure.applicationinsights`)",
    "2026-12-05",
);

/// The track protocol (Application Insights data-plane REST spec v2.1): `POST
/// {IngestionEndpoint}v2.1/track` with a JSON array of telemetry envelopes.
pub const TRACK_ROUTE: &str = "v2.1/track";
/// The envelope's `name` of a metric item and its `data.baseType`.
pub const METRIC_ENVELOPE_NAME: &str = "Microsoft.ApplicationInsights.Metric";
pub const METRIC_BASE_TYPE: &str = "MetricData";
/// "Only one metric in the list is currently supported by Application Insights storage."
pub const METRICS_PER_ITEM: usize = 1;

pub const TRACK_SOURCE: Source = Source::doc(
    "Azure/azure-rest-api-specs specification/applicationinsights/data-plane/Monitor.Exporters/preview/v2.1/swagger.json@04c2cb7bb78946cf2fce656ee0ccff69bec99f5b (hostTemplate {Host}/v2.1, path /track, MetricsData, DataPoint, TelemetryEnvelope)",
    "2026-12-05",
);

/// The metric envelope's name and base type: the SDKs' spelling (the REST spec names the
/// definitions, not the strings on the wire). Microsoft's SDKs send these; an assumption that
/// the service keeps accepting them from a hand-written client.
pub const ENVELOPE_NAMES: Source = Source::assumption(
    "the metric envelope name Microsoft.ApplicationInsights.Metric and baseType MetricData are the Application Insights SDKs' wire spelling; the v2.1 REST spec names the MetricsData definition but not these strings",
    "2026-12-05",
);

/// Microsoft Entra authenticated ingestion: the role on the component, the public-cloud
/// prerequisite, the token audience per cloud, `DisableLocalAuth`.
pub const ENTRA_SOURCE: Source = Source::doc(
    "MicrosoftDocs/azure-monitor-docs articles/azure-monitor/app/azure-ad-authentication.md@0188353a43558a4ca0930e94448b5068cbabbb51 (ms.date 03/06/2026)",
    "2026-12-05",
);

/// The page's prerequisites say "Be in the public cloud." while its audience table also lists
/// the 21Vianet and US Government audiences. The conservative reading: Entra-authenticated
/// ingestion, and so GPU scaling, only in `AzureCloud` (validate refuses elsewhere).
pub const PUBLIC_CLOUD_ONLY: bool = true;

/// The token audience (the instance metadata service's `resource`) of authenticated ingestion.
pub const fn audience(cloud: Cloud) -> &'static str {
    match cloud {
        Cloud::AzureCloud => "https://monitor.azure.com",
        Cloud::AzureChinaCloud => "https://monitor.azure.cn",
        Cloud::AzureUSGovernment => "https://monitor.azure.us",
    }
}

/// The connection string's keys the collector reads (`InstrumentationKey=...;IngestionEndpoint=...`).
pub const CONNECTION_KEYS: [&str; 2] = ["InstrumentationKey", "IngestionEndpoint"];

/// Data reaches the metric store within minutes, and autoscale needs its window full: the scale
/// rule's window is at least this (the queue rules' floor, PT5M, from the REST spec).
pub const MIN_TIME_WINDOW: &str = "PT5M";
