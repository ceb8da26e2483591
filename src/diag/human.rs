//! rustc-style rendering: the YAML line with the offending span underlined.

use annotate_snippets::renderer::DecorStyle;
use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

use super::{Diagnostic, Severity};

/// Render one diagnostic. `source` is the file's text when it could be read.
pub fn render_human(diag: &Diagnostic, source: Option<&str>, styled: bool) -> String {
    let level = match diag.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Info => Level::INFO,
    };
    let title = level
        .primary_title(diag.message.as_str())
        .id(diag.rule.as_str());
    let mut elements: Vec<annotate_snippets::Element<'_>> = Vec::new();
    match (source, &diag.location) {
        (Some(src), Some(loc))
            if loc.byte_end <= src.len()
                && src.is_char_boundary(loc.byte_start)
                && src.is_char_boundary(loc.byte_end) =>
        {
            let mut ann = AnnotationKind::Primary.span(loc.byte_start..loc.byte_end);
            if let Some(label) = &diag.label {
                ann = ann.label(label.as_str());
            }
            elements.push(
                Snippet::source(src)
                    .path(diag.file.as_str())
                    .fold(true)
                    .annotation(ann)
                    .into(),
            );
        }
        _ => {
            if !diag.file.is_empty() {
                elements.push(annotate_snippets::Origin::path(diag.file.as_str()).into());
            }
        }
    }
    for note in &diag.notes {
        elements.push(Level::NOTE.message(note.as_str()).into());
    }
    if let Some(help) = &diag.help {
        elements.push(Level::HELP.message(help.as_str()).into());
    }
    let group: Group = title.elements(elements);
    let renderer = if styled {
        Renderer::styled()
    } else {
        Renderer::plain()
    }
    .decor_style(DecorStyle::Ascii);
    renderer.render(&[group])
}
