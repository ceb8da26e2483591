//! The request-level simulation (seeded): what the report shows and what confirms the tuner's
//! proposal.
//!
//! - Arrivals: each minute's requests at independent uniform times within the minute (a
//!   Poisson process given the minute's count), drawn as sorted order statistics in O(n).
//! - Routing: the gateway sends each request to the next healthy VM in turn (round robin over
//!   the healthy hosts, in instance-ID order); a request waits at that VM's model server,
//!   never at the gateway. With no healthy VM the gateway answers 502 at once: the request
//!   fails.
//! - Each VM serves `concurrency` requests at once, first come first served; a request's
//!   service time is exponential with the model's mean, or a constant part then exponential
//!   (the model's measured p95: [`super::erlang::Service`]). Its latency is its wait plus its
//!   service (to the last byte).
//! - A VM a scale-in removes takes no new request from the next minute; requests it still
//!   holds finish if they end within the drain timeout, else they fail (cut). A Spot eviction
//!   cuts at once.
//!
//! Times are whole microseconds (a year fits in `u64`); the latency and wait histograms have
//! fixed memory ([`Histogram`]); per VM only the `concurrency` latest finish times and the
//! requests not finished yet are kept, so memory is bounded by the pool, not the trace.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand_core::{Rng, SeedableRng};

use super::hist::Histogram;
use super::pool::Pool;
use crate::simulate::load::Trace;

const US: f64 = 1e6;

/// What the requests saw.
#[derive(Debug, Clone, Default)]
pub struct Served {
    pub latency: Histogram,
    pub wait: Histogram,
    pub requests: u64,
    /// Arrived while no VM was healthy (the gateway's 502).
    pub failed_no_healthy: u64,
    /// Held by a VM that a scale-in removed (past the drain timeout) or that was evicted.
    pub failed_cut: u64,
    /// Took longer than the gateway's request timeout (its 504 if the server sent nothing
    /// before then; counted, not failed: a streaming server sends its first bytes early).
    pub over_timeout: u64,
    /// Seconds of service the VMs gave (for their idle time).
    pub busy_seconds: f64,
}

impl Served {
    pub fn failed(&self) -> u64 {
        self.failed_no_healthy + self.failed_cut
    }
}

/// A VM's model server: the finish times of its `concurrency` latest requests, and the
/// requests not finished yet (finish, latency, wait in µs) for a scale-in to cut.
struct Server {
    slots: BinaryHeap<Reverse<u64>>,
    pending: Vec<(u64, u64, u64)>,
}

/// The service and timing knobs of one run.
#[derive(Debug, Clone, Copy)]
pub struct Knobs {
    pub concurrency: u32,
    /// The mean service time, seconds.
    pub service_seconds: f64,
    /// The constant part of it (a shifted exponential; 0: exponential).
    pub service_shift_seconds: f64,
    pub drain_seconds: f64,
    pub request_timeout_seconds: f64,
}

fn uniform(rng: &mut rand_pcg::Pcg64) -> f64 {
    // (0, 1]: never 0, so its logarithm is finite
    ((rng.next_u64() >> 11) as f64 + 1.0) / (1u64 << 53) as f64
}

/// Simulate every request of `trace` on the pool's healthy VMs.
pub fn run(pool: &Pool, trace: &Trace, k: &Knobs, seed: u64) -> Served {
    let h = trace.minutes();
    let c = k.concurrency.max(1) as usize;
    let mean = k.service_seconds.max(1e-6);
    let shift = k.service_shift_seconds.clamp(0.0, mean);
    let shift_us = shift * US;
    let mean_us = (mean - shift) * US;
    let drain_us = (k.drain_seconds.max(0.0) * US) as u64;
    let timeout_us = (k.request_timeout_seconds.max(0.0) * US) as u64;
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed ^ 0x5e4f_1a7e_d00d_cafe);
    let mut out = Served::default();
    // VMs by the minute they become healthy and the minute they go
    let mut by_ready: Vec<usize> = (0..pool.vms.len()).collect();
    by_ready.sort_by_key(|&i| (pool.vms[i].ready_at, pool.vms[i].id));
    let mut next_ready = 0;
    // healthy now: (vm index, its server), in instance-ID order
    let mut active: Vec<(usize, Server)> = Vec::new();
    let mut rr: usize = 0;
    let mut times: Vec<u64> = Vec::new();
    for t in 0..h {
        let t0 = t as u64 * 60_000_000;
        // VMs that went (scale-in at the end of t - 1, or evicted now): cut what they hold
        active.retain_mut(|(i, s)| {
            let v = &pool.vms[*i];
            if v.gone_at > t {
                return true;
            }
            let cut_at = if v.evicted { t0 } else { t0 + drain_us };
            for &(finish, lat, wait) in &s.pending {
                if finish > cut_at {
                    out.latency.add(lat as f64 / US, -1);
                    out.wait.add(wait as f64 / US, -1);
                    out.failed_cut += 1;
                }
            }
            false
        });
        // VMs healthy from this minute
        let mut joined = false;
        while next_ready < by_ready.len() && pool.vms[by_ready[next_ready]].ready_at <= t {
            let i = by_ready[next_ready];
            next_ready += 1;
            if pool.vms[i].gone_at > t {
                active.push((
                    i,
                    Server {
                        slots: BinaryHeap::with_capacity(c),
                        pending: Vec::new(),
                    },
                ));
                joined = true;
            }
        }
        if joined {
            active.sort_by_key(|(i, _)| pool.vms[*i].id);
        }
        for (_, s) in active.iter_mut() {
            s.pending.retain(|p| p.0 > t0);
        }
        let a = trace.arrivals[t] as usize;
        out.requests += a as u64;
        if a == 0 {
            continue;
        }
        if active.is_empty() {
            out.failed_no_healthy += a as u64;
            continue;
        }
        // sorted uniform times: cumulative exponential spacings, normalised
        times.clear();
        let mut sum = 0.0;
        let mut cum: Vec<f64> = Vec::with_capacity(a + 1);
        for _ in 0..=a {
            sum += -uniform(&mut rng).ln();
            cum.push(sum);
        }
        for x in &cum[..a] {
            times.push(t0 + (x / sum * 60.0 * US) as u64);
        }
        let t1 = t0 + 60_000_000;
        for &arr in &times {
            let n = active.len();
            let (_, s) = &mut active[rr % n];
            rr = rr.wrapping_add(1);
            let start = if s.slots.len() < c {
                arr
            } else {
                let Reverse(free) = s.slots.pop().unwrap_or(Reverse(arr));
                free.max(arr)
            };
            let service = (shift_us - uniform(&mut rng).ln() * mean_us) as u64;
            let finish = start + service;
            s.slots.push(Reverse(finish));
            let (lat, wait) = (finish - arr, start - arr);
            out.latency.add(lat as f64 / US, 1);
            out.wait.add(wait as f64 / US, 1);
            out.busy_seconds += service as f64 / US;
            if timeout_us > 0 && lat > timeout_us {
                out.over_timeout += 1;
            }
            if finish > t1 {
                s.pending.push((finish, lat, wait));
            }
        }
    }
    out
}
