//! Azure Monitor data collection facts gpuform relies on.

use super::Source;

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
