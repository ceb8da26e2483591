//! `gpuform schema` and `gpuform rules`.

use std::fmt::Write as _;

use clap::ValueEnum;
use serde_json::json;

use super::common::{ExitCode, Failure, out};
use crate::diag::RULES;
use crate::spec::schema::SCHEMA_TEXT;

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_: Args) -> Result<ExitCode, Failure> {
    out(SCHEMA_TEXT);
    Ok(ExitCode::Ok)
}

#[derive(Debug, clap::Args)]
pub struct RulesArgs {
    #[arg(long, value_enum, default_value_t = RulesFormat::Table)]
    pub format: RulesFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    Table,
    Json,
}

pub fn run_rules(args: RulesArgs) -> Result<ExitCode, Failure> {
    match args.format {
        RulesFormat::Json => {
            let v: Vec<_> = RULES
                .iter()
                .map(|r| json!({"id": r.id, "severity": r.severity, "category": r.category, "summary": r.summary, "description": r.description}))
                .collect();
            out(&format!(
                "{}\n",
                serde_json::to_string_pretty(&v).expect("json")
            ));
        }
        RulesFormat::Table => {
            let mut s = String::new();
            let _ = writeln!(
                s,
                "{:<32} {:<8} {:<11} summary",
                "rule", "severity", "category"
            );
            for r in RULES {
                let _ = writeln!(
                    s,
                    "{:<32} {:<8} {:<11} {}",
                    r.id,
                    r.severity.as_str(),
                    r.category,
                    r.summary
                );
            }
            out(&s);
        }
    }
    Ok(ExitCode::Ok)
}
