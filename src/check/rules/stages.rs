//! What later stages refuse, refused by `validate` first (issue 26): each a validation error
//! with a rule id, so a pull-request check fails where render, simulate or deploy would.

use crate::diag::{Diagnostic, clip};
use crate::facts::naming;
use crate::spec::schedule::parse_duration;

use super::context::Context;

/// gpuform's MIME boundary in the custom data it assembles when GPU monitoring adds its part to
/// a cloud-init file (defined by the plan that assembles it); a file containing it cannot be
/// combined.
pub use crate::plan::gpu_monitoring::MIME_BOUNDARY;

/// The longest `workload.jobDuration`: the longest trace `simulate` replays (a year, 366 days);
/// a job longer than that cannot start and finish inside any trace.
pub const MAX_JOB_DURATION_SECS: u64 = 366 * 24 * 3600;

/// The resource ids of existing shared services, by pointer and type (the subnet, route table
/// and DNS zone ids have rules of their own in `landing_zone`).
const SHARED_IDS: [(&str, &str); 2] = [
    (
        "/spec/monitoring/existingWorkspace",
        "Microsoft.OperationalInsights/workspaces",
    ),
    (
        "/spec/security/existingKeyVault",
        "Microsoft.KeyVault/vaults",
    ),
];

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
    // every part of every shared-service id (subscription GUID, group, namespace, type, name):
    // they reach ARM templates and the commands printed for the platform team
    for ((ptr, ty), id) in SHARED_IDS.iter().zip([
        s.monitoring.existing_workspace.as_deref(),
        s.security.existing_key_vault.as_deref(),
    ]) {
        let Some(id) = id else { continue };
        if let Err(e) = crate::azure::resource_id::ArmId::parse_of(id, ty) {
            out.push(
                Diagnostic::new("resource-id-invalid", format!("`{}` is not a {ty} id: {e}", clip(id)))
                    .at(*ptr)
                    .locked()
                    .help(format!("copy the id from the resource's JSON view in the portal or `az resource show --query id`: /subscriptions/<GUID>/resourceGroups/<group>/providers/{ty}/<name>")),
            );
        }
    }
    if let Some(text) = s.workload.job_duration.as_deref() {
        let problem = match parse_duration(text) {
            None => Some(format!(
                "`{}` is not a duration with a length (PT2M or 2m)",
                clip(text)
            )),
            Some(0) => Some(format!("`{}` is zero", clip(text))),
            Some(secs) if secs > MAX_JOB_DURATION_SECS => Some(format!(
                "`{}` is longer than a year (P366D), the longest trace simulate replays",
                clip(text)
            )),
            Some(_) => None,
        };
        if let Some(p) = problem {
            out.push(
                Diagnostic::new("job-duration-invalid", format!("workload.jobDuration {p}"))
                    .at("/spec/workload/jobDuration")
                    .locked()
                    .help("give how long one job takes on one VM, more than zero and at most P366D: e.g. `PT2M`, `PT45S`, `PT1H30M`"),
            );
        }
    }
    if let Some(sb) = s
        .autoscale
        .as_ref()
        .and_then(|a| a.queue.as_ref())
        .and_then(|q| q.service_bus.as_ref())
        && let Some(p) = naming::service_bus_queue_problem(&sb.queue)
    {
        out.push(
            Diagnostic::new(
                "queue-name-invalid",
                format!("Service Bus queue name `{}` {p}", clip(&sb.queue)),
            )
            .at("/spec/autoscale/queue/serviceBus/queue")
            .locked()
            .help(format!(
                "a Service Bus queue name has 1-260 letters, digits, periods, hyphens and underscores, starting and ending with a letter or digit ({})",
                naming::NAME_RULES.what
            )),
        );
    }
}
