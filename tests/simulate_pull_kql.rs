//! The workspace queries of `simulate SPEC -g RG` (issue 22 item 7) executed by a KQL engine on
//! synthetic `GpuTelemetry_CL` rows, against the `--telemetry FILE` path on the same rows.
//!
//! The query text is the one gpuform sends ([`pull::totals_query`], [`pull::telemetry_query`]
//! over the spans of [`pull::days`]), run by duckdb-kql (`tests/support/kql.rs`; CI installs it,
//! elsewhere the test says loudly that it skipped). The engine's rows are put in the Logs Query
//! API's answer shape (`tables[{name, columns[{name, type}], rows}]`, Learn's response format,
//! `tests/fixtures/sources/log-query-api.json`) and read by the code that reads the workspace's
//! answer ([`pull::totals`], [`pull::add_minutes`]). The same rows, written as the CSV export
//! `--telemetry FILE` reads, go through [`measured::counts`].
//!
//! "Agree" means, on the same rows and window:
//! - per minute of the window: the same VMs reporting and the same idle VMs (`Counts::per_minute`
//!   equal, minute for minute, including which minutes have telemetry at all);
//! - the same samples that count (`rows_in_window`), the same `ok` rows with an impossible
//!   utilisation inside the window (`impossible`) and the same distinct VMs (`vms`; Azure's
//!   `dcountif` is an estimate, exact on an engine that counts; gpuform only shows it);
//! - hence the same measured figures ([`measured::from_counts`]: instance-hours, idle and busy
//!   hours, peak, minutes covered, job time);
//! - `rows` differs by definition: the workspace counts the window's rows, a file all its rows;
//!   each is checked against the rows the test wrote.
//!
//! Where duckdb-kql and Azure differ, the rows are written as Azure holds them: a `string`
//! column cannot be null in Kusto ("The string data type doesn't support null values",
//! https://learn.microsoft.com/kusto/query/scalar-data-types/null-values, read 2026-12-04), so a
//! missing Computer or Status is `""`, never null (duckdb-kql would group a null Computer apart
//! from `""`).

#[path = "support/kql.rs"]
mod kql;

use std::time::Instant;

use gpuform::plan::gpu_monitoring::TABLE;
use gpuform::simulate::load::Trace;
use gpuform::simulate::measured::{self, Counts};
use gpuform::simulate::pull;
use jiff::Timestamp;
use serde_json::{Value, json};

/// The window's end: 30 hours back from it is 2026-10-24T00:30Z, so the first day's span crosses
/// midnight UTC and the second holds Europe's autumn clock change (2026-10-25 01:00 UTC), an
/// hour the spec's local time lives twice.
const END: &str = "2026-10-25T06:30:00Z";
const MINUTES: u64 = 30 * 60;
const THRESHOLD: u32 = 10;
const WS: &str = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.OperationalInsights/workspaces/log-kql";

/// A utilisation cell: a number, none, or what JSON cannot carry.
#[derive(Clone, Copy, Debug)]
enum Util {
    V(f64),
    Null,
    NaN,
    Inf,
}

/// One raw `GpuTelemetry_CL` row.
#[derive(Clone, Debug)]
struct Row {
    t: Timestamp,
    computer: &'static str,
    gpu: Option<i64>,
    util: Util,
    status: &'static str,
}

fn at(start: Timestamp, minute: i64, millis: i64) -> Timestamp {
    Timestamp::from_millisecond(start.as_millisecond() + minute * 60_000 + millis).unwrap()
}

/// The pool's rows from two minutes before the window to two after, and a few at its edges.
fn rows(start: Timestamp, end: Timestamp) -> Vec<Row> {
    use Util::*;
    let mut v = Vec::new();
    let mut push = |t, computer, gpu, util, status| {
        v.push(Row {
            t,
            computer,
            gpu,
            util,
            status,
        })
    };
    for m in -2..MINUTES as i64 + 2 {
        // vm-a, 2 GPUs, every minute: works 6 minutes in 10, idles (2 %) the others; every
        // third minute a second sample per GPU (idle 12 %: the minute still averages 7 %)
        let busy = m.rem_euclid(10) < 6;
        for g in 0..2 {
            push(
                at(start, m, 5_000),
                "vm-a",
                Some(g),
                V(if busy { 80.0 } else { 2.0 }),
                "ok",
            );
            if m.rem_euclid(3) == 0 {
                push(
                    at(start, m, 35_000),
                    "vm-a",
                    Some(g),
                    V(if busy { 70.0 } else { 12.0 }),
                    "ok",
                );
            }
        }
        // vm-b, 2 GPUs, two hours in three (the pool scales): averages exactly the threshold
        // (9.5 and 10.5: not idle) on even minutes, 9.75 (idle) on odd ones
        if m.div_euclid(60).rem_euclid(3) != 2 {
            let g0 = if m.rem_euclid(2) == 0 { 9.5 } else { 9.0 };
            push(at(start, m, 20_000), "vm-b", Some(0), V(g0), "ok");
            push(at(start, m, 20_000), "vm-b", Some(1), V(10.5), "ok");
        }
        // vm-c: health rows, an empty Status with a utilisation (counts as ok), an upper-case
        // "OK" (not ok: the comparison is case-sensitive in both paths)
        if m.rem_euclid(5) == 0 {
            push(at(start, m, 40_000), "vm-c", None, Null, "gpu-missing");
        }
        if m.rem_euclid(7) == 0 {
            push(at(start, m, 41_000), "vm-c", Some(0), V(50.0), "");
        }
        if m.rem_euclid(11) == 0 {
            push(at(start, m, 42_000), "vm-c", Some(0), V(0.0), "OK");
        }
        // vm-d, 1 GPU, at the last millisecond of its minute: no utilisation, 250, -5, NaN,
        // infinity, or 40 %
        let u = match m.rem_euclid(6) {
            0 => Null,
            1 => V(250.0),
            2 => V(-5.0),
            3 => NaN,
            4 => Inf,
            _ => V(40.0),
        };
        push(at(start, m, 59_999), "vm-d", Some(0), u, "ok");
        // a row with no Computer: no VM to count
        if m.rem_euclid(13) == 0 {
            push(at(start, m, 30_000), "", Some(0), V(50.0), "ok");
        }
    }
    // the edges: half a second before the window, its last millisecond, its end exactly
    push(at(start, 0, -500), "vm-e", Some(0), V(90.0), "ok");
    push(at(start, 0, -400), "vm-e", Some(1), V(300.0), "ok");
    push(at(end, 0, -1), "vm-e", Some(0), V(90.0), "ok");
    push(at(end, 0, 0), "vm-e", Some(0), V(90.0), "ok");
    push(at(end, 0, 0), "vm-e", Some(1), V(-1.0), "ok");
    v
}

/// The rows as the table the workspace holds (naive UTC times, the engine's `datetime`).
fn kql_table(rows: &[Row]) -> Value {
    kql::gpu_table(rows, |r, c| match c {
        "TimeGenerated" => json!(r.t.to_string().trim_end_matches('Z')),
        "Computer" => json!(r.computer),
        "GpuIndex" => json!(r.gpu),
        "Status" => json!(r.status),
        "UtilizationPercent" => match r.util {
            Util::V(u) => json!(u),
            Util::Null => Value::Null,
            // the engine casts the text to its `real`
            Util::NaN => json!("NaN"),
            Util::Inf => json!("Infinity"),
        },
        _ => Value::Null,
    })
}

/// The rows as the CSV export `--telemetry FILE` reads.
fn csv(rows: &[Row]) -> String {
    let mut s = String::from("TimeGenerated,Computer,GpuIndex,UtilizationPercent,Status\n");
    for r in rows {
        let u = match r.util {
            Util::V(u) => u.to_string(),
            Util::Null => String::new(),
            Util::NaN => "NaN".into(),
            Util::Inf => "inf".into(),
        };
        let g = r.gpu.map(|g| g.to_string()).unwrap_or_default();
        s.push_str(&format!("{},{},{g},{u},{}\n", r.t, r.computer, r.status));
    }
    s
}

/// The engine's rows of one query as the Logs Query API answers them: the columns gpuform asks
/// for (and no others), datetimes in RFC 3339 UTC.
fn answer(rows: &[Value], columns: &[(&str, &str)]) -> Value {
    let out: Vec<Value> = rows
        .iter()
        .map(|r| {
            let o = r.as_object().unwrap();
            let mut names: Vec<&String> = o.keys().collect();
            names.sort();
            let mut want: Vec<&str> = columns.iter().map(|(n, _)| *n).collect();
            want.sort();
            assert_eq!(names, want, "the query's columns");
            Value::Array(
                columns
                    .iter()
                    .map(|(n, ty)| match (*ty, &o[*n]) {
                        ("datetime", Value::String(s)) => json!(format!("{s}Z")),
                        (_, v) => v.clone(),
                    })
                    .collect(),
            )
        })
        .collect();
    json!({"tables": [{
        "name": "PrimaryResult",
        "columns": columns.iter().map(|(n, t)| json!({"name": n, "type": t})).collect::<Vec<_>>(),
        "rows": out
    }]})
}

/// The minutes where the two paths differ, for the failure message.
fn differences(a: &Counts, b: &Counts) -> Vec<String> {
    let mut keys: Vec<&usize> = a.per_minute.keys().chain(b.per_minute.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| a.per_minute.get(k) != b.per_minute.get(k))
        .take(10)
        .map(|k| {
            format!(
                "minute {k}: workspace {:?}, file {:?}",
                a.per_minute.get(k),
                b.per_minute.get(k)
            )
        })
        .collect()
}

#[test]
fn the_workspace_queries_measure_what_the_telemetry_file_measures() {
    let clock = Instant::now();
    let end: Timestamp = END.parse().unwrap();
    let spans = pull::days(end, MINUTES).unwrap();
    let start = spans[0].0;
    assert_eq!(start, "2026-10-24T00:30:00Z".parse::<Timestamp>().unwrap());
    // 24 hours of absolute time, then the rest: the first span crosses midnight UTC, the second
    // holds the clock change
    let hours: Vec<i64> = spans
        .iter()
        .map(|(a, b)| b.duration_since(*a).as_secs() / 3600)
        .collect();
    assert_eq!(hours, [24, 6]);
    let rows = rows(start, end);
    let in_window = rows.iter().filter(|r| r.t >= start && r.t < end).count();

    let mut queries = vec![pull::totals_query(start, end)];
    queries.extend(
        spans
            .iter()
            .map(|(a, b)| pull::telemetry_query(*a, *b, THRESHOLD)),
    );
    let Some(out) = kql::run(
        "the workspace queries of simulate -g",
        json!({ TABLE: kql_table(&rows) }),
        &queries,
    ) else {
        return;
    };
    let engine = clock.elapsed();

    // the workspace path: the answers read by the code that reads Azure's
    let totals = answer(
        &out[0],
        &[
            ("Rows", "long"),
            ("Computers", "long"),
            ("Impossible", "long"),
        ],
    );
    let mut ws = pull::totals(WS, &totals)
        .unwrap()
        .expect("the window has rows");
    for day in &out[1..] {
        assert!(day.len() <= 1440, "a day answers at most 1,440 rows");
        let a = answer(
            day,
            &[
                ("Minute", "datetime"),
                ("Instances", "long"),
                ("Idle", "long"),
                ("Samples", "long"),
            ],
        );
        pull::add_minutes(&mut ws, WS, start, MINUTES as usize, &a).unwrap();
    }

    // the file path on the same rows
    let trace = Trace {
        start,
        arrivals: vec![2; MINUTES as usize],
        missing: vec![false; MINUTES as usize],
        source: "test".into(),
    };
    let file = measured::counts("gpu.csv", &csv(&rows), &trace, THRESHOLD).unwrap();

    assert!(
        ws.per_minute == file.per_minute,
        "per-minute VMs reporting / idle differ ({} minutes vs {}): {:#?}",
        ws.per_minute.len(),
        file.per_minute.len(),
        differences(&ws, &file)
    );
    assert_eq!(ws.rows_in_window, file.rows_in_window, "samples that count");
    assert_eq!(ws.impossible, file.impossible, "impossible utilisations");
    assert_eq!(ws.vms, file.vms, "distinct VMs");
    assert_eq!(ws.rows, in_window, "the workspace counts the window's rows");
    assert_eq!(file.rows, rows.len(), "a file counts all its rows");
    let (mw, mf) = (
        measured::from_counts(&ws, &trace, THRESHOLD, 2),
        measured::from_counts(&file, &trace, THRESHOLD, 2),
    );
    assert_eq!(
        measured::Measured {
            source: String::new(),
            rows: 0,
            ..mw.clone()
        },
        measured::Measured {
            source: String::new(),
            rows: 0,
            ..mf.clone()
        }
    );

    // the rows exercise what they are meant to
    assert_eq!(
        ws.vms, 5,
        "vm-a to vm-d, and vm-e by its row in the window's last millisecond; not the empty Computer"
    );
    assert_eq!(
        ws.per_minute.len(),
        MINUTES as usize,
        "vm-a reports every minute"
    );
    let idle: u32 = ws.per_minute.values().map(|(_, i)| i).sum();
    let peak = ws.per_minute.values().map(|(n, _)| *n).max().unwrap();
    assert!(
        idle > 0 && mw.busy_instance_hours > 0.0 && peak == 4,
        "{mw:?}"
    );
    assert!(ws.impossible > 1000, "{}", ws.impossible);
    // the hour Europe lives twice (01:00-02:00 UTC) is 60 minutes like any other
    let dst = ("2026-10-25T01:00:00Z"
        .parse::<Timestamp>()
        .unwrap()
        .duration_since(start)
        .as_secs()
        / 60) as usize;
    assert_eq!(ws.per_minute.range(dst..dst + 60).count(), 60);
    eprintln!(
        "{} rows ({} in the window), {} minutes compared, {} queries; engine {:.1} s, total {:.1} s; measured {:.2} instance-hours, {:.2} idle",
        rows.len(),
        in_window,
        ws.per_minute.len(),
        queries.len(),
        engine.as_secs_f64(),
        clock.elapsed().as_secs_f64(),
        mw.instance_hours,
        mw.idle_instance_hours
    );
}
