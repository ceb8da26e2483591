//! Output: a text table, JSON, Markdown for a pull request, and the SVG chart (plotters).

use std::fmt::Write as _;

use plotters::prelude::*;

use super::Results;

fn ratio(r: &Results) -> String {
    r.lower_bound
        .ratio
        .map_or("n/a".to_string(), |x| format!("{x:.2}x"))
}

fn cost(r: &Results) -> String {
    match r.cost.monthly {
        Some(m) => r.cost.fmt(m),
        None => format!("price missing ({}: see the warning below)", r.cost.currency),
    }
}

/// Rows of (label, value) shared by the text and Markdown tables.
fn rows(r: &Results) -> Vec<(&'static str, String)> {
    let w = &r.wait_minutes;
    let ih = &r.instance_hours;
    let sa = &r.scale_actions;
    vec![
        (
            "job wait p50 / p95 / p99 / max",
            format!("{} / {} / {} / {} min", w.p50, w.p95, w.p99, w.max),
        ),
        (
            "wait target",
            format!(
                "p{} <= {} min: {}",
                (r.wait_target.quantile * 100.0).round(),
                r.wait_target.minutes,
                if r.wait_target.met { "met" } else { "MISSED" }
            ),
        ),
        ("peak backlog", format!("{} jobs", r.backlog_peak)),
        ("peak instances", r.peak_instances.to_string()),
        (
            "instance-hours (regular / spot)",
            format!("{:.1} ({:.1} / {:.1})", ih.total, ih.regular, ih.spot),
        ),
        (
            "idle / booting instance-hours",
            format!("{:.1} / {:.1}", ih.idle, ih.provisioning),
        ),
        ("scale-outs / scale-ins", format!("{} / {}", sa.out, sa.in_)),
        (
            "scale-ins deferred / reduced (flapping)",
            format!("{} / {}", sa.deferred_in, sa.reduced_in),
        ),
        (
            "lower bound (ratio)",
            format!(
                "{:.1} instance-hours ({}{})",
                r.lower_bound.instance_hours,
                ratio(r),
                if r.wait_target.met {
                    ""
                } else {
                    "; the bound holds for policies that meet the target, which this one misses"
                }
            ),
        ),
        ("monthly cost (expected)", cost(r)),
    ]
}

pub fn text(r: &Results) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} ({}): {} jobs over {:.1} h from {}",
        r.spec,
        r.vm_size,
        r.trace.jobs,
        r.trace.minutes as f64 / 60.0,
        r.trace.source
    );
    let _ = writeln!(
        s,
        "jobs take {}, {} per instance; new instances serve after {} min\n",
        r.workload.job_time_text(),
        r.workload.concurrency,
        r.workload.provisioning_minutes
    );
    let rows = rows(r);
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (k, v) in &rows {
        let _ = writeln!(s, "  {k:<width$}  {v}");
    }
    if r.unfinished_jobs > 0 {
        let _ = writeln!(
            s,
            "\n  {} still queued or running when the trace ended (their waits count up to the end)",
            if r.unfinished_jobs == 1 {
                "1 job was".to_string()
            } else {
                format!("{} jobs were", r.unfinished_jobs)
            }
        );
    }
    s.push_str(&measured_text(r));
    let _ = writeln!(s, "\nassumptions:");
    for a in &r.assumptions {
        let _ = writeln!(s, "  - {a}");
    }
    s
}

/// The telemetry's measurement beside the simulation (`--telemetry`, or the workspace with
/// -g), and the warnings; empty when there is neither.
pub fn measured_text(r: &Results) -> String {
    let mut s = String::new();
    if let Some(m) = &r.measured {
        let _ = writeln!(
            s,
            "\nmeasured by the GPU telemetry over the same window ({}; {} of {} minutes covered):",
            m.source, m.minutes_covered, r.trace.minutes
        );
        let rows = m.rows();
        let width = rows.iter().map(|(k, _, _)| k.len()).max().unwrap_or(0);
        let _ = writeln!(
            s,
            "  {:<width$}  {:>10}  {:>10}",
            "", "measured", "simulated"
        );
        for (k, a, b) in rows {
            let _ = writeln!(s, "  {k:<width$}  {a:>10}  {b:>10}");
        }
        if let Some(j) = m.estimated_job_minutes {
            let _ = writeln!(
                s,
                "  job time from the telemetry: {j:.1} min (busy VM-minutes x {} per instance / {} jobs)",
                r.workload.concurrency, r.trace.jobs
            );
        }
        let _ = writeln!(s, "  {}", m.verdict());
    }
    for w in &r.warnings {
        let _ = writeln!(s, "\nwarning: {w}");
    }
    s
}

/// [`measured_text`] in Markdown.
pub fn measured_markdown(r: &Results) -> String {
    let mut s = String::new();
    if let Some(m) = &r.measured {
        let _ = writeln!(
            s,
            "\n**Measured** by the GPU telemetry over the same window ({}; {} of {} minutes covered):\n",
            m.source, m.minutes_covered, r.trace.minutes
        );
        let _ = writeln!(s, "| figure | measured | simulated |\n|---|---|---|");
        for (k, a, b) in m.rows() {
            let _ = writeln!(s, "| {k} | {a} | {b} |");
        }
        if let Some(j) = m.estimated_job_minutes {
            let _ = writeln!(
                s,
                "\nJob time from the telemetry: {j:.1} min (busy VM-minutes × {} per instance / {} jobs).",
                r.workload.concurrency, r.trace.jobs
            );
        }
        let _ = writeln!(s, "\n{}", m.verdict());
    }
    for w in &r.warnings {
        let _ = writeln!(s, "\n> **Warning:** {w}");
    }
    s
}

pub fn markdown(r: &Results) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "### gpuform simulate: `{}`\n", r.spec);
    let _ = writeln!(
        s,
        "{} jobs over {:.1} h ({}); {} per job, {} per instance, {} min to provision.\n",
        r.trace.jobs,
        r.trace.minutes as f64 / 60.0,
        r.trace.source,
        r.workload.job_time_text(),
        r.workload.concurrency,
        r.workload.provisioning_minutes
    );
    let _ = writeln!(s, "| figure | value |\n|---|---|");
    for (k, v) in rows(r) {
        let _ = writeln!(s, "| {k} | {v} |");
    }
    s.push_str(&measured_markdown(r));
    let _ = writeln!(s, "\n<details><summary>assumptions</summary>\n");
    for a in &r.assumptions {
        let _ = writeln!(s, "- {a}");
    }
    let _ = writeln!(s, "\n</details>");
    s
}

pub fn json(r: &Results) -> String {
    serde_json::to_string_pretty(r).unwrap_or_else(|_| "{}".into()) + "\n"
}

/// The chart: arrivals and backlog per minute (top), instances by priority with the active
/// profile as shaded bands (bottom). Downsampled to at most 2000 points per series.
pub fn svg(r: &Results) -> Result<String, String> {
    let series = r
        .outcome
        .series
        .as_ref()
        .ok_or("the run kept no series (internal: record was off)")?;
    let h = series.backlog.len();
    if h == 0 {
        return Err("the trace is empty".into());
    }
    let step = h.div_ceil(2000).max(1);
    let hours = |i: usize| i as f64 / 60.0;
    let pick = |v: &dyn Fn(usize) -> f64| -> Vec<(f64, f64)> {
        (0..h)
            .step_by(step)
            .map(|i| {
                let end = (i + step).min(h);
                let m = (i..end).map(v).fold(0.0, f64::max);
                (hours(i), m)
            })
            .collect()
    };
    let arrivals = pick(&|i| f64::from(series.arrivals[i]));
    let backlog = pick(&|i| f64::from(series.backlog[i]));
    let regular = pick(&|i| f64::from(series.regular[i]));
    let total = pick(&|i| f64::from(series.regular[i]) + f64::from(series.spot[i]));
    let x_max = hours(h);
    let y1 = arrivals
        .iter()
        .chain(&backlog)
        .map(|p| p.1)
        .fold(1.0, f64::max)
        * 1.05;
    let y2 = total.iter().map(|p| p.1).fold(1.0, f64::max) * 1.15 + 1.0;

    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (1000, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (top, bottom) = root.split_vertically(280);
        let title = format!(
            "{}: p95 wait {} min, {:.0} instance-hours, {} the lower bound",
            r.spec,
            r.wait_minutes.p95,
            r.instance_hours.total,
            ratio(r)
        );
        let mut c1 = ChartBuilder::on(&top)
            .caption(title, ("sans-serif", 18))
            .margin(8)
            .x_label_area_size(24)
            .y_label_area_size(56)
            .build_cartesian_2d(0.0..x_max, 0.0..y1)
            .map_err(|e| e.to_string())?;
        c1.configure_mesh()
            .y_desc("jobs")
            .x_desc("hours from trace start (UTC)")
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(|e| e.to_string())?;
        c1.draw_series(LineSeries::new(arrivals, BLUE.mix(0.6)))
            .map_err(|e| e.to_string())?
            .label("arrivals / min")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLUE));
        c1.draw_series(LineSeries::new(backlog, RED.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label("backlog (jobs waiting)")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], RED));
        c1.configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK.mix(0.3))
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(|e| e.to_string())?;

        let mut c2 = ChartBuilder::on(&bottom)
            .margin(8)
            .x_label_area_size(30)
            .y_label_area_size(56)
            .build_cartesian_2d(0.0..x_max, 0.0..y2)
            .map_err(|e| e.to_string())?;
        c2.configure_mesh()
            .y_desc("instances")
            .x_desc("hours from trace start (UTC)")
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(|e| e.to_string())?;
        // the active profile: a band per stretch, coloured by profile
        let palette = [
            RGBColor(230, 230, 230),
            RGBColor(255, 236, 179),
            RGBColor(200, 230, 201),
            RGBColor(187, 222, 251),
            RGBColor(248, 187, 208),
            RGBColor(209, 196, 233),
        ];
        let mut k = 0;
        let mut used: Vec<u16> = Vec::new();
        while k < h {
            let p = series.profile[k];
            let mut e = k;
            while e < h && series.profile[e] == p {
                e += 1;
            }
            let color = palette[p as usize % palette.len()];
            c2.draw_series(std::iter::once(Rectangle::new(
                [(hours(k), y2 * 0.93), (hours(e), y2)],
                color.filled(),
            )))
            .map_err(|e| e.to_string())?;
            if !used.contains(&p) {
                used.push(p);
            }
            k = e;
        }
        c2.draw_series(AreaSeries::new(total, 0.0, RGBColor(255, 152, 0).mix(0.5)))
            .map_err(|e| e.to_string())?
            .label("Spot")
            .legend(|(x, y)| {
                Rectangle::new(
                    [(x, y - 5), (x + 16, y + 5)],
                    RGBColor(255, 152, 0).mix(0.5).filled(),
                )
            });
        c2.draw_series(AreaSeries::new(
            regular,
            0.0,
            RGBColor(63, 81, 181).mix(0.6),
        ))
        .map_err(|e| e.to_string())?
        .label("regular")
        .legend(|(x, y)| {
            Rectangle::new(
                [(x, y - 5), (x + 16, y + 5)],
                RGBColor(63, 81, 181).mix(0.6).filled(),
            )
        });
        for p in used {
            let color = palette[p as usize % palette.len()];
            let name = r.profile_names.get(p as usize).cloned().unwrap_or_default();
            c2.draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())
                .map_err(|e| e.to_string())?
                .label(format!("profile: {name}"))
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 16, y + 5)], color.filled())
                });
        }
        c2.configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK.mix(0.3))
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(buf)
}
