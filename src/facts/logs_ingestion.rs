//! The Logs Ingestion API: how the GPU collector sends its rows itself where no agent association
//! reaches the VM (a Flexible pool in a region the built-in DCR-association policy does not list,
//! or `monitoring.gpu.delivery: ingestion`).
//!
//! Sources (read 2026-12-04; dated excerpts in `tests/fixtures/sources/logs-ingestion.json`,
//! held by `tests/facts_logs_ingestion.rs`):
//! - Learn "Logs Ingestion API in Azure Monitor" (MicrosoftDocs/azure-monitor-docs
//!   `articles/azure-monitor/logs/logs-ingestion-api-overview.md` @ 00b6c3e5, ms.date 08/13/2026):
//!   the URI `{Endpoint}/dataCollectionRules/{DCR Immutable ID}/streams/{Stream Name}?api-version=2023-01-01`,
//!   the `Authorization` bearer token with the audience of each cloud, `Content-Type:
//!   application/json`, the body a JSON array matching the stream, the Monitoring Metrics
//!   Publisher role on the DCR; the endpoint is a DCE or the DCR's own logs ingestion endpoint,
//!   which only a DCR created with `kind: Direct` has.
//! - The REST specification (Azure/azure-rest-api-specs
//!   `specification/monitor/data-plane/ingestion/stable/2023-01-01/DataCollectionRules.json`
//!   @ 3bf32317): `POST /dataCollectionRules/{ruleId}/streams/{stream}`, `api-version` required,
//!   the body an array of objects, 204 on success.
//! - The Azure SDK for .NET `LogsIngestionAudience` (Azure/azure-sdk-for-net
//!   `sdk/monitor/Azure.Monitor.Ingestion/src/LogsIngestionAudience.cs` @ 2d2fbd89): the same three
//!   audiences (`https://monitor.azure.com`, `.us`, `.cn`).
//! - Limits (MicrosoftDocs/azure-docs `includes/azure-monitor-limits-custom-logs.md` @ 0d026f76,
//!   the "Logs Ingestion API" table of "Azure Monitor service limits"): maximum size of an API call
//!   1 MB (compressed and uncompressed); throttling answers carry `Retry-After`.
//! - The managed identity's token from the instance metadata service (MicrosoftDocs/azure-docs
//!   `articles/active-directory/managed-identities-azure-resources/how-to-use-vm-token.md`
//!   @ 011760f8): `GET http://169.254.169.254/metadata/identity/oauth2/token?api-version=2018-02-01&resource=…&client_id=…`
//!   with `Metadata: true`; `client_id` names a user-assigned identity; the answer's
//!   `access_token`.
//! - The data collection endpoint's `properties.logsIngestion.endpoint` (read-only) at
//!   `Microsoft.Insights/dataCollectionEndpoints@2023-03-11`: Azure/bicep-types-az @ 1f896de2
//!   (`../shared/conformance/types/microsoft.insights.json`).

use super::Source;
use super::clouds::Cloud;

/// `api-version` of the upload call.
pub const API_VERSION: &str = "2023-01-01";

/// The upload route below the endpoint (`{ruleId}`: the DCR's immutable id, `{stream}`: the
/// stream declaration's name).
pub const ROUTE: &str = "/dataCollectionRules/{ruleId}/streams/{stream}";

/// Largest body of one call. The limits table says "1 MB"; the conservative reading is
/// 1,000,000 bytes (not 1,048,576), which the collector keeps every call under.
pub const MAX_BODY_BYTES: usize = 1_000_000;

/// What a 429 answer carries and the collector honours.
pub const RETRY_AFTER: &str = "Retry-After";

/// The instance metadata service's managed-identity token endpoint and its API version.
pub const IMDS_TOKEN_URL: &str = "http://169.254.169.254/metadata/identity/oauth2/token";
pub const IMDS_TOKEN_API_VERSION: &str = "2018-02-01";

/// The instance metadata service's compute endpoint the collectors read the VM's priority and
/// id from: `GET /metadata/instance/compute?api-version=...` with `Metadata: true`. 2021-02-01
/// is on the page's list of supported versions and has `priority` (introduced 2020-12-01) and
/// `vmId`. Source: [`IMDS_INSTANCE`] (excerpt `tests/fixtures/sources/instance-metadata.json`).
pub const IMDS_INSTANCE_URL: &str = "http://169.254.169.254/metadata/instance/compute";
pub const IMDS_INSTANCE_API_VERSION: &str = "2021-02-01";

pub const IMDS_INSTANCE: Source = Source::doc(
    "https://learn.microsoft.com/azure/virtual-machines/instance-metadata-service (MicrosoftDocs/azure-compute-docs articles/virtual-machines/instance-metadata-service.md@1dc6d3b8a9340908bc53610bc739534ec59b56d0, page 2023-04-11)",
    "2026-12-05",
);

/// [`IMDS_INSTANCE_URL`] with its `api-version`, as the collectors call it.
pub fn imds_instance_request() -> String {
    format!("{IMDS_INSTANCE_URL}?api-version={IMDS_INSTANCE_API_VERSION}")
}

/// The token audience (the IMDS `resource`) of the Logs Ingestion API in `cloud`.
pub const fn audience(cloud: Cloud) -> &'static str {
    match cloud {
        Cloud::AzureCloud => "https://monitor.azure.com",
        Cloud::AzureUSGovernment => "https://monitor.azure.us",
        Cloud::AzureChinaCloud => "https://monitor.azure.cn",
    }
}

pub const SOURCE: Source = Source::doc(
    "MicrosoftDocs/azure-monitor-docs articles/azure-monitor/logs/logs-ingestion-api-overview.md@00b6c3e55bc26f9dc4ee0608d781965cf407cc22; Azure/azure-rest-api-specs specification/monitor/data-plane/ingestion/stable/2023-01-01/DataCollectionRules.json@3bf323171079d3afd2beb3d728c02d013c6a13fa; Azure/azure-sdk-for-net sdk/monitor/Azure.Monitor.Ingestion/src/LogsIngestionAudience.cs@2d2fbd89b86e7e3956431f336b7ae00d87f1fc6e",
    "2026-12-04",
);

pub const LIMITS: Source = Source::doc(
    "MicrosoftDocs/azure-docs includes/azure-monitor-limits-custom-logs.md@0d026f76db68366bb9cb674dd050cc0cbacd3507 (Azure Monitor service limits, Logs Ingestion API)",
    "2026-12-04",
);

pub const IMDS_TOKEN: Source = Source::doc(
    "MicrosoftDocs/azure-docs articles/active-directory/managed-identities-azure-resources/how-to-use-vm-token.md@011760f8dbf187c890fe0a0dc5586e7dca05b131",
    "2026-12-04",
);

/// Why the endpoint is the DCE's: the GPU rule carries the agent's `logFiles` data source
/// (`kind: Linux`/`Windows`), and Learn gives a DCR its own logs ingestion endpoint only when it
/// is created with `kind: Direct`; a DCR with a DCE (`dataCollectionEndpointId`) is sent to
/// through the DCE's `logsIngestion.endpoint`, at every API version gpuform renders.
pub const ENDPOINT_CHOICE: &str = "the data collection endpoint's logsIngestion.endpoint (the rule is kind Linux/Windows for the agent's log files; a DCR has its own ingestion endpoint only with kind Direct)";
