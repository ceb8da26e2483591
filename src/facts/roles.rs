//! Azure built-in roles gpuform assigns, with the actions it relies on.
//!
//! Source for every GUID: the summary table of Microsoft's built-in roles page,
//! MicrosoftDocs/azure-docs `articles/role-based-access-control/built-in-roles.md` at commit
//! 00a583295ba737a5caf885472cb3bca3624e9cde (page dated 2026-04-09), cross-checked against the
//! rendered Learn page dated 2026-09-10 (as carried in `../shared/azure/builtin-roles.json`,
//! read 2026-12-03). The actions come from the per-category pages named in each entry.
//! `tests/facts_sources.rs` compares every entry here, and every role GUID in every rendered
//! template, with that table.

use super::Source;

/// A built-in role: its display name, definition GUID, the actions gpuform needs from it, and
/// where that was read.
#[derive(Debug, Clone, Copy)]
pub struct Role {
    pub name: &'static str,
    /// The role definition GUID (lowercase).
    pub id: &'static str,
    /// The (data) actions gpuform relies on this role to grant.
    pub needed: &'static [&'static str],
    pub source: Source,
}

const TABLE: &str = "https://learn.microsoft.com/azure/role-based-access-control/built-in-roles \
     (MicrosoftDocs/azure-docs articles/role-based-access-control/built-in-roles.md@00a583295ba737a5caf885472cb3bca3624e9cde, page 2026-04-09)";

/// The DCR ingestion (Logs Ingestion API and the agent's upload on behalf of the identity) needs
/// `Microsoft.Insights/Telemetry/Write` on the data collection rule (Learn, "Logs Ingestion API
/// in Azure Monitor": assign Monitoring Metrics Publisher on the DCR). Permissions:
/// built-in-roles/monitor.md@03e5750af10b23b5ba437d5b333ec5e9437844f9 (2026-02-23).
pub const MONITORING_METRICS_PUBLISHER: Role = Role {
    name: "Monitoring Metrics Publisher",
    id: "3913510d-42f4-4e42-8a64-420c390055eb",
    needed: &["Microsoft.Insights/Telemetry/Write"],
    source: Source::doc(TABLE, "2026-12-03"),
};

/// Reads the spec's secrets from the vault. Permissions:
/// built-in-roles/security.md@03e5750af10b23b5ba437d5b333ec5e9437844f9 (2026-02-23).
pub const KEY_VAULT_SECRETS_USER: Role = Role {
    name: "Key Vault Secrets User",
    id: "4633458b-17de-408a-b874-0445c86b69e6",
    needed: &["Microsoft.KeyVault/vaults/secrets/getSecret/action"],
    source: Source::doc(TABLE, "2026-12-03"),
};

/// The disk encryption set's identity wraps and unwraps the customer-managed key. Permissions:
/// built-in-roles/security.md@03e5750af10b23b5ba437d5b333ec5e9437844f9 (2026-02-23).
pub const KEY_VAULT_CRYPTO_SERVICE_ENCRYPTION_USER: Role = Role {
    name: "Key Vault Crypto Service Encryption User",
    id: "e147488a-f6f5-4113-8e2d-b22465e65bf6",
    needed: &[
        "Microsoft.KeyVault/vaults/keys/read",
        "Microsoft.KeyVault/vaults/keys/wrap/action",
        "Microsoft.KeyVault/vaults/keys/unwrap/action",
    ],
    source: Source::doc(TABLE, "2026-12-03"),
};

/// The workers receive (and complete) queue messages. Permissions:
/// built-in-roles/integration.md@03adcc30b28ecad9f81aba5638a15fb1930f5ec0 (2024-04-13).
pub const SERVICE_BUS_DATA_RECEIVER: Role = Role {
    name: "Azure Service Bus Data Receiver",
    id: "4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0",
    needed: &["Microsoft.ServiceBus/*/receive/action"],
    source: Source::doc(TABLE, "2026-12-03"),
};

/// The workers read and process (delete) storage queue messages. Permissions:
/// built-in-roles/storage.md@1b4e136a1da731e1ed16444eb6ce5701bcd8c0f4 (2026-07-01).
pub const STORAGE_QUEUE_DATA_MESSAGE_PROCESSOR: Role = Role {
    name: "Storage Queue Data Message Processor",
    id: "8a0f0c08-91a1-4084-bc3d-661d67233fed",
    needed: &[
        "Microsoft.Storage/storageAccounts/queueServices/queues/messages/read",
        "Microsoft.Storage/storageAccounts/queueServices/queues/messages/process/action",
    ],
    source: Source::doc(TABLE, "2026-12-03"),
};

/// The dev box's Logic App starts the VM in the morning (start, read, instance view; no
/// deallocate, write or delete). Permissions:
/// built-in-roles/compute.md@064f7ba29b923d4ec86a135614d256690fe0ac73 (2025-09-03).
pub const DESKTOP_VIRTUALIZATION_POWER_ON_CONTRIBUTOR: Role = Role {
    name: "Desktop Virtualization Power On Contributor",
    id: "489581de-a3bd-480d-9518-53dea7416b33",
    needed: &["Microsoft.Compute/virtualMachines/start/action"],
    source: Source::doc(TABLE, "2026-12-03"),
};

/// The identity of the built-in DCR-association policy (Flexible pools) deploys the association on
/// each VM: its definition names this role and Log Analytics Contributor
/// (`super::monitoring::DCRA_VM_LINUX`). Permissions:
/// built-in-roles/monitor.md@03e5750af10b23b5ba437d5b333ec5e9437844f9 (2026-02-23).
pub const MONITORING_CONTRIBUTOR: Role = Role {
    name: "Monitoring Contributor",
    id: "749f88d5-cbae-40b8-bcfc-e573ddc772fa",
    needed: &[
        "Microsoft.Insights/dataCollectionRuleAssociations/write",
        "Microsoft.Resources/deployments/write",
    ],
    source: Source::doc(TABLE, "2026-12-03"),
};

/// The second role the DCR-association policy's definition names (its deployment reads the
/// rule's workspace). Permissions:
/// built-in-roles/monitor.md@03e5750af10b23b5ba437d5b333ec5e9437844f9 (2026-02-23).
pub const LOG_ANALYTICS_CONTRIBUTOR: Role = Role {
    name: "Log Analytics Contributor",
    id: "92aaf0da-9dab-42b6-94a3-d43ce8d16293",
    needed: &[
        "Microsoft.OperationalInsights/workspaces/read",
        "Microsoft.Resources/deployments/write",
    ],
    source: Source::doc(TABLE, "2026-12-03"),
};

/// Every role gpuform can render, for the tests that hold them against the source.
pub const ALL: &[Role] = &[
    MONITORING_METRICS_PUBLISHER,
    KEY_VAULT_SECRETS_USER,
    KEY_VAULT_CRYPTO_SERVICE_ENCRYPTION_USER,
    SERVICE_BUS_DATA_RECEIVER,
    STORAGE_QUEUE_DATA_MESSAGE_PROCESSOR,
    DESKTOP_VIRTUALIZATION_POWER_ON_CONTRIBUTOR,
    MONITORING_CONTRIBUTOR,
    LOG_ANALYTICS_CONTRIBUTOR,
];

/// Roles a preflight fix asks for when the deploying identity may not create what a Flexible
/// pool's GPU monitoring needs (`super::authorization`): the policy assignment and its
/// remediation. Permissions: built-in-roles/management-and-governance.md (as carried by
/// `../shared/azure/builtin-roles.json`: `Microsoft.Authorization/policyassignments/*`,
/// `Microsoft.PolicyInsights/*`).
pub const RESOURCE_POLICY_CONTRIBUTOR: Role = Role {
    name: "Resource Policy Contributor",
    id: "36243c78-bf99-498c-9df9-86d9f8d28608",
    needed: &[
        super::authorization::POLICY_ASSIGNMENT_WRITE,
        super::authorization::REMEDIATION_WRITE,
    ],
    source: Source::doc(TABLE, "2026-12-03"),
};

/// ... and the policy identity's role assignments. Permissions: built-in-roles/privileged.md
/// (`Microsoft.Authorization/roleAssignments/write`, no other write).
pub const ROLE_BASED_ACCESS_CONTROL_ADMINISTRATOR: Role = Role {
    name: "Role Based Access Control Administrator",
    id: "f58310d9-a9f6-439a-9e8d-f62e7b41a168",
    needed: &[super::authorization::ROLE_ASSIGNMENT_WRITE],
    source: Source::doc(TABLE, "2026-12-03"),
};

/// The roles preflight names for the deploying identity (never rendered).
pub const DEPLOYER: &[Role] = &[
    RESOURCE_POLICY_CONTRIBUTOR,
    ROLE_BASED_ACCESS_CONTROL_ADMINISTRATOR,
];

/// Reads a queue's platform metrics (`simulate -g`'s arrivals: Metrics - List). Grants `*/read`
/// (built-in-roles/monitor.md, as carried by `../shared/azure/builtin-roles.json`).
pub const MONITORING_READER: Role = Role {
    name: "Monitoring Reader",
    id: "43d0d8ad-25c7-4714-9337-8ba259a9fe05",
    needed: &["Microsoft.Insights/metrics/read"],
    source: Source::doc(TABLE, "2026-12-04"),
};

/// Reads the workspace and queries it (`status`'s telemetry line, `simulate -g`'s GPU
/// telemetry: the workspace GET and the Logs Query API). Grants `*/read`
/// (built-in-roles/monitor.md, as carried by `../shared/azure/builtin-roles.json`).
pub const LOG_ANALYTICS_READER: Role = Role {
    name: "Log Analytics Reader",
    id: "73c42c96-874c-492b-b04d-ab87d138a893",
    needed: &[
        "Microsoft.OperationalInsights/workspaces/read",
        "Microsoft.OperationalInsights/workspaces/query/read",
    ],
    source: Source::doc(TABLE, "2026-12-04"),
};

/// The read-only roles gpuform's messages name for reading from Azure (never rendered).
pub const READERS: &[Role] = &[MONITORING_READER, LOG_ANALYTICS_READER];
