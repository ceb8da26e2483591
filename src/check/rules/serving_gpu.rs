//! `autoscale.gpuUtilization` (issue 36): GPU-utilisation scaling of a serving pool through an
//! Application Insights metric (the only custom-metric path autoscale documents; serving.md
//! D8). Refused where it cannot work, with where and why; an info says what it renders and
//! what is an assumption ([`crate::facts::app_insights`]).

use crate::diag::Diagnostic;
use crate::facts::app_insights as facts;
use crate::plan::serving_gpu as plan;
use crate::spec::model::WorkloadSpec;

const AT: &str = "/spec/autoscale/gpuUtilization";

pub fn check(ctx: &super::context::Context<'_>, out: &mut Vec<Diagnostic>) {
    let s: &WorkloadSpec = &ctx.spec.spec;
    let Some(t) = s
        .autoscale
        .as_ref()
        .and_then(|a| a.gpu_utilization.as_ref())
    else {
        return;
    };
    let mut refused = false;
    let mut refuse = |d: Diagnostic| {
        out.push(d.locked());
        refused = true;
    };
    if s.serving.is_none() {
        refuse(
            Diagnostic::new(
                "gpu-scaling-needs-serving",
                "autoscale.gpuUtilization scales a serving pool on its GPUs, and the spec has no `serving` block",
            )
            .at_key(AT)
            .help("add `serving:` (a request-driven model server pool), or remove autoscale.gpuUtilization (a queue-driven pool scales on its queue)"),
        );
    }
    // `monitoring.gpu.enabled` left out is on where the collector can run (defaults)
    let gpu_off = match s.monitoring.gpu.enabled {
        Some(on) => !on,
        None => crate::spec::defaults::gpu_monitoring_unsupported(s, ctx.size()).is_some(),
    };
    if gpu_off {
        refuse(
            Diagnostic::new(
                "gpu-scaling-needs-serving",
                "autoscale.gpuUtilization reads the GPU utilisation the GPU collector sends, and GPU monitoring is off",
            )
            .at_key(AT)
            .help("set `monitoring.gpu.enabled: true`, or remove autoscale.gpuUtilization"),
        );
    }
    let windows = crate::spec::resolve::image_basics(&s.compute.image).os
        == crate::spec::model::OsType::Windows;
    if windows || crate::plan::devbox::applies(s) {
        refuse(
            Diagnostic::new(
                "gpu-scaling-needs-serving",
                if windows {
                    "autoscale.gpuUtilization needs the Linux GPU collector, which sends the metric; the Windows collector has no upload"
                } else {
                    "autoscale.gpuUtilization scales a pool, and this spec renders a single dev box"
                },
            )
            .at_key(AT)
            .help("remove autoscale.gpuUtilization, or serve from a Linux image"),
        );
    }
    let cloud = s.effective_cloud();
    if facts::PUBLIC_CLOUD_ONLY && cloud != crate::azure::Cloud::AzureCloud {
        refuse(
            Diagnostic::new(
                "gpu-scaling-cloud",
                format!(
                    "autoscale.gpuUtilization posts the metric with Microsoft Entra authentication, whose prerequisites say \"Be in the public cloud\"; this spec deploys to {}",
                    cloud.name()
                ),
            )
            .at_key(AT)
            .help("scale on requests (`autoscale.requests`) there, or deploy to the Azure public cloud")
            .note(format!(
                "source: {} (read {})",
                facts::ENTRA_SOURCE.what,
                facts::ENTRA_SOURCE.read
            )),
        );
    }
    if t.scale_out_above == 0 || t.scale_out_above >= 100 {
        refuse(
            Diagnostic::new(
                "gpu-scaling-thresholds",
                format!(
                    "autoscale.gpuUtilization.scaleOutAbove is {}: a mean GPU utilisation is a percentage, so the rule would never (or always) fire",
                    t.scale_out_above
                ),
            )
            .at(format!("{AT}/scaleOutAbove"))
            .help("use 50-90 (70-80 suits most model servers)"),
        );
    }
    if let Some(b) = t.scale_in_below {
        if b >= t.scale_out_above {
            refuse(
                Diagnostic::new(
                    "gpu-scaling-thresholds",
                    format!(
                        "autoscale.gpuUtilization.scaleInBelow ({b}) is not below scaleOutAbove ({}): every evaluation would both add and remove instances",
                        t.scale_out_above
                    ),
                )
                .at(format!("{AT}/scaleInBelow"))
                .help(format!(
                    "leave scaleInBelow out (the largest value that cannot flap is {})",
                    plan::flap_safe_scale_in(t.scale_out_above, s.capacity.min)
                )),
            );
        } else if plan::can_flap(b, t.scale_out_above, s.capacity.min) {
            let n = s.capacity.min.max(1) + 1;
            out.push(
                Diagnostic::new(
                    "gpu-scaling-flap",
                    format!(
                        "autoscale.gpuUtilization.scaleInBelow {b}: from {n} instances to {} the same work raises the mean to {:.0}%, at or above scaleOutAbove {}, so the pool can flap",
                        n - 1,
                        f64::from(b) * f64::from(n) / f64::from(n - 1),
                        t.scale_out_above
                    ),
                )
                .at(format!("{AT}/scaleInBelow"))
                .help(format!(
                    "use at most {} (or leave scaleInBelow out)",
                    plan::flap_safe_scale_in(t.scale_out_above, s.capacity.min)
                )),
            );
        }
    }
    if refused {
        return;
    }
    let Some(g) = plan::plan("", s) else {
        return;
    };
    let mut d = Diagnostic::new(
        "gpu-scaling",
        format!(
            "GPU scaling: each VM's collector sends {} (its mean GPU utilisation, once a minute) to an Application Insights component with the pool's identity; autoscale adds {} instance(s) above {}% and removes one below {}% ({})",
            g.metric_name, g.scale_out_step, g.scale_out_above, g.scale_in_below, g.scale_in_from
        ),
    )
    .at_key(AT)
    .label("an Application Insights metric, the only custom-metric path autoscale documents")
    .note(format!(
        "source: {} (read {}): only the Standard and Azure.ApplicationInsights namespaces",
        facts::AUTOSCALE_SOURCE.what,
        facts::AUTOSCALE_SOURCE.read
    ))
    .note(format!(
        "source: {} (read {})",
        facts::TRACK_SOURCE.what,
        facts::TRACK_SOURCE.read
    ));
    for a in &g.assumptions {
        d = d.note(format!("assumption: {a}"));
    }
    out.push(d);
}
