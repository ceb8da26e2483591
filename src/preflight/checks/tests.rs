use crate::azure::ArmError;
use crate::azure::models::DeletedVault;
use crate::azure::models::{ListShape, ResourceSku, Usage};
use crate::catalog::prices::{PriceKind, PriceOs, PriceTable};
use crate::spec::model::OsType;

use crate::preflight::data::{RegionData, SkuData, SubscriptionData, VaultName};
use crate::preflight::fetch::Fetch;
use crate::preflight::plan::{GlobalKind, GlobalName, Plan, Role, Target};
use crate::preflight::report::{Check, RegionReport, Status, Verdict};

use super::common::check;
use super::quota::quota_provider_check;
use super::region::region_checks;
use super::subscription::subscription_checks;
use super::*;

use crate::azure::ErrorKind;
use crate::azure::models::{Capability, LocationInfo, Restriction, RestrictionInfo, UsageName};
use crate::preflight::plan::Existing;
use crate::spec::model::HyperVGeneration;

fn plan() -> Plan {
    Plan {
        name: "t".into(),
        size: "Standard_NC8as_T4_v3".into(),
        alternate_sizes: Vec::new(),
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
        dcr_policy: None,
        dcr_scope: None,
        nat_across_zones: false,
        workspace: None,
        standby: None,
        standby_app_id: None,
        spot_readings: Default::default(),
        serving: None,
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
    let mut prices = PriceTable::new(crate::catalog::currency::Currency::USD);
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
        standby_roles: None,
        policy_scope: None,
        permissions: None,
        serving: crate::preflight::serving::Gathered {
            features: Vec::new(),
            network: None,
        },
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
        standby_roles: None,
        policy_scope: None,
        permissions: None,
        serving: crate::preflight::serving::Gathered {
            features: Vec::new(),
            network: None,
        },
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
        "/subscriptions/s/resourceGroups/rg-keys/providers/Microsoft.KeyVault/vaults/kv-x".into(),
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

/// Issue 19: no Azure API lists NAT gateway SKUs by region, so the check reports Microsoft's
/// NAT SKU page list and says it is the page's (facts::nat::NO_SKU_API is an assumption).
#[test]
fn the_nat_sku_check_reports_the_pages_list_and_says_it_is_not_live() {
    const _: () = assert!(crate::facts::nat::NO_SKU_API.assumption);
    let spec_path = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/shortvideo-transcode.yaml"
    ));
    let c = crate::spec::check_file(
        spec_path,
        &crate::spec::Policy::default(),
        PriceTable::embedded(),
    );
    let p = Plan::from_spec(c.spec.as_ref().unwrap(), &[]);
    assert!(
        p.nat_across_zones,
        "the example's pool spans zones behind its own NAT gateway"
    );
    let at = |r: &str| {
        let t = Target {
            region: r.into(),
            role: Role::Spec,
        };
        region_checks(
            &p,
            &t,
            &data(
                sku(&good_caps(), &[]),
                usages("Standard NCASv3_T4 Family", 8),
            ),
        )
        .into_iter()
        .find(|c| c.id == "nat-gateway-sku")
        .expect("a NAT SKU check")
    };
    let ok = at("eastus2");
    assert_eq!(ok.status, Status::Pass, "{ok:#?}");
    assert!(
        ok.message.contains("zone-redundant StandardV2"),
        "{}",
        ok.message
    );
    assert!(
        ok.message
            .contains("not confirmed live: no Azure API lists NAT gateway SKUs by region"),
        "{}",
        ok.message
    );
    assert!(ok.message.contains("(assumption)"), "{}", ok.message);
    let no = at("qatarcentral");
    assert_eq!(no.status, Status::Warn, "{no:#?}");
    assert!(
        no.message
            .contains("qatarcentral has no StandardV2 NAT gateway"),
        "{}",
        no.message
    );
    assert!(no.fix.as_deref().unwrap().contains("pin one zone"));
    // a pool in an existing subnet has no NAT gateway of gpuform's: no check
    let mut q = p.clone();
    q.nat_across_zones = false;
    let t = Target {
        region: "eastus2".into(),
        role: Role::Spec,
    };
    assert!(
        region_checks(
            &q,
            &t,
            &data(
                sku(&good_caps(), &[]),
                usages("Standard NCASv3_T4 Family", 8)
            )
        )
        .iter()
        .all(|c| c.id != "nat-gateway-sku")
    );
}
