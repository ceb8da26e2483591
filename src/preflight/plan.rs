//! What a spec asks of a region: the size, how many vCPUs of which quota at peak, zones,
//! capabilities, providers, the Key Vault name, and which regions to look at.

use serde::Serialize;

use crate::azure::deployments::ScaleSet;
use crate::catalog::{self, GpuSize};
use crate::spec::model::{Capacity, HyperVGeneration, OsType, SecurityType, Spec};
use crate::spec::resolve;

pub use super::role::Role;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Target {
    pub region: String,
    pub role: Role,
}

/// The pool's scale set as it runs now (a redeployment): its instances already count in the
/// region's quota usage, so they are not needed again.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Existing {
    pub name: String,
    pub region: String,
    pub regular: u32,
    pub spot: u32,
}

impl Existing {
    /// A dev box that is already deployed: its one VM (Spot or regular) counts as in use.
    pub fn from_vm(name: &str, vm: &crate::azure::deployments::VirtualMachine) -> Existing {
        let spot = vm
            .properties
            .as_ref()
            .and_then(|p| p.priority.as_deref())
            .is_some_and(|p| p.eq_ignore_ascii_case("Spot") || p.eq_ignore_ascii_case("Low"));
        Existing {
            name: name.to_string(),
            region: vm.location.trim().to_ascii_lowercase().replace(' ', ""),
            regular: u32::from(!spot),
            spot: u32::from(spot),
        }
    }

    /// Split the scale set's instances by its own priority mix policy (the spec's numbers fill
    /// in what it leaves out); without one, all of them run at the profile's priority.
    pub fn from_scale_set(name: &str, set: &ScaleSet, spec: &Capacity) -> Existing {
        let n = set.sku.as_ref().and_then(|s| s.capacity).unwrap_or(0);
        let props = set.properties.as_ref();
        let regular = match props.and_then(|p| p.priority_mix_policy.as_ref()) {
            Some(mix) => Capacity {
                regular_base: mix.base_regular_priority_count.unwrap_or(spec.regular_base),
                regular_percent_above_base: mix
                    .regular_priority_percentage_above_base
                    .unwrap_or(spec.regular_percent_above_base),
                ..spec.clone()
            }
            .regular_of(n),
            None => {
                let priority = props
                    .and_then(|p| p.virtual_machine_profile.as_ref())
                    .and_then(|v| v.priority.as_deref())
                    .unwrap_or("Regular");
                if priority.eq_ignore_ascii_case("Spot") || priority.eq_ignore_ascii_case("Low") {
                    0
                } else {
                    n
                }
            }
        };
        Existing {
            name: name.to_string(),
            region: set.location.trim().to_ascii_lowercase().replace(' ', ""),
            regular,
            spot: n - regular,
        }
    }
}

/// Which global name a [`GlobalName`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum GlobalKind {
    ServiceBusNamespace,
    StorageAccount,
}

/// A name the deployment creates that must be unique across Azure (a DNS name).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GlobalName {
    pub kind: GlobalKind,
    pub name: String,
}

/// The Service Bus namespace / storage account the spec creates (`create: true`).
fn global_names(spec: &Spec) -> Vec<GlobalName> {
    let Some(q) = spec.spec.autoscale.as_ref().and_then(|a| a.queue.as_ref()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(sb) = q.service_bus.as_ref().filter(|sb| sb.create) {
        out.push(GlobalName {
            kind: GlobalKind::ServiceBusNamespace,
            name: sb.namespace.clone(),
        });
    }
    if let Some(st) = q.storage_queue.as_ref().filter(|st| st.create) {
        out.push(GlobalName {
            kind: GlobalKind::StorageAccount,
            name: st.account.clone(),
        });
    }
    out
}

/// Everything the checks need from the spec, computed once.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    pub name: String,
    pub size: String,
    /// `compute.alternateSizes` (deploy's failover tries them): their Spot placement scores
    /// are read with the pool's size and shown on the ranking.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternate_sizes: Vec<String>,
    /// vCPUs per VM from the catalog (the live SKU's `vCPUs` wins when known).
    pub vcpus: Option<u32>,
    /// Quota family from the catalog (the live SKU's `family` wins when known).
    pub quota_family: Option<String>,
    /// Peak instance count (capacity.max, or a larger schedule max).
    pub max: u32,
    /// Regular-priority instances at peak (`capacity.regular_of(max)`).
    pub regular: u32,
    /// Spot instances at peak.
    pub spot: u32,
    pub zones: Vec<String>,
    pub generation: HyperVGeneration,
    pub os: OsType,
    pub encryption_at_host: bool,
    pub accelerated_networking: bool,
    pub trusted_launch: bool,
    /// A dev box (`autoShutdown` on one instance): one standalone VM, no scale set
    /// ([`crate::plan::devbox`]).
    pub dev_box: bool,
    pub providers: Vec<&'static str>,
    /// The vault name the spec gives (`security.keyVault.name`).
    pub key_vault: Option<String>,
    /// The vault name the template derives when the spec gives none
    /// (`<prefix>-<uniqueString(resourceGroup().id)>`): known once the resource group is
    /// ([`Plan::set_resource_group`]).
    pub key_vault_derived: Option<String>,
    /// Prefix of the derived vault name (the renderer's `vault_name_prefix`).
    pub key_vault_prefix: String,
    /// Landing zones: `security.existingKeyVault`, a vault that exists and is not created, so
    /// neither its name nor a soft-deleted namesake can block the deployment: no vault name is
    /// checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub existing_key_vault: Option<String>,
    /// Service Bus namespaces and storage accounts the deployment creates: global DNS names.
    pub global_names: Vec<GlobalName>,
    /// The resource group the spec is deployed to, when the caller knows it.
    pub resource_group: Option<String>,
    pub allowed_regions: Option<Vec<String>>,
    pub targets: Vec<Target>,
    /// The pool's scale set when it exists already (set by the caller, who knows the group).
    pub existing: Option<Existing>,
    /// Landing-zone inputs (existing subnet, egress, the template's resources for Azure
    /// Policy), set by callers that rendered the template; `None`: no landing-zone checks.
    #[serde(skip)]
    pub landing_zone: Option<super::landing_zone::Inputs>,
    /// The display name of the built-in DCR-association policy the template assigns (Flexible
    /// pools with GPU monitoring; `plan::gpu_monitoring::dcr_policy`): the deploying identity
    /// must be allowed the assignment ([`super::permissions`]).
    pub dcr_policy: Option<String>,
    /// The same assignment's scope: what it covers in the group ([`super::policy_scope`]).
    #[serde(skip)]
    pub dcr_scope: Option<PolicyAssignment>,
    /// The template creates a NAT gateway for a pool across zones: its SKU depends on the
    /// region ([`crate::facts::nat`], `plan::network::nat_for_zones`).
    pub nat_across_zones: bool,
    /// `monitoring.existingWorkspace`: its region and the GPU table are read.
    #[serde(skip)]
    pub workspace: Option<super::landing_zone::WorkspaceInputs>,
    /// The standby pool (`autoscale.standby`): its provider, roles and quota are checked.
    #[serde(skip)]
    pub standby: Option<crate::plan::standby::StandbyPool>,
    /// `--standby-provider-app-id`: the standby provider's app id to look its principal up by
    /// (else [`crate::facts::standby::PROVIDER_APP_ID`], an assumption).
    #[serde(skip)]
    pub standby_app_id: Option<String>,
    /// The readings of the Spot questions no page settles (flags; defaults: the stricter).
    #[serde(skip)]
    pub spot_readings: SpotReadings,
    /// A serving pool's frontend (issue 36): set by the command from the resolved plan
    /// ([`super::serving::Inputs::for_checked`]).
    pub serving: Option<super::serving::Inputs>,
}

/// Where no Microsoft page settles a Spot question, preflight takes the stricter reading; these
/// flags take the other, and the output says which reading (an assumption either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SpotReadings {
    /// `--spot-zone-count split`: a zonal pool asks each zone for its even share of the Spot
    /// count instead of the whole count ([`crate::facts::spot_placement::PER_ZONE_COUNT`]).
    pub split_zone_count: bool,
    /// `--spot-high-eviction-from PERCENT`: the eviction band from which preflight warns (else
    /// [`crate::facts::spot_placement::HIGH_EVICTION_FROM_PERCENT`]).
    pub high_eviction_from: Option<u32>,
}

impl Plan {
    /// `extra`: `--region` values (added after the spec's region and alternates, deduplicated).
    pub fn from_spec(spec: &Spec, extra: &[String]) -> Plan {
        let s = &spec.spec;
        let size: Option<&'static GpuSize> = catalog::find(&s.compute.vm_size);
        let mut max = s.capacity.max;
        for sched in s.autoscale.iter().flat_map(|a| a.schedules.iter()) {
            max = max.max(sched.max);
        }
        let regular = s.capacity.regular_of(max);
        let spot = max - regular;
        let image = resolve::image(&s.compute.image);
        let mut providers = vec![
            "Microsoft.Compute",
            "Microsoft.Network",
            "Microsoft.KeyVault",
            "Microsoft.ManagedIdentity",
            "Microsoft.Insights",
            "Microsoft.OperationalInsights",
        ];
        // read for `quota request`: reported only when quota is short (checks::build)
        providers.push(crate::facts::quota::PROVIDER);
        if s.monitoring.budget.is_some() {
            providers.push("Microsoft.Consumption");
        }
        let dev_box = crate::plan::devbox::applies(s);
        if dev_box {
            // the shutdown schedule and the start workflow
            providers.push("Microsoft.DevTestLab");
            providers.push("Microsoft.Logic");
        }
        if let Some(q) = s.autoscale.as_ref().and_then(|a| a.queue.as_ref()) {
            if q.service_bus.is_some() {
                providers.push("Microsoft.ServiceBus");
            }
            if q.storage_queue.is_some() {
                providers.push("Microsoft.Storage");
            }
        }
        // the standby pool: its provider is registered, and its VMs count against quota
        // whatever their state (maxReady of them on top of the scale set's peak)
        let standby = (!dev_box)
            .then(|| {
                let des = crate::plan::security::cmk_des_name(&spec.metadata.name, s);
                crate::plan::standby::plan(&spec.metadata.name, s, des.as_deref())
            })
            .flatten();
        if let Some(p) = &standby {
            providers.push(p.provider);
        }
        // the GPU telemetry policy the template assigns (not on the Logs Ingestion path)
        let dcr = (s.monitoring.gpu.enabled == Some(true))
            .then(|| {
                let windows = image.os == OsType::Windows;
                crate::plan::gpu_monitoring::dcr_policy(&spec.metadata.name, s, windows).filter(
                    |p| crate::plan::gpu_monitoring::ingestion(s, windows, Some(p)).is_none(),
                )
            })
            .flatten();
        let (regular, spot) = match &standby {
            Some(p) if p.counts_against_quota && regular == 0 && spot > 0 => {
                (regular, spot + p.max_ready)
            }
            Some(p) if p.counts_against_quota => (regular + p.max_ready, spot),
            _ => (regular, spot),
        };
        let mut targets: Vec<Target> = Vec::new();
        let mut add = |r: &str, role: Role| {
            let r = r.trim().to_ascii_lowercase();
            if !r.is_empty() && !targets.iter().any(|t| t.region == r) {
                targets.push(Target { region: r, role });
            }
        };
        add(&s.region, Role::Spec);
        for r in &s.alternate_regions {
            add(r, Role::Alternate);
        }
        for r in extra {
            add(r, Role::Requested);
        }
        Plan {
            name: spec.metadata.name.clone(),
            size: size
                .map(|z| z.name.clone())
                .unwrap_or_else(|| s.compute.vm_size.clone()),
            alternate_sizes: s.compute.alternate_sizes.clone(),
            vcpus: size.map(|z| z.vcpus),
            quota_family: size.map(|z| z.quota_family.clone()),
            max,
            regular,
            spot,
            zones: s.compute.zones.clone(),
            generation: image.generation,
            os: image.os,
            encryption_at_host: s.security.encryption_at_host,
            accelerated_networking: s.compute.accelerated_networking,
            trusted_launch: s.compute.security_type == SecurityType::TrustedLaunch,
            dev_box,
            providers,
            key_vault: s.security.key_vault.name.clone(),
            key_vault_derived: None,
            key_vault_prefix: crate::plan::vault_name_prefix(&spec.metadata.name),
            existing_key_vault: s.security.existing_key_vault.clone(),
            global_names: global_names(spec),
            resource_group: None,
            allowed_regions: s
                .allowed_regions
                .as_ref()
                .map(|v| v.iter().map(|r| r.to_ascii_lowercase()).collect()),
            targets,
            existing: None,
            landing_zone: None,
            nat_across_zones: s.network.outbound == crate::spec::model::Outbound::NatGateway
                && s.network.existing_subnet.is_none()
                && !dev_box
                && s.compute.zones.len() > 1,
            // not on the Logs Ingestion path, which assigns no policy
            dcr_policy: dcr.as_ref().map(|d| d.definition_name.to_string()),
            dcr_scope: dcr.as_ref().map(|d| PolicyAssignment {
                name: d.assignment_name.clone(),
                definition_id: d.definition_id,
                windows: image.os == OsType::Windows,
                vmss: crate::plan::scale_set_name(&spec.metadata.name),
            }),
            workspace: super::landing_zone::WorkspaceInputs::of(spec),
            standby,
            standby_app_id: None,
            spot_readings: SpotReadings::default(),
            serving: None,
        }
    }

    /// What the checked spec adds: the landing zone's inputs (`azure_policy`: read Azure Policy
    /// assignments) and a serving pool's frontend, from the resolved plan.
    pub fn with_checked(mut self, checked: &crate::spec::Checked, azure_policy: bool) -> Plan {
        self.landing_zone =
            super::landing_zone::Inputs::for_checked(checked, self.max, azure_policy);
        self.serving = super::serving::Inputs::for_checked(checked);
        self
    }

    /// The deployment goes to `rg` (whose ARM id is `group_id` when the group exists): the
    /// derived vault name becomes known.
    pub fn set_resource_group(&mut self, subscription: &str, rg: &str, group_id: Option<&str>) {
        let id = group_id
            .filter(|id| !id.is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| super::names::resource_group_id(subscription, rg));
        if self.key_vault.is_none() && self.existing_key_vault.is_none() {
            self.key_vault_derived = Some(super::names::derived_vault_name(
                &self.key_vault_prefix,
                &id,
            ));
        }
        self.resource_group = Some(rg.to_string());
    }

    /// The vault name to check: the spec's, or the derived one once the group is known.
    pub fn vault_name(&self) -> Option<&str> {
        if self.existing_key_vault.is_some() {
            return None;
        }
        self.key_vault
            .as_deref()
            .or(self.key_vault_derived.as_deref())
    }

    pub fn primary(&self) -> &str {
        &self.targets[0].region
    }

    pub fn generation_label(&self) -> &'static str {
        match self.generation {
            HyperVGeneration::V1 => "V1",
            HyperVGeneration::V2 => "V2",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_existing_dev_box_counts_as_one_vm_of_its_priority() {
        let vm: crate::azure::deployments::VirtualMachine = serde_json::from_value(
            serde_json::json!({"location": "West Europe", "properties": {"priority": "Spot"}}),
        )
        .unwrap();
        let x = Existing::from_vm("vm-dev", &vm);
        assert_eq!((x.region.as_str(), x.regular, x.spot), ("westeurope", 0, 1));
        let vm: crate::azure::deployments::VirtualMachine =
            serde_json::from_value(serde_json::json!({"location": "westeurope"})).unwrap();
        let x = Existing::from_vm("vm-dev", &vm);
        assert_eq!((x.regular, x.spot), (1, 0));
    }
}

/// The DCR-association policy assignment the template makes ([`Plan::dcr_scope`]; what it
/// reaches in the group is checked by [`super::policy_scope`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyAssignment {
    pub name: String,
    /// The built-in definition's GUID.
    pub definition_id: &'static str,
    pub windows: bool,
    /// The pool's scale set (its VMs are the ones meant).
    pub vmss: String,
}
