//! The dates an estimate is made on: today (pinned by `GPUFORM_TODAY` for reproducible
//! output), now, and a file's modification day. Shared by `cost` and `simulate`.

use std::path::Path;

/// Today as `YYYY-MM-DD` (`GPUFORM_TODAY` pins it for reproducible output).
pub fn today() -> String {
    if let Ok(t) = std::env::var("GPUFORM_TODAY")
        && !t.is_empty()
    {
        return t;
    }
    let d = time::OffsetDateTime::now_utc().date();
    format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
}

/// Now as RFC 3339 (`GPUFORM_TODAY` pins it to that day's midnight).
pub fn now_rfc3339() -> String {
    if let Ok(t) = std::env::var("GPUFORM_TODAY")
        && !t.is_empty()
    {
        return format!("{t}T00:00:00Z");
    }
    time::OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .map(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .unwrap_or_default()
        })
        .unwrap_or_default()
}

/// The day a file was last modified (`YYYY-MM-DD`; empty when unknown).
pub fn file_date(path: &Path) -> String {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .map(|t| {
            let d = time::OffsetDateTime::from(t).date();
            format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
        })
        .unwrap_or_default()
}
