//! Saving levers, each priced in the expected case against the same week: spot above the base,
//! a 1- or 3-year reservation for the regular base, a narrower precision that lets a smaller
//! size fit, the scale-down schedules (nights, weekends, autoShutdown), and for `vmSize: auto`
//! the size the estimate's own prices would pick (render ranks with the embedded table).

use crate::catalog::GpuSize;
use crate::catalog::prices::{PriceKind, PriceOs};
use crate::plan::Plan;
use crate::report::number::{count, percent};
use crate::sizing;
use crate::spec::model::{Precision, Spec, Workload, WorkloadType};
use crate::spec::schedule::{self, Origin};

use super::book::{PriceBook, Priced, pool_cost};
use super::model::{Lever, Options};
use super::usage::{self, HOURS_PER_MONTH, Priority, Usage};

fn lever(
    id: &str,
    label: impl Into<String>,
    monthly: Option<f64>,
    status: &str,
    detail: impl Into<String>,
    sources: Vec<String>,
) -> Lever {
    Lever {
        id: id.into(),
        label: label.into(),
        monthly,
        status: status.into(),
        detail: detail.into(),
        sources,
    }
}

/// An hourly price with 4 decimals in the book's currency (`$0.7520`, `EUR 0.6931`).
fn h4(pool: &Pool, x: f64) -> String {
    pool.book.currency.per_hour(x)
}

/// The priced pool the levers compare against.
#[derive(Clone, Copy)]
pub struct Pool<'a> {
    pub spec: &'a Spec,
    pub plan: &'a Plan,
    /// The plan's VM size.
    pub size: &'a GpuSize,
    pub book: &'a PriceBook,
    pub u: &'a Usage,
    /// The size's pay-as-you-go and spot prices.
    pub od: Option<&'a Priced>,
    pub spot: Option<&'a Priced>,
    /// The disks' price per instance-hour.
    pub disk: Option<f64>,
    pub opts: &'a Options,
    /// The spec said `vmSize: auto`.
    pub auto_sized: bool,
}

pub fn levers(pool: &Pool) -> Vec<Lever> {
    let mut out = Vec::new();
    out.extend(auto_size_lever(pool));
    out.push(spot_lever(pool));
    out.extend(reservation_levers(pool));
    out.extend(precision_levers(pool));
    out.push(schedule_lever(pool));
    out
}

/// The cheapest catalog size for `workload` ranked with the estimate's prices, as `vmSize: auto`
/// ranks: fit, price and every size-dependent rule of the spec (cost's only call of
/// [`crate::check::rank_sizes`]; the default policy's severities).
fn cheapest_fit(pool: &Pool, workload: &Workload) -> Option<&'static GpuSize> {
    let mut spec = pool.spec.clone();
    spec.spec.workload = workload.clone();
    spec.spec.region = spec.spec.region.to_ascii_lowercase();
    crate::check::rank_sizes(
        &spec,
        std::path::Path::new("."),
        &crate::spec::Policy::default(),
        &pool.book.merged,
    )
    .chosen_size()
}

/// `vmSize: auto` is resolved with the embedded price table, as render does, so the estimate
/// prices the size render emits. When `--prices`/`--refresh-prices` rank another size first,
/// say what pinning that size would be worth.
fn auto_size_lever(pool: &Pool) -> Option<Lever> {
    let Pool {
        spec,
        plan,
        size,
        book,
        u,
        od,
        spot,
        disk,
        ..
    } = *pool;
    if !pool.auto_sized || book.overlays().is_empty() {
        return None;
    }
    let alt = cheapest_fit(pool, &spec.spec.workload)?;
    if alt.name.eq_ignore_ascii_case(&size.name) {
        return None;
    }
    let region = spec.spec.region.to_ascii_lowercase();
    let os = super::model::price_os(plan);
    let spot = if u.spot_hours.high > 0.0 { spot } else { None };
    let od2 = book.vm(&alt.name, &region, os, PriceKind::OnDemand);
    let spot2 = spot.and_then(|_| book.vm(&alt.name, &region, os, PriceKind::Spot));
    let sources = srcs(&[od, spot, od2.as_ref(), spot2.as_ref()]);
    let label = format!(
        "vmSize: {} (what vmSize: auto picks with these prices)",
        alt.name
    );
    let why = format!(
        "render ranks vmSize: auto with gpuform's embedded price table and deploys {}; ranked with the prices of this estimate, auto would pick {}",
        size.name, alt.name
    );
    let current = pool_cost(u, od.map(|p| p.hourly), spot.map(|p| p.hourly), disk);
    let other = pool_cost(
        u,
        od2.as_ref().map(|p| p.hourly),
        spot2.as_ref().map(|p| p.hourly),
        disk,
    );
    Some(match (current, other, od2.as_ref(), od) {
        (Some(c), Some(a), Some(p2), Some(p1)) => {
            let v = c.expected - a.expected;
            lever(
                "vm-size",
                label,
                Some(v),
                if v > 0.0 { "available" } else { "not-worth-it" },
                format!(
                    "{why} ({} instead of {} pay-as-you-go): set `vmSize: {}` to deploy it",
                    h4(pool, p2.hourly),
                    h4(pool, p1.hourly),
                    alt.name
                ),
                sources,
            )
        }
        _ => lever(
            "vm-size",
            label,
            None,
            "missing-price",
            format!(
                "{why}, but {}",
                missing_prices(
                    &[
                        (&size.name, od, spot),
                        (&alt.name, od2.as_ref(), spot2.as_ref())
                    ],
                    u,
                    disk,
                    &region
                )
            ),
            sources,
        ),
    })
}

/// Which price a comparison lacks, in words: the on-demand or the Spot price of which size (a
/// pool with Spot hours needs both), or the disk price.
fn missing_prices(
    sizes: &[(&str, Option<&Priced>, Option<&Priced>)],
    u: &super::usage::Usage,
    disk: Option<f64>,
    region: &str,
) -> String {
    let spot_needed = u.spot_hours.high > 0.0 || u.spot_hours.expected > 0.0;
    let mut gaps = Vec::new();
    for (name, od, spot) in sizes {
        if od.is_none() {
            gaps.push(format!("the pay-as-you-go price of {name} in {region}"));
        }
        if spot_needed && spot.is_none() {
            gaps.push(format!("the Spot price of {name} in {region}"));
        }
    }
    if disk.is_none() {
        gaps.push("the OS disk's price".to_string());
    }
    if gaps.is_empty() {
        return "a price is missing".to_string();
    }
    format!(
        "{} {} missing (supply {} with --prices FILE, or --refresh-prices)",
        gaps.join(" and "),
        if gaps.len() == 1 { "is" } else { "are" },
        if gaps.len() == 1 { "it" } else { "them" }
    )
}

fn srcs(p: &[Option<&Priced>]) -> Vec<String> {
    let mut v: Vec<String> = p.iter().flatten().map(|p| p.source.clone()).collect();
    v.dedup();
    v
}

fn spot_lever(pool: &Pool) -> Lever {
    let Pool {
        spec,
        plan,
        size,
        u,
        od,
        spot,
        opts,
        ..
    } = *pool;
    let s = &spec.spec;
    let c = &s.capacity;
    let label = "Spot above the regular base";
    let sources = srcs(&[od, spot]);
    if plan.compute.spot.is_some() {
        return match (od, spot) {
            (Some(o), Some(p)) => {
                let v = u.spot_hours.expected * (o.hourly - p.hourly);
                lever(
                    "spot",
                    label,
                    Some(v),
                    "applied",
                    format!(
                        "{} spot instance-hours/month at {} instead of {} pay-as-you-go (the same pool all on regular priority would cost {} more)",
                        count(u.spot_hours.expected.round()),
                        h4(pool, p.hourly),
                        h4(pool, o.hourly),
                        pool.book.currency.amount(v)
                    ),
                    sources,
                )
            }
            _ => lever(
                "spot",
                label,
                None,
                "missing-price",
                "needs both the pay-as-you-go and the spot price of the size",
                sources,
            ),
        };
    }
    if !s.workload.interruptible {
        return lever(
            "spot",
            label,
            None,
            "not-applicable",
            "workload.interruptible is false: an eviction would lose work",
            sources,
        );
    }
    if size.spot_capable == Some(false) {
        return lever(
            "spot",
            label,
            None,
            "not-applicable",
            format!("{} is not offered on Spot", size.name),
            sources,
        );
    }
    if c.regular_base >= c.max {
        return lever(
            "spot",
            label,
            None,
            "not-applicable",
            "capacity.regularBase covers capacity.max: nothing runs above the base",
            sources,
        );
    }
    let mut all_spot = c.clone();
    all_spot.regular_percent_above_base = 0;
    let u2 = usage::usage(
        s,
        &Priority::Mix(all_spot),
        opts.expected_utilization_percent / 100.0,
    );
    match (od, spot) {
        (Some(o), Some(p)) => {
            let v = u2.spot_hours.expected * (o.hourly - p.hourly);
            lever(
                "spot",
                label,
                Some(v),
                "available",
                format!(
                    "set capacity.regularPercentAboveBase: 0 (Flexible orchestration): {} instance-hours/month above regularBase {} would run on Spot at {}",
                    count(u2.spot_hours.expected.round()),
                    c.regular_base,
                    h4(pool, p.hourly)
                ),
                sources,
            )
        }
        _ => lever(
            "spot",
            label,
            None,
            "missing-price",
            "needs both the pay-as-you-go and the spot price of the size",
            sources,
        ),
    }
}

fn reservation_levers(pool: &Pool) -> Vec<Lever> {
    let Pool {
        spec,
        plan,
        size,
        book,
        u,
        ..
    } = *pool;
    let s = &spec.spec;
    let region = s.region.to_ascii_lowercase();
    let (n, who) = if s.capacity.regular_base > 0 {
        (
            s.capacity.regular_base,
            format!("the regular base ({})", s.capacity.regular_base),
        )
    } else {
        let n = usage::always_on_regular(u);
        (n, format!("the {n} instance(s) that run all week"))
    };
    let terms = [
        (
            PriceKind::Reserved1Y,
            "reservation-1y",
            "1-year reservation",
        ),
        (
            PriceKind::Reserved3Y,
            "reservation-3y",
            "3-year reservation",
        ),
    ];
    // a reservation covers compute only: compare with the Linux pay-as-you-go rate (a Windows
    // pool keeps paying its license by the hour either way)
    let od_linux = book.vm(&size.name, &region, PriceOs::Linux, PriceKind::OnDemand);
    terms
        .iter()
        .map(|(kind, id, label)| {
            let label = format!("{label} for {who}");
            if n == 0 {
                return lever(id, label, None, "not-applicable", "no regular instance runs all month (regularBase is 0 and the pool scales below 1): a reservation would sit idle", vec![]);
            }
            let res = book.vm(&size.name, &region, PriceOs::Linux, *kind);
            let (Some(r), Some(o)) = (res.as_ref(), od_linux.as_ref()) else {
                let what = if res.is_none() { "no reservation price" } else { "no Linux pay-as-you-go price" };
                return lever(
                    id,
                    label,
                    None,
                    "missing-price",
                    format!("{what} for {} in {region}: supply Retail Prices API items with priceType Reservation via --prices FILE, or --refresh-prices", size.name),
                    srcs(&[res.as_ref(), od_linux.as_ref()]),
                );
            };
            let covered = usage::reservation_coverage(u, n);
            let paid = f64::from(n) * HOURS_PER_MONTH;
            let v = covered * o.hourly - paid * r.hourly;
            let util = if paid > 0.0 { covered / paid * 100.0 } else { 0.0 };
            let status = if v > 0.0 { "available" } else { "not-worth-it" };
            lever(
                id,
                label,
                Some(v),
                status,
                format!(
                    "{n} reserved instance(s) at {} effective, paid for all {HOURS_PER_MONTH} h; in the expected case they are used {} of the month ({} of {} h) instead of {} pay-as-you-go{}",
                    h4(pool, r.hourly),
                    percent(util),
                    count(covered.round()),
                    count(paid.round()),
                    h4(pool, o.hourly),
                    if plan.params.windows { "; the Windows license stays pay-as-you-go" } else { "" }
                ),
                srcs(&[Some(r), Some(o)]),
            )
        })
        .collect()
}

fn precision_levers(pool: &Pool) -> Vec<Lever> {
    let Pool {
        spec,
        plan,
        size,
        book,
        u,
        od,
        spot,
        disk,
        ..
    } = *pool;
    let s = &spec.spec;
    let Some(p) = s.workload.precision else {
        return vec![lever(
            "precision",
            "Narrower precision (FP16/INT8)",
            None,
            "not-applicable",
            "workload.precision is not set",
            vec![],
        )];
    };
    let mut targets = Vec::new();
    if p.bytes_per_param() > 2.0 {
        targets.push(Precision::Fp16);
    }
    // INT8 is an inference technique (post-training quantization); training keeps 16 bits
    let training = s.workload.kind == WorkloadType::Training;
    if p.bytes_per_param() > 1.0 && !training {
        targets.push(Precision::Int8);
    }
    if targets.is_empty() {
        let why = if training && p.bytes_per_param() > 1.0 {
            format!(
                "the workload trains at {}: INT8 quantization is for inference, and 16 bits is as narrow as mixed-precision training goes",
                p.as_str()
            )
        } else {
            format!("the workload already runs at {}", p.as_str())
        };
        return vec![lever(
            "precision",
            "Narrower precision (FP16/INT8)",
            None,
            "not-applicable",
            why,
            vec![],
        )];
    }
    let region = s.region.to_ascii_lowercase();
    let os = super::model::price_os(plan);
    // spot prices matter only to a pool that runs spot instances
    let spot = if u.spot_hours.high > 0.0 { spot } else { None };
    let current = pool_cost(u, od.map(|p| p.hourly), spot.map(|p| p.hourly), disk);
    let mut opened: Option<String> = None;
    // the size the workload needs at its own precision: a lever only counts when the narrower
    // precision opens a size this one does not
    let at_current = cheapest_fit(pool, &s.workload).map(|z| z.name.as_str());
    targets
        .into_iter()
        .map(|t| {
            let id = format!("precision-{}", t.as_str());
            let factor = t.bytes_per_param() / p.bytes_per_param();
            let need = s.workload.gpu_memory_gib * factor;
            let label = format!("{} instead of {} ({} GiB of GPU memory instead of {})", t.as_str().to_uppercase(), p.as_str(), sizing::fmt_num(need), sizing::fmt_num(s.workload.gpu_memory_gib));
            let mut wl = s.workload.clone();
            wl.gpu_memory_gib = need;
            wl.precision = Some(t);
            let Some(chosen) = cheapest_fit(pool, &wl) else {
                return lever(&id, label, None, "not-applicable", "no catalog size fits the reduced memory", vec![]);
            };
            if chosen.name.eq_ignore_ascii_case(&size.name) {
                return lever(&id, label, None, "not-applicable", format!("{} is still the cheapest size that fits", size.name), vec![]);
            }
            if at_current.is_some_and(|c| c.eq_ignore_ascii_case(&chosen.name)) {
                return lever(
                    &id,
                    label,
                    None,
                    "not-applicable",
                    format!("{} is the cheapest size that fits at {} already: {} opens no cheaper size", chosen.name, p.as_str(), t.as_str()),
                    vec![],
                );
            }
            if let Some(prev) = opened.as_deref().filter(|p| p.eq_ignore_ascii_case(&chosen.name)) {
                return lever(&id, label, None, "not-applicable", format!("FP16 already opens {prev}; {} opens no cheaper size", t.as_str()), vec![]);
            }
            opened = Some(chosen.name.clone());
            let od2 = book.vm(&chosen.name, &region, os, PriceKind::OnDemand);
            let spot2 = if u.spot_hours.high > 0.0 { book.vm(&chosen.name, &region, os, PriceKind::Spot) } else { None };
            let cheaper = matches!((od2.as_ref(), od), (Some(a), Some(b)) if a.hourly < b.hourly);
            if !cheaper {
                return lever(&id, label, None, "not-applicable", format!("the cheapest size that fits ({}) is not cheaper than {}", chosen.name, size.name), srcs(&[od2.as_ref(), od]));
            }
            let alt = pool_cost(u, od2.as_ref().map(|p| p.hourly), spot2.as_ref().map(|p| p.hourly), disk);
            let sources = srcs(&[od, spot, od2.as_ref(), spot2.as_ref()]);
            match (current, alt) {
                (Some(c), Some(a)) => lever(&id, label, Some(c.expected - a.expected), "available", format!(
                    "{} ({} GiB) fits instead of {}: same week, mix and disks priced at {} pay-as-you-go; validate model quality at {} first",
                    chosen.name,
                    chosen.gpu_memory_gib.map(sizing::fmt_num).unwrap_or_else(|| "?".into()),
                    size.name,
                    h4(pool, od2.as_ref().map(|p| p.hourly).unwrap_or_default()),
                    t.as_str()
                ), sources),
                _ => lever(&id, label, None, "missing-price", format!("{} would fit, but {}", chosen.name, missing_prices(&[(&size.name, od, spot), (&chosen.name, od2.as_ref(), spot2.as_ref())], u, disk, &region)), sources),
            }
        })
        .collect()
}

fn schedule_lever(pool: &Pool) -> Lever {
    let Pool {
        spec,
        plan,
        u,
        od,
        spot,
        disk,
        opts,
        ..
    } = *pool;
    let s = &spec.spec;
    let util = opts.expected_utilization_percent / 100.0;
    // a schedule scales down when the pool expects fewer instances in it than by default
    let default = u
        .profiles
        .first()
        .map(|p| p.expected_count)
        .unwrap_or_default();
    let down: Vec<(usize, String)> = schedule::profiles(s)
        .into_iter()
        .filter_map(|p| match p.origin {
            Origin::ScheduleStart(i) if usage::expected_count(&p, util) < default => {
                Some((i, p.name))
            }
            _ => None,
        })
        .collect();
    let mut names: Vec<String> = down.iter().map(|(_, n)| n.clone()).collect();
    let mut alt = s.clone();
    if let Some(a) = alt.autoscale.as_mut() {
        // profiles() lists the schedules in order: remove from the back
        for (i, _) in down.iter().rev() {
            a.schedules.remove(*i);
        }
    }
    if alt.auto_shutdown.take().is_some() {
        names.push("autoShutdown".into());
    }
    let label = if names.is_empty() {
        "Scale-down schedules".to_string()
    } else {
        format!("Scale-down schedules ({})", names.join(", "))
    };
    if names.is_empty() {
        let detail = if default == 0.0 {
            "outside its schedules the pool holds 0 instances (default capacity 0): nights and weekends already cost no compute"
        } else {
            "no schedule lowers the pool below its default and there is no autoShutdown: add one for nights or weekends"
        };
        return lever("schedules", label, None, "not-applicable", detail, vec![]);
    }
    let u2 = usage::usage(&alt, &Priority::of(&plan.compute, &s.capacity), util);
    let sources = srcs(&[od, spot]);
    match (
        pool_cost(u, od.map(|p| p.hourly), spot.map(|p| p.hourly), disk),
        pool_cost(&u2, od.map(|p| p.hourly), spot.map(|p| p.hourly), disk),
    ) {
        (Some(with), Some(without)) => lever(
            "schedules",
            label,
            Some(without.expected - with.expected),
            "applied",
            format!(
                "without them the pool would run {} instance-hours/month instead of {} in the expected case",
                count(u2.instance_hours.expected.round()),
                count(u.instance_hours.expected.round())
            ),
            sources,
        ),
        _ => lever(
            "schedules",
            label,
            None,
            "missing-price",
            "a price of the size is missing",
            sources,
        ),
    }
}
