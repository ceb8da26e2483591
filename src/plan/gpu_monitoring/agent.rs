//! The scale set's side: the Azure Monitor Agent, the Custom Script Extension (Windows), the
//! Application Health probe of the collector with automatic repairs, and the publisher role.

use serde_json::{Map, Value};

use super::super::compute::{Compute, Extension, Health};
use super::collector::windows_install_command;
use super::model::*;
use crate::facts::extensions::{CUSTOM_SCRIPT_WINDOWS, application_health, azure_monitor_agent};

/// Add the Azure Monitor Agent (and, when the spec has no probe of its own, the Application
/// Health extension probing the collector plus automatic repairs) to the scale set.
pub(crate) fn extend_compute(c: &mut Compute, repair_grace_period: &str, g: &GpuMonitoring) {
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
            publisher: CUSTOM_SCRIPT_WINDOWS.publisher,
            kind: CUSTOM_SCRIPT_WINDOWS.kind,
            type_handler_version: CUSTOM_SCRIPT_WINDOWS.type_handler_version,
            enable_automatic_upgrade: false,
            settings,
            provision_after: after,
            comment: Some(format!(
                "GPU collector: writes {WINDOWS_SCRIPT_PATH} (carried in the command, gzip + base64) and registers the SYSTEM scheduled tasks gpuform-gpu-collect (every minute) and gpuform-gpu-health (127.0.0.1:{HEALTH_PORT})."
            )),
            identity_auth: false,
        });
    }
    let ama = azure_monitor_agent(windows).kind;
    // settings (authentication.managedIdentity with the identity's id) are spelled by each
    // emitter: identity.id / resourceId(). On the Logs Ingestion path the collector sends its
    // rows itself: no agent
    if g.ingestion.is_none() {
        c.extensions.push(Extension {
        name: ama.into(),
        publisher: azure_monitor_agent(windows).publisher,
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
    }
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
            publisher: application_health(windows).publisher,
            kind: application_health(windows).kind,
            type_handler_version: application_health(windows).type_handler_version,
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
pub(crate) fn publisher_role() -> super::super::common::RoleAssignment {
    super::super::common::RoleAssignment {
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
