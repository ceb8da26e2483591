//! `gpuform cost SPEC`: the monthly estimate of a spec's scaling policy, its saving levers and
//! the budget gates. Exit codes: 0 estimate printed (gates passed), 1 a gate failed, 2 usage or
//! I/O error (including a gate that cannot be decided because prices are missing). The work
//! lives in `crate::cost::command`.

use std::path::PathBuf;

use clap::ValueEnum;

use super::common::{ExitCode, Failure, PolicyArgs, load_valid, out, plan_of, styled};
use crate::catalog::currency::{Currency, Money};
use crate::catalog::prices::PriceTable;
use crate::cost::PriceBook;
use crate::cost::command::{self, Hooks, Request};
use crate::cost::fetch;
use crate::cost::prices::Refresh;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    #[value(aliases = ["human", "table"])]
    Text,
    Json,
    Markdown,
}

/// Price table flags, shared with `gpuform sizes` so both rank sizes with the same prices.
#[derive(Debug, Clone, clap::Args)]
pub struct PriceArgs {
    /// Azure Retail Prices API JSON (one page, an array of pages, or a gpuform cache file) whose
    /// prices replace the embedded ones; repeatable. Windows, spot, reservation and managed disk
    /// rows are recognised. In the spec's currency (monitoring.budget.currency); USD pages of the
    /// same meters beside them give the rate for the embedded (USD) figures.
    #[arg(long, value_name = "FILE")]
    pub prices: Vec<PathBuf>,
}

/// The `--refresh-prices` flags, shared with `gpuform simulate` (each command has its own
/// `--timeout` and `--retries`).
#[derive(Debug, Clone, clap::Args)]
pub struct RefreshArgs {
    /// Query the public Azure Retail Prices API for the spec's region and sizes, in the spec's
    /// currency (cached with its fetch date; no credentials needed).
    #[arg(long)]
    pub refresh_prices: bool,
    /// Retail Prices API endpoint (for mirrors and tests).
    #[arg(long, value_name = "URL", default_value = fetch::DEFAULT_ENDPOINT)]
    pub prices_endpoint: String,
    /// Where --refresh-prices caches answers (default $XDG_CACHE_HOME/gpuform or ~/.cache/gpuform).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Reuse cached prices younger than this instead of querying again (24h, 2d; a bare number
    /// is hours; 0: always query).
    #[arg(long, value_name = "DURATION", default_value = "24h", value_parser = super::common::hours)]
    pub prices_max_age: f64,
    /// First retry back-off of --refresh-prices in milliseconds (doubles per retry).
    #[arg(long, value_name = "MS", default_value_t = 800, hide = true)]
    pub prices_retry_delay_ms: u64,
}

impl RefreshArgs {
    /// The refresh these flags ask for (used with --refresh-prices).
    pub fn refresh(&self, timeout: f64, retries: u32) -> Refresh {
        Refresh {
            endpoint: self.prices_endpoint.clone(),
            cache_dir: self.cache_dir.clone(),
            max_age: self.prices_max_age,
            timeout,
            retries,
            retry_delay_ms: self.prices_retry_delay_ms,
        }
    }
}

/// `--prices` and the `--refresh-prices` flags together (`gpuform simulate`).
#[derive(Debug, Clone, clap::Args)]
pub struct PricingArgs {
    #[command(flatten)]
    pub prices: PriceArgs,
    #[command(flatten)]
    pub refresh: RefreshArgs,
}

impl PricingArgs {
    pub fn request(&self, timeout: f64, retries: u32) -> crate::cost::prices::Pricing {
        crate::cost::prices::Pricing {
            files: self.prices.prices.clone(),
            refresh: (self.refresh.refresh_prices).then(|| self.refresh.refresh(timeout, retries)),
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The spec to price.
    #[arg(value_name = "SPEC")]
    pub spec: PathBuf,
    /// Output: a table for people, JSON (amounts in the estimate's `currency`), or Markdown for $GITHUB_STEP_SUMMARY.
    #[arg(long = "output", alias = "format", value_name = "FORMAT", value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub prices: PriceArgs,
    #[command(flatten)]
    pub refresh: RefreshArgs,
    /// How long each HTTP try of --refresh-prices may take, body included (as for
    /// preflight/deploy; 30s, 2m; a bare number is seconds).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = super::common::secs)]
    pub timeout: f64,
    /// Retries per --refresh-prices request after throttling (429, honouring Retry-After), 5xx,
    /// timeouts and dropped connections; DNS failures and refused connections are not retried.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub retries: u32,
    /// Exit 1 when the expected monthly cost exceeds AMOUNT, in the spec's currency
    /// (monitoring.budget.currency, USD without it); `5000 EUR` names it, and must match.
    #[arg(long, value_name = "AMOUNT", value_parser = amount)]
    pub fail_above: Option<(f64, Option<Currency>)>,
    /// A previous `gpuform cost --output json` output to compare with (for pull requests).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Exit 1 when the expected cost grew more than N percent over --baseline.
    #[arg(long, value_name = "N", requires = "baseline")]
    pub fail_increase_percent: Option<f64>,
    /// Share (0-100) of the headroom between each profile's default count and its max that the
    /// expected case adds (0: the pool holds its default count).
    #[arg(long, value_name = "PERCENT", default_value_t = 0.0)]
    pub expected_utilization: f64,
    /// Log Analytics ingestion assumed, in GB per day.
    #[arg(long, value_name = "GB", default_value_t = 0.2)]
    pub log_gb_per_day: f64,
    /// Data through the NAT gateway assumed, in GB per month.
    #[arg(long, value_name = "GB", default_value_t = 100.0)]
    pub nat_gb: f64,
    /// A serving pool's Application Gateway: capacity units billed in an average hour (default:
    /// the 10 each minimum instance reserves).
    #[arg(long, value_name = "N")]
    pub gateway_capacity_units: Option<f64>,
    /// A serving pool's internal load balancer: data processed assumed, in GB per month.
    #[arg(long, value_name = "GB", default_value_t = crate::cost::model::default_lb_gb())]
    pub lb_gb: f64,
    /// Key Vault operations assumed per month.
    #[arg(long, value_name = "N", default_value_t = 10_000.0)]
    pub key_vault_ops: f64,
    /// Queue (Service Bus or storage) operations assumed per month.
    #[arg(long, value_name = "N", default_value_t = 1_000_000.0)]
    pub queue_ops: f64,
    /// Price the instance-hours `gpuform simulate` measures on this trace (CSV or `az monitor
    /// metrics list` JSON) as the expected case.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// With --trace: how long one job takes (PT2M or 2m; overrides workload.jobDuration).
    #[arg(long, value_name = "DURATION", requires = "trace")]
    pub job_duration: Option<String>,
    /// With --trace: from scale-out until a new VM serves (PT8M or 8m; overrides the family default).
    #[arg(long, value_name = "DURATION", requires = "trace")]
    pub provisioning: Option<String>,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

/// Read `--prices` files into a price book in their own currency (for commands without a spec).
pub fn load_price_files(args: &PriceArgs) -> Result<PriceBook, Failure> {
    crate::cost::prices::load_files(&args.prices)
}

/// `--fail-above`: `5000`, `5000 EUR`, `EUR 5000`.
fn amount(v: &str) -> Result<(f64, Option<Currency>), String> {
    Money::parse(v)
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let request = Request {
        spec: args.spec.clone(),
        format: match args.format {
            Format::Text => command::Format::Text,
            Format::Json => command::Format::Json,
            Format::Markdown => command::Format::Markdown,
        },
        styled: styled(),
        prices: args.prices.prices.clone(),
        refresh_prices: args.refresh.refresh_prices,
        refresh: args.refresh.refresh(args.timeout, args.retries),
        fail_above: args.fail_above,
        baseline: args.baseline.clone(),
        fail_increase_percent: args.fail_increase_percent,
        expected_utilization: args.expected_utilization,
        log_gb_per_day: args.log_gb_per_day,
        nat_gb: args.nat_gb,
        gateway_capacity_units: args.gateway_capacity_units,
        lb_gb: args.lb_gb,
        key_vault_ops: args.key_vault_ops,
        queue_ops: args.queue_ops,
        trace: args.trace.clone(),
    };
    command::run(
        &request,
        &Hooks {
            policy: &|| args.policy.load(),
            check: &|path, policy| load_valid(path, policy, PriceTable::embedded()),
            plan: &|checked, path| plan_of(checked, path, ExitCode::Usage),
            simulate: &|trace, checked, plan, spec| {
                crate::simulate::prepare::trace_hours(
                    &args.spec,
                    trace,
                    args.job_duration.as_deref(),
                    args.provisioning.as_deref(),
                    checked,
                    plan,
                    spec,
                )
            },
            out: &out,
        },
    )
}
