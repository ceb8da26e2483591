//! [`Role`]: why a region is looked at (the spec's, an alternate, or asked for with `--region`).

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Role {
    /// `spec.region`: the exit code follows it.
    Spec,
    /// From `spec.alternateRegions`.
    Alternate,
    /// Added with `--region`.
    Requested,
}

impl Role {
    pub fn label(self) -> &'static str {
        match self {
            Role::Spec => "spec region",
            Role::Alternate => "alternate",
            Role::Requested => "--region",
        }
    }
}
