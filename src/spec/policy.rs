//! Organisation policy applied on top of the built-in rules: required tags and rule severity
//! overrides. From `--policy FILE` (YAML) and `--required-tags a,b,c`.
//!
//! ```yaml
//! requiredTags: [project, team, env, costCenter, owner]
//! rules:
//!   vram-underused: error     # error | warning | info | off
//!   fp32-inference: off
//! ```

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::diag::{Severity, rules};

pub const DEFAULT_REQUIRED_TAGS: [&str; 4] = ["project", "team", "env", "costCenter"];

#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    pub required_tags: Vec<String>,
    /// `None`: the rule is off.
    pub overrides: BTreeMap<String, Option<Severity>>,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            required_tags: DEFAULT_REQUIRED_TAGS
                .iter()
                .map(|s| s.to_string())
                .collect(),
            overrides: BTreeMap::new(),
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PolicyFile {
    #[serde(default)]
    required_tags: Option<Vec<String>>,
    #[serde(default)]
    rules: BTreeMap<String, String>,
}

impl Policy {
    /// Parse a policy file's text. Errors are one line each, for the usage-error path.
    pub fn from_yaml(text: &str) -> Result<Policy, String> {
        let parsed = crate::spec::yaml::parse(text).map_err(|d| {
            let at = d
                .location
                .map(|l| format!(" at line {}:{}", l.line, l.column))
                .unwrap_or_default();
            format!("{}{at}", d.message)
        })?;
        let file: PolicyFile = serde_json::from_value(parsed.value).map_err(|e| e.to_string())?;
        let mut p = Policy::default();
        if let Some(tags) = file.required_tags {
            p.required_tags = tags;
        }
        for (id, level) in file.rules {
            let Some(rule) = rules::find(&id) else {
                let hint = crate::spec::schema::suggest(&id, rules::RULES.iter().map(|r| r.id))
                    .map(|s| format!(" (did you mean `{s}`?)"))
                    .unwrap_or_default();
                return Err(format!(
                    "unknown rule `{id}`{hint}; `gpuform rules` lists them"
                ));
            };
            if !rule.overridable() {
                return Err(format!(
                    "rule `{id}` cannot be changed by a policy: without it passing there is no spec to check or deploy"
                ));
            }
            let sev = match level.as_str() {
                "error" => Some(Severity::Error),
                "warning" => Some(Severity::Warning),
                "info" => Some(Severity::Info),
                "off" => None,
                other => {
                    return Err(format!(
                        "rule `{id}`: `{other}` is not one of error, warning, info, off"
                    ));
                }
            };
            p.overrides.insert(id, sev);
        }
        Ok(p)
    }

    /// The severity a rule reports at under this policy (`None`: suppressed).
    pub fn severity(&self, rule: &str, default: Severity) -> Option<Severity> {
        match self.overrides.get(rule) {
            Some(s) => *s,
            None => Some(default),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_file_overrides_rules_and_tags() {
        let p = Policy::from_yaml(
            "requiredTags: [owner]\nrules:\n  vram-underused: error\n  fp32-inference: off\n",
        )
        .unwrap();
        assert_eq!(p.required_tags, vec!["owner"]);
        assert_eq!(
            p.severity("vram-underused", Severity::Warning),
            Some(Severity::Error)
        );
        assert_eq!(p.severity("fp32-inference", Severity::Info), None);
        assert!(
            Policy::from_yaml("rules:\n  vram-underusd: off\n")
                .unwrap_err()
                .contains("vram-underused")
        );
        assert!(Policy::from_yaml("rules:\n  vram-underused: loud\n").is_err());
        // errors that leave no spec (or no size) behind cannot be switched off or downgraded
        for id in [
            "unknown-field",
            "invalid-value",
            "yaml-syntax",
            "unknown-vm-size",
            "no-size-fits",
            "subnet-overlap",
            "private-endpoint-subnet-missing",
        ] {
            let e = Policy::from_yaml(&format!("rules:\n  {id}: warning\n")).unwrap_err();
            assert!(e.contains("cannot be changed"), "{id}: {e}");
        }
    }
}
