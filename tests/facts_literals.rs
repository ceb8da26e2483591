//! Issue 38, "Done when": no Azure hostname, api-version date or GUID in the code outside
//! `src/facts/` (and the templates, which take them from the plan, i.e. from the facts).
//!
//! What is scanned: every `.rs` file under `src/` except `src/facts/`, unit-test files
//! (`tests.rs`, `*_tests.rs`, a `tests/` folder of unit-test modules such as `src/check/tests/`)
//! and what follows `#[cfg(test)]`, with `//` comments removed (a
//! string continued over several lines is read line by line, so a `//` on such a line hides the
//! rest of it: the scan can miss there, never report falsely); and `templates/*.hbs`.
//! - an Azure hostname: a name under azure.com, azure.net, windows.net, microsoft.com,
//!   microsoftonline.com/.us, azure.us, azure.cn, usgovcloudapi.net, chinacloudapi.cn;
//! - an api-version date: `api-version=YYYY-MM-DD`, or a string literal `"YYYY-MM-DD[-preview]"`
//!   on a line that speaks of an API (`api`, any case);
//! - a GUID.
//!
//! [`KNOWN`] lists what is left, each with why; the list can only shrink (an entry the scan no
//! longer finds fails the test, so it is removed when fixed).

use std::path::{Path, PathBuf};

use regex::Regex;

/// `(file, the literal, why it is still there)`.
const KNOWN: &[(&str, &str, &str)] = &[];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `line` without a `//` comment (a `//` inside a string on the line is kept).
fn code(line: &str) -> &str {
    let b = line.as_bytes();
    let (mut i, mut quoted) = (0, false);
    while i < b.len() {
        match b[i] {
            b'\\' => {
                i += 2;
                continue;
            }
            b'"' => quoted = !quoted,
            b'/' if !quoted && b.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
        i += 1;
    }
    line
}

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

/// `(file relative to the crate, line number, what, the literal)`.
fn found() -> Vec<(String, usize, &'static str, String)> {
    let host = Regex::new(
        r"\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:azure\.com|azure\.net|windows\.net|microsoft\.com|microsoftonline\.com|microsoftonline\.us|azure\.us|azure\.cn|usgovcloudapi\.net|chinacloudapi\.cn)\b",
    )
    .unwrap();
    let api_query = Regex::new(r"api-version=\d{4}-\d{2}-\d{2}").unwrap();
    let date = Regex::new(r#""\d{4}-\d{2}-\d{2}(?:-preview)?""#).unwrap();
    let guid = Regex::new(
        r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b",
    )
    .unwrap();
    let root = root();
    let mut paths = Vec::new();
    files(&root.join("src"), "rs", &mut paths);
    files(&root.join("templates"), "hbs", &mut paths);
    paths.sort();
    let mut out = Vec::new();
    for p in paths {
        let rel = p
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if rel.starts_with("src/facts/")
            || rel.contains("/tests/")
            || name == "tests.rs"
            || name.ends_with("_tests.rs")
        {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        for (n, line) in text.lines().enumerate() {
            if line.contains("#[cfg(test)]") {
                break;
            }
            let c = code(line);
            let mut hit =
                |what: &'static str, m: &str| out.push((rel.clone(), n + 1, what, m.to_string()));
            for m in host.find_iter(c) {
                hit("an Azure hostname", m.as_str());
            }
            for m in api_query.find_iter(c) {
                hit("an api-version date", m.as_str());
            }
            if c.to_ascii_lowercase().contains("api") {
                for m in date.find_iter(c) {
                    hit("an api-version date", m.as_str().trim_matches('"'));
                }
            }
            for m in guid.find_iter(c) {
                hit("a GUID", m.as_str());
            }
        }
    }
    out
}

#[test]
fn no_azure_hostname_api_version_or_guid_outside_the_facts_layer() {
    let found = found();
    let known = |f: &str, lit: &str| KNOWN.iter().any(|(kf, kl, _)| *kf == f && *kl == lit);
    let new: Vec<String> = found
        .iter()
        .filter(|(f, _, _, lit)| !known(f, lit))
        .map(|(f, n, what, lit)| {
            format!("{f}:{n}: {what} `{lit}`: move it into src/facts/ with its Source")
        })
        .collect();
    assert!(new.is_empty(), "{}", new.join("\n"));
    let gone: Vec<String> = KNOWN
        .iter()
        .filter(|(f, lit, _)| !found.iter().any(|(ff, _, _, l)| ff == f && l == lit))
        .map(|(f, lit, _)| format!("{f}: `{lit}` is gone: remove it from KNOWN"))
        .collect();
    assert!(gone.is_empty(), "{}", gone.join("\n"));
}

#[test]
fn the_scan_finds_each_kind_and_ignores_comments() {
    assert_eq!(
        code(r#"let u = "https://x.y"; // a comment"#),
        r#"let u = "https://x.y"; "#
    );
    assert_eq!(code("// all comment"), "");
    assert_eq!(code(r#"let s = "a \" // b";"#), r#"let s = "a \" // b";"#);
}
