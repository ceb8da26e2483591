//! A request-driven tune's output: text, Markdown and JSON (keys added, never renamed).

use super::super::serving::report::secs;
use super::super::serving::results::ServingResults;
use super::serving::{Tuned, UnderVariants};
use super::serving_spec::SpecTuned;

fn opt(x: Option<f64>) -> String {
    x.map_or("failed".into(), secs)
}

fn figures(r: &ServingResults) -> String {
    format!(
        "p95 {} (p50 {}, p99 {}), {} {:.2} % within {}; {:.1} VM-hours ({:.1} idle), {} x bound, {}",
        opt(r.latency_seconds.p95),
        opt(r.latency_seconds.p50),
        opt(r.latency_seconds.p99),
        if r.latency_target.met {
            "met,"
        } else {
            "MISSED,"
        },
        r.latency_target.within_share * 100.0,
        secs(r.latency_target.seconds),
        r.instance_hours.total,
        r.instance_hours.idle,
        r.lower_bound
            .ratio
            .map_or("n/a".into(), |x| format!("{x:.2}")),
        r.cost.monthly.map_or("price missing".into(), |m| format!(
            "{}/month",
            r.cost.fmt(m)
        ))
    )
}

fn under(t: &Tuned, u: &UnderVariants) -> String {
    let worst = u
        .within_target
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, _)| i);
    let mut s = format!("holds under {} of {}", u.held, u.holds.len());
    if let Some(i) = worst {
        s.push_str(&format!(
            "; worst: p95 {} ({})",
            opt(u.latency.get(i).copied().flatten()),
            t.variants.get(i).map_or("", |v| v.name.as_str())
        ));
    }
    let missed: Vec<&str> = u
        .holds
        .iter()
        .zip(&t.variants)
        .filter(|(h, _)| !**h)
        .map(|(_, v)| v.name.as_str())
        .collect();
    if !missed.is_empty() && missed.len() < u.holds.len() {
        s.push_str(&format!("; misses: {}", missed.join("; ")));
    }
    s
}

pub fn text(before: &ServingResults, st: &SpecTuned) -> String {
    let t = &st.tuned;
    let mut s = format!(
        "tuned {} for p{:.0} <= {}: {} policies screened in {:.1} s (the analytic model), {} meet the target\n\n",
        before.spec,
        before.latency_target.quantile * 100.0,
        secs(before.latency_target.seconds),
        t.candidates,
        t.elapsed_ms as f64 / 1000.0,
        t.meeting
    );
    if t.variants.len() > 1 {
        s.push_str(&format!(
            "robust: a proposal must hold under {} of the {} variants ({})\n",
            if t.share >= 1.0 {
                "all".to_string()
            } else {
                format!("{:.0} %", t.share * 100.0)
            },
            t.variants.len(),
            t.variants
                .iter()
                .map(|v| v.name.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        ));
        if let Some(u) = &t.before_under {
            s.push_str(&format!("  before:   {}\n", under(t, u)));
        }
        if let Some(u) = &t.best_under {
            s.push_str(&format!("  proposal: {}\n", under(t, u)));
        }
        s.push('\n');
    }
    s.push_str(&format!("before: {}\n", figures(before)));
    if let Some(w) = &st.written {
        s.push_str(&format!("after:  {}\n", figures(&w.after)));
    }
    if t.rejected_by_simulation > 0 {
        s.push_str(&format!(
            "({} cheaper candidates held in the analytic model and missed in the request simulation)\n",
            t.rejected_by_simulation
        ));
    }
    if let Some(r) = &t.reason {
        s.push_str(&format!(
            "\n{}{r}\n",
            if t.best.is_some() {
                "note: "
            } else {
                "no proposal: "
            }
        ));
    }
    match (&t.best, &st.written) {
        (Some(_), Some(w)) if w.diff.is_empty() => {
            s.push_str("\nthe spec as written is already the cheapest policy found\n")
        }
        (Some(_), Some(w)) => {
            s.push('\n');
            s.push_str(&w.diff);
        }
        (Some(c), None) => s.push_str(&format!(
            "\nthe proposal (target {} requests a minute per healthy VM, step {}, {}, cooldowns {} / {} min, window {} min, capacity.min {}) could not be written: {}\n",
            c.params.target_per_instance,
            c.params.scale_out_step,
            c.params.scale_out_aggregation.as_str(),
            c.params.scale_out_cooldown_minutes,
            c.params.scale_in_cooldown_minutes,
            c.params.time_window_minutes,
            c.params.capacity_min,
            st.unwritten.as_deref().unwrap_or("unknown")
        )),
        (None, _) => {}
    }
    s
}

pub fn markdown(before: &ServingResults, st: &SpecTuned) -> String {
    let t = &st.tuned;
    let mut s = format!(
        "### gpuform simulate --tune: `{}`\n\n{} policies screened, {} meet p{:.0} <= {}.\n\n| | p50 | p95 | p99 | VM-hours | idle | x bound | monthly |\n|---|---|---|---|---|---|---|---|\n",
        before.spec,
        t.candidates,
        t.meeting,
        before.latency_target.quantile * 100.0,
        secs(before.latency_target.seconds)
    );
    let row = |name: &str, r: &ServingResults| {
        format!(
            "| {name} | {} | {} | {} | {:.1} | {:.1} | {} | {} |\n",
            opt(r.latency_seconds.p50),
            opt(r.latency_seconds.p95),
            opt(r.latency_seconds.p99),
            r.instance_hours.total,
            r.instance_hours.idle,
            r.lower_bound
                .ratio
                .map_or("n/a".into(), |x| format!("{x:.2}")),
            r.cost.monthly.map_or("n/a".into(), |m| r.cost.fmt(m))
        )
    };
    s.push_str(&row("before", before));
    if let Some(w) = &st.written {
        s.push_str(&row("after", &w.after));
        if !w.diff.is_empty() {
            s.push_str(&format!("\n```diff\n{}```\n", w.diff));
        }
    }
    if let Some(r) = &t.reason {
        s.push_str(&format!("\n{r}\n"));
    }
    s
}

pub fn json(before: &ServingResults, st: &SpecTuned) -> String {
    let t = &st.tuned;
    let v = serde_json::json!({
        "mode": "requests",
        "candidates": t.candidates,
        "meetingTarget": t.meeting,
        "elapsedMs": t.elapsed_ms as u64,
        "before": before,
        "beforePolicy": st.before,
        "after": st.written.as_ref().map(|w| &w.after),
        "afterPolicy": t.best.as_ref().map(|c| &c.params),
        "diff": st.written.as_ref().map(|w| &w.diff),
        "unwritten": st.unwritten,
        "reason": t.reason,
        "robust": t.variants.len() > 1,
        "holdsUnderAll": t.robust,
        "variants": t.variants.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(),
        "share": t.share,
        "beforeUnderVariants": t.before_under,
        "afterUnderVariants": t.best_under,
        "confirmedLatencySeconds": t.confirmed_latency,
        "confirmedWithinShare": t.confirmed_within,
        "rejectedBySimulation": t.rejected_by_simulation,
        "screened": {"before": t.before, "proposal": t.best},
    });
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}
