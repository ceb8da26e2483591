//! `autoscale.standby` (issue 23), as later stages read it. The types are in
//! [`super::model`] (`Standby`, `StandbyState`); defaults in [`super::defaults::apply`].

use super::model::WorkloadSpec;
pub use super::model::{Standby, StandbyState};

/// The spec's standby pool, if any.
pub fn of(s: &WorkloadSpec) -> Option<&Standby> {
    s.autoscale.as_ref().and_then(|a| a.standby.as_ref())
}
