//! The GPU monitoring plan's data: the collector's paths and limits, the custom table's
//! columns, and the types the plan is made of (imports no sibling file).

use serde::Serialize;

use crate::catalog::GpuSize;

/// The collector program (Python 3, standard library), installed as
/// `/usr/local/lib/gpuform/gpuform-gpu`.
pub const COLLECTOR: &str = include_str!("../../../templates/gpu-collector.py");

/// Where the collector writes; the data collection rule reads the same pattern.
pub const LOG_PATTERN: &str = "/var/log/gpuform/gpu-*.json";

/// The Windows collector (Windows PowerShell 5.1), installed as [`WINDOWS_SCRIPT_PATH`] by the
/// Custom Script Extension ([`windows_install_command`]).
pub const WINDOWS_COLLECTOR: &str = include_str!("../../../templates/gpu-collector.ps1");
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

/// Azure's limit on `customData` before base64 ([`crate::facts::limits::CUSTOM_DATA_SOURCE`]).
pub const MAX_CUSTOM_DATA_BYTES: u64 = crate::facts::limits::CUSTOM_DATA_MAX_BYTES;
/// Monitoring Metrics Publisher (built-in role; source in the facts layer).
pub const MONITORING_METRICS_PUBLISHER: &str = crate::facts::roles::MONITORING_METRICS_PUBLISHER.id;

/// The custom table (Azure's rules on its name, columns and types:
/// [`crate::facts::custom_tables`]; `tests/facts_custom_tables.rs` holds the rendered table, DCR
/// stream and transform against them and against [`COLUMNS`]).
pub const TABLE: &str = "GpuTelemetry_CL";
pub const STREAM: &str = "Custom-GpuTelemetry";

const _: () = {
    // the table's name ends with `_CL`
    use crate::facts::custom_tables as ct;
    let (t, s) = (TABLE.as_bytes(), ct::CUSTOM_TABLE_SUFFIX.as_bytes());
    assert!(t.len() > s.len());
    let mut i = 0;
    while i < s.len() {
        assert!(t[t.len() - s.len() + i] == s[i]);
        i += 1;
    }
};

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
    /// DeployIfNotExists policy associates each VM; see [`DcrPolicy`]) or `ingestion` (the
    /// collector posts to the Logs Ingestion API; see [`Ingestion`]).
    pub delivery: &'static str,
    /// The per-VM association of a Flexible pool; `None` for the other kinds and on the
    /// Logs Ingestion path.
    pub dcr_policy: Option<DcrPolicy>,
    /// `delivery: ingestion`: the collector posts its rows to the Logs Ingestion API itself
    /// (no agent, association or policy); see [`Ingestion`].
    pub ingestion: Option<Ingestion>,
    /// A data collection endpoint is rendered (`gpuDce`, the DCR's `dataCollectionEndpointId`):
    /// always with the pool's own workspace, and on the Logs Ingestion path (its endpoint).
    pub dce: bool,
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

/// The Logs Ingestion path (`crate::facts::logs_ingestion`): what the collector is told. The
/// endpoint, the rule's immutable id and the identity's client id exist only at deployment, so
/// the install script carries the placeholders [`INGEST_ENDPOINT`], [`INGEST_DCR`] and
/// [`INGEST_CLIENT_ID`], which the template replaces in the custom data (`replace()` over
/// `base64ToString(customData)`), with the DCE's `logsIngestion.endpoint`, the DCR's
/// `immutableId` and the pool identity's `clientId`. Nothing secret: the token is asked from
/// the instance metadata service at each upload and never written.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ingestion {
    /// `api-version` of the upload call.
    pub api_version: &'static str,
    /// The token audience of the pool's cloud (the IMDS `resource`).
    pub audience: &'static str,
    /// The IMDS token endpoint with its `api-version`.
    pub token_url: String,
    /// The largest body the collector sends in one call.
    pub max_body_bytes: usize,
    /// Why: `auto` in a region the DCR-association policy does not list, or the spec's choice.
    pub why: String,
    /// Which endpoint and why ([`crate::facts::logs_ingestion::ENDPOINT_CHOICE`]).
    pub endpoint_choice: &'static str,
    pub placeholders: Placeholders,
}

/// [`INGEST_ENDPOINT`], [`INGEST_DCR`], [`INGEST_CLIENT_ID`] for the templates.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Placeholders {
    pub endpoint: &'static str,
    pub dcr: &'static str,
    pub client_id: &'static str,
}

pub const PLACEHOLDERS: Placeholders = Placeholders {
    endpoint: INGEST_ENDPOINT,
    dcr: INGEST_DCR,
    client_id: INGEST_CLIENT_ID,
};

/// Placeholders in the install script the template replaces at deployment (see [`Ingestion`]).
pub const INGEST_ENDPOINT: &str = "@@GPUFORM_INGEST_ENDPOINT@@";
pub const INGEST_DCR: &str = "@@GPUFORM_INGEST_DCR@@";
pub const INGEST_CLIENT_ID: &str = "@@GPUFORM_INGEST_CLIENT_ID@@";
/// Each placeholder and the longest value the template puts in for it
/// ([`crate::facts::limits::INGEST_VALUES_SOURCE`]).
pub const PLACEHOLDER_VALUES: [(&str, usize); 3] = [
    (
        INGEST_ENDPOINT,
        crate::facts::limits::INGEST_ENDPOINT_MAX_BYTES,
    ),
    (INGEST_DCR, crate::facts::limits::INGEST_DCR_ID_MAX_BYTES),
    (
        INGEST_CLIENT_ID,
        crate::facts::limits::INGEST_CLIENT_ID_MAX_BYTES,
    ),
];

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

pub(super) fn whole_gpus(size: &GpuSize) -> u32 {
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
pub(crate) fn tool(vendor: &str) -> &'static str {
    if vendor == "amd" {
        "amd-smi"
    } else {
        "nvidia-smi"
    }
}
