//! The workload model: how long a job takes, how many run at once on one VM, how long a new VM
//! needs before it serves, and how often Spot instances are evicted.

use serde::Serialize;

use crate::spec::model::Spec;
use crate::spec::schedule::parse_duration;

/// Job time and concurrency of the pool, and what a new instance costs in time.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Workload {
    /// Minutes one job occupies one slot, rounded up to whole minutes (shown for reference; the
    /// engine runs jobs for exactly `job_seconds`).
    pub job_minutes: u32,
    /// Seconds one job occupies one slot, exactly as given (`PT45S` is 45 s, `PT3M30S` 210 s).
    pub job_seconds: u64,
    /// Slots per instance (`workload.concurrentJobsPerInstance`).
    pub concurrency: u32,
    /// Minutes from the scale-out action until a new instance serves (boot + extensions + driver).
    pub provisioning_minutes: u32,
    /// Where the provisioning delay came from (flag, or the size family default and its source).
    pub provisioning_source: String,
    /// Spot evictions per Spot instance-hour (0: none).
    pub spot_evictions_per_hour: f64,
}

pub use crate::spec::provisioning::{
    PROVISIONING_DEFAULTS, PROVISIONING_FALLBACK, provisioning_default,
};

/// The command line's duration parser, shared with the spec (one place: `spec::schedule`).
pub use crate::spec::schedule::parse_flag_duration;

/// Whole minutes, rounding up (for display and for minute-grained settings).
pub fn ceil_minutes(secs: u64) -> u32 {
    secs.div_ceil(60).min(u64::from(u32::MAX)) as u32
}

/// What the command line overrides.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub job_duration_secs: Option<u64>,
    pub provisioning_secs: Option<u64>,
    pub concurrency: Option<u32>,
    pub spot_evictions_per_hour: Option<f64>,
}

/// Why a workload model cannot be built.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ModelError {
    #[error(
        "no job duration: the spec has no `workload.jobDuration` and no --job-duration was given"
    )]
    NoJobDuration,
    #[error("`workload.jobDuration` is not an ISO 8601 duration: {0}")]
    BadJobDuration(String),
    #[error("the job duration must be longer than zero")]
    ZeroJob,
}

impl Workload {
    /// The job time in minutes, exact (`PT45S` is 0.75).
    pub fn job_minutes_exact(&self) -> f64 {
        self.job_seconds.max(1) as f64 / 60.0
    }

    /// The job time as people read it: `2 min`, `3 min 30 s`, `45 s`.
    pub fn job_time_text(&self) -> String {
        let (m, sec) = (self.job_seconds / 60, self.job_seconds % 60);
        match (m, sec) {
            (0, s) => format!("{s} s"),
            (m, 0) => format!("{m} min"),
            (m, s) => format!("{m} min {s} s"),
        }
    }

    /// The spec's workload with the flags applied; `series` and `image_has_drivers` come from
    /// the plan (the size and image render emits).
    pub fn from_spec(
        spec: &Spec,
        series: &str,
        image_has_drivers: bool,
        o: &Overrides,
    ) -> Result<Workload, ModelError> {
        let w = &spec.spec.workload;
        let job = match (o.job_duration_secs, &w.job_duration) {
            (Some(s), _) => s,
            (None, Some(text)) => {
                parse_duration(text).ok_or_else(|| ModelError::BadJobDuration(text.clone()))?
            }
            (None, None) => return Err(ModelError::NoJobDuration),
        };
        if job == 0 {
            return Err(ModelError::ZeroJob);
        }
        let (prov, source) = match o.provisioning_secs {
            Some(s) => (ceil_minutes(s), "--provisioning".to_string()),
            None => provisioning_default(series, image_has_drivers),
        };
        Ok(Workload {
            job_minutes: ceil_minutes(job),
            job_seconds: job,
            concurrency: o
                .concurrency
                .or(w.concurrent_jobs_per_instance)
                .unwrap_or(1)
                .max(1),
            provisioning_minutes: prov,
            provisioning_source: source,
            spot_evictions_per_hour: o.spot_evictions_per_hour.unwrap_or(0.0).max(0.0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_durations() {
        assert_eq!(parse_flag_duration("PT2M"), Some(120));
        assert_eq!(parse_flag_duration("pt8m"), Some(480));
        assert_eq!(parse_flag_duration("10m"), Some(600));
        assert_eq!(parse_flag_duration("2h30m"), Some(9000));
        assert_eq!(parse_flag_duration("90s"), Some(90));
        assert_eq!(parse_flag_duration("10"), None);
        assert_eq!(parse_flag_duration("ten"), None);
        assert_eq!(ceil_minutes(45), 1);
        assert_eq!(ceil_minutes(120), 2);
    }

    #[test]
    fn provisioning_defaults_per_family() {
        assert_eq!(provisioning_default("NCasT4_v3", false).0, 8);
        assert_eq!(provisioning_default("NVadsA10_v5", false).0, 25);
        assert_eq!(provisioning_default("ND_H100_v5", true).0, 6);
        assert_eq!(provisioning_default("NVv4", false).0, PROVISIONING_FALLBACK);
    }
}
