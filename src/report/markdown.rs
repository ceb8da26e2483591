//! `validate --output markdown`: the findings as a Markdown table for a pull request's job
//! summary (`>> "$GITHUB_STEP_SUMMARY"`), like `cost`, `preflight` and `deploy --what-if` print.

use super::FileResult;
use crate::diag::Severity;

/// A table cell: pipes escaped, line breaks as `<br>`, so a message cannot break the table.
fn cell(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace("\r\n", "<br>")
        .replace(['\n', '\r'], "<br>")
}

pub fn render<C: FileResult>(results: &[C]) -> String {
    let (mut errors, mut warnings, mut infos) = (0, 0, 0);
    let mut rows = Vec::new();
    for c in results {
        for d in c.diagnostics() {
            let icon = match d.severity {
                Severity::Error => {
                    errors += 1;
                    "❌ error"
                }
                Severity::Warning => {
                    warnings += 1;
                    "⚠️ warning"
                }
                Severity::Info => {
                    infos += 1;
                    "ℹ️ info"
                }
            };
            let at = match &d.location {
                Some(l) => format!("{}:{}:{}", d.file, l.line, l.column),
                None => d.file.clone(),
            };
            let help = d.help.as_deref().map(cell).unwrap_or_default();
            rows.push(format!(
                "| {icon} | `{}` | `{}` | {} | {help} |",
                cell(&d.rule),
                cell(&at),
                cell(&d.message)
            ));
        }
    }
    let specs = results.len();
    let mut out = format!(
        "### gpuform validate\n\n**{specs} spec{}: {errors} error{}, {warnings} warning{}, {infos} info{}**\n\n",
        if specs == 1 { "" } else { "s" },
        if errors == 1 { "" } else { "s" },
        if warnings == 1 { "" } else { "s" },
        if infos == 1 { "" } else { "s" },
    );
    for c in results {
        let size = c.vm_size().map(|s| format!(" [{s}]")).unwrap_or_default();
        let bad = c
            .diagnostics()
            .iter()
            .any(|d| d.severity == Severity::Error);
        out.push_str(&format!(
            "- {} `{}`{size}\n",
            if bad { "❌" } else { "✅" },
            cell(c.path())
        ));
    }
    if !rows.is_empty() {
        out.push_str("\n| severity | rule | where | finding | help |\n|---|---|---|---|---|\n");
        for r in rows {
            out.push_str(&r);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_cannot_break_the_table() {
        assert_eq!(cell("a|b\nc"), "a\\|b<br>c");
        assert_eq!(cell("x\r\ny"), "x<br>y");
    }
}
