//! `gpuform preflight`: quota, size, zone, capability, provider and feature checks against the
//! subscription (or saved `az` output) before anything is created.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::ValueEnum;

use super::azure_args::{AzureArgs, runtime};
use super::common::{ExitCode, Failure, PolicyArgs, load_valid, out, read_input, styled};
use super::quota as quota_cli;
use crate::azure::models;
use crate::catalog::prices::PriceTable;
use crate::preflight::checks::{self, Context};
use crate::preflight::report::{self, Mode};
use crate::preflight::{self as pf, Offline, Plan, Verdict};
use crate::spec::Checked;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The spec file.
    #[arg(value_name = "SPEC")]
    pub spec: PathBuf,
    /// Also check REGION (repeatable); the spec's region and alternateRegions are always checked.
    #[arg(long = "region", value_name = "REGION")]
    pub regions: Vec<String>,
    /// The resource group the spec is deployed in (its running instances count once against quota).
    #[arg(long, short = 'g', value_name = "RG", conflicts_with_all = ["usages", "skus"])]
    pub resource_group: Option<String>,
    /// Output: a table for people, JSON, Markdown for $GITHUB_STEP_SUMMARY, or GitHub annotations.
    #[arg(long = "output", alias = "format", value_name = "FORMAT", value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub azure: AzureArgs,
    /// Offline: quota usage from `az vm list-usage -l REGION -o json` or the REST response; a bare
    /// FILE is the spec's region (repeatable).
    #[arg(long, value_name = "[REGION=]FILE")]
    pub usages: Vec<String>,
    /// Offline: SKUs from `az vm list-skus [-l REGION] --all -o json` or the REST response (repeatable).
    #[arg(long, value_name = "FILE")]
    pub skus: Vec<PathBuf>,
    /// After a BLOCKED verdict, offer to request the missing quota of the spec's region through
    /// the Azure Quota API (asks on a terminal; with --yes submits; otherwise a dry run).
    #[arg(long, conflicts_with_all = ["usages", "skus"])]
    pub request_quota: bool,
    /// Also ask Azure Policy whether it would deny what the template creates (always for a landing zone).
    #[arg(long)]
    pub azure_policy: bool,
    /// With --request-quota: submit without asking.
    #[arg(long, short = 'y', requires = "request_quota")]
    pub yes: bool,
    /// With --request-quota: only print the requests (--dry-run still works).
    #[arg(long, alias = "dry-run", requires = "request_quota")]
    pub what_if: bool,
    /// The Standby Pool resource provider's app id to look its principal up by in Microsoft
    /// Graph [default: gpuform's assumption, which no Microsoft page confirms].
    #[arg(long, value_name = "APP_ID", env = "GPUFORM_STANDBY_PROVIDER_APP_ID")]
    pub standby_provider_app_id: Option<String>,
    #[command(flatten)]
    pub spot: super::spot_args::SpotArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    #[value(aliases = ["human", "table"])]
    Text,
    Json,
    Markdown,
    Github,
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    args.azure.check()?;
    let policy = args.policy.load()?;
    let prices = PriceTable::embedded();
    let checked = load_valid(&args.spec, &policy, prices)?;
    let spec = checked
        .spec
        .as_ref()
        .expect("a spec without errors has a model");
    let mut plan = Plan::from_spec(spec, &args.regions);
    plan.standby_app_id = args.standby_provider_app_id.clone();
    plan.spot_readings = args.spot.readings();
    plan.landing_zone =
        pf::landing_zone::Inputs::for_checked(&checked, plan.max, args.azure_policy);
    let mut ctx = Context {
        spec_path: checked.path.clone(),
        ..Default::default()
    };

    let mut connected = None;
    let (regions, sub) = if !args.usages.is_empty() || !args.skus.is_empty() {
        ctx.mode = Some(Mode::Offline);
        read_offline(&args, &plan)?.region_data(&plan)
    } else {
        ctx.mode = Some(Mode::Live);
        let (r, s, c) = live(&args, &checked, &mut plan, &mut ctx)?;
        connected = Some(c);
        (r, s)
    };

    let report = checks::build(&plan, &regions, &sub, ctx, prices);
    match args.format {
        Format::Text => out(&report::human(&report, styled())),
        Format::Json => out(&report::json(&report)),
        Format::Markdown => out(&report::markdown(&report)),
        Format::Github => super::common::out_commands(&report::github(&report)),
    }
    if args.request_quota
        && report.primary().verdict == Verdict::Blocked
        && let Some((session, rt)) = &connected
    {
        let region = plan.primary().to_string();
        let asks = crate::quota::asks(&report, std::slice::from_ref(&region));
        if asks.is_empty() {
            crate::ci_eprintln!(
                "preflight: {region} is blocked by more than quota; requesting quota would not unblock it"
            );
        } else {
            let mode = if args.yes {
                quota_cli::Mode::Submit
            } else if args.what_if {
                quota_cli::Mode::DryRun
            } else if quota_cli::interactive() {
                quota_cli::Mode::Ask
            } else {
                crate::ci_eprintln!(
                    "preflight: no terminal to ask on (or CI is set): the quota requests are a dry run; pass --yes to file them"
                );
                quota_cli::Mode::DryRun
            };
            let code = quota_cli::file(
                rt,
                session,
                &asks,
                &region,
                mode,
                crate::quota::Polling::default(),
                quota_cli::Output::Text,
            )?;
            if code == ExitCode::Interrupted {
                return Ok(code);
            }
        }
    }
    Ok(match report.verdict {
        Verdict::Blocked => ExitCode::Findings,
        // offline without data for the region: said as NOT CHECKED; skipped checks do not block
        Verdict::Pass | Verdict::NotChecked => ExitCode::Ok,
        Verdict::Unknown => ExitCode::Usage,
    })
}

type Connected = (super::azure_args::Session, tokio::runtime::Runtime);

fn live(
    args: &Args,
    checked: &Checked,
    plan: &mut Plan,
    ctx: &mut Context,
) -> Result<(Vec<pf::RegionData>, pf::SubscriptionData, Connected), Failure> {
    let session = args.azure.connect("preflight", checked.spec.as_ref())?;
    ctx.subscription = Some(session.subscription.clone());
    ctx.credential = Some(session.choice.describe());
    ctx.cloud = Some(session.cloud.name().to_string());
    let rt = runtime()?;
    if let Some(rg) = &args.resource_group {
        let rg = rg.trim();
        plan.existing = session.existing_pool(&rt, "preflight", rg, checked);
        // the derived vault name hashes the group's id as ARM spells it
        let group_id = rt
            .block_on(session.arm.resource_group(rg))
            .ok()
            .flatten()
            .map(|g| g.id);
        plan.set_resource_group(&session.subscription, rg, group_id.as_deref());
    }
    let (regions, sub) = rt
        .block_on(pf::gather_live(&session.arm, plan))
        .map_err(|e| session.failure(&e))?;
    Ok((regions, sub, (session, rt)))
}

fn read_offline(args: &Args, plan: &Plan) -> Result<Offline, Failure> {
    let mut off = Offline::default();
    for p in &args.skus {
        let (list, shape) = models::parse_skus(&read_input(p, crate::io::limits::SKUS, "")?)
            .map_err(|e| {
                Failure::usage(format!("{} is not a resource SKU list: {e}", p.display())).help(
                    "give `az vm list-skus -l REGION --all -o json` output or the REST response",
                )
            })?;
        off.skus.push((p.display().to_string(), list, shape));
    }
    let mut usages: BTreeMap<String, Vec<models::Usage>> = BTreeMap::new();
    for arg in &args.usages {
        let (region, file) = split_region(arg, plan.primary());
        let path = PathBuf::from(file);
        let (list, _) = models::parse_usages(&read_input(&path, crate::io::limits::USAGES, "")?)
            .map_err(|e| {
                Failure::usage(format!("{} is not a usage list: {e}", path.display()))
                    .help("give `az vm list-usage -l REGION -o json` output or the REST response")
            })?;
        if usages.insert(region.clone(), list).is_some() {
            return Err(Failure::usage(format!("--usages gives {region} twice")));
        }
    }
    // data for a region this run does not check would be dropped without a word, and a region
    // left without data is only skipped: the verdict would pass on nothing
    let checked: Vec<&str> = plan.targets.iter().map(|t| t.region.as_str()).collect();
    let unchecked = |what: String| {
        Failure::usage(format!(
            "{what} this run does not check (it checks {})",
            checked.join(", ")
        ))
        .help("add --region REGION to check that region too, or give data for the regions above")
    };
    for region in usages.keys() {
        if !checked.contains(&region.as_str()) {
            return Err(unchecked(format!(
                "--usages gives quota usage for {region}, a region"
            )));
        }
    }
    for (file, list, _) in &off.skus {
        if !list
            .iter()
            .any(|s| checked.iter().any(|r| s.in_location(r)))
        {
            return Err(unchecked(format!("--skus {file} only lists regions")));
        }
    }
    off.usages = usages;
    Ok(off)
}

/// `eastus=usages.json` → (eastus, usages.json); a bare path is the spec's region.
fn split_region<'a>(arg: &'a str, primary: &str) -> (String, &'a str) {
    if let Some((r, f)) = arg.split_once('=')
        && !r.is_empty()
        && r.chars().all(|c| c.is_ascii_alphanumeric())
        && !std::path::Path::new(arg).exists()
    {
        return (r.to_ascii_lowercase(), f);
    }
    (primary.to_string(), arg)
}
