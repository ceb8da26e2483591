//! `--tune` for a request-driven pool, on the spec: the knobs read from `autoscale.requests`
//! ([`params_of`]), each candidate's autoscale setting made by the plan's own function from
//! the changed spec ([`setting_for`]: what render would emit, never re-derived here), priced
//! through `gpuform cost`, and the proposal written into the YAML text at the spans its index
//! gives (`autoscale.requests`, the cooldowns, the window, `capacity.min`, schedule minimums),
//! then checked again from scratch: it must validate, plan, and meet the target in the request
//! simulation of its own plan.

use super::super::engine::{Choices, Setting};
use super::super::load::Trace;
use super::super::serving::results::{ServingResults, as_outcome, run as simulate};
use super::super::serving::{Model, pool};
use super::super::{Input, price};
use super::edit::{Edit, apply_edits, edits as general_edits, set};
use super::params::Params;
use super::score::setting_for;
use super::serving::{Job, Tuned, tune};
use crate::cost::PriceBook;
use crate::plan::Plan;
use crate::spec::Checked;
use crate::spec::defaults::{flap_safe_scale_in, lowest_min};
use crate::spec::model::{ScaleOutAggregation, Spec};
use crate::spec::policy::Policy;
use crate::spec::schedule::parse_duration;

const REQUESTS: &str = "/spec/autoscale/requests";

/// The knobs of the spec's request-driven policy (the target as the plan resolves it: written,
/// or derived from concurrency and the service time).
pub fn params_of(spec: &Spec) -> Option<Params> {
    let a = spec.spec.autoscale.as_ref()?;
    let r = a.requests.as_ref()?;
    let (target, _, _) = crate::plan::serving::request_target(&spec.spec)?;
    let m = |s: &str| parse_duration(s).map(|x| (x / 60) as u32).unwrap_or(5);
    Some(Params {
        target_per_instance: target,
        scale_in_below: r.scale_in_below.unwrap_or(0),
        scale_out_step: r.scale_out_step.unwrap_or(1),
        scale_out_tiers: Vec::new(),
        scale_out_aggregation: r.scale_out_aggregation.unwrap_or_default(),
        scale_out_cooldown_minutes: m(&a.scale_out_cooldown),
        scale_in_cooldown_minutes: m(&a.scale_in_cooldown),
        time_window_minutes: m(&a.time_window),
        capacity_min: spec.spec.capacity.min,
        schedule_mins: a.schedules.iter().map(|s| s.min).collect(),
        capacity_default: spec.spec.capacity.default,
        schedule_defaults: a.schedules.iter().map(|s| s.default).collect(),
    })
}

/// The spec with these knobs (`explicit_below`: the YAML sets `scaleInBelow` itself; else the
/// plan derives it from the target, as it does for the spec as written).
pub fn apply(p: &Params, spec: &Spec, explicit_below: bool) -> Spec {
    // the general knobs (capacity, cooldowns, window, schedules) as the queue tune sets them
    let mut s = p.apply(spec, explicit_below);
    let low = lowest_min(&s.spec);
    if let Some(r) = s.spec.autoscale.as_mut().and_then(|a| a.requests.as_mut()) {
        r.target_per_instance = Some(p.target_per_instance);
        r.scale_out_step = Some(p.scale_out_step);
        if r.scale_out_aggregation.is_some()
            || p.scale_out_aggregation != ScaleOutAggregation::Average
        {
            r.scale_out_aggregation = Some(p.scale_out_aggregation);
        }
        if explicit_below {
            r.scale_in_below = Some(
                p.scale_in_below
                    .min(flap_safe_scale_in(p.target_per_instance, low)),
            );
        }
    }
    s
}

/// The edits that turn `before` into `p`: `autoscale.requests` here, the rest (cooldowns,
/// window, capacity, schedules) through the queue tune's [`general_edits`].
pub fn edits(
    before: &Params,
    p: &Params,
    explicit_below: bool,
    written_target: bool,
    index: &crate::spec::yaml::SpanIndex,
    text: &str,
) -> Result<Vec<Edit>, String> {
    if p == before {
        return Ok(Vec::new());
    }
    // the request knobs kept equal, so the queue tune's edits touch none of `autoscale.queue`
    let same = Params {
        target_per_instance: before.target_per_instance,
        scale_in_below: before.scale_in_below,
        scale_out_step: before.scale_out_step,
        scale_out_tiers: before.scale_out_tiers.clone(),
        scale_out_aggregation: before.scale_out_aggregation,
        ..p.clone()
    };
    let mut v = general_edits(before, &same, explicit_below, index, text)?;
    let mut changes: Vec<(&str, String)> = Vec::new();
    // a derived target is written once the tune chose the policy around it (derived again, it
    // would move with the next change of the service time)
    if p.target_per_instance != before.target_per_instance || !written_target {
        changes.push(("targetPerInstance", p.target_per_instance.to_string()));
    }
    if explicit_below && p.target_per_instance != before.target_per_instance {
        let safe = flap_safe_scale_in(p.target_per_instance, p.lowest_min());
        changes.push(("scaleInBelow", p.scale_in_below.min(safe).to_string()));
    }
    if p.scale_out_step != before.scale_out_step {
        changes.push(("scaleOutStep", p.scale_out_step.to_string()));
    }
    if p.scale_out_aggregation != before.scale_out_aggregation {
        changes.push((
            "scaleOutAggregation",
            p.scale_out_aggregation.as_str().to_string(),
        ));
    }
    if changes.is_empty() {
        return Ok(v);
    }
    let body = index
        .spans(REQUESTS)
        .and_then(|n| text.get(n.value.byte_start..n.value.byte_end))
        .unwrap_or_default();
    let mut children = index.children(REQUESTS);
    children.sort_by_key(|c| index.spans(c).map_or(0, |n| n.value.byte_start));
    if body.trim_start().starts_with('{') || children.is_empty() {
        // a flow mapping (`requests: {}`) or an empty value: written whole, its entries kept
        // (several keys inserted one by one into one flow mapping would not join)
        let mut entries: Vec<(String, String)> = children
            .iter()
            .filter_map(|c| {
                let key = c.rsplit('/').next()?.replace("~1", "/").replace("~0", "~");
                let n = index.spans(c)?;
                Some((
                    key,
                    text.get(n.value.byte_start..n.value.byte_end)?.to_string(),
                ))
            })
            .collect();
        for (k, val) in changes {
            match entries.iter_mut().find(|(key, _)| key == k) {
                Some(e) => e.1 = val,
                None => entries.push((k.to_string(), val)),
            }
        }
        let flow = entries
            .iter()
            .map(|(k, val)| format!("{k}: {val}"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut e = set(
            index,
            text,
            "/spec/autoscale",
            "requests",
            &format!("{{{flow}}}"),
        )?;
        // the whole flow mapping, to its `}` (the parser's span of a collection may stop short)
        if let Some(close) = flow_end(text, e.start) {
            e.end = e.end.max(close);
        }
        v.push(e);
    } else {
        for (k, val) in changes {
            v.push(set(index, text, REQUESTS, k, &val)?);
        }
    }
    Ok(v)
}

/// The byte after the `}` closing the flow mapping that opens at or after `from` (quotes
/// respected), if the text there is one.
fn flow_end(text: &str, from: usize) -> Option<usize> {
    let rest = text.get(from..)?;
    let open = rest.find(|c: char| !c.is_whitespace())?;
    if !rest[open..].starts_with('{') {
        return None;
    }
    let (mut depth, mut quote) = (0usize, None::<char>);
    for (i, ch) in rest[open..].char_indices() {
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(ch),
            (None, '{' | '[') => depth += 1,
            (None, '}' | ']') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(from + open + i + 1);
                }
            }
            (None, '#') if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

/// Everything a spec-level serving tune reads.
pub struct SpecJob<'a> {
    pub input: &'a Input<'a>,
    pub checked: &'a Checked,
    pub policy: &'a Policy,
    pub source: &'a str,
    pub trace: &'a Trace,
    pub model: &'a Model,
    pub choices: Choices,
    pub seed: u64,
    pub book: &'a PriceBook,
    pub today: &'a str,
    /// The share of the variants a proposal must hold under (`None`: the nominal model only).
    pub robust_share: Option<f64>,
}

/// The proposal, written and checked.
#[derive(Debug, Clone)]
pub struct Written {
    pub params: Params,
    /// The request simulation of the rewritten spec's own plan.
    pub after: ServingResults,
    pub new_text: String,
    /// The unified diff (empty: the spec as written is the proposal).
    pub diff: String,
}

/// The search's result and, when it proposes, the proposal written into the spec.
#[derive(Debug, Clone)]
pub struct SpecTuned {
    pub tuned: Tuned,
    pub before: Params,
    pub written: Option<Written>,
    /// Why the proposal could not be written (it is still printed).
    pub unwritten: Option<String>,
}

impl SpecTuned {
    pub fn proposes(&self) -> bool {
        self.tuned.best.is_some()
    }
}

/// Search (the serving tuner on the plan's settings), then write and check the proposal.
pub fn tune_spec(job: &SpecJob) -> Result<SpecTuned, String> {
    let spec = job.input.spec;
    let plan = job.input.plan;
    let before = params_of(spec).ok_or(
        "the spec has no request-driven autoscale (autoscale.requests): there is no policy to tune (a fixed pool or schedules alone scale by the clock)",
    )?;
    let explicit_below = job
        .checked
        .index
        .spans(&format!("{REQUESTS}/scaleInBelow"))
        .is_some();
    let setting_of = |p: &Params| -> Result<Setting, String> {
        setting_for(&apply(p, spec, explicit_below), plan)
    };
    let price_of = |instance: u64, spot: u64, minutes: usize| -> Option<f64> {
        let p = pool::Pool::default();
        let mut o = as_outcome(&p, minutes);
        o.instance_minutes = instance;
        o.spot_minutes = spot;
        o.regular_minutes = instance.saturating_sub(spot);
        price(job.input, &o, job.book, job.today).1.pool_monthly
    };
    let search = Job {
        trace: job.trace,
        model: job.model,
        priority: &super::super::priority(plan, spec),
        choices: job.choices,
        seed: job.seed,
        setting_of: &setting_of,
        price_of: &price_of,
        robust_share: job.robust_share,
    };
    let tuned = tune(&search, &before)?;
    let (written, unwritten) = match &tuned.best {
        None => (None, None),
        Some(c) => match write(job, &before, &c.params, explicit_below) {
            Ok(w) => (Some(w), None),
            Err(e) => (None, Some(e)),
        },
    };
    Ok(SpecTuned {
        tuned,
        before,
        written,
        unwritten,
    })
}

/// Write `p` into the spec's text, check it from scratch, and simulate its own plan.
fn write(
    job: &SpecJob,
    before: &Params,
    p: &Params,
    explicit_below: bool,
) -> Result<Written, String> {
    let written_target = job
        .checked
        .index
        .spans(&format!("{REQUESTS}/targetPerInstance"))
        .is_some();
    let e = edits(
        before,
        p,
        explicit_below,
        written_target,
        &job.checked.index,
        job.source,
    )?;
    let new_text = apply_edits(job.source, e);
    let checked = super::score::recheck(new_text.clone(), job.checked, job.policy)?;
    let plan = Plan::build(&checked).map_err(|e| e.to_string())?;
    let spec = checked.spec.as_ref().ok_or("the tuned spec has no model")?;
    let size = checked.size().ok_or("the tuned spec has no size")?;
    let setting = super::super::setting(&plan, spec)?;
    let input = Input {
        spec,
        plan: &plan,
        size,
        file: job.input.file,
        auto_sized: checked.auto_sized,
    };
    let after = simulate(
        &input,
        &setting,
        job.trace,
        job.model,
        &job.choices,
        job.seed,
        job.book,
        job.today,
    );
    let diff = similar::TextDiff::from_lines(job.source, &new_text)
        .unified_diff()
        .context_radius(2)
        .header(job.input.file, job.input.file)
        .to_string();
    Ok(Written {
        params: p.clone(),
        after,
        new_text,
        diff,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(target: u32, agg: ScaleOutAggregation, out: u32, min: u32) -> Params {
        Params {
            target_per_instance: target,
            scale_in_below: 0,
            scale_out_step: 1,
            scale_out_tiers: vec![],
            scale_out_aggregation: agg,
            scale_out_cooldown_minutes: out,
            scale_in_cooldown_minutes: 15,
            time_window_minutes: 5,
            capacity_min: min,
            schedule_mins: vec![],
            capacity_default: None,
            schedule_defaults: vec![],
        }
    }

    fn edited(yaml: &str, before: &Params, after: &Params) -> String {
        let parsed = crate::spec::yaml::parse(yaml).unwrap();
        let written = parsed
            .index
            .spans(&format!("{REQUESTS}/targetPerInstance"))
            .is_some();
        let below = parsed
            .index
            .spans(&format!("{REQUESTS}/scaleInBelow"))
            .is_some();
        let e = edits(before, after, below, written, &parsed.index, yaml).unwrap();
        let out = apply_edits(yaml, e);
        crate::spec::yaml::parse(&out).unwrap_or_else(|d| panic!("{}\n{out}", d.message));
        out
    }

    #[test]
    fn writes_the_request_knobs_into_flow_and_block_mappings() {
        let before = params(168, ScaleOutAggregation::Average, 5, 2);
        let after = params(228, ScaleOutAggregation::Last, 10, 1);
        // an empty flow mapping with a comment after it: written whole, the comment kept
        let flow = "spec:\n  capacity:\n    min: 2\n  autoscale:\n    requests: {}   # derived\n    scaleOutCooldown: PT5M\n";
        let out = edited(flow, &before, &after);
        assert!(
            out.contains(
                "requests: {targetPerInstance: 228, scaleOutAggregation: last}   # derived"
            ),
            "{out}"
        );
        assert!(
            out.contains("scaleOutCooldown: PT10M") && out.contains("min: 1"),
            "{out}"
        );
        // a flow mapping with an entry: kept, the target replaced
        let flow = "spec:\n  capacity: {min: 2}\n  autoscale:\n    requests: {targetPerInstance: 168, scaleOutStep: 1}\n";
        let out = edited(flow, &before, &after);
        assert!(
            out.contains(
                "requests: {targetPerInstance: 228, scaleOutStep: 1, scaleOutAggregation: last}"
            ),
            "{out}"
        );
        // a block mapping: each key in place
        let block = "spec:\n  capacity: {min: 2}\n  autoscale:\n    requests:\n      targetPerInstance: 168\n      scaleInBelow: 80\n    scaleInCooldown: PT15M\n";
        let out = edited(block, &before, &after);
        assert!(out.contains("      targetPerInstance: 228\n"), "{out}");
        assert!(out.contains("      scaleOutAggregation: last\n"), "{out}");
        // the explicit scaleInBelow follows the target, flap-safe at the new floor of 1
        assert!(
            out.contains("scaleInBelow: 0") || out.contains("scaleInBelow: 113"),
            "{out}"
        );
        // nothing changed: no edit, even with a derived target
        assert_eq!(edited(flow, &before, &before), flow);
    }
}
