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
    small_pages();
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
    // the texts of one slice of parallel work are written together (they are ready together):
    // one write per slice, not one per spec; a skipped file's line on stderr still comes in its
    // place (what is pending for stdout is written first)
    let pending = std::cell::RefCell::new(Pending {
        text: String::new(),
        out,
    });
    let each = |found: Found<(Tally, bool, Shown)>| match found {
        Found::NotSpec(f) => {
            pending.borrow_mut().flush();
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
                Shown::Text(s) => pending.borrow_mut().text.push_str(&s),
                Shown::Outcome(outcome) => outcomes.push(outcome),
            }
        }
    };
    check_paths_map(paths, policy, prices, report, each, || {
        pending.borrow_mut().flush()
    })?;
    let out = pending.into_inner().out;
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

/// Report text not yet written, and where it goes.
struct Pending<'o> {
    text: String,
    out: &'o mut dyn FnMut(&str),
}

impl Pending<'_> {
    fn flush(&mut self) {
        if !self.text.is_empty() {
            (self.out)(&self.text);
            self.text.clear();
        }
    }
}

/// Ask the kernel for no transparent huge pages for this process from here on. mimalloc advises
/// huge pages for its arena (`MADV_HUGEPAGE`), so the first touch of each 2 MiB of it zeroes all
/// of it; `validate` touches a few MB scattered over three threads' heaps, and that zeroing was
/// about a fifth of the CPU time of validating one spec (10 -> 8 ms) and 3-10 % of the samples of
/// a thousand (`perf record`, issue 41). With small pages the kernel zeroes only what is
/// touched. The output does not change; where the call is refused (an old kernel, another
/// system) nothing changes at all.
fn small_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes plain integers and touches no memory of the process; its
    // result is ignored on purpose (refused: huge pages stay, which is only slower)
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// A validate run leaves its process without transparent huge pages, as the kernel reports
    /// it (`THP_enabled` in /proc/self/status, Linux 5.0+), and its report is the usual one.
    #[test]
    fn validate_runs_on_small_pages() {
        let before = std::fs::read_to_string("/proc/self/status").unwrap();
        if !before.lines().any(|l| l.starts_with("THP_enabled:")) {
            eprintln!("skipped: this kernel does not report THP_enabled");
            return;
        }
        let o = Options {
            format: Format::Text,
            deny_warnings: false,
            explain: false,
            quiet: false,
            styled: false,
        };
        let mut text = String::new();
        let code = run(
            &[PathBuf::from("examples/shortvideo-transcode.yaml")],
            &Policy::default(),
            PriceTable::embedded(),
            &o,
            &mut |s| text.push_str(s),
        )
        .unwrap();
        assert_eq!(code, ExitCode::Ok, "{text}");
        assert!(text.contains("shortvideo-transcode.yaml"), "{text}");
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let thp: Vec<&str> = status
            .lines()
            .find(|l| l.starts_with("THP_enabled:"))
            .unwrap()
            .split_whitespace()
            .collect();
        assert_eq!(thp, ["THP_enabled:", "0"]);
    }
}
