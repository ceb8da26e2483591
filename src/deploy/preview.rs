//! ARM's what-if of a deployment: for `--what-if`, and the changes shown before the question.

use super::context::Target;
use super::fixes::what_if_failure;
use super::stop::{Error, rejected};
use super::whatif::{self, WhatIf};
use super::{Polling, Request};
use crate::spec::model::Spec;

/// ARM's what-if of the deployment (simulated when the group does not exist yet), for
/// `--what-if` and for the prompt.
pub fn what_if(
    target: &Target,
    path: &std::path::Path,
    (request, secrets): (&Request, &[(String, String)]),
    group_exists: bool,
    polling: Polling,
    spec: &Spec,
) -> Result<WhatIf, Error> {
    let azure = target.azure;
    Ok(if group_exists {
        let r = azure.rt.block_on(async {
            let accepted = azure
                .arm
                .post_what_if(target.rg, target.name, request.body(secrets))
                .await?;
            super::what_if(azure.arm, accepted, polling).await
        });
        let r = match r {
            Ok(r) => r,
            Err(e) if rejected(&e) => {
                return Err(Error::Stop(what_if_failure(
                    format!("ARM refused the what-if of deployment {}", target.name),
                    &e.detail(),
                    path,
                    spec,
                )));
            }
            Err(e) => return Err(e.into()),
        };
        if let Some(err) = r
            .error
            .as_ref()
            .filter(|_| r.status.as_deref() != Some("Succeeded"))
        {
            return Err(Error::Stop(what_if_failure(
                format!(
                    "the what-if of deployment {} ended {}",
                    target.name,
                    r.status.as_deref().unwrap_or("without a result")
                ),
                err,
                path,
                spec,
            )));
        }
        WhatIf::new(
            target.name,
            target.rg,
            azure.subscription,
            r.status.as_deref().unwrap_or("Succeeded"),
            r.properties.map(|p| p.changes).unwrap_or_default(),
        )
    } else {
        // the group does not exist yet (--create-resource-group): everything is new
        crate::ci_eprintln!(
            "deploy: the resource group {} does not exist yet; deploy would create it and every resource below",
            target.rg
        );
        let changes =
            whatif::simulated_changes(&request.template_json, azure.subscription, target.rg);
        WhatIf::new(
            target.name,
            target.rg,
            azure.subscription,
            "Simulated",
            changes,
        )
    })
}

/// `--fail-on-delete`: whether a resource, or a property of a modified one, would be deleted
/// (and which, on stderr).
pub fn would_delete(w: &WhatIf) -> bool {
    if w.deletions.is_empty() {
        return false;
    }
    crate::ci_eprintln!(
        "deploy: --fail-on-delete: {} would be deleted:",
        crate::diag::plural(w.deletions.len(), "thing")
    );
    for d in &w.deletions {
        crate::ci_eprintln!("  - {d}");
    }
    true
}
