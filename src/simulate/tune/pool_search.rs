//! The joint search's report (issue 23): a row per standby-pool size with the cheapest policy
//! that meets the target there, and the search's figures. `--tune`'s own types; the pool's
//! model and its single-size figures ([`PoolTry`]) stay in `simulate::standby`.

use serde::Serialize;

use super::super::standby::{self, PoolTry};
use super::params::Params;
use super::score::{Scored, UnderVariants};

/// One pool size of `--tune`'s joint search: the cheapest policy that meets the target with a
/// pool of that size, and its figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PoolRow {
    #[serde(flatten)]
    pub result: PoolTry,
    /// That policy (`None`: no policy tried meets the target with this pool; `result` then
    /// holds the fastest one's nominal p95).
    pub policy: Option<Params>,
}

/// `--tune`'s joint search over the pool size and the policy (issue 23).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PoolSearch {
    /// One row per pool size, smallest first.
    pub rows: Vec<PoolRow>,
    /// The cheapest row that meets the target (`None`: none does).
    pub chosen_max_ready: Option<u32>,
    /// The largest size tried, and why it is the largest.
    pub largest: u32,
    pub limits: String,
    /// Policies simulated (nominal runs), runs in all (variants included), wall time.
    pub policies: usize,
    pub runs: usize,
    pub elapsed_ms: u64,
    /// How the search was pruned (and what that assumes).
    pub pruning: String,
}

impl PoolSearch {
    /// Lines for the text report.
    pub fn lines(&self, cur: crate::catalog::currency::Currency) -> Vec<String> {
        let money =
            |m: Option<f64>| m.map_or("n/a".to_string(), |m| format!("{}/month", cur.whole(m)));
        let mut out = vec![format!(
            "joint search: pool size x policy, {} policies ({} runs with the variants) in {} ms; sizes 0-{} ({}); {}",
            self.policies, self.runs, self.elapsed_ms, self.largest, self.limits, self.pruning
        )];
        for r in &self.rows {
            let t = &r.result;
            out.push(match &r.policy {
                Some(p) => format!(
                    "  maxReady {:>2}: p95 {} min (worst variant {} min), pool {}{}{}; targetPerInstance {}, scaleOutStep {}, scaleOutCooldown {} min, scaleInCooldown {} min, timeWindow {} min, min {}{}",
                    t.max_ready,
                    t.p95,
                    t.worst_p95,
                    money(t.monthly),
                    t.bound_text(cur),
                    t.cost_of_robustness
                        .map_or(String::new(), |c| format!(", robustness {}/month", cur.whole(c))),
                    p.target_per_instance,
                    p.scale_out_step,
                    p.scale_out_cooldown_minutes,
                    p.scale_in_cooldown_minutes,
                    p.time_window_minutes,
                    p.capacity_min,
                    if self.chosen_max_ready == Some(t.max_ready) {
                        "  <- chosen"
                    } else {
                        ""
                    }
                ),
                None => format!(
                    "  maxReady {:>2}: no policy tried meets the target (the fastest: p95 {} min nominal)",
                    t.max_ready, t.p95
                ),
            });
        }
        out
    }
}

/// A pool size's figures for `s`: the ratio to the lower bound, also with the standby pool (disks, builds)
/// counted as instance-hours at the pool's own price per instance-hour.
pub(super) fn pool_try(
    max_ready: u32,
    min_ready: u32,
    s: &Scored,
    u: &UnderVariants,
    bound_hours: f64,
    nominal_best: Option<&Scored>,
    runs: usize,
) -> standby::PoolTry {
    let ratio = (bound_hours > 0.0).then(|| s.instance_hours / bound_hours);
    let with = match (ratio, s.pool_monthly, s.standby_monthly) {
        (Some(r), Some(pool), Some(sb)) if pool - sb > 0.0 => Some(r * pool / (pool - sb)),
        (Some(r), _, None) => Some(r),
        _ => None,
    };
    standby::PoolTry {
        max_ready,
        min_ready,
        p95: s.p95,
        worst_p95: u.worst_p95,
        monthly: s.pool_monthly,
        meets: true,
        standby_monthly: s.standby_monthly,
        ratio,
        ratio_with_standby: with,
        cost_of_robustness: nominal_best
            .and_then(|n| n.pool_monthly)
            .zip(s.pool_monthly)
            .map(|(n, a)| a - n),
        simulated: runs,
    }
}
