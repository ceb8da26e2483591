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

// ---- item 17: validate reports the YAML files it skips and counts infos ---------------------

#[test]
fn validate_of_a_directory_says_which_yaml_files_are_not_specs_and_counts_infos() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(example("dev-notebook-t4.yaml"), dir.path().join("dev.yaml")).unwrap();
    write(dir.path(), "workflow.yaml", "on: push\njobs: {}\n");
    let out = gpuform().arg("validate").arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("skipped ")
            && stderr.contains("workflow.yaml: no `kind: GpuWorkload`, not a gpuform spec"),
        "{stderr}"
    );
    assert!(
        stdout.contains("validated 1 spec: 0 errors, 0 warnings, ") && stdout.contains(" info"),
        "{stdout}"
    );
    assert!(
        stdout.contains("(1 YAML file skipped: not specs)"),
        "{stdout}"
    );
}

/// With stdout and stderr on one file (a terminal, a CI log, `2>&1`), each skipped file's line
/// comes in its place among the specs' reports, also when the reports of a slice of parallel
/// work are written together (issue 41): a, b skipped, c, d skipped, e.
#[test]
fn skipped_lines_come_in_their_place_among_the_reports() {
    let dir = tempfile::tempdir().unwrap();
    let spec = std::fs::read_to_string(example("dev-notebook-t4.yaml")).unwrap();
    for (name, text) in [
        ("a.yaml", spec.as_str()),
        ("b.yaml", "on: push\njobs: {}\n"),
        ("c.yaml", spec.as_str()),
        ("d.yaml", "trigger: [main]\n"),
        ("e.yaml", spec.as_str()),
    ] {
        write(dir.path(), name, text);
    }
    let log = tempfile::NamedTempFile::new().unwrap();
    // one open file for both: one offset, as a terminal or `2>&1` gives
    let file = log.as_file();
    let status = std::process::Command::new(assert_cmd::cargo::cargo_bin!("gpuform"))
        .env("NO_COLOR", "1")
        .env_remove("CI")
        .arg("validate")
        .arg(dir.path())
        .stdout(file.try_clone().unwrap())
        .stderr(file.try_clone().unwrap())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    let text = std::fs::read_to_string(log.path()).unwrap();
    let order: Vec<&str> = text
        .lines()
        .filter_map(|l| {
            let name = l.split_whitespace().nth(1)?;
            (l.starts_with("ok ") || l.starts_with("skipped ")).then_some(name)
        })
        .map(|p| p.rsplit('/').next().unwrap().trim_end_matches(':'))
        .collect();
    assert_eq!(
        order,
        ["a.yaml", "b.yaml", "c.yaml", "d.yaml", "e.yaml"],
        "{text}"
    );
}

// ---- item 17: `gpuform rules ID`, `--version` --------------------------------------------------

#[test]
fn rules_id_shows_one_rule_in_full() {
    let out = gpuform()
        .args(["rules", "spot-not-supported"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("spot-not-supported: Spot on a size that cannot run as spot\n"),
        "{text}"
    );
    assert!(text.contains("severity: error"), "{text}");
    assert!(text.contains("LowPriorityCapable"), "{text}");
    assert!(!text.contains("cuda-too-new"), "{text}");
    let out = gpuform()
        .args(["rules", "spot-not-suported"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean `spot-not-supported`?"));
    let out = gpuform()
        .args(["rules", "cuda-too-new", "--format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["id"], "cuda-too-new");
    assert_eq!(v["overridable"], true);
}

#[test]
fn version_names_the_commit_and_the_price_table_date() {
    let out = gpuform().arg("--version").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(&format!("gpuform {} (commit ", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
    assert!(text.contains("; embedded price table as of 20"), "{text}");
    // in a git checkout the commit is known
    if root().join(".git").exists() {
        assert!(!text.contains("commit unknown"), "{text}");
    }
}

// ---- item 17: IANA time zone names get their Windows name -------------------------------------

#[test]
fn an_iana_time_zone_name_suggests_the_windows_name() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(example("shortvideo-transcode.yaml"))
        .unwrap()
        .replace("China Standard Time", "Asia/Shanghai");
    assert!(text.contains("Asia/Shanghai"));
    let spec = write(dir.path(), "tz.yaml", &text);
    let out = gpuform().arg("validate").arg(&spec).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout
            .contains("`Asia/Shanghai` is an IANA name; its Windows name is `China Standard Time`"),
        "{stdout}"
    );
}

// ---- item 17: the README's sample spec validates as pasted ---------------------------------

/// README.md and the book's chapters (docs/src/*.md; issue 37 moved the reference there).
fn doc_texts() -> Vec<String> {
    let mut texts = vec![std::fs::read_to_string(root().join("README.md")).unwrap()];
    let mut chapters: Vec<_> = std::fs::read_dir(root().join("docs/src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    chapters.sort();
    texts.extend(chapters.iter().map(|p| std::fs::read_to_string(p).unwrap()));
    texts
}

/// The ```yaml blocks of the README and the book that are gpuform specs.
fn readme_specs() -> Vec<String> {
    let mut specs = Vec::new();
    let mut block: Option<String> = None;
    for line in doc_texts().iter().flat_map(|t| t.lines()) {
        match &mut block {
            None if line.trim_start().starts_with("```yaml") => block = Some(String::new()),
            Some(b) if line.trim_start().starts_with("```") => {
                if b.contains("kind: GpuWorkload") {
                    specs.push(std::mem::take(b));
                }
                block = None;
            }
            Some(b) => {
                b.push_str(line);
                b.push('\n');
            }
            None => {}
        }
    }
    specs
}

#[test]
fn the_readme_sample_specs_validate_as_pasted() {
    let specs = readme_specs();
    assert!(
        !specs.is_empty(),
        "the README or the book has a sample spec"
    );
    let dir = tempfile::tempdir().unwrap();
    for (i, text) in specs.iter().enumerate() {
        let path = write(dir.path(), &format!("readme-{i}.yaml"), text);
        let out = gpuform().arg("validate").arg(&path).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "README spec {i} does not validate:\n{}\n{text}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

// ---- item 18: init, completions, man -----------------------------------------------------------

const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com";

#[test]
fn init_writes_a_commented_starter_spec_that_validates_clean() {
    let dir = tempfile::tempdir().unwrap();
    for (kind, vram) in [
        ("inference", "12"),
        ("training", "70"),
        ("batch", "20"),
        ("visualization", "8"),
    ] {
        let file = dir.path().join(format!("{kind}.yaml"));
        gpuform()
            .current_dir(dir.path())
            .args([
                "init",
                file.to_str().unwrap(),
                "--workload",
                kind,
                "--vram",
                vram,
                "--region",
                "eastus2",
            ])
            .args(["--ssh-public-key", KEY])
            .write_stdin("")
            .assert()
            .success()
            .stderr(predicate::str::contains(format!(
                "wrote {}",
                file.display()
            )));
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            text.starts_with("# yaml-language-server: $schema=gpuworkload.schema.json\n"),
            "{text}"
        );
        assert!(text.contains(&format!("type: {kind}")), "{text}");
        assert!(text.contains("  # "), "commented: {text}");
        let out = gpuform().arg("validate").arg(&file).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{kind}: {stdout}\n{text}");
        assert!(
            stdout.contains("0 errors, 0 warnings"),
            "{kind}: {stdout}\n{text}"
        );
    }
    // the serving path (issue 36): every frontend with a server that has documented defaults
    // and one that has none
    for (server, frontend) in [
        ("vllm", "applicationGateway"),
        ("tgi", "loadBalancer"),
        ("triton", "both"),
    ] {
        let file = dir.path().join(format!("serve-{server}.yaml"));
        gpuform()
            .args([
                "init",
                file.to_str().unwrap(),
                "--workload",
                "inference",
                "--vram",
                "20",
            ])
            .args([
                "--region",
                "westeurope",
                "--serve",
                server,
                "--frontend",
                frontend,
            ])
            .args(["--ssh-public-key", KEY])
            .write_stdin("")
            .assert()
            .success();
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains(&format!("server: {server}")), "{text}");
        assert!(text.contains(&format!("kind: {frontend}")), "{text}");
        let out = gpuform().arg("validate").arg(&file).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("0 errors, 0 warnings"),
            "{server}: {stdout}\n{text}"
        );
    }
    // the modeline's schema is written beside it, and is the schema
    let schema = std::fs::read_to_string(dir.path().join("gpuworkload.schema.json")).unwrap();
    let embedded = gpuform().arg("schema").output().unwrap().stdout;
    assert_eq!(schema.as_bytes(), &embedded[..]);
    // an existing file is not replaced without --force
    gpuform()
        .args([
            "init",
            dir.path().join("inference.yaml").to_str().unwrap(),
            "--ssh-public-key",
            KEY,
        ])
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("exists"));
    // without a key a Linux pool says what is missing
    gpuform()
        .args(["init", dir.path().join("nokey.yaml").to_str().unwrap()])
        .write_stdin("")
        .assert()
        .success()
        .stderr(predicate::str::contains("add your SSH public key"));
}

/// `init --queue` writes a queue-driven pool (issue 37: the README's tour goes from `init` to
/// `simulate --tune`, which needs `autoscale.queue`); the spec validates clean and tunes.
#[test]
fn init_with_a_queue_writes_a_pool_that_scales_on_it() {
    let dir = tempfile::tempdir().unwrap();
    for (kind, field) in [
        (
            "storage-queue",
            "storageQueue: {account: stmypool, queue: jobs, create: true}",
        ),
        (
            "service-bus",
            "serviceBus: {namespace: sb-my-pool, queue: jobs, create: true}",
        ),
    ] {
        let file = dir.path().join(format!("{kind}/my-pool.yaml"));
        gpuform()
            .args(["init", file.to_str().unwrap(), "--queue", kind])
            .args(["--ssh-public-key", KEY])
            .write_stdin("")
            .assert()
            .success();
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("\n  autoscale:"), "{text}");
        assert!(text.contains(field), "{text}");
        let out = gpuform().arg("validate").arg(&file).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{kind}: {stdout}\n{text}");
        let show = gpuform()
            .args(["show", "--output", "json"])
            .arg(&file)
            .output()
            .unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&show.stdout).unwrap();
        assert_eq!(
            doc["spec"]["autoscale"]["queue"]["targetPerInstance"], 10,
            "{doc}"
        );
    }
}

#[test]
fn completions_and_man_pages_are_printed() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = gpuform().args(["completions", shell]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("gpuform") && text.contains("preflight"),
            "{shell}"
        );
    }
    let out = gpuform().arg("man").output().unwrap();
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH gpuform 1"), "{page}");
    assert!(page.contains("validate"), "{page}");
    let out = gpuform().args(["man", "cost"]).output().unwrap();
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH gpuform-cost 1"), "{page}");
    assert!(page.contains("fail\\-above"), "{page}");
    gpuform().args(["man", "nope"]).assert().code(2);
    // per-topic help: exit codes and the undecided gates in `cost --help`
    let out = gpuform().args(["cost", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("undecided"));
}
