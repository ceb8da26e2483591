//! What Azure does with a child resource when its parent is deleted: deletes it with the parent,
//! or refuses to delete the parent while the child exists.
//!
//! One entry per parent/child type pair the rendered templates declare (every example and every
//! variant under `tests/fixtures/render/variants`; `tests/destroy.rs` checks that each pair in
//! the golden templates has an entry here). `gpuform destroy` deletes a [`Rule::BeforeParent`]
//! child itself, before its parent, and leaves a [`Rule::WithParent`] child to go with it.
//!
//! Where no source settles the pair, the conservative reading is [`Rule::BeforeParent`] (deleting
//! a child first is accepted either way) unless ARM has no DELETE for the child type, in which
//! case the child can only go with its parent; such entries are [`Source::assumption`]s.

use super::Source;

/// What happens to the child when the parent is deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Deleting the parent deletes the child.
    WithParent,
    /// Azure refuses to delete the parent while the child exists (409 `CannotDeleteResource`,
    /// "Cannot delete resource while nested resources exist"): delete the child first.
    BeforeParent,
}

/// A parent/child type pair and what deleting the parent does to the child.
#[derive(Debug, Clone, Copy)]
pub struct ChildDeletion {
    /// The parent's type, e.g. `Microsoft.Network/privateDnsZones`.
    pub parent: &'static str,
    /// The child's full type, e.g. `Microsoft.Network/privateDnsZones/virtualNetworkLinks`.
    pub child: &'static str,
    pub rule: Rule,
    pub source: Source,
}

/// Every pair the rendered templates declare.
pub const CHILDREN: &[ChildDeletion] = &[
    ChildDeletion {
        parent: "Microsoft.Network/privateDnsZones",
        child: "Microsoft.Network/privateDnsZones/virtualNetworkLinks",
        rule: Rule::BeforeParent,
        source: Source::doc(
            "https://github.com/Azure/azure-cli/issues/15010 (DELETE privateDnsZones answered \
             409 while links exist); https://github.com/Azure/ResourceModules/issues/823 \
             (\"VirtualNetworkLink removal needs to happen before the PrivateDnsZone removal\"); \
             https://github.com/Azure/deployment-stacks/issues/227 (a stack's zone delete loops \
             on its link)",
            "2026-12-03",
        ),
    },
    ChildDeletion {
        parent: "Microsoft.Network/privateEndpoints",
        child: "Microsoft.Network/privateEndpoints/privateDnsZoneGroups",
        rule: Rule::WithParent,
        source: Source::doc(
            "https://learn.microsoft.com/azure/cloud-adoption-framework/scenarios/cloud-scale-analytics/eslz-network-considerations \
             (Cloud Adoption Framework, \"Implement Azure DNS resolver for private endpoints\", ms.date 2022-03-04: the \
             records the DNS zone groups create \"follow the lifecycle of the private endpoints. It's automatically \
             removed when the private endpoint is deleted\"); the zone group is a child of the endpoint \
             (Microsoft.Network/privateEndpoints/privateDnsZoneGroups)",
            "2026-12-05",
        ),
    },
    ChildDeletion {
        parent: "Microsoft.KeyVault/vaults",
        child: "Microsoft.KeyVault/vaults/keys",
        rule: Rule::WithParent,
        source: Source::doc(
            "Azure/azure-policy built-in-policies/policyDefinitions/Key Vault/\
             SoftDeleteMustBeEnabled_Audit.json (\"Deleting a key vault ... deletes all \
             secrets, keys, and certificates stored in the key vault\"); ARM has no DELETE for \
             vaults/keys (keys are deleted in the data plane)",
            "2026-12-03",
        ),
    },
    ChildDeletion {
        parent: "Microsoft.ServiceBus/namespaces",
        child: "Microsoft.ServiceBus/namespaces/queues",
        rule: Rule::WithParent,
        source: Source::doc(
            "https://learn.microsoft.com/powershell/module/az.servicebus/remove-azservicebusnamespace \
             (\"Deletes an existing namespace. This operation also removes all associated \
             resources under the namespace.\")",
            "2026-12-03",
        ),
    },
    ChildDeletion {
        parent: "Microsoft.Compute/virtualMachines",
        child: "Microsoft.Compute/virtualMachines/extensions",
        rule: Rule::WithParent,
        source: Source::assumption(
            "an extension runs inside its VM and is part of the VM's model \
             (properties.resources); no page read says so of DELETE in as many words",
            "2026-12-03",
        ),
    },
    ChildDeletion {
        parent: "Microsoft.OperationalInsights/workspaces",
        child: "Microsoft.OperationalInsights/workspaces/tables",
        rule: Rule::WithParent,
        source: Source::assumption(
            "a table holds the workspace's data and is deleted (soft-deleted) with it; \
             no page read says so of DELETE in as many words",
            "2026-12-03",
        ),
    },
    ChildDeletion {
        parent: "Microsoft.Storage/storageAccounts",
        child: "Microsoft.Storage/storageAccounts/queueServices",
        rule: Rule::WithParent,
        source: Source::assumption(
            "the queue service is a singleton of the account (no DELETE in the Storage RP's \
             QueueServices REST group); it goes with the account",
            "2026-12-03",
        ),
    },
    ChildDeletion {
        parent: "Microsoft.Storage/storageAccounts/queueServices",
        child: "Microsoft.Storage/storageAccounts/queueServices/queues",
        rule: Rule::WithParent,
        source: Source::assumption(
            "queues are data of the account and go with it; no page read says so of DELETE \
             in as many words",
            "2026-12-03",
        ),
    },
    ChildDeletion {
        parent: "Microsoft.Network/virtualNetworks",
        child: "Microsoft.Network/virtualNetworks/subnets",
        rule: Rule::WithParent,
        source: Source::assumption(
            "subnets are declared inline in the VNet (properties.subnets) and are part of its \
             model; they go with it once nothing uses them (NICs and private endpoints go first: \
             InUseSubnetCannotBeDeleted)",
            "2026-12-03",
        ),
    },
];

/// The rule for a child type (case-insensitive), if the table has it.
pub fn child_rule(child_type: &str) -> Option<&'static ChildDeletion> {
    CHILDREN
        .iter()
        .find(|c| c.child.eq_ignore_ascii_case(child_type))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_names_a_parent_that_is_the_childs_prefix_and_a_dated_source() {
        for c in CHILDREN {
            assert!(
                c.child
                    .to_ascii_lowercase()
                    .starts_with(&format!("{}/", c.parent.to_ascii_lowercase())),
                "{}",
                c.child
            );
            assert_eq!(
                c.child.matches('/').count(),
                c.parent.matches('/').count() + 1
            );
            assert_eq!(c.source.read.len(), 10, "{}", c.child);
            assert!(!c.source.what.is_empty());
        }
        assert_eq!(
            child_rule("microsoft.network/privatednszones/virtualnetworklinks").map(|c| c.rule),
            Some(Rule::BeforeParent)
        );
    }
}
