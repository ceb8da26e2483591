//! Key Vault and disk encryption.

use super::context::Context;
use crate::catalog::GpuSize;
use crate::diag::Diagnostic;
use crate::spec::model::DiskEncryption;

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let sec = &ctx.spec.spec.security;
    if let Some(name) = &sec.key_vault.name
        && let Some(problem) = keyvault_name_problem(name)
    {
        out.push(
                Diagnostic::new("keyvault-name", format!("`{name}` is not a valid Key Vault name: {problem}"))
                    .at("/spec/security/keyVault/name")
                    .help("3-24 characters: letters, digits and single hyphens, starting with a letter and ending with a letter or digit; or leave it out and gpuform derives one"),
            );
    }
    if sec.disk_encryption == DiskEncryption::CustomerManagedKey && !sec.key_vault.purge_protection
    {
        out.push(
            Diagnostic::new(
                "cmk-needs-purge-protection",
                "customer-managed disk keys need purge protection on the vault",
            )
            .at("/spec/security/keyVault/purgeProtection")
            .help(
                "remove `purgeProtection: false`: a disk encryption set refuses a vault without it",
            ),
        );
    }
    if sec.key_vault.public_network_access {
        out.push(
            Diagnostic::new("keyvault-public", "the Key Vault accepts traffic from public networks")
                .at("/spec/security/keyVault/publicNetworkAccess")
                .help("set it to false: the VMs reach the vault through a private endpoint, deployments through ARM"),
        );
    }
    if !sec.encryption_at_host {
        out.push(
            Diagnostic::new(
                "encryption-at-host-off",
                "encryption at host is off: temp disks and caches are not encrypted at rest",
            )
            .at("/spec/security/encryptionAtHost")
            .help(
                "set it to true (preflight checks that the EncryptionAtHost feature is registered)",
            ),
        );
    } else if let Some(size) = ctx.size() {
        check_size(ctx, size, out);
    }
}

/// The size-dependent half (encryption at host). Run for the spec's size, and by `vmSize: auto`
/// for every candidate (see [`super::size_checks`]).
pub fn check_size(ctx: &Context<'_>, size: &GpuSize, out: &mut Vec<Diagnostic>) {
    if ctx.spec.spec.security.encryption_at_host && size.encryption_at_host == Some(false) {
        out.push(
            Diagnostic::new(
                "encryption-at-host-unsupported",
                format!("{} does not support encryption at host", size.name),
            )
            .at("/spec/security/encryptionAtHost")
            .help("set `encryptionAtHost: false` for this size, or choose another size"),
        );
    }
}

/// Why `name` breaks Azure's Key Vault naming rules, if it does. Length (3-24) and the
/// characters (letters, digits, hyphens) are the schema's; these are the rest.
pub fn keyvault_name_problem(name: &str) -> Option<&'static str> {
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Some("it must start with a letter");
    }
    if name.ends_with('-') {
        return Some("it must end with a letter or digit");
    }
    if name.contains("--") {
        return Some("consecutive hyphens are not allowed");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vault_names() {
        assert_eq!(keyvault_name_problem("kv-shortvideo-prod"), None);
        assert!(keyvault_name_problem("1kv-x").is_some());
        assert!(keyvault_name_problem("kv--x").is_some());
        assert!(keyvault_name_problem("kv-x-").is_some());
        // length and characters are the schema's
        let schema_rules = |name: &str| {
            let spec = serde_json::json!({"apiVersion": "gpuform/v1", "kind": "GpuWorkload",
                "metadata": {"name": "kv-test"},
                "spec": {"region": "eastus", "workload": {"type": "inference", "gpuMemoryGiB": 10},
                    "capacity": {"max": 1}, "security": {"keyVault": {"name": name}}}});
            crate::spec::schema::validate(&spec)
                .into_iter()
                .map(|d| (d.rule, d.pointer.unwrap_or_default()))
                .collect::<Vec<_>>()
        };
        let at = (
            "invalid-value".to_string(),
            "/spec/security/keyVault/name".to_string(),
        );
        for bad in ["kv", "kv_x", "a23456789012345678901234x"] {
            assert_eq!(schema_rules(bad), vec![at.clone()], "{bad}");
        }
        assert_eq!(schema_rules("kv-x"), vec![]);
    }
}
