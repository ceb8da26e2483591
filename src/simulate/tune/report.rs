//! The tune's output: text, Markdown and JSON.

use super::super::Results;
use super::search::{Robust, Tuned, UnderVariants};

/// The ratio to the lower bound with the standby pool (disks, builds) counted as instance-hours
/// at the scale set's own price per instance-hour (`None` without a pool or a price).
pub(super) fn with_pool_disks(r: &Results) -> Option<f64> {
    let (ratio, pool, sb) = (
        r.lower_bound.ratio?,
        r.cost.pool_monthly?,
        r.cost.standby_monthly?,
    );
    (pool - sb > 0.0).then(|| ratio * pool / (pool - sb))
}

fn figures(r: &Results) -> String {
    let bound = match (r.lower_bound.ratio, with_pool_disks(r)) {
        (Some(x), Some(w)) => format!("{x:.2} x bound ({w:.2} with the standby pool counted)"),
        (Some(x), None) => format!("{x:.2} x bound"),
        _ => "n/a x bound".into(),
    };
    format!(
        "p95 {} min (p99 {}, max {}), {:.1} instance-hours ({:.1} idle), {}, {}",
        r.wait_minutes.p95,
        r.wait_minutes.p99,
        r.wait_minutes.max,
        r.instance_hours.total,
        r.instance_hours.idle,
        bound,
        r.cost.monthly.map_or("price missing".into(), |m| format!(
            "{}/month",
            r.cost.fmt(m)
        ))
    )
}

pub fn text(before: &Results, t: &Tuned) -> String {
    let cur = before.cost.currency();
    let mut s = format!(
        "tuned {} for p95 <= {} min: {} policies simulated in {} ms, {} meet the target\n\nbefore: {}\n",
        before.spec,
        before.wait_target.minutes,
        t.candidates,
        t.elapsed_ms,
        t.meeting,
        figures(before)
    );
    if let Some(r) = &t.robust {
        s.push_str(&robust_text(r, t.best.is_some(), &before.cost));
    }
    if let Some(j) = &t.pool_search {
        for l in j.lines(cur) {
            s.push_str(&l);
            s.push('\n');
        }
    }
    if let Some(p) = &t.standby {
        for l in p.lines_with(t.pool_search.is_none(), cur) {
            s.push_str(&l);
            s.push('\n');
        }
    }
    match &t.best {
        Some(b) => {
            s.push_str(&format!("after:  {}\n\n", figures(&b.after)));
            if let Some(why) = &b.unwritable {
                s.push_str(&format!(
                    "the proposal, to apply by hand (gpuform cannot write it into {}: {why}):\n",
                    before.spec
                ));
                s.push_str(&b.diff);
            } else if b.changed() {
                s.push_str(&b.diff);
            } else {
                s.push_str("the spec as written is already the cheapest policy found\n");
            }
        }
        None => s.push_str(&format!(
            "\nno proposal: {}\n",
            t.reason.as_deref().unwrap_or("none found")
        )),
    }
    if let Some(l) = &t.schedule {
        s.push('\n');
        s.push_str(&super::learned::text(l, cur));
    }
    s
}

fn robust_json(r: &Robust) -> serde_json::Value {
    let names: Vec<&str> = r.variants.iter().map(|v| v.name.as_str()).collect();
    serde_json::json!({
        "share": r.share,
        "variants": names,
        "candidatesChecked": r.checked,
        "before": r.before,
        "nominalBest": r.nominal_best.as_ref().map(|n| &n.params),
        "nominalBestPoolMonthly": r.nominal_best.as_ref().and_then(|n| n.pool_monthly),
        "nominalBestUnderVariants": r.nominal_best_under_variants,
        "after": r.after,
        "costOfRobustness": r.cost_of_robustness,
        "costOfRobustnessPercent": r.cost_of_robustness_percent,
    })
}

fn robust_text(r: &Robust, proposed: bool, cost: &super::super::Cost) -> String {
    let share = if r.share >= 1.0 {
        "all".to_string()
    } else {
        format!("{:.0} % of the", r.share * 100.0)
    };
    let mut s = format!(
        "robust: a proposal must meet the target under {share} {} model variants ({} candidates checked under them)\n",
        r.variants.len(),
        r.checked
    );
    let worst = |u: &UnderVariants| {
        let i = u
            .p95
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map_or(0, |(i, _)| i);
        format!(
            "worst-case p95 {} min ({}), nominal {} min, meets under {} of {}",
            u.worst_p95,
            r.variants.get(i).map_or("", |v| v.name.as_str()),
            u.p95.first().copied().unwrap_or(f64::NAN),
            u.meeting,
            u.p95.len()
        )
    };
    s.push_str(&format!("  before:       {}\n", worst(&r.before)));
    if let (Some(n), Some(u)) = (&r.nominal_best, &r.nominal_best_under_variants) {
        s.push_str(&format!(
            "  nominal best: {} ({})\n",
            worst(u),
            n.pool_monthly.map_or("price missing".into(), |m| format!(
                "{}/month pool",
                cost.fmt(m)
            ))
        ));
    }
    if let Some(u) = &r.after {
        s.push_str(&format!("  proposal:     {}\n", worst(u)));
    }
    if proposed && let Some(c) = r.cost_of_robustness {
        s.push_str(&format!(
            "  cost of robustness: {}/month{} over the cheapest policy that meets the target in the nominal model only\n",
            cost.fmt(c),
            r.cost_of_robustness_percent
                .map_or(String::new(), |p| format!(" ({p:+.1} %)"))
        ));
    }
    s.push('\n');
    s
}

pub fn markdown(before: &Results, t: &Tuned) -> String {
    let mut s = format!(
        "### gpuform simulate --tune: `{}`\n\n{} policies simulated, {} meet p95 <= {} min.\n\n| | p95 wait | instance-hours | idle | x bound | monthly |\n|---|---|---|---|---|---|\n",
        before.spec, t.candidates, t.meeting, before.wait_target.minutes
    );
    let row = |name: &str, r: &Results| {
        format!(
            "| {name} | {} min | {:.1} | {:.1} | {} | {} |\n",
            r.wait_minutes.p95,
            r.instance_hours.total,
            r.instance_hours.idle,
            r.lower_bound
                .ratio
                .map_or("n/a".into(), |x| format!("{x:.2}")),
            r.cost.monthly.map_or("n/a".into(), |m| r.cost.fmt(m))
        )
    };
    s.push_str(&row("before", before));
    match &t.best {
        Some(b) => {
            s.push_str(&row("after", &b.after));
            match &b.unwritable {
                Some(why) => s.push_str(&format!(
                    "\nThe proposal, to apply by hand (gpuform cannot write it into the spec: {why}):\n\n```\n{}```\n",
                    b.diff
                )),
                None => s.push_str(&format!("\n```diff\n{}```\n", b.diff)),
            }
        }
        None => s.push_str(&format!(
            "\nNo proposal: {}\n",
            t.reason.as_deref().unwrap_or("none found")
        )),
    }
    if let Some(l) = &t.schedule {
        s.push_str(&super::learned::markdown(l, before.cost.currency()));
    }
    s
}

pub fn json(before: &Results, t: &Tuned) -> String {
    let robust = t.robust.as_ref().map(robust_json);
    let worst = t
        .robust
        .as_ref()
        .and_then(|r| r.after.as_ref())
        .map(|u| u.worst_p95);
    let before_worst = t.robust.as_ref().map(|r| r.before.worst_p95);
    let v = serde_json::json!({
        "candidates": t.candidates,
        "meetingTarget": t.meeting,
        "elapsedMs": t.elapsed_ms as u64,
        "before": before,
        "beforePolicy": t.before,
        "after": t.best.as_ref().map(|b| &b.after),
        "afterPolicy": t.best.as_ref().map(|b| &b.params),
        "diff": t.best.as_ref().map(|b| &b.diff),
        "unwritable": t.best.as_ref().and_then(|b| b.unwritable.as_ref()),
        "reason": t.reason,
        "robust": robust,
        "worstCaseP95": worst,
        "beforeWorstCaseP95": before_worst,
    });
    let mut v = v;
    if let Some(p) = &t.standby {
        v["standby"] = serde_json::to_value(p).unwrap_or_default();
    }
    if let Some(j) = &t.pool_search {
        v["poolSearch"] = serde_json::to_value(j).unwrap_or_default();
        v["boundRatioWithStandby"] =
            serde_json::json!(t.best.as_ref().and_then(|b| with_pool_disks(&b.after)));
    }
    if let Some(l) = &t.schedule {
        v["schedule"] = serde_json::to_value(l).unwrap_or_default();
    }
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}
