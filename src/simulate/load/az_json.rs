//! The JSON `az monitor metrics list` writes (the REST `Metrics - List` response).

use jiff::Timestamp;

use super::trace::{LoadError, MAX_MINUTES, Measure, Trace, minute_of};

/// The metrics that carry arrivals, in order of preference: Service Bus `IncomingMessages`
/// (messages sent to the entity per interval, Total) and the storage account's `Transactions`
/// with `ApiName = PutMessage` (Total). A gauge of the queue length (`ActiveMessages`,
/// `QueueMessageCount`) gives only a lower bound (its increases); it is used when nothing
/// better is present, and the trace's source says so.
///
/// A request-driven pool's requests come from its Application Gateway
/// (`Microsoft.Network/applicationGateways`, `../shared/azure/metrics.json`, split by
/// `BackendSettingsPool`): `TotalRequests` ("Count of successful requests that Application
/// Gateway has served", Total) plus `FailedRequests` (Total) where exported; else
/// `AvgRequestCountPerHealthyHost` (Average, requests a minute per healthy host) times
/// `HealthyHostCount` (Average) of the same minute.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Incoming,
    PutMessage,
    Gauge,
    /// `TotalRequests` and `FailedRequests`: summed.
    Requests,
    /// `AvgRequestCountPerHealthyHost`: times the healthy hosts.
    PerHost,
    /// `HealthyHostCount`: only to multiply [`Kind::PerHost`] with.
    Healthy,
}

impl Kind {
    fn of(metric: &str) -> Option<Kind> {
        match metric {
            "IncomingMessages" => Some(Kind::Incoming),
            "Transactions" => Some(Kind::PutMessage),
            "ActiveMessages" | "QueueMessageCount" | "Messages" => Some(Kind::Gauge),
            "TotalRequests" | "FailedRequests" => Some(Kind::Requests),
            "AvgRequestCountPerHealthyHost" => Some(Kind::PerHost),
            "HealthyHostCount" => Some(Kind::Healthy),
            _ => None,
        }
    }

    /// What the metric counts: a queue's jobs or a gateway's requests.
    fn measure(self) -> Measure {
        match self {
            Kind::Incoming | Kind::PutMessage | Kind::Gauge => Measure::Jobs,
            Kind::Requests | Kind::PerHost | Kind::Healthy => Measure::Requests,
        }
    }

    /// Read from the point's average (a gauge or a per-host average), else its total.
    fn averaged(self) -> bool {
        matches!(self, Kind::Gauge | Kind::PerHost | Kind::Healthy)
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
        (n.eq_ignore_ascii_case("entityname")
            || n.eq_ignore_ascii_case("apiname")
            || n.eq_ignore_ascii_case("backendsettingspool"))
        .then_some(self)
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
    /// A [`Kind::PerHost`] series already multiplied by the healthy hosts.
    product: bool,
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
    parse_az_json_expecting(file, text, entity, None).map(|(t, _)| t)
}

/// [`parse_az_json`], and what the trace counts. With `expect`, only the metrics of that
/// measure are read, and a file that has none of them but the other's is refused saying so
/// (a serving spec given a queue's export, or the other way round).
pub fn parse_az_json_expecting(
    file: &str,
    text: &str,
    entity: Option<&str>,
    expect: Option<Measure>,
) -> Result<(Trace, Measure), LoadError> {
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
                    product: false,
                    metric: name.clone(),
                    entity: ts
                        .meta("entityname")
                        .or_else(|| ts.meta("backendsettingspool"))
                        .map(str::to_string),
                    interval_min,
                    points: ts.data,
                });
            }
        }
    }
    if let Some(want) = expect {
        let other: Vec<String> = {
            let mut v: Vec<String> = series
                .iter()
                .filter(|s| s.kind.measure() != want)
                .map(|s| s.metric.clone())
                .collect();
            v.sort();
            v.dedup();
            v
        };
        series.retain(|s| s.kind.measure() == want);
        if series.is_empty() && !other.is_empty() {
            return Err(jerr(match want {
                Measure::Requests => format!(
                    "these are a queue's metrics ({}), and the spec is a request-driven pool (serving): its trace is the Application Gateway's requests; export TotalRequests and FailedRequests split by BackendSettingsPool",
                    other.join(", ")
                ),
                Measure::Jobs => format!(
                    "these are an Application Gateway's request metrics ({}), and the spec is queue-driven: its trace is the queue's arrivals; export IncomingMessages (Service Bus) or Transactions split by ApiName (storage queues)",
                    other.join(", ")
                ),
            }));
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
        let gateway = series.iter().any(|s| s.kind.measure() == Measure::Requests);
        return Err(jerr(format!(
            "no time series for the {} `{}`; the {} values present are {}",
            if gateway { "backend pool" } else { "queue" },
            crate::diag::clip(want),
            if gateway {
                "BackendSettingsPool"
            } else {
                "EntityName"
            },
            listed()
        )));
    }
    if entity.is_none() && entities.len() > 1 {
        return Err(jerr(format!(
            "the metrics are split over several queues or backend pools ({}); say which with --entity",
            listed()
        )));
    }
    // the gateway's per-host average times its healthy hosts, minute by minute
    let per_host = per_host_requests(&series, &wanted).map_err(jerr)?;
    series.extend(per_host);
    let pick = [
        Kind::Incoming,
        Kind::PutMessage,
        Kind::Requests,
        Kind::PerHost,
        Kind::Gauge,
    ]
        .into_iter()
        .find_map(|k| {
            let v: Vec<&Series> = series
                .iter()
                .filter(|s| s.kind == k && wanted(s) && !(k == Kind::PerHost && !s.product))
                .collect();
            (!v.is_empty()).then_some(v)
        })
        .ok_or_else(|| {
            jerr(format!(
                "no queue metric or gateway request metric to read arrivals from (found: {}); export IncomingMessages (Service Bus) or Transactions split by ApiName (storage queues), or the Application Gateway's TotalRequests and FailedRequests (a request-driven pool)",
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
            let Some(v) = p.value(kind.averaged()) else {
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
        Kind::Requests => {
            let mut names: Vec<&str> = pick.iter().map(|s| s.metric.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            format!("Application Gateway {} (Total)", names.join(" + "))
        }
        Kind::PerHost | Kind::Healthy => {
            "Application Gateway AvgRequestCountPerHealthyHost x HealthyHostCount (Average)"
                .to_string()
        }
    };
    let trace = Trace {
        start: Timestamp::from_second(start).map_err(|e| jerr(e.to_string()))?,
        arrivals,
        missing,
        source: format!(
            "{file} (Azure Monitor metrics: {what}{})",
            pick[0]
                .entity
                .as_ref()
                .map(|e| format!(
                    ", {} {}",
                    if matches!(kind, Kind::Requests | Kind::PerHost) {
                        "BackendSettingsPool"
                    } else {
                        "EntityName"
                    },
                    crate::diag::clip(e)
                ))
                .unwrap_or_default()
        ),
    };
    Ok((trace, kind.measure()))
}

/// `AvgRequestCountPerHealthyHost` × `HealthyHostCount` per minute, one series per backend
/// pool: the requests the gateway sent that pool (a minute without a per-host value had no
/// request). A per-host series without its healthy-host count cannot be read.
fn per_host_requests(
    series: &[Series],
    wanted: &dyn Fn(&Series) -> bool,
) -> Result<Vec<Series>, String> {
    let mut out = Vec::new();
    for s in series
        .iter()
        .filter(|s| s.kind == Kind::PerHost && wanted(s))
    {
        let Some(healthy) = series
            .iter()
            .find(|h| h.kind == Kind::Healthy && h.entity == s.entity && wanted(h))
        else {
            return Err(
                "AvgRequestCountPerHealthyHost is a per-host average: export HealthyHostCount beside it (requests = the average x the healthy hosts), or better TotalRequests and FailedRequests".into(),
            );
        };
        if healthy.interval_min != s.interval_min {
            return Err("AvgRequestCountPerHealthyHost and HealthyHostCount have different intervals: export both with the same --interval".into());
        }
        let hosts: std::collections::HashMap<i64, f64> = healthy
            .points
            .iter()
            .filter_map(|p| p.value(true).map(|v| (p.t, v)))
            .collect();
        let points = s
            .points
            .iter()
            .map(|p| {
                let v = match (p.value(true), hosts.get(&p.t)) {
                    (Some(a), Some(h)) => a * h,
                    _ => f64::NAN,
                };
                Point {
                    t: p.t,
                    v: [v, f64::NAN, f64::NAN, f64::NAN],
                }
            })
            .collect();
        out.push(Series {
            kind: Kind::PerHost,
            product: true,
            metric: s.metric.clone(),
            entity: s.entity.clone(),
            interval_min: s.interval_min,
            points,
        });
    }
    Ok(out)
}
