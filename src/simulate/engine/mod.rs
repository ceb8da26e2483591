//! The autoscale engine and the queue it drives, minute by minute.
//!
//! The setting is the one the plan emits (`plan::Autoscale`: profiles, rules, capacities,
//! cooldowns, time windows, metric forms); nothing is re-derived from the spec. Semantics as
//! Microsoft documents them (shared/design/anchors.md §c.1: autoscale-understanding-settings,
//! autoscale-flapping, the autoscalesettings REST model):
//! - profile: the recurring profile whose start (in its Windows time zone, with daylight saving)
//!   passed most recently; a recurring profile has no end. Two starting at the same minute: the
//!   first in the emitted order. No recurring profile: the default profile.
//! - one cooldown, from the last scale action, with the cooldown of the rule that acted;
//! - each rule's metric: samples combined per `timeGrain` with `statistic`, the grains over
//!   `timeWindow` with `timeAggregation`; divided by the current instance count when
//!   `dividePerInstance` is true or the metric is the queue's own per-instance metric (storage
//!   `ApproximateMessageCount`, Service Bus `ActiveMessageCount` on the queue resource);
//! - scale out when any Increase rule fires (the largest result wins); scale in only when every
//!   Decrease rule fires (the smallest step wins), guarded against flapping: the count is raised
//!   towards the current one until no Increase rule would fire at the projected metric, and the
//!   scale-in is deferred when no count works;
//! - the result is clamped to the active profile's minimum and maximum;
//! - with no metric data, a count below the profile's default is raised to it (never lowered).
//!
//! Not documented by Microsoft, chosen here and switchable ([`Choices`]): dividing by zero
//! instances, and whether a profile switch clamps at once or waits out the cooldown.

mod choices;
mod decide;
mod evaluate;
mod replay;
mod setting;
mod vms;

pub use choices::{Arrivals, Choices, ProfileSwitch, ScaleInOrder, ZeroInstances};
pub use decide::{Decision, aggregate, decide};
pub use evaluate::{Autoscaler, Evaluations};
pub use replay::{Outcome, Run, Series, run};
pub use setting::{Agg, Dir, Op, Profile, Recurrence, Rule, Setting, Stat, rule_from_plan};
pub use vms::{Machine, next_vm, next_zones, victims};
