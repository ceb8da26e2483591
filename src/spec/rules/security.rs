//! Key Vault and disk encryption.

use super::Context;
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
    } else if let Some(size) = ctx.size()
        && size.encryption_at_host == Some(false)
    {
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

/// Why `name` breaks Azure's Key Vault naming rules, if it does.
pub fn keyvault_name_problem(name: &str) -> Option<&'static str> {
    if !(3..=24).contains(&name.len()) {
        return Some("it must be 3-24 characters long");
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return Some("only letters, digits and hyphens are allowed");
    }
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
        assert!(keyvault_name_problem("kv").is_some());
        assert!(keyvault_name_problem("1kv-x").is_some());
        assert!(keyvault_name_problem("kv--x").is_some());
        assert!(keyvault_name_problem("kv-x-").is_some());
        assert!(keyvault_name_problem("kv_x").is_some());
        assert!(keyvault_name_problem("a23456789012345678901234x").is_some());
    }
}
