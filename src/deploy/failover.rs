//! Capacity failover (issue 23 item 2): when Azure answers a deployment with a capacity error
//! (`AllocationFailed`, `ZonalAllocationFailed`, `OverconstrainedAllocationRequest`,
//! `SkuNotAvailable`; [`crate::facts::capacity`]), deploy tries the next zone of the region
//! (`compute.zonesByRegion`), then the next acceptable size (`compute.alternateSizes`, its VM
//! family's quota checked first), then the next region the spec allows (`alternateRegions`
//! inside `allowedRegions`), one line per step, until one succeeds.
//!
//! Each placement is a changed spec rendered again through the normal plan and emitters
//! ([`respec`]); nothing patches the rendered JSON.

use crate::azure::models::Usage;
use crate::catalog;
use crate::facts::capacity::{self, Step};
use crate::spec::Checked;
use crate::spec::defaults::zones_for;
use crate::spec::model::Spec;

use super::errors::Diagnosis;
use super::report::Outcome;

/// One placement of the pool: region, size and zones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub region: String,
    pub vm_size: String,
    pub zones: Vec<String>,
    /// What changed from the placement before it (`None` for the spec as written).
    pub step: Option<Step>,
}

impl Placement {
    /// `Standard_NC8as_T4_v3 in eastus2 zone 1`.
    pub fn label(&self) -> String {
        let zones = match self.zones.len() {
            0 => String::new(),
            1 => format!(" zone {}", self.zones[0]),
            _ => format!(" zones {}", self.zones.join(",")),
        };
        format!("{} in {}{zones}", self.vm_size, self.region)
    }
}

/// Every placement the spec allows, in the order deploy tries them: the spec as written first,
/// then for each region (the spec's, then `alternateRegions` inside `allowedRegions`) each size
/// (`vmSize`, then `alternateSizes`) in each zone (`zonesByRegion`, one at a time; else
/// `compute.zones` as written).
pub fn ladder(spec: &Spec) -> Vec<Placement> {
    let s = &spec.spec;
    let c = &s.compute;
    let first = Placement {
        region: s.region.clone(),
        vm_size: c.vm_size.clone(),
        zones: c.zones.clone(),
        step: None,
    };
    let mut out = vec![first.clone()];
    let mut sizes = vec![c.vm_size.clone()];
    sizes.extend(
        c.alternate_sizes
            .iter()
            .filter_map(|n| catalog::find(n).map(|z| z.name.clone())),
    );
    let mut regions = vec![s.region.clone()];
    regions.extend(
        s.alternate_regions
            .iter()
            .filter(|r| allowed(spec, r))
            .filter(|r| !r.eq_ignore_ascii_case(&s.region))
            .cloned(),
    );
    for (ri, region) in regions.iter().enumerate() {
        let zone_sets: Vec<Vec<String>> = match zones_for(&c.zones_by_region, region) {
            Some(z) => z.iter().map(|z| vec![z.clone()]).collect(),
            // `compute.zones` came from the home region's pin (validation refuses a clash): it
            // does not carry over to a region without one, which is deployed regionally
            None if zones_for(&c.zones_by_region, &s.region).is_some() => vec![Vec::new()],
            None => vec![c.zones.clone()],
        };
        for (si, size) in sizes.iter().enumerate() {
            for (zi, zones) in zone_sets.iter().enumerate() {
                let p = Placement {
                    region: region.clone(),
                    vm_size: size.clone(),
                    zones: zones.clone(),
                    step: Some(if zi > 0 {
                        Step::Zone
                    } else if si > 0 {
                        Step::Size
                    } else {
                        Step::Region
                    }),
                };
                if ri == 0 && si == 0 && zi == 0 {
                    continue; // the spec as written, already first
                }
                if !out.iter().any(|o| same(o, &p)) {
                    out.push(p);
                }
            }
        }
    }
    out
}

fn same(a: &Placement, b: &Placement) -> bool {
    a.region.eq_ignore_ascii_case(&b.region) && a.vm_size == b.vm_size && a.zones == b.zones
}

/// Is `region` inside the spec's `allowedRegions` (residency first: failover never leaves it)?
pub fn allowed(spec: &Spec, region: &str) -> bool {
    spec.spec
        .allowed_regions
        .as_ref()
        .is_none_or(|a| a.iter().any(|r| r.eq_ignore_ascii_case(region)))
}

/// `alternateRegions` failover never tries because they are outside `allowedRegions`.
pub fn outside_residency(spec: &Spec) -> Vec<String> {
    spec.spec
        .alternate_regions
        .iter()
        .filter(|r| !allowed(spec, r))
        .cloned()
        .collect()
}

/// The resource group a region failover deploys into with `--per-region-resource-group`:
/// `<rg>-<region>`, within Azure's 90 characters (the group's part is shortened, never the
/// region's, and a trailing period is dropped: a group name cannot end with one).
pub fn region_group(rg: &str, region: &str) -> String {
    let region = region.trim().to_ascii_lowercase();
    let keep = 90usize.saturating_sub(region.len() + 1);
    let head: String = rg.trim().chars().take(keep).collect();
    let head = head.trim_end_matches('.');
    format!("{head}-{region}")
}

/// Where the deployment of `p` goes: the home group `rg`, or `<rg>-<region>`
/// (`per_region`, for a region other than the spec's `home`). `Err(region)`: without
/// `per_region`, `rg` holds resources an earlier deployment that ran left in `region` (`left`:
/// (group, region) of each attempt that ran), and a resource keeps its region
/// ([`capacity::LOCATION_IMMUTABLE`], ARM's `InvalidResourceLocation`): the same names in `p`'s region would be
/// refused.
pub fn group_for(
    rg: &str,
    home: &str,
    p: &Placement,
    per_region: bool,
    left: &[(String, String)],
) -> Result<String, String> {
    if p.region.eq_ignore_ascii_case(home) {
        return Ok(rg.to_string());
    }
    if per_region {
        return Ok(region_group(rg, &p.region));
    }
    match left
        .iter()
        .find(|(g, r)| g.eq_ignore_ascii_case(rg) && !r.eq_ignore_ascii_case(&p.region))
    {
        Some((_, r)) => Err(r.clone()),
        None => Ok(rg.to_string()),
    }
}

/// `checked` with its spec moved to `p`, as `render` would see a spec that said so.
pub fn respec(checked: &Checked, p: &Placement) -> Checked {
    let mut spec = checked
        .spec
        .clone()
        .expect("a spec without errors has a model");
    let s = &mut spec.spec;
    s.region = p.region.clone();
    s.compute.vm_size = p.vm_size.clone();
    s.compute.zones = p.zones.clone();
    if let crate::spec::model::Image::Alias(_) = s.compute.image
        && checked
            .spec
            .as_ref()
            .and_then(Spec::size)
            .map(|z| z.name.as_str())
            != Some(p.vm_size.as_str())
    {
        // `image: auto` was resolved for vmSize; resolve it again for the new size
        let auto = crate::spec::resolve::auto_image(catalog::find(&p.vm_size));
        if s.compute.image
            == crate::spec::model::Image::Alias(crate::spec::resolve::auto_image(
                checked.spec.as_ref().and_then(Spec::size),
            ))
        {
            s.compute.image = crate::spec::model::Image::Alias(auto);
        }
    }
    Checked {
        path: checked.path.clone(),
        base_dir: checked.base_dir.clone(),
        source: checked.source.clone(),
        spec: Some(spec),
        sizing: checked.sizing.clone(),
        auto_sized: checked.auto_sized,
        diagnostics: Vec::new(),
        index: checked.index.clone(),
    }
}

/// The capacity code of a failed or rejected deployment, when that is why it failed.
pub fn capacity_code(o: &Outcome) -> Option<&'static capacity::CapacityCode> {
    if o.provisioning_state == "Succeeded" {
        return None;
    }
    o.diagnoses.iter().find_map(|d| match d {
        Diagnosis::Capacity { code, .. } => capacity::lookup(code),
        _ => None,
    })
}

/// The quota `p` needs: its size's VM family (regular VMs), or the regional Spot quota for a
/// pool of Spot VMs only. `(usage name, vCPUs one VM needs)`.
pub fn quota_need(spec: &Spec, p: &Placement) -> Option<(String, i64)> {
    let size = catalog::find(&p.vm_size)?;
    let cap = &spec.spec.capacity;
    let name = if cap.regular_base == 0 && cap.regular_percent_above_base == 0 {
        "lowPriorityCores".to_string()
    } else {
        size.quota_family.clone()
    };
    Some((name, i64::from(size.vcpus)))
}

/// Why `usages` leave no room for one VM of `need`, or `None` (also when the quota is not
/// listed: ARM decides then).
pub fn no_quota(usages: &[Usage], need: &(String, i64)) -> Option<String> {
    let u = usages
        .iter()
        .find(|u| u.name.value.eq_ignore_ascii_case(&need.0))?;
    let free = u.limit - u.current_value;
    (free < need.1).then(|| {
        format!(
            "{} quota {} of {} vCPUs used, one VM needs {}",
            u.label(),
            u.current_value,
            u.limit,
            need.1
        )
    })
}

/// The next placement after `tried` for a failure with `code`: one whose step the source
/// recommends for that code.
pub fn next<'a>(
    ladder: &'a [Placement],
    from: usize,
    code: &capacity::CapacityCode,
) -> Option<(usize, &'a Placement)> {
    ladder
        .iter()
        .enumerate()
        .skip(from + 1)
        .find(|(_, p)| p.step.is_some_and(|s| code.retry_in.contains(&s)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::model::Spec;

    fn spec(extra: &str) -> Spec {
        let text = format!(
            "apiVersion: gpuform/v1\nkind: GpuWorkload\nmetadata:\n  name: pool-fo\n  tags: {{project: p, team: t, env: dev, costCenter: cc-1}}\nspec:\n  region: eastus\n  alternateRegions: [westus3]\n  allowedRegions: [eastus, westus3]\n  workload:\n    type: inference\n    gpuMemoryGiB: 12\n    precision: fp16\n  compute:\n    vmSize: Standard_NC8as_T4_v3\n    sshPublicKey: \"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com\"\n{extra}  capacity:\n    min: 1\n    max: 2\n"
        );
        let c = crate::check::check_source(
            text,
            "t.yaml",
            ".".into(),
            &Default::default(),
            crate::catalog::prices::PriceTable::embedded(),
        );
        assert!(!c.has_errors(), "{:?}", c.diagnostics);
        c.spec.unwrap()
    }

    #[test]
    fn zones_then_sizes_then_allowed_regions() {
        let s = spec(
            "    alternateSizes: [Standard_NC16as_T4_v3]\n    zonesByRegion:\n      eastus: [\"1\", \"2\"]\n",
        );
        assert_eq!(s.spec.compute.zones, vec!["1".to_string()]);
        let l: Vec<String> = ladder(&s).iter().map(Placement::label).collect();
        assert_eq!(
            l,
            vec![
                "Standard_NC8as_T4_v3 in eastus zone 1",
                "Standard_NC8as_T4_v3 in eastus zone 2",
                "Standard_NC16as_T4_v3 in eastus zone 1",
                "Standard_NC16as_T4_v3 in eastus zone 2",
                "Standard_NC8as_T4_v3 in westus3",
                "Standard_NC16as_T4_v3 in westus3",
            ]
        );
        // an alternate outside allowedRegions (validation refuses it) is never tried either
        let mut wider = s.clone();
        wider.spec.alternate_regions.push("northeurope".into());
        assert_eq!(outside_residency(&wider), vec!["northeurope".to_string()]);
        assert_eq!(ladder(&wider).len(), 6);
        let steps: Vec<Option<Step>> = ladder(&s).iter().map(|p| p.step).collect();
        assert_eq!(
            steps,
            vec![
                None,
                Some(Step::Zone),
                Some(Step::Size),
                Some(Step::Zone),
                Some(Step::Region),
                Some(Step::Size)
            ]
        );
    }

    #[test]
    fn a_placement_re_renders_the_spec() {
        let s = spec("    alternateSizes: [Standard_NC16as_T4_v3]\n");
        let checked = Checked {
            path: "t.yaml".into(),
            base_dir: ".".into(),
            source: None,
            spec: Some(s.clone()),
            sizing: None,
            auto_sized: false,
            diagnostics: Vec::new(),
            index: Default::default(),
        };
        let p = &ladder(&s)[1];
        let moved = respec(&checked, p);
        let m = moved.spec.as_ref().unwrap();
        assert_eq!(m.spec.compute.vm_size, "Standard_NC16as_T4_v3");
        let t = crate::emit::arm_template(&moved).unwrap();
        assert!(t.contains("Standard_NC16as_T4_v3"));
        assert!(!t.contains("Standard_NC8as_T4_v3"));
    }

    #[test]
    fn quota_for_one_vm_of_the_family() {
        let s = spec("");
        let p = &ladder(&s)[0];
        let need = quota_need(&s, p).unwrap();
        let usage = |limit: i64, used: i64| Usage {
            name: crate::azure::models::UsageName {
                value: need.0.clone(),
                localized_value: Some("Family vCPUs".into()),
            },
            current_value: used,
            limit,
            unit: None,
            local_name: None,
        };
        assert!(no_quota(&[usage(0, 0)], &need).is_some());
        assert!(no_quota(&[usage(16, 0)], &need).is_none());
        assert!(no_quota(&[], &need).is_none());
    }

    #[test]
    fn a_region_step_gets_its_own_group_or_stops_where_resources_were_left() {
        let s = spec("");
        let l = ladder(&s);
        let west = l.iter().find(|p| p.region == "westus3").unwrap();
        let east = &l[0];
        assert_eq!(region_group("rg-a", "westus3"), "rg-a-westus3");
        let long = format!("{}.", "g".repeat(95));
        let g = region_group(&long, "westus3");
        assert!(
            g.len() <= 90 && g.ends_with("-westus3") && !g.contains(".-"),
            "{g}"
        );
        // the home region stays in the home group, flag or not
        assert_eq!(group_for("rg", "eastus", east, true, &[]).unwrap(), "rg");
        assert_eq!(
            group_for("rg", "eastus", west, true, &[]).unwrap(),
            "rg-westus3"
        );
        // rejected attempts left nothing: the same group is fine
        assert_eq!(group_for("rg", "eastus", west, false, &[]).unwrap(), "rg");
        // an attempt that ran in eastus left resources in rg
        let left = vec![("rg".to_string(), "eastus".to_string())];
        assert_eq!(
            group_for("rg", "eastus", west, false, &left),
            Err("eastus".to_string())
        );
        assert_eq!(
            group_for("rg", "eastus", west, true, &left).unwrap(),
            "rg-westus3"
        );
    }

    #[test]
    fn every_capacity_code_fails_over() {
        for c in capacity::CODES {
            assert!(!c.retry_in.is_empty(), "{}", c.code);
        }
    }
}
