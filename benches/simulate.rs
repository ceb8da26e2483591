//! Simulate benchmark: one week of one-minute queue load through the 20-instance pool of
//! `examples/shortvideo-transcode.yaml` (the engine alone, and with pricing and the bound), and a
//! `--tune` over a few hundred candidate policies on the same week (rayon, all cores).
//!
//! Run: `cargo bench --bench simulate` (release profile). Environment: `BENCH_ITERS` (default 50).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use gpuform::catalog::prices::PriceTable;
use gpuform::check::check_file;
use gpuform::cost::PriceBook;
use gpuform::plan::Plan;
use gpuform::simulate::engine::{self, Run};
use gpuform::simulate::model::{Overrides, Workload};
use gpuform::simulate::{self, Input, Settings, tune};
use gpuform::spec::Policy;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let iters: usize = std::env::var("BENCH_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(50);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/shortvideo-transcode.yaml");
    let policy = Policy::default();
    let checked = check_file(&path, &policy, PriceTable::embedded());
    let plan = Plan::build(&checked).unwrap();
    let spec = checked.spec.as_ref().unwrap();
    let size = checked.size().unwrap();
    let w = Workload::from_spec(
        spec,
        &size.series,
        plan.compute.image.has_gpu_drivers,
        &Overrides {
            job_duration_secs: Some(120),
            provisioning_secs: Some(480),
            ..Default::default()
        },
    )
    .unwrap();
    let trace = simulate::synthetic_for(spec, &w, 1, 7, "2026-11-02T00:00:00Z", None)
        .generate()
        .unwrap();
    let setting = simulate::setting(&plan, spec).unwrap();
    let prio = simulate::priority(&plan, spec);
    let settings = Settings::default();
    let book = PriceBook::embedded();
    let file = path.display().to_string();
    let input = Input {
        spec,
        plan: &plan,
        size,
        file: &file,
        auto_sized: checked.auto_sized,
    };

    let mut engine_t = Vec::with_capacity(iters);
    let mut full_t = Vec::with_capacity(iters);
    let mut last = None;
    for _ in 0..iters {
        let t = Instant::now();
        let o = engine::run(&Run {
            setting: &setting,
            trace: &trace,
            workload: &w,
            priority: &prio,
            choices: settings.choices,
            seed: 1,
            record: false,
            standby: settings.standby.as_ref(),
        });
        engine_t.push(t.elapsed());
        std::hint::black_box(&o);
        let t = Instant::now();
        let r = simulate::simulate(
            &input,
            &setting,
            &trace,
            &w,
            &settings,
            &book,
            "2026-12-01",
            true,
        );
        full_t.push(t.elapsed());
        last = Some(r);
    }
    let r = last.unwrap();
    println!(
        "simulate benchmark: {} minutes, {} jobs, peak {} instances (max 20), {iters} iterations (median)",
        trace.minutes(),
        trace.jobs(),
        r.peak_instances
    );
    println!(
        "  engine only:                         {:>10.2?}",
        median(engine_t)
    );
    println!(
        "  engine + series + bound + pricing:   {:>10.2?}",
        median(full_t)
    );

    let t = Instant::now();
    let tuned = tune::tune(
        &tune::Job {
            input: &input,
            checked: &checked,
            policy: &policy,
            source: checked.source.as_deref().unwrap(),
            trace: &trace,
            workload: &w,
            settings: &settings,
            book: &book,
            today: "2026-12-01",
            robust_share: Some(1.0),
            tuning: Default::default(),
        },
        &r,
    )
    .unwrap();
    println!(
        "  tune: {} candidates on {} threads in {:.2?} ({} meet p95 <= {} min)",
        tuned.candidates,
        rayon::current_num_threads(),
        t.elapsed(),
        tuned.meeting,
        settings.wait_target_minutes
    );
}
