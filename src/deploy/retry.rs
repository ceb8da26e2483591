//! The one failure gpuform deploys again by itself: a resource that uses the customer-managed
//! key failed because Key Vault did not yet honour the role assignment the same deployment just
//! made.
//!
//! Why a retry, and why in `deploy` (issue 9 item 4): the template already orders what it can.
//! The key's role assignment for the disk encryption set depends on the set (its principal only
//! exists once the set does), and the scale set depends on that role assignment (`dependsOn` in
//! src/emit/arm.rs, `dependsOn` of `vmss` in templates; the Bicep/ARM equivalence test keeps both
//! the same). That ordering guarantees the grant *exists* before a disk is encrypted, not that
//! Key Vault's authorization has *seen* it: Azure RBAC documents that a new assignment can take
//! several minutes to take effect, and a deployment can fail with `KeyVaultAccessForbidden`
//! ("Unable to access key vault resource ... Please grant get, wrap and unwrap key permissions to
//! disk encryption set ...") or Key Vault's `ForbiddenByRbac` ("If role assignments ... were
//! changed recently, please observe propagation time") and succeed when run again
//! (Azure/bicep#16601, Azure/bicep#6166). A user-assigned identity granted before the encryption
//! set is created (what the AVM disk-encryption-set module allows) gives the grant more time but
//! cannot remove the replication delay either; a template cannot wait. So `gpuform deploy`
//! recognises this class in the deployment's error tree, says so in one line, waits and deploys
//! once more (Incremental: what succeeded is left as it is). Any other failure is reported as is.

use crate::azure::ErrorDetail;

/// Error codes of the class: Compute's for a disk encryption set that cannot use its key, Key
/// Vault's RBAC denial, and the storage/CMK variant of bicep#16601.
const CODES: [&str; 3] = [
    "KeyVaultAccessForbidden",
    "ForbiddenByRbac",
    "KeyVaultAuthenticationFailure",
];

/// How long to wait before the second attempt: Azure RBAC's documentation says changes can take
/// "up to 10 minutes" in the worst case; the reports above succeed on a manual re-run minutes
/// later. Two minutes is the wait; `--role-retry-wait` changes it (tests, slow tenants).
pub const DEFAULT_WAIT_SECS: f64 = 120.0;

/// The node of `trees` that shows a role assignment not yet honoured by Key Vault, as
/// `code: message` for the line gpuform prints; `None` for every other failure.
pub fn role_propagation<'a>(trees: impl IntoIterator<Item = &'a ErrorDetail>) -> Option<String> {
    // every node, trees in order, depth first
    let mut nodes: Vec<&ErrorDetail> = Vec::new();
    let mut stack: Vec<&ErrorDetail> = trees.into_iter().collect();
    stack.reverse();
    while let Some(d) = stack.pop() {
        nodes.push(d);
        stack.extend(d.details.iter().rev());
    }
    let first_line = |d: &ErrorDetail| {
        d.message
            .as_deref()
            .unwrap_or("")
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string()
    };
    // a node with the code itself says it best
    if let Some(d) = nodes
        .iter()
        .find(|d| d.code.as_deref().is_some_and(|c| CODES.contains(&c)))
    {
        return Some(format!(
            "{}: {}",
            d.code.as_deref().unwrap_or(""),
            first_line(d)
        ));
    }
    // resource providers also nest the inner error as text (`Code="KeyVaultAccessForbidden"
    // Message="..."`), and Key Vault's denial says to "observe propagation time"
    nodes.iter().find_map(|d| {
        let message = d.message.as_deref().unwrap_or("");
        let nested = CODES.iter().find(|c| {
            message.contains(&format!("Code=\"{c}\""))
                || message.contains(&format!("\"code\":\"{c}\""))
        });
        match (nested, message.contains("observe propagation time")) {
            (Some(c), _) => Some(format!("{c}: {}", first_line(d))),
            (None, true) => Some(match d.code.as_deref() {
                Some(code) => format!("{code}: {}", first_line(d)),
                None => first_line(d),
            }),
            (None, false) => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(v: serde_json::Value) -> ErrorDetail {
        crate::deploy::errors::expand(&serde_json::from_value(v).unwrap())
    }

    #[test]
    fn the_class_is_recognised_however_deep_and_however_nested() {
        // the shape MicrosoftDocs/azure-docs#96319 recorded (the inner error as text)
        let t = tree(
            serde_json::json!({"code": "DeploymentFailed", "message": "At least one resource deployment operation failed.",
            "details": [{"code": "CreateVMSSAgentPoolFailed", "message": "Code=\"KeyVaultAccessForbidden\" Message=\"Unable to access key vault resource 'https://kv.vault.azure.net/keys/disk-cmk/5b65' to enable encryption at rest. Please grant get, wrap and unwrap key permissions to disk encryption set 'des-x'.\""}]}),
        );
        assert!(
            role_propagation([&t])
                .unwrap()
                .starts_with("KeyVaultAccessForbidden: Code=")
        );
        // Compute's own code on the scale set's operation
        let t = tree(
            serde_json::json!({"code": "KeyVaultAccessForbidden", "message": "Unable to access key vault resource 'https://kv.vault.azure.net/keys/disk-cmk/1' to enable encryption at rest."}),
        );
        assert!(
            role_propagation([&t])
                .unwrap()
                .starts_with("KeyVaultAccessForbidden: Unable to access")
        );
        // Key Vault's RBAC denial, inside a JSON message
        let inner = serde_json::json!({"error": {"code": "Forbidden", "message": "Caller is not authorized to perform action on resource.\r\nIf role assignments, deny assignments or role definitions were changed recently, please observe propagation time.", "innererror": {"code": "ForbiddenByRbac"}}}).to_string();
        let t = tree(
            serde_json::json!({"code": "DeploymentFailed", "message": "x", "details": [{"code": "Conflict", "message": inner}]}),
        );
        assert!(
            role_propagation([&t])
                .unwrap()
                .starts_with("Forbidden: Caller is not authorized")
        );
    }

    #[test]
    fn other_failures_are_not_this_class() {
        let t = tree(
            serde_json::json!({"code": "DeploymentFailed", "message": "At least one resource deployment operation failed.",
            "details": [{"code": "OperationNotAllowed", "message": "Operation could not be completed as it results in exceeding approved standardNCASv3_T4Family Cores quota."},
                        {"code": "AuthorizationFailed", "message": "The client 'x' does not have authorization to perform action 'Microsoft.Authorization/roleAssignments/write'."}]}),
        );
        assert_eq!(role_propagation([&t]), None);
    }
}
