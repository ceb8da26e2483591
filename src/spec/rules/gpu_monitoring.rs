//! `monitoring.gpu`: whether the pool's image can run the GPU collector.

use super::Context;
use crate::diag::Diagnostic;
use crate::spec::defaults::gpu_monitoring_unsupported;

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
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
