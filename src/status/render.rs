//! Output: the status as text, Markdown or JSON.

use std::collections::BTreeMap;

use super::model::{Event, NextRun, Status};
use super::section::Section;

/// `time  what`, with the final status when it is not `Succeeded` (`(Failed)`, `(InProgress)`).
pub(super) fn event_line(e: &Event) -> String {
    if e.status.eq_ignore_ascii_case("Succeeded") {
        format!("{}  {}", e.time, e.what)
    } else {
        format!("{}  {} ({})", e.time, e.what, e.status)
    }
}

fn counts(m: &BTreeMap<String, usize>) -> String {
    m.iter()
        .map(|(k, v)| format!("{v} {k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn money(v: f64, cur: &str) -> String {
    format!("{v:.2} {cur}").trim_end().to_string()
}

/// Lines of each section: (title, lines).
fn sections(s: &Status) -> Vec<(&'static str, Vec<String>)> {
    fn na<T>(sec: &Section<T>, f: impl FnOnce(&T) -> Vec<String>) -> Vec<String> {
        match sec {
            Section::Ok(v) => f(v),
            Section::NotAvailable { not_available } => {
                vec![format!("not available: {not_available}")]
            }
        }
    }
    let mut out = Vec::new();
    if let Some(d) = &s.dev_box {
        let mut v = na(&d.state, |st| {
            vec![
                format!("{}: {}", d.vm, st.power_state),
                format!("priority: {}", st.priority),
                format!("zone: {}", st.zone),
            ]
        });
        if let Section::NotAvailable { .. } = d.state {
            v[0] = format!("{}: {}", d.vm, v[0]);
        }
        let run = |what: &str, r: &NextRun| {
            format!(
                "{what} {} ({}): {}",
                r.when,
                r.time_zone,
                match (&r.next_local, &r.next) {
                    (Some(l), Some(u)) => format!("next {l} ({u}) by {}", r.name),
                    _ => format!("next unknown (time zone not known) by {}", r.name),
                }
            )
        };
        v.push(run("shutdown (deallocate)", &d.shutdown));
        v.push(run("start", &d.start));
        out.push(("Dev box", v));
    }
    if let Some(inst) = &s.instances {
        out.push((
            "Instances",
            na(inst, |i| {
                if i.total == 0 {
                    return vec!["none".into()];
                }
                vec![
                    format!("{} in all: {}", i.total, counts(&i.by_state)),
                    format!("priority: {}", counts(&i.by_priority)),
                    format!("zones: {}", counts(&i.by_zone)),
                    format!("health: {}", counts(&i.by_health)),
                ]
            }),
        ));
    }
    if let Some(asc) = &s.autoscale {
        out.push((
            "Autoscale",
            na(asc, |a| {
                let mut v = vec![format!(
                    "active profile (from the spec's schedules, now): {} — min {}, max {}, default {}",
                    a.active_profile, a.min, a.max, a.default
                )];
                v.push(match &a.setting {
                    Section::Ok(st) => format!(
                        "setting in Azure: {}, {} profiles{}",
                        if st.enabled { "enabled" } else { "DISABLED" },
                        st.profiles,
                        if st.has_active_profile {
                            ""
                        } else {
                            "; it does not have this profile (drift: redeploy)"
                        }
                    ),
                    Section::NotAvailable { not_available } => {
                        format!("setting in Azure: not available: {not_available}")
                    }
                });
                v
            }),
        ));
    }
    if let Some(sb) = &s.standby {
        out.push(("Standby pool", na(sb, |p| vec![p.line()])));
    }
    if let Some(t) = &s.telemetry {
        out.push(("GPU telemetry", na(t, super::telemetry::lines)));
    }
    if let Some(sv) = &s.serving {
        out.push(("Serving frontend", super::serving::lines(sv)));
    }
    out.extend(vec![
        (
            "Queue",
            na(&s.queue, |q| {
                let len = q
                    .length
                    .map_or("no data in the last 15 minutes".into(), |l| {
                        format!("{l:.0}")
                    });
                let per = q.per_instance.map_or("-".into(), |p| format!("{p:.1}"));
                vec![format!(
                    "{}: {len} now; {per} per running instance (scale-out threshold {})",
                    q.metric,
                    q.target_per_instance.map_or("-".into(), |t| t.to_string())
                )]
            }),
        ),
        (
            "Spot evictions (24 h)",
            na(&s.activity, |a| {
                if a.spot_evictions.is_empty() {
                    vec!["none".into()]
                } else {
                    a.spot_evictions.iter().map(event_line).collect()
                }
            }),
        ),
        (
            "Last scale actions (24 h)",
            na(&s.activity, |a| {
                if a.scale_actions.is_empty() {
                    vec!["none".into()]
                } else {
                    a.scale_actions.iter().map(event_line).collect()
                }
            }),
        ),
        (
            "Alerts fired (24 h)",
            na(&s.alerts, |al| {
                if al.is_empty() {
                    vec!["none".into()]
                } else {
                    al.iter()
                        .map(|a| {
                            format!("{}  {} {} ({})", a.started, a.severity, a.name, a.condition)
                        })
                        .collect()
                }
            }),
        ),
        (
            "Cost",
            na(&s.cost, |c| {
                let mut v = vec![format!(
                    "month to date: {}",
                    money(c.month_to_date, &c.currency)
                )];
                if let Some(b) = c.budget {
                    v.push(format!(
                        "budget: {} ({:.0}% used)",
                        money(b, &c.currency),
                        if b > 0.0 {
                            c.month_to_date / b * 100.0
                        } else {
                            0.0
                        }
                    ));
                }
                if let (Some(m), Some(d)) = (c.estimate_monthly, c.estimate_to_date) {
                    v.push(format!(
                        "gpuform cost estimate: {} a month, {} by today",
                        money(m, c.estimate_currency.as_deref().unwrap_or("")),
                        money(d, c.estimate_currency.as_deref().unwrap_or(""))
                    ));
                }
                v
            }),
        ),
        (
            "Drift (what-if of the spec against the group)",
            na(&s.drift, |d| {
                let mut v = vec![d.summary.clone()];
                v.extend(d.changes.iter().cloned());
                v
            }),
        ),
    ]);
    out
}

/// `scale set vmss-x` or `dev box VM vm-x`.
fn what(s: &Status, q: &str) -> String {
    match (&s.dev_box, &s.scale_set) {
        (Some(d), _) => format!("dev box VM {q}{}{q}", d.vm),
        (None, Some(v)) => format!("scale set {q}{v}{q}"),
        (None, None) => "no scale set".into(),
    }
}

pub fn text(s: &Status) -> String {
    let mut out = format!(
        "{} in {} ({}), {}\n",
        s.spec,
        s.resource_group,
        what(s, ""),
        s.at
    );
    for (title, lines) in sections(s) {
        out.push_str(&format!("\n{title}\n"));
        for l in lines {
            out.push_str(&format!("  {l}\n"));
        }
    }
    out
}

pub fn markdown(s: &Status) -> String {
    let mut out = format!(
        "### gpuform status: `{}` in `{}`\n\n_{}; {}_\n",
        s.spec,
        s.resource_group,
        s.at,
        what(s, "`")
    );
    for (title, lines) in sections(s) {
        out.push_str(&format!("\n**{title}**\n\n"));
        for l in lines {
            out.push_str(&format!("- {l}\n"));
        }
    }
    out
}

pub fn json(s: &Status) -> String {
    format!("{}\n", serde_json::to_string_pretty(s).expect("serialises"))
}
