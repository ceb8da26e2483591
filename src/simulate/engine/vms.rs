//! The scale set's VMs as autoscale sees them: where a scale-out puts a new VM (zone, priority)
//! and which VMs a scale-in removes (the rendered scale-in policy). Shared by the queue replay
//! and the request-driven pool's.

use crate::cost::usage::{Priority, regular_share};

use super::choices::ScaleInOrder;

/// A VM of the scale set, whatever else the replay keeps about it.
pub trait Machine {
    /// Instance ID: increases with every VM the scale set creates.
    fn id(&self) -> u64;
    fn zone(&self) -> u32;
    /// The minute it serves from (booting until then).
    fn ready_at(&self) -> usize;
    fn spot(&self) -> bool;
    /// Work in progress (only the optimistic `idle-first` scale-in order looks at it).
    fn busy(&self) -> usize;
}

/// The zone and priority of the next VM a scale-out creates on top of `inst`: the zone with
/// the fewest VMs, Spot once the regular share of the new count is met.
pub fn next_vm<M: Machine>(inst: &[M], priority: &Priority, zones: u32) -> (u32, bool) {
    let n = inst.len() as u32 + 1;
    let regular_needed = regular_share(priority, f64::from(n)).round() as usize;
    let regular_now = inst.iter().filter(|i| !i.spot()).count();
    (next_zones(inst, zones, 1)[0], regular_now >= regular_needed)
}

/// The instances a scale-in from `inst.len()` to `n` removes (indices), keeping the
/// regular/Spot mix; within it by `order`.
pub fn victims<M: Machine>(
    inst: &[M],
    n: u32,
    t: usize,
    priority: &Priority,
    zones: u32,
    order: ScaleInOrder,
) -> Vec<usize> {
    let cur = inst.len();
    let keep_regular = regular_share(priority, f64::from(n)).round() as usize;
    let regular_now = inst.iter().filter(|i| !i.spot()).count();
    let total = cur.saturating_sub(n as usize);
    let mut drop_regular = regular_now.saturating_sub(keep_regular).min(total);
    let mut drop_spot = total - drop_regular;
    let spot_now = cur - regular_now;
    if drop_spot > spot_now {
        drop_regular += drop_spot - spot_now;
        drop_spot = spot_now;
    }
    let mut gone = vec![false; cur];
    let mut out = Vec::with_capacity(total);
    let zones = zones.max(1) as usize;
    for (spot, mut count) in [(false, drop_regular), (true, drop_spot)] {
        while count > 0 {
            let pick = match order {
                ScaleInOrder::Default => {
                    // the zone with the most VMs left, then the highest instance ID in it
                    let mut per_zone = vec![0usize; zones];
                    for (k, i) in inst.iter().enumerate() {
                        if !gone[k] {
                            per_zone[i.zone() as usize % zones] += 1;
                        }
                    }
                    inst.iter()
                        .enumerate()
                        .filter(|(k, i)| !gone[*k] && i.spot() == spot)
                        .max_by_key(|(_, i)| (per_zone[i.zone() as usize % zones], i.id()))
                        .map(|(k, _)| k)
                }
                ScaleInOrder::IdleFirst => inst
                    .iter()
                    .enumerate()
                    .filter(|(k, i)| !gone[*k] && i.spot() == spot)
                    .min_by_key(|(k, i)| {
                        (
                            if i.ready_at() > t { 0 } else { 1 },
                            i.busy(),
                            std::cmp::Reverse(*k),
                        )
                    })
                    .map(|(k, _)| k),
            };
            let Some(k) = pick else { break };
            gone[k] = true;
            out.push(k);
            count -= 1;
        }
    }
    out
}

/// The zones of the next `n` VMs of a scale-out: each goes to the zone with the fewest VMs (the
/// scale set spreads them; the lowest zone on a tie).
pub fn next_zones<M: Machine>(inst: &[M], zones: u32, n: u32) -> Vec<u32> {
    let zones = zones.max(1) as usize;
    let mut per_zone = vec![0usize; zones];
    for i in inst {
        per_zone[i.zone() as usize % zones] += 1;
    }
    (0..n)
        .map(|_| {
            let z = (0..zones).min_by_key(|z| (per_zone[*z], *z)).unwrap_or(0);
            per_zone[z] += 1;
            z as u32
        })
        .collect()
}
