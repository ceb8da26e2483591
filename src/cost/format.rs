//! The estimate for people (an aligned table, every line explained), for pull requests
//! (markdown, fits `$GITHUB_STEP_SUMMARY`) and for programs (JSON with a `schemaVersion`).

use std::fmt::Write as _;

use super::gates::{Diff, Gate};
use super::model::Estimate;
use super::retail::os_label;
use super::usage::Cases;

use crate::catalog::currency::Currency;

use super::money::qty;
pub use super::money::{count, money};

fn opt_money(c: Currency, x: Option<f64>) -> String {
    x.map(|x| c.amount(x)).unwrap_or_else(|| "missing".into())
}

fn unit_price(c: Currency, p: Option<f64>, unit: &str) -> String {
    match p {
        None => "price missing".into(),
        Some(p) => format!("{} per {unit}", c.unit(p)),
    }
}

/// The estimate's currency.
fn currency_of(e: &Estimate) -> Currency {
    Currency::parse(&e.currency).unwrap_or(Currency::USD)
}

fn heading(s: &mut String, styled: bool, text: &str) {
    if styled {
        let b = anstyle::Style::new().bold();
        let _ = writeln!(s, "{b}{text}{b:#}");
    } else {
        let _ = writeln!(s, "{text}");
    }
}

fn dim(styled: bool, text: &str) -> String {
    if styled {
        let d = anstyle::Style::new().dimmed();
        format!("{d}{text}{d:#}")
    } else {
        text.to_string()
    }
}

fn age(a: Option<i64>) -> String {
    match a {
        Some(0) => "today".into(),
        Some(1) => "1 day old".into(),
        Some(d) if d >= 0 => format!("{d} days old"),
        _ => "age unknown".into(),
    }
}

const W: usize = 12;

fn row3(c: Cases<String>) -> String {
    format!("{:>W$} {:>W$} {:>W$}", c.low, c.expected, c.high)
}

/// A pool that does not scale has one figure per line, not a low and a high.
fn fixed(e: &Estimate) -> bool {
    e.instance_hours.low == e.instance_hours.high
        && e.lines.iter().all(|l| l.amount.low == l.amount.high)
}

/// Three cases, or the one figure of a fixed pool (padded to the same width).
fn row(single: bool, c: Cases<String>) -> String {
    if single {
        format!("{:>w$}", c.expected, w = 3 * W + 2)
    } else {
        row3(c)
    }
}

fn hours3(single: bool, c: Cases<f64>) -> String {
    if single {
        qty(c.expected)
    } else {
        format!("{} / {} / {}", qty(c.low), qty(c.expected), qty(c.high))
    }
}

/// The expected total as shown: "unknown (≥ $X)" when the expected GPU hours are unknown.
fn expected_total(c: Currency, t: &super::model::Totals) -> String {
    if t.expected_known {
        c.amount(t.expected)
    } else {
        format!("unknown (≥ {})", c.amount(t.expected))
    }
}

/// The human table.
pub fn table(e: &Estimate, diff: Option<&Diff>, gates: &[Gate], styled: bool) -> String {
    let c = currency_of(e);
    let money = |x: f64| c.amount(x);
    let mut s = String::new();
    heading(
        &mut s,
        styled,
        &format!(
            "gpuform cost: {} — {} ({}) in {}, {} per month of {} h",
            e.spec,
            e.vm_size,
            os_label(e.os),
            e.region,
            e.currency,
            e.hours_per_month
        ),
    );
    if let Some(b) = e.budget.as_ref().filter(|b| b.currency != e.currency) {
        let _ = writeln!(
            s,
            "note: the budget is in {}, these figures in {}: no {} price was given, so nothing is compared or gated in {} (Budget, below, says what to run)",
            b.currency, e.currency, b.currency, b.currency
        );
    }
    s.push('\n');
    let single = fixed(e);
    heading(&mut s, styled, "Autoscale profiles over one UTC week");
    let _ = writeln!(
        s,
        "  {:<26} {:<12} {:>4} {:>9} {:>4} {:>8}   instance-hours/month{}",
        "profile",
        "kind",
        "min",
        "expected",
        "max",
        "h/week",
        if single {
            " (one figure: the count does not scale)"
        } else {
            " (low / expected / high)"
        }
    );
    for p in &e.profiles {
        if p.hours_per_week == 0.0 {
            continue;
        }
        let _ = writeln!(
            s,
            "  {:<26} {:<12} {:>4} {:>9} {:>4} {:>8}   {}",
            p.name,
            match p.kind.as_str() {
                "scheduleEnd" | "autoStart" => "restore",
                "autoShutdown" => "shutdown",
                k => k,
            },
            p.min,
            qty(p.expected_count),
            p.max,
            qty(p.hours_per_week),
            hours3(single, p.instance_hours)
        );
    }
    let _ = writeln!(
        s,
        "  {:<26} {:<12} {:>4} {:>9} {:>4} {:>8}   {}  ({} regular + {} spot expected)",
        "all",
        "",
        "",
        "",
        "",
        "168",
        hours3(single, e.instance_hours),
        qty(e.regular_hours.expected),
        qty(e.spot_hours.expected)
    );
    s.push('\n');
    heading(&mut s, styled, "Monthly bill");
    let _ = writeln!(
        s,
        "{}  line",
        row(
            single,
            Cases {
                low: "low".into(),
                expected: if single { "monthly" } else { "expected" }.into(),
                high: "high".into()
            }
        )
    );
    let mut group = "";
    for l in &e.lines {
        if l.group != group {
            group = &l.group;
            let _ = writeln!(s, "{:>w$}  [{group}]", "", w = 3 * W + 2);
        }
        let mut amount = l.amount.map(|x| opt_money(c, x));
        if !e.totals.expected_known && l.quantity.low != l.quantity.high {
            amount.expected = "unknown".into();
        }
        let _ = writeln!(s, "{}  {}", row(single, amount), l.label);
        let q = if l.quantity.low == l.quantity.high {
            format!(
                "{} × {}",
                qty(l.quantity.expected),
                unit_price(c, l.unit_price, &l.unit)
            )
        } else {
            format!(
                "{} / {} / {} × {}",
                qty(l.quantity.low),
                qty(l.quantity.expected),
                qty(l.quantity.high),
                unit_price(c, l.unit_price, &l.unit)
            )
        };
        let _ = writeln!(
            s,
            "{:>w$}  {}",
            "",
            dim(
                styled,
                &match &l.converted {
                    Some(cv) => format!("{q}; {}; {cv}", l.assumption),
                    None => format!("{q}; {}", l.assumption),
                }
            ),
            w = 3 * W + 2
        );
    }
    let t = &e.totals;
    let _ = writeln!(s, "{}", "-".repeat(3 * W + 2 + 7));
    let _ = writeln!(
        s,
        "{}  total{}",
        row(
            single,
            Cases {
                low: money(t.low),
                expected: if t.expected_known {
                    money(t.expected)
                } else {
                    "unknown".into()
                },
                high: money(t.high)
            }
        ),
        if t.complete {
            ""
        } else {
            " (lower bound: prices missing, see below)"
        }
    );
    if let Some(why) = &t.expected_unknown {
        let _ = writeln!(
            s,
            "expected: unknown (at least {}): {why}",
            money(t.expected)
        );
    }
    s.push('\n');

    heading(&mut s, styled, "Saving levers (expected case, per month)");
    for lv in &e.levers {
        let v = lv.monthly.map(money).unwrap_or_else(|| "-".into());
        let _ = writeln!(s, "{v:>W$}  {:<15} {}", lv.status, lv.label);
        let _ = writeln!(s, "{:>w$}  {}", "", dim(styled, &lv.detail), w = W + 16);
    }
    s.push('\n');

    if !e.missing.is_empty() {
        heading(&mut s, styled, "Missing prices (never guessed)");
        for m in &e.missing {
            let _ = writeln!(s, "  {}: no {} — {}", m.line, m.price, m.help);
        }
        s.push('\n');
    }

    heading(&mut s, styled, "Prices used");
    for src in &e.sources {
        let _ = writeln!(
            s,
            "  {} ({}, {}): {}",
            src.id,
            src.as_of,
            age(src.age_days),
            src.name
        );
        let mut extra = Vec::new();
        if let Some(c) = &src.confidence {
            extra.push(format!("confidence {c}"));
        }
        if let Some(n) = &src.note {
            extra.push(n.trim_end_matches('.').to_string());
        }
        extra.push(format!("used for {}", src.used_for.join(", ")));
        let _ = writeln!(s, "      {}", dim(styled, &extra.join("; ")));
    }
    s.push('\n');

    heading(&mut s, styled, "Assumptions");
    for a in &e.assumptions {
        let _ = writeln!(s, "  - {a}");
    }
    for n in &e.notes {
        let _ = writeln!(s, "  - {n}");
    }

    if let Some(b) = &e.budget {
        s.push('\n');
        let _ = writeln!(s, "Budget: {} ({})", b.message, b.status);
    }
    if let Some(d) = diff {
        s.push('\n');
        heading(
            &mut s,
            styled,
            &format!("Change against {}", d.baseline_file),
        );
        for l in &d.lines {
            let _ = writeln!(
                s,
                "{:>W$} {:>W$} {:>W$}  {}",
                opt_money(c, l.before),
                opt_money(c, l.after),
                signed(c, l.delta),
                l.label
            );
        }
        let pct = d
            .percent
            .map(|p| format!(" ({p:+.1}%)"))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "{:>W$} {:>W$} {:>W$}  total{pct}",
            money(d.before),
            money(d.after),
            signed(c, d.delta)
        );
    }
    if !gates.is_empty() {
        s.push('\n');
        for g in gates {
            let _ = writeln!(
                s,
                "gate {}: {} — {}",
                g.name,
                match g.passed {
                    Some(true) => "passed",
                    Some(false) => "FAILED",
                    None => "UNDECIDED",
                },
                g.message
            );
        }
    }
    s
}

fn signed(c: Currency, x: f64) -> String {
    if x > 0.0049 {
        format!("+{}", c.amount(x))
    } else {
        c.amount(x)
    }
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|")
}

/// Markdown for pull-request comments and `$GITHUB_STEP_SUMMARY`.
pub fn markdown(e: &Estimate, diff: Option<&Diff>, gates: &[Gate]) -> String {
    let c = currency_of(e);
    let money = |x: f64| c.amount(x);
    let mut s = String::new();
    let _ = writeln!(s, "### gpuform cost: `{}`\n", e.spec);
    let _ = writeln!(
        s,
        "`{}` ({}) in `{}`, {} per month of {} h. Expected **{}**{} (low {}, high {}).\n",
        e.vm_size,
        os_label(e.os),
        e.region,
        e.currency,
        e.hours_per_month,
        expected_total(c, &e.totals),
        if e.totals.complete {
            ""
        } else {
            ", a lower bound: prices missing"
        },
        money(e.totals.low),
        money(e.totals.high)
    );
    if let Some(b) = e.budget.as_ref().filter(|b| b.currency != e.currency) {
        let _ = writeln!(
            s,
            "> **Note:** the budget is in {}, these figures in {}: nothing is compared or gated in {}. {}\n",
            b.currency,
            e.currency,
            b.currency,
            md_escape(&b.message)
        );
    }
    if let Some(d) = diff {
        let pct = d
            .percent
            .map(|p| format!(" ({p:+.1}%)"))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "**Change against `{}`: {} → {}, {}{pct}**\n",
            d.baseline_file,
            money(d.before),
            money(d.after),
            signed(c, d.delta)
        );
        if !d.lines.is_empty() {
            let _ = writeln!(
                s,
                "| Line | Before | After | Change |\n|---|---:|---:|---:|"
            );
            for l in &d.lines {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} |",
                    md_escape(&l.label),
                    opt_money(c, l.before),
                    opt_money(c, l.after),
                    signed(c, l.delta)
                );
            }
            s.push('\n');
        }
    }
    for g in gates {
        let _ = writeln!(
            s,
            "- {} gate `{}`: {}",
            match g.passed {
                Some(true) => "✅",
                Some(false) => "❌",
                None => "❔ undecided",
            },
            g.name,
            md_escape(&g.message)
        );
    }
    if let Some(b) = &e.budget {
        let _ = writeln!(s, "- budget: {} ({})", md_escape(&b.message), b.status);
    }
    if !gates.is_empty() || e.budget.is_some() {
        s.push('\n');
    }
    let _ = writeln!(
        s,
        "| Line | Unit price | Low | Expected | High |\n|---|---:|---:|---:|---:|"
    );
    for l in &e.lines {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            md_escape(&match &l.converted {
                Some(cv) => format!("{} ({cv})", l.label),
                None => l.label.clone(),
            }),
            unit_price(c, l.unit_price, &l.unit),
            opt_money(c, l.amount.low),
            opt_money(c, l.amount.expected),
            opt_money(c, l.amount.high)
        );
    }
    let _ = writeln!(
        s,
        "| **Total** | | **{}** | **{}** | **{}** |\n",
        money(e.totals.low),
        expected_total(c, &e.totals),
        money(e.totals.high)
    );
    let _ = writeln!(s, "| Saving lever | Status | Per month |\n|---|---|---:|");
    for lv in &e.levers {
        let _ = writeln!(
            s,
            "| {} — {} | {} | {} |",
            md_escape(&lv.label),
            md_escape(&lv.detail),
            lv.status,
            lv.monthly.map(money).unwrap_or_else(|| "-".into())
        );
    }
    s.push('\n');
    if !e.missing.is_empty() {
        let _ = writeln!(s, "**Missing prices** (never guessed):\n");
        for m in &e.missing {
            let _ = writeln!(s, "- `{}`: no {} — {}", m.line, md_escape(&m.price), m.help);
        }
        s.push('\n');
    }
    let _ = writeln!(s, "<details><summary>Prices and assumptions</summary>\n");
    for src in &e.sources {
        let _ = writeln!(
            s,
            "- `{}`: {} — as of {} ({})",
            src.id,
            md_escape(&src.name),
            src.as_of,
            age(src.age_days)
        );
    }
    for a in e.assumptions.iter().chain(&e.notes) {
        let _ = writeln!(s, "- {}", md_escape(a));
    }
    let _ = writeln!(s, "\n</details>");
    s
}

/// The JSON document: the estimate, plus the baseline diff and the gates when asked.
pub fn json(e: &Estimate, diff: Option<&Diff>, gates: &[Gate]) -> String {
    let mut v = serde_json::to_value(e).expect("estimate serializes");
    if let Some(d) = diff {
        v["diff"] = serde_json::to_value(d).expect("diff serializes");
    }
    if !gates.is_empty() {
        v["gates"] = serde_json::to_value(gates).expect("gates serialize");
    }
    round_money(&mut v);
    format!("{}\n", serde_json::to_string_pretty(&v).expect("json"))
}

/// Monthly amounts in the JSON document to cents (775.4842999999998 -> 775.48): the totals, each
/// line's amount, the levers' savings, the budget and the baseline diff. Unit prices and
/// quantities keep their precision.
fn round_money(v: &mut serde_json::Value) {
    fn cents(x: &mut serde_json::Value) {
        if let Some(f) = x.as_f64()
            && f.is_finite()
        {
            let r = (f * 100.0).round() / 100.0;
            if let Some(n) = serde_json::Number::from_f64(r) {
                *x = serde_json::Value::Number(n);
            }
        }
    }
    fn cases(x: &mut serde_json::Value) {
        for k in ["low", "expected", "high"] {
            if let Some(c) = x.get_mut(k) {
                cents(c);
            }
        }
    }
    if let Some(t) = v.get_mut("totals") {
        cases(t);
    }
    for l in v["lines"].as_array_mut().into_iter().flatten() {
        if let Some(a) = l.get_mut("amount") {
            cases(a);
        }
    }
    for l in v["levers"].as_array_mut().into_iter().flatten() {
        if let Some(m) = l.get_mut("monthly") {
            cents(m);
        }
    }
    if let Some(b) = v.get_mut("budget").filter(|b| b.is_object())
        && let Some(m) = b.get_mut("monthly")
    {
        cents(m);
    }
    if let Some(d) = v.get_mut("diff").filter(|d| d.is_object()) {
        for k in ["before", "after", "delta"] {
            if let Some(x) = d.get_mut(k) {
                cents(x);
            }
        }
        for l in d["lines"].as_array_mut().into_iter().flatten() {
            for k in ["before", "after", "delta"] {
                if let Some(x) = l.get_mut(k) {
                    cents(x);
                }
            }
        }
    }
}
