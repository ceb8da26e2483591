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
    // a what-if has no resource group at hand here: the command names none (a pool that runs
    // already is then counted as new, so the request may ask for more than is missing)
    let request = QuotaRequest {
        path,
        resource_group: None,
        subscription: None,
    };
    let help = errors::diagnose([&tree])
        .first()
        .map(|d| match d {
            Diagnosis::Quota(q) => quota_fix(q, spec, &request),
            Diagnosis::Capacity { code, .. } => format!(
                "{code}: run `gpuform preflight {}` to compare the alternate regions",
                path.display()
            ),
        })
        .or_else(|| code_only_quota_fix(&tree, spec, &request));
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
        follow_up: Vec::new(),
    };
    if state != "Succeeded" {
        let trees = error_trees(&outcome);
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
        follow_up: Vec::new(),
    };
    fill_fixes(&mut outcome, target, path, spec);
    outcome
}

fn fill_fixes(outcome: &mut Outcome, target: &Target, path: &std::path::Path, spec: &Spec) {
    let size = &spec.spec.compute.vm_size;
    let request = QuotaRequest {
        path,
        resource_group: Some(target.rg),
        subscription: Some(target.azure.subscription),
    };
    if !outcome
        .diagnoses
        .iter()
        .any(|d| matches!(d, Diagnosis::Quota(_)))
    {
        // a quota error without the numbers to parse: name the command that finds them
        let mut found: Vec<String> = Vec::new();
        for t in error_trees(outcome) {
            if let Some(fix) = code_only_quota_fix(t, spec, &request)
                && !outcome.fixes.contains(&fix)
                && !found.contains(&fix)
            {
                found.push(fix);
            }
        }
        outcome.fixes.extend(found);
    }
    if let Some(fix) = location_fix(outcome, target, path) {
        outcome.fixes.push(fix);
    }
    if let Some(fix) = feature_fix(outcome, path) {
        outcome.fixes.push(fix);
    }
    for d in outcome.diagnoses.clone() {
        match d {
            Diagnosis::Quota(q) => outcome.fixes.push(quota_fix(&q, spec, &request)),
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

/// Where `gpuform quota request` should look: the spec, and the deployment's resource group and
/// subscription when they are known.
pub struct QuotaRequest<'a> {
    pub path: &'a std::path::Path,
    pub resource_group: Option<&'a str>,
    pub subscription: Option<&'a str>,
}

impl QuotaRequest<'_> {
    /// The exact command, as it can be pasted (`--region` only when the quota's region is not
    /// the spec's).
    pub fn command(&self, region: Option<&str>, spec: &Spec) -> String {
        let mut cmd = format!(
            "gpuform quota request {}",
            shell_word(&self.path.display().to_string())
        );
        if let Some(r) = region.filter(|r| !r.eq_ignore_ascii_case(&spec.spec.region)) {
            cmd.push_str(&format!(" --region {}", shell_word(r)));
        }
        if let Some(rg) = self.resource_group {
            cmd.push_str(&format!(" -g {}", shell_word(rg)));
        }
        if let Some(s) = self.subscription {
            cmd.push_str(&format!(" --subscription {}", shell_word(s)));
        }
        cmd
    }
}

/// A word for a shell: as it is when it is plain, else in single quotes.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The increase to request, and the `gpuform quota request` command that files it; when the
/// quota is the size's family quota, which family that is (ARM spells it
/// `standardNCASv3_T4Family`, the usage list `Standard NCASv3_T4 Family`).
pub fn quota_fix(q: &QuotaIncrease, spec: &Spec, request: &QuotaRequest) -> String {
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
    fix.push_str(&format!(
        "; `{}` files that increase through the Azure Quota API and follows it to approval",
        request.command(q.location.as_deref(), spec)
    ));
    fix
}

/// A quota error Azure gave without the numbers `quota_fix` reads (the codes of
/// [`crate::facts::quota`]): the command that measures and files what is missing, or, for a
/// per-resource-group count, Microsoft's fix.
fn code_only_quota_fix(tree: &ErrorDetail, spec: &Spec, request: &QuotaRequest) -> Option<String> {
    use crate::facts::quota::{QUOTA_ERRORS, QuotaError, quota_error};
    let mut stack = vec![tree];
    while let Some(n) = stack.pop() {
        let code = n.code.as_deref().unwrap_or("");
        match quota_error(code, n.message.as_deref().unwrap_or("")) {
            Some(QuotaError::Vcpus) => {
                use crate::facts::quota::{
                    VCPU_QUOTA_CODE_ASSUMED, VCPU_QUOTA_CODE_ASSUMED_SOURCE,
                };
                // the code read as a vCPU quota error without a Microsoft page says so
                let assumed = if code.eq_ignore_ascii_case(VCPU_QUOTA_CODE_ASSUMED) {
                    format!(" (an assumption: {})", VCPU_QUOTA_CODE_ASSUMED_SOURCE.what)
                } else {
                    String::new()
                };
                return Some(format!(
                    "{code}: a vCPU quota is exceeded and Azure's message gives no numbers; `{}` measures what is missing against the live quota and files the increase through the Azure Quota API, then run the deployment again{assumed}",
                    request.command(None, spec)
                ));
            }
            Some(QuotaError::ResourceCount) => {
                return Some(format!(
                    "{code}: the resource group holds as many resources of one type as Azure allows; delete some of them or deploy into another resource group (no quota request raises this limit; {})",
                    QUOTA_ERRORS.what
                ));
            }
            None => stack.extend(n.details.iter()),
        }
    }
    None
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

/// The deployment's error and each failed resource's: the trees the diagnoses read.
/// ARM refused a resource because the same name exists in another region of the group
/// (`InvalidResourceLocation`, [`crate::facts::capacity::LOCATION_IMMUTABLE`]): the group holds
/// what a deployment to another region left (a changed `spec.region`, or an earlier run's
/// failover). Say what and how to get out of it.
fn location_fix(outcome: &Outcome, target: &Target, path: &std::path::Path) -> Option<String> {
    fn find(d: &ErrorDetail) -> Option<&ErrorDetail> {
        if d.code.as_deref() == Some(crate::facts::capacity::INVALID_RESOURCE_LOCATION_CODE) {
            return Some(d);
        }
        d.details.iter().find_map(find)
    }
    let hit = error_trees(outcome).into_iter().find_map(find)?;
    let rg = target.rg;
    Some(format!(
        "{}: {rg} already holds a resource of this name in another region ({}), and a resource keeps its region (source: {}); deploy into a group of its own for this region (-g NEW_GROUP --create-resource-group, or --per-region-resource-group when failing over), or remove what the other region's deployment left first (gpuform destroy {} -g {rg} --no-follow)",
        crate::facts::capacity::INVALID_RESOURCE_LOCATION_CODE,
        hit.message.as_deref().unwrap_or("no message"),
        crate::facts::capacity::INVALID_RESOURCE_LOCATION.what,
        path.display()
    ))
}

/// Azure refused a private-only Application Gateway: the subscription lacks
/// `EnableApplicationGatewayNetworkIsolation` ([`crate::facts::serving::GATEWAY_FEATURE`]).
/// Name the spec's place that asks for the gateway, the registration and the next command.
fn feature_fix(outcome: &Outcome, path: &std::path::Path) -> Option<String> {
    use crate::facts::serving as f;
    fn find(d: &ErrorDetail) -> bool {
        d.code.as_deref() == Some(f::GATEWAY_FEATURE_ERROR_CODE)
            || d.message
                .as_deref()
                .is_some_and(|m| m.contains("without Public IP is not supported"))
            || d.details.iter().any(find)
    }
    if !error_trees(outcome).into_iter().any(find) {
        return None;
    }
    // where the spec asks for the gateway (file:line:col), when the file still reads
    let at = crate::io::read_bounded(path, crate::spec::MAX_FILE_BYTES)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .and_then(|text| crate::spec::yaml::parse(&text).ok())
        .and_then(|y| {
            y.index
                .locate_key("/spec/serving/frontend/kind")
                .or_else(|| y.index.locate_key("/spec/serving/frontend"))
                .or_else(|| y.index.locate_key("/spec/serving"))
        })
        .map(|l| format!("{}:{}:{}", path.display(), l.line, l.column))
        .unwrap_or_else(|| path.display().to_string());
    let feat = f::GATEWAY_FEATURE;
    Some(format!(
        "{}: the subscription has not registered {}/{}, which a private-only Application Gateway needs ({at}: serving.frontend asks for one); run `{}`, wait until `az feature show --namespace {} --name {} --query properties.state` says Registered (up to {} minutes), then deploy again; or use `serving.frontend.kind: loadBalancer` (no request autoscale)",
        f::GATEWAY_FEATURE_ERROR_CODE,
        feat.namespace,
        feat.name,
        feat.command(),
        feat.namespace,
        feat.name,
        f::FEATURE_REGISTRATION_MINUTES
    ))
}

fn error_trees(outcome: &Outcome) -> Vec<&ErrorDetail> {
    outcome
        .error
        .iter()
        .chain(
            outcome
                .failed_resources
                .iter()
                .filter_map(|r| r.error.as_ref()),
        )
        .collect()
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
