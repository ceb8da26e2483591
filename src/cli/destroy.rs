//! `gpuform destroy`: list what the spec's deployments created, confirm, delete it in order with
//! progress, and summarise (the work is in `crate::destroy`).

// `ArmError` carries the whole error tree; it is built once per failed call.
#![allow(clippy::result_large_err)]

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap::ValueEnum;
use serde_json::json;

use super::azure_args::{AzureArgs, runtime};
use super::common::{ExitCode, Failure, PolicyArgs, load_valid, out, plan_of};
use super::quota::confirm;
use crate::catalog::prices::PriceTable;
use crate::destroy::{self, Deletion, Polling, Target};

pub const DESTROY_HELP: &str = concat!(
    "Exit codes: 0 everything the spec's deployments created is gone (or was already gone: running destroy twice is ",
    "fine); 1 a deletion failed or a deployment of the spec is still running (run destroy again to resume: what is ",
    "gone counts as done); 2 usage or access errors, or no --yes without a terminal (then destroy lists what would be ",
    "deleted, a dry run, and deletes nothing); 130 interrupted (deletions already ",
    "started finish in Azure; run destroy again).\n\n",
    "Only the resources in the outputResources of the group's deployments named metadata.name-<hash> (what `gpuform ",
    "deploy` creates; add others with --deployment NAME) are deleted, and only of types the spec's template declares; ",
    "everything else in the group is left alone, and so is the group. A dev box's OS and data disks (the VM creates ",
    "them, so they are not output resources) are read from the VM and deleted after it. Order: autoscale, alerts, ",
    "budget, diagnostic settings, role assignments, a dev box's shutdown schedule and start Logic App; the scale set ",
    "or the VM; the VM's NIC and disks, a private endpoint's DNS zone groups; private endpoints, action group, disk ",
    "encryption set, a private DNS zone's virtual network links (Azure refuses the zone while they exist); network; ",
    "the rest; the ",
    "Key Vault last. A deleted vault stays soft-deleted (with purge protection it cannot be purged); destroy ",
    "says how to recover it for the next deploy. Credentials, cloud and retries work as for `gpuform preflight`."
);

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The spec file.
    #[arg(value_name = "SPEC")]
    pub spec: PathBuf,
    /// The resource group the spec was deployed to (it is not deleted).
    #[arg(long, short = 'g', value_name = "RG")]
    pub resource_group: String,
    /// Delete without asking (without it and without a terminal, e.g. in pipelines, destroy only
    /// lists what would be deleted and exits 2).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Keep the Key Vault (with its keys and diagnostic settings) and the data disks (a Flexible
    /// set's instances get deleteOption Detach first; a dev box keeps its OS and data disks).
    #[arg(long)]
    pub keep_data: bool,
    /// Also delete what this deployment created (a deploy run with --name; repeatable).
    #[arg(long = "deployment", value_name = "NAME")]
    pub deployments: Vec<String>,
    /// Summary on stdout: text or a JSON document.
    #[arg(long, alias = "format", value_name = "FORMAT", value_enum, default_value_t = Output::Text)]
    pub output: Output,
    /// Seconds between polls when Azure sends no Retry-After.
    #[arg(long, value_name = "SECS", default_value_t = 5.0, hide = true)]
    pub poll_interval: f64,
    #[command(flatten)]
    pub azure: AzureArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Output {
    Text,
    Json,
}

fn label(t: &Target) -> String {
    let on =
        t.on.as_deref()
            .and_then(destroy::parse_id)
            .map(|p| format!(" on {}", p.name))
            .unwrap_or_default();
    let rg = match &t.resource_group {
        Some(g) => format!(" ({g})"),
        None => " (subscription)".to_string(),
    };
    format!("{} {}{on}{rg}", t.resource_type, t.name)
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    args.azure.check()?;
    let polling = Polling {
        interval: Duration::try_from_secs_f64(args.poll_interval).map_err(|_| {
            Failure::usage(format!(
                "--poll-interval must be a number of seconds, not {}",
                args.poll_interval
            ))
        })?,
        ..Polling::default()
    };
    // without --yes and without a terminal to ask on: a dry run (lists what would go, exit 2)
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let dry_run = !args.yes && !interactive;
    let policy = args.policy.load()?;
    let checked = load_valid(&args.spec, &policy, PriceTable::embedded())?;
    let spec = checked
        .spec
        .as_ref()
        .expect("a spec without errors has a model");
    let plan = plan_of(&checked, &args.spec, ExitCode::Findings)?;
    let apis = destroy::api_versions(&crate::emit::arm::template(&plan));
    let session = args.azure.connect("destroy", Some(spec))?;
    let rt = runtime()?;
    let rg = args.resource_group.trim().to_string();
    let arm = &session.arm;

    let group = rt
        .block_on(arm.resource_group(&rg))
        .map_err(|e| session.failure(&e))?;
    if group.is_none() {
        return finish_empty(
            &args,
            &format!("the resource group {rg} does not exist; nothing to destroy"),
        );
    }
    let records = rt
        .block_on(arm.deployments(&rg))
        .map_err(|e| session.failure(&e))?;
    let base = destroy::name_base(&spec.metadata.name);
    let mine = destroy::spec_deployments(&records, &base, &args.deployments);
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
        return Ok(ExitCode::Findings);
    }
    if mine.is_empty() {
        return finish_empty(
            &args,
            &format!(
                "no deployment of {} in {rg} (gpuform deploy names them {base}-<hash>; pass --deployment NAME for others); nothing to destroy",
                spec.metadata.name
            ),
        );
    }
    let mut inv = destroy::inventory(&mine, &apis, args.keep_data);
    // a dev box's disks: the VM creates them (deleteOption Detach), so they are not output
    // resources; read them from the VM and delete them after it (keep them with --keep-data)
    let mut apis = apis;
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
                .or_insert_with(|| destroy::DISKS_API.to_string());
            let vm_rg = vm.resource_group.clone().unwrap_or_else(|| rg.clone());
            let read = rt
                .block_on(arm.virtual_machine(&vm_rg, &vm.name))
                .map_err(|e| session.failure(&e))?;
            let mut planned = vec![devbox.os_disk_name.clone()];
            planned.extend(devbox.data_disk_names.iter().cloned());
            let (mut disks, attached) = destroy::vm_disks(&vm.id, read.as_ref(), &planned);
            hand_attached = attached;
            if read.is_none() {
                // the VM is gone (an earlier run stopped after it): the disks the template
                // names that are still there
                let there = rt
                    .block_on(destroy::existing(arm, &disks, &apis))
                    .map_err(|e| session.failure(&e))?;
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
            destroy::add_disks(&mut inv, disks, args.keep_data);
        }
    }
    let exists = rt
        .block_on(destroy::existing(arm, &inv.delete, &apis))
        .map_err(|e| session.failure(&e))?;
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
        session.subscription
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
    if args.keep_data && !delete_option_delete.is_empty() {
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
        return Ok(ExitCode::Findings);
    }
    let detach = args.keep_data
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
        match args.output {
            Output::Json => out(&format!(
                "{}\n",
                serde_json::to_string_pretty(&destroy::dry_run_json(&rg, &inv, &live))
                    .expect("serialises")
            )),
            Output::Text => out(&format!(
                "dry run: {} resources would be deleted from {rg}; nothing was deleted. To delete them:\n  gpuform destroy {} -g {rg} --yes\n",
                live.len(),
                args.spec.display()
            )),
        }
        return Ok(ExitCode::Usage);
    }
    if !args.yes
        && !confirm(&format!(
            "Delete {} resources from {rg}? [y/N] ",
            live.len()
        ))
    {
        eprintln!("destroy: not confirmed; nothing was deleted");
        return Ok(super::common::DECLINED);
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
                match destroy::keep_instance_disks(arm, &rg, &plan.compute.name, polling).await {
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
                            id: format!("/subscriptions/{}/resourceGroups/{rg}/providers/Microsoft.Compute/virtualMachineScaleSets/{}", session.subscription, plan.compute.name),
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
                let api = apis
                    .get(&t.resource_type.to_ascii_lowercase())
                    .cloned()
                    .unwrap_or_default();
                async move { destroy::delete_one(arm, t, &api, polling).await }
            }))
            .await;
            for d in done {
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
                    let _ = destroy::follow(arm, "delete the deployment record", &a, polling).await;
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
            args.spec.display()
        );
        return Ok(ExitCode::Interrupted);
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
    let count = |r: &str| results.iter().filter(|d| d.result == r).count();
    let (deleted, already, failed, skipped) = (
        count("deleted"),
        count("alreadyGone") + gone,
        count("failed"),
        count("notAttempted"),
    );
    match args.output {
        Output::Json => out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&json!({
                "schemaVersion": 1,
                "resourceGroup": rg,
                "deployments": inv.deployments,
                "succeeded": ok,
                "deleted": deleted, "alreadyGone": already, "failed": failed, "notAttempted": skipped,
                "results": results,
                "kept": inv.keep,
                "keptDataDisks": kept_disks,
                "notes": notes,
            }))
            .expect("serialises")
        )),
        Output::Text => {
            let mut s = format!(
                "{}: {deleted} deleted, {already} already gone, {failed} failed, {skipped} not attempted{}\n",
                if ok { "destroyed" } else { "destroy incomplete" },
                if inv.keep.is_empty() && kept_disks == 0 {
                    String::new()
                } else if kept_disks == 0 {
                    format!(", {} kept", inv.keep.len())
                } else {
                    format!(", {} kept and {kept_disks} data disks detached and kept", inv.keep.len())
                }
            );
            for d in results.iter().filter(|d| d.result == "failed") {
                s.push_str(&format!("  failed: {} {}\n", d.resource_type, d.name));
                if let Some(e) = &d.error {
                    s.push_str(&format!("    {}\n", e.summary()));
                    for l in e.detail_lines() {
                        s.push_str(&format!("    {l}\n"));
                    }
                    if let Some(h) = &e.help {
                        s.push_str(&format!("    help: {h}\n"));
                    }
                }
            }
            if !ok {
                s.push_str(&format!(
                    "  run `gpuform destroy {} -g {rg}` again to resume: what is gone counts as done\n",
                    args.spec.display()
                ));
            }
            for n in &notes {
                s.push_str(&format!("  note: {n}\n"));
            }
            out(&s);
        }
    }
    Ok(if ok { ExitCode::Ok } else { ExitCode::Findings })
}

fn finish_empty(args: &Args, msg: &str) -> Result<ExitCode, Failure> {
    match args.output {
        Output::Json => out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&json!({"schemaVersion": 1, "resourceGroup": args.resource_group.trim(), "succeeded": true,
                "deleted": 0, "alreadyGone": 0, "failed": 0, "notAttempted": 0, "results": [], "notes": [msg]}))
            .expect("serialises")
        )),
        Output::Text => out(&format!("{msg}\n")),
    }
    Ok(ExitCode::Ok)
}
