//! `gpuform destroy`: list what the spec's deployments created, confirm, delete it in order with
//! progress, and summarise (the work is in `crate::destroy::run`).

// `ArmError` carries the whole error tree; it is built once per failed call.
#![allow(clippy::result_large_err)]

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap::ValueEnum;

use super::azure_args::{AzureArgs, runtime};
use super::common::{ExitCode, Failure, PolicyArgs, load_valid, out, plan_of};
use crate::catalog::prices::PriceTable;
use crate::destroy::run::{Ended, Options};
use crate::destroy::{self, Polling, report};

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
    "says how to recover it for the next deploy. Credentials, cloud and retries work as for `gpuform preflight`.\n\n",
    "A spec with alternateRegions: destroy acts on the `<RG>-<region>` group a capacity failover deployed into (deploy ",
    "--per-region-resource-group) when the spec's deployment succeeded or runs there, says so, and names the groups ",
    "an earlier attempt left deployments in; two groups holding such a deployment are refused (exit 2: name one with ",
    "-g and --no-follow)."
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
    #[arg(long, short = 'y', conflicts_with = "what_if")]
    pub yes: bool,
    /// Only list what would be deleted, in order, and delete nothing (exit 0; --dry-run still works).
    #[arg(long, alias = "dry-run")]
    pub what_if: bool,
    /// Keep the Key Vault (with its keys and diagnostic settings) and the data disks (a Flexible
    /// set's instances get deleteOption Detach first; a dev box keeps its OS and data disks).
    #[arg(long)]
    pub keep_data: bool,
    /// Also delete what this deployment created (a deploy run with --name; repeatable).
    #[arg(long = "deployment", value_name = "NAME")]
    pub deployments: Vec<String>,
    /// Act on -g as given; without it destroy acts on the `<RG>-<region>` group a failover
    /// landed in (deploy --per-region-resource-group) when the spec's deployment is there.
    #[arg(long)]
    pub no_follow: bool,
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
    #[value(aliases = ["human", "table"])]
    Text,
    Json,
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
    let opts = Options {
        spec_path: &args.spec,
        resource_group: &args.resource_group,
        yes: args.yes,
        dry_run: args.what_if || (!args.yes && !interactive),
        keep_data: args.keep_data,
        deployments: &args.deployments,
        polling,
        no_follow: args.no_follow,
    };
    let ended = destroy::run::run(
        &opts,
        spec,
        &plan,
        apis,
        (&rt, &session.arm, &session.subscription),
    )
    .map_err(|e| session.failure(&e))?;
    let rg = args.resource_group.trim();
    Ok(match ended {
        Ended::Empty(msg) => {
            match args.output {
                Output::Json => out(&report::empty_json(rg, &msg)),
                Output::Text => out(&format!("{msg}\n")),
            }
            ExitCode::Ok
        }
        Ended::Stopped => ExitCode::Findings,
        Ended::Ambiguous(what, help) => return Err(Failure::usage(what).help(help)),
        Ended::DryRun { json, count, group } => {
            match args.output {
                Output::Json => out(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(&json).expect("serialises")
                )),
                Output::Text => out(&format!(
                    "dry run: {count} resources would be deleted from {group}; nothing was deleted. To delete them:\n  gpuform destroy {} -g {group} --yes{}\n",
                    args.spec.display(),
                    if group == rg { "" } else { " --no-follow" }
                )),
            }
            // asked for (--what-if): done; without --yes off a terminal: not what was asked
            if args.what_if {
                ExitCode::Ok
            } else {
                ExitCode::Usage
            }
        }
        Ended::Declined => super::common::DECLINED,
        Ended::Interrupted => ExitCode::Interrupted,
        Ended::Done(summary) => {
            match args.output {
                Output::Json => out(&summary.json()),
                Output::Text => out(&summary.text(&args.spec)),
            }
            if summary.succeeded {
                ExitCode::Ok
            } else {
                ExitCode::Findings
            }
        }
    })
}
