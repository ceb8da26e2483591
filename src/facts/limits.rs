//! How much of an Azure answer gpuform reads, how many pages it follows, and how long it waits
//! when Azure asks it to (`crate::azure::http`, `crate::azure::client`,
//! `crate::azure::log_answer`). Where Azure documents a maximum, it is the bound; elsewhere the
//! bound is an assumption, named in the message that reports it.

use super::Source;

/// The Logs Query API's largest answer: "~104 MB (~100 MiB)" raw (64 MB compressed), and at
/// most 500,000 records. A larger answer is not from the API.
pub const LOG_QUERY_MAX_BYTES: u64 = 100 * 1024 * 1024;
pub const LOG_QUERY_MAX_RECORDS: usize = 500_000;

pub const LOG_QUERY_LIMITS_SOURCE: Source = Source::doc(
    "https://learn.microsoft.com/azure/azure-monitor/fundamentals/service-limits#la-query-api \
     (Query API: \"Maximum records returned in a single query 500,000\"; \"Maximum size of data \
     returned ~104 MB (~100 MiB) | The API returns up to 64 MB of compressed data, which translates \
     to up to 100 MB of raw data\"; MicrosoftDocs include ms.date 05/08/2025; dated copy in \
     tests/fixtures/sources/azure-monitor-query-api-limits.md)",
    "2026-12-05",
);

/// One Resource Manager answer (a page of a listing, a resource, an operation's status).
pub const ARM_ANSWER_MAX_BYTES: u64 = 128 * 1024 * 1024;
/// All the pages of one listing together, and how many pages.
pub const ARM_LISTING_MAX_BYTES: u64 = 256 * 1024 * 1024;
pub const ARM_LISTING_MAX_PAGES: usize = 1000;

pub const ARM_ANSWER_LIMITS_SOURCE: Source = Source::assumption(
    "Resource Manager documents no largest answer or listing (the resource provider contract \
     pages lists with nextLink); gpuform's largest listings (the Resource SKUs of one region, \
     a resource group's activity log) are a few megabytes, so it reads at most 128 MiB per \
     answer, 256 MiB and 1,000 pages per listing",
    "2026-12-05",
);

/// A sign-in answer (a token from Entra, an OIDC token from the CI runner): a few kilobytes.
pub const TOKEN_ANSWER_MAX_BYTES: u64 = 1024 * 1024;

/// The longest single wait a `Retry-After` (or `retry-after-ms`, `x-ms-retry-after-ms`) may ask
/// for on a 429 or 503; never longer than `--timeout` either. A longer ask ends the call at once
/// with the figure, instead of sleeping for it.
pub const RETRY_AFTER_MAX_SECS: u64 = 60;

pub const RETRY_AFTER_MAX_SOURCE: Source = Source::assumption(
    "Microsoft documents Retry-After on throttled Resource Manager, Resource Graph and Log \
     Analytics requests (https://learn.microsoft.com/azure/azure-resource-manager/management/request-limits-and-throttling: \
     \"The response includes a Retry-After value, which specifies the number of seconds your \
     application should wait\") but no largest value; gpuform waits at most 60 s (and never \
     beyond --timeout) at a time, the longest it waits between deployment polls",
    "2026-12-05",
);

/// A VM's custom data: "The maximum length of the binary array is 65535 bytes" (the array the
/// base64 string decodes to). It is what Azure receives that counts: on the Logs Ingestion path,
/// after the template has put the deployment's values in for gpuform's placeholders.
pub const CUSTOM_DATA_MAX_BYTES: u64 = 65_535;

pub const CUSTOM_DATA_SOURCE: Source = Source::doc(
    "https://learn.microsoft.com/rest/api/compute/virtual-machine-scale-sets/create-or-update#virtualmachinescalesetosprofile \
     (customData: \"Specifies a base-64 encoded string of custom data. The base-64 encoded string is \
     decoded to a binary array that is saved as a file on the Virtual Machine. The maximum length of \
     the binary array is 65535 bytes.\"); the same text in Azure/azure-quickstart-templates \
     101-vm-customdata/README.md @ 1ad74a48969ba3260b4f0fdd13914236a9fb1271; dated copy in \
     tests/fixtures/sources/custom-data-limit.md",
    "2026-12-05",
);

/// The longest values the template puts into the custom data for gpuform's placeholders on the
/// Logs Ingestion path (`plan::gpu_monitoring::Ingestion`): the data collection endpoint's
/// `logsIngestion.endpoint`, the rule's `immutableId` (`dcr-` and 32 hex digits) and the
/// identity's `clientId` (a GUID).
pub const INGEST_ENDPOINT_MAX_BYTES: usize = 120;
pub const INGEST_DCR_ID_MAX_BYTES: usize = 36;
pub const INGEST_CLIENT_ID_MAX_BYTES: usize = 36;

pub const INGEST_VALUES_SOURCE: Source = Source::assumption(
    "no document gives the longest logsIngestion.endpoint; it is \
     https://<endpoint name>-<suffix>.<region>-1.ingest.monitor.azure.com, under 120 characters for \
     gpuform's endpoint names in every region; an immutableId is `dcr-` and 32 hex digits (36), \
     a clientId a GUID (36)",
    "2026-12-05",
);
