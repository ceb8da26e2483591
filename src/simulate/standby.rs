//! The standby pool in the replay (issue 23), read from the plan ([`StandbyPool`]).
//!
//! Azure keeps `max(maxReady - instances, minReady)` VMs in the pool
//! ([`crate::facts::standby::pool_size`]). A scale-out takes ready pooled VMs first: they serve
//! after the start delay of their state (a running pool: none; deallocated or hibernated:
//! [`StandbyPool::start_seconds`], gpuform's assumption, no source, overridable with
//! `--standby-start`); the rest of the scale-out provisions as usual. The pool refills at the
//! provisioning delay (a new pooled VM is built from the scale set's model and finishes every
//! post-provisioning step before it waits). Pooled VMs bill disks (deallocated, hibernated) or
//! compute (running) while they wait, and compute while they are built (a VM runs while it is
//! provisioned; deallocated, it bills its disks only: standby-pools overview, "Pricing"); the
//! replay counts both.

use serde::Serialize;

use crate::catalog::currency::Currency;

use crate::facts::standby as facts;
use crate::plan::standby::StandbyPool;

/// The pool as the replay sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Standby {
    pub max_ready: u32,
    pub min_ready: u32,
    /// `virtualMachineState` (`Deallocated`, `Hibernated`, `Running`).
    pub vm_state: &'static str,
    /// Seconds from the scale-out to a pooled VM serving.
    pub start_seconds: u32,
    /// `start_seconds` is an assumption (no document gives it): every output that depends on
    /// it says so.
    pub start_assumed: bool,
    /// Where `start_seconds` came from.
    pub start_source: String,
    /// A pooled VM bills compute while it waits (running pools).
    pub bills_compute: bool,
    /// `postProvisioningDelay` in seconds (0: none): a new pooled VM is taken only this long
    /// after it is provisioned, and runs meanwhile (an assumption,
    /// [`facts::POST_PROVISIONING_DELAY_RUNS`]).
    #[serde(skip_serializing_if = "is_zero")]
    pub post_provisioning_seconds: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Standby {
    /// From the plan; `start_override` (seconds, `--standby-start`) replaces the plan's start
    /// delay for pools that have one.
    pub fn from_plan(p: &StandbyPool, start_override: Option<u32>) -> Standby {
        let (start_seconds, start_source) = match start_override {
            Some(s) if p.start_seconds > 0 || p.start_assumed => (
                s,
                format!(
                    "--standby-start {}: an assumption (no Microsoft document gives the start \
                     time of a {} VM)",
                    minutes_label(s),
                    p.vm_state.to_lowercase()
                ),
            ),
            _ if p.start_assumed => (
                p.start_seconds,
                format!("ASSUMPTION: {}", facts::DEALLOCATED_START.what),
            ),
            _ => (p.start_seconds, "a running pool: no start delay".into()),
        };
        Standby {
            max_ready: p.max_ready,
            min_ready: p.min_ready,
            vm_state: p.vm_state,
            start_seconds,
            start_assumed: p.start_assumed || (start_override.is_some() && p.start_seconds > 0),
            start_source,
            bills_compute: p.bills_compute,
            post_provisioning_seconds: p.post_provisioning_seconds,
        }
    }

    /// The same pool with another size (`--tune` candidates).
    pub fn sized(&self, max_ready: u32, min_ready: u32) -> Standby {
        Standby {
            max_ready,
            min_ready: min_ready.min(max_ready),
            ..self.clone()
        }
    }

    /// The same pool with another start delay (the sensitivity runs).
    pub fn starting_in(&self, seconds: u32) -> Standby {
        Standby {
            start_seconds: seconds,
            ..self.clone()
        }
    }

    /// Azure's pool size while the scale set runs `instances`.
    pub fn size(&self, instances: u32) -> u32 {
        facts::pool_size(self.max_ready, self.min_ready, instances)
    }

    /// Whole minutes a new pooled VM waits after provisioning before a scale-out can take it
    /// (`postProvisioningDelay`, rounded up: the replay acts once a minute).
    pub fn post_provisioning_minutes(&self) -> usize {
        self.post_provisioning_seconds.div_ceil(60) as usize
    }

    /// Whole minutes from the scale-out to a pooled VM serving (rounded up: the replay acts
    /// once a minute).
    pub fn start_minutes(&self) -> usize {
        self.start_seconds.div_ceil(60) as usize
    }
}

/// `180` -> `3m`, `90` -> `90s`.
pub fn minutes_label(seconds: u32) -> String {
    if seconds.is_multiple_of(60) {
        format!("{}m", seconds / 60)
    } else {
        format!("{seconds}s")
    }
}

/// Parse `--standby-start`: `2m`, `90s`, `150` (seconds), or an ISO 8601 duration (`PT2M`).
pub fn parse_start(s: &str) -> Result<u32, String> {
    let t = s.trim();
    let bad = || {
        format!(
            "--standby-start '{s}' is not a duration: give minutes or seconds such as 2m, 90s or PT3M"
        )
    };
    let up = t.to_ascii_uppercase();
    if let Some(rest) = up.strip_prefix("PT") {
        let (num, unit) = rest.split_at(rest.len().saturating_sub(1));
        let n: f64 = num.parse().map_err(|_| bad())?;
        return match unit {
            "M" => Ok((n * 60.0).round() as u32),
            "S" => Ok(n.round() as u32),
            _ => Err(bad()),
        };
    }
    let (num, k) = if let Some(n) = t.strip_suffix("min") {
        (n, 60.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else {
        (t, 1.0)
    };
    let n: f64 = num.trim().parse().map_err(|_| bad())?;
    if !n.is_finite() || !(0.0..=24.0 * 3600.0).contains(&n) {
        return Err(bad());
    }
    Ok((n * k).round() as u32)
}

/// The pool during a replay: for each pooled VM, the minute from which a scale-out can take
/// it (before that it is still being built) and its zone. "When using standby pools with a
/// Virtual Machine Scale Set spanning availability zones, the instances in the pool are spread
/// across the same zones the Virtual Machine Scale Set is using. When a scale-out is triggered
/// in one of the zones, a virtual machine in the pool in that same zone is used. If a virtual
/// machine is needed in a zone where you no longer have any pooled virtual machines left, the
/// scale set creates a new virtual machine directly in the scale set" ([`facts::ZONES`]); how
/// the pool spreads its VMs is not written: gpuform puts each new pooled VM in the zone with
/// the fewest ([`facts::POOL_ZONE_SPREAD`], an assumption).
#[derive(Debug, Clone, Default)]
pub struct PoolState {
    vms: Vec<(usize, u32)>,
    zones: u32,
}

impl PoolState {
    /// The pool at the start of the trace: full and ready (like the scale set, it starts warm),
    /// spread over `zones` zones (1: a regional scale set).
    pub fn warm(s: &Standby, instances: u32, zones: u32) -> PoolState {
        let mut p = PoolState {
            vms: Vec::new(),
            zones: zones.max(1),
        };
        for _ in 0..s.size(instances) {
            let z = p.emptiest_zone();
            p.vms.push((0, z));
        }
        p
    }

    /// The zone with the fewest pooled VMs (the lowest on a tie).
    fn emptiest_zone(&self) -> u32 {
        (0..self.zones)
            .min_by_key(|z| (self.vms.iter().filter(|v| v.1 == *z).count(), *z))
            .unwrap_or(0)
    }

    /// Take a ready pooled VM in `zone` at minute `t` (the one ready longest); whether there was
    /// one.
    pub fn take_in(&mut self, t: usize, zone: u32) -> bool {
        let k = self
            .vms
            .iter()
            .enumerate()
            .filter(|(_, v)| v.0 <= t && v.1 % self.zones == zone % self.zones)
            .min_by_key(|(_, v)| v.0)
            .map(|(k, _)| k);
        match k {
            Some(k) => {
                self.vms.swap_remove(k);
                true
            }
            None => false,
        }
    }

    /// Take up to `n` ready pooled VMs at minute `t`, in any zone; how many were taken.
    pub fn take(&mut self, t: usize, n: u32) -> u32 {
        let mut taken = 0;
        while taken < n {
            let Some(k) = self.vms.iter().position(|r| r.0 <= t) else {
                break;
            };
            self.vms.swap_remove(k);
            taken += 1;
        }
        taken
    }

    /// Bring the pool to Azure's size for `instances` at the end of minute `t`: new pooled
    /// VMs are ready after the provisioning delay `p` plus the pool's `postProvisioningDelay`
    /// (they run, billed as compute, until then: [`PoolState::building`]), each in the zone
    /// with the fewest; a pool above its size loses the VMs still being built first.
    pub fn refill(&mut self, s: &Standby, t: usize, instances: u32, p: usize) {
        let want = s.size(instances) as usize;
        let ready = t + 1 + p + s.post_provisioning_minutes();
        while self.vms.len() < want {
            let z = self.emptiest_zone();
            self.vms.push((ready, z));
        }
        if self.vms.len() > want {
            self.vms.sort_unstable();
            self.vms.truncate(want);
        }
    }

    /// Pooled VMs (ready or being built): what bills while they wait.
    pub fn len(&self) -> usize {
        self.vms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vms.is_empty()
    }

    /// Pooled VMs still being built during minute `t` (a VM added at the end of minute `t0`
    /// counts for the provisioning delay's minutes from `t0`).
    pub fn building(&self, t: usize) -> usize {
        self.vms.iter().filter(|r| r.0 > t + 1).count()
    }

    /// Pooled VMs ready to be taken at minute `t`.
    pub fn ready(&self, t: usize) -> usize {
        self.vms.iter().filter(|r| r.0 <= t).count()
    }
}

/// The minutes at which the VMs of a scale-out at the end of minute `t` serve, one per zone of
/// `zones` (the zone the scale set puts each new VM in): a ready pooled VM of that zone after
/// the start delay, else a new VM after the provisioning delay `p`.
pub fn scale_out_ready_at(
    pool: &mut PoolState,
    s: &Standby,
    t: usize,
    zones: &[u32],
    p: usize,
) -> Vec<usize> {
    zones
        .iter()
        .map(|z| {
            if pool.take_in(t, *z) {
                t + 1 + s.start_minutes()
            } else {
                t + 1 + p
            }
        })
        .collect()
}

/// The pool sizes `--tune` tries (`maxReady`, with `minReady = maxReady`, gpuform's rendering
/// default; with Azure's 0 the pool is empty at the peak): from 0 (no pool) to the most the
/// scale set can take, `top` (its largest maximum: a pooled VM above it is never taken,
/// `standby-above-max`), and never more than Azure allows between the scale set at `top` and
/// its pool ([`facts::MAX_VMS_WITH_POOL`], `standby-vm-limit`). Every size up to 12, then
/// about x1.5 apart, and the largest. Quota is not known offline: `preflight` counts the pool's
/// vCPUs against it.
pub fn sizes(top: u32) -> Vec<u32> {
    let n = top.min(facts::MAX_VMS_WITH_POOL.saturating_sub(top));
    let mut v: Vec<u32> = (0..=n.min(12)).collect();
    let mut m = 12u32;
    while m < n {
        m = (m + m / 2).min(n);
        v.push(m);
    }
    v
}

/// One pool size tried by `--tune`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PoolTry {
    pub max_ready: u32,
    pub min_ready: u32,
    /// p95 wait in the nominal model and in the worst model variant (minutes).
    pub p95: f64,
    pub worst_p95: f64,
    /// Monthly cost of the pool's VMs and disks, standby disks included.
    pub monthly: Option<f64>,
    /// Meets the target under the required share of the variants.
    pub meets: bool,
    /// The pooled VMs' own share of `monthly` (their disks while they wait, compute while a
    /// refill is built).
    pub standby_monthly: Option<f64>,
    /// Instance-hours over the clairvoyant lower bound, and the same with the standby pool
    /// counted (its cost as instance-hours at the scale set's price per instance-hour).
    pub ratio: Option<f64>,
    pub ratio_with_standby: Option<f64>,
    /// Monthly cost of this size's proposal minus the cheapest policy at this size that meets
    /// the target in the nominal model only.
    pub cost_of_robustness: Option<f64>,
    /// Runs simulated for this size (policies x model variants).
    pub simulated: usize,
}

impl PoolTry {
    /// `, 1.31x bound (1.35x with the pool counted), standby pool $40/month (disks, builds)` (what
    /// is known), amounts in `cur`.
    pub fn bound_text(&self, cur: Currency) -> String {
        let mut s = String::new();
        if let Some(r) = self.ratio {
            s.push_str(&format!(", {r:.2}x bound"));
            if let Some(w) = self.ratio_with_standby {
                s.push_str(&format!(" ({w:.2}x with the pool counted)"));
            }
        }
        if let Some(m) = self.standby_monthly.filter(|m| *m > 0.0) {
            s.push_str(&format!(
                ", standby pool {}/month (disks, builds)",
                cur.whole(m)
            ));
        }
        s
    }
}

/// What `--tune` chose for the standby pool, and how it depends on the assumed start time.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PoolChoice {
    /// The start delay the choice assumed, and where it came from (an assumption).
    pub start_seconds: u32,
    pub start_source: String,
    pub tried: Vec<PoolTry>,
    /// The cheapest size that meets the target (`None`: none does).
    pub chosen: Option<PoolTry>,
    /// A price was missing, so the sizes were compared by the VM-hours billed (the scale set's
    /// and the pool's builds), the pool's disks not counted.
    pub compared_by_vm_hours: bool,
    /// The chosen size (or the spec's) when a pooled VM starts in each of
    /// [`SENSITIVITY_START_SECONDS`]: (seconds, result).
    pub sensitivity: Vec<(u32, PoolTry)>,
}

impl PoolChoice {
    /// Lines for the text report.
    pub fn lines(&self, cur: Currency) -> Vec<String> {
        self.lines_with(true, cur)
    }

    /// Lines for the text report; `tried`: a line per size tried (the joint search prints its
    /// own).
    pub fn lines_with(&self, tried: bool, cur: Currency) -> Vec<String> {
        let money =
            |m: Option<f64>| m.map_or("n/a".to_string(), |m| format!("{}/month", cur.whole(m)));
        let mut out = vec![format!(
            "standby pool (pooled VMs start in {}: {}):",
            minutes_label(self.start_seconds),
            self.start_source
        )];
        for t in self.tried.iter().filter(|_| tried) {
            out.push(format!(
                "  maxReady {} minReady {}: p95 {} min (worst variant {} min), {}{}{}",
                t.max_ready,
                t.min_ready,
                t.p95,
                t.worst_p95,
                money(t.monthly),
                t.bound_text(cur),
                if t.meets { "" } else { ", misses the target" }
            ));
        }
        match &self.chosen {
            Some(c) => out.push(format!(
                "  chosen: maxReady {} minReady {} ({})",
                c.max_ready,
                c.min_ready,
                if self.compared_by_vm_hours {
                    "the fewest VM-hours that meet the target: a price is missing, so the sizes are compared by the scale set's VM-hours and the pool's builds; the pool's disks are not counted"
                } else {
                    "the cheapest that meets the target"
                }
            )),
            None => out.push("  chosen: none of these sizes meets the target".into()),
        }
        for (secs, t) in &self.sensitivity {
            out.push(format!(
                "  if a pooled VM starts in {} (ASSUMPTION): p95 {} min (worst {} min), {}{}",
                minutes_label(*secs),
                t.p95,
                t.worst_p95,
                money(t.monthly),
                if t.meets { "" } else { ", misses the target" }
            ));
        }
        out
    }
}

/// The start delays the sensitivity reports (issue 23: "2 vs 4 minutes").
pub const SENSITIVITY_START_SECONDS: [u32; 2] = [120, 240];

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(max: u32, min: u32, start: u32) -> Standby {
        Standby {
            max_ready: max,
            min_ready: min,
            vm_state: "Deallocated",
            start_seconds: start,
            start_assumed: true,
            start_source: "test".into(),
            bills_compute: false,
            post_provisioning_seconds: 0,
        }
    }

    #[test]
    fn pool_size_follows_azures_formula() {
        // the overview: pool size = maxReadyCapacity - instanceCount, minReadyCapacity a floor
        let s = pool(4, 0, 180);
        assert_eq!(s.size(0), 4);
        assert_eq!(s.size(3), 1);
        assert_eq!(s.size(6), 0);
        let s = pool(4, 2, 180);
        assert_eq!(s.size(3), 2);
        assert_eq!(s.size(9), 2);
    }

    #[test]
    fn a_scale_out_takes_pooled_vms_first_then_provisions() {
        let s = pool(2, 2, 180);
        let mut st = PoolState::warm(&s, 0, 1);
        assert_eq!(st.len(), 2);
        let at = scale_out_ready_at(&mut st, &s, 10, &[0, 0, 0], 8);
        assert_eq!(at, vec![14, 14, 19]);
        assert!(st.is_empty());
        // the pool refills at the provisioning delay and cannot be taken before
        st.refill(&s, 10, 3, 8);
        assert_eq!(st.len(), 2);
        assert_eq!(st.ready(18), 0);
        assert_eq!(st.ready(19), 2);
        // built (running, billed as compute) for the provisioning delay: minutes 10 to 17
        let built: usize = (10..30).map(|t| st.building(t)).sum();
        assert_eq!(built, 2 * 8);
        assert_eq!(st.building(17), 2);
        assert_eq!(st.building(18), 0);
        let at = scale_out_ready_at(&mut st, &s, 12, &[0], 8);
        assert_eq!(at, vec![21]);
    }

    #[test]
    fn a_refill_waits_out_the_post_provisioning_delay_and_bills_it() {
        // postProvisioningDelay PT90S: "the duration to wait after virtual machine provisioning
        // before the virtual machine becomes available for use" (2 whole minutes in the replay)
        let s = Standby {
            post_provisioning_seconds: 90,
            ..pool(1, 1, 180)
        };
        assert_eq!(s.post_provisioning_minutes(), 2);
        let mut st = PoolState::warm(&s, 0, 1);
        assert_eq!(st.take(0, 1), 1);
        st.refill(&s, 10, 1, 8);
        // provisioned after 8 minutes, available 2 minutes later
        assert_eq!(st.ready(18), 0);
        assert_eq!(st.ready(20), 0);
        assert_eq!(st.ready(21), 1);
        // it runs (billed as compute) for the provisioning delay and the post-provisioning delay,
        // minutes 10 to 19
        let built: usize = (10..40).map(|t| st.building(t)).sum();
        assert_eq!(built, 8 + 2);
        // without the delay the same refill is ready at 19
        let plain = pool(1, 1, 180);
        let mut st = PoolState::warm(&plain, 0, 1);
        st.take(0, 1);
        st.refill(&plain, 10, 1, 8);
        assert_eq!(st.ready(19), 1);
    }

    #[test]
    fn a_zonal_scale_out_takes_a_pooled_vm_of_its_own_zone_only() {
        // the overview: the pool spreads over the scale set's zones; a scale-out in a zone uses
        // a pooled VM of that zone, else creates a new VM
        let s = pool(2, 2, 180);
        let mut st = PoolState::warm(&s, 0, 3);
        assert_eq!(st.len(), 2);
        // zones 0 and 1 hold one each; a scale-out of three (zones 0, 1, 2) takes two
        let at = scale_out_ready_at(&mut st, &s, 10, &[2, 0, 1], 8);
        assert_eq!(at, vec![19, 14, 14]);
        // the refill goes to the emptiest zones, so zones 0 and 1 again
        st.refill(&s, 10, 3, 8);
        let at = scale_out_ready_at(&mut st, &s, 30, &[2, 2], 8);
        assert_eq!(at, vec![39, 39]);
        let at = scale_out_ready_at(&mut st, &s, 30, &[1], 8);
        assert_eq!(at, vec![34]);
        // a regional scale set (one zone) takes any pooled VM
        let mut st = PoolState::warm(&s, 0, 1);
        assert_eq!(scale_out_ready_at(&mut st, &s, 5, &[0, 0], 8), vec![9, 9]);
    }

    #[test]
    fn a_pool_above_its_size_drops_the_vms_being_built() {
        let s = pool(4, 0, 120);
        let mut st = PoolState::warm(&s, 0, 1);
        st.take(0, 2);
        st.refill(&s, 5, 2, 8); // size 2 with 2 instances: nothing to add
        assert_eq!(st.len(), 2);
        st.refill(&s, 6, 0, 8); // scale-in to 0: size 4, two being built
        assert_eq!(st.len(), 4);
        st.refill(&s, 7, 3, 8); // size 1: keep a ready one
        assert_eq!(st.len(), 1);
        assert_eq!(st.ready(7), 1);
    }

    #[test]
    fn start_flag_parses_minutes_and_seconds() {
        assert_eq!(parse_start("2m"), Ok(120));
        assert_eq!(parse_start("90s"), Ok(90));
        assert_eq!(parse_start("PT4M"), Ok(240));
        assert_eq!(parse_start("150"), Ok(150));
        assert!(parse_start("soon").is_err());
        assert!(parse_start("-1m").is_err());
        assert_eq!(pool(1, 1, 150).start_minutes(), 3);
    }

    #[test]
    fn sizes_run_from_no_pool_to_what_the_scale_set_can_take() {
        assert_eq!(sizes(8), (0..=8).collect::<Vec<_>>());
        assert_eq!(sizes(0), vec![0]);
        // standby-vm-limit: the scale set at its maximum plus the pool stays within 1,000
        assert_eq!(sizes(999), vec![0, 1]);
        assert_eq!(*sizes(600).last().unwrap(), 400);
        let big = sizes(100);
        assert_eq!(*big.last().unwrap(), 100);
        assert!(
            big.len() < 20 && big.windows(2).all(|w| w[0] < w[1]),
            "{big:?}"
        );
    }
}
