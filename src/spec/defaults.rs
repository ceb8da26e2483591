//! Every default of the spec, in one place.
//!
//! Constant defaults are the functions below (referenced by `#[serde(default = ...)]` in the
//! model and by `default` in the JSON Schema; a test keeps the two in step). Defaults that
//! depend on other fields are filled by [`apply`], which runs once after parsing, so that
//! `gpuform show` prints the spec every later stage sees.

use std::net::Ipv4Addr;

use ipnet::Ipv4Net;

use super::model::*;

pub fn vm_size() -> String {
    "auto".into()
}
pub fn admin_username() -> String {
    "azureuser".into()
}
pub fn image_version() -> String {
    "latest".into()
}
pub fn generation() -> HyperVGeneration {
    HyperVGeneration::V2
}
pub fn os_disk_size() -> u32 {
    128
}
pub fn disk_type() -> DiskType {
    DiskType::PremiumLrs
}
pub fn data_disk_caching() -> DiskCaching {
    DiskCaching::ReadOnly
}
pub fn yes() -> bool {
    true
}
pub fn repair_grace_period() -> String {
    "PT30M".into()
}
pub fn capacity_min() -> u32 {
    1
}
pub fn regular_percent_above_base() -> u32 {
    100
}
pub fn spot_max_price() -> f64 {
    -1.0
}
pub fn scale_out_cooldown() -> String {
    "PT5M".into()
}
pub fn scale_in_cooldown() -> String {
    "PT15M".into()
}
pub fn time_window() -> String {
    "PT5M".into()
}
pub fn address_space() -> String {
    "10.0.0.0/16".into()
}
pub fn soft_delete_days() -> u32 {
    90
}
pub fn log_retention_days() -> u32 {
    30
}
pub fn currency() -> String {
    "USD".into()
}
pub fn budget_thresholds() -> Vec<f64> {
    vec![50.0, 80.0, 100.0]
}
pub fn auto_start_time() -> String {
    "08:00".into()
}

/// Azure reserves five addresses in every subnet.
pub const AZURE_RESERVED_ADDRESSES: u64 = 5;

/// Fill the defaults that depend on other fields. Idempotent; never fails (invalid input is
/// left for the rules to report).
pub fn apply(spec: &mut Spec) {
    let s = &mut spec.spec;
    if s.capacity.default.is_none() {
        s.capacity.default = Some(s.capacity.min);
    }
    for sched in s.autoscale.iter_mut().flat_map(|a| a.schedules.iter_mut()) {
        if sched.default.is_none() {
            sched.default = Some(sched.min);
        }
    }
    let lowest_min = lowest_min(s);
    if let Some(q) = s.autoscale.as_mut().and_then(|a| a.queue.as_mut())
        && q.scale_in_below.is_none()
    {
        q.scale_in_below = Some(flap_safe_scale_in(q.target_per_instance, lowest_min));
    }
    if let Some(probe) = s.compute.health_probe.as_mut()
        && probe.path.is_none()
        && probe.protocol != ProbeProtocol::Tcp
    {
        probe.path = Some("/".into());
    }
    if let Ok(space) = s.network.address_space.parse::<Ipv4Net>() {
        let (w, pe) = derive_subnets(space, s.capacity.max);
        if s.network.workload_subnet.is_none() {
            s.network.workload_subnet = w.map(|n| n.to_string());
        }
        if s.network.private_endpoint_subnet.is_none() {
            s.network.private_endpoint_subnet = pe.map(|n| n.to_string());
        }
    }
}

/// The lowest instance floor any profile can reach (schedules and auto-shutdown included).
pub fn lowest_min(s: &WorkloadSpec) -> u32 {
    let mut m = s.capacity.min;
    if let Some(a) = &s.autoscale {
        for sched in &a.schedules {
            m = m.min(sched.min);
        }
    }
    if s.auto_shutdown.is_some() {
        m = 0;
    }
    m
}

/// The largest scale-in threshold (messages per instance) that cannot flap with a scale-out
/// threshold of `target`: after removing one instance from `n`, the per-instance backlog
/// `below * n / (n - 1)` must stay under `target`. The worst case is the smallest `n` at which
/// a scale-in can happen, `n = max(min, 1) + 1`.
pub fn flap_safe_scale_in(target: u32, min: u32) -> u32 {
    let n = u64::from(min.max(1));
    // largest s with s * (n + 1) < target * n
    let t = u64::from(target) * n;
    if t == 0 {
        return 0;
    }
    ((t - 1) / (n + 1)) as u32
}

/// Smallest prefix length whose subnet holds `instances` VMs plus Azure's reserved addresses.
pub fn prefix_for(instances: u32) -> u8 {
    let need = u64::from(instances) + AZURE_RESERVED_ADDRESSES;
    let mut prefix = 29u8; // the smallest subnet Azure allows
    while prefix > 8 && (1u64 << (32 - prefix)) < need {
        prefix -= 1;
    }
    prefix
}

/// Workload subnet (at least a /24, larger when `max` needs it) at the start of the address
/// space, and a /27 for private endpoints right after it.
fn derive_subnets(space: Ipv4Net, max: u32) -> (Option<Ipv4Net>, Option<Ipv4Net>) {
    let prefix = prefix_for(max).min(24).max(space.prefix_len());
    let base = u32::from(space.network());
    let workload = Ipv4Net::new(Ipv4Addr::from(base), prefix).ok();
    let pe = workload.and_then(|w| {
        let next = u32::from(w.broadcast()).checked_add(1)?;
        let pe = Ipv4Net::new(Ipv4Addr::from(next), 27).ok()?;
        (space.contains(&pe) && pe.network() == Ipv4Addr::from(next)).then_some(pe)
    });
    (workload, pe)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flap_safe_threshold_never_flaps() {
        for target in 1..200 {
            for min in 0..10 {
                let s = flap_safe_scale_in(target, min);
                let n = u64::from(min.max(1));
                // projecting the scale-in backlog onto one instance fewer stays under target
                assert!(
                    u64::from(s) * (n + 1) < u64::from(target) * n,
                    "target {target} min {min} s {s}"
                );
                // and it is the largest such threshold
                assert!(u64::from(s + 1) * (n + 1) >= u64::from(target) * n);
            }
        }
        assert_eq!(flap_safe_scale_in(30, 1), 14);
        assert_eq!(flap_safe_scale_in(30, 0), 14);
        assert_eq!(flap_safe_scale_in(30, 2), 19);
    }

    #[test]
    fn subnets_are_derived_inside_the_space() {
        let (w, pe) = derive_subnets("10.40.0.0/16".parse().unwrap(), 20);
        assert_eq!(w.unwrap().to_string(), "10.40.0.0/24");
        assert_eq!(pe.unwrap().to_string(), "10.40.1.0/27");
        let (w, pe) = derive_subnets("10.40.0.0/16".parse().unwrap(), 600);
        assert_eq!(w.unwrap().to_string(), "10.40.0.0/22");
        assert_eq!(pe.unwrap().to_string(), "10.40.4.0/27");
        let (w, pe) = derive_subnets("10.1.2.0/24".parse().unwrap(), 10);
        assert_eq!(w.unwrap().to_string(), "10.1.2.0/24");
        assert_eq!(pe, None, "no room left for the private endpoint subnet");
    }

    #[test]
    fn subnet_prefix_counts_reserved_addresses() {
        assert_eq!(prefix_for(3), 29);
        assert_eq!(prefix_for(4), 28);
        assert_eq!(prefix_for(251), 24);
        assert_eq!(prefix_for(252), 23);
    }
}
