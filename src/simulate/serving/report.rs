//! A request-driven run as text and JSON.

use super::results::{Percentiles, ServingResults};

/// Seconds as people read them: `850 ms`, `4.2 s`, `3 min 10 s`.
pub fn secs(x: f64) -> String {
    if !x.is_finite() {
        return "n/a".into();
    }
    if x < 1.0 {
        format!("{:.0} ms", x * 1000.0)
    } else if x < 120.0 {
        format!("{x:.1} s")
    } else {
        let m = (x / 60.0).floor();
        format!("{m:.0} min {:.0} s", x - m * 60.0)
    }
}

fn opt(x: Option<f64>) -> String {
    x.map_or("failed".into(), secs)
}

fn line(p: &Percentiles) -> String {
    format!(
        "p50 {}, p95 {}, p99 {}, max {}",
        opt(p.p50),
        opt(p.p95),
        opt(p.p99),
        secs(p.max)
    )
}

pub fn text(r: &ServingResults) -> String {
    let mut s = format!(
        "simulate {} ({}, {} at {} requests at once, {} each): {}\n{} minutes from {}, {} requests ({} minutes without any)\n\n",
        r.spec,
        r.vm_size,
        "request-driven pool",
        r.model.concurrency,
        secs(r.model.service_seconds),
        r.trace_source,
        r.trace.minutes,
        r.trace_start,
        r.trace.requests,
        r.trace.idle_minutes
    );
    s.push_str(&format!("latency:  {}\n", line(&r.latency_seconds)));
    s.push_str(&format!("waiting:  {}\n", line(&r.wait_seconds)));
    s.push_str(&format!(
        "target:   p{:.0} <= {}: {} ({:.2} % of requests within it)\n",
        r.latency_target.quantile * 100.0,
        secs(r.latency_target.seconds),
        if r.latency_target.met {
            "met"
        } else {
            "MISSED"
        },
        r.latency_target.within_share * 100.0
    ));
    s.push_str(&format!(
        "analytic: p50 {}, p95 {}, p99 {} ({:.2} % within the target)\n",
        opt(r.analytic.latency_seconds.p50),
        opt(r.analytic.latency_seconds.p95),
        opt(r.analytic.latency_seconds.p99),
        r.analytic.within_share * 100.0
    ));
    let rq = &r.requests;
    if rq.failed_no_healthy + rq.failed_cut > 0 {
        s.push_str(&format!(
            "failed:   {} requests ({} with no healthy VM, {} cut by a scale-in or eviction)\n",
            rq.failed_no_healthy + rq.failed_cut,
            rq.failed_no_healthy,
            rq.failed_cut
        ));
    }
    if rq.over_request_timeout > 0 {
        s.push_str(&format!(
            "timeout:  {} requests took longer than the gateway's request timeout ({})\n",
            rq.over_request_timeout,
            secs(r.model.request_timeout_seconds)
        ));
    }
    let h = &r.instance_hours;
    s.push_str(&format!(
        "\ninstances: peak {}, mean {:.2}; {:.1} VM-hours ({:.1} idle, {:.1} loading the model), {:.1} idle GPU-hours\n",
        r.peak_instances, r.mean_instances, h.total, h.idle, h.provisioning, r.idle_gpu_hours
    ));
    let a = &r.scale_actions;
    s.push_str(&format!(
        "autoscale: {} scale-outs, {} scale-ins ({} deferred, {} reduced by the flapping guard), {} evaluations in a cooldown, {} without data{}\n",
        a.out,
        a.in_,
        a.deferred_in,
        a.reduced_in,
        a.cooldown_skips,
        a.missing_metric,
        if r.evictions > 0 {
            format!(", {} Spot evictions", r.evictions)
        } else {
            String::new()
        }
    ));
    s.push_str(&format!(
        "bound:    {:.1} VM-hours (peak {}): {} x\n",
        r.lower_bound.instance_hours,
        r.lower_bound.peak_instances,
        r.lower_bound
            .ratio
            .map_or("n/a".into(), |x| format!("{x:.2}"))
    ));
    s.push_str(&format!(
        "cost:     {}{}\n",
        r.cost.monthly.map_or("price missing".into(), |m| format!(
            "{}/month",
            r.cost.fmt(m)
        )),
        r.cost
            .pool_monthly
            .map_or(String::new(), |p| format!(" (the pool {})", r.cost.fmt(p)))
    ));
    s.push_str("\nassumptions:\n");
    for a in &r.assumptions {
        s.push_str(&format!("  - {a}\n"));
    }
    for w in &r.warnings {
        s.push_str(&format!("warning: {w}\n"));
    }
    s
}

/// Markdown for `$GITHUB_STEP_SUMMARY`: the figures as a table.
pub fn markdown(r: &ServingResults) -> String {
    let mut s = format!(
        "### gpuform simulate: `{}` (request-driven pool)\n\n| | p50 | p95 | p99 | max |\n|---|---|---|---|---|\n| latency | {} | {} | {} | {} |\n| waiting | {} | {} | {} | {} |\n\n",
        r.spec,
        opt(r.latency_seconds.p50),
        opt(r.latency_seconds.p95),
        opt(r.latency_seconds.p99),
        secs(r.latency_seconds.max),
        opt(r.wait_seconds.p50),
        opt(r.wait_seconds.p95),
        opt(r.wait_seconds.p99),
        secs(r.wait_seconds.max)
    );
    s.push_str(&format!(
        "Target p{:.0} <= {}: **{}** ({:.2} % within). Instances: peak {}, mean {:.2}; {:.1} VM-hours ({:.1} idle), {:.1} idle GPU-hours; {} x the clairvoyant reference; {}.\n",
        r.latency_target.quantile * 100.0,
        secs(r.latency_target.seconds),
        if r.latency_target.met { "met" } else { "missed" },
        r.latency_target.within_share * 100.0,
        r.peak_instances,
        r.mean_instances,
        r.instance_hours.total,
        r.instance_hours.idle,
        r.idle_gpu_hours,
        r.lower_bound
            .ratio
            .map_or("n/a".into(), |x| format!("{x:.2}")),
        r.cost
            .monthly
            .map_or("price missing".into(), |m| format!("{}/month", r.cost.fmt(m)))
    ));
    s
}

pub fn json(r: &ServingResults) -> String {
    serde_json::to_string_pretty(r).unwrap_or_default() + "\n"
}
