//! The resolved deployment plan: every name, address range, role assignment, autoscale profile
//! and API version of the rendered infrastructure, decided once in Rust from a checked spec.
//!
//! The plan is the only input of both emitters ([`crate::emit::bicep`] renders it through the
//! Handlebars templates in `templates/`, [`crate::emit::arm`] builds ARM JSON from it with
//! serde_json), so the two outputs cannot disagree about anything decided here. It serialises
//! (camelCase) as the templates' context.

mod common;
mod compute;
pub mod devbox;
pub mod gpu_devbox;
pub mod gpu_monitoring;
pub mod landing_zone;
mod monitoring;
mod network;
mod scaling;
pub mod security;
pub mod serving;
pub mod serving_gpu;
pub mod shared;
pub mod standby;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

pub use common::*;
pub use compute::*;
pub use devbox::DevBox;
pub use monitoring::*;
pub use network::*;
pub use scaling::*;
pub use security::*;

use crate::spec::Checked;
use crate::spec::resolve;

/// API versions: the facts layer's ([`crate::facts::api`]), re-exported for existing callers.
pub use crate::facts::api::{API, ApiVersions};

/// Template parameters (the values `main.bicepparam` and `azuredeploy.parameters.json` set).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Params {
    /// The spec's region (the template's default is the resource group's location).
    pub location: String,
    pub admin_username: String,
    /// Linux pools: the SSH public key.
    pub ssh_public_key: Option<String>,
    /// Windows pools get an `@secure()` adminPassword parameter without a default.
    pub windows: bool,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// `metadata.name`.
    pub name: String,
    pub description: Option<String>,
    /// File name of the spec (no directory, so output does not depend on where it was run).
    pub source_file: String,
    pub tags: BTreeMap<String, String>,
    pub api: ApiVersions,
    pub params: Params,
    pub network: Network,
    pub identity: Identity,
    pub vault: Vault,
    pub cmk: Option<Cmk>,
    pub compute: Compute,
    /// `autoShutdown` on one instance: a standalone VM stopped at night (rendered instead of
    /// the scale set, without an autoscale setting).
    pub devbox: Option<DevBox>,
    pub queue: Option<Queue>,
    pub autoscale: Option<Autoscale>,
    pub monitoring: Monitoring,
    pub roles: Vec<RoleAssignment>,
    /// GPU telemetry, alerts and workbook (`monitoring.gpu`); `None` when off.
    pub gpu: Option<gpu_monitoring::GpuMonitoring>,
    /// Landing zones: what the platform team does before this pool deploys (the GPU table in a
    /// central workspace, roles on an existing vault); empty without shared services.
    pub prerequisites: Vec<shared::Prerequisite>,
    /// `autoscale.standby`: the standby pool attached to the scale set (issue 23).
    pub standby: Option<standby::StandbyPool>,
    /// `spec.serving`: the request-driven pool's private frontend, health, upgrades and request
    /// target (issue 36); the request autoscale rules are in `autoscale.rules`.
    pub serving: Option<serving::Serving>,
}

/// Why a checked spec cannot be planned.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("{0} has validation errors; run `gpuform validate {0}`")]
    Invalid(String),
    #[error("{0}: the GPU size is not in the catalog")]
    UnknownSize(String),
    #[error("{path}: {message}")]
    Driver {
        path: String,
        message: String,
        help: String,
    },
    #[error(
        "{path}: a Uniform scale set has no priority mix, so every instance would run on Spot, but the spec asks for regular instances (regularBase {regular_base}, regularPercentAboveBase {regular_percent_above_base})"
    )]
    SpotMixOnUniform {
        path: String,
        regular_base: u32,
        regular_percent_above_base: u32,
    },
    #[error("{path}: cannot add the GPU collector to the cloud-init file: {message}")]
    CloudInitMerge { path: String, message: String },
    #[error(
        "{path}: the cloud-init file and the GPU collector together are {bytes} bytes as Azure receives them (after the deployment's values replace gpuform's placeholders); Azure takes at most 65535 bytes of custom data"
    )]
    CustomDataTooLarge { path: String, bytes: usize },
    #[error("cannot read the cloud-init file {path}")]
    CloudInit {
        path: String,
        #[source]
        source: crate::io::ConfinedError,
    },
}

impl PlanError {
    /// What to change, when the spec can be fixed.
    pub fn help(&self) -> Option<&str> {
        match self {
            PlanError::Driver { help, .. } => Some(help),
            PlanError::CloudInitMerge { .. } | PlanError::CustomDataTooLarge { .. } => Some(
                "give compute.cloudInit as #cloud-config or a #! script, make it smaller, or turn the collector off with `monitoring.gpu.enabled: false`",
            ),
            PlanError::SpotMixOnUniform { .. } => Some(
                "use `compute.orchestration: flexible` (priorityMixPolicy exists only there), or make the pool all Spot (`regularBase: 0`, `regularPercentAboveBase: 0`) or all regular (`regularPercentAboveBase: 100`)",
            ),
            _ => None,
        }
    }

    /// The spec cannot be planned as written (not an I/O error).
    pub fn is_spec_problem(&self) -> bool {
        !matches!(self, PlanError::CloudInit { .. })
    }
}

impl Plan {
    /// Plan a spec that passed validation.
    pub fn build(checked: &Checked) -> Result<Plan, PlanError> {
        if checked.has_errors() {
            return Err(PlanError::Invalid(checked.path.clone()));
        }
        let spec = checked
            .spec
            .as_ref()
            .ok_or_else(|| PlanError::Invalid(checked.path.clone()))?;
        let size = checked
            .size()
            .ok_or_else(|| PlanError::UnknownSize(checked.path.clone()))?;
        let s = &spec.spec;
        let cap = &s.capacity;
        // validation's spot-needs-flexible refuses this unless a policy turned the rule off
        if cap.uses_spot()
            && s.compute.orchestration == crate::spec::model::Orchestration::Uniform
            && (cap.regular_base > 0 || cap.regular_percent_above_base > 0)
        {
            return Err(PlanError::SpotMixOnUniform {
                path: checked.path.clone(),
                regular_base: cap.regular_base,
                regular_percent_above_base: cap.regular_percent_above_base,
            });
        }
        let name = spec.metadata.name.clone();
        let image = resolve::image(&s.compute.image);
        let driver = resolve::driver(s, size).map_err(|p| PlanError::Driver {
            path: checked.path.clone(),
            message: p.message,
            help: p.help,
        })?;
        let user_cloud_init = match &s.compute.cloud_init {
            Some(rel) => {
                // the same confined, bounded read validation's `cloud-init` rule made
                let bytes = crate::io::read_confined(
                    &checked.base_dir,
                    rel,
                    crate::facts::limits::CUSTOM_DATA_MAX_BYTES,
                )
                .map_err(|source| PlanError::CloudInit {
                    path: checked.base_dir.join(rel).display().to_string(),
                    source,
                })?;
                Some(bytes)
            }
            None => None,
        };
        let mut gpu = gpu_monitoring::plan(&spec.metadata.name, s, size);
        // a serving pool's GPU-utilisation metric rides on the collector (before its custom data)
        let gpu_scaling = gpu
            .as_ref()
            .and_then(|_| serving_gpu::plan(&spec.metadata.name, s));
        let cloud_init = match &gpu {
            // Windows does not run custom data: its collector comes with the Custom Script
            // Extension (gpu_monitoring::extend_compute), and the spec's file stays as it is.
            // Nor does a dev box carry the collector in custom data: a Custom Script Extension
            // installs it (gpu_devbox::extend), and the spec's file stays its custom data
            Some(g) if g.kind == "Linux" && !devbox::applies(s) => {
                // what Azure receives: after the template's values replace gpuform's
                // placeholders (the `cloud-init` rule asks the same)
                let env = gpu_scaling
                    .as_ref()
                    .map(serving_gpu::environment)
                    .unwrap_or_default();
                let (bytes, received) =
                    gpu_monitoring::custom_data_for_env(g, user_cloud_init.as_deref(), &env)
                        .map_err(|e| PlanError::CloudInitMerge {
                            path: checked.path.clone(),
                            message: e.0,
                        })?;
                let received = received + serving_gpu::received_growth(&bytes);
                if received as u64 > gpu_monitoring::MAX_CUSTOM_DATA_BYTES {
                    return Err(PlanError::CustomDataTooLarge {
                        path: checked.path.clone(),
                        bytes: received,
                    });
                }
                Some(base64(&bytes))
            }
            _ => user_cloud_init.as_deref().map(base64),
        };

        let network = network::plan(&name, s);
        let monitoring_ws = monitoring::workspace(&name, s);
        let identity = security::identity(&name);
        let vault = security::vault(&name, s, &network);
        let cmk = security::cmk(&name, s, &vault);
        let queue = scaling::queue(&name, s, &network);
        let mut serving = serving::plan(&name, s, &network);
        if let (Some(sv), Some(g)) = (serving.as_mut(), gpu_scaling) {
            sv.assumptions.extend(g.assumptions.iter().cloned());
            sv.gpu_scaling = Some(g);
        }
        let mut compute = compute::plan(&name, s, size, &image, &driver, cloud_init, cmk.as_ref());
        if let Some(sv) = &serving {
            // before GPU monitoring, which adds its own health probe only where none is
            serving::extend_compute(&mut compute, sv);
        }
        if let Some(g) = &gpu {
            gpu_monitoring::extend_compute(
                &mut compute,
                &crate::spec::defaults::repair_grace_period(),
                g,
            );
        }
        let mut devbox = devbox::plan(&name, s, &compute);
        if let (Some(d), Some(g)) = (devbox.as_mut(), gpu.as_mut()) {
            gpu_devbox::extend(d, &compute, g);
            gpu_devbox::adapt(g, &name, s, d);
        }
        // a dev box has nothing to scale: it is stopped and started on its schedule
        let autoscale = if devbox.is_some() {
            None
        } else {
            scaling::autoscale(&name, s, queue.as_ref(), serving.as_ref())
        };
        if let (Some(g), None) = (gpu.as_mut(), devbox.as_ref()) {
            // the alert that says when the other GPU alerts are blind
            let mut silent = gpu_monitoring::silence_alert(
                &name,
                autoscale.as_ref().map(|a| a.name.as_str()),
                s.capacity.default_count(),
            );
            if g.ingestion.is_some() {
                // the collectors post themselves: what to check differs
                silent.description =
                    gpu_monitoring::ingestion_silence_description(&silent.description);
            }
            g.alerts.push(silent);
        }
        let mut monitoring =
            monitoring::plan(&name, s, monitoring_ws, autoscale.as_ref(), queue.as_ref());
        if devbox.is_some() {
            // the availability alert watches a scale set; the dev box is off every night by
            // design, and its one user notices when it is down
            monitoring.alerts.retain(|a| a.scope != "vmss");
        }
        let mut roles = security::roles(&vault, cmk.as_ref(), queue.as_ref());
        if gpu.is_some() {
            roles.push(gpu_monitoring::publisher_role());
        }
        if serving.as_ref().is_some_and(|sv| sv.gpu_scaling.is_some()) {
            roles.push(serving_gpu::publisher_role());
        }

        let prerequisites = shared::prerequisites(&name, s, gpu.is_some());
        // a standby pool attaches to a scale set: a dev box has none
        let mut standby = devbox
            .is_none()
            .then(|| standby::plan(&name, s, cmk.as_ref().map(|c| c.des_name.as_str())))
            .flatten();
        if let Some(sb) = standby.as_mut() {
            // the pool's VMs are built under the GPU telemetry policy (item 3 of issue 38)
            sb.waits_for_policy = gpu.as_ref().is_some_and(|g| g.dcr_policy.is_some());
            sb.waits = sb.provider_principal_id.is_some() || sb.waits_for_policy;
        }

        Ok(Plan {
            source_file: Path::new(&checked.path)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| checked.path.clone()),
            description: spec.metadata.description.clone(),
            tags: spec.metadata.tags.clone(),
            api: API,
            params: Params {
                location: s.region.clone(),
                admin_username: s.compute.admin_username.clone(),
                ssh_public_key: if image.os == crate::spec::model::OsType::Windows {
                    None
                } else {
                    s.compute.ssh_public_key.clone()
                },
                windows: image.os == crate::spec::model::OsType::Windows,
            },
            name,
            network,
            identity,
            vault,
            cmk,
            compute,
            devbox,
            queue,
            autoscale,
            prerequisites,
            monitoring,
            roles,
            gpu,
            standby,
            serving,
        })
    }
}
