//! `gpuform validate`'s work: check files and directories of specs in parallel and report them
//! as they are checked. Text goes out spec by spec; the machine formats (JSON, Markdown, SARIF,
//! GitHub annotations) are one document each, so they keep each spec's path, size and findings
//! only ([`Outcome`]), never the checked spec with its source and sizing. Memory stays that of a
//! slice of specs in flight plus the findings, whatever the number of specs.

mod options;
mod text;

use std::path::PathBuf;

use crate::catalog::prices::PriceTable;
use crate::check::batch::{Found, check_paths_map};
use crate::diag::failure::{ExitCode, Failure};
use crate::diag::{Diagnostic, Tally};
use crate::report::{self, FileResult};
use crate::spec::Policy;

pub use options::{Format, Options};
pub use text::explain;

/// What a machine format needs of a checked spec.
#[derive(Debug)]
pub struct Outcome {
    pub path: String,
    pub vm_size: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
    /// Which GPU vendor `vmSize: auto` chose and why.
    pub gpu_vendor: Option<String>,
}

impl FileResult for Outcome {
    fn path(&self) -> &str {
        &self.path
    }
    fn vm_size(&self) -> Option<&str> {
        self.vm_size.as_deref()
    }
    fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }
    fn gpu_vendor(&self) -> Option<String> {
        self.gpu_vendor.clone()
    }
}

/// One spec's part of the report: its text, or what a machine format keeps of it.
enum Shown {
    Text(String),
    Outcome(Outcome),
}

/// Validate the specs `paths` names (files, and the specs below directories) and print the
/// report through `out` (text: a piece per spec as it is checked; the other formats: one
/// document at the end). Skipped YAML files are named on stderr. The exit code: 2 when a file
/// could not be read, 1 on errors (or warnings with `deny_warnings`), else 0.
pub fn run(
    paths: &[PathBuf],
    policy: &Policy,
    prices: &PriceTable,
    o: &Options,
    out: &mut dyn FnMut(&str),
) -> Result<ExitCode, Failure> {
    let mut outcomes = Vec::new();
    let (mut specs, mut skipped) = (0usize, 0usize);
    let mut tally = Tally::default();
    let mut unreadable = false;
    // each spec's report is made on the thread that checked it (in parallel), and handed over
    // in the order of the input
    let report = |c: crate::spec::Checked| {
        let t = Tally::of(&c.diagnostics);
        // a file that could not be read is an I/O error (exit 2), not a finding about a spec
        let unreadable = c.diagnostics.iter().any(|d| d.rule == "io-error");
        let shown = if o.format == Format::Text {
            Shown::Text(text::spec_text(&c, o))
        } else {
            Shown::Outcome(Outcome {
                vm_size: c.vm_size().map(str::to_string),
                gpu_vendor: c.vendor_line(),
                path: c.path,
                diagnostics: c.diagnostics,
            })
        };
        (t, unreadable, shown)
    };
    check_paths_map(paths, policy, prices, report, |found| match found {
        Found::NotSpec(f) => {
            skipped += 1;
            crate::ci_eprintln!(
                "skipped {}: no `kind: GpuWorkload`, not a gpuform spec",
                f.display()
            );
        }
        Found::Spec((t, io_error, shown)) => {
            specs += 1;
            tally.errors += t.errors;
            tally.warnings += t.warnings;
            tally.infos += t.infos;
            unreadable |= io_error;
            match shown {
                Shown::Text(s) => out(&s),
                Shown::Outcome(outcome) => outcomes.push(outcome),
            }
        }
    })?;
    if specs == 0 {
        return Err(Failure::usage("no gpuform specs found")
            .help("a spec is a .yaml/.yml file with `kind: GpuWorkload`"));
    }
    out(&match o.format {
        Format::Text => text::summary(specs, &tally, skipped, o),
        Format::Json => report::json::render(&outcomes),
        Format::Markdown => report::markdown::render(&outcomes),
        Format::Sarif => report::sarif::render(&outcomes),
        Format::Github => report::github::render(&outcomes),
    });
    Ok(if unreadable {
        ExitCode::Usage
    } else if tally.errors > 0 || (o.deny_warnings && tally.warnings > 0) {
        ExitCode::Findings
    } else {
        ExitCode::Ok
    })
}
