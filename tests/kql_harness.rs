//! The KQL test harness (tests/support/kql.rs) on a machine without duckdb-kql (issue 37, item 1):
//! `cargo test --locked` on a fresh clone used to panic with a broken pipe in it, because the
//! script exits before it reads the request. Here the harness runs with interpreters that cannot
//! import the engine (`python3 -I -S`: only the standard library on the path), with none at all,
//! and with ones that fail early: outside CI it skips loudly, with CI set it fails, and a child
//! that fails for another reason is reported with what it said, never as a broken pipe.

#[path = "support/kql.rs"]
mod kql;

use kql::Engine;
use serde_json::{Value, json};

/// A request larger than a pipe's buffer (64 KiB on Linux), so writing it to a child that
/// exits without reading always fails.
fn big_tables() -> Value {
    let rows: Vec<Value> = (0..20_000)
        .map(|i| json!([format!("vm-{i:05}"), i as f64 * 0.5]))
        .collect();
    let tables =
        json!({ "T": { "columns": [["Computer", "string"], ["Value", "real"]], "rows": rows } });
    assert!(tables.to_string().len() > 256 * 1024);
    tables
}

fn queries() -> Vec<String> {
    vec!["T | summarize n = count()".to_string()]
}

fn engine(python: &[&str], ci: bool) -> Engine {
    Engine {
        python: python.iter().map(|s| s.to_string()).collect(),
        ci,
    }
}

/// Standard library only: duckdb-kql cannot be imported whatever is installed.
const WITHOUT_ENGINE: &[&str] = &["python3", "-I", "-S"];

fn panic_text(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let err = std::panic::catch_unwind(f).expect_err("the harness must fail here");
    err.downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn without_duckdb_kql_the_queries_are_skipped_outside_ci() {
    let out = kql::run_with(
        &engine(WITHOUT_ENGINE, false),
        "the harness's own queries",
        big_tables(),
        &queries(),
    );
    assert!(out.is_none(), "nothing can have run: {out:?}");
}

#[test]
fn without_duckdb_kql_ci_fails_instead_of_skipping() {
    let msg = panic_text(|| {
        kql::run_with(
            &engine(WITHOUT_ENGINE, true),
            "the harness's own queries",
            big_tables(),
            &queries(),
        );
    });
    assert!(
        msg.contains("CI must run the harness's own queries"),
        "{msg}"
    );
    assert!(msg.contains("duckdb-kql missing"), "{msg}");
    assert!(!msg.contains("Broken pipe"), "{msg}");
}

#[test]
fn without_python_the_queries_are_skipped_outside_ci_and_fail_in_ci() {
    let none = ["/nonexistent/gpuform-test/python3"];
    assert!(kql::run_with(&engine(&none, false), "q", big_tables(), &queries()).is_none());
    let msg = panic_text(|| {
        kql::run_with(&engine(&none, true), "q", big_tables(), &queries());
    });
    assert!(msg.contains("cannot be started"), "{msg}");
}

#[test]
fn a_child_that_fails_before_reading_is_reported_with_what_it_said() {
    // exits 1 before reading: not a skip (only exit 3 means "engine missing"), and not a broken pipe
    let failing = [
        "python3",
        "-c",
        "import sys; sys.stderr.write('engine exploded'); sys.exit(1)",
    ];
    for ci in [false, true] {
        let msg = panic_text(|| {
            kql::run_with(&engine(&failing, ci), "q", big_tables(), &queries());
        });
        assert!(msg.contains("the KQL engine refused"), "{msg}");
        assert!(msg.contains("engine exploded"), "{msg}");
    }
}

#[test]
fn a_child_that_exits_0_without_answering_fails() {
    let silent = ["python3", "-c", "pass"];
    let msg = panic_text(|| {
        kql::run_with(&engine(&silent, false), "q", big_tables(), &queries());
    });
    assert!(msg.contains("without reading the request"), "{msg}");
}

#[test]
fn ci_is_read_as_the_runners_set_it() {
    // the variable is process-wide: read it in a child, never set it in this process
    let exe = std::env::current_exe().unwrap();
    for (value, want) in [
        ("true", "ci"),
        ("1", "ci"),
        ("false", "local"),
        ("", "local"),
    ] {
        let out = std::process::Command::new(&exe)
            .args([
                "--exact",
                "print_ci_probe",
                "--nocapture",
                "--include-ignored",
            ])
            .env("CI", value)
            .env("GPUFORM_KQL_CI_PROBE", "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains(&format!("probe={want}")),
            "CI={value:?}: {stdout}"
        );
    }
}

/// Run by [`ci_is_read_as_the_runners_set_it`] in a child process.
#[test]
#[ignore = "a probe run by ci_is_read_as_the_runners_set_it in a child process"]
fn print_ci_probe() {
    if std::env::var_os("GPUFORM_KQL_CI_PROBE").is_some() {
        println!("probe={}", if kql::in_ci() { "ci" } else { "local" });
    }
}
