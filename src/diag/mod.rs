//! Diagnostics: one struct that every check produces and every output format reads
//! (human snippets, JSON, SARIF, GitHub annotations), plus the registry of rule ids.

pub mod failure;
mod human;
mod plain;
pub mod rules;
pub mod severity;

pub use human::{render_human, render_human_each};
pub use rules::{RULES, Rule};
pub use severity::Severity;

use serde::{Deserialize, Serialize};

/// A place in a source file. Lines and columns are 1-based; columns count characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    /// Byte range into the file, for snippets.
    #[serde(skip)]
    pub byte_start: usize,
    #[serde(skip)]
    pub byte_end: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    /// Stable rule id, see [`rules::RULES`].
    pub rule: String,
    pub severity: Severity,
    pub message: String,
    /// The file as the user named it.
    pub file: String,
    /// JSON pointer into the spec (`/spec/capacity/max`), when the finding is about a field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    /// Underline the pointer's key rather than its value (the finding is about the name).
    #[serde(skip)]
    pub on_key: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// Text under the underline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// How to fix it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// This finding leaves a spec later stages cannot render, price or deploy: a policy cannot
    /// switch it off or downgrade it, even when it can the rule's other findings.
    #[serde(skip)]
    pub locked: bool,
}

impl Diagnostic {
    /// A diagnostic for `rule` with the rule's default severity.
    pub fn new(rule: &str, message: impl Into<String>) -> Self {
        let severity = rules::find(rule)
            .map(|r| r.severity)
            .unwrap_or(Severity::Error);
        Self {
            rule: rule.to_string(),
            severity,
            message: clip_message(message.into()),
            file: String::new(),
            pointer: None,
            on_key: false,
            location: None,
            label: None,
            help: None,
            notes: Vec::new(),
            locked: false,
        }
    }

    pub fn at(mut self, pointer: impl Into<String>) -> Self {
        self.pointer = Some(pointer.into());
        self
    }

    /// Like [`Self::at`], but the location is the key of the pointer's entry (an unknown field,
    /// a tag name), not its value.
    pub fn at_key(mut self, pointer: impl Into<String>) -> Self {
        self.pointer = Some(pointer.into());
        self.on_key = true;
        self
    }

    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(clip_message(label.into()));
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(clip_message(help.into()));
        self
    }

    /// Mark this finding as one a policy cannot change (see [`Diagnostic::locked`]).
    pub fn locked(mut self) -> Self {
        self.locked = true;
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(clip_message(note.into()));
        self
    }

    pub fn severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Counts by severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
}

impl Tally {
    pub fn of<'a>(diags: impl IntoIterator<Item = &'a Diagnostic>) -> Self {
        let mut t = Tally::default();
        for d in diags {
            match d.severity {
                Severity::Error => t.errors += 1,
                Severity::Warning => t.warnings += 1,
                Severity::Info => t.infos += 1,
            }
        }
        t
    }
}

/// Infos held back instead of printed (`render DIR`: a platform repository's specs would print
/// hundreds of kilobytes of them), counted per directory of the specs that raised them.
#[derive(Debug, Default)]
pub struct HeldInfos {
    /// directory -> (specs seen, specs with infos, infos)
    dirs: std::sync::Mutex<std::collections::BTreeMap<String, (usize, usize, usize)>>,
}

impl HeldInfos {
    /// Count the infos of the spec at `path`.
    pub fn hold(&self, path: &std::path::Path, infos: usize) {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.display().to_string(),
            _ => ".".to_string(),
        };
        let mut dirs = self.dirs.lock().unwrap_or_else(|e| e.into_inner());
        let e = dirs.entry(dir).or_default();
        e.0 += 1;
        e.1 += usize::from(infos > 0);
        e.2 += infos;
    }

    /// One line per directory whose specs had infos, e.g. `examples: 12 infos in 4 of 6 specs`.
    pub fn summary(&self) -> Vec<String> {
        let dirs = self.dirs.lock().unwrap_or_else(|e| e.into_inner());
        dirs.iter()
            .filter(|(_, (_, _, infos))| *infos > 0)
            .map(|(dir, (specs, with, infos))| {
                format!(
                    "{dir}: {} in {with} of {} (not shown)",
                    plural(*infos, "info"),
                    plural(*specs, "spec")
                )
            })
            .collect()
    }
}

/// Plural helper for messages: `plural(2, "error")` → `"2 errors"`.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The most characters of one input value an output echoes.
pub const ECHO_MAX_CHARS: usize = 120;

/// An input value as messages echo it: at most [`ECHO_MAX_CHARS`] characters, the rest replaced
/// by `… (N bytes)`, with control characters (newlines, escapes) shown escaped so one value
/// cannot flood a log or forge lines of output. Every message that quotes user input goes
/// through this one function.
pub fn clip(s: &str) -> std::borrow::Cow<'_, str> {
    let plain = s.chars().all(|c| !c.is_control());
    if plain && s.len() <= ECHO_MAX_CHARS {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::new();
    let mut shown = 0usize;
    for (n, c) in s.chars().enumerate() {
        if n >= ECHO_MAX_CHARS {
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
        shown += c.len_utf8();
    }
    if shown < s.len() {
        out.push_str(&format!("… ({} bytes)", s.len()));
    }
    std::borrow::Cow::Owned(out)
}

/// A whole message, capped: the net under [`clip`] for messages built elsewhere (a value echoed
/// without it still cannot make a message longer than this).
pub const MESSAGE_MAX_CHARS: usize = 2000;

pub fn clip_message(s: String) -> String {
    if s.len() <= MESSAGE_MAX_CHARS {
        return s;
    }
    let mut end = MESSAGE_MAX_CHARS;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes in all)", &s[..end], s.len())
}

#[cfg(test)]
mod clip_tests {
    use super::*;

    #[test]
    fn long_values_are_clipped_and_control_characters_escaped() {
        let big = "9".repeat(200 * 1024 * 1024 / 1024);
        let c = clip(&big);
        assert!(c.chars().count() < ECHO_MAX_CHARS + 30, "{}", c.len());
        assert!(c.ends_with(&format!("… ({} bytes)", big.len())), "{c}");
        assert_eq!(clip("vm-1"), "vm-1");
        assert_eq!(clip("a\nb"), "a\\nb");
        let m = clip_message("x".repeat(10_000));
        assert!(m.len() < MESSAGE_MAX_CHARS + 40);
        assert!(m.ends_with("(10000 bytes in all)"));
        // a multi-byte character at the cut is not split
        let m = clip_message("é".repeat(3000));
        assert!(m.starts_with('é'));
    }
}
