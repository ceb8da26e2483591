//! `gpuform simulate` of a request-driven pool, below the CLI: the setting the plan emits, the
//! run, and `--tune --latency-p95` ([`crate::simulate::tune::serving_spec`]). The CLI declares
//! the arguments, loads the spec ([`Loaded`]) and chooses the output.
//!
//! Beside [`super::serving`] and [`super::tune`], not inside either: it drives both (the
//! serving simulator and the serving tuner, which itself drives the simulator), so the arrows
//! run serving_command -> tune -> serving and never back.

use super::serving::prepare::Prepared;
use super::serving::results::{ServingResults, run as simulate};
use super::tune::serving_spec::{SpecJob, SpecTuned, tune_spec};
use crate::cost::clock::today;
use crate::cost::prices::Pricing;
use crate::diag::failure::Failure;
use crate::plan::Plan;

/// A checked, planned serving spec and its run's inputs.
pub struct Loaded {
    pub checked: crate::spec::Checked,
    pub plan: Plan,
    pub policy: crate::spec::policy::Policy,
    pub prepared: Prepared,
}

/// What the run is asked to do besides simulating.
pub struct Options<'a> {
    /// The spec's path as the user gave it (in messages and the results).
    pub file: &'a str,
    /// `--tune`, with the share of the variants a proposal must hold under (`None`: nominal).
    pub tune: Option<Option<f64>>,
    /// `--prices` files and `--refresh-prices`: the prices `cost` would use.
    pub pricing: Pricing,
}

/// What a run produced.
pub struct Outcome {
    pub results: ServingResults,
    pub tuned: Option<SpecTuned>,
}

/// Whether the spec at `path` has a `serving` block: read quietly (no diagnostics; anything
/// unreadable is the queue path's to report).
pub fn is_serving(path: &std::path::Path) -> bool {
    let Ok(text) = crate::io::read_text(path, crate::spec::MAX_FILE_BYTES) else {
        return false;
    };
    crate::spec::yaml::parse(&text)
        .ok()
        .is_some_and(|d| d.value.pointer("/spec/serving").is_some())
}

/// Simulate the loaded spec and trace through the autoscale setting its plan emits; tune with
/// `--tune`.
pub fn run(l: &Loaded, o: &Options) -> Result<Outcome, Failure> {
    let (input, setting, gathered) =
        super::command::start(&l.checked, &l.plan, o.file, &o.pricing)?;
    let book = gathered.book;
    let today = today();
    let p = &l.prepared;
    let results = simulate(
        &input, &setting, &p.trace, &p.model, &p.choices, p.seed, &book, &today,
    );
    let tuned = match o.tune {
        None => None,
        Some(robust_share) => {
            let job = SpecJob {
                input: &input,
                checked: &l.checked,
                policy: &l.policy,
                source: l.checked.source.as_deref().unwrap_or_default(),
                trace: &p.trace,
                model: &p.model,
                choices: p.choices,
                seed: p.seed,
                book: &book,
                today: &today,
                robust_share,
            };
            Some(tune_spec(&job).map_err(|e| Failure::usage(format!("--tune: {e}")))?)
        }
    };
    Ok(Outcome { results, tuned })
}
