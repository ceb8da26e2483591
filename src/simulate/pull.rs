//! `simulate SPEC -g RG --since 14d`: the queue's arrivals read from Azure Monitor metrics
//! (Metrics - List, the same response `az monitor metrics list -o json` prints), with the
//! credentials and flags of `status`, instead of an export the user makes by hand.
//!
//! What is read (the README's `az` recipes, the same metrics the trace reader knows):
//! - Service Bus: the namespace metric `IncomingMessages` (Total, PT1M) split by `EntityName`
//!   (the spec's queue);
//! - storage queue: `Transactions` (Total, PT1M) on `queueServices/default` with
//!   `ApiName eq 'PutMessage'`.
//!
//! One request per day of the window (one-minute points; a day is 1,440 of them), joined as the
//! concatenated exports the trace reader already reads.
//!
//! And the GPU telemetry of the same window, from the spec's Log Analytics workspace with the
//! Logs Query API `status` uses ([`crate::azure::Arm::log_query_at`]), summarised in the query
//! ([`telemetry_query`]): one row per minute (VMs reporting, VMs idle, samples), a day per
//! request, never the raw rows of 14 days × N VMs × GPUs. It goes where `--telemetry FILE`
//! goes ([`super::measured::from_counts`]); a file given with `--telemetry` wins and the
//! workspace is not asked.

// `PullError::Arm` carries ARM's whole story (as `crate::azure` allows): built once per failed
// pull, never in a loop, so its size in `Result` does not matter.
#![allow(clippy::result_large_err)]

use std::collections::BTreeMap;

use jiff::{Timestamp, ToSpan};
use serde_json::Value;

use super::load::{self, Trace};
use super::measured::Counts;
use crate::azure::operate::LogAnswer;
use crate::azure::{Arm, ArmApi, ArmError};
use crate::diag::failure::Failure;
use crate::facts::roles::{LOG_ANALYTICS_READER, MONITORING_READER};
use crate::plan::gpu_monitoring::TABLE;
use crate::plan::{Plan, QueueKind};

/// Where the arrivals are read.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    pub resource_id: String,
    pub metric: &'static str,
    pub aggregation: &'static str,
    pub filter: Option<String>,
    pub entity: String,
}

/// The metric that counts the queue's arrivals, for the plan's queue in `subscription`/`rg`.
pub fn source(plan: &Plan, subscription: &str, rg: &str) -> Result<Source, String> {
    let q = plan.queue.as_ref().ok_or(
        "the spec has no queue (autoscale.queue): there are no arrivals to read from Azure; give --trace FILE",
    )?;
    let qrg = q.resource_group.as_deref().unwrap_or(rg);
    Ok(match q.kind {
        QueueKind::ServiceBus => Source {
            resource_id: format!(
                "/subscriptions/{subscription}/resourceGroups/{qrg}/providers/Microsoft.ServiceBus/namespaces/{}",
                q.parent
            ),
            metric: "IncomingMessages",
            aggregation: "Total",
            filter: Some(format!("EntityName eq '{}'", q.queue)),
            entity: q.queue.clone(),
        },
        QueueKind::Storage => Source {
            resource_id: format!(
                "/subscriptions/{subscription}/resourceGroups/{qrg}/providers/Microsoft.Storage/storageAccounts/{}/queueServices/default",
                q.parent
            ),
            metric: "Transactions",
            aggregation: "Total",
            filter: Some("ApiName eq 'PutMessage'".to_string()),
            entity: q.queue.clone(),
        },
    })
}

/// Why the pull failed.
#[derive(Debug)]
pub enum PullError {
    Arm(ArmError),
    /// The arrivals could not be read as a trace.
    Trace(String),
    /// The workspace's answer is not the table the query asks for.
    Telemetry(String),
}

impl PullError {
    /// One line: what failed and, for ARM's failures, what to do.
    pub fn text(&self) -> String {
        match self {
            PullError::Arm(e) => match &e.help {
                Some(h) => format!("{e} ({h})"),
                None => e.to_string(),
            },
            PullError::Trace(m) | PullError::Telemetry(m) => m.clone(),
        }
    }

    /// For people: ARM's failures through `arm` (the CLI's rendering), the others with what to
    /// check.
    pub fn failure(self, arm: impl Fn(&ArmError) -> Failure) -> Failure {
        match self {
            PullError::Arm(e) => arm(&e),
            PullError::Trace(m) => Failure::usage(m).help(
                "check that the queue exists in that resource group and has sent metrics over the window (--since)",
            ),
            PullError::Telemetry(m) => Failure::usage(m).help(
                "a proxy may have answered instead of Azure (check GPUFORM_LOGS_ENDPOINT and the proxy settings); otherwise run again later, or export the table and give --telemetry FILE",
            ),
        }
    }
}

/// The window `[end - minutes, end)` (whole minutes, UTC; at most 93 days, Azure Monitor's
/// metric retention) cut into the requests gpuform sends: 24-hour spans from the start, the last
/// one partial. Absolute time: a clock change in the spec's time zone moves nothing.
pub fn days(end: Timestamp, minutes: u64) -> Result<Vec<(Timestamp, Timestamp)>, String> {
    let end =
        Timestamp::from_second(end.as_second().div_euclid(60) * 60).map_err(|e| e.to_string())?;
    let start = end
        .checked_sub((minutes.min(93 * 1440) as i64).minutes())
        .map_err(|e| e.to_string())?;
    let mut v = Vec::new();
    let mut from = start;
    while from < end {
        let to = from
            .checked_add(24.hours())
            .map_err(|e| e.to_string())?
            .min(end);
        v.push((from, to));
        from = to;
    }
    Ok(v)
}

/// The window `-g` reads: its end and its length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub end: Timestamp,
    pub minutes: u64,
}

/// `--since` and `--until` (RFC 3339; default now): the window to read.
pub fn window(since: &str, until: Option<&str>) -> Result<Window, Failure> {
    let minutes = super::model::parse_flag_duration(since).ok_or_else(|| {
        Failure::usage(format!("--since `{since}` is not a duration"))
            .help("give ISO 8601 (P14D, PT36H) or a short form (14d, 36h)")
    })? / 60;
    if minutes == 0 {
        return Err(Failure::usage("--since must be a minute or more"));
    }
    let end = match until {
        Some(t) => t.parse::<Timestamp>().map_err(|e| {
            Failure::usage(format!("--until `{t}` is not a time: {e}"))
                .help("give RFC 3339 UTC, e.g. 2026-12-07T06:00:00Z")
        })?,
        None => Timestamp::now(),
    };
    Ok(Window { end, minutes })
}

/// Read `[end - minutes, end)` of arrivals (whole minutes, UTC), a day per request.
pub async fn arrivals(
    arm: &Arm,
    src: &Source,
    end: Timestamp,
    minutes: u64,
) -> Result<Trace, PullError> {
    let mut docs: Vec<Value> = Vec::new();
    for (from, to) in days(end, minutes).map_err(PullError::Trace)? {
        let body = arm
            .metric_series(
                &src.resource_id,
                src.metric,
                src.aggregation,
                &format!("{from}/{to}"),
                "PT1M",
                src.filter.as_deref(),
            )
            .await
            .map_err(|e| PullError::Arm(with_role(e, MONITORING_READER.name, &src.resource_id)))?;
        docs.push(body);
    }
    let text = serde_json::to_string(&Value::Array(docs)).unwrap_or_default();
    let name = format!("Azure Monitor {} of {}", src.metric, src.resource_id);
    load::parse(&name, &text, Some(&src.entity)).map_err(|e| PullError::Trace(e.to_string()))
}

/// A 403 names the built-in role that grants the read and the command that assigns it.
fn with_role(mut e: ArmError, role: &str, scope: &str) -> ArmError {
    if e.status == Some(403) {
        e.help = Some(format!(
            "{}; grant it, e.g. `az role assignment create --assignee <the identity's object or client id> --role \"{role}\" --scope {scope}`, then run simulate again",
            e.help
                .as_deref()
                .unwrap_or("the identity lacks the permission")
        ));
    }
    e
}

/// What `-g` read: the arrivals, and what the workspace said of the GPU telemetry.
#[derive(Debug, Clone)]
pub struct Pulled {
    pub trace: Trace,
    pub telemetry: Telemetry,
}

/// The workspace's GPU telemetry of the window: its per-minute counts when it has rows, and
/// warnings for what could not be measured.
#[derive(Debug, Clone, Default)]
pub struct Telemetry {
    pub counts: Option<Counts>,
    pub warnings: Vec<String>,
}

/// What `-g` asks of the workspace: the idle threshold (percent) of the measurement, and whether
/// the run needs it (the job time comes from the telemetry: neither the spec nor --job-duration
/// gives one).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ask {
    pub idle_threshold_percent: u32,
    pub required: bool,
}

/// The arrivals of the spec's queue over the window `w`, read with `arm` (the subscription
/// `arm` is signed in to; the queue's own resource group when the spec names one), and with
/// `telemetry` the GPU telemetry of the same window from the spec's workspace.
///
/// The measurement stands beside the simulation, so a workspace gpuform cannot read (a 403, a
/// firewall that lets only ARM out, an answer that is not the table, throttling that outlasts
/// the retries) is a warning that says why and the run goes on with the arrivals, as `status`
/// leaves its telemetry line out; unless the run needs the telemetry for the job time, then it
/// fails with that error.
pub async fn pull(
    arm: &Arm,
    plan: &Plan,
    rg: &str,
    w: Window,
    telemetry: Option<Ask>,
) -> Result<Pulled, PullError> {
    let src = source(plan, arm.subscription(), rg).map_err(PullError::Trace)?;
    let trace = arrivals(arm, &src, w.end, w.minutes).await?;
    let mut warnings = Vec::new();
    let counts = match telemetry {
        // no minute of arrivals: nothing to measure against (prepare says the trace is empty)
        _ if trace.minutes() == 0 => None,
        None => None,
        Some(_) if plan.gpu.is_none() => {
            warnings.push(format!("the spec renders no GPU telemetry ({TABLE}): the run has the arrivals only, nothing measured to compare with"));
            None
        }
        Some(ask) => {
            let ws = plan
                .monitoring
                .workspace
                .resource_id(arm.subscription(), rg);
            match gpu_telemetry(arm, &ws, &trace, ask.idle_threshold_percent, &mut warnings).await {
                Ok(None) => {
                    warnings.push(format!(
                        "the workspace {ws} has no {TABLE} rows between {} and {}: the telemetry is not arriving (`gpuform status SPEC -g {rg}` checks the collectors) or the pool did not run; the run has the arrivals only",
                        trace.start,
                        window_end(&trace)
                    ));
                    None
                }
                Ok(c) => c,
                Err(e) if ask.required => return Err(e),
                Err(e) => {
                    warnings.push(format!(
                        "could not read the GPU telemetry: {}; the run has the arrivals only (--telemetry FILE gives an export instead)",
                        e.text()
                    ));
                    None
                }
            }
        }
    };
    Ok(Pulled {
        trace,
        telemetry: Telemetry { counts, warnings },
    })
}

fn window_end(trace: &Trace) -> Timestamp {
    trace
        .start
        .checked_add((trace.minutes() as i64).minutes())
        .unwrap_or(trace.start)
}

/// The one-row query over the whole window: rows, distinct reporting VMs (`dcountif`, Kusto's
/// estimate: shown, never computed with), and `ok` rows whose utilisation is not a percentage
/// (what `--telemetry FILE` reports as skipped). A row with an empty Computer names no VM (a
/// Kusto string is never null, only empty): not a VM here, as the file path leaves it out.
/// `tests/simulate_pull_kql.rs` runs both queries on a KQL engine against the file path.
pub fn totals_query(from: Timestamp, to: Timestamp) -> String {
    format!(
        "{TABLE}\n| where TimeGenerated >= datetime({from}) and TimeGenerated < datetime({to})\n| extend Counts = (isempty(Status) or Status == \"ok\") and isnotnull(UtilizationPercent)\n| extend Valid = Counts and UtilizationPercent >= 0 and UtilizationPercent <= 100\n| summarize Rows = count(), Computers = dcountif(Computer, Valid and isnotempty(Computer)), Impossible = countif(Counts and not(Valid))"
    )
}

/// The per-minute query of one span: for each minute, the VMs with an `ok` sample, those whose
/// GPUs averaged under `threshold` percent (idle, as `--telemetry FILE` counts them), and the
/// samples; rows without a Computer left out (see [`totals_query`]). At most 1,440 rows a day
/// whatever the pool's size.
pub fn telemetry_query(from: Timestamp, to: Timestamp, threshold: u32) -> String {
    format!(
        "{TABLE}\n| where TimeGenerated >= datetime({from}) and TimeGenerated < datetime({to})\n| where isempty(Status) or Status == \"ok\"\n| where isnotnull(UtilizationPercent) and UtilizationPercent >= 0 and UtilizationPercent <= 100\n| where isnotempty(Computer)\n| summarize Utilization = avg(UtilizationPercent), Samples = count() by Minute = bin(TimeGenerated, 1m), Computer\n| summarize Instances = count(), Idle = countif(Utilization < {threshold}), Samples = sum(Samples) by Minute\n| order by Minute asc"
    )
}

/// The GPU telemetry of the trace's window, summarised per minute by the workspace. `None`
/// when the workspace holds no row of the table for the window. An answer with more rows than
/// its span has minutes is cut to that many, and `notes` says so.
pub async fn gpu_telemetry(
    arm: &Arm,
    workspace: &str,
    trace: &Trace,
    threshold: u32,
    notes: &mut Vec<String>,
) -> Result<Option<Counts>, PullError> {
    let fail = |e| PullError::Arm(with_role(e, LOG_ANALYTICS_READER.name, workspace));
    let guid = arm.workspace_guid(workspace).await.map_err(fail)?;
    let (start, end) = (trace.start, window_end(trace));
    // each answer read by what its question can need: the totals are one row, a span of the
    // per-minute query one row per minute of it (1,440 for a day)
    let ask = |q: String, from: Timestamp, to: Timestamp, max_rows: usize| {
        let guid = &guid;
        async move {
            let a = arm
                .log_query_at(workspace, guid, &q, &format!("{from}/{to}"), max_rows)
                .await
                .map_err(|e| PullError::Arm(with_role(e, LOG_ANALYTICS_READER.name, workspace)))?;
            Ok::<LogAnswer, PullError>(a)
        }
    };
    let first = ask(totals_query(start, end), start, end, 1).await?;
    let Some(mut counts) = totals(workspace, &first.value)? else {
        return Ok(None);
    };
    let minutes = trace.minutes();
    for (from, to) in days(end, minutes as u64).map_err(PullError::Trace)? {
        let need = (to.duration_since(from).as_secs().max(0) as usize).div_ceil(60);
        let answer = ask(telemetry_query(from, to, threshold), from, to, need).await?;
        if let Some(cut) = answer.cut() {
            notes.push(format!(
                "the workspace {} answered {} rows for {from} to {to}, where one per minute makes at most {need}: the {cut} after the first {need} were left out (read, not kept)",
                workspace.rsplit('/').next().unwrap_or(workspace),
                answer.rows
            ));
        }
        add_minutes(&mut counts, workspace, start, minutes, &answer.value)?;
    }
    Ok(Some(counts))
}

/// The workspace's answer to [`totals_query`] read as the counts of the window, its minutes
/// still empty; `None` when the window holds no row.
pub fn totals(workspace: &str, answer: &Value) -> Result<Option<Counts>, PullError> {
    let rows = table(answer, workspace)?;
    let Some(t) = rows.first() else {
        return Err(malformed(workspace, "the totals query answered no row"));
    };
    let n = int(t, "Rows", workspace)?;
    if n == 0 {
        return Ok(None);
    }
    Ok(Some(Counts {
        source: format!(
            "{TABLE} in the workspace {}",
            workspace.rsplit('/').next().unwrap_or(workspace)
        ),
        rows: n as usize,
        vms: int(t, "Computers", workspace)? as usize,
        impossible: int(t, "Impossible", workspace)? as usize,
        ..Counts::default()
    }))
}

/// The workspace's answer to one span's [`telemetry_query`] added to `counts`: each row's
/// minute of the window `[start, start + minutes)` (rows outside it are left out), its VMs and
/// idle VMs, and its samples.
pub fn add_minutes(
    counts: &mut Counts,
    workspace: &str,
    start: Timestamp,
    minutes: usize,
    answer: &Value,
) -> Result<(), PullError> {
    // cells as the REST specification's example writes them (a `datetime` RFC 3339 UTC with
    // `Z`, a `long` as a string): azure-rest-api-specs .../data-plane/Microsoft.OperationalInsights/
    // stable/v1/examples/oms-get-example.json @ 90beff1a, read 2026-12-04
    // (`tests/fixtures/sources/log-query-api.json`, held by `tests/facts_log_query.rs`)
    for r in table(answer, workspace)? {
        let when = r.get("Minute").and_then(Value::as_str).unwrap_or_default();
        let ts: Timestamp = when.parse().map_err(|_| {
            malformed(
                workspace,
                &format!("Minute `{}` is not a time", crate::diag::clip(when)),
            )
        })?;
        if ts < start {
            continue;
        }
        let minute = (ts.duration_since(start).as_secs() / 60) as usize;
        if minute >= minutes {
            continue;
        }
        let (n, idle, samples) = (
            int(&r, "Instances", workspace)?,
            int(&r, "Idle", workspace)?,
            int(&r, "Samples", workspace)?,
        );
        let m = counts.per_minute.entry(minute).or_default();
        m.0 = m.0.saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
        m.1 = m.1.saturating_add(u32::try_from(idle).unwrap_or(u32::MAX));
        counts.rows_in_window += samples as usize;
    }
    Ok(())
}

fn malformed(workspace: &str, what: &str) -> PullError {
    PullError::Telemetry(format!(
        "the Logs Query API's answer for the workspace {workspace} is not the table gpuform asked for: {what}"
    ))
}

/// The first table of a Logs Query API answer (`tables[{name, columns[{name, type}], rows}]`),
/// its rows keyed by column name. A 200 that carries an `error` (a partial result: Learn's
/// OneAPI error object) or no table is refused: counting part of the rows would understate the
/// pool.
fn table(v: &Value, workspace: &str) -> Result<Vec<BTreeMap<String, Value>>, PullError> {
    if let Some(e) = v.get("error").filter(|e| !e.is_null()) {
        let msg = e
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("no message");
        let code = e.get("code").and_then(Value::as_str).unwrap_or("error");
        return Err(malformed(
            workspace,
            &format!("it reports {code}: {}", crate::diag::clip(msg)),
        ));
    }
    let t = v
        .pointer("/tables/0")
        .ok_or_else(|| malformed(workspace, "no `tables`"))?;
    let cols: Vec<&str> = t
        .get("columns")
        .and_then(Value::as_array)
        .ok_or_else(|| malformed(workspace, "the table has no `columns`"))?
        .iter()
        .map(|c| c.get("name").and_then(Value::as_str).unwrap_or(""))
        .collect();
    let rows = t
        .get("rows")
        .and_then(Value::as_array)
        .ok_or_else(|| malformed(workspace, "the table has no `rows`"))?;
    rows.iter()
        .map(|r| {
            let r = r
                .as_array()
                .filter(|r| r.len() == cols.len())
                .ok_or_else(|| malformed(workspace, "a row does not match the columns"))?;
            Ok(cols
                .iter()
                .map(|c| c.to_string())
                .zip(r.iter().cloned())
                .collect())
        })
        .collect()
}

/// A count column: a non-negative whole number (JSON number; `long` may come as a string).
fn int(row: &BTreeMap<String, Value>, col: &str, workspace: &str) -> Result<u64, PullError> {
    match row.get(col) {
        Some(Value::Number(n)) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.is_finite() && *f >= 0.0 && f.fract() == 0.0)
                .map(|f| f as u64)
        }),
        Some(Value::String(s)) => s.parse().ok(),
        _ => None,
    }
    .ok_or_else(|| {
        malformed(
            workspace,
            &format!("the column `{col}` is missing or not a count"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    #[test]
    fn the_window_is_whole_days_of_absolute_time_then_the_rest() {
        // across Europe's autumn clock change (2026-10-25 01:00 UTC): 24 h spans all the same
        let d = days(t("2026-10-26T06:30:42Z"), 60 * 60).unwrap();
        assert_eq!(d.first().unwrap().0, t("2026-10-23T18:30:00Z"));
        assert_eq!(d.last().unwrap().1, t("2026-10-26T06:30:00Z"));
        let hours: Vec<i64> = d
            .iter()
            .map(|(a, b)| b.duration_since(*a).as_secs() / 3600)
            .collect();
        assert_eq!(hours, [24, 24, 12]);
        assert!(d.windows(2).all(|w| w[0].1 == w[1].0));
        // at most 93 days
        assert_eq!(
            days(t("2026-10-26T00:00:00Z"), 200 * 1440).unwrap().len(),
            93
        );
        assert!(days(t("2026-10-26T00:00:00Z"), 0).unwrap().is_empty());
    }

    #[test]
    fn the_queries_summarise_in_the_workspace_within_the_span() {
        let (a, b) = (t("2026-11-01T00:00:00Z"), t("2026-11-02T00:00:00Z"));
        let q = telemetry_query(a, b, 10);
        assert!(q.starts_with("GpuTelemetry_CL\n"), "{q}");
        assert!(
            q.contains("datetime(2026-11-01T00:00:00Z)")
                && q.contains("datetime(2026-11-02T00:00:00Z)")
        );
        assert!(
            q.contains("by Minute = bin(TimeGenerated, 1m), Computer"),
            "{q}"
        );
        assert!(q.contains("Idle = countif(Utilization < 10)"), "{q}");
        // a row without a Computer names no VM (tests/simulate_pull_kql.rs)
        assert!(
            q.contains("| where isnotempty(Computer)\n| summarize"),
            "{q}"
        );
        assert!(totals_query(a, b).contains("dcountif(Computer, Valid and isnotempty(Computer))"));
        assert!(totals_query(a, b).contains("summarize Rows = count()"));
    }

    #[test]
    fn an_answer_that_is_not_the_table_is_refused() {
        let ok = serde_json::json!({"tables": [{"name": "PrimaryResult",
            "columns": [{"name": "Rows", "type": "long"}, {"name": "Computers", "type": "long"}],
            "rows": [[12, "3"]]}]});
        let rows = table(&ok, "ws").unwrap();
        assert_eq!(int(&rows[0], "Rows", "ws").unwrap(), 12);
        assert_eq!(int(&rows[0], "Computers", "ws").unwrap(), 3);
        assert!(int(&rows[0], "Impossible", "ws").is_err());
        for bad in [
            serde_json::json!({}),
            serde_json::json!({"tables": [{"columns": []}]}),
            serde_json::json!({"tables": [{"columns": [{"name": "Rows"}], "rows": [[1, 2]]}]}),
            serde_json::json!({"tables": [], "error": {"code": "PartialError", "message": "limits"}}),
        ] {
            assert!(
                matches!(table(&bad, "ws"), Err(PullError::Telemetry(_))),
                "{bad}"
            );
        }
        let neg = serde_json::json!({"tables": [{"columns": [{"name": "Rows"}], "rows": [[-1]]}]});
        assert!(int(&table(&neg, "ws").unwrap()[0], "Rows", "ws").is_err());
    }
}
