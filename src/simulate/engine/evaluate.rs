//! Azure Monitor autoscale's evaluation at the end of each minute, shared by every replay that
//! drives a scale set through a rendered setting: the queue replay ([`super::run`]) and the
//! request-driven pool's ([`crate::simulate::serving`]). The caller keeps the metric samples
//! (one per minute, `None` where Azure has no data point) and the VMs; this keeps the active
//! profile, the one cooldown, the clamping at a profile switch and the counters, and asks
//! [`decide`] what the rules want.

use jiff::Timestamp;
use serde::Serialize;

use super::choices::{Choices, ProfileSwitch, ZeroInstances};
use super::decide::{Decision, aggregate, decide};
use super::setting::{Dir, Profile, Setting};

/// What the evaluations did besides scaling.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluations {
    /// Evaluations skipped inside a cooldown.
    pub cooldown_skips: u32,
    /// Scale-ins the flapping guard skipped.
    pub deferred_scale_in: u32,
    /// Scale-ins the flapping guard made smaller.
    pub reduced_scale_in: u32,
    /// Evaluations with no metric data (the profile's default applies).
    pub missing_metric: u32,
}

/// The autoscale engine's state between evaluations.
pub struct Autoscaler<'a> {
    setting: &'a Setting,
    timeline: Vec<u16>,
    zero: ZeroInstances,
    profile_switch: ProfileSwitch,
    /// Minutes between a sample and the value autoscale reads.
    delay: usize,
    /// (minute, cooldown) of the last scale action.
    last_action: Option<(usize, u32)>,
    prev_profile: Option<u16>,
    pub counts: Evaluations,
}

impl<'a> Autoscaler<'a> {
    /// For `minutes` minutes from `start`, with the choices Microsoft leaves open.
    pub fn new(setting: &'a Setting, start: Timestamp, minutes: usize, c: &Choices) -> Self {
        Autoscaler {
            setting,
            timeline: setting.timeline(start, minutes),
            zero: c.zero_instances,
            profile_switch: c.profile_switch,
            delay: c.metric_delay_minutes as usize,
            last_action: None,
            prev_profile: None,
            counts: Evaluations::default(),
        }
    }

    /// The active profile per minute (indices into the setting's profiles).
    pub fn timeline(&self) -> &[u16] {
        &self.timeline
    }

    /// The profile active in minute `t`.
    pub fn profile(&self, t: usize) -> &'a Profile {
        let i = self.timeline.get(t).copied().unwrap_or(0) as usize;
        &self.setting.profiles[i]
    }

    /// The count the pool starts at: the first minute's profile default, inside its limits
    /// (the pool is warm at the start of a trace).
    pub fn initial(&self) -> u32 {
        let p = self.profile(0);
        p.default.clamp(p.min, p.max)
    }

    /// Evaluate at the end of minute `t` with `cur` instances and the samples up to `t`:
    /// `Some((n, cooldown))` when autoscale scales to `n` (clamped to the active profile; never
    /// `cur`), recorded as the last action; the caller adds or removes the VMs.
    pub fn evaluate(&mut self, t: usize, cur: u32, samples: &[Option<f64>]) -> Option<(u32, u32)> {
        let pi = self.timeline.get(t).copied().unwrap_or(0);
        let prof = &self.setting.profiles[pi as usize];
        let switched = self.prev_profile != Some(pi);
        self.prev_profile = Some(pi);
        let in_cooldown = self
            .last_action
            .is_some_and(|(at, cd)| t < at + cd as usize);
        let outside = cur < prof.min || cur > prof.max;
        let mut target: Option<(u32, u32)> = None;
        if outside && (self.profile_switch == ProfileSwitch::Immediate && switched || !in_cooldown)
        {
            let n = cur.clamp(prof.min, prof.max);
            let dir = if n > cur {
                Dir::Increase
            } else {
                Dir::Decrease
            };
            let cd = prof
                .rules
                .iter()
                .find(|r| r.direction == dir)
                .map_or(0, |r| r.cooldown);
            target = Some((n, cd));
        } else if in_cooldown {
            self.counts.cooldown_skips += 1;
        } else {
            // with a collection delay, autoscale reads the metric as it was `delay` minutes ago
            let totals: Vec<Option<f64>> = prof
                .rules
                .iter()
                .map(|rule| {
                    t.checked_sub(self.delay)
                        .and_then(|at| aggregate(rule, samples, at))
                })
                .collect();
            match decide(prof, &totals, cur, self.zero) {
                Decision::Keep => {}
                Decision::Scale(n, cd) => target = Some((n, cd)),
                Decision::Reduced(n, cd) => {
                    self.counts.reduced_scale_in += 1;
                    target = Some((n, cd));
                }
                Decision::Deferred => self.counts.deferred_scale_in += 1,
                Decision::MissingMetric(n) => {
                    self.counts.missing_metric += 1;
                    target = Some((n, 0));
                }
            }
        }
        let (n, cd) = target?;
        let n = n.clamp(prof.min, prof.max);
        if n == cur {
            return None;
        }
        self.last_action = Some((t, cd));
        Some((n, cd))
    }
}

#[cfg(test)]
mod tests {
    use super::super::setting::{Agg, Op, Rule, Stat};
    use super::*;

    fn rule(dir: Dir, op: Op, threshold: f64, cooldown: u32) -> Rule {
        Rule {
            metric: "m".into(),
            per_instance: false,
            instance_averaged: true,
            grain: 1,
            window: 5,
            statistic: Stat::Average,
            aggregation: Agg::Average,
            op,
            threshold,
            direction: dir,
            change: 1,
            cooldown,
        }
    }

    fn setting() -> Setting {
        Setting {
            profiles: vec![Profile {
                name: "default".into(),
                min: 1,
                max: 5,
                default: 2,
                recurrence: None,
                rules: vec![
                    rule(Dir::Increase, Op::Gt, 100.0, 3),
                    rule(Dir::Decrease, Op::Lt, 20.0, 10),
                ],
            }],
            zones: 1,
        }
    }

    #[test]
    fn one_cooldown_from_the_last_action_and_the_default_on_missing_data() {
        let s = setting();
        let start: Timestamp = "2026-11-02T00:00:00Z".parse().unwrap();
        let mut a = Autoscaler::new(&s, start, 30, &Choices::default());
        assert_eq!(a.initial(), 2);
        let hot = vec![Some(500.0); 30];
        // scale out at once, then 3 minutes of cooldown
        assert_eq!(a.evaluate(0, 2, &hot[..1]), Some((3, 3)));
        assert_eq!(a.evaluate(1, 3, &hot[..2]), None);
        assert_eq!(a.evaluate(2, 3, &hot[..3]), None);
        assert_eq!(a.counts.cooldown_skips, 2);
        assert_eq!(a.evaluate(3, 3, &hot[..4]), Some((4, 3)));
        // no data at all below the default: raised to it (never lowered)
        let mut a = Autoscaler::new(&s, start, 30, &Choices::default());
        let none = vec![None; 30];
        assert_eq!(a.evaluate(0, 1, &none[..1]), Some((2, 0)));
        assert_eq!(a.evaluate(1, 2, &none[..2]), None);
        assert_eq!(a.counts.missing_metric, 1);
        // a count outside the profile is clamped
        let mut a = Autoscaler::new(&s, start, 30, &Choices::default());
        assert_eq!(a.evaluate(0, 9, &hot[..1]), Some((5, 10)));
    }
}
