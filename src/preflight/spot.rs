//! Spot capacity in preflight (issue 23): for a pool with a Spot share, the Spot placement score
//! of its size in each candidate region (per zone for a zonal pool) and the region's Spot
//! eviction-rate band, as checks; the score also orders the passing alternates (High before
//! Medium before Low before unscored; ties keep the existing cheapest-first order).
//!
//! Both signals are advice, never a verdict: a Low score or a high eviction band is a warning,
//! and a call that fails (403 without the Compute Recommendations Role, throttling that outlasts
//! the retries, a 5xx, a malformed answer) is a warning that names what is missing; the
//! alternates are then ranked as before. Facts and assumptions: [`crate::facts::spot_placement`].

use serde::Serialize;

use super::Fetch;
use super::plan::{Plan, SpotReadings};
use super::report::{Check, Ranked, RegionReport, SizeScore, Status};
use crate::azure::spot_placement::{EvictionRate, PlacementRequest, PlacementScore, ResourceSize};
use crate::azure::{ArmApi, ArmError, Cloud};
use crate::facts::spot_placement as facts;

pub const PLACEMENT_ID: &str = "spot-placement";
pub const EVICTION_ID: &str = "spot-eviction";

/// What the pool asks of Spot capacity.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Inputs {
    /// The pool's size first, then `compute.alternateSizes` (at most [`facts::MAX_SIZES`] per
    /// request).
    pub sizes: Vec<String>,
    /// Every region preflight checks (spec, alternates, `--region`), in order.
    pub regions: Vec<String>,
    /// The pool's zones; empty: a regional pool.
    pub zones: Vec<String>,
    /// Spot VMs at peak: asked per region, or per zone for a zonal pool
    /// ([`facts::PER_ZONE_COUNT`]).
    pub count: u32,
    /// The readings of what no page settles (`--spot-zone-count`, `--spot-high-eviction-from`).
    #[serde(skip)]
    pub readings: SpotReadings,
}

impl Inputs {
    /// `None` when the pool has no Spot share.
    pub fn of(plan: &Plan) -> Option<Inputs> {
        if plan.spot == 0 || plan.targets.is_empty() {
            return None;
        }
        let mut sizes = vec![plan.size.clone()];
        for s in &plan.alternate_sizes {
            if !sizes.iter().any(|x| x.eq_ignore_ascii_case(s)) {
                sizes.push(s.clone());
            }
        }
        Some(Inputs {
            sizes,
            regions: plan.targets.iter().map(|t| t.region.clone()).collect(),
            zones: plan.zones.clone(),
            count: plan.spot,
            readings: plan.spot_readings,
        })
    }

    fn zonal(&self) -> bool {
        !self.zones.is_empty()
    }

    /// `desiredCount`: the Spot count, or for a zonal pool with `--spot-zone-count split` its
    /// even share per zone (rounded up).
    pub fn desired_count(&self) -> u32 {
        if self.zonal() && self.readings.split_zone_count {
            self.count.div_ceil(self.zones.len() as u32).max(1)
        } else {
            self.count
        }
    }

    /// The eviction band (lower bound, % per hour) from which preflight warns, and whether it
    /// is gpuform's default or the flag's.
    fn high_from(&self) -> (u32, &'static str) {
        match self.readings.high_eviction_from {
            Some(p) => (p, "--spot-high-eviction-from"),
            None => (facts::HIGH_EVICTION_FROM_PERCENT, "gpuform's default"),
        }
    }

    /// The requests to send: at most [`facts::MAX_LOCATIONS`] regions and
    /// [`facts::MAX_SIZES`] sizes each.
    pub fn requests(&self) -> Vec<PlacementRequest> {
        let mut out = Vec::new();
        for regions in self.regions.chunks(facts::MAX_LOCATIONS) {
            for sizes in self.sizes.chunks(facts::MAX_SIZES) {
                out.push(PlacementRequest {
                    desired_locations: regions.to_vec(),
                    desired_sizes: sizes
                        .iter()
                        .map(|s| ResourceSize { sku: s.clone() })
                        .collect(),
                    desired_count: self.desired_count(),
                    availability_zones: self.zonal(),
                });
            }
        }
        out
    }
}

/// The answers.
#[derive(Debug, Clone)]
pub struct Data {
    pub inputs: Inputs,
    pub scores: Fetch<Vec<PlacementScore>>,
    pub evictions: Fetch<Vec<EvictionRate>>,
}

const NOT_IN_CHINA: &str = "Azure Spot VMs are not offered in Azure operated by 21Vianet (Learn, \"Use Azure Spot Virtual Machines\")";
const PUBLIC_ONLY: &str = "the Spot Placement Score API serves public Azure regions only (Learn, \"Spot Placement Score\", 05/19/2026: \"available for all public Azure regions\")";

/// Ask Azure (nothing when the pool has no Spot share or the API has no Spot reads).
pub async fn gather(api: &dyn ArmApi, plan: &Plan) -> Option<Data> {
    let inputs = Inputs::of(plan)?;
    let spot = api.spot()?;
    let cloud = spot.cloud();
    let scores = async {
        match cloud {
            Some(Cloud::AzureChinaCloud) => Fetch::Skipped(NOT_IN_CHINA.into()),
            Some(Cloud::AzureUSGovernment) if facts::PLACEMENT_PUBLIC_CLOUD_ONLY => {
                Fetch::Skipped(PUBLIC_ONLY.into())
            }
            _ => {
                // one request per chunk, one after the other (the API counts against the
                // subscription's GET quota and answers 429 when rate limited)
                let mut all = Vec::new();
                for req in inputs.requests() {
                    match spot
                        .spot_placement_scores(&req.desired_locations[0], &req)
                        .await
                    {
                        Ok(v) => all.extend(v),
                        Err(e) => return Fetch::Failed(e),
                    }
                }
                Fetch::Got(all)
            }
        }
    };
    let evictions = async {
        match cloud {
            Some(Cloud::AzureChinaCloud) => Fetch::Skipped(NOT_IN_CHINA.into()),
            _ => match spot
                .spot_eviction_rates(&inputs.sizes, &inputs.regions)
                .await
            {
                Ok(v) => Fetch::Got(v),
                Err(e) => Fetch::Failed(e),
            },
        }
    };
    let (scores, evictions) = futures::join!(scores, evictions);
    Some(Data {
        inputs,
        scores,
        evictions,
    })
}

fn check(id: &'static str, title: &'static str, status: Status, message: String) -> Check {
    Check {
        id,
        title,
        status,
        message,
        fix: None,
        quota: None,
        error: None,
    }
}

const PLACEMENT_TITLE: &str = "Spot placement score";
const EVICTION_TITLE: &str = "Spot eviction rate";

/// A failed read: a warning (the check is advice), naming the missing action on 403.
fn failed(id: &'static str, title: &'static str, e: &ArmError, action: &str, grant: &str) -> Check {
    let mut c = if e.status == Some(403) {
        check(
            id,
            title,
            Status::Warn,
            format!(
                "not read: the identity lacks {action} (HTTP 403{}); alternates are ranked without it",
                e.code
                    .as_deref()
                    .map(|c| format!(" {c}"))
                    .unwrap_or_default()
            ),
        )
    } else {
        check(
            id,
            title,
            Status::Warn,
            format!(
                "could not {}: {}; alternates are ranked without it",
                e.operation,
                e.summary()
            ),
        )
    };
    c.fix = Some(if e.status == Some(403) {
        grant.to_string()
    } else {
        e.help
            .clone()
            .unwrap_or_else(|| "run preflight again later".into())
    });
    c.error = Some(e.clone());
    c
}

fn same(a: Option<&str>, b: &str) -> bool {
    a.is_some_and(|a| a.trim().eq_ignore_ascii_case(b.trim()))
}

/// The score rows of the pool's size in `region`, restricted to the pool's zones for a zonal
/// pool.
fn rows<'a>(data: &'a Data, rows: &'a [PlacementScore], region: &str) -> Vec<&'a PlacementScore> {
    size_rows(data, rows, region, &data.inputs.sizes[0])
}

/// [`rows`] of any `size`.
fn size_rows<'a>(
    data: &'a Data,
    rows: &'a [PlacementScore],
    region: &str,
    size: &str,
) -> Vec<&'a PlacementScore> {
    let mut v: Vec<&PlacementScore> = rows
        .iter()
        .filter(|r| same(r.region.as_deref(), region) && same(r.sku.as_deref(), size))
        .filter(|r| {
            !data.inputs.zonal()
                || data
                    .inputs
                    .zones
                    .iter()
                    .any(|z| same(r.availability_zone.as_deref(), z))
        })
        .collect();
    v.sort_by(|a, b| a.availability_zone.cmp(&b.availability_zone));
    v
}

fn score_of(r: &PlacementScore) -> &str {
    r.score.as_deref().unwrap_or("(no score)")
}

/// The region's placement score for ranking: its weakest zone's (or the regional score), as
/// Azure spells it; `None` when not read.
pub fn region_score(data: &Data, region: &str) -> Option<String> {
    size_score(data, region, &data.inputs.sizes[0])
}

/// `size`'s score in `region`: its weakest zone's (or the regional score).
fn size_score(data: &Data, region: &str, size: &str) -> Option<String> {
    let Fetch::Got(all) = &data.scores else {
        return None;
    };
    let rows = size_rows(data, all, region, size);
    rows.iter()
        .max_by_key(|r| facts::score_rank(score_of(r)).unwrap_or(usize::MAX))
        .map(|r| score_of(r).to_string())
}

/// The scores of the alternate sizes (`compute.alternateSizes`) in `region`, in the spec's
/// order; sizes Azure returned no row for are left out.
pub fn alternate_scores(data: &Data, region: &str) -> Vec<SizeScore> {
    data.inputs.sizes[1..]
        .iter()
        .filter_map(|s| {
            size_score(data, region, s).map(|score| SizeScore {
                size: s.clone(),
                score,
            })
        })
        .collect()
}

/// The region's eviction-rate band for the pool's size, as Azure spells it.
pub fn region_eviction(data: &Data, region: &str) -> Option<String> {
    let Fetch::Got(all) = &data.evictions else {
        return None;
    };
    let size = &data.inputs.sizes[0];
    all.iter()
        .find(|r| r.location.eq_ignore_ascii_case(region) && r.sku_name.eq_ignore_ascii_case(size))
        .map(|r| r.spot_eviction_rate.clone())
}

fn placement_check(data: &Data, region: &str) -> Check {
    let size = &data.inputs.sizes[0];
    let n = data.inputs.count;
    let vms = if n == 1 { "VM" } else { "VMs" };
    let all = match &data.scores {
        // a Spot share where Azure offers no Spot VMs is worth a warning, not a skip
        Fetch::Skipped(why) if why == NOT_IN_CHINA => {
            let mut c = check(
                PLACEMENT_ID,
                PLACEMENT_TITLE,
                Status::Warn,
                format!("{why}: this pool's {n} Spot {vms} cannot be placed"),
            );
            c.fix = Some(
                "run the pool on regular priority (capacity.regularPercentAboveBase: 100)".into(),
            );
            return c;
        }
        Fetch::Skipped(why) => {
            return check(PLACEMENT_ID, PLACEMENT_TITLE, Status::Skipped, why.clone());
        }
        Fetch::Failed(e) => {
            return failed(
                PLACEMENT_ID,
                PLACEMENT_TITLE,
                e,
                facts::PLACEMENT_ACTION,
                &format!(
                    "grant the {role} on the subscription (it carries only {action}): az role assignment create --role \"{role}\" --assignee PRINCIPAL_ID --scope /subscriptions/SUBSCRIPTION_ID",
                    role = facts::PLACEMENT_ROLE,
                    action = facts::PLACEMENT_ACTION
                ),
            );
        }
        Fetch::Got(all) => all,
    };
    let rows = rows(data, all, region);
    if rows.is_empty() {
        return check(
            PLACEMENT_ID,
            PLACEMENT_TITLE,
            Status::Warn,
            format!("Azure returned no score for {n} Spot {vms} of {size} in {region}"),
        );
    }
    let worst = rows
        .iter()
        .map(|r| facts::score_rank(score_of(r)))
        .max_by_key(|r| r.unwrap_or(usize::MAX))
        .flatten();
    let short = rows.iter().any(|r| r.is_quota_available == Some(false));
    let mut msg = if data.inputs.zonal() {
        let zones: Vec<String> = rows
            .iter()
            .map(|r| {
                format!(
                    "zone {} {}",
                    r.availability_zone.as_deref().unwrap_or("?"),
                    score_of(r)
                )
            })
            .collect();
        let per_zone = data.inputs.desired_count();
        format!(
            "{} for {per_zone} Spot {} of {size} per zone ({})",
            zones.join(", "),
            if per_zone == 1 { "VM" } else { "VMs" },
            if data.inputs.readings.split_zone_count {
                format!(
                    "assumption, --spot-zone-count split: the {n} Spot {vms} split evenly over {} zones",
                    data.inputs.zones.len()
                )
            } else {
                "assumption: the whole Spot count asked in each zone; --spot-zone-count split asks for an even share".to_string()
            }
        )
    } else {
        format!("{} for {n} Spot {vms} of {size}", score_of(rows[0]))
    };
    if short {
        msg.push_str("; Azure says the Spot quota is short (isQuotaAvailable: false)");
    }
    let alts = alternate_scores(data, region);
    if !alts.is_empty() {
        msg.push_str(&format!(
            "; alternate sizes (compute.alternateSizes): {}",
            alts.iter()
                .map(|a| format!("{} {}", a.size, a.score))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let status = match worst {
        Some(0) | Some(1) => Status::Pass,
        _ => Status::Warn,
    };
    let mut c = check(PLACEMENT_ID, PLACEMENT_TITLE, status, msg);
    if status == Status::Warn {
        c.fix = Some(match worst {
            Some(_) => "a Low score means Spot capacity for this request is unlikely here now: prefer an alternate region or zone scored higher, or raise the regular share (capacity.regularBase, capacity.regularPercentAboveBase)".into(),
            None => format!(
                "Azure has no current score here ({}: no fresh data, or the size is restricted for Spot in the subscription); compare with the alternates",
                facts::NO_DATA_SCORE
            ),
        });
    }
    c
}

fn eviction_check(data: &Data, region: &str) -> Check {
    let size = &data.inputs.sizes[0];
    match &data.evictions {
        Fetch::Skipped(why) => check(EVICTION_ID, EVICTION_TITLE, Status::Skipped, why.clone()),
        Fetch::Failed(e) => failed(
            EVICTION_ID,
            EVICTION_TITLE,
            e,
            facts::GRAPH_ACTION,
            &format!(
                "grant Reader (or a role with {}) to the identity",
                facts::GRAPH_ACTION
            ),
        ),
        Fetch::Got(_) => match region_eviction(data, region) {
            None => check(
                EVICTION_ID,
                EVICTION_TITLE,
                Status::Skipped,
                format!("Resource Graph has no eviction rate for {size} in {region}"),
            ),
            Some(band) => {
                let per_hour = format!(
                    "{band} % per hour for {size} (last {} days, Resource Graph SpotResources)",
                    facts::EVICTION_WINDOW_DAYS
                );
                let (from, whose) = data.inputs.high_from();
                if facts::band_at_least(&band, from) {
                    let mut c = check(
                        EVICTION_ID,
                        EVICTION_TITLE,
                        Status::Warn,
                        format!(
                            "{per_hour}: high (gpuform warns from {from} % per hour, {whose}: an assumption)"
                        ),
                    );
                    c.fix = Some("expect Spot VMs to be evicted within hours here: checkpoint long jobs, prefer an alternate region with a lower band, or raise the regular share".into());
                    c
                } else if facts::parse_band(&band).is_none() {
                    check(
                        EVICTION_ID,
                        EVICTION_TITLE,
                        Status::Pass,
                        format!(
                            "{band} for {size} (a band gpuform does not recognise; shown as Azure wrote it)"
                        ),
                    )
                } else {
                    check(EVICTION_ID, EVICTION_TITLE, Status::Pass, per_hour)
                }
            }
        },
    }
}

/// The Spot checks of one region.
pub fn checks(data: &Data, region: &str) -> Vec<Check> {
    vec![placement_check(data, region), eviction_check(data, region)]
}

/// Sort rank of a score: High, Medium, Low, then unscored.
fn sort_rank(score: Option<&str>) -> usize {
    score
        .and_then(facts::score_rank)
        .unwrap_or(facts::SCORES_BEST_FIRST.len())
}

/// Order alternates by placement score, best first; a stable sort, so equal scores keep the
/// order they came in (cheapest first).
pub fn rank(ranking: &mut [Ranked]) {
    ranking.sort_by_key(|r| sort_rank(r.spot_placement_score.as_deref()));
}

/// Fold the Spot answers into a built report: each region's checks (added after the verdict,
/// which advice never changes) and the scores on the ranking, which they then order.
pub fn fold(data: &Data, regions: &mut [RegionReport], ranking: &mut [Ranked]) {
    for r in regions.iter_mut() {
        let extra = checks(data, &r.region);
        r.skipped += extra.iter().filter(|c| c.status == Status::Skipped).count();
        r.checks.extend(extra);
    }
    for k in ranking.iter_mut() {
        k.spot_placement_score = region_score(data, &k.region);
        k.spot_eviction_rate = region_eviction(data, &k.region);
        k.spot_alternate_sizes = alternate_scores(data, &k.region);
    }
    rank(ranking);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::azure::ErrorKind;

    fn inputs(zones: &[&str]) -> Inputs {
        Inputs {
            sizes: vec!["Standard_NC8as_T4_v3".into()],
            regions: vec!["eastus2".into(), "westus3".into(), "southcentralus".into()],
            zones: zones.iter().map(|z| z.to_string()).collect(),
            count: 18,
            readings: SpotReadings::default(),
        }
    }

    fn row(region: &str, zone: Option<&str>, score: &str) -> PlacementScore {
        PlacementScore {
            sku: Some("Standard_NC8as_T4_v3".into()),
            region: Some(region.into()),
            availability_zone: zone.map(str::to_string),
            score: Some(score.into()),
            is_quota_available: Some(true),
        }
    }

    fn ranked(region: &str, price: f64) -> Ranked {
        Ranked {
            region: region.into(),
            on_demand_hourly: Some(price),
            spot_placement_score: None,
            spot_eviction_rate: None,
            spot_alternate_sizes: Vec::new(),
        }
    }

    #[test]
    fn requests_are_chunked_by_eight_regions_and_five_sizes() {
        let mut i = inputs(&[]);
        i.regions = (0..10).map(|n| format!("r{n}")).collect();
        i.sizes = (0..6).map(|n| format!("s{n}")).collect();
        let r = i.requests();
        assert_eq!(r.len(), 4);
        assert!(r.iter().all(|q| q.desired_locations.len() <= 8
            && q.desired_sizes.len() <= 5
            && q.desired_count == 18
            && !q.availability_zones));
    }

    #[test]
    fn high_passes_low_warns_and_a_zonal_region_takes_its_weakest_zone() {
        let d = Data {
            inputs: inputs(&["1", "2"]),
            scores: Fetch::Got(vec![
                row("eastus2", Some("1"), "High"),
                row("eastus2", Some("2"), "Low"),
                row("eastus2", Some("3"), "High"),
                row("westus3", Some("1"), "High"),
                row("westus3", Some("2"), "Medium"),
            ]),
            evictions: Fetch::Got(vec![EvictionRate {
                sku_name: "standard_nc8as_t4_v3".into(),
                location: "eastus2".into(),
                spot_eviction_rate: "15-20".into(),
            }]),
        };
        let c = checks(&d, "eastus2");
        assert_eq!(c[0].status, Status::Warn, "{}", c[0].message);
        assert!(c[0].message.starts_with("zone 1 High, zone 2 Low for 18"));
        assert!(!c[0].message.contains("zone 3"));
        assert_eq!(c[1].status, Status::Warn);
        assert!(c[1].message.contains("15-20 % per hour"));
        assert_eq!(region_score(&d, "eastus2").as_deref(), Some("Low"));
        assert_eq!(region_score(&d, "westus3").as_deref(), Some("Medium"));
        let c = checks(&d, "westus3");
        assert_eq!(c[0].status, Status::Pass);
        assert_eq!(c[1].status, Status::Skipped);
        // no rows at all
        assert_eq!(checks(&d, "southcentralus")[0].status, Status::Warn);
    }

    #[test]
    fn the_other_readings_of_the_spot_assumptions_are_flags() {
        let eviction = |band: &str| {
            Fetch::Got(vec![EvictionRate {
                sku_name: "standard_nc8as_t4_v3".into(),
                location: "eastus2".into(),
                spot_eviction_rate: band.into(),
            }])
        };
        let zonal = |readings: SpotReadings, band: &str| Data {
            inputs: Inputs {
                readings,
                ..inputs(&["1", "2", "3"])
            },
            scores: Fetch::Got(vec![
                row("eastus2", Some("1"), "High"),
                row("eastus2", Some("2"), "High"),
                row("eastus2", Some("3"), "High"),
            ]),
            evictions: eviction(band),
        };
        // the stricter readings by default: the whole count in each zone, warn from 10 %
        let d = zonal(SpotReadings::default(), "5-10");
        assert!(d.inputs.requests().iter().all(|q| q.desired_count == 18));
        let c = checks(&d, "eastus2");
        assert!(
            c[0].message.contains("for 18 Spot VMs of")
                && c[0]
                    .message
                    .contains("assumption: the whole Spot count asked in each zone"),
            "{}",
            c[0].message
        );
        assert_eq!(c[1].status, Status::Pass, "{}", c[1].message);
        // --spot-zone-count split: 18 over 3 zones is 6 a zone; said as the assumption taken
        let split = SpotReadings {
            split_zone_count: true,
            high_eviction_from: Some(5),
        };
        let d = zonal(split, "5-10");
        assert!(d.inputs.requests().iter().all(|q| q.desired_count == 6));
        let c = checks(&d, "eastus2");
        assert!(
            c[0].message.contains("for 6 Spot VMs of")
                && c[0]
                    .message
                    .contains("--spot-zone-count split: the 18 Spot VMs split evenly over 3 zones"),
            "{}",
            c[0].message
        );
        // --spot-high-eviction-from 5: 5-10 % warns, and says whose threshold it is
        assert_eq!(c[1].status, Status::Warn);
        assert!(
            c[1].message
                .contains("warns from 5 % per hour, --spot-high-eviction-from: an assumption"),
            "{}",
            c[1].message
        );
        // a regional pool asks for the whole count whatever the flag
        let mut regional = inputs(&[]);
        regional.readings = split;
        assert_eq!(regional.desired_count(), 18);
        // 7 over 3 zones rounds up
        let mut odd = inputs(&["1", "2", "3"]);
        odd.count = 7;
        odd.readings = split;
        assert_eq!(odd.desired_count(), 3);
    }

    #[test]
    fn a_403_is_a_warning_that_names_the_action_and_the_role() {
        let mut e = ArmError::new(ErrorKind::Http, "read Spot placement scores", "denied");
        e.status = Some(403);
        e.code = Some("AuthorizationFailed".into());
        let d = Data {
            inputs: inputs(&[]),
            scores: Fetch::Failed(e),
            evictions: Fetch::Got(vec![]),
        };
        let c = &checks(&d, "eastus2")[0];
        assert_eq!(c.status, Status::Warn);
        assert!(c.message.contains(facts::PLACEMENT_ACTION), "{}", c.message);
        assert!(c.fix.as_deref().unwrap().contains(facts::PLACEMENT_ROLE));
        assert_eq!(region_score(&d, "eastus2"), None);
    }

    #[test]
    fn alternates_rank_high_medium_low_then_unscored_ties_keep_their_order() {
        let d = Data {
            inputs: inputs(&[]),
            scores: Fetch::Got(vec![
                row("a", None, "Low"),
                row("b", None, "High"),
                row("c", None, "High"),
                row("d", None, "DataNotFoundOrStale"),
                row("e", None, "Medium"),
            ]),
            evictions: Fetch::Got(vec![]),
        };
        // cheapest first, as checks::build leaves it
        let mut k: Vec<Ranked> = ["d", "a", "c", "f", "b", "e"]
            .iter()
            .enumerate()
            .map(|(i, r)| ranked(r, i as f64))
            .collect();
        let mut regions = Vec::new();
        fold(&d, &mut regions, &mut k);
        let order: Vec<&str> = k.iter().map(|r| r.region.as_str()).collect();
        assert_eq!(order, ["c", "b", "e", "a", "d", "f"]);
        assert_eq!(k[0].spot_placement_score.as_deref(), Some("High"));
        assert_eq!(k[5].spot_placement_score, None);
    }
}
