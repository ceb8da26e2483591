//! The book under docs/ (issue 37, item 8): every relative link of README.md and of the chapters
//! resolves (file and `#anchor`), SUMMARY.md names only chapters that exist, a chapter that
//! SUMMARY.md does not list is still built (docs/unlisted_chapters.py, run here on both shapes of
//! mdBook's book JSON), and `mdbook build` succeeds when mdbook is installed (else SKIPPED,
//! loudly: CI does not install it). The commands of the chapters run in tests/readme_commands.rs.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn pages() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md")];
    let mut chapters: Vec<PathBuf> = std::fs::read_dir(root().join("docs/src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    chapters.sort();
    out.extend(chapters);
    out
}

/// The lines of a Markdown text outside fenced code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut in_code = false;
    text.lines()
        .filter(|l| {
            if l.trim_start().starts_with("```") {
                in_code = !in_code;
                return false;
            }
            !in_code
        })
        .collect()
}

/// The anchor mdBook and GitHub give a heading: lowercase, spaces to `-`, punctuation dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(text: &str) -> BTreeSet<String> {
    prose(text)
        .iter()
        .filter_map(|l| {
            let t = l.trim_start_matches('#');
            (l.starts_with('#') && t.starts_with(' ')).then(|| slug(t))
        })
        .collect()
}

/// `[text](target)` and `![alt](target)` targets of a line, without inline code spans.
fn link_targets(line: &str) -> Vec<String> {
    let mut clean = String::new();
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
            continue;
        }
        if !in_code {
            clean.push(c);
        }
    }
    let mut out = Vec::new();
    let mut rest = clean.as_str();
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let Some(end) = after.find(')') else { break };
        out.push(after[..end].trim().trim_matches(['<', '>']).to_string());
        rest = &after[end..];
    }
    out
}

#[test]
fn every_relative_link_and_anchor_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for line in prose(&text) {
            for target in link_targets(line) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                let (file, anchor) = match target.split_once('#') {
                    Some((f, a)) => (f, Some(a)),
                    None => (target.as_str(), None),
                };
                let dest = if file.is_empty() {
                    page.clone()
                } else {
                    page.parent().unwrap().join(file)
                };
                if !dest.exists() {
                    broken.push(format!("{}: {target} (no such file)", page.display()));
                    continue;
                }
                if let Some(a) = anchor {
                    let dest_text = std::fs::read_to_string(&dest).unwrap_or_default();
                    if !anchors(&dest_text).contains(a) {
                        broken.push(format!(
                            "{}: {target} (no heading with that anchor in {})",
                            page.display(),
                            dest.display()
                        ));
                    }
                }
            }
        }
    }
    assert!(checked > 40, "only {checked} links checked");
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn every_chapter_has_a_title_and_summary_names_only_existing_chapters() {
    let src = root().join("docs/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    for target in prose(&summary).iter().flat_map(|l| link_targets(l)) {
        assert!(src.join(&target).exists(), "SUMMARY.md names {target}");
    }
    for page in pages().iter().skip(1) {
        if page.ends_with("SUMMARY.md") {
            continue;
        }
        let text = std::fs::read_to_string(page).unwrap();
        assert!(
            text.starts_with("# "),
            "{} starts with its title (`# ...`)",
            page.display()
        );
    }
    // the book covers the concerns issue 37 names
    for chapter in [
        "spec.md",
        "validate.md",
        "render.md",
        "preflight.md",
        "cost.md",
        "simulate.md",
        "deploy.md",
        "status.md",
        "destroy.md",
        "quota.md",
        "gpu-report.md",
        "ci.md",
        "sovereign-clouds.md",
        "landing-zones.md",
        "monitoring.md",
        "standby-pools.md",
        "troubleshooting.md",
        "reference.md",
    ] {
        assert!(
            summary.contains(&format!("]({chapter})")),
            "SUMMARY.md lists {chapter}"
        );
    }
}

fn preprocess(src: &Path, book: Value) -> Value {
    let context = json!({
        "root": src.parent().unwrap(),
        "config": {"book": {"src": "src"}},
        "renderer": "html",
        "mdbook_version": "0.4.40"
    });
    let mut child = Command::new("python3")
        .arg(root().join("docs/unlisted_chapters.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(json!([context, book]).to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn chapter(name: &str, path: &str, extra: Value) -> Value {
    let mut ch = json!({
        "name": name, "content": format!("# {name}\n"), "number": [1], "sub_items": [],
        "path": path, "source_path": path, "parent_names": []
    });
    for (k, v) in extra.as_object().unwrap() {
        ch[k] = v.clone();
    }
    json!({ "Chapter": ch })
}

#[test]
fn a_chapter_summary_does_not_list_is_added_to_the_book() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("SUMMARY.md"),
        "# Summary\n\n[Introduction](introduction.md)\n\n- [validate](./validate.md)\n",
    )
    .unwrap();
    std::fs::write(src.join("introduction.md"), "# Introduction\n").unwrap();
    std::fs::write(src.join("validate.md"), "# validate\n").unwrap();
    std::fs::write(src.join("serving.md"), "# Serving\n\nvLLM pools.\n").unwrap();
    // mdBook 0.4 ("sections", "__non_exhaustive") and 0.5 ("items", fields this script does not know)
    for (key, extra) in [
        ("sections", json!({})),
        ("items", json!({"future_field": {"kept": true}})),
    ] {
        let mut book = json!({
            key: [
                chapter("Introduction", "introduction.md", extra.clone()),
                chapter("validate", "validate.md", extra.clone())
            ]
        });
        if key == "sections" {
            book["__non_exhaustive"] = Value::Null;
        }
        let out = preprocess(&src, book);
        let items = out[key].as_array().unwrap();
        assert_eq!(items.len(), 4, "{out}");
        assert_eq!(items[2], json!({"PartTitle": "More chapters"}));
        let added = &items[3]["Chapter"];
        assert_eq!(added["name"], "Serving");
        assert_eq!(added["path"], "serving.md");
        assert_eq!(added["content"], "# Serving\n\nvLLM pools.\n");
        assert_eq!(added["number"], Value::Null);
        if key == "items" {
            assert_eq!(added["future_field"], json!({"kept": true}));
        } else {
            assert!(out.get("__non_exhaustive").is_some());
        }
    }
    // a listed chapter is not added twice, and `supports` answers yes for every renderer
    std::fs::remove_file(src.join("serving.md")).unwrap();
    let book = json!({"sections": [chapter("Introduction", "introduction.md", json!({}))], "__non_exhaustive": null});
    assert_eq!(preprocess(&src, book.clone()), book);
    let supports = Command::new("python3")
        .arg(root().join("docs/unlisted_chapters.py"))
        .args(["supports", "html"])
        .status()
        .unwrap();
    assert!(supports.success());
}

#[test]
fn the_book_builds_with_mdbook_when_it_is_installed() {
    let found = Command::new("mdbook").arg("--version").output();
    let Ok(version) = found else {
        let _ = writeln!(
            std::io::stderr(),
            "\n!!!!!!!! SKIPPED: `mdbook build docs` was NOT run: mdbook is not installed (cargo install mdbook) !!!!!!!!\n"
        );
        return;
    };
    let out_dir = tempfile::tempdir().unwrap();
    let out = Command::new("mdbook")
        .arg("build")
        .arg(root().join("docs"))
        .arg("--dest-dir")
        .arg(out_dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} failed:\n{}",
        String::from_utf8_lossy(&version.stdout).trim(),
        String::from_utf8_lossy(&out.stderr)
    );
    for page in pages().iter().skip(1) {
        let name = page.file_stem().unwrap().to_string_lossy();
        if name == "SUMMARY" {
            continue;
        }
        assert!(
            out_dir.path().join(format!("{name}.html")).exists(),
            "{name}.html"
        );
    }
}
