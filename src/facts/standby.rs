//! Standby pools for Virtual Machine Scale Sets (`Microsoft.StandbyPool/standbyVirtualMachinePools`)
//! and instance mix (`skuProfile`): what Azure supports, what it refuses, and what no document
//! settles.
//!
//! Sources (MicrosoftDocs/azure-compute-docs, read 2026-12-03; each constant names its page):
//! - "Standby pools for Virtual Machine Scale Sets", `articles/virtual-machine-scale-sets/
//!   standby-pools-overview.md`@4742b6446e764a06acfaf58dd006fe98a0b3a470 ([`OVERVIEW`]);
//! - "Standby pools FAQ", `standby-pools-faq.md`@883ff7bbc5259f994e7ef96832cbbeb5e1538d6f, page
//!   05/19/2026 ([`FAQ`]);
//! - "Configure role permissions for standby pools", `standby-pools-configure-permissions.md`
//!   @0c6223e9484d9281f960129ff81c76e16e2eb2cf, page 05/19/2026 ([`PERMISSIONS`]);
//! - "Use Spot Instances in standby pools (Preview)", `standby-pools-spot-instances.md`
//!   @0c6223e9484d9281f960129ff81c76e16e2eb2cf, page 05/19/2026 ([`SPOT`]);
//! - "Hibernation for Azure virtual machines", `articles/virtual-machines/hibernate-resume.md`
//!   @03a02f2ca9d94a71d1df4f3e5ce43615a052ae57, page 10/24/2025 ([`HIBERNATION`]);
//! - "Use multiple Virtual Machine sizes with instance mix", `instance-mix-overview.md`
//!   @0c6223e9484d9281f960129ff81c76e16e2eb2cf, page 05/19/2026 ([`INSTANCE_MIX`]);
//! - the resource type's body: Azure/bicep-types-az `generated/standbypool_0/
//!   microsoft.standbypool/2026-04-01/types.json`@1f896de2db966ad91e8f7d7d981e11d32e4f5d8d, as
//!   the conformance kit carries it (`../shared/conformance/types/microsoft.standbypool.json`)
//!   ([`TYPE_DATA`]).
//!
//! `tests/facts_standby.rs` holds every fact here against the dated excerpts in
//! `tests/fixtures/sources/standby-pools.json` and the type data, never against these constants.

use super::Source;

pub const OVERVIEW: Source = Source::doc(
    "https://learn.microsoft.com/azure/virtual-machine-scale-sets/standby-pools-overview \
     (MicrosoftDocs/azure-compute-docs articles/virtual-machine-scale-sets/standby-pools-overview.md@4742b6446e764a06acfaf58dd006fe98a0b3a470)",
    "2026-12-03",
);

pub const FAQ: Source = Source::doc(
    "https://learn.microsoft.com/azure/virtual-machine-scale-sets/standby-pools-faq \
     (MicrosoftDocs/azure-compute-docs articles/virtual-machine-scale-sets/standby-pools-faq.md@883ff7bbc5259f994e7ef96832cbbeb5e1538d6f, page 2026-05-19)",
    "2026-12-03",
);

pub const PERMISSIONS: Source = Source::doc(
    "https://learn.microsoft.com/azure/virtual-machine-scale-sets/standby-pools-configure-permissions \
     (MicrosoftDocs/azure-compute-docs articles/virtual-machine-scale-sets/standby-pools-configure-permissions.md@0c6223e9484d9281f960129ff81c76e16e2eb2cf, page 2026-05-19)",
    "2026-12-03",
);

pub const SPOT: Source = Source::doc(
    "https://learn.microsoft.com/azure/virtual-machine-scale-sets/standby-pools-spot-instances \
     (MicrosoftDocs/azure-compute-docs articles/virtual-machine-scale-sets/standby-pools-spot-instances.md@0c6223e9484d9281f960129ff81c76e16e2eb2cf, page 2026-05-19)",
    "2026-12-03",
);

pub const HIBERNATION: Source = Source::doc(
    "https://learn.microsoft.com/azure/virtual-machines/hibernate-resume \
     (MicrosoftDocs/azure-compute-docs articles/virtual-machines/hibernate-resume.md@03a02f2ca9d94a71d1df4f3e5ce43615a052ae57, page 2025-10-24)",
    "2026-12-03",
);

/// Learn, "Hibernating Linux virtual machines": "Hibernation isn't supported with Trusted Launch
/// for Linux VMs", and the guest must be configured after the VM is created
/// ([`super::extensions::LINUX_HIBERNATE`]).
pub const HIBERNATION_LINUX: Source = Source::doc(
    "https://learn.microsoft.com/azure/virtual-machines/linux/hibernate-resume-linux \
     (MicrosoftDocs/azure-docs articles/virtual-machines/linux/hibernate-resume-linux.md@007f5cbae2be54bbde4d7ba3d6028ad7107509bf, page 2024-05-16)",
    "2026-12-05",
);

/// "Prerequisites to use hibernation: [...] A persistent OS disk large enough to store the
/// contents of the RAM, OS and other applications running on the VM is connected." The RAM
/// alone is what gpuform can check (the OS and applications are the image's and the workload's):
/// validation refuses an OS disk smaller than the size's memory and says that the OS and
/// applications need room on top. Source: [`HIBERNATION`] ("Prerequisites to use hibernation").
pub const HIBERNATION_OS_DISK_HOLDS_RAM: bool = true;

pub const INSTANCE_MIX: Source = Source::doc(
    "https://learn.microsoft.com/azure/virtual-machine-scale-sets/instance-mix-overview \
     (MicrosoftDocs/azure-compute-docs articles/virtual-machine-scale-sets/instance-mix-overview.md@0c6223e9484d9281f960129ff81c76e16e2eb2cf, page 2026-05-19)",
    "2026-12-03",
);

pub const TYPE_DATA: Source = Source::doc(
    "Azure/bicep-types-az generated/standbypool_0/microsoft.standbypool/2026-04-01/types.json@1f896de2db966ad91e8f7d7d981e11d32e4f5d8d \
     (../shared/conformance/types/microsoft.standbypool.json); REST reference \
     https://learn.microsoft.com/azure/templates/microsoft.standbypool/standbyvirtualmachinepools",
    "2026-12-03",
);

/// The resource type.
pub const RESOURCE_TYPE: &str = "Microsoft.StandbyPool/standbyVirtualMachinePools";

/// The newest GA API version of [`RESOURCE_TYPE`] in the type data (versions: 2023-12-01-preview,
/// 2024-03-01, 2024-03-01-preview, 2025-03-01, 2025-10-01, 2026-04-01). The render uses only
/// `elasticityProfile.{maxReadyCapacity,minReadyCapacity}`, `virtualMachineState` and
/// `attachedVirtualMachineScaleSetId`, which every GA version has; `Hibernated` needs 2025-03-01
/// or later. Source: [`TYPE_DATA`].
pub const API_VERSION: &str = "2026-04-01";

/// The resource provider namespace. "Register the standby pool resource provider with your
/// subscription [...] Registration can take up to 30 minutes to successfully show as registered."
/// Source: [`OVERVIEW`].
pub const PROVIDER: &str = "Microsoft.StandbyPool";

/// How long registration can take, in minutes. Source: [`OVERVIEW`].
pub const REGISTRATION_MINUTES: u32 = 30;

/// The pool's name: "A standby pool can be anywhere between 3 and 24 characters" ([`FAQ`]); the
/// type data's pattern `^[a-zA-Z0-9-]{3,24}$` ([`TYPE_DATA`]).
pub const NAME_MIN: usize = 3;
pub const NAME_MAX: usize = 24;

/// Is `c` allowed in a pool name (`[a-zA-Z0-9-]`)? Source: [`TYPE_DATA`].
pub fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-'
}

/// "MinReadyCapacity cannot exceed MaxReadyCapacity" (Az.StandbyPool reference,
/// `ElasticityProfileMinReadyCapacity`).
pub const MIN_NOT_ABOVE_MAX: Source = Source::doc(
    "https://learn.microsoft.com/dotnet/api/microsoft.azure.powershell.cmdlets.standbypool.models.standbyvirtualmachinepoolresourceupdateproperties.elasticityprofileminreadycapacity",
    "2026-12-03",
);

/// `maxReadyCapacity` and `minReadyCapacity` are integers >= 0 (2026-04-01 sets no maximum; the
/// 2024-03-01 and 2025-03-01 bodies cap them at 2000). Source: [`TYPE_DATA`].
pub const READY_CAPACITY_MAX: u32 = 2000;

/// "The maximum number of virtual machines between a scale set and a standby pool is 1,000."
/// Source: [`FAQ`].
pub const MAX_VMS_WITH_POOL: u32 = 1000;

/// The standby pool's size, in the overview's words: "Standby pool size = `maxReadyCapacity` –
/// `instanceCount`", and "By setting the minimum ready capacity, it informs the standby pool
/// that it should maintain that many instances at minimum" (default 0). So the pool holds
/// `max(maxReady - instances, minReady)`, never below zero. Source: [`OVERVIEW`].
pub fn pool_size(max_ready: u32, min_ready: u32, instance_count: u32) -> u32 {
    max_ready.saturating_sub(instance_count).max(min_ready)
}

/// A scale-out takes ready pooled VMs: "As long as there's an available instance in the standby
/// pool that has completed all provisioning steps, the scale set by default uses that instance
/// when scaling up"; beyond the pool it "defaults to standard scale-out methods and creates new
/// instances"; VMs "in a creating, failed or any other state than the expected state" are not
/// given out (a refill being built cannot be taken). Source: [`OVERVIEW`] ("Scaling").
pub const SCALE_OUT_TAKES_READY_POOLED_VMS: bool = true;

/// A scale-in deletes: "When scaling back down, the instances are deleted from your scale set
/// based on the scale-in policy and the standby pool refills to meet the max ready capacity
/// configured." A removed VM does not go back to the pool; the pool builds a new one (at the
/// provisioning delay). Source: [`OVERVIEW`] ("Scaling").
pub const SCALE_IN_RETURNS_TO_POOL: bool = false;

/// Zones: "the instances in the pool are spread across the same zones the Virtual Machine
/// Scale Set is using. When a scale-out is triggered in one of the zones, a virtual machine in
/// the pool in that same zone is used. If a virtual machine is needed in a zone where you no
/// longer have any pooled virtual machines left, the scale set creates a new virtual machine
/// directly in the scale set." Source: [`OVERVIEW`] ("Availability zones").
pub const ZONES: Source = OVERVIEW;
pub const POOLED_VM_SERVES_ITS_ZONE_ONLY: bool = true;

/// How the pool spreads its VMs over the zones is not written ("spread across the same
/// zones"): gpuform puts each new pooled VM in the zone with the fewest pooled VMs.
pub const POOL_ZONE_SPREAD: Source = Source::assumption(
    "the standby-pools overview says pooled VMs are spread across the scale set's zones but not \
     how; gpuform puts each new pooled VM in the zone with the fewest pooled VMs",
    "2026-12-04",
);

/// `minReadyCapacity` when the pool resource leaves it out: "By default, the minimum ready
/// capacity for any new standby pool is zero." Source: [`OVERVIEW`]. gpuform renders
/// `minReadyCapacity = maxReadyCapacity` unless the spec says otherwise (with 0 the pool is
/// empty exactly when the scale set is at its peak).
pub const AZURE_DEFAULT_MIN_READY: u32 = 0;

/// A pooled VM's power state (`virtualMachineState`: `Running`, `Deallocated`, `Hibernated`;
/// 2026-04-01 also has `Mix` with `vmStateDistribution`, which gpuform does not render).
/// Source: [`TYPE_DATA`], [`OVERVIEW`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VmState {
    Running,
    Deallocated,
    Hibernated,
}

impl VmState {
    /// The `virtualMachineState` value.
    pub fn azure_name(self) -> &'static str {
        match self {
            VmState::Running => "Running",
            VmState::Deallocated => "Deallocated",
            VmState::Hibernated => "Hibernated",
        }
    }

    /// Does a VM in this state bill compute while it waits? "virtual machines in a running state
    /// incur compute, networking, and storage costs. Virtual machines in a deallocated state
    /// doesn't incur any compute costs, but any persistent disks or networking configurations
    /// continue incur cost" ([`OVERVIEW`], "Pricing"); a hibernated VM: "you aren't billed for
    /// the VM usage [...] only billed for the storage (OS disk, data disks) and networking"
    /// ([`HIBERNATION`]).
    pub fn bills_compute(self) -> bool {
        self == VmState::Running
    }

    /// Does a pooled VM in this state hold compute capacity? Running: "already allocated and
    /// consuming compute capacity"; deallocated: "doesn't guarantee capacity" ([`FAQ`]);
    /// hibernated: "there's no capacity guarantee to ensure that there's sufficient capacity to
    /// start the VM later" ([`HIBERNATION`]).
    pub fn reserves_capacity(self) -> bool {
        self == VmState::Running
    }
}

/// "Update or delete a standby pool" (MicrosoftDocs/azure-compute-docs
/// `standby-pools-update-delete.md`@0c6223e9484d9281f960129ff81c76e16e2eb2cf, page 2026-05-19):
/// "Transitioning between a Stopped (deallocated) state and a hibernated state is not supported.
/// If using a Stopped (deallocated) pool and you want to instead use a hibernated pool, first
/// transition to a running pool then update the provisioning state to hibernated." Its table of
/// supported transitions also lists Hibernated → Stopped (deallocated), which the sentence says
/// is not supported; gpuform takes the sentence (neither direction), the conservative reading.
pub const STATE_TRANSITIONS: Source = Source::doc(
    "https://learn.microsoft.com/azure/virtual-machine-scale-sets/standby-pools-update-delete \
     (MicrosoftDocs/azure-compute-docs articles/virtual-machine-scale-sets/standby-pools-update-delete.md@0c6223e9484d9281f960129ff81c76e16e2eb2cf, page 2026-05-19)",
    "2026-12-05",
);

/// Can a pool go from `virtualMachineState` `from` to `to` in one update? Not between
/// Deallocated and Hibernated, either way. Source: [`STATE_TRANSITIONS`].
pub fn state_change_supported(from: &str, to: &str) -> bool {
    let d = VmState::Deallocated.azure_name();
    let h = VmState::Hibernated.azure_name();
    let pair = |a: &str, b: &str| from.eq_ignore_ascii_case(a) && to.eq_ignore_ascii_case(b);
    !(pair(d, h) || pair(h, d))
}

/// The pool's runtime view: `GET {pool id}/runtimeViews/latest` answers
/// `properties.instanceCountSummary[]`, one entry per zone (`zone`, absent without zones) with
/// `instanceCountsByState[] {state, count}`, and `provisioningState`. Sources: the REST spec's
/// example (Azure/azure-rest-api-specs `specification/standbypool/StandbyPool.Management/
/// examples/2026-04-01/StandbyVirtualMachinePoolRuntimeViews_Get.json`@baf570062c37a6972ce903988e0fc7b7580d76eb;
/// dated copy `tests/fixtures/sources/standby-runtime-view.json`) and Learn, "Get standby pool
/// and instance details" ("Use the standby pool runtime view APIs to get the current status of
/// your standby pool including how many instances are available"). The state names are spelt
/// in both cases across versions and pages (`creating`, `Creating`): compare them ignoring case.
pub const RUNTIME_VIEW: Source = Source::doc(
    "Azure/azure-rest-api-specs specification/standbypool/StandbyPool.Management/examples/2026-04-01/StandbyVirtualMachinePoolRuntimeViews_Get.json@baf570062c37a6972ce903988e0fc7b7580d76eb; \
     https://learn.microsoft.com/azure/virtual-machine-scale-sets/standby-pools-get-details \
     (MicrosoftDocs/azure-compute-docs articles/virtual-machine-scale-sets/standby-pools-get-details.md@883ff7bbc5259f994e7ef96832cbbeb5e1538d6f, page 2026-05-19)",
    "2026-12-05",
);

/// The runtime view's name under the pool. Source: [`RUNTIME_VIEW`].
pub const RUNTIME_VIEW_PATH: &str = "runtimeViews/latest";

/// The states of `instanceCountsByState` (2025-10-01 and later: the 2025-03-01 example lacks the
/// two hibernation states). Source: [`RUNTIME_VIEW`].
pub const RUNTIME_STATES: &[&str] = &[
    "Creating",
    "Running",
    "Deallocating",
    "Deallocated",
    "Starting",
    "Deleting",
    "Hibernating",
    "Hibernated",
];

/// "Note: any resources in the Running state may still be installing extensions / not fully
/// provisioned" (the runtime view's `instanceCountSummary`, Learn's JavaScript reference
/// `@azure/arm-standbypool` StandbyVirtualMachinePoolRuntimeViewResourceProperties). So a
/// Deallocated or Hibernated pool with VMs counted Running is still filling.
pub const RUNTIME_VIEW_RUNNING: Source = Source::doc(
    "https://learn.microsoft.com/javascript/api/@azure/arm-standbypool/standbyvirtualmachinepoolruntimeviewresourceproperties (instanceCountSummary)",
    "2026-12-05",
);

/// A pool's `virtualMachineState` is changed with `PATCH` of the pool
/// (`StandbyVirtualMachinePools_Update`, body `{"properties": {"virtualMachineState": ..}}`,
/// answered 200 with the pool), as `az standby-vm-pool update --vm-state` does. Sources: the REST
/// spec's example (Azure/azure-rest-api-specs `specification/standbypool/StandbyPool.Management/
/// examples/2025-03-01/StandbyVirtualMachinePools_Update.json`@058439034be46014fc18ed01c825925eea370e64)
/// and [`STATE_TRANSITIONS`].
pub const UPDATE: Source = Source::doc(
    "Azure/azure-rest-api-specs specification/standbypool/StandbyPool.Management/examples/2025-03-01/StandbyVirtualMachinePools_Update.json@058439034be46014fc18ed01c825925eea370e64",
    "2026-12-05",
);

/// How long the standby provider takes to fill a pool after its PUT: no page gives a figure
/// (searched: the standby pools overview, FAQ, create, get-details and update pages). It builds
/// GPU VMs (driver and extensions) and deallocates or hibernates them, so gpuform waits up to
/// 30 minutes by default (`deploy --pool-wait`), an assumption said where it is used.
pub const FILL_MINUTES: u32 = 30;
pub const FILL_TIME: Source = Source::assumption(
    "no Microsoft page says how long a standby pool takes to fill after its PUT; gpuform waits up \
     to 30 minutes (deploy --pool-wait MINUTES)",
    "2026-12-05",
);

/// Flexible orchestration only: "Standby pools are only supported with Virtual Machine Scale Sets
/// using Flexible Orchestration. Uniform Orchestration is not supported." Source: [`OVERVIEW`]
/// (and [`FAQ`]).
pub const FLEXIBLE_ONLY: Source = OVERVIEW;

/// "Standby pools can be attached to a Virtual Machine Scale Set with Azure autoscale enabled when
/// the standby pool uses the Stopped (deallocated) or hibernated VM state. Standby Pools in a
/// running VM state with autoscale enabled is not yet supported." Source: [`OVERVIEW`].
pub const RUNNING_WITH_AUTOSCALE_SUPPORTED: bool = false;

/// "Standby pools aren't supported with Virtual Machine Scale Sets configured with a fault domain
/// count greater than 1." gpuform's Flexible scale sets use `platformFaultDomainCount: 1`.
/// Source: [`OVERVIEW`].
pub const MAX_FAULT_DOMAINS: u32 = 1;

/// "Ephemeral OS disks don't support the deallocated state." gpuform renders managed OS disks
/// only. Source: [`OVERVIEW`].
pub const EPHEMERAL_OS_DISK_DEALLOCATES: bool = false;

/// Spot: "Standby pools only support spot instances when used with scale sets configured to use
/// 100% Spot Instances (not a mix of Spot and regular instances)"; "Deallocate eviction policy
/// isn't currently supported"; "Standby pools using spot instances can't use a hibernated VM
/// state"; and Spot in standby pools "is currently in preview". gpuform takes the conservative
/// reading: no standby pool on a pool with any Spot share. Source: [`SPOT`].
pub const SPOT_PREVIEW: bool = true;

/// GPU series whose sizes support hibernation, as the hibernation page names them ("VM sizes with
/// up to 112-GB RAM from the following GPU VM series support hibernation"): NVv4, NVadsA10v5,
/// NVadsV710v5. Compared with a catalog series after [`series_key`]. Source: [`HIBERNATION`].
pub const HIBERNATION_GPU_SERIES: &[&str] = &["NVv4", "NVadsA10v5", "NVadsV710v5"];

/// "VM sizes with up to 112-GB RAM" of those series. Source: [`HIBERNATION`].
pub const HIBERNATION_MAX_MEMORY_GB: f64 = 112.0;

/// Hibernation's Azure feature limitations include "Spot VMs". Source: [`HIBERNATION`].
pub const HIBERNATION_WITH_SPOT: bool = false;

/// A series name without `_`, `-`, spaces or case: `NVadsA10_v5` and "NVadsA10v5-series" both
/// become `nvadsa10v5`.
pub fn series_key(series: &str) -> String {
    series
        .trim_end_matches("-series")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Does a size of `series` with `memory_gib` of RAM support hibernation? Source: [`HIBERNATION`].
pub fn hibernation_supported(series: &str, memory_gib: f64) -> bool {
    let key = series_key(series);
    HIBERNATION_GPU_SERIES.iter().any(|s| series_key(s) == key)
        && memory_gib <= HIBERNATION_MAX_MEMORY_GB
}

/// One role the standby pool resource provider needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderRole {
    pub name: &'static str,
    /// The role definition GUID (lowercase); `tests/facts_standby.rs` checks it against the
    /// built-in roles table (`../shared/azure/builtin-roles.json`).
    pub id: &'static str,
    /// Why the provider needs it.
    pub why: &'static str,
}

/// The roles to grant "the Standby Pool Resource Provider" (the provider's service principal in
/// the tenant): the page's steps assign Virtual Machine Contributor, Network Contributor and
/// "the **Managed Identity Operator** role" (its list says "Managed Identity Contributor"; the
/// steps' Operator is the smaller grant and covers assigning the pool's identity to its VMs),
/// and for Compute Gallery images also Compute Gallery Sharing Admin and Compute Gallery
/// Artifacts Publisher (gpuform's gallery images are the spec's `image.id`; see
/// [`GALLERY_ROLES`]; a subnet of another group, [`SUBNET_ROLE`]; customer-managed disk keys,
/// [`DISK_ENCRYPTION_SET_ROLE`]). Source: [`PERMISSIONS`]; GUIDs from the built-in roles table
/// (`super::roles`' source).
pub const PROVIDER_ROLES: &[ProviderRole] = &[
    ProviderRole {
        name: "Virtual Machine Contributor",
        id: "9980e02c-c2be-4d73-94e8-173b1dc7cf3c",
        why: "creates, starts and deallocates the pooled VMs",
    },
    ProviderRole {
        name: "Network Contributor",
        id: "4d97b98b-1d4f-4787-a291-c67834d212e7",
        why: "creates the pooled VMs' network interfaces in the workload subnet",
    },
    ProviderRole {
        name: "Managed Identity Operator",
        id: "f1a07417-d97a-45cb-824c-7a7467783830",
        why: "assigns the pool's user-assigned identity to the pooled VMs",
    },
];

/// The extra roles for Compute Gallery images: "If you're using images stored in Compute Gallery
/// assign the **Compute Gallery Sharing Admin** and **Compute Gallery Artifacts Publisher** roles
/// as well", and "If your standby pool uses resources, such as compute gallery images, stored in a
/// different subscription, ensure the standby pool resource provider has access to those
/// resources. You may need to assign roles in the other subscription". gpuform asks for them on
/// the gallery of the spec's `image.id` (wherever it is: the roles on the pool's group never
/// reach another group or subscription). Source: [`PERMISSIONS`]; GUIDs from the built-in roles
/// table.
pub const GALLERY_ROLES: &[ProviderRole] = &[
    ProviderRole {
        name: "Compute Gallery Sharing Admin",
        id: "1ef6a3be-d0ac-425d-8c01-acb62866290b",
        why: "reads the gallery image the pooled VMs are built from",
    },
    ProviderRole {
        name: "Compute Gallery Artifacts Publisher",
        id: "85a2d0d9-2eba-4c9c-b355-11c2cc0788ab",
        why: "uses the gallery image version the pooled VMs are built from",
    },
];

/// An existing subnet (a landing zone's, `network.existingSubnet`) in another resource group:
/// the pooled VMs' NICs join it (`Microsoft.Network/virtualNetworks/subnets/join/action`), which
/// Network Contributor on the pool's group does not reach. The permissions page lists "Virtual
/// networks and subnets" among "the necessary permissions for all required resources". gpuform
/// asks for Network Contributor (the page's role for networking) on the subnet. Source:
/// [`PERMISSIONS`].
pub const SUBNET_ROLE: ProviderRole = ProviderRole {
    name: "Network Contributor",
    id: "4d97b98b-1d4f-4787-a291-c67834d212e7",
    why: "joins the pooled VMs' network interfaces to the existing subnet",
};

/// Customer-managed disk keys: the pooled VMs' disks name the disk encryption set, which they
/// must read (`Microsoft.Compute/diskEncryptionSets/read`); Virtual Machine Contributor does not
/// grant it (its actions cover `Microsoft.Compute/disks/*` reads and writes, not disk encryption
/// sets: the built-in roles table), and the permissions page asks for "the necessary permissions
/// for all required resources, including but not limited to" images, networks, identities and
/// storage. Reader is the smallest built-in role that has the action; gpuform grants it on the
/// disk encryption set only. Source: [`PERMISSIONS`] and the built-in roles table.
pub const DISK_ENCRYPTION_SET_ROLE: ProviderRole = ProviderRole {
    name: "Reader",
    id: "acdd72a7-3385-48ef-bd42-f606fba81ae7",
    why: "reads the disk encryption set the pooled VMs' disks use (Virtual Machine Contributor has no Microsoft.Compute/diskEncryptionSets/read)",
};

/// The provider's principal as the portal names it ("Search for **Standby Pool Resource
/// Provider**"). Its object id differs per tenant, so a template cannot name it. Source:
/// [`PERMISSIONS`].
pub const PROVIDER_PRINCIPAL_NAME: &str = "Standby Pool Resource Provider";

/// The provider's application (client) id, which gpuform looks its service principal up by in
/// Microsoft Graph (`servicePrincipals?$filter=appId eq '...'`). No Microsoft page found gives
/// it (searched: the standby pools permissions, create and FAQ pages, Learn's first-party app
/// lists; again 2026-12-04: the az and PowerShell references, Azure Verified Modules' tests,
/// which keep the tenant's object id in a Key Vault secret, Terraform azurerm's tests, which
/// look the principal up by display name, and the REST specs and type data); the value is a third-party test's comment ("Object ID of the \"Standby Pool Resource
/// Provider\" service principal (app ID d4398a72-b879-49e5-9f3a-ff22c32efb42)", an Azure
/// provider test of the alchemy project, read 2026-12-03). So it is an assumption: preflight
/// says so whenever it uses it, checks the display name Graph returns against
/// [`PROVIDER_PRINCIPAL_NAME`], and `--standby-provider-app-id` /
/// `GPUFORM_STANDBY_PROVIDER_APP_ID` (or the spec's `providerPrincipalId`) override it.
pub const PROVIDER_APP_ID: &str = "d4398a72-b879-49e5-9f3a-ff22c32efb42";
pub const PROVIDER_APP_ID_SOURCE: Source = Source::assumption(
    "no Microsoft page gives the Standby Pool Resource Provider's app id; gpuform uses \
     d4398a72-b879-49e5-9f3a-ff22c32efb42 from a third-party test's comment (override with \
     --standby-provider-app-id or GPUFORM_STANDBY_PROVIDER_APP_ID)",
    "2026-12-03",
);

/// Microsoft Graph's service principal list: `GET {graph}/v1.0/servicePrincipals?$filter=appId
/// eq '{appId}'` answers `{"value": [{"id", "appId", "displayName", ...}]}`; without directory
/// read permission Graph answers 403 `Authorization_RequestDenied`.
pub const GRAPH_SERVICE_PRINCIPALS: Source = Source::doc(
    "https://learn.microsoft.com/graph/api/serviceprincipal-list?view=graph-rest-1.0 (List servicePrincipals: $filter on appId, response {value: [servicePrincipal]})",
    "2026-12-03",
);
pub const GRAPH_SERVICE_PRINCIPALS_PATH: &str = "v1.0/servicePrincipals";

/// ARM's role assignments of a principal at a resource group: `GET /subscriptions/{s}/
/// resourceGroups/{rg}/providers/Microsoft.Authorization/roleAssignments?$filter=principalId eq
/// '{id}'` ("Use ... principalId eq {id} to return all role assignments at, above or below the
/// scope for the specified principal"), each `{properties: {roleDefinitionId, principalId,
/// scope}}`.
pub const ROLE_ASSIGNMENTS_LIST: Source = Source::doc(
    "https://learn.microsoft.com/rest/api/authorization/role-assignments/list-for-resource-group?view=rest-authorization-2022-04-01",
    "2026-12-03",
);

/// `elasticityProfile.postProvisioningDelay`, in the type data from API 2025-10-01 on (so in
/// [`API_VERSION`]): "Specifies the duration to wait after virtual machine provisioning before
/// the virtual machine becomes available for use. The duration should be specified in ISO 8601
/// format (e.g., PT2S for 2 seconds)." Source: [`POST_PROVISIONING_DELAY`] (and [`TYPE_DATA`]).
pub const POST_PROVISIONING_DELAY: Source = Source::doc(
    "Azure/bicep-types-az generated/standbypool/microsoft.standbypool/2026-04-01/types.md@4d77be0b820b1c2a6ab8a95af6277c82f3375ce6 \
     (StandbyVirtualMachinePoolElasticityProfile.postProvisioningDelay; the property is in the 2025-10-01 and 2026-04-01 bodies of \
     ../shared/conformance/types/microsoft.standbypool.json, not in 2025-03-01); Learn template reference \
     https://learn.microsoft.com/azure/templates/microsoft.standbypool/standbyvirtualmachinepools",
    "2026-12-04",
);
/// The first API version whose body has `postProvisioningDelay`. Source: [`TYPE_DATA`].
pub const POST_PROVISIONING_DELAY_SINCE: &str = "2025-10-01";
/// What a pooled VM does while it waits out `postProvisioningDelay`: no document says (the
/// property's one sentence above is all). gpuform reads it as the conservative case: the VM
/// keeps running (billed as compute, like a VM being built) and cannot be taken by a scale-out
/// until the delay has passed, so a refill takes the provisioning delay plus this delay.
pub const POST_PROVISIONING_DELAY_RUNS: Source = Source::assumption(
    "no Microsoft document says what state a pooled VM is in during postProvisioningDelay; \
     gpuform assumes it runs (billed as compute) and is not available to a scale-out until the delay has passed",
    "2026-12-04",
);
/// `elasticityProfile.dynamicSizing.enabled` (2025-10-01 on) is documented only as "Indicates
/// whether dynamic sizing is enabled for the standby pool" (same sources): what it changes in
/// the pool's size is not written anywhere found, so gpuform neither renders nor models it.
/// Searched again 2026-12-04: the Learn template reference (2026-04-01 body: `dynamicSizing
/// {enabled}` beside `maxReadyCapacity`, `minReadyCapacity`, `postProvisioningDelay`; the one
/// sentence above), the .NET, JavaScript and PowerShell model pages (the same sentence),
/// `New-AzStandbyVMPool`/`Update-AzStandbyVMPool -DynamicSizingEnabled` (azps-16.4.0, a switch
/// without behaviour), the Az.StandbyPool 0.4.0 and azure-mgmt-standbypool 2.1.0 (2026-03-25)
/// release notes ("added property dynamic_sizing"), the bicep-types-az 2025-10-01 types.md, the
/// standby pools overview, FAQ, create and update pages, and the prediction-results page (the
/// runtime view's forecast of instances requested, which it calls a recommendation, not a
/// sizing the pool applies). None says how the pool's size follows the forecast, whether
/// `maxReadyCapacity` still caps it, or how it meets `minReadyCapacity`.
pub const DYNAMIC_SIZING_DOCUMENTED: bool = false;

/// Deallocated VMs count against quota: "Ensure you have enough quota to complete the standby pool
/// creation. Insufficient quota results in the platform attempting to create the virtual machines
/// in the standby pool but unable to successfully complete the create operation. Check for
/// multiple types of quotas such as Cores, Network Interfaces, IP Addresses" ([`FAQ`]); the pooled
/// VMs are created (then deallocated), so their vCPUs count like the scale set's.
pub const POOLED_VMS_COUNT_AGAINST_QUOTA: bool = true;

/// How long a deallocated GPU VM of the pool takes from the scale-out to running, in seconds.
/// No Microsoft document gives a start time for a deallocated VM (searched: the standby pools
/// overview, FAQ and create pages, the hibernation overview, the VM states and billing page).
/// gpuform assumes 3 minutes; every output that depends on it says so, and a flag overrides it.
pub const DEALLOCATED_START_SECONDS: u32 = 180;
pub const DEALLOCATED_START: Source = Source::assumption(
    "no Microsoft document gives the start time of a deallocated (or hibernated) VM taken from a \
     standby pool; gpuform assumes 3 minutes (override with a flag)",
    "2026-12-03",
);

/// Instance mix (`skuProfile`): "VM families supported in `skuProfile`: A, B, D, E, and F
/// families only" and "Instance mix doesn't support: Standby Pools, Azure Dedicated Host,
/// Proximity Placement Groups, or on-demand capacity reservations"; "Define up to five VM sizes".
/// No GPU family (N-series) is among them, so a scale set of several GPU sizes cannot be
/// rendered. Source: [`INSTANCE_MIX`].
pub const INSTANCE_MIX_FAMILIES: &[char] = &['A', 'B', 'D', 'E', 'F'];
pub const INSTANCE_MIX_MAX_SIZES: usize = 5;
pub const INSTANCE_MIX_WITH_STANDBY: bool = false;

/// Can `size` (`Standard_NC8as_T4_v3`) be part of an instance mix? Its family letter is the
/// first letter after `Standard_`. Source: [`INSTANCE_MIX`].
pub fn instance_mix_family(size: &str) -> bool {
    let name = size
        .strip_prefix("Standard_")
        .or_else(|| size.strip_prefix("standard_"))
        .unwrap_or(size);
    name.chars()
        .next()
        .is_some_and(|c| INSTANCE_MIX_FAMILIES.contains(&c.to_ascii_uppercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_overview_examples_of_the_pool_size() {
        // "a maximum ready capacity of 20 and you currently have 10 instances [...] the pool
        // size would equal 10. If your scale set scales down to 5, the pool size would
        // increase to 15."
        assert_eq!(pool_size(20, 0, 10), 10);
        assert_eq!(pool_size(20, 0, 5), 15);
        // the floor: "a minimum ready capacity of 5 [...] maintain that many instances"
        assert_eq!(pool_size(20, 5, 18), 5);
        assert_eq!(pool_size(4, 0, 9), 0);
        // gpuform's default: min = max keeps the pool full at any instance count
        assert_eq!(pool_size(3, 3, 40), 3);
    }

    #[test]
    fn hibernation_series_match_the_catalog_spelling() {
        assert!(hibernation_supported("NVadsA10_v5", 110.0));
        assert!(hibernation_supported("NVads_V710_v5", 40.0));
        assert!(hibernation_supported("NVv4", 112.0));
        assert!(!hibernation_supported("NVadsA10_v5", 440.0));
        assert!(!hibernation_supported("NCasT4_v3", 28.0));
        assert!(!hibernation_supported("NVv3", 112.0));
    }

    #[test]
    fn gpu_sizes_are_not_instance_mix_families() {
        assert!(!instance_mix_family("Standard_NC8as_T4_v3"));
        assert!(!instance_mix_family("Standard_ND96isr_H100_v5"));
        assert!(instance_mix_family("Standard_D8s_v5"));
        assert!(instance_mix_family("Standard_F4s_v2"));
    }

    // the start time is an assumption (no document gives it), and not zero: checked when built
    const _: () = assert!(DEALLOCATED_START.assumption && DEALLOCATED_START_SECONDS > 0);
}
