//! Every default of the spec, in one place.
//!
//! Constant defaults are the functions of [`super::model::defaults`], re-exported here
//! (referenced by `#[serde(default = ...)]` in the model and by `default` in the JSON Schema; a
//! test keeps the two in step). Defaults that
//! depend on other fields are filled by [`apply`], which runs once after parsing, so that
//! `gpuform show` prints the spec every later stage sees.

use std::net::Ipv4Addr;

use ipnet::Ipv4Net;

use super::model::*;

pub use super::model::defaults::*;

/// `compute.osDisk.type` and `dataDisks[].type`: [`DiskType::default`].
pub fn disk_type() -> DiskType {
    DiskType::default()
}
/// `dataDisks[].caching`: [`DiskCaching::default`].
pub fn data_disk_caching() -> DiskCaching {
    DiskCaching::default()
}

/// Why the GPU collector cannot run on this pool (`None`: it can). The collector reads NVIDIA's
/// `nvidia-smi` (on Linux AMD sizes ROCm's `amd-smi`, else `rocm-smi`): on Linux a Python
/// script under systemd installed by cloud-init (a dev box: by the Custom Script Extension), on
/// Windows a PowerShell script under the Task Scheduler installed by the Custom Script
/// Extension; the Azure Monitor Agent needs a way out to Azure Monitor. Scale sets and dev
/// boxes (standalone VMs) alike.
pub fn gpu_monitoring_unsupported(
    s: &WorkloadSpec,
    size: Option<&crate::catalog::GpuSize>,
) -> Option<&'static str> {
    // dev boxes monitor their GPUs too (plan::gpu_devbox): the spec's shape decides nothing here
    let image = super::resolve::image(&s.compute.image);
    // Linux AMD pools are monitored (amd-smi, else rocm-smi); Windows has neither tool
    if image.os == OsType::Windows
        && size.is_some_and(|z| z.gpu_vendor == crate::catalog::GpuVendor::Amd)
    {
        return Some(
            "the Windows collector reads nvidia-smi; amd-smi and rocm-smi, which the Linux collector reads on AMD sizes, come with ROCm on Linux, not with the AMD Windows driver (AmdGpuDriverWindows)",
        );
    }
    None
}

/// Fill `monitoring.gpu.enabled` when the spec leaves it out: on where the collector can run.
/// Runs after the size and image are resolved.
pub fn resolve_gpu_monitoring(spec: &mut Spec) {
    let on = gpu_monitoring_enabled(&spec.spec, spec.size());
    spec.spec.monitoring.gpu.enabled = Some(on);
}

/// `monitoring.gpu.enabled` as [`resolve_gpu_monitoring`] resolves it, without changing the spec
/// (`size`: the pool's, resolved).
pub fn gpu_monitoring_enabled(s: &WorkloadSpec, size: Option<&crate::catalog::GpuSize>) -> bool {
    s.monitoring
        .gpu
        .enabled
        .unwrap_or_else(|| gpu_monitoring_unsupported(s, size).is_none())
}

/// Azure reserves five addresses in every subnet.
pub const AZURE_RESERVED_ADDRESSES: u64 = 5;

/// Fill the defaults that depend on other fields. Idempotent; never fails (invalid input is
/// left for the rules to report).
/// `compute.zonesByRegion`'s entry for `region` (region names compare without case).
pub fn zones_for<'a>(
    by_region: &'a std::collections::BTreeMap<String, Vec<String>>,
    region: &str,
) -> Option<&'a Vec<String>> {
    by_region
        .iter()
        .find(|(r, _)| r.eq_ignore_ascii_case(region.trim()))
        .map(|(_, z)| z)
}

pub fn apply(spec: &mut Spec) {
    let s = &mut spec.spec;
    // a standby pool's minReady is its maxReady unless written (Azure's 0 empties the pool at
    // the peak: facts::standby::pool_size)
    if let Some(sb) = s.autoscale.as_mut().and_then(|a| a.standby.as_mut())
        && sb.min_ready.is_none()
    {
        sb.min_ready = Some(sb.max_ready);
    }
    if s.capacity.default.is_none() {
        s.capacity.default = Some(s.capacity.min);
    }
    for sched in s.autoscale.iter_mut().flat_map(|a| a.schedules.iter_mut()) {
        if sched.default.is_none() {
            sched.default = Some(sched.min);
        }
    }
    // zone pinning per region: the first preferred zone of the spec's region (a `zones` written
    // next to it is left alone; the rules flag a disagreement)
    if s.compute.zones.is_empty()
        && let Some(first) =
            zones_for(&s.compute.zones_by_region, &s.region).and_then(|z| z.first())
    {
        s.compute.zones = vec![first.clone()];
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
    if let Some(sv) = s.serving.as_mut() {
        serving_defaults(sv);
    }
    // an existing subnet (landing zone) has its own range: nothing to derive
    if s.network.existing_subnet.is_none()
        && let Ok(space) = s.network.address_space.parse::<Ipv4Net>()
    {
        let given = |subnet: &Option<String>| {
            subnet
                .as_deref()
                .and_then(|t| t.parse::<Ipv4Net>().ok())
                .map(|n| n.trunc())
        };
        let (w, pe) = derive_subnets(
            space.trunc(),
            s.capacity.max,
            given(&s.network.workload_subnet),
            given(&s.network.private_endpoint_subnet),
        );
        if s.network.workload_subnet.is_none() {
            s.network.workload_subnet = w.map(|n| n.to_string());
        }
        if s.network.private_endpoint_subnet.is_none() {
            s.network.private_endpoint_subnet = pe.map(|n| n.to_string());
        }
        if let Some(sv) = s.serving.as_mut() {
            // the frontend's own subnets, after the workload and private endpoint subnets
            let mut taken: Vec<Ipv4Net> = [
                &s.network.workload_subnet,
                &s.network.private_endpoint_subnet,
                &sv.frontend.subnet,
                &sv.frontend.private_link_subnet,
            ]
            .into_iter()
            .filter_map(given)
            .collect();
            let after = taken
                .iter()
                .map(|n| u32::from(n.broadcast()))
                .max()
                .and_then(|b| b.checked_add(1))
                .map(Ipv4Addr::from)
                .unwrap_or(space.network());
            let space = space.trunc();
            if sv.frontend.kind.has_gateway() && sv.frontend.subnet.is_none() {
                let prefix = crate::facts::serving::GATEWAY_SUBNET_PREFIX.max(space.prefix_len());
                if let Some(n) = first_free(space, prefix, after, &taken) {
                    taken.push(n);
                    sv.frontend.subnet = Some(n.to_string());
                }
            }
            if sv.frontend.private_link
                && sv.frontend.kind.has_load_balancer()
                && sv.frontend.private_link_subnet.is_none()
                && let Some(n) = first_free(
                    space,
                    crate::facts::serving::PLS_SUBNET_PREFIX.max(space.prefix_len()),
                    after,
                    &taken,
                )
            {
                sv.frontend.private_link_subnet = Some(n.to_string());
            }
        }
    }
}

/// The model server's defaults where its documentation gives them
/// ([`crate::facts::serving::server_defaults`]), and the drain timeout from the request timeout.
fn serving_defaults(sv: &mut Serving) {
    let known = sv
        .server
        .and_then(|x| crate::facts::serving::server_defaults(x.as_str()));
    if sv.port.is_none() {
        sv.port = known.and_then(|k| match sv.protocol {
            ServingProtocol::Http => k.port,
            ServingProtocol::Grpc => k.grpc_port,
        });
    }
    if sv.health_port.is_none() {
        sv.health_port = match sv.protocol {
            ServingProtocol::Http => sv.port,
            ServingProtocol::Grpc => known.and_then(|k| k.http_port),
        };
    }
    if sv.health_path.is_none() {
        sv.health_path = known.and_then(|k| k.health_path).map(String::from);
    }
    // a request in flight may run until the request timeout: drain that long (Azure's maximum
    // is 3600 s); an unparsable timeout is left for the rules
    if sv.drain_timeout.is_none()
        && let Some(ms) = super::schedule::parse_duration_millis(&sv.request_timeout)
    {
        let max = crate::facts::serving::DRAIN_SECONDS.1;
        sv.drain_timeout = Some(if ms > max * 1000 {
            format!("{max}s")
        } else {
            sv.request_timeout.clone()
        });
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

/// The subnets the spec leaves out, placed around the ones it gives: the workload subnet (a /24,
/// larger when `max` needs it, smaller when only that fits) at the first free place in the
/// address space, and
/// a /27 for private endpoints at the first free place after the workload subnet. `None` when
/// the address space has no room.
fn derive_subnets(
    space: Ipv4Net,
    max: u32,
    workload: Option<Ipv4Net>,
    pe: Option<Ipv4Net>,
) -> (Option<Ipv4Net>, Option<Ipv4Net>) {
    // a /24 when there is room for it, else the smallest subnet that holds `max`
    let preferred = prefix_for(max).min(24).max(space.prefix_len());
    let pe_after = |w: Ipv4Net| {
        let after = u32::from(w.broadcast()).checked_add(1).map(Ipv4Addr::from);
        first_free(space, 27, after.unwrap_or(space.network()), &[w])
    };
    if workload.is_none() && pe.is_none() {
        // both derived: the largest workload subnet that still leaves room for the /27
        for p in preferred..=prefix_for(max).max(preferred) {
            if let Some(w) = first_free(space, p, space.network(), &[])
                && let Some(e) = pe_after(w)
            {
                return (Some(w), Some(e));
            }
        }
    }
    let workload = workload.or_else(|| {
        (preferred..=prefix_for(max).max(preferred))
            .find_map(|p| first_free(space, p, space.network(), pe.as_slice()))
    });
    let pe = pe.or_else(|| match workload {
        Some(w) => pe_after(w),
        None => first_free(space, 27, space.network(), &[]),
    });
    (workload, pe)
}

/// The first aligned `/prefix` inside `space` at or after `from` (wrapping around to the start
/// of the space) that does not overlap `avoid`.
fn first_free(space: Ipv4Net, prefix: u8, from: Ipv4Addr, avoid: &[Ipv4Net]) -> Option<Ipv4Net> {
    if prefix < space.prefix_len() || prefix > 32 {
        return None;
    }
    let addr = |a: Ipv4Addr| u64::from(u32::from(a));
    let size = 1u64 << (32 - prefix);
    let (lo, hi) = (addr(space.network()), addr(space.broadcast()) + 1);
    let from = addr(from).clamp(lo, hi);
    for (start, end) in [(from, hi), (lo, from)] {
        let mut a = start.div_ceil(size) * size;
        while a < end && a + size <= hi {
            let net = Ipv4Net::new(Ipv4Addr::from(a as u32), prefix).ok()?;
            match avoid
                .iter()
                .find(|x| net.contains(&x.network()) || x.contains(&net.network()))
            {
                Some(x) => {
                    // skip past the taken range
                    a = ((addr(x.broadcast()) + 1).div_ceil(size) * size).max(a + size);
                }
                None => return Some(net),
            }
        }
    }
    None
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

    fn derive(space: &str, max: u32, w: Option<&str>, pe: Option<&str>) -> (String, String) {
        let net = |s: &str| s.parse::<Ipv4Net>().unwrap();
        let (w, pe) = derive_subnets(net(space), max, w.map(net), pe.map(net));
        let show = |n: Option<Ipv4Net>| n.map_or("none".to_string(), |n| n.to_string());
        (show(w), show(pe))
    }

    #[test]
    fn subnets_are_derived_inside_the_space() {
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(
            derive("10.40.0.0/16", 20, None, None),
            pair("10.40.0.0/24", "10.40.1.0/27")
        );
        assert_eq!(
            derive("10.40.0.0/16", 600, None, None),
            pair("10.40.0.0/22", "10.40.4.0/27")
        );
        // a small space: the workload subnet shrinks (towards max + 5 addresses) to leave
        // room for the private endpoint subnet
        assert_eq!(
            derive("10.1.2.0/24", 10, None, None),
            pair("10.1.2.0/25", "10.1.2.128/27")
        );
        // no room left for the private endpoint subnet at all
        assert_eq!(
            derive("10.1.2.0/27", 20, None, None),
            pair("10.1.2.0/27", "none")
        );
    }

    #[test]
    fn a_derived_subnet_avoids_the_one_the_spec_gives() {
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        // the private endpoints go after the user's (larger) workload subnet
        assert_eq!(
            derive("10.43.0.0/16", 20, Some("10.43.0.0/22"), None),
            pair("10.43.0.0/22", "10.43.4.0/27")
        );
        // ... and wrap around to the start of the space when it sits at the end
        assert_eq!(
            derive("10.43.0.0/16", 20, Some("10.43.255.0/24"), None),
            pair("10.43.255.0/24", "10.43.0.0/27")
        );
        // the workload subnet steps over the user's private endpoint subnet
        assert_eq!(
            derive("10.43.0.0/16", 20, None, Some("10.43.0.0/27")),
            pair("10.43.1.0/24", "10.43.0.0/27")
        );
        assert_eq!(
            derive("10.43.0.0/16", 600, None, Some("10.43.2.64/27")),
            pair("10.43.4.0/22", "10.43.2.64/27")
        );
        // a smaller workload subnet when a /24 does not fit beside it
        assert_eq!(
            derive("10.43.0.0/24", 10, None, Some("10.43.0.0/27")),
            pair("10.43.0.128/25", "10.43.0.0/27")
        );
        // no room for max + 5 addresses
        assert_eq!(
            derive("10.43.0.0/24", 200, None, Some("10.43.0.0/27")),
            pair("none", "10.43.0.0/27")
        );
    }

    #[test]
    fn subnet_prefix_counts_reserved_addresses() {
        assert_eq!(prefix_for(3), 29);
        assert_eq!(prefix_for(4), 28);
        assert_eq!(prefix_for(251), 24);
        assert_eq!(prefix_for(252), 23);
    }
}
