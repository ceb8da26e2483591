//! One autoscale evaluation: aggregate a rule's metric and decide (pure).

use super::choices::ZeroInstances;
use super::setting::{Agg, Dir, Profile, Rule, Stat};

/// The rule's aggregated metric at the end of minute `t` (before any division), or `None`
/// when the window holds no sample. The grains are combined newest first, each over its
/// minutes in order, without allocating (the replay calls this for every rule every minute);
/// the sums run in the same order as a plain per-grain collection would, so the values are the
/// same to the bit (`tests::aggregate_equals_the_collecting_form`).
pub fn aggregate(rule: &Rule, samples: &[Option<f64>], t: usize) -> Option<f64> {
    let g = rule.grain.max(1) as usize;
    let buckets = (rule.window.max(1) as usize / g).max(1);
    let (mut n, mut sum, mut min, mut max) = (0usize, 0.0f64, f64::INFINITY, f64::NEG_INFINITY);
    let mut last: Option<f64> = None;
    for b in 0..buckets {
        let hi = t as i64 - (b * g) as i64;
        let lo = hi - g as i64 + 1;
        if hi < 0 {
            break;
        }
        let (mut k, mut s, mut lo_v, mut hi_v) = (0usize, 0.0f64, f64::INFINITY, f64::NEG_INFINITY);
        let end = (hi as usize + 1).min(samples.len());
        let from = (lo.max(0) as usize).min(end);
        for v in samples[from..end].iter().flatten() {
            k += 1;
            s += *v;
            lo_v = lo_v.min(*v);
            hi_v = hi_v.max(*v);
        }
        if k == 0 {
            continue;
        }
        let v = match rule.statistic {
            Stat::Average => s / k as f64,
            Stat::Min => lo_v,
            Stat::Max => hi_v,
            Stat::Sum => s,
            Stat::Count => k as f64,
        };
        if last.is_none() {
            last = Some(v);
        }
        n += 1;
        sum += v;
        min = min.min(v);
        max = max.max(v);
    }
    if n == 0 {
        return None;
    }
    Some(match rule.aggregation {
        Agg::Average => sum / n as f64,
        Agg::Minimum => min,
        Agg::Maximum => max,
        Agg::Total => sum,
        Agg::Count => n as f64,
        Agg::Last => last.unwrap_or(0.0),
    })
}

/// The queue metric's samples as the replay records them (whole messages, or none for a
/// minute without data), with running sums, so that a rule of one-minute grains with a value
/// statistic (the rules render emits) is aggregated without walking its window for the average,
/// total and count ([`Samples::aggregate`]). The samples are integers, so every sum is exact and
/// the values are [`aggregate`]'s to the bit (`tests::samples_aggregate_as_aggregate_does`).
#[derive(Debug, Default)]
pub(super) struct Samples {
    /// The sample per minute (0 where missing) and whether it is present.
    values: Vec<u64>,
    present: Vec<bool>,
    /// Sums and counts of the present samples before each minute.
    sum: Vec<u64>,
    count: Vec<u64>,
    /// The same samples as [`aggregate`] reads them (the general path).
    pub floats: Vec<Option<f64>>,
}

impl Samples {
    pub fn with_capacity(n: usize) -> Samples {
        let mut s = Samples {
            values: Vec::with_capacity(n),
            present: Vec::with_capacity(n),
            sum: Vec::with_capacity(n + 1),
            count: Vec::with_capacity(n + 1),
            floats: Vec::with_capacity(n),
        };
        s.sum.push(0);
        s.count.push(0);
        s
    }

    /// The next minute's sample (`None`: no data).
    pub fn push(&mut self, v: Option<u64>) {
        let (s, c) = (
            *self.sum.last().unwrap_or(&0),
            *self.count.last().unwrap_or(&0),
        );
        self.values.push(v.unwrap_or(0));
        self.present.push(v.is_some());
        self.sum.push(s + v.unwrap_or(0));
        self.count.push(c + u64::from(v.is_some()));
        self.floats.push(v.map(|x| x as f64));
    }

    /// [`aggregate`] of the samples so far, at minute `t`.
    pub fn aggregate(&self, rule: &Rule, t: usize) -> Option<f64> {
        let value_stat = matches!(
            rule.statistic,
            Stat::Average | Stat::Min | Stat::Max | Stat::Sum
        );
        if rule.grain.max(1) != 1 || !value_stat || t >= self.values.len() {
            return aggregate(rule, &self.floats, t);
        }
        let w = (rule.window.max(1) as usize).min(t + 1);
        let lo = t + 1 - w;
        let n = self.count[t + 1] - self.count[lo];
        if n == 0 {
            return None;
        }
        let present = || {
            (lo..=t)
                .filter(|&m| self.present[m])
                .map(|m| self.values[m])
        };
        Some(match rule.aggregation {
            Agg::Average => (self.sum[t + 1] - self.sum[lo]) as f64 / n as f64,
            Agg::Total => (self.sum[t + 1] - self.sum[lo]) as f64,
            Agg::Count => n as f64,
            Agg::Minimum => present().min().unwrap_or(0) as f64,
            Agg::Maximum => present().max().unwrap_or(0) as f64,
            Agg::Last => present().last().unwrap_or(0) as f64,
        })
    }
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
    // each rule's value at `cur` instances (`None`: missing), computed where it is read: the
    // replay evaluates every minute, so nothing is collected
    // (the rules with a total: as many as both have)
    let n = profile.rules.len().min(totals.len());
    let value = |i: usize| -> Option<f64> {
        totals[i].and_then(|t| observed(&profile.rules[i], t, cur, zero))
    };
    if (0..n).any(|i| value(i).is_none()) {
        return if cur < profile.default {
            Decision::MissingMetric(profile.default)
        } else {
            Decision::Keep
        };
    }
    let fired = |r: &Rule, v: f64| r.op.test(v, r.threshold);
    // scale out: any Increase rule; the highest result wins
    let mut out: Option<(u32, u32)> = None;
    for (i, r) in profile.rules[..n].iter().enumerate() {
        if r.direction == Dir::Increase && fired(r, value(i).unwrap_or(0.0)) {
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
    let ins = || {
        profile.rules[..n]
            .iter()
            .enumerate()
            .filter(|(_, r)| r.direction == Dir::Decrease)
            .map(|(i, r)| (r, value(i).unwrap_or(0.0)))
    };
    if ins().next().is_none() || !ins().all(|(r, v)| fired(r, v)) {
        return Decision::Keep;
    }
    let (target, cd) = ins()
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

#[cfg(test)]
mod tests {
    //! The replay's allocation-free `aggregate` and `decide` against the collecting forms they
    //! replaced (kept here, verbatim, as the reference): the same values to the bit and the same
    //! decisions, over generated rules, samples and totals.

    use proptest::prelude::*;

    use super::super::choices::ZeroInstances;
    use super::super::setting::{Agg, Dir, Op, Profile, Rule, Stat};
    use super::{Decision, aggregate, decide};

    mod reference {
        use super::super::super::choices::ZeroInstances;
        use super::super::super::setting::{Agg, Dir, Profile, Rule, Stat};
        use super::super::{Decision, apply, observed};

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
        pub(super) fn aggregate(rule: &Rule, samples: &[Option<f64>], t: usize) -> Option<f64> {
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

        pub(super) fn decide(
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
    }

    fn rule(
        (per_instance, averaged, grain, window): (bool, bool, u32, u32),
        (stat, agg, op, dir): (usize, usize, usize, bool),
        (threshold, change, cooldown): (u32, u32, u32),
    ) -> Rule {
        Rule {
            metric: "m".into(),
            per_instance,
            instance_averaged: averaged,
            grain,
            window,
            statistic: [Stat::Average, Stat::Min, Stat::Max, Stat::Sum, Stat::Count][stat],
            aggregation: [
                Agg::Average,
                Agg::Minimum,
                Agg::Maximum,
                Agg::Total,
                Agg::Count,
                Agg::Last,
            ][agg],
            op: [Op::Eq, Op::Ne, Op::Gt, Op::Ge, Op::Lt, Op::Le][op],
            threshold: f64::from(threshold),
            direction: if dir { Dir::Increase } else { Dir::Decrease },
            change,
            cooldown,
        }
    }

    fn rules() -> impl Strategy<Value = Rule> {
        (
            (any::<bool>(), any::<bool>(), 0u32..4, 0u32..16),
            (0usize..5, 0usize..6, 0usize..6, any::<bool>()),
            (0u32..40, 0u32..5, 0u32..20),
        )
            .prop_map(|(a, b, c)| rule(a, b, c))
    }

    fn bits(v: Option<f64>) -> Option<u64> {
        v.map(f64::to_bits)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        #[test]
        fn samples_aggregate_as_aggregate_does(
            r in rules(),
            samples in proptest::collection::vec(proptest::option::weighted(0.85, 0u64..5000), 1..60),
            t in 0usize..70,
        ) {
            let mut s = super::Samples::with_capacity(samples.len());
            for x in &samples {
                s.push(*x);
            }
            let floats: Vec<Option<f64>> = samples.iter().map(|x| x.map(|v| v as f64)).collect();
            prop_assert_eq!(bits(s.aggregate(&r, t)), bits(reference::aggregate(&r, &floats, t)));
        }

        #[test]
        fn aggregate_equals_the_collecting_form(
            r in rules(),
            samples in proptest::collection::vec(proptest::option::weighted(0.85, 0u32..500), 0..40),
            t in 0usize..45,
        ) {
            let samples: Vec<Option<f64>> = samples.into_iter().map(|s| s.map(f64::from)).collect();
            prop_assert_eq!(bits(aggregate(&r, &samples, t)), bits(reference::aggregate(&r, &samples, t)));
        }

        #[test]
        fn decide_equals_the_collecting_form(
            rs in proptest::collection::vec(rules(), 0..5),
            totals in proptest::collection::vec(proptest::option::weighted(0.9, 0u32..300), 0..6),
            (min, span, default) in (0u32..6, 0u32..12, 0u32..10),
            cur in 0u32..20,
            missing in any::<bool>(),
        ) {
            let p = Profile {
                name: "p".into(),
                min,
                max: min + span,
                default,
                recurrence: None,
                rules: rs,
            };
            let totals: Vec<Option<f64>> = totals.into_iter().map(|t| t.map(f64::from)).collect();
            let zero = if missing { ZeroInstances::Missing } else { ZeroInstances::One };
            let got: Decision = decide(&p, &totals, cur, zero);
            prop_assert_eq!(got, reference::decide(&p, &totals, cur, zero));
        }
    }
}
