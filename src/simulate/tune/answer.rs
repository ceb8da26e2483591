//! A tune that always answers (issue 40): before the search, which variants no policy of the
//! spec's maximum can meet ([`super::binds`]) and the margin below the target
//! ([`super::margin`]); after it, the proposal's misses and what would make it hold, and the
//! candidates shown with their figures (JSON `candidatesShown`).

use serde::Serialize;

use super::binds::{self, Feasibility, Miss, Offer};
use super::margin::{self, Margin};
use super::params::Params;
use super::score::{Job, Required, Scored, UnderVariants, allowed_misses};
use super::variants::Variant;

/// What a tune adds to its proposal to always answer.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    /// The margin the nominal p95 had to stay below the target by.
    pub margin: Option<Margin>,
    /// Variants no policy of the spec's maximum meets (robust mode).
    pub feasibility: Option<Feasibility>,
    /// The proposal holds under fewer variants than asked: which it misses, why, and the
    /// change that would make it hold.
    pub fallback: Option<Fallback>,
    /// The candidates the report shows, each with its figures.
    pub shown: Vec<Shown>,
    /// The search ran on the trace's last days only (the work bound).
    pub window: Option<Window>,
    /// `--strict` refused the proposal: why.
    pub refused: Option<String>,
}

/// The proposal misses variants (no policy tried holds under all that were asked).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Fallback {
    /// Variants the proposal meets the target under, of `variants`.
    pub holds_under: usize,
    pub variants: usize,
    pub misses: Vec<Miss>,
    pub offers: Vec<Offer>,
    /// One paragraph saying so.
    pub text: String,
}

/// A candidate as the report shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Shown {
    /// `before` (the spec as written), `nominal best` (the cheapest that meets the target in the
    /// nominal model), `proposal`.
    pub label: String,
    pub policy: Params,
    /// Nominal p95 (whole minutes, and to the second).
    pub p95: f64,
    pub p95_exact: f64,
    /// Worst p95 over the variants (whole minutes), and which variant.
    pub worst_p95: f64,
    pub worst_variant: String,
    pub pool_monthly: Option<f64>,
    /// Instance-hours over the clairvoyant lower bound.
    pub ratio: Option<f64>,
    /// The variants it meets the target under, and those it misses.
    pub holds_under: Vec<String>,
    pub misses: Vec<String>,
}

/// The search ran on the trace's last `days` of `of` ([`super::bound`]).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Window {
    pub days: u32,
    pub of_days: u32,
    pub text: String,
}

/// What the search is asked before it starts: the margin and the variants to require.
pub struct Prelude {
    pub margin: Margin,
    pub feasibility: Feasibility,
    pub required: Required,
}

/// Learn the margin and which variants no policy can meet; `vs` are the variants (the nominal
/// model alone in the nominal mode).
pub fn prelude(job: &Job, before: &Params, explicit_below: bool, vs: &[Variant]) -> Prelude {
    let days = job.trace.minutes() / 1440;
    let margin = match (job.tuning.margin, job.robust_share) {
        (Some(m), _) => Margin::given(m, days),
        (None, None) => Margin::none("no margin: the nominal mode (--nominal)", days),
        (None, Some(_)) => {
            if let Some(p) = job.tuning.progress {
                p.phase("learning the margin from resampled days");
            }
            margin::learn(job, before, explicit_below, vs)
        }
    };
    let top = binds::top_instances(job.input.spec);
    let feasibility = match job.robust_share {
        Some(_) => {
            if let Some(p) = job.tuning.progress {
                p.phase("what the largest pool meets");
            }
            binds::feasibility(job, vs)
        }
        None => Feasibility::none(top, vs.len()),
    };
    let share = job.robust_share.unwrap_or(1.0);
    // the infeasible variants count as misses already
    let required = Required {
        skip: feasibility.infeasible.clone(),
        allowed: allowed_misses(vs.len(), share).saturating_sub(feasibility.infeasible.len()),
    };
    Prelude {
        margin,
        feasibility,
        required,
    }
}

/// `s` as shown, under the variants `u`.
pub fn shown(
    label: &str,
    s: &Scored,
    u: Option<&UnderVariants>,
    vs: &[Variant],
    target: f64,
    bound_hours: f64,
) -> Shown {
    let (worst, worst_variant, holds, misses) = match u {
        Some(u) => {
            let i = u
                .p95_exact
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1))
                .map_or(0, |(i, _)| i);
            let (h, m): (Vec<usize>, Vec<usize>) =
                (0..u.p95_exact.len()).partition(|&k| u.p95_exact[k] <= target + 1e-9);
            let name = |k: usize| vs.get(k).map_or(String::new(), |v| v.name.clone());
            (
                u.worst_p95,
                name(i),
                h.into_iter().map(name).collect(),
                m.into_iter().map(name).collect(),
            )
        }
        None => (
            s.p95,
            "nominal".to_string(),
            if s.p95_exact <= target + 1e-9 {
                vec!["nominal".to_string()]
            } else {
                Vec::new()
            },
            if s.p95_exact <= target + 1e-9 {
                Vec::new()
            } else {
                vec!["nominal".to_string()]
            },
        ),
    };
    Shown {
        label: label.to_string(),
        policy: s.params.clone(),
        p95: s.p95,
        p95_exact: s.p95_exact,
        worst_p95: worst,
        worst_variant,
        pool_monthly: s.pool_monthly,
        ratio: (bound_hours > 0.0).then(|| s.instance_hours / bound_hours),
        holds_under: holds,
        misses,
    }
}

/// The fallback for a proposal that misses variants: which, why, and the offers.
#[allow(clippy::too_many_arguments)]
pub fn fallback(
    job: &Job,
    proposal: &Scored,
    u: &UnderVariants,
    explicit_below: bool,
    vs: &[Variant],
    f: &Feasibility,
) -> Option<Fallback> {
    let misses = binds::misses(job, vs, u, f);
    if misses.is_empty() {
        return None;
    }
    if let Some(p) = job.tuning.progress {
        p.phase("pricing what would make the proposal hold");
    }
    let offers = binds::offers(
        job,
        &proposal.params,
        explicit_below,
        vs,
        f,
        &misses,
        proposal.pool_monthly,
    );
    let holds_under = vs.len() - misses.len();
    let mut text = format!(
        "no policy tried meets p95 <= {} min under all {} variants; the proposal is the cheapest that holds under the most ({holds_under} of {}). It misses:",
        job.target(),
        vs.len(),
        vs.len()
    );
    for m in &misses {
        text.push_str(&format!(
            "\n  - {}: p95 {:.1} min (+{:.1}); {}",
            m.variant, m.p95, m.over_minutes, m.why
        ));
    }
    for o in &offers {
        text.push_str(&format!("\n  to hold: {}", o.text));
    }
    Some(Fallback {
        holds_under,
        variants: vs.len(),
        misses,
        offers,
        text,
    })
}
