//! The knobs of a queue-driven policy, read from and applied to a spec.

use serde::Serialize;

use crate::spec::defaults::{flap_safe_scale_in, lowest_min};
use crate::spec::model::{ScaleOutAggregation, ScaleOutTier, Spec};
use crate::spec::schedule::parse_duration;

/// `(scaleOutStep, scaleOutCooldown, scaleOutAggregation, timeWindow)`: the pool search's stage 1
/// and the margin's references search `targetPerInstance` within each.
pub(super) type Pair = (u32, u32, ScaleOutAggregation, u32);

/// The knobs of a queue-driven policy.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Params {
    pub target_per_instance: u32,
    pub scale_in_below: u32,
    pub scale_out_step: u32,
    pub scale_out_tiers: Vec<ScaleOutTier>,
    /// The scale-out rules' `timeAggregation` (`autoscale.queue.scaleOutAggregation`).
    pub scale_out_aggregation: ScaleOutAggregation,
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
            scale_out_aggregation: q.scale_out_aggregation.unwrap_or_default(),
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
            // absent stays absent at the default (what render emits is the same)
            if q.scale_out_aggregation.is_some()
                || self.scale_out_aggregation != ScaleOutAggregation::Average
            {
                q.scale_out_aggregation = Some(self.scale_out_aggregation);
            }
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

impl Params {
    /// `targetPerInstance` set to `t`, and the scale-out tiers that no longer start above the
    /// target dropped (a tier adds instances above the target).
    pub(super) fn set_target(&mut self, t: u32) {
        self.target_per_instance = t;
        self.scale_out_tiers.retain(|tier| tier.above > t);
    }

    /// These knobs with `pair`'s scale-out and a target of `t` (see [`Params::set_target`]).
    pub(super) fn with_target(
        &self,
        t: u32,
        (step, cooldown, aggregation, window): Pair,
    ) -> Params {
        let mut p = self.clone();
        p.set_target(t);
        p.scale_out_step = step;
        p.scale_out_cooldown_minutes = cooldown;
        p.scale_out_aggregation = aggregation;
        p.time_window_minutes = window;
        p
    }

    /// Explicit defaults stay inside the (new) minimums.
    pub(super) fn clamp_defaults(&mut self) {
        if let Some(d) = self.capacity_default.as_mut() {
            *d = (*d).max(self.capacity_min);
        }
        for (d, m) in self.schedule_defaults.iter_mut().zip(&self.schedule_mins) {
            if let Some(d) = d.as_mut() {
                *d = (*d).max(*m);
            }
        }
    }

    pub(super) fn lowest_min(&self) -> u32 {
        self.schedule_mins
            .iter()
            .copied()
            .chain([self.capacity_min])
            .min()
            .unwrap_or(0)
    }
}
