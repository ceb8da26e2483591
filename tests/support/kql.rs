//! Runs KQL on synthetic tables with duckdb-kql (PyPI `duckdb-kql[duckdb]`) through
//! `tests/support/kql_run.py`. CI installs it (`.ci/run`) and must run the queries; elsewhere,
//! without it, the caller's tests say so loudly and skip (issue 37, item 1: a fresh clone's
//! `cargo test --locked` passes with only Rust and a C compiler).
//!
//! `GPUFORM_TEST_PYTHON` names the interpreter (default `python3`); `.ci/run` points it at one
//! that cannot import duckdb-kql to prove the skip path, and tests/kql_harness.rs runs this file
//! with such interpreters.

#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// Which interpreter runs the script, and whether a missing engine fails (CI) or skips.
pub struct Engine {
    pub python: Vec<String>,
    pub ci: bool,
}

impl Engine {
    /// `GPUFORM_TEST_PYTHON` (words split on blanks; default `python3`) and `CI`.
    pub fn from_env() -> Engine {
        let python = std::env::var("GPUFORM_TEST_PYTHON")
            .ok()
            .filter(|p| !p.trim().is_empty())
            .unwrap_or_else(|| "python3".into());
        Engine {
            python: python.split_whitespace().map(str::to_string).collect(),
            ci: in_ci(),
        }
    }
}

/// `CI` set to anything but empty, `0` or `false` (GitHub Actions and Azure Pipelines set
/// `CI=true`; `.ci/run` is run with it).
pub fn in_ci() -> bool {
    std::env::var("CI")
        .map(|v| !matches!(v.trim().to_ascii_lowercase().as_str(), "" | "0" | "false"))
        .unwrap_or(false)
}

/// Each query's rows (objects; datetimes as naive ISO 8601 text, UTC) over `tables`
/// (`{NAME: {"columns": [[col, kql_type], ...], "rows": [[...], ...]}}`); `None` (after a loud
/// message naming `what` was not executed) when duckdb-kql is missing outside CI.
pub fn run(what: &str, tables: Value, queries: &[String]) -> Option<Vec<Vec<Value>>> {
    run_with(&Engine::from_env(), what, tables, queries)
}

/// [`run`] with a given interpreter and CI setting.
pub fn run_with(
    engine: &Engine,
    what: &str,
    tables: Value,
    queries: &[String],
) -> Option<Vec<Vec<Value>>> {
    let req = json!({ "tables": tables, "queries": queries }).to_string();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/kql_run.py");
    let (exe, args) = engine.python.split_first().expect("an interpreter");
    let child = Command::new(exe)
        .args(args)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return skip(engine, what, &format!("`{exe}` cannot be started: {e}")),
    };
    // the script exits 3 before it reads stdin when the engine is missing, so a write may fail
    // with a broken pipe: write from a thread, and judge by the exit status first
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || stdin.write_all(req.as_bytes()));
    let out = match child.wait_with_output() {
        Ok(out) => out,
        Err(e) => panic!("waiting for `{exe}` running {script} failed: {e}"),
    };
    let written = writer.join().expect("the writer thread");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(3) {
        return skip(engine, what, &stderr);
    }
    assert!(
        out.status.success(),
        "the KQL engine refused a query gpuform sends ({}):\n{stderr}\n{queries:#?}",
        out.status
    );
    if let Err(e) = written {
        panic!("the KQL engine exited 0 without reading the request ({e}):\n{stderr}");
    }
    match serde_json::from_slice(&out.stdout) {
        Ok(v) => Some(v),
        Err(e) => panic!(
            "the KQL engine's answer is not the JSON kql_run.py writes ({e}):\n{}\n{stderr}",
            String::from_utf8_lossy(&out.stdout)
        ),
    }
}

/// The `GpuTelemetry_CL` table for [`run`]: the stream's columns as gpuform declares them, each
/// row's cells from `cell(row, column name)`.
pub fn gpu_table<R>(rows: &[R], cell: impl Fn(&R, &str) -> Value) -> Value {
    use gpuform::plan::gpu_monitoring::COLUMNS;
    let columns: Vec<Value> = COLUMNS
        .iter()
        .map(|c| json!([c.name, c.stream_type]))
        .collect();
    let rows: Vec<Value> = rows
        .iter()
        .map(|r| Value::Array(COLUMNS.iter().map(|c| cell(r, c.name)).collect()))
        .collect();
    json!({ "columns": columns, "rows": rows })
}

/// The text a skip prints (tests/kql_harness.rs and `.ci/run` look for it).
pub const SKIPPED: &str = "SKIPPED: ";

fn skip<T>(engine: &Engine, what: &str, why: &str) -> Option<T> {
    if engine.ci {
        panic!(
            "CI must run {what}: {} (.ci/run installs duckdb-kql; CI is set, so this fails instead of skipping)",
            why.trim()
        );
    }
    // straight to stderr, not through eprintln!: the test harness captures that and shows it only
    // for a failing test, and a skip must be seen on a passing run
    let _ = writeln!(
        std::io::stderr(),
        "\n!!!!!!!! {SKIPPED}{what} were NOT executed: {} — pip install 'duckdb-kql[duckdb]==1.1.2' (CI is not set, so this skips) !!!!!!!!\n",
        why.trim()
    );
    None
}
