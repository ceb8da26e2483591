//! `gpuform cost SPEC`: validate the flags, gather the prices (embedded, `--prices` files,
//! `--refresh-prices`), price what render emits, compare with a baseline, decide the budget
//! gates and choose the exit code. The CLI declares the flags and supplies the [`Hooks`] (how
//! specs are loaded and diagnostics shown, how a `--trace` is replayed, where output goes).

use std::path::{Path, PathBuf};

use crate::catalog::currency::{Currency, Money};
use crate::diag::failure::{ExitCode, Failure, read_input};
use crate::plan::Plan;
use crate::spec::model::Spec;
use crate::spec::{Checked, Policy};

use super::clock::today;
use super::estimate::estimate;
use super::gates::{self, Gate};
use super::model::{Options, SimulatedHours};
use super::prices::{self, Refresh, Want};
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
    /// `--fail-above`: the amount, and its currency when the flag names one (else the spec's).
    pub fail_above: Option<(f64, Option<Currency>)>,
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
    if let Some((a, _)) = args.fail_above {
        non_negative("--fail-above", a)?;
    }
    if let Some(a) = args.fail_increase_percent
        && !a.is_finite()
    {
        return Err(Failure::usage("--fail-increase-percent must be a number"));
    }
    let policy = (hooks.policy)()?;
    let checked = (hooks.check)(&args.spec, &policy)?;
    let spec = checked
        .spec
        .as_ref()
        .ok_or_else(|| Failure::usage(format!("{} could not be read", args.spec.display())))?;
    // the spec's currency: prices, totals, the budget and every gate are in it
    let want = Want::of(&checked)?;
    let limit = match args.fail_above {
        Some((amount, Some(c))) if c != want.currency => {
            return Err(Failure::usage(format!(
                "--fail-above {} is in {c}, but the spec prices in {} ({})",
                c.amount(amount),
                want.currency,
                want.at
            ))
            .cause("gpuform never compares amounts in two currencies")
            .help(format!(
                "give the amount in {0} (--fail-above {amount} {0}, or without a code), or change monitoring.budget.currency",
                want.currency
            )));
        }
        Some((amount, c)) => Some(Money::new(amount, c.unwrap_or(want.currency))),
        None => None,
    };
    let size = checked.size().ok_or_else(|| {
        Failure::usage(format!(
            "{}: vmSize {} is not in gpuform's catalog; nothing to price",
            args.spec.display(),
            spec.spec.compute.vm_size
        ))
    })?;
    let gathered = prices::gather(
        spec,
        want.clone(),
        &args.prices,
        args.refresh_prices.then_some(&args.refresh),
    )?;
    let book = &gathered.book;
    let mut notes = gathered.notes.clone();
    // vmSize: auto ranks with the embedded table, as in render: price the size render emits
    // (a lever says what auto would pick with the --prices/--refresh-prices figures)
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
        book,
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
            // a baseline in another currency compares nothing: say where each is set
            if !base.currency.eq_ignore_ascii_case(&est.currency) {
                return Err(Failure::usage(format!(
                    "the baseline {} is in {} ({}: /currency), this estimate in {} ({})",
                    path.display(),
                    base.currency,
                    path.display(),
                    est.currency,
                    if gathered.fallback.is_some() {
                        format!("the embedded USD prices: no {} price was given", want.currency)
                    } else {
                        want.at.clone()
                    }
                ))
                .cause("gpuform never compares amounts in two currencies")
                .help(format!(
                    "price both in one currency: regenerate the baseline with `gpuform cost SPEC --output json` from the same spec and price source (--refresh-prices or --prices FILE in {})",
                    want.currency
                )));
            }
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
    if let Some(limit) = limit {
        results.push(gates::fail_above(&est, limit));
    }
    let est_currency = Currency::parse(&est.currency).unwrap_or(Currency::USD);
    if let (Some(n), Some(d)) = (args.fail_increase_percent, diff.as_ref()) {
        results.push(gates::fail_increase(
            d,
            n,
            est.totals.decidable(),
            baseline_complete,
            est_currency,
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
        if let Some(why) = &gathered.fallback
            && limit.is_some_and(|l| l.currency != est_currency)
        {
            return Err(Failure::usage(format!(
                "cannot decide the cost gate{} {}: the limit is in {}, and this estimate is in {est_currency}",
                if names.len() == 1 { "" } else { "s" },
                names.join(", "),
                want.currency
            ))
            .cause(why.clone())
            .help(format!(
                "`gpuform cost {} --refresh-prices ...` prices in {} and decides the gate",
                args.spec.display(),
                want.currency
            )));
        }
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
