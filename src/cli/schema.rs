//! `gpuform schema` and `gpuform rules`.

use std::fmt::Write as _;

use clap::ValueEnum;
use serde_json::json;

use super::common::{ExitCode, Failure, out};
use crate::diag::RULES;
use crate::spec::schema::SCHEMA_TEXT;

#[derive(Debug, clap::Args)]
pub struct Args {}

/// `gpuform rules ID`: one rule in full.
fn run_rule(id: &str, format: RulesFormat) -> Result<ExitCode, Failure> {
    let Some(r) = crate::diag::rules::find(id.trim()) else {
        let hint = crate::spec::schema::suggest(id, RULES.iter().map(|r| r.id))
            .map(|s| format!("did you mean `{s}`? "))
            .unwrap_or_default();
        return Err(Failure::usage(format!("`{id}` is not a rule id"))
            .help(format!("{hint}`gpuform rules` lists them all")));
    };
    let overridable = r.overridable();
    match format {
        RulesFormat::Json => out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&json!({
                "id": r.id, "severity": r.severity, "category": r.category,
                "summary": r.summary, "description": r.description,
                "overridable": overridable,
            }))
            .expect("json")
        )),
        RulesFormat::Text => {
            let mut s = String::new();
            let _ = writeln!(s, "{}: {}", r.id, r.summary);
            let _ = writeln!(s, "  severity: {} (default)", r.severity.as_str());
            let _ = writeln!(s, "  category: {}", r.category);
            let _ = writeln!(s);
            let _ = writeln!(s, "  {}", r.description);
            let _ = writeln!(s);
            if overridable {
                let _ = writeln!(
                    s,
                    "  A policy file (--policy) can change its severity or switch it off:\n    rules:\n      {}: error   # error | warning | info | off",
                    r.id
                );
            } else {
                let _ = writeln!(
                    s,
                    "  A policy cannot override it: later stages depend on it passing."
                );
            }
            out(&s);
        }
    }
    Ok(ExitCode::Ok)
}

pub fn run(_: Args) -> Result<ExitCode, Failure> {
    out(SCHEMA_TEXT);
    Ok(ExitCode::Ok)
}

#[derive(Debug, clap::Args)]
pub struct RulesArgs {
    /// Show this one rule in full (what it checks, why, its severity and how to override it).
    #[arg(value_name = "ID")]
    pub id: Option<String>,
    /// Output: a table for people, or JSON.
    #[arg(long = "output", alias = "format", value_name = "FORMAT", value_enum, default_value_t = RulesFormat::Text)]
    pub format: RulesFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    #[value(aliases = ["human", "table"])]
    Text,
    Json,
}

pub fn run_rules(args: RulesArgs) -> Result<ExitCode, Failure> {
    if let Some(id) = &args.id {
        return run_rule(id, args.format);
    }
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
        RulesFormat::Text => {
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
