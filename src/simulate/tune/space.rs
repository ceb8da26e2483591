//! The candidates the search draws from: the values per knob ([`SPACE`]), stage 1 and stage 2
//! around a base, and stage 3's neighbourhood of the cheapest policy that holds.

use crate::spec::model::{ScaleOutAggregation, ScaleOutTier};

use super::params::Params;

pub(super) const TARGETS: &[u32] = &[1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50];
pub(super) const STEPS: &[u32] = &[1, 2, 3, 4];
pub(super) const OUT_COOLDOWNS: &[u32] = &[1, 2, 3, 5];
pub(super) const IN_COOLDOWNS: &[u32] = &[5, 10, 15, 30];
pub(super) const WINDOWS: &[u32] = &[5, 10];

/// The scale-out rules' `timeAggregation` values the search tries
/// ([`crate::facts::autoscale::TIME_AGGREGATIONS`]; scale-in keeps `Average`).
pub(super) const AGGREGATIONS: [ScaleOutAggregation; 3] = ScaleOutAggregation::ALL;

/// The values the search tries per knob ([`SPACE`]: the tuner's; a test may give a smaller one).
#[derive(Debug, Clone, Copy)]
pub(super) struct Space {
    pub aggregations: &'static [ScaleOutAggregation],
    pub targets: &'static [u32],
    pub steps: &'static [u32],
    pub out_cooldowns: &'static [u32],
    pub in_cooldowns: &'static [u32],
    pub windows: &'static [u32],
}

/// The tuner's values.
pub(super) const SPACE: Space = Space {
    aggregations: &AGGREGATIONS,
    targets: TARGETS,
    steps: STEPS,
    out_cooldowns: OUT_COOLDOWNS,
    in_cooldowns: IN_COOLDOWNS,
    windows: WINDOWS,
};

/// Stage 1 candidates.
pub fn stage1(before: &Params) -> Vec<Params> {
    stage1_in(before, &SPACE)
}

pub(super) fn stage1_in(before: &Params, space: &Space) -> Vec<Params> {
    let mut v = vec![before.clone()];
    for &agg in space.aggregations {
        for &t in space.targets {
            for &s in space.steps {
                for &c in space.out_cooldowns {
                    let mut p = before.clone();
                    p.set_target(t);
                    p.scale_out_step = s;
                    p.scale_out_cooldown_minutes = c;
                    p.scale_out_aggregation = agg;
                    if !v.contains(&p) {
                        v.push(p);
                    }
                }
            }
        }
    }
    v
}

/// The floors stage 2 tries around `p`: `(capacity.min, schedule minimums)`. As is; zero
/// minimums raised to 1; `capacity.min` lowered (to 0, 1 and its quarters: a spec's floor is
/// not taken as given); schedule minimums above `capacity.min` at 25, 50 and 75 %; and the
/// raise and the halving together.
pub(super) fn floor_options(p: &Params) -> Vec<(u32, Vec<u32>)> {
    let base = p.capacity_min;
    let scaled = |mins: &[u32], floor: u32, pct: u32| -> Vec<u32> {
        mins.iter()
            .map(|m| {
                if *m > floor {
                    (m * pct).div_ceil(100).max(floor)
                } else {
                    *m
                }
            })
            .collect()
    };
    let raised = |c: u32, mins: &[u32]| -> (u32, Vec<u32>) {
        (c.max(1), mins.iter().map(|m| (*m).max(1)).collect())
    };
    let mut out: Vec<(u32, Vec<u32>)> = vec![(base, p.schedule_mins.clone())];
    out.push(raised(base, &p.schedule_mins));
    for low in [0, 1, base / 4, base / 2, base * 3 / 4] {
        if low < base {
            out.push((low, p.schedule_mins.clone()));
        }
    }
    for pct in [25, 50, 75] {
        out.push((base, scaled(&p.schedule_mins, base, pct)));
    }
    let (rc, rm) = raised(base, &p.schedule_mins);
    out.push((rc, scaled(&rm, rc, 50)));
    let mut seen = Vec::new();
    out.retain(|o| {
        if seen.contains(o) {
            false
        } else {
            seen.push(o.clone());
            true
        }
    });
    out
}

/// The one `scaleOutTiers` tier stage 2 tries: above three times the target, a larger step.
pub(super) fn tier_for(p: &Params) -> ScaleOutTier {
    ScaleOutTier {
        above: p.target_per_instance * 3,
        step: p.scale_out_step * 2 + 2,
    }
}

/// Stage 2 candidates around `base`.
pub fn stage2(base: &Params, before: &Params) -> Vec<Params> {
    stage2_with(base, before, &floor_options(base), &SPACE)
}

/// [`stage2`] with the floors given (`(capacity.min, schedule minimums)`).
pub(super) fn stage2_with(
    base: &Params,
    before: &Params,
    floors: &[(u32, Vec<u32>)],
    space: &Space,
) -> Vec<Params> {
    let mut v = Vec::new();
    for &ic in space.in_cooldowns {
        for &w in space.windows {
            for tier in [false, true] {
                for (cmin, smins) in floors {
                    let mut p = base.clone();
                    p.scale_in_cooldown_minutes = ic;
                    p.time_window_minutes = w;
                    if tier {
                        p.scale_out_tiers = vec![tier_for(&p)];
                    } else {
                        p.scale_out_tiers = before
                            .scale_out_tiers
                            .iter()
                            .filter(|t| t.above > p.target_per_instance)
                            .cloned()
                            .collect();
                    }
                    p.capacity_min = *cmin;
                    p.schedule_mins = smins.clone();
                    p.clamp_defaults();
                    if !v.contains(&p) {
                        v.push(p);
                    }
                }
            }
        }
    }
    v
}

/// Stage 1's knobs (`scaleOutAggregation` × `targetPerInstance` × `scaleOutStep` ×
/// `scaleOutCooldown`) and the `timeWindow` around `p`, with `p`'s scale-in cooldown, tier
/// and floors kept (a tier stage 2 added follows the new target and step).
pub(super) fn stage1_around(p: &Params, before: &Params, space: &Space) -> Vec<Params> {
    let own_tier =
        p.scale_out_tiers == vec![tier_for(p)] && before.scale_out_tiers != p.scale_out_tiers;
    let mut v = Vec::new();
    for &w in space.windows {
        for &agg in space.aggregations {
            v.extend(stage1_knobs(p, before, space, agg, w, own_tier));
        }
    }
    v
}

fn stage1_knobs(
    p: &Params,
    before: &Params,
    space: &Space,
    agg: ScaleOutAggregation,
    w: u32,
    own_tier: bool,
) -> Vec<Params> {
    let mut v = Vec::new();
    for &t in space.targets {
        for &s in space.steps {
            for &c in space.out_cooldowns {
                let mut q = p.clone();
                q.target_per_instance = t;
                q.scale_out_step = s;
                q.scale_out_cooldown_minutes = c;
                q.scale_out_aggregation = agg;
                q.time_window_minutes = w;
                q.scale_out_tiers = tiers(&q, before, own_tier);
                v.push(q);
            }
        }
    }
    v
}

/// The scale-out tiers of `q`: its own tier ([`tier_for`]) or `before`'s tiers above its
/// `targetPerInstance`.
pub(super) fn tiers(q: &Params, before: &Params, own_tier: bool) -> Vec<ScaleOutTier> {
    if own_tier {
        vec![tier_for(q)]
    } else {
        before
            .scale_out_tiers
            .iter()
            .filter(|x| x.above > q.target_per_instance)
            .cloned()
            .collect()
    }
}
