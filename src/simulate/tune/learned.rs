//! What schedule learning found (JSON `schedule`), and its text and Markdown sections. The
//! learning and its evaluation are in `schedule.rs`.

use serde::Serialize;

use super::params::Params;
use crate::catalog::currency::Currency;
use crate::spec::model::Schedule;

use super::super::Results;

/// A policy's figures under the model variants.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Side {
    pub policy: Params,
    /// Nominal p95 wait (minutes).
    pub p95: f64,
    /// Worst p95 across the variants, and each in the order of `robust.variants`.
    pub worst_case_p95: f64,
    pub p95_per_variant: Vec<f64>,
    pub instance_hours: f64,
    /// The pool's monthly cost (what the tune compares).
    pub pool_monthly: Option<f64>,
}

/// What the schedules save against the best reactive policy.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Saving {
    pub pool_monthly: f64,
    pub percent: Option<f64>,
    pub p95_nominal_change: f64,
    pub worst_case_p95_change: f64,
}

/// The outcome of schedule learning (JSON `schedule`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Learned {
    /// `skipped` (trace too short or no usable time zone), `none` (no recurring peak),
    /// `notCheaper`, `noneHolds`, `invalid` (the rewritten spec did not check), `proposed`.
    pub status: &'static str,
    /// One line saying what happened.
    pub message: String,
    pub days: usize,
    pub time_zone: String,
    /// How far ahead of a peak hour a schedule starts, and why.
    pub lead_minutes: u32,
    pub lead: String,
    /// The proposed (or, when not proposed, the best tried) schedules.
    pub profiles: Vec<Schedule>,
    /// The best reactive policy: the tune's proposal, a cheaper reactive base that also holds
    /// (a lower floor or a higher target), or the spec as written without a proposal.
    pub before: Option<Side>,
    /// Which of those `before` is, in words.
    pub reactive: String,
    pub after: Option<Side>,
    pub saving: Option<Saving>,
    pub candidates: usize,
    pub candidates_checked: usize,
    pub elapsed_ms: u64,
    /// The change to the spec, as a unified diff (`--write` writes it), or the changes one per
    /// line when the text cannot carry them ([`Self::unwritable`]).
    pub diff: Option<String>,
    /// Why the proposal cannot be written into the spec's text (apply it by hand).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unwritable: Option<String>,
    #[serde(skip)]
    pub new_text: Option<String>,
    #[serde(skip)]
    pub after_results: Option<Results>,
}

impl Learned {
    pub(super) fn skipped(status: &'static str, message: String, days: usize) -> Learned {
        Learned {
            status,
            message,
            days,
            time_zone: String::new(),
            lead_minutes: 0,
            lead: String::new(),
            profiles: Vec::new(),
            before: None,
            reactive: String::new(),
            after: None,
            saving: None,
            candidates: 0,
            candidates_checked: 0,
            elapsed_ms: 0,
            diff: None,
            unwritable: None,
            new_text: None,
            after_results: None,
        }
    }

    pub fn proposed(&self) -> bool {
        self.status == "proposed"
    }
}

/// The text section.
pub fn text(l: &Learned, cur: Currency) -> String {
    let money = |x: f64| cur.amount(x);
    let mut s = format!("{}\n", l.message);
    if l.status == "skipped" || l.status == "none" {
        return s + "\n";
    }
    s.push_str(&format!(
        "  schedules start {} min ahead of the learned peak hour ({}), in {} (its daylight saving followed)\n",
        l.lead_minutes, l.lead, l.time_zone
    ));
    for p in &l.profiles {
        s.push_str(&format!(
            "  {}: {} {}-{} min {} max {}\n",
            p.name,
            days_text(&p.days),
            p.start,
            p.end,
            p.min,
            p.max
        ));
    }
    let row = |name: &str, x: &Side| {
        format!(
            "  {name}  p95 {} min nominal, {} min worst case, {:.1} instance-hours, {}\n",
            x.p95,
            x.worst_case_p95,
            x.instance_hours,
            x.pool_monthly.map_or("price missing".into(), |m| format!(
                "{}/month pool",
                money(m)
            ))
        )
    };
    if let Some(b) = &l.before {
        s.push_str(&format!("  best reactive policy: {}\n", l.reactive));
        s.push_str(&row("reactive: ", b));
    }
    if let Some(a) = &l.after {
        s.push_str(&row("scheduled:", a));
    }
    if let Some(v) = &l.saving {
        s.push_str(&format!(
            "  saving: {}/month{} at the same robust target\n",
            money(v.pool_monthly),
            v.percent.map_or(String::new(), |p| format!(" ({p:.1} %)"))
        ));
    }
    if let Some(d) = &l.diff {
        s.push('\n');
        s.push_str(d);
    }
    s.push('\n');
    s
}

fn days_text(days: &[crate::spec::model::Day]) -> String {
    days.iter()
        .map(|d| format!("{d:?}")[..3].to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The Markdown section.
pub fn markdown(l: &Learned, cur: Currency) -> String {
    let money = |x: f64| cur.amount(x);
    let mut s = format!("\n{}\n", l.message);
    if let (Some(b), Some(a)) = (&l.before, &l.after) {
        s.push_str("\n| | p95 nominal | p95 worst case | monthly (pool) |\n|---|---|---|---|\n");
        for (n, x) in [("reactive", b), ("scheduled", a)] {
            s.push_str(&format!(
                "| {n} | {} min | {} min | {} |\n",
                x.p95,
                x.worst_case_p95,
                x.pool_monthly.map_or("n/a".into(), money)
            ));
        }
    }
    if let Some(d) = &l.diff {
        s.push_str(&format!("\n```diff\n{d}```\n"));
    }
    s
}
