//! `gpuform validate`: schema + rules on files and directories, in parallel, for people and for
//! pipelines.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::ValueEnum;

use super::common::{ExitCode, Failure, PolicyArgs, out, out_commands, say, styled};
use crate::catalog::prices::PriceTable;
use crate::diag::{Tally, plural, render_human};
use crate::report;
use crate::sizing::fmt_num;
use crate::spec::{self, Checked};

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
    // each file read and parsed once, in parallel (the test of being a spec included)
    let batch = spec::batch::check_paths(&args.paths, &policy, PriceTable::embedded())?;
    for f in &batch.skipped {
        say(&format!(
            "skipped {}: no `kind: GpuWorkload`, not a gpuform spec",
            f.display()
        ));
    }
    let (results, skipped) = (batch.results, batch.skipped.len());
    if results.is_empty() {
        return Err(Failure::usage("no gpuform specs found")
            .help("a spec is a .yaml/.yml file with `kind: GpuWorkload`"));
    }
    let tally = Tally::of(results.iter().flat_map(|c| c.diagnostics.iter()));
    match args.format {
        Format::Text => out(&human(&results, &args, skipped)),
        Format::Json => out(&report::json::render(&results)),
        Format::Markdown => out(&report::markdown::render(&results)),
        Format::Sarif => out(&report::sarif::render(&results)),
        Format::Github => out_commands(&report::github::render(&results)),
    }
    // a file that could not be read is an I/O error (exit 2), not a finding about a spec
    let unreadable = results
        .iter()
        .any(|c| c.diagnostics.iter().any(|d| d.rule == "io-error"));
    Ok(if unreadable {
        ExitCode::Usage
    } else if tally.errors > 0 || (args.deny_warnings && tally.warnings > 0) {
        ExitCode::Findings
    } else {
        ExitCode::Ok
    })
}

fn human(results: &[Checked], args: &Args, skipped: usize) -> String {
    let styled = styled();
    let mut s = String::new();
    for c in results {
        for d in &c.diagnostics {
            let _ = write!(s, "{}\n\n", render_human(d, c.source.as_deref(), styled));
        }
        let t = Tally::of(&c.diagnostics);
        if !args.quiet {
            let status = if t.errors > 0 {
                format!(
                    "{} {}",
                    paint("FAIL", anstyle::AnsiColor::Red, styled),
                    c.path
                )
            } else {
                format!(
                    "{} {}",
                    paint("ok", anstyle::AnsiColor::Green, styled),
                    c.path
                )
            };
            let mut parts = Vec::new();
            if t.errors > 0 {
                parts.push(plural(t.errors, "error"));
            }
            if t.warnings > 0 {
                parts.push(plural(t.warnings, "warning"));
            }
            if t.infos > 0 {
                parts.push(plural(t.infos, "info"));
            }
            let size = c.vm_size().map(|v| format!(" [{v}]")).unwrap_or_default();
            let _ = writeln!(
                s,
                "{status}{size}{}",
                if parts.is_empty() {
                    String::new()
                } else {
                    format!(": {}", parts.join(", "))
                }
            );
        }
        if args.explain {
            s.push_str(&explain(c));
        }
    }
    let t = Tally::of(results.iter().flat_map(|c| c.diagnostics.iter()));
    if !args.quiet || t.errors > 0 {
        let skipped = if skipped > 0 {
            format!(" ({} skipped: not specs)", plural(skipped, "YAML file"))
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "validated {}: {}, {}, {}{skipped}",
            plural(results.len(), "spec"),
            plural(t.errors, "error"),
            plural(t.warnings, "warning"),
            plural(t.infos, "info")
        );
    }
    s
}

fn paint(text: &str, color: anstyle::AnsiColor, styled: bool) -> String {
    if styled {
        let st = anstyle::Style::new().bold().fg_color(Some(color.into()));
        format!("{st}{text}{st:#}")
    } else {
        text.to_string()
    }
}

/// The sizing decision and the resolved spec, for `--explain`.
pub fn explain(c: &Checked) -> String {
    let mut s = String::new();
    let Some(spec) = &c.spec else { return s };
    if let Some(sel) = &c.sizing {
        let _ = writeln!(
            s,
            "\nsizing for {} GiB ({}), prices {} {} as of {}:",
            fmt_num(spec.spec.workload.gpu_memory_gib),
            spec.spec.workload.kind.as_str(),
            sel.price_region,
            match sel.price_os {
                crate::catalog::prices::PriceOs::Linux => "linux",
                crate::catalog::prices::PriceOs::Windows => "windows",
            },
            sel.price_as_of.as_deref().unwrap_or("unknown")
        );
        if let Some(n) = &sel.note {
            let _ = writeln!(s, "  note: {n}");
        }
        // `chosen` only when gpuform chose: an explicit size is the spec's, whatever ranks first
        let mark = |size: &str| {
            if c.auto_sized {
                if Some(size) == sel.chosen {
                    "  <- chosen"
                } else {
                    ""
                }
            } else if size == spec.spec.compute.vm_size {
                "  <- the spec's size"
            } else if Some(size) == sel.chosen {
                "  <- cheapest fit"
            } else {
                ""
            }
        };
        let mut rank = 0;
        for cand in &sel.candidates {
            let price = cand
                .hourly
                .map(|p| format!("${p:.3}/h"))
                .unwrap_or_else(|| "-".into());
            let mem = cand
                .gpu_memory_gib
                .map(|m| format!("{} GiB", fmt_num(m)))
                .unwrap_or_else(|| "?".into());
            match &cand.rejected {
                None => {
                    rank += 1;
                    let caveat = cand
                        .caveat
                        .as_deref()
                        .map(|w| format!("  warns: {w}"))
                        .into_iter()
                        .chain(cand.restricted.as_deref().map(|r| format!("  {r}")))
                        .collect::<String>();
                    let _ = writeln!(
                        s,
                        "  {rank:>2}. {:<38} {:>9} {:>11}{caveat}{}",
                        cand.size,
                        mem,
                        price,
                        mark(cand.size)
                    );
                }
                Some(why) => {
                    let _ = writeln!(
                        s,
                        "   -  {:<38} {:>9} {:>11}  rejected: {why}{}",
                        cand.size,
                        mem,
                        price,
                        mark(cand.size)
                    );
                }
            }
        }
    }
    if let Some(d) = crate::plan::Plan::build(c).ok().and_then(|p| p.devbox) {
        let _ = writeln!(s, "\n{}", d.describe());
    }
    let value = serde_json::to_value(spec).unwrap_or_default();
    let _ = writeln!(
        s,
        "\nresolved spec ({}):\n{}",
        c.path,
        report::yaml::to_yaml(&value)
    );
    s
}
