//! Regions other than the spec's that pass preflight, cheapest first, or by Spot placement score
//! first for a pool with a Spot share (the fix for a capacity error).

use serde::Serialize;

use super::context::Azure;
use super::gate::live_report;
use crate::preflight::{Plan, Verdict};
use crate::spec::model::Spec;

/// Regions other than the spec's that pass preflight (for capacity errors).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Alternatives {
    /// Passing regions, cheapest first, with the on-demand price per VM-hour.
    pub passing: Vec<(String, Option<f64>)>,
    /// Regions checked that do not pass, with why.
    pub blocked: Vec<(String, Vec<String>)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// A pool with a Spot share: the passing regions' Spot placement scores, which ordered
    /// `passing` first (High, Medium, Low, unscored; preflight's ranking).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spot_scores: Vec<(String, String)>,
}

pub fn alternatives(azure: &Azure, path: &std::path::Path, spec: &Spec) -> Alternatives {
    let plan = Plan::from_spec(spec, &[]);
    if plan.targets.len() < 2 {
        return Alternatives {
            passing: Vec::new(),
            blocked: Vec::new(),
            note: Some(format!(
                "the spec lists no alternateRegions; add some and compare them with `gpuform preflight {} --region REGION`",
                path.display()
            )),
            spot_scores: Vec::new(),
        };
    }
    crate::ci_eprintln!(
        "deploy: running preflight for the alternate regions ({})",
        plan.targets[1..]
            .iter()
            .map(|t| t.region.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    match live_report(azure, &path.display().to_string(), &plan) {
        Ok(report) => Alternatives {
            passing: report
                .ranking
                .iter()
                .map(|r| (r.region.clone(), r.on_demand_hourly))
                .collect(),
            blocked: report
                .regions
                .iter()
                .skip(1)
                .filter(|r| r.verdict != Verdict::Pass)
                .map(|r| (r.region.clone(), r.reasons.clone()))
                .collect(),
            note: None,
            spot_scores: report
                .ranking
                .iter()
                .filter_map(|r| Some((r.region.clone(), r.spot_placement_score.clone()?)))
                .collect(),
        },
        Err(e) => Alternatives {
            passing: Vec::new(),
            blocked: Vec::new(),
            note: Some(format!("preflight of the alternate regions failed: {}", e)),
            spot_scores: Vec::new(),
        },
    }
}
