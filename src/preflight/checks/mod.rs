//! The checks, as pure functions of the plan and the data: no I/O, so every verdict and message
//! is unit-tested without a server.

mod common;
mod quota;
mod region;
mod subscription;

#[cfg(test)]
mod tests;

use crate::catalog::prices::{PriceKind, PriceOs, PriceTable};
use crate::spec::model::OsType;

use crate::preflight::data::{RegionData, SubscriptionData};
use crate::preflight::plan::{Plan, Role};
use crate::preflight::report::{Check, Mode, Ranked, RegionReport, Report, Status, Verdict};

pub use region::region_checks;
pub use subscription::subscription_checks;

use common::NOT_CHECKED;
use quota::quota_provider_check;

pub fn verdict(checks: &[&Check]) -> Verdict {
    if checks.iter().any(|c| c.status == Status::Fail) {
        Verdict::Blocked
    } else if checks.iter().any(|c| c.status == Status::Unknown) {
        Verdict::Unknown
    } else {
        Verdict::Pass
    }
}

/// Context the report shows but the checks do not use.
#[derive(Debug, Clone, Default)]
pub struct Context {
    pub spec_path: String,
    pub mode: Option<Mode>,
    pub subscription: Option<String>,
    pub credential: Option<String>,
    pub cloud: Option<String>,
}

pub fn build(
    plan: &Plan,
    regions: &[RegionData],
    sub: &SubscriptionData,
    ctx: Context,
    prices: &PriceTable,
) -> Report {
    let mut subscription_checks = subscription_checks(plan, sub);
    subscription_checks.extend(crate::preflight::permissions::checks(
        plan,
        sub.permissions.as_ref(),
    ));
    let os = if plan.os == OsType::Windows {
        PriceOs::Windows
    } else {
        PriceOs::Linux
    };
    let reports: Vec<RegionReport> = plan
        .targets
        .iter()
        .zip(regions)
        .enumerate()
        .map(|(i, (t, d))| {
            let mut checks = region_checks(plan, t, d);
            // landing-zone checks concern the spec's region (the subnet and the policy
            // evaluation are the deployment's)
            if i == 0
                && let (Some(inputs), Some(data)) = (&plan.landing_zone, &sub.landing_zone)
            {
                checks.extend(super::landing_zone::checks(inputs, data));
            }
            if i == 0
                && let (Some(inputs), Some(data)) = (&plan.workspace, &sub.workspace)
            {
                checks.extend(super::landing_zone::workspace_checks(inputs, data));
            }
            let all: Vec<&Check> = checks.iter().chain(subscription_checks.iter()).collect();
            let mut verdict = verdict(&all);
            // offline without a single size or quota check for the region: not a pass
            if verdict == Verdict::Pass
                && checks.iter().all(|c| {
                    c.id == "allowed-region"
                        || c.id == region::NAT_SKU
                        || c.status == Status::Skipped
                })
            {
                verdict = Verdict::NotChecked;
            }
            let reasons = all
                .iter()
                .filter(|c| {
                    matches!(c.status, Status::Fail | Status::Unknown)
                        && (verdict == Verdict::Unknown || c.status == Status::Fail)
                })
                .filter(|c| !c.message.starts_with(NOT_CHECKED))
                .map(|c| format!("{}: {}", c.title, c.message))
                .collect();
            let skipped = checks
                .iter()
                .filter(|c| c.status == Status::Skipped)
                .count();
            let ran = |id: &str| {
                checks
                    .iter()
                    .any(|c| c.id == id && c.status != Status::Skipped)
            };
            let complete = ran("size") && ran("quota-family");
            RegionReport {
                region: t.region.clone(),
                role: t.role,
                verdict,
                reasons,
                checks,
                on_demand_hourly: prices.hourly(&plan.size, &t.region, os, PriceKind::OnDemand),
                skipped,
                complete,
            }
        })
        .collect();
    let mut ranking: Vec<Ranked> = reports
        .iter()
        .filter(|r| r.role != Role::Spec && r.verdict == Verdict::Pass && r.complete)
        .map(|r| Ranked {
            region: r.region.clone(),
            on_demand_hourly: r.on_demand_hourly,
            spot_placement_score: None,
            spot_eviction_rate: None,
            spot_alternate_sizes: Vec::new(),
        })
        .collect();
    // cheapest first; unknown prices last, then by name for a stable order
    ranking.sort_by(|a, b| match (a.on_demand_hourly, b.on_demand_hourly) {
        (Some(x), Some(y)) => x.total_cmp(&y).then_with(|| a.region.cmp(&b.region)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.region.cmp(&b.region),
    });
    let mut reports = reports;
    if let Some(spot) = &sub.spot {
        crate::preflight::spot::fold(spot, &mut reports, &mut ranking);
    }
    let mut subscription_checks = subscription_checks;
    subscription_checks.extend(quota_provider_check(sub, &reports));
    let primary = reports
        .first()
        .map(|r| r.verdict)
        .unwrap_or(Verdict::Unknown);
    let price_as_of = prices
        .source_for(os, PriceKind::OnDemand)
        .map(|s| s.as_of.clone());
    Report {
        spec: ctx.spec_path,
        name: plan.name.clone(),
        size: plan.size.clone(),
        vcpus: plan.vcpus,
        quota_family: plan.quota_family.clone(),
        max: plan.max,
        regular: plan.regular,
        spot: plan.spot,
        mode: ctx.mode.unwrap_or(Mode::Live),
        subscription: ctx.subscription,
        credential: ctx.credential,
        cloud: ctx.cloud,
        verdict: primary,
        subscription_checks,
        regions: reports,
        ranking,
        currency: prices.currency.code().to_string(),
        price_as_of,
    }
}
