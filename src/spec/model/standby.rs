//! `spec.autoscale.standby`: a standby pool attached to the scale set (issue 23). The facts it
//! follows (pool size, states, limits, roles) are in [`crate::facts::standby`]; the rules that
//! refuse what Azure does not support are in `check::rules::standby`; the plan is `plan::standby`.

use serde::{Deserialize, Serialize};

use crate::facts::standby::VmState;

/// `autoscale.standby`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Standby {
    /// `maxReadyCapacity`: the pool holds `maxReady` minus the scale set's instance count.
    pub max_ready: u32,
    /// `minReadyCapacity`, the pool's floor. `None` as written means `maxReady` (filled in by
    /// [`apply_defaults`]); Azure's own default, 0, empties the pool at the peak.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_ready: Option<u32>,
    #[serde(default)]
    pub state: StandbyState,
    /// `elasticityProfile.postProvisioningDelay` (ISO 8601, API 2025-10-01 on): how long a
    /// pooled VM waits after provisioning before a scale-out can take it. Absent: not rendered.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::spec::duration::opt_iso_string"
    )]
    pub post_provisioning_delay: Option<String>,
    /// Object id of the "Standby Pool Resource Provider" service principal in the tenant: the
    /// template grants it the provider's roles when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_principal_id: Option<String>,
}

impl Standby {
    /// `minReady` after defaults (`maxReady` when absent).
    pub fn min_ready(&self) -> u32 {
        self.min_ready.unwrap_or(self.max_ready)
    }
}

/// `autoscale.standby.state`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StandbyState {
    #[default]
    Deallocated,
    Hibernated,
    Running,
}

impl StandbyState {
    pub fn as_str(self) -> &'static str {
        match self {
            StandbyState::Deallocated => "deallocated",
            StandbyState::Hibernated => "hibernated",
            StandbyState::Running => "running",
        }
    }

    /// Azure's `virtualMachineState`.
    pub fn vm_state(self) -> VmState {
        match self {
            StandbyState::Deallocated => VmState::Deallocated,
            StandbyState::Hibernated => VmState::Hibernated,
            StandbyState::Running => VmState::Running,
        }
    }
}
