//! Where a spec's pool landed: `destroy` and `status` follow a deployment that failed over into
//! `<RG>-<region>` (deploy's `--per-region-resource-group`) instead of acting on `-g RG` only.
//!
//! The mechanism uses two ARM reads and nothing gpuform writes besides the deployment itself
//! ([`crate::facts::capacity::LANDED_LOOKUP`]): the groups a failover can create are named by
//! the spec (`<RG>-<region>` for each region of the failover ladder, [`failover::region_group`]),
//! and each group's deployment list (Deployments - List By Resource Group; 404
//! `ResourceGroupNotFound` when the group does not exist) says whether a deployment of the spec
//! (`metadata.name-<hash>`, or a `--deployment NAME`) is in it and its `provisioningState`.
//! A group *claims* the workload when such a deployment succeeded or is still running; two
//! claiming groups are refused (which pool is meant is not for gpuform to guess).

// `ArmError` carries the whole error tree; it is built once per failed call.
#![allow(clippy::result_large_err)]

use crate::azure::operate::DeploymentRecord;
use crate::azure::{Arm, ArmError};
use crate::spec::model::Spec;

use super::failover;

/// Is `name` a deployment of the spec whose deployment names start with `base`
/// (`<base>-<8 hex>`, what `gpuform deploy` names them), or one of `extra` (`--deployment`)?
pub fn is_spec_deployment(name: &str, base: &str, extra: &[String]) -> bool {
    extra.iter().any(|e| e.eq_ignore_ascii_case(name))
        || name
            .strip_prefix(base)
            .and_then(|r| r.strip_prefix('-'))
            .is_some_and(|h| h.len() == 8 && h.chars().all(|c| c.is_ascii_hexdigit()))
}

/// The deployment-name base for a spec name (as [`super::deployment_name`] builds it).
pub fn name_base(spec_name: &str) -> String {
    let full = super::deployment_name(spec_name, "", "");
    full[..full.len() - 9].to_string()
}

/// The groups a failover of the spec deployed with `-g rg` can have used: `rg` first, then
/// `<rg>-<region>` for each other region failover may try (`alternateRegions` inside
/// `allowedRegions`).
pub fn candidates(rg: &str, spec: &Spec) -> Vec<(String, String)> {
    let home = spec.spec.region.trim().to_ascii_lowercase();
    let mut out = vec![(rg.trim().to_string(), home.clone())];
    for r in &spec.spec.alternate_regions {
        let r = r.trim().to_ascii_lowercase();
        if r == home || !failover::allowed(spec, &r) {
            continue;
        }
        let g = failover::region_group(rg, &r);
        if !out.iter().any(|(o, _)| o.eq_ignore_ascii_case(&g)) {
            out.push((g, r));
        }
    }
    out
}

/// One candidate group and the spec's deployments in it (`(name, provisioningState)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holding {
    pub group: String,
    pub region: String,
    pub deployments: Vec<(String, String)>,
}

impl Holding {
    /// A deployment of the spec in it succeeded or is still running.
    pub fn claims(&self) -> bool {
        self.deployments
            .iter()
            .any(|(_, s)| s == "Succeeded" || !super::progress::is_terminal(s))
    }

    /// The spec's deployments in the group, `name state, ...`.
    pub fn deployments_listed(&self) -> String {
        let d: Vec<String> = self
            .deployments
            .iter()
            .map(|(n, s)| format!("{n} {s}"))
            .collect();
        d.join(", ")
    }

    fn listing(&self) -> String {
        format!("{} ({})", self.group, self.deployments_listed())
    }
}

/// Which group to act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Landed {
    /// Act on `group`. `followed`: it is not the `-g` group (why, in one line). `leftovers`:
    /// the other candidate groups that hold deployments of the spec (failed attempts).
    Group {
        group: String,
        followed: Option<String>,
        leftovers: Vec<Holding>,
    },
    /// Two or more groups claim the workload: what each holds, for the refusal.
    Ambiguous(Vec<Holding>),
}

/// Choose among `held` (the candidates that hold a deployment of the spec; `rg` is the `-g`
/// group): the one claiming group; with none claiming, `rg` when it holds one, else the only
/// holder; `rg` when nothing holds one (today's behaviour).
pub fn choose(rg: &str, held: Vec<Holding>) -> Landed {
    let claiming: Vec<&Holding> = held.iter().filter(|h| h.claims()).collect();
    if claiming.len() > 1 {
        return Landed::Ambiguous(claiming.into_iter().cloned().collect());
    }
    let pick = claiming.first().map(|h| h.group.clone()).or_else(|| {
        held.iter()
            .find(|h| h.group.eq_ignore_ascii_case(rg))
            .or_else(|| (held.len() == 1).then(|| &held[0]))
            .map(|h| h.group.clone())
    });
    let Some(group) = pick else {
        if held.is_empty() {
            return Landed::Group {
                group: rg.to_string(),
                followed: None,
                leftovers: Vec::new(),
            };
        }
        return Landed::Ambiguous(held);
    };
    let chosen = held
        .iter()
        .find(|h| h.group == group)
        .expect("picked from held");
    let followed = (!group.eq_ignore_ascii_case(rg)).then(|| {
        format!(
            "the deployment of the spec is in {} ({}: deploy's --per-region-resource-group after a capacity failover), not in {rg}",
            chosen.listing(),
            chosen.region
        )
    });
    let leftovers = held.iter().filter(|h| h.group != group).cloned().collect();
    Landed::Group {
        group,
        followed,
        leftovers,
    }
}

/// The refusal when several groups hold the workload: what and where (the message), and how
/// to choose (the help).
pub fn ambiguous_message(
    command: &str,
    spec_path: &str,
    spec_name: &str,
    held: &[Holding],
) -> (String, String) {
    let listing: Vec<String> = held.iter().map(Holding::listing).collect();
    let pick: Vec<String> = held
        .iter()
        .map(|h| format!("gpuform {command} {spec_path} -g {} --no-follow", h.group))
        .collect();
    (
        format!(
            "more than one resource group holds deployments of {spec_name}: {}; which one is the pool is not for gpuform to guess, so {command} did nothing",
            listing.join("; ")
        ),
        format!(
            "name the group and skip the search: {}",
            pick.join("  or  ")
        ),
    )
}

/// Read the candidate groups' deployments and choose ([`choose`]). With no candidate besides
/// `rg` (the spec allows no other region) nothing is read and `rg` is the group.
pub async fn landed(
    arm: &Arm,
    rg: &str,
    spec: &Spec,
    extra: &[String],
) -> Result<Landed, ArmError> {
    let groups = candidates(rg, spec);
    if groups.len() == 1 {
        return Ok(choose(rg, Vec::new()));
    }
    let base = name_base(&spec.metadata.name);
    let lists = futures::future::join_all(groups.iter().map(|(g, _)| arm.deployments(g))).await;
    let mut held = Vec::new();
    for ((group, region), list) in groups.into_iter().zip(lists) {
        let records: Vec<DeploymentRecord> = list?;
        let deployments: Vec<(String, String)> = records
            .iter()
            .filter(|d| is_spec_deployment(&d.name, &base, extra))
            .map(|d| {
                (
                    d.name.clone(),
                    d.properties
                        .provisioning_state
                        .clone()
                        .unwrap_or_else(|| "Unknown".into()),
                )
            })
            .collect();
        if !deployments.is_empty() {
            held.push(Holding {
                group,
                region,
                deployments,
            });
        }
    }
    Ok(choose(rg, held))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(group: &str, states: &[&str]) -> Holding {
        Holding {
            group: group.into(),
            region: "westus3".into(),
            deployments: states
                .iter()
                .enumerate()
                .map(|(i, s)| (format!("pool-0000000{i}"), s.to_string()))
                .collect(),
        }
    }

    #[test]
    fn the_one_claiming_group_wins_and_failed_attempts_are_leftovers() {
        match choose(
            "rg",
            vec![h("rg", &["Failed"]), h("rg-westus3", &["Succeeded"])],
        ) {
            Landed::Group {
                group,
                followed,
                leftovers,
            } => {
                assert_eq!(group, "rg-westus3");
                assert!(followed.unwrap().contains("not in rg"));
                assert_eq!(leftovers, vec![h("rg", &["Failed"])]);
            }
            l => panic!("{l:?}"),
        }
        // a deployment still running claims too
        assert!(matches!(
            choose("rg", vec![h("rg", &["Failed"]), h("rg-westus3", &["Running"])]),
            Landed::Group { group, .. } if group == "rg-westus3"
        ));
    }

    #[test]
    fn two_claiming_groups_are_refused() {
        let l = choose(
            "rg",
            vec![
                h("rg", &["Succeeded"]),
                h("rg-westus3", &["Failed", "Succeeded"]),
            ],
        );
        let Landed::Ambiguous(held) = l else {
            panic!("{l:?}")
        };
        let (m, help) = ambiguous_message("destroy", "pool.yaml", "pool", &held);
        assert!(m.contains("rg (pool-00000000 Succeeded)"), "{m}");
        assert!(
            help.contains("gpuform destroy pool.yaml -g rg --no-follow"),
            "{help}"
        );
        assert!(help.contains("-g rg-westus3 --no-follow"), "{help}");
    }

    #[test]
    fn nothing_claiming_keeps_the_given_group_when_it_holds_one() {
        assert!(matches!(
            choose("rg", vec![]),
            Landed::Group { group, followed: None, .. } if group == "rg"
        ));
        assert!(matches!(
            choose("rg", vec![h("rg", &["Failed"]), h("rg-westus3", &["Failed"])]),
            Landed::Group { group, followed: None, leftovers } if group == "rg" && leftovers.len() == 1
        ));
        assert!(matches!(
            choose("rg", vec![h("rg-westus3", &["Failed"])]),
            Landed::Group { group, followed: Some(_), .. } if group == "rg-westus3"
        ));
    }

    #[test]
    fn deployment_names_of_the_spec() {
        let base = name_base("pool-fo");
        assert!(is_spec_deployment(&format!("{base}-0a1b2c3d"), &base, &[]));
        assert!(!is_spec_deployment(&format!("{base}-0a1b2c3"), &base, &[]));
        assert!(is_spec_deployment("mine", &base, &["MINE".into()]));
    }
}
