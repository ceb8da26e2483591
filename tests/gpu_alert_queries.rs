//! The GPU log alerts executed on synthetic rows (issue 20): each rendered query, with `now()`
//! fixed, run by a KQL engine (duckdb-kql, PyPI, through tests/support/kql_run.py) over rows a
//! pool writes in the situations the alerts exist for, asserting fire / no fire.
//!
//! Why an engine rather than re-implementing the query logic in Rust: the assertion is then about
//! the query text Azure receives, not about a second copy of its logic. The engine translates KQL
//! to DuckDB SQL and refuses what it does not support rather than guessing. CI installs it
//! (.ci/run); elsewhere, without it, the tests say so loudly and skip.

#[path = "support/kql.rs"]
mod kql;

use std::path::Path;

use gpuform::catalog::prices::PriceTable;
use gpuform::check::check_file;
use gpuform::plan::Plan;
use gpuform::plan::gpu_monitoring::{LogAlert, TABLE};
use gpuform::spec::policy::Policy;
use serde_json::{Value, json};

fn plan(example: &str) -> Plan {
    let c = check_file(
        Path::new(example),
        &Policy::default(),
        PriceTable::embedded(),
    );
    Plan::build(&c).unwrap()
}

fn alert<'a>(p: &'a Plan, sym: &str) -> &'a LogAlert {
    p.gpu
        .as_ref()
        .unwrap()
        .alerts
        .iter()
        .find(|a| a.sym == sym)
        .unwrap_or_else(|| panic!("no {sym}"))
}

/// `now()` of the evaluation, as the service substitutes it.
const NOW: &str = "2027-03-24T12:00:00";

/// Minutes before [`NOW`] as KQL-free ISO text.
fn at(minutes_ago: i64) -> String {
    let t = time::PrimitiveDateTime::parse(
        NOW,
        &time::format_description::well_known::Iso8601::DEFAULT,
    )
    .unwrap()
        - time::Duration::minutes(minutes_ago);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:00",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute()
    )
}

#[derive(Clone)]
struct Row(serde_json::Map<String, Value>);

impl Row {
    fn ok(computer: &str, minutes_ago: i64, gpu: i64, util: Option<f64>) -> Row {
        let mut m = serde_json::Map::new();
        m.insert("TimeGenerated".into(), json!(at(minutes_ago)));
        m.insert("Computer".into(), json!(computer));
        m.insert("GpuIndex".into(), json!(gpu));
        m.insert("Status".into(), json!("ok"));
        m.insert("UtilizationPercent".into(), json!(util));
        m.insert("MemoryUsedMiB".into(), json!(1000.0));
        m.insert("MemoryTotalMiB".into(), json!(81920.0));
        m.insert("EccUncorrected".into(), json!(0));
        m.insert("XidErrors".into(), json!(0));
        m.insert("Healthy".into(), json!(true));
        Row(m)
    }
    fn health(computer: &str, minutes_ago: i64, status: &str) -> Row {
        let mut m = serde_json::Map::new();
        m.insert("TimeGenerated".into(), json!(at(minutes_ago)));
        m.insert("Computer".into(), json!(computer));
        m.insert("Status".into(), json!(status));
        m.insert("Healthy".into(), json!(false));
        m.insert("Message".into(), json!(format!("{status} on {computer}")));
        Row(m)
    }
    fn set(mut self, k: &str, v: Value) -> Row {
        self.0.insert(k.into(), v);
        self
    }
}

/// A VM that wrote one row a minute from `from` to `to` minutes ago (inclusive).
fn vm(computer: &str, from: i64, to: i64, util: Option<f64>) -> Vec<Row> {
    (to..=from).map(|m| Row::ok(computer, m, 0, util)).collect()
}

fn gpu_table(rows: &[Row]) -> Value {
    kql::gpu_table(rows, |r, c| r.0.get(c).cloned().unwrap_or(Value::Null))
}

/// AzureMetrics rows of the autoscale setting's ObservedCapacity: `(minutes ago, capacity)`.
fn capacity_table(setting: &str, points: &[(i64, f64)]) -> Value {
    json!({
        "columns": [["TimeGenerated", "datetime"], ["MetricName", "string"], ["Resource", "string"], ["Minimum", "real"], ["Average", "real"]],
        "rows": points.iter().map(|(m, v)| json!([at(*m), "ObservedCapacity", setting.to_uppercase(), v, v])).collect::<Vec<_>>()
    })
}

/// The query as the service runs it at [`NOW`].
fn at_now(q: &str) -> String {
    q.replace("now()", &format!("datetime({})", NOW.replace('T', " ")))
}

/// Run each query over the tables; `None` (after a loud message) when duckdb-kql is missing
/// outside CI.
fn run(tables: Value, queries: &[String]) -> Option<Vec<Vec<Value>>> {
    kql::run("the GPU alert queries", tables, queries)
}

/// The one row of a pool-wide rule's result.
fn one(rows: &[Value]) -> &Value {
    assert_eq!(rows.len(), 1, "{rows:?}");
    &rows[0]
}

fn num(v: &Value, col: &str) -> f64 {
    v[col].as_f64().unwrap_or_else(|| panic!("{col} in {v}"))
}

const FLEX: &str = "examples/llm-finetune-a100.yaml";

/// The idle rule on each case of issue 20, with the profile minimum the rule computes at NOW.
#[test]
fn the_idle_alert_fires_on_idle_capacity_above_the_minimum_and_only_then() {
    let p = plan(FLEX);
    let a = alert(&p, "gpuAlertIdle");
    let q = at_now(&a.query);
    let window = p.gpu.as_ref().unwrap().alerts[0].window_size.clone();
    assert_eq!(
        window, "PT1H",
        "the cases below are laid out for a 60-minute window"
    );
    let floor_rows = run(json!({ TABLE: gpu_table(&[]) }), std::slice::from_ref(&q));
    let Some(floor_rows) = floor_rows else { return };
    let min = num(one(&floor_rows[0]), "ProfileMin") as usize;
    let idle = Some(2.0);
    let busy = Some(85.0);
    // `min` VMs that stay all along (idle: the minimum may idle)
    let base = |rows: &mut Vec<Row>| {
        for i in 0..min {
            rows.extend(vm(&format!("base{i}"), 70, 0, idle));
        }
    };
    let mut cases: Vec<(&str, Vec<Row>, f64)> = Vec::new();
    // the seed's case: 3 instances above the minimum idle for the whole window after the jobs end
    let mut seed = Vec::new();
    base(&mut seed);
    for i in 0..3 {
        seed.extend(vm(&format!("extra{i}"), 70, 0, idle));
    }
    cases.push(("seed: idle above the minimum", seed, 3.0));
    // a correct scale-in: 3 idle VMs deleted 40 minutes ago
    let mut scale_in = Vec::new();
    base(&mut scale_in);
    for i in 0..3 {
        scale_in.extend(vm(&format!("gone{i}"), 70, 40, idle));
    }
    cases.push(("correct scale-in", scale_in, 0.0));
    // a fresh scale-out: 3 VMs added 5 minutes ago, not yet given work
    let mut scale_out = Vec::new();
    base(&mut scale_out);
    for i in 0..3 {
        scale_out.extend(vm(&format!("new{i}"), 5, 0, Some(0.0)));
    }
    cases.push(("fresh scale-out", scale_out, 0.0));
    // the first 30 minutes of a VM (idle while its model loads)
    let mut young = Vec::new();
    base(&mut young);
    for i in 0..3 {
        young.extend(vm(&format!("young{i}"), 29, 0, Some(0.0)));
    }
    cases.push(("first 30 minutes of a VM", young, 0.0));
    // busy VMs above the minimum: not idle
    let mut busy_rows = Vec::new();
    base(&mut busy_rows);
    for i in 0..3 {
        busy_rows.extend(vm(&format!("busy{i}"), 70, 0, busy));
    }
    cases.push(("busy above the minimum", busy_rows, 0.0));
    // a MIG GPU: no utilization.gpu; no memory in use is idle, memory in use is busy
    let mut mig = Vec::new();
    base(&mut mig);
    for m in 0..=70 {
        mig.push(Row::ok("mig-idle", m, 0, None).set("MemoryUsedMiB", json!(0.0)));
        mig.push(Row::ok("mig-busy", m, 0, None).set("MemoryUsedMiB", json!(40000.0)));
    }
    cases.push(("MIG: one idle, one busy", mig, 1.0));
    // rows without a Computer name no VM (as `simulate -g`'s pull reads them,
    // src/simulate/pull.rs): idle rows of an unnamed writer are not idle capacity
    let mut unnamed = Vec::new();
    base(&mut unnamed);
    unnamed.extend(vm("", 70, 0, idle));
    cases.push(("rows without a Computer", unnamed, 0.0));

    let queries: Vec<String> = cases.iter().map(|_| q.clone()).collect();
    for ((what, rows, want), _) in cases.iter().zip(&queries) {
        let out = run(json!({ TABLE: gpu_table(rows) }), std::slice::from_ref(&q)).unwrap();
        let r = one(&out[0]);
        assert_eq!(
            num(r, "IdleAboveMin"),
            *want,
            "{what} (profile min {min}): {r}\n{q}"
        );
        // the rule fires when IdleAboveMin > 0
        assert_eq!(
            num(r, "IdleAboveMin") > f64::from(a.threshold),
            *want > 0.0,
            "{what}"
        );
    }
}

#[test]
fn the_faults_alert_waits_for_the_driver_and_counts_new_ecc_errors_once_per_sample() {
    let p = plan(FLEX);
    let a = alert(&p, "gpuAlertFaults");
    let q = at_now(&a.query);
    let mut rows = Vec::new();
    // first boot: the collector starts before the driver extension installed nvidia-smi
    rows.extend((0..=10).map(|m| Row::health("booting", m, "nvidia-smi-failed")));
    // an older VM whose driver failed: reported
    rows.extend(vm("broken", 60, 11, Some(50.0)));
    rows.extend((0..=10).map(|m| Row::health("broken", m, "nvidia-smi-failed")));
    // a VM whose driver is still missing 45 minutes after its first sample: reported
    rows.extend((0..=45).map(|m| Row::health("nodriver", m, "tool-missing")));
    // a driver that took 29 minutes: health rows from the first sample (32 minutes ago) to 3
    // minutes ago, then ok. Inside its grace, never reported (the 20-minute grace it had before
    // issue 38 paged here with the samples of its minutes 22-29)
    rows.extend((3..=32).map(|m| Row::health("slowdriver", m, "nvidia-smi-failed")));
    rows.extend((0..=2).map(|m| Row::ok("slowdriver", m, 0, Some(50.0))));
    // an uncorrected ECC error 3 minutes ago: the counter goes 0 -> 1 and stays
    for m in 0..=60 {
        rows.push(
            Row::ok("ecc-new", m, 0, Some(50.0))
                .set("EccUncorrected", json!(if m <= 3 { 1 } else { 0 })),
        );
        // one error since the driver loaded, long ago: the counter stays at 1
        rows.push(Row::ok("ecc-old", m, 0, Some(50.0)).set("EccUncorrected", json!(1)));
    }
    // one Xid event at one sample of an 8-GPU VM, written on every GPU row
    for g in 0..8 {
        for m in 0..=60 {
            let xid = if m == 2 { 1 } else { 0 };
            rows.push(
                Row::ok("xid", m, g, Some(50.0))
                    .set("XidErrors", json!(xid))
                    .set("XidCodes", json!(if xid > 0 { "79" } else { "" })),
            );
        }
    }
    let Some(out) = run(json!({ TABLE: gpu_table(&rows) }), &[q.clone()]) else {
        return;
    };
    let mut fired: Vec<(String, String, f64)> = out[0]
        .iter()
        .map(|r| {
            (
                r["Computer"].as_str().unwrap().to_string(),
                r["Kind"].as_str().unwrap().to_string(),
                num(r, "FaultSamples"),
            )
        })
        .filter(|(_, _, n)| *n > f64::from(a.threshold))
        .collect();
    fired.sort_by(|x, y| x.partial_cmp(y).unwrap());
    assert_eq!(
        fired,
        vec![
            ("broken".to_string(), "nvidia-smi-failed".to_string(), 10.0),
            ("ecc-new".to_string(), "ecc-uncorrected".to_string(), 1.0),
            ("nodriver".to_string(), "tool-missing".to_string(), 10.0),
            ("xid".to_string(), "xid".to_string(), 1.0),
        ],
        "{q}"
    );
}

#[test]
fn the_missing_telemetry_alert_counts_running_instances_that_do_not_report() {
    let p = plan(FLEX);
    let a = alert(&p, "gpuAlertSilent");
    let setting = p.autoscale.as_ref().unwrap().name.clone();
    let q = at_now(&a.query);
    let steady: Vec<(i64, f64)> = (0..=60).map(|m| (m, 4.0)).collect();
    let mut four = Vec::new();
    for i in 0..4 {
        four.extend(vm(&format!("vm{i}"), 60, 0, Some(50.0)));
    }
    let three: Vec<Row> = four
        .iter()
        .filter(|r| r.0["Computer"] != "vm3")
        .cloned()
        .collect();
    let mut unnamed = three.clone();
    unnamed.extend(vm("", 60, 0, Some(50.0)));
    // a scale-out 10 minutes ago: 2 -> 4, the new VMs still booting
    let grew: Vec<(i64, f64)> = (0..=60)
        .map(|m| (m, if m <= 10 { 4.0 } else { 2.0 }))
        .collect();
    let two: Vec<Row> = four
        .iter()
        .filter(|r| ["vm0", "vm1"].contains(&r.0["Computer"].as_str().unwrap()))
        .cloned()
        .collect();
    let cases: Vec<(&str, Value, f64)> = vec![
        (
            "all four report",
            json!({ TABLE: gpu_table(&four), "AzureMetrics": capacity_table(&setting, &steady) }),
            0.0,
        ),
        (
            "one silent VM",
            json!({ TABLE: gpu_table(&three), "AzureMetrics": capacity_table(&setting, &steady) }),
            1.0,
        ),
        (
            "nothing arrives (no association)",
            json!({ TABLE: gpu_table(&[]), "AzureMetrics": capacity_table(&setting, &steady) }),
            4.0,
        ),
        (
            // rows without a Computer name no VM: they do not stand in for the silent one
            "one silent VM, and rows without a Computer",
            json!({ TABLE: gpu_table(&unnamed), "AzureMetrics": capacity_table(&setting, &steady) }),
            1.0,
        ),
        (
            "a fresh scale-out",
            json!({ TABLE: gpu_table(&two), "AzureMetrics": capacity_table(&setting, &grew) }),
            0.0,
        ),
    ];
    for (what, tables, want) in cases {
        let Some(out) = run(tables, std::slice::from_ref(&q)) else {
            return;
        };
        let r = one(&out[0]);
        assert_eq!(num(r, "SilentInstances"), want, "{what}: {r}\n{q}");
    }
}

/// "Which profile is in force" has one answer: the idle rule's `ProfileMin` at a given instant is
/// the minimum of the profile `simulate` (`Setting::timeline`, jiff's tz database) puts in force
/// then, across the 2027 daylight-saving changes of the Windows example (W. Europe Standard
/// Time). The engine has no time zones, so each `datetime_utc_to_local(now(), "<zone>")` is
/// replaced by the local time jiff computes for that instant; the rest of the rule runs as
/// rendered.
#[test]
fn the_idle_alerts_profile_minimum_follows_daylight_saving_as_simulate_does() {
    use gpuform::simulate::engine::Setting;
    use jiff::Timestamp;
    use jiff::tz::TimeZone;
    let p = plan("examples/windows-viz-nv.yaml");
    let q = alert(&p, "gpuAlertIdle").query.clone();
    let setting = Setting::from_plan(p.autoscale.as_ref().unwrap()).unwrap();
    let re_zone = "datetime_utc_to_local(now(), \"";
    let zones: Vec<String> = q
        .match_indices(re_zone)
        .map(|(i, _)| {
            let rest = &q[i + re_zone.len()..];
            rest[..rest.find('"').unwrap()].to_string()
        })
        .collect();
    assert!(
        !zones.is_empty(),
        "the rule converts now() into the schedules' zone:\n{q}"
    );
    // the instant, then every hour of the days around each 2027 DST change in Europe and
    // the US
    let mut instants = vec!["2027-03-29T05:30:00Z".to_string()];
    for day in [
        "2027-03-28",
        "2027-03-29",
        "2027-10-31",
        "2027-11-01",
        "2027-03-15",
        "2027-11-08",
    ] {
        for hour in 0..24 {
            instants.push(format!("{day}T{hour:02}:30:00Z"));
        }
    }
    let mut queries = Vec::new();
    let mut want = Vec::new();
    for t in &instants {
        let ts: Timestamp = t.parse().unwrap();
        let mut qt = q.clone();
        for z in &zones {
            let local = ts.to_zoned(TimeZone::get(z).unwrap()).datetime();
            qt = qt.replace(
                &format!("{re_zone}{z}\")"),
                &format!("datetime({})", local.strftime("%Y-%m-%d %H:%M:%S")),
            );
        }
        queries.push(qt.replace(
            "now()",
            &format!("datetime({})", &t[..19].replace('T', " ")),
        ));
        let active = setting.timeline(ts, 1)[0] as usize;
        want.push(setting.profiles[active].min);
    }
    let Some(out) = run(json!({ TABLE: gpu_table(&[]) }), &queries) else {
        return;
    };
    for ((t, rows), want) in instants.iter().zip(&out).zip(&want) {
        assert_eq!(
            num(one(rows), "ProfileMin") as u32,
            *want,
            "{t}: the rule's profile minimum against simulate's"
        );
    }
    // Monday 2027-03-29 05:30 UTC is 07:30 in Berlin (summer time): office hours, 10 instances
    assert_eq!(want[0], 10);
}

/// `status`'s "active profile" follows daylight saving: it is `simulate`'s answer (one model),
/// not a week laid out in standard-time offsets. Monday 2027-03-29 05:30 UTC is 07:30 in Berlin
/// (summer time since the 28th): office hours are in force (min 10). In standard time it would be
/// 06:30, before office hours. The same instant one week earlier (winter time, 06:30 local) is
/// before office hours.
#[test]
fn status_active_profile_follows_daylight_saving() {
    use gpuform::status::active_profile;
    let p = plan("examples/windows-viz-nv.yaml");
    let a = p.autoscale.as_ref().unwrap();
    let at = |s: &str| {
        time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339).unwrap()
    };
    let after = active_profile(a, at("2027-03-29T05:30:00Z")).unwrap();
    assert_eq!(after.1, 10, "{after:?}");
    assert!(after.0.contains("office-hours"), "{after:?}");
    let before = active_profile(a, at("2027-03-22T05:30:00Z")).unwrap();
    assert!(!before.0.contains("office-hours"), "{before:?}");
    // autumn: Monday 2027-11-01 06:45 UTC is 07:45 CET (office hours); on Monday 2027-10-25 it
    // was 08:45 CEST, also office hours; 2027-11-01 06:15 UTC is 07:15 CET, before them
    assert!(
        active_profile(a, at("2027-11-01T06:45:00Z"))
            .unwrap()
            .0
            .contains("office-hours")
    );
    assert!(
        !active_profile(a, at("2027-11-01T06:15:00Z"))
            .unwrap()
            .0
            .contains("office-hours")
    );
}

const DEVBOX: &str = "examples/dev-notebook-t4.yaml";

/// A table of `(minutes ago, resource id)` rows with the columns the dev-box rule reads; GPU rows
/// carry `Status` "ok".
fn vm_rows(gpu: bool, rows: &[(i64, &str)]) -> Value {
    let mut columns = vec![
        json!(["TimeGenerated", "datetime"]),
        json!(["Computer", "string"]),
        json!(["_ResourceId", "string"]),
    ];
    if gpu {
        columns.push(json!(["Status", "string"]));
    }
    let rows: Vec<Value> = rows
        .iter()
        .map(|(m, id)| {
            // `!` before the id: a row without a Computer
            let (computer, id) = match id.strip_prefix('!') {
                Some(id) => ("", id),
                None => (id.rsplit('/').next().unwrap(), *id),
            };
            let mut r = vec![json!(at(*m)), json!(computer), json!(id)];
            if gpu {
                r.push(json!("ok"));
            }
            Value::Array(r)
        })
        .collect();
    json!({ "columns": columns, "rows": rows })
}

/// One row a minute from `from` to `to` minutes ago (inclusive).
fn minutes(id: &str, from: i64, to: i64) -> Vec<(i64, &str)> {
    (to..=from).map(|m| (m, id)).collect()
}

/// The dev box's missing-telemetry rule (issue 20 item 1) on the situations of a box stopped at
/// night: it fires only for a box running past the grace period without GPU rows.
#[test]
fn the_dev_box_missing_telemetry_alert_fires_only_for_a_running_box_without_rows() {
    let p = plan(DEVBOX);
    let d = p.devbox.as_ref().expect("the example is a dev box");
    let a = alert(&p, "gpuAlertSilent");
    assert!(
        p.gpu
            .as_ref()
            .unwrap()
            .alerts
            .iter()
            .filter(|x| x.sym == "gpuAlertSilent")
            .count()
            == 1
    );
    let q = at_now(&a.query);
    // ARM ids as Azure Monitor writes them (lower case)
    let ours = format!(
        "/subscriptions/s/resourcegroups/rg/providers/microsoft.compute/virtualmachines/{}",
        d.vm_name.to_ascii_lowercase()
    );
    let other =
        "/subscriptions/s/resourcegroups/rg2/providers/microsoft.compute/virtualmachines/vm-other";
    let ours = ours.as_str();
    let cases: Vec<(&str, Vec<(i64, &str)>, Vec<(i64, &str)>, f64)> = vec![
        (
            "running an hour, no GPU rows (collector stopped)",
            minutes(ours, 60, 0),
            vec![],
            1.0,
        ),
        (
            "running an hour, rows until 30 minutes ago",
            minutes(ours, 60, 0),
            minutes(ours, 60, 30),
            1.0,
        ),
        ("deallocated all night", vec![], vec![], 0.0),
        (
            "deallocated 20 minutes ago by the schedule",
            minutes(ours, 60, 20),
            minutes(ours, 60, 20),
            0.0,
        ),
        (
            "deallocated 20 minutes ago, its collector had already stopped",
            minutes(ours, 60, 20),
            vec![],
            0.0,
        ),
        (
            "started 30 minutes ago, no GPU rows yet (driver installing)",
            minutes(ours, 30, 0),
            vec![],
            0.0,
        ),
        (
            "restarted 20 minutes ago after 20 minutes off",
            [minutes(ours, 60, 40), minutes(ours, 20, 0)].concat(),
            minutes(ours, 60, 40),
            0.0,
        ),
        ("healthy", minutes(ours, 60, 0), minutes(ours, 60, 0), 0.0),
        (
            "healthy, ingestion three minutes behind",
            minutes(ours, 60, 3),
            minutes(ours, 60, 3),
            0.0,
        ),
        (
            "another VM of a shared workspace runs and reports; ours is off",
            minutes(other, 60, 0),
            minutes(other, 60, 0),
            0.0,
        ),
        (
            "ours runs silent while another VM reports",
            [minutes(ours, 60, 0), minutes(other, 60, 0)].concat(),
            minutes(other, 60, 0),
            1.0,
        ),
    ];
    let unnamed = format!("!{ours}");
    let mut cases = cases;
    cases.push((
        "running an hour, its only rows without a Computer",
        minutes(ours, 60, 0),
        minutes(&unnamed, 60, 0),
        1.0,
    ));
    for (what, beats, gpu, want) in cases {
        let tables = json!({
            "Heartbeat": vm_rows(false, &beats),
            TABLE: vm_rows(true, &gpu),
        });
        let Some(out) = run(tables, std::slice::from_ref(&q)) else {
            return;
        };
        let r = one(&out[0]);
        assert_eq!(num(r, "SilentInstances"), want, "{what}: {r}\n{q}");
    }
    // the same constants as the pool rule, and the same window
    let pool = plan(FLEX);
    let pa = alert(&pool, "gpuAlertSilent");
    assert_eq!(a.window_size, pa.window_size);
    assert_eq!(a.evaluation_frequency, pa.evaluation_frequency);
    assert_eq!(a.measure, pa.measure);
}
