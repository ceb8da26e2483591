//! Azure Policy's findings on the rendered resources, and where they may be placed.

use crate::azure::landing_zone::{PolicyReference, PolicyRestrictions};
use crate::preflight::fetch::Fetch;
use crate::preflight::report::{Check, Status};

use super::common::{check, failed, with_fix};
use super::gather::{Data, PolicyAnswer};
use super::inputs::{Inputs, MAX_POLICY_CALLS, PolicyResource};
use super::network::last_segment;

/// A policy finding (one per assignment and resource).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Finding {
    pub(super) effect: String,
    pub(super) assignment: String,
    pub(super) definition: String,
    pub(super) resource: String,
    pub(super) fields: Vec<String>,
    pub(super) reason: Option<String>,
}

pub(super) fn names(p: Option<&PolicyReference>) -> (String, String) {
    let p = p.cloned().unwrap_or_default();
    let assignment = p
        .policy_assignment_id
        .as_deref()
        .map(last_segment)
        .unwrap_or("(unknown assignment)")
        .to_string();
    let mut definition = p
        .policy_definition_id
        .as_deref()
        .map(last_segment)
        .unwrap_or("(unknown definition)")
        .to_string();
    if let Some(set) = p.policy_set_definition_id.as_deref() {
        definition = format!("{definition} in initiative {}", last_segment(set));
    }
    (assignment, definition)
}

pub(super) fn same_location(a: &str, b: &str) -> bool {
    let n = |s: &str| s.replace(' ', "").to_ascii_lowercase();
    n(a) == n(b)
}

/// The findings of one answer: content evaluations (deny, audit, others) and the location /
/// SKU field restrictions that hit this resource's values.
pub(super) fn findings(r: &PolicyResource, answer: &PolicyRestrictions) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    for ev in answer
        .content_evaluation_result
        .iter()
        .flat_map(|c| c.policy_evaluations.iter())
    {
        let effect = ev
            .effect_details
            .as_ref()
            .and_then(|e| e.policy_effect.clone())
            .unwrap_or_else(|| "unknown effect".into());
        let (assignment, definition) = names(ev.policy_info.as_ref());
        let fields: Vec<String> = ev
            .evaluation_details
            .iter()
            .flat_map(|d| d.evaluated_expressions.iter())
            .filter(|x| {
                x.expression_kind
                    .as_deref()
                    .is_none_or(|k| k.eq_ignore_ascii_case("field"))
            })
            .filter_map(|x| x.path.clone().or_else(|| x.expression.clone()))
            .collect();
        let reason = ev
            .evaluation_result
            .as_deref()
            .filter(|r| !r.eq_ignore_ascii_case("NonCompliant"))
            .map(|r| format!("evaluation result {r}"));
        out.push(Finding {
            effect,
            assignment,
            definition,
            resource: r.label(),
            fields,
            reason,
        });
    }
    for fr in &answer.field_restrictions {
        let field = fr.field.as_str();
        let ours = if field.eq_ignore_ascii_case("location") {
            r.location.as_deref()
        } else if field.to_ascii_lowercase().ends_with("sku.name") {
            r.sku.as_deref()
        } else {
            None
        };
        let Some(value) = ours else { continue };
        for x in &fr.restrictions {
            let listed = x.values.iter().any(|v| same_location(v, value));
            let result = x.result.as_deref().unwrap_or("");
            // Deny lists the forbidden values; Required lists the only allowed ones
            let hit = (result.eq_ignore_ascii_case("Deny") && listed)
                || (result.eq_ignore_ascii_case("Required") && !x.values.is_empty() && !listed);
            if !hit {
                continue;
            }
            let (assignment, definition) = names(x.policy.as_ref());
            let effect = x.policy_effect.clone().unwrap_or_else(|| "Deny".into());
            let reason = Some(x.reason.clone().unwrap_or_else(|| {
                if result.eq_ignore_ascii_case("Required") {
                    format!("{field} must be one of {}", x.values.join(", "))
                } else {
                    format!("{field} {value} is denied")
                }
            }));
            // the same assignment already found by the content evaluation: add the field
            if let Some(f) = out.iter_mut().find(|f| f.assignment == assignment) {
                if !f.fields.iter().any(|x| x.eq_ignore_ascii_case(field)) {
                    f.fields.push(field.to_string());
                }
                if f.reason.is_none() {
                    f.reason = reason;
                }
                continue;
            }
            out.push(Finding {
                effect,
                assignment,
                definition,
                resource: r.label(),
                fields: vec![field.to_string()],
                reason,
            });
        }
    }
    out
}

pub(super) fn finding_text(f: &Finding) -> String {
    let mut s = format!(
        "policy assignment {} (definition {}) {} {}",
        f.assignment,
        f.definition,
        if f.effect.eq_ignore_ascii_case("Deny") {
            "denies"
        } else {
            "flags"
        },
        f.resource
    );
    if !f.fields.is_empty() {
        s.push_str(&format!(
            " (field{} {})",
            if f.fields.len() == 1 { "" } else { "s" },
            f.fields.join(", ")
        ));
    }
    if let Some(r) = &f.reason {
        s.push_str(&format!(": {r}"));
    }
    s
}

pub(super) const POLICY_TITLE: &str = "Azure Policy";

pub(super) fn policy_checks(inputs: &Inputs, data: &Data, out: &mut Vec<Check>) {
    let answers = match &data.policy {
        Err(Fetch::Skipped(why)) => {
            out.push(check("policy", POLICY_TITLE, Status::Skipped, why.clone()));
            return;
        }
        Err(Fetch::Failed(e)) => {
            out.push(failed("policy", POLICY_TITLE, "Azure Policy", e));
            return;
        }
        Err(Fetch::Got(())) => return,
        Ok(a) => a,
    };
    let mut denies = Vec::new();
    let mut audits = Vec::new();
    let mut forbidden = None;
    let mut unanswered: Vec<&PolicyAnswer> = Vec::new();
    for a in answers {
        match &a.result {
            Fetch::Got(r) => {
                for f in findings(&a.resource, r) {
                    if f.effect.eq_ignore_ascii_case("Deny") {
                        denies.push(f);
                    } else {
                        audits.push(f);
                    }
                }
            }
            Fetch::Failed(e) if e.status == Some(403) => forbidden = forbidden.or(Some(e)),
            _ => unanswered.push(a),
        }
    }
    for f in &denies {
        out.push(with_fix(
            check("policy-deny", POLICY_TITLE, Status::Fail, finding_text(f)),
            "the deployment would fail on this resource: change the spec so the template does not create it (landing zones: network.existingSubnet, outbound through the hub), or ask the platform team for a policy exemption",
        ));
    }
    for f in &audits {
        out.push(check(
            "policy-audit",
            POLICY_TITLE,
            Status::Pass,
            format!("does not block: {}", finding_text(f)),
        ));
    }
    if let Some(e) = forbidden {
        let mut c = failed(
            "policy",
            POLICY_TITLE,
            "whether Azure Policy denies the template's resources",
            e,
        );
        c.status = Status::Warn;
        c.fix = Some("grant Microsoft.PolicyInsights/checkPolicyRestrictions/action (Reader on the subscription or resource group includes it) to check Azure Policy before deploying; until then Policy can still deny the deployment midway".into());
        out.push(c);
    }
    for a in &unanswered {
        if let Fetch::Failed(e) = &a.result {
            out.push(failed(
                "policy",
                POLICY_TITLE,
                &format!("Azure Policy for {}", a.resource.label()),
                e,
            ));
        }
    }
    let answered = answers
        .iter()
        .filter(|a| matches!(a.result, Fetch::Got(_)))
        .count();
    let total = inputs.resources.as_ref().map(Vec::len).unwrap_or(0);
    if total > answers.len() {
        out.push(check(
            "policy",
            POLICY_TITLE,
            Status::Warn,
            format!(
                "only the first {} of {total} resource kinds were checked against Azure Policy (at most {MAX_POLICY_CALLS} calls per preflight)",
                answers.len()
            ),
        ));
    }
    if denies.is_empty() && answered > 0 && forbidden.is_none() && unanswered.is_empty() {
        let scope = answers
            .first()
            .map(|a| a.scope.as_str())
            .unwrap_or("the subscription");
        out.push(check(
            "policy",
            POLICY_TITLE,
            Status::Pass,
            format!(
                "no deny: {answered} resource kind{} of the template (by type, SKU and location, in {}) checked at {scope}",
                if answered == 1 { "" } else { "s" },
                inputs.region
            ),
        ));
    }
}

/// The landing-zone findings (they join the spec region's checks).
/// The pool's NICs, the private endpoints and a route table must be in the subscription and
/// region of the virtual network they join ([`crate::facts::placement`]): the ids name the
/// subscriptions, the route table read names its region.
pub(super) fn placement_checks(inputs: &Inputs, data: &Data, out: &mut Vec<Check>) {
    use crate::azure::resource_id::ArmId;
    use crate::facts::placement;
    const TITLE: &str = "Subscription and region of the subnets and route table";
    let mut problems = Vec::new();
    let mut checked = Vec::new();
    if let Some(sub) = &data.subscription {
        let ids = [
            (
                "network.existingSubnet",
                inputs.subnet_id.as_deref(),
                "the pool's NICs",
                placement::NIC.what,
            ),
            (
                "network.existingPrivateEndpointSubnet",
                inputs.pe_subnet_id.as_deref(),
                "the private endpoints",
                placement::PRIVATE_ENDPOINT.what,
            ),
            (
                "network.routeTable.id",
                inputs.route_table_id.as_deref(),
                "the route table of gpuform's subnet",
                placement::ROUTE_TABLE.what,
            ),
        ];
        for (field, id, what, source) in ids {
            let Some(other) = id
                .and_then(|i| ArmId::parse(i).ok())
                .map(|a| a.subscription)
            else {
                continue;
            };
            checked.push(field);
            if !other.eq_ignore_ascii_case(sub) {
                problems.push(format!(
                    "{field} is in subscription {other}, but the deployment goes to {sub}: {what} must be in the virtual network's subscription ({source})"
                ));
            }
        }
    }
    if inputs.route_table_id.is_some()
        && let Some(Fetch::Got(rt)) = &data.route_table
        && !rt.location.is_empty()
    {
        checked.push("the route table's region");
        if !same_location(&rt.location, &inputs.region) {
            problems.push(format!(
                "network.routeTable.id is in {}, the pool's VNet in {}: a route table joins only subnets of its own region and subscription ({})",
                rt.location,
                inputs.region,
                placement::ROUTE_TABLE.what
            ));
        }
    }
    if !problems.is_empty() {
        out.push(with_fix(
            check("landing-zone-placement", TITLE, Status::Fail, problems.join("; ")),
            "deploy to the subscription (and region) of the platform team's network (`--subscription`), or ask for a subnet / route table in the deployment's subscription and region",
        ));
    } else if !checked.is_empty() {
        out.push(check(
            "landing-zone-placement",
            TITLE,
            Status::Pass,
            format!(
                "{} in the deployment's subscription and region",
                checked.join(", ")
            ),
        ));
    }
}

// ---------------------------------------------------------------------------------------------
// The existing Log Analytics workspace (`monitoring.existingWorkspace`, issue 19)
