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

use serde::Serialize;
use serde_json::{Map, Value};

use super::compute::{Compute, Extension, Health};
use crate::catalog::GpuSize;
use crate::catalog::prices::{PriceKind, PriceOs, PriceTable};
use crate::facts::extensions::azure_monitor_agent;
use crate::spec::model::WorkloadSpec;
use crate::spec::schedule;

/// The collector program (Python 3, standard library), installed as
/// `/usr/local/lib/gpuform/gpuform-gpu`.
pub const COLLECTOR: &str = include_str!("../../templates/gpu-collector.py");

/// Where the collector writes; the data collection rule reads the same pattern.
pub const LOG_PATTERN: &str = "/var/log/gpuform/gpu-*.json";

/// The Windows collector (Windows PowerShell 5.1), installed as [`WINDOWS_SCRIPT_PATH`] by the
/// Custom Script Extension ([`windows_install_command`]).
pub const WINDOWS_COLLECTOR: &str = include_str!("../../templates/gpu-collector.ps1");
/// Where the Windows collector writes (`$env:ProgramData\gpuform\logs`).
pub const WINDOWS_LOG_PATTERN: &str = r"C:\ProgramData\gpuform\logs\gpu-*.json";
pub const WINDOWS_SCRIPT_PATH: &str = r"C:\ProgramData\gpuform\gpuform-gpu.ps1";
/// The longest command line cmd.exe runs (8191 characters): the Custom Script Extension's
/// command stays under it, whichever way the extension starts it.
pub const MAX_WINDOWS_COMMAND_CHARS: usize = 8191;
/// The health responder listens on 127.0.0.1 only; the Application Health extension probes
/// localhost from inside the VM.
pub const HEALTH_PORT: u16 = 8711;
pub const HEALTH_PATH: &str = "/health";
/// One sample a minute.
pub const SAMPLE_SECONDS: u32 = 60;
/// Bytes one row adds to the workspace: the JSON keys are not billed, the column values are
/// (about 22 columns, names, GUIDs, hostnames); 400 bytes is the assumption cost states.
pub const BYTES_PER_ROW: u32 = 400;

/// Azure's limit on `customData` before base64 (as the `cloud-init` rule checks it).
pub const MAX_CUSTOM_DATA_BYTES: u64 = 65_535;
/// Monitoring Metrics Publisher (built-in role; source in the facts layer).
pub const MONITORING_METRICS_PUBLISHER: &str = crate::facts::roles::MONITORING_METRICS_PUBLISHER.id;

pub const TABLE: &str = "GpuTelemetry_CL";
pub const STREAM: &str = "Custom-GpuTelemetry";

/// A column of the custom table and of the DCR's input stream.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Column {
    pub name: &'static str,
    /// Type in the table schema (`dateTime`, `string`, `int`, `long`, `real`, `boolean`).
    pub table_type: &'static str,
    /// Type in the DCR stream declaration (`datetime`, ...).
    pub stream_type: &'static str,
    pub description: &'static str,
}

const fn col(
    name: &'static str,
    table_type: &'static str,
    stream_type: &'static str,
    description: &'static str,
) -> Column {
    Column {
        name,
        table_type,
        stream_type,
        description,
    }
}

/// The table's schema: what the collector writes (templates/gpu-collector.py), in its order.
pub const COLUMNS: &[Column] = &[
    col(
        "TimeGenerated",
        "dateTime",
        "datetime",
        "When the collector sampled (UTC)",
    ),
    col("Computer", "string", "string", "Host name of the VM"),
    col(
        "VmId",
        "string",
        "string",
        "VM id from the instance metadata service",
    ),
    col("Priority", "string", "string", "Spot or Regular"),
    col(
        "ExpectedGpus",
        "int",
        "int",
        "GPUs the VM size has (whole GPUs; a partition counts as one)",
    ),
    col(
        "GpuIndex",
        "int",
        "int",
        "nvidia-smi index (AMD: amd-smi gpu); empty on a health row",
    ),
    col("GpuUuid", "string", "string", "GPU UUID"),
    col(
        "GpuName",
        "string",
        "string",
        "GPU model as nvidia-smi (AMD: amd-smi market_name) names it",
    ),
    col(
        "UtilizationPercent",
        "real",
        "real",
        "utilization.gpu (percent; AMD: gfx_activity)",
    ),
    col(
        "MemoryUsedMiB",
        "real",
        "real",
        "memory.used (MiB; AMD: used_vram)",
    ),
    col(
        "MemoryTotalMiB",
        "real",
        "real",
        "memory.total (MiB; AMD: total_vram)",
    ),
    col(
        "TemperatureC",
        "real",
        "real",
        "temperature.gpu (°C; AMD: hotspot, else edge)",
    ),
    col(
        "PowerDrawW",
        "real",
        "real",
        "power.draw (W; AMD: socket_power); empty where the driver does not report it (vGPU, GRID)",
    ),
    col(
        "EccUncorrected",
        "long",
        "long",
        "ecc.errors.uncorrected.volatile.total since the driver loaded (AMD: total_uncorrectable_count, amd-smi only); empty without ECC",
    ),
    col(
        "XidErrors",
        "long",
        "long",
        "Xid events since the previous sample (Linux: NVRM lines of the kernel log; Windows: nvlddmkm errors in the System event log); empty on AMD",
    ),
    col(
        "XidCodes",
        "string",
        "string",
        "Distinct Xid codes, e.g. 79,48",
    ),
    col(
        "DriverVersion",
        "string",
        "string",
        "NVIDIA driver version (AMD: amdgpu driver version)",
    ),
    col(
        "CudaVersion",
        "string",
        "string",
        "CUDA version the driver supports (AMD: the ROCm release installed, /opt/rocm/.info/version)",
    ),
    col(
        "RunningJobs",
        "int",
        "int",
        "Jobs the workload reports running on the VM: the integer its supervisor writes to /run/gpuform/jobs (Windows: C:\\ProgramData\\gpuform\\jobs); empty when it writes none",
    ),
    col(
        "Status",
        "string",
        "string",
        "ok, gpu-missing, nvidia-smi-failed, amd-smi-failed, rocm-smi-failed, no-gpu or tool-missing (AMD image without amd-smi/rocm-smi)",
    ),
    col(
        "Healthy",
        "boolean",
        "boolean",
        "What the health probe answers: false when the VM's GPUs are missing or the driver fails (repaired); true on tool-missing (reported, not repaired)",
    ),
    col("Message", "string", "string", "What failed, on health rows"),
];

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GpuMonitoring {
    pub table: &'static str,
    pub stream: &'static str,
    pub columns: &'static [Column],
    pub retention_days: u32,
    pub dce_name: String,
    pub dcr_name: String,
    pub association_name: &'static str,
    /// How the data collection rule reaches the VMs: `vmss` (an association on a Uniform scale
    /// set, which reaches its VMs), `vm` (a dev box's association) or `policy` (a Flexible scale
    /// set: the association on the scale set does not reach its VMs, so the built-in
    /// DeployIfNotExists policy associates each VM; see [`DcrPolicy`]).
    pub delivery: &'static str,
    /// The per-VM association of a Flexible pool; `None` for the other kinds.
    pub dcr_policy: Option<DcrPolicy>,
    /// `kind` of the data collection endpoint and rule: `Linux` or `Windows`.
    pub kind: &'static str,
    pub file_pattern: &'static str,
    pub transform_kql: String,
    pub alerts: Vec<LogAlert>,
    pub workbook: Workbook,
    /// Whole GPUs per VM the collector expects to see.
    pub expected_gpus: u32,
    /// Whose GPUs the Linux collector reads: `nvidia` (nvidia-smi) or `amd` (amd-smi, else
    /// rocm-smi); the install script passes it to `gpuform-gpu collect`.
    pub vendor: &'static str,
    /// Pay-as-you-go hourly price of one VM (USD) the idle alert quotes; `None` without a price.
    pub hourly_price: Option<f64>,
    /// Windows pool priced at the Linux rate (no Windows price embedded): the licence is extra.
    pub licence_extra: bool,
}

/// The built-in "Configure Linux/Windows Virtual Machines to be associated with a Data
/// Collection Rule" policy, assigned to the pool's resource group with a system-assigned
/// identity holding the roles the definition names, and a remediation for the VMs that exist
/// before the identity holds them (`crate::facts::monitoring`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DcrPolicy {
    /// Assignment name (at most 64 characters at resource-group scope).
    pub assignment_name: String,
    pub display_name: String,
    pub definition_id: &'static str,
    pub definition_name: &'static str,
    /// Where the definition's GUID, parameters and roles were read.
    pub source: &'static str,
    pub roles: Vec<PolicyRole>,
    pub remediation_name: String,
    /// The pool's region is in the definition's location list. Where it is not (the sovereign
    /// clouds' regions, as the public definition lists them) the policy associates nothing and
    /// the missing-telemetry alert says so; `gpuform validate` warns (`gpu-telemetry-region`).
    pub region_listed: bool,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyRole {
    pub sym: String,
    pub name: &'static str,
    pub id: &'static str,
}

/// The per-VM association of a Flexible pool's VMs (`None` for Uniform scale sets and dev boxes,
/// whose association reaches their VMs).
pub fn dcr_policy(name: &str, s: &WorkloadSpec, windows: bool) -> Option<DcrPolicy> {
    use crate::facts::monitoring::{DCRA_VM_LINUX, DCRA_VM_WINDOWS};
    use crate::facts::roles::{LOG_ANALYTICS_CONTRIBUTOR, MONITORING_CONTRIBUTOR};
    if s.compute.orchestration != crate::spec::model::Orchestration::Flexible
        || super::devbox::applies(s)
    {
        return None;
    }
    let def = if windows {
        DCRA_VM_WINDOWS
    } else {
        DCRA_VM_LINUX
    };
    let roles = [MONITORING_CONTRIBUTOR, LOG_ANALYTICS_CONTRIBUTOR]
        .iter()
        .map(|r| {
            debug_assert!(def.role_ids.contains(&r.id));
            PolicyRole {
                sym: format!(
                    "gpuDcrPolicy{}",
                    r.name.split_whitespace().collect::<String>()
                ),
                name: r.name,
                id: r.id,
            }
        })
        .collect();
    let mut assignment_name = format!("{name}-gpu-dcr-association");
    assignment_name.truncate(64);
    Some(DcrPolicy {
        assignment_name,
        display_name: format!("{name}: associate every VM with the GPU telemetry rule"),
        definition_id: def.id,
        definition_name: def.display_name,
        source: def.source.what,
        roles,
        remediation_name: format!("{name}-gpu-dcr-association"),
        region_listed: def
            .locations
            .iter()
            .any(|l| l.eq_ignore_ascii_case(&s.region)),
    })
}

/// A log search alert rule on the custom table.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogAlert {
    pub sym: &'static str,
    pub name: String,
    pub display_name: String,
    pub description: String,
    pub severity: u32,
    pub query: String,
    pub evaluation_frequency: &'static str,
    pub window_size: String,
    /// Result columns that become alert dimensions: one alert (and one resolution) per
    /// combination of their values, so they name WHAT is affected (a VM, a GPU, a fault kind),
    /// never a changing number, which would open a new alert at every evaluation.
    pub dimensions: Vec<&'static str>,
    /// `metricMeasureColumn`: the numeric result column compared with `threshold` (the number is
    /// in the notification as `metricValue`).
    pub measure: &'static str,
    /// `timeAggregation` of `measure` per dimension combination.
    pub time_aggregation: &'static str,
    /// `GreaterThan` (the pool's alerts) or `LessThan` (the dev box's idle GPUs).
    pub operator: &'static str,
    /// The rule fires when the aggregated measure compares with this by `operator` (the
    /// spec's threshold where it has one). A whole number: Bicep has no decimal literals.
    pub threshold: u32,
    /// `actions.actionProperties["Email.Subject"]` (preview in Azure Monitor, API 2023-12-01):
    /// the measure and the alert's state through the common alert schema's `${...}` paths.
    pub email_subject: String,
}

/// The measured number and the alert state in an e-mail subject (Learn: "Customize log search
/// alert email subjects", dynamic values `${data.alertContext.condition.allOf[0].metricValue}`
/// and `${data.essentials.monitorCondition}`).
pub const METRIC_VALUE: &str = "${data.alertContext.condition.allOf[0].metricValue}";
pub const MONITOR_CONDITION: &str = "${data.essentials.monitorCondition}";

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Workbook {
    /// Seed of the workbook's `guid()` name.
    pub name_seed: String,
    pub display_name: String,
    /// The workbook's JSON (Notebook/1.0) as one string.
    pub serialized_data: String,
}

fn whole_gpus(size: &GpuSize) -> u32 {
    size.gpu_count
        .map(|g| g.ceil().max(1.0) as u32)
        .unwrap_or(1)
}

/// The collector's vendor argument for `size`'s GPUs.
pub fn vendor(size: &GpuSize) -> &'static str {
    match size.gpu_vendor {
        crate::catalog::GpuVendor::Amd => "amd",
        _ => "nvidia",
    }
}

/// The tool the Linux collector samples first for `vendor`.
pub(super) fn tool(vendor: &str) -> &'static str {
    if vendor == "amd" {
        "amd-smi"
    } else {
        "nvidia-smi"
    }
}

/// The monitoring plan, or `None` when `monitoring.gpu.enabled` resolved to false.
pub(super) fn plan(name: &str, s: &WorkloadSpec, size: &GpuSize) -> Option<GpuMonitoring> {
    if s.monitoring.gpu.enabled != Some(true) {
        return None;
    }
    let g = &s.monitoring.gpu;
    let windows =
        crate::spec::resolve::image(&s.compute.image).os == crate::spec::model::OsType::Windows;
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
    Some(GpuMonitoring {
        table: TABLE,
        stream: STREAM,
        columns: COLUMNS,
        retention_days: s.monitoring.log_retention_days,
        dce_name: format!("dce-{name}"),
        dcr_name: format!("dcr-{name}-gpu"),
        association_name: "gpu-telemetry",
        delivery: if super::devbox::applies(s) {
            "vm"
        } else if dcr_policy(name, s, windows).is_some() {
            "policy"
        } else {
            "vmss"
        },
        dcr_policy: dcr_policy(name, s, windows),
        kind: if windows { "Windows" } else { "Linux" },
        file_pattern: if windows {
            WINDOWS_LOG_PATTERN
        } else {
            LOG_PATTERN
        },
        transform_kql,
        workbook: workbook(name, s, hourly_price, licence_extra, tool(vendor(size))),
        alerts,
        expected_gpus: whole_gpus(size),
        vendor: vendor(size),
        hourly_price,
        licence_extra,
    })
}

/// `MinuteOfWeek` (UTC minutes since Monday 00:00, as [`schedule::week`] counts) of `now()`.
const MINUTE_OF_WEEK: &str = "(toint(dayofweek(now()) / 1d) + 6) % 7 * 1440 + hourofday(now()) * 60 + datetime_part(\"minute\", now())";

/// KQL's `min_of` takes at most 64 arguments (Learn, "min_of()").
const MIN_OF_ARGS: usize = 64;

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
fn profile_min_stages(s: &WorkloadSpec) -> String {
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
fn profile_min_kql(s: &WorkloadSpec) -> String {
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

fn idle_alert(name: &str, s: &WorkloadSpec, hourly: Option<f64>, licence_extra: bool) -> LogAlert {
    let g = &s.monitoring.gpu;
    let price = hourly.unwrap_or(0.0);
    let query = format!(
        "{TABLE}\n| where TimeGenerated > now() - {window}m and Status == \"ok\"\n| extend Utilization = coalesce(UtilizationPercent, iff(MemoryTotalMiB > 0, 100.0 * MemoryUsedMiB / MemoryTotalMiB, real(null)))\n| summarize AvgUtilization = avg(Utilization), FirstSeen = min(TimeGenerated), LastSeen = max(TimeGenerated) by Computer\n| where FirstSeen <= now() - {present}m and LastSeen >= now() - {IDLE_REPORTING_MINUTES}m\n| summarize Instances = count(), IdleInstances = countif(AvgUtilization < {threshold})\n{min}\n| extend IdleAboveMin = max_of(0, min_of(IdleInstances, Instances - ProfileMin))\n| extend IdleCostPerHour = round(IdleAboveMin * {price}, 2)",
        window = g.idle_minutes,
        present = idle_present_minutes(g.idle_minutes),
        threshold = g.idle_threshold_percent,
        min = profile_min_stages(s),
    );
    let price_text = match hourly {
        Some(p) if licence_extra => format!(
            " at ${p:.3}/h each plus the Windows licence (Linux pay-as-you-go list price in {}: no Windows price is embedded)",
            s.region
        ),
        Some(p) => format!(
            " at ${p:.3}/h each (pay-as-you-go list price in {})",
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
                Some(p) if licence_extra => format!(", ${p:.3}/h each + Windows licence"),
                Some(p) => format!(", ${p:.3}/h each"),
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
/// the grace period) and counts the faults of the last [`FAULT_MINUTES`].
pub const FAULT_LOOKBACK_MINUTES: u32 = 60;
pub const FAULT_MINUTES: u32 = 10;

/// Sev-1 GPU faults: health rows (after the driver grace period), Xid events, and an increase of
/// the uncorrected ECC counter (it counts since the driver loaded, so one error would otherwise
/// keep the rule firing until the VM reboots).
fn faults_alert(name: &str, vendor: &str) -> LogAlert {
    let query = format!(
        "let Since = now() - {FAULT_MINUTES}m;\nlet Seen = {TABLE}\n| where TimeGenerated > now() - {FAULT_LOOKBACK_MINUTES}m\n| summarize FirstSeen = min(TimeGenerated) by Computer;\nlet Health = {TABLE}\n| where TimeGenerated > Since and Status != \"ok\"\n| join kind=inner Seen on Computer\n| where FirstSeen <= now() - {DRIVER_GRACE_MINUTES}m\n| summarize FaultSamples = count(), LastMessage = take_any(Message) by Computer, Kind = Status;\nlet Xid = {TABLE}\n| where TimeGenerated > Since and XidErrors > 0\n| summarize FaultSamples = dcount(TimeGenerated), XidCodeSet = make_set(XidCodes) by Computer, Kind = \"xid\";\nlet Ecc = {TABLE}\n| where TimeGenerated > Since and Status == \"ok\" and isnotnull(EccUncorrected)\n| summarize arg_max(TimeGenerated, EccUncorrected), EccMin = min(EccUncorrected) by Computer, GpuIndex\n| where EccUncorrected > EccMin\n| summarize FaultSamples = sum(EccUncorrected - EccMin) by Computer, Kind = \"ecc-uncorrected\";\nunion Health, Xid, Ecc\n| project Computer, Kind, FaultSamples"
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
/// A VM counts as reporting with a row in the last this many minutes (ingestion takes minutes).
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
        "let Running = {running};\n{TABLE}\n| where TimeGenerated > now() - {REPORTING_MINUTES}m\n| summarize Reporting = dcount(Computer)\n| extend Running = toint(coalesce(Running, 0.0))\n| extend SilentInstances = max_of(0, Running - Reporting)"
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

const DAY_MS: u64 = 86_400_000;
/// A query's time range caps what `startofmonth(now())` can see: 31 days hold any month so far.
pub(super) const MONTH_MS: u64 = 31 * DAY_MS;

/// Workbook building blocks shared by the pool's workbook and the dev box's
/// ([`super::gpu_devbox`]): a Markdown item, a Log Analytics query item over a time range, the
/// faults table, the alerts fired (Resource Graph) and the Notebook/1.0 envelope.
pub(super) mod wb {
    use serde_json::{Value, json};

    use super::{TABLE, Workbook};

    pub fn text(md: String) -> Value {
        json!({ "type": 1, "content": { "json": md } })
    }

    pub fn kql(title: &str, query: String, viz: &str, width: &str, duration_ms: u64) -> Value {
        json!({
            "type": 3,
            "content": {
                "version": "KqlItem/1.0",
                "query": query,
                "size": 0,
                "title": title,
                "timeContext": { "durationMs": duration_ms },
                "queryType": 0,
                "resourceType": "microsoft.operationalinsights/workspaces",
                "visualization": viz
            },
            "customWidth": width,
            "name": title
        })
    }

    pub fn faults(duration_ms: u64) -> Value {
        kql(
            "GPU faults and health rows",
            format!(
                "{TABLE}\n| where Status != \"ok\" or XidErrors > 0 or EccUncorrected > 0\n| project TimeGenerated, Computer, Status, XidErrors, XidCodes, EccUncorrected, Message\n| order by TimeGenerated desc"
            ),
            "table",
            "50",
            duration_ms,
        )
    }

    /// Idle VM-hours this month (hours a VM's GPUs averaged under `threshold`) and their cost.
    pub fn idle_cost(threshold: u32, price: f64, licence_extra: bool) -> Value {
        kql(
            if licence_extra {
                "Idle GPU-hours and their cost this month (Linux rate; the Windows licence is extra)"
            } else {
                "Idle GPU-hours and their cost this month"
            },
            format!(
                "{TABLE}\n| where TimeGenerated > startofmonth(now()) and Status == \"ok\"\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 1h)\n| where Utilization < {threshold}\n| summarize IdleVmHours = count()\n| extend IdleCostUSD = round(IdleVmHours * {price}, 2)"
            ),
            "tiles",
            "50",
            super::MONTH_MS,
        )
    }

    /// The alerts of the pool's rules (`alert-NAME-...`) from Resource Graph.
    pub fn alerts_fired(name: &str) -> Value {
        json!({
            "type": 3,
            "content": {
                "version": "KqlItem/1.0",
                "query": format!("alertsmanagementresources\n| where type =~ \"microsoft.alertsmanagement/alerts\"\n| where tostring(properties.essentials.alertRule) contains \"alert-{name}-\"\n| project FiredAt = todatetime(properties.essentials.startDateTime), Rule = tostring(properties.essentials.alertRule), Severity = tostring(properties.essentials.severity), State = tostring(properties.essentials.monitorCondition)\n| order by FiredAt desc"),
                "size": 0,
                "title": "Alerts fired",
                "queryType": 1,
                "resourceType": "microsoft.resourcegraph/resources",
                "crossComponentResources": ["value::all"],
                "visualization": "table"
            },
            "name": "Alerts fired"
        })
    }

    pub fn notebook(name: &str, display_name: String, items: Vec<Value>) -> Workbook {
        let data = json!({
            "version": "Notebook/1.0",
            "items": items,
            "isLocked": false,
            "fallbackResourceIds": [],
            "$schema": "https://github.com/Microsoft/Application-Insights-Workbooks/blob/master/schema/workbook.json"
        });
        Workbook {
            name_seed: format!("{name}-gpu-workbook"),
            display_name,
            serialized_data: serde_json::to_string(&data).expect("workbook JSON"),
        }
    }
}

fn workbook(
    name: &str,
    s: &WorkloadSpec,
    hourly: Option<f64>,
    licence_extra: bool,
    tool: &str,
) -> Workbook {
    let g = &s.monitoring.gpu;
    let price = hourly.unwrap_or(0.0);
    let text = wb::text;
    // charts: the last day
    let kql = |title: &str, query: String, viz: &str, width: &str| {
        wb::kql(title, query, viz, width, DAY_MS)
    };
    let mut items = vec![
        text(format!(
            "## GPU pool `{name}`\nSampled once a minute on every VM by the gpuform collector (`{tool}`) into `{TABLE}`. Idle: under {}% utilisation; VRAM alert above {}%.",
            g.idle_threshold_percent, g.memory_alert_percent
        )),
        kql(
            "GPU utilisation per VM (%)",
            format!(
                "{TABLE}\n| where Status == \"ok\"\n| summarize Utilization = avg(UtilizationPercent) by Computer, bin(TimeGenerated, 5m)"
            ),
            "timechart",
            "50",
        ),
        kql(
            "GPU memory used per VM (GiB, peak GPU)",
            format!(
                "{TABLE}\n| where Status == \"ok\"\n| summarize MemoryGiB = max(MemoryUsedMiB) / 1024.0 by Computer, bin(TimeGenerated, 5m)"
            ),
            "timechart",
            "50",
        ),
        kql(
            "Instances by priority",
            format!(
                "{TABLE}\n| summarize Instances = dcount(Computer) by Priority, bin(TimeGenerated, 5m)"
            ),
            "areachart",
            "50",
        ),
        kql(
            "Jobs the workload reports running, per VM",
            format!(
                "{TABLE}\n| where isnotnull(RunningJobs)\n| summarize Jobs = max(RunningJobs) by Computer, bin(TimeGenerated, 5m)"
            ),
            "timechart",
            "50",
        ),
    ];
    // a fixed-size pool has no autoscale setting: no capacity, profile or queue to chart
    if schedule::has_setting(s) {
        items.extend(vec![
        kql(
                "Queue length and autoscale capacity",
                "AzureMetrics\n| where MetricName in (\"ActiveMessages\", \"QueueMessageCount\", \"ObservedCapacity\")\n| summarize Value = avg(Average) by MetricName, bin(TimeGenerated, 5m)".into(),
                "timechart",
                "50",
            ),
            // the autoscale setting's AutoscaleEvaluations log (its diagnostic setting sends it to
            // this workspace): the profile Azure selected at each evaluation, with its limits
            kql(
                "Active autoscale profile (min and max of the profile in force)",
                "AutoscaleEvaluationsLog\n| where ProfileSelected == true\n| summarize ProfileMin = max(MinimumInstanceCount), ProfileMax = max(MaximumInstanceCount) by Profile, bin(TimeGenerated, 5m)".into(),
                "timechart",
                "50",
            ),
        ]);
    }
    items.extend(vec![
        wb::idle_cost(g.idle_threshold_percent, price, licence_extra),
        wb::faults(DAY_MS),
        wb::alerts_fired(name),
    ]);
    wb::notebook(name, format!("GPU pool {name}"), items)
}

/// Add the Azure Monitor Agent (and, when the spec has no probe of its own, the Application
/// Health extension probing the collector plus automatic repairs) to the scale set.
pub(super) fn extend_compute(c: &mut Compute, repair_grace_period: &str, g: &GpuMonitoring) {
    let windows = g.kind == "Windows";
    if windows {
        // Windows has no cloud-init: the Custom Script Extension writes the collector and
        // registers its scheduled tasks, once the driver extension (which may reboot) is done
        let mut settings = Map::new();
        settings.insert(
            "commandToExecute".into(),
            Value::String(windows_install_command(g.expected_gpus)),
        );
        let after = c.extensions.iter().map(|e| e.name.clone()).collect();
        c.extensions.push(Extension {
            name: "GpuCollector".into(),
            publisher: "Microsoft.Compute",
            kind: "CustomScriptExtension",
            type_handler_version: "1.10",
            enable_automatic_upgrade: false,
            settings,
            provision_after: after,
            comment: Some(format!(
                "GPU collector: writes {WINDOWS_SCRIPT_PATH} (carried in the command, gzip + base64) and registers the SYSTEM scheduled tasks gpuform-gpu-collect (every minute) and gpuform-gpu-health (127.0.0.1:{HEALTH_PORT})."
            )),
            identity_auth: false,
        });
    }
    let ama = if windows {
        "AzureMonitorWindowsAgent"
    } else {
        "AzureMonitorLinuxAgent"
    };
    // settings (authentication.managedIdentity with the identity's id) are spelled by each
    // emitter: identity.id / resourceId()
    c.extensions.push(Extension {
        name: ama.into(),
        publisher: "Microsoft.Azure.Monitor",
        kind: ama,
        // 1.x with automatic minor and automatic extension upgrades, as Learn installs it
        type_handler_version: azure_monitor_agent(windows).type_handler_version,
        enable_automatic_upgrade: true,
        settings: Map::new(),
        provision_after: Vec::new(),
        comment: Some(
            "Azure Monitor Agent: ships the GPU collector's JSON lines; signs in with the pool's user-assigned identity (mi_res_id).".into(),
        ),
        identity_auth: true,
    });
    if c.health.is_none() {
        let mut settings = Map::new();
        settings.insert("protocol".into(), Value::String("http".into()));
        settings.insert("port".into(), Value::from(HEALTH_PORT));
        settings.insert("requestPath".into(), Value::String(HEALTH_PATH.into()));
        settings.insert("intervalInSeconds".into(), Value::from(30));
        settings.insert("numberOfProbes".into(), Value::from(2));
        // after the driver and, on Windows, the collector's installer
        let after = c
            .extensions
            .iter()
            .filter(|e| e.kind != ama)
            .map(|e| e.name.clone())
            .collect();
        c.extensions.push(Extension {
            name: "HealthExtension".into(),
            publisher: "Microsoft.ManagedServices",
            kind: if windows {
                "ApplicationHealthWindows"
            } else {
                "ApplicationHealthLinux"
            },
            type_handler_version: "2.0",
            enable_automatic_upgrade: true,
            settings,
            // probe only once the driver (which may reboot the VM) is in place
            provision_after: after,
            comment: Some(format!(
                "Application health from the GPU collector (127.0.0.1): unhealthy when a GPU is missing or {} fails; automatic repairs replaces the VM.",
                if windows { "nvidia-smi" } else { tool(g.vendor) }
            )),
            identity_auth: false,
        });
        c.health = Some(Health {
            grace_period: repair_grace_period.to_string(),
        });
    }
}

/// The pool's identity may publish to the data collection rule, and nothing else.
pub(super) fn publisher_role() -> super::RoleAssignment {
    super::RoleAssignment {
        sym: "identityGpuDcrPublisher",
        role_name: "Monitoring Metrics Publisher",
        role_id: MONITORING_METRICS_PUBLISHER,
        scope: "gpuDcr",
        principal: "identity",
        system_identity: false,
        description:
            "The pool's identity publishes GPU telemetry through the data collection rule.".into(),
    }
}

/// The Windows collector as the install command carries it: comment and blank lines dropped,
/// indentation trimmed (the script has no here-strings, so no line's meaning depends on its
/// leading blanks). Tests check it still holds every statement of [`WINDOWS_COLLECTOR`].
pub fn windows_collector_compact() -> String {
    let mut out = String::new();
    for line in WINDOWS_COLLECTOR.lines() {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// The collector's folder belongs to SYSTEM and Administrators (owner and full control, no
/// inherited ProgramData rights, in which Users may create files); Users may read it. A script
/// the SYSTEM tasks run must not be writable by the people who sign in to a visualisation desktop.
/// icacls takes SIDs with a leading `*`: S-1-5-18 LocalSystem, S-1-5-32-544 Administrators,
/// S-1-5-32-545 Users (Learn, "icacls").
const WINDOWS_ACL: &str = "$null=icacls $d /setowner '*S-1-5-32-544' /T /C;$null=icacls $d /inheritance:r /grant:r '*S-1-5-18:(OI)(CI)F' '*S-1-5-32-544:(OI)(CI)F' '*S-1-5-32-545:(OI)(CI)RX' /T /C;";

/// The Custom Script Extension's `commandToExecute` on Windows pools: Windows PowerShell
/// decodes the collector (gzip + base64 inside the command, no download), writes it to
/// [`WINDOWS_SCRIPT_PATH`] and runs its `install` step, which registers the scheduled tasks.
pub fn windows_install_command(expected_gpus: u32) -> String {
    use std::io::Write;
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(windows_collector_compact().as_bytes())
        .expect("gzip into memory");
    let packed = super::base64(&z.finish().expect("gzip into memory"));
    format!(
        "powershell.exe -NoProfile -NonInteractive -ExecutionPolicy Bypass -Command \"$d=Join-Path $env:ProgramData 'gpuform';$null=New-Item -ItemType Directory -Force -Path $d;{WINDOWS_ACL}$f=Join-Path $d 'gpuform-gpu.ps1';$b=[Convert]::FromBase64String('{packed}');$z=New-Object IO.Compression.GZipStream((New-Object IO.MemoryStream(,$b)),[IO.Compression.CompressionMode]::Decompress);[IO.File]::WriteAllText($f,(New-Object IO.StreamReader($z)).ReadToEnd());& $f install {expected_gpus} {HEALTH_PORT};exit $LASTEXITCODE\""
    )
}

/// The cloud-init part that installs the collector, its timer and the health responder.
/// `vendor` is [`GpuMonitoring::vendor`]: `nvidia` or `amd`.
pub fn install_script(expected_gpus: u32, vendor: &str) -> String {
    assert!(
        !COLLECTOR.contains("GPUFORM_EOF"),
        "the collector must not contain the heredoc delimiter"
    );
    format!(
        r#"#!/bin/sh
# gpuform: GPU collector ({tool} once a minute -> {LOG_PATTERN} -> Azure Monitor Agent)
# and the health endpoint the Application Health extension probes (127.0.0.1:{HEALTH_PORT}).
set -eu
install -d -m 0755 /usr/local/lib/gpuform /var/log/gpuform
cat > /usr/local/lib/gpuform/gpuform-gpu <<'GPUFORM_EOF'
{COLLECTOR}GPUFORM_EOF
chmod 0755 /usr/local/lib/gpuform/gpuform-gpu
cat > /etc/systemd/system/gpuform-gpu-collect.service <<'GPUFORM_EOF'
[Unit]
Description=gpuform GPU sample ({tool} to {LOG_PATTERN})

[Service]
Type=oneshot
ExecStart=/usr/local/lib/gpuform/gpuform-gpu collect {expected_gpus} {vendor}
SuccessExitStatus=1
GPUFORM_EOF
cat > /etc/systemd/system/gpuform-gpu-collect.timer <<'GPUFORM_EOF'
[Unit]
Description=gpuform GPU sample every minute

[Timer]
OnCalendar=*-*-* *:*:00
AccuracySec=1s

[Install]
WantedBy=timers.target
GPUFORM_EOF
cat > /etc/systemd/system/gpuform-gpu-health.service <<'GPUFORM_EOF'
[Unit]
Description=gpuform GPU health endpoint (127.0.0.1:{HEALTH_PORT})
After=network.target

[Service]
ExecStart=/usr/local/lib/gpuform/gpuform-gpu serve {HEALTH_PORT}
Restart=always
RestartSec=5
DynamicUser=yes
ReadOnlyPaths=/

[Install]
WantedBy=multi-user.target
GPUFORM_EOF
systemctl daemon-reload
systemctl enable --now gpuform-gpu-collect.timer gpuform-gpu-health.service
"#,
        tool = tool(vendor),
    )
}

/// The boundary validation refuses in a cloud-init file (one constant for both).
const BOUNDARY: &str = crate::spec::rules::MIME_BOUNDARY;

/// Why the spec's cloud-init cannot be combined with the collector's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeError(pub String);

/// Custom data with the collector: the install script alone, or a cloud-init multipart MIME
/// archive of the script and the spec's own cloud-init (each part runs as cloud-init would run
/// it alone; no cloud-config keys are merged, so nothing of the user's file is overridden).
pub fn custom_data(
    user: Option<&[u8]>,
    expected_gpus: u32,
    vendor: &str,
) -> Result<Vec<u8>, MergeError> {
    let script = install_script(expected_gpus, vendor);
    let Some(user) = user else {
        return Ok(script.into_bytes());
    };
    let text = std::str::from_utf8(user).map_err(|_| {
        MergeError("the cloud-init file is not UTF-8 text (gzip?); GPU monitoring adds its own part to it, which needs plain text".into())
    })?;
    let first = text.lines().next().unwrap_or_default().trim_end();
    let kind = if first.starts_with("#cloud-config") {
        "text/cloud-config"
    } else if first.starts_with("#!") {
        "text/x-shellscript"
    } else if first.starts_with("#cloud-boothook") {
        "text/cloud-boothook"
    } else if first.starts_with("#include") {
        "text/x-include-url"
    } else if first.starts_with("## template: jinja") {
        "text/jinja2"
    } else {
        return Err(MergeError(format!(
            "the cloud-init file starts with `{}`; GPU monitoring combines it with its own part as cloud-init multipart MIME, which takes #cloud-config, #! scripts, #cloud-boothook, #include and jinja templates",
            first.chars().take(40).collect::<String>()
        )));
    };
    if text.contains(BOUNDARY) {
        return Err(MergeError(format!(
            "the cloud-init file contains gpuform's MIME boundary `{BOUNDARY}`"
        )));
    }
    let part = |ctype: &str, file: &str, body: &str| {
        let mut p = format!(
            "--{BOUNDARY}\nContent-Type: {ctype}; charset=\"utf-8\"\nMIME-Version: 1.0\nContent-Transfer-Encoding: 8bit\nContent-Disposition: attachment; filename=\"{file}\"\n\n{body}"
        );
        if !p.ends_with('\n') {
            p.push('\n');
        }
        p
    };
    let mut out =
        format!("Content-Type: multipart/mixed; boundary=\"{BOUNDARY}\"\nMIME-Version: 1.0\n\n");
    out.push_str(&part(kind, "spec-cloud-init", text));
    out.push_str(&part(
        "text/x-shellscript",
        "gpuform-gpu-monitoring.sh",
        &script,
    ));
    out.push_str(&format!("--{BOUNDARY}--\n"));
    Ok(out.into_bytes())
}

/// GB a day the table ingests at `vms` VMs of `size` (one row per GPU per minute).
pub fn ingestion_gb_per_day(vms: f64, gpus_per_vm: u32) -> f64 {
    let rows = vms * f64::from(gpus_per_vm) * (86_400.0 / f64::from(SAMPLE_SECONDS));
    rows * f64::from(BYTES_PER_ROW) / 1e9
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// KQL words that are not column references: operators, functions, literals.
    pub(in crate::plan) const KQL_WORDS: &[&str] = &[
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
    pub(in crate::plan) fn result_columns(q: &str) -> Vec<String> {
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

    pub(in crate::plan) fn kql_idents(q: &str) -> (Vec<String>, Vec<String>) {
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
                let defines = j < chars.len()
                    && chars[j] == '='
                    && chars.get(j + 1).is_some_and(|c| *c != '=');
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
        let c = crate::spec::check_file(
            std::path::Path::new(example),
            &crate::spec::policy::Policy::default(),
            PriceTable::embedded(),
        );
        let spec = c.spec.as_ref().unwrap();
        plan(&spec.metadata.name, &spec.spec, c.size().unwrap()).expect("gpu monitoring on")
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
            "PT5M", "PT10M", "PT15M", "PT30M", "PT45M", "PT1H", "PT2H", "PT3H", "PT4H", "PT5H",
            "PT6H", "P1D", "P2D",
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
        assert!(out.trim_end().ends_with(&format!("--{BOUNDARY}--")));
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
}
