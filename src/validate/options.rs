//! How `validate` reports (the command line fills it in).

/// What validate prints on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Markdown,
    Sarif,
    Github,
}

/// How validate reports.
#[derive(Debug, Clone)]
pub struct Options {
    pub format: Format,
    /// Exit 1 on warnings too.
    pub deny_warnings: bool,
    /// Text: also the sizing and the resolved spec.
    pub explain: bool,
    /// Text: only problems.
    pub quiet: bool,
    /// Text: ANSI colours.
    pub styled: bool,
}
