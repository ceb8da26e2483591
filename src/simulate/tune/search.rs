//! The search: candidates, scoring under the model variants, and the verified proposal.

use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use super::super::engine;
use super::super::{Input, Results, price, priority, results};
use crate::plan::Plan;

use super::super::standby;
use super::answer::{self, Answer};
use super::edit::edits;
use super::params::Params;
use super::pool_search::PoolSearch;
use super::score::{Required, complete, holds_allowing, score_or_miss};
// what pool.rs draws from too
pub(super) use super::space::{AGGREGATIONS, OUT_COOLDOWNS, STEPS, TARGETS, WINDOWS, stage2};
use super::space::{SPACE, Space, floor_options, stage1_around, stage1_in, stage2_with};

pub use super::score::{Job, Scored, Tuning, UnderVariants};
pub(super) use super::score::{
    allowed_misses, cheaper, holds, score, score_with, under_variants, walk_chunk,
};
pub use super::variants::{Variant, variants, variants_for};

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
    /// The margin, what binds, the fallback and the candidates shown (issue 40).
    pub answer: Answer,
}

/// Whether candidates hold under the required variants ([`holds_allowing`]), each policy
/// checked once per requirement.
#[derive(Default)]
pub(super) struct Known(std::collections::HashMap<(String, usize), bool>);

impl Known {
    pub(super) fn key(p: &Params) -> String {
        serde_json::to_string(p).unwrap_or_default()
    }

    /// [`holds_allowing`] for each of `cands` (those not yet known in parallel).
    pub(super) fn check(
        &mut self,
        job: &Job,
        cands: &[&Scored],
        explicit_below: bool,
        vs: &[Variant],
        req: &Required,
    ) -> Vec<bool> {
        let keys: Vec<(String, usize)> = cands
            .iter()
            .map(|c| (Self::key(&c.params), req.allowed))
            .collect();
        let new: Vec<((String, usize), bool)> = cands
            .par_iter()
            .zip(keys.par_iter())
            .filter(|(_, k)| !self.0.contains_key(*k))
            .map(|(c, k)| {
                (
                    k.clone(),
                    holds_allowing(job, &c.params, explicit_below, vs, req).0,
                )
            })
            .collect();
        self.0.extend(new);
        keys.iter().map(|k| self.0[k]).collect()
    }
}

/// The rounds stage 3 may take.
const ROUNDS: usize = 4;

/// The first of `cands` (cheapest first) that holds, checked 8 at a time in parallel.
fn first_holding(
    job: &Job,
    cands: &[&Scored],
    explicit_below: bool,
    vs: &[Variant],
    req: &Required,
    known: &mut Known,
) -> Option<Scored> {
    for chunk in cands.chunks(walk_chunk()) {
        let ok = known.check(job, chunk, explicit_below, vs, req);
        if let Some((c, _)) = chunk.iter().zip(ok).find(|(_, ok)| *ok) {
            return Some((*c).clone());
        }
    }
    None
}

/// Stage 3: from the cheapest policy that holds so far, stage 1's knobs and the window around
/// it (its scale-in cooldown, tier and floors kept) and stage 2's (the spec's floors, as the
/// first two stages reach them), the cheapest new one that holds becoming the next centre,
/// until a round finds nothing cheaper that holds. The two stages alone vary one group of
/// knobs around a few bases of stage 1; a robust policy often needs both changed (a floor with
/// a larger target, a shorter window with another step and aggregation), which neither
/// reaches. Within the space `tune/exhaustive.rs` enumerates.
#[allow(clippy::too_many_arguments)]
fn refine(
    job: &Job,
    before: &Params,
    explicit_below: bool,
    vs: &[Variant],
    req: &Required,
    scored: &mut Vec<Scored>,
    known: &mut Known,
    space: &Space,
) {
    let mut meeting: Vec<&Scored> = scored.iter().filter(|s| s.meets).collect();
    meeting.sort_by(|a, b| cheaper(a, b));
    let Some(mut centre) = first_holding(job, &meeting, explicit_below, vs, req, known) else {
        return;
    };
    let mut tried: std::collections::HashSet<String> =
        scored.iter().map(|s| Known::key(&s.params)).collect();
    let floors = floor_options(before);
    for round in 0..ROUNDS {
        if let Some(p) = job.tuning.progress {
            p.phase(format!("stage 3, round {} of at most {ROUNDS}", round + 1));
        }
        let cands: Vec<Params> = stage1_around(&centre.params, before, space)
            .into_iter()
            .chain(stage2_with(&centre.params, before, &floors, space))
            .filter(|p| tried.insert(Known::key(p)))
            .collect();
        let new: Vec<Scored> = cands
            .par_iter()
            .filter_map(|p| score_or_miss(job, p, explicit_below))
            .collect();
        let mut cheaper_new: Vec<&Scored> = new
            .iter()
            .filter(|s| s.meets && cheaper(s, &centre).is_lt())
            .collect();
        cheaper_new.sort_by(|a, b| cheaper(a, b));
        let next = first_holding(job, &cheaper_new, explicit_below, vs, req, known);
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

/// `meets` again, at the goal of `job` (after the margin changed).
pub(super) fn remeet(scored: &mut [Scored], job: &Job) {
    let goal = job.goal();
    for s in scored {
        s.meets = s.p95_exact <= goal + 1e-9;
    }
}

/// When no candidate reaches the target less the margin but some reach the target: the margin
/// down to what the fastest of `scored` reaches (said in the report); whether it changed.
pub(super) fn reduce_margin(
    margin: &mut super::margin::Margin,
    scored: &[Scored],
    target: f64,
) -> bool {
    let fastest = scored
        .iter()
        .map(|s| s.p95_exact)
        .fold(f64::INFINITY, f64::min);
    if scored
        .iter()
        .any(|s| s.p95_exact <= target - margin.minutes + 1e-9)
        || fastest > target + 1e-9
    {
        return false;
    }
    margin.reduce(
        target - fastest,
        format!(
            "no policy tried reaches p95 <= {:.1} min (the target less the margin, {:.1} min): the fastest reaches {fastest:.2} min, so the tune aims there",
            target - margin.minutes,
            margin.minutes
        ),
    );
    true
}

/// Search, propose, verify.
pub fn tune(job: &Job, before_results: &Results) -> Result<Tuned, String> {
    tune_in(job, before_results, &SPACE)
}

/// [`tune`] over the values of `space`.
pub(super) fn tune_in(job: &Job, before_results: &Results, space: &Space) -> Result<Tuned, String> {
    let started = Instant::now();
    let (before, explicit_below) = start(job)?;
    let vs: Vec<Variant> = match job.robust_share {
        Some(_) => variants_for(job.settings.choices, job.settings.standby.as_ref()),
        None => variants(job.settings.choices).into_iter().take(1).collect(),
    };
    let pre = answer::prelude(job, &before, explicit_below, &vs);
    let mut margin = pre.margin;
    let req = pre.required;
    let feasibility = pre.feasibility;
    let mut known = Known::default();
    let s1 = stage1_in(&before, space);
    if let Some(p) = job.tuning.progress {
        p.phase(format!("stage 1: {} policies", s1.len()));
    }
    let target = job.target();
    let tuning = Tuning {
        margin: Some(margin.minutes),
        ..job.tuning
    };
    let mut j = Job { tuning, ..*job };
    let mut scored: Vec<Scored> = s1
        .par_iter()
        .filter_map(|p| {
            // the spec's own policy whole: the report shows it
            if *p == before {
                score(&j, p, explicit_below)
            } else {
                score_or_miss(&j, p, explicit_below)
            }
        })
        .collect();
    // a margin no policy of stage 1 reaches: as far below the target as the fastest reaches
    // (then every figure is needed)
    if !scored.iter().any(|s| s.meets) {
        complete(&j, &mut scored, explicit_below);
    }
    if reduce_margin(&mut margin, &scored, target) {
        j.tuning.margin = Some(margin.minutes);
        remeet(&mut scored, &j);
    }
    let job = &j;
    let mut bases: Vec<Scored> = scored.iter().filter(|s| s.meets).cloned().collect();
    if bases.is_empty() {
        bases = scored.clone();
        bases.sort_by(|a, b| a.p95_exact.total_cmp(&b.p95_exact).then(cheaper(a, b)));
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
    if job.robust_share.is_some() && bases.first().is_some_and(|b| b.meets) {
        let mut robust_found = 0;
        'walk: for chunk in bases
            .iter()
            .take(64)
            .collect::<Vec<_>>()
            .chunks(walk_chunk())
        {
            let ok = known.check(job, chunk, explicit_below, &vs, &req);
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
    if let Some(p) = job.tuning.progress {
        p.phase(format!("stage 2: {} policies", s2.len()));
    }
    scored.extend(
        s2.par_iter()
            .filter_map(|p| score_or_miss(job, p, explicit_below))
            .collect::<Vec<_>>(),
    );
    // stage 3 also in the nominal mode (no variants: every policy that meets holds); without it
    // `--nominal` stopped at the first two stages' neighbourhood (on a held-out flash crowd for
    // llm-finetune-a100: $10,025/month where the robust tune's own proposal meets at $8,831)
    refine(
        job,
        &before,
        explicit_below,
        &vs,
        &req,
        &mut scored,
        &mut known,
        space,
    );
    // no candidate at the goal after all (stage 1 had one that the later stages could not
    // improve on is impossible: it is still in `scored`)
    let mut j2 = *job;
    if !scored.iter().any(|s| s.meets) {
        complete(job, &mut scored, explicit_below);
    }
    if reduce_margin(&mut margin, &scored, target) {
        j2.tuning.margin = Some(margin.minutes);
        remeet(&mut scored, &j2);
    }
    let job = &j2;
    let candidates = scored.len();
    let mut meeting: Vec<Scored> = scored.iter().filter(|s| s.meets).cloned().collect();
    meeting.sort_by(cheaper);
    let n_meeting = meeting.len();
    let mut best = None;
    let mut reason = None;
    let mut robust = None;
    let mut answer = Answer {
        margin: Some(margin.clone()),
        feasibility: job.robust_share.map(|_| feasibility.clone()),
        ..Answer::default()
    };
    let bound_hours = super::super::bound::lower_bound(
        job.trace,
        job.workload,
        job.settings.wait_target_minutes,
        job.settings.quantile,
    )
    .instance_hours;
    match job.robust_share {
        None => {
            // the first that validates and plans from its rewritten text
            for cand in meeting.iter().take(10) {
                match verify(job, &before, &cand.params, explicit_below) {
                    Ok(b) => {
                        answer.shown.push(answer::shown(
                            "proposal",
                            cand,
                            None,
                            &vs,
                            target,
                            bound_hours,
                        ));
                        best = Some(b);
                        break;
                    }
                    Err(e) => reason = Some(e),
                }
            }
        }
        Some(share) => {
            if let Some(p) = job.tuning.progress {
                p.phase(format!("checking {n_meeting} policies under the variants"));
            }
            let before_nominal = scored.iter().find(|s| s.params == before).cloned();
            let before_under =
                under_variants(job, &before, explicit_below, &vs, before_nominal.as_ref());
            let nominal_best = meeting.first().cloned();
            let mut checked = 0;
            let mut after = None;
            let nominal_best_under = nominal_best
                .as_ref()
                .map(|n| under_variants(job, &n.params, explicit_below, &vs, Some(n)));
            // cheapest first, a few candidates at a time in parallel; when none holds, the one
            // that holds under the most variants (one more miss allowed at a time)
            let mut r = req.clone();
            'relax: loop {
                for chunk in meeting.chunks(walk_chunk()) {
                    let chunk: Vec<&Scored> = chunk.iter().collect();
                    let ok = known.check(job, &chunk, explicit_below, &vs, &r);
                    for (cand, ok) in chunk.iter().zip(ok) {
                        checked += 1;
                        if !ok {
                            continue;
                        }
                        match verify(job, &before, &cand.params, explicit_below) {
                            Ok(b) => {
                                let u = under_variants(
                                    job,
                                    &cand.params,
                                    explicit_below,
                                    &vs,
                                    Some(cand),
                                );
                                best = Some(b);
                                after = Some(((*cand).clone(), u));
                                break 'relax;
                            }
                            Err(e) => reason = Some(e),
                        }
                    }
                }
                if meeting.is_empty()
                    || reason.is_some()
                    || r.allowed + r.skip.len() + 1 >= vs.len()
                {
                    break;
                }
                r = r.one_more();
            }
            if let Some((a, u)) = &after {
                answer.fallback = answer::fallback(job, a, u, explicit_below, &vs, &feasibility)
                    .filter(|_| u.meeting < vs.len() - allowed_misses(vs.len(), share));
            }
            if let Some(b) = before_nominal.as_ref() {
                answer.shown.push(answer::shown(
                    "before",
                    b,
                    Some(&before_under),
                    &vs,
                    target,
                    bound_hours,
                ));
            }
            if let (Some(n), Some(u)) = (&nominal_best, &nominal_best_under) {
                answer.shown.push(answer::shown(
                    "nominal best",
                    n,
                    Some(u),
                    &vs,
                    target,
                    bound_hours,
                ));
            }
            if let Some((a, u)) = &after {
                answer.shown.push(answer::shown(
                    "proposal",
                    a,
                    Some(u),
                    &vs,
                    target,
                    bound_hours,
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
                variants: vs.clone(),
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
        complete(job, &mut scored, explicit_below);
        reason = Some(no_policy(job, &scored, &feasibility, before_results));
    }
    strict(job, &mut best, &mut reason, &mut answer);
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
        answer,
    })
}

/// Why no policy meets the target even nominally: the fastest tried, and what binds.
pub(super) fn no_policy(
    job: &Job,
    scored: &[Scored],
    f: &super::binds::Feasibility,
    before_results: &Results,
) -> String {
    let fastest = scored
        .iter()
        .map(|s| s.p95_exact)
        .fold(f64::INFINITY, f64::min);
    let binds = match f.need_of(0) {
        Some(Some(n)) => format!(
            "; the maximum binds: even {} instances all the time miss it, {n} would meet it (capacity.max: {n})",
            f.top
        ),
        Some(None) => format!(
            "; not even {} instances all the time meet it",
            super::binds::MOST
        ),
        None => String::new(),
    };
    format!(
        "no policy of the {} tried meets p95 <= {} min (the best reaches {fastest:.1} min; before: {} min){binds}: raise the maximums or lower the provisioning time",
        scored.len(),
        job.settings.wait_target_minutes,
        before_results.wait_minutes.p95
    )
}

/// `--strict`: a proposal that misses a required variant is refused (no proposal, exit 1, as
/// before the tune always answered).
pub(super) fn strict(
    job: &Job,
    best: &mut Option<Best>,
    reason: &mut Option<String>,
    answer: &mut Answer,
) {
    if !job.tuning.strict || best.is_none() {
        return;
    }
    if let Some(f) = &answer.fallback {
        let why = format!(
            "--strict: no policy holds under the required share of the {} variants (the best holds under {}); {}",
            f.variants, f.holds_under, f.text
        );
        *best = None;
        *reason = Some(why.clone());
        answer.refused = Some(why);
    }
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
    let after = replay_text(job, &new_text)?;
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

/// Check `new_text` from scratch (validate, plan) and simulate its plan on the job's trace.
pub(super) fn replay_text(job: &Job, new_text: &str) -> Result<Results, String> {
    let checked = super::score::recheck(new_text.to_string(), job.checked, job.policy)?;
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
    let o = engine::run(&engine::Run {
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
    Ok(results(
        &input,
        &setting,
        job.trace,
        job.workload,
        job.settings,
        o,
        cost,
    ))
}

#[cfg(test)]
mod tests {
    use super::super::super::engine::{Arrivals, Choices};
    use super::super::super::load::LoadChange;
    use super::super::score::hardest_first;
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
