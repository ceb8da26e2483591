//! The plan's bottom file: the types and helpers several plan files share (checkov
//! suppressions, private endpoints and their DNS zones, the disk key, role assignments and
//! their role ids, base64). It imports no other file of `plan`, so the others form a DAG above it.

use serde::Serialize;

/// A checkov check suppressed in the output, with the reason written next to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Suppression {
    pub check: &'static str,
    pub reason: String,
}

/// A private endpoint with its private DNS zone, the zone's VNet link and the zone group.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrivateEndpoint {
    pub name: String,
    /// `vault`, `queue`.
    pub group_id: &'static str,
    /// How the private DNS zone's name is derived from the target cloud's `environment()`:
    /// no cloud-specific host name is written into the template.
    pub zone: PrivateDnsZone,
    /// `queue` for storage zones.
    pub storage_service: Option<&'static str>,
    pub nic_name: String,
    pub vnet_link_name: String,
    /// `privateDnsZones.mode: existing`: the platform team's zone (resource id) the zone group
    /// points at instead of a zone the template creates.
    pub zone_id: Option<String>,
}

/// The private DNS zone of a private endpoint, derived from `environment()` so that the same
/// template resolves in every cloud; the names per cloud are facts
/// ([`crate::facts::private_dns`], and `tests/facts_private_dns.rs` evaluates these expressions
/// in each cloud against Learn's table) (Learn, "Azure Private Endpoint private DNS zone values":
/// `privatelink.vaultcore.azure.net` / `.azure.cn` / `.usgovcloudapi.net` for vaults,
/// `privatelink.queue.core.windows.net` / `.core.chinacloudapi.cn` / `.core.usgovcloudapi.net`
/// for storage queues).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum PrivateDnsZone {
    /// `privatelink` + `environment().suffixes.keyvaultDns` (`.vault.azure.net`) with `vault`
    /// replaced by `vaultcore`, as Azure Verified Modules derive it.
    KeyVault,
    /// `privatelink.<storage_service>.` + `environment().suffixes.storage` (`core.windows.net`).
    Storage,
}

impl PrivateDnsZone {
    /// The zone name as an ARM expression (without the brackets).
    pub fn arm_expr(self, storage_service: Option<&str>) -> String {
        match self {
            PrivateDnsZone::KeyVault => {
                "format('privatelink{0}', replace(environment().suffixes.keyvaultDns, 'vault', 'vaultcore'))".into()
            }
            PrivateDnsZone::Storage => format!(
                "format('privatelink.{}.{{0}}', environment().suffixes.storage)",
                storage_service.unwrap_or("queue")
            ),
        }
    }
}

/// Customer-managed key for the disks: the key, its rotation policy and the disk encryption set.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cmk {
    pub key_name: String,
    /// `RSA-HSM` on a premium vault, `RSA` on a standard one.
    pub kty: &'static str,
    pub key_size: u32,
    /// Rotate this long after creation (ISO 8601).
    pub rotate_after: &'static str,
    /// Expiry of each key version (ISO 8601), longer than the rotation period.
    pub expiry: &'static str,
    pub notify_before_expiry: &'static str,
    pub des_name: String,
    pub encryption_type: &'static str,
    /// Symbol of the role assignment that lets the disk encryption set use the key; the scale
    /// set waits for it.
    pub key_role: &'static str,
    pub suppressions: Vec<Suppression>,
}

/// A role assignment with a deterministic name `guid(scope.id, principal.id, roleId)`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RoleAssignment {
    /// Symbolic name in the Bicep file.
    pub sym: &'static str,
    pub role_name: &'static str,
    pub role_id: &'static str,
    /// Symbol of the resource the role is scoped to (`vault`, `cmkKey`, `sbQueue`, `storageQueue`).
    pub scope: &'static str,
    /// Symbol of the resource whose identity gets the role (`identity` or `des`).
    pub principal: &'static str,
    /// The principal is the resource's system-assigned identity (the DES).
    pub system_identity: bool,
    pub description: String,
}

/// The role GUIDs the plan assigns, read from the facts layer (where their sources are).
pub mod roles {
    use crate::facts::roles as facts;
    pub const KEY_VAULT_SECRETS_USER: &str = facts::KEY_VAULT_SECRETS_USER.id;
    pub const KEY_VAULT_CRYPTO_SERVICE_ENCRYPTION_USER: &str =
        facts::KEY_VAULT_CRYPTO_SERVICE_ENCRYPTION_USER.id;
    pub const SERVICE_BUS_DATA_RECEIVER: &str = facts::SERVICE_BUS_DATA_RECEIVER.id;
    pub const STORAGE_QUEUE_DATA_MESSAGE_PROCESSOR: &str =
        facts::STORAGE_QUEUE_DATA_MESSAGE_PROCESSOR.id;
}

/// Standard base64 (RFC 4648, with padding) for custom data: three bytes to four characters,
/// written into a buffer of the exact size (custom data is ~45 KB of base64 per spec).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let sym = |n: u32, shift: u32| ALPHABET[((n >> shift) & 63) as usize];
    let mut out = Vec::with_capacity(bytes.len().div_ceil(3) * 4);
    let mut chunks = bytes.chunks_exact(3);
    for c in &mut chunks {
        let n = (u32::from(c[0]) << 16) | (u32::from(c[1]) << 8) | u32::from(c[2]);
        out.extend_from_slice(&[sym(n, 18), sym(n, 12), sym(n, 6), sym(n, 0)]);
    }
    match *chunks.remainder() {
        [a] => {
            let n = u32::from(a) << 16;
            out.extend_from_slice(&[sym(n, 18), sym(n, 12), b'=', b'=']);
        }
        [a, b] => {
            let n = (u32::from(a) << 16) | (u32::from(b) << 8);
            out.extend_from_slice(&[sym(n, 18), sym(n, 12), sym(n, 6), b'=']);
        }
        _ => {}
    }
    String::from_utf8(out).expect("the base64 alphabet is ASCII")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(i.as_bytes()), o);
        }
    }
}
