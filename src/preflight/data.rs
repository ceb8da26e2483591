//! The data the checks read: per region (SKUs, usages) and per subscription.

use serde::Serialize;

use crate::azure::ArmError;
use crate::azure::models::{
    DeletedVault, ListShape, NameAvailability, ResourceRef, ResourceSku, Usage,
};

use super::fetch::Fetch;
use super::landing_zone;
use super::plan::GlobalName;

/// The resource SKU entries of the spec's size in one region.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkuData {
    /// Entries for the size in this region (normally one).
    pub entries: Vec<ResourceSku>,
    pub shape: ListShape,
    /// Did the list contain any SKU restricted for the subscription? (`az vm list-skus`
    /// without `--all` never does.)
    pub includes_restricted: bool,
    /// Where the list came from: "ARM" or a file name.
    pub source: String,
}

impl SkuData {
    /// The entries for `size` in `region` from one or more lists (`(source, list, shape)`).
    pub fn from_lists<'a>(
        lists: impl IntoIterator<Item = (&'a str, &'a [ResourceSku], ListShape)>,
        size: &str,
        region: &str,
    ) -> Self {
        let mut data = SkuData {
            entries: Vec::new(),
            shape: ListShape::AzCli,
            includes_restricted: false,
            source: String::new(),
        };
        let mut sources = Vec::new();
        for (source, list, shape) in lists {
            data.entries.extend(
                list.iter()
                    .filter(|s| {
                        s.is_vm() && s.name.eq_ignore_ascii_case(size) && s.in_location(region)
                    })
                    .cloned(),
            );
            data.includes_restricted |= list.iter().any(|s| !s.restrictions.is_empty());
            // one REST list is enough to see restricted sizes
            if shape == ListShape::Rest {
                data.shape = ListShape::Rest;
            }
            sources.push(source);
        }
        data.source = sources.join(", ");
        data
    }
}

#[derive(Debug, Clone)]
pub struct RegionData {
    pub skus: Fetch<SkuData>,
    pub usages: Fetch<Vec<Usage>>,
}

/// A global name's answer (Key Vault, Service Bus namespace, storage account), with the
/// resource when it is the subscription's own.
#[derive(Debug, Clone)]
pub struct VaultName {
    pub availability: NameAvailability,
    /// `Ok(None)`: free, or taken by someone else; `Err`: taken, and the subscription's vaults
    /// could not be listed to tell whose.
    pub own: Result<Option<ResourceRef>, ArmError>,
}

/// Subscription-wide data (the same for every region).
/// The subscription feature of "Trusted Launch as default" ([`crate::facts::arm::TRUSTED_LAUNCH_DEFAULT`]).
pub use crate::facts::arm::{TRUSTED_LAUNCH_DEFAULT_FEATURE, TRUSTED_LAUNCH_DEFAULT_NAMESPACE};

#[derive(Debug, Clone)]
pub struct SubscriptionData {
    pub providers: Vec<(String, Fetch<String>)>,
    /// `Some` when the spec turns encryption at host on.
    pub encryption_at_host: Option<Fetch<String>>,
    /// `Some` when the vault name is known (the spec's, or derived from the resource group).
    pub key_vault: Option<Fetch<VaultName>>,
    /// The subscription's soft-deleted vaults; `Some` when the vault name is known.
    pub deleted_vaults: Option<Fetch<Vec<DeletedVault>>>,
    /// The answers for [`Plan::global_names`], in that order.
    pub global_names: Vec<(GlobalName, Fetch<VaultName>)>,
    /// State of the Trusted Launch as default feature ([`TRUSTED_LAUNCH_DEFAULT_FEATURE`]):
    /// reported for every spec, as the rendered scale set's securityType must not depend on it.
    pub trusted_launch_default: Fetch<String>,
    /// Landing-zone answers (subnet, route table, Azure Policy); `Some` when the plan has
    /// [`Plan::landing_zone`] inputs. Its checks join the spec region's.
    pub landing_zone: Option<landing_zone::Data>,
    /// The existing workspace's answers; `Some` when the plan has [`Plan::workspace`].
    pub workspace: Option<landing_zone::WorkspaceData>,
    /// Spot placement scores and eviction rates; `Some` for a pool with a Spot share, live.
    pub spot: Option<super::spot::Data>,
    /// The standby provider's principal and roles; `Some` for a standby pool, live, with -g.
    pub standby_roles: Option<super::standby::RolesData>,
    /// The caller's permissions at the resource group; `Some` when the template assigns the
    /// GPU DCR-association policy ([`super::plan::Plan::dcr_policy`]).
    pub permissions: Option<Fetch<Vec<crate::azure::landing_zone::Permission>>>,
    /// The group's VMs and policy assignments; `Some` when the template assigns the GPU
    /// DCR-association policy, live, with -g ([`super::policy_scope`]).
    pub policy_scope: Option<super::policy_scope::Data>,
    /// A serving pool's required subscription features and their states, and the region's
    /// network usages ([`super::plan::Plan::serving`]).
    pub serving: super::serving::Gathered,
}
