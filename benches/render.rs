//! Render benchmark: time per spec to plan and emit (Bicep templates + ARM JSON), and the
//! end-to-end time from spec text (parse, schema, rules, plan, emit), for every example.
//!
//! Run: `cargo bench --bench render` (release profile). Environment: `BENCH_ITERS` (default 200).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use gpuform::catalog::prices::PriceTable;
use gpuform::check::check_file;
use gpuform::emit;
use gpuform::spec::Policy;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let iters: usize = std::env::var("BENCH_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut examples: Vec<PathBuf> = std::fs::read_dir(root.join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    examples.sort();
    let policy = Policy::default();
    let prices = PriceTable::embedded();
    // warm up the lazily built registry, schema and catalog
    let _ = emit::render(&check_file(&examples[0], &policy, prices)).unwrap();

    println!("render benchmark, {iters} iterations per spec (median)");
    println!(
        "{:<28} {:>12} {:>14} {:>10}",
        "spec", "render only", "end to end", "bytes"
    );
    let mut all_render = Vec::new();
    let mut all_e2e = Vec::new();
    for ex in &examples {
        let checked = check_file(ex, &policy, prices);
        let mut render_t = Vec::with_capacity(iters);
        let mut e2e_t = Vec::with_capacity(iters);
        let mut bytes = 0;
        for _ in 0..iters {
            let t = Instant::now();
            let r = emit::render(&checked).unwrap();
            render_t.push(t.elapsed());
            bytes = r.files.iter().map(|(_, s)| s.len()).sum();
            let t = Instant::now();
            let c = check_file(ex, &policy, prices);
            let r = emit::render(&c).unwrap();
            e2e_t.push(t.elapsed());
            std::hint::black_box(r);
        }
        let (mr, me) = (median(render_t.clone()), median(e2e_t.clone()));
        all_render.extend(render_t);
        all_e2e.extend(e2e_t);
        println!(
            "{:<28} {:>9.3} ms {:>11.3} ms {:>10}",
            ex.file_name().unwrap().to_string_lossy(),
            ms(mr),
            ms(me),
            bytes
        );
    }
    println!(
        "{:<28} {:>9.3} ms {:>11.3} ms",
        "all (median)",
        ms(median(all_render)),
        ms(median(all_e2e))
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
