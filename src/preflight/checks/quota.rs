//! Quota checks: vCPUs at peak against the region's usage, and the quota provider.

use crate::azure::models::{ResourceSku, Usage, find_usage};

use crate::preflight::data::SubscriptionData;
use crate::preflight::fetch::Fetch;
use crate::preflight::plan::Plan;
use crate::preflight::report::{Check, QuotaNeed, RegionReport, Status};

use super::common::check;

pub(super) fn quota_checks(
    plan: &Plan,
    r: &str,
    sku: Option<&ResourceSku>,
    usages: &Fetch<Vec<Usage>>,
) -> Vec<Check> {
    const IDS: [(&str, &str); 4] = [
        ("quota-family", "family vCPU quota"),
        ("quota-cores", "regional vCPU quota"),
        ("quota-spot", "Spot vCPU quota"),
        ("quota-scale-sets", "scale set quota"),
    ];
    let usages = match usages {
        Fetch::Got(u) => u,
        Fetch::Failed(e) => return vec![Check::failed(IDS[0].0, IDS[0].1, e)],
        Fetch::Skipped(why) => {
            return vec![check(IDS[0].0, "vCPU quota", Status::Skipped, why.clone())];
        }
    };
    let live_vcpus = sku
        .and_then(|s| s.capability("vCPUs"))
        .and_then(|v| v.trim().parse::<u32>().ok());
    let Some(vcpus) = live_vcpus.or(plan.vcpus) else {
        return vec![check(
            IDS[0].0,
            "vCPU quota",
            Status::Unknown,
            format!(
                "the vCPU count of {} is unknown (not in the catalog, no SKU data)",
                plan.size
            ),
        )];
    };
    let (family, family_is_live) = match (sku.and_then(|s| s.family.clone()), &plan.quota_family) {
        (Some(f), _) => (Some(f), true),
        (None, Some(f)) => (Some(f.clone()), false),
        (None, None) => (None, false),
    };
    let vc = i64::from(vcpus);
    let regular = i64::from(plan.regular) * vc;
    let spot = i64::from(plan.spot) * vc;
    // a redeployment: the pool's running instances are in the usage already
    let existing = plan.existing.as_ref().filter(|x| x.region == r);
    let (had_regular, had_spot, had_set) = existing.map_or((0, 0, 0), |x| {
        (i64::from(x.regular) * vc, i64::from(x.spot) * vc, 1)
    });
    let in_use = |n: i64| match existing {
        Some(x) if n > 0 => format!(" ({n} already in use by {})", x.name),
        _ => String::new(),
    };
    let mut out = Vec::new();

    let quota = |id: &'static str,
                 title: &'static str,
                 name: &str,
                 needed: i64,
                 already: i64,
                 why: String,
                 missing_is_fail: bool| {
        let Some((u, exact)) = find_usage(usages, name) else {
            let status = if missing_is_fail {
                Status::Fail
            } else {
                Status::Unknown
            };
            let msg = format!(
                "no quota named {name:?} in the usage list for {r}{}",
                if missing_is_fail {
                    ": the size is most likely not offered there"
                } else {
                    ""
                }
            );
            return check(id, title, status, msg);
        };
        let already = already.min(u.current_value.max(0));
        let need = QuotaNeed {
            quota: u.name.value.clone(),
            label: u.label().to_string(),
            matched_exactly: exact,
            current_limit: u.limit,
            current_usage: u.current_value,
            already_in_use: already,
            additional_required: (needed - already).max(0),
            new_limit_required: (u.current_value - already).saturating_add(needed),
        };
        let sufficient = need.new_limit_required <= need.current_limit;
        let figures = format!(
            "needs {needed} for {why}{}; usage {} of limit {}",
            in_use(already),
            need.current_usage,
            need.current_limit
        );
        let mut c = if sufficient {
            check(
                id,
                title,
                Status::Pass,
                format!("{}: {figures}", need.label),
            )
        } else {
            check(
                id,
                title,
                Status::Fail,
                format!("{}: {figures}", need.label),
            )
            .fix(format!(
                "request a new limit of at least {} for {:?} in {r}: the pool {}",
                crate::report::number::count(need.new_limit_required as f64),
                need.quota,
                need.in_words()
            ))
        };
        c.quota = Some(need);
        c
    };

    // a standby pool's VMs are counted with the regular share (Plan::from_spec)
    let pooled = plan
        .standby
        .as_ref()
        .filter(|p| p.counts_against_quota && p.max_ready > 0 && plan.regular >= p.max_ready)
        .map(|p| {
            format!(
                " ({} of them the standby pool's: pooled VMs count against quota in any state)",
                p.max_ready
            )
        })
        .unwrap_or_default();
    let vm_word = |n: u32, kind: &str| {
        format!(
            "{n} {kind} VM{} x {vcpus} vCPUs{pooled}",
            if n == 1 { "" } else { "s" }
        )
    };
    if plan.regular > 0 {
        match &family {
            Some(f) => out.push(quota(
                IDS[0].0,
                IDS[0].1,
                f,
                regular,
                had_regular,
                vm_word(plan.regular, "regular"),
                family_is_live,
            )),
            None => out.push(check(
                IDS[0].0,
                IDS[0].1,
                Status::Unknown,
                format!("the quota family of {} is unknown", plan.size),
            )),
        }
        out.push(quota(
            IDS[1].0,
            IDS[1].1,
            crate::facts::quota::REGIONAL_VCPUS,
            regular,
            had_regular,
            vm_word(plan.regular, "regular"),
            false,
        ));
    } else {
        out.push(check(
            IDS[0].0,
            IDS[0].1,
            Status::Pass,
            "not used: every instance is Spot (Spot draws only on the Spot vCPU quota)",
        ));
    }
    if plan.spot > 0 {
        out.push(quota(
            IDS[2].0,
            IDS[2].1,
            crate::facts::quota::SPOT_VCPUS,
            spot,
            had_spot,
            vm_word(plan.spot, "Spot"),
            false,
        ));
    }
    if plan.dev_box {
        // the dev box is one standalone VM: the regional VM count, not scale sets
        out.push(quota(
            "quota-vms",
            "VM count quota",
            "virtualMachines",
            1,
            had_set,
            "1 VM (the dev box)".into(),
            false,
        ));
    } else {
        out.push(quota(
            IDS[3].0,
            IDS[3].1,
            "virtualMachineScaleSets",
            1,
            had_set,
            "1 scale set".into(),
            false,
        ));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Verdicts and ranking

/// When a region's quota is short, the fix is `gpuform quota request`, which needs the
/// subscription registered for Microsoft.Quota: say so before the user runs it.
pub(super) fn quota_provider_check(
    sub: &SubscriptionData,
    regions: &[RegionReport],
) -> Option<Check> {
    let short = regions
        .iter()
        .flat_map(|r| r.checks.iter())
        .any(|c| c.id.starts_with("quota-") && c.status == Status::Fail);
    if !short {
        return None;
    }
    let ns = crate::facts::quota::PROVIDER;
    match sub.providers.iter().find(|(n, _)| n.eq_ignore_ascii_case(ns)).map(|p| &p.1) {
        Some(Fetch::Got(state)) if !state.eq_ignore_ascii_case("Registered") => Some(
            check(
                "provider-quota",
                "Microsoft.Quota provider",
                Status::Warn,
                format!("{ns} is {state}: `gpuform quota request` needs it to file the missing quota"),
            )
            .fix(format!(
                "az provider register --namespace {ns} (can take minutes), or gpuform quota request SPEC --register-providers"
            )),
        ),
        _ => None,
    }
}
