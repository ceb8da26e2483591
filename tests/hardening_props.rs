//! Property tests for hostile input (issue 10):
//! - across policies: when `validate` says OK under a policy, render, cost, show (and
//!   preflight's and deploy's offline parts) accept the spec and do not panic;
//! - a fuzz target over bytes and over YAML structure (mutations of the examples): every command's
//!   in-process pipeline finishes without a panic, in bounded time and memory.
//!
//! Case counts are small by default (the suite runs on 2 shared cores); `PROPTEST_CASES=N` raises
//! them (`.ci/run` gives the fuzz target a larger, still bounded, budget).

use std::path::PathBuf;
use std::time::Duration;

// CPU-time budgets (shared with the unit tests of src/simulate/load)
#[path = "support/cpu_budget.rs"]
mod cpu_budget;
use cpu_budget::Budget;

use gpuform::catalog::prices::PriceTable;
use gpuform::check::check_source;
use gpuform::cost::{self, Options, PriceBook};
use gpuform::diag::Severity;
use gpuform::diag::rules::RULES;
use gpuform::plan::Plan;
use gpuform::spec::{Checked, Policy};
use proptest::prelude::*;

const EXAMPLES: [&str; 5] = [
    include_str!("../examples/shortvideo-transcode.yaml"),
    include_str!("../examples/llm-finetune-a100.yaml"),
    include_str!("../examples/pretrain-nd-h100.yaml"),
    include_str!("../examples/dev-notebook-t4.yaml"),
    include_str!("../examples/windows-viz-nv.yaml"),
];

/// `PROPTEST_CASES` when set, else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn check(text: &str, policy: &Policy) -> Checked {
    // `examples/` so the shortvideo example's cloudInit resolves
    check_source(
        text.to_string(),
        "prop.yaml",
        PathBuf::from("examples"),
        policy,
        PriceTable::embedded(),
    )
}

/// What a spec that validated must survive: everything after `validate`, in process.
fn later_stages(c: &Checked, policy: &Policy) -> Result<(), String> {
    let spec = c.spec.as_ref().ok_or("validated without a model")?;
    // render
    let plan = Plan::build(c).map_err(|e| format!("render refused: {e}"))?;
    gpuform::emit::render_plan(&plan).map_err(|e| format!("render refused: {e}"))?;
    // cost (embedded prices)
    let size = c.size().ok_or("no size")?;
    let est = cost::estimate(
        spec,
        &plan,
        "prop.yaml",
        size,
        c.auto_sized,
        &PriceBook::embedded(),
        &Options {
            today: "2026-01-01".into(),
            ..Options::default()
        },
    );
    serde_json::to_string(&est).map_err(|e| format!("cost report: {e}"))?;
    // show: its output validates again, without errors, under the same policy
    let value = serde_json::to_value(spec).map_err(|e| e.to_string())?;
    let shown = gpuform::report::yaml::to_yaml(&value);
    if shown.starts_with('\u{feff}') {
        return Err("show wrote a byte-order mark".into());
    }
    let again = check(&shown, policy);
    if again.has_errors() {
        return Err(format!(
            "show's output does not validate: {:?}\n{shown}",
            again
                .diagnostics
                .iter()
                .filter(|d| d.is_error())
                .collect::<Vec<_>>()
        ));
    }
    // preflight's plan and deploy's parameter handling (their offline parts)
    let pf = gpuform::preflight::plan::Plan::from_spec(spec, &[]);
    if pf.targets.is_empty() {
        return Err("preflight has no region to check".into());
    }
    let template = gpuform::emit::arm::template(&plan);
    let _ = gpuform::deploy::secure_params(&template, &serde_json::Map::new());
    Ok(())
}

/// Values that move numbers and names across the rules' boundaries.
fn semantic_value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("0".to_string()),
        Just("1".to_string()),
        Just("2".to_string()),
        Just("5".to_string()),
        Just("100".to_string()),
        Just("1000".to_string()),
        Just("-1".to_string()),
        Just("0.5".to_string()),
        Just("true".to_string()),
        Just("false".to_string()),
        Just("uniform".to_string()),
        Just("flexible".to_string()),
        Just("\"00:00\"".to_string()),
        Just("\"23:59\"".to_string()),
        Just("[50, 50]".to_string()),
        Just("[100, 50]".to_string()),
        Just("[]".to_string()),
        Just("PT30S".to_string()),
        Just("P30D".to_string()),
        Just("admin".to_string()),
        Just("kv--x".to_string()),
        Just("Deallocate".to_string()),
        Just("0.0.0.0/1".to_string()),
        Just("224.0.0.0/4".to_string()),
        Just("auto".to_string()),
        Just("Standard_NC4as_T4_v3".to_string()),
        Just("Standard_ND96isr_H100_v5".to_string()),
        Just("westeurope".to_string()),
        Just("dev".to_string()),
    ]
}

/// One edit of an example's lines.
fn mutate(text: &str, ops: &[(u8, prop::sample::Index, String)]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for (op, idx, value) in ops {
        if lines.is_empty() {
            break;
        }
        let i = idx.index(lines.len());
        match op % 4 {
            0 => {
                lines.remove(i);
            }
            1 => {
                let l = lines[i].clone();
                lines.insert(i, l);
            }
            _ => {
                // replace a value: `key: value`, or the n-th value of a flow mapping
                if let Some(pos) = lines[i].find(": ") {
                    let key = lines[i][..pos + 2].to_string();
                    let rest = &lines[i][pos + 2..];
                    lines[i] = if rest.starts_with('{') && rest.contains(',') {
                        // keep the flow mapping, change its last value
                        let cut = rest.rfind(": ").unwrap_or(0);
                        let close = if rest.ends_with('}') { "}" } else { "" };
                        format!("{key}{}: {value}{close}", &rest[..cut])
                    } else {
                        format!("{key}{value}")
                    };
                }
            }
        }
    }
    lines.join("\n") + "\n"
}

fn policy_strategy() -> impl Strategy<Value = Vec<(prop::sample::Index, u8)>> {
    prop::collection::vec((any::<prop::sample::Index>(), 0u8..4), 0..25)
}

fn build_policy(choices: &[(prop::sample::Index, u8)]) -> Policy {
    let overridable: Vec<_> = RULES.iter().filter(|r| r.overridable()).collect();
    let mut p = Policy::default();
    for (idx, level) in choices {
        let rule = overridable[idx.index(overridable.len())];
        let sev = match level {
            0 => None,
            1 => Some(Severity::Warning),
            2 => Some(Severity::Info),
            _ => Some(Severity::Error),
        };
        p.overrides.insert(rule.id.to_string(), sev);
    }
    p
}

/// Every overridable rule switched off: the most a policy can allow.
fn everything_off() -> Policy {
    let mut p = Policy::default();
    for r in RULES.iter().filter(|r| r.overridable()) {
        p.overrides.insert(r.id.to_string(), None);
    }
    p
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(48), ..ProptestConfig::default() })]

    #[test]
    fn what_validate_accepts_under_any_policy_every_stage_accepts(
        which in 0usize..5,
        ops in prop::collection::vec((0u8..4, any::<prop::sample::Index>(), semantic_value()), 1..5),
        policy in policy_strategy(),
        all_off in any::<bool>(),
    ) {
        let text = mutate(EXAMPLES[which], &ops);
        let policy = if all_off { everything_off() } else { build_policy(&policy) };
        let c = check(&text, &policy);
        if !c.has_errors()
            && let Err(e) = later_stages(&c, &policy)
        {
            return Err(TestCaseError::fail(format!("{e}\n--- spec ---\n{text}\n--- policy ---\n{:?}", policy.overrides)));
        }
    }
}

/// The regression the issue reports: `cost` panicked on min > max once a policy switched off
/// `capacity-order` / `schedule-out-of-range`; now those rules cannot be switched off.
#[test]
fn rules_later_stages_depend_on_cannot_be_switched_off() {
    for id in [
        "capacity-order",
        "schedule-out-of-range",
        "autoscale-profile-limit",
        "cloud-init",
        "inbound-invalid",
    ] {
        let e = Policy::from_yaml(&format!("rules:\n  {id}: off\n")).unwrap_err();
        assert!(e.contains("cannot be changed"), "{id}: {e}");
    }
    let text = EXAMPLES[1].replacen("    min: 0", "    min: 50", 1);
    assert!(text.contains("min: 50"));
    let c = check(&text, &everything_off());
    assert!(c.has_errors(), "{:?}", c.diagnostics);
    // the all-Spot Uniform pool a policy may allow still renders and prices; a regular share on
    // Uniform stays an error
    let uniform = EXAMPLES[0].replacen(
        "    vmSize: Standard_NC8as_T4_v3\n",
        "    vmSize: Standard_NC8as_T4_v3\n    orchestration: uniform\n",
        1,
    );
    let c = check(&uniform, &everything_off());
    assert!(
        c.diagnostics
            .iter()
            .any(|d| d.rule == "spot-needs-flexible" && d.is_error()),
        "{:?}",
        c.diagnostics
    );
}

#[test]
fn every_example_survives_every_stage_with_everything_off() {
    for e in EXAMPLES {
        let c = check(e, &everything_off());
        assert!(!c.has_errors(), "{:?}", c.diagnostics);
        later_stages(&c, &everything_off()).unwrap();
        // and with the default policy, with a byte-order mark in front
        let bom = format!("\u{feff}{e}");
        let c = check(&bom, &Policy::default());
        assert!(!c.has_errors(), "{:?}", c.diagnostics);
        later_stages(&c, &Policy::default()).unwrap();
    }
}

// --- the fuzz target -----------------------------------------------------------------------

/// Resets the process's peak resident memory to what it holds now (Linux: `5` to
/// `/proc/self/clear_refs`), so the next [`peak_rss_mib`] measures one case, not the highest
/// point of every case and every test that ran before it in this process. (The high-water mark
/// is process-wide and never falls on its own: without the reset, CI once saw 1,121 MiB reported
/// against a 190 KB input that needs 30 MB alone.) Tests running in parallel in the same
/// process still add to it; `.ci/fuzz` runs this file on one thread.
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Peak resident memory of this process since the last reset (Linux), in MiB.
fn peak_rss_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// Run every stage on `text`, within a time budget; memory is checked by the caller.
fn fuzz_one(text: &str) {
    let budget = Budget::start();
    let policy = Policy::default();
    let c = check(text, &policy);
    // bounded output: no rule reports more than the cap (plus its summary line)
    let mut per_rule = std::collections::HashMap::new();
    for d in &c.diagnostics {
        *per_rule.entry(d.rule.as_str()).or_insert(0usize) += 1;
    }
    for (rule, n) in per_rule {
        assert!(n <= gpuform::spec::MAX_PER_RULE + 1, "{rule}: {n}");
    }
    if !c.has_errors() {
        later_stages(&c, &policy).unwrap();
    }
    // debug build: generous CPU time, but far below the minutes a quadratic or exponential
    // path takes (CPU time, so a loaded machine does not fail it)
    if let Err(e) = budget.check(Duration::from_secs(10)) {
        panic!("{e} for {} bytes", text.len());
    }
}

/// Structural edits that stress the parser and the rules: aliases, repetition, long scalars.
fn structural_edit() -> impl Strategy<Value = (u8, prop::sample::Index, usize)> {
    (0u8..6, any::<prop::sample::Index>(), 1usize..3000)
}

fn apply_structural(text: &str, edits: &[(u8, prop::sample::Index, usize)]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for (op, idx, n) in edits {
        if lines.is_empty() {
            break;
        }
        let i = idx.index(lines.len());
        match op {
            // repeat a line many times (schedules, inbound rules, tags ...)
            0 => {
                let l = lines[i].clone();
                for _ in 0..*n {
                    lines.insert(i, l.clone());
                }
            }
            // anchor a value and alias it many times
            1 => {
                if let Some(pos) = lines[i].find(": ") {
                    let (k, v) = lines[i].split_at(pos + 2);
                    lines[i] = format!("{k}&z {v}");
                    let indent: String = lines[i].chars().take_while(|c| *c == ' ').collect();
                    let mut seq = format!("{indent}zz:");
                    for _ in 0..*n {
                        seq.push_str(&format!("\n{indent}  - *z"));
                    }
                    lines.insert(i + 1, seq);
                }
            }
            // a very long scalar
            2 => {
                if let Some(pos) = lines[i].find(": ") {
                    let key = lines[i][..pos + 2].to_string();
                    lines[i] = format!("{key}\"{}\"", "x".repeat(n * 100));
                }
            }
            // deep nesting
            3 => lines.insert(i, format!("{}x", "- ".repeat(*n % 200))),
            // a byte-order mark where it does not belong, and control characters
            4 => lines[i].insert_str(0, ["\u{feff}", "\u{85}", "\t", "\u{2028}"][n % 4]),
            _ => {
                lines.remove(i);
            }
        }
    }
    lines.join("\n") + "\n"
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(32), ..ProptestConfig::default() })]

    #[test]
    fn fuzz_bytes(bytes in prop::collection::vec(any::<u8>(), 0..4096), which in 0usize..5, splice in any::<bool>()) {
        // raw bytes, or bytes spliced into an example (so the parser gets further)
        let text = if splice {
            let e = EXAMPLES[which];
            let at = bytes.first().map_or(0, |b| *b as usize * e.len() / 256);
            let at = (0..=at).rev().find(|i| e.is_char_boundary(*i)).unwrap_or(0);
            format!("{}{}{}", &e[..at], String::from_utf8_lossy(&bytes), &e[at..])
        } else {
            String::from_utf8_lossy(&bytes).into_owned()
        };
        fuzz_one(&text);
    }

    #[test]
    fn fuzz_yaml_structure(which in 0usize..5, edits in prop::collection::vec(structural_edit(), 1..4)) {
        let text = apply_structural(EXAMPLES[which], &edits);
        reset_peak_rss();
        if text.len() <= gpuform::spec::MAX_FILE_BYTES as usize {
            fuzz_one(&text);
        }
        if let Some(mib) = peak_rss_mib() {
            prop_assert!(mib < 1024, "peak RSS {mib} MiB");
        }
    }
}

/// The worst inputs of the issue, each in well under a second of work and bounded memory.
#[test]
fn the_issues_worst_inputs_are_cheap() {
    // 2,000 overlapping schedules (~200 KB)
    let sched = "      - {name: s, timeZone: UTC, days: [Monday], start: \"01:00\", end: \"23:00\", min: 0, max: 1}\n";
    let mut text = EXAMPLES[0].to_string();
    let at = text.find("    schedules:\n").unwrap() + "    schedules:\n".len();
    text.insert_str(at, &sched.repeat(2000));
    let budget = Budget::start();
    let c = check(&text, &Policy::default());
    budget.check(Duration::from_secs(3)).unwrap();
    assert!(c.diagnostics.len() < 50, "{}", c.diagnostics.len());
    assert!(
        c.diagnostics.iter().any(|d| d.message.contains("20")
            && d.pointer.as_deref() == Some("/spec/autoscale/schedules")),
        "{:?}",
        c.diagnostics
    );
    // a 100 KB string aliased 9,000 times (136 KB)
    let mut bomb = format!("a: &big \"{}\"\nb:\n", "x".repeat(100_000));
    for _ in 0..9_000 {
        bomb.push_str("  - *big\n");
    }
    let budget = Budget::start();
    let c = check(&bomb, &Policy::default());
    budget.check(Duration::from_secs(3)).unwrap();
    assert_eq!(c.diagnostics[0].rule, "yaml-alias-limit");
    if let Some(mib) = peak_rss_mib() {
        assert!(mib < 1024, "peak RSS {mib} MiB");
    }
}

// --- the file readers (issue 26): traces and telemetry exports -------------------------------

const TRACE_INTERVALS: [&str; 10] = [
    "PT1M",
    "PT5M",
    "PT1H",
    "P1D",
    "P300D",
    "P367D",
    "PT18446744073709551600S",
    "PT0S",
    "P",
    "soon",
];
const TRACE_VALUES: [&str; 8] = ["-1e308", "-5", "0", "3", "1e9", "1e308", "null", "2.5"];
const EXPORT_VALUES: [&str; 10] = [
    "NaN", "inf", "-inf", "-3", "0", "2048", "1e300", "None", "", "81920.5",
];

fn minute(m: u64) -> String {
    let t = jiff::Timestamp::from_second(1_793_577_600 + (m as i64) * 60).unwrap();
    t.to_string()
}

/// A trace: CSV or `az monitor metrics list` JSON, with duplicates, gaps, huge offsets and values.
fn trace_text(json: bool, interval: usize, points: &[(u64, usize)]) -> String {
    if json {
        let data: Vec<String> = points
            .iter()
            .map(|(m, v)| {
                format!(
                    r#"{{"timeStamp": "{}", "total": {}}}"#,
                    minute(*m),
                    TRACE_VALUES[*v]
                )
            })
            .collect();
        format!(
            r#"{{"interval": "{}", "value": [{{"name": {{"value": "IncomingMessages"}}, "timeseries": [{{"data": [{}]}}]}}]}}"#,
            TRACE_INTERVALS[interval],
            data.join(",")
        )
    } else {
        let mut s = String::from("timestamp,arrivals\n");
        for (m, v) in points {
            s.push_str(&format!("{},{}\n", minute(*m), TRACE_VALUES[*v]));
        }
        s
    }
}

/// An export: az CLI JSON rows, the REST `tables` answer or CSV, with impossible values.
fn export_text(form: u8, rows: &[(u64, u8, u8, usize, usize)]) -> String {
    let cell = |v: &str| -> String {
        match v {
            "None" | "" => format!("\"{v}\""),
            "NaN" | "inf" | "-inf" => format!("\"{v}\""),
            other => other.to_string(),
        }
    };
    match form {
        0 => {
            let r: Vec<String> = rows
                .iter()
                .map(|(m, vm, g, mem, util)| {
                    format!(
                        r#"{{"TimeGenerated": "{}", "Computer": "vm{vm}", "GpuIndex": "{g}", "MemoryUsedMiB": {}, "UtilizationPercent": {}, "Status": "ok"}}"#,
                        minute(*m),
                        cell(EXPORT_VALUES[*mem]),
                        cell(EXPORT_VALUES[*util])
                    )
                })
                .collect();
            format!("[{}]", r.join(","))
        }
        1 => {
            let r: Vec<String> = rows
                .iter()
                .map(|(m, vm, g, mem, util)| {
                    format!(
                        r#"["{}", "vm{vm}", {g}, {}, {}, "ok"]"#,
                        minute(*m),
                        cell(EXPORT_VALUES[*mem]),
                        cell(EXPORT_VALUES[*util])
                    )
                })
                .collect();
            format!(
                r#"{{"tables": [{{"name": "PrimaryResult", "columns": [{{"name": "TimeGenerated"}}, {{"name": "Computer"}}, {{"name": "GpuIndex"}}, {{"name": "MemoryUsedMiB"}}, {{"name": "UtilizationPercent"}}, {{"name": "Status"}}], "rows": [{}]}}]}}"#,
                r.join(",")
            )
        }
        _ => {
            let mut s = String::from(
                "TimeGenerated,Computer,GpuIndex,MemoryUsedMiB,UtilizationPercent,Status\n",
            );
            for (m, vm, g, mem, util) in rows {
                s.push_str(&format!(
                    "{},vm{vm},{g},{},{},ok\n",
                    minute(*m),
                    EXPORT_VALUES[*mem],
                    EXPORT_VALUES[*util]
                ));
            }
            s
        }
    }
}

fn minute_offset() -> impl Strategy<Value = u64> {
    // mostly near the start (duplicates and gaps), sometimes far beyond a year
    prop_oneof![8 => 0u64..400, 1 => 0u64..2_000_000, 1 => Just(10_000_000u64)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(32), ..ProptestConfig::default() })]

    #[test]
    fn trace_readers_are_bounded(
        json in any::<bool>(),
        interval in 0usize..TRACE_INTERVALS.len(),
        points in prop::collection::vec((minute_offset(), 0usize..TRACE_VALUES.len()), 0..600),
        repeat in 1usize..40,
    ) {
        let mut pts = points.clone();
        // many points at one timestamp
        if let Some(first) = points.first() {
            pts.extend(std::iter::repeat_n(*first, repeat * 10));
        }
        let text = trace_text(json, interval, &pts);
        reset_peak_rss();
        let budget = Budget::start();
        let r = gpuform::simulate::load::parse("t", &text, None);
        let spent = budget.check(Duration::from_secs(5));
        prop_assert!(spent.is_ok(), "{:?}", spent);
        if let Ok(t) = &r {
            prop_assert!(t.minutes() <= gpuform::simulate::load::MAX_MINUTES);
            prop_assert_eq!(t.missing.len(), t.arrivals.len());
        }
        if let Err(e) = &r {
            prop_assert!(e.to_string().len() < 2000, "{} bytes", e.to_string().len());
        }
        if let Some(mib) = peak_rss_mib() {
            prop_assert!(mib < 512, "peak RSS {mib} MiB");
        }
    }

    #[test]
    fn export_readers_are_bounded_and_never_measure_impossible_values(
        form in 0u8..3,
        rows in prop::collection::vec(
            (minute_offset(), 0u8..4, 0u8..8, 0usize..EXPORT_VALUES.len(), 0usize..EXPORT_VALUES.len()),
            0..800,
        ),
    ) {
        let text = export_text(form, &rows);
        reset_peak_rss();
        let budget = Budget::start();
        if let Ok(p) = gpuform::gpu_report::read_peaks(&text) {
            prop_assert!(p.rows + p.impossible <= rows.len());
            let c = check(EXAMPLES[1], &Policy::default());
            let r = gpuform::gpu_report::report_peaks(c.spec.as_ref().unwrap(), &p, PriceTable::embedded());
            prop_assert!(r.measured_peak_gib.is_finite() && r.measured_peak_gib >= 0.0);
            let shown = gpuform::gpu_report::to_text(&r);
            for bad in ["NaN GiB", "inf GiB", ": inf", ": NaN", "NaN%", "inf%"] {
                prop_assert!(!shown.contains(bad), "{}", shown);
            }
        }
        let trace = gpuform::simulate::load::Trace {
            start: jiff::Timestamp::from_second(1_793_577_600).unwrap(),
            arrivals: vec![2; 500],
            missing: vec![false; 500],
            source: "t".into(),
        };
        if let Ok(m) = gpuform::simulate::measured::measure("x", &text, &trace, 10, 1) {
            prop_assert!(m.instance_hours.is_finite());
            prop_assert!(m.busy_instance_hours + m.idle_instance_hours <= m.instance_hours + 1e-9);
            prop_assert!(m.estimated_job_minutes.is_none_or(|x| x.is_finite()));
        }
        let spent = budget.check(Duration::from_secs(5));
        prop_assert!(spent.is_ok(), "{:?}", spent);
        if let Some(mib) = peak_rss_mib() {
            prop_assert!(mib < 512, "peak RSS {mib} MiB");
        }
    }

    #[test]
    fn show_output_validates_and_shows_again_identically(
        items in prop::collection::vec("[a-z\\[\\],{}#:&*!|>'\"%@` -]{0,12}", 0..5),
        value in "[a-z\\[\\],{}#:&*!|>'\"%@`\n -]{0,16}",
    ) {
        let v = serde_json::json!({"spec": {"monitoring": {"alertEmails": items}, "note": value, "tags": {value.clone(): "x"}}});
        let shown = gpuform::report::yaml::to_yaml(&v);
        let back = gpuform::spec::yaml::parse(&shown).map_err(|e| TestCaseError::fail(format!("{}\n{shown}", e.message)))?.value;
        prop_assert_eq!(&back, &v, "{}", shown);
        prop_assert_eq!(gpuform::report::yaml::to_yaml(&back), shown);
    }
}

#[test]
fn show_of_a_spec_with_flow_indicators_in_a_list_validates_again() {
    let text = EXAMPLES[1].replacen(
        "    alertEmails: [ml-oncall@example.com]\n",
        "    alertEmails: [\"stu[dio@example.com\", \"ops]@example.com\"]\n",
        1,
    );
    assert_ne!(text, EXAMPLES[1]);
    let c = check(&text, &Policy::default());
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let spec = c.spec.as_ref().expect("validates");
    let value = serde_json::to_value(spec).unwrap();
    let shown = gpuform::report::yaml::to_yaml(&value);
    let again = check(&shown, &Policy::default());
    assert!(!again.has_errors(), "{:?}\n{shown}", again.diagnostics);
    let value2 = serde_json::to_value(again.spec.as_ref().unwrap()).unwrap();
    assert_eq!(gpuform::report::yaml::to_yaml(&value2), shown);
}

/// Found by `show_output_validates_and_shows_again_identically`: a list item ending in ` -` was
/// written plain inside `[...]` (`[a -]`), which the reader refuses; every such item must re-read.
#[test]
fn show_of_list_items_with_spaces_and_dashes_reads_back() {
    for items in [
        vec!["a -"],
        vec!["- a", "b"],
        vec!["a - b", "x y"],
        vec!["a-", "-"],
    ] {
        let v = serde_json::json!({"spec": {"monitoring": {"alertEmails": items}}});
        let shown = gpuform::report::yaml::to_yaml(&v);
        let back = gpuform::spec::yaml::parse(&shown)
            .unwrap_or_else(|e| panic!("{}\n{shown}", e.message))
            .value;
        assert_eq!(back, v, "{shown}");
    }
}
