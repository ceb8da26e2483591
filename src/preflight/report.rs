//! The preflight result and its four renderings: a terminal table, JSON, Markdown (for
//! `$GITHUB_STEP_SUMMARY`) and GitHub workflow commands (annotations).

use std::fmt::Write as _;

use serde::Serialize;

use super::role::Role;
use crate::azure::ArmError;
use crate::report::github::{escape_data, escape_property};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Status {
    Pass,
    /// Worth knowing, does not block.
    Warn,
    /// Blocks the deployment.
    Fail,
    /// Could not be checked (an error); the region's verdict becomes unknown.
    Unknown,
    /// Not checked in this mode; does not block.
    Skipped,
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
            Status::Unknown => "unknown",
            Status::Skipped => "skipped",
        }
    }

    fn emoji(self) -> &'static str {
        match self {
            Status::Pass => "✅",
            Status::Warn => "⚠️",
            Status::Fail => "❌",
            Status::Unknown => "❔",
            Status::Skipped => "⏭️",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Verdict {
    Pass,
    Blocked,
    Unknown,
    /// Offline with no size or quota data for the region: nothing about it was checked (only
    /// `allowedRegions`), so it neither passes nor blocks.
    NotChecked,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Blocked => "BLOCKED",
            Verdict::Unknown => "UNKNOWN",
            Verdict::NotChecked => "NOT CHECKED",
        }
    }

    fn emoji(self) -> &'static str {
        match self {
            Verdict::Pass => "✅ pass",
            Verdict::Blocked => "❌ blocked",
            Verdict::Unknown => "❔ unknown",
            Verdict::NotChecked => "⏭️ not checked",
        }
    }
}

/// A quota in the numbers Azure's own quota error uses.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuotaNeed {
    /// Usages `name.value` ("Standard NCASv3_T4 Family", "cores", "lowPriorityCores").
    pub quota: String,
    /// Portal label ("Standard NCASv3_T4 Family vCPUs").
    pub label: String,
    /// Matched by the exact `name.value` (false: case/whitespace-insensitive fallback).
    pub matched_exactly: bool,
    pub current_limit: i64,
    pub current_usage: i64,
    /// Of `current_usage`, what the pool's existing scale set uses (a redeployment).
    #[serde(skip_serializing_if = "is_zero")]
    pub already_in_use: i64,
    pub additional_required: i64,
    pub new_limit_required: i64,
}

impl QuotaNeed {
    /// The request in plain figures: the new limit is the whole need (what is in use plus what
    /// this pool adds), and how far it is above the limit (Azure's "Additional Required" is the
    /// pool's share, which beside the limit reads as a sum).
    pub fn in_words(&self) -> String {
        use crate::report::number::count;
        let n = |x: i64| count(x as f64);
        let in_use = self.current_usage - self.already_in_use;
        let over = self.new_limit_required - self.current_limit;
        format!(
            "needs {} in all ({} in use + {} for this pool), {}",
            n(self.new_limit_required),
            n(in_use),
            n(self.additional_required),
            if over > 0 {
                format!(
                    "{} more than the limit of {}",
                    n(over),
                    n(self.current_limit)
                )
            } else {
                format!("within the limit of {}", n(self.current_limit))
            }
        )
    }
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    pub id: &'static str,
    pub title: &'static str,
    pub status: Status,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quota: Option<QuotaNeed>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ArmError>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RegionReport {
    pub region: String,
    pub role: Role,
    pub verdict: Verdict,
    /// The failing (or, for an unknown verdict, unanswered) checks, subscription ones included.
    pub reasons: Vec<String>,
    pub checks: Vec<Check>,
    pub on_demand_hourly: Option<f64>,
    /// Checks not run for lack of data (offline); they do not block.
    pub skipped: usize,
    /// Size and quota were both checked: the verdict means something for a ranking.
    pub complete: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Mode {
    Live,
    Offline,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ranked {
    pub region: String,
    pub on_demand_hourly: Option<f64>,
    /// A pool with a Spot share: the region's Spot placement score for the pool's size (its
    /// weakest zone's for a zonal pool), which orders the ranking first ([`super::spot`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spot_placement_score: Option<String>,
    /// The region's Spot eviction-rate band for the pool's size (percent per hour).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spot_eviction_rate: Option<String>,
    /// The Spot placement scores of `compute.alternateSizes` in the region (deploy's failover
    /// tries them), as Azure spells them; they do not change the order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spot_alternate_sizes: Vec<SizeScore>,
}

/// One size's Spot placement score in a region (its weakest zone's for a zonal pool).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SizeScore {
    pub size: String,
    pub score: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub spec: String,
    pub name: String,
    pub size: String,
    pub vcpus: Option<u32>,
    pub quota_family: Option<String>,
    pub max: u32,
    pub regular: u32,
    pub spot: u32,
    pub mode: Mode,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subscription: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credential: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cloud: Option<String>,
    /// The spec region's verdict (the exit code follows it).
    pub verdict: Verdict,
    pub subscription_checks: Vec<Check>,
    pub regions: Vec<RegionReport>,
    /// Passing regions other than the spec's, cheapest first (on-demand price per VM-hour); for
    /// a pool with a Spot share whose placement scores were read, by score first.
    pub ranking: Vec<Ranked>,
    pub currency: String,
    pub price_as_of: Option<String>,
}

impl Report {
    pub fn primary(&self) -> &RegionReport {
        &self.regions[0]
    }

    /// Quota increases worth asking for: every failing quota check, by region.
    pub fn quota_requests(&self) -> Vec<(&str, &QuotaNeed)> {
        self.regions
            .iter()
            .flat_map(|r| {
                r.checks
                    .iter()
                    .filter(|c| c.status == Status::Fail)
                    .filter_map(move |c| c.quota.as_ref().map(|q| (r.region.as_str(), q)))
            })
            .collect()
    }

    fn size_line(&self) -> String {
        let mut s = self.size.clone();
        match (self.vcpus, &self.quota_family) {
            (Some(v), Some(f)) => s.push_str(&format!(" ({v} vCPUs, quota family {f:?})")),
            (Some(v), None) => s.push_str(&format!(" ({v} vCPUs)")),
            _ => {}
        }
        let vms = if self.max == 1 { "VM" } else { "VMs" };
        s.push_str(&format!(
            ", up to {} {vms}: {} regular",
            self.max, self.regular
        ));
        if self.spot > 0 {
            s.push_str(&format!(" + {} Spot", self.spot));
        }
        s
    }

    fn source_line(&self) -> String {
        match self.mode {
            Mode::Offline => "offline: from the --skus/--usages files; checks without data are skipped and do not block".into(),
            Mode::Live => {
                let mut s = "live".to_string();
                if let Some(sub) = &self.subscription {
                    s.push_str(&format!(", subscription {sub}"));
                }
                if let Some(c) = &self.cloud {
                    s.push_str(&format!(" ({c})"));
                }
                s
            }
        }
    }

    /// "passing alternatives, cheapest first: ..." (plus the regions left unranked for lack of data).
    fn ranking_line(&self) -> Option<String> {
        if self.regions.len() < 2 {
            return None;
        }
        let unranked: Vec<&str> = self
            .regions
            .iter()
            .filter(|r| r.role != Role::Spec && r.verdict == Verdict::Pass && !r.complete)
            .map(|r| r.region.as_str())
            .collect();
        let not_checked: Vec<&str> = self
            .regions
            .iter()
            .filter(|r| r.role != Role::Spec && r.verdict == Verdict::NotChecked)
            .map(|r| r.region.as_str())
            .collect();
        let mut line = if self.ranking.is_empty() {
            if unranked.is_empty() && not_checked.is_empty() {
                "no other region passes".to_string()
            } else {
                String::new()
            }
        } else {
            let list: Vec<String> = self
                .ranking
                .iter()
                .map(|k| match spot_label(k) {
                    Some(l) => format!("{} ({l}, {})", k.region, self.price(k.on_demand_hourly)),
                    None => format!("{} ({})", k.region, self.price(k.on_demand_hourly)),
                })
                .collect();
            format!(
                "passing alternatives, {}: {}",
                self.ranking_order(),
                list.join(", ")
            )
        };
        if !unranked.is_empty() {
            if !line.is_empty() {
                line.push_str("; ");
            }
            line.push_str(&format!(
                "not ranked for lack of size and quota data: {}",
                unranked.join(", ")
            ));
        }
        if !not_checked.is_empty() {
            if !line.is_empty() {
                line.push_str("; ");
            }
            line.push_str(&format!(
                "not checked (no size or quota data): {}",
                not_checked.join(", ")
            ));
        }
        Some(line)
    }

    /// How the ranking is ordered, in words.
    fn ranking_order(&self) -> &'static str {
        if self
            .ranking
            .iter()
            .any(|k| k.spot_placement_score.is_some())
        {
            "by Spot placement score, then cheapest"
        } else {
            "cheapest first"
        }
    }

    fn price(&self, p: Option<f64>) -> String {
        match p {
            Some(p) => format!("{}{p:.3}/h", if self.currency == "USD" { "$" } else { "" }),
            None => "no price".into(),
        }
    }
}

/// "Spot High, eviction 0-5 %/h" for a ranked region with Spot data.
fn spot_label(k: &Ranked) -> Option<String> {
    let base = match (&k.spot_placement_score, &k.spot_eviction_rate) {
        (None, None) => None,
        (Some(s), None) => Some(format!("Spot {s}")),
        (None, Some(e)) => Some(format!("eviction {e} %/h")),
        (Some(s), Some(e)) => Some(format!("Spot {s}, eviction {e} %/h")),
    };
    if k.spot_alternate_sizes.is_empty() {
        return base;
    }
    let alts = k
        .spot_alternate_sizes
        .iter()
        .map(|a| format!("{} Spot {}", a.size, a.score))
        .collect::<Vec<_>>()
        .join(", ");
    Some(match base {
        Some(b) => format!("{b}; alternate sizes: {alts}"),
        None => format!("alternate sizes: {alts}"),
    })
}

// ---------------------------------------------------------------------------------------------
// Terminal

fn paint(text: &str, color: anstyle::AnsiColor, bold: bool, styled: bool) -> String {
    if !styled {
        return text.to_string();
    }
    let mut st = anstyle::Style::new().fg_color(Some(color.into()));
    if bold {
        st = st.bold();
    }
    format!("{st}{text}{st:#}")
}

fn status_cell(s: Status, styled: bool) -> String {
    let padded = format!("{:<8}", s.label());
    let color = match s {
        Status::Pass => anstyle::AnsiColor::Green,
        Status::Warn => anstyle::AnsiColor::Yellow,
        Status::Fail => anstyle::AnsiColor::Red,
        Status::Unknown => anstyle::AnsiColor::Magenta,
        Status::Skipped => anstyle::AnsiColor::BrightBlack,
    };
    paint(&padded, color, s == Status::Fail, styled)
}

fn verdict_word(v: Verdict, styled: bool) -> String {
    let color = match v {
        Verdict::Pass => anstyle::AnsiColor::Green,
        Verdict::Blocked => anstyle::AnsiColor::Red,
        Verdict::Unknown => anstyle::AnsiColor::Magenta,
        Verdict::NotChecked => anstyle::AnsiColor::BrightBlack,
    };
    paint(v.label(), color, true, styled)
}

fn human_checks(out: &mut String, checks: &[Check], styled: bool) {
    for c in checks {
        let _ = writeln!(
            out,
            "  {} {:<26} {}",
            status_cell(c.status, styled),
            c.title,
            c.message
        );
        if let Some(e) = &c.error {
            for line in e.detail_lines() {
                let _ = writeln!(out, "  {:<8} {:<26}   {}", "", "", line.trim_start());
            }
            for cause in e
                .causes
                .iter()
                .filter(|x| !c.message.contains(x.as_str()))
                .take(4)
            {
                let _ = writeln!(out, "  {:<8} {:<26} caused by: {cause}", "", "");
            }
            if let Some(id) = &e.request_id {
                let _ = writeln!(out, "  {:<8} {:<26} request id: {id}", "", "");
            }
        }
        if let Some(f) = &c.fix
            && matches!(c.status, Status::Fail | Status::Warn | Status::Unknown)
        {
            let _ = writeln!(out, "  {:<8} {:<26} fix: {f}", "", "");
        }
    }
}

pub fn human(r: &Report, styled: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "preflight {} ({})", r.name, r.spec);
    let _ = writeln!(out, "  {}", r.size_line());
    let _ = writeln!(out, "  {}", r.source_line());
    let _ = writeln!(out);
    let _ = writeln!(out, "subscription");
    human_checks(&mut out, &r.subscription_checks, styled);
    for reg in &r.regions {
        let _ = writeln!(out);
        let skipped = if reg.skipped > 0 {
            format!(" ({} skipped)", crate::diag::plural(reg.skipped, "check"))
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "{} ({}): {}{skipped}, {} on demand",
            reg.region,
            reg.role.label(),
            verdict_word(reg.verdict, styled),
            r.price(reg.on_demand_hourly)
        );
        human_checks(&mut out, &reg.checks, styled);
    }
    let _ = writeln!(out);
    let p = r.primary();
    let _ = writeln!(
        out,
        "result: {} ({}) is {}",
        p.region,
        p.role.label(),
        verdict_word(p.verdict, styled)
    );
    for reason in &p.reasons {
        let _ = writeln!(out, "  - {reason}");
    }
    let requests = r.quota_requests();
    if !requests.is_empty() {
        let _ = writeln!(out, "quota to request:");
        for (region, q) in requests {
            let _ = writeln!(
                out,
                "  {region}: {} ({:?}): new limit of at least {}; {}",
                q.label,
                q.quota,
                crate::report::number::count(q.new_limit_required as f64),
                q.in_words()
            );
        }
    }
    if let Some(line) = r.ranking_line() {
        let _ = writeln!(out, "{line}");
    }
    out
}

// ---------------------------------------------------------------------------------------------
// JSON

pub fn json(r: &Report) -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(r).expect("the report serialises")
    )
}

// ---------------------------------------------------------------------------------------------
// Markdown

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

pub fn markdown(r: &Report) -> String {
    let mut out = String::new();
    let p = r.primary();
    let _ = writeln!(out, "## gpuform preflight: {}\n", cell(&r.name));
    let _ = writeln!(
        out,
        "**{} ({}): {}** · `{}` · {}\n",
        p.region,
        p.role.label(),
        p.verdict.emoji(),
        cell(&r.spec),
        cell(&r.size_line())
    );
    if r.mode == Mode::Offline {
        let _ = writeln!(
            out,
            "_Offline: from the `--skus`/`--usages` files; checks without data are skipped and do not block._\n"
        );
    }
    let _ = writeln!(out, "| Region | Role | Verdict | On demand per VM | Why |");
    let _ = writeln!(out, "|---|---|---|---|---|");
    for reg in &r.regions {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            reg.region,
            reg.role.label(),
            reg.verdict.emoji(),
            r.price(reg.on_demand_hourly),
            cell(&reg.reasons.join("; "))
        );
    }
    let requests = r.quota_requests();
    if !requests.is_empty() {
        let _ = writeln!(out, "\n### Quota to request\n");
        let _ = writeln!(
            out,
            "| Region | Quota | Current limit | In use | This pool adds | New limit (needed in all) | Above the limit by |"
        );
        let _ = writeln!(out, "|---|---|---|---|---|---|---|");
        for (region, q) in requests {
            use crate::report::number::count;
            let n = |x: i64| count(x as f64);
            let _ = writeln!(
                out,
                "| {region} | {} (`{}`) | {} | {} | {} | **{}** | {} |",
                cell(&q.label),
                cell(&q.quota),
                n(q.current_limit),
                n(q.current_usage - q.already_in_use),
                n(q.additional_required),
                n(q.new_limit_required),
                n((q.new_limit_required - q.current_limit).max(0))
            );
        }
    }
    if let Some(line) = r.ranking_line() {
        let mut c = line.chars();
        let first = c
            .next()
            .map(|f| f.to_uppercase().collect::<String>())
            .unwrap_or_default();
        let _ = writeln!(out, "\n{first}{}.", c.as_str());
    }
    let section = |out: &mut String, title: &str, checks: &[Check]| {
        let _ = writeln!(out, "\n<details><summary>{title}</summary>\n");
        let _ = writeln!(out, "| Check | Result | Details | Fix |");
        let _ = writeln!(out, "|---|---|---|---|");
        for c in checks {
            let _ = writeln!(
                out,
                "| {} | {} {} | {} | {} |",
                c.title,
                c.status.emoji(),
                c.status.label(),
                cell(&c.message),
                cell(c.fix.as_deref().unwrap_or(""))
            );
        }
        let _ = writeln!(out, "\n</details>");
    };
    section(&mut out, "Subscription checks", &r.subscription_checks);
    for reg in &r.regions {
        section(&mut out, &format!("{} checks", reg.region), &reg.checks);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// GitHub workflow commands

/// Annotations for the spec region's problems, and the verdict: an error when it blocks, a
/// warning when unknown, else a notice.
pub fn github(r: &Report) -> String {
    let mut out = String::new();
    let p = r.primary();
    let file = escape_property(&r.spec);
    for c in p.checks.iter().chain(r.subscription_checks.iter()) {
        let cmd = match c.status {
            Status::Fail => "error",
            Status::Unknown | Status::Warn => "warning",
            _ => continue,
        };
        let mut msg = c.message.clone();
        if let Some(f) = &c.fix {
            msg.push_str("\nfix: ");
            msg.push_str(f);
        }
        let title = escape_property(&format!("gpuform preflight {}: {}", p.region, c.title));
        let _ = writeln!(
            out,
            "::{cmd} file={file},title={title}::{}",
            escape_data(&msg)
        );
    }
    let mut msg = format!("{} ({}) is {}", p.region, p.role.label(), p.verdict.label());
    if !r.ranking.is_empty() {
        let list: Vec<&str> = r.ranking.iter().map(|k| k.region.as_str()).collect();
        msg.push_str(&format!(
            "; passing alternatives, {}: {}",
            r.ranking_order(),
            list.join(", ")
        ));
    }
    // the verdict is a workflow error when it blocks the deployment (a notice is easy to miss
    // and reads as fine), a warning when it could not be decided
    let cmd = match p.verdict {
        Verdict::Blocked => "error",
        Verdict::Unknown => "warning",
        Verdict::Pass | Verdict::NotChecked => "notice",
    };
    let _ = writeln!(
        out,
        "::{cmd} file={file},title={}::{}",
        escape_property("gpuform preflight"),
        escape_data(&msg)
    );
    out
}
