//! The common finding written straight, as annotate-snippets writes it: unstyled, one
//! underlined span inside one line of printable ASCII (cut as annotate-snippets cuts a long or
//! deeply indented line), messages without control
//! characters. annotate-snippets lays out every finding through its general machinery (a
//! styled buffer of cells, colour specs looked up even when unstyled, character widths): at
//! platform scale that was ~7 % of `validate`'s CPU time for ~1,250 findings (issue 41). Anything
//! outside that shape returns `None` and goes to annotate-snippets, which stays the reference: a
//! property test renders both ways and requires the same bytes.

use std::fmt::Write as _;

use super::{Diagnostic, Severity};

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
        && line.bytes().all(|b| b.is_ascii_graphic() || b == b' ')
        && !line.ends_with(' ')
        && start < end
        && end <= line.len()
        && line.as_bytes()[start..end].iter().any(|b| *b != b' ');
    if !simple {
        return None;
    }
    let number_text = number.to_string();
    // the part of the line shown: all of it, or the window annotate-snippets cuts from a long or
    // deeply indented line (its `...` at either end written over the first or last three
    // characters shown), and the column it starts at
    let (shown, left) = window(line, number_text.len(), start, end, diag.label.as_deref())?;
    let level = match diag.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    };
    let pad = " ".repeat(number_text.len());
    let mut s = String::with_capacity(
        256 + diag.message.len()
            + line.len() * 2
            + diag.notes.iter().map(String::len).sum::<usize>()
            + diag.help.as_deref().map_or(0, str::len),
    );
    let _ = write!(
        s,
        "{level}[{}]: {}\n{pad}--> {}:{number}:{}\n{pad} |\n{number_text} | {shown}\n{pad} | {}{}",
        diag.rule,
        diag.message,
        diag.file,
        start + 1,
        " ".repeat(start - left),
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

/// Spaces at the start of `line`.
fn leading_spaces(line: &str) -> usize {
    line.bytes().take_while(|b| *b == b' ').count()
}

/// The part of a source line annotate-snippets shows (the line itself when it cuts nothing) and
/// the column it starts at: its window on one line of printable ASCII (so a column is a byte)
/// with one underline `start..end` and its label (annotate-snippets 0.12.18, the version
/// Cargo.lock holds: `renderer/margin.rs` and `draw_line` in `renderer/graphics.rs`, from rustc's
/// emitter; its default width of 140 columns, its ASCII `...`). It cuts a line indented past 26
/// columns, or too wide for the 140 beside the gutter. `None` where the cut would reach the
/// underline or its label, left to annotate-snippets itself. The property test in `diag::human`
/// compares the two.
fn window<'a>(
    line: &'a str,
    digits: usize,
    start: usize,
    end: usize,
    label: Option<&str>,
) -> Option<(std::borrow::Cow<'a, str>, usize)> {
    const TERM_WIDTH: usize = 140;
    const ELLIPSIS_PASSING: usize = 6;
    const LONG_WHITESPACE: usize = 20;
    const LONG_WHITESPACE_PADDING: usize = 4;
    const ELLIPSIS: &str = "...";
    let len = line.len();
    let width = TERM_WIDTH.checked_sub(3 + digits)?;
    let label_right = end + label.map_or(0, |l| l.len() + 1);
    let whitespace_left = leading_spaces(line)
        .min(start)
        .saturating_sub(ELLIPSIS_PASSING);
    let span_left = start.saturating_sub(ELLIPSIS_PASSING);
    let span_right = end + ELLIPSIS_PASSING;
    let label_right = label_right + ELLIPSIS_PASSING;
    let mut computed_left = if whitespace_left > LONG_WHITESPACE {
        whitespace_left - (LONG_WHITESPACE - LONG_WHITESPACE_PADDING)
    } else {
        0
    };
    let mut computed_right = len.max(computed_left);
    if computed_right - computed_left > width {
        if label_right.saturating_sub(whitespace_left) <= width && label_right >= whitespace_left {
            computed_left = whitespace_left;
            computed_right = computed_left + width;
        } else if label_right - span_left <= width {
            let padding_left = (width - (label_right - span_left)) / 2;
            computed_left = span_left.saturating_sub(padding_left);
            computed_right = computed_left + width;
        } else if span_right - span_left <= width {
            let padding_left = (width - (span_right - span_left)) / 5 * 2;
            computed_left = span_left.saturating_sub(padding_left);
            computed_right = computed_left + width;
        } else {
            computed_left = span_left;
            computed_right = span_right;
        }
    }
    let left = computed_left.min(len);
    let right = if len.saturating_sub(computed_left) <= width {
        len
    } else {
        len.min(computed_right)
    };
    let cut_left = computed_left > 0;
    let cut_right = len > right;
    if !cut_left && !cut_right {
        return Some((std::borrow::Cow::Borrowed(line), 0));
    }
    // the cuts stay clear of the underline, and the label ends where the line shown ends
    if right < left + 2 * ELLIPSIS.len()
        || (cut_left && start < left + ELLIPSIS.len())
        || (cut_right && (end > right - ELLIPSIS.len() || label.is_some()))
    {
        return None;
    }
    let mut shown = line[left..right].to_string();
    if cut_left {
        shown.replace_range(..ELLIPSIS.len(), ELLIPSIS);
    }
    if cut_right {
        let at = shown.len() - ELLIPSIS.len();
        shown.replace_range(at.., ELLIPSIS);
    }
    Some((std::borrow::Cow::Owned(shown), left))
}
