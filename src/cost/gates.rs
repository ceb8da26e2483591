//! Budget gates: the spec's own `monitoring.budget`, `--fail-above AMOUNT`, and a diff against a
//! previous `--format json` estimate with `--fail-increase-percent N`.

use serde::{Deserialize, Serialize};

use crate::catalog::currency::{Currency, Money};
use crate::plan::Plan;

use super::model::{BudgetCheck, Estimate, SCHEMA_VERSION, Totals};

/// Compare the expected monthly cost (in `currency`, the estimate's) with
/// `monitoring.budget.monthly` (the budget render emits, in `monitoring.budget.currency`). An
/// estimate in another currency than the budget's (no price in it was given) decides nothing:
/// the check is undecided and says what to run.
pub fn budget_check(plan: &Plan, t: &Totals, currency: Currency) -> Option<BudgetCheck> {
    let b = plan.monitoring.budget.as_ref()?;
    let budget_currency = Currency::parse(&b.currency);
    let Some(bc) = budget_currency.filter(|c| *c == currency) else {
        let shown = match budget_currency {
            Some(c) => c.amount(b.amount),
            None => format!("{} {}", b.amount, b.currency),
        };
        return Some(BudgetCheck {
            monthly: b.amount,
            currency: b.currency.clone(),
            status: "undecided".into(),
            percent_of_budget: None,
            message: format!(
                "the budget is {shown} and this estimate is in {currency}: gpuform compares amounts in one currency only and had no {0} price (or USD → {0} rate) to price in; `gpuform cost SPEC --refresh-prices` asks the Retail Prices API in {0}, or give --prices FILE fetched with currencyCode='{0}'",
                b.currency
            ),
        });
    };
    let money = |x: f64| bc.amount(x);
    let expected = Money::new(t.expected, currency);
    let budget = Money::new(b.amount, bc);
    let pct = expected
        .percent_of(budget)
        .expect("one currency, checked above");
    let partial = if !t.expected_known {
        " (a lower bound: the expected GPU hours of a pool that scales from zero are unknown)"
    } else if t.complete {
        ""
    } else {
        " (a lower bound: some prices are missing)"
    };
    let over = expected
        .exceeds(budget)
        .expect("one currency, checked above");
    let (status, message) = if over {
        (
            "over",
            format!(
                "the expected {}{partial} exceeds monitoring.budget.monthly {}",
                money(t.expected),
                money(b.amount)
            ),
        )
    } else if !t.decidable() {
        (
            "undecided",
            format!(
                "the expected {}{partial} is {:.0}% of monitoring.budget.monthly {}; it may exceed it",
                money(t.expected),
                pct.unwrap_or(0.0),
                money(b.amount)
            ),
        )
    } else {
        (
            "ok",
            format!(
                "the expected {}{partial} is {:.0}% of monitoring.budget.monthly {}",
                money(t.expected),
                pct.unwrap_or(0.0),
                money(b.amount)
            ),
        )
    };
    Some(BudgetCheck {
        monthly: b.amount,
        currency: b.currency.clone(),
        status: status.into(),
        percent_of_budget: pct,
        message,
    })
}

/// How one line moved between the baseline and now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineDiff {
    pub id: String,
    pub label: String,
    pub before: Option<f64>,
    pub after: Option<f64>,
    pub delta: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Diff {
    pub baseline_file: String,
    pub before: f64,
    pub after: f64,
    pub delta: f64,
    /// `None` when the baseline is 0.
    pub percent: Option<f64>,
    /// Lines whose expected amount changed, largest change first.
    pub lines: Vec<LineDiff>,
}

#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("not a gpuform cost JSON document: {0}")]
    Shape(String),
    #[error(
        "the baseline has schemaVersion {found}; this gpuform writes {SCHEMA_VERSION}: regenerate it with `gpuform cost --format json`"
    )]
    Version { found: u64 },
}

/// The largest number a cost report holds (an amount a month, in any currency the API prices
/// in; counts and hours are far smaller).
const MAX_BASELINE_NUMBER: f64 = 1e15;

/// The JSON pointer and value of the first number beyond [`MAX_BASELINE_NUMBER`].
fn implausible_number(v: &serde_json::Value, at: String) -> Option<(String, f64)> {
    match v {
        serde_json::Value::Number(n) => n
            .as_f64()
            .filter(|x| !x.is_finite() || x.abs() > MAX_BASELINE_NUMBER)
            .map(|x| (at, x)),
        serde_json::Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, x)| implausible_number(x, format!("{at}/{i}"))),
        serde_json::Value::Object(o) => o
            .iter()
            .find_map(|(k, x)| implausible_number(x, format!("{at}/{k}"))),
        _ => None,
    }
}

pub fn read_baseline(text: &str) -> Result<Estimate, BaselineError> {
    let v: serde_json::Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| BaselineError::Shape(e.to_string()))?;
    let found = v
        .get("schemaVersion")
        .and_then(|x| x.as_u64())
        .ok_or_else(|| BaselineError::Shape("no schemaVersion".into()))?;
    if found != u64::from(SCHEMA_VERSION) {
        return Err(BaselineError::Version { found });
    }
    // a baseline may come from anyone: amounts no estimate can have would print as nonsense
    if let Some((at, x)) = implausible_number(&v, String::new()) {
        return Err(BaselineError::Shape(format!(
            "{at}: {x} is not an amount gpuform writes (at most {MAX_BASELINE_NUMBER:e} in size)"
        )));
    }
    serde_json::from_value(v).map_err(|e| BaselineError::Shape(e.to_string()))
}

pub fn diff(baseline: &Estimate, baseline_file: &str, now: &Estimate) -> Diff {
    let mut lines = Vec::new();
    let mut ids: Vec<&str> = now.lines.iter().map(|l| l.id.as_str()).collect();
    for l in &baseline.lines {
        if !ids.contains(&l.id.as_str()) {
            ids.push(&l.id);
        }
    }
    for id in ids {
        let b = baseline.lines.iter().find(|l| l.id == id);
        let a = now.lines.iter().find(|l| l.id == id);
        let before = b.and_then(|l| l.amount.expected);
        let after = a.and_then(|l| l.amount.expected);
        let delta = after.unwrap_or(0.0) - before.unwrap_or(0.0);
        let label_changed = matches!((a, b), (Some(x), Some(y)) if x.label != y.label);
        if delta.abs() >= 0.005 || before.is_none() != after.is_none() || label_changed {
            let label = a.or(b).map(|l| l.label.clone()).unwrap_or_default();
            lines.push(LineDiff {
                id: id.to_string(),
                label,
                before,
                after,
                delta,
            });
        }
    }
    lines.sort_by(|x, y| {
        y.delta
            .abs()
            .total_cmp(&x.delta.abs())
            .then(x.id.cmp(&y.id))
    });
    let before = baseline.totals.expected;
    let after = now.totals.expected;
    let percent = if before > 0.0 {
        Some((after - before) / before * 100.0)
    } else {
        None
    };
    Diff {
        baseline_file: baseline_file.to_string(),
        before,
        after,
        delta: after - before,
        percent,
        lines,
    }
}

/// The outcome of one gate. With prices missing the expected total is a lower bound: a gate it
/// already exceeds has failed, any other is undecided (`passed: null`, `status: "undecided"`),
/// never passed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Gate {
    pub name: String,
    /// `true` passed, `false` failed, `null` undecided (prices are missing).
    pub passed: Option<bool>,
    /// `passed`, `failed` or `undecided`.
    pub status: String,
    pub message: String,
}

impl Gate {
    fn new(name: &str, passed: Option<bool>, message: String) -> Self {
        let status = match passed {
            Some(true) => "passed",
            Some(false) => "failed",
            None => "undecided",
        };
        Gate {
            name: name.into(),
            passed,
            status: status.into(),
            message,
        }
    }

    pub fn failed(&self) -> bool {
        self.passed == Some(false)
    }

    pub fn undecided(&self) -> bool {
        self.passed.is_none()
    }
}

const UNDECIDED: &str = "undecided: prices are missing, the total is a lower bound";

/// `--fail-above`: `limit` is in the estimate's currency unless it says otherwise; an amount in
/// another currency than the estimate's decides nothing (undecided, with what to run).
pub fn fail_above(e: &Estimate, limit: Money) -> Gate {
    let cur = Currency::parse(&e.currency).unwrap_or(Currency::USD);
    let money = |x: f64| cur.amount(x);
    if limit.currency != cur {
        return Gate::new(
            "fail-above",
            None,
            format!(
                "undecided: --fail-above {limit} and this estimate is in {cur}: gpuform compares amounts in one currency only; price in {0} with `gpuform cost SPEC --refresh-prices` (or --prices FILE fetched with currencyCode='{0}')",
                limit.currency
            ),
        );
    }
    let limit = limit.amount;
    let t = e.totals.expected;
    if t > limit {
        let lower = if e.totals.decidable() {
            ""
        } else {
            " (a lower bound)"
        };
        return Gate::new(
            "fail-above",
            Some(false),
            format!(
                "expected {}{lower} exceeds --fail-above {}",
                money(t),
                money(limit)
            ),
        );
    }
    if !e.totals.expected_known {
        return Gate::new(
            "fail-above",
            None,
            format!(
                "undecided: the expected cost is unknown (at least {}: a pool that scales from zero, with no load to say how long it runs) and may exceed --fail-above {}; `cost --trace FILE` or --expected-utilization PERCENT decides it",
                money(t),
                money(limit)
            ),
        );
    }
    if !e.totals.complete {
        return Gate::new(
            "fail-above",
            None,
            format!(
                "{UNDECIDED} ({}) and may exceed --fail-above {}",
                money(t),
                money(limit)
            ),
        );
    }
    Gate::new(
        "fail-above",
        Some(true),
        format!(
            "expected {} is within --fail-above {}",
            money(t),
            money(limit)
        ),
    )
}

/// `now_complete` / `baseline_complete`: whether each estimate had every price.
pub fn fail_increase(
    d: &Diff,
    max_percent: f64,
    now_complete: bool,
    baseline_complete: bool,
    currency: Currency,
) -> Gate {
    let money = |x: f64| currency.amount(x);
    let exceeds = match d.percent {
        Some(p) => p > max_percent,
        None => d.after > 0.0,
    };
    let pct = d
        .percent
        .map(|p| format!("{p:+.1}%"))
        .unwrap_or_else(|| "from zero".into());
    // a lower bound now against a complete baseline can prove an increase, never its absence;
    // an incomplete baseline proves nothing
    let passed = if !baseline_complete || (!now_complete && !exceeds) {
        None
    } else {
        Some(!exceeds)
    };
    let verdict = match passed {
        Some(true) => "is within".to_string(),
        Some(false) => "exceeds".to_string(),
        None => format!(
            "cannot be compared with ({})",
            if baseline_complete {
                "the total is a lower bound now: prices are missing or the expected GPU hours unknown"
            } else {
                "the baseline is missing prices or its expected case is unknown"
            }
        ),
    };
    Gate::new(
        "fail-increase-percent",
        passed,
        format!(
            "expected {} → {} ({pct}) {verdict} --fail-increase-percent {max_percent}",
            money(d.before),
            money(d.after),
        ),
    )
}
