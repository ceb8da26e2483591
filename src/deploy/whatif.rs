//! What-if results, grouped the way `az deployment group what-if` shows them (Create, Modify,
//! Delete, Deploy, NoChange, Ignore, Unsupported) with property-level deltas, as text, Markdown
//! (for `$GITHUB_STEP_SUMMARY`) and JSON.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::{Value, json};

use crate::azure::deployments::{PropertyChange, WhatIfChange};

/// Resource change types in display order, with az's symbols.
pub const KINDS: [(&str, &str, &str); 7] = [
    ("Create", "+", "to create"),
    ("Modify", "~", "to modify"),
    ("Delete", "-", "to delete"),
    ("Deploy", "!", "to deploy"),
    ("NoChange", "=", "no change"),
    ("Ignore", "*", "to ignore"),
    ("Unsupported", "x", "unsupported"),
];

fn symbol(kind: &str) -> &'static str {
    KINDS
        .iter()
        .find(|k| k.0.eq_ignore_ascii_case(kind))
        .map(|k| k.1)
        .unwrap_or("?")
}

fn property_symbol(kind: &str) -> &'static str {
    match kind {
        "Create" => "+",
        "Delete" => "-",
        "Modify" | "Array" => "~",
        "NoEffect" => "x",
        _ => "?",
    }
}

/// A what-if answer ready to print.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WhatIf {
    pub schema_version: u32,
    pub deployment: String,
    pub resource_group: String,
    pub subscription: String,
    /// `Succeeded` from ARM (or `Simulated` when the group does not exist yet).
    pub status: String,
    /// Count per change type (every type, zeros included), in display order.
    pub summary: serde_json::Map<String, Value>,
    pub changes: Vec<Change>,
    /// What `--fail-on-delete` counts: deleted resources and deleted properties of modified ones.
    pub deletions: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    pub change_type: String,
    /// `Microsoft.Network/virtualNetworks` (child types included).
    pub resource_type: String,
    /// `vnet-x` (`vnet-x/subnet-y` for children).
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(flatten)]
    pub raw: WhatIfChange,
}

/// Changes of one type.
fn count(changes: &[Change], kind: &str) -> usize {
    changes
        .iter()
        .filter(|c| c.change_type.eq_ignore_ascii_case(kind))
        .count()
}

/// `(type, name)` from a resource id (`.../providers/NS/type/name[/child/name]`).
pub fn split_id(id: &str) -> (String, String) {
    let lower = id.to_ascii_lowercase();
    let Some(i) = lower.rfind("/providers/") else {
        // a resource group or subscription
        return ("".into(), id.rsplit('/').next().unwrap_or(id).to_string());
    };
    let parts: Vec<&str> = id[i + "/providers/".len()..].split('/').collect();
    if parts.len() < 3 {
        return (parts.join("/"), String::new());
    }
    let mut types = vec![parts[0].to_string()];
    let mut names = Vec::new();
    for pair in parts[1..].chunks(2) {
        types.push(pair[0].to_string());
        if let Some(n) = pair.get(1) {
            names.push(n.to_string());
        }
    }
    (types.join("/"), names.join("/"))
}

impl WhatIf {
    pub fn new(
        deployment: &str,
        resource_group: &str,
        subscription: &str,
        status: &str,
        raw: Vec<WhatIfChange>,
    ) -> Self {
        let mut changes: Vec<Change> = raw
            .into_iter()
            .map(|c| {
                let (resource_type, name) = split_id(&c.resource_id);
                let api_version = c
                    .after
                    .as_ref()
                    .or(c.before.as_ref())
                    .and_then(|v| v.get("apiVersion"))
                    .and_then(Value::as_str)
                    .map(str::to_string);
                Change {
                    change_type: c.change_type.clone(),
                    resource_type,
                    name,
                    api_version,
                    raw: c,
                }
            })
            .collect();
        let rank = |k: &str| {
            KINDS
                .iter()
                .position(|x| x.0.eq_ignore_ascii_case(k))
                .unwrap_or(KINDS.len())
        };
        changes.sort_by(|a, b| {
            (
                rank(&a.change_type),
                a.resource_type.to_ascii_lowercase(),
                a.name.to_ascii_lowercase(),
            )
                .cmp(&(
                    rank(&b.change_type),
                    b.resource_type.to_ascii_lowercase(),
                    b.name.to_ascii_lowercase(),
                ))
        });
        let summary = KINDS
            .iter()
            .map(|k| (k.0.to_string(), json!(count(&changes, k.0))))
            .collect();
        // deleted resources first, then deleted properties of modified ones
        let mut deletions: Vec<String> = changes
            .iter()
            .filter(|c| c.change_type.eq_ignore_ascii_case("Delete"))
            .map(|c| format!("{}/{}", c.resource_type, c.name))
            .collect();
        for c in &changes {
            if c.change_type.eq_ignore_ascii_case("Modify") {
                let mut paths = Vec::new();
                deleted_paths(&c.raw.delta, "", &mut paths);
                deletions.extend(
                    paths
                        .into_iter()
                        .map(|p| format!("{}/{}: {p}", c.resource_type, c.name)),
                );
            }
        }
        Self {
            schema_version: 1,
            deployment: deployment.into(),
            resource_group: resource_group.into(),
            subscription: subscription.into(),
            status: status.into(),
            summary,
            changes,
            deletions,
        }
    }

    /// "2 to create, 1 to modify, 3 no change" (only the types present).
    pub fn summary_line(&self) -> String {
        let parts: Vec<String> = KINDS
            .iter()
            .map(|k| (count(&self.changes, k.0), k.2))
            .filter(|(n, _)| *n > 0)
            .map(|(n, label)| format!("{n} {label}"))
            .collect();
        if parts.is_empty() {
            "no resources".into()
        } else {
            parts.join(", ")
        }
    }

    /// What the deploy prompt shows before it asks (as `terraform apply` shows its plan): the
    /// counts per change type and every deletion (resources, then properties of modified ones).
    pub fn prompt_summary(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "deploy: what-if{}: {}",
            if self.status.eq_ignore_ascii_case("Simulated") {
                " (the group does not exist yet: everything is new)"
            } else {
                ""
            },
            self.summary_line()
        );
        if self.deletions.is_empty() {
            let _ = writeln!(out, "  nothing is deleted");
        } else {
            let _ = writeln!(out, "  deleted ({}):", self.deletions.len());
            for d in &self.deletions {
                let _ = writeln!(out, "  - {d}");
            }
        }
        out
    }

    pub fn text(&self, styled: bool) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "what-if: deployment {} into resource group {} (subscription {})",
            self.deployment, self.resource_group, self.subscription
        );
        let _ = writeln!(
            out,
            "symbols: + create  ~ modify  - delete  ! deploy  = no change  * ignore  x unsupported / no effect"
        );
        for (kind, sym, _) in KINDS {
            let group: Vec<&Change> = self
                .changes
                .iter()
                .filter(|c| c.change_type.eq_ignore_ascii_case(kind))
                .collect();
            if group.is_empty() {
                continue;
            }
            let _ = writeln!(out, "\n{} ({})", paint(kind, kind, styled), group.len());
            for c in group {
                let api = c
                    .api_version
                    .as_deref()
                    .map(|a| format!(" [{a}]"))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "  {} {}  {}{api}",
                    paint(sym, kind, styled),
                    c.resource_type,
                    c.name
                );
                if let Some(r) = &c.raw.unsupported_reason {
                    let _ = writeln!(out, "      reason: {r}");
                }
                for line in delta_lines(&c.raw.delta, 3) {
                    let _ = writeln!(out, "{line}");
                }
            }
        }
        let _ = writeln!(out, "\nResource changes: {}.", self.summary_line());
        out
    }

    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "## gpuform what-if: `{}` → resource group `{}`\n",
            self.deployment, self.resource_group
        );
        let _ = writeln!(out, "**Resource changes: {}.**\n", self.summary_line());
        if self.changes.is_empty() {
            return out;
        }
        let _ = writeln!(out, "| Change | Resource type | Name | API version |");
        let _ = writeln!(out, "|---|---|---|---|");
        for c in &self.changes {
            let _ = writeln!(
                out,
                "| {} {} | {} | {} | {} |",
                emoji(&c.change_type),
                c.change_type,
                cell(&c.resource_type),
                cell(&c.name),
                c.api_version.as_deref().unwrap_or("")
            );
        }
        let modified: Vec<&Change> = self
            .changes
            .iter()
            .filter(|c| !c.raw.delta.is_empty())
            .collect();
        if !modified.is_empty() {
            let _ = writeln!(out, "\n<details><summary>Property changes</summary>\n");
            let _ = writeln!(out, "```diff");
            for c in modified {
                let _ = writeln!(
                    out,
                    "{} {}/{}",
                    symbol(&c.change_type),
                    c.resource_type,
                    c.name
                );
                for line in delta_lines(&c.raw.delta, 1) {
                    let _ = writeln!(out, "{}", diff_line(&line));
                }
            }
            let _ = writeln!(out, "```\n\n</details>");
        }
        if !self.deletions.is_empty() {
            let _ = writeln!(out, "\n**Deletions:**\n");
            for d in &self.deletions {
                let _ = writeln!(out, "- `{}`", d.replace('`', "'"));
            }
        }
        out
    }

    pub fn json(&self) -> String {
        format!(
            "{}\n",
            serde_json::to_string_pretty(self).expect("what-if serialises")
        )
    }
}

/// The changes of a deployment into a resource group that does not exist yet: every resource
/// of the template is created (names ARM computes are shown as far as the template tells).
pub fn simulated_changes(template: &Value, subscription: &str, rg: &str) -> Vec<WhatIfChange> {
    let vars = template.get("variables").cloned().unwrap_or(Value::Null);
    let resources = template
        .get("resources")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    resources
        .iter()
        .map(|r| {
            let ty = r.get("type").and_then(Value::as_str).unwrap_or("?");
            let name = display_name(r.get("name").and_then(Value::as_str).unwrap_or("?"), &vars);
            // providers/NS/type1/name1/type2/name2 for child resources
            let segs: Vec<&str> = ty.split('/').collect();
            let names: Vec<&str> = name.split('/').collect();
            let path = if segs.len() == names.len() + 1 {
                let mut p = segs[0].to_string();
                for (t, n) in segs[1..].iter().zip(&names) {
                    p.push_str(&format!("/{t}/{n}"));
                }
                p
            } else {
                format!("{ty}/{name}")
            };
            WhatIfChange {
                resource_id: format!(
                    "/subscriptions/{subscription}/resourceGroups/{rg}/providers/{path}"
                ),
                change_type: "Create".into(),
                after: r.get("apiVersion").map(|a| json!({ "apiVersion": a })),
                ..Default::default()
            }
        })
        .collect()
}

/// A template name for people: literals as they are, `[variables('x')]` and
/// `[format('{0}/{1}', 'a', variables('b'))]` resolved, anything else `(computed)`.
fn display_name(name: &str, vars: &Value) -> String {
    let Some(expr) = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')) else {
        return name.to_string();
    };
    if expr.starts_with('[') {
        return name[1..].to_string(); // `[[` escapes a literal
    }
    let arg = |a: &str| -> Option<String> {
        let a = a.trim();
        if let Some(l) = a.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')) {
            return Some(l.replace("''", "'"));
        }
        let v = a.strip_prefix("variables('")?.strip_suffix("')")?;
        vars.get(v)
            .and_then(Value::as_str)
            .filter(|s| !s.starts_with('['))
            .map(str::to_string)
    };
    if let Some(v) = arg(expr) {
        return v;
    }
    if let Some(rest) = expr
        .strip_prefix("format('{0}/{1}',")
        .and_then(|r| r.strip_suffix(')'))
        && let Some((a, b)) = rest.split_once(',')
        && let (Some(a), Some(b)) = (arg(a), arg(b))
    {
        return format!("{a}/{b}");
    }
    "(computed)".into()
}

/// GitHub colours a ```diff line by its first character: move a `+`/`-` symbol to column 0.
fn diff_line(line: &str) -> String {
    let t = line.trim_start();
    let pad = line.len() - t.len();
    match t.chars().next() {
        Some(c @ ('+' | '-')) => format!("{c}{}{}", " ".repeat(pad), &t[1..]),
        _ => format!(" {line}"),
    }
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

fn emoji(kind: &str) -> &'static str {
    match kind {
        "Create" => "➕",
        "Modify" => "✏️",
        "Delete" => "🗑️",
        "Deploy" => "🚀",
        "NoChange" => "⏸️",
        "Ignore" => "➖",
        _ => "❔",
    }
}

fn paint(text: &str, kind: &str, styled: bool) -> String {
    if !styled {
        return text.to_string();
    }
    let color = match kind {
        "Create" => anstyle::AnsiColor::Green,
        "Modify" => anstyle::AnsiColor::Magenta,
        "Delete" => anstyle::AnsiColor::Red,
        "Deploy" => anstyle::AnsiColor::Blue,
        _ => anstyle::AnsiColor::BrightBlack,
    };
    let st = anstyle::Style::new().fg_color(Some(color.into()));
    format!("{st}{text}{st:#}")
}

/// A value the way az prints it: strings quoted, objects and arrays as compact JSON.
fn show(v: &Option<Value>) -> String {
    match v {
        None | Some(Value::Null) => "null".into(),
        Some(v) => v.to_string(),
    }
}

/// az-style delta lines: `~ path: before => after`, `+ path: value`, `- path: value`, arrays and
/// nested objects with their children indented below.
pub fn delta_lines(delta: &[PropertyChange], indent: usize) -> Vec<String> {
    let mut out = Vec::new();
    for d in delta {
        let pad = "  ".repeat(indent);
        let sym = property_symbol(&d.property_change_type);
        let path = if d.path.is_empty() { "(root)" } else { &d.path };
        match d.property_change_type.as_str() {
            "Create" => out.push(format!("{pad}{sym} {path}: {}", show(&d.after))),
            "Delete" => out.push(format!("{pad}{sym} {path}: {}", show(&d.before))),
            "NoEffect" => out.push(format!(
                "{pad}{sym} {path}: {}",
                show(&d.after.clone().or(d.before.clone()))
            )),
            "Array" => {
                out.push(format!("{pad}{sym} {path}: ["));
                out.extend(delta_lines(&d.children, indent + 1));
                out.push(format!("{pad}  ]"));
            }
            _ if !d.children.is_empty() => {
                out.push(format!("{pad}{sym} {path}:"));
                out.extend(delta_lines(&d.children, indent + 1));
            }
            _ => out.push(format!(
                "{pad}{sym} {path}: {} => {}",
                show(&d.before),
                show(&d.after)
            )),
        }
    }
    out
}

/// Paths of deleted properties (array elements included), `a.b[2].c` style.
fn deleted_paths(delta: &[PropertyChange], prefix: &str, out: &mut Vec<String>) {
    for d in delta {
        let path = if prefix.is_empty() {
            d.path.clone()
        } else if d.path.chars().all(|c| c.is_ascii_digit()) {
            format!("{prefix}[{}]", d.path)
        } else {
            format!("{prefix}.{}", d.path)
        };
        if d.property_change_type == "Delete" {
            out.push(path);
        } else {
            deleted_paths(&d.children, &path, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pc(
        path: &str,
        kind: &str,
        before: Option<Value>,
        after: Option<Value>,
        children: Vec<PropertyChange>,
    ) -> PropertyChange {
        PropertyChange {
            path: path.into(),
            property_change_type: kind.into(),
            before,
            after,
            children,
        }
    }

    #[test]
    fn the_prompt_summary_counts_each_kind_and_lists_every_deletion() {
        let raw: Vec<WhatIfChange> = serde_json::from_value(json!([
            {"resourceId": "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/old", "changeType": "Delete"},
            {"resourceId": "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/vmss", "changeType": "Create"},
            {"resourceId": "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet", "changeType": "Modify",
             "delta": [{"path": "tags.team", "propertyChangeType": "Delete", "before": "a"}]},
            {"resourceId": "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/networkSecurityGroups/nsg", "changeType": "NoChange"}
        ]))
        .unwrap();
        let w = WhatIf::new("d", "rg", "s", "Succeeded", raw);
        assert_eq!(
            w.prompt_summary(),
            "deploy: what-if: 1 to create, 1 to modify, 1 to delete, 1 no change\n  deleted (2):\n  - Microsoft.Storage/storageAccounts/old\n  - Microsoft.Network/virtualNetworks/vnet: tags.team\n"
        );
        let none = WhatIf::new("d", "rg", "s", "Simulated", Vec::new());
        assert_eq!(
            none.prompt_summary(),
            "deploy: what-if (the group does not exist yet: everything is new): no resources\n  nothing is deleted\n"
        );
    }

    #[test]
    fn simulated_changes_name_what_the_template_names() {
        let t = json!({
            "variables": {"vaultName": "kv-a", "computed": "[uniqueString(resourceGroup().id)]"},
            "resources": [
                {"type": "Microsoft.KeyVault/vaults", "apiVersion": "2025-05-01", "name": "[variables('vaultName')]"},
                {"type": "Microsoft.KeyVault/vaults/keys", "apiVersion": "2025-05-01", "name": "[format('{0}/{1}', variables('vaultName'), 'disk-cmk')]"},
                {"type": "Microsoft.Authorization/roleAssignments", "apiVersion": "2022-04-01", "name": "[guid(resourceGroup().id)]"},
                {"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2025-05-01", "name": "vnet-a"}
            ]
        });
        let w = WhatIf::new(
            "d",
            "rg",
            "s",
            "Simulated",
            simulated_changes(&t, "s", "rg"),
        );
        let names: Vec<(String, String)> = w
            .changes
            .iter()
            .map(|c| (c.resource_type.clone(), c.name.clone()))
            .collect();
        assert_eq!(
            names,
            [
                (
                    "Microsoft.Authorization/roleAssignments".into(),
                    "(computed)".into()
                ),
                ("Microsoft.KeyVault/vaults".into(), "kv-a".into()),
                (
                    "Microsoft.KeyVault/vaults/keys".into(),
                    "kv-a/disk-cmk".into()
                ),
                ("Microsoft.Network/virtualNetworks".into(), "vnet-a".into()),
            ]
        );
        assert_eq!(w.summary_line(), "4 to create");
    }

    #[test]
    fn resource_ids_split_into_type_and_name() {
        assert_eq!(
            split_id(
                "/subscriptions/s/resourceGroups/g/providers/Microsoft.Network/virtualNetworks/vnet/subnets/workload"
            ),
            (
                "Microsoft.Network/virtualNetworks/subnets".into(),
                "vnet/workload".into()
            )
        );
        assert_eq!(
            split_id("/subscriptions/s/resourceGroups/g/providers/Microsoft.KeyVault/vaults/kv"),
            ("Microsoft.KeyVault/vaults".into(), "kv".into())
        );
    }

    #[test]
    fn deltas_read_like_az() {
        let delta = vec![
            pc(
                "tags.env",
                "Modify",
                Some(json!("dev")),
                Some(json!("prod")),
                vec![],
            ),
            pc(
                "properties.addressSpace.addressPrefixes",
                "Array",
                None,
                None,
                vec![
                    pc("0", "Delete", Some(json!("10.0.0.0/16")), None, vec![]),
                    pc("0", "Create", None, Some(json!("10.1.0.0/16")), vec![]),
                ],
            ),
            pc("tags.owner", "Create", None, Some(json!("team-a")), vec![]),
        ];
        assert_eq!(
            delta_lines(&delta, 2),
            [
                "    ~ tags.env: \"dev\" => \"prod\"",
                "    ~ properties.addressSpace.addressPrefixes: [",
                "      - 0: \"10.0.0.0/16\"",
                "      + 0: \"10.1.0.0/16\"",
                "      ]",
                "    + tags.owner: \"team-a\"",
            ]
        );
        let mut paths = Vec::new();
        deleted_paths(&delta, "", &mut paths);
        assert_eq!(paths, ["properties.addressSpace.addressPrefixes[0]"]);
    }
}
