//! `gpuform destroy`: delete exactly what the spec's deployments created, in an order Azure
//! accepts, and nothing else in the group.
//!
//! What goes: the union of `outputResources` of the resource group's deployments of this spec
//! (`metadata.name-<hash>`, the names `gpuform deploy` gives, plus any `--deployment NAME`),
//! kept only when their type is one the spec's rendered template declares. Deployment Stacks are
//! not used (README "destroy" says why), so this works for every pool `gpuform deploy` made.
//!
//! Order ([`stage`]): what watches, grants on or starts other resources first (autoscale,
//! alerts, budget, diagnostic settings, role assignments, a dev box's shutdown schedule and
//! start Logic App), then the scale set or the dev box's VM, then its NIC and the disks it
//! created, then what used it, the network from the inside out, and the Key Vault last (its keys
//! encrypt the disks until the disks and the disk encryption set are gone). A dev box's disks
//! are not output resources (the VM creates them, `deleteOption: Detach`): [`vm_disks`] reads
//! them from the VM. Children whose parent also goes (subnets,
//! queues, keys) are deleted with the parent, except where Azure refuses to delete the parent
//! while the child exists (a private DNS zone's virtual network links, a private endpoint's DNS
//! zone groups: `crate::facts::deletion`), which are deleted first. The deployment records are deleted
//! only when every resource is gone, so a run that fails half-way is resumed by running destroy
//! again: what is gone already answers 404 and counts as done.

// `ArmError` carries the whole error tree; it is built once per failed call.
#![allow(clippy::result_large_err)]

pub mod delete;
pub mod inventory;
pub mod report;
pub mod run;
pub mod serving;

pub use delete::{
    Deletion, Polling, conflict_backoff, delete_one, existing, follow, is_conflicting_operation,
    keep_instance_disks,
};
pub use inventory::{
    DISKS_API, Inventory, Target, add_disks, api_versions, dry_run_json, inventory, is_data,
    name_base, parse_id, spec_deployments, stage, vm_disks,
};
