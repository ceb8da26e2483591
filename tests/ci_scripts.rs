//! The CI scripts outside this workspace (issue 10, item 9): strict where the conformance kit
//! exists or CI says so, one clear line for a contributor without the kit.

use std::process::Command;

fn conformance(ci: Option<&str>) -> std::process::Output {
    let mut cmd = Command::new("bash");
    cmd.arg(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/conformance"))
        .env("CONFORMANCE_KIT", "/nonexistent/gpuform-conformance/check")
        .env_remove("CI");
    if let Some(ci) = ci {
        cmd.env("CI", ci);
    }
    cmd.output().unwrap()
}

#[test]
fn a_missing_conformance_kit_is_skipped_with_one_line_outside_ci() {
    let out = conformance(None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("SKIPPED conformance"), "{stderr}");
    assert!(stderr.contains("CONFORMANCE_KIT"), "{stderr}");
}

#[test]
fn a_missing_conformance_kit_fails_in_ci() {
    let out = conformance(Some("true"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("not found"), "{stderr}");
}

#[test]
fn ci_runs_the_readme_test_command_from_an_empty_cargo_home() {
    let run = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/run")).unwrap();
    assert!(
        run.contains("export CARGO_HOME=\"$fresh/cargo-home\" CARGO_TARGET_DIR=\"$fresh/target\"")
    );
    assert!(run.contains("\ncargo test --locked\n"));
}

#[test]
fn ci_proves_the_kql_tests_pass_without_duckdb_kql() {
    // issue 37, item 1: a fresh machine has no duckdb-kql; CI runs the KQL tests once with CI unset
    // and an interpreter that cannot import it, and requires that they pass and say they skipped
    let run = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/run")).unwrap();
    assert!(run.contains(
        "env -u CI GPUFORM_TEST_PYTHON='python3 -I -S' cargo test --locked --test gpu_alert_queries --test simulate_pull_kql"
    ));
    assert!(run.contains("grep -c 'SKIPPED: '"));
    let harness =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/kql.rs"))
            .unwrap();
    assert!(harness.contains("GPUFORM_TEST_PYTHON") && harness.contains("\"SKIPPED: \""));
}

#[test]
fn the_release_workflow_builds_every_platform_with_checksums_on_tags() {
    let wf = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/.github/workflows/release.yml"
    ))
    .unwrap();
    assert!(wf.contains("tags: [\"v*\"]"), "runs on tags v*");
    for target in [
        "x86_64-unknown-linux-gnu",
        "aarch64-unknown-linux-gnu",
        "aarch64-apple-darwin",
        "x86_64-apple-darwin",
        "x86_64-pc-windows-msvc",
    ] {
        assert!(wf.contains(&format!("target: {target}")), "{target}");
    }
    assert!(wf.contains("sha256sum") && wf.contains("SHA256SUMS"));
    assert!(wf.contains("gh release upload"));
    // and CI validates it against the GitHub workflow schema
    let pipelines =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/pipelines")).unwrap();
    assert!(pipelines.contains("vendor.github-workflows .github/workflows/release.yml"));
    // and the action and the Azure Pipelines template against theirs (issue 37, item 7)
    assert!(pipelines.contains("vendor.github-actions action.yml"));
    assert!(pipelines.contains("ci/azure-pipelines/gpuform.yml"));
}
