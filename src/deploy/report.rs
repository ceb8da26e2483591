//! The result of a deployment (succeeded, failed or rejected by ARM), as JSON, text and Markdown.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::alternates::Alternatives;
use super::errors::{Diagnosis, FailedResource};
use super::progress::{self, fmt_elapsed};
use crate::azure::ErrorDetail;

/// A deployment's result (the JSON document of `deploy --output json`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub schema_version: u32,
    pub deployment: String,
    pub resource_group: String,
    pub subscription: String,
    pub provisioning_state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<String>,
    pub outputs: BTreeMap<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorDetail>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed_resources: Vec<FailedResource>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnoses: Vec<Diagnosis>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alternatives: Option<Alternatives>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<String>,
    pub portal: String,
    /// The GPU pool's workbook in the portal (issue 12: "linked from deploy's output"), from the
    /// template's `gpuWorkbookId` output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_workbook: Option<String>,
    /// Capacity failover: every placement tried, in order (absent when only the spec's own was).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<Attempt>,
    /// What is left to do after a deployment that succeeded (e.g. the GPU telemetry
    /// remediation for a standby pool that did not fill in time): exit code 3.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub follow_up: Vec<String>,
}

/// One placement capacity failover tried (`deploy --output json`'s `attempts`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Attempt {
    pub region: String,
    pub vm_size: String,
    pub zones: Vec<String>,
    /// The resource group, when not the one given with `-g` (`--per-region-resource-group`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_group: Option<String>,
    /// The deployment's name (none for a placement skipped before deploying).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deployment: Option<String>,
    /// `Succeeded`, `Failed`, `Rejected`, or `Skipped`.
    pub provisioning_state: String,
    /// The capacity code it failed with, or why it was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Attempt {
    /// `Standard_NC8as_T4_v3 in eastus2 zone 1`.
    pub fn label(&self) -> String {
        let zones = match self.zones.len() {
            0 => String::new(),
            1 => format!(" zone {}", self.zones[0]),
            _ => format!(" zones {}", self.zones.join(",")),
        };
        let group = self
            .resource_group
            .as_deref()
            .map(|g| format!(" (resource group {g})"))
            .unwrap_or_default();
        format!("{} in {}{zones}{group}", self.vm_size, self.region)
    }

    /// One line of the text output: `2. <label>: Failed (ZonalAllocationFailed)`.
    pub fn line(&self, n: usize) -> String {
        let why = self
            .reason
            .as_deref()
            .map(|r| format!(" ({r})"))
            .unwrap_or_default();
        format!("  {n}. {}: {}{why}", self.label(), self.provisioning_state)
    }
}

/// The failover attempts, one line each (nothing when only the spec's placement was tried).
fn attempts_text(s: &mut String, attempts: &[Attempt]) {
    if attempts.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "capacity failover ({} placements, in order: zone, size, region):",
        attempts.len()
    );
    for (i, a) in attempts.iter().enumerate() {
        let _ = writeln!(s, "{}", a.line(i + 1));
    }
}

/// The portal link of the workbook whose id the deployment output `gpuWorkbookId` holds.
pub fn workbook_link(portal: &str, outputs: &BTreeMap<String, Value>) -> Option<String> {
    let id = outputs.get("gpuWorkbookId")?.as_str()?;
    id.starts_with("/subscriptions/")
        .then(|| format!("{portal}/#@/resource{id}"))
}

fn took(o: &Outcome, elapsed: Duration) -> String {
    o.duration
        .as_deref()
        .and_then(progress::parse_iso_duration)
        .map(fmt_elapsed)
        .unwrap_or_else(|| fmt_elapsed(elapsed))
}

pub fn text(o: &Outcome, elapsed: Duration) -> String {
    let mut s = String::new();
    let verb = match o.provisioning_state.as_str() {
        "Succeeded" => "succeeded".to_string(),
        "Rejected" => "was rejected by ARM before it started".to_string(),
        other => format!("ended {other}"),
    };
    let when = if o.provisioning_state == "Rejected" {
        String::new()
    } else {
        format!(", {}", took(o, elapsed))
    };
    let _ = writeln!(
        s,
        "\ndeployment {} {verb} (resource group {}{when})",
        o.deployment, o.resource_group
    );
    attempts_text(&mut s, &o.attempts);
    if o.provisioning_state == "Succeeded" {
        if !o.outputs.is_empty() {
            let _ = writeln!(s, "outputs:");
            let w = o.outputs.keys().map(String::len).max().unwrap_or(0);
            for (k, v) in &o.outputs {
                let v = match v {
                    Value::String(t) => t.clone(),
                    other => other.to_string(),
                };
                let _ = writeln!(s, "  {k:<w$}  {v}");
            }
        }
        if let Some(url) = &o.gpu_workbook {
            let _ = writeln!(s, "GPU workbook: {url}");
        }
        if !o.follow_up.is_empty() {
            let _ = writeln!(s, "follow-up needed:");
            for f in &o.follow_up {
                let _ = writeln!(s, "  - {f}");
            }
        }
        return s;
    }
    if let Some(e) = &o.error {
        let _ = writeln!(s, "error:");
        for l in e.tree_lines(1) {
            let _ = writeln!(s, "{l}");
        }
    }
    if !o.failed_resources.is_empty() {
        let _ = writeln!(s, "failed resources:");
        let top: Vec<String> = o
            .error
            .as_ref()
            .map(|e| {
                e.tree_lines(0)
                    .into_iter()
                    .map(|l| l.trim().to_string())
                    .collect()
            })
            .unwrap_or_default();
        for r in &o.failed_resources {
            let code = r
                .status_code
                .as_deref()
                .map(|c| format!(" ({c})"))
                .unwrap_or_default();
            let _ = writeln!(s, "  {} {}{code}", r.resource_type, r.name);
            if let Some(e) = &r.error {
                let lines = e.tree_lines(2);
                // the deployment's tree usually repeats the resource's error: print it once
                if !lines.iter().all(|l| top.contains(&l.trim().to_string())) {
                    for l in lines {
                        let _ = writeln!(s, "{l}");
                    }
                }
            }
        }
    }
    if !o.fixes.is_empty() {
        let _ = writeln!(s, "fix:");
        for f in &o.fixes {
            let _ = writeln!(s, "  - {f}");
        }
    }
    let _ = writeln!(
        s,
        "details: az deployment operation group list -g {} -n {} -o table",
        o.resource_group, o.deployment
    );
    let _ = writeln!(s, "portal:  {}", o.portal);
    s
}

pub fn markdown(o: &Outcome) -> String {
    let mut s = String::new();
    let icon = if o.provisioning_state == "Succeeded" {
        "✅"
    } else {
        "❌"
    };
    let _ = writeln!(
        s,
        "## gpuform deploy: `{}` {icon} {}\n",
        o.deployment, o.provisioning_state
    );
    let _ = writeln!(
        s,
        "Resource group `{}` · subscription `{}` · [portal]({}){}\n",
        o.resource_group,
        o.subscription,
        o.portal,
        o.gpu_workbook
            .as_ref()
            .map(|u| format!(" · [GPU workbook]({u})"))
            .unwrap_or_default()
    );
    if !o.outputs.is_empty() {
        let _ = writeln!(s, "| Output | Value |\n|---|---|");
        for (k, v) in &o.outputs {
            let v = match v {
                Value::String(t) => t.clone(),
                other => other.to_string(),
            };
            let _ = writeln!(s, "| {k} | `{}` |", v.replace('|', "\\|"));
        }
    }
    if !o.attempts.is_empty() {
        let _ = writeln!(s, "\n**Capacity failover** (zone, size, region):\n");
        for (i, a) in o.attempts.iter().enumerate() {
            let _ = writeln!(s, "{}", a.line(i + 1).trim_start());
        }
    }
    if let Some(e) = &o.error {
        let _ = writeln!(s, "\n```text");
        for l in e.tree_lines(0) {
            let _ = writeln!(s, "{l}");
        }
        let _ = writeln!(s, "```");
    }
    if !o.follow_up.is_empty() {
        let _ = writeln!(s, "\n**Follow-up needed:**\n");
        for f in &o.follow_up {
            let _ = writeln!(
                s,
                "- {}",
                f.lines().map(str::trim).collect::<Vec<_>>().join(" ")
            );
        }
    }
    if !o.fixes.is_empty() {
        let _ = writeln!(s, "\n**Fix:**\n");
        for f in &o.fixes {
            let _ = writeln!(
                s,
                "- {}",
                f.lines().map(str::trim).collect::<Vec<_>>().join(" ")
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn outcome(state: &str) -> Outcome {
        Outcome {
            schema_version: 1,
            deployment: "pool-0a1b2c3d".into(),
            resource_group: "rg".into(),
            subscription: "s".into(),
            provisioning_state: state.into(),
            duration: Some("PT1M5S".into()),
            outputs: BTreeMap::from([("vmssName".to_string(), json!("pool"))]),
            error: None,
            failed_resources: Vec::new(),
            diagnoses: Vec::new(),
            alternatives: None,
            fixes: Vec::new(),
            portal: "https://portal.azure.com/#@/x".into(),
            gpu_workbook: None,
            attempts: Vec::new(),
            follow_up: Vec::new(),
        }
    }

    #[test]
    fn the_workbook_link_is_made_from_a_resource_id_only() {
        let outputs = |v: Value| BTreeMap::from([("gpuWorkbookId".to_string(), v)]);
        assert_eq!(
            workbook_link(
                "https://portal.azure.com",
                &outputs(json!("/subscriptions/s/x"))
            )
            .as_deref(),
            Some("https://portal.azure.com/#@/resource/subscriptions/s/x")
        );
        assert_eq!(workbook_link("p", &outputs(json!("not an id"))), None);
        assert_eq!(workbook_link("p", &outputs(json!(3))), None);
        assert_eq!(workbook_link("p", &BTreeMap::new()), None);
    }

    #[test]
    fn a_success_lists_its_outputs_and_a_rejection_says_how_to_look() {
        let ok = text(&outcome("Succeeded"), Duration::from_secs(1));
        assert!(
            ok.contains("deployment pool-0a1b2c3d succeeded (resource group rg, "),
            "{ok}"
        );
        assert!(ok.contains("  vmssName  pool\n"), "{ok}");
        assert!(!ok.contains("details:"), "{ok}");
        let mut r = outcome("Rejected");
        r.fixes.push("do this".into());
        let no = text(&r, Duration::from_secs(1));
        assert!(
            no.contains("deployment pool-0a1b2c3d was rejected by ARM before it started (resource group rg)\n"),
            "{no}"
        );
        assert!(no.contains("fix:\n  - do this\n"), "{no}");
        assert!(
            no.contains(
                "details: az deployment operation group list -g rg -n pool-0a1b2c3d -o table\n"
            ),
            "{no}"
        );
        assert!(markdown(&r).contains("## gpuform deploy: `pool-0a1b2c3d` ❌ Rejected"));
    }
}
