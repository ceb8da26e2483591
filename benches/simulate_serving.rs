//! Request-driven replay benchmark: a week of requests a minute (the `llm-chat-vllm` example's
//! trace, ~3.7 million requests, peak ~1,300 a minute) through an autoscale setting on
//! `AvgRequestCountPerHealthyHost`: the autoscale trajectory alone, the analytic model the
//! tuner screens with (trajectory + Erlang C/backlog + p95), and the request simulation the
//! report shows.
//!
//! Run: `cargo bench --bench simulate_serving` (release profile). `BENCH_ITERS` (default 20).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use gpuform::cost::usage::Priority;
use gpuform::simulate::engine::{Agg, Choices, Dir, Op, Profile, Rule, Setting, Stat};
use gpuform::simulate::load;
use gpuform::simulate::serving::{self, Model, des, fluid, pool};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let iters: usize = std::env::var("BENCH_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples/simulate/llm-chat-vllm.requests.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let trace = load::parse(&path.display().to_string(), &text, None).unwrap();
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
            min: 2,
            max: 12,
            default: 2,
            recurrence: None,
            rules: vec![
                rule(Dir::Increase, Op::Gt, 150.0, 5),
                rule(Dir::Decrease, Op::Lt, 75.0, 15),
            ],
        }],
        zones: 3,
    };
    let m = Model {
        concurrency: 16,
        service_seconds: 4.0,
        service_from: "bench".into(),
        ready_minutes: 12,
        ready_from: "bench".into(),
        latency_target_seconds: 10.0,
        quantile: 0.95,
        request_timeout_seconds: 300.0,
        drain_seconds: 300.0,
        spot_evictions_per_hour: 0.0,
        gpus_per_instance: 1.0,
    };
    let choices = serving::choices(Choices::default(), false);
    let prio = Priority::Regular;
    let (mut traj, mut screen, mut des_t) = (Vec::new(), Vec::new(), Vec::new());
    let mut last = None;
    for _ in 0..iters {
        let t = Instant::now();
        let p = pool::replay(&setting, &trace, &prio, &choices, 12, 0.0, 1);
        traj.push(t.elapsed());
        std::hint::black_box(&p);
        let t = Instant::now();
        let s = serving::screen(&setting, &trace, &prio, &choices, &m, 1);
        screen.push(t.elapsed());
        std::hint::black_box(&s);
        last = Some(s);
    }
    let p = pool::replay(&setting, &trace, &prio, &choices, 12, 0.0, 1);
    let des_iters = iters.clamp(1, 5);
    let mut served = None;
    for _ in 0..des_iters {
        let t = Instant::now();
        let s = des::run(
            &p,
            &trace,
            &des::Knobs {
                concurrency: 16,
                service_seconds: 4.0,
                drain_seconds: 300.0,
                request_timeout_seconds: 300.0,
            },
            1,
        );
        des_t.push(t.elapsed());
        served = Some(s);
    }
    let s = served.unwrap();
    let a = fluid::run(&p, &trace, 16, 4.0);
    println!(
        "week: {} minutes, {} requests; pool peak {} VMs, {:.0} VM-hours",
        trace.minutes(),
        s.requests,
        p.peak,
        p.instance_minutes() as f64 / 60.0
    );
    println!(
        "p95 latency: simulated {:.2} s, analytic {:.2} s (screen: {:?})",
        s.latency.percentile(0.95, s.failed()).unwrap_or(f64::NAN),
        a.quantile(0.95, false).unwrap_or(f64::NAN),
        last.and_then(|l| l.latency)
    );
    println!(
        "autoscale trajectory  median {:>9.3} ms ({iters} runs)",
        median(traj).as_secs_f64() * 1e3
    );
    println!(
        "analytic screen       median {:>9.3} ms ({iters} runs)",
        median(screen).as_secs_f64() * 1e3
    );
    println!(
        "request simulation    median {:>9.3} ms ({des_iters} runs)",
        median(des_t).as_secs_f64() * 1e3
    );
}
