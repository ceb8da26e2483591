//! Landing zones (issue 13): shared monitoring and keys. The ids themselves are the schema's
//! (patterns, case-insensitive); these are the combinations, and the platform team's
//! prerequisites (the same list `gpuform render` prints, from `plan::shared`).

use super::context::Context;
use crate::diag::Diagnostic;
use crate::plan::shared;
use crate::spec::model::{DiskEncryption, KeyVault};

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let spec = ctx.spec;
    let s = &spec.spec;
    if s.security.existing_key_vault.is_some() {
        if s.security.disk_encryption == DiskEncryption::CustomerManagedKey {
            out.push(
                Diagnostic::new(
                    "existing-key-vault-cmk",
                    "customer-managed disk keys cannot live in the existing Key Vault: the disk encryption set this deployment creates would need a role on the key, in another resource group, before the scale set's disks are created",
                )
                .at("/spec/security/diskEncryption")
                .help("use `diskEncryption: platformManagedKey` with `existingKeyVault`, or remove `existingKeyVault` so the pool gets a vault of its own for the key"),
            );
        }
        if s.security.key_vault != KeyVault::default() {
            out.push(
                Diagnostic::new(
                    "existing-key-vault-settings",
                    "security.keyVault describes a vault gpuform creates, but security.existingKeyVault names one that exists: its settings would be ignored",
                )
                .at("/spec/security/keyVault")
                .help("remove `security.keyVault` (the existing vault's settings are its owner's), or remove `existingKeyVault`"),
            );
        }
    }
    if s.monitoring.existing_workspace.is_some()
        && s.monitoring.log_retention_days != crate::spec::defaults::log_retention_days()
    {
        out.push(
            Diagnostic::new(
                "existing-workspace-retention",
                format!(
                    "logRetentionDays {} does not apply to the existing workspace: its retention is its owner's",
                    s.monitoring.log_retention_days
                ),
            )
            .at("/spec/monitoring/logRetentionDays")
            .help("remove `logRetentionDays`, or ask the workspace's owner for the retention you need"),
        );
    }
    // what the platform team does first; the GPU table only when GPU monitoring will be on
    // (`enabled` is resolved after the rules, by the same predicate)
    let gpu_on = match s.monitoring.gpu.enabled {
        Some(on) => on,
        None => crate::spec::defaults::gpu_monitoring_unsupported(s, spec.size()).is_none(),
    };
    for p in shared::prerequisites(&spec.metadata.name, s, gpu_on) {
        let at = match p.kind {
            "table" => "/spec/monitoring/existingWorkspace",
            _ => "/spec/security/existingKeyVault",
        };
        out.push(
            Diagnostic::new(
                "shared-services-prerequisite",
                format!("the platform team must {}", p.what),
            )
            .at(at)
            .help("docs/src/landing-zones.md, \"Shared monitoring and keys\": why gpuform deploys nothing outside the pool's resource group"),
        );
    }
}
