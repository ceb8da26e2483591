//! `--tune` with a standby pool (issue 23): the pool's size and the policy searched together.
//!
//! For each pool size (`maxReady = minReady`, [`standby::sizes`]), largest first, the cheapest
//! policy that meets the target under the model variants, in rounds ([`search_at`]): stage 1
//! ([`Stage1`]) binary-searches `targetPerInstance` per `scaleOutStep` x `scaleOutCooldown` x
//! `timeWindow` for the largest that meets the goal (in round 1 capped by what the next larger
//! pool left) and checks those under the variants cheapest first, up to the first that holds;
//! stage 2 ([`stage2`]) tries the
//! cooldowns, window, tiers and minimums around the cheapest; the next round runs stage 1 again
//! in the context of the choice so far (a target that misses with the spec's floor or scale-in
//! cooldown may hold with the chosen one). The proposal is the cheapest (size, policy), pool
//! disks counted; it is written into the spec (`maxReady`, or the `standby` block removed for
//! no pool) and checked from scratch. `pool_check.rs` holds the search against an exhaustive
//! enumeration.

use std::time::Instant;

use rayon::prelude::*;

use super::super::standby;
use super::super::{Results, Settings};
use super::answer::{self, Answer};
pub(super) use super::params::Pair;
use super::params::Params;
use super::pool_search::{PoolRow, PoolSearch, pool_try};
use super::pool_stage1::Stage1;
use super::score::{Required, complete, holds_allowing, score_or_miss};
use super::search::{
    AGGREGATIONS, Job, OUT_COOLDOWNS, Robust, STEPS, Scored, TARGETS, Tuned, UnderVariants,
    Variant, WINDOWS, allowed_misses, cheaper, no_policy, score, stage2, strict, under_variants,
    variants_for, verify_with,
};
use crate::spec::model::ScaleOutAggregation;

// --- the joint search over the standby pool's size and the policy (issue 23) ---------------

/// The stage-1 axes of the joint search: `targetPerInstance` ([`TARGETS`]) within each
/// `(scaleOutStep, scaleOutCooldown, scaleOutAggregation, timeWindow)` ([`STEPS`] x
/// [`OUT_COOLDOWNS`] x [`AGGREGATIONS`] x [`WINDOWS`]), and whether stage 2 runs. The exhaustive check (`pool_check.rs`)
/// compares the search with every point of a smaller grid.
#[derive(Debug, Clone)]
pub(super) struct Grid {
    pub targets: Vec<u32>,
    pub pairs: Vec<Pair>,
    pub stage2: bool,
}

impl Grid {
    /// The search's own grid.
    pub fn full() -> Grid {
        Grid::of(TARGETS, STEPS, OUT_COOLDOWNS, &AGGREGATIONS, WINDOWS, true)
    }

    pub fn of(
        targets: &[u32],
        steps: &[u32],
        cooldowns: &[u32],
        aggregations: &[ScaleOutAggregation],
        windows: &[u32],
        stage2: bool,
    ) -> Grid {
        let mut pairs = Vec::new();
        for a in aggregations {
            for w in windows {
                for s in steps {
                    for c in cooldowns {
                        pairs.push((*s, *c, *a, *w));
                    }
                }
            }
        }
        Grid {
            targets: targets.to_vec(),
            pairs,
            stage2,
        }
    }

    /// Every point of the grid (the exhaustive check's candidates).
    #[cfg(test)]
    pub fn points(&self, before: &Params) -> Vec<Params> {
        let mut v: Vec<Params> = Vec::new();
        for pair in &self.pairs {
            for t in &self.targets {
                let p = before.with_target(*t, *pair);
                if !v.contains(&p) {
                    v.push(p);
                }
            }
        }
        v
    }
}

/// Rounds of stage 1 and stage 2 per pool size (see [`search_at`]).
const MAX_ROUNDS: usize = 2;

/// Stage 2 goes around this many of a round's cheapest that meet the target nominally (more
/// found nothing cheaper in the exhaustive checks, at a fifth more runs).
const NOMINAL_BASES: usize = 1;

/// `a` and `b` differ only in what stage 1 searches (target, step, cooldown, aggregation,
/// window).
fn same_context(a: &Params, b: &Params) -> bool {
    let strip = |p: &Params| {
        let mut q = p.clone();
        q.time_window_minutes = 0;
        q.target_per_instance = 0;
        q.scale_out_step = 0;
        q.scale_out_cooldown_minutes = 0;
        q.scale_out_aggregation = ScaleOutAggregation::Average;
        q.scale_out_tiers.clear();
        q.scale_in_below = 0;
        q
    };
    strip(a) == strip(b)
}

/// What one pool size found.
struct AtSize {
    row: PoolRow,
    /// Per pair of [`Grid::pairs`], the largest [`Grid::targets`] index that holds: no larger one
    /// can hold with a smaller pool (`None`: none holds).
    caps: Vec<Option<usize>>,
    best: Option<(Scored, UnderVariants)>,
    nominal_best: Option<Scored>,
    policies: usize,
    runs: usize,
    nominal_meeting: usize,
    checked: usize,
    /// Every policy tried that meets the target nominally (the fallback's candidates).
    meeting: Vec<Scored>,
    /// The fastest policy's exact nominal p95.
    fastest_exact: f64,
}

/// The cheapest policy that meets the target under the variants (`req`; `None`: nominal
/// only) with the pool `job.settings.standby`. Stage 1 ([`Stage1`]): per `(scaleOutStep,
/// scaleOutCooldown)`, a binary search for the largest `targetPerInstance` (up to `caps`; the cap
/// first when `capped`, it comes from the next larger pool) that meets the goal, waits growing
/// with the target, those checked under the variants cheapest first up to the first that holds;
/// stage 2 ([`stage2`]) around the cheapest result, walked cheapest first and stopped at the
/// first that is not cheaper.
fn search_at(
    job: &Job,
    before: &Params,
    eb: bool,
    vs: &[Variant],
    share: Option<&Required>,
    caps: &[Option<usize>],
    prev: Option<&Params>,
    capped: bool,
    bound_hours: f64,
    grid: &Grid,
) -> AtSize {
    let pairs = &grid.pairs;
    let targets = &grid.targets;
    // stage 1 in a context (its scale-in cooldown, window, tiers and minimums; the search's
    // own fields replaced): per pair the largest target up to the caps that meets the goal,
    // checked under the variants cheapest first ([`Stage1`])
    let st = Stage1 {
        job,
        pairs,
        targets,
        eb,
        vs,
        share,
    };
    let spec_agg = if pairs.iter().any(|p| p.2 == before.scale_out_aggregation) {
        before.scale_out_aggregation
    } else {
        pairs.first().map_or(before.scale_out_aggregation, |p| p.2)
    };
    let cheapest = |v: &mut dyn Iterator<Item = &Scored>| v.min_by(|a, b| cheaper(a, b)).cloned();
    let mut pts: Vec<(Scored, bool)> = Vec::new();
    let mut s2: Vec<Scored> = Vec::new();
    let (mut runs, mut checked) = (0, 0);
    // pairs not searched at this size keep their cap for the next smaller pool
    let mut next_caps: Vec<Option<usize>> = caps.to_vec();
    runs += 1;
    if let Some(sc) = score_or_miss(job, before, eb) {
        let h = match (sc.meets, share) {
            (false, _) => false,
            (true, None) => true,
            (true, Some(sh)) => {
                let (h, r) = holds_allowing(job, before, eb, vs, sh);
                runs += r;
                checked += 1;
                h
            }
        };
        pts.push((sc, h));
    }
    let mut best: Option<Scored> = None;
    // Rounds: stage 1 in a context, then stage 2 around what it found; the next round runs
    // stage 1 again in the context of the round's choice (its scale-in cooldown, window, tiers
    // and minimums), until a round finds nothing cheaper or the context repeats. Round 1 runs
    // in the spec's context with the caps the next larger pool left; later rounds uncapped
    // (the caps hold for the spec's context only).
    let mut ctx = before.clone();
    let mut contexts: Vec<Params> = Vec::new();
    let full_caps = vec![Some(targets.len() - 1); pairs.len()];
    for round in 0..MAX_ROUNDS {
        let round_caps = if round == 0 { caps } else { &full_caps[..] };
        let best_before = best.clone();
        // first the spec's aggregation for every (step, cooldown); then the other aggregations
        // for the (step, cooldown) of the three cheapest that held (a third of the runs of all
        // of them)
        let first: Vec<usize> = (0..pairs.len())
            .filter(|i| pairs[*i].2 == spec_agg)
            .collect();
        let from_larger = capped && round == 0;
        let ran = st.run(&ctx, &first, round_caps, from_larger, best.as_ref());
        let mut per = ran.per;
        // those that held, and those the walk presumes to hold (no cheaper than one that held)
        let mut held: Vec<(&Scored, (u32, u32, u32))> = per
            .iter()
            .flat_map(|(i, pts, ..)| {
                let (step, cd, _, w) = pairs[*i];
                pts.iter()
                    .filter(|(s, h)| *h || s.meets)
                    .map(move |(s, _)| (s, (step, cd, w)))
            })
            .collect();
        let first_best = per
            .iter()
            .flat_map(|(_, pts, ..)| pts.iter().filter(|(_, h)| *h).map(|(s, _)| s))
            .chain(best.iter())
            .min_by(|a, b| cheaper(a, b))
            .cloned();
        // this round's own (the choice of an earlier round does not count: none held in
        // this context)
        let none_held =
            !ran.presumed && !per.iter().any(|(_, pts, ..)| pts.iter().any(|(_, h)| *h));
        held.sort_by(|a, b| cheaper(a.0, b.0));
        let mut top: Vec<(u32, u32, u32)> = Vec::new();
        for (_, sc) in held {
            if !top.contains(&sc) {
                top.push(sc);
            }
        }
        // none held with the spec's aggregation (none checked held, and none was left
        // unchecked as no cheaper than one that held): the others for every pair (the full
        // grid's flat week found no policy at pool 0 when only the fastest pair tried them,
        // where a Maximum-aggregated one with a smaller step holds)
        top.truncate(3);
        let second: Vec<usize> = (0..pairs.len())
            .filter(|i| {
                pairs[*i].2 != spec_agg
                    && (none_held || top.contains(&(pairs[*i].0, pairs[*i].1, pairs[*i].3)))
            })
            .collect();
        per.extend(
            st.run(&ctx, &second, round_caps, from_larger, first_best.as_ref())
                .per,
        );
        let round_start = pts.len();
        for (i, p, f, r, c) in per {
            pts.extend(p);
            if round == 0 {
                next_caps[i] = f;
            }
            runs += r;
            checked += c;
        }
        // none of the round meets the target nominally: the fastest of them is a base of
        // stage 2, so their figures are needed whole
        if !pts[round_start..].iter().any(|(s, _)| s.meets) {
            runs += complete(
                job,
                pts[round_start..]
                    .iter_mut()
                    .map(|(s, _)| s)
                    .collect::<Vec<_>>(),
                eb,
            );
        }
        let new_pts = &pts[round_start..];
        if let Some(b) = cheapest(&mut new_pts.iter().filter(|(_, h)| *h).map(|(s, _)| s))
            && best.as_ref().is_none_or(|x| cheaper(&b, x).is_lt())
        {
            best = Some(b);
        }
        // stage 2 around the cheapest that holds and the cheapest that meets the target in the
        // nominal model (else the fastest) of this round: a point that misses a variant in this
        // context may hold with another scale-in cooldown or floor
        let fastest = new_pts
            .iter()
            .map(|(s, _)| s)
            .min_by(|a, b| a.p95.total_cmp(&b.p95).then(cheaper(a, b)))
            .cloned();
        let mut nominal: Vec<Scored> = new_pts
            .iter()
            .map(|(s, _)| s)
            .filter(|s| s.meets)
            .cloned()
            .collect();
        nominal.sort_by(cheaper);
        nominal.truncate(NOMINAL_BASES);
        if nominal.is_empty() {
            nominal.extend(fastest);
        }
        // ... in round 1 also the spec's own policy and the next larger pool's choice (a
        // policy's waits need not shrink with more instances: a scale-in restarts the jobs of
        // the VMs it removes)
        let mut bases: Vec<Params> = Vec::new();
        let firsts = (round == 0)
            .then_some(before)
            .into_iter()
            .chain(prev.filter(|_| round == 0));
        for b in best
            .iter()
            .chain(nominal.iter())
            .map(|s| &s.params)
            .chain(firsts)
        {
            if !bases.contains(b) {
                bases.push(b.clone());
            }
        }
        if grid.stage2 && !bases.is_empty() {
            let mut cands: Vec<Params> = Vec::new();
            for b in &bases {
                for p in stage2(b, before) {
                    if !cands.contains(&p)
                        && !pts.iter().any(|(s, _)| s.params == p)
                        && !s2.iter().any(|s| s.params == p)
                    {
                        cands.push(p);
                    }
                }
            }
            let scored: Vec<Scored> = cands
                .par_iter()
                .filter_map(|p| score_or_miss(job, p, eb))
                .collect();
            runs += cands.len();
            // cheapest first, and only those cheaper than the choice so far (the walk stops at
            // the first that is not: no variant is replayed for it or after it)
            let mut meeting: Vec<&Scored> = scored
                .iter()
                .filter(|s| {
                    s.meets
                        && (job.tuning.unpruned
                            || best.as_ref().is_none_or(|b| cheaper(s, b).is_lt()))
                })
                .collect();
            meeting.sort_by(|a, b| cheaper(a, b));
            'walk: for chunk in meeting.chunks(super::score::walk_chunk()) {
                let ok: Vec<(bool, usize)> = chunk
                    .par_iter()
                    .map(|c| match share {
                        None => (true, 0),
                        Some(sh) => holds_allowing(job, &c.params, eb, vs, sh),
                    })
                    .collect();
                for (c, (h, r)) in chunk.iter().zip(ok) {
                    runs += r;
                    checked += usize::from(share.is_some());
                    if best
                        .as_ref()
                        .is_some_and(|b| cheaper(c, b) != std::cmp::Ordering::Less)
                    {
                        break 'walk;
                    }
                    if h {
                        best = Some((*c).clone());
                        break 'walk;
                    }
                }
            }
            s2.extend(scored);
        }
        // the next context: the choice so far, else the cheapest that meets the target nominally
        contexts.push(ctx.clone());
        let next = best.clone().or_else(|| {
            cheapest(
                &mut pts
                    .iter()
                    .map(|(s, _)| s)
                    .chain(s2.iter())
                    .filter(|s| s.meets),
            )
        });
        let improved = match (&best, &best_before) {
            (Some(b), Some(x)) => cheaper(b, x).is_lt(),
            (Some(_), None) => true,
            _ => round == 0,
        };
        match next {
            Some(n) if improved && !contexts.iter().any(|c| same_context(c, &n.params)) => {
                ctx = n.params
            }
            _ => break,
        }
    }
    // the row of a size where none holds gives the fastest policy's p95, and the margin comes
    // down to the fastest's when no size has one that meets it: then every figure is needed
    if best.is_none() || !pts.iter().map(|(s, _)| s).chain(s2.iter()).any(|s| s.meets) {
        runs += complete(
            job,
            pts.iter_mut()
                .map(|(s, _)| s)
                .chain(s2.iter_mut())
                .collect::<Vec<_>>(),
            eb,
        );
    }
    let all = || pts.iter().map(|(s, _)| s).chain(s2.iter());
    let nominal_best = cheapest(&mut all().filter(|s| s.meets));
    let nominal_meeting = all().filter(|s| s.meets).count();
    let meeting: Vec<Scored> = all().filter(|s| s.meets).cloned().collect();
    let policies = pts.len() + s2.len();
    let best = best.map(|b| {
        let u = under_variants(job, &b.params, eb, vs, Some(&b));
        runs += vs.len().saturating_sub(1);
        (b, u)
    });
    let sb = job.settings.standby.as_ref();
    let (max_ready, min_ready) = sb.map_or((0, 0), |s| (s.max_ready, s.min_ready));
    let fastest = all().map(|s| s.p95).fold(f64::INFINITY, f64::min);
    let fastest_exact = all().map(|s| s.p95_exact).fold(f64::INFINITY, f64::min);
    let row = match &best {
        Some((b, u)) => PoolRow {
            result: pool_try(
                max_ready,
                min_ready,
                b,
                u,
                bound_hours,
                nominal_best.as_ref(),
                runs,
            ),
            policy: Some(b.params.clone()),
        },
        None => PoolRow {
            result: standby::PoolTry {
                max_ready,
                min_ready,
                p95: fastest,
                worst_p95: f64::NAN,
                monthly: None,
                meets: false,
                standby_monthly: None,
                ratio: None,
                ratio_with_standby: None,
                cost_of_robustness: None,
                simulated: runs,
            },
            policy: None,
        },
    };
    AtSize {
        row,
        caps: next_caps,
        best,
        nominal_best,
        policies,
        runs,
        nominal_meeting,
        checked,
        meeting,
        fastest_exact,
    }
}

pub(super) use super::binds::top_instances;

pub(super) use super::pool_edit::pool_edits;

/// `--tune` on a spec with a standby pool: the pool size (`maxReady = minReady`, from 0 to
/// [`standby::sizes`]) and the policy searched together, largest pool first: a policy that
/// misses the target with a pool misses it with a smaller one (the model's waits do not grow
/// with the pool), so each size's stage 1 starts from the targets that held with the next
/// larger one. The proposal is the cheapest (size, policy) that meets the target under the
/// variants, pool disks included; when none holds under all the required ones, the cheapest
/// of those tried that holds under the most ([`super::answer`]).
pub(super) fn tune_with_pool(
    job: &Job,
    before_results: &Results,
    before: Params,
    eb: bool,
    started: Instant,
    grid: &Grid,
) -> Result<Tuned, String> {
    let current = job.settings.standby.clone().ok_or("the spec has no pool")?;
    let share = job.robust_share;
    let vs: Vec<Variant> = variants_for(job.settings.choices, Some(&current))
        .into_iter()
        .take(if share.is_some() { usize::MAX } else { 1 })
        .collect();
    let pre = answer::prelude(job, &before, eb, &vs);
    let (mut margin, req, feasibility) = (pre.margin, pre.required, pre.feasibility);
    let target = job.target();
    let mut j = *job;
    j.tuning.margin = Some(margin.minutes);
    // the sizes' replays shared (the job's own trace from here on)
    let reuse = super::reuse::Reuse::default();
    if !job.tuning.unpruned {
        j.tuning.reuse = Some(&reuse);
    }
    let top = top_instances(job.input.spec);
    let sizes = standby::sizes(top);
    let bound_hours = super::super::bound::lower_bound(
        job.trace,
        job.workload,
        job.settings.wait_target_minutes,
        job.settings.quantile,
    )
    .instance_hours;
    let sized = |m: u32| Settings {
        standby: Some(current.sized(m, m)),
        ..job.settings.clone()
    };
    let search = |j: &Job| -> Vec<AtSize> {
        let mut caps = vec![Some(grid.targets.len() - 1); grid.pairs.len()];
        let mut found: Vec<AtSize> = Vec::new();
        for (k, &m) in sizes.iter().rev().enumerate() {
            if let Some(p) = j.tuning.progress {
                p.phase(format!("pool size {m} ({} of {})", k + 1, sizes.len()));
            }
            let settings = sized(m);
            let js = Job {
                settings: &settings,
                ..*j
            };
            let prev = found.last().and_then(|a: &AtSize| a.row.policy.clone());
            let at = search_at(
                &js,
                &before,
                eb,
                &vs,
                share.map(|_| &req),
                &caps,
                prev.as_ref(),
                k > 0,
                bound_hours,
                grid,
            );
            caps = at.caps.clone();
            found.push(at);
        }
        found.reverse();
        found
    };
    let mut found = search(&j);
    // no size reaches the target less the margin, some reach the target: the margin down to
    // what the fastest reaches, and the search again
    let fastest = found
        .iter()
        .map(|a| a.fastest_exact)
        .fold(f64::INFINITY, f64::min);
    if found.iter().all(|a| a.meeting.is_empty())
        && fastest <= target + 1e-9
        && target - fastest < margin.minutes
    {
        let aimed = target - margin.minutes;
        margin.reduce(
            target - fastest,
            format!(
                "no pool size and policy tried reaches p95 <= {aimed:.1} min (the target less the margin): the fastest reaches {fastest:.2} min, so the tune aims there"
            ),
        );
        j.tuning.margin = Some(margin.minutes);
        found = search(&j);
    }
    let job = &j;
    // by price, as within a size ([`cheaper`]); where a price is missing (a region the sourced
    // table lacks) by the VM-hours billed, the pool's disks then not counted: said in the report
    let by_hours = found
        .iter()
        .filter_map(|a| a.best.as_ref())
        .any(|(b, _)| b.pool_monthly.is_none());
    let mut chosen = found
        .iter()
        .enumerate()
        .filter_map(|(i, a)| a.best.as_ref().map(|(b, _)| (i, b)))
        .min_by(|(i, a), (k, b)| cheaper(a, b).then(i.cmp(k)))
        .map(|(i, _)| i);
    let policies: usize = found.iter().map(|a| a.policies).sum();
    let mut runs: usize = found.iter().map(|a| a.runs).sum();
    let meeting: usize = found.iter().map(|a| a.nominal_meeting).sum();
    // none holds under the required variants: the cheapest (size, policy) tried that holds
    // under the most, one more miss allowed at a time
    if chosen.is_none() && share.is_some() && meeting > 0 {
        if let Some(p) = job.tuning.progress {
            p.phase("none holds under every variant: the one that holds under the most");
        }
        let mut all: Vec<(usize, Scored)> = found
            .iter()
            .enumerate()
            .flat_map(|(i, a)| a.meeting.iter().map(move |s| (i, s.clone())))
            .collect();
        all.sort_by(|a, b| cheaper(&a.1, &b.1).then(a.0.cmp(&b.0)));
        let mut r = req.clone();
        'relax: while r.allowed + r.skip.len() + 1 < vs.len() {
            r = r.one_more();
            for chunk in all.chunks(super::score::walk_chunk()) {
                let ok: Vec<(bool, usize)> = chunk
                    .par_iter()
                    .map(|(i, c)| {
                        let settings = sized(sizes[*i]);
                        let js = Job {
                            settings: &settings,
                            ..*job
                        };
                        holds_allowing(&js, &c.params, eb, &vs, &r)
                    })
                    .collect();
                for ((i, c), (h, n)) in chunk.iter().zip(ok) {
                    runs += n;
                    if h {
                        let settings = sized(sizes[*i]);
                        let js = Job {
                            settings: &settings,
                            ..*job
                        };
                        let u = under_variants(&js, &c.params, eb, &vs, Some(c));
                        let at = &mut found[*i];
                        at.row = PoolRow {
                            result: pool_try(
                                sizes[*i],
                                sizes[*i],
                                c,
                                &u,
                                bound_hours,
                                at.nominal_best.as_ref(),
                                at.runs,
                            ),
                            policy: Some(c.params.clone()),
                        };
                        at.best = Some((c.clone(), u));
                        chosen = Some(*i);
                        break 'relax;
                    }
                }
            }
        }
    }
    // the proposal: written into the spec, checked and simulated again with its pool
    let (mut best, mut reason, mut robust) = (None, None, None);
    let mut answer = Answer {
        margin: Some(margin.clone()),
        feasibility: share.map(|_| feasibility.clone()),
        ..Answer::default()
    };
    if let Some(i) = chosen {
        let at = &found[i];
        let m = sizes[i];
        let (b, u) = at.best.clone().expect("chosen rows have a policy");
        let settings = Settings {
            standby: (m > 0).then(|| current.sized(m, m)),
            ..job.settings.clone()
        };
        let j = Job {
            settings: &settings,
            ..*job
        };
        match pool_edits(job, m).and_then(|e| verify_with(&j, &before, &b.params, eb, e)) {
            Ok(v) => best = Some(v),
            Err(e) => reason = Some(e),
        }
        let sized_settings = sized(m);
        let js = Job {
            settings: &sized_settings,
            ..*job
        };
        if let Some(sh) = share {
            let before_nominal = score(job, &before, eb);
            let before_under = under_variants(job, &before, eb, &vs, before_nominal.as_ref());
            let nb_under = at
                .nominal_best
                .as_ref()
                .map(|n| under_variants(&js, &n.params, eb, &vs, Some(n)));
            runs += 2 * vs.len();
            if let Some(bn) = &before_nominal {
                answer.shown.push(answer::shown(
                    "before",
                    bn,
                    Some(&before_under),
                    &vs,
                    target,
                    bound_hours,
                ));
            }
            if let (Some(n), Some(nu)) = (&at.nominal_best, &nb_under) {
                answer.shown.push(answer::shown(
                    "nominal best",
                    n,
                    Some(nu),
                    &vs,
                    target,
                    bound_hours,
                ));
            }
            answer.shown.push(answer::shown(
                "proposal",
                &b,
                Some(&u),
                &vs,
                target,
                bound_hours,
            ));
            if u.meeting < vs.len() - allowed_misses(vs.len(), sh) {
                answer.fallback = answer::fallback(&js, &b, &u, eb, &vs, &feasibility);
            }
            let c = at
                .nominal_best
                .as_ref()
                .and_then(|n| n.pool_monthly)
                .zip(b.pool_monthly);
            robust = Some(Robust {
                variants: vs.clone(),
                share: sh,
                before: before_under,
                nominal_best: at.nominal_best.clone(),
                nominal_best_under_variants: nb_under,
                after: Some(u),
                checked: found.iter().map(|a| a.checked).sum(),
                cost_of_robustness: c.map(|(n, a)| a - n),
                cost_of_robustness_percent: c
                    .and_then(|(n, a)| (n > 0.0).then(|| (a - n) / n * 100.0)),
            });
        } else {
            answer.shown.push(answer::shown(
                "proposal",
                &b,
                None,
                &vs,
                target,
                bound_hours,
            ));
        }
    } else {
        let fastest = found
            .iter()
            .map(|a| a.fastest_exact)
            .fold(f64::INFINITY, f64::min);
        let nominal = found
            .iter()
            .flat_map(|a| a.meeting.iter())
            .cloned()
            .collect::<Vec<_>>();
        reason = Some(if nominal.is_empty() {
            format!(
                "no pool size from 0 to {} with any of the {policies} policies tried meets the target in the nominal model: {}",
                sizes.last().copied().unwrap_or(0),
                no_policy(
                    job,
                    &[Scored {
                        params: before.clone(),
                        p95: fastest.floor(),
                        p95_exact: fastest,
                        instance_hours: 0.0,
                        pool_monthly: None,
                        standby_monthly: None,
                        build_hours: 0.0,
                        meets: false,
                        missed: false,
                    }],
                    &feasibility,
                    before_results
                )
            )
        } else {
            format!(
                "no pool size from 0 to {} with any of the {policies} policies tried meets p95 <= {} min{} (the fastest reaches {fastest:.1} min in the nominal model; before: {} min): raise the maximums, lower the provisioning time, or accept fewer variants (--robust-share)",
                sizes.last().copied().unwrap_or(0),
                job.settings.wait_target_minutes,
                if share.is_some() {
                    " under the model variants"
                } else {
                    ""
                },
                before_results.wait_minutes.p95
            )
        });
    }
    // how the choice moves with the assumed start time of a pooled VM
    let (at_m, at_p) = match chosen {
        Some(i) => (
            sizes[i],
            found[i].best.as_ref().map(|(b, _)| b.params.clone()),
        ),
        None => (current.max_ready, None),
    };
    let at_p = at_p.unwrap_or_else(|| before.clone());
    let sensitivity: Vec<(u32, standby::PoolTry)> = standby::SENSITIVITY_START_SECONDS
        .iter()
        .filter_map(|secs| {
            let settings = Settings {
                standby: Some(current.sized(at_m, at_m).starting_in(*secs)),
                ..job.settings.clone()
            };
            let j = Job {
                settings: &settings,
                ..*job
            };
            let n = score(&j, &at_p, eb)?;
            let u = under_variants(&j, &at_p, eb, &vs, Some(&n));
            let mut t = pool_try(at_m, at_m, &n, &u, bound_hours, None, vs.len());
            t.meets = u.meeting >= vs.len() - allowed_misses(vs.len(), share.unwrap_or(1.0));
            Some((*secs, t))
        })
        .collect();
    runs += sensitivity.len() * vs.len();
    let rows: Vec<PoolRow> = found.into_iter().map(|a| a.row).collect();
    let choice = standby::PoolChoice {
        compared_by_vm_hours: by_hours,
        start_seconds: current.start_seconds,
        start_source: current.start_source.clone(),
        tried: rows.iter().map(|r| r.result.clone()).collect(),
        chosen: chosen.map(|i| rows[i].result.clone()),
        sensitivity,
    };
    let elapsed = started.elapsed().as_millis();
    let search = PoolSearch {
        chosen_max_ready: chosen.map(|i| sizes[i]),
        rows,
        largest: sizes.last().copied().unwrap_or(0),
        limits: format!(
            "up to the scale set's largest maximum, {top}, since a pooled VM above it is never taken (standby-above-max), and within Azure's {} VMs between the scale set and its pool (standby-vm-limit); vCPU quota is not known offline: preflight counts the pool against it",
            crate::facts::standby::MAX_VMS_WITH_POOL
        ),
        policies,
        runs,
        elapsed_ms: elapsed as u64,
        pruning: "largest pool first; per scaleOutStep x scaleOutCooldown x timeWindow a binary search (the spec's scaleOutAggregation; the other aggregations for the three cheapest that met the target, or for every pair when none held) on targetPerInstance for the largest that meets the target nominally, in round 1 capped by what the next larger pool left and tried at the cap first (the largest that held, or that met it where it was not checked; assumes waits grow with the target and shrink with the pool), those checked under the variants cheapest first up to the first that holds (one that misses searched below); stage 2 around each round's cheapest that holds, its cheapest nominal, the spec's policy and the next larger pool's choice, walked cheapest first; up to 2 rounds, the second running stage 1 again in the context (scale-in cooldown, tiers, minimums) of the choice so far until nothing cheaper is found; a replay under a variant stops once it must miss; checked against an exhaustive enumeration on small grids (src/simulate/tune/pool_check.rs)".into(),
    };
    strict(job, &mut best, &mut reason, &mut answer);
    Ok(Tuned {
        candidates: policies,
        meeting,
        elapsed_ms: elapsed,
        before,
        best,
        reason,
        robust,
        standby: Some(choice),
        pool_search: Some(search),
        schedule: None,
        answer,
    })
}

/// [`tune_with_pool`] from the spec as written.
pub(super) fn tune(job: &Job, before_results: &Results) -> Result<Tuned, String> {
    let started = Instant::now();
    let (before, explicit_below) = super::search::start(job)?;
    tune_with_pool(
        job,
        before_results,
        before,
        explicit_below,
        started,
        &Grid::full(),
    )
}
