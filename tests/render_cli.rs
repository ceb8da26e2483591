//! `gpuform render` through the real binary: atomic writes, `--check`, `--stdout`, several specs.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

fn gpuform() -> Command {
    let mut c = Command::cargo_bin("gpuform").unwrap();
    c.env("NO_COLOR", "1");
    c
}

fn golden(example: &str, file: &str) -> String {
    std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden/render")
            .join(example)
            .join(file),
    )
    .unwrap()
}

fn leftovers(parent: &Path) -> Vec<String> {
    std::fs::read_dir(parent)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".gpuform-"))
        .collect()
}

const FILES: [&str; 5] = [
    "azuredeploy.json",
    "azuredeploy.parameters.json",
    "bicepconfig.json",
    "main.bicep",
    "main.bicepparam",
];

#[test]
fn renders_into_a_new_directory_and_replaces_it_atomically() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("nested/out");
    gpuform()
        .args([
            "render",
            example("shortvideo-transcode.yaml").to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("(5 files)"));
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, FILES);
    for f in FILES {
        assert_eq!(
            std::fs::read_to_string(out.join(f)).unwrap(),
            golden("shortvideo-transcode", f),
            "{f}"
        );
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&out).unwrap().permissions().mode() & 0o777,
            0o755
        );
    }

    // a second render replaces the directory: other content goes, stale rendered files go
    std::fs::remove_file(out.join("bicepconfig.json")).unwrap();
    std::fs::write(out.join("main.bicep"), "stale").unwrap();
    gpuform()
        .args([
            "render",
            example("dev-notebook-t4.yaml").to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(out.join("main.bicep")).unwrap(),
        golden("dev-notebook-t4", "main.bicep")
    );
    assert!(out.join("bicepconfig.json").exists());
    assert!(
        leftovers(out.parent().unwrap()).is_empty(),
        "temporary directories left behind"
    );
}

#[test]
fn refuses_to_replace_a_directory_with_foreign_files() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    gpuform()
        .args([
            "render",
            example("dev-notebook-t4.yaml").to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("refusing to replace"));
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
    assert!(!out.join("main.bicep").exists());
    assert!(leftovers(tmp.path()).is_empty());
}

#[test]
fn several_specs_render_into_one_directory_each() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("all");
    gpuform()
        .args([
            "render",
            example("").to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .assert()
        .success();
    for (dir, golden_dir) in [
        ("shortvideo-transcode", "shortvideo-transcode"),
        ("cad-viz", "windows-viz-nv"),
        ("pretrain-h100", "pretrain-nd-h100"),
    ] {
        assert_eq!(
            std::fs::read_to_string(out.join(dir).join("main.bicep")).unwrap(),
            golden(golden_dir, "main.bicep")
        );
    }
    // --check on the whole tree
    gpuform()
        .args([
            "render",
            example("").to_str().unwrap(),
            "--check",
            out.to_str().unwrap(),
        ])
        .assert()
        .success();
}

#[test]
fn check_reports_drift_with_a_unified_diff() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let spec = example("llm-finetune-a100.yaml");
    gpuform()
        .args([
            "render",
            spec.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .assert()
        .success();
    gpuform()
        .args([
            "render",
            spec.to_str().unwrap(),
            "--check",
            out.to_str().unwrap(),
        ])
        .assert()
        .success()
        .stderr(predicate::str::contains("up to date"));

    let bicep = out.join("main.bicep");
    let edited = std::fs::read_to_string(&bicep)
        .unwrap()
        .replace("capacity: 0", "capacity: 3");
    std::fs::write(&bicep, edited).unwrap();
    std::fs::write(out.join("extra.json"), "{}").unwrap();
    gpuform()
        .args([
            "render",
            spec.to_str().unwrap(),
            "--check",
            out.to_str().unwrap(),
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("--- ").and(predicate::str::contains("+++ ")))
        .stdout(
            predicate::str::contains("-    capacity: 3")
                .and(predicate::str::contains("+    capacity: 0")),
        )
        .stdout(predicate::str::contains("extra.json"))
        .stderr(predicate::str::contains("out of date"));
    // --check never writes
    assert!(
        std::fs::read_to_string(&bicep)
            .unwrap()
            .contains("capacity: 3")
    );
}

#[test]
fn stdout_prints_one_file_of_one_spec() {
    gpuform()
        .args([
            "render",
            example("pretrain-nd-h100.yaml").to_str().unwrap(),
            "--stdout",
        ])
        .assert()
        .success()
        .stdout(golden("pretrain-nd-h100", "main.bicep"));
    gpuform()
        .args([
            "render",
            example("pretrain-nd-h100.yaml").to_str().unwrap(),
            "--stdout",
            "azuredeploy.json",
        ])
        .assert()
        .success()
        .stdout(golden("pretrain-nd-h100", "azuredeploy.json"));
    gpuform()
        .args(["render", example("").to_str().unwrap(), "--stdout"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("single spec"));
    gpuform()
        .args([
            "render",
            example("pretrain-nd-h100.yaml").to_str().unwrap(),
            "--stdout",
            "nope.txt",
        ])
        .assert()
        .code(2);
}

#[test]
fn specs_with_errors_are_refused_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("bad.yaml");
    let text = std::fs::read_to_string(example("dev-notebook-t4.yaml"))
        .unwrap()
        .replace("max: 1", "max: 0");
    std::fs::write(&spec, text).unwrap();
    let out = tmp.path().join("out");
    gpuform()
        .args([
            "render",
            spec.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("error"));
    assert!(!out.exists());
    assert!(leftovers(tmp.path()).is_empty());
}

#[test]
fn a_target_is_required() {
    gpuform()
        .args(["render", example("dev-notebook-t4.yaml").to_str().unwrap()])
        .assert()
        .code(2);
}

#[test]
fn a_directory_counts_infos_per_directory_and_verbose_prints_them() {
    let tmp = tempfile::tempdir().unwrap();
    let examples = example("");
    let run = |verbose: bool| {
        let mut c = gpuform();
        c.args(["render", examples.to_str().unwrap(), "-o"])
            .arg(tmp.path().join(if verbose { "v" } else { "q" }));
        if verbose {
            c.arg("--verbose");
        }
        let out = c.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stderr).unwrap()
    };
    let quiet = run(false);
    let loud = run(true);
    let infos = |s: &str| s.lines().filter(|l| l.starts_with("info")).count();
    let warnings = |s: &str| s.lines().filter(|l| l.starts_with("warning")).count();
    assert!(infos(&loud) > 0, "{loud}");
    assert_eq!(infos(&quiet), 0, "{quiet}");
    // warnings are printed per spec either way
    assert_eq!(warnings(&quiet), warnings(&loud), "{quiet}");
    let summary = quiet
        .lines()
        .find(|l| l.contains(" infos in ") && l.ends_with("(not shown)"))
        .unwrap_or_else(|| panic!("no per-directory summary: {quiet}"));
    let dir = examples.to_str().unwrap().trim_end_matches('/');
    assert!(
        summary.starts_with(&format!("{dir}: {} infos in ", infos(&loud))),
        "{summary}"
    );
    assert!(quiet.contains("--verbose"), "{quiet}");
    assert!(!loud.contains("(not shown)"), "{loud}");
    assert!(
        quiet.len() * 4 < loud.len(),
        "{} vs {}",
        quiet.len(),
        loud.len()
    );
}

/// The benchmark hook of `.ci/render-scale` (issue 41): with GPUFORM_BENCH_WRITE_TO the same
/// process writes the files it rendered again, every one byte for byte into the same layout,
/// and prints the two times and their ratio; without it nothing extra is written or printed.
#[test]
fn the_write_benchmark_hook_copies_the_render_and_prints_the_ratio() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, copy) = (tmp.path().join("out"), tmp.path().join("copy"));
    let a = gpuform()
        .env("GPUFORM_BENCH_WRITE_TO", &copy)
        .args([
            "render",
            example("shortvideo-transcode.yaml").to_str().unwrap(),
            example("windows-viz-nv.yaml").to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    let line = stderr
        .lines()
        .find(|l| l.starts_with("bench: render "))
        .unwrap_or_else(|| panic!("no bench line in {stderr}"));
    assert!(
        line.contains("writing the same 10 files") && line.contains("x on wall"),
        "{line}"
    );
    for dir in ["shortvideo-transcode", "cad-viz"] {
        for f in FILES {
            assert_eq!(
                std::fs::read(copy.join(dir).join(f)).unwrap(),
                std::fs::read(out.join(dir).join(f)).unwrap(),
                "{dir}/{f}"
            );
        }
    }
    let plain = tmp.path().join("plain");
    let a = gpuform()
        .env_remove("GPUFORM_BENCH_WRITE_TO")
        .args([
            "render",
            example("windows-viz-nv.yaml").to_str().unwrap(),
            "-o",
            plain.to_str().unwrap(),
        ])
        .assert()
        .success();
    assert!(!String::from_utf8_lossy(&a.get_output().stderr).contains("bench:"));
}
