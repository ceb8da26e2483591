//! The report of a deployment that ended or that ARM refused: diagnoses of its error tree and the
//! fixes gpuform knows (a quota increase to request, alternate regions that pass preflight).

use std::collections::BTreeMap;

use serde_json::Value;

use super::Finished;
use super::alternates::alternatives;
use super::context::Target;
use super::errors::{self, Diagnosis, QuotaIncrease};
use super::report::{Outcome, workbook_link};
use crate::azure::{ArmError, ErrorDetail};
use crate::diag::failure::{ExitCode, Failure};
use crate::spec::model::Spec;

/// A what-if ARM refused or that failed: the error tree, and the first fix gpuform knows.
pub fn what_if_failure(
    message: String,
    error: &ErrorDetail,
    path: &std::path::Path,
    spec: &Spec,
) -> Failure {
    let tree = errors::expand(error);
    let help = errors::diagnose([&tree]).first().map(|d| match d {
        Diagnosis::Quota(q) => quota_fix(q, spec),
        Diagnosis::Capacity { code, .. } => format!(
            "{code}: run `gpuform preflight {}` to compare the alternate regions",
            path.display()
        ),
    });
    Failure {
        code: ExitCode::Findings,
        message,
        causes: tree.tree_lines(0),
        help,
    }
}

/// The report of a deployment that ended (succeeded or not).
pub fn finished(target: &Target, path: &std::path::Path, spec: &Spec, f: &Finished) -> Outcome {
    let props = &f.deployment.properties;
    let state = f.state().to_string();
    let outputs: BTreeMap<String, Value> = props
        .outputs
        .iter()
        .map(|(k, v)| (k.clone(), v.get("value").cloned().unwrap_or(Value::Null)))
        .collect();
    let error = props.error.as_ref().map(errors::expand);
    let failed = errors::failed_resources(&f.operations);
    let gpu_workbook = workbook_link(target.azure.cloud.portal(), &outputs);
    let mut outcome = Outcome {
        schema_version: 1,
        deployment: target.name.to_string(),
        resource_group: target.rg.to_string(),
        subscription: target.azure.subscription.to_string(),
        provisioning_state: state.clone(),
        duration: props.duration.clone(),
        outputs,
        error,
        failed_resources: failed,
        diagnoses: Vec::new(),
        alternatives: None,
        fixes: Vec::new(),
        portal: target.portal(),
        gpu_workbook,
        attempts: Vec::new(),
    };
    if state != "Succeeded" {
        let trees: Vec<&ErrorDetail> = outcome
            .error
            .iter()
            .chain(
                outcome
                    .failed_resources
                    .iter()
                    .filter_map(|r| r.error.as_ref()),
            )
            .collect();
        outcome.diagnoses = errors::diagnose(trees);
        fill_fixes(&mut outcome, target, path, spec);
    }
    outcome
}

/// ARM refused the PUT (400 InvalidTemplateDeployment and friends): the same report as a
/// deployment that failed, from the error in the response.
pub fn rejection(target: &Target, path: &std::path::Path, spec: &Spec, e: &ArmError) -> Outcome {
    let tree = errors::expand(&e.detail());
    let mut outcome = Outcome {
        schema_version: 1,
        deployment: target.name.to_string(),
        resource_group: target.rg.to_string(),
        subscription: target.azure.subscription.to_string(),
        provisioning_state: "Rejected".into(),
        duration: None,
        outputs: BTreeMap::new(),
        diagnoses: errors::diagnose([&tree]),
        error: Some(tree),
        failed_resources: Vec::new(),
        alternatives: None,
        fixes: Vec::new(),
        portal: target.portal(),
        gpu_workbook: None,
        attempts: Vec::new(),
    };
    fill_fixes(&mut outcome, target, path, spec);
    outcome
}

fn fill_fixes(outcome: &mut Outcome, target: &Target, path: &std::path::Path, spec: &Spec) {
    let size = &spec.spec.compute.vm_size;
    for d in outcome.diagnoses.clone() {
        match d {
            Diagnosis::Quota(q) => outcome.fixes.push(quota_fix(&q, spec)),
            Diagnosis::Capacity { code, location } if target.failover => {
                let region = location.unwrap_or_else(|| spec.spec.region.clone());
                let advice = crate::facts::capacity::lookup(&code)
                    .map(|c| format!("; Microsoft: {} ({})", c.recommendation, c.source.what))
                    .unwrap_or_default();
                outcome.fixes.push(format!(
                    "{code}: Azure cannot place {size} in {region} now{advice}"
                ));
            }
            Diagnosis::Capacity { code, location } => {
                let region = location.unwrap_or_else(|| spec.spec.region.clone());
                let alt = alternatives(target.azure, path, spec);
                let mut fix = format!("{code}: Azure cannot place {size} in {region} now");
                if !alt.passing.is_empty() {
                    let list: Vec<String> = alt
                        .passing
                        .iter()
                        .map(|(r, p)| {
                            let score = alt
                                .spot_scores
                                .iter()
                                .find(|(s, _)| s == r)
                                .map(|(_, s)| format!("Spot {s}"));
                            let price = p.map(|p| format!("${p:.3}/h per VM"));
                            match [score, price].into_iter().flatten().collect::<Vec<_>>() {
                                v if v.is_empty() => r.clone(),
                                v => format!("{r} ({})", v.join(", ")),
                            }
                        })
                        .collect();
                    let order = if alt.spot_scores.is_empty() {
                        "cheapest first"
                    } else {
                        "by Spot placement score, then cheapest"
                    };
                    fix.push_str(&format!(
                        "; alternate regions that pass preflight, {order}: {}; set spec.region to one of them and deploy again (into a resource group for that region)",
                        list.join(", ")
                    ));
                } else if let Some(n) = &alt.note {
                    fix.push_str(&format!("; {n}"));
                } else {
                    fix.push_str("; none of the spec's alternateRegions passes preflight either");
                }
                for (r, why) in &alt.blocked {
                    fix.push_str(&format!("\n      {r} does not pass: {}", why.join("; ")));
                }
                if code.contains("Allocation") {
                    fix.push_str("\n      allocation failures are often temporary: retrying later, or with fewer zones or instances, may also work");
                }
                outcome.fixes.push(fix);
                outcome.alternatives = Some(alt);
            }
        }
    }
}

/// The increase to request; when the quota is the size's family quota, which family that is
/// (ARM spells it `standardNCASv3_T4Family`, the usage list `Standard NCASv3_T4 Family`).
pub fn quota_fix(q: &QuotaIncrease, spec: &Spec) -> String {
    let mut fix = q.text();
    let size = &spec.spec.compute.vm_size;
    if let Some(family) = crate::catalog::find(size).map(|s| &s.quota_family)
        && same_family(&q.quota, family)
    {
        fix.push_str(&format!(
            " ({size} counts against the {family:?} family quota; `az vm list-usage -l {} -o table` shows it)",
            q.location.as_deref().unwrap_or(&spec.spec.region)
        ));
    }
    fix
}

/// `standardNCASv3_T4Family Cores` names the family `Standard NCASv3_T4 Family`; `Total Regional
/// Cores` and `Low Priority Cores` name none.
fn same_family(quota: &str, family: &str) -> bool {
    let key = |s: &str| -> String {
        s.trim()
            .trim_end_matches(" Cores")
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    key(quota) == key(family)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_family_quota_names_the_family_and_regional_quotas_none() {
        assert!(same_family(
            "standardNCASv3_T4Family Cores",
            "Standard NCASv3_T4 Family"
        ));
        assert!(same_family(
            " standardNCASv3_T4Family ",
            "Standard NCASv3_T4 Family"
        ));
        assert!(!same_family(
            "Total Regional Cores",
            "Standard NCASv3_T4 Family"
        ));
        assert!(!same_family(
            "Low Priority Cores",
            "Standard NCASv3_T4 Family"
        ));
        assert!(!same_family(
            "standardNCADSA100v4Family Cores",
            "Standard NCASv3_T4 Family"
        ));
    }
}
