//! The clairvoyant reference for a request-driven pool: the fewest VM-minutes that meet the
//! latency target on the trace, knowing every minute's requests in advance.
//!
//! Definition. In minute `t` with `A_t` requests, `n` healthy VMs serve a share `g_t(n)` of
//! them within the target `T` (the analytic model's steady state per VM; none when `n` VMs
//! cannot keep up, or with no VM). Every minute first gets the fewest VMs
//! with `g_t(n) >= q` (the target met minute by minute); then the requests the quantile lets
//! miss (`(1 - q)` of all) are spent greedily where one VM-minute fewer loses the fewest
//! requests. VMs are healthy the minute they are wanted (no model load), come in whole
//! numbers, and cost nothing while there is no request: no policy that autoscale can express
//! does better under the same latency model, so the simulated pool's VM-hours over this are
//! the waste of the policy (model load, reaction time, rounding, margin).

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use serde::Serialize;

use super::erlang::Service;
use super::fluid::steady;
use crate::simulate::load::Trace;

pub const DEFINITION: &str = "fewest VM-hours that meet the latency target knowing every minute's requests in advance: per minute the fewest healthy VMs whose requests meet the target (the analytic model: M/M/k per VM), then the requests the quantile lets miss spent where they save the most VM-minutes; no model load time, no VM while there is no request";

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Bound {
    pub instance_hours: f64,
    /// The most VMs any minute needs.
    pub peak_instances: u32,
    pub definition: &'static str,
}

/// The share of `a` requests a minute on `n` VMs done within `target` seconds.
fn within(n: u32, a: f64, k: u32, s: Service, target: f64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    // a pool at or above saturation has no steady state: its queue grows minute after minute
    steady(n, a, k, s).map_or(0.0, |p| p.cdf(target, false))
}

#[derive(PartialEq)]
struct Cost(f64, usize);
impl Eq for Cost {}
impl PartialOrd for Cost {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Cost {
    fn cmp(&self, o: &Self) -> Ordering {
        self.0.total_cmp(&o.0).then(self.1.cmp(&o.1))
    }
}

/// The reference for `trace`: `k` slots a VM, service `s` (a mean in seconds: exponential),
/// target `target` seconds at quantile `q`.
pub fn lower_bound(trace: &Trace, k: u32, s: impl Into<Service>, target: f64, q: f64) -> Bound {
    let s: Service = s.into();
    let k = k.max(1);
    let h = trace.minutes();
    let mut n = vec![0u32; h];
    let mut share = vec![0.0f64; h];
    let total: f64 = trace.arrivals.iter().map(|&a| f64::from(a)).sum();
    let mut budget = (1.0 - q.clamp(0.0, 1.0)) * total;
    for t in 0..h {
        let a = f64::from(trace.arrivals[t]);
        if a == 0.0 {
            continue;
        }
        let work = a * s.mean / 60.0 / f64::from(k);
        let mut m = (work.floor() as u32).max(1);
        // a target the service time alone misses is never met: stop adding VMs once another
        // one no longer helps (the minute keeps the count where waiting has vanished)
        let mut g = within(m, a, k, s, target);
        while g < q {
            let next = within(m + 1, a, k, s, target);
            if f64::from(m) > work + 1.0 && next - g < 1e-9 {
                break;
            }
            m += 1;
            g = next;
        }
        n[t] = m;
        share[t] = g;
        budget -= a * (1.0 - g);
    }
    let lose = |t: usize, m: u32, share_now: f64| -> (f64, f64) {
        let a = f64::from(trace.arrivals[t]);
        let lower = within(m - 1, a, k, s, target);
        (a * (share_now - lower).max(0.0), lower)
    };
    let mut heap: BinaryHeap<Reverse<Cost>> = BinaryHeap::new();
    for t in 0..h {
        if n[t] > 0 {
            heap.push(Reverse(Cost(lose(t, n[t], share[t]).0, t)));
        }
    }
    while budget > 0.0 {
        let Some(Reverse(Cost(c, t))) = heap.pop() else {
            break;
        };
        if c > budget {
            break;
        }
        let (_, lower) = lose(t, n[t], share[t]);
        budget -= c;
        n[t] -= 1;
        share[t] = lower;
        if n[t] > 0 {
            heap.push(Reverse(Cost(lose(t, n[t], share[t]).0, t)));
        }
    }
    Bound {
        instance_hours: n.iter().map(|&x| f64::from(x)).sum::<f64>() / 60.0,
        peak_instances: n.iter().copied().max().unwrap_or(0),
        definition: DEFINITION,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(arrivals: Vec<u32>) -> Trace {
        Trace {
            start: "2026-11-02T00:00:00Z".parse().unwrap(),
            missing: vec![false; arrivals.len()],
            arrivals,
            source: "test".into(),
        }
    }

    #[test]
    fn enough_vms_for_the_target_and_none_when_idle() {
        // 240 requests a minute, 2 s each, 16 slots: half a VM of work, one VM a minute (its
        // 5 % allowance lets two minutes go without); 2400 a minute is 5 VMs of work: more
        let b = lower_bound(&trace(vec![240; 60]), 16, 2.0, 10.0, 0.95);
        assert!(b.instance_hours <= 1.0 && b.instance_hours >= 0.9, "{b:?}");
        assert_eq!(b.peak_instances, 1);
        let b = lower_bound(&trace(vec![2400; 60]), 16, 2.0, 10.0, 0.95);
        assert!(b.peak_instances >= 6, "{b:?}");
        let b = lower_bound(&trace(vec![0; 60]), 16, 2.0, 10.0, 0.95);
        assert_eq!(b.instance_hours, 0.0);
        // the quantile's allowance: 21 minutes of 10 requests; at p99.9 each needs its VM,
        // at p95 (10.5 requests may miss) one minute may go without
        let strict = lower_bound(&trace(vec![10; 21]), 16, 2.0, 30.0, 0.999);
        let q95 = lower_bound(&trace(vec![10; 21]), 16, 2.0, 30.0, 0.95);
        assert!(
            (strict.instance_hours - 21.0 / 60.0).abs() < 1e-9,
            "{strict:?}"
        );
        assert!((q95.instance_hours - 20.0 / 60.0).abs() < 1e-9, "{q95:?}");
        // a target below what the service alone reaches stops at a finite count
        let b = lower_bound(&trace(vec![240; 5]), 16, 2.0, 1.0, 0.95);
        assert!(b.peak_instances < 10, "{b:?}");
    }
}
