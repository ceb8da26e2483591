//! Output a CI runner cannot take for a command (issue 39, item 4).
//!
//! CI runners read every line a step prints, on stdout and stderr, and execute some as
//! commands: the GitHub Actions runner a line that starts with `::` once leading white space is
//! trimmed (`::error file=…::…`, `::add-mask::`, `::stop-commands::`), and the older `##[…]`
//! anywhere in a line; the Azure Pipelines agent `##vso[…]` (and `##[…]`) anywhere in a line. A
//! runner splits lines at `\n` and at a lone `\r`. gpuform echoes spec values (a size name, a
//! region key, a tag) into its messages; a value holding a line break and `::error …`, or
//! `##vso[task.setvariable …]`, would otherwise speak to the runner with gpuform's voice.
//!
//! Every output of gpuform goes through one of these before it is printed:
//! - [`text`] for people (text, Markdown): a line whose first non-blank characters are `::`
//!   gets a `\` before them, and `##vso[` / `##[` get one before their `[`; nothing else changes;
//! - [`json`] for JSON and SARIF documents: `#` in `##vso[` / `##[` written `\u0023`, which reads
//!   back as the same string (a JSON line cannot start with `::`);
//! - [`command_data`] for the data and properties of gpuform's own workflow commands
//!   (`--output github`), with the runner's own escapes for `%`, CR and LF applied after it.
//!
//! The docs-ci engineer's GitHub Action, and anything else that prints what users wrote into a
//! CI log, should use [`text`] (or [`command_data`] inside a workflow command).

use std::borrow::Cow;

/// The sequences a runner looks for anywhere in a line (compared without case).
const ANYWHERE: [&str; 2] = ["##vso[", "##["];

fn has_anywhere(s: &str) -> bool {
    // every sequence starts with `##`: only the places of a `#` are compared (without case), not
    // a lower-cased copy of the whole text (`validate` prints ~1 MB for a thousand specs)
    let b = s.as_bytes();
    memchr::memchr_iter(b'#', b).any(|i| {
        ANYWHERE
            .iter()
            .any(|p| b.len() - i >= p.len() && b[i..i + p.len()].eq_ignore_ascii_case(p.as_bytes()))
    })
}

/// `s` with `##vso[` / `##[` (any case) broken by `mark` inserted where the runner would match.
fn break_anywhere(s: &str, json: bool) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        let hit = ANYWHERE.iter().find(|p| {
            rest.len() >= p.len() && rest.as_bytes()[..p.len()].eq_ignore_ascii_case(p.as_bytes())
        });
        match hit {
            Some(p) if json => {
                // the first `#` as a JSON escape: the string reads back the same
                out.push_str("\\u0023");
                out.push_str(&rest[1..p.len()]);
                i += p.len();
            }
            Some(p) => {
                out.push_str(&rest[..p.len() - 1]);
                out.push('\\');
                out.push('[');
                i += p.len();
            }
            None => {
                let ch = rest.chars().next().unwrap_or('\0');
                out.push(ch);
                i += ch.len_utf8().max(1);
            }
        }
    }
    out
}

/// Text for people (see the module comment).
pub fn text(s: &str) -> Cow<'_, str> {
    // lines are split and trimmed only when `::` occurs at all
    let line_start_cmd = memchr::memmem::find(s.as_bytes(), b"::").is_some()
        && s.split(['\n', '\r'])
            .any(|l| l.trim_start().starts_with("::"));
    if !line_start_cmd && !has_anywhere(s) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut rest = s;
    loop {
        let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
        let line = &rest[..end];
        let body = line.trim_start();
        let lead = &line[..line.len() - body.len()];
        out.push_str(lead);
        if body.starts_with("::") {
            out.push('\\');
        }
        out.push_str(&break_anywhere(body, false));
        if end == rest.len() {
            break;
        }
        let sep = rest[end..].chars().next().unwrap_or('\n');
        out.push(sep);
        rest = &rest[end + sep.len_utf8()..];
    }
    Cow::Owned(out)
}

/// A JSON document (JSON, SARIF): `##vso[` / `##[` inside its strings written with `\u0023`.
/// Only valid on serialised JSON (outside strings `#` cannot occur).
pub fn json(s: &str) -> Cow<'_, str> {
    if has_anywhere(s) {
        Cow::Owned(break_anywhere(s, true))
    } else {
        Cow::Borrowed(s)
    }
}

/// A value inside one of gpuform's workflow commands (its data, or a property): no line
/// breaks survive the runner's own escapes applied after this, so only the sequences found
/// anywhere in a line matter here.
pub fn command_data(s: &str) -> Cow<'_, str> {
    if has_anywhere(s) {
        Cow::Owned(break_anywhere(s, false))
    } else {
        Cow::Borrowed(s)
    }
}

/// A whole output: [`json`] when it is one JSON document, else [`text`].
pub fn auto(s: &str) -> Cow<'_, str> {
    let t = s.trim_start();
    let is_json = (t.starts_with('{') || t.starts_with('['))
        && serde_json::from_str::<serde::de::IgnoredAny>(s).is_ok();
    if is_json { json(s) } else { text(s) }
}

/// Whether `line` would be taken by a runner for a command: starts with `::` after blanks, or
/// holds `##vso[` / `##[` anywhere. (Tests use it on gpuform's output.)
pub fn is_runner_command(line: &str) -> bool {
    line.trim_start().starts_with("::") || has_anywhere(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_that_would_be_commands_are_broken_and_nothing_else_changes() {
        let plain = "error[x]: alternate size `a` is not known\n  --> s.yaml:1:2\n";
        assert!(matches!(text(plain), Cow::Borrowed(_)));
        let evil = "size `X\n   ::error file=ci.yml::pwned`\r::warning::x\n a ##vso[task.setvariable variable=a]b ##VSO[x] ##[error]y";
        let t = text(evil);
        assert_eq!(
            t,
            "size `X\n   \\::error file=ci.yml::pwned`\r\\::warning::x\n a ##vso\\[task.setvariable variable=a]b ##VSO\\[x] ##\\[error]y"
        );
        for l in t.split(['\n', '\r']) {
            assert!(!is_runner_command(l), "{l}");
        }
        // `::` inside a line is not a command
        assert!(matches!(text("a::b"), Cow::Borrowed(_)));
    }

    proptest::proptest! {
        /// The scan for `##vso[` / `##[` at the places of `#` finds them as a search of the
        /// lower-cased text does (any case, runs of `#`, multi-byte text around them), and the
        /// text is changed exactly when a line starts with `::` or holds one of them.
        #[test]
        fn the_scans_find_what_the_plain_searches_find(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::string::string_regex("[#vVsSoO\\[: \n\r\té]{0,8}").unwrap(),
                    proptest::string::string_regex("[a-z ]{0,6}").unwrap(),
                    proptest::prelude::Just("##VsO[".to_string()),
                    proptest::prelude::Just("\n  ::".to_string()),
                ],
                0..10,
            )
        ) {
            let s: String = parts.concat();
            let lower = s.to_ascii_lowercase();
            let reference = ANYWHERE.iter().any(|p| lower.contains(p));
            proptest::prop_assert_eq!(has_anywhere(&s), reference);
            let line_start = s.split(['\n', '\r']).any(|l| l.trim_start().starts_with("::"));
            proptest::prop_assert_eq!(
                matches!(text(&s), Cow::Owned(_)),
                line_start || reference,
                "{:?}", s
            );
        }
    }

    #[test]
    fn json_reads_back_the_same() {
        let v = serde_json::json!({"m": "a ##vso[task.complete result=Failed]x ##[error]e", "k": "::error::x\n::y"});
        let s = serde_json::to_string_pretty(&v).unwrap();
        let j = json(&s);
        for l in j.lines() {
            assert!(!is_runner_command(l), "{l}");
        }
        let back: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(back, v);
        assert_eq!(command_data("x ##vso[y]"), "x ##vso\\[y]");
    }
}

/// `eprintln!` through [`text`]: a message on stderr that no CI runner takes for a command,
/// whatever it echoes (a path, an answer from Azure). For modules below `cli` (whose `say` does
/// the same).
#[macro_export]
macro_rules! ci_eprintln {
    () => { eprintln!() };
    ($($t:tt)*) => { eprintln!("{}", $crate::report::ci::text(&format!($($t)*))) };
}

/// `eprint!` through [`text`] (see [`ci_eprintln!`]).
#[macro_export]
macro_rules! ci_eprint {
    ($($t:tt)*) => { eprint!("{}", $crate::report::ci::text(&format!($($t)*))) };
}
