//! The analytic latency model: fast enough for the tuner to screen thousands of policies.
//!
//! Per minute, with `n` healthy VMs of `k` slots, mean service `S`, `A` requests:
//! - no backlog and the pool below saturation (`A·S/60 < n·k`): each VM is an M/M/k queue in
//!   steady state at `A/n` requests a minute (Erlang C, [`Part::Steady`]). This splits the
//!   requests at random, where the gateway deals them in turn: round robin smooths each VM's
//!   arrivals, so the analytic waits are a little longer than the simulated ones;
//! - at or above saturation, or with requests left waiting from earlier minutes: a fluid
//!   backlog, pooled over the VMs, growing or draining at the difference between the
//!   arrival rate and the pool's service rate `n·k/S`; a request waits the backlog ahead of it
//!   divided by that rate ([`Part::Backlog`]), the backlog carried into the next minute;
//! - no healthy VM: the minute's requests fail (the gateway's 502), and so does a backlog the
//!   pool can no longer serve; when VMs go, their share of the backlog fails (cut).
//!
//! The rate of a minute is not its count: a Poisson count already varies by its square root,
//! and Erlang C already has that variation in it, so feeding it each minute's count would
//! count the noise twice (near saturation, a 5 % noisier minute doubles the wait). The rate is
//! the count shrunk towards the mean of the 31 minutes around it (a linear ramp is its own centred mean) by the share of their
//! variance that Poisson noise explains ([`rates`]): a flat load becomes its mean, a real
//! burst (variance well above the mean) keeps its counts.
//!
//! Minutes of the same `n` and a rate within 0.5 % share one steady part, so a trace costs a
//! few hundred parts per VM count, whatever its length; percentiles bisect the mixture's
//! distribution.

use std::collections::HashMap;

use super::erlang::{Part, Service, erlang_c};
use super::pool::Pool;
use crate::simulate::load::Trace;

/// The latency distribution of a whole trace as a weighted mixture.
#[derive(Debug, Clone, Default)]
pub struct Analytic {
    /// (requests, their distribution)
    pub parts: Vec<(f64, Part)>,
    pub requests: f64,
    /// Requests that fail (no healthy VM, or held by a VM that went).
    pub failed: f64,
}

impl Analytic {
    /// The share of all requests (failed ones included) done within `x` seconds.
    pub fn share_within(&self, x: f64, wait_only: bool) -> f64 {
        if self.requests <= 0.0 {
            return 1.0;
        }
        let done: f64 = self
            .parts
            .iter()
            .map(|(w, p)| w * p.cdf(x, wait_only))
            .sum();
        done / self.requests
    }

    /// The `q` quantile in seconds (`None` when more than `1 - q` of the requests fail).
    pub fn quantile(&self, q: f64, wait_only: bool) -> Option<f64> {
        if self.requests <= 0.0 {
            return Some(0.0);
        }
        if self.failed / self.requests > 1.0 - q + 1e-12 {
            return None;
        }
        let mut hi = self
            .parts
            .iter()
            .map(|(_, p)| p.upper(wait_only))
            .fold(1e-3, f64::max);
        let mut lo = 0.0;
        if self.share_within(0.0, wait_only) >= q {
            return Some(0.0);
        }
        // the mixture reaches q by `hi` unless failures take the rest
        if self.share_within(hi, wait_only) < q {
            return None;
        }
        for _ in 0..48 {
            let mid = 0.5 * (lo + hi);
            if self.share_within(mid, wait_only) >= q {
                hi = mid;
            } else {
                lo = mid;
            }
            if hi - lo <= 1e-4 * hi.max(1e-3) {
                break;
            }
        }
        Some(hi)
    }
}

/// The steady part of `a` requests in a minute on `n` VMs of `k` slots and service `s`
/// (`None` when the pool is saturated).
///
/// M/M/k for the exponential; for a service of another spread (squared coefficient of
/// variation `c²`) the M/G/k approximation of Allen and Cunneen: the probability of waiting is
/// Erlang C's, the mean wait M/M/k's times `(1 + c²) / 2` (Allen, Probability, Statistics and
/// Queueing Theory, 2nd ed., §6.4; Tijms, A First Course in Stochastic Models, §5.5), the wait
/// kept exponential.
pub fn steady(n: u32, a: f64, k: u32, s: impl Into<Service>) -> Option<Part> {
    if n == 0 {
        return None;
    }
    let s: Service = s.into();
    let lambda = a / 60.0 / f64::from(n);
    let offered = lambda * s.mean;
    if offered >= f64::from(k) {
        return None;
    }
    Some(Part::Steady {
        p_wait: erlang_c(k, offered),
        theta: (f64::from(k) / s.mean - lambda) * 2.0 / (1.0 + s.cv2()),
        mu: s.mu(),
        shift: s.shift,
    })
}

/// Minutes on each side of the window [`rates`] estimates a minute's rate from.
const HALF_WINDOW: usize = 15;

/// Requests a minute per minute of `arrivals`, with the Poisson noise taken out: the count
/// shrunk towards the window's mean `m` by `m / v` (`v` the window's variance; a Poisson
/// count has `v = m`, so a flat load becomes `m`; a burst, `v >> m`, keeps its count; a
/// variance below `2m` counts as noise).
pub fn rates(arrivals: &[u32]) -> Vec<f64> {
    let h = arrivals.len();
    let mut s1 = vec![0.0f64; h + 1];
    let mut s2 = vec![0.0f64; h + 1];
    for (i, &a) in arrivals.iter().enumerate() {
        let a = f64::from(a);
        s1[i + 1] = s1[i] + a;
        s2[i + 1] = s2[i] + a * a;
    }
    (0..h)
        .map(|t| {
            let lo = t.saturating_sub(HALF_WINDOW);
            let hi = (t + HALF_WINDOW + 1).min(h);
            let n = (hi - lo) as f64;
            let a = f64::from(arrivals[t]);
            if n < 2.0 {
                return a;
            }
            let m = (s1[hi] - s1[lo]) / n;
            let v = ((s2[hi] - s2[lo]) - n * m * m).max(0.0) / (n - 1.0);
            // 31 counts estimate a variance only to about 25 %: below twice the Poisson's it is
            // taken as noise
            let keep = if v > 2.0 * m { 1.0 - m / v } else { 0.0 };
            m + keep * (a - m)
        })
        .collect()
}

/// The analytic latencies of `trace` on the pool's healthy VMs.
pub fn run(pool: &Pool, trace: &Trace, k: u32, service: impl Into<Service>) -> Analytic {
    let service: Service = service.into();
    let s = service.mean;
    let (mu, shift) = (service.mu(), service.shift);
    let mut out = Analytic::default();
    let mut steady_at: HashMap<(u16, i32), usize> = HashMap::new();
    let rate_of = rates(&trace.arrivals);
    let mut backlog = 0.0f64;
    let mut prev_n = 0u16;
    for t in 0..trace.minutes() {
        let n = pool.healthy.get(t).copied().unwrap_or(0);
        let a = f64::from(trace.arrivals[t]);
        out.requests += a;
        if n < prev_n && backlog > 0.0 {
            // the VMs that went held their share of the backlog
            let cut = backlog * f64::from(prev_n - n) / f64::from(prev_n);
            out.failed += cut;
            backlog -= cut;
        }
        prev_n = n;
        if n == 0 {
            out.failed += a + backlog;
            backlog = 0.0;
            continue;
        }
        let rate = f64::from(n) * f64::from(k) / s; // requests a second the pool serves
        let per_minute = rate_of[t];
        let lambda = per_minute / 60.0;
        if backlog <= 0.0 {
            if a == 0.0 {
                continue;
            }
            if let Some(p) = steady(u32::from(n), per_minute, k, service) {
                // rates within 0.5 % of each other share a part (a few hundred per VM count)
                let key = (n, (per_minute.max(1e-3).ln() * 200.0).round() as i32);
                match steady_at.get(&key) {
                    Some(&i) => out.parts[i].0 += a,
                    None => {
                        steady_at.insert(key, out.parts.len());
                        out.parts.push((a, p));
                    }
                }
                continue;
            }
        }
        // a backlog: it grows or drains at lambda - rate
        let end = backlog + (lambda - rate) * 60.0;
        if end >= 0.0 {
            if a > 0.0 {
                out.parts.push((
                    a,
                    Part::Backlog {
                        from: backlog / rate,
                        to: end / rate,
                        mu,
                        shift,
                    },
                ));
            }
            backlog = end;
        } else {
            // drained after tau seconds; the rest of the minute in steady state
            let tau = backlog / (rate - lambda);
            let early = (lambda * tau).min(a);
            if early > 0.0 {
                out.parts.push((
                    early,
                    Part::Backlog {
                        from: 0.0,
                        to: backlog / rate,
                        mu,
                        shift,
                    },
                ));
            }
            let late = a - early;
            if late > 0.0 {
                let p = steady(u32::from(n), per_minute, k, service).unwrap_or(Part::Backlog {
                    from: 0.0,
                    to: 0.0,
                    mu,
                    shift,
                });
                out.parts.push((late, p));
            }
            backlog = 0.0;
        }
    }
    out
}
