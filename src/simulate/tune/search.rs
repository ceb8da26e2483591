//! The search: candidates, scoring under the model variants, and the verified proposal.

use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use super::super::engine::{self, Choices, Run, Setting};
use super::super::{Input, Results, Settings, monthly_hours, price, priority, results};
use crate::cost::PriceBook;
use crate::plan::Plan;
use crate::spec::model::Spec;
use crate::spec::policy::Policy;
use crate::spec::{Checked, check_source};

use super::super::standby;
use super::edit::edits;
use super::params::Params;
use super::pool_search::PoolSearch;
// what pool.rs draws from too
pub(super) use super::space::{AGGREGATIONS, OUT_COOLDOWNS, STEPS, TARGETS, WINDOWS, stage2};
use super::space::{SPACE, Space, floor_options, stage1_around, stage1_in, stage2_with};

/// What a tune needs.
pub struct Job<'a> {
    pub input: &'a Input<'a>,
    pub checked: &'a Checked,
    pub policy: &'a Policy,
    pub source: &'a str,
    pub trace: &'a super::super::load::Trace,
    pub workload: &'a super::super::model::Workload,
    pub settings: &'a Settings,
    pub book: &'a PriceBook,
    pub today: &'a str,
    /// The share of the model variants ([`variants`]) under which a candidate must meet the
    /// target (1.0: all of them; `None`: the nominal model only).
    pub robust_share: Option<f64>,
}

pub use super::variants::{Variant, variants, variants_for};

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

/// One simulated candidate.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scored {
    pub params: Params,
    pub p95: f64,
    pub instance_hours: f64,
    pub pool_monthly: Option<f64>,
    /// The standby pool's share of `pool_monthly` (its disks while they wait).
    pub standby_monthly: Option<f64>,
    /// VM-hours spent building the standby pool's VMs (billed at the size's price; 0 without a
    /// pool): what the pool costs beyond its disks, known even where a price is missing.
    pub build_hours: f64,
    pub meets: bool,
}

/// The proposal.
#[derive(Debug, Clone)]
pub struct Best {
    pub params: Params,
    pub after: Results,
    /// The spec's text with the proposal written in, checked to mean exactly the intended
    /// document ([`super::rewrite`]); `None` when the text cannot carry it ([`Self::unwritable`]).
    pub new_text: Option<String>,
    /// The unified diff of the rewrite, or (when it cannot be written) the changes, one per line.
    pub diff: String,
    /// Why the proposal cannot be written into the spec's text (it was simulated from the
    /// intended document instead; the user applies it by hand).
    pub unwritable: Option<String>,
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
    /// The standby pool's size, chosen jointly with the policy (`None`: the spec has no pool).
    pub standby: Option<standby::PoolChoice>,
    /// The joint search over pool sizes and policies (`None`: the spec has no pool).
    pub pool_search: Option<PoolSearch>,
    /// Schedules learned from a trace of two weeks or more (`schedule.rs`; `None`: not asked).
    pub schedule: Option<super::learned::Learned>,
}

pub(super) fn setting_for(spec: &Spec, plan: &Plan) -> Result<Setting, String> {
    match crate::plan::autoscale(
        &spec.metadata.name,
        &spec.spec,
        plan.queue.as_ref(),
        plan.serving.as_ref(),
    ) {
        Some(a) => Setting::from_plan(&a).map(|s| s.with_zones(plan.compute.zones.len() as u32)),
        None => Err("the spec has no autoscale setting".into()),
    }
}

pub(super) fn score(job: &Job, params: &Params, explicit_below: bool) -> Option<Scored> {
    score_with(job, params, explicit_below, job.settings.choices)
}

pub(super) fn score_with(
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
        standby: job.settings.standby.as_ref(),
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
        standby_monthly: cost.standby_monthly,
        build_hours: o.standby_build_minutes as f64 / 60.0,
        meets: p95 <= f64::from(job.settings.wait_target_minutes),
    })
}

/// `params` under every variant (the nominal one first, already known as `nominal`).
pub(super) fn under_variants(
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
pub(super) fn allowed_misses(n: usize, share: f64) -> usize {
    n - ((share.clamp(0.0, 1.0) * n as f64 - 1e-9).ceil() as usize).min(n)
}

/// Whether `params` meets the target under enough variants: the hardest variants first (the
/// pessimistic combinations, then the late metric and slow provisioning), stopping at the first
/// miss too many, so most candidates cost one or two runs more than the nominal one.
pub(super) fn holds(
    job: &Job,
    params: &Params,
    explicit_below: bool,
    vs: &[Variant],
    share: f64,
) -> bool {
    holds_counted(job, params, explicit_below, vs, share).0
}

/// [`holds`], and the runs it took.
pub(super) fn holds_counted(
    job: &Job,
    params: &Params,
    explicit_below: bool,
    vs: &[Variant],
    share: f64,
) -> (bool, usize) {
    // the pessimistic combinations, the pool's slowest start, the load variants, the late
    // metric, slow provisioning, then the rest in order (the pool's other start times last)
    let order = hardest_first(vs);
    let target = f64::from(job.settings.wait_target_minutes);
    let mut misses = 0;
    let mut runs = 0;
    let allowed = allowed_misses(vs.len(), share);
    for &i in &order {
        runs += 1;
        let p95 =
            score_with(job, params, explicit_below, vs[i].choices).map_or(f64::INFINITY, |s| s.p95);
        if p95 > target {
            misses += 1;
            if misses > allowed {
                return (false, runs);
            }
        }
    }
    (true, runs)
}

/// The order [`holds_counted`] tries the variants in: the model's pessimistic combinations,
/// the pool's slowest start, the load variants, then the rest (by kind, not by position, as
/// [`variants_for`] appends the pool's after the load variants).
fn hardest_first(vs: &[Variant]) -> Vec<usize> {
    let model: Vec<usize> = (0..vs.len())
        .filter(|&i| {
            vs[i].choices.standby_start_seconds.is_none() && vs[i].choices.load.is_nominal()
        })
        .collect();
    // the busier week on a slow-provisioning day before the busier week alone
    let mut load: Vec<usize> = (0..vs.len())
        .filter(|&i| !vs[i].choices.load.is_nominal())
        .collect();
    load.sort_by(|&a, &b| {
        vs[b]
            .choices
            .provisioning_factor
            .total_cmp(&vs[a].choices.provisioning_factor)
            .then(a.cmp(&b))
    });
    let mut pooled: Vec<usize> = (0..vs.len())
        .filter(|&i| vs[i].choices.standby_start_seconds.is_some())
        .collect();
    pooled.sort_by_key(|&i| std::cmp::Reverse(vs[i].choices.standby_start_seconds));
    const HARDEST_MODEL: &[usize] = &[6, 7, 2, 5, 1, 3, 4, 0];
    let m =
        |k: &[usize]| -> Vec<usize> { k.iter().filter_map(|&j| model.get(j).copied()).collect() };
    let mut order: Vec<usize> = m(&HARDEST_MODEL[..2]);
    order.extend(pooled.first().copied());
    order.extend(load);
    order.extend(m(&HARDEST_MODEL[2..7]));
    order.extend(pooled.iter().skip(1).copied());
    // anything else (a shorter model set): once each, in order
    for i in 0..vs.len() {
        if !order.contains(&i) && i != 0 {
            order.push(i);
        }
    }
    order
}

pub(super) fn cheaper(a: &Scored, b: &Scored) -> std::cmp::Ordering {
    // where a price is missing (for one candidate, then for all: the size, region and priority
    // are the spec's), the VM-hours billed: the scale set's and the standby pool's builds
    let ca = a.pool_monthly.unwrap_or(a.instance_hours + a.build_hours);
    let cb = b.pool_monthly.unwrap_or(b.instance_hours + b.build_hours);
    ca.total_cmp(&cb)
        .then(a.instance_hours.total_cmp(&b.instance_hours))
        .then(a.p95.total_cmp(&b.p95))
}

/// Whether candidates hold under the variants ([`holds`]), each policy checked once.
#[derive(Default)]
struct Known(std::collections::HashMap<String, bool>);

impl Known {
    fn key(p: &Params) -> String {
        serde_json::to_string(p).unwrap_or_default()
    }

    /// [`holds`] for each of `cands` (those not yet known in parallel).
    fn check(
        &mut self,
        job: &Job,
        cands: &[&Scored],
        explicit_below: bool,
        vs: &[Variant],
        share: f64,
    ) -> Vec<bool> {
        let keys: Vec<String> = cands.iter().map(|c| Self::key(&c.params)).collect();
        let new: Vec<(String, bool)> = cands
            .par_iter()
            .zip(keys.par_iter())
            .filter(|(_, k)| !self.0.contains_key(*k))
            .map(|(c, k)| (k.clone(), holds(job, &c.params, explicit_below, vs, share)))
            .collect();
        self.0.extend(new);
        keys.iter().map(|k| self.0[k]).collect()
    }
}

/// The rounds stage 3 may take.
const ROUNDS: usize = 4;

/// Stage 3: from the cheapest policy that holds so far, stage 1's knobs and the window around
/// it (its scale-in cooldown, tier and floors kept) and stage 2's (the spec's floors, as the
/// first two stages reach them), the cheapest new one that holds becoming the next centre,
/// until a round finds nothing cheaper that holds. The two stages alone vary one group of
/// knobs around a few bases of stage 1; a robust policy often needs both changed (a floor with
/// a larger target, a shorter window with another step and aggregation), which neither
/// reaches. Within the space `tune/exhaustive.rs` enumerates.
fn refine(
    job: &Job,
    before: &Params,
    explicit_below: bool,
    vs: &[Variant],
    share: f64,
    scored: &mut Vec<Scored>,
    known: &mut Known,
    space: &Space,
) {
    let mut meeting: Vec<&Scored> = scored.iter().filter(|s| s.meets).collect();
    meeting.sort_by(|a, b| cheaper(a, b));
    let mut centre = None;
    for chunk in meeting.chunks(8) {
        let ok = known.check(job, chunk, explicit_below, vs, share);
        if let Some((c, _)) = chunk.iter().zip(ok).find(|(_, ok)| *ok) {
            centre = Some((*c).clone());
            break;
        }
    }
    let Some(mut centre) = centre else { return };
    let mut tried: std::collections::HashSet<String> =
        scored.iter().map(|s| Known::key(&s.params)).collect();
    let floors = floor_options(before);
    for _ in 0..ROUNDS {
        let cands: Vec<Params> = stage1_around(&centre.params, before, space)
            .into_iter()
            .chain(stage2_with(&centre.params, before, &floors, space))
            .filter(|p| tried.insert(Known::key(p)))
            .collect();
        let new: Vec<Scored> = cands
            .par_iter()
            .filter_map(|p| score(job, p, explicit_below))
            .collect();
        let mut cheaper_new: Vec<&Scored> = new
            .iter()
            .filter(|s| s.meets && cheaper(s, &centre).is_lt())
            .collect();
        cheaper_new.sort_by(|a, b| cheaper(a, b));
        let mut next = None;
        for chunk in cheaper_new.chunks(8) {
            let ok = known.check(job, chunk, explicit_below, vs, share);
            if let Some((c, _)) = chunk.iter().zip(ok).find(|(_, ok)| *ok) {
                next = Some((*c).clone());
                break;
            }
        }
        scored.extend(new);
        match next {
            Some(n) => centre = n,
            None => break,
        }
    }
}

/// The policy as written, and whether the spec gives `scaleInBelow` itself (else each candidate
/// derives it): where both searches start.
pub(super) fn start(job: &Job) -> Result<(Params, bool), String> {
    let before = Params::of(job.input.spec).ok_or(
        "the spec has no queue-driven autoscale (autoscale.queue): there is no policy to tune (a fixed pool or schedules alone scale by the clock)",
    )?;
    let explicit_below = job
        .checked
        .index
        .spans("/spec/autoscale/queue/scaleInBelow")
        .is_some();
    Ok((before, explicit_below))
}

/// Search, propose, verify.
pub fn tune(job: &Job, before_results: &Results) -> Result<Tuned, String> {
    tune_in(job, before_results, &SPACE)
}

/// [`tune`] over the values of `space`.
pub(super) fn tune_in(job: &Job, before_results: &Results, space: &Space) -> Result<Tuned, String> {
    let started = Instant::now();
    let (before, explicit_below) = start(job)?;
    let mut known = Known::default();
    let s1 = stage1_in(&before, space);
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
    // stage 2 goes around the cheapest that meet the target nominally and, under the variants,
    // the cheapest of stage 1 that hold (else a cheap but fragile policy of one aggregation
    // crowds out the neighbourhood the robust proposal is in)
    // (and, as before the aggregation was searched, the three cheapest with the spec's own)
    let mut around: Vec<&Scored> = bases
        .iter()
        .filter(|b| b.params.scale_out_aggregation == before.scale_out_aggregation)
        .take(3)
        .collect();
    if let Some(b) = bases
        .first()
        .filter(|b| !around.iter().any(|a| a.params == b.params))
    {
        around.push(b);
    }
    if let Some(share) = job
        .robust_share
        .filter(|_| bases.first().is_some_and(|b| b.meets))
    {
        let vs = variants_for(job.settings.choices, job.settings.standby.as_ref());
        let mut robust_found = 0;
        'walk: for chunk in bases.iter().take(64).collect::<Vec<_>>().chunks(8) {
            let ok = known.check(job, chunk, explicit_below, &vs, share);
            for (c, ok) in chunk.iter().zip(ok) {
                if ok {
                    if !around.iter().any(|a| a.params == c.params) {
                        around.push(c);
                    }
                    robust_found += 1;
                    if robust_found == 2 {
                        break 'walk;
                    }
                }
            }
        }
    } else {
        for b in bases.iter().take(3) {
            if !around.iter().any(|a| a.params == b.params) {
                around.push(b);
            }
        }
    }
    let mut s2: Vec<Params> = Vec::new();
    for b in around {
        for p in stage2_with(&b.params, &before, &floor_options(&b.params), space) {
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
    // stage 3 also in the nominal mode (no variants: every policy that meets holds); without it
    // `--nominal` stopped at the first two stages' neighbourhood (on a held-out flash crowd for
    // llm-finetune-a100: $10,025/month where the robust tune's own proposal meets at $8,831)
    let (vs, share) = match job.robust_share {
        Some(share) => (
            variants_for(job.settings.choices, job.settings.standby.as_ref()),
            share,
        ),
        None => (Vec::new(), 1.0),
    };
    refine(
        job,
        &before,
        explicit_below,
        &vs,
        share,
        &mut scored,
        &mut known,
        space,
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
            let vs = variants_for(job.settings.choices, job.settings.standby.as_ref());
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
                let chunk: Vec<&Scored> = chunk.iter().collect();
                let ok = known.check(job, &chunk, explicit_below, &vs, share);
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
                            after = Some(((*cand).clone(), u));
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
        standby: None,
        pool_search: None,
        schedule: None,
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
    verify_with(job, before, p, explicit_below, Vec::new())
}

/// [`verify`] with more edits (the standby pool's size); `job.settings.standby` is the pool the
/// rewritten spec has.
pub(super) fn verify_with(
    job: &Job,
    before: &Params,
    p: &Params,
    explicit_below: bool,
    extra: Vec<super::edit::Edit>,
) -> Result<Best, String> {
    let mut edits = edits(before, p, explicit_below, &job.checked.index, job.source)?;
    edits.extend(extra);
    // the text with the edits, if it means exactly the intended document; else the intended
    // document itself (the proposal is still checked and simulated, and printed to apply by hand)
    let (new_text, unwritable) = match super::rewrite::rewrite(job.source, &edits) {
        Ok(t) => (t, None),
        Err(why) => {
            let old = crate::spec::yaml::parse(job.source)
                .map_err(|d| d.message)?
                .value;
            let doc = super::rewrite::intended(&old, &edits);
            (crate::report::yaml::to_yaml(&doc), Some(why))
        }
    };
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
    let setting = super::super::setting(&plan, spec)?;
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
        standby: job.settings.standby.as_ref(),
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
    if unwritable.is_some() {
        let old = crate::spec::yaml::parse(job.source)
            .map_err(|d| d.message)?
            .value;
        return Ok(Best {
            params: p.clone(),
            after,
            new_text: None,
            diff: super::rewrite::describe(&old, &edits),
            unwritable,
        });
    }
    let diff = similar::TextDiff::from_lines(job.source, &new_text)
        .unified_diff()
        .context_radius(2)
        .header(job.input.file, job.input.file)
        .to_string();
    Ok(Best {
        params: p.clone(),
        after,
        new_text: Some(new_text),
        diff,
        unwritable: None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::super::engine::Arrivals;
    use super::super::super::load::LoadChange;
    use super::super::space::stage1;
    use super::super::variants::LOAD_CHANGES;
    use super::*;
    use crate::spec::model::ScaleOutAggregation;

    #[test]
    fn variants_and_allowed_misses() {
        let vs = variants(Choices::default());
        assert_eq!(vs.len(), 8 + 2 * LOAD_CHANGES.len());
        assert_eq!(vs[0].choices, Choices::default());
        // each uncertainty appears: the other metric reading, the delay, spread, provisioning
        assert!(vs.iter().any(|v| v.choices.queue_metric_counts_in_service));
        assert!(vs.iter().any(|v| v.choices.metric_delay_minutes == 2));
        assert!(vs.iter().any(|v| v.choices.arrivals == Arrivals::Spread));
        assert!(vs.iter().any(|v| v.choices.provisioning_factor == 0.75));
        assert!(vs.iter().any(|v| v.choices.provisioning_factor == 1.25));
        // the load variants: each change on a changed trace under the nominal model, then under
        // provisioning 25 % slower, each named
        let load: Vec<&Variant> = vs.iter().filter(|v| !v.choices.load.is_nominal()).collect();
        assert_eq!(load.len(), 2 * LOAD_CHANGES.len());
        for (pair, l) in load.chunks(2).zip(LOAD_CHANGES) {
            let (alone, slow) = (pair[0], pair[1]);
            assert_eq!(alone.choices.load, *l);
            assert_eq!(alone.name, l.label());
            assert_eq!(
                Choices {
                    load: LoadChange::default(),
                    ..alone.choices
                },
                Choices::default()
            );
            assert_eq!(slow.name, format!("{}, provisioning +25 %", l.label()));
            assert_eq!(
                slow.choices,
                Choices {
                    provisioning_factor: 1.25,
                    ..alone.choices
                }
            );
        }
        assert_eq!(allowed_misses(8, 1.0), 0);
        assert_eq!(allowed_misses(8, 0.875), 1);
        assert_eq!(allowed_misses(8, 0.8), 1);
        assert_eq!(allowed_misses(8, 0.5), 4);
    }

    #[test]
    fn pool_start_times_are_variants() {
        let plan = crate::plan::standby::sample();
        let pool = standby::Standby::from_plan(&plan, None);
        let vs = variants_for(Choices::default(), Some(&pool));
        let n = 8 + 2 * LOAD_CHANGES.len();
        assert_eq!(
            vs.len(),
            n + 2,
            "{:?}",
            vs.iter().map(|v| &v.name).collect::<Vec<_>>()
        );
        let starts: Vec<u32> = vs
            .iter()
            .filter_map(|v| v.choices.standby_start_seconds)
            .collect();
        assert!(starts.contains(&120) && starts.contains(&240), "{starts:?}");
        // a pool already assumed to start in 2 minutes: that one is the nominal model
        let two = pool.starting_in(120);
        assert_eq!(variants_for(Choices::default(), Some(&two)).len(), n + 1);
        assert_eq!(variants_for(Choices::default(), None).len(), n);
        // every variant but the nominal one is tried once: the pessimistic combinations, the
        // slowest pool start, then the load variants
        for vs in [vs.clone(), variants(Choices::default())] {
            let order = hardest_first(&vs);
            let mut sorted = order.clone();
            sorted.sort();
            assert_eq!(sorted, (1..vs.len()).collect::<Vec<_>>());
            assert_eq!(&order[..2], &[6, 7]);
        }
        let order = hardest_first(&vs);
        assert_eq!(vs[order[2]].choices.standby_start_seconds, Some(240));
        assert_eq!(
            vs[order[3]].choices.load.is_nominal(),
            LOAD_CHANGES.is_empty()
        );
        // the busier week on a slow-provisioning day before the busier week alone
        if !LOAD_CHANGES.is_empty() {
            assert_eq!(vs[order[3]].choices.provisioning_factor, 1.25);
            assert_eq!(vs[order[4]].choices.provisioning_factor, 1.0);
        }
    }

    #[test]
    fn floors_are_lowered_too() {
        let p = Params {
            target_per_instance: 4,
            scale_in_below: 0,
            scale_out_step: 1,
            scale_out_tiers: vec![],
            scale_out_aggregation: ScaleOutAggregation::Average,
            scale_out_cooldown_minutes: 5,
            scale_in_cooldown_minutes: 15,
            time_window_minutes: 5,
            capacity_min: 4,
            schedule_mins: vec![8, 0],
            capacity_default: None,
            schedule_defaults: vec![None, None],
        };
        let f = floor_options(&p);
        for low in [0, 1, 2, 3] {
            assert!(f.iter().any(|(c, _)| *c == low), "{low}: {f:?}");
        }
        // schedule minimums above the floor in quarters
        for m in [4, 6] {
            assert!(f.iter().any(|(c, s)| *c == 4 && s[0] == m), "{m}: {f:?}");
        }
        assert!(f.iter().all(|(c, s)| s[0] >= *c.min(&4)));
        let c = stage1(&p);
        for a in ScaleOutAggregation::ALL {
            assert!(c.iter().any(|x| x.scale_out_aggregation == a));
        }
    }
}
