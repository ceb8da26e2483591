//! The request-driven pool's latency models against the M/M/c closed form (Erlang C) and
//! against each other (issue 36).
//!
//! The request simulation ([`des`]) draws arrivals and service times and queues each request
//! at a VM; the analytic model ([`fluid`]) mixes Erlang C per minute with a fluid backlog; the
//! closed form here is computed from its own formula (`P(W > x) = C·e^{-(cμ-λ)x}`), not from
//! the simulator's code paths, with C from the Erlang B recursion written out below.

use gpuform::cost::usage::Priority;
use gpuform::simulate::engine::{Choices, Setting, ZeroInstances};
use gpuform::simulate::load::Trace;
use gpuform::simulate::serving::{des, erlang, fluid, pool};
use rand_core::{Rng, SeedableRng};

/// Erlang C written out independently of `serving::erlang` (same recursion, own code).
fn erlang_c(c: u32, a: f64) -> f64 {
    let mut b = 1.0;
    for j in 1..=c {
        b = a * b / (j as f64 + a * b);
    }
    let c = c as f64;
    c * b / (c - a * (1.0 - b))
}

/// p95 of the wait in M/M/c: `ln(C / 0.05) / (cμ - λ)`.
fn mmc_p95_wait(c: u32, lambda: f64, mu: f64) -> f64 {
    let pw = erlang_c(c, lambda / mu);
    (pw / 0.05).ln() / (c as f64 * mu - lambda)
}

/// A Poisson process of `per_minute` requests a minute: counts per minute drawn as Poisson.
fn poisson_trace(per_minute: f64, minutes: usize, seed: u64) -> Trace {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    // Knuth's product method, in pieces of at most 200 (a sum of Poissons is Poisson; e^-200
    // is still a normal double)
    let pieces = (per_minute / 200.0).ceil().max(1.0);
    let limit = (-per_minute / pieces).exp();
    let arrivals = (0..minutes)
        .map(|_| {
            let mut k = 0u32;
            for _ in 0..pieces as usize {
                let mut p = 1.0;
                loop {
                    p *= ((rng.next_u64() >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
                    if p < limit {
                        break;
                    }
                    k += 1;
                }
            }
            k
        })
        .collect::<Vec<_>>();
    Trace {
        start: "2026-11-02T00:00:00Z".parse().unwrap(),
        missing: vec![false; arrivals.len()],
        arrivals,
        source: "poisson".into(),
    }
}

fn fixed_pool(n: u32, trace: &Trace) -> pool::Pool {
    pool::replay(
        &Setting::fixed(n),
        trace,
        &Priority::Regular,
        &Choices::default(),
        0,
        0.0,
        1,
    )
}

fn knobs(concurrency: u32, service: f64) -> des::Knobs {
    des::Knobs {
        concurrency,
        service_seconds: service,
        service_shift_seconds: 0.0,
        drain_seconds: 60.0,
        request_timeout_seconds: 300.0,
    }
}

#[test]
fn steady_load_agrees_with_erlang_c_on_the_p95_wait() {
    // one VM serving 16 requests at once, 2 s each (μ = 0.5/s), at ρ = 0.9: λ = 7.2/s;
    // one day of Poisson arrivals (about 622,000 requests)
    let (c, s, rho) = (16u32, 2.0, 0.9);
    let lambda = rho * c as f64 / s;
    let trace = poisson_trace(lambda * 60.0, 1440, 7);
    let closed = mmc_p95_wait(c, lambda, 1.0 / s);
    assert!(closed > 1.0, "the test needs a real wait: {closed}");
    let p = fixed_pool(1, &trace);
    let sim = des::run(&p, &trace, &knobs(c, s), 3);
    let got = sim.wait.percentile(0.95, sim.failed()).unwrap();
    eprintln!(
        "p95 wait: Erlang C {closed:.3} s, simulated {got:.3} s, analytic {:.3} s",
        fluid::run(&p, &trace, c, s)
            .quantile(0.95, true)
            .unwrap_or(f64::NAN)
    );
    assert!(
        (got - closed).abs() / closed < 0.05,
        "simulated p95 wait {got:.3} s vs Erlang C {closed:.3} s"
    );
    let analytic = fluid::run(&p, &trace, c, s).quantile(0.95, true).unwrap();
    assert!(
        (analytic - closed).abs() / closed < 0.05,
        "analytic p95 wait {analytic:.3} s vs Erlang C {closed:.3} s"
    );
    // and the simulation beside the analytic model on the latency (wait + service)
    let sim_lat = sim.latency.percentile(0.95, 0).unwrap();
    let an_lat = fluid::run(&p, &trace, c, s).quantile(0.95, false).unwrap();
    assert!(
        (sim_lat - an_lat).abs() / an_lat < 0.05,
        "latency p95: simulated {sim_lat:.3} s, analytic {an_lat:.3} s"
    );
}

#[test]
fn a_lightly_loaded_vm_waits_for_nothing() {
    // ρ = 0.3 on 8 slots: Erlang C is below 5 %, so the p95 wait is 0 in both
    let (c, s) = (8u32, 1.5);
    let lambda = 0.3 * c as f64 / s;
    assert!(erlang_c(c, lambda * s) < 0.05);
    let trace = poisson_trace(lambda * 60.0, 240, 11);
    let p = fixed_pool(1, &trace);
    let sim = des::run(&p, &trace, &knobs(c, s), 5);
    assert_eq!(sim.wait.percentile(0.95, 0), Some(0.0));
    assert_eq!(fluid::run(&p, &trace, c, s).quantile(0.95, true), Some(0.0));
    // the latency is the service time's p95: 1.5 s × ln 20 = 4.49 s
    let lat = sim.latency.percentile(0.95, 0).unwrap();
    assert!((lat - 1.5 * 20f64.ln()).abs() < 0.15, "{lat}");
}

#[test]
fn a_measured_spread_agrees_between_the_models_and_with_its_p95() {
    // requests that vary less than exponentially: mean 2 s, p95 4.28 s (2.14 x the mean, the
    // spread of Azure's LLM conversation trace), 16 slots; the simulation draws a constant part
    // and an exponential, the analytic model uses Allen-Cunneen's M/G/k waits
    let (c, mean, p95) = (16u32, 2.0, 4.28);
    let service = erlang::Service::from_p95(mean, p95);
    let k = des::Knobs {
        service_shift_seconds: service.shift,
        ..knobs(c, mean)
    };
    // lightly loaded: the latency's p95 is the service's own
    let trace = poisson_trace(0.3 * c as f64 / mean * 60.0, 240, 13);
    let p = fixed_pool(1, &trace);
    let sim = des::run(&p, &trace, &k, 5);
    let lat = sim.latency.percentile(0.95, 0).unwrap();
    assert!((lat - p95).abs() / p95 < 0.03, "{lat} vs {p95}");
    let an = fluid::run(&p, &trace, c, service)
        .quantile(0.95, false)
        .unwrap();
    assert!((an - p95).abs() / p95 < 0.01, "{an} vs {p95}");
    // at ρ = 0.9 requests wait: both models on the latency and the wait
    let lambda = 0.9 * c as f64 / mean;
    let trace = poisson_trace(lambda * 60.0, 1440, 7);
    let p = fixed_pool(1, &trace);
    let sim = des::run(&p, &trace, &k, 3);
    let an = fluid::run(&p, &trace, c, service);
    let exp = fluid::run(&p, &trace, c, mean);
    for q in [0.5, 0.95, 0.99] {
        let (d, a) = (
            sim.latency.percentile(q, 0).unwrap(),
            an.quantile(q, false).unwrap(),
        );
        eprintln!("latency p{q}: simulated {d:.3} s, analytic {a:.3} s");
        assert!(
            (d - a).abs() / d < 0.03,
            "latency p{q}: simulated {d:.3} s, analytic {a:.3} s"
        );
    }
    let (dw, aw) = (
        sim.wait.percentile(0.95, 0).unwrap(),
        an.quantile(0.95, true).unwrap(),
    );
    let ew = exp.quantile(0.95, true).unwrap();
    eprintln!("p95 wait: simulated {dw:.3} s, analytic {aw:.3} s, exponential service {ew:.3} s");
    assert!(
        (dw - aw).abs() / dw < 0.08,
        "p95 wait: simulated {dw:.3} s, analytic {aw:.3} s"
    );
    // less spread, less waiting than the exponential service of the same mean
    assert!(aw < ew && dw < ew, "{dw} {aw} {ew}");
}

#[test]
fn round_robin_waits_no_longer_than_a_random_split() {
    // 4 VMs of 4 slots at ρ = 0.85: the analytic model splits requests at random (each VM an
    // M/M/4 at λ/4, as Erlang C), the gateway deals them in turn, which smooths each VM's
    // arrivals: the simulated p95 wait is below the closed form, not above it
    let (n, c, s) = (4u32, 4u32, 1.0);
    let lambda = 0.85 * (n * c) as f64 / s;
    let trace = poisson_trace(lambda * 60.0, 720, 21);
    let p = fixed_pool(n, &trace);
    let closed = mmc_p95_wait(c, lambda / n as f64, 1.0 / s);
    let sim = des::run(&p, &trace, &knobs(c, s), 9);
    let got = sim.wait.percentile(0.95, 0).unwrap();
    assert!(
        got <= closed * 1.02,
        "round robin {got:.3} s vs random {closed:.3} s"
    );
    let analytic = fluid::run(&p, &trace, c, s).quantile(0.95, true).unwrap();
    assert!(
        (analytic - closed).abs() / closed < 0.05,
        "{analytic} vs {closed}"
    );
}

#[test]
fn overload_builds_a_backlog_both_models_see() {
    // 30 minutes at 1.5 times what one VM serves, then 30 at half: the backlog grows by
    // (1.5 - 1) × 480 = 240 requests a minute, then drains; both models put the worst waits
    // near the end of the overload (about 7,200 requests ahead / 8 a second = 15 min)
    let (c, s) = (16u32, 2.0);
    let cap = c as f64 / s * 60.0; // 480 a minute
    let mut a = vec![(1.5 * cap) as u32; 30];
    a.extend(vec![(0.5 * cap) as u32; 60]);
    let trace = Trace {
        start: "2026-11-02T00:00:00Z".parse().unwrap(),
        missing: vec![false; a.len()],
        arrivals: a,
        source: "overload".into(),
    };
    let p = fixed_pool(1, &trace);
    let sim = des::run(&p, &trace, &knobs(c, s), 1);
    let an = fluid::run(&p, &trace, c, s);
    let sim_max = sim.wait.max();
    assert!((sim_max - 900.0).abs() / 900.0 < 0.1, "{sim_max}");
    let (sp, ap) = (
        sim.latency.percentile(0.95, 0).unwrap(),
        an.quantile(0.95, false).unwrap(),
    );
    assert!(
        (sp - ap).abs() / ap < 0.1,
        "p95: simulated {sp}, analytic {ap}"
    );
}

/// A diurnal day: a sine between `low` and `high` requests a minute, Poisson counts.
fn diurnal(low: f64, high: f64, minutes: usize, seed: u64) -> Trace {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let arrivals = (0..minutes)
        .map(|t| {
            let phase = (t as f64 / 1440.0) * std::f64::consts::TAU;
            let mean = low + (high - low) * 0.5 * (1.0 - phase.cos());
            // normal approximation of the Poisson count (means in the hundreds)
            let u1 = ((rng.next_u64() >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
            let u2 = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
            (mean + z * mean.sqrt()).round().max(0.0) as u32
        })
        .collect::<Vec<_>>();
    Trace {
        start: "2026-11-02T00:00:00Z".parse().unwrap(),
        missing: vec![false; arrivals.len()],
        arrivals,
        source: "diurnal".into(),
    }
}

#[test]
fn autoscaled_day_the_two_models_agree() {
    use gpuform::simulate::engine::{Agg, Dir, Op, Profile, Rule, Stat};
    // a day from 50 to 3,000 requests a minute on VMs of 16 slots at 2 s (480 a minute at
    // full load), scaled out above 350 a minute per healthy VM and in below 150, 8 minutes
    // to load the model
    let rule = |direction, op, threshold, cooldown| Rule {
        metric: "AvgRequestCountPerHealthyHost".into(),
        per_instance: false,
        instance_averaged: true,
        grain: 1,
        window: 5,
        statistic: Stat::Average,
        aggregation: Agg::Average,
        op,
        threshold,
        direction,
        change: 1,
        cooldown,
    };
    let setting = Setting {
        profiles: vec![Profile {
            name: "default".into(),
            min: 1,
            max: 20,
            default: 1,
            recurrence: None,
            rules: vec![
                rule(Dir::Increase, Op::Gt, 350.0, 3),
                rule(Dir::Decrease, Op::Lt, 150.0, 10),
            ],
        }],
        zones: 1,
    };
    let trace = diurnal(50.0, 3000.0, 1440, 5);
    let choices = Choices {
        zero_instances: ZeroInstances::Missing,
        ..Choices::default()
    };
    let p = pool::replay(&setting, &trace, &Priority::Regular, &choices, 8, 0.0, 1);
    assert!(
        p.peak >= 7,
        "the peak needs 3000 / 480 = 6.3 VMs: {}",
        p.peak
    );
    let (c, s) = (16, 2.0);
    let sim = des::run(&p, &trace, &knobs(c, s), 2);
    let an = fluid::run(&p, &trace, c, s);
    for q in [0.5, 0.95, 0.99] {
        let a = an.quantile(q, false).unwrap();
        let d = sim.latency.percentile(q, sim.failed()).unwrap();
        assert!(
            (a - d).abs() / d < 0.15,
            "p{q}: analytic {a:.2} s, simulated {d:.2} s"
        );
    }
    // the share within a 10 s target, to a percentage point
    let within_sim = sim.latency.at_most(10.0) as f64 / sim.requests as f64;
    let within_an = an.share_within(10.0, false);
    assert!(
        (within_sim - within_an).abs() < 0.01,
        "{within_sim} vs {within_an}"
    );
}

// ---- the command: a serving spec's plan feeds the replay and the tune (no re-derivation) ----

const SPEC: &str = "tests/fixtures/simulate/serving/llm-chat.yaml";
const RAMP: &str = "tests/fixtures/simulate/serving/ramp.requests.csv";

fn gpuform(args: &[&str]) -> (i32, String, String) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_gpuform"))
        .args(args)
        .env("GPUFORM_OFFLINE", "1")
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn json(args: &[&str]) -> serde_json::Value {
    let (code, out, err) = gpuform(args);
    assert!(code == 0 || code == 1, "exit {code}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"))
}

fn f(v: &serde_json::Value, ptr: &str) -> f64 {
    v.pointer(ptr)
        .and_then(serde_json::Value::as_f64)
        .unwrap_or_else(|| panic!("no number at {ptr}"))
}

#[test]
fn simulate_reads_the_serving_plan_and_its_target() {
    // the spec says concurrency 16, serviceTime 2s, latencyP95 10s; the ramp never queues, so
    // the p95 latency is an exponential 2 s service's own: 2 x ln 20 (written out here)
    let v = json(&["simulate", SPEC, "--trace", RAMP, "--output", "json"]);
    assert_eq!(v["mode"], "requests", "{v}");
    assert_eq!(f(&v, "/latencyTarget/seconds"), 10.0);
    let p95 = f(&v, "/latencySeconds/p95");
    let want = 2.0 * 20f64.ln();
    assert!((p95 - want).abs() / want < 0.03, "p95 {p95} vs {want}");
    assert!(f(&v, "/lowerBound/ratio") >= 1.0, "{}", v["lowerBound"]);
    assert!(f(&v, "/cost/monthly") > 0.0);
    // --latency-p95 replaces the spec's target; --concurrency halves the slots (more waiting)
    let v = json(&[
        "simulate",
        SPEC,
        "--trace",
        RAMP,
        "--output",
        "json",
        "--latency-p95",
        "20s",
    ]);
    assert_eq!(f(&v, "/latencyTarget/seconds"), 20.0);
    // a target below the service's own p95 (6.0 s) is unreachable: said, and no ratio
    let v = json(&[
        "simulate",
        SPEC,
        "--trace",
        RAMP,
        "--output",
        "json",
        "--latency-p95",
        "5s",
    ]);
    assert!(v["lowerBound"]["ratio"].is_null(), "{}", v["lowerBound"]);
    assert!(v.to_string().contains("no number of VMs meets it"), "{v}");
}

#[test]
fn simulate_of_one_fixed_vm_agrees_with_erlang_c() {
    // one VM (capacity 1..1) of 16 slots, 2 s per request, 432 requests a minute: rho = 0.9;
    // the command's p95 wait against M/M/c written out in this file
    let dir = tempfile::tempdir().unwrap();
    let spec = std::fs::read_to_string(SPEC)
        .unwrap()
        .replace("    min: 1\n    max: 6\n", "    min: 1\n    max: 1\n");
    let spec_path = dir.path().join("one.yaml");
    std::fs::write(&spec_path, spec).unwrap();
    // Poisson counts a minute (the closed form's arrivals; a flat count a minute waits less)
    let mut csv = String::from("timestamp,requests\n");
    for (m, n) in poisson_trace(432.0, 1440, 7).arrivals.iter().enumerate() {
        csv.push_str(&format!("2026-11-02T{:02}:{:02}:00Z,{n}\n", m / 60, m % 60));
    }
    let trace_path = dir.path().join("flat.requests.csv");
    std::fs::write(&trace_path, csv).unwrap();
    let v = json(&[
        "simulate",
        spec_path.to_str().unwrap(),
        "--trace",
        trace_path.to_str().unwrap(),
        "--output",
        "json",
        "--seed",
        "3",
    ]);
    let sim = f(&v, "/waitSeconds/p95");
    let closed = mmc_p95_wait(16, 432.0 / 60.0, 0.5);
    eprintln!("p95 wait: command {sim:.3} s, Erlang C {closed:.3} s");
    assert!((sim - closed).abs() / closed < 0.05, "{sim} vs {closed}");
}

#[test]
fn a_queue_trace_for_a_serving_spec_is_refused_at_its_header() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("jobs.csv");
    std::fs::write(&p, "timestamp,arrivals\n2026-11-02T00:00:00Z,3\n").unwrap();
    let (code, _, err) = gpuform(&["simulate", SPEC, "--trace", p.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("request-driven pool") && err.contains(":1"),
        "{err}"
    );
    let (code, _, err) = gpuform(&["simulate", SPEC, "--synthetic"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--synthetic does not apply"), "{err}");
}

#[test]
fn tune_proposes_a_valid_serving_policy_that_meets_the_target() {
    let (code, text, err) = gpuform(&["simulate", SPEC, "--trace", RAMP, "--tune"]);
    assert_eq!(code, 0, "{err}\n{text}");
    // the report says the proposal's nominal p95, its cost and its ratio to the bound
    let after = text
        .lines()
        .find(|l| l.starts_with("after:"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        after.contains("met") && after.contains("x bound") && after.contains("/month"),
        "{after}"
    );
    let v = json(&[
        "simulate", SPEC, "--trace", RAMP, "--tune", "--output", "json",
    ]);
    assert_eq!(v["mode"], "requests");
    assert_eq!(v["holdsUnderAll"], true, "{v}");
    // written back into the spec it validates (the gateway metric allows only Average)
    assert!(v["unwritten"].is_null(), "{}", v["unwritten"]);
    assert_eq!(v["afterPolicy"]["scaleOutAggregation"], "average");
    assert!(
        v["diff"]
            .as_str()
            .is_some_and(|d| d.contains("targetPerInstance"))
    );
    let (target, p95) = (
        f(&v, "/after/latencyTarget/seconds"),
        f(&v, "/after/latencySeconds/p95"),
    );
    assert_eq!(target, 10.0);
    assert!(p95 <= target, "{p95}");
    assert!(f(&v, "/after/cost/monthly") <= f(&v, "/before/cost/monthly"));
    assert!(f(&v, "/after/lowerBound/ratio") >= 1.0);
}
