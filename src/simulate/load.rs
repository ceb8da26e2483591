//! Load traces: a CSV of job arrivals per minute, the JSON `az monitor metrics list` writes, and
//! a seeded synthetic weekly pattern.

use jiff::Timestamp;
use jiff::tz::TimeZone;
use rand_core::{Rng, SeedableRng};
use serde::Serialize;

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
                crate::diag::clip(header.1.trim())
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
                format!(
                    "`{}` has no comma; expected `timestamp,arrivals`",
                    crate::diag::clip(l.trim())
                ),
            ));
        };
        let t = minute_of(ts).ok_or_else(|| {
            err(
                line,
                format!(
                    "`{}` is not an ISO 8601 UTC timestamp (e.g. 2026-11-02T18:05:00Z)",
                    crate::diag::clip(ts.trim())
                ),
            )
        })?;
        if t.as_second().rem_euclid(60) != 0 || t.subsec_nanosecond() != 0 {
            return Err(err(
                line,
                format!(
                    "`{}` is not on a whole minute",
                    crate::diag::clip(ts.trim())
                ),
            ));
        }
        let n: u32 = n.trim().parse().map_err(|_| {
            err(
                line,
                format!(
                    "`{}` is not a whole number of arrivals (0 or more)",
                    crate::diag::clip(n.trim())
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
                    crate::diag::clip(ts.trim())
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

impl Kind {
    fn of(metric: &str) -> Option<Kind> {
        match metric {
            "IncomingMessages" => Some(Kind::Incoming),
            "Transactions" => Some(Kind::PutMessage),
            "ActiveMessages" | "QueueMessageCount" | "Messages" => Some(Kind::Gauge),
            _ => None,
        }
    }
}

/// The longest `interval` accepted: the longest trace. Azure Monitor's time grains go up to
/// `P1D` (PT1M, PT5M, PT15M, PT30M, PT1H, PT6H, PT12H, P1D:
/// <https://learn.microsoft.com/en-us/javascript/api/@azure/arm-mixedreality/metricspecification>,
/// `supportedTimeGrainTypes`, read 2026-12-03); a longer interval is accepted up to a year (an
/// aggregate over a custom range), and spreading it costs the same as a minute's.
pub const MAX_INTERVAL_SECS: u64 = MAX_MINUTES as u64 * 60;

/// One data point, compact: seconds since the epoch and the aggregations (NaN = absent).
#[derive(Debug, Clone, Copy)]
struct Point {
    t: i64,
    /// total, count, average, maximum
    v: [f64; 4],
}

impl Point {
    fn value(&self, gauge: bool) -> Option<f64> {
        let order: [usize; 3] = if gauge { [2, 3, 0] } else { [0, 1, 2] };
        order.iter().map(|&i| self.v[i]).find(|x| !x.is_nan())
    }
}

impl<'de> serde::Deserialize<'de> for Point {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        struct Raw<'a> {
            #[serde(rename = "timeStamp", borrow, default)]
            time_stamp: Option<std::borrow::Cow<'a, str>>,
            #[serde(default)]
            total: Option<f64>,
            #[serde(default)]
            count: Option<f64>,
            #[serde(default)]
            average: Option<f64>,
            #[serde(default)]
            maximum: Option<f64>,
        }
        let r = Raw::deserialize(d)?;
        let Some(ts) = r.time_stamp else {
            return Err(serde::de::Error::custom("a data point has no `timeStamp`"));
        };
        let Some(t) = minute_of(&ts) else {
            return Err(serde::de::Error::custom(format!(
                "the data point's timeStamp `{}` is not an ISO 8601 UTC time",
                crate::diag::clip(&ts)
            )));
        };
        let n = |x: Option<f64>| x.filter(|x| x.is_finite()).unwrap_or(f64::NAN);
        Ok(Point {
            t: t.as_second(),
            v: [n(r.total), n(r.count), n(r.average), n(r.maximum)],
        })
    }
}

/// A JSON array read element by element, keeping only the elements `keep` returns: an array of a
/// million empty objects costs nothing but the time to read it.
struct Filtered<T>(Vec<T>);

trait Keep: Sized {
    fn keep(self) -> Option<Self>;
}

impl<'de, T: serde::Deserialize<'de> + Keep> serde::Deserialize<'de> for Filtered<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: serde::Deserialize<'de> + Keep> serde::de::Visitor<'de> for V<T> {
            type Value = Filtered<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(x) = a.next_element::<T>()? {
                    if let Some(x) = x.keep() {
                        out.push(x);
                    }
                }
                Ok(Filtered(out))
            }
        }
        d.deserialize_seq(V(std::marker::PhantomData))
    }
}

impl<T> Default for Filtered<T> {
    fn default() -> Self {
        Filtered(Vec::new())
    }
}

#[derive(serde::Deserialize, Default)]
struct Name {
    #[serde(default)]
    value: Option<String>,
}

#[derive(serde::Deserialize)]
struct MetaValue {
    #[serde(default)]
    name: Name,
    #[serde(default)]
    value: Option<String>,
}

impl Keep for MetaValue {
    fn keep(self) -> Option<Self> {
        let n = self.name.value.as_deref()?;
        (n.eq_ignore_ascii_case("entityname") || n.eq_ignore_ascii_case("apiname")).then_some(self)
    }
}

#[derive(serde::Deserialize)]
struct RawSeries {
    #[serde(default)]
    metadatavalues: Filtered<MetaValue>,
    #[serde(default)]
    data: Vec<Point>,
}

impl Keep for RawSeries {
    fn keep(self) -> Option<Self> {
        Some(self)
    }
}

impl RawSeries {
    fn meta(&self, key: &str) -> Option<&str> {
        self.metadatavalues
            .0
            .iter()
            .find(|m| {
                m.name
                    .value
                    .as_deref()
                    .is_some_and(|n| n.eq_ignore_ascii_case(key))
            })
            .and_then(|m| m.value.as_deref())
    }
}

#[derive(serde::Deserialize)]
struct RawMetric {
    #[serde(default)]
    name: Name,
    #[serde(default)]
    timeseries: Filtered<RawSeries>,
}

impl Keep for RawMetric {
    /// Every metric is kept for its name (the error lists what was found), without its series
    /// unless it is one arrivals are read from.
    fn keep(mut self) -> Option<Self> {
        if self.name.value.as_deref().and_then(Kind::of).is_none() {
            self.timeseries = Filtered::default();
        }
        Some(self)
    }
}

#[derive(serde::Deserialize)]
struct RawDoc {
    #[serde(default)]
    interval: Option<String>,
    #[serde(default)]
    value: Option<Filtered<RawMetric>>,
}

/// The top level: one `az monitor metrics list` answer or an array of them; each checked as it
/// is read, so a file of a million `{}` stops at the first.
struct Docs(Vec<RawDoc>);

fn check_doc<E: serde::de::Error>(d: &RawDoc) -> Result<(), E> {
    if d.value.is_none() {
        return Err(E::custom(
            "this is not `az monitor metrics list` output: no `value` array of metrics",
        ));
    }
    Ok(())
}

impl<'de> serde::Deserialize<'de> for Docs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Docs;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("`az monitor metrics list` output (an object, or an array of them)")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Docs, A::Error> {
                let mut out = Vec::new();
                while let Some(doc) = a.next_element::<RawDoc>()? {
                    check_doc(&doc)?;
                    out.push(doc);
                }
                Ok(Docs(out))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, a: A) -> Result<Docs, A::Error> {
                let doc = <RawDoc as serde::Deserialize>::deserialize(
                    serde::de::value::MapAccessDeserializer::new(a),
                )?;
                check_doc(&doc)?;
                Ok(Docs(vec![doc]))
            }
        }
        d.deserialize_any(V)
    }
}

struct Series {
    kind: Kind,
    metric: String,
    entity: Option<String>,
    interval_min: i64,
    points: Vec<Point>,
}

/// `az monitor metrics list -o json` (the REST `Metrics - List` response): `{interval,
/// value: [{name: {value}, timeseries: [{metadatavalues, data: [{timeStamp, total|average…}]}]}]}`.
/// Several files' worth may be concatenated into a JSON array.
///
/// Read without a JSON tree (the points are kept compact, other metrics' series dropped as they
/// are read), and every loop is bounded by the input's size or [`MAX_MINUTES`]: an interval's
/// total is spread over its minutes through a difference array, not minute by minute.
pub fn parse_az_json(file: &str, text: &str, entity: Option<&str>) -> Result<Trace, LoadError> {
    let jerr = |message: String| LoadError::Json {
        file: file.to_string(),
        message,
    };
    let docs: Docs = serde_json::from_str(text).map_err(|e| {
        let m = e.to_string();
        if m.contains("az monitor metrics list") || m.contains("timeStamp") {
            jerr(m)
        } else {
            jerr(format!("not valid JSON: {m}"))
        }
    })?;
    let mut series: Vec<Series> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for d in docs.0 {
        let interval = d.interval.unwrap_or_else(|| "PT1M".to_string());
        let secs = crate::spec::schedule::parse_duration(&interval).ok_or_else(|| {
            jerr(format!(
                "interval `{}` is not an ISO 8601 duration",
                crate::diag::clip(&interval)
            ))
        })?;
        if secs == 0 || secs > MAX_INTERVAL_SECS {
            return Err(jerr(format!(
                "interval `{}` is {}; an interval is more than 0 and at most a year (P366D)",
                crate::diag::clip(&interval),
                if secs == 0 {
                    "zero"
                } else {
                    "longer than a year"
                }
            )));
        }
        let interval_min = (secs / 60).max(1) as i64;
        for m in d.value.unwrap_or_default().0 {
            let name = m.name.value.unwrap_or_default();
            if seen.len() < 32 && !seen.contains(&name) {
                seen.push(name.clone());
            }
            let Some(base) = Kind::of(&name) else {
                continue;
            };
            for ts in m.timeseries.0 {
                if base == Kind::PutMessage && ts.meta("apiname") != Some("PutMessage") {
                    continue;
                }
                series.push(Series {
                    kind: base,
                    metric: name.clone(),
                    entity: ts.meta("entityname").map(str::to_string),
                    interval_min,
                    points: ts.data,
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
    let listed = || {
        let shown: Vec<String> = entities
            .iter()
            .take(20)
            .map(|e| crate::diag::clip(e).into_owned())
            .collect();
        let more = entities.len().saturating_sub(20);
        if more > 0 {
            format!("{} and {more} more", shown.join(", "))
        } else {
            shown.join(", ")
        }
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
            "no time series for the queue `{}`; the EntityName values present are {}",
            crate::diag::clip(want),
            listed()
        )));
    }
    if entity.is_none() && entities.len() > 1 {
        return Err(jerr(format!(
            "the metrics are split over several queues ({}); say which with --entity",
            listed()
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
                if seen.is_empty() {
                    "none".to_string()
                } else {
                    seen.iter().map(|s| crate::diag::clip(s).into_owned()).collect::<Vec<_>>().join(", ")
                }
            ))
        })?;
    // merge the chosen series (one per entity after the filter; several files concatenate)
    let start = pick
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.t))
        .min()
        .ok_or_else(|| LoadError::Empty {
            file: file.to_string(),
        })?;
    let start = start - start.rem_euclid(60);
    // timestamps are within jiff's range (±10^4 years) and intervals within a year: no overflow
    let end = pick
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.t + 60 * s.interval_min))
        .max()
        .unwrap_or(start + 60);
    let minutes = ((end - start) / 60) as usize;
    if minutes > MAX_MINUTES {
        return Err(LoadError::TooLong {
            file: file.to_string(),
        });
    }
    // difference arrays: an interval adds its share at its first minute and takes it back after
    // its last, so each point costs O(1) whatever its interval
    let mut diff = vec![0f64; minutes + 1];
    let mut cover = vec![0i64; minutes + 1];
    let kind = pick[0].kind;
    for s in &pick {
        let mut prev: Option<f64> = None;
        for p in &s.points {
            let i0 = ((p.t - start) / 60) as usize;
            let Some(v) = p.value(kind == Kind::Gauge) else {
                prev = None;
                continue;
            };
            // a count beyond what a minute can hold is the file's error, not a reason to overflow
            let v = v.clamp(0.0, f64::from(u32::MAX));
            let amount = match kind {
                Kind::Gauge => {
                    let inc = prev.map_or(0.0, |p| (v - p).max(0.0));
                    prev = Some(v);
                    inc
                }
                _ => v,
            };
            let k = s.interval_min as usize;
            let hi = (i0 + k).min(minutes);
            diff[i0] += amount / k as f64;
            diff[hi] -= amount / k as f64;
            cover[i0] += 1;
            cover[hi] -= 1;
        }
    }
    // whole arrivals, carrying the fractions so the total is kept
    let mut arrivals = Vec::with_capacity(minutes);
    let mut missing = Vec::with_capacity(minutes);
    let (mut level, mut covered, mut carry) = (0f64, 0i64, 0f64);
    for i in 0..minutes {
        level += diff[i];
        covered += cover[i];
        if covered == 0 {
            // no interval covers this minute: exactly nothing (no rounding residue)
            level = 0.0;
        }
        let want = level.max(0.0) + carry;
        let n = want.round().max(0.0);
        carry = if (want - n).is_finite() {
            want - n
        } else {
            0.0
        };
        arrivals.push(n.min(f64::from(u32::MAX)) as u32);
        missing.push(covered == 0);
    }
    let what = match kind {
        Kind::Incoming => "IncomingMessages (Total)".to_string(),
        Kind::PutMessage => "Transactions with ApiName = PutMessage (Total)".to_string(),
        Kind::Gauge => format!(
            "{} increases: a lower bound on arrivals (export IncomingMessages for the real count)",
            pick[0].metric
        ),
    };
    Ok(Trace {
        start: Timestamp::from_second(start).map_err(|e| jerr(e.to_string()))?,
        arrivals,
        missing,
        source: format!(
            "{file} (Azure Monitor metrics: {what}{})",
            pick[0]
                .entity
                .as_ref()
                .map(|e| format!(", EntityName {}", crate::diag::clip(e)))
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

    fn az(interval: &str, points: &str) -> String {
        format!(
            r#"{{"interval": "{interval}", "value": [{{"name": {{"value": "IncomingMessages"}}, "timeseries": [{{"metadatavalues": [], "data": [{points}]}}]}}]}}"#
        )
    }

    #[test]
    fn a_wrapping_interval_is_refused_at_once() {
        let start = std::time::Instant::now();
        let text = az(
            "PT18446744073709551600S",
            r#"{"timeStamp": "2026-11-02T00:00:00Z", "total": 5}"#,
        );
        let e = parse("t.json", &text, None).unwrap_err();
        assert!(e.to_string().contains("at most a year"), "{e}");
        for bad in ["PT0S", "P367D", "P99999999999999999999D", "P", "PT"] {
            let e = parse(
                "t.json",
                &az(bad, r#"{"timeStamp": "2026-11-02T00:00:00Z", "total": 5}"#),
                None,
            )
            .unwrap_err();
            assert!(matches!(e, LoadError::Json { .. }), "{bad}: {e}");
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn many_points_over_a_long_interval_cost_their_number_not_their_span() {
        let point = r#"{"timeStamp": "2026-11-02T00:00:00Z", "total": 432000},"#;
        let mut points = point.repeat(100_000);
        points.pop();
        let start = std::time::Instant::now();
        let t = parse("t.json", &az("P300D", &points), None).unwrap();
        assert!(
            start.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        assert_eq!(t.minutes(), 300 * 1440);
        // 100,000 points of 432,000 over 432,000 minutes: 100,000 a minute, the total kept
        assert_eq!(t.arrivals[0], 100_000);
        assert_eq!(t.jobs(), 100_000 * 432_000);
        assert!(t.missing.iter().all(|m| !m));
    }

    #[test]
    fn spreading_keeps_totals_and_gaps() {
        // PT5M: 10 over minutes 0..5, nothing in 5..10, 3 over 10..15
        let t = parse(
            "t.json",
            &az(
                "PT5M",
                r#"{"timeStamp": "2026-11-02T00:00:00Z", "total": 10}, {"timeStamp": "2026-11-02T00:10:00Z", "total": 3}"#,
            ),
            None,
        )
        .unwrap();
        assert_eq!(t.minutes(), 15);
        assert_eq!(t.jobs(), 13);
        assert_eq!(&t.arrivals[5..10], &[0, 0, 0, 0, 0]);
        assert_eq!(t.missing.iter().filter(|m| **m).count(), 5);
        // huge values are capped, not wrapped; the total never goes negative
        let t = parse(
            "t.json",
            &az("PT1M", r#"{"timeStamp": "2026-11-02T00:00:00Z", "total": 1e308}, {"timeStamp": "2026-11-02T00:01:00Z", "total": -5}"#),
            None,
        )
        .unwrap();
        assert_eq!(t.arrivals, vec![u32::MAX, 0]);
    }

    #[test]
    fn a_file_of_empty_objects_stops_at_the_first() {
        let mut text = "{},".repeat(1_000_000);
        text.pop();
        let text = format!("[{text}]");
        let start = std::time::Instant::now();
        let e = parse("t.json", &text, None).unwrap_err();
        assert!(e.to_string().contains("no `value` array"), "{e}");
        assert!(e.to_string().len() < 400, "{e}");
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
        // and within a document: a million empty data points stop at the first too
        let mut pts = "{},".repeat(1_000_000);
        pts.pop();
        let e = parse("t.json", &az("PT1M", &pts), None).unwrap_err();
        assert!(e.to_string().contains("timeStamp"), "{e}");
    }

    #[test]
    fn a_huge_value_is_not_echoed_whole() {
        let big = "9".repeat(5_000_000);
        let text = format!("timestamp,arrivals\n2026-11-02T00:00:00Z,{big}\n");
        let e = parse("t.csv", &text, None).unwrap_err();
        assert!(e.to_string().len() < 400, "{} bytes", e.to_string().len());
        assert!(e.to_string().contains("5000000 bytes"), "{e}");
    }
}
