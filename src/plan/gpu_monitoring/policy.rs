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
    // one definition per cloud (Azure Government has its own files, versions and regions)
    let cloud = s.effective_cloud().name();
    let in_cloud = def.in_cloud(cloud);
    Some(DcrPolicy {
        assignment_name,
        display_name: format!("{name}: associate every VM with the GPU telemetry rule"),
        definition_id: def.id,
        definition_name: def.display_name,
        source: in_cloud.map_or(
            "Azure/azure-policy has no definition file of it for this cloud",
            |c| c.source.what,
        ),
        definition_version: in_cloud.map(|c| c.version),
        roles,
        remediation_param: REMEDIATION_PARAM,
        remediation_prefix: remediation_prefix(name),
        remediation_stamp: REMEDIATION_STAMP,
        region_listed: def.acts_in(cloud, &s.region),
    })
}

/// The template parameter that names the remediation a deployment starts.
pub const REMEDIATION_PARAM: &str = "gpuDcrRemediationName";

/// `<name>-gpu-dcr`, cut so that the prefix, a hyphen and a [`REMEDIATION_STAMP_LEN`]-digit
/// stamp stay within 64 characters.
pub fn remediation_prefix(name: &str) -> String {
    let mut prefix = format!("{name}-gpu-dcr");
    prefix.truncate(64 - 1 - REMEDIATION_STAMP_LEN);
    prefix
}

/// `yyyyMMddHHmmssfff`: the UTC time of the deployment to the millisecond, in the template's
/// `utcNow()` format (.NET custom date and time format strings, which `utcNow` takes).
pub const REMEDIATION_STAMP: &str = "yyyyMMddHHmmssfff";
pub const REMEDIATION_STAMP_LEN: usize = 17;

/// The remediation's name for a deployment started at `stamp` ([`REMEDIATION_STAMP`]): each
/// deployment starts its own, because Azure refuses to change or replace a remediation while it
/// is active ([`crate::facts::monitoring::REMEDIATION_ACTIVE`]) and a compliance scan has no
/// guaranteed end. `gpuform deploy` passes it; the template's default is the same from
/// `utcNow()`.
pub fn remediation_name(prefix: &str, stamp: &str) -> String {
    format!("{prefix}-{stamp}")
}

/// The Logs Ingestion path (`monitoring.gpu.delivery`): `ingestion` on a Linux pool, or `auto` on
/// a Flexible Linux pool whose per-VM association policy does not act in the pool's region. Dev
/// boxes (an association on the VM) and Windows pools keep the agent; `gpuform validate` refuses
/// `ingestion` there (`gpu-delivery`).
pub fn ingestion(s: &WorkloadSpec, windows: bool, policy: Option<&DcrPolicy>) -> Option<Ingestion> {
    use crate::facts::logs_ingestion as li;
    use crate::spec::model::GpuDelivery;
    if windows || super::super::devbox::applies(s) {
        return None;
    }
    let why = match (s.monitoring.gpu.delivery, policy) {
        (GpuDelivery::Ingestion, _) => "monitoring.gpu.delivery: ingestion".to_string(),
        (GpuDelivery::Auto, Some(p)) if !p.region_listed => match p.definition_version {
            Some(v) => format!(
                "the built-in policy {} that associates each VM of a Flexible scale set does not list the region {} ({} {v}, {})",
                p.definition_id,
                s.region,
                s.effective_cloud().name(),
                p.source
            ),
            None => format!(
                "the built-in policy {} that associates each VM of a Flexible scale set has no definition for {} ({})",
                p.definition_id,
                s.effective_cloud().name(),
                p.source
            ),
        },
        _ => return None,
    };
    Some(Ingestion {
        api_version: li::API_VERSION,
        audience: li::audience(s.effective_cloud()),
        token_url: format!(
            "{}?api-version={}",
            li::IMDS_TOKEN_URL,
            li::IMDS_TOKEN_API_VERSION
        ),
        max_body_bytes: li::MAX_BODY_BYTES,
        why,
        endpoint_choice: li::ENDPOINT_CHOICE,
        placeholders: PLACEHOLDERS,
    })
}
