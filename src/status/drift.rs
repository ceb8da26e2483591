//! Drift: ARM what-if of the spec's template against the group (reuses deploy's what-if).

use crate::azure::{Arm, ArmApi, ArmError};

use super::model::Drift;
use super::section::Section;

/// The what-if request for drift: the deployment request as deploy would send it.
pub struct DriftRequest {
    pub request: crate::deploy::Request,
    pub secrets: Vec<(String, String)>,
    /// Why drift cannot be computed (a secure parameter missing from the environment).
    pub unavailable: Option<String>,
}

/// What-if of the spec against the group, summarised (reuses deploy's what-if).
pub async fn drift(arm: &Arm, rg: &str, d: &DriftRequest) -> Result<Section<Drift>, ArmError> {
    if let Some(why) = &d.unavailable {
        return Ok(Section::missing(why.clone()));
    }
    let mut request = d.request.clone();
    if let Some(budget) = request.budget_name()
        && let Ok(Some(start)) = arm.budget_start_date(rg, &budget).await
    {
        request.keep_budget_start(&start);
    }
    let polling = crate::deploy::Polling {
        interval: std::time::Duration::from_secs(2),
        ..Default::default()
    };
    let r = async {
        let accepted = arm
            .post_what_if(rg, &request.name, request.body(&d.secrets))
            .await?;
        crate::deploy::what_if(arm, accepted, polling).await
    }
    .await;
    Section::from(r.map(|res| {
        let raw = res.properties.map(|p| p.changes).unwrap_or_default();
        let w = crate::deploy::whatif::WhatIf::new(
            &request.name,
            rg,
            arm.subscription(),
            res.status.as_deref().unwrap_or("Succeeded"),
            raw.clone(),
        );
        let changes = raw
            .iter()
            .filter(|c| !matches!(c.change_type.as_str(), "NoChange" | "Ignore"))
            .map(|c| {
                let (t, n) = crate::deploy::whatif::split_id(&c.resource_id);
                format!("{} {t} {n}", c.change_type)
            })
            .collect();
        Drift {
            summary: w.summary_line(),
            changes,
        }
    }))
}
