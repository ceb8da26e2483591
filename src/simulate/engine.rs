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

use std::collections::VecDeque;

use jiff::Timestamp;
use jiff::civil::{Date, Weekday};
use jiff::tz::TimeZone;
use rand_core::{Rng, SeedableRng};
use serde::Serialize;

use super::load::Trace;
use super::model::Workload;
use super::tz;
use crate::cost::usage::{Priority, regular_share};
use crate::plan;
use crate::spec::schedule::parse_duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum ZeroInstances {
    /// A per-instance metric at 0 instances is divided by 1 (the whole backlog counts).
    One,
    /// A per-instance metric at 0 instances has no value: the rules cannot fire, and the
    /// missing-metric rule raises the count to the profile's default.
    Missing,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum ProfileSwitch {
    /// When a new profile starts and the count is outside its limits, clamp at once, even in a
    /// cooldown.
    Immediate,
    /// Clamp at the first evaluation after the cooldown.
    AfterCooldown,
}

/// Which VMs a scale-in removes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum ScaleInOrder {
    /// The rendered `scaleInPolicy` `Default` (Microsoft's documented order): balance across
    /// zones, then the highest instance ID, busy or not ([`crate::facts::autoscale::SCALE_IN_DEFAULT_ORDER`]).
    Default,
    /// gpuform's earlier model: booting instances first, then idle ones, then the least busy
    /// (as if autoscale could see the jobs; it cannot).
    IdleFirst,
}

/// How the jobs of one minute arrive within it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Arrivals {
    /// All at the start of the minute.
    StartOfMinute,
    /// Evenly spread over the minute.
    Spread,
}

/// The behaviours Microsoft does not document, and the model variants `--tune` tries.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Choices {
    pub zero_instances: ZeroInstances,
    pub profile_switch: ProfileSwitch,
    /// The queue metric counts messages a worker holds (locked / invisible) besides the waiting
    /// ones. Default false: Microsoft's Service Bus reference counts only messages ready for
    /// delivery ([`crate::facts::autoscale`]).
    pub queue_metric_counts_in_service: bool,
    pub scale_in_order: ScaleInOrder,
    /// Minutes between a queue change and the value autoscale reads.
    pub metric_delay_minutes: u32,
    pub arrivals: Arrivals,
    /// The provisioning delay as a share of the workload's (1.0 nominal; 0.75 and 1.25 are
    /// `--tune` variants).
    pub provisioning_factor: f64,
}

impl Default for Choices {
    fn default() -> Self {
        Choices {
            zero_instances: ZeroInstances::One,
            profile_switch: ProfileSwitch::Immediate,
            queue_metric_counts_in_service: false,
            scale_in_order: ScaleInOrder::Default,
            metric_delay_minutes: 0,
            arrivals: Arrivals::StartOfMinute,
            provisioning_factor: 1.0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stat {
    Average,
    Min,
    Max,
    Sum,
    Count,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agg {
    Average,
    Minimum,
    Maximum,
    Total,
    Count,
    Last,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
}

impl Op {
    fn test(self, v: f64, t: f64) -> bool {
        match self {
            Op::Eq => v == t,
            Op::Ne => v != t,
            Op::Gt => v > t,
            Op::Ge => v >= t,
            Op::Lt => v < t,
            Op::Le => v <= t,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    Increase,
    Decrease,
}

/// One autoscale rule, read from the plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    pub metric: String,
    /// The threshold is per instance (`dividePerInstance`, or the queue's special metric).
    pub per_instance: bool,
    /// The metric is already an average over instances (`Percentage CPU`): the flapping guard
    /// projects it as `value × current / n`.
    pub instance_averaged: bool,
    pub grain: u32,
    pub window: u32,
    pub statistic: Stat,
    pub aggregation: Agg,
    pub op: Op,
    pub threshold: f64,
    pub direction: Dir,
    /// `ChangeCount` value.
    pub change: u32,
    pub cooldown: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Recurrence {
    pub time_zone: String,
    pub zone: TimeZone,
    pub days: Vec<Weekday>,
    pub hour: u32,
    pub minute: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    pub name: String,
    pub min: u32,
    pub max: u32,
    pub default: u32,
    pub recurrence: Option<Recurrence>,
    pub rules: Vec<Rule>,
}

/// The autoscale setting as the engine evaluates it.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    pub profiles: Vec<Profile>,
    /// Availability zones of the scale set (0 or 1: not zonal); scale-out spreads new VMs over
    /// them and the Default scale-in policy balances them.
    pub zones: u32,
}

fn minutes(iso: &str, what: &str) -> Result<u32, String> {
    parse_duration(iso)
        .map(|s| (s / 60) as u32)
        .filter(|m| *m > 0)
        .ok_or_else(|| format!("{what} `{iso}` is not an ISO 8601 duration of a minute or more"))
}

fn weekday(d: &str) -> Result<Weekday, String> {
    Ok(match d {
        "Monday" => Weekday::Monday,
        "Tuesday" => Weekday::Tuesday,
        "Wednesday" => Weekday::Wednesday,
        "Thursday" => Weekday::Thursday,
        "Friday" => Weekday::Friday,
        "Saturday" => Weekday::Saturday,
        "Sunday" => Weekday::Sunday,
        other => return Err(format!("`{other}` is not a day")),
    })
}

/// The rule as the plan emits it (same fields as the rendered `metricTrigger`/`scaleAction`).
pub fn rule_from_plan(r: &plan::AutoscaleRule) -> Result<Rule, String> {
    let special = !r.metric_on_namespace
        && matches!(
            r.metric_name,
            "ApproximateMessageCount" | "ActiveMessageCount"
        );
    Ok(Rule {
        metric: r.metric_name.to_string(),
        per_instance: r.divide_per_instance || special,
        instance_averaged: !r.divide_per_instance && r.metric_name == "Percentage CPU",
        grain: minutes(r.time_grain, "timeGrain")?,
        window: minutes(&r.time_window, "timeWindow")?,
        statistic: match r.statistic {
            "Average" => Stat::Average,
            "Min" => Stat::Min,
            "Max" => Stat::Max,
            "Sum" => Stat::Sum,
            "Count" => Stat::Count,
            s => return Err(format!("statistic `{s}`")),
        },
        aggregation: match r.time_aggregation {
            "Average" => Agg::Average,
            "Minimum" => Agg::Minimum,
            "Maximum" => Agg::Maximum,
            "Total" => Agg::Total,
            "Count" => Agg::Count,
            "Last" => Agg::Last,
            s => return Err(format!("timeAggregation `{s}`")),
        },
        op: match r.operator {
            "Equals" => Op::Eq,
            "NotEquals" => Op::Ne,
            "GreaterThan" => Op::Gt,
            "GreaterThanOrEqual" => Op::Ge,
            "LessThan" => Op::Lt,
            "LessThanOrEqual" => Op::Le,
            s => return Err(format!("operator `{s}`")),
        },
        threshold: f64::from(r.threshold),
        direction: match r.direction {
            "Increase" => Dir::Increase,
            "Decrease" => Dir::Decrease,
            s => return Err(format!("direction `{s}`")),
        },
        change: r
            .change
            .parse()
            .map_err(|_| format!("scaleAction value `{}`", r.change))?,
        // a cooldown of 0 is not allowed by Azure (PT1M minimum); treat it as given
        cooldown: parse_duration(&r.cooldown)
            .map(|s| (s / 60) as u32)
            .ok_or_else(|| format!("cooldown `{}`", r.cooldown))?,
    })
}

impl Setting {
    /// Read the plan's autoscale setting: every profile in emitted order, each metric-driven
    /// profile with the plan's rules.
    pub fn from_plan(a: &plan::Autoscale) -> Result<Setting, String> {
        let rules: Vec<Rule> = a
            .rules
            .iter()
            .map(rule_from_plan)
            .collect::<Result<_, _>>()?;
        let mut profiles = Vec::new();
        for p in &a.profiles {
            let recurrence = match &p.recurrence {
                None => None,
                Some(r) => Some(Recurrence {
                    zone: tz::zone(&r.time_zone).ok_or_else(|| {
                        format!("profile `{}`: unknown time zone `{}`", p.name, r.time_zone)
                    })?,
                    time_zone: r.time_zone.clone(),
                    days: r
                        .days
                        .iter()
                        .map(|d| weekday(d))
                        .collect::<Result<_, _>>()?,
                    hour: r.hour,
                    minute: r.minute,
                }),
            };
            profiles.push(Profile {
                name: p.name.clone(),
                min: p.min,
                max: p.max,
                default: p.default,
                recurrence,
                rules: if p.has_rules { rules.clone() } else { vec![] },
            });
        }
        if profiles.is_empty() {
            return Err("the autoscale setting has no profile".into());
        }
        Ok(Setting { profiles, zones: 1 })
    }

    /// A fixed-size pool (no autoscale setting): one profile at `n`.
    pub fn fixed(n: u32) -> Setting {
        Setting {
            profiles: vec![Profile {
                name: "fixed".into(),
                min: n,
                max: n,
                default: n,
                recurrence: None,
                rules: vec![],
            }],
            zones: 1,
        }
    }

    /// The same setting on a scale set spread over `zones` availability zones.
    pub fn with_zones(mut self, zones: u32) -> Setting {
        self.zones = zones.max(1);
        self
    }

    /// The active profile for each minute of `[start, start + minutes)`.
    pub fn timeline(&self, start: Timestamp, minutes: usize) -> Vec<u16> {
        let t0 = start.as_second();
        let mut starts: Vec<(i64, usize)> = Vec::new();
        for (i, p) in self.profiles.iter().enumerate() {
            let Some(r) = &p.recurrence else { continue };
            let first: Date = start.to_zoned(r.zone.clone()).date();
            let days = (minutes / 1440) as i64 + 2;
            for k in -8..=days {
                let Ok(d) = first.checked_add(jiff::Span::new().days(k)) else {
                    continue;
                };
                if !r.days.contains(&d.weekday()) {
                    continue;
                }
                // a start inside a daylight-saving gap moves to the first minute after it
                // (jiff's "compatible" disambiguation, as Windows does); in a repeated hour
                // the first occurrence counts
                let Ok(z) = d
                    .at(r.hour as i8, r.minute as i8, 0, 0)
                    .to_zoned(r.zone.clone())
                else {
                    continue;
                };
                let m = (z.timestamp().as_second() - t0).div_euclid(60);
                starts.push((m, i));
            }
        }
        if starts.is_empty() {
            return vec![0; minutes];
        }
        // at the same minute the first profile in emitted order wins: sort so it comes last
        starts.sort_by_key(|(m, i)| (*m, std::cmp::Reverse(*i)));
        let mut out = vec![0u16; minutes];
        let mut k = 0;
        let mut current = 0u16;
        for (t, slot) in out.iter_mut().enumerate() {
            while k < starts.len() && starts[k].0 <= t as i64 {
                current = starts[k].1 as u16;
                k += 1;
            }
            *slot = current;
        }
        out
    }
}

/// What the engine measured.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub minutes: usize,
    pub jobs: u64,
    pub served: u64,
    /// Jobs still waiting or running when the trace ends (their waits count up to the end).
    pub unfinished: u64,
    /// `waits[w]`: jobs that waited `w` whole minutes (those still waiting at the end count
    /// with the wait they had so far).
    #[serde(skip)]
    pub waits: Vec<u64>,
    pub backlog_peak: u64,
    pub instance_minutes: u64,
    pub regular_minutes: u64,
    pub spot_minutes: u64,
    /// Ready instances with nothing to run.
    pub idle_minutes: u64,
    /// Instances booting (billed, not serving).
    pub provisioning_minutes: u64,
    pub scale_out: u32,
    pub scale_in: u32,
    /// Scale-ins the flapping guard skipped.
    pub deferred_scale_in: u32,
    /// Scale-ins the flapping guard made smaller.
    pub reduced_scale_in: u32,
    pub cooldown_skips: u32,
    pub missing_metric_evaluations: u32,
    pub evictions: u32,
    /// Jobs that started again because their VM went (scale-in or Spot eviction): autoscale
    /// cannot see which VM is busy, so a scale-in may remove one that runs a job.
    pub restarted_jobs: u64,
    /// Of those, the jobs on VMs a scale-in removed.
    pub restarted_by_scale_in: u64,
    pub peak_instances: u32,
    #[serde(skip)]
    pub series: Option<Series>,
}

/// Per-minute series for the chart.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Series {
    pub arrivals: Vec<u32>,
    pub backlog: Vec<u32>,
    pub regular: Vec<u16>,
    pub spot: Vec<u16>,
    pub profile: Vec<u16>,
}

impl Outcome {
    /// Nearest-rank percentile of the job waits, in minutes (`q` in 0..=1).
    pub fn wait_percentile(&self, q: f64) -> f64 {
        let n: u64 = self.waits.iter().sum();
        if n == 0 {
            return 0.0;
        }
        let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
        let mut seen = 0;
        for (w, c) in self.waits.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return w as f64;
            }
        }
        (self.waits.len().saturating_sub(1)) as f64
    }

    pub fn wait_max(&self) -> f64 {
        self.waits.iter().rposition(|&c| c > 0).unwrap_or(0) as f64
    }
}

#[derive(Debug, Clone)]
struct Instance {
    /// Instance ID: increases with every VM the scale set creates.
    id: u64,
    zone: u32,
    ready_at: usize,
    spot: bool,
    /// Busy slots: (finish second, arrival second of the job).
    busy: Vec<(u64, u64)>,
}

/// Everything one run needs.
pub struct Run<'a> {
    pub setting: &'a Setting,
    pub trace: &'a Trace,
    pub workload: &'a Workload,
    pub priority: &'a Priority,
    pub choices: Choices,
    /// Seed of the eviction draws.
    pub seed: u64,
    /// Keep the per-minute series (for the chart).
    pub record: bool,
}

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

/// Put a removed instance's jobs back at the head of the queue; their first start no longer
/// counts (the job starts again and its wait runs on).
fn requeue(
    gone: &Instance,
    d: u64,
    queue: &mut VecDeque<(u64, u32)>,
    waits: &mut [u64],
    served: &mut u64,
) {
    let mut back: Vec<u64> = gone.busy.iter().map(|(_, arr)| *arr).collect();
    for (finish, arr) in &gone.busy {
        let started = finish.saturating_sub(d);
        if let Some(w) = waits.get_mut((started.saturating_sub(*arr) / 60) as usize) {
            *w = w.saturating_sub(1);
        }
        *served = served.saturating_sub(1);
    }
    // the oldest arrival goes first
    back.sort_unstable();
    for arr in back.into_iter().rev() {
        queue.push_front((arr, 1));
    }
}

/// The instances a scale-in from `inst.len()` to `n` removes (indices), keeping the
/// regular/Spot mix; within it by `order`.
fn victims(
    inst: &[Instance],
    n: u32,
    t: usize,
    priority: &Priority,
    zones: u32,
    order: ScaleInOrder,
) -> Vec<usize> {
    let cur = inst.len();
    let keep_regular = regular_share(priority, f64::from(n)).round() as usize;
    let regular_now = inst.iter().filter(|i| !i.spot).count();
    let total = cur.saturating_sub(n as usize);
    let mut drop_regular = regular_now.saturating_sub(keep_regular).min(total);
    let mut drop_spot = total - drop_regular;
    let spot_now = cur - regular_now;
    if drop_spot > spot_now {
        drop_regular += drop_spot - spot_now;
        drop_spot = spot_now;
    }
    let mut gone = vec![false; cur];
    let mut out = Vec::with_capacity(total);
    let zones = zones.max(1) as usize;
    for (spot, mut count) in [(false, drop_regular), (true, drop_spot)] {
        while count > 0 {
            let pick = match order {
                ScaleInOrder::Default => {
                    // the zone with the most VMs left, then the highest instance ID in it
                    let mut per_zone = vec![0usize; zones];
                    for (k, i) in inst.iter().enumerate() {
                        if !gone[k] {
                            per_zone[i.zone as usize % zones] += 1;
                        }
                    }
                    inst.iter()
                        .enumerate()
                        .filter(|(k, i)| !gone[*k] && i.spot == spot)
                        .max_by_key(|(_, i)| (per_zone[i.zone as usize % zones], i.id))
                        .map(|(k, _)| k)
                }
                ScaleInOrder::IdleFirst => inst
                    .iter()
                    .enumerate()
                    .filter(|(k, i)| !gone[*k] && i.spot == spot)
                    .min_by_key(|(k, i)| {
                        (
                            if i.ready_at > t { 0 } else { 1 },
                            i.busy.len(),
                            std::cmp::Reverse(*k),
                        )
                    })
                    .map(|(k, _)| k),
            };
            let Some(k) = pick else { break };
            gone[k] = true;
            out.push(k);
            count -= 1;
        }
    }
    out
}

/// Replay the trace. Autoscale acts once a minute; jobs run for exactly the job time in seconds
/// (a 45 s job frees its slot 45 s after it starts, and the next job starts then).
pub fn run(r: &Run) -> Outcome {
    let trace = r.trace;
    let h = trace.minutes();
    let w = r.workload;
    let d = w.job_seconds.max(1);
    let c = w.concurrency.max(1) as usize;
    let p = (f64::from(w.provisioning_minutes) * r.choices.provisioning_factor.max(0.0)).round()
        as usize;
    let zones = r.setting.zones.max(1);
    let delay = r.choices.metric_delay_minutes as usize;
    let timeline = r.setting.timeline(trace.start, h);
    let mut rng = rand_pcg::Pcg64::seed_from_u64(r.seed);
    let evict_p = w.spot_evictions_per_hour / 60.0;

    let mut o = Outcome {
        minutes: h,
        jobs: trace.jobs(),
        ..Default::default()
    };
    let mut series = r.record.then(|| Series {
        arrivals: trace.arrivals.clone(),
        backlog: Vec::with_capacity(h),
        regular: Vec::with_capacity(h),
        spot: Vec::with_capacity(h),
        profile: timeline.clone(),
    });

    // the pool starts at the first profile's default, warm
    let first = &r.setting.profiles[timeline.first().copied().unwrap_or(0) as usize];
    let mut inst: Vec<Instance> = Vec::new();
    let mut next_id: u64 = 0;
    let mut add = |inst: &mut Vec<Instance>, ready_at: usize| {
        let n = inst.len() as u32 + 1;
        let regular_needed = regular_share(r.priority, f64::from(n)).round() as usize;
        let regular_now = inst.iter().filter(|i| !i.spot).count();
        // a new VM goes to the zone with the fewest VMs (the scale set spreads them)
        let mut per_zone = vec![0usize; zones as usize];
        for i in inst.iter() {
            per_zone[i.zone as usize % zones as usize] += 1;
        }
        let zone = (0..zones as usize)
            .min_by_key(|z| (per_zone[*z], *z))
            .unwrap_or(0) as u32;
        inst.push(Instance {
            id: next_id,
            zone,
            ready_at,
            spot: regular_now >= regular_needed,
            busy: Vec::with_capacity(c),
        });
        next_id += 1;
    };
    for _ in 0..first.default.clamp(first.min, first.max) {
        add(&mut inst, 0);
    }
    // waiting jobs: (arrival second, count)
    let mut queue: VecDeque<(u64, u32)> = VecDeque::new();
    let mut queued: u64 = 0;
    let mut in_service: u64 = 0;
    let mut samples: Vec<Option<f64>> = Vec::with_capacity(h);
    let mut last_action: Option<(usize, u32)> = None; // (minute, cooldown)
    let mut prev_profile: Option<u16> = None;
    let mut waits: Vec<u64> = Vec::new();
    fn record_wait(waits: &mut Vec<u64>, wait: usize, n: u64) {
        if waits.len() <= wait {
            waits.resize(wait + 1, 0);
        }
        waits[wait] += n;
    }
    let restart = |gone: &Instance,
                   queue: &mut VecDeque<(u64, u32)>,
                   waits: &mut Vec<u64>,
                   o: &mut Outcome,
                   queued: &mut u64,
                   in_service: &mut u64| {
        requeue(gone, d, queue, waits, &mut o.served);
        let n = gone.busy.len() as u64;
        *in_service -= n;
        *queued += n;
        o.restarted_jobs += n;
    };

    #[allow(clippy::needless_range_loop)] // t indexes the trace, the timeline and the samples
    for t in 0..h {
        let t0 = t as u64 * 60;
        let t1 = t0 + 60;
        // Spot evictions (Delete: the instance and its capacity go; its jobs go back to the queue)
        if evict_p > 0.0 {
            let mut k = 0;
            while k < inst.len() {
                if inst[k].spot && (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= evict_p {
                    let gone = inst.swap_remove(k);
                    restart(
                        &gone,
                        &mut queue,
                        &mut waits,
                        &mut o,
                        &mut queued,
                        &mut in_service,
                    );
                    o.evictions += 1;
                } else {
                    k += 1;
                }
            }
        }
        // arrivals
        let a = trace.arrivals[t];
        if a > 0 {
            match r.choices.arrivals {
                Arrivals::StartOfMinute => queue.push_back((t0, a)),
                Arrivals::Spread => {
                    for i in 0..u64::from(a) {
                        let at = t0 + (i * 60 + 30) / u64::from(a);
                        match queue.back_mut() {
                            Some(b) if b.0 == at => b.1 += 1,
                            _ => queue.push_back((at, 1)),
                        }
                    }
                }
            }
            queued += u64::from(a);
        }
        // dispatch FIFO: the earliest free slot of a ready instance takes the next job, at the
        // second the slot frees or the job arrives
        while let Some(&(arr, _)) = queue.front() {
            let mut best: Option<(u64, usize)> = None;
            for (k, i) in inst.iter().enumerate() {
                if i.ready_at > t {
                    continue;
                }
                let free = if i.busy.len() < c {
                    t0
                } else {
                    i.busy.iter().map(|(f, _)| *f).min().unwrap_or(t0).max(t0)
                };
                if best.is_none_or(|(f, _)| free < f) {
                    best = Some((free, k));
                    if free == t0 {
                        break;
                    }
                }
            }
            let Some((free, k)) = best else { break };
            let start = free.max(arr);
            if start >= t1 {
                break;
            }
            let i = &mut inst[k];
            if i.busy.len() >= c {
                // the slot's job completed at `free`
                if let Some(pos) = i.busy.iter().position(|(f, _)| *f == free) {
                    i.busy.swap_remove(pos);
                    in_service -= 1;
                }
            }
            let front = queue.front_mut().expect("checked above");
            front.1 -= 1;
            if front.1 == 0 {
                queue.pop_front();
            }
            queued -= 1;
            in_service += 1;
            i.busy.push((start + d, arr));
            record_wait(&mut waits, ((start - arr) / 60) as usize, 1);
            o.served += 1;
        }
        // idle: ready and running nothing during the minute
        let idle_now = inst
            .iter()
            .filter(|i| i.ready_at <= t && i.busy.is_empty())
            .count() as u64;
        // completions up to the end of the minute
        for i in inst.iter_mut() {
            let before = i.busy.len();
            i.busy.retain(|(f, _)| *f > t1);
            in_service -= (before - i.busy.len()) as u64;
        }
        // the queue metric at the end of the minute: the messages ready for delivery (waiting),
        // plus, with --queue-metric-counts-in-service, those a worker holds
        let depth = if r.choices.queue_metric_counts_in_service {
            queued + in_service
        } else {
            queued
        };
        samples.push((!trace.missing[t]).then_some(depth as f64));
        o.backlog_peak = o.backlog_peak.max(queued);

        // billing and the chart
        let n = inst.len() as u64;
        let spot = inst.iter().filter(|i| i.spot).count() as u64;
        o.instance_minutes += n;
        o.spot_minutes += spot;
        o.regular_minutes += n - spot;
        o.idle_minutes += idle_now;
        o.provisioning_minutes += inst.iter().filter(|i| i.ready_at > t).count() as u64;
        o.peak_instances = o.peak_instances.max(n as u32);
        if let Some(s) = series.as_mut() {
            s.backlog.push(queued.min(u64::from(u32::MAX)) as u32);
            s.regular.push((n - spot) as u16);
            s.spot.push(spot as u16);
        }

        // autoscale evaluates at the end of the minute
        let pi = timeline[t];
        let prof = &r.setting.profiles[pi as usize];
        let switched = prev_profile != Some(pi);
        prev_profile = Some(pi);
        let cur = inst.len() as u32;
        let mut target: Option<(u32, u32)> = None;
        let in_cooldown = last_action.is_some_and(|(at, cd)| t < at + cd as usize);
        let outside = cur < prof.min || cur > prof.max;
        if outside
            && (r.choices.profile_switch == ProfileSwitch::Immediate && switched || !in_cooldown)
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
            o.cooldown_skips += 1;
        } else {
            // with a collection delay, autoscale reads the metric as it was `delay` minutes ago
            let totals: Vec<Option<f64>> = prof
                .rules
                .iter()
                .map(|rule| {
                    t.checked_sub(delay)
                        .and_then(|at| aggregate(rule, &samples, at))
                })
                .collect();
            match decide(prof, &totals, cur, r.choices.zero_instances) {
                Decision::Keep => {}
                Decision::Scale(n, cd) => target = Some((n, cd)),
                Decision::Reduced(n, cd) => {
                    o.reduced_scale_in += 1;
                    target = Some((n, cd));
                }
                Decision::Deferred => o.deferred_scale_in += 1,
                Decision::MissingMetric(n) => {
                    o.missing_metric_evaluations += 1;
                    target = Some((n, 0));
                }
            }
        }
        if let Some((n, cd)) = target {
            let n = n.clamp(prof.min, prof.max);
            if n > cur {
                for _ in cur..n {
                    add(&mut inst, t + 1 + p);
                }
                o.scale_out += 1;
                last_action = Some((t, cd));
            } else if n < cur {
                // the rendered scale-in policy chooses the VMs, busy or not: their jobs go back
                // to the queue (the message lock is lost and the job is delivered again)
                let mut vs = victims(&inst, n, t, r.priority, zones, r.choices.scale_in_order);
                vs.sort_unstable_by(|a, b| b.cmp(a));
                for k in vs {
                    let gone = inst.remove(k);
                    o.restarted_by_scale_in += gone.busy.len() as u64;
                    restart(
                        &gone,
                        &mut queue,
                        &mut waits,
                        &mut o,
                        &mut queued,
                        &mut in_service,
                    );
                }
                o.scale_in += 1;
                last_action = Some((t, cd));
            }
        }
    }
    // jobs not started by the end count with the wait they had so far
    let end = h as u64 * 60;
    for (arr, n) in &queue {
        record_wait(
            &mut waits,
            (end.saturating_sub(*arr) / 60) as usize,
            u64::from(*n),
        );
    }
    o.unfinished = queued + in_service;
    o.waits = waits;
    o.series = series;
    o
}
