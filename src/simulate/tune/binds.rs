//! What binds when no policy holds under every variant (issue 40), and the change that would
//! make the proposal hold, with its cost.
//!
//! A fixed pool of the scale set's largest maximum, running all the time, is at least as fast
//! as any policy the spec can run (every policy runs at most that many instances, and a fixed
//! pool never waits for one to boot or loses a job to a scale-in): a variant that pool misses
//! cannot be met by any policy of that maximum ([`feasibility`]), and the search does not
//! require it. The smallest fixed pool that meets it is what `capacity.max` would need. A
//! variant the fixed pool meets but the proposal misses is a matter of reaction (the
//! scale-out comes too late for a slower provisioning or a later metric): a floor of instances
//! holds it. [`offers`] prices both changes on the proposal.

use rayon::prelude::*;
use serde::Serialize;

use super::super::engine::{Setting, Stop};
use super::params::Params;
use super::score::{Job, UnderVariants, replay_setting, score, under_variants};
use super::variants::Variant;
use crate::cost::format::money;
use crate::spec::model::Spec;

/// The most VMs a fixed pool is tried with when looking for what a variant needs (a scale set
/// of Flexible orchestration holds up to 1,000).
pub const MOST: u32 = 1000;

/// What a fixed pool of the scale set's largest maximum meets.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Feasibility {
    /// The scale set's largest maximum (`capacity.max` or a schedule's).
    pub top: u32,
    /// Per variant (in order): whether that pool, running all the time, meets the target.
    pub meets_at_top: Vec<bool>,
    /// The variants it misses: no policy of this maximum meets them.
    pub infeasible: Vec<usize>,
    /// For each of `infeasible`: the smallest fixed pool that meets the target (`None`: not
    /// within [`MOST`]).
    pub needs: Vec<Option<u32>>,
}

impl Feasibility {
    /// Nothing to check (the nominal mode).
    pub fn none(top: u32, n: usize) -> Feasibility {
        Feasibility {
            top,
            meets_at_top: vec![true; n],
            infeasible: Vec::new(),
            needs: Vec::new(),
        }
    }

    /// The instances the infeasible variants need at most (`None`: none is infeasible, or one
    /// needs more than [`MOST`]).
    pub fn needs_at_most(&self) -> Option<u32> {
        if self.needs.is_empty() || self.needs.iter().any(Option::is_none) {
            return None;
        }
        self.needs.iter().flatten().copied().max()
    }

    /// What a fixed pool needs under variant `i`, when it is infeasible.
    pub fn need_of(&self, i: usize) -> Option<Option<u32>> {
        self.infeasible
            .iter()
            .position(|&k| k == i)
            .map(|k| self.needs[k])
    }
}

/// The most instances the scale set can run: `capacity.max` or a schedule's maximum.
pub fn top_instances(spec: &Spec) -> u32 {
    let s = &spec.spec;
    s.autoscale
        .iter()
        .flat_map(|a| a.schedules.iter().map(|p| p.max))
        .chain([s.capacity.max])
        .max()
        .unwrap_or(s.capacity.max)
}

/// Whether a fixed pool of `n` meets the target under `v` (the replay stops at a sure miss).
fn fixed_meets(job: &Job, n: u32, v: &Variant) -> bool {
    let setting = Setting::fixed(n).with_zones(job.input.plan.compute.zones.len() as u32);
    let o = replay_setting(
        job,
        &setting,
        job.input.spec,
        v.choices,
        Some(Stop {
            wait_minutes: job.target(),
            quantile: job.settings.quantile,
        }),
    );
    !o.stopped && o.wait_percentile_exact(job.settings.quantile) <= job.target() + 1e-9
}

/// The smallest fixed pool above `top` that meets the target under `v` (doubling, then
/// halving; `None`: not within [`MOST`]).
fn need(job: &Job, top: u32, v: &Variant) -> Option<u32> {
    let mut lo = top; // misses
    let mut hi = (top.max(1) * 2).min(MOST);
    while !fixed_meets(job, hi, v) {
        if hi >= MOST {
            return None;
        }
        lo = hi;
        hi = (hi * 2).min(MOST);
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fixed_meets(job, mid, v) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

/// Which variants no policy of the spec's maximum can meet, and what they need.
pub fn feasibility(job: &Job, vs: &[Variant]) -> Feasibility {
    let top = top_instances(job.input.spec);
    let meets_at_top: Vec<bool> = vs.par_iter().map(|v| fixed_meets(job, top, v)).collect();
    let infeasible: Vec<usize> = (0..vs.len()).filter(|&i| !meets_at_top[i]).collect();
    let needs = infeasible
        .par_iter()
        .map(|&i| need(job, top, &vs[i]))
        .collect();
    Feasibility {
        top,
        meets_at_top,
        infeasible,
        needs,
    }
}

/// A variant the proposal misses, by how much, and what binds.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Miss {
    pub variant: String,
    /// The proposal's exact p95 under it (minutes), and how far over the target.
    pub p95: f64,
    pub over_minutes: f64,
    /// `capacityMax` (no policy of this maximum meets it) or `reaction` (the scale-out comes
    /// too late).
    pub binds: &'static str,
    /// With `capacityMax`: the instances a fixed pool needs under it (`None`: more than
    /// [`MOST`]).
    pub needs: Option<u32>,
    pub why: String,
}

/// The variants `u` misses (by the exact p95), explained.
pub fn misses(job: &Job, vs: &[Variant], u: &UnderVariants, f: &Feasibility) -> Vec<Miss> {
    let target = job.target();
    let max_key = if f.top == job.input.spec.spec.capacity.max {
        "`capacity.max`"
    } else {
        "the largest maximum (a schedule's)"
    };
    (0..vs.len())
        .filter(|&i| u.p95_exact.get(i).is_some_and(|p| *p > target + 1e-9))
        .map(|i| {
            let p95 = u.p95_exact[i];
            let name = &vs[i].name;
            match f.need_of(i) {
                Some(needs) => Miss {
                    variant: name.clone(),
                    p95,
                    over_minutes: p95 - target,
                    binds: "capacityMax",
                    needs,
                    why: format!(
                        "{max_key} {}: with {name} even {} instances all the time miss p95 <= {target} min; {}",
                        f.top,
                        f.top,
                        match needs {
                            Some(n) => format!("the pool needs {n}"),
                            None => format!("not even {MOST} meet it"),
                        }
                    ),
                },
                None => Miss {
                    variant: name.clone(),
                    p95,
                    over_minutes: p95 - target,
                    binds: "reaction",
                    needs: None,
                    why: format!(
                        "with {name} the scale-out comes too late (p95 {p95:.1} min); {} instances running all the time would meet it",
                        f.top
                    ),
                },
            }
        })
        .collect()
}

/// A change to the spec that makes the proposal hold under every variant, and what it costs.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Offer {
    /// The change, in the spec's words (`capacity.max: 7`, `capacity.min: 2`).
    pub change: String,
    pub capacity_max: Option<u32>,
    pub capacity_min: Option<u32>,
    /// Whether the proposal then holds under every variant, and its worst exact p95.
    pub holds: bool,
    pub worst_p95: f64,
    pub pool_monthly: Option<f64>,
    /// Monthly pool cost over the proposal's.
    pub extra_monthly: Option<f64>,
    pub text: String,
}

/// The spec with every maximum at the old top raised to `n`.
fn raised(spec: &Spec, top: u32, n: u32) -> Spec {
    let mut s = spec.clone();
    if s.spec.capacity.max == top {
        s.spec.capacity.max = n;
    }
    if let Some(a) = s.spec.autoscale.as_mut() {
        for sc in a.schedules.iter_mut().filter(|x| x.max == top) {
            sc.max = n;
        }
    }
    s
}

/// `p` with a floor of `k` instances on `spec` (the schedules' minimums at least `k`), each
/// minimum within its maximum.
fn floored(spec: &Spec, p: &Params, k: u32) -> Params {
    let mut q = p.clone();
    q.capacity_min = q.capacity_min.max(k).min(spec.spec.capacity.max);
    let maxes = spec
        .spec
        .autoscale
        .iter()
        .flat_map(|a| a.schedules.iter().map(|x| x.max));
    for (m, mx) in q.schedule_mins.iter_mut().zip(maxes) {
        *m = (*m).max(k).min(mx);
    }
    q.clamp_defaults();
    q
}

/// The changes that make `proposal` hold under every variant: the maximum the infeasible
/// variants need (when the proposal misses one), and the smallest floor that holds the rest
/// (with that maximum), each priced; `monthly` is the proposal's pool cost.
pub fn offers(
    job: &Job,
    proposal: &Params,
    explicit_below: bool,
    vs: &[Variant],
    f: &Feasibility,
    misses: &[Miss],
    monthly: Option<f64>,
) -> Vec<Offer> {
    if misses.is_empty() {
        return Vec::new();
    }
    let capacity_bound = misses.iter().any(|m| m.binds == "capacityMax");
    let max = match (capacity_bound, f.needs_at_most()) {
        (true, Some(n)) => Some(n),
        (true, None) => {
            return vec![Offer {
                change: "capacity.max".into(),
                capacity_max: None,
                capacity_min: None,
                holds: false,
                worst_p95: f64::INFINITY,
                pool_monthly: None,
                extra_monthly: None,
                text: format!(
                    "no change of capacity.max up to {MOST} instances meets every variant: lower the job time or the load, or loosen the target"
                ),
            }];
        }
        (false, _) => None,
    };
    let spec = max.map(|n| raised(job.input.spec, f.top, n));
    let input = super::super::Input {
        spec: spec.as_ref().unwrap_or(job.input.spec),
        ..*job.input
    };
    let j = Job {
        input: &input,
        ..*job
    };
    let target = job.target();
    let all_hold = |p: &Params| {
        let u = under_variants(&j, p, explicit_below, vs, None);
        (u.p95_exact.iter().all(|x| *x <= target + 1e-9), u)
    };
    let priced = |p: &Params, change: String, cmax: Option<u32>, cmin: Option<u32>| {
        let (holds, u) = all_hold(p);
        let s = score(&j, p, explicit_below);
        let pool = s.as_ref().and_then(|s| s.pool_monthly);
        let extra = pool.zip(monthly).map(|(a, b)| a - b);
        let text = format!(
            "{change}: the proposal then {} (worst p95 {:.1} min){}",
            if holds {
                format!("holds under all {} variants", vs.len())
            } else {
                format!("meets {} of the {} variants", u.meeting, vs.len())
            },
            u.p95_exact.iter().copied().fold(0.0, f64::max),
            match (pool, extra) {
                (Some(p), Some(e)) => format!(
                    ", {}/month ({}{}/month)",
                    money(p),
                    if e >= 0.0 { "+" } else { "-" },
                    money(e.abs())
                ),
                (Some(p), None) => format!(", {}/month", money(p)),
                _ => String::new(),
            }
        );
        Offer {
            change,
            capacity_max: cmax,
            capacity_min: cmin,
            holds,
            worst_p95: u.p95_exact.iter().copied().fold(0.0, f64::max),
            pool_monthly: pool,
            extra_monthly: extra,
            text,
        }
    };
    let mut out = Vec::new();
    let max_change = max.map(|n| format!("capacity.max: {n}"));
    if let Some(n) = max {
        let o = priced(
            proposal,
            max_change.clone().unwrap_or_default(),
            Some(n),
            None,
        );
        let done = o.holds;
        out.push(o);
        if done {
            return out;
        }
    }
    // the smallest floor (with the raised maximum) that holds: binary search, holding grows
    // with the floor
    let top = max.unwrap_or(f.top);
    let (mut lo, mut hi) = (proposal.capacity_min, top);
    if !all_hold(&floored(input.spec, proposal, hi)).0 {
        out.push(Offer {
            change: "capacity.min".into(),
            capacity_max: max,
            capacity_min: None,
            holds: false,
            worst_p95: f64::INFINITY,
            pool_monthly: None,
            extra_monthly: None,
            text: format!(
                "not even a floor of {top} instances (all of them, all the time) holds every variant{}",
                max_change.map_or(String::new(), |c| format!(" with {c}"))
            ),
        });
        return out;
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if all_hold(&floored(input.spec, proposal, mid)).0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let change = match &max_change {
        Some(c) => format!("{c} and capacity.min: {hi}"),
        None => format!("capacity.min: {hi}"),
    };
    out.push(priced(
        &floored(input.spec, proposal, hi),
        change,
        max,
        Some(hi),
    ));
    out
}
