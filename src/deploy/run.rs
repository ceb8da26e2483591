//! `gpuform deploy`'s run: render the ARM template in memory, preflight, create the resource
//! group on request, PUT the deployment (Incremental) and follow it to the end with progress; or
//! the what-if of the changes.

// `ArmError` carries the whole error tree; it is built once per failed call.
#![allow(clippy::result_large_err)]

use std::cell::Cell;
use std::time::Duration;

use serde_json::Value;

use super::ask::confirm;
use super::context::{Azure, Options, Target};
use super::errors;
use super::failover;
use super::progress::{Progress, fmt_elapsed};
use super::report::{Attempt, Outcome};
use super::stop::{Error, rejected, unanswered};
use super::whatif::WhatIf;
use super::{Request, fixes, gate, preview};
use crate::azure::api::ArmApi;
use crate::azure::deployments::Accepted;
use crate::diag::failure::Failure;
use crate::preflight::Report;
use crate::spec::Checked;

/// The deployment request, rendered before anything talks to Azure.
pub struct Prepared {
    pub request: Request,
    /// The secure parameters' values, from the environment.
    secrets: Vec<(String, String)>,
    /// The template as JSON (preflight's landing-zone checks ask Azure Policy about it).
    template_json: Option<Value>,
    parameters: String,
    /// What the template leaves to the deployment: the GPU telemetry remediation's name
    /// parameter and prefix, and the standby pool (its state and provider roles).
    pub day_two: DayTwo,
}

/// The parts of the plan a deployment reads Azure for before it starts ([`super::day_two`]).
#[derive(Debug, Clone, Default)]
pub struct DayTwo {
    /// `(parameter, prefix)` of the remediation each deployment names anew.
    pub remediation: Option<(&'static str, String)>,
    /// The GPU telemetry policy assignment's name (its remediation follows the standby pool).
    pub assignment: Option<String>,
    pub standby: Option<crate::plan::standby::StandbyPool>,
}

/// Render the template and its parameters, name the deployment and read the secure
/// parameters' values from the environment (a missing one stops here).
pub fn prepare(checked: &Checked, name: Option<&str>) -> Result<Prepared, Error> {
    let spec = checked
        .spec
        .as_ref()
        .expect("a spec without errors has a model");
    let plan = crate::plan::Plan::build(checked).map_err(crate::emit::RenderError::from)?;
    let day_two = DayTwo {
        remediation: plan
            .gpu
            .as_ref()
            .and_then(|g| g.dcr_policy.as_ref())
            .map(|pol| (pol.remediation_param, pol.remediation_prefix.clone())),
        assignment: plan
            .gpu
            .as_ref()
            .and_then(|g| g.dcr_policy.as_ref())
            .map(|pol| pol.assignment_name.clone()),
        standby: plan.standby.clone(),
    };
    let template = crate::emit::arm_template(checked)?;
    // preflight's landing-zone checks ask Azure Policy about the resources of this template
    let template_json: Option<Value> = serde_json::from_str(&template).ok();
    let parameters = crate::emit::arm_parameters(checked)?;
    let request =
        Request::new(&spec.metadata.name, template, &parameters, name).map_err(Failure::usage)?;
    let mut secrets = Vec::new();
    for p in request.secure_params() {
        let value = std::env::var(&p.env).ok();
        super::check_secret(&p, value.as_deref()).map_err(Failure::usage)?;
        secrets.push((p.name.clone(), value.unwrap_or_default()));
    }
    Ok(Prepared {
        request,
        secrets,
        template_json,
        parameters,
        day_two,
    })
}

/// How a deploy ended (the command chooses the output and the exit code).
pub enum Ended {
    /// `--what-if`: the changes (nothing was changed).
    WhatIf(WhatIf),
    /// Preflight blocks the spec's region: nothing was changed.
    Blocked(Report),
    /// Not confirmed: nothing was changed.
    Declined,
    /// Ctrl-C (what was said on stderr tells how to follow a deployment that keeps running).
    Interrupted,
    /// The deployment ended, or ARM refused it; and how long gpuform followed it.
    Done(Outcome, Duration),
}

/// Deploy `prepared` (the request [`prepare`] rendered from `checked`) with the signed-in
/// client; on a capacity error, fail over to the spec's next placement ([`failover`]) unless
/// `--no-failover`.
pub fn run(
    opts: &Options,
    checked: &Checked,
    prepared: Prepared,
    azure: &Azure,
) -> Result<Ended, Error> {
    let spec = checked
        .spec
        .as_ref()
        .expect("a spec without errors has a model");
    let ladder = failover::ladder(spec);
    let on = !opts.no_failover && !opts.what_if && ladder.len() > 1;
    let mut ended = attempt(opts, checked, prepared, azure, on)?;
    if !on {
        return Ok(ended);
    }
    let mut at = 0usize;
    let mut attempts: Vec<Attempt> = Vec::new();
    let mut quota_seen: Vec<(String, Vec<crate::azure::models::Usage>)> = Vec::new();
    let outside = failover::outside_residency(spec);
    let home_rg = opts.resource_group.trim().to_string();
    // (group, region) of every attempt that ran: its resources stay in that region
    let mut left: Vec<(String, String)> = Vec::new();
    loop {
        let Ended::Done(o, elapsed) = &mut ended else {
            return Ok(ended);
        };
        let code = failover::capacity_code(o);
        if o.provisioning_state != "Rejected" {
            left.push((o.resource_group.clone(), ladder[at].region.clone()));
        }
        attempts.push(Attempt {
            region: ladder[at].region.clone(),
            vm_size: ladder[at].vm_size.clone(),
            zones: ladder[at].zones.clone(),
            resource_group: (!o.resource_group.eq_ignore_ascii_case(&home_rg))
                .then(|| o.resource_group.clone()),
            deployment: Some(o.deployment.clone()),
            provisioning_state: o.provisioning_state.clone(),
            reason: code.map(|c| c.code.to_string()),
        });
        let Some(code) = code else {
            if attempts.len() > 1 {
                o.attempts = attempts;
            }
            return Ok(ended);
        };
        // the next placement whose VM family has quota for one VM
        let mut next = failover::next(&ladder, at, code);
        while let Some((i, p)) = next {
            let Some(need) = failover::quota_need(spec, p) else {
                break;
            };
            let cached = quota_seen
                .iter()
                .find(|(r, _)| r.eq_ignore_ascii_case(&p.region));
            let usages = match cached {
                Some((_, u)) => Some(u.clone()),
                None => match azure.rt.block_on(azure.arm.usages(&p.region)) {
                    Ok(u) => {
                        quota_seen.push((p.region.clone(), u.clone()));
                        Some(u)
                    }
                    Err(e) => {
                        crate::ci_eprintln!(
                            "deploy: could not read the quota of {} ({}); trying {} anyway",
                            p.region,
                            e.summary(),
                            p.label()
                        );
                        None
                    }
                },
            };
            match usages.as_deref().and_then(|u| failover::no_quota(u, &need)) {
                Some(why) => {
                    crate::ci_eprintln!("deploy: skipping {}: {why}", p.label());
                    attempts.push(skipped(p, why));
                    next = failover::next(&ladder, i, code);
                }
                None => break,
            }
        }
        let Some((i, p)) = next else {
            crate::ci_eprintln!(
                "deploy: {} for {}; no other placement left (tried {} of {}{})",
                code.code,
                ladder[at].label(),
                attempts.iter().filter(|a| a.deployment.is_some()).count(),
                ladder.len(),
                if outside.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; {} outside allowedRegions, never tried",
                        outside.join(", ")
                    )
                }
            );
            o.fixes.push(format!(
                "capacity failover tried every placement the spec allows ({}): list more in compute.alternateSizes, compute.zonesByRegion or alternateRegions (inside allowedRegions), or deploy again later; run with --no-failover to see the alternate regions preflight passes",
                attempts.iter().map(|a| format!("{} {}", a.label(), a.provisioning_state)).collect::<Vec<_>>().join(", ")
            ));
            o.attempts = attempts;
            let _ = elapsed;
            return Ok(ended);
        };
        let group = match failover::group_for(
            &home_rg,
            &spec.spec.region,
            p,
            opts.per_region_resource_group,
            &left,
        ) {
            Ok(g) => g,
            Err(there) => {
                let why = format!(
                    "{} would deploy into {home_rg}, where the deployment in {there} left resources; a resource keeps its region, so ARM refuses the same names in {} (InvalidResourceLocation; source: {})",
                    p.label(),
                    p.region,
                    crate::facts::capacity::LOCATION_IMMUTABLE.what
                );
                crate::ci_eprintln!("deploy: {} for {}; {why}", code.code, ladder[at].label());
                o.fixes.push(format!(
                    "to fail over to {} deploy again with --per-region-resource-group (it deploys {} into {}, created with the spec's tags), or remove what the failed deployment left in {home_rg} first (gpuform destroy {} -g {home_rg} --no-follow); destroy and status find the {} group by themselves",
                    p.region,
                    p.region,
                    failover::region_group(&home_rg, &p.region),
                    opts.spec_path.display(),
                    p.region
                ));
                attempts.push(skipped(p, why));
                o.attempts = attempts;
                return Ok(ended);
            }
        };
        crate::ci_eprintln!(
            "deploy: {} for {}; trying {}{} (next {})",
            code.code,
            ladder[at].label(),
            p.label(),
            if group.eq_ignore_ascii_case(&home_rg) {
                String::new()
            } else {
                format!(" in resource group {group}")
            },
            p.step.map(|s| s.as_str()).unwrap_or("placement")
        );
        at = i;
        let moved = failover::respec(checked, p);
        let prepared = prepare(&moved, None)?;
        let per_region = !group.eq_ignore_ascii_case(&home_rg);
        let opts = Options {
            skip_preflight: true,
            resource_group: &group,
            create_resource_group: opts.create_resource_group || per_region,
            ..*opts
        };
        ended = attempt(&opts, &moved, prepared, azure, true)?;
    }
}

/// One deployment of `prepared`.
fn attempt(
    opts: &Options,
    checked: &Checked,
    prepared: Prepared,
    azure: &Azure,
    failover: bool,
) -> Result<Ended, Error> {
    let spec = checked
        .spec
        .as_ref()
        .expect("a spec without errors has a model");
    let path = opts.spec_path;
    let polling = opts.polling;
    let Prepared {
        mut request,
        secrets,
        template_json,
        parameters,
        day_two,
    } = prepared;
    let rg = opts.resource_group.trim().to_string();
    let region = spec.spec.region.trim().to_ascii_lowercase();

    // ---- phase 1: read-only (Ctrl-C just ends the process)
    let group = azure.rt.block_on(azure.arm.resource_group(&rg))?;
    if group.is_none() && !opts.create_resource_group {
        return Err(Failure::usage(format!(
            "the resource group {rg} does not exist in subscription {}",
            azure.subscription
        ))
        .help(format!(
            "pass --create-resource-group to create it in {region} with the spec's tags, or create it yourself: az group create -n {rg} -l {region}"
        ))
        .into());
    }
    // a dev box redeployed after `destroy --keep-data`: attach the disks it kept
    let disk_names = crate::emit::devbox_disk_names(checked)?;
    if group.is_some() && !disk_names.is_empty() {
        let kept = azure.rt.block_on(super::kept_disks(
            azure.arm,
            azure.subscription,
            &rg,
            &disk_names,
        ))?;
        if !kept.is_empty() {
            crate::ci_eprintln!(
                "deploy: disk{} {} exist{} in {rg} (kept by destroy --keep-data): the dev box attaches {} instead of creating {}",
                if kept.len() == 1 { "" } else { "s" },
                kept.join(", "),
                if kept.len() == 1 { "s" } else { "" },
                if kept.len() == 1 { "it" } else { "them" },
                if kept.len() == 1 { "it" } else { "them" },
            );
            let template = crate::emit::arm_template_attaching(checked, &kept)?;
            request = Request::new(&spec.metadata.name, template, &parameters, opts.name)
                .map_err(Failure::usage)?;
        }
    }
    if let (Some(_), Some(budget)) = (&group, request.budget_name()) {
        match azure.rt.block_on(azure.arm.budget_start_date(&rg, &budget)) {
            Ok(Some(start)) => {
                crate::ci_eprintln!(
                    "deploy: budget {budget} exists since {start}; keeping its start date (Azure cannot change it)"
                );
                request.keep_budget_start(&start);
            }
            Ok(None) => {}
            Err(e) => crate::ci_eprintln!(
                "deploy: warning: {e}; if the budget exists from an earlier month, the deployment fails with \"start date cannot be updated\""
            ),
        }
    }
    if let Some((param, prefix)) = &day_two.remediation {
        // Azure refuses to change or replace an active remediation; each deployment starts one
        // of its own (the deployment name stays the same for the same files)
        let name =
            crate::plan::gpu_monitoring::remediation_name(prefix, &super::context::utc_stamp());
        request.set_parameter(param, Value::String(name.clone()));
        if !opts.what_if {
            eprintln!(
                "deploy: GPU telemetry remediation {name} (each deployment starts its own: Azure refuses to replace one while it is active)"
            );
        }
    }
    // the pool's state when it must go through Running before the deployment
    let mut through_running: Option<String> = None;
    if let (Some(_), Some(pool)) = (&group, &day_two.standby) {
        // what Azure refuses to replace: a role held under another name, a pool going between
        // Deallocated and Hibernated (super::day_two)
        super::day_two::roles_held(azure, &rg, pool, &mut request);
        if !opts.what_if {
            through_running =
                super::day_two::state_change(azure, &rg, pool, path, opts.pool_wait.is_some())?;
            if let Some(from) = &through_running {
                crate::ci_eprintln!(
                    "deploy: the standby pool {} is {from} and the spec asks for {}: after confirmation deploy sets it Running, waits until its VMs run (at most {}), then deploys",
                    pool.name,
                    pool.vm_state,
                    fmt_elapsed(opts.pool_wait.unwrap_or_default())
                );
            }
        }
    }
    let target = Target {
        rg: &rg,
        name: &request.name,
        azure,
        failover,
    };
    if opts.what_if {
        return preview::what_if(
            &target,
            path,
            (&request, &secrets),
            group.is_some(),
            polling,
            spec,
        )
        .map(Ended::WhatIf);
    }
    if !opts.skip_preflight {
        let existing = group.as_ref().and_then(|_| (azure.existing_pool)(&rg));
        let group_id = group.as_ref().map(|g| g.id.as_str());
        if let Some(report) = gate::preflight(
            azure,
            path,
            (&rg, group_id),
            (spec, template_json.as_ref()),
            existing,
        )? {
            return Ok(Ended::Blocked(report));
        }
    }
    let group_line = match &group {
        Some(g) if !g.location.eq_ignore_ascii_case(&region) && !g.location.is_empty() => format!(
            "resource group {rg} exists in {} (the resources go to the spec's region, {region})",
            g.location
        ),
        Some(g) => format!("resource group {rg} ({}) exists", g.location),
        None => format!("resource group {rg} will be created in {region}"),
    };
    crate::ci_eprintln!(
        "deploy: {group_line}; deployment {} ({} resources, Incremental: resources not in the template are left alone)",
        request.name,
        request.resource_count()
    );

    if !opts.yes {
        // the change before the question, as `terraform apply` shows its plan
        match preview::what_if(
            &target,
            path,
            (&request, &secrets),
            group.is_some(),
            polling,
            spec,
        ) {
            Ok(w) => crate::ci_eprint!("{}", w.prompt_summary()),
            Err(e) => {
                let (message, help) = e.headline();
                crate::ci_eprintln!(
                    "deploy: the what-if failed, so the changes cannot be shown: {message}"
                );
                if let Some(h) = &help {
                    crate::ci_eprintln!("  help: {h}");
                }
            }
        }
    }
    if !opts.yes
        && !confirm(&format!(
            "Deploy {} to {rg} in subscription {}? [y/N] ",
            request.name, azure.subscription
        ))
    {
        crate::ci_eprintln!("deploy: not confirmed; nothing was changed");
        return Ok(Ended::Declined);
    }

    // ---- phase 2: changes (Ctrl-C leaves the deployment running and says how to follow it)
    if let (Some(from), Some(pool), Some(limit)) =
        (&through_running, &day_two.standby, opts.pool_wait)
    {
        let steps = super::day_two::steps(&rg, pool, from, path);
        if !super::pool::through_running(azure, &rg, pool, from, limit, &polling, steps)? {
            return Ok(Ended::Interrupted);
        }
    }
    #[derive(Clone, Copy, PartialEq)]
    enum Stage {
        Before,
        GroupCreated,
        Starting,
        Following,
        /// Waiting to deploy once more (a role assignment not yet honoured by Key Vault).
        Waiting,
    }
    let stage = Cell::new(Stage::Before);
    let mut view = Progress::new(opts.progress, opts.styled_stderr, request.name.clone());
    let body = request.body(&secrets);
    let work = async {
        if group.is_none() {
            azure
                .arm
                .create_resource_group(&rg, &region, &spec.metadata.tags)
                .await?;
            stage.set(Stage::GroupCreated);
            crate::ci_eprintln!("deploy: created the resource group {rg} in {region}");
        }
        let mut attempt = 1;
        loop {
            stage.set(Stage::Starting);
            // once more after a role not yet honoured: the first attempt may have started its
            // remediation, which may not be replaced while active, so this one names its own
            let body = match (&day_two.remediation, attempt) {
                (Some((param, prefix)), 2..) => {
                    let mut again = request.clone();
                    again.set_parameter(
                        param,
                        Value::String(crate::plan::gpu_monitoring::remediation_name(
                            prefix,
                            &super::context::utc_stamp(),
                        )),
                    );
                    again.body(&secrets)
                }
                _ => body.clone(),
            };
            let accepted = match azure.arm.put_deployment(&rg, &request.name, body).await {
                Ok(a) => a,
                Err(e)
                    if e.status == Some(409) && e.code.as_deref() == Some("DeploymentActive") =>
                {
                    crate::ci_eprintln!(
                        "deploy: a deployment named {} is already running in {rg}; following it",
                        request.name
                    );
                    Accepted {
                        status: 200,
                        async_operation: None,
                        location: None,
                        retry_after: None,
                        body: Value::Null,
                    }
                }
                Err(e) => return Err(e),
            };
            stage.set(Stage::Following);
            let finished =
                super::follow(azure.arm, &rg, &request.name, &accepted, polling, &mut view).await?;
            if attempt == 1 && finished.state() != "Succeeded" {
                let trees = errors::trees(&finished);
                if let Some(why) = super::retry::role_propagation(trees.iter()) {
                    crate::ci_eprintln!(
                        "deploy: {} failed because Key Vault does not honour the new role assignment yet ({}); role assignments take minutes to propagate, so gpuform deploys {} once more in {}",
                        request.name,
                        one_line(&why, 160),
                        request.name,
                        fmt_elapsed(opts.role_retry_wait)
                    );
                    stage.set(Stage::Waiting);
                    tokio::time::sleep(opts.role_retry_wait).await;
                    attempt += 1;
                    continue;
                }
            }
            return Ok(Some(finished));
        }
    };
    let result = azure.rt.block_on(async {
        tokio::select! {
            r = work => r,
            _ = tokio::signal::ctrl_c() => Ok(None),
        }
    });
    let finished = match result {
        Ok(Some(f)) => f,
        Ok(None) => {
            view.finish();
            let mut msg = String::from("\n");
            match stage.get() {
                Stage::Before => msg.push_str("interrupted before anything was changed\n"),
                Stage::GroupCreated => msg.push_str(&format!(
                    "interrupted after creating the resource group {rg}; the deployment was not started\n"
                )),
                Stage::Starting => {
                    msg.push_str(&format!(
                        "interrupted while ARM was accepting deployment {}; it may have started:\n",
                        request.name
                    ));
                    msg.push_str(&target.follow_hint());
                }
                Stage::Waiting => msg.push_str(&format!(
                    "interrupted before deploying {} once more; its first attempt failed on a role assignment Key Vault did not honour yet: run gpuform deploy again\n",
                    request.name
                )),
                Stage::Following => {
                    msg.push_str(&format!(
                        "stopped following deployment {}; it keeps running in Azure:\n",
                        request.name
                    ));
                    msg.push_str(&target.follow_hint());
                    msg.push_str(&format!(
                        "  cancel it:   az deployment group cancel -g {rg} -n {}\n",
                        request.name
                    ));
                }
            }
            crate::ci_eprint!("{msg}");
            return Ok(Ended::Interrupted);
        }
        Err(e) => {
            view.finish();
            return match stage.get() {
                Stage::Starting if rejected(&e) => Ok(Ended::Done(
                    fixes::rejection(&target, path, spec, &e),
                    view.elapsed(),
                )),
                Stage::Starting if unanswered(&e) => {
                    // ARM may have accepted the PUT and the answer got lost
                    Err(Error::Arm {
                        error: e,
                        cause: Some(format!(
                            "deployment {} may have started: ARM's answer to starting it did not arrive",
                            request.name
                        )),
                        check: Some(format!(
                            "check whether it runs:\n{}",
                            target.follow_hint().trim_end()
                        )),
                    })
                }
                Stage::Following => Err(Error::Arm {
                    error: e,
                    cause: Some(format!(
                        "gpuform lost track of deployment {}; it may still be running",
                        request.name
                    )),
                    check: Some(format!("check on it:\n{}", target.follow_hint().trim_end())),
                }),
                _ => Err(e.into()),
            };
        }
    };
    let mut outcome = fixes::finished(&target, path, spec, &finished);
    if let (true, Some(pool), Some((_, prefix)), Some(assignment)) = (
        outcome.provisioning_state == "Succeeded",
        &day_two.standby,
        &day_two.remediation,
        &day_two.assignment,
    ) {
        // the provider fills the pool after the deployment: its VMs need a remediation of
        // their own (super::pool)
        let telemetry = super::pool::Telemetry { assignment, prefix };
        outcome.follow_up.extend(super::pool::fill_then_remediate(
            azure,
            &rg,
            pool,
            &telemetry,
            opts.pool_wait,
            &polling,
        ));
    }
    Ok(Ended::Done(outcome, view.elapsed()))
}

/// `text` on one line, at most `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        flat
    } else {
        format!("{}...", flat.chars().take(max).collect::<String>())
    }
}

/// A placement passed over before deploying (no quota, or a region that needs its own group).
fn skipped(p: &failover::Placement, why: String) -> Attempt {
    Attempt {
        region: p.region.clone(),
        vm_size: p.vm_size.clone(),
        zones: p.zones.clone(),
        resource_group: None,
        deployment: None,
        provisioning_state: "Skipped".into(),
        reason: Some(why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_flattens_and_cuts() {
        assert_eq!(one_line("a\n  b\tc ", 10), "a b c");
        assert_eq!(one_line("abcdef", 3), "abc...");
        assert_eq!(one_line("abc", 3), "abc");
    }
}
