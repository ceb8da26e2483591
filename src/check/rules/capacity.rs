//! Capacity, the spot/regular mix and the autoscale setting's limits.

use super::context::Context;
use crate::catalog::GpuSize;
use crate::diag::{Diagnostic, Severity};
use crate::spec::defaults::flap_safe_scale_in;
use crate::spec::model::{EvictionPolicy, Orchestration};
use crate::spec::{schedule, timezones};

/// Azure's limit on the profiles of an autoscale setting. (Its limit of 10 rules per profile
/// holds by construction: every metric-driven profile carries the same scale-out/scale-in
/// pair; a test below keeps the rendered plan to it.) Sourced in `facts::autoscale`.
pub const MAX_PROFILES: usize = crate::facts::autoscale::MAX_PROFILES_PER_SETTING;

/// The size-dependent half (Spot support). Run for the spec's size, and by `vmSize: auto` for
/// every candidate (see [`super::size_checks`]).
pub fn check_size(ctx: &Context<'_>, size: &GpuSize, out: &mut Vec<Diagnostic>) {
    if ctx.spec.spec.capacity.uses_spot() && size.spot_capable == Some(false) {
        out.push(
            Diagnostic::new(
                "spot-not-supported",
                format!("{} cannot run as Spot", size.name),
            )
            .at("/spec/capacity/regularPercentAboveBase")
            .help("set `regularPercentAboveBase: 100`, or pick a Spot-capable size"),
        );
    }
}

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
    let c = &s.capacity;
    if let Some(size) = ctx.size() {
        check_size(ctx, size, out);
    }
    let default = c.default_count();
    if c.min > c.max {
        out.push(
            Diagnostic::new(
                "capacity-order",
                format!(
                    "capacity.min ({}) is larger than capacity.max ({})",
                    c.min, c.max
                ),
            )
            .at("/spec/capacity/min")
            .help("keep min <= default <= max"),
        );
    } else if default < c.min || default > c.max {
        out.push(
            Diagnostic::new(
                "capacity-order",
                format!(
                    "capacity.default ({default}) is outside min..max ({}..{})",
                    c.min, c.max
                ),
            )
            .at("/spec/capacity/default")
            .help("keep min <= default <= max"),
        );
    }
    if c.regular_base > c.max {
        out.push(
            Diagnostic::new(
                "regular-base-above-max",
                format!(
                    "regularBase ({}) is larger than max ({})",
                    c.regular_base, c.max
                ),
            )
            .at("/spec/capacity/regularBase")
            .help(format!("lower regularBase to at most {}", c.max)),
        );
    }
    if c.uses_spot() {
        if !s.workload.interruptible {
            out.push(
                Diagnostic::new(
                    "spot-not-interruptible",
                    format!(
                        "instances above regularBase run on Spot ({}% regular), but the workload is not interruptible",
                        c.regular_percent_above_base
                    ),
                )
                .at("/spec/capacity/regularPercentAboveBase")
                .label("Spot VMs can be evicted with 30 seconds' notice")
                .help("set `workload.interruptible: true` if work is re-queued or checkpointed; otherwise `regularPercentAboveBase: 100`"),
            );
        }
        if ctx.spec.spec.compute.orchestration == Orchestration::Uniform {
            // an all-Spot Uniform pool renders; a regular share on Uniform cannot (no priority
            // mix there), so that finding is one a policy cannot switch off
            let mix = c.regular_base > 0 || c.regular_percent_above_base > 0;
            let d = Diagnostic::new(
                "spot-needs-flexible",
                "a spot/regular mix needs Flexible orchestration",
            )
            .at("/spec/compute/orchestration")
            .help(
                "use `orchestration: flexible` (priorityMixPolicy exists only there), or no Spot",
            );
            out.push(if mix { d.locked() } else { d });
        }
        // a dev box is never scaled: deallocating it on eviction keeps its disks, as wanted
        if c.eviction_policy == EvictionPolicy::Deallocate
            && schedule::has_setting(s)
            && !crate::plan::devbox::applies(s)
        {
            out.push(
                Diagnostic::new("spot-eviction-deallocate", "evicted Spot VMs are deallocated in an autoscaled pool")
                    .at("/spec/capacity/evictionPolicy")
                    .help("use `evictionPolicy: Delete`: deallocated VMs keep counting against quota and as capacity"),
            );
        }
        if s.workload.distributed {
            out.push(
                Diagnostic::new("distributed-spot", "multi-node training on Spot: one eviction stops the whole job")
                    .at("/spec/capacity/regularPercentAboveBase")
                    .help("checkpoint often and set `interruptible: true` knowingly, or use regular priority"),
            );
        }
    }
    if s.workload.distributed && c.max > 100 {
        out.push(
            Diagnostic::new(
                "infiniband-scale-limit",
                format!(
                    "{} instances cannot share one InfiniBand placement group (100 at most)",
                    c.max
                ),
            )
            .at("/spec/capacity/max")
            .help("split the job into pools of at most 100 VMs"),
        );
    }
    let profiles = schedule::profiles(s);
    let has_queue = s.autoscale.as_ref().is_some_and(|a| a.queue.is_some());
    // a serving pool at zero: `serving-scale-from-zero` says why and what to do
    if !has_queue && s.serving.is_none() && profiles.iter().all(|p| p.default == 0) {
        out.push(
            Diagnostic::new("scale-from-zero-needs-queue", "the pool sits at zero instances: no queue rule scales it out and no profile starts any VM")
                .at("/spec/capacity/default")
                .help("add `autoscale.queue` so backlog brings VMs up, or give capacity.default (or a schedule) at least 1"),
        );
    }
    check_shutdown(ctx, out);
    check_same_start(ctx, out);
    let Some(a) = &s.autoscale else {
        return;
    };
    for (i, sched) in a.schedules.iter().enumerate() {
        let at = |f: &str| format!("/spec/autoscale/schedules/{i}/{f}");
        let d = sched.default.unwrap_or(sched.min);
        if sched.max > c.max {
            out.push(
                Diagnostic::new(
                    "schedule-out-of-range",
                    format!(
                        "schedule `{}` allows {} instances, above capacity.max ({})",
                        sched.name, sched.max, c.max
                    ),
                )
                .at(at("max"))
                .help(format!(
                    "lower it to {} or raise capacity.max (quota must cover it)",
                    c.max
                )),
            );
        }
        if sched.min > sched.max {
            out.push(
                Diagnostic::new(
                    "schedule-out-of-range",
                    format!(
                        "schedule `{}`: min ({}) is larger than max ({})",
                        sched.name, sched.min, sched.max
                    ),
                )
                .at(at("min"))
                .help("keep 0 <= min <= default <= max"),
            );
        } else if d < sched.min || d > sched.max {
            out.push(
                Diagnostic::new(
                    "schedule-out-of-range",
                    format!(
                        "schedule `{}`: default ({d}) is outside {}..{}",
                        sched.name, sched.min, sched.max
                    ),
                )
                .at(at("default"))
                .help("keep 0 <= min <= default <= max"),
            );
        }
        check_zone(&sched.time_zone, &at("timeZone"), out);
        if sched.start == sched.end {
            out.push(
                Diagnostic::new(
                    "schedule-time",
                    format!(
                        "schedule `{}` starts and ends at {}",
                        sched.name, sched.start
                    ),
                )
                .at(at("end"))
                .help("give the window a length; an end earlier than start runs past midnight"),
            );
        }
    }
    for (i, j) in schedule::overlaps(s) {
        let a_name = &a.schedules[i].name;
        let b_name = &a.schedules[j].name;
        out.push(
            Diagnostic::new("schedule-overlap", format!("schedules `{a_name}` and `{b_name}` overlap"))
                .at(format!("/spec/autoscale/schedules/{j}"))
                .help("autoscale runs one profile at a time: the later start wins and the earlier schedule's end cuts the other short; make the windows disjoint"),
        );
    }
    if profiles.len() > MAX_PROFILES {
        out.push(
            Diagnostic::new(
                "autoscale-profile-limit",
                format!("the schedules need {} autoscale profiles; Azure allows {MAX_PROFILES}", profiles.len()),
            )
            .at("/spec/autoscale/schedules")
            .help("each schedule takes two profiles (start and restore) and autoShutdown two; merge schedules that share times"),
        );
    }
    if let Some(q) = &a.queue {
        let lowest = crate::spec::defaults::lowest_min(s);
        let safe = flap_safe_scale_in(q.target_per_instance, lowest);
        if let Some(below) = q.scale_in_below
            && below > safe
        {
            let n = lowest.max(1);
            out.push(
                    Diagnostic::new(
                        "autoscale-flapping",
                        format!(
                            "scaling in below {below} messages per VM can flap: going from {} to {n} VMs raises the backlog per VM to about {}, above the target of {}",
                            n + 1,
                            (u64::from(below) * u64::from(n + 1)).div_ceil(u64::from(n)),
                            q.target_per_instance
                        ),
                    )
                    .at("/spec/autoscale/queue/scaleInBelow")
                    .help(format!("use scaleInBelow: {safe} or less (or leave it out: gpuform derives it)")),
                );
        }
    }
    for (ptr, value, lo, hi, what) in [
        (
            "/spec/autoscale/scaleOutCooldown",
            &a.scale_out_cooldown,
            60,
            7 * 86400,
            "cooldown",
        ),
        (
            "/spec/autoscale/scaleInCooldown",
            &a.scale_in_cooldown,
            60,
            7 * 86400,
            "cooldown",
        ),
        (
            "/spec/autoscale/timeWindow",
            &a.time_window,
            300,
            12 * 3600,
            "time window",
        ),
    ] {
        match schedule::parse_duration(value) {
            Some(secs) if secs >= lo && secs <= hi => {}
            Some(secs) => out.push(
                Diagnostic::new(
                    "autoscale-cooldown",
                    format!("the {what} {value} ({secs} s) is outside Azure's range"),
                )
                .at(ptr)
                .help(if what == "cooldown" {
                    "use PT1M to P7D"
                } else {
                    "use PT5M to PT12H"
                }),
            ),
            None => out.push(
                Diagnostic::new(
                    "autoscale-cooldown",
                    format!("`{value}` is not an ISO 8601 duration"),
                )
                .at(ptr)
                .help("write durations like PT5M or PT1H"),
            ),
        }
    }
}

/// Two profiles that start at one instant: Azure applies only the first (issue 9 item 2).
fn check_same_start(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
    let name = |w: schedule::Starter| match w {
        schedule::Starter::Schedule(i) => format!(
            "schedule `{}`",
            s.autoscale
                .as_ref()
                .map_or("", |a| a.schedules[i].name.as_str())
        ),
        schedule::Starter::AutoShutdown => "autoShutdown".to_string(),
    };
    let at = |w: schedule::Starter| match w {
        schedule::Starter::Schedule(i) => format!("/spec/autoscale/schedules/{i}/start"),
        schedule::Starter::AutoShutdown => "/spec/autoShutdown/time".to_string(),
    };
    for (a, b, day) in schedule::same_start_conflicts(s) {
        out.push(
            Diagnostic::new(
                "schedule-same-start",
                format!(
                    "{} and {} start at the same instant (on {} and maybe other days)",
                    name(a),
                    name(b),
                    day.as_str()
                ),
            )
            .at(at(b))
            .label("the same minute (compared in UTC)")
            .help("Azure applies only the first of two profiles that start at the same minute: start one of them at another time, or merge them"),
        );
    }
}

fn check_shutdown(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(sd) = &ctx.spec.spec.auto_shutdown else {
        return;
    };
    check_zone(&sd.time_zone, "/spec/autoShutdown/timeZone", out);
    let s = &ctx.spec.spec;
    if !crate::plan::devbox::applies(s) {
        let why = if s.capacity.max > 1 {
            format!("capacity.max is {}", s.capacity.max)
        } else {
            "the spec has `autoscale`".to_string()
        };
        out.push(
            Diagnostic::new(
                "auto-shutdown-pool",
                format!("autoShutdown scales this pool's scale set to zero ({why}): its instances and their disks are deleted every evening"),
            )
            .at("/spec/autoShutdown")
            .severity(Severity::Warning)
            .label("deleted, not stopped")
            .help("for a dev box whose disks must survive the night use `capacity.max: 1` without `autoscale` (a VM that is deallocated and started on schedule); for stateless workers turn this rule off in the policy"),
        );
    }
    if sd.time == sd.start_time {
        out.push(
            Diagnostic::new(
                "schedule-time",
                format!("autoShutdown stops and starts at {}", sd.time),
            )
            .at("/spec/autoShutdown/startTime")
            .help("startTime is when the pool comes back in the morning"),
        );
    }
}

fn check_zone(tz: &str, ptr: &str, out: &mut Vec<Diagnostic>) {
    if let Some((_, instead)) = timezones::LEGACY.iter().find(|(n, _)| *n == tz) {
        out.push(
            Diagnostic::new(
                "schedule-time",
                format!("`{tz}` is a legacy Windows time zone"),
            )
            .at(ptr)
            .severity(Severity::Warning)
            .help(format!("use `{instead}`")),
        );
    } else if timezones::offset_minutes(tz).is_none() {
        // an IANA name (Asia/Shanghai) gets its Windows name (China Standard Time) from CLDR
        let hint = timezones::windows_name_of_iana(tz)
            .map(|w| format!("`{tz}` is an IANA name; its Windows name is `{w}`. "))
            .or_else(|| {
                crate::spec::schema::suggest(tz, timezones::names())
                    .map(|s| format!("did you mean `{s}`? "))
            })
            .unwrap_or_default();
        out.push(
            Diagnostic::new("schedule-time", format!("`{}` is not a time zone autoscale knows", crate::diag::clip(tz)))
                .at(ptr)
                // render would write it into the autoscale setting as is: no policy can allow it
                .locked()
                .label("unknown time zone")
                .help(format!("{hint}autoscale takes Windows time zone names such as `China Standard Time` or `UTC`, and silently drops a profile with an unknown one")),
        );
    }
}
