//! `--tune` with two weeks of arrivals or more: propose schedules learned from the trace
//! ([`super::learn`]) on top of the best reactive policy, evaluate them as the tune evaluates
//! its candidates (the same model variants, the same share), and propose them only when they
//! are cheaper at the same robust target. The change is written through the tune's YAML
//! rewriter (the `schedules` list replaced, every other line kept) and checked from scratch:
//! it must validate, plan, and meet the target.

use std::time::Instant;

use rayon::prelude::*;

use super::super::engine;
use super::super::{Input, Results};
use super::edit::{Edit, set};
use super::learn::{self, MIN_DAYS, Shape};
use super::learned::{Learned, Saving, Side};
use super::params::Params;
use super::search::{
    Job, Scored, Tuned, UnderVariants, Variant, holds, score_with, under_variants, variants,
    variants_for, verify_with,
};
use crate::cost::format::money;
use crate::facts::autoscale::MAX_PROFILES_PER_SETTING;
use crate::spec::model::{Schedule, Spec};
use crate::spec::yaml::SpanIndex;

/// Shares of the learned need tried as schedule minimums.
const FACTORS: &[f64] = &[0.25, 0.5, 0.75, 1.0];
/// At most this many learned schedules ("a few recurrence profiles"; each renders two).
const FEW: usize = 4;

impl Tuned {
    /// The text `--write` saves: the scheduled proposal when there is one, else the reactive
    /// one (`Ok(None)`: nothing to write; `Err`: the proposal cannot be written into the spec's
    /// text, and why).
    pub fn to_write(&self) -> Result<Option<&str>, String> {
        if let Some(s) = self.schedule.as_ref().filter(|s| s.proposed()) {
            return match (&s.new_text, &s.unwritable) {
                (Some(t), _) => Ok(Some(t.as_str())),
                (None, Some(why)) => Err(why.clone()),
                (None, None) => Ok(None),
            };
        }
        match self.best.as_ref().filter(|b| b.changed()) {
            None => Ok(None),
            Some(b) => match (&b.new_text, &b.unwritable) {
                (Some(t), _) => Ok(Some(t.as_str())),
                (None, why) => Err(why.clone().unwrap_or_else(|| "no text".into())),
            },
        }
    }

    /// What `--write` wrote, for its message: the scheduled or the reactive proposal.
    pub fn written(&self) -> &'static str {
        if self.schedule.as_ref().is_some_and(|s| s.proposed()) {
            "the scheduled proposal: learned schedules with their reactive settings"
        } else {
            "the reactive proposal"
        }
    }

    /// A proposal exists (reactive, or scheduled).
    pub fn proposes(&self) -> bool {
        self.best.is_some() || self.schedule.as_ref().is_some_and(|s| s.proposed())
    }
}

/// The time zone the schedules are learned in, and written and printed in, and where it comes
/// from: the spec's schedules', else `autoShutdown`'s, else the local time of the pool's region
/// (its Windows name, as autoscale takes it; gpuform's mapping of where the region is, an
/// assumption, said in the output), else UTC.
fn time_zone(spec: &Spec) -> (String, String) {
    let s = &spec.spec;
    if let Some(x) = s.autoscale.as_ref().and_then(|a| a.schedules.first()) {
        return (
            x.time_zone.clone(),
            "the spec's schedules' time zone".into(),
        );
    }
    if let Some(a) = &s.auto_shutdown {
        return (a.time_zone.clone(), "autoShutdown's time zone".into());
    }
    if let Some((iana, windows)) = crate::catalog::regions::local_time_zone(&s.region)
        .and_then(|z| Some((z, crate::spec::timezones::windows_name_of_iana(z)?)))
    {
        return (
            windows.to_string(),
            format!(
                "{}'s local time, {iana}: gpuform's mapping of where the region is, an assumption; a schedule's timeZone in the spec overrides it",
                s.region
            ),
        );
    }
    (
        "UTC".into(),
        "UTC: the spec names no time zone and gpuform knows none for its region".into(),
    )
}

/// The spec with `schedules` in place of its own.
fn with_schedules(spec: &Spec, scheds: &[Schedule]) -> Spec {
    let mut s = spec.clone();
    if let Some(a) = s.spec.autoscale.as_mut() {
        a.schedules = scheds.to_vec();
    }
    s
}

/// `base` with the learned schedules' minimums (their defaults left to the profile).
fn params_with(base: &Params, scheds: &[Schedule]) -> Params {
    let mut p = base.clone();
    p.schedule_mins = scheds.iter().map(|s| s.min).collect();
    p.schedule_defaults = vec![None; scheds.len()];
    p.clamp_defaults();
    p
}

/// Reactive policies to put the schedules under: the best one, the next two `targetPerInstance`
/// steps up (the schedules carry the peak, so the rules may react later), each with its floor
/// as is and lowered to one instance.
fn reactive_bases(best: &Params) -> Vec<Params> {
    const TARGETS: &[u32] = &[1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50];
    let mut targets = vec![best.target_per_instance];
    targets.extend(
        TARGETS
            .iter()
            .copied()
            .filter(|t| *t > best.target_per_instance)
            .take(2),
    );
    let mut v: Vec<Params> = Vec::new();
    for t in targets {
        for floor in [best.capacity_min, best.capacity_min.min(1)] {
            let mut p = best.clone();
            p.set_target(t);
            p.capacity_min = floor;
            if !v.contains(&p) {
                v.push(p);
            }
        }
    }
    v
}

struct Candidate {
    scheds: Vec<Schedule>,
    spec: Spec,
    params: Params,
    scored: Scored,
}

/// Learn, evaluate and (when cheaper at the same robust target) propose schedules. With a
/// standby pool, on the pool size the joint search chose (and written with it).
pub fn propose(job: &Job, tuned: &Tuned) -> Learned {
    let chosen = tuned
        .pool_search
        .as_ref()
        .and_then(|p| p.chosen_max_ready)
        .zip(job.settings.standby.as_ref());
    match chosen {
        Some((m, current)) if m != current.max_ready || m != current.min_ready => {
            let pool_edits = match super::pool::pool_edits(job, m) {
                Ok(e) => e,
                Err(e) => {
                    return Learned::skipped(
                        "skipped",
                        format!("schedule learning: cannot write the chosen pool size: {e}"),
                        learn::days(job.trace),
                    );
                }
            };
            let settings = super::super::Settings {
                standby: (m > 0).then(|| current.sized(m, m)),
                ..job.settings.clone()
            };
            let j = Job {
                settings: &settings,
                ..*job
            };
            propose_with(&j, tuned, pool_edits)
        }
        _ => propose_with(job, tuned, Vec::new()),
    }
}

/// [`propose`] with the pool's settings in `job`; `pool_edits` write its size.
fn propose_with(job: &Job, tuned: &Tuned, pool_edits: Vec<Edit>) -> Learned {
    let started = Instant::now();
    let days = learn::days(job.trace);
    if days < MIN_DAYS {
        return Learned::skipped(
            "skipped",
            format!(
                "schedule learning needs >= {MIN_DAYS} days of arrivals; the trace has {days} days"
            ),
            days,
        );
    }
    let spec = job.input.spec;
    let (tz_name, tz_basis) = time_zone(spec);
    let Some(zone) = super::super::tz::zone(&tz_name) else {
        return Learned::skipped(
            "skipped",
            format!("schedule learning: the time zone `{tz_name}` has no tz database entry"),
            days,
        );
    };
    let explicit_below = job
        .checked
        .index
        .spans("/spec/autoscale/queue/scaleInBelow")
        .is_some();
    let vs: Vec<Variant> = match job.robust_share {
        Some(_) => variants_for(job.settings.choices, job.settings.standby.as_ref()),
        None => variants(job.settings.choices).into_iter().take(1).collect(),
    };
    let share = job.robust_share.unwrap_or(1.0);
    // pre-warm: the provisioning delay of the slowest variant, plus a pooled VM's start
    let worst_factor = vs
        .iter()
        .map(|v| v.choices.provisioning_factor)
        .fold(1.0, f64::max);
    let prov = (f64::from(job.workload.provisioning_minutes) * worst_factor).ceil() as u32;
    let standby = job.settings.standby.as_ref().map_or(0, |s| {
        // the slowest start a variant assumes
        vs.iter()
            .filter_map(|v| v.choices.standby_start_seconds)
            .fold(s.start_seconds, u32::max)
            .div_ceil(60)
    });
    let lead_minutes = prov + standby;
    let lead = format!(
        "{} min provisioning{}{}",
        job.workload.provisioning_minutes,
        if worst_factor > 1.0 {
            format!(" x {worst_factor} (the slowest model variant)")
        } else {
            String::new()
        },
        if standby > 0 {
            format!(" + {standby} min standby start (an assumption unless --standby-start)")
        } else {
            String::new()
        }
    );
    let needs = learn::needs(
        job.trace,
        &zone,
        job.workload.job_seconds,
        job.workload.concurrency,
        job.settings.wait_target_minutes,
    );
    let shutdown = if spec.spec.auto_shutdown.is_some() {
        2
    } else {
        0
    };
    let limit = FEW.min((MAX_PROFILES_PER_SETTING - 1 - shutdown) / 2);
    let max = spec.spec.capacity.max;
    let tuned_best = tuned.best.as_ref().map_or(&tuned.before, |b| &b.params);
    // the comparison: the cheapest reactive policy that holds under the variants among the
    // tune's proposal and the same reactive bases the schedules go on, without schedules (so a
    // saving is the schedules', not a lower floor's)
    let reactive = if tuned.best.is_some() {
        best_reactive(job, spec, tuned_best, explicit_below, &vs, share)
    } else {
        tuned_best.clone()
    };
    let reactive = &reactive;
    let before_side = side(job, spec, reactive, explicit_below, &vs);
    let mut out = Learned {
        reactive: if tuned.best.is_none() {
            "the spec as written (no reactive policy meets the target)".into()
        } else if reactive == tuned_best {
            "the tune's proposal".into()
        } else {
            format!(
                "the tune's proposal with targetPerInstance {} and capacity.min {} (cheaper, and it holds under the same variants)",
                reactive.target_per_instance, reactive.capacity_min
            )
        },
        time_zone: tz_name.clone(),
        time_zone_basis: tz_basis,
        lead_minutes,
        lead,
        before: before_side.clone(),
        ..Learned::skipped("none", String::new(), days)
    };
    // candidates: reactive bases x shares of the need
    let mut cands: Vec<(Vec<Schedule>, Params)> = Vec::new();
    for base in reactive_bases(reactive) {
        for f in FACTORS {
            let scheds = learn::schedules(
                &needs,
                &Shape {
                    time_zone: &tz_name,
                    factor: *f,
                    base_min: base.capacity_min,
                    max,
                    lead_minutes,
                    limit,
                },
            );
            if scheds.is_empty() {
                continue;
            }
            let p = params_with(&base, &scheds);
            if !cands.iter().any(|(s, q)| *s == scheds && *q == p) {
                cands.push((scheds, p));
            }
        }
    }
    out.candidates = cands.len();
    if cands.is_empty() {
        out.message = format!(
            "schedule learning: no recurring peak above the reactive floor in the {days} days of arrivals ({tz_name}); no schedule proposed"
        );
        out.elapsed_ms = started.elapsed().as_millis() as u64;
        return out;
    }
    let mut scored: Vec<Candidate> = cands
        .into_par_iter()
        .filter_map(|(scheds, params)| {
            let spec2 = with_schedules(spec, &scheds);
            let scored = score_on(job, &spec2, &params, explicit_below, vs[0].choices)?;
            Some(Candidate {
                scheds,
                spec: spec2,
                params,
                scored,
            })
        })
        .collect();
    scored.sort_by(|a, b| {
        let ca = a.scored.pool_monthly.unwrap_or(a.scored.instance_hours);
        let cb = b.scored.pool_monthly.unwrap_or(b.scored.instance_hours);
        ca.total_cmp(&cb)
    });
    let before_cost = before_side.as_ref().and_then(|s| s.pool_monthly);
    // the candidates that meet the target nominally, cheapest first, up to the first that is
    // not cheaper than the reactive policy (sorted: none after it is)
    let meeting: Vec<&Candidate> = scored.iter().filter(|c| c.scored.meets).collect();
    let cut = meeting
        .iter()
        .position(|c| match (before_cost, c.scored.pool_monthly) {
            (Some(b), Some(a)) => tuned.best.is_some() && a >= b - 0.005,
            _ => false,
        })
        .unwrap_or(meeting.len());
    let not_cheaper: Option<&Candidate> = meeting.get(cut).copied();
    let mut chosen: Option<&Candidate> = None;
    // under the variants, a few at a time in parallel, cheapest first
    'walk: for chunk in meeting[..cut].chunks(super::score::walk_chunk()) {
        let ok: Vec<bool> = chunk
            .par_iter()
            .map(|c| {
                let input = Input {
                    spec: &c.spec,
                    ..*job.input
                };
                let j = Job {
                    input: &input,
                    ..*job
                };
                holds(&j, &c.params, explicit_below, &vs, share)
            })
            .collect();
        for (c, ok) in chunk.iter().zip(ok) {
            out.candidates_checked += 1;
            if ok {
                chosen = Some(c);
                break 'walk;
            }
        }
    }
    let Some(c) = chosen else {
        out.status = if not_cheaper.is_some() {
            "notCheaper"
        } else {
            "noneHolds"
        };
        if let Some(nc) = not_cheaper {
            out.profiles = nc.scheds.clone();
        }
        out.message = match not_cheaper {
            Some(nc) => format!(
                "schedule learning: the cheapest learned schedules that meet p95 <= {} min cost {}/month (pool) against {}/month for the best reactive policy; not proposed",
                job.settings.wait_target_minutes,
                nc.scored.pool_monthly.map_or("n/a".into(), money),
                before_cost.map_or("n/a".into(), money)
            ),
            None => format!(
                "schedule learning: none of the {} scheduled policies meets p95 <= {} min under {} of the {} model variants at a lower cost; not proposed",
                out.candidates,
                job.settings.wait_target_minutes,
                if share >= 1.0 {
                    "all".to_string()
                } else {
                    format!("{:.0} %", share * 100.0)
                },
                vs.len()
            ),
        };
        out.elapsed_ms = started.elapsed().as_millis() as u64;
        return out;
    };
    out.profiles = c.scheds.clone();
    let input = Input {
        spec: &c.spec,
        ..*job.input
    };
    let j = Job {
        input: &input,
        ..*job
    };
    let u = under_variants(&j, &c.params, explicit_below, &vs, Some(&c.scored));
    let after = Side {
        policy: c.params.clone(),
        p95: c.scored.p95,
        worst_case_p95: u.worst_p95,
        p95_per_variant: u.p95,
        instance_hours: c.scored.instance_hours,
        pool_monthly: c.scored.pool_monthly,
    };
    match verify(
        job,
        &tuned.before,
        &c.params,
        &c.scheds,
        explicit_below,
        pool_edits,
    ) {
        Ok((text, diff, res, unwritable)) => {
            out.status = "proposed";
            out.saving = before_side.as_ref().and_then(|b| {
                let (x, y) = (b.pool_monthly?, after.pool_monthly?);
                Some(Saving {
                    pool_monthly: x - y,
                    percent: (x > 0.0).then(|| (x - y) / x * 100.0),
                    p95_nominal_change: after.p95 - b.p95,
                    worst_case_p95_change: after.worst_case_p95 - b.worst_case_p95,
                })
            });
            out.message = format!(
                "schedule learning: {} learned schedule{} ({}) on {} days of arrivals{}",
                c.scheds.len(),
                if c.scheds.len() == 1 { "" } else { "s" },
                tz_name,
                days,
                if tuned.best.is_none() {
                    "; no reactive policy meets the target, so they are proposed at their cost (the spec as written is the comparison)"
                } else {
                    ""
                }
            );
            if let Some(why) = &unwritable {
                out.message.push_str(&format!(
                    "; gpuform cannot write them into the spec ({why}): apply the changes below by hand"
                ));
            }
            out.new_text = text;
            out.unwritable = unwritable;
            out.diff = Some(diff);
            out.after_results = Some(res);
        }
        Err(e) => {
            out.status = "invalid";
            out.message = format!("schedule learning: the scheduled spec was not proposed: {e}");
        }
    }
    out.after = Some(after);
    out.elapsed_ms = started.elapsed().as_millis() as u64;
    out
}

/// Among `best`, its [`reactive_bases`] and floors in between (the spec's own schedules kept),
/// the cheapest that meets the target nominally and holds under the variants (`best` itself
/// when none is cheaper).
fn best_reactive(
    job: &Job,
    spec: &Spec,
    best: &Params,
    explicit_below: bool,
    vs: &[Variant],
    share: f64,
) -> Params {
    // the bases the schedules go on, and floors in between (a reactive policy may hold with a
    // part of its floor)
    let mut bases = reactive_bases(best);
    for base in reactive_bases(best) {
        for quarters in [1, 2, 3] {
            let mut p = base.clone();
            p.capacity_min = (best.capacity_min * quarters).div_ceil(4).max(1);
            if !bases.contains(&p) {
                bases.push(p);
            }
        }
    }
    let mut scored: Vec<Scored> = bases
        .par_iter()
        .filter_map(|p| score_on(job, spec, p, explicit_below, vs[0].choices))
        .filter(|s| s.meets)
        .collect();
    let cost = |s: &Scored| s.pool_monthly.unwrap_or(s.instance_hours);
    scored.sort_by(|a, b| cost(a).total_cmp(&cost(b)));
    let Some(limit) = scored.iter().find(|s| s.params == *best).map(cost) else {
        return best.clone();
    };
    let cheaper: Vec<&Scored> = scored.iter().filter(|s| cost(s) < limit).collect();
    // cheapest first, two at a time (the machine's cores), stopping at the first that holds
    for chunk in cheaper.chunks(2) {
        let ok: Vec<bool> = chunk
            .par_iter()
            .map(|s| holds(job, &s.params, explicit_below, vs, share))
            .collect();
        if let Some((s, _)) = chunk.iter().zip(ok).find(|(_, ok)| *ok) {
            return s.params.clone();
        }
    }
    best.clone()
}

fn score_on(
    job: &Job,
    spec: &Spec,
    params: &Params,
    explicit_below: bool,
    choices: engine::Choices,
) -> Option<Scored> {
    let input = Input { spec, ..*job.input };
    let j = Job {
        input: &input,
        ..*job
    };
    score_with(&j, params, explicit_below, choices)
}

fn side(
    job: &Job,
    spec: &Spec,
    params: &Params,
    explicit_below: bool,
    vs: &[Variant],
) -> Option<Side> {
    let n = score_on(job, spec, params, explicit_below, vs[0].choices)?;
    let u: UnderVariants = under_variants(job, params, explicit_below, vs, Some(&n));
    Some(Side {
        policy: params.clone(),
        p95: n.p95,
        worst_case_p95: u.worst_p95,
        p95_per_variant: u.p95,
        instance_hours: n.instance_hours,
        pool_monthly: n.pool_monthly,
    })
}

fn flow_item(s: &Schedule) -> String {
    // plain where YAML reads it back as the same string (names and Windows zone names), quoted
    // otherwise (and always for the times: `17:50` is not a plain string everywhere)
    let plain = |x: &str| {
        x.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
            && x.chars()
                .all(|c| c.is_ascii_alphanumeric() || " ._-+".contains(c))
            && !x.ends_with(' ')
    };
    let q = |x: &str| {
        if plain(x) {
            x.to_string()
        } else {
            serde_json::to_string(x).unwrap_or_default()
        }
    };
    let quoted = |x: &str| serde_json::to_string(x).unwrap_or_default();
    format!(
        "{{name: {}, timeZone: {}, days: [{}], start: {}, end: {}, min: {}, max: {}}}",
        q(&s.name),
        q(&s.time_zone),
        s.days
            .iter()
            .map(|d| format!("{d:?}"))
            .collect::<Vec<_>>()
            .join(", "),
        quoted(&s.start),
        quoted(&s.end),
        s.min,
        s.max
    )
}

fn block(indent: &str, scheds: &[Schedule]) -> String {
    let mut t = format!("{indent}schedules:\n");
    for s in scheds {
        t.push_str(&format!("{indent}  - {}\n", flow_item(s)));
    }
    t
}

/// The edit that puts `scheds` in place of the spec's `autoscale.schedules` (or adds the key).
pub fn schedules_edit(index: &SpanIndex, text: &str, scheds: &[Schedule]) -> Result<Edit, String> {
    let ptr = "/spec/autoscale/schedules";
    let flow = || {
        format!(
            "[{}]",
            scheds.iter().map(flow_item).collect::<Vec<_>>().join(", ")
        )
    };
    let Some(n) = index.spans(ptr) else {
        // no key: where the rewriter would add one, as a block when the mapping is a block
        const MARK: &str = "\u{1}";
        let e = set(index, text, "/spec/autoscale", "schedules", MARK)?;
        let tail = format!("schedules: {MARK}\n");
        let t = match e.text.strip_suffix(&tail) {
            Some(head) => {
                let indent = head.trim_start_matches('\n');
                format!(
                    "{}{}",
                    &head[..head.len() - indent.len()],
                    block(indent, scheds)
                )
            }
            None => e.text.replace(MARK, &flow()),
        };
        return Ok(Edit {
            text: t,
            value: Some(super::edit::meaning(&flow())),
            ..e
        });
    };
    let body = text.get(n.value.byte_start..).unwrap_or("");
    let Some(key) = n.key else {
        return Err("`autoscale.schedules` has no key to replace".into());
    };
    let line_start = text[..key.byte_start].rfind('\n').map_or(0, |i| i + 1);
    let inline = !text[key.byte_end..n.value.byte_start].contains('\n');
    let meant = Some(super::edit::meaning(&flow()));
    if body.trim_start().starts_with('[') && inline {
        // the whole flow list: its span may stop before the closing bracket
        let e = set(index, text, "/spec/autoscale", "schedules", &flow())?;
        return Ok(Edit { value: meant, ..e });
    }
    let indent: String = text[line_start..key.byte_start]
        .chars()
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let last = super::edit::furthest(index, ptr, 0).min(text.len());
    let anchor = text[..last].trim_end().len().max(key.byte_end);
    let eol = text[anchor..]
        .find('\n')
        .map_or(text.len(), |i| anchor + i + 1);
    let mut t = block(&indent, scheds);
    if eol == text.len() && !text.ends_with('\n') {
        t.pop();
    }
    Ok(Edit {
        start: line_start,
        end: eol,
        text: t,
        pointer: ptr.to_string(),
        value: meant,
        unplaced: None,
    })
}

/// Write the reactive changes and the schedules into the YAML text, check it from scratch, and
/// simulate its plan (the tune's own [`verify_with`], the schedules as one more edit):
/// (text, diff, results, why the text cannot carry them).
fn verify(
    job: &Job,
    before: &Params,
    p: &Params,
    scheds: &[Schedule],
    explicit_below: bool,
    mut extra: Vec<Edit>,
) -> Result<(Option<String>, String, Results, Option<String>), String> {
    // the reactive knobs through the tune's rewriter (the old schedules' fields untouched)
    let mut reactive = p.clone();
    reactive.schedule_mins = before.schedule_mins.clone();
    reactive.schedule_defaults = before.schedule_defaults.clone();
    let schedules = schedules_edit(&job.checked.index, job.source, scheds)?;
    extra.push(schedules);
    let best = verify_with(job, before, &reactive, explicit_below, extra)?;
    Ok((best.new_text, best.diff, best.after, best.unwritable))
}
