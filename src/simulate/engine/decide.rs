//! One autoscale evaluation: aggregate a rule's metric and decide (pure).

use super::choices::ZeroInstances;
use super::setting::{Agg, Dir, Profile, Rule, Stat};

fn combine_stat(s: Stat, xs: &[f64]) -> f64 {
    match s {
        Stat::Average => xs.iter().sum::<f64>() / xs.len() as f64,
        Stat::Min => xs.iter().cloned().fold(f64::INFINITY, f64::min),
        Stat::Max => xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
        Stat::Sum => xs.iter().sum(),
        Stat::Count => xs.len() as f64,
    }
}

/// The rule's aggregated metric at the end of minute `t` (before any division), or `None`
/// when the window holds no sample.
pub fn aggregate(rule: &Rule, samples: &[Option<f64>], t: usize) -> Option<f64> {
    let g = rule.grain.max(1) as usize;
    let buckets = (rule.window.max(1) as usize / g).max(1);
    let mut vals: Vec<f64> = Vec::with_capacity(buckets);
    let mut last: Option<f64> = None;
    let mut xs: Vec<f64> = Vec::with_capacity(g);
    for b in 0..buckets {
        let hi = t as i64 - (b * g) as i64;
        let lo = hi - g as i64 + 1;
        if hi < 0 {
            break;
        }
        xs.clear();
        for m in lo.max(0)..=hi {
            if let Some(v) = samples.get(m as usize).copied().flatten() {
                xs.push(v);
            }
        }
        if xs.is_empty() {
            continue;
        }
        let v = combine_stat(rule.statistic, &xs);
        if last.is_none() {
            last = Some(v);
        }
        vals.push(v);
    }
    if vals.is_empty() {
        return None;
    }
    Some(match rule.aggregation {
        Agg::Average => vals.iter().sum::<f64>() / vals.len() as f64,
        Agg::Minimum => vals.iter().cloned().fold(f64::INFINITY, f64::min),
        Agg::Maximum => vals.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
        Agg::Total => vals.iter().sum(),
        Agg::Count => vals.len() as f64,
        Agg::Last => last.unwrap_or(0.0),
    })
}

/// The value a rule compares with its threshold at `n` instances.
fn observed(rule: &Rule, total: f64, n: u32, zero: ZeroInstances) -> Option<f64> {
    if !rule.per_instance {
        return Some(total);
    }
    match (n, zero) {
        (0, ZeroInstances::One) => Some(total),
        (0, ZeroInstances::Missing) => None,
        (n, _) => Some(total / f64::from(n)),
    }
}

fn apply(rule: &Rule, cur: u32) -> u32 {
    match rule.direction {
        Dir::Increase => cur.saturating_add(rule.change),
        Dir::Decrease => cur.saturating_sub(rule.change),
    }
}

/// The engine's decision at one evaluation, before clamping and the cooldown bookkeeping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Keep,
    /// Scale to the count, with the cooldown of the rule that fired.
    Scale(u32, u32),
    /// Every scale-in rule fired but every smaller count would flap.
    Deferred,
    /// The flapping guard raised the scale-in target.
    Reduced(u32, u32),
    /// No metric data: raise to the default.
    MissingMetric(u32),
}

/// Evaluate a profile's rules at `cur` instances with the aggregated metric totals `totals`
/// (one per rule; `None` when missing). Pure: the unit tests call it with hand-made numbers.
pub fn decide(
    profile: &Profile,
    totals: &[Option<f64>],
    cur: u32,
    zero: ZeroInstances,
) -> Decision {
    if profile.rules.is_empty() {
        return if cur != profile.default {
            Decision::Scale(profile.default, 0)
        } else {
            Decision::Keep
        };
    }
    let values: Vec<Option<f64>> = profile
        .rules
        .iter()
        .zip(totals)
        .map(|(r, t)| t.and_then(|t| observed(r, t, cur, zero)))
        .collect();
    if values.iter().any(Option::is_none) {
        return if cur < profile.default {
            Decision::MissingMetric(profile.default)
        } else {
            Decision::Keep
        };
    }
    let fired = |r: &Rule, v: f64| r.op.test(v, r.threshold);
    // scale out: any Increase rule; the highest result wins
    let mut out: Option<(u32, u32)> = None;
    for (r, v) in profile.rules.iter().zip(&values) {
        if r.direction == Dir::Increase && fired(r, v.unwrap_or(0.0)) {
            let n = apply(r, cur);
            if out.is_none_or(|(m, _)| n > m) {
                out = Some((n, r.cooldown));
            }
        }
    }
    if let Some((n, cd)) = out {
        return Decision::Scale(n, cd);
    }
    // scale in: only when every Decrease rule fires; the smallest step ("as little as possible")
    let ins: Vec<(&Rule, f64)> = profile
        .rules
        .iter()
        .zip(&values)
        .filter(|(r, _)| r.direction == Dir::Decrease)
        .map(|(r, v)| (r, v.unwrap_or(0.0)))
        .collect();
    if ins.is_empty() || !ins.iter().all(|(r, v)| fired(r, *v)) {
        return Decision::Keep;
    }
    let (target, cd) = ins
        .iter()
        .map(|(r, _)| (apply(r, cur), r.cooldown))
        .max_by_key(|(n, _)| *n)
        .unwrap_or((cur, 0));
    let target = target.max(profile.min);
    if target >= cur {
        return Decision::Keep;
    }
    // flapping guard: the lowest count from `target` up whose projected metric fires no
    // Increase rule
    for k in target..cur {
        let flaps = profile
            .rules
            .iter()
            .zip(totals)
            .filter(|(r, _)| r.direction == Dir::Increase)
            .any(|(r, t)| {
                let total = t.unwrap_or(0.0);
                let projected = if r.instance_averaged {
                    (k > 0).then(|| total * f64::from(cur) / f64::from(k))
                } else {
                    observed(r, total, k, zero)
                };
                projected.is_some_and(|v| fired(r, v))
            });
        if !flaps {
            return if k == target {
                Decision::Scale(k, cd)
            } else {
                Decision::Reduced(k, cd)
            };
        }
    }
    Decision::Deferred
}
