//! What an estimate is: its options, lines, totals, levers, budget check and sources (the JSON
//! document `gpuform cost --output json` prints), and the price list a plan bills under.

use serde::{Deserialize, Serialize};

use crate::catalog::prices::PriceOs;
use crate::plan::Plan;

use super::usage::Cases;

/// Version of the JSON document (`--format json`); bumped on incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// Prices older than this are called out in the notes.
pub const STALE_DAYS: i64 = 180;

/// Assumptions a user can change on the command line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Options {
    /// Share (0–100) of the headroom between each profile's default count and its max that the
    /// expected case adds.
    pub expected_utilization_percent: f64,
    pub log_gb_per_day: f64,
    pub nat_gb_per_month: f64,
    /// A serving pool's Application Gateway: capacity units billed in an average hour (`None`:
    /// the reserved ones, 10 per minimum instance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway_capacity_units: Option<f64>,
    /// A serving pool's internal load balancer: data processed per month.
    #[serde(default = "default_lb_gb")]
    pub lb_gb_per_month: f64,
    pub key_vault_operations_per_month: f64,
    pub queue_operations_per_month: f64,
    /// `YYYY-MM-DD`: the date price ages are counted to.
    pub today: String,
    /// Instance-hours per month from `gpuform simulate` (`cost --trace`): they replace the
    /// expected case (the low and high cases stay the profiles' minimum and maximum).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulated: Option<SimulatedHours>,
}

/// Simulated instance-hours per month, split by priority.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SimulatedHours {
    pub instance: f64,
    pub regular: f64,
    pub spot: f64,
    /// What was replayed, for the assumptions.
    #[serde(skip)]
    pub trace_hours: f64,
}

/// `--lb-gb`'s default: GB a month through the internal load balancer.
pub fn default_lb_gb() -> f64 {
    100.0
}

impl Default for Options {
    fn default() -> Self {
        Self {
            expected_utilization_percent: 0.0,
            log_gb_per_day: 0.2,
            nat_gb_per_month: 100.0,
            gateway_capacity_units: None,
            lb_gb_per_month: default_lb_gb(),
            key_vault_operations_per_month: 10_000.0,
            queue_operations_per_month: 1_000_000.0,
            today: String::new(),
            simulated: None,
        }
    }
}

/// A dated price origin as the estimate reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceUse {
    pub id: String,
    pub name: String,
    pub as_of: String,
    pub age_days: Option<i64>,
    pub confidence: Option<String>,
    pub note: Option<String>,
    /// Line ids priced from this source.
    pub used_for: Vec<String>,
}

/// Whole days from `as_of` (a date or an RFC 3339 time) to `today`.
pub fn age_days(as_of: &str, today: &str) -> Option<i64> {
    let fmt = time::macros::format_description!("[year]-[month]-[day]");
    let a = time::Date::parse(as_of.get(..10)?, &fmt).ok()?;
    let t = time::Date::parse(today.get(..10)?, &fmt).ok()?;
    Some((t - a).whole_days())
}

/// One line of the bill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Line {
    pub id: String,
    /// `compute`, `storage`, `network`, `monitoring`, `security`, `messaging`.
    pub group: String,
    pub label: String,
    pub unit_price: Option<f64>,
    /// What one unit is (`instance-hour`, `hour`, `GB`, `10k operations`, `month`).
    pub unit: String,
    pub quantity: Cases<f64>,
    /// `None` when the price is missing.
    pub amount: Cases<Option<f64>>,
    pub assumption: String,
    pub source: Option<String>,
    /// When the unit price is an embedded USD figure converted into the estimate's currency:
    /// the rate, its source and its date.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub converted: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Missing {
    pub line: String,
    pub price: String,
    pub help: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub low: f64,
    pub expected: f64,
    pub high: f64,
    /// False when a price is missing: the totals are then lower bounds.
    pub complete: bool,
    /// False when nothing says how long a pool that scales from zero runs (no `--trace`, no
    /// `--expected-utilization`): `expected` then counts none of its GPU hours, it is a lower
    /// bound, shown as "unknown", and the gates are undecided unless it already exceeds them.
    #[serde(default = "known")]
    pub expected_known: bool,
    /// Why the expected case is unknown, and what would make it known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_unknown: Option<String>,
}

fn known() -> bool {
    true
}

impl Totals {
    /// Every price is there and the expected case is a real expectation.
    pub fn decidable(&self) -> bool {
        self.complete && self.expected_known
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lever {
    pub id: String,
    pub label: String,
    /// Monthly saving in the expected case (negative: it would cost more).
    pub monthly: Option<f64>,
    /// `applied` (already in the spec), `available`, `not-applicable`, `missing-price`.
    pub status: String,
    pub detail: String,
    /// Price sources the lever used (ids into `sources`).
    #[serde(default)]
    pub sources: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetCheck {
    pub monthly: f64,
    pub currency: String,
    /// `ok`, `over`, `undecided` (under budget, but prices are missing; or the estimate is not
    /// in the budget's currency: no price in it was given). `skipped` is no longer written.
    pub status: String,
    pub percent_of_budget: Option<f64>,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub name: String,
    pub kind: String,
    pub min: u32,
    pub max: u32,
    pub default: u32,
    pub expected_count: f64,
    pub hours_per_week: f64,
    pub instance_hours: Cases<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Estimate {
    pub schema_version: u32,
    pub spec: String,
    pub file: String,
    pub region: String,
    pub vm_size: String,
    pub os: PriceOs,
    pub currency: String,
    pub hours_per_month: f64,
    pub options: Options,
    /// Every modelling assumption, in words.
    pub assumptions: Vec<String>,
    pub profiles: Vec<Profile>,
    pub instance_hours: Cases<f64>,
    pub regular_hours: Cases<f64>,
    pub spot_hours: Cases<f64>,
    pub lines: Vec<Line>,
    pub totals: Totals,
    pub levers: Vec<Lever>,
    pub missing: Vec<Missing>,
    pub sources: Vec<SourceUse>,
    pub budget: Option<BudgetCheck>,
    pub notes: Vec<String>,
    /// The standby pool's line (issue 23), when the spec has a pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standby: Option<super::standby::StandbyCost>,
}

/// The price list the plan's image bills under.
pub fn price_os(plan: &Plan) -> PriceOs {
    if plan.params.windows {
        PriceOs::Windows
    } else {
        PriceOs::Linux
    }
}
