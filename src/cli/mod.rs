//! The command line: one module per command; this file parses arguments and dispatches.
//!
//! Exit codes (stable, documented in docs/src/reference.md): 0 success (warnings allowed), 1 findings
//! (validation errors, a blocked preflight, a failed deployment, a budget gate), 2 usage, I/O or
//! access errors, 130 interrupted (Ctrl-C).

mod azure_args;
mod common;
mod cost;
mod deploy;
mod destroy;
mod gpu_report;
mod init;
mod man;
mod preflight;
mod quota;
mod render;
mod schema;
mod session;
mod show;
mod simulate;
mod simulate_serving;
mod sizes;
mod spot_args;
mod status;
mod tune_args;
mod validate;

use clap::{Parser, Subcommand};

pub use common::{ColorChoice, ExitCode, Failure};

#[derive(Debug, Parser)]
#[command(
    name = "gpuform",
    version,
    about = "Declarative GPU workloads on Azure: validate, render Bicep/ARM, preflight quota, price and deploy",
    long_about = None,
    propagate_version = true
)]
pub struct Cli {
    /// When to colour output (NO_COLOR and non-terminals turn colour off under `auto`).
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check specs against the schema and the rules (files or directories of *.yaml/*.yml).
    #[command(after_help = VALIDATE_HELP)]
    Validate(validate::Args),
    /// Print a spec with every default filled in and `auto` values resolved.
    Show(show::Args),
    /// Render Bicep (main.bicep, main.bicepparam, bicepconfig.json) and ARM JSON for specs.
    #[command(after_help = RENDER_HELP)]
    Render(render::Args),
    /// Check quota, size, zones, capabilities, providers and features in Azure before deploying.
    #[command(after_help = PREFLIGHT_HELP)]
    Preflight(preflight::Args),
    /// Estimate the monthly cost of a spec's scaling policy, with saving levers and budget gates.
    #[command(after_help = COST_HELP)]
    Cost(cost::Args),
    /// Replay queue load through the rendered autoscale setting: waits, idle GPUs, cost, the lower bound; --tune.
    #[command(after_help = simulate::HELP)]
    Simulate(simulate::Args),
    /// Deploy a spec to a resource group (ARM, Incremental) with progress, or show the changes (--what-if).
    #[command(after_help = DEPLOY_HELP)]
    Deploy(deploy::Args),
    /// Measured VRAM peak per VM from an export of the GPU telemetry table, against gpuMemoryGiB, and the sizes that fit it.
    GpuReport(gpu_report::Args),
    /// Show a running pool: instances, autoscale, queue, evictions, scale actions, alerts, cost (read-only).
    #[command(after_help = status::STATUS_HELP)]
    Status(status::Args),
    /// Delete what the spec's deployments created (and nothing else in the group), in an order Azure accepts.
    #[command(after_help = destroy::DESTROY_HELP)]
    Destroy(destroy::Args),
    /// Request the quota preflight says is missing (Azure Quota API) and follow the requests.
    Quota(quota::QuotaArgs),
    /// List the GPU sizes gpuform knows, cheapest first.
    Sizes(sizes::Args),
    /// List the validation rules with their ids and default severities.
    Rules(schema::RulesArgs),
    /// Print the spec's JSON Schema (2020-12), the one editors use through the modeline.
    Schema(schema::Args),
    /// Write a commented starter spec from a few answers (asks on a terminal; flags for scripts).
    Init(init::InitArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(
        after_help = "bash: `gpuform completions bash > ~/.local/share/bash-completion/completions/gpuform`\nzsh: `gpuform completions zsh > ~/.zfunc/_gpuform` (with `fpath+=~/.zfunc` before compinit)\nfish: `gpuform completions fish > ~/.config/fish/completions/gpuform.fish`"
    )]
    Completions(man::CompletionsArgs),
    /// Print the man page (roff): gpuform(1), or gpuform-COMMAND(1) for one command.
    Man(man::ManArgs),
}

const VALIDATE_HELP: &str = concat!(
    "Exit codes: 0 clean or warnings, 1 errors (or warnings with --deny-warnings), 2 usage or I/O errors.\n\n",
    "A directory contributes every *.yaml/*.yml spec below it; YAML files without `kind: GpuWorkload` are ",
    "skipped with a line on stderr. `gpuform rules` lists the rule ids, `gpuform rules ID` explains one; a ",
    "--policy file sets required tags and rule severities (error | warning | info | off)."
);

const RENDER_HELP: &str = concat!(
    "Exit codes: 0 written or up to date, 1 the spec has errors or --check differs, 2 usage or I/O errors.\n\n",
    "-o DIR is replaced atomically and render says what it replaced; it refuses a DIR holding files it did ",
    "not write (and names them). Render each spec into its own folder (out/NAME), or several specs into one ",
    "DIR (DIR/<metadata.name>/)."
);

const COST_HELP: &str = concat!(
    "Exit codes: 0 estimate printed, 1 a --fail-above/--fail-increase-percent gate failed, 2 usage or I/O ",
    "errors or an undecided gate (prices are missing: the total is a lower bound, so the gate is shown as ",
    "undecided, JSON `passed: null`, `status: \"undecided\"`).\n\n",
    "Prices: the embedded dated table, --prices FILE (Retail Prices API JSON) or --refresh-prices (the public ",
    "API, cached; --timeout/--retries as for preflight)."
);

const DEPLOY_HELP: &str = concat!(
    "Exit codes: 0 deployed (or what-if shown), 1 the deployment failed or was rejected, preflight blocked the spec's ",
    "region, or --fail-on-delete found deletions; 2 usage or access errors (a missing resource group without ",
    "--create-resource-group, no --yes without a terminal) or you answered no (nothing was changed); 130 interrupted (a started deployment keeps running).\n\n",
    "The template sent is the one `gpuform render` writes (azuredeploy.json, byte for byte) with the parameters of ",
    "azuredeploy.parameters.json; secure parameters without a value (the Windows adminPassword) come from the ",
    "environment: GPUFORM_ADMIN_PASSWORD. The deployment name is metadata.name plus a hash of template and ",
    "parameters, so re-running the same spec re-applies the same deployment.\n\n",
    "Credentials, cloud and retries work as for `gpuform preflight` (see its --help)."
);

const PREFLIGHT_HELP: &str = concat!(
    "Exit codes: 0 the spec's region passes, 1 it is blocked, 2 usage or access errors (or a check could not be answered).\n\n",
    "--auth auto picks, in this order: AZURE_FEDERATED_TOKEN_FILE (workload identity); ACTIONS_ID_TOKEN_REQUEST_URL + ",
    "AZURE_CLIENT_ID (GitHub Actions OIDC); SYSTEM_OIDCREQUESTURI + a service connection id (Azure Pipelines); ",
    "AZURE_CLIENT_SECRET; IDENTITY_ENDPOINT (managed identity); `az` on PATH; the instance metadata service ",
    "(managed identity). It prints which one it used.\n\n",
    "Offline (no credentials): --usages/--skus take `az vm list-usage` / `az vm list-skus --all` JSON or the REST ",
    "responses; checks without data are skipped and do not block."
);

/// The full command tree (what completions and the man page describe).
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    Cli::command()
}

/// `gpuform --version`: the version, the commit and the date of the embedded price table.
fn long_version() -> String {
    use crate::COMMIT;
    use crate::catalog::prices::{PriceKind, PriceOs, PriceTable};
    let prices = PriceTable::embedded()
        .source_for(PriceOs::Linux, PriceKind::OnDemand)
        .map(|s| s.as_of.clone())
        .unwrap_or_else(|| "unknown".into());
    format!(
        "{} (commit {COMMIT}; embedded price table as of {prices})",
        env!("CARGO_PKG_VERSION")
    )
}

/// Run the CLI with the process arguments; returns the exit code.
pub fn main() -> i32 {
    use clap::FromArgMatches;
    // the version line carries the commit and the price table's date (built at run time)
    let version: &'static str = Box::leak(long_version().into_boxed_str());
    let parsed = command()
        .version(version)
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => 0,
                _ => ExitCode::Usage as i32,
            };
        }
    };
    common::set_color(cli.color);
    let result = match cli.command {
        Command::Validate(a) => validate::run(a),
        Command::Show(a) => show::run(a),
        Command::Schema(a) => schema::run(a),
        Command::Sizes(a) => sizes::run(a),
        Command::Rules(a) => schema::run_rules(a),
        Command::Preflight(a) => preflight::run(a),
        Command::Cost(a) => cost::run(a),
        Command::Render(a) => render::run(a),
        Command::Deploy(a) => deploy::run(a),
        Command::GpuReport(a) => gpu_report::run(a),
        Command::Quota(a) => quota::run(a),
        Command::Destroy(a) => destroy::run(a),
        Command::Status(a) => status::run(a),
        Command::Simulate(a) if crate::simulate::serving_command::is_serving(&a.spec) => {
            simulate_serving::run(&a)
        }
        Command::Simulate(a) => simulate::run(a),
        Command::Init(a) => init::run_init(a),
        Command::Completions(a) => man::run_completions(a, command()),
        Command::Man(a) => man::run_man(a, command()),
    };
    match result {
        Ok(code) => code as i32,
        Err(f) => {
            common::print_failure(&f);
            f.code as i32
        }
    }
}
