//! What a new user hit (issue 10, items 11-18), through the real binary.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn example(name: &str) -> PathBuf {
    root().join("examples").join(name)
}

fn gpuform() -> Command {
    let mut c = Command::cargo_bin("gpuform").unwrap();
    c.env("NO_COLOR", "1").env_remove("CI");
    c
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

// ---- item 13: a directory given to a one-spec command -------------------------------------

#[test]
fn a_directory_given_to_a_one_spec_command_is_a_usage_error() {
    for cmd in [
        vec!["show"],
        vec!["cost"],
        vec!["preflight", "--usages", "x.json"],
        vec!["deploy", "-g", "rg", "--what-if"],
    ] {
        let mut args = cmd.clone();
        args.push("examples/");
        gpuform()
            .current_dir(root())
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "is a directory; this command takes one spec file",
            ));
    }
}

// ---- item 12: cost gates with missing prices are undecided everywhere ---------------------

fn cost_out(args: &[&str]) -> std::process::Output {
    gpuform()
        .current_dir(root())
        .env("GPUFORM_TODAY", "2026-12-02")
        .arg("cost")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn cost_gates_with_missing_prices_are_undecided_in_text_json_and_markdown() {
    // no Windows prices are embedded: the total is a lower bound far under 1,000,000
    let spec = "examples/windows-viz-nv.yaml";
    let out = cost_out(&[spec, "--fail-above", "1000000", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let g = &v["gates"][0];
    assert_eq!(g["name"], "fail-above");
    assert_eq!(g["passed"], Value::Null, "{g}");
    assert_eq!(g["status"], "undecided", "{g}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot decide the cost gate fail-above")
    );

    let out = cost_out(&[spec, "--fail-above", "1000000", "--format", "markdown"]);
    assert_eq!(out.status.code(), Some(2));
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(!md.contains('✅'), "{md}");
    assert!(md.contains("undecided gate `fail-above`"), "{md}");

    let out = cost_out(&[spec, "--fail-above", "1000000"]);
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("gate fail-above: UNDECIDED"), "{text}");
    assert!(!text.contains("passed"), "{text}");

    // a lower bound already over the limit has failed for certain: exit 1
    let out = cost_out(&[spec, "--fail-above", "1", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["gates"][0]["passed"], false);
    assert_eq!(v["gates"][0]["status"], "failed");
}

#[test]
fn a_complete_estimate_still_passes_its_gates() {
    let out = cost_out(&[
        "tests/fixtures/cost/fixed-pool.yaml",
        "--fail-above",
        "2000",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["gates"][0]["passed"], true);
    assert_eq!(v["gates"][0]["status"], "passed");
}

// ---- item 16: render says what it replaced; a refusal names the foreign files ---------------

#[test]
fn render_says_what_it_replaced_and_names_foreign_files() {
    let dir = tempfile::tempdir().unwrap();
    let infra = dir.path().join("infra");
    gpuform()
        .current_dir(root())
        .args(["render", "examples/shortvideo-transcode.yaml", "-o"])
        .arg(&infra)
        .assert()
        .success()
        .stderr(predicate::str::contains("replaced").not());
    // the same spec again: replaced, nothing lost
    gpuform()
        .current_dir(root())
        .args(["render", "examples/shortvideo-transcode.yaml", "-o"])
        .arg(&infra)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "(it held 5 files of an earlier render)",
        ));
    // several specs into the same folder: the first render's files are gone, and render says so
    gpuform()
        .current_dir(root())
        .args(["render", "examples/", "-o"])
        .arg(&infra)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "removed 5 files of an earlier render that this one does not write: azuredeploy.json",
        ));
    // a folder with someone else's files is refused, and they are named
    let mine = dir.path().join("mine");
    std::fs::create_dir_all(mine.join("notes")).unwrap();
    write(&mine, "README.md", "mine");
    write(&mine.join("notes"), "todo.txt", "mine");
    gpuform()
        .current_dir(root())
        .args(["render", "examples/shortvideo-transcode.yaml", "-o"])
        .arg(&mine)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "not rendered by gpuform: README.md, notes/todo.txt",
        ));
    assert!(mine.join("README.md").exists());
}

// ---- item 17: show output reads the same in a YAML 1.1 reader (PyYAML) ----------------------

/// Every plain (unquoted) scalar in `text` that a YAML 1.1 reader would not read as a string:
/// sexagesimal numbers (`18:00` is 1080 for PyYAML) and dates.
fn yaml11_non_strings(text: &str) -> Vec<String> {
    let mut bad = Vec::new();
    for line in text.lines() {
        let body = line.trim_start().trim_start_matches("- ");
        let value = match body.split_once(": ") {
            Some((_, v)) => v,
            None => body,
        };
        // flow lists and mappings: look at each item
        for item in value
            .trim_matches(|c| c == '[' || c == ']' || c == '{' || c == '}')
            .split(", ")
        {
            let item = item.split_once(": ").map(|(_, v)| v).unwrap_or(item).trim();
            if item.starts_with('"') || item.starts_with('\'') {
                continue;
            }
            let numeric = item.chars().any(|c| c.is_ascii_digit())
                && item.chars().all(|c| c.is_ascii_digit() || "-:".contains(c));
            if numeric && (item.contains(':') || item.matches('-').count() == 2) {
                bad.push(format!("{item} in `{line}`"));
            }
        }
    }
    bad
}

#[test]
fn show_quotes_times_and_dates_for_yaml_1_1_readers() {
    for ex in [
        "shortvideo-transcode.yaml",
        "llm-finetune-a100.yaml",
        "pretrain-nd-h100.yaml",
        "dev-notebook-t4.yaml",
        "windows-viz-nv.yaml",
    ] {
        let out = gpuform().arg("show").arg(example(ex)).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{ex}");
        let text = String::from_utf8(out.stdout).unwrap();
        let bad = yaml11_non_strings(&text);
        assert!(bad.is_empty(), "{ex}: {bad:?}\n{text}");
    }
    // and the checker sees what it is for
    assert_eq!(yaml11_non_strings("start: 18:00").len(), 1);
    assert!(yaml11_non_strings("start: \"18:00\"").is_empty());
}

// ---- item 17: cost JSON money in cents; a baseline of another spec warns --------------------

fn is_cents(x: &Value) -> bool {
    match x.as_f64() {
        Some(f) => {
            let s = x.to_string();
            s.split_once('.').is_none_or(|(_, d)| d.len() <= 2) && f.is_finite()
        }
        None => x.is_null(),
    }
}

#[test]
fn cost_json_totals_and_amounts_are_in_cents() {
    for spec in [
        "examples/shortvideo-transcode.yaml",
        "examples/llm-finetune-a100.yaml",
    ] {
        let out = cost_out(&[spec, "--format", "json"]);
        assert_eq!(out.status.code(), Some(0));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        for k in ["low", "expected", "high"] {
            assert!(
                is_cents(&v["totals"][k]),
                "{spec} totals.{k} = {}",
                v["totals"][k]
            );
            for l in v["lines"].as_array().unwrap() {
                assert!(
                    is_cents(&l["amount"][k]),
                    "{spec} {} = {}",
                    l["id"],
                    l["amount"][k]
                );
            }
        }
    }
}

#[test]
fn a_baseline_of_another_spec_warns() {
    let dir = tempfile::tempdir().unwrap();
    let out = cost_out(&["examples/llm-finetune-a100.yaml", "--format", "json"]);
    let base = dir.path().join("base.json");
    std::fs::write(&base, &out.stdout).unwrap();
    let out = cost_out(&[
        "examples/shortvideo-transcode.yaml",
        "--baseline",
        base.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: the baseline"), "{err}");
    assert!(
        err.contains("the comparison is between different specs"),
        "{err}"
    );
    // the same spec does not warn
    let out = cost_out(&[
        "examples/llm-finetune-a100.yaml",
        "--baseline",
        base.to_str().unwrap(),
    ]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("different specs"));
}
