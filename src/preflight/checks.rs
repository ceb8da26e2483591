//! The checks, as pure functions of the plan and the data: no I/O, so every verdict and message
//! is unit-tested without a server.

use crate::azure::ArmError;
use crate::azure::models::{ListShape, ResourceSku, Usage, find_usage};
use crate::catalog::prices::{PriceKind, PriceOs, PriceTable};
use crate::spec::model::OsType;

use super::plan::{Plan, Role, Target};
use super::report::{Check, Mode, QuotaNeed, Ranked, RegionReport, Report, Status, Verdict};
use super::{Fetch, GlobalKind, GlobalName, RegionData, SkuData, SubscriptionData, VaultName};
use crate::azure::models::DeletedVault;

const NOT_CHECKED: &str = "not checked:";

fn check(
    id: &'static str,
    title: &'static str,
    status: Status,
    message: impl Into<String>,
) -> Check {
    Check {
        id,
        title,
        status,
        message: message.into(),
        fix: None,
        quota: None,
        error: None,
    }
}

impl Check {
    fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }

    fn failed(id: &'static str, title: &'static str, e: &ArmError) -> Self {
        let mut c = check(
            id,
            title,
            Status::Unknown,
            format!("could not {}: {}", e.operation, e.summary()),
        );
        c.fix = e.help.clone();
        c.error = Some(e.clone());
        c
    }
}

fn list(v: &[String]) -> String {
    v.join(", ")
}

// ---------------------------------------------------------------------------------------------
// Subscription-wide

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
            "Microsoft.Compute/{}",
            super::TRUSTED_LAUNCH_DEFAULT_FEATURE
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

    out.push(key_vault_check(plan, sub));
    for (g, f) in &sub.global_names {
        out.push(global_name_check(plan, g, f));
    }
    out
}

/// The vault name: soft-deleted in this subscription (blocks: Azure refuses to create a vault
/// with that name until it is recovered or purged), free, the subscription's own, or someone
/// else's.
fn key_vault_check(plan: &Plan, sub: &SubscriptionData) -> Check {
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
fn deleted_vault_check(name: &str, d: &DeletedVault, rename: &str) -> Check {
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
fn global_name_check(plan: &Plan, g: &GlobalName, f: &Fetch<VaultName>) -> Check {
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

pub fn region_checks(plan: &Plan, target: &Target, data: &RegionData) -> Vec<Check> {
    let r = target.region.as_str();
    let mut out = Vec::new();

    out.push(match &plan.allowed_regions {
        Some(allowed) if !allowed.iter().any(|a| a == r) => check(
            "allowed-region",
            "allowed region",
            Status::Fail,
            format!("{r} is not in spec.allowedRegions ({})", list(allowed)),
        )
        .fix(if target.role == Role::Spec {
            "change spec.region or spec.allowedRegions"
        } else {
            "drop it from the alternates or allow it"
        }),
        Some(_) => check(
            "allowed-region",
            "allowed region",
            Status::Pass,
            format!("{r} is in spec.allowedRegions"),
        ),
        None => check(
            "allowed-region",
            "allowed region",
            Status::Pass,
            "spec.allowedRegions is not set",
        ),
    });

    // the size's SKU entry: offered, restrictions, zones, capabilities
    let sku: Option<&ResourceSku> = match &data.skus {
        Fetch::Got(d) => {
            let (c, sku) = size_check(plan, r, d);
            out.push(c);
            sku
        }
        Fetch::Failed(e) => {
            out.push(Check::failed("size", "size offered", e));
            out.push(check(
                "zones",
                "zones",
                Status::Unknown,
                format!("{NOT_CHECKED} the resource SKU list is unavailable"),
            ));
            out.push(check(
                "capabilities",
                "capabilities",
                Status::Unknown,
                format!("{NOT_CHECKED} the resource SKU list is unavailable"),
            ));
            None
        }
        Fetch::Skipped(why) => {
            out.push(check("size", "size offered", Status::Skipped, why.clone()));
            out.push(check("zones", "zones", Status::Skipped, "needs --skus"));
            out.push(check(
                "capabilities",
                "capabilities",
                Status::Skipped,
                "needs --skus",
            ));
            None
        }
    };
    if let Some(s) = sku {
        out.push(zones_check(plan, r, s));
        out.push(capabilities_check(plan, s));
    } else if matches!(data.skus, Fetch::Got(_)) {
        out.push(check(
            "zones",
            "zones",
            Status::Skipped,
            "the size is not offered",
        ));
        out.push(check(
            "capabilities",
            "capabilities",
            Status::Skipped,
            "the size is not offered",
        ));
    }

    out.extend(quota_checks(plan, r, sku, &data.usages));
    out
}

fn size_check<'a>(plan: &Plan, r: &str, d: &'a SkuData) -> (Check, Option<&'a ResourceSku>) {
    const ID: &str = "size";
    const TITLE: &str = "size offered";
    let size = &plan.size;
    let Some(sku) = d.entries.first() else {
        let c = if d.shape == ListShape::AzCli && !d.includes_restricted {
            check(ID, TITLE, Status::Fail, format!("{size} is not in the az vm list-skus output for {r} ({}): it is not offered there, or it is restricted for this subscription (az hides restricted sizes unless --all)", d.source))
                .fix(format!("rerun `az vm list-skus -l {r} --all -o json` to see which, or choose another region"))
        } else {
            check(
                ID,
                TITLE,
                Status::Fail,
                format!("{size} is not offered in {r}"),
            )
            .fix("choose another region (see the alternates below) or another size")
        };
        return (c, None);
    };
    let blocking: Vec<_> = sku
        .restrictions_in(r)
        .filter(|x| x.kind.eq_ignore_ascii_case("Location"))
        .collect();
    if let Some(x) = blocking.first() {
        let reason = x.reason_code.as_deref().unwrap_or("no reason given");
        let (msg, fix) = match reason {
            "NotAvailableForSubscription" => (
                format!(
                    "{size} is offered in {r} but not to this subscription (restriction Location, NotAvailableForSubscription)"
                ),
                "ask Azure support for access (New support request → Service and subscription limits (quotas) → Compute-VM, naming the size and region) or choose another region".to_string(),
            ),
            "QuotaId" => (
                format!(
                    "{size} cannot be used in {r} by this subscription's offer type (restriction Location, QuotaId; e.g. free trial or sponsorship)"
                ),
                "use a pay-as-you-go, EA or MCA subscription, or choose another size".to_string(),
            ),
            other => (
                format!(
                    "{size} is restricted in {r} for this subscription (restriction Location, {other})"
                ),
                "choose another region".to_string(),
            ),
        };
        return (check(ID, TITLE, Status::Fail, msg).fix(fix), Some(sku));
    }
    let zones = sku.zones_in(r);
    let zones = if zones.is_empty() {
        "no availability zones".to_string()
    } else {
        format!("zones {}", list(&zones))
    };
    (
        check(
            ID,
            TITLE,
            Status::Pass,
            format!("{size} is offered in {r} ({zones})"),
        ),
        Some(sku),
    )
}

fn zones_check(plan: &Plan, r: &str, sku: &ResourceSku) -> Check {
    const ID: &str = "zones";
    let offered = sku.zones_in(r);
    let mut restricted: Vec<String> = Vec::new();
    let mut reason = String::new();
    for x in sku
        .restrictions_in(r)
        .filter(|x| x.kind.eq_ignore_ascii_case("Zone"))
    {
        if let Some(info) = &x.restriction_info {
            restricted.extend(info.zones.iter().cloned());
        }
        reason = x.reason_code.clone().unwrap_or_default();
    }
    restricted.sort();
    restricted.dedup();
    let usable: Vec<String> = offered
        .iter()
        .filter(|z| !restricted.contains(z))
        .cloned()
        .collect();
    if plan.zones.is_empty() {
        let note = if restricted.is_empty() {
            String::new()
        } else {
            format!(
                "; zones {} are restricted for this subscription, which regional placement does not need",
                list(&restricted)
            )
        };
        return check(
            ID,
            "zones",
            Status::Pass,
            format!("regional placement (compute.zones not set){note}"),
        );
    }
    let missing: Vec<String> = plan
        .zones
        .iter()
        .filter(|z| !offered.contains(z))
        .cloned()
        .collect();
    let blocked: Vec<String> = plan
        .zones
        .iter()
        .filter(|z| restricted.contains(z))
        .cloned()
        .collect();
    let fix = if usable.is_empty() {
        "remove compute.zones (regional placement) or choose another region".to_string()
    } else {
        format!("set compute.zones to [{}] or remove it", list(&usable))
    };
    if offered.is_empty() {
        return check(
            ID,
            "zones",
            Status::Fail,
            format!(
                "{} has no availability zones in {r}; the spec asks for zones {}",
                plan.size,
                list(&plan.zones)
            ),
        )
        .fix("remove compute.zones (regional placement) or choose another region");
    }
    if !blocked.is_empty() {
        return check(ID, "zones", Status::Fail, format!("zones {} are restricted for this subscription in {r} (restriction Zone, {reason}); usable: {}", list(&blocked), if usable.is_empty() { "none".into() } else { list(&usable) })).fix(fix);
    }
    if !missing.is_empty() {
        return check(
            ID,
            "zones",
            Status::Fail,
            format!(
                "{} is not offered in zones {} of {r} (offered: {})",
                plan.size,
                list(&missing),
                list(&offered)
            ),
        )
        .fix(fix);
    }
    check(
        ID,
        "zones",
        Status::Pass,
        format!("zones {} are available", list(&plan.zones)),
    )
}

fn capabilities_check(plan: &Plan, sku: &ResourceSku) -> Check {
    const ID: &str = "capabilities";
    let mut ok = Vec::new();
    let mut bad: Vec<(String, String)> = Vec::new();
    let mut unknown = Vec::new();
    let mut need =
        |name: &str, wanted: bool, label: &str, fix: &str| match sku.capability_bool(name) {
            Some(v) if v == wanted => ok.push(label.to_string()),
            Some(_) => bad.push((
                format!("{name} is {}", if wanted { "False" } else { "True" }),
                fix.to_string(),
            )),
            None => unknown.push(name.to_string()),
        };
    if plan.encryption_at_host {
        need(
            "EncryptionAtHostSupported",
            true,
            "encryption at host",
            "set security.encryptionAtHost: false",
        );
    }
    if plan.spot > 0 {
        need(
            "LowPriorityCapable",
            true,
            "Spot",
            "set capacity.regularPercentAboveBase: 100 (no Spot)",
        );
    }
    if plan.accelerated_networking {
        need(
            "AcceleratedNetworkingEnabled",
            true,
            "accelerated networking",
            "set compute.acceleratedNetworking: false",
        );
    }
    if plan.trusted_launch {
        // absent means supported
        if sku.capability_bool("TrustedLaunchDisabled") == Some(true) {
            bad.push((
                "TrustedLaunchDisabled is True".into(),
                "set compute.securityType: standard".into(),
            ));
        } else {
            ok.push("Trusted Launch".into());
        }
    }
    let generation = plan.generation_label();
    match sku.capability("HyperVGenerations") {
        Some(g)
            if g.split(',')
                .any(|x| x.trim().eq_ignore_ascii_case(generation)) =>
        {
            ok.push(format!("Hyper-V {generation} image"))
        }
        Some(g) => bad.push((
            format!("HyperVGenerations is {g}, the image is {generation}"),
            format!("use a {g} image"),
        )),
        None => unknown.push("HyperVGenerations".into()),
    }
    if !bad.is_empty() {
        let (msgs, fixes): (Vec<String>, Vec<String>) = bad.into_iter().unzip();
        return check(ID, "capabilities", Status::Fail, msgs.join("; ")).fix(fixes.join("; "));
    }
    let mut msg = format!("supports {}", ok.join(", "));
    if ok.is_empty() {
        msg = "nothing special needed".into();
    }
    if !unknown.is_empty() {
        return check(
            ID,
            "capabilities",
            Status::Warn,
            format!("{msg}; the SKU does not report {}", list(&unknown)),
        );
    }
    check(ID, "capabilities", Status::Pass, msg)
}

fn quota_checks(
    plan: &Plan,
    r: &str,
    sku: Option<&ResourceSku>,
    usages: &Fetch<Vec<Usage>>,
) -> Vec<Check> {
    const IDS: [(&str, &str); 4] = [
        ("quota-family", "family vCPU quota"),
        ("quota-cores", "regional vCPU quota"),
        ("quota-spot", "Spot vCPU quota"),
        ("quota-scale-sets", "scale set quota"),
    ];
    let usages = match usages {
        Fetch::Got(u) => u,
        Fetch::Failed(e) => return vec![Check::failed(IDS[0].0, IDS[0].1, e)],
        Fetch::Skipped(why) => {
            return vec![check(IDS[0].0, "vCPU quota", Status::Skipped, why.clone())];
        }
    };
    let live_vcpus = sku
        .and_then(|s| s.capability("vCPUs"))
        .and_then(|v| v.trim().parse::<u32>().ok());
    let Some(vcpus) = live_vcpus.or(plan.vcpus) else {
        return vec![check(
            IDS[0].0,
            "vCPU quota",
            Status::Unknown,
            format!(
                "the vCPU count of {} is unknown (not in the catalog, no SKU data)",
                plan.size
            ),
        )];
    };
    let (family, family_is_live) = match (sku.and_then(|s| s.family.clone()), &plan.quota_family) {
        (Some(f), _) => (Some(f), true),
        (None, Some(f)) => (Some(f.clone()), false),
        (None, None) => (None, false),
    };
    let vc = i64::from(vcpus);
    let regular = i64::from(plan.regular) * vc;
    let spot = i64::from(plan.spot) * vc;
    // a redeployment: the pool's running instances are in the usage already
    let existing = plan.existing.as_ref().filter(|x| x.region == r);
    let (had_regular, had_spot, had_set) = existing.map_or((0, 0, 0), |x| {
        (i64::from(x.regular) * vc, i64::from(x.spot) * vc, 1)
    });
    let in_use = |n: i64| match existing {
        Some(x) if n > 0 => format!(" ({n} already in use by {})", x.name),
        _ => String::new(),
    };
    let mut out = Vec::new();

    let quota = |id: &'static str,
                 title: &'static str,
                 name: &str,
                 needed: i64,
                 already: i64,
                 why: String,
                 missing_is_fail: bool| {
        let Some((u, exact)) = find_usage(usages, name) else {
            let status = if missing_is_fail {
                Status::Fail
            } else {
                Status::Unknown
            };
            let msg = format!(
                "no quota named {name:?} in the usage list for {r}{}",
                if missing_is_fail {
                    ": the size is most likely not offered there"
                } else {
                    ""
                }
            );
            return check(id, title, status, msg);
        };
        let already = already.min(u.current_value.max(0));
        let need = QuotaNeed {
            quota: u.name.value.clone(),
            label: u.label().to_string(),
            matched_exactly: exact,
            current_limit: u.limit,
            current_usage: u.current_value,
            already_in_use: already,
            additional_required: (needed - already).max(0),
            new_limit_required: (u.current_value - already).saturating_add(needed),
        };
        let sufficient = need.new_limit_required <= need.current_limit;
        let figures = format!(
            "needs {needed} for {why}{}; usage {} of limit {}",
            in_use(already),
            need.current_usage,
            need.current_limit
        );
        let mut c = if sufficient {
            check(
                id,
                title,
                Status::Pass,
                format!("{}: {figures}", need.label),
            )
        } else {
            check(id, title, Status::Fail, format!("{}: {figures}", need.label)).fix(format!(
                "request a new limit of at least {} for {:?} in {r} (Current Limit: {}, Current Usage: {}, Additional Required: {})",
                need.new_limit_required, need.quota, need.current_limit, need.current_usage, need.additional_required
            ))
        };
        c.quota = Some(need);
        c
    };

    let vm_word = |n: u32, kind: &str| {
        format!(
            "{n} {kind} VM{} x {vcpus} vCPUs",
            if n == 1 { "" } else { "s" }
        )
    };
    if plan.regular > 0 {
        match &family {
            Some(f) => out.push(quota(
                IDS[0].0,
                IDS[0].1,
                f,
                regular,
                had_regular,
                vm_word(plan.regular, "regular"),
                family_is_live,
            )),
            None => out.push(check(
                IDS[0].0,
                IDS[0].1,
                Status::Unknown,
                format!("the quota family of {} is unknown", plan.size),
            )),
        }
        out.push(quota(
            IDS[1].0,
            IDS[1].1,
            crate::facts::quota::REGIONAL_VCPUS,
            regular,
            had_regular,
            vm_word(plan.regular, "regular"),
            false,
        ));
    } else {
        out.push(check(
            IDS[0].0,
            IDS[0].1,
            Status::Pass,
            "not used: every instance is Spot (Spot draws only on the Spot vCPU quota)",
        ));
    }
    if plan.spot > 0 {
        out.push(quota(
            IDS[2].0,
            IDS[2].1,
            crate::facts::quota::SPOT_VCPUS,
            spot,
            had_spot,
            vm_word(plan.spot, "Spot"),
            false,
        ));
    }
    if plan.dev_box {
        // the dev box is one standalone VM: the regional VM count, not scale sets
        out.push(quota(
            "quota-vms",
            "VM count quota",
            "virtualMachines",
            1,
            had_set,
            "1 VM (the dev box)".into(),
            false,
        ));
    } else {
        out.push(quota(
            IDS[3].0,
            IDS[3].1,
            "virtualMachineScaleSets",
            1,
            had_set,
            "1 scale set".into(),
            false,
        ));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Verdicts and ranking

pub fn verdict(checks: &[&Check]) -> Verdict {
    if checks.iter().any(|c| c.status == Status::Fail) {
        Verdict::Blocked
    } else if checks.iter().any(|c| c.status == Status::Unknown) {
        Verdict::Unknown
    } else {
        Verdict::Pass
    }
}

/// Context the report shows but the checks do not use.
#[derive(Debug, Clone, Default)]
pub struct Context {
    pub spec_path: String,
    pub mode: Option<Mode>,
    pub subscription: Option<String>,
    pub credential: Option<String>,
    pub cloud: Option<String>,
}

/// When a region's quota is short, the fix is `gpuform quota request`, which needs the
/// subscription registered for Microsoft.Quota: say so before the user runs it.
fn quota_provider_check(sub: &SubscriptionData, regions: &[RegionReport]) -> Option<Check> {
    let short = regions
        .iter()
        .flat_map(|r| r.checks.iter())
        .any(|c| c.id.starts_with("quota-") && c.status == Status::Fail);
    if !short {
        return None;
    }
    let ns = crate::facts::quota::PROVIDER;
    match sub.providers.iter().find(|(n, _)| n.eq_ignore_ascii_case(ns)).map(|p| &p.1) {
        Some(Fetch::Got(state)) if !state.eq_ignore_ascii_case("Registered") => Some(
            check(
                "provider-quota",
                "Microsoft.Quota provider",
                Status::Warn,
                format!("{ns} is {state}: `gpuform quota request` needs it to file the missing quota"),
            )
            .fix(format!(
                "az provider register --namespace {ns} (can take minutes), or gpuform quota request SPEC --register-providers"
            )),
        ),
        _ => None,
    }
}

pub fn build(
    plan: &Plan,
    regions: &[RegionData],
    sub: &SubscriptionData,
    ctx: Context,
    prices: &PriceTable,
) -> Report {
    let subscription_checks = subscription_checks(plan, sub);
    let os = if plan.os == OsType::Windows {
        PriceOs::Windows
    } else {
        PriceOs::Linux
    };
    let reports: Vec<RegionReport> = plan
        .targets
        .iter()
        .zip(regions)
        .enumerate()
        .map(|(i, (t, d))| {
            let mut checks = region_checks(plan, t, d);
            // landing-zone checks concern the spec's region (the subnet and the policy
            // evaluation are the deployment's)
            if i == 0
                && let (Some(inputs), Some(data)) = (&plan.landing_zone, &sub.landing_zone)
            {
                checks.extend(super::landing_zone::checks(inputs, data));
            }
            if i == 0
                && let (Some(inputs), Some(data)) = (&plan.workspace, &sub.workspace)
            {
                checks.extend(super::landing_zone::workspace_checks(inputs, data));
            }
            let all: Vec<&Check> = checks.iter().chain(subscription_checks.iter()).collect();
            let mut verdict = verdict(&all);
            // offline without a single size or quota check for the region: not a pass
            if verdict == Verdict::Pass
                && checks
                    .iter()
                    .all(|c| c.id == "allowed-region" || c.status == Status::Skipped)
            {
                verdict = Verdict::NotChecked;
            }
            let reasons = all
                .iter()
                .filter(|c| {
                    matches!(c.status, Status::Fail | Status::Unknown)
                        && (verdict == Verdict::Unknown || c.status == Status::Fail)
                })
                .filter(|c| !c.message.starts_with(NOT_CHECKED))
                .map(|c| format!("{}: {}", c.title, c.message))
                .collect();
            let skipped = checks
                .iter()
                .filter(|c| c.status == Status::Skipped)
                .count();
            let ran = |id: &str| {
                checks
                    .iter()
                    .any(|c| c.id == id && c.status != Status::Skipped)
            };
            let complete = ran("size") && ran("quota-family");
            RegionReport {
                region: t.region.clone(),
                role: t.role,
                verdict,
                reasons,
                checks,
                on_demand_hourly: prices.hourly(&plan.size, &t.region, os, PriceKind::OnDemand),
                skipped,
                complete,
            }
        })
        .collect();
    let mut ranking: Vec<Ranked> = reports
        .iter()
        .filter(|r| r.role != Role::Spec && r.verdict == Verdict::Pass && r.complete)
        .map(|r| Ranked {
            region: r.region.clone(),
            on_demand_hourly: r.on_demand_hourly,
            spot_placement_score: None,
            spot_eviction_rate: None,
        })
        .collect();
    // cheapest first; unknown prices last, then by name for a stable order
    ranking.sort_by(|a, b| match (a.on_demand_hourly, b.on_demand_hourly) {
        (Some(x), Some(y)) => x.total_cmp(&y).then_with(|| a.region.cmp(&b.region)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.region.cmp(&b.region),
    });
    let mut reports = reports;
    if let Some(spot) = &sub.spot {
        super::spot::fold(spot, &mut reports, &mut ranking);
    }
    let mut subscription_checks = subscription_checks;
    subscription_checks.extend(quota_provider_check(sub, &reports));
    let primary = reports
        .first()
        .map(|r| r.verdict)
        .unwrap_or(Verdict::Unknown);
    let price_as_of = prices
        .source_for(os, PriceKind::OnDemand)
        .map(|s| s.as_of.clone());
    Report {
        spec: ctx.spec_path,
        name: plan.name.clone(),
        size: plan.size.clone(),
        vcpus: plan.vcpus,
        quota_family: plan.quota_family.clone(),
        max: plan.max,
        regular: plan.regular,
        spot: plan.spot,
        mode: ctx.mode.unwrap_or(Mode::Live),
        subscription: ctx.subscription,
        credential: ctx.credential,
        cloud: ctx.cloud,
        verdict: primary,
        subscription_checks,
        regions: reports,
        ranking,
        currency: prices.currency.clone(),
        price_as_of,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::azure::ErrorKind;
    use crate::azure::models::{Capability, LocationInfo, Restriction, RestrictionInfo, UsageName};
    use crate::preflight::plan::Existing;
    use crate::spec::model::HyperVGeneration;

    fn plan() -> Plan {
        Plan {
            name: "t".into(),
            size: "Standard_NC8as_T4_v3".into(),
            vcpus: Some(8),
            quota_family: Some("Standard NCASv3_T4 Family".into()),
            max: 4,
            regular: 1,
            spot: 3,
            zones: vec![],
            generation: HyperVGeneration::V2,
            os: OsType::Linux,
            encryption_at_host: true,
            accelerated_networking: true,
            trusted_launch: false,
            dev_box: false,
            providers: vec!["Microsoft.Compute"],
            key_vault: None,
            key_vault_derived: None,
            key_vault_prefix: "kv-t".into(),
            existing_key_vault: None,
            global_names: vec![],
            resource_group: None,
            allowed_regions: None,
            targets: vec![
                Target {
                    region: "eastus".into(),
                    role: Role::Spec,
                },
                Target {
                    region: "westus3".into(),
                    role: Role::Alternate,
                },
                Target {
                    region: "centralus".into(),
                    role: Role::Alternate,
                },
            ],
            existing: None,
            landing_zone: None,
            workspace: None,
        }
    }

    fn sku(caps: &[(&str, &str)], zones: &[&str]) -> ResourceSku {
        ResourceSku {
            resource_type: "virtualMachines".into(),
            name: "Standard_NC8as_T4_v3".into(),
            family: Some("Standard NCASv3_T4 Family".into()),
            locations: vec!["eastus".into()],
            location_info: vec![LocationInfo {
                location: "eastus".into(),
                zones: zones.iter().map(|z| z.to_string()).collect(),
            }],
            capabilities: caps
                .iter()
                .map(|(n, v)| Capability {
                    name: n.to_string(),
                    value: v.to_string(),
                })
                .collect(),
            ..Default::default()
        }
    }

    fn good_caps() -> Vec<(&'static str, &'static str)> {
        vec![
            ("vCPUs", "8"),
            ("HyperVGenerations", "V1,V2"),
            ("LowPriorityCapable", "True"),
            ("EncryptionAtHostSupported", "True"),
            ("AcceleratedNetworkingEnabled", "True"),
        ]
    }

    fn usage(v: &str, used: i64, limit: i64) -> Usage {
        Usage {
            name: UsageName {
                value: v.into(),
                localized_value: Some(format!("{v} label")),
            },
            current_value: used,
            limit,
            unit: None,
            local_name: None,
        }
    }

    fn usages(family: &str, family_limit: i64) -> Vec<Usage> {
        vec![
            usage("cores", 0, 100),
            usage("lowPriorityCores", 0, 100),
            usage("virtualMachineScaleSets", 0, 2500),
            usage(family, 0, family_limit),
        ]
    }

    fn data(s: ResourceSku, u: Vec<Usage>) -> RegionData {
        RegionData {
            skus: Fetch::Got(SkuData {
                entries: vec![s],
                shape: ListShape::Rest,
                includes_restricted: false,
                source: "ARM".into(),
            }),
            usages: Fetch::Got(u),
        }
    }

    fn by_id<'a>(c: &'a [Check], id: &str) -> &'a Check {
        c.iter()
            .find(|x| x.id == id)
            .unwrap_or_else(|| panic!("no {id} in {c:#?}"))
    }

    #[test]
    fn family_falls_back_to_a_case_and_space_insensitive_match() {
        let c = region_checks(
            &plan(),
            &plan().targets[0],
            &data(
                sku(&good_caps(), &[]),
                usages("standard ncasv3_t4 FAMILY", 8),
            ),
        );
        let f = by_id(&c, "quota-family");
        assert_eq!(f.status, Status::Pass, "{f:?}");
        assert!(!f.quota.as_ref().unwrap().matched_exactly);
    }

    #[test]
    fn spot_only_pools_do_not_need_family_or_regional_quota() {
        let mut p = plan();
        p.regular = 0;
        p.spot = 4;
        let c = region_checks(
            &p,
            &p.targets[0],
            &data(
                sku(&good_caps(), &[]),
                usages("Standard NCASv3_T4 Family", 0),
            ),
        );
        assert_eq!(by_id(&c, "quota-family").status, Status::Pass);
        assert!(c.iter().all(|x| x.id != "quota-cores"));
        let spot = by_id(&c, "quota-spot");
        assert_eq!(
            (
                spot.status,
                spot.quota.as_ref().unwrap().additional_required
            ),
            (Status::Pass, 32)
        );
    }

    #[test]
    fn a_family_missing_from_the_usage_list_blocks_when_the_sku_names_it() {
        let c = region_checks(
            &plan(),
            &plan().targets[0],
            &data(sku(&good_caps(), &[]), usages("standardNCSv3Family", 48)),
        );
        let f = by_id(&c, "quota-family");
        assert_eq!(f.status, Status::Fail);
        assert!(
            f.message
                .contains("the size is most likely not offered there"),
            "{}",
            f.message
        );
    }

    #[test]
    fn a_redeployment_does_not_count_its_own_running_instances_twice() {
        // family limit 16, fully used by this pool's 1 regular + 3 Spot VMs; peak is the same
        let mut p = plan();
        p.existing = Some(Existing {
            name: "vmss-t".into(),
            region: "eastus".into(),
            regular: 1,
            spot: 3,
        });
        let mut u = usages("Standard NCASv3_T4 Family", 8);
        u[0] = usage("cores", 8, 8);
        u[1] = usage("lowPriorityCores", 24, 24);
        u[2] = usage("virtualMachineScaleSets", 1, 1);
        u[3].current_value = 8;
        let c = region_checks(&p, &p.targets[0], &data(sku(&good_caps(), &[]), u.clone()));
        for id in [
            "quota-family",
            "quota-cores",
            "quota-spot",
            "quota-scale-sets",
        ] {
            assert_eq!(by_id(&c, id).status, Status::Pass, "{:#?}", by_id(&c, id));
        }
        let f = by_id(&c, "quota-family");
        assert_eq!(
            f.message,
            "Standard NCASv3_T4 Family label: needs 8 for 1 regular VM x 8 vCPUs (8 already in use by vmss-t); usage 8 of limit 8"
        );
        let q = f.quota.as_ref().unwrap();
        assert_eq!((q.additional_required, q.new_limit_required), (0, 8));
        // growing to 2 regular VMs needs only the difference
        p.regular = 2;
        let c = region_checks(&p, &p.targets[0], &data(sku(&good_caps(), &[]), u.clone()));
        let f = by_id(&c, "quota-family");
        assert_eq!(f.status, Status::Fail);
        let q = f.quota.as_ref().unwrap();
        assert_eq!((q.additional_required, q.new_limit_required), (8, 16));
        // the scale set lives in eastus: westus3's quota is untouched by it
        let c = region_checks(&p, &p.targets[1], &data(sku(&good_caps(), &[]), u));
        assert_eq!(by_id(&c, "quota-scale-sets").status, Status::Fail);
    }

    /// A dev box is one standalone VM: it needs one of the regional VM count, not a scale set.
    #[test]
    fn a_dev_box_needs_one_vm_not_a_scale_set() {
        let mut p = plan();
        p.dev_box = true;
        p.max = 1;
        p.regular = 1;
        p.spot = 0;
        let mut u = usages("Standard NCASv3_T4 Family", 8);
        // no scale set can be created at all: irrelevant to a dev box
        u[2] = usage("virtualMachineScaleSets", 5, 5);
        u.push(usage("virtualMachines", 25000, 25000));
        let c = region_checks(&p, &p.targets[0], &data(sku(&good_caps(), &[]), u.clone()));
        assert!(c.iter().all(|x| x.id != "quota-scale-sets"), "{c:#?}");
        let vms = by_id(&c, "quota-vms");
        assert_eq!(vms.status, Status::Fail);
        assert_eq!(vms.quota.as_ref().unwrap().quota, "virtualMachines");
        assert!(
            vms.message.contains("1 VM (the dev box)"),
            "{}",
            vms.message
        );
        u.last_mut().unwrap().current_value = 3;
        let c = region_checks(&p, &p.targets[0], &data(sku(&good_caps(), &[]), u));
        assert_eq!(by_id(&c, "quota-vms").status, Status::Pass);
    }

    #[test]
    fn capabilities_the_spec_needs_are_checked() {
        let caps = vec![
            ("vCPUs", "8"),
            ("HyperVGenerations", "V1"),
            ("LowPriorityCapable", "False"),
            ("EncryptionAtHostSupported", "False"),
            ("AcceleratedNetworkingEnabled", "True"),
        ];
        let c = region_checks(
            &plan(),
            &plan().targets[0],
            &data(sku(&caps, &[]), usages("Standard NCASv3_T4 Family", 48)),
        );
        let cap = by_id(&c, "capabilities");
        assert_eq!(cap.status, Status::Fail);
        assert_eq!(
            cap.message,
            "EncryptionAtHostSupported is False; LowPriorityCapable is False; HyperVGenerations is V1, the image is V2"
        );
        assert_eq!(
            cap.fix.as_deref(),
            Some(
                "set security.encryptionAtHost: false; set capacity.regularPercentAboveBase: 100 (no Spot); use a V1 image"
            )
        );
    }

    #[test]
    fn zones_requested_in_a_region_without_zones_block() {
        let mut p = plan();
        p.zones = vec!["1".into()];
        let c = region_checks(
            &p,
            &p.targets[0],
            &data(
                sku(&good_caps(), &[]),
                usages("Standard NCASv3_T4 Family", 48),
            ),
        );
        let z = by_id(&c, "zones");
        assert_eq!(z.status, Status::Fail);
        assert!(
            z.message.contains("has no availability zones in eastus"),
            "{}",
            z.message
        );
        let c = region_checks(
            &p,
            &p.targets[0],
            &data(
                sku(&good_caps(), &["2", "3"]),
                usages("Standard NCASv3_T4 Family", 48),
            ),
        );
        assert_eq!(
            by_id(&c, "zones").fix.as_deref(),
            Some("set compute.zones to [2, 3] or remove it")
        );
    }

    #[test]
    fn quota_id_restrictions_name_the_offer_type() {
        let mut s = sku(&good_caps(), &[]);
        s.restrictions = vec![Restriction {
            kind: "Location".into(),
            values: vec!["eastus".into()],
            restriction_info: Some(RestrictionInfo {
                locations: vec!["eastus".into()],
                zones: vec![],
            }),
            reason_code: Some("QuotaId".into()),
        }];
        let c = region_checks(
            &plan(),
            &plan().targets[0],
            &data(s, usages("Standard NCASv3_T4 Family", 48)),
        );
        let size = by_id(&c, "size");
        assert_eq!(size.status, Status::Fail);
        assert!(
            size.message
                .contains("this subscription's offer type (restriction Location, QuotaId"),
            "{}",
            size.message
        );
    }

    #[test]
    fn verdicts_rank_cheapest_first_with_unknown_prices_last() {
        let ok = || {
            data(
                sku(&good_caps(), &[]),
                usages("Standard NCASv3_T4 Family", 48),
            )
        };
        let mut prices = PriceTable::new("USD");
        prices.insert(
            "Standard_NC8as_T4_v3",
            "eastus",
            PriceOs::Linux,
            PriceKind::OnDemand,
            0.9,
        );
        prices.insert(
            "Standard_NC8as_T4_v3",
            "centralus",
            PriceOs::Linux,
            PriceKind::OnDemand,
            0.7,
        );
        let mut t = plan();
        t.targets.push(Target {
            region: "norway".into(),
            role: Role::Requested,
        });
        let sub = SubscriptionData {
            providers: vec![("Microsoft.Compute".into(), Fetch::Got("Registered".into()))],
            encryption_at_host: Some(Fetch::Got("Registered".into())),
            key_vault: None,
            deleted_vaults: None,
            global_names: vec![],
            trusted_launch_default: Fetch::Got("NotRegistered".into()),
            landing_zone: None,
            workspace: None,
            spot: None,
        };
        let r = build(
            &t,
            &[ok(), ok(), ok(), ok()],
            &sub,
            Context::default(),
            &prices,
        );
        assert_eq!(r.verdict, Verdict::Pass);
        let order: Vec<_> = r
            .ranking
            .iter()
            .map(|k| (k.region.as_str(), k.on_demand_hourly))
            .collect();
        assert_eq!(
            order,
            [
                ("centralus", Some(0.7)),
                ("norway", None),
                ("westus3", None)
            ]
        );
    }

    #[test]
    fn a_failed_check_outranks_an_unknown_one_in_the_verdict() {
        let fail = check("a", "a", Status::Fail, "");
        let unknown = check("b", "b", Status::Unknown, "");
        let skipped = check("c", "c", Status::Skipped, "");
        assert_eq!(verdict(&[&unknown, &fail]), Verdict::Blocked);
        assert_eq!(verdict(&[&unknown, &skipped]), Verdict::Unknown);
        assert_eq!(verdict(&[&skipped]), Verdict::Pass);
    }

    #[test]
    fn a_usage_error_makes_the_quota_unknown_with_its_fix() {
        let mut e = ArmError::new(
            ErrorKind::Http,
            "read compute quota usage in eastus",
            "denied",
        );
        e.status = Some(403);
        e.help = Some("the identity needs Microsoft.Compute/locations/usages/read".into());
        let d = RegionData {
            usages: Fetch::Failed(e),
            ..data(sku(&good_caps(), &[]), vec![])
        };
        let c = region_checks(&plan(), &plan().targets[0], &d);
        let q = by_id(&c, "quota-family");
        assert_eq!(q.status, Status::Unknown);
        assert_eq!(
            q.message,
            "could not read compute quota usage in eastus: HTTP 403: denied"
        );
        assert_eq!(
            q.fix.as_deref(),
            Some("the identity needs Microsoft.Compute/locations/usages/read")
        );
    }

    fn sub_with(
        key_vault: Option<Fetch<VaultName>>,
        deleted: Option<Fetch<Vec<DeletedVault>>>,
        globals: Vec<(GlobalName, Fetch<VaultName>)>,
    ) -> SubscriptionData {
        SubscriptionData {
            providers: vec![("Microsoft.Compute".into(), Fetch::Got("Registered".into()))],
            encryption_at_host: None,
            key_vault,
            deleted_vaults: deleted,
            global_names: globals,
            trusted_launch_default: Fetch::Got("NotRegistered".into()),
            landing_zone: None,
            workspace: None,
            spot: None,
        }
    }

    #[test]
    fn an_unregistered_quota_provider_is_reported_only_when_quota_is_short() {
        let region = |status: Status| RegionReport {
            region: "eastus".into(),
            role: Role::Spec,
            verdict: Verdict::Blocked,
            reasons: vec![],
            checks: vec![check("quota-family", "family vCPU quota", status, "x")],
            on_demand_hourly: None,
            skipped: 0,
            complete: true,
        };
        let mut sub = sub_with(None, None, vec![]);
        sub.providers
            .push(("Microsoft.Quota".into(), Fetch::Got("NotRegistered".into())));
        // the deployment's providers check does not warn about it ...
        let c = subscription_checks(&plan(), &sub);
        assert_eq!(by_id(&c, "providers").status, Status::Pass, "{c:#?}");
        assert!(!by_id(&c, "providers").message.contains("Quota"));
        // ... quota that suffices needs no quota request ...
        assert!(quota_provider_check(&sub, &[region(Status::Pass)]).is_none());
        // ... and short quota says to register it before `quota request`
        let q = quota_provider_check(&sub, &[region(Status::Fail)]).unwrap();
        assert_eq!(q.status, Status::Warn);
        assert!(
            q.message.contains("Microsoft.Quota is NotRegistered"),
            "{q:?}"
        );
        let fix = q.fix.unwrap();
        assert!(
            fix.contains("az provider register --namespace Microsoft.Quota"),
            "{fix}"
        );
        assert!(fix.contains("--register-providers"), "{fix}");
        // registered: nothing to say
        sub.providers.last_mut().unwrap().1 = Fetch::Got("Registered".into());
        assert!(quota_provider_check(&sub, &[region(Status::Fail)]).is_none());
    }

    fn free() -> VaultName {
        VaultName {
            availability: crate::azure::models::NameAvailability {
                name_available: true,
                reason: None,
                message: None,
            },
            own: Ok(None),
        }
    }

    fn taken(own: Option<&str>) -> VaultName {
        VaultName {
            availability: crate::azure::models::NameAvailability {
                name_available: false,
                reason: Some("AlreadyExists".into()),
                message: None,
            },
            own: Ok(own.map(|rg| crate::azure::models::ResourceRef {
                id: format!("/subscriptions/s/resourceGroups/{rg}/providers/X/y/n"),
                name: "n".into(),
                location: None,
            })),
        }
    }

    fn deleted(name: &str, purge_protection: bool) -> DeletedVault {
        serde_json::from_value(serde_json::json!({
            "id": format!("/subscriptions/s/providers/Microsoft.KeyVault/locations/eastus2/deletedVaults/{name}"),
            "name": name,
            "type": "Microsoft.KeyVault/deletedVaults",
            "properties": {
                "vaultId": format!("/subscriptions/s/resourceGroups/rg-old/providers/Microsoft.KeyVault/vaults/{name}"),
                "location": "eastus2", "deletionDate": "2026-11-30T10:00:00Z",
                "scheduledPurgeDate": "2027-02-28T10:00:00Z", "purgeProtectionEnabled": purge_protection, "tags": {}
            }
        }))
        .unwrap()
    }

    #[test]
    fn an_existing_vault_skips_the_name_and_soft_delete_checks() {
        let mut p = plan();
        p.existing_key_vault = Some(
            "/subscriptions/s/resourceGroups/rg-keys/providers/Microsoft.KeyVault/vaults/kv-x"
                .into(),
        );
        p.set_resource_group("00000000-0000-0000-0000-000000000000", "my-rg", None);
        // nothing to fetch: the live run asks for no name and no deleted vaults
        assert_eq!(p.vault_name(), None);
        // even a soft-deleted namesake in the data does not block
        let c = subscription_checks(
            &p,
            &sub_with(
                Some(Fetch::Got(taken(None))),
                Some(Fetch::Got(vec![deleted("kv-x", true)])),
                vec![],
            ),
        );
        let kv = by_id(&c, "key-vault-name");
        assert_eq!(kv.status, Status::Skipped);
        assert!(kv.message.contains("existing vault"), "{}", kv.message);
    }

    #[test]
    fn the_derived_vault_name_is_checked_once_the_group_is_known() {
        let mut p = plan();
        let c = subscription_checks(&p, &sub_with(None, None, vec![]));
        let kv = by_id(&c, "key-vault-name");
        assert_eq!(kv.status, Status::Skipped);
        assert!(kv.message.contains("pass -g RG"), "{}", kv.message);
        p.set_resource_group("00000000-0000-0000-0000-000000000000", "my-rg", None);
        // kv-t + uniqueString('/subscriptions/0000.../resourceGroups/my-rg')
        assert_eq!(p.vault_name(), Some("kv-t-bmg7c6xu4tw46"));
        let c = subscription_checks(
            &p,
            &sub_with(Some(Fetch::Got(free())), Some(Fetch::Got(vec![])), vec![]),
        );
        assert_eq!(by_id(&c, "key-vault-name").status, Status::Pass);
        // a group that exists: its id as ARM returns it wins
        p.set_resource_group(
            "00000000-0000-0000-0000-000000000000",
            "my-rg",
            Some("/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/My-RG"),
        );
        assert_ne!(p.vault_name(), Some("kv-t-bmg7c6xu4tw46"));
    }

    #[test]
    fn a_soft_deleted_vault_of_the_name_blocks_with_recover_or_rename() {
        let mut p = plan();
        p.set_resource_group("00000000-0000-0000-0000-000000000000", "my-rg", None);
        let name = p.vault_name().unwrap().to_string();
        // checkNameAvailability may well call it available: the deleted list decides
        let sub = sub_with(
            Some(Fetch::Got(free())),
            Some(Fetch::Got(vec![deleted(&name.to_uppercase(), true)])),
            vec![],
        );
        let c = subscription_checks(&p, &sub);
        let kv = by_id(&c, "key-vault-name");
        assert_eq!(kv.status, Status::Fail);
        assert!(kv.message.contains(&format!("a soft-deleted vault in this subscription holds the name {name} (location eastus2, resource group rg-old, deleted 2026-11-30T10:00:00Z, name reserved until 2027-02-28T10:00:00Z)")), "{}", kv.message);
        let fix = kv.fix.as_deref().unwrap();
        assert!(
            fix.contains(&format!(
                "`az keyvault recover --name {name} --location eastus2`"
            )),
            "{fix}"
        );
        assert!(
            fix.contains("set security.keyVault.name to a new name"),
            "{fix}"
        );
        assert!(
            fix.contains("purge protection is on") && !fix.contains("az keyvault purge"),
            "{fix}"
        );
        assert_eq!(verdict(&c.iter().collect::<Vec<_>>()), Verdict::Blocked);
        // without purge protection, purging is offered too
        let sub = sub_with(
            Some(Fetch::Got(free())),
            Some(Fetch::Got(vec![deleted(&name, false)])),
            vec![],
        );
        let c = subscription_checks(&p, &sub);
        assert!(
            by_id(&c, "key-vault-name")
                .fix
                .as_deref()
                .unwrap()
                .contains(&format!(
                    "`az keyvault purge --name {name} --location eastus2`"
                ))
        );
    }

    #[test]
    fn global_names_pass_warn_or_block_by_whose_they_are() {
        let sb = GlobalName {
            kind: GlobalKind::ServiceBusNamespace,
            name: "sb-x".into(),
        };
        let st = GlobalName {
            kind: GlobalKind::StorageAccount,
            name: "stx".into(),
        };
        let mut p = plan();
        let run = |p: &Plan, v: VaultName| {
            let c = subscription_checks(
                p,
                &sub_with(
                    None,
                    None,
                    vec![
                        (sb.clone(), Fetch::Got(v.clone())),
                        (st.clone(), Fetch::Got(v)),
                    ],
                ),
            );
            (
                by_id(&c, "service-bus-name").clone(),
                by_id(&c, "storage-account-name").clone(),
            )
        };
        let (a, b) = run(&p, free());
        assert_eq!((a.status, b.status), (Status::Pass, Status::Pass));
        let (a, b) = run(&p, taken(None));
        assert_eq!((a.status, b.status), (Status::Fail, Status::Fail));
        assert!(
            a.fix
                .as_deref()
                .unwrap()
                .contains("choose another name in autoscale.queue.serviceBus")
        );
        // the subscription's own, group unknown: a warning naming its group
        let (a, _) = run(&p, taken(Some("rg-q")));
        assert_eq!(a.status, Status::Warn);
        p.set_resource_group("00000000-0000-0000-0000-000000000000", "rg-q", None);
        assert_eq!(run(&p, taken(Some("rg-q"))).0.status, Status::Pass);
        p.set_resource_group("00000000-0000-0000-0000-000000000000", "rg-other", None);
        let (a, b) = run(&p, taken(Some("rg-q")));
        assert_eq!(a.status, Status::Fail);
        assert!(a.fix.as_deref().unwrap().contains(
            "set `create: false` and `resourceGroup: rg-q` under autoscale.queue.serviceBus"
        ));
        assert!(
            b.fix
                .as_deref()
                .unwrap()
                .contains("under autoscale.queue.storageQueue")
        );
    }
}
