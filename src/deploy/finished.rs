//! The end of a deployment: what `follow` returns and what the error trees and fixes read. It
//! sits below `deploy/mod.rs` so `deploy/errors.rs` reads it without importing the module root.

use crate::azure::deployments::{Deployment, Operation};

/// The end of a deployment.
#[derive(Debug, Clone)]
pub struct Finished {
    pub deployment: Deployment,
    pub operations: Vec<Operation>,
}

impl Finished {
    pub fn state(&self) -> &str {
        self.deployment
            .properties
            .provisioning_state
            .as_deref()
            .unwrap_or("Unknown")
    }
}
