//! Private DNS zone names of the private endpoints gpuform creates or points at, per cloud.
//!
//! Source: Learn "Azure Private Endpoint private DNS zone values"
//! (https://learn.microsoft.com/azure/private-link/private-endpoint-dns; MicrosoftDocs/azure-docs
//! `articles/private-link/private-endpoint-dns.md` @ 42655f0ed89897f3571b649e2e1922bfef5985d9,
//! ms.date 10/11/2023), its commercial, "Government" and "China" tables, rows "Azure Key Vault
//! (Microsoft.KeyVault/vaults) | vault" and "Storage account (Microsoft.Storage/storageAccounts) |
//! queue / blob". Read 2026-12-03; the rows are copied in
//! `tests/fixtures/sources/private-dns-zones.json`, and `tests/facts_private_dns.rs` holds these
//! names and every zone name the rendered templates derive from `environment()` (evaluated with
//! each cloud's suffixes) against them.

use super::Source;
use super::clouds::Cloud;

pub const SOURCE: Source = Source::doc(
    "https://learn.microsoft.com/azure/private-link/private-endpoint-dns (MicrosoftDocs/azure-docs \
     articles/private-link/private-endpoint-dns.md@42655f0ed89897f3571b649e2e1922bfef5985d9)",
    "2026-12-03",
);

/// A private-link sub-resource gpuform gives a private DNS zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneOf {
    /// `Microsoft.KeyVault/vaults`, sub-resource `vault`.
    KeyVault,
    /// `Microsoft.Storage/storageAccounts`, sub-resource `queue`.
    StorageQueue,
    /// `Microsoft.Storage/storageAccounts`, sub-resource `blob`.
    StorageBlob,
}

impl ZoneOf {
    /// The storage sub-resource by its name (`queue`, `blob`).
    pub fn storage(service: &str) -> Option<ZoneOf> {
        match service {
            "queue" => Some(ZoneOf::StorageQueue),
            "blob" => Some(ZoneOf::StorageBlob),
            _ => None,
        }
    }
}

/// The recommended private DNS zone name of `of` in `cloud` (Learn's tables).
pub fn zone_name(of: ZoneOf, cloud: Cloud) -> &'static str {
    match (of, cloud) {
        (ZoneOf::KeyVault, Cloud::AzureCloud) => "privatelink.vaultcore.azure.net",
        (ZoneOf::KeyVault, Cloud::AzureUSGovernment) => "privatelink.vaultcore.usgovcloudapi.net",
        (ZoneOf::KeyVault, Cloud::AzureChinaCloud) => "privatelink.vaultcore.azure.cn",
        (ZoneOf::StorageQueue, Cloud::AzureCloud) => "privatelink.queue.core.windows.net",
        (ZoneOf::StorageQueue, Cloud::AzureUSGovernment) => {
            "privatelink.queue.core.usgovcloudapi.net"
        }
        (ZoneOf::StorageQueue, Cloud::AzureChinaCloud) => "privatelink.queue.core.chinacloudapi.cn",
        (ZoneOf::StorageBlob, Cloud::AzureCloud) => "privatelink.blob.core.windows.net",
        (ZoneOf::StorageBlob, Cloud::AzureUSGovernment) => {
            "privatelink.blob.core.usgovcloudapi.net"
        }
        (ZoneOf::StorageBlob, Cloud::AzureChinaCloud) => "privatelink.blob.core.chinacloudapi.cn",
    }
}
