//! The command line: one module per command; this file parses arguments and dispatches.
//!
//! Exit codes (stable, documented in the README): 0 success (warnings allowed), 1 findings
//! (validation errors, a blocked preflight, a failed deployment, a budget gate), 2 usage, I/O or
//! access errors.

mod common;
mod render;
mod schema;
mod show;
mod sizes;
mod validate;

use clap::{Parser, Subcommand, ValueEnum};

pub use common::{ExitCode, Failure};

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

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check specs against the schema and the rules (files or directories of *.yaml/*.yml).
    Validate(validate::Args),
    /// Print a spec with every default filled in and `auto` values resolved.
    Show(show::Args),
    /// Print the spec's JSON Schema (2020-12), the one editors use through the modeline.
    Schema(schema::Args),
    /// List the GPU sizes gpuform knows, cheapest first.
    Sizes(sizes::Args),
    /// List the validation rules with their ids and default severities.
    Rules(schema::RulesArgs),
    /// Render Bicep (main.bicep, main.bicepparam, bicepconfig.json) and ARM JSON for specs.
    Render(render::Args),
}

/// Run the CLI with the process arguments; returns the exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
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
        Command::Render(a) => render::run(a),
    };
    match result {
        Ok(code) => code as i32,
        Err(f) => {
            common::print_failure(&f);
            f.code as i32
        }
    }
}
