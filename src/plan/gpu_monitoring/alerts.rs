//! The GPU log alerts (idle GPUs, faults, missing telemetry) and their KQL.

use super::model::*;
use crate::spec::model::WorkloadSpec;
use crate::spec::schedule;

/// `MinuteOfWeek` (UTC minutes since Monday 00:00, as [`schedule::week`] counts) of `now()`.
const MINUTE_OF_WEEK: &str = "(toint(dayofweek(now()) / 1d) + 6) % 7 * 1440 + hourofday(now()) * 60 + datetime_part(\"minute\", now())";

/// KQL's `min_of` takes at most 64 arguments (Learn, "min_of()").
pub(super) const MIN_OF_ARGS: usize = 64;

/// The `| extend` stages that end in `ProfileMin`, the floor of the autoscale profile in force at
/// `now()`, as Azure autoscale decides it: a recurring profile starts at its local time in its
/// time zone, daylight saving included, and stays in force until the next profile's start; at
/// equal starts the first profile in the setting's list applies (Learn,
/// autoscale-understanding-settings). The profiles are [`schedule::profiles`], the ones the
/// render emits and `simulate` walks (`Setting::timeline`); `now()` goes into each zone with KQL's
/// `datetime_utc_to_local` (Learn, "datetime_utc_to_local()": IANA names, with DST; the zone of
/// each Windows name is CLDR's, `spec::timezones::WINDOWS_TO_IANA`, as `simulate` uses). Each
/// start's age is the local minutes since it last occurred; the youngest start's profile is in
/// force. tests/gpu_alert_queries.rs holds this against `simulate` across the 2027 DST changes.
pub(super) fn profile_min_stages(s: &WorkloadSpec) -> String {
    use crate::spec::timezones::iana_of_windows;
    if !schedule::has_setting(s) {
        return format!("| extend ProfileMin = {}", s.capacity.default_count());
    }
    let profiles = schedule::profiles(s);
    let recurring: Vec<(usize, &schedule::Recurrence)> = profiles
        .iter()
        .enumerate()
        .filter_map(|(i, p)| p.recurrence.as_ref().map(|r| (i, r)))
        .collect();
    if recurring.is_empty() {
        return format!("| extend ProfileMin = {}", profiles[0].min);
    }
    let mut zones: Vec<&str> = Vec::new();
    for (_, r) in &recurring {
        if iana_of_windows(&r.time_zone).is_none() {
            // validation takes only zones of the table; the standard-offset week, as before
            return format!(
                "| extend MinuteOfWeek = {MINUTE_OF_WEEK}\n| extend ProfileMin = {}",
                profile_min_kql(s)
            );
        }
        if !zones.contains(&r.time_zone.as_str()) {
            zones.push(&r.time_zone);
        }
    }
    let mut stages = Vec::new();
    for (k, z) in zones.iter().enumerate() {
        let iana = iana_of_windows(z).expect("checked above");
        stages.push(format!(
            "| extend Local{k} = datetime_utc_to_local(now(), \"{iana}\")"
        ));
        stages.push(format!("| extend LocalMinute{k} = (toint(dayofweek(Local{k}) / 1d) + 6) % 7 * 1440 + hourofday(Local{k}) * 60 + datetime_part(\"minute\", Local{k})"));
    }
    // one age per start, in the setting's order (the first profile wins a tie)
    let mut ages: Vec<(String, u32)> = Vec::new();
    let mut defs = Vec::new();
    for (i, r) in &recurring {
        let k = zones.iter().position(|z| *z == r.time_zone).unwrap();
        for d in &r.days {
            let start = d.index() * 1440 + r.hour * 60 + r.minute;
            let name = format!("Age{}", ages.len());
            defs.push(format!(
                "{name} = (LocalMinute{k} - {start} + {w}) % {w}",
                w = schedule::MINUTES_PER_WEEK
            ));
            ages.push((name, profiles[*i].min));
        }
    }
    stages.push(format!("| extend {}", defs.join(", ")));
    let mut names: Vec<String> = ages.iter().map(|(n, _)| n.clone()).collect();
    while names.len() > 1 {
        names = names
            .chunks(MIN_OF_ARGS)
            .map(|c| {
                if c.len() == 1 {
                    c[0].clone()
                } else {
                    format!("min_of({})", c.join(", "))
                }
            })
            .collect();
    }
    stages.push(format!("| extend Age = {}", names[0]));
    let cases: Vec<String> = ages[..ages.len() - 1]
        .iter()
        .map(|(n, min)| format!("Age == {n}, {min}"))
        .collect();
    let last = ages[ages.len() - 1].1;
    stages.push(if cases.is_empty() {
        format!("| extend ProfileMin = {last}")
    } else {
        format!("| extend ProfileMin = case({}, {last})", cases.join(", "))
    });
    stages.join("\n")
}

/// The floor of the autoscale profile that applies now, as a KQL expression: the week of
/// profiles laid out in UTC (standard time offsets, as `gpuform cost` walks it). Only the
/// fallback of [`profile_min_stages`] for a zone without an IANA name.
pub(super) fn profile_min_kql(s: &WorkloadSpec) -> String {
    if !schedule::has_setting(s) {
        return s.capacity.default_count().to_string();
    }
    let profiles = schedule::profiles(s);
    let week = schedule::week(&profiles);
    if week.len() == 1 {
        return profiles[week[0].profile].min.to_string();
    }
    let mut parts = Vec::new();
    for seg in &week[..week.len() - 1] {
        parts.push(format!(
            "MinuteOfWeek < {}, {}",
            seg.end, profiles[seg.profile].min
        ));
    }
    let last = profiles[week[week.len() - 1].profile].min;
    format!("case({}, {last})", parts.join(", "))
}

/// A VM counts in the idle rule only when it still reported in the last this many minutes (one
/// sample a minute, a few minutes of ingestion): a VM a scale-in deleted is not idle capacity.
pub const IDLE_REPORTING_MINUTES: u32 = 10;

/// How long a VM must have reported for the idle rule to count it: the whole window but its first
/// five minutes (the window and the first sample need not line up), and never less than 30
/// minutes, so a VM a scale-out just added, not yet given work, is not idle capacity.
pub fn idle_present_minutes(window: u32) -> u32 {
    window.saturating_sub(5).max(30.min(window))
}

pub(super) fn idle_alert(
    name: &str,
    s: &WorkloadSpec,
    hourly: Option<f64>,
    licence_extra: bool,
) -> LogAlert {
    let g = &s.monitoring.gpu;
    let price = hourly.unwrap_or(0.0);
    // a row without a Computer names no VM: not an instance here, as `simulate -g` reads the
    // table (src/simulate/pull.rs) and the missing-telemetry rule counts reporters
    let query = format!(
        "{TABLE}\n| where TimeGenerated > now() - {window}m and Status == \"ok\" and isnotempty(Computer)\n| extend Utilization = coalesce(UtilizationPercent, iff(MemoryTotalMiB > 0, 100.0 * MemoryUsedMiB / MemoryTotalMiB, real(null)))\n| summarize AvgUtilization = avg(Utilization), FirstSeen = min(TimeGenerated), LastSeen = max(TimeGenerated) by Computer\n| where FirstSeen <= now() - {present}m and LastSeen >= now() - {IDLE_REPORTING_MINUTES}m\n| summarize Instances = count(), IdleInstances = countif(AvgUtilization < {threshold})\n{min}\n| extend IdleAboveMin = max_of(0, min_of(IdleInstances, Instances - ProfileMin))\n| extend IdleCostPerHour = round(IdleAboveMin * {price}, 2)",
        window = g.idle_minutes,
        present = idle_present_minutes(g.idle_minutes),
        threshold = g.idle_threshold_percent,
        min = profile_min_stages(s),
    );
    let price_text = match hourly {
        Some(p) if licence_extra => format!(
            " at {} each plus the Windows licence (Linux pay-as-you-go list price in {}: no Windows price is embedded)",
            crate::report::number::per_hour(p),
            s.region
        ),
        Some(p) => format!(
            " at {} each (pay-as-you-go list price in {})",
            crate::report::number::per_hour(p),
            s.region
        ),
        None => String::new(),
    };
    LogAlert {
        sym: "gpuAlertIdle",
        name: format!("alert-{name}-gpu-idle"),
        display_name: format!("{name}: idle GPUs above the minimum"),
        description: format!(
            "Instances above the active autoscale profile's minimum whose GPUs averaged under {}% for {} minutes{price_text}: the pool is not scaling in. Only VMs that reported through the whole window and still report count, so VMs a scale-in removed or a scale-out just added never do. A MIG GPU reports no utilisation: its share of memory in use stands in. Check the scale-in rule (queue threshold, cooldown) and the schedule's min.",
            g.idle_threshold_percent, g.idle_minutes
        ),
        severity: 3,
        query,
        evaluation_frequency: idle_frequency(g.idle_minutes),
        window_size: idle_window(g.idle_minutes),
        // one series for the pool: the count is the measure, not a dimension
        dimensions: Vec::new(),
        measure: "IdleAboveMin",
        time_aggregation: "Maximum",
        operator: "GreaterThan",
        threshold: 0,
        email_subject: format!(
            "{name}: {METRIC_VALUE} idle GPU instance(s) above the autoscale minimum{each} ({MONITOR_CONDITION})",
            each = match hourly {
                Some(p) if licence_extra => format!(
                    ", {} each + Windows licence",
                    crate::report::number::per_hour(p)
                ),
                Some(p) => format!(", {} each", crate::report::number::per_hour(p)),
                None => String::new(),
            }
        ),
    }
}

/// Minutes a new VM may write health rows before the faults rule counts them: cloud-init starts
/// the collector before the driver extension has installed nvidia-smi/amd-smi, so a new VM's
/// first samples are `nvidia-smi-failed`/`tool-missing` by design. The same 30 minutes as the
/// automatic repairs grace period (`spec::defaults::repair_grace_period`, PT30M), which exists
/// for the same reason; a VM whose driver is still missing after it is reported.
pub const DRIVER_GRACE_MINUTES: u32 = 30;
/// The faults rule looks back this far for each VM's first sample (so a VM's age is known up to
/// the grace period) and counts the faults of the last [`FAULT_MINUTES`]; a health row counts
/// only when it was written at least [`DRIVER_GRACE_MINUTES`] after the VM's first row (a VM
/// first seen 32 minutes ago pages on its rows of the last 2 minutes, never on those of its
/// minutes 22-29).
pub const FAULT_LOOKBACK_MINUTES: u32 = 60;
pub const FAULT_MINUTES: u32 = 10;

/// Sev-1 GPU faults: health rows (after the driver grace period), Xid events, and an increase of
/// the uncorrected ECC counter (it counts since the driver loaded, so one error would otherwise
/// keep the rule firing until the VM reboots).
pub(super) fn faults_alert(name: &str, vendor: &str) -> LogAlert {
    let query = format!(
        "let Since = now() - {FAULT_MINUTES}m;\nlet Seen = {TABLE}\n| where TimeGenerated > now() - {FAULT_LOOKBACK_MINUTES}m\n| summarize FirstSeen = min(TimeGenerated) by Computer;\nlet Health = {TABLE}\n| where TimeGenerated > Since and Status != \"ok\"\n| join kind=inner Seen on Computer\n| where TimeGenerated >= FirstSeen + {DRIVER_GRACE_MINUTES}m\n| summarize FaultSamples = count(), LastMessage = take_any(Message) by Computer, Kind = Status;\nlet Xid = {TABLE}\n| where TimeGenerated > Since and XidErrors > 0\n| summarize FaultSamples = dcount(TimeGenerated), XidCodeSet = make_set(XidCodes) by Computer, Kind = \"xid\";\nlet Ecc = {TABLE}\n| where TimeGenerated > Since and Status == \"ok\" and isnotnull(EccUncorrected)\n| summarize arg_max(TimeGenerated, EccUncorrected), EccMin = min(EccUncorrected) by Computer, GpuIndex\n| where EccUncorrected > EccMin\n| summarize FaultSamples = sum(EccUncorrected - EccMin) by Computer, Kind = \"ecc-uncorrected\";\nunion Health, Xid, Ecc\n| project Computer, Kind, FaultSamples"
    );
    LogAlert {
        sym: "gpuAlertFaults",
        name: format!("alert-{name}-gpu-faults"),
        display_name: format!("{name}: GPU faults"),
        description: if vendor == "amd" {
            format!(
                "A VM reported new uncorrected ECC errors, a GPU missing from amd-smi or the PCI bus, a failing amd-smi/rocm-smi, or no ROCm tool at all (tool-missing: the image lacks ROCm; the VM stays in service). Health rows of a VM's first {DRIVER_GRACE_MINUTES} minutes do not count (the driver extension is still installing). Automatic repairs replaces a VM whose health probe stays unhealthy."
            )
        } else {
            format!(
                "A VM reported Xid errors, new uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver. Health rows of a VM's first {DRIVER_GRACE_MINUTES} minutes do not count (the driver extension is still installing nvidia-smi). Automatic repairs replaces a VM whose health probe stays unhealthy."
            )
        },
        severity: 1,
        query,
        evaluation_frequency: "PT5M",
        // the window covers the look-back for each VM's first sample; the faults counted are
        // the last FAULT_MINUTES (`Since`)
        window_size: idle_window(FAULT_LOOKBACK_MINUTES),
        // the kind of fault, never its codes or counts: one incident stays one alert
        dimensions: vec!["Computer", "Kind"],
        measure: "FaultSamples",
        time_aggregation: "Total",
        operator: "GreaterThan",
        threshold: 0,
        email_subject: format!(
            "{name}: GPU fault on a VM, {METRIC_VALUE} faulty sample(s) ({MONITOR_CONDITION})"
        ),
    }
}

/// Minutes after which a VM of the pool must have reported: its boot, the driver extension and
/// (Flexible pools) the policy's association after the VM is provisioned.
pub const SILENCE_GRACE_MINUTES: u32 = 45;
/// A VM counts as reporting with a row in the last this many minutes (ingestion takes minutes);
/// a row without a Computer names no VM and reports for none.
pub const REPORTING_MINUTES: u32 = 15;

/// "No telemetry from a running instance": the instances the pool has held for the whole grace
/// period (the autoscale setting's ObservedCapacity, its minimum over the period, from the
/// setting's diagnostic export into the workspace; a fixed pool's count) against the VMs that
/// wrote a row in the last [`REPORTING_MINUTES`]. Fires when the telemetry path is broken
/// (no association, agent down, region the association policy does not act in) or a VM's
/// collector stopped. Scale sets only: a dev box is off by design half the day.
pub fn silence_alert(name: &str, autoscale: Option<&str>, fixed: u32) -> LogAlert {
    let running = match autoscale {
        Some(setting) => format!(
            "toscalar(AzureMetrics\n| where TimeGenerated > now() - {SILENCE_GRACE_MINUTES}m and MetricName == \"ObservedCapacity\" and Resource =~ \"{setting}\"\n| summarize min(Minimum))"
        ),
        None => fixed.to_string(),
    };
    let query = format!(
        "let Running = {running};\n{TABLE}\n| where TimeGenerated > now() - {REPORTING_MINUTES}m and isnotempty(Computer)\n| summarize Reporting = dcount(Computer)\n| extend Running = toint(coalesce(Running, 0.0))\n| extend SilentInstances = max_of(0, Running - Reporting)"
    );
    LogAlert {
        sym: "gpuAlertSilent",
        name: format!("alert-{name}-gpu-telemetry-missing"),
        display_name: format!("{name}: no GPU telemetry from running instances"),
        description: format!(
            "Instances the pool has held for {SILENCE_GRACE_MINUTES} minutes{} wrote no row to {TABLE} in the last {REPORTING_MINUTES} minutes: the idle, VRAM and fault alerts cannot see them. Check the data collection rule association of the VMs (Flexible pools: the policy assignment and its remediation), the Azure Monitor Agent and the gpuform-gpu collector on a VM.",
            if autoscale.is_some() {
                " (the autoscale setting's ObservedCapacity)"
            } else {
                ""
            }
        ),
        severity: 2,
        query,
        evaluation_frequency: "PT5M",
        window_size: idle_window(SILENCE_GRACE_MINUTES),
        dimensions: Vec::new(),
        measure: "SilentInstances",
        time_aggregation: "Maximum",
        operator: "GreaterThan",
        threshold: 0,
        email_subject: format!(
            "{name}: {METRIC_VALUE} running instance(s) send no GPU telemetry ({MONITOR_CONDITION})"
        ),
    }
}

/// The `windowSize` values scheduledQueryRules accepts when the rule is evaluated less often than
/// every minute: PT5M, PT10M, PT15M, PT30M, PT45M, PT1H to PT6H, P1D, P2D (the service is
/// stricter than ISO 8601; the list as the azurerm provider documents `window_duration`, whose
/// validation mirrors the API). `idleMinutes` must be one of them (rule `gpu-idle-window`).
pub const ALERT_WINDOWS_MINUTES: &[u32] =
    &[5, 10, 15, 30, 45, 60, 120, 180, 240, 300, 360, 1440, 2880];

/// How often an idle rule runs: every 15 minutes over a window of an hour or more (a quarter of
/// it at most), every 5 below.
pub fn idle_frequency(minutes: u32) -> &'static str {
    if minutes >= 60 { "PT15M" } else { "PT5M" }
}

/// `idleMinutes` as the ISO 8601 window the service takes: `PT{n}M` under an hour, `PT{n}H` up
/// to six hours, `P{n}D` for whole days.
pub fn idle_window(minutes: u32) -> String {
    if minutes >= 1440 && minutes.is_multiple_of(1440) {
        format!("P{}D", minutes / 1440)
    } else if minutes.is_multiple_of(60) {
        format!("PT{}H", minutes / 60)
    } else {
        format!("PT{minutes}M")
    }
}

/// The missing-telemetry alert's advice on the Logs Ingestion path: the collectors post
/// themselves, so the checks are their uploads, the publisher role and the way out.
pub fn ingestion_silence_description(description: &str) -> String {
    let cut = description
        .find(" Check the data collection rule association")
        .unwrap_or(description.len());
    format!(
        "{} The collectors post through the Logs Ingestion API: check `journalctl -u gpuform-gpu-collect` on a VM (`logs ingestion: HTTP ...`), the pool identity's Monitoring Metrics Publisher role on the data collection rule and outbound HTTPS to the data collection endpoint.",
        &description[..cut]
    )
}
