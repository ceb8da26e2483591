//! The joint search's report (issue 23): a row per standby-pool size with the cheapest policy
//! that meets the target there, and the search's figures. `--tune`'s own types; the pool's
//! model and its single-size figures ([`PoolTry`]) stay in `simulate::standby`.

use serde::Serialize;

use super::super::standby::PoolTry;
use super::params::Params;

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
