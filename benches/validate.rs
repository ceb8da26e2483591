//! Validation benchmark: latency per spec in-process, throughput of `gpuform validate DIR` on
//! 1,000 generated specs, peak memory, and the same files through check-jsonschema (what teams
//! wire into pre-commit today) when it is installed.
//!
//! Run: `cargo bench --bench validate` (or `.ci/bench`, which installs check-jsonschema first).
//! Environment: `CHECK_JSONSCHEMA=/path/to/check-jsonschema`, `BENCH_SPECS=1000`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use gpuform::catalog::prices::PriceTable;
use gpuform::check::check_source;
use gpuform::spec::Policy;

const EXAMPLES: [&str; 5] = [
    include_str!("../examples/shortvideo-transcode.yaml"),
    include_str!("../examples/llm-finetune-a100.yaml"),
    include_str!("../examples/pretrain-nd-h100.yaml"),
    include_str!("../examples/dev-notebook-t4.yaml"),
    include_str!("../examples/windows-viz-nv.yaml"),
];
const REGIONS: [&str; 6] = [
    "eastus",
    "eastus2",
    "westus3",
    "southcentralus",
    "westeurope",
    "northeurope",
];

/// Spec number `i`: an example with its name, region and VRAM varied (no cloud-init path, so
/// the files stand alone).
fn generate(i: usize) -> String {
    let base = EXAMPLES[i % EXAMPLES.len()];
    let mut out = String::with_capacity(base.len());
    for line in base.lines() {
        let t = line.trim_start();
        if t.starts_with("cloudInit:") {
            continue;
        }
        if let Some(rest) = t.strip_prefix("name: ")
            && !rest.contains(',')
            && line.starts_with("  name:")
        {
            out.push_str(&format!("  name: bench-{i:04}\n"));
            continue;
        }
        if t.starts_with("region: ") && line.starts_with("  region:") {
            // keep allowedRegions lists consistent by only moving specs without one
            if !base.contains("allowedRegions") {
                out.push_str(&format!("  region: {}\n", REGIONS[i % REGIONS.len()]));
                continue;
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Run a command under /usr/bin/time to get wall time and peak RSS.
fn timed(cmd: &mut Command) -> (Duration, Option<u64>, bool) {
    let rss_file = std::env::temp_dir().join(format!("gpuform-bench-rss-{}", std::process::id()));
    let has_time = Path::new("/usr/bin/time").exists();
    let mut c = if has_time {
        let mut t = Command::new("/usr/bin/time");
        t.arg("-f")
            .arg("%M")
            .arg("-o")
            .arg(&rss_file)
            .arg(cmd.get_program())
            .args(cmd.get_args());
        t
    } else {
        let mut c = Command::new(cmd.get_program());
        c.args(cmd.get_args());
        c
    };
    c.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let start = Instant::now();
    let status = c.status().expect("command runs");
    let wall = start.elapsed();
    let rss = std::fs::read_to_string(&rss_file)
        .ok()
        .and_then(|s| s.trim().lines().last()?.parse().ok());
    let _ = std::fs::remove_file(rss_file);
    // validate exits 1 on findings; only 2 (usage) counts as failure here
    (wall, rss, status.code() != Some(2))
}

fn main() {
    let n: usize = std::env::var("BENCH_SPECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let dir: PathBuf = std::env::temp_dir().join(format!("gpuform-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let texts: Vec<String> = (0..n).map(generate).collect();
    for (i, t) in texts.iter().enumerate() {
        std::fs::write(dir.join(format!("spec-{i:04}.yaml")), t).unwrap();
    }
    let policy = Policy::default();
    let prices = PriceTable::embedded();

    // warm-up: compile the schema, parse the catalog and price table once
    let _ = check_source(texts[0].clone(), "warm.yaml", dir.clone(), &policy, prices);

    // 1. latency per spec, in-process, one thread
    let mut lat = Vec::with_capacity(n);
    let mut errors = 0;
    for (i, t) in texts.iter().enumerate() {
        let start = Instant::now();
        let c = check_source(
            t.clone(),
            &format!("spec-{i:04}.yaml"),
            dir.clone(),
            &policy,
            prices,
        );
        lat.push(start.elapsed());
        errors += c.diagnostics.iter().filter(|d| d.is_error()).count();
    }
    lat.sort();
    let total: Duration = lat.iter().sum();
    println!(
        "gpuform validate benchmark ({n} generated specs, {} bytes each on average)",
        texts.iter().map(String::len).sum::<usize>() / n
    );
    println!(
        "in-process, 1 thread: median {:.3} ms, p95 {:.3} ms, max {:.3} ms per spec; {:.0} specs/s; {errors} errors found",
        percentile(&lat, 0.5).as_secs_f64() * 1e3,
        percentile(&lat, 0.95).as_secs_f64() * 1e3,
        lat.last().unwrap().as_secs_f64() * 1e3,
        n as f64 / total.as_secs_f64()
    );
    if let Some(kib) = peak_rss_kib() {
        println!("in-process peak RSS: {:.1} MiB", kib as f64 / 1024.0);
    }

    // 2. the binary on the whole directory (parallel, all cores)
    let bin = env!("CARGO_BIN_EXE_gpuform");
    let mut runs = Vec::new();
    let mut rss = None;
    for _ in 0..5 {
        let (wall, r, ok) =
            timed(Command::new(bin).args(["validate", "--format", "json", dir.to_str().unwrap()]));
        assert!(ok, "gpuform validate failed");
        runs.push(wall);
        rss = r.or(rss);
    }
    runs.sort();
    let gf = percentile(&runs, 0.5);
    println!(
        "`gpuform validate DIR` ({} cores): median {:.3} s wall for {n} specs ({:.0} specs/s), peak RSS {}",
        std::thread::available_parallelism()
            .map(|p| p.get())
            .unwrap_or(1),
        gf.as_secs_f64(),
        n as f64 / gf.as_secs_f64(),
        rss.map(|k| format!("{:.1} MiB", k as f64 / 1024.0))
            .unwrap_or_else(|| "n/a".into())
    );

    // 3. check-jsonschema on the same files, schema only
    let cj = std::env::var("CHECK_JSONSCHEMA").unwrap_or_else(|_| "check-jsonschema".into());
    let files: Vec<String> = (0..n)
        .map(|i| dir.join(format!("spec-{i:04}.yaml")).display().to_string())
        .collect();
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/gpuworkload.schema.json");
    let probe = Command::new(&cj).arg("--version").output();
    match probe {
        Ok(o) if o.status.success() => {
            let version = String::from_utf8_lossy(&o.stdout).trim().to_string();
            let mut runs = Vec::new();
            let mut rss = None;
            for _ in 0..3 {
                let (wall, r, _) = timed(
                    Command::new(&cj)
                        .arg("--schemafile")
                        .arg(&schema)
                        .args(&files),
                );
                runs.push(wall);
                rss = r.or(rss);
            }
            runs.sort();
            let c = percentile(&runs, 0.5);
            println!(
                "`{version}` (schema only): median {:.3} s wall ({:.0} specs/s), peak RSS {}",
                c.as_secs_f64(),
                n as f64 / c.as_secs_f64(),
                rss.map(|k| format!("{:.1} MiB", k as f64 / 1024.0))
                    .unwrap_or_else(|| "n/a".into())
            );
            println!(
                "gpuform is {:.1}x faster while also running {} semantic rules",
                c.as_secs_f64() / gf.as_secs_f64(),
                gpuform::diag::RULES
                    .iter()
                    .filter(|r| !matches!(r.category, "input" | "schema"))
                    .count()
            );
        }
        _ => println!(
            "check-jsonschema not found (set CHECK_JSONSCHEMA or run .ci/bench): comparison skipped"
        ),
    }
    let _ = std::fs::remove_dir_all(&dir);
}
