//! The common finding written straight, as annotate-snippets writes it: unstyled, one
//! underlined span inside one short line of printable ASCII, messages without control
//! characters. annotate-snippets lays out every finding through its general machinery (a
//! styled buffer of cells, colour specs looked up even when unstyled, character widths): at
//! platform scale that was ~7 % of `validate`'s CPU time for ~1,250 findings (issue 41). Anything
//! outside that shape returns `None` and goes to annotate-snippets, which stays the reference: a
//! property test renders both ways and requires the same bytes.

use std::fmt::Write as _;

use super::{Diagnostic, Severity};

/// The widest gutter and source line taken (line-number digits plus the line's bytes, all
/// ASCII): annotate-snippets cuts a line when the digits, ` | ` and the line pass its width of
/// 140 columns (measured: a line of 136 bytes at line 1 is whole, 137 is cut); this stays four
/// columns inside. Labels do not make it cut (measured up to 120 columns past a 133-byte line).
const MAX_GUTTER_AND_LINE: usize = 133;

/// Longest label taken (measured to render whole up to 120 bytes).
const MAX_LABEL: usize = 100;

/// `diag` rendered as annotate-snippets renders it unstyled with ASCII decorations, when it has
/// the simple shape: `line` is the source line (without its line break) holding the span
/// `start..end` (offsets in `line`), `number` its 1-based line number.
pub(super) fn render(
    diag: &Diagnostic,
    line: &str,
    number: usize,
    start: usize,
    end: usize,
) -> Option<String> {
    let plain = |s: &str| !s.chars().any(char::is_control);
    let simple = !diag.file.is_empty()
        && plain(&diag.file)
        && plain(&diag.message)
        && plain(&diag.rule)
        && diag.notes.iter().all(|n| plain(n))
        && diag.help.as_deref().is_none_or(plain)
        && diag
            .label
            .as_deref()
            .is_none_or(|l| plain(l) && !l.trim().is_empty() && l.len() <= MAX_LABEL)
        && !line.is_empty()
        && number.to_string().len() + line.len() <= MAX_GUTTER_AND_LINE
        && line.bytes().all(|b| b.is_ascii_graphic() || b == b' ')
        && !line.ends_with(' ')
        && start < end
        && end <= line.len()
        && line.as_bytes()[start..end].iter().any(|b| *b != b' ');
    if !simple {
        return None;
    }
    let level = match diag.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    };
    let number_text = number.to_string();
    let pad = " ".repeat(number_text.len());
    let mut s = String::with_capacity(
        256 + diag.message.len()
            + line.len() * 2
            + diag.notes.iter().map(String::len).sum::<usize>()
            + diag.help.as_deref().map_or(0, str::len),
    );
    let _ = write!(
        s,
        "{level}[{}]: {}\n{pad}--> {}:{number}:{}\n{pad} |\n{number_text} | {line}\n{pad} | {}{}",
        diag.rule,
        diag.message,
        diag.file,
        start + 1,
        " ".repeat(start),
        "^".repeat(end - start),
    );
    if let Some(label) = &diag.label {
        let _ = write!(s, " {label}");
    }
    if !diag.notes.is_empty() || diag.help.is_some() {
        let _ = write!(s, "\n{pad} |");
        for note in &diag.notes {
            let _ = write!(s, "\n{pad} = note: {note}");
        }
        if let Some(help) = &diag.help {
            let _ = write!(s, "\n{pad} = help: {help}");
        }
    }
    Some(s)
}
