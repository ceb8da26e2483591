//! GPU observability (issue 12): the collector installed by cloud-init, the Azure Monitor
//! Agent on the scale set, a data collection endpoint and rule feeding a custom table, the
//! association to the scale set, the idle-GPU / VRAM-pressure / GPU-fault log alerts, the
//! Application Health probe of the collector with automatic repairs, and the workbook.
//!
//! Sources (Microsoft Learn, REST API reference; bicep-types-az for every property):
//! - Azure Monitor Agent extension: publisher `Microsoft.Azure.Monitor`, type
//!   `AzureMonitorLinuxAgent`; user-assigned identity auth through
//!   `settings.authentication.managedIdentity` `identifier-name: mi_res_id`
//!   ("Install and manage the Azure Monitor Agent", azure-monitor-agent-requirements).
//! - JSON log collection: DCR `dataSources.logFiles[]` with `format: json`, a `Custom-` stream
//!   declared in `streamDeclarations`, a `dataFlows[]` entry with `transformKql` and
//!   `outputStream: Custom-<table>_CL` ("Structure of a data collection rule", "Collect logs
//!   from a JSON file with Azure Monitor Agent"). JSON lines, one record per line.
//! - Custom table: `Microsoft.OperationalInsights/workspaces/tables` with `schema.columns`, a
//!   `TimeGenerated` column required ("Add or delete tables and columns in Azure Monitor Logs").
//! - Log alerts: `Microsoft.Insights/scheduledQueryRules` 2023-12-01 (`criteria.allOf[].query`,
//!   `dimensions`, `failingPeriods`).
//! - Application Health extension rich health states (`{"ApplicationHealthState": ...}`) and
//!   `automaticRepairsPolicy` ("Automatic instance repairs for Azure Virtual Machine Scale Sets").
//!
//! Windows pools (the same table, alerts and workbook; see [`windows_install_command`]):
//! - Collector: templates/gpu-collector.ps1 (Windows PowerShell 5.1), written to disk and
//!   registered as two SYSTEM scheduled tasks by the Custom Script Extension, publisher
//!   `Microsoft.Compute`, type `CustomScriptExtension`, version 1.10, `settings.commandToExecute`
//!   ("Custom Script Extension for Windows",
//!   learn.microsoft.com/azure/virtual-machines/extensions/custom-script-windows): the script
//!   travels inside the command (gzip + base64), so nothing is downloaded and no storage account
//!   is needed. A changed script changes the command, which makes the extension run again.
//! - Agent: `AzureMonitorWindowsAgent` (same publisher and identity settings as Linux).
//! - DCE/DCR `kind: Windows`; `logFiles` with a Windows path pattern such as `C:\JavaLogs\*.log`
//!   ("New-AzLogFilesDataSourceObject", learn.microsoft.com/powershell/module/az.monitor) and
//!   `format: json`; the file must be ASCII or UTF-8, not UTF-16 ("Collect logs from a JSON file
//!   with Azure Monitor Agent", learn.microsoft.com/azure/azure-monitor/agents/data-collection-log-json),
//!   which is why the collector writes through a UTF-8 encoder rather than Out-File.
//! - Health: `ApplicationHealthWindows` 2.0 (same publisher and settings as Linux).

mod agent;
mod alerts;
mod collector;
mod model;
mod policy;
mod workbook;

pub(crate) use agent::*;
pub use alerts::*;
pub use collector::*;
pub use model::*;
pub use policy::*;
pub(crate) use workbook::*;

use crate::catalog::GpuSize;
use crate::catalog::prices::{PriceKind, PriceOs, PriceTable};
use crate::spec::model::WorkloadSpec;

/// The monitoring plan, or `None` when `monitoring.gpu.enabled` resolved to false.
pub(crate) fn plan(name: &str, s: &WorkloadSpec, size: &GpuSize) -> Option<GpuMonitoring> {
    build(name, s, size, true, s.monitoring.gpu.enabled == Some(true))
}

/// [`plan`] for what the collector's custom data depends on (kind, delivery, ingestion, GPUs,
/// vendor), without what only the emitters read: no alerts, an empty workbook and transform.
/// For the rule that checks the custom data Azure receives (`spec::rules::compute`), which
/// runs for every spec `validate` checks: the workbook alone was 5 % of its CPU time. Never
/// hand it to an emitter.
/// `enabled`: `monitoring.gpu.enabled` as resolved (`spec::defaults::gpu_monitoring_enabled`), so
/// that a spec whose rules are being checked, which leaves it out, need not be copied to resolve
/// it (issue 41).
pub(crate) fn for_custom_data(
    name: &str,
    s: &WorkloadSpec,
    size: &GpuSize,
    enabled: bool,
) -> Option<GpuMonitoring> {
    build(name, s, size, false, enabled)
}

/// [`plan`], with the alerts, workbook and transform only when `views` (see [`for_custom_data`]);
/// `None` unless `enabled`.
fn build(
    name: &str,
    s: &WorkloadSpec,
    size: &GpuSize,
    views: bool,
    enabled: bool,
) -> Option<GpuMonitoring> {
    if !enabled {
        return None;
    }
    let g = &s.monitoring.gpu;
    let windows = crate::spec::resolve::image_basics(&s.compute.image).os
        == crate::spec::model::OsType::Windows;
    // the idle alert quotes what an idle VM costs. Windows sizes carry the licence; the
    // embedded table has Linux prices only, so a Windows pool without its own price quotes the
    // Linux rate as a lower bound and says so
    let prices = PriceTable::embedded();
    let linux_price = prices.hourly(&size.name, &s.region, PriceOs::Linux, PriceKind::OnDemand);
    let (hourly_price, licence_extra) = if windows {
        match prices.hourly(&size.name, &s.region, PriceOs::Windows, PriceKind::OnDemand) {
            Some(p) => (Some(p), false),
            None => (linux_price, linux_price.is_some()),
        }
    } else {
        (linux_price, false)
    };
    let policy = dcr_policy(name, s, windows);
    let ingestion = ingestion(s, windows, policy.as_ref());
    let dce = s.monitoring.existing_workspace.is_none() || ingestion.is_some();
    let delivery = if super::devbox::applies(s) {
        "vm"
    } else if ingestion.is_some() {
        "ingestion"
    } else if policy.is_some() {
        "policy"
    } else {
        "vmss"
    };
    // without views (the custom-data plan) no transform, workbook or alerts
    let mut monitoring = GpuMonitoring {
        table: TABLE,
        stream: STREAM,
        columns: COLUMNS,
        retention_days: s.monitoring.log_retention_days,
        dce_name: format!("dce-{name}"),
        dcr_name: format!("dcr-{name}-gpu"),
        association_name: "gpu-telemetry",
        delivery,
        dcr_policy: if ingestion.is_some() { None } else { policy },
        ingestion,
        dce,
        kind: if windows { "Windows" } else { "Linux" },
        file_pattern: if windows {
            WINDOWS_LOG_PATTERN
        } else {
            LOG_PATTERN
        },
        transform_kql: String::new(),
        workbook: Workbook {
            name_seed: String::new(),
            display_name: String::new(),
            serialized_data: String::new(),
        },
        alerts: Vec::new(),
        expected_gpus: whole_gpus(size),
        vendor: vendor(size),
        hourly_price,
        licence_extra,
    };
    if !views {
        return Some(monitoring);
    }
    let columns: Vec<&str> = COLUMNS.iter().map(|c| c.name).collect();
    let transform_kql = format!(
        "source | project {}",
        columns
            .iter()
            .map(|c| if *c == "TimeGenerated" {
                "TimeGenerated = todatetime(TimeGenerated)".to_string()
            } else {
                (*c).to_string()
            })
            .collect::<Vec<_>>()
            .join(", ")
    );
    let alerts = vec![
        idle_alert(name, s, hourly_price, licence_extra),
        LogAlert {
            sym: "gpuAlertVram",
            name: format!("alert-{name}-gpu-vram"),
            display_name: format!("{name}: VRAM pressure"),
            description: format!(
                "A GPU used more than {}% of its memory in the last 15 minutes: a model or batch change that will run out of memory. The peak is also the measurement gpuMemoryGiB asks for (`gpuform gpu-report`).",
                g.memory_alert_percent
            ),
            severity: 2,
            query: format!(
                "{TABLE}\n| where Status == \"ok\" and MemoryTotalMiB > 0\n| extend MemoryPercent = 100.0 * MemoryUsedMiB / MemoryTotalMiB\n| summarize PeakMemoryPercent = round(max(MemoryPercent), 1), PeakMemoryGiB = round(max(MemoryUsedMiB) / 1024.0, 1) by Computer, GpuIndex"
            ),
            evaluation_frequency: "PT5M",
            window_size: "PT15M".into(),
            dimensions: vec!["Computer", "GpuIndex"],
            measure: "PeakMemoryPercent",
            time_aggregation: "Maximum",
            operator: "GreaterThan",
            threshold: g.memory_alert_percent,
            email_subject: format!(
                "{name}: a GPU at {METRIC_VALUE}% of its VRAM ({MONITOR_CONDITION})"
            ),
        },
        faults_alert(name, vendor(size)),
    ];
    monitoring.transform_kql = transform_kql;
    monitoring.workbook =
        workbook::workbook(name, s, hourly_price, licence_extra, tool(vendor(size)));
    monitoring.alerts = alerts;
    Some(monitoring)
}
