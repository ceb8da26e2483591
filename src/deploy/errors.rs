//! Azure's deployment errors, made readable: the error tree with the JSON that resource providers
//! stuff into `message` strings unpacked, the resources that failed, and the fixes gpuform knows
//! (the exact quota increase; other regions for capacity errors).

use serde::Serialize;
use serde_json::Value;

use crate::azure::ErrorDetail;
use crate::azure::deployments::{Operation, TargetResource};

/// Unpack messages that are whole ARM error bodies (`"{\r\n  \"error\": {...}}"`, common in
/// deployment operations) into child nodes, recursively.
pub fn expand(d: &ErrorDetail) -> ErrorDetail {
    let mut out = d.clone();
    out.details = d.details.iter().map(expand).collect();
    if let Some(m) = &d.message {
        let t = m.trim();
        if t.starts_with('{')
            && let Some(inner) = ErrorDetail::from_body(t.as_bytes())
        {
            out.message = None;
            out.details.insert(0, expand(&inner));
        }
    }
    out
}

/// An operation's `statusMessage` as an error tree, when it carries one.
pub fn status_error(v: &Value) -> Option<ErrorDetail> {
    match v {
        Value::String(s) => ErrorDetail::from_body(s.trim().as_bytes())
            .or_else(|| {
                Some(ErrorDetail {
                    message: Some(s.clone()),
                    ..Default::default()
                })
            })
            .map(|d| expand(&d)),
        Value::Object(m) => {
            let err = m.get("error").unwrap_or(v);
            serde_json::from_value::<ErrorDetail>(err.clone())
                .ok()
                .filter(|d| d.code.is_some() || d.message.is_some())
                .map(|d| expand(&d))
        }
        _ => None,
    }
}

/// The error trees of a finished deployment: the deployment's own and each failed
/// operation's.
pub fn trees(f: &super::finished::Finished) -> Vec<ErrorDetail> {
    f.deployment
        .properties
        .error
        .iter()
        .map(expand)
        .chain(
            failed_resources(&f.operations)
                .into_iter()
                .filter_map(|r| r.error),
        )
        .collect()
}

/// Every node of a tree, depth first.
fn nodes(d: &ErrorDetail) -> Vec<&ErrorDetail> {
    let mut out = vec![d];
    for c in &d.details {
        out.extend(nodes(c));
    }
    out
}

/// A resource whose operation failed, with its error.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FailedResource {
    pub resource_type: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorDetail>,
}

pub fn failed_resources(ops: &[Operation]) -> Vec<FailedResource> {
    ops.iter()
        .filter(|o| o.properties.provisioning_state.as_deref() == Some("Failed"))
        .map(|o| {
            let (resource_type, name) = target_label(o.properties.target_resource.as_ref());
            FailedResource {
                resource_type,
                name,
                id: o
                    .properties
                    .target_resource
                    .as_ref()
                    .and_then(|t| t.id.clone()),
                status_code: o.properties.status_code.clone(),
                error: o.properties.status_message.as_ref().and_then(status_error),
            }
        })
        .collect()
}

/// `(type, name)` of an operation's target (`("(deployment)", "outputs")` without one).
pub fn target_label(t: Option<&TargetResource>) -> (String, String) {
    match t {
        Some(t) => (
            t.resource_type
                .clone()
                .unwrap_or_else(|| "(resource)".into()),
            t.resource_name
                .clone()
                .or_else(|| {
                    t.id.as_deref()
                        .and_then(|i| i.rsplit('/').next())
                        .map(str::to_string)
                })
                .unwrap_or_default(),
        ),
        None => ("(deployment)".into(), "outputs".into()),
    }
}

// ---------------------------------------------------------------------------------------------
// Known fixes

/// A quota increase in the numbers Azure's own error gives.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuotaIncrease {
    /// "Total Regional Cores", "standardNCASv3_T4Family Cores", "Low Priority Cores", ...
    pub quota: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    pub current_limit: i64,
    pub current_usage: i64,
    pub additional_required: i64,
    pub new_limit: i64,
}

impl QuotaIncrease {
    pub fn text(&self) -> String {
        let quota = self
            .quota
            .strip_suffix(" Cores")
            .map(|q| format!("{q} vCPUs"))
            .unwrap_or_else(|| self.quota.clone());
        let place = self
            .location
            .as_deref()
            .map(|l| format!(" in {l}"))
            .unwrap_or_default();
        format!(
            "request a quota increase for {quota}{place} to a new limit of at least {} \
             (Current Limit: {}, Current Usage: {}, Additional Required: {}) in the portal \
             (Quotas > Compute) or with a support request, then run the deployment again",
            self.new_limit, self.current_limit, self.current_usage, self.additional_required
        )
    }
}

/// Numbers after `label:` in a message (`Current Limit: 10,`).
fn number_after(msg: &str, label: &str) -> Option<i64> {
    let i = msg.find(label)? + label.len();
    let rest = msg[i..].trim_start_matches([':', ' ']);
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

fn text_after<'a>(msg: &'a str, label: &str) -> Option<&'a str> {
    let i = msg.find(label)? + label.len();
    let rest = msg[i..].trim_start_matches([':', ' ']);
    let end = rest.find([',', '.']).unwrap_or(rest.len());
    Some(rest[..end].trim()).filter(|s| !s.is_empty())
}

/// The quota numbers of a Compute quota error message, in either of its two forms:
/// "...exceeding approved Total Regional Cores quota. Additional details - Deployment Model:
/// Resource Manager, Location: eastus, Current Limit: 4, Current Usage: 0, Additional Required: 6,
/// (Minimum) New Limit Required: 6..." and the older "...quota limits of Core. Maximum allowed:
/// 10, Current in use: 0, Additional requested: 12".
pub fn parse_quota(msg: &str) -> Option<QuotaIncrease> {
    if let (Some(limit), Some(usage), Some(add)) = (
        number_after(msg, "Current Limit"),
        number_after(msg, "Current Usage"),
        number_after(msg, "Additional Required"),
    ) {
        let quota = msg
            .find("approved ")
            .and_then(|i| {
                let rest = &msg[i + "approved ".len()..];
                rest.find(" quota").map(|j| rest[..j].trim().to_string())
            })
            .unwrap_or_else(|| "Cores".into());
        return Some(QuotaIncrease {
            quota,
            location: text_after(msg, "Location").map(str::to_string),
            current_limit: limit,
            current_usage: usage,
            additional_required: add,
            new_limit: number_after(msg, "New Limit Required").unwrap_or(usage + add),
        });
    }
    if let (Some(limit), Some(usage), Some(add)) = (
        number_after(msg, "Maximum allowed"),
        number_after(msg, "Current in use"),
        number_after(msg, "Additional requested"),
    ) {
        let quota = text_after(msg, "quota limits of")
            .map(|q| format!("{q}s"))
            .unwrap_or_else(|| "Cores".into());
        return Some(QuotaIncrease {
            quota,
            location: None,
            current_limit: limit,
            current_usage: usage,
            additional_required: add,
            new_limit: usage + add,
        });
    }
    None
}

/// What gpuform can say about a failure.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Diagnosis {
    /// Not enough quota: the exact increase.
    Quota(QuotaIncrease),
    /// The size is not offered, or Azure has no capacity for it right now: other regions.
    Capacity {
        code: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        location: Option<String>,
    },
}

/// Capacity error codes (`SkuNotAvailable` and the allocation family), from the facts layer
/// ([`crate::facts::capacity::CODES`], each with its source).
pub fn is_capacity(code: &str) -> bool {
    crate::facts::capacity::is_capacity(code)
}

/// Walk error trees and collect what is known to fix them (deduplicated, in order).
pub fn diagnose<'a>(trees: impl IntoIterator<Item = &'a ErrorDetail>) -> Vec<Diagnosis> {
    let mut out: Vec<Diagnosis> = Vec::new();
    for tree in trees {
        for n in nodes(tree) {
            let code = n.code.as_deref().unwrap_or("");
            let msg = n.message.as_deref().unwrap_or("");
            let found = if let Some(q) = parse_quota(msg) {
                Some(Diagnosis::Quota(q))
            } else if is_capacity(code) {
                Some(Diagnosis::Capacity {
                    code: code.to_string(),
                    location: quoted_location(msg),
                })
            } else {
                None
            };
            if let Some(f) = found
                && !out.contains(&f)
            {
                out.push(f);
            }
        }
    }
    out
}

/// `... in location 'eastus2' ...` → eastus2.
fn quoted_location(msg: &str) -> Option<String> {
    let i = msg.find("location '")? + "location '".len();
    let rest = &msg[i..];
    let end = rest.find('\'')?;
    Some(rest[..end].to_string()).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NEW_FORM: &str = "Operation could not be completed as it results in exceeding approved standardNCASv3_T4Family Cores quota. Additional details - Deployment Model: Resource Manager, Location: eastus2, Current Limit: 24, Current Usage: 16, Additional Required: 16, (Minimum) New Limit Required: 32. Submit a request for Quota increase at https://aka.ms/ProdportalCRP/#blade/x by specifying parameters listed in the 'Details' section for deployment to succeed.";

    #[test]
    fn quota_messages_give_the_exact_increase() {
        let q = parse_quota(NEW_FORM).unwrap();
        assert_eq!(
            q,
            QuotaIncrease {
                quota: "standardNCASv3_T4Family Cores".into(),
                location: Some("eastus2".into()),
                current_limit: 24,
                current_usage: 16,
                additional_required: 16,
                new_limit: 32
            }
        );
        assert!(
            q.text()
                .contains("standardNCASv3_T4Family vCPUs in eastus2 to a new limit of at least 32"),
            "{}",
            q.text()
        );
        let q = parse_quota("Operation results in exceeding quota limits of Core. Maximum allowed: 10, Current in use: 10, Additional requested: 2.").unwrap();
        assert_eq!(
            (q.quota.as_str(), q.current_limit, q.new_limit),
            ("Cores", 10, 12)
        );
        assert_eq!(
            parse_quota(
                "The resource operation completed with terminal provisioning state 'Failed'."
            ),
            None
        );
    }

    #[test]
    fn json_inside_messages_becomes_part_of_the_tree() {
        let inner =
            json!({"error": {"code": "OperationNotAllowed", "message": NEW_FORM}}).to_string();
        let top = ErrorDetail {
            code: Some("DeploymentFailed".into()),
            message: Some("At least one resource deployment operation failed.".into()),
            details: vec![ErrorDetail {
                code: Some("Conflict".into()),
                message: Some(inner),
                ..Default::default()
            }],
            ..Default::default()
        };
        let t = expand(&top);
        let lines = t.tree_lines(0);
        assert_eq!(
            lines[0],
            "DeploymentFailed: At least one resource deployment operation failed."
        );
        assert_eq!(lines[1], "  Conflict");
        assert!(
            lines[2].starts_with("    OperationNotAllowed: Operation could not be completed"),
            "{lines:?}"
        );
        let d = diagnose([&t]);
        assert!(matches!(&d[..], [Diagnosis::Quota(q)] if q.new_limit == 32));
    }

    #[test]
    fn capacity_errors_are_recognised_with_their_region() {
        let e = ErrorDetail {
            code: Some("InvalidTemplateDeployment".into()),
            details: vec![ErrorDetail {
                code: Some("SkuNotAvailable".into()),
                message: Some("The requested VM size for resource 'Following SKUs have failed for Capacity Restrictions: Standard_NC8as_T4_v3' is currently not available in location 'eastus2'. Please try another size or deploy to a different location or different zone.".into()),
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(
            diagnose([&e]),
            vec![Diagnosis::Capacity {
                code: "SkuNotAvailable".into(),
                location: Some("eastus2".into())
            }]
        );
    }

    #[test]
    fn status_messages_in_every_shape() {
        let v = json!({"status": "Failed", "error": {"code": "ResourceDeploymentFailure", "message": "m", "details": [{"code": "VMExtensionProvisioningError", "message": "x"}]}});
        let d = status_error(&v).unwrap();
        assert_eq!(
            d.details[0].code.as_deref(),
            Some("VMExtensionProvisioningError")
        );
        let s = Value::String(json!({"error": {"code": "A", "message": "b"}}).to_string());
        assert_eq!(status_error(&s).unwrap().code.as_deref(), Some("A"));
        assert_eq!(
            status_error(&json!("plain words"))
                .unwrap()
                .message
                .as_deref(),
            Some("plain words")
        );
        assert_eq!(status_error(&json!({"status": "OK"})), None);
    }
}
