//! A histogram of durations with bounded memory: zero, then buckets 0.5 % wide (relative) from
//! 1 ms to about 11.6 days; longer durations count in the last bucket. A percentile is exact to
//! 0.25 % of its value; memory is fixed whatever the number of requests.

/// The first bucket's lower edge, in seconds.
const LOW: f64 = 1e-3;
/// Relative width of a bucket.
const GROWTH: f64 = 1.005;
/// Buckets above zero: LOW × GROWTH^BUCKETS ≈ 10^6 s.
const BUCKETS: usize = 4155;

#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    zero: u64,
    counts: Vec<u64>,
    n: u64,
    max: f64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            zero: 0,
            counts: vec![0; BUCKETS],
            n: 0,
            max: 0.0,
        }
    }
}

fn bucket(x: f64) -> Option<usize> {
    if x.is_nan() || x < LOW {
        return None;
    }
    Some((((x / LOW).ln() / GROWTH.ln()) as usize).min(BUCKETS - 1))
}

impl Histogram {
    /// Count `x` seconds (`sign` -1 takes one back, for a request cut after it was counted).
    pub fn add(&mut self, x: f64, sign: i64) {
        let slot = match bucket(x) {
            None => &mut self.zero,
            Some(b) => &mut self.counts[b],
        };
        if sign >= 0 {
            *slot += 1;
            self.n += 1;
            if x > self.max {
                self.max = x;
            }
        } else if *slot > 0 {
            *slot -= 1;
            self.n -= 1;
        }
    }

    pub fn len(&self) -> u64 {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The largest duration counted (not taken back when a cut request is).
    pub fn max(&self) -> f64 {
        self.max
    }

    /// The nearest-rank `q` percentile over `self.len() + extra` durations, where the `extra`
    /// (failed requests) rank above every duration: `None` when the rank falls among them.
    pub fn percentile(&self, q: f64, extra: u64) -> Option<f64> {
        let total = self.n + extra;
        if total == 0 {
            return Some(0.0);
        }
        let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
        if rank > self.n {
            return None;
        }
        if rank <= self.zero {
            return Some(0.0);
        }
        let mut seen = self.zero;
        for (i, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                // the bucket's geometric middle, never above the largest duration counted
                return Some((LOW * GROWTH.powf(i as f64 + 0.5)).min(self.max));
            }
        }
        Some(self.max)
    }

    /// Durations at or below `x` seconds (to the bucket).
    pub fn at_most(&self, x: f64) -> u64 {
        match bucket(x) {
            None => self.zero,
            Some(b) => self.zero + self.counts[..b].iter().sum::<u64>(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_within_a_quarter_percent() {
        let mut h = Histogram::default();
        for i in 1..=10_000 {
            h.add(i as f64 * 0.01, 1);
        }
        for (q, want) in [(0.5, 50.0), (0.95, 95.0), (0.99, 99.0)] {
            let got = h.percentile(q, 0).unwrap();
            assert!((got - want).abs() / want < 0.0026, "{q}: {got}");
        }
        // failed requests rank above everything
        assert_eq!(h.percentile(0.95, 10_000), None);
        assert!(h.percentile(0.5, 10_000).is_some());
        h.add(0.0, 1);
        h.add(0.0, -1);
        assert_eq!(h.len(), 10_000);
        assert_eq!(Histogram::default().percentile(0.95, 0), Some(0.0));
    }
}
