//! `gpuform quota request`: preflight the spec's region live, then file the missing quota
//! through the Azure Quota API and follow each request (the work is in `crate::quota`).

// `ArmError` carries the whole error tree; it is built once per failed call.
#![allow(clippy::result_large_err)]

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use clap::ValueEnum;
use serde_json::json;

use super::azure_args::{AzureArgs, Session, runtime};
use super::common::{ExitCode, Failure, PolicyArgs, load_valid, out};
use crate::catalog::prices::PriceTable;
use crate::preflight::checks::{self, Context};
use crate::preflight::report::Mode as PfMode;
use crate::preflight::{self as pf, Plan, Report};
use crate::quota::{self, Ask, Outcome, Polling, State};

#[derive(Debug, clap::Args)]
pub struct QuotaArgs {
    #[command(subcommand)]
    pub command: QuotaCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum QuotaCommand {
    /// File the family vCPU, regional (cores) and Spot (lowPriorityCores) increases preflight
    /// says are missing, and follow each request to approval or denial.
    #[command(after_help = QUOTA_HELP)]
    Request(Args),
}

pub const QUOTA_HELP: &str = concat!(
    "Exit codes: 0 every request approved, nothing missing, or a dry run printed; 1 a request was denied, needs a ",
    "support ticket or is still in progress; 2 usage or access errors, or you answered no (nothing was requested); ",
    "130 interrupted (submitted requests keep going).\n\n",
    "Without --submit/--yes gpuform asks on a terminal, and only prints what it would request (a dry run) when there ",
    "is no terminal or CI is set. The identity needs Microsoft.Quota/quotas/write (the Quota Request Operator role) ",
    "on the subscription, and the subscription registered for Microsoft.Quota (409 MissingSubscriptionRegistration ",
    "otherwise: az provider register --namespace Microsoft.Quota, or --register-providers). Credentials, cloud and ",
    "retries work as for `gpuform preflight`."
);

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The spec file.
    #[arg(value_name = "SPEC")]
    pub spec: PathBuf,
    /// The region to request quota in (default: the spec's region).
    #[arg(long, value_name = "REGION")]
    pub region: Option<String>,
    /// The resource group the pool runs in: its running instances already count as in use.
    #[arg(long, short = 'g', value_name = "RG")]
    pub resource_group: Option<String>,
    /// Submit without asking (alias --yes).
    #[arg(long, visible_alias = "yes", short = 'y', conflicts_with = "dry_run")]
    pub submit: bool,
    /// Only print what would be requested.
    #[arg(long)]
    pub dry_run: bool,
    /// Result on stdout.
    #[arg(long, alias = "format", value_name = "FORMAT", value_enum, default_value_t = Output::Text)]
    pub output: Output,
    /// Stop following a request after this many seconds (it keeps going in Azure).
    #[arg(long, value_name = "SECS", default_value_t = 900.0)]
    pub wait: f64,
    /// Seconds between polls when Azure sends no Retry-After.
    #[arg(long, value_name = "SECS", default_value_t = 10.0, hide = true)]
    pub poll_interval: f64,
    /// Register Microsoft.Quota if the subscription is not registered for it (needs
    /// */register/action, e.g. Contributor), then file the requests.
    #[arg(long)]
    pub register_providers: bool,
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

pub fn run(args: QuotaArgs) -> Result<ExitCode, Failure> {
    match args.command {
        QuotaCommand::Request(a) => request(a),
    }
}

fn secs(flag: &str, v: f64) -> Result<Duration, Failure> {
    Duration::try_from_secs_f64(v)
        .map_err(|_| Failure::usage(format!("{flag} must be a number of seconds, not {v}")))
}

/// Is there a person to ask? (a terminal on stdin and stderr, and not CI)
pub fn interactive() -> bool {
    std::io::stdin().is_terminal()
        && std::io::stderr().is_terminal()
        && std::env::var_os("CI").is_none()
}

pub fn confirm(question: &str) -> bool {
    let mut err = std::io::stderr();
    let _ = write!(err, "{question}");
    let _ = err.flush();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).is_err() {
        return false;
    }
    matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

fn request(args: Args) -> Result<ExitCode, Failure> {
    args.azure.check()?;
    let polling = Polling {
        interval: secs("--poll-interval", args.poll_interval)?,
        max_total: secs("--wait", args.wait)?,
        register_provider: args.register_providers,
        ..Polling::default()
    };
    let policy = args.policy.load()?;
    let checked = load_valid(&args.spec, &policy, PriceTable::embedded())?;
    let spec = checked
        .spec
        .as_ref()
        .expect("a spec without errors has a model");
    let region = args
        .region
        .as_deref()
        .unwrap_or(&spec.spec.region)
        .trim()
        .to_ascii_lowercase();
    // the session talks to the spec's cloud: a --region of another cloud does not exist there
    let cloud = spec.spec.effective_cloud();
    if crate::azure::Cloud::for_region(&region) != cloud {
        return Err(Failure::usage(format!(
            "--region {region} is a region of {}, but the spec's cloud is {cloud}",
            crate::azure::Cloud::for_region(&region)
        ))
        .help("use a region of the spec's cloud, or change spec.cloud / spec.region"));
    }
    let mut plan = Plan::from_spec(spec, std::slice::from_ref(&region));
    plan.targets.retain(|t| t.region == region);
    let session = args.azure.connect("quota", Some(spec))?;
    let rt = runtime()?;
    if let Some(rg) = &args.resource_group {
        plan.existing = session.existing_pool(&rt, "quota", rg.trim(), &checked);
    }
    let report = live_report(&rt, &session, &checked.path, &plan)?;
    let asks = quota::asks(&report, std::slice::from_ref(&region));
    let mode = if args.dry_run {
        Mode::DryRun
    } else if args.submit {
        Mode::Submit
    } else if interactive() {
        Mode::Ask
    } else {
        Mode::DryRun
    };
    if mode == Mode::DryRun && !args.dry_run && !asks.is_empty() {
        eprintln!(
            "quota: no terminal to ask on (or CI is set): a dry run; pass --submit to file the requests"
        );
    }
    file(&rt, &session, &asks, &region, mode, polling, args.output)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    DryRun,
    Ask,
    Submit,
}

/// Preflight (live) of `plan`.
pub fn live_report(
    rt: &tokio::runtime::Runtime,
    session: &Session,
    path: &str,
    plan: &Plan,
) -> Result<Report, Failure> {
    let (regions, sub) = rt
        .block_on(pf::gather_live(&session.arm, plan))
        .map_err(|e| session.failure(&e))?;
    let ctx = Context {
        spec_path: path.to_string(),
        mode: Some(PfMode::Live),
        subscription: Some(session.subscription.clone()),
        credential: Some(session.choice.describe()),
        cloud: Some(session.cloud.name().to_string()),
    };
    Ok(checks::build(
        plan,
        &regions,
        &sub,
        ctx,
        PriceTable::embedded(),
    ))
}

fn ask_line(a: &Ask) -> String {
    format!(
        "  {:<40} {:>6} -> {:<6} (usage {}, +{})",
        format!("{} ({})", a.label, a.quota),
        a.current_limit,
        a.new_limit,
        a.current_usage,
        (a.new_limit - a.current_limit).max(0)
    )
}

/// List the asks, ask (or not), submit and follow them, print the outcome. Shared with
/// `preflight --request-quota`.
pub fn file(
    rt: &tokio::runtime::Runtime,
    session: &Session,
    asks: &[Ask],
    region: &str,
    mode: Mode,
    polling: Polling,
    output: Output,
) -> Result<ExitCode, Failure> {
    if asks.is_empty() {
        let msg =
            format!("quota in {region} already covers the spec at peak scale; nothing to request");
        match output {
            Output::Json => out(&json_doc(region, true, &[])),
            Output::Text => out(&format!("{msg}\n")),
        }
        return Ok(ExitCode::Ok);
    }
    eprintln!(
        "quota: the spec needs these limits in {region} (subscription {}):",
        session.subscription
    );
    for a in asks {
        eprintln!("{}", ask_line(a));
    }
    let submit = match mode {
        Mode::DryRun => false,
        Mode::Submit => true,
        Mode::Ask => confirm(&format!(
            "Request {} quota increase{}? [y/N] ",
            asks.len(),
            if asks.len() == 1 { "" } else { "s" }
        )),
    };
    if !submit {
        let outcomes: Vec<Outcome> = asks
            .iter()
            .map(|a| Outcome {
                ask: a.clone(),
                state: State::NotSubmitted,
                message: None,
                request_id: None,
            })
            .collect();
        match output {
            Output::Json => out(&json_doc(region, true, &outcomes)),
            Output::Text => {
                let mut s = String::from("dry run: nothing was requested. To file these:\n");
                s.push_str("  gpuform quota request SPEC --submit\n");
                for a in asks {
                    s.push_str(&format!(
                        "  az quota create --resource-name \"{}\" --scope /subscriptions/{}/providers/Microsoft.Compute/locations/{} --limit-object value={} --resource-type {}\n",
                        a.quota, session.subscription, a.region, a.new_limit,
                        crate::facts::quota::resource_type(&a.quota)
                    ));
                }
                out(&s);
            }
        }
        return Ok(if mode == Mode::Ask {
            eprintln!("quota: not confirmed; nothing was requested");
            super::common::DECLINED
        } else {
            ExitCode::Ok
        });
    }
    let mut outcomes: Vec<Outcome> = Vec::new();
    let work = async {
        for a in asks {
            let mut note = |s: String| eprintln!("quota: {s}");
            let o = quota::submit(&session.arm, a, polling, &mut note).await?;
            eprintln!("quota: {} in {}: {}", a.quota, a.region, o.state.label());
            outcomes.push(o);
        }
        Ok::<(), crate::azure::ArmError>(())
    };
    let res = rt.block_on(async {
        tokio::select! {
            r = work => Some(r),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    match res {
        None => {
            eprintln!(
                "\nquota: interrupted; requests already submitted keep going in Azure. See them with:\n  az quota request list --scope /subscriptions/{}/providers/Microsoft.Compute/locations/{region}",
                session.subscription
            );
            return Ok(ExitCode::Interrupted);
        }
        Some(Err(e)) => return Err(session.failure(&e)),
        Some(Ok(())) => {}
    }
    match output {
        Output::Json => out(&json_doc(region, false, &outcomes)),
        Output::Text => {
            let mut s = String::new();
            for o in &outcomes {
                s.push_str(&format!(
                    "{:<24} {} in {}: {} -> {}{}\n",
                    o.state.label(),
                    o.ask.label,
                    o.ask.region,
                    o.ask.current_limit,
                    o.ask.new_limit,
                    o.request_id
                        .as_deref()
                        .map(|i| format!(" (request {i})"))
                        .unwrap_or_default()
                ));
                if let Some(m) = &o.message {
                    s.push_str(&format!("  {m}\n"));
                }
                for step in quota::next_steps(o, session.cloud.portal(), &session.subscription) {
                    s.push_str(&format!("  next: {step}\n"));
                }
            }
            out(&s);
        }
    }
    Ok(if outcomes.iter().all(|o| o.state == State::Approved) {
        ExitCode::Ok
    } else {
        ExitCode::Findings
    })
}

fn json_doc(region: &str, dry_run: bool, outcomes: &[Outcome]) -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(&json!({
            "schemaVersion": 1,
            "region": region,
            "dryRun": dry_run,
            "requests": outcomes,
        }))
        .expect("serialises")
    )
}
