//! `monitoring.gpu`: whether the pool's image can run the GPU collector, and whether the idle
//! window is one Azure's log search alerts take.

use super::Context;
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
