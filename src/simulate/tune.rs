//! `--tune`: search the policies render can express for the cheapest that meets the wait target
//! on the trace, and write the change back into the spec's YAML text.
//!
//! Each candidate is a changed spec whose autoscale setting comes from the plan's own function
//! (`plan::autoscale`), so what is simulated is what render would emit. Search, in two stages
//! (rayon, both cores):
//! 1. `targetPerInstance` × `scaleOutStep` × `scaleOutCooldown` (15 × 4 × 4);
//! 2. around the three cheapest of stage 1 that meet the target (or the three fastest when none
//!    does): `scaleInCooldown` × `timeWindow` × one `scaleOutTiers` tier or none × the minimums
//!    (as is; zero minimums raised to 1; schedule minimums above `capacity.min` halved; both).
//!
//! Robustness (issue 22): the candidates that meet the target in the nominal model are checked,
//! cheapest first, under the model [`variants`] (the other queue-metric reading, a late metric,
//! spread arrivals, slower and faster provisioning); the proposal is the cheapest that meets the
//! target under all of them (or `--robust-share` of them).
//!
//! The cheapest candidate meeting the target (pool cost, then instance-hours) is written into the
//! YAML text at the spans the spec's YAML index gives, then checked again from scratch: it must
//! validate and plan, and its figures are simulated once more from that plan.

use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use super::engine::{self, Arrivals, Choices, Run, Setting};
use super::{Input, Results, Settings, monthly_hours, price, priority, results};
use crate::cost::PriceBook;
use crate::plan::Plan;
use crate::spec::defaults::{flap_safe_scale_in, lowest_min};
use crate::spec::model::{ScaleOutTier, Spec};
use crate::spec::policy::Policy;
use crate::spec::schedule::parse_duration;
use crate::spec::yaml::SpanIndex;
use crate::spec::{Checked, check_source};

/// What a tune needs.
pub struct Job<'a> {
    pub input: &'a Input<'a>,
    pub checked: &'a Checked,
    pub policy: &'a Policy,
    pub source: &'a str,
    pub trace: &'a super::load::Trace,
    pub workload: &'a super::model::Workload,
    pub settings: &'a Settings,
    pub book: &'a PriceBook,
    pub today: &'a str,
    /// The share of the model variants ([`variants`]) under which a candidate must meet the
    /// target (1.0: all of them; `None`: the nominal model only).
    pub robust_share: Option<f64>,
}

/// A model variant: one plausible reading of what Microsoft leaves open.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Variant {
    pub name: String,
    #[serde(skip)]
    pub choices: Choices,
}

/// The variants `--tune` checks a candidate under: the nominal model, each uncertainty on its
/// own (the other queue-metric reading, a 2-minute metric delay, arrivals spread within the
/// minute, provisioning 25 % faster and slower), and the two pessimistic combinations.
pub fn variants(base: Choices) -> Vec<Variant> {
    let (_, late) = crate::facts::autoscale::METRIC_DELAY_MINUTES;
    let other = !base.queue_metric_counts_in_service;
    let v = |name: &str, f: &dyn Fn(&mut Choices)| {
        let mut c = base;
        f(&mut c);
        Variant {
            name: name.to_string(),
            choices: c,
        }
    };
    vec![
        v("nominal", &|_| {}),
        v(
            if other {
                "metric counts in-service messages"
            } else {
                "metric counts waiting messages only"
            },
            &|c| c.queue_metric_counts_in_service = other,
        ),
        v(&format!("metric {late} min late"), &|c| {
            c.metric_delay_minutes = late
        }),
        v("arrivals spread within the minute", &|c| {
            c.arrivals = Arrivals::Spread
        }),
        v("provisioning -25 %", &|c| c.provisioning_factor = 0.75),
        v("provisioning +25 %", &|c| c.provisioning_factor = 1.25),
        v(
            &format!("metric {late} min late, spread arrivals, provisioning +25 %"),
            &|c| {
                c.metric_delay_minutes = late;
                c.arrivals = Arrivals::Spread;
                c.provisioning_factor = 1.25;
            },
        ),
        v(
            &format!("other metric reading, {late} min late, provisioning +25 %"),
            &|c| {
                c.queue_metric_counts_in_service = other;
                c.metric_delay_minutes = late;
                c.provisioning_factor = 1.25;
            },
        ),
    ]
}

/// A candidate under every variant.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnderVariants {
    /// p95 wait per variant, in the order of [`variants`].
    pub p95: Vec<f64>,
    pub worst_p95: f64,
    /// Variants under which the candidate meets the target.
    pub meeting: usize,
}

/// What robustness found and cost.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Robust {
    pub variants: Vec<Variant>,
    /// The share of variants a candidate had to meet the target under.
    pub share: f64,
    /// The spec as written under every variant.
    pub before: UnderVariants,
    /// The cheapest candidate that meets the target in the nominal model alone, and how it
    /// fares under the variants.
    pub nominal_best: Option<Scored>,
    pub nominal_best_under_variants: Option<UnderVariants>,
    /// The proposal under every variant.
    pub after: Option<UnderVariants>,
    /// Candidates checked under the variants.
    pub checked: usize,
    /// Monthly pool cost of the proposal minus that of the nominal best (what the margin costs).
    pub cost_of_robustness: Option<f64>,
    pub cost_of_robustness_percent: Option<f64>,
}

/// The knobs of a queue-driven policy.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Params {
    pub target_per_instance: u32,
    pub scale_in_below: u32,
    pub scale_out_step: u32,
    pub scale_out_tiers: Vec<ScaleOutTier>,
    pub scale_out_cooldown_minutes: u32,
    pub scale_in_cooldown_minutes: u32,
    pub time_window_minutes: u32,
    pub capacity_min: u32,
    pub schedule_mins: Vec<u32>,
    /// The spec's own `capacity.default` and schedule defaults (kept at or above the minimums).
    pub capacity_default: Option<u32>,
    pub schedule_defaults: Vec<Option<u32>>,
}

impl Params {
    pub fn of(spec: &Spec) -> Option<Params> {
        let a = spec.spec.autoscale.as_ref()?;
        let q = a.queue.as_ref()?;
        let m = |s: &str| parse_duration(s).map(|x| (x / 60) as u32).unwrap_or(5);
        Some(Params {
            target_per_instance: q.target_per_instance,
            scale_in_below: q.scale_in_below.unwrap_or(0),
            scale_out_step: q.scale_out_step.unwrap_or(1),
            scale_out_tiers: q.scale_out_tiers.clone(),
            scale_out_cooldown_minutes: m(&a.scale_out_cooldown),
            scale_in_cooldown_minutes: m(&a.scale_in_cooldown),
            time_window_minutes: m(&a.time_window),
            capacity_min: spec.spec.capacity.min,
            schedule_mins: a.schedules.iter().map(|s| s.min).collect(),
            capacity_default: spec.spec.capacity.default,
            schedule_defaults: a.schedules.iter().map(|s| s.default).collect(),
        })
    }

    /// The spec with these knobs (`explicit_below`: the YAML sets `scaleInBelow` itself; else
    /// it is derived from the target as `validate` derives it).
    pub fn apply(&self, spec: &Spec, explicit_below: bool) -> Spec {
        let mut s = spec.clone();
        s.spec.capacity.min = self.capacity_min;
        s.spec.capacity.default = self.capacity_default;
        if let Some(a) = s.spec.autoscale.as_mut() {
            a.scale_out_cooldown = format!("PT{}M", self.scale_out_cooldown_minutes);
            a.scale_in_cooldown = format!("PT{}M", self.scale_in_cooldown_minutes);
            a.time_window = format!("PT{}M", self.time_window_minutes);
            for ((sched, m), d) in a
                .schedules
                .iter_mut()
                .zip(&self.schedule_mins)
                .zip(&self.schedule_defaults)
            {
                sched.min = *m;
                sched.default = *d;
            }
        }
        let low = lowest_min(&s.spec);
        if let Some(q) = s.spec.autoscale.as_mut().and_then(|a| a.queue.as_mut()) {
            q.target_per_instance = self.target_per_instance;
            q.scale_out_step = Some(self.scale_out_step);
            q.scale_out_tiers = self.scale_out_tiers.clone();
            let safe = flap_safe_scale_in(self.target_per_instance, low);
            q.scale_in_below = Some(if explicit_below {
                self.scale_in_below.min(safe)
            } else {
                safe
            });
        }
        s
    }
}

/// One simulated candidate.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scored {
    pub params: Params,
    pub p95: f64,
    pub instance_hours: f64,
    pub pool_monthly: Option<f64>,
    pub meets: bool,
}

/// The proposal.
#[derive(Debug, Clone)]
pub struct Best {
    pub params: Params,
    pub after: Results,
    pub new_text: String,
    pub diff: String,
}

impl Best {
    pub fn changed(&self) -> bool {
        !self.diff.is_empty()
    }
}

#[derive(Debug, Clone)]
pub struct Tuned {
    pub candidates: usize,
    pub meeting: usize,
    pub elapsed_ms: u128,
    pub before: Params,
    pub best: Option<Best>,
    /// Why no proposal, when `best` is `None`.
    pub reason: Option<String>,
    /// The check under the model variants (`None`: nominal model only).
    pub robust: Option<Robust>,
}

fn setting_for(spec: &Spec, plan: &Plan) -> Result<Setting, String> {
    match crate::plan::autoscale(&spec.metadata.name, &spec.spec, plan.queue.as_ref()) {
        Some(a) => Setting::from_plan(&a).map(|s| s.with_zones(plan.compute.zones.len() as u32)),
        None => Err("the spec has no autoscale setting".into()),
    }
}

fn score(job: &Job, params: &Params, explicit_below: bool) -> Option<Scored> {
    score_with(job, params, explicit_below, job.settings.choices)
}

fn score_with(
    job: &Job,
    params: &Params,
    explicit_below: bool,
    choices: Choices,
) -> Option<Scored> {
    let spec = params.apply(job.input.spec, explicit_below);
    let setting = setting_for(&spec, job.input.plan).ok()?;
    let prio = priority(job.input.plan, job.input.spec);
    let o = engine::run(&Run {
        setting: &setting,
        trace: job.trace,
        workload: job.workload,
        priority: &prio,
        choices,
        seed: job.settings.seed,
        record: false,
    });
    let input = Input {
        spec: &spec,
        ..*job.input
    };
    let (_, cost) = price(&input, &o, job.book, job.today);
    let p95 = o.wait_percentile(job.settings.quantile);
    let _ = monthly_hours(&o);
    Some(Scored {
        params: params.clone(),
        p95,
        instance_hours: o.instance_minutes as f64 / 60.0,
        pool_monthly: cost.pool_monthly,
        meets: p95 <= f64::from(job.settings.wait_target_minutes),
    })
}

/// `params` under every variant (the nominal one first, already known as `nominal`).
fn under_variants(
    job: &Job,
    params: &Params,
    explicit_below: bool,
    vs: &[Variant],
    nominal: Option<&Scored>,
) -> UnderVariants {
    let p95: Vec<f64> =
        vs.par_iter()
            .enumerate()
            .map(|(i, v)| match (i, nominal) {
                (0, Some(n)) => n.p95,
                _ => score_with(job, params, explicit_below, v.choices)
                    .map_or(f64::INFINITY, |s| s.p95),
            })
            .collect();
    let target = f64::from(job.settings.wait_target_minutes);
    UnderVariants {
        worst_p95: p95.iter().cloned().fold(0.0, f64::max),
        meeting: p95.iter().filter(|p| **p <= target).count(),
        p95,
    }
}

/// Variants a candidate may miss under `share`.
fn allowed_misses(n: usize, share: f64) -> usize {
    n - ((share.clamp(0.0, 1.0) * n as f64 - 1e-9).ceil() as usize).min(n)
}

/// Whether `params` meets the target under enough variants: the hardest variants first (the
/// pessimistic combinations, then the late metric and slow provisioning), stopping at the first
/// miss too many, so most candidates cost one or two runs more than the nominal one.
fn holds(job: &Job, params: &Params, explicit_below: bool, vs: &[Variant], share: f64) -> bool {
    const HARDEST_FIRST: &[usize] = &[6, 7, 2, 5, 1, 3, 4];
    let target = f64::from(job.settings.wait_target_minutes);
    let mut misses = 0;
    let allowed = allowed_misses(vs.len(), share);
    for &i in HARDEST_FIRST.iter().filter(|i| **i < vs.len()) {
        let p95 =
            score_with(job, params, explicit_below, vs[i].choices).map_or(f64::INFINITY, |s| s.p95);
        if p95 > target {
            misses += 1;
            if misses > allowed {
                return false;
            }
        }
    }
    true
}

fn cheaper(a: &Scored, b: &Scored) -> std::cmp::Ordering {
    let ca = a.pool_monthly.unwrap_or(a.instance_hours);
    let cb = b.pool_monthly.unwrap_or(b.instance_hours);
    ca.total_cmp(&cb)
        .then(a.instance_hours.total_cmp(&b.instance_hours))
        .then(a.p95.total_cmp(&b.p95))
}

const TARGETS: &[u32] = &[1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50];
const STEPS: &[u32] = &[1, 2, 3, 4];
const OUT_COOLDOWNS: &[u32] = &[1, 2, 3, 5];
const IN_COOLDOWNS: &[u32] = &[5, 10, 15, 30];
const WINDOWS: &[u32] = &[5, 10];

/// Stage 1 candidates.
pub fn stage1(before: &Params) -> Vec<Params> {
    let mut v = vec![before.clone()];
    for &t in TARGETS {
        for &s in STEPS {
            for &c in OUT_COOLDOWNS {
                let mut p = before.clone();
                p.target_per_instance = t;
                p.scale_out_step = s;
                p.scale_out_cooldown_minutes = c;
                p.scale_out_tiers.retain(|tier| tier.above > t);
                if !v.contains(&p) {
                    v.push(p);
                }
            }
        }
    }
    v
}

/// Stage 2 candidates around `base`.
pub fn stage2(base: &Params, before: &Params) -> Vec<Params> {
    let mut v = Vec::new();
    let floors = |p: &mut Params, raise_zero: bool, halve_peaks: bool| {
        if raise_zero {
            p.capacity_min = p.capacity_min.max(1);
            for m in p.schedule_mins.iter_mut() {
                *m = (*m).max(1);
            }
        }
        if halve_peaks {
            let base_min = p.capacity_min;
            for m in p.schedule_mins.iter_mut() {
                if *m > base_min {
                    *m = (*m).div_ceil(2).max(base_min);
                }
            }
        }
    };
    for &ic in IN_COOLDOWNS {
        for &w in WINDOWS {
            for tier in [false, true] {
                for (rz, hp) in [(false, false), (true, false), (false, true), (true, true)] {
                    let mut p = base.clone();
                    p.scale_in_cooldown_minutes = ic;
                    p.time_window_minutes = w;
                    if tier {
                        p.scale_out_tiers = vec![ScaleOutTier {
                            above: p.target_per_instance * 3,
                            step: p.scale_out_step * 2 + 2,
                        }];
                    } else {
                        p.scale_out_tiers = before
                            .scale_out_tiers
                            .iter()
                            .filter(|t| t.above > p.target_per_instance)
                            .cloned()
                            .collect();
                    }
                    floors(&mut p, rz, hp);
                    p.clamp_defaults();
                    if !v.contains(&p) {
                        v.push(p);
                    }
                }
            }
        }
    }
    v
}

/// Search, propose, verify.
pub fn tune(job: &Job, before_results: &Results) -> Result<Tuned, String> {
    let started = Instant::now();
    let before = Params::of(job.input.spec).ok_or(
        "the spec has no queue-driven autoscale (autoscale.queue): there is no policy to tune (a fixed pool or schedules alone scale by the clock)",
    )?;
    let explicit_below = job
        .checked
        .index
        .spans("/spec/autoscale/queue/scaleInBelow")
        .is_some();
    let s1 = stage1(&before);
    let mut scored: Vec<Scored> = s1
        .par_iter()
        .filter_map(|p| score(job, p, explicit_below))
        .collect();
    let mut bases: Vec<Scored> = scored.iter().filter(|s| s.meets).cloned().collect();
    if bases.is_empty() {
        bases = scored.clone();
        bases.sort_by(|a, b| a.p95.total_cmp(&b.p95).then(cheaper(a, b)));
    } else {
        bases.sort_by(cheaper);
    }
    let mut s2: Vec<Params> = Vec::new();
    for b in bases.iter().take(3) {
        for p in stage2(&b.params, &before) {
            if !s2.contains(&p) && !s1.contains(&p) {
                s2.push(p);
            }
        }
    }
    scored.extend(
        s2.par_iter()
            .filter_map(|p| score(job, p, explicit_below))
            .collect::<Vec<_>>(),
    );
    let candidates = scored.len();
    let mut meeting: Vec<Scored> = scored.iter().filter(|s| s.meets).cloned().collect();
    meeting.sort_by(cheaper);
    let n_meeting = meeting.len();
    let mut best = None;
    let mut reason = None;
    let mut robust = None;
    match job.robust_share {
        None => {
            // the first that validates and plans from its rewritten text
            for cand in meeting.iter().take(10) {
                match verify(job, &before, &cand.params, explicit_below) {
                    Ok(b) => {
                        best = Some(b);
                        break;
                    }
                    Err(e) => reason = Some(e),
                }
            }
        }
        Some(share) => {
            let vs = variants(job.settings.choices);
            let before_nominal = scored.iter().find(|s| s.params == before).cloned();
            let before_under =
                under_variants(job, &before, explicit_below, &vs, before_nominal.as_ref());
            let nominal_best = meeting.first().cloned();
            let mut checked = 0;
            let mut after = None;
            let nominal_best_under = nominal_best
                .as_ref()
                .map(|n| under_variants(job, &n.params, explicit_below, &vs, Some(n)));
            // cheapest first, a few candidates at a time in parallel
            'walk: for chunk in meeting.chunks(8) {
                let ok: Vec<bool> = chunk
                    .par_iter()
                    .map(|c| holds(job, &c.params, explicit_below, &vs, share))
                    .collect();
                for (cand, ok) in chunk.iter().zip(ok) {
                    checked += 1;
                    if !ok {
                        continue;
                    }
                    match verify(job, &before, &cand.params, explicit_below) {
                        Ok(b) => {
                            let u =
                                under_variants(job, &cand.params, explicit_below, &vs, Some(cand));
                            best = Some(b);
                            after = Some((cand.clone(), u));
                            break 'walk;
                        }
                        Err(e) => reason = Some(e),
                    }
                }
            }
            if best.is_none() && !meeting.is_empty() && reason.is_none() {
                reason = Some(format!(
                    "{n_meeting} of the {candidates} policies meet p95 <= {} min in the nominal model, but none under {} of the {} model variants (the cheapest reaches {} min in its worst variant): raise the maximums, lower the provisioning time, or accept fewer variants (--robust-share)",
                    job.settings.wait_target_minutes,
                    if share >= 1.0 {
                        "all".to_string()
                    } else {
                        format!("{:.0} %", share * 100.0)
                    },
                    vs.len(),
                    nominal_best_under
                        .as_ref()
                        .map_or(f64::NAN, |u| u.worst_p95),
                ));
            }
            let cost = |s: &Scored| s.pool_monthly;
            let (cost_of_robustness, pct) = match (&after, &nominal_best) {
                (Some((a, _)), Some(n)) => match (cost(a), cost(n)) {
                    (Some(x), Some(y)) => (Some(x - y), (y > 0.0).then(|| (x - y) / y * 100.0)),
                    _ => (None, None),
                },
                _ => (None, None),
            };
            robust = Some(Robust {
                variants: vs,
                share,
                before: before_under,
                nominal_best,
                nominal_best_under_variants: nominal_best_under,
                after: after.map(|(_, u)| u),
                checked,
                cost_of_robustness,
                cost_of_robustness_percent: pct,
            });
        }
    }
    if best.is_none() && reason.is_none() {
        let fastest = scored.iter().map(|s| s.p95).fold(f64::INFINITY, f64::min);
        reason = Some(format!(
            "no policy of the {candidates} tried meets p95 <= {} min (the best reaches {fastest} min; before: {} min): raise the maximums or lower the provisioning time",
            job.settings.wait_target_minutes, before_results.wait_minutes.p95
        ));
    }
    Ok(Tuned {
        candidates,
        meeting: n_meeting,
        elapsed_ms: started.elapsed().as_millis(),
        before,
        best,
        reason,
        robust,
    })
}

/// Write the candidate into the YAML text, check it from scratch, and simulate its plan.
fn verify(job: &Job, before: &Params, p: &Params, explicit_below: bool) -> Result<Best, String> {
    let edits = edits(before, p, explicit_below, &job.checked.index, job.source)?;
    let new_text = apply_edits(job.source, edits);
    let checked = check_source(
        new_text.clone(),
        &job.checked.path,
        job.checked.base_dir.clone(),
        job.policy,
        crate::catalog::prices::PriceTable::embedded(),
    );
    if checked.has_errors() {
        let first = checked
            .diagnostics
            .iter()
            .find(|d| d.is_error())
            .map(|d| d.message.clone())
            .unwrap_or_default();
        return Err(format!("the tuned spec does not validate: {first}"));
    }
    let plan = Plan::build(&checked).map_err(|e| e.to_string())?;
    let spec = checked.spec.as_ref().ok_or("the tuned spec has no model")?;
    let size = checked.size().ok_or("the tuned spec has no size")?;
    let setting = super::setting(&plan, spec)?;
    let input = Input {
        spec,
        plan: &plan,
        size,
        file: job.input.file,
        auto_sized: checked.auto_sized,
    };
    let prio = priority(&plan, spec);
    let o = engine::run(&Run {
        setting: &setting,
        trace: job.trace,
        workload: job.workload,
        priority: &prio,
        choices: job.settings.choices,
        seed: job.settings.seed,
        record: false,
    });
    let (_, cost) = price(&input, &o, job.book, job.today);
    let after = results(
        &input,
        &setting,
        job.trace,
        job.workload,
        job.settings,
        o,
        cost,
    );
    if !after.wait_target.met {
        return Err("the rewritten spec misses the target (internal mismatch)".into());
    }
    let diff = similar::TextDiff::from_lines(job.source, &new_text)
        .unified_diff()
        .context_radius(2)
        .header(job.input.file, job.input.file)
        .to_string();
    Ok(Best {
        params: p.clone(),
        after,
        new_text,
        diff,
    })
}

/// A text edit: replace `start..end` with `text`.
#[derive(Debug, Clone, PartialEq)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

fn tiers_yaml(t: &[ScaleOutTier]) -> String {
    format!(
        "[{}]",
        t.iter()
            .map(|t| format!("{{above: {}, step: {}}}", t.above, t.step))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Set `key` of the mapping at `parent` to `value` (YAML text): replace the value where the key
/// exists, else insert the key (flow mapping: before its `}`; block mapping: a line after its
/// last entry, at the indentation of its keys).
pub fn set(
    index: &SpanIndex,
    text: &str,
    parent: &str,
    key: &str,
    value: &str,
) -> Result<Edit, String> {
    let ptr = format!("{parent}/{key}");
    if let Some(n) = index.spans(&ptr) {
        return Ok(Edit {
            start: n.value.byte_start,
            end: n.value.byte_end,
            text: value.to_string(),
        });
    }
    let pspans = index
        .spans(parent)
        .ok_or_else(|| format!("the spec has no `{parent}` to add `{key}` to"))?;
    let v = pspans.value;
    let body = text.get(v.byte_start..v.byte_end).unwrap_or("");
    if body.trim_start().starts_with('{') {
        let open = v.byte_start + (body.len() - body.trim_start().len());
        let close = matching_brace(text, open)
            .ok_or_else(|| format!("`{parent}` is a flow mapping without its `}}`"))?;
        let empty = text[open + 1..close].trim().is_empty();
        // after the last entry, before any space ahead of the `}`
        let at = open + 1 + text[open + 1..close].trim_end().len();
        return Ok(Edit {
            start: at,
            end: at,
            text: if empty {
                format!("{key}: {value}")
            } else {
                format!(", {key}: {value}")
            },
        });
    }
    // block mapping: a line after the last key's entry, at the indentation of the keys
    let keys: Vec<crate::diag::Location> = index
        .children(parent)
        .iter()
        .filter_map(|c| index.spans(c).and_then(|s| s.key))
        .collect();
    let first = keys
        .iter()
        .min_by_key(|k| k.byte_start)
        .ok_or_else(|| format!("`{parent}` has no keys to align `{key}` with"))?;
    // the end of the mapping's last entry: the furthest end of any node below it (a nested
    // collection's own span may stop short of its last entry)
    fn furthest(index: &SpanIndex, ptr: &str, depth: u32) -> usize {
        let mut end = index.spans(ptr).map_or(0, |s| s.value.byte_end);
        if depth < 16 {
            for c in index.children(ptr) {
                end = end.max(furthest(index, &c, depth + 1));
            }
        }
        end
    }
    let last = index
        .children(parent)
        .iter()
        .map(|c| furthest(index, c, 0))
        .max()
        .unwrap_or(first.byte_end);
    let line_start = text[..first.byte_start].rfind('\n').map_or(0, |i| i + 1);
    let indent: String = text[line_start..first.byte_start]
        .chars()
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    // the end of the line the last value ends on: a block value (a sequence, a nested mapping)
    // may end after the line break, at the indentation of the next key or even on that key, so
    // step back over the trailing white space first
    let anchor = text[..last.min(text.len())]
        .trim_end()
        .len()
        .max(first.byte_end);
    let eol = text[anchor..]
        .find('\n')
        .map_or(text.len(), |i| anchor + i + 1);
    let prefix = if eol == text.len() && !text.ends_with('\n') {
        "\n"
    } else {
        ""
    };
    Ok(Edit {
        start: eol,
        end: eol,
        text: format!("{prefix}{indent}{key}: {value}\n"),
    })
}

/// The `}` that closes the flow mapping opening at `open` (quotes and nesting respected).
fn matching_brace(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, ch) in text[open..].char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if ch == '\\' && q == '"' {
                escaped = true;
            } else if ch == q {
                quote = None;
            }
            continue;
        }
        match ch {
            '"' | '\'' => quote = Some(ch),
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return (ch == '}').then_some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The edits that turn `before` into `p`.
pub fn edits(
    before: &Params,
    p: &Params,
    explicit_below: bool,
    index: &SpanIndex,
    text: &str,
) -> Result<Vec<Edit>, String> {
    let q = "/spec/autoscale/queue";
    let a = "/spec/autoscale";
    let mut v = Vec::new();
    if p.target_per_instance != before.target_per_instance {
        v.push(set(
            index,
            text,
            q,
            "targetPerInstance",
            &p.target_per_instance.to_string(),
        )?);
        if explicit_below {
            let safe = flap_safe_scale_in(p.target_per_instance, p.lowest_min());
            v.push(set(
                index,
                text,
                q,
                "scaleInBelow",
                &p.scale_in_below.min(safe).to_string(),
            )?);
        }
    }
    if p.scale_out_step != before.scale_out_step {
        v.push(set(
            index,
            text,
            q,
            "scaleOutStep",
            &p.scale_out_step.to_string(),
        )?);
    }
    if p.scale_out_tiers != before.scale_out_tiers {
        v.push(set(
            index,
            text,
            q,
            "scaleOutTiers",
            &tiers_yaml(&p.scale_out_tiers),
        )?);
    }
    for (key, new, old) in [
        (
            "scaleOutCooldown",
            p.scale_out_cooldown_minutes,
            before.scale_out_cooldown_minutes,
        ),
        (
            "scaleInCooldown",
            p.scale_in_cooldown_minutes,
            before.scale_in_cooldown_minutes,
        ),
        (
            "timeWindow",
            p.time_window_minutes,
            before.time_window_minutes,
        ),
    ] {
        if new != old {
            v.push(set(index, text, a, key, &format!("PT{new}M"))?);
        }
    }
    if p.capacity_min != before.capacity_min {
        v.push(set(
            index,
            text,
            "/spec/capacity",
            "min",
            &p.capacity_min.to_string(),
        )?);
    }
    if let (Some(new), Some(old)) = (p.capacity_default, before.capacity_default)
        && new != old
        && index.spans("/spec/capacity/default").is_some()
    {
        v.push(set(
            index,
            text,
            "/spec/capacity",
            "default",
            &new.to_string(),
        )?);
    }
    for (i, (new, old)) in p
        .schedule_defaults
        .iter()
        .zip(&before.schedule_defaults)
        .enumerate()
    {
        let ptr = format!("/spec/autoscale/schedules/{i}");
        if let (Some(new), Some(old)) = (new, old)
            && new != old
            && index.spans(&format!("{ptr}/default")).is_some()
        {
            v.push(set(index, text, &ptr, "default", &new.to_string())?);
        }
    }
    for (i, (new, old)) in p
        .schedule_mins
        .iter()
        .zip(&before.schedule_mins)
        .enumerate()
    {
        if new != old {
            v.push(set(
                index,
                text,
                &format!("/spec/autoscale/schedules/{i}"),
                "min",
                &new.to_string(),
            )?);
        }
    }
    Ok(v)
}

impl Params {
    /// Explicit defaults stay inside the (new) minimums.
    fn clamp_defaults(&mut self) {
        if let Some(d) = self.capacity_default.as_mut() {
            *d = (*d).max(self.capacity_min);
        }
        for (d, m) in self.schedule_defaults.iter_mut().zip(&self.schedule_mins) {
            if let Some(d) = d.as_mut() {
                *d = (*d).max(*m);
            }
        }
    }

    fn lowest_min(&self) -> u32 {
        self.schedule_mins
            .iter()
            .copied()
            .chain([self.capacity_min])
            .min()
            .unwrap_or(0)
    }
}

/// Apply edits (back to front, so earlier offsets stay valid; inserts at the same place keep
/// their order).
pub fn apply_edits(text: &str, edits: Vec<Edit>) -> String {
    let mut out = text.to_string();
    // back to front; at equal starts the later edit goes in first so the first ends up first
    let mut idx: Vec<usize> = (0..edits.len()).collect();
    idx.sort_by(|&a, &b| edits[b].start.cmp(&edits[a].start).then(b.cmp(&a)));
    for i in idx {
        let e = &edits[i];
        out.replace_range(e.start..e.end, &e.text);
    }
    out
}

fn figures(r: &Results) -> String {
    format!(
        "p95 {} min (p99 {}, max {}), {:.1} instance-hours ({:.1} idle), {} x bound, {}",
        r.wait_minutes.p95,
        r.wait_minutes.p99,
        r.wait_minutes.max,
        r.instance_hours.total,
        r.instance_hours.idle,
        r.lower_bound
            .ratio
            .map_or("n/a".into(), |x| format!("{x:.2}")),
        r.cost.monthly.map_or("price missing".into(), |m| format!(
            "{}/month",
            crate::cost::format::money(m)
        ))
    )
}

pub fn text(before: &Results, t: &Tuned) -> String {
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
        s.push_str(&robust_text(r, t.best.is_some()));
    }
    match &t.best {
        Some(b) => {
            s.push_str(&format!("after:  {}\n\n", figures(&b.after)));
            if b.changed() {
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

fn robust_text(r: &Robust, proposed: bool) -> String {
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
                crate::cost::format::money(m)
            ))
        ));
    }
    if let Some(u) = &r.after {
        s.push_str(&format!("  proposal:     {}\n", worst(u)));
    }
    if proposed && let Some(c) = r.cost_of_robustness {
        s.push_str(&format!(
            "  cost of robustness: {}/month{} over the cheapest policy that meets the target in the nominal model only\n",
            crate::cost::format::money(c),
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
            r.cost
                .monthly
                .map_or("n/a".into(), crate::cost::format::money)
        )
    };
    s.push_str(&row("before", before));
    match &t.best {
        Some(b) => {
            s.push_str(&row("after", &b.after));
            s.push_str(&format!("\n```diff\n{}```\n", b.diff));
        }
        None => s.push_str(&format!(
            "\nNo proposal: {}\n",
            t.reason.as_deref().unwrap_or("none found")
        )),
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
        "reason": t.reason,
        "robust": robust,
        "worstCaseP95": worst,
        "beforeWorstCaseP95": before_worst,
    });
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_and_allowed_misses() {
        let vs = variants(Choices::default());
        assert_eq!(vs.len(), 8);
        assert_eq!(vs[0].choices, Choices::default());
        // each uncertainty appears: the other metric reading, the delay, spread, provisioning
        assert!(vs.iter().any(|v| v.choices.queue_metric_counts_in_service));
        assert!(vs.iter().any(|v| v.choices.metric_delay_minutes == 2));
        assert!(vs.iter().any(|v| v.choices.arrivals == Arrivals::Spread));
        assert!(vs.iter().any(|v| v.choices.provisioning_factor == 0.75));
        assert!(vs.iter().any(|v| v.choices.provisioning_factor == 1.25));
        assert_eq!(allowed_misses(8, 1.0), 0);
        assert_eq!(allowed_misses(8, 0.875), 1);
        assert_eq!(allowed_misses(8, 0.8), 1);
        assert_eq!(allowed_misses(8, 0.5), 4);
    }
}
