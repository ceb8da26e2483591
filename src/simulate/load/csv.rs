//! A CSV trace: `timestamp,arrivals` (queue jobs) or `timestamp,requests` (a request-driven
//! pool's requests; `time,requests` too), one row per minute.

use jiff::Timestamp;

use super::trace::{LoadError, MAX_MINUTES, Measure, Trace, minute_of};

/// `timestamp,arrivals` (or `timestamp,requests`, `time,requests`) rows, one per minute
/// (missing minutes are 0).
pub fn parse_csv(file: &str, text: &str) -> Result<Trace, LoadError> {
    parse_csv_expecting(file, text, None).map(|(t, _)| t)
}

/// [`parse_csv`], and what the trace counts (its header says: `arrivals` are a queue's jobs,
/// `requests` a gateway's requests). With `expect`, a header of the other measure is refused at
/// its line.
pub fn parse_csv_expecting(
    file: &str,
    text: &str,
    expect: Option<Measure>,
) -> Result<(Trace, Measure), LoadError> {
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
    let known = [
        ["timestamp", "arrivals"],
        ["timestamp", "requests"],
        ["time", "requests"],
    ];
    if !known.iter().any(|k| cols == k) {
        return Err(err(
            header.0,
            format!(
                "the header is `{}`; expected `timestamp,arrivals` (queue jobs) or `timestamp,requests` (requests a minute)",
                crate::diag::clip(header.1.trim())
            ),
        ));
    }
    let measure = if cols[1] == "arrivals" {
        Measure::Jobs
    } else {
        Measure::Requests
    };
    match (expect, measure) {
        (Some(Measure::Requests), Measure::Jobs) => {
            return Err(err(
                header.0,
                "the header `timestamp,arrivals` is a queue's jobs a minute, and the spec is a request-driven pool (serving): its trace is requests a minute, header `timestamp,requests`".into(),
            ));
        }
        (Some(Measure::Jobs), Measure::Requests) => {
            return Err(err(
                header.0,
                format!(
                    "the header `{}` is a gateway's requests a minute, and the spec is queue-driven: its trace is the queue's arrivals, header `timestamp,arrivals`",
                    crate::diag::clip(header.1.trim())
                ),
            ));
        }
        _ => {}
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
                    "`{}` is not a whole number of arrivals or requests (0 or more)",
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
    Ok((
        Trace {
            start,
            arrivals,
            missing,
            source: format!("{file} (CSV)"),
        },
        measure,
    ))
}
