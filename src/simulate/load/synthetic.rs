//! A seeded synthetic weekly pattern.

use jiff::Timestamp;
use jiff::tz::TimeZone;
use rand_core::{Rng, SeedableRng};
use serde::Serialize;

use super::super::tz;
use super::trace::{MAX_MINUTES, Trace};

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
                "synthetic (seed {}, {} days from {}, {} jobs/min outside the windows)",
                self.seed,
                self.days,
                self.start,
                crate::report::number::count(self.base_per_minute)
            ),
        })
    }
}
