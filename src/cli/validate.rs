//! `gpuform validate`: schema + rules on files and directories, in parallel, for people and for
//! pipelines.

use std::path::PathBuf;

use clap::ValueEnum;

use super::common::{ExitCode, Failure, PolicyArgs, out, out_commands, styled};
use crate::catalog::prices::PriceTable;
use crate::validate;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Spec files or directories (every *.yaml / *.yml spec below them).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Output: text for people, JSON, Markdown ($GITHUB_STEP_SUMMARY), SARIF 2.1.0 (code scanning), or GitHub annotations.
    #[arg(long = "output", alias = "format", value_name = "FORMAT", value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Exit 1 on warnings too.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Also print the resolved spec and why `vmSize: auto` chose its size (text output).
    #[arg(long)]
    pub explain: bool,
    /// Print only problems (no per-file summary lines).
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    #[value(aliases = ["human", "table"])]
    Text,
    Json,
    Markdown,
    Sarif,
    Github,
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let policy = args.policy.load()?;
    let options = validate::Options {
        format: match args.format {
            Format::Text => validate::Format::Text,
            Format::Json => validate::Format::Json,
            Format::Markdown => validate::Format::Markdown,
            Format::Sarif => validate::Format::Sarif,
            Format::Github => validate::Format::Github,
        },
        deny_warnings: args.deny_warnings,
        explain: args.explain,
        quiet: args.quiet,
        styled: styled(),
    };
    // each file read and parsed once, checked in parallel, reported as it is checked; every
    // format but GitHub's own workflow commands (whose values it escapes) is escaped for CI logs
    let github = args.format == Format::Github;
    validate::run(
        &args.paths,
        &policy,
        PriceTable::embedded(),
        &options,
        &mut |text| {
            if github {
                out_commands(text)
            } else {
                out(text)
            }
        },
    )
}
