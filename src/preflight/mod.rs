//! `gpuform preflight`: can this spec deploy in its region, and if not, where and what to ask
//! for? Data comes from ARM ([`gather_live`], concurrently across regions) or from saved
//! `az`/REST output ([`Offline`]); [`checks`] turns it into verdicts without any I/O.

pub mod checks;
mod data;
mod fetch;
pub mod landing_zone;
pub mod names;
mod permissions;
pub mod plan;
pub mod policy_scope;
pub mod report;
mod role;
pub mod serving;
pub mod spot;
pub mod standby;

use std::collections::BTreeMap;

use futures::future::join_all;

use crate::azure::models::{ListShape, ResourceSku, Usage};
use crate::azure::{ArmApi, ArmError};
pub use data::{
    RegionData, SkuData, SubscriptionData, TRUSTED_LAUNCH_DEFAULT_FEATURE,
    TRUSTED_LAUNCH_DEFAULT_NAMESPACE, VaultName,
};
pub use fetch::Fetch;
pub use plan::{GlobalKind, GlobalName, Plan, Role, Target};
pub use report::{Check, RegionReport, Report, Status, Verdict};

/// Ask ARM for everything, all regions and the subscription checks at once. A fatal error
/// (credential, 401, TLS, no connection) ends the run: nothing else would work either.
pub async fn gather_live(
    api: &dyn ArmApi,
    plan: &Plan,
) -> Result<(Vec<RegionData>, SubscriptionData), ArmError> {
    let regions = join_all(plan.targets.iter().map(|t| async move {
        let (skus, usages) = futures::join!(api.resource_skus(&t.region), api.usages(&t.region));
        RegionData {
            skus: Fetch::from_result(skus.map(|list| {
                SkuData::from_lists([("ARM", &list[..], ListShape::Rest)], &plan.size, &t.region)
            })),
            usages: Fetch::from_result(usages),
        }
    }));
    let providers = join_all(plan.providers.iter().map(|ns| async move {
        (
            ns.to_string(),
            Fetch::from_result(api.provider_state(ns).await),
        )
    }));
    let feature = async {
        if plan.encryption_at_host {
            Some(Fetch::from_result(
                api.feature_state("Microsoft.Compute", "EncryptionAtHost")
                    .await,
            ))
        } else {
            None
        }
    };
    let vault = async {
        let name = plan.vault_name()?;
        Some(Fetch::from_result(vault_name(api, name).await))
    };
    let deleted = async {
        plan.vault_name()?;
        Some(Fetch::from_result(api.deleted_key_vaults().await))
    };
    let globals = join_all(
        plan.global_names
            .iter()
            .map(|g| async move { (g.clone(), Fetch::from_result(global_name(api, g).await)) }),
    );
    let tl_default = async {
        Fetch::from_result(
            api.feature_state(
                TRUSTED_LAUNCH_DEFAULT_NAMESPACE,
                TRUSTED_LAUNCH_DEFAULT_FEATURE,
            )
            .await,
        )
    };
    let lz = async {
        match &plan.landing_zone {
            Some(inputs) => {
                Some(landing_zone::gather(api, inputs, plan.resource_group.as_deref()).await)
            }
            None => None,
        }
    };
    let workspace = async {
        match &plan.workspace {
            Some(w) => landing_zone::gather_workspace(api, w).await,
            None => None,
        }
    };
    let spot = spot::gather(api, plan);
    let standby_roles = standby::gather(
        api,
        plan.standby.as_ref(),
        plan.resource_group.as_deref(),
        plan.standby_app_id.as_deref(),
    );
    let permissions = permissions::gather(api, plan);
    let policy_scope = policy_scope::gather(api, plan);
    let serving = serving::gather(api, plan.serving.as_ref());
    let (
        regions,
        providers,
        feature,
        vault,
        deleted,
        globals,
        tl_default,
        lz,
        workspace,
        spot,
        permissions,
        serving,
    ) = futures::join!(
        regions,
        providers,
        feature,
        vault,
        deleted,
        globals,
        tl_default,
        lz,
        workspace,
        spot,
        permissions,
        serving
    );
    let standby_roles = standby_roles.await;
    let policy_scope = policy_scope.await;
    let sub = SubscriptionData {
        providers,
        encryption_at_host: feature,
        key_vault: vault,
        deleted_vaults: deleted,
        global_names: globals,
        trusted_launch_default: tl_default,
        landing_zone: lz,
        workspace,
        spot,
        standby_roles,
        permissions,
        policy_scope,
        serving,
    };
    let fatal = regions
        .iter()
        .flat_map(|r| [r.skus.error(), r.usages.error()])
        .chain(sub.providers.iter().map(|(_, f)| f.error()))
        .chain([
            sub.encryption_at_host.as_ref().and_then(Fetch::error),
            sub.key_vault.as_ref().and_then(Fetch::error),
            sub.deleted_vaults.as_ref().and_then(Fetch::error),
        ])
        .chain(sub.global_names.iter().map(|(_, f)| f.error()))
        .chain([sub
            .landing_zone
            .as_ref()
            .and_then(landing_zone::Data::fatal)])
        .chain([sub.permissions.as_ref().and_then(Fetch::error)])
        .chain(sub.serving.errors())
        .flatten()
        .find(|e| e.is_fatal());
    if let Some(e) = fatal {
        return Err(e.clone());
    }
    Ok((regions, sub))
}

async fn vault_name(api: &dyn ArmApi, name: &str) -> Result<VaultName, ArmError> {
    let availability = api.key_vault_name(name).await?;
    let own = if availability.name_available {
        Ok(None)
    } else {
        // a taken name may be this subscription's own vault (a re-deploy)
        api.key_vaults()
            .await
            .map(|v| v.into_iter().find(|r| r.name.eq_ignore_ascii_case(name)))
    };
    Ok(VaultName { availability, own })
}

/// A Service Bus namespace or storage account name: free, or whose (the subscription's own
/// list tells a redeployment from someone else's name).
async fn global_name(api: &dyn ArmApi, g: &GlobalName) -> Result<VaultName, ArmError> {
    let availability = match g.kind {
        GlobalKind::ServiceBusNamespace => api.service_bus_name(&g.name).await?,
        GlobalKind::StorageAccount => api.storage_account_name(&g.name).await?,
    };
    let own = if availability.name_available {
        Ok(None)
    } else {
        let list = match g.kind {
            GlobalKind::ServiceBusNamespace => api.service_bus_namespaces().await,
            GlobalKind::StorageAccount => api.storage_accounts().await,
        };
        list.map(|v| v.into_iter().find(|r| r.name.eq_ignore_ascii_case(&g.name)))
    };
    Ok(VaultName { availability, own })
}

/// Saved `az`/REST output for offline runs.
#[derive(Debug, Clone, Default)]
pub struct Offline {
    /// SKU lists: (file name, entries, shape).
    pub skus: Vec<(String, Vec<ResourceSku>, ListShape)>,
    /// Usages by region.
    pub usages: BTreeMap<String, Vec<Usage>>,
}

const LIVE_ONLY: &str = "needs the subscription: run without --usages/--skus to check it live";

impl Offline {
    /// Region data from the files; checks without data are skipped with the flag that supplies it.
    pub fn region_data(&self, plan: &Plan) -> (Vec<RegionData>, SubscriptionData) {
        let regions = plan
            .targets
            .iter()
            .map(|t| {
                let r = &t.region;
                let covering: Vec<_> = self
                    .skus
                    .iter()
                    .filter(|(_, list, _)| list.iter().any(|s| s.in_location(r)))
                    .map(|(file, list, shape)| (file.as_str(), &list[..], *shape))
                    .collect();
                let skus = if covering.is_empty() {
                    Fetch::Skipped(format!("no SKU data for {r}: add --skus FILE from `az vm list-skus -l {r} --all -o json`"))
                } else {
                    Fetch::Got(SkuData::from_lists(covering, &plan.size, r))
                };
                let usages = match self.usages.get(r) {
                    Some(u) => Fetch::Got(u.clone()),
                    None => Fetch::Skipped(format!("no quota data for {r}: add --usages {r}=FILE from `az vm list-usage -l {r} -o json`")),
                };
                RegionData { skus, usages }
            })
            .collect();
        let sub = SubscriptionData {
            providers: plan
                .providers
                .iter()
                .map(|p| (p.to_string(), Fetch::Skipped(LIVE_ONLY.into())))
                .collect(),
            encryption_at_host: plan
                .encryption_at_host
                .then(|| Fetch::Skipped(LIVE_ONLY.into())),
            key_vault: plan.vault_name().map(|_| Fetch::Skipped(LIVE_ONLY.into())),
            deleted_vaults: plan.vault_name().map(|_| Fetch::Skipped(LIVE_ONLY.into())),
            global_names: plan
                .global_names
                .iter()
                .map(|g| (g.clone(), Fetch::Skipped(LIVE_ONLY.into())))
                .collect(),
            trusted_launch_default: Fetch::Skipped(LIVE_ONLY.into()),
            landing_zone: plan
                .landing_zone
                .as_ref()
                .map(|i| landing_zone::Data::skipped(i, LIVE_ONLY)),
            workspace: plan
                .workspace
                .as_ref()
                .map(|w| landing_zone::WorkspaceData {
                    location: Fetch::Skipped(LIVE_ONLY.into()),
                    table: w.table.as_ref().map(|_| Fetch::Skipped(LIVE_ONLY.into())),
                }),
            spot: None,
            standby_roles: None,
            policy_scope: None,
            permissions: plan
                .dcr_policy
                .as_ref()
                .map(|_| Fetch::Skipped(LIVE_ONLY.into())),
            serving: serving::skipped(plan.serving.as_ref(), LIVE_ONLY),
        };
        (regions, sub)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::azure::ErrorKind;
    use crate::azure::models::{DeletedVault, NameAvailability, ResourceRef};

    /// An in-memory ARM: every region offers nothing special; `fail_usages` makes usages fail.
    struct FakeArm {
        fail_usages: Option<ArmError>,
        calls: AtomicUsize,
    }

    #[async_trait::async_trait]
    impl ArmApi for FakeArm {
        fn subscription(&self) -> &str {
            "sub"
        }
        async fn resource_skus(&self, _: &str) -> Result<Vec<ResourceSku>, ArmError> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            Ok(vec![])
        }
        async fn usages(&self, _: &str) -> Result<Vec<Usage>, ArmError> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            self.fail_usages.clone().map_or(Ok(vec![]), Err)
        }
        async fn network_usages(&self, _: &str) -> Result<Vec<Usage>, ArmError> {
            Ok(vec![])
        }
        async fn provider_state(&self, _: &str) -> Result<String, ArmError> {
            Ok("Registered".into())
        }
        async fn feature_state(&self, _: &str, _: &str) -> Result<String, ArmError> {
            Ok("Registered".into())
        }
        async fn key_vault_name(&self, _: &str) -> Result<NameAvailability, ArmError> {
            Ok(NameAvailability {
                name_available: false,
                reason: Some("AlreadyExists".into()),
                message: None,
            })
        }
        async fn key_vaults(&self) -> Result<Vec<ResourceRef>, ArmError> {
            Ok(vec![ResourceRef {
                id:
                    "/subscriptions/sub/resourceGroups/rg1/providers/Microsoft.KeyVault/vaults/KV-A"
                        .into(),
                name: "KV-A".into(),
                location: None,
            }])
        }
        async fn deleted_key_vaults(&self) -> Result<Vec<DeletedVault>, ArmError> {
            Ok(vec![])
        }
        async fn service_bus_name(&self, _: &str) -> Result<NameAvailability, ArmError> {
            Ok(NameAvailability {
                name_available: true,
                reason: None,
                message: None,
            })
        }
        async fn service_bus_namespaces(&self) -> Result<Vec<ResourceRef>, ArmError> {
            Ok(vec![])
        }
        async fn storage_account_name(&self, _: &str) -> Result<NameAvailability, ArmError> {
            Ok(NameAvailability {
                name_available: true,
                reason: None,
                message: None,
            })
        }
        async fn storage_accounts(&self) -> Result<Vec<ResourceRef>, ArmError> {
            Ok(vec![])
        }
    }

    fn plan() -> Plan {
        let path = std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/shortvideo-transcode.yaml"
        ));
        let c = crate::spec::check_file(
            path,
            &crate::spec::Policy::default(),
            crate::catalog::prices::PriceTable::embedded(),
        );
        let mut p = Plan::from_spec(
            c.spec.as_ref().unwrap(),
            &["eastus".into(), "EastUS2".into()],
        );
        p.key_vault = Some("kv-a".into());
        p
    }

    #[test]
    fn regions_are_deduplicated_and_every_region_is_asked() {
        let p = plan();
        assert_eq!(
            p.targets
                .iter()
                .map(|t| (t.region.as_str(), t.role))
                .collect::<Vec<_>>(),
            [
                ("eastus2", Role::Spec),
                ("westus3", Role::Alternate),
                ("southcentralus", Role::Alternate),
                ("eastus", Role::Requested)
            ]
        );
        assert_eq!((p.max, p.regular, p.spot), (20, 2, 18));
        let api = FakeArm {
            fail_usages: None,
            calls: AtomicUsize::new(0),
        };
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (regions, sub) = rt.block_on(gather_live(&api, &p)).unwrap();
        assert_eq!((regions.len(), api.calls.load(Ordering::SeqCst)), (4, 8));
        // the taken vault name is recognised as the subscription's own (case-insensitively)
        match sub.key_vault {
            Some(Fetch::Got(v)) => {
                assert_eq!(v.own.unwrap().unwrap().resource_group(), Some("rg1"))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn fatal_errors_end_the_run_and_others_become_unknown_checks() {
        let p = plan();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let mut e = ArmError::new(ErrorKind::Http, "read compute quota usage", "expired");
        e.status = Some(401);
        let api = FakeArm {
            fail_usages: Some(e),
            calls: AtomicUsize::new(0),
        };
        assert_eq!(
            rt.block_on(gather_live(&api, &p)).unwrap_err().status,
            Some(401)
        );
        let api = FakeArm {
            fail_usages: Some(ArmError::new(
                ErrorKind::Timeout,
                "read compute quota usage",
                "slow",
            )),
            calls: AtomicUsize::new(0),
        };
        let (regions, _) = rt.block_on(gather_live(&api, &p)).unwrap();
        assert!(matches!(regions[0].usages, Fetch::Failed(ref e) if e.kind == ErrorKind::Timeout));
    }
}
