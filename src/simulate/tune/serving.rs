//! `--tune --latency-p95` for a request-driven pool: the cheapest policy on
//! `AvgRequestCountPerHealthyHost` that holds the latency target under the queue tuner's
//! variants.
//!
//! The knobs are the queue tuner's ([`Params`]: target per instance, scale-out step and
//! aggregation, cooldowns, window, floors), drawn from the same values ([`super::space`]),
//! except the targets: requests a minute per healthy VM, as shares of what one VM serves at
//! full load (`60 × concurrency / service time`). The variants are the queue tuner's
//! ([`super::variants`]) read for a gateway metric: the other queue-metric reading becomes
//! the other reading of the per-host value with no healthy host, and spread arrivals are left
//! out (the request simulation already draws arrivals within the minute; the pessimistic
//! combination keeps its late metric and slow provisioning).
//!
//! Every candidate is screened with the analytic model (a week in a few milliseconds); the
//! cheapest that hold under the variants are confirmed with the request simulation, the
//! proposal being the first the simulation confirms. When none holds under every variant, the
//! proposal is the one that holds under the most (then the cheapest), with the variants it
//! misses named.

use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use super::super::engine::{Choices, Setting, ZeroInstances};
use super::super::load::Trace;
use super::super::serving::{self, Model, Screened, des, pool};
use super::params::Params;
use super::space::{IN_COOLDOWNS, OUT_COOLDOWNS, STEPS, WINDOWS, floor_options};
use super::variants::variants;
use crate::cost::usage::Priority;
use crate::spec::model::ScaleOutAggregation;

/// The targets tried, as shares of one VM's requests a minute at full load.
pub const TARGET_SHARES: &[f64] = &[
    0.25, 0.35, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0, 1.1,
];

/// A serving variant: a name and the choices.
#[derive(Debug, Clone, Serialize)]
pub struct Variant {
    pub name: String,
    #[serde(skip)]
    pub choices: Choices,
}

/// The queue tuner's variants read for the gateway's metric (see the module's comment).
pub fn serving_variants(base: Choices) -> Vec<Variant> {
    let queue = variants(Choices {
        queue_metric_counts_in_service: false,
        ..base
    });
    let mut out: Vec<Variant> = Vec::new();
    for v in queue {
        let mut c = v.choices;
        let mut v = v;
        if c.arrivals != base.arrivals {
            // the request simulation draws arrivals within the minute itself: keep the rest
            c.arrivals = base.arrivals;
            v.name = v
                .name
                .split(", ")
                .filter(|part| !part.contains("spread"))
                .collect::<Vec<_>>()
                .join(", ");
        }
        let other = c.queue_metric_counts_in_service;
        c.queue_metric_counts_in_service = base.queue_metric_counts_in_service;
        if other {
            c.zero_instances = match base.zero_instances {
                ZeroInstances::Missing => ZeroInstances::One,
                ZeroInstances::One => ZeroInstances::Missing,
            };
        }
        let name = if other {
            v.name.replacen(
                &v.name[..v.name.find(',').unwrap_or(v.name.len())],
                match c.zero_instances {
                    ZeroInstances::One => "no healthy host: requests / 1",
                    ZeroInstances::Missing => "no healthy host: no value",
                },
                1,
            )
        } else {
            v.name.clone()
        };
        if !name.is_empty() && !out.iter().any(|o| o.choices == c) {
            out.push(Variant { name, choices: c });
        }
    }
    out
}

/// What a serving tune needs. The spec side (a policy's setting, its monthly pool cost) comes
/// in as functions, so the search runs on any setting the plan can make.
pub struct Job<'a> {
    pub trace: &'a Trace,
    pub model: &'a Model,
    pub priority: &'a Priority,
    pub choices: Choices,
    pub seed: u64,
    /// The autoscale setting render would emit for a policy.
    pub setting_of: &'a (dyn Fn(&Params) -> Result<Setting, String> + Sync),
    /// The monthly pool cost of `(instance minutes, spot minutes, trace minutes)` (`None`:
    /// a price is missing; VM-hours decide then).
    pub price_of: &'a (dyn Fn(u64, u64, usize) -> Option<f64> + Sync),
    /// Share of the variants a proposal must hold under (`None`: the nominal model only).
    pub robust_share: Option<f64>,
}

/// One policy, screened.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    pub params: Params,
    pub nominal: Screened,
    pub pool_monthly: Option<f64>,
}

impl Candidate {
    fn cost(&self) -> f64 {
        self.pool_monthly
            .unwrap_or(self.nominal.instance_minutes as f64 / 60.0)
    }
}

/// A candidate under every variant.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnderVariants {
    /// The latency quantile per variant, seconds (`null`: too many requests fail).
    pub latency: Vec<Option<f64>>,
    pub within_target: Vec<f64>,
    pub holds: Vec<bool>,
    pub held: usize,
}

/// What the tune found.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Tuned {
    pub candidates: usize,
    pub meeting: usize,
    pub elapsed_ms: u128,
    pub variants: Vec<Variant>,
    pub share: f64,
    pub before: Candidate,
    pub before_under: Option<UnderVariants>,
    pub best: Option<Candidate>,
    pub best_under: Option<UnderVariants>,
    /// The proposal holds under the share of variants asked for (else it is the one that holds
    /// under the most).
    pub robust: bool,
    /// The request simulation's latency quantile and share within the target for the proposal.
    pub confirmed_latency: Option<f64>,
    pub confirmed_within: Option<f64>,
    /// Candidates the request simulation did not confirm before the proposal.
    pub rejected_by_simulation: usize,
    pub reason: Option<String>,
}

fn screen(job: &Job, p: &Params, choices: &Choices) -> Option<(Screened, Option<f64>)> {
    let setting = (job.setting_of)(p).ok()?;
    let s = serving::screen(
        &setting,
        job.trace,
        job.priority,
        choices,
        job.model,
        job.seed,
    );
    let cost = (job.price_of)(s.instance_minutes, s.spot_minutes, s.minutes);
    Some((s, cost))
}

fn candidate(job: &Job, p: &Params) -> Option<Candidate> {
    let (s, cost) = screen(job, p, &job.choices)?;
    Some(Candidate {
        params: p.clone(),
        nominal: s,
        pool_monthly: cost,
    })
}

fn under(job: &Job, p: &Params, vs: &[Variant]) -> UnderVariants {
    let r: Vec<Option<Screened>> = vs
        .par_iter()
        .map(|v| screen(job, p, &v.choices).map(|x| x.0))
        .collect();
    let holds: Vec<bool> = r
        .iter()
        .map(|s| s.as_ref().is_some_and(|s| s.meets))
        .collect();
    UnderVariants {
        latency: r
            .iter()
            .map(|s| s.as_ref().and_then(|s| s.latency))
            .collect(),
        within_target: r
            .iter()
            .map(|s| s.as_ref().map_or(0.0, |s| s.within_target))
            .collect(),
        held: holds.iter().filter(|h| **h).count(),
        holds,
    }
}

/// Holds under `share` of the variants: the slow and late ones first, stopping at the first
/// miss too many.
fn holds(job: &Job, p: &Params, vs: &[Variant], share: f64) -> bool {
    let allowed = super::score::allowed_misses(vs.len(), share);
    let mut order: Vec<usize> = (1..vs.len()).collect();
    order.sort_by(|&a, &b| {
        let key = |i: usize| {
            let c = &vs[i].choices;
            (
                !c.load.is_nominal(),
                (c.provisioning_factor * 100.0) as u32,
                c.metric_delay_minutes,
            )
        };
        key(b).cmp(&key(a))
    });
    let mut misses = 0;
    for i in order {
        if !screen(job, p, &vs[i].choices).is_some_and(|s| s.0.meets) {
            misses += 1;
            if misses > allowed {
                return false;
            }
        }
    }
    true
}

/// The scale-out aggregations a request rule can use: the gateway's metric lists only
/// `Average` ([`crate::facts::serving::REQUEST_METRIC_STATISTIC`]; validate refuses the others
/// with `requests-aggregation`), so the queue tuner's Maximum and Last are not tried.
const REQUEST_AGGREGATIONS: [ScaleOutAggregation; 1] = [ScaleOutAggregation::Average];

/// Stage 1: target × step × scale-out cooldown around `before`, at the aggregation the
/// gateway's metric allows.
fn stage1(before: &Params, m: &Model) -> Vec<Params> {
    let cap = m.capacity_per_minute();
    let mut targets: Vec<u32> = TARGET_SHARES
        .iter()
        .map(|s| ((cap * s).round() as u32).max(1))
        .collect();
    targets.push(before.target_per_instance);
    targets.sort_unstable();
    targets.dedup();
    let mut v = vec![before.clone()];
    for &agg in &REQUEST_AGGREGATIONS {
        for &t in &targets {
            for &s in STEPS {
                for &c in OUT_COOLDOWNS {
                    let mut p = before.clone();
                    p.target_per_instance = t;
                    p.scale_out_step = s;
                    p.scale_out_cooldown_minutes = c;
                    p.scale_out_aggregation = agg;
                    p.scale_out_tiers.clear();
                    if !v.contains(&p) {
                        v.push(p);
                    }
                }
            }
        }
    }
    v
}

/// Stage 2: scale-in cooldown × window × floors around `base`.
fn stage2(base: &Params) -> Vec<Params> {
    let mut v = Vec::new();
    for &ic in IN_COOLDOWNS {
        for &w in WINDOWS {
            for (cmin, smins) in floor_options(base) {
                let mut p = base.clone();
                p.scale_in_cooldown_minutes = ic;
                p.time_window_minutes = w;
                p.capacity_min = cmin;
                p.schedule_mins = smins;
                p.clamp_defaults();
                if !v.contains(&p) {
                    v.push(p);
                }
            }
        }
    }
    v
}

fn sorted(mut v: Vec<Candidate>) -> Vec<Candidate> {
    v.sort_by(|a, b| {
        a.cost()
            .total_cmp(&b.cost())
            .then(a.nominal.instance_minutes.cmp(&b.nominal.instance_minutes))
    });
    v
}

/// The cheapest of `meeting` (cheapest first) that holds, checked a few at a time.
fn first_holding<'c>(
    job: &Job,
    meeting: &'c [Candidate],
    vs: &[Variant],
    share: f64,
    want: usize,
) -> Vec<&'c Candidate> {
    let mut out = Vec::new();
    for chunk in meeting.chunks(super::score::walk_chunk()) {
        let ok: Vec<bool> = chunk
            .par_iter()
            .map(|c| holds(job, &c.params, vs, share))
            .collect();
        for (c, ok) in chunk.iter().zip(ok) {
            if ok {
                out.push(c);
                if out.len() == want {
                    return out;
                }
            }
        }
    }
    out
}

/// Search, screen under the variants, confirm with the request simulation.
pub fn tune(job: &Job, before: &Params) -> Result<Tuned, String> {
    let started = Instant::now();
    let vs = match job.robust_share {
        Some(_) => serving_variants(job.choices),
        None => vec![Variant {
            name: "nominal".into(),
            choices: job.choices,
        }],
    };
    let share = job.robust_share.unwrap_or(1.0);
    let before_c =
        candidate(job, before).ok_or("the spec's own policy does not make an autoscale setting")?;
    let mut all: Vec<Candidate> = stage1(before, job.model)
        .par_iter()
        .filter_map(|p| candidate(job, p))
        .collect();
    let meeting1 = sorted(all.iter().filter(|c| c.nominal.meets).cloned().collect());
    // stage 2 around the cheapest that hold (or, when none does, the three cheapest that meet)
    let mut bases: Vec<Params> = first_holding(job, &meeting1, &vs, share, 3)
        .into_iter()
        .map(|c| c.params.clone())
        .collect();
    if bases.is_empty() {
        bases = meeting1.iter().take(3).map(|c| c.params.clone()).collect();
    }
    let mut s2: Vec<Params> = Vec::new();
    for b in &bases {
        for p in stage2(b) {
            if !s2.contains(&p) && !all.iter().any(|c| c.params == p) {
                s2.push(p);
            }
        }
    }
    all.extend(
        s2.par_iter()
            .filter_map(|p| candidate(job, p))
            .collect::<Vec<_>>(),
    );
    let candidates = all.len();
    let meeting = sorted(all.iter().filter(|c| c.nominal.meets).cloned().collect());
    let n_meeting = meeting.len();
    let before_under = job.robust_share.map(|_| under(job, before, &vs));
    // confirm cheapest-first with the request simulation
    let mut rejected = 0;
    let mut best: Option<(Candidate, f64, Option<f64>)> = None;
    let mut robust = false;
    'walk: for chunk in meeting.chunks(super::score::walk_chunk()) {
        let ok: Vec<bool> = chunk
            .par_iter()
            .map(|c| holds(job, &c.params, &vs, share))
            .collect();
        for (c, ok) in chunk.iter().zip(ok) {
            if !ok {
                continue;
            }
            let (within, lat) = confirm(job, &c.params)?;
            if within + 1e-12 >= job.model.quantile {
                best = Some((c.clone(), within, lat));
                robust = true;
                break 'walk;
            }
            rejected += 1;
            if rejected >= 8 {
                break 'walk;
            }
        }
    }
    let mut reason = None;
    if best.is_none() && !meeting.is_empty() {
        // none holds under the share asked: the one that holds under the most, then the
        // cheapest, confirmed nominally
        let pool: Vec<&Candidate> = meeting.iter().take(24).collect();
        let counted: Vec<usize> = pool
            .par_iter()
            .map(|c| under(job, &c.params, &vs).held)
            .collect();
        let most = counted.iter().copied().max().unwrap_or(0);
        for (c, n) in pool.iter().zip(&counted) {
            if *n == most {
                let (within, lat) = confirm(job, &c.params)?;
                best = Some(((*c).clone(), within, lat));
                break;
            }
        }
        reason = Some(format!(
            "no policy of the {candidates} tried holds the target under {} of the {} variants: the proposal holds under {most} (the variants it misses are marked)",
            if share >= 1.0 {
                "all".to_string()
            } else {
                format!("{:.0} %", share * 100.0)
            },
            vs.len()
        ));
    }
    if best.is_none() {
        let fastest = all
            .iter()
            .filter_map(|c| c.nominal.latency)
            .fold(f64::INFINITY, f64::min);
        reason = Some(format!(
            "no policy of the {candidates} tried meets p{:.0} <= {} in the analytic model (the best reaches {}): raise capacity.max, add concurrency or shorten the model load time",
            job.model.quantile * 100.0,
            serving::report::secs(job.model.latency_target_seconds),
            serving::report::secs(fastest)
        ));
    }
    let best_under = match (&best, job.robust_share) {
        (Some((c, _, _)), Some(_)) => Some(under(job, &c.params, &vs)),
        _ => None,
    };
    Ok(Tuned {
        candidates,
        meeting: n_meeting,
        elapsed_ms: started.elapsed().as_millis(),
        variants: vs,
        share,
        before: before_c,
        before_under,
        confirmed_within: best.as_ref().map(|b| b.1),
        confirmed_latency: best.as_ref().and_then(|b| b.2),
        best: best.map(|b| b.0),
        best_under,
        robust,
        rejected_by_simulation: rejected,
        reason,
    })
}

/// The request simulation of `p` in the nominal model: the share within the target and the
/// latency quantile.
fn confirm(job: &Job, p: &Params) -> Result<(f64, Option<f64>), String> {
    let setting = (job.setting_of)(p)?;
    let (t, pl): (Trace, pool::Pool) = serving::replay(
        &setting,
        job.trace,
        job.priority,
        &job.choices,
        job.model,
        job.seed,
    );
    let s = des::run(&pl, &t, &job.model.knobs(), job.seed);
    let within = if s.requests == 0 {
        1.0
    } else {
        s.latency.at_most(job.model.latency_target_seconds) as f64 / s.requests as f64
    };
    Ok((within, s.latency.percentile(job.model.quantile, s.failed())))
}

#[cfg(test)]
mod tests {
    use super::super::super::engine::{Agg, Dir, Op, Profile, Rule, Stat};
    use super::*;
    use crate::spec::defaults::flap_safe_scale_in;

    /// The setting a request trigger renders to, written out here (the plan's own function
    /// needs a whole spec).
    fn setting_of(p: &Params) -> Result<Setting, String> {
        let rule = |direction, op, threshold: u32, cooldown, change, aggregation| Rule {
            metric: "AvgRequestCountPerHealthyHost".into(),
            per_instance: false,
            instance_averaged: true,
            grain: 1,
            window: p.time_window_minutes,
            statistic: Stat::Average,
            aggregation,
            op,
            threshold: f64::from(threshold),
            direction,
            change,
            cooldown,
        };
        let out_agg = match p.scale_out_aggregation {
            ScaleOutAggregation::Average => Agg::Average,
            ScaleOutAggregation::Maximum => Agg::Maximum,
            ScaleOutAggregation::Last => Agg::Last,
        };
        Ok(Setting {
            profiles: vec![Profile {
                name: "default".into(),
                min: p.capacity_min,
                max: 10,
                default: p.capacity_default.unwrap_or(p.capacity_min).max(1),
                recurrence: None,
                rules: vec![
                    rule(
                        Dir::Increase,
                        Op::Gt,
                        p.target_per_instance,
                        p.scale_out_cooldown_minutes,
                        p.scale_out_step,
                        out_agg,
                    ),
                    rule(
                        Dir::Decrease,
                        Op::Lt,
                        flap_safe_scale_in(p.target_per_instance, p.capacity_min),
                        p.scale_in_cooldown_minutes,
                        1,
                        Agg::Average,
                    ),
                ],
            }],
            zones: 1,
        })
    }

    fn day(minutes: usize) -> Trace {
        // a smooth day between 40 and 1,000 requests a minute
        let arrivals = (0..minutes)
            .map(|t| {
                let x = (t % 1440) as f64 / 1440.0 * std::f64::consts::TAU;
                (40.0 + 960.0 * 0.5 * (1.0 - x.cos())).round() as u32
            })
            .collect::<Vec<u32>>();
        Trace {
            start: "2026-11-02T00:00:00Z".parse().unwrap(),
            missing: vec![false; arrivals.len()],
            arrivals,
            source: "test".into(),
        }
    }

    fn model() -> Model {
        Model {
            concurrency: 16,
            service_seconds: 4.0,
            service_from: "test".into(),
            service_p95_seconds: 4.0 * crate::simulate::serving::erlang::EXP_P95_FACTOR,
            service_p95_from: "test".into(),
            ready_minutes: 12,
            ready_from: "test".into(),
            latency_target_seconds: 14.0,
            quantile: 0.95,
            request_timeout_seconds: 300.0,
            drain_seconds: 300.0,
            spot_evictions_per_hour: 0.0,
            gpus_per_instance: 1.0,
        }
    }

    fn before() -> Params {
        Params {
            target_per_instance: 200,
            scale_in_below: 0,
            scale_out_step: 1,
            scale_out_tiers: vec![],
            scale_out_aggregation: ScaleOutAggregation::Average,
            scale_out_cooldown_minutes: 5,
            scale_in_cooldown_minutes: 15,
            time_window_minutes: 5,
            capacity_min: 1,
            schedule_mins: vec![],
            capacity_default: None,
            schedule_defaults: vec![],
        }
    }

    #[test]
    fn variants_read_for_the_gateway() {
        let base = serving::choices(Choices::default(), false);
        let vs = serving_variants(base);
        assert_eq!(vs[0].choices, base);
        // spread arrivals are dropped (alone: a duplicate of nominal; in the pessimistic
        // combination: the rest kept); the other reading is the zero-host reading
        assert!(vs.iter().all(|v| v.choices.arrivals == base.arrivals));
        assert!(vs.iter().all(|v| !v.choices.queue_metric_counts_in_service));
        assert!(
            vs.iter()
                .any(|v| v.choices.zero_instances == ZeroInstances::One
                    && v.name.starts_with("no healthy host"))
        );
        assert!(vs.iter().any(|v| !v.choices.load.is_nominal()));
        assert!(vs.iter().any(|v| v.choices.provisioning_factor > 1.0));
        assert_eq!(vs.len(), variants(base).len() - 1);
    }

    #[test]
    fn proposes_a_cheaper_policy_the_simulation_confirms() {
        let trace = day(2 * 1440);
        let m = model();
        let price = |minutes: u64, _spot: u64, _len: usize| Some(minutes as f64 / 60.0 * 2.0);
        let job = Job {
            trace: &trace,
            model: &m,
            priority: &Priority::Regular,
            choices: serving::choices(Choices::default(), false),
            seed: 1,
            setting_of: &setting_of,
            price_of: &price,
            robust_share: Some(1.0),
        };
        let t = tune(&job, &before()).unwrap();
        let best = t.best.as_ref().expect("a proposal");
        assert!(t.robust, "{:?}", t.reason);
        // it holds in the analytic model under every variant and in the request simulation
        let u = t.best_under.as_ref().unwrap();
        assert_eq!(u.held, t.variants.len(), "{u:?}");
        assert!(t.confirmed_within.unwrap() >= 0.95);
        assert!(t.confirmed_latency.unwrap() <= 14.0);
        // and costs no more than the spec's policy when that holds too
        if t.before_under
            .as_ref()
            .is_some_and(|u| u.held == t.variants.len())
        {
            assert!(best.cost() <= t.before.cost() + 1e-9);
        }
        // Average only (the gateway metric's one aggregation): some 300 candidates
        assert!(t.candidates > 250, "{}", t.candidates);
    }
}
