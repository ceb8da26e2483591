//! `gpuform cost SPEC`: validate the flags, gather the prices (embedded, `--prices` files,
//! `--refresh-prices`), price what render emits, compare with a baseline, decide the budget
//! gates and choose the exit code. The CLI declares the flags and supplies the [`Hooks`] (how
//! specs are loaded and diagnostics shown, how a `--trace` is replayed, where output goes).

use std::path::{Path, PathBuf};

use crate::catalog::prices::PriceTable;
use crate::diag::failure::{ExitCode, Failure, read_input};
use crate::plan::Plan;
use crate::spec::model::Spec;
use crate::spec::{Checked, Policy};

use super::clock::{now_rfc3339, today};
use super::estimate::estimate;
use super::fixed::FixedSource;
use super::gates::{self, Gate};
use super::model::{Options, SimulatedHours};
use super::prices::{self, Refresh};
use super::{format, retail};

/// The output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Markdown,
}

/// What `gpuform cost` was asked (its flags, read).
#[derive(Debug, Clone)]
pub struct Request {
    pub spec: PathBuf,
    pub format: Format,
    /// Styled (coloured) text output.
    pub styled: bool,
    pub prices: Vec<PathBuf>,
    pub refresh_prices: bool,
    pub refresh: Refresh,
    pub fail_above: Option<f64>,
    pub baseline: Option<PathBuf>,
    pub fail_increase_percent: Option<f64>,
    pub expected_utilization: f64,
    pub log_gb_per_day: f64,
    pub nat_gb: f64,
    pub key_vault_ops: f64,
    pub queue_ops: f64,
    pub trace: Option<PathBuf>,
}

/// What the command needs from above: the policy, loading a spec (printing its diagnostics),
/// planning it, replaying a `--trace`, and printing the result.
pub struct Hooks<'a> {
    pub policy: &'a dyn Fn() -> Result<Policy, Failure>,
    pub check: &'a dyn Fn(&Path, &Policy) -> Result<Checked, Failure>,
    pub plan: &'a dyn Fn(&Checked, &Path) -> Result<Plan, Failure>,
    pub simulate: &'a dyn Fn(&Path, &Checked, &Plan, &Spec) -> Result<SimulatedHours, Failure>,
    pub out: &'a dyn Fn(&str),
}

fn non_negative(name: &str, v: f64) -> Result<(), Failure> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(Failure::usage(format!(
            "{name} must be a non-negative number (got {v})"
        )))
    }
}

pub fn run(args: &Request, hooks: &Hooks) -> Result<ExitCode, Failure> {
    for (n, v) in [
        ("--log-gb-per-day", args.log_gb_per_day),
        ("--nat-gb", args.nat_gb),
        ("--key-vault-ops", args.key_vault_ops),
        ("--queue-ops", args.queue_ops),
        ("--prices-max-age", args.refresh.max_age),
    ] {
        non_negative(n, v)?;
    }
    if !(0.0..=100.0).contains(&args.expected_utilization) {
        return Err(Failure::usage(format!(
            "--expected-utilization is a percentage from 0 to 100 (got {})",
            args.expected_utilization
        )));
    }
    if let Some(a) = args.fail_above {
        non_negative("--fail-above", a)?;
    }
    if let Some(a) = args.fail_increase_percent
        && !a.is_finite()
    {
        return Err(Failure::usage("--fail-increase-percent must be a number"));
    }
    let policy = (hooks.policy)()?;
    let (mut book, mut parsed) = prices::load_files(&args.prices)?;
    let mut notes = Vec::new();

    if args.refresh_prices {
        // the region and workload decide which prices to fetch: read the spec once quietly
        let pre = crate::spec::check_file(&args.spec, &policy, PriceTable::embedded());
        if let Some(spec) = pre.spec.as_ref() {
            let p = prices::refresh(&args.refresh, spec, &mut book, &mut notes)?;
            let src = FixedSource {
                id: "retail-api-disks".into(),
                name: "Azure Retail Prices API: managed disk prices".into(),
                as_of: p
                    .vm
                    .sources
                    .first()
                    .map(|s| s.as_of.clone())
                    .unwrap_or_else(now_rfc3339),
                confidence: "live".into(),
                note: format!("{} items read", p.items),
            };
            parsed.push((p, src));
        }
    }

    // vmSize: auto ranks with the embedded table, as in render: price the size render emits
    // (a lever says what auto would pick with the --prices/--refresh-prices figures)
    let checked = (hooks.check)(&args.spec, &policy)?;
    let spec = checked
        .spec
        .as_ref()
        .ok_or_else(|| Failure::usage(format!("{} could not be read", args.spec.display())))?;
    let size = checked.size().ok_or_else(|| {
        Failure::usage(format!(
            "{}: vmSize {} is not in gpuform's catalog; nothing to price",
            args.spec.display(),
            spec.spec.compute.vm_size
        ))
    })?;
    for (p, src) in &parsed {
        book.add_disks(p, &spec.spec.region, src.clone());
    }
    // price exactly what render emits
    let plan = (hooks.plan)(&checked, &args.spec)?;

    let simulated = match &args.trace {
        None => None,
        Some(trace) => Some((hooks.simulate)(trace, &checked, &plan, spec)?),
    };
    let opts = Options {
        expected_utilization_percent: args.expected_utilization,
        log_gb_per_day: args.log_gb_per_day,
        nat_gb_per_month: args.nat_gb,
        key_vault_operations_per_month: args.key_vault_ops,
        queue_operations_per_month: args.queue_ops,
        today: today(),
        simulated,
    };
    let mut est = estimate(
        spec,
        &plan,
        &args.spec.display().to_string(),
        size,
        checked.auto_sized,
        &book,
        &opts,
    );
    if let Some(sel) = checked.sizing.as_ref().filter(|_| checked.auto_sized) {
        notes.push(format!(
            "vmSize: auto chose {} as render does, ranked with the embedded price table ({} pay-as-you-go in {}{}){}",
            size.name,
            retail::os_label(sel.price_os),
            sel.price_region,
            sel.price_as_of.as_deref().map(|d| format!(", as of {d}")).unwrap_or_default(),
            sel.note.as_deref().map(|n| format!("; {n}")).unwrap_or_default()
        ));
    }
    est.notes.splice(0..0, notes);

    let mut baseline_complete = true;
    let diff = match &args.baseline {
        Some(path) => {
            let text = read_input(path, crate::io::limits::BASELINE, "the baseline")?;
            let base = gates::read_baseline(&text).map_err(|e| {
                Failure::from_error(
                    ExitCode::Usage,
                    format!("cannot use the baseline {}", path.display()),
                    &e,
                )
            })?;
            baseline_complete = base.totals.decidable();
            // a baseline of another spec compares apples with pears: say so (issue 10, item 17)
            if base.spec != est.spec || !base.region.eq_ignore_ascii_case(&est.region) {
                let w = format!(
                    "the baseline {} is the estimate of spec `{}` in {}, not of `{}` in {}: the comparison is between different specs",
                    path.display(),
                    base.spec,
                    base.region,
                    est.spec,
                    est.region
                );
                eprintln!("warning: {}", crate::report::ci::text(&w));
                est.notes.push(w);
            }
            Some(gates::diff(&base, &path.display().to_string(), &est))
        }
        None => None,
    };
    let mut results: Vec<Gate> = Vec::new();
    if let Some(limit) = args.fail_above {
        results.push(gates::fail_above(&est, limit));
    }
    if let (Some(n), Some(d)) = (args.fail_increase_percent, diff.as_ref()) {
        results.push(gates::fail_increase(
            d,
            n,
            est.totals.decidable(),
            baseline_complete,
        ));
    }

    let text = match args.format {
        Format::Text => format::table(&est, diff.as_ref(), &results, args.styled),
        Format::Markdown => format::markdown(&est, diff.as_ref(), &results),
        Format::Json => format::json(&est, diff.as_ref(), &results),
    };
    (hooks.out)(&text);

    if let Some(b) = est.budget.as_ref().filter(|b| b.status == "over") {
        eprintln!("warning: {}", b.message);
    }
    // a failed gate (even on a lower bound) is a finding; otherwise an undecided one is exit 2
    if results.iter().any(Gate::failed) {
        for g in results.iter().filter(|g| g.failed()) {
            eprintln!("error: cost gate {} failed: {}", g.name, g.message);
        }
        return Ok(ExitCode::Findings);
    }
    if results.iter().any(Gate::undecided) {
        let names: Vec<&str> = results
            .iter()
            .filter(|g| g.undecided())
            .map(|g| g.name.as_str())
            .collect();
        if !est.totals.expected_known {
            return Err(Failure::usage(format!(
                "cannot decide the cost gate{} {}: the expected cost is unknown",
                if names.len() == 1 { "" } else { "s" },
                names.join(", ")
            ))
            .cause(est.totals.expected_unknown.clone().unwrap_or_default())
            .help(format!(
                "`gpuform simulate {0} --trace FILE` replays your queue; then `gpuform cost {0} --trace FILE ...` decides the gate (or --expected-utilization PERCENT)",
                args.spec.display()
            )));
        }
        let mut what: Vec<String> = est.missing.iter().map(|m| m.price.clone()).collect();
        if !baseline_complete {
            what.push(
                "the baseline estimate is missing prices, or its expected cost is unknown".into(),
            );
        }
        return Err(Failure::usage(format!(
            "cannot decide the cost gate{} {}: the estimate is missing prices",
            if names.len() == 1 { "" } else { "s" },
            names.join(", ")
        ))
        .cause(what.join("; "))
        .help("supply them with --prices FILE or --refresh-prices"));
    }
    Ok(ExitCode::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_must_be_non_negative_numbers() {
        assert!(non_negative("--nat-gb", 0.0).is_ok());
        let f = non_negative("--nat-gb", -1.0).unwrap_err();
        assert_eq!(f.message, "--nat-gb must be a non-negative number (got -1)");
        assert!(non_negative("--nat-gb", f64::INFINITY).is_err());
    }
}
