//! Identity, Key Vault, customer-managed disk keys and the role assignments that tie them
//! together.

use serde::Serialize;

use super::common::{Cmk, PrivateDnsZone, PrivateEndpoint, RoleAssignment, Suppression, roles};
use super::network::Network;
use super::scaling::Queue;
use crate::spec::model::{DiskEncryption, KeyVaultSku, WorkloadSpec};

/// The scale set's user-assigned managed identity.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Identity {
    pub name: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Vault {
    /// The spec's vault name; `None` when the name is derived at deployment time as
    /// `<namePrefix>-<uniqueString(resourceGroup().id)>` (globally unique, at most 24 characters).
    pub name: Option<String>,
    pub name_prefix: String,
    pub sku: &'static str,
    pub soft_delete_retention_days: u32,
    pub purge_protection: bool,
    pub public_network_access: bool,
    pub private_endpoint: Option<PrivateEndpoint>,
    /// Landing zones: the existing vault (`security.existingKeyVault`), referenced instead of
    /// created; then no private endpoint, no diagnostic setting and no role assignment on it is
    /// rendered (the roles are prerequisites, see `plan::shared`).
    pub existing: Option<super::shared::ExistingRef>,
}

pub(super) fn identity(name: &str) -> Identity {
    Identity {
        name: format!("id-{name}"),
    }
}

/// Prefix of a derived vault name: `kv-<name>` cut so that prefix, a hyphen and the 13
/// characters of `uniqueString()` fit in 24, never ending in a hyphen.
pub fn vault_name_prefix(name: &str) -> String {
    let mut p: String = format!("kv-{name}").chars().take(24 - 13 - 1).collect();
    while p.ends_with('-') {
        p.pop();
    }
    p
}

pub(super) fn vault(name: &str, s: &WorkloadSpec, network: &Network) -> Vault {
    let kv = &s.security.key_vault;
    let existing = super::shared::key_vault(s);
    Vault {
        name: kv.name.clone(),
        name_prefix: vault_name_prefix(name),
        sku: kv.sku.as_str(),
        soft_delete_retention_days: kv.soft_delete_retention_days,
        purge_protection: kv.purge_protection,
        public_network_access: kv.public_network_access,
        private_endpoint: (existing.is_none()
            && !kv.public_network_access
            && network.has_pe_subnet())
        .then(|| PrivateEndpoint {
            name: format!("pep-{name}-vault"),
            group_id: "vault",
            zone: PrivateDnsZone::KeyVault,
            storage_service: None,
            nic_name: format!("pep-{name}-vault-nic"),
            vnet_link_name: format!("link-{}", network.vnet_name),
            zone_id: super::landing_zone::existing_zone_id(s, PrivateDnsZone::KeyVault, None),
        }),
        existing,
    }
}

/// The disk encryption set's name.
fn des_name(name: &str) -> String {
    format!("des-{name}")
}

/// The disk encryption set of customer-managed disk keys, when the spec asks for them.
pub fn cmk_des_name(name: &str, s: &WorkloadSpec) -> Option<String> {
    (s.security.disk_encryption == DiskEncryption::CustomerManagedKey).then(|| des_name(name))
}

pub(super) fn cmk(name: &str, s: &WorkloadSpec, vault: &Vault) -> Option<Cmk> {
    if s.security.disk_encryption != DiskEncryption::CustomerManagedKey {
        return None;
    }
    let hsm = s.security.key_vault.sku == KeyVaultSku::Premium;
    let mut suppressions = Vec::new();
    if !hsm {
        suppressions.push(Suppression {
            check: "CKV_AZURE_112",
            reason: format!(
                "software-protected RSA key: the spec's vault SKU is {}; HSM-backed keys need security.keyVault.sku: premium",
                vault.sku
            ),
        });
    }
    Some(Cmk {
        key_name: "disk-cmk".into(),
        kty: if hsm { "RSA-HSM" } else { "RSA" },
        key_size: 3072,
        rotate_after: "P1Y",
        expiry: "P2Y",
        notify_before_expiry: "P30D",
        des_name: des_name(name),
        encryption_type: "EncryptionAtRestWithCustomerKey",
        key_role: "desCryptoUser",
        suppressions,
    })
}

pub(super) fn roles(
    vault: &Vault,
    cmk: Option<&Cmk>,
    queue: Option<&Queue>,
) -> Vec<RoleAssignment> {
    let mut out = Vec::new();
    // on an existing vault (another resource group) the role is the platform team's to grant:
    // `plan::shared::prerequisites` lists it
    if vault.existing.is_none() {
        out.push(RoleAssignment {
            sym: "identitySecretsUser",
            role_name: "Key Vault Secrets User",
            role_id: roles::KEY_VAULT_SECRETS_USER,
            scope: "vault",
            principal: "identity",
            system_identity: false,
            description: "The pool's identity reads secrets from the vault.".into(),
        });
    }
    if let Some(q) = queue
        && q.in_deployment_group()
    {
        out.push(match q.kind {
            super::scaling::QueueKind::ServiceBus => RoleAssignment {
                sym: "identityQueueReceiver",
                role_name: "Azure Service Bus Data Receiver",
                role_id: roles::SERVICE_BUS_DATA_RECEIVER,
                scope: "sbQueue",
                principal: "identity",
                system_identity: false,
                description: format!(
                    "The pool's identity receives messages from the queue {}.",
                    q.queue
                ),
            },
            super::scaling::QueueKind::Storage => RoleAssignment {
                sym: "identityQueueProcessor",
                role_name: "Storage Queue Data Message Processor",
                role_id: roles::STORAGE_QUEUE_DATA_MESSAGE_PROCESSOR,
                scope: "storageQueue",
                principal: "identity",
                system_identity: false,
                description: format!(
                    "The pool's identity peeks, receives and deletes messages of the queue {}.",
                    q.queue
                ),
            },
        });
    }
    if let Some(cmk) = cmk {
        out.push(RoleAssignment {
            sym: cmk.key_role,
            role_name: "Key Vault Crypto Service Encryption User",
            role_id: roles::KEY_VAULT_CRYPTO_SERVICE_ENCRYPTION_USER,
            scope: "cmkKey",
            principal: "des",
            system_identity: true,
            description:
                "The disk encryption set wraps and unwraps disk keys with the customer-managed key."
                    .into(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_vault_names_fit_the_rules() {
        for n in [
            "abc",
            "llm-finetune",
            "shortvideo-transcode",
            "a-b-c-d-e-f-g-h-i-j-k-l",
            "abcdefghijklmnopqrstuvwx",
            "abcdefg-hijk",
        ] {
            let p = vault_name_prefix(n);
            let full = format!("{p}-{}", "a1b2c3d4e5f6g");
            assert!(full.len() <= 24, "{full}");
            assert!(!full.contains("--"), "{full}");
            assert!(full.starts_with("kv"), "{full}");
        }
        assert_eq!(vault_name_prefix("llm-finetune"), "kv-llm-fin");
        assert_eq!(vault_name_prefix("abcdefg-hijk"), "kv-abcdefg");
    }
}
