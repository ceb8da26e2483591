//! The M/M/c queue in closed form (Erlang C), and the latency distributions the analytic model
//! mixes: a queue in steady state ([`Part::Steady`]) and a backlog draining or growing at a
//! known rate ([`Part::Backlog`]), each followed by an exponential service time.
//!
//! Erlang C: with `c` servers, offered load `a = λ/μ` erlangs (`a < c`), the probability that
//! an arrival waits is `C(c, a) = c·B / (c − a·(1 − B))` with `B` the Erlang B loss, computed
//! by the stable recursion `B(0) = 1`, `B(j) = a·B(j−1) / (j + a·B(j−1))`; the wait is then
//! exponential: `P(W > x) = C·exp(−(cμ − λ)·x)` (any queueing text, e.g. Kleinrock, Queueing
//! Systems vol. 1, §3.5; Gross & Harris, Fundamentals of Queueing Theory, §2.3).

/// Erlang C: the probability that an arrival waits, `c` servers, `a` erlangs (1 when `a >= c`).
pub fn erlang_c(c: u32, a: f64) -> f64 {
    if c == 0 || a >= f64::from(c) {
        return 1.0;
    }
    if a <= 0.0 {
        return 0.0;
    }
    let mut b = 1.0;
    for j in 1..=c {
        b = a * b / (f64::from(j) + a * b);
    }
    let c = f64::from(c);
    (c * b / (c - a * (1.0 - b))).clamp(0.0, 1.0)
}

/// The wait an arrival exceeds with probability `1 - q` in M/M/c (`mu` per second, `lambda` per
/// second): the closed form the tests compare the simulations with.
pub fn mmc_wait_quantile(c: u32, lambda: f64, mu: f64, q: f64) -> f64 {
    let a = lambda / mu;
    let pw = erlang_c(c, a);
    let tail = 1.0 - q;
    if pw <= tail {
        return 0.0;
    }
    (pw / tail).ln() / (f64::from(c) * mu - lambda)
}

/// One request's service time: `shift` seconds, then exponential with mean `mean - shift`.
///
/// `shift` 0 is the exponential (coefficient of variation 1, p95 = mean × ln 20 ≈ 3.0 × mean),
/// the conservative default. A measured p95 below that ([`Service::from_p95`]) gives a
/// shifted exponential of the same mean and p95 (CV = (mean − shift) / mean < 1): LLM
/// completions vary less than exponentially (Azure's LLM inference trace 2023, conversation:
/// generated tokens p95 = 2.14 × their mean, CV 0.77). The family keeps every latency formula
/// in closed form (a shift of the exponential's), where a gamma or lognormal would need
/// numerical convolution in the tuner's inner loop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Service {
    pub mean: f64,
    pub shift: f64,
}

/// ln 20: an exponential's p95 over its mean.
pub const EXP_P95_FACTOR: f64 = 2.995_732_273_553_991;

impl From<f64> for Service {
    /// The exponential of mean `mean`.
    fn from(mean: f64) -> Self {
        Service {
            mean: mean.max(1e-6),
            shift: 0.0,
        }
    }
}

impl Service {
    /// The shifted exponential with this mean and p95 (`p95` at or above the exponential's
    /// gives the exponential: a heavier tail is not modelled; at or below the mean, a nearly
    /// constant time).
    pub fn from_p95(mean: f64, p95: f64) -> Service {
        let mean = mean.max(1e-6);
        // p95 = shift + (mean - shift) ln 20  =>  mean - shift = (p95 - mean) / (ln 20 - 1)
        let spread = ((p95 - mean) / (EXP_P95_FACTOR - 1.0)).clamp(mean * 1e-3, mean);
        Service {
            mean,
            shift: mean - spread,
        }
    }

    /// The rate of the exponential part, per second.
    pub fn mu(&self) -> f64 {
        1.0 / (self.mean - self.shift).max(1e-9)
    }

    /// The squared coefficient of variation.
    pub fn cv2(&self) -> f64 {
        let c = (self.mean - self.shift) / self.mean;
        c * c
    }

    /// The `q` quantile of the service time alone.
    pub fn quantile(&self, q: f64) -> f64 {
        self.shift + (self.mean - self.shift) * -(1.0 - q.clamp(0.0, 1.0 - 1e-12)).ln()
    }

    /// `P(S <= x)`.
    pub fn cdf(&self, x: f64) -> f64 {
        exp_cdf(self.mu(), x - self.shift)
    }
}

/// `P(X <= x)` for `X ~ Exp(mu)`.
fn exp_cdf(mu: f64, x: f64) -> f64 {
    if x <= 0.0 { 0.0 } else { -(-mu * x).exp_m1() }
}

/// `P(E1 + E2 <= x)`, `E1 ~ Exp(theta)`, `E2 ~ Exp(mu)` (hypoexponential).
fn hypo_cdf(theta: f64, mu: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if (theta - mu).abs() <= 1e-9 * mu.max(theta) {
        return 1.0 - (-mu * x).exp() * (1.0 + mu * x);
    }
    (1.0 - (mu * (-theta * x).exp() - theta * (-mu * x).exp()) / (mu - theta)).clamp(0.0, 1.0)
}

/// A share of the requests and how long they take.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Part {
    /// A queue in steady state: a request waits with probability `p_wait`, then exponentially
    /// at rate `theta`; service `shift + Exp(mu)`.
    Steady {
        p_wait: f64,
        theta: f64,
        mu: f64,
        shift: f64,
    },
    /// A backlog: waits spread evenly over `[from, to]` seconds; service `shift + Exp(mu)`.
    Backlog {
        from: f64,
        to: f64,
        mu: f64,
        shift: f64,
    },
}

impl Part {
    /// `P(wait + service <= x)`, or with `wait_only` `P(wait <= x)`.
    pub fn cdf(&self, x: f64, wait_only: bool) -> f64 {
        match *self {
            Part::Steady {
                p_wait,
                theta,
                mu,
                shift,
            } => {
                if wait_only {
                    if x < 0.0 {
                        0.0
                    } else {
                        1.0 - p_wait * (-theta * x).exp()
                    }
                } else {
                    let x = x - shift;
                    (1.0 - p_wait) * exp_cdf(mu, x) + p_wait * hypo_cdf(theta, mu, x)
                }
            }
            Part::Backlog {
                from,
                to,
                mu,
                shift,
            } => {
                let width = to - from;
                if wait_only {
                    return if x < from {
                        0.0
                    } else if width <= 0.0 || x >= to {
                        1.0
                    } else {
                        (x - from) / width
                    };
                }
                let x = x - shift;
                if x <= from {
                    return 0.0;
                }
                if width <= 1e-12 {
                    return exp_cdf(mu, x - from);
                }
                // (1/width) ∫_from^min(to, x) (1 − e^{−μ(x−w)}) dw
                let b = to.min(x);
                let integral = (b - from) - ((-mu * (x - b)).exp() - (-mu * (x - from)).exp()) / mu;
                (integral / width).clamp(0.0, 1.0)
            }
        }
    }

    /// A time by which (nearly) every request of the part is done (an upper bracket).
    pub fn upper(&self, wait_only: bool) -> f64 {
        let service = |mu: f64, shift: f64| if wait_only { 0.0 } else { shift + 40.0 / mu };
        match *self {
            Part::Steady {
                p_wait,
                theta,
                mu,
                shift,
            } => {
                let w = if p_wait > 0.0 { 40.0 / theta } else { 0.0 };
                w + service(mu, shift)
            }
            Part::Backlog { to, mu, shift, .. } => to + service(mu, shift),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erlang_c_matches_published_values() {
        // Erlang C tables (e.g. Cooper, Introduction to Queueing Theory, table II): c = 2,
        // a = 1: C = 1/3; c = 1 is M/M/1: C = ρ
        assert!((erlang_c(2, 1.0) - 1.0 / 3.0).abs() < 1e-12);
        assert!((erlang_c(1, 0.7) - 0.7).abs() < 1e-12);
        // c = 10, a = 8: 0.4092 (the 4-digit table value)
        assert!(
            (erlang_c(10, 8.0) - 0.4092).abs() < 5e-4,
            "{}",
            erlang_c(10, 8.0)
        );
        assert_eq!(erlang_c(4, 4.0), 1.0);
        assert_eq!(erlang_c(4, 0.0), 0.0);
    }

    #[test]
    fn distributions_are_distributions() {
        let s = Part::Steady {
            p_wait: 0.4,
            theta: 0.5,
            mu: 1.0,
            shift: 0.0,
        };
        let b = Part::Backlog {
            from: 3.0,
            to: 9.0,
            mu: 0.5,
            shift: 0.0,
        };
        let shifted = Part::Steady {
            p_wait: 0.4,
            theta: 0.5,
            mu: 2.0,
            shift: 1.5,
        };
        for p in [s, b, shifted] {
            for wait_only in [false, true] {
                let mut prev = 0.0;
                for i in 0..2000 {
                    let x = i as f64 * 0.05;
                    let f = p.cdf(x, wait_only);
                    assert!(f >= prev - 1e-12 && f <= 1.0, "{p:?} {x} {f}");
                    prev = f;
                }
                assert!(p.cdf(p.upper(wait_only), wait_only) > 0.999_999, "{p:?}");
            }
        }
        // M/M/1 response time is Exp(μ − λ): λ = 0.6, μ = 1 → ρ = 0.6, θ = 0.4
        let m = Part::Steady {
            p_wait: erlang_c(1, 0.6),
            theta: 0.4,
            mu: 1.0,
            shift: 0.0,
        };
        for x in [0.5, 1.0, 3.0, 8.0] {
            assert!((m.cdf(x, false) - (1.0 - (-0.4f64 * x).exp())).abs() < 1e-9);
        }
    }

    #[test]
    fn a_service_of_a_given_mean_and_p95() {
        // the exponential: p95 = mean x ln 20
        let e = Service::from(4.0);
        assert!((e.quantile(0.95) - 4.0 * EXP_P95_FACTOR).abs() < 1e-9);
        assert_eq!(e.cv2(), 1.0);
        // a measured p95 of 2.14 x the mean (Azure's conversation trace): same mean, that p95
        let s = Service::from_p95(4.0, 8.56);
        assert!((s.quantile(0.95) - 8.56).abs() < 1e-9, "{s:?}");
        assert!((s.shift + 1.0 / s.mu() - 4.0).abs() < 1e-9);
        assert!((s.cdf(8.56) - 0.95).abs() < 1e-9);
        assert!(s.cv2() < 1.0);
        // a heavier tail than the exponential is not modelled: the exponential
        assert_eq!(Service::from_p95(4.0, 20.0), Service::from(4.0));
    }
}
