//! `--format github`: workflow commands that GitHub Actions turns into annotations on the
//! pull request's diff.

use super::FileResult;
use crate::diag::Severity;

/// Escape a message for a workflow command (`%`, CR and LF), with what the runners find anywhere
/// in a line broken first ([`super::ci::command_data`]).
pub(crate) fn escape_data(s: &str) -> String {
    super::ci::command_data(s)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a property value (also `:` and `,`).
pub(crate) fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

pub fn render<C: FileResult>(results: &[C]) -> String {
    let mut out = String::new();
    for c in results {
        for d in c.diagnostics() {
            let cmd = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "notice",
            };
            let mut props = vec![format!("file={}", escape_property(&d.file))];
            if let Some(l) = &d.location {
                props.push(format!("line={}", l.line));
                props.push(format!("col={}", l.column));
                props.push(format!("endLine={}", l.end_line));
                props.push(format!("endColumn={}", l.end_column));
            }
            props.push(format!(
                "title={}",
                escape_property(&format!("gpuform {}", d.rule))
            ));
            let mut msg = d.message.clone();
            if let Some(h) = &d.help {
                msg.push_str("\nhelp: ");
                msg.push_str(h);
            }
            out.push_str(&format!(
                "::{cmd} {}::{}\n",
                props.join(","),
                escape_data(&msg)
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(escape_data("50% a\nb"), "50%25 a%0Ab");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }
}
