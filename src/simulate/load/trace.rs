//! A trace (job arrivals per minute) and why one cannot be read.

use jiff::Timestamp;
use serde::Serialize;

/// The longest trace accepted (one year of minutes): bounds memory on hostile input.
pub const MAX_MINUTES: usize = 366 * 24 * 60;

/// Job arrivals per minute from `start` (UTC, on a minute boundary).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Trace {
    #[serde(serialize_with = "ser_ts")]
    pub start: Timestamp,
    pub arrivals: Vec<u32>,
    /// Minutes for which the source had no data point (Azure metrics `null`): the queue metric
    /// is missing then, which is what autoscale's default capacity is for.
    pub missing: Vec<bool>,
    /// What the trace was read from, in words.
    pub source: String,
}

fn ser_ts<S: serde::Serializer>(t: &Timestamp, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&t.to_string())
}

impl Trace {
    pub fn minutes(&self) -> usize {
        self.arrivals.len()
    }
    pub fn jobs(&self) -> u64 {
        self.arrivals.iter().map(|&a| u64::from(a)).sum()
    }
}

/// What a trace counts: a queue's jobs (`arrivals`) or a gateway's requests (`requests`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Measure {
    Jobs,
    Requests,
}

/// Why a trace cannot be read; `line` is 1-based where it applies.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum LoadError {
    #[error("{file}:{line}: {message}")]
    Csv {
        file: String,
        line: usize,
        message: String,
    },
    #[error("{file}: {message}")]
    Json { file: String, message: String },
    #[error("{file}: the trace is empty (no data rows)")]
    Empty { file: String },
    #[error("{file}: the trace spans more than {MAX_MINUTES} minutes (one year)")]
    TooLong { file: String },
}

impl LoadError {
    pub fn help(&self) -> &'static str {
        match self {
            LoadError::Csv { .. } => {
                "a CSV trace has the header `timestamp,arrivals` (queue jobs) or `timestamp,requests` (a request-driven pool) and one row per minute: `2026-11-02T18:05:00Z,42` (ISO 8601 UTC, whole minutes, increasing; missing minutes count as 0)"
            }
            LoadError::Json { .. } => {
                "export the queue's metrics with `az monitor metrics list --resource NAMESPACE_ID --metric IncomingMessages ActiveMessages --filter \"EntityName eq 'QUEUE'\" --interval PT1M --aggregation Total Average --start-time ... --end-time ... -o json`; a request-driven pool's with `az monitor metrics list --resource GATEWAY_ID --metric TotalRequests FailedRequests --filter \"BackendSettingsPool eq 'POOL~SETTINGS'\" --interval PT1M --aggregation Total --start-time ... --end-time ... -o json`"
            }
            LoadError::Empty { .. } => "the trace needs at least one minute of data",
            LoadError::TooLong { .. } => "simulate at most a year; a few weeks are usually enough",
        }
    }
}

pub(super) fn minute_of(ts: &str) -> Option<Timestamp> {
    let t: Timestamp = ts.trim().parse().ok()?;
    Some(t)
}
