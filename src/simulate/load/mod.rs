//! Load traces: a CSV of job arrivals per minute, the JSON `az monitor metrics list` writes, and
//! a seeded synthetic weekly pattern.

mod az_json;
mod change;
mod csv;
mod synthetic;
mod trace;

#[cfg(test)]
mod tests;

pub use az_json::{MAX_INTERVAL_SECS, parse_az_json, parse_az_json_expecting};
pub use change::LoadChange;
pub use csv::{parse_csv, parse_csv_expecting};
pub use synthetic::{Synthetic, Window};
pub use trace::{LoadError, MAX_MINUTES, Measure, Trace};

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

/// [`parse`], reading only what `expect` counts (a serving spec's requests, a queue's jobs) and
/// refusing a file of the other kind, located; returns what the trace counts.
pub fn parse_expecting(
    file: &str,
    text: &str,
    entity: Option<&str>,
    expect: Option<Measure>,
) -> Result<(Trace, Measure), LoadError> {
    let t = text.trim_start_matches('\u{feff}');
    if t.trim_start().starts_with('{') || t.trim_start().starts_with('[') {
        parse_az_json_expecting(file, t, entity, expect)
    } else {
        parse_csv_expecting(file, t, expect)
    }
}
