//! The budget against the least the pool can cost: the instances the scaling policy never goes
//! below, running all month at the price table's pay-as-you-go price. A budget under that floor
//! is exceeded before the first job (issue 37, item 6); `gpuform cost` prices the whole bill.

use super::context::{Context, per_hour};
use crate::catalog::GpuSize;
use crate::catalog::prices::{PriceKind, PriceOs};
use crate::diag::Diagnostic;
use crate::report::number::{count, money};

/// Hours in the month every gpuform estimate uses (8760 / 12).
const HOURS_PER_MONTH: f64 = 730.0;

/// The least `spec`'s pool runs, whatever the load: the scaling policy's lowest minimum (a fixed
/// pool's count; with autoscale the smaller of `capacity.min` and every schedule's `min`). `None`
/// for a dev box (`autoShutdown` stops it nights and weekends).
fn floor_instances(s: &crate::spec::model::WorkloadSpec) -> Option<u32> {
    // a dev box stops; min above max is capacity-order's error, with no floor to speak of
    if s.auto_shutdown.is_some() || s.capacity.min > s.capacity.max {
        return None;
    }
    Some(match &s.autoscale {
        None => s.capacity.default_count(),
        Some(a) => a
            .schedules
            .iter()
            .map(|x| x.min)
            .fold(s.capacity.min, u32::min),
    })
}

/// The floor's monthly cost: its regular instances at the on-demand price and its Spot ones at
/// the Spot price (counted at 0 when the table has none: still a floor). `None` without an
/// on-demand price for the size in the region.
pub fn floor_monthly(ctx: &Context<'_>, size: &GpuSize) -> Option<(u32, f64, f64)> {
    let s = &ctx.spec.spec;
    let n = floor_instances(s)?;
    let od = ctx
        .prices
        .hourly(&size.name, &s.region, PriceOs::Linux, PriceKind::OnDemand)?;
    let regular = s.capacity.regular_of(n);
    let spot = ctx
        .prices
        .hourly(&size.name, &s.region, PriceOs::Linux, PriceKind::Spot)
        .unwrap_or(0.0);
    let monthly = (f64::from(regular) * od + f64::from(n - regular) * spot) * HOURS_PER_MONTH;
    Some((n, od, monthly))
}

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
    let Some(b) = &s.monitoring.budget else {
        return;
    };
    let Some(size) = ctx.size() else { return };
    let Some((n, od, floor)) = floor_monthly(ctx, size) else {
        return;
    };
    // prices and budget in one currency only: validate has no exchange rate (a converted
    // comparison is `gpuform cost`'s, with prices fetched in the budget's currency); say so
    // rather than pass silently
    let table = ctx.prices.currency;
    if !b.currency.eq_ignore_ascii_case(table.code()) {
        if n > 0 {
            out.push(
                Diagnostic::new(
                    "budget-floor-not-compared",
                    format!(
                        "monitoring.budget.monthly is in {}, the price table in {table}: the floor of {} of {} all month ({}) is not compared with it",
                        b.currency,
                        if n == 1 { "1 instance".to_string() } else { format!("{} instances", count(f64::from(n))) },
                        size.name,
                        table.amount(floor)
                    ),
                )
                .at("/spec/monitoring/budget/currency")
                .help(format!(
                    "run `gpuform cost SPEC --refresh-prices` (prices in {0} from the Retail Prices API) to compare the estimate with the budget in {0}",
                    b.currency
                )),
            );
        }
        return;
    }
    if n == 0 || floor <= b.monthly {
        return;
    }
    let regular = s.capacity.regular_of(n);
    let spot = if regular < n {
        format!(
            " ({regular} on regular priority; the Spot ones at their Spot price, or 0 where none is known)"
        )
    } else {
        String::new()
    };
    out.push(
        Diagnostic::new(
            "budget-below-floor",
            format!(
                "monitoring.budget.monthly {} is less than the pool costs at its minimum: {} of {} all month, {}",
                money(b.monthly),
                if n == 1 { "1 instance".to_string() } else { format!("{} instances", count(f64::from(n))) },
                size.name,
                money(floor)
            ),
        )
        .at("/spec/monitoring/budget/monthly")
        .label(format!("below the floor of {}", money(floor)))
        .help(format!(
            "raise the budget to at least {} (`gpuform cost` estimates the whole bill: disks, network and monitoring come on top), or lower the minimum the pool keeps (capacity.min, schedules' min; with autoscale.queue it can scale to 0)",
            money(floor)
        ))
        .note(format!(
            "{} x {} x {} h a month{spot}, pay-as-you-go prices of {}",
            count(f64::from(n)),
            per_hour(Some(od)),
            count(HOURS_PER_MONTH),
            s.region
        )),
    );
}
