//! rustc-style rendering: the YAML line with the offending span underlined.

use annotate_snippets::renderer::DecorStyle;
use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

use super::{Diagnostic, Severity};

/// The source as snippets show it: secret material masked with `*`, byte for byte, so every
/// location still points at the same place. Masked: the body of a PEM private key (between
/// `-----BEGIN … PRIVATE KEY-----` and `-----END`, or, without an END, the rest of that line and
/// the base64 lines after it), and the values of `AccountKey=`, `SharedAccessKey=`, `sig=`,
/// `password=` / `Password=` and `client_secret=` in connection strings and SAS URLs. JSON and
/// SARIF output never carry the source; the human output must not either.
pub fn redact_secrets(src: &str) -> std::borrow::Cow<'_, str> {
    // memmem (SIMD) rather than `str::find`: this runs over the whole file for every finding
    // shown (issue 41)
    let find = |from: usize, needle: &str| {
        memchr::memmem::find(&src.as_bytes()[from..], needle.as_bytes())
    };
    let mut mask: Vec<(usize, usize)> = Vec::new();
    // PEM private keys
    let mut from = 0;
    while let Some(i) = find(from, "PRIVATE KEY-----") {
        let body = from + i + "PRIVATE KEY-----".len();
        let end = match find(body, "-----END") {
            Some(j) => body + j,
            None => {
                // the rest of the line, then lines of base64 (after indentation)
                let mut e = src[body..].find('\n').map_or(src.len(), |j| body + j);
                while e < src.len() {
                    let next = src[e + 1..].find('\n').map_or(src.len(), |j| e + 1 + j);
                    let line = src[e + 1..next].trim();
                    if line.len() >= 16
                        && line
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
                    {
                        e = next;
                    } else {
                        break;
                    }
                }
                e
            }
        };
        mask.push((body, end));
        from = end.max(body);
        if from >= src.len() {
            break;
        }
    }
    // key=value secrets in connection strings and URLs
    for key in [
        "AccountKey=",
        "SharedAccessKey=",
        "sig=",
        "password=",
        "Password=",
        "client_secret=",
    ] {
        let mut from = 0;
        while let Some(i) = find(from, key) {
            let start = from + i + key.len();
            let end = src[start..]
                .find(|c: char| c == ';' || c == '&' || c == '"' || c == '\'' || c.is_whitespace())
                .map_or(src.len(), |j| start + j);
            mask.push((start, end));
            from = end.max(start);
        }
    }
    if mask.iter().all(|(a, b)| a >= b) {
        return std::borrow::Cow::Borrowed(src);
    }
    let mut bytes = src.as_bytes().to_vec();
    for (a, b) in mask {
        for (k, byte) in bytes[a..b].iter_mut().enumerate() {
            // keep line structure (and the escapes a quoted string writes for it)
            let keep = matches!(*byte, b'\n' | b'\r' | b' ' | b'\t' | b'\\')
                || (k > 0 && src.as_bytes()[a + k - 1] == b'\\' && *byte == b'n');
            if !keep {
                *byte = b'*';
            }
        }
    }
    // every byte replaced was part of whole characters replaced by as many ASCII bytes
    std::borrow::Cow::Owned(
        String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    )
}

/// The line of `src` that holds `start..end` (a span within one non-empty line): its byte range
/// and 1-based number. `None` (render the whole source) for anything else: a span past the
/// end, across lines or on an empty line, and text with carriage returns (whose line breaks
/// the renderer may count otherwise).
fn one_line(src: &str, start: usize, end: usize) -> Option<(usize, usize, usize)> {
    // memchr (SIMD): this runs over the file for every finding shown (issue 41)
    let b = src.as_bytes();
    if start >= src.len() || end < start || memchr::memchr(b'\r', b).is_some() {
        return None;
    }
    let from = memchr::memrchr(b'\n', &b[..start]).map_or(0, |i| i + 1);
    let to = memchr::memchr(b'\n', &b[start..]).map_or(src.len(), |i| start + i);
    if end > to || from == to {
        return None;
    }
    let line = 1 + memchr::memchr_iter(b'\n', &b[..from]).count();
    Some((from, to, line))
}

/// Render one diagnostic. `source` is the file's text when it could be read.
pub fn render_human(diag: &Diagnostic, source: Option<&str>, styled: bool) -> String {
    render(diag, source.map(redact_secrets).as_deref(), styled, true)
}

/// Render every diagnostic of one file to `each`, as [`render_human`] renders each: the
/// source's secrets are masked once for all of them, not once per finding (the masking reads
/// the whole file).
pub fn render_human_each(
    diags: &[Diagnostic],
    source: Option<&str>,
    styled: bool,
    mut each: impl FnMut(String),
) {
    let redacted = source.map(redact_secrets);
    for d in diags {
        each(render(d, redacted.as_deref(), styled, true));
    }
}

/// [`render_human`] of a source whose secrets are masked already ([`redact_secrets`]); `slice`:
/// hand the renderer the annotated line only when [`one_line`] finds it (`false`: always the
/// whole source, the reference the tests compare with).
fn render(diag: &Diagnostic, source: Option<&str>, styled: bool, slice: bool) -> String {
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
            // the snippet shows the annotated line only: hand over that line (the renderer
            // splits and measures every line of what it gets, for each finding)
            let sliced = slice
                .then(|| one_line(src, loc.byte_start, loc.byte_end))
                .flatten();
            let (text, first_line, span) = match sliced {
                Some((from, to, line)) => (
                    &src[from..to],
                    line,
                    loc.byte_start - from..loc.byte_end - from,
                ),
                None => (src, 1, loc.byte_start..loc.byte_end),
            };
            if sliced.is_some()
                && !styled
                && let Some(fast) =
                    super::plain::render(diag, text, first_line, span.start, span.end)
            {
                return fast;
            }
            let mut ann = AnnotationKind::Primary.span(span);
            if let Some(label) = &diag.label {
                ann = ann.label(label.as_str());
            }
            elements.push(
                Snippet::source(text)
                    .line_start(first_line)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A place in the file by its bytes (what the snippet renderers read of a location).
    fn bytes(start: usize, end: usize) -> Option<crate::diag::Location> {
        Some(crate::diag::Location {
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 1,
            byte_start: start,
            byte_end: end,
        })
    }

    /// Handing the renderer the annotated line alone (issue 41: it measured the whole file for
    /// every finding) renders every finding as the whole file did: spans at every place of a
    /// file with long, wide, tabbed, empty and unterminated lines, a label or none, styled or
    /// not.
    #[test]
    fn one_line_renders_as_the_whole_source() {
        let long = format!("long: {}\n", "x".repeat(300));
        let texts = [
            format!("a: 1\n\nspec:\n  name: é ü 漢字\n\tb: tab\n{long}  k: [1, 2]\nlast: line"),
            "only: one\n".to_string(),
            "x\r\ny: 2\r\n".to_string(),
        ];
        let mut checked = 0;
        for text in &texts {
            let bounds: Vec<usize> = (0..=text.len())
                .filter(|i| text.is_char_boundary(*i))
                .collect();
            for (n, &start) in bounds.iter().enumerate() {
                for &end in bounds[n..].iter().take(4).chain(bounds.last()) {
                    for (label, styled) in [(None, false), (Some("here"), true)] {
                        let mut d = Diagnostic::new("some-rule", "a finding").help("do this");
                        d.file = "spec.yaml".into();
                        d.label = label.map(str::to_string);
                        d.location = bytes(start, end);
                        assert_eq!(
                            render(&d, Some(text), styled, true),
                            render(&d, Some(text), styled, false),
                            "{start}..{end} of {text:?}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    fn severity(k: u8) -> Severity {
        match k % 3 {
            0 => Severity::Error,
            1 => Severity::Warning,
            _ => Severity::Info,
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(768))]
        /// The findings [`super::super::plain`] writes itself are the bytes annotate-snippets
        /// writes for them: any line (indented deeper or shallower than annotate-snippets cuts,
        /// long, with trailing blanks or tabs), any span
        /// in it, a label or none (long, blank), notes and help or none, any line number, any
        /// severity; findings of another shape go to annotate-snippets.
        #[test]
        fn plain_findings_are_what_annotate_snippets_writes(
            indent in proptest::sample::select(vec![0usize, 2, 4, 13, 20, 26, 27, 28, 33, 40, 60]),
            body in "[ -~]{0,220}|[a-z: ]{1,30}[\t é漢]?[a-z ]{0,10}",
            blank_lines in proptest::sample::select(vec![0usize, 3, 8, 98, 998, 9998]),
            span in (0usize..240, 0usize..60),
            label in proptest::option::of("[ -~]{0,130}"),
            notes in proptest::collection::vec("[ -~]{0,90}", 0..3),
            help in proptest::option::of("[ -~]{0,90}"),
            message in "[ -~]{1,120}",
            file in "[a-z/._-]{1,30}",
            rule in "[a-z-]{1,30}",
            level in 0u8..3,
        ) {
            let line = format!("{}{body}", " ".repeat(indent));
            let src = format!("{}{line}\nafter: 1\n", "\n".repeat(blank_lines));
            let from = blank_lines;
            let start = from + span.0.min(line.len());
            let end = (start + span.1).min(from + line.len());
            proptest::prop_assume!(src.is_char_boundary(start) && src.is_char_boundary(end));
            let mut d = Diagnostic::new("x", message);
            d.rule = rule;
            d.severity = severity(level);
            d.file = file;
            d.label = label;
            d.notes = notes;
            d.help = help;
            d.location = bytes(start, end);
            proptest::prop_assert_eq!(
                render(&d, Some(&src), false, true),
                render(&d, Some(&src), false, false)
            );
        }
    }

    /// A line indented past 26 spaces is cut at the left by annotate-snippets (`...` over the
    /// whitespace it leaves out), and so by the plain path; 26 and less is shown whole. A
    /// regression: the plain path showed such lines whole.
    #[test]
    fn deeply_indented_lines_are_cut_as_annotate_snippets_cuts_them() {
        for indent in [20usize, 26, 27, 30, 40, 200] {
            let src = format!("a:\n{}key: value\nb: 1\n", " ".repeat(indent));
            let start = src.find("value").unwrap();
            for label in [None, Some("here")] {
                let mut d = Diagnostic::new("x", "m");
                d.file = "f.yaml".into();
                d.label = label.map(str::to_string);
                d.location = bytes(start, start + 5);
                let slow = render(&d, Some(&src), false, false);
                assert_eq!(slow.contains("| ..."), indent > 26, "{slow}");
                assert_eq!(render(&d, Some(&src), false, true), slow, "indent {indent}");
            }
        }
    }

    /// The common finding of `validate` takes the plain path (the property test above would
    /// pass if it never did).
    #[test]
    fn an_ordinary_finding_takes_the_plain_path() {
        let src = "spec:\n  network:\n    outbound: userDefinedRouting\n";
        let mut d = Diagnostic::new(
            "firewall-allow-list",
            "egress goes through the hub firewall",
        );
        d.file = "spec.yaml".into();
        d.label = Some("here".into());
        d.help = Some("give this list to the platform team".into());
        d.notes = vec!["sources: the driver extensions' resource lists".into()];
        let start = src.find("userDefinedRouting").unwrap();
        let line_start = src[..start].rfind('\n').unwrap() + 1;
        let line_end = src[start..].find('\n').unwrap() + start;
        let fast = super::super::plain::render(
            &d,
            &src[line_start..line_end],
            3,
            start - line_start,
            start - line_start + "userDefinedRouting".len(),
        );
        d.location = Some(crate::diag::Location {
            line: 3,
            column: 15,
            end_line: 3,
            end_column: 33,
            byte_start: start,
            byte_end: start + "userDefinedRouting".len(),
        });
        assert_eq!(
            fast.as_deref(),
            Some(render(&d, Some(src), false, false).as_str())
        );
    }

    /// The widest findings, underlined to the line's end, with a five-digit line number, the
    /// longest label or none, are written as annotate-snippets writes them (which shows such a
    /// line whole, however long: the underline reaches its end); a longer label goes to
    /// annotate-snippets. So does a label on a line cut at the right: the underline near the
    /// start of a long line.
    #[test]
    fn the_widest_plain_finding_is_what_annotate_snippets_writes() {
        let line = format!("k: {}", "v".repeat(257));
        let mut d = Diagnostic::new("wide", "a wide finding");
        d.file = "spec.yaml".into();
        d.label = Some("here".into());
        d.location = bytes(3, 10);
        let src = format!("{line}\n");
        assert!(render(&d, Some(&src), false, false).contains("vvv...\n"));
        assert_eq!(
            render(&d, Some(&src), false, true),
            render(&d, Some(&src), false, false)
        );
        assert!(super::super::plain::render(&d, &line, 1, 3, 10).is_none());
        d.label = None;
        assert_eq!(
            render(&d, Some(&src), false, true),
            render(&d, Some(&src), false, false)
        );
        assert!(super::super::plain::render(&d, &line, 1, 3, 10).is_some());
        for (len, label_len, fast) in [
            (128, Some(100), true),
            (133, Some(100), true),
            (260, Some(100), true),
            (260, None, true),
            (128, Some(101), false),
        ] {
            let line = format!("k: {}", "v".repeat(len - 3));
            let src = format!("{}{line}\n", "\n".repeat(12_345));
            let mut d = Diagnostic::new("wide", "a wide finding");
            d.file = "spec.yaml".into();
            d.label = label_len.map(|n| "l".repeat(n));
            d.help = Some("h".repeat(200));
            d.location = Some(crate::diag::Location {
                line: 12_346,
                column: 4,
                end_line: 12_346,
                end_column: len + 1,
                byte_start: 12_345 + 3,
                byte_end: 12_345 + len,
            });
            assert_eq!(
                render(&d, Some(&src), false, true),
                render(&d, Some(&src), false, false),
                "{len} {label_len:?}"
            );
            let taken = super::super::plain::render(&d, &line, 12_346, 3, len).is_some();
            assert_eq!(taken, fast, "{len} {label_len:?}");
        }
    }

    const KEY: &str = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW";

    #[test]
    fn private_keys_are_masked_byte_for_byte() {
        // a block scalar
        let src = format!(
            "spec:\n  compute:\n    sshPublicKey: |\n      -----BEGIN OPENSSH PRIVATE KEY-----\n      {KEY}\n      -----END OPENSSH PRIVATE KEY-----\n    image: x\n"
        );
        let r = redact_secrets(&src);
        assert_eq!(r.len(), src.len());
        assert!(!r.contains(KEY), "{r}");
        assert!(r.contains("BEGIN OPENSSH PRIVATE KEY") && r.contains("image: x"));
        // one quoted line with \n escapes, no END
        let src = format!(
            "    sshPublicKey: \"-----BEGIN RSA PRIVATE KEY-----\\n{KEY}\\n\"\n    image: x\n"
        );
        let r = redact_secrets(&src);
        assert_eq!(r.len(), src.len());
        assert!(!r.contains(&KEY[..20]), "{r}");
        assert!(r.contains("image: x"));
        // connection strings
        let src =
            "conn: \"Endpoint=sb://x/;SharedAccessKeyName=k;SharedAccessKey=c2VjcmV0c2VjcmV0;\"\n";
        let r = redact_secrets(src);
        assert!(
            !r.contains("c2VjcmV0c2VjcmV0") && r.contains("SharedAccessKeyName=k"),
            "{r}"
        );
        // nothing to hide: borrowed as is
        assert!(matches!(
            redact_secrets("a: b\n"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn the_snippet_shows_the_masked_source() {
        let src = format!("sshPublicKey: \"-----BEGIN OPENSSH PRIVATE KEY-----\\n{KEY}\"\n");
        let mut d = Diagnostic::new("ssh-key", "this is a private key; never put it in a spec");
        d.file = "x.yaml".into();
        d.location = Some(super::super::Location {
            line: 1,
            column: 15,
            byte_start: 14,
            byte_end: src.len() - 1,
            end_line: 1,
            end_column: src.len(),
        });
        let out = render_human(&d, Some(&src), false);
        assert!(out.contains("x.yaml:1:15"), "{out}");
        assert!(!out.contains(&KEY[..12]), "{out}");
    }

    /// A file's findings rendered together (the source masked once) are what each rendered
    /// alone gives: masked secrets, every place, with and without a source, styled or not.
    #[test]
    fn findings_rendered_together_render_as_each_alone() {
        let src = format!(
            "conn: \"Endpoint=sb://x/;SharedAccessKey=c2VjcmV0c2VjcmV0;\"\nsshPublicKey: \"-----BEGIN OPENSSH PRIVATE KEY-----\\n{KEY}\"\nimage: x\n"
        );
        let diags: Vec<Diagnostic> = (0..src.len())
            .step_by(7)
            .map(|start| {
                let end = src[start..].find('\n').map_or(src.len(), |i| start + i);
                let mut d = Diagnostic::new("x", format!("at {start}"));
                d.file = "x.yaml".into();
                d.location = bytes(start, end.min(start + 5));
                d
            })
            .collect();
        for source in [Some(src.as_str()), Some("a: b\n"), None] {
            for styled in [false, true] {
                let mut together = Vec::new();
                render_human_each(&diags, source, styled, |s| together.push(s));
                let alone: Vec<String> = diags
                    .iter()
                    .map(|d| render_human(d, source, styled))
                    .collect();
                assert_eq!(together, alone);
                assert!(together.iter().all(|s| !s.contains("c2VjcmV0c2VjcmV0")));
            }
        }
    }
}
