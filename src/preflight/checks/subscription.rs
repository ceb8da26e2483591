//! Subscription-wide checks: providers, features, the Key Vault name, global names.

use crate::azure::ArmError;
use crate::azure::models::DeletedVault;

use crate::preflight::data::{SubscriptionData, TRUSTED_LAUNCH_DEFAULT_FEATURE, VaultName};
use crate::preflight::fetch::Fetch;
use crate::preflight::plan::{GlobalKind, GlobalName, Plan};
use crate::preflight::report::{Check, Status};

use super::common::{check, list};

pub fn subscription_checks(plan: &Plan, sub: &SubscriptionData) -> Vec<Check> {
    let mut out = Vec::new();

    // providers: ARM registers the providers a template uses on deploy when the identity may
    // (`*/register/action`, which Contributor has), so an unregistered one is a warning.
    let mut not_registered = Vec::new();
    let mut unreadable: Option<&ArmError> = None;
    let mut skipped: Option<&str> = None;
    // Microsoft.Quota matters only when quota is short ([`quota_provider_check`])
    let deployed = || {
        sub.providers
            .iter()
            .filter(|(ns, _)| !ns.eq_ignore_ascii_case(crate::facts::quota::PROVIDER))
    };
    for (ns, f) in deployed() {
        match f {
            Fetch::Got(state) if state.eq_ignore_ascii_case("Registered") => {}
            Fetch::Got(state) => not_registered.push(format!("{ns} ({state})")),
            Fetch::Failed(e) => unreadable = unreadable.or(Some(e)),
            Fetch::Skipped(why) => skipped = Some(why),
        }
    }
    out.push(if let Some(why) = skipped {
        check("providers", "resource providers", Status::Skipped, why)
    } else if !not_registered.is_empty() {
        let names: Vec<&str> = not_registered.iter().map(|s| s.split(' ').next().unwrap_or(s)).collect();
        check("providers", "resource providers", Status::Warn, format!("not registered: {}", list(&not_registered))).fix(format!(
            "deploying registers them if the identity has */register/action (Contributor does); otherwise: {}",
            names.iter().map(|n| format!("az provider register --namespace {n}")).collect::<Vec<_>>().join("; ")
        ))
    } else if let Some(e) = unreadable {
        let mut c = Check::failed("providers", "resource providers", e);
        c.status = Status::Warn;
        c
    } else {
        check("providers", "resource providers", Status::Pass, format!("registered: {}", list(&deployed().map(|p| p.0.clone()).collect::<Vec<_>>())))
    });

    if let Some(f) = &sub.encryption_at_host {
        const ID: &str = "feature-encryption-at-host";
        const TITLE: &str = "EncryptionAtHost feature";
        out.push(match f {
            Fetch::Got(state) if state.eq_ignore_ascii_case("Registered") => {
                check(ID, TITLE, Status::Pass, "Microsoft.Compute/EncryptionAtHost is Registered")
            }
            Fetch::Got(state) => check(ID, TITLE, Status::Fail, format!("Microsoft.Compute/EncryptionAtHost is {state}; security.encryptionAtHost needs it Registered"))
                .fix(
                    "az feature register --namespace Microsoft.Compute --name EncryptionAtHost; wait until `az feature show --namespace Microsoft.Compute --name EncryptionAtHost` says Registered, \
                     then az provider register --namespace Microsoft.Compute (or set security.encryptionAtHost: false)",
                ),
            Fetch::Failed(e) => Check::failed(ID, TITLE, e),
            Fetch::Skipped(why) => check(ID, TITLE, Status::Skipped, why.clone()),
        });
    }

    // Trusted Launch as default: informational. The render always sets securityType, which
    // the default does not override ("doesn't override inputs provided as part of the
    // deployment code"), so the pool keeps the driver-compatible type either way.
    {
        const ID: &str = "feature-trusted-launch-default";
        const TITLE: &str = "Trusted Launch default";
        let name = format!(
            "{}/{}",
            crate::preflight::data::TRUSTED_LAUNCH_DEFAULT_NAMESPACE,
            TRUSTED_LAUNCH_DEFAULT_FEATURE
        );
        let ours = if plan.trusted_launch {
            "TrustedLaunch with Secure Boot off"
        } else {
            "Standard"
        };
        out.push(match &sub.trusted_launch_default {
            Fetch::Got(state) if state.eq_ignore_ascii_case("Registered") => check(ID, TITLE, Status::Pass, format!(
                "{name} is Registered: new Gen2 scale sets default to Trusted Launch with Secure Boot; the template sets securityType {ours} explicitly, so the GPU driver keeps working"
            )),
            Fetch::Got(state) => check(ID, TITLE, Status::Pass, format!(
                "{name} is {state}; the template sets securityType {ours} explicitly either way"
            )),
            Fetch::Failed(e) => {
                let mut c = Check::failed(ID, TITLE, e);
                c.status = Status::Warn;
                c
            }
            Fetch::Skipped(why) => check(ID, TITLE, Status::Skipped, why.clone()),
        });
    }

    // a serving pool's frontend: its features, the gateway's subnet, the network quota
    out.extend(crate::preflight::serving::checks(
        plan.serving.as_ref(),
        &sub.serving,
        plan.existing.is_some(),
    ));

    if let Some(p) = &plan.standby {
        let state = sub
            .providers
            .iter()
            .find(|(ns, _)| ns.eq_ignore_ascii_case(p.provider))
            .and_then(|(_, f)| match f {
                Fetch::Got(s) => Some(s.as_str()),
                _ => None,
            });
        out.push(crate::preflight::standby::provider_check(p, state));
        out.push(crate::preflight::standby::roles_check(
            p,
            sub.standby_roles.as_ref(),
        ));
        out.extend(crate::preflight::standby::scopes_check(
            p,
            sub.standby_roles.as_ref(),
        ));
    }
    out.extend(crate::preflight::policy_scope::scope_check(
        plan,
        sub.policy_scope.as_ref(),
    ));
    out.push(key_vault_check(plan, sub));
    for (g, f) in &sub.global_names {
        out.push(global_name_check(plan, g, f));
    }
    out
}

/// The vault name: soft-deleted in this subscription (blocks: Azure refuses to create a vault
/// with that name until it is recovered or purged), free, the subscription's own, or someone
/// else's.
pub(super) fn key_vault_check(plan: &Plan, sub: &SubscriptionData) -> Check {
    const KV: &str = "key-vault-name";
    const KV_TITLE: &str = "Key Vault name";
    if let Some(id) = &plan.existing_key_vault {
        return check(
            KV,
            KV_TITLE,
            Status::Skipped,
            format!(
                "the pool uses the existing vault {id} (security.existingKeyVault): no vault is created, so no name or soft-deleted vault can block it"
            ),
        );
    }
    let Some(name) = plan.vault_name() else {
        return check(
            KV,
            KV_TITLE,
            Status::Skipped,
            "the spec does not name a vault; its name is derived from the resource group: pass -g RG to check it",
        );
    };
    let derived = plan.key_vault.is_none();
    let rename = if derived {
        format!(
            "set security.keyVault.name to a new name (the derived {name} comes from the resource group's id)"
        )
    } else {
        "choose another security.keyVault.name".to_string()
    };
    let Some(fetch) = &sub.key_vault else {
        return check(KV, KV_TITLE, Status::Skipped, "not checked");
    };
    // a soft-deleted vault of this name decides, whatever checkNameAvailability says
    match &sub.deleted_vaults {
        Some(Fetch::Got(list)) => {
            if let Some(d) = list
                .iter()
                .find(|d| d.vault_name().eq_ignore_ascii_case(name))
            {
                return deleted_vault_check(name, d, &rename);
            }
        }
        Some(Fetch::Failed(e)) => {
            let mut c = check(
                KV,
                KV_TITLE,
                Status::Unknown,
                format!(
                    "could not check whether {name} is a soft-deleted vault (could not {}: {})",
                    e.operation,
                    e.summary()
                ),
            );
            c.fix = Some(match &e.help {
                Some(h) => format!("{h}; a soft-deleted vault of the same name blocks the deployment for its whole retention period (`az keyvault list-deleted`)"),
                None => "retry; a soft-deleted vault of the same name blocks the deployment (`az keyvault list-deleted`)".into(),
            });
            c.error = Some(e.clone());
            return c;
        }
        _ => {}
    }
    match fetch {
        Fetch::Skipped(why) => check(KV, KV_TITLE, Status::Skipped, why.clone()),
        Fetch::Failed(e) => Check::failed(KV, KV_TITLE, e),
        Fetch::Got(v) => {
            let a = &v.availability;
            let why = a
                .message
                .as_deref()
                .map(|m| format!(" ({})", m.trim()))
                .unwrap_or_default();
            if a.name_available {
                check(KV, KV_TITLE, Status::Pass, format!("{name} is available"))
            } else if let Ok(Some(own)) = &v.own {
                let rg = own.resource_group().unwrap_or("?");
                if plan
                    .resource_group
                    .as_deref()
                    .is_some_and(|g| g.eq_ignore_ascii_case(rg))
                {
                    check(
                        KV,
                        KV_TITLE,
                        Status::Pass,
                        format!("{name} exists in resource group {rg}: the deployment updates it"),
                    )
                } else {
                    check(
                        KV,
                        KV_TITLE,
                        Status::Warn,
                        format!("{name} already exists in this subscription (resource group {rg})"),
                    )
                    .fix(format!(
                        "deploy into resource group {rg} to reuse it, or {rename}"
                    ))
                }
            } else if a.reason.as_deref() == Some("AccountNameInvalid") {
                check(KV, KV_TITLE, Status::Fail, format!("{name} is not a valid vault name{why}"))
                    .fix("vault names are 3-24 letters, digits and hyphens, start with a letter, no consecutive hyphens")
            } else if let Err(e) = &v.own {
                // it may be this subscription's own vault (a redeploy): do not block on a guess
                let mut c = check(
                    KV,
                    KV_TITLE,
                    Status::Unknown,
                    format!(
                        "{name} is taken{why}; could not check whether it is this subscription's (could not {}: {})",
                        e.operation,
                        e.summary()
                    ),
                );
                c.fix = Some(match &e.help {
                    Some(h) => format!("{h}; or {rename}"),
                    None => format!("retry, or {rename}"),
                });
                c.error = Some(e.clone());
                c
            } else {
                check(KV, KV_TITLE, Status::Fail, format!("{name} is taken{why}")).fix(format!(
                    "vault names are global: {rename}; a vault soft-deleted in another subscription keeps its name too (`az keyvault list-deleted` there)"
                ))
            }
        }
    }
}

/// A soft-deleted vault holds the name: ARM refuses to create a vault with it ("A vault with
/// the same name already exists in deleted state") until it is recovered or purged. Recovering
/// brings back the vault with its keys and secrets, and the deployment then updates it; purging
/// is impossible while purge protection is on (the default, and required for disk encryption).
pub(super) fn deleted_vault_check(name: &str, d: &DeletedVault, rename: &str) -> Check {
    let p = &d.properties;
    let location = p.location.as_deref().unwrap_or("?");
    let mut facts = vec![format!("location {location}")];
    if let Some(rg) = d.resource_group() {
        facts.push(format!("resource group {rg}"));
    }
    if let Some(when) = &p.deletion_date {
        facts.push(format!("deleted {when}"));
    }
    if let Some(until) = &p.scheduled_purge_date {
        facts.push(format!("name reserved until {until}"));
    }
    let mut fix = format!(
        "recover it and deploy again (the deployment updates the recovered vault, keys and secrets included): `az keyvault recover --name {name} --location {location}`; or {rename}"
    );
    if p.purge_protection_enabled == Some(false) {
        fix.push_str(&format!(
            "; or, as it has no purge protection, delete it for good: `az keyvault purge --name {name} --location {location}` (its keys and secrets are lost)"
        ));
    } else {
        fix.push_str(" (purge protection is on: it cannot be purged before that date)");
    }
    check(
        "key-vault-name",
        "Key Vault name",
        Status::Fail,
        format!(
            "a soft-deleted vault in this subscription holds the name {name} ({}); Azure refuses to create a vault with it",
            facts.join(", ")
        ),
    )
    .fix(fix)
}

/// A Service Bus namespace or storage account the deployment creates: its name is a global DNS
/// name. Taken by the subscription itself in the deployment's group is a redeployment; in
/// another group the spec should use it (`create: false`); elsewhere it needs another name.
pub(super) fn global_name_check(plan: &Plan, g: &GlobalName, f: &Fetch<VaultName>) -> Check {
    let (id, title, what, field) = match g.kind {
        GlobalKind::ServiceBusNamespace => (
            "service-bus-name",
            "Service Bus namespace name",
            "namespace",
            "autoscale.queue.serviceBus",
        ),
        GlobalKind::StorageAccount => (
            "storage-account-name",
            "storage account name",
            "storage account",
            "autoscale.queue.storageQueue",
        ),
    };
    let name = &g.name;
    let v = match f {
        Fetch::Skipped(why) => return check(id, title, Status::Skipped, why.clone()),
        // Reader may lack a provider's checkNameAvailability action: ARM then decides at deploy
        // time, so a refused check warns instead of leaving the verdict unknown
        Fetch::Failed(e) if e.status == Some(403) => {
            let mut c = Check::failed(id, title, e);
            c.status = Status::Warn;
            return c;
        }
        Fetch::Failed(e) => return Check::failed(id, title, e),
        Fetch::Got(v) => v,
    };
    let a = &v.availability;
    let why = a
        .message
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(|m| format!(" ({m})"))
        .unwrap_or_default();
    let reason = a.reason.as_deref().unwrap_or("");
    if a.name_available {
        return check(id, title, Status::Pass, format!("{name} is available"));
    }
    if matches!(reason, "InvalidName" | "AccountNameInvalid") {
        return check(id, title, Status::Fail, format!("{name} is not a valid {what} name{why}"))
            .fix(match g.kind {
                GlobalKind::ServiceBusNamespace => "namespace names are 6-50 letters, digits and hyphens, start with a letter and end with a letter or digit",
                GlobalKind::StorageAccount => "storage account names are 3-24 lowercase letters and digits",
            });
    }
    if matches!(
        reason,
        "SubscriptionIsDisabled" | "TooManyNamespaceInCurrentSubscription"
    ) {
        return check(
            id,
            title,
            Status::Fail,
            format!("the subscription cannot create the {what} {name}: {reason}{why}"),
        );
    }
    match &v.own {
        Ok(Some(own)) => {
            let rg = own.resource_group().unwrap_or("?");
            match &plan.resource_group {
                Some(g) if g.eq_ignore_ascii_case(rg) => check(id, title, Status::Pass, format!(
                    "{name} exists in resource group {rg}: the deployment updates it"
                )),
                Some(_) => check(id, title, Status::Fail, format!(
                    "{name} already exists in this subscription, in resource group {rg}; the deployment cannot create it again"
                ))
                .fix(format!("it is yours: set `create: false` and `resourceGroup: {rg}` under {field} to use it, or choose another name")),
                None => check(id, title, Status::Warn, format!(
                    "{name} already exists in this subscription (resource group {rg})"
                ))
                .fix(format!("deploying into {rg} updates it; into another group, set `create: false` and `resourceGroup: {rg}` under {field}")),
            }
        }
        Ok(None) => check(id, title, Status::Fail, format!("{name} is taken{why}"))
            .fix(format!("{what} names are global DNS names and this one belongs to someone else: choose another name in {field}")),
        Err(e) => {
            let mut c = check(id, title, Status::Unknown, format!(
                "{name} is taken{why}; could not check whether it is this subscription's (could not {}: {})",
                e.operation, e.summary()
            ));
            c.fix = Some(match &e.help {
                Some(h) => format!("{h}; or choose another name in {field}"),
                None => format!("retry, or choose another name in {field}"),
            });
            c.error = Some(e.clone());
            c
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Per region
