//! Reading "now" out of an Azure Monitor "Metrics - List" answer.

use serde_json::Value;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// The value of the newest point of a "Metrics - List" answer that carries `aggregation`,
/// across its timeseries (by `timeStamp`).
///
/// The answer's last interval starts less than `interval` before the end of its `timespan` (the
/// time of the request), so it holds part of a minute: a sum over it (`Total`, `Count`) counts
/// only the seconds gone and would read as a sudden drop. For those the newest point whose
/// interval ended by the timespan's end is taken; an `Average`, `Minimum` or `Maximum` of the
/// part is a fair reading of now and is kept. Points without a parsable time are taken in the
/// order Azure sends them (oldest first).
pub fn latest_point(v: &Value, aggregation: &str, interval: time::Duration) -> Option<f64> {
    let key = aggregation.to_ascii_lowercase();
    let sums = matches!(key.as_str(), "total" | "count");
    let end = v
        .get("timespan")
        .and_then(Value::as_str)
        .and_then(|t| t.split_once('/'))
        .and_then(|(_, end)| OffsetDateTime::parse(end, &Rfc3339).ok());
    let mut best: Option<(Option<OffsetDateTime>, f64)> = None;
    let points = v
        .pointer("/value/0/timeseries")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .flat_map(|ts| {
            ts.get("data")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        });
    for point in points {
        let Some(value) = point.get(&key).and_then(Value::as_f64) else {
            continue;
        };
        let at = point
            .get("timeStamp")
            .and_then(Value::as_str)
            .and_then(|t| OffsetDateTime::parse(t, &Rfc3339).ok());
        if let (true, Some(at), Some(end)) = (sums, at, end)
            && at + interval > end
        {
            continue;
        }
        let newer = match (&best, at) {
            (Some((Some(b), _)), Some(a)) => a >= *b,
            _ => true,
        };
        if newer {
            best = Some((at, value));
        }
    }
    best.map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::latest_point;

    /// The shape of the REST specification's "Metrics - List" example (one timeseries).
    fn answer(timespan: &str, points: &[(&str, Option<f64>)], agg: &str) -> serde_json::Value {
        let data: Vec<serde_json::Value> = points
            .iter()
            .map(|(t, v)| {
                let mut d = serde_json::json!({ "timeStamp": t });
                if let Some(v) = v {
                    d[agg] = serde_json::json!(v);
                }
                d
            })
            .collect();
        serde_json::json!({
            "cost": 0, "timespan": timespan, "interval": "PT1M",
            "value": [{"name": {"value": "TotalRequests"}, "unit": "Count",
                       "timeseries": [{"metadatavalues": [], "data": data}]}]
        })
    }

    #[test]
    fn a_sum_is_read_from_the_last_whole_minute_and_a_gauge_from_the_newest() {
        let minute = time::Duration::minutes(1);
        // requested at 12:30:40: the 12:30 bucket holds 40 seconds
        let points = [
            ("2026-12-02T12:28:00Z", Some(1200.0)),
            ("2026-12-02T12:29:00Z", Some(1210.0)),
            ("2026-12-02T12:30:00Z", Some(800.0)),
        ];
        let span = "2026-12-02T12:15:40Z/2026-12-02T12:30:40Z";
        assert_eq!(
            latest_point(&answer(span, &points, "total"), "Total", minute),
            Some(1210.0)
        );
        assert_eq!(
            latest_point(&answer(span, &points, "count"), "Count", minute),
            Some(1210.0)
        );
        assert_eq!(
            latest_point(&answer(span, &points, "average"), "Average", minute),
            Some(800.0)
        );
        // a whole last minute is read as it is; minutes without a value are skipped
        let points = [
            ("2026-12-02T12:28:00Z", Some(1200.0)),
            ("2026-12-02T12:29:00Z", None),
        ];
        let span = "2026-12-02T12:15:00Z/2026-12-02T12:30:00Z";
        assert_eq!(
            latest_point(&answer(span, &points, "total"), "Total", minute),
            Some(1200.0)
        );
        // no timeseries (an idle gateway's failures): nothing to read
        assert_eq!(
            latest_point(&answer(span, &[], "total"), "Total", minute),
            None
        );
    }

    #[test]
    fn the_newest_point_wins_across_timeseries() {
        let v = serde_json::json!({
            "timespan": "2026-12-02T12:15:00Z/2026-12-02T12:30:00Z",
            "value": [{"timeseries": [
                {"data": [{"timeStamp": "2026-12-02T12:27:00Z", "average": 7.0}]},
                {"data": [{"timeStamp": "2026-12-02T12:25:00Z", "average": 3.0}]}
            ]}]
        });
        assert_eq!(
            latest_point(&v, "Average", time::Duration::minutes(1)),
            Some(7.0)
        );
    }
}
