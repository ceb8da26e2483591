//! Replays shared across the pool sizes of the joint search (issue 40, item 3: reuse
//! simulation state across candidates).
//!
//! The pool search ([`super::pool`]) runs the policy search once per standby-pool size, largest
//! first, and asks for many of the same (policy, variant) replays at each size. In a regional
//! scale set, a pool of `maxReady = minReady = m` that never had fewer than `k + 1` ready VMs at a
//! take replays exactly as a pool of `m - k` does, the pool's own VM-minutes aside
//! ([`PoolState::least_ready`](crate::simulate::standby::PoolState::least_ready)). So each replay
//! of the search is kept (the latest per setting, variant and stop) with the pool size it ran
//! at, and a smaller pool within its reach takes the same outcome with `k` fewer pooled
//! VM-minutes a minute ([`derive`]). The replays are the same to the bit as replays of their own
//! (`tests/simulate_standby_reuse.rs`; `pool_check.rs` compares the search with an exhaustive
//! enumeration that does not reuse).
//!
//! A replay asked with a [`Stop`] is answered by a whole replay kept for the same setting and
//! variant (the caller asks only whether the target is met: a whole replay says it as well),
//! and a whole replay by one asked with a stop that did not stop (a run that does not stop is
//! the whole replay, `tests/simulate_stop.rs`): the proposal's figures under every variant, for
//! the report, reuse the replays that found it holds.

use std::collections::HashMap;
use std::sync::Mutex;

use super::super::engine::{Choices, Outcome, Setting, Stop};
use super::super::standby::Standby;
use crate::cost::usage::Priority;

/// The replays kept, by what identifies one besides the pool's size.
#[derive(Default)]
pub struct Reuse {
    kept: Mutex<HashMap<String, Kept>>,
    /// Replays taken from a larger pool's (for the bench and the tests).
    pub derived: std::sync::atomic::AtomicUsize,
}

impl std::fmt::Debug for Reuse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.kept.lock().map_or(0, |k| k.len());
        write!(f, "Reuse({n} kept)")
    }
}

struct Kept {
    size: u32,
    outcome: Outcome,
    /// The stop it was asked with (a stopped outcome answers only the same one).
    stop: Option<Stop>,
}

/// Outcomes larger than this (waits kept to the second over long tails) are not kept.
const MOST_KEPT_BYTES: usize = 64 * 1024;

/// The key of a replay: everything it depends on but the pool's size and the stop (the trace,
/// workload and seed are the search's own, the same for every replay that meets this cache).
pub fn key(setting: &Setting, priority: &Priority, choices: &Choices, pool: &Standby) -> String {
    let p = Standby {
        max_ready: 0,
        min_ready: 0,
        ..pool.clone()
    };
    format!("{setting:?}|{priority:?}|{choices:?}|{p:?}")
}

/// Whether `kept` (asked with `kept_stop`) answers a replay asked with `stop`: a whole replay
/// answers any (one asked with a stop gets the whole figures, and the same answer to whether
/// the target is met), a stopped one only the same stop.
fn answers(kept: &Outcome, kept_stop: Option<&Stop>, stop: Option<&Stop>) -> bool {
    !kept.stopped || kept_stop == stop
}

/// The size a pool of `maxReady = minReady` has (`None`: another shape, not shared).
fn size(pool: &Standby) -> Option<u32> {
    (pool.max_ready == pool.min_ready).then_some(pool.max_ready)
}

/// The outcome at `pool`'s size derived from a replay at `from` pooled VMs (`None`: out of its
/// reach).
pub fn derive(o: &Outcome, from: u32, to: u32) -> Option<Outcome> {
    if to > from {
        return None;
    }
    let k = from - to;
    if k == 0 {
        return Some(o.clone());
    }
    // `u32::MAX`: no take, any smaller pool replays the same; 0 (zonal, or a take that found
    // none): no smaller one
    if o.pool_least_ready <= k {
        return None;
    }
    let mut d = o.clone();
    // the pool's VM-minutes are counted at the end of every minute replayed whole
    let counted = if o.stopped {
        o.minutes.saturating_sub(1)
    } else {
        o.minutes
    } as u64;
    d.standby_minutes = o.standby_minutes.checked_sub(u64::from(k) * counted)?;
    if o.pool_least_ready != u32::MAX {
        d.pool_least_ready = o.pool_least_ready - k;
    }
    Some(d)
}

impl Reuse {
    /// The replay `key` at `pool`'s size, asked with `stop`: a kept one within reach that
    /// answers it, else `run`'s (kept, unless a whole one is kept and `run`'s stopped).
    pub fn replay(
        &self,
        key: String,
        pool: &Standby,
        stop: Option<&Stop>,
        run: impl FnOnce() -> Outcome,
    ) -> Outcome {
        let Some(m) = size(pool) else {
            return run();
        };
        if let Ok(kept) = self.kept.lock()
            && let Some(k) = kept.get(&key)
            && answers(&k.outcome, k.stop.as_ref(), stop)
            && let Some(o) = derive(&k.outcome, k.size, m)
        {
            if k.size != m {
                self.derived
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            return o;
        }
        let o = run();
        let bytes = (o.waits.len() + o.wait_seconds.len()) * 8;
        if bytes <= MOST_KEPT_BYTES
            && o.series.is_none()
            && let Ok(mut kept) = self.kept.lock()
            // a whole replay kept (at a larger size) is not replaced by a stopped one
            && (!o.stopped || kept.get(&key).is_none_or(|k| k.outcome.stopped))
        {
            kept.insert(
                key,
                Kept {
                    size: m,
                    outcome: o.clone(),
                    stop: stop.copied(),
                },
            );
        }
        o
    }
}
