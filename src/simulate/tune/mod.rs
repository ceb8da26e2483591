//! `--tune`: search the policies render can express for the cheapest that meets the wait target
//! on the trace, and write the change back into the spec's YAML text.
//!
//! Each candidate is a changed spec whose autoscale setting comes from the plan's own function
//! (`plan::autoscale`), so what is simulated is what render would emit. Search, in two stages
//! (rayon, both cores):
//! 1. `targetPerInstance` × `scaleOutStep` × `scaleOutCooldown` (15 × 4 × 4);
//! 2. around the three cheapest of stage 1 that meet the target (or the three fastest when none
//!    does): `scaleInCooldown` × `timeWindow` × one `scaleOutTiers` tier or none × the minimums
//!    (as is; zero minimums raised to 1; schedule minimums above `capacity.min` halved; both);
//! 3. with the variants: from the cheapest policy that holds, stage 1's knobs and the window
//!    around it (its scale-in cooldown, tier and floors kept) and stage 2's (the spec's
//!    floors), again from each cheaper one that holds,
//!    until a round finds none (at most 4 rounds): a robust policy often needs knobs of both
//!    stages changed together (issue 22: `llm-finetune-a100` held at `targetPerInstance: 8`
//!    with a floor of 1, which neither stage reached). `exhaustive.rs` (tests) enumerates the
//!    whole space the stages draw from and compares (`.ci/tune-exhaustive`).
//!
//! Robustness (issue 22): the candidates that meet the target in the nominal model are checked,
//! cheapest first, under the model [`variants`] (the other queue-metric reading, a late metric,
//! spread arrivals, slower and faster provisioning); the proposal is the cheapest that meets the
//! target under all of them (or `--robust-share` of them).
//!
//! The cheapest candidate meeting the target (pool cost, then instance-hours) is written into the
//! YAML text at the spans the spec's YAML index gives, then checked again from scratch: it must
//! validate and plan, and its figures are simulated once more from that plan.

mod answer;
mod binds;
mod edit;
#[cfg(test)]
mod exhaustive;
pub mod learn;
mod learned;
pub mod margin;
mod params;
mod pool;
#[cfg(test)]
mod pool_check;
mod pool_edit;
mod pool_search;
mod pool_stage1;
pub mod progress;
mod report;
pub mod reuse;
pub mod rewrite;
pub mod schedule;
mod score;
mod search;
pub mod serving;
pub mod serving_report;
pub mod serving_spec;
mod space;
mod variants;
mod window;

pub use answer::{Answer, Fallback, Shown, Window};
pub use binds::{Feasibility, Miss, Offer};
pub use edit::{Edit, apply_edits, edits, set};
pub use learned::Learned;
pub use margin::Margin;
pub use params::Params;
pub use progress::Progress;
pub use report::{json, markdown, text};
pub use schedule::propose;
pub use score::{Required, Tuning};
pub use search::{
    Best, Job, Robust, Scored, Tuned, UnderVariants, Variant, variants, variants_for,
};
pub use space::{stage1, stage2};
pub use window::{SEARCH_DAYS, run};

/// Search, propose, verify: with a standby pool, its size and the policy together
/// ([`pool`]); else the policy alone.
pub fn tune(job: &Job, before: &super::Results) -> Result<Tuned, String> {
    if job.settings.standby.is_some() {
        return pool::tune(job, before);
    }
    search::tune(job, before)
}
