//! Tests of `plan/gpu_monitoring` on checked specs (`crate::check::check_file`, then the GPU
//! monitoring plan or `Plan::build`). They live in the check layer, above the plan: a test inside
//! `plan` that ran the check would import a floor above its own.

use serde_json::Value;

use crate::catalog::prices::PriceTable;
use crate::plan::gpu_monitoring::*;

/// KQL words that are not column references: operators, functions, literals.
pub(crate) const KQL_WORDS: &[&str] = &[
    "where",
    "and",
    "or",
    "not",
    "summarize",
    "by",
    "extend",
    "project",
    "avg",
    "max",
    "min",
    "count",
    "countif",
    "dcount",
    "sum",
    "make_set",
    "take_any",
    "strcat",
    "strcat_array",
    "round",
    "bin",
    "now",
    "ago",
    "dayofweek",
    "hourofday",
    "datetime_part",
    "toint",
    "case",
    "min_of",
    "max_of",
    "array_sort_asc",
    "isnotnull",
    "isnotempty",
    "order",
    "desc",
    "asc",
    "startofmonth",
    "in",
    "todatetime",
    "tostring",
    "datetime_utc_to_local",
    "coalesce",
    "iff",
    "real",
    "null",
    "let",
    "join",
    "kind",
    "inner",
    "on",
    "union",
    "arg_max",
    "toscalar",
    "endswith",
    "type",
    "h",
    "m",
    "d",
    "true",
    "false",
    "source",
];

/// Identifiers of a KQL query outside string literals, and the names it defines
/// (`Name = ...` in extend/summarize/project).
/// The columns a query's result has: those of its last `summarize` (the names it assigns and
/// its `by` keys) or `project`, plus what later `extend`s add. A dimension or a measure must
/// be one of them: a column an earlier stage defined and a `summarize` dropped is not.
pub(crate) fn result_columns(q: &str) -> Vec<String> {
    let stages: Vec<&str> = q.split("\n| ").map(str::trim).collect();
    let last = stages
        .iter()
        .rposition(|st| st.starts_with("summarize ") || st.starts_with("project "))
        .expect("a query that shapes its result");
    let name_of = |item: &str| -> String {
        let item = item.trim();
        match item.split_once(" = ") {
            Some((n, _)) => n.trim().to_string(),
            None => item.to_string(),
        }
    };
    // split at top-level commas (not inside parentheses)
    let items = |text: &str| -> Vec<String> {
        let (mut depth, mut cur, mut out) = (0i32, String::new(), Vec::new());
        for ch in text.chars() {
            match ch {
                '(' => depth += 1,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    out.push(std::mem::take(&mut cur));
                    continue;
                }
                _ => {}
            }
            cur.push(ch);
        }
        out.push(cur);
        out.into_iter().map(|i| name_of(&i)).collect()
    };
    let st = stages[last];
    let mut cols = if let Some(body) = st.strip_prefix("summarize ") {
        let (aggs, by) = body.split_once(" by ").unwrap_or((body, ""));
        let mut v = items(aggs);
        if !by.is_empty() {
            v.extend(items(by));
        }
        v
    } else {
        items(st.trim_start_matches("project "))
    };
    for st in &stages[last + 1..] {
        if let Some(body) = st.strip_prefix("extend ") {
            cols.extend(items(body));
        }
    }
    cols
}

#[test]
fn result_columns_follow_the_last_summarize() {
    let cols = result_columns(
        "T\n| extend A = 1\n| summarize N = count(), M = max(round(X, 1)) by Computer, G = tostring(GpuIndex)\n| extend P = N * 2",
    );
    assert_eq!(cols, ["N", "M", "Computer", "G", "P"]);
    // A was defined before the summarize and dropped by it
    assert!(!cols.contains(&"A".to_string()));
}

pub(crate) fn kql_idents(q: &str) -> (Vec<String>, Vec<String>) {
    let mut used = Vec::new();
    let mut defined = Vec::new();
    let chars: Vec<char> = q.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // `Name =` (not `==`) defines a column
            let mut j = i;
            while j < chars.len() && chars[j] == ' ' {
                j += 1;
            }
            let defines =
                j < chars.len() && chars[j] == '=' && chars.get(j + 1).is_some_and(|c| *c != '=');
            // a number's unit (5m, 1d, 1h) directly after digits
            let after_digit = start > 0 && chars[start - 1].is_ascii_digit();
            if defines {
                defined.push(word);
            } else if !after_digit {
                used.push(word);
            }
        } else {
            i += 1;
        }
    }
    (used, defined)
}

fn plan_of(example: &str) -> GpuMonitoring {
    let c = crate::check::check_file(
        std::path::Path::new(example),
        &crate::spec::policy::Policy::default(),
        PriceTable::embedded(),
    );
    let spec = c.spec.as_ref().unwrap();
    plan(&spec.metadata.name, &spec.spec, c.size().unwrap()).expect("gpu monitoring on")
}

/// The custom-data check's cut-down plan gives the custom data (and the size Azure receives)
/// the full plan gives, for every example and render variant that monitors its GPUs, with and
/// without a user cloud-init file; it leaves out only the emitters' alerts and workbook.
#[test]
fn the_custom_data_plan_gives_the_full_plans_custom_data() {
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for dir in ["examples", "tests/fixtures/render/variants"] {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "yaml") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut compared = 0;
    for f in &files {
        let c = crate::check::check_file(
            f,
            &crate::spec::policy::Policy::default(),
            PriceTable::embedded(),
        );
        let (Some(spec), Some(size)) = (c.spec.as_ref(), c.size()) else {
            continue;
        };
        let full = plan(&spec.metadata.name, &spec.spec, size);
        let on = crate::spec::defaults::gpu_monitoring_enabled(&spec.spec, Some(size));
        let cut = for_custom_data(&spec.metadata.name, &spec.spec, size, on);
        assert_eq!(full.is_some(), cut.is_some(), "{}", f.display());
        let (Some(full), Some(cut)) = (full, cut) else {
            continue;
        };
        assert!(cut.alerts.is_empty() && cut.workbook.serialized_data.is_empty());
        assert_eq!(
            (full.kind, full.delivery, full.expected_gpus, full.dce),
            (cut.kind, cut.delivery, cut.expected_gpus, cut.dce),
            "{}",
            f.display()
        );
        for user in [None, Some(&b"#cloud-config\npackages: [jq]\n"[..])] {
            for env in ["", "GPUFORM_X=1\n"] {
                assert_eq!(
                    custom_data_for_env(&full, user, env).map_err(|e| e.0),
                    custom_data_for_env(&cut, user, env).map_err(|e| e.0),
                    "{}",
                    f.display()
                );
            }
        }
        compared += 1;
    }
    assert!(compared >= 4, "only {compared} specs monitor their GPUs");
}

#[test]
fn every_alert_query_refers_only_to_declared_columns() {
    for ex in [
        "examples/shortvideo-transcode.yaml",
        "examples/llm-finetune-a100.yaml",
        "examples/pretrain-nd-h100.yaml",
        "examples/windows-viz-nv.yaml",
    ] {
        let g = plan_of(ex);
        let declared: Vec<&str> = COLUMNS.iter().map(|c| c.name).collect();
        let mut queries: Vec<(String, String)> = g
            .alerts
            .iter()
            .map(|a| (a.name.clone(), a.query.clone()))
            .collect();
        queries.push(("transform".into(), g.transform_kql.clone()));
        for (name, q) in queries {
            let (used, defined) = kql_idents(&q);
            assert!(
                used.iter().any(|u| u == TABLE || name == "transform"),
                "{name}: no table"
            );
            for u in &used {
                let known = u == TABLE
                    || KQL_WORDS.contains(&u.as_str())
                    || declared.contains(&u.as_str())
                    || defined.contains(u);
                assert!(known, "{ex} {name}: `{u}` is not a column of {TABLE}:\n{q}");
            }
            // every alert dimension and the measure are columns of the result
            if let Some(a) = g.alerts.iter().find(|a| a.name == name) {
                let result = result_columns(&q);
                for d in a.dimensions.iter().chain([&a.measure]) {
                    assert!(
                        result.iter().any(|x| x == d),
                        "{name}: {d} is not a column of the result {result:?}"
                    );
                }
            }
        }
    }
}

/// An alert instance is one combination of dimension values: a dimension carrying a number
/// (a percentage, a count, a price) opens a new alert, and a new notification, whenever the
/// number moves. Dimensions name the VM, the GPU or the kind of fault; numbers are measures.
#[test]
fn alert_dimensions_name_what_is_affected_never_a_number() {
    for ex in [
        "examples/shortvideo-transcode.yaml",
        "examples/windows-viz-nv.yaml",
    ] {
        let g = plan_of(ex);
        for a in &g.alerts {
            for d in &a.dimensions {
                assert!(
                    ["Computer", "GpuIndex", "Kind"].contains(d),
                    "{ex} {}: dimension {d}",
                    a.name
                );
            }
            assert!(["Maximum", "Total"].contains(&a.time_aggregation));
            assert!(a.email_subject.contains(METRIC_VALUE), "{}", a.name);
        }
        let fault = g.alerts.iter().find(|a| a.sym == "gpuAlertFaults").unwrap();
        // one alert per VM and kind of fault (gpu-missing, xid, ecc-uncorrected, ...): the
        // Xid codes and counts are columns of the result, not dimensions
        assert_eq!(fault.dimensions, ["Computer", "Kind"]);
        assert!(
            fault
                .query
                .ends_with("| project Computer, Kind, FaultSamples"),
            "{}",
            fault.query
        );
        let vram = g.alerts.iter().find(|a| a.sym == "gpuAlertVram").unwrap();
        assert_eq!(vram.dimensions, ["Computer", "GpuIndex"]);
        assert_eq!(vram.threshold, 90);
    }
}

/// The pool workbook puts the instances against the queue, the capacity, the profile Azure
/// selected (AutoscaleEvaluationsLog, which the autoscale setting's diagnostic setting sends)
/// and the jobs the workload reports.
#[test]
fn a_fixed_pool_workbook_has_no_autoscale_charts() {
    let g = plan_of("examples/pretrain-nd-h100.yaml");
    let data: Value = serde_json::from_str(&g.workbook.serialized_data).unwrap();
    let titles: Vec<&str> = data["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["content"]["title"].as_str())
        .collect();
    assert!(
        titles.iter().all(|t| !t.contains("autoscale")),
        "{titles:?}"
    );
    assert!(titles.iter().any(|t| t.contains("GPU utilisation per VM")));
}

#[test]
fn the_pool_workbook_shows_queue_capacity_profile_and_jobs() {
    let g = plan_of("examples/shortvideo-transcode.yaml");
    let data: Value = serde_json::from_str(&g.workbook.serialized_data).unwrap();
    let queries: Vec<&str> = data["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["content"]["query"].as_str())
        .collect();
    for needle in [
        "by Priority",
        "\"ActiveMessages\"",
        "\"ObservedCapacity\"",
        "AutoscaleEvaluationsLog\n| where ProfileSelected == true",
        "max(RunningJobs)",
    ] {
        assert!(
            queries.iter().any(|q| q.contains(needle)),
            "{needle} in {queries:#?}"
        );
    }
}

/// A workbook query sees only its time range: a "this month" query needs a month of it.
#[test]
fn month_to_date_tiles_see_the_whole_month() {
    let g = plan_of("examples/llm-finetune-a100.yaml");
    let data: Value = serde_json::from_str(&g.workbook.serialized_data).unwrap();
    let mut monthly = 0;
    for item in data["items"].as_array().unwrap() {
        let q = item["content"]["query"].as_str().unwrap_or("");
        if q.contains("startofmonth(now())") {
            monthly += 1;
            let ms = item["content"]["timeContext"]["durationMs"]
                .as_u64()
                .unwrap();
            assert!(ms >= 31 * 86_400_000, "{}: {ms} ms", item["name"]);
        }
    }
    assert!(monthly >= 1);
}

/// Every idleMinutes the rule lets through renders as a window the service documents.
#[test]
fn idle_windows_are_the_ones_azure_takes() {
    let documented = [
        "PT5M", "PT10M", "PT15M", "PT30M", "PT45M", "PT1H", "PT2H", "PT3H", "PT4H", "PT5H", "PT6H",
        "P1D", "P2D",
    ];
    let rendered: Vec<String> = ALERT_WINDOWS_MINUTES
        .iter()
        .map(|m| idle_window(*m))
        .collect();
    assert_eq!(rendered, documented);
}

#[test]
fn the_tokenizer_catches_an_undeclared_column() {
    let (used, _) = kql_idents("GpuTelemetry_CL | where GpuUtil > 5 and Status == \"Gpu x\"");
    assert!(used.contains(&"GpuUtil".to_string()));
    assert!(!used.contains(&"x".to_string()));
    assert!(!COLUMNS.iter().any(|c| c.name == "GpuUtil"));
}

#[test]
fn the_idle_query_follows_the_schedules() {
    let g = plan_of("examples/shortvideo-transcode.yaml");
    let q = &g.alerts[0].query;
    // the evening peak keeps 6 instances: idle ones up to 6 are not waste then
    assert!(
        q.contains("datetime_utc_to_local(now(), \"Asia/Shanghai\")"),
        "{q}"
    );
    assert!(
        q.contains("| extend ProfileMin = case(Age == Age0, "),
        "{q}"
    );
    assert!(q.contains(", 6"), "{q}");
    assert!(q.contains("AvgUtilization < 10"), "{q}");
    assert!(g.alerts[0].description.contains("/h each"));
}

#[test]
fn custom_data_merges_as_multipart_mime() {
    let user = b"#cloud-config\npackages: [ffmpeg]\n";
    let out = String::from_utf8(custom_data(Some(user), 1, "nvidia").unwrap()).unwrap();
    assert!(out.starts_with("Content-Type: multipart/mixed; boundary="));
    assert!(out.contains("Content-Type: text/cloud-config; charset=\"utf-8\""));
    assert!(out.contains("packages: [ffmpeg]\n"));
    assert!(out.contains("Content-Type: text/x-shellscript"));
    assert!(out.trim_end().ends_with(&format!("--{MIME_BOUNDARY}--")));
    // no user file: the script alone
    let alone = String::from_utf8(custom_data(None, 8, "nvidia").unwrap()).unwrap();
    assert!(alone.starts_with("#!/bin/sh\n"));
    assert!(alone.contains("gpuform-gpu collect 8 nvidia\n"));
    let amd = String::from_utf8(custom_data(None, 8, "amd").unwrap()).unwrap();
    assert!(amd.contains("gpuform-gpu collect 8 amd\n"));
    assert!(amd.contains("GPU sample (amd-smi to "));
    // a format cloud-init multipart cannot carry is refused with a reason
    let err = custom_data(Some(b"Content-Type: multipart/mixed\n"), 1, "nvidia").unwrap_err();
    assert!(err.0.contains("multipart MIME"), "{}", err.0);
}

/// Samples land on the minute (a calendar timer, 1 s accuracy), so every minute a VM runs
/// has its sample: `simulate --telemetry` and the dev box's running hours count minutes. A
/// monotonic timer (OnUnitActiveSec) drifts by the run time and skips minutes.
#[test]
fn the_collector_samples_on_the_minute() {
    let script = install_script(1, "nvidia");
    assert!(
        script.contains("OnCalendar=*-*-* *:*:00\nAccuracySec=1s\n"),
        "{script}"
    );
    assert!(!script.contains("OnUnitActiveSec"));
}

#[test]
fn ingestion_estimate_states_its_arithmetic() {
    // 2 VMs x 1 GPU x 1440 rows/day x 400 bytes = 1.152 MB/day
    let gb = ingestion_gb_per_day(2.0, 1);
    assert!((gb - 0.001152).abs() < 1e-9, "{gb}");
}

/// GPU monitoring on a dev box (`plan/gpu_devbox.rs`), checked on whole plans.
mod dev_box {
    use serde_json::Value;

    use super::{KQL_WORDS, kql_idents, result_columns};
    use crate::catalog::prices::PriceTable;
    use crate::plan::gpu_monitoring::{COLUMNS, MONTH_MS, TABLE};

    fn plan_of(example: &str) -> crate::plan::Plan {
        let c = crate::check::check_file(
            std::path::Path::new(example),
            &crate::spec::policy::Policy::default(),
            PriceTable::embedded(),
        );
        crate::plan::Plan::build(&c).unwrap()
    }

    #[test]
    fn dev_box_queries_refer_only_to_declared_columns() {
        let declared: Vec<&str> = COLUMNS.iter().map(|c| c.name).collect();
        for ex in [
            "examples/dev-notebook-t4.yaml",
            "tests/fixtures/render/variants/devbox-windows.yaml",
        ] {
            let p = plan_of(ex);
            let g = p.gpu.as_ref().expect("dev boxes monitor their GPUs");
            let mut queries: Vec<(String, String, Vec<&str>)> = g
                .alerts
                .iter()
                .map(|a| {
                    // the dimensions and the measure must be columns of the result
                    let mut cols = a.dimensions.clone();
                    cols.push(a.measure);
                    (a.name.clone(), a.query.clone(), cols)
                })
                .collect();
            let wb: Value = serde_json::from_str(&g.workbook.serialized_data).unwrap();
            for it in wb["items"].as_array().unwrap() {
                if it["content"]["queryType"] == 0 {
                    queries.push((
                        it["name"].as_str().unwrap().into(),
                        it["content"]["query"].as_str().unwrap().into(),
                        vec![],
                    ));
                }
            }
            assert!(queries.len() >= 9, "{ex}: 4 alerts and 5 workbook queries");
            for (name, q, dims) in queries {
                let (used, defined) = kql_idents(&q);
                assert!(used.iter().any(|u| u == TABLE), "{ex} {name}: no table");
                for u in &used {
                    // the missing-telemetry rule also reads the agents' Heartbeat table, and
                    // both tables by `_ResourceId`, a standard column of every Logs table
                    let known = u == TABLE
                        || u == crate::facts::monitor::HEARTBEAT.table
                        || u == "_ResourceId"
                        || KQL_WORDS.contains(&u.as_str())
                        || declared.contains(&u.as_str())
                        || defined.contains(u);
                    assert!(known, "{ex} {name}: `{u}` is not a column of {TABLE}:\n{q}");
                }
                let result = if dims.is_empty() {
                    Vec::new()
                } else {
                    result_columns(&q)
                };
                for d in dims {
                    assert!(
                        result.iter().any(|x| x == d),
                        "{ex} {name}: dimension {d} is not a column of the result {result:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_idle_alert_is_about_a_box_left_on() {
        let p = plan_of("examples/dev-notebook-t4.yaml");
        let a = &p.gpu.as_ref().unwrap().alerts[0];
        assert_eq!(a.sym, "gpuAlertIdle");
        // rows through most of the hour (running), GPUs under the threshold (idle)
        assert!(a.query.contains("ReportedMinutes >= 45"), "{}", a.query);
        // the rule compares the measured average with the spec's threshold
        assert_eq!(
            (a.measure, a.operator, a.threshold),
            ("AvgUtilization", "LessThan", 10)
        );
        // no autoscale profile in a dev box's alert
        assert!(!a.query.contains("ProfileMin"), "{}", a.query);
        assert_eq!(a.dimensions, vec!["Computer"]);
        assert_eq!(a.window_size, "PT1H");
        for fix in [
            "autoShutdown.time",
            "startTime",
            "weekends: true",
            "/h while it runs",
        ] {
            assert!(a.description.contains(fix), "{fix}: {}", a.description);
        }
        let faults = &p.gpu.as_ref().unwrap().alerts[2];
        assert!(
            faults
                .description
                .contains("az vm redeploy --name vm-dev-notebook")
        );
        assert!(!faults.description.contains("Automatic repairs replaces"));
    }

    #[test]
    fn the_workbook_counts_the_month_and_has_no_autoscale() {
        let p = plan_of("examples/dev-notebook-t4.yaml");
        let wb: Value =
            serde_json::from_str(&p.gpu.as_ref().unwrap().workbook.serialized_data).unwrap();
        let items = wb["items"].as_array().unwrap();
        let text = wb.to_string();
        assert!(!text.contains("ObservedCapacity") && !text.contains("Queue"));
        for it in items {
            let q = it["content"]["query"].as_str().unwrap_or_default();
            if q.contains("startofmonth") {
                assert_eq!(it["content"]["timeContext"]["durationMs"], MONTH_MS, "{q}");
            }
        }
        // 08:00 to 19:00 on working days
        assert!(text.contains("in (0, 6), 0.0, 11.00)"), "{text}");
    }
}

/// The spec rules (`check/rules/compute.rs`, constant in `check/rules/stages.rs`) refuse cloud-init
/// files holding the MIME boundary the plan builds its multipart custom data with; the same string.
#[test]
fn the_boundary_is_the_one_render_uses() {
    let merged = custom_data(Some(b"#!/bin/sh\necho hi\n"), 1, "nvidia").unwrap();
    assert!(
        String::from_utf8(merged)
            .unwrap()
            .contains(crate::check::rules::MIME_BOUNDARY)
    );
}
