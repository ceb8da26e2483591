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
    /// at rate `theta`; service `Exp(mu)`.
    Steady { p_wait: f64, theta: f64, mu: f64 },
    /// A backlog: waits spread evenly over `[from, to]` seconds; service `Exp(mu)`.
    Backlog { from: f64, to: f64, mu: f64 },
}

impl Part {
    /// `P(wait + service <= x)`, or with `wait_only` `P(wait <= x)`.
    pub fn cdf(&self, x: f64, wait_only: bool) -> f64 {
        match *self {
            Part::Steady { p_wait, theta, mu } => {
                if wait_only {
                    if x < 0.0 {
                        0.0
                    } else {
                        1.0 - p_wait * (-theta * x).exp()
                    }
                } else {
                    (1.0 - p_wait) * exp_cdf(mu, x) + p_wait * hypo_cdf(theta, mu, x)
                }
            }
            Part::Backlog { from, to, mu } => {
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
        let service = |mu: f64| if wait_only { 0.0 } else { 40.0 / mu };
        match *self {
            Part::Steady { p_wait, theta, mu } => {
                let w = if p_wait > 0.0 { 40.0 / theta } else { 0.0 };
                w + service(mu)
            }
            Part::Backlog { to, mu, .. } => to + service(mu),
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
        };
        let b = Part::Backlog {
            from: 3.0,
            to: 9.0,
            mu: 0.5,
        };
        for p in [s, b] {
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
        };
        for x in [0.5, 1.0, 3.0, 8.0] {
            assert!((m.cdf(x, false) - (1.0 - (-0.4f64 * x).exp())).abs() < 1e-9);
        }
    }
}
