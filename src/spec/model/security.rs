//! `spec.security`: the Key Vault and disk encryption.

use serde::{Deserialize, Serialize};

use super::defaults as d;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Security {
    #[serde(default)]
    pub key_vault: KeyVault,
    #[serde(default)]
    pub disk_encryption: DiskEncryption,
    #[serde(default = "d::yes")]
    pub encryption_at_host: bool,
    /// Landing zones (issue 13): the resource id of an existing Key Vault (`/subscriptions/…/
    /// resourceGroups/…/providers/Microsoft.KeyVault/vaults/…`, any resource group or
    /// subscription of the tenant) the pool uses instead of a vault of its own. No vault, private
    /// endpoint or DNS zone is created; the roles the pool needs on it are listed for the
    /// platform team (see `plan::shared`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub existing_key_vault: Option<String>,
}

impl Default for Security {
    fn default() -> Self {
        Self {
            key_vault: KeyVault::default(),
            disk_encryption: DiskEncryption::default(),
            encryption_at_host: true,
            existing_key_vault: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KeyVault {
    /// Globally unique vault name; derived from `metadata.name` and the resource group when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default)]
    pub public_network_access: bool,
    #[serde(default)]
    pub sku: KeyVaultSku,
    #[serde(default = "d::yes")]
    pub purge_protection: bool,
    #[serde(default = "d::soft_delete_days")]
    pub soft_delete_retention_days: u32,
}

impl Default for KeyVault {
    fn default() -> Self {
        Self {
            name: None,
            public_network_access: false,
            sku: KeyVaultSku::default(),
            purge_protection: true,
            soft_delete_retention_days: d::soft_delete_days(),
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum KeyVaultSku {
    #[default]
    Standard,
    Premium,
}

impl KeyVaultSku {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Standard => "standard",
            Self::Premium => "premium",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DiskEncryption {
    #[default]
    PlatformManagedKey,
    CustomerManagedKey,
}
