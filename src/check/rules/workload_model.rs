//! Rules from the workload model (`workload.jobDuration`): does the autoscale policy meet its
//! own numbers? The same model `gpuform simulate` replays (crate::simulate::model; the
//! provisioning defaults both use live in crate::spec::provisioning).

use super::context::Context;
use crate::diag::Diagnostic;
use crate::spec::provisioning::provisioning_default;
use crate::spec::schedule::parse_duration;
use crate::spec::timezones::parse_hhmm;

/// A job that arrives just below the scale-out threshold waits about
/// `targetPerInstance × jobDuration / concurrentJobsPerInstance`; above this many minutes that
/// is no reasonable wait for a queue that scales on backlog.
pub const REASONABLE_WAIT_MINUTES: f64 = 30.0;

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
    let Some(a) = &s.autoscale else { return };
    let Some(q) = &a.queue else { return };
    for (i, tier) in q.scale_out_tiers.iter().enumerate() {
        if tier.above <= q.target_per_instance {
            out.push(
                Diagnostic::new(
                    "autoscale-tier-order",
                    format!(
                        "scale-out tier {} fires above {} messages per VM, not above targetPerInstance ({}): it fires whenever the base rule does",
                        i + 1,
                        tier.above,
                        q.target_per_instance
                    ),
                )
                .at(format!("/spec/autoscale/queue/scaleOutTiers/{i}/above"))
                .help(format!(
                    "a tier is for deeper backlogs: use `above: {}` or more, or raise scaleOutStep instead",
                    q.target_per_instance * 2
                )),
            );
        }
    }
    // the rest needs the job time
    let Some(job_secs) = s.workload.job_duration.as_deref().and_then(parse_duration) else {
        return;
    };
    let job_min = job_secs as f64 / 60.0;
    let conc = f64::from(s.workload.concurrent_jobs_per_instance.unwrap_or(1).max(1));
    let wait = f64::from(q.target_per_instance) * job_min / conc;
    if wait > REASONABLE_WAIT_MINUTES {
        let better = ((REASONABLE_WAIT_MINUTES / 3.0) * conc / job_min)
            .floor()
            .max(1.0);
        out.push(
            Diagnostic::new(
                "policy-wait-too-long",
                format!(
                    "with {} of {} each per VM, a backlog of {} per VM (targetPerInstance) is about {:.0} minutes of waiting before autoscale adds a VM",
                    crate::diag::plural(conc as usize, "job"), s.workload.job_duration.as_deref().unwrap_or(""), q.target_per_instance, wait
                ),
            )
            .at("/spec/autoscale/queue/targetPerInstance")
            .help(format!(
                "a target of about {better} keeps the wait near 10 minutes; `gpuform simulate SPEC --trace FILE --tune --wait-p95 10m` finds the cheapest policy for a real trace"
            )),
        );
    }
    // ramp: from a schedule's minimum to its maximum, one scale-out per cooldown
    let Some(size) = ctx.size() else { return };
    let (prov, _) = provisioning_default(&size.series, ctx.image().has_gpu_drivers);
    let Some(cooldown) = parse_duration(&a.scale_out_cooldown).map(|s| s.div_ceil(60) as u32)
    else {
        return;
    };
    let step = q
        .scale_out_tiers
        .iter()
        .map(|t| t.step)
        .chain([q.scale_out_step.unwrap_or(1)])
        .max()
        .unwrap_or(1)
        .max(1);
    for (i, sched) in a.schedules.iter().enumerate() {
        let (Some(st), Some(en)) = (parse_hhmm(&sched.start), parse_hhmm(&sched.end)) else {
            continue;
        };
        let len = if en > st { en - st } else { en + 1440 - st };
        if sched.max <= sched.min {
            continue;
        }
        let actions = (sched.max - sched.min).div_ceil(step);
        // the last action's instances still need to provision
        let ramp = actions.saturating_sub(1) * cooldown.max(1) + prov;
        if ramp > len {
            out.push(
                Diagnostic::new(
                    "policy-ramp-too-slow",
                    format!(
                        "schedule `{}` lasts {len} minutes, but going from {} to {} VMs takes {actions} scale-outs of {step}, {} minutes apart, plus {prov} minutes for the last VMs to serve: {ramp} minutes",
                        sched.name, sched.min, sched.max, cooldown
                    ),
                )
                .at(format!("/spec/autoscale/schedules/{i}"))
                .help("add VMs faster (autoscale.queue.scaleOutStep or scaleOutTiers, a shorter scaleOutCooldown) or start the schedule with a higher min"),
            );
        }
    }
}
