//! Per-region checks: allowed regions, the size, zones, capabilities.

use crate::azure::models::{ListShape, ResourceSku};

use crate::preflight::data::{RegionData, SkuData};
use crate::preflight::fetch::Fetch;
use crate::preflight::plan::{Plan, Role, Target};
use crate::preflight::report::{Check, Status};

use super::common::{NOT_CHECKED, check, list};
use super::quota::quota_checks;

pub fn region_checks(plan: &Plan, target: &Target, data: &RegionData) -> Vec<Check> {
    let r = target.region.as_str();
    let mut out = Vec::new();

    out.push(match &plan.allowed_regions {
        Some(allowed) if !allowed.iter().any(|a| a == r) => check(
            "allowed-region",
            "allowed region",
            Status::Fail,
            format!("{r} is not in spec.allowedRegions ({})", list(allowed)),
        )
        .fix(if target.role == Role::Spec {
            "change spec.region or spec.allowedRegions"
        } else {
            "drop it from the alternates or allow it"
        }),
        Some(_) => check(
            "allowed-region",
            "allowed region",
            Status::Pass,
            format!("{r} is in spec.allowedRegions"),
        ),
        None => check(
            "allowed-region",
            "allowed region",
            Status::Pass,
            "spec.allowedRegions is not set",
        ),
    });

    // the size's SKU entry: offered, restrictions, zones, capabilities
    let sku: Option<&ResourceSku> = match &data.skus {
        Fetch::Got(d) => {
            let (c, sku) = size_check(plan, r, d);
            out.push(c);
            sku
        }
        Fetch::Failed(e) => {
            out.push(Check::failed("size", "size offered", e));
            out.push(check(
                "zones",
                "zones",
                Status::Unknown,
                format!("{NOT_CHECKED} the resource SKU list is unavailable"),
            ));
            out.push(check(
                "capabilities",
                "capabilities",
                Status::Unknown,
                format!("{NOT_CHECKED} the resource SKU list is unavailable"),
            ));
            None
        }
        Fetch::Skipped(why) => {
            out.push(check("size", "size offered", Status::Skipped, why.clone()));
            out.push(check("zones", "zones", Status::Skipped, "needs --skus"));
            out.push(check(
                "capabilities",
                "capabilities",
                Status::Skipped,
                "needs --skus",
            ));
            None
        }
    };
    if let Some(s) = sku {
        out.push(zones_check(plan, r, s));
        out.push(capabilities_check(plan, s));
    } else if matches!(data.skus, Fetch::Got(_)) {
        out.push(check(
            "zones",
            "zones",
            Status::Skipped,
            "the size is not offered",
        ));
        out.push(check(
            "capabilities",
            "capabilities",
            Status::Skipped,
            "the size is not offered",
        ));
    }

    out.extend(quota_checks(plan, r, sku, &data.usages));
    out.extend(nat_sku_check(plan, r));
    out
}

/// The NAT gateway SKU of a pool across zones (issue 19): StandardV2 (zone-redundant) where
/// Microsoft's NAT SKU page offers it, else one Standard gateway without a zone. No Azure API
/// says which NAT SKUs a region offers ([`crate::facts::nat::NO_SKU_API`]): the check reports
/// the page's list, and says so.
pub(super) const NAT_SKU: &str = "nat-gateway-sku";

fn nat_sku_check(plan: &Plan, r: &str) -> Option<Check> {
    use crate::facts::nat;
    if !plan.nat_across_zones {
        return None;
    }
    let basis = format!(
        "from Microsoft's NAT SKU page ({}), not confirmed live: {} (assumption)",
        nat::SOURCE.what,
        nat::NO_SKU_API.what
    );
    Some(if nat::standard_v2_offered(r) {
        check(
            NAT_SKU,
            "NAT gateway SKU",
            Status::Pass,
            format!("{r} is not on the page's list of regions without StandardV2: the pool across zones {} gets a zone-redundant StandardV2 NAT gateway; {basis}", list(&plan.zones)),
        )
        .fix("if the deployment answers that StandardV2 is not available, pin one zone (compute.zones) so the render uses a zonal Standard gateway")
    } else {
        check(
            NAT_SKU,
            "NAT gateway SKU",
            Status::Warn,
            format!("{r} has no StandardV2 NAT gateway ({}): the render gives the pool across zones {} one Standard NAT gateway without a zone, and egress fails if its zone fails; {basis}", nat::standard_v2_missing(r).unwrap_or_default(), list(&plan.zones)),
        )
        .fix("pin one zone (compute.zones), choose a region with StandardV2, or accept the regional gateway")
    })
}

/// A size check that blocks: its fix names the nearest regions (allowed by
/// `spec.allowedRegions`) that offer the size, and what "nearest" and "offer" are based on.
pub(super) fn name_nearest(
    checks: &mut [Check],
    plan: &Plan,
    r: &str,
    prices: &crate::catalog::prices::PriceTable,
) {
    use crate::catalog::regions::{NEAREST_BASIS, list_nearby, nearest_offering};
    for c in checks
        .iter_mut()
        .filter(|c| c.id == "size" && c.status == Status::Fail)
    {
        let near = nearest_offering(&plan.size, r, plan.allowed_regions.as_deref(), prices, 3);
        let add = if near.is_empty() {
            format!(
                "no {}region has a price for {} in gpuform's price table: choose another size",
                if plan.allowed_regions.is_some() {
                    "allowed "
                } else {
                    ""
                },
                plan.size
            )
        } else {
            format!(
                "the nearest {}regions that offer {}: {} ({NEAREST_BASIS}); add one to alternateRegions and rerun preflight",
                if plan.allowed_regions.is_some() {
                    "allowed "
                } else {
                    ""
                },
                plan.size,
                list_nearby(&near)
            )
        };
        c.fix = Some(match c.fix.take() {
            Some(f) => format!("{f}; {add}"),
            None => add,
        });
    }
}

pub(super) fn size_check<'a>(
    plan: &Plan,
    r: &str,
    d: &'a SkuData,
) -> (Check, Option<&'a ResourceSku>) {
    const ID: &str = "size";
    const TITLE: &str = "size offered";
    let size = &plan.size;
    let Some(sku) = d.entries.first() else {
        let c = if d.shape == ListShape::AzCli && !d.includes_restricted {
            check(ID, TITLE, Status::Fail, format!("{size} is not in the az vm list-skus output for {r} ({}): it is not offered there, or it is restricted for this subscription (az hides restricted sizes unless --all)", d.source))
                .fix(format!("rerun `az vm list-skus -l {r} --all -o json` to see which, or choose another region"))
        } else {
            check(
                ID,
                TITLE,
                Status::Fail,
                format!("{size} is not offered in {r}"),
            )
            .fix("choose another region (see the alternates below) or another size")
        };
        return (c, None);
    };
    let blocking: Vec<_> = sku
        .restrictions_in(r)
        .filter(|x| x.kind.eq_ignore_ascii_case("Location"))
        .collect();
    if let Some(x) = blocking.first() {
        let reason = x.reason_code.as_deref().unwrap_or("no reason given");
        let (msg, fix) = match reason {
            "NotAvailableForSubscription" => (
                format!(
                    "{size} is offered in {r} but not to this subscription (restriction Location, NotAvailableForSubscription)"
                ),
                "ask Azure support for access (New support request → Service and subscription limits (quotas) → Compute-VM, naming the size and region) or choose another region".to_string(),
            ),
            "QuotaId" => (
                format!(
                    "{size} cannot be used in {r} by this subscription's offer type (restriction Location, QuotaId; e.g. free trial or sponsorship)"
                ),
                "use a pay-as-you-go, EA or MCA subscription, or choose another size".to_string(),
            ),
            other => (
                format!(
                    "{size} is restricted in {r} for this subscription (restriction Location, {other})"
                ),
                "choose another region".to_string(),
            ),
        };
        return (check(ID, TITLE, Status::Fail, msg).fix(fix), Some(sku));
    }
    let zones = sku.zones_in(r);
    let zones = if zones.is_empty() {
        "no availability zones".to_string()
    } else {
        format!("zones {}", list(&zones))
    };
    (
        check(
            ID,
            TITLE,
            Status::Pass,
            format!("{size} is offered in {r} ({zones})"),
        ),
        Some(sku),
    )
}

pub(super) fn zones_check(plan: &Plan, r: &str, sku: &ResourceSku) -> Check {
    const ID: &str = "zones";
    let offered = sku.zones_in(r);
    let mut restricted: Vec<String> = Vec::new();
    let mut reason = String::new();
    for x in sku
        .restrictions_in(r)
        .filter(|x| x.kind.eq_ignore_ascii_case("Zone"))
    {
        if let Some(info) = &x.restriction_info {
            restricted.extend(info.zones.iter().cloned());
        }
        reason = x.reason_code.clone().unwrap_or_default();
    }
    restricted.sort();
    restricted.dedup();
    let usable: Vec<String> = offered
        .iter()
        .filter(|z| !restricted.contains(z))
        .cloned()
        .collect();
    if plan.zones.is_empty() {
        let note = if restricted.is_empty() {
            String::new()
        } else {
            format!(
                "; zones {} are restricted for this subscription, which regional placement does not need",
                list(&restricted)
            )
        };
        return check(
            ID,
            "zones",
            Status::Pass,
            format!("regional placement (compute.zones not set){note}"),
        );
    }
    let missing: Vec<String> = plan
        .zones
        .iter()
        .filter(|z| !offered.contains(z))
        .cloned()
        .collect();
    let blocked: Vec<String> = plan
        .zones
        .iter()
        .filter(|z| restricted.contains(z))
        .cloned()
        .collect();
    let fix = if usable.is_empty() {
        "remove compute.zones (regional placement) or choose another region".to_string()
    } else {
        format!("set compute.zones to [{}] or remove it", list(&usable))
    };
    if offered.is_empty() {
        return check(
            ID,
            "zones",
            Status::Fail,
            format!(
                "{} has no availability zones in {r}; the spec asks for zones {}",
                plan.size,
                list(&plan.zones)
            ),
        )
        .fix("remove compute.zones (regional placement) or choose another region");
    }
    if !blocked.is_empty() {
        return check(ID, "zones", Status::Fail, format!("zones {} are restricted for this subscription in {r} (restriction Zone, {reason}); usable: {}", list(&blocked), if usable.is_empty() { "none".into() } else { list(&usable) })).fix(fix);
    }
    if !missing.is_empty() {
        return check(
            ID,
            "zones",
            Status::Fail,
            format!(
                "{} is not offered in zones {} of {r} (offered: {})",
                plan.size,
                list(&missing),
                list(&offered)
            ),
        )
        .fix(fix);
    }
    check(
        ID,
        "zones",
        Status::Pass,
        format!("zones {} are available", list(&plan.zones)),
    )
}

pub(super) fn capabilities_check(plan: &Plan, sku: &ResourceSku) -> Check {
    const ID: &str = "capabilities";
    let mut ok = Vec::new();
    let mut bad: Vec<(String, String)> = Vec::new();
    let mut unknown = Vec::new();
    let mut need =
        |name: &str, wanted: bool, label: &str, fix: &str| match sku.capability_bool(name) {
            Some(v) if v == wanted => ok.push(label.to_string()),
            Some(_) => bad.push((
                format!("{name} is {}", if wanted { "False" } else { "True" }),
                fix.to_string(),
            )),
            None => unknown.push(name.to_string()),
        };
    if plan.encryption_at_host {
        need(
            "EncryptionAtHostSupported",
            true,
            "encryption at host",
            "set security.encryptionAtHost: false",
        );
    }
    if plan.spot > 0 {
        need(
            "LowPriorityCapable",
            true,
            "Spot",
            "set capacity.regularPercentAboveBase: 100 (no Spot)",
        );
    }
    if plan.accelerated_networking {
        need(
            "AcceleratedNetworkingEnabled",
            true,
            "accelerated networking",
            "set compute.acceleratedNetworking: false",
        );
    }
    if plan.trusted_launch {
        // absent means supported
        if sku.capability_bool("TrustedLaunchDisabled") == Some(true) {
            bad.push((
                "TrustedLaunchDisabled is True".into(),
                "set compute.securityType: standard".into(),
            ));
        } else {
            ok.push("Trusted Launch".into());
        }
    }
    let generation = plan.generation_label();
    match sku.capability("HyperVGenerations") {
        Some(g)
            if g.split(',')
                .any(|x| x.trim().eq_ignore_ascii_case(generation)) =>
        {
            ok.push(format!("Hyper-V {generation} image"))
        }
        Some(g) => bad.push((
            format!("HyperVGenerations is {g}, the image is {generation}"),
            format!("use a {g} image"),
        )),
        None => unknown.push("HyperVGenerations".into()),
    }
    if !bad.is_empty() {
        let (msgs, fixes): (Vec<String>, Vec<String>) = bad.into_iter().unzip();
        return check(ID, "capabilities", Status::Fail, msgs.join("; ")).fix(fixes.join("; "));
    }
    let mut msg = format!("supports {}", ok.join(", "));
    if ok.is_empty() {
        msg = "nothing special needed".into();
    }
    if !unknown.is_empty() {
        return check(
            ID,
            "capabilities",
            Status::Warn,
            format!("{msg}; the SKU does not report {}", list(&unknown)),
        );
    }
    check(ID, "capabilities", Status::Pass, msg)
}
