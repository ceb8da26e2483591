//! What deploying a Flexible pool's GPU monitoring asks of the deploying identity, and how
//! preflight reads what the identity may do.
//!
//! On a Flexible scale set the template assigns the built-in DeployIfNotExists policy that
//! associates each VM with the GPU data collection rule ([`super::monitoring::DCRA_VM_LINUX`]),
//! grants the assignment's managed identity the definition's roles, and starts a remediation.
//! Each is a write the deploying identity must be allowed:
//!
//! - [`POLICY_ASSIGNMENT_WRITE`], [`ROLE_ASSIGNMENT_WRITE`], [`REMEDIATION_WRITE`]: the
//!   operations as Microsoft's resource-provider operations list names them (Learn, "Azure
//!   permissions for Management and governance", MicrosoftDocs/azure-docs
//!   `articles/role-based-access-control/permissions/management-and-governance.md`
//!   @f295d54dd810847c5ea04ac00087d674b37b425b, generated from the "Management and governance
//!   resource provider operations include file", ms.date 06/01/2023: Microsoft.Authorization and
//!   Microsoft.PolicyInsights sections; dated excerpt `tests/fixtures/sources/authorization.json`). The role grant is needed because outside the portal
//!   "the assignment's managed identity must be manually granted access through the addition of
//!   roles, or else the remediation deployment will fail" ([`REMEDIATION_ROLES`]).
//! - [`PERMISSIONS_API`]: `GET /subscriptions/{s}/resourcegroups/{rg}/providers/
//!   Microsoft.Authorization/permissions` (Permissions_ListForResourceGroup, "Gets all
//!   permissions the caller has for a resource group", pageable with `nextLink`; answer
//!   `{value: [{actions, notActions, dataActions, notDataActions}]}`).
//! - [`WILDCARDS`]: how those lists are read: `*` matches any text, strings compare without
//!   case, an action in `notActions` is taken away from `actions`.
//!
//! The roles a fix names (Resource Policy Contributor, Role Based Access Control Administrator)
//! are checked against `../shared/azure/builtin-roles.json` by `tests/preflight_permissions.rs`:
//! their actions must cover the operation the fix asks them for.

use super::Source;

const READ: &str = "2026-12-03";

/// Create a policy assignment.
pub const POLICY_ASSIGNMENT_WRITE: &str = "Microsoft.Authorization/policyAssignments/write";
/// Create a role assignment (the policy identity's roles).
pub const ROLE_ASSIGNMENT_WRITE: &str = "Microsoft.Authorization/roleAssignments/write";
/// Create a remediation task.
pub const REMEDIATION_WRITE: &str = "Microsoft.PolicyInsights/remediations/write";

pub const OPERATIONS: Source = Source::doc(
    "https://learn.microsoft.com/azure/role-based-access-control/permissions/management-and-governance \
     (MicrosoftDocs/azure-docs articles/role-based-access-control/permissions/management-and-governance.md@f295d54dd810847c5ea04ac00087d674b37b425b)",
    READ,
);

/// Learn, "Remediate non-compliant resources with Azure Policy" (ms.date 04/27/2022).
pub const REMEDIATION_ROLES: Source = Source::doc(
    "https://learn.microsoft.com/azure/governance/policy/how-to/remediate-resources \
     (MicrosoftDocs/azure-docs articles/governance/policy/how-to/remediate-resources.md@02673de42b98327888984b35aad36d170122707a)",
    READ,
);

/// Microsoft.Authorization Permissions_ListForResourceGroup.
pub const PERMISSIONS_API: &str = "2022-04-01";

pub const PERMISSIONS_API_SOURCE: Source = Source::doc(
    "Azure/azure-rest-api-specs specification/authorization/resource-manager/Microsoft.Authorization/stable/2022-04-01/authorization-RoleDefinitionsCalls.json \
     (Permissions_ListForResourceGroup, x-ms-pageable nextLink; example GetPermissions.json, as generated in \
     Azure/azure-rest-api-specs-examples specification/authorization/resource-manager/Microsoft.Authorization/stable/2022-04-01/examples-go/GetPermissions.go@83950f6836ea4873042ebc923d53e3932d2f770c)",
    READ,
);

/// Learn, "Understand Azure role definitions", Wildcard permissions: "Actions, NotActions,
/// DataActions, and NotDataActions support wildcards (*) to define permissions. A wildcard (*)
/// extends a permission to everything that matches the action string you provide."; NotActions
/// are subtracted from Actions; "Permission strings are case-insensitive" (custom roles page).
pub const WILDCARDS: Source = Source::doc(
    "https://learn.microsoft.com/azure/role-based-access-control/role-definitions \
     (MicrosoftDocs/azure-docs articles/role-based-access-control/role-definitions.md@9cd196ddd52d8ece1948da62b4343dc2654cd7f3)",
    READ,
);

/// Does the pattern (an `actions`/`notActions` entry, `*` a wildcard) cover `action`?
pub fn action_matches(pattern: &str, action: &str) -> bool {
    let p = pattern.trim().to_ascii_lowercase();
    let a = action.trim().to_ascii_lowercase();
    let parts: Vec<&str> = p.split('*').collect();
    if parts.len() == 1 {
        return p == a;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !a.starts_with(first) || a.len() < first.len() + last.len() || !a.ends_with(last) {
        return false;
    }
    let mut rest = &a[first.len()..a.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

/// One permission entry: allowed when some `actions` entry covers the action and no
/// `notActions` entry does.
pub fn allows(actions: &[String], not_actions: &[String], action: &str) -> bool {
    actions.iter().any(|p| action_matches(p, action))
        && !not_actions.iter().any(|p| action_matches(p, action))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_match_as_the_role_definitions_page_says() {
        assert!(action_matches("*", POLICY_ASSIGNMENT_WRITE));
        assert!(action_matches(
            "Microsoft.Authorization/policyassignments/*",
            POLICY_ASSIGNMENT_WRITE
        ));
        assert!(action_matches(
            "Microsoft.Authorization/*/Write",
            ROLE_ASSIGNMENT_WRITE
        ));
        assert!(action_matches(
            "microsoft.policyinsights/*",
            REMEDIATION_WRITE
        ));
        assert!(!action_matches("*/read", POLICY_ASSIGNMENT_WRITE));
        assert!(!action_matches(
            "Microsoft.Authorization/roleAssignments/write",
            POLICY_ASSIGNMENT_WRITE
        ));
        assert!(!action_matches(
            "Microsoft.Authorization/*/Delete",
            ROLE_ASSIGNMENT_WRITE
        ));
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        // Contributor: everything but Microsoft.Authorization writes
        assert!(!allows(
            &s(&["*"]),
            &s(&["Microsoft.Authorization/*/Write"]),
            POLICY_ASSIGNMENT_WRITE
        ));
        assert!(allows(
            &s(&["*"]),
            &s(&["Microsoft.Authorization/*/Write"]),
            REMEDIATION_WRITE
        ));
    }
}
