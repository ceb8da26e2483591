//! `monitoring.gpu`: whether the pool's image can run the GPU collector, and whether the idle
//! window is one Azure's log search alerts take.

use super::context::Context;
use crate::diag::Diagnostic;
use crate::plan::gpu_monitoring::ALERT_WINDOWS_MINUTES;
use crate::spec::defaults::gpu_monitoring_unsupported;

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
    let minutes = s.monitoring.gpu.idle_minutes;
    if s.monitoring.gpu.enabled != Some(false) && !ALERT_WINDOWS_MINUTES.contains(&minutes) {
        // the schema takes 5 to 1440 minutes
        let windows = || ALERT_WINDOWS_MINUTES.iter().filter(|w| **w <= 1440);
        let below = windows().rev().find(|w| **w < minutes);
        let above = windows().find(|w| **w > minutes);
        let near: Vec<String> = below.into_iter().chain(above).map(u32::to_string).collect();
        out.push(
            Diagnostic::new(
                "gpu-idle-window",
                format!(
                    "idleMinutes {minutes} is not a window Azure's log search alert rules take (windowSize)"
                ),
            )
            .at("/spec/monitoring/gpu/idleMinutes")
            .label("the idle alert's window")
            .help(format!(
                "use {} (the windows are {} minutes)",
                near.join(" or "),
                windows()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .locked(),
        );
    }
    let Some(why) = gpu_monitoring_unsupported(s, ctx.size()) else {
        telemetry_region(ctx, out);
        return;
    };
    match s.monitoring.gpu.enabled {
        Some(true) => out.push(
            Diagnostic::new(
                "gpu-monitoring-unsupported",
                format!("GPU monitoring cannot run on this pool: {why}"),
            )
            .at("/spec/monitoring/gpu/enabled")
            .label("no collector for this image")
            .help("remove `monitoring.gpu.enabled` (it defaults to off here) or use an NVIDIA size, or an AMD size with a Linux image (scale set or dev box)"),
        ),
        Some(false) => {}
        None => out.push(
            Diagnostic::new(
                "gpu-monitoring-off",
                format!("GPU monitoring is off for this pool: {why}"),
            )
            .at("/spec/monitoring")
            .help("the pool still gets the VM availability, capacity and queue alerts; GPU utilisation, VRAM and fault alerts need an NVIDIA size (Linux or Windows) or an AMD size with Linux, scale set or dev box"),
        ),
    }
}

/// How the collector's rows reach the table (`monitoring.gpu.delivery`): a Flexible pool's VMs get
/// the rule from the built-in DCR-association policy, which acts only in the regions its
/// definition lists (`crate::facts::monitoring`); elsewhere `auto` takes the Logs Ingestion API
/// from the collector (`crate::facts::logs_ingestion`), which Linux scale sets have.
fn telemetry_region(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    use crate::spec::model::{GpuDelivery, OsType};
    let s = &ctx.spec.spec;
    if s.monitoring.gpu.enabled == Some(false) {
        return;
    }
    let windows = crate::spec::resolve::image_basics(&s.compute.image).os == OsType::Windows;
    let devbox = crate::plan::devbox::applies(s);
    let delivery = s.monitoring.gpu.delivery;
    if delivery == GpuDelivery::Ingestion && (windows || devbox) {
        out.push(
            Diagnostic::new(
                "gpu-delivery",
                format!(
                    "monitoring.gpu.delivery: ingestion is for Linux scale sets; this {} keeps the Azure Monitor Agent",
                    if devbox { "dev box" } else { "Windows pool" }
                ),
            )
            .at("/spec/monitoring/gpu/delivery")
            .label("the collector's own upload")
            .help(if devbox {
                "remove `delivery` (a dev box's association on its VM reaches it)"
            } else {
                "remove `delivery`, or use `compute.orchestration: uniform` where the policy does not act (the Windows collector travels in an 8,191-character command and has no upload)"
            }),
        );
        return;
    }
    if devbox {
        return;
    }
    // the plan's own decision: one answer to "which path reaches the VMs"
    let policy = crate::plan::gpu_monitoring::dcr_policy(&ctx.spec.metadata.name, s, windows);
    if let Some(ing) = crate::plan::gpu_monitoring::ingestion(s, windows, policy.as_ref()) {
        out.push(
            Diagnostic::new(
                "gpu-telemetry-ingestion",
                format!(
                    "GPU telemetry: each VM's collector posts its rows to the Logs Ingestion API ({}) with the pool's identity, which holds Monitoring Metrics Publisher on the rule; no agent, association or policy ({})",
                    crate::facts::logs_ingestion::ENDPOINT_CHOICE,
                    ing.why
                ),
            )
            .at(if delivery == GpuDelivery::Ingestion {
                "/spec/monitoring/gpu/delivery"
            } else {
                "/spec/compute/orchestration"
            })
            .label("the collector sends its rows itself"),
        );
        return;
    }
    // a Uniform set or a dev box has no policy (its association reaches the VMs)
    let Some(def) = policy.filter(|p| !p.region_listed) else {
        return;
    };
    out.push(
        Diagnostic::new(
            "gpu-telemetry-region",
            format!(
                "GPU telemetry: the built-in policy that associates each VM of a Flexible scale set with the GPU data collection rule does not act in {} (its definition {} in {}{} lists no such region: {}), so no GPU telemetry would arrive",
                s.region,
                def.definition_id,
                s.effective_cloud().name(),
                def.definition_version.map(|v| format!(" {v}")).unwrap_or_default(),
                def.source
            ),
        )
        .at("/spec/compute/orchestration")
        .label("Flexible: one association per VM")
        .help(if windows {
            "use `compute.orchestration: uniform` (the association on a Uniform scale set reaches each VM), or set `monitoring.gpu.enabled: false`"
        } else {
            "remove `monitoring.gpu.delivery: agent` (the collector then posts its rows itself through the Logs Ingestion API), or use `compute.orchestration: uniform`"
        }),
    );
}
