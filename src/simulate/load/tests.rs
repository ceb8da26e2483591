use super::*;

// CPU-time budgets (shared with tests/hardening_props.rs)
#[path = "../../../tests/support/cpu_budget.rs"]
mod cpu_budget;
use cpu_budget::Budget;

#[test]
fn csv_fills_missing_minutes() {
    let t = parse(
        "t.csv",
        "timestamp,arrivals\n2026-11-02T00:00:00Z,3\n2026-11-02T00:03:00Z,1\n",
        None,
    )
    .unwrap();
    assert_eq!(t.arrivals, vec![3, 0, 0, 1]);
    assert_eq!(t.jobs(), 4);
}

#[test]
fn csv_errors_are_located() {
    let e = parse(
        "t.csv",
        "timestamp,arrivals\n2026-11-02T00:00:00Z,3\n2026-11-02T00:00:00Z,1\n",
        None,
    )
    .unwrap_err();
    assert!(matches!(e, LoadError::Csv { line: 3, .. }), "{e}");
    let e = parse("t.csv", "time,n\n", None).unwrap_err();
    assert!(matches!(e, LoadError::Csv { line: 1, .. }));
    let e = parse(
        "t.csv",
        "timestamp,arrivals\n2026-11-02T00:00:30Z,3\n",
        None,
    )
    .unwrap_err();
    assert!(e.to_string().contains("whole minute"));
    let e = parse("t.csv", "timestamp,arrivals\nx,-1\n", None).unwrap_err();
    assert!(e.to_string().contains(":2:"));
    assert!(matches!(
        parse("t.csv", "timestamp,arrivals\n", None),
        Err(LoadError::Empty { .. })
    ));
}

#[test]
fn synthetic_is_deterministic() {
    let s = Synthetic {
        seed: 7,
        days: 1,
        start: "2026-11-02T00:00:00Z".into(),
        base_per_minute: 2.0,
        windows: vec![Window {
            time_zone: "China Standard Time".into(),
            start: 18 * 60,
            end: 23 * 60 + 30,
            per_minute: 20.0,
        }],
        burst_per_hour: 0.1,
        burst_per_minute: 10.0,
    };
    let a = s.generate().unwrap();
    let b = s.generate().unwrap();
    assert_eq!(a, b);
    let mut s2 = s.clone();
    s2.seed = 8;
    assert_ne!(a.arrivals, s2.generate().unwrap().arrivals);
    // 18:00 in Beijing is 10:00 UTC: the window is busier than the night
    let peak: u32 = a.arrivals[10 * 60..15 * 60].iter().sum();
    let night: u32 = a.arrivals[16 * 60..21 * 60].iter().sum();
    assert!(peak > 4 * night, "{peak} vs {night}");
}

fn az(interval: &str, points: &str) -> String {
    format!(
        r#"{{"interval": "{interval}", "value": [{{"name": {{"value": "IncomingMessages"}}, "timeseries": [{{"metadatavalues": [], "data": [{points}]}}]}}]}}"#
    )
}

#[test]
fn a_wrapping_interval_is_refused_at_once() {
    let budget = Budget::start();
    let text = az(
        "PT18446744073709551600S",
        r#"{"timeStamp": "2026-11-02T00:00:00Z", "total": 5}"#,
    );
    let e = parse("t.json", &text, None).unwrap_err();
    assert!(e.to_string().contains("at most a year"), "{e}");
    for bad in ["PT0S", "P367D", "P99999999999999999999D", "P", "PT"] {
        let e = parse(
            "t.json",
            &az(bad, r#"{"timeStamp": "2026-11-02T00:00:00Z", "total": 5}"#),
            None,
        )
        .unwrap_err();
        assert!(matches!(e, LoadError::Json { .. }), "{bad}: {e}");
    }
    budget.check(std::time::Duration::from_secs(2)).unwrap();
}

#[test]
fn many_points_over_a_long_interval_cost_their_number_not_their_span() {
    let point = r#"{"timeStamp": "2026-11-02T00:00:00Z", "total": 432000},"#;
    let mut points = point.repeat(100_000);
    points.pop();
    let budget = Budget::start();
    let t = parse("t.json", &az("P300D", &points), None).unwrap();
    budget.check(std::time::Duration::from_secs(5)).unwrap();
    assert_eq!(t.minutes(), 300 * 1440);
    // 100,000 points of 432,000 over 432,000 minutes: 100,000 a minute, the total kept
    assert_eq!(t.arrivals[0], 100_000);
    assert_eq!(t.jobs(), 100_000 * 432_000);
    assert!(t.missing.iter().all(|m| !m));
}

#[test]
fn spreading_keeps_totals_and_gaps() {
    // PT5M: 10 over minutes 0..5, nothing in 5..10, 3 over 10..15
    let t = parse(
        "t.json",
        &az(
            "PT5M",
            r#"{"timeStamp": "2026-11-02T00:00:00Z", "total": 10}, {"timeStamp": "2026-11-02T00:10:00Z", "total": 3}"#,
        ),
        None,
    )
    .unwrap();
    assert_eq!(t.minutes(), 15);
    assert_eq!(t.jobs(), 13);
    assert_eq!(&t.arrivals[5..10], &[0, 0, 0, 0, 0]);
    assert_eq!(t.missing.iter().filter(|m| **m).count(), 5);
    // huge values are capped, not wrapped; the total never goes negative
    let t = parse(
        "t.json",
        &az("PT1M", r#"{"timeStamp": "2026-11-02T00:00:00Z", "total": 1e308}, {"timeStamp": "2026-11-02T00:01:00Z", "total": -5}"#),
        None,
    )
    .unwrap();
    assert_eq!(t.arrivals, vec![u32::MAX, 0]);
}

#[test]
fn a_file_of_empty_objects_stops_at_the_first() {
    let mut text = "{},".repeat(1_000_000);
    text.pop();
    let text = format!("[{text}]");
    let budget = Budget::start();
    let e = parse("t.json", &text, None).unwrap_err();
    assert!(e.to_string().contains("no `value` array"), "{e}");
    assert!(e.to_string().len() < 400, "{e}");
    budget.check(std::time::Duration::from_secs(2)).unwrap();
    // and within a document: a million empty data points stop at the first too
    let mut pts = "{},".repeat(1_000_000);
    pts.pop();
    let e = parse("t.json", &az("PT1M", &pts), None).unwrap_err();
    assert!(e.to_string().contains("timeStamp"), "{e}");
}

#[test]
fn a_huge_value_is_not_echoed_whole() {
    let big = "9".repeat(5_000_000);
    let text = format!("timestamp,arrivals\n2026-11-02T00:00:00Z,{big}\n");
    let e = parse("t.csv", &text, None).unwrap_err();
    assert!(e.to_string().len() < 400, "{} bytes", e.to_string().len());
    assert!(e.to_string().contains("5000000 bytes"), "{e}");
}

/// A trace over both autumn clock changes (Europe 2026-10-25, US 2026-11-01): a quiet base and
/// a busy local 09:00-10:00 in Western Europe, so each day's first busy minute is known.
fn autumn(seed: u64) -> Trace {
    Synthetic {
        seed,
        days: 12,
        start: "2026-10-22T00:00:00Z".into(),
        base_per_minute: 0.0,
        windows: vec![Window {
            time_zone: "W. Europe Standard Time".into(),
            start: 9 * 60,
            end: 10 * 60,
            per_minute: 40.0,
        }],
        burst_per_hour: 0.5,
        burst_per_minute: 3.0,
    }
    .generate()
    .unwrap()
}

#[test]
fn load_change_nominal_is_the_trace() {
    let t = autumn(1);
    let n = LoadChange::default();
    assert!(n.is_nominal());
    assert_eq!(n.apply(&t), t);
}

#[test]
fn more_arrivals_scale_the_total_and_never_lower_a_minute() {
    for seed in 0..8 {
        let mut t = autumn(seed);
        t.missing[5] = true;
        for pct in [1, 5, 10, 25, 100] {
            let l = LoadChange {
                percent_more: pct,
                earlier_minutes: 0,
                ..LoadChange::default()
            };
            let c = l.apply(&t);
            // timestamps intact: same start, same minutes, same gaps
            assert_eq!((c.start, c.minutes()), (t.start, t.minutes()));
            assert_eq!(c.missing, t.missing);
            // the total scaled (rounded down), each minute at least its own and at most one
            // above its own scaled count
            assert_eq!(c.jobs(), t.jobs() * (100 + u64::from(pct)) / 100, "{pct} %");
            for (a, b) in t.arrivals.iter().zip(&c.arrivals) {
                let scaled = f64::from(*a) * f64::from(100 + pct) / 100.0;
                assert!(
                    *b >= *a && f64::from(*b) <= scaled.floor() + 1.0,
                    "{a} -> {b}"
                );
            }
            assert!(c.source.contains(&format!("arrivals +{pct} %")));
        }
    }
}

#[test]
fn earlier_load_keeps_every_job_and_moves_by_elapsed_minutes_across_dst() {
    let first_busy = |t: &Trace| -> Vec<usize> {
        t.arrivals
            .chunks(1440)
            .enumerate()
            .filter_map(|(d, day)| day.iter().position(|a| *a >= 20).map(|i| d * 1440 + i))
            .collect()
    };
    for seed in 0..4 {
        let t = autumn(seed);
        for k in [1, 30, 90] {
            let l = LoadChange {
                percent_more: 0,
                earlier_minutes: k,
                ..LoadChange::default()
            };
            let c = l.apply(&t);
            assert_eq!((c.start, c.minutes()), (t.start, t.minutes()));
            assert_eq!(c.jobs(), t.jobs(), "every job kept");
            let k = k as usize;
            for i in 0..t.minutes() {
                assert_eq!(c.arrivals[i], t.arrivals[(i + k) % t.minutes()]);
                assert_eq!(c.missing[i], t.missing[(i + k) % t.minutes()]);
            }
            // the busy hour moves by exactly k elapsed minutes on every day, before and after
            // both clock changes (the local hour moved by one in UTC on 2026-10-25)
            let (a, b) = (first_busy(&t), first_busy(&c));
            assert_eq!(a.len(), 12);
            for (x, y) in a.iter().zip(&b) {
                assert_eq!(*x - k, *y, "seed {seed}");
            }
            // 2026-10-24 09:00 CEST is 07:00 UTC; 2026-10-25 09:00 CET is 08:00 UTC
            assert_eq!((a[2] % 1440, a[3] % 1440), (7 * 60, 8 * 60), "{a:?}");
        }
    }
    // both changes together: the total scaled, the pattern earlier
    let t = autumn(9);
    let c = LoadChange {
        percent_more: 10,
        earlier_minutes: 30,
        ..LoadChange::default()
    }
    .apply(&t);
    assert_eq!(c.jobs(), t.jobs() * 110 / 100);
    assert_eq!(c.minutes(), t.minutes());
    assert!(
        c.source.ends_with("(arrivals +10 %, load 30 min earlier)"),
        "{}",
        c.source
    );
}

#[test]
fn bunched_arrivals_keep_every_job_in_its_block() {
    let t = autumn(3);
    for b in [2, 5, 7] {
        let c = LoadChange {
            bunched_minutes: b,
            ..LoadChange::default()
        }
        .apply(&t);
        assert_eq!(
            (c.start, c.minutes(), c.jobs()),
            (t.start, t.minutes(), t.jobs())
        );
        let b = b as usize;
        for (x, y) in t.arrivals.chunks(b).zip(c.arrivals.chunks(b)) {
            assert_eq!(y[0], x.iter().sum::<u32>());
            assert!(y[1..].iter().all(|a| *a == 0));
        }
    }
}

#[test]
fn a_surge_lands_in_each_weeks_quietest_hour_and_lowers_nothing() {
    let t = autumn(4);
    let c = LoadChange {
        surge_minutes: 60,
        ..LoadChange::default()
    }
    .apply(&t);
    assert_eq!((c.start, c.minutes()), (t.start, t.minutes()));
    assert_eq!(c.missing, t.missing);
    let changed: Vec<usize> = (0..t.minutes())
        .filter(|&i| c.arrivals[i] != t.arrivals[i])
        .collect();
    assert!(t.arrivals.iter().zip(&c.arrivals).all(|(a, b)| b >= a));
    // 12 days: two weeks' blocks, one surge each, within an hour, outside the busy window
    let first = changed[0];
    let second = *changed.iter().find(|&&i| i >= 7 * 1440).unwrap();
    assert!(
        changed
            .iter()
            .all(|&i| (first..first + 60).contains(&i) || (second..second + 60).contains(&i)),
        "{changed:?}"
    );
    // it reaches the busiest hourly rate (about 40 a minute) after its 5-minute rise
    assert!(c.arrivals[first + 10] >= 35, "{}", c.arrivals[first + 10]);
    assert!(c.jobs() > t.jobs() + 2 * 50 * 35);
    assert!(c.source.contains("60-min surge"));
}

/// The gateway's exports, in the `Metrics - List` response shape `az monitor metrics list -o
/// json` prints (azure-rest-api-specs
/// specification/monitor/resource-manager/Microsoft.Insights/stable/2023-10-01/examples/GetMetric.json
/// @ 6051055e, read 2026-12-06: `{cost, timespan, interval, value: [{id, type, name: {value,
/// localizedValue}, displayDescription, unit, timeseries: [{metadatavalues: [{name: {value},
/// value}], data: [{timeStamp, total|average}]}], errorCode}], namespace, resourceregion}`,
/// dimension names lower-cased in `metadatavalues`), with the metric names, units and
/// aggregations of `../shared/azure/metrics.json` (Microsoft.Network/applicationGateways).
fn gateway_fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/simulate/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn csv_of_requests() {
    for header in ["timestamp,requests", "time,requests", "Timestamp, Requests"] {
        let t = parse(
            "r.csv",
            &format!("{header}\n2026-11-02T00:00:00Z,300\n2026-11-02T00:02:00Z,420\n"),
            None,
        )
        .unwrap();
        assert_eq!(t.arrivals, vec![300, 0, 420]);
    }
    let e = parse("r.csv", "timestamp,rps\n", None).unwrap_err();
    assert!(matches!(e, LoadError::Csv { line: 1, .. }), "{e}");
    assert!(e.to_string().contains("timestamp,requests"), "{e}");
}

#[test]
fn gateway_requests_are_successful_plus_failed() {
    let t = parse("agw.json", &gateway_fixture("az-appgw-requests.json"), None).unwrap();
    // 600+0, 540+6, no point (no traffic), 0+0, 1200+3
    assert_eq!(t.arrivals, vec![600, 546, 0, 0, 1203]);
    assert_eq!(t.missing, vec![false, false, true, false, false]);
    assert!(
        t.source.contains("FailedRequests + TotalRequests"),
        "{}",
        t.source
    );
    assert!(
        t.source
            .contains("BackendSettingsPool pool-vllm~settings-vllm")
    );
    // the pool named: the same; another pool: refused with the ones present
    let named = parse(
        "agw.json",
        &gateway_fixture("az-appgw-requests.json"),
        Some("pool-vllm~settings-vllm"),
    )
    .unwrap();
    assert_eq!(named.arrivals, t.arrivals);
    let e = parse(
        "agw.json",
        &gateway_fixture("az-appgw-requests.json"),
        Some("other~x"),
    )
    .unwrap_err();
    assert!(e.to_string().contains("pool-vllm~settings-vllm"), "{e}");
}

#[test]
fn gateway_per_host_average_times_the_healthy_hosts() {
    let text = gateway_fixture("az-appgw-perhost.json");
    let t = parse("agw.json", &text, None).unwrap();
    // 300×2, 275.5×2, none, 410×3, 400×3
    assert_eq!(t.arrivals, vec![600, 551, 0, 1230, 1200]);
    assert!(t.missing[2]);
    // without HealthyHostCount the average cannot be turned into requests
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["value"].as_array_mut().unwrap().truncate(1);
    let e = parse("agw.json", &v.to_string(), None).unwrap_err();
    assert!(e.to_string().contains("HealthyHostCount"), "{e}");
}
