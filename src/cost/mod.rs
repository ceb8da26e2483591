//! `gpuform cost`: the monthly bill of a spec's scaling policy.
//!
//! - [`usage`]: instance-hours per profile over one UTC week, in three cases, split regular/spot;
//! - [`fixed`]: the dated prices of disks, NAT gateway, public IP, private endpoints, Log
//!   Analytics, Key Vault, Service Bus and storage queues;
//! - [`retail`] / [`fetch`]: Retail Prices API documents (`--prices`) and the live API
//!   (`--refresh-prices`, the only network code);
//! - [`levers`]: what spot, reservations, a narrower precision and the scale-down schedules are
//!   worth; [`gates`]: budget and baseline checks; [`format`]: table, markdown and JSON.

pub mod fetch;
pub mod fixed;
pub mod format;
pub mod gates;
pub mod levers;
pub mod retail;
pub mod sovereign;
pub mod standby;
pub mod usage;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::catalog::GpuSize;
use crate::catalog::prices::{PriceKind, PriceOs, PriceTable};
use crate::plan::{Cmk, Plan, QueueKind};
use crate::spec::model::{DiskType, EvictionPolicy, Spec};
use fixed::{DiskPrice, FixedPrices, FixedSource};
use format::count;
use usage::{Cases, HOURS_PER_MONTH, Priority, Usage};

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

impl Default for Options {
    fn default() -> Self {
        Self {
            expected_utilization_percent: 0.0,
            log_gb_per_day: 0.2,
            nat_gb_per_month: 100.0,
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

/// A price table layered over the embedded one (`--prices`, `--refresh-prices`).
#[derive(Debug, Clone)]
pub struct Overlay {
    pub id: String,
    pub name: String,
    pub as_of: String,
    pub table: PriceTable,
}

/// Every price the estimate may use, with where each came from.
#[derive(Debug, Clone)]
pub struct PriceBook {
    /// Embedded VM prices with every overlay applied: what `vmSize: auto` ranks with.
    pub merged: PriceTable,
    overlays: Vec<Overlay>,
    pub fixed: FixedPrices,
}

/// An hourly VM price and its source id.
#[derive(Debug, Clone, PartialEq)]
pub struct Priced {
    pub hourly: f64,
    pub source: String,
}

impl Default for PriceBook {
    fn default() -> Self {
        Self::embedded()
    }
}

impl PriceBook {
    pub fn embedded() -> Self {
        Self {
            merged: PriceTable::embedded().clone(),
            overlays: Vec::new(),
            fixed: FixedPrices::embedded().clone(),
        }
    }

    /// Layer VM prices over the table (later layers win).
    pub fn add_overlay(&mut self, o: Overlay) {
        self.merged.overlay(o.table.clone());
        self.overlays.push(o);
    }

    /// Use a Retail Prices document's disk prices for `region`.
    pub fn add_disks(
        &mut self,
        parsed: &retail::Parsed,
        region: &str,
        source: FixedSource,
    ) -> usize {
        let region = region.to_ascii_lowercase();
        let mut n = 0;
        for ((r, _, tier), (kind, monthly)) in &parsed.disks {
            if *r == region {
                self.fixed.insert_disk(*kind, tier, *monthly, &source.id);
                n += 1;
            }
        }
        if let Some(p) = parsed.premium_v2.get(&region) {
            self.fixed.set_premium_v2(*p, &source.id);
            n += 1;
        }
        if n > 0 {
            self.fixed.add_source(source);
        }
        n
    }

    pub fn overlays(&self) -> &[Overlay] {
        &self.overlays
    }

    pub fn vm(&self, size: &str, region: &str, os: PriceOs, kind: PriceKind) -> Option<Priced> {
        for o in self.overlays.iter().rev() {
            if let Some(p) = o.table.hourly(size, region, os, kind) {
                return Some(Priced {
                    hourly: p,
                    source: o.id.clone(),
                });
            }
        }
        let e = PriceTable::embedded();
        e.hourly(size, region, os, kind).map(|p| Priced {
            hourly: p,
            source: embedded_id(os, kind),
        })
    }

    /// Describe a source id.
    fn describe(&self, id: &str, today: &str) -> SourceUse {
        let mk = |name: String, as_of: String, confidence: Option<String>, note: Option<String>| {
            SourceUse {
                id: id.to_string(),
                age_days: age_days(&as_of, today),
                name,
                as_of,
                confidence,
                note,
                used_for: Vec::new(),
            }
        };
        if let Some(o) = self.overlays.iter().find(|o| o.id == id) {
            return mk(o.name.clone(), o.as_of.clone(), None, None);
        }
        if let Some(f) = self.fixed.source(id) {
            return mk(
                f.name.clone(),
                f.as_of.clone(),
                Some(f.confidence.clone()),
                Some(f.note.clone()),
            );
        }
        for s in &PriceTable::embedded().sources {
            if embedded_id(s.os, s.kind) == id {
                return mk(s.name.clone(), s.as_of.clone(), None, s.note.clone());
            }
        }
        mk(id.to_string(), String::new(), None, None)
    }
}

fn embedded_id(os: PriceOs, kind: PriceKind) -> String {
    format!(
        "embedded-{}-{}",
        retail::os_label(os).to_lowercase(),
        kind_id(kind)
    )
}

fn kind_id(k: PriceKind) -> &'static str {
    match k {
        PriceKind::OnDemand => "payg",
        PriceKind::Spot => "spot",
        PriceKind::Reserved1Y => "reserved-1y",
        PriceKind::Reserved3Y => "reserved-3y",
    }
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
    /// `ok`, `over`, `skipped`, `undecided` (under budget, but prices are missing).
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
}

/// The price list the plan's image bills under.
pub fn price_os(plan: &Plan) -> PriceOs {
    if plan.params.windows {
        PriceOs::Windows
    } else {
        PriceOs::Linux
    }
}

const PRICES_HELP: &str =
    "supply it with --prices FILE (Azure Retail Prices API JSON) or --refresh-prices";

/// The pool's own cost (VMs and their disks) for a usage, per case; `None` when a price is
/// missing. Used by the levers to price alternatives the same way as the bill.
pub(crate) fn pool_cost(
    u: &Usage,
    od: Option<f64>,
    spot: Option<f64>,
    disk_per_instance_hour: Option<f64>,
) -> Option<Cases<f64>> {
    let od = od?;
    let disk = disk_per_instance_hour?;
    let spot_needed = u.spot_hours.high > 0.0 || u.spot_hours.expected > 0.0;
    let spot = if spot_needed { spot? } else { 0.0 };
    Some(u.regular_hours.scale(od) + u.spot_hours.scale(spot) + u.instance_hours.scale(disk))
}

/// Price what render emits for a checked spec: `plan` is `Plan::build` of it (every resource
/// and SKU is read from there), `spec` supplies the workload and the scaling policy whose week
/// the plan's autoscale profiles come from, `size` is the plan's VM size (for `vmSize: auto`,
/// `auto_sized`, chosen with the embedded price table as render chooses it).
pub fn estimate(
    spec: &Spec,
    plan: &Plan,
    file: &str,
    size: &GpuSize,
    auto_sized: bool,
    book: &PriceBook,
    opts: &Options,
) -> Estimate {
    let s = &spec.spec;
    let region = s.region.to_ascii_lowercase();
    let os = price_os(plan);
    let priority = Priority::of(&plan.compute, &s.capacity);
    // a pool without an autoscale setting (not a dev box) holds its default count all week: one
    // figure, not a low and a high as if it scaled
    let fixed = plan.autoscale.is_none() && plan.devbox.is_none();
    let utilization = if fixed {
        0.0
    } else {
        opts.expected_utilization_percent / 100.0
    };
    let mut u = usage::usage(s, &priority, utilization);
    if fixed {
        u.fix_at_expected();
    }
    // a pool that scales from zero on its queue: its default count (0) is no expectation of its
    // GPU hours (without queue rules nothing scales it out, and 0 is what it runs)
    let queue_rules = s.autoscale.as_ref().is_some_and(|a| a.queue.is_some());
    let from_zero: Vec<&str> = u
        .profiles
        .iter()
        .filter(|p| queue_rules && p.default == 0 && p.max > 0 && p.hours_per_week > 0.0)
        .map(|p| p.name.as_str())
        .collect();
    let expected_unknown = (!fixed
        && !from_zero.is_empty()
        && opts.simulated.is_none()
        && opts.expected_utilization_percent <= 0.0)
        .then(|| {
            format!(
                "the pool scales from zero (profile{} {}) and nothing says how many hours it runs{}: the expected figure counts none of those GPU hours. \
Give it a load: `gpuform simulate SPEC --trace FILE` replays your queue, then `gpuform cost SPEC --trace FILE`; or --expected-utilization PERCENT",
                if from_zero.len() == 1 { "" } else { "s" },
                from_zero.join(", "),
                if s.workload.job_duration.is_some() {
                    " (workload.jobDuration says how long a job takes, not how many arrive)"
                } else {
                    ""
                }
            )
        });
    if let Some(h) = &opts.simulated {
        // the expected case is what the simulation measured (`gpuform cost --trace`)
        u.instance_hours.expected = h.instance;
        u.regular_hours.expected = h.regular;
        u.spot_hours.expected = h.spot;
    }
    let f = &book.fixed;
    let mut lines: Vec<Line> = Vec::new();
    let mut missing: Vec<Missing> = Vec::new();
    let os_name = retail::os_label(os);

    // compute
    let vm_price = |kind| book.vm(&size.name, &region, os, kind);
    let od = vm_price(PriceKind::OnDemand);
    lines.push(vm_line(
        "compute-regular",
        format!("{} regular, pay-as-you-go ({os_name})", size.name),
        od.as_ref(),
        u.regular_hours,
        regular_assumption(&priority),
        || format!("{os_name} pay-as-you-go price of {} in {region}", size.name),
        &mut missing,
    ));
    let spot = vm_price(PriceKind::Spot);
    if let Some(sp) = &plan.compute.spot {
        let assumption = format!(
            "{}; spot prices move daily, evictions are not modelled{}",
            match &sp.mix {
                Some(m) => format!(
                    "instances above the regular base run on Spot ({}% of them regular)",
                    m.regular_percent_above_base
                ),
                None => "every instance runs on Spot".to_string(),
            },
            if sp.max_price < 0.0 {
                "; maxPrice -1 pays up to pay-as-you-go".to_string()
            } else {
                format!("; maxPrice ${}/h", sp.max_price)
            }
        );
        lines.push(vm_line(
            "compute-spot",
            format!("{} spot ({os_name})", size.name),
            spot.as_ref(),
            u.spot_hours,
            assumption,
            || format!("{os_name} spot price of {} in {region}", size.name),
            &mut missing,
        ));
    }

    // disks: billed while the instance exists (scale-in deletes instances with their disks); a
    // dev box keeps its disks while it is stopped, so they are billed for the whole month
    let devbox = plan.devbox.is_some();
    let disk_hours = if devbox {
        Cases::all(HOURS_PER_MONTH)
    } else {
        u.instance_hours
    };
    let mut disk_hourly_total: Option<f64> = Some(0.0);
    let mut disks = vec![(
        "disk-os".to_string(),
        "OS disk".to_string(),
        &plan.compute.os_disk,
    )];
    for (i, d) in plan.compute.data_disks.iter().enumerate() {
        disks.push((format!("disk-data-{i}"), format!("data disk {}", i + 1), d));
    }
    for (id, what, disk) in disks {
        let (sku, gib) = (disk.storage_account_type, disk.size_gib);
        let price = match disk_type(sku) {
            Some(kind) => f.disk(kind, gib),
            None => DiskPrice::Missing {
                what: format!("{sku} disk of {gib} GiB: a disk type gpuform has no prices for"),
            },
        };
        let (label, monthly, source) = match price {
            DiskPrice::Tier {
                tier,
                tier_gib,
                monthly,
                source,
            } => (
                format!(
                    "{what} {sku} {gib} GiB (billed as {tier}, {tier_gib} GiB, ${monthly:.2}/month)"
                ),
                Some(monthly),
                Some(source),
            ),
            DiskPrice::PerGib {
                per_gib_month,
                monthly,
                source,
            } => (
                format!(
                    "{what} {sku} {gib} GiB (${per_gib_month:.4}/GiB-month, baseline IOPS/throughput)"
                ),
                Some(monthly),
                Some(source),
            ),
            DiskPrice::Missing { what: price } => {
                missing.push(Missing { line: id.clone(), price, help: "supply it with --prices FILE (Retail Prices API items of serviceName 'Storage') or --refresh-prices".into() });
                (format!("{what} {sku} {gib} GiB"), None, None)
            }
        };
        let per_hour = monthly.map(|m| m / HOURS_PER_MONTH);
        disk_hourly_total = disk_hourly_total.zip(per_hour).map(|(a, b)| a + b);
        lines.push(Line {
            id,
            group: "storage".into(),
            label,
            unit_price: per_hour,
            unit: "instance-hour".into(),
            quantity: disk_hours,
            amount: disk_hours.map(|q| per_hour.map(|p| p * q)),
            assumption: if devbox {
                format!("the whole month ({HOURS_PER_MONTH} h): the dev box is stopped (deallocated) at night, not deleted, and a stopped VM still pays for its disks")
            } else { format!(
                "monthly disk price / {HOURS_PER_MONTH} h per instance-hour: disks exist while their instance does{}",
                if plan.compute.spot.as_ref().is_some_and(|sp| sp.eviction_policy == EvictionPolicy::Deallocate.as_str()) {
                    " (evicted spot instances are deallocated and keep paying for disks: not modelled)"
                } else {
                    ""
                }
            ) },
            source,
        });
    }

    fixed_lines(plan, f, opts, &mut lines, &mut missing);
    if let Some(g) = &plan.gpu {
        // next to the other monitoring lines
        let mut gpu_lines = Vec::new();
        let central = plan.monitoring.workspace.existing.is_some();
        gpu_monitoring_lines(
            g,
            central,
            plan.devbox.is_some(),
            &u,
            f,
            &mut gpu_lines,
            &mut missing,
        );
        let at = lines
            .iter()
            .position(|l| l.id == "metric-alerts")
            .map_or(lines.len(), |i| i + 1);
        lines.splice(at..at, gpu_lines);
    }

    // a sovereign cloud prices only what a public source prices for it (sovereign.rs)
    let sovereign_note =
        sovereign::withhold_unsourced(s.effective_cloud(), f, &mut lines, &mut missing);

    // totals
    let mut totals = Totals {
        low: 0.0,
        expected: 0.0,
        high: 0.0,
        complete: true,
        expected_known: expected_unknown.is_none(),
        expected_unknown: expected_unknown.clone(),
    };
    for l in &lines {
        match (l.amount.low, l.amount.expected, l.amount.high) {
            (Some(a), Some(b), Some(c)) => {
                totals.low += a;
                totals.expected += b;
                totals.high += c;
            }
            _ => totals.complete = false,
        }
    }

    let levers = levers::levers(&levers::Pool {
        spec,
        plan,
        size,
        book,
        u: &u,
        od: od.as_ref(),
        spot: spot.as_ref(),
        // the dev box pays for its disks whatever its schedule: the levers compare compute
        disk: if devbox { Some(0.0) } else { disk_hourly_total },
        opts,
        auto_sized,
    });

    // sources used
    let mut by_id: BTreeMap<String, SourceUse> = BTreeMap::new();
    for l in &lines {
        if let Some(src) = &l.source {
            by_id
                .entry(src.clone())
                .or_insert_with(|| book.describe(src, &opts.today))
                .used_for
                .push(l.id.clone());
        }
    }
    for lv in &levers {
        for src in &lv.sources {
            by_id
                .entry(src.clone())
                .or_insert_with(|| book.describe(src, &opts.today))
                .used_for
                .push(lv.id.clone());
        }
    }
    let sources: Vec<SourceUse> = by_id.into_values().collect();

    let budget = gates::budget_check(plan, &totals);
    let mut notes: Vec<String> = sovereign_note.into_iter().collect();
    if plan.queue.as_ref().is_some_and(|q| !q.create) {
        notes.push(
            "the queue already exists (create: false): its cost is not part of this estimate"
                .into(),
        );
    }
    if let Some(note) = devbox_note(plan, &u) {
        notes.push(note);
    }
    if os == PriceOs::Windows {
        notes.push("Windows prices include the Windows Server license; with Azure Hybrid Benefit the Linux rate applies".into());
    }
    for src in sources
        .iter()
        .filter(|s| s.age_days.is_some_and(|d| d > STALE_DAYS))
    {
        notes.push(format!(
            "{} prices are {} days old (as of {}): refresh with --refresh-prices or --prices FILE",
            src.id,
            src.age_days.unwrap_or_default(),
            src.as_of
        ));
    }
    if fixed {
        notes.push(format!(
            "a fixed pool (no autoscale): {} instance{} all month, so low, expected and high are one figure",
            s.capacity.default_count(),
            if s.capacity.default_count() == 1 { "" } else { "s" }
        ));
    }
    notes.push("not priced: internet data transfer out (first 100 GB/month free), Defender for Cloud, support plans, taxes".into());

    Estimate {
        schema_version: SCHEMA_VERSION,
        spec: spec.metadata.name.clone(),
        file: file.to_string(),
        region,
        vm_size: size.name.clone(),
        os,
        currency: "USD".into(),
        hours_per_month: HOURS_PER_MONTH,
        options: opts.clone(),
        assumptions: assumptions(plan, opts),
        profiles: u
            .profiles
            .iter()
            .map(|p| Profile {
                name: p.name.clone(),
                kind: p.kind.to_string(),
                min: p.min,
                max: p.max,
                default: p.default,
                expected_count: p.expected_count,
                hours_per_week: p.hours_per_week,
                instance_hours: p.instance_hours,
            })
            .collect(),
        instance_hours: u.instance_hours,
        regular_hours: u.regular_hours,
        spot_hours: u.spot_hours,
        lines,
        totals,
        levers,
        missing,
        sources,
        budget,
        notes,
    }
}

fn regular_assumption(p: &Priority) -> String {
    match p {
        Priority::Regular => "every instance on regular priority".into(),
        Priority::Spot => "no instance on regular priority: a Uniform scale set has no priority mix, every instance runs on Spot".into(),
        Priority::Mix(c) => format!(
            "regular priority: the first {} instance(s), then {}% of the instances above them",
            c.regular_base, c.regular_percent_above_base
        ),
    }
}

/// What the dev box costs while it runs and while it is stopped.
fn devbox_note(plan: &Plan, u: &usage::Usage) -> Option<String> {
    let d = plan.devbox.as_ref()?;
    Some(format!(
        "dev box: the DevTest Labs schedule deallocates {} at {} and the Logic App starts it at {} on {} ({}): it runs {:.0} h/month (the compute line); stopped it still pays for its OS and data disks, billed for the whole month; its NIC has no public IP and costs nothing; the shutdown schedule is free and the start workflow's few runs a month cost cents (Logic Apps Consumption, not priced)",
        d.vm_name,
        d.shutdown.time_label,
        d.start.time_label,
        if d.start.week_days.len() == 5 {
            "working days".to_string()
        } else {
            "every day".to_string()
        },
        d.start.time_zone,
        u.instance_hours.expected,
    ))
}

fn assumptions(plan: &Plan, o: &Options) -> Vec<String> {
    let mut v = vec![
        format!("a month is {HOURS_PER_MONTH} hours (8760 / 12); the week of autoscale profiles (UTC, standard time-zone offsets) is scaled by 730 / 168"),
        format!(
            "low: every profile at its min; high: every profile at its max; expected: every profile at its default count{}",
            if o.expected_utilization_percent > 0.0 {
                format!(" plus {}% of the headroom up to its max (--expected-utilization)", o.expected_utilization_percent)
            } else {
                " (the count the pool holds with a quiet queue; raise with --expected-utilization PERCENT)".to_string()
            }
        ),
        "regular/spot split per Azure's priority mix: the regular base, then the regular percentage of the instances above it, rounded down (Spot gets the odd instance: Microsoft's Spot Priority Mix page, \"2.5 rounded to 2\")".into(),
        if plan.devbox.is_some() {
            "the dev box's disks are billed for the whole month: stopping (deallocating) the VM keeps them".into()
        } else {
            "disks are billed per instance-hour (monthly tier price / 730) because scale-in deletes an instance with its disks".into()
        },
    ];
    if let Some(h) = &o.simulated {
        v.push(format!(
            "expected: the instance-hours `gpuform simulate` measured replaying {:.1} hours of queue load through the rendered autoscale setting, scaled to {HOURS_PER_MONTH} hours",
            h.trace_hours
        ));
    }
    if plan.network.nat.is_some() {
        v.push(format!(
            "{} GB/month through the NAT gateway (--nat-gb)",
            count(o.nat_gb_per_month)
        ));
    }
    match &plan.monitoring.workspace.existing {
        None => v.push(format!(
            "{} GB/day ingested into Log Analytics (--log-gb-per-day)",
            count(o.log_gb_per_day)
        )),
        Some(ws) => v.push(format!(
            "logs{} go to the central workspace {} (subscription {}): Log Analytics bills ingestion and retention on the workspace, so they are its owner's cost (the platform team's, usually charged back), not in this estimate",
            if plan.gpu.is_some() {
                " and GPU telemetry"
            } else {
                ""
            },
            ws.name,
            ws.subscription
        )),
    }
    match &plan.vault.existing {
        None => v.push(format!(
            "{} Key Vault operations/month (--key-vault-ops)",
            count(o.key_vault_operations_per_month)
        )),
        Some(kv) => v.push(format!(
            "Key Vault operations are billed to the existing vault {} (subscription {}), not in this estimate",
            kv.name, kv.subscription
        )),
    }
    if plan.queue.is_some() {
        v.push(format!(
            "{} queue operations/month (--queue-ops)",
            count(o.queue_operations_per_month)
        ));
    }
    v
}

/// A compute line: instance-hours at an hourly VM price; a missing price is recorded in
/// `missing` (described by `what`).
fn vm_line(
    id: &str,
    label: String,
    price: Option<&Priced>,
    hours: Cases<f64>,
    assumption: String,
    what: impl FnOnce() -> String,
    missing: &mut Vec<Missing>,
) -> Line {
    if price.is_none() {
        missing.push(Missing {
            line: id.into(),
            price: what(),
            help: PRICES_HELP.into(),
        });
    }
    Line {
        id: id.into(),
        group: "compute".into(),
        label,
        unit_price: price.map(|p| p.hourly),
        unit: "instance-hour".into(),
        quantity: hours,
        amount: hours.map(|q| price.map(|p| p.hourly * q)),
        assumption,
        source: price.map(|p| p.source.clone()),
    }
}

/// A line with the same quantity in every case (`unit_price: None`: the price is missing).
struct Fixed<'a> {
    id: &'a str,
    group: &'a str,
    label: String,
    unit_price: Option<f64>,
    unit: &'a str,
    quantity: f64,
    assumption: String,
    source: &'a str,
}

impl From<Fixed<'_>> for Line {
    fn from(f: Fixed<'_>) -> Line {
        Line {
            id: f.id.into(),
            group: f.group.into(),
            label: f.label,
            unit_price: f.unit_price,
            unit: f.unit.into(),
            quantity: Cases::all(f.quantity),
            amount: Cases::all(f.unit_price.map(|p| p * f.quantity)),
            assumption: f.assumption,
            source: f.unit_price.map(|_| f.source.into()),
        }
    }
}

/// GPU telemetry (issue 12): the custom table's ingestion, which follows the instance-hours of
/// each case, and the three log search alert rules.
fn gpu_monitoring_lines(
    g: &crate::plan::gpu_monitoring::GpuMonitoring,
    // the table is in a landing zone's central workspace: its ingestion is billed there
    central: bool,
    // a dev box: the collector samples only while the VM runs (the schedule's hours)
    devbox: bool,
    u: &usage::Usage,
    f: &FixedPrices,
    lines: &mut Vec<Line>,
    missing: &mut Vec<Missing>,
) {
    use crate::plan::gpu_monitoring::{BYTES_PER_ROW, SAMPLE_SECONDS};
    let rows_per_hour = 3600.0 / f64::from(SAMPLE_SECONDS) * f64::from(g.expected_gpus);
    let gb = u
        .instance_hours
        .map(|h| h * rows_per_hour * f64::from(BYTES_PER_ROW) / 1e9);
    let price = Some(f.log_analytics_per_gb);
    if !central {
        lines.push(Line {
        id: "gpu-telemetry-ingestion".into(),
        group: "monitoring".into(),
        label: format!("GPU telemetry ingestion ({})", g.table),
        unit_price: price,
        unit: "GB".into(),
        quantity: gb,
        amount: gb.map(|q| price.map(|p| p * q)),
        assumption: format!(
            "one row per GPU ({} per VM) every {SAMPLE_SECONDS} s for each {}, {BYTES_PER_ROW} bytes a row ({} columns; the JSON keys are not billed)",
            g.expected_gpus,
            if devbox {
                "hour the dev box runs (the compute line's hours; nothing while it is stopped)"
            } else {
                "instance-hour"
            },
            g.columns.len()
        ),
        source: Some("monitor".into()),
    });
    }
    for a in &g.alerts {
        let unit_price = f
            .log_alert_monthly_by_frequency
            .get(a.evaluation_frequency)
            .copied();
        if unit_price.is_none() {
            missing.push(Missing {
                line: format!("log-alert {}", a.name),
                price: format!("log alert rule at {}", a.evaluation_frequency),
                help: "add the frequency to logAlertMonthlyByFrequency in the fixed price table"
                    .into(),
            });
        }
        // log-alert-gpu-idle, log-alert-gpu-vram, log-alert-gpu-faults,
        // log-alert-gpu-telemetry-missing
        let id = format!(
            "log-alert-gpu-{}",
            a.name.rsplit_once("-gpu-").map_or("rule", |(_, s)| s)
        );
        // a rule split by dimensions is billed per time series it monitors: every combination
        // of dimension values its query returns (Learn, "Create or edit a log search alert
        // rule": each time series "is charged separately")
        let (series, assumption) = if a.sym == "gpuAlertVram" {
            (
                u.instance_hours
                    .map(|h| (h / HOURS_PER_MONTH * f64::from(g.expected_gpus)).max(1.0)),
                format!(
                    "one time series per GPU ({} per VM) of the instances running on average (instance-hours / 730): the query returns every GPU, under the threshold too",
                    g.expected_gpus
                ),
            )
        } else if a.sym == "gpuAlertIdle" || a.sym == "gpuAlertSilent" {
            (
                Cases::all(1.0),
                if a.dimensions.is_empty() {
                    "one time series: the pool".to_string()
                } else {
                    "one time series: the dev box's VM".to_string()
                },
            )
        } else {
            (
                Cases::all(1.0),
                format!(
                    "one time series while all is well: the query returns only VMs with a fault, and each {} combination adds one while it lasts",
                    a.dimensions.join("/")
                ),
            )
        };
        lines.push(Line {
            id: id.clone(),
            group: "monitoring".into(),
            label: format!(
                "Log search alert rule {} (every {})",
                a.name, a.evaluation_frequency
            ),
            unit_price,
            unit: "time series-month".into(),
            quantity: series,
            amount: series.map(|q| unit_price.map(|p| p * q)),
            assumption,
            source: unit_price.map(|_| "monitor".into()),
        });
    }
}

fn fixed_lines(
    plan: &Plan,
    f: &FixedPrices,
    o: &Options,
    lines: &mut Vec<Line>,
    missing: &mut Vec<Missing>,
) {
    let h = HOURS_PER_MONTH;
    if let Some(nat) = &plan.network.nat {
        lines.push(Line::from(Fixed {
            id: "nat-gateway",
            group: "network",
            // Standard and StandardV2 gateways are the same price (Learn, "Azure NAT Gateway SKUs")
            label: format!("NAT gateway ({})", nat.sku),
            unit_price: Some(f.nat_gateway_hourly),
            unit: "hour",
            quantity: h,
            assumption:
                "always on: the scale set's only outbound path (driver downloads, package mirrors)"
                    .into(),
            source: "network",
        }));
        lines.push(Line::from(Fixed {
            id: "nat-data",
            group: "network",
            label: "NAT gateway data processed".into(),
            unit_price: Some(f.nat_gateway_per_gb),
            unit: "GB",
            quantity: o.nat_gb_per_month,
            assumption: format!("{} GB/month assumed (driver and image downloads at scale-out, outbound calls); set --nat-gb", count(o.nat_gb_per_month)),
            source: "network",
        }));
        lines.push(Line::from(Fixed {
            id: "public-ip",
            group: "network",
            label: format!("Public IP ({}, static) of the NAT gateway", nat.sku),
            unit_price: Some(f.public_ip_hourly),
            unit: "hour",
            quantity: h,
            assumption: if nat.sku == "Standard" {
                "one IP, always on".into()
            } else {
                "one IP, always on; priced as a Standard IP (the embedded table has no StandardV2 row)".into()
            },
            source: "network",
        }));
    }
    let kv = &plan.vault;
    if kv.private_endpoint.is_some() {
        lines.push(Line::from(Fixed {
            id: "kv-private-endpoint",
            group: "network",
            label: "Private endpoint (Key Vault)".into(),
            unit_price: Some(f.private_endpoint_hourly),
            unit: "hour",
            quantity: h,
            assumption: "public network access is off: the vault is reached through a private endpoint (its data processing is negligible)".into(),
            source: "network",
        }));
        // landing zones: the platform team's zone (or Policy) serves the record; none here
        if plan.network.dns.create {
            lines.push(Line::from(Fixed {
                id: "kv-private-dns",
                group: "network",
                label: "Private DNS zone privatelink.vaultcore.azure.net".into(),
                unit_price: Some(f.private_dns_zone_monthly),
                unit: "month",
                quantity: 1.0,
                assumption: "one zone; DNS queries are negligible".into(),
                source: "network",
            }));
        }
    }
    // monitoring: a landing zone's central workspace bills its ingestion and retention on the
    // workspace resource, to its owner ("Charges related to data ingestion and retention are
    // made on the workspace resource", Learn, "Manage access to Log Analytics workspaces");
    // `assumptions` says so
    let gb_month = o.log_gb_per_day * h / 24.0;
    if plan.monitoring.workspace.existing.is_none() {
        lines.push(Line::from(Fixed {
        id: "log-ingestion",
        group: "monitoring",
        label: "Log Analytics ingestion (Analytics Logs)".into(),
        unit_price: Some(f.log_analytics_per_gb),
        unit: "GB",
        quantity: gb_month,
        assumption: format!("{} GB/day assumed (diagnostic settings of {}); set --log-gb-per-day; the 5 GB/month free allowance is not deducted", count(o.log_gb_per_day), diagnostics_sources(plan)),
        source: "monitor",
    }));
        let days = plan.monitoring.workspace.retention_days;
        if days > f.log_analytics_free_retention_days {
            let extra = days - f.log_analytics_free_retention_days;
            lines.push(Line::from(Fixed {
            id: "log-retention",
            group: "monitoring",
            label: format!("Log Analytics retention beyond {} days", f.log_analytics_free_retention_days),
            unit_price: Some(f.log_analytics_retention_per_gb_month),
            unit: "GB-month",
            quantity: o.log_gb_per_day * extra as f64,
            assumption: format!("logRetentionDays {days}: {extra} days of data kept beyond the included {} days at steady state", f.log_analytics_free_retention_days),
            source: "monitor",
        }));
        }
    }
    let queue = plan.queue.as_ref();
    let alerts = &plan.monitoring.alerts;
    let prefix = format!("alert-{}-", plan.name);
    let names: Vec<&str> = alerts
        .iter()
        .map(|a| a.name.strip_prefix(&prefix).unwrap_or(&a.name))
        .collect();
    let mut free = Vec::new();
    if plan.monitoring.action_group.is_some() {
        free.push("the action group's emails");
    }
    if plan.monitoring.budget.is_some() {
        free.push("the budget");
    }
    lines.push(Line::from(Fixed {
        id: "metric-alerts",
        group: "monitoring",
        label: "Metric alert rules".into(),
        unit_price: Some(f.metric_alert_monthly),
        unit: "rule-month",
        quantity: alerts.len() as f64,
        assumption: format!(
            "{} rule(s), one time series each: {}{}",
            alerts.len(),
            names.join(", "),
            if free.is_empty() {
                String::new()
            } else {
                format!(
                    "; {} {} free",
                    free.join(" and "),
                    if free.len() > 1 { "are" } else { "is" }
                )
            }
        ),
        source: "monitor",
    }));
    // security: an RSA 3072/4096 or EC key is an "advanced" key, billed at a higher rate
    let cmk = plan.cmk.as_ref();
    let advanced = cmk.filter(|c| advanced_key(c));
    let (ops_price, ops_rate) = match advanced {
        Some(c) => (
            f.key_vault_advanced_key_per10k_operations,
            format!(
                "; priced at the {} key's 'advanced key' rate, an upper bound (secret reads bill ${}/10k)",
                key_name(c),
                f.key_vault_per10k_operations
            ),
        ),
        None => (f.key_vault_per10k_operations, String::new()),
    };
    // an existing vault's operations are billed to the vault's subscription (`assumptions`)
    if plan.vault.existing.is_none() {
        lines.push(Line::from(Fixed {
        id: "kv-operations",
        group: "security",
        label: format!("Key Vault ({}) operations", kv.sku),
        unit_price: Some(ops_price),
        unit: "10k operations",
        quantity: o.key_vault_operations_per_month / 10_000.0,
        assumption: format!(
            "{} operations/month assumed (secret reads at boot, key wrap/unwrap); set --key-vault-ops{ops_rate}",
            count(o.key_vault_operations_per_month)
        ),
        source: "security",
    }));
    }
    if let Some(cmk) = cmk {
        if cmk.kty.ends_with("-HSM") {
            let (monthly, which) = if advanced.is_some() {
                (
                    f.key_vault_hsm_advanced_key_monthly,
                    "advanced key, the first 250 keys' rate",
                )
            } else {
                (f.key_vault_hsm_key_monthly, "RSA 2048 rate")
            };
            lines.push(Line::from(Fixed {
                id: "kv-hsm-key",
                group: "security",
                label: format!("HSM-protected disk encryption key ({})", key_name(cmk)),
                unit_price: Some(monthly),
                unit: "key-month",
                quantity: 1.0,
                assumption: format!("one {} key on a Premium vault ({which})", key_name(cmk)),
                source: "security",
            }));
        }
        let months = iso_months(cmk.rotate_after);
        lines.push(Line::from(Fixed {
            id: "kv-key-rotation",
            group: "security",
            label: "Automated rotation of the disk encryption key".into(),
            unit_price: months.map(|_| f.key_vault_rotation),
            unit: "rotation",
            quantity: months.map(|m| 1.0 / m).unwrap_or_default(),
            assumption: format!(
                "one scheduled rotation every {} (rotation policy)",
                cmk.rotate_after
            ),
            source: "security",
        }));
        if months.is_none() {
            missing.push(Missing {
                line: "kv-key-rotation".into(),
                price: format!("key rotations every {}", cmk.rotate_after),
                help: "gpuform cannot read this rotation period".into(),
            });
        }
        lines.push(Line::from(Fixed {
            id: "disk-encryption-set",
            group: "security",
            label: "Disk encryption set".into(),
            unit_price: Some(0.0),
            unit: "month",
            quantity: 1.0,
            assumption: "no charge; its key operations are in the Key Vault line".into(),
            source: "security",
        }));
    }
    // messaging
    if let Some(q) = queue.filter(|q| q.create) {
        if q.kind == QueueKind::ServiceBus {
            // the embedded table prices the Standard tier only
            let hourly = (q.sku == "Standard").then_some(f.service_bus_standard_hourly);
            if hourly.is_none() {
                missing.push(Missing {
                    line: "service-bus".into(),
                    price: format!("a Service Bus {} namespace", q.sku),
                    help: "gpuform's fixed price table has Service Bus Standard prices only".into(),
                });
            }
            lines.push(Line::from(Fixed {
                id: "service-bus",
                group: "messaging",
                label: format!("Service Bus {} namespace {}", q.sku, q.parent),
                unit_price: hourly,
                unit: "hour",
                quantity: h,
                assumption: "Standard tier base charge (private endpoints need Premium, about $677 per messaging unit-month: not priced)".into(),
                source: "messaging",
            }));
            let over = (o.queue_operations_per_month / 1e6
                - f.service_bus_included_operations_millions)
                .max(0.0);
            lines.push(Line::from(Fixed {
                id: "service-bus-operations",
                group: "messaging",
                label: "Service Bus operations above the included 13 million".into(),
                unit_price: hourly.map(|_| f.service_bus_per_million_operations),
                unit: "million operations",
                quantity: over,
                assumption: format!(
                    "{} million operations/month assumed (--queue-ops)",
                    count(o.queue_operations_per_month / 1e6)
                ),
                source: "messaging",
            }));
        }
        if q.kind == QueueKind::Storage {
            let price = f.storage_queue_per10k_operations.get(q.sku).copied();
            if price.is_none() {
                missing.push(Missing {
                    line: "storage-queue-operations".into(),
                    price: format!("queue operations on a {} storage account", q.sku),
                    help: "gpuform's fixed price table has no queue price for this SKU".into(),
                });
            }
            lines.push(Line::from(Fixed {
                id: "storage-queue-operations",
                group: "messaging",
                label: format!(
                    "Storage queue operations ({} {}/{})",
                    q.sku, q.parent, q.queue
                ),
                unit_price: price,
                unit: "10k operations",
                quantity: o.queue_operations_per_month / 10_000.0,
                assumption: format!(
                    "{} operations/month assumed (--queue-ops); queue capacity is negligible",
                    count(o.queue_operations_per_month)
                ),
                source: "messaging",
            }));
        }
        if q.private_endpoint.is_some() {
            lines.push(Line::from(Fixed {
                id: "storage-private-endpoint",
                group: "network",
                label: "Private endpoint (storage queue)".into(),
                unit_price: Some(f.private_endpoint_hourly),
                unit: "hour",
                quantity: h,
                assumption: "the storage account is reached through a private endpoint".into(),
                source: "network",
            }));
            if plan.network.dns.create {
                lines.push(Line::from(Fixed {
                    id: "storage-private-dns",
                    group: "network",
                    label: "Private DNS zone privatelink.queue.core.windows.net".into(),
                    unit_price: Some(f.private_dns_zone_monthly),
                    unit: "month",
                    quantity: 1.0,
                    assumption: "one zone".into(),
                    source: "network",
                }));
            }
        }
    }
}

/// The disk type of a plan's `storageAccountType`.
fn disk_type(sku: &str) -> Option<DiskType> {
    serde_json::from_value(serde_json::Value::from(sku)).ok()
}

/// The resources whose diagnostic settings send logs to the workspace, in words.
fn diagnostics_sources(plan: &Plan) -> String {
    let what: Vec<&str> = plan
        .monitoring
        .diagnostics
        .iter()
        .map(|d| match d.target {
            "vault" => "the Key Vault",
            "autoscale" => "the autoscale setting",
            "sbNamespace" => "the Service Bus namespace",
            "storageQueueService" => "the storage queue service",
            other => other,
        })
        .collect();
    match what.split_last() {
        None => "no resource".into(),
        Some((last, [])) => (*last).into(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// Key Vault bills RSA 3072/4096 and elliptic-curve keys as "advanced" keys.
fn advanced_key(c: &Cmk) -> bool {
    c.kty.starts_with("EC") || c.key_size > 2048
}

/// `RSA-HSM 3072`.
fn key_name(c: &Cmk) -> String {
    format!("{} {}", c.kty, c.key_size)
}

/// Months in an ISO 8601 period of whole years, months or days (`P1Y`, `P6M`, `P90D`).
fn iso_months(period: &str) -> Option<f64> {
    let body = period.strip_prefix('P')?;
    let unit = body.chars().last()?;
    let n: f64 = body[..body.len() - 1].parse().ok()?;
    let months = match unit {
        'Y' => n * 12.0,
        'M' => n,
        'D' => n * 12.0 / 365.0,
        _ => return None,
    };
    (months > 0.0).then_some(months)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_periods_in_months() {
        assert_eq!(iso_months("P1Y"), Some(12.0));
        assert_eq!(iso_months("P6M"), Some(6.0));
        assert_eq!(iso_months("P365D"), Some(12.0));
        assert_eq!(iso_months("P0Y"), None);
        assert_eq!(iso_months("PT1H"), None);
        assert_eq!(iso_months("1Y"), None);
    }
}
