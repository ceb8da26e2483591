//! `gpuform destroy`'s run: list what the spec's deployments created, confirm, delete it in order
//! with progress, and summarise.

// `ArmError` carries the whole error tree; it is built once per failed call.
#![allow(clippy::result_large_err)]

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use tokio::runtime::Runtime;

use super::delete::{Deletion, Polling, delete_one, existing, follow, keep_instance_disks};
use super::inventory::{
    DISKS_API, Target, add_disks, dry_run_json, inventory, name_base, parse_id, spec_deployments,
    vm_disks,
};
use super::report::Summary;
use crate::azure::{Arm, ArmError};
use crate::deploy::ask::confirm;
use crate::deploy::landed::{self, Landed};
use crate::plan::Plan;
use crate::spec::model::Spec;

/// The command line's choices for one destroy.
#[derive(Debug, Clone, Copy)]
pub struct Options<'a> {
    pub spec_path: &'a Path,
    pub resource_group: &'a str,
    pub yes: bool,
    /// No `--yes` and no terminal to ask on: list what would go, delete nothing.
    pub dry_run: bool,
    pub keep_data: bool,
    /// More deployments whose resources go (`--deployment NAME`).
    pub deployments: &'a [String],
    pub polling: Polling,
    /// Act on `resource_group` as given: do not look for the `<RG>-<region>` group a failover
    /// landed in (`crate::deploy::landed`).
    pub no_follow: bool,
}

/// How a destroy ended (the command chooses the output and the exit code).
pub enum Ended {
    /// Nothing to destroy, and why (exit 0).
    Empty(String),
    /// Stopped before deleting anything; stderr says why (exit 1).
    Stopped,
    /// A dry run: what would be deleted from `group` (exit 2).
    DryRun {
        json: Value,
        count: usize,
        group: String,
    },
    /// More than one resource group holds deployments of the spec: (what, how to choose);
    /// nothing was read further or deleted (exit 2).
    Ambiguous(String, String),
    /// Not confirmed: nothing was deleted.
    Declined,
    /// Ctrl-C: deletions already started finish in Azure.
    Interrupted,
    /// The deletions ran (every one succeeded or not).
    Done(Summary),
}

fn label(t: &Target) -> String {
    let on =
        t.on.as_deref()
            .and_then(parse_id)
            .map(|p| format!(" on {}", p.name))
            .unwrap_or_default();
    let rg = match &t.resource_group {
        Some(g) => format!(" ({g})"),
        None => " (subscription)".to_string(),
    };
    format!("{} {}{on}{rg}", t.resource_type, t.name)
}

/// Delete what the spec's deployments created in the group (asking first unless `--yes`).
pub fn run(
    opts: &Options,
    spec: &Spec,
    plan: &Plan,
    apis: BTreeMap<String, String>,
    (rt, arm, subscription): (&Runtime, &Arm, &str),
) -> Result<Ended, ArmError> {
    let polling = opts.polling;
    let dry_run = opts.dry_run;
    let given = opts.resource_group.trim().to_string();
    let rg = if opts.no_follow {
        given.clone()
    } else {
        match rt.block_on(landed::landed(arm, &given, spec, opts.deployments))? {
            Landed::Ambiguous(held) => {
                let (what, help) = landed::ambiguous_message(
                    "destroy",
                    &opts.spec_path.display().to_string(),
                    &spec.metadata.name,
                    &held,
                );
                return Ok(Ended::Ambiguous(what, help));
            }
            Landed::Group {
                group,
                followed,
                leftovers,
            } => {
                if let Some(why) = followed {
                    eprintln!("destroy: {why}; acting on {group} (--no-follow acts on {given})");
                }
                for h in leftovers {
                    eprintln!(
                        "destroy: {} also holds deployments of {} ({}): what an earlier attempt left; this run leaves them, run `gpuform destroy {} -g {} --no-follow` after it",
                        h.group,
                        spec.metadata.name,
                        h.deployments_listed(),
                        opts.spec_path.display(),
                        h.group
                    );
                }
                group
            }
        }
    };

    let group = rt.block_on(arm.resource_group(&rg))?;
    if group.is_none() {
        return Ok(Ended::Empty(format!(
            "the resource group {rg} does not exist; nothing to destroy"
        )));
    }
    let records = rt.block_on(arm.deployments(&rg))?;
    let base = name_base(&spec.metadata.name);
    let mine = spec_deployments(&records, &base, opts.deployments);
    if let Some(d) = mine.iter().find(|d| {
        d.properties
            .provisioning_state
            .as_deref()
            .is_some_and(|s| !crate::deploy::progress::is_terminal(s))
    }) {
        eprintln!(
            "destroy: deployment {} in {rg} is still {}; nothing was deleted",
            d.name,
            d.properties
                .provisioning_state
                .as_deref()
                .unwrap_or("running")
        );
        eprintln!(
            "  wait for it (az deployment group wait -g {rg} -n {n} --created) or cancel it (az deployment group cancel -g {rg} -n {n}), then run destroy again",
            n = d.name
        );
        return Ok(Ended::Stopped);
    }
    if mine.is_empty() {
        return Ok(Ended::Empty(format!(
            "no deployment of {} in {rg} (gpuform deploy names them {base}-<hash>; pass --deployment NAME for others); nothing to destroy",
            spec.metadata.name
        )));
    }
    // a serving pool's frontend: its types with versions of their own, even where the
    // template (an older render's) does not name them
    let mut apis = apis;
    super::serving::add_frontend_versions(plan, &mut apis);
    let mut inv = inventory(&mine, &apis, opts.keep_data);
    // a dev box's disks: the VM creates them (deleteOption Detach), so they are not output
    // resources; read them from the VM and delete them after it (keep them with --keep-data)
    let mut hand_attached: Vec<String> = Vec::new();
    let mut delete_option_delete: Vec<String> = Vec::new();
    if let Some(devbox) = &plan.devbox {
        let vm = inv
            .delete
            .iter()
            .find(|t| {
                t.resource_type
                    .eq_ignore_ascii_case("Microsoft.Compute/virtualMachines")
                    && t.name.eq_ignore_ascii_case(&devbox.vm_name)
            })
            .cloned();
        if let Some(vm) = vm {
            apis.entry("microsoft.compute/disks".into())
                .or_insert_with(|| DISKS_API.to_string());
            let vm_rg = vm.resource_group.clone().unwrap_or_else(|| rg.clone());
            let read = rt.block_on(arm.virtual_machine(&vm_rg, &vm.name))?;
            let mut planned = vec![devbox.os_disk_name.clone()];
            planned.extend(devbox.data_disk_names.iter().cloned());
            let (mut disks, attached) = vm_disks(&vm.id, read.as_ref(), &planned);
            hand_attached = attached;
            if read.is_none() {
                // the VM is gone (an earlier run stopped after it): the disks the template
                // names that are still there
                let there = rt.block_on(existing(arm, &disks, &apis))?;
                disks = disks
                    .into_iter()
                    .zip(there)
                    .filter(|(_, e)| *e)
                    .map(|(d, _)| d)
                    .collect();
            } else {
                // what deleting the VM deletes with it (deleteOption Delete): gpuform renders
                // Detach, so only a disk changed or attached by hand
                let sp = read
                    .as_ref()
                    .and_then(|v| v.properties.as_ref())
                    .and_then(|p| p.storage_profile.as_ref());
                delete_option_delete = sp
                    .into_iter()
                    .flat_map(|sp| sp.os_disk.iter().chain(sp.data_disks.iter()))
                    .filter(|d| {
                        d.delete_option
                            .as_deref()
                            .is_some_and(|o| o.eq_ignore_ascii_case("Delete"))
                    })
                    .filter_map(|d| d.name.clone())
                    .collect();
            }
            add_disks(&mut inv, disks, opts.keep_data);
        }
    }
    let exists = rt.block_on(existing(arm, &inv.delete, &apis))?;
    let live: Vec<&Target> = inv
        .delete
        .iter()
        .zip(&exists)
        .filter(|(_, e)| **e)
        .map(|(t, _)| t)
        .collect();
    let gone = inv.delete.len() - live.len();

    eprintln!(
        "destroy: {} of {} resources from deployment{} {} in {rg} (subscription {}) will be deleted, in this order:",
        live.len(),
        inv.delete.len(),
        if inv.deployments.len() == 1 { "" } else { "s" },
        inv.deployments.join(", "),
        subscription
    );
    for t in &live {
        eprintln!("  {}  {}", t.stage + 1, label(t));
    }
    if gone > 0 {
        eprintln!("  ({gone} already gone)");
    }
    if inv.with_parent > 0 {
        eprintln!(
            "  ({} child resources go with their parents)",
            inv.with_parent
        );
    }
    for t in &inv.keep {
        eprintln!("  keep  {} (--keep-data)", label(t));
    }
    if !inv.foreign.is_empty() {
        eprintln!(
            "  left alone: {} output resources of types the spec does not declare",
            inv.foreign.len()
        );
    }
    let with_vm = |id: &str| {
        let name = id.rsplit('/').next().unwrap_or(id);
        delete_option_delete
            .iter()
            .any(|d| d.eq_ignore_ascii_case(name))
    };
    for id in &hand_attached {
        let name = id.rsplit('/').next().unwrap_or(id);
        if with_vm(id) {
            eprintln!(
                "  goes with the VM: disk {name} (attached to it by hand with deleteOption Delete)"
            );
        } else {
            eprintln!(
                "  left alone: disk {name} (attached to the VM, not created by it; it stays in its group)"
            );
        }
    }
    eprintln!("  everything else in {rg}, and the group itself, is left alone");
    if opts.keep_data && !delete_option_delete.is_empty() {
        eprintln!(
            "destroy: --keep-data, but deleting the VM would delete its disk{} {} (deleteOption Delete; gpuform renders Detach); nothing was deleted",
            if delete_option_delete.len() == 1 {
                ""
            } else {
                "s"
            },
            delete_option_delete.join(", "),
        );
        eprintln!(
            "  set deleteOption back to Detach (deploy the spec again: gpuform renders Detach) or snapshot the disks (az snapshot create), then run destroy again"
        );
        return Ok(Ended::Stopped);
    }
    let detach = opts.keep_data
        && !plan.compute.data_disks.is_empty()
        && live.iter().any(|t| {
            t.resource_type
                .eq_ignore_ascii_case("Microsoft.Compute/virtualMachineScaleSets")
        });
    if detach && plan.compute.flexible {
        eprintln!(
            "  keep  the instances' data disks (--keep-data: set to deleteOption Detach before the scale set goes)"
        );
    } else if detach {
        eprintln!(
            "destroy: note: a Uniform scale set's data disks go with their instances (their deleteOption is in the scale set model); snapshot them first (az snapshot create) to keep their data"
        );
    }
    if dry_run {
        eprintln!(
            "destroy: no terminal to ask on and no --yes: a dry run; nothing was deleted (run again with --yes to delete the {} resources above)",
            live.len()
        );
        return Ok(Ended::DryRun {
            json: dry_run_json(&rg, &inv, &live),
            count: live.len(),
            group: rg.clone(),
        });
    }
    if !opts.yes
        && !confirm(&format!(
            "Delete {} resources from {rg}? [y/N] ",
            live.len()
        ))
    {
        eprintln!("destroy: not confirmed; nothing was deleted");
        return Ok(Ended::Declined);
    }

    // ---- deleting (Ctrl-C: what has started finishes in Azure; destroy again resumes)
    let mut results: Vec<Deletion> = Vec::new();
    let mut kept_disks = 0usize;
    let work = async {
        let mut stages: Vec<u8> = live.iter().map(|t| t.stage).collect();
        stages.dedup();
        let mut failed = false;
        for s in stages {
            let batch: Vec<&Target> = live.iter().copied().filter(|t| t.stage == s).collect();
            if failed {
                for t in batch {
                    results.push(Deletion {
                        id: t.id.clone(),
                        resource_type: t.resource_type.clone(),
                        name: t.name.clone(),
                        result: "notAttempted",
                        error: None,
                        seconds: 0.0,
                    });
                }
                continue;
            }
            if detach
                && plan.compute.flexible
                && batch.iter().any(|t| {
                    t.resource_type
                        .eq_ignore_ascii_case("Microsoft.Compute/virtualMachineScaleSets")
                })
            {
                match keep_instance_disks(arm, &rg, &plan.compute.name, polling).await {
                    Ok(n) => {
                        kept_disks = n;
                        eprintln!(
                            "destroy: {n} data disks of the instances set to deleteOption Detach; they stay in {rg}"
                        );
                    }
                    Err(e) => {
                        eprintln!(
                            "destroy: FAILED to keep the instances' data disks: {}; the scale set was not deleted",
                            e.summary()
                        );
                        results.push(Deletion {
                            id: format!("/subscriptions/{}/resourceGroups/{rg}/providers/Microsoft.Compute/virtualMachineScaleSets/{}", subscription, plan.compute.name),
                            resource_type: "Microsoft.Compute/virtualMachineScaleSets".into(),
                            name: plan.compute.name.clone(),
                            result: "failed",
                            error: Some(e),
                            seconds: 0.0,
                        });
                        failed = true;
                        for t in batch.iter().filter(|t| {
                            !t.resource_type
                                .eq_ignore_ascii_case("Microsoft.Compute/virtualMachineScaleSets")
                        }) {
                            results.push(Deletion {
                                id: t.id.clone(),
                                resource_type: t.resource_type.clone(),
                                name: t.name.clone(),
                                result: "notAttempted",
                                error: None,
                                seconds: 0.0,
                            });
                        }
                        continue;
                    }
                }
            }
            for t in &batch {
                eprintln!("destroy: deleting {}", label(t));
            }
            let done = futures::future::join_all(batch.iter().map(|t| {
                let api = super::delete::api_for(&apis, &t.resource_type).unwrap_or_default();
                async move { delete_one(arm, t, &api, polling).await }
            }))
            .await;
            for mut d in done {
                // Azure's in-use refusals of the frontend say what has to go first
                if let (Some(e), Some(t)) = (d.error.as_mut(), batch.iter().find(|t| t.id == d.id))
                    && e.help.is_none()
                {
                    e.help = super::serving::in_use_help(t, e);
                }
                match d.result {
                    "failed" => {
                        failed = true;
                        eprintln!(
                            "destroy: FAILED {} {}: {}",
                            d.resource_type,
                            d.name,
                            d.error.as_ref().map(|e| e.summary()).unwrap_or_default()
                        );
                    }
                    "alreadyGone" => {
                        eprintln!("destroy: {} {} was already gone", d.resource_type, d.name)
                    }
                    _ => eprintln!(
                        "destroy: deleted {} {} ({:.0}s)",
                        d.resource_type, d.name, d.seconds
                    ),
                }
                results.push(d);
            }
        }
        if failed {
            return false;
        }
        // every resource is gone: the deployment records go last (a failed run keeps them, so
        // the next run finds the same resources)
        for name in &inv.deployments {
            match arm.delete_deployment(&rg, name).await {
                Ok(crate::azure::operate::Deleted::Accepted(a)) => {
                    let _ = follow(arm, "delete the deployment record", &a, polling).await;
                }
                Ok(_) => {}
                Err(e) => eprintln!(
                    "destroy: warning: could not delete the deployment record {name}: {}",
                    e.summary()
                ),
            }
        }
        true
    };
    let ok = rt.block_on(async {
        tokio::select! {
            r = work => Some(r),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    let Some(ok) = ok else {
        eprintln!(
            "\ndestroy: interrupted; deletions already started finish in Azure. Run `gpuform destroy {} -g {rg}` again to finish (what is gone counts as done).",
            opts.spec_path.display()
        );
        return Ok(Ended::Interrupted);
    };

    // what Azure keeps after deletion
    let mut notes: Vec<String> = Vec::new();
    for d in results.iter().filter(|d| {
        d.result == "deleted"
            && d.resource_type
                .eq_ignore_ascii_case("Microsoft.KeyVault/vaults")
    }) {
        let purge_date = rt
            .block_on(arm.deleted_vault(&spec.spec.region.to_ascii_lowercase(), &d.name))
            .ok()
            .flatten()
            .and_then(|v| {
                v.pointer("/properties/scheduledPurgeDate")
                    .and_then(|x| x.as_str())
                    .map(str::to_string)
            });
        let until = purge_date
            .map(|p| format!(" until {p}"))
            .unwrap_or_else(|| format!(" for {} days", plan.vault.soft_delete_retention_days));
        if plan.vault.purge_protection {
            notes.push(format!(
                "Key Vault {} is soft-deleted{until}; purge protection is on, so it cannot be purged. The next deploy of this spec to {rg} reuses the name and fails until you recover it: az keyvault recover --name {} --resource-group {rg} (then gpuform deploy updates it); or set security.keyVault.name to another name",
                d.name, d.name
            ));
        } else {
            notes.push(format!(
                "Key Vault {} is soft-deleted{until}; recover it (az keyvault recover --name {}) before the next deploy, or purge it (az keyvault purge --name {}) to free the name",
                d.name, d.name, d.name
            ));
        }
    }
    if results.iter().any(|d| {
        d.result == "deleted"
            && d.resource_type
                .eq_ignore_ascii_case("Microsoft.Authorization/roleAssignments")
    }) {
        notes.push("the role assignments the spec granted were deleted before the identity, so none is left behind as \"Identity not found\"".into());
    }
    // destroy followed a failover into another group (`landed` follows only then)
    if ok && !rg.eq_ignore_ascii_case(&given) {
        notes.push(failover_group_note(&rg, &given));
    }
    let count = |r: &str| results.iter().filter(|d| d.result == r).count();
    let (deleted, already, failed, skipped) = (
        count("deleted"),
        count("alreadyGone") + gone,
        count("failed"),
        count("notAttempted"),
    );
    Ok(Ended::Done(Summary {
        resource_group: rg,
        deployments: inv.deployments,
        succeeded: ok,
        deleted,
        already_gone: already,
        failed,
        not_attempted: skipped,
        results,
        kept: inv.keep,
        kept_data_disks: kept_disks,
        notes,
    }))
}

/// The note of a destroy that followed a failover into `group` (`<given>-<region>`, which deploy
/// creates when it does not exist): destroy deletes what the deployments created and never a
/// group (Azure deletes a group with everything in it, whoever put it there), so say how to
/// remove the group once it is empty.
fn failover_group_note(group: &str, given: &str) -> String {
    format!(
        "{group} is the group a failover deploy placed the spec in (from {given}); destroy leaves every resource group, this one too: when `az resource list -g {group} -o table` lists nothing, delete it with `az group delete -n {group}`"
    )
}
