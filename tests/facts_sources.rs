//! gpuform's Azure facts held against their sources, never against the code's own constants.
//!
//! - Every role in `gpuform::facts::roles` exists in Microsoft's built-in roles table under the
//!   same name, and grants the actions gpuform relies on it for.
//! - Every role definition GUID in every rendered template (ARM and Bicep, every example and
//!   render fixture) is a built-in role.
//!
//! The table is `../shared/azure/builtin-roles.json` when the team's reference data is beside the
//! checkout (developers, CI), else the dated copy in `tests/fixtures/sources/`.

mod sources;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use regex::Regex;
use serde_json::Value;

/// The source file: the shared reference data if present, else the vendored copy.
fn source(name: &str) -> PathBuf {
    sources::source_path(&format!("azure/{name}"), name)
}

struct BuiltinRole {
    name: String,
    actions: Vec<String>,
}

/// GUID (lowercase) → role, from Microsoft's table (`roles` and `supplementalRoles`).
fn builtin_roles() -> BTreeMap<String, BuiltinRole> {
    let path = source("builtin-roles.json");
    let doc = sources::read_json(&path);
    let mut out = BTreeMap::new();
    for key in ["roles", "supplementalRoles"] {
        for r in doc[key].as_array().into_iter().flatten() {
            let list = |k: &str| -> Vec<String> {
                r[k].as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|a| a.as_str().map(str::to_owned))
                    .collect()
            };
            let mut actions = list("actions");
            actions.extend(list("dataActions"));
            out.insert(
                r["id"].as_str().unwrap().to_ascii_lowercase(),
                BuiltinRole {
                    name: r["name"].as_str().unwrap().to_owned(),
                    actions,
                },
            );
        }
    }
    assert!(
        out.len() > 400,
        "{}: the table looks truncated",
        path.display()
    );
    out
}

/// Does an Azure RBAC action pattern (`*` matches any run of characters, case-insensitive)
/// cover `action`?
fn covers(pattern: &str, action: &str) -> bool {
    let re = format!("(?i)^{}$", regex::escape(pattern).replace(r"\*", ".*"));
    Regex::new(&re).unwrap().is_match(action)
}

#[test]
fn action_wildcards_match_as_azure_documents() {
    assert!(covers(
        "Microsoft.ServiceBus/*/receive/action",
        "Microsoft.ServiceBus/namespaces/receive/action"
    ));
    assert!(covers(
        "Microsoft.Support/*",
        "Microsoft.Support/tickets/write"
    ));
    assert!(!covers(
        "Microsoft.Insights/Metrics/Write",
        "Microsoft.Insights/Telemetry/Write"
    ));
}

#[test]
fn every_role_in_the_facts_layer_is_a_builtin_role_that_grants_what_gpuform_needs() {
    let table = builtin_roles();
    use gpuform::facts::roles::{ALL, DEPLOYER, READERS};
    for role in ALL.iter().chain(DEPLOYER).chain(READERS) {
        let found = table.get(role.id).unwrap_or_else(|| {
            panic!(
                "{} ({}) is not a built-in role in {}",
                role.name,
                role.id,
                source("builtin-roles.json").display()
            )
        });
        assert_eq!(
            found.name, role.name,
            "{}: the GUID belongs to another role",
            role.id
        );
        assert!(
            !role.source.assumption && !role.source.what.is_empty(),
            "{}: no source",
            role.name
        );
        for needed in role.needed {
            assert!(
                found.actions.iter().any(|a| covers(a, needed)),
                "{} does not grant {needed} (it grants {:?})",
                role.name,
                found.actions
            );
        }
    }
}

/// Every `roleDefinitionId` value anywhere in an ARM document (nested deployments too).
fn role_definition_ids(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if k == "roleDefinitionId" {
                    out.push(x.as_str().unwrap_or_default().to_owned());
                }
                role_definition_ids(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| role_definition_ids(x, out)),
        _ => {}
    }
}

fn guid_re() -> Regex {
    Regex::new(r"(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").unwrap()
}

/// Role GUIDs written in a template that `table` does not know: (where, GUID).
fn unknown_roles(
    path: &Path,
    arm: &str,
    bicep: &str,
    table: &BTreeMap<String, BuiltinRole>,
) -> (usize, Vec<String>) {
    let guid = guid_re();
    let mut ids = Vec::new();
    role_definition_ids(&serde_json::from_str(arm).unwrap(), &mut ids);
    let mut seen = 0;
    let mut bad = Vec::new();
    for id in &ids {
        // a role assignment always names its definition with a literal GUID in gpuform
        let g = guid
            .find_iter(id)
            .last()
            .unwrap_or_else(|| panic!("{}: roleDefinitionId without a GUID: {id}", path.display()));
        seen += 1;
        if !table.contains_key(&g.as_str().to_ascii_lowercase()) {
            bad.push(format!("{} (ARM): {}", path.display(), g.as_str()));
        }
    }
    let bicep_role = Regex::new(r"(?i)roleDefinitions'\s*,\s*'([0-9a-f-]{36})'").unwrap();
    for c in bicep_role.captures_iter(bicep) {
        if !table.contains_key(&c[1].to_ascii_lowercase()) {
            bad.push(format!("{} (Bicep): {}", path.display(), &c[1]));
        }
    }
    (seen, bad)
}

#[test]
fn the_scanner_reports_a_guid_that_is_not_a_builtin_role() {
    let table = builtin_roles();
    let arm = r#"{"resources":[{"properties":{"roleDefinitionId":"[subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '3913510d-42f4-4d42-a2a6-6cf4e5e8ba81')]"}}]}"#;
    let bicep = "roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', '3913510d-42f4-4d42-a2a6-6cf4e5e8ba81')";
    let (seen, bad) = unknown_roles(Path::new("x"), arm, bicep, &table);
    assert_eq!(seen, 1);
    assert_eq!(bad.len(), 2, "{bad:?}");
}

#[test]
fn every_rendered_role_definition_is_a_builtin_role() {
    let table = builtin_roles();
    let mut total = 0;
    let mut problems = Vec::new();
    for r in sources::render_all() {
        let (seen, bad) = unknown_roles(&r.spec, &r.arm.to_string(), &r.bicep, &table);
        total += seen;
        problems.extend(bad);
    }
    assert!(
        total >= 20,
        "only {total} role assignments found: the scan is broken"
    );
    assert!(
        problems.is_empty(),
        "role GUIDs that are not built-in roles:\n{}",
        problems.join("\n")
    );
}
