//! `autoscale.standby` (issue 23), as later stages read it. The types are in
//! [`super::model`] (`Standby`, `StandbyState`); defaults in [`super::defaults::apply`].

use serde::Serialize;

use super::model::WorkloadSpec;
pub use super::model::{Standby, StandbyState};

/// The spec's standby pool, if any.
pub fn of(s: &WorkloadSpec) -> Option<&Standby> {
    s.autoscale.as_ref().and_then(|a| a.standby.as_ref())
}

/// A role the provider needs where the template's grants on the pool's resource group do not
/// reach: an existing subnet (`network.existingSubnet`), the Compute Gallery of `image.id`. The
/// template cannot grant them (another group or subscription); `gpuform validate` warns with the
/// `az role assignment create` lines and `gpuform preflight` reads them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScopeGrant {
    /// What the scope is (`the existing subnet`, `the Compute Gallery of image.id`).
    pub what: &'static str,
    /// The scope's resource id.
    pub scope: String,
    pub role_name: &'static str,
    pub role_id: &'static str,
    pub why: &'static str,
}

impl ScopeGrant {
    /// The `az` line that grants it to `principal` (an object id, or a shell expression).
    pub fn az_line(&self, principal: &str) -> String {
        az_grant(principal, self.role_name, &self.scope)
    }
}

/// `az role assignment create` of `role` to the provider's `principal` at `scope`.
pub fn az_grant(principal: &str, role: &str, scope: &str) -> String {
    format!(
        "az role assignment create --assignee-object-id {principal} --assignee-principal-type ServicePrincipal --role \"{role}\" --scope {scope}"
    )
}

/// The provider's principal in an `az` line: the spec's id, else the shell lookup by the
/// display name the permissions page gives.
pub fn principal_arg(principal: Option<&str>) -> String {
    match principal {
        Some(p) => p.to_string(),
        None => format!(
            "$(az ad sp list --display-name \"{}\" --query [0].id -o tsv)",
            crate::facts::standby::PROVIDER_PRINCIPAL_NAME
        ),
    }
}

/// The grants beyond the pool's group the spec needs (see [`ScopeGrant`]).
pub fn scope_grants(s: &WorkloadSpec) -> Vec<ScopeGrant> {
    let mut out = Vec::new();
    if let Some(subnet) = &s.network.existing_subnet {
        let r = crate::facts::standby::SUBNET_ROLE;
        out.push(ScopeGrant {
            what: "the existing subnet (network.existingSubnet)",
            scope: subnet.trim_end_matches('/').to_string(),
            role_name: r.name,
            role_id: r.id,
            why: r.why,
        });
    }
    if let crate::spec::model::Image::Id(img) = &s.compute.image
        && let Some(gallery) = gallery_of(&img.id)
    {
        for r in crate::facts::standby::GALLERY_ROLES {
            out.push(ScopeGrant {
                what: "the Compute Gallery of image.id",
                scope: gallery.clone(),
                role_name: r.name,
                role_id: r.id,
                why: r.why,
            });
        }
    }
    out
}

/// The gallery of a Compute Gallery image id (`.../providers/Microsoft.Compute/galleries/G/
/// images/I[/versions/V]` → `.../galleries/G`); `None` for any other id.
pub fn gallery_of(image_id: &str) -> Option<String> {
    const MARK: &str = "/providers/microsoft.compute/galleries/";
    let lower = image_id.to_ascii_lowercase();
    if !lower.starts_with("/subscriptions/") {
        return None;
    }
    let at = lower.find(MARK)?;
    let name = image_id[at + MARK.len()..]
        .split('/')
        .next()
        .filter(|n| !n.is_empty())?;
    Some(format!(
        "{}/providers/Microsoft.Compute/galleries/{name}",
        &image_id[..at]
    ))
}
