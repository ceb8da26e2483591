//! GPU monitoring on a dev box (issue 12 for [`super::devbox`]): the same table, data collection
//! endpoint/rule, VRAM and fault alerts as a pool, wired to one standalone VM, plus a dev-box idle
//! alert and workbook.
//!
//! - Collector, Linux: the Custom Script Extension version 2 (publisher
//!   `Microsoft.Azure.Extensions`, type `CustomScript`, `typeHandlerVersion` 2.1) with
//!   `settings.script` = base64 of the gzip'ed `/bin/sh` script [`super::gpu_monitoring::install_script`]
//!   (the very script cloud-init runs on a scale set: it writes the collector and its systemd
//!   units and enables them). Learn, "Use the Azure Custom Script Extension Version 2 with Linux
//!   virtual machines" (learn.microsoft.com/azure/virtual-machines/extensions/custom-script-linux):
//!   `script` is "a Base64-encoded and optionally gzip'ed script run by /bin/sh", at most 256 KB,
//!   alternative to `commandToExecute`; dos2unix runs on it unless `skipDos2Unix: true`; the
//!   extension runs a script once and again when its configuration changes; no reboots inside.
//!   Not customData: the spec's own cloud-init stays the VM's customData untouched, a VM's
//!   customData cannot change after creation, and checkov's secret scan of customData
//!   (CKV_AZURE_45) runs for minutes over a large one.
//! - Collector, Windows: the scale set's `CustomScriptExtension` 1.10 installer
//!   ([`super::gpu_monitoring::windows_install_command`]), unchanged.
//! - Order: a VM has no `provisionAfterExtensions`, so the extension resources say `dependsOn`:
//!   the collector after the driver extension (which may reboot the VM), the health extension
//!   after both.
//! - Health: `ApplicationHealthLinux`/`ApplicationHealthWindows` 2.0 are supported on standalone
//!   VMs (Learn, "Using Application Health extension with Azure Virtual Machines",
//!   learn.microsoft.com/azure/virtual-machines/extensions/health-extension): the state shows as
//!   the VM's health in its instance view and is what Automatic VM Guest Patching watches. A VM
//!   has no automatic instance repairs (a scale set feature), so none is built: the faults alert
//!   says how to move the box to another host (`az vm redeploy`, or deallocate + start), which
//!   keeps its disks.
//! - Association: `Microsoft.Insights/dataCollectionRuleAssociations`, an extension resource
//!   scoped to the VM (Learn template reference, "Microsoft.Insights dataCollectionRuleAssociations").

use serde_json::{Map, Value};

use super::compute::{Compute, Extension};
use super::devbox::{DevBox, VmExtension};
use super::gpu_monitoring::{
    GpuMonitoring, LogAlert, METRIC_VALUE, MONITOR_CONDITION, MONTH_MS, REPORTING_MINUTES,
    SILENCE_GRACE_MINUTES, TABLE, Workbook, wb,
};
use crate::facts::extensions::CUSTOM_SCRIPT_LINUX;
use crate::facts::monitor::HEARTBEAT;
use crate::spec::model::WorkloadSpec;
use crate::spec::timezones::parse_hhmm;

/// The Custom Script Extension's limit on `script` (Learn: 256 KB).
pub const MAX_SCRIPT_SETTING_BYTES: usize = 256 * 1024;

/// The Linux collector's installer as `settings.script` of the Custom Script Extension: base64 of
/// the gzip'ed install script cloud-init runs on scale sets.
pub fn linux_script_setting(expected_gpus: u32, vendor: &str) -> String {
    use std::io::Write;
    let script = super::gpu_monitoring::custom_data(None, expected_gpus, vendor)
        .expect("the collector alone needs no merge");
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(&script).expect("gzip into memory");
    super::common::base64(&z.finish().expect("gzip into memory"))
}

/// Hours a day the schedule runs the box (start to shutdown; a shutdown before the start runs
/// over midnight).
fn scheduled_hours(s: &WorkloadSpec) -> Option<f64> {
    let sd = s.auto_shutdown.as_ref()?;
    let stop = parse_hhmm(&sd.time)?;
    let start = parse_hhmm(&sd.start_time)?;
    let minutes = (stop + 1440 - start) % 1440;
    Some(f64::from(minutes) / 60.0)
}

/// The dev box's collector, agent and health extensions, in order, with their dependencies.
pub(super) fn extend(d: &mut DevBox, c: &Compute, g: &GpuMonitoring) {
    let windows = g.kind == "Windows";
    let is_gpu_ext = |e: &Extension| {
        e.name == "GpuCollector"
            || e.kind.starts_with("AzureMonitor")
            || e.name == "HealthExtension"
    };
    // the driver extension(s) devbox::plan copied, then the collector, the agent and the probe
    let mut exts: Vec<VmExtension> = d
        .extensions
        .drain(..)
        .filter(|e| !is_gpu_ext(&e.ext))
        .collect();
    let drivers: Vec<usize> = (0..exts.len()).collect();
    let collector = if windows {
        // the scale set's installer (gpu_monitoring::extend_compute), as it is
        c.extensions
            .iter()
            .find(|e| e.name == "GpuCollector")
            .cloned()
            .expect("Windows GPU monitoring adds the collector's installer")
    } else {
        let mut settings = Map::new();
        settings.insert(
            "script".into(),
            Value::String(linux_script_setting(g.expected_gpus, g.vendor)),
        );
        // the script is written as it is: no CRLF rewriting of the collector
        settings.insert("skipDos2Unix".into(), Value::Bool(true));
        Extension {
            name: "GpuCollector".into(),
            publisher: CUSTOM_SCRIPT_LINUX.publisher,
            kind: CUSTOM_SCRIPT_LINUX.kind,
            type_handler_version: CUSTOM_SCRIPT_LINUX.type_handler_version,
            enable_automatic_upgrade: false,
            settings,
            provision_after: Vec::new(),
            comment: Some(format!(
                "GPU collector: the script cloud-init runs on scale sets (gzip + base64, run by /bin/sh), which writes /usr/local/lib/gpuform/gpuform-gpu and enables the systemd units gpuform-gpu-collect.timer (every minute, {}) and gpuform-gpu-health.service (127.0.0.1:{}).",
                g.file_pattern,
                super::gpu_monitoring::HEALTH_PORT
            )),
            identity_auth: false,
        }
    };
    let collector_at = exts.len();
    exts.push(VmExtension {
        ext: Extension {
            provision_after: Vec::new(),
            ..collector
        },
        after: drivers.clone(),
    });
    if let Some(ama) = c.extensions.iter().find(|e| e.identity_auth) {
        exts.push(VmExtension {
            ext: ama.clone(),
            after: Vec::new(),
        });
    }
    if let Some(h) = c.extensions.iter().find(|e| e.name == "HealthExtension") {
        let mut after = drivers;
        after.push(collector_at);
        exts.push(VmExtension {
            ext: Extension {
                provision_after: Vec::new(),
                comment: Some(
                    if h.settings.get("port") == Some(&Value::from(super::gpu_monitoring::HEALTH_PORT)) {
                        format!(
                            "Application health from the GPU collector (127.0.0.1): unhealthy when a GPU is missing or {} fails. A standalone VM has no automatic repairs: the state shows as the VM's health (instance view) and the faults alert says how to recover.",
                            super::gpu_monitoring::tool(g.vendor)
                        )
                    } else {
                        "Application health from the spec's probe. A standalone VM has no automatic repairs: the state shows as the VM's health (instance view).".to_string()
                    },
                ),
                ..h.clone()
            },
            after,
        });
    }
    d.extensions = exts;
}

/// Dev-box alerts and workbook in place of the pool's: the idle alert watches a box that is on
/// but unused, the faults alert says how to recover a VM without automatic repairs, and the
/// workbook has no autoscale or queue charts.
pub(super) fn adapt(g: &mut GpuMonitoring, name: &str, s: &WorkloadSpec, d: &DevBox) {
    let idle = idle_alert(name, s, g.hourly_price, g.licence_extra, d);
    // the missing-telemetry alert, in the dev box's form (the pool's counts ObservedCapacity)
    g.alerts.retain(|a| a.sym != "gpuAlertSilent");
    g.alerts.push(silence_alert(name, d));
    for a in &mut g.alerts {
        match a.sym {
            "gpuAlertIdle" => *a = idle.clone(),
            "gpuAlertFaults" => a.description = faults_description(d, g.vendor),
            _ => {}
        }
    }
    g.workbook = workbook(
        name,
        s,
        g.hourly_price,
        g.licence_extra,
        d,
        super::gpu_monitoring::tool(g.vendor),
    );
}

/// "No telemetry from the running dev box": the pool rule's idea (a machine up for
/// [`SILENCE_GRACE_MINUTES`] that wrote no GPU row in the last [`REPORTING_MINUTES`]) with the
/// VM's own agent heartbeat as "running" in place of the autoscale setting's ObservedCapacity (a
/// VM has none). The Azure Monitor Agent writes a `Heartbeat` row a minute while the VM runs
/// ([`HEARTBEAT`]); a deallocated box runs no agent and writes none, so the nightly shutdown, a
/// box stopped by hand and a box started less than the grace period ago never fire.
///
/// "Up for the grace period": heartbeats in at least [`SILENCE_GRACE_MINUTES`] - 10 of the
/// window's minutes (one a minute; five minutes for the window and the first beat not lining
/// up, five of ingestion delay at its end), the first at least [`SILENCE_GRACE_MINUTES`] - 5
/// minutes ago and the last within [`REPORTING_MINUTES`] (the same span the GPU rows are
/// counted over, so a box stopped while its collector was reporting never fires). Rows are the
/// VM's own (`_ResourceId`, every Azure Monitor Logs table's standard column): a shared
/// workspace holds other machines' heartbeats and other pools' GPU rows.
///
/// What it cannot see: an agent that sends nothing at all (no association, agent down) writes no
/// heartbeat either, so the rule is silent then; on a dev box the association is a resource of
/// the template (not a policy's remediation), and the workbook's hours chart shows the gap.
pub fn silence_alert(name: &str, d: &DevBox) -> LogAlert {
    let vm = format!("/virtualmachines/{}", d.vm_name);
    let beats = SILENCE_GRACE_MINUTES - 10;
    let first = SILENCE_GRACE_MINUTES - 5;
    let heartbeat = HEARTBEAT.table;
    let query = format!(
        "let Running = toscalar({heartbeat}\n| where TimeGenerated > now() - {SILENCE_GRACE_MINUTES}m and _ResourceId endswith \"{vm}\"\n| summarize Beats = dcount(bin(TimeGenerated, 1m)), FirstBeat = min(TimeGenerated), LastBeat = max(TimeGenerated)\n| extend Up = iff(Beats >= {beats} and FirstBeat <= now() - {first}m and LastBeat >= now() - {REPORTING_MINUTES}m, 1, 0)\n| project Up);\n{TABLE}\n| where TimeGenerated > now() - {REPORTING_MINUTES}m and _ResourceId endswith \"{vm}\" and isnotempty(Computer)\n| summarize Reporting = dcount(Computer)\n| extend Running = toint(coalesce(Running, 0))\n| extend SilentInstances = max_of(0, Running - Reporting)"
    );
    LogAlert {
        sym: "gpuAlertSilent",
        name: format!("alert-{name}-gpu-telemetry-missing"),
        display_name: format!("{name}: no GPU telemetry from the running dev box"),
        description: format!(
            "The dev box {vm} has been running for {SILENCE_GRACE_MINUTES} minutes (its Azure Monitor Agent's {heartbeat} rows) but wrote no row to {TABLE} in the last {REPORTING_MINUTES} minutes: the idle, VRAM and fault alerts cannot see it. A deallocated box (nightly shutdown, or stopped by hand) writes no heartbeat and never fires. Check the gpuform-gpu collector on the VM (`systemctl status gpuform-gpu-collect.timer`; Windows: the scheduled task \\gpuform\\gpuform-gpu-collect), and the GpuCollector extension's status.",
            vm = d.vm_name
        ),
        severity: 2,
        query,
        evaluation_frequency: "PT5M",
        window_size: super::gpu_monitoring::idle_window(SILENCE_GRACE_MINUTES),
        // one VM: one series, like the pool rule
        dimensions: Vec::new(),
        measure: "SilentInstances",
        time_aggregation: "Maximum",
        operator: "GreaterThan",
        threshold: 0,
        email_subject: format!(
            "{name}: the running dev box sends no GPU telemetry ({MONITOR_CONDITION})"
        ),
    }
}

fn faults_description(d: &DevBox, vendor: &str) -> String {
    let what = if vendor == "amd" {
        "uncorrected ECC errors, a GPU missing from amd-smi or the PCI bus, a failing amd-smi/rocm-smi, or no ROCm tool at all (tool-missing: the image lacks ROCm)"
    } else {
        "Xid or uncorrected ECC errors, a GPU missing from nvidia-smi, or a failing driver"
    };
    format!(
        "The dev box reported {what}. A standalone VM has no automatic repairs: move it to another host with `az vm redeploy --name {vm} --resource-group <group>` (or deallocate and start it); both keep its OS and data disks.",
        vm = d.vm_name
    )
}

/// On but unused: the box reported through (most of) the window, so it was running, and its
/// GPUs averaged under `idleThresholdPercent`.
pub fn idle_alert(
    name: &str,
    s: &WorkloadSpec,
    hourly: Option<f64>,
    licence_extra: bool,
    d: &DevBox,
) -> LogAlert {
    let g = &s.monitoring.gpu;
    // minutes with samples: a box started a few minutes ago (or the last minutes not yet
    // ingested) does not count as idle for the whole window
    let min_minutes = (g.idle_minutes * 3 / 4).max(1);
    let query = format!(
        "{TABLE}\n| where Status == \"ok\"\n| summarize AvgUtilization = round(avg(UtilizationPercent), 1), ReportedMinutes = dcount(bin(TimeGenerated, 1m)) by Computer\n| where ReportedMinutes >= {min_minutes}",
    );
    let price_text = match hourly {
        Some(p) if licence_extra => format!(
            ": it costs {} plus the Windows licence while it runs (Linux pay-as-you-go list price in {}: no Windows price is embedded)",
            crate::report::number::per_hour(p),
            s.region
        ),
        Some(p) => format!(
            ": it costs {} while it runs (pay-as-you-go list price in {})",
            crate::report::number::per_hour(p),
            s.region
        ),
        None => String::new(),
    };
    let st = &d.start;
    LogAlert {
        sym: "gpuAlertIdle",
        name: format!("alert-{name}-gpu-idle"),
        display_name: format!("{name}: dev box on but idle"),
        description: format!(
            "The dev box {vm} is running (its collector reported for at least {min_minutes} of the last {minutes} minutes) and its GPUs averaged under {threshold}%{price_text}. It runs from {start} on {days} until {stop} ({tz}): if nobody uses it then, set an earlier autoShutdown.time, a later autoShutdown.startTime, or weekends: true.",
            vm = d.vm_name,
            minutes = g.idle_minutes,
            threshold = g.idle_threshold_percent,
            start = st.time_label,
            days = st.week_days.join(", "),
            stop = d.shutdown.time_label,
            tz = st.time_zone,
        ),
        severity: 3,
        query,
        evaluation_frequency: super::gpu_monitoring::idle_frequency(g.idle_minutes),
        window_size: super::gpu_monitoring::idle_window(g.idle_minutes),
        // one VM: the computer is the one stable dimension
        dimensions: vec!["Computer"],
        measure: "AvgUtilization",
        time_aggregation: "Average",
        operator: "LessThan",
        threshold: g.idle_threshold_percent,
        email_subject: format!(
            "{name}: the dev box is on but its GPUs averaged {METRIC_VALUE}%{each} ({MONITOR_CONDITION})",
            each = match hourly {
                Some(p) if licence_extra =>
                    format!(", {} + Windows licence", crate::report::number::per_hour(p)),
                Some(p) => format!(", {}", crate::report::number::per_hour(p)),
                None => String::new(),
            }
        ),
    }
}

fn workbook(
    name: &str,
    s: &WorkloadSpec,
    hourly: Option<f64>,
    licence_extra: bool,
    d: &DevBox,
    tool: &str,
) -> Workbook {
    let g = &s.monitoring.gpu;
    let price = hourly.unwrap_or(0.0);
    let text = wb::text;
    let kql = |title: &str, query: String, viz: &str, duration_ms: u64| {
        wb::kql(title, query, viz, "50", duration_ms)
    };
    let hours = scheduled_hours(s).unwrap_or(0.0);
    // days the start workflow runs, as KQL dayofweek() numbers (Sunday 0)
    let off_days: Vec<&str> = if d.start.week_days.len() == 7 {
        vec![]
    } else {
        vec!["0", "6"]
    };
    let scheduled = if off_days.is_empty() {
        format!("{hours:.2}")
    } else {
        format!(
            "case(toint(dayofweek(Day) / 1d) in ({}), 0.0, {hours:.2})",
            off_days.join(", ")
        )
    };
    let day = 86_400_000;
    let items = vec![
        text(format!(
            "## GPU dev box `{vm}`\nSampled once a minute by the gpuform collector (`{tool}`) into `{TABLE}` while the box runs: {start} to {stop} on {days} ({tz}). Idle: under {}% utilisation; VRAM alert above {}%.",
            g.idle_threshold_percent,
            g.memory_alert_percent,
            vm = d.vm_name,
            start = d.start.time_label,
            stop = d.shutdown.time_label,
            days = d.start.week_days.join(", "),
            tz = d.start.time_zone,
            tool = tool,
        )),
        kql(
            "GPU utilisation (%)",
            format!(
                "{TABLE}\n| where Status == \"ok\"\n| summarize Utilization = avg(UtilizationPercent) by GpuIndex, bin(TimeGenerated, 5m)"
            ),
            "timechart",
            day,
        ),
        kql(
            "GPU memory used (GiB)",
            format!(
                "{TABLE}\n| where Status == \"ok\"\n| summarize MemoryGiB = max(MemoryUsedMiB) / 1024.0 by GpuIndex, bin(TimeGenerated, 5m)"
            ),
            "timechart",
            day,
        ),
        kql(
            "Running hours per day this month against the schedule (UTC days)",
            format!(
                "{TABLE}\n| where TimeGenerated > startofmonth(now())\n| summarize RunningHours = dcount(bin(TimeGenerated, 1m)) / 60.0 by Day = bin(TimeGenerated, 1d)\n| extend ScheduledHours = {scheduled}\n| order by Day asc"
            ),
            "barchart",
            MONTH_MS,
        ),
        wb::idle_cost(g.idle_threshold_percent, price, licence_extra),
        wb::faults(MONTH_MS),
        wb::alerts_fired(name),
    ];
    wb::notebook(name, format!("GPU dev box {name}"), items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_setting_is_the_scale_sets_install_script_gzipped() {
        let s = linux_script_setting(1, "nvidia");
        assert!(s.len() < MAX_SCRIPT_SETTING_BYTES, "{}", s.len());
    }
}
