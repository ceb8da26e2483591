//! `gpuform deploy`: render the ARM template in memory, preflight, create the resource group on
//! request, PUT the deployment (Incremental) and follow it to the end with progress; or
//! `--what-if` to see the changes first.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use clap::ValueEnum;
use serde::Serialize;
use serde_json::{Value, json};

use super::azure_args::{AzureArgs, Session, runtime};
use super::common::{ExitCode, Failure, PolicyArgs, load_valid, out, styled, styled_stderr};
use crate::azure::deployments::Accepted;
use crate::azure::{ArmError, ErrorDetail, ErrorKind};
use crate::catalog::prices::PriceTable;
use crate::deploy::errors::{self, Diagnosis, FailedResource, QuotaIncrease};
use crate::deploy::progress::{self, Progress, fmt_elapsed};
use crate::deploy::whatif::WhatIf;
use crate::deploy::{self, Finished, Polling, Request};
use crate::preflight::plan::Existing;
use crate::preflight::report::{self as pf_report};
use crate::preflight::{Plan, Verdict};
use crate::spec::model::Spec;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The spec file.
    #[arg(value_name = "SPEC")]
    pub spec: PathBuf,
    /// Resource group to deploy into.
    #[arg(long, short = 'g', value_name = "RG")]
    pub resource_group: String,
    /// Create the resource group in the spec's region (with the spec's tags) when it does not exist.
    #[arg(long)]
    pub create_resource_group: bool,
    /// Show what the deployment would change (ARM what-if) and exit; changes nothing.
    #[arg(long)]
    pub what_if: bool,
    /// With --what-if: exit 1 when a resource, or a property of a modified one, would be deleted.
    #[arg(long, requires = "what_if")]
    pub fail_on_delete: bool,
    /// Deploy without asking (required when stdin is not a terminal, e.g. in pipelines).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Deployment name (default: metadata.name + a hash of the template and parameters).
    #[arg(long, short = 'n', value_name = "NAME")]
    pub name: Option<String>,
    /// Do not run preflight for the spec's region first.
    #[arg(long)]
    pub skip_preflight: bool,
    /// Result on stdout: text, a JSON document, or Markdown for $GITHUB_STEP_SUMMARY.
    #[arg(long, alias = "format", value_name = "FORMAT", value_enum, default_value_t = Output::Text)]
    pub output: Output,
    /// Progress on stderr: a live table (terminals), timestamped lines on changes (CI), or none.
    #[arg(long, value_enum, default_value_t = ProgressArg::Auto)]
    pub progress: ProgressArg,
    /// Seconds between polls when ARM sends no Retry-After.
    #[arg(long, value_name = "SECS", default_value_t = 5.0, hide = true)]
    pub poll_interval: f64,
    /// Seconds to wait before deploying once more after a failure from a role assignment Key
    /// Vault does not honour yet (see src/deploy/retry.rs).
    #[arg(long, value_name = "SECS", default_value_t = deploy::retry::DEFAULT_WAIT_SECS, hide = true)]
    pub role_retry_wait: f64,
    #[command(flatten)]
    pub azure: AzureArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Output {
    Text,
    Json,
    Markdown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProgressArg {
    Auto,
    Live,
    Plain,
    None,
}

/// Where a deployment is, for links and follow-up commands.
struct Target<'a> {
    rg: &'a str,
    name: &'a str,
    session: &'a Session,
}

impl Target<'_> {
    fn portal(&self) -> String {
        format!(
            "{}/#@/resource/subscriptions/{}/resourceGroups/{}/deployments",
            self.session.cloud.portal(),
            self.session.subscription,
            self.rg
        )
    }

    fn follow_hint(&self) -> String {
        format!(
            "  follow it:   az deployment group show -g {rg} -n {n} --query properties.provisioningState\n  operations:  az deployment operation group list -g {rg} -n {n} -o table\n  portal:      {}\n",
            self.portal(),
            rg = self.rg,
            n = self.name
        )
    }
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
    let role_retry_wait = Duration::try_from_secs_f64(args.role_retry_wait).map_err(|_| {
        Failure::usage(format!(
            "--role-retry-wait must be a number of seconds, not {}",
            args.role_retry_wait
        ))
    })?;
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if !args.what_if && !args.yes && !interactive {
        return Err(Failure::usage(
            "gpuform deploy changes Azure resources and asks first, but there is no terminal to ask on",
        )
        .help("in a pipeline pass --yes (review the changes with `gpuform deploy SPEC -g RG --what-if` first)"));
    }
    let prices = PriceTable::embedded();
    let policy = args.policy.load()?;
    let checked = load_valid(&args.spec, &policy, prices)?;
    let spec = checked
        .spec
        .as_ref()
        .expect("a spec without errors has a model");
    let render_failure = |e: crate::emit::RenderError| {
        Failure::from_error(
            ExitCode::Findings,
            format!("cannot render {}", args.spec.display()),
            &e,
        )
    };
    let template = crate::emit::arm_template(&checked).map_err(render_failure)?;
    // preflight's landing-zone checks ask Azure Policy about the resources of this template
    let template_json: Option<serde_json::Value> = serde_json::from_str(&template).ok();
    let parameters = crate::emit::arm_parameters(&checked).map_err(render_failure)?;
    let mut request = Request::new(
        &spec.metadata.name,
        template,
        &parameters,
        args.name.as_deref(),
    )
    .map_err(Failure::usage)?;
    let mut secrets = Vec::new();
    for p in request.secure_params() {
        let value = std::env::var(&p.env).ok();
        deploy::check_secret(&p, value.as_deref()).map_err(Failure::usage)?;
        secrets.push((p.name.clone(), value.unwrap_or_default()));
    }

    let session = args.azure.connect("deploy", Some(spec))?;
    let rt = runtime()?;
    let rg = args.resource_group.trim().to_string();
    let region = spec.spec.region.trim().to_ascii_lowercase();

    // ---- phase 1: read-only (Ctrl-C just ends the process)
    let group = rt
        .block_on(session.arm.resource_group(&rg))
        .map_err(|e| session.failure(&e))?;
    if group.is_none() && !args.create_resource_group {
        return Err(Failure::usage(format!(
            "the resource group {rg} does not exist in subscription {}",
            session.subscription
        ))
        .help(format!(
            "pass --create-resource-group to create it in {region} with the spec's tags, or create it yourself: az group create -n {rg} -l {region}"
        )));
    }
    // a dev box redeployed after `destroy --keep-data`: attach the disks it kept
    let disk_names = crate::emit::devbox_disk_names(&checked).map_err(render_failure)?;
    if group.is_some() && !disk_names.is_empty() {
        let kept = rt
            .block_on(deploy::kept_disks(
                &session.arm,
                &session.subscription,
                &rg,
                &disk_names,
            ))
            .map_err(|e| session.failure(&e))?;
        if !kept.is_empty() {
            eprintln!(
                "deploy: disk{} {} exist{} in {rg} (kept by destroy --keep-data): the dev box attaches {} instead of creating {}",
                if kept.len() == 1 { "" } else { "s" },
                kept.join(", "),
                if kept.len() == 1 { "s" } else { "" },
                if kept.len() == 1 { "it" } else { "them" },
                if kept.len() == 1 { "it" } else { "them" },
            );
            let template =
                crate::emit::arm_template_attaching(&checked, &kept).map_err(render_failure)?;
            request = Request::new(
                &spec.metadata.name,
                template,
                &parameters,
                args.name.as_deref(),
            )
            .map_err(Failure::usage)?;
        }
    }
    if let (Some(_), Some(budget)) = (&group, request.budget_name()) {
        match rt.block_on(session.arm.budget_start_date(&rg, &budget)) {
            Ok(Some(start)) => {
                eprintln!(
                    "deploy: budget {budget} exists since {start}; keeping its start date (Azure cannot change it)"
                );
                request.keep_budget_start(&start);
            }
            Ok(None) => {}
            Err(e) => eprintln!(
                "deploy: warning: {e}; if the budget exists from an earlier month, the deployment fails with \"start date cannot be updated\""
            ),
        }
    }
    let target = Target {
        rg: &rg,
        name: &request.name,
        session: &session,
    };
    if args.what_if {
        return what_if(
            &args,
            &rt,
            &target,
            &request,
            &secrets,
            group.is_some(),
            polling,
            spec,
        );
    }
    if !args.skip_preflight {
        let existing = group
            .as_ref()
            .and_then(|_| session.existing_pool(&rt, "deploy", &rg, &checked));
        let group_id = group.as_ref().map(|g| g.id.as_str());
        if let Some(code) = preflight_gate(
            &args,
            &rt,
            &session,
            (&rg, group_id),
            (spec, template_json.as_ref()),
            existing,
        )? {
            return Ok(code);
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
    eprintln!(
        "deploy: {group_line}; deployment {} ({} resources, Incremental: resources not in the template are left alone)",
        request.name,
        request.resource_count()
    );

    if !args.yes {
        // the change before the question, as `terraform apply` shows its plan
        match what_if_result(
            &args,
            &rt,
            &target,
            &request,
            &secrets,
            group.is_some(),
            polling,
            spec,
        ) {
            Ok(w) => eprint!("{}", w.prompt_summary()),
            Err(f) => {
                eprintln!(
                    "deploy: the what-if failed, so the changes cannot be shown: {}",
                    f.message
                );
                if let Some(h) = &f.help {
                    eprintln!("  help: {h}");
                }
            }
        }
    }
    if !args.yes
        && !confirm(&format!(
            "Deploy {} to {rg} in subscription {}? [y/N] ",
            request.name, session.subscription
        ))
    {
        eprintln!("deploy: not confirmed; nothing was changed");
        return Ok(super::common::DECLINED);
    }

    // ---- phase 2: changes (Ctrl-C leaves the deployment running and says how to follow it)
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
    let mode = match args.progress {
        ProgressArg::Live => progress::Mode::Live,
        ProgressArg::Plain => progress::Mode::Plain,
        ProgressArg::None => progress::Mode::Quiet,
        ProgressArg::Auto if std::io::stderr().is_terminal() => progress::Mode::Live,
        ProgressArg::Auto => progress::Mode::Plain,
    };
    let mut view = Progress::new(mode, styled_stderr(), request.name.clone());
    let body = request.body(&secrets);
    let work = async {
        if group.is_none() {
            session
                .arm
                .create_resource_group(&rg, &region, &spec.metadata.tags)
                .await?;
            stage.set(Stage::GroupCreated);
            eprintln!("deploy: created the resource group {rg} in {region}");
        }
        let mut attempt = 1;
        loop {
            stage.set(Stage::Starting);
            let accepted = match session
                .arm
                .put_deployment(&rg, &request.name, body.clone())
                .await
            {
                Ok(a) => a,
                Err(e)
                    if e.status == Some(409) && e.code.as_deref() == Some("DeploymentActive") =>
                {
                    eprintln!(
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
            let finished = deploy::follow(
                &session.arm,
                &rg,
                &request.name,
                &accepted,
                polling,
                &mut view,
            )
            .await?;
            if attempt == 1 && finished.state() != "Succeeded" {
                let trees = errors::trees(&finished);
                if let Some(why) = deploy::retry::role_propagation(trees.iter()) {
                    eprintln!(
                        "deploy: {} failed because Key Vault does not honour the new role assignment yet ({}); role assignments take minutes to propagate, so gpuform deploys {} once more in {}",
                        request.name,
                        one_line(&why, 160),
                        request.name,
                        fmt_elapsed(role_retry_wait)
                    );
                    stage.set(Stage::Waiting);
                    tokio::time::sleep(role_retry_wait).await;
                    attempt += 1;
                    continue;
                }
            }
            return Ok(Some(finished));
        }
    };
    let result = rt.block_on(async {
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
            eprint!("{msg}");
            return Ok(ExitCode::Interrupted);
        }
        Err(e) => {
            view.finish();
            return match stage.get() {
                Stage::Starting if rejected(&e) => {
                    report_rejection(&args, &rt, &target, spec, &e, view.elapsed())
                }
                Stage::Starting if unanswered(&e) => {
                    // ARM may have accepted the PUT and the answer got lost
                    let mut f = session.failure(&e);
                    f.causes.push(format!(
                        "deployment {} may have started: ARM's answer to starting it did not arrive",
                        request.name
                    ));
                    f.help = Some(format!(
                        "{}check whether it runs:\n{}",
                        f.help.map(|h| format!("{h}; ")).unwrap_or_default(),
                        target.follow_hint().trim_end()
                    ));
                    Err(f)
                }
                Stage::Following => {
                    let mut f = session.failure(&e);
                    f.causes.push(format!(
                        "gpuform lost track of deployment {}; it may still be running",
                        request.name
                    ));
                    f.help = Some(format!(
                        "{}check on it:\n{}",
                        f.help.map(|h| format!("{h}; ")).unwrap_or_default(),
                        target.follow_hint().trim_end()
                    ));
                    Err(f)
                }
                _ => Err(session.failure(&e)),
            };
        }
    };
    report_finished(&args, &rt, &target, spec, &finished, view.elapsed())
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

/// Ask on the terminal; anything but y/yes is no.
fn confirm(question: &str) -> bool {
    let mut err = std::io::stderr();
    let _ = write!(err, "{question}");
    let _ = err.flush();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).is_err() {
        return false;
    }
    matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

/// ARM refused the deployment itself (template validation, quota or capacity found before
/// anything started): a failed deployment, not an access problem.
fn rejected(e: &ArmError) -> bool {
    matches!(e.status, Some(400) | Some(409) | Some(422)) && e.code.is_some()
}

/// No answer (timeout, broken connection) or a server error after the retries: the request may
/// have been carried out.
fn unanswered(e: &ArmError) -> bool {
    matches!(
        e.kind,
        ErrorKind::Timeout | ErrorKind::Connection | ErrorKind::Other
    ) || e.status.is_some_and(|s| s >= 500)
}

// ---------------------------------------------------------------------------------------------
// Preflight

/// Preflight of the spec's region; `Some(exit code)` stops the deploy.
fn preflight_gate(
    args: &Args,
    rt: &tokio::runtime::Runtime,
    session: &Session,
    (rg, group_id): (&str, Option<&str>),
    (spec, template): (&Spec, Option<&serde_json::Value>),
    existing: Option<Existing>,
) -> Result<Option<ExitCode>, Failure> {
    let path = args.spec.as_path();
    let mut plan = Plan::from_spec(spec, &[]);
    plan.targets.truncate(1);
    plan.existing = existing;
    plan.landing_zone = crate::preflight::landing_zone::Inputs::from_template(
        spec,
        template.ok_or_else(|| "the rendered template is not JSON".to_string()),
        plan.max,
        false,
    );
    // the group decides the derived vault name and which global names are a redeployment
    plan.set_resource_group(&session.subscription, rg, group_id);
    let report = super::quota::live_report(rt, session, &path.display().to_string(), &plan)?;
    let primary = report.primary();
    match primary.verdict {
        Verdict::Pass => {
            eprintln!(
                "deploy: preflight {} ({}): PASS",
                primary.region, report.size
            );
            Ok(None)
        }
        Verdict::Unknown | Verdict::NotChecked => {
            eprintln!(
                "deploy: preflight {} could not answer every check; deploying anyway (ARM will refuse what cannot work):",
                primary.region
            );
            for r in &primary.reasons {
                eprintln!("  - {r}");
            }
            Ok(None)
        }
        Verdict::Blocked => {
            match args.output {
                Output::Json => out(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(&json!({
                        "schemaVersion": 1,
                        "provisioningState": "NotStarted",
                        "reason": "preflight blocked the spec's region",
                        "preflight": report,
                    }))
                    .expect("serialises")
                )),
                Output::Markdown => out(&pf_report::markdown(&report)),
                Output::Text => out(&pf_report::human(&report, styled())),
            }
            eprintln!(
                "deploy: stopped before changing anything: preflight blocks {} (fix the above, or pass --skip-preflight to let ARM decide)",
                primary.region
            );
            Ok(Some(ExitCode::Findings))
        }
    }
}

/// Regions other than the spec's that pass preflight (for capacity errors).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct Alternatives {
    /// Passing regions, cheapest first, with the on-demand price per VM-hour.
    passing: Vec<(String, Option<f64>)>,
    /// Regions checked that do not pass, with why.
    blocked: Vec<(String, Vec<String>)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

fn alternatives(
    rt: &tokio::runtime::Runtime,
    session: &Session,
    path: &std::path::Path,
    spec: &Spec,
) -> Alternatives {
    let plan = Plan::from_spec(spec, &[]);
    if plan.targets.len() < 2 {
        return Alternatives {
            passing: Vec::new(),
            blocked: Vec::new(),
            note: Some(format!(
                "the spec lists no alternateRegions; add some and compare them with `gpuform preflight {} --region REGION`",
                path.display()
            )),
        };
    }
    eprintln!(
        "deploy: running preflight for the alternate regions ({})",
        plan.targets[1..]
            .iter()
            .map(|t| t.region.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    match super::quota::live_report(rt, session, &path.display().to_string(), &plan) {
        Ok(report) => Alternatives {
            passing: report
                .ranking
                .iter()
                .map(|r| (r.region.clone(), r.on_demand_hourly))
                .collect(),
            blocked: report
                .regions
                .iter()
                .skip(1)
                .filter(|r| r.verdict != Verdict::Pass)
                .map(|r| (r.region.clone(), r.reasons.clone()))
                .collect(),
            note: None,
        },
        Err(f) => Alternatives {
            passing: Vec::new(),
            blocked: Vec::new(),
            note: Some(format!(
                "preflight of the alternate regions failed: {}",
                f.message
            )),
        },
    }
}

// ---------------------------------------------------------------------------------------------
// What-if

#[allow(clippy::too_many_arguments)]
fn what_if(
    args: &Args,
    rt: &tokio::runtime::Runtime,
    target: &Target,
    request: &Request,
    secrets: &[(String, String)],
    group_exists: bool,
    polling: Polling,
    spec: &Spec,
) -> Result<ExitCode, Failure> {
    let result = what_if_result(
        args,
        rt,
        target,
        request,
        secrets,
        group_exists,
        polling,
        spec,
    )?;
    out(&match args.output {
        Output::Text => result.text(styled()),
        Output::Markdown => result.markdown(),
        Output::Json => result.json(),
    });
    if args.fail_on_delete && !result.deletions.is_empty() {
        eprintln!(
            "deploy: --fail-on-delete: {} would be deleted:",
            crate::diag::plural(result.deletions.len(), "thing")
        );
        for d in &result.deletions {
            eprintln!("  - {d}");
        }
        return Ok(ExitCode::Findings);
    }
    Ok(ExitCode::Ok)
}

/// ARM's what-if of the deployment (simulated when the group does not exist yet), for
/// `--what-if` and for the prompt.
#[allow(clippy::too_many_arguments)]
fn what_if_result(
    args: &Args,
    rt: &tokio::runtime::Runtime,
    target: &Target,
    request: &Request,
    secrets: &[(String, String)],
    group_exists: bool,
    polling: Polling,
    spec: &Spec,
) -> Result<WhatIf, Failure> {
    let session = target.session;
    Ok(if group_exists {
        let r = rt.block_on(async {
            let accepted = session
                .arm
                .post_what_if(target.rg, target.name, request.body(secrets))
                .await?;
            deploy::what_if(&session.arm, accepted, polling).await
        });
        let r = match r {
            Ok(r) => r,
            Err(e) if rejected(&e) => {
                return Err(what_if_failure(
                    format!("ARM refused the what-if of deployment {}", target.name),
                    &e.detail(),
                    &args.spec,
                    spec,
                ));
            }
            Err(e) => return Err(session.failure(&e)),
        };
        if let Some(err) = r
            .error
            .as_ref()
            .filter(|_| r.status.as_deref() != Some("Succeeded"))
        {
            return Err(what_if_failure(
                format!(
                    "the what-if of deployment {} ended {}",
                    target.name,
                    r.status.as_deref().unwrap_or("without a result")
                ),
                err,
                &args.spec,
                spec,
            ));
        }
        WhatIf::new(
            target.name,
            target.rg,
            &session.subscription,
            r.status.as_deref().unwrap_or("Succeeded"),
            r.properties.map(|p| p.changes).unwrap_or_default(),
        )
    } else {
        // the group does not exist yet (--create-resource-group): everything is new
        eprintln!(
            "deploy: the resource group {} does not exist yet; deploy would create it and every resource below",
            target.rg
        );
        let changes = crate::deploy::whatif::simulated_changes(
            &request.template_json,
            &session.subscription,
            target.rg,
        );
        WhatIf::new(
            target.name,
            target.rg,
            &session.subscription,
            "Simulated",
            changes,
        )
    })
}

/// A what-if ARM refused or that failed: the error tree, and the first fix gpuform knows.
fn what_if_failure(
    message: String,
    error: &ErrorDetail,
    path: &std::path::Path,
    spec: &Spec,
) -> Failure {
    let tree = errors::expand(error);
    let help = errors::diagnose([&tree]).first().map(|d| match d {
        Diagnosis::Quota(q) => quota_fix(q, spec),
        Diagnosis::Capacity { code, .. } => format!(
            "{code}: run `gpuform preflight {}` to compare the alternate regions",
            path.display()
        ),
    });
    Failure {
        code: ExitCode::Findings,
        message,
        causes: tree.tree_lines(0),
        help,
    }
}

// ---------------------------------------------------------------------------------------------
// Results

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct Outcome {
    schema_version: u32,
    deployment: String,
    resource_group: String,
    subscription: String,
    provisioning_state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    duration: Option<String>,
    outputs: BTreeMap<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorDetail>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    failed_resources: Vec<FailedResource>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    diagnoses: Vec<Diagnosis>,
    #[serde(skip_serializing_if = "Option::is_none")]
    alternatives: Option<Alternatives>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fixes: Vec<String>,
    portal: String,
    /// The GPU pool's workbook in the portal (issue 12: "linked from deploy's output"), from the
    /// template's `gpuWorkbookId` output.
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_workbook: Option<String>,
}

/// The portal link of the workbook whose id the deployment output `gpuWorkbookId` holds.
fn workbook_link(portal: &str, outputs: &BTreeMap<String, Value>) -> Option<String> {
    let id = outputs.get("gpuWorkbookId")?.as_str()?;
    id.starts_with("/subscriptions/")
        .then(|| format!("{portal}/#@/resource{id}"))
}

fn report_finished(
    args: &Args,
    rt: &tokio::runtime::Runtime,
    target: &Target,
    spec: &Spec,
    f: &Finished,
    elapsed: Duration,
) -> Result<ExitCode, Failure> {
    let props = &f.deployment.properties;
    let state = f.state().to_string();
    let outputs: BTreeMap<String, Value> = props
        .outputs
        .iter()
        .map(|(k, v)| (k.clone(), v.get("value").cloned().unwrap_or(Value::Null)))
        .collect();
    let error = props.error.as_ref().map(errors::expand);
    let failed = errors::failed_resources(&f.operations);
    let gpu_workbook = workbook_link(target.session.cloud.portal(), &outputs);
    let mut outcome = Outcome {
        schema_version: 1,
        deployment: target.name.to_string(),
        resource_group: target.rg.to_string(),
        subscription: target.session.subscription.clone(),
        provisioning_state: state.clone(),
        duration: props.duration.clone(),
        outputs,
        error,
        failed_resources: failed,
        diagnoses: Vec::new(),
        alternatives: None,
        fixes: Vec::new(),
        portal: target.portal(),
        gpu_workbook,
    };
    if state != "Succeeded" {
        let trees: Vec<&ErrorDetail> = outcome
            .error
            .iter()
            .chain(
                outcome
                    .failed_resources
                    .iter()
                    .filter_map(|r| r.error.as_ref()),
            )
            .collect();
        outcome.diagnoses = errors::diagnose(trees);
        fill_fixes(&mut outcome, rt, target, &args.spec, spec);
    }
    print_outcome(args, &outcome, elapsed);
    Ok(if state == "Succeeded" {
        ExitCode::Ok
    } else {
        ExitCode::Findings
    })
}

/// ARM refused the PUT (400 InvalidTemplateDeployment and friends): the same report as a
/// deployment that failed, from the error in the response.
fn report_rejection(
    args: &Args,
    rt: &tokio::runtime::Runtime,
    target: &Target,
    spec: &Spec,
    e: &ArmError,
    elapsed: Duration,
) -> Result<ExitCode, Failure> {
    let tree = errors::expand(&e.detail());
    let mut outcome = Outcome {
        schema_version: 1,
        deployment: target.name.to_string(),
        resource_group: target.rg.to_string(),
        subscription: target.session.subscription.clone(),
        provisioning_state: "Rejected".into(),
        duration: None,
        outputs: BTreeMap::new(),
        diagnoses: errors::diagnose([&tree]),
        error: Some(tree),
        failed_resources: Vec::new(),
        alternatives: None,
        fixes: Vec::new(),
        portal: target.portal(),
        gpu_workbook: None,
    };
    fill_fixes(&mut outcome, rt, target, &args.spec, spec);
    print_outcome(args, &outcome, elapsed);
    Ok(ExitCode::Findings)
}

fn fill_fixes(
    outcome: &mut Outcome,
    rt: &tokio::runtime::Runtime,
    target: &Target,
    path: &std::path::Path,
    spec: &Spec,
) {
    let size = &spec.spec.compute.vm_size;
    for d in outcome.diagnoses.clone() {
        match d {
            Diagnosis::Quota(q) => outcome.fixes.push(quota_fix(&q, spec)),
            Diagnosis::Capacity { code, location } => {
                let region = location.unwrap_or_else(|| spec.spec.region.clone());
                let alt = alternatives(rt, target.session, path, spec);
                let mut fix = format!("{code}: Azure cannot place {size} in {region} now");
                if !alt.passing.is_empty() {
                    let list: Vec<String> = alt
                        .passing
                        .iter()
                        .map(|(r, p)| match p {
                            Some(p) => format!("{r} (${p:.3}/h per VM)"),
                            None => r.clone(),
                        })
                        .collect();
                    fix.push_str(&format!(
                        "; alternate regions that pass preflight, cheapest first: {}; set spec.region to one of them and deploy again (into a resource group for that region)",
                        list.join(", ")
                    ));
                } else if let Some(n) = &alt.note {
                    fix.push_str(&format!("; {n}"));
                } else {
                    fix.push_str("; none of the spec's alternateRegions passes preflight either");
                }
                for (r, why) in &alt.blocked {
                    fix.push_str(&format!("\n      {r} does not pass: {}", why.join("; ")));
                }
                if code.contains("Allocation") {
                    fix.push_str("\n      allocation failures are often temporary: retrying later, or with fewer zones or instances, may also work");
                }
                outcome.fixes.push(fix);
                outcome.alternatives = Some(alt);
            }
        }
    }
}

/// The increase to request; when the quota is the size's family quota, which family that is
/// (ARM spells it `standardNCASv3_T4Family`, the usage list `Standard NCASv3_T4 Family`).
fn quota_fix(q: &QuotaIncrease, spec: &Spec) -> String {
    let mut fix = q.text();
    let size = &spec.spec.compute.vm_size;
    if let Some(family) = crate::catalog::find(size).map(|s| &s.quota_family)
        && same_family(&q.quota, family)
    {
        fix.push_str(&format!(
            " ({size} counts against the {family:?} family quota; `az vm list-usage -l {} -o table` shows it)",
            q.location.as_deref().unwrap_or(&spec.spec.region)
        ));
    }
    fix
}

/// `standardNCASv3_T4Family Cores` names the family `Standard NCASv3_T4 Family`; `Total Regional
/// Cores` and `Low Priority Cores` name none.
fn same_family(quota: &str, family: &str) -> bool {
    let key = |s: &str| -> String {
        s.trim()
            .trim_end_matches(" Cores")
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    key(quota) == key(family)
}

fn print_outcome(args: &Args, o: &Outcome, elapsed: Duration) {
    match args.output {
        Output::Json => out(&format!(
            "{}\n",
            serde_json::to_string_pretty(o).expect("the outcome serialises")
        )),
        Output::Markdown => out(&markdown(o)),
        Output::Text => out(&text(o, elapsed)),
    }
}

fn took(o: &Outcome, elapsed: Duration) -> String {
    o.duration
        .as_deref()
        .and_then(progress::parse_iso_duration)
        .map(fmt_elapsed)
        .unwrap_or_else(|| fmt_elapsed(elapsed))
}

fn text(o: &Outcome, elapsed: Duration) -> String {
    let mut s = String::new();
    let verb = match o.provisioning_state.as_str() {
        "Succeeded" => "succeeded".to_string(),
        "Rejected" => "was rejected by ARM before it started".to_string(),
        other => format!("ended {other}"),
    };
    let when = if o.provisioning_state == "Rejected" {
        String::new()
    } else {
        format!(", {}", took(o, elapsed))
    };
    let _ = writeln!(
        s,
        "\ndeployment {} {verb} (resource group {}{when})",
        o.deployment, o.resource_group
    );
    if o.provisioning_state == "Succeeded" {
        if !o.outputs.is_empty() {
            let _ = writeln!(s, "outputs:");
            let w = o.outputs.keys().map(String::len).max().unwrap_or(0);
            for (k, v) in &o.outputs {
                let v = match v {
                    Value::String(t) => t.clone(),
                    other => other.to_string(),
                };
                let _ = writeln!(s, "  {k:<w$}  {v}");
            }
        }
        if let Some(url) = &o.gpu_workbook {
            let _ = writeln!(s, "GPU workbook: {url}");
        }
        return s;
    }
    if let Some(e) = &o.error {
        let _ = writeln!(s, "error:");
        for l in e.tree_lines(1) {
            let _ = writeln!(s, "{l}");
        }
    }
    if !o.failed_resources.is_empty() {
        let _ = writeln!(s, "failed resources:");
        let top: Vec<String> = o
            .error
            .as_ref()
            .map(|e| {
                e.tree_lines(0)
                    .into_iter()
                    .map(|l| l.trim().to_string())
                    .collect()
            })
            .unwrap_or_default();
        for r in &o.failed_resources {
            let code = r
                .status_code
                .as_deref()
                .map(|c| format!(" ({c})"))
                .unwrap_or_default();
            let _ = writeln!(s, "  {} {}{code}", r.resource_type, r.name);
            if let Some(e) = &r.error {
                let lines = e.tree_lines(2);
                // the deployment's tree usually repeats the resource's error: print it once
                if !lines.iter().all(|l| top.contains(&l.trim().to_string())) {
                    for l in lines {
                        let _ = writeln!(s, "{l}");
                    }
                }
            }
        }
    }
    if !o.fixes.is_empty() {
        let _ = writeln!(s, "fix:");
        for f in &o.fixes {
            let _ = writeln!(s, "  - {f}");
        }
    }
    let _ = writeln!(
        s,
        "details: az deployment operation group list -g {} -n {} -o table",
        o.resource_group, o.deployment
    );
    let _ = writeln!(s, "portal:  {}", o.portal);
    s
}

fn markdown(o: &Outcome) -> String {
    let mut s = String::new();
    let icon = if o.provisioning_state == "Succeeded" {
        "✅"
    } else {
        "❌"
    };
    let _ = writeln!(
        s,
        "## gpuform deploy: `{}` {icon} {}\n",
        o.deployment, o.provisioning_state
    );
    let _ = writeln!(
        s,
        "Resource group `{}` · subscription `{}` · [portal]({}){}\n",
        o.resource_group,
        o.subscription,
        o.portal,
        o.gpu_workbook
            .as_ref()
            .map(|u| format!(" · [GPU workbook]({u})"))
            .unwrap_or_default()
    );
    if !o.outputs.is_empty() {
        let _ = writeln!(s, "| Output | Value |\n|---|---|");
        for (k, v) in &o.outputs {
            let v = match v {
                Value::String(t) => t.clone(),
                other => other.to_string(),
            };
            let _ = writeln!(s, "| {k} | `{}` |", v.replace('|', "\\|"));
        }
    }
    if let Some(e) = &o.error {
        let _ = writeln!(s, "\n```text");
        for l in e.tree_lines(0) {
            let _ = writeln!(s, "{l}");
        }
        let _ = writeln!(s, "```");
    }
    if !o.fixes.is_empty() {
        let _ = writeln!(s, "\n**Fix:**\n");
        for f in &o.fixes {
            let _ = writeln!(
                s,
                "- {}",
                f.lines().map(str::trim).collect::<Vec<_>>().join(" ")
            );
        }
    }
    s
}
