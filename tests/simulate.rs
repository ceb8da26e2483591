//! `gpuform simulate`: hand-computed cases for each autoscale engine rule, the trace parsers on
//! recorded shapes, determinism, the lower bound on known answers, and the tuned spec end to end.

use assert_cmd::Command;
use gpuform::cost::usage::Priority;
use gpuform::simulate::bound::lower_bound;
use gpuform::simulate::engine::{
    self, Agg, Choices, Decision, Dir, Op, Profile, ProfileSwitch, Recurrence, Rule, Run, Setting,
    Stat, ZeroInstances, decide,
};
use gpuform::simulate::load::{self, Trace};
use gpuform::simulate::model::Workload;
use gpuform::simulate::tz;
use jiff::Timestamp;
use jiff::civil::Weekday;

fn rule(dir: Dir, op: Op, threshold: f64, change: u32, cooldown: u32) -> Rule {
    Rule {
        metric: "ActiveMessages".into(),
        per_instance: true,
        instance_averaged: false,
        grain: 1,
        window: 1,
        statistic: Stat::Average,
        aggregation: Agg::Average,
        op,
        threshold,
        direction: dir,
        change,
        cooldown,
    }
}

fn profile(min: u32, max: u32, default: u32, rules: Vec<Rule>) -> Profile {
    Profile {
        name: "p".into(),
        min,
        max,
        default,
        recurrence: None,
        rules,
    }
}

fn workload(job: u32, c: u32, prov: u32) -> Workload {
    Workload {
        job_minutes: job,
        job_seconds: u64::from(job) * 60,
        concurrency: c,
        provisioning_minutes: prov,
        provisioning_source: "test".into(),
        spot_evictions_per_hour: 0.0,
    }
}

fn trace(start: &str, arrivals: Vec<u32>) -> Trace {
    Trace {
        start: start.parse().unwrap(),
        missing: vec![false; arrivals.len()],
        arrivals,
        source: "test".into(),
    }
}

fn run(setting: &Setting, t: &Trace, w: &Workload, choices: Choices) -> engine::Outcome {
    engine::run(&Run {
        setting,
        trace: t,
        workload: w,
        priority: &Priority::Regular,
        choices,
        seed: 1,
        record: true,
        standby: None,
    })
}

// --- cooldown: one cooldown from the last action ------------------------------------------

#[test]
fn cooldown_spaces_scale_outs_by_the_rule_cooldown() {
    // 100 long jobs arrive at minute 0 on 1 instance: the backlog per instance stays far above
    // 5, so the rule fires every evaluation; with a 5-minute cooldown it acts at 0, 5 and 10.
    let s = Setting {
        profiles: vec![profile(
            1,
            10,
            1,
            vec![rule(Dir::Increase, Op::Gt, 5.0, 1, 5)],
        )],
        zones: 1,
    };
    let mut a = vec![0; 12];
    a[0] = 100;
    let o = run(
        &s,
        &trace("2026-11-02T00:00:00Z", a),
        &workload(1000, 1, 0),
        Choices::default(),
    );
    assert_eq!(o.scale_out, 3);
    assert_eq!(o.peak_instances, 4);
    assert_eq!(o.cooldown_skips, 12 - 3);
    let total: Vec<u16> = o.series.as_ref().unwrap().regular.clone();
    // the count changes after the evaluation at the end of minutes 0, 5 and 10
    assert_eq!(&total[..12], &[1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4]);
}

// --- scale-in only when every Decrease rule fires --------------------------------------------

#[test]
fn scale_in_needs_every_decrease_rule() {
    let mut a = rule(Dir::Decrease, Op::Lt, 10.0, 1, 5);
    a.per_instance = false;
    let mut b = rule(Dir::Decrease, Op::Lt, 3.0, 1, 5);
    b.per_instance = false;
    let out = rule(Dir::Increase, Op::Gt, 100.0, 1, 5);
    let p = profile(1, 10, 1, vec![out.clone(), a.clone(), b.clone()]);
    // 5: the first fires (< 10), the second does not (< 3): no scale-in
    assert_eq!(
        decide(
            &p,
            &[Some(5.0), Some(5.0), Some(5.0)],
            4,
            ZeroInstances::One
        ),
        Decision::Keep
    );
    // 2: both fire: one fewer
    assert_eq!(
        decide(
            &p,
            &[Some(2.0), Some(2.0), Some(2.0)],
            4,
            ZeroInstances::One
        ),
        Decision::Scale(3, 5)
    );
    // any Increase rule that fires wins over the scale-in; the highest result wins
    let big = rule(Dir::Increase, Op::Gt, 1.0, 3, 7);
    let p2 = profile(1, 10, 1, vec![out, big, a, b]);
    assert_eq!(
        decide(
            &p2,
            &[Some(8.0), Some(8.0), Some(2.0), Some(2.0)],
            4,
            ZeroInstances::One
        ),
        Decision::Scale(7, 7)
    );
}

// --- the flapping guard, with Microsoft's examples ------------------------------------------

#[test]
fn flap_guard_defers_when_one_fewer_would_scale_out_again() {
    // autoscale-flapping: 1250 threads on 3 instances (417 each) fires "< 500: remove one";
    // at 2 instances the projection is 625 > 600, which would scale out again: deferred.
    let p = profile(
        1,
        10,
        1,
        vec![
            rule(Dir::Increase, Op::Gt, 600.0, 1, 5),
            rule(Dir::Decrease, Op::Lt, 500.0, 1, 5),
        ],
    );
    assert_eq!(
        decide(&p, &[Some(1250.0), Some(1250.0)], 3, ZeroInstances::One),
        Decision::Deferred
    );
    // the CPU form: 28 % average on 2 instances fires "< 30 %"; one instance would carry 56 %
    let mut out = rule(Dir::Increase, Op::Gt, 50.0, 1, 5);
    let mut inn = rule(Dir::Decrease, Op::Lt, 30.0, 1, 5);
    for r in [&mut out, &mut inn] {
        r.per_instance = false;
        r.instance_averaged = true;
    }
    let cpu = profile(1, 10, 1, vec![out, inn]);
    assert_eq!(
        decide(&cpu, &[Some(28.0), Some(28.0)], 2, ZeroInstances::One),
        Decision::Deferred
    );
}

#[test]
fn flap_guard_scales_in_as_far_as_it_safely_can() {
    // 30 instances, a step of 10 would reach 20; 16,000 messages: 20..26 instances would carry
    // more than 600 each, 27 carries 592.6: the guard scales in to 27 instead of 20.
    let p = profile(
        1,
        40,
        1,
        vec![
            rule(Dir::Increase, Op::Gt, 600.0, 1, 5),
            rule(Dir::Decrease, Op::Lt, 550.0, 10, 5),
        ],
    );
    assert_eq!(
        decide(
            &p,
            &[Some(16_000.0), Some(16_000.0)],
            30,
            ZeroInstances::One
        ),
        Decision::Reduced(27, 5)
    );
}

// --- capacity 0 and missing metrics ---------------------------------------------------------

#[test]
fn zero_instances_choices() {
    let p = profile(0, 5, 0, vec![rule(Dir::Increase, Op::Gt, 5.0, 1, 5)]);
    // a trickle of 3 messages at 0 instances never exceeds 5 "per instance" (divided by 1)
    assert_eq!(
        decide(&p, &[Some(3.0)], 0, ZeroInstances::One),
        Decision::Keep
    );
    assert_eq!(
        decide(&p, &[Some(6.0)], 0, ZeroInstances::One),
        Decision::Scale(1, 5)
    );
    // --zero-instances missing: no value; the default (0) is not above the count: stay
    assert_eq!(
        decide(&p, &[Some(6.0)], 0, ZeroInstances::Missing),
        Decision::Keep
    );
    let p1 = profile(0, 5, 1, p.rules.clone());
    assert_eq!(
        decide(&p1, &[Some(6.0)], 0, ZeroInstances::Missing),
        Decision::MissingMetric(1)
    );
}

#[test]
fn a_pool_at_zero_waits_for_a_trickle_to_pass_the_threshold() {
    // min 0, scale out above 5 per instance: 1 job per 2 minutes builds up; at 0 instances the
    // whole backlog counts (divided by 1) and the pool starts once 6 are waiting
    let s = Setting {
        profiles: vec![profile(
            0,
            5,
            0,
            vec![rule(Dir::Increase, Op::Gt, 5.0, 1, 1)],
        )],
        zones: 1,
    };
    let a: Vec<u32> = (0..20).map(|i| u32::from(i % 2 == 0)).collect();
    let o = run(
        &s,
        &trace("2026-11-02T00:00:00Z", a),
        &workload(1, 1, 0),
        Choices::default(),
    );
    // arrivals at 0,2,..,10: the 6th job arrives at minute 10 -> scale out at the end of 10
    let series = o.series.as_ref().unwrap();
    assert_eq!(series.regular[10], 0);
    assert_eq!(series.regular[11], 1);
    assert_eq!(o.wait_max(), 11.0, "the first job waited from 0 to 11");
}

#[test]
fn missing_metrics_raise_to_the_default_and_never_lower() {
    let s = Setting {
        profiles: vec![profile(
            0,
            5,
            3,
            vec![rule(Dir::Decrease, Op::Le, 0.0, 1, 1)],
        )],
        zones: 1,
    };
    let mut t = trace("2026-11-02T00:00:00Z", vec![0; 5]);
    t.missing = vec![true; 5];
    let o = run(&s, &t, &workload(1, 1, 0), Choices::default());
    // starts at the default 3 and stays there: missing data never scales in
    assert_eq!(o.scale_in, 0);
    assert_eq!(o.series.as_ref().unwrap().regular, vec![3; 5]);
    // the same with data: the queue is empty, so it scales in every minute down to 0
    let t2 = trace("2026-11-02T00:00:00Z", vec![0; 5]);
    let o2 = run(&s, &t2, &workload(1, 1, 0), Choices::default());
    assert_eq!(o2.series.as_ref().unwrap().regular, vec![3, 2, 1, 0, 0]);
}

// --- profiles in their time zones --------------------------------------------------------------

fn recurring(name: &str, zone: &str, hour: u32, minute: u32, min: u32, max: u32) -> Profile {
    Profile {
        name: name.into(),
        min,
        max,
        default: min,
        recurrence: Some(Recurrence {
            time_zone: zone.into(),
            zone: tz::zone(zone).unwrap(),
            days: vec![
                Weekday::Monday,
                Weekday::Tuesday,
                Weekday::Wednesday,
                Weekday::Thursday,
                Weekday::Friday,
                Weekday::Saturday,
                Weekday::Sunday,
            ],
            hour,
            minute,
        }),
        rules: vec![],
    }
}

#[test]
fn profile_switch_in_china_standard_time() {
    // evening-peak 18:00-23:30 Beijing (UTC+8, no daylight saving) = 10:00-15:30 UTC
    let s = Setting {
        profiles: vec![
            profile(1, 20, 2, vec![]),
            recurring("evening-peak", "China Standard Time", 18, 0, 6, 20),
            recurring("evening-peak (end)", "China Standard Time", 23, 30, 1, 20),
        ],
        zones: 1,
    };
    let start: Timestamp = "2026-11-02T00:00:00Z".parse().unwrap();
    let tl = s.timeline(start, 1440);
    assert_eq!(
        tl[599], 2,
        "before 10:00 UTC the end profile of the day before applies"
    );
    assert_eq!(tl[600], 1);
    assert_eq!(tl[929], 1);
    assert_eq!(tl[930], 2);
    // the count follows: clamped up to 6 at the start (at once), down to the default... the
    // end profile has no rules, so it sets its default (1)
    let o = run(
        &s,
        &trace("2026-11-02T00:00:00Z", vec![0; 1440]),
        &workload(1, 1, 0),
        Choices::default(),
    );
    let r = &o.series.as_ref().unwrap().regular;
    assert_eq!(
        r[600], 1,
        "the count changes after the evaluation at the end of minute 600"
    );
    assert_eq!(r[601], 6);
    assert_eq!(r[931], 1);
}

#[test]
fn daylight_saving_day_in_w_europe_standard_time() {
    // Berlin moves from UTC+1 to UTC+2 at 02:00 local on Sunday 2026-03-29
    let s = Setting {
        profiles: vec![
            profile(1, 4, 1, vec![]),
            recurring("office", "W. Europe Standard Time", 8, 0, 3, 4),
            recurring("night", "W. Europe Standard Time", 2, 30, 1, 4),
        ],
        zones: 1,
    };
    let start: Timestamp = "2026-03-28T00:00:00Z".parse().unwrap();
    let tl = s.timeline(start, 2 * 1440);
    // Saturday: 08:00 CET = 07:00 UTC; 02:30 CET = 01:30 UTC
    assert_eq!(tl[90 - 1], 1, "Friday's office profile still applies");
    assert_eq!(tl[90], 2);
    assert_eq!(tl[420 - 1], 2);
    assert_eq!(tl[420], 1);
    // Sunday: 02:30 local does not exist; it moves to 03:30 CEST = 01:30 UTC;
    // 08:00 CEST = 06:00 UTC
    assert_eq!(tl[1440 + 90 - 1], 1);
    assert_eq!(tl[1440 + 90], 2);
    assert_eq!(tl[1440 + 360 - 1], 2);
    assert_eq!(
        tl[1440 + 360],
        1,
        "the office profile starts an hour earlier in UTC"
    );
}

#[test]
fn same_minute_profiles_first_in_emitted_order_wins() {
    let s = Setting {
        profiles: vec![
            profile(1, 4, 1, vec![]),
            recurring("a", "UTC", 6, 0, 2, 4),
            recurring("b", "UTC", 6, 0, 3, 4),
        ],
        zones: 1,
    };
    let tl = s.timeline("2026-11-02T00:00:00Z".parse().unwrap(), 1440);
    assert_eq!(tl[360], 1);
}

// --- metric aggregation -----------------------------------------------------------------------

#[test]
fn aggregation_over_grain_and_window() {
    let mut r = rule(Dir::Increase, Op::Gt, 0.0, 1, 1);
    r.grain = 2;
    r.window = 6;
    r.statistic = Stat::Max;
    r.aggregation = Agg::Average;
    let samples = vec![Some(1.0), Some(5.0), Some(2.0), Some(2.0), None, Some(9.0)];
    // buckets (0..=1) max 5, (2..=3) max 2, (4..=5) max 9 -> average 16/3
    assert!((engine::aggregate(&r, &samples, 5).unwrap() - 16.0 / 3.0).abs() < 1e-9);
    r.aggregation = Agg::Total;
    assert_eq!(engine::aggregate(&r, &samples, 5), Some(16.0));
    r.aggregation = Agg::Last;
    assert_eq!(engine::aggregate(&r, &samples, 5), Some(9.0));
    assert_eq!(engine::aggregate(&r, &[None, None], 1), None);
}

// --- lower bound --------------------------------------------------------------------------------

#[test]
fn lower_bound_known_answers() {
    // 60 jobs at minute 0, 100 minutes, 2-minute jobs, target 10 min
    let mut a = vec![0; 100];
    a[0] = 60;
    let t = trace("2026-11-02T00:00:00Z", a);
    let b = lower_bound(&t, &workload(2, 1, 8), 10, 1.0);
    assert_eq!(b.jobs_counted, 60);
    assert!((b.instance_hours - 2.0).abs() < 1e-9);
    // p95: 3 of 60 may miss the target
    let b = lower_bound(&t, &workload(2, 1, 8), 10, 0.95);
    assert_eq!(b.jobs_counted, 57);
    assert!((b.instance_hours - 1.9).abs() < 1e-9);
    // two slots per instance halve it
    let b = lower_bound(&t, &workload(2, 2, 8), 10, 1.0);
    assert!((b.instance_hours - 1.0).abs() < 1e-9);
    // jobs too late to finish inside the trace do not count
    let mut late = vec![0; 100];
    late[95] = 10;
    assert_eq!(
        lower_bound(
            &trace("2026-11-02T00:00:00Z", late),
            &workload(2, 1, 8),
            10,
            1.0
        )
        .jobs_counted,
        0
    );
}

#[test]
fn lower_bound_is_reached_by_a_perfectly_packed_pool() {
    // one job every 2 minutes, 2-minute jobs, one fixed instance: always busy, no wait
    let a: Vec<u32> = (0..120).map(|i| u32::from(i % 2 == 0)).collect();
    let t = trace("2026-11-02T00:00:00Z", a);
    let w = workload(2, 1, 8);
    let o = run(&Setting::fixed(1), &t, &w, Choices::default());
    assert_eq!(o.wait_max(), 0.0);
    let b = lower_bound(&t, &w, 0, 1.0);
    assert!((b.instance_hours - o.instance_minutes as f64 / 60.0).abs() < 1e-9);
    assert_eq!(o.idle_minutes, 0);
}

#[test]
fn lower_bound_never_exceeds_a_policy_that_meets_the_target() {
    for seed in 0..20u64 {
        let syn = load::Synthetic {
            seed,
            days: 1,
            start: "2026-11-02T00:00:00Z".into(),
            base_per_minute: 1.0 + seed as f64 / 5.0,
            windows: vec![],
            burst_per_hour: 0.5,
            burst_per_minute: 4.0,
        };
        let t = syn.generate().unwrap();
        let w = workload(3, 1, 5);
        // generous fixed pool: meets any target
        let o = run(&Setting::fixed(40), &t, &w, Choices::default());
        assert!(o.wait_percentile(0.95) <= 10.0);
        let b = lower_bound(&t, &w, 10, 0.95);
        assert!(b.instance_hours <= o.instance_minutes as f64 / 60.0);
        assert!(
            b.instance_hours
                <= o.instance_minutes as f64 / 60.0 - o.idle_minutes as f64 / 60.0 + 1e-9
        );
    }
}

// --- determinism -----------------------------------------------------------------------------

#[test]
fn same_seed_same_outcome_with_evictions() {
    let syn = load::Synthetic {
        seed: 3,
        days: 2,
        start: "2026-11-02T00:00:00Z".into(),
        base_per_minute: 3.0,
        windows: vec![],
        burst_per_hour: 0.2,
        burst_per_minute: 10.0,
    };
    let t = syn.generate().unwrap();
    let s = Setting {
        profiles: vec![profile(
            1,
            20,
            2,
            vec![
                rule(Dir::Increase, Op::Gt, 4.0, 1, 2),
                rule(Dir::Decrease, Op::Lt, 2.0, 1, 5),
            ],
        )],
        zones: 1,
    };
    let mut w = workload(2, 1, 8);
    w.spot_evictions_per_hour = 0.05;
    let go = || {
        engine::run(&Run {
            setting: &s,
            trace: &t,
            workload: &w,
            priority: &Priority::Spot,
            choices: Choices {
                zero_instances: ZeroInstances::One,
                profile_switch: ProfileSwitch::AfterCooldown,
                ..Choices::default()
            },
            seed: 9,
            record: true,
            standby: None,
        })
    };
    let (a, b) = (go(), go());
    assert_eq!(a, b);
    assert!(a.evictions > 0);
    // every job has exactly one wait: started ones (a restarted job counts once) and those
    // still queued at the end
    assert_eq!(a.waits.iter().sum::<u64>(), t.jobs());
}

// --- the az monitor metrics list parser on recorded shapes -----------------------------------

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("tests/fixtures/simulate/{name}")).unwrap()
}

#[test]
fn az_service_bus_incoming_messages_by_entity() {
    let t = load::parse(
        "sb.json",
        &fixture("az-servicebus.json"),
        Some("transcode-jobs"),
    )
    .unwrap();
    assert_eq!(t.arrivals, vec![12, 7, 0, 0, 30]);
    assert_eq!(t.missing, vec![false, false, true, false, false]);
    assert_eq!(t.start.to_string(), "2026-11-02T10:00:00Z");
    assert!(t.source.contains("IncomingMessages"));
    let other = load::parse(
        "sb.json",
        &fixture("az-servicebus.json"),
        Some("thumbnails"),
    )
    .unwrap();
    assert_eq!(other.jobs(), 2500);
    // several queues and none named: say which ones exist
    let e = load::parse("sb.json", &fixture("az-servicebus.json"), None).unwrap_err();
    assert!(e.to_string().contains("thumbnails, transcode-jobs"), "{e}");
    let e = load::parse("sb.json", &fixture("az-servicebus.json"), Some("nope")).unwrap_err();
    assert!(
        e.to_string()
            .contains("no time series for the queue `nope`"),
        "{e}"
    );
}

#[test]
fn az_storage_transactions_put_message_spread_over_the_interval() {
    let t = load::parse("st.json", &fixture("az-storage-transactions.json"), None).unwrap();
    assert_eq!(t.minutes(), 10);
    assert_eq!(
        t.jobs(),
        13,
        "PutMessage only; GetMessages is not an arrival"
    );
    assert_eq!(&t.arrivals[..5], &[2, 2, 2, 2, 2]);
}

#[test]
fn az_queue_length_gauge_gives_its_increases() {
    let t = load::parse(
        "q.json",
        &fixture("az-storage-queuemessagecount.json"),
        None,
    )
    .unwrap();
    assert_eq!(t.minutes(), 180);
    assert_eq!(
        t.jobs(),
        60,
        "the increase from 100 to 160; the fall to 40 adds nothing"
    );
    assert!(t.source.contains("lower bound"));
}

#[test]
fn az_errors_say_what_to_export() {
    let e = load::parse("x.json", "{\"value\": []}", None).unwrap_err();
    assert!(e.to_string().contains("no queue metric"), "{e}");
    assert!(e.help().contains("az monitor metrics list"));
    let e = load::parse("x.json", "{\"nope\": 1}", None).unwrap_err();
    assert!(
        e.to_string()
            .contains("not `az monitor metrics list` output")
    );
    let e = load::parse("x.json", "{ broken", None).unwrap_err();
    assert!(e.to_string().contains("not valid JSON"));
}

// --- the command ------------------------------------------------------------------------------

fn gpuform() -> Command {
    let mut c = Command::cargo_bin("gpuform").unwrap();
    c.env("GPUFORM_TODAY", "2026-12-01").env("NO_COLOR", "1");
    c
}

#[test]
fn synthetic_json_has_the_fixed_keys_and_is_deterministic() {
    let args = [
        "simulate",
        "examples/shortvideo-transcode.yaml",
        "--synthetic",
        "--days",
        "2",
        "--job-duration",
        "PT2M",
        "--provisioning",
        "PT8M",
        "--format",
        "json",
    ];
    let a = gpuform().args(args).output().unwrap();
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    let b = gpuform().args(args).output().unwrap();
    assert_eq!(a.stdout, b.stdout);
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    for p in [
        "/waitMinutes/p50",
        "/waitMinutes/p95",
        "/waitMinutes/p99",
        "/waitMinutes/max",
        "/instanceHours/total",
        "/instanceHours/regular",
        "/instanceHours/spot",
        "/instanceHours/idle",
        "/lowerBound/instanceHours",
        "/scaleActions/out",
        "/scaleActions/in",
        "/cost/monthly",
    ] {
        assert!(v.pointer(p).is_some_and(|x| x.is_number()), "{p} in {v}");
    }
    let ih = &v["instanceHours"];
    let sum = ih["regular"].as_f64().unwrap() + ih["spot"].as_f64().unwrap();
    assert!((sum - ih["total"].as_f64().unwrap()).abs() < 1e-6);
    // a regular base of 2, Spot above it
    assert!(ih["regular"].as_f64().unwrap() <= 2.0 * 48.0 + 1e-9);
}

#[test]
fn csv_trace_svg_and_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("chart.svg");
    let out = gpuform()
        .args([
            "simulate",
            "examples/shortvideo-transcode.yaml",
            "--trace",
            "tests/fixtures/simulate/small.csv",
            "--job-duration",
            "PT2M",
            "--format",
            "markdown",
            "--svg",
        ])
        .arg(&svg)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("| job wait p50 / p95 / p99 / max |"), "{md}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"), "{}", &text[..50.min(text.len())]);
    assert!(text.contains("backlog"));
    assert!(text.contains("profile: "));
}

#[test]
fn usage_errors() {
    // no job duration anywhere
    let out = gpuform()
        .args([
            "simulate",
            "examples/shortvideo-transcode.yaml",
            "--synthetic",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("jobDuration"));
    // a bad CSV row is located
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("t.csv");
    std::fs::write(
        &csv,
        "timestamp,arrivals\n2026-11-02T00:00:00Z,1\nyesterday,2\n",
    )
    .unwrap();
    let out = gpuform()
        .args([
            "simulate",
            "examples/shortvideo-transcode.yaml",
            "--job-duration",
            "PT2M",
            "--trace",
        ])
        .arg(&csv)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("t.csv:3"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn cost_prices_a_trace_as_its_expected_case() {
    let base = gpuform()
        .args([
            "cost",
            "examples/shortvideo-transcode.yaml",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let traced = gpuform()
        .args([
            "cost",
            "examples/shortvideo-transcode.yaml",
            "--format",
            "json",
            "--trace",
            "tests/fixtures/simulate/small.csv",
            "--job-duration",
            "PT2M",
        ])
        .output()
        .unwrap();
    assert!(
        traced.status.success(),
        "{}",
        String::from_utf8_lossy(&traced.stderr)
    );
    let a: serde_json::Value = serde_json::from_slice(&base.stdout).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&traced.stdout).unwrap();
    assert_eq!(a["instanceHours"]["low"], b["instanceHours"]["low"]);
    assert_ne!(
        a["instanceHours"]["expected"],
        b["instanceHours"]["expected"]
    );
    assert!(b["assumptions"].to_string().contains("gpuform simulate"));
}

#[test]
fn tuned_spec_is_written_renders_and_validates() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("shortvideo-transcode.yaml");
    std::fs::copy("examples/shortvideo-transcode.yaml", &spec).unwrap();
    std::fs::create_dir(dir.path().join("cloud-init")).unwrap();
    std::fs::copy(
        "examples/cloud-init/transcode.yaml",
        dir.path().join("cloud-init/transcode.yaml"),
    )
    .unwrap();
    let before = std::fs::read_to_string(&spec).unwrap();
    let out = gpuform()
        .args(["simulate"])
        .arg(&spec)
        .args([
            "--synthetic",
            "--days",
            "1",
            "--job-duration",
            "PT2M",
            "--provisioning",
            "PT8M",
            "--tune",
            "--wait-p95",
            "10m",
            "--write",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["after"]["waitTarget"]["met"].as_bool().unwrap());
    assert!(
        v["after"]["waitMinutes"]["p95"].as_f64().unwrap()
            < v["before"]["waitMinutes"]["p95"].as_f64().unwrap()
    );
    // issue 22: the proposal meets the target under every model variant, not only the nominal
    // one; the figures say what that margin costs
    let r = &v["robust"];
    // 8 model variants and 2 load variants (a week with 15 % more arrivals, also with
    // provisioning 25 % slower)
    let names: Vec<&str> = r["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 10, "{names:?}");
    assert!(names.contains(&"arrivals +15 %"), "{names:?}");
    assert!(
        names.contains(&"arrivals +15 %, provisioning +25 %"),
        "{names:?}"
    );
    let per: Vec<f64> = r["after"]["p95"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(per.len(), 10);
    assert!(per.iter().all(|p| *p <= 10.0), "{per:?}");
    assert_eq!(
        v["worstCaseP95"].as_f64().unwrap(),
        per.iter().cloned().fold(0.0, f64::max)
    );
    assert!(
        v["beforeWorstCaseP95"].as_f64().unwrap()
            >= v["before"]["waitMinutes"]["p95"].as_f64().unwrap()
    );
    if let Some(c) = r["costOfRobustness"].as_f64() {
        assert!(
            c >= -1e-6,
            "the robust proposal is never cheaper than the nominal best: {c}"
        );
    }
    let after = std::fs::read_to_string(&spec).unwrap();
    assert_ne!(before, after);
    // comments and layout outside the changed fields are kept
    for line in before.lines().filter(|l| l.trim_start().starts_with('#')) {
        assert!(after.contains(line), "lost comment {line}");
    }
    let changed = similar::TextDiff::from_lines(&before, &after)
        .iter_all_changes()
        .filter(|c| c.tag() == similar::ChangeTag::Delete)
        .count();
    assert!(changed <= 8, "only the tuned fields change:\n{after}");
    gpuform().args(["validate"]).arg(&spec).assert().success();
    let out_dir = dir.path().join("out");
    gpuform()
        .args(["render"])
        .arg(&spec)
        .arg("-o")
        .arg(&out_dir)
        .assert()
        .success();
    let arm = std::fs::read_to_string(out_dir.join("azuredeploy.json")).unwrap();
    assert!(arm.contains("Microsoft.Insights/autoscalesettings"));
}

#[test]
fn tune_edits_keep_layout_and_validate() {
    use gpuform::catalog::prices::PriceTable;
    use gpuform::check::{check_file, check_source};
    use gpuform::simulate::tune::{Params, apply_edits, edits};
    use gpuform::spec::Policy;
    let path = std::path::Path::new("examples/llm-finetune-a100.yaml");
    let checked = check_file(path, &Policy::default(), PriceTable::embedded());
    let text = checked.source.clone().unwrap();
    let before = Params::of(checked.spec.as_ref().unwrap()).unwrap();
    let mut p = before.clone();
    p.capacity_min = 1;
    p.capacity_default = Some(1);
    p.scale_out_step = 3;
    p.scale_out_tiers = vec![gpuform::spec::model::ScaleOutTier { above: 3, step: 4 }];
    p.scale_in_cooldown_minutes = 5;
    let e = edits(&before, &p, false, &checked.index, &text).unwrap();
    let new = apply_edits(&text, e);
    // block mapping: the new keys go after the last key, at its indentation
    assert!(
        new.contains("      targetPerInstance: 1\n      scaleOutStep: 3\n      scaleOutTiers: [{above: 3, step: 4}]\n"),
        "{new}"
    );
    assert!(new.contains("    min: 1\n"));
    assert!(new.contains("    default: 1\n"));
    assert!(new.contains("    scaleInCooldown: PT5M\n"));
    let changed: Vec<_> = similar::TextDiff::from_lines(&text, &new)
        .iter_all_changes()
        .filter(|c| c.tag() != similar::ChangeTag::Equal)
        .map(|c| c.to_string())
        .collect();
    assert_eq!(changed.len(), 3 + 3 + 2, "{changed:?}");
    let re = check_source(
        new,
        "llm.yaml",
        std::path::PathBuf::from("examples"),
        &Policy::default(),
        PriceTable::embedded(),
    );
    assert!(!re.has_errors(), "{:?}", re.diagnostics);
    let q = re.spec.unwrap().spec.autoscale.unwrap().queue.unwrap();
    assert_eq!(q.scale_out_step, Some(3));
    assert_eq!(q.scale_out_tiers.len(), 1);
}

#[test]
fn tune_edits_flow_mappings() {
    use gpuform::simulate::tune::{apply_edits, set};
    let text =
        "spec:\n  capacity: {min: 0, max: 4}\n  autoscale: {queue: {targetPerInstance: 5}}\n";
    let parsed = gpuform::spec::yaml::parse(text).unwrap();
    let e1 = set(&parsed.index, text, "/spec/capacity", "min", "1").unwrap();
    let e2 = set(
        &parsed.index,
        text,
        "/spec/autoscale/queue",
        "scaleOutStep",
        "2",
    )
    .unwrap();
    let e3 = set(
        &parsed.index,
        text,
        "/spec/autoscale",
        "scaleInCooldown",
        "PT5M",
    )
    .unwrap();
    let new = apply_edits(text, vec![e1, e2, e3]);
    assert_eq!(
        new,
        "spec:\n  capacity: {min: 1, max: 4}\n  autoscale: {queue: {targetPerInstance: 5, scaleOutStep: 2}, scaleInCooldown: PT5M}\n"
    );
}

/// A two-hour trace (4 jobs a minute) and the telemetry of the same two hours: vm-a and vm-b
/// busy throughout, vm-c busy for the first hour and idle (2 %) for the second; two GPUs each.
fn telemetry_fixture(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let start = jiff::Timestamp::from_second(1_793_613_600).unwrap(); // 2026-11-02T10:00:00Z
    let mut trace = String::from("timestamp,arrivals\n");
    let mut gpu = String::from("TimeGenerated,Computer,GpuIndex,UtilizationPercent,Status\n");
    for m in 0..120i64 {
        let t = start
            .checked_add(jiff::SignedDuration::from_mins(m))
            .unwrap();
        trace.push_str(&format!("{t},4\n"));
        let sampled = t.checked_add(jiff::SignedDuration::from_secs(7)).unwrap();
        for (vm, util) in [
            ("vm-a", 80),
            ("vm-b", 75),
            ("vm-c", if m < 60 { 50 } else { 2 }),
        ] {
            for g in 0..2 {
                gpu.push_str(&format!("{sampled},{vm},{g},{util},ok\n"));
            }
        }
    }
    let (t, g) = (dir.join("trace.csv"), dir.join("gpu.csv"));
    std::fs::write(&t, trace).unwrap();
    std::fs::write(&g, gpu).unwrap();
    (t, g)
}

#[test]
fn telemetry_is_measured_beside_the_simulation_and_gives_the_job_time() {
    let dir = tempfile::tempdir().unwrap();
    let (trace, gpu) = telemetry_fixture(dir.path());
    assert!(
        std::fs::read_to_string(&trace)
            .unwrap()
            .starts_with("timestamp,arrivals\n2026-11-02T10:00:00Z,4\n")
    );
    // the example has no workload.jobDuration: the telemetry gives it
    let out = gpuform()
        .args([
            "simulate",
            "examples/shortvideo-transcode.yaml",
            "--format",
            "json",
            "--trace",
        ])
        .arg(&trace)
        .arg("--telemetry")
        .arg(&gpu)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = &v["measured"];
    // 3 VMs x 120 minutes; vm-c idle for 60 of them; 3 at once
    assert_eq!(m["instanceHours"], 6.0);
    assert_eq!(m["idleInstanceHours"], 1.0);
    assert_eq!(m["busyInstanceHours"], 5.0);
    assert_eq!(m["peakInstances"], 3);
    assert_eq!(m["minutesCovered"], 120);
    // 300 busy VM-minutes x 1 job per VM / 480 jobs = 0.625 min, run as 1 whole minute
    assert_eq!(m["estimatedJobMinutes"], 0.625);
    assert_eq!(v["workload"]["jobMinutes"], 1);
    assert!(
        v["assumptions"][0]
            .as_str()
            .unwrap()
            .contains("estimated from the telemetry"),
        "{}",
        v["assumptions"][0]
    );
    // the simulation of the same window beside it
    let total = v["instanceHours"]["total"].as_f64().unwrap();
    assert_eq!(m["simulated"]["instanceHours"].as_f64().unwrap(), total);
    let ratio = m["simulated"]["instanceHoursRatio"].as_f64().unwrap();
    assert!((ratio - total / 6.0).abs() < 1e-9);

    // the spec's or the flag's job time wins; the text says what was measured
    let out = gpuform()
        .args([
            "simulate",
            "examples/shortvideo-transcode.yaml",
            "--job-duration",
            "PT3M",
            "--trace",
        ])
        .arg(&trace)
        .arg("--telemetry")
        .arg(&gpu)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("jobs take 3 min"), "{text}");
    assert!(
        text.contains("measured by the GPU telemetry over the same window"),
        "{text}"
    );
    assert!(
        text.contains("idle instance-hours (GPUs under 10%)"),
        "{text}"
    );
    assert!(!text.contains("estimated from the telemetry"), "{text}");
}

#[test]
fn telemetry_needs_a_trace_and_a_readable_export() {
    let out = gpuform()
        .args([
            "simulate",
            "examples/shortvideo-transcode.yaml",
            "--synthetic",
            "--job-duration",
            "PT2M",
            "--telemetry",
            "gpu.json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let (trace, _) = telemetry_fixture(dir.path());
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"[{"Computer": "vm-a", "MemoryUsedMiB": 1024}]"#).unwrap();
    let out = gpuform()
        .args([
            "simulate",
            "examples/shortvideo-transcode.yaml",
            "--job-duration",
            "PT2M",
            "--trace",
        ])
        .arg(&trace)
        .arg("--telemetry")
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("UtilizationPercent"), "{err}");
    assert!(err.contains("GpuTelemetry_CL"), "{err}");
    assert!(out.stdout.is_empty());
}

/// Issue 22: `--tune` must write a valid spec whatever subset of the keys it changes the spec
/// leaves out (the rewriter inserts them). Every example with a queue-driven autoscale, every
/// subset of its tunable keys removed: the rewritten spec validates and carries the new values.
#[test]
fn tune_rewriter_on_every_example_with_any_tunable_keys_removed() {
    use gpuform::catalog::prices::PriceTable;
    use gpuform::check::check_source;
    use gpuform::simulate::tune::{Params, apply_edits, edits};
    use gpuform::spec::Policy;
    const KEYS: &[&str] = &[
        "scaleOutStep",
        "scaleOutTiers",
        "scaleInBelow",
        "scaleOutCooldown",
        "scaleInCooldown",
        "timeWindow",
        "default",
        "scaleOutAggregation",
    ];
    let mut tried = 0;
    for entry in std::fs::read_dir("examples").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("yaml") {
            continue;
        }
        let full = std::fs::read_to_string(&path).unwrap();
        // queue-driven examples only: a serving example's `requests.targetPerInstance` is
        // tuned by the serving tuner (tests/simulate_serving.rs), not by this rewriter
        if !full.contains("targetPerInstance") || !full.contains("queue:") {
            continue;
        }
        // the tunable keys the example writes on a line of their own
        let present: Vec<&str> = KEYS
            .iter()
            .copied()
            .filter(|k| {
                full.lines()
                    .any(|l| l.trim_start().starts_with(&format!("{k}:")))
            })
            .collect();
        for mask in 0u32..(1 << present.len()) {
            let removed: Vec<&str> = present
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, k)| *k)
                .collect();
            let text: String = full
                .lines()
                .filter(|l| {
                    !removed
                        .iter()
                        .any(|k| l.trim_start().starts_with(&format!("{k}:")))
                })
                .map(|l| format!("{l}\n"))
                .collect();
            let check = |t: String| {
                check_source(
                    t,
                    "tuned.yaml",
                    std::path::PathBuf::from("examples"),
                    &Policy::default(),
                    PriceTable::embedded(),
                )
            };
            let checked = check(text.clone());
            assert!(
                !checked.has_errors(),
                "{} without {removed:?}: {:?}",
                path.display(),
                checked.diagnostics
            );
            let spec = checked.spec.as_ref().unwrap();
            let before = Params::of(spec).unwrap();
            let mut p = before.clone();
            p.target_per_instance = before.target_per_instance + 2;
            p.scale_out_step = before.scale_out_step + 2;
            p.scale_out_tiers = vec![gpuform::spec::model::ScaleOutTier {
                above: p.target_per_instance * 3,
                step: p.scale_out_step + 1,
            }];
            p.scale_out_cooldown_minutes = before.scale_out_cooldown_minutes + 1;
            p.scale_in_cooldown_minutes = before.scale_in_cooldown_minutes + 7;
            p.time_window_minutes = if before.time_window_minutes == 10 {
                5
            } else {
                10
            };
            // the scale-out aggregation (issue 22): inserted where absent, replaced otherwise
            p.scale_out_aggregation = if mask % 2 == 0 {
                gpuform::spec::model::ScaleOutAggregation::Maximum
            } else {
                gpuform::spec::model::ScaleOutAggregation::Last
            };
            let explicit = checked
                .index
                .spans("/spec/autoscale/queue/scaleInBelow")
                .is_some();
            let e = edits(&before, &p, explicit, &checked.index, &text).unwrap();
            let new = apply_edits(&text, e);
            let re = check(new.clone());
            assert!(
                !re.has_errors(),
                "{} without {removed:?}: the tuned spec does not validate: {:?}\n{new}",
                path.display(),
                re.diagnostics
            );
            let after = Params::of(re.spec.as_ref().unwrap()).unwrap();
            assert_eq!(after.target_per_instance, p.target_per_instance, "{new}");
            assert_eq!(after.scale_out_step, p.scale_out_step, "{new}");
            assert_eq!(after.scale_out_tiers, p.scale_out_tiers, "{new}");
            assert_eq!(
                after.scale_out_cooldown_minutes, p.scale_out_cooldown_minutes,
                "{new}"
            );
            assert_eq!(
                after.scale_in_cooldown_minutes, p.scale_in_cooldown_minutes,
                "{new}"
            );
            assert_eq!(after.time_window_minutes, p.time_window_minutes, "{new}");
            assert_eq!(
                after.scale_out_aggregation, p.scale_out_aggregation,
                "{new}"
            );
            tried += 1;
        }
    }
    assert!(tried >= 8, "only {tried} variants tried");
}

// --- issue 22: Microsoft's documented semantics by default ----------------------------------

/// Service Bus Active Messages are the messages ready for delivery: four jobs held by the one
/// VM's four slots are not in the metric, so a per-instance rule `> 2` does not fire; with
/// `--queue-metric-counts-in-service` they are, and it scales out.
#[test]
fn queue_metric_counts_only_messages_ready_for_delivery_by_default() {
    let s = Setting {
        profiles: vec![profile(
            1,
            5,
            1,
            vec![rule(Dir::Increase, Op::Gt, 2.0, 1, 5)],
        )],
        zones: 1,
    };
    let mut a = vec![0; 30];
    a[0] = 4;
    let t = trace("2026-11-02T00:00:00Z", a);
    let w = workload(20, 4, 5);
    let documented = run(&s, &t, &w, Choices::default());
    assert_eq!(documented.scale_out, 0);
    assert_eq!(documented.peak_instances, 1);
    let counting = run(
        &s,
        &t,
        &w,
        Choices {
            queue_metric_counts_in_service: true,
            ..Choices::default()
        },
    );
    assert_eq!(counting.scale_out, 1);
    assert_eq!(counting.peak_instances, 2);
    // the fact the default follows
    let f = gpuform::facts::autoscale::queue_metric("ActiveMessages").unwrap();
    assert!(!f.counts_in_service && !f.source.assumption);
    let st = gpuform::facts::autoscale::queue_metric("ApproximateMessageCount").unwrap();
    assert!(!st.counts_in_service && st.source.assumption);
}

fn seconds_workload(secs: u64, c: u32) -> Workload {
    Workload {
        job_minutes: secs.div_ceil(60) as u32,
        job_seconds: secs,
        ..workload(1, c, 5)
    }
}

/// Jobs run for their exact time: four 45 s jobs on one slot start at 0, 45, 90 and 135 s
/// (waits 0, 0, 1, 2 whole minutes), not at 0, 60, 120, 180 as whole-minute jobs would.
#[test]
fn sub_minute_jobs_run_for_their_exact_time() {
    let mut a = vec![0; 10];
    a[0] = 4;
    let t = trace("2026-11-02T00:00:00Z", a);
    let o = run(
        &Setting::fixed(1),
        &t,
        &seconds_workload(45, 1),
        Choices::default(),
    );
    assert_eq!(o.waits, vec![2, 1, 1]);
    assert_eq!(o.served, 4);
    let rounded = run(
        &Setting::fixed(1),
        &t,
        &workload(1, 1, 5),
        Choices::default(),
    );
    assert_eq!(rounded.waits, vec![1, 1, 1, 1]);
    // 3.5 minutes: the second of two jobs starts at 210 s (wait 3 whole minutes, not 4)
    let mut a = vec![0; 20];
    a[0] = 2;
    let t = trace("2026-11-02T00:00:00Z", a);
    let o = run(
        &Setting::fixed(1),
        &t,
        &seconds_workload(210, 1),
        Choices::default(),
    );
    assert_eq!(o.waits, vec![1, 0, 0, 1]);
    // the model keeps the seconds: PT45S is 45 s, not a minute
    assert_eq!(
        gpuform::simulate::model::parse_flag_duration("PT45S"),
        Some(45)
    );
}

/// Scale-in by the rendered `Default` policy: the highest instance ID goes, busy or not, and its
/// job starts again. Three VMs (IDs 0, 1, 2); jobs on 0 and 1 end at minute 20, the job on 2
/// (arrived at minute 5) runs to minute 25; at 00:22 the profile allows two VMs.
#[test]
fn scale_in_follows_the_default_policy_and_restarts_the_busy_vms_jobs() {
    let s = Setting {
        profiles: vec![
            profile(3, 3, 3, vec![]),
            recurring("three", "UTC", 0, 0, 3, 3),
            recurring("two", "UTC", 0, 22, 2, 2),
        ],
        zones: 1,
    };
    let mut a = vec![0; 60];
    a[0] = 2;
    a[5] = 1;
    let t = trace("2026-11-02T00:00:00Z", a);
    let w = workload(20, 1, 5);
    let o = run(&s, &t, &w, Choices::default());
    assert_eq!(o.scale_in, 1);
    assert_eq!(o.restarted_jobs, 1);
    assert_eq!(o.restarted_by_scale_in, 1);
    // the restarted job waited from minute 5 until a slot was free again after minute 22
    assert!(o.wait_max() >= 17.0, "{:?}", o.waits);
    let optimistic = run(
        &s,
        &t,
        &w,
        Choices {
            scale_in_order: engine::ScaleInOrder::IdleFirst,
            ..Choices::default()
        },
    );
    assert_eq!(optimistic.restarted_jobs, 0);
    assert_eq!(optimistic.wait_max(), 0.0);
}

/// Zonal scale set: new VMs spread over the zones, and scale-in balances them before taking
/// the highest ID (from four VMs over two zones to three, then two: one per zone remains).
#[test]
fn scale_in_balances_zones_first() {
    let s = Setting {
        profiles: vec![
            profile(4, 4, 4, vec![]),
            recurring("four", "UTC", 0, 0, 4, 4),
            recurring("two", "UTC", 0, 10, 2, 2),
        ],
        zones: 2,
    };
    let mut a = vec![0; 30];
    // four long jobs, one per VM (IDs 0..3 in zones 0, 1, 0, 1)
    a[0] = 4;
    let t = trace("2026-11-02T00:00:00Z", a);
    let o = run(&s, &t, &workload(60, 1, 5), Choices::default());
    // IDs 3 (zone 1) and 2 (zone 0) go: both busy, two restarts; 0 and 1 keep theirs
    assert_eq!(o.restarted_by_scale_in, 2);
    assert_eq!(o.served, 2);
}

// --- issue 22/23: the scale-out rules' time aggregation -------------------------------------

/// A backlog after quiet minutes: with `Maximum` over a 5-minute window the scale-out rule
/// fires in the backlog's first minute; with `Average` only once the window's average is over
/// the threshold (three minutes later here).
#[test]
fn scale_out_with_maximum_aggregation_reacts_in_the_first_minute() {
    let setting = |agg: Agg| {
        let mut r = rule(Dir::Increase, Op::Gt, 2.0, 1, 5);
        r.window = 5;
        r.aggregation = agg;
        Setting {
            profiles: vec![profile(1, 5, 1, vec![r])],
            zones: 1,
        }
    };
    let mut a = vec![0; 40];
    a[10] = 4;
    let t = trace("2026-11-02T00:00:00Z", a);
    let w = workload(20, 1, 0);
    let first_out = |agg: Agg| {
        let o = run(&setting(agg), &t, &w, Choices::default());
        let s = o.series.unwrap();
        s.regular.iter().position(|n| *n > 1).unwrap()
    };
    let avg = first_out(Agg::Average);
    let max = first_out(Agg::Maximum);
    let last = first_out(Agg::Last);
    assert_eq!(
        max, 11,
        "the first minute over the threshold, acted on at its end"
    );
    assert_eq!(last, 11);
    assert!(avg >= max + 3, "average {avg}, maximum {max}");
}

/// `autoscale.queue.scaleOutAggregation` renders on the scale-out rules only (scale-in keeps
/// `Average`), in Bicep and ARM from the one plan; absent, every rule stays `Average`; a value
/// Azure's `timeAggregation` does not have through this field is refused.
#[test]
fn scale_out_aggregation_renders_on_scale_out_rules_only() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("examples/llm-finetune-a100.yaml").unwrap();
    let with = text.replacen(
        "      targetPerInstance: 1\n",
        "      targetPerInstance: 1\n      scaleOutAggregation: maximum\n",
        1,
    );
    assert_ne!(with, text);
    let spec = dir.path().join("llm.yaml");
    std::fs::write(&spec, &with).unwrap();
    let out = dir.path().join("out");
    gpuform()
        .args(["render"])
        .arg(&spec)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let arm: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("azuredeploy.json")).unwrap())
            .unwrap();
    let mut rules = Vec::new();
    fn walk(v: &serde_json::Value, out: &mut Vec<(String, String)>) {
        match v {
            serde_json::Value::Object(o) => {
                if let (Some(m), Some(a)) = (o.get("metricTrigger"), o.get("scaleAction")) {
                    out.push((
                        a["direction"].as_str().unwrap_or("").to_string(),
                        m["timeAggregation"].as_str().unwrap_or("").to_string(),
                    ));
                }
                o.values().for_each(|x| walk(x, out));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    walk(&arm, &mut rules);
    assert!(rules.iter().any(|(d, _)| d == "Increase"), "{rules:?}");
    for (d, a) in &rules {
        let want = if d == "Increase" {
            "Maximum"
        } else {
            "Average"
        };
        assert_eq!(a, want, "{rules:?}");
    }
    let bicep = std::fs::read_to_string(out.join("main.bicep")).unwrap();
    assert!(bicep.contains("timeAggregation: 'Maximum'"));
    assert!(bicep.contains("timeAggregation: 'Average'"));
    // refused: not one of average|maximum|last
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, with.replace("maximum", "sometimes")).unwrap();
    gpuform().args(["validate"]).arg(&bad).assert().failure();
}
