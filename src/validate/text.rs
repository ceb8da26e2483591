//! `validate`'s text for people: per spec its findings and a status line (printed as each spec
//! is checked), `--explain`'s sizing and resolved spec, and the closing tally.

use std::fmt::Write as _;

use crate::diag::{Tally, plural, render_human_each};
use crate::report;
use crate::spec::Checked;

use super::options::Options;

/// One spec's findings, its status line (unless quiet) and `--explain`'s text.
pub(super) fn spec_text(c: &Checked, o: &Options) -> String {
    let styled = o.styled;
    let mut s = String::new();
    render_human_each(&c.diagnostics, c.source.as_deref(), styled, |shown| {
        let _ = write!(s, "{shown}\n\n");
    });
    let t = Tally::of(&c.diagnostics);
    if !o.quiet {
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
        if let Some(v) = c.vendor_line() {
            let _ = writeln!(s, "  GPU vendor: {v}");
        }
    }
    if o.explain {
        s.push_str(&explain(c));
    }
    s
}

/// The closing line: how many specs and findings (also when quiet, if there are errors).
pub(super) fn summary(specs: usize, t: &Tally, skipped: usize, o: &Options) -> String {
    let mut s = String::new();
    if !o.quiet || t.errors > 0 {
        let skipped = if skipped > 0 {
            format!(" ({} skipped: not specs)", plural(skipped, "YAML file"))
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "validated {}: {}, {}, {}{skipped}",
            plural(specs, "spec"),
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
    s.push_str(&crate::spec::explain::ranking(c));
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
