//! Load traces: a CSV of job arrivals per minute, the JSON `az monitor metrics list` writes, and
//! a seeded synthetic weekly pattern.

use jiff::Timestamp;
use jiff::tz::TimeZone;
use rand_core::{Rng, SeedableRng};
use serde::Serialize;
use serde_json::Value;

use super::tz;

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
                "a CSV trace has the header `timestamp,arrivals` and one row per minute: `2026-11-02T18:05:00Z,42` (ISO 8601 UTC, whole minutes, increasing; missing minutes count as 0)"
            }
            LoadError::Json { .. } => {
                "export the queue's metrics with `az monitor metrics list --resource NAMESPACE_ID --metric IncomingMessages ActiveMessages --filter \"EntityName eq 'QUEUE'\" --interval PT1M --aggregation Total Average --start-time ... --end-time ... -o json`"
            }
            LoadError::Empty { .. } => "the trace needs at least one minute of data",
            LoadError::TooLong { .. } => "simulate at most a year; a few weeks are usually enough",
        }
    }
}

/// Read a trace file: Azure metrics JSON (detected by its shape) or CSV.
/// `entity`: the queue to take from metrics split by the `EntityName` dimension.
pub fn parse(file: &str, text: &str, entity: Option<&str>) -> Result<Trace, LoadError> {
    let t = text.trim_start_matches('\u{feff}');
    if t.trim_start().starts_with('{') || t.trim_start().starts_with('[') {
        parse_az_json(file, t, entity)
    } else {
        parse_csv(file, t)
    }
}

fn minute_of(ts: &str) -> Option<Timestamp> {
    let t: Timestamp = ts.trim().parse().ok()?;
    Some(t)
}

/// `timestamp,arrivals` rows, one per minute (missing minutes are 0).
pub fn parse_csv(file: &str, text: &str) -> Result<Trace, LoadError> {
    let err = |line: usize, message: String| LoadError::Csv {
        file: file.to_string(),
        line,
        message,
    };
    let mut lines = text.lines().enumerate();
    let header = loop {
        match lines.next() {
            Some((_, l)) if l.trim().is_empty() => continue,
            Some((i, l)) => break (i + 1, l),
            None => {
                return Err(LoadError::Empty {
                    file: file.to_string(),
                });
            }
        }
    };
    let cols: Vec<String> = header
        .1
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .collect();
    if cols != ["timestamp", "arrivals"] {
        return Err(err(
            header.0,
            format!(
                "the header is `{}`; expected `timestamp,arrivals`",
                header.1.trim()
            ),
        ));
    }
    let mut start: Option<Timestamp> = None;
    let mut last: Option<i64> = None;
    let mut arrivals: Vec<u32> = Vec::new();
    for (i, l) in lines {
        let line = i + 1;
        if l.trim().is_empty() {
            continue;
        }
        let Some((ts, n)) = l.split_once(',') else {
            return Err(err(
                line,
                format!("`{}` has no comma; expected `timestamp,arrivals`", l.trim()),
            ));
        };
        let t = minute_of(ts).ok_or_else(|| {
            err(
                line,
                format!(
                    "`{}` is not an ISO 8601 UTC timestamp (e.g. 2026-11-02T18:05:00Z)",
                    ts.trim()
                ),
            )
        })?;
        if t.as_second().rem_euclid(60) != 0 || t.subsec_nanosecond() != 0 {
            return Err(err(
                line,
                format!("`{}` is not on a whole minute", ts.trim()),
            ));
        }
        let n: u32 = n.trim().parse().map_err(|_| {
            err(
                line,
                format!(
                    "`{}` is not a whole number of arrivals (0 or more)",
                    n.trim()
                ),
            )
        })?;
        let s = *start.get_or_insert(t);
        let idx = (t.as_second() - s.as_second()) / 60;
        if let Some(prev) = last
            && idx <= prev
        {
            return Err(err(
                line,
                format!(
                    "`{}` is not after the previous row; rows must increase by at least a minute",
                    ts.trim()
                ),
            ));
        }
        if idx as usize >= MAX_MINUTES {
            return Err(LoadError::TooLong {
                file: file.to_string(),
            });
        }
        last = Some(idx);
        arrivals.resize(idx as usize, 0);
        arrivals.push(n);
    }
    let Some(start) = start else {
        return Err(LoadError::Empty {
            file: file.to_string(),
        });
    };
    let missing = vec![false; arrivals.len()];
    Ok(Trace {
        start,
        arrivals,
        missing,
        source: format!("{file} (CSV)"),
    })
}

/// The metrics that carry arrivals, in order of preference: Service Bus `IncomingMessages`
/// (messages sent to the entity per interval, Total) and the storage account's `Transactions`
/// with `ApiName = PutMessage` (Total). A gauge of the queue length (`ActiveMessages`,
/// `QueueMessageCount`) gives only a lower bound (its increases); it is used when nothing
/// better is present, and the trace's source says so.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Incoming,
    PutMessage,
    Gauge,
}

struct Series {
    kind: Kind,
    metric: String,
    entity: Option<String>,
    interval_min: i64,
    points: Vec<(Timestamp, Option<f64>)>,
}

fn metadata(ts: &Value, key: &str) -> Option<String> {
    ts.get("metadatavalues")?
        .as_array()?
        .iter()
        .find(|m| {
            m.pointer("/name/value")
                .and_then(Value::as_str)
                .is_some_and(|n| n.eq_ignore_ascii_case(key))
        })
        .and_then(|m| m.get("value")?.as_str().map(str::to_string))
}

/// `az monitor metrics list -o json` (the REST `Metrics - List` response): `{interval,
/// value: [{name: {value}, timeseries: [{metadatavalues, data: [{timeStamp, total|average…}]}]}]}`.
/// Several files' worth may be concatenated into a JSON array.
pub fn parse_az_json(file: &str, text: &str, entity: Option<&str>) -> Result<Trace, LoadError> {
    let jerr = |message: String| LoadError::Json {
        file: file.to_string(),
        message,
    };
    let doc: Value =
        serde_json::from_str(text).map_err(|e| jerr(format!("not valid JSON: {e}")))?;
    let docs: Vec<&Value> = match &doc {
        Value::Array(a) => a.iter().collect(),
        v => vec![v],
    };
    let mut series: Vec<Series> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for d in docs {
        let Some(values) = d.get("value").and_then(Value::as_array) else {
            return Err(jerr(
                "this is not `az monitor metrics list` output: no `value` array of metrics".into(),
            ));
        };
        let interval = d
            .get("interval")
            .and_then(Value::as_str)
            .unwrap_or("PT1M")
            .to_string();
        let interval_min = crate::spec::schedule::parse_duration(&interval)
            .map(|s| (s / 60).max(1) as i64)
            .ok_or_else(|| jerr(format!("interval `{interval}` is not an ISO 8601 duration")))?;
        for m in values {
            let name = m
                .pointer("/name/value")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            seen.push(name.clone());
            let base = match name.as_str() {
                "IncomingMessages" => Some(Kind::Incoming),
                "Transactions" => Some(Kind::PutMessage),
                "ActiveMessages" | "QueueMessageCount" | "Messages" => Some(Kind::Gauge),
                _ => None,
            };
            let Some(base) = base else { continue };
            for ts in m
                .get("timeseries")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if base == Kind::PutMessage
                    && metadata(ts, "apiname").as_deref() != Some("PutMessage")
                {
                    continue;
                }
                let field = if base == Kind::Gauge {
                    ["average", "maximum", "total"]
                } else {
                    ["total", "count", "average"]
                };
                let mut points = Vec::new();
                for p in ts
                    .get("data")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let Some(t) = p
                        .get("timeStamp")
                        .and_then(Value::as_str)
                        .and_then(minute_of)
                    else {
                        return Err(jerr(format!(
                            "a data point of {name} has no valid `timeStamp`: {p}"
                        )));
                    };
                    let v = field.iter().find_map(|f| p.get(*f).and_then(Value::as_f64));
                    points.push((t, v));
                }
                series.push(Series {
                    kind: base,
                    metric: name.clone(),
                    entity: metadata(ts, "entityname"),
                    interval_min,
                    points,
                });
            }
        }
    }
    // the queue: by --entity, else the only one
    let entities: Vec<String> = {
        let mut e: Vec<String> = series.iter().filter_map(|s| s.entity.clone()).collect();
        e.sort();
        e.dedup();
        e
    };
    let wanted = |s: &Series| match (entity, &s.entity) {
        (Some(want), Some(have)) => have.eq_ignore_ascii_case(want),
        _ => true,
    };
    if let Some(want) = entity
        && !entities.is_empty()
        && !entities.iter().any(|e| e.eq_ignore_ascii_case(want))
    {
        return Err(jerr(format!(
            "no time series for the queue `{want}`; the EntityName values present are {}",
            entities.join(", ")
        )));
    }
    if entity.is_none() && entities.len() > 1 {
        return Err(jerr(format!(
            "the metrics are split over several queues ({}); say which with --entity",
            entities.join(", ")
        )));
    }
    let pick = [Kind::Incoming, Kind::PutMessage, Kind::Gauge]
        .into_iter()
        .find_map(|k| {
            let v: Vec<&Series> = series.iter().filter(|s| s.kind == k && wanted(s)).collect();
            (!v.is_empty()).then_some(v)
        })
        .ok_or_else(|| {
            jerr(format!(
                "no queue metric to read arrivals from (found: {}); export IncomingMessages (Service Bus) or Transactions split by ApiName (storage queues)",
                if seen.is_empty() { "none".to_string() } else { seen.join(", ") }
            ))
        })?;
    // merge the chosen series (one per entity after the filter; several files concatenate)
    let start = pick
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .min()
        .ok_or_else(|| LoadError::Empty {
            file: file.to_string(),
        })?;
    let start = Timestamp::from_second(start.as_second() - start.as_second().rem_euclid(60))
        .unwrap_or(start);
    let end = pick
        .iter()
        .flat_map(|s| {
            s.points
                .iter()
                .map(|p| p.0.as_second() + 60 * s.interval_min)
        })
        .max()
        .unwrap_or(start.as_second() + 60);
    let minutes = ((end - start.as_second()) / 60) as usize;
    if minutes > MAX_MINUTES {
        return Err(LoadError::TooLong {
            file: file.to_string(),
        });
    }
    let mut total = vec![0f64; minutes];
    let mut present = vec![false; minutes];
    let kind = pick[0].kind;
    for s in &pick {
        let mut prev: Option<f64> = None;
        for (t, v) in &s.points {
            let i0 = ((t.as_second() - start.as_second()) / 60) as usize;
            let Some(v) = *v else {
                prev = None;
                continue;
            };
            let amount = match kind {
                Kind::Gauge => {
                    let inc = prev.map_or(0.0, |p| (v - p).max(0.0));
                    prev = Some(v);
                    inc
                }
                _ => v.max(0.0),
            };
            // spread an interval's total evenly over its minutes
            let k = s.interval_min as usize;
            for j in 0..k {
                if let Some(slot) = total.get_mut(i0 + j) {
                    *slot += amount / k as f64;
                    present[i0 + j] = true;
                }
            }
        }
    }
    // whole arrivals, carrying the fractions so the total is kept
    let mut arrivals = Vec::with_capacity(minutes);
    let mut carry = 0.0;
    for x in &total {
        let want = x + carry;
        let n = want.round().max(0.0);
        carry = want - n;
        arrivals.push(n.min(f64::from(u32::MAX)) as u32);
    }
    let missing = present.iter().map(|p| !p).collect();
    let what = match kind {
        Kind::Incoming => "IncomingMessages (Total)".to_string(),
        Kind::PutMessage => "Transactions with ApiName = PutMessage (Total)".to_string(),
        Kind::Gauge => format!(
            "{} increases: a lower bound on arrivals (export IncomingMessages for the real count)",
            pick[0].metric
        ),
    };
    Ok(Trace {
        start,
        arrivals,
        missing,
        source: format!(
            "{file} (Azure Monitor metrics: {what}{})",
            pick[0]
                .entity
                .as_ref()
                .map(|e| format!(", EntityName {e}"))
                .unwrap_or_default()
        ),
    })
}

/// A weekly pattern: a base rate, busier windows in a time zone, occasional bursts and Poisson
/// noise, from a seed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Synthetic {
    pub seed: u64,
    pub days: u32,
    /// Start (UTC), a Monday 00:00 by default.
    pub start: String,
    /// Mean arrivals per minute outside any window.
    pub base_per_minute: f64,
    /// Windows with their own rate (a later window overrides an earlier one where they overlap).
    pub windows: Vec<Window>,
    /// Chance per hour of a burst, and its size (extra arrivals per minute for 10 minutes).
    pub burst_per_hour: f64,
    pub burst_per_minute: f64,
}

/// A recurring daily window with its mean arrival rate (local time in a Windows zone).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Window {
    pub time_zone: String,
    /// Minutes after local midnight; `end <= start` wraps past midnight.
    pub start: u32,
    pub end: u32,
    pub per_minute: f64,
}

/// Poisson sample (Knuth for small means, a rounded normal above 30).
fn poisson(rng: &mut impl Rng, mean: f64) -> u32 {
    if mean <= 0.0 {
        return 0;
    }
    if mean > 30.0 {
        let (u1, u2) = (unit(rng).max(1e-12), unit(rng));
        let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        return (mean + z * mean.sqrt()).round().max(0.0) as u32;
    }
    let l = (-mean).exp();
    let mut k = 0u32;
    let mut p = 1.0;
    loop {
        p *= unit(rng);
        if p <= l {
            return k;
        }
        k += 1;
    }
}

fn unit(rng: &mut impl Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

impl Synthetic {
    pub fn generate(&self) -> Result<Trace, String> {
        let start: Timestamp = self
            .start
            .parse()
            .map_err(|e| format!("start `{}`: {e}", self.start))?;
        let minutes = (self.days as usize * 1440).min(MAX_MINUTES);
        let zones: Vec<Option<TimeZone>> = self
            .windows
            .iter()
            .map(|w| tz::zone(&w.time_zone))
            .collect();
        let mut rng = rand_pcg::Pcg64::seed_from_u64(self.seed);
        let mut arrivals = Vec::with_capacity(minutes);
        let mut burst_left = 0u32;
        for i in 0..minutes {
            let t = start
                .checked_add(jiff::SignedDuration::from_mins(i as i64))
                .map_err(|e| e.to_string())?;
            let mut mean = self.base_per_minute;
            for (w, z) in self.windows.iter().zip(&zones) {
                let Some(z) = z else { continue };
                let local = t.to_zoned(z.clone());
                let m = local.hour() as u32 * 60 + local.minute() as u32;
                let inside = if w.end > w.start {
                    m >= w.start && m < w.end
                } else {
                    m >= w.start || m < w.end
                };
                if inside {
                    mean = w.per_minute;
                }
            }
            if burst_left == 0 && unit(&mut rng) < self.burst_per_hour / 60.0 {
                burst_left = 10;
            }
            if burst_left > 0 {
                burst_left -= 1;
                mean += self.burst_per_minute;
            }
            arrivals.push(poisson(&mut rng, mean));
        }
        Ok(Trace {
            start,
            missing: vec![false; arrivals.len()],
            arrivals,
            source: format!(
                "synthetic (seed {}, {} days from {})",
                self.seed, self.days, self.start
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fills_missing_minutes() {
        let t = parse(
            "t.csv",
            "timestamp,arrivals\n2026-11-02T00:00:00Z,3\n2026-11-02T00:03:00Z,1\n",
            None,
        )
        .unwrap();
        assert_eq!(t.arrivals, vec![3, 0, 0, 1]);
        assert_eq!(t.jobs(), 4);
    }

    #[test]
    fn csv_errors_are_located() {
        let e = parse(
            "t.csv",
            "timestamp,arrivals\n2026-11-02T00:00:00Z,3\n2026-11-02T00:00:00Z,1\n",
            None,
        )
        .unwrap_err();
        assert!(matches!(e, LoadError::Csv { line: 3, .. }), "{e}");
        let e = parse("t.csv", "time,n\n", None).unwrap_err();
        assert!(matches!(e, LoadError::Csv { line: 1, .. }));
        let e = parse(
            "t.csv",
            "timestamp,arrivals\n2026-11-02T00:00:30Z,3\n",
            None,
        )
        .unwrap_err();
        assert!(e.to_string().contains("whole minute"));
        let e = parse("t.csv", "timestamp,arrivals\nx,-1\n", None).unwrap_err();
        assert!(e.to_string().contains(":2:"));
        assert!(matches!(
            parse("t.csv", "timestamp,arrivals\n", None),
            Err(LoadError::Empty { .. })
        ));
    }

    #[test]
    fn synthetic_is_deterministic() {
        let s = Synthetic {
            seed: 7,
            days: 1,
            start: "2026-11-02T00:00:00Z".into(),
            base_per_minute: 2.0,
            windows: vec![Window {
                time_zone: "China Standard Time".into(),
                start: 18 * 60,
                end: 23 * 60 + 30,
                per_minute: 20.0,
            }],
            burst_per_hour: 0.1,
            burst_per_minute: 10.0,
        };
        let a = s.generate().unwrap();
        let b = s.generate().unwrap();
        assert_eq!(a, b);
        let mut s2 = s.clone();
        s2.seed = 8;
        assert_ne!(a.arrivals, s2.generate().unwrap().arrivals);
        // 18:00 in Beijing is 10:00 UTC: the window is busier than the night
        let peak: u32 = a.arrivals[10 * 60..15 * 60].iter().sum();
        let night: u32 = a.arrivals[16 * 60..21 * 60].iter().sum();
        assert!(peak > 4 * night, "{peak} vs {night}");
    }
}
