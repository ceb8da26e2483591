//! The variants `--tune` scores a candidate under: the model variants (readings of what
//! Microsoft leaves open), the load variants, and a standby pool's start times.

use serde::Serialize;

use super::super::engine::{Arrivals, Choices};
use super::super::load::LoadChange;
use super::super::standby;

/// Provisioning 25 % slower: the slow variants' factor (an assumption about capacity on a bad
/// day, not an Azure figure), in the model's combinations and under the busier week alike.
const SLOW_PROVISIONING: f64 = 1.25;

/// A model variant: one plausible reading of what Microsoft leaves open.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Variant {
    pub name: String,
    #[serde(skip)]
    pub choices: Choices,
}

/// The variants `--tune` checks a candidate under: the nominal model, each uncertainty on its
/// own (the other queue-metric reading, a 2-minute metric delay, arrivals spread within the
/// minute, provisioning 25 % faster and slower), the two pessimistic combinations, and the
/// load variants ([`load_variants`]).
pub fn variants(base: Choices) -> Vec<Variant> {
    let mut vs = model_variants(base);
    vs.extend(load_variants(base));
    vs
}

/// The model variants of [`variants`] (the first 8).
fn model_variants(base: Choices) -> Vec<Variant> {
    let (_, late) = crate::facts::autoscale::METRIC_DELAY_MINUTES;
    let other = !base.queue_metric_counts_in_service;
    let v = |name: &str, f: &dyn Fn(&mut Choices)| {
        let mut c = base;
        f(&mut c);
        Variant {
            name: name.to_string(),
            choices: c,
        }
    };
    vec![
        v("nominal", &|_| {}),
        v(
            if other {
                "metric counts in-service messages"
            } else {
                "metric counts waiting messages only"
            },
            &|c| c.queue_metric_counts_in_service = other,
        ),
        v(&format!("metric {late} min late"), &|c| {
            c.metric_delay_minutes = late
        }),
        v("arrivals spread within the minute", &|c| {
            c.arrivals = Arrivals::Spread
        }),
        v("provisioning -25 %", &|c| c.provisioning_factor = 0.75),
        v("provisioning +25 %", &|c| {
            c.provisioning_factor = SLOW_PROVISIONING
        }),
        v(
            &format!("metric {late} min late, spread arrivals, provisioning +25 %"),
            &|c| {
                c.metric_delay_minutes = late;
                c.arrivals = Arrivals::Spread;
                c.provisioning_factor = SLOW_PROVISIONING;
            },
        ),
        v(
            &format!("other metric reading, {late} min late, provisioning +25 %"),
            &|c| {
                c.queue_metric_counts_in_service = other;
                c.metric_delay_minutes = late;
                c.provisioning_factor = SLOW_PROVISIONING;
            },
        ),
    ]
}

/// The load changes `--tune` also scores a candidate under (issue 22): arrivals 15 % above the
/// trace's, for a week that is busier than the one the policy was tuned on (an assumption about
/// load, not an Azure fact: day-to-day variation of that size is common, and the held-out
/// harness's 4-week load varies its days by 0.8-1.15x). Measured with `.ci/tune-heldout`
/// (batch-inference-standby, p95 <= 5 min, 2x its capacity): two held-out misses (6 min on the
/// flash crowd and the gaps/outages week) gone, at +1.0 % pool cost. Tried and not on: a
/// one-hour surge to the trace's peak rate in each week's quietest hour (removed one held-out
/// miss at +1.2 %, but left no policy on a short test trace with PT8M provisioning); the load
/// 30 minutes earlier and arrivals bunched per 5 minutes (changed no proposal).
/// [`LoadChange`] keeps the transforms. Each also runs with provisioning 25 % slower
/// ([`load_variants`]): measured 2026-12-04 with `.ci/tune-heldout` (10-minute target, the four
/// examples with a queue), the held-out cells over 10 minutes with provisioning +25 % went from 4
/// of 20 to 3, at +0.3 % pool cost on the training week; no 5-minute proposal changed.
pub const LOAD_CHANGES: &[LoadChange] = &[LoadChange {
    percent_more: 15,
    earlier_minutes: 0,
    bunched_minutes: 0,
    surge_minutes: 0,
}];

/// The load variants: each of [`LOAD_CHANGES`] under the nominal model, and under provisioning
/// 25 % slower (a busier week on a slow-capacity day).
fn load_variants(base: Choices) -> Vec<Variant> {
    let mut vs = Vec::new();
    for l in LOAD_CHANGES {
        let mut c = base;
        c.load = *l;
        vs.push(Variant {
            name: l.label(),
            choices: c,
        });
        c.provisioning_factor = SLOW_PROVISIONING;
        vs.push(Variant {
            name: format!("{}, provisioning +25 %", l.label()),
            choices: c,
        });
    }
    vs
}

/// [`variants`], and when the spec has a pool whose VMs start after a delay (deallocated or
/// hibernated: an assumption, no document gives it), the start time as uncertain too: pooled
/// VMs starting in 2 and in 4 minutes ([`standby::SENSITIVITY_START_SECONDS`]; a time equal to
/// the pool's own is the nominal model already).
pub fn variants_for(base: Choices, pool: Option<&standby::Standby>) -> Vec<Variant> {
    let mut vs = variants(base);
    let Some(pool) = pool.filter(|p| p.start_seconds > 0 || p.start_assumed) else {
        return vs;
    };
    for secs in standby::SENSITIVITY_START_SECONDS {
        if secs != pool.start_seconds {
            let mut c = base;
            c.standby_start_seconds = Some(secs);
            vs.push(Variant {
                name: format!(
                    "pooled VMs start in {} (assumed)",
                    standby::minutes_label(secs)
                ),
                choices: c,
            });
        }
    }
    vs
}
