//! [`Fetch`]: one piece of data a check needs, got, failed, or not asked for.

use crate::azure::ArmError;

/// One piece of data a check needs.
#[derive(Debug, Clone)]
pub enum Fetch<T> {
    Got(T),
    /// The call failed; the check is `unknown` with this error.
    Failed(ArmError),
    /// Not asked for (offline mode): the check is `skipped` with this explanation.
    Skipped(String),
}

impl<T> Fetch<T> {
    pub(super) fn from_result(r: Result<T, ArmError>) -> Self {
        match r {
            Ok(v) => Fetch::Got(v),
            Err(e) => Fetch::Failed(e),
        }
    }

    pub(super) fn error(&self) -> Option<&ArmError> {
        match self {
            Fetch::Failed(e) => Some(e),
            _ => None,
        }
    }
}
