//! Runs KQL on synthetic tables with duckdb-kql (PyPI `duckdb-kql[duckdb]`) through
//! `tests/support/kql_run.py`. CI installs it (`.ci/run`) and must run the queries; elsewhere,
//! without it, the caller's tests say so loudly and skip.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// Each query's rows (objects; datetimes as naive ISO 8601 text, UTC) over `tables`
/// (`{NAME: {"columns": [[col, kql_type], ...], "rows": [[...], ...]}}`); `None` (after a loud
/// message naming `what` was not executed) when duckdb-kql is missing outside CI.
pub fn run(what: &str, tables: Value, queries: &[String]) -> Option<Vec<Vec<Value>>> {
    let req = json!({ "tables": tables, "queries": queries });
    let child = Command::new("python3")
        .arg("tests/support/kql_run.py")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        return skip(what, "python3 is not installed");
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(req.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    if out.status.code() == Some(3) {
        return skip(what, &String::from_utf8_lossy(&out.stderr));
    }
    assert!(
        out.status.success(),
        "the KQL engine refused a query gpuform sends:\n{}\n{queries:#?}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
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

fn skip<T>(what: &str, why: &str) -> Option<T> {
    if std::env::var_os("CI").is_some() {
        panic!("CI must run {what}: {why} (.ci/run installs duckdb-kql)");
    }
    eprintln!(
        "\n!!!!!!!! SKIPPED: {what} were NOT executed: {} — pip install 'duckdb-kql[duckdb]==1.1.2' !!!!!!!!\n",
        why.trim()
    );
    None
}
