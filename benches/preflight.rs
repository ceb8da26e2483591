//! Preflight latency against the fake Azure (tests/common) with 100 ms added to every call,
//! token included: one region vs five. The checks run concurrently, so five regions should
//! take well under twice the time of one.
//!
//! `cargo bench --bench preflight` (release) or `cargo test --bench preflight` (debug; the
//! figures are dominated by the injected latency either way). `PREFLIGHT_BENCH_RUNS=N` sets the
//! runs per case (default 7).

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

const LATENCY: Duration = Duration::from_millis(100);
/// dev-notebook-t4 checks westeurope; `--region` adds the other four.
const REGIONS: [&str; 5] = [
    "westeurope",
    "northeurope",
    "francecentral",
    "germanywestcentral",
    "swedencentral",
];

fn fake() -> FakeAzure {
    let f = FakeArm::new().signed_out().start();
    f.mount(
        Mock::given(method("POST"))
            .and(path(format!("/{TENANT}/oauth2/v2.0/token")))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_json(
                        json!({"token_type": "Bearer", "expires_in": 3599, "access_token": TOKEN}),
                    )
                    .set_delay(LATENCY),
            ),
    );
    f.mount_subscription(&REGIONS.map(|r| (r, 96)), LATENCY);
    f
}

fn run(f: &FakeAzure, regions: &[&str]) -> (Duration, usize) {
    let before = f.requests().len();
    let mut cmd = f.preflight(&examples("dev-notebook-t4.yaml"));
    for r in regions {
        cmd.args(["--region", r]);
    }
    let start = Instant::now();
    let out = cmd.output().unwrap();
    let took = start.elapsed();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    (took, f.requests().len() - before)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let runs: usize = std::env::var("PREFLIGHT_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(7);
    let f = fake();
    let five = &REGIONS[1..];
    run(&f, &[]); // warm up (page cache, first TLS handshake of the server)
    let mut one = Vec::new();
    let mut many = Vec::new();
    let (mut calls_one, mut calls_five) = (0, 0);
    for _ in 0..runs {
        let (t, c) = run(&f, &[]);
        one.push(t);
        calls_one = c;
        let (t, c) = run(&f, five);
        many.push(t);
        calls_five = c;
    }
    let (m1, m5) = (median(one.clone()), median(many.clone()));
    println!(
        "preflight against the fake ARM, {} ms added to every call (token included), {runs} runs each",
        LATENCY.as_millis()
    );
    println!(
        "  1 region : median {:>5} ms  (min {} / max {} ms), {calls_one} HTTP calls = {} ms if sequential",
        m1.as_millis(),
        one.iter().min().unwrap().as_millis(),
        one.iter().max().unwrap().as_millis(),
        calls_one as u128 * LATENCY.as_millis()
    );
    println!(
        "  5 regions: median {:>5} ms  (min {} / max {} ms), {calls_five} HTTP calls = {} ms if sequential",
        m5.as_millis(),
        many.iter().min().unwrap().as_millis(),
        many.iter().max().unwrap().as_millis(),
        calls_five as u128 * LATENCY.as_millis()
    );
    println!("  ratio 5/1: {:.2}", m5.as_secs_f64() / m1.as_secs_f64());
    assert!(
        m5 < m1 * 2,
        "five regions took {m5:?}, one took {m1:?}: not concurrent"
    );
}
