//! Preflight before a deploy: the spec's region must not be blocked (live checks against the
//! subscription, the same report as `gpuform preflight`).

// `ArmError` carries the whole error tree; it is built once per failed call.
#![allow(clippy::result_large_err)]

use super::context::Azure;
use crate::azure::ArmError;
use crate::catalog::prices::PriceTable;
use crate::preflight::checks::{self, Context};
use crate::preflight::plan::Existing;
use crate::preflight::report::Mode as PfMode;
use crate::preflight::{self as pf, Plan, Report, Verdict};
use crate::spec::model::Spec;

/// The live preflight report of `plan` (what `gpuform preflight` prints for it).
pub fn live_report(azure: &Azure, path: &str, plan: &Plan) -> Result<Report, ArmError> {
    let (regions, sub) = azure.rt.block_on(pf::gather_live(azure.arm, plan))?;
    let ctx = Context {
        spec_path: path.to_string(),
        mode: Some(PfMode::Live),
        subscription: Some(azure.subscription.to_string()),
        credential: Some(azure.credential.clone()),
        cloud: Some(azure.cloud.name().to_string()),
    };
    Ok(checks::build(
        plan,
        &regions,
        &sub,
        ctx,
        PriceTable::embedded(),
    ))
}

/// Preflight of the spec's region; `Some(report)` when it blocks the region (the deploy stops).
pub fn preflight(
    azure: &Azure,
    path: &std::path::Path,
    (rg, group_id): (&str, Option<&str>),
    (spec, template): (&Spec, Option<&serde_json::Value>),
    existing: Option<Existing>,
) -> Result<Option<Report>, ArmError> {
    let mut plan = Plan::from_spec(spec, &[]);
    plan.targets.truncate(1);
    plan.existing = existing;
    plan.landing_zone = crate::preflight::landing_zone::Inputs::from_template(
        spec,
        template.ok_or_else(|| "the rendered template is not JSON".to_string()),
        plan.max,
        false,
    );
    // the group decides the derived vault name and which global names are a redeployment
    plan.set_resource_group(azure.subscription, rg, group_id);
    let report = live_report(azure, &path.display().to_string(), &plan)?;
    let primary = report.primary();
    match primary.verdict {
        Verdict::Pass => {
            crate::ci_eprintln!(
                "deploy: preflight {} ({}): PASS",
                primary.region,
                report.size
            );
            Ok(None)
        }
        Verdict::Unknown | Verdict::NotChecked => {
            crate::ci_eprintln!(
                "deploy: preflight {} could not answer every check; deploying anyway (ARM will refuse what cannot work):",
                primary.region
            );
            for r in &primary.reasons {
                crate::ci_eprintln!("  - {r}");
            }
            Ok(None)
        }
        Verdict::Blocked => Ok(Some(report)),
    }
}
