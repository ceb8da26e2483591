//! `gpuform simulate --telemetry FILE`: the pool as the GPU telemetry saw it over the trace's
//! window, beside the simulation of the same window. The export is the `GpuTelemetry_CL` table
//! the rendered stack collects (issue 12), read row by row by [`crate::gpu_report::for_each_row`] in any form
//! `gpu-report` reads (az CLI JSON, REST `tables`, portal CSV).
//!
//! What it measures, minute by minute inside the trace (one collector sample per GPU a minute):
//! - instances running: VMs with at least one `ok` sample in the minute;
//! - idle: a VM whose GPUs averaged under the idle threshold the GPU alert uses
//!   (`monitoring.gpu.idleThresholdPercent`) in that minute;
//! - busy: the other VM-minutes. With the trace's jobs this gives the job time the simulator
//!   needs when the spec has none: busy VM-minutes × jobs per instance / jobs (a VM is counted
//!   busy while its GPUs work, the simulator's model of an occupied slot; GPU work a job does not
//!   account for, or jobs that leave the GPU idle, bias it).
//!
//! The simulation replays the trace through the rendered policy; the measurement is what the
//! deployed policy did with the same load. Their instance-hours and idle hours side by side say
//! how far the model can be trusted for `--tune`.

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;
use serde::Serialize;

use crate::gpu_report::{ExportError, for_each_row};

use super::load::Trace;

/// The measurement over the trace's window, and the simulation beside it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Measured {
    pub source: String,
    /// Telemetry rows read, and those inside the trace's window that count.
    pub rows: usize,
    pub rows_in_window: usize,
    /// Rows inside the trace's window whose UtilizationPercent was NaN, infinite, negative or
    /// above 100: skipped.
    #[serde(skip_serializing_if = "is_zero")]
    pub impossible_values_skipped: usize,
    /// Minutes of the trace with at least one sample.
    pub minutes_covered: usize,
    pub idle_threshold_percent: u32,
    pub instance_hours: f64,
    pub idle_instance_hours: f64,
    pub busy_instance_hours: f64,
    pub peak_instances: u32,
    /// Busy VM-minutes × concurrency / jobs that arrived in the covered minutes (`None` without
    /// jobs or busy minutes).
    pub estimated_job_minutes: Option<f64>,
    /// Filled once the simulation ran: the same figures from the engine.
    pub simulated: Option<Simulated>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Simulated {
    pub instance_hours: f64,
    pub idle_instance_hours: f64,
    pub peak_instances: u32,
    /// Simulated / measured instance-hours (`None` when nothing was measured).
    pub instance_hours_ratio: Option<f64>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A time as Log Analytics exports it: RFC 3339 (`2026-12-01T10:00:03.123Z`, the JSON and the
/// REST answer) or the portal's CSV (`12/1/2026, 10:00:03.123 AM`, UTC).
pub fn parse_time(s: &str) -> Option<Timestamp> {
    let t = s.trim();
    if let Ok(ts) = t.parse::<Timestamp>() {
        return Some(ts);
    }
    // the portal: M/D/YYYY, h:mm:ss[.fff] AM|PM
    let (date, rest) = t.split_once(',')?;
    let mut d = date.trim().split('/');
    let (month, day, year): (i8, i8, i16) = (
        d.next()?.parse().ok()?,
        d.next()?.parse().ok()?,
        d.next()?.parse().ok()?,
    );
    let mut parts = rest.split_whitespace();
    let clock = parts.next()?;
    let ampm = parts.next()?;
    let mut c = clock.split(':');
    let mut hour: i8 = c.next()?.parse().ok()?;
    let minute: i8 = c.next()?.parse().ok()?;
    let sec_text = c.next()?;
    let second: i8 = sec_text.split('.').next()?.parse().ok()?;
    match ampm {
        "AM" if hour == 12 => hour = 0,
        "AM" => {}
        "PM" if hour < 12 => hour += 12,
        "PM" => {}
        _ => return None,
    }
    jiff::civil::DateTime::new(year, month, day, hour, minute, second, 0)
        .ok()?
        .to_zoned(jiff::tz::TimeZone::UTC)
        .ok()
        .map(|z| z.timestamp())
}

/// Measure the pool over the trace's window, aggregating while the export is read (memory grows
/// with minutes × VMs, not with rows). Utilisation that is NaN, infinite, negative or above 100 is
/// not a measurement: the row is skipped and counted, never taken as busy.
pub fn measure(
    source: &str,
    text: &str,
    trace: &Trace,
    idle_threshold_percent: u32,
    concurrency: u32,
) -> Result<Measured, ExportError> {
    let c = counts(source, text, trace, idle_threshold_percent)?;
    Ok(from_counts(&c, trace, idle_threshold_percent, concurrency))
}

/// The export summarised per minute of the trace's window, as the workspace summarises its
/// rows for `simulate -g` ([`super::pull::telemetry_query`]): the two must agree on the same rows
/// (`tests/simulate_pull_kql.rs` runs the workspace's queries on a KQL engine and checks it).
pub fn counts(
    source: &str,
    text: &str,
    trace: &Trace,
    idle_threshold_percent: u32,
) -> Result<Counts, ExportError> {
    let minutes = trace.minutes();
    // (minute, VM) -> (sum of GPU utilisation, GPUs); VMs interned
    let mut cells: BTreeMap<(usize, u32), (f64, u32)> = BTreeMap::new();
    let mut vm_ids: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    let mut in_window = 0usize;
    let mut impossible = 0usize;
    let src = crate::diag::clip(source);
    let rows = for_each_row(text, |i, row| {
        if i == 1 {
            for col in ["TimeGenerated", "Computer", "UtilizationPercent"] {
                if !row.has(col) {
                    return Err(ExportError(format!(
                        "{src}: the export has no `{col}` column (it has {}); export `GpuTelemetry_CL | where TimeGenerated between (START .. END) | project TimeGenerated, Computer, GpuIndex, UtilizationPercent, Status`",
                        row.listed()
                    )));
                }
            }
        }
        // health rows (Status other than ok) carry no utilisation
        if row.get("Status").is_some_and(|s| s != "ok") {
            return Ok(());
        }
        let Some(util) = row.get("UtilizationPercent") else {
            return Ok(());
        };
        let util: f64 = util.trim().parse().map_err(|_| {
            ExportError(format!(
                "{src}: row {i}: UtilizationPercent `{}` is not a number",
                crate::diag::clip(util)
            ))
        })?;
        let when = row.get("TimeGenerated").unwrap_or_default();
        let ts = parse_time(when).ok_or_else(|| {
            ExportError(format!(
                "{src}: row {i}: TimeGenerated `{}` is not a time (RFC 3339, e.g. 2026-12-01T10:00:00Z)",
                crate::diag::clip(when)
            ))
        })?;
        // outside the window: not read at all (a row half a second before the start is not in
        // minute 0: the workspace's `TimeGenerated >= start` leaves it out too)
        if ts < trace.start {
            return Ok(());
        }
        let minute = (ts.duration_since(trace.start).as_secs() / 60) as usize;
        if minute >= minutes {
            return Ok(());
        }
        // counted inside the window only, as the workspace's totals query counts them
        if !(util.is_finite() && (0.0..=100.0).contains(&util)) {
            impossible += 1;
            return Ok(());
        }
        let Some(vm) = row.get("Computer") else {
            return Ok(());
        };
        let n = vm_ids.len() as u32;
        let id = *vm_ids.entry(vm.to_string()).or_insert(n);
        in_window += 1;
        let c = cells.entry((minute, id)).or_insert((0.0, 0));
        c.0 += util;
        c.1 += 1;
        Ok(())
    })?;
    if rows == 0 {
        return Err(ExportError(format!("{src}: the export has no rows")));
    }
    let mut per_minute: BTreeMap<usize, (u32, u32)> = BTreeMap::new();
    for ((minute, _), (sum, n)) in &cells {
        let m = per_minute.entry(*minute).or_default();
        m.0 += 1;
        if sum / f64::from(*n) < f64::from(idle_threshold_percent) {
            m.1 += 1;
        }
    }
    let vms: BTreeSet<u32> = cells.keys().map(|(_, vm)| *vm).collect();
    Ok(Counts {
        source: source.to_string(),
        rows,
        rows_in_window: in_window,
        impossible,
        vms: vms.len(),
        per_minute,
    })
}

/// The telemetry of the trace's window summarised per minute: what [`measure`] aggregates from
/// an export, or what the workspace answers to `simulate -g`'s summarising query.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counts {
    /// Where the rows came from (the file, or the workspace and table).
    pub source: String,
    /// Rows read (an export: all of them; the workspace: those of the window).
    pub rows: usize,
    /// `ok` rows with a utilisation inside the window (the samples that count).
    pub rows_in_window: usize,
    /// `ok` rows inside the window whose UtilizationPercent was NaN, infinite, negative or above
    /// 100.
    pub impossible: usize,
    /// Distinct VMs with a sample that counts.
    pub vms: usize,
    /// Minute of the trace -> (VMs with a sample, of those the idle ones: GPUs averaging under
    /// the idle threshold in that minute).
    pub per_minute: BTreeMap<usize, (u32, u32)>,
}

/// The measurement from per-minute counts: instance-hours, idle and busy hours, the peak, and
/// the job time from the busy VM-minutes and the jobs that arrived in the covered minutes.
pub fn from_counts(
    c: &Counts,
    trace: &Trace,
    idle_threshold_percent: u32,
    concurrency: u32,
) -> Measured {
    let covered: Vec<(usize, u32, u32)> = c
        .per_minute
        .iter()
        .filter(|(m, (n, _))| **m < trace.minutes() && *n > 0)
        .map(|(m, (n, idle))| (*m, *n, (*idle).min(*n)))
        .collect();
    let instances: u64 = covered.iter().map(|(_, n, _)| u64::from(*n)).sum();
    let idle: u64 = covered.iter().map(|(_, _, i)| u64::from(*i)).sum();
    let busy = instances - idle;
    // the jobs of the minutes the telemetry covers: an export of part of the trace's days must
    // not divide its busy minutes by the whole trace's jobs
    let jobs: u64 = covered
        .iter()
        .map(|(m, _, _)| u64::from(trace.arrivals[*m]))
        .sum();
    Measured {
        source: if c.impossible > 0 {
            format!(
                "{} ({} VMs; {} skipped: UtilizationPercent NaN, infinite, negative or above 100)",
                c.source,
                c.vms,
                crate::diag::plural(c.impossible, "row")
            )
        } else {
            format!("{} ({} VMs)", c.source, c.vms)
        },
        rows: c.rows,
        impossible_values_skipped: c.impossible,
        rows_in_window: c.rows_in_window,
        minutes_covered: covered.len(),
        idle_threshold_percent,
        instance_hours: instances as f64 / 60.0,
        idle_instance_hours: idle as f64 / 60.0,
        busy_instance_hours: busy as f64 / 60.0,
        peak_instances: covered.iter().map(|(_, n, _)| *n).max().unwrap_or(0),
        estimated_job_minutes: (jobs > 0 && busy > 0)
            .then(|| busy as f64 * f64::from(concurrency) / jobs as f64),
        simulated: None,
    }
}

impl Measured {
    /// Rows of "figure, measured, simulated" for the reports.
    pub fn rows(&self) -> Vec<(String, String, String)> {
        let sim = self.simulated.as_ref();
        let h = |v: f64| format!("{v:.1}");
        vec![
            (
                "instance-hours".into(),
                h(self.instance_hours),
                sim.map_or("-".into(), |s| h(s.instance_hours)),
            ),
            (
                format!(
                    "idle instance-hours (GPUs under {}%)",
                    self.idle_threshold_percent
                ),
                h(self.idle_instance_hours),
                sim.map_or("-".into(), |s| h(s.idle_instance_hours)),
            ),
            (
                "peak instances".into(),
                self.peak_instances.to_string(),
                sim.map_or("-".into(), |s| s.peak_instances.to_string()),
            ),
        ]
    }

    /// One sentence on how far the model matches the measurement.
    pub fn verdict(&self) -> String {
        match self.simulated.as_ref().and_then(|s| s.instance_hours_ratio) {
            None => "no instance-hours measured in the trace's window: export the telemetry of the same days as the trace".into(),
            Some(r) if (0.85..=1.15).contains(&r) => format!(
                "the simulation's instance-hours are {:.0}% of the measured ones: the model reproduces the deployed policy closely enough to tune it",
                r * 100.0
            ),
            Some(r) => format!(
                "the simulation's instance-hours are {:.0}% of the measured ones: check the job time (--job-duration), the provisioning delay (--provisioning) and that the telemetry covers the same pool and days before trusting --tune",
                r * 100.0
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(minutes: usize, per_minute: u32) -> Trace {
        Trace {
            start: "2026-12-01T10:00:00Z".parse().unwrap(),
            arrivals: vec![per_minute; minutes],
            missing: vec![false; minutes],
            source: "test".into(),
        }
    }

    #[test]
    fn portal_and_rfc3339_times_are_the_same_instant() {
        let a = parse_time("2026-12-01T22:05:03.123Z").unwrap();
        let b = parse_time("12/1/2026, 10:05:03.123 PM").unwrap();
        assert_eq!(a.as_second(), b.as_second());
        assert_eq!(
            parse_time("12/1/2026, 12:00:00 AM").unwrap(),
            parse_time("2026-12-01T00:00:00Z").unwrap()
        );
        assert!(parse_time("yesterday").is_none());
    }

    #[test]
    fn counts_instances_idle_and_busy_minutes_inside_the_window() {
        // two VMs with two GPUs each; vm-b idles (5% and 3%) in minute 1; one row before the
        // window, one after, and a health row: none of them count
        let csv = "TimeGenerated,Computer,GpuIndex,UtilizationPercent,Status\n\
            2026-12-01T09:59:00Z,vm-a,0,90,ok\n\
            2026-12-01T10:00:10Z,vm-a,0,80,ok\n\
            2026-12-01T10:00:10Z,vm-a,1,60,ok\n\
            2026-12-01T10:00:20Z,vm-b,0,50,ok\n\
            2026-12-01T10:00:20Z,vm-b,1,50,ok\n\
            2026-12-01T10:01:10Z,vm-a,0,70,ok\n\
            2026-12-01T10:01:10Z,vm-a,1,70,ok\n\
            2026-12-01T10:01:20Z,vm-b,0,5,ok\n\
            2026-12-01T10:01:20Z,vm-b,1,3,ok\n\
            2026-12-01T10:01:30Z,vm-c,,,gpu-missing\n\
            2026-12-01T10:02:00Z,vm-a,0,99,ok\n";
        let m = measure("t.csv", csv, &trace(2, 3), 10, 2).unwrap();
        assert_eq!(m.rows, 11);
        assert_eq!(m.rows_in_window, 8);
        assert_eq!(m.minutes_covered, 2);
        assert_eq!(m.peak_instances, 2);
        assert!((m.instance_hours - 4.0 / 60.0).abs() < 1e-9);
        assert!((m.idle_instance_hours - 1.0 / 60.0).abs() < 1e-9);
        assert!((m.busy_instance_hours - 3.0 / 60.0).abs() < 1e-9);
        // 3 busy VM-minutes x 2 jobs per VM / 6 jobs = 1 minute a job
        assert_eq!(m.estimated_job_minutes, Some(1.0));
    }

    #[test]
    fn the_job_time_counts_only_the_jobs_of_covered_minutes() {
        // a 4-minute trace, 2 jobs a minute; telemetry for the first 2 minutes only: 2 busy
        // VM-minutes / 4 jobs, not / 8
        let csv = "TimeGenerated,Computer,UtilizationPercent\n\
            2026-12-01T10:00:05Z,vm-a,90\n\
            2026-12-01T10:01:05Z,vm-a,90\n";
        let m = measure("t.csv", csv, &trace(4, 2), 10, 1).unwrap();
        assert_eq!(m.minutes_covered, 2);
        assert_eq!(m.estimated_job_minutes, Some(0.5));
    }

    #[test]
    fn a_wrong_export_says_what_to_export() {
        let e = measure(
            "x.json",
            r#"[{"Computer": "vm", "MemoryUsedMiB": 1}]"#,
            &trace(1, 1),
            10,
            1,
        )
        .unwrap_err();
        assert!(e.0.contains("TimeGenerated"), "{}", e.0);
        assert!(e.0.contains("UtilizationPercent"), "{}", e.0);
        let e = measure(
            "x.csv",
            "TimeGenerated,Computer,UtilizationPercent\nnoon,vm,5\n",
            &trace(1, 1),
            10,
            1,
        )
        .unwrap_err();
        assert!(e.0.contains("row 1") && e.0.contains("noon"), "{}", e.0);
        assert!(measure("e.json", "[]", &trace(1, 1), 10, 1).is_err());
    }

    #[test]
    fn impossible_utilisation_is_skipped_and_counted_never_busy() {
        // vm-a reports NaN, inf, -5 and 250: none of it is a measurement; vm-b idles at 1%
        let csv = "TimeGenerated,Computer,GpuIndex,UtilizationPercent,Status\n\
            2026-12-01T10:00:10Z,vm-a,0,NaN,ok\n\
            2026-12-01T10:00:10Z,vm-a,1,inf,ok\n\
            2026-12-01T10:01:10Z,vm-a,0,-5,ok\n\
            2026-12-01T10:01:10Z,vm-a,1,250,ok\n\
            2026-12-01T10:00:20Z,vm-b,0,1,ok\n";
        let m = measure("gpu.csv", csv, &trace(4, 2), 10, 1).unwrap();
        assert_eq!(m.impossible_values_skipped, 4);
        assert_eq!(m.busy_instance_hours, 0.0, "{m:?}");
        assert!((m.idle_instance_hours - 1.0 / 60.0).abs() < 1e-12);
        assert!(m.source.contains("4 rows skipped"), "{}", m.source);
        assert!(m.estimated_job_minutes.is_none());
        let json = serde_json::to_string(&m).unwrap();
        assert!(json.contains("\"impossibleValuesSkipped\":4"), "{json}");
    }

    #[test]
    fn rows_outside_the_window_count_nowhere_not_even_half_a_second_before() {
        // the workspace's `TimeGenerated >= start` leaves these out; so must the file: a row
        // 0.5 s before the start is not minute 0, an impossible value outside is not skipped
        let csv = "TimeGenerated,Computer,UtilizationPercent\n\
            2026-12-01T09:59:59.500Z,vm-early,90\n\
            2026-12-01T09:59:59.600Z,vm-a,250\n\
            2026-12-01T10:00:05Z,vm-a,90\n\
            2026-12-01T10:02:00Z,vm-a,-1\n\
            2026-12-01T10:01:59.999Z,vm-a,NaN\n";
        let c = counts("t.csv", csv, &trace(2, 1), 10).unwrap();
        assert_eq!(c.per_minute, BTreeMap::from([(0, (1, 0))]));
        assert_eq!(
            (c.vms, c.rows_in_window, c.impossible, c.rows),
            (1, 1, 1, 5)
        );
    }

    #[test]
    fn counts_from_the_workspace_give_what_the_rows_give() {
        // the rows of counts_instances_idle_and_busy_minutes_inside_the_window, as the workspace
        // summarises them (minute 0: 2 VMs, none idle; minute 1: 2 VMs, 1 idle), plus a minute
        // past the trace and a count that claims more idle VMs than VMs: neither counts
        let c = Counts {
            source: "ws".into(),
            rows: 11,
            rows_in_window: 8,
            impossible: 0,
            vms: 2,
            per_minute: BTreeMap::from([(0, (2, 0)), (1, (2, 1)), (2, (5, 0))]),
        };
        let m = from_counts(&c, &trace(2, 3), 10, 2);
        assert_eq!(m.minutes_covered, 2);
        assert_eq!(m.peak_instances, 2);
        assert!((m.instance_hours - 4.0 / 60.0).abs() < 1e-9);
        assert!((m.idle_instance_hours - 1.0 / 60.0).abs() < 1e-9);
        assert_eq!(m.estimated_job_minutes, Some(1.0));
        assert_eq!(m.source, "ws (2 VMs)");
        let odd = Counts {
            per_minute: BTreeMap::from([(0, (1, 3))]),
            ..c
        };
        let m = from_counts(&odd, &trace(2, 3), 10, 2);
        assert_eq!(m.busy_instance_hours, 0.0);
        assert!((m.idle_instance_hours - 1.0 / 60.0).abs() < 1e-9);
    }

    #[test]
    fn a_million_empty_rows_stop_at_the_first() {
        let mut text = "{},".repeat(1_000_000);
        text.pop();
        let e = measure("gpu.json", &format!("[{text}]"), &trace(4, 2), 10, 1).unwrap_err();
        assert!(e.0.contains("no `TimeGenerated` column"), "{}", e.0);
    }
}
