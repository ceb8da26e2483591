//! `gpuform preflight`: quota, size, zone, capability, provider and feature checks against the
//! subscription (or saved `az` output) before anything is created.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use clap::ValueEnum;

use super::common::{ExitCode, Failure, PolicyArgs, load_valid, out, styled};
use crate::azure::{
    self, ArmError, AuthMethod, AuthMode, Cloud, Connect, Endpoints, Env, HttpSettings,
    SystemProbe, models,
};
use crate::catalog::prices::PriceTable;
use crate::preflight::checks::{self, Context};
use crate::preflight::report::{self, Mode};
use crate::preflight::{self as pf, Offline, Plan, Verdict};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The spec file.
    #[arg(value_name = "SPEC")]
    pub spec: PathBuf,
    /// Subscription id (default: AZURE_SUBSCRIPTION_ID, then the az CLI's default with --auth cli/auto).
    #[arg(long, value_name = "ID")]
    pub subscription: Option<String>,
    /// Also check REGION (repeatable); the spec's region and alternateRegions are always checked.
    #[arg(long = "region", value_name = "REGION")]
    pub regions: Vec<String>,
    /// Output: a table for people, JSON, Markdown for $GITHUB_STEP_SUMMARY, or GitHub annotations.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Which credential to use; `auto` picks from the environment and says which.
    #[arg(long, value_enum, default_value_t = AuthArg::Auto, env = "GPUFORM_AUTH")]
    pub auth: AuthArg,
    /// Azure cloud: ARM endpoint, Entra authority (AZURE_AUTHORITY_HOST overrides it) and token scope.
    #[arg(long, value_enum, default_value_t = CloudArg::AzureCloud)]
    pub cloud: CloudArg,
    /// Resource Manager endpoint (https), e.g. a proxy; the token scope stays the cloud's.
    #[arg(long, value_name = "URL")]
    pub arm_endpoint: Option<String>,
    /// Seconds each HTTP try may take, body included.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub timeout: f64,
    /// Retries per call after throttling (429, honouring Retry-After), 5xx, timeouts and dropped connections.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub retries: u32,
    /// First retry back-off in milliseconds (doubles per retry).
    #[arg(long, value_name = "MS", default_value_t = 800, hide = true)]
    pub retry_delay_ms: u64,
    /// Offline: quota usage from `az vm list-usage -l REGION -o json` or the REST response; a bare
    /// FILE is the spec's region (repeatable).
    #[arg(long, value_name = "[REGION=]FILE")]
    pub usages: Vec<String>,
    /// Offline: SKUs from `az vm list-skus [-l REGION] --all -o json` or the REST response (repeatable).
    #[arg(long, value_name = "FILE")]
    pub skus: Vec<PathBuf>,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
    Markdown,
    Github,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AuthArg {
    Auto,
    Cli,
    Secret,
    Workload,
    Pipelines,
    ManagedIdentity,
}

impl From<AuthArg> for AuthMode {
    fn from(a: AuthArg) -> Self {
        match a {
            AuthArg::Auto => AuthMode::Auto,
            AuthArg::Cli => AuthMode::Cli,
            AuthArg::Secret => AuthMode::Secret,
            AuthArg::Workload => AuthMode::Workload,
            AuthArg::Pipelines => AuthMode::Pipelines,
            AuthArg::ManagedIdentity => AuthMode::ManagedIdentity,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[allow(clippy::enum_variant_names)] // the names az uses
pub enum CloudArg {
    #[value(name = "AzureCloud")]
    AzureCloud,
    #[value(name = "AzureChinaCloud")]
    AzureChinaCloud,
    #[value(name = "AzureUSGovernment")]
    AzureUsGovernment,
}

impl From<CloudArg> for Cloud {
    fn from(c: CloudArg) -> Self {
        match c {
            CloudArg::AzureCloud => Cloud::AzureCloud,
            CloudArg::AzureChinaCloud => Cloud::AzureChinaCloud,
            CloudArg::AzureUsGovernment => Cloud::AzureUSGovernment,
        }
    }
}

/// An Azure error as a command failure: what failed, the ARM error tree and cause chain, the fix.
pub fn arm_failure(e: &ArmError) -> Failure {
    let mut causes: Vec<String> = e
        .detail_lines()
        .into_iter()
        .map(|l| l.trim().to_string())
        .collect();
    let summary = e.summary();
    causes.extend(
        e.causes
            .iter()
            .filter(|c| !summary.contains(c.as_str()))
            .cloned(),
    );
    if let Some(id) = &e.request_id {
        causes.push(format!("request id {id}"));
    }
    Failure {
        code: ExitCode::Usage,
        message: e.to_string(),
        causes,
        help: e.help.clone(),
    }
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        return Err(Failure::usage(
            "--timeout must be a positive number of seconds",
        ));
    }
    let policy = args.policy.load()?;
    let prices = PriceTable::embedded();
    let checked = load_valid(&args.spec, &policy, prices)?;
    let spec = checked
        .spec
        .as_ref()
        .expect("a spec without errors has a model");
    let plan = Plan::from_spec(spec, &args.regions);
    let mut ctx = Context {
        spec_path: checked.path.clone(),
        ..Default::default()
    };

    let (regions, sub) = if !args.usages.is_empty() || !args.skus.is_empty() {
        ctx.mode = Some(Mode::Offline);
        read_offline(&args, &plan)?.region_data(&plan)
    } else {
        ctx.mode = Some(Mode::Live);
        live(&args, &plan, &mut ctx)?
    };

    let report = checks::build(&plan, &regions, &sub, ctx, prices);
    let text = match args.format {
        Format::Table => report::human(&report, styled()),
        Format::Json => report::json(&report),
        Format::Markdown => report::markdown(&report),
        Format::Github => report::github(&report),
    };
    out(&text);
    Ok(match report.verdict {
        Verdict::Pass => ExitCode::Ok,
        Verdict::Blocked => ExitCode::Findings,
        Verdict::Unknown => ExitCode::Usage,
    })
}

fn live(
    args: &Args,
    plan: &Plan,
    ctx: &mut Context,
) -> Result<(Vec<pf::RegionData>, pf::SubscriptionData), Failure> {
    let env = Env::from_process();
    let cloud: Cloud = args.cloud.into();
    let endpoints = Endpoints::resolve(
        cloud,
        args.arm_endpoint.as_deref(),
        env.get("AZURE_AUTHORITY_HOST"),
    )
    .map_err(|e| Failure::usage(e.to_string()))?;
    let http = HttpSettings {
        timeout: Duration::from_secs_f64(args.timeout),
        max_retries: args.retries,
        initial_delay: Duration::from_millis(args.retry_delay_ms),
        ..HttpSettings::default()
    };
    let choice =
        azure::auth::choose(args.auth.into(), &env, &SystemProbe).map_err(|e| arm_failure(&e))?;
    let subscription = match args
        .subscription
        .clone()
        .or_else(|| env.get("AZURE_SUBSCRIPTION_ID").map(str::to_string))
    {
        Some(s) => s.trim().to_string(),
        None if matches!(choice.method, AuthMethod::Cli { .. }) => azure::az_default_subscription()
            .ok_or_else(|| {
                Failure::usage(
                    "no subscription given and the Azure CLI has no default subscription",
                )
                .help("pass --subscription ID or set AZURE_SUBSCRIPTION_ID")
            })?,
        None => {
            return Err(Failure::usage("no subscription given")
                .help("pass --subscription ID or set AZURE_SUBSCRIPTION_ID"));
        }
    };
    eprintln!("preflight: {}", choice.announce());
    let connect = Connect {
        auth: args.auth.into(),
        endpoints,
        http,
        subscription: subscription.clone(),
        transport: None,
    };
    let arm = azure::connect_with(&connect, &env, &choice).map_err(|e| arm_failure(&e))?;
    ctx.subscription = Some(subscription);
    ctx.credential = Some(choice.describe());
    ctx.cloud = Some(cloud.name().to_string());

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::from_error(ExitCode::Usage, "cannot start the async runtime", &e))?;
    rt.block_on(pf::gather_live(&arm, plan)).map_err(|e| {
        let mut f = arm_failure(&e);
        if e.kind == azure::ErrorKind::Credential || e.status == Some(401) {
            f.causes.push(format!(
                "gpuform used {}",
                choice.announce().trim_start_matches("using ")
            ));
        }
        f
    })
}

fn read_file(path: &std::path::Path) -> Result<String, Failure> {
    std::fs::read_to_string(path).map_err(|e| {
        Failure::from_error(
            ExitCode::Usage,
            format!("cannot read {}", path.display()),
            &e,
        )
    })
}

fn read_offline(args: &Args, plan: &Plan) -> Result<Offline, Failure> {
    let mut off = Offline::default();
    for p in &args.skus {
        let (list, shape) = models::parse_skus(&read_file(p)?).map_err(|e| {
            Failure::usage(format!("{} is not a resource SKU list: {e}", p.display()))
                .help("give `az vm list-skus -l REGION --all -o json` output or the REST response")
        })?;
        off.skus.push((p.display().to_string(), list, shape));
    }
    let mut usages: BTreeMap<String, (String, Vec<models::Usage>)> = BTreeMap::new();
    for arg in &args.usages {
        let (region, file) = split_region(arg, plan.primary());
        let path = PathBuf::from(file);
        let (list, _) = models::parse_usages(&read_file(&path)?).map_err(|e| {
            Failure::usage(format!("{} is not a usage list: {e}", path.display()))
                .help("give `az vm list-usage -l REGION -o json` output or the REST response")
        })?;
        if usages
            .insert(region.clone(), (file.to_string(), list))
            .is_some()
        {
            return Err(Failure::usage(format!("--usages gives {region} twice")));
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
