//! Capacity: the scale set's instances (or the dev box VM) by state, priority, zone and health.

use crate::azure::operate::Vm;

use super::model::Instances;

fn code_tail(code: &str) -> &str {
    code.split_once('/').map_or(code, |(_, t)| t)
}

/// Count the instances by state, priority, zone and health.
pub fn count(vms: &[Vm], default_priority: &str) -> Instances {
    let mut i = Instances {
        total: vms.len(),
        ..Default::default()
    };
    for vm in vms {
        let view = vm.properties.instance_view.as_ref();
        *i.by_state.entry(power_state(vm)).or_default() += 1;
        *i.by_priority
            .entry(priority_of(vm, default_priority))
            .or_default() += 1;
        *i.by_zone.entry(zone_of(vm)).or_default() += 1;
        let health = view
            .and_then(|v| v.vm_health.as_ref())
            .and_then(|h| h.status.as_ref())
            .map(|s| code_tail(&s.code).to_string())
            .unwrap_or_else(|| "not reported".into());
        *i.by_health.entry(health).or_default() += 1;
    }
    i
}

/// The power state of one VM from its instance view (the provisioning state when the view
/// has none).
pub(super) fn power_state(vm: &Vm) -> String {
    vm.properties
        .instance_view
        .as_ref()
        .and_then(|v| {
            v.statuses
                .iter()
                .find(|s| s.code.starts_with("PowerState/"))
                .map(|s| code_tail(&s.code).to_string())
        })
        .or_else(|| {
            vm.properties
                .provisioning_state
                .clone()
                .map(|p| p.to_ascii_lowercase())
        })
        .unwrap_or_else(|| "unknown".into())
}

pub(super) fn priority_of(vm: &Vm, default_priority: &str) -> String {
    let prio = vm
        .properties
        .priority
        .clone()
        .unwrap_or_else(|| default_priority.to_string());
    if prio.eq_ignore_ascii_case("Low") {
        "Spot".into()
    } else {
        prio
    }
}

pub(super) fn zone_of(vm: &Vm) -> String {
    vm.zones
        .first()
        .map(|z| format!("zone {z}"))
        .unwrap_or_else(|| "regional".into())
}
