//! The standby pool's line (issue 23), read from the plan ([`StandbyPool`]).
//!
//! A deallocated or hibernated pooled VM bills its disks, not compute; a running one bills
//! compute as well (facts: [`crate::facts::standby::VmState::bills_compute`]). gpuform prices
//! the pool at its largest: Azure keeps `max(maxReady - instances, minReady)` VMs in it, the
//! most while the scale set runs its minimum. `simulate` replays the pool minute by minute and
//! reports the pool-minutes it measured; this line is the conservative monthly figure.

use serde::{Deserialize, Serialize};

use crate::plan::standby::StandbyPool;

pub const HOURS_PER_MONTH: f64 = 730.0;

/// The pool's cost line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StandbyCost {
    /// Pooled VMs priced (the pool at its largest).
    pub vms: u32,
    /// `virtualMachineState`.
    pub vm_state: String,
    /// The OS (and data) disks of the pooled VMs, per month.
    pub disks_monthly: Option<f64>,
    /// Compute of the pooled VMs (running pools only; 0 otherwise), per month.
    pub compute_monthly: Option<f64>,
    /// Both; `None` when a price is missing.
    pub monthly: Option<f64>,
    /// One pooled VM for a month (what `simulate` multiplies by the pool it measured).
    pub per_vm_monthly: Option<f64>,
    pub label: String,
}

/// Pooled VMs at the pool's largest (the scale set at its minimum `min_instances`).
pub fn priced_vms(pool: &StandbyPool, min_instances: u32) -> u32 {
    pool.pool_size(min_instances)
}

/// Price the pool: `disks_monthly_per_vm` is the monthly price of one VM's disks (from the
/// price table, as the pool's own disk lines), `compute_hourly` the VM's hourly price (used
/// only when the pool bills compute).
pub fn price(
    pool: &StandbyPool,
    min_instances: u32,
    disks_monthly_per_vm: Option<f64>,
    compute_hourly: Option<f64>,
) -> StandbyCost {
    let vms = priced_vms(pool, min_instances);
    let n = f64::from(vms);
    let disks_monthly = disks_monthly_per_vm.map(|d| d * n);
    let compute_monthly = if pool.bills_compute {
        compute_hourly.map(|h| h * HOURS_PER_MONTH * n)
    } else {
        Some(0.0)
    };
    let per_vm_monthly = match (disks_monthly_per_vm, pool.bills_compute) {
        (Some(d), false) => Some(d),
        (Some(d), true) => compute_hourly.map(|h| d + h * HOURS_PER_MONTH),
        (None, _) => None,
    };
    let monthly = per_vm_monthly.map(|v| v * n);
    let what = if pool.bills_compute {
        "compute and disks, running"
    } else {
        "disks only, no compute while deallocated"
    };
    let label = format!(
        "standby pool {} ({vms} {} VM{}, maxReady {} minReady {}: {what})",
        pool.name,
        pool.vm_state.to_lowercase(),
        if vms == 1 { "" } else { "s" },
        pool.max_ready,
        pool.min_ready,
    );
    StandbyCost {
        vms,
        vm_state: pool.vm_state.to_string(),
        disks_monthly,
        compute_monthly,
        monthly,
        per_vm_monthly,
        label,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::standby::StandbyState;

    fn pool(state: StandbyState, max: u32, min: u32) -> StandbyPool {
        let vm = state.vm_state();
        StandbyPool {
            max_ready: max,
            min_ready: min,
            state,
            vm_state: vm.azure_name(),
            bills_compute: vm.bills_compute(),
            reserves_capacity: vm.reserves_capacity(),
            ..crate::plan::standby::sample()
        }
    }

    #[test]
    fn a_deallocated_pool_bills_its_disks_only() {
        let c = price(
            &pool(StandbyState::Deallocated, 2, 2),
            0,
            Some(19.71),
            Some(0.75),
        );
        assert_eq!(c.vms, 2);
        assert_eq!(c.compute_monthly, Some(0.0));
        assert!((c.monthly.unwrap() - 39.42).abs() < 1e-9);
        assert!(c.label.contains("disks only"), "{}", c.label);
    }

    #[test]
    fn the_pool_is_priced_at_its_largest() {
        // max(maxReady - instances, minReady): with 1 instance at the minimum, 3 pooled VMs
        let c = price(&pool(StandbyState::Deallocated, 4, 0), 1, Some(10.0), None);
        assert_eq!(c.vms, 3);
        assert_eq!(c.monthly, Some(30.0));
    }

    #[test]
    fn a_missing_price_leaves_the_line_open() {
        let c = price(&pool(StandbyState::Deallocated, 2, 2), 0, None, Some(1.0));
        assert_eq!(c.monthly, None);
    }
}
