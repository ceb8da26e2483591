//! Scoring a candidate policy: what a tune needs ([`Job`], [`Tuning`]), one replay per model
//! variant, and whether a policy holds under the variants. Every replay of a tune goes through
//! [`replay`] (progress and the work counter follow it).
//!
//! A candidate *meets* the target when its exact p95 wait (to the second,
//! [`Outcome::wait_percentile_exact`]) is at most the target less the margin ([`Job::goal`]),
//! and *holds* when, besides, its exact p95 under each required variant is at most the target
//! ([`Job::target`]), with at most the allowed misses. Both are what the search compares; the
//! whole-minute p95 the results print stays beside them (a "5 min" p95 is 5:00 to 5:59).

use rayon::prelude::*;
use serde::Serialize;

use super::super::engine::{self, Choices, Outcome, Run, Setting, Stop};
use super::super::{Input, Settings, price, priority};
use super::params::Params;
use super::progress::Progress;
use super::variants::Variant;
use crate::cost::PriceBook;
use crate::plan::Plan;
use crate::spec::Checked;
use crate::spec::model::Spec;
use crate::spec::policy::Policy;

/// What a tune needs.
#[derive(Clone, Copy)]
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
    /// The share of the model variants ([`super::variants`]) under which a candidate must meet
    /// the target (1.0: all of them; `None`: the nominal model only).
    pub robust_share: Option<f64>,
    /// How to search: margin, strictness, progress, the work bound (`Tuning::default()`:
    /// `--tune`'s defaults).
    pub tuning: Tuning<'a>,
}

/// How `--tune` searches, besides the target and the variants.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tuning<'a> {
    /// Minutes below the target the nominal p95 must stay (`--margin`); `None`: learned from
    /// the trace ([`super::margin`]) in robust mode, none in the nominal mode.
    pub margin: Option<f64>,
    /// `--strict`: propose only a policy that holds under the required share of the variants
    /// at the margin (else exit 1, as before `--tune` always answered).
    pub strict: bool,
    /// Where progress goes (`None`: nowhere; `--progress`, or stderr on a terminal).
    pub progress: Option<&'a Progress>,
    /// Days of the trace the search replays (`None`: [`super::bound::SEARCH_DAYS`]); a longer
    /// trace is searched on its last days and the proposal replayed on all of it.
    pub search_days: Option<u32>,
    /// Replays shared across the standby-pool sizes of the joint search ([`super::reuse`];
    /// `None`: none shared). Only for replays of the job's own trace.
    pub reuse: Option<&'a super::reuse::Reuse>,
    /// Search without the pruning that cannot change the answer (issue 40, item 1): no replay
    /// shared across pool sizes, a variant check for every candidate the walks reach. The tests
    /// compare the pruned search with this one (`pool_check.rs`); `--tune` never sets it.
    pub unpruned: bool,
}

impl Job<'_> {
    /// The wait target, minutes.
    pub fn target(&self) -> f64 {
        f64::from(self.settings.wait_target_minutes)
    }

    /// What a candidate's nominal p95 must reach: the target less the margin.
    pub fn goal(&self) -> f64 {
        self.target() - self.tuning.margin.unwrap_or(0.0).max(0.0)
    }
}

/// One simulated candidate.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scored {
    pub params: Params,
    /// p95 wait in whole minutes (as the results print it) and to the second (what is compared).
    pub p95: f64,
    pub p95_exact: f64,
    pub instance_hours: f64,
    pub pool_monthly: Option<f64>,
    /// The standby pool's share of `pool_monthly` (its disks while they wait).
    pub standby_monthly: Option<f64>,
    /// VM-hours spent building the standby pool's VMs (billed at the size's price; 0 without a
    /// pool): what the pool costs beyond its disks, known even where a price is missing.
    pub build_hours: f64,
    /// The exact p95 is within the goal ([`Job::goal`]).
    pub meets: bool,
    /// The nominal replay stopped once the goal was missed for sure ([`score_or_miss`]): `meets`
    /// is false and exact, the other figures are not known (infinite); [`complete`] replays it
    /// whole where they are needed.
    #[serde(skip)]
    pub missed: bool,
}

/// A candidate under every variant.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnderVariants {
    /// p95 wait per variant (whole minutes), in the order of the variants.
    pub p95: Vec<f64>,
    pub worst_p95: f64,
    /// Variants under which the candidate meets the target.
    pub meeting: usize,
    /// p95 wait per variant to the second (fractional minutes).
    pub p95_exact: Vec<f64>,
}

/// A candidate ready to replay: its spec and the autoscale setting render would emit for it
/// (built once, replayed under every variant).
pub(super) struct Prepared {
    pub spec: Spec,
    pub setting: Setting,
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

/// `params` applied to the job's spec, and its setting.
pub(super) fn prepare(job: &Job, params: &Params, explicit_below: bool) -> Option<Prepared> {
    let spec = params.apply(job.input.spec, explicit_below);
    let setting = setting_for(&spec, job.input.plan).ok()?;
    Some(Prepared { spec, setting })
}

/// One replay of a prepared candidate under `choices` (stopping at `stop`): the tune's only way
/// to the engine, so every replay counts in the progress line.
pub(super) fn replay(job: &Job, prep: &Prepared, choices: Choices, stop: Option<Stop>) -> Outcome {
    if let (Some(r), Some(pool)) = (job.tuning.reuse, job.settings.standby.as_ref()) {
        let prio = priority(job.input.plan, &prep.spec);
        let key = super::reuse::key(&prep.setting, &prio, &choices, pool);
        return r.replay(key, pool, stop.as_ref(), || {
            replay_setting(job, &prep.setting, &prep.spec, choices, stop)
        });
    }
    replay_setting(job, &prep.setting, &prep.spec, choices, stop)
}

/// [`replay`] of a setting (the fixed pools of [`super::binds`]).
pub(super) fn replay_setting(
    job: &Job,
    setting: &Setting,
    spec: &Spec,
    choices: Choices,
    stop: Option<Stop>,
) -> Outcome {
    let prio = priority(job.input.plan, spec);
    let o = engine::run_until(
        &Run {
            setting,
            trace: job.trace,
            workload: job.workload,
            priority: &prio,
            choices,
            seed: job.settings.seed,
            record: false,
            standby: job.settings.standby.as_ref(),
        },
        stop,
    );
    if let Some(p) = job.tuning.progress {
        p.replayed(o.minutes);
    }
    o
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
    let prep = prepare(job, params, explicit_below)?;
    Some(score_prepared(job, params, &prep, choices))
}

/// The nominal figures of a prepared candidate (priced).
pub(super) fn score_prepared(
    job: &Job,
    params: &Params,
    prep: &Prepared,
    choices: Choices,
) -> Scored {
    let o = replay(job, prep, choices, None);
    scored_of(job, params, prep, &o)
}

/// A candidate's figures from its whole nominal replay `o`.
fn scored_of(job: &Job, params: &Params, prep: &Prepared, o: &Outcome) -> Scored {
    let input = Input {
        spec: &prep.spec,
        ..*job.input
    };
    let (_, cost) = price(&input, o, job.book, job.today);
    let exact = o.wait_percentile_exact(job.settings.quantile);
    Scored {
        params: params.clone(),
        p95: o.wait_percentile(job.settings.quantile),
        p95_exact: exact,
        instance_hours: o.instance_minutes as f64 / 60.0,
        pool_monthly: cost.pool_monthly,
        standby_monthly: cost.standby_monthly,
        build_hours: o.standby_build_minutes as f64 / 60.0,
        meets: exact <= job.goal() + 1e-9,
        missed: false,
    }
}

/// How far above the goal the stop of [`score_or_miss`] sits, minutes: a replay that stops has
/// more jobs than the quantile allows waiting at least a whole second over the goal plus this,
/// so its exact p95 is over `goal + 1e-9` (what `meets` compares) by far more than any rounding;
/// a wait between the two (none, but for a goal a few microseconds under a whole second) only
/// means a whole replay.
const GOAL_SLACK_MINUTES: f64 = 1e-6;

/// [`score`], except that the nominal replay stops as soon as the goal ([`Job::goal`]) is missed
/// for sure (issue 40, item 3: about half the policies a search tries miss it, and most of their
/// replay is not needed to know that): such a candidate comes back [`Scored::missed`], not
/// meeting, its other figures unknown. The searches use them only to know that they do not meet;
/// where a non-meeting candidate's figures matter (the fastest when none meets), they
/// [`complete`] it first. With [`Tuning::unpruned`], whole replays as [`score`].
pub(super) fn score_or_miss(job: &Job, params: &Params, explicit_below: bool) -> Option<Scored> {
    if job.tuning.unpruned {
        return score(job, params, explicit_below);
    }
    let prep = prepare(job, params, explicit_below)?;
    let stop = Stop {
        wait_minutes: job.goal() + GOAL_SLACK_MINUTES,
        quantile: job.settings.quantile,
    };
    let o = replay(job, &prep, job.settings.choices, Some(stop));
    if !o.stopped {
        // a run that does not stop is the whole replay (`tests/simulate_stop.rs`)
        return Some(scored_of(job, params, &prep, &o));
    }
    Some(Scored {
        params: params.clone(),
        p95: f64::INFINITY,
        p95_exact: f64::INFINITY,
        instance_hours: f64::INFINITY,
        pool_monthly: None,
        standby_monthly: None,
        build_hours: f64::INFINITY,
        meets: false,
        missed: true,
    })
}

/// Replay the [`Scored::missed`] of `scored` whole (in parallel), so that all their figures are
/// known; how many it replayed.
pub(super) fn complete<'s>(
    job: &Job,
    scored: impl IntoParallelIterator<Item = &'s mut Scored>,
    explicit_below: bool,
) -> usize {
    scored
        .into_par_iter()
        .filter(|s| s.missed)
        .map(|s| {
            if let Some(full) = score(job, &s.params, explicit_below) {
                *s = full;
            }
            1
        })
        .sum()
}

/// The exact p95 of a prepared candidate under `choices`, or infinity once it must exceed the
/// target (the replay stops there).
pub(super) fn p95_within(job: &Job, prep: &Prepared, choices: Choices) -> f64 {
    let o = replay(
        job,
        prep,
        choices,
        Some(Stop {
            wait_minutes: job.target(),
            quantile: job.settings.quantile,
        }),
    );
    if o.stopped {
        f64::INFINITY
    } else {
        o.wait_percentile_exact(job.settings.quantile)
    }
}

/// `params` under every variant (the nominal one first, already known as `nominal`): whole
/// replays, for the report.
pub(super) fn under_variants(
    job: &Job,
    params: &Params,
    explicit_below: bool,
    vs: &[Variant],
    nominal: Option<&Scored>,
) -> UnderVariants {
    let Some(prep) = prepare(job, params, explicit_below) else {
        return UnderVariants {
            p95: vec![f64::INFINITY; vs.len()],
            worst_p95: f64::INFINITY,
            meeting: 0,
            p95_exact: vec![f64::INFINITY; vs.len()],
        };
    };
    let q = job.settings.quantile;
    let both: Vec<(f64, f64)> = vs
        .par_iter()
        .enumerate()
        .map(|(i, v)| match (i, nominal) {
            (0, Some(n)) => (n.p95, n.p95_exact),
            _ => {
                let o = replay(job, &prep, v.choices, None);
                (o.wait_percentile(q), o.wait_percentile_exact(q))
            }
        })
        .collect();
    let target = job.target();
    UnderVariants {
        worst_p95: both.iter().map(|b| b.0).fold(0.0, f64::max),
        meeting: both.iter().filter(|b| b.1 <= target + 1e-9).count(),
        p95: both.iter().map(|b| b.0).collect(),
        p95_exact: both.iter().map(|b| b.1).collect(),
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
    let req = Required {
        skip: Vec::new(),
        allowed: allowed_misses(vs.len(), share),
    };
    holds_allowing(job, params, explicit_below, vs, &req)
}

/// Which variants a candidate must hold under: all of them but `skip` (those no policy of the
/// spec's maximum can meet, [`super::binds`]), with at most `allowed` misses among the rest.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Required {
    pub skip: Vec<usize>,
    pub allowed: usize,
}

impl Required {
    /// All of `n` variants, with the misses `share` allows.
    pub fn share_of(n: usize, share: f64) -> Required {
        Required {
            skip: Vec::new(),
            allowed: allowed_misses(n, share),
        }
    }

    /// The same, one more miss allowed (the fallback when none holds).
    pub fn one_more(&self) -> Required {
        Required {
            skip: self.skip.clone(),
            allowed: self.allowed + 1,
        }
    }
}

/// Whether `params` meets the target under the required variants of `vs` (the first, the
/// nominal model, is not replayed: the caller knows it), and the runs it took. Each replay
/// stops once its variant is missed for sure.
pub(super) fn holds_allowing(
    job: &Job,
    params: &Params,
    explicit_below: bool,
    vs: &[Variant],
    req: &Required,
) -> (bool, usize) {
    let Some(prep) = prepare(job, params, explicit_below) else {
        return (false, 0);
    };
    let allowed = req.allowed;
    let mut order = hardest_first(vs);
    order.retain(|i| !req.skip.contains(i));
    let target = job.target();
    let mut misses = 0;
    let mut runs = 0;
    for &i in &order {
        runs += 1;
        if p95_within(job, &prep, vs[i].choices) > target + 1e-9 {
            misses += 1;
            if misses > allowed {
                return (false, runs);
            }
        }
    }
    (true, runs)
}

/// The order [`holds_allowing`] tries the variants in: the model's pessimistic combinations,
/// the pool's slowest start, the load variants, then the rest (by kind, not by position, as
/// [`super::variants_for`] appends the pool's after the load variants). The first (the nominal
/// model, known already) is left out.
pub(super) fn hardest_first(vs: &[Variant]) -> Vec<usize> {
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
        .then(a.p95_exact.total_cmp(&b.p95_exact))
}

/// Check a tuned spec's text from scratch, as `validate` would, beside the spec it came from
/// (`original`: its path and base directory); the first error is why it cannot be written.
pub(super) fn recheck(
    text: String,
    original: &Checked,
    policy: &Policy,
) -> Result<Checked, String> {
    let checked = crate::check::check_source(
        text,
        &original.path,
        original.base_dir.clone(),
        policy,
        crate::catalog::prices::PriceTable::embedded(),
    );
    if let Some(first) = checked.diagnostics.iter().find(|d| d.is_error()) {
        return Err(format!(
            "the tuned spec does not validate: {}",
            first.message
        ));
    }
    Ok(checked)
}

/// How many candidates a cheapest-first walk checks under the variants at once: one per thread
/// of the pool. The walk stops at the first candidate that holds, so each one checked beside
/// it is wasted when it holds (a candidate that holds is replayed under every variant); a
/// wider chunk than the threads can run at once saves no time and wastes replays. The answer
/// does not depend on it: the candidates are looked at in the same order and the first that
/// holds is the same.
pub fn walk_chunk() -> usize {
    rayon::current_num_threads().max(1)
}
