//! Delivery of the data collection rule to a Flexible pool's VMs: the built-in DeployIfNotExists
//! policy, its roles and remediation.

use super::model::*;
use crate::spec::model::WorkloadSpec;

/// The per-VM association of a Flexible pool's VMs (`None` for Uniform scale sets and dev boxes,
/// whose association reaches their VMs).
pub fn dcr_policy(name: &str, s: &WorkloadSpec, windows: bool) -> Option<DcrPolicy> {
    use crate::facts::monitoring::{DCRA_VM_LINUX, DCRA_VM_WINDOWS};
    use crate::facts::roles::{LOG_ANALYTICS_CONTRIBUTOR, MONITORING_CONTRIBUTOR};
    if s.compute.orchestration != crate::spec::model::Orchestration::Flexible
        || super::super::devbox::applies(s)
    {
        return None;
    }
    let def = if windows {
        DCRA_VM_WINDOWS
    } else {
        DCRA_VM_LINUX
    };
    let roles = [MONITORING_CONTRIBUTOR, LOG_ANALYTICS_CONTRIBUTOR]
        .iter()
        .map(|r| {
            debug_assert!(def.role_ids.contains(&r.id));
            PolicyRole {
                sym: format!(
                    "gpuDcrPolicy{}",
                    r.name.split_whitespace().collect::<String>()
                ),
                name: r.name,
                id: r.id,
            }
        })
        .collect();
    let mut assignment_name = format!("{name}-gpu-dcr-association");
    assignment_name.truncate(64);
    Some(DcrPolicy {
        assignment_name,
        display_name: format!("{name}: associate every VM with the GPU telemetry rule"),
        definition_id: def.id,
        definition_name: def.display_name,
        source: def.source.what,
        roles,
        remediation_name: format!("{name}-gpu-dcr-association"),
        region_listed: def
            .locations
            .iter()
            .any(|l| l.eq_ignore_ascii_case(&s.region)),
    })
}
