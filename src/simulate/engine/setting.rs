//! The autoscale setting as the engine evaluates it, read from the plan.

use jiff::Timestamp;
use jiff::civil::{Date, Weekday};
use jiff::tz::TimeZone;

use super::super::tz;
use crate::plan;
use crate::spec::schedule::parse_duration;

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
    pub(super) fn test(self, v: f64, t: f64) -> bool {
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
    let special = r.metric_source == plan::MetricSource::StorageQueue
        && matches!(
            r.metric_name,
            "ApproximateMessageCount" | "ActiveMessageCount"
        );
    Ok(Rule {
        metric: r.metric_name.to_string(),
        per_instance: r.divide_per_instance || special,
        // averages over instances: CPU, and Application Gateway's requests a minute per
        // healthy host (serving.md B11; its name in `facts::serving` once that lands)
        instance_averaged: !r.divide_per_instance
            && matches!(
                r.metric_name,
                "Percentage CPU" | "AvgRequestCountPerHealthyHost"
            ),
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
    /// profile with the plan's rules. A serving pool's GPU-utilisation rules (Application
    /// Insights) are left out: the simulator replays one load trace (queue or requests) and has
    /// no GPU-utilisation series, so it cannot evaluate them (docs/src/serving.md says so; with
    /// them Azure scales in only when they agree too, so the simulation's scale-ins are an upper
    /// bound).
    pub fn from_plan(a: &plan::Autoscale) -> Result<Setting, String> {
        let rules: Vec<Rule> = a
            .rules
            .iter()
            .filter(|r| r.metric_source != plan::MetricSource::ApplicationInsights)
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
