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
