//! The estimate of a checked, planned spec: usage per case, the compute lines, the fixed
//! lines, levers, budget, sources and notes.

use std::collections::BTreeMap;

use crate::catalog::GpuSize;
use crate::catalog::prices::{PriceKind, PriceOs};
use crate::plan::Plan;
use crate::spec::model::{EvictionPolicy, Spec};

use super::book::{PriceBook, Priced};
use super::fixed::DiskPrice;
use super::lines::disk_type;
use super::lines::{fixed_lines, gpu_monitoring_lines};
use super::model::*;
use super::money::count;
use super::usage::{self, Cases, HOURS_PER_MONTH, Priority};
use super::{currency, gates, levers, retail, sovereign};

const PRICES_HELP: &str = "no source gpuform has prices it offline: `gpuform cost SPEC --refresh-prices` (or `gpuform simulate SPEC ... --refresh-prices`) fetches it from the Retail Prices API; offline, give --prices FILE (Retail Prices API JSON, such as the cache file --refresh-prices writes)";

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
    let cur = book.currency;
    let mut lines: Vec<Line> = Vec::new();
    let mut missing: Vec<Missing> = Vec::new();
    let os_name = retail::os_label(os);

    // compute
    let vm_price = |kind| book.vm(&size.name, &region, os, kind);
    let vm_help = |kind| currency::vm_help(book, &size.name, &region, os, kind);
    let od = vm_price(PriceKind::OnDemand);
    lines.push(vm_line(
        "compute-regular",
        format!("{} regular, pay-as-you-go ({os_name})", size.name),
        od.as_ref(),
        u.regular_hours,
        regular_assumption(&priority),
        (
            format!("{os_name} pay-as-you-go price of {} in {region}", size.name),
            vm_help(PriceKind::OnDemand),
        ),
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
            } else if cur.is_usd() {
                format!("; maxPrice ${}/h", sp.max_price)
            } else {
                // Azure takes the Spot max price in US dollars, whatever the billing currency
                format!(
                    "; maxPrice ${}/h (US dollars, as Azure takes it)",
                    sp.max_price
                )
            }
        );
        lines.push(vm_line(
            "compute-spot",
            format!("{} spot ({os_name})", size.name),
            spot.as_ref(),
            u.spot_hours,
            assumption,
            (
                format!("{os_name} spot price of {} in {region}", size.name),
                vm_help(PriceKind::Spot),
            ),
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
            // an embedded (USD) disk price in a book in another currency without a rate: missing
            Some(kind) => match f.disk(kind, gib) {
                DiskPrice::Tier { ref source, .. } | DiskPrice::PerGib { ref source, .. }
                    if !book.embedded_usable() && book.is_embedded(source) =>
                {
                    DiskPrice::Missing {
                        what: format!(
                            "{cur} price of a {} disk of {gib} GiB (the embedded table has it in USD only)",
                            kind.as_str()
                        ),
                    }
                }
                p => p,
            },
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
                    "{what} {sku} {gib} GiB (billed as {tier}, {tier_gib} GiB, {}/month)",
                    cur.amount(monthly)
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
                    "{what} {sku} {gib} GiB ({}/GiB-month, baseline IOPS/throughput)",
                    cur.unit(per_gib_month)
                ),
                Some(monthly),
                Some(source),
            ),
            DiskPrice::Missing { what: price } => {
                missing.push(Missing {
                    line: id.clone(),
                    price,
                    help: currency::disk_help(book),
                });
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
            converted: source
                .as_ref()
                .filter(|s| book.is_embedded(s))
                .and(book.rate.as_ref())
                .map(|r| r.describe()),
            source,
        });
    }

    // the standby pool (issue 23): its own line, at its largest
    let standby = plan.standby.as_ref().map(|p| {
        super::standby::price(
            p,
            s.capacity.min,
            disk_hourly_total.map(|h| h * HOURS_PER_MONTH),
            od.as_ref().map(|o| o.hourly),
        )
    });
    if let Some(c) = &standby {
        if c.monthly.is_none() {
            missing.push(Missing {
                line: "standby-pool".into(),
                price: "the disk (or VM) price of the pool's VMs".into(),
                help: currency::disk_help(book),
            });
        }
        lines.push(Line {
            id: "standby-pool".into(),
            group: "standby".into(),
            label: c.label.clone(),
            unit_price: c.per_vm_monthly,
            unit: "pooled VM-month".into(),
            quantity: Cases::all(f64::from(c.vms)),
            amount: Cases::all(c.monthly),
            converted: None,
            assumption: format!(
                "the pool at its largest, max(maxReady - capacity.min, minReady) = {} VMs, all month; a {} VM bills {} (standby-pools overview); `gpuform simulate` replays how many wait",
                c.vms,
                c.vm_state.to_lowercase(),
                if c.compute_monthly.is_some_and(|x| x > 0.0) {
                    "compute, disks and networking"
                } else {
                    "no compute, only its disks (and networking)"
                }
            ),
            source: None,
        });
    }

    fixed_lines(plan, f, opts, &mut lines, &mut missing);
    super::serving::serving_lines(plan, f, opts, &mut lines);
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

    // in another currency than USD: the embedded figures are converted (said on each line) or,
    // without a rate, withheld (currency.rs)
    currency::settle(book, &mut lines, &mut missing);

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

    let budget = gates::budget_check(plan, &totals, cur);
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
        standby,
        schema_version: SCHEMA_VERSION,
        spec: spec.metadata.name.clone(),
        file: file.to_string(),
        region,
        vm_size: size.name.clone(),
        os,
        currency: cur.code().into(),
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
    v.extend(super::serving::assumptions(plan, o));
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
/// `missing` (described by `what`, with its help when it has one).
fn vm_line(
    id: &str,
    label: String,
    price: Option<&Priced>,
    hours: Cases<f64>,
    assumption: String,
    (what, help): (String, Option<String>),
    missing: &mut Vec<Missing>,
) -> Line {
    if price.is_none() {
        missing.push(Missing {
            line: id.into(),
            price: what,
            help: help.unwrap_or_else(|| PRICES_HELP.into()),
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
        converted: price
            .and_then(|p| p.converted.as_ref())
            .map(|r| r.describe()),
    }
}
