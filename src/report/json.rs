//! `--format json`: one document for all files, stable field order.

use serde::Serialize;

use super::FileResult;
use crate::diag::{Diagnostic, Tally};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Report<'a> {
    tool: &'static str,
    files: Vec<FileReport<'a>>,
    summary: Summary,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FileReport<'a> {
    path: &'a str,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    vm_size: Option<&'a str>,
    /// Which GPU vendor `vmSize: auto` chose and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu_vendor: Option<String>,
    diagnostics: &'a [Diagnostic],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Summary {
    files: usize,
    errors: usize,
    warnings: usize,
    infos: usize,
}

pub fn render<C: FileResult>(results: &[C]) -> String {
    let tally = Tally::of(results.iter().flat_map(|c| c.diagnostics().iter()));
    let report = Report {
        tool: crate::USER_AGENT,
        files: results
            .iter()
            .map(|c| {
                let t = Tally::of(c.diagnostics());
                FileReport {
                    path: c.path(),
                    status: if t.errors > 0 {
                        "error"
                    } else if t.warnings > 0 {
                        "warning"
                    } else {
                        "ok"
                    },
                    vm_size: c.vm_size(),
                    gpu_vendor: c.gpu_vendor(),
                    diagnostics: c.diagnostics(),
                }
            })
            .collect(),
        summary: Summary {
            files: results.len(),
            errors: tally.errors,
            warnings: tally.warnings,
            infos: tally.infos,
        },
    };
    let mut s = serde_json::to_string_pretty(&report).expect("report serialises");
    s.push('\n');
    s
}
